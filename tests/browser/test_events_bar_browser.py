"""The events bar in headless Chromium against one real server (issue 32, items 13 and 14): on a
phone (390 pixels) its search, date and filters fold behind a search button that opens them
(``aria-expanded``, ``aria-controls``), shown open without JavaScript and on a wide screen; at
1280 pixels its category and venue selects narrow the view, through the views route, and the
view links keep them. Each state is captured (test-output/screenshots/events-bar-*.png) and
axe-core finds no serious or critical violation in the view."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from appfixtures import serving_with_admin
from browser_support import AXE, NARROW, SCREENSHOTS, WIDE

pytestmark = pytest.mark.browser

VIEW = '[data-js="tribe-events-view"]'
BUTTON = '[data-js="tribe-events-search-button"]'
CONTAINER = '[data-js="tribe-events-search-container"]'


@dataclass
class Site:
    url: str
    harbour: int
    barn: int
    titles: list[str]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Six events from tomorrow on, at two venues and in two categories, seeded through the API."""
    with serving_with_admin(tmp_path_factory.mktemp("events-bar")) as (server, rest):

        def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            response = rest.post(path, json=body)
            assert response.status_code == 201, (path, response.status_code, response.text)
            return response.json()

        harbour = post("/cal/events/v1/venues", {"venue": "Harbour Hall", "city": "Hamburg"})
        barn = post("/cal/events/v1/venues", {"venue": "Mill Barn", "city": "Lübeck"})
        tomorrow = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1)
        plan = [("Harbour Jazz", harbour, "Jazz"), ("Barn Folk", barn, "Folk"), ("Harbour Folk", harbour, "Folk"),
                ("Barn Jazz", barn, "Jazz"), ("Harbour Choir", harbour, "Folk"), ("Barn Dance", barn, "Folk")]
        titles = []
        for n, (title, venue, category) in enumerate(plan):
            day = tomorrow + dt.timedelta(days=n)
            post("/cal/events/v1/events", {"title": title, "start_date": f"{day} 19:00:00", "end_date": f"{day} 21:00:00",
                                           "venue": venue["id"], "categories": [category],
                                           "description": f"<p>{title} in the {venue['venue']}.</p>"})
            titles.append(title)
        yield Site(server.url, harbour["id"], barn["id"], titles)


class Tab:
    """A page of its own context, watching for console and page errors."""

    def __init__(self, browser: Any, width: int, *, javascript: bool = True) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 844 if width == NARROW else 900},
                                           java_script_enabled=javascript, bypass_csp=True)
        self.context.set_default_timeout(15000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def goto(self, url: str) -> None:
        response = self.page.goto(url)
        assert response is not None and response.status == 200, url

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations in the calendar view."""
        if not self.page.evaluate("typeof axe !== 'undefined'"):
            self.page.add_script_tag(path=str(AXE))
        return self.page.evaluate("""async (selector) => {
            const result = await axe.run({include: [[selector]]}, {resultTypes: ["violations"]});
            return result.violations.filter(v => ["serious", "critical"].includes(v.impact))
                .map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}));
        }""", VIEW)

    def capture(self, name: str) -> None:
        found = self.axe()
        assert found == [], f"{name}: axe-core found {json.dumps(found, indent=1)}"
        assert self.errors == [], f"{name}: {self.errors}"
        overflow = self.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name}: scrolls sideways by {overflow}px"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"events-bar-{name}.png"), full_page=False)

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def tabs(chromium: Any) -> Iterator[Any]:
    """``tabs(width)``: a new context and page on the browser the workspace's tests share."""
    opened: list[Tab] = []

    def make(width: int, **kwargs: Any) -> Tab:
        opened.append(Tab(chromium, width, **kwargs))
        return opened[-1]

    yield make
    for tab in opened:
        tab.close()


def list_titles(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("h3.tribe-events-calendar-list__event-title a").all_inner_texts()]


def first_event_top(page: Any) -> float:
    return page.locator("h3.tribe-events-calendar-list__event-title").first.bounding_box()["y"]


