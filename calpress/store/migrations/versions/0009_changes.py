"""The log of what each step of the content counter changed.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27

Every write bumps the ``content`` counter, and every process drops what it remembered when the
counter moves. That kept answers right but made a save forget every page. With this log a
process reads, for each step it missed, which records changed (``touched``), and forgets only
what it built from them (store/memo.py).

The bump and its log row are one statement (store/changes.py): on PostgreSQL an ``INSERT``
fed by the counter's ``UPDATE ... RETURNING``; on SQLite an ``INSERT ... SELECT value + 1``
whose trigger below moves the counter (SQLite has one writer at a time, so nothing can come
between). Generations therefore follow each other without gaps, which is how a reader tells a
complete log from a pruned one. The counter keeps its value: the log starts at the next write.
Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# tables.Int: BIGINT on PostgreSQL, INTEGER on SQLite (there the key is the row id).
INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TRIGGER = "changes_move_counter"


def upgrade() -> None:
    op.create_table(
        "changes",
        sa.Column("generation", INT, autoincrement=False, nullable=False),
        sa.Column("touched", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("generation", name=op.f("pk_changes")),
    )
    if context.get_context().dialect.name == "sqlite":
        op.execute(
            f"CREATE TRIGGER {TRIGGER} AFTER INSERT ON changes BEGIN "
            "UPDATE counters SET value = NEW.generation WHERE name = 'content' AND value < NEW.generation; END"
        )


def downgrade() -> None:
    if context.get_context().dialect.name == "sqlite":
        op.execute(f"DROP TRIGGER {TRIGGER}")
    op.drop_table("changes")
