"""PHP's time zones: the ``DateTimeZone`` names, abbreviations and fixed offsets PHP accepts, in
date strings and as zone names; how PHP picks an offset for a wall time that occurs twice or not
at all; and the abbreviation ``date('T')`` shows.

:func:`parse_zone` reads a zone as timelib does (offset, abbreviation or IANA identifier, the
latter ignoring case); :func:`php_timezone` is ``new DateTimeZone($name)``; :func:`wall_to_utc`
is PHP's reading of a wall time in a zone; :func:`timezone_abbr` is ``date('T')``. The calendar's
own zone names (``UTC+5``, the CMS ``gmt_offset``) are built on these in
:mod:`calpress.calendar.dates`.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone, tzinfo

__all__ = [
    "FixedOffsetZone",
    "Zone",
    "abbr_search",
    "offset_name",
    "parse_zone",
    "php_timezone",
    "timezone_abbr",
    "tz_correction",
    "wall_to_utc",
    "zone_by_id",
]


# --------------------------------------------------------------------------------------------
# Fixed-offset zones
# --------------------------------------------------------------------------------------------


class FixedOffsetZone(tzinfo):
    """A zone with one constant UTC offset and the name the calendar shows for it.

    ``kind`` says where the zone came from: ``"utc"`` for the calendar's ``UTC+5`` style names
    (and the CMS ``gmt_offset``; both made by :mod:`calpress.calendar.dates`), ``"abbr"`` for an abbreviation such as ``EST`` (PHP treats
    those as fixed offsets, flagged as summer time for ``CEST``, ``EDT``...), ``"offset"`` for a
    bare ``+05:00``.
    """

    __slots__ = ("_offset", "_name", "_dst", "_kind")

    def __init__(self, seconds: int, name: str, kind: str = "offset", dst: bool = False) -> None:
        self._offset = timedelta(seconds=seconds)
        self._name = name
        self._kind = kind
        self._dst = dst

    @property
    def name(self) -> str:
        return self._name

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def offset_seconds(self) -> int:
        return int(self._offset.total_seconds())

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return self._offset

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(hours=1) if self._dst else timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return self._name

    def fromutc(self, dt: datetime) -> datetime:
        return (dt + self._offset).replace(tzinfo=self)

    def __reduce__(self):  # pickling, for process pools and caches
        return (FixedOffsetZone, (self.offset_seconds, self._name, self._kind, self._dst))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FixedOffsetZone):
            return NotImplemented
        return (self._offset, self._name, self._kind, self._dst) == (other._offset, other._name, other._kind, other._dst)

    def __hash__(self) -> int:
        return hash((self._offset, self._name, self._kind, self._dst))

    def __repr__(self) -> str:
        return f"FixedOffsetZone({self.offset_seconds}, {self._name!r}, {self._kind!r}, dst={self._dst})"


# --------------------------------------------------------------------------------------------
# Abbreviations and identifiers
# --------------------------------------------------------------------------------------------


# Time zone abbreviations PHP recognises inside date strings and as DateTimeZone names, with the
# total UTC offset in seconds and "*" for a summer-time abbreviation. Where an abbreviation is
# used by several zones, PHP takes its first table entry (so "IST" is Israel, not India); this is
# that first entry, as PHP 8.2's timezone_abbreviations_list() reports it. The single letters
# are the military zones.
_ABBR_DATA = """
acdt*=37800 acst=34200 addt*=-7200 adt*=-10800 aedt*=39600 aest=36000 ahdt*=-32400 ahst=-36000
akdt*=-28800 akst=-32400 amt=-13840 apt*=-10800 ast=-14400 awdt*=32400 awst=28800 awt*=-10800
bdst*=7200 bdt*=-36000 bmt=-14309 bst*=3600 cast=34200 cat=7200 cddt*=-14400 cdt*=-18000
cemt*=10800 cest*=7200 cet=3600 cmt=-15408 cpt*=-18000 cst=-21600 cwt*=-18000 chst=36000 dmt=-1521
eat=10800 eddt*=-10800 edt*=-14400 eest*=10800 eet=7200 emt=-26248 ept*=-14400 est=-18000
ewt*=-14400 ffmt=-14660 fmt=-4056 gdt*=39600 gmt=0 gst=36000 hdt*=-34200 hkst*=32400 hkt=28800
hmt=-19776 hpt*=-34200 hst=-36000 hwt*=-34200 iddt*=14400 idt*=10800 imt=25025 ist=7200 jdt*=36000
jmt=8440 jst=32400 kdt*=36000 kmt=5736 kst=30600 lst*=9394 mddt*=-18000 mdst*=16279 mdt*=-21600
mest*=7200 met=3600 mmt=9017 mpt*=-21600 msd*=14400 msk=10800 mst=-25200 mwt*=-21600 nddt*=-5400
ndt*=-9052 npt*=-9000 nst=-12600 nwt*=-9000 nzdt*=46800 nzmt=41400 nzst=43200 pddt*=-21600
pdt*=-25200 pkst*=21600 pkt=18000 plmt=25590 pmt=-13236 ppmt=-17340 ppt*=-25200 pst=-28800
pwt*=-25200 qmt=-18840 rmt=5794 sast=7200 sdmt=-16800 sjmt=-20173 smt=-13884 sst=-39600 tbmt=10751
tmt=12344 uct=0 utc=0 wast*=7200 wat=3600 wemt*=7200 west*=3600 wet=0 wib=25200 wita=28800
wit=32400 wmt=5040 yddt*=-25200 ydt*=-28800 ypt*=-28800 yst=-32400 ywt*=-28800 a=3600 b=7200
c=10800 d=14400 e=18000 f=21600 g=25200 h=28800 i=32400 k=36000 l=39600 m=43200 n=-3600 o=-7200
p=-10800 q=-14400 r=-18000 s=-21600 t=-25200 u=-28800 v=-32400 w=-36000 x=-39600 y=-43200 z=0
"""


def _load_abbreviations() -> dict[str, tuple[int, int]]:
    table: dict[str, tuple[int, int]] = {}
    for item in _ABBR_DATA.split():
        key, _, seconds = item.partition("=")
        dst = key.endswith("*")
        table[key.rstrip("*")] = (int(seconds), 1 if dst else 0)
    return table


_ABBREVIATIONS = _load_abbreviations()


@functools.cache
def _zone_keys() -> dict[str, str]:
    """IANA keys by lower-case spelling: PHP finds zone identifiers ignoring case."""
    return {key.lower(): key for key in zoneinfo.available_timezones()}


def zone_by_id(word: str) -> zoneinfo.ZoneInfo | None:
    if not word:
        return None
    key = _zone_keys().get(word.lower())
    if key is None:
        return None
    try:
        return zoneinfo.ZoneInfo(key)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


def abbr_search(word: str) -> tuple[int, int] | None:
    """(total offset, dst flag) of an abbreviation, or None."""
    lower = word.lower()
    if lower in ("utc", "gmt"):
        return (0, 0)
    return _ABBREVIATIONS.get(lower)


# --------------------------------------------------------------------------------------------
# Reading a zone
# --------------------------------------------------------------------------------------------


_ZONE_WORD = re.compile(r"[A-Za-z0-9/_+-]*", re.ASCII)
_TZ_CORRECTION_BODY = re.compile(r"[0-9:]*", re.ASCII)


def _strtol(text: str) -> int:
    digits = 0
    for ch in text:
        if "0" <= ch <= "9":
            digits += 1
        else:
            break
    return int(text[:digits]) if digits else 0


def tz_correction(body: str) -> int | None:
    """Seconds east of UTC for the digits after a "+"/"-": H, HH, H:M(M), HHMM, HH:MM, HHMMSS, HH:MM:SS."""
    length = len(body)
    if length in (1, 2):
        return _strtol(body) * 3600
    if length in (3, 4):
        if body[1] == ":":
            return _strtol(body) * 3600 + _strtol(body[2:]) * 60
        if body[2] == ":":
            return _strtol(body) * 3600 + _strtol(body[3:]) * 60
        value = _strtol(body)
        return (value // 100) * 3600 + (value % 100) * 60
    if length == 5 and body[2] == ":":
        return _strtol(body) * 3600 + _strtol(body[3:]) * 60
    if length == 6:
        value = _strtol(body)
        return (value // 10000) * 3600 + ((value // 100) % 100) * 60 + value % 100
    if length == 8 and body[2] == ":" and body[5] == ":":
        return _strtol(body) * 3600 + _strtol(body[3:]) * 60 + _strtol(body[6:])
    return None


class Zone:
    """A zone named inside a date string (or as a zone name): kind "offset", "abbr" or "id"."""

    __slots__ = ("kind", "z", "dst", "tz", "name")

    def __init__(self, kind: str, z: int, dst: int = 0, tz: tzinfo | None = None, name: str = "") -> None:
        self.kind = kind
        self.z = z  # seconds east of UTC, without the summer-time hour for abbreviations
        self.dst = dst
        self.tz = tz
        self.name = name


def parse_zone(text: str, pos: int = 0) -> tuple[Zone | None, int]:
    """A zone as PHP reads one at ``pos`` in ``text``: offset, abbreviation or identifier.

    Returns the zone (None if unknown) and the position after what was read. The date-string
    scanner reads a zone inside a string with this, and ``DateTimeZone`` a zone name.
    """

    def ch() -> str:  # reading past the end yields NUL, as in PHP's token copy
        return text[pos] if pos < len(text) else "\0"

    parens = 0
    while ch() in " \t(" and ch() != "\0":
        parens += ch() == "("
        pos += 1
    if text.startswith(("GMT+", "GMT-"), pos):
        pos += 3
    sign = ch()
    if sign in "+-" and sign != "\0":
        pos += 1
        body = _TZ_CORRECTION_BODY.match(text, pos).group()
        pos += len(body)
        seconds = tz_correction(body)
        zone = None if seconds is None else Zone("offset", -seconds if sign == "-" else seconds)
    else:
        word = _ZONE_WORD.match(text, pos).group()
        pos += len(word)
        zone = None
        # Abbreviations are only looked up when shorter than six characters (PHP's limit).
        found = abbr_search(word) if len(word) < 6 else None
        if found is not None:
            zone = Zone("abbr", found[0] - found[1] * 3600, found[1], name=word)
        if found is None or word == "UTC":
            ident = zone_by_id(word)
            if ident is not None:
                zone = Zone("id", 0, 0, tz=ident, name=ident.key)
    while parens and ch() == ")":
        pos += 1
        parens -= 1
    return zone, pos


def offset_name(seconds: int) -> str:
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")


def php_timezone(name: str) -> tuple[tzinfo, str] | None:
    """What ``new DateTimeZone($name)`` accepts: an offset, an abbreviation or an identifier, and
    nothing after it. Returns the zone and the name PHP shows for it (``getName()``), or None
    where PHP throws (and for offsets of a day or more, which Python zones cannot hold).
    """
    zone, pos = parse_zone(name)
    if zone is None or pos < len(name):
        return None
    if zone.kind == "id":
        return zone.tz, zone.tz.key
    seconds = zone.z + zone.dst * 3600
    if zone.kind == "offset":
        if abs(seconds) >= 24 * 3600:
            return None
        label = offset_name(seconds)
        return FixedOffsetZone(seconds, label, "offset"), label
    label = zone.name.upper()
    if label == "UTC":
        return zoneinfo.ZoneInfo("UTC"), "UTC"
    return FixedOffsetZone(seconds, label, "abbr", dst=bool(zone.dst)), label


# --------------------------------------------------------------------------------------------
# Wall times and abbreviations
# --------------------------------------------------------------------------------------------


def wall_to_utc(wall: datetime, zone: tzinfo, explicit: bool) -> datetime:
    """The UTC instant (naive) of wall-clock time ``wall`` in ``zone``, choosing as PHP does.

    A time in a spring-forward gap moves forward by the gap (02:30 becomes 03:30), as fold=0
    does. For a time that occurs twice, PHP takes the offset in force at the wall time read as
    UTC: zones west of Greenwich get the first (summer) reading, zones east of it the second
    (winter) one. A zone named inside the string (``explicit``) gets the first reading east of
    Greenwich too, unless tzdata flags the later offset as summer time (Dublin's "negative DST").
    """
    if type(zone) is FixedOffsetZone or type(zone) is timezone:
        return wall - zone.utcoffset(None)
    off0 = wall.replace(tzinfo=zone).utcoffset()
    off1 = wall.replace(tzinfo=zone, fold=1).utcoffset()
    if off0 == off1:
        return wall - off0
    utc0 = wall - off0
    if utc0.replace(tzinfo=UTC).astimezone(zone).replace(tzinfo=None) != wall:
        return utc0  # in a gap
    current = wall.replace(tzinfo=UTC).astimezone(zone)
    offset = current.utcoffset()
    if explicit and offset >= timedelta(0) and not current.dst():
        # PHP looks back two hours for a zone named in the string and so prefers summer time.
        return utc0
    return wall - (offset if offset in (off0, off1) else off0)


def _as_zone_time(tz: tzinfo, at: datetime) -> datetime:
    if at.tzinfo is None:
        return wall_to_utc(at, tz, explicit=False).replace(tzinfo=UTC).astimezone(tz)
    return at.astimezone(tz)


def _gmt_label(offset: timedelta) -> str:
    seconds = int(offset.total_seconds())
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    return f"GMT{sign}{hours:02d}{rest // 60:02d}"


def timezone_abbr(tz: tzinfo, at: datetime) -> str:
    """The abbreviation the calendar shows for ``tz`` at ``at`` (``CET``, ``EDT``, ``UTC``...).

    A naive ``at`` is wall time in ``tz``. Zones named ``UTC+5`` style show that name, as the
    reference stores it; abbreviation zones their abbreviation; bare offsets PHP's ``GMT+0500``.
    IANA zones without a letter abbreviation show tzdata's numeric one (``-03``).
    """
    if isinstance(tz, FixedOffsetZone):
        return tz.name if tz.kind != "offset" else _gmt_label(tz.utcoffset(None))
    if isinstance(tz, timezone):
        offset = tz.utcoffset(None)
        return "UTC" if not offset else _gmt_label(offset)
    local = _as_zone_time(tz, at)
    return local.tzname() or ""
