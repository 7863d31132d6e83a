"""The calendar views (list, month, day) as data: what a view URL asks for, and the events it shows.

A view is named by a public URL of the calendar (calendar-api.md 7.3): pretty paths such as
``/events/list/``, ``/events/month/2026-12/``, ``/events/2026-12-06/``, ``/events/category/jazz/``,
``/events/tag/free/month/``, ``/events/list/page/2/``, and query arguments (``eventDisplay``,
``eventDate``, ``tribe-bar-date``, ``tribe-bar-search``, ``tribe_events_cat``, ``tag``, ``paged``,
``post_type``..., and the events bar's venue filter ``tribe_venue``), which override what the path
says; the views route's ``view_data`` entries override both. When the events page is the front
page (Settings > Reading), the site's root is the default view too. :func:`view_state` turns that
into a typed :class:`ViewState`; the HTML pages and the ``cal/views/v2/html`` route both start
there.

Then one call per view reads its events in one read connection, through the listing service:

* list: upcoming events (those that have not ended), paginated, ``posts_per_page`` a page; the
  past list (``eventDisplay=past``) newest first; when nothing is upcoming on the first page, the
  latest past events instead, as the reference's "latest past events" view;
* month: a grid of whole weeks (from the site's ``start_of_week``) around the month, each day with
  the events that cover it (a multi-day event in every day it covers);
* day: the events that cover one day.

Who sees what follows the one read rule (:func:`visible_statuses`): published events for
everybody, private ones for users who may read private events; events hidden from listings stay
out. Every window query is a range scan along the start index, bounded with the longest stored
event (:func:`calpress.calendar.listing.longest_event`), so a view's cost follows what it shows,
not the size of the table.

Bad input raises :class:`ViewError`: the pages answer 404 (or 400), the REST route 400.
"""

from __future__ import annotations

import calendar as gregorian
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import sqlalchemy as sa

from ..content import archives
from ..content import terms as term_store
from ..content.items import Context, Item
from ..site_settings import events_on_front
from . import listing
from .bar_filters import VENUE_VAR, venue_name
from .definitions import CATEGORY_TAXONOMY, EVENT_TYPE
from .events import EventRow, Loaded, parse_moment, site_timezone
from .values import truthy

VIEWS = ("list", "month", "day")
# Views the URL may name but the site does not list: the reference's debugging view.
HIDDEN_VIEWS = ("reflector",)
DEFAULT_VIEW = "list"
DEFAULT_VIEW_OPTION = "viewOption"  # the reference's option holding the default view
BASE = "events"  # the calendar's archive base (/events/)
LATEST_PAST = 3  # the reference's "latest past events" count
MONTH_DAY_EVENTS = 3  # events a month cell lists before "+ N more" (the reference's monthEventAmount)
WINDOW_LIMIT = 1000  # events a month or day view loads at most
SEARCH_MAX_LENGTH = 1000  # as the REST listings' search argument
MAX_PAGE = 10_000
# Events in an iCalendar export of a view (the Subscribe feed, ``?ical=1``): the reference's
# feed_default_export_count (30), which its tribe_ical_feed_posts_per_page filter changes; here the
# Reading setting "Events in the iCalendar feed" stores it.
ICAL_FEED_OPTION = "cal_ical_feed_posts_per_page"
ICAL_FEED_DEFAULT = 30
ICAL_FEED_MAX = WINDOW_LIMIT

_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
_PAGE = re.compile(r"[1-9]\d{0,6}")
_SLUG = re.compile(r"[^/?#\s]{1,200}")
_ID = re.compile(r"[1-9]\d{0,9}")
# The query arguments a view URL may carry, and the names the reference's context gives them.
QUERY_VARS = (
    "eventDisplay", "eventDate", "tribe-bar-date", "tribe-bar-search", "tribe_events_cat", "tag", "paged", "page",
    "post_type", "featured", "ical", VENUE_VAR,
)


class ViewError(ValueError):
    """A view URL or value that names nothing: ``param`` is the argument at fault; ``status`` what a
    page answers (404 for something that does not exist, 400 for unusable input)."""

    def __init__(self, message: str, *, param: str = "url", status: int = 404) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status


