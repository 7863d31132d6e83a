"""PHP's ``date()`` formats: :func:`format_php` renders a datetime with PHP's format characters,
as the reference prints dates (``DateTime::format()``)."""

from __future__ import annotations

import calendar
import math
import zoneinfo
from datetime import UTC, datetime, timezone, tzinfo

from .timezones import FixedOffsetZone, offset_name, timezone_abbr

__all__ = ["format_php", "mysql_datetime"]


def mysql_datetime(value: datetime, sep: str = " ") -> str:
    """``YYYY-MM-DD HH:MM:SS`` (with ``sep`` between date and time), the zone ignored. The year
    has four digits at least, as PHP's ``Y``: strftime's ``%Y`` gives "200" for the year 200."""
    # isoformat pads the year to four digits and adds a fraction or a zone only after these 19
    # characters; it is several times faster than formatting the six fields.
    return value.isoformat(sep)[:19]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_DAY_SHORT = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_DAY_LONG = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_LONG = tuple("January February March April May June July August September October November December".split())


def _zone_identifier(tz: tzinfo | None, dt: datetime) -> str:
    if isinstance(tz, zoneinfo.ZoneInfo):
        return tz.key or ""
    if isinstance(tz, FixedOffsetZone):
        return tz.name
    if isinstance(tz, timezone):
        offset = tz.utcoffset(None)
        return "UTC" if not offset else offset_name(int(offset.total_seconds()))
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
