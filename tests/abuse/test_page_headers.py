"""The pages that take passwords and hand out sessions: not frameable, no sniffing, a content
security policy, a referrer policy, and a Secure login cookie on an https site (issue 9, #8)."""

from __future__ import annotations

import re

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _assert_guarded(response) -> None:
    headers = response.headers
    assert headers["x-frame-options"] == "SAMEORIGIN"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
    policy = headers["content-security-policy"]
    assert "frame-ancestors 'self'" in policy and "object-src 'none'" in policy
    assert "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";", 1)[0]


def _logged_in(client, account) -> dict[str, str]:
    login = client.http.simulate_post("/wp-login.php", body=f"log={account.login}&pwd={account.password}", headers=FORM)
    return {"Cookie": login.headers["set-cookie"].split(";", 1)[0]}


def test_the_login_page_sends_the_guard_headers(client):
    _assert_guarded(client.http.simulate_get("/wp-login.php"))


def test_the_authorization_page_sends_the_guard_headers(client, admin):
    page = client.http.simulate_get("/wp-admin/authorize-application.php?app_name=Test", headers=_logged_in(client, admin))
    assert page.status_code == 200 and "Authorize" in page.text
    _assert_guarded(page)


def test_a_failed_login_answer_is_guarded_too(client, admin):
    _assert_guarded(client.http.simulate_post("/wp-login.php", body=f"log={admin.login}&pwd=wrong", headers=FORM))


def test_the_dashboard_script_carries_the_policy_nonce(client, admin):
    page = client.http.simulate_get("/wp-admin/", headers=_logged_in(client, admin))
    assert page.status_code == 200
    nonce = re.search(r"'nonce-([^']+)'", page.headers["content-security-policy"]).group(1)
    assert f'<script nonce="{nonce}">' in page.text


def test_the_login_cookie_is_secure_when_the_site_address_is_https(app, client, admin):
    plain = client.http.simulate_post("/wp-login.php", body=f"log={admin.login}&pwd={admin.password}", headers=FORM)
    assert "secure" not in plain.headers["set-cookie"].lower()
    with app.site.write() as conn:
        app.site.update_option(conn, "siteurl", "https://example.test")
    secure = client.http.simulate_post("/wp-login.php", body=f"log={admin.login}&pwd={admin.password}", headers=FORM)
    assert secure.status_code in (302, 303)
    assert "secure" in [part.strip().lower() for part in secure.headers["set-cookie"].split(";")]
