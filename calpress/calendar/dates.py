"""Dates and time zones with the reference's PHP semantics.

The reference reads every date it is sent with PHP's ``strtotime()`` / ``date_create()``, in the
event's or the site's time zone, and prints dates with PHP's ``date()``. Clients rely on that:
they send ISO strings, database datetimes and natural language ("tomorrow 9am", "next monday",
"first day of next month"). This module reproduces those rules:

* :func:`parse_datetime` parses a string as ``strtotime($text, $now)`` would with
  ``date_default_timezone_set($tz)``; a fast path takes the ISO forms, a scanner modelled on PHP's
  (longest token wins, PHP's token classes and their effects, then PHP's order of resolution)
  takes the rest.
* :func:`is_valid_timezone` and :func:`resolve_timezone` apply the calendar's rules for time zone
  names: IANA names, abbreviations and offsets as PHP's ``DateTimeZone`` accepts them, plus the
  calendar's own ``UTC+5`` / ``UTC-3:30`` / ``UTC+5.5`` forms and the CMS ``gmt_offset`` option.
* :func:`timezone_abbr` and :func:`format_php` render a zone abbreviation and PHP ``date()``
  formats.

The regular expressions and tables are built once at import; the only state is a few memo
caches for zone-name lookups, safe to share between threads.
"""

from __future__ import annotations

import calendar
import functools
import math
import re
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone, tzinfo

