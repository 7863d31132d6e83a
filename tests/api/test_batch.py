"""``POST /batch/v1`` (cms-api.md section 3, scenarios 206-218, examples/batch.md): the outer
validation, the opt-in of routes, the two validation modes, the envelopes, and sub-requests that
run in order as the batch's requester and see each other's effects."""

from __future__ import annotations

from typing import Any

import pytest

from calpress.rest.registry import Endpoint, Route
from calpress.rest.response import RestResponse

BATCH = "/batch/v1"
POSTS = "/cms/v2/posts"


def batch(client, user, requests: list[dict[str, Any]], **extra: Any):
    return client.post(BATCH, user=user, json={"requests": requests, **extra})


def post_titles(client, admin) -> list[str]:
    listing = client.get(POSTS, user=admin, params={"status": "any", "per_page": 100, "context": "edit"})
    return sorted(item["title"]["raw"] for item in listing.json)


def test_creates_and_updates_in_order_with_envelopes(client, admin):
    target = client.post(POSTS, user=admin, json={"title": "Target", "status": "draft"}).json["id"]
    assert client.get(POSTS).json == []  # an answer the cache keeps until something is written
    response = batch(client, admin, [
        {"method": "POST", "path": POSTS, "body": {"title": "One", "status": "draft"}},
        {"method": "POST", "path": POSTS, "body": {"title": "Two", "status": "publish"}, "headers": {"X-Custom": "ignored"}},
        {"method": "PUT", "path": f"{POSTS}/{target}", "body": {"title": "Target (updated)"}},
    ])
    assert response.status_code == 207
    assert response.headers["allow"] == "POST"
    assert response.headers["cache-control"].startswith("no-cache")
    body = response.json
    assert list(body) == ["responses"]
    first, second, third = body["responses"]
    assert [first["status"], second["status"], third["status"]] == [201, 201, 200]
    assert first["body"]["title"]["raw"] == "One" and first["body"]["status"] == "draft"
    assert second["body"]["status"] == "publish"
    assert first["headers"]["Location"].endswith(f"/cms/v2/posts/{first['body']['id']}")
    assert first["headers"]["Allow"] == "GET, POST"
    assert third["headers"]["Allow"] == "GET, POST, PUT, PATCH, DELETE"
    assert "_links" in first["body"] and "_embedded" not in first["body"]
    assert third["body"]["title"]["raw"] == "Target (updated)"
    assert post_titles(client, admin) == ["One", "Target (updated)", "Two"]
    assert [item["title"]["rendered"] for item in client.get(POSTS).json] == ["Two"]


def test_the_route_index_lists_the_route_second_with_its_arguments(client):
    routes = client.get("/").json["routes"]
    assert list(routes)[:2] == ["/", "/batch/v1"]
    entry = routes["/batch/v1"]
    assert entry["namespace"] == "" and entry["methods"] == ["POST"]
    args = entry["endpoints"][0]["args"]
    assert args["requests"]["maxItems"] == 25 and args["requests"]["required"] is True
    assert args["requests"]["items"]["properties"]["method"]["enum"] == ["POST", "PUT", "PATCH", "DELETE"]
    assert args["validation"] == {"type": "string", "enum": ["require-all-validate", "normal"], "default": "normal", "required": False}
    assert "allow_batch" not in entry["endpoints"][0]
    assert routes["/cms/v2/posts"]["endpoints"][0]["allow_batch"] == {"v1": True}
    assert client.get(BATCH).json["code"] == "rest_no_route"


def test_normal_mode_runs_the_valid_entries(client, admin):
    response = batch(client, admin, [
        {"method": "POST", "path": POSTS, "body": {"title": "A", "status": "draft"}},
        {"method": "POST", "path": POSTS, "body": {"title": "B", "status": "bogus"}},
    ])
    assert response.status_code == 207
    good, bad = response.json["responses"]
    assert good["status"] == 201
    assert bad["status"] == 400
    assert bad["body"]["code"] == "rest_invalid_param"
    assert bad["body"]["data"]["details"]["status"]["code"] == "rest_not_in_enum"
    assert bad["headers"] == {"Allow": "GET, POST"}
    assert post_titles(client, admin) == ["A"]


def test_require_all_validate_runs_nothing_when_one_fails(client, admin):
    response = batch(client, admin, [
        {"method": "POST", "path": POSTS, "body": {"title": "C", "status": "draft"}},
        {"method": "POST", "path": POSTS, "body": {"title": "D", "status": "bogus"}},
    ], validation="require-all-validate")
    assert response.status_code == 207
    assert response.json["failed"] == "validation"
    first, second = response.json["responses"]
    assert first is None
    assert second["status"] == 400 and second["body"]["code"] == "rest_invalid_param" and second["headers"] == []
    assert post_titles(client, admin) == []


