"""What the public pages show of an event, a venue or an organizer: small view models built from
what the listing service loaded (no statement per item), with dates written as the reference's
templates write them.

Dates follow the site's ``date_format`` and ``time_format`` options (PHP date() formats, through
:mod:`calpress.compat.phpdate`) and the reference's schedule rules: ``December 6 @ 7:00 pm - 11:00 pm``
for a timed event within one day, the end's date too when it ends on another day, the date alone
for an all-day event, and the year only when it is not the current one (``dateWithYearFormat`` /
``dateWithoutYearFormat``, ``timeRangeSeparator``, ``dateTimeSeparator`` options).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

from ..calendar import events as cal
from ..calendar.fields import VENUE
from ..calendar.views import covered_days
from ..compat.formatting import safe_url
from ..compat.phpdate import format_php
from ..compat.timezones import timezone_abbr
from ..content import items as item_service
from ..content import rendering
from ..content.items import Context, Item

WITH_YEAR = "F j, Y"
WITHOUT_YEAR = "F j"
DATE_TIME_SEPARATOR = " @ "
TIME_RANGE_SEPARATOR = " - "


@dataclass
class Place:
    """A venue as pages show it."""

    id: int
    name: str
    url: str
    street: str = ""
    locality: str = ""  # city, state or province, zip
    country: str = ""
    phone: str = ""
    website: str = ""
    map_url: str = ""  # a map search for the address ("" when the venue hides its map link)

    @property
    def address(self) -> str:
        return ", ".join(part for part in (self.street, self.locality, self.country) if part)


@dataclass
class Person:
    """An organizer as pages show it."""

    id: int
    name: str
    url: str
    phone: str = ""
    email: str = ""
    website: str = ""


@dataclass
class EventCard:
    """An event as pages show it."""

    id: int
    title: str  # rendered HTML (entities, texturized)
    url: str
    start: dt.datetime  # wall times in the event's zone
    end: dt.datetime
    zone: str
    zone_abbr: str
    all_day: bool
    featured: bool
    schedule: str  # "December 6 @ 7:00 pm - 11:00 pm"
    time: str  # the start time ("7:00 pm"), "All day" for all-day events
    start_iso: str
    end_iso: str
    multiday: bool
    status: str
    cost: str = ""
    excerpt: str = ""  # rendered HTML
    image: Any = None  # the image object (url, alt...) or None
    venue: Place | None = None
    organizers: list[Person] = field(default_factory=list)
    categories: list[tuple[str, str]] = field(default_factory=list)  # (name, url)
    tags: list[tuple[str, str]] = field(default_factory=list)


def date_text(ctx: Context, day: dt.datetime | dt.date, today: dt.date, *, with_year: bool | None = None) -> str:
    """A date as the calendar writes it: without the year in the current year."""
    if with_year is None:
        with_year = day.year != today.year
    fmt = str(ctx.options.get("dateWithYearFormat") or ctx.options.get("date_format") or WITH_YEAR) if with_year else str(
        ctx.options.get("dateWithoutYearFormat") or WITHOUT_YEAR
    )
    moment = day if isinstance(day, dt.datetime) else dt.datetime.combine(day, dt.time())
    return format_php(moment, fmt)


def time_text(ctx: Context, moment: dt.datetime) -> str:
    return format_php(moment, str(ctx.options.get("time_format") or "g:i a"))


def schedule(ctx: Context, start: dt.datetime, end: dt.datetime, all_day: bool, today: dt.date) -> str:
    """The reference's schedule details line (plain text)."""
    sep = str(ctx.options.get("dateTimeSeparator") or DATE_TIME_SEPARATOR)
    range_sep = str(ctx.options.get("timeRangeSeparator") or TIME_RANGE_SEPARATOR)
    first_day, last_day = start.date(), end.date()
    if all_day:
        if last_day <= first_day:
            return date_text(ctx, start, today)
        return date_text(ctx, start, today) + range_sep + date_text(ctx, end, today)
    begins = date_text(ctx, start, today) + sep + time_text(ctx, start)
    if first_day == last_day:
        return begins if end == start else begins + range_sep + time_text(ctx, end)
    return begins + range_sep + date_text(ctx, end, today) + sep + time_text(ctx, end)


