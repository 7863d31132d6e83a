"""Application passwords (cms-api.md 6.2-6.4): 24 random letters and digits, shown once, stored as
a keyed BLAKE2b hash.

The secret is random, so a fast keyed hash is as strong as a slow one and keeps Basic auth cheap
on every request; the key is the site's secret key (rotating it invalidates every application
password). Lookups go by (user, hash), one indexed query.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import secrets
import string
import uuid as uuid_mod
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..compat.phpdate import mysql_datetime
from ..store import options as store_options
from ..store.fast import FastQuery
from ..store.tables import application_passwords as app_table
from ..store.tables import options as options_table

PASSWORD_LENGTH = 24
_ALPHABET = string.ascii_letters + string.digits
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")
HASH_PREFIX = "$generic$"
USAGE_RECORD_INTERVAL = dt.timedelta(days=1)


@dataclass
class AppPassword:
    uuid: str
    user_id: int
    app_id: str
    name: str
    password_hash: str
    created_utc: dt.datetime
    last_used_utc: dt.datetime | None
    last_ip: str | None


def generate_password() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(PASSWORD_LENGTH))


def chunk_password(raw: str) -> str:
    """``abcdEFGH...`` as six groups of four: ``abcd EFGH ijkl MNOP qrst UVWX``."""
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))


def normalize_password(given: str) -> str:
    """Drop everything but letters and digits, so the chunked and plain forms both work."""
    return _NOT_ALNUM.sub("", given)


@functools.lru_cache(maxsize=8)
def _hash_key(secret_key: str) -> bytes:
    return hashlib.blake2b(secret_key.encode(), digest_size=32, person=b"calpress-apppw").digest()


def hash_password(raw: str, secret_key: str) -> str:
    key = _hash_key(secret_key)
    digest = hashlib.blake2b(raw.encode(), key=key, digest_size=32).hexdigest()
    return HASH_PREFIX + digest


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


def _from_row(row: Any) -> AppPassword:
    return AppPassword(
        uuid=row.uuid,
        user_id=row.user_id,
        app_id=row.app_id or "",
        name=row.name,
        password_hash=row.password_hash,
        created_utc=row.created_utc,
        last_used_utc=row.last_used_utc,
        last_ip=row.last_ip,
    )


def create(conn: sa.Connection, user_id: int, name: str, secret_key: str, app_id: str = "") -> tuple[AppPassword, str]:
    """Create a password for ``user_id``; returns the record and the raw 24-character password.

    Also sets the site-wide ``using_application_passwords`` flag, as the reference does on first use.
    """
    raw = generate_password()
    record = AppPassword(
        uuid=str(uuid_mod.uuid4()),
        user_id=user_id,
        app_id=app_id or "",
        name=name,
        password_hash=hash_password(raw, secret_key),
        created_utc=_now(),
        last_used_utc=None,
        last_ip=None,
    )
    conn.execute(
        sa.insert(app_table).values(
            uuid=record.uuid,
            user_id=record.user_id,
            app_id=record.app_id,
            name=record.name,
            password_hash=record.password_hash,
            created_utc=record.created_utc,
        )
    )
    in_use = conn.execute(
        sa.select(options_table.c.value).where(options_table.c.name == "using_application_passwords")
    ).scalar()
    if not in_use:
        store_options.set_option(conn, "using_application_passwords", True)
    return record, raw


def list_for_user(conn: sa.Connection, user_id: int) -> list[AppPassword]:
    rows = conn.execute(
        sa.select(app_table).where(app_table.c.user_id == user_id).order_by(app_table.c.created_utc, app_table.c.uuid)
    ).all()
    return [_from_row(row) for row in rows]


def get(conn: sa.Connection, user_id: int, uuid: str) -> AppPassword | None:
    row = conn.execute(
        sa.select(app_table).where(app_table.c.user_id == user_id, app_table.c.uuid == uuid)
    ).first()
    return _from_row(row) if row else None


def find_by_password(conn: sa.Connection, user_id: int, given: str, secret_key: str) -> AppPassword | None:
    """The user's application password matching ``given`` (spaces and punctuation ignored)."""
    raw = normalize_password(given)
    if len(raw) != PASSWORD_LENGTH:
        return None
    row = conn.execute(
        sa.select(app_table).where(
            app_table.c.user_id == user_id, app_table.c.password_hash == hash_password(raw, secret_key)
        )
    ).first()
    return _from_row(row) if row else None