def test_require_all_validate_runs_everything_when_all_pass(client, admin):
    response = batch(client, admin, [
        {"method": "POST", "path": POSTS, "body": {"title": "E", "status": "draft"}},
        {"method": "DELETE", "path": f"{POSTS}/999999"},
    ], validation="require-all-validate")
    assert response.status_code == 207
    assert "failed" not in response.json
    created, missing = response.json["responses"]
    assert created["status"] == 201
    assert missing == {"body": {"code": "rest_post_invalid_id", "message": "Invalid post ID.", "data": {"status": 404}},
                       "status": 404, "headers": []}


def test_outer_validation_refuses_the_whole_batch(client, admin):
    too_many = batch(client, admin, [{"path": POSTS, "body": {"title": "x"}}] * 26)
    assert too_many.status_code == 400
    assert too_many.json["code"] == "rest_invalid_param"
    assert too_many.json["data"]["params"] == {"requests": "requests must contain at most 25 items."}
    assert too_many.json["data"]["details"]["requests"]["code"] == "rest_too_many_items"

    missing = client.post(BATCH, user=admin, json={})
    assert missing.status_code == 400
    assert missing.json["code"] == "rest_missing_callback_param"
    assert missing.json["data"]["params"] == ["requests"]

    get = batch(client, admin, [{"method": "GET", "path": POSTS}])
    assert get.status_code == 400
    assert get.json["data"]["params"]["requests"] == "requests[0][method] is not one of POST, PUT, PATCH, and DELETE."

    no_path = batch(client, admin, [{"method": "POST"}])
    assert no_path.status_code == 400
    assert no_path.json["data"]["params"]["requests"] == "path is a required property of requests[0]."

    bad_mode = batch(client, admin, [{"path": POSTS}], validation="sometimes")
    assert bad_mode.status_code == 400 and bad_mode.json["data"]["params"]["validation"]
    assert post_titles(client, admin) == []


def test_exactly_the_maximum_runs(client, admin):
    response = batch(client, admin, [{"path": POSTS, "body": {"title": f"n{i}", "status": "draft"}} for i in range(25)])
    assert response.status_code == 207
    assert [r["status"] for r in response.json["responses"]] == [201] * 25
    assert len(post_titles(client, admin)) == 25


def test_routes_that_do_not_opt_in_unknown_routes_and_nesting(client, admin):
    response = batch(client, admin, [
        {"method": "POST", "path": "/cal/events/v1/events", "body": {"title": "x"}},
        {"method": "POST", "path": "/cms/v2/nothing"},
        {"method": "POST", "path": BATCH, "body": {"requests": [{"path": POSTS, "body": {"title": "nested"}}]}},
        {"method": "POST", "path": "/cms/v2/media"},
        {"method": "POST", "path": "/cms/v2/users", "body": {"username": "u", "email": "u@example.test", "password": "p"}},
        {"method": "POST", "path": "http://elsewhere.test/cms/v2/posts"},
    ])
    assert response.status_code == 207
    events, unknown, nested, media, users, foreign = response.json["responses"]
    assert events["status"] == 400 and events["body"]["code"] == "rest_batch_not_allowed"
    assert events["body"]["message"] == "The requested route does not support batch requests."
    assert events["headers"] == {"Allow": "GET, POST"}
    assert unknown == {"body": {"code": "rest_no_route", "message": "No route was found matching the URL and request method.",
                                "data": {"status": 404}}, "status": 404, "headers": []}
    assert nested["body"]["code"] == "rest_batch_not_allowed"
    assert media["body"]["code"] == "rest_batch_not_allowed"
    # Users are batch-enabled in the reference (its users controller allows it).
    assert users["status"] == 201
    assert foreign["status"] == 400 and foreign["body"]["code"] == "parse_path_failed"
    assert post_titles(client, admin) == []


def test_permissions_run_per_entry_as_the_batch_requester(client, accounts):
    anonymous = batch(client, None, [{"method": "POST", "path": POSTS, "body": {"title": "anon"}}])
    assert anonymous.status_code == 207
    (only,) = anonymous.json["responses"]
    assert only["status"] == 401 and only["body"]["code"] == "rest_cannot_create"
    assert only["headers"] == {"Allow": "GET"}

    contributor = accounts["contributor"]
    response = batch(client, contributor, [
        {"path": POSTS, "body": {"title": "mine", "status": "draft"}},
        {"path": POSTS, "body": {"title": "published", "status": "publish"}},
        {"path": POSTS, "body": {"title": "pending", "status": "pending"}},
    ], validation="require-all-validate")
    assert response.status_code == 207 and "failed" not in response.json  # a refusal is no validation failure
    statuses = [(r["status"], r["body"].get("code")) for r in response.json["responses"]]
    assert statuses == [(201, None), (403, "rest_cannot_publish"), (201, None)]
    assert {r["body"]["author"] for r in response.json["responses"] if r["status"] == 201} == {contributor.id}
    assert post_titles(client, accounts["administrator"]) == ["mine", "pending"]


