"""``cal/events/v1`` venues and organizers (calendar-api.md 2.2, 2.3, 3.2, 4.8, 4.9): the two
linked types answer the same routes with the same mechanics, named after the type (``/venues``,
``venue-not-found``...), their fields coming from :mod:`calpress.calendar.fields`.

Registered by :func:`calpress.api.cal_events.routes`, in the reference's order after the events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..calendar import events as cal
from ..calendar import input as event_input
from ..calendar import linked_listing
from ..calendar.fields import FLAG, URL, LinkedKind, kind_of
from ..content import permissions
from ..content.items import Item
from ..rest.errors import RestError
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from . import cal_args as args
from .cal_args import NAMESPACE, arg
from .scope import scope_of

Handler = Callable[[RestRequest], Any]


def _show(request: RestRequest, item: Item, *, single: bool) -> dict[str, Any]:
    with args.site_of(request).read() as conn:
        builder = args.builder(request, cal.load_items(conn, args.ctx_of(request), [item]), single=single)
    return builder.venue(item) if item.type == cal.VENUE_TYPE else builder.organizer(item)


def _target(request: RestRequest, kind: LinkedKind) -> Item | None:
    item = args.target(request, kind.content_type)
    return item if item is not None and item.type == kind.content_type else None


def list_handler(kind: LinkedKind) -> Handler:
    what = kind.name

    def handler(request: RestRequest) -> Any:
        scope = scope_of(request)
        page = linked_listing.list_linked(scope.site, args.ctx_of(request), kind.content_type, request.params,
                                   generation=scope.generation)
        query = page.query
        if not page.items and query.page > 1:
            return RestError(f"{what}-archive-page-not-found", f"The requested {what} archive page does not exist", status=404)
        builder = args.builder(request, page.loaded)
        shown = [builder.venue(i) if what == "venue" else builder.organizer(i) for i in page.items]
        return args.envelope(request, f"{what}s", shown, page.total, query.page, query.per_page, query.applied)

    return handler


def get_handler(kind: LinkedKind) -> Handler:
    what = kind.name

    def handler(request: RestRequest) -> Any:
        item = _target(request, kind)
        if item is None:  # validation makes this unreachable but for a concurrent delete
            return RestError(f"{what}-not-found", f"The {what} does not exist", status=404)
        if not permissions.can_read(args.ctx_of(request), item):
            return RestError(f"{what}-not-accessible", f"The requested {what} is not accessible", status=403)
        return _show(request, item, single=True)

    return handler


def _save(request: RestRequest, kind: LinkedKind, existing: Item | None) -> Item:
    """Create (reusing an identical record) or update: the image argument's check has downloaded
    a remote image already, so the write transaction only stores it."""
    ctx = args.ctx_of(request)
    scope = scope_of(request)
    with scope.site.write() as conn:
        data = event_input.linked_input(conn, ctx, kind.content_type, request.params, existing, images=scope.images)
        item, _ = cal.save_linked(conn, ctx, kind.content_type, data, existing)
    return item


def create_handler(kind: LinkedKind) -> Handler:
    what = kind.name

    def handler(request: RestRequest) -> Any:
        try:
            item = _save(request, kind, None)
        except cal.CalendarError:
            raise
        except RestError:
            return RestError(f"could-not-create-{what}", f"The {what} could not be created from the provided data", status=400)
        return RestResponse(_show(request, item, single=False), status=201)

    return handler


def update_handler(kind: LinkedKind) -> Handler:
    what = kind.name

    def handler(request: RestRequest) -> Any:
        existing = _target(request, kind)
        if existing is None:
            return RestError(f"{what}-not-found", f"The {what} does not exist", status=404)
        try:
            item = _save(request, kind, existing)
        except cal.CalendarError:
            raise
        except RestError:
            return RestError(f"could-not-update-{what}", f"The {what} could not be updated", status=400)
        return _show(request, item, single=False)

    return handler


def delete_handler(kind: LinkedKind) -> Handler:
    what = kind.name

    def handler(request: RestRequest) -> Any:
        existing = _target(request, kind)
        if existing is None:
            return RestError(f"{what}-not-found", f"The {what} does not exist", status=404)
        if existing.status == "trash":
            return RestError(f"{what}-is-in-trash", f"The {what} is already trashed", status=410)
        with args.site_of(request).write() as conn:
            item = cal.trash(conn, args.ctx_of(request), existing)
        return _show(request, item, single=False)

    return handler


# -- argument schemas -----------------------------------------------------------------------------


def linked_write_args(content_type: str, *, creating: bool) -> dict[str, dict[str, Any]]:
    """The write arguments: the post fields, then the type's fields in the reference's order."""
    kind = kind_of(content_type)
    what = kind.name
    found: dict[str, dict[str, Any]] = {
        "author": arg(f"The {what} author ID", "integer", validate=args.user_exists),
        "date": arg(f"The {what} publication date", "string", validate=args.date),
        "date_utc": arg(f"The {what} publication date (UTC time zone)", "string", validate=args.date),
        what: arg(f"The {what} name", "string", required=creating, validate=args.non_empty_string),
        "description": arg(f"The {what} description", "string", validate=args.string_or_empty),
        "status": arg(f"The {what} post status", "string", validate=args.post_status),
    }
    for field in kind.arguments:
        if field.kind == FLAG:
            found[field.name] = arg(field.description, "string")  # any value, read as a flag
        else:
            found[field.name] = arg(field.description, "string",
                                    validate=args.url_or_empty if field.kind == URL else args.string_or_empty)
    found["image"] = arg(f"The {what} featured image ID or URL", "string", validate=args.image)
    return found


def linked_archive_args(content_type: str) -> dict[str, dict[str, Any]]:
    found = args.archive_args(content_type)
    status = found.pop("status")
    found.update({
        "event": arg("Only items linked to this event", "integer", validate=args.existing_one(cal.EVENT_TYPE)),
        # Untyped in the reference (documented as booleans): any value is read as a flag, none is refused.
        "has_events": arg("Only items with (or without) events", swagger_type="boolean"),
        "only_with_upcoming": arg("Only items with upcoming events", swagger_type="boolean", default=False),
        "status": status,
    })
    return found


def routes_of(content_type: str, endpoint: Callable[..., Endpoint]) -> list[Route]:
    """The collection, by-id and by-slug routes of a linked type (``endpoint`` is the namespace's
    endpoint factory: methods, handler, permission, arguments)."""
    kind = kind_of(content_type)
    what = kind.name
    item_id = {"id": arg(f"the {what} post ID", "integer", required=True, validate=args.existing_one(content_type))}
    item_slug = {"slug": arg(f"the {what} post name", "string", required=True, validate=args.slug_of(content_type))}
    found = [Route(NAMESPACE, f"/{what}s", [
        endpoint(("GET",), list_handler(kind), arguments=linked_archive_args(content_type)),
        endpoint(("POST",), create_handler(kind), args.create_permission(content_type),
                 linked_write_args(content_type, creating=True)),
    ], name=f"cal.{what}s")]
    for path, ident, name in ((f"/{what}s/(?P<id>\\d+)", item_id, f"cal.{what}s.item"),
                              (f"/{what}s/by-slug/(?P<slug>[^/]+)", item_slug, f"cal.{what}s.by-slug")):
        found.append(Route(NAMESPACE, path, [
            endpoint(("GET",), get_handler(kind), arguments=ident),
            endpoint(("DELETE",), delete_handler(kind), args.item_permission(content_type, "delete"), ident),
            endpoint(("POST", "PUT", "PATCH"), update_handler(kind), args.item_permission(content_type, "edit"),
                     {**ident, **linked_write_args(content_type, creating=False)}),
        ], name=name))
    return found
