"""The oEmbed proxy (cms-api.md 4.2): the embed data of any URL an editor pastes, from this site
itself or from the URL's provider, remembered for a day.

As the reference's get_proxy_item: the answer is cached under a hash of every request parameter
but ``_wpnonce``, shared by all users, for a day, and a cached answer is sent without any outbound
request; an address of this site is answered from the site itself (and not cached, as there);
anything else goes to its provider (:mod:`.remote`). Failures are not cached.

The cache is per process, in memory and bounded, as the app's other caches (DESIGN.md: "caches
are per-process and safe to lose"), instead of the reference's transients in the options table:
an option write here bumps the content counter every answer cache is keyed by, so each new
proxied URL would empty the answer caches of every worker.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from .. import net
from ..content.items import Context
from . import local, remote

DAY = 24 * 3600
CACHE_BYTES = 4 * 1024 * 1024
# Parameters that say nothing of the answer (the reference leaves out its nonce).
_NOT_KEYED = frozenset({"_wpnonce"})


class AnswerCache:
    """Answers by key, each kept ``ttl`` seconds; at most ``max_bytes`` of them (encoded), the
    oldest dropped first. Thread-safe; hands out copies."""

    def __init__(self, ttl: float = DAY, max_bytes: int = CACHE_BYTES, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, bytes]] = {}
        self._bytes = 0

    def get(self, key: str) -> dict[str, Any] | None:
        found = self._entries.get(key)
        if found is None:
            return None
        if found[0] <= self.clock():
            with self._lock:
                self._drop(key)
            return None
        return orjson.loads(found[1])

    def put(self, key: str, value: Mapping[str, Any]) -> None:
        body = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        if len(body) > self.max_bytes:
            return
        with self._lock:
            self._drop(key)
            now = self.clock()
            for old in [k for k, (expires, _) in self._entries.items() if expires <= now]:
                self._drop(old)
            while self._entries and self._bytes + len(body) > self.max_bytes:
                self._drop(next(iter(self._entries)))
            self._entries[key] = (now + self.ttl, body)
            self._bytes += len(body)

    def _drop(self, key: str) -> None:
        found = self._entries.pop(key, None)
        if found is not None:
            self._bytes -= len(found[1])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


def cache_key(params: Mapping[str, Any]) -> str:
    """The key of a request's answer: a hash of all its parameters but the nonce."""
    kept = {str(name): value for name, value in params.items() if name not in _NOT_KEYED}
    encoded = orjson.dumps(kept, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
    return hashlib.sha256(encoded).hexdigest()


class Proxy:
    """The proxy of one site. ``client`` gives the outbound client to use (default: the site's,
    read at each call); ``providers`` is the table of trusted providers (tests point it at a
    local server)."""

    def __init__(
        self,
        site: Any,
        *,
        client: Callable[[], net.Client] | None = None,
        providers: Sequence[remote.Provider] = remote.PROVIDERS,
        cache: AnswerCache | None = None,
        max_bytes: int = remote.MAX_BYTES,
    ) -> None:
        self.site = site
        self.client = client or (lambda: site.http)
        self.providers = providers
        self.cache = cache if cache is not None else AnswerCache()
        self.max_bytes = max_bytes

    def answer(
        self,
        ctx: Context,
        params: Mapping[str, Any],
        *,
        url: str,
        maxwidth: int,
        maxheight: int | None = None,
        discover: bool = True,
    ) -> dict[str, Any] | None:
        """The embed data of ``url``, or None when there is none (unknown or not embeddable here,
        no provider, a failed provider). ``params`` are all the request's parameters (the cache
        key); the others are the ones read from them."""
        key = cache_key(params)
        cached = self.cache.get(key)
        if cached:
            return cached
        if local.is_local(ctx, url):
            with self.site.read() as conn:
                return local.data_for_url(conn, ctx, url, maxwidth)
        data = remote.provider_answer(
            self.client(), url, width=maxwidth, height=maxheight, discover_pages=discover,
            providers=self.providers, max_bytes=self.max_bytes,
        )
        if data:
            self.cache.put(key, data)
        return data
