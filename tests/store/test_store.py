"""The storage layer on both legs: migrations, engine settings, constraints, options and
concurrent writers (calpress/store/db.py, tables.py, options.py, migrations/)."""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from calpress.store import db, options, textsearch
from calpress.store.tables import (
    UNDECLARED_INDEXES,
    UNDECLARED_USERS_INDEXES,
    application_passwords,
    metadata,
    posts,
    term_links,
    terms,
    users,
)
from calpress.store.tables import options as options_table
from calpress.store.writers import writer_queue

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS_DIR = ROOT / "calpress" / "store" / "migrations"
TABLES = {"users", "application_passwords", "options", "posts", "terms", "term_links", "events", "event_links", "counters", "comments", "login_failures", "changes", "import_jobs"}
NOW = dt.datetime(2025, 1, 2, 3, 4, 5)


# SQLAlchemy does not reflect migration 0007's indexes on expressions, and says so each time.
pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index:sqlalchemy.exc.SAWarning")


def sqlite_only(test: Callable[..., None]) -> Callable[..., None]:
    """Run a database test on the SQLite leg only (still selected by ``-m sqlite``)."""
    return pytest.mark.sqlite(pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)(test))


# -- helpers --------------------------------------------------------------------------------------


def add_user(conn: sa.Connection, login: str, **values: object) -> int:
    row = {"login": login, "email": f"{login}@example.org", "nicename": login, "registered_utc": NOW, **values}
    return conn.execute(sa.insert(users).values(**row).returning(users.c.id)).scalar_one()


def add_post(conn: sa.Connection, **values: object) -> int:
    row = {
        "type": "post",
        "status": "publish",
        "date_local": NOW,
        "date_utc": NOW,
        "modified_local": NOW,
        "modified_utc": NOW,
        **values,
    }
    return conn.execute(sa.insert(posts).values(**row).returning(posts.c.id)).scalar_one()


def add_term(conn: sa.Connection, taxonomy: str, slug: str) -> int:
    return conn.execute(
        sa.insert(terms).values(taxonomy=taxonomy, name=slug.title(), slug=slug).returning(terms.c.id)
    ).scalar_one()


def add_app_password(conn: sa.Connection, user_id: int, uuid: str) -> None:
    conn.execute(
        sa.insert(application_passwords).values(uuid=uuid, user_id=user_id, name="app", password_hash="h", created_utc=NOW)
    )


def count(conn: sa.Connection, table: sa.Table) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def is_undeclared(name: str | None) -> bool:
    """Objects of migration 0005's substring index and the indexes of migrations 0007 and 0012,
    which tables.py does not declare."""
    fts = textsearch.FTS_TABLE
    return bool(name) and (name == fts or name.startswith(f"{fts}_") or name in textsearch.TRIGRAM_INDEXES
                           or name in UNDECLARED_INDEXES or name in UNDECLARED_USERS_INDEXES)


