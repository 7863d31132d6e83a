"""Comments on content items.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22

Written by hand, like 0001 and 0002.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
EMPTY = sa.text("''")
ZERO = sa.text("0")


def upgrade() -> None:
    op.create_table(
        "comments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("parent", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("author", sa.Integer(), nullable=True),
        sa.Column("author_name", sa.String(245), server_default=EMPTY, nullable=False),
        sa.Column("author_email", sa.String(100), server_default=EMPTY, nullable=False),
        sa.Column("author_url", sa.String(200), server_default=EMPTY, nullable=False),
        sa.Column("author_ip", sa.String(100), server_default=EMPTY, nullable=False),
        sa.Column("author_agent", sa.String(255), server_default=EMPTY, nullable=False),
        sa.Column("date_local", sa.DateTime(), nullable=False),
        sa.Column("date_utc", sa.DateTime(), nullable=False),
        sa.Column("content", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("type", sa.String(20), server_default=sa.text("'comment'"), nullable=False),
        sa.Column("meta", JSON, server_default=sa.text("'{}'"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_comments")),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], name=op.f("fk_comments_post_id_posts"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["author"], ["users.id"], name=op.f("fk_comments_author_users"), ondelete="SET NULL"),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_comments_post_id_status_date_utc"), "comments", ["post_id", "status", "date_utc"])
    op.create_index(op.f("ix_comments_parent"), "comments", ["parent"])


def downgrade() -> None:
    op.drop_table("comments")
