"""64-bit ids, references and counts on PostgreSQL.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

The reference stores ids as BIGINT and clients may send any 64-bit id; with 32-bit columns an id
such as 99999999999 reached PostgreSQL as an "integer out of range" error (a 500) instead of
being an unknown id. SQLite's INTEGER is already 64-bit: nothing to do there. Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Parents before the columns that refer to them.
COLUMNS = {
    "users": ("id",),
    "posts": ("id", "author", "parent", "menu_order", "comment_count"),
    "terms": ("id", "parent", "count"),
    "comments": ("id", "post_id", "parent", "author"),
    "application_passwords": ("user_id",),
    "term_links": ("object_id", "term_id", "position"),
    "events": ("post_id",),
    "event_links": ("event_id", "linked_id", "position"),
}
# The sequences of the SERIAL ids were created AS integer: their ceiling goes too.
SEQUENCES = ("users_id_seq", "posts_id_seq", "terms_id_seq", "comments_id_seq")


def _retype(sql_type: str) -> None:
    if op.get_context().dialect.name != "postgresql":
        return
    for table, columns in COLUMNS.items():
        # One statement per table: PostgreSQL rewrites the table once, not once per column.
        op.execute(f"ALTER TABLE {table} " + ", ".join(f"ALTER COLUMN {column} TYPE {sql_type}" for column in columns))
    for sequence in SEQUENCES:
        op.execute(f"ALTER SEQUENCE {sequence} AS {sql_type}")


def upgrade() -> None:
    _retype("bigint")


def downgrade() -> None:
    _retype("integer")
