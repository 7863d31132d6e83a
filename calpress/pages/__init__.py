"""The public site's pages (HTML, and the few documents that are not REST answers), in one table.

Both paths of the WSGI app read it (app.py): Falcon's routes and sinks are built from it, and
the fast REST path hands a request to Falcon exactly when the table matches its path. Each row
names its page, its path (exact, or a prefix for a family of pages), its Falcon resource and,
for ``calpress routes``, its methods.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import falcon

from .. import admin
from . import auth, comment_form, discovery, metrics, openapi, probes, site, uploads

if TYPE_CHECKING:
    from ..app import Calpress


@dataclass(frozen=True)
class Page:
    """One row of the table. ``prefix``: every path under ``path`` (a sink); ``html_only``: only
    for clients that prefer HTML (the site root, which answers REST clients with the site
    description); ``suffix``: the resource's responder suffix (``on_get_<suffix>``);
    ``any_method``: a prefix page that answers every method as GET (the reference serves a public
    page whatever the method)."""

    name: str
    path: str
    resource: Any
    suffix: str | None = None
    prefix: bool = False
    html_only: bool = False
    any_method: bool = False

    @property
    def methods(self) -> list[str]:
        """The methods the page answers (its resource's responders)."""
        if self.any_method:
            return ["*"]
        tail = f"_{self.suffix}" if self.suffix else ""
        return [m for m in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE") if hasattr(self.resource, f"on_{m.lower()}{tail}")]


class PageTable:
    """The pages, matched by path; ``install`` builds the Falcon routes from the same rows."""

    def __init__(self, pages: list[Page], fallback: Any = None) -> None:
        self.pages = pages
        # The resource of every other path that is not a REST address (the public site).
        self.fallback = fallback
        self._prefixes = [page for page in pages if page.prefix]
        # Exact paths, the bare paths of prefix pages among them; then the prefixes as one tuple,
        # so that a REST path (nearly every request) costs one dict lookup and one startswith.
        self._exact = {page.path: page for page in pages}
        self._starts = tuple(page.path + "/" for page in self._prefixes)

    def match(self, path: str, *, prefers_html: bool = False) -> Page | None:
        """The page that answers ``path``, or None (a REST path). A page only for browsers
        (``html_only``) matches when ``prefers_html``."""
        page = self._exact.get(path)
        if page is not None:
            return page if (prefers_html or not page.html_only) else None
        if path.startswith(self._starts):
            for start, candidate in zip(self._starts, self._prefixes):
                if path.startswith(start):
                    return candidate
        return None

    def needs_accept(self, path: str) -> bool:
        """Whether ``path`` is a page only for clients that prefer HTML (so the app reads Accept)."""
        page = self._exact.get(path)
        return page is not None and page.html_only

    def install(self, app: falcon.App) -> None:
        if self.fallback is not None:  # added first: Falcon tries the sinks added last first
            app.add_sink(_sink(self.fallback, True), "/")
        for page in self._prefixes:
            app.add_sink(_sink(page.resource, page.any_method), page.path)
        for page in self.pages:
            if page.prefix:
                continue
            if page.suffix:
                app.add_route(page.path, page.resource, suffix=page.suffix)
            else:
                app.add_route(page.path, page.resource)

    def __iter__(self) -> Iterator[Page]:
        """Every row, the fallback last (``calpress routes`` lists it as ``/...``)."""
        yield from self.pages
        if self.fallback is not None:
            yield Page("site", "", self.fallback, prefix=True, any_method=True)


def _sink(resource: Any, any_method: bool) -> Any:
    def sink(req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        responder = getattr(resource, "on_" + req.method.lower(), resource.on_get if any_method else None)
        if responder is None:
            raise falcon.HTTPMethodNotAllowed([m for m in ("GET", "HEAD") if hasattr(resource, "on_" + m.lower())])
        responder(req, resp)

    return sink


def build_pages(calpress: Calpress) -> PageTable:
    """Every page of the site, with the resources of this app."""
    account = auth.Pages(calpress)
    public = site.PublicSite(calpress)
    workspace = admin.build_workspace(calpress)
    calpress.admin_files = frozenset(workspace.files())
    rows = [
        Page("home", "/", public, html_only=True),
        Page("login", auth.LOGIN_PATH, account, suffix="login"),
        Page("admin", "/wp-admin", account, suffix="admin_root"),
        Page("admin-index", auth.ADMIN_PATH, workspace),
        *(Page(f"admin-screen-{file.removesuffix('.php')}", auth.ADMIN_PATH + file, workspace) for file in workspace.files()),
        Page("admin-assets", admin.ASSETS_PATH, admin.AdminAssets(), prefix=True),
        Page("rest-nonce", "/wp-admin/admin-ajax.php", account, suffix="ajax"),
        Page("authorize-application", auth.AUTHORIZE_PATH, account, suffix="authorize"),
        Page("openapi", "/openapi.json", openapi.OpenApiDocument(calpress)),
        Page("comments-post", comment_form.COMMENTS_POST_PATH, comment_form.CommentPost(public)),
        *(
            Page(f"calendar-{prefix.strip('/')}", prefix.rstrip("/"), public, prefix=True, any_method=True)
            for prefix in discovery.PAGE_PREFIXES
        ),
        Page("uploads", uploads.PREFIX, uploads.UploadsResource(calpress.site), prefix=True),
        Page("assets", site.STATIC_PATH, site.StaticAssets(), prefix=True),
        Page("healthz", probes.HEALTH_PATH, probes.Liveness()),
        Page("readyz", probes.READY_PATH, probes.Readiness(calpress.site)),
        # Only with metrics on: off, /metrics is an address of the public site like any other.
        *([Page("metrics", metrics.METRICS_PATH, metrics.MetricsPage(calpress, public))]
          if calpress.settings.metrics == "on" else []),
    ]
    return PageTable(rows, fallback=public)
