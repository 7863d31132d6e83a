"""Alembic environment for calpress: runs the hand-written migrations in ``versions/``.

``calpress.store.db.upgrade`` hands in an open connection (``config.attributes["connection"]``)
that already holds the migration lock and an open transaction, so everything here runs inside
it. Run by hand (``alembic -x url=... upgrade head`` with a ``script_location`` of
``calpress.store:migrations``), the URL comes from ``-x url=``, ``sqlalchemy.url`` or
``CALPRESS_DATABASE_URL``; prefer ``calpress db upgrade``, which also takes the lock.
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import context

from calpress.store.tables import metadata

config = context.config


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    url = url or os.environ.get("CALPRESS_DATABASE_URL", "")
    if not url:
        raise RuntimeError("no database URL: pass -x url=..., set sqlalchemy.url or CALPRESS_DATABASE_URL")
    from calpress.store.db import normalize_url

    return normalize_url(url)


def _configure(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite can only add columns in place; batch mode recreates tables for everything else.
        render_as_batch=True,
        # Our SQLite connections really are transactional (db.py emits BEGIN itself).
        transactional_ddl=True,
        compare_type=True,
    )


def run_migrations_offline() -> None:
    """Print the SQL instead of running it (``alembic upgrade head --sql``)."""
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    from calpress.store.db import create_engine

    engine = create_engine(_url())
    try:
        with engine.connect() as own:
            _configure(own)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
