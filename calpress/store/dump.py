"""A portable dump of a site's database, to move a site between SQLite and PostgreSQL (or copy
it): ``calpress db export`` writes one, ``calpress db import`` loads one. Neither database's own
dump tool can do that, since neither reads the other's SQL.

The dump is JSON Lines, written and read one line at a time (never a whole table in memory)::

    {"format": "calpress-dump", "version": 1, "revision": "0009", "tables": ["options", ...],
     "sequences": {"posts": 57, ...}, "database": "sqlite", "date": "2026-11-27T12:00:00Z"}
    {"t": "users", "r": {"id": 1, "login": "admin", ..., "registered_utc": "2026-11-27T11:45:36"}}
    ...
    {"end": true, "rows": {"options": 12, "users": 2, ...}}

The header names the migration revision (a dump loads only into a database at that revision:
the columns are that revision's), the tables in dependency order (parents first; the rows follow
in that order), and the last id each id sequence handed out, so that ids of rows deleted before
the export are not handed out again after an import (as ``tables.py`` promises on both
databases). Column values are JSON: datetimes as ISO text (naive, as stored), JSON columns as
JSON values, booleans as booleans. The closing line counts the rows, so a truncated file is
refused rather than loaded in part.

An import replaces every row of every dumped table in one write transaction: a line that is not
JSON, an unknown table or column, a value of the wrong type, a row the database refuses or a
missing closing line raises ``DumpError`` naming the line, and the transaction rolls back. In
the same transaction the id sequences move past the highest id and the content counter takes
an "everything" step (``changes.record`` without ids), so every serving worker drops what it
cached (as ``calpress cache flush`` does).

Left out (``LEFT_OUT``): the migration bookkeeping, the content counter and its log (they belong
to the database the rows go into: a counter going back would let workers keep stale answers),
and SQLite's full-text index of posts with its shadow tables (triggers rebuild it from the
imported posts). ``tests/store/test_dump.py`` checks that every other table the migrations make
is dumped.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import orjson
import sqlalchemy as sa

from . import changes
from .db import head_revision, is_postgresql, is_sqlite, read_connection, revision_of, write_transaction
from .tables import metadata, posts, users

FORMAT = "calpress-dump"
VERSION = 1
# Rows read per round trip on export, and inserted per statement on import.
BATCH = 1000

# Tables of a migrated database that a dump leaves out, and why.
LEFT_OUT: dict[str, str] = {
    "alembic_version": "the migration revision: the header carries it, and the target must be at it already",
    "counters": "the content counter the target's workers key their caches by: it must only go up",
    "changes": "the log of the content counter's steps, which belongs to the counter",
    "posts_search": "SQLite's full-text index of posts (migration 0005) and its shadow tables, kept by triggers",
    "import_jobs": "the progress of imports the workspace ran in the source's processes (migration 0010): not content",
}

Progress = Callable[[int, int], None]


class DumpError(Exception):
    """A dump that cannot be written, read or loaded into this database; the message says where
    (the line number) and why. Nothing was changed."""


def dumped_tables() -> list[sa.Table]:
    """The tables a dump holds, parents before the tables whose foreign keys point at them."""
    return [table for table in metadata.sorted_tables if table.name not in LEFT_OUT]


@dataclass(frozen=True)
class Header:
    """The first line of a dump."""

    revision: str
    tables: tuple[str, ...]
    sequences: dict[str, int]
    database: str
    date: str


# -- values -----------------------------------------------------------------------------------------


def _kind(column: sa.Column[Any]) -> str:
    """How a column's values are written in a dump: json, datetime, bool, int or str."""
    column_type = column.type
    if isinstance(column_type, sa.TypeDecorator):
        column_type = column_type.impl_instance
    for kind, types in (("json", sa.JSON), ("datetime", sa.DateTime), ("bool", sa.Boolean), ("int", sa.Integer),
                        ("str", sa.String)):
        if isinstance(column_type, types):
            return kind
    raise TypeError(f"no dump form for {column.table.name}.{column.name} ({column.type})")


def _read_value(kind: str, nullable: bool, value: Any) -> Any:
    """A dumped value as the column takes it; ValueError says what was expected."""
    if value is None and (nullable or kind == "json"):  # a JSON column's None is JSON null
        return None
    if kind == "json":
        return value
    if kind == "datetime" and isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is no ISO date and time") from None
        if parsed.tzinfo is not None:
            raise ValueError(f"{value!r} has a time zone: the columns hold naive times")
        return parsed
    expected = {"datetime": str, "bool": bool, "int": int, "str": str}[kind]
    if type(value) is not expected:
        raise ValueError(f"expected {'a date and time' if kind == 'datetime' else expected.__name__}, "
                         f"got {orjson.dumps(value).decode()[:60]}")
    return value