__all__ = [
    "FixedOffsetZone",
    "format_php",
    "is_valid_timezone",
    "parse_datetime",
    "resolve_timezone",
    "timezone_abbr",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------------------------
# Fixed-offset zones
# --------------------------------------------------------------------------------------------


class FixedOffsetZone(tzinfo):
    """A zone with one constant UTC offset and the name the calendar shows for it.

    ``kind`` says where the zone came from: ``"utc"`` for the calendar's ``UTC+5`` style names
    (and the CMS ``gmt_offset``), ``"abbr"`` for an abbreviation such as ``EST`` (PHP treats
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
# Tables
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

# fmt: off
_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    # PHP accepts Roman numerals for months ("5 IV 2026"); its lookup ignores case.
    "i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
    "xi": 11, "xii": 12,
}
# fmt: on

_DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")

# Relative-text words: value and "behaviour" (0 = strictly after today for weekdays, 1 = today
# counts, as for "this").
# fmt: off
_RELATIVE_TEXT = {
    "first": (1, 0), "next": (1, 0), "second": (2, 0), "third": (3, 0), "fourth": (4, 0),
    "fifth": (5, 0), "sixth": (6, 0), "seventh": (7, 0), "eight": (8, 0), "eighth": (8, 0),
    "ninth": (9, 0), "tenth": (10, 0), "eleventh": (11, 0), "twelfth": (12, 0),
    "last": (-1, 0), "previous": (-1, 0), "this": (0, 1),
}
# fmt: on

# Relative units: word -> (field, multiplier). Fields "us" "s" "i" "h" "d" "m" "y" are added to
# the relative offset; "wd" sets a weekday; "bd" counts business days ("weekdays").
_MICRO = "\u00b5"


def _load_units() -> dict[str, tuple[str, int]]:
    units: dict[str, tuple[str, int]] = {}
    for words, field, mult in (
        ("ms msec msecs millisecond milliseconds", "us", 1000),
        (f"{_MICRO}s usec usecs {_MICRO}sec {_MICRO}secs microsecond microseconds", "us", 1),
        ("sec secs second seconds", "s", 1),
        ("min mins minute minutes", "i", 1),
        ("hour hours", "h", 1),
        ("day days", "d", 1),
        ("week weeks", "d", 7),
        ("fortnight fortnights forthnight forthnights", "d", 14),
        ("month months", "m", 1),
        ("year years", "y", 1),
        ("weekday weekdays", "bd", 1),
    ):
        for word in words.split():
            units[word] = (field, mult)
    for number, name in enumerate(_DAY_NAMES):
        for word in (name, name + "s", name[:3]):
            units[word] = ("wd", number)
    return units


_UNITS = _load_units()

# Special relative kinds (PHP's "special" relative time).
_SPECIAL_BUSINESS_DAYS = 1
_SPECIAL_NTH_WEEKDAY_OF_MONTH = 2
_SPECIAL_LAST_WEEKDAY_OF_MONTH = 3
_FIRST_DAY_OF = 1
_LAST_DAY_OF = 2


# --------------------------------------------------------------------------------------------
# Calendar arithmetic (proleptic Gregorian, any year; days counted from 1970-01-01)
# --------------------------------------------------------------------------------------------


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def _day_of_week(y: int, m: int, d: int) -> int:
    """0 = Sunday ... 6 = Saturday, as PHP counts."""
    return (_days_from_civil(y, m, d) + 4) % 7


def _ctrunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# --------------------------------------------------------------------------------------------
# Zone lookup
# --------------------------------------------------------------------------------------------


@functools.cache
def _zone_keys() -> dict[str, str]:
    """IANA keys by lower-case spelling: PHP finds zone identifiers ignoring case."""
    return {key.lower(): key for key in zoneinfo.available_timezones()}


def _zone_by_id(word: str) -> zoneinfo.ZoneInfo | None:
    if not word:
        return None
    key = _zone_keys().get(word.lower())
    if key is None:
        return None
    try:
        return zoneinfo.ZoneInfo(key)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


def _abbr_search(word: str) -> tuple[int, int] | None:
    """(total offset, dst flag) of an abbreviation, or None."""
    lower = word.lower()
    if lower in ("utc", "gmt"):
        return (0, 0)
    return _ABBREVIATIONS.get(lower)


# --------------------------------------------------------------------------------------------
# Token reading helpers (each works on one token's text, which PHP reads as a C string)
# --------------------------------------------------------------------------------------------

_SPACE_CHARS = " \t\u00a0\u202f"
_UNIT_DELIMITERS = frozenset("\0 ,\t;:/.-()")
_ZONE_WORD = re.compile(r"[A-Za-z0-9/_+-]*", re.ASCII)
_LETTERS = re.compile(r"[A-Za-z]*", re.ASCII)
_TZ_CORRECTION_BODY = re.compile(r"[0-9:]*", re.ASCII)
_STRTOD = re.compile(r"[0-9]*(?:\.[0-9]*)?", re.ASCII)


def _strtol(text: str) -> int:
    digits = 0
    for ch in text:
        if "0" <= ch <= "9":
            digits += 1
        else:
            break
    return int(text[:digits]) if digits else 0


class _ParseError(Exception):
    """The string is not something PHP would accept (strtotime returns false)."""


class _Reader:
    """A cursor over one token; reading past its end yields NUL, as in PHP's token copy."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def ch(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else "\0"

    def number(self, max_length: int) -> tuple[int | None, int]:
        """Skip to the next digits and read at most ``max_length`` of them: (value, length)."""
        text, pos, end = self.text, self.pos, len(self.text)
        while pos < end and not ("0" <= text[pos] <= "9"):
            if text[pos] == "\0":
                self.pos = pos
                return None, 0
            pos += 1
        if pos >= end:
            self.pos = pos
            return None, 0
        start = pos
        while pos < end and "0" <= text[pos] <= "9" and pos - start < max_length:
            pos += 1
        self.pos = pos
        return int(text[start:pos]), pos - start

    def nr(self, max_length: int) -> int | None:
        return self.number(max_length)[0]

    def signed_nr(self, max_length: int) -> int:
        """A number with any run of +/- signs before it (each "-" flips the sign)."""
        while self.ch() not in "+-" and not ("0" <= self.ch() <= "9"):
            if self.ch() == "\0":
                raise _ParseError("unexpected data")
            self.pos += 1
        negative = False
        while self.ch() in "+-" and self.ch() != "\0":
            negative ^= self.ch() == "-"
            self.pos += 1
        while not ("0" <= self.ch() <= "9"):
            if self.ch() == "\0":
                raise _ParseError("unexpected data")
            self.pos += 1
        start = self.pos
        while "0" <= self.ch() <= "9" and self.pos - start < max_length:
            self.pos += 1
        value = int(self.text[start : self.pos])
        if value > _INT64_MAX:
            raise _ParseError("number out of range")
        return -value if negative else value

    def fraction(self) -> int | None:
        """Microseconds from ".123"-style digits; PHP scales and truncates like this."""
        while self.ch() not in ".:" and not ("0" <= self.ch() <= "9"):
            if self.ch() == "\0":
                return None
            self.pos += 1
        begin = self.pos
        while self.ch() in ".:" and self.ch() != "\0" or "0" <= self.ch() <= "9":
            self.pos += 1
        digits = _STRTOD.match(self.text, begin + 1, self.pos).group()
        value = float(digits) if digits not in ("", ".") else 0.0
        return int(value * math.pow(10, 7 - (self.pos - begin)))

    def skip(self, chars: str) -> None:
        while self.ch() != "\0" and self.ch() in chars:
            self.pos += 1

    def eat_spaces(self) -> None:
        self.skip(_SPACE_CHARS)

    def month(self) -> int:
        self.skip(" \t-./")
        word = _LETTERS.match(self.text, self.pos).group()
        self.pos += len(word)
        return _MONTHS.get(word.lower(), 0)

    def skip_day_suffix(self) -> None:
        if self.ch().isspace():
            return
        if self.text[self.pos : self.pos + 2].lower() in ("nd", "rd", "st", "th"):
            self.pos += 2

    def meridian(self, hour: int) -> int:
        """Hours to add for am/pm after ``hour`` (12am is midnight, 12pm noon)."""
        while self.ch() not in "AaPp" or self.ch() == "\0":
            if self.pos >= len(self.text):
                return 0
            self.pos += 1
        if self.ch() in "Aa":
            delta = -12 if hour == 12 else 0
        else:
            delta = 12 if hour != 12 else 0
        self.pos += 1
        if self.ch() == ".":
            self.pos += 1
        if self.ch() in "Mm" and self.ch() != "\0":
            self.pos += 1
        if self.ch() == ".":
            self.pos += 1
        return delta

    def relative_text(self) -> tuple[int, int]:
        self.skip(" \t-/")
        word = _LETTERS.match(self.text, self.pos).group()
        self.pos += len(word)
        return _RELATIVE_TEXT.get(word.lower(), (0, 0))

    def unit(self) -> tuple[str, int] | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _UNIT_DELIMITERS:
            self.pos += 1
        return _UNITS.get(self.text[start : self.pos].lower())

    def zone(self) -> _Zone | None:
        """A zone as PHP reads one: offset, abbreviation or identifier; None if unknown."""
        parens = 0
        while self.ch() in " \t(" and self.ch() != "\0":
            parens += self.ch() == "("
            self.pos += 1
        if self.text.startswith(("GMT+", "GMT-"), self.pos):
            self.pos += 3
        sign = self.ch()
        if sign in "+-" and sign != "\0":
            self.pos += 1
            body = _TZ_CORRECTION_BODY.match(self.text, self.pos).group()
            self.pos += len(body)
            seconds = _tz_correction(body)
            zone = None if seconds is None else _Zone("offset", -seconds if sign == "-" else seconds)
        else:
            word = _ZONE_WORD.match(self.text, self.pos).group()
            self.pos += len(word)
            zone = None
            # Abbreviations are only looked up when shorter than six characters (PHP's limit).
            found = _abbr_search(word) if len(word) < 6 else None
            if found is not None:
                zone = _Zone("abbr", found[0] - found[1] * 3600, found[1], name=word)
            if found is None or word == "UTC":
                ident = _zone_by_id(word)
                if ident is not None:
                    zone = _Zone("id", 0, 0, tz=ident, name=ident.key)
        while parens and self.ch() == ")":
            self.pos += 1
            parens -= 1
        return zone


def _tz_correction(body: str) -> int | None:
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


class _Zone:
    """A zone named inside a date string: kind "offset", "abbr" or "id"."""

    __slots__ = ("kind", "z", "dst", "tz", "name")

    def __init__(self, kind: str, z: int, dst: int = 0, tz: tzinfo | None = None, name: str = "") -> None:
        self.kind = kind
        self.z = z  # seconds east of UTC, without the summer-time hour for abbreviations
        self.dst = dst
        self.tz = tz
        self.name = name


# --------------------------------------------------------------------------------------------
# Parse state
# --------------------------------------------------------------------------------------------


class _State:
    """What the tokens of one string said; None means "not given, take it from now"."""

    # fmt: off
    __slots__ = (
        "y", "m", "d", "h", "i", "s", "us",
        "have_time", "have_date", "have_zone", "zone",
        "rel_y", "rel_m", "rel_d", "rel_h", "rel_i", "rel_s", "rel_us",
        "weekday", "weekday_behavior", "have_weekday_relative",
        "special_type", "special_amount", "have_special_relative", "first_last_day_of",
    )
    # fmt: on

    def __init__(self) -> None:
        self.y = self.m = self.d = self.h = self.i = self.s = self.us = None
        self.have_time = 0
        self.have_date = False
        self.have_zone = 0
        self.zone: _Zone | None = None
        self.rel_y = self.rel_m = self.rel_d = self.rel_h = self.rel_i = self.rel_s = self.rel_us = 0
        self.weekday = 0
        self.weekday_behavior = 0
        self.have_weekday_relative = False
        self.special_type = 0
        self.special_amount = 0
        self.have_special_relative = False
        self.first_last_day_of = 0

    # PHP's bookkeeping: a second time or date in one string is an error ("Double time
    # specification"); words such as "today" and "tomorrow" reset the time to midnight.
    def set_time(self) -> None:
        if self.have_time:
            raise _ParseError("double time specification")
        self.have_time = 1
        self.h = self.i = self.s = self.us = 0

    def reset_time(self) -> None:
        self.have_time = 0
        self.h = self.i = self.s = self.us = 0

    def set_date(self) -> None:
        if self.have_date:
            raise _ParseError("double date specification")
        self.have_date = True

    def set_zone_slot(self) -> bool:
        """Claim the one zone a string may name; a second is ignored, a third is an error."""
        if self.have_zone:
            if self.have_zone > 1:
                raise _ParseError("double timezone specification")
            self.have_zone += 1
            return False
        self.have_zone += 1
        return True

    def add_relative(self, field: str, amount: int) -> None:
        name = "rel_" + field
        value = getattr(self, name) + amount
        if abs(value) > _INT64_MAX:
            raise _ParseError("number out of range")
        setattr(self, name, value)

    def set_relative(self, reader: _Reader, amount: int, behavior: int, keep_time: bool) -> None:
        unit = reader.unit()
        if unit is None:
            return
        field, mult = unit
        if field == "wd":
            self.have_weekday_relative = True
            if not keep_time:
                self.reset_time()
            # "next monday" is the first Monday after today; "second monday" a week later.
            self.rel_d += (amount - 1 if amount > 0 else amount) * 7
            self.weekday = mult
            self.weekday_behavior = behavior
        elif field == "bd":
            self.have_special_relative = True
            if not keep_time:
                self.reset_time()
            self.special_type = _SPECIAL_BUSINESS_DAYS
            self.special_amount = amount
        else:
            self.add_relative(field, amount * mult)

    def set_zone(self, reader: _Reader) -> None:
        zone = reader.zone()
        if zone is None:
            raise _ParseError("unknown time zone")
        self.zone = zone


def _process_year(value: int | None, length: int) -> int | None:
    """Two-digit years: 00-69 are 20xx, 70-99 are 19xx (only when fewer than four digits)."""
    if value is None or length >= 4 or value >= 100:
        return value
    return value + (2000 if value < 70 else 1900)


# --------------------------------------------------------------------------------------------
# Token actions (one per PHP token class)
# --------------------------------------------------------------------------------------------


def _a_yesterday(st: _State, tok: str) -> None:
    st.reset_time()
    st.rel_d = -1


def _a_now(st: _State, tok: str) -> None:
    pass


def _a_noon(st: _State, tok: str) -> None:
    st.reset_time()
    st.set_time()
    st.h = 12


def _a_today(st: _State, tok: str) -> None:  # also "midnight"
    st.reset_time()


def _a_tomorrow(st: _State, tok: str) -> None:
    st.reset_time()
    st.rel_d = 1


def _a_timestamp(st: _State, tok: str) -> None:
    st.have_date = False
    st.y = st.m = st.d = 0
    st.reset_time()
    if not st.set_zone_slot():
        return  # PHP gives up on the rest of a timestamp that follows a zone
    reader = _Reader(tok)
    seconds = reader.signed_nr(24)
    micro = 0
    if reader.ch() == ".":
        before = reader.pos
        micro = reader.signed_nr(6)
        micro = micro * 10 ** (7 - (reader.pos - before))
        if tok[1] == "-":
            micro = -micro
        st.rel_us = micro
    st.y, st.m, st.d = 1970, 1, 1
    st.h = st.i = st.s = st.us = 0
    st.rel_s += seconds
    st.zone = _Zone("offset", 0)


def _a_first_last_day_of(st: _State, tok: str) -> None:
    # PHP keeps the time of day here ("first day of next month" at 17:42 stays 17:42).
    st.first_last_day_of = _LAST_DAY_OF if tok[0] in "lL" else _FIRST_DAY_OF


def _a_back_front_of(st: _State, tok: str) -> None:
    st.reset_time()
    st.set_time()
    reader = _Reader(tok)
    hour = reader.nr(2) or 0
    if tok[0] in "bB":
        st.h, st.i = hour, 15
    else:
        st.h, st.i = hour - 1, 45
    if reader.ch() != "\0":
        reader.eat_spaces()
        st.h += reader.meridian(st.h)


def _a_weekday_of(st: _State, tok: str) -> None:
    st.have_special_relative = True
    reader = _Reader(tok)
    amount, behavior = reader.relative_text()
    reader.eat_spaces()
    if amount > 0:
        st.special_type = _SPECIAL_NTH_WEEKDAY_OF_MONTH
        st.set_relative(reader, amount, 1, keep_time=False)
    else:
        st.special_type = _SPECIAL_LAST_WEEKDAY_OF_MONTH
        st.set_relative(reader, amount, behavior, keep_time=False)


def _a_time12(st: _State, tok: str) -> None:
    st.set_time()
    reader = _Reader(tok)
    st.h = reader.nr(2)
    if reader.ch() in ":.":
        st.i = reader.nr(2)
        if reader.ch() in ":.":
            st.s = reader.nr(2)
    reader.eat_spaces()
    st.h += reader.meridian(st.h)


def _a_mssqltime(st: _State, tok: str) -> None:
    st.set_time()
    reader = _Reader(tok)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    if reader.ch() in ":.":
        st.s = reader.nr(2)
        if reader.ch() in ":.":
            st.us = reader.fraction()
    reader.eat_spaces()
    st.h += reader.meridian(st.h)


def _a_time24(st: _State, tok: str) -> None:
    st.set_time()
    reader = _Reader(tok)
    st.h = reader.nr(2)
    if reader.ch() in ":.":
        st.i = reader.nr(2)
        if reader.ch() in ":.":
            st.s = reader.nr(2)
            if reader.ch() == ".":
                st.us = reader.fraction()
    if reader.ch() != "\0":
        st.set_zone(reader)


def _a_gnunocolon(st: _State, tok: str) -> None:
    # Four digits are a time ("2026" is 20:26) unless a time was already given, then a year.
    reader = _Reader(tok)
    if st.have_time == 0:
        st.h = reader.nr(2)
        st.i = reader.nr(2)
        st.s = 0
    elif st.have_time == 1:
        st.y = reader.nr(4)
    else:
        raise _ParseError("double time specification")
    st.have_time += 1


def _a_iso8601nocolon(st: _State, tok: str) -> None:
    st.set_time()
    reader = _Reader(tok)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    st.s = reader.nr(2)
    if reader.ch() != "\0":
        st.set_zone(reader)


def _a_american(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    if reader.ch() == "/":
        value, length = reader.number(4)
        st.y = _process_year(value, length)


def _a_iso_date(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.y = reader.signed_nr(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)


def _a_iso_date2(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    value, length = reader.number(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    st.y = _process_year(value, length)


def _a_iso_datex(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.y = reader.signed_nr(19)
    st.m = reader.nr(2)
    st.d = reader.nr(2)


def _a_gnudateshorter(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    value, length = reader.number(4)
    st.m = reader.nr(2)
    st.d = 1
    st.y = _process_year(value, length)


def _a_gnudateshort(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    value, length = reader.number(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    st.y = _process_year(value, length)


def _a_datefull(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.d = reader.nr(2)
    reader.skip_day_suffix()
    st.m = reader.month()
    value, length = reader.number(4)
    st.y = _process_year(value, length)


def _a_pointed4(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.d = reader.nr(2)
    st.m = reader.nr(2)
    st.y = reader.nr(4)


def _a_pointed2(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.d = reader.nr(2)
    st.m = reader.nr(2)
    value, length = reader.number(2)
    st.y = _process_year(value, length)


def _a_datenoday(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.m = reader.month()
    value, length = reader.number(4)
    st.d = 1
    st.y = _process_year(value, length)


def _a_datenodayrev(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    value, length = reader.number(4)
    st.m = reader.month()
    st.d = 1
    st.y = _process_year(value, length)


def _a_datetextual(st: _State, tok: str) -> None:  # also "datenoyear": the year stays unset
    st.set_date()
    reader = _Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    value, length = reader.number(4)
    st.y = _process_year(value, length)


def _a_datenoyearrev(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.d = reader.nr(2)
    reader.skip_day_suffix()
    st.m = reader.month()


def _a_datenocolon(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.y = reader.nr(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)


def _a_datetime_full(st: _State, tok: str) -> None:  # xmlrpc, soap, wddx, exif
    st.set_time()
    st.set_date()
    reader = _Reader(tok)
    st.y = reader.nr(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    st.s = reader.nr(2)
    if reader.ch() == ".":
        st.us = reader.fraction()
        if reader.ch() != "\0":
            st.set_zone(reader)


def _a_pgydotd(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    value, length = reader.number(4)
    st.d = reader.nr(3)
    st.m = 1
    st.y = _process_year(value, length)


def _iso_week_start(year: int, week: int, day: int) -> int:
    """Days from January 1st of ``year`` to ISO ``week``/``day`` (1 = Monday, 0/7 = Sunday)."""
    dow = _day_of_week(year, 1, 1)
    first = -(dow - 7 if dow > 4 else dow)
    return first + (week - 1) * 7 + day


def _a_isoweekday(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.y = reader.nr(4)
    week = reader.nr(2)
    day = reader.nr(1)
    st.m = st.d = 1
    st.rel_d = _iso_week_start(st.y, week, day)


def _a_isoweek(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.y = reader.nr(4)
    week = reader.nr(2)
    st.m = st.d = 1
    st.rel_d = _iso_week_start(st.y, week, 1)


def _a_pgtextshort(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    value, length = reader.number(4)
    st.y = _process_year(value, length)


def _a_pgtextreverse(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    value, length = reader.number(4)
    st.m = reader.month()
    st.d = reader.nr(2)
    st.y = _process_year(value, length)


def _a_clf(st: _State, tok: str) -> None:
    st.set_time()
    st.set_date()
    reader = _Reader(tok)
    st.d = reader.nr(2)
    st.m = reader.month()
    st.y = reader.nr(4)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    st.s = reader.nr(2)
    reader.eat_spaces()
    st.set_zone(reader)


def _a_year4(st: _State, tok: str) -> None:
    st.y = int(tok[:4])


def _a_ago(st: _State, tok: str) -> None:
    # "ago" negates everything relative said so far, but not microseconds (as PHP).
    st.rel_y, st.rel_m, st.rel_d = -st.rel_y, -st.rel_m, -st.rel_d
    st.rel_h, st.rel_i, st.rel_s = -st.rel_h, -st.rel_i, -st.rel_s
    st.weekday = -st.weekday
    if st.weekday == 0:
        st.weekday = -7
    if st.have_special_relative and st.special_type == _SPECIAL_BUSINESS_DAYS:
        st.special_amount = -st.special_amount


def _a_daytext(st: _State, tok: str) -> None:
    # A bare day name: that day this week or later (today counts). "weekday" is Monday here.
    st.have_weekday_relative = True
    st.reset_time()
    unit = _UNITS[tok.lower()]
    st.weekday = unit[1]
    if st.weekday_behavior != 2:
        st.weekday_behavior = 1


def _a_relativetextweek(st: _State, tok: str) -> None:
    # "next week" / "this week" / "last week": PHP moves to the Monday of that week (a weekday
    # named elsewhere in the string wins), keeping the time of day.
    reader = _Reader(tok)
    while reader.ch() != "\0":
        start = reader.pos
        amount, behavior = reader.relative_text()
        reader.eat_spaces()
        st.set_relative(reader, amount, behavior, keep_time=False)
        st.weekday_behavior = 2
        if not st.have_weekday_relative:
            st.have_weekday_relative = True
            st.weekday = 1
        if reader.pos == start:
            break


def _a_relativetext(st: _State, tok: str) -> None:
    reader = _Reader(tok)
    while reader.ch() != "\0":
        start = reader.pos
        amount, behavior = reader.relative_text()
        reader.eat_spaces()
        st.set_relative(reader, amount, behavior, keep_time=False)
        if reader.pos == start:
            break


def _a_month(st: _State, tok: str) -> None:
    st.set_date()
    st.m = _MONTHS[tok.lower()]


def _a_zone(st: _State, tok: str) -> None:
    if not st.set_zone_slot():
        return
    reader = _Reader(tok)
    reader.eat_spaces()
    st.set_zone(reader)


def _a_dateshort_time12(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    st.set_time()
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    if reader.ch() in ":.":
        st.s = reader.nr(2)
        if reader.ch() == ".":
            st.us = reader.fraction()
    st.h += reader.meridian(st.h)


def _a_dateshort_time24(st: _State, tok: str) -> None:
    st.set_date()
    reader = _Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    st.set_time()
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    if reader.ch() == ":":
        st.s = reader.nr(2)
        if reader.ch() == ".":
            st.us = reader.fraction()
    if reader.ch() != "\0":
        st.set_zone(reader)


def _a_relative(st: _State, tok: str) -> None:
    reader = _Reader(tok)
    while reader.ch() != "\0":
        start = reader.pos
        amount = reader.signed_nr(24)
        reader.eat_spaces()
        st.set_relative(reader, amount, 1, keep_time=True)
        if reader.pos == start:
            break


# --------------------------------------------------------------------------------------------
# Token patterns. PHP's scanner takes, at each position, the longest match over all token
# classes, the earlier class winning a tie. Each pattern below is written so that Python's
# first match is that class's longest (longer alternatives first); classes with alternatives
# that overlap are split into several patterns and the scanner compares their lengths.
# --------------------------------------------------------------------------------------------


def _alt(words, ignore_case: bool = True) -> str:
    body = "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))
    return f"(?i:{body})" if ignore_case else f"(?:{body})"


_SP = "(?:[ \\t]+|\u00a0+|\u202f+)"
_FRAC = r"\.[0-9]+"
_H24 = r"(?:2[0-4]|[01]?[0-9])"
_H24LZ = r"(?:2[0-4]|[01][0-9])"
_H12 = r"(?:1[0-2]|0?[1-9])"
_MIN = r"[0-5]?[0-9]"
_MINLZ = r"[0-5][0-9]"
_SEC = r"(?:60|[0-5]?[0-9])"
_SECLZ = r"(?:60|[0-5][0-9])"
_MERIDIAN = r"[AaPp]\.?[Mm]\.?[\0\t ]"
_TZCORR = rf"(?:GMT)?[+-](?:{_H24LZ}:{_MINLZ}:{_SECLZ}|{_H24LZ}{_MINLZ}{_SECLZ}|{_H24}(?::?{_MIN})?)"
_TZ_WORD = r"\(?[A-Za-z]{1,6}\)?"
_TZ_ID = r"[A-Z][a-z]+(?:[_/-][A-Za-z]+)+"
_MONTH = r"(?:1[0-2]|0?[0-9])"
_DAY = r"(?:3[01]|[0-2]?[0-9])(?:st|nd|rd|th)?"
_YEAR = r"[0-9]{1,4}"
_Y2 = r"[0-9]{2}"
_Y4 = r"[0-9]{4}"
_DOY = r"(?:36[0-6]|3[0-5][0-9]|[12][0-9][0-9]|0[1-9][0-9]|00[1-9])"
_WOY = r"(?:5[0-3]|[1-4][0-9]|0[1-9])"
_MONTHLZ = r"(?:0[0-9]|1[0-2])"
_DAYLZ = r"(?:0[0-9]|[12][0-9]|3[01])"
_DAY_FULLS = [d + "s" for d in _DAY_NAMES]
_DAY_ABBRS = [d[:3] for d in _DAY_NAMES]
_DAYTEXT = _alt(_DAY_FULLS + list(_DAY_NAMES) + _DAY_ABBRS + ["weekday", "weekdays"])
# fmt: off
_MONTH_NAMES = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
]
# fmt: on
_MONTH_ABBRS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"]
_MONTHABBR = _alt(_MONTH_ABBRS)
_MONTHWORD = _alt(_MONTH_NAMES + _MONTH_ABBRS)
_MONTHTEXT = rf"(?:{_MONTHWORD}|{_alt(['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'], False)})"
# fmt: off
_RELTEXTNUMBER = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eight", "eighth", "ninth",
    "tenth", "eleventh", "twelfth",
]
# fmt: on
_RELTEXTTEXT = ["next", "last", "previous", "this"]
_RELTEXT = _alt(_RELTEXTNUMBER + _RELTEXTTEXT)
# fmt: off
_RELUNIT = (
    "(?:"
    + _alt(
        ["ms", "weeks"]
        + [
            base + plural
            for base in ("msec", "millisecond", "microsecond", "usec", "sec", "second", "min", "minute", "hour",
                         "day", "fortnight", "forthnight", "month", "year")
            for plural in ("", "s")
        ]
        + _DAY_FULLS + list(_DAY_NAMES) + _DAY_ABBRS + ["weekday", "weekdays"]
    )
    + f"|{_MICRO}secs|{_MICRO}sec|{_MICRO}s)"
)
# fmt: on
_DATENOYEAR = rf"{_MONTHTEXT}[ .\t-]*{_DAY}(?:[,.stndrh\t ]+|\0)"
_TIMESHORT12 = rf"{_H12}[:.]{_MINLZ}{_SP}?{_MERIDIAN}"
_TIMELONG12 = rf"{_H12}[:.]{_MIN}[:.]{_SECLZ}{_SP}?{_MERIDIAN}"
_TIMESHORT24 = rf"(?i:t)?{_H24}[:.]{_MIN}"
_TIMELONG24 = rf"(?i:t)?{_H24}[:.]{_MIN}[:.]{_SEC}"
_ISO8601NORMTZ = rf"(?i:t)?{_H24}[:.]{_MIN}[:.]{_SECLZ}{_SP}?"

_DIGITS = "0123456789"
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_MONTH_FIRSTS = "jfmasondJFMASOND"
_RELTEXT_FIRSTS = "fstenlpFSTENLP"
_DAYTEXT_FIRSTS = "smtwfSMTWF"

# (first characters, pattern, action); the list order is PHP's rule order (ties go to the
# earlier rule). An action of None skips the token.
_RULES: list[tuple[str, str, object]] = [
    ("yY", r"(?i:yesterday)", _a_yesterday),
    ("nN", r"(?i:now)", _a_now),
    ("nN", r"(?i:noon)", _a_noon),
    ("mMtT", r"(?i:midnight|today)", _a_today),
    ("tT", r"(?i:tomorrow)", _a_tomorrow),
    ("@", r"@-?[0-9]+", _a_timestamp),
    ("@", r"@-?[0-9]+\.[0-9]{0,6}", _a_timestamp),
    ("fFlL", r"(?i:first day of|last day of)", _a_first_last_day_of),
    ("bBfF", rf"(?i:back of |front of ){_H24}(?:{_SP}?{_MERIDIAN})?", _a_back_front_of),
    (_RELTEXT_FIRSTS, rf"{_RELTEXT}{_SP}{_alt(_DAY_FULLS + list(_DAY_NAMES) + _DAY_ABBRS)}{_SP}(?i:of)", _a_weekday_of),
    (_DIGITS, rf"{_H12}{_SP}?{_MERIDIAN}", _a_time12),
    (_DIGITS, _TIMESHORT12, _a_time12),
    (_DIGITS, _TIMELONG12, _a_time12),
    (_DIGITS, rf"{_H12}:{_MINLZ}:{_SECLZ}[:.][0-9]+{_MERIDIAN}", _a_mssqltime),
    ("tT", rf"(?i:t){_H24}", _a_time24),
    (_DIGITS + "tT", _TIMESHORT24, _a_time24),
    (_DIGITS + "tT", _TIMELONG24, _a_time24),
    (_DIGITS + "tT", rf"(?i:t)?{_H24}[:.]{_MIN}[:.]{_SEC}{_FRAC}", _a_time24),
    (_DIGITS + "tT", rf"(?i:t)?{_H24LZ}{_MINLZ}", _a_gnunocolon),
    (_DIGITS + "tT", rf"(?i:t)?{_H24LZ}{_MINLZ}{_SECLZ}", _a_iso8601nocolon),
    (_DIGITS, rf"{_MONTH}/{_DAY}/{_YEAR}", _a_american),
    (_DIGITS, rf"{_MONTH}/{_DAY}", _a_american),
    (_DIGITS + "+-", rf"[+-]?{_Y4}-{_MONTHLZ}-{_DAYLZ}", _a_iso_date),
    (_DIGITS, rf"{_Y4}/{_MONTHLZ}/{_DAYLZ}/?", _a_iso_date),
    (_DIGITS, rf"{_Y4}/{_MONTH}/{_DAY}", _a_iso_date),
    (_DIGITS, rf"{_Y2}-{_MONTHLZ}-{_DAYLZ}", _a_iso_date2),
    ("+-", rf"[+-][0-9]{{5,19}}-{_MONTHLZ}-{_DAYLZ}", _a_iso_datex),
    (_DIGITS, rf"{_Y4}-{_MONTH}", _a_gnudateshorter),
    (_DIGITS, rf"{_YEAR}-{_MONTH}-{_DAY}", _a_gnudateshort),
    (_DIGITS, rf"{_DAY}[ \t.-]*{_MONTHTEXT}[ \t.-]*{_YEAR}", _a_datefull),
    (_DIGITS, rf"{_DAY}[.\t-]{_MONTH}[.-]{_Y4}", _a_pointed4),
    (_DIGITS, rf"{_DAY}[.\t]{_MONTH}\.{_Y2}", _a_pointed2),
    (_MONTH_FIRSTS + "IVX", rf"{_MONTHTEXT}[ .\t-]*{_Y4}", _a_datenoday),
    (_DIGITS, rf"{_Y4}[ .\t-]*{_MONTHTEXT}", _a_datenodayrev),
    (_MONTH_FIRSTS + "IVX", rf"{_MONTHTEXT}[ .\t-]*{_DAY}[,.stndrh\t ]+{_YEAR}", _a_datetextual),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR, _a_datetextual),
    (_DIGITS, rf"{_DAY}[ .\t-]*{_MONTHTEXT}", _a_datenoyearrev),
    (_DIGITS, rf"{_Y4}{_MONTHLZ}{_DAYLZ}", _a_datenocolon),
    (_DIGITS, rf"{_Y4}{_MONTHLZ}{_DAYLZ}T{_H24}:{_MINLZ}:{_SECLZ}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}{_MONTHLZ}{_DAYLZ}(?i:t){_H24}{_MINLZ}{_SECLZ}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}-{_MONTHLZ}-{_DAYLZ}T{_H24LZ}:{_MINLZ}:{_SECLZ}{_FRAC}(?:{_TZCORR})?", _a_datetime_full),
    (_DIGITS, rf"{_Y4}-{_MONTH}-{_DAY}T{_H24}:{_MIN}:{_SEC}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}:{_MONTHLZ}:{_DAYLZ} {_H24LZ}:{_MINLZ}:{_SECLZ}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}[.-]?{_DOY}", _a_pgydotd),
    (_DIGITS, rf"{_Y4}-?W{_WOY}-?[0-7]", _a_isoweekday),
    (_DIGITS, rf"{_Y4}-?W{_WOY}", _a_isoweek),
    (_MONTH_FIRSTS, rf"{_MONTHABBR}-{_DAYLZ}-{_YEAR}", _a_pgtextshort),
    (_DIGITS, rf"{_YEAR}-{_MONTHABBR}-{_DAYLZ}", _a_pgtextreverse),
    (_DIGITS, rf"{_DAY}/{_MONTHABBR}/{_Y4}:{_H24LZ}:{_MINLZ}:{_SECLZ}{_SP}{_TZCORR}", _a_clf),
    (_DIGITS, _Y4, _a_year4),
    ("aA", r"(?i:ago)", _a_ago),
    (_DAYTEXT_FIRSTS, _DAYTEXT, _a_daytext),
    (_RELTEXT_FIRSTS, rf"{_alt(_RELTEXTTEXT)}{_SP}(?i:week)", _a_relativetextweek),
    (_RELTEXT_FIRSTS, rf"{_RELTEXT}{_SP}{_RELUNIT}", _a_relativetext),
    (_MONTH_FIRSTS, _MONTHWORD, _a_month),
    ("G+-", _TZCORR, _a_zone),
    ("(" + _ASCII_LETTERS, _TZ_WORD, _a_zone),
    (_ASCII_LETTERS, _TZ_ID, _a_zone),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMESHORT12, _a_dateshort_time12),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMELONG12, _a_dateshort_time12),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMESHORT24, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMELONG24, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _ISO8601NORMTZ + _TZCORR, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _ISO8601NORMTZ + _TZ_WORD, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _ISO8601NORMTZ + _TZ_ID, _a_dateshort_time24),
    (_DIGITS + "+- \t", rf"[+-]*[ \t]*[0-9]{{1,13}}{_SP}?(?:{_RELUNIT}|(?i:week))", _a_relative),
    (".,", r"[.,]", None),
    (" \t\u00a0\u202f", _SP, None),
    ("\0\n", r"[\0\n]", None),
]


def _build_index() -> dict[str, tuple[tuple[re.Pattern[str], object], ...]]:
    """Candidate rules by first character; "<digit>#" keys are for runs of four or more digits."""
    index: dict[str, list[tuple[re.Pattern[str], object]]] = {}
    for firsts, pattern, action in _RULES:
        compiled = re.compile(pattern, re.ASCII)
        needs_four_digits = pattern.startswith((_Y4, "[+-]?" + _Y4))
        for ch in dict.fromkeys(firsts):
            keys = [ch]
            if ch in _DIGITS:
                keys = [ch + "#"] if needs_four_digits else [ch, ch + "#"]
            for key in keys:
                index.setdefault(key, []).append((compiled, action))
    return {key: tuple(rules) for key, rules in index.items()}


_INDEX = _build_index()


def _scan(text: str) -> _State:
    """Tokenise ``text`` (already trimmed) the way PHP's scanner does and collect what it says."""
    st = _State()
    buf = text + "\0"
    end = len(text)
    pos = 0
    while pos < end:
        key = buf[pos]
        if "0" <= key <= "9" and buf[pos + 1 : pos + 4].isdigit():
            key += "#"
        rules = _INDEX.get(key)
        if rules is None:
            raise _ParseError("unexpected character")
        best_len = 0
        best_action = None
        for pattern, action in rules:
            match = pattern.match(buf, pos)
            if match is not None:
                length = match.end() - pos
                if length > best_len:
                    best_len, best_action = length, action
        if best_len == 0:
            raise _ParseError("unexpected character")
        if best_action is not None:
            best_action(st, buf[pos : pos + best_len])
        pos += best_len
    return st


# --------------------------------------------------------------------------------------------
# Resolution: from what the string said, plus "now", to an instant
# --------------------------------------------------------------------------------------------


def _normalize(y: int, m: int, d: int, h: int, i: int, s: int, us: int) -> tuple[int, int, int, int, int, int, int]:
    """Carry overflowing fields upward, as PHP does ("2026-02-30" is March 2nd, "24:00" is midnight)."""
    carry, us = divmod(us, 1_000_000)
    carry, s = divmod(s + carry, 60)
    carry, i = divmod(i + carry, 60)
    carry, h = divmod(h + carry, 24)
    d += carry
    carry, m0 = divmod(m - 1, 12)
    y += carry
    y, m, d = _civil_from_days(_days_from_civil(y, m0 + 1, 1) + d - 1)
    return y, m, d, h, i, s, us


def _move_to_weekday(st: _State, y: int, m: int, d: int) -> int:
    """The day of month after applying a weekday relative ("monday", "next friday", "sunday this week")."""
    dow = _day_of_week(y, m, d)
    weekday = st.weekday
    if st.weekday_behavior == 2:
        # "<day> this/next/last week": weeks run Monday to Sunday.
        if dow == 0 and weekday != 0:
            weekday -= 7
        if weekday == 0 and dow != 0:
            weekday = 7
        return d - dow + weekday
    diff = weekday - dow
    if (st.rel_d < 0 and diff < 0) or (st.rel_d >= 0 and diff <= -st.weekday_behavior):
        diff += 7
    if weekday >= 0:
        return d + diff
    return d - (7 - (abs(weekday) - dow))


def _add_business_days(st: _State, y: int, m: int, d: int) -> int:
    """The day of month after "+N weekdays": Saturdays and Sundays are not counted."""
    count = st.special_amount
    dow = _day_of_week(y, m, d)
    d += _ctrunc_div(count, 5) * 7
    rem = count - _ctrunc_div(count, 5) * 5
    if count > 0:
        if rem == 0:
            if dow == 0:
                d -= 2
            elif dow == 6:
                d -= 1
        elif dow == 6:
            d += 1
        elif dow + rem > 5:
            d += 2
    else:
        if rem == 0:
            if dow == 6:
                d += 2
            elif dow == 0:
                d += 1
        elif dow == 0:
            d -= 1
        elif dow + rem < 1:
            d -= 2
    return d + rem


def _wall_to_utc(wall: datetime, zone: tzinfo, explicit: bool) -> datetime:
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


def _resolve(st: _State, now: datetime, tz: tzinfo) -> datetime:
    """Apply what the string said to ``now`` (wall time in ``tz``) in PHP's order; the instant in ``tz``."""
    # Fill what the string left open from "now"; a date without a time means midnight.
    if st.have_date and not st.have_time:
        st.h = st.i = st.s = st.us = 0
    if st.us is None:
        any_set = any(v is not None for v in (st.y, st.m, st.d, st.h, st.i, st.s))
        st.us = 0 if any_set else now.microsecond
    y = now.year if st.y is None else st.y
    m = now.month if st.m is None else st.m
    d = now.day if st.d is None else st.d
    h = now.hour if st.h is None else st.h
    i = now.minute if st.i is None else st.i
    s = now.second if st.s is None else st.s
    us = st.us

    # "first <day> of" / "last <day> of" start from the first of the month in question, and
    # "first/last day of" pin the day before and after the relative offsets are applied.
    if st.have_special_relative:
        if st.special_type == _SPECIAL_NTH_WEEKDAY_OF_MONTH:
            d = 1
            m += st.rel_m
            st.rel_m = 0
        elif st.special_type == _SPECIAL_LAST_WEEKDAY_OF_MONTH:
            d = 1
            m += st.rel_m + 1
            st.rel_m = 0
    if st.first_last_day_of == _FIRST_DAY_OF:
        d = 1
    elif st.first_last_day_of == _LAST_DAY_OF:
        d = 0
        m += 1
    y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)

    if st.have_weekday_relative:
        d = _move_to_weekday(st, y, m, d)
    y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)
    # Relative units are added to the wall clock all at once, then normalised: "+1 month" on
    # January 31st is February 31st, i.e. March 3rd. Hours too are wall-clock hours: "+1 hour"
    # at 01:30 EDT on the night clocks go back gives 02:30 EST, two hours later.
    y, m, d = y + st.rel_y, m + st.rel_m, d + st.rel_d
    h, i, s, us = h + st.rel_h, i + st.rel_i, s + st.rel_s, us + st.rel_us
    if st.first_last_day_of == _FIRST_DAY_OF:
        d = 1
    elif st.first_last_day_of == _LAST_DAY_OF:
        d = 0
        m += 1
    y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)

    if st.have_special_relative and st.special_type == _SPECIAL_BUSINESS_DAYS:
        d = _add_business_days(st, y, m, d)
        y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)

    if not 1 <= y <= 9999:
        raise _ParseError("year out of range")
    zone = st.zone
    if zone is None:
        return _localize(y, m, d, h, i, s, us, tz)
    wall = datetime(y, m, d, h, i, s, us)
    if zone.kind == "id":
        utc = _wall_to_utc(wall, zone.tz, explicit=True)
    else:
        utc = wall - timedelta(seconds=zone.z + zone.dst * 3600)
    return utc.replace(tzinfo=UTC).astimezone(tz)


# The common ISO shapes: "2026-05-14", "2026-05-14 10:00[:00[.123]]", "2026-05-14T10:00:00Z",
# "...+02:00". PHP reads these exactly as the general scanner would; this only saves time.
_FAST = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"(?:[T ]([01][0-9]|2[0-4]):([0-5][0-9])(?::([0-5][0-9]|60)(?:\.([0-9]+))?)?)?"
    r"(?:(Z)|([+-])([01][0-9]|2[0-4])(?::?([0-5][0-9]))?)?",
    re.ASCII,
)


def _localize(y: int, m: int, d: int, h: int, i: int, s: int, us: int, tz: tzinfo) -> datetime:
    """Wall time in ``tz`` (the string named no zone) as an aware datetime, PHP's way."""
    if type(tz) is zoneinfo.ZoneInfo:
        local = datetime(y, m, d, h, i, s, us, tzinfo=tz)
        # The common case: the wall time occurs exactly once.
        if local.utcoffset() == datetime(y, m, d, h, i, s, us, tzinfo=tz, fold=1).utcoffset():
            return local
    elif type(tz) is FixedOffsetZone or type(tz) is timezone:
        return datetime(y, m, d, h, i, s, us, tzinfo=tz)
    utc = _wall_to_utc(datetime(y, m, d, h, i, s, us), tz, explicit=False)
    return utc.replace(tzinfo=UTC).astimezone(tz)


def _fast_parse(match: re.Match[str], tz: tzinfo) -> datetime:
    year, month, day, hour, minute, second, frac, zulu, sign, off_h, off_m = match.groups()
    y, m, d = int(year), int(month), int(day)
    h = int(hour) if hour else 0
    i = int(minute) if minute else 0
    s = int(second) if second else 0
    us = int(frac[:6].ljust(6, "0")) if frac else 0
    if 28 < d or h == 24 or s == 60:
        # Overflowing fields roll over as PHP rolls them ("2026-02-30" is March 2nd).
        y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)
    if zulu:
        return datetime(y, m, d, h, i, s, us, tzinfo=UTC).astimezone(tz)
    if sign:
        offset = int(off_h) * 3600 + (int(off_m) * 60 if off_m else 0)
        utc = datetime(y, m, d, h, i, s, us, tzinfo=UTC) - timedelta(seconds=-offset if sign == "-" else offset)
        return utc.astimezone(tz)
    return _localize(y, m, d, h, i, s, us, tz)


def parse_datetime(text: str, tz: tzinfo, now: datetime | None = None) -> datetime | None:
    """Parse ``text`` as PHP's ``strtotime($text, $now)`` does with default zone ``tz``.

    Returns an aware datetime in ``tz`` (a zone, offset or ``@timestamp`` inside the string
    fixes the instant, which is then shown in ``tz``), or None where PHP returns false. ``now``
    defaults to the current time; a naive ``now`` is read as wall time in ``tz``. Microseconds
    follow ``date_create()``: kept from the string, or from ``now`` when the string names no
    date or time field at all ("now", "+1 day"). All-digit strings are not Unix timestamps
    here (PHP reads "20260514" as a date); callers that accept timestamps check for them first.
    """
    text = text.strip(" \t\n\r\v\f")
    if not text:
        return None
    match = _FAST.fullmatch(text)
    try:
        if match is not None:
            return _fast_parse(match, tz)
        state = _scan(text)
        if now is None:
            now = datetime.now(tz)
        elif now.tzinfo is None:
            now = now.replace(tzinfo=tz)
        else:
            now = now.astimezone(tz)
        return _resolve(state, now, tz)
    except (_ParseError, OverflowError, ValueError):
        return None


# --------------------------------------------------------------------------------------------
# Time zone names
# --------------------------------------------------------------------------------------------

# The calendar's own offset names: "UTC+5", "UTC-3:30", "UTC+5.5", "UTC+05:45".
_UTC_OFFSET_NAME = re.compile(r"UTC([+-])([0-9]{1,2})(?::([0-5][0-9])|\.([0-9]{1,4}))?", re.ASCII)


def _offset_name(seconds: int) -> str:
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")


@functools.lru_cache(maxsize=1024)
def _zone_from_name(name: str) -> tuple[tzinfo, str] | None:
    match = _UTC_OFFSET_NAME.fullmatch(name)
    if match is not None:
        sign, hours, minutes, fraction = match.groups()
        seconds = int(hours) * 3600
        if minutes:
            seconds += int(minutes) * 60
        elif fraction:
            seconds += round(float("0." + fraction) * 3600)
        if seconds > 14 * 3600:
            return None
        seconds = -seconds if sign == "-" else seconds
        return FixedOffsetZone(seconds, name, "utc"), name
    # Otherwise what PHP's DateTimeZone accepts: an offset, an abbreviation or an identifier,
    # and nothing after it.
    reader = _Reader(name)
    try:
        zone = reader.zone()
    except _ParseError:
        return None
    if zone is None or reader.pos < len(name):
        return None
    if zone.kind == "id":
        return zone.tz, zone.tz.key
    seconds = zone.z + zone.dst * 3600
    if zone.kind == "offset":
        if abs(seconds) >= 24 * 3600:
            return None
        label = _offset_name(seconds)
        return FixedOffsetZone(seconds, label, "offset"), label
    label = zone.name.upper()
    if label == "UTC":
        return zoneinfo.ZoneInfo("UTC"), "UTC"
    return FixedOffsetZone(seconds, label, "abbr", dst=bool(zone.dst)), label


def is_valid_timezone(name: str) -> bool:
    """Whether the calendar accepts ``name`` as an event or site time zone.

    IANA identifiers (in any case, as PHP), ``UTC``, abbreviations PHP knows (``EST``), bare
    offsets (``+05:00``) and the calendar's ``UTC+5`` / ``UTC-3:30`` / ``UTC+5.5`` forms.
    """
    if not isinstance(name, str):
        return False
    name = name.strip()
    return bool(name) and _zone_from_name(name) is not None


def _format_gmt_offset(value: float | str | None) -> tuple[int, str]:
    try:
        hours = float(value) if value not in (None, "") else 0.0
    except (TypeError, ValueError):
        hours = 0.0
    if not math.isfinite(hours) or abs(hours) > 14:
        hours = 0.0
    seconds = round(hours * 3600)
    if seconds == 0:
        return 0, "UTC+0"
    text = str(int(hours)) if hours == int(hours) else f"{hours:.4f}".rstrip("0").rstrip(".")
    return seconds, ("UTC" if hours < 0 else "UTC+") + text


def resolve_timezone(
    name: str | None,
    site_tz: str | None,
    gmt_offset: float | str | None,
) -> tuple[tzinfo, str]:
    """The zone to use and the name to store and show for it.

    ``name`` is the event's own zone; when empty the site's ``timezone_string`` option is used,
    and when that is empty (or unusable) the ``gmt_offset`` option, named ``UTC+5.5`` /
    ``UTC-3`` / ``UTC+0`` as the calendar names it. IANA names come back in their canonical
    spelling; ``UTC±N`` names as given. Raises ValueError for a non-empty ``name`` that
    :func:`is_valid_timezone` rejects.
    """
    if name is not None and name.strip():
        found = _zone_from_name(name.strip())
        if found is None:
            raise ValueError(f"not a valid time zone: {name!r}")
        return found
    if site_tz and site_tz.strip():
        found = _zone_from_name(site_tz.strip())
        if found is not None:
            return found
    return _gmt_offset_zone(gmt_offset)


@functools.lru_cache(maxsize=64)
def _gmt_offset_zone(gmt_offset: float | str | None) -> tuple[tzinfo, str]:
    seconds, label = _format_gmt_offset(gmt_offset)
    return FixedOffsetZone(seconds, label, "utc"), label


def _as_zone_time(tz: tzinfo, at: datetime) -> datetime:
    if at.tzinfo is None:
        return _wall_to_utc(at, tz, explicit=False).replace(tzinfo=UTC).astimezone(tz)
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


# --------------------------------------------------------------------------------------------
# PHP date() formats
# --------------------------------------------------------------------------------------------

_DAY_SHORT = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_DAY_LONG = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_LONG = tuple(name.capitalize() for name in _MONTH_NAMES)


def _zone_identifier(tz: tzinfo | None, dt: datetime) -> str:
    if isinstance(tz, zoneinfo.ZoneInfo):
        return tz.key or ""
    if isinstance(tz, FixedOffsetZone):
        return tz.name
    if isinstance(tz, timezone):
        offset = tz.utcoffset(None)
        return "UTC" if not offset else _offset_name(int(offset.total_seconds()))
    return (tz.tzname(dt) if tz is not None else None) or "UTC"


def _english_suffix(day: int) -> str:
    if 10 <= day % 100 <= 19:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _offset_text(dt: datetime, colon: bool) -> str:
    seconds = int(dt.utcoffset().total_seconds()) if dt.tzinfo is not None else 0
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    return f"{sign}{hours:02d}{':' if colon else ''}{rest // 60:02d}"


def _iso_year(dt: datetime) -> str:
    return str(dt.isocalendar()[0])


def _swatch_beat(dt: datetime) -> str:
    seconds = math.floor((dt - _EPOCH).total_seconds())
    beat = (int(math.fmod(seconds, 86400)) + 3600) * 10
    if beat < 0:
        beat += 864000
    return f"{(beat // 864) % 1000:03d}"


def _epoch_seconds(dt: datetime) -> str:
    return str(math.floor((dt - _EPOCH).total_seconds()))


# One renderer per PHP date() character; anything else is copied as is.
_FORMATTERS = {
    "d": lambda dt: f"{dt.day:02d}",
    "D": lambda dt: _DAY_SHORT[dt.weekday()],
    "j": lambda dt: str(dt.day),
    "l": lambda dt: _DAY_LONG[dt.weekday()],
    "N": lambda dt: str(dt.isoweekday()),
    "S": lambda dt: _english_suffix(dt.day),
    "w": lambda dt: str(dt.isoweekday() % 7),
    "z": lambda dt: str(dt.timetuple().tm_yday - 1),
    "W": lambda dt: f"{dt.isocalendar()[1]:02d}",
    "F": lambda dt: _MONTH_LONG[dt.month - 1],
    "m": lambda dt: f"{dt.month:02d}",
    "M": lambda dt: _MONTH_SHORT[dt.month - 1],
    "n": lambda dt: str(dt.month),
    "t": lambda dt: str(calendar.monthrange(dt.year, dt.month)[1]),
    "L": lambda dt: "1" if calendar.isleap(dt.year) else "0",
    "o": _iso_year,
    "X": lambda dt: f"+{dt.year:04d}",
    "x": lambda dt: f"+{dt.year:04d}" if dt.year >= 10000 else f"{dt.year:04d}",
    "Y": lambda dt: f"{dt.year:04d}",
    "y": lambda dt: f"{dt.year % 100:02d}",
    "a": lambda dt: "am" if dt.hour < 12 else "pm",
    "A": lambda dt: "AM" if dt.hour < 12 else "PM",
    "B": _swatch_beat,
    "g": lambda dt: str(dt.hour % 12 or 12),
    "G": lambda dt: str(dt.hour),
    "h": lambda dt: f"{dt.hour % 12 or 12:02d}",
    "H": lambda dt: f"{dt.hour:02d}",
    "i": lambda dt: f"{dt.minute:02d}",
    "s": lambda dt: f"{dt.second:02d}",
    "u": lambda dt: f"{dt.microsecond:06d}",
    "v": lambda dt: f"{dt.microsecond // 1000:03d}",
    "e": lambda dt: _zone_identifier(dt.tzinfo, dt),
    "I": lambda dt: "1" if dt.dst() else "0",
    "O": lambda dt: _offset_text(dt, colon=False),
    "P": lambda dt: _offset_text(dt, colon=True),
    "p": lambda dt: "Z" if not dt.utcoffset() else _offset_text(dt, colon=True),
    "T": lambda dt: timezone_abbr(dt.tzinfo, dt),
    "Z": lambda dt: str(int(dt.utcoffset().total_seconds())),
    "c": lambda dt: format_php(dt, "Y-m-d\\TH:i:sP"),
    "r": lambda dt: format_php(dt, "D, d M Y H:i:s O"),
    "U": _epoch_seconds,
}


def format_php(dt: datetime, fmt: str) -> str:
    """Format ``dt`` with PHP ``date()`` characters; a backslash escapes the next character.

    Supports d D j l N S w z W F m M n t L o X x Y y a A B g G h H i s u v e I O P p T Z c r U.
    A naive ``dt`` is taken as UTC.
    """
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    out: list[str] = []
    escape = False
    for ch in fmt:
        if escape:
            out.append(ch)
            escape = False
        elif ch == "\\":
            escape = True
        else:
            render = _FORMATTERS.get(ch)
            out.append(ch if render is None else render(dt))
    return "".join(out)