# -- on a phone -----------------------------------------------------------------------------------


def test_on_a_phone_the_bar_folds_behind_a_search_button(site: Site, tabs: Any) -> None:
    tab = tabs(NARROW)
    page = tab.page
    tab.goto(site.url + "/events/list/")
    button = page.locator(BUTTON)
    assert button.is_visible()
    assert button.get_attribute("aria-expanded") == "false"
    controlled = button.get_attribute("aria-controls")
    assert controlled and page.locator(f"#{controlled}").count() == 1
    assert page.locator(f"#{controlled}").is_hidden()
    assert page.locator('input[name="tribe-bar-search"]').is_hidden()
    assert page.locator(".tribe-events-c-view-selector").is_visible()
    folded = first_event_top(page)
    assert folded < 844 * 0.6, f"the first event starts {folded}px down the first screen"
    tab.capture(f"collapsed-{NARROW}")

    button.click()
    assert button.get_attribute("aria-expanded") == "true"
    assert page.locator(f"#{controlled}").is_visible()
    for name in ("tribe-bar-search", "tribe-bar-date", "tribe_events_cat", "tribe_venue"):
        assert page.locator(f'[name="{name}"]').is_visible(), name
    opened = first_event_top(page)
    assert opened > folded
    tab.capture(f"opened-{NARROW}")

    # A search from the opened bar re-renders the view with the bar still open; closing it again works.
    page.fill('input[name="tribe-bar-search"]', "folk")
    page.press('input[name="tribe-bar-search"]', "Enter")
    page.wait_for_url(re.compile(r".*[?&]tribe-bar-search=folk(&|$)"))
    page.wait_for_function("() => document.querySelectorAll('h3.tribe-events-calendar-list__event-title').length === 2")
    fresh = page.locator(BUTTON)
    assert fresh.get_attribute("aria-expanded") == "true"
    fresh.click()
    assert fresh.get_attribute("aria-expanded") == "false"
    assert page.locator('input[name="tribe-bar-search"]').is_hidden()
    print(f"first event top at {NARROW}px: folded {folded:.0f}px, opened {opened:.0f}px")
    assert tab.errors == []


def test_without_javascript_the_bar_is_open_and_the_button_hidden(site: Site, tabs: Any) -> None:
    tab = tabs(NARROW, javascript=False)
    page = tab.page
    tab.goto(site.url + "/events/list/")
    assert page.locator(BUTTON).is_hidden()
    assert page.locator('input[name="tribe-bar-search"]').is_visible()
    page.select_option('select[name="tribe_venue"]', str(site.barn))
    page.click(".tribe-events-c-events-bar button[type=submit]")
    page.wait_for_url(re.compile(rf".*[?&]tribe_venue={site.barn}(&|$)"))
    assert list_titles(page) == ["Barn Folk", "Barn Jazz", "Barn Dance"]


def test_widening_the_window_opens_the_bar(site: Site, tabs: Any) -> None:
    tab = tabs(WIDE)
    page = tab.page
    tab.goto(site.url + "/events/list/")
    assert page.locator(BUTTON).is_hidden()
    assert page.locator('input[name="tribe-bar-search"]').is_visible()
    page.set_viewport_size({"width": NARROW, "height": 844})
    page.wait_for_function(f"() => document.querySelector('{BUTTON}').getAttribute('aria-expanded') === 'false'")
    assert page.locator('input[name="tribe-bar-search"]').is_hidden()
    page.set_viewport_size({"width": WIDE, "height": 900})
    page.wait_for_function(f"() => document.querySelector('{BUTTON}').getAttribute('aria-expanded') === 'true'")
    assert page.locator('input[name="tribe-bar-search"]').is_visible()
    assert tab.errors == []


# -- the filters on a wide screen -----------------------------------------------------------------


