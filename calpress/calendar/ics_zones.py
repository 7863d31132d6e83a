"""Time zones of imported iCalendar feeds (:mod:`.ics_import`): TZIDs read as IANA zones
(as written, the end of a "globally unique" TZID, or a Windows name through CLDR's table), UTC
spellings recognised, and a feed's own VTIMEZONE read as a :class:`CustomZone` (its transitions
worked out once over the years an import looks at) and matched to the IANA zone with the same UTC
offsets through the years its events fall in.

Matching compares offsets at a few instants a year (twice a month, and on both sides of each of
the VTIMEZONE's own changes), so a candidate zone is usually refused at its first instant and an
Outlook-form VTIMEZONE (rules from 1601) is matched in milliseconds (its yearly rules are moved
forward to the years needed rather than walked from 1601). A candidate that agrees at every
one of those instants but changes offset for less than two weeks between two of them is taken
for a match. Readings and matches are remembered by the definition's text without its TZID (64
each), so identical definitions under other names cost nothing more; the reading and the match
check the parse's :class:`.ics_rules.Budget`.

A zone part's UNTIL, which RFC 5545 writes in UTC, is compared with its local starts made UTC
with its TZOFFSETFROM (dateutil's reading compares the UTC value with the local starts as they
are, and so can lose the last change when the zone is east of Greenwich)."""

from __future__ import annotations

import bisect
import collections
import datetime
import functools
import threading
import zoneinfo
from typing import Any

from dateutil import rrule as du
from icalendar import Component, vRecur

from . import ics_rules
from .ical import UTC_KEYS
from .ics_rules import Budget

_UTC = datetime.UTC

_UTC_NAMES = frozenset(key.lower() for key in UTC_KEYS)

# Windows zone names (Outlook, Exchange) and the IANA zone CLDR gives each for its main territory.
_WINDOWS_ZONES = {
    "Dateline Standard Time": "Etc/GMT+12",
    "UTC-11": "Etc/GMT+11",
    "Hawaiian Standard Time": "Pacific/Honolulu",
    "Alaskan Standard Time": "America/Anchorage",
    "Pacific Standard Time (Mexico)": "America/Tijuana",
    "Pacific Standard Time": "America/Los_Angeles",
    "US Mountain Standard Time": "America/Phoenix",
    "Mountain Standard Time": "America/Denver",
    "Central America Standard Time": "America/Guatemala",
    "Central Standard Time": "America/Chicago",
    "Central Standard Time (Mexico)": "America/Mexico_City",
    "Canada Central Standard Time": "America/Regina",
    "SA Pacific Standard Time": "America/Bogota",
    "Eastern Standard Time": "America/New_York",
    "US Eastern Standard Time": "America/Indiana/Indianapolis",
    "Venezuela Standard Time": "America/Caracas",
    "Atlantic Standard Time": "America/Halifax",
    "SA Western Standard Time": "America/La_Paz",
    "Pacific SA Standard Time": "America/Santiago",
    "Newfoundland Standard Time": "America/St_Johns",
    "E. South America Standard Time": "America/Sao_Paulo",
    "SA Eastern Standard Time": "America/Cayenne",
    "Argentina Standard Time": "America/Argentina/Buenos_Aires",
    "Greenland Standard Time": "America/Godthab",
    "Azores Standard Time": "Atlantic/Azores",
    "UTC": "Etc/UTC",
    "GMT Standard Time": "Europe/London",
    "Greenwich Standard Time": "Atlantic/Reykjavik",
    "Morocco Standard Time": "Africa/Casablanca",
    "W. Europe Standard Time": "Europe/Berlin",
    "Central Europe Standard Time": "Europe/Budapest",
    "Romance Standard Time": "Europe/Paris",
    "Central European Standard Time": "Europe/Warsaw",
    "W. Central Africa Standard Time": "Africa/Lagos",
    "GTB Standard Time": "Europe/Bucharest",
    "E. Europe Standard Time": "Europe/Chisinau",
    "FLE Standard Time": "Europe/Kiev",
    "Egypt Standard Time": "Africa/Cairo",
    "South Africa Standard Time": "Africa/Johannesburg",
    "Israel Standard Time": "Asia/Jerusalem",
    "Jordan Standard Time": "Asia/Amman",
    "Turkey Standard Time": "Europe/Istanbul",
    "Arab Standard Time": "Asia/Riyadh",
    "Russian Standard Time": "Europe/Moscow",
    "E. Africa Standard Time": "Africa/Nairobi",
    "Iran Standard Time": "Asia/Tehran",
    "Arabian Standard Time": "Asia/Dubai",
    "Afghanistan Standard Time": "Asia/Kabul",
    "Pakistan Standard Time": "Asia/Karachi",
    "India Standard Time": "Asia/Kolkata",
    "Sri Lanka Standard Time": "Asia/Colombo",
    "Nepal Standard Time": "Asia/Kathmandu",
    "Bangladesh Standard Time": "Asia/Dhaka",
    "Myanmar Standard Time": "Asia/Yangon",
    "SE Asia Standard Time": "Asia/Bangkok",
    "China Standard Time": "Asia/Shanghai",
    "Singapore Standard Time": "Asia/Singapore",
    "Taipei Standard Time": "Asia/Taipei",
    "W. Australia Standard Time": "Australia/Perth",
    "Tokyo Standard Time": "Asia/Tokyo",
    "Korea Standard Time": "Asia/Seoul",
    "Cen. Australia Standard Time": "Australia/Adelaide",
    "AUS Central Standard Time": "Australia/Darwin",
    "E. Australia Standard Time": "Australia/Brisbane",
    "AUS Eastern Standard Time": "Australia/Sydney",
    "Tasmania Standard Time": "Australia/Hobart",
    "West Pacific Standard Time": "Pacific/Port_Moresby",
    "Central Pacific Standard Time": "Pacific/Guadalcanal",
    "New Zealand Standard Time": "Pacific/Auckland",
    "Fiji Standard Time": "Pacific/Fiji",
    "Tonga Standard Time": "Pacific/Tongatapu",
}
_WINDOWS_LOWER = {name.lower(): key for name, key in _WINDOWS_ZONES.items()}
_AREAS = ("Africa/", "America/", "Antarctica/", "Asia/", "Atlantic/", "Australia/", "Europe/", "Indian/", "Pacific/")


