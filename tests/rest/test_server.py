"""The dispatch pipeline on a small registry of its own: order of checks, errors, headers, and
the global parameters (_fields, _envelope, _embed, _method, _jsonp), without a database."""

from __future__ import annotations

import orjson
import pytest

from calpress.rest.errors import RestError
from calpress.rest.paging import pagination_headers
from calpress.rest.registry import Endpoint, Registry, Route
from calpress.rest.request import RestRequest, parse_query
from calpress.rest.response import RestResponse
from calpress.rest.server import RestServer

BASE = "http://example.test/wp-json"


class FakeUser:
    def __init__(self, user_id: int, caps: set[str]):
        self.id = user_id
        self.caps = caps

    def can(self, cap: str, *args):
        return cap in self.caps


class HeaderAuth:
    """Authenticates from an X-Test-User header: '' anonymous, 'admin' or 'reader'."""

    users = {"admin": FakeUser(1, {"edit"}), "reader": FakeUser(2, set())}

    def authenticate(self, request):
        from calpress.rest.server import ANONYMOUS

        name = request.headers.get("x_test_user", "")
        if name == "bad":
            return RestError("incorrect_password", "The provided password is an invalid application password.", status=401)
        request.user = self.users.get(name, ANONYMOUS)
        return None

    def response_headers(self, request):
        return {}


@pytest.fixture()
def calls():
    return []


@pytest.fixture()
def server(calls):
    registry = Registry({"test": "test/v1"})

    def can_edit(request):
        calls.append(("permission", request.method))
        return request.user.can("edit")

    def list_things(request):
        calls.append(("handler", "list"))
        items = [
            {"id": n, "title": {"raw": f"t{n}", "rendered": f"T{n}"}, "_links": {"self": [{"href": f"{BASE}/test/v1/things/{n}"}], "author": [{"href": f"{BASE}/test/v1/people/7", "embeddable": True}]}}
            for n in range(1, 4)
        ]
        page = request.get_param("page")
        return RestResponse(items, headers=pagination_headers(request, 23, 10, page))

    def get_thing(request):
        thing_id = request.get_param("id")
        if thing_id == 999:
            raise RestError("rest_thing_invalid_id", "Invalid thing ID.", status=404)
        return {"id": thing_id, "name": "x", "_links": {"self": [{"href": f"{BASE}/test/v1/things/{thing_id}"}]}}

    def delete_thing(request):
        return {"deleted": True, "force": request.get_param("force")}

    def create_thing(request):
        calls.append(("handler", "create"))
        return RestResponse({"title": request.get_param("title"), "count": request.get_param("count"), "tags": request.get_param("tags")}, 201)

    registry.add(Route(
        "test",
        "/things",
        [
            Endpoint(
                ("GET",),
                list_things,
                lambda request: True,
                args={
                    "page": {"type": "integer", "default": 1, "minimum": 1},
                    "per_page": {"type": "integer", "default": 10, "minimum": 1, "maximum": 100},
                    "order": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
                    "flag": {"type": "boolean"},
                },
            ),
            Endpoint(
                ("POST",),
                create_thing,
                can_edit,
                args={
                    "title": {"type": "string", "required": True},
                    "count": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "integer"}},
                },
            ),
        ],
        name="test.things",
    ))
    registry.add(Route(
        "test",
        r"/things/(?P<id>[\d]+)",
        [
            Endpoint(("GET",), get_thing, lambda request: True, args={"context": {"type": "string", "default": "view"}}),
            Endpoint(("DELETE",), delete_thing, can_edit, args={"force": {"type": "boolean", "default": False}}),
        ],
        args={"id": {"type": "integer"}},
        name="test.things.item",
    ))
    registry.add(Route("test", r"/people/(?P<id>[\d]+)", [Endpoint(("GET",), lambda request: {"id": int(request.get_param("id")), "name": "Ann", "context": request.get_param("context")}, lambda request: True)], name="test.people.item"))
    registry.add(Route("test", "/empty", [Endpoint(("DELETE",), lambda request: RestResponse(None, 204), lambda request: True)], name="test.empty"))
    return RestServer(registry, HeaderAuth())


