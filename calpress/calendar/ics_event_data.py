"""One occurrence of an imported iCalendar feed turned into the data the calendar input service
takes (:func:`calpress.calendar.input.event_input`): ``FeedEvent.data`` of :mod:`.ics_import`,
and its ``last_modified``. Its times come already in their zones (:mod:`.ics_feed_zones`).

All-day events
    ``VALUE=DATE`` starts. ``DTEND`` (or ``DTSTART`` plus ``DURATION``) is exclusive, so the
    event runs from the start day's ``00:00:00`` to the day before the end's ``23:59:59``, as
    calpress stores all-day events (``events.event_times``); no end, or an end not after the
    start, means one day.

Event data (``FeedEvent.data``)
    ``title`` (``SUMMARY``, blanks collapsed, HTML-escaped: post titles are HTML; an event
    without one, which RFC 5545 allows and Google Calendar exports, is titled
    :data:`NO_TITLE` ``(No title)``, as Google Calendar shows it, with a warning naming its UID),
    ``description`` (``DESCRIPTION`` as plain text made HTML: escaped, blank lines separate
    ``<p>`` paragraphs, other line breaks become ``<br />``; HTML in it is shown, never
    interpreted), ``start_date``/``end_date`` (``YYYY-MM-DD HH:MM:SS`` wall times; a ``DTEND``
    before ``DTSTART`` was dropped by :mod:`.ics_import`, with a warning), ``all_day``,
    ``timezone``, ``website`` (``URL`` when http or https, else ""), ``venue``, ``organizer``,
    ``categories`` and ``status`` ("publish").

    ``venue`` is None without ``LOCATION`` (or when it is a web address). Otherwise its name
    (HTML-escaped, a post title too) is the first line of ``LOCATION``, or when it has one line
    its part before the first comma,
    and ``address`` is the rest (calpress writes ``name, street, city, region, zip,
    country``); a ``GEO`` adds ``geo_lat``/``geo_lng`` (strings; the venue's geo fields, which
    the input service does not write today). ``organizer`` is a list of
    ``{"organizer": name, "email": address}`` from each ``ORGANIZER``: the ``CN`` parameter (else
    the address) as the name (HTML-escaped), a ``mailto:`` value as the email (else ""). ``categories`` gathers
    every ``CATEGORIES`` property's comma list, blanks and repeats dropped; names made only of
    digits are left out with a warning (the input service reads digits as a term id).
"""

from __future__ import annotations

import datetime
import html
import re
import zoneinfo
from collections.abc import Callable
from typing import Any

from icalendar import Component

from . import ics_zones
from .ics_values import one_line, plain, readable, readables

NO_TITLE = "(No title)"
"""The title of an event without SUMMARY, as Google Calendar shows one."""

_UTC = datetime.UTC
_DAY = datetime.timedelta(days=1)
_MIDNIGHT = datetime.time()

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_WEB_ADDRESS = re.compile(r"https?://\S+", re.IGNORECASE)
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")


def event_data(
    uid: str,
    occurrence: Component,
    feed_zone: datetime.tzinfo,
    feed_name: str,
    warn: Callable[[str], None],
) -> dict[str, Any]:
    """The input service's data of one occurrence (see the module); ``feed_zone`` (named
    ``feed_name``) is the zone of its UTC, floating and all-day times."""
    start = occurrence["DTSTART"].dt
    end_prop = occurrence.get("DTEND")
    end = end_prop.dt if end_prop is not None else start
    title = one_line(occurrence.get("SUMMARY"))
    if not title:
        title = NO_TITLE
        warn(f"Event \"{uid}\" had no SUMMARY; imported as '{NO_TITLE}'.")
    data: dict[str, Any] = {
        "title": html.escape(title, quote=False),
        "description": _paragraphs(plain(occurrence.get("DESCRIPTION"))),
    }
    data.update(_times(start, end, feed_zone, feed_name))
    url = one_line(occurrence.get("URL"))
    data["website"] = url if _WEB_ADDRESS.fullmatch(url) else ""
    data["venue"] = _venue(occurrence)
    data["organizer"] = _organizers(occurrence)
    data["categories"] = _categories(occurrence, warn)
    data["status"] = "publish"
    return data


