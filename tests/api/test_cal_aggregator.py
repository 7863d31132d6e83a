"""``cal/event-aggregator/v1`` (calendar-api.md 8, the reference's tests/aggregatorv1 and
examples/aggregator.md): the batch and state callbacks against real import records, their checks
in the reference's order, their effects on records and events, and the site's import routes."""

from __future__ import annotations

import io
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from appfixtures import allowed, allowed_ports, loopback_server
from content_support import context
from PIL import Image

from calpress.api import cal_aggregator
from calpress.calendar import imports
from calpress.content import items as item_service

BASE = "/cal/event-aggregator/v1/import"


def make_record(app: Any, author: Any, status: str = "pending", **kwargs: Any):
    """A record set up by ``author`` (an administrator: the events are written as them)."""
    with app.site.write() as conn:
        return imports.create_record(conn, context(app), origin="ea", source="https://feeds.example.test/cal.ics",
                                     status=status, author=author.id, **kwargs)


def reload(app: Any, record):
    with app.site.read() as conn:
        return item_service.get_item(conn, record.id)


def ea_event(number: int, **extra: Any) -> dict[str, Any]:
    return {
        "title": f"Imported {number}", "description": f"Body {number}", "start_date": f"2027-03-{number + 1:02d}",
        "start_hour": "10", "start_minute": "30", "end_date": f"2027-03-{number + 1:02d}", "end_hour": "12",
        "end_minute": "00", "timezone": "Europe/Paris", "global_id": f"feeds.example.test?id={number}", **extra,
    }


def status_object(done: int, total: int = 3, events_total: int = 9) -> dict[str, Any]:
    return {"data": {"total": events_total, "done": done * 3}, "batch": {"total": total, "done": done}}


def send_batch(client, record_or_id, batch_hash: str, done: int, events: list[dict[str, Any]], **extra: Any):
    import_id = record_or_id if isinstance(record_or_id, str) else record_or_id.meta[imports.IMPORT_ID]
    body = {"batch_hash": batch_hash, "status": status_object(done), "percentage_complete": 18, "events": events, **extra}
    return client.post(f"{BASE}/{import_id}/batch", json=body)


def test_three_batches_create_the_events_and_finish_the_record(app, admin, client):
    record = make_record(app, admin)
    batch_hash = record.meta[imports.NEXT_HASH]
    created: list[int] = []
    for done in range(3):
        events = [ea_event(done * 3 + n) for n in range(3)] if done < 2 else [ea_event(6), ea_event(7)]
        response = send_batch(client, record, batch_hash, done, events)
        assert response.status_code == 200, response.json
        body = response.json
        assert body["status"] == "success" and body["interval"] == 10
        new_ids = body["activity"]["cal_events"]["created"]
        assert len(new_ids) == len(events)
        created += new_ids
        stored = reload(app, record)
        assert stored.meta[imports.PERCENTAGE] == 18
        if done < 2:
            assert stored.status == "cal-ea-pending"
            assert body["next_batch_hash"] != batch_hash and len(body["next_batch_hash"]) == 32
            assert stored.meta[imports.NEXT_HASH] == body["next_batch_hash"]
            batch_hash = body["next_batch_hash"]
        else:
            assert stored.status == "cal-ea-success"
            assert "next_batch_hash" not in body and imports.NEXT_HASH not in stored.meta
    assert stored.meta[imports.TOTAL] == 9
    assert sorted(stored.meta[imports.ACTIVITY]["cal_events"]["created"]) == sorted(created)
    # The events are real calendar events, in their zone.
    event = client.get(f"/cal/events/v1/events/{created[0]}").json
    assert event["title"] == "Imported 0" and event["start_date"] == "2027-03-01 10:30:00"
    assert event["timezone"] == "Europe/Paris" and event["utc_start_date"] == "2027-03-01 09:30:00"
    # A finished record takes no more batches.
    again = send_batch(client, record, batch_hash, 0, [ea_event(9)])
    assert again.status_code == 400 and set(again.json["data"]["params"]) == {"import_id", "batch_hash"}


