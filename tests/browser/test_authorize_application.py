"""The application authorization flow in headless Chromium against a real server: log in, approve
or reject, and the redirect carries a working application password."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

pytestmark = pytest.mark.browser


@pytest.fixture()
def browser_page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


@pytest.fixture()
def admin_site(live_server):
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
    return live_server


def login(page):
    page.fill("#user_login", "admin")
    page.fill("#user_pass", "login-secret")
    page.click("#wp-submit")


def test_approve_redirects_with_a_working_password(browser_page, admin_site):
    page = browser_page
    success = f"{admin_site.url}/callback"
    query = urlencode({"app_name": "Calendar Sync", "app_id": "6f1e3c1a-2b3c-4d5e-8f90-123456789abc", "success_url": success})
    page.goto(f"{admin_site.url}/wp-admin/authorize-application.php?{query}")
    assert "/wp-login.php" in page.url
    login(page)
    page.wait_for_selector("#approve")
    assert "Calendar Sync" in page.inner_text("main")
    page.click("#approve")
    page.wait_for_url(f"{success}?*")
    params = {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}
    assert params["site_url"] == admin_site.url
    assert params["user_login"] == "admin"
    assert len(params["password"]) == 24
    me = httpx.get(admin_site.url + "/cms/v2/users/me/application-passwords/introspect", auth=("admin", params["password"]))
    assert me.status_code == 200
    assert me.json()["name"] == "Calendar Sync"
    assert me.json()["app_id"] == "6f1e3c1a-2b3c-4d5e-8f90-123456789abc"


def test_reject_redirects_with_success_false(browser_page, admin_site):
    page = browser_page
    success = f"{admin_site.url}/callback"
    page.goto(f"{admin_site.url}/wp-admin/authorize-application.php?" + urlencode({"app_name": "Nope", "success_url": success}))
    login(page)
    page.wait_for_selector("#reject")
    page.click("#reject")
    page.wait_for_url(f"{success}?success=false")
    listed = httpx.get(admin_site.url + "/cms/v2/users/1/application-passwords", auth=("admin", admin_site.cli("user", "application-password", "create", "admin", "check", "--porcelain").strip()))
    assert [item["name"] for item in listed.json()] == ["check"]


def test_without_success_url_the_password_is_shown(browser_page, admin_site):
    page = browser_page
    page.goto(f"{admin_site.url}/wp-admin/authorize-application.php?app_name=Manual")
    login(page)
    page.click("#approve")
    shown = page.inner_text("#new-password-value")
    assert len(shown) == 29 and shown.count(" ") == 5
    assert httpx.get(admin_site.url + "/cms/v2/users/me", auth=("admin", shown)).status_code == 200


def test_invalid_requests_are_refused(browser_page, admin_site):
    page = browser_page
    page.goto(f"{admin_site.url}/wp-login.php")
    login(page)
    for query, reason in (
        ({"app_name": "x", "app_id": "not-a-uuid"}, "The application ID must be a UUID."),
        ({"app_name": "x", "success_url": "javascript:alert(1)"}, "Invalid URL format."),
        ({"app_name": "x", "success_url": "http://apps.example/cb"}, None),
    ):
        response = page.goto(f"{admin_site.url}/wp-admin/authorize-application.php?" + urlencode(query))
        text = page.inner_text("main")
        if reason is None:  # plain http is allowed because the server runs in a local environment
            assert response.status == 200 and page.query_selector("#approve") is not None
        else:
            assert response.status == 400
            assert "Cannot Authorize Application" in text and reason in text
