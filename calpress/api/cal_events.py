"""``cal/events/v1``: events, venues and organizers (calendar-api.md sections 1-5).

Routes, argument schemas and permission checks live here; the data work is in
:mod:`calpress.calendar.events` and the representations in :mod:`calpress.calendar.represent`.
As in the reference, argument validation (400) runs before the permission check (401/403), and
handler errors carry the reference's codes. POST, PUT and PATCH on an item are one update.
Remote images are downloaded through the site's guarded client before the write transaction
opens: the ``image`` argument's check fetches the item's own, the handler those of inline venues
and organizers, and the write stores what was fetched (the request scope keeps it by URL).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..auth import users as user_store
from ..calendar import events as cal
from ..calendar import listing
from ..calendar.fields import FLAG, URL, kind_of
from ..calendar.represent import Builder
from ..calendar.values import as_list, truthy
from ..content import items as item_service
from ..content import permissions
from ..content import terms as term_store
from ..content.items import Context, Item
from ..media import attachments
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .base import Api
from .scope import UNSET, context_of, scope_of

NAMESPACE = "cal"  # the key of cal/events/v1 in the namespace table
_BOOLISH = frozenset({"1", "0", "true", "false", "yes", "no", "on", "off", ""})
_INT = re.compile(r"\d+")


# -- argument helpers -----------------------------------------------------------------------------


def _positive_int(value: Any, request: RestRequest, name: str) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value > 0
    return isinstance(value, str) and bool(_INT.fullmatch(value.strip())) and int(value) > 0


def _non_empty_string(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str) and value != ""


def _string_or_empty(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str)


def _boolish(value: Any, request: RestRequest, name: str) -> bool:
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


def _url_or_empty(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str) and (value == "" or is_url(value))


def _timezone(value: Any, request: RestRequest, name: str) -> bool:
    return cal.valid_timezone(value)


def _ctx(request: RestRequest) -> Context:
    return context_of(request)


def _site(request: RestRequest) -> Any:
    return scope_of(request).site


def _date(value: Any, request: RestRequest, name: str) -> bool:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return False
    zone, _ = cal.site_timezone(_ctx(request).options)
    return cal.parse_moment(value, zone) is not None


def _user_exists(value: Any, request: RestRequest, name: str) -> bool:
    if isinstance(value, bool) or not _INT.fullmatch(str(value).strip()):
        return False
    with _site(request).read() as conn:
        return user_store.get_user(conn, int(value)) is not None


def _post_status(value: Any, request: RestRequest, name: str) -> bool:
    return isinstance(value, str) and value in _ctx(request).registry.statuses


def _existing(content_type: str) -> Callable[[Any, RestRequest, str], bool]:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        items = as_list(value)
        if not items or not all(isinstance(i, int) or (isinstance(i, str) and _INT.fullmatch(i)) for i in items):
            return False
        ids = {int(i) for i in items}
        with _site(request).read() as conn:
            return cal.existing_ids(conn, content_type, ids) == ids

    return check


def _existing_one(content_type: str) -> Callable[[Any, RestRequest, str], bool]:
    check_many = _existing(content_type)

    def check(value: Any, request: RestRequest, name: str) -> bool:
        return not isinstance(value, (list, dict)) and check_many(value, request, name)

    return check


def _terms_exist(taxonomy: str) -> Callable[[Any, RestRequest, str], bool]:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        with _site(request).read() as conn:
            return listing.terms_exist(conn, taxonomy, value)

    return check


def _include(value: Any, request: RestRequest, name: str) -> bool:
    items = as_list(value)
    return bool(items) and all(_positive_int(i if not isinstance(i, str) else i, request, name) for i in items)


def _slug_of(content_type: str) -> Callable[[Any, RestRequest, str], bool]:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        if not isinstance(value, str) or not value:
            return False
        with _site(request).read() as conn:
            return cal.slug_to_id(conn, content_type, value) is not None

    return check


def _ticketed(value: Any, request: RestRequest, name: str) -> Any:
    if not truthy(value):
        return True
    return RestError("event-tickets-not-active", "Event Tickets plugin is not activated.", status=400)


def _status_filter(content_type: str) -> Callable[[Any, RestRequest, str], bool]:
    def check(value: Any, request: RestRequest, name: str) -> bool:
        return listing.status_allowed(_ctx(request), content_type, value)

    return check


def _image(value: Any, request: RestRequest, name: str) -> bool:
    """An ``image``: "", an image attachment id, or a URL (of a stored image, or for users who may
    upload files an image to download: fetched here, before any transaction, once per request)."""
    if value == "" or value is None:
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # checked as an id here; the declared string type then refuses it (rest_invalid_type)
    if not isinstance(value, str):
        return False
    scope = scope_of(request)
    return attachments.check_image(scope.site, _ctx(request), value, request.user, scope.images)


def _linked_value(content_type: str, many: bool) -> Callable[[Any, RestRequest, str], bool]:
    """Venue (one) or organizer (several) given on an event: ids, ``{"id": N}`` objects or new
    records; empty values unlink."""
    name_key = "venue" if content_type == cal.VENUE_TYPE else "organizer"

    def check(value: Any, request: RestRequest, name: str) -> bool:
        if value in (None, "", 0, "0", [], {}):
            return True
        entries = _linked_entries(value, many)
        if not many and len(entries) > 1:
            return False
        ids: set[int] = set()
        for entry in entries:
            if isinstance(entry, dict):
                if "id" in entry:
                    continue  # checked by the handler: invalid-linked-post-id
                title = entry.get(name_key)
                if not isinstance(title, str) or not title.strip():
                    return False
            elif isinstance(entry, int) or (isinstance(entry, str) and _INT.fullmatch(entry)):
                ids.add(int(entry))
            else:
                return False
        if ids:
            with _site(request).read() as conn:
                return cal.existing_ids(conn, content_type, ids) == ids
        return True

    return check


def _linked_entries(value: Any, many: bool) -> list[Any]:
    if isinstance(value, dict):
        keys = list(value)
        if keys and all(str(k).isdigit() for k in keys):  # a PHP-style list sent as form fields
            return list(value.values())
        return [value]
    if isinstance(value, list):
        out: list[Any] = []
        for entry in value:
            out.extend(as_list(entry) if isinstance(entry, str) else [entry])
        return out
    return as_list(value)


def _anything(value: Any, request: RestRequest, name: str) -> bool:
    return True


def _keep(value: Any, request: RestRequest, name: str) -> Any:
    """Leave a value as sent (lists, objects, CSV strings are read by the handler)."""
    return value


def arg(description: str, type_: str | None = None, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"description": description}
    if type_ is not None:
        found["type"] = type_
    found.update(extra)
    return found


# -- permissions ----------------------------------------------------------------------------------


def _caps(request: RestRequest, content_type: str) -> dict[str, str]:
    return _ctx(request).registry.types[content_type].caps


def _can_edit_type(request: RestRequest, content_type: str) -> bool:
    return _ctx(request).can(_caps(request, content_type)["edit_posts"])


def _deny(request: RestRequest) -> RestError:
    return forbidden("rest_forbidden", "Sorry, you are not allowed to do that.", request.user_id)


def _create_permission(content_type: str) -> Callable[[RestRequest], Any]:
    def check(request: RestRequest) -> Any:
        return True if _can_edit_type(request, content_type) else _deny(request)

    return check


def _item_permission(content_type: str, verb: str) -> Callable[[RestRequest], Any]:
    """``edit_post``/``delete_post`` on the item; the type's general capability when there is no
    such item (the handler then answers 404/400). By-slug routes resolve the slug first."""

    def check(request: RestRequest) -> Any:
        if not request.user:
            return _deny(request)
        ctx = _ctx(request)
        item = _target(request, content_type)
        if item is not None and item.type == content_type:
            allowed = ctx.can(f"{verb}_post", item)
        else:
            allowed = ctx.can(_caps(request, content_type)[f"{verb}_posts"])
        return True if allowed else _deny(request)

    return check


def _target(request: RestRequest, content_type: str) -> Item | None:
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


# -- shared listing pieces ------------------------------------------------------------------------


def _builder(request: RestRequest, loaded: cal.Loaded, *, single: bool = False) -> Builder:
    ctx = _ctx(request)
    return Builder(
        ctx=ctx,
        url=request.url_for,
        loaded=loaded,
        single=single,
        password=request.get_param("password"),
        can_edit=(lambda item: ctx.can("edit_post", item)) if request.get_param("context") == "edit" else None,
    )


def _envelope(
    request: RestRequest, key: str, items: list[dict[str, Any]], total: int, page: int, per_page: int, applied: Any
) -> RestResponse:
    """An archive answer: ``rest_url`` echoes the filters as the listing applied them."""
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


# -- events: reading ------------------------------------------------------------------------------


def list_events(request: RestRequest) -> Any:
    scope = scope_of(request)
    page = listing.list_events(scope.site, _ctx(request), request.params, generation=scope.generation)
    query = page.query
    if not page.items and query.page > 1:
        return RestError("event-archive-page-not-found", "The requested event archive page does not exist", status=404)
    builder = _builder(request, page.loaded)
    shown = [builder.event(item) for item in page.items]
    return _envelope(request, "events", shown, page.total, query.page, query.per_page, query.applied)


def _event_for_read(request: RestRequest, item_id: int | None) -> Any:
    """The event ``item_id`` if the requester may read it, else the reference's error."""
    if not item_id:
        return RestError("rest-event-not-found", f"Event with ID {item_id or 0} does not exist.", status=404)
    with _site(request).read() as conn:
        item = item_service.get_item(conn, item_id)
    if item is None:
        return RestError("rest-event-not-found", f"Event with ID {item_id} does not exist.", status=404)
    if item.type != cal.EVENT_TYPE:
        return RestError("rest-invalid-event-id", "The specified ID is not a valid event.", status=400)
    ctx = _ctx(request)
    if item.status == "trash":
        return RestError("event-no-longer-available", "This event is no longer available", status=403)
    if not permissions.can_read(ctx, item):
        return RestError("event-not-accessible", "The requested event is not accessible", status=403)
    if not permissions.password_open(ctx, item, request.get_param("password"), editing=True):
        return RestError("event-password-protected", "The requested event is not accessible without a password", status=403)
    return item


