"""The public calendar pages in headless Chromium against one real server seeded through the REST
API: the list, month and day views (with their JavaScript re-rendering through the views route,
the back button and the plain-link fallback), the single event, venue and post pages, the events
bar search; every page without console or page errors, and each one captured at 1280 and 390
pixels wide (test-output/screenshots/) without horizontal overflow on the narrow screen."""

from __future__ import annotations

import calendar
import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from appfixtures import serving_with_admin
from browser_support import NARROW, SCREENSHOTS, WIDE

pytestmark = pytest.mark.browser

PRIVATE_TITLE = "Secret Rehearsal"


# -- the seeded site ------------------------------------------------------------------------------


@dataclass
class Event:
    title: str
    start: dt.datetime
    end: dt.datetime
    all_day: bool = False
    id: int = 0
    url: str = ""

    def days(self) -> list[dt.date]:
        """The days the event covers in the month grid."""
        first, last = self.start.date(), self.end.date()
        return [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]


@dataclass
class Site:
    url: str
    now: dt.datetime
    events: dict[str, Event]
    venue_url: str
    organizer_name: str
    post_title: str
    post_link: str
    post_text: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def this_month(self) -> dt.date:
        return self.now.date().replace(day=1)

    @property
    def next_month(self) -> dt.date:
        first = self.this_month
        return (first + dt.timedelta(days=32)).replace(day=1)

    def upcoming(self) -> list[Event]:
        """The events the list view shows by default: not yet over, by start."""
        return sorted((e for e in self.events.values() if e.end > self.now), key=lambda e: e.start)


