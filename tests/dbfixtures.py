"""Database fixtures: every test that asks for a database runs once per leg, SQLite and PostgreSQL,
each time on a fresh, fully migrated database of its own.

Fixtures:

- ``db_leg``: ``"sqlite"`` or ``"postgresql"``; parametrises the test (ids ``test_x[sqlite]``,
  ``test_x[postgresql]``) and skips the PostgreSQL leg when the server is unreachable.
- ``db_url``: the URL of a fresh database migrated to head, usable by another process too
  (e.g. a server under test); removed after the test.
- ``empty_db_url``: the same, but never migrated (for testing migrations themselves).
- ``engine``: ``calpress.store.db.create_engine(db_url)``, disposed after the test.

The PostgreSQL leg targets ``postgresql://postgres@127.0.0.1:5432/test``; set
``CALPRESS_TEST_PG_URL`` to another URL, or to ``off`` to run SQLite only. Each leg can be
selected with ``-m sqlite`` / ``-m postgresql``; a test that only makes sense on one leg says
``@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)``. At the end pytest prints how
many tests ran on each leg, and a banner when the PostgreSQL leg was skipped.

How a fresh database is made, and what it costs per test. Medians on the 2-core development
machine, PostgreSQL 15 on loopback, with other test runs loading it (load average 4-6), so
expect less on a quiet machine. Re-measure the chosen paths with
``pytest tests/store -p no:xdist --durations=0 --durations-min=0 | grep setup``.

- SQLite: the migrations run once per session (per xdist worker) into a template file, which is
  checkpointed and copied into the test's ``tmp_path``: 0.3 ms for the copy, 1.6 ms for the
  whole ``db_url`` setup including ``tmp_path``. Running the migrations per test instead:
  7-41 ms.
- PostgreSQL: one schema per test in the target database, its URL carrying
  ``options=-csearch_path=<schema>``. Once per session the migrations are rendered as SQL
  (Alembic's offline ``--sql`` mode, so it is the migrations' own DDL, version row included);
  a new schema replays that script in one round trip: 38-49 ms for the statement, 72 ms for
  the whole ``db_url`` setup under load, plus 12-23 ms for ``DROP SCHEMA ... CASCADE`` at
  teardown (0.9 s and 0.15 s at a load average of 10, when the migrations had come to rewrite
  the id columns to bigint: then the PostgreSQL leg spent most of its time making schemas).
  So a schema serves up to ``REUSES`` tests in a row (``_Pristine``): after a test it is
  emptied back to the state of a pristine migrated schema, in one round trip of a few
  milliseconds, unless the test changed its shape, left a thread running (which might still
  write to it) or left a session holding its tables; then it is dropped as before (emptying
  with ``TRUNCATE`` instead took 100-400 ms loaded; replaying a ``pg_dump --schema-only`` of a
  migrated schema instead of the migrations, 0.35-0.7 s against their 0.6-0.8 s). The
  alternatives to a new schema, measured the same way: ``CREATE DATABASE ... TEMPLATE``
  45-80 ms (``STRATEGY FILE_COPY`` 185-194 ms) plus 88-150 ms for ``DROP DATABASE``, a cold
  first connection, and CREATEDB rights; ``metadata.create_all`` plus a version stamp in a
  fresh schema 84-115 ms (and it would not test the migrations); ``upgrade()`` in a fresh
  schema 127-158 ms. Cloning a migrated template schema table by table
  (``CREATE TABLE ... (LIKE ... INCLUDING ALL)``) was not pursued: it shares the template's id
  sequences and loses the foreign keys. Should a migration ever need a live connection (offline
  mode fails), the fixture falls back to running ``upgrade()`` per schema.

Schema names are ``cpt_<xdist worker>_<random token>_<n>``, so workers (``-n 2``) and parallel
runs never collide. Each session holds an advisory lock on its token; a later session drops the
schemas of tokens whose lock is free (runs that crashed before cleaning up).
"""

from __future__ import annotations

import collections
import graphlib
import hashlib
import itertools
import os
import secrets
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from calpress.store import db as store_db

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
PG_URL_ENV = "CALPRESS_TEST_PG_URL"
LEGS = ("sqlite", "postgresql")
SCHEMA_PREFIX = "cpt_"
SKIP_BANNER = "PostgreSQL leg SKIPPED"


# -- SQLite ---------------------------------------------------------------------------------------


