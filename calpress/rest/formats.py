"""The REST engine's own string formats: ``hex-color``, ``ip`` and ``date-time``.

These are the formats the reference's schema validation implements itself
(rest_parse_hex_color, rest_is_ip_address, rest_parse_date) rather than borrowing a WordPress
formatting function; those (``sanitize_text_field``, ``is_email``, ``esc_url_raw``, ``wp_is_uuid``,
...) live in :mod:`calpress.compat.formatting`. Where PHP's regular expressions show through
(ASCII-only character classes, ``$`` also matching before a final newline) the quirks are kept
on purpose and called out in comments.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

__all__ = [
    "is_hex_color",
    "is_ip",
    "is_rest_date",
    "parse_rest_date",
    "sanitize_hex_color",
]


# --------------------------------------------------------------------------- IP, colours

_IPV4 = re.compile(
    r"^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)$",
    re.ASCII,
)


def is_ip(s: Any) -> bool:
    """IPv4 dotted quad (leading zeros allowed, as the reference's regex) or an IPv6 address."""
    if not isinstance(s, str):
        return False
    if _IPV4.match(s):
        return True
    if "%" in s or "/" in s or not s.isascii():
        return False  # zone ids and prefixes are not addresses to the reference
    try:
        ipaddress.IPv6Address(s)
    except ValueError:
        return False
    return True


_HEX_COLOR = re.compile(r"^#([A-Fa-f0-9]{3}){1,2}$")


def is_hex_color(s: Any) -> bool:
    """``#rgb`` or ``#rrggbb`` (rest_parse_hex_color)."""
    return isinstance(s, str) and _HEX_COLOR.match(s) is not None


def sanitize_hex_color(s: Any) -> str | None:
    """``#rgb``/``#rrggbb`` unchanged, "" for "", None for anything else."""
    if s == "":
        return ""
    if isinstance(s, str) and _HEX_COLOR.match(s):
        return s
    return None


# --------------------------------------------------------------------------- dates

_REST_DATE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2})(?::(\d{2}))?)?$",
    re.ASCII,
)


def _date_parts(s: Any) -> tuple[int, ...] | None:
    """The numeric fields of an RFC 3339 date the reference accepts, or None.

    Returns (year, month, day, hour, minute, second, micro, has_tz, offset_seconds). Field
    ranges follow PHP's date parser: month 0-12 and day 0-31 (overflowing into neighbouring
    months), hour 0-24, minute 0-59, second 0-60.
    """
    if not isinstance(s, str):
        return None
    m = _REST_DATE.match(s)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if month > 12 or day > 31 or hour > 24 or minute > 59 or second > 60:
        return None
    frac = m.group(7) or ""
    micro = int((frac + "000000")[:6]) if frac else 0
    has_tz = 0
    offset = 0
    if m.group(8):
        has_tz = 1
    elif m.group(9):
        has_tz = 1
        oh = int(m.group(10))
        om = int(m.group(11) or 0)
        if oh > 24 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (-1 if m.group(9) == "-" else 1)
    return (year, month, day, hour, minute, second, micro, has_tz, offset)


def _build_datetime(parts: tuple[int, ...]) -> datetime | None:
    year, month, day, hour, minute, second, micro, has_tz, offset = parts
    # Normalise month 0 / day 0 / hour 24 / second 60 by overflow, as PHP does.
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    try:
        base = datetime(year, month, 1)
        value = base + timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second, microseconds=micro)
    except (ValueError, OverflowError):
        return None
    if has_tz:
        value = value.replace(tzinfo=timezone(timedelta(seconds=offset)))
    return value


def parse_rest_date(s: Any) -> datetime | None:
    """Parse ``YYYY-MM-DD[Tt ]HH:MM:SS[.frac][Z|±HH[:MM]]``.

    Returns an aware datetime when the string carries a zone, a naive one otherwise (the
    reference then reads it in the site's zone), and None when the string is not such a date
    or falls outside Python's datetime range (years 1-9999).
    """
    parts = _date_parts(s)
    if parts is None:
        return None
    return _build_datetime(parts)


def is_rest_date(s: Any) -> bool:
    """Whether the ``date-time`` format accepts ``s``.

    Compatibility quirk: the reference tests the parsed Unix timestamp for truthiness, so the
    instant 1970-01-01T00:00:00 UTC (timestamp 0, fraction ignored) is rejected. A date without
    zone is read as UTC here (the reference's PHP default zone).
    """
    parts = _date_parts(s)
    if parts is None:
        return False
    value = _build_datetime(parts)
    if value is None:
        return True  # year 0 or past 9999: PHP still yields a non-zero timestamp
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp()) != 0
