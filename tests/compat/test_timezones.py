"""Tests for ``calpress.compat.timezones``: fixed-offset zones and the abbreviation PHP's ``date('T')``
shows (zones named the calendar's way come from ``calpress.calendar.dates.resolve_timezone``)."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from calpress.calendar.dates import resolve_timezone
from calpress.compat.timezones import FixedOffsetZone, timezone_abbr


def test_fixed_offset_zone_is_a_value():
    zone, _ = resolve_timezone("UTC-3:30", None, None)
    assert pickle.loads(pickle.dumps(zone)) == zone
    assert hash(zone) == hash(FixedOffsetZone(-12600, "UTC-3:30", "utc"))
    assert zone != FixedOffsetZone(-12600, "UTC-3.5", "utc")
    assert zone.utcoffset(None) == timedelta(hours=-3, minutes=-30)
    assert zone.dst(None) == timedelta(0)
    assert FixedOffsetZone(7200, "CEST", "abbr", dst=True).dst(None) == timedelta(hours=1)


@pytest.mark.parametrize(
    "zone, at, abbr",
    [
        (ZoneInfo("Europe/Paris"), datetime(2026, 1, 15, 12, 0), "CET"),
        (ZoneInfo("Europe/Paris"), datetime(2026, 7, 15, 12, 0), "CEST"),
        (ZoneInfo("America/New_York"), datetime(2017, 1, 5, 14, 23, 36), "EST"),
        (ZoneInfo("America/New_York"), datetime(2026, 7, 1, 9, 0), "EDT"),
        (ZoneInfo("Australia/Sydney"), datetime(2026, 1, 1, 9, 0), "AEDT"),
        (ZoneInfo("UTC"), datetime(2026, 1, 1, 9, 0), "UTC"),
        (ZoneInfo("America/Argentina/Buenos_Aires"), datetime(2026, 1, 1, 9, 0), "-03"),
        # Wall time in the repeated hour: PHP's reading (the first one, in New York).
        (ZoneInfo("America/New_York"), datetime(2026, 11, 1, 1, 30), "EDT"),
        # An aware moment is converted first.
        (ZoneInfo("America/New_York"), datetime(2026, 11, 1, 6, 30, tzinfo=UTC), "EST"),
        (resolve_timezone("UTC+5.5", None, None)[0], datetime(2026, 1, 1), "UTC+5.5"),
        (resolve_timezone("UTC-3:30", None, None)[0], datetime(2026, 1, 1), "UTC-3:30"),
        (resolve_timezone(None, None, 0)[0], datetime(2026, 1, 1), "UTC+0"),
        (resolve_timezone("EST", None, None)[0], datetime(2026, 7, 1), "EST"),
        (resolve_timezone("+05:00", None, None)[0], datetime(2026, 7, 1), "GMT+0500"),
        (UTC, datetime(2026, 7, 1), "UTC"),
        (timezone(timedelta(hours=-3, minutes=-30)), datetime(2026, 7, 1), "GMT-0330"),
    ],
)
def test_timezone_abbr(zone, at, abbr):
    assert timezone_abbr(zone, at) == abbr
