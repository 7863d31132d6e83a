"""The time zones of one imported iCalendar feed (:mod:`.ics_import`): the zone each of its times
is read in (the event's ``timezone`` and the wall times of ``start_date``/``end_date``), built on
:mod:`.ics_zones`, which reads TZIDs, the feed's ``VTIMEZONE`` and their matches.

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

``icalendar`` keeps a process-wide cache of the ``VTIMEZONE`` definitions it has seen under
non-IANA names; this module does not rely on it (each feed's zones are resolved from its own
``VTIMEZONE``), but the cache grows by one entry per new such name.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from collections.abc import Callable
from typing import Any

from icalendar import Component

from . import ics_zones
from .dates import is_valid_timezone, resolve_timezone
from .ics_document import parse_block
from .ics_rules import Budget

_ZONED = ("DTSTART", "DTEND", "RECURRENCE-ID", "RDATE", "EXDATE")
_TZID_PARAM = re.compile(r';TZID=("[^"]*"|[^;:]*)', re.IGNORECASE)
_UNTIL_YEAR = re.compile(r"UNTIL=(\d{4})", re.IGNORECASE)

_UTC = datetime.UTC
_DAY = datetime.timedelta(days=1)


def default_zone(name: str, warn: Callable[[str], None]) -> tuple[datetime.tzinfo, str]:
    """The zone ``default_timezone`` names, and its name (UTC, with a warning, when it names none)."""
    name = (name or "").strip()
    if ics_zones.is_utc_name(name):
        return _UTC, "UTC"
    key = ics_zones.iana_keys().get(name.lower())
    if key:
        return zoneinfo.ZoneInfo(key), key
    if is_valid_timezone(name):
        return resolve_timezone(name, None, None)
    warn(f'The default time zone "{name}" is not one calpress accepts; UTC was used instead.')
    return _UTC, "UTC"


class FeedZones:
    """The zones of one feed, parsed over ``[window_start, window_end)``: ``feed_zone`` (named
    ``feed_name``) for its UTC, floating and all-day times, and a zone for each TZID, resolved
    when the first time naming it is read (see the module)."""

    def __init__(
        self,
        window_start: datetime.date,
        window_end: datetime.date,
        default: tuple[datetime.tzinfo, str],
        budget: Budget,
        warn: Callable[[str], None],
    ) -> None:
        first, last = (max(2, min(9997, year)) for year in (window_start.year, (window_end - _DAY).year))
        self.window_years = (first, last)  # the custom zones are exact through these years
        self.budget = budget
        self.warn = warn
        self.default_name = default[1]
        self.feed_zone, self.feed_name = default
        self.xwr_zone: datetime.tzinfo | None = None
        self.vtimezones: dict[str, tuple[Component, str]] = {}  # TZID -> VTIMEZONE, its definition's text
        self.zone_years: dict[str, set[int]] = {}  # TZID -> the window's years its events fall in
        self.zones: dict[str, datetime.tzinfo] = {}

    def read_header(self, name: str) -> None:
        """Takes the feed's ``X-WR-TIMEZONE`` (as written, "" when it has none)."""
        if not name:
            return
        key = ics_zones.iana_name(name)
        if key is None:
            self.warn(f'X-WR-TIMEZONE "{name}" is not a known time zone; {self.default_name} was used instead.')
            return
        zone = ics_zones.zone_named(key)
        self.feed_zone, self.feed_name = zone, "UTC" if zone is _UTC else key
        self.xwr_zone = None if zone is _UTC else zone

    def read_vtimezones(self, timezones: list[list[str]], events: list[list[str]]) -> None:
        """Takes the feed's VTIMEZONE blocks (an unreadable one skipped with a warning) and,
        when one of them names no known zone, the years its events fall in from the VEVENT
        blocks. Raises :class:`.ics_rules.BudgetExceeded`."""
        for block in timezones:
            self.budget.check()
            try:
                component = parse_block(block)
                tzid = str(component["TZID"]).strip()
            except Exception:
                self.warn("A VTIMEZONE could not be read; it was skipped.")
                continue
            self.vtimezones.setdefault(tzid, (component, ics_zones.definition_key(block)))
        if any(ics_zones.iana_name(tzid) is None for tzid in self.vtimezones):
            self.zone_years = zone_years(events, self.window_years)

    def normal(self, value: Any, tzid: Any) -> Any:
        """A DTSTART-like value (or RDATE period) with its zone resolved (see the module)."""
        if isinstance(value, tuple):  # an RDATE period
            return (
                self.normal(value[0], tzid),
                self.normal(value[1], tzid) if isinstance(value[1], datetime.date) else value[1],
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


def zone_years(blocks: list[list[str]], window_years: tuple[int, int]) -> dict[str, set[int]]:
    """The years of the window (``window_years``: first, last) the events of each TZID fall in,
    read from the VEVENTs' lines before any is parsed (a zone is resolved when the first event
    naming it is read): the years of DTSTART to DTEND, to UNTIL (or the window's end) for a
    rule, and of each RDATE."""
    low, high = window_years
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
