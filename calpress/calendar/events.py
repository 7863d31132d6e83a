"""The calendar's data: events (an item of ``cal_events`` plus a typed ``events`` row), venues and
organizers (items whose attributes live in ``posts.meta`` under the reference's meta keys, so
cms/v2 shows the same records; :mod:`.fields` lists them), and the links between them.

Writes take a typed input (``EventInput``, ``LinkedInput``: :mod:`.input` reads them from loose
data) and go through :mod:`calpress.content.items` (one transaction, slugs, statuses, terms),
adding the event row, the links and the meta mirror the reference keeps (``_EventStartDate``...).
Reads load calendar items with everything their representations embed (:func:`load_items`) in a
fixed number of statements; listings are :mod:`.listing`'s.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from ..compat.formatting import is_safe_url, safe_url
from ..compat.phpdate import mysql_datetime
from ..compat.strtotime import parse_datetime
from ..content import items as item_service
from ..content import terms as term_store
from ..content.items import Context, Item, ItemChanges
from ..media import attachments
from ..rest.errors import RestError
from ..store.fast import FastQuery, Shapes, bind_list, in_binds, rows_insert, rows_params
from ..store.tables import event_links, events, posts
from .dates import is_valid_timezone, resolve_timezone
from .definitions import CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from .fields import EXACT, URL, WORDS, kind_of

LINEAGE_KEY = "_cal_global_id_lineage"


class CalendarError(RestError):
    """A calendar handler error (code, message, status)."""


# -- dates ----------------------------------------------------------------------------------------

_DIGITS = re.compile(r"-?\d+")


def parse_moment(value: Any, zone: dt.tzinfo, now: dt.datetime | None = None) -> dt.datetime | None:
    """A date argument as an aware datetime in ``zone``: an integer or all-digit string is a Unix
    timestamp, anything else is read as PHP's strtotime would in ``zone``. None when unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        text = str(int(value))
    else:
        text = str(value).strip()
    if not text:
        return None
    if _DIGITS.fullmatch(text):
        try:
            return dt.datetime.fromtimestamp(int(text), dt.UTC).astimezone(zone)
        except (OverflowError, OSError, ValueError):
            return None
    return parse_datetime(text, zone, now)


def wall_to_utc(local: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    return local.replace(tzinfo=zone).astimezone(dt.UTC).replace(tzinfo=None)


def db_datetime(value: dt.datetime | None) -> str:
    return mysql_datetime(value) if value is not None else ""


def site_timezone(options: dict[str, Any], name: str | None = None) -> tuple[dt.tzinfo, str]:
    """The zone (and its stored name) of an event: ``name`` when given, else the site's."""
    return resolve_timezone(name, str(options.get("timezone_string") or ""), options.get("gmt_offset"))


def valid_timezone(value: Any) -> bool:
    return isinstance(value, str) and (not value.strip() or is_valid_timezone(value))


# -- cost -----------------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _number_value(text: str) -> float:
    cleaned = text.replace(",", "") if text.count(",") and "." in text else text.replace(",", ".")
    try:
        return float(cleaned)
    except ValueError:
        return 0.0


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.2f}".rstrip("0").rstrip(".")


def parse_cost(texts: Sequence[str]) -> tuple[list[str], str, str]:
    """(numeric values sorted as strings, symbol, position) found in cost texts. The symbol is
    the non-numeric text before ("prefix") or after ("postfix") the first number, if any."""
    values, symbol, position = _parse_cost(tuple(texts))
    return list(values), symbol, position


@functools.lru_cache(maxsize=1024)
def _parse_cost(texts: tuple[str, ...]) -> tuple[tuple[str, ...], str, str]:
    numbers: dict[float, str] = {}
    symbol = position = ""
    for text in texts:
        for found in _NUMBER.finditer(text):
            value = _number_value(found.group())
            numbers.setdefault(value, _number_text(value))
        if not symbol:
            match = _NUMBER.search(text)
            if match:
                before = re.search(r"(\S*)\s*$", text[: match.start()]).group(1)
                after = re.match(r"\s*([^\s\d,;]*)", text[match.end():]).group(1)
                if before and not before[-1].isalnum() and before[-1] not in "-–":
                    symbol, position = before, "prefix"
                elif after and not after[0].isalnum() and after[0] not in "-–.":
                    symbol, position = after, "postfix"
    return tuple(numbers[key] for key in sorted(numbers)), symbol, position