def test_each_entry_sees_the_effects_of_the_ones_before(client, admin):
    first = client.post(POSTS, user=admin, json={"title": "Keep", "status": "publish"}).json["id"]
    response = batch(client, admin, [
        {"method": "DELETE", "path": f"{POSTS}/{first}?force=true"},
        {"method": "DELETE", "path": f"{POSTS}/{first}?force=true"},
        {"method": "PATCH", "path": f"{POSTS}/{first}", "body": {"title": "gone"}},
    ])
    deleted, again, patched = response.json["responses"]
    assert deleted["status"] == 200 and deleted["body"]["deleted"] is True
    assert deleted["body"]["previous"]["id"] == first
    assert again["status"] == 404 and again["body"]["code"] == "rest_post_invalid_id"
    assert patched["status"] == 404
    assert client.get(f"{POSTS}/{first}", user=admin).status_code == 404


def test_terms_and_query_strings_in_paths(client, admin):
    response = batch(client, admin, [
        {"path": "/cms/v2/categories", "body": {"name": "Batch cat"}},
        {"path": "/cms/v2/tags?name=from-query"},
        {"path": f"{POSTS}?_fields=id,title", "body": {"title": "fields", "status": "draft"}},
    ])
    category, tag, fields = response.json["responses"]
    assert category["status"] == 201 and category["body"]["name"] == "Batch cat"
    assert tag["status"] == 201 and tag["body"]["name"] == "from-query"
    assert fields["status"] == 201 and sorted(fields["body"]) == ["id", "title"]


def test_a_sub_request_is_built_from_path_query_body_and_headers(app, client, admin):
    """Scenario 208, with a route registered for the test that reports what its handler saw."""
    seen: list[dict[str, Any]] = []

    def handler(request):
        seen.append({
            "method": request.method, "route": request.route, "url": dict(request.url_params),
            "query": dict(request.query), "body": request.body_params(), "header": request.get_header("my_header"),
            "user": request.user_id,
        })
        return RestResponse({"ok": True}, headers={"X-Seen": "yes"})

    app.api.registry.add(Route("cms", r"/batch-test/(?P<id>[\d]+)", [Endpoint(("DELETE",), handler)], allow_batch=True))
    response = batch(client, admin, [
        {"method": "DELETE", "path": "/cms/v2/batch-test/5?query=param", "body": {"key": "value"}, "headers": {"my_header": ["my-value"]}},
    ])
    (envelope,) = response.json["responses"]
    assert envelope == {"body": {"ok": True}, "status": 200, "headers": {"X-Seen": "yes", "Allow": "DELETE"}}
    assert seen == [{"method": "DELETE", "route": "/cms/v2/batch-test/5", "url": {"id": "5"}, "query": {"query": "param"},
                     "body": {"key": "value"}, "header": "my-value", "user": admin.id}]


def test_a_defect_in_one_entry_does_not_lose_the_others(app, client, admin):
    def broken(request):
        raise ZeroDivisionError("defect")

    app.api.registry.add(Route("cms", "/batch-broken", [Endpoint(("POST",), broken)], allow_batch=True))
    response = batch(client, admin, [
        {"path": "/cms/v2/batch-broken"},
        {"path": POSTS, "body": {"title": "after", "status": "draft"}},
    ])
    assert response.status_code == 207
    broken_answer, created = response.json["responses"]
    assert broken_answer["status"] == 500 and broken_answer["body"]["code"] == "internal_server_error"
    assert created["status"] == 201


@pytest.mark.parametrize("body", [
    {"requests": "not a list"},
    {"requests": [1, 2]},
    {"requests": [{"path": ["a"]}]},
    {"requests": [{"path": POSTS, "body": "text"}]},
    {"requests": [{"path": POSTS, "headers": {"X": {"nested": "object"}}}]},
])
def test_malformed_batches_are_400s(client, admin, body):
    response = client.post(BATCH, user=admin, json=body)
    assert response.status_code == 400
    assert response.json["code"] == "rest_invalid_param"
    assert response.json["data"]["params"]["requests"]