def test_a_batch_updates_what_an_earlier_one_created(app, admin, client, accounts):
    first = make_record(app, admin)
    answer = send_batch(client, first, first.meta[imports.NEXT_HASH], 0, [ea_event(1)]).json
    (event_id,) = answer["activity"]["cal_events"]["created"]
    second = make_record(app, admin)
    changed = ea_event(1, title="Renamed", start_hour="14", end_hour="16",
                       venue={"venue": "Town Hall", "address": "1 Main St", "city": "Lyon"},
                       organizer=[{"organizer": "Ann", "email": "ann@example.test"}], categories=["Music"])
    again = send_batch(client, second, second.meta[imports.NEXT_HASH], 0, [changed, ea_event(2)]).json
    assert again["activity"]["cal_events"]["updated"] == [event_id]
    assert len(again["activity"]["cal_events"]["created"]) == 1
    event = client.get(f"/cal/events/v1/events/{event_id}").json
    assert event["title"] == "Renamed" and event["start_date"] == "2027-03-02 14:30:00"
    assert event["venue"]["venue"] == "Town Hall" and event["organizer"][0]["organizer"] == "Ann"
    assert [c["name"] for c in event["categories"]] == ["Music"]
    listing = client.get("/cal/events/v1/events", params={"start_date": "2027-01-01", "per_page": 50}).json
    assert listing["total"] == 2
    # An event a user chose to ignore is left alone.
    with app.site.write() as conn:
        item = item_service.get_item(conn, event_id)
        item_service.update_item(conn, context(app), item, item_service.ItemChanges(status="cal-ignored"))
    third = make_record(app, admin)
    skipped = send_batch(client, third, third.meta[imports.NEXT_HASH], 0, [ea_event(1, title="Back?")]).json
    assert skipped["activity"]["cal_events"]["skipped"] == [event_id]
    assert reload(app, item).title == "Renamed"


@pytest.mark.parametrize("status", ["success", "failed", "schedule", "draft"])
def test_only_pending_records_take_batches(app, admin, client, status):
    record = make_record(app, admin, status=status)
    response = send_batch(client, record, "anything", 0, [ea_event(1)])
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"
    assert response.json["data"]["params"]["import_id"] == "Invalid parameter."
    assert reload(app, record).status == imports.STATUSES[status]


def test_the_reference_examples_of_refused_batches(app, client):
    unknown = client.post(f"{BASE}/nosuchimport053339/batch", json={
        "batch_hash": "abc123", "status": status_object(1), "percentage_complete": 50, "interval": 10})
    assert unknown.status_code == 400
    assert unknown.json == {"code": "rest_invalid_param", "message": "Invalid parameter(s): import_id, batch_hash",
                            "data": {"status": 400, "params": {"import_id": "Invalid parameter.", "batch_hash": "Invalid parameter."},
                                     "details": []}}
    malformed = client.post(f"{BASE}/nosuchimport053339/batch", json={
        "batch_hash": "abc123", "status": {"data": {"total": 1, "done": 5}, "batch": {"total": 1, "done": 0}},
        "percentage_complete": 50})
    assert list(malformed.json["data"]["params"]) == ["import_id", "batch_hash", "status"]
    typed = client.post(f"{BASE}/nosuchimport053339/batch", json={
        "batch_hash": "abc123", "status": "not-an-object", "percentage_complete": "lots", "interval": "soon"})
    assert list(typed.json["data"]["params"]) == ["import_id", "batch_hash", "status", "percentage_complete", "interval"]
    empty = client.post(f"{BASE}/nosuchimport053339/batch")
    assert empty.json["code"] == "rest_missing_callback_param"
    assert empty.json["data"]["params"] == ["batch_hash", "status", "percentage_complete"]
    assert client.post(f"{BASE}/not-a-word!/batch", json={}).json["code"] == "rest_no_route"
    assert client.get(f"{BASE}/abc/batch").status_code == 404


def test_a_wrong_or_missing_hash_changes_nothing(app, admin, client):
    record = make_record(app, admin)
    wrong = send_batch(client, record, "0" * 32, 0, [ea_event(1)])
    assert wrong.status_code == 400 and list(wrong.json["data"]["params"]) == ["batch_hash"]
    missing = client.post(f"{BASE}/{record.meta[imports.IMPORT_ID]}/batch",
                          json={"status": status_object(0), "percentage_complete": 5})
    assert missing.json["code"] == "rest_missing_callback_param" and missing.json["data"]["params"] == ["batch_hash"]
    # A record without a stored hash takes nothing (fail closed).
    with app.site.write() as conn:
        item_service.update_item(conn, context(app), reload(app, record),
                                 item_service.ItemChanges(protected_meta={imports.NEXT_HASH: None}))
    assert send_batch(client, record, "", 0, [ea_event(1)]).status_code == 400
    assert client.get("/cal/events/v1/events", params={"start_date": "2027-01-01"}).json["events"] == []
    assert reload(app, record).status == "cal-ea-pending"