def show_event(request: RestRequest, item: Item, *, single: bool) -> dict[str, Any]:
    with _site(request).read() as conn:
        loaded = cal.load_items(conn, _ctx(request), [item])
    return _builder(request, loaded, single=single).event(item)


def get_event(request: RestRequest) -> Any:
    item_service.publish_due_items(_site(request))
    if "slug" in request.url_params:
        with _site(request).read() as conn:
            item_id = cal.slug_to_id(conn, cal.EVENT_TYPE, str(request.get_param("slug")))
    else:
        item_id = int(request.get_param("id"))
    found = _event_for_read(request, item_id)
    if isinstance(found, RestError):
        return found
    return show_event(request, found, single=True)


# -- events: writing ------------------------------------------------------------------------------


def _scaled_status(request: RestRequest, given: str | None, existing: Item | None) -> str | None:
    """calendar-api.md 4.1 status scaling, with the events type's publishing capability."""
    can_publish = _ctx(request).can(_caps(request, cal.EVENT_TYPE)["publish_posts"])
    if given is None:
        if existing is not None:
            return None
        return "publish" if can_publish else "draft"
    if not can_publish and given in ("publish", "future"):
        return "pending"
    return given


def _post_date(request: RestRequest, ctx: Context, zone_name: str | None) -> tuple[dt.datetime, dt.datetime] | None:
    site_zone = ctx.zone
    if request.get_param("date_utc") is not None:
        moment = cal.parse_moment(request.get_param("date_utc"), dt.UTC)
        if moment is None:
            return None
        utc = moment.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)
        return item_service.to_local(utc, site_zone), utc
    if request.get_param("date") is not None:
        zone, _ = cal.site_timezone(ctx.options, zone_name or None)
        moment = cal.parse_moment(request.get_param("date"), zone)
        if moment is None:
            return None
        utc = moment.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)
        return item_service.to_local(utc, site_zone), utc
    return None


