"""PHP's ``strtotime()`` / ``date_create()``: :func:`parse_datetime`.

The reference reads every date it is sent with ``strtotime()`` / ``date_create()``, in the
event's or the site's time zone. Clients rely on that: they send ISO strings, database datetimes
and natural language ("tomorrow 9am", "next monday", "first day of next month").
:func:`parse_datetime` parses a string as ``strtotime($text, $now)`` would with
``date_default_timezone_set($tz)``: a fast path takes the ISO forms, a scanner modelled on PHP's
(longest token wins, PHP's token classes and their effects; :mod:`.strtotime_scanner`, built on
:mod:`.strtotime_reader`) takes the rest, then this module resolves what it read against "now"
in PHP's order.

The regular expressions and tables are built once at import; the only state is the memo cache
of zone identifiers in :mod:`.timezones`, safe to share between threads.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from .strtotime_reader import (
    FIRST_DAY_OF,
    LAST_DAY_OF,
    SPECIAL_BUSINESS_DAYS,
    SPECIAL_LAST_WEEKDAY_OF_MONTH,
    SPECIAL_NTH_WEEKDAY_OF_MONTH,
    ParseError,
    State,
    civil_from_days,
    day_of_week,
    days_from_civil,
)
from .strtotime_scanner import scan
from .timezones import FixedOffsetZone, wall_to_utc

__all__ = ["parse_datetime"]


# --------------------------------------------------------------------------------------------
# Resolution: from what the string said, plus "now", to an instant
# --------------------------------------------------------------------------------------------


def _ctrunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _normalize(y: int, m: int, d: int, h: int, i: int, s: int, us: int) -> tuple[int, int, int, int, int, int, int]:
    """Carry overflowing fields upward, as PHP does ("2026-02-30" is March 2nd, "24:00" is midnight)."""
    carry, us = divmod(us, 1_000_000)
    carry, s = divmod(s + carry, 60)
    carry, i = divmod(i + carry, 60)
    carry, h = divmod(h + carry, 24)
    d += carry
    carry, m0 = divmod(m - 1, 12)
    y += carry
    y, m, d = civil_from_days(days_from_civil(y, m0 + 1, 1) + d - 1)
    return y, m, d, h, i, s, us


def _move_to_weekday(st: State, y: int, m: int, d: int) -> int:
    """The day of month after applying a weekday relative ("monday", "next friday", "sunday this week")."""
    dow = day_of_week(y, m, d)
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


def _add_business_days(st: State, y: int, m: int, d: int) -> int:
    """The day of month after "+N weekdays": Saturdays and Sundays are not counted."""
    count = st.special_amount
    dow = day_of_week(y, m, d)
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


def _resolve(st: State, now: datetime, tz: tzinfo) -> datetime:
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
        if st.special_type == SPECIAL_NTH_WEEKDAY_OF_MONTH:
            d = 1
            m += st.rel_m
            st.rel_m = 0
        elif st.special_type == SPECIAL_LAST_WEEKDAY_OF_MONTH:
            d = 1
            m += st.rel_m + 1
            st.rel_m = 0
    if st.first_last_day_of == FIRST_DAY_OF:
        d = 1
    elif st.first_last_day_of == LAST_DAY_OF:
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
    if st.first_last_day_of == FIRST_DAY_OF:
        d = 1
    elif st.first_last_day_of == LAST_DAY_OF:
        d = 0
        m += 1
    y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)

    if st.have_special_relative and st.special_type == SPECIAL_BUSINESS_DAYS:
        d = _add_business_days(st, y, m, d)
        y, m, d, h, i, s, us = _normalize(y, m, d, h, i, s, us)

    if not 1 <= y <= 9999:
        raise ParseError("year out of range")
    zone = st.zone
    if zone is None:
        return _localize(y, m, d, h, i, s, us, tz)
    wall = datetime(y, m, d, h, i, s, us)
    if zone.kind == "id":
        utc = wall_to_utc(wall, zone.tz, explicit=True)
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
    utc = wall_to_utc(datetime(y, m, d, h, i, s, us), tz, explicit=False)
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
        state = scan(text)
        if now is None:
            now = datetime.now(tz)
        elif now.tzinfo is None:
            now = now.replace(tzinfo=tz)
        else:
            now = now.astimezone(tz)
        return _resolve(state, now, tz)
    except (ParseError, OverflowError, ValueError):
        return None