def format_cost(texts: Sequence[str], options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The event's ``cost`` text and ``cost_details`` (calendar-api.md 4.5)."""
    texts = [t for t in (str(x).strip() for x in texts) if t]
    values, symbol, position = parse_cost(texts)
    details = {"currency_symbol": symbol, "currency_code": "", "currency_position": position, "values": values}
    if not texts:
        return "", details
    if not values:
        return texts[0], {**details, "values": [texts[0]]}
    shown_symbol = symbol or str(options.get("cal_currency_symbol", "$"))
    shown_position = position or ("postfix" if options.get("cal_currency_reverse_position") else "prefix")

    def money(text: str) -> str:
        if _number_value(text) == 0:
            return "Free"
        return f"{text}{shown_symbol}" if shown_position == "postfix" else f"{shown_symbol}{text}"

    low, high = values[0], values[-1]
    return (money(low) if low == high else f"{money(low)} – {money(high)}"), details


# -- records as loaded ----------------------------------------------------------------------------


@dataclass
class EventRow:
    """The typed columns of one event."""

    start_local: dt.datetime
    end_local: dt.datetime
    start_utc: dt.datetime
    end_utc: dt.datetime
    timezone: str
    all_day: bool
    featured: bool
    sticky: bool
    hidden: bool


EVENT_COLUMNS = (
    events.c.start_local, events.c.end_local, events.c.start_utc, events.c.end_utc, events.c.timezone,
    events.c.all_day, events.c.featured, events.c.sticky, events.c.hidden,
)


def event_row(row: Any) -> EventRow:
    return EventRow(
        start_local=row.start_local, end_local=row.end_local, start_utc=row.start_utc, end_utc=row.end_utc,
        timezone=row.timezone or "", all_day=bool(row.all_day), featured=bool(row.featured),
        sticky=bool(row.sticky), hidden=bool(row.hidden),
    )


@dataclass
class Loaded:
    """A page of calendar items with everything their representations embed."""

    items: list[Item]
    event_rows: dict[int, EventRow] = field(default_factory=dict)
    venues: dict[int, list[int]] = field(default_factory=dict)
    organizers: dict[int, list[int]] = field(default_factory=dict)
    linked: dict[int, Item] = field(default_factory=dict)
    terms: dict[int, dict[str, list[Any]]] = field(default_factory=dict)
    images: dict[int, Any] = field(default_factory=dict)  # attachment id -> image object (False: none)
    trashed_links: dict[int, list[int]] = field(default_factory=dict)  # event id -> linked ids in the trash

    def sources(self, item: Item, *, terms: bool = True) -> set[tuple[str, int]]:
        """The records the representation of ``item`` (an event of this page) is built from, as
        store/memo.py names them: the event, its venues and organizers (trashed ones too), the
        featured images of all of them, and (unless ``terms`` is false) its terms."""
        linked = [*self.venues.get(item.id, ()), *self.organizers.get(item.id, ())]
        found = {("item", item.id), *(("item", i) for i in linked), *(("item", i) for i in self.trashed_links.get(item.id, ()))}
        media = [item.featured_media, *(self.linked[i].featured_media for i in linked if i in self.linked)]
        found.update(("item", int(m)) for m in media if m)
        if terms:
            for listed in self.terms.get(item.id, {}).values():
                found.update(("term", term.id) for term in listed)
        return found


def load_items(
    conn: sa.Connection, ctx: Context, found: Sequence[Item], *, event_rows: dict[int, EventRow] | None = None
) -> Loaded:
    """Everything the representations of ``found`` (events, venues or organizers) embed, in at
    most four statements: the event rows (unless loaded with the page: ``event_rows``), the links
    joined to the linked items, the terms, and the featured images of all of them."""
    loaded = Loaded(items=list(found))
    event_ids = [item.id for item in found if item.type == EVENT_TYPE]
    if event_ids:
        _load_event_data(conn, loaded, event_ids, event_rows)
    loaded.images = _images(conn, ctx, [*loaded.items, *loaded.linked.values()])
    return loaded


def _images(conn: sa.Connection, ctx: Context, found: Sequence[Item]) -> dict[int, Any]:
    """The image objects of ``found``'s featured images, their addresses the site's storage's."""
    storage = getattr(ctx.site, "storage", None)
    return attachments.image_objects(conn, ctx.home, {item.featured_media for item in found if item.featured_media},
                                     storage=storage)


_LINKED = posts.alias("linked")
# The links of a page of events joined to the venues and organizers they name, per number of
# event ids bound (store/fast.padded_size). Trashed ones are read too, and left out in Python:
# what an event was built from includes the venue it does not show because it is in the trash.
_LINKS = Shapes(lambda size: (
    sa.select(event_links.c.event_id, event_links.c.kind, _LINKED)
    .join(_LINKED, _LINKED.c.id == event_links.c.linked_id)
    .where(in_binds(event_links.c.event_id, "event", size))
    .order_by(event_links.c.event_id, event_links.c.kind, event_links.c.position)
))
_EVENT_ROWS = Shapes(lambda size: sa.select(events.c.post_id, *EVENT_COLUMNS).where(in_binds(events.c.post_id, "event", size)))


def _load_event_data(
    conn: sa.Connection, loaded: Loaded, event_ids: list[int], event_rows: dict[int, EventRow] | None
) -> None:
    ids = bind_list("event", event_ids)
    if event_rows is not None:
        loaded.event_rows = event_rows
    else:
        for row in _EVENT_ROWS(len(ids)).rows(conn, ids):
            loaded.event_rows[row.post_id] = event_row(row)
    linked = loaded.linked
    for row in _LINKS(len(ids)).rows(conn, ids):
        if row.status == "trash":
            loaded.trashed_links.setdefault(row.event_id, []).append(row.id)
            continue
        target = loaded.venues if row.kind == "venue" else loaded.organizers
        target.setdefault(row.event_id, []).append(row.id)
        if row.id not in linked:
            linked[row.id] = Item.from_row(row)
    loaded.terms = term_store.get_object_terms(conn, event_ids, [CATEGORY_TAXONOMY, "post_tag"])


def get_event_row(conn: sa.Connection, event_id: int) -> EventRow | None:
    row = conn.execute(sa.select(*EVENT_COLUMNS).where(events.c.post_id == event_id)).first()
    return event_row(row) if row is not None else None


def slug_to_id(conn: sa.Connection, content_type: str, slug: str) -> int | None:
    """The id of the item of ``content_type`` with exactly this slug (not trashed first)."""
    rows = conn.execute(
        sa.select(posts.c.id, posts.c.status).where(posts.c.type == content_type, posts.c.slug == slug).order_by(posts.c.id)
    ).all()
    if not rows:
        return None
    live = [row.id for row in rows if row.status != "trash"]
    return live[0] if live else rows[0].id


_EXISTING = Shapes(lambda size: sa.select(posts.c.id).where(
    posts.c.type == sa.bindparam("type", type_=posts.c.type.type), in_binds(posts.c.id, "id", size)))


def _existing(content_type: str, ids: Iterable[int]) -> tuple[FastQuery, dict[str, Any]] | None:
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        return None
    params = {"type": content_type, **bind_list("id", wanted)}
    return _EXISTING(len(params) - 1), params


def existing_ids_on(site: Any, content_type: str, ids: Iterable[int]) -> set[int]:
    """:func:`existing_ids` as one statement on the site's query connection (no transaction of
    its own): what an argument check asks before a write."""
    found = _existing(content_type, ids)
    return {row.id for row in site.query(*found)} if found is not None else set()


def existing_ids(conn: sa.Connection, content_type: str, ids: Iterable[int]) -> set[int]:
    """The ids among ``ids`` of items of ``content_type``."""
    found = _existing(content_type, ids)
    return {row.id for row in found[0].rows(conn, found[1])} if found is not None else set()


# -- writing --------------------------------------------------------------------------------------


@dataclass
class LinkedInput:
    """A venue or organizer to create (or reuse) from an inline object or its own route.
    ``fields`` are the text and URL fields given and ``flags`` the flags given, by wire name
    (:mod:`.fields`)."""

    title: str | None = None
    description: str | None = None
    excerpt: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)
    author: int | None = None
    date: tuple[dt.datetime, dt.datetime] | None = None
    status: str | None = None
    image: int | None = None  # attachment id; 0 removes


