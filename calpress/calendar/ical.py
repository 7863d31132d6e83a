"""The calendar's iCalendar (RFC 5545) export: the ``.ics`` document of a list of events.

What The Events Calendar's ``Tribe__Events__iCal`` writes, built with the ``icalendar`` library
(components and typed properties only; the library escapes text, folds lines at 75 octets and
ends them with CRLF):

* ``VCALENDAR`` with ``VERSION:2.0``, ``PRODID:-//{site name} - ECPv6//NONSGML v1.0//EN``,
  ``CALSCALE:GREGORIAN``, ``METHOD:PUBLISH``, ``X-WR-CALNAME`` (the site name, left out when
  empty), ``X-ORIGINAL-URL`` (the home URL) and ``X-WR-CALDESC`` ("Events for {site name}").
* One ``VEVENT`` per event, in the order given: ``DTSTART``/``DTEND``, ``DTSTAMP``, ``CREATED``
  and ``LAST-MODIFIED`` (UTC), ``UID`` (``{id}-{start}-{end}@{host}``, the Unix times of the
  start and end), ``SUMMARY`` (the title, tags stripped and entities decoded), ``DESCRIPTION``
  (the rendered content as plain text), ``URL``, and when there is one ``LOCATION``, ``GEO``,
  ``CATEGORIES``, ``ATTACH;FMTTYPE=…`` (the featured image) and ``ORGANIZER;CN=…:MAILTO:…``.
  As the reference, only the event's first organizer is written, and only when it has an email
  (RFC 5545 allows a single ``ORGANIZER``, and it must be an address): one that WordPress's
  ``is_email()`` refuses is left out with its ``ORGANIZER``.
* No stored value can break the document, whoever wrote it: text values lose the control
  characters RFC 5545 forbids (line breaks are kept, escaped by the library, in the free text
  of ``SUMMARY``, ``DESCRIPTION``, ``LOCATION`` and ``CATEGORIES``; single-line values and
  parameters such as the organizer's ``CN`` and the calendar's names turn them into spaces), and
  an address (``URL``, ``ATTACH``) with a control character or a space is left out.
* All-day events are ``VALUE=DATE``: ``DTSTART`` is the first day, ``DTEND`` the day after the
  last one (the end is exclusive), as the reference's "+1 day".
* Timed events in an IANA zone are written as wall times with ``TZID=<zone>``, with one
  ``VTIMEZONE`` per zone, from January 1 of the earliest year to January 1 after the latest one
  of that zone's events (the reference's span), one ``STANDARD``/``DAYLIGHT`` observance per
  transition. Events in a fixed-offset zone (``UTC+2``) or UTC are written as UTC instants with
  the ``Z`` suffix and no ``VTIMEZONE``.

Wall times are read with zoneinfo's ``fold=0`` convention, which is also RFC 5545's: a wall time
that occurs twice (the fall-back hour) is its first occurrence, and one that does not exist (the
spring-forward gap) is read with the offset in force before the gap, so 02:30 in New York on a
spring-forward day is 07:30 UTC and is written as 03:30. The UID's Unix times use the same
convention.

The ``VTIMEZONE`` is not ``icalendar.Timezone.from_tzinfo``: that one dates each
spring-forward onset in the new offset's wall time (03:00 instead of 02:00 in Berlin), which puts
the transition an hour late for a reader of the VTIMEZONE. Here every transition is found in the
zoneinfo data and dated, as RFC 5545 wants, in the local time of the offset in force before it.
"""

from __future__ import annotations

import datetime
import functools
import html
import mimetypes
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event, Timezone, TimezoneDaylight, TimezoneStandard, vCalAddress

from ..compat.formatting import is_email, strip_all_tags

__all__ = ["ECP_VERSION", "IcalEvent", "calendar_bytes", "html_to_text", "uid_of"]

ECP_VERSION = "6"
"""The "ECPv" version in ``PRODID``."""

_UTC = datetime.UTC
_ONE_DAY = datetime.timedelta(days=1)
# Step of the search for zone transitions; two transitions closer than this are not seen.
_SCAN_STEP = 86400

