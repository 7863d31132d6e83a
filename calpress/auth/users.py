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
import secrets
import string
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

from .. import lane
from ..compat.kses import kses_title
from ..store import options as store_options
from ..store import textsearch
from ..store.changes import record as record_change
from ..store.tables import posts as posts_table
from ..store.tables import row_offset
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
    # Site health (cms-api.md 5): whoever may install plugins, administrators on a single site.
    "view_site_health_checks": lambda user, *args: ["install_plugins"],
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


# wp_generate_password's letters, digits and specials (never a backslash, which the users route refuses).
PASSWORD_CHARACTERS = string.ascii_letters + string.digits + "!@#$%^&*()"


def generate_password(length: int = 24) -> str:
    """A random password, as the reference's wp_generate_password gives new and reset accounts."""
    return "".join(secrets.choice(PASSWORD_CHARACTERS) for _ in range(length))


def hash_password(password: str) -> str:
    lane.leave()  # argon2 takes tens of milliseconds (outside the GIL): the worker's other writes go on
    return _hasher.hash(password)


def check_password(user: User, password: str) -> bool:
    if not user.password_hash:
        return False
    lane.leave()  # as hash_password
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


def role_counts(conn: sa.Connection) -> tuple[int, dict[str, int]]:
    """Every user, and the users holding each role (the reference's count_users, which also
    reads every user's roles): for the users list's role links."""
    by_role: dict[str, int] = {}
    total = 0
    for (roles,) in conn.execute(sa.select(users_table.c.roles)):
        total += 1
        for role in set(roles or ()):
            by_role[role] = by_role.get(role, 0) + 1
    return total, by_role


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


# -- listing --------------------------------------------------------------------------------------

SEARCH_COLUMNS = ("id", "username", "slug", "email", "name")
USER_ORDERBY = ("id", "include", "name", "registered_date", "slug", "include_slugs", "email", "url")
# What a search looks in when the caller names no columns: everything but the email address,
# which only requesters who may list users search (the caller decides and names it).
DEFAULT_SEARCH_COLUMNS = ("id", "username", "slug", "name")
ADMINISTRATOR = "administrator"
ADMIN_EMAIL_OPTION = "admin_email"
# The capabilities of a user level above 0: who the reference counts as an author (who=authors).
AUTHOR_LEVELS = tuple(f"level_{n}" for n in range(1, 11))

_SEARCHED = {
    "id": users_table.c.id,
    "username": users_table.c.login,
    "slug": users_table.c.nicename,
    "email": users_table.c.email,
    "name": users_table.c.display_name,
}


@dataclass
class UserQuery:
    """Which users to list, in which order, and which page of them (the REST users collection).

    Empty ``include``, ``exclude``, ``slugs``, ``roles``, ``capabilities`` and ``search`` filter
    nothing. ``search`` is a case-insensitive substring of any of ``search_columns`` (the id is
    searched as text). ``roles`` and ``capabilities`` match users with any of those given.
    ``published_in``: only users with a published item of one of these content types (None: no
    such filter; an empty sequence matches nobody). ``authors_only`` (``who=authors``): users who
    hold a level above 0 (``level_1`` to ``level_10``, contributors and up), the reference's
    ``user_level != 0``. ``offset``, when not None, replaces the ``page`` arithmetic; ``per_page``
    below 0 lists every match unpaged.
    """

    include: Sequence[int] = ()
    exclude: Sequence[int] = ()
    slugs: Sequence[str] = ()
    search: str = ""
    search_columns: Sequence[str] = DEFAULT_SEARCH_COLUMNS
    roles: Sequence[str] = ()
    capabilities: Sequence[str] = ()
    published_in: Sequence[str] | None = None
    authors_only: bool = False
    orderby: str = "name"
    order: str = "asc"
    page: int = 1
    per_page: int = 10
    offset: int | None = None


def _published(types: Sequence[str]) -> Any:
    """Whether the user has a published item of one of ``types`` (correlated to the users row)."""
    return sa.exists().where(
        posts_table.c.author == users_table.c.id,
        posts_table.c.status == "publish",
        posts_table.c.type.in_(list(types)),
    )


def has_published(conn: sa.Connection, user_id: int, types: Sequence[str]) -> bool:
    """Whether the user has a published item of one of ``types``."""
    if not types:
        return False
    stmt = sa.select(posts_table.c.id).where(
        posts_table.c.author == user_id,
        posts_table.c.status == "publish",
        posts_table.c.type.in_(list(types)),
    )
    return conn.execute(stmt.limit(1)).first() is not None


def _is_postgresql(conn: sa.Connection) -> bool:
    return conn.dialect.name == "postgresql"