def index_names(engine: sa.Engine, table: str) -> set[str]:
    """Every index of ``table``, those on expressions included (which SQLAlchemy does not reflect)."""
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            return set(conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?",
                                            (table,)).scalars())
        return set(conn.exec_driver_sql("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                                        "AND tablename = %(t)s", {"t": table}).scalars())


def table_names(engine: sa.Engine) -> set[str]:
    return {name for name in sa.inspect(engine).get_table_names() if not is_undeclared(name)}


def run_python(code: str, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_together(code: str, url: str, folder: Path, processes: int) -> list[tuple[int, str, str]]:
    """Start ``processes`` copies of ``code`` (argv: url, barrier folder, index), release them at
    the same moment once all have imported everything, and return (exit code, stdout, stderr)."""
    barrier = folder / "barrier"
    barrier.mkdir()
    prelude = """
        import sys, time, pathlib
        url, barrier, index = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3])
        from calpress.store import db, options
        (barrier / f"ready-{index}").touch()
        while not (barrier / "go").exists():
            time.sleep(0.005)
    """
    started = [run_python(textwrap.dedent(prelude) + textwrap.dedent(code), url, str(barrier), str(i)) for i in range(processes)]
    deadline = time.monotonic() + 60
    while len(list(barrier.glob("ready-*"))) < processes:
        if time.monotonic() > deadline or any(p.poll() not in (None, 0) for p in started):
            break
        time.sleep(0.01)
    (barrier / "go").touch()
    results = []
    for process in started:
        out, err = process.communicate(timeout=120)
        results.append((process.returncode, out, err))
    return results


# -- migrations -----------------------------------------------------------------------------------


def test_fixture_database_is_migrated_to_head(engine: sa.Engine) -> None:
    assert db.current_revision(engine) == db.head_revision()
    assert TABLES <= table_names(engine)


def test_upgrade_creates_every_table_and_reaches_head(empty_db_url: str) -> None:
    engine = db.create_engine(empty_db_url)
    try:
        assert db.current_revision(engine) is None
        assert table_names(engine) == set()
        db.upgrade(engine)
        assert db.current_revision(engine) == db.head_revision() == HEAD
        assert table_names(engine) == TABLES | {"alembic_version"}
        inspector = sa.inspect(engine)
        for table in metadata.sorted_tables:
            assert [c["name"] for c in inspector.get_columns(table.name)] == [c.name for c in table.columns]
        for table in metadata.sorted_tables:  # every index the metadata names, and no other
            found = {ix["name"] for ix in inspector.get_indexes(table.name)} - {c.name for c in table.constraints}
            assert {name for name in found if not is_undeclared(name)} == {ix.name for ix in table.indexes}, table.name
        assert {ix["name"] for ix in inspector.get_indexes("posts") if not is_undeclared(ix["name"])} == {
            "ix_posts_type_status_date_utc",
            "ix_posts_type_date_local_id",
            "ix_posts_type_slug",
            "ix_posts_parent_type",
            "ix_posts_author",
        }
        assert UNDECLARED_INDEXES <= index_names(engine, "posts")
        assert UNDECLARED_USERS_INDEXES <= index_names(engine, "users")
        assert {fk["name"] for fk in inspector.get_foreign_keys("term_links")} == {
            "fk_term_links_object_id_posts",
            "fk_term_links_term_id_terms",
        }
    finally:
        engine.dispose()


def _schema_differences(engine: sa.Engine) -> list[object]:
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_name": lambda name, kind, parent: not is_undeclared(name)}
        )
        return compare_metadata(context, metadata)


def test_migrated_schema_matches_tables_module(empty_db_url: str) -> None:
    """The hand-written migration creates exactly what tables.py declares."""
    engine = db.create_engine(empty_db_url)
    try:
        db.upgrade(engine)
        assert _schema_differences(engine) == []
    finally:
        engine.dispose()


def test_fixture_schema_matches_tables_module(engine: sa.Engine) -> None:
    """The fixture's fast path (template copy, replayed migration SQL) gives the same schema."""
    assert _schema_differences(engine) == []


def test_upgrade_sql_renders_the_migrations() -> None:
    for backend in ("postgresql", "sqlite"):
        script = db.upgrade_sql(backend)
        assert all(f"CREATE TABLE {name} (" in script for name in TABLES)
        assert "INSERT INTO alembic_version (version_num) VALUES ('0001')" in script
        assert f"SET version_num='{db.head_revision()}'" in script
        assert "BEGIN;" not in script and "COMMIT;" not in script


def test_upgrade_is_idempotent(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        add_user(conn, "keep")
    db.upgrade(engine)
    db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    with db.read_connection(engine) as conn:
        assert count(conn, users) == 1


def test_concurrent_upgrades_from_several_processes(empty_db_url: str, tmp_path: Path) -> None:
    code = """
        engine = db.create_engine(url)
        db.upgrade(engine)
        print(db.current_revision(engine))
    """
    results = run_together(code, empty_db_url, tmp_path, processes=3)
    for returncode, out, err in results:
        assert returncode == 0, err
        assert out.strip() == db.head_revision()
    engine = db.create_engine(empty_db_url)
    try:
        assert table_names(engine) == TABLES | {"alembic_version"}
        with db.read_connection(engine) as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM alembic_version").scalar_one() == 1
    finally:
        engine.dispose()


HEAD = "0014"  # the newest shipped migration; bump with each new one

SECOND_REVISION = '''
"""Throwaway test revision: rebuilds users with a new column (batch mode, a table copy on SQLite)."""

import sqlalchemy as sa
from alembic import op

revision = "9999"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Force the SQLite table copy (create, copy, drop, rename); PostgreSQL alters in place.
    recreate = "always" if op.get_context().dialect.name == "sqlite" else "auto"
    with op.batch_alter_table("users", recreate=recreate) as batch:
        batch.add_column(sa.Column("test_flag", sa.Integer(), server_default=sa.text("7"), nullable=False))
    op.create_table("test_extra", sa.Column("id", sa.Integer(), primary_key=True))


def downgrade() -> None:
    op.drop_table("test_extra")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("test_flag")
'''


def test_old_database_is_upgraded_keeping_its_rows(empty_db_url: str, tmp_path: Path) -> None:
    """A database at the shipped head goes to a newer one; a migration that rebuilds ``users`` must not
    cascade into application passwords or posts (SQLite: foreign keys are off while migrating)."""
    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "9999_test.py").write_text(SECOND_REVISION.replace("{head}", HEAD))
    location = str(scripts)

    engine = db.create_engine(empty_db_url)
    try:
        db.upgrade(engine)
        assert db.current_revision(engine) == HEAD
        with db.write_transaction(engine) as conn:
            user_id = add_user(conn, "old")
            add_app_password(conn, user_id, "a" * 36)
            post_id = add_post(conn, author=user_id)

        assert db.head_revision(script_location=location) == "9999"
        db.upgrade(engine, script_location=location)
        assert db.current_revision(engine) == "9999"
        with db.read_connection(engine) as conn:
            assert conn.execute(sa.text("SELECT test_flag FROM users WHERE id = :id"), {"id": user_id}).scalar_one() == 7
            assert count(conn, application_passwords) == 1
            assert conn.execute(sa.select(posts.c.author).where(posts.c.id == post_id)).scalar_one() == user_id
            assert "test_extra" in table_names(engine)
            if db.is_sqlite(engine):
                assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        db.upgrade(engine, script_location=location)  # idempotent at the new head too

        # Code older than the database refuses to run rather than guess.
        with pytest.raises(RuntimeError, match="9999"):
            db.upgrade(engine)
    finally:
        engine.dispose()


def _migrate_to(engine: sa.Engine, revision: str, *, down: bool = False) -> None:
    """Run calpress's migrations up (or down) to ``revision``, as ``db.upgrade`` runs them on
    SQLite: foreign keys off, one write transaction."""
    from alembic import command

    with engine.connect() as conn:
        conn.connection.dbapi_connection.execute("PRAGMA foreign_keys = OFF")
        with conn.begin():
            config = db._alembic_config()
            config.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(config, revision)
        conn.connection.dbapi_connection.execute("PRAGMA foreign_keys = ON")


def _schema_sql(conn: sa.Connection, name: str) -> str:
    return conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).scalar_one()


@sqlite_only
def test_migration_0014_writes_links_once_and_indexes_only_imported_ids(empty_db_url: str) -> None:
    """0014 rebuilds the link tables without their rowid, keeping every link, and makes the
    import id index partial, still used by the imports' lookups; going down restores both."""
    from calpress.calendar.imports import GLOBAL_ID_KEY
    from calpress.store.tables import event_links

    engine = db.create_engine(empty_db_url)
    try:
        _migrate_to(engine, "0013")
        with db.write_transaction(engine) as conn:
            event_id = add_post(conn, type="cal_events", meta={GLOBAL_ID_KEY: "feed#1"})
            venue_id = add_post(conn, type="cal_venue")
            plain_id = add_post(conn)
            term_id = add_term(conn, "category", "news")
            conn.execute(sa.insert(term_links).values(object_id=event_id, term_id=term_id, position=3))
            conn.execute(sa.insert(event_links).values(event_id=event_id, kind="venue", linked_id=venue_id, position=1))
        links_before = {"term": [(event_id, term_id, 3)], "event": [(event_id, "venue", venue_id, 1)]}

        def links(conn: sa.Connection) -> dict[str, list[tuple]]:
            return {"term": [tuple(row) for row in conn.execute(sa.select(term_links))],
                    "event": [tuple(row) for row in conn.execute(sa.select(event_links))]}

        lookups = (f"SELECT id FROM posts WHERE json_extract(meta, '$.\"{GLOBAL_ID_KEY}\"') = 'feed#1'",
                   f"SELECT id FROM posts WHERE json_extract(meta, '$.\"{GLOBAL_ID_KEY}\"') IN ('feed#1', 'feed#2')")
        db.upgrade(engine)
        with db.read_connection(engine) as conn:
            assert links(conn) == links_before
            for table in ("term_links", "event_links"):
                assert _schema_sql(conn, table).rstrip().endswith("WITHOUT ROWID"), table
            assert index_names(engine, "term_links") >= {"ix_term_links_term_id"}
            assert index_names(engine, "event_links") >= {"ix_event_links_linked_id_kind"}
            assert "WHERE" in _schema_sql(conn, "ix_posts_import_global_id")
            for lookup in lookups:
                assert conn.exec_driver_sql(lookup).scalars().all() == [event_id]
                plan = " ".join(row[-1] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + lookup))
                assert "USING INDEX ix_posts_import_global_id" in plan, plan
            # Only the imported event has an entry (the plain post and the venue have none).
            assert conn.exec_driver_sql("SELECT count(*) FROM posts INDEXED BY ix_posts_import_global_id "
                                        f"WHERE json_extract(meta, '$.\"{GLOBAL_ID_KEY}\"') IS NOT NULL").scalar() == 1
            assert plain_id not in conn.exec_driver_sql(lookups[1]).scalars().all()
        # The constraints hold in the rebuilt tables: a duplicate link and a link to nothing fail.
        for row in ({"object_id": event_id, "term_id": term_id}, {"object_id": event_id, "term_id": term_id + 100}):
            with pytest.raises(sa.exc.IntegrityError), db.write_transaction(engine) as conn:
                conn.execute(sa.insert(term_links).values(**row))
        with db.write_transaction(engine) as conn:
            conn.execute(sa.delete(posts).where(posts.c.id == venue_id))  # cascades to its event link
        with db.read_connection(engine) as conn:
            assert links(conn) == {"term": links_before["term"], "event": []}

        _migrate_to(engine, "0013", down=True)
        with db.read_connection(engine) as conn:
            assert links(conn) == {"term": links_before["term"], "event": []}
            for table in ("term_links", "event_links"):
                assert "WITHOUT ROWID" not in _schema_sql(conn, table), table
            assert "WHERE" not in _schema_sql(conn, "ix_posts_import_global_id")
    finally:
        engine.dispose()


