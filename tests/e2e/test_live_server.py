"""End to end: a real `calpress serve` process, users made with the command line, real HTTP."""

from __future__ import annotations

import re

import httpx
import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture()
def site(live_server):
    admin_id = live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret", "--porcelain").strip()
    password = live_server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
    return live_server, int(admin_id), password


def test_cli_and_basic_auth_through_a_real_server(site):
    server, admin_id, password = site
    assert re.fullmatch(r"[A-Za-z0-9]{24}", password)
    chunked = " ".join(password[i : i + 4] for i in range(0, 24, 4))
    for secret in (password, chunked):
        response = httpx.get(server.url + "/wp-json/cms/v2/users/me", auth=("admin", secret))
        assert response.status_code == 200
        assert response.json()["id"] == admin_id
        assert response.json()["_links"]["self"][0]["href"] == f"{server.url}/wp-json/cms/v2/users/{admin_id}"
    wrong = httpx.get(server.url + "/cms/v2/users/me", auth=("admin", "login-secret"))
    assert wrong.status_code == 401 and wrong.json()["code"] == "incorrect_password"


def test_revoked_password_stops_working(site):
    server, admin_id, password = site
    extra = httpx.post(server.url + "/cms/v2/users/me/application-passwords", json={"name": "temp"}, auth=("admin", password)).json()
    assert httpx.get(server.url + "/cms/v2/users/me", auth=("admin", extra["password"])).status_code == 200
    deleted = httpx.delete(server.url + f"/cms/v2/users/me/application-passwords/{extra['uuid']}", auth=("admin", password))
    assert deleted.status_code == 200
    revoked = httpx.get(server.url + "/cms/v2/users/me", auth=("admin", extra["password"]))
    assert revoked.status_code == 401 and revoked.json()["code"] == "incorrect_password"


def test_cookie_login_and_nonce_through_a_real_server(site):
    server, admin_id, _ = site
    with httpx.Client(base_url=server.url, follow_redirects=False) as browser:
        form = browser.post("/wp-login.php", data={"log": "admin", "pwd": "login-secret", "redirect_to": "/wp-admin/"})
        assert form.status_code in (302, 303)
        dashboard = browser.get("/wp-admin/")
        nonce = re.search(r'"nonce":\s*"([0-9a-f]+)"', dashboard.text).group(1)
        me = browser.get("/wp-json/cms/v2/users/me", headers={"X-WP-Nonce": nonce})
        assert me.status_code == 200 and me.json()["id"] == admin_id
        assert me.headers["x-wp-nonce"]
        anonymous = browser.get("/wp-json/cms/v2/users/me")
        assert anonymous.status_code == 401
        bad = browser.get("/wp-json/cms/v2/users/me", headers={"X-WP-Nonce": "deadbeef00"})
        assert bad.status_code == 403 and bad.json()["code"] == "rest_cookie_invalid_nonce"


def test_bad_input_never_500(site):
    server, _, password = site
    auth = ("admin", password)
    cases = [
        ("POST", "/cms/v2/users/me/application-passwords", {"content": b'{"name": "broken', "headers": {"Content-Type": "application/json"}}, 400, "rest_invalid_json"),
        ("POST", "/cms/v2/users/me/application-passwords", {"content": b'{"name": "x"}', "headers": {"Content-Type": "text/plain"}}, 400, "rest_missing_callback_param"),
        ("POST", "/cms/v2/users/me/application-passwords", {"content": b'{"name": "\xff"}', "headers": {"Content-Type": "application/json"}}, 400, "rest_invalid_json"),
        ("GET", "/cms/v2/users?search=%FF%FE", {}, 200, None),
        ("GET", "/cms/v2/users/%FF", {}, 404, "rest_no_route"),
        ("GET", "/wp-json/no/such/route", {}, 404, "rest_no_route"),
        ("DELETE", "/", {}, 404, "rest_no_route"),
        ("GET", "/cms/v2/users?per_page=abc", {}, 400, "rest_invalid_param"),
        ("POST", "/cms/v2/users", {"json": {"username": ["x"], "email": 5, "password": {"a": 1}}}, 400, "rest_invalid_param"),
    ]
    for method, path, kwargs, status, code in cases:
        response = httpx.request(method, server.url + path, auth=auth, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        if code:
            assert response.json()["code"] == code, (method, path)
    missing_auth = httpx.get(server.url + "/cms/v2/users/me", headers={"Authorization": "Basic"})
    assert missing_auth.status_code == 401 and missing_auth.json()["code"] == "rest_not_logged_in"



def test_calendar_through_a_real_server(site):
    """Demo data seeded by the command line, then the calendar read and written over real HTTP;
    the cached listing follows a write at once, and the event's public page points at it."""
    from urllib.parse import urlsplit

    server, _, password = site
    assert "Created 25 demo events" in server.cli("seed-demo", "--events", "25", "--quiet")
    params = {"per_page": "5", "start_date": "2000-01-01"}
    listing = httpx.get(server.url + "/wp-json/cal/events/v1/events", params=params)
    assert listing.status_code == 200 and listing.json()["total"] == 25
    assert listing.headers["X-TEC-Total"] == "25" and listing.headers["X-TEC-TotalPages"] == "5"
    follow = httpx.get(listing.json()["next_rest_url"])
    assert follow.status_code == 200 and len(follow.json()["events"]) == 5

    created = httpx.post(server.url + "/wp-json/cal/events/v1/events", auth=("admin", password), json={
        "title": "Live event", "start_date": "tomorrow 6pm", "end_date": "tomorrow 8pm", "timezone": "Europe/Rome",
        "venue": {"venue": "Live Hall", "city": "Rome", "country": "Italy"}, "categories": "Live",
    })
    assert created.status_code == 201, created.text
    event = created.json()
    assert event["timezone"] == "Europe/Rome" and event["venue"]["venue"] == "Live Hall"
    assert httpx.get(server.url + "/wp-json/cal/events/v1/events", params=params).json()["total"] == 26
    page = httpx.head(server.url + urlsplit(event["url"]).path)
    assert page.status_code == 200
    assert page.headers["X-TEC-API-ROOT"] == f"{server.url}/wp-json/cal/events/v1/events/{event['id']}"