def plan_events(today: dt.date) -> list[Event]:
    """Five events: four in the current month (two single evenings, a three-day festival, an
    all-day picnic) on six consecutive days after today as far as the month allows, and one in
    the next month."""
    last_day = calendar.monthrange(today.year, today.month)[1]
    first = today.replace(day=max(1, min(today.day + 1, last_day - 5)))

    def at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
        return dt.datetime.combine(day, dt.time(hour, minute))

    day = [first + dt.timedelta(days=n) for n in range(6)]
    following = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=10)
    return [
        Event("Jazz Night", at(day[0], 19), at(day[0], 22)),
        Event("Harvest Festival", at(day[1], 10), at(day[3], 17)),
        Event("Community Picnic", at(day[4], 0), at(day[4], 23, 59), all_day=True),
        Event("Poetry Reading", at(day[5], 20), at(day[5], 21, 30)),
        Event("Winter Concert", at(following, 18), at(following, 20)),
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """One ``calpress serve`` over a fresh SQLite database for the whole module, seeded through
    the REST API with an application password of an administrator."""
    folder = tmp_path_factory.mktemp("calendar-pages")
    with serving_with_admin(folder) as (server, rest):

        def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            response = rest.post(path, json=body)
            assert response.status_code == 201, (path, response.status_code, response.text)
            return response.json()

        venue = post("/cal/events/v1/venues", {"venue": "Town Hall", "address": "1 Main St", "city": "Springfield",
                                               "country": "United States"})
        organizer = post("/cal/events/v1/organizers", {"organizer": "Springfield Arts Council",
                                                       "email": "arts@example.test"})
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        events = {}
        for event in plan_events(now.date()):
            body: dict[str, Any] = {
                "title": event.title,
                "start_date": event.start.strftime("%Y-%m-%d %H:%M:%S"),
                "end_date": event.end.strftime("%Y-%m-%d %H:%M:%S"),
                "venue": venue["id"],
                "organizer": [organizer["id"]],
                "categories": ["Music"],
                "description": f"<p>{event.title} at the Town Hall.</p>",
            }
            if event.all_day:
                body["all_day"] = True
            created = post("/cal/events/v1/events", body)
            event.id, event.url = created["id"], created["url"]
            events[event.title] = event
        # A private event: only logged-in users who may read it see it.
        private = plan_events(now.date())[0]
        created = post("/cal/events/v1/events", {
            "title": PRIVATE_TITLE, "status": "private",
            "start_date": private.start.replace(hour=9).strftime("%Y-%m-%d %H:%M:%S"),
            "end_date": private.start.replace(hour=10).strftime("%Y-%m-%d %H:%M:%S"),
        })
        assert created["status"] == "private"
        private_event = Event(PRIVATE_TITLE, private.start.replace(hour=9), private.start.replace(hour=10),
                              id=created["id"], url=created["url"])
        post_body = "Our calendar is full of music this season."
        created_post = post("/cms/v2/posts", {"title": "Welcome to the Season", "content": f"<p>{post_body}</p>",
                                              "status": "publish"})
        yield Site(server.url, now, events, venue["url"], "Springfield Arts Council", "Welcome to the Season",
                   created_post["link"], post_body, extra={"private": private_event})


# -- the browser ----------------------------------------------------------------------------------


class Problems:
    """Console errors and uncaught page errors of one browser context."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("console", lambda message: self.found.append(f"console {message.type}: {message.text} ({page.url})")
                if message.type == "error" else None)
        page.on("pageerror", lambda error: self.found.append(f"page error: {error} ({page.url})"))
        return page

    def check(self) -> None:
        assert self.found == [], "\n".join(self.found)


@dataclass
class Tab:
    page: Any
    problems: Problems


def open_tab(browser: Any, *, width: int = WIDE, javascript: bool = True) -> tuple[Any, Tab]:
    context = browser.new_context(viewport={"width": width, "height": 900}, java_script_enabled=javascript)
    context.set_default_timeout(15000)
    problems = Problems()
    page = problems.watch(context.new_page())
    return context, Tab(page, problems)


@pytest.fixture()
def tab(browser: Any) -> Iterator[Tab]:
    """A fresh 1280-wide context and page; the test ends with no console or page error."""
    context, opened = open_tab(browser)
    yield opened
    context.close()


@pytest.fixture()
def no_js_tab(browser: Any) -> Iterator[Tab]:
    context, opened = open_tab(browser, javascript=False)
    yield opened
    context.close()


def visit(tab: Tab, url: str) -> Any:
    response = tab.page.goto(url)
    assert response is not None and response.status == 200, f"{url}: {response.status if response else 'no answer'}"
    return response


def view(page: Any, slug: str) -> Any:
    return page.locator(f'[data-js="tribe-events-view"].tribe-events-view--{slug}')


def month_cell(page: Any, day: dt.date) -> Any:
    return page.locator("table.tribe-events-calendar-month td").filter(has=page.locator(f'time[datetime="{day.isoformat()}"]'))


def month_titles(cell: Any) -> list[str]:
    return [text.strip() for text in cell.locator("li.tribe-events-calendar-month__calendar-event a "
                                                  ".tribe-events-calendar-month__calendar-event-title").all_inner_texts()]


def list_titles(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("li.tribe-events-calendar-list__event-row "
                                                  "h3.tribe-events-calendar-list__event-title a").all_inner_texts()]


def month_path(day: dt.date) -> str:
    return f"/events/month/{day:%Y-%m}/"


# -- the views ------------------------------------------------------------------------------------


def test_list_view_shows_upcoming_events_in_start_order(site: Site, tab: Tab) -> None:
    page = tab.page
    visit(tab, site.url + "/events/list/")
    assert view(page, "list").count() == 1
    expected = [e.title for e in site.upcoming()]
    assert "Winter Concert" in expected
    assert list_titles(page) == expected
    assert page.inner_text(".tribe-events-header__title").strip() == "Upcoming Events"
    for event in site.upcoming():
        link = page.locator("h3.tribe-events-calendar-list__event-title a", has_text=event.title)
        assert link.get_attribute("href") == event.url
    # The view's JSON-LD: one Event per listed event.
    found = []
    for text in page.locator('script[type="application/ld+json"]').all_text_contents():
        data = json.loads(text)
        found.extend(data if isinstance(data, list) else [data])
    assert sorted(d["name"] for d in found if d.get("@type") == "Event") == sorted(expected)
    tab.problems.check()


def test_month_view_places_events_on_their_days(site: Site, tab: Tab) -> None:
    page = tab.page
    visit(tab, site.url + "/events/month/")
    assert view(page, "month").count() == 1
    table = page.locator("table.tribe-events-calendar-month")
    assert table.count() == 1
    assert table.locator("thead th").count() == 7
    assert all(row.locator("td").count() == 7 for row in table.locator("tbody tr").all())
    month_name = f"{site.this_month:%B %Y}"
    assert table.locator("caption").inner_text().strip() == month_name
    assert month_name in page.inner_text(".tribe-events-header__title")
    for event in site.events.values():
        if event.start.date().replace(day=1) != site.this_month:
            continue
        for day in event.days():
            cell = month_cell(page, day)
            assert cell.count() == 1, f"no single cell for {day}"
            assert event.title in month_titles(cell), f"{event.title} missing on {day}: {month_titles(cell)}"
    festival = site.events["Harvest Festival"]
    assert len(festival.days()) == 3
    day_before = festival.start.date() - dt.timedelta(days=1)
    day_after = festival.end.date() + dt.timedelta(days=1)
    for outside in (day_before, day_after):
        if month_cell(page, outside).count():
            assert "Harvest Festival" not in month_titles(month_cell(page, outside)), outside
    # An event shows only in its own cell: each title appears as often as the days it covers.
    all_titles = month_titles(table)
    for event in site.events.values():
        if event.start.date().replace(day=1) == site.this_month:
            assert all_titles.count(event.title) == len(event.days()), (event.title, all_titles)
    assert "Winter Concert" not in all_titles
    assert PRIVATE_TITLE not in all_titles
    tab.problems.check()


def test_month_view_next_and_back_rerender_through_the_views_route(site: Site, tab: Tab) -> None:
    page = tab.page
    visit(tab, site.url + "/events/month/")
    rendered: list[str] = []
    page.on("request", lambda request: rendered.append(request.url) if "/cal/views/v2/html" in request.url else None)
    page.evaluate("window.__sameDocument = true")
    next_month = site.next_month
    page.click(".tribe-events-c-nav__next a")
    page.wait_for_url(site.url + month_path(next_month))
    next_name = f"{next_month:%B %Y}"
    page.wait_for_function("name => document.querySelector('table.tribe-events-calendar-month caption')"
                           "?.textContent.trim() === name", arg=next_name)
    assert next_name in page.inner_text(".tribe-events-header__title")
    concert = site.events["Winter Concert"]
    cell = month_cell(page, concert.start.date())
    assert cell.locator("li.tribe-events-calendar-month__calendar-event", has_text="Winter Concert").is_visible()
    assert page.evaluate("window.__sameDocument") is True, "the next link loaded a new page instead of re-rendering"
    assert any("url=" in url for url in rendered), rendered
    assert next_name in page.title()

    page.go_back()
    page.wait_for_url(site.url + "/events/month/")
    this_name = f"{site.this_month:%B %Y}"
    page.wait_for_function("name => document.querySelector('table.tribe-events-calendar-month caption')"
                           "?.textContent.trim() === name", arg=this_name)
    assert page.evaluate("window.__sameDocument") is True
    for event in site.events.values():
        if event.start.date().replace(day=1) == site.this_month:
            assert event.title in month_titles(month_cell(page, event.start.date()))
    assert "Winter Concert" not in month_titles(page.locator("table.tribe-events-calendar-month"))
    tab.problems.check()


def test_month_view_next_is_a_plain_link_without_javascript(site: Site, no_js_tab: Tab) -> None:
    page = no_js_tab.page
    visit(no_js_tab, site.url + "/events/month/")
    with page.expect_navigation():
        page.click(".tribe-events-c-nav__next a")
    assert page.url == site.url + month_path(site.next_month)
    assert page.locator("table.tribe-events-calendar-month caption").inner_text().strip() == f"{site.next_month:%B %Y}"
    concert = site.events["Winter Concert"]
    assert "Winter Concert" in month_titles(month_cell(page, concert.start.date()))
    no_js_tab.problems.check()


def test_day_view_lists_the_events_of_the_day(site: Site, tab: Tab) -> None:
    page = tab.page
    jazz = site.events["Jazz Night"]
    visit(tab, f"{site.url}/events/day/{jazz.start.date().isoformat()}/")
    assert view(page, "day").count() == 1
    titles = [t.strip() for t in page.locator(".tribe-events-calendar-day h3.tribe-events-calendar-list__event-title a")
              .all_inner_texts()]
    assert titles == ["Jazz Night"]
    # The middle day of the festival lists the festival (ongoing), and nothing else.
    festival = site.events["Harvest Festival"]
    visit(tab, f"{site.url}/events/{festival.days()[1].isoformat()}/")
    titles = [t.strip() for t in page.locator(".tribe-events-calendar-day h3.tribe-events-calendar-list__event-title a")
              .all_inner_texts()]
    assert titles == ["Harvest Festival"]
    tab.problems.check()


# -- single pages ---------------------------------------------------------------------------------


def open_event_from_list(site: Site, tab: Tab, title: str) -> Any:
    page = tab.page
    visit(tab, site.url + "/events/list/")
    with page.expect_navigation():
        page.click(f"h3.tribe-events-calendar-list__event-title a:text-is('{title}')")
    return page


def test_single_event_page(site: Site, tab: Tab) -> None:
    concert = site.events["Winter Concert"]
    page = open_event_from_list(site, tab, concert.title)
    assert page.url == concert.url
    assert page.inner_text("h1.tribe-events-single-event-title").strip() == concert.title
    schedule = page.inner_text(".tribe-events-schedule")
    assert concert.start.strftime("%B") in schedule and str(concert.start.day) in schedule, schedule
    assert re.search(r"6:00\s*pm", schedule, re.I) and re.search(r"8:00\s*pm", schedule, re.I), schedule
    venue = page.inner_text(".tribe-events-meta-group-venue")
    for text in ("Town Hall", "1 Main St", "Springfield", "United States"):
        assert text in venue, venue
    assert site.organizer_name in page.inner_text(".tribe-events-meta-group-organizer")
    assert "Music" in page.inner_text(".tribe-events-meta-group-details")
    assert "Winter Concert at the Town Hall." in page.inner_text(".tribe-events-single-event-description")
    scripts = page.locator('script[type="application/ld+json"]').all_text_contents()
    assert scripts, "no JSON-LD"
    found = []
    for text in scripts:
        data = json.loads(text)
        found.extend(data if isinstance(data, list) else [data])
    events = [d for d in found if d.get("@type") == "Event"]
    assert len(events) == 1, found
    assert events[0]["name"] == concert.title
    assert events[0]["startDate"].startswith(concert.start.strftime("%Y-%m-%dT%H:%M"))
    tab.problems.check()


def test_venue_page_from_the_event_page(site: Site, tab: Tab) -> None:
    page = tab.page
    visit(tab, site.events["Jazz Night"].url)
    with page.expect_navigation():
        page.click(".tribe-events-meta-group-venue a:text-is('Town Hall')")
    assert page.url == site.venue_url
    assert page.locator("h1").inner_text().strip() == "Town Hall"
    assert "1 Main St" in page.inner_text("main address")
    upcoming = list_titles(page)
    assert upcoming == [e.title for e in site.upcoming()]
    tab.problems.check()


def test_post_page(site: Site, tab: Tab) -> None:
    page = tab.page
    visit(tab, site.post_link)
    assert page.locator("h1.entry-title").inner_text().strip() == site.post_title
    content = page.locator(".entry-content")
    assert content.is_visible()
    assert content.inner_text().strip() == site.post_text
    assert site.post_title in page.title()
    tab.problems.check()


# -- the events bar -------------------------------------------------------------------------------


def test_search_re_renders_the_list_with_the_matching_events(site: Site, tab: Tab) -> None:
    page = tab.page
    visit(tab, site.url + "/events/list/")
    assert len(list_titles(page)) == len(site.upcoming()) > 1
    page.evaluate("window.__sameDocument = true")
    field_id = page.locator('input[name="tribe-bar-search"]').get_attribute("id")
    assert field_id and field_id.startswith("tribe-events-bar-search-")
    page.fill(f"#{field_id}", "concert")
    page.press(f"#{field_id}", "Enter")
    page.wait_for_url(re.compile(r".*[?&]tribe-bar-search=concert(&|$)"))
    page.wait_for_function("() => document.querySelectorAll('li.tribe-events-calendar-list__event-row').length === 1")
    assert list_titles(page) == ["Winter Concert"]
    assert page.evaluate("window.__sameDocument") is True, "the search loaded a new page instead of re-rendering"
    assert page.locator('input[name="tribe-bar-search"]').input_value() == "concert"
    assert "Search" in page.inner_text(".tribe-events-header__title")
    tab.problems.check()


def test_skip_link_does_not_re_render_the_view(site: Site, tab: Tab) -> None:
    """Following an in-page anchor (the skip link) changes only the fragment: the view must not be
    fetched and replaced again (views.js re-renders on every popstate, fragment ones included)."""
    page = tab.page
    visit(tab, site.url + "/events/list/")
    rendered: list[str] = []
    page.on("request", lambda request: rendered.append(request.url) if "/cal/views/v2/html" in request.url else None)
    page.evaluate("document.querySelector('[data-js=\"tribe-events-view\"]').dataset.original = 'yes'")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    page.wait_for_url(site.url + "/events/list/#content")
    page.wait_for_timeout(500)
    assert rendered == [], f"the skip link re-rendered the view: {rendered}"
    assert page.evaluate("document.querySelector('[data-js=\"tribe-events-view\"]').dataset.original") == "yes"
    tab.problems.check()


# -- a logged-in user -----------------------------------------------------------------------------


def test_logged_in_re_render_keeps_the_private_events(site: Site, tab: Tab) -> None:
    """A logged-in administrator sees the private event on the page; re-rendering through the views
    route (next month and back, a search) must show the same events as loading that address."""
    page = tab.page
    page.goto(site.url + "/wp-login.php")
    page.fill("#user_login", "admin")
    page.fill("#user_pass", "login-secret")
    with page.expect_navigation():
        page.click("#wp-submit")
    tab.problems.found.clear()  # the login page is not under test here
    private = site.extra["private"]
    visit(tab, site.url + "/events/month/")
    assert PRIVATE_TITLE in month_titles(month_cell(page, private.start.date()))
    page.click(".tribe-events-c-nav__next a")
    page.wait_for_url(site.url + month_path(site.next_month))
    page.wait_for_function("name => document.querySelector('table.tribe-events-calendar-month caption')"
                           "?.textContent.trim() === name", arg=f"{site.next_month:%B %Y}")
    page.go_back()
    page.wait_for_function("name => document.querySelector('table.tribe-events-calendar-month caption')"
                           "?.textContent.trim() === name", arg=f"{site.this_month:%B %Y}")
    assert PRIVATE_TITLE in month_titles(month_cell(page, private.start.date())), \
        "the re-rendered month lost the private event the page showed (views.js sends no tvn1 nonce)"

    # The list from the private event's day on (near a month's end, plan_events puts it in the past).
    visit(tab, site.url + f"/events/list/?tribe-bar-date={private.start.date():%Y-%m-%d}")
    assert PRIVATE_TITLE in list_titles(page)
    page.fill('input[name="tribe-bar-search"]', "rehearsal")
    page.press('input[name="tribe-bar-search"]', "Enter")
    page.wait_for_url(re.compile(r".*[?&]tribe-bar-search=rehearsal(&|$)"))
    page.wait_for_function("() => document.querySelector('.tribe-events-header__title')?.textContent.includes('rehearsal')")
    assert list_titles(page) == [PRIVATE_TITLE], "the re-rendered search does not find the private event"
    tab.problems.check()


# -- every page at two widths ---------------------------------------------------------------------


PAGES = {
    "list": lambda site: site.url + "/events/list/",
    "month": lambda site: site.url + "/events/month/",
    "day": lambda site: f"{site.url}/events/day/{site.events['Harvest Festival'].start.date().isoformat()}/",
    "event": lambda site: site.events["Harvest Festival"].url,
    "venue": lambda site: site.venue_url,
    "post": lambda site: site.post_link,
}


@pytest.mark.parametrize("name", PAGES)
def test_page_screenshots_and_no_overflow_on_small_screens(site: Site, browser: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    url = PAGES[name](site)
    for width in (WIDE, NARROW):
        context, opened = open_tab(browser, width=width)
        try:
            visit(opened, url)
            opened.page.wait_for_load_state("load")
            opened.page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
            sizes = opened.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            if width == NARROW:
                assert sizes[0] <= sizes[1] + 1, f"{name} overflows at {width}px: scrollWidth {sizes[0]} > {sizes[1]}"
            opened.problems.check()
        finally:
            context.close()