# -- engine settings ------------------------------------------------------------------------------


@sqlite_only
def test_sqlite_pragmas_are_on(engine: sa.Engine) -> None:
    for use in (db.read_connection, db.write_transaction):
        with use(engine) as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL


def test_is_sqlite(engine: sa.Engine, db_leg: str) -> None:
    assert db.is_sqlite(engine) is (db_leg == "sqlite")
    assert db.is_postgresql(engine) is (db_leg == "postgresql")


def test_create_engine_makes_the_sqlite_folder(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "site.sqlite3"
    engine = db.create_engine(f"sqlite:///{path}")
    try:
        with db.read_connection(engine) as conn:
            conn.exec_driver_sql("SELECT 1")
        assert path.parent.is_dir()
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("sqlite:///data/x.sqlite3", "sqlite:///data/x.sqlite3"),
        ("sqlite:////abs/x.sqlite3", "sqlite:////abs/x.sqlite3"),
        ("postgresql://u:p@db/site", "postgresql+psycopg://u:p@db/site"),
        ("postgres://u@db:5433/site?sslmode=require", "postgresql+psycopg://u@db:5433/site?sslmode=require"),
        ("postgresql+psycopg://u@db/site", "postgresql+psycopg://u@db/site"),
        (" postgresql://u@db/site ", "postgresql+psycopg://u@db/site"),
    ],
)
def test_normalize_url(given: str, expected: str) -> None:
    assert db.normalize_url(given) == expected


