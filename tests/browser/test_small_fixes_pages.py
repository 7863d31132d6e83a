"""Issue 32, item 13 in Chromium: the login page (the site's name, "Lost your password?", "← Go to
<site>") and the public 404 page (its search form and the calendar link), each passing the
workspace's checks (axe-core, no console error, no sideways scroll at 390 pixels) and captured
at 1280 and 390 pixels (test-output/screenshots/admin-login-page-*.png, admin-site-not-found-*.png).
Every answer comes compressed to a browser that asks for it (issue 32, item 10)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from appfixtures import serving_with_admin
from browser_support import Visit, chromium  # noqa: F401 - chromium is a fixture

pytestmark = pytest.mark.browser

SITE_NAME = "Riverside Garden Club"


@pytest.fixture(scope="module")
def named_site(tmp_path_factory) -> Iterator[Any]:
    with serving_with_admin(tmp_path_factory.mktemp("small-fixes")) as (server, rest):
        assert rest.post("/wp-json/cms/v2/settings", json={"title": SITE_NAME}).status_code == 200
        yield server


def test_the_login_page_and_its_links(chromium, named_site):  # noqa: F811 - the fixture
    visit = Visit(chromium, named_site.url)
    try:
        page = visit.page
        answer = visit.goto("/wp-login.php")
        assert answer.headers.get("content-encoding") in ("br", "gzip")
        assert page.text_content("h1.login-site") == SITE_NAME
        assert page.get_attribute("h1.login-site a", "href") == named_site.url + "/"
        assert page.text_content("#backtoblog") == f"\u2190 Go to {SITE_NAME}"
        visit.check("login-page")
        page.click("text=Lost your password?")
        page.wait_for_url(f"{named_site.url}/wp-login.php?action=lostpassword")
        with page.expect_navigation():
            page.click(f"text=\u2190 Go to {SITE_NAME}")
        assert page.url == named_site.url + "/"
    finally:
        visit.close()


def test_the_404_page_offers_search_and_the_calendar(chromium, named_site):  # noqa: F811
    visit = Visit(chromium, named_site.url)
    try:
        page = visit.page
        answer = visit.goto("/no-such-page/")
        assert answer.status == 404
        assert page.is_visible("form.not-found-search input[name=s]")
        assert page.is_visible("text=Browse the calendar of upcoming events")
        assert page.locator("footer.site-footer a", has_text="REST API").count() == 0
        # The 404 answer itself is the page under test: Chromium logs its status as a console error.
        visit.errors = [error for error in visit.errors if "404" not in error]
        visit.check("site-not-found")
        page.fill("form.not-found-search input[name=s]", "garden")
        with page.expect_navigation():
            page.click("form.not-found-search button")
        assert page.url == named_site.url + "/?s=garden"
        visit.goto("/no-such-page/")
        with page.expect_navigation():
            page.click("text=Browse the calendar of upcoming events")
        assert page.url.startswith(named_site.url + "/events/")
    finally:
        visit.close()
