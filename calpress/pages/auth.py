"""HTML pages around authentication: home, log in / log out, a minimal dashboard that hands out the
REST nonce, and the application authorization page the site description advertises
(cms-api.md 6.5), with the reference's approve and reject redirects.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import falcon
from jinja2 import Environment, PackageLoader, select_autoescape

from ..auth import app_passwords, sessions
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
        return {"title": title, "site_name": options["blogname"], "description": options["blogdescription"], "rest_root": origin + "/wp-json/"}

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
        if req.get_param("action") == "logout":
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
        cookie, expiration = sessions.make_login_cookie(
            self.secret, user.id, user.password_hash, remember=fields.get("rememberme") == "forever"
        )
        # Secure when the request or the site's address is https (a proxy may end TLS in front).
        origin = self.calpress.origin(req)
        secure = origin.startswith("https://") or self.site.site_url(self.site.options(), origin).startswith("https://")
        resp.set_cookie(
            sessions.LOGIN_COOKIE,
            cookie,
            max_age=expiration - int(time.time()),
            path="/",
            secure=secure,
            http_only=True,
            same_site="Lax",
        )
        raise falcon.HTTPFound(_local_redirect(redirect_to, (origin, self.site.home_url(self.site.options(), origin))))

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