def _written(kind: str, value: Any) -> Any:
    return value.isoformat() if kind == "datetime" and value is not None else value


def _line(document: Any) -> bytes:
    try:
        return orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS) + b"\n"
    except orjson.JSONEncodeError as err:  # e.g. an integer beyond 64 bits inside a JSON column
        where = f" (a row of {document['t']})" if isinstance(document, dict) and "t" in document else ""
        raise DumpError(f"Cannot write a value as JSON{where}: {err}") from None


# -- sequences --------------------------------------------------------------------------------------


def _sequenced() -> list[sa.Table]:
    """The tables whose id comes from a sequence (AUTOINCREMENT on SQLite, SERIAL on PostgreSQL)."""
    return [table for table in dumped_tables() if table.autoincrement_column is not None]


def _last_ids(conn: sa.Connection) -> dict[str, int]:
    """The last id each sequence handed out (0: none yet)."""
    found: dict[str, int] = {}
    if is_sqlite(conn):
        rows = dict(conn.execute(sa.text("SELECT name, seq FROM sqlite_sequence")).all())
        for table in _sequenced():
            found[table.name] = int(rows.get(table.name) or 0)
        return found
    for table in _sequenced():
        value = conn.execute(sa.text("SELECT pg_sequence_last_value(pg_get_serial_sequence(:t, :c)::regclass)"),
                             {"t": table.name, "c": table.autoincrement_column.name}).scalar()
        found[table.name] = int(value or 0)
    return found


def _continue_sequences(conn: sa.Connection, dumped: dict[str, int]) -> None:
    """Make each sequence hand out ids after the highest id in its table and after the last id
    the dumped site had handed out."""
    for table in _sequenced():
        column = table.autoincrement_column
        highest = conn.execute(sa.select(sa.func.max(column))).scalar() or 0
        last = max(int(highest), int(dumped.get(table.name, 0)))
        if is_sqlite(conn):
            conn.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table.name})
            if last:
                conn.execute(sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :seq)"), {"t": table.name, "seq": last})
        else:
            # setval(seq, n, true): the next id is n + 1; setval(seq, 1, false): the next id is 1.
            conn.execute(sa.text("SELECT setval(pg_get_serial_sequence(:t, :c), :value, :called)"),
                         {"t": table.name, "c": column.name, "value": max(last, 1), "called": last > 0})


# -- export -----------------------------------------------------------------------------------------


@contextlib.contextmanager
def _snapshot(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A connection that sees the whole database as it was at one moment, so that the rows of
    every table agree with each other while writers go on: SQLite's read transaction (WAL), a
    read-only REPEATABLE READ transaction on PostgreSQL (whose default, READ COMMITTED, gives each
    statement a new snapshot)."""
    if is_postgresql(engine):
        with engine.connect() as conn:
            conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
            with conn.begin():
                yield conn
        return
    with read_connection(engine) as conn:
        yield conn


def table_rows(conn: sa.Connection, table: sa.Table, batch: int = BATCH) -> Iterator[Sequence[sa.Row[Any]]]:
    """Every row of ``table``, ``batch`` at a time, by primary key (the same database always
    gives the same dump). Streamed: a server-side cursor on PostgreSQL, SQLite's own stepping."""
    statement = sa.select(table).order_by(*table.primary_key.columns).execution_options(yield_per=batch)
    yield from conn.execute(statement).partitions()


def export(engine: sa.Engine, out: IO[bytes], *, progress: Progress | None = None, batch: int = BATCH) -> dict[str, int]:
    """Write the database's dump to ``out``, ``batch`` rows at a time; returns the rows written
    per table. ``progress(done, total)`` is told the rows written so far after each batch (the
    total is counted first, only when it is given). Raises DumpError."""
    tables = dumped_tables()
    with _snapshot(engine) as conn:
        revision = revision_of(conn)
        if revision is None:
            raise DumpError("The database was never set up: it has no migration revision.")
        total = sum(int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar() or 0)
                    for table in tables) if progress is not None else 0
        out.write(_line({
            "format": FORMAT,
            "version": VERSION,
            "revision": revision,
            "tables": [table.name for table in tables],
            "sequences": _last_ids(conn),
            "database": conn.dialect.name,
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        }))
        counts: dict[str, int] = {}
        done = 0
        for table in tables:
            kinds = [(column.name, _kind(column)) for column in table.columns]
            counts[table.name] = 0
            for rows in table_rows(conn, table, batch):
                out.write(b"".join(
                    _line({"t": table.name, "r": {name: _written(kind, value) for (name, kind), value in zip(kinds, row)}})
                    for row in rows))
                counts[table.name] += len(rows)
                done += len(rows)
                if progress is not None:
                    progress(done, total)
        out.write(_line({"end": True, "rows": counts}))
    return counts


