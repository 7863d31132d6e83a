"""Listing totals remembered per query while the content counter is unchanged.

A total costs a count over every match (an index range, but still every entry), while the page
itself costs only its own rows. Listings that differ only by page, or by a parameter the query
ignores, share the total; any write moves the counter (store/changes.py) and with it every
remembered total. Bounded: past ``limit`` queries the memory is emptied and starts again.
"""

from __future__ import annotations

import threading
from typing import Any


class TotalsCache:
    """Listing totals per query, valid while the content counter is unchanged (bounded)."""

    def __init__(self, limit: int = 2048) -> None:
        self._lock = threading.Lock()
        self._values: dict[tuple[Any, ...], tuple[int, int]] = {}
        self._limit = limit

    def get(self, key: tuple[Any, ...], generation: int) -> int | None:
        found = self._values.get(key)
        return found[1] if found is not None and found[0] == generation else None

    def put(self, key: tuple[Any, ...], generation: int, total: int) -> None:
        with self._lock:
            if len(self._values) >= self._limit:
                self._values.clear()
            self._values[key] = (generation, total)
