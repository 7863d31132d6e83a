"""The workspace's shell: who may open a screen, the request a screen works with, and the page
around every screen (menu, admin bar, notices, headers).

One Falcon resource (:class:`Workspace`) answers every ``/wp-admin/<file>.php`` address: it finds
the screen registered for the file (``admin/__init__.py`` lists them), sends a visitor without a
login cookie to ``/wp-login.php?redirect_to=...``, answers WordPress's "Sorry, you are not
allowed to access this page." (403) to a user without the screen's capability, and otherwise hands
the screen an :class:`AdminRequest`. A screen reads and changes through ``r.api`` (the REST engine
in process as the user), checks the form's nonce with ``r.verify(action)`` before any change, and
ends a change with ``r.redirect(url, notice)`` (post/redirect/get: the notice rides in the query,
as WordPress's ``message=6``).

Every admin page may not be framed (``X-Frame-Options: DENY``), runs only this site's scripts and
those tagged with the page's nonce (CSP), and is never cached.
"""

from __future__ import annotations

import html
import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import falcon
from jinja2 import Environment, PackageLoader, select_autoescape

from ..auth import sessions
from ..auth.authenticate import REST_NONCE_ACTION
from ..content.items import Context
from ..rest import multipart
from ..rest.errors import RestError
from ..rest.request import parse_query, read_chunks
from .api import AdminApi
from .assets import asset_url, installed
from .values import number

if TYPE_CHECKING:
    from ..app import Calpress

__all__ = ["ADMIN", "AdminRequest", "Forbidden", "Screen", "Workspace", "templates"]

ADMIN = "/wp-admin/"
LOGIN = "/wp-login.php"
LOGOUT_ACTION = "log-out"
NOT_ALLOWED = "Sorry, you are not allowed to access this page."
EXPIRED = "The link you followed has expired."
FORM_BYTES = 2 * 1024 * 1024  # a form without files (the event editor's is a few KB)
PER_PAGE_DEFAULT, PER_PAGE_MAX = 20, 100  # a list's items per page (the REST collections' own limit)

templates = Environment(loader=PackageLoader("calpress", "templates"), autoescape=select_autoescape(["html"]),
                        trim_blocks=True, lstrip_blocks=True)
templates.globals.update(asset=asset_url, installed=installed)


class Forbidden(Exception):
    """Stop a screen with WordPress's wp_die page: 403 and ``message`` (``title`` above it)."""

    def __init__(self, message: str = NOT_ALLOWED, status: int = 403, title: str = "") -> None:
        super().__init__(message)
        self.message, self.status, self.title = message, status, title


class Screen:
    """One admin screen, named by its WordPress file (``edit.php``). ``capability`` is what
    opening it needs; :meth:`required` may decide it from the request (``edit.php?post_type=page``
    needs ``edit_pages``). ``get`` shows it; ``post`` takes its form (none: 405)."""

    file: str = ""
    capability: str = "read"
    refusal: str = NOT_ALLOWED  # what a user without the capability is told (403)

    def required(self, r: AdminRequest) -> str:
        return self.capability

    def get(self, r: AdminRequest) -> None:
        raise NotImplementedError

    post: Callable[[AdminRequest], None] | None = None


@dataclass
class Notice:
    text: str
    kind: str = "success"  # success, error, warning, info
    link: str = ""
    link_text: str = ""


