"""Imports the workspace runs in the background (Tools > Import).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

An upload or a feed is imported by a thread of the worker that took the request; the page that
shows its progress may be answered by any worker, so the progress and the result live here. One
row per import: its kind and source, who started it, its state, how far it got, and what it
printed at the end. Declared in tables.py too. Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# tables.Int: BIGINT on PostgreSQL, INTEGER on SQLite (there the key is the row id).
INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
EMPTY = sa.text("''")
ZERO = sa.text("0")


def upgrade() -> None:
    op.create_table(
        "import_jobs",
        sa.Column("id", INT, autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("source", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("user_id", INT, nullable=True),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("done", INT, server_default=ZERO, nullable=False),
        sa.Column("total", INT, server_default=ZERO, nullable=False),
        sa.Column("result", JSON, server_default=sa.text("'{}'"), nullable=False),
        sa.Column("created_utc", sa.DateTime(), nullable=False),
        sa.Column("updated_utc", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_jobs")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_import_jobs_user_id_users"), ondelete="SET NULL"),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("import_jobs")
