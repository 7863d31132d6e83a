"""The calendar views rendered: the one container both the public pages (``/events/...``) and the
``cal/views/v2/html`` route answer with (calendar-api.md 7.4).

:func:`render_view` reads the view's events through :mod:`calpress.calendar.views` and renders
``templates/site/calendar/view.html``: one element with ``data-js="tribe-events-view"`` and the
``tribe-events-view--<slug>`` class, holding the ``tribe-events-view-data`` JSON (the reference's
keys: slug, url, prev_url, next_url, today_url, events, title...), the events bar (search, date,
and the category and venue selects of :mod:`calpress.calendar.bar_filters` when there is a choice;
a plain GET form, which views.js folds behind a search button on a phone), the view selector, the view's body (list, month grid or day), the
previous / today / next links, the subscribe links, and the views nonce script (``tvn1`` for the
requester, ``tvn2`` the anonymous one for logged-in users, as the reference emits them).

Everything here is plain data in, HTML out; no framework, so the REST route renders with it too.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any
from urllib.parse import quote

import orjson
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from ..calendar import bar_filters
from ..calendar import views as cal_views
from ..calendar.events import Loaded
from ..calendar.represent import Builder
from ..compat.phpdate import format_php
from ..content.items import Context, Item
from .cards import Cards, EventCard, date_text
from .pictures import Loading

templates = Environment(
    loader=PackageLoader("calpress", "templates"), autoescape=select_autoescape(["html"]), trim_blocks=False, lstrip_blocks=False
)

# The Content-Security-Policy of every public HTML answer: the pages and the cal/views/v2 route
# that re-renders their views (the same HTML, so the same policy).
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; "
    "media-src 'self' https:; frame-src https:; object-src 'none'; base-uri 'self'; form-action 'self'"
)

VIEW_LABELS = {"list": "List", "month": "Month", "day": "Day"}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def script_json(data: Any, *, pretty: bool = False) -> Markup:
    """JSON safe inside a ``<script>`` element (and as a text/html body): ``<``, ``>`` and ``&``
    as unicode escapes, so no ``</script>`` or comment can end it early."""
    text = orjson.dumps(data, option=orjson.OPT_INDENT_2 if pretty else 0).decode()
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


@dataclass
class Rendered:
    html: str
    title: str
    events: list[int] = field(default_factory=list)


@dataclass
class Addresses:
    """The addresses a view links to: the site's home, the views route, and how to make the
    address of a term's archive and of a named REST route."""

    home: str
    views_rest_url: str
    term_url: Callable[[Any], str]
    rest_url: Callable[..., str]


def term_url(home: str, term: Any, options: Any) -> str:
    """The public archive of a term: event categories and tags in the calendar's views
    (``/events/category/<slug>/``), tags and categories of posts at their bases."""
    home = home.rstrip("/")
    slug = quote(str(term.slug), safe="%")
    if term.taxonomy == "cal_events_cat":
        return f"{home}/events/category/{slug}/"
    if term.taxonomy == "post_tag":
        return f"{home}/{str(options.get('tag_base') or 'tag').strip('/')}/{slug}/"
    if term.taxonomy == "category":
        return f"{home}/{str(options.get('category_base') or 'category').strip('/')}/{slug}/"
    return f"{home}/?{quote(term.taxonomy)}={slug}"


def ical_address(view_url: str) -> str:
    """The .ics export of exactly what a view shows: its own address with ``ical=1``."""
    base, _, fragment = view_url.partition("#")
    path, _, query = base.partition("?")
    if not path.endswith("/"):
        path += "/"
    return path + "?" + "&".join(filter(None, [query, "ical=1"]))


def webcal(url: str) -> str:
    return "webcal://" + url.split("://", 1)[-1]


def subscribe_links(feed: str, export: str, site_name: str) -> list[tuple[str, str]]:
    """The reference's subscribe choices: Google Calendar, iCalendar (webcal), Outlook 365 and
    Outlook Live (their add-subscription deep links), and the .ics export of what is shown."""
    cal = webcal(feed)
    name = quote(site_name)
    return [
        ("Google Calendar", "https://www.google.com/calendar/render?cid=" + quote(cal, safe="")),
        ("iCalendar", cal),
        ("Outlook 365", f"https://outlook.office.com/owa?path=/calendar/action/compose&rru=addsubscription&url={quote(cal, safe='')}&name={name}"),
        ("Outlook Live", f"https://outlook.live.com/owa?path=/calendar/action/compose&rru=addsubscription&url={quote(cal, safe='')}&name={name}"),
        ("Export .ics file", export),
    ]


