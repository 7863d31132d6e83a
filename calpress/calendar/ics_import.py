"""Reading iCalendar (RFC 5545) feeds: the parsing half of the ``.ics`` importer.

:func:`parse_feed` turns a feed's bytes into :class:`FeedEvent` records, one per occurrence inside
a window of dates, each carrying the data the calendar input service takes
(:func:`calpress.calendar.input.event_input`). It reads back exactly what
:mod:`calpress.calendar.ical` writes. Pure: no I/O, no database, no web framework. This module
reads the feed and expands its series; the rest is done by its parts:

* :mod:`.ics_document`: the document as text, cut into its components;
* :mod:`.ics_feed_zones`: the zone each time is read in (TZIDs, ``VTIMEZONE``,
  ``X-WR-TIMEZONE``, ``default_timezone``), on :mod:`.ics_zones`;
* :mod:`.ics_series`: which VEVENTs of a ``UID`` are expanded, and each occurrence's
  ``source_key``;
* :mod:`.ics_bounds`: each rule checked and bounded to the window, on :mod:`.ics_rules`;
* :mod:`.ics_event_data`: one occurrence as ``FeedEvent.data``;
* :mod:`.ics_values`: property values read as icalendar leaves them.

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
    a later such override. Of a ``VEVENT`` or override given more than once, the one with the
    highest ``SEQUENCE`` is kept (:mod:`.ics_series`). Every event, recurring or not, is kept when
    it overlaps ``[window_start, window_end)``, the window's days read in the event's own zone.
    ``STATUS:CANCELLED`` occurrences are skipped (one warning per ``UID``). Before the expansion
    each rule is checked, and dropped, moved or cut so that it cannot run away
    (:mod:`.ics_bounds`). At most ``max_occurrences`` per series and ``max_events`` per feed are
    returned (warnings say what was left out).

Budget
    The whole parse (reading the components, reading and matching the ``VTIMEZONE``, checking
    and expanding the rules) gets ``budget_seconds`` of processor time (:data:`PARSE_SECONDS` by
    default; the thread's own time, :class:`.ics_rules.Budget`), checked for each ``UID``, every
    thousand instants of a rule, every few hundred occurrences, and inside the ``VTIMEZONE``
    reading and matching. When it runs out the parse stops: the events returned so far are
    kept, the rest are left out (counted in ``skipped``), and a warning says how many and names
    their first ``UID``. It never hangs on a feed.

The importer's expansion is checked against ``recurring_ical_events`` itself over a corpus of
hand-written feeds (``tests/calendar/test_ics_corpus.py``).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import recurring_ical_events
from icalendar import Calendar, Component, vBroken, vRecur

from . import ics_event_data, ics_rules, ics_series
from .ics_bounds import RuleBounds, too_many
from .ics_document import FeedError, parse_block, split, text_of, uid_key
from .ics_event_data import NO_TITLE
from .ics_feed_zones import FeedZones, default_zone
from .ics_rules import BudgetExceeded
from .ics_values import one_line, set_values

__all__ = ["MAX_EVENTS", "MAX_OCCURRENCES", "NO_TITLE", "PARSE_SECONDS", "FeedError", "FeedEvent", "ParsedFeed", "parse_feed"]

MAX_OCCURRENCES = 5000
"""Occurrences of one series returned at most (a warning says when more were left out)."""
MAX_EVENTS = 50_000
"""Events of one feed returned at most."""
PARSE_SECONDS = 120.0
"""Processor seconds one parse may spend (a feed of the largest size an import takes, 20 MB of
plain events, reads in about a minute)."""

_NAMED = 10  # UIDs a warning names at most

_UTC = datetime.UTC
_MIDNIGHT = datetime.time()


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
# Times
# --------------------------------------------------------------------------------------------


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
    """One parse: the feed read a UID at a time, its warnings and its count of skipped VEVENTs."""

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
        self.max_occurrences = max(1, max_occurrences)
        self.max_events = max(0, max_events)
        self.warnings: dict[str, None] = {}
        default = default_zone(default_timezone, self.warn)
        self.budget = ics_rules.Budget(budget_seconds)
        self.zones = FeedZones(window_start, window_end, default, self.budget, self.warn)
        self.bounds = RuleBounds(self.window_start, self.window_end, self.max_occurrences, self.budget, self.warn)
        self.skipped = 0

    def warn(self, text: str) -> None:
        self.warnings[text] = None

    # -- the whole feed ------------------------------------------------------------------------

    def read(self, data: bytes | str) -> ParsedFeed:
        first: list[str] = []
        document = split(text_of(data, first), first)
        self.warnings.update(dict.fromkeys(first))
        self.skipped += document.skipped
        self.zones.read_header(document.header.get("X-WR-TIMEZONE", ""))
        feed = ParsedFeed(name=document.header.get("X-WR-CALNAME", ""), timezone=document.header.get("X-WR-TIMEZONE", ""))
        try:
            self.zones.read_vtimezones(document.timezones, document.events)
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
            prop.dt = self.zones.normal(prop.dt, prop.params.get("TZID"))
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
        if "SEQUENCE" in event and ics_series.sequence(event) is None:
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
            set_values(event, "RRULE", kept)
        event["UID"] = ics_series.uid_of(event)
        return event

    @staticmethod
    def _label(event: Component) -> str:
        uid = one_line(event.get("UID"))
        if uid:
            return f'Event "{uid}"'
        summary = one_line(event.get("SUMMARY"))
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
                entry.dt = self.zones.normal(entry.dt, entry.params.get("TZID") or item.params.get("TZID"))
            kept.append(item)
        set_values(event, name, kept)

    # -- one series ----------------------------------------------------------------------------

    def _series(self, uid: str, components: list[Component]) -> list[FeedEvent]:
        """The occurrences of the VEVENTs of one UID inside the window."""
        self.budget.check()
        components, repeated = ics_series.one_of_each(uid, components, self.warn)
        self.skipped += repeated
        shifts = ics_series.shifts(components)
        series = any(
            c.get("RRULE") is not None or c.get("RDATE") is not None or c.get("RECURRENCE-ID") is not None for c in components
        )
        label = f'Event "{uid}"'
        for component in components:
            if component.get("RRULE") is not None and component.get("RECURRENCE-ID") is None:
                self.bounds.bound(component, label)
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
            if one_line(occurrence.get("STATUS")).upper() == "CANCELLED":
                cancelled += 1
                continue
            if len(found) >= self.max_occurrences:
                self.warn(too_many(label, self.max_occurrences))
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

    def _feed_event(self, uid: str, series: bool, occurrence: Component, shifts: dict[str, datetime.timedelta]) -> FeedEvent:
        data = ics_event_data.event_data(uid, occurrence, self.zones.feed_zone, self.zones.feed_name, self.warn)
        recurrence_id = ics_series.recurrence_id(occurrence, shifts) if series else None
        return FeedEvent(
            source_key=ics_series.source_key(uid, recurrence_id),
            uid=uid,
            recurrence_id=recurrence_id,
            series=series,
            data=data,
            sequence=ics_series.sequence(occurrence) or 0,
            last_modified=ics_event_data.last_modified(occurrence),
        )
