"""HTML pages around authentication: home, log in / log out, lost password and reset, a minimal
dashboard that hands out the REST nonce, and the application authorization page the site
description advertises (cms-api.md 6.5), with the reference's approve and reject redirects.

Lost password (the reference's wp-login.php ``lostpassword``, ``rp`` and ``resetpass``): the form
mails a reset link (auth/password_reset.py holds the keys and the throttle) and answers "Check
your email" whether or not the account exists; without SMTP (mail.py) it says mail is not set up
and writes the link to the ``calpress.mail`` log. The link's key moves into a cookie scoped to
``/wp-login.php`` and the browser is sent on without it in the address, as the reference does; the
form carries it back in a hidden field that must match the cookie.
"""

from __future__ import annotations

import html
import re
import secrets
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

import falcon
from jinja2 import Environment, PackageLoader, select_autoescape

from .. import mail
from ..auth import app_passwords, password_reset, sessions
from ..auth.authenticate import REST_NONCE_ACTION
from ..auth.throttle import retry_message
from ..auth.users import User, check_password, get_user_by
from ..compat.formatting import is_uuid
from ..compat.redirect import validate_redirect
from ..rest.request import parse_query

if TYPE_CHECKING:
    from ..app import Calpress

LOGIN_PATH = "/wp-login.php"
ADMIN_PATH = "/wp-admin/"
AUTHORIZE_PATH = "/wp-admin/authorize-application.php"
AUTHORIZE_ACTION = "authorize_application_password"
LOGOUT_ACTION = "log-out"
RESETPASS_COOKIE = "wp-resetpass-calpress"
LOST_PASSWORD_MESSAGE = ("Please enter your username or email address. You will receive an email message with "
                         "instructions on how to reset your password.")
PASSWORD_HINT = ("Hint: The password should be at least twelve characters long. To make it stronger, use upper and "
                 "lower case letters, numbers, and symbols like ! \" ? $ % ^ & ).")
KEY_ERRORS = {
    "invalidkey": "<strong>Error:</strong> Your password reset link appears to be invalid. Please request a new link below.",
    "expiredkey": "<strong>Error:</strong> Your password reset link has expired. Please request a new link below.",
}
MAIL_FAILED = ("<strong>Error:</strong> The email could not be sent. Your site may not be correctly configured to "
               "send emails. Ask the site's administrator to reset your password.")

_templates = Environment(loader=PackageLoader("calpress", "templates"), autoescape=select_autoescape(["html"]))
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


# The pages that handle passwords and sessions may not be framed (clickjacking), as the
# reference's login and admin screens send X-Frame-Options: SAMEORIGIN; the policy also allows
# only this site's own resources, inline styles and the page's own nonce-tagged scripts.
_PUBLIC_TEMPLATES = frozenset({"home.html"})


def security_headers(resp: falcon.Response, nonce: str) -> None:
    resp.set_header("X-Frame-Options", "SAMEORIGIN")
    resp.set_header(
        "Content-Security-Policy",
        f"default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
    )
    resp.set_header("X-Content-Type-Options", "nosniff")
    resp.set_header("Referrer-Policy", "strict-origin-when-cross-origin")


def render(resp: falcon.Response, template: str, status: int = 200, **context: Any) -> None:
    resp.status = falcon.code_to_http_status(status)
    resp.content_type = "text/html; charset=UTF-8"
    resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
    nonce = secrets.token_urlsafe(16)
    if template not in _PUBLIC_TEMPLATES:
        security_headers(resp, nonce)
    resp.text = _templates.get_template(template).render(**context, csp_nonce=nonce)
    if context.get("rest_root"):
        # API discovery on every HTML page, as the reference's rest_output_link_header.
        resp.set_header("Link", f'<{context["rest_root"]}>; rel="https://api.w.org/"')


def add_query_arg(url: str, args: dict[str, str]) -> str:
    """Append already-encoded query args to a URL, keeping any fragment last."""
    base, hash_mark, fragment = url.partition("#")
    joiner = "&" if "?" in base else "?"
    query = "&".join(f"{key}={value}" for key, value in args.items())
    return f"{base}{joiner}{query}{hash_mark}{fragment}"