def call(server, method, route, *, query="", body=None, json=None, headers=None):
    hdrs = dict(headers or {})
    raw = b""
    if json is not None:
        raw = json if isinstance(json, bytes) else orjson.dumps(json)
        hdrs.setdefault("Content-Type", "application/json")
    elif body is not None:
        raw = body.encode()
        hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
    request = RestRequest(method, route, query=parse_query(query), headers=hdrs, raw_body=raw, base_url=BASE)
    status, header_list, payload = server.serve(request)
    return status, header_list, (orjson.loads(payload) if payload and payload[:4] != b"/**/" else payload)


def header(header_list, name):
    values = [v for k, v in header_list if k.lower() == name.lower()]
    return ", ".join(values) if values else None


def test_unknown_route_and_wrong_method_are_rest_no_route(server):
    for method, route in (("GET", "/nope/v1"), ("PATCH", "/test/v1/things"), ("GET", "/test/v1/things/abc")):
        status, _, body = call(server, method, route)
        assert status == 404
        assert body == {"code": "rest_no_route", "message": "No route was found matching the URL and request method.", "data": {"status": 404}}


def test_routes_match_case_insensitively(server):
    status, _, body = call(server, "GET", "/TEST/v1/Things/5")
    assert status == 200 and body["id"] == 5


def test_missing_required_comes_before_permission(server, calls):
    status, _, body = call(server, "POST", "/test/v1/things", json={})
    assert status == 400
    assert body["code"] == "rest_missing_callback_param"
    assert body["message"] == "Missing parameter(s): title"
    assert body["data"] == {"status": 400, "params": ["title"]}
    assert ("handler", "create") not in calls


def test_validation_errors_carry_params_and_details(server):
    status, _, body = call(server, "GET", "/test/v1/things", query="per_page=0&order=sideways")
    assert status == 400
    assert body["code"] == "rest_invalid_param"
    assert body["message"] == "Invalid parameter(s): per_page, order"
    assert body["data"]["params"]["per_page"] == "per_page must be between 1 (inclusive) and 100 (inclusive)"
    assert body["data"]["details"]["per_page"]["code"] == "rest_out_of_bounds"
    assert body["data"]["params"]["order"] == "order is not one of asc and desc."
    assert body["data"]["details"]["order"]["code"] == "rest_not_in_enum"


def test_checks_kept_per_value_answer_as_the_first_time(server, calls):
    """Schema-only arguments keep their outcome per value (rest/server.py _ArgPlan): a kept
    value answers exactly as a checked one, errors are checked again every time, and a kept
    list reaches each handler as a list of its own."""
    seen = []
    for _ in range(3):
        status, _, body = call(server, "POST", "/test/v1/things", json={"title": "x", "count": "7", "tags": "1,2"},
                               headers={"X-Test-User": "admin"})
        assert (status, body) == (201, {"title": "x", "count": 7, "tags": [1, 2]})
        seen.append(body["tags"])
        status, _, body = call(server, "POST", "/test/v1/things", json={"title": "x", "count": "7", "tags": "1,z"},
                               headers={"X-Test-User": "admin"})
        assert status == 400 and list(body["data"]["params"]) == ["tags"]
        status, _, body = call(server, "GET", "/test/v1/things", query="per_page=0")
        assert status == 400 and body["data"]["details"]["per_page"]["code"] == "rest_out_of_bounds"
    # 1, True and "1" are different values to a schema: none is taken for another.
    assert call(server, "POST", "/test/v1/things", json={"title": "x", "count": 1}, headers={"X-Test-User": "admin"})[2]["count"] == 1
    status, _, body = call(server, "POST", "/test/v1/things", json={"title": "x", "count": True}, headers={"X-Test-User": "admin"})
    assert status == 400 and body["data"]["details"]["count"]["code"] == "rest_invalid_type"


