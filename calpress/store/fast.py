"""Compiled queries for the hot path: a SQLAlchemy SELECT compiled once per database dialect and
run straight on the driver's cursor.

SQLAlchemy Core costs about 150-300 µs per statement on top of the database; the few queries that
run on nearly every request (authentication, per-page listings) cannot afford that. A
``FastQuery`` keeps SQLAlchemy for building the statement and for converting column values
(JSON text, SQLite datetimes), and skips the rest: it is compiled once, its parameters are bound
by name, and its rows come back as light named tuples.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa


class FastQuery:
    """A SELECT run on the raw DBAPI cursor. Parameters are ``sa.bindparam`` names."""

    def __init__(self, statement: sa.Select) -> None:
        self.statement = statement
        self._compiled: dict[str, tuple[str, tuple[str, ...] | None, list[Any], type, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def _compile(self, dialect: sa.Dialect) -> tuple[str, tuple[str, ...] | None, list[Any], type, dict[str, Any]]:
        found = self._compiled.get(dialect.name)
        if found is not None:
            return found
        with self._lock:
            compiled = self.statement.compile(dialect=dialect)
            positions = tuple(compiled.positiontup) if compiled.positional else None
            processors: list[Any] = []
            names: list[str] = []
            for column in self.statement.selected_columns:
                column_type = column.type.dialect_impl(dialect)
                processors.append(column_type.result_processor(dialect, None))
                names.append(column.key)
            row_type = collections.namedtuple("FastRow", names, rename=True)  # type: ignore[misc]
            # Literal values of the statement (a LIMIT, a constant) are binds with defaults.
            defaults = {key: value for key, value in compiled.params.items() if value is not None}
            found = (compiled.string, positions, processors, row_type, defaults)
            self._compiled[dialect.name] = found
            return found

    def rows(self, conn: sa.Connection, params: dict[str, Any] | None = None) -> list[Any]:
        """All rows, as named tuples with the statement's column keys."""
        return self.run(conn.connection.driver_connection, conn.dialect, params)

    def run(self, driver_connection: Any, dialect: sa.Dialect, params: dict[str, Any] | None = None) -> list[Any]:
        """All rows, on a driver (DBAPI) connection: for callers holding a pooled raw connection."""
        sql, positions, processors, row_type, defaults = self._compile(dialect)
        bound: Any = {**defaults, **params} if params else defaults
        if positions is not None:
            bound = tuple(bound[name] for name in positions)
        cursor = driver_connection.cursor()
        try:
            cursor.execute(sql, bound)
            raw_rows = cursor.fetchall()
        finally:
            cursor.close()
        if not any(processors):
            return [row_type(*row) for row in raw_rows]
        return [
            row_type(*[proc(value) if proc is not None and value is not None else value for proc, value in zip(processors, row)])
            for row in raw_rows
        ]

    def first(self, conn: sa.Connection, params: dict[str, Any] | None = None) -> Any:
        found = self.rows(conn, params)
        return found[0] if found else None

    def __iter__(self) -> Iterator[Any]:  # pragma: no cover - guard against misuse
        raise TypeError("call .rows(conn, params) or .first(conn, params)")