@dataclass
class ViewState:
    """What a view shows, resolved from its URL and overrides."""

    view: str  # list, month, day or reflector
    url: str  # the view's own address, normalised
    home: str
    date: dt.date | None = None  # the day asked for (month: any day of the month)
    search: str = ""
    category: str = ""  # event category slug
    tag: str = ""  # tag slug
    venue: int = 0  # venue id (the events bar's venue filter)
    featured: bool = False
    page: int = 1
    past: bool = False
    ical: bool = False
    values: dict[str, Any] = field(default_factory=dict)  # the request variables as resolved


# -- from URL to state ----------------------------------------------------------------------------


def _strip_home(url: str, home: str) -> tuple[str, str]:
    """(path under the site, query) of ``url``; raises ViewError for an address of another site."""
    if not isinstance(url, str) or len(url) > 65536 or any(ord(c) < 32 for c in url):
        raise ViewError("The URL is not a calendar address of this site.", status=400)
    parts = urlsplit(url.strip())
    site = urlsplit(home)
    if parts.scheme or parts.netloc:
        if parts.scheme not in ("http", "https") or (parts.hostname or "") != (site.hostname or "") or (
            (parts.port or _default_port(parts.scheme)) != (site.port or _default_port(site.scheme))
            and parts.scheme == site.scheme
        ):
            raise ViewError("The URL is not an address of this site.", status=400)
    path = parts.path or "/"
    base = site.path.rstrip("/")
    if base:
        if not (path == base or path.startswith(base + "/")):
            raise ViewError("The URL is not an address of this site.", status=400)
        path = path[len(base):] or "/"
    return path, parts.query


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def path_vars(path: str) -> dict[str, str]:
    """The request variables a calendar path says (``/events/month/2026-12/`` -> eventDisplay
    month, eventDate 2026-12); raises ViewError for a path that is not a calendar view."""
    segments = [s for s in path.split("/") if s]
    found: dict[str, str] = {}
    if not segments:
        return found
    if segments[0] != BASE:
        raise ViewError("The URL is not a calendar view.")
    rest = segments[1:]
    if rest and rest[0] in ("category", "tag"):
        kind = rest.pop(0)
        slugs: list[str] = []
        while rest and not _is_view_segment(rest[0]):
            slugs.append(rest.pop(0))
        if not slugs or (kind == "tag" and len(slugs) > 1):
            raise ViewError("The URL is not a calendar view.")
        found["tribe_events_cat" if kind == "category" else "tag"] = slugs[-1]
    if rest and rest[0] == "featured":
        rest.pop(0)
        found["featured"] = "1"
    if not rest:
        return found
    head = rest.pop(0)
    if head in VIEWS or head in HIDDEN_VIEWS or head == "past":
        found["eventDisplay"] = head
        if head == "month" and rest and _MONTH.fullmatch(rest[0]):
            found["eventDate"] = rest.pop(0)
        elif head in ("day", "list", "past") and rest and _DAY.fullmatch(rest[0]):
            found["eventDate"] = rest.pop(0)
    elif head == "today":
        found["eventDisplay"] = "day"
    elif _DAY.fullmatch(head):
        found["eventDisplay"], found["eventDate"] = "day", head
    elif _MONTH.fullmatch(head):
        found["eventDisplay"], found["eventDate"] = "month", head
    elif head == "ical":
        found["ical"] = "1"
    elif head == "page":
        rest.insert(0, head)
    else:
        raise ViewError("The URL is not a calendar view.")
    if len(rest) == 2 and rest[0] == "page" and _PAGE.fullmatch(rest[1]):
        found["paged"] = rest[1]
        rest = []
    if rest == ["ical"]:
        found["ical"] = "1"
        rest = []
    if rest:
        raise ViewError("The URL is not a calendar view.")
    return found


def _is_view_segment(segment: str) -> bool:
    return segment in (*VIEWS, *HIDDEN_VIEWS, "past", "today", "page", "featured", "ical") or bool(
        _DAY.fullmatch(segment) or _MONTH.fullmatch(segment)
    )


def url_vars(url: str, home: str, *, front: bool = False) -> dict[str, str]:
    """The request variables of a view URL: its path's, then its query arguments over them.
    ``front``: the events page is the front page, so the site's root is the default view."""
    path, query = _strip_home(url, home)
    found = path_vars(path)
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name in QUERY_VARS:
            found[name] = value
    if not path.strip("/") and not front:
        if found.get("post_type") != EVENT_TYPE and not (set(found) & {"eventDisplay", "tribe_events_cat", VENUE_VAR}):
            raise ViewError("The URL is not a calendar view.")
    return found