def test_a_batch_over_the_size_the_service_is_asked_for_is_refused(app, admin, client):
    """The reference's site asks the service for batches of 10 events (its
    ``event_aggregator_event_batch_size`` filter): a larger batch is refused before anything is
    written, and the record keeps waiting for that batch with the same hash (issue 29, item 16)."""
    from cal_support import set_option

    record = make_record(app, admin)
    batch_hash = record.meta[imports.NEXT_HASH]
    over = [ea_event(n) for n in range(imports.BATCH_SIZE + 1)]
    refused = send_batch(client, record, batch_hash, 0, over)
    assert refused.status_code == 400
    assert refused.json == {"code": "rest_invalid_param", "message": "Invalid parameter(s): events",
                            "data": {"status": 400, "params": {"events": "A batch carries at most 10 events; this one carries 11."},
                                     "details": []}}
    assert client.get("/cal/events/v1/events", params={"start_date": "2027-01-01", "status": "any"},
                      user=admin).json["events"] == []
    stored = reload(app, record)
    assert stored.status == "cal-ea-pending" and stored.meta[imports.NEXT_HASH] == batch_hash
    assert not stored.meta.get(imports.ACTIVITY)
    # The reference's checks come first: a bad hash is named, not the size.
    assert list(send_batch(client, record, "0" * 32, 0, over).json["data"]["params"]) == ["batch_hash"]

    at_cap = send_batch(client, record, batch_hash, 0, over[:imports.BATCH_SIZE])
    assert at_cap.status_code == 200, at_cap.json
    assert len(at_cap.json["activity"]["cal_events"]["created"]) == imports.BATCH_SIZE

    # A site that asks for more (the option, as the reference's filter) takes more, up to 100.
    set_option(app, "cal_ea_batch_size", 11)
    bigger = send_batch(client, record, at_cap.json["next_batch_hash"], 1,
                        [ea_event(n, global_id=f"feeds.example.test?big={n}") for n in range(11)])
    assert bigger.status_code == 200 and len(bigger.json["activity"]["cal_events"]["created"]) == 11
    set_option(app, "cal_ea_batch_size", 3000)
    huge = send_batch(client, record, bigger.json["next_batch_hash"], 2, [ea_event(n % 27) for n in range(101)])
    assert huge.status_code == 400 and huge.json["data"]["params"] == {
        "events": "A batch carries at most 100 events; this one carries 101."}


@pytest.mark.parametrize(("option", "size"), [
    (None, 10), (10, 10), (1, 1), (25, 25), ("40", 40), (100, 100), (101, 100), (3000, 100), (0, 10), (-5, 10),
    ("", 10), ("lots", 10),
])
def test_the_batch_size_a_site_asks_for(option, size):
    assert imports.batch_size(option) == size


@pytest.mark.parametrize(("option", "interval"), [
    (10, 10), (30, 30), (200, 200), (600, 600), (601, 600), (None, 10), ("nan", 10), ("", 10), (5, 10),
])
def test_the_interval_answered(app, admin, client, option, interval):
    from cal_support import set_option

    set_option(app, "cal_ea_batch_interval", option)
    record = make_record(app, admin)
    assert send_batch(client, record, record.meta[imports.NEXT_HASH], 0, []).json["interval"] == interval


@pytest.mark.parametrize("status", ["success", "failed", "pending"])
def test_state_moves_a_pending_record(app, admin, client, status):
    record = make_record(app, admin)
    batch_hash = record.meta[imports.NEXT_HASH]
    response = client.post(f"{BASE}/{record.meta[imports.IMPORT_ID]}/state", json={
        "batch_hash": batch_hash, "status": status, "message": "Import said so", "message_slug": "said-so",
        "percentage_complete": 50})
    assert response.status_code == 200 and response.json == {"status": "success"}
    stored = reload(app, record)
    assert stored.status == f"cal-ea-{status}" and stored.meta[imports.PERCENTAGE] == 50
    assert (imports.NEXT_HASH in stored.meta) == (status == "pending")
    with app.site.read() as conn:
        errors = imports.error_entries(conn, stored)
    assert errors == ([("said-so", "Import said so")] if status == "failed" else [])