def _user_with_password_statement(field_name: str) -> sa.Select:
    from ..store.tables import users as users_table

    joined = users_table.outerjoin(
        app_table,
        sa.and_(app_table.c.user_id == users_table.c.id, app_table.c.password_hash == sa.bindparam("digest")),
    )
    return (
        sa.select(
            users_table,
            app_table.c.uuid.label("ap_uuid"),
            app_table.c.app_id.label("ap_app_id"),
            app_table.c.name.label("ap_name"),
            app_table.c.password_hash.label("ap_hash"),
            app_table.c.created_utc.label("ap_created"),
            app_table.c.last_used_utc.label("ap_last_used"),
            app_table.c.last_ip.label("ap_last_ip"),
        )
        .select_from(joined)
        .where(sa.func.lower(users_table.c[field_name]) == sa.bindparam("value"))
        .limit(1)
    )


# Built and compiled once: this runs on every Basic-authenticated request.
_USER_WITH_PASSWORD = {name: FastQuery(_user_with_password_statement(name)) for name in ("login", "email")}


def find_user_with_password(
    site: Any, field_name: str, value: str, given: str, secret_key: str
) -> tuple[Any, AppPassword | None]:
    """One query for Basic auth: the user whose ``field_name`` (login or email) is ``value``, and
    the application password of theirs matching ``given``. Returns (user row or None, record or None)."""
    raw = normalize_password(given)
    digest = hash_password(raw, secret_key) if len(raw) == PASSWORD_LENGTH else ""
    found = site.query(_USER_WITH_PASSWORD[field_name], {"digest": digest, "value": value.lower()})
    row = found[0] if found else None
    if row is None:
        return None, None
    record = None
    if row.ap_uuid is not None:
        record = AppPassword(
            uuid=row.ap_uuid,
            user_id=row.id,
            app_id=row.ap_app_id or "",
            name=row.ap_name,
            password_hash=row.ap_hash,
            created_utc=row.ap_created,
            last_used_utc=row.ap_last_used,
            last_ip=row.ap_last_ip,
        )
    return row, record


def rename(conn: sa.Connection, record: AppPassword, name: str) -> AppPassword:
    conn.execute(sa.update(app_table).where(app_table.c.uuid == record.uuid).values(name=name))
    record.name = name
    return record


def delete(conn: sa.Connection, user_id: int, uuid: str) -> bool:
    result = conn.execute(sa.delete(app_table).where(app_table.c.user_id == user_id, app_table.c.uuid == uuid))
    return result.rowcount > 0


def delete_all(conn: sa.Connection, user_id: int) -> int:
    return conn.execute(sa.delete(app_table).where(app_table.c.user_id == user_id)).rowcount


def needs_usage_record(record: AppPassword, ip: str, now: dt.datetime | None = None) -> bool:
    """The reference records last use (time and address) at most once a day."""
    now = now or _now()
    return record.last_used_utc is None or record.last_used_utc + USAGE_RECORD_INTERVAL <= now


def record_usage(conn: sa.Connection, record: AppPassword, ip: str) -> None:
    now = _now()
    conn.execute(sa.update(app_table).where(app_table.c.uuid == record.uuid).values(last_used_utc=now, last_ip=ip or None))
    record.last_used_utc = now
    record.last_ip = ip or None


def iso(value: dt.datetime | None) -> str | None:
    """GMT date as the reference formats it: ``YYYY-MM-DDTHH:MM:SS``."""
    return mysql_datetime(value, "T") if value else None