def _string(values: Mapping[str, Any], name: str) -> str:
    value = values.get(name)
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        raise ViewError(f"{name} is not a string.", param=name, status=400)
    return str(value).strip()


def parse_day(text: str, zone: dt.tzinfo | None = None, *, param: str = "eventDate") -> dt.date:
    """A ``YYYY-MM-DD`` (or ``YYYY-MM``: its first day) date, else any date strtotime reads."""
    for pattern, day in ((_DAY, None), (_MONTH, 1)):
        matched = pattern.fullmatch(text)
        if matched:
            try:
                return dt.date(int(matched[1]), int(matched[2]), day or int(matched[3]))
            except ValueError:
                raise ViewError(f"{text} is not a date.", param=param) from None
    moment = parse_moment(text, zone or dt.UTC) if text and len(text) <= 100 else None
    if moment is None:
        raise ViewError(f"{text[:100]} is not a date.", param=param)
    return moment.date()


def view_state(
    url: str,
    home: str,
    options: Mapping[str, Any],
    *,
    view: Any = None,
    view_data: Mapping[str, Any] | None = None,
    public: bool = True,
) -> ViewState:
    """The state of the view ``url`` names, ``view_data`` entries over the URL's own, ``view``
    over both. ``public``: the request comes from a page, where only the listed views exist."""
    values: dict[str, Any] = dict(url_vars(url, home, front=events_on_front(options)))
    for name, value in (view_data or {}).items():
        values[str(name)] = value
    default = str(options.get(DEFAULT_VIEW_OPTION) or DEFAULT_VIEW)
    default = default if default in VIEWS else DEFAULT_VIEW
    display = str(view) if isinstance(view, str) and view else _string(values, "eventDisplay")
    past = display == "past"
    known = (*VIEWS, "past") if public else (*VIEWS, "past", *HIDDEN_VIEWS)
    slug = "list" if past else (display if display in known else default)
    zone, _ = site_timezone(dict(options))
    state = ViewState(view=slug, url=_normal_url(url, home), home=home, past=past)
    date_name = "eventDate" if _string(values, "eventDate") else "tribe-bar-date"
    date_text = _string(values, date_name)
    if date_text:
        state.date = parse_day(date_text, zone, param=date_name)
    state.search = _string(values, "tribe-bar-search")
    if len(state.search) > SEARCH_MAX_LENGTH:
        raise ViewError(f"The search may be {SEARCH_MAX_LENGTH} characters long at most.", param="tribe-bar-search", status=400)
    for name, attribute in (("tribe_events_cat", "category"), ("tag", "tag")):
        slug_text = _string(values, name)
        if slug_text and not _SLUG.fullmatch(slug_text):
            raise ViewError(f"No {attribute} is called {slug_text[:100]}.", param=name)
        setattr(state, attribute, slug_text.lower())
    venue_text = _string(values, VENUE_VAR)
    if venue_text:
        if not _ID.fullmatch(venue_text):
            raise ViewError(f"No venue is numbered {venue_text[:100]}.", param=VENUE_VAR)
        state.venue = int(venue_text)
    state.featured = truthy(values.get("featured") or False) if not isinstance(values.get("featured"), (dict, list)) else False
    state.ical = truthy(_string(values, "ical") or False)
    paged = _string(values, "paged") or _string(values, "page")
    if paged:
        if not _PAGE.fullmatch(paged) or int(paged) > MAX_PAGE:
            raise ViewError(f"{paged[:100]} is not a page number.", param="paged")
        state.page = int(paged)
    post_type = _string(values, "post_type")
    if post_type and post_type != EVENT_TYPE:
        raise ViewError("The URL is not a calendar view.")
    state.values = {
        **{k: v for k, v in values.items()},
        "eventDisplay": "past" if past else slug,
        "url": state.url,
        "posts_per_page": str(options.get("posts_per_page") or listing.DEFAULT_PER_PAGE),
        "is_main_query": True,
    }
    if view_data:
        state.values["view_data"] = dict(view_data)
    return state


