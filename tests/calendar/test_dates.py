"""Tests for ``calpress.calendar.dates``: the calendar's time zone names (PHP's ``DateTimeZone``
names plus its own ``UTC+5`` forms and the site options); when ``php`` is on PATH the names are
checked against ``DateTimeZone`` itself."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from calpress.calendar.dates import is_valid_timezone, resolve_timezone
from calpress.compat.timezones import FixedOffsetZone


@pytest.mark.parametrize(
    "name, valid",
    [
        ("Europe/Rome", True),
        ("europe/rome", True),
        (" Europe/Rome ", True),
        ("America/Argentina/Buenos_Aires", True),
        ("UTC", True),
        ("utc", True),
        ("GMT", True),
        ("Etc/GMT+5", True),
        ("UTC+2", True),
        ("UTC-3:30", True),
        ("UTC+5.5", True),
        ("UTC+5.75", True),
        ("UTC+0", True),
        ("UTC-12", True),
        ("UTC+14", True),
        ("EST", True),
        ("cest", True),
        ("+05:00", True),
        ("-0330", True),
        ("GMT+5", True),
        ("Z", True),
        ("", False),
        ("   ", False),
        ("Foo/Bar", False),
        ("UTC+", False),
        ("UTC+abc", False),
        ("UTC+15", False),
        ("utc+2", False),
        ("UTC+2 hours", False),
        ("Europe/Rome!", False),
        ("Berlin", False),
        # PHP takes offsets up to 99 hours; Python zones stop short of 24.
        ("+25:00", False),
    ],
)
def test_is_valid_timezone(name, valid):
    assert is_valid_timezone(name) is valid


def test_is_valid_timezone_rejects_non_strings():
    assert is_valid_timezone(None) is False  # type: ignore[arg-type]
    assert is_valid_timezone(5) is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name, site_tz, gmt_offset, canonical, offset_in_july",
    [
        ("Europe/Rome", None, None, "Europe/Rome", 7200),
        ("europe/rome", "America/New_York", 3, "Europe/Rome", 7200),
        (None, "America/New_York", 0, "America/New_York", -14400),
        ("", "America/New_York", 0, "America/New_York", -14400),
        (None, "", 5.5, "UTC+5.5", 19800),
        (None, None, "5.75", "UTC+5.75", 20700),
        (None, None, "-3.5", "UTC-3.5", -12600),
        (None, None, -5, "UTC-5", -18000),
        (None, None, 10.0, "UTC+10", 36000),
        (None, None, 0, "UTC+0", 0),
        (None, None, None, "UTC+0", 0),
        (None, None, "", "UTC+0", 0),
        (None, "Bogus/Zone", 2, "UTC+2", 7200),
        ("UTC", None, 3, "UTC", 0),
        ("UTC+2", None, None, "UTC+2", 7200),
        ("UTC-3:30", None, None, "UTC-3:30", -12600),
        ("UTC+5.5", None, None, "UTC+5.5", 19800),
        ("UTC+0", None, None, "UTC+0", 0),
        ("EST", None, None, "EST", -18000),
        ("CEST", None, None, "CEST", 7200),
        ("+05:00", None, None, "+05:00", 18000),
        ("-0330", None, None, "-03:30", -12600),
    ],
)
def test_resolve_timezone(name, site_tz, gmt_offset, canonical, offset_in_july):
    zone, label = resolve_timezone(name, site_tz, gmt_offset)
    assert label == canonical
    july = datetime(2026, 7, 1, 12, 0, tzinfo=UTC).astimezone(zone)
    assert july.utcoffset() == timedelta(seconds=offset_in_july)


def test_resolve_timezone_returns_zoneinfo_for_iana_names():
    zone, _ = resolve_timezone("America/New_York", None, None)
    assert zone is ZoneInfo("America/New_York")
    zone, _ = resolve_timezone(None, None, 2)
    assert isinstance(zone, FixedOffsetZone) and zone.kind == "utc" and zone.offset_seconds == 7200


def test_resolve_timezone_rejects_an_invalid_event_zone():
    with pytest.raises(ValueError):
        resolve_timezone("Foo/Bar", "Europe/Paris", 0)


# ---- the same, against PHP itself ---------------------------------------------------------------

PHP = shutil.which("php")
needs_php = pytest.mark.skipif(PHP is None, reason="php is not on PATH (Debian package php-cli); the PHP cross-check is skipped")

_PHP_ZONE_VALID = r"""
while (($line = fgets(STDIN)) !== false) {
    try { new DateTimeZone(json_decode($line)); echo "1\n"; } catch (Exception $e) { echo "0\n"; }
}
"""


def _run_php(code: str, rows: list) -> list[str]:
    payload = "".join(json.dumps(row) + "\n" for row in rows)
    done = subprocess.run([PHP, "-r", code], input=payload, capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == len(rows), done.stderr
    return lines


@needs_php
def test_is_valid_timezone_matches_php_datetimezone():
    # The calendar's own UTC+5 names are not PHP zones; everything else follows DateTimeZone.
    names = [
        "Europe/Rome",
        "europe/rome",
        "America/Argentina/Buenos_Aires",
        "UTC",
        "utc",
        "GMT",
        "Etc/GMT+5",
        "EST",
        "cest",
        "+05:00",
        "-0330",
        "GMT+5",
        "Z",
        "a",
        "Foo/Bar",
        "Berlin",
        "UTC+2",
        "Europe/Rome!",
        "IST",
    ]
    answers = _run_php(_PHP_ZONE_VALID, names)
    for name, answer in zip(names, answers):
        assert is_valid_timezone(name) is (answer == "1" or name.startswith("UTC+")), name
