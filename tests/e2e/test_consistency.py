"""A write followed at once by a read of the list it changed: the read sees the write, whichever of
two server workers answers it (issue 14). Each worker keeps its own answer cache; both are primed
with the listing first, so a worker that did not see the write itself must notice it from the
database's content counter."""

from __future__ import annotations

import httpx
import pytest
from appfixtures import serving

pytestmark = pytest.mark.e2e

ROUNDS = 12
READS = 6  # fresh connections per round: the kernel spreads them over both workers


def _fresh_get(url: str, **params: str) -> httpx.Response:
    with httpx.Client(timeout=20) as client:  # a new connection, which either worker may take
        return client.get(url, params=params)


def test_a_write_is_seen_by_the_next_read_on_every_worker(db_url, tmp_path):
    with serving(db_url, tmp_path, workers="2") as server:
        server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
        password = server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
        posts = f"{server.url}/wp-json/cms/v2/posts"
        events = f"{server.url}/wp-json/cal/events/v1/events"
        with httpx.Client(auth=("admin", password), timeout=20) as writer:
            for number in range(ROUNDS):
                for _ in range(READS):  # both workers cache the listings as they are now
                    assert _fresh_get(posts).status_code == 200
                    assert _fresh_get(events).status_code == 200
                post = writer.post(posts, json={"title": f"Seen {number}", "status": "publish"})
                assert post.status_code == 201, post.text
                event = writer.post(events, json={"title": f"Event {number}", "start_date": "2027-06-01 10:00:00",
                                                  "end_date": "2027-06-01 11:00:00", "status": "publish"})
                assert event.status_code == 201, event.text
                for _ in range(READS):
                    listed = _fresh_get(posts)
                    assert post.json()["id"] in [p["id"] for p in listed.json()], f"round {number}: post not listed"
                    assert listed.headers["X-WP-Total"] == str(number + 1)
                    shown = _fresh_get(events, start_date="2027-06-01", per_page="50")
                    assert event.json()["id"] in [e["id"] for e in shown.json()["events"]], f"round {number}: event not listed"
                    assert shown.json()["total"] == number + 1


def test_remembered_events_follow_a_write_made_by_the_other_worker(db_url, tmp_path):
    """Both workers remember the events they built (store/memo.py); a venue renamed through one
    worker shows in every event that embeds it, on both, under queries never asked before (the
    answer cache misses), while the event that does not embed it stays as it was."""
    with serving(db_url, tmp_path, workers="2") as server:
        server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
        password = server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
        base = f"{server.url}/wp-json/cal/events/v1"
        with httpx.Client(auth=("admin", password), timeout=20) as writer:
            venue = writer.post(f"{base}/venues", json={"venue": "Hall 0"}).json()
            dates = {"start_date": "2027-07-01 10:00:00", "end_date": "2027-07-01 11:00:00"}
            hosted = writer.post(f"{base}/events", json={"title": "Hosted", "venue": venue["id"], **dates}).json()
            alone = writer.post(f"{base}/events", json={"title": "Alone", **dates}).json()
            fresh = 0
            for number in range(1, 4):
                for _ in range(READS):  # both workers build and remember both events
                    fresh += 1
                    assert _fresh_get(f"{base}/events", start_date="2027-07-01", miss=str(fresh)).status_code == 200
                renamed = writer.post(f"{base}/venues/{venue['id']}", json={"venue": f"Hall {number}"})
                assert renamed.status_code == 200, renamed.text
                for _ in range(READS):
                    fresh += 1
                    shown = _fresh_get(f"{base}/events", start_date="2027-07-01", miss=str(fresh)).json()["events"]
                    by_id = {event["id"]: event for event in shown}
                    assert by_id[hosted["id"]]["venue"]["venue"] == f"Hall {number}", f"round {number}"
                    assert by_id[alone["id"]]["venue"] == []
                    fresh += 1
                    single = _fresh_get(f"{base}/events/{hosted['id']}", miss=str(fresh)).json()
                    assert single["venue"]["venue"] == f"Hall {number}", f"round {number}"
