"""Reading iCalendar (RFC 5545) feeds: the parsing half of the ``.ics`` importer.

:func:`parse_feed` turns a feed's bytes into :class:`FeedEvent` records, one per occurrence inside
a window of dates, each carrying the data the calendar input service takes
(:func:`calpress.calendar.input.event_input`). It reads back exactly what
:mod:`calpress.calendar.ical` writes. Pure: no I/O, no database, no web framework. Time zones
are read by :mod:`.ics_zones`, and recurrence rules checked and bounded by :mod:`.ics_rules`.

Reading
    The document must start (after a byte order mark and blank lines) with ``BEGIN:VCALENDAR``,
    else :class:`FeedError`. It is split into its components first (lines unfolded, nesting
    followed, :func:`.ics_document.split`), and each ``VEVENT`` and ``VTIMEZONE`` is parsed with
    ``icalendar`` on its own, so a broken component (unparsable line, missing or mismatched
    ``END``, unreadable ``DTSTART``...) is skipped with a warning naming it (its UID, else its
    line) and the rest of the feed still reads: an ``END`` that does not match its ``BEGIN``
    closes the component it ends (which is skipped), as icalendar and ical.js read it, and a
    ``VEVENT`` after a stray ``END:VCALENDAR`` is read all the same. A ``VEVENT``'s own
    subcomponents (alarms) are dropped unread. Other components (``VTODO``...) are ignored.
    Several ``VCALENDAR`` in one document are read as one.

    What is left out because something is wrong with it is counted in ``ParsedFeed.skipped``
    (``VEVENT`` components; for the ``max_events`` cap, occurrences) and named in a warning, so
    an import's summary never says "0 skipped" when events were dropped.

Occurrences
    ``RRULE``, ``RDATE`` and ``EXDATE`` are expanded with ``recurring_ical_events``, one query per
    ``UID``; ``RECURRENCE-ID`` overrides replace their occurrence. An override with
    ``RANGE=THISANDFUTURE`` replaces its occurrence and changes every later one (RFC 5545
    3.8.4.4: its properties, its start moved by as much as it moved its own, its duration), until
    a later such override. A ``UID`` given more than once without ``RECURRENCE-ID``, or an
    override given more than once for one occurrence, keeps the one with the highest
    ``SEQUENCE`` (the first of equals, as ``recurring_ical_events`` picks); the others are
    skipped with a warning naming the ``UID``. Every event, recurring or not, is kept when it
    overlaps ``[window_start, window_end)``, the window's days read in the event's own zone.
    ``STATUS:CANCELLED`` occurrences are skipped (one warning per ``UID``). Before the expansion
    each rule is checked, because the engine under it (dateutil) searches a rule that stops
    giving instants up to the year 9999, one period at a time, and searches the days a
    sub-daily rule's day parts filter out slowly:

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
    what was left out). An adversarial rule that passes these checks can still cost a few
    seconds.

Budget
    The whole parse (reading the components, reading and matching the ``VTIMEZONE``, checking
    and expanding the rules) gets ``budget_seconds`` of processor time (:data:`PARSE_SECONDS` by
    default; the thread's own time, :class:`.ics_rules.Budget`), checked for each ``UID``, every
    thousand instants of a rule, every few hundred occurrences, and inside the ``VTIMEZONE``
    reading and matching. When it runs out the parse stops: the events returned so far are
    kept, the rest are left out (counted in ``skipped``), and a warning says how many and names
    their first ``UID``. It never hangs on a feed.

Identity
    ``source_key`` is the ``UID`` for a single event and ``{UID}@{RECURRENCE-ID}`` for each
    occurrence of a series (an override keeps the key of the occurrence it replaces, and each
    occurrence a ``THISANDFUTURE`` override changed keeps its own: its original start, which
    recurring_ical_events does not give, is its start moved back by the override's shift), the
    ``RECURRENCE-ID`` as a UTC ``YYYYMMDDTHHMMSSZ``, a ``YYYYMMDD`` for all-day series, and a
    ``YYYYMMDDTHHMMSS`` without ``Z`` for floating ones (their instant depends on the importing
    site, their wall time does not). A ``VEVENT`` without ``UID`` gets ``calpress-{hash}`` of
    its start and summary.

Time zones (the event's ``timezone`` and the wall times of ``start_date``/``end_date``)
    * ``TZID`` naming an IANA zone (exactly, in any case, or as the last part of a
      "globally unique" ``/vendor/Europe/Berlin``): that zone, its wall times as written.
    * ``TZID`` naming a Windows zone (``Eastern Standard Time``): its IANA zone (a table of the
      common ones).
    * Another ``TZID`` with a ``VTIMEZONE`` in the feed: the ``VTIMEZONE`` is read on its own
      (:class:`.ics_zones.CustomZone`: its transitions worked out once through the window's
      years, not dateutil's reading, which walks an Outlook-form zone's rules from 1601 on every
      lookup) and matched to the IANA zone whose UTC offsets agree with it through the years of
      the window its events fall in (read from the ``VEVENT`` lines before any is parsed: from
      ``DTSTART`` to ``DTEND``, to ``UNTIL`` or the window's end for a rule, and each ``RDATE``;
      the window's first three years when none does), checked twice a month and on both sides
      of each of its own changes (the same abbreviations, then the zones of the Windows table,
      then ``Area/City`` names preferred), with a warning; so the same feed gives the same times
      whatever the window, as long as its events do. When no zone agrees through those years,
      the times are read with the ``VTIMEZONE`` itself (recurrences keep its wall time) and
      converted to the feed's zone below, with a warning. Readings and matches are remembered
      by the definition's text without its ``TZID`` (64 of each).
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
    ``title`` (``SUMMARY``, blanks collapsed, HTML-escaped: post titles are HTML; an event
    without one, which RFC 5545 allows and Google Calendar exports, is titled
    :data:`NO_TITLE` ``(No title)``, as Google Calendar shows it, with a warning naming its UID),
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

The importer's expansion is checked against ``recurring_ical_events`` itself over a corpus of
hand-written feeds (``tests/calendar/test_ics_corpus.py``).
"""

