"""Users: the record, its capabilities (with the meta-capability mapping) and its storage.

Login passwords are hashed with argon2; a user's capabilities come from its roles (roles.py) plus
its own grants. ``User.can`` understands the reference's meta capabilities (``edit_user``,
``list_app_passwords`` ...) from this module's own fixed table, ``META_CAPS``. The content
meta capabilities (``edit_post``, ``edit_term``...) are mapped by the app's content registry,
which every service context checks through (``Context.can``); nothing adds to ``META_CAPS``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..store.changes import record as record_change
from ..store.tables import users as users_table
from .roles import capabilities_for, is_role

_hasher = PasswordHasher()


@dataclass
class User:
    id: int
    login: str
    email: str
    display_name: str = ""
    nicename: str = ""
    first_name: str = ""
    last_name: str = ""
    nickname: str = ""
    url: str = ""
    description: str = ""
    locale: str = ""
    roles: list[str] = field(default_factory=list)
    extra_caps: dict[str, bool] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    registered_utc: dt.datetime | None = None
    password_hash: str = ""

    @functools.cached_property
    def allcaps(self) -> dict[str, bool]:
        return capabilities_for(tuple(self.roles), tuple(self.extra_caps.items()))

    def has_cap(self, capability: str) -> bool:
        return self.allcaps.get(capability, False) is True

    def can(self, capability: str, *args: Any) -> bool:
        """Whether the user holds ``capability``, mapping meta capabilities to primitive ones."""
        mapper = META_CAPS.get(capability)
        if mapper is None:
            return self.has_cap(capability)
        needed = mapper(self, *args)
        if needed is None:  # the mapping forbids outright (the reference's do_not_allow)
            return False
        return all(cap == "exist" or self.has_cap(cap) for cap in needed)

    def __bool__(self) -> bool:
        return True


def _edit_user(user: User, target_id: Any = None, *_: Any) -> list[str] | None:
    # Users may always edit themselves; editing others needs edit_users.
    if target_id is not None and int(target_id) == user.id:
        return []
    return ["edit_users"]


META_CAPS: dict[str, Callable[..., list[str] | None]] = {
    "edit_user": _edit_user,
    "delete_user": lambda user, *args: ["delete_users"],
    "promote_user": lambda user, *args: ["promote_users"],
    "remove_user": lambda user, *args: ["remove_users"],
    "add_users": lambda user, *args: ["promote_users"],
    # Application passwords map to edit_user on their owner (cms-api.md 6.4).
    **{
        cap: _edit_user
        for cap in (
            "list_app_passwords",
            "create_app_password",
            "read_app_password",
            "edit_app_password",
            "delete_app_passwords",
            "delete_app_password",
        )
    },
}


# -- passwords ------------------------------------------------------------------------------------


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def check_password(user: User, password: str) -> bool:
    if not user.password_hash:
        return False
    try:
        return _hasher.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


# -- slugs and validation ------------------------------------------------------------------------


def sanitize_user_login(login: str) -> str:
    """The reference's sanitize_user in strict mode: ASCII letters, digits, space and _ . - @."""
    login = re.sub(r"<[^>]*>", "", login)
    login = unicodedata.normalize("NFKD", login).encode("ascii", "ignore").decode()
    login = re.sub(r"&.+?;", "", login)
    login = re.sub(r"[^a-zA-Z0-9 _.\-@]", "", login)
    return re.sub(r"\s+", " ", login).strip()


def nicename_from(login: str) -> str:
    """A user slug from a login (sanitize_title: lower case, dashes for spaces and dots... ``@``)."""
    slug = unicodedata.normalize("NFKD", login).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9_\-]+", "-", slug)
    slug = re.sub(r"-+", "-", slug).strip("-")
    return slug[:50] or "user"


# -- storage --------------------------------------------------------------------------------------


def user_from_row(row: Any) -> User:
    return User(
        id=row.id,
        login=row.login,
        email=row.email,
        display_name=row.display_name,
        nicename=row.nicename,
        first_name=row.first_name,
        last_name=row.last_name,
        nickname=row.nickname,
        url=row.url,
        description=row.description,
        locale=row.locale,
        roles=list(row.roles or []),
        extra_caps=dict(row.extra_caps or {}),
        meta=dict(row.meta or {}),
        registered_utc=row.registered_utc,
        password_hash=row.password_hash,
    )


def get_user(conn: sa.Connection, user_id: int) -> User | None:
    row = conn.execute(sa.select(users_table).where(users_table.c.id == user_id)).first()
    return user_from_row(row) if row else None


def get_user_by(conn: sa.Connection, field_name: str, value: str) -> User | None:
    """Look a user up by ``login``, ``email`` or ``nicename`` (logins and emails case-insensitively)."""
    column = users_table.c[field_name]
    if field_name in ("login", "email"):
        condition = sa.func.lower(column) == value.lower()
    else:
        condition = column == value
    row = conn.execute(sa.select(users_table).where(condition).limit(1)).first()
    return user_from_row(row) if row else None