def _term_ids(conn: Any, ctx: Context, taxonomy: str, value: Any) -> list[int]:
    """calendar-api.md 4.4: ids must exist (unknown ones skipped); names or slugs are looked up
    and created when missing."""
    definition = ctx.registry.taxonomies[taxonomy]
    ids: list[int] = []
    for entry in as_list(value):
        text = str(entry).strip()
        if not text:
            continue
        if isinstance(entry, int) or text.isdigit():
            term = term_store.get_term(conn, int(text), taxonomy)
        else:
            term = term_store.find_term(conn, taxonomy, text)
            if term is None:
                term = term_store.create_term(conn, definition, text)
        if term is not None and term.id not in ids:
            ids.append(term.id)
    return ids


def _linked_input(request: RestRequest, ctx: Context, content_type: str, data: dict[str, Any]) -> cal.LinkedInput:
    kind = kind_of(content_type)
    found = cal.LinkedInput(
        title=data.get(kind.name) if isinstance(data.get(kind.name), str) else None,
        description=data.get("description") if isinstance(data.get("description"), str) else None,
        excerpt=data.get("excerpt") if isinstance(data.get("excerpt"), str) else None,
    )
    for field in kind.arguments:
        value = data.get(field.name)
        if value is None:
            continue
        if field.kind == FLAG:
            found.flags[field.name] = truthy(value)
        elif not isinstance(value, (dict, list)):
            found.fields[field.name] = str(value)
    return found


