"""The calendar API's discovery on public pages (calendar-api.md 9.1): every HTML page says where
the calendar's REST root is, in headers (``X-TEC-API-VERSION``, ``X-TEC-API-ROOT``,
``X-TEC-API-ORIGIN``) and in the page head. The root points at what the page shows: an event,
a category or tag listing, a venue's events, or the namespace root elsewhere.

The public site (pages/site.py) sends them on every page, with the root its page names; the
site root answered in JSON (app.py) sends them too. REST addresses are built from the route
registry's names.
"""

from __future__ import annotations

from typing import Any

from ..rest.registry import Registry
from ..rest.urls import rest_url

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
    rest = rest_address(routes, origin, "cal.index", slash=True)
    return {
        "X-TEC-API-VERSION": API_VERSION,
        "X-TEC-API-ROOT": root or rest,
        "X-TEC-API-ORIGIN": str(options.get("home") or origin).rstrip("/"),
    }


def rest_address(routes: Registry, origin: str, name: str, query: Any = None, *, slash: bool = False, **params: Any) -> str:
    """A REST address under ``/wp-json`` (the calendar's discovery names that form)."""
    return rest_url(origin + REST_PREFIX, routes.path(name, **params) + ("/" if slash else ""), query)