def redirect_url_error(url: str | None, environment: str) -> tuple[str, str] | None:
    """Why an authorization redirect URL is refused (code, message), or None when it is fine."""
    if not url:
        return None
    if not _SCHEME.match(url):
        return "invalid_redirect_url_format", "Invalid URL format."
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not host or not scheme or scheme in ("javascript", "data"):
        return "invalid_redirect_url_format", "Invalid URL format."
    is_loopback = parts.netloc.split("@")[-1].rsplit(":", 1)[0].lower() in ("127.0.0.1", "[::1]")
    if scheme == "http" and environment != "local" and not is_loopback:
        return "invalid_redirect_scheme", "The URL must be served over a secure connection."
    return None


class Pages:
    def __init__(self, calpress: Calpress) -> None:
        self.calpress = calpress
        self.site = calpress.site
        self.secret = calpress.settings.secret_key

    # -- shared ---------------------------------------------------------------------------------

    def context(self, req: falcon.Request, title: str) -> dict[str, Any]:
        options = self.site.load_options()
        origin = self.calpress.origin(req)
        return {"title": title, "site_name": options["blogname"], "description": options["blogdescription"], "rest_root": origin + "/wp-json/",
                "home_url": self.site.home_url(options, origin).rstrip("/") + "/"}

    def current(self, req: falcon.Request) -> tuple[User | None, sessions.Session | None]:
        return self.calpress.authenticator.session_user(req.cookies.get(sessions.LOGIN_COOKIE))

    def require_login(self, req: falcon.Request, resp: falcon.Response) -> tuple[User, sessions.Session] | None:
        user, session = self.current(req)
        if user is None or session is None:
            target = req.relative_uri
            raise falcon.HTTPFound(f"{LOGIN_PATH}?redirect_to={quote(target, safe='')}&reauth=1")
        return user, session

    def form(self, req: falcon.Request) -> dict[str, Any]:
        length = req.content_length or 0
        raw = req.bounded_stream.read(min(length, 1024 * 1024)) if length else b""
        return parse_query(raw.decode("utf-8", errors="replace"))

    # -- home -----------------------------------------------------------------------------------

    def on_get_home(self, req: falcon.Request, resp: falcon.Response) -> None:
        context = self.context(req, "Home")
        render(resp, "home.html", **context)
        resp.set_header("Cache-Control", "max-age=0")

    # -- login ----------------------------------------------------------------------------------

    def on_get_login(self, req: falcon.Request, resp: falcon.Response) -> None:
        action = req.get_param("action")
        if action in ("lostpassword", "retrievepassword"):
            error = KEY_ERRORS.get(req.get_param("error") or "", "")
            self.show_lostpassword(req, resp, error=error)
            return
        if action in ("rp", "resetpass"):
            self.on_get_resetpass(req, resp)
            return
        if req.get_param("checkemail") == "confirm":
            self.show_lostpassword(req, resp, confirmed=True)
            return
        if action == "logout":
            user, session = self.current(req)
            nonce = req.get_param("_wpnonce") or ""
            if user and session and not sessions.verify_nonce(self.secret, nonce, LOGOUT_ACTION, user.id, session.token):
                message_page(resp, self, req, "Something went wrong.", "Do you really want to log out?", 403)
                return
            resp.unset_cookie(sessions.LOGIN_COOKIE, path="/")
            raise falcon.HTTPFound(f"{LOGIN_PATH}?loggedout=true")
        message = "You are now logged out." if req.get_param("loggedout") else ""
        render(
            resp,
            "login.html",
            **self.context(req, "Log In"),
            action=LOGIN_PATH,
            redirect_to=req.get_param("redirect_to") or ADMIN_PATH,
            login="",
            error="",
            message=message,
        )

    def on_post_login(self, req: falcon.Request, resp: falcon.Response) -> None:
        action = req.get_param("action")
        if action in ("lostpassword", "retrievepassword"):
            self.on_post_lostpassword(req, resp)
            return
        if action in ("rp", "resetpass"):
            self.on_post_resetpass(req, resp)
            return
        fields = self.form(req)
        login = str(fields.get("log", "")).strip()
        password = str(fields.get("pwd", ""))
        redirect_to = str(fields.get("redirect_to") or ADMIN_PATH)
        user = None
        error = ""
        throttle = self.calpress.authenticator.throttle
        attempt = throttle.check(login, req.remote_addr or "") if login and password else None
        if attempt is not None and attempt.retry_after:
            # Refused before the password is looked at, and not counted (auth/throttle.py).
            resp.set_header("Retry-After", str(attempt.retry_after))
            error = f"<strong>Error:</strong> {retry_message(attempt.retry_after)}"
            render(resp, "login.html", 429, **self.context(req, "Log In"), action=LOGIN_PATH, redirect_to=redirect_to, login=login, error=error, message="")
            return
        with self.site.read() as conn:
            user = get_user_by(conn, "login", login) or (get_user_by(conn, "email", login) if "@" in login else None)
        if not login or not password:
            error = "<strong>Error:</strong> The username and password fields are required."
        elif user is None:
            error = f"<strong>Error:</strong> The username <strong>{_escape(login)}</strong> is not registered on this site. If you are unsure of your username, try your email address instead."
        elif not check_password(user, password):
            error = f"<strong>Error:</strong> The password you entered for the username <strong>{_escape(login)}</strong> is incorrect."
        if attempt is not None:
            if error:
                throttle.failed(attempt)
            else:
                throttle.succeeded(attempt)
        if error or user is None:
            render(resp, "login.html", 200, **self.context(req, "Log In"), action=LOGIN_PATH, redirect_to=redirect_to, login=login, error=error, message="")
            return
        origin = self.calpress.origin(req)
        set_login_cookie(resp, self.site, self.secret, user, origin, remember=fields.get("rememberme") == "forever")
        raise falcon.HTTPFound(_local_redirect(redirect_to, (origin, self.site.home_url(self.site.options(), origin))))

    # -- lost password --------------------------------------------------------------------------

    def show_lostpassword(self, req: falcon.Request, resp: falcon.Response, *, error: str = "", login: str = "",
                          confirmed: bool = False, status: int = 200) -> None:
        title = "Check your email" if confirmed else "Lost Password"
        render(
            resp,
            "lostpassword.html",
            status,
            **self.context(req, title),
            action=f"{LOGIN_PATH}?action=lostpassword",
            login_url=LOGIN_PATH,
            message=LOST_PASSWORD_MESSAGE,
            error=error,
            login=login,
            confirmed=confirmed,
            mail_ready=mail.is_configured(self.calpress.settings),
        )

    def on_post_lostpassword(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Mail a reset link to the account named, if there is one and neither it nor the client
        address is throttled; the answer is the same in every such case (a redirect to "Check
        your email"). A mail that fails shows the reference's error."""
        fields = self.form(req)
        given = fields.get("user_login")
        given = given.strip() if isinstance(given, str) else ""
        if not given:
            self.show_lostpassword(req, resp, error="<strong>Error:</strong> Please enter a username or email address.")
            return
        key, user = "", None
        with self.site.write() as conn:
            if password_reset.address_allowed(conn, req.remote_addr or ""):
                found = password_reset.find_account(conn, given)
                if found is not None and password_reset.may_mail_account(conn, found):
                    user, key = found, password_reset.issue(conn, found, self.secret)
        if user is not None:
            try:
                deliver_reset_link(self.calpress, user, key, self.calpress.origin(req), requester_ip=req.remote_addr or "")
            except mail.MailError as err:
                mail.log.error("The password reset email for %s could not be sent: %s", user.login, err)
                self.show_lostpassword(req, resp, error=MAIL_FAILED, login=given)
                return
        raise falcon.HTTPSeeOther(f"{LOGIN_PATH}?checkemail=confirm")

    def _reset_cookie(self, req: falcon.Request) -> tuple[str, str]:
        """(login, key) from the reset cookie, or ("", "")."""
        value = req.cookies.get(RESETPASS_COOKIE) or ""
        login, sep, key = value.partition(":")
        return (unquote(login), key) if sep and login else ("", "")

    def _set_reset_cookie(self, req: falcon.Request, resp: falcon.Response, value: str, *, clear: bool = False) -> None:
        if clear:
            resp.unset_cookie(RESETPASS_COOKIE, path=LOGIN_PATH)
            return
        resp.set_cookie(RESETPASS_COOKIE, value, path=LOGIN_PATH, secure=self.calpress.origin(req).startswith("https://"),
                        http_only=True, same_site="Lax")

    def _reset_user(self, req: falcon.Request, resp: falcon.Response, posted_key: str | None = None) -> tuple[User, str, str] | None:
        """The account the reset cookie's key opens (with its login and key); else the cookie is
        dropped and the browser sent back to the lost password form with the reference's error."""
        login, key = self._reset_cookie(req)
        user, problem = None, password_reset.INVALID
        if login and key:
            with self.site.read() as conn:
                user, problem = password_reset.check(conn, login, key, self.secret)
            if user is not None and posted_key is not None and not secrets.compare_digest(
                    posted_key.encode(), key.encode()):
                user, problem = None, password_reset.INVALID
        if user is None:
            self._refuse_key(req, resp, problem)
            return None
        return user, login, key

    def _refuse_key(self, req: falcon.Request, resp: falcon.Response, problem: str) -> None:
        self._set_reset_cookie(req, resp, "", clear=True)
        error = "expiredkey" if problem == password_reset.EXPIRED else "invalidkey"
        resp.status = falcon.HTTP_302
        resp.content_type = "text/html; charset=UTF-8"  # a redirect, not Falcon's default JSON
        resp.set_header("Location", f"{LOGIN_PATH}?action=lostpassword&error={error}")
        resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")

    def on_get_resetpass(self, req: falcon.Request, resp: falcon.Response) -> None:
        key, login = req.get_param("key"), req.get_param("login")
        if key is not None and login is not None:
            # The key leaves the address (history, Referer) for a cookie of this page only; only
            # its letters and digits count (password_reset.check), so only those are kept.
            key = "".join(ch for ch in key if ch.isascii() and ch.isalnum())[:64]
            self._set_reset_cookie(req, resp, f"{quote(login[:200], safe='')}:{key}")
            resp.status = falcon.HTTP_302
            resp.content_type = "text/html; charset=UTF-8"
            resp.set_header("Location", f"{LOGIN_PATH}?action=rp")
            resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
            return
        found = self._reset_user(req, resp)
        if found is not None:
            self.show_resetpass(req, resp, found[1], found[2])

    def show_resetpass(self, req: falcon.Request, resp: falcon.Response, login: str, key: str, *, error: str = "") -> None:
        render(
            resp,
            "resetpass.html",
            **self.context(req, "Reset Password"),
            action=f"{LOGIN_PATH}?action=resetpass",
            login_url=LOGIN_PATH,
            user_login=login,
            rp_key=key,
            error=error,
            hint=PASSWORD_HINT,
        )

    def on_post_resetpass(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Set the new password (the reference's checks: not all spaces, both fields equal), drop
        the key and the cookie; the account's login sessions end with the old password hash."""
        fields = self.form(req)
        posted = fields.get("rp_key")
        found = self._reset_user(req, resp, posted if isinstance(posted, str) else "")
        if found is None:
            return
        _, login, key = found
        pass1, pass2 = fields.get("pass1"), fields.get("pass2")
        pass1 = pass1.strip() if isinstance(pass1, str) else ""
        pass2 = pass2.strip() if isinstance(pass2, str) else ""
        error = ""
        if not pass1:
            given = fields.get("pass1")
            error = ("The password cannot be a space or all spaces." if isinstance(given, str) and given
                     else "<strong>Error:</strong> Please enter a password.")
        elif pass1 != pass2:
            error = "<strong>Error:</strong> The passwords do not match."
        if error:
            self.show_resetpass(req, resp, login, key, error=error)
            return
        with self.site.write() as conn:
            # Checked again inside the write: a key used meanwhile is invalid now (used once).
            current, problem = password_reset.check(conn, login, key, self.secret)
            if current is not None:
                password_reset.reset(conn, current, pass1)
        if current is None:
            self._refuse_key(req, resp, problem)
            return
        self._set_reset_cookie(req, resp, "", clear=True)
        render(resp, "lostpassword.html", **self.context(req, "Password Reset"), reset_done=True, login_url=LOGIN_PATH,
               action="", message="", error="", login="", confirmed=False, mail_ready=True)

    # -- dashboard and nonce --------------------------------------------------------------------

    def on_get_admin_root(self, req: falcon.Request, resp: falcon.Response) -> None:
        """``/wp-admin`` without its slash: the dashboard's address (admin/)."""
        raise falcon.HTTPMovedPermanently(ADMIN_PATH + (f"?{req.query_string}" if req.query_string else ""))

    def on_get_ajax(self, req: falcon.Request, resp: falcon.Response) -> None:
        """``admin-ajax.php?action=rest-nonce``: a fresh REST nonce for the logged-in user."""
        user, session = self.current(req)
        resp.content_type = "text/plain; charset=UTF-8"
        resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
        if req.get_param("action") != "rest-nonce" or user is None or session is None:
            resp.status = falcon.HTTP_400
            resp.text = "0"
            return
        resp.text = sessions.create_nonce(self.secret, REST_NONCE_ACTION, user.id, session.token)

    # -- application authorization --------------------------------------------------------------

    def authorize_request(self, values: dict[str, Any]) -> dict[str, Any]:
        app_name = str(values.get("app_name") or "")
        app_id = str(values.get("app_id") or "")
        success_url = str(values.get("success_url") or "") or None
        if values.get("reject_url"):
            reject_url: str | None = str(values["reject_url"])
        elif success_url:
            reject_url = add_query_arg(success_url, {"success": "false"})
        else:
            reject_url = None
        return {"app_name": app_name, "app_id": app_id, "success_url": success_url, "reject_url": reject_url}

    def authorize_errors(self, request: dict[str, Any]) -> list[str]:
        environment = self.calpress.settings.environment
        messages = []
        for key in ("success_url", "reject_url"):
            problem = redirect_url_error(request[key], environment)
            if problem:
                messages.append(problem[1])
        if request["app_id"] and not is_uuid(request["app_id"]):
            messages.append("The application ID must be a UUID.")
        return messages

    def on_get_authorize(self, req: falcon.Request, resp: falcon.Response) -> None:
        user, session = self.require_login(req, resp)  # type: ignore[misc]
        request = self.authorize_request(req.params)
        self.show_authorize(req, resp, user, session, request)

    def show_authorize(self, req: falcon.Request, resp: falcon.Response, user: User, session: sessions.Session, request: dict[str, Any], *, error: str = "", new_password: str = "") -> None:
        problems = self.authorize_errors(request)
        if problems:
            message_page(resp, self, req, "Cannot Authorize Application", "The Authorize Application request is not allowed. " + " ".join(problems), 400)
            return
        if not self.site.app_passwords_available(self.site.site_url() or self.calpress.origin(req)):
            link = add_query_arg(request["reject_url"], {"error": "disabled"}) if request["reject_url"] else ADMIN_PATH
            message_page(resp, self, req, "Cannot Authorize Application", "Application passwords are not available.", 501, link_url=link, link_text="Go Back")
            return
        success_display = (request["success_url"] or "").split("?", 1)[0]
        render(
            resp,
            "authorize.html",
            **self.context(req, "Authorize Application"),
            action=AUTHORIZE_PATH,
            form_nonce=sessions.create_nonce(self.secret, AUTHORIZE_ACTION, user.id, session.token),
            success_url_display=success_display,
            error=error,
            new_password=new_password,
            **request,
        )

    def on_post_authorize(self, req: falcon.Request, resp: falcon.Response) -> None:
        user, session = self.require_login(req, resp)  # type: ignore[misc]
        fields = self.form(req)
        request = self.authorize_request(fields)
        if fields.get("action") != AUTHORIZE_ACTION or not sessions.verify_nonce(
            self.secret, str(fields.get("_wpnonce") or ""), AUTHORIZE_ACTION, user.id, session.token
        ):
            message_page(resp, self, req, "Something went wrong.", "The link you followed has expired.", 403)
            return
        problems = self.authorize_errors(request)
        if problems:
            message_page(resp, self, req, "Cannot Authorize Application", "The Authorize Application request is not allowed. " + " ".join(problems), 400)
            return
        if "reject" in fields:
            raise falcon.HTTPFound(request["reject_url"] or ADMIN_PATH)
        if "approve" not in fields:
            self.show_authorize(req, resp, user, session, request)
            return
        name = request["app_name"].strip()
        if not name:
            self.show_authorize(req, resp, user, session, request, error="An application name is required to create an application password.")
            return
        with self.site.write() as conn:
            _, raw = app_passwords.create(conn, user.id, name, self.secret, request["app_id"])
        self.site.mark_app_passwords_in_use()
        if request["success_url"]:
            site_url = self.site.site_url() or self.calpress.origin(req)
            target = add_query_arg(
                request["success_url"],
                {
                    "site_url": quote(site_url, safe=""),
                    "user_login": quote(user.login, safe=""),
                    "password": quote(raw, safe=""),
                },
            )
            raise falcon.HTTPFound(target)
        self.show_authorize(req, resp, user, session, request, new_password=app_passwords.chunk_password(raw))


def deliver_reset_link(calpress: Calpress, user: User, key: str, origin: str, *, requester_ip: str = "",
                       by_administrator: bool = False) -> bool:
    """Mail ``user`` the reset link of ``key`` (built on the site address, else ``origin``);
    True when mailed. Without SMTP the link goes to the ``calpress.mail`` log (warning) for the
    administrator, and False is returned. Raises mail.MailError when sending fails."""
    site = calpress.site
    options = site.load_options()
    link = password_reset.reset_link(site.site_url(options, origin), key, user.login)
    if not mail.is_configured(calpress.settings):
        mail.log.warning("Mail is not set up (CALPRESS_SMTP_URL is empty), so this password reset link for %s was "
                         "not emailed: %s", user.login, link)
        return False
    if not user.email:
        raise mail.MailError(f"The user {user.login} has no email address.")
    message = password_reset.reset_mail(html.unescape(str(options.get("blogname") or "")), user.login, link,
                                        requester_ip=requester_ip, by_administrator=by_administrator)
    mail.send(calpress.settings, user.email, message.subject, message.body, home=site.home_url(options, origin))
    return True


def set_login_cookie(resp: falcon.Response, site: Any, secret: str, user: User, origin: str, *, remember: bool,
                     now: float | None = None) -> None:
    """Log ``user`` in on this browser: the signed login cookie, HttpOnly and SameSite=Lax, Secure
    when the request or the site's address is https (a proxy may end TLS in front)."""
    now = time.time() if now is None else now
    cookie, expiration = sessions.make_login_cookie(secret, user.id, user.password_hash, remember=remember, now=now)
    secure = origin.startswith("https://") or site.site_url(site.options(), origin).startswith("https://")
    resp.set_cookie(sessions.LOGIN_COOKIE, cookie, max_age=expiration - int(now), path="/", secure=secure,
                    http_only=True, same_site="Lax")


def message_page(resp: falcon.Response, pages: Pages, req: falcon.Request, title: str, message: str, status: int, *, link_url: str = "", link_text: str = "") -> None:
    context = pages.context(req, title)
    render(resp, "message.html", status, **context, message=message, link_url=link_url, link_text=link_text)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _local_redirect(target: str, site_addresses: tuple[str, ...]) -> str:
    """Only same-site redirects after login, as the reference's wp_safe_redirect: the target is
    cleaned as a browser-proof URL (backslashes, whitespace and control characters dropped,
    ``//host`` read as a host) and kept only when it stays on one of ``site_addresses``' hosts;
    anything else goes to the dashboard."""
    hosts = tuple(urlsplit(address).hostname or "" for address in site_addresses)
    return validate_redirect(target, ADMIN_PATH, hosts)
