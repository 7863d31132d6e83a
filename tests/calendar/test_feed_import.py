"""iCalendar feeds imported into the site (calendar/feed_import.py), through the import records'
own batch path: records and progress, re-runs that update instead of duplicating, vanished events,
feeds fetched through the guarded client, the command line, schedules, and the round trip of the
site's own .ics export into a fresh site."""

from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import sqlalchemy as sa
from appfixtures import allowed, allowed_ports, loopback_server
from cal_support import make_event

from calpress.app import Calpress
from calpress.calendar import feed_import, imports
from calpress.calendar.demo import demo_feed
from calpress.config import load_settings
from calpress.content import items as item_service
from calpress.store.tables import event_links, events, posts, term_links, terms

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
    # The kick-off changed: updated; the weekly occurrences are as before: left alone.
    assert second.created == [] and len(second.updated) == 1 and len(second.skipped) == 3
    assert set(second.updated + second.skipped) <= set(first.created)
    fair_id = next(i for i in first.created if i not in second.updated + second.skipped)
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


def test_untitled_events_are_imported_and_what_the_feed_lost_is_counted_and_named(app, client, admin, capsys):
    from calpress.cli.import_export import print_run

    untitled = "\r\n".join(["BEGIN:VEVENT", "UID:untitled@test", "DTSTAMP:20261101T000000Z",
                             "DTSTART;TZID=Europe/Paris:20270312T090000", "DTEND;TZID=Europe/Paris:20270312T100000",
                             "END:VEVENT"])
    twice = vevent("twice@test", "Second copy", "DTSTART:20270313T090000Z", "DTEND:20270313T100000Z")
    broken = vevent("broken@test", "Broken", "DTSTART:20270314T090000Z", "DTEND:20270314T100000Z").replace(
        "END:VEVENT", "END:VTODO")
    result = run(app, admin, feed(BASIC[0], untitled, BASIC[0].replace("a@test", "twice@test"), twice, broken))
    assert result.state == "success" and not result.problems
    assert len(result.created) == 3 and result.skipped == [] and result.left_out == 2
    events = listed(client, admin)
    assert "(No title) 2027-03-12 09:00:00" in events and "Second copy 2027-03-13 09:00:00" not in events
    assert any("untitled@test" in w and "no SUMMARY" in w for w in result.warnings)
    assert any('"twice@test"' in w and "skipped" in w for w in result.warnings)
    assert any('"broken@test"' in w and "skipped" in w for w in result.warnings)
    assert print_run("team.ics", result, False) == 0
    out, err = capsys.readouterr()
    assert "3 created, 0 updated, 2 skipped (2 not imported: see the warnings above)." in out
    assert "broken@test" in err and "twice@test" in err
    # Run again: the three are unchanged, the two still not imported.
    again = run(app, admin, feed(BASIC[0], untitled, BASIC[0].replace("a@test", "twice@test"), twice, broken))
    print_run("team.ics", again, False)
    assert "0 created, 0 updated, 5 skipped (2 not imported" in capsys.readouterr()[0]
    # Events the feed no longer gives are not trashed while some of its events were not imported.
    partial = run(app, admin, feed(BASIC[0], broken), remove_missing=True)
    assert len(partial.vanished) == 2 and partial.removed == [] and partial.left_out == 1
    assert any("not moved to the trash" in w for w in partial.warnings)
    assert run(app, admin, feed(BASIC[0]), remove_missing=True).removed == partial.vanished


class _Feeds(BaseHTTPRequestHandler):
    body = b""
    hits = 0

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits += 1
        if self.path.startswith("/moved"):  # a redirect to a private address
            self.send_response(302)
            self.send_header("Location", "http://10.0.0.1/team.ics")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
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
    with loopback_server(handler) as address:
        yield address, handler


@pytest.fixture()
def outbound_allow(feed_server) -> str:
    return allowed(feed_server[0])


@pytest.fixture()
def outbound_ports(feed_server) -> str:
    return allowed_ports(feed_server[0])