def last_modified(occurrence: Component) -> str | None:
    """``LAST-MODIFIED`` as an ISO 8601 UTC instant (a floating one read as UTC), or None."""
    prop = readable(occurrence, "LAST-MODIFIED")
    value = getattr(prop, "dt", None)
    if not isinstance(value, datetime.datetime):
        return None
    value = value.replace(tzinfo=_UTC) if value.tzinfo is None else value.astimezone(_UTC)
    return value.replace(microsecond=0).isoformat()


def _times(start: datetime.date, end: datetime.date, feed_zone: datetime.tzinfo, feed_name: str) -> dict[str, Any]:
    if not isinstance(start, datetime.datetime):
        if isinstance(end, datetime.datetime):
            last = end.date() if end.time() != _MIDNIGHT else end.date() - _DAY
        else:
            last = end - _DAY
        last = max(last, start)
        return {
            "start_date": _wall_text(datetime.datetime.combine(start, _MIDNIGHT)),
            "end_date": _wall_text(datetime.datetime.combine(last, datetime.time(23, 59, 59))),
            "all_day": True,
            "timezone": feed_name,
        }
    zone, name = feed_zone, feed_name
    if isinstance(start.tzinfo, zoneinfo.ZoneInfo) and not ics_zones.is_utc(start.tzinfo):
        zone, name = start.tzinfo, start.tzinfo.key
    if not isinstance(end, datetime.datetime):
        end = datetime.datetime.combine(end, _MIDNIGHT, tzinfo=start.tzinfo)
    wall_start, wall_end = _wall(start, zone), _wall(end, zone)
    return {
        "start_date": _wall_text(wall_start),
        "end_date": _wall_text(max(wall_start, wall_end)),
        "all_day": False,
        "timezone": name,
    }


def _wall(value: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
    if value.tzinfo is None:
        return value
    return value.astimezone(zone).replace(tzinfo=None)


def _wall_text(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat(sep=" ")


def _paragraphs(text: str) -> str:
    """Plain text as HTML: escaped, paragraphs at blank lines, line breaks as ``<br />``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    found = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        lines = [html.escape(line.strip(), quote=False) for line in paragraph.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            found.append("<p>" + "<br />\n".join(lines) + "</p>")
    return "\n".join(found)


def _venue(occurrence: Component) -> dict[str, str] | None:
    text = plain(occurrence.get("LOCATION")).replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text or _WEB_ADDRESS.fullmatch(text):
        return None
    lines = [" ".join(line.split()) for line in text.split("\n")]
    lines = [line for line in lines if line]
    if len(lines) > 1:
        name, rest = lines[0], lines[1:]
    else:
        name, _, tail = lines[0].partition(",")
        rest = [tail]
    parts = [" ".join(part.split()) for chunk in rest for part in chunk.split(",")]
    address = ", ".join(part for part in parts if part)
    name = name.strip(" ,")
    if not name:
        name, address = address, ""
    venue = {"venue": html.escape(name, quote=False)}
    if address:
        venue["address"] = address
    geo = readable(occurrence, "GEO")
    latitude, longitude = getattr(geo, "latitude", None), getattr(geo, "longitude", None)
    if (
        isinstance(latitude, float) and isinstance(longitude, float)
        and -90 <= latitude <= 90 and -180 <= longitude <= 180
    ):  # fmt: skip
        venue["geo_lat"], venue["geo_lng"] = repr(latitude), repr(longitude)
    return venue


def _organizers(occurrence: Component) -> list[dict[str, str]]:
    found = []
    for value in readables(occurrence, "ORGANIZER"):
        address = one_line(value)
        email = address[7:].strip() if address.lower().startswith("mailto:") else ""
        if email and not _EMAIL.fullmatch(email):
            email = ""
        params = getattr(value, "params", {})
        name = " ".join(str(params.get("CN") or "").split()) or email
        if name:
            found.append({"organizer": html.escape(name, quote=False), "email": email})
    return found


def _categories(occurrence: Component, warn: Callable[[str], None]) -> list[str]:
    found: dict[str, None] = {}
    for value in readables(occurrence, "CATEGORIES"):
        for name in getattr(value, "cats", None) or []:
            text = one_line(name)
            if text.isdigit():
                warn(f'The category "{text}" was left out: a name of digits only reads as a term id.')
            elif text:
                found[text] = None
    return list(found)
