"""``cal/events/v1``: events (calendar-api.md sections 1-4), and the namespace's route table (the
venues and organizers of :mod:`.cal_linked`, the ``/doc`` of :mod:`.cal_doc`).

Handlers translate HTTP to the calendar's services and back: the listing service
(:mod:`calpress.calendar.listing`) turns the query arguments into a typed query and a loaded
page, the input service (:mod:`calpress.calendar.input`) turns a write's arguments into a typed
input that :mod:`calpress.calendar.events` saves, :mod:`calpress.calendar.represent` builds
the answers and :mod:`calpress.calendar.remembered` keeps them between requests. Remote images are downloaded before the write transaction opens (the ``image``
argument's check fetches the event's own; the handler those of inline venues and organizers).
Handler errors carry the reference's codes. POST, PUT and PATCH on an item are one update.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..calendar import events as cal
from ..calendar import input as event_input
from ..calendar import listing
from ..calendar.remembered import RememberedEvents
from ..content import items as item_service
from ..content import permissions
from ..content.items import Item
from ..media import attachments
from ..rest.errors import RestError
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from . import cal_args as args
from .base import Api
from .cal_args import NAMESPACE, arg
from .scope import scope_of

__all__ = ["NAMESPACE", "event_archive_args", "event_write_args", "routes"]


# -- reading --------------------------------------------------------------------------------------


def _remembered(request: RestRequest, *, single: bool) -> RememberedEvents:
    """The event representations the site remembers, as this request sees them."""
    return RememberedEvents(scope_of(request).site.memo, request.scope.generation, request.url_for,
                            home=args.ctx_of(request).home, single=single)


def list_events(request: RestRequest) -> Any:
    scope = scope_of(request)
    remembered = _remembered(request, single=False)
    page = listing.list_events(scope.site, args.ctx_of(request), request.params, generation=scope.generation,
                               represented=remembered)
    query = page.query
    if not page.ids and query.page > 1:
        return RestError("event-archive-page-not-found", "The requested event archive page does not exist", status=404)
    shown = remembered.page(scope.site, page.ids, page.loaded, args.builder(request, page.loaded).event)
    return args.envelope(request, "events", shown, page.total, query.page, query.per_page, query.applied)


def _event_for_read(request: RestRequest, item_id: int | None) -> Any:
    """The event ``item_id`` if the requester may read it, else the reference's error."""
    if not item_id:
        return RestError("rest-event-not-found", f"Event with ID {item_id or 0} does not exist.", status=404)
    item = item_service.read_item(args.site_of(request), item_id)
    if item is None:
        return RestError("rest-event-not-found", f"Event with ID {item_id} does not exist.", status=404)
    if item.type != cal.EVENT_TYPE:
        return RestError("rest-invalid-event-id", "The specified ID is not a valid event.", status=400)
    ctx = args.ctx_of(request)
    if item.status == "trash":
        return RestError("event-no-longer-available", "This event is no longer available", status=403)
    if not permissions.can_read(ctx, item):
        return RestError("event-not-accessible", "The requested event is not accessible", status=403)
    if not permissions.password_open(ctx, item, request.get_param("password"), editing=True):
        return RestError("event-password-protected", "The requested event is not accessible without a password", status=403)
    return item


def show_event(request: RestRequest, item: Item, *, single: bool) -> dict[str, Any]:
    return _remembered(request, single=single).one(
        args.site_of(request), args.ctx_of(request), item, lambda loaded: args.builder(request, loaded, single=single).event
    )


def get_event(request: RestRequest) -> Any:
    site = args.site_of(request)
    item_service.publish_due_items(site)
    if "slug" in request.url_params:
        with site.read() as conn:
            item_id = cal.slug_to_id(conn, cal.EVENT_TYPE, str(request.get_param("slug")))
    else:
        item_id = int(request.get_param("id"))
    # The event is one row, read without a transaction; what it embeds, when it is not
    # remembered, is read in one snapshot by show_event.
    found = _event_for_read(request, item_id)
    if isinstance(found, RestError):
        return found
    return show_event(request, found, single=True)


# -- writing --------------------------------------------------------------------------------------