def _resolve_linked(
    request: RestRequest, conn: Any, ctx: Context, content_type: str, value: Any, many: bool
) -> list[int]:
    if value in (None, "", 0, "0", [], {}):
        return []
    ids: list[int] = []
    for entry in _linked_entries(value, many):
        if isinstance(entry, dict):
            if "id" in entry:
                raw = str(entry.get("id"))
                if not raw.isdigit() or not cal.existing_ids(conn, content_type, [int(raw)]):
                    raise cal.CalendarError("invalid-linked-post-id", "The provided linked post ID is not valid", status=400)
                ids.append(int(raw))
                continue
            data = _linked_input(request, ctx, content_type, entry)
            image = entry.get("image")
            if isinstance(image, str) and image:
                data.image = attachments.resolve_image(conn, ctx, image, request.user, downloads=scope_of(request).images)
            data.status = "publish" if ctx.can(_caps(request, content_type)["publish_posts"]) else "pending"
            try:
                item, _ = cal.save_linked(conn, ctx, content_type, data)
            except RestError as err:
                what = "venue" if content_type == cal.VENUE_TYPE else "organizer"
                raise cal.CalendarError(
                    f"could-not-create-{what}", f"The {what} could not be created from the provided data", status=400
                ) from err
            ids.append(item.id)
        else:
            ids.append(int(entry))
    return list(dict.fromkeys(ids))


def _event_input(request: RestRequest, conn: Any, ctx: Context, existing: Item | None) -> cal.EventInput:
    params = request.params
    tz_name = params.get("timezone") if isinstance(params.get("timezone"), str) else None
    data = cal.EventInput(
        title=params.get("title"),
        description=params.get("description"),
        excerpt=params.get("excerpt"),
        slug=params.get("slug") if existing is None or "slug" not in request.url_params else request.body_params().get("slug"),
        author=int(params["author"]) if params.get("author") not in (None, "") else None,
        date=_post_date(request, ctx, tz_name),
        status=_scaled_status(request, params.get("status"), existing),
        start=params.get("start_date"),
        end=params.get("end_date"),
        timezone=tz_name or None,
        all_day=truthy(params.get("all_day") or False),
        website=params.get("website"),
        show_map=truthy(params.get("show_map") or False),
        show_map_link=truthy(params.get("show_map_link") or False),
        hide_from_listings=truthy(params.get("hide_from_listings") or False),
        sticky=truthy(params.get("sticky") or False),
        featured=truthy(params.get("featured") or False),
    )
    if params.get("post_parent") is not None and _INT.fullmatch(str(params["post_parent"])):
        data.parent = int(params["post_parent"])
    cost = params.get("cost")
    if cost is not None:
        data.cost = [str(c) for c in cost] if isinstance(cost, list) else [str(cost)]
    image = params.get("image")
    if image is not None:
        if image == "":
            data.image = 0
        else:
            data.image = attachments.resolve_image(conn, ctx, str(image), request.user, downloads=scope_of(request).images)
    if "categories" in params:
        data.categories = _term_ids(conn, ctx, cal.CATEGORY_TAXONOMY, params["categories"])
    if "tags" in params:
        data.tags = _term_ids(conn, ctx, "post_tag", params["tags"])
    if "venue" in params:
        data.venues = _resolve_linked(request, conn, ctx, cal.VENUE_TYPE, params["venue"], False)
    if "organizer" in params:
        data.organizers = _resolve_linked(request, conn, ctx, cal.ORGANIZER_TYPE, params["organizer"], True)
    return data