def test_an_address_is_fetched_through_the_guarded_client(app, client, admin, feed_server):
    address, handler = feed_server
    result = feed_import.run_feed_import(app.site, address + "/team.ics", author=admin.id, window=WINDOW)
    assert result.state == "success" and len(result.created) == 5 and handler.hits == 1
    # webcal:// is https: refused here as any address the policy does not allow
    refused = feed_import.run_feed_import(app.site, "webcal://10.0.0.1/team.ics", author=admin.id, window=WINDOW)
    assert refused.state == "failed" and "10.0.0.1" in refused.error
    # An allowed address that redirects to a private one: the redirect is not followed.
    redirected = feed_import.run_feed_import(app.site, address + "/moved.ics", author=admin.id, window=WINDOW)
    assert redirected.state == "failed" and "10.0.0.1" in redirected.error and handler.hits == 2
    with app.site.read() as conn:
        record = item_service.get_item(conn, redirected.record_id)
        assert record.status == "cal-ea-failed" and imports.error_entries(conn, record)[0][0] == "feed-unreadable"
    assert len(listed(client, admin)) == 5  # only the first import's events


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


def test_a_due_schedule_runs_once_when_several_machines_run_due(app, client, admin, feed_server, monkeypatch):
    """Two machines' run-due list the schedule as due at the same moment; the second to claim it
    finds it already run (tests/e2e/test_fleet.py runs this across real nodes)."""
    address, handler = feed_server
    client.post("/cal/event-aggregator/v1/imports", user=admin, json={"source": address + "/team.ics", "frequency": 3600})
    now = dt.datetime(2027, 2, 1, 12, 0, tzinfo=dt.UTC)
    with app.site.read() as conn:
        listed_by_the_other_machine = imports.due_schedules(conn, now)
    assert len(feed_import.run_due(app.site, now=now)) == 1 and handler.hits == 1
    monkeypatch.setattr(imports, "due_schedules", lambda conn, now: listed_by_the_other_machine)
    assert feed_import.run_due(app.site, now=now + dt.timedelta(seconds=1)) == [] and handler.hits == 1


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
        assert list(imports.imported_events(conn, "ics:")) == []


# The done-when figure of issue 13: a generated feed of 5,000 events, series included.
GENERATED = 5000
GENERATED_TODAY = dt.date(2027, 1, 25)  # demo_feed's events fall 20 days before to 320 after: inside WINDOW


def generated_feed(count: int = GENERATED) -> bytes:
    return demo_feed(count, today=GENERATED_TODAY)


def imported_count(app: Any) -> tuple[int, int]:
    """(events an import made, distinct global ids among them)."""
    with app.site.read() as conn:
        found = list(imports.imported_events(conn, "ics:"))
    return len(found), len({global_id for global_id, *_ in found})


