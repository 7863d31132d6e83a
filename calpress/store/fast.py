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
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa

from .tables import Int, clamp_int64

# (SQL; the function giving the driver's parameters from named values; the function converting
#  the driver's rows; the one converting a single row)
_Compiled = tuple[str, Callable[[dict[str, Any] | None], Any], Callable[[list[Any]], list[Any]], Callable[[Any], Any]]


def _built(source: str, name: str, namespace: dict[str, Any]) -> Any:
    """The function ``name`` defined by ``source`` (generated here), with ``namespace`` as its globals."""
    exec(compile(source, f"<FastQuery {name}>", "exec"), namespace)  # noqa: S102 - code built from column positions only
    return namespace[name]


def _binder(names: Sequence[str], positional: bool, defaults: dict[str, Any], processors: dict[str, Any],
            clamped: set[str], keys: dict[str, str]) -> Callable[[dict[str, Any] | None], Any]:
    """The driver's parameters from named values, as one generated function: each name's value
    (its literal default when not given; a missing one raises KeyError), converted as SQLAlchemy
    converts it before the driver (``processors``; ``clamped``: ``Int``'s 64-bit clamp, called
    directly instead of through SQLAlchemy's two calls per value), then a tuple in ``names``' order (``positional``,
    where a name may repeat) or a dict by the statement's ``keys``. Written out name by name,
    this costs a fraction of merging dicts and looping over processors on every run."""
    namespace: dict[str, Any] = {"_clamp": clamp_int64}
    lines = ["def bind(params):", "    if params is None:", "        params = {}"]
    local: dict[str, str] = {}
    for name in dict.fromkeys(names):
        var = local[name] = f"v{len(local)}"
        if name in defaults:
            namespace[f"d_{var}"] = defaults[name]
            lines.append(f"    {var} = params.get({name!r}, d_{var})")
        else:
            lines.append(f"    {var} = params[{name!r}]")
        if name in clamped:
            lines.append(f"    {var} = _clamp({var})")
        elif name in processors:
            namespace[f"p_{var}"] = processors[name]
            lines.append(f"    if {var} is not None:")
            lines.append(f"        {var} = p_{var}({var})")
    if positional:
        lines.append(f"    return ({''.join(local[name] + ', ' for name in names)})")
    else:
        lines.append(f"    return {{{', '.join(f'{keys.get(name, name)!r}: {local[name]}' for name in local)}}}")
    return _built("\n".join(lines), "bind", namespace)


def _converters(row_type: type, processors: list[Any]) -> tuple[Callable[[list[Any]], list[Any]], Callable[[Any], Any]]:
    """Generated functions making the driver's rows (tuples) into ``row_type`` rows, each column
    converted by its result processor (None: as it comes): for a list of rows, and for one."""
    namespace: dict[str, Any] = {"_new": tuple.__new__, "_Row": row_type}
    values = "r"  # the driver's tuple as it is, when no column is converted
    if any(process is not None for process in processors):
        columns = []
        for index, process in enumerate(processors):
            if process is None:
                columns.append(f"r[{index}]")
            else:
                namespace[f"p{index}"] = process
                columns.append(f"(None if (c := r[{index}]) is None else p{index}(c))")
        values = "(" + "".join(column + ", " for column in columns) + ")"
    source = (f"def rows(raws):\n    return [_new(_Row, {values}) for r in raws]\n"
              f"def row(r):\n    return _new(_Row, {values})\n")
    _built(source, "rows", namespace)
    return namespace["rows"], namespace["row"]