def test_the_category_and_venue_filters_narrow_the_views(site: Site, tabs: Any) -> None:
    tab = tabs(WIDE)
    page = tab.page
    tab.goto(site.url + "/events/list/")
    assert list_titles(page) == site.titles
    assert page.locator(BUTTON).is_hidden()
    categories = page.locator('select[name="tribe_events_cat"] option').all_inner_texts()
    venues = page.locator('select[name="tribe_venue"] option').all_inner_texts()
    assert categories == ["All categories", "Folk", "Jazz"] and venues == ["All venues", "Harbour Hall", "Mill Barn"]
    tab.capture(f"filters-{WIDE}")

    page.evaluate("window.__sameDocument = true")
    page.select_option('select[name="tribe_events_cat"]', "folk")
    page.select_option('select[name="tribe_venue"]', str(site.harbour))
    page.click(".tribe-events-c-events-bar button[type=submit]")
    page.wait_for_url(re.compile(rf".*/events/list/\?tribe_events_cat=folk&tribe_venue={site.harbour}$"))
    page.wait_for_function("() => document.querySelectorAll('h3.tribe-events-calendar-list__event-title').length === 2")
    assert list_titles(page) == ["Harbour Folk", "Harbour Choir"]
    assert page.evaluate("window.__sameDocument") is True, "the filters loaded a new page instead of re-rendering"
    assert page.locator('select[name="tribe_events_cat"]').input_value() == "folk"
    assert page.locator('select[name="tribe_venue"]').input_value() == str(site.harbour)
    assert "Folk" in page.inner_text(".tribe-events-header__title")
    tab.capture(f"filtered-{WIDE}")

    page.click('.tribe-events-c-view-selector a:has-text("Month")')
    page.wait_for_url(re.compile(rf".*/events/category/folk/month/\?tribe_venue={site.harbour}$"))
    page.wait_for_selector(".tribe-events-view--month")
    shown = {text.strip() for text in page.locator(".tribe-events-calendar-month__calendar-event-title").all_inner_texts()}
    assert shown <= {"Harbour Folk", "Harbour Choir"}, shown
    assert page.locator('select[name="tribe_venue"]').input_value() == str(site.harbour)
    page.go_back()
    page.wait_for_selector(".tribe-events-view--list")
    assert list_titles(page) == ["Harbour Folk", "Harbour Choir"]

    page.select_option('select[name="tribe_events_cat"]', "")
    page.select_option('select[name="tribe_venue"]', "")
    page.click(".tribe-events-c-events-bar button[type=submit]")
    page.wait_for_url(re.compile(r".*/events/list/$"))
    page.wait_for_function(f"() => document.querySelectorAll('h3.tribe-events-calendar-list__event-title').length === {len(site.titles)}")
    assert list_titles(page) == site.titles
    assert tab.errors == []


# -- the Reading settings -------------------------------------------------------------------------


def test_the_reading_screen_makes_the_events_page_the_front_page(visit: Any, workspace_site: Any) -> None:
    server, rest = workspace_site
    administrator = visit()
    administrator.login("admin", target="/wp-admin/options-reading.php")
    page = administrator.page
    assert page.input_value("#cal_ical_feed_posts_per_page") == "30"
    page.check('input[name="show_on_front"][value="page"]')
    page.select_option("#page_on_front", label="Main Events Page")
    page.fill("#cal_ical_feed_posts_per_page", "12")
    page.click("#submit")
    page.wait_for_selector(".notice-success")
    administrator.check("options-reading-events-front")
    settings = rest.get("/cms/v2/settings").json()
    assert (settings["show_on_front"], settings["page_on_front"]) == ("page", -10)
    assert page.input_value("#cal_ical_feed_posts_per_page") == "12"
    administrator.goto("/")
    assert page.locator('[data-js="tribe-events-view"]').count() == 1
    assert page.inner_text(".tribe-events-header__title").strip() == "Upcoming Events"
    assert page.locator('.site-nav a[aria-current="page"]').inner_text().strip() == "Events"
    administrator.goto("/wp-admin/options-reading.php")
    page.check('input[name="show_on_front"][value="posts"]')
    page.click("#submit")
    page.wait_for_selector(".notice-success")
    assert rest.get("/cms/v2/settings").json()["show_on_front"] == "posts"
