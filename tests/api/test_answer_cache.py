"""The engine's answer cache (``Endpoint(cache=True)``): answers are reused only while the stored
content counter is unchanged, per requester, and never for reshaped requests."""

from __future__ import annotations

import falcon.testing
from cal_support import EVENTS, make_event
from content_support import statement_counter

from calpress.app import Calpress
from calpress.content import items


def test_a_write_through_the_api_shows_at_once(client, admin):
    first = client.get("/cms/v2/posts").json
    again = client.get("/cms/v2/posts")
    assert again.json == first  # the cached answer is the same answer
    created = client.post("/cms/v2/posts", user=admin, json={"title": "Fresh", "status": "publish"})
    assert created.status_code == 201
    assert [p["id"] for p in client.get("/cms/v2/posts").json] == [created.json["id"], *[p["id"] for p in first]]


def test_a_write_by_another_process_shows_at_once(app, client, settings, admin):
    make_event(client, admin, "One")
    assert client.get(EVENTS).json["total"] == 1
    other = Calpress(settings)  # a second worker on the same database
    try:
        other_client = falcon.testing.TestClient(other.wsgi)
        created = other_client.simulate_post(EVENTS, headers=admin.basic, json={
            "title": "Two", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"})
        assert created.status_code == 201
    finally:
        other.site.close()
    assert client.get(EVENTS).json["total"] == 2


def test_answers_are_kept_per_requester(client, accounts, admin):
    client.post("/cms/v2/posts", user=admin, json={"title": "Draft", "status": "draft"})
    assert client.get("/cms/v2/posts", params={"status": "draft"}).status_code == 400
    editor_view = client.get("/cms/v2/posts", params={"status": "draft"}, user=accounts["editor"])
    assert [p["title"]["rendered"] for p in editor_view.json] == ["Draft"]
    assert client.get("/cms/v2/posts").json == []


def test_a_cached_answer_costs_one_statement(app, client, admin):
    make_event(client, admin, "One")
    client.get(EVENTS)
    items.publish_due_items(app.site, force=True)
    with statement_counter(app) as statements:
        response = client.get(EVENTS)
    assert response.status_code == 200 and response.json["total"] == 1
    assert len(statements) <= 2  # the content counter (and at most the due-items check)


def test_reshaped_requests_bypass_the_cache(client, admin):
    make_event(client, admin, "One")
    full = client.get(EVENTS).json
    fields = client.get(EVENTS, params={"_fields": "total"}).json
    assert fields == {"total": 1}
    assert client.get(EVENTS).json == full


def test_option_changes_show_at_once(client, admin):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "P", "status": "publish"}).json
    assert client.get(f"/cms/v2/posts/{post['id']}").json["sticky"] is False
    assert client.post(f"/cms/v2/posts/{post['id']}", user=admin, json={"sticky": True}).status_code == 200
    assert client.get(f"/cms/v2/posts/{post['id']}").json["sticky"] is True


def test_user_changes_show_at_once(client, accounts, admin):
    editor = accounts["editor"]
    assert client.get("/cms/v2/users/me", user=editor).json["name"] != "Renamed"
    assert client.post(f"/cms/v2/users/{editor.id}", user=admin, json={"name": "Renamed"}).status_code == 200
    assert client.get("/cms/v2/users/me", user=editor).json["name"] == "Renamed"
    assert client.get("/cms/v2/users/me", user=admin).json["id"] == admin.id  # kept apart per requester
