"""Input a fuzzer or an attacker sends: every answer is a clear error in the REST error shape (or a
normal answer), never a 500, on both databases. Each case here answered 500 once (issue 9)."""

from __future__ import annotations

import pytest

HUGE = "99999999999"  # beyond PostgreSQL's integer
HUGER = "99999999999999999999"  # beyond a 64-bit integer (SQLite's, Python's sqlite3)


def _ok_or_error_shape(response, *, allowed=(200, 400, 401, 403, 404)) -> None:
    assert response.status_code in allowed, (response.status_code, response.text[:300])
    body = response.json
    if response.status_code >= 400:
        assert isinstance(body, dict) and isinstance(body.get("code"), str) and body.get("data", {}).get("status") == response.status_code, body


PATHS = [
    "/cms/v2/posts/{n}",
    "/cms/v2/pages/{n}",
    "/cms/v2/users/{n}",
    "/cms/v2/comments/{n}",
    "/cms/v2/categories/{n}",
    "/cms/v2/tags/{n}",
    "/cms/v2/posts/{n}/revisions",
    "/cms/v2/posts/{n}/revisions/1",
    "/cms/v2/posts/{n}/autosaves",
    "/cal/events/v1/events/{n}",
    "/cal/events/v1/venues/{n}",
    "/cal/events/v1/organizers/{n}",
    "/cal/events/v1/categories/{n}",
    "/cal/events/v1/tags/{n}",
]


@pytest.mark.parametrize("number", [HUGE, HUGER])
@pytest.mark.parametrize("path", PATHS)
def test_an_id_beyond_the_database_range_is_an_unknown_id(client, admin, path, number):
    for user in (None, admin):
        _ok_or_error_shape(client.get(path.format(n=number), user=user), allowed=(400, 401, 403, 404))


FILTERS = [
    ("/cms/v2/posts", ["include", "exclude", "author", "author_exclude", "parent", "parent_exclude", "categories", "tags", "page", "offset", "per_page", "sticky"]),
    ("/cms/v2/pages", ["include", "parent", "menu_order", "page", "offset"]),
    ("/cms/v2/comments", ["include", "exclude", "post", "parent", "author", "page", "offset"]),
    ("/cms/v2/users", ["include", "exclude", "page", "offset"]),
    ("/cms/v2/categories", ["include", "exclude", "parent", "post", "page", "offset"]),
    ("/cms/v2/tags", ["include", "exclude", "post", "page", "offset"]),
    ("/cms/v2/search", ["include", "exclude", "page"]),
    ("/cal/events/v1/events", ["page", "per_page", "venue", "organizer", "categories", "tags", "post_parent", "include", "exclude"]),
    ("/cal/events/v1/venues", ["page", "per_page", "event"]),
    ("/cal/events/v1/organizers", ["page", "per_page", "event"]),
    ("/cal/events/v1/categories", ["page", "per_page", "include", "exclude", "parent", "post"]),
]


@pytest.mark.parametrize("number", [HUGE, HUGER, "-1", "-" + HUGER])
@pytest.mark.parametrize(("route", "names"), FILTERS, ids=[route for route, _ in FILTERS])
def test_filters_beyond_the_database_range_or_negative_answer_cleanly(client, admin, route, names, number):
    for name in names:
        for user in (None, admin):
            _ok_or_error_shape(client.get(route, params={name: number}, user=user))


def test_a_negative_comment_offset_is_not_sent_to_the_database(client):
    _ok_or_error_shape(client.get("/cms/v2/comments", params={"offset": "-1"}))


@pytest.mark.parametrize("route", ["/cms/v2/posts", "/cms/v2/pages", "/cms/v2/users", "/cms/v2/comments", "/cms/v2/categories", "/cms/v2/search", "/cal/events/v1/events", "/cal/events/v1/venues"])
def test_a_nul_byte_in_a_search_answers_as_any_search(client, admin, route):
    for user in (None, admin):
        _ok_or_error_shape(client.get(route, params={"search": "a\x00b"}, user=user))


def test_a_nul_byte_in_a_title_is_not_a_database_error(client, admin):
    created = client.post("/cms/v2/posts", user=admin, json={"title": "a\x00b", "content": "c\x00d", "status": "publish"})
    _ok_or_error_shape(created, allowed=(201, 400))


def test_json_nested_too_deep_is_a_clear_400(client, admin):
    body = "[" * 100_000 + "]" * 100_000
    response = client.post("/cms/v2/posts", user=admin, body=body, headers={"Content-Type": "application/json"})
    _ok_or_error_shape(response, allowed=(400,))


def test_a_bracket_key_with_a_unicode_digit_is_a_clear_answer(client):
    response = client.get("/cms/v2/posts", query_string="a[%C2%B9]=1&a[]=2")
    _ok_or_error_shape(response)


def test_a_comment_without_a_post_is_stored_or_refused_clearly(client, admin):
    response = client.post("/cms/v2/comments", user=admin, json={"content": "x"})
    _ok_or_error_shape(response, allowed=(201, 400, 403))
