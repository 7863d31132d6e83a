"""What the ``cal/events/v1`` routes share: argument declarations and their checks, permission
checks, and the archive envelope.

The checks are HTTP-level (the shape of a value as it arrived); the rules behind them are the
calendar's and live in :mod:`calpress.calendar` (which statuses a user may filter by, what an
``image`` or a venue value may be). As in the reference, argument validation (400) runs before
the permission check (401/403).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..auth import users as user_store
from ..calendar import events as cal
from ..calendar import fields, listing
from ..calendar import input as event_input
from ..calendar.represent import Builder
from ..calendar.values import as_list, truthy
from ..compat.formatting import is_safe_url
from ..content import items as item_service
from ..content import permissions
from ..content.items import Context, Item
from ..media import attachments
from ..rest.errors import RestError, forbidden
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .scope import UNSET, context_of, scope_of

NAMESPACE = "cal"  # the key of cal/events/v1 in the namespace table
_BOOLISH = frozenset({"1", "0", "true", "false", "yes", "no", "on", "off", ""})
_INT = re.compile(r"\d+")

Check = Callable[[Any, RestRequest, str], Any]


def arg(description: str, type_: str | None = None, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"description": description}
    if type_ is not None:
        found["type"] = type_
    found.update(extra)
    return found


def ctx_of(request: RestRequest) -> Context:
    return context_of(request)


def site_of(request: RestRequest) -> Any:
    return scope_of(request).site


# -- value checks ---------------------------------------------------------------------------------


def positive_int(value: Any, request: RestRequest, name: str) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value > 0
    return isinstance(value, str) and bool(_INT.fullmatch(value.strip())) and int(value) > 0


def non_empty_string(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str) and value != ""


def string_or_empty(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str)


def boolish(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, bool) or (isinstance(value, (int, str)) and str(value).strip().lower() in _BOOLISH)


def is_url(text: str) -> bool:
    """A URL as PHP's FILTER_VALIDATE_URL takes it: a scheme, a host, no spaces."""
    if not text or any(c.isspace() for c in text):
        return False
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme or "")) and bool(parts.hostname)


def url_or_empty(value: Any, request: RestRequest, name: str) -> bool:
    """"" or a URL (:func:`is_url`) whose scheme the site allows as a link: ``javascript:``,
    ``data:``, ``vbscript:``... are refused however written (:func:`calpress.compat.formatting.is_safe_url`)."""
    return isinstance(value, str) and (value == "" or (is_url(value) and is_safe_url(value)))


def timezone(value: Any, request: RestRequest, name: str) -> bool:
    return cal.valid_timezone(value)


def date(value: Any, request: RestRequest, name: str) -> bool:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return False
    zone, _ = cal.site_timezone(ctx_of(request).options)
    return cal.parse_moment(value, zone) is not None


def user_exists(value: Any, request: RestRequest, name: str) -> bool:
    if isinstance(value, bool) or not _INT.fullmatch(str(value).strip()):
        return False
    with site_of(request).read() as conn:
        return user_store.get_user(conn, int(value)) is not None


def post_status(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str) and value in ctx_of(request).registry.statuses


def existing(content_type: str) -> Check:
    """Ids (a list or CSV) of items of ``content_type``, every one existing."""

    def check(value: Any, request: RestRequest, name: str) -> bool:
        items = as_list(value)
        if not items or not all(isinstance(i, int) or (isinstance(i, str) and _INT.fullmatch(i)) for i in items):
            return False
        ids = {int(i) for i in items}
        return cal.existing_ids_on(site_of(request), content_type, ids) == ids

    return check


def existing_one(content_type: str) -> Check:
    check_many = existing(content_type)

    def check(value: Any, request: RestRequest, name: str) -> bool:
        return not isinstance(value, (list, dict)) and check_many(value, request, name)

    return check


def terms_exist(taxonomy: str) -> Check:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        generation = request.scope.generation  # set for cacheable reads: term ids are kept under it
        known = listing.known_terms_exist(site_of(request).engine, taxonomy, value, generation)
        if known is not None:
            return known
        with site_of(request).read() as conn:
            return listing.terms_exist(conn, taxonomy, value, generation)

    return check


def include(value: Any, request: RestRequest, name: str) -> bool:
    items = as_list(value)
    return bool(items) and all(positive_int(i, request, name) for i in items)


def slug_of(content_type: str) -> Check:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        if not isinstance(value, str) or not value:
            return False
        with site_of(request).read() as conn:
            return cal.slug_to_id(conn, content_type, value) is not None

    return check


def ticketed(value: Any, request: RestRequest, name: str) -> Any:
    if not truthy(value):
        return True
    return RestError("event-tickets-not-active", "Event Tickets plugin is not activated.", status=400)


def status_filter(content_type: str) -> Check:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        return listing.status_allowed(ctx_of(request), content_type, value)

    return check


def image(value: Any, request: RestRequest, name: str) -> bool:
    """An ``image``: "", an image attachment id, or a URL (of a stored image, or for users who may
    upload files an image to download: fetched here, before any transaction, once per request)."""
    if value == "" or value is None:
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # checked as an id here; the declared string type then refuses it (rest_invalid_type)
    if not isinstance(value, str):
        return False
    scope = scope_of(request)
    return attachments.check_image(scope.site, ctx_of(request), value, request.user, scope.images)


