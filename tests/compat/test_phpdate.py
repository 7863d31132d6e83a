"""Tests for ``calpress.compat.phpdate``: PHP ``date()`` formats; when ``php`` is on PATH they are
checked against PHP itself."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from calpress.calendar.dates import resolve_timezone
from calpress.compat.phpdate import format_php
from calpress.compat.strtotime import parse_datetime
from calpress.compat.timezones import timezone_abbr

PARIS = "Europe/Paris"
NEW_YORK = "America/New_York"
UTC_ZONE = "UTC"
SYDNEY = "Australia/Sydney"
KOLKATA = "Asia/Kolkata"

MOMENT = datetime(2026, 1, 5, 13, 3, 9, 123456, tzinfo=UTC).astimezone(ZoneInfo("Europe/Paris"))


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("Y-m-d H:i:s", "2026-01-05 14:03:09"),
        ("j n y", "5 1 26"),
        ("D l N w", "Mon Monday 1 1"),
        ("M F", "Jan January"),
        ("a A g G h H", "pm PM 2 14 02 14"),
        ("U", "1767618189"),
        ("e T P O p Z I", "Europe/Paris CET +01:00 +0100 +01:00 3600 0"),
        ("c", "2026-01-05T14:03:09+01:00"),
        ("r", "Mon, 05 Jan 2026 14:03:09 +0100"),
        ("u v", "123456 123"),
        ("z t L W o", "4 31 0 02 2026"),
        ("X x", "+2026 2026"),
        ("B", "585"),
        ("\\Y\\m\\d Y", "Ymd 2026"),
        ("jS \\o\\f F", "5th of January"),
        ("", ""),
    ],
)
def test_format_php(fmt, expected):
    assert format_php(MOMENT, fmt) == expected


@pytest.mark.parametrize(
    "day, suffix",
    [
        (1, "st"),
        (2, "nd"),
        (3, "rd"),
        (4, "th"),
        (11, "th"),
        (12, "th"),
        (13, "th"),
        (21, "st"),
        (22, "nd"),
        (23, "rd"),
        (31, "st"),
    ],
)
def test_format_php_day_suffix(day, suffix):
    assert format_php(datetime(2026, 1, day), "S") == suffix


def test_format_php_zones():
    summer = datetime(2026, 7, 1, 12, 0, tzinfo=ZoneInfo("Europe/Paris"))
    assert format_php(summer, "T I P") == "CEST 1 +02:00"
    assert format_php(datetime(2026, 7, 1, 12, 0, tzinfo=UTC), "e T P p") == "UTC UTC +00:00 Z"
    assert format_php(datetime(2026, 7, 1, 12, 0), "e T") == "UTC UTC"  # naive: UTC
    offset_zone, _ = resolve_timezone("UTC-3:30", None, None)
    assert format_php(datetime(2026, 7, 1, 12, 0, tzinfo=offset_zone), "e T O") == "UTC-3:30 UTC-3:30 -0330"
    assert format_php(datetime(2026, 7, 1, 12, 0, tzinfo=timezone(timedelta(hours=5))), "e T") == "+05:00 GMT+0500"


def test_format_php_date_details():
    # The calendar's *_date_details objects.
    start = parse_datetime("2017-01-05 14:23:36", ZoneInfo("America/New_York"))
    details = {
        key: format_php(start, char)
        for key, char in [("year", "Y"), ("month", "m"), ("day", "d"), ("hour", "H"), ("minutes", "i"), ("seconds", "s")]
    }
    assert details == {"year": "2017", "month": "01", "day": "05", "hour": "14", "minutes": "23", "seconds": "36"}
    assert timezone_abbr(start.tzinfo, start) == "EST"


# ---- the same, against PHP itself ---------------------------------------------------------------

PHP = shutil.which("php")
needs_php = pytest.mark.skipif(PHP is None, reason="php is not on PATH (Debian package php-cli); the PHP cross-check is skipped")

_PHP_FORMAT = r"""
while (($line = fgets(STDIN)) !== false) {
    [$zone, $seconds, $micro, $format] = json_decode($line, true);
    $moment = DateTime::createFromFormat("U.u", sprintf("%d.%06d", $seconds, $micro));
    $moment->setTimezone(new DateTimeZone($zone));
    echo json_encode($moment->format($format)), "\n";
}
"""


def _run_php(code: str, rows: list) -> list[str]:
    payload = "".join(json.dumps(row) + "\n" for row in rows)
    done = subprocess.run([PHP, "-r", code], input=payload, capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == len(rows), done.stderr
    return lines


@needs_php
def test_format_php_matches_php_date():
    fmt = "d D j l N S w z W F m M n t L o X x Y y a A B g G h H i s u v e I O P p T Z c r U \\Y\\-"
    rows = []
    for zone in [PARIS, NEW_YORK, UTC_ZONE, SYDNEY, KOLKATA, "America/Argentina/Buenos_Aires", "Pacific/Chatham"]:
        for seconds in [0, 1767618189, 1782900000, 1793511000, 951782400, 2000000000, -1000000000]:
            rows.append([zone, seconds, 123456, fmt])
    answers = _run_php(_PHP_FORMAT, rows)
    for (zone, seconds, micro, fmt), answer in zip(rows, answers):
        moment = datetime.fromtimestamp(seconds, UTC).replace(microsecond=micro).astimezone(ZoneInfo(zone))
        assert format_php(moment, fmt) == json.loads(answer), (zone, seconds)