@functools.lru_cache(maxsize=1)
def iana_keys() -> dict[str, str]:
    """The IANA zone names zoneinfo knows, by their lower-case spelling."""
    return {key.lower(): key for key in zoneinfo.available_timezones() if key not in ("Factory", "localtime", "posixrules")}


def iana_name(tzid: str) -> str | None:
    """The IANA name a TZID stands for: itself, the end of a "globally unique" one, or the zone
    of a Windows name; None when it names none of them."""
    keys = iana_keys()
    cleaned = tzid.strip().strip('"').strip()
    found = keys.get(cleaned.strip("/").lower())
    if found:
        return found
    parts = [part for part in cleaned.split("/") if part]
    for index in range(1, len(parts)):
        found = keys.get("/".join(parts[index:]).lower())
        if found:
            return found
    windows = _WINDOWS_LOWER.get(cleaned.lower())
    return keys.get(windows.lower()) if windows else None


def is_utc_name(name: str) -> bool:
    return name.lower() in _UTC_NAMES


def is_utc(zone: datetime.tzinfo | None) -> bool:
    if zone is _UTC:
        return True
    return isinstance(zone, zoneinfo.ZoneInfo) and bool(zone.key) and is_utc_name(zone.key)


def zone_named(name: str) -> datetime.tzinfo:
    return _UTC if is_utc_name(name) else zoneinfo.ZoneInfo(name)


@functools.lru_cache(maxsize=1)
def _candidates() -> tuple[tuple[str, zoneinfo.ZoneInfo], ...]:
    """Zones an unknown VTIMEZONE may be matched to, best names first (held: zoneinfo keeps only
    a few zones it made alive, and reading the others' files again costs more than the match)."""
    primary = set(_WINDOWS_ZONES.values())

    def rank(key: str) -> tuple[int, str]:
        return (0 if key in primary else 1 if key.startswith(_AREAS) else 2), key

    return tuple((key, zoneinfo.ZoneInfo(key)) for key in sorted(iana_keys().values(), key=rank))


_TRANSITION_STEPS = 20_000  # instants the rules of one VTIMEZONE may generate while walked
_CACHED = 64  # VTIMEZONE definitions (and their matches) remembered
_ONE_SECOND = datetime.timedelta(seconds=1)
_MARGIN = datetime.timedelta(days=2)  # around a year: local and UTC years differ by hours
_STEP_CHECK = 1000


