"""Per-process caches of what depends only on the request, the requester and the stored content:
the REST engine's encoded answers (:class:`ResponseCache`) and the public site's rendered pages
(pages/site.py), both on one :class:`GenerationCache`.

Entries are tagged with a generation number (the content counter every write bumps in its
transaction) and used only while the stored generation is unchanged, so a write made by any
process is seen at once; reading the generation is one indexed primary-key lookup. The cache is
bounded in bytes and simply starts over when full.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import orjson

from . import encoding
from .response import RestResponse


class GenerationCache:
    """Values by key, each used only while the generation it was made under is the current one;
    bounded in bytes (each value's size given by the caller), starting over when full.

    ``observe``, when set (metrics.py, with metrics on), is told of each lookup whether it hit."""

    observe: Callable[[bool], None] | None = None

    def __init__(self, max_bytes: int) -> None:
        self._lock = threading.Lock()
        self._entries: dict[Any, tuple[int, Any, int]] = {}
        self._bytes = 0
        self.max_bytes = max_bytes

    def get(self, key: Any, generation: int) -> Any:
        found = self._entries.get(key)
        value = found[1] if found is not None and found[0] == generation else None
        if self.observe is not None:
            self.observe(value is not None)
        return value

    def __contains__(self, key: Any) -> bool:
        """Whether a value is kept for ``key``, current or not (before reading the generation)."""
        return key in self._entries

    def put(self, key: Any, generation: int, value: Any, size: int) -> None:
        with self._lock:
            if self._bytes + size > self.max_bytes:
                self._entries.clear()
                self._bytes = 0
            previous = self._entries.get(key)
            if previous is not None:
                self._bytes -= previous[2]
            self._entries[key] = (generation, value, size)
            self._bytes += size

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


class ResponseCache:
    """Encoded JSON answers (the REST engine's), in a :class:`GenerationCache`."""

    def __init__(self, max_bytes: int = 16 * 1024 * 1024) -> None:
        self._cache = GenerationCache(max_bytes)

    def watch(self, observe: Callable[[bool], None]) -> None:
        """Tell ``observe`` of each lookup whether it hit (metrics.py)."""
        self._cache.observe = observe

    def get(self, key: Any, generation: int) -> RestResponse | None:
        found = self._cache.get(key, generation)
        if found is None:
            return None
        status, headers, fragment, body = found
        answer = RestResponse(fragment, status=status, headers=dict(headers))
        answer.encoded = body
        return answer

    def put(self, key: Any, generation: int, response: RestResponse) -> RestResponse:
        """Remember ``response`` (JSON data) and return it with its data pre-encoded."""
        body = encoding.dumps(response.data)
        fragment = orjson.Fragment(body)
        self._cache.put(key, generation, (response.status, dict(response.headers), fragment, body), len(body))
        answer = RestResponse(fragment, status=response.status, headers=dict(response.headers))
        answer.encoded = body
        return answer

    def clear(self) -> None:
        self._cache.clear()