def _save(request: RestRequest, existing: Item | None) -> dict[str, Any]:
    """Create or update an event and answer with it: remote images downloaded first (each URL
    once per request), then the typed input read and saved in one write transaction, and what
    the answer embeds read on its connection (Site.read_after_write; the event row as just
    written, not read back)."""
    ctx = args.ctx_of(request)
    scope = scope_of(request)
    data = args.write_data(request)
    for value in event_input.image_values(data):
        attachments.check_image(scope.site, ctx, value, request.user, scope.images)
    with scope.site.write() as conn:
        item, row = cal.write_event(conn, ctx, event_input.event_input(conn, ctx, data, existing, images=scope.images), existing)
        loaded = scope.site.read_after_write(conn, lambda read: cal.load_items(read, ctx, [item], event_rows={item.id: row}))
    return args.builder(request, loaded()).event(item)


def create_event(request: RestRequest) -> Any:
    return RestResponse(_save(request, None), status=201)


def _event_for_write(request: RestRequest) -> Any:
    if "slug" in request.url_params:
        target = args.target(request, cal.EVENT_TYPE)
        item_id = target.id if target is not None else 0
    else:
        item_id = int(request.url_params.get("id") or 0)
    with args.site_of(request).read() as conn:
        item = item_service.get_item(conn, item_id) if item_id else None
    if item is None:
        return RestError("rest-event-not-found", f"Event with ID {item_id} does not exist.", status=404)
    if item.type != cal.EVENT_TYPE:
        return RestError("rest-invalid-event-id", "The specified ID is not a valid event.", status=400)
    return item


def update_event(request: RestRequest) -> Any:
    found = _event_for_write(request)
    if isinstance(found, RestError):
        return found
    return _save(request, found)


def delete_event(request: RestRequest) -> Any:
    found = _event_for_write(request)
    if isinstance(found, RestError):
        return found
    if found.status == "trash":
        return RestError("event-is-in-trash", "The event is already trashed", status=410)
    with args.site_of(request).write() as conn:
        item = cal.trash(conn, args.ctx_of(request), found)
    return show_event(request, item, single=False)


# -- argument schemas -----------------------------------------------------------------------------


def event_archive_args() -> dict[str, dict[str, Any]]:
    found = args.archive_args(cal.EVENT_TYPE)
    status = found.pop("status")
    found.update({
        "start_date": arg("Limit events to those starting after the specified date", "string", validate=args.date),
        "end_date": arg("Limit events to those ending before the specified date", "string", validate=args.date),
        "starts_before": arg("Limit events to those starting before the specified date", "string", validate=args.date),
        "starts_after": arg("Limit events to those starting after the specified date", "string", validate=args.date),
        "ends_before": arg("Limit events to those ending before the specified date", "string", validate=args.date),
        "ends_after": arg("Limit events to those ending after the specified date", "string", validate=args.date),
        "strict_dates": arg("Whether the dates are used as exact moments", "string", default="false",
                            validate=args.non_empty_string),
        "categories": arg("Events should be assigned one of the specified categories slugs or IDs", "array",
                          validate=args.terms_exist(cal.CATEGORY_TAXONOMY), sanitize=args.keep),
        "tags": arg("Events should be assigned one of the specified tags slugs or IDs", "array",
                    validate=args.terms_exist("post_tag"), sanitize=args.keep),
        "venue": arg("Events should be assigned one of the specified venue IDs", "array",
                     validate=args.existing(cal.VENUE_TYPE), sanitize=args.keep),
        "organizer": arg("Events should be assigned one of the specified organizer IDs", "array",
                         validate=args.existing(cal.ORGANIZER_TYPE), sanitize=args.keep),
        "featured": arg("Events should be filtered by their featured status", "boolean", validate=args.boolish),
        "status": status,
        # Without the geolocation extension their effect is ignored, but their types are still
        # checked, as the reference does (geoloc=somewhere: 400 rest_invalid_type).
        "geoloc": arg("Requires Events Calendar Pro. Events should be filtered by whether their venue has geolocation data",
                      "boolean"),
        "geoloc_lat": arg("Requires Events Calendar Pro. Events should be filtered by their venue latitude location", "number"),
        "geoloc_lng": arg("Requires Events Calendar Pro. Events should be filtered by their venue longitude location", "number"),
        "include": arg("Include events with the specified IDs", "array", validate=args.include, sanitize=args.keep),
        "post_parent": arg("Events should be filtered by their post_parent being the specified one", "integer",
                           validate=args.existing_one(cal.EVENT_TYPE)),
        "ticketed": arg("Filter events with or without tickets", "boolean", validate=args.ticketed),
    })
    return found