class CustomZone(datetime.tzinfo):
    """A VTIMEZONE's own rules as a tzinfo: its transitions (UTC instant, offset after, name,
    DST part) worked out once over a range of years, then every lookup a binary search. Outside
    the range the offset of its nearest end holds. Ambiguous and skipped wall times follow PEP 495
    (``fold=0`` takes the offset before the change), as zoneinfo does.

    dateutil's reading of a VTIMEZONE (what icalendar's ``to_tz`` gives) walks its rules from
    their start for every lookup: about a millisecond each for the Outlook form, which starts in
    1601, so an import spent seconds per zone."""

    def __init__(
        self,
        key: str,
        transitions: list[tuple[datetime.datetime, datetime.timedelta, str | None, datetime.timedelta]],
        first: datetime.timedelta,
    ) -> None:
        self.key = key  # the definition's text (without its TZID): what the caches know it by
        self._utc = [item[0] for item in transitions]
        self._offsets = [item[1] for item in transitions]
        self._names = [item[2] for item in transitions]
        self._dst = [item[3] for item in transitions]
        self._first = first  # the offset before the first transition
        before = [first, *self._offsets[:-1]]
        self._wall_late = [at + max(old, new) for at, old, new in zip(self._utc, before, self._offsets)]
        self._wall_early = [at + min(old, new) for at, old, new in zip(self._utc, before, self._offsets)]
        self._before = before

    def _index(self, value: datetime.datetime | None) -> int:
        if value is None:
            return -1
        walls = self._wall_early if value.fold else self._wall_late
        return bisect.bisect_right(walls, value.replace(tzinfo=None)) - 1

    def utcoffset(self, value: datetime.datetime | None) -> datetime.timedelta:
        index = self._index(value)
        return self._offsets[index] if index >= 0 else self._first

    def dst(self, value: datetime.datetime | None) -> datetime.timedelta:
        index = self._index(value)
        return self._dst[index] if index >= 0 else datetime.timedelta(0)

    def tzname(self, value: datetime.datetime | None) -> str | None:
        index = self._index(value)
        return self._names[index] if index >= 0 else (self._names[0] if self._names else None)

    def fromutc(self, value: datetime.datetime) -> datetime.datetime:
        if value.tzinfo is not self:
            raise ValueError("fromutc: the value's tzinfo is not this zone")
        moment = value.replace(tzinfo=None)
        index = bisect.bisect_right(self._utc, moment) - 1
        offset = self._offsets[index] if index >= 0 else self._first
        wall = moment + offset
        # The second pass through the hour a change back repeats.
        fold = int(index >= 0 and offset < self._before[index] and wall < self._utc[index] + self._before[index])
        return wall.replace(tzinfo=self, fold=fold)

    def offset_at(self, moment: datetime.datetime) -> datetime.timedelta:
        """The offset at a naive UTC instant."""
        index = bisect.bisect_right(self._utc, moment) - 1
        return self._offsets[index] if index >= 0 else self._first

    def name_at(self, moment: datetime.datetime) -> str | None:
        index = bisect.bisect_right(self._utc, moment) - 1
        return self._names[index] if index >= 0 else (self._names[0] if self._names else None)

    def changes_between(self, low: datetime.datetime, high: datetime.datetime) -> list[datetime.datetime]:
        """The naive UTC instants of its transitions in ``[low, high)``."""
        return self._utc[bisect.bisect_left(self._utc, low) : bisect.bisect_left(self._utc, high)]

    def __repr__(self) -> str:
        return f"<CustomZone {len(self._utc)} transitions>"


class _Remembered:
    """A small least-recently-used memory (for values whose making takes a Budget, which
    functools.lru_cache cannot leave out of its key), safe to share between threads."""

    def __init__(self) -> None:
        self._values: collections.OrderedDict[Any, Any] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get_recent(self, key: Any) -> Any:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def keep(self, key: Any, value: Any) -> Any:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > _CACHED:
                self._values.popitem(last=False)
        return value


_ZONES = _Remembered()
_MATCHES = _Remembered()


def definition_key(lines: list[str]) -> str:
    """A VTIMEZONE block's text without its TZID: identical definitions under other names share
    their reading and their match."""
    return "\n".join(line for line in lines if line.split(":", 1)[0].split(";", 1)[0].strip().upper() != "TZID")