def _month_groups(cards: Sequence[EventCard], ctx: Context) -> list[dict[str, Any]]:
    groups = []
    for key, members in groupby(cards, key=lambda c: (c.start.year, c.start.month)):
        label = format_php(dt.datetime(key[0], key[1], 1), "F Y")
        groups.append({"key": f"{key[0]:04d}-{key[1]:02d}", "label": label, "events": list(members)})
    return groups


def _time_groups(cards: Sequence[EventCard], day: dt.date) -> list[dict[str, Any]]:
    """The day view's separators: all-day and ongoing events first, then by start hour."""
    groups: list[dict[str, Any]] = []
    for card in cards:
        if card.all_day:
            label = "All Day"
        elif card.start.date() < day:
            label = "Ongoing"
        else:
            label = card.time
        if groups and groups[-1]["label"] == label:
            groups[-1]["events"].append(card)
        else:
            groups.append({"label": label, "events": [card]})
    return groups


def _event_ld(ctx: Context, loaded: Loaded, items: Sequence[Item], rest_url: Callable[..., str]) -> list[Markup]:
    """The JSON-LD of the listed events (the reference prints one array per view)."""
    if not items:
        return []
    builder = Builder(ctx, rest_url, loaded, single=True)
    found = []
    for item in items:
        if item.password:
            continue
        found.append(builder.event(item)["json_ld"])
    return [script_json(found)] if found else []


def render_view(
    site: Any,
    ctx: Context,
    state: cal_views.ViewState,
    addresses: Addresses,
    *,
    nonces: dict[str, str],
    heading: str = "h1",
    now: dt.datetime | None = None,
    site_name: str = "",
    env: Environment | None = None,
) -> Rendered:
    """The view container for ``state`` (raises ViewError for what names nothing); ``env``: the
    site's templates (its overrides, :mod:`.theme`), else the package's."""
    now = now or cal_views.local_now(ctx)
    today = now.date()
    if state.view == "reflector":
        values = {**state.values, **{k: v for k, v in nonces.items() if v}}
        return Rendered(str(script_json(values, pretty=True)), "Reflector")
    with site.read() as conn:
        if state.view == "month":
            data: Any = cal_views.month_view(conn, ctx, state, now=now)
        elif state.view == "day":
            data = cal_views.day_view(conn, ctx, state, now=now)
        else:
            data = cal_views.list_view(conn, ctx, state, now=now)
        choices = bar_filters.filter_choices(conn, ctx, now)
        venue = bar_filters.venue_name(conn, ctx, state.venue) if state.venue else ""
    cards = Cards(ctx, data.loaded, today, addresses.term_url)
    v: dict[str, Any] = {
        "slug": state.view,
        "rest_url": addresses.views_rest_url,
        "pointer": str(uuid.uuid4()),
        "heading": heading,
        "search": state.search,
        "show_zone": bool(ctx.options.get("tribe_events_timezones_show_zone")),
        "today": today,
        "limit": cal_views.WINDOW_LIMIT,
    }
    filters = _filter_label(state, data.loaded, venue or "")
    if state.view == "month":
        v.update(_month(ctx, state, data, cards, today))
        title = "Events for " + v["month_label"]
    elif state.view == "day":
        v.update(_day(ctx, state, data, cards, today))
        title = "Events for " + date_text(ctx, data.day, today, with_year=True)
    else:
        v.update(_list(ctx, state, data, cards, today))
        title = v.pop("title")
    if filters:
        title = f"{title} \u203a {filters}"
    v["title"] = title
    v["found_text"] = f"{len(data.loaded.items)} events found." if data.loaded.items else "No events found."
    v["views"] = [(label, cal_views.view_url(state, view=slug, date=state.date, page=1, past=False), slug == state.view)
                  for slug, label in VIEW_LABELS.items()]
    v["today_url"] = cal_views.view_url(state, page=1, past=False)
    v["today_label"] = "Today" if state.view != "month" else "This Month"
    category = _term_name(data.loaded, "cal_events_cat", state.category) if state.category else ""
    v["bar_filters"] = _bar_filters(state, choices, category, venue or "")
    # The selects send the category and venue, so the form's address leaves out those they show.
    v["form_action"] = cal_views.view_url(dataclasses.replace(
        state, search="", category="" if v["bar_filters"]["categories"] else state.category,
        venue=0), page=1, past=state.past).split("?")[0]
    v["breadcrumbs"] = _breadcrumbs(state, filters)
    feed = cal_views.view_url(state, view="list", ical=True, past=False)
    export = ical_address(state.url)
    v["subscribe"] = subscribe_links(feed, export, site_name or str(ctx.options.get("blogname") or ""))
    event_ids = [item.id for item in data.loaded.items]
    listed = data.loaded.items if state.view != "month" else []
    v["json_ld"] = _event_ld(ctx, data.loaded, listed, addresses.rest_url)
    v["data_json"] = script_json({
        "slug": state.view,
        "prev_url": v.get("prev_url") or "",
        "url": state.url,
        "view_class": f"calpress.views.{state.view}",
        "view_slug": state.view,
        "title": title,
        "events": event_ids,
        "today": today.isoformat() + " 00:00:00",
        "now": now.isoformat(sep=" "),
        "next_url": v.get("next_url") or "",
        "prev_label": v.get("prev_label") or "",
        "next_label": v.get("next_label") or "",
        "rest_url": addresses.views_rest_url,
        "rest_method": "GET",
        "rest_nonce": "",
        "should_manage_url": True,
        "today_url": v["today_url"],
        "breadcrumbs": [{"link": href or "", "label": label} for label, href in v["breadcrumbs"]],
        "display_events_bar": True,
        "disable_event_search": False,
        "live_refresh": True,
        "is_past": state.past,
        "show_now": state.view == "list" and not state.past,
        "now_label": "Now" if state.date is None else "Upcoming",
        "is_initial_load": False,
        "public_views": {slug: {"view_class": f"calpress.views.{slug}", "view_url": cal_views.view_url(state, view=slug, page=1),
                                "view_label": label} for slug, label in VIEW_LABELS.items()},
        "view_more_link": v.get("next_url") or "",
    })
    v["nonce_json"] = script_json({"tvn1": nonces.get("tvn1", ""), "tvn2": nonces.get("tvn2", "")})
    body = (env or templates).get_template("site/calendar/view.html").render(v=v, images=Loading())
    return Rendered(body, title, event_ids)


