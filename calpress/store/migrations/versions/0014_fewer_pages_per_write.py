"""SQLite: fewer pages written by each create, in the writers' turn and in the log.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29

A SQLite commit appends every page it changed to the write-ahead log (two writes each), and the
checkpoint later copies each one back: a post create changed 17 pages, and its commit was the
largest single cost of the create (about a sixth of it). Two of those pages held nothing
anybody reads:

- ``ix_posts_import_global_id`` (migration 0007) gave every post an entry, most of them NULL:
  only events made by an import carry the global id. The index now holds the posts that have
  one (a partial index); the imports' lookups (``global_id = ?`` and ``IN (...)``) imply it is
  not NULL, so SQLite still uses it. PostgreSQL's index is a hash index, which keeps no NULL
  entries already.
- ``term_links`` and ``event_links`` were rowid tables beside their primary key's index, so a
  link was written twice (the row and the key). They are ``WITHOUT ROWID`` tables now: the
  key is the row. Their other index stays.

A post create now changes 15 pages. PostgreSQL is untouched. Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GLOBAL_ID_INDEX = "ix_posts_import_global_id"
_GLOBAL_ID = "json_extract(meta, '$.\"_cal_import_global_id\"')"

# The link tables as tables.py declares them, with or without their rowid.
_TERM_LINKS = """CREATE TABLE {name} (
    object_id INTEGER NOT NULL,
    term_id INTEGER NOT NULL,
    position INTEGER DEFAULT 0 NOT NULL,
    CONSTRAINT pk_term_links PRIMARY KEY (object_id, term_id),
    CONSTRAINT fk_term_links_object_id_posts FOREIGN KEY(object_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT fk_term_links_term_id_terms FOREIGN KEY(term_id) REFERENCES terms (id) ON DELETE CASCADE
){rowid}"""
_EVENT_LINKS = """CREATE TABLE {name} (
    event_id INTEGER NOT NULL,
    kind VARCHAR(10) NOT NULL,
    linked_id INTEGER NOT NULL,
    position INTEGER DEFAULT 0 NOT NULL,
    CONSTRAINT pk_event_links PRIMARY KEY (event_id, kind, linked_id),
    CONSTRAINT fk_event_links_event_id_posts FOREIGN KEY(event_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT fk_event_links_linked_id_posts FOREIGN KEY(linked_id) REFERENCES posts (id) ON DELETE CASCADE
){rowid}"""
# table -> (its CREATE TABLE, its columns, its other index and that index's columns)
_LINK_TABLES = {
    "term_links": (_TERM_LINKS, "object_id, term_id, position", "ix_term_links_term_id", "term_id"),
    "event_links": (_EVENT_LINKS, "event_id, kind, linked_id, position", "ix_event_links_linked_id_kind", "linked_id, kind"),
}


def _rebuild(table: str, *, with_rowid: bool) -> None:
    """Copy ``table`` into a new one made with or without its rowid (the migration runner has
    turned foreign keys off: nothing cascades while the old table is dropped)."""
    create, columns, index, index_columns = _LINK_TABLES[table]
    op.execute(create.format(name=f"{table}_new", rowid="" if with_rowid else " WITHOUT ROWID"))
    op.execute(f"INSERT INTO {table}_new ({columns}) SELECT {columns} FROM {table}")
    op.execute(f"DROP TABLE {table}")
    op.execute(f"ALTER TABLE {table}_new RENAME TO {table}")
    op.execute(f"CREATE INDEX {index} ON {table} ({index_columns})")


def upgrade() -> None:
    if op.get_context().dialect.name != "sqlite":
        return
    op.execute(f"DROP INDEX {GLOBAL_ID_INDEX}")
    op.execute(f"CREATE INDEX {GLOBAL_ID_INDEX} ON posts ({_GLOBAL_ID}) WHERE {_GLOBAL_ID} IS NOT NULL")
    for table in _LINK_TABLES:
        _rebuild(table, with_rowid=False)


def downgrade() -> None:
    if op.get_context().dialect.name != "sqlite":
        return
    for table in _LINK_TABLES:
        _rebuild(table, with_rowid=True)
    op.execute(f"DROP INDEX {GLOBAL_ID_INDEX}")
    op.execute(f"CREATE INDEX {GLOBAL_ID_INDEX} ON posts ({_GLOBAL_ID})")
