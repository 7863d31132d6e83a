"""Helpers for the cal/events/v1 tests: events, venues and organizers made through the API as
the given account, with dates relative to now (the peer tests' fixtures: an event starts 24 h
from now and lasts 2 h)."""

from __future__ import annotations

import datetime as dt
from typing import Any

EVENTS = "/cal/events/v1/events"
VENUES = "/cal/events/v1/venues"
ORGANIZERS = "/cal/events/v1/organizers"


def when(hours: float = 24) -> str:
    """A UTC wall time ``hours`` from now (the site zone is UTC unless a test changes it)."""
    moment = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0) + dt.timedelta(hours=hours)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def make_event(client: Any, user: Any, title: str = "Event", *, start_hours: float = 24, length_hours: float = 2,
               **fields: Any) -> dict[str, Any]:
    body = {"title": title, "start_date": when(start_hours), "end_date": when(start_hours + length_hours), **fields}
    response = client.post(EVENTS, user=user, json=body)
    assert response.status_code == 201, response.json
    return response.json


def make_venue(client: Any, user: Any, name: str = "Venue", **fields: Any) -> dict[str, Any]:
    response = client.post(VENUES, user=user, json={"venue": name, **fields})
    assert response.status_code == 201, response.json
    return response.json


def make_organizer(client: Any, user: Any, name: str = "Organizer", **fields: Any) -> dict[str, Any]:
    response = client.post(ORGANIZERS, user=user, json={"organizer": name, **fields})
    assert response.status_code == 201, response.json
    return response.json


def set_option(app: Any, name: str, value: Any) -> None:
    with app.site.write() as conn:
        app.site.update_option(conn, name, value)


def ids(response: Any) -> list[int]:
    return [event["id"] for event in response.json["events"]]


def timestamp(hours: float) -> str:
    """A Unix timestamp ``hours`` from now, as the peer tests send dates."""
    return str(int(dt.datetime.now(dt.UTC).timestamp() + hours * 3600))


def assert_empty_archive(response: Any, key: str = "events") -> None:
    assert response.status_code == 200, response.json
    assert response.json[key] == []
    assert response.json["total"] == 0 and response.json["total_pages"] == 0
    assert response.headers["X-TEC-Total"] == "0" and response.headers["X-TEC-TotalPages"] == "0"
    assert "next_rest_url" not in response.json and "previous_rest_url" not in response.json