from __future__ import annotations

import datetime
import hashlib
import html
import re
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
from .ics_rules import BudgetExceeded

__all__ = ["MAX_EVENTS", "MAX_OCCURRENCES", "NO_TITLE", "PARSE_SECONDS", "FeedError", "FeedEvent", "ParsedFeed", "parse_feed"]

MAX_OCCURRENCES = 5000
"""Occurrences of one series returned at most (a warning says when more were left out)."""
MAX_EVENTS = 50_000
"""Events of one feed returned at most."""
PARSE_SECONDS = 120.0
"""Processor seconds one parse may spend (a feed of the largest size an import takes, 20 MB of
plain events, reads in about a minute)."""
NO_TITLE = "(No title)"
"""The title of an event without SUMMARY, as Google Calendar shows one."""

_RULE_STEPS = 50_000  # instants one rule may generate while it is checked against the window
_FEED_STEPS = 2_000_000  # instants all the rules of a feed may generate while checked
_NAMED = 10  # UIDs a warning names at most
_ZONED = ("DTSTART", "DTEND", "RECURRENCE-ID", "RDATE", "EXDATE")
_TZID_PARAM = re.compile(r';TZID=("[^"]*"|[^;:]*)', re.IGNORECASE)
_UNTIL_YEAR = re.compile(r"UNTIL=(\d{4})", re.IGNORECASE)

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
    skipped: int = 0
    """VEVENTs of the feed (or occurrences, when a cap cut them) that were not returned because
    something was wrong with them or the budget ran out: broken or unreadable components,
    repeated UIDs, the events beyond ``max_events``, the series left out of the budget. Each is
    named in a warning. Cancelled events and occurrences outside the window are not counted."""


def parse_feed(
    data: bytes | str,
    *,
    window_start: datetime.date,
    window_end: datetime.date,
    default_timezone: str = "UTC",
    max_occurrences: int = MAX_OCCURRENCES,
    max_events: int = MAX_EVENTS,
    budget_seconds: float = PARSE_SECONDS,
) -> ParsedFeed:
    """The events of an iCalendar document that overlap ``[window_start, window_end)``.

    Raises :class:`FeedError` when ``data`` is not an iCalendar document, and ValueError for an
    empty window. Anything wrong inside the document is skipped with a warning. The parse stops
    (with a warning naming what it left out) once it has spent ``budget_seconds`` of processor
    time."""
    if window_end <= window_start:
        raise ValueError("window_end must be after window_start")
    reader = _Reader(window_start, window_end, default_timezone, max_occurrences, max_events, budget_seconds)
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


def _comparable(value: datetime.date, other: datetime.date) -> tuple[datetime.date, datetime.date]:
    """Both as datetimes (a date at midnight in the other's zone) when one of them is one."""
    if isinstance(value, datetime.datetime) == isinstance(other, datetime.datetime):
        return value, other
    zone = (value if isinstance(value, datetime.datetime) else other).tzinfo  # type: ignore[union-attr]
    return tuple(  # type: ignore[return-value]
        item if isinstance(item, datetime.datetime) else datetime.datetime.combine(item, _MIDNIGHT, tzinfo=zone)
        for item in (value, other)
    )


