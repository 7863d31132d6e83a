"""Password reset keys and their mail, as the reference's get_password_reset_key,
check_password_reset_key, retrieve_password and reset_password.

- A key is 20 random letters and digits, mailed in a link and never stored: the user's ``meta``
  keeps ``password_reset = {"created": <unix time>, "hash": ...}``, the reference's
  ``user_activation_key`` of "time:hash". The hash is keyed by the site's secret and covers a
  fragment of the password hash, so any change of the password (a reset, the profile, the REST
  API, the command line) voids the key, as the reference clears it in wp_set_password.
- A key is good for ``KEY_LIFETIME`` (24 hours; older: ``expired_key``) and once: a reset
  removes it. A new request replaces the previous key.
- Mails are throttled: ``ACCOUNT_MAILS`` per account per ``WINDOW`` (sent times kept in the
  user's meta) and ``ADDRESS_REQUESTS`` requests per client address per ``WINDOW`` (counted in
  the login throttle's table under ``reset-addr:`` keys, known and unknown accounts alike; while
  the login throttle is on, its purge may drop such a row after twice ``CALPRESS_LOGIN_LOCKOUT``,
  before its hour is over; rows of hours over are deleted now and then). A throttled request
  gets the same answer as any other and sends nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import string
import time
from dataclasses import dataclass
from urllib.parse import quote

import sqlalchemy as sa

from ..store.tables import login_failures
from . import throttle
from .users import User, generate_password, get_user_by, update_user

KEY_LIFETIME = 24 * 3600  # the reference's DAY_IN_SECONDS (password_reset_expiration)
WINDOW = 3600
ACCOUNT_MAILS = 3
ADDRESS_REQUESTS = 10
META_KEY = "password_reset"
SENT_KEY = "password_reset_sent"
KEY_LENGTH = 20
_ALPHABET = string.ascii_letters + string.digits
ADDRESS_PREFIX = "reset-"
_next_purge = 0.0  # per process: when rows of finished windows are next deleted

INVALID = "invalid_key"
EXPIRED = "expired_key"


def new_key() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(KEY_LENGTH))


def _digest(secret_key: str, user: User, key: str) -> str:
    fragment = user.password_hash[-12:-4] if user.password_hash else ""
    message = f"password-reset|{user.id}|{fragment}|{key}".encode()
    return hashlib.blake2b(message, key=hashlib.sha256(secret_key.encode()).digest(), digest_size=32).hexdigest()


def find_account(conn: sa.Connection, given: str) -> User | None:
    """The account a lost-password form names: a login, else an e-mail address (as the reference's
    retrieve_password, which tries the address only when the text has an ``@``)."""
    given = given.strip()
    if not given:
        return None
    return get_user_by(conn, "login", given) or (get_user_by(conn, "email", given) if "@" in given else None)


def issue(conn: sa.Connection, user: User, secret_key: str, *, now: float | None = None) -> str:
    """A new key for ``user`` (replacing any earlier one); returns it, stores only its hash."""
    key = new_key()
    created = int(time.time() if now is None else now)
    meta = {**user.meta, META_KEY: {"created": created, "hash": _digest(secret_key, user, key)}}
    update_user(conn, user.id, {"meta": meta})
    return key


def check(conn: sa.Connection, login: str, key: str, secret_key: str, *, now: float | None = None) -> tuple[User | None, str]:
    """(the user, "") when ``key`` is ``login``'s current key, else (None, ``invalid_key`` or
    ``expired_key``). Only letters and digits of ``key`` count, as the reference's."""
    key = "".join(ch for ch in key if ch.isascii() and ch.isalnum())
    if not key or not login:
        return None, INVALID
    user = get_user_by(conn, "login", login)
    stored = user.meta.get(META_KEY) if user is not None else None
    if user is None or not isinstance(stored, dict) or not isinstance(stored.get("hash"), str):
        return None, INVALID
    if not hmac.compare_digest(_digest(secret_key, user, key), stored["hash"]):
        return None, INVALID
    now = time.time() if now is None else now
    try:
        created = int(stored.get("created"))
    except (TypeError, ValueError):
        return None, EXPIRED
    if now >= created + KEY_LIFETIME:
        return None, EXPIRED
    return user, ""