# IANA names of zones that are UTC at every instant: their times are written with "Z".
UTC_KEYS = frozenset(
    {
        "UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu",
        "GMT", "Etc/GMT", "GMT0", "Etc/GMT0", "GMT+0", "Etc/GMT+0", "GMT-0", "Etc/GMT-0",
        "Greenwich", "Etc/Greenwich",
    }
)  # fmt: skip

_IMAGE_TYPES = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "jpe": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
    "avif": "image/avif",
    "svg": "image/svg+xml",
    "bmp": "image/bmp",
    "tif": "image/tiff",
    "tiff": "image/tiff",
    "ico": "image/x-icon",
    "heic": "image/heic",
}

# What RFC 5545 allows in no value (its CONTROL but HTAB, and LF, kept as a line break of free text).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# What an address (URI) may not hold as it is: controls and blanks.
_NOT_URI = re.compile(r"[\x00-\x20\x7f]")

# Line breaks and ends of block elements, which become new lines in the plain text.
_BREAK_TAG = re.compile(
    r"<br\b[^>]*>|</(?:p|div|li|dt|dd|h[1-6]|blockquote|pre|tr|table|ul|ol|dl|section|article|"
    r"header|footer|aside|figure|figcaption|address)\s*>",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class IcalEvent:
    """One event as the export needs it; the caller builds it from the stored event."""

    id: int
    summary: str
    start: datetime.datetime
    end: datetime.datetime
    zone: datetime.tzinfo
    all_day: bool
    url: str
    description_html: str = ""
    location: str = ""
    geo: tuple[float, float] | None = None
    categories: tuple[str, ...] = ()
    organizers: tuple[tuple[str, str], ...] = ()
    image_url: str = ""
    created_utc: datetime.datetime | None = None
    modified_utc: datetime.datetime | None = None


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def calendar_bytes(
    events: Sequence[IcalEvent],
    *,
    site_name: str,
    home: str,
    description: str = "",
    now: datetime.datetime | None = None,
) -> bytes:
    """The .ics document (VCALENDAR) for these events.

    ``description`` replaces the reference's ``X-WR-CALDESC`` ("Events for {site_name}") when
    given. ``now`` is the ``DTSTAMP`` (the current time when None; naive means UTC).
    """
    calendar = _calendar(site_name, home, description)
    for component in _timezones(events):
        calendar.add_component(component)
    stamp = _as_utc(now if now is not None else datetime.datetime.now(_UTC))
    for event in events:
        calendar.add_component(_vevent(event, home, stamp))
    return calendar.to_ical(sorted=False)


def uid_of(event: IcalEvent, home: str) -> str:
    """Stable per event: ``{id}-{start}-{end}@{host of home}``, the start and end as Unix times
    (the reference's ``tribe_get_start_date( $id, false, 'U' )``)."""
    start = int(_instant(event.start, event.zone).timestamp())
    end = int(_instant(event.end, event.zone).timestamp())
    return f"{event.id}-{start}-{end}@{_host(home)}"


def html_to_text(content: str) -> str:
    """Rendered HTML as plain text: ``<br>`` and ends of paragraphs and other blocks become new
    lines, tags (and scripts and styles with their contents) go, entities are decoded, runs of
    blanks become one space and empty lines are dropped."""
    text = _BREAK_TAG.sub("\n", content)
    text = html.unescape(strip_all_tags(text))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


# --------------------------------------------------------------------------------------------
# The calendar and its events
# --------------------------------------------------------------------------------------------


def _calendar(site_name: str, home: str, description: str) -> Calendar:
    site_name, description = _line(site_name), _line(description)
    home = _NOT_URI.sub("", home)
    calendar = Calendar()
    calendar.add("version", "2.0")
    calendar.add("prodid", f"-//{site_name} - ECPv{ECP_VERSION}//NONSGML v1.0//EN")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    if site_name:
        calendar.add("x-wr-calname", site_name)
    calendar.add("x-original-url", home)
    calendar.add("x-wr-caldesc", description or f"Events for {site_name}")
    return calendar


def _vevent(event: IcalEvent, home: str, stamp: datetime.datetime) -> Event:
    component = Event()
    _add_times(component, event)
    component.add("dtstamp", stamp)
    if event.created_utc is not None:
        component.add("created", _as_utc(event.created_utc))
    if event.modified_utc is not None:
        component.add("last-modified", _as_utc(event.modified_utc))
    component.add("uid", uid_of(event, home))
    component.add("summary", _plain(event.summary))
    component.add("description", _text(html_to_text(event.description_html)))
    if _is_uri(event.url):
        component.add("url", event.url)
    _add_details(component, event)
    return component


def _add_times(component: Event, event: IcalEvent) -> None:
    if event.all_day:
        first = event.start.date()
        last = max(event.end.date(), first)
        component.add("dtstart", first)
        component.add("dtend", last + _ONE_DAY)
        return
    start = _instant(event.start, event.zone)
    end = max(_instant(event.end, event.zone), start)
    key = _tzid(event.zone)
    if key is not None:
        zone = ZoneInfo(key)
        start, end = start.astimezone(zone), end.astimezone(zone)
    component.add("dtstart", start)
    component.add("dtend", end)


def _add_details(component: Event, event: IcalEvent) -> None:
    location = _text(html.unescape(event.location))
    if location:
        component.add("location", location)
    if event.geo is not None:
        component.add("geo", (float(event.geo[0]), float(event.geo[1])))
    categories = [text for text in (_text(html.unescape(name)) for name in event.categories if name) if text]
    if categories:
        component.add("categories", categories)
    if _is_uri(event.image_url):
        fmttype = _image_type(event.image_url)
        component.add("attach", event.image_url, parameters={"FMTTYPE": fmttype} if fmttype else None)
    organizer = _organizer(event.organizers)
    if organizer is not None:
        component.add("organizer", organizer)


def _organizer(organizers: Iterable[tuple[str, str]]) -> vCalAddress | None:
    """The first organizer, as the reference, when it has an email (one ``is_email()`` takes:
    a stored value with a line break or a control character is no address)."""
    for name, email in organizers:
        if not email or not is_email(email):
            return None
        address = vCalAddress(f"MAILTO:{email}")
        name = _line(_plain(name))
        if name:
            address.params["CN"] = name
        return address
    return None


def _plain(text: str) -> str:
    """A title as the reference writes it: tags stripped, entities decoded."""
    return _text(html.unescape(strip_all_tags(text)))


def _text(text: str) -> str:
    """Free text as a TEXT value may hold it: line breaks (CRLF or LF) as ``\\n``, which the
    library escapes; other control characters, a lone CR among them, dropped."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def _line(text: str) -> str:
    """A single-line value or parameter: control characters dropped, line breaks made spaces."""
    return " ".join(_text(text).split("\n")).strip()


def _is_uri(value: str) -> bool:
    """Whether an address can be written as a URI value: not empty, no control or blank."""
    return bool(value) and _NOT_URI.search(value) is None


def _image_type(url: str) -> str | None:
    path = urlsplit(url).path
    extension = path.rpartition(".")[2].lower() if "." in path.rpartition("/")[2] else ""
    return _IMAGE_TYPES.get(extension) or mimetypes.guess_type(path)[0]


def _host(home: str) -> str:
    parts = urlsplit(home if "//" in home else f"//{home}")
    return parts.hostname or ""


# --------------------------------------------------------------------------------------------
# Times and zones
# --------------------------------------------------------------------------------------------


def _tzid(zone: datetime.tzinfo) -> str | None:
    """The IANA name to write as TZID, or None when the times are written in UTC."""
    if isinstance(zone, ZoneInfo) and zone.key and zone.key not in UTC_KEYS:
        return zone.key
    return None


def _wall(value: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
    """A naive wall time in ``zone`` (an aware value is converted first)."""
    if value.tzinfo is not None:
        return value.astimezone(zone).replace(tzinfo=None)
    return value


def _instant(value: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
    """The UTC instant of a wall time in ``zone``, read with fold=0."""
    return _wall(value, zone).replace(tzinfo=zone, fold=0).astimezone(_UTC)


def _as_utc(value: datetime.datetime) -> datetime.datetime:
    """A UTC timestamp (naive means UTC already), to the second."""
    aware = value.replace(tzinfo=_UTC) if value.tzinfo is None else value.astimezone(_UTC)
    return aware.replace(microsecond=0)


def _timezones(events: Iterable[IcalEvent]) -> list[Timezone]:
    """One VTIMEZONE per zone of the timed events, covering their years."""
    years: dict[str, tuple[int, int]] = {}
    for event in events:
        key = _tzid(event.zone)
        if event.all_day or key is None:
            continue
        zone = ZoneInfo(key)
        first = _instant(event.start, zone).astimezone(zone).year
        last = max(_instant(event.end, zone).astimezone(zone).year, first)
        low, high = years.get(key, (first, last))
        years[key] = (min(low, first), max(high, last))
    return [_vtimezone(key, low, high) for key, (low, high) in years.items()]


def _vtimezone(key: str, first_year: int, last_year: int) -> Timezone:
    component = Timezone()
    component.add("tzid", key)
    for onset, before, after, name, dst in _observances(key, first_year, last_year):
        observance = TimezoneDaylight() if dst else TimezoneStandard()
        observance.add("dtstart", onset)
        observance.add("tzoffsetfrom", before)
        observance.add("tzoffsetto", after)
        observance.add("tzname", name)
        component.add_component(observance)
    return component


_State = tuple[datetime.timedelta, datetime.timedelta, str]
_Observance = tuple[datetime.datetime, datetime.timedelta, datetime.timedelta, str, bool]


@functools.lru_cache(maxsize=256)
def _observances(key: str, first_year: int, last_year: int) -> tuple[_Observance, ...]:
    """The zone's observances from local January 1 of ``first_year`` to January 1 after
    ``last_year``: the one in force at the start, then one per transition, each dated in the
    local time of the offset in force before it (RFC 5545's onset)."""
    zone = ZoneInfo(key)
    start = _year_start(zone, first_year)
    stop = _year_start(zone, min(last_year + 1, datetime.MAXYEAR))
    state = _state(zone, start)
    offset, dst, name = state
    found = [(_local(start, offset), offset, offset, name, bool(dst))]
    for moment, old, new in _transitions(zone, start, stop, state):
        found.append((_local(moment, old[0]), old[0], new[0], new[2], bool(new[1])))
    return tuple(found)


def _transitions(zone: ZoneInfo, start: int, stop: int, state: _State) -> Iterable[tuple[int, _State, _State]]:
    """The (Unix time, state before, state after) of each change of offset, DST or name in
    (start, stop]."""
    low = start
    while low < stop:
        high = min(low + _SCAN_STEP, stop)
        later = _state(zone, high)
        if later == state:
            low = high
            continue
        moment = _first_change(zone, low, high, state)
        changed = _state(zone, moment)
        yield moment, state, changed
        low, state = moment, changed


def _first_change(zone: ZoneInfo, low: int, high: int, state: _State) -> int:
    """The first second in (low, high] whose state is not ``state`` (the one at ``low``)."""
    while high - low > 1:
        middle = (low + high) // 2
        if _state(zone, middle) == state:
            low = middle
        else:
            high = middle
    return high


def _state(zone: ZoneInfo, moment: int) -> _State:
    local = datetime.datetime.fromtimestamp(moment, zone)
    return local.utcoffset() or datetime.timedelta(), local.dst() or datetime.timedelta(), local.tzname() or ""


def _year_start(zone: ZoneInfo, year: int) -> int:
    return int(datetime.datetime(year, 1, 1, tzinfo=zone).timestamp())


def _local(moment: int, offset: datetime.timedelta) -> datetime.datetime:
    """The naive wall time of a Unix time at a UTC offset."""
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=moment) + offset