def _json_entries(column: Any) -> Any:
    """SQLite: the entries of a JSON array or object column (``key``, ``value``, ``type``)."""
    return sa.func.json_each(column).table_valued("key", "value", "type")


def _has_any_role(conn: sa.Connection, roles: Sequence[str]) -> Any:
    """Whether the user's ``roles`` array holds any of ``roles``."""
    wanted = list(dict.fromkeys(roles))
    if not wanted:
        return sa.false()
    if _is_postgresql(conn):
        return sa.type_coerce(users_table.c.roles, JSONB).has_any(sa.literal(wanted, ARRAY(sa.Text)))
    entries = _json_entries(users_table.c.roles)
    return sa.select(sa.literal(1)).select_from(entries).where(entries.c.value.in_(wanted)).exists()


def first_with_role(conn: sa.Connection, role: str) -> int | None:
    """The id of the oldest user holding ``role``, if any."""
    row = conn.execute(
        sa.select(users_table.c.id).where(_has_any_role(conn, [role])).order_by(users_table.c.id).limit(1)
    ).first()
    return row.id if row is not None else None


def _extra_cap_set(conn: sa.Connection, capability: str) -> Any:
    """Whether the user's ``extra_caps`` object has an entry (grant or denial) for ``capability``."""
    if _is_postgresql(conn):
        return sa.type_coerce(users_table.c.extra_caps, JSONB).has_key(capability)
    entries = _json_entries(users_table.c.extra_caps)
    return sa.select(sa.literal(1)).select_from(entries).where(entries.c.key == capability).exists()


def _extra_cap_granted(conn: sa.Connection, capabilities: Sequence[str]) -> Any:
    """Whether the user's ``extra_caps`` grants (JSON ``true``) any of ``capabilities``."""
    if _is_postgresql(conn):
        extra = sa.type_coerce(users_table.c.extra_caps, JSONB)
        return sa.or_(*[extra.contains({cap: True}) for cap in capabilities])
    entries = _json_entries(users_table.c.extra_caps)
    return (
        sa.select(sa.literal(1))
        .select_from(entries)
        .where(entries.c.key.in_(list(capabilities)), entries.c.type == "true")
        .exists()
    )


def _has_any_capability(conn: sa.Connection, capabilities: Sequence[str], role_caps: Mapping[str, Sequence[str]]) -> Any:
    """Whether the user holds any of ``capabilities``, as ``User.has_cap`` decides: an entry in
    ``extra_caps`` decides alone (JSON ``true`` grants, anything else revokes); without one, a
    role of ``role_caps`` grants its capabilities and its own name."""
    wanted = list(dict.fromkeys(capabilities))
    conditions = [_extra_cap_granted(conn, wanted)]
    for cap in wanted:
        granting = [role for role, caps in role_caps.items() if cap == role or cap in caps]
        if granting:
            conditions.append(sa.and_(sa.not_(_extra_cap_set(conn, cap)), _has_any_role(conn, granting)))
    return sa.or_(*conditions)


def _conditions(conn: sa.Connection, query: UserQuery, role_caps: Mapping[str, Sequence[str]]) -> list[Any]:
    users = users_table.c
    conditions: list[Any] = []
    if query.include:
        conditions.append(users.id.in_([int(i) for i in query.include]))
    if query.exclude:
        conditions.append(users.id.notin_([int(i) for i in query.exclude]))
    if query.slugs:
        conditions.append(users.nicename.in_(list(query.slugs)))
    if query.published_in is not None:
        conditions.append(_published(query.published_in))
    if query.authors_only:
        conditions.append(_has_any_capability(conn, AUTHOR_LEVELS, role_caps))
    if query.search:
        unknown = [c for c in query.search_columns if c not in _SEARCHED]
        if unknown:
            raise ValueError(f"unknown search columns: {unknown}")
        columns = list(dict.fromkeys(query.search_columns)) or list(DEFAULT_SEARCH_COLUMNS)
        conditions.append(textsearch.contains(conn, [sa.cast(_SEARCHED[c], sa.String) for c in columns], query.search))
    if query.roles:
        conditions.append(_has_any_role(conn, query.roles))
    if query.capabilities:
        conditions.append(_has_any_capability(conn, query.capabilities, role_caps))
    return conditions


def _lowered(conn: sa.Connection, column: Any) -> Any:
    """``column`` lower-cased for sorting, compared by code point as Python compares strings.

    SQLite: Python's own ``str.lower`` (``calpress_lower``, which store/db.py registers on every
    connection; SQLite's ``lower()`` folds ASCII only), so the order is exactly the Python sort's. PostgreSQL: ``lower()`` under the
    database's LC_CTYPE, compared with ``COLLATE "C"`` (code points). With a UTF-8 ctype (e.g.
    C.UTF-8) it lowers character by character as Python does, except where Python's mapping
    needs more than one character (``İ`` -> ``i̇``, a word-final ``Σ`` -> ``ς``); with a
    ``C``/``POSIX`` ctype it lowers ASCII only. ASCII text sorts identically everywhere.
    """
    if _is_postgresql(conn):
        return sa.func.lower(column).collate("C")
    return sa.func.calpress_lower(column)