def _download_inline_images(request: RestRequest) -> None:
    """Download the remote images of inline venues and organizers before the write transaction
    opens (the event's own ``image`` was fetched while it was checked); each URL once per request."""
    scope = scope_of(request)
    for name, many in (("venue", False), ("organizer", True)):
        value = request.params.get(name)
        if value in (None, "", 0, "0", [], {}):
            continue
        for entry in _linked_entries(value, many):
            if isinstance(entry, dict) and "id" not in entry and isinstance(entry.get("image"), str) and entry["image"]:
                attachments.check_image(scope.site, _ctx(request), entry["image"], request.user, scope.images)


def create_event(request: RestRequest) -> Any:
    ctx = _ctx(request)
    _download_inline_images(request)
    with _site(request).write() as conn:
        data = _event_input(request, conn, ctx, None)
        item = cal.save_event(conn, ctx, data)
    return RestResponse(show_event(request, item, single=False), status=201)


def _event_for_write(request: RestRequest) -> Any:
    if "slug" in request.url_params:
        target = _target(request, cal.EVENT_TYPE)
        item_id = target.id if target is not None else 0
    else:
        item_id = int(request.url_params.get("id") or 0)
    with _site(request).read() as conn:
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
    ctx = _ctx(request)
    _download_inline_images(request)
    with _site(request).write() as conn:
        data = _event_input(request, conn, ctx, found)
        item = cal.save_event(conn, ctx, data, found)
    return show_event(request, item, single=False)


def delete_event(request: RestRequest) -> Any:
    found = _event_for_write(request)
    if isinstance(found, RestError):
        return found
    if found.status == "trash":
        return RestError("event-is-in-trash", "The event is already trashed", status=410)
    with _site(request).write() as conn:
        item = cal.trash(conn, _ctx(request), found)
    return show_event(request, item, single=False)


# -- venues and organizers ------------------------------------------------------------------------


def _what(content_type: str) -> str:
    return "venue" if content_type == cal.VENUE_TYPE else "organizer"


def _linked_list(content_type: str) -> Callable[[RestRequest], Any]:
    what = _what(content_type)
    key = f"{what}s"

    def handler(request: RestRequest) -> Any:
        scope = scope_of(request)
        page = listing.list_linked(scope.site, _ctx(request), content_type, request.params, generation=scope.generation)
        query = page.query
        if not page.items and query.page > 1:
            return RestError(f"{what}-archive-page-not-found", f"The requested {what} archive page does not exist", status=404)
        builder = _builder(request, page.loaded)
        shown = [builder.venue(i) if what == "venue" else builder.organizer(i) for i in page.items]
        return _envelope(request, key, shown, page.total, query.page, query.per_page, query.applied)

    return handler


def _linked_target(request: RestRequest, content_type: str) -> Item | None:
    item = _target(request, content_type)
    return item if item is not None and item.type == content_type else None


def _show_linked(request: RestRequest, item: Item, *, single: bool) -> dict[str, Any]:
    with _site(request).read() as conn:
        builder = _builder(request, cal.load_items(conn, _ctx(request), [item]), single=single)
    return builder.venue(item) if item.type == cal.VENUE_TYPE else builder.organizer(item)


def _linked_get(content_type: str) -> Callable[[RestRequest], Any]:
    what = _what(content_type)

    def handler(request: RestRequest) -> Any:
        item = _linked_target(request, content_type)
        if item is None:  # validation makes this unreachable but for a concurrent delete
            return RestError(f"{what}-not-found", f"The {what} does not exist", status=404)
        if not permissions.can_read(_ctx(request), item):
            return RestError(f"{what}-not-accessible", f"The requested {what} is not accessible", status=403)
        return _show_linked(request, item, single=True)

    return handler