def _normal_url(url: str, home: str) -> str:
    """The view URL as an absolute address of the site, without a trailing slash on the path
    (the reference's untrailingslashit of ``url``)."""
    path, query = _strip_home(url, home)
    path = path.rstrip("/")
    return home.rstrip("/") + path + (("?" + query) if query else "")


# -- from state to URLs ---------------------------------------------------------------------------


def view_url(state: ViewState, *, view: str | None = None, date: dt.date | None = None, month: bool = False,
             page: int = 1, past: bool | None = None, ical: bool = False) -> str:
    """The pretty address of a view with ``state``'s filters (category, tag, featured, search, venue)."""
    slug = view or state.view
    parts = [BASE]
    if state.category:
        parts += ["category", quote(state.category, safe="%")]
    elif state.tag:
        parts += ["tag", quote(state.tag, safe="%")]
    if state.featured:
        parts.append("featured")
    is_past = state.past if past is None else past
    if ical:
        parts.append("ical")
    elif slug == "month":
        parts.append("month")
        if date is not None:
            parts.append(f"{date.year:04d}-{date.month:02d}")
    elif slug == "day":
        parts.append("day")
        if date is not None:
            parts.append(date.isoformat())
    else:
        parts.append("list")
        if page > 1:
            parts += ["page", str(page)]
    query: dict[str, str] = {}
    if slug == "list" and not ical and date is not None:
        query["tribe-bar-date"] = date.isoformat()
    if is_past and slug == "list":
        query["eventDisplay"] = "past"
    if state.search:
        query["tribe-bar-search"] = state.search
    if state.category and state.tag:  # the path names the category; the tag goes along as a query
        query["tag"] = state.tag
    if state.venue:
        query[VENUE_VAR] = str(state.venue)
    if ical and slug == "month" and date is not None:
        query["eventDate"] = f"{date.year:04d}-{date.month:02d}"
    elif ical and slug == "day" and date is not None:
        query["eventDate"] = date.isoformat()
    address = state.home.rstrip("/") + "/" + "/".join(parts) + "/"
    return address + ("?" + urlencode(query) if query else "")


# -- what a view shows ----------------------------------------------------------------------------


def visible_statuses(ctx: Context) -> list[str]:
    """The one read rule for listings of events: published for all, private too for users who
    may read private events (as the blog's archives)."""
    return list(archives.listed_statuses(ctx, EVENT_TYPE))


local_now = listing.local_now


def _base_query(conn: sa.Connection, ctx: Context, state: ViewState) -> listing.EventQuery:
    query = listing.EventQuery(statuses=visible_statuses(ctx), listed_only=True)
    if state.search:
        query.search = state.search
    if state.category:
        term = term_store.get_term_by_slug(conn, CATEGORY_TAXONOMY, state.category)
        if term is None:
            raise ViewError(f"No event category is called {state.category[:100]}.", param="tribe_events_cat")
        query.categories = [term.id]
    if state.tag:
        term = term_store.get_term_by_slug(conn, "post_tag", state.tag)
        if term is None:
            raise ViewError(f"No tag is called {state.tag[:100]}.", param="tag")
        query.tags = [term.id]
    if state.venue:
        if venue_name(conn, ctx, state.venue) is None:
            raise ViewError(f"No venue is numbered {state.venue}.", param=VENUE_VAR)
        query.venues = [state.venue]
    if state.featured:
        query.featured = True
    return query


def _covering(query: listing.EventQuery, conn: sa.Connection, first: dt.datetime, last: dt.datetime | None) -> None:
    """Limit ``query`` to events that overlap [first, last] (wall times; no ``last``: from
    ``first`` on), as a range on the start index."""
    longest = listing.longest_event(conn)
    query.starts_before = last
    query.ends_after = first
    try:
        query.starts_after = first - longest
    except OverflowError:
        query.starts_after = None


@dataclass
class ListView:
    loaded: Loaded
    page: int
    per_page: int
    has_next: bool
    has_previous: bool  # an earlier page, or (page 1 of the upcoming list) past events
    past: bool
    latest_past: bool  # nothing upcoming: the latest past events are shown instead
    start: dt.datetime  # the moment the list starts from (now, or the chosen date)


@dataclass
class DayCell:
    day: dt.date
    in_month: bool
    events: list[Item]
    more: int = 0  # events beyond those a month cell lists