@pytest.mark.parametrize("status", ["draft", "schedule", "not-even-a-status"])
def test_state_refuses_other_statuses(app, admin, client, status):
    record = make_record(app, admin)
    response = client.post(f"{BASE}/{record.meta[imports.IMPORT_ID]}/state", json={
        "batch_hash": record.meta[imports.NEXT_HASH], "status": status, "message": "m", "message_slug": "m",
        "percentage_complete": 50})
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"
    assert response.json["data"]["params"] == {"status": "status is not one of success, failed, and pending."}
    assert reload(app, record).status == "cal-ea-pending"


def test_a_failed_report_with_a_bad_hash_leaves_the_record(app, admin, client):
    record = make_record(app, admin)
    body = {"status": "failed", "message": "m", "message_slug": "m", "percentage_complete": 50}
    wrong = client.post(f"{BASE}/{record.meta[imports.IMPORT_ID]}/state", json={**body, "batch_hash": "nope"})
    assert wrong.status_code == 400
    with app.site.write() as conn:
        item_service.update_item(conn, context(app), reload(app, record),
                                 item_service.ItemChanges(protected_meta={imports.NEXT_HASH: None}))
    no_hash = client.post(f"{BASE}/{record.meta[imports.IMPORT_ID]}/state", json={**body, "batch_hash": ""})
    assert no_hash.status_code == 400
    stored = reload(app, record)
    assert stored.status == "cal-ea-pending"
    with app.site.read() as conn:
        assert imports.error_entries(conn, stored) == []
    typed = client.post(f"{BASE}/nosuchimport053339/state", json={
        "batch_hash": ["x"], "status": 5, "message": "m", "message_slug": "m", "percentage_complete": "half"})
    assert list(typed.json["data"]["params"]) == ["import_id", "batch_hash", "percentage_complete"]


def test_a_schedule_never_changes_status(app, admin):
    record = make_record(app, admin, status="schedule")
    with app.site.write() as conn, pytest.raises(Exception) as error:
        imports.set_status(conn, context(app), record, "success")
    assert "current record status is cal-ea-schedule" in error.value.code


def test_the_site_lists_and_schedules_imports(app, admin, client, accounts):
    assert client.get("/cal/event-aggregator/v1/imports").status_code == 401
    assert client.get("/cal/event-aggregator/v1/imports", user=accounts["editor"]).status_code == 403
    created = client.post("/cal/event-aggregator/v1/imports", user=admin,
                          json={"source": "https://feeds.example.test/team.ics", "frequency": 3600})
    assert created.status_code == 201, created.json
    assert created.json["state"] == "schedule" and created.json["frequency"] == 3600
    assert created.json["source"] == "https://feeds.example.test/team.ics" and created.json["origin"] == "ics"
    bad = client.post("/cal/event-aggregator/v1/imports", user=admin, json={"source": "not a url"})
    assert bad.status_code == 400 and bad.json["code"] == "rest_invalid_param"
    make_record(app, admin)
    listing = client.get("/cal/event-aggregator/v1/imports", user=admin).json
    assert [r["state"] for r in listing] == ["pending", "schedule"]
    only = client.get("/cal/event-aggregator/v1/imports", user=admin, params={"status": "schedule"}).json
    assert [r["id"] for r in only] == [created.json["id"]]
    index = client.get("/cal/event-aggregator/v1").json["routes"]
    assert list(index)[:3] == ["/cal/event-aggregator/v1", "/cal/event-aggregator/v1/import/(?P<import_id>\\w+)/batch",
                               "/cal/event-aggregator/v1/import/(?P<import_id>\\w+)/state"]


# -- images of a pushed batch -----------------------------------------------------------------------


class _Images(BaseHTTPRequestHandler):
    """Any path is a small PNG; every request is counted."""

    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits.append(self.path)
        buffer = io.BytesIO()
        Image.new("RGB", (40, 30), "teal").save(buffer, format="PNG")
        body = buffer.getvalue()
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def image_server() -> Iterator[tuple[str, type[_Images]]]:
    handler = type("Images", (_Images,), {"hits": []})
    with loopback_server(handler) as address:
        yield address, handler