def custom_zone(component: Component, key: str, years: tuple[int, int], budget: Budget | None = None) -> CustomZone:
    """The VTIMEZONE ``component`` (whose :func:`definition_key` is ``key``) as a
    :class:`CustomZone` exact through ``years`` (first, last). Raises ValueError when it gives no
    transition or its rules are too dense to walk (``_TRANSITION_STEPS``), and
    :class:`.ics_rules.BudgetExceeded`."""
    first_year, last_year = max(1, years[0] - 1), min(9998, years[1] + 1)
    found = _ZONES.get_recent((key, first_year, last_year))
    if found is not None:
        return found
    low = datetime.datetime(first_year, 1, 1)
    high = datetime.datetime(last_year, 12, 31, 23, 59, 59)
    transitions: list[tuple[datetime.datetime, datetime.timedelta, str | None, datetime.timedelta]] = []
    earliest: tuple[datetime.datetime, datetime.timedelta] | None = None
    steps = [0]
    for part in component.subcomponents:
        if part.name not in ("STANDARD", "DAYLIGHT"):
            continue
        offset_from, offset_to = _offset(part, "TZOFFSETFROM"), _offset(part, "TZOFFSETTO")
        name = _text(part.get("TZNAME"))
        dst = datetime.timedelta(0)
        if part.name == "DAYLIGHT":
            dst = offset_to - offset_from if offset_to > offset_from else datetime.timedelta(hours=1)
        for local in _part_instants(part, offset_from, low, high, steps, budget):
            try:
                moment = local - offset_from
            except OverflowError:
                continue
            transitions.append((moment, offset_to, name, dst))
            if earliest is None or moment < earliest[0]:
                earliest = (moment, offset_from)
    if earliest is None:
        raise ValueError("the VTIMEZONE gives no transition")
    transitions.sort(key=lambda item: item[0])
    kept: dict[datetime.datetime, tuple[datetime.datetime, datetime.timedelta, str | None, datetime.timedelta]] = {}
    for item in transitions:
        kept[item[0]] = item  # two changes at one instant: the later listed wins
    return _ZONES.keep((key, first_year, last_year), CustomZone(key, list(kept.values()), earliest[1]))


def _offset(part: Component, name: str) -> datetime.timedelta:
    value = part.get(name)
    delta = getattr(value, "td", None)
    if not isinstance(delta, datetime.timedelta) or abs(delta) >= datetime.timedelta(days=1):
        raise ValueError(f"a {part.name} without a readable {name}")
    return delta


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    text = " ".join(str(value or "").split())
    return text or None


def _local(value: Any) -> datetime.datetime | None:
    if isinstance(value, tuple):  # a period
        value = value[0]
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, datetime.date):
        return datetime.datetime.combine(value, datetime.time())
    return None


def _part_instants(
    part: Component,
    offset_from: datetime.timedelta,
    low: datetime.datetime,
    high: datetime.datetime,
    steps: list[int],
    budget: Budget | None,
) -> list[datetime.datetime]:
    """The local starts of a STANDARD or DAYLIGHT part that matter for ``[low, high]``: those
    inside, and the last before and first after it."""
    start = _local(getattr(part.get("DTSTART"), "dt", None))
    if start is None:
        raise ValueError(f"a {part.name} without a readable DTSTART")
    instants = [start]
    rules = part.get("RRULE")
    for recur in rules if isinstance(rules, list) else [rules] if rules is not None else []:
        if not isinstance(recur, vRecur) or ics_rules.rule_problem(recur, start) is not None:
            continue
        instants += _walk(recur, start, offset_from, low, high, steps, budget)
    dates = part.get("RDATE")
    for item in dates if isinstance(dates, list) else [dates] if dates is not None else []:
        for entry in getattr(item, "dts", None) or []:
            local = _local(entry.dt)
            if local is not None:
                instants.append(local)
    instants.sort()
    index = bisect.bisect_left(instants, low)
    end = bisect.bisect_right(instants, high)
    return instants[max(0, index - 1) : end + 1]


def _walk(
    recur: vRecur,
    start: datetime.datetime,
    offset_from: datetime.timedelta,
    low: datetime.datetime,
    high: datetime.datetime,
    steps: list[int],
    budget: Budget | None,
) -> list[datetime.datetime]:
    """A transition rule's local instants up to the first after ``high`` (the rule ends with its
    UNTIL, a UTC instant made local, or COUNT), from a year before ``low`` when it can be moved."""
    parts = [part for part in recur.to_ical().decode().split(";") if part and not part.upper().startswith("UNTIL=")]
    parts, first = _moved(parts, start, low)
    rule = du.rrulestr(";".join(parts), dtstart=first)
    if not isinstance(rule, du.rrule):
        return []
    untils = ics_rules.rule_values(recur, "UNTIL")
    if untils and not ics_rules.rule_values(recur, "COUNT"):
        until = untils[0]
        if isinstance(until, datetime.datetime):
            until = until.astimezone(_UTC).replace(tzinfo=None) + offset_from if until.tzinfo is not None else until
        else:
            until = datetime.datetime.combine(until, datetime.time(23, 59, 59))
        rule = rule.replace(until=until)
    found = []
    for local in rule:
        steps[0] += 1
        if steps[0] % _STEP_CHECK == 0 and budget is not None:
            budget.check()
        if steps[0] > _TRANSITION_STEPS:
            raise ValueError("the VTIMEZONE's rules are too dense")
        found.append(local)
        if local > high:
            break
    return found