@dataclass
class AdminRequest:
    """What a screen works with: the user and session, the REST engine as that user, the form,
    nonces, links, and rendering inside the workspace's page."""

    calpress: Calpress
    req: falcon.Request
    resp: falcon.Response
    user: Any
    session: sessions.Session
    screen: Screen
    origin: str
    notices: list[Notice] = field(default_factory=list)
    post_type: str = ""  # the content type the screen shows (the menu lights its entry)
    _form: dict[str, Any] | None = None
    _files: multipart.Form | None = None
    _ctx: Context | None = None

    @property
    def api(self) -> AdminApi:
        return AdminApi(self.calpress, self.user, self.origin)

    @property
    def site(self) -> Any:
        return self.calpress.site

    @property
    def ctx(self) -> Context:
        if self._ctx is None:
            self._ctx = Context.of(self.site, user=self.user, home=self.origin)
        return self._ctx

    def can(self, capability: str, *args: Any) -> bool:
        return bool(self.user.can(capability, *args))

    def param(self, name: str, default: str = "") -> str:
        value = self.req.get_param(name)
        return default if value is None else str(value)

    # -- forms and nonces ---------------------------------------------------------------------

    @property
    def form(self) -> dict[str, Any]:
        """The posted fields (PHP's form rules: ``tax_input[category][]`` is a nested list), line
        breaks as LF: a browser sends a textarea's as CRLF (the HTML rule), and what is stored
        keeps the LF the user's text, or the block editor, had."""
        if self._form is None:
            content_type = self.req.content_type or ""
            if multipart.is_multipart(content_type):
                self._files = self._read_multipart(content_type)
                self._form = parse_query(self._files.query_string())
            else:
                length = min(self.req.content_length or 0, FORM_BYTES + 1)
                raw = self.req.bounded_stream.read(length) if length else b""
                if len(raw) > FORM_BYTES:
                    raise Forbidden("The form is too large.", 413)
                self._form = parse_query(raw.decode("utf-8", errors="replace"))
            self._form = _lf(self._form)
        return self._form

    def _read_multipart(self, content_type: str) -> multipart.Form:
        """A form with files (uploads), read as it arrives, never past the upload limit."""
        limit = self.calpress.settings.max_upload

        def too_large(size: int) -> RestError:
            return RestError("rest_request_too_large", f"Uploads may be {size:,} bytes at most.", status=413)

        try:
            return multipart.read_form(read_chunks(self.req.bounded_stream, self.req.content_length, limit, too_large),
                                       content_type)
        except RestError as err:
            raise Forbidden(err.message, err.status or 400, "The upload could not be read.") from None

    @property
    def files(self) -> dict[str, list[Any]]:
        """The files of a multipart form, by field name."""
        self.form  # noqa: B018 - reads the body
        return self._files.files if self._files is not None else {}

    def close(self) -> None:
        if self._files is not None:
            self._files.close()

    def field(self, name: str, default: str = "") -> str:
        value = self.form.get(name)
        if isinstance(value, list):
            value = value[-1] if value else None
        return default if value is None else str(value)

    # -- the user's screen preferences (WordPress's user options: items per page, view mode) -----

    def preference(self, key: str, default: Any = None) -> Any:
        return (self.user.meta or {}).get(key, default)

    def remember(self, **values: Any) -> None:
        """Keep screen preferences in the user's meta (written only when they change)."""
        meta = dict(self.user.meta or {})
        if all(meta.get(key) == value for key, value in values.items()):
            return
        from ..auth import users as user_store

        with self.site.write() as conn:
            self.user = user_store.update_user(conn, self.user.id, {"meta": {**meta, **values}})

    def per_page(self, key: str) -> int:
        """The items a list shows per page for this user (Screen Options), 1 to 100, default 20."""
        return max(1, min(PER_PAGE_MAX, number(self.preference(key), PER_PAGE_DEFAULT)))

    def take_screen_options(self, key: str) -> bool:
        """When the form posted is Screen Options: check its nonce, keep its items per page under
        ``key`` and say so (the caller redirects back)."""
        if not self.field("screen_options"):
            return False
        self.verify("screen-options")
        self.remember(**{key: max(1, min(PER_PAGE_MAX, number(self.field("per_page"), PER_PAGE_DEFAULT)))})
        return True

    def nonce(self, action: str) -> str:
        return sessions.create_nonce(self.calpress.settings.secret_key, action, self.user.id, self.session.token)

    def verify(self, action: str) -> None:
        """The request's ``_wpnonce`` (form or query) must be this user's for ``action``, else 403
        "The link you followed has expired." (as check_admin_referer)."""
        given = self.form.get("_wpnonce") if self.req.method == "POST" else None
        given = given if given is not None else self.req.get_param("_wpnonce")
        if not isinstance(given, str) or not sessions.verify_nonce(
                self.calpress.settings.secret_key, given, action, self.user.id, self.session.token):
            raise Forbidden(EXPIRED, 403, "Something went wrong.")

    # -- links and answers ---------------------------------------------------------------------

    @staticmethod
    def url(file: str, **query: Any) -> str:
        """``/wp-admin/<file>?<query>`` (None values left out)."""
        args = {key: value for key, value in query.items() if value is not None and value != ""}
        return ADMIN + file + ("?" + urlencode(args, doseq=True) if args else "")

    def redirect(self, url: str) -> None:
        """303 See Other to ``url`` (after a change: the notice is in its query)."""
        raise falcon.HTTPSeeOther(url)

    def notice(self, text: str, kind: str = "success", link: str = "", link_text: str = "") -> None:
        self.notices.append(Notice(text, kind, link, link_text))

    def render(self, template: str, code: int = 200, *, title: str, **context: Any) -> None:
        resp = self.resp
        resp.status = falcon.code_to_http_status(code)
        resp.content_type = "text/html; charset=UTF-8"
        nonce = secrets.token_urlsafe(16)
        _headers(resp, nonce, evaluates=bool(context.get("block_editor")))
        from .menu import admin_bar, menu_for

        resp.text = templates.get_template(template).render(
            r=self, title=title, csp_nonce=nonce, menu=menu_for(self), bar=admin_bar(self),
            site_name=html.unescape(str(self.site.load_options().get("blogname") or "")), **context)

    def json(self, data: Any, code: int = 200) -> None:
        """Answer a script of the workspace's own pages with JSON (never cached)."""
        self.resp.status = falcon.code_to_http_status(code)
        self.resp.content_type = "application/json; charset=UTF-8"
        _headers(self.resp, secrets.token_urlsafe(16))
        self.resp.text = json.dumps(data)

    @property
    def logout_url(self) -> str:
        return f"{LOGIN}?action=logout&_wpnonce={self.nonce(LOGOUT_ACTION)}"

    @property
    def api_settings(self) -> dict[str, str]:
        """What wp-admin gives its scripts for the REST API (wpApiSettings), cookie clients' nonce."""
        return {"root": self.origin + "/wp-json/", "nonce": self.nonce(REST_NONCE_ACTION), "versionString": "cms/v2/"}


