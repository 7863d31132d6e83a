"""Tests for ``calpress.compat.strtotime``: dates parsed as PHP's ``strtotime()`` parses them.

``TABLE`` is the contract for :func:`parse_datetime`: input, "now", default zone and the result
(``None`` where PHP's ``strtotime`` returns false). Every row was checked against PHP 8.2's
``strtotime``; when ``php`` is on PATH the table and 200 generated strings are checked against it
again.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from calpress.calendar.dates import resolve_timezone
from calpress.compat import strtotime
from calpress.compat.strtotime import parse_datetime
from calpress.compat.strtotime_scanner import scan

NOW = "2026-05-14T15:42:17Z"  # a Thursday: 17:42 in Paris, 11:42 in New York, 01:42 on Friday in Sydney
PARIS = "Europe/Paris"
NEW_YORK = "America/New_York"
UTC_ZONE = "UTC"
SYDNEY = "Australia/Sydney"
KOLKATA = "Asia/Kolkata"

# (input, now, default zone, result in that zone or None)
TABLE = [
    # ISO and database forms (the fast path)
    ("2026-05-14", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("2026-05-14 10:00", NOW, PARIS, "2026-05-14 10:00:00+02:00"),
    ("2026-05-14 10:00:30", NOW, NEW_YORK, "2026-05-14 10:00:30-04:00"),
    ("2026-05-14T10:00:00", NOW, NEW_YORK, "2026-05-14 10:00:00-04:00"),
    ("2026-05-14T10:00:00Z", NOW, NEW_YORK, "2026-05-14 06:00:00-04:00"),
    ("2026-05-14T10:00:00.250Z", NOW, UTC_ZONE, "2026-05-14 10:00:00.250000+00:00"),
    ("2026-05-14T10:00:00+02:00", NOW, UTC_ZONE, "2026-05-14 08:00:00+00:00"),
    ("2026-05-14T10:00:00-0530", NOW, UTC_ZONE, "2026-05-14 15:30:00+00:00"),
    ("2026-05-14 10:00:00+05", NOW, UTC_ZONE, "2026-05-14 05:00:00+00:00"),
    ("2026-05-14T10:00", NOW, SYDNEY, "2026-05-14 10:00:00+10:00"),
    ("2026-05-14 10:00:00.123456", NOW, PARIS, "2026-05-14 10:00:00.123456+02:00"),
    ("  2026-05-14  ", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("2026-05-14T10:00:00.5-03:00", NOW, KOLKATA, "2026-05-14 18:30:00.500000+05:30"),
    # overflow, PHP style
    ("2026-02-30", NOW, PARIS, "2026-03-02 00:00:00+01:00"),
    ("2026-04-31 12:00", NOW, PARIS, "2026-05-01 12:00:00+02:00"),
    ("2026-05-14 24:00", NOW, PARIS, "2026-05-15 00:00:00+02:00"),
    ("2026-12-31 24:00:00", NOW, UTC_ZONE, "2027-01-01 00:00:00+00:00"),
    ("2026-05-14 23:59:60", NOW, UTC_ZONE, "2026-05-15 00:00:00+00:00"),
    ("2026-00-10", NOW, UTC_ZONE, "2025-12-10 00:00:00+00:00"),
    ("2026-01-00", NOW, UTC_ZONE, "2025-12-31 00:00:00+00:00"),
    # other numeric dates
    ("20260514", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("2026/05/14", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("2026-5-4", NOW, PARIS, "2026-05-04 00:00:00+02:00"),
    ("26-05-14", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("2026-05", NOW, PARIS, "2026-05-01 00:00:00+02:00"),
    ("2026-W20-4", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("2026W20", NOW, PARIS, "2026-05-11 00:00:00+02:00"),
    ("2026.134", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("20260514T101500", NOW, PARIS, "2026-05-14 10:15:00+02:00"),
    ("2026:05:14 10:15:00", NOW, PARIS, "2026-05-14 10:15:00+02:00"),
    # relative words
    ("now", NOW, PARIS, "2026-05-14 17:42:17+02:00"),
    ("today", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("midnight", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("noon", NOW, PARIS, "2026-05-14 12:00:00+02:00"),
    ("tomorrow", NOW, PARIS, "2026-05-15 00:00:00+02:00"),
    ("yesterday", NOW, PARIS, "2026-05-13 00:00:00+02:00"),
    ("+1 day", NOW, PARIS, "2026-05-15 17:42:17+02:00"),
    ("-2 days", NOW, PARIS, "2026-05-12 17:42:17+02:00"),
    ("+1 week", NOW, PARIS, "2026-05-21 17:42:17+02:00"),
    ("+1 week 2 days", NOW, PARIS, "2026-05-23 17:42:17+02:00"),
    ("+2 hours 30 minutes", NOW, NEW_YORK, "2026-05-14 14:12:17-04:00"),
    ("3 days ago", NOW, PARIS, "2026-05-11 17:42:17+02:00"),
    ("-1 week ago", NOW, PARIS, "2026-05-21 17:42:17+02:00"),
    ("+1 month", "2026-01-31T12:00:00Z", PARIS, "2026-03-03 13:00:00+01:00"),
    ("+1 year", "2028-02-29T12:00:00Z", UTC_ZONE, "2029-03-01 12:00:00+00:00"),
    ("next monday", NOW, PARIS, "2026-05-18 00:00:00+02:00"),
    ("last friday", NOW, PARIS, "2026-05-08 00:00:00+02:00"),
    ("this sunday", NOW, PARIS, "2026-05-17 00:00:00+02:00"),
    ("this thursday", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("next thursday", NOW, PARIS, "2026-05-21 00:00:00+02:00"),
    ("monday", NOW, PARIS, "2026-05-18 00:00:00+02:00"),
    ("thursday", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("monday next week", NOW, PARIS, "2026-05-18 00:00:00+02:00"),
    ("sunday this week", NOW, PARIS, "2026-05-17 00:00:00+02:00"),
    ("friday last week", NOW, PARIS, "2026-05-08 00:00:00+02:00"),
    ("next week", NOW, PARIS, "2026-05-18 17:42:17+02:00"),  # Monday of next week, time kept
    ("next month", NOW, PARIS, "2026-06-14 17:42:17+02:00"),
    ("last year", NOW, PARIS, "2025-05-14 17:42:17+02:00"),
    ("+2 fortnights", NOW, UTC_ZONE, "2026-06-11 15:42:17+00:00"),
    ("first day of next month", NOW, PARIS, "2026-06-01 17:42:17+02:00"),  # time kept
    ("last day of this month", NOW, PARIS, "2026-05-31 17:42:17+02:00"),
    ("last day of february 2028", NOW, PARIS, "2028-02-29 00:00:00+01:00"),
    ("first day of january 2027", NOW, PARIS, "2027-01-01 00:00:00+01:00"),
    ("first monday of january 2027", NOW, PARIS, "2027-01-04 00:00:00+01:00"),
    ("last friday of next month", NOW, PARIS, "2026-06-26 00:00:00+02:00"),
    ("second tuesday of march 2026", NOW, PARIS, "2026-03-10 00:00:00+01:00"),
    ("first day of", NOW, PARIS, "2026-05-01 17:42:17+02:00"),
    ("tomorrow 5pm", NOW, PARIS, "2026-05-15 17:00:00+02:00"),
    ("tomorrow 9am", NOW, SYDNEY, "2026-05-16 09:00:00+10:00"),
    ("5pm", NOW, PARIS, "2026-05-14 17:00:00+02:00"),
    ("5 pm", NOW, PARIS, "2026-05-14 17:00:00+02:00"),
    ("5:30pm", NOW, NEW_YORK, "2026-05-14 17:30:00-04:00"),
    ("5:30 P.M.", NOW, NEW_YORK, "2026-05-14 17:30:00-04:00"),
    ("12am", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("12pm", NOW, PARIS, "2026-05-14 12:00:00+02:00"),
    ("17:30", NOW, PARIS, "2026-05-14 17:30:00+02:00"),
    ("17:30:15", NOW, PARIS, "2026-05-14 17:30:15+02:00"),
    ("noon tomorrow", NOW, PARIS, "2026-05-15 00:00:00+02:00"),  # "tomorrow" resets the time set before it
    ("tomorrow noon", NOW, PARIS, "2026-05-15 12:00:00+02:00"),
    ("midnight tomorrow", NOW, PARIS, "2026-05-15 00:00:00+02:00"),
    ("yesterday 23:59", NOW, PARIS, "2026-05-13 23:59:00+02:00"),
    ("next wednesday 4pm", NOW, NEW_YORK, "2026-05-20 16:00:00-04:00"),
    ("+5 days 11am", NOW, NEW_YORK, "2026-05-19 11:00:00-04:00"),
    ("+2 weekdays", NOW, PARIS, "2026-05-18 17:42:17+02:00"),
    ("back of 7pm", NOW, PARIS, "2026-05-14 19:15:00+02:00"),
    ("2018-01-01 4pm", NOW, NEW_YORK, "2018-01-01 16:00:00-05:00"),
    ("@1790000000", NOW, PARIS, "2026-09-21 16:13:20+02:00"),
    ("@0", NOW, NEW_YORK, "1969-12-31 19:00:00-05:00"),
    ("@-86400", NOW, UTC_ZONE, "1969-12-31 00:00:00+00:00"),
    ("@1790000000.5", NOW, UTC_ZONE, "2026-09-21 14:13:20.500000+00:00"),
    # month names, ordinals
    ("January 5 2027", NOW, PARIS, "2027-01-05 00:00:00+01:00"),
    ("5 Jan 2027", NOW, PARIS, "2027-01-05 00:00:00+01:00"),
    ("Jan 5, 2027 3:00 PM", NOW, NEW_YORK, "2027-01-05 15:00:00-05:00"),
    ("January 5th, 2027", NOW, PARIS, "2027-01-05 00:00:00+01:00"),
    ("1st January 2027", NOW, PARIS, "2027-01-01 00:00:00+01:00"),
    ("March 2nd", NOW, PARIS, "2026-03-02 00:00:00+01:00"),
    ("Dec 25", NOW, PARIS, "2026-12-25 00:00:00+01:00"),
    ("May 2027", NOW, PARIS, "2027-05-01 00:00:00+02:00"),
    ("2027 May", NOW, PARIS, "2027-05-01 00:00:00+02:00"),
    ("Sept 1 2026 10:00", NOW, PARIS, "2026-09-01 10:00:00+02:00"),
    ("Jan 5 10:00pm", NOW, PARIS, "2026-01-05 22:00:00+01:00"),
    ("Jan 5 10:00:00 CET", NOW, NEW_YORK, "2026-01-05 04:00:00-05:00"),
    ("5-Jan-2027", NOW, PARIS, "2027-01-05 00:00:00+01:00"),
    ("Jan-05-2027", NOW, PARIS, "2027-01-05 00:00:00+01:00"),
    ("2027-Jan-05", NOW, PARIS, "2027-01-05 00:00:00+01:00"),
    ("5 IV 2027", NOW, PARIS, "2027-04-05 00:00:00+02:00"),
    ("January", NOW, PARIS, "2026-01-14 00:00:00+01:00"),
    ("22nd Feb 2026 8:15 am", NOW, UTC_ZONE, "2026-02-22 08:15:00+00:00"),
    # US m/d/Y, European d-m-Y and d.m.Y
    ("05/14/2026", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("5/4/26", NOW, PARIS, "2026-05-04 00:00:00+02:00"),
    ("12/25", NOW, PARIS, "2026-12-25 00:00:00+01:00"),
    ("14-05-2026", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("14.05.2026", NOW, PARIS, "2026-05-14 00:00:00+02:00"),
    ("14.05.26", NOW, PARIS, "2026-05-14 14:05:26+02:00"),  # read as a time, 14:05:26
    ("4/5/2026 3:45pm", NOW, NEW_YORK, "2026-04-05 15:45:00-04:00"),
    ("14.05.2026 18:30", NOW, PARIS, "2026-05-14 18:30:00+02:00"),
    # weekday names before a date
    ("Thursday, May 14 2026 10am", NOW, PARIS, "2026-05-14 10:00:00+02:00"),
    ("Sat 2026-05-16", NOW, PARIS, "2026-05-16 00:00:00+02:00"),
    ("Fri 2026-05-16", NOW, PARIS, "2026-05-22 00:00:00+02:00"),  # the 16th is a Saturday: on to Friday
    ("Monday, 18 May 2026 9:00", NOW, PARIS, "2026-05-18 09:00:00+02:00"),
    # zones inside the string
    ("2026-07-01 12:00 UTC", NOW, PARIS, "2026-07-01 14:00:00+02:00"),
    ("2026-07-01 12:00 GMT", NOW, NEW_YORK, "2026-07-01 08:00:00-04:00"),
    ("2026-07-01 12:00 EST", NOW, PARIS, "2026-07-01 19:00:00+02:00"),
    ("2026-07-01 12:00 EDT", NOW, PARIS, "2026-07-01 18:00:00+02:00"),
    ("2026-01-15 12:00 CEST", NOW, UTC_ZONE, "2026-01-15 10:00:00+00:00"),
    ("2026-07-01 12:00 Europe/Paris", NOW, NEW_YORK, "2026-07-01 06:00:00-04:00"),
    ("2026-07-01 12:00 America/New_York", NOW, UTC_ZONE, "2026-07-01 16:00:00+00:00"),
    ("2026-07-01 12:00 +0530", NOW, UTC_ZONE, "2026-07-01 06:30:00+00:00"),
    ("2026-07-01 12:00 GMT+2", NOW, UTC_ZONE, "2026-07-01 10:00:00+00:00"),
    ("2026-07-01 12:00 (CET)", NOW, UTC_ZONE, "2026-07-01 11:00:00+00:00"),
    ("tomorrow 9am Asia/Tokyo", NOW, PARIS, "2026-05-15 02:00:00+02:00"),
    ("2026-07-01 12:00 Z", NOW, NEW_YORK, "2026-07-01 08:00:00-04:00"),
    ("2026-07-01 12:00 PST", NOW, UTC_ZONE, "2026-07-01 20:00:00+00:00"),
    ("2026-07-01 12:00 IST", NOW, UTC_ZONE, "2026-07-01 10:00:00+00:00"),  # IST is Israel for PHP
    ("2026-07-01 12:00 UTC GMT", NOW, PARIS, "2026-07-01 14:00:00+02:00"),  # a second zone is ignored
    # daylight saving time: gaps move forward, repeated hours as PHP picks them
    ("2026-03-29 02:30", NOW, PARIS, "2026-03-29 03:30:00+02:00"),  # in the gap: moved forward
    ("2026-10-25 02:30", NOW, PARIS, "2026-10-25 02:30:00+01:00"),  # repeated hour, east: the second
    ("2026-10-25 02:30 Europe/Paris", NOW, UTC_ZONE, "2026-10-25 00:30:00+00:00"),  # zone in the string: the first
    ("2026-03-08 02:30", NOW, NEW_YORK, "2026-03-08 03:30:00-04:00"),
    ("2026-11-01 01:30", NOW, NEW_YORK, "2026-11-01 01:30:00-04:00"),  # repeated hour, west: the first
    ("2026-11-01 01:30 EST", NOW, NEW_YORK, "2026-11-01 01:30:00-05:00"),
    ("2026-04-05 02:30", NOW, SYDNEY, "2026-04-05 02:30:00+10:00"),
    ("2026-10-04 02:30", NOW, SYDNEY, "2026-10-04 03:30:00+11:00"),
    ("+1 hour", "2026-11-01T05:30:00Z", NEW_YORK, "2026-11-01 02:30:00-05:00"),
    ("now", "2026-11-01T06:30:00Z", NEW_YORK, "2026-11-01 01:30:00-04:00"),  # 01:30 EST is read back as EDT
    ("tomorrow", "2026-03-28T12:00:00Z", PARIS, "2026-03-29 00:00:00+01:00"),
    # PHP quirks kept
    ("2026", NOW, PARIS, "2026-05-14 20:26:00+02:00"),  # four digits alone are a time
    ("10:00 2026", NOW, PARIS, "2026-05-14 10:00:00+02:00"),  # ... or a year after a time
    ("1960", NOW, PARIS, "1960-05-14 17:42:17+01:00"),
    ("weekday", NOW, PARIS, "2026-05-18 00:00:00+02:00"),  # PHP reads it as Monday
    ("front of 12pm", NOW, PARIS, "2026-05-14 23:45:00+02:00"),
    # not dates
    ("", NOW, PARIS, None),
    ("garbage", NOW, PARIS, None),
    ("2026-13-01", NOW, PARIS, None),
    ("not a strtotime parsable string", NOW, PARIS, None),
    ("before my birthday", NOW, PARIS, None),
    ("next", NOW, PARIS, None),
    ("foo 2026-05-14", NOW, PARIS, None),
    ("2026-05-14 10:00 Foo/Bar", NOW, PARIS, None),
    ("10:00 11:00", NOW, PARIS, None),
    ("2026-05-14 2026-05-15", NOW, PARIS, None),
    ("@123.", NOW, PARIS, None),
    ("Jan 5 10.30.15", NOW, PARIS, None),  # dotted seconds after a short date
    ("UTC UTC UTC", NOW, PARIS, None),  # a third is an error
    ("europe/paris", NOW, PARIS, None),  # zone names need a capital inside strings
    ("5pm, tomorrow", NOW, PARIS, None),  # "5pm" needs a space or the end after it
    ("2026-05-14 25:00", NOW, PARIS, None),
    ("31/12/2026", NOW, PARIS, None),
    ("tomorrow at 5pm", NOW, PARIS, None),
]

# Where calpress deliberately differs from PHP 8.2; not sent to php.
DIFFERENCES = [
    # PHP 8.2 reads a string of only white space as "now" (later PHP versions reject it).
    ("   ", NOW, PARIS, None),
    # Beyond year 9999 PHP still returns a number; Python datetimes end there.
    ("+8000 years", NOW, UTC_ZONE, None),
    ("@253402300800", NOW, UTC_ZONE, None),
    ("20001025 sat", NOW, UTC_ZONE, None),  # 20,001,025 Saturdays from now
]


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _rows_with_ids(rows):
    return [pytest.param(*row, id=f"{index:03d}:{row[0]!r}@{row[2]}") for index, row in enumerate(rows)]


def test_table_is_large_enough():
    assert len(TABLE) >= 120


@pytest.mark.parametrize("text, now, zone, expected", _rows_with_ids(TABLE + DIFFERENCES))
def test_parse_table(text, now, zone, expected):
    result = parse_datetime(text, ZoneInfo(zone), _instant(now))
    if expected is None:
        assert result is None
    else:
        assert result is not None, f"{text!r} did not parse"
        assert result.isoformat(sep=" ") == expected
        assert result.tzinfo is ZoneInfo(zone)


def test_default_now_is_the_current_time():
    before = datetime.now(UTC)
    result = parse_datetime("now", ZoneInfo(PARIS))
    after = datetime.now(UTC)
    assert before <= result <= after
    assert result.tzinfo is ZoneInfo(PARIS)


def test_naive_now_is_wall_time_in_the_zone():
    result = parse_datetime("+1 hour", ZoneInfo(NEW_YORK), datetime(2026, 5, 14, 9, 0))
    assert result.isoformat() == "2026-05-14T10:00:00-04:00"


def test_microseconds_follow_date_create():
    now = datetime(2026, 5, 14, 15, 42, 17, 250000, tzinfo=UTC)
    # Nothing fixed: the microseconds of "now" stay.
    assert parse_datetime("now", ZoneInfo(UTC_ZONE), now).microsecond == 250000
    assert parse_datetime("+1 day", ZoneInfo(UTC_ZONE), now).microsecond == 250000
    # A date or time field given: they start from zero.
    assert parse_datetime("tomorrow", ZoneInfo(UTC_ZONE), now).microsecond == 0
    assert parse_datetime("10:00", ZoneInfo(UTC_ZONE), now).microsecond == 0


def test_fixed_offset_default_zones():
    zone, _ = resolve_timezone("UTC+5.5", None, None)
    result = parse_datetime("2026-05-14 10:00", zone)
    assert result.isoformat() == "2026-05-14T10:00:00+05:30"
    assert result.tzinfo is zone
    result = parse_datetime("tomorrow 9am", timezone(timedelta(hours=-3)), _instant(NOW))
    assert result.isoformat() == "2026-05-15T09:00:00-03:00"


ISO_SAMPLES = [
    "2026-05-14",
    "2026-05-14 10:00",
    "2026-05-14 10:00:30",
    "2026-05-14T10:00:00",
    "2026-05-14T10:00:00Z",
    "2026-05-14T10:00:00.250Z",
    "2026-05-14T10:00:00+02:00",
    "2026-05-14T10:00:00-0530",
    "2026-05-14 10:00:00+05",
    "2026-02-30",
    "2026-05-14 24:00",
    "2026-12-31 24:00:00",
    "2026-05-14 23:59:60",
    "2026-03-29 02:30",
    "2026-10-25 02:30",
    "2026-11-01 01:30",
    "2026-05-14Z",
    "2026-05-14+02:00",
    "2026-05-14T10:00Z",
    "2026-05-14 10:00:00.1234567",
    "9999-12-31 23:59:59",
]


@pytest.mark.parametrize("text", ISO_SAMPLES)
@pytest.mark.parametrize("zone", [PARIS, NEW_YORK, SYDNEY])
def test_fast_path_agrees_with_the_scanner(text, zone):
    tz = ZoneInfo(zone)
    assert strtotime._FAST.fullmatch(text)
    fast = parse_datetime(text, tz, _instant(NOW))
    scanned = strtotime._resolve(scan(text), _instant(NOW).astimezone(tz), tz)
    assert fast == scanned and fast.utcoffset() == scanned.utcoffset()


# ---- the same, against PHP itself ---------------------------------------------------------------

PHP = shutil.which("php")
needs_php = pytest.mark.skipif(PHP is None, reason="php is not on PATH (Debian package php-cli); the PHP cross-check is skipped")

_PHP_STRTOTIME = r"""
while (($line = fgets(STDIN)) !== false) {
    [$zone, $now, $text] = json_decode($line, true);
    date_default_timezone_set($zone);
    $result = strtotime($text, $now);
    echo $result === false ? "false" : $result, "\n";
}
"""


def _run_php(code: str, rows: list) -> list[str]:
    payload = "".join(json.dumps(row) + "\n" for row in rows)
    done = subprocess.run([PHP, "-r", code], input=payload, capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == len(rows), done.stderr
    return lines


_FIRST_SECOND = -62135596800  # 0001-01-01T00:00:00Z
_LAST_SECOND = 253402300799  # 9999-12-31T23:59:59Z


def _expected_from_php(answer: str) -> int | None:
    if answer == "false":
        return None
    value = int(answer)
    # PHP counts on past year 9999; calpress returns None there (see DIFFERENCES).
    return value if _FIRST_SECOND <= value <= _LAST_SECOND else None


_ZONES = [PARIS, NEW_YORK, UTC_ZONE, SYDNEY, KOLKATA, "Europe/London", "America/Los_Angeles", "Asia/Tokyo", "America/Sao_Paulo"]
_BASES = [
    1778773337,  # 2026-05-14 15:42:17 UTC
    1793511000,  # 2026-11-01 06:30 UTC, New York's repeated hour
    1774747800,  # 2026-03-29 01:30 UTC, Paris springs forward
    1792888200,  # 2026-10-25 00:30 UTC, Paris falls back
    1767225599,  # 2025-12-31 23:59:59 UTC
]
_MONTHS = ["January", "february", "MARCH", "Apr", "may", "Jun", "July", "aug", "Sept", "Oct", "november", "Dec"]
_DAYS = ["monday", "Tue", "wednesday", "thu", "Friday", "sat", "SUNDAY"]
_UNITS = ["day", "days", "week", "weeks", "month", "months", "year", "hour", "hours", "minutes", "sec", "fortnight", "weekdays"]


def _generated_strings(count: int, seed: int = 20260514) -> list[tuple[str, int, str]]:
    """Strings in the forms clients send, with zones and "now"s that stress the rules."""
    rng = random.Random(seed)
    pick = rng.choice

    def two(low, high):
        return f"{rng.randint(low, high):02d}"

    def date_part():
        year = str(rng.randint(1990, 2035))
        return pick(
            [
                lambda: f"{year}-{two(1, 12)}-{two(1, 31)}",
                lambda: f"{rng.randint(1, 12)}/{rng.randint(1, 31)}/{year}",
                lambda: f"{two(1, 31)}-{two(1, 12)}-{year}",
                lambda: f"{two(1, 31)}.{two(1, 12)}.{year}",
                lambda: f"{pick(_MONTHS)} {rng.randint(1, 31)} {year}",
                lambda: f"{rng.randint(1, 31)} {pick(_MONTHS)} {year}",
                lambda: f"{pick(_MONTHS)} {rng.randint(1, 28)}, {year}",
                lambda: f"{pick(_MONTHS)} {rng.randint(1, 28)}{pick(['st', 'nd', 'rd', 'th'])}",
                lambda: f"{rng.randint(1, 28)}{pick(['st', 'nd', 'rd', 'th'])} {pick(_MONTHS)} {year}",
                lambda: f"{pick(_MONTHS)} {year}",
                lambda: f"{pick(_DAYS)}, {pick(_MONTHS)} {rng.randint(1, 28)} {year}",
                lambda: f"{year}-{two(0, 13)}-{two(0, 32)}",
            ]
        )()

    def time_part():
        return pick(
            [
                lambda: f"{two(0, 23)}:{two(0, 59)}",
                lambda: f"{two(0, 24)}:{two(0, 59)}:{two(0, 59)}",
                lambda: f"{rng.randint(1, 12)}{pick(['am', 'pm', 'AM', ' pm', ' PM', 'p.m.'])}",
                lambda: f"{rng.randint(1, 12)}:{two(0, 59)} {pick(['am', 'pm', 'AM', 'PM'])}",
                lambda: pick(["noon", "midnight", "24:00", "12am", "12pm"]),
                lambda: f"{two(0, 23)}:{two(0, 59)}:{two(0, 59)}.{rng.randint(0, 999999)}",
            ]
        )()

    def relative_part():
        return pick(
            [
                lambda: f"{pick(['+', '-', ''])}{rng.randint(1, 30)} {pick(_UNITS)}",
                lambda: f"+{rng.randint(1, 5)} {pick(_UNITS)} {rng.randint(1, 5)} {pick(_UNITS)}",
                lambda: f"{pick(['next', 'last', 'this', 'previous'])} {pick(_DAYS)}",
                lambda: f"{pick(['next', 'last', 'this'])} {pick(['week', 'month', 'year'])}",
                lambda: f"{pick(_DAYS)} {pick(['next', 'last', 'this'])} week",
                lambda: (
                    f"{pick(['first', 'last'])} day of {pick(['next month', 'this month', 'last month', pick(_MONTHS) + ' 2027'])}"
                ),
                lambda: (
                    f"{pick(['first', 'second', 'third', 'last'])} {pick(_DAYS)} of {pick(['next month', pick(_MONTHS) + ' 2027'])}"
                ),
                lambda: pick(["now", "today", "tomorrow", "yesterday", "midnight", "noon"]),
                lambda: f"{rng.randint(1, 10)} {pick(_UNITS)} ago",
                lambda: f"@{rng.randint(0, 4000000000)}",
                lambda: pick(_DAYS),
            ]
        )()

    def zone_part():
        return pick(
            [
                "UTC",
                "GMT",
                "EST",
                "EDT",
                "CET",
                "CEST",
                "PST",
                "Z",
                "Europe/Paris",
                "America/New_York",
                "+02:00",
                "-0500",
                "+5",
                "GMT+2",
                "Asia/Tokyo",
            ]
        )

    def one():
        return pick(
            [
                date_part,
                lambda: f"{date_part()} {time_part()}",
                lambda: f"{date_part()} {time_part()} {zone_part()}",
                relative_part,
                lambda: f"{relative_part()} {time_part()}",
                lambda: f"{time_part()} {relative_part()}",
                lambda: f"{date_part()} {relative_part()}",
                time_part,
                lambda: f"{pick(_DAYS)} {date_part()}",
                lambda: (
                    f"{date_part()}T{two(0, 23)}:{two(0, 59)}:{two(0, 59)}{pick(['', 'Z', '+02:00', '-05:30', '.123Z', '+0530'])}"
                ),
                lambda: (
                    "".join(pick("abcdefghijklmnopqrstuvwxyz0123456789 -+:/.,@") for _ in range(rng.randint(1, 10))).strip()
                    or "x"
                ),
            ]
        )()

    return [(one(), pick(_BASES), pick(_ZONES)) for _ in range(count)]


@needs_php
def test_table_and_generated_strings_match_php_strtotime():
    rows = [(text, int(_instant(now).timestamp()), zone) for text, now, zone, _ in TABLE]
    rows += _generated_strings(200)
    answers = _run_php(_PHP_STRTOTIME, [[zone, now, text] for text, now, zone in rows])
    mismatches = []
    for (text, now, zone), answer in zip(rows, answers):
        result = parse_datetime(text, ZoneInfo(zone), datetime.fromtimestamp(now, UTC))
        ours = None if result is None else math.floor(result.timestamp())
        if ours != _expected_from_php(answer):
            mismatches.append(f"{text!r} in {zone} at {now}: php {answer}, calpress {ours}")
    assert not mismatches, "\n".join(mismatches)