@dataclass
class MonthView:
    loaded: Loaded
    first: dt.date  # the month's first day
    weeks: list[list[DayCell]]
    previous: dt.date | None
    next: dt.date | None
    truncated: bool = False  # more than WINDOW_LIMIT events: the later ones are left out


@dataclass
class DayView:
    loaded: Loaded
    day: dt.date
    previous: dt.date | None
    next: dt.date | None
    truncated: bool = False


def list_view(conn: sa.Connection, ctx: Context, state: ViewState, *, now: dt.datetime | None = None,
              per_page: int | None = None) -> ListView:
    """``per_page``: the page size (the iCalendar export's); else the list's own."""
    now = now or local_now(ctx)
    per_page = per_page or listing.page_size(ctx)
    start = now if state.date is None else dt.datetime.combine(state.date, dt.time())
    query = _base_query(conn, ctx, state)
    if state.past:
        query.ends_before = start - dt.timedelta(seconds=1)
        query.descending = True
    else:
        _covering(query, conn, start, None)
    offset = (state.page - 1) * per_page
    loaded = listing.window_events(conn, ctx, query, limit=per_page + 1, offset=offset)
    has_next = len(loaded.items) > per_page
    loaded.items = loaded.items[:per_page]
    if not loaded.items and state.page > 1:
        raise ViewError(f"There is no page {state.page} of these events.", param="paged")
    latest_past = False
    if state.past:
        has_previous = state.page > 1
    else:
        earlier = _base_query(conn, ctx, state)
        earlier.ends_before = start - dt.timedelta(seconds=1)
        has_previous = state.page > 1 or listing.any_event(conn, earlier)
        if not loaded.items and state.page == 1 and not state.search and has_previous:
            earlier.descending = True
            loaded = listing.window_events(conn, ctx, earlier, limit=LATEST_PAST)
            loaded.items.reverse()
            latest_past = True
    return ListView(loaded, state.page, per_page, has_next, has_previous, state.past, latest_past, start)


def week_start(options: Mapping[str, Any]) -> int:
    """The grid's first weekday, Python's numbering (Monday 0), from the ``start_of_week`` option
    (the reference's numbering: Sunday 0, default Monday)."""
    try:
        value = int(options.get("start_of_week", 1))
    except (TypeError, ValueError):
        value = 1
    return (value - 1) % 7


def covered_days(row: EventRow) -> tuple[dt.date, dt.date]:
    """The first and last day an event covers: an event ending at midnight does not cover the
    day it ends on."""
    first = row.start_local.date()
    last = row.end_local.date()
    if last > first and row.end_local.time() == dt.time() and not row.all_day:
        last -= dt.timedelta(days=1)
    return first, max(first, last)


def month_view(conn: sa.Connection, ctx: Context, state: ViewState, *, now: dt.datetime | None = None,
               limit: int = WINDOW_LIMIT) -> MonthView:
    today = (now or local_now(ctx)).date()
    first = (state.date or today).replace(day=1)
    last = first.replace(day=gregorian.monthrange(first.year, first.month)[1])
    offset = (first.weekday() - week_start(ctx.options)) % 7
    grid_first = _shift(first, -offset) or dt.date.min
    grid_last = _shift(grid_first, 41) or dt.date.max
    # Whole weeks only: five or six rows as the month needs.
    while grid_last - dt.timedelta(days=7) >= last:
        grid_last -= dt.timedelta(days=7)
    query = _base_query(conn, ctx, state)
    _covering(query, conn, dt.datetime.combine(grid_first, dt.time()), dt.datetime.combine(grid_last, dt.time(23, 59, 59)))
    loaded = listing.window_events(conn, ctx, query, limit=limit + 1)
    truncated = len(loaded.items) > limit
    loaded.items = loaded.items[:limit]
    by_day: dict[dt.date, list[Item]] = {}
    for item in loaded.items:
        row = loaded.event_rows.get(item.id)
        if row is None:
            continue
        day, end = covered_days(row)
        day, end = max(day, grid_first), min(end, grid_last)
        while day <= end:
            by_day.setdefault(day, []).append(item)
            if day == dt.date.max:
                break
            day += dt.timedelta(days=1)
    weeks: list[list[DayCell]] = []
    day = grid_first
    while day <= grid_last:
        week = []
        for _ in range(7):
            shown = by_day.get(day, [])
            week.append(DayCell(day, day.month == first.month, shown[:MONTH_DAY_EVENTS], max(0, len(shown) - MONTH_DAY_EVENTS)))
            following = _shift(day, 1)
            if following is None:
                break
            day = following
        weeks.append(week)
        if day == grid_last and day == dt.date.max:
            break
    previous = _shift(first, -1)
    following = _shift(last, 1)
    return MonthView(loaded, first, weeks, previous.replace(day=1) if previous else None, following, truncated)


