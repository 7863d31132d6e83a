"""What the engine adds to the links of an answer, as functions of the route registry and the
request, so that a handler keeping a finished representation (store/memo.py) adds the same:

* the ``wp`` curie whenever a compact ``wp:`` relation is present (the reference's
  get_compact_response_links);
* target hints on ``self`` links: the methods whose permission check passes for the requester
  on the linked route, as the Allow header of a request to it would list them.

Each link's hints are worked out once per request (the scope's ``allow``), by running the linked
route's permission checks on a sub-request for it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .registry import Registry, Route
from .request import RestRequest, parse_query

WP_CURIE = {"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}


def sub_request(href: str, parent: RestRequest, method: str = "GET") -> RestRequest | None:
    """A sub-request for a link this server generated, run as the parent's user; None when the
    address is not one of this site's REST addresses."""
    base = parent.base_url
    if "?rest_route=" not in base and (href.startswith(base + "/") or href == base):
        rest = href[len(base) :]
        if "?" not in rest and "#" not in rest and "%" not in rest:  # a plain path (an item's self link)
            route, query = rest or "/", {}
        else:
            parts = urlsplit(rest)
            route = parts.path or "/"
            query = parse_query(parts.query)
    else:
        parts = urlsplit(href)
        query = parse_query(parts.query)
        if "rest_route" not in query:
            return None
        route = str(query.pop("rest_route"))
    sub = RestRequest(method, route, query=query, base_url=base, remote_addr=parent.remote_addr)
    # It reads what the parent's answer links to, as the parent's user: it shares the parent's
    # loaded records (a batch sub-request would not).
    return run_as(sub, parent, share=True)


def run_as(sub: RestRequest, parent: RestRequest, *, share: bool) -> RestRequest:
    """Make ``sub`` run as ``parent`` does: its user and authentication, routes and engine, in a
    child of its scope (``share``: with the parent's loaded records)."""
    sub.user = parent.user
    sub.auth = parent.auth
    sub.routes = parent.routes
    sub.engine = parent.engine
    sub.scope = parent.scope.child(sub, share=share)
    return sub


def allowed_methods(route: Route, request: RestRequest) -> list[str]:
    """Methods of ``route`` whose permission check passes for this request (the Allow header)."""
    allowed: list[str] = []
    original = request.method
    try:
        for endpoint in route.endpoints:
            if endpoint.permission is None:
                ok = True
            else:
                request.method = endpoint.methods[0]
                try:
                    ok = endpoint.permission(request) is True
                except Exception:  # a check that cannot run on this request does not allow
                    ok = False
            if ok:
                allowed.extend(m for m in endpoint.methods if m not in allowed)
    finally:
        request.method = original
    return allowed


def link_allow(registry: Registry, href: str, request: RestRequest) -> list[str] | None:
    """The target hints of a link to ``href`` for the requester (None: not a route here)."""
    known = request.scope.allow
    if href in known:
        return known[href]
    allow: list[str] | None = None
    sub = sub_request(href, request)
    if sub is not None:
        matched = registry.match(sub.route)
        if matched is not None:
            route, url_params = matched
            sub.url_params = url_params
            sub.route_def = route
            allow = allowed_methods(route, sub)
    known[href] = allow
    return allow


def finish_links(item: dict[str, Any], registry: Registry, request: RestRequest) -> None:
    """Add the curie and the self links' target hints to one item's ``_links``, in place (links
    already hinted are left as they are)."""
    links = item.get("_links")
    if not isinstance(links, dict):
        return
    if "curies" not in links and any(rel.startswith("wp:") for rel in links):
        links["curies"] = [dict(WP_CURIE)]
    for link in links.get("self", ()):
        if not isinstance(link, dict) or "targetHints" in link:
            continue
        allow = link_allow(registry, link.get("href", ""), request)
        if allow is not None:
            link["targetHints"] = {"allow": allow}