def test_a_kept_list_is_a_new_list_for_each_request():
    registry = Registry({"test": "test/v1"})
    received = []

    def handler(request):
        value = request.get_param("ids")
        received.append(value)
        value.append(99)  # a handler that changes what it was given
        return {"ids": value}

    registry.add(Route("test", "/lists", [Endpoint(("GET",), handler, lambda request: True, args={
        "ids": {"type": "array", "items": {"type": "integer"}, "default": []}})], name="test.lists"))
    server = RestServer(registry, HeaderAuth())
    for _ in range(3):
        assert call(server, "GET", "/test/v1/lists")[2] == {"ids": [99]}
        assert call(server, "GET", "/test/v1/lists", query="ids=1,2")[2] == {"ids": [1, 2, 99]}
    assert len({id(value) for value in received}) == len(received)


def test_kept_parameters_still_run_callbacks_and_keep_the_query_first():
    """A request's schema-only parameters are kept together (rest/server.py _ArgPlan.blocks);
    arguments with callbacks are still checked on every request, for its requester, and a query
    value still wins over the URL's."""
    registry = Registry({"test": "test/v1"})

    def only_editors(value, request, name):
        return True if request.user.can("edit") else RestError("rest_forbidden_secret", "No.", status=403)

    registry.add(Route("test", r"/gated/(?P<id>\d+)", [Endpoint(("GET",), lambda request: {
        name: request.get_param(name) for name in ("id", "level", "secret", "tags")}, lambda request: True, args={
        "level": {"type": "string", "enum": ["low", "high"], "default": "low"},
        "tags": {"type": "array", "items": {"type": "integer"}, "default": []},
        "secret": {"type": "string", "default": "no", "validate": only_editors},
    })], args={"id": {"type": "integer"}}, name="test.gated"))
    server = RestServer(registry, HeaderAuth())
    for _ in range(3):
        status, _, body = call(server, "GET", "/test/v1/gated/5", query="level=high&tags=1,2")
        assert status == 400 and body["data"]["details"]["secret"]["code"] == "rest_forbidden_secret"
        status, _, body = call(server, "GET", "/test/v1/gated/5", query="level=high&tags=1,2", headers={"X-Test-User": "admin"})
        assert (status, body) == (200, {"id": 5, "level": "high", "secret": "no", "tags": [1, 2]})
        assert call(server, "GET", "/test/v1/gated/6", query="level=high&tags=1,2", headers={"X-Test-User": "admin"})[2]["id"] == 6
        assert call(server, "GET", "/test/v1/gated/6", query="id=8", headers={"X-Test-User": "admin"})[2]["id"] == 8
        status, _, body = call(server, "GET", "/test/v1/gated/6", query="level=middle", headers={"X-Test-User": "admin"})
        assert status == 400 and list(body["data"]["params"]) == ["level"]


def test_invalid_params_are_not_checked_for_permission(server, calls):
    status, _, body = call(server, "POST", "/test/v1/things", json={"title": "x", "count": "many"})
    assert status == 400
    assert body["data"]["details"]["count"] == {"code": "rest_invalid_type", "message": "count is not of type integer.", "data": {"param": "count"}}
    assert ("handler", "create") not in calls


def test_permission_401_anonymous_403_logged_in(server):
    status, headers, body = call(server, "POST", "/test/v1/things", json={"title": "x"})
    assert status == 401 and body["code"] == "rest_forbidden" and body["data"] == {"status": 401}
    assert header(headers, "Allow") == "GET"
    status, _, body = call(server, "POST", "/test/v1/things", json={"title": "x"}, headers={"X-Test-User": "reader"})
    assert status == 403 and body["data"] == {"status": 403}


