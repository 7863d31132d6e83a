"""What the calendar's types add to the workspace's list table and editor: the events' columns
(start to end, venue, organizers, categories) and filters, the event editor's "Event details"
panel (dates, time zone, venue and organizers chosen or made on the spot, cost, website, map and
listing flags), and the venue and organizer editors' panels, made from the fields the calendar
declares for them (calendar/fields.py). Saves go through the calendar's own REST routes, as
The Events Calendar's editor saves through its own meta, then the cms/v2 route for what those
routes do not take (the password, comment and ping status).
"""

from __future__ import annotations

from typing import Any

from ..calendar import fields as linked_fields
from .api import Answer
from .content import Column, Filter, Panel, TypeAdmin, register_type, route_of
from .settings import timezone_groups
from .shell import AdminRequest
from .values import number

EVENTS = "/cal/events/v1/events"
EVENTS_PER_PAGE_MAX = 50  # the calendar API's own limit
LISTED_STATUSES = "publish,future,draft,pending,private"
ALL_FROM, ALL_UNTIL = "1900-01-01 00:00:00", "2200-12-31 23:59:59"  # every event, past and future


def _day(value: str) -> bool:
    """A date as the filter's date field sends it (YYYY-MM-DD)."""
    import re

    return re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None


def _flag(r: AdminRequest, name: str) -> bool:
    return r.field(name) in ("1", "on", "yes", "true")


# -- the events' list -------------------------------------------------------------------------


