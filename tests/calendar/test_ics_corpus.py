"""A corpus of small hand-written iCalendar files (``data/ics_corpus``: every kind of rule, EXDATE
and RDATE, overrides, RANGE=THISANDFUTURE, all-day, floating, UTC, IANA and custom VTIMEZONEs,
DST changes, COUNT and UNTIL, DURATION) read by calpress's importer
(:func:`calpress.calendar.ics_import.parse_feed`) and by ``recurring-ical-events`` over the same
window: both must find the same occurrences, compared per UID as UTC instants (wall times for
floating events, days for all-day ones).

The importer's documented differences are applied to the library's answer first: cancelled
occurrences are left out, and a feed's ``X-WR-TIMEZONE`` is applied to its UTC times (what the
``x-wr-timezone`` package does). Files the library cannot read are skipped. Pure: no database.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
import x_wr_timezone

from calpress.calendar.ics_import import FeedEvent, parse_feed

CORPUS = Path(__file__).parent / "data" / "ics_corpus"
FILES = sorted(CORPUS.glob("*.ics"))
WINDOW = (date(2026, 1, 1), date(2027, 1, 1))

Key = tuple[str, str]


def library_key(start: date) -> Key:
    if not isinstance(start, datetime):
        return "date", start.isoformat()
    if start.tzinfo is None:
        return "wall", start.isoformat(sep=" ")
    return "utc", start.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ")


def our_key(event: FeedEvent, kind: str) -> Key:
    data = event.data
    if data["all_day"]:
        return "date", data["start_date"][:10]
    if kind == "wall":
        return "wall", data["start_date"]
    zone = UTC if data["timezone"] == "UTC" else ZoneInfo(data["timezone"])
    instant = datetime.fromisoformat(data["start_date"]).replace(tzinfo=zone).astimezone(UTC)
    return "utc", instant.replace(tzinfo=None).isoformat(sep=" ")


def library_occurrences(data: bytes) -> dict[str, list[Key]]:
    calendar = icalendar.Calendar.from_ical(data)
    if calendar.get("X-WR-TIMEZONE"):
        calendar = x_wr_timezone.to_standard(calendar)
    start, end = (datetime.combine(day, datetime.min.time()) for day in WINDOW)
    found: dict[str, list[Key]] = defaultdict(list)
    for occurrence in recurring_ical_events.of(calendar).between(start, end):
        if str(occurrence.get("STATUS", "")).upper() == "CANCELLED":
            continue
        found[str(occurrence["UID"])].append(library_key(occurrence["DTSTART"].dt))
    return found


def test_the_corpus_is_there():
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_calpress_finds_the_occurrences_recurring_ical_events_finds(path):
    data = path.read_bytes()
    parsed = parse_feed(data, window_start=WINDOW[0], window_end=WINDOW[1], default_timezone="UTC")
    assert parsed.skipped == 0, parsed.warnings
    keys = [event.source_key for event in parsed.events]
    assert len(keys) == len(set(keys)), "two occurrences share an identity"
    try:
        expected = library_occurrences(data)
    except Exception as err:  # not readable by the library: only calpress's own checks above
        pytest.skip(f"recurring-ical-events cannot read {path.name}: {err}")
    ours: dict[str, list[FeedEvent]] = defaultdict(list)
    for event in parsed.events:
        ours[event.uid].append(event)
    assert sorted(ours) == sorted(expected), "not the same events"
    for uid, wanted in expected.items():
        kind = wanted[0][0]
        assert sorted(our_key(event, kind) for event in ours[uid]) == sorted(wanted), uid
