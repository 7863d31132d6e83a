"""Failed logins, for the password-guessing throttle.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25

One row per throttled key (``user:<name>`` or ``addr:<address>``): the failures counted in the
current window and when that window started. Read and written only when the throttle is on
(``CALPRESS_LOGIN_MAX_FAILURES``). Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# tables.Int: BIGINT on PostgreSQL (as migration 0004 made the other counts), INTEGER on SQLite.
INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("count", INT, server_default=sa.text("0"), nullable=False),
        sa.Column("window_start_utc", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_login_failures")),
    )


def downgrade() -> None:
    op.drop_table("login_failures")