class FastQuery:
    """A SELECT (or an INSERT or UPDATE with RETURNING) run on the raw DBAPI cursor. Parameters
    are ``sa.bindparam`` names; an INSERT or UPDATE names every value it writes as a bind (no
    column default of SQLAlchemy's is applied here), and a missing one fails.

    ``generic_plan``: the statement's plan holds for any values (rows found by their keys, or
    an ordered index range read up to a LIMIT), so PostgreSQL may plan it once per connection
    instead of on every run (``Site.query``): planning the event page took longer than running
    it."""

    def __init__(self, statement: sa.Select, *, generic_plan: bool = False) -> None:
        self.statement = statement
        self.generic_plan = generic_plan
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def _compile(self, dialect: sa.Dialect) -> _Compiled:
        found = self._compiled.get(dialect.name)
        if found is not None:
            return found
        with self._lock:
            compiled = self.statement.compile(dialect=dialect)
            if "POSTCOMPILE" in compiled.string:
                # an IN over a Python list: bind each value (in_binds) instead
                raise ValueError("a FastQuery cannot expand IN lists at run time")
            processors: list[Any] = []
            names: list[str] = []
            columns = getattr(self.statement, "selected_columns", None)
            if columns is None:  # an INSERT or UPDATE: what it RETURNs
                columns = self.statement.exported_columns
                if not len(columns):
                    raise ValueError("a FastQuery INSERT or UPDATE needs RETURNING (its rows are fetched)")
            for column in columns:
                column_type = column.type.dialect_impl(dialect)
                processors.append(column_type.result_processor(dialect, None))
                names.append(column.key)
            row_type = collections.namedtuple("FastRow", names, rename=True)  # type: ignore[misc]
            # Literal values of the statement (a LIMIT, a constant) are binds with defaults.
            defaults = {key: value for key, value in compiled.params.items() if value is not None}
            # What SQLAlchemy does to a bound value before the driver sees it (a datetime as
            # SQLite's stored text, a 64-bit clamp on ids), by parameter name.
            bind_processors = dict(compiled._bind_processors)
            clamped = {name for name, bind in compiled.binds.items()
                       if isinstance(bind.type, Int) and bind.type.load_dialect_impl(dialect).bind_processor(dialect) is None}
            # Positional drivers (SQLite's qmark) take the values in the statement's order.
            if compiled.positional:
                bound_names: Sequence[str] = tuple(compiled.positiontup or ())
            else:
                bound_names = list(dict.fromkeys(compiled.bind_names.values()))
            binder = _binder(bound_names, compiled.positional, defaults, bind_processors, clamped,
                             dict(compiled.escaped_bind_names))
            found = (compiled.string, binder, *_converters(row_type, processors))
            self._compiled[dialect.name] = found
            return found

    def rows(self, conn: sa.Connection, params: dict[str, Any] | None = None, *, raw: bool = False) -> list[Any]:
        """All rows, as named tuples with the statement's column keys (``raw``: unconverted). The
        connection's transaction is begun first when it has none yet, as SQLAlchemy's own
        statements begin it: the reads of one ``Site.read()`` block share one snapshot (SQLite's
        BEGIN)."""
        if not conn.in_transaction():
            conn.begin()
        return self.run(conn.connection.driver_connection, conn.dialect, params, raw=raw)

    def rows_and_commit(self, conn: sa.Connection, params: dict[str, Any] | None = None) -> list[Any]:
        """:meth:`rows` for the last statement of ``conn``'s transaction, committed in the same
        round trip on PostgreSQL (the transaction's end then finds nothing left to commit: psycopg
        sends no COMMIT for a connection with no transaction open). Elsewhere, :meth:`rows`."""
        if conn.dialect.name != "postgresql" or conn.in_nested_transaction() or not conn.in_transaction():
            return self.rows(conn, params)
        return self.run(conn.connection.driver_connection, conn.dialect, params, commit=True)

    def run(self, driver_connection: Any, dialect: sa.Dialect, params: dict[str, Any] | None = None, *, raw: bool = False,
            commit: bool = False) -> list[Any]:
        """All rows, on a driver (DBAPI) connection: for callers holding a pooled raw connection.
        ``raw``: the driver's rows as they come, for a caller that converts only some of them
        (:meth:`convert`). ``commit`` (psycopg only): the transaction's COMMIT sent right behind
        the statement, in one round trip (psycopg's pipeline mode); the rows come once it is done."""
        sql, bind, convert_rows, _ = self._compile(dialect)
        cursor = driver_connection.cursor()
        try:
            if commit:
                with driver_connection.pipeline():
                    cursor.execute(sql, bind(params))
                    driver_connection.commit()
            else:
                cursor.execute(sql, bind(params))
            raw_rows = cursor.fetchall()
        finally:
            cursor.close()
        return raw_rows if raw else convert_rows(raw_rows)

    def convert(self, dialect: sa.Dialect, raw: Any) -> Any:
        """One row of ``run(..., raw=True)`` as :meth:`run` returns it."""
        return self._compile(dialect)[3](raw)

    def first(self, conn: sa.Connection, params: dict[str, Any] | None = None) -> Any:
        found = self.rows(conn, params)
        return found[0] if found else None

    def __iter__(self) -> Iterator[Any]:  # pragma: no cover - guard against misuse
        raise TypeError("call .rows(conn, params) or .first(conn, params)")