def stored_calendar(app: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables an import writes (but its own records): to compare before and after."""
    with app.site.read() as conn:
        found = {"posts": [tuple(row) for row in conn.execute(
            sa.select(posts).where(posts.c.type != imports.RECORD_TYPE).order_by(posts.c.id))]}
        for table, key in ((events, events.c.post_id), (event_links, event_links.c.event_id), (terms, terms.c.id),
                           (term_links, term_links.c.object_id)):
            found[table.name] = [tuple(row) for row in conn.execute(sa.select(table).order_by(key, *table.c))]
    return found


def assert_term_counts_exact(app: Any) -> None:
    """Every term's stored count is what counting its published events' links gives."""
    with app.site.read() as conn:
        linked = (sa.select(sa.func.count()).select_from(term_links.join(posts, posts.c.id == term_links.c.object_id))
                  .where(term_links.c.term_id == terms.c.id, posts.c.status == "publish").scalar_subquery())
        rows = conn.execute(sa.select(terms.c.name, terms.c.count, linked.label("linked"))).all()
    assert [(row.name, row.count) for row in rows] == [(row.name, row.linked) for row in rows]
    assert sum(row.count for row in rows) > 0


def test_a_generated_feed_imports_once_and_a_second_run_changes_nothing(app, admin):
    data = generated_feed()
    assert data.count(b"RRULE:") > 100  # series, expanded into single events
    first = run(app, admin, data)
    assert first.state == "success" and len(first.created) == GENERATED and not first.problems and not first.warnings
    assert imported_count(app) == (GENERATED, GENERATED)
    assert_term_counts_exact(app)  # counted up batch by batch, not recounted
    with app.site.read() as conn:  # slugs known per batch: a series' ten occurrences get title, title-2 ... title-10
        slugs = conn.execute(sa.select(posts.c.slug, posts.c.title).where(posts.c.type == "cal_events")).all()
    assert len({slug for slug, _ in slugs}) == len(slugs) == GENERATED
    series = sorted(slug for slug, title in slugs if title == "Jazz Night series 0")
    assert series == sorted(["jazz-night-series-0", *(f"jazz-night-series-0-{n}" for n in range(2, 11))])
    before = stored_calendar(app)
    second = run(app, admin, data)
    assert second.state == "success" and second.created == [] and second.updated == [] and second.vanished == []
    assert sorted(second.skipped) == sorted(first.created)
    assert stored_calendar(app) == before  # not a row written, no revision made
    # Venues from LOCATION are reused when identical: as many as the feed names, however many events.
    locations = {line for line in data.decode().splitlines() if line.startswith("LOCATION:")}
    with app.site.read() as conn:
        venues = conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == "cal_venue")).scalar_one()
    assert venues == len(locations) < 400


def test_a_run_killed_halfway_then_run_again_ends_with_every_event_once(app, admin):
    data = generated_feed()
    half = GENERATED // 2

    class Killed(Exception):
        pass

    def kill_halfway(done: int, total: int) -> None:
        if done >= half:
            raise Killed

    with pytest.raises(Killed):
        run(app, admin, data, progress=kill_halfway)
    assert imported_count(app) == (half, half)  # whole batches in, nothing half-written
    with app.site.read() as conn:
        stalled = imports.records(conn, statuses=["pending"])
    assert len(stalled) == 1 and stalled[0].meta[imports.PERCENTAGE] == 50
    again = run(app, admin, data)
    assert again.state == "success" and len(again.created) == GENERATED - half and len(again.skipped) == half
    assert imported_count(app) == (GENERATED, GENERATED)
    assert_term_counts_exact(app)


def test_what_a_run_found_earlier_is_checked_again_each_batch(app, admin):
    """A run finds each venue, organizer and category once and remembers it across its batches
    (each its own transaction); one trashed or deleted meanwhile is forgotten at the next batch,
    so no event links it: the next batch makes it anew."""
    from calpress.content import terms as term_store

    with app.site.write() as conn:
        record = imports.create_record(conn, item_service.Context.of(app.site, options=app.site.load_options()),
                                       origin="ics", source="test", author=admin.id)
    resolved: imports.Resolved = {}

    def batch(number: int) -> dict[str, Any]:
        with app.site.write() as conn:
            ctx = imports.acting_context(conn, item_service.Context.of(app.site, options=app.site.load_options()), record)
            activity = imports.apply_batch(conn, ctx, record, [{
                "title": f"Talk {number}", "start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 11:00:00",
                "venue": {"venue": "Hall X"}, "organizer": {"organizer": "Ann"}, "categories": ["Talks"],
                "global_id": f"test#{number}"}], resolved=resolved)
            (event_id,) = activity.items["cal_events"]["created"]
            event = item_service.get_item(conn, event_id)
            found = term_store.get_object_terms(conn, [event_id], ["cal_events_cat"])[event_id]["cal_events_cat"]
            return {"venue": event.meta["_EventVenueID"][0], "organizer": event.meta["_EventOrganizerID"][0],
                    "category": found[0].id}

    first = batch(1)
    assert batch(2) == first  # found once, reused
    with app.site.write() as conn:
        ctx = item_service.Context.of(app.site, options=app.site.load_options())
        item_service.trash_item(conn, dataclasses.replace(ctx, user=_user(conn, admin)), item_service.get_item(conn, first["venue"]))
        term_store.delete_term(conn, app.site.registry, term_store.get_term(conn, first["category"]))
    third = batch(3)
    assert third["organizer"] == first["organizer"]
    assert third["venue"] != first["venue"] and third["category"] != first["category"]
    with app.site.read() as conn:
        assert item_service.get_item(conn, third["venue"]).status == "publish"
        assert term_store.get_term(conn, third["category"]).name == "Talks"


def _user(conn: Any, account: Any) -> Any:
    from calpress.auth import users

    return users.get_user(conn, account.id)