# -- import -----------------------------------------------------------------------------------------


def _parse(raw: bytes, number: int) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        if not raw.endswith(b"\n"):
            raise DumpError(f"Line {number} is cut short: the file is truncated.") from None
        raise DumpError(f"Line {number} is not JSON ({err}).") from None


def read_header(stream: IO[bytes]) -> Header:
    """Read and check the first line of a dump. Raises DumpError."""
    first = stream.readline()
    if not first:
        raise DumpError("The dump is empty.")
    document = _parse(first, 1)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise DumpError(f"Line 1 is not the header of a calpress dump (no \"format\": \"{FORMAT}\").")
    if document.get("version") != VERSION:
        raise DumpError(f"Line 1: the dump's format version is {document.get('version')!r}; this calpress reads "
                        f"version {VERSION}.")
    revision, tables, sequences = document.get("revision"), document.get("tables"), document.get("sequences", {})
    if (not isinstance(revision, str) or not isinstance(tables, list) or not all(isinstance(name, str) for name in tables)
            or not isinstance(sequences, dict) or not all(type(value) is int for value in sequences.values())):
        raise DumpError("Line 1: the header needs a \"revision\", a list of \"tables\" and \"sequences\" by table.")
    known = [table.name for table in dumped_tables()]
    if sorted(tables) != sorted(known) or len(set(tables)) != len(tables):
        unknown, missing = sorted(set(tables) - set(known)), sorted(set(known) - set(tables))
        detail = "; ".join(part for part in (f"unknown: {', '.join(unknown)}" if unknown else "",
                                             f"missing: {', '.join(missing)}" if missing else "") if part)
        raise DumpError(f"Line 1: the dump's tables are not the ones this calpress dumps ({detail or 'a table twice'}).")
    return Header(revision=revision, tables=tuple(tables), sequences={str(k): int(v) for k, v in sequences.items()},
                  database=str(document.get("database", "")), date=str(document.get("date", "")))


def check_revision(conn: sa.Connection | sa.Engine, header: Header) -> None:
    """DumpError unless the database is at the dump's migration revision (its columns are that
    revision's)."""
    if isinstance(conn, sa.Engine):
        with conn.connect() as own:
            return check_revision(own, header)
    current = revision_of(conn)
    if current == header.revision:
        return None
    if header.revision == head_revision():
        hint = "upgrade the database first (`calpress db upgrade`)"
    else:
        hint = ("load it into a database at that revision (with the calpress version that wrote it), "
                "then upgrade that database, or export it again after upgrading its site")
    raise DumpError(f"The dump was made at migration revision {header.revision}, this database is at revision "
                    f"{current or '(none)'}: {hint}. Nothing was changed.")


def holds_content(engine: sa.Engine) -> bool:
    """Whether the database holds any user or post (what an import would destroy)."""
    with read_connection(engine) as conn:
        return any(conn.execute(sa.select(sa.literal(1)).select_from(table).limit(1)).first() is not None
                   for table in (users, posts))


def _row_reader(table: sa.Table) -> Callable[[Any, int], dict[str, Any]]:
    """A check and conversion of one dumped row of ``table`` (line ``number``) into the values
    its insert takes; DumpError for a missing or unknown column or a value of the wrong type."""
    columns = [(column.name, _kind(column), bool(column.nullable)) for column in table.columns]
    names = {name for name, _, _ in columns}

    def read(row: Any, number: int) -> dict[str, Any]:
        if not isinstance(row, dict):
            raise DumpError(f"Line {number}: the row of {table.name} is no JSON object.")
        if row.keys() != names:
            unknown, missing = sorted(set(row) - names), sorted(names - set(row))
            if unknown:
                raise DumpError(f"Line {number}: {table.name} has no column {', '.join(unknown)}.")
            raise DumpError(f"Line {number}: the row of {table.name} lacks the column(s) {', '.join(missing)}.")
        values: dict[str, Any] = {}
        for name, kind, nullable in columns:
            try:
                values[name] = _read_value(kind, nullable, row[name])
            except ValueError as err:
                raise DumpError(f"Line {number}: {table.name}.{name}: {err}.") from None
        return values

    return read