def _lf(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\r\n", "\n")
    if isinstance(value, dict):
        return {key: _lf(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_lf(item) for item in value]
    return value


EVAL = " 'unsafe-eval'"


def _headers(resp: falcon.Response, nonce: str, evaluates: bool = False) -> None:
    """The headers of every workspace answer. ``evaluates``: the page runs the block editor, whose
    build compiles a function from a string when it loads (``new Function``), so its script
    policy adds ``'unsafe-eval'``; every other page keeps it out."""
    resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
    resp.set_header("X-Frame-Options", "DENY")
    resp.set_header("X-Content-Type-Options", "nosniff")
    resp.set_header("Referrer-Policy", "strict-origin-when-cross-origin")
    resp.set_header(
        "Content-Security-Policy",
        f"default-src 'self'; script-src 'self' 'nonce-{nonce}'{EVAL if evaluates else ''}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data: blob: https:; media-src 'self' https:; object-src 'none'; base-uri 'self'; "
        "form-action 'self'; frame-ancestors 'none'",
    )


class Workspace:
    """The Falcon resource of every admin screen."""

    def __init__(self, calpress: Calpress, screens: Iterable[Screen]) -> None:
        self.calpress = calpress
        self.screens = {screen.file: screen for screen in screens}

    def files(self) -> list[str]:
        return list(self.screens)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._serve(req, resp, "get")

    def on_head(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._serve(req, resp, "get")
        resp.text = None

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._serve(req, resp, "post")

    def _screen_of(self, path: str) -> Screen | None:
        name = path[len(ADMIN):] if path.startswith(ADMIN) else ""
        return self.screens.get(name or "index.php")

    def _serve(self, req: falcon.Request, resp: falcon.Response, method: str) -> None:
        screen = self._screen_of(req.path)
        if screen is None:
            raise falcon.HTTPNotFound()
        user, session = self.calpress.authenticator.session_user(req.cookies.get(sessions.LOGIN_COOKIE))
        if user is None or session is None:
            raise falcon.HTTPFound(f"{LOGIN}?redirect_to={quote(req.relative_uri, safe='')}&reauth=1")
        r = AdminRequest(self.calpress, req, resp, user, session, screen, self.calpress.origin(req))
        try:
            if not r.can(screen.required(r)):
                raise Forbidden(screen.refusal)
            handler = screen.get if method == "get" else screen.post
            if handler is None:
                raise falcon.HTTPMethodNotAllowed(["GET", "HEAD"])
            handler(r)
        except Forbidden as refused:
            r.render("admin/die.html", refused.status, title=refused.title or "Error", message=refused.message)
        finally:
            r.close()