@pytest.fixture()
def outbound_allow(image_server) -> str:
    return allowed(image_server[0])


@pytest.fixture()
def outbound_ports(image_server) -> str:
    return allowed_ports(image_server[0])


def test_a_batch_downloads_fifty_images_at_most(app, admin, client, image_server):
    """Images given by address are fetched before the batch's transaction, 50 at most
    (``MAX_IMAGES``): the events past that cap are imported without their picture."""
    from cal_support import set_option

    address, handler = image_server
    set_option(app, "cal_ea_batch_size", cal_aggregator.MAX_IMAGES + 2)  # a site that asks for big batches
    record = make_record(app, admin)
    events = [ea_event(n % 27, global_id=f"feeds.example.test?img={n}", image=f"{address}/poster-{n}.png")
              for n in range(cal_aggregator.MAX_IMAGES + 2)]
    answer = send_batch(client, record, record.meta[imports.NEXT_HASH], 0, events)
    assert answer.status_code == 200, answer.json
    created = answer.json["activity"]["cal_events"]["created"]
    assert len(created) == len(events) and not answer.json["activity"]["cal_events"].get("skipped")
    assert sorted(handler.hits) == sorted(f"/poster-{n}.png" for n in range(cal_aggregator.MAX_IMAGES))
    with app.site.read() as conn:
        stored = item_service.get_items(conn, created)
    with_image = [item_id for item_id in created if stored[item_id].featured_media]
    assert with_image == created[:cal_aggregator.MAX_IMAGES]
    media = client.get("/cms/v2/media", user=admin, params={"per_page": 100}).json
    assert len(media) == cal_aggregator.MAX_IMAGES and all(m["media_type"] == "image" for m in media)


def test_a_refused_event_leaves_the_rest_of_its_batch_whole(app, admin, client):
    """A batch is written under one savepoint; when an event is refused (here an unreadable date,
    after its new venue was made), that is rolled back and the batch written event by event: the
    good events go in once, the refused one leaves nothing behind (its venue neither), and a
    later event naming that venue makes it afresh."""
    record = make_record(app, admin)
    events = [
        ea_event(1, venue={"venue": "Hall A", "city": "Lyon"}, categories=["Talks"]),
        ea_event(2, venue={"venue": "Hall B", "city": "Lyon"}, categories=["Talks", "Music"],
                 start_date="the day after tomorrow"),
        ea_event(3, venue={"venue": "Hall B", "city": "Lyon"}, categories=["Talks"]),
    ]
    answer = send_batch(client, record, record.meta[imports.NEXT_HASH], 0, events)
    assert answer.status_code == 200, answer.json
    created = answer.json["activity"]["cal_events"]["created"]
    assert len(created) == 2
    listing = client.get("/cal/events/v1/events", params={"start_date": "2027-01-01", "per_page": 50}).json
    assert sorted(e["title"] for e in listing["events"]) == ["Imported 1", "Imported 3"]
    venues = client.get("/cal/events/v1/venues", params={"per_page": 50}).json["venues"]
    assert sorted(v["venue"] for v in venues) == ["Hall A", "Hall B"]
    third = next(e for e in listing["events"] if e["title"] == "Imported 3")
    assert third["venue"]["id"] == next(v["id"] for v in venues if v["venue"] == "Hall B")
    # The counts hold what was kept: two events in Talks; Music went with the refused event.
    categories = client.get("/cal/events/v1/categories", params={"hide_empty": "false"}).json["categories"]
    assert {c["name"]: c["count"] for c in categories} == {"Talks": 2}


def test_what_a_source_said_is_digested_whatever_its_values():
    """The digest that lets an unchanged event be skipped: the same for the same event in any key
    order, different when anything differs, and made of values JSON cannot hold too (an integer
    beyond 64 bits, which orjson refuses) instead of failing the batch."""
    event = ea_event(1, categories=["Music"], venue={"venue": "Hall", "city": "Lyon"})
    assert imports.source_digest(event) == imports.source_digest(dict(reversed(list(event.items()))))
    assert imports.source_digest(event) != imports.source_digest({**event, "title": "Other"})
    huge = {**event, "cost": 10**30}
    assert imports.source_digest(huge) == imports.source_digest(dict(huge)) != imports.source_digest({**huge, "cost": 10**31})
