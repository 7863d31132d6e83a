"""Who is asking: Basic auth with application passwords, login cookies and REST nonces."""

from __future__ import annotations

import base64
import re

import pytest

from calpress.auth import sessions


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def chunk(raw):
    return " ".join(raw[i : i + 4] for i in range(0, 24, 4))


def test_basic_auth_outcomes(client, admin):
    ok = client.get("/cms/v2/users/me", headers=basic(admin.login, chunk(admin.app_password)))
    assert ok.status_code == 200 and ok.json["id"] == admin.id
    by_email = client.get("/cms/v2/users/me", headers=basic(admin.email, admin.app_password))
    assert by_email.status_code == 200
    cases = [
        (basic("nosuchuser", "abcd efgh ijkl mnop qrst uvwx"), "invalid_username", "<strong>Error:</strong> Unknown username. Check again or try your email address."),
        (basic("nobody@example.test", admin.app_password), "invalid_email", "<strong>Error:</strong> Unknown email address. Check again or try your username."),
        (basic(admin.login, admin.password), "incorrect_password", "The provided password is an invalid application password."),
        (basic(admin.login, "wrong-password-123"), "incorrect_password", "The provided password is an invalid application password."),
    ]
    for headers, code, message in cases:
        response = client.get("/cms/v2/users/me", headers=headers)
        assert response.status_code == 401, code
        assert response.json == {"code": code, "message": message, "data": {"status": 401}}
        assert "allow" not in response.headers  # authentication fails before routing


def test_authentication_errors_come_before_routing(client, admin):
    response = client.get("/wp-json/no/such/route", headers=basic(admin.login, "wrong"))
    assert response.status_code == 401 and response.json["code"] == "incorrect_password"


def test_malformed_authorization_is_anonymous(client, admin):
    for value in ("Basic !!!notbase64", "Bearer abc", "Basic " + base64.b64encode(b"no-colon").decode()):
        response = client.get("/cms/v2/users/me", headers={"Authorization": value})
        assert response.status_code == 401 and response.json["code"] == "rest_not_logged_in"


def test_basic_is_not_tried_before_any_application_password_exists(client, make_account):
    account = make_account("early", "administrator", app_password=False)
    response = client.get("/cms/v2/users/me", headers=basic(account.login, "abcd efgh ijkl mnop qrst uvwx"))
    assert response.status_code == 401 and response.json["code"] == "rest_not_logged_in"


def test_last_used_is_recorded(client, admin):
    before = client.get("/cms/v2/users/me/application-passwords/" + admin.app_password_uuid, user=admin).json
    assert before["last_used"] is not None
    assert before["last_ip"]


