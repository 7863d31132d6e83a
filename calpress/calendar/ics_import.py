"""Reading iCalendar (RFC 5545) feeds: the parsing half of the ``.ics`` importer.

:func:`parse_feed` turns a feed's bytes into :class:`FeedEvent` records, one per occurrence inside
a window of dates, each carrying the data the calendar input service takes
(:func:`calpress.calendar.input.event_input`). It reads back exactly what
:mod:`calpress.calendar.ical` writes. Pure: no I/O, no database, no web framework. Time zones
are read by :mod:`.ics_zones`, and recurrence rules checked and bounded by :mod:`.ics_rules`.

Reading
    The document must start (after a byte order mark and blank lines) with ``BEGIN:VCALENDAR``,
    else :class:`FeedError`. It is split into its components first (lines unfolded, nesting
    followed), and each ``VEVENT`` and ``VTIMEZONE`` is parsed with ``icalendar`` on its own, so
    a broken component (unparsable line, missing ``END``, unreadable ``DTSTART``...) is skipped
    with a warning and the rest of the feed still reads. A ``VEVENT``'s own subcomponents
    (alarms) are dropped unread. Other components (``VTODO``...) are ignored. Several
    ``VCALENDAR`` in one document are read as one.

Occurrences
    ``RRULE``, ``RDATE`` and ``EXDATE`` are expanded with ``recurring_ical_events``, one query per
    ``UID``; ``RECURRENCE-ID`` overrides replace their occurrence (the highest ``SEQUENCE`` wins).
    Every event, recurring or not, is kept when it overlaps ``[window_start, window_end)``, the
    window's days read in the event's own zone. ``STATUS:CANCELLED`` occurrences are skipped
    (one warning per ``UID``). Before the expansion each rule is checked, because the engine
    under it (dateutil) searches a rule that stops giving instants up to the year 9999, one
    period at a time, and searches the days a sub-daily rule's day parts filter out slowly:

    * rules that surely never occur (``FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30``, a ``BYSETPOS``
      beyond its set, ``FREQ=DAILY;INTERVAL=7;BYDAY=TU`` from a Monday...) and sub-daily rules
      (``SECONDLY``, ``MINUTELY``, ``HOURLY``) with day parts or ``BYSETPOS`` are dropped, with a
      warning (the ``DTSTART`` occurrence stays, as RFC 5545 counts it);
    * a daily or sub-daily rule starting long before the window is moved forward by whole
      periods (same instants; a ``COUNT`` is lowered by the periods skipped when the rule has no
      ``BY`` parts, otherwise a counted rule is not moved);
    * a rule with more than ``max_occurrences`` instants in the window is cut with ``UNTIL``
      after the last one kept, one that takes more than 50,000 instants to get through the
      window is cut where it got to (dropped if that is before the window), and all the rules of
      a feed get 2,000,000 instants.

    At most ``max_occurrences`` per series and ``max_events`` per feed are returned (warnings say
    what was left out), and series still waiting after 30 seconds of expansion are left out. An
    adversarial rule that passes these checks can still cost a few seconds.

Identity
    ``source_key`` is the ``UID`` for a single event and ``{UID}@{RECURRENCE-ID}`` for each
    occurrence of a series (an override keeps the key of the occurrence it replaces), the
    ``RECURRENCE-ID`` as a UTC ``YYYYMMDDTHHMMSSZ``, a ``YYYYMMDD`` for all-day series, and a
    ``YYYYMMDDTHHMMSS`` without ``Z`` for floating ones (their instant depends on the importing
    site, their wall time does not). A ``VEVENT`` without ``UID`` gets ``calpress-{hash}`` of
    its start and summary.

Time zones (the event's ``timezone`` and the wall times of ``start_date``/``end_date``)
    * ``TZID`` naming an IANA zone (exactly, in any case, or as the last part of a
      "globally unique" ``/vendor/Europe/Berlin``): that zone, its wall times as written.
    * ``TZID`` naming a Windows zone (``Eastern Standard Time``): its IANA zone (a table of the
      common ones).
    * Another ``TZID`` with a ``VTIMEZONE`` in the feed: the IANA zone whose UTC offsets agree
      with it at 00:00 and 12:00 UTC of every day of the window's years (three at most; the
      same abbreviations, then the zones of the Windows table, then ``Area/City`` names
      preferred), with a warning; when none does, the times are read with the ``VTIMEZONE``
      itself (recurrences keep its wall time) and converted to the feed's zone below, with a
      warning. The match of a ``VTIMEZONE`` is remembered by its text (64 of them).
    * ``TZID`` unknown and without ``VTIMEZONE``: the wall times are read as UTC times (so
      shown in the feed's zone below), with a warning.
    * UTC (``Z``) and floating times, and all-day events, take the feed's zone: ``X-WR-TIMEZONE``
      when it names a zone (IANA or Windows), else ``default_timezone``. UTC instants are shown
      as wall times in it; floating wall times are kept as written. With ``X-WR-TIMEZONE``, UTC
      times are converted before the expansion, so a ``Z`` weekly rule keeps its wall time
      across DST (Google Calendar's convention); without it they repeat at the same UTC time.
    ``default_timezone`` is an IANA name, ``UTC`` or any zone :mod:`calpress.calendar.dates`
    accepts (``UTC+2``); another name (or none) means UTC, with a warning.

All-day events
    ``VALUE=DATE`` starts. ``DTEND`` (or ``DTSTART`` plus ``DURATION``) is exclusive, so the
    event runs from the start day's ``00:00:00`` to the day before the end's ``23:59:59``, as
    calpress stores all-day events (``events.event_times``); no end, or an end not after the
    start, means one day.

Event data (``FeedEvent.data``)
    ``title`` (``SUMMARY``, blanks collapsed, HTML-escaped: post titles are HTML),
    ``description`` (``DESCRIPTION`` as plain text made HTML: escaped, blank lines separate
    ``<p>`` paragraphs, other line breaks become ``<br />``; HTML in it is shown, never
    interpreted), ``start_date``/``end_date`` (``YYYY-MM-DD HH:MM:SS`` wall times; a ``DTEND``
    before ``DTSTART`` is ignored, with a warning), ``all_day``,
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

``icalendar`` keeps a process-wide cache of the ``VTIMEZONE`` definitions it has seen under
non-IANA names; this module does not rely on it (each feed's zones are resolved from its own
``VTIMEZONE``), but the cache grows by one entry per new such name.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import re
import time
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import recurring_ical_events
from dateutil import rrule as du
from icalendar import Calendar, Component, vBroken, vRecur

from . import ics_rules, ics_zones
from .dates import is_valid_timezone, resolve_timezone
from .ics_document import FeedError, parse_block, split, text_of, uid_key

__all__ = ["MAX_EVENTS", "MAX_OCCURRENCES", "FeedError", "FeedEvent", "ParsedFeed", "parse_feed"]

MAX_OCCURRENCES = 5000
"""Occurrences of one series returned at most (a warning says when more were left out)."""
MAX_EVENTS = 50_000
"""Events of one feed returned at most."""

_RULE_STEPS = 50_000  # instants one rule may generate while it is checked against the window
_FEED_STEPS = 2_000_000  # instants all the rules of a feed may generate while checked
_EXPANSION_SECONDS = 30.0  # series expanded after this long are left out

_UTC = datetime.UTC
_DAY = datetime.timedelta(days=1)
_MIDNIGHT = datetime.time()

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_WEB_ADDRESS = re.compile(r"https?://\S+", re.IGNORECASE)
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")


# --------------------------------------------------------------------------------------------
# Public interface
# --------------------------------------------------------------------------------------------


@dataclass
class FeedEvent:
    """One event (or one occurrence of a series) of a feed."""

    source_key: str
    """Its identity across re-imports: the UID, or ``{uid}@{recurrence_id}`` in a series."""
    uid: str
    recurrence_id: str | None
    """None outside a series; the occurrence's original start otherwise (see the module)."""
    series: bool
    """Part of a recurring series (``RRULE``/``RDATE`` expansion or an override)."""
    data: dict[str, Any]
    """The calendar input service's data (see the module)."""
    sequence: int = 0
    last_modified: str | None = None
    """``LAST-MODIFIED`` as an ISO 8601 UTC instant, or None."""