def _linked_save_input(request: RestRequest, conn: Any, ctx: Context, content_type: str, existing: Item | None) -> cal.LinkedInput:
    params = request.params
    data = _linked_input(request, ctx, content_type, params)
    if "slug" in request.url_params and existing is not None:
        data.title = request.body_params().get(_what(content_type)) if isinstance(
            request.body_params().get(_what(content_type)), str
        ) else data.title
    if params.get("author") not in (None, ""):
        data.author = int(params["author"])
    data.date = _post_date(request, ctx, None)
    data.status = _scaled_status(request, params.get("status"), existing)
    image = params.get("image")
    if image is not None:
        if image == "":
            data.image = 0
        else:
            data.image = attachments.resolve_image(conn, ctx, str(image), request.user, downloads=scope_of(request).images)
    return data


def _linked_create(content_type: str) -> Callable[[RestRequest], Any]:
    what = _what(content_type)

    def handler(request: RestRequest) -> Any:
        ctx = _ctx(request)
        try:
            with _site(request).write() as conn:
                data = _linked_save_input(request, conn, ctx, content_type, None)
                item, _ = cal.save_linked(conn, ctx, content_type, data)
        except cal.CalendarError:
            raise
        except RestError:
            return RestError(f"could-not-create-{what}", f"The {what} could not be created from the provided data", status=400)
        return RestResponse(_show_linked(request, item, single=False), status=201)

    return handler


def _linked_update(content_type: str) -> Callable[[RestRequest], Any]:
    what = _what(content_type)

    def handler(request: RestRequest) -> Any:
        existing = _linked_target(request, content_type)
        if existing is None:
            return RestError(f"{what}-not-found", f"The {what} does not exist", status=404)
        ctx = _ctx(request)
        try:
            with _site(request).write() as conn:
                data = _linked_save_input(request, conn, ctx, content_type, existing)
                item, _ = cal.save_linked(conn, ctx, content_type, data, existing)
        except cal.CalendarError:
            raise
        except RestError:
            return RestError(f"could-not-update-{what}", f"The {what} could not be updated", status=400)
        return _show_linked(request, item, single=False)

    return handler


def _linked_delete(content_type: str) -> Callable[[RestRequest], Any]:
    what = _what(content_type)

    def handler(request: RestRequest) -> Any:
        existing = _linked_target(request, content_type)
        if existing is None:
            return RestError(f"{what}-not-found", f"The {what} does not exist", status=404)
        if existing.status == "trash":
            return RestError(f"{what}-is-in-trash", f"The {what} is already trashed", status=410)
        with _site(request).write() as conn:
            item = cal.trash(conn, _ctx(request), existing)
        return _show_linked(request, item, single=False)

    return handler


# -- argument schemas -----------------------------------------------------------------------------


def _archive_args(content_type: str) -> dict[str, dict[str, Any]]:
    return {
        "page": arg("The archive page to return", "integer", default=1, validate=_positive_int),
        "per_page": arg("The number of items to return per page", "integer", validate=_positive_int),
        "search": arg("Limit results to those matching a string", "string", validate=_non_empty_string),
        "status": arg("Limit results to those with the given status", validate=_status_filter(content_type), sanitize=_keep),
    }


def event_archive_args() -> dict[str, dict[str, Any]]:
    args = _archive_args(cal.EVENT_TYPE)
    status = args.pop("status")
    args.update({
        "start_date": arg("Limit events to those starting after the specified date", "string", validate=_date),
        "end_date": arg("Limit events to those ending before the specified date", "string", validate=_date),
        "starts_before": arg("Limit events to those starting before the specified date", "string", validate=_date),
        "starts_after": arg("Limit events to those starting after the specified date", "string", validate=_date),
        "ends_before": arg("Limit events to those ending before the specified date", "string", validate=_date),
        "ends_after": arg("Limit events to those ending after the specified date", "string", validate=_date),
        "strict_dates": arg("Whether the dates are used as exact moments", "string", default="false", validate=_non_empty_string),
        "categories": arg("Events should be assigned one of the specified categories slugs or IDs", "array",
                          validate=_terms_exist("cal_events_cat"), sanitize=_keep),
        "tags": arg("Events should be assigned one of the specified tags slugs or IDs", "array", validate=_terms_exist("post_tag"), sanitize=_keep),
        "venue": arg("Events should be assigned one of the specified venue IDs", "array", validate=_existing(cal.VENUE_TYPE), sanitize=_keep),
        "organizer": arg("Events should be assigned one of the specified organizer IDs", "array",
                         validate=_existing(cal.ORGANIZER_TYPE), sanitize=_keep),
        "featured": arg("Events should be filtered by their featured status", "boolean", validate=_boolish),
        "status": status,
        # Without the geolocation extension these are accepted and ignored, whatever their value.
        "geoloc": arg("Requires Events Calendar Pro. Events should be filtered by whether their venue has geolocation data",
                      "boolean", validate=_anything, sanitize=_keep),
        "geoloc_lat": arg("Requires Events Calendar Pro. Events should be filtered by their venue latitude location", "number",
                          validate=_anything, sanitize=_keep),
        "geoloc_lng": arg("Requires Events Calendar Pro. Events should be filtered by their venue longitude location", "number",
                          validate=_anything, sanitize=_keep),
        "include": arg("Include events with the specified IDs", "array", validate=_include, sanitize=_keep),
        "post_parent": arg("Events should be filtered by their post_parent being the specified one", "integer",
                           validate=_existing_one(cal.EVENT_TYPE)),
        "ticketed": arg("Filter events with or without tickets", "boolean", validate=_ticketed),
    })
    return args