class _SqliteLeg:
    """Copies a template database, migrated once per session, into each test's folder."""

    def __init__(self, folder: Path) -> None:
        self.template = folder / "template.sqlite3"
        engine = store_db.create_engine(f"sqlite:///{self.template}")
        try:
            store_db.upgrade(engine)
            with engine.connect() as conn:
                # Fold the WAL into the main file so that copying the one file copies everything.
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            engine.dispose()

    def migrated_url(self, folder: Path) -> str:
        path = folder / "calpress.sqlite3"
        shutil.copyfile(self.template, path)
        return f"sqlite:///{path}"

    @staticmethod
    def empty_url(folder: Path) -> str:
        return f"sqlite:///{folder / 'empty.sqlite3'}"


# -- PostgreSQL -----------------------------------------------------------------------------------


def _lock_key(token: str) -> int:
    digest = hashlib.blake2b(f"calpress-test-run:{token}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _migration_script() -> str | None:
    """The migrations to head as one SQL script for PostgreSQL; None when some migration cannot
    be rendered offline."""
    try:
        return store_db.upgrade_sql("postgresql")
    except Exception:
        return None


class _PostgresLeg:
    """Hands out one fresh schema per test in the target database and drops it afterwards."""

    def __init__(self, base_url: str) -> None:
        import psycopg

        self.base_url = base_url
        self.sa_url = sa.make_url(store_db.normalize_url(base_url))
        libpq_url = self.sa_url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.admin = psycopg.connect(libpq_url, autocommit=True, connect_timeout=3)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.token = secrets.token_hex(4)
        self.prefix = f"{SCHEMA_PREFIX}{worker}_{self.token}_"
        self.counter = itertools.count(1)
        self.undropped: list[str] = []
        self.dropped = 0
        # Reuse (see release): the pristine schema a used one is compared with and refilled from,
        # and the clean schemas waiting for a test, with how many tests each has served.
        self.pristine: _Pristine | None = None
        self.clean: list[tuple[str, int]] = []
        # Held for the whole session: tells other sessions this run's schemas are in use.
        self.admin.execute("SELECT pg_advisory_lock(%s)", (_lock_key(self.token),))
        # A finished test's schema is only ever locked by leftovers: do not wait long for them.
        self.admin.execute("SET lock_timeout = '2s'")
        self._drop_abandoned()
        self.script = _migration_script()

    def _drop_abandoned(self) -> None:
        rows = self.admin.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (SCHEMA_PREFIX.replace("_", r"\_") + "%",)
        ).fetchall()
        by_token: dict[str, list[str]] = collections.defaultdict(list)
        for (name,) in rows:
            parts = name.split("_")
            if len(parts) >= 4 and parts[2] != self.token:
                by_token[parts[2]].append(name)
        for token, schemas in by_token.items():
            key = _lock_key(token)
            if self.admin.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                try:
                    for schema in schemas:
                        self._drop(schema)
                finally:
                    self.admin.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def url_for(self, schema: str, served: int = 0) -> str:
        """The URL of ``schema``; for its ``served``-th reuse, with a setting of no effect that
        makes the URL new: the engine remembers some answers per database URL and content counter
        (calendar/listing.py's longest event, the events bar's choices), which a reset schema
        would otherwise find as the previous test left them."""
        options = self.sa_url.query.get("options")
        extra = f"-csearch_path={schema}" + (f" -ccalpress_test.reuse={served}" if served else "")
        url = sa.make_url(self.base_url).update_query_dict({"options": f"{options} {extra}" if options else extra})
        return url.render_as_string(hide_password=False)

    def new_schema(self, *, migrated: bool) -> str:
        schema = f"{self.prefix}{next(self.counter)}"
        if migrated and self.script is not None:
            self.admin.execute(f"BEGIN; CREATE SCHEMA {schema}; SET LOCAL search_path = {schema};\n{self.script}\nCOMMIT;")
            return schema
        self.admin.execute(f"CREATE SCHEMA {schema}")
        if migrated:
            engine = store_db.create_engine(self.url_for(schema))
            try:
                store_db.upgrade(engine)
            finally:
                engine.dispose()
        return schema

    def _drop(self, schema: str) -> None:
        self.admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def migrated_schema(self) -> tuple[str, int]:
        """A migrated schema for a test: a clean one that served earlier tests when there is one
        (with the number of tests it served), else a new one."""
        if self.script is not None and self.pristine is None:
            self.pristine = _Pristine(self, self.new_schema(migrated=True))
        if self.clean:
            return self.clean.pop()
        return self.new_schema(migrated=True), 0

    def release(self, schema: str, served: int, *, reusable: bool) -> None:
        """After a test: its schema is emptied for the next test when it can be (``reusable``:
        the test left no thread running that might still write to it), has served fewer than
        REUSES tests, still has the pristine schema's shape, and nothing holds its tables;
        otherwise it is dropped as before."""
        if reusable and self.pristine is not None and served + 1 < REUSES and self.pristine.reset(schema):
            self.clean.append((schema, served + 1))
        else:
            self.drop(schema)

    def _end_sessions_holding(self, schema: str) -> None:
        """Terminate the sessions that still lock tables of a finished test's schema (a
        connection left idle in a transaction), which would otherwise block its DROP."""
        self.admin.execute(
            """
            SELECT pg_terminate_backend(pid) FROM (
                SELECT DISTINCT l.pid FROM pg_locks l
                JOIN pg_class c ON c.oid = l.relation
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = %s AND l.pid <> pg_backend_pid()
            ) AS holders
            """,
            (schema,),
        )

    def drop(self, schema: str) -> None:
        """Drop a test's schema. Sessions still holding its tables after the test are ended;
        if it still cannot be dropped, it is tried again at the end of the session. Every
        VACUUM_EVERY drops, the catalogs are vacuumed (see _vacuum_catalogs)."""
        self._drop_now(schema)
        self.dropped += 1
        if self.dropped % VACUUM_EVERY == 0:
            self._vacuum_catalogs()

    def _drop_now(self, schema: str) -> None:
        import psycopg

        try:
            self._drop(schema)
            return
        except psycopg.errors.LockNotAvailable:
            pass
        except Exception:
            self.undropped.append(schema)
            return
        try:
            self._end_sessions_holding(schema)
            self._drop(schema)
        except Exception:
            self.undropped.append(schema)

    def close(self) -> None:
        try:
            for schema in self.undropped + [name for name, _ in self.clean] + ([self.pristine.schema] if self.pristine else []):
                try:
                    self._drop(schema)
                except Exception:
                    pass  # left for the next session's _drop_abandoned
            if next(self.counter) > 1:
                self._vacuum_catalogs()
        finally:
            self.admin.close()

    def _vacuum_catalogs(self) -> None:
        """Vacuum what this session's schemas left in the system catalogs. Each schema's tables,
        columns and indexes leave dead catalog rows once dropped; with autovacuum off (as on the
        development machine) they piled up run after run, to 4.9 GB, and every CREATE and DROP
        of the PostgreSQL leg slowed down with them. Within one run too: a whole suite left about
        700,000 dead rows in pg_attribute and ran the PostgreSQL leg about a third slower by its
        end, so each worker vacuums every VACUUM_EVERY dropped schemas (a second or two) and once
        more at the end. Without the rights to vacuum the catalogs, they are left alone."""
        for catalog in _CATALOGS:
            try:
                self.admin.execute(f"VACUUM pg_catalog.{catalog}")
            except Exception:
                return


