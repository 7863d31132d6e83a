"""A per-process cache of encoded answers, for read routes whose answer depends only on the
request, the requester and the stored content.

Entries are tagged with a generation number (the content counter every write bumps in its
transaction) and used only while the stored generation is unchanged, so a write made by any
process is seen at once; reading the generation is one indexed primary-key lookup. The cache is
bounded in bytes and simply starts over when full.
"""

from __future__ import annotations

import threading
from typing import Any

import orjson

from .response import RestResponse


class ResponseCache:
    def __init__(self, max_bytes: int = 16 * 1024 * 1024) -> None:
        self._lock = threading.Lock()
        self._entries: dict[Any, tuple[int, int, dict[str, str], orjson.Fragment, int]] = {}
        self._bytes = 0
        self.max_bytes = max_bytes

    def get(self, key: Any, generation: int) -> RestResponse | None:
        found = self._entries.get(key)
        if found is None or found[0] != generation:
            return None
        return RestResponse(found[3], status=found[1], headers=dict(found[2]))

    def put(self, key: Any, generation: int, response: RestResponse) -> RestResponse:
        """Remember ``response`` (JSON data) and return it with its data pre-encoded."""
        body = orjson.dumps(response.data, option=orjson.OPT_NON_STR_KEYS)
        fragment = orjson.Fragment(body)
        with self._lock:
            if self._bytes + len(body) > self.max_bytes:
                self._entries.clear()
                self._bytes = 0
            previous = self._entries.get(key)
            if previous is not None:
                self._bytes -= previous[4]
            self._entries[key] = (generation, response.status, dict(response.headers), fragment, len(body))
            self._bytes += len(body)
        return RestResponse(fragment, status=response.status, headers=dict(response.headers))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