def _text(conn: sa.Connection, column: Any) -> Any:
    """A text column compared by code point (PostgreSQL's default collation would not)."""
    return column.collate("C") if _is_postgresql(conn) else column


def _ordering(conn: sa.Connection, query: UserQuery) -> list[Any]:
    """The ORDER BY of the Python sort this replaced: each key, then the id; ``desc`` reverses
    the whole key. ``include``/``include_slugs`` follow the position in ``include``/``slugs``
    (the last one when a value repeats), or the id when that list is empty."""
    users = users_table.c
    if query.orderby not in USER_ORDERBY:
        raise ValueError(f"unknown orderby: {query.orderby}")
    keys: list[Any] = []
    if query.orderby == "include" and query.include:
        position = {int(uid): i for i, uid in enumerate(query.include)}
        keys.append(sa.case(position, value=users.id, else_=len(position)))
    elif query.orderby == "include_slugs" and query.slugs:
        position = {slug: i for i, slug in enumerate(query.slugs)}
        keys.append(sa.case(position, value=users.nicename, else_=len(position)))
    elif query.orderby == "name":
        keys.append(_lowered(conn, users.display_name))
    elif query.orderby == "registered_date":
        keys.append(users.registered_utc)
    elif query.orderby == "slug":
        keys.append(_text(conn, users.nicename))
    elif query.orderby == "email":
        keys.append(_lowered(conn, users.email))
    elif query.orderby == "url":
        keys.append(_text(conn, users.url))
    keys.append(users.id)  # "id", and "include"/"include_slugs" without their list: the id alone
    direction = sa.desc if query.order == "desc" else sa.asc
    return [direction(key) for key in keys]


def query_users(
    conn: sa.Connection, query: UserQuery, *, role_caps: Mapping[str, Sequence[str]]
) -> tuple[list[User], int]:
    """One page of the users ``query`` matches, and how many match in all.

    Filtered, sorted and paged in SQL: one statement returns the page with the total (a window
    count over the filtered rows); a second, counting statement runs only when the page is empty
    and lies past the start. ``role_caps`` (role -> capabilities) decides the ``capabilities``
    filter together with each user's ``extra_caps``.
    """
    conditions = _conditions(conn, query, role_caps)
    stmt = (
        sa.select(users_table, sa.func.count().over().label("_total"))
        .where(*conditions)
        .order_by(*_ordering(conn, query))
    )
    offset = 0
    if query.per_page >= 0:
        offset = max(query.offset if query.offset is not None else (max(query.page, 1) - 1) * query.per_page, 0)
        stmt = stmt.limit(query.per_page).offset(row_offset(offset))
    rows = conn.execute(stmt).all()
    if rows:
        return [user_from_row(row) for row in rows], rows[0]._total
    if offset > 0 or query.per_page == 0:
        count = sa.select(sa.func.count()).select_from(users_table).where(*conditions)
        return [], conn.execute(count).scalar_one()
    return [], 0


class UserError(ValueError):
    """A user could not be created or changed: ``code`` is the reference's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def user_description(text: Any) -> str:
    """A biographical description as stored and shown: the reference runs ``wp_filter_kses`` on
    ``pre_user_description`` for every user (default-filters.php), leaving only its small list
    of inline tags (no ``<script>``, no ``onerror=``, no ``javascript:`` links)."""
    return kses_title(text if isinstance(text, str) else str(text or ""))


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
        "description": user_description(description),
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
    claim_admin_email(conn, created)
    return created


def claim_admin_email(conn: sa.Connection, user: User) -> None:
    """An administrator's address becomes the site's ``admin_email`` while the site has none:
    the reference's installer stores the first administrator's, so the settings' ``email`` is
    set on every site with an administrator (whichever way that user came: the command line,
    the first run of ``serve``, the REST API)."""
    if ADMINISTRATOR in user.roles and user.email and not store_options.get_option(conn, ADMIN_EMAIL_OPTION):
        store_options.set_option(conn, ADMIN_EMAIL_OPTION, user.email)


def update_user(conn: sa.Connection, user_id: int, changes: dict[str, Any]) -> User:
    """Apply column changes (``password`` is hashed) and return the updated user."""
    values = dict(changes)
    if "password" in values:
        values["password_hash"] = hash_password(values.pop("password"))
    if "description" in values:
        values["description"] = user_description(values["description"])
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
    if "roles" in values:
        claim_admin_email(conn, updated)
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
