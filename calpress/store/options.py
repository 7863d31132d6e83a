"""Site options: named JSON values in the ``options`` table (the reference's wp_options).

Values are any JSON value (string, number, boolean, null, list, object) and come back as the
Python value that was stored. Call these inside ``read_connection`` / ``write_transaction``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from .changes import record as record_change
from .db import advisory_key, advisory_xact_lock
from .tables import options

_upserts: dict[str, Any] = {}


_select_value = sa.select(options.c.value).where(options.c.name == sa.bindparam("name"))
_select_value_for_update = _select_value.with_for_update()


def get_option(conn: sa.Connection, name: str, default: Any = None, *, for_update: bool = False) -> Any:
    """The value of option ``name``, or ``default`` when there is no such option.

    A stored JSON null comes back as None; pass a sentinel ``default`` to tell it from missing.
    ``for_update`` locks the row until the transaction ends (PostgreSQL ``SELECT ... FOR
    UPDATE``), for read-modify-write inside ``write_transaction``: PostgreSQL runs at READ
    COMMITTED, so without it two workers can both read the old value and one update is lost.
    SQLite needs no row lock (``BEGIN IMMEDIATE`` admits one writer at a time) and ignores it.
    An option not stored yet has no row to lock: its name's advisory lock stands in, and the
    row is read again under it (another writer may have stored it meanwhile).
    """
    stmt = _select_value_for_update if for_update else _select_value
    row = conn.execute(stmt, {"name": name}).first()
    if row is None and for_update and conn.dialect.name == "postgresql":
        advisory_xact_lock(conn, advisory_key(conn, f"option:{name}"))
        row = conn.execute(stmt, {"name": name}).first()
    return default if row is None else row[0]


def get_options(conn: sa.Connection, names: Iterable[str]) -> dict[str, Any]:
    """The stored options among ``names`` as ``{name: value}``, in one query; missing names are
    left out."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    rows = conn.execute(sa.select(options.c.name, options.c.value).where(options.c.name.in_(wanted))).all()
    return {name: value for name, value in rows}


def _upsert(dialect_name: str, with_autoload: bool) -> Any:
    """``INSERT ... ON CONFLICT (name) DO UPDATE`` for SQLite and PostgreSQL, built once."""
    key = f"{dialect_name}:{with_autoload}"
    stmt = _upserts.get(key)
    if stmt is None:
        insert = sqlite.insert if dialect_name == "sqlite" else postgresql.insert
        base = insert(options)
        changes = {"value": base.excluded.value}
        if with_autoload:
            changes["autoload"] = base.excluded.autoload
        stmt = _upserts[key] = base.on_conflict_do_update(index_elements=[options.c.name], set_=changes)
    return stmt


def set_option(conn: sa.Connection, name: str, value: Any, *, autoload: bool | None = None) -> None:
    """Insert or replace option ``name``. ``autoload`` (loaded with every request's options)
    defaults to True for a new option and is left as it is for an existing one."""
    record_change(conn, "option", "update", name)  # cached answers show options (addresses, sticky posts...)
    params: dict[str, Any] = {"name": name, "value": value}
    if autoload is not None:
        params["autoload"] = autoload
    dialect_name = conn.dialect.name
    if dialect_name in ("sqlite", "postgresql"):
        conn.execute(_upsert(dialect_name, autoload is not None), params)
        return
    # Any other database: update, then insert when nothing was there.
    values = {k: v for k, v in params.items() if k != "name"}
    result = conn.execute(sa.update(options).where(options.c.name == name).values(**values))
    if result.rowcount == 0:
        conn.execute(sa.insert(options).values(**params))


def delete_option(conn: sa.Connection, name: str) -> bool:
    """Delete option ``name``; returns whether it existed."""
    record_change(conn, "option", "delete", name)
    result = conn.execute(sa.delete(options).where(options.c.name == name))
    return result.rowcount > 0