def map_url(place: Place) -> str:
    query = ", ".join(part for part in (place.street, place.locality, place.country) if part)
    return "https://maps.google.com/maps?f=q&source=s_q&hl=en&geocode=&q=" + quote_plus(query) if query else ""


def place_of(ctx: Context, item: Item) -> Place:
    meta = item.meta
    values = {f.name: str(meta.get(f.meta_key) or "") for f in VENUE.values}
    region = values.get("stateprovince") or values.get("state") or values.get("province")
    locality = ", ".join(part for part in (values.get("city"), region, values.get("zip")) if part)
    place = Place(
        id=item.id, name=rendering.render_title(item.title).strip(), url=item_service.permalink(ctx, item),
        street=values.get("address", ""), locality=locality, country=values.get("country", ""),
        phone=values.get("phone", ""), website=safe_url(values.get("website", "")),
    )
    if meta.get("_VenueShowMapLink", True):
        place.map_url = map_url(place)
    return place


def person_of(ctx: Context, item: Item) -> Person:
    meta = item.meta
    return Person(
        id=item.id, name=rendering.render_title(item.title).strip(), url=item_service.permalink(ctx, item),
        phone=str(meta.get("_OrganizerPhone") or ""), email=str(meta.get("_OrganizerEmail") or ""),
        website=safe_url(meta.get("_OrganizerWebsite") or ""),
    )


class Cards:
    """Builds the cards of one loaded page of events; ``term_url`` makes a term's archive address."""

    def __init__(self, ctx: Context, loaded: cal.Loaded, today: dt.date, term_url: Any) -> None:
        self.ctx = ctx
        self.loaded = loaded
        self.today = today
        self.term_url = term_url

    def event(self, item: Item, *, full: bool = True) -> EventCard:
        """``full``: also the venue, organizers, terms, cost, excerpt and image (the list and day
        views, the event page); the month grid needs only the title and the times."""
        ctx = self.ctx
        row = self.loaded.event_rows.get(item.id)
        zone, zone_name = cal.site_timezone(ctx.options, row.timezone if row and row.timezone else None)
        if row is None:  # an event item written without calendar data
            row = cal.EventRow(item.date_local, item.date_local, item.date_local, item.date_local, zone_name,
                               False, False, False, False)
        first, last = covered_days(row)
        card = EventCard(
            id=item.id,
            title=rendering.render_title(item.title).strip(),
            url=item_service.permalink(ctx, item),
            start=row.start_local,
            end=row.end_local,
            zone=zone_name,
            zone_abbr=timezone_abbr(zone, row.start_local),
            all_day=row.all_day,
            featured=row.featured,
            schedule=schedule(ctx, row.start_local, row.end_local, row.all_day, self.today),
            time="All day" if row.all_day else time_text(ctx, row.start_local),
            start_iso=row.start_local.replace(tzinfo=zone).isoformat(),
            end_iso=row.end_local.replace(tzinfo=zone).isoformat(),
            multiday=last > first,
            status=item.status,
        )
        if not full:
            return card
        protected = bool(item.password)
        if not protected:
            cost, _ = cal.format_cost([t for t in [str(item.meta.get("_EventCost") or "")] if t], ctx.options)
            card.cost = cost
            card.excerpt = rendering.render_excerpt(item.excerpt, item.content).strip() if (item.excerpt or item.content) else ""
            media = item.featured_media
            image = self.loaded.images.get(media) if media else None
            card.image = image or None
        venues = [self.loaded.linked[i] for i in self.loaded.venues.get(item.id, []) if i in self.loaded.linked]
        if venues:
            card.venue = place_of(ctx, venues[0])
        card.organizers = [
            person_of(ctx, self.loaded.linked[i]) for i in self.loaded.organizers.get(item.id, []) if i in self.loaded.linked
        ]
        terms = self.loaded.terms.get(item.id, {})
        card.categories = [(t.name, self.term_url(t)) for t in terms.get("cal_events_cat", [])]
        card.tags = [(t.name, self.term_url(t)) for t in terms.get("post_tag", [])]
        return card