def linked_meta(content_type: str, data: LinkedInput) -> dict[str, Any]:
    """The meta a venue or organizer write stores: the fields given (empty ones removed), the
    derived ones, and every flag."""
    kind = kind_of(content_type)
    values = dict(data.fields)
    for link in kind.of_kind(URL):
        if not is_safe_url(values.get(link.name)):
            values[link.name] = ""  # a javascript: (data:...) link is never stored, whoever writes it
    for derived in kind.values:
        if derived.derive is not None and not values.get(derived.name):
            # As the reference saves a venue, on create and on update alike: a missing or empty
            # stateprovince is derived from the state or province *given with this write*, so an
            # update that names none of the three clears it (spec/examples: "Update a venue").
            values[derived.name] = derived.derive(values)
    keys = {f.name: f.meta_key for f in kind.values}
    meta: dict[str, Any] = {keys[name]: value if value != "" else None for name, value in values.items() if name in keys}
    for flag in kind.flags:
        # The flags are stored on every save, as the reference does: true unless given falsy.
        meta[flag.meta_key] = data.flags.get(flag.name, True)
    return meta


def find_duplicate(conn: sa.Connection, content_type: str, data: LinkedInput) -> int | None:
    """An existing venue/organizer equal, case-insensitively, in every non-empty field given
    among the type's duplicate fields (calendar-api.md 4.8, 4.9); an address matches when it
    contains every word given."""
    if not data.title:
        return None
    rows = conn.execute(
        sa.select(posts)
        .where(posts.c.type == content_type, posts.c.status != "trash", sa.func.lower(posts.c.title) == data.title.lower())
        .order_by(posts.c.id)
    ).all()
    compared = kind_of(content_type).duplicates
    for row in rows:
        item = Item.from_row(row)
        same = True
        for given, stored in ((data.description, item.content), (data.excerpt, item.excerpt)):
            if given and given.strip().lower() != (stored or "").strip().lower():
                same = False
        for name, value in data.fields.items():
            rule = compared.get(name)
            if not value or rule is None:
                continue
            stored = str(item.meta.get(rule.meta_key) or "").lower()
            if rule.duplicate == WORDS:
                if not all(word in stored for word in value.lower().split()):
                    same = False
            elif rule.duplicate == EXACT and stored != value.lower():
                same = False
        if same:
            return item.id
    return None


