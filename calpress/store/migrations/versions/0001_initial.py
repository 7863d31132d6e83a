"""Initial schema: users, application passwords, options, posts, terms and term links.

Revision ID: 0001
Revises:
Create Date: 2025-11-22

Written by hand: every column and name is spelled out here rather than imported from
calpress.store.tables, so this migration keeps creating what it created on the day it shipped.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
EMPTY = sa.text("''")
ZERO = sa.text("0")
EMPTY_OBJECT = sa.text("'{}'")
EMPTY_LIST = sa.text("'[]'")
OPEN = sa.text("'open'")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("login", sa.String(60), nullable=False),
        sa.Column("email", sa.String(100), nullable=False),
        sa.Column("password_hash", sa.String(255), server_default=EMPTY, nullable=False),
        sa.Column("display_name", sa.String(250), server_default=EMPTY, nullable=False),
        sa.Column("nicename", sa.String(50), nullable=False),
        sa.Column("first_name", sa.String(250), server_default=EMPTY, nullable=False),
        sa.Column("last_name", sa.String(250), server_default=EMPTY, nullable=False),
        sa.Column("nickname", sa.String(250), server_default=EMPTY, nullable=False),
        sa.Column("url", sa.String(100), server_default=EMPTY, nullable=False),
        sa.Column("description", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("locale", sa.String(20), server_default=EMPTY, nullable=False),
        sa.Column("roles", JSON, server_default=EMPTY_LIST, nullable=False),
        sa.Column("extra_caps", JSON, server_default=EMPTY_OBJECT, nullable=False),
        sa.Column("meta", JSON, server_default=EMPTY_OBJECT, nullable=False),
        sa.Column("registered_utc", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("login", name=op.f("uq_users_login")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
        sa.UniqueConstraint("nicename", name=op.f("uq_users_nicename")),
        sqlite_autoincrement=True,
    )

    op.create_table(
        "application_passwords",
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("app_id", sa.String(36), server_default=EMPTY, nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_utc", sa.DateTime(), nullable=False),
        sa.Column("last_used_utc", sa.DateTime(), nullable=True),
        sa.Column("last_ip", sa.String(45), nullable=True),
        sa.PrimaryKeyConstraint("uuid", name=op.f("pk_application_passwords")),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_application_passwords_user_id_users"), ondelete="CASCADE"
        ),
    )
    op.create_index(op.f("ix_application_passwords_user_id"), "application_passwords", ["user_id"])

    op.create_table(
        "options",
        sa.Column("name", sa.String(191), nullable=False),
        sa.Column("value", JSON, nullable=False),
        sa.Column("autoload", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_options")),
    )

    op.create_table(
        "posts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("type", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("author", sa.Integer(), nullable=True),
        sa.Column("parent", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("menu_order", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("slug", sa.String(200), server_default=EMPTY, nullable=False),
        sa.Column("title", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("content", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("excerpt", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("password", sa.String(255), server_default=EMPTY, nullable=False),
        sa.Column("date_local", sa.DateTime(), nullable=False),
        sa.Column("date_utc", sa.DateTime(), nullable=True),
        sa.Column("modified_local", sa.DateTime(), nullable=False),
        sa.Column("modified_utc", sa.DateTime(), nullable=False),
        sa.Column("comment_status", sa.String(20), server_default=OPEN, nullable=False),
        sa.Column("ping_status", sa.String(20), server_default=OPEN, nullable=False),
        sa.Column("mime_type", sa.String(100), server_default=EMPTY, nullable=False),
        sa.Column("guid", sa.String(255), server_default=EMPTY, nullable=False),
        sa.Column("comment_count", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("meta", JSON, server_default=EMPTY_OBJECT, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_posts")),
        sa.ForeignKeyConstraint(["author"], ["users.id"], name=op.f("fk_posts_author_users"), ondelete="SET NULL"),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_posts_type_status_date_utc"), "posts", ["type", "status", "date_utc"])
    op.create_index(op.f("ix_posts_type_slug"), "posts", ["type", "slug"])
    op.create_index(op.f("ix_posts_parent_type"), "posts", ["parent", "type"])
    op.create_index(op.f("ix_posts_author"), "posts", ["author"])

    op.create_table(
        "terms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("taxonomy", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("slug", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), server_default=EMPTY, nullable=False),
        sa.Column("parent", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("count", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("meta", JSON, server_default=EMPTY_OBJECT, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_terms")),
        sa.UniqueConstraint("taxonomy", "slug", name=op.f("uq_terms_taxonomy_slug")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_terms_taxonomy_parent"), "terms", ["taxonomy", "parent"])

    op.create_table(
        "term_links",
        sa.Column("object_id", sa.Integer(), nullable=False),
        sa.Column("term_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), server_default=ZERO, nullable=False),
        sa.PrimaryKeyConstraint("object_id", "term_id", name=op.f("pk_term_links")),
        sa.ForeignKeyConstraint(["object_id"], ["posts.id"], name=op.f("fk_term_links_object_id_posts"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["term_id"], ["terms.id"], name=op.f("fk_term_links_term_id_terms"), ondelete="CASCADE"),
    )
    op.create_index(op.f("ix_term_links_term_id"), "term_links", ["term_id"])


def downgrade() -> None:
    op.drop_table("term_links")
    op.drop_table("terms")
    op.drop_table("posts")
    op.drop_table("options")
    op.drop_table("application_passwords")
    op.drop_table("users")