def day_view(conn: sa.Connection, ctx: Context, state: ViewState, *, now: dt.datetime | None = None,
             limit: int = WINDOW_LIMIT) -> DayView:
    day = state.date or (now or local_now(ctx)).date()
    query = _base_query(conn, ctx, state)
    _covering(query, conn, dt.datetime.combine(day, dt.time()), dt.datetime.combine(day, dt.time(23, 59, 59)))
    loaded = listing.window_events(conn, ctx, query, limit=limit + 1)
    truncated = len(loaded.items) > limit
    loaded.items = loaded.items[:limit]
    return DayView(loaded, day, _shift(day, -1), _shift(day, 1), truncated)


def _shift(day: dt.date, days: int) -> dt.date | None:
    try:
        return day + dt.timedelta(days=days)
    except OverflowError:
        return None


def ical_feed_size(options: Mapping[str, Any]) -> int:
    """How many events a view's iCalendar export holds: the stored setting when it is a whole
    number from 1 to ICAL_FEED_MAX, else the reference's 30 (as its filter's value is checked)."""
    value = options.get(ICAL_FEED_OPTION)
    try:
        number = int(str(value).strip()) if value is not None and not isinstance(value, bool) else 0
    except ValueError:
        number = 0
    return number if 1 <= number <= ICAL_FEED_MAX else ICAL_FEED_DEFAULT


def feed_events(conn: sa.Connection, ctx: Context, state: ViewState, *, now: dt.datetime | None = None) -> Loaded:
    """The events of a view's .ics export, as the reference's views export them (each view's own
    query with the feed's page size): the first events covering the month's grid or the day, or
    the list's page counted in pages of the feed's size (page 2: events 31 to 60)."""
    size = ical_feed_size(ctx.options)
    if state.view == "month":
        return month_view(conn, ctx, state, now=now, limit=size).loaded
    if state.view == "day":
        return day_view(conn, ctx, state, now=now, limit=size).loaded
    return list_view(conn, ctx, state, now=now, per_page=size).loaded


def adjacent_events(conn: sa.Connection, ctx: Context, event_id: int, start: dt.datetime) -> tuple[Item | None, Item | None]:
    """The listed events just before and just after an event, ordered by start then id (the single
    event page's previous and next links)."""
    own = (start, event_id)
    found: list[Item | None] = []
    for before in (True, False):
        query = listing.EventQuery(statuses=visible_statuses(ctx), listed_only=True, descending=before)
        if before:
            query.starts_before = start
        else:
            query.starts_after = start
        # Rows only (the page shows a title and a link): the neighbours at the same start and a few more.
        items, rows = listing.window_rows(conn, query, limit=50)
        keyed = [((rows[item.id].start_local, item.id), item) for item in items if item.id in rows]
        if before:
            earlier = [entry for entry in keyed if entry[0] < own]
            found.append(max(earlier, key=lambda entry: entry[0])[1] if earlier else None)
        else:
            later = [entry for entry in keyed if entry[0] > own]
            found.append(min(later, key=lambda entry: entry[0])[1] if later else None)
    return found[0], found[1]


def upcoming_for(conn: sa.Connection, ctx: Context, kind: str, linked_id: int, *, limit: int,
                 now: dt.datetime | None = None) -> Loaded:
    """The upcoming events of a venue or an organizer (``kind``), soonest first."""
    query = listing.EventQuery(statuses=visible_statuses(ctx), listed_only=True)
    if kind == "venue":
        query.venues = [linked_id]
    else:
        query.organizers = [linked_id]
    _covering(query, conn, now or local_now(ctx), None)
    return listing.window_events(conn, ctx, query, limit=limit)