def save_linked(
    conn: sa.Connection, ctx: Context, content_type: str, data: LinkedInput, before: Item | None = None
) -> tuple[Item, bool]:
    """Create (reusing an identical record: returns it unchanged) or update a venue/organizer.
    Returns the item and whether it was newly created."""
    if before is None:
        duplicate = find_duplicate(conn, content_type, data)
        if duplicate is not None:
            found = item_service.get_item(conn, duplicate)
            assert found is not None
            return found, False
    changes = ItemChanges(
        title=data.title,
        content=data.description,
        excerpt=data.excerpt,
        status=data.status,
        author=data.author,
        date=data.date,
        featured_media=data.image,
        meta=linked_meta(content_type, data),
    )
    if before is None:
        return item_service.create_item(conn, ctx, ctx.registry.types[content_type], changes), True
    return item_service.update_item(conn, ctx, before, changes), False


@dataclass
class EventInput:
    """What an event create or update asks for; None keeps (or defaults) a field."""

    title: str | None = None
    description: str | None = None
    excerpt: str | None = None
    slug: str | None = None
    author: int | None = None
    date: tuple[dt.datetime, dt.datetime] | None = None
    status: str | None = None
    parent: int | None = None
    start: Any = None
    end: Any = None
    timezone: str | None = None
    all_day: bool = False
    image: int | None = None
    cost: list[str] | None = None
    website: str | None = None
    show_map: bool = False
    show_map_link: bool = False
    hide_from_listings: bool = False
    sticky: bool = False
    featured: bool = False
    categories: list[int] | None = None
    tags: list[int] | None = None
    venues: list[int] | None = None  # None: untouched; []: unlinked
    organizers: list[int] | None = None
    # The calling service's own ``_``-prefixed meta (an import's global id), written with the rest.
    protected_meta: dict[str, Any] | None = None
    # Post fields the REST arguments do not take, for a service that carries them over (the WXR
    # import): None keeps them (or gives the type's default).
    password: str | None = None
    comment_status: str | None = None
    ping_status: str | None = None


# The meta The Events Calendar keeps of what calpress holds in an event's row and links (dates,
# zone, flags, venue and organizers): what a WXR export writes from the row, and an import reads
# into it instead of storing as meta.
ROW_META_KEYS = frozenset({
    "_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC", "_EventTimezone",
    "_EventTimezoneAbbr", "_EventDuration", "_EventAllDay", "_EventHideFromUpcoming", "_tribe_featured",
    "_EventVenueID", "_EventOrganizerID", "_EventShowMap", "_EventShowMapLink",
})