_DAY_PARTS = ("BYWEEKNO=", "BYYEARDAY=", "BYMONTHDAY=", "BYDAY=", "BYEASTER=")


def _moved(parts: list[str], start: datetime.datetime, low: datetime.datetime) -> tuple[list[str], datetime.datetime]:
    """A yearly or monthly rule without COUNT moved to start at the beginning of the last whole
    interval before the year before ``low`` (the same instants from there on): dateutil walks a
    yearly rule a year at a time, about 0.1 ms each, and the Outlook form starts in 1601. The
    parts dateutil takes from DTSTART when they are missing are written into the rule first."""
    upper = [part.upper() for part in parts]
    freq = next((part[5:] for part in upper if part.startswith("FREQ=")), "")
    if freq not in ("YEARLY", "MONTHLY") or any(part.startswith("COUNT=") for part in upper):
        return parts, start
    step = next((part[9:] for part in upper if part.startswith("INTERVAL=")), "1")
    try:
        interval = max(1, int(step))
    except ValueError:
        return parts, start
    if freq == "YEARLY":
        months = (low.year - 1 - start.year) // interval * interval * 12
    else:
        months = ((low.year - 1 - start.year) * 12 + 1 - start.month) // interval * interval
    if months <= 0:
        return parts, start
    moved = list(parts)
    if not any(part.startswith(_DAY_PARTS) for part in upper):
        if freq == "YEARLY" and not any(part.startswith("BYMONTH=") for part in upper):
            moved.append(f"BYMONTH={start.month}")
        moved.append(f"BYMONTHDAY={start.day}")
    for name, value in (("BYHOUR", start.hour), ("BYMINUTE", start.minute), ("BYSECOND", start.second)):
        if not any(part.startswith(name + "=") for part in upper):
            moved.append(f"{name}={value}")
    if freq == "YEARLY":  # from the first of January: every month of the year is in its set
        return moved, datetime.datetime(start.year + months // 12, 1, 1)
    month = start.month - 1 + months
    return moved, datetime.datetime(start.year + month // 12, month % 12 + 1, 1)


def _points(custom: CustomZone, years: tuple[int, ...]) -> list[datetime.datetime]:
    """Naive UTC instants where two zones with the same offsets through these years agree: the
    1st and 15th of every month at noon, and both sides of each of the custom zone's changes."""
    points: list[datetime.datetime] = []
    for year in years:
        points += [datetime.datetime(year, month, day, 12) for month in range(1, 13) for day in (1, 15)]
        low = datetime.datetime(year, 1, 1) - _MARGIN
        high = datetime.datetime(year + 1, 1, 1) + _MARGIN if year < 9998 else datetime.datetime(9999, 12, 31)
        for change in custom.changes_between(low, high):
            points += [change - _ONE_SECOND, change]
    return sorted(set(points))


def matching_zone(custom: CustomZone, years: tuple[int, ...], budget: Budget | None = None) -> str | None:
    """The IANA zone with the same UTC offsets as ``custom`` through ``years`` (checked twice a
    month and on both sides of each of its changes; the same abbreviations and the better names
    preferred), or None. Remembered by the definition and the years."""
    remembered = _MATCHES.get_recent((custom.key, years))
    if remembered is not None:
        return remembered or None
    points = _points(custom, years)
    offsets = [custom.offset_at(point) for point in points]
    moments = [point.replace(tzinfo=_UTC) for point in points]
    names: list[str | None] = []
    best: tuple[int, int, str] | None = None
    for order, (key, zone) in enumerate(_candidates()):
        if budget is not None and order % 64 == 0:
            budget.check()
        if any(moment.astimezone(zone).utcoffset() != offset for moment, offset in zip(moments, offsets)):
            continue
        names = names or [custom.name_at(point) for point in points]
        score = (sum(moment.astimezone(zone).tzname() != name for moment, name in zip(moments, names)), order, key)
        if best is None or score < best:
            best = score
        if score[0] == 0:
            break  # the candidates come best name first: none can beat it
    _MATCHES.keep((custom.key, years), best[2] if best else "")
    return best[2] if best else None