def test_sanitised_values_reach_the_handler(server):
    status, headers, body = call(server, "POST", "/test/v1/things", json={"title": "x", "count": "7", "tags": "1,2,3"}, headers={"X-Test-User": "admin"})
    assert status == 201
    assert body == {"title": "x", "count": 7, "tags": [1, 2, 3]}
    assert header(headers, "Allow") == "GET, POST"


def test_form_body_and_bracket_arrays(server):
    status, _, body = call(server, "POST", "/test/v1/things", body="title=hello+world&tags[]=4&tags[]=5", headers={"X-Test-User": "admin"})
    assert status == 201
    assert body == {"title": "hello world", "count": None, "tags": [4, 5]}


def test_invalid_json_body(server):
    status, _, body = call(server, "POST", "/test/v1/things", json=b'{"title": "broken\n', headers={"X-Test-User": "admin"})
    assert status == 400
    assert body["code"] == "rest_invalid_json"
    assert body["message"] == "Invalid JSON body passed."
    assert body["data"]["status"] == 400
    assert body["data"]["json_error_code"] == 3
    status, _, body = call(server, "POST", "/test/v1/things", json=b'{"title": ', headers={"X-Test-User": "admin"})
    assert body["data"]["json_error_code"] == 4 and body["data"]["json_error_message"] == "Syntax error"
    status, _, body = call(server, "POST", "/test/v1/things", json=b'{"title": "\xff\xfe"}', headers={"X-Test-User": "admin"})
    assert status == 400 and body["data"]["json_error_code"] == 5


def test_authentication_error_is_the_answer(server):
    status, headers, body = call(server, "GET", "/test/v1/things", headers={"X-Test-User": "bad"})
    assert status == 401 and body["code"] == "incorrect_password"
    assert header(headers, "Allow") is None


def test_standard_headers(server):
    status, headers, _ = call(server, "GET", "/test/v1/things/3")
    assert header(headers, "Content-Type") == "application/json; charset=UTF-8"
    assert header(headers, "X-Content-Type-Options") == "nosniff"
    assert header(headers, "X-Robots-Tag") == "noindex"
    assert f'<{BASE}/>; rel="https://api.w.org/"' in header(headers, "Link")
    assert header(headers, "Access-Control-Expose-Headers") == "X-WP-Total, X-WP-TotalPages, Link"
    assert header(headers, "Vary") == "Origin"
    assert header(headers, "Cache-Control") is None
    status, headers, _ = call(server, "GET", "/test/v1/things/3", headers={"X-Test-User": "admin", "Origin": "https://a.example"})
    assert header(headers, "Access-Control-Allow-Origin") == "https://a.example"
    assert header(headers, "Access-Control-Allow-Credentials") == "true"
    assert header(headers, "Cache-Control") == "no-cache, must-revalidate, max-age=0, no-store, private"
    assert header(headers, "Expires") == "Wed, 11 Jan 1984 05:00:00 GMT"
    assert header(headers, "Allow") == "GET, DELETE"


def test_pagination_headers_and_links(server):
    status, headers, _ = call(server, "GET", "/test/v1/things", query="page=2&order=asc")
    assert header(headers, "X-WP-Total") == "23"
    assert header(headers, "X-WP-TotalPages") == "3"
    links = [v for k, v in headers if k == "Link"]
    assert links == [
        f'<{BASE}/>; rel="https://api.w.org/", '
        f'<{BASE}/test/v1/things?order=asc&page=1>; rel="prev", '
        f'<{BASE}/test/v1/things?order=asc&page=3>; rel="next"'
    ]


def test_head_has_headers_but_no_body(server):
    status, headers, body = call(server, "HEAD", "/test/v1/things")
    assert status == 200 and body == b""
    assert header(headers, "X-WP-Total") == "23"


