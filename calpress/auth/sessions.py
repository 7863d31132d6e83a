"""Signed login cookies and nonces: no session state is kept on the server.

A login cookie is ``user_id|expiration|token|mac``; the MAC covers a fragment of the user's
password hash, so changing the password logs every session out, as the reference does. A nonce is
the reference's scheme: a keyed hash of a 12-hour tick, the action, the user and the session
token, valid for the current and the previous tick.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

LOGIN_COOKIE = "calpress_logged_in"
SESSION_LIFETIME = 2 * 24 * 3600
REMEMBER_LIFETIME = 14 * 24 * 3600
NONCE_LIFE = 24 * 3600


@dataclass(frozen=True)
class Session:
    user_id: int
    expiration: int
    token: str


def _mac(secret_key: str, *parts: str) -> str:
    message = "|".join(parts).encode()
    return hmac.new(secret_key.encode(), message, hashlib.sha256).hexdigest()


def _pass_fragment(password_hash: str) -> str:
    return password_hash[-12:-4] if password_hash else ""


def make_login_cookie(secret_key: str, user_id: int, password_hash: str, *, remember: bool = False, now: float | None = None) -> tuple[str, int]:
    """The cookie value for a fresh session and its expiration (unix time)."""
    now = time.time() if now is None else now
    expiration = int(now) + (REMEMBER_LIFETIME if remember else SESSION_LIFETIME)
    token = secrets.token_urlsafe(24)
    mac = _mac(secret_key, "login", str(user_id), str(expiration), token, _pass_fragment(password_hash))
    return f"{user_id}|{expiration}|{token}|{mac}", expiration


def parse_login_cookie(value: str) -> tuple[int, int, str, str] | None:
    """Split a cookie into (user_id, expiration, token, mac), or None when malformed."""
    parts = value.split("|")
    if len(parts) != 4 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    return int(parts[0]), int(parts[1]), parts[2], parts[3]


def verify_login_cookie(secret_key: str, value: str, password_hash: str, *, now: float | None = None) -> Session | None:
    """The session a cookie proves, or None (bad MAC, expired, password changed since)."""
    parsed = parse_login_cookie(value)
    if parsed is None:
        return None
    user_id, expiration, token, mac = parsed
    now = time.time() if now is None else now
    if expiration < now:
        return None
    expected = _mac(secret_key, "login", str(user_id), str(expiration), token, _pass_fragment(password_hash))
    if not hmac.compare_digest(expected, mac):
        return None
    return Session(user_id, expiration, token)


def _tick(now: float | None = None) -> int:
    now = time.time() if now is None else now
    return int(-(-now // (NONCE_LIFE / 2)))


def create_nonce(secret_key: str, action: str, user_id: int, token: str = "", *, now: float | None = None) -> str:
    tick = _tick(now)
    return _mac(secret_key, "nonce", str(tick), action, str(user_id), token)[-12:-2]


def verify_nonce(secret_key: str, nonce: str, action: str, user_id: int, token: str = "", *, now: float | None = None) -> int:
    """1 when made in the current 12 hours, 2 in the 12 before, 0 when invalid (as the reference)."""
    if not nonce or not nonce.isascii():  # compare_digest takes ASCII text only; no nonce has more
        return 0
    tick = _tick(now)
    for age, candidate_tick in ((1, tick), (2, tick - 1)):
        expected = _mac(secret_key, "nonce", str(candidate_tick), action, str(user_id), token)[-12:-2]
        if hmac.compare_digest(expected, nonce):
            return age
    return 0