def event_write_args(*, creating: bool) -> dict[str, dict[str, Any]]:
    return {
        "author": arg("The event author ID", "integer", validate=args.user_exists),
        "date": arg("The event publication date", "string", validate=args.date),
        "date_utc": arg("The event publication date (UTC time zone)", "string", validate=args.date),
        "title": arg("The event title", "string", required=creating, validate=args.non_empty_string),
        "description": arg("The event description", "string", validate=args.string_or_empty),
        "slug": arg("The event slug", "string", validate=args.non_empty_string),
        "excerpt": arg("The event excerpt", "string", validate=args.string_or_empty),
        "status": arg("The event post status", "string", validate=args.post_status),
        "timezone": arg("The event time zone", "string", validate=args.timezone),
        "all_day": arg("Whether the event lasts the whole day or not", "boolean", validate=args.boolish),
        "start_date": arg("The event start date and time", "string", required=creating, validate=args.date),
        "end_date": arg("The event end date and time", "string", required=creating, validate=args.date),
        "image": arg("The event featured image ID or URL", "string", validate=args.image),
        "cost": arg("The event cost", sanitize=args.keep),
        "website": arg("The event website URL", "string", validate=args.url_or_empty),
        "show_map": arg("Whether the event should show a map", "boolean", validate=args.boolish),
        "show_map_link": arg("Whether the event should show a map link", "boolean", validate=args.boolish),
        "hide_from_listings": arg("Whether the event should be hidden from the event list", "boolean", validate=args.boolish),
        "sticky": arg("Whether the event should be sticky in month view", "boolean", validate=args.boolish),
        "featured": arg("Whether the event should be featured on the site", "boolean", validate=args.boolish),
        "categories": arg("The event category ID or name", "array", sanitize=args.keep),
        "tags": arg("The event tag ID or name", "array", sanitize=args.keep),
        "venue": arg("The event venue ID or data", "array", validate=args.linked_value(cal.VENUE_TYPE, many=False),
                     sanitize=args.keep),
        "organizer": arg("The event organizer IDs or data", "array", validate=args.linked_value(cal.ORGANIZER_TYPE, many=True),
                         sanitize=args.keep),
    }


# -- registration ---------------------------------------------------------------------------------

Handler = Callable[[RestRequest], Any]


def routes(api: Api) -> list[Route]:
    """The events, venues and organizers routes and the calendar's /doc, in the reference's order."""

    def endpoint(methods: tuple[str, ...], handler: Handler, permission: Any = None,
                 arguments: dict[str, dict[str, Any]] | None = None) -> Endpoint:
        return Endpoint(methods, args.raising(handler), permission, args=arguments or {}, cache=methods == ("GET",))

    from . import cal_doc, cal_linked

    found = [Route(NAMESPACE, "/doc", [endpoint(("GET",), lambda request: cal_doc.document(api, request))], name="cal.doc")]
    id_arg = {"id": arg("the event post ID", "integer", required=True)}
    slug_arg = {"slug": arg("the event post name", "string", required=True, validate=args.slug_of(cal.EVENT_TYPE))}
    found.append(Route(NAMESPACE, "/events", [
        endpoint(("GET",), list_events, arguments=event_archive_args()),
        endpoint(("POST",), create_event, args.create_permission(cal.EVENT_TYPE), event_write_args(creating=True)),
    ], name="cal.events"))
    # Endpoint order as the reference registers them (its Allow header reads GET, DELETE, POST, PUT, PATCH).
    for path, ident, name in (("/events/(?P<id>\\d+)", id_arg, "cal.events.item"),
                              ("/events/by-slug/(?P<slug>[^/]+)", slug_arg, "cal.events.by-slug")):
        found.append(Route(NAMESPACE, path, [
            endpoint(("GET",), get_event, arguments={**ident, "password": arg("The event password", "string")}),
            endpoint(("DELETE",), delete_event, args.item_permission(cal.EVENT_TYPE, "delete"), ident),
            endpoint(("POST", "PUT", "PATCH"), update_event, args.item_permission(cal.EVENT_TYPE, "edit"),
                     {**ident, **event_write_args(creating=False)}),
        ], name=name))
    for content_type in (cal.VENUE_TYPE, cal.ORGANIZER_TYPE):
        found.extend(cal_linked.routes_of(content_type, endpoint))
    return found