def _bar_filters(state: cal_views.ViewState, choices: bar_filters.BarChoices, category_name: str,
                 venue_name: str) -> dict[str, Any]:
    """The events bar's category and venue selects: the choices of upcoming events, and the one
    chosen even when it has none (so that submitting the form keeps it); none when there is
    nothing to choose."""
    categories = list(choices.categories)
    if state.category and state.category not in {slug for slug, _ in categories}:
        categories.insert(0, (state.category, category_name or state.category))
    venues = list(choices.venues)
    if state.venue and state.venue not in {venue_id for venue_id, _ in venues}:
        venues.insert(0, (state.venue, venue_name or f"#{state.venue}"))
    return {"categories": categories, "category": state.category, "venues": venues, "venue": state.venue,
            "venue_var": bar_filters.VENUE_VAR}


def _filter_label(state: cal_views.ViewState, loaded: Loaded, venue: str = "") -> str:
    parts = []
    if state.category:
        parts.append(_term_name(loaded, "cal_events_cat", state.category))
    if state.venue:
        parts.append(venue or f"Venue #{state.venue}")
    if state.tag:
        parts.append(_term_name(loaded, "post_tag", state.tag))
    if state.featured:
        parts.append("Featured")
    if state.search:
        parts.append(f"Search: \u201c{state.search[:80]}\u201d")
    return " \u203a ".join(parts)


def _term_name(loaded: Loaded, taxonomy: str, slug: str) -> str:
    for found in loaded.terms.values():
        for term in found.get(taxonomy, []):
            if term.slug == slug:
                return html.unescape(term.name)
    return slug


def _breadcrumbs(state: cal_views.ViewState, filters: str) -> list[tuple[str, str]]:
    if not (state.category or state.tag):
        return []
    return [("Events", cal_views.view_url(cal_views.ViewState(view=state.view, url="", home=state.home))), (filters, "")]