@dataclass
class ParsedFeed:
    name: str
    """``X-WR-CALNAME``, or ""."""
    timezone: str
    """``X-WR-TIMEZONE`` as written, or ""."""
    events: list[FeedEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """What was skipped, guessed or cut, and why; one line each."""


def parse_feed(
    data: bytes | str,
    *,
    window_start: datetime.date,
    window_end: datetime.date,
    default_timezone: str = "UTC",
    max_occurrences: int = MAX_OCCURRENCES,
    max_events: int = MAX_EVENTS,
) -> ParsedFeed:
    """The events of an iCalendar document that overlap ``[window_start, window_end)``.

    Raises :class:`FeedError` when ``data`` is not an iCalendar document, and ValueError for an
    empty window. Anything wrong inside the document is skipped with a warning."""
    if window_end <= window_start:
        raise ValueError("window_end must be after window_start")
    reader = _Reader(window_start, window_end, default_timezone, max_occurrences, max_events)
    return reader.read(data)


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def _readable(component: Component, name: str) -> Any:
    """A property's value, None when absent or unreadable (the first of repeated ones)."""
    value = component.get(name)
    if isinstance(value, list):
        value = value[0] if value else None
    return None if isinstance(value, vBroken) else value


def _readables(component: Component, name: str) -> list[Any]:
    """Every readable value of a property that may be repeated."""
    value = component.get(name)
    values = value if isinstance(value, list) else [] if value is None else [value]
    return [item for item in values if not isinstance(item, vBroken)]


def _sequence(component: Component) -> int | None:
    value = component.get("SEQUENCE")
    if value is None:
        return 0
    try:
        return max(0, int(str(value)))
    except ValueError:
        return None


def _plain(value: Any) -> str:
    if value is None or isinstance(value, vBroken):
        return ""
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value).replace("\x00", "")