def event_times(
    ctx: Context, data: EventInput, before: EventRow | None
) -> tuple[dt.datetime, dt.datetime, dt.datetime, dt.datetime, str]:
    """(start local, end local, start UTC, end UTC, zone name) of an event being saved: given
    dates are read in the event's zone; missing ones keep their wall time in that zone; all-day
    events run from the start day's 00:00:00 to the end day's 23:59:59; an end before the start
    becomes the start."""
    zone, zone_name = site_timezone(ctx.options, data.timezone)

    def wall(value: Any, fallback: dt.datetime | None) -> dt.datetime:
        if value is not None:
            moment = parse_moment(value, zone)
            if moment is None:
                raise CalendarError("rest_invalid_param", "Invalid date.", status=400)
            return moment.replace(tzinfo=None, microsecond=0)
        if fallback is None:
            raise CalendarError("rest_invalid_param", "Invalid date.", status=400)
        return fallback

    start = wall(data.start, before.start_local if before else None)
    end = wall(data.end, before.end_local if before else None)
    if data.all_day:
        start = start.replace(hour=0, minute=0, second=0)
        end = end.replace(hour=23, minute=59, second=59)
    if end < start:
        end = start
    return start, end, wall_to_utc(start, zone), wall_to_utc(end, zone), zone_name


def _event_meta(data: EventInput, times: tuple[Any, ...], before: Item | None) -> dict[str, Any]:
    start, end, start_utc, end_utc, zone_name = times
    meta: dict[str, Any] = {
        "_EventStartDate": db_datetime(start),
        "_EventEndDate": db_datetime(end),
        "_EventStartDateUTC": db_datetime(start_utc),
        "_EventEndDateUTC": db_datetime(end_utc),
        "_EventTimezone": zone_name,
        "_EventAllDay": True if data.all_day else None,
        "_EventShowMap": data.show_map,
        "_EventShowMapLink": data.show_map_link,
    }
    if data.website is not None or before is not None:
        # An update without it clears it, as the reference; a javascript: (data:...) link is never stored.
        meta["_EventURL"] = safe_url(data.website)
    if data.cost is not None:
        texts = [c for c in data.cost if str(c).strip()]
        _, symbol, position = parse_cost(texts)
        meta["_EventCost"] = ", ".join(texts) if texts else None
        meta["_EventCurrencySymbol"] = symbol or None
        meta["_EventCurrencyPosition"] = position or None
    if data.venues is not None:
        meta["_EventVenueID"] = list(data.venues) or None
    if data.organizers is not None:
        meta["_EventOrganizerID"] = list(data.organizers) or None
    return meta


# A new event's row, and its links (a FastQuery per number of rows): run on the driver, as every
# create runs them inside the writers' turn (through SQLAlchemy's execution each cost about as
# much as the statement).
_INSERT_EVENT = FastQuery(sa.insert(events).values({
    column.name: sa.bindparam(column.name, type_=column.type) for column in events.columns
}).returning(events.c.post_id))
_UPDATE_EVENT = sa.update(events).where(events.c.post_id == sa.bindparam("event_id"))
_INSERT_LINKS = rows_insert(event_links, event_links.c.event_id)
_DELETE_LINKS = sa.delete(event_links).where(event_links.c.event_id == sa.bindparam("event_id"),
                                             event_links.c.kind.in_(sa.bindparam("kinds", expanding=True)))


def _set_links(conn: sa.Connection, event_id: int, links: dict[str, list[int]], *, new_event: bool = False) -> None:
    """Make ``links`` (kind -> ids, in order) the event's venue and organizer links: every kind
    in one DELETE (none for a new event) and one INSERT."""
    if not links:
        return
    if not new_event:
        conn.execute(_DELETE_LINKS, {"event_id": event_id, "kinds": list(links)})
    rows = [{"event_id": event_id, "kind": kind, "linked_id": linked, "position": n}
            for kind, ids in links.items() for n, linked in enumerate(dict.fromkeys(ids))]
    if rows:
        _INSERT_LINKS(len(rows)).rows(conn, rows_params(rows))


def save_event(conn: sa.Connection, ctx: Context, data: EventInput, before: Item | None = None) -> Item:
    """Create or update an event in the caller's transaction: the item, its event row, links,
    terms and meta mirror."""
    return write_event(conn, ctx, data, before)[0]


