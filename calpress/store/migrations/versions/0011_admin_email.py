"""The site's ``admin_email`` from its first administrator, on sites that have none.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28

The reference's installer stores the installing administrator's address as ``admin_email``;
sites made before calpress did the same (auth/users.py ``claim_admin_email``) answered ``email:
null`` in ``/cms/v2/settings``. This fills the option from the oldest administrator with an
address, when the option is missing or empty; a site without one is left as it is. Data only:
the downgrade keeps the address (it is a valid setting either way). Written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import context, op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Per dialect: whether a users row is an administrator, an address as a JSON value, and the
# stored values that count as no address (a JSON "" or null).
_DIALECTS = {
    "postgresql": ("""roles @> '["administrator"]'::jsonb""", "to_jsonb(email)", """('""'::jsonb, 'null'::jsonb)"""),
    "sqlite": ("EXISTS (SELECT 1 FROM json_each(users.roles) WHERE json_each.value = 'administrator')", "json_quote(email)",
               """('""', 'null')"""),
}


def upgrade() -> None:
    # Plain statements (no reads in Python), so that the offline SQL (db.upgrade_sql) renders them too.
    is_admin, as_json, empty = _DIALECTS[context.get_context().dialect.name]
    first = f"SELECT {as_json} FROM users WHERE {is_admin} AND email <> '' ORDER BY id LIMIT 1"
    op.execute(f"UPDATE options SET value = ({first}) WHERE name = 'admin_email' AND value IN {empty} AND EXISTS ({first})")
    op.execute(f"INSERT INTO options (name, value, autoload) SELECT 'admin_email', ({first}), true "
               f"WHERE EXISTS ({first}) AND NOT EXISTS (SELECT 1 FROM options WHERE name = 'admin_email')")


def downgrade() -> None:
    pass
