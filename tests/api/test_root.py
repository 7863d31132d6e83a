"""GET / (site description), GET /{namespace}, the REST prefixes, OPTIONS and OpenAPI."""

from __future__ import annotations

import re

import pytest

SEED_KEYS = {"name", "description", "url", "home", "gmt_offset", "timezone_string", "namespaces", "authentication", "routes"}
NAMESPACES = ["oembed/1.0", "cal/event-aggregator/v1", "cal/events/v1", "cal/views/v2", "cms/v2", "cms-site-health/v1"]


def test_site_description_has_the_seed_keys_and_exactly_six_namespaces(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.json
    assert SEED_KEYS <= set(body)
    assert {"page_for_posts", "page_on_front", "show_on_front", "site_logo", "site_icon", "site_icon_url", "_links"} <= set(body)
    assert body["namespaces"] == NAMESPACES
    assert body["name"] == "calpress"
    assert body["url"] == "http://example.test"
    assert body["gmt_offset"] == "0" and isinstance(body["gmt_offset"], str)
    assert body["authentication"] == {
        "application-passwords": {"endpoints": {"authorization": "http://example.test/wp-admin/authorize-application.php"}}
    }
    assert body["_links"] == {"help": [{"href": "https://developer.wordpress.org/rest-api/"}]}


def test_route_entries_come_from_the_registry(client, app):
    routes = client.get("/").json["routes"]
    assert set(routes) == {route.pattern for route in app.api.registry}
    users = routes["/cms/v2/users"]
    assert users["namespace"] == "cms/v2"
    assert users["methods"] == ["GET", "POST"]
    assert users["endpoints"][0]["methods"] == ["GET"]
    assert users["endpoints"][0]["args"]["per_page"]["maximum"] == 100
    assert users["endpoints"][0]["allow_batch"] == {"v1": True}
    assert users["_links"]["self"][0]["href"] == "http://example.test/cms/v2/users"
    assert "_links" not in routes[r"/cms/v2/users/(?P<id>[\d]+)"]
    for description in routes.values():
        for endpoint in description["endpoints"]:
            for arg in (endpoint["args"] or {}).values():
                assert isinstance(arg["required"], bool)
                assert not any(callable(v) for v in arg.values())


def test_every_namespace_has_an_index(client):
    for namespace in NAMESPACES:
        response = client.get(f"/{namespace}")
        assert response.status_code == 200, namespace
        body = response.json
        assert body["namespace"] == namespace
        assert all(pattern.startswith(f"/{namespace}") for pattern in body["routes"])
        assert f"/{namespace}" in body["routes"]
        assert body["_links"] == {"up": [{"href": "http://example.test/"}]}


def test_unknown_namespace_value(client):
    response = client.get("/cms/v2", params={"namespace": "nope/v9"})
    assert response.status_code == 404
    assert response.json["code"] == "rest_invalid_namespace"


@pytest.mark.parametrize("path", ["/wp-json/", "/wp-json"])
def test_wp_json_prefix_and_its_links(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["link"] == '<http://example.test/wp-json/>; rel="https://api.w.org/"'
    assert response.json["routes"]["/cms/v2/users"]["_links"]["self"][0]["href"] == "http://example.test/wp-json/cms/v2/users"


def test_rest_route_query_form(client):
    response = client.get("/", params={"rest_route": "/cms/v2"})
    assert response.status_code == 200
    assert response.json["namespace"] == "cms/v2"
    assert response.json["_links"]["up"][0]["href"] == "http://example.test/?rest_route=/"


def test_browser_gets_the_home_page(client):
    response = client.get("/", headers={"Accept": "text/html,application/xhtml+xml"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert 'rel="https://api.w.org/"' in response.headers["link"]


def test_unknown_routes_and_methods(client):
    for method, path in (("GET", "/wp-json/nonexistent/v1"), ("GET", "/cms/v2/users/abc"), ("PATCH", "/cms/v2/users"), ("GET", "/wp-json/nope/v9"),
                         ("GET", "/cal/nope/v9"), ("GET", "/?rest_route=/nonexistent/v1")):
        response = client.request(method, path)
        assert response.status_code == 404, (method, path)
        assert response.json == {"code": "rest_no_route", "message": "No route was found matching the URL and request method.", "data": {"status": 404}}
    # Any other path at the site root is a public page (a post's link): unknown, a 404 page.
    page = client.get("/nonexistent/v1")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")


def test_options(client):
    response = client.request("OPTIONS", "/cms/v2/users")
    assert response.status_code == 200
    body = response.json
    assert {"namespace", "methods", "endpoints", "schema"} <= set(body)
    assert body["schema"]["title"] == "user"
    assert client.request("OPTIONS", "/wp-json/does/not/exist").json == []


def test_head_on_root(client):
    response = client.request("HEAD", "/")
    assert response.status_code == 200
    assert response.content == b""


def test_common_headers_on_every_answer(client):
    for path in ("/", "/cms/v2/users/me", "/wp-json/nope"):
        headers = client.get(path, headers={"Origin": "https://a.example"}).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["access-control-expose-headers"] == "X-WP-Total, X-WP-TotalPages, Link"
        assert headers["access-control-allow-headers"] == "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type"
        assert headers["access-control-allow-origin"] == "https://a.example"
        assert headers["access-control-allow-credentials"] == "true"


def test_site_options_show_in_the_description(client, app):
    with app.site.write() as conn:
        app.site.update_option(conn, "blogname", "Example Calendar")
        app.site.update_option(conn, "timezone_string", "Europe/Paris")
    body = client.get("/").json
    assert body["name"] == "Example Calendar"
    assert body["timezone_string"] == "Europe/Paris"


def test_openapi_document_lists_every_route(client, app):
    document = client.get("/openapi.json").json
    assert document["openapi"].startswith("3.1")
    templates = set(document["paths"])
    for route in app.api.registry:
        template = re.sub(r"\(\?P<(\w+)>(?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)", r"{\1}", route.pattern)
        assert template in templates, route.pattern
    users = document["paths"]["/cms/v2/users"]
    assert {"get", "post"} <= set(users)
    per_page = next(p for p in users["get"]["parameters"] if p["name"] == "per_page")
    assert per_page["schema"]["maximum"] == 100
    assert "username" in users["post"]["requestBody"]["content"]["application/json"]["schema"]["required"]
