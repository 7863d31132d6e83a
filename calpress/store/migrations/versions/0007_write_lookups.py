"""Indexes for three lookups every write of an import repeated over the whole table.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26

- ``ix_posts_slug_bytes``: a new item's slug is checked against the slugs it could clash with,
  ``base`` and ``base-*``. That was ``slug LIKE 'base-%'``, which read every row of the type (no
  index serves it: SQLite's LIKE ignores case, PostgreSQL's needs a pattern index), so each
  create cost a scan and an import of N events N scans. It is now a byte range (``slug >=
  'base-' AND slug < 'base.'``), which this index answers: on ``slug`` in SQLite (which compares
  bytes), on ``slug COLLATE "C"`` in PostgreSQL (whatever collation the database has). It also
  serves attachments, whose slugs clash with every type's (the ``(type, slug)`` index cannot).
- ``ix_posts_import_global_id``: the global id an import gave an event (``meta`` key
  ``_cal_import_global_id``), by which every batch finds the events it made before. The
  expression is the one ``calendar/imports.py`` queries (``global_id_column``), written out
  literally: an index on an expression only serves queries that spell it the same way.
- ``ix_posts_type_lower_title``: a venue or organizer given inline on an event is reused when
  one of the same name exists (``lower(title)`` equal, calendar/events.py ``find_duplicate``);
  that read every venue of the site for each event written.

Neither is in ``tables.py`` (one is dialect-specific, the other an expression): the schema
comparison test leaves them out by name (``tables.UNDECLARED_INDEXES``). Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import context, op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SLUG_INDEX = "ix_posts_slug_bytes"
GLOBAL_ID_INDEX = "ix_posts_import_global_id"
TITLE_INDEX = "ix_posts_type_lower_title"


def _dialect() -> str:
    return context.get_context().dialect.name


def upgrade() -> None:
    if _dialect() == "postgresql":
        # Titles and global ids have no length limit, and a B-tree entry must fit in a third of
        # a page (a 1 MB title is a valid title): hash indexes keep four bytes per row and
        # answer the equality (and IN) these lookups use. Slugs are at most 200 characters.
        op.execute(f'CREATE INDEX {SLUG_INDEX} ON posts (slug COLLATE "C")')
        op.execute(f"CREATE INDEX {GLOBAL_ID_INDEX} ON posts USING hash ((meta ->> '_cal_import_global_id'))")
        op.execute(f"CREATE INDEX {TITLE_INDEX} ON posts USING hash (lower(title))")
    else:
        op.execute(f"CREATE INDEX {SLUG_INDEX} ON posts (slug)")
        op.execute(f"CREATE INDEX {GLOBAL_ID_INDEX} ON posts (json_extract(meta, '$.\"_cal_import_global_id\"'))")
        op.execute(f"CREATE INDEX {TITLE_INDEX} ON posts (type, lower(title))")


def downgrade() -> None:
    op.execute(f"DROP INDEX {GLOBAL_ID_INDEX}")
    op.execute(f"DROP INDEX {SLUG_INDEX}")
    op.execute(f"DROP INDEX {TITLE_INDEX}")