def _reason(err: sa.exc.SQLAlchemyError) -> str:
    orig = getattr(err, "orig", None)
    text = str(orig if orig is not None else err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def load(engine: sa.Engine, stream: IO[bytes], header: Header, *, progress: Progress | None = None,
         size: int | None = None, batch: int = BATCH) -> dict[str, int]:
    """Replace every row of the dumped tables with the rows of ``stream`` (the lines after the
    header ``read_header`` took from it), in one write transaction; returns the rows loaded per
    table. ``progress(bytes read, size)`` after each batch when both are given. Raises DumpError,
    and then nothing was changed."""
    by_name = {table.name: table for table in dumped_tables()}
    position = {name: index for index, name in enumerate(header.tables)}
    readers = {name: _row_reader(by_name[name]) for name in header.tables}
    counts = dict.fromkeys(header.tables, 0)
    with write_transaction(engine) as conn:
        check_revision(conn, header)
        if is_postgresql(conn):
            # Writers wait until the import commits (their rows would mix with the dump's);
            # readers go on seeing the old site until then.
            listed = ", ".join(conn.dialect.identifier_preparer.format_table(table) for table in by_name.values())
            conn.execute(sa.text(f"LOCK TABLE {listed} IN EXCLUSIVE MODE"))
        for table in reversed(dumped_tables()):  # children first, so no cascade has anything to do
            conn.execute(sa.delete(table))

        pending: list[dict[str, Any]] = []
        current: str | None = None
        first_pending = 0
        number = 1
        ended = False

        def flush() -> None:
            if not pending or current is None:
                return
            statement = sa.insert(by_name[current])
            try:
                with conn.begin_nested():  # a refused batch leaves the transaction usable
                    conn.execute(statement, pending)
            except sa.exc.SQLAlchemyError as err:
                # Find the row the database refuses, to name its line (the batch's rows are
                # consecutive lines): the batch again, a row at a time (the transaction is rolled
                # back after anyway).
                culprit, reason = first_pending, _reason(err)
                for offset, row in enumerate(pending):
                    try:
                        with conn.begin_nested():
                            conn.execute(statement, [row])
                    except sa.exc.SQLAlchemyError as refused:
                        culprit, reason = first_pending + offset, _reason(refused)
                        break
                raise DumpError(f"Line {culprit}: the database refused this row of {current}: {reason}") from None
            pending.clear()
            if progress is not None and size:
                progress(min(stream.tell(), size), size)

        for number, raw in enumerate(stream, start=2):
            if ended:
                if raw.strip():
                    raise DumpError(f"Line {number} follows the dump's closing line.")
                continue
            document = _parse(raw, number)
            if isinstance(document, dict) and document.keys() == {"end", "rows"} and document["end"] is True:
                flush()
                if document["rows"] != counts:
                    raise DumpError(f"Line {number}: the closing line counts {document['rows']} rows, the dump holds "
                                    f"{counts}: the file is damaged.")
                ended = True
                continue
            if not isinstance(document, dict) or document.keys() != {"t", "r"} or not isinstance(document["t"], str):
                raise DumpError(f"Line {number} is no row (an object with \"t\", the table, and \"r\", the row).")
            name = document["t"]
            if name not in position:
                raise DumpError(f"Line {number}: unknown table {name!r}.")
            if name != current:
                flush()
                if current is not None and position[name] < position[current]:
                    raise DumpError(f"Line {number}: a row of {name} after the rows of {current}: the rows must come "
                                    "table by table, in the header's order.")
                current = name
            if not pending:
                first_pending = number
            pending.append(readers[name](document["r"], number))
            counts[name] += 1
            if len(pending) >= batch:
                flush()
        if not ended:
            raise DumpError(f"The dump ends after line {number} without its closing line: the file is truncated.")
        _continue_sequences(conn, header.sequences)
        # Every serving worker forgets what it cached: a change naming no record means everything.
        changes.record(conn, "option", "import")
    return counts
