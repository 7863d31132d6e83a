"""Engines, connections and transactions for SQLite and PostgreSQL, and the schema migrations.

Usage::

    engine = create_engine("sqlite:///data/calpress.sqlite3")  # or postgresql://user@host/db
    upgrade(engine)  # safe at every start, from several processes at once
    with read_connection(engine) as conn:
        rows = conn.execute(select(posts)).all()
    with write_transaction(engine) as conn:  # committed on success, rolled back on error
        conn.execute(insert(posts).values(...))

Reads run in one connection, writes in one transaction. On SQLite, pysqlite's own transaction
handling is switched off and this module emits ``BEGIN`` itself (SQLAlchemy's documented recipe,
"Enabling Non-Legacy SQLite Transactional Modes"): reads get a plain deferred ``BEGIN`` and a
consistent snapshot, write transactions ``BEGIN IMMEDIATE``, so a writer takes the write lock
up front (waiting up to the busy timeout) instead of starting as a reader and failing with
"database is locked" when it tries to upgrade. Write only inside ``write_transaction``, and do
not set ``isolation_level`` execution options on SQLite connections (SQLAlchemy's own
isolation handling would hand BEGIN back to pysqlite).

PostgreSQL runs at its default READ COMMITTED: a read-modify-write must lock what it read
(``select(...).with_for_update()``, ``options.get_option(..., for_update=True)``) or be one
atomic statement (``UPDATE ... SET n = n + 1``, an upsert), or concurrent workers lose updates.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import io
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa

from .changes import pay_term_counts
from .checkpoints import INLINE_PAGES
from .writers import WriterQueue, writer_queue

MIGRATIONS = "calpress.store:migrations"
SQLITE_BUSY_TIMEOUT_MS = 5000
# Migrations may take a while on a big database; processes starting meanwhile wait this long.
MIGRATION_BUSY_TIMEOUT_MS = 120_000
DEFAULT_POOL_SIZE = 5

# Connection execution option that makes the SQLite begin hook emit BEGIN IMMEDIATE.
_WRITE_OPTION = "calpress_write"

_POSTGRES_PREFIXES = ("postgresql://", "postgres://")
_SQLITE_SCHEMES = ("sqlite", "sqlite+pysqlite")


def normalize_url(url: str) -> str:
    """The SQLAlchemy URL for a configured database URL.

    ``postgres://`` and ``postgresql://`` get the psycopg 3 driver (``postgresql+psycopg://``);
    URLs naming a driver (``postgresql+psycopg://``) and SQLite URLs pass unchanged.
    Raises ValueError for anything else.
    """
    url = url.strip()
    for prefix in _POSTGRES_PREFIXES:
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme.startswith("postgresql+") or scheme in _SQLITE_SCHEMES:
        return url
    raise ValueError(f"unsupported database URL {url.split('@')[-1]!r}: use sqlite:///path or postgresql://...")


def is_sqlite(engine: sa.Engine | sa.Connection) -> bool:
    """Whether the engine (or connection) talks to SQLite."""
    return engine.dialect.name == "sqlite"


def is_postgresql(engine: sa.Engine | sa.Connection) -> bool:
    """Whether the engine (or connection) talks to PostgreSQL."""
    return engine.dialect.name == "postgresql"


def _json_dumps(value: Any) -> str:
    # orjson is several times faster than json for the meta columns read on every listing.
    # NON_STR_KEYS keeps json.dumps' behaviour for int keys ({1: "a"} -> {"1": "a"}).
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _json_loads(value: Any) -> Any:
    # SQLite gives a column declared JSON numeric affinity, so a stored top-level number comes
    # back as a number rather than JSON text (and 1.0 as 1); SQLAlchemy's own SQLite JSON type
    # handles this the same way.
    if isinstance(value, (int, float)):
        return value
    return orjson.loads(value)


def create_engine(url: str, *, pool_size: int | None = None, background_checkpoints: bool = False) -> sa.Engine:
    """An engine for ``url`` (see ``normalize_url``), set up for calpress.

    SQLite: WAL journal, ``foreign_keys=ON``, a 5 s busy timeout and ``synchronous=NORMAL`` on
    every new connection; the parent folder of the file is created when missing. PostgreSQL:
    psycopg 3 with a pool of ``pool_size`` connections (default 5, plus 10 overflow) and no
    pre-ping on checkout. ``background_checkpoints`` (SQLite files): the process checkpoints
    from a thread of its own (store/checkpoints.py), so commits checkpoint in line only past
    ``checkpoints.INLINE_PAGES`` pages of log.
    """
    url = normalize_url(url)
    parsed = sa.make_url(url)
    json_args: dict[str, Any] = {"json_serializer": _json_dumps, "json_deserializer": _json_loads}
    if parsed.get_backend_name() == "sqlite":
        return _create_sqlite_engine(parsed, pool_size, json_args, background_checkpoints)
    connect_args: dict[str, Any] = {}
    if "application_name" not in parsed.query:
        connect_args["application_name"] = "calpress"
    engine = sa.create_engine(
        parsed,
        pool_size=pool_size or DEFAULT_POOL_SIZE,
        max_overflow=10,
        pool_pre_ping=False,
        # LIFO keeps the busy few connections warm and lets the rest idle out server-side.
        pool_use_lifo=True,
        connect_args=connect_args,
        **json_args,
    )
    # Term counts a transaction left to its bump (store/changes.py) are raised before a savepoint
    # starts, so that rolling the savepoint back cannot take them along.
    sa.event.listen(engine, "savepoint", lambda conn, _name: pay_term_counts(conn))
    return engine


def _python_lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def _create_sqlite_engine(parsed: sa.URL, pool_size: int | None, json_args: dict[str, Any], background_checkpoints: bool = False) -> sa.Engine:
    database = parsed.database or ""
    in_memory = database in ("", ":memory:") or parsed.query.get("mode") == "memory"
    kwargs: dict[str, Any] = dict(json_args)
    if in_memory:
        # One shared connection, or every checkout would see a different empty database.
        kwargs.update(poolclass=sa.StaticPool, connect_args={"check_same_thread": False})
    else:
        if not database.startswith("file:"):
            os.makedirs(os.path.dirname(os.path.abspath(database)), exist_ok=True)
        if pool_size:
            kwargs["pool_size"] = pool_size
    engine = sa.create_engine(parsed, **kwargs)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take BEGIN/COMMIT away from pysqlite; _on_begin emits BEGIN (pysqlite still sends
        # COMMIT and ROLLBACK correctly when a transaction is open).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            # busy_timeout first, so that switching a new file to WAL waits for other processes.
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            if not in_memory:
                _switch_to_wal(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
            if background_checkpoints and not in_memory:
                cursor.execute(f"PRAGMA wal_autocheckpoint = {INLINE_PAGES}")
        finally:
            cursor.close()
        # SQLite's lower() folds ASCII only; sorts that must follow Python's str.lower (and so
        # PostgreSQL's lower() under a UTF-8 ctype) use this one.
        dbapi_connection.create_function("calpress_lower", 1, _python_lower, deterministic=True)

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        options = conn.get_execution_options()
        if options.get("isolation_level") == "AUTOCOMMIT":
            return
        # Straight on the driver: through SQLAlchemy's execution path this BEGIN cost more than
        # the one-row SELECT after it (the statement-counting tests never counted it anyway).
        statement = "BEGIN IMMEDIATE" if options.get(_WRITE_OPTION) else "BEGIN"
        driver = conn.connection.driver_connection
        try:
            driver.execute(statement)
        except sqlite3.Error as error:  # raised as SQLAlchemy raises a failed statement's error
            raise sa.exc.DBAPIError.instance(statement, (), error, sqlite3.Error, dialect=conn.dialect) from error

    return engine


def _switch_to_wal(cursor: Any) -> None:
    """Put a new database file in WAL mode. Several processes opening the same new file at once
    can be refused ("database is locked") without SQLite calling its busy handler, since the
    switch needs the file to themselves: try again, every 10 ms, until the busy timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


@contextlib.contextmanager
def read_connection(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A connection for reads; its transaction is rolled back when the block ends.

    On SQLite the first statement opens a deferred transaction, so every read in the block sees
    one snapshot. Do not write here: use ``write_transaction``.
    """
    with engine.connect() as conn:
        yield conn


@contextlib.contextmanager
def write_transaction(engine: sa.Engine, after_commit: list[Callable[[sa.Connection], None]] | None = None) -> Iterator[sa.Connection]:
    """A connection inside one write transaction: committed when the block ends, rolled back
    if it raises. On SQLite the transaction starts with ``BEGIN IMMEDIATE``: it waits (up to the
    busy timeout) for other writers before running anything, so concurrent writers queue
    instead of failing; they wait their turn in the site's writer queue (store/writers.py)
    first, which wakes the next writer as soon as the previous one ends.

    ``after_commit``: functions called with the same connection once the transaction has
    committed and the writers' turn has passed to the next writer, in the list's order (items
    may be added while the block runs). The driver commits first; SQLAlchemy's commit at the end
    then finds nothing left to commit on SQLite, where each of their statements runs alone, and
    ends the transaction of reads the driver began for them elsewhere."""
    queue = _writer_queue(engine)
    # The connection is taken from the pool before the turn and goes back after it: the turn
    # covers only the transaction (on SQLite, the site's one writer's time).
    with engine.connect() as conn:
        if is_sqlite(engine):
            conn.execution_options(**{_WRITE_OPTION: True})
        with conn.begin():
            with queue.turn(SQLITE_BUSY_TIMEOUT_MS / 1000) if queue else contextlib.nullcontext():
                yield conn
                if after_commit:
                    conn.connection.driver_connection.commit()
            for call in after_commit or ():
                call(conn)


def sqlite_file(engine: sa.Engine) -> str | None:
    """The SQLite database file of ``engine``; None for PostgreSQL and in-memory databases."""
    if not is_sqlite(engine):
        return None
    database = engine.url.database or ""
    if database in ("", ":memory:") or database.startswith("file:") or engine.url.query.get("mode") == "memory":
        return None
    return database


def _writer_queue(engine: sa.Engine) -> WriterQueue | None:
    """The writers' queue of a SQLite database file (store/writers.py); None for PostgreSQL,
    whose writers lock rows, not the database, and for in-memory databases."""
    database = sqlite_file(engine)
    return writer_queue(database) if database is not None else None


# -- migrations -----------------------------------------------------------------------------------


# Alembic (and the Mako and Pygments it brings) costs every process about 0.2 s to import: it is
# loaded only to migrate, or to read migrations other than calpress's. Knowing that a database is
# at the newest revision needs neither (``_revision_of``, ``_own_head``).


def _alembic_config(script_location: str | None = None) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", script_location or MIGRATIONS)
    config.set_main_option("path_separator", "os")
    return config


@functools.lru_cache(maxsize=8)
def _script_directory(script_location: str | None = None) -> Any:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config(script_location))


_REVISION_LINE = re.compile(r"^(down_revision|revision)\s*(?::[^=]*)?=\s*(.+)$", re.M)


@functools.lru_cache(maxsize=1)
def _own_revisions() -> tuple[str, frozenset[str]]:
    """calpress's newest revision and every revision it knows, read from the migration files'
    ``revision``/``down_revision`` lines (a single line of history, as calpress keeps it)."""
    found: dict[str, str | None] = {}
    for path in sorted((Path(__file__).parent / "migrations" / "versions").glob("*.py")):
        values = {name: ast.literal_eval(value.strip()) for name, value in _REVISION_LINE.findall(path.read_text())}
        if "revision" in values:
            found[str(values["revision"])] = values.get("down_revision")
    replaced = {str(down) for down in found.values() if isinstance(down, str)}
    heads = [revision for revision in found if revision not in replaced]
    if len(heads) != 1:
        raise RuntimeError(f"calpress's migrations have {len(heads)} heads: {heads}")
    return heads[0], frozenset(found)


def head_revision(*, script_location: str | None = None) -> str:
    """The newest migration's revision id. ``script_location`` is for tests and tools that
    carry migrations of their own; it defaults to calpress's."""
    if script_location is None:
        return _own_revisions()[0]
    head = _script_directory(script_location).get_current_head()
    if head is None:
        raise RuntimeError("no migrations found")
    return head


def upgrade_sql(backend: str = "postgresql", *, script_location: str | None = None) -> str:
    """The SQL that ``upgrade`` runs on an empty database of ``backend`` (``"postgresql"`` or
    ``"sqlite"``), rendered by Alembic's offline mode, without BEGIN/COMMIT: for review before a
    deployment, and for test fixtures that replay it. Raises if a migration needs a live
    connection."""
    buffer = io.StringIO()
    config = _alembic_config(script_location)
    config.output_buffer = buffer
    config.set_main_option("sqlalchemy.url", "postgresql+psycopg://" if backend == "postgresql" else f"{backend}://")
    from alembic import command

    command.upgrade(config, "head", sql=True)
    lines = [line for line in buffer.getvalue().splitlines() if line.strip() not in ("BEGIN;", "COMMIT;")]
    return "\n".join(lines).strip() + "\n"


def current_revision(engine: sa.Engine) -> str | None:
    """The revision the database is at, or None when it was never migrated."""
    with engine.connect() as conn:
        return revision_of(conn)


def revision_of(conn: sa.Connection) -> str | None:
    """The revision of the database ``conn`` is on (Alembic's version table, in the schema the
    connection works in), or None when it was never migrated."""
    if not sa.inspect(conn).has_table("alembic_version"):
        return None
    found = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(found) > 1:
        raise RuntimeError(f"the database names several revisions: {found}")
    return found[0] if found else None


def is_known_revision(revision: str, *, script_location: str | None = None) -> bool:
    """Whether ``revision`` is one of this code's migrations (a newer calpress may have migrated
    the database to one it does not know)."""
    if script_location is None:
        return revision in _own_revisions()[1]
    from alembic.util import CommandError

    try:
        return _script_directory(script_location).get_revision(revision) is not None
    except CommandError:
        return False


def database_size(conn: sa.Connection) -> int:
    """Bytes the site's data takes in the database, as the site health report counts them.

    SQLite: the main database file's pages (``page_count * page_size``; the write-ahead log is
    left out, it is folded back at checkpoints). PostgreSQL: the tables of the current schema
    with their indexes and TOAST (``pg_total_relation_size``), rather than ``pg_database_size``:
    one database may hold several sites (or test runs), each in a schema of its own.
    """
    if is_sqlite(conn):
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar() or 0
        page_size = conn.exec_driver_sql("PRAGMA page_size").scalar() or 0
        return int(pages) * int(page_size)
    size = conn.execute(
        sa.text(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
        )
    ).scalar()
    return int(size or 0)


def advisory_key(conn: sa.Connection, name: str) -> int:
    """A 64-bit PostgreSQL advisory lock key for ``name`` (``migrate``, ``slug:post``...) in the
    current schema of this database (read once per connection).

    Advisory locks are per database already; keying by schema lets separate schemas (one per
    test, one per tenant) work in parallel without waiting on, or deadlocking with, each other."""
    schema = conn.info.get(_SCHEMA)
    if schema is None:
        schema = conn.info[_SCHEMA] = conn.exec_driver_sql("SELECT current_schema()").scalar() or ""
    digest = hashlib.blake2b(f"calpress-{name}:{schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def advisory_xact_lock(conn: sa.Connection, key: int) -> None:
    """Take the advisory lock ``key`` (``advisory_key``) until the transaction ends."""
    conn.execute(_ADVISORY_XACT_LOCK, {"key": key})


_SCHEMA = "calpress_schema"
_ADVISORY_XACT_LOCK = sa.text("SELECT pg_advisory_xact_lock(:key)")


def upgrade(engine: sa.Engine, *, script_location: str | None = None) -> None:
    """Migrate the database to the newest revision; does nothing when it is there already.

    Safe to call at every start and from several processes at once: on PostgreSQL the
    migration runs in one transaction holding an advisory lock; on SQLite in one
    ``BEGIN IMMEDIATE`` transaction (the database's own write lock), with foreign keys off as
    SQLite's documented procedure for schema changes asks (otherwise a migration that rebuilds a
    table would cascade deletes into its children), and checked with ``foreign_key_check``
    before commit. Raises RuntimeError when the database is at a revision this code does not
    know (newer code migrated it).
    """
    current = current_revision(engine)
    if current == head_revision(script_location=script_location):
        return
    if current is not None and not is_known_revision(current, script_location=script_location):
        raise RuntimeError(f"the database is at revision {current!r}, which this version of calpress does not know")
    sqlite = is_sqlite(engine)
    with engine.connect() as conn:
        raw = conn.connection.dbapi_connection if sqlite else None
        if raw is not None:
            # Outside any transaction: foreign_keys cannot change inside one.
            raw.execute("PRAGMA foreign_keys = OFF")
            raw.execute(f"PRAGMA busy_timeout = {MIGRATION_BUSY_TIMEOUT_MS}")
            conn.execution_options(**{_WRITE_OPTION: True})
        try:
            with conn.begin():
                if is_postgresql(conn):
                    advisory_xact_lock(conn, advisory_key(conn, "migrate"))
                config = _alembic_config(script_location)
                config.attributes["connection"] = conn
                from alembic import command

                # Re-reads the version under the lock: a process that waited finds the work done.
                command.upgrade(config, "head")
                if raw is not None:
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
                    if broken:
                        raise RuntimeError(f"migration left rows that violate foreign keys: {broken[:5]}")
        finally:
            if raw is not None:
                try:
                    raw.execute("PRAGMA foreign_keys = ON")
                    raw.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
                except Exception:
                    conn.invalidate()
                    raise