def login(client, account, remember=False):
    body = f"log={account.login}&pwd={account.password}&redirect_to=%2Fwp-admin%2F" + ("&rememberme=forever" if remember else "")
    response = client.http.simulate_post("/wp-login.php", body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code in (302, 303), response.text
    cookie = response.cookies[sessions.LOGIN_COOKIE].value
    return cookie


def nonce_from_dashboard(client, cookie):
    page = client.http.simulate_get("/wp-admin/", headers={"Cookie": f"{sessions.LOGIN_COOKIE}={cookie}"})
    assert page.status_code == 200
    return re.search(r'"nonce":\s*"([0-9a-f]+)"', page.text).group(1)


def test_cookie_with_nonce(client, accounts):
    editor = accounts["editor"]
    cookie = login(client, editor)
    cookie_header = {"Cookie": f"{sessions.LOGIN_COOKIE}={cookie}"}
    nonce = nonce_from_dashboard(client, cookie)
    ok = client.get("/cms/v2/users/me", headers={**cookie_header, "X-WP-Nonce": nonce})
    assert ok.status_code == 200 and ok.json["id"] == editor.id
    assert re.fullmatch(r"[0-9a-f]{10}", ok.headers["x-wp-nonce"])
    via_param = client.get("/cms/v2/users/me", params={"_wpnonce": nonce}, headers=cookie_header)
    assert via_param.status_code == 200
    no_nonce = client.get("/cms/v2/users/me", headers=cookie_header)
    assert no_nonce.status_code == 401 and no_nonce.json["code"] == "rest_not_logged_in"
    bad = client.get("/cms/v2/users/me", headers={**cookie_header, "X-WP-Nonce": "0123456789"})
    assert bad.status_code == 403
    assert bad.json == {"code": "rest_cookie_invalid_nonce", "message": "Cookie check failed", "data": {"status": 403}}
    assert bad.headers["cache-control"] == "no-cache, must-revalidate, max-age=0, no-store, private"
    ajax = client.http.simulate_get("/wp-admin/admin-ajax.php", params={"action": "rest-nonce"}, headers=cookie_header)
    assert ajax.status_code == 200
    assert client.get("/cms/v2/users/me", headers={**cookie_header, "X-WP-Nonce": ajax.text}).status_code == 200


def test_bad_nonce_without_cookie_is_403(client):
    # a nonce outside ASCII too (it made the comparison raise: a 500)
    for kwargs in ({"headers": {"X-WP-Nonce": "0123456789"}}, {"params": {"_wpnonce": "0123456789"}}, {"params": {"_wpnonce": "\u00e9t\u00e9"}}):
        response = client.get("/cms/v2/users", **kwargs)
        assert response.status_code == 403 and response.json["code"] == "rest_cookie_invalid_nonce"
        assert response.headers["vary"] == "Origin, Accept-Encoding"  # the second from http_encoding.py


def test_nonce_of_another_user_or_session_fails(client, accounts, app):
    editor, author = accounts["editor"], accounts["author"]
    editor_cookie = login(client, editor)
    author_nonce = nonce_from_dashboard(client, login(client, author))
    response = client.get("/cms/v2/users/me", headers={"Cookie": f"{sessions.LOGIN_COOKIE}={editor_cookie}", "X-WP-Nonce": author_nonce})
    assert response.status_code == 403


def test_tampered_or_expired_cookie_is_anonymous(client, accounts, app):
    editor = accounts["editor"]
    cookie = login(client, editor)
    user_id, expiration, token, mac = cookie.split("|")
    forged = f"{accounts['administrator'].id}|{expiration}|{token}|{mac}"
    page = client.http.simulate_get("/wp-admin/", headers={"Cookie": f"{sessions.LOGIN_COOKIE}={forged}"})
    assert page.status_code in (302, 303) and "/wp-login.php" in page.headers["location"]
    expired, _ = sessions.make_login_cookie(app.settings.secret_key, editor.id, "x", now=0)
    page = client.http.simulate_get("/wp-admin/", headers={"Cookie": f"{sessions.LOGIN_COOKIE}={expired}"})
    assert page.status_code in (302, 303)


def test_login_page_errors(client, accounts):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    unknown = client.http.simulate_post("/wp-login.php", body="log=ghost&pwd=x", headers=form)
    assert unknown.status_code == 200 and "is not registered on this site" in unknown.text
    wrong = client.http.simulate_post("/wp-login.php", body=f"log={accounts['editor'].login}&pwd=nope", headers=form)
    assert wrong.status_code == 200 and "is incorrect" in wrong.text
    assert sessions.LOGIN_COOKIE not in wrong.cookies


def test_login_redirect_stays_on_site(client, accounts):
    account = accounts["author"]
    body = f"log={account.login}&pwd={account.password}&redirect_to=https%3A%2F%2Fevil.example%2F"
    response = client.http.simulate_post("/wp-login.php", body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.headers["location"].endswith("/wp-admin/")


@pytest.mark.parametrize("now_offset,expected", [(0, 1), (13 * 3600, 2), (25 * 3600, 0)])
def test_nonce_lifetime(now_offset, expected):
    start = 1_800_000_000 - (1_800_000_000 % 43200) + 10
    nonce = sessions.create_nonce("key", "wp_rest", 5, "tok", now=start)
    assert sessions.verify_nonce("key", nonce, "wp_rest", 5, "tok", now=start + now_offset) == expected
    assert sessions.verify_nonce("key", nonce, "wp_rest", 6, "tok", now=start) == 0


def test_html_pages_advertise_the_api(client):
    for path in ("/wp-login.php", "/"):
        response = client.http.simulate_get(path, headers={"Accept": "text/html"})
        assert response.status_code == 200
        assert response.headers["link"] == '<http://example.test/wp-json/>; rel="https://api.w.org/"'