def _shifts(components: list[Component]) -> dict[str, datetime.timedelta]:
    """By RECURRENCE-ID (as :func:`_recurrence_text` writes it), how far each override for
    ``RANGE=THISANDFUTURE`` moves its occurrence: recurring_ical_events moves every later one as
    far, giving them all the override's RECURRENCE-ID, so their own is its start moved back."""
    found = {}
    for component in components:
        prop = component.get("RECURRENCE-ID")
        if prop is None or str(prop.params.get("RANGE", "")).upper() != "THISANDFUTURE":
            continue
        start, original = _comparable(component["DTSTART"].dt, prop.dt)
        try:
            found[_recurrence_text(prop.dt)] = start - original  # type: ignore[operator]
        except TypeError:
            continue
    return found


def _unshifted(start: datetime.date, recurrence_id: datetime.date, shift: datetime.timedelta) -> datetime.date:
    """The original start of an occurrence that an override for this and future moved by ``shift``
    (in the kind of its RECURRENCE-ID)."""
    value, _ = _comparable(start, recurrence_id)
    original = value - shift
    if not isinstance(recurrence_id, datetime.datetime) and isinstance(original, datetime.datetime):
        return original.date()
    return original


def _line_parts(line: str) -> tuple[str, str]:
    """A content line's name with its parameters, and its value (split at the first colon
    outside quotes)."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == ":" and not quoted:
            return line[:index], line[index + 1 :]
    return line, ""


# --------------------------------------------------------------------------------------------
# The reader
# --------------------------------------------------------------------------------------------


class _Reader:
    def __init__(
        self,
        window_start: datetime.date,
        window_end: datetime.date,
        default_timezone: str,
        max_occurrences: int,
        max_events: int,
        budget_seconds: float,
    ) -> None:
        self.window_start = datetime.datetime.combine(window_start, _MIDNIGHT)
        self.window_end = datetime.datetime.combine(window_end, _MIDNIGHT)
        first, last = (max(2, min(9997, year)) for year in (window_start.year, (window_end - _DAY).year))
        self.window_years = (first, last)  # the custom zones are exact through these years
        self.max_occurrences = max(1, max_occurrences)
        self.max_events = max(0, max_events)
        self.warnings: dict[str, None] = {}
        self.default_zone, self.default_name = self._default_zone(default_timezone)
        self.feed_zone, self.feed_name = self.default_zone, self.default_name
        self.xwr_zone: datetime.tzinfo | None = None
        self.vtimezones: dict[str, tuple[Component, str]] = {}  # TZID -> VTIMEZONE, its definition's text
        self.zone_years: dict[str, set[int]] = {}  # TZID -> the window's years its events fall in
        self.zones: dict[str, datetime.tzinfo] = {}
        self.steps_left = _FEED_STEPS
        self.budget = ics_rules.Budget(budget_seconds)
        self.skipped = 0

    # -- the whole feed ------------------------------------------------------------------------

    def read(self, data: bytes | str) -> ParsedFeed:
        first: list[str] = []
        document = split(text_of(data, first), first)
        self.warnings.update(dict.fromkeys(first))
        self.skipped += document.skipped
        self._feed_zone(document.header.get("X-WR-TIMEZONE", ""))
        feed = ParsedFeed(name=document.header.get("X-WR-CALNAME", ""), timezone=document.header.get("X-WR-TIMEZONE", ""))
        try:
            for block in document.timezones:
                self.budget.check()
                try:
                    component = parse_block(block)
                    tzid = str(component["TZID"]).strip()
                except Exception:
                    self.warn("A VTIMEZONE could not be read; it was skipped.")
                    continue
                self.vtimezones.setdefault(tzid, (component, ics_zones.definition_key(block)))
            if any(ics_zones.iana_name(tzid) is None for tzid in self.vtimezones):
                self.zone_years = self._zone_years(document.events)
        except BudgetExceeded:
            pass  # every event is left out below
        # The VEVENTs are parsed a UID at a time (a series with its overrides), each group's
        # components dropped once expanded: icalendar's components weigh several kilobytes
        # each, and a whole feed's of them would make memory grow with the feed.
        buckets: dict[str, list[list[str]]] = {}
        for block in document.events:
            buckets.setdefault(uid_key(block), []).append(block)
        document.events = []
        left: dict[str, int] = {}  # UIDs the budget left out -> their VEVENTs
        seen: set[str] = set()  # source keys returned
        beyond = 0  # VEVENTs not read once the feed had max_events events
        for key in list(buckets):
            blocks = buckets.pop(key)  # its lines are let go once read
            if self.budget.exceeded:
                left[key or "(no UID)"] = left.get(key or "(no UID)", 0) + len(blocks)
                continue
            try:
                self.budget.check()
                groups = self._groups(blocks)
            except BudgetExceeded:
                left[key or "(no UID)"] = left.get(key or "(no UID)", 0) + len(blocks)
                continue
            for uid, components in groups.items():
                if self.budget.exceeded:
                    left[uid] = left.get(uid, 0) + len(components)
                    continue
                if len(feed.events) >= self.max_events:
                    beyond += len(components)
                    continue
                try:
                    found = self._series(uid, components)
                except BudgetExceeded:
                    left[uid] = left.get(uid, 0) + len(components)
                    continue
                except Exception as err:  # a safety net: _series warns of what it knows
                    self.warn(f'Event "{uid}" could not be read ({type(err).__name__}); it was skipped.')
                    self.skipped += len(components)
                    continue
                found = self._unseen(found, seen)
                room = self.max_events - len(feed.events)
                if len(found) > room:
                    beyond += len(found) - room
                    found = found[:room]
                feed.events.extend(found)
        if beyond:
            self.warn(f"The feed has more than {self.max_events} events; the rest ({beyond}) were left out.")
            self.skipped += beyond
        if left:
            count = sum(left.values())
            names = ", ".join(f'"{uid}"' for uid in list(left)[:_NAMED])
            more = f" and {len(left) - _NAMED} more" if len(left) > _NAMED else ""
            self.warn(
                f"The import ran out of its budget of {self.budget.seconds:g} s of processing time: {count} event(s) "
                f"were left out: {names}{more}."
            )
            self.skipped += count
        feed.warnings = list(self.warnings)
        feed.skipped = self.skipped
        return feed

    def _groups(self, blocks: list[list[str]]) -> dict[str, list[Component]]:
        """The VEVENTs of these blocks read, by UID (those that cannot be used are counted)."""
        groups: dict[str, list[Component]] = {}
        for block in blocks:
            try:
                event = self._event(block)
            except Exception as err:  # a safety net: _event warns of what it knows
                self.warn(f"A VEVENT could not be read ({type(err).__name__}); it was skipped.")
                event = None
            if event is None:
                self.skipped += 1
                continue
            groups.setdefault(str(event["UID"]), []).append(event)
        return groups

    def _unseen(self, found: list[FeedEvent], seen: set[str]) -> list[FeedEvent]:
        """``found`` without the occurrences whose key was returned already (none should be)."""
        kept = []
        for event in found:
            if event.source_key in seen:
                self.warn(
                    f'Event "{event.uid}" gives the occurrence {event.recurrence_id or "(single)"} more than once; '
                    "the repeats were skipped."
                )
                self.skipped += 1
                continue
            seen.add(event.source_key)
            kept.append(event)
        return kept

    def _zone_years(self, blocks: list[list[str]]) -> dict[str, set[int]]:
        """The years of the window the events of each TZID fall in, read from the VEVENTs' lines
        before any is parsed (a zone is resolved when the first event naming it is read): the
        years of DTSTART to DTEND, to UNTIL (or the window's end) for a rule, and of each RDATE."""
        low, high = self.window_years
        found: dict[str, set[int]] = {}
        for block in blocks:
            tzids: set[str] = set()
            spans: list[tuple[int, int]] = []
            start = end = None
            rule, open_rule, until = False, False, 0
            for line in block:
                if not line[:14].upper().startswith((*_ZONED, "RRULE")):
                    continue
                head, value = _line_parts(line)
                name = head.split(";", 1)[0].strip().upper()
                if name == "RRULE":
                    rule = True
                    match = _UNTIL_YEAR.search(value)
                    if match is None:
                        open_rule = True
                    else:
                        until = max(until, int(match.group(1)))
                    continue
                if name not in _ZONED:
                    continue
                match = _TZID_PARAM.search(head)
                if match is not None:
                    tzids.add(match.group(1).strip().strip('"').strip())
                years = [int(item.strip()[:4]) for item in value.split(",") if item.strip()[:4].isdigit()]
                if not years:
                    continue
                if name == "DTSTART":
                    start = years[0]
                elif name == "DTEND":
                    end = years[0]
                elif name == "RDATE":
                    spans += [(year, year) for year in years]
            if not tzids:
                continue
            if start is not None:
                last = max(start, end or start)
                if rule:
                    last = max(last, high if open_rule else until)
                spans.append((start, last))
            years_in = set()
            for first, last in spans:
                years_in.update(range(max(first, low), min(last, high) + 1))
            for tzid in tzids:
                found.setdefault(tzid, set()).update(years_in)
        return found

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
        found = self.vtimezones.get(tzid.strip())
        if found is None:
            self.warn(f'Unknown time zone "{tzid}" (no VTIMEZONE): its times were read as UTC.')
            return _UTC
        component, definition = found
        low, high = self.window_years
        years = tuple(sorted(self.zone_years.get(tzid.strip()) or ())) or tuple(range(low, min(high, low + 2) + 1))
        try:
            custom = ics_zones.custom_zone(component, definition, (min(years[0], low), max(years[-1], high)), self.budget)
            match = ics_zones.matching_zone(custom, years, self.budget)
        except Exception:
            self.warn(f'The VTIMEZONE "{tzid}" could not be read: its times were read as UTC.')
            return _UTC
        if match is not None:
            self.warn(f'Time zone "{tzid}" was read as {match} (the same UTC offsets in the years of its events).')
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
        self.budget.check()
        components = self._one_of_each(uid, components)
        shifts = _shifts(components)
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
            self.skipped += len(components)
            return []
        occurrences.sort(key=lambda occurrence: _sort_key(occurrence["DTSTART"].dt))
        found: list[FeedEvent] = []
        cancelled = 0
        for index, occurrence in enumerate(occurrences):
            if index % 256 == 255:
                self.budget.check()
            if _one_line(occurrence.get("STATUS")).upper() == "CANCELLED":
                cancelled += 1
                continue
            if len(found) >= self.max_occurrences:
                self.warn(
                    f"{label} has more than {self.max_occurrences} occurrences in the window; the first {self.max_occurrences} were kept."
                )
                break
            try:
                found.append(self._feed_event(uid, series, occurrence, shifts))
            except Exception as err:
                self.warn(f"{label}: an occurrence could not be read ({type(err).__name__}); it was skipped.")
                self.skipped += 1
        if cancelled:
            self.warn(
                f"{label}: {cancelled} cancelled occurrence(s) skipped." if series else f"{label} is cancelled; it was skipped."
            )
        return found

    def _one_of_each(self, uid: str, components: list[Component]) -> list[Component]:
        """One VEVENT without RECURRENCE-ID and one per RECURRENCE-ID: of those given more than
        once, the one with the highest SEQUENCE (the first of equals, as recurring_ical_events
        picks), the others skipped with a warning."""
        masters: list[Component] = []
        overrides: dict[str, list[Component]] = {}
        for component in components:
            prop = component.get("RECURRENCE-ID")
            if prop is None:
                masters.append(component)
            else:
                overrides.setdefault(_recurrence_text(prop.dt), []).append(component)
        kept = [self._latest(uid, masters, "times without RECURRENCE-ID")] if masters else []
        for recurrence_id, group in overrides.items():
            kept.append(self._latest(uid, group, f"times for its occurrence {recurrence_id}"))
        return kept

    def _latest(self, uid: str, group: list[Component], what: str) -> Component:
        best = max(group, key=lambda component: _sequence(component) or 0)
        if len(group) > 1:
            self.warn(
                f'Event "{uid}" is given {len(group)} {what}: the one with the highest SEQUENCE (the first of equals) '
                f"was kept, the {len(group) - 1} other(s) skipped."
            )
            self.skipped += len(group) - 1
        return best

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
            if index % 1024 == 1023:
                self.budget.check()
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

    def _feed_event(self, uid: str, series: bool, occurrence: Component, shifts: dict[str, datetime.timedelta]) -> FeedEvent:
        start = occurrence["DTSTART"].dt
        end_prop = occurrence.get("DTEND")
        end = end_prop.dt if end_prop is not None else start
        title = _one_line(occurrence.get("SUMMARY"))
        if not title:
            title = NO_TITLE
            self.warn(f"Event \"{uid}\" had no SUMMARY; imported as '{NO_TITLE}'.")
        data: dict[str, Any] = {
            "title": html.escape(title, quote=False),
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
            original = prop.dt if prop is not None else start
            shift = shifts.get(_recurrence_text(original)) if prop is not None else None
            if shift is not None:  # moved by an override for this and future occurrences: moved back
                original = _unshifted(start, original, shift)
            recurrence_id = _recurrence_text(original)
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