def write_event(conn: sa.Connection, ctx: Context, data: EventInput, before: Item | None = None) -> tuple[Item, EventRow]:
    """:func:`save_event`, also returning the event row as stored (for an answer built without
    reading it back)."""
    row_before = get_event_row(conn, before.id) if before is not None else None
    times = event_times(ctx, data, row_before)
    terms: dict[str, list[int]] = {}
    if data.categories is not None:
        terms["cal_events_cat"] = data.categories
    if data.tags is not None:
        terms["post_tag"] = data.tags
    changes = ItemChanges(
        title=data.title,
        content=data.description,
        excerpt=data.excerpt,
        slug=data.slug,
        author=data.author,
        date=data.date,
        status=data.status,
        parent=data.parent,
        featured_media=data.image,
        meta=_event_meta(data, times, before),
        terms=terms,
        terms_checked=True,  # event_input found each by id, name or slug in its taxonomy
        menu_order=-1 if data.sticky else 0,
        protected_meta=data.protected_meta,
        password=data.password,
        comment_status=data.comment_status,
        ping_status=data.ping_status,
    )
    if before is None:
        item = item_service.create_item(conn, ctx, ctx.registry.types[EVENT_TYPE], changes)
    else:
        item = item_service.update_item(conn, ctx, before, changes)
    start, end, start_utc, end_utc, zone_name = times
    values = {
        "start_local": start, "end_local": end, "start_utc": start_utc, "end_utc": end_utc, "timezone": zone_name,
        "all_day": data.all_day, "featured": data.featured, "sticky": data.sticky,
        "hidden": data.hide_from_listings or (row_before.hidden if row_before else False),
    }
    if row_before is None:
        _INSERT_EVENT.rows(conn, {"post_id": item.id, **values})
    else:
        conn.execute(_UPDATE_EVENT, {"event_id": item.id, **values})
    links = {kind: ids for kind, ids in (("venue", data.venues), ("organizer", data.organizers)) if ids is not None}
    _set_links(conn, item.id, links, new_event=row_before is None)
    return item, event_row(SimpleNamespace(**values))


def set_event_links(conn: sa.Connection, event_id: int, *, venues: list[int] | None = None,
                    organizers: list[int] | None = None) -> None:
    """Link a stored event to venues and organizers (None leaves a kind as it is): the links and
    the meta mirror, as :func:`write_event` stores them. For an import whose events come before
    the venues they name."""
    links = {kind: ids for kind, ids in (("venue", venues), ("organizer", organizers)) if ids is not None}
    _set_links(conn, event_id, links)
    mirror = {key: list(dict.fromkeys(links[kind])) or None
              for kind, key in (("venue", "_EventVenueID"), ("organizer", "_EventOrganizerID")) if kind in links}
    item_service.merge_meta(conn, event_id, mirror)


def trash(conn: sa.Connection, ctx: Context, item: Item) -> Item:
    """Move an event, venue or organizer to the trash (a trashed venue or organizer leaves its
    events: :func:`unlink_trashed`)."""
    return item_service.trash_item(conn, ctx, item)


def unlink_trashed(conn: sa.Connection, ctx: Context, item: Item) -> None:
    """Remove a trashed venue or organizer from its events: their links and the meta mirror.
    Registered with the item service, so trashing through cms/v2 does it too, as the reference's
    ``trash_{post_type}`` action. Unlike the reference (which drops every organizer of such an
    event), the other organizers stay."""
    if item.type not in (VENUE_TYPE, ORGANIZER_TYPE):
        return
    kind = "venue" if item.type == VENUE_TYPE else "organizer"
    event_ids = conn.execute(
        sa.select(event_links.c.event_id).where(event_links.c.linked_id == item.id, event_links.c.kind == kind)
    ).scalars().all()
    conn.execute(sa.delete(event_links).where(event_links.c.linked_id == item.id, event_links.c.kind == kind))
    meta_key = "_EventVenueID" if kind == "venue" else "_EventOrganizerID"
    for event_id in event_ids:
        event = item_service.get_item(conn, event_id)
        if event is not None:
            remaining = [i for i in item_service.int_list(event.meta.get(meta_key)) if i != item.id]
            meta = dict(event.meta)
            if remaining:
                meta[meta_key] = remaining
            else:
                meta.pop(meta_key, None)
            conn.execute(sa.update(posts).where(posts.c.id == event_id).values(meta=meta))



def global_id(home: str, item_id: int) -> str:
    """``host[/path]?id=N`` (calendar-api.md 2.6)."""
    return f"{_global_id_base(home)}?id={item_id}"


@functools.lru_cache(maxsize=64)
def _global_id_base(home: str) -> str:
    parts = urlsplit(home)
    return f"{parts.hostname or ''}{parts.path.rstrip('/')}"