def test_options_describes_the_route_without_running_it(server, calls):
    status, headers, body = call(server, "OPTIONS", "/test/v1/things")
    assert status == 200
    assert body["namespace"] == "test/v1"
    assert body["methods"] == ["GET", "POST"]
    assert body["endpoints"][0]["args"]["per_page"] == {"type": "integer", "default": 10, "minimum": 1, "maximum": 100, "required": False}
    assert ("handler", "list") not in calls
    status, _, body = call(server, "OPTIONS", "/does/not/exist")
    assert status == 200 and body == []


def test_fields_filtering_with_nesting(server):
    status, _, body = call(server, "GET", "/test/v1/things", query="_fields=id,title.rendered")
    assert body[0] == {"id": 1, "title": {"rendered": "T1"}}
    status, _, body = call(server, "GET", "/test/v1/things/5", query="_fields=name,_links")
    assert set(body) == {"name", "_links"}


def test_envelope_wraps_status_and_headers(server):
    status, _, body = call(server, "GET", "/test/v1/things/999", query="_envelope")
    assert status == 200
    assert body["status"] == 404
    assert body["body"]["code"] == "rest_thing_invalid_id"
    status, _, body = call(server, "GET", "/test/v1/things", query="_envelope=1")
    assert body["status"] == 200 and body["headers"]["X-WP-Total"] == "23"


def test_embed_fetches_embeddable_links_with_embed_context(server):
    status, _, body = call(server, "GET", "/test/v1/things", query="_embed")
    assert body[0]["_embedded"]["author"] == [{"id": 7, "name": "Ann", "context": "embed"}]
    status, _, body = call(server, "GET", "/test/v1/things", query="_embed=nothing")
    assert "_embedded" not in body[0]


def test_target_hints_on_self_links(server):
    _, _, body = call(server, "GET", "/test/v1/things/5")
    assert body["_links"]["self"][0]["targetHints"] == {"allow": ["GET"]}
    _, _, body = call(server, "GET", "/test/v1/things/5", headers={"X-Test-User": "admin"})
    assert body["_links"]["self"][0]["targetHints"] == {"allow": ["GET", "DELETE"]}


def test_method_override(server):
    status, _, body = call(server, "POST", "/test/v1/things/5", query="_method=DELETE", headers={"X-Test-User": "admin"})
    assert status == 200 and body["deleted"] is True
    status, _, body = call(server, "POST", "/test/v1/things/5", headers={"X-Test-User": "admin", "X-HTTP-Method-Override": "DELETE"})
    assert status == 200 and body["deleted"] is True


def test_jsonp(server):
    status, headers, body = call(server, "GET", "/test/v1/things/5", query="_jsonp=wp.api.loaded")
    assert header(headers, "Content-Type") == "application/javascript; charset=UTF-8"
    assert body.startswith(b"/**/wp.api.loaded(")
    status, _, body = call(server, "GET", "/test/v1/things/5", query="_jsonp=alert(1)")
    assert status == 400 and body == {"code": "rest_callback_invalid", "message": "Invalid JSONP callback function."}


def test_no_content_has_empty_body(server):
    status, _, body = call(server, "DELETE", "/test/v1/empty")
    assert status == 204 and body == b""


def test_handler_defect_is_a_500_in_the_error_shape():
    registry = Registry({"boom": "boom/v1"})
    registry.add(Route("boom", "/x", [Endpoint(("GET",), lambda request: 1 / 0, lambda request: True)]))
    status, _, body = call(RestServer(registry, HeaderAuth()), "GET", "/boom/v1/x")
    assert status == 500 and body["code"] == "internal_server_error"


def test_parse_query_follows_php_rules():
    assert parse_query("a[]=1&a[]=2&b[x]=3&c=4&d.e=5&f+g=6") == {"a": ["1", "2"], "b": {"x": "3"}, "c": "4", "d_e": "5", "f_g": "6"}
    assert parse_query("t=%FF%FE") == {"t": "\ufffd\ufffd"}
    assert parse_query("x[0]=a&x[1]=b") == {"x": ["a", "b"]}
