"""The calendar's input service: loose event, venue and organizer data (a mapping as REST arguments
arrive, or as an HTML form or an import feed gives them) and the service context in, a typed
input out (``EventInput``, ``LinkedInput``: :mod:`.events` saves them), with the rules of
calendar-api.md section 4 applied: status scaling (4.1), the post date, categories and tags found
or created (4.4), venues and organizers linked or created inline with duplicate reuse (4.6, 4.8,
4.9), the cost (4.5) and the image as an attachment id.

Everything here runs inside the write transaction and does no network I/O: a remote ``image``
(top-level or on an inline venue or organizer) must have been downloaded before the transaction
opened (:func:`image_values` lists them; :func:`calpress.media.attachments.check_image` fetches
one), and the downloads are handed over as ``images``.

The data is assumed checked (the REST layer validates the arguments first; ``linked_value_ids``
is its rule for venue and organizer values). A key present with None counts as given where
presence matters (``categories``, ``tags``, ``venue``, ``organizer``: present and empty clears).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from ..content import items as item_service
from ..content import permissions
from ..content import terms as term_store
from ..content.items import Context, Item
from ..media import attachments
from ..rest.errors import RestError
from .definitions import CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from .events import CalendarError, EventInput, LinkedInput, existing_ids, parse_moment, save_linked, site_timezone
from .fields import FLAG, LinkedKind, invalid_field, kind_of
from .values import as_list, is_empty_link, linked_entries, truthy

_INT = re.compile(r"\d+")
# The kinds an event links; the event's arguments that link them are named as the kinds.
_VENUE, _ORGANIZER = kind_of(VENUE_TYPE), kind_of(ORGANIZER_TYPE)


# -- shared rules ---------------------------------------------------------------------------------


def scaled_status(ctx: Context, given: str | None, existing: Item | None) -> str | None:
    """calendar-api.md 4.1 status scaling, with the events type's publishing capability (for
    venues and organizers too): a missing status is ``publish`` for users who may publish,
    ``draft`` for the others (kept on update); ``publish`` and ``future`` become ``pending`` for
    users who may not publish."""
    can_publish = permissions.can_publish(ctx, ctx.registry.types[EVENT_TYPE])
    if given is None:
        if existing is not None:
            return None
        return "publish" if can_publish else "draft"
    if not can_publish and given in ("publish", "future"):
        return "pending"
    return given


def post_date(ctx: Context, data: Mapping[str, Any], zone_name: str | None) -> tuple[dt.datetime, dt.datetime] | None:
    """The publication date (site wall time, UTC) of ``date_utc`` (read in UTC) or ``date`` (read
    in the event's zone ``zone_name``, else the site's); None when neither is given."""
    site_zone = ctx.zone
    if data.get("date_utc") is not None:
        moment = parse_moment(data.get("date_utc"), dt.UTC)
    elif data.get("date") is not None:
        zone, _ = site_timezone(ctx.options, zone_name or None)
        moment = parse_moment(data.get("date"), zone)
    else:
        return None
    if moment is None:
        return None
    utc = moment.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)
    return item_service.to_local(utc, site_zone), utc


# Terms, venues and organizers that a run of event writes found or made by name, by what named
# them (a term's taxonomy and name; a venue's or organizer's type and fields): an import's batch
# resolves each once, not once per event. The caller owns it and puts back a copy taken before
# an event whose savepoint rolled back, so that nothing rolled back stays in it.
Resolved = dict[tuple[str, ...], int]


def term_ids(conn: sa.Connection, ctx: Context, taxonomy: str, value: Any, resolved: Resolved | None = None) -> list[int]:
    """calendar-api.md 4.4: ids must exist (unknown ones skipped); names or slugs are looked up
    and created when missing. Duplicates and blanks dropped, order kept."""
    definition = ctx.registry.taxonomies[taxonomy]
    ids: list[int] = []
    entries = [(entry, str(entry).strip()) for entry in as_list(value)]
    numbers = {int(text) for entry, text in entries if text and (isinstance(entry, int) or text.isdigit())}
    # the terms given by id, in one statement
    known = {term.id for term in term_store.get_terms(conn, numbers).values() if term.taxonomy == taxonomy} if numbers else set()
    for entry, text in entries:
        if not text:
            continue
        if isinstance(entry, int) or text.isdigit():
            found = int(text) if int(text) in known else None
        elif resolved is not None and ("term", taxonomy, text) in resolved:
            found = resolved["term", taxonomy, text]
        else:
            term = term_store.find_term(conn, taxonomy, text)
            if term is None:
                term = term_store.create_term(conn, definition, text)
            found = term.id
            if resolved is not None:
                resolved["term", taxonomy, text] = found
        if found is not None and found not in ids:
            ids.append(found)
    return ids


def _image(conn: sa.Connection, ctx: Context, value: Any, images: attachments.Downloads | None) -> int:
    return attachments.resolve_image(conn, ctx, str(value), ctx.user, downloads=images)


# -- venues and organizers ------------------------------------------------------------------------


def linked_fields(content_type: str, data: Mapping[str, Any]) -> LinkedInput:
    """The name, description, excerpt, fields and flags of a venue or organizer given as data
    (on its own route or inline on an event). Values that are objects or lists are ignored, and
    so is a value its field's ``check`` refuses (an organizer e-mail that is no address, as an
    import may give one: the REST routes refuse it first, :func:`check_fields`)."""
    kind = kind_of(content_type)

    def text(name: str) -> str | None:
        value = data.get(name)
        return value if isinstance(value, str) else None

    found = LinkedInput(title=text(kind.name), description=text("description"), excerpt=text("excerpt"))
    for f in kind.arguments:
        value = data.get(f.name)
        if value is None:
            continue
        if f.kind == FLAG:
            found.flags[f.name] = truthy(value)
        elif not isinstance(value, (dict, list)) and (f.check is None or f.check(str(value))):
            found.fields[f.name] = str(value)
    return found


def check_fields(content_type: str, data: Mapping[str, Any]) -> None:
    """Refuse a venue or organizer write whose field a ``check`` refuses (the organizer e-mail:
    ``is_email()``, so that no line break or control character reaches the .ics exports): 400
    ``rest_invalid_param`` naming it, as the REST engine names an argument its validator refuses."""
    bad = invalid_field(content_type, dict(data))
    if bad is not None:
        raise CalendarError("rest_invalid_param", f"Invalid parameter(s): {bad.name}", status=400,
                            params={bad.name: "Invalid parameter."}, details=[])


def linked_input(
    conn: sa.Connection,
    ctx: Context,
    content_type: str,
    data: Mapping[str, Any],
    existing: Item | None = None,
    *,
    images: attachments.Downloads | None = None,
) -> LinkedInput:
    """A venue or organizer write on its own route (calendar-api.md 4.8, 4.9): its fields, the
    author, the post date, the scaled status and the image (0 when given empty: removed). A
    field its ``check`` refuses is a 400 (:func:`check_fields`)."""
    check_fields(content_type, data)
    found = linked_fields(content_type, data)
    if data.get("author") not in (None, ""):
        found.author = int(data["author"])
    found.date = post_date(ctx, data, None)
    found.status = scaled_status(ctx, data.get("status"), existing)
    image = data.get("image")
    if image is not None:
        found.image = 0 if image == "" else _image(conn, ctx, image, images)
    return found


def linked_value_ids(content_type: str, value: Any, *, many: bool) -> set[int] | None:
    """The ids a venue (one) or organizer (``many``) value given on an event links by id, or None
    when the value is malformed: more than one venue, an object to create without a name (or
    with a field its ``check`` refuses: an e-mail that is no address), an entry that is neither
    an id nor an object. Objects with an ``id`` are checked when the event
    is saved (``invalid-linked-post-id``); empty values unlink."""
    if is_empty_link(value):
        return set()
    name = kind_of(content_type).name
    entries = linked_entries(value)
    if not many and len(entries) > 1:
        return None
    ids: set[int] = set()
    for entry in entries:
        if isinstance(entry, dict):
            if "id" in entry:
                continue
            title = entry.get(name)
            if not isinstance(title, str) or not title.strip():
                return None
            if invalid_field(content_type, entry) is not None:
                return None  # an organizer to create whose e-mail is no address
        elif isinstance(entry, int) or (isinstance(entry, str) and _INT.fullmatch(entry)):
            ids.add(int(entry))
        else:
            return None
    return ids


def linked_ids(
    conn: sa.Connection,
    ctx: Context,
    kind: LinkedKind,
    value: Any,
    *,
    images: attachments.Downloads | None = None,
    resolved: Resolved | None = None,
) -> list[int]:
    """The venues or organizers a value given on an event links, in order, without repeats: ids
    are linked, ``{"id": N}`` objects too (400 ``invalid-linked-post-id`` when N is not one of the
    type), other objects are created, reusing an identical record (published when the user may
    publish the type, else pending). Empty values unlink (an empty list)."""
    if is_empty_link(value):
        return []
    ids: list[int] = []
    for entry in linked_entries(value):
        if not isinstance(entry, dict):
            ids.append(int(entry))
            continue
        if "id" in entry:
            raw = str(entry.get("id"))
            if not raw.isdigit() or not existing_ids(conn, kind.content_type, [int(raw)]):
                raise CalendarError("invalid-linked-post-id", "The provided linked post ID is not valid", status=400)
            ids.append(int(raw))
            continue
        key = (kind.content_type, repr(sorted((str(k), repr(v)) for k, v in entry.items())))
        if resolved is not None and key in resolved:
            ids.append(resolved[key])
            continue
        data = linked_fields(kind.content_type, entry)
        image = entry.get("image")
        if isinstance(image, str) and image:
            data.image = _image(conn, ctx, image, images)
        data.status = "publish" if permissions.can_publish(ctx, ctx.registry.types[kind.content_type]) else "pending"
        try:
            item, _ = save_linked(conn, ctx, kind.content_type, data)
        except RestError as err:
            raise CalendarError(
                f"could-not-create-{kind.name}", f"The {kind.name} could not be created from the provided data", status=400
            ) from err
        ids.append(item.id)
        if resolved is not None:
            resolved[key] = item.id
    return list(dict.fromkeys(ids))


# -- events ---------------------------------------------------------------------------------------


def event_input(
    conn: sa.Connection,
    ctx: Context,
    data: Mapping[str, Any],
    existing: Item | None = None,
    *,
    images: attachments.Downloads | None = None,
    resolved: Resolved | None = None,
) -> EventInput:
    """An event create (``existing`` None) or update as a typed input (calendar-api.md 4.1-4.6).
    Terms named by name or slug and inline venues and organizers are created here, in the
    caller's transaction (and remembered in ``resolved``, when given, for the next events)."""
    zone_name = data.get("timezone") if isinstance(data.get("timezone"), str) else None
    found = EventInput(
        title=data.get("title"),
        description=data.get("description"),
        excerpt=data.get("excerpt"),
        slug=data.get("slug"),
        author=int(data["author"]) if data.get("author") not in (None, "") else None,
        date=post_date(ctx, data, zone_name),
        status=scaled_status(ctx, data.get("status"), existing),
        start=data.get("start_date"),
        end=data.get("end_date"),
        timezone=zone_name or None,
        all_day=truthy(data.get("all_day") or False),
        website=data.get("website"),
        show_map=truthy(data.get("show_map") or False),
        show_map_link=truthy(data.get("show_map_link") or False),
        hide_from_listings=truthy(data.get("hide_from_listings") or False),
        sticky=truthy(data.get("sticky") or False),
        featured=truthy(data.get("featured") or False),
    )
    if data.get("post_parent") is not None and _INT.fullmatch(str(data["post_parent"])):
        found.parent = int(data["post_parent"])
    cost = data.get("cost")
    if cost is not None:
        found.cost = [str(c) for c in cost] if isinstance(cost, list) else [str(cost)]
    image = data.get("image")
    if image is not None:
        found.image = 0 if image == "" else _image(conn, ctx, image, images)
    if "categories" in data:
        found.categories = term_ids(conn, ctx, CATEGORY_TAXONOMY, data["categories"], resolved)
    if "tags" in data:
        found.tags = term_ids(conn, ctx, "post_tag", data["tags"], resolved)
    if _VENUE.name in data:
        found.venues = linked_ids(conn, ctx, _VENUE, data[_VENUE.name], images=images, resolved=resolved)
    if _ORGANIZER.name in data:
        found.organizers = linked_ids(conn, ctx, _ORGANIZER, data[_ORGANIZER.name], images=images, resolved=resolved)
    return found


def image_values(data: Mapping[str, Any]) -> list[str]:
    """Every ``image`` an event's data gives, its own and those of inline venues and organizers
    to create: what must be downloaded before the write transaction opens."""
    found: list[str] = []
    image = data.get("image")
    if image not in (None, ""):
        found.append(str(image))
    for kind in (_VENUE, _ORGANIZER):
        value = data.get(kind.name)
        if is_empty_link(value):
            continue
        for entry in linked_entries(value):
            if isinstance(entry, dict) and "id" not in entry and isinstance(entry.get("image"), str) and entry["image"]:
                found.append(entry["image"])
    return list(dict.fromkeys(found))