def test_normalize_url_refuses_other_databases() -> None:
    with pytest.raises(ValueError):
        db.normalize_url("mysql://u@db/site")


# -- transactions ---------------------------------------------------------------------------------


def test_write_transaction_commits_or_rolls_back(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        add_user(conn, "kept")
    with pytest.raises(RuntimeError):
        with db.write_transaction(engine) as conn:
            add_user(conn, "dropped")
            raise RuntimeError("boom")
    with db.read_connection(engine) as conn:
        assert [row.login for row in conn.execute(sa.select(users.c.login))] == ["kept"]


def test_reader_does_not_block_writer(engine: sa.Engine) -> None:
    with db.read_connection(engine) as reader:
        assert count(reader, users) == 0
        with db.write_transaction(engine) as writer:  # WAL on SQLite: a reader never blocks a writer
            add_user(writer, "w")
        # One snapshot per read block on SQLite; PostgreSQL's READ COMMITTED sees the commit.
        assert count(reader, users) == (0 if db.is_sqlite(engine) else 1)
    with db.read_connection(engine) as reader:
        assert count(reader, users) == 1


# -- constraints ----------------------------------------------------------------------------------


def test_deleting_a_user_deletes_their_app_passwords_and_orphans_posts(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        gone, stays = add_user(conn, "gone"), add_user(conn, "stays")
        add_app_password(conn, gone, "1" * 36)
        add_app_password(conn, gone, "2" * 36)
        add_app_password(conn, stays, "3" * 36)
        post_id = add_post(conn, author=gone)
    with db.write_transaction(engine) as conn:
        conn.execute(sa.delete(users).where(users.c.id == gone))
    with db.read_connection(engine) as conn:
        assert conn.execute(sa.select(application_passwords.c.user_id)).scalars().all() == [stays]
        assert conn.execute(sa.select(posts.c.author).where(posts.c.id == post_id)).scalar_one() is None


def test_deleting_a_post_or_term_deletes_its_term_links(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        first, second = add_post(conn), add_post(conn)
        news, tips = add_term(conn, "category", "news"), add_term(conn, "post_tag", "tips")
        conn.execute(
            sa.insert(term_links),
            [
                {"object_id": first, "term_id": news},
                {"object_id": first, "term_id": tips, "position": 1},
                {"object_id": second, "term_id": news},
                {"object_id": second, "term_id": tips},
            ],
        )
    with db.write_transaction(engine) as conn:
        conn.execute(sa.delete(posts).where(posts.c.id == first))
    with db.read_connection(engine) as conn:
        assert sorted(tuple(row) for row in conn.execute(sa.select(term_links.c.object_id, term_links.c.term_id))) == [
            (second, news),
            (second, tips),
        ]
    with db.write_transaction(engine) as conn:
        conn.execute(sa.delete(terms).where(terms.c.id == tips))
    with db.read_connection(engine) as conn:
        assert conn.execute(sa.select(term_links.c.term_id)).scalars().all() == [news]


def test_foreign_keys_are_enforced(engine: sa.Engine) -> None:
    with pytest.raises(sa.exc.IntegrityError):
        with db.write_transaction(engine) as conn:
            add_app_password(conn, 12345, "x" * 36)
    with pytest.raises(sa.exc.IntegrityError):
        with db.write_transaction(engine) as conn:
            conn.execute(sa.insert(term_links).values(object_id=999, term_id=999))


@pytest.mark.parametrize(
    "duplicate",
    [
        {"login": "taken", "email": "other@example.org", "nicename": "other"},
        {"login": "other", "email": "taken@example.org", "nicename": "other"},
        {"login": "other", "email": "other@example.org", "nicename": "taken"},
    ],
    ids=["login", "email", "nicename"],
)
def test_user_login_email_and_slug_are_unique(engine: sa.Engine, duplicate: dict[str, str]) -> None:
    with db.write_transaction(engine) as conn:
        add_user(conn, "taken")
    with pytest.raises(sa.exc.IntegrityError):
        with db.write_transaction(engine) as conn:
            conn.execute(sa.insert(users).values(registered_utc=NOW, **duplicate))


def test_term_slug_is_unique_per_taxonomy(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        add_term(conn, "category", "news")
        add_term(conn, "post_tag", "news")  # the same slug in another taxonomy is fine
    with pytest.raises(sa.exc.IntegrityError):
        with db.write_transaction(engine) as conn:
            add_term(conn, "category", "news")


def test_term_link_and_option_keys_are_unique(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        post_id, term_id = add_post(conn), add_term(conn, "category", "news")
        conn.execute(sa.insert(term_links).values(object_id=post_id, term_id=term_id))
        options.set_option(conn, "blogname", "x")
    with pytest.raises(sa.exc.IntegrityError):
        with db.write_transaction(engine) as conn:
            conn.execute(sa.insert(term_links).values(object_id=post_id, term_id=term_id))
    with pytest.raises(sa.exc.IntegrityError):
        with db.write_transaction(engine) as conn:
            conn.execute(sa.insert(options_table).values(name="blogname", value="y"))


def test_column_defaults(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        user_id = add_user(conn, "defaults")
        post_id = add_post(conn)
        # Server-side defaults apply to statements that bypass SQLAlchemy's Python defaults too.
        conn.execute(sa.text("INSERT INTO terms (taxonomy, name, slug) VALUES ('category', 'Raw', 'raw')"))
    with db.read_connection(engine) as conn:
        user = conn.execute(sa.select(users).where(users.c.id == user_id)).one()
        assert (user.roles, user.extra_caps, user.meta, user.nickname, user.url) == ([], {}, {}, "", "")
        post = conn.execute(sa.select(posts).where(posts.c.id == post_id)).one()
        assert (post.parent, post.menu_order, post.comment_status, post.ping_status, post.meta) == (0, 0, "open", "open", {})
        assert post.date_local == NOW and post.date_local.tzinfo is None
        term = conn.execute(sa.select(terms).where(terms.c.slug == "raw")).one()
        assert (term.description, term.parent, term.count, term.meta) == ("", 0, 0, {})


def test_ids_of_deleted_rows_are_not_reused(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        first = add_post(conn)
        conn.execute(sa.delete(posts).where(posts.c.id == first))
        assert add_post(conn) > first


# -- options --------------------------------------------------------------------------------------

JSON_VALUES = {
    "string": "Example Calendar",
    "empty_string": "",
    "unicode": "Café ☕ — 日本語 😀",
    "numeric_string": "42",
    "int": 42,
    "zero": 0,
    "negative": -7,
    "big_int": 2**53 + 1,
    "int64": 2**63 - 1,
    "float": 2.5,
    "small_float": -1.25e-9,
    "true": True,
    "false": False,
    "null": None,
    "list": [1, "two", 3.5, None, True, {"six": [7]}],
    "empty_list": [],
    "object": {"a": 1, "nested": {"b": [None, False]}, "quote": 'say "hi"\n'},
    "empty_object": {},
}


def test_options_round_trip_every_json_type(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        for name, value in JSON_VALUES.items():
            options.set_option(conn, name, value)
    with db.read_connection(engine) as conn:
        for name, value in JSON_VALUES.items():
            got = options.get_option(conn, name, default="missing")
            assert got == value and type(got) is type(value), name
        assert options.get_options(conn, list(JSON_VALUES) + ["nope"]) == JSON_VALUES


def test_option_functions(engine: sa.Engine) -> None:
    autoload = options_table.c.autoload
    with db.write_transaction(engine) as conn:
        assert options.get_option(conn, "blogname") is None
        assert options.get_option(conn, "blogname", "fallback") == "fallback"
        options.set_option(conn, "blogname", "First")
        options.set_option(conn, "blogname", "Second")
        options.set_option(conn, "big", {"rows": list(range(100))}, autoload=False)
        options.set_option(conn, "big", {"rows": []})  # keeps autoload as it was
        options.set_option(conn, "blogname", "Third", autoload=True)
    with db.read_connection(engine) as conn:
        assert options.get_option(conn, "blogname") == "Third"
        assert options.get_options(conn, []) == {}
        assert options.get_options(conn, ["big", "blogname", "big"]) == {"big": {"rows": []}, "blogname": "Third"}
        loaded = {name: flag for name, flag in conn.execute(sa.select(options_table.c.name, autoload))}
        assert loaded == {"blogname": True, "big": False}
    with db.write_transaction(engine) as conn:
        assert options.delete_option(conn, "big") is True
        assert options.delete_option(conn, "big") is False
        assert options.get_option(conn, "big", "gone") == "gone"


# -- concurrent writers ---------------------------------------------------------------------------


def _increment(engine: sa.Engine, times: int, errors: list[BaseException]) -> None:
    try:
        for _ in range(times):
            with db.write_transaction(engine) as conn:
                current = options.get_option(conn, "counter", 0, for_update=True)
                options.set_option(conn, "counter", current + 1)
    except BaseException as error:  # noqa: BLE001 - reported by the test
        errors.append(error)


def test_concurrent_read_modify_write_threads_all_succeed(engine: sa.Engine) -> None:
    """Read-then-write transactions from several threads: on SQLite BEGIN IMMEDIATE queues them,
    so none fails with "database is locked"; on PostgreSQL the row lock of ``for_update`` does.
    No increment is lost on either."""
    with db.write_transaction(engine) as conn:
        options.set_option(conn, "counter", 0)
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_increment, args=(engine, 40, errors)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with db.read_connection(engine) as conn:
        assert options.get_option(conn, "counter") == 160


@sqlite_only
def test_concurrent_writer_processes_on_sqlite_all_succeed(db_url: str, tmp_path: Path) -> None:
    code = """
        engine = db.create_engine(url)
        for _ in range(50):
            with db.write_transaction(engine) as conn:
                current = options.get_option(conn, "counter", 0)
                options.set_option(conn, "counter", current + 1)
                options.set_option(conn, f"writer-{index}-{current}", current)
        print("ok")
    """
    for returncode, out, err in run_together(code, db_url, tmp_path, processes=2):
        assert returncode == 0, err
        assert out.strip() == "ok"
    engine = db.create_engine(db_url)
    try:
        with db.read_connection(engine) as conn:
            assert options.get_option(conn, "counter") == 100
            assert count(conn, options_table) == 101
    finally:
        engine.dispose()


def _database_of(url: str) -> str:
    return sa.make_url(url).database or ""


def _holding_file_lock(path: str) -> int:
    """Another open file description of the queue's lock file, locked: to the queue, another
    process's writer."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@sqlite_only
def test_sqlite_writers_wait_their_turn_in_the_file_queue(db_url: str) -> None:
    """While another process's writer holds the queue (its file lock), a write transaction does
    not begin; it begins, and commits, once that writer is done."""
    engine = db.create_engine(db_url)
    queue = writer_queue(_database_of(db_url))
    held = _holding_file_lock(queue.path)
    began = threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            with db.write_transaction(engine) as conn:
                began.set()
                options.set_option(conn, "queued", "yes")
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    writer = threading.Thread(target=write)
    try:
        writer.start()
        assert not began.wait(0.5)  # the queue's file is held: the write has not begun
        fcntl.flock(held, fcntl.LOCK_UN)
        writer.join(10)
        assert began.is_set() and not writer.is_alive()
    finally:
        os.close(held)
        writer.join(10)
        engine.dispose()
    assert errors == []
    check = db.create_engine(db_url)
    try:
        with db.read_connection(check) as conn:
            assert options.get_option(conn, "queued") == "yes"
    finally:
        check.dispose()


@sqlite_only
def test_sqlite_writer_queue_gives_up_after_its_timeout(db_url: str) -> None:
    """A queue held past the timeout is skipped, not waited on for ever: the writer goes on to
    BEGIN IMMEDIATE and SQLite's own busy handling (which succeeds here: the holder is only the
    lock file, not a transaction)."""
    queue = writer_queue(_database_of(db_url))
    held = _holding_file_lock(queue.path)
    try:
        entered = []
        with queue.turn(0.05):
            entered.append("file held")
        assert entered == ["file held"]
        # The threads of one process queue on the process's lock, with the same limit.
        inside = threading.Event()
        leave = threading.Event()

        def hold_turn() -> None:
            with queue.turn(0.05):
                inside.set()
                leave.wait(10)

        holder = threading.Thread(target=hold_turn)
        holder.start()
        assert inside.wait(10)
        with queue.turn(0.05):
            entered.append("thread lock held")
        leave.set()
        holder.join(10)
        assert entered == ["file held", "thread lock held"]
    finally:
        os.close(held)
    # The writers that gave up left their waits to the process's file waiter, which gets the lock
    # once the other holder is gone and lets go of it at once: the file is free again, and the
    # next writer takes it.
    probe = os.open(queue.path, os.O_RDWR)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, "the abandoned waits kept the file lock"
                time.sleep(0.01)
        fcntl.flock(probe, fcntl.LOCK_UN)
    finally:
        os.close(probe)
    started = time.monotonic()
    with queue.turn(5):
        pass
    assert time.monotonic() - started < 1


@sqlite_only
def test_sqlite_writer_queue_is_one_per_database_and_process(db_url: str, tmp_path: Path) -> None:
    database = _database_of(db_url)
    assert writer_queue(database) is writer_queue(os.path.relpath(database))
    assert writer_queue(str(tmp_path / "other.sqlite3")) is not writer_queue(database)
    assert writer_queue(database).path == os.path.abspath(database) + "-writers"
    # A forked worker must not share the parent's lock file description (one lock for both).
    parent = writer_queue(database)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(write, b"1" if writer_queue(database) is not parent else b"0")
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 1) == b"1"
    finally:
        os.close(read)
        os.waitpid(child, 0)


def test_concurrent_inserts_are_all_kept(engine: sa.Engine) -> None:
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            for n in range(25):
                with db.write_transaction(engine) as conn:
                    add_post(conn, slug=f"w{worker}-{n}")
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with db.read_connection(engine) as conn:
        assert count(conn, posts) == 100


@pytest.mark.parametrize("db_leg", ["postgresql"], indirect=True)
def test_statements_planned_once_run_on_a_connection_that_keeps_their_plans(app) -> None:
    """Site.query runs a FastQuery marked ``generic_plan`` on the thread's second connection,
    where PostgreSQL keeps one plan per prepared statement; the others, and anything inside a
    read block, are planned for their values."""
    from calpress.store.fast import FastQuery

    mode = sa.select(sa.func.current_setting("plan_cache_mode").label("mode"))
    assert app.site.query(FastQuery(mode, generic_plan=True))[0].mode == "force_generic_plan"
    assert app.site.query(FastQuery(mode))[0].mode == "auto"
    with app.site.read():
        assert app.site.query(FastQuery(mode, generic_plan=True))[0].mode == "auto"


def test_the_revisions_read_without_alembic_are_alembics() -> None:
    """Every start reads the newest revision from the migration files themselves, so that no
    process imports Alembic unless it migrates: the same head and history as Alembic's."""
    alembic_script = db._script_directory("calpress.store:migrations")
    assert db.head_revision() == alembic_script.get_current_head()
    assert db._own_revisions()[1] == {r.revision for r in alembic_script.walk_revisions()}
    assert db.is_known_revision("0001") and not db.is_known_revision("9999")
    code = "import sys, calpress.app, calpress.cli; print(any(m.startswith(('alembic', 'mako')) for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_a_sites_commits_are_checkpointed_by_its_own_thread(app) -> None:
    """A site's SQLite connections checkpoint in line only past INLINE_PAGES pages of log; the
    process's checkpoint thread copies what its commits logged into the database file within
    moments, out of the writers' turn (store/checkpoints.py)."""
    from calpress.store import checkpoints

    site = app.site
    path = site.engine.url.database
    with site.read() as conn:
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == checkpoints.INLINE_PAGES
    time.sleep(checkpoints.PAUSE * 4)  # what the site's start wrote is copied
    before = os.path.getsize(path)
    for n in range(150):  # some 150 commits, far fewer log pages than INLINE_PAGES
        with site.write() as conn:
            options.set_option(conn, f"bulky_{n}", "x" * 3000)
    deadline = time.monotonic() + 10
    while os.path.getsize(path) < before + 150 * 3000 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert os.path.getsize(path) >= before + 150 * 3000
    with site.read() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM options WHERE name LIKE 'bulky_%'").scalar() == 150