# Dropped schemas between two vacuums of the catalogs, per worker.
VACUUM_EVERY = 150

# Tests one schema serves before it is dropped (see _Pristine): emptying it with DELETE leaves dead
# rows that, with autovacuum off, would pile up and slow its scans; a new schema every REUSES tests
# bounds them for a fiftieth of a schema's creation per test.
REUSES = 50


class _Pristine:
    """A migrated schema no test touches, from which a test's schema is reset for the next test:
    every table emptied (children before the tables they reference), the rows the migrations wrote
    (the version row, the counters) copied back, every sequence restarted. One round trip, a few
    milliseconds, where a new schema costs 40-50 ms to create and 12-23 ms to drop (about 0.9 s
    and 0.15 s on a loaded machine: the migrations create tables, then rewrite their id columns
    to bigint). A schema whose shape is no longer the pristine one's (a test changed its tables,
    indexes, constraints, sequences, types or functions) is never reused."""

    def __init__(self, leg: _PostgresLeg, schema: str) -> None:
        self.leg = leg
        self.schema = schema
        self.shape = self._shape(schema)
        admin = leg.admin
        tables = [name for (name,) in admin.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", (schema,))]
        references = collections.defaultdict(set)
        for child, parent in admin.execute(
                """SELECT c.relname, p.relname FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
                   JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE k.contype = 'f' AND n.nspname = %s AND c.oid <> p.oid""", (schema,)):
            references[parent].add(child)  # a parent is emptied after its children
        order = list(graphlib.TopologicalSorter({table: references[table] for table in tables}).static_order())
        filled = [table for table in tables if admin.execute(f'SELECT EXISTS (SELECT FROM "{schema}"."{table}")').fetchone()[0]]
        sequences = [name for (name,) in admin.execute(
            "SELECT sequencename FROM pg_sequences WHERE schemaname = %s ORDER BY sequencename", (schema,))]
        self.statements = ([f'DELETE FROM "{{0}}"."{table}"' for table in order]
                           + [f'INSERT INTO "{{0}}"."{table}" SELECT * FROM "{schema}"."{table}"' for table in filled]
                           + [f'ALTER SEQUENCE "{{0}}"."{name}" RESTART' for name in sequences])

    def _shape(self, schema: str) -> list[tuple[str, ...]]:
        rows = self.leg.admin.execute(_SHAPE, {"schema": schema}).fetchall()
        return sorted(tuple(str(value).replace(schema, "<schema>") for value in row) for row in rows)

    def reset(self, schema: str) -> bool:
        """Empty ``schema`` back to the pristine state; False when it cannot be."""
        if self._shape(schema) != self.shape:
            return False
        try:
            with self.leg.admin.transaction():
                self.leg.admin.execute(";\n".join(statement.format(schema) for statement in self.statements))
        except Exception:  # held by a session the test left, or a row a constraint keeps
            return False
        return True


# The shape of a schema: its relations (tables, indexes, sequences, views), columns with their
# types, defaults and nullability, constraints, index definitions, sequences' parameters, types
# and functions; the schema's own name is replaced before comparing.
_SHAPE = """
SELECT 'relation', c.relname, c.relkind::text, '' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = %(schema)s
UNION ALL
SELECT 'column', c.relname, a.attname, format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' '
       || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE n.nspname = %(schema)s AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint', c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_constraint k
  JOIN pg_namespace n ON n.oid = k.connamespace LEFT JOIN pg_class c ON c.oid = k.conrelid WHERE n.nspname = %(schema)s
UNION ALL
SELECT 'index', tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = %(schema)s
UNION ALL
SELECT 'sequence', sequencename, data_type::text, concat_ws(' ', start_value, min_value, max_value, increment_by, cycle)
  FROM pg_sequences WHERE schemaname = %(schema)s
UNION ALL
SELECT 'type', t.typname, t.typtype::text, '' FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname = %(schema)s
UNION ALL
SELECT 'function', p.proname, md5(p.prosrc), pg_get_function_identity_arguments(p.oid) FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %(schema)s
UNION ALL
SELECT 'trigger', c.relname, t.tgname, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %(schema)s AND NOT t.tgisinternal
"""

# The system catalogs a test schema writes to (its tables, columns, types, indexes, defaults).
_CATALOGS = ("pg_attribute", "pg_depend", "pg_class", "pg_type", "pg_constraint", "pg_index", "pg_attrdef",
             "pg_trigger", "pg_sequence", "pg_statistic")


def _pg_base_url() -> str | None:
    value = os.environ.get(PG_URL_ENV, "").strip()
    if value.lower() == "off":
        return None
    return value or DEFAULT_PG_URL


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _sqlite_leg(tmp_path_factory: pytest.TempPathFactory) -> _SqliteLeg:
    return _SqliteLeg(tmp_path_factory.mktemp("db-template"))


@pytest.fixture(scope="session")
def _postgres_leg() -> Iterator[_PostgresLeg | str]:
    """The PostgreSQL leg, or the reason it cannot run."""
    base_url = _pg_base_url()
    if base_url is None:
        yield f"disabled by {PG_URL_ENV}=off"
        return
    try:
        leg = _PostgresLeg(base_url)
    except Exception as error:  # unreachable, refused, unknown database ...
        where = sa.make_url(base_url).render_as_string(hide_password=True)
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        yield f"cannot use {where}: {message} (set {PG_URL_ENV} to a reachable server, or to off)"
        return
    try:
        yield leg
    finally:
        leg.close()


@pytest.fixture(params=[pytest.param(leg, id=leg, marks=getattr(pytest.mark, leg)) for leg in LEGS])
def db_leg(request: pytest.FixtureRequest) -> str:
    """The database leg this test runs on: ``"sqlite"`` or ``"postgresql"``."""
    leg: str = request.param
    request.node.user_properties.append(("db_leg", leg))
    if leg == "postgresql":
        postgres = request.getfixturevalue("_postgres_leg")
        if isinstance(postgres, str):
            request.node.user_properties.append(("db_leg_skip_reason", postgres))
            pytest.skip(f"{SKIP_BANNER}: {postgres}")
    return leg


def _fresh_url(request: pytest.FixtureRequest, leg: str, folder: Path, *, migrated: bool) -> Iterator[str]:
    if leg == "sqlite":
        sqlite: _SqliteLeg = request.getfixturevalue("_sqlite_leg")
        yield sqlite.migrated_url(folder) if migrated else sqlite.empty_url(folder)
        return
    postgres: _PostgresLeg = request.getfixturevalue("_postgres_leg")
    # A test that reads the planner's choices (EXPLAIN) gets a schema no test used: a reused one
    # keeps the statistics and dead rows of the tests before it, and the plans change with them.
    if not migrated or request.node.get_closest_marker("new_schema") is not None:
        schema = postgres.new_schema(migrated=migrated)
        try:
            yield postgres.url_for(schema)
        finally:
            postgres.drop(schema)
        return
    schema, served = postgres.migrated_schema()
    threads = set(threading.enumerate())
    try:
        yield postgres.url_for(schema, served)
    finally:
        left_running = any(thread not in threads for thread in threading.enumerate())
        postgres.release(schema, served, reusable=not left_running)


@pytest.fixture()
def db_url(request: pytest.FixtureRequest, db_leg: str, tmp_path: Path) -> Iterator[str]:
    """URL of a fresh database at the newest migration, for this test only."""
    yield from _fresh_url(request, db_leg, tmp_path, migrated=True)


@pytest.fixture()
def empty_db_url(request: pytest.FixtureRequest, db_leg: str, tmp_path: Path) -> Iterator[str]:
    """URL of a fresh, empty (never migrated) database, for this test only."""
    yield from _fresh_url(request, db_leg, tmp_path, migrated=False)


@pytest.fixture()
def engine(db_url: str) -> Iterator[sa.Engine]:
    """An engine on ``db_url`` built by ``calpress.store.db.create_engine``."""
    built = store_db.create_engine(db_url)
    try:
        yield built
    finally:
        built.dispose()


# -- reporting: which legs ran --------------------------------------------------------------------

_RANK = {"passed": 0, "skipped": 1, "xfailed": 1, "xpassed": 1, "failed": 2, "error": 3}


class _LegReport:
    """Counts the tests of each leg and prints them, with a banner when PostgreSQL was skipped.

    Its hooks also run in the xdist controller, on the workers' reports (user_properties travel
    with them)."""

    def __init__(self) -> None:
        self.outcomes: dict[str, dict[str, str]] = {leg: {} for leg in LEGS}
        self.skip_reasons: set[str] = set()

    @staticmethod
    def _outcome(report: pytest.TestReport) -> str:
        if hasattr(report, "wasxfail"):
            return "xfailed" if report.skipped else "xpassed"
        if report.when != "call" and report.failed:
            return "error"
        return report.outcome

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties)
        leg = properties.get("db_leg")
        if leg not in LEGS or (report.when != "call" and report.passed):
            return
        if "db_leg_skip_reason" in properties:
            self.skip_reasons.add(str(properties["db_leg_skip_reason"]))
        outcome = self._outcome(report)
        previous = self.outcomes[leg].get(report.nodeid)
        if previous is None or _RANK[outcome] > _RANK[previous]:
            self.outcomes[leg][report.nodeid] = outcome

    # A wrapper outside the terminal reporter's own, so that this prints after the short test
    # summary (the list of skips can be long), right above the final counts.
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Iterator[None]:
        try:
            return (yield)
        finally:
            self._write_summary(terminalreporter)

    def _write_summary(self, terminalreporter: Any) -> None:
        if not any(self.outcomes.values()):
            return
        terminalreporter.write_sep("=", "database legs")
        for leg in LEGS:
            counts = collections.Counter(self.outcomes[leg].values())
            names = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
            detail = ", ".join(f"{counts[name]} {name}" for name in names if counts[name])
            ran = sum(n for name, n in counts.items() if name != "skipped")
            status = f"ran {ran} tests" if ran else "did not run"
            terminalreporter.write_line(f"{leg}: {status} ({detail or 'no tests'})")
        for reason in sorted(self.skip_reasons):
            terminalreporter.write_sep("!", SKIP_BANNER, red=True, bold=True)
            terminalreporter.write_line(f"{SKIP_BANNER}: {reason}", red=True, bold=True)
            terminalreporter.write_sep("!", red=True, bold=True)


def pytest_configure(config: pytest.Config) -> None:
    for leg in LEGS:
        config.addinivalue_line("markers", f"{leg}: the {leg} leg of a test that uses a database")
    config.pluginmanager.register(_LegReport(), "calpress-db-legs")
