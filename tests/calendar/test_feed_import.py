"""iCalendar feeds imported into the site (calendar/feed_import.py), through the import records'
own batch path: records and progress, re-runs that update instead of duplicating, vanished events,
feeds fetched through the guarded client, the command line, schedules, and the round trip of the
site's own .ics export into a fresh site."""

from __future__ import annotations

import datetime as dt
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cal_support import make_event

from calpress.app import Calpress
from calpress.calendar import feed_import, imports
from calpress.config import load_settings
from calpress.content import items as item_service

WINDOW = (dt.date(2027, 1, 1), dt.date(2028, 1, 1))
EVENTS = "/cal/events/v1/events"


def feed(*vevents: str, name: str = "Team") -> bytes:
    body = "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//feeds//EN", f"X-WR-CALNAME:{name}", *vevents,
                        "END:VCALENDAR", ""])
    return body.encode()


def vevent(uid: str, summary: str, start: str, end: str, *extra: str) -> str:
    return "\r\n".join(["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20261101T000000Z", f"SUMMARY:{summary}", start, end, *extra,
                        "END:VEVENT"])


BASIC = [
    vevent("a@test", "Kick-off", "DTSTART;TZID=Europe/Paris:20270310T090000", "DTEND;TZID=Europe/Paris:20270310T100000",
           "LOCATION:Town Hall, 1 Main St, Lyon", "ORGANIZER;CN=Ann Lee:mailto:ann@example.test", "CATEGORIES:Music,Talks"),
    vevent("b@test", "Fair", "DTSTART;VALUE=DATE:20270401", "DTEND;VALUE=DATE:20270403"),
    vevent("c@test", "Weekly", "DTSTART;TZID=Europe/Paris:20270301T180000", "DTEND;TZID=Europe/Paris:20270301T190000",
           "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Paris:20270308T180000"),
]


def run(app: Any, admin: Any, data: bytes, **kwargs: Any) -> feed_import.FeedRun:
    return feed_import.run_feed_import(app.site, "https://feeds.example.test/team.ics", author=admin.id, data=data,
                                       window=WINDOW, **kwargs)


def listed(client: Any, admin: Any) -> dict[str, dict[str, Any]]:
    events = client.get(EVENTS, user=admin, params={"start_date": "2027-01-01", "end_date": "2027-12-31", "per_page": 50,
                                                    "status": "publish,draft"}).json["events"]
    return {f"{e['title']} {e['start_date']}": e for e in events}


def test_a_feed_becomes_events_through_an_import_record(app, client, admin):
    calls: list[tuple[int, int]] = []
    result = run(app, admin, feed(*BASIC), batch_size=2, progress=lambda done, total: calls.append((done, total)))
    assert result.state == "success" and not result.error and not result.problems
    assert len(result.created) == 5 and result.updated == [] and result.vanished == []
    assert calls == [(2, 5), (4, 5), (5, 5)]  # three batches of at most two
    events = listed(client, admin)
    assert sorted(events) == ["Fair 2027-04-01 00:00:00", "Kick-off 2027-03-10 09:00:00", "Weekly 2027-03-01 18:00:00",
                              "Weekly 2027-03-15 18:00:00", "Weekly 2027-03-22 18:00:00"]
    kickoff = events["Kick-off 2027-03-10 09:00:00"]
    assert kickoff["timezone"] == "Europe/Paris" and kickoff["utc_start_date"] == "2027-03-10 08:00:00"
    assert kickoff["venue"]["venue"] and "Town Hall" in kickoff["venue"]["venue"]
    assert kickoff["organizer"][0]["email"] == "ann@example.test"
    assert sorted(c["name"] for c in kickoff["categories"]) == ["Music", "Talks"]
    fair = events["Fair 2027-04-01 00:00:00"]
    assert fair["all_day"] is True and fair["end_date"].startswith("2027-04-02")
    with app.site.read() as conn:
        record = item_service.get_item(conn, result.record_id)
    assert record.status == "cal-ea-success" and record.meta[imports.PERCENTAGE] == 100
    assert record.meta[imports.TOTAL] == 5 and record.meta[imports.ORIGIN] == "ics"
    assert sorted(record.meta[imports.ACTIVITY]["cal_events"]["created"]) == sorted(result.created)


def test_a_re_run_updates_and_reports_what_vanished(app, client, admin):
    first = run(app, admin, feed(*BASIC))
    changed = [BASIC[0].replace("SUMMARY:Kick-off", "SUMMARY:Kick-off (moved)").replace("T090000", "T140000"), BASIC[2]]
    second = run(app, admin, feed(*changed))
    assert second.created == [] and len(second.updated) == 4
    assert set(second.updated) <= set(first.created)
    fair_id = next(i for i in first.created if i not in second.updated)
    assert second.vanished == [fair_id] and second.removed == []
    events = listed(client, admin)
    assert "Kick-off (moved) 2027-03-10 14:00:00" in events and len(events) == 5  # nothing duplicated, the fair kept
    third = run(app, admin, feed(*changed), remove_missing=True)
    assert third.vanished == [fair_id] and third.removed == [fair_id]
    assert len(listed(client, admin)) == 4


