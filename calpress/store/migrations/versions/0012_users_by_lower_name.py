"""Indexes for finding a user by login or email whatever their case, as every sign-in does.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29

Logins and email addresses are compared case-insensitively (``lower(login) = lower(given)``),
as the reference's database collation compares them. No index served that comparison, so each
request authenticated with an application password (Basic auth), each sign-in and each
password-reset request read every user: on a site with 10,000 subscribers, every authenticated
request of an editor or an import tool read 10,000 rows. ``ix_users_lower_login`` and
``ix_users_lower_email`` index the lowered values on both databases.

Not in ``tables.py`` (indexes on expressions, which the schema comparison cannot reflect on
SQLite): the comparison test leaves them out by name (``tables.UNDECLARED_USERS_INDEXES``).
Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {"ix_users_lower_login": "login", "ix_users_lower_email": "email"}


def upgrade() -> None:
    for name, column in INDEXES.items():
        op.execute(f"CREATE INDEX {name} ON users (lower({column}))")


def downgrade() -> None:
    for name in INDEXES:
        op.execute(f"DROP INDEX {name}")