def get_users(conn: sa.Connection, ids: list[int]) -> dict[int, User]:
    if not ids:
        return {}
    rows = conn.execute(sa.select(users_table).where(users_table.c.id.in_(ids))).all()
    return {row.id: user_from_row(row) for row in rows}


def count_users(conn: sa.Connection) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(users_table)).scalar_one()


def find_user(conn: sa.Connection, ident: str) -> User | None:
    """A user by id, login or email (what WP-CLI accepts for <user>)."""
    if ident.isdigit():
        found = get_user(conn, int(ident))
        if found:
            return found
    return get_user_by(conn, "login", ident) or (get_user_by(conn, "email", ident) if "@" in ident else None)


def unique_nicename(conn: sa.Connection, base: str, exclude_id: int | None = None) -> str:
    candidate, suffix = base, 2
    while True:
        stmt = sa.select(users_table.c.id).where(users_table.c.nicename == candidate)
        if exclude_id is not None:
            stmt = stmt.where(users_table.c.id != exclude_id)
        if conn.execute(stmt.limit(1)).first() is None:
            return candidate
        candidate = f"{base[: 50 - len(str(suffix)) - 1]}-{suffix}"
        suffix += 1


class UserError(ValueError):
    """A user could not be created or changed: ``code`` is the reference's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def create_user(
    conn: sa.Connection,
    *,
    login: str,
    email: str,
    password: str,
    roles: list[str] | None = None,
    display_name: str = "",
    first_name: str = "",
    last_name: str = "",
    nickname: str = "",
    nicename: str = "",
    url: str = "",
    description: str = "",
    locale: str = "",
    meta: dict[str, Any] | None = None,
) -> User:
    """Insert a user, enforcing the reference's login and email rules. Raises UserError."""
    clean_login = sanitize_user_login(login)
    if not clean_login or clean_login != login.strip():
        raise UserError("rest_user_invalid_username", "This username is invalid because it uses illegal characters. Please enter a valid username.")
    if len(clean_login) > 60:
        raise UserError("user_login_too_long", "Username may not be longer than 60 characters.")
    if get_user_by(conn, "login", clean_login):
        raise UserError("existing_user_login", "Sorry, that username already exists!")
    if email and get_user_by(conn, "email", email):
        raise UserError("existing_user_email", "Sorry, that email address is already used!")
    for role in roles or []:
        if not is_role(role):
            raise UserError("rest_user_invalid_role", "The role is invalid.")
    slug = unique_nicename(conn, nicename_from(nicename or clean_login))
    values = {
        "login": clean_login,
        "email": email,
        "password_hash": hash_password(password),
        "display_name": display_name or clean_login,
        "nicename": slug,
        "first_name": first_name,
        "last_name": last_name,
        "nickname": nickname or clean_login,
        "url": url,
        "description": description,
        "locale": locale,
        "roles": list(roles if roles is not None else ["subscriber"]),
        "extra_caps": {},
        "meta": meta or {},
        "registered_utc": dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0),
    }
    user_id = conn.execute(sa.insert(users_table).values(**values).returning(users_table.c.id)).scalar_one()
    record_change(conn, "user", "create", user_id)  # cached answers show users (names, links of their items)
    created = get_user(conn, user_id)
    assert created is not None
    return created


def update_user(conn: sa.Connection, user_id: int, changes: dict[str, Any]) -> User:
    """Apply column changes (``password`` is hashed) and return the updated user."""
    values = dict(changes)
    if "password" in values:
        values["password_hash"] = hash_password(values.pop("password"))
    if "email" in values:
        other = get_user_by(conn, "email", values["email"])
        if other and other.id != user_id:
            raise UserError("rest_user_invalid_email", "Invalid email address.")
    if "nicename" in values:
        other = get_user_by(conn, "nicename", values["nicename"])
        if other and other.id != user_id:
            raise UserError("rest_user_invalid_slug", "Invalid slug.")
    if values:
        record_change(conn, "user", "update", user_id)
        conn.execute(sa.update(users_table).where(users_table.c.id == user_id).values(**values))
    updated = get_user(conn, user_id)
    assert updated is not None
    return updated


def delete_user(conn: sa.Connection, user_id: int, reassign: int | None) -> None:
    """Delete a user; their content goes to ``reassign`` or is deleted with them."""
    from ..store.tables import posts as posts_table

    if reassign:
        conn.execute(sa.update(posts_table).where(posts_table.c.author == user_id).values(author=reassign))
    else:
        conn.execute(sa.delete(posts_table).where(posts_table.c.author == user_id))
    record_change(conn, "user", "delete", user_id)
    conn.execute(sa.delete(users_table).where(users_table.c.id == user_id))
