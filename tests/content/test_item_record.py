"""The item record module (calpress/content/items/record.py): the site's zone and the dates of
REST input."""

from __future__ import annotations

import datetime as dt

from calpress.content import items


def test_site_zone_from_options():
    assert items.site_zone({"timezone_string": "Europe/Paris"}).key == "Europe/Paris"
    assert items.site_zone({"timezone_string": "UTC"}) is dt.UTC
    assert items.site_zone({"timezone_string": "", "gmt_offset": "-5"}).utcoffset(None) == dt.timedelta(hours=-5)
    assert items.site_zone({"timezone_string": "", "gmt_offset": "5.5"}).utcoffset(None) == dt.timedelta(hours=5, minutes=30)
    assert items.site_zone({"timezone_string": "Not/AZone", "gmt_offset": "2"}).utcoffset(None) == dt.timedelta(hours=2)


def test_input_dates():
    paris = items.site_zone({"timezone_string": "Europe/Paris"})
    local = dt.datetime(2016, 7, 1, 12, 0)
    assert items.input_date(local, is_utc=False, zone=paris) == (local, dt.datetime(2016, 7, 1, 10, 0))
    zoned = dt.datetime(2016, 7, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=-4)))
    assert items.input_date(zoned, is_utc=False, zone=paris) == (dt.datetime(2016, 7, 1, 18, 0), dt.datetime(2016, 7, 1, 16, 0))
    # date_gmt: the zone given is ignored, the time is UTC.
    assert items.input_date(zoned, is_utc=True, zone=paris) == (dt.datetime(2016, 7, 1, 14, 0), dt.datetime(2016, 7, 1, 12, 0))