def linked_value(content_type: str, *, many: bool) -> Check:
    """A venue (one) or organizers (``many``) given on an event: ids, ``{"id": N}`` objects or
    new records; empty values unlink."""

    def check(value: Any, request: RestRequest, name: str) -> bool:
        if not fields.safe_links(content_type, value):
            return False  # a new venue or organizer whose website is a javascript: (data:...) URL
        ids = event_input.linked_value_ids(content_type, value, many=many)
        if not ids:
            return ids is not None
        return cal.existing_ids_on(site_of(request), content_type, ids) == ids

    return check


def anything(value: Any, request: RestRequest, name: str) -> bool:
    return True


def keep(value: Any, request: RestRequest, name: str) -> Any:
    """Leave a value as sent (lists, objects, CSV strings are read by the calendar's services)."""
    return value


def archive_args(content_type: str) -> dict[str, dict[str, Any]]:
    """The arguments every archive takes (the status filter last: callers move it)."""
    return {
        "page": arg("The archive page to return", "integer", default=1, validate=positive_int),
        "per_page": arg("The number of items to return per page", "integer", validate=positive_int),
        "search": arg("Limit results to those matching a string", "string", validate=non_empty_string),
        "status": arg("Limit results to those with the given status", validate=status_filter(content_type),
                      sanitize=keep),
    }


# -- permissions ----------------------------------------------------------------------------------


def deny(request: RestRequest) -> RestError:
    return forbidden("rest_forbidden", "Sorry, you are not allowed to do that.", request.user_id)


def create_permission(content_type: str) -> Callable[[RestRequest], Any]:
    """``edit_posts`` on the type."""

    def check(request: RestRequest) -> Any:
        ctx = ctx_of(request)
        return True if permissions.can_edit_type(ctx, ctx.registry.types[content_type]) else deny(request)

    return check


def item_permission(content_type: str, verb: str) -> Callable[[RestRequest], Any]:
    """``edit_post``/``delete_post`` on the item; the type's general capability when there is no
    such item (the handler then answers 404/400). By-slug routes resolve the slug first."""

    def check(request: RestRequest) -> Any:
        if not request.user:
            return deny(request)
        ctx = ctx_of(request)
        item = target(request, content_type)
        if item is not None and item.type == content_type:
            allowed = permissions.can_edit(ctx, item) if verb == "edit" else permissions.can_delete(ctx, item)
        else:
            allowed = ctx.can(ctx.registry.types[content_type].caps[f"{verb}_posts"])
        return True if allowed else deny(request)

    return check


def target(request: RestRequest, content_type: str) -> Item | None:
    """The item the route's id or slug names (resolved once per request)."""
    scope = scope_of(request)
    if scope.target is not UNSET:
        return scope.target
    found: Item | None = None
    with scope.site.read() as conn:
        if "slug" in request.url_params:
            item_id = cal.slug_to_id(conn, content_type, str(request.url_params["slug"]))
        else:
            raw = request.url_params.get("id")
            item_id = int(raw) if raw is not None else None
        if item_id:
            found = item_service.get_item(conn, item_id)
    scope.target = found
    return found


# -- answers --------------------------------------------------------------------------------------


def builder(request: RestRequest, loaded: cal.Loaded, *, single: bool = False) -> Builder:
    """The representations' builder for this request (links, password, the edit context)."""
    ctx = ctx_of(request)
    return Builder(
        ctx=ctx,
        url=request.url_for,
        loaded=loaded,
        single=single,
        password=request.get_param("password"),
        can_edit=(lambda item: ctx.can("edit_post", item)) if request.get_param("context") == "edit" else None,
    )


def write_data(request: RestRequest) -> dict[str, Any]:
    """A write's arguments as the input service reads them. On a by-slug route the route's slug
    names the target, so the slug written is the body's."""
    data = dict(request.params)
    if "slug" in request.url_params:
        data["slug"] = request.body_params().get("slug")
    return data


def envelope(
    request: RestRequest, key: str, items: list[dict[str, Any]], total: int, page: int, per_page: int, applied: Any
) -> RestResponse:
    """An archive answer (calendar-api.md 3.1, 3.2): the items, ``rest_url`` echoing the filters
    as applied, the next and previous pages' URLs, the totals in the body and the headers."""
    route = f"{NAMESPACE}.{key}"
    echo = list(applied)
    total_pages = math.ceil(total / per_page) if total else 0
    data: dict[str, Any] = {key: items, "rest_url": request.url_for(route, echo, slash=True)}
    without_page = [(k, v) for k, v in echo if k != "page"]
    if page * per_page < total:
        data["next_rest_url"] = request.url_for(route, [*without_page, ("page", str(page + 1))], slash=True)
    if page > 1 and items:
        previous = without_page if page - 1 == 1 else [*without_page, ("page", str(page - 1))]
        data["previous_rest_url"] = request.url_for(route, previous, slash=True)
    data["total"] = total
    data["total_pages"] = total_pages
    return RestResponse(data, headers={"X-TEC-Total": str(total), "X-TEC-TotalPages": str(total_pages)})


def raising(handler: Callable[[RestRequest], Any]) -> Callable[[RestRequest], Any]:
    """The handlers return their errors; the engine answers raised ones in the error shape."""

    def run(request: RestRequest) -> Any:
        result = handler(request)
        if isinstance(result, RestError):
            raise result
        return result

    return run
