"""The calendar's time zone names, built on PHP's (:mod:`calpress.compat.timezones`).

An event's zone, or the site's, may be anything PHP's ``DateTimeZone`` accepts (IANA names,
abbreviations, offsets) plus the calendar's own ``UTC+5`` / ``UTC-3:30`` / ``UTC+5.5`` forms, and
falls back to the CMS ``timezone_string`` and ``gmt_offset`` options: :func:`is_valid_timezone`
and :func:`resolve_timezone` apply those rules. Parsing and printing dates the PHP way is
:mod:`calpress.compat.strtotime` (``strtotime()``), :mod:`calpress.compat.phpdate` (``date()``)
and :func:`calpress.compat.timezones.timezone_abbr`.
"""

from __future__ import annotations

import functools
import math
import re
from datetime import tzinfo

from ..compat.timezones import FixedOffsetZone, php_timezone

__all__ = [
    "is_valid_timezone",
    "resolve_timezone",
]

# The calendar's own offset names: "UTC+5", "UTC-3:30", "UTC+5.5", "UTC+05:45".
_UTC_OFFSET_NAME = re.compile(r"UTC([+-])([0-9]{1,2})(?::([0-5][0-9])|\.([0-9]{1,4}))?", re.ASCII)


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
    return php_timezone(name)


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
