"""``cal/views/v2``: the calendar views' HTML route (calendar-api.md 7; decision 3 of the spec README).

``GET`` and ``POST /cal/views/v2/html`` render the view a calendar URL names, with the renderer
the public pages use (:mod:`calpress.pages.views`), so a page and its re-rendering through this
route are the same HTML.

Parameters: ``url`` (required, as the index says; the reference's current name ``u`` stands for
it, and then the answer is JSON ``{"html": ...}`` as the reference's; otherwise it is the HTML itself, text/html),
``view`` (list, month, day, or the debugging ``reflector``; an unknown slug gives the default
view), ``view_data`` (entries that override what the URL says), ``_wpnonce`` and the view
nonces ``tvn1``/``tvn2``, ``action``, ``pu`` and ``smu``.

The views show public calendar data, so no nonce is needed: a nonce only says who a login
cookie belongs to. ``_wpnonce`` does that through the REST authentication every route has;
``tvn1``/``tvn2`` (action ``_view_rest``, emitted by every calendar page) here. A cookie with no
valid nonce is a visitor. An application password works as everywhere.
"""

from __future__ import annotations

from typing import Any

from ..auth.authenticate import VIEW_NONCE_ACTION, nonce_user, view_nonces
from ..calendar import views as cal_views
from ..content.items import Context
from ..pages.theme import templates_for
from ..pages.views import PAGE_POLICY, Addresses, render_view, term_url
from ..rest.errors import RestError
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.urls import rest_url
from .base import Api
from .scope import context_of, scope_of

NAMESPACE = "cal-views"


def _text(description: str) -> dict[str, Any]:
    return {"description": description, "type": "string"}


def view_args() -> dict[str, dict[str, Any]]:
    return {
        "url": {**_text("The URL of the view to render, e.g. {site}/events/list/."), "maxLength": 4096, "required": True,
                "given_as": ["u"]},
        "u": {**_text("The URL of the view to render (the reference's current name of url)."), "maxLength": 4096},
        "view": {**_text("The view slug: list, month, day or reflector; overrides the URL's."), "maxLength": 64},
        "view_data": {"description": "Values that override what the URL says (tribe-bar-search, tribe-bar-date, "
                      "tribe_events_cat, tag, paged...).", "type": ["object", "array"]},
        "_wpnonce": _text("A REST nonce (wp_rest)."),
        "tvn1": _text("The views nonce of the page's user."),
        "tvn2": _text("The views nonce of the anonymous user."),
        "pu": _text("The previous URL."),
        "smu": _text("Whether the front end should manage the URL."),
        "action": _text("The admin-ajax fallback's action."),
    }


def _context(request: RestRequest) -> tuple[Context, str]:
    """The requester's context and session token; a login cookie counts when a view nonce
    proves it (or ``_wpnonce``, through the REST authentication)."""
    ctx = context_of(request)
    if request.user_id:
        return ctx, str((request.auth or {}).get("token") or "")
    nonces = [request.params.get("tvn1"), request.params.get("tvn2")]
    if not any(nonces):
        return ctx, ""
    user, session = nonce_user(scope_of(request).site, request.headers.get("cookie"), nonces, VIEW_NONCE_ACTION)
    if user is None or session is None:
        return ctx, ""
    return Context.of(ctx.site, user=user, home=ctx.home, options=ctx.options), session.token


def render(request: RestRequest) -> Any:
    params = request.params
    wrapped = params.get("u") is not None and params.get("url") is None
    url = params.get("u") if wrapped else params.get("url")
    view_data = params.get("view_data")
    if isinstance(view_data, list):
        view_data = {str(n): value for n, value in enumerate(view_data)}
    ctx, token = _context(request)
    site = scope_of(request).site
    base = request.base_url

    def link(name: str, query: Any = None, **values: Any) -> str:
        return rest_url(base, request.routes.path(name, **values), query)

    addresses = Addresses(
        home=ctx.home.rstrip("/"),
        views_rest_url=link("cal-views.html"),
        term_url=lambda term: term_url(ctx.home, term, ctx.options),
        rest_url=link,
    )
    try:
        state = cal_views.view_state(url, ctx.home.rstrip("/"), ctx.options, view=params.get("view"),
                                     view_data=view_data, public=False)
        rendered = render_view(site, ctx, state, addresses, nonces={
            "tvn1": str(params.get("tvn1") or ""), "tvn2": str(params.get("tvn2") or ""),
            "_wpnonce": str(params.get("_wpnonce") or ""),
        } if state.view == "reflector" else view_nonces(site.settings.secret_key, ctx.user.id if ctx.user else 0, token),
            heading="h1", env=templates_for(site.settings))
    except cal_views.ViewError as err:
        # The parameter the client sent that holds the fault: a view_data entry, or the URL.
        name = "view_data" if view_data and err.param in view_data else ("u" if wrapped else "url")
        raise RestError("rest_invalid_param", f"Invalid parameter(s): {name}", status=400, params={name: err.message},
                        details=[]) from None
    headers = {"X-Robots-Tag": "noindex"}
    if wrapped:
        return RestResponse({"html": rendered.html}, headers=headers)
    # An HTML answer a browser may open directly: the public pages' policy (the engine adds nosniff).
    headers["Content-Security-Policy"] = PAGE_POLICY
    return RestResponse(raw=rendered.html.encode(), content_type="text/html; charset=UTF-8", headers=headers)


def routes(api: Api) -> list[Route]:
    arguments = view_args()
    return [Route(NAMESPACE, "/html", [Endpoint(("GET", "POST"), render, None, args=arguments)], name="cal-views.html")]