def _event_listing(r: AdminRequest, query: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The list through the calendar API, ordered by start (all dates unless the filter says),
    except "Mine", which only the generic route filters."""
    if query.get("author"):
        return route_of(r.ctx.registry.types["cal_events"]), query
    wanted: dict[str, Any] = {"page": query["page"], "per_page": min(query["per_page"], EVENTS_PER_PAGE_MAX),
                              "status": query.get("status", LISTED_STATUSES),
                              # Both ends: with a start alone the API keeps its own end (two years ahead).
                              "start_date": query.get("start_date") or ALL_FROM, "end_date": query.get("end_date") or ALL_UNTIL}
    for key in ("search", "categories", "venue", "organizer", "featured"):
        if query.get(key):
            wanted[key] = query[key]
    return EVENTS, wanted


def _event_row(event: dict[str, Any]) -> dict[str, Any]:
    """A calendar API event as the list table's row (a cms/v2 row passes unchanged)."""
    if "start_date" not in event:
        return event
    venue = event.get("venue") or {}
    return {
        "id": event["id"], "title": {"raw": event.get("title", "")}, "status": event.get("status", ""),
        "author": number(event.get("author")), "date": event.get("date", ""), "link": event.get("url", ""),
        "start_date": event.get("start_date", ""), "end_date": event.get("end_date", ""), "all_day": event.get("all_day"),
        "venue": venue.get("venue", "") if isinstance(venue, dict) else "",
        "organizers": [o.get("organizer", "") for o in event.get("organizer") or [] if isinstance(o, dict)],
        "categories": [c.get("name", "") for c in event.get("categories") or [] if isinstance(c, dict)],
    }


def _when(row: dict[str, Any], r: AdminRequest) -> str:
    start, end = str(row.get("start_date") or ""), str(row.get("end_date") or "")
    if not start:
        return ""
    if row.get("all_day"):
        return start[:10] if start[:10] == end[:10] else f"{start[:10]} – {end[:10]}"
    if start[:10] == end[:10]:
        return f"{start[:16]} – {end[11:16]}"
    return f"{start[:16]} – {end[:16]}"


def _linked_choices(post_type: str) -> Any:
    def choices(r: AdminRequest) -> list[tuple[str, str]]:
        kind = r.ctx.registry.types[post_type]
        answer = r.api.get(route_of(kind), per_page=100, orderby="title", order="asc", context="edit",
                           status=LISTED_STATUSES, _fields="id,title")
        return [(str(item["id"]), (item.get("title") or {}).get("raw") or f"#{item['id']}")
                for item in (answer.data if answer.ok and isinstance(answer.data, list) else [])]

    return choices


def _category_choices(r: AdminRequest) -> list[tuple[str, str]]:
    answer = r.api.get("/cms/v2/cal_events_cat", per_page=100, orderby="name", _fields="id,name")
    return [(str(t["id"]), t["name"]) for t in (answer.data if answer.ok and isinstance(answer.data, list) else [])]


# -- the event editor's panel ------------------------------------------------------------------


def _event_values(r: AdminRequest, item: dict[str, Any] | None) -> dict[str, Any]:
    """The panel's fields: from the calendar API's view of the event (or defaults for a new one)."""
    defaults = {"event_start": "", "event_end": "", "event_all_day": False, "event_timezone": "", "event_venue": "",
                "event_organizers": [], "event_cost": "", "event_currency_symbol": "", "event_currency_position": "prefix",
                "event_website": "", "event_show_map": True, "event_show_map_link": True, "event_hide_from_listings": False,
                "event_sticky": False, "event_featured": False}
    if not item or not item.get("id"):
        defaults["event_timezone"] = str(r.site.load_options().get("timezone_string") or "")
        return defaults
    answer = r.api.get(f"{EVENTS}/{item['id']}")
    if not answer.ok or not isinstance(answer.data, dict):
        return defaults
    event = answer.data
    venue = event.get("venue") or {}
    details = event.get("cost_details") or {}
    return {
        "event_start": str(event.get("start_date", ""))[:16].replace(" ", "T"),
        "event_end": str(event.get("end_date", ""))[:16].replace(" ", "T"),
        "event_all_day": bool(event.get("all_day")), "event_timezone": event.get("timezone", ""),
        "event_venue": str(venue.get("id", "")) if isinstance(venue, dict) and venue else "",
        "event_organizers": [str(o["id"]) for o in event.get("organizer") or [] if isinstance(o, dict) and o.get("id")],
        "event_cost": ", ".join(str(v) for v in details.get("values") or []) or "",
        "event_currency_symbol": details.get("currency_symbol", ""),
        "event_currency_position": details.get("currency_position") or "prefix",
        "event_website": event.get("website", ""), "event_show_map": bool(event.get("show_map")),
        "event_show_map_link": bool(event.get("show_map_link")), "event_hide_from_listings": bool(event.get("hide_from_listings")),
        "event_sticky": bool(event.get("sticky")), "event_featured": bool(event.get("featured")),
    }


def _event_panel_values(r: AdminRequest, item: dict[str, Any] | None) -> dict[str, Any]:
    return {**_event_values(r, item), "venues": _linked_choices("cal_venue")(r),
            "organizers": _linked_choices("cal_organizer")(r), "zones": timezone_groups(),
            "venue_fields": linked_fields.kind_of("cal_venue").fields,
            "organizer_fields": linked_fields.kind_of("cal_organizer").fields}


def _date(value: str) -> str:
    return value.replace("T", " ") + (":00" if len(value) == 16 else "")


def _save_event(r: AdminRequest, item_id: int | None, common: dict[str, Any]) -> tuple[Answer, int | None]:
    body: dict[str, Any] = {
        "title": common.get("title", ""), "description": common.get("content", ""), "excerpt": common.get("excerpt", ""),
        "status": common.get("status", "draft"),
        "start_date": _date(r.field("event_start")), "end_date": _date(r.field("event_end") or r.field("event_start")),
        "all_day": _flag(r, "event_all_day"), "timezone": r.field("event_timezone") or None,
        "website": r.field("event_website"), "show_map": _flag(r, "event_show_map"),
        "show_map_link": _flag(r, "event_show_map_link"), "hide_from_listings": _flag(r, "event_hide_from_listings"),
        "sticky": _flag(r, "event_sticky"), "featured": _flag(r, "event_featured"),
        "categories": common.get("cal_events_cat", []), "tags": common.get("tags", []),
    }
    for key in ("slug", "author", "date"):
        if common.get(key):
            body[key] = common[key]
    if common.get("featured_media"):
        body["image"] = str(common["featured_media"])
    cost = r.field("event_cost").strip()
    symbol = r.field("event_currency_symbol").strip()
    if cost and symbol:
        cost = f"{cost}{symbol}" if r.field("event_currency_position") == "postfix" else f"{symbol}{cost}"
    body["cost"] = cost
    venue = r.field("event_venue")
    if venue == "new":
        body["venue"] = {f.name: r.field(f"new_venue_{f.name}") for f in linked_fields.kind_of("cal_venue").fields
                         if r.field(f"new_venue_{f.name}")}
        body["venue"]["venue"] = r.field("new_venue_venue")
    elif number(venue):
        body["venue"] = number(venue)
    elif item_id:
        body["venue"] = []
    organizers: list[Any] = [number(o) for o in _list(r.form.get("event_organizers")) if number(o)]
    if r.field("new_organizer_organizer"):
        made = {f.name: r.field(f"new_organizer_{f.name}") for f in linked_fields.kind_of("cal_organizer").fields
                if r.field(f"new_organizer_{f.name}")}
        organizers.append({"organizer": r.field("new_organizer_organizer"), **made})
    body["organizer"] = organizers
    body = {key: value for key, value in body.items() if value is not None}
    answer = r.api.post(f"{EVENTS}/{item_id}" if item_id else EVENTS, body)
    if not answer.ok:
        return answer, item_id
    saved = int(answer.data["id"])
    rest = {key: common[key] for key in ("password", "comment_status", "ping_status") if key in common}
    if rest:
        more = r.api.post(route_of(r.ctx.registry.types["cal_events"], saved), rest)
        if not more.ok:
            return more, saved
    return answer, saved


def _list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    return [] if value in (None, "") else [value]


# -- venues and organizers ---------------------------------------------------------------------


def _linked_values(post_type: str) -> Any:
    prefix = "venue_" if post_type == "cal_venue" else "organizer_"
    route = "/cal/events/v1/venues" if post_type == "cal_venue" else "/cal/events/v1/organizers"

    def values(r: AdminRequest, item: dict[str, Any] | None) -> dict[str, Any]:
        kind = linked_fields.kind_of(post_type)
        found: dict[str, Any] = {}
        if item and item.get("id"):
            answer = r.api.get(f"{route}/{item['id']}")
            found = answer.data if answer.ok and isinstance(answer.data, dict) else {}
        shown = [f for f in kind.fields if f.kind != linked_fields.GEO]
        return {"fields": shown, "prefix": prefix,
                **{prefix + f.name: (found.get(f.name) if found.get(f.name) is not None else "") for f in shown}}

    return values


def _save_linked(post_type: str) -> Any:
    prefix = "venue_" if post_type == "cal_venue" else "organizer_"
    route = "/cal/events/v1/venues" if post_type == "cal_venue" else "/cal/events/v1/organizers"
    title_key = "venue" if post_type == "cal_venue" else "organizer"

    def save(r: AdminRequest, item_id: int | None, common: dict[str, Any]) -> tuple[Answer, int | None]:
        kind = linked_fields.kind_of(post_type)
        body: dict[str, Any] = {title_key: common.get("title", ""), "description": common.get("content", ""),
                                "status": common.get("status", "draft")}
        for f in kind.fields:
            if f.kind == linked_fields.GEO:
                continue
            if f.kind == linked_fields.FLAG:
                body[f.name] = "true" if _flag(r, prefix + f.name) else "false"  # the routes take these as strings
            elif prefix + f.name in r.form:
                body[f.name] = r.field(prefix + f.name)
        for key in ("slug", "author"):
            if common.get(key):
                body[key] = common[key]
        if common.get("featured_media"):
            body["image"] = str(common["featured_media"])
        answer = r.api.post(f"{route}/{item_id}" if item_id else route, body)
        return answer, (int(answer.data["id"]) if answer.ok else item_id)

    return save


def _events_using(post_type: str) -> Any:
    """The linked item's events, for its editor's side box."""
    def values(r: AdminRequest, item: dict[str, Any] | None) -> dict[str, Any]:
        if not item or not item.get("id"):
            return {"events": []}
        key = "venue" if post_type == "cal_venue" else "organizer"
        answer = r.api.get(EVENTS, **{key: item["id"], "per_page": 10, "start_date": ALL_FROM, "end_date": ALL_UNTIL,
                                       "status": LISTED_STATUSES})
        events = answer.data.get("events", []) if answer.ok and isinstance(answer.data, dict) else []
        return {"events": [{"title": e.get("title", ""), "start": e.get("start_date", ""),
                            "url": r.url("post.php", post=e["id"], action="edit")} for e in events]}

    return values


register_type(TypeAdmin(
    "cal_events",
    columns=[
        Column("when", "When", lambda row, r: _when(row, r)),
        Column("venue", "Venue", lambda row, r: row.get("venue", "")),
        Column("organizers", "Organizers", lambda row, r: ", ".join(row.get("organizers") or [])),
        Column("categories", "Event Categories", lambda row, r: ", ".join(row.get("categories") or [])),
    ],
    filters=[
        Filter("cal_events_cat", "All Event Categories", _category_choices, lambda v: {"categories": v}),
        Filter("venue", "All Venues", _linked_choices("cal_venue"), lambda v: {"venue": v}),
        Filter("organizer", "All Organizers", _linked_choices("cal_organizer"), lambda v: {"organizer": v}),
        Filter("start_date", "From", lambda r: [], lambda v: {"start_date": v} if _day(v) else None, kind="date"),
        Filter("end_date", "Until", lambda r: [], lambda v: {"end_date": v + " 23:59:59"} if _day(v) else None, kind="date"),
    ],
    panels=[Panel("event", "Event details", _event_panel_values)],
    save=_save_event, listing=_event_listing, row=_event_row, default_orderby="start_date", default_order="asc",
))
for _type in ("cal_venue", "cal_organizer"):
    register_type(TypeAdmin(
        _type,
        panels=[Panel("linked", "Venue details" if _type == "cal_venue" else "Organizer details", _linked_values(_type)),
                Panel("linked_events", "Events", _events_using(_type), side=True)],
        save=_save_linked(_type), default_orderby="title", default_order="asc",
    ))