class Shapes:
    """FastQueries of one family, built on first use per *shape*: a hashable key saying which
    conditions a statement has and how many values each list of ids binds (``build(*shape)``
    returns the SELECT, its values as bind parameters). A listing whose filters vary builds and
    compiles each shape once, then runs it with new values like any FastQuery. Bounded: the key
    space is small (filters present, power-of-two list sizes), and past ``limit`` shapes it
    starts over."""

    def __init__(
        self, build: Callable[..., sa.Select], limit: int = 512, *, generic_plan: bool | Callable[..., bool] = False
    ) -> None:
        """``generic_plan``: FastQuery's, for every shape or as a function of the shape."""
        self._build = build
        self._generic_plan = generic_plan
        self._queries: dict[Hashable, FastQuery] = {}
        self._limit = limit
        self._lock = threading.Lock()

    def __call__(self, *shape: Hashable) -> FastQuery:
        found = self._queries.get(shape)
        if found is None:
            generic = self._generic_plan(*shape) if callable(self._generic_plan) else self._generic_plan
            found = FastQuery(self._build(*shape), generic_plan=generic)
            with self._lock:
                if len(self._queries) >= self._limit:
                    self._queries.clear()
                self._queries[shape] = found
        return found


def padded_size(count: int) -> int:
    """The number of bind parameters a list of ``count`` values takes: the next power of two (at
    least 1), so that lists of any length share a few statement shapes."""
    size = 1
    while size < count:
        size *= 2
    return size


def in_binds(column: Any, name: str, size: int) -> Any:
    """``column IN (:name_0, ... :name_{size-1})``, each bound with the column's type."""
    return column.in_([sa.bindparam(f"{name}_{n}", type_=column.type) for n in range(size)])


def bind_list(name: str, values: Sequence[Any], size: int | None = None) -> dict[str, Any]:
    """The parameters of :func:`in_binds` for ``values`` (at least one), padded to ``size`` (by
    default :func:`padded_size`) by repeating the last value, which leaves what IN matches as it is."""
    if not values:
        raise ValueError("an IN list needs at least one value")
    size = padded_size(len(values)) if size is None else size
    return {f"{name}_{n}": values[min(n, len(values) - 1)] for n in range(size)}


def rows_insert(table: sa.Table, returning: sa.ColumnElement[Any]) -> Shapes:
    """INSERTs of some rows of ``table`` in one statement on the driver, a FastQuery per number of
    rows, RETURNING ``returning``; each value bound as ``<column>_<row>`` (:func:`rows_params`)."""
    return Shapes(lambda size: sa.insert(table).values([
        {column.name: sa.bindparam(f"{column.name}_{n}", type_=column.type) for column in table.columns}
        for n in range(size)
    ]).returning(returning))


def rows_params(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The parameters of a :func:`rows_insert` statement for ``rows`` (each names every column)."""
    return {f"{name}_{n}": value for n, row in enumerate(rows) for name, value in row.items()}