def reset(conn: sa.Connection, user: User, password: str) -> User:
    """Set ``user``'s password and drop the key: the reference's reset_password. The new
    password hash ends every login session of the account (sessions.py signs a fragment of it
    into each login cookie)."""
    meta = {name: value for name, value in user.meta.items() if name != META_KEY}
    return update_user(conn, user.id, {"password": password, "meta": meta})


def set_random_password(conn: sa.Connection, user: User) -> tuple[User, str]:
    """A new random 24-character password for ``user`` (WP-CLI's reset-password), any key voided."""
    password = generate_password()
    meta = {name: value for name, value in user.meta.items() if name != META_KEY}
    return update_user(conn, user.id, {"password": password, "meta": meta}), password


def may_mail_account(conn: sa.Connection, user: User, *, now: float | None = None) -> bool:
    """Whether ``user`` may get one more reset mail now (fewer than ``ACCOUNT_MAILS`` in the last
    ``WINDOW``); when so, counts this one (in ``user.meta`` and stored)."""
    now = time.time() if now is None else now
    sent = [moment for moment in user.meta.get(SENT_KEY) or [] if isinstance(moment, (int, float)) and now - moment < WINDOW]
    if len(sent) >= ACCOUNT_MAILS:
        return False
    user.meta[SENT_KEY] = [*sent, int(now)]
    update_user(conn, user.id, {"meta": user.meta})
    return True


def address_allowed(conn: sa.Connection, remote_addr: str, *, now: dt.datetime | None = None) -> bool:
    """Whether a lost-password request from ``remote_addr`` may go on (fewer than
    ``ADDRESS_REQUESTS`` in the current ``WINDOW``); when so, counts it. Shared by every worker
    (the login throttle's table, under keys of their own)."""
    global _next_purge
    now = throttle.utcnow() if now is None else now
    if time.monotonic() >= _next_purge:  # rows of windows over, now and then (the login throttle may be off)
        _next_purge = time.monotonic() + throttle.PURGE_EVERY
        conn.execute(sa.delete(login_failures).where(login_failures.c.key.startswith(ADDRESS_PREFIX),
                                                     login_failures.c.window_start_utc < now - dt.timedelta(seconds=WINDOW)))
    key = ADDRESS_PREFIX + throttle.address_key(remote_addr or "")
    left, _ = throttle.lockout_left(conn, (key,), max_failures=ADDRESS_REQUESTS, lockout=WINDOW, now=now)
    if left:
        return False
    throttle.record_failure(conn, (key,), lockout=WINDOW, now=now)
    return True


def reset_link(site_url: str, key: str, login: str) -> str:
    """The link a mail carries: ``<site>/wp-login.php?action=rp&key=...&login=...``."""
    return f"{site_url.rstrip('/')}/wp-login.php?action=rp&key={key}&login={quote(login, safe='')}"


@dataclass(frozen=True)
class ResetMail:
    subject: str
    body: str


def reset_mail(site_name: str, login: str, link: str, *, requester_ip: str = "", by_administrator: bool = False) -> ResetMail:
    """The reference's retrieve_password mail (subject "[Site] Password Reset"); when an
    administrator reset the password (the command line), it says so instead of "someone has
    requested", since the old password no longer works."""
    lines = []
    if by_administrator:
        lines.append("An administrator has reset the password for the following account:")
    else:
        lines.append("Someone has requested a password reset for the following account:")
    lines += [f"Site Name: {site_name}", f"Username: {login}"]
    if by_administrator:
        lines.append("To choose a new password, visit the following address:")
    else:
        lines.append("If this was a mistake, ignore this email and nothing will happen.")
        lines.append("To reset your password, visit the following address:")
    lines.append(link)
    if requester_ip and not by_administrator:
        lines.append(f"This password reset request originated from the IP address {requester_ip}.")
    return ResetMail(f"[{site_name}] Password Reset", "\n\n".join(lines) + "\n")

