"""Listing totals remembered per query while the content counter is unchanged.

A total costs a count over every match (an index range, but still every entry), while the page
itself costs only its own rows. Listings that differ only by page, or by a parameter the query
ignores, share the total; any write moves the counter (store/changes.py) and with it every
remembered total. Bounded: past ``limit`` queries the memory is emptied and starts again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from .changes import read_generation


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

    def total(self, conn: sa.Connection, key: tuple[Any, ...], generation: int | None, count: Callable[[], int]) -> int:
        """The total of the query ``key`` on ``conn``'s database: remembered at ``generation``
        (the content counter, read here when the caller has not), else ``count()`` and kept."""
        if generation is None:
            generation = read_generation(conn)
        full = (_database_of(conn), *key)
        found = self.get(full, generation)
        if found is None:
            found = int(count())
            self.put(full, generation, found)
        return found

    def known(self, engine: sa.Engine, key: tuple[Any, ...], generation: int) -> int | None:
        """The total of ``key`` on ``engine``'s database if it is kept at ``generation``."""
        return self.get((_database_of_engine(engine), *key), generation)

    def remember(self, conn: sa.Connection, key: tuple[Any, ...], generation: int, total: int) -> None:
        """Keep a total the caller knows without counting (a first page holding every match)."""
        self.put((_database_of(conn), *key), generation, total)


def _database_of(conn: sa.Connection) -> str:
    return _database_of_engine(conn.engine)


def _database_of_engine(engine: sa.Engine) -> str:
    """Which database ``engine`` reads (its URL as text, worked out once per engine): the same
    process may serve several."""
    found = engine.__dict__.get("_calpress_database")
    if found is None:
        found = engine.__dict__["_calpress_database"] = engine.url.render_as_string(hide_password=False)
    return found
