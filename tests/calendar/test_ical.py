"""Tests for ``calpress.calendar.ical``: the .ics export, parsed back with ``icalendar``.

Times are checked as instants (wall times read with fold=0, as the module and RFC 5545 do), and
every VTIMEZONE is checked against zoneinfo by reading its observances the RFC 5545 way: an
observance starts at its DTSTART read in its TZOFFSETFROM, and sets TZOFFSETTO from then on.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar

from calpress.calendar.ical import IcalEvent, calendar_bytes, html_to_text, uid_of
from calpress.compat.timezones import FixedOffsetZone

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
HOME = "https://events.example.org/"
NOW = datetime(2026, 1, 2, 3, 4, 5)


def make(
    event_id: int = 7,
    start: datetime = datetime(2026, 6, 1, 18, 0),
    end: datetime = datetime(2026, 6, 1, 20, 0),
    zone: tzinfo = BERLIN,
    all_day: bool = False,
    **fields: object,
) -> IcalEvent:
    fields.setdefault("summary", f"Event {event_id}")
    fields.setdefault("url", f"https://events.example.org/event/e{event_id}/")
    return IcalEvent(id=event_id, start=start, end=end, zone=zone, all_day=all_day, **fields)  # type: ignore[arg-type]


def export(*events: IcalEvent, **kwargs: object) -> bytes:
    kwargs.setdefault("site_name", "Town Hall")
    kwargs.setdefault("home", HOME)
    kwargs.setdefault("now", NOW)
    return calendar_bytes(events, **kwargs)  # type: ignore[arg-type]


def parse(data: bytes) -> Calendar:
    return Calendar.from_ical(data)


def vevents(data: bytes) -> list:
    return parse(data).walk("VEVENT")


def instant(wall: datetime, zone: tzinfo) -> datetime:
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)


def vtimezones(data: bytes, tzid: str) -> list:
    return [tz for tz in parse(data).walk("VTIMEZONE") if str(tz["TZID"]) == tzid]


def onsets(vtimezone) -> list[tuple[datetime, timedelta]]:
    """(UTC onset, offset) of each observance, read as RFC 5545 says."""
    found = []
    for observance in vtimezone.subcomponents:
        start = observance.decoded("DTSTART")
        assert start.tzinfo is None
        found.append((start - observance.decoded("TZOFFSETFROM"), observance.decoded("TZOFFSETTO")))
    return sorted(found)


def offset_at(table: list[tuple[datetime, timedelta]], moment: datetime) -> timedelta:
    naive = moment.astimezone(UTC).replace(tzinfo=None)
    earlier = [offset for onset, offset in table if onset <= naive]
    assert earlier, f"{moment} is before the VTIMEZONE's first observance"
    return earlier[-1]


def assert_vtimezone_matches(data: bytes, zone: ZoneInfo, moments: list[datetime]) -> None:
    (vtimezone,) = vtimezones(data, zone.key)
    table = onsets(vtimezone)
    for moment in moments:
        assert offset_at(table, moment) == moment.astimezone(zone).utcoffset(), moment


# --------------------------------------------------------------------------------------------
# Timed events in an IANA zone
# --------------------------------------------------------------------------------------------


def test_berlin_event_round_trips_start_end_and_zone():
    data = export(make(start=datetime(2026, 6, 1, 18, 0), end=datetime(2026, 6, 1, 20, 30)))
    (event,) = vevents(data)
    start, end = event.decoded("DTSTART"), event.decoded("DTEND")
    assert isinstance(start.tzinfo, ZoneInfo) and start.tzinfo.key == "Europe/Berlin"
    assert event["DTSTART"].params["TZID"] == "Europe/Berlin"
    assert event["DTEND"].params["TZID"] == "Europe/Berlin"
    assert start == datetime(2026, 6, 1, 16, 0, tzinfo=UTC)
    assert end == datetime(2026, 6, 1, 18, 30, tzinfo=UTC)
    assert start.replace(tzinfo=None) == datetime(2026, 6, 1, 18, 0)
    assert b"DTSTART;TZID=Europe/Berlin:20260601T180000\r\n" in data


def test_one_vtimezone_per_zone_however_many_events():
    data = export(
        make(1, datetime(2026, 1, 10, 9), datetime(2026, 1, 10, 10)),
        make(2, datetime(2026, 7, 10, 9), datetime(2026, 7, 10, 10)),
        make(3, datetime(2027, 3, 1, 9), datetime(2027, 3, 1, 10)),
        make(4, datetime(2026, 5, 5, 9), datetime(2026, 5, 5, 10), zone=NEW_YORK),
    )
    calendar = parse(data)
    assert sorted(str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE")) == ["America/New_York", "Europe/Berlin"]
    assert len(calendar.walk("VEVENT")) == 4
    # The VTIMEZONEs come before the events that use them.
    names = [component.name for component in calendar.subcomponents]
    assert names == ["VTIMEZONE", "VTIMEZONE", "VEVENT", "VEVENT", "VEVENT", "VEVENT"]


def test_dst_crossing_fall_back_keeps_exact_instants():
    # 00:30 EDT to 03:30 EST: four hours, across the repeated hour.
    (event,) = vevents(export(make(start=datetime(2026, 11, 1, 0, 30), end=datetime(2026, 11, 1, 3, 30), zone=NEW_YORK)))
    assert event.decoded("DTSTART").astimezone(UTC) == datetime(2026, 11, 1, 4, 30, tzinfo=UTC)
    assert event.decoded("DTEND").astimezone(UTC) == datetime(2026, 11, 1, 8, 30, tzinfo=UTC)


def test_dst_crossing_spring_forward_keeps_exact_instants():
    # 01:30 EST to 03:30 EDT: one hour, across the skipped hour.
    (event,) = vevents(export(make(start=datetime(2026, 3, 8, 1, 30), end=datetime(2026, 3, 8, 3, 30), zone=NEW_YORK)))
    assert event.decoded("DTSTART").astimezone(UTC) == datetime(2026, 3, 8, 6, 30, tzinfo=UTC)
    assert event.decoded("DTEND").astimezone(UTC) == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)


def test_wall_time_in_the_gap_is_read_with_the_offset_before_it():
    # 02:30 does not exist on 2026-03-08 in New York: fold=0 reads it as EST, 07:30 UTC.
    data = export(make(start=datetime(2026, 3, 8, 2, 30), end=datetime(2026, 3, 8, 4, 0), zone=NEW_YORK))
    (event,) = vevents(data)
    assert event.decoded("DTSTART").astimezone(UTC) == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)
    assert b"DTSTART;TZID=America/New_York:20260308T033000\r\n" in data


def test_repeated_wall_time_is_its_first_occurrence():
    (event,) = vevents(export(make(start=datetime(2026, 11, 1, 1, 30), end=datetime(2026, 11, 1, 1, 45), zone=NEW_YORK)))
    assert event.decoded("DTSTART").astimezone(UTC) == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)
    assert event.decoded("DTEND").astimezone(UTC) == datetime(2026, 11, 1, 5, 45, tzinfo=UTC)
    # The UID's Unix times use the same reading.
    first = int(datetime(2026, 11, 1, 5, 30, tzinfo=UTC).timestamp())
    assert str(event["UID"]) == f"7-{first}-{first + 900}@events.example.org"


def test_multi_day_timed_event_round_trips():
    start, end = datetime(2026, 3, 27, 18, 0), datetime(2026, 4, 2, 10, 15)
    (event,) = vevents(export(make(start=start, end=end)))
    assert event.decoded("DTSTART") == instant(start, BERLIN)
    assert event.decoded("DTEND") == instant(end, BERLIN)
    # Across the spring-forward of March 29: an hour shorter than the wall times say.
    elapsed = event.decoded("DTEND").astimezone(UTC) - event.decoded("DTSTART").astimezone(UTC)
    assert elapsed == timedelta(days=5, hours=15, minutes=15)


def test_end_before_start_is_clamped_to_the_start():
    (event,) = vevents(export(make(start=datetime(2026, 6, 1, 18), end=datetime(2026, 6, 1, 17))))
    assert event.decoded("DTEND") == event.decoded("DTSTART")


# --------------------------------------------------------------------------------------------
# VTIMEZONE
# --------------------------------------------------------------------------------------------


def test_vtimezone_observances_are_rfc_onsets():
    data = export(make(start=datetime(2026, 6, 1, 18), end=datetime(2026, 6, 1, 19)))
    (vtimezone,) = vtimezones(data, "Europe/Berlin")
    rows = [
        (o.name, o.decoded("DTSTART"), o.decoded("TZOFFSETFROM"), o.decoded("TZOFFSETTO"), str(o["TZNAME"]))
        for o in vtimezone.subcomponents
    ]
    hour = timedelta(hours=1)
    assert rows == [
        ("STANDARD", datetime(2026, 1, 1), hour, hour, "CET"),
        ("DAYLIGHT", datetime(2026, 3, 29, 2), hour, 2 * hour, "CEST"),
        ("STANDARD", datetime(2026, 10, 25, 3), 2 * hour, hour, "CET"),
    ]


@pytest.mark.parametrize("key", ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"])
def test_vtimezone_covers_all_years_of_the_events(key):
    zone = ZoneInfo(key)
    data = export(
        make(1, datetime(1995, 2, 1, 10), datetime(1995, 2, 1, 11), zone=zone),
        make(2, datetime(2099, 12, 31, 22), datetime(2099, 12, 31, 23), zone=zone),
    )
    moments = [datetime(1995, 1, 1, tzinfo=zone).astimezone(UTC)]
    moment = moments[0]
    while moment < datetime(2100, 1, 1, tzinfo=zone):
        moments.append(moment)
        moment += timedelta(days=3, hours=7)  # drifts through the hours of the day
    assert_vtimezone_matches(data, zone, moments)
    # Every transition is exact: the offset changes at its onset, not a second earlier or later.
    table = onsets(vtimezones(data, key)[0])
    for onset, offset in table[1:]:
        at = onset.replace(tzinfo=UTC)
        assert at.astimezone(zone).utcoffset() == offset
        assert (at - timedelta(seconds=1)).astimezone(zone).utcoffset() != offset or key == "Asia/Kolkata"


def test_vtimezone_of_a_zone_without_dst_has_one_standard_observance():
    data = export(make(start=datetime(2030, 5, 1, 9), end=datetime(2031, 2, 1, 9), zone=ZoneInfo("Asia/Kolkata")))
    (vtimezone,) = vtimezones(data, "Asia/Kolkata")
    assert [o.name for o in vtimezone.subcomponents] == ["STANDARD"]
    assert vtimezone.subcomponents[0].decoded("TZOFFSETTO") == timedelta(hours=5, minutes=30)


def test_far_future_event_has_its_transitions():
    data = export(make(start=datetime(2099, 7, 1, 12), end=datetime(2099, 11, 1, 12)))
    table = onsets(vtimezones(data, "Europe/Berlin")[0])
    assert (datetime(2099, 10, 25, 1), timedelta(hours=1)) in table
    assert_vtimezone_matches(
        data, BERLIN, [instant(datetime(2099, 7, 1, 12), BERLIN), instant(datetime(2099, 11, 1, 12), BERLIN)]
    )


def test_all_day_and_utc_events_need_no_vtimezone():
    data = export(
        make(1, datetime(2026, 5, 1), datetime(2026, 5, 1, 23, 59, 59), all_day=True),
        make(2, datetime(2026, 5, 1, 9), datetime(2026, 5, 1, 10), zone=ZoneInfo("UTC")),
    )
    assert parse(data).walk("VTIMEZONE") == []
    assert b"TZID" not in data


# --------------------------------------------------------------------------------------------
# All-day events
# --------------------------------------------------------------------------------------------


def test_single_all_day_event_ends_the_next_day():
    data = export(make(start=datetime(2026, 5, 1), end=datetime(2026, 5, 1, 23, 59, 59), all_day=True))
    (event,) = vevents(data)
    assert event.decoded("DTSTART") == date(2026, 5, 1)
    assert not isinstance(event.decoded("DTSTART"), datetime)
    assert event.decoded("DTEND") == date(2026, 5, 2)
    assert b"DTSTART;VALUE=DATE:20260501\r\n" in data
    assert b"DTEND;VALUE=DATE:20260502\r\n" in data


def test_three_day_all_day_event_ends_after_its_last_day():
    (event,) = vevents(export(make(start=datetime(2026, 12, 30), end=datetime(2027, 1, 1, 23, 59, 59), all_day=True)))
    assert event.decoded("DTSTART") == date(2026, 12, 30)
    assert event.decoded("DTEND") == date(2027, 1, 2)


# --------------------------------------------------------------------------------------------
# Fixed offsets and UTC
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "zone",
    [timezone(timedelta(hours=2)), FixedOffsetZone(7200, "UTC+2", "utc")],
    ids=["datetime.timezone", "FixedOffsetZone"],
)
def test_fixed_offset_event_is_written_in_utc(zone):
    data = export(make(start=datetime(2026, 1, 1, 10), end=datetime(2026, 1, 1, 11, 30), zone=zone))
    assert b"DTSTART:20260101T080000Z\r\n" in data
    assert b"DTEND:20260101T093000Z\r\n" in data
    assert b"TZID" not in data and b"VTIMEZONE" not in data
    (event,) = vevents(data)
    assert event.decoded("DTSTART") == datetime(2026, 1, 1, 8, tzinfo=UTC)
    assert event.decoded("DTSTART").utcoffset() == timedelta(0)


def test_utc_zone_is_written_with_z():
    data = export(make(start=datetime(2026, 1, 1, 10), end=datetime(2026, 1, 1, 11), zone=ZoneInfo("UTC")))
    assert b"DTSTART:20260101T100000Z\r\n" in data
    assert b"TZID" not in data


# --------------------------------------------------------------------------------------------
# UID, stamps
# --------------------------------------------------------------------------------------------


def test_uid_is_stable_distinct_and_has_the_host():
    first = make(1, datetime(2026, 6, 1, 18), datetime(2026, 6, 1, 20))
    again = make(1, datetime(2026, 6, 1, 18), datetime(2026, 6, 1, 20))
    other = make(2, datetime(2026, 6, 1, 18), datetime(2026, 6, 1, 20))
    moved = make(1, datetime(2026, 6, 2, 18), datetime(2026, 6, 2, 20))
    assert uid_of(first, HOME) == uid_of(again, HOME)
    assert len({uid_of(first, HOME), uid_of(other, HOME), uid_of(moved, HOME)}) == 3
    start, end = int(instant(first.start, BERLIN).timestamp()), int(instant(first.end, BERLIN).timestamp())
    assert uid_of(first, HOME) == f"1-{start}-{end}@events.example.org"
    assert uid_of(first, "https://Example.COM:8443/sub/dir/") == f"1-{start}-{end}@example.com"
    uids = [str(e["UID"]) for e in vevents(export(first, other))]
    assert uids == [uid_of(first, HOME), uid_of(other, HOME)]
    assert [str(e["UID"]) for e in vevents(export(first, other, now=datetime(2030, 1, 1)))] == uids


def test_stamps_are_utc():
    event = make(created_utc=datetime(2025, 1, 2, 3, 4, 5), modified_utc=datetime(2025, 2, 3, 4, 5, 6))
    data = export(event, now=datetime(2026, 1, 2, 3, 4, 5, 678))
    assert b"DTSTAMP:20260102T030405Z\r\n" in data
    assert b"CREATED:20250102T030405Z\r\n" in data
    assert b"LAST-MODIFIED:20250203T040506Z\r\n" in data
    (plain,) = vevents(export(make()))
    assert "CREATED" not in plain and "LAST-MODIFIED" not in plain
    assert plain.decoded("DTSTAMP") == NOW.replace(tzinfo=UTC)


def test_dtstamp_defaults_to_now():
    before = datetime.now(UTC).replace(microsecond=0)
    (event,) = vevents(calendar_bytes([make()], site_name="S", home=HOME))
    assert before <= event.decoded("DTSTAMP") <= datetime.now(UTC)


# --------------------------------------------------------------------------------------------
# Text properties
# --------------------------------------------------------------------------------------------


def test_description_is_plain_text():
    content = (
        "<p>Music &amp; <strong>dancing</strong>, all night;</p>\n"
        "<p>Bring   a\tfriend<br />\nor two&nbsp;&hellip;</p>"
        "<script>alert(1)</script><style>p{}</style>"
    )
    (event,) = vevents(export(make(description_html=content)))
    text = str(event["DESCRIPTION"])
    assert text == "Music & dancing, all night;\nBring a friend\nor two …"
    assert "<" not in text and "&amp;" not in text


@pytest.mark.parametrize(
    "html, text",
    [
        ("", ""),
        ("plain", "plain"),
        ("<p>a</p><p>b</p>", "a\nb"),
        ("<h2>Title</h2><ul><li>one</li><li>two</li></ul>", "Title\none\ntwo"),
        ("a<br>b<BR/>c", "a\nb\nc"),
        ("  <p>  spaced   out  </p>  ", "spaced out"),
        ("&lt;b&gt; is a tag", "<b> is a tag"),
    ],
)
def test_html_to_text(html, text):
    assert html_to_text(html) == text


def test_summary_decodes_entities_and_drops_tags():
    (event,) = vevents(export(make(summary="Rock &amp; Roll <em>Night</em> &#8211; &quot;Live&quot;")))
    assert str(event["SUMMARY"]) == 'Rock & Roll Night \u2013 "Live"'


def test_optional_properties_present_when_given():
    event = make(
        url="https://events.example.org/event/party/",
        location="Town Hall, 1 Main St, Springfield",
        geo=(52.52, 13.405),
        categories=("Music", "Arts &amp; Crafts"),
        organizers=(("Jane Doe", "jane@example.org"), ("Bob", "bob@example.org")),
        image_url="https://events.example.org/wp-content/uploads/poster.JPG",
    )
    data = export(event)
    (parsed,) = vevents(data)
    assert str(parsed["URL"]) == "https://events.example.org/event/party/"
    assert str(parsed["LOCATION"]) == "Town Hall, 1 Main St, Springfield"
    assert b"LOCATION:Town Hall\\, 1 Main St\\, Springfield\r\n" in data
    geo = parsed["GEO"]
    assert (geo.latitude, geo.longitude) == (52.52, 13.405)
    assert [str(c) for c in parsed["CATEGORIES"].cats] == ["Music", "Arts & Crafts"]
    organizer = parsed["ORGANIZER"]
    assert not isinstance(organizer, list), "only the first organizer, as the reference"
    assert str(organizer) == "MAILTO:jane@example.org"
    assert organizer.params["CN"] == "Jane Doe"
    assert str(parsed["ATTACH"]) == "https://events.example.org/wp-content/uploads/poster.JPG"
    assert parsed["ATTACH"].params["FMTTYPE"] == "image/jpeg"


def test_optional_properties_absent_when_not_given():
    (parsed,) = vevents(export(make(url="")))
    for name in ("URL", "LOCATION", "GEO", "CATEGORIES", "ORGANIZER", "ATTACH", "CREATED", "LAST-MODIFIED"):
        assert name not in parsed, name
    for name in ("DTSTART", "DTEND", "DTSTAMP", "UID", "SUMMARY", "DESCRIPTION"):
        assert name in parsed, name


def test_organizer_without_email_is_skipped():
    (parsed,) = vevents(export(make(organizers=(("No Mail", ""), ("Later", "later@example.org")))))
    assert "ORGANIZER" not in parsed


def test_organizer_name_with_quotes_survives():
    (parsed,) = vevents(export(make(organizers=(('Jane "JD" Doe, Inc.', "jd@example.org"),))))
    assert parsed["ORGANIZER"].params["CN"] == 'Jane "JD" Doe, Inc.'


@pytest.mark.parametrize(
    "email",
    [
        "bad@example.org\r\nX-INJECTED:1",
        "bad@example.org\nATTENDEE:mailto:x@example.org",
        "bad@example.org\r",
        "bad\x01@example.org",
        "not an address",
        "bad@localhost",
    ],
)
def test_a_bad_stored_organizer_email_leaves_the_organizer_out_and_breaks_nothing(email):
    """A stored e-mail ``is_email()`` refuses (one with a line break could end the property and
    start another, and made icalendar raise: the whole feed answered 500) writes no ORGANIZER;
    the document and the other events are whole (issue 29, item 14)."""
    data = export(make(1, organizers=(("Bad", email),)), make(2, organizers=(("Good", "good@example.org"),)))
    first, second = vevents(data)
    assert "ORGANIZER" not in first
    assert str(second["ORGANIZER"]) == "MAILTO:good@example.org"
    assert b"X-INJECTED" not in data and b"ATTENDEE" not in data


def test_control_characters_in_stored_values_cannot_break_the_document():
    """Every text value loses the controls RFC 5545 forbids; line breaks stay in free text
    (escaped), become spaces in single-line values and parameters; an address holding a control
    character or a space is left out (issue 29, item 14)."""
    event = make(
        summary="Jazz\x00 Night\r\nX-SUMMARY-INJECTED:1",
        description_html="<p>Line\x07 one</p>\r\nX-DESC:1",
        location="Hall\x1b\r\nLOCATION:elsewhere",
        categories=("Mu\x01sic\r\nX-CAT:1", "\x02"),
        organizers=(("Jane\r\nX-CN:1 \x03Doe", "jane@example.org"),),
        url="https://events.example.org/event/x/\r\nX-URL:1",
        image_url="https://events.example.org/poster.png\nX-ATTACH:1",
    )
    data = export(event, site_name="Town\r\nX-NAME:1 Hall\x04", description="Our\r\nevents\x05")
    calendar = parse(data)
    for line in data.split(b"\r\n"):
        assert not line.startswith(b"X-") or line.split(b":")[0] in (b"X-WR-CALNAME", b"X-ORIGINAL-URL", b"X-WR-CALDESC"), line
        assert not any(c < 0x20 and c != 0x09 for c in line), line
    assert str(calendar["X-WR-CALNAME"]) == "Town X-NAME:1 Hall"
    assert str(calendar["X-WR-CALDESC"]) == "Our events"
    (parsed,) = calendar.walk("VEVENT")
    assert str(parsed["SUMMARY"]) == "Jazz Night\nX-SUMMARY-INJECTED:1"
    assert str(parsed["LOCATION"]) == "Hall\nLOCATION:elsewhere"
    assert [str(c) for c in parsed["CATEGORIES"].cats] == ["Music\nX-CAT:1"]
    assert parsed["ORGANIZER"].params["CN"] == "Jane X-CN:1 Doe"
    assert "URL" not in parsed and "ATTACH" not in parsed
    assert "\x07" not in str(parsed["DESCRIPTION"])


@pytest.mark.parametrize(
    "url, fmttype",
    [
        ("https://x.example/a/photo.png", "image/png"),
        ("https://x.example/a/photo.webp?ver=2", "image/webp"),
        ("https://x.example/a/photo.jpeg#frag", "image/jpeg"),
        ("https://x.example/a.b/photo", None),
    ],
)
def test_attach_fmttype_from_extension(url, fmttype):
    (parsed,) = vevents(export(make(image_url=url)))
    assert str(parsed["ATTACH"]) == url
    assert parsed["ATTACH"].params.get("FMTTYPE") == fmttype


# --------------------------------------------------------------------------------------------
# The document
# --------------------------------------------------------------------------------------------


def test_calendar_properties():
    calendar = parse(export(make(), site_name="Town Hall", home="https://events.example.org"))
    assert str(calendar["VERSION"]) == "2.0"
    assert str(calendar["PRODID"]) == "-//Town Hall - ECPv6//NONSGML v1.0//EN"
    assert str(calendar["CALSCALE"]) == "GREGORIAN"
    assert str(calendar["METHOD"]) == "PUBLISH"
    assert str(calendar["X-WR-CALNAME"]) == "Town Hall"
    assert str(calendar["X-ORIGINAL-URL"]) == "https://events.example.org"
    assert str(calendar["X-WR-CALDESC"]) == "Events for Town Hall"
    described = parse(export(site_name="Town Hall", description="Our events"))
    assert str(described["X-WR-CALDESC"]) == "Our events"


def test_header_in_reference_order():
    lines = export(make()).split(b"\r\n")
    assert [line.split(b":")[0] for line in lines[:8]] == [
        b"BEGIN", b"VERSION", b"PRODID", b"CALSCALE", b"METHOD", b"X-WR-CALNAME", b"X-ORIGINAL-URL", b"X-WR-CALDESC",
    ]  # fmt: skip


def test_lines_end_with_crlf_and_are_folded_at_75_octets():
    event = make(
        summary="Fête de la musique — " * 12,
        description_html="<p>" + "日本語のテキスト、" * 40 + "</p>",
        location="A very long venue name, " * 8,
        categories=tuple(f"Category number {n}" for n in range(12)),
    )
    data = export(event)
    assert data.endswith(b"\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b"\r" not in data.replace(b"\r\n", b"")
    lines = data.split(b"\r\n")[:-1]
    assert max(len(line) for line in lines) <= 75
    assert any(line.startswith(b" ") for line in lines), "long values are folded"
    for line in lines:
        line.decode("utf-8")  # folding never splits a character
    (parsed,) = vevents(data)
    assert str(parsed["SUMMARY"]) == ("Fête de la musique — " * 12).strip()


def test_empty_calendar_is_valid():
    data = export()
    calendar = parse(data)
    assert calendar.name == "VCALENDAR"
    assert calendar.walk("VEVENT") == [] and calendar.walk("VTIMEZONE") == []
    assert str(calendar["PRODID"]) == "-//Town Hall - ECPv6//NONSGML v1.0//EN"
    assert data.startswith(b"BEGIN:VCALENDAR\r\n") and data.endswith(b"END:VCALENDAR\r\n")


# --------------------------------------------------------------------------------------------
# Property test
# --------------------------------------------------------------------------------------------

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"]


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    key=st.sampled_from(ZONES),
    start=st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31, 23, 59, 59)).map(
        lambda d: d.replace(microsecond=0)
    ),
    seconds=st.integers(min_value=0, max_value=40 * 86400),
    all_day=st.booleans(),
)
def test_start_and_end_round_trip(key, start, seconds, all_day):
    zone = ZoneInfo(key)
    end = start + timedelta(seconds=seconds)
    if all_day:
        start, end = start.replace(hour=0, minute=0, second=0), end.replace(hour=23, minute=59, second=59)
    data = export(make(start=start, end=end, zone=zone, all_day=all_day))
    (event,) = vevents(data)
    parsed_start, parsed_end = event.decoded("DTSTART"), event.decoded("DTEND")
    if all_day:
        assert (parsed_start, parsed_end) == (start.date(), end.date() + timedelta(days=1))
        return
    assert parsed_start.astimezone(UTC) == instant(start, zone)
    assert parsed_end.astimezone(UTC) == instant(end, zone)
    if key == "UTC":
        assert parsed_start.utcoffset() == timedelta(0) and b"TZID" not in data
        return
    assert parsed_start.tzinfo.key == key
    # The VTIMEZONE agrees with zoneinfo at both instants, and with the wall times written.
    assert_vtimezone_matches(data, zone, [parsed_start, parsed_end])
    table = onsets(vtimezones(data, key)[0])
    for parsed in (parsed_start, parsed_end):
        assert parsed.replace(tzinfo=None) == (parsed.astimezone(UTC) + offset_at(table, parsed)).replace(tzinfo=None)
