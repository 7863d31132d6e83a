"""The calendar API's discovery on public pages (calendar-api.md 9.1): every HTML page says where
the calendar's REST root is, in headers (``X-TEC-API-VERSION``, ``X-TEC-API-ROOT``,
``X-TEC-API-ORIGIN``) and in the page head. The root points at what the page shows: an event,
a category or tag listing, a venue's events, or the namespace root elsewhere.

The pages themselves are minimal for now (the calendar views come with their own issue): a
title, the dates of an event, and the discovery tags. The home page (pages/auth.py renders it)
carries the same headers. REST addresses are built from the route registry's names.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import falcon

from ..calendar import events as cal
from ..content import items as item_service
from ..content import permissions
from ..content import terms as term_store
from ..rest.registry import Registry
from ..rest.urls import rest_url

if TYPE_CHECKING:
    from ..app import Calpress
    from .auth import Pages

API_VERSION = "v1"
DISABLED_OPTION = "rest-v1-disabled"
REST_PREFIX = "/wp-json"
# Path prefixes of the public calendar pages (the types' and taxonomies' permalink bases).
PAGE_PREFIXES = ("/event/", "/events/", "/venue/", "/organizer/", "/tag/")


def discovery_headers(site: Any, routes: Registry, origin: str, root: str | None = None) -> dict[str, str]:
    """The headers for a public page; ``root`` defaults to the namespace root."""
    options = site.options()
    if options.get(DISABLED_OPTION) in (True, 1, "1", "yes", "true"):
        return {"X-TEC-API-VERSION": "disabled"}
    rest = _url(routes, origin, "cal.index", slash=True)
    return {
        "X-TEC-API-VERSION": API_VERSION,
        "X-TEC-API-ROOT": root or rest,
        "X-TEC-API-ORIGIN": str(options.get("home") or origin).rstrip("/"),
    }


def _url(routes: Registry, origin: str, name: str, query: Any = None, *, slash: bool = False, **params: Any) -> str:
    """A REST address under ``/wp-json`` (the calendar's discovery names that form)."""
    return rest_url(origin + REST_PREFIX, routes.path(name, **params) + ("/" if slash else ""), query)


def _root_for(site: Any, routes: Registry, origin: str, path: str) -> tuple[str | None, str, str]:
    """(API root or None for the namespace root, page title, page body HTML) of a public path;
    raises HTTPNotFound for an unknown item."""

    def events(query: dict[str, Any]) -> str:
        return _url(routes, origin, "cal.events", query, slash=True)

    parts = [p for p in path.strip("/").split("/") if p]
    visitor = item_service.Context.of(site, home=origin)  # the pages are served to anonymous visitors
    with site.read() as conn:
        if len(parts) == 2 and parts[0] in ("event", "venue", "organizer"):
            content_type = {"event": cal.EVENT_TYPE, "venue": cal.VENUE_TYPE, "organizer": cal.ORGANIZER_TYPE}[parts[0]]
            item_id = cal.slug_to_id(conn, content_type, parts[1])
            item = item_service.get_item(conn, item_id) if item_id else None
            if item is None or not permissions.can_read(visitor, item) or not permissions.password_open(visitor, item, None):
                raise falcon.HTTPNotFound()
            body = ""
            if content_type == cal.EVENT_TYPE:
                row = cal.get_event_row(conn, item.id)
                if row is not None:
                    body = f"<p>{cal.db_datetime(row.start_local)} – {cal.db_datetime(row.end_local)}</p>"
                return _url(routes, origin, "cal.events.item", id=item.id), item.title, body
            if content_type == cal.VENUE_TYPE:
                return events({"venue": item.id}), item.title, body
            return events({"organizer": item.id}), item.title, body
        if len(parts) >= 3 and parts[0] == "events" and parts[1] == "category":
            term = term_store.get_term_by_slug(conn, cal.CATEGORY_TAXONOMY, parts[-1])
            if term is None:
                raise falcon.HTTPNotFound()
            return events({"categories": term.slug}), term.name, ""
        if len(parts) == 2 and parts[0] == "tag":
            term = term_store.get_term_by_slug(conn, "post_tag", parts[1])
            if term is None:
                raise falcon.HTTPNotFound()
            return events({"tags": term.slug}), term.name, ""
        if parts == ["events"]:
            return None, "Events", ""
        if parts == ["events", "featured"]:
            return events({"featured": 1}), "Featured events", ""
    raise falcon.HTTPNotFound()


class PublicPages:
    """The public calendar pages (events, venues, organizers, categories, tags): GET and HEAD."""

    def __init__(self, calpress: Calpress) -> None:
        self.calpress = calpress

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        site, routes, origin = self.calpress.site, self.calpress.api.registry, self.calpress.origin(req)
        try:
            root, title, body = _root_for(site, routes, origin, req.path)
        except falcon.HTTPNotFound:
            root, title, body = None, "Page not found", "<p>Nothing was found at this address.</p>"
            resp.status = falcon.HTTP_404
        headers = discovery_headers(site, routes, origin, root)
        for name, value in headers.items():
            resp.set_header(name, value)
        head = [f'<meta name="tec-api-version" content="{html.escape(headers["X-TEC-API-VERSION"])}">']
        if "X-TEC-API-ROOT" in headers:
            head.append(f'<meta name="tec-api-origin" content="{html.escape(headers["X-TEC-API-ORIGIN"])}">')
            head.append(f'<link rel="alternate" href="{html.escape(headers["X-TEC-API-ROOT"])}">')
        resp.content_type = "text/html; charset=UTF-8"
        resp.text = (
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n" + "\n".join(head) + "\n</head>\n<body>\n<main>\n"
            f"<h1>{html.escape(title)}</h1>\n{body}\n</main>\n</body>\n</html>\n"
        )

    on_head = on_get


class HomePage:
    """The site root for browsers: the home page with the calendar's discovery headers."""

    def __init__(self, calpress: Calpress, account: Pages) -> None:
        self.calpress = calpress
        self.account = account

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self.account.on_get_home(req, resp)
        for name, value in discovery_headers(self.calpress.site, self.calpress.api.registry, self.calpress.origin(req)).items():
            resp.set_header(name, value)

    on_head = on_get