def test_an_unreadable_feed_fails_its_record(app, client, admin):
    result = run(app, admin, b"<html>not a calendar</html>")
    assert result.state == "failed" and "could not be read" in result.error
    with app.site.read() as conn:
        record = item_service.get_item(conn, result.record_id)
        assert record.status == "cal-ea-failed"
        assert imports.error_entries(conn, record)[0][0] == "feed-unreadable"
    assert listed(client, admin) == {}


class _Feeds(BaseHTTPRequestHandler):
    body = b""
    hits = 0

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/calendar")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def feed_server() -> Iterator[tuple[str, type[_Feeds]]]:
    handler = type("Feeds", (_Feeds,), {"body": feed(*BASIC), "hits": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


@pytest.fixture()
def outbound_allow(feed_server) -> str:
    return feed_server[0].removeprefix("http://")


@pytest.fixture()
def outbound_ports(feed_server) -> str:
    return "80,443," + feed_server[0].rsplit(":", 1)[1]


def test_an_address_is_fetched_through_the_guarded_client(app, client, admin, feed_server):
    address, handler = feed_server
    result = feed_import.run_feed_import(app.site, address + "/team.ics", author=admin.id, window=WINDOW)
    assert result.state == "success" and len(result.created) == 5 and handler.hits == 1
    # webcal:// is https: refused here as any address the policy does not allow
    refused = feed_import.run_feed_import(app.site, "webcal://10.0.0.1/team.ics", author=admin.id, window=WINDOW)
    assert refused.state == "failed" and "10.0.0.1" in refused.error


def test_schedules_run_when_due(app, client, admin, feed_server):
    address, handler = feed_server
    created = client.post("/cal/event-aggregator/v1/imports", user=admin,
                          json={"source": address + "/team.ics", "frequency": 3600}).json
    now = dt.datetime(2027, 2, 1, 12, 0, tzinfo=dt.UTC)
    first = feed_import.run_due(app.site, now=now)
    assert [schedule.id for schedule, _ in first] == [created["id"]] and handler.hits == 1
    assert first[0][1].state == "success"
    assert feed_import.run_due(app.site, now=now + dt.timedelta(minutes=30)) == []  # not yet
    again = feed_import.run_due(app.site, now=now + dt.timedelta(hours=1, seconds=1))
    assert len(again) == 1 and again[0][1].created == [] and handler.hits == 2
    listing = client.get("/cal/event-aggregator/v1/imports", user=admin).json
    schedule = next(r for r in listing if r["id"] == created["id"])
    assert schedule["last_run"].startswith("2027-02-01T13:00:01")
    children = [r for r in listing if r["schedule"] == created["id"]]
    assert len(children) == 2 and {r["state"] for r in children} == {"success"}


def test_the_site_s_own_export_imports_into_a_fresh_site(app, client, admin, tmp_path):
    """The round trip: events made here, exported as the site's .ics feed, imported into another
    site (a fresh SQLite one), come back with the same titles, times, zones and venues."""
    made = [
        make_event(client, admin, "Concert", start_date="2027-03-27 20:00:00", end_date="2027-03-27 23:30:00",
                   timezone="Europe/Paris", venue={"venue": "Opera House", "city": "Paris"}),
        make_event(client, admin, "Across the change", start_date="2027-03-28 01:30:00", end_date="2027-03-28 04:00:00",
                   timezone="Europe/Paris"),
        make_event(client, admin, "Festival", start_date="2027-05-01", end_date="2027-05-03", all_day=True,
                   timezone="America/New_York"),
        make_event(client, admin, "Breakfast", start_date="2027-06-02 08:00:00", end_date="2027-06-02 09:00:00",
                   timezone="Asia/Tokyo", organizer=[{"organizer": "Kenji", "email": "kenji@example.test"}]),
    ]
    exported = client.get("/events/ical/", params={"tribe-bar-date": "2027-01-01"})
    assert exported.status_code == 200 and exported.content.startswith(b"BEGIN:VCALENDAR")
    other = Calpress(load_settings({"data_dir": str(tmp_path / "other"), "secret_key": secrets.token_hex(8),
                                    "environment": "local", "site_url": "http://other.test"}, environ={}))
    try:
        from appfixtures import create_account

        other_admin = create_account(other, "boss", "administrator")
        result = feed_import.run_feed_import(other.site, "export.ics", author=other_admin.id, data=exported.content,
                                             window=WINDOW)
        assert result.state == "success" and not result.problems and not result.warnings, result
        other_client_events = listed_on(other, other_admin)
    finally:
        other.site.close()
    for original in made:
        key = f"{original['title']} {original['start_date']}"
        copy = other_client_events[key]
        # An all-day event is a span of days in iCalendar (DATE values, no zone): its days and
        # flag come back, its zone is the importing site's.
        fields = ("end_date", "all_day") if original["all_day"] else ("end_date", "utc_start_date", "utc_end_date", "timezone")
        for field in fields:
            assert copy[field] == original[field], (key, field)
        assert bool(copy["venue"]) == bool(original["venue"])
        if original["venue"]:
            assert copy["venue"]["venue"].startswith(original["venue"]["venue"])
        if original["organizer"]:
            assert copy["organizer"][0]["organizer"] == original["organizer"][0]["organizer"]
    assert len(other_client_events) == len(made)


def listed_on(app: Any, admin: Any) -> dict[str, dict[str, Any]]:
    from appfixtures import RestClient

    return listed(RestClient(app), admin)


def test_a_feed_over_the_size_limit_is_refused_unread(app, admin, tmp_path, monkeypatch):
    monkeypatch.setattr(feed_import, "MAX_FEED_BYTES", 1000)
    big = tmp_path / "big.ics"
    big.write_bytes(feed(*BASIC) + b" " * 1000)
    result = feed_import.run_feed_import(app.site, str(big), author=admin.id, window=WINDOW)
    assert result.state == "failed" and "larger than 1,000 bytes" in result.error
    with app.site.read() as conn:
        assert imports.imported_from(conn, "ics:") == {}


def generated_feed(singles: int, series: int, per_series: int) -> bytes:
    """A feed of ``singles`` one-off events and ``series`` weekly series of ``per_series``."""
    blocks = []
    for number in range(singles):
        day = dt.date(2027, 2, 1) + dt.timedelta(days=number % 300)
        blocks.append(vevent(f"single-{number}@gen", f"Single {number}", f"DTSTART;TZID=Europe/Paris:{day:%Y%m%d}T100000",
                             f"DTEND;TZID=Europe/Paris:{day:%Y%m%d}T110000", f"LOCATION:Room {number % 7}"))
    for number in range(series):
        day = dt.date(2027, 3, 1) + dt.timedelta(days=number)
        blocks.append(vevent(f"series-{number}@gen", f"Series {number}", f"DTSTART;TZID=Europe/Paris:{day:%Y%m%d}T180000",
                             f"DTEND;TZID=Europe/Paris:{day:%Y%m%d}T190000", f"RRULE:FREQ=WEEKLY;COUNT={per_series}"))
    return feed(*blocks)


def imported_count(app: Any) -> tuple[int, int]:
    """(events an import made, distinct global ids among them)."""
    with app.site.read() as conn:
        found = imports.imported_from(conn, "ics:")
        events = [item for item in found.values()]
    return len(events), len({item.meta[imports.GLOBAL_ID_KEY] for item in events})


def test_a_generated_feed_imports_once_and_a_second_run_changes_nothing(app, admin):
    data = generated_feed(singles=100, series=20, per_series=5)
    first = run(app, admin, data)
    assert first.state == "success" and len(first.created) == 200 and not first.problems
    with app.site.read() as conn:
        before = {gid: (item.modified_utc, item.title) for gid, item in imports.imported_from(conn, "ics:").items()}
    second = run(app, admin, data)
    assert second.created == [] and len(second.updated) == 200 and second.vanished == []
    with app.site.read() as conn:
        after = {gid: item.title for gid, item in imports.imported_from(conn, "ics:").items()}
    assert after == {gid: title for gid, (_, title) in before.items()} and len(after) == 200
    # Venues from LOCATION are reused when identical: 7 rooms, however many events.
    import sqlalchemy as sa

    from calpress.store.tables import posts

    with app.site.read() as conn:
        venues = conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == "cal_venue")).scalar_one()
    assert venues == 7


def test_a_run_killed_halfway_then_run_again_ends_with_every_event_once(app, admin):
    data = generated_feed(singles=60, series=10, per_series=4)

    class Killed(Exception):
        pass

    def kill_after_two_batches(done: int, total: int) -> None:
        if done >= 40:
            raise Killed

    with pytest.raises(Killed):
        run(app, admin, data, batch_size=20, progress=kill_after_two_batches)
    assert imported_count(app) == (40, 40)  # two whole batches in, nothing half-written
    with app.site.read() as conn:
        stalled = imports.records(conn, statuses=["pending"])
    assert len(stalled) == 1 and stalled[0].meta[imports.PERCENTAGE] == 40
    again = run(app, admin, data, batch_size=20)
    assert again.state == "success" and len(again.created) == 60 and len(again.updated) == 40
    assert imported_count(app) == (100, 100)
