"""An index for searches in titles, excerpts and contents.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24

Every listing's ``search`` means "contains, ignoring case" (the reference's ``LIKE '%term%'``),
which no B-tree index can answer: at 100,000 items each search read every row. Both databases
have an index for substrings:

- SQLite: an FTS5 table with the trigram tokenizer over ``posts`` (external content: it holds
  the index only), kept in step by triggers. ``store/textsearch.py`` narrows a search to the
  rows it names and keeps the LIKE test, so results are what they were. Where this SQLite has
  no FTS5 or no trigram tokenizer (before 3.34), the table is not made and searches scan.
- PostgreSQL: trigram GIN indexes (the ``pg_trgm`` extension, trusted since PostgreSQL 13),
  which the planner uses for ``ILIKE '%term%'`` by itself. Where the extension cannot be
  created (no right to), the indexes are left out and searches scan.

A later migration that rebuilds ``posts`` on SQLite (batch mode) must make the triggers again.
Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("title", "excerpt", "content")
FTS_TABLE = "posts_search"
# Two sessions creating the extension at once collide on pg_extension's unique name.
EXTENSION_LOCK = 0x63_70_74_72_67_6D  # "cptrgm"


def _sqlite_upgrade() -> None:
    if not context.is_offline_mode() and not _sqlite_has_trigram(op.get_bind()):
        return  # no FTS5 or no trigram tokenizer in this SQLite: searches scan
    listed = ", ".join(COLUMNS)
    old = ", ".join(f"old.{c}" for c in COLUMNS)
    new = ", ".join(f"new.{c}" for c in COLUMNS)
    op.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5({listed}, content='posts', content_rowid='id', tokenize='trigram')"
    )
    op.execute(
        f"CREATE TRIGGER {FTS_TABLE}_insert AFTER INSERT ON posts BEGIN "
        f"INSERT INTO {FTS_TABLE}(rowid, {listed}) VALUES (new.id, {new}); END"
    )
    op.execute(
        f"CREATE TRIGGER {FTS_TABLE}_delete AFTER DELETE ON posts BEGIN "
        f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {listed}) VALUES ('delete', old.id, {old}); END"
    )
    op.execute(
        f"CREATE TRIGGER {FTS_TABLE}_update AFTER UPDATE OF {listed} ON posts BEGIN "
        f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {listed}) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO {FTS_TABLE}(rowid, {listed}) VALUES (new.id, {new}); END"
    )
    op.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")


def _sqlite_has_trigram(bind: sa.Connection) -> bool:
    try:
        with bind.begin_nested():
            bind.exec_driver_sql("CREATE VIRTUAL TABLE temp.probe_trigram USING fts5(x, tokenize='trigram')")
            bind.exec_driver_sql("DROP TABLE temp.probe_trigram")
    except sa.exc.OperationalError:
        return False
    return True


def _postgresql_indexes(opclass_schema: str) -> None:
    for column in COLUMNS:
        op.execute(
            f"CREATE INDEX IF NOT EXISTS ix_posts_{column}_trigram ON posts "
            f"USING gin ({column} {opclass_schema}.gin_trgm_ops)"
        )


def _postgresql_upgrade() -> None:
    if context.is_offline_mode():
        # Rendered as a script (fixtures, review): the extension goes to public.
        op.execute(f"SELECT pg_advisory_xact_lock({EXTENSION_LOCK})")
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
        _postgresql_indexes("public")
        return
    bind = op.get_bind()
    bind.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": EXTENSION_LOCK})
    schema = _trigram_schema(bind)
    if schema is None:
        try:
            with bind.begin_nested():
                bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
        except sa.exc.DBAPIError:
            return  # not allowed here: searches scan
        schema = _trigram_schema(bind)
    if schema is not None:
        _postgresql_indexes(schema)


def _trigram_schema(bind: sa.Connection) -> str | None:
    """The schema holding pg_trgm's operator class, when the extension is installed."""
    return bind.execute(
        sa.text(
            "SELECT quote_ident(n.nspname) FROM pg_opclass c JOIN pg_namespace n ON n.oid = c.opcnamespace "
            "JOIN pg_am a ON a.oid = c.opcmethod WHERE c.opcname = 'gin_trgm_ops' AND a.amname = 'gin' LIMIT 1"
        )
    ).scalar()


def upgrade() -> None:
    dialect = op.get_context().dialect.name
    if dialect == "sqlite":
        _sqlite_upgrade()
    elif dialect == "postgresql":
        _postgresql_upgrade()


def downgrade() -> None:
    dialect = op.get_context().dialect.name
    if dialect == "sqlite":
        for suffix in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS {FTS_TABLE}_{suffix}")
        op.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    elif dialect == "postgresql":
        for column in COLUMNS:
            op.execute(f"DROP INDEX IF EXISTS ix_posts_{column}_trigram")