def event_write_args(*, creating: bool) -> dict[str, dict[str, Any]]:
    return {
        "author": arg("The event author ID", "integer", validate=_user_exists),
        "date": arg("The event publication date", "string", validate=_date),
        "date_utc": arg("The event publication date (UTC time zone)", "string", validate=_date),
        "title": arg("The event title", "string", required=creating, validate=_non_empty_string),
        "description": arg("The event description", "string", validate=_string_or_empty),
        "slug": arg("The event slug", "string", validate=_non_empty_string),
        "excerpt": arg("The event excerpt", "string", validate=_string_or_empty),
        "status": arg("The event post status", "string", validate=_post_status),
        "timezone": arg("The event time zone", "string", validate=_timezone),
        "all_day": arg("Whether the event lasts the whole day or not", "boolean", validate=_boolish),
        "start_date": arg("The event start date and time", "string", required=creating, validate=_date),
        "end_date": arg("The event end date and time", "string", required=creating, validate=_date),
        "image": arg("The event featured image ID or URL", "string", validate=_image),
        "cost": arg("The event cost", sanitize=_keep),
        "website": arg("The event website URL", "string", validate=_url_or_empty),
        "show_map": arg("Whether the event should show a map", "boolean", validate=_boolish),
        "show_map_link": arg("Whether the event should show a map link", "boolean", validate=_boolish),
        "hide_from_listings": arg("Whether the event should be hidden from the event list", "boolean", validate=_boolish),
        "sticky": arg("Whether the event should be sticky in month view", "boolean", validate=_boolish),
        "featured": arg("Whether the event should be featured on the site", "boolean", validate=_boolish),
        "categories": arg("The event category ID or name", "array", sanitize=_keep),
        "tags": arg("The event tag ID or name", "array", sanitize=_keep),
        "venue": arg("The event venue ID or data", "array", validate=_linked_value(cal.VENUE_TYPE, False), sanitize=_keep),
        "organizer": arg("The event organizer IDs or data", "array", validate=_linked_value(cal.ORGANIZER_TYPE, True),
                         sanitize=_keep),
    }


def linked_write_args(content_type: str, *, creating: bool) -> dict[str, dict[str, Any]]:
    what = _what(content_type)
    args: dict[str, dict[str, Any]] = {
        "author": arg(f"The {what} author ID", "integer", validate=_user_exists),
        "date": arg(f"The {what} publication date", "string", validate=_date),
        "date_utc": arg(f"The {what} publication date (UTC time zone)", "string", validate=_date),
        what: arg(f"The {what} name", "string", required=creating, validate=_non_empty_string),
        "description": arg(f"The {what} description", "string", validate=_string_or_empty),
        "status": arg(f"The {what} post status", "string", validate=_post_status),
    }
    for field in kind_of(content_type).arguments:  # the type's fields, in the reference's order
        if field.kind == FLAG:
            args[field.name] = arg(field.description, "string")  # any value, read as a flag
        else:
            args[field.name] = arg(field.description, "string", validate=_url_or_empty if field.kind == URL else _string_or_empty)
    args["image"] = arg(f"The {what} featured image ID or URL", "string", validate=_image)
    return args


