"""Tests for ``calpress.calendar.ics_import``: iCalendar feeds read into the calendar's event data.

Pure and fast: feeds are written inline (or with ``calpress.calendar.ical``, the site's own
writer, for the round trip) and parsed; no database.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from calpress.calendar.ical import IcalEvent, calendar_bytes, html_to_text
from calpress.calendar.ics_import import MAX_OCCURRENCES, FeedError, FeedEvent, ParsedFeed, parse_feed
from calpress.compat.timezones import FixedOffsetZone

WINDOW = {"window_start": date(2026, 1, 1), "window_end": date(2027, 1, 1)}


def feed(*events: str, header: str = "", timezones: str = "") -> str:
    """A VCALENDAR around these VEVENT bodies (lines without BEGIN/END:VEVENT)."""
    parts = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"]
    if header:
        parts.append(header.strip())
    if timezones:
        parts.append(timezones.strip())
    for body in events:
        parts += ["BEGIN:VEVENT", *(line.strip() for line in body.strip().splitlines()), "END:VEVENT"]
    parts.append("END:VCALENDAR")
    return "\r\n".join(parts) + "\r\n"


def parse(text: str | bytes, **kwargs: object) -> ParsedFeed:
    options = {**WINDOW, **kwargs}
    return parse_feed(text, **options)  # type: ignore[arg-type]


def only(parsed: ParsedFeed) -> FeedEvent:
    (event,) = parsed.events
    return event


def times(event: FeedEvent) -> tuple[str, str, str]:
    return event.data["start_date"], event.data["end_date"], event.data["timezone"]


def by_uid(parsed: ParsedFeed, uid: str) -> list[FeedEvent]:
    return [event for event in parsed.events if event.uid == uid]


def warned(parsed: ParsedFeed, *words: str) -> bool:
    return any(all(word in warning for word in words) for warning in parsed.warnings)


# --------------------------------------------------------------------------------------------
# Single events
# --------------------------------------------------------------------------------------------


def test_a_single_event_and_all_its_fields():
    parsed = parse(
        feed(
            """
            UID:one@example.org
            DTSTAMP:20260101T000000Z
            SEQUENCE:3
            LAST-MODIFIED:20260102T030405Z
            DTSTART;TZID=Europe/Berlin:20260601T180000
            DTEND;TZID=Europe/Berlin:20260601T203000
            SUMMARY:Rock & Roll <night>
            DESCRIPTION:First line\\nsecond line\\n\\nNew paragraph with <b>tags</b>
            URL:https://example.org/rock
            """,
            header="X-WR-CALNAME:Town events",
        )
    )
    assert (parsed.name, parsed.timezone, parsed.warnings) == ("Town events", "", [])
    event = only(parsed)
    assert (event.source_key, event.uid, event.recurrence_id, event.series) == ("one@example.org", "one@example.org", None, False)
    assert (event.sequence, event.last_modified) == (3, "2026-01-02T03:04:05+00:00")
    assert event.data == {
        "title": "Rock &amp; Roll &lt;night&gt;",
        "description": "<p>First line<br />\nsecond line</p>\n<p>New paragraph with &lt;b&gt;tags&lt;/b&gt;</p>",
        "start_date": "2026-06-01 18:00:00",
        "end_date": "2026-06-01 20:30:00",
        "all_day": False,
        "timezone": "Europe/Berlin",
        "website": "https://example.org/rock",
        "venue": None,
        "organizer": [],
        "categories": [],
        "status": "publish",
    }


def test_only_web_addresses_become_the_website():
    parsed = parse(
        feed("UID:a\nDTSTART:20260601T100000Z\nURL:javascript:alert(1)", "UID:b\nDTSTART:20260601T100000Z\nURL:ftp://x/y")
    )
    assert [event.data["website"] for event in parsed.events] == ["", ""]


def test_duration_instead_of_dtend_and_no_end_at_all():
    parsed = parse(
        feed(
            "UID:d\nDTSTART;TZID=Europe/Paris:20260601T100000\nDURATION:PT1H30M",
            "UID:n\nDTSTART;TZID=Europe/Paris:20260601T100000",
            "UID:ad\nDTSTART;VALUE=DATE:20260601\nDURATION:P3D",
        )
    )
    assert times(by_uid(parsed, "d")[0]) == ("2026-06-01 10:00:00", "2026-06-01 11:30:00", "Europe/Paris")
    assert times(by_uid(parsed, "n")[0]) == ("2026-06-01 10:00:00", "2026-06-01 10:00:00", "Europe/Paris")
    (all_day,) = by_uid(parsed, "ad")
    assert (all_day.data["start_date"], all_day.data["end_date"], all_day.data["all_day"]) == (
        "2026-06-01 00:00:00",
        "2026-06-03 23:59:59",
        True,
    )


def test_an_end_before_the_start_becomes_the_start():
    event = only(parse(feed("UID:x\nDTSTART:20260601T100000Z\nDTEND:20260601T090000Z")))
    assert times(event) == ("2026-06-01 10:00:00", "2026-06-01 10:00:00", "UTC")


# --------------------------------------------------------------------------------------------
# All-day events
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "end, last",
    [
        ("DTEND;VALUE=DATE:20260502", "2026-05-01"),  # the exclusive end: one day
        ("DTEND;VALUE=DATE:20260504", "2026-05-03"),  # three days
        ("", "2026-05-01"),  # no end: one day
        ("DTEND;VALUE=DATE:20260501", "2026-05-01"),  # an end not after the start: one day
    ],
)
def test_all_day_events_end_the_day_before_their_exclusive_end(end, last):
    parsed = parse(feed(f"UID:ad\nSUMMARY:Fair\nDTSTART;VALUE=DATE:20260501\n{end}", header="X-WR-TIMEZONE:Europe/Rome"))
    event = only(parsed)
    assert event.data["all_day"] is True
    assert times(event) == ("2026-05-01 00:00:00", f"{last} 23:59:59", "Europe/Rome")


def test_all_day_events_take_the_default_zone_without_x_wr_timezone():
    event = only(
        parse(feed("UID:ad\nDTSTART;VALUE=DATE:20260501\nDTEND;VALUE=DATE:20260502"), default_timezone="America/Chicago")
    )
    assert times(event) == ("2026-05-01 00:00:00", "2026-05-01 23:59:59", "America/Chicago")


# --------------------------------------------------------------------------------------------
# Recurrences
# --------------------------------------------------------------------------------------------

WEEKLY = """
UID:weekly@example.org
SUMMARY:Choir
DTSTART;TZID=Europe/Paris:20260302T190000
DTEND;TZID=Europe/Paris:20260302T210000
RRULE:FREQ=WEEKLY;COUNT=6
EXDATE;TZID=Europe/Paris:20260309T190000
RDATE;TZID=Europe/Paris:20260320T180000
"""
OVERRIDE = """
UID:weekly@example.org
RECURRENCE-ID;TZID=Europe/Paris:20260316T190000
SEQUENCE:1
SUMMARY:Choir (moved)
DTSTART;TZID=Europe/Paris:20260317T200000
DTEND;TZID=Europe/Paris:20260317T220000
"""


def test_a_weekly_rule_with_exdate_rdate_and_an_override():
    parsed = parse(feed(WEEKLY, OVERRIDE))
    assert parsed.warnings == []
    found = [(e.source_key, e.recurrence_id, e.data["title"], e.data["start_date"], e.data["end_date"]) for e in parsed.events]
    assert found == [
        ("weekly@example.org@20260302T180000Z", "20260302T180000Z", "Choir", "2026-03-02 19:00:00", "2026-03-02 21:00:00"),
        # 03-09 is excluded; 03-16 is moved to 03-17 and keeps its key
        (
            "weekly@example.org@20260316T180000Z",
            "20260316T180000Z",
            "Choir (moved)",
            "2026-03-17 20:00:00",
            "2026-03-17 22:00:00",
        ),
        ("weekly@example.org@20260320T170000Z", "20260320T170000Z", "Choir", "2026-03-20 18:00:00", "2026-03-20 20:00:00"),
        ("weekly@example.org@20260323T180000Z", "20260323T180000Z", "Choir", "2026-03-23 19:00:00", "2026-03-23 21:00:00"),
        # summer time from 03-29: the wall time stays, the UTC recurrence id moves
        ("weekly@example.org@20260330T170000Z", "20260330T170000Z", "Choir", "2026-03-30 19:00:00", "2026-03-30 21:00:00"),
        ("weekly@example.org@20260406T170000Z", "20260406T170000Z", "Choir", "2026-04-06 19:00:00", "2026-04-06 21:00:00"),
    ]
    assert all(e.series and e.uid == "weekly@example.org" and e.data["timezone"] == "Europe/Paris" for e in parsed.events)
    # The series' highest SEQUENCE is given to every occurrence.
    assert {e.sequence for e in parsed.events} == {1}


def test_source_keys_are_stable_across_parses_and_orders():
    first = parse(feed(WEEKLY, OVERRIDE))
    again = parse(feed(OVERRIDE, WEEKLY))
    assert [e.source_key for e in first.events] == [e.source_key for e in again.events]
    assert [e.data for e in first.events] == [e.data for e in again.events]
    # Without the override, the occurrence it replaced comes back under the same key.
    plain = parse(feed(WEEKLY))
    assert {e.source_key for e in plain.events} == {e.source_key for e in first.events}


def test_a_weekly_series_keeps_its_wall_time_across_the_march_change():
    parsed = parse(
        feed(
            "UID:dst\nDTSTART;TZID=Europe/Paris:20260316T090000\nDTEND;TZID=Europe/Paris:20260316T100000\nRRULE:FREQ=WEEKLY;COUNT=4"
        )
    )
    assert [times(e) for e in parsed.events] == [
        (f"2026-{day} 09:00:00", f"2026-{day} 10:00:00", "Europe/Paris") for day in ("03-16", "03-23", "03-30", "04-06")
    ]
    assert [e.recurrence_id for e in parsed.events] == [
        "20260316T080000Z",
        "20260323T080000Z",
        "20260330T070000Z",
        "20260406T070000Z",
    ]


def test_all_day_and_floating_series_have_date_and_local_recurrence_ids():
    parsed = parse(
        feed(
            "UID:days\nDTSTART;VALUE=DATE:20260601\nRRULE:FREQ=DAILY;COUNT=2",
            "UID:float\nDTSTART:20260601T090000\nRRULE:FREQ=DAILY;COUNT=2",
        ),
        default_timezone="Asia/Tokyo",
    )
    assert [e.source_key for e in parsed.events] == [
        "days@20260601",
        "days@20260602",
        "float@20260601T090000",
        "float@20260602T090000",
    ]
    assert [e.data["timezone"] for e in parsed.events] == ["Asia/Tokyo"] * 4


def test_occurrences_outside_the_window_are_left_out():
    parsed = parse(
        feed(
            "UID:w\nDTSTART:20260105T100000Z\nDTEND:20260105T110000Z\nRRULE:FREQ=WEEKLY",
            "UID:before\nDTSTART:20260130T100000Z\nDTEND:20260130T110000Z",
            "UID:after\nDTSTART:20260301T000000Z\nDTEND:20260301T010000Z",
            "UID:across\nDTSTART:20260131T220000Z\nDTEND:20260201T020000Z",
        ),
        window_start=date(2026, 2, 1),
        window_end=date(2026, 3, 1),
    )
    assert [e.data["start_date"][:10] for e in by_uid(parsed, "w")] == ["2026-02-02", "2026-02-09", "2026-02-16", "2026-02-23"]
    assert by_uid(parsed, "before") == [] and by_uid(parsed, "after") == []
    # An event overlapping the window's start is in it.
    assert len(by_uid(parsed, "across")) == 1


def test_an_empty_window_is_an_error():
    with pytest.raises(ValueError):
        parse_feed(feed(), window_start=date(2026, 1, 1), window_end=date(2026, 1, 1))


# --------------------------------------------------------------------------------------------
# Time zones
# --------------------------------------------------------------------------------------------

EASTERN = """
BEGIN:VTIMEZONE
TZID:Eastern Standard Time
BEGIN:STANDARD
DTSTART:16011104T020000
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010311T020000
RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
END:DAYLIGHT
END:VTIMEZONE
"""

CUSTOM_CET = """
BEGIN:VTIMEZONE
TZID:My Office Time
BEGIN:DAYLIGHT
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
END:DAYLIGHT
BEGIN:STANDARD
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
END:STANDARD
END:VTIMEZONE
"""

MARS = """
BEGIN:VTIMEZONE
TZID:Mars Base
BEGIN:STANDARD
DTSTART:19700101T000000
TZOFFSETFROM:+0537
TZOFFSETTO:+0537
TZNAME:MBT
END:STANDARD
END:VTIMEZONE
"""


def test_an_iana_tzid_is_used_as_is():
    event = only(
        parse(
            feed(
                "UID:x\nDTSTART;TZID=America/Argentina/Buenos_Aires:20260601T100000\nDTEND;TZID=America/Argentina/Buenos_Aires:20260601T120000"
            )
        )
    )
    assert times(event) == ("2026-06-01 10:00:00", "2026-06-01 12:00:00", "America/Argentina/Buenos_Aires")


@pytest.mark.filterwarnings("ignore::icalendar.error.GloballyUniqueTZIDGuessed")
def test_a_globally_unique_tzid_ends_with_its_iana_name():
    event = only(parse(feed("UID:x\nDTSTART;TZID=/freeassociation.sourceforge.net/Tzfile/Europe/Vienna:20260601T100000")))
    assert times(event)[2] == "Europe/Vienna"


def test_a_windows_named_vtimezone_is_its_iana_zone():
    parsed = parse(
        feed(
            "UID:x\nSUMMARY:x\nDTSTART;TZID=Eastern Standard Time:20260601T090000\nDTEND;TZID=Eastern Standard Time:20260601T100000",
            timezones=EASTERN,
        )
    )
    assert parsed.warnings == []
    assert times(only(parsed)) == ("2026-06-01 09:00:00", "2026-06-01 10:00:00", "America/New_York")


def test_a_windows_name_without_vtimezone_is_known_too():
    event = only(parse(feed("UID:x\nDTSTART;TZID=W. Europe Standard Time:20260601T090000")))
    assert times(event)[::2] == ("2026-06-01 09:00:00", "Europe/Berlin")


def test_a_custom_vtimezone_is_matched_to_a_zone_with_the_same_offsets():
    parsed = parse(
        feed(
            "UID:x\nDTSTART;TZID=My Office Time:20260316T090000\nDTEND;TZID=My Office Time:20260316T100000\nRRULE:FREQ=WEEKLY;COUNT=3",
            timezones=CUSTOM_CET,
        )
    )
    assert [times(e) for e in parsed.events] == [
        (f"2026-{day} 09:00:00", f"2026-{day} 10:00:00", "Europe/Berlin") for day in ("03-16", "03-23", "03-30")
    ]
    assert warned(parsed, "My Office Time", "Europe/Berlin")


def test_a_custom_vtimezone_matching_no_zone_is_converted_to_the_feed_zone():
    parsed = parse(feed("UID:x\nDTSTART;TZID=Mars Base:20260601T120000\nDTEND;TZID=Mars Base:20260601T130000", timezones=MARS))
    assert times(only(parsed)) == ("2026-06-01 06:23:00", "2026-06-01 07:23:00", "UTC")
    assert warned(parsed, "Mars Base", "converted")
    in_paris = parse(feed("UID:x\nDTSTART;TZID=Mars Base:20260601T120000", timezones=MARS), default_timezone="Europe/Paris")
    assert times(only(in_paris))[::2] == ("2026-06-01 08:23:00", "Europe/Paris")


def test_an_unknown_tzid_without_vtimezone_is_read_as_utc():
    parsed = parse(feed("UID:x\nDTSTART;TZID=Nowhere/Special:20260601T120000\nDTEND;TZID=Nowhere/Special:20260601T130000"))
    assert times(only(parsed)) == ("2026-06-01 12:00:00", "2026-06-01 13:00:00", "UTC")
    assert warned(parsed, "Nowhere/Special", "UTC")


def test_floating_times_keep_their_wall_time_in_the_default_zone():
    event = only(parse(feed("UID:x\nDTSTART:20260601T100000\nDTEND:20260601T113000"), default_timezone="Europe/Paris"))
    assert times(event) == ("2026-06-01 10:00:00", "2026-06-01 11:30:00", "Europe/Paris")


def test_utc_times_are_shown_in_the_default_zone():
    event = only(parse(feed("UID:x\nDTSTART:20260601T100000Z\nDTEND:20260601T113000Z"), default_timezone="Europe/Paris"))
    assert times(event) == ("2026-06-01 12:00:00", "2026-06-01 13:30:00", "Europe/Paris")
    assert times(only(parse(feed("UID:x\nDTSTART:20260601T100000Z"))))[::2] == ("2026-06-01 10:00:00", "UTC")


def test_calpress_fixed_offset_names_are_accepted_as_default_zone():
    event = only(parse(feed("UID:x\nDTSTART:20260601T100000Z"), default_timezone="UTC+2"))
    assert times(event)[::2] == ("2026-06-01 12:00:00", "UTC+2")


def test_an_unusable_default_zone_means_utc_with_a_warning():
    parsed = parse(feed("UID:x\nDTSTART:20260601T100000Z"), default_timezone="Not/AZone")
    assert times(only(parsed))[::2] == ("2026-06-01 10:00:00", "UTC")
    assert warned(parsed, "Not/AZone")


def test_x_wr_timezone_is_the_zone_of_utc_and_floating_times():
    parsed = parse(
        feed("UID:z\nDTSTART:20260601T160000Z", "UID:f\nDTSTART:20260601T100000", header="X-WR-TIMEZONE:America/New_York"),
        default_timezone="Europe/Paris",
    )
    assert parsed.timezone == "America/New_York"
    assert [times(e)[::2] for e in parsed.events] == [
        ("2026-06-01 12:00:00", "America/New_York"),
        ("2026-06-01 10:00:00", "America/New_York"),
    ]


def test_a_utc_rule_keeps_its_wall_time_in_x_wr_timezone_and_its_utc_time_without():
    body = "UID:g\nDTSTART:20260301T140000Z\nRRULE:FREQ=WEEKLY;COUNT=3"
    google = parse(feed(body, header="X-WR-TIMEZONE:America/New_York"))
    assert [e.data["start_date"] for e in google.events] == ["2026-03-01 09:00:00", "2026-03-08 09:00:00", "2026-03-15 09:00:00"]
    plain = parse(feed(body), default_timezone="America/New_York")
    assert [e.data["start_date"] for e in plain.events] == ["2026-03-01 09:00:00", "2026-03-08 10:00:00", "2026-03-15 10:00:00"]
    # The keys are UTC instants either way.
    assert [e.recurrence_id for e in google.events] == ["20260301T140000Z", "20260308T130000Z", "20260315T130000Z"]


def test_an_unknown_x_wr_timezone_is_ignored_with_a_warning():
    parsed = parse(
        feed("UID:z\nDTSTART:20260601T100000Z", header="X-WR-TIMEZONE:Somewhere/Else"), default_timezone="Europe/Paris"
    )
    assert times(only(parsed))[::2] == ("2026-06-01 12:00:00", "Europe/Paris")
    assert warned(parsed, "Somewhere/Else")


# --------------------------------------------------------------------------------------------
# Status, places, people, categories
# --------------------------------------------------------------------------------------------


def test_cancelled_events_and_occurrences_are_skipped():
    parsed = parse(
        feed(
            "UID:gone\nDTSTART:20260601T100000Z\nSTATUS:CANCELLED",
            "UID:kept\nDTSTART:20260601T100000Z\nSTATUS:CONFIRMED",
            "UID:s\nDTSTART:20260601T100000Z\nRRULE:FREQ=DAILY;COUNT=3",
            "UID:s\nRECURRENCE-ID:20260602T100000Z\nDTSTART:20260602T100000Z\nSTATUS:CANCELLED",
        )
    )
    assert [e.source_key for e in parsed.events] == ["kept", "s@20260601T100000Z", "s@20260603T100000Z"]
    assert warned(parsed, "gone", "cancelled") and warned(parsed, '"s"', "1 cancelled")


def test_location_organizer_and_categories():
    parsed = parse(
        feed(
            """
            UID:a
            DTSTART:20260601T100000Z
            LOCATION:Town Hall\\, 1 Main St\\, Springfield\\, IL\\, 62701
            GEO:39.8;-89.6
            ORGANIZER;CN="Doe, Jane":mailto:jane@example.org
            CATEGORIES:Music,Art
            CATEGORIES:Music, Dance ,,2026
            """,
            """
            UID:b
            DTSTART:20260601T100000Z
            LOCATION:The Barn
            ORGANIZER:MAILTO:bob@example.org
            """,
            """
            UID:c
            DTSTART:20260601T100000Z
            LOCATION:Main Library\\nRoom 2\\, 2nd floor
            ORGANIZER;CN=Parks & Rec:https://example.org/parks
            """,
            """
            UID:d
            DTSTART:20260601T100000Z
            LOCATION:https://meet.example.org/abc
            """,
        )
    )
    a, b, c, d = (only_of(parsed, uid) for uid in "abcd")
    assert a.data["venue"] == {
        "venue": "Town Hall",
        "address": "1 Main St, Springfield, IL, 62701",
        "geo_lat": "39.8",
        "geo_lng": "-89.6",
    }
    assert a.data["organizer"] == [{"organizer": "Doe, Jane", "email": "jane@example.org"}]
    assert a.data["categories"] == ["Music", "Art", "Dance"]
    assert warned(parsed, '"2026"')
    assert b.data["venue"] == {"venue": "The Barn"}
    assert b.data["organizer"] == [{"organizer": "bob@example.org", "email": "bob@example.org"}]
    assert c.data["venue"] == {"venue": "Main Library", "address": "Room 2, 2nd floor"}
    assert c.data["organizer"] == [{"organizer": "Parks &amp; Rec", "email": ""}]
    assert d.data["venue"] is None


def only_of(parsed: ParsedFeed, uid: str) -> FeedEvent:
    (event,) = by_uid(parsed, uid)
    return event


# --------------------------------------------------------------------------------------------
# Broken documents and components
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        "   \r\n",
        b"<!DOCTYPE html><html><body>Not found</body></html>",
        '{"events": []}',
        b"\x00\x01\x02\xff\xfe\x00garbage",
        "Here is the feed:\nBEGIN:VCALENDAR\nEND:VCALENDAR\n",
        "BEGIN:VCARD\nFN:Jane\nEND:VCARD\n",
        "/etc/passwd",
    ],
)
def test_a_document_that_is_not_icalendar_is_a_feed_error(data):
    with pytest.raises(FeedError):
        parse(data)


def test_an_empty_calendar_has_no_events():
    parsed = parse("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n")
    assert (parsed.events, parsed.warnings) == ([], [])


def test_malformed_events_are_skipped_with_a_warning_and_the_rest_is_read():
    text = feed(
        "UID:nostart\nSUMMARY:No start",
        "UID:badstart\nDTSTART:tomorrow-ish",
        "UID:good1\nDTSTART:20260601T100000Z\nSEQUENCE:not-a-number\nGEO:north\nDTEND:soon",
        "UID:badrule\nDTSTART:20260601T100000Z\nRRULE:FREQ=SOMETIMES",
        'UID:badparam\nDTSTART;TZID="Europe/Paris:20260601T100000',
    )
    # Garbage between components, a stray END, and a VEVENT whose END is missing.
    text = text.replace("BEGIN:VEVENT\r\nUID:good1", "this line is garbage\r\nEND:VTODO\r\nBEGIN:VEVENT\r\nUID:good1", 1)
    text = text.replace(
        "END:VCALENDAR",
        "BEGIN:VEVENT\r\nUID:open\r\nDTSTART:20260601T100000Z\r\nBEGIN:VEVENT\r\nUID:good2\r\nDTSTART:20260602T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR",
    )
    parsed = parse(text)
    assert [e.uid for e in parsed.events] == ["good1", "badrule", "good2"]
    assert only_of(parsed, "good1").sequence == 0
    assert only_of(parsed, "good1").data["end_date"] == "2026-06-01 10:00:00"
    assert warned(parsed, "nostart", "no DTSTART")
    assert warned(parsed, "badstart", "DTSTART")
    assert warned(parsed, "badrule", "RRULE")
    assert warned(parsed, "left open")
    assert warned(parsed, "VTODO")
    assert len(parsed.warnings) >= 5


def test_a_feed_without_end_vcalendar_and_with_alarms_is_read():
    text = feed(
        "UID:a\nDTSTART:20260601T100000Z\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT15M\nthis is not a property\nEND:VALARM"
    )
    parsed = parse(text.replace("END:VCALENDAR\r\n", ""))
    assert [e.uid for e in parsed.events] == ["a"]


def test_an_event_without_uid_gets_a_stable_one():
    text = feed("SUMMARY:Anonymous\nDTSTART:20260601T100000Z")
    first, again = only(parse(text)), only(parse(text))
    assert first.uid.startswith("calpress-") and first.uid == again.uid == first.source_key


def test_encodings_bom_and_line_endings():
    text = feed("UID:a\nSUMMARY:Café déjà vu\nDTSTART:20260601T100000Z")
    assert only(parse(text)).data["title"] == "Café déjà vu"
    assert only(parse(b"\xef\xbb\xbf" + text.encode())).data["title"] == "Café déjà vu"
    assert only(parse(text.replace("\r\n", "\n").encode())).data["title"] == "Café déjà vu"
    latin = parse(text.encode("latin-1"))
    assert only(latin).data["title"] == "Café déjà vu" and warned(latin, "UTF-8")
    # A long line folded at 75 octets, and a fold inside a multi-byte character's neighbourhood.
    folded = text.replace("SUMMARY:Café déjà vu", "SUMMARY:" + "x" * 70 + "\r\n " + "yz")
    assert only(parse(folded)).data["title"] == "x" * 70 + "yz"


# --------------------------------------------------------------------------------------------
# Runaway rules
# --------------------------------------------------------------------------------------------


def test_a_runaway_rule_is_capped():
    started = time.perf_counter()
    parsed = parse(feed("UID:r\nDTSTART:20260101T000000Z\nRRULE:FREQ=SECONDLY;COUNT=1000000000"))
    assert time.perf_counter() - started < 15
    assert len(parsed.events) == MAX_OCCURRENCES == 5000
    assert parsed.events[0].data["start_date"] == "2026-01-01 00:00:00"
    assert parsed.events[-1].data["start_date"] == "2026-01-01 01:23:19"
    assert warned(parsed, "more than 5000")


def test_the_caps_can_be_lowered():
    parsed = parse(
        feed("UID:r\nDTSTART:20260101T000000Z\nRRULE:FREQ=DAILY", "UID:s\nDTSTART:20260101T000000Z\nRRULE:FREQ=DAILY"),
        max_occurrences=10,
        max_events=15,
    )
    assert [len(by_uid(parsed, uid)) for uid in "rs"] == [10, 5]
    assert warned(parsed, "more than 10") and warned(parsed, "more than 15 events")


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",  # February 30th
        "FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31",
        "FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1",
        "FREQ=DAILY;INTERVAL=7;BYDAY=TU",  # every seventh day from a Monday
        "FREQ=DAILY;INTERVAL=14;BYDAY=WE,TH",
        "FREQ=MONTHLY;BYDAY=-6MO",
        "FREQ=WEEKLY;BYSETPOS=9;BYDAY=MO",
        "FREQ=WEEKLY;BYSETPOS=2;BYSECOND=59",  # one instant a week (DTSTART's weekday and time)
        "FREQ=MONTHLY;BYSETPOS=6;BYDAY=FR",
        "FREQ=DAILY;BYHOUR=9,10;BYSETPOS=3",
    ],
)
def test_a_rule_that_never_occurs_is_dropped_quickly(rule):
    started = time.perf_counter()
    parsed = parse(feed(f"UID:n\nDTSTART:20260105T100000Z\nRRULE:{rule}"))
    assert time.perf_counter() - started < 2
    # DTSTART is an occurrence all the same.
    assert [e.data["start_date"] for e in parsed.events] == ["2026-01-05 10:00:00"]
    assert warned(parsed, "RRULE that was ignored", "never occurs")


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=1",
        "FREQ=HOURLY;BYSETPOS=3",
        "FREQ=SECONDLY;BYYEARDAY=1;BYHOUR=17;BYWEEKNO=52",  # exists, but takes dateutil seconds to find
        "FREQ=MINUTELY;INTERVAL=30;BYDAY=MO",
    ],
)
def test_sub_daily_rules_with_day_parts_are_not_expanded(rule):
    started = time.perf_counter()
    parsed = parse(feed(f"UID:n\nDTSTART:20260105T100000Z\nRRULE:{rule}"))
    assert time.perf_counter() - started < 2
    assert [e.data["start_date"] for e in parsed.events] == ["2026-01-05 10:00:00"]
    assert warned(parsed, "RRULE that was ignored", "sub-daily")


@pytest.mark.parametrize(
    "rule", ["FREQ=MONTHLY;BYDAY=53FR", "FREQ=SECONDLY;INTERVAL=86400;BYMINUTE=5", "FREQ=WEEKLY;BYDAY=XX", "FREQ=DAILY;BYHOUR=25"]
)
def test_rules_dateutil_rejects_are_dropped(rule):
    parsed = parse(feed(f"UID:n\nDTSTART:20260105T100000Z\nRRULE:{rule}", "UID:other\nDTSTART:20260105T100000Z"))
    assert [e.uid for e in parsed.events] == ["n", "other"]
    assert warned(parsed, '"n"', "RRULE")


def test_a_dense_rule_starting_long_before_the_window_is_moved_forward():
    # An hourly COUNT whose last instant is 2026-01-10 09:00.
    count = (datetime(2026, 1, 10, 9) - datetime(2020, 1, 1)) // timedelta(hours=1) + 1
    parsed = parse(
        feed(
            "UID:m\nSUMMARY:m\nDTSTART:20100101T000000Z\nDTEND:20100101T000500Z\nRRULE:FREQ=MINUTELY;INTERVAL=30",
            f"UID:h\nSUMMARY:h\nDTSTART:20200101T000000Z\nRRULE:FREQ=HOURLY;COUNT={count}",
        ),
        window_start=date(2026, 1, 10),
        window_end=date(2026, 1, 11),
    )
    minutes = by_uid(parsed, "m")
    assert len(minutes) == 48
    assert (minutes[0].data["start_date"], minutes[0].data["end_date"]) == ("2026-01-10 00:00:00", "2026-01-10 00:05:00")
    assert minutes[-1].data["start_date"] == "2026-01-10 23:30:00"
    assert [e.data["start_date"][11:] for e in by_uid(parsed, "h")] == [f"{hour:02d}:00:00" for hour in range(10)]
    assert parsed.warnings == []


def test_a_dense_counted_rule_that_cannot_reach_the_window_is_dropped():
    parsed = parse(feed("UID:d\nDTSTART:20200101T000000Z\nRRULE:FREQ=SECONDLY;BYMINUTE=0,30;COUNT=1000000000"))
    assert parsed.events == []
    assert warned(parsed, "too dense")


def test_a_large_feed_parses_in_reasonable_time():
    bodies = []
    for index in range(1500):
        day = date(2026, 1, 1) + timedelta(days=index % 360)
        body = (
            f"UID:e{index}@example.org\nSUMMARY:Event {index}\nDTSTART;TZID=Europe/Paris:{day:%Y%m%d}T090000\n"
            f"DTEND;TZID=Europe/Paris:{day:%Y%m%d}T100000\nDESCRIPTION:Text\nLOCATION:Hall\\, Street 1\n"
            "CATEGORIES:A,B\nORGANIZER;CN=Jo:mailto:jo@example.org\nURL:https://example.org/"
        )
        if index % 10 == 0:
            body += "\nRRULE:FREQ=WEEKLY;COUNT=20"
        bodies.append(body)
    text = feed(*bodies)
    assert text.count("\r\n") > 16000
    started = time.perf_counter()
    parsed = parse(text)
    assert time.perf_counter() - started < 15
    # 1,350 single events and 150 series of 20 weeks, less the weeks that fall in 2027.
    later = sum(
        1
        for index in range(0, 1500, 10)
        for week in range(20)
        if date(2026, 1, 1) + timedelta(days=index % 360, weeks=week) >= date(2027, 1, 1)
    )
    assert len(parsed.events) == 1350 + 150 * 20 - later
    assert parsed.warnings == []


# --------------------------------------------------------------------------------------------
# The round trip through calpress's own writer
# --------------------------------------------------------------------------------------------

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def export(*events: IcalEvent) -> bytes:
    return calendar_bytes(events, site_name="Town Hall", home="https://events.example.org/", now=datetime(2026, 1, 2, 3, 4, 5))


def make(event_id: int, start: datetime, end: datetime, zone, all_day: bool = False, **fields: object) -> IcalEvent:
    fields.setdefault("summary", f"Event {event_id}")
    fields.setdefault("url", f"https://events.example.org/event/e{event_id}/")
    return IcalEvent(id=event_id, start=start, end=end, zone=zone, all_day=all_day, **fields)  # type: ignore[arg-type]


def test_calpress_feeds_round_trip():
    events = [
        make(
            1,
            datetime(2026, 6, 1, 18, 0),
            datetime(2026, 6, 1, 20, 30),
            BERLIN,
            summary="Rock &amp; Roll Night",
            description_html="<p>Bring <strong>friends</strong>.</p><p>Doors at 6.</p>",
            location="Town Hall, 1 Main St, Springfield, IL, 62701, United States",
            geo=(39.8, -89.6),
            categories=("Music", "Food &amp; Drink"),
            organizers=(("Parks &amp; Rec", "parks@example.org"), ("Second", "second@example.org")),
            modified_utc=datetime(2026, 1, 1, 12, 0),
        ),
        make(2, datetime(2026, 5, 1), datetime(2026, 5, 1, 23, 59, 59), ZoneInfo("UTC"), all_day=True, location="The Barn"),
        make(3, datetime(2026, 7, 10), datetime(2026, 7, 12, 23, 59, 59), ZoneInfo("UTC"), all_day=True),
        # Across the spring-forward night in New York, and across the fall-back one.
        make(4, datetime(2026, 3, 7, 22, 0), datetime(2026, 3, 8, 4, 0), NEW_YORK),
        make(5, datetime(2026, 10, 31, 23, 0), datetime(2026, 11, 1, 1, 30), NEW_YORK),
        make(6, datetime(2026, 9, 1, 8, 15), datetime(2026, 9, 1, 9, 45), ZoneInfo("UTC"), location="Online room"),
        make(7, datetime(2026, 12, 31, 22, 0), datetime(2027, 1, 1, 2, 0), ZoneInfo("Asia/Kolkata")),
    ]
    parsed = parse(export(*events), default_timezone="UTC", window_end=date(2027, 2, 1))
    assert parsed.name == "Town Hall"
    assert parsed.warnings == []
    assert len(parsed.events) == len(events)
    for written, read in zip(events, parsed.events):
        data = read.data
        assert read.uid == read.source_key and not read.series and read.recurrence_id is None
        assert read.uid.startswith(f"{written.id}-") and read.uid.endswith("@events.example.org")
        assert data["title"] == written.summary
        assert data["all_day"] is written.all_day
        assert (data["start_date"], data["end_date"]) == (written.start.isoformat(sep=" "), written.end.isoformat(sep=" "))
        assert data["timezone"] == ("UTC" if written.all_day else written.zone.key)
        assert data["website"] == written.url
        assert html_to_text(data["description"]) == html_to_text(written.description_html)
        venue_name = written.location.split(",")[0] if written.location else None
        assert (data["venue"] or {}).get("venue") == venue_name
        first_organizer = (
            [{"organizer": written.organizers[0][0], "email": written.organizers[0][1]}] if written.organizers else []
        )
        assert data["organizer"] == first_organizer
    first = parsed.events[0].data
    assert first["venue"] == {
        "venue": "Town Hall",
        "address": "1 Main St, Springfield, IL, 62701, United States",
        "geo_lat": "39.8",
        "geo_lng": "-89.6",
    }
    assert first["categories"] == ["Music", "Food & Drink"]
    assert parsed.events[0].last_modified == "2026-01-01T12:00:00+00:00"
    # Written again from what was read, the feed says the same.
    again = parse(
        export(*(reread(event, written) for event, written in zip(parsed.events, events))),
        default_timezone="UTC",
        window_end=date(2027, 2, 1),
    )
    assert [e.data for e in again.events] == [e.data for e in parsed.events]


def reread(event: FeedEvent, written: IcalEvent) -> IcalEvent:
    """An IcalEvent as the site would export the imported event."""
    data = event.data
    venue = data["venue"]
    location = ", ".join(part for part in (venue["venue"], venue.get("address", "")) if part) if venue else ""
    return IcalEvent(
        id=written.id,
        summary=data["title"],
        start=datetime.fromisoformat(data["start_date"]),
        end=datetime.fromisoformat(data["end_date"]),
        zone=ZoneInfo(data["timezone"]),
        all_day=data["all_day"],
        url=data["website"],
        description_html=data["description"],
        location=location,
        geo=(float(venue["geo_lat"]), float(venue["geo_lng"])) if venue and "geo_lat" in venue else None,
        categories=tuple(data["categories"]),
        organizers=tuple((o["organizer"], o["email"]) for o in data["organizer"]),
        modified_utc=written.modified_utc,
    )


def test_fixed_offset_events_come_back_as_the_same_instant_in_the_default_zone():
    event = make(1, datetime(2026, 6, 1, 18, 0), datetime(2026, 6, 1, 19, 0), FixedOffsetZone(7200, "UTC+2", "utc"))
    read = only(parse(export(event), default_timezone="UTC+2"))
    assert times(read) == ("2026-06-01 18:00:00", "2026-06-01 19:00:00", "UTC+2")


ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham"]


def exists(wall: datetime, zone: ZoneInfo) -> bool:
    return wall.replace(tzinfo=zone).astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    key=st.sampled_from(ZONES),
    start=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2060, 12, 31)).map(lambda d: d.replace(microsecond=0)),
    seconds=st.integers(min_value=0, max_value=20 * 86400),
    all_day=st.booleans(),
)
def test_start_end_and_zone_round_trip(key, start, seconds, all_day):
    zone = ZoneInfo(key)
    end = start + timedelta(seconds=seconds)
    if all_day:
        start, end = start.replace(hour=0, minute=0, second=0), end.replace(hour=23, minute=59, second=59)
    else:
        assume(exists(start, zone) and exists(end, zone))
    window = {"window_start": start.date() - timedelta(days=1), "window_end": end.date() + timedelta(days=2)}
    read = only(parse_feed(export(make(9, start, end, zone, all_day)), default_timezone=key, **window))
    assert read.data["all_day"] is all_day
    assert times(read) == (start.isoformat(sep=" "), end.isoformat(sep=" "), key)


FUZZ_BASE = feed(
    WEEKLY,
    OVERRIDE,
    "UID:a\nDTSTART;VALUE=DATE:20260501\nDTEND;VALUE=DATE:20260503\nRRULE:FREQ=MONTHLY;BYDAY=1MO,-1FR;UNTIL=20261231\nEXDATE;VALUE=DATE:20260601",
    "UID:c\nDTSTART;TZID=My Office Time:20260316T090000\nRRULE:FREQ=DAILY;BYHOUR=9,10;BYMINUTE=0,30;COUNT=50\nRDATE;VALUE=PERIOD:20260401T100000Z/PT1H",
    "UID:f\nDTSTART:20260601T100000\nDURATION:PT1H\nRRULE:FREQ=HOURLY;INTERVAL=5;UNTIL=20260701T000000Z\nGEO:1;2\nORGANIZER;CN=X:mailto:x@y.z",
    timezones=CUSTOM_CET + EASTERN,
    header="X-WR-TIMEZONE:Europe/Paris",
).split("\r\n")
FUZZ_TOKENS = [
    "FREQ=SECONDLY", "COUNT=-1", "UNTIL=2026", "BYSETPOS=0", "BYMONTHDAY=31", "BYMONTH=2", "TZID=Eastern Standard Time",
    "VALUE=DATE", "20260230T250000", ";", ":", ",", "\\", "BEGIN:VEVENT", "END:VEVENT", "END:VTIMEZONE", "RANGE=THISANDFUTURE",
    "RECURRENCE-ID:20260302T180000Z", "BYWEEKNO=53", "INTERVAL=0", "P1000D", "EXDATE:20260302T180000Z", "BYDAY=5SU", '"',
]  # fmt: skip


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(1, len(FUZZ_BASE) - 2),
            st.sampled_from(["drop", "copy", "insert", "cut"]),
            st.sampled_from(FUZZ_TOKENS),
            st.integers(0, 80),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_a_damaged_feed_never_raises(edits):
    lines = list(FUZZ_BASE)
    for index, action, token, position in edits:
        index = min(index, len(lines) - 1)
        if action == "drop":
            del lines[index]
        elif action == "copy":
            lines.insert(index, lines[position % len(lines)])
        elif action == "insert":
            lines[index] = lines[index][:position] + token + lines[index][position:]
        else:
            lines[index] = lines[index][:position]
    parsed = parse("\r\n".join(lines))
    assert all(isinstance(event.data["start_date"], str) for event in parsed.events)


# --------------------------------------------------------------------------------------------
# Issue 29: overrides for this and future, zones over the events' years, untitled events,
# broken components, repeated UIDs, and the budget of the whole parse
# --------------------------------------------------------------------------------------------

THIS_AND_FUTURE_BASE = """
UID:club@example.org
DTSTAMP:20260101T000000Z
SUMMARY:Club night
DTSTART;TZID=Europe/Paris:20260105T190000
DTEND;TZID=Europe/Paris:20260105T210000
RRULE:FREQ=WEEKLY;COUNT=200
"""
THIS_AND_FUTURE = """
UID:club@example.org
DTSTAMP:20260101T000000Z
SEQUENCE:1
SUMMARY:Club night (new room)
RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Paris:20260309T190000
DTSTART;TZID=Europe/Paris:20260309T200000
DTEND;TZID=Europe/Paris:20260309T220000
"""


def test_a_this_and_future_override_changes_every_later_occurrence_under_its_own_key():
    import icalendar
    import recurring_ical_events

    text = feed(THIS_AND_FUTURE_BASE, THIS_AND_FUTURE)
    window = {"window_start": date(2026, 1, 1), "window_end": date(2030, 1, 1)}
    parsed = parse(text, **window)
    assert parsed.skipped == 0
    keys = [e.source_key for e in parsed.events]
    assert len(keys) == len(set(keys)) == 200
    # The library counts the same occurrences.
    expected = recurring_ical_events.of(icalendar.Calendar.from_ical(text)).between(datetime(2026, 1, 1), datetime(2030, 1, 1))
    assert len(expected) == 200
    # Every occurrence keeps the key of its place in the series: the same keys as without the override.
    plain = parse(feed(THIS_AND_FUTURE_BASE), **window)
    assert keys == [e.source_key for e in plain.events]
    before, later = parsed.events[:9], parsed.events[9:]
    assert {e.data["title"] for e in before} == {"Club night"}
    assert {e.data["title"] for e in later} == {"Club night (new room)"}
    assert {e.data["start_date"][11:] for e in before} == {"19:00:00"}
    # An hour later, wall time kept across the changes to summer time and back.
    assert {(e.data["start_date"][11:], e.data["end_date"][11:]) for e in later} == {("20:00:00", "22:00:00")}
    assert later[0].recurrence_id == "20260309T180000Z" and later[0].data["start_date"] == "2026-03-09 20:00:00"
    assert later[3].recurrence_id == "20260330T170000Z" and later[3].data["start_date"] == "2026-03-30 20:00:00"


def test_several_this_and_future_overrides_and_a_single_one_after_them():
    later = THIS_AND_FUTURE.replace("20260309T", "20260504T").replace("new room", "garden").replace("T200000", "T180000")
    later = later.replace("T220000", "T200000")
    single = (
        "UID:club@example.org\nSUMMARY:Club night (cancelled band)\nRECURRENCE-ID;TZID=Europe/Paris:20260601T190000\n"
        "DTSTART;TZID=Europe/Paris:20260601T190000\nDTEND;TZID=Europe/Paris:20260601T200000"
    )
    parsed = parse(feed(THIS_AND_FUTURE_BASE, THIS_AND_FUTURE, later, single), window_end=date(2026, 7, 1))
    found = {e.source_key[len("club@example.org@") :]: (e.data["title"], e.data["start_date"]) for e in parsed.events}
    assert len(found) == len(parsed.events) == 26
    assert found["20260302T180000Z"] == ("Club night", "2026-03-02 19:00:00")
    assert found["20260427T170000Z"] == ("Club night (new room)", "2026-04-27 20:00:00")
    assert found["20260504T170000Z"] == ("Club night (garden)", "2026-05-04 18:00:00")
    assert found["20260525T170000Z"] == ("Club night (garden)", "2026-05-25 18:00:00")
    assert found["20260601T170000Z"] == ("Club night (cancelled band)", "2026-06-01 19:00:00")
    assert found["20260608T170000Z"] == ("Club night (garden)", "2026-06-08 18:00:00")


HISTORY_ZONE = """
BEGIN:VTIMEZONE
TZID:Office Zone
BEGIN:STANDARD
DTSTART:19700101T000000
TZOFFSETFROM:+0100
TZOFFSETTO:+0100
TZNAME:CET
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19960331T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
END:DAYLIGHT
BEGIN:STANDARD
DTSTART:19961027T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
END:STANDARD
END:VTIMEZONE
"""


def instant(event: FeedEvent) -> datetime:
    return datetime.fromisoformat(event.data["start_date"]).replace(tzinfo=ZoneInfo(event.data["timezone"])).astimezone(UTC)


def test_a_custom_vtimezone_is_matched_over_the_years_its_events_fall_in():
    text = feed(
        "UID:summer\nSUMMARY:Summer\nDTSTART;TZID=Office Zone:20250710T100000\nDTEND;TZID=Office Zone:20250710T110000",
        timezones=HISTORY_ZONE,
    )
    early = only(parse(text, window_start=date(1990, 1, 1), window_end=date(2026, 1, 1)))
    late = only(parse(text, window_start=date(2024, 1, 1), window_end=date(2026, 1, 1)))
    assert times(early) == times(late) == ("2025-07-10 10:00:00", "2025-07-10 11:00:00", "Europe/Berlin")
    assert instant(early) == instant(late) == datetime(2025, 7, 10, 8, tzinfo=UTC)


def test_a_custom_vtimezone_no_zone_matches_over_its_events_years_is_read_with_its_own_rules():
    text = feed(
        "UID:old\nDTSTART;TZID=Office Zone:19920710T100000",  # standard time all year in 1992: no zone agrees
        "UID:new\nDTSTART;TZID=Office Zone:20250710T100000",
        timezones=HISTORY_ZONE,
    )
    parsed = parse(text, window_start=date(1990, 1, 1), window_end=date(2026, 1, 1))
    assert [times(e)[::2] for e in parsed.events] == [("1992-07-10 09:00:00", "UTC"), ("2025-07-10 08:00:00", "UTC")]
    assert warned(parsed, "Office Zone", "converted")


def test_an_event_without_summary_is_imported_untitled_with_a_warning():
    parsed = parse(
        feed("UID:blank@example.org\nDTSTART:20260601T100000Z", "UID:empty@example.org\nSUMMARY: \nDTSTART:20260602T100000Z")
    )
    assert [e.data["title"] for e in parsed.events] == ["(No title)", "(No title)"]
    assert warned(parsed, "blank@example.org", "no SUMMARY", "(No title)")
    assert warned(parsed, "empty@example.org", "no SUMMARY")
    assert parsed.skipped == 0


def vevent_text(uid: str, end: str = "END:VEVENT", inner: str = "") -> str:
    return f"BEGIN:VEVENT\r\nUID:{uid}\r\nSUMMARY:{uid}\r\nDTSTART:20260601T100000Z\r\n{inner}{end + chr(13) + chr(10) if end else ''}"


BROKEN_SHAPES = {
    # an END naming another component closes (and skips) the one open
    "end-vtodo-in-vevent": (vevent_text("bad", "END:VTODO"), ["bad"]),
    # the END is missing before the next BEGIN
    "no-end-before-begin": (vevent_text("bad", ""), ["bad"]),
    # an alarm left open, then the next event
    "open-alarm-and-no-end": (vevent_text("bad", "", "BEGIN:VALARM\r\nACTION:DISPLAY\r\n"), ["bad"]),
    # a VTODO closed by END:VEVENT
    "vtodo-ended-as-vevent": ("BEGIN:VTODO\r\nUID:todo\r\nEND:VEVENT\r\n", []),
    # a stray END:VCALENDAR in the middle
    "stray-end-vcalendar": ("END:VCALENDAR\r\n", []),
    # an END:VCALENDAR inside an event
    "end-vcalendar-in-vevent": (vevent_text("bad", "END:VCALENDAR"), ["bad"]),
    # an alarm closed with the wrong name: the event itself is fine
    "alarm-ended-as-vtodo": (vevent_text("fine", "END:VEVENT", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VTODO\r\n"), []),
}


@pytest.mark.parametrize("shape", sorted(BROKEN_SHAPES))
def test_a_broken_component_costs_only_itself(shape):
    broken, skipped = BROKEN_SHAPES[shape]
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        + vevent_text("first")
        + broken
        + vevent_text("after1")
        + vevent_text("after2")
        + "END:VCALENDAR\r\n"
    )
    parsed = parse(text)
    uids = [e.uid for e in parsed.events]
    assert [uid for uid in uids if uid != "fine"] == ["first", "after1", "after2"]
    assert parsed.skipped == len(skipped)
    for uid in skipped:
        assert warned(parsed, f'"{uid}"', "skipped")
    assert parsed.warnings  # never silent


def test_events_repeating_a_uid_keep_one_and_say_so():
    parsed = parse(
        feed(
            "UID:twice@example.org\nSUMMARY:First copy\nDTSTART:20260601T100000Z",
            "UID:twice@example.org\nSUMMARY:Second copy\nDTSTART:20260602T100000Z",
            "UID:thrice@example.org\nSEQUENCE:1\nSUMMARY:Old\nDTSTART:20260601T100000Z\nRRULE:FREQ=DAILY;COUNT=2",
            "UID:thrice@example.org\nSEQUENCE:2\nSUMMARY:New\nDTSTART:20260601T120000Z\nRRULE:FREQ=DAILY;COUNT=2",
            "UID:thrice@example.org\nSEQUENCE:2\nSUMMARY:Newer\nDTSTART:20260601T130000Z",
            "UID:alone@example.org\nSUMMARY:Alone\nDTSTART:20260601T100000Z",
        )
    )
    assert [(e.uid, e.data["title"]) for e in parsed.events] == [
        ("twice@example.org", "First copy"),
        ("thrice@example.org", "New"),
        ("thrice@example.org", "New"),
        ("alone@example.org", "Alone"),
    ]
    assert parsed.skipped == 3
    assert warned(parsed, '"twice@example.org"', "1 other", "skipped")
    assert warned(parsed, '"thrice@example.org"', "2 other", "skipped")


def outlook_zone(name: str, minutes: int) -> str:
    standard = f"+{minutes // 60:02d}{minutes % 60:02d}"
    daylight = f"+{(minutes + 60) // 60:02d}{(minutes + 60) % 60:02d}"
    return (
        f"BEGIN:VTIMEZONE\nTZID:{name}\nBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:{daylight}\n"
        f"TZOFFSETTO:{standard}\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\nEND:STANDARD\nBEGIN:DAYLIGHT\n"
        f"DTSTART:16010101T020000\nTZOFFSETFROM:{standard}\nTZOFFSETTO:{daylight}\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\n"
        "END:DAYLIGHT\nEND:VTIMEZONE"
    )


def zoned_feed(count: int, first_minutes: int) -> str:
    zones = "\n".join(outlook_zone(f"Custom Zone {index}", first_minutes + index) for index in range(count))
    events = [
        f"UID:z{index}\nSUMMARY:In zone {index}\nDTSTART;TZID=Custom Zone {index}:20260701T120000\n"
        f"DTEND;TZID=Custom Zone {index}:20260701T130000\nRRULE:FREQ=WEEKLY;COUNT=30"
        for index in range(count)
    ]
    return feed(*events, timezones=zones)


def test_thirty_unmatched_outlook_vtimezones_parse_quickly():
    started = time.process_time()
    parsed = parse(zoned_feed(30, 3 * 60 + 17), budget_seconds=5.0)
    assert time.process_time() - started < 5
    assert len(parsed.events) == 30 * 27 and parsed.skipped == 0  # 27 weeks before 2027
    # +03:17 standard, +04:17 in summer (the last Sunday of March to the last of October).
    first = by_uid(parsed, "z0")[0]
    assert times(first) == ("2026-07-01 07:43:00", "2026-07-01 08:43:00", "UTC")
    assert not warned(parsed, "budget")


def test_the_whole_parse_stops_within_its_budget_and_says_what_was_left_out():
    started = time.process_time()
    parsed = parse(zoned_feed(30, 5 * 60 + 3), budget_seconds=0.001)
    assert time.process_time() - started < 5
    read = len({e.uid for e in parsed.events})
    assert read < 30 and parsed.skipped == 30 - read
    # The events are read in order: the first left out is named.
    assert warned(parsed, "ran out of its budget", f"{30 - read} event(s) were left out", f'"z{read}"')


def test_one_outlook_vtimezone_is_matched_in_well_under_a_tenth_of_a_second():
    parse(zoned_feed(1, 2 * 60 + 11))  # the IANA zones are loaded once per process
    for minutes in (4 * 60 + 7, 60):  # no zone has these offsets; Europe/London-like rules at +01:00 match several
        started = time.process_time()
        parsed = parse(zoned_feed(1, minutes).replace("RRULE:FREQ=WEEKLY;COUNT=30", ""))
        assert time.process_time() - started < 0.1
        assert len(parsed.events) == 1


SOUTHERN_WITH_HISTORY = """
BEGIN:VTIMEZONE
TZID:Southern Office
BEGIN:DAYLIGHT
DTSTART:19991003T020000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU;UNTIL=20061231T000000Z
TZOFFSETFROM:+1000
TZOFFSETTO:+1100
END:DAYLIGHT
BEGIN:STANDARD
DTSTART:20000326T030000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;UNTIL=20070401T000000Z
TZOFFSETFROM:+1100
TZOFFSETTO:+1000
END:STANDARD
BEGIN:STANDARD
DTSTART:20080406T030000
RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
TZOFFSETFROM:+1100
TZOFFSETTO:+1000
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:20071007T020000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
TZOFFSETFROM:+1000
TZOFFSETTO:+1100
END:DAYLIGHT
BEGIN:DAYLIGHT
DTSTART:20300101T000000
RDATE:20300101T000000,20310101T000000
TZOFFSETFROM:+1000
TZOFFSETTO:+1130
END:DAYLIGHT
END:VTIMEZONE
"""


@pytest.mark.parametrize(
    "definition",
    [
        EASTERN,
        CUSTOM_CET,
        MARS,
        HISTORY_ZONE,
        SOUTHERN_WITH_HISTORY,
        outlook_zone("Outlook", 3 * 60 + 17),
        "BEGIN:VTIMEZONE\nTZID:Every other year\nBEGIN:STANDARD\nDTSTART:19010101T000000\nTZOFFSETFROM:+0200\n"
        "TZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=11\nEND:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:19010601T000000\n"
        "TZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nRRULE:FREQ=YEARLY;INTERVAL=2\nEND:DAYLIGHT\nEND:VTIMEZONE",
    ],
)
def test_a_vtimezone_read_on_its_own_gives_the_offsets_dateutil_gives(definition):
    from icalendar import Calendar

    from calpress.calendar import ics_zones

    lines = [line.strip() for line in definition.strip().splitlines()]
    (component,) = Calendar.from_ical("\r\n".join(["BEGIN:VCALENDAR", *lines, "END:VCALENDAR", ""])).subcomponents
    reference = component.to_tz(lookup_tzid=False)
    zone = ics_zones.custom_zone(component, ics_zones.definition_key(lines), (1995, 2035))
    moment = datetime(1995, 1, 1, tzinfo=UTC)
    while moment.year < 2036:  # dateutil's reading is slow: every 20 days and 7 hours
        assert moment.astimezone(zone).replace(tzinfo=None) == moment.astimezone(reference).replace(tzinfo=None), moment
        moment += timedelta(days=20, hours=7)
    # Wall times read back (outside the hour a change skips or repeats).
    wall = datetime(2026, 7, 1, 12, tzinfo=zone)
    assert wall.utcoffset() == wall.replace(tzinfo=reference).utcoffset()


def test_a_vtimezone_read_on_its_own_repeats_and_skips_wall_times_as_zoneinfo_does():
    from icalendar import Calendar

    from calpress.calendar import ics_zones

    lines = [line.strip() for line in CUSTOM_CET.strip().splitlines()]
    (component,) = Calendar.from_ical("\r\n".join(["BEGIN:VCALENDAR", *lines, "END:VCALENDAR", ""])).subcomponents
    zone = ics_zones.custom_zone(component, ics_zones.definition_key(lines), (2026, 2026))
    berlin = ZoneInfo("Europe/Berlin")
    for day, hour in ((date(2026, 10, 25), 2), (date(2026, 3, 29), 2), (date(2026, 7, 1), 2)):
        for minute in (0, 30, 59):
            for fold in (0, 1):
                wall = datetime(day.year, day.month, day.day, hour, minute, fold=fold)
                assert wall.replace(tzinfo=zone).utcoffset() == wall.replace(tzinfo=berlin).utcoffset(), (wall, fold)
                assert wall.replace(tzinfo=zone).tzname() == wall.replace(tzinfo=berlin).tzname()
    moment = datetime(2026, 10, 24, 23, tzinfo=UTC)
    for _ in range(8):  # through the repeated hour, each instant with its fold
        mine, theirs = moment.astimezone(zone), moment.astimezone(berlin)
        assert (mine.replace(tzinfo=None), mine.fold) == (theirs.replace(tzinfo=None), theirs.fold)
        moment += timedelta(minutes=20)
