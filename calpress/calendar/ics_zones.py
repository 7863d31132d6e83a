"""Time zones of imported iCalendar feeds (:mod:`.ics_import`): TZIDs read as IANA zones
(as written, the end of a "globally unique" TZID, or a Windows name through CLDR's table), UTC
spellings recognised, and a feed's own VTIMEZONE matched to the IANA zone with the same UTC
offsets through the years an import looks at."""

from __future__ import annotations

import datetime
import functools
import zoneinfo

from icalendar import Calendar

from .ical import UTC_KEYS

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
def _candidates() -> tuple[str, ...]:
    """Zones an unknown VTIMEZONE may be matched to, best names first."""
    primary = set(_WINDOWS_ZONES.values())

    def rank(key: str) -> tuple[int, str]:
        return (0 if key in primary else 1 if key.startswith(_AREAS) else 2), key

    return tuple(sorted(iana_keys().values(), key=rank))


@functools.lru_cache(maxsize=16)
def _samples(first_year: int, last_year: int) -> tuple[datetime.datetime, ...]:
    """Instants every twelve hours (00:00 and 12:00 UTC) through these years."""
    start = datetime.datetime(first_year, 1, 1, tzinfo=_UTC)
    count = ((datetime.date(last_year + 1, 1, 1) - datetime.date(first_year, 1, 1)).days) * 2
    return tuple(start + datetime.timedelta(hours=12 * index) for index in range(count))


@functools.lru_cache(maxsize=64)
def vtimezone_match(ical: bytes, years: tuple[int, int]) -> str | None:
    """:func:`_matching_zone` of a VTIMEZONE given as text (remembered: a feed read every hour
    keeps its VTIMEZONE, and dateutil's reading of one is slow)."""
    (component,) = Calendar.from_ical(b"BEGIN:VCALENDAR\r\n" + ical + b"END:VCALENDAR\r\n").subcomponents
    return _matching_zone(component.to_tz(lookup_tzid=False), years)


def _matching_zone(custom: datetime.tzinfo, years: tuple[int, int]) -> str | None:
    """The IANA zone with the same UTC offsets as ``custom`` twice a day through these years (the
    same abbreviations and the better names preferred), or None."""
    samples = _samples(*years)
    wanted = [moment.astimezone(custom) for moment in samples]
    offsets = [value.utcoffset() for value in wanted]
    names: list[str | None] = []
    probes = range(0, len(samples), max(1, len(samples) // 16))
    best: tuple[int, int, str] | None = None
    for order, key in enumerate(_candidates()):
        zone = zoneinfo.ZoneInfo(key)
        if any(samples[i].astimezone(zone).utcoffset() != offsets[i] for i in probes):
            continue
        local = [moment.astimezone(zone) for moment in samples]
        if any(value.utcoffset() != offset for value, offset in zip(local, offsets)):
            continue
        names = names or [value.tzname() for value in wanted]
        score = (sum(value.tzname() != name for value, name in zip(local, names)), order, key)
        if best is None or score < best:
            best = score
        if score[0] == 0:
            break  # the candidates come best name first: none can beat it
    return best[2] if best else None