def _one_line(value: Any) -> str:
    return " ".join(_plain(value).split())


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


def _wall_text(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat(sep=" ")


def _recurrence_text(value: datetime.date) -> str:
    if not isinstance(value, datetime.datetime):
        return f"{value.year:04d}{value.month:02d}{value.day:02d}"
    if value.tzinfo is None:
        return value.strftime("%Y%m%dT%H%M%S")
    return value.astimezone(_UTC).strftime("%Y%m%dT%H%M%SZ")


def _before(value: datetime.date, other: datetime.date) -> bool:
    """Whether ``value`` is before ``other`` (False when they cannot be compared)."""
    if isinstance(value, datetime.datetime) != isinstance(other, datetime.datetime):
        return False
    try:
        return value < other  # type: ignore[operator]
    except TypeError:
        return False


def _sort_key(value: datetime.date) -> datetime.datetime:
    if not isinstance(value, datetime.datetime):
        return datetime.datetime.combine(value, _MIDNIGHT)
    if value.tzinfo is None:
        return value
    return value.astimezone(_UTC).replace(tzinfo=None)


# --------------------------------------------------------------------------------------------
# The reader
# --------------------------------------------------------------------------------------------


class _Reader:
    def __init__(
        self, window_start: datetime.date, window_end: datetime.date, default_timezone: str, max_occurrences: int, max_events: int
    ) -> None:
        self.window_start = datetime.datetime.combine(window_start, _MIDNIGHT)
        self.window_end = datetime.datetime.combine(window_end, _MIDNIGHT)
        self.years = (window_start.year, min(window_end.year, window_start.year + 2))  # for matching VTIMEZONEs
        self.max_occurrences = max(1, max_occurrences)
        self.max_events = max(0, max_events)
        self.warnings: dict[str, None] = {}
        self.default_zone, self.default_name = self._default_zone(default_timezone)
        self.feed_zone, self.feed_name = self.default_zone, self.default_name
        self.xwr_zone: datetime.tzinfo | None = None
        self.vtimezones: dict[str, Component] = {}
        self.zones: dict[str, datetime.tzinfo] = {}
        self.steps_left = _FEED_STEPS

    # -- the whole feed ------------------------------------------------------------------------

    def read(self, data: bytes | str) -> ParsedFeed:
        first: list[str] = []
        document = split(text_of(data, first), first)
        self.warnings.update(dict.fromkeys(first))
        self._feed_zone(document.header.get("X-WR-TIMEZONE", ""))
        for block in document.timezones:
            try:
                component = parse_block(block)
                tzid = str(component["TZID"]).strip()
            except Exception:
                self.warn("A VTIMEZONE could not be read; it was skipped.")
                continue
            self.vtimezones.setdefault(tzid, component)
        # The VEVENTs are parsed a UID at a time (a series with its overrides), each group's
        # components dropped once expanded: icalendar's components weigh several kilobytes
        # each, and a whole feed's of them would make memory grow with the feed.
        buckets: dict[str, list[list[str]]] = {}
        for block in document.events:
            buckets.setdefault(uid_key(block), []).append(block)
        document.events = []
        feed = ParsedFeed(name=document.header.get("X-WR-CALNAME", ""), timezone=document.header.get("X-WR-TIMEZONE", ""))
        expanding = 0.0  # seconds spent expanding series; the budget is _EXPANSION_SECONDS
        left_out = 0
        for key in list(buckets):
            blocks = buckets.pop(key)  # its lines are let go once read
            groups: dict[str, list[Component]] = {}
            for block in blocks:
                try:
                    event = self._event(block)
                except Exception as err:  # a safety net: _event warns of what it knows
                    self.warn(f"A VEVENT could not be read ({type(err).__name__}); it was skipped.")
                    continue
                if event is not None:
                    groups.setdefault(str(event["UID"]), []).append(event)
            for uid, components in groups.items():
                if left_out or len(feed.events) >= self.max_events or expanding > _EXPANSION_SECONDS:
                    left_out += 1
                    continue
                started = time.monotonic()
                try:
                    found = self._series(uid, components)
                except Exception as err:  # a safety net: _series warns of what it knows
                    self.warn(f'Event "{uid}" could not be read ({type(err).__name__}); it was skipped.')
                    continue
                finally:
                    expanding += time.monotonic() - started
                room = self.max_events - len(feed.events)
                if len(found) > room:
                    self.warn(f"The feed has more than {self.max_events} events; the rest were left out.")
                    found = found[:room]
                feed.events.extend(found)
        if left_out:
            self.warn(f"{left_out} event(s) or series were left out: the feed is too large to read whole.")
        feed.warnings = list(self.warnings)
        return feed

    def warn(self, text: str) -> None:
        self.warnings[text] = None

    def _default_zone(self, name: str) -> tuple[datetime.tzinfo, str]:
        name = (name or "").strip()
        if ics_zones.is_utc_name(name):
            return _UTC, "UTC"
        key = ics_zones.iana_keys().get(name.lower())
        if key:
            return zoneinfo.ZoneInfo(key), key
        if is_valid_timezone(name):
            return resolve_timezone(name, None, None)
        self.warn(f'The default time zone "{name}" is not one calpress accepts; UTC was used instead.')
        return _UTC, "UTC"

    def _feed_zone(self, name: str) -> None:
        if not name:
            return
        key = ics_zones.iana_name(name)
        if key is None:
            self.warn(f'X-WR-TIMEZONE "{name}" is not a known time zone; {self.default_name} was used instead.')
            return
        zone = ics_zones.zone_named(key)
        self.feed_zone, self.feed_name = zone, "UTC" if zone is _UTC else key
        self.xwr_zone = None if zone is _UTC else zone

    # -- zones of TZIDs ------------------------------------------------------------------------

    def zone_of(self, tzid: str) -> datetime.tzinfo:
        """The zone to read wall times with this TZID in (see the module)."""
        zone = self.zones.get(tzid)
        if zone is None:
            zone = self.zones[tzid] = self._resolve(tzid)
        return zone

    def _resolve(self, tzid: str) -> datetime.tzinfo:
        key = ics_zones.iana_name(tzid)
        if key is not None:
            return ics_zones.zone_named(key)
        component = self.vtimezones.get(tzid.strip())
        if component is None:
            self.warn(f'Unknown time zone "{tzid}" (no VTIMEZONE): its times were read as UTC.')
            return _UTC
        try:
            match = ics_zones.vtimezone_match(component.to_ical(), self.years)
            custom = component.to_tz(lookup_tzid=False) if match is None else None
        except Exception:
            self.warn(f'The VTIMEZONE "{tzid}" could not be read: its times were read as UTC.')
            return _UTC
        if match is not None:
            self.warn(f'Time zone "{tzid}" was read as {match} (the same UTC offsets).')
            return ics_zones.zone_named(match)
        self.warn(f'Time zone "{tzid}" matches no known zone: its times were converted to {self.feed_name}.')
        return custom

    def _normal(self, value: Any, tzid: Any) -> Any:
        """A DTSTART-like value with its zone resolved (see the module)."""
        if isinstance(value, tuple):  # an RDATE period
            return (
                self._normal(value[0], tzid),
                self._normal(value[1], tzid) if isinstance(value[1], datetime.date) else value[1],
            )
        if not isinstance(value, datetime.datetime):
            return value
        if tzid:
            value = value.replace(tzinfo=self.zone_of(str(tzid)))
        elif value.tzinfo is None:
            return value
        if self.xwr_zone is not None and ics_zones.is_utc(value.tzinfo):
            return value.astimezone(self.xwr_zone)
        return value

    # -- one VEVENT ----------------------------------------------------------------------------

    def _event(self, block: list[str]) -> Component | None:
        """The VEVENT with its times resolved, or None (warned) when it cannot be used."""
        try:
            event = parse_block(block)
        except Exception:
            summary = next((line.split(":", 1)[-1].strip() for line in block if line.upper().startswith("SUMMARY")), "")
            self.warn(f"A VEVENT could not be read{f' ({summary})' if summary else ''}; it was skipped.")
            return None
        label = self._label(event)
        start = event.get("DTSTART")
        if start is None:
            self.warn(f"{label} has no DTSTART; it was skipped.")
            return None
        for name in ("DTSTART", "RECURRENCE-ID", "DTEND"):
            prop = event.get(name)
            if prop is None:
                continue
            if isinstance(prop, list) or isinstance(prop, vBroken) or not isinstance(getattr(prop, "dt", None), datetime.date):
                if name == "DTEND":
                    del event[name]
                    self.warn(f"{label} has an unreadable DTEND; it was ignored.")
                    continue
                self.warn(f"{label} has an unreadable {name}; it was skipped.")
                return None
            prop.dt = self._normal(prop.dt, prop.params.get("TZID"))
        end = event.get("DTEND")
        if end is not None and _before(end.dt, event["DTSTART"].dt):
            del event["DTEND"]
            self.warn(f"{label} ends before it starts; its end was ignored.")
        duration = event.get("DURATION")
        if duration is not None and (isinstance(duration, (list, vBroken)) or not isinstance(duration.dt, datetime.timedelta)):
            del event["DURATION"]
            self.warn(f"{label} has an unreadable DURATION; it was ignored.")
        for name in ("RDATE", "EXDATE"):
            self._dates(event, name, label)
        if "SEQUENCE" in event and _sequence(event) is None:
            del event["SEQUENCE"]
        rules = event.get("RRULE")
        if rules is not None:
            kept = [
                rule
                for rule in (rules if isinstance(rules, list) else [rules])
                if isinstance(rule, vRecur) and ics_rules.freq(rule) is not None
            ]
            if len(kept) != (len(rules) if isinstance(rules, list) else 1):
                self.warn(f"{label} has an unreadable RRULE; it was ignored.")
            self._set(event, "RRULE", kept)
        if "UID" not in event or not _one_line(event.get("UID")):
            seed = f"{_recurrence_text(event['DTSTART'].dt)}|{_one_line(event.get('SUMMARY'))}"
            event["UID"] = "calpress-" + hashlib.sha256(seed.encode()).hexdigest()[:24]
        else:
            event["UID"] = _one_line(event.get("UID"))
        return event

    def _label(self, event: Component) -> str:
        uid = _one_line(event.get("UID"))
        if uid:
            return f'Event "{uid}"'
        summary = _one_line(event.get("SUMMARY"))
        return f'Event "{summary}"' if summary else "An event"

    def _dates(self, event: Component, name: str, label: str) -> None:
        values = event.get(name)
        if values is None:
            return
        items = values if isinstance(values, list) else [values]
        kept = []
        for item in items:
            dts = getattr(item, "dts", None) if not isinstance(item, vBroken) else None
            if dts is None:
                self.warn(f"{label} has an unreadable {name}; it was ignored.")
                continue
            for entry in dts:
                entry.dt = self._normal(entry.dt, entry.params.get("TZID") or item.params.get("TZID"))
            kept.append(item)
        self._set(event, name, kept)

    @staticmethod
    def _set(event: Component, name: str, values: list[Any]) -> None:
        if name in event:
            del event[name]
        if values:
            event[name] = values if len(values) > 1 else values[0]

    # -- one series ----------------------------------------------------------------------------

    def _series(self, uid: str, components: list[Component]) -> list[FeedEvent]:
        """The occurrences of the VEVENTs of one UID inside the window."""
        series = any(
            c.get("RRULE") is not None or c.get("RDATE") is not None or c.get("RECURRENCE-ID") is not None for c in components
        )
        label = f'Event "{uid}"'
        for component in components:
            if component.get("RRULE") is not None and component.get("RECURRENCE-ID") is None:
                self._bound(component, label)
        calendar = Calendar()
        for component in components:
            calendar.add_component(component)
        try:
            occurrences = recurring_ical_events.CalendarQuery(calendar).between(self.window_start, self.window_end)
        except Exception as err:
            self.warn(f"{label} could not be expanded ({type(err).__name__}: {err}); it was skipped.")
            return []
        occurrences.sort(key=lambda occurrence: _sort_key(occurrence["DTSTART"].dt))
        found: list[FeedEvent] = []
        cancelled = 0
        for occurrence in occurrences:
            if _one_line(occurrence.get("STATUS")).upper() == "CANCELLED":
                cancelled += 1
                continue
            if len(found) >= self.max_occurrences:
                self.warn(
                    f"{label} has more than {self.max_occurrences} occurrences in the window; the first {self.max_occurrences} were kept."
                )
                break
            try:
                found.append(self._feed_event(uid, series, occurrence))
            except Exception as err:
                self.warn(f"{label}: an occurrence could not be read ({type(err).__name__}); it was skipped.")
        if cancelled:
            self.warn(
                f"{label}: {cancelled} cancelled occurrence(s) skipped." if series else f"{label} is cancelled; it was skipped."
            )
        return found

    def _bound(self, event: Component, label: str) -> None:
        """Drops the rules that never occur and cuts those that would run away (see the module)."""
        rules = _readables(event, "RRULE")
        if len(rules) == 1:
            self._fast_forward(event, rules[0])
            rules = _readables(event, "RRULE")
        start = event["DTSTART"].dt
        kept = []
        for recur in rules:
            try:
                problem = ics_rules.rule_problem(recur, start)
                if problem is None:
                    rule = ics_rules.dateutil_rule(recur, start)
                    bounded = self._walk(rule, recur, start, self._duration(event), label)
                    if bounded is not None:
                        kept.append(bounded)
                    continue
            except Exception:
                problem = "it is unreadable"
            self.warn(f"{label} has an RRULE that was ignored: {problem}.")
        self._set(event, "RRULE", kept)

    def _duration(self, event: Component) -> datetime.timedelta:
        start = event["DTSTART"].dt
        end = event.get("DTEND")
        if end is not None and isinstance(end.dt, datetime.datetime) == isinstance(start, datetime.datetime):
            try:
                return max(end.dt - start, datetime.timedelta(0))
            except TypeError:
                pass
        duration = event.get("DURATION")
        if duration is not None:
            return max(duration.dt, datetime.timedelta(0))
        return datetime.timedelta(0) if isinstance(start, datetime.datetime) else _DAY

    def _frame(self, start: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
        """The window in the rule's frame (dateutil's: naive or in the start's zone)."""
        zone = start.tzinfo if isinstance(start, datetime.datetime) else None
        return self.window_start.replace(tzinfo=zone), self.window_end.replace(tzinfo=zone)

    def _fast_forward(self, event: Component, recur: vRecur) -> None:
        """Moves the start of a daily-or-finer rule that begins long before the window forward by
        whole periods, when that keeps its instants (no COUNT, or no BY parts to count with)."""
        rank = ics_rules.freq(recur)
        start = event["DTSTART"].dt
        if rank is None or rank > 3 or (rank < 3 and not isinstance(start, datetime.datetime)):
            return
        counts = ics_rules.rule_values(recur, "COUNT")
        if counts and ics_rules.has_rule_parts(recur):
            return
        step = datetime.timedelta(seconds=ics_rules.interval(recur) * ics_rules.FREQ_SECONDS[rank])
        low = self._frame(start)[0] - self._duration(event)
        first = start if isinstance(start, datetime.datetime) else datetime.datetime.combine(start, _MIDNIGHT)
        periods = (low - first) // step - 1
        if periods < 1:
            return
        shift = step * periods
        if counts:
            try:
                left = int(counts[0]) - periods
            except (TypeError, ValueError):
                return
            if left <= 0:
                del event["RRULE"]
                return
            parts = {str(key).upper(): value for key, value in recur.items()}
            parts["COUNT"] = [left]
            event["RRULE"] = vRecur(parts)
        event["DTSTART"].dt = start + shift
        end = event.get("DTEND")
        if end is not None:
            end.dt = end.dt + shift

    def _walk(
        self, rule: du.rrule, recur: vRecur, start: datetime.date, duration: datetime.timedelta, label: str
    ) -> vRecur | None:
        """The rule as it may be expanded: itself, cut with an UNTIL, or None (dropped)."""
        low, high = self._frame(start)
        low -= duration
        inside = 0
        last: datetime.datetime | None = None
        steps = min(_RULE_STEPS, self.steps_left)
        iterator: Iterator[datetime.datetime] = iter(rule)
        for index, instant in enumerate(iterator):
            self.steps_left -= 1
            if instant >= high:
                return recur
            if index >= steps:
                if last is None:
                    self.warn(f"{label} has an RRULE too dense to reach the window; it was ignored.")
                    return None
                self.warn(f"{label} has an RRULE too dense to expand through the window; it was cut.")
                return ics_rules.with_until(recur, ics_rules.until_value(last, start))
            if instant >= low:
                if inside == self.max_occurrences:
                    self.warn(
                        f"{label} has more than {self.max_occurrences} occurrences in the window; the first {self.max_occurrences} were kept."
                    )
                    return ics_rules.with_until(recur, ics_rules.until_value(last, start))  # type: ignore[arg-type]
                inside += 1
                last = instant
        return recur

    # -- one occurrence ------------------------------------------------------------------------

    def _feed_event(self, uid: str, series: bool, occurrence: Component) -> FeedEvent:
        start = occurrence["DTSTART"].dt
        end_prop = occurrence.get("DTEND")
        end = end_prop.dt if end_prop is not None else start
        data: dict[str, Any] = {
            "title": html.escape(_one_line(occurrence.get("SUMMARY")), quote=False),
            "description": _paragraphs(_plain(occurrence.get("DESCRIPTION"))),
        }
        data.update(self._times(start, end))
        url = _one_line(occurrence.get("URL"))
        data["website"] = url if _WEB_ADDRESS.fullmatch(url) else ""
        data["venue"] = self._venue(occurrence)
        data["organizer"] = self._organizers(occurrence)
        data["categories"] = self._categories(occurrence)
        data["status"] = "publish"
        recurrence_id = None
        if series:
            prop = occurrence.get("RECURRENCE-ID")
            recurrence_id = _recurrence_text(prop.dt if prop is not None else start)
        return FeedEvent(
            source_key=f"{uid}@{recurrence_id}" if recurrence_id else uid,
            uid=uid,
            recurrence_id=recurrence_id,
            series=series,
            data=data,
            sequence=_sequence(occurrence) or 0,
            last_modified=self._modified(occurrence),
        )

    def _times(self, start: datetime.date, end: datetime.date) -> dict[str, Any]:
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
                "timezone": self.feed_name,
            }
        zone, name = self.feed_zone, self.feed_name
        if isinstance(start.tzinfo, zoneinfo.ZoneInfo) and not ics_zones.is_utc(start.tzinfo):
            zone, name = start.tzinfo, start.tzinfo.key
        if not isinstance(end, datetime.datetime):
            end = datetime.datetime.combine(end, _MIDNIGHT, tzinfo=start.tzinfo)
        wall_start, wall_end = self._wall(start, zone), self._wall(end, zone)
        return {
            "start_date": _wall_text(wall_start),
            "end_date": _wall_text(max(wall_start, wall_end)),
            "all_day": False,
            "timezone": name,
        }

    @staticmethod
    def _wall(value: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
        if value.tzinfo is None:
            return value
        return value.astimezone(zone).replace(tzinfo=None)

    def _venue(self, occurrence: Component) -> dict[str, str] | None:
        text = _plain(occurrence.get("LOCATION")).replace("\r\n", "\n").replace("\r", "\n").strip()
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
        geo = _readable(occurrence, "GEO")
        latitude, longitude = getattr(geo, "latitude", None), getattr(geo, "longitude", None)
        if (
            isinstance(latitude, float) and isinstance(longitude, float)
            and -90 <= latitude <= 90 and -180 <= longitude <= 180
        ):  # fmt: skip
            venue["geo_lat"], venue["geo_lng"] = repr(latitude), repr(longitude)
        return venue

    def _organizers(self, occurrence: Component) -> list[dict[str, str]]:
        found = []
        for value in _readables(occurrence, "ORGANIZER"):
            address = _one_line(value)
            email = address[7:].strip() if address.lower().startswith("mailto:") else ""
            if email and not _EMAIL.fullmatch(email):
                email = ""
            params = getattr(value, "params", {})
            name = " ".join(str(params.get("CN") or "").split()) or email
            if name:
                found.append({"organizer": html.escape(name, quote=False), "email": email})
        return found

    def _categories(self, occurrence: Component) -> list[str]:
        found: dict[str, None] = {}
        for value in _readables(occurrence, "CATEGORIES"):
            for name in getattr(value, "cats", None) or []:
                text = _one_line(name)
                if text.isdigit():
                    self.warn(f'The category "{text}" was left out: a name of digits only reads as a term id.')
                elif text:
                    found[text] = None
        return list(found)

    @staticmethod
    def _modified(occurrence: Component) -> str | None:
        prop = _readable(occurrence, "LAST-MODIFIED")
        value = getattr(prop, "dt", None)
        if not isinstance(value, datetime.datetime):
            return None
        value = value.replace(tzinfo=_UTC) if value.tzinfo is None else value.astimezone(_UTC)
        return value.replace(microsecond=0).isoformat()