def _list(ctx: Context, state: cal_views.ViewState, data: cal_views.ListView, cards: Cards, today: dt.date) -> dict[str, Any]:
    shown = [cards.event(item) for item in data.loaded.items]
    if data.past:
        title = "Past Events"
        prev_url = cal_views.view_url(state, page=state.page + 1) if data.has_next else ""
        next_url = cal_views.view_url(state, page=state.page - 1) if state.page > 1 else cal_views.view_url(state, page=1, past=False)
        prev_label, next_label = "Previous Events", "Next Events" if state.page > 1 else "Upcoming Events"
    else:
        title = "Upcoming Events" if state.date is None else "Events from " + date_text(ctx, state.date, today, with_year=True)
        if state.page > 1:
            prev_url = cal_views.view_url(state, page=state.page - 1)
        elif data.has_previous:
            prev_url = cal_views.view_url(state, page=1, past=True)
        else:
            prev_url = ""
        next_url = cal_views.view_url(state, page=state.page + 1) if data.has_next else ""
        prev_label, next_label = "Previous Events", "Next Events"
    return {
        "title": title,
        "groups": _month_groups(shown, ctx),
        "latest_past": data.latest_past,
        "empty_text": "There were no results found." if (state.search or state.category or state.tag or state.venue) else (
            "There are no past events." if data.past else "There are no upcoming events."),
        "prev_url": prev_url,
        "next_url": next_url,
        "prev_label": prev_label,
        "next_label": next_label,
        "nav_label": "Bottom events list pagination",
        "date_value": state.date.isoformat() if state.date else "",
    }


def _month(ctx: Context, state: cal_views.ViewState, data: cal_views.MonthView, cards: Cards, today: dt.date) -> dict[str, Any]:
    built: dict[int, EventCard] = {}

    def card(item: Item) -> EventCard:
        if item.id not in built:
            built[item.id] = cards.event(item, full=False)
        return built[item.id]

    label = format_php(dt.datetime(data.first.year, data.first.month, 1), "F Y")
    weeks = []
    for week in data.weeks:
        row = []
        for cell in week:
            total = len(cell.events) + cell.more
            events_word = "event" if total == 1 else "events"
            row.append({
                "day": cell.day,
                "in_month": cell.in_month,
                "events": [card(item) for item in cell.events],
                "more": cell.more,
                "total": total,
                "url": cal_views.view_url(state, view="day", date=cell.day),
                "label": f"{date_text(ctx, cell.day, today, with_year=True)}, {total} {events_word}",
            })
        weeks.append(row)
    first_weekday = data.weeks[0][0].day.weekday() if data.weeks and data.weeks[0] else 0
    names = [WEEKDAYS[(first_weekday + n) % 7] for n in range(7)]
    return {
        "month_label": label,
        "weeks": weeks,
        "weekdays": [(name[:3], name) for name in names],
        "any_events": bool(data.loaded.items),
        "truncated": data.truncated,
        "empty_text": f"There are no events in {label}.",
        "prev_url": cal_views.view_url(state, view="month", date=data.previous) if data.previous else "",
        "next_url": cal_views.view_url(state, view="month", date=data.next) if data.next else "",
        "prev_label": format_php(dt.datetime(data.previous.year, data.previous.month, 1), "F") if data.previous else "",
        "next_label": format_php(dt.datetime(data.next.year, data.next.month, 1), "F") if data.next else "",
        "nav_label": "Calendar Month Navigation",
        "date_value": f"{data.first.year:04d}-{data.first.month:02d}",
    }


def _day(ctx: Context, state: cal_views.ViewState, data: cal_views.DayView, cards: Cards, today: dt.date) -> dict[str, Any]:
    shown = [cards.event(item) for item in data.loaded.items]
    shown.sort(key=lambda c: (not c.all_day, c.start.date() >= data.day, c.start))
    return {
        "groups": _time_groups(shown, data.day),
        "truncated": data.truncated,
        "empty_text": f"There are no events on {date_text(ctx, data.day, today, with_year=True)}.",
        "prev_url": cal_views.view_url(state, view="day", date=data.previous) if data.previous else "",
        "next_url": cal_views.view_url(state, view="day", date=data.next) if data.next else "",
        "prev_label": "Previous Day",
        "next_label": "Next Day",
        "nav_label": "Day View Navigation",
        "date_value": data.day.isoformat(),
    }