def linked_archive_args(content_type: str) -> dict[str, dict[str, Any]]:
    args = _archive_args(content_type)
    status = args.pop("status")
    args.update({
        "event": arg("Only items linked to this event", "integer", validate=_existing_one(cal.EVENT_TYPE)),
        # Untyped in the reference (documented as booleans): any value is read as a flag, none is refused.
        "has_events": arg("Only items with (or without) events", swagger_type="boolean"),
        "only_with_upcoming": arg("Only items with upcoming events", swagger_type="boolean", default=False),
        "status": status,
    })
    return args


# -- registration ---------------------------------------------------------------------------------


def _raising(handler: Callable[[RestRequest], Any]) -> Callable[[RestRequest], Any]:
    """The handlers return their errors; the engine answers raised ones in the error shape."""

    def run(request: RestRequest) -> Any:
        result = handler(request)
        if isinstance(result, RestError):
            raise result
        return result

    return run


def routes(api: Api) -> list[Route]:
    """The events, venues and organizers routes and the calendar's /doc, in the reference's order."""

    def endpoint(methods: tuple[str, ...], handler: Callable[[RestRequest], Any], permission: Any = None,
                 args: dict[str, dict[str, Any]] | None = None) -> Endpoint:
        return Endpoint(
            methods,
            _raising(handler),
            permission,
            args=args or {},
            cache=methods == ("GET",),
        )

    from . import cal_doc

    found = [Route(NAMESPACE, "/doc", [endpoint(("GET",), lambda request: cal_doc.document(api, request))], name="cal.doc")]
    id_arg = {"id": arg("the event post ID", "integer", required=True)}
    slug_arg = {"slug": arg("the event post name", "string", required=True, validate=_slug_of(cal.EVENT_TYPE))}
    found.append(Route(NAMESPACE, "/events", [
        endpoint(("GET",), list_events, args=event_archive_args()),
        endpoint(("POST",), create_event, _create_permission(cal.EVENT_TYPE), event_write_args(creating=True)),
    ], name="cal.events"))
    # Endpoint order as the reference registers them (its Allow header reads GET, DELETE, POST, PUT, PATCH).
    for path, ident, name in (("/events/(?P<id>\\d+)", id_arg, "cal.events.item"),
                              ("/events/by-slug/(?P<slug>[^/]+)", slug_arg, "cal.events.by-slug")):
        found.append(Route(NAMESPACE, path, [
            endpoint(("GET",), get_event, args={**ident, "password": arg("The event password", "string")}),
            endpoint(("DELETE",), delete_event, _item_permission(cal.EVENT_TYPE, "delete"), ident),
            endpoint(("POST", "PUT", "PATCH"), update_event, _item_permission(cal.EVENT_TYPE, "edit"),
                     {**ident, **event_write_args(creating=False)}),
        ], name=name))
    for content_type in (cal.VENUE_TYPE, cal.ORGANIZER_TYPE):
        what = _what(content_type)
        item_id = {"id": arg(f"the {what} post ID", "integer", required=True, validate=_existing_one(content_type))}
        item_slug = {"slug": arg(f"the {what} post name", "string", required=True, validate=_slug_of(content_type))}
        found.append(Route(NAMESPACE, f"/{what}s", [
            endpoint(("GET",), _linked_list(content_type), args=linked_archive_args(content_type)),
            endpoint(("POST",), _linked_create(content_type), _create_permission(content_type),
                     linked_write_args(content_type, creating=True)),
        ], name=f"cal.{what}s"))
        for path, ident, name in ((f"/{what}s/(?P<id>\\d+)", item_id, f"cal.{what}s.item"),
                                  (f"/{what}s/by-slug/(?P<slug>[^/]+)", item_slug, f"cal.{what}s.by-slug")):
            found.append(Route(NAMESPACE, path, [
                endpoint(("GET",), _linked_get(content_type), args=ident),
                endpoint(("DELETE",), _linked_delete(content_type), _item_permission(content_type, "delete"), ident),
                endpoint(("POST", "PUT", "PATCH"), _linked_update(content_type), _item_permission(content_type, "edit"),
                         {**ident, **linked_write_args(content_type, creating=False)}),
            ], name=name))
    return found
