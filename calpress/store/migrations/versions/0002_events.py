"""Calendar events: typed start/end/zone/flag columns, venue/organizer links, counters.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

Written by hand, like 0001: the columns are spelled out so that this migration keeps creating
what it created on the day it shipped.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EMPTY = sa.text("''")
ZERO = sa.text("0")


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("start_local", sa.DateTime(), nullable=False),
        sa.Column("end_local", sa.DateTime(), nullable=False),
        sa.Column("start_utc", sa.DateTime(), nullable=False),
        sa.Column("end_utc", sa.DateTime(), nullable=False),
        sa.Column("timezone", sa.String(64), server_default=EMPTY, nullable=False),
        sa.Column("all_day", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("featured", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("sticky", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("hidden", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.PrimaryKeyConstraint("post_id", name=op.f("pk_events")),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], name=op.f("fk_events_post_id_posts"), ondelete="CASCADE"),
    )
    op.create_index(op.f("ix_events_start_local_post_id"), "events", ["start_local", "post_id"])
    op.create_index(op.f("ix_events_end_local"), "events", ["end_local"])
    op.create_index(op.f("ix_events_start_utc"), "events", ["start_utc"])
    op.create_index(op.f("ix_events_end_utc"), "events", ["end_utc"])

    op.create_table(
        "event_links",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("linked_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), server_default=ZERO, nullable=False),
        sa.PrimaryKeyConstraint("event_id", "kind", "linked_id", name=op.f("pk_event_links")),
        sa.ForeignKeyConstraint(["event_id"], ["posts.id"], name=op.f("fk_event_links_event_id_posts"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["linked_id"], ["posts.id"], name=op.f("fk_event_links_linked_id_posts"), ondelete="CASCADE"),
    )
    op.create_index(op.f("ix_event_links_linked_id_kind"), "event_links", ["linked_id", "kind"])


    op.create_table(
        "counters",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.BigInteger(), server_default=ZERO, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_counters")),
    )
    op.execute("INSERT INTO counters (name, value) VALUES ('content', 0)")


def downgrade() -> None:
    op.drop_table("counters")
    op.drop_table("event_links")
    op.drop_table("events")
