"""Who is asking: application passwords over HTTP Basic, or a login cookie plus a REST nonce.

The reference's rules (cms-api.md 6.1, 6.3): Basic credentials are tried only once some
application password exists on the site; a failure is a 401 before any routing. A login cookie
counts only with a valid ``wp_rest`` nonce (``_wpnonce`` in the query or form body, else the
``X-WP-Nonce`` header); a cookie without a nonce is anonymous, and any invalid nonce is a 403.
Basic credentials go through the password-guessing throttle (``throttle.py``, off by default).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..compat.formatting import is_email
from ..rest.errors import RestError
from ..rest.request import RestRequest
from ..rest.server import ANONYMOUS
from . import app_passwords, sessions
from .throttle import LoginThrottle, too_many_retries
from .users import User, get_user, user_from_row

REST_NONCE_ACTION = "wp_rest"
# The answers to Basic credentials that count as a failed guess for the login throttle.
GUESS_FAILURES = frozenset({"invalid_username", "invalid_email", "incorrect_password"})


def parse_basic(header: str) -> tuple[str, str] | None:
    """(login, password) from an ``Authorization: Basic ...`` header, or None when it is not one."""
    scheme, _, encoded = header.strip().partition(" ")
    if scheme.lower() != "basic" or not encoded:
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    login, sep, password = decoded.partition(":")
    if not sep:
        return None
    return login, password


def read_cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value.strip().strip('"')
    return None


class SiteAuthenticator:
    """The authenticator the app hands the REST engine."""

    def __init__(self, site: Any) -> None:
        self.site = site
        # The password-guessing throttle, shared with the login page (off by default).
        self.throttle = LoginThrottle(site)

    @property
    def secret(self) -> str:
        return self.site.settings.secret_key

    def authenticate(self, request: RestRequest) -> RestError | None:
        request.user = ANONYMOUS
        header = request.headers.get("authorization")
        if header:
            credentials = parse_basic(header)
            if credentials is not None and self.site.app_passwords_in_use():
                return self._application_password(request, *credentials)

        user, session = self.cookie_user(request)
        nonce = request.query.get("_wpnonce")
        if nonce is None:
            nonce = request.body.get("_wpnonce")
        if nonce is None:
            nonce = request.headers.get("x_wp_nonce")
        if nonce is None:
            return None  # a cookie without a nonce counts as anonymous
        user_id = user.id if user else 0
        token = session.token if session else ""
        if not isinstance(nonce, str) or not sessions.verify_nonce(self.secret, nonce, REST_NONCE_ACTION, user_id, token):
            return RestError("rest_cookie_invalid_nonce", "Cookie check failed", status=403)
        request.user = user or ANONYMOUS
        request.auth = {"method": "cookie", "user_id": user_id, "token": token}
        return None

    def response_headers(self, request: RestRequest) -> dict[str, str]:
        if request.auth.get("method") == "cookie":
            nonce = sessions.create_nonce(self.secret, REST_NONCE_ACTION, request.auth["user_id"], request.auth["token"])
            return {"X-WP-Nonce": nonce}
        return {}

    def cookie_user(self, request: RestRequest) -> tuple[User | None, sessions.Session | None]:
        """The user a valid login cookie names, with its session."""
        cookie_header = request.headers.get("cookie")
        value = read_cookie(cookie_header, sessions.LOGIN_COOKIE) if cookie_header else None
        return self.session_user(value)

    def session_user(self, cookie_value: str | None) -> tuple[User | None, sessions.Session | None]:
        """The user and session a login cookie value proves, or (None, None). Shared by the REST
        authenticator and the HTML pages, so both judge a cookie alike."""
        return session_user(self.site, cookie_value)

    def _application_password(self, request: RestRequest, login: str, password: str) -> RestError | None:
        attempt = self.throttle.check(login, request.remote_addr)
        if attempt.retry_after:
            return too_many_retries(attempt.retry_after)  # refused unchecked, and not counted
        error = self._check_application_password(request, login, password)
        if error is None:
            self.throttle.succeeded(attempt)
        elif error.code in GUESS_FAILURES:
            self.throttle.failed(attempt)
        return error

    def _check_application_password(self, request: RestRequest, login: str, password: str) -> RestError | None:
        row, record = app_passwords.find_user_with_password(self.site, "login", login, password, self.secret)
        if row is None and is_email(login):
            row, record = app_passwords.find_user_with_password(self.site, "email", login, password, self.secret)
        if row is None:
            if is_email(login):
                return RestError(
                    "invalid_email",
                    "<strong>Error:</strong> Unknown email address. Check again or try your username.",
                    status=401,
                )
            return RestError(
                "invalid_username",
                "<strong>Error:</strong> Unknown username. Check again or try your email address.",
                status=401,
            )
        if not self.site.app_passwords_available(self.site.site_url(self.site.options(), request.origin)):
            return RestError("application_passwords_disabled", "Application passwords are not available.", status=401)
        if record is None:
            return RestError("incorrect_password", "The provided password is an invalid application password.", status=401)
        if app_passwords.needs_usage_record(record, request.remote_addr):
            with self.site.write() as conn:
                app_passwords.record_usage(conn, record, request.remote_addr)
        request.user = user_from_row(row)
        request.auth = {"method": "application_password", "uuid": record.uuid}
        return None


def session_user(site: Any, cookie_value: str | None) -> tuple[User | None, sessions.Session | None]:
    """The user and session a login cookie value proves on ``site``, or (None, None)."""
    if not cookie_value:
        return None, None
    parsed = sessions.parse_login_cookie(cookie_value)
    if parsed is None:
        return None, None
    with site.read() as conn:
        user = get_user(conn, parsed[0])
    if user is None:
        return None, None
    session = sessions.verify_login_cookie(site.settings.secret_key, cookie_value, user.password_hash)
    return (user, session) if session else (None, None)


VIEW_NONCE_ACTION = "_view_rest"  # the calendar views' nonces (tvn1, tvn2)


def view_nonces(secret_key: str, user_id: int, token: str) -> dict[str, str]:
    """The nonces every calendar view carries: ``tvn1`` for its user (or a visitor), ``tvn2`` the
    visitor's one for logged-in users (so that cached pages keep working), as the reference."""
    first = sessions.create_nonce(secret_key, VIEW_NONCE_ACTION, user_id, token)
    second = sessions.create_nonce(secret_key, VIEW_NONCE_ACTION, 0, "") if user_id else ""
    return {"tvn1": first, "tvn2": second}


def nonce_user(site: Any, cookie_header: str | None, nonces: list[Any], action: str) -> tuple[User | None, sessions.Session | None]:
    """The cookie's user when one of ``nonces`` is valid for them and ``action`` (the calendar
    views' ``tvn1``/``tvn2``), else (None, None): without a valid nonce a cookie proves nothing."""
    value = read_cookie(cookie_header, sessions.LOGIN_COOKIE) if cookie_header else None
    user, session = session_user(site, value)
    if user is None or session is None:
        return None, None
    secret = site.settings.secret_key
    for nonce in nonces:
        if isinstance(nonce, str) and nonce and sessions.verify_nonce(secret, nonce, action, user.id, session.token):
            return user, session
    return None, None
