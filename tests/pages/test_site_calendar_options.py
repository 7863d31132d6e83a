"""Issue 32's calendar options through the WSGI app on both databases (and one test through a real
server): how many events the iCalendar feed holds (the reference's 30, then the Reading setting),
the events page as the front page (Settings > Reading, stored as The Events Calendar stores it:
show_on_front "page", page_on_front -10), and the events bar's category and venue filters
narrowing the list, month and day views, kept by their links and by the views route.

The fixture's dates are two years ahead, so the views they land in do not depend on the day the
tests run."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import icalendar
import pytest
from cal_support import make_event, make_venue, set_option

HOME = "http://example.test"
HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
VIEWS = "/cal/views/v2/html"
READING = "/wp-admin/options-reading.php"
FEED_OPTION = "cal_ical_feed_posts_per_page"
YEAR = dt.datetime.now(dt.UTC).year + 2


# -- helpers --------------------------------------------------------------------------------------


def visit(client, path: str, *, status: int = 200):
    response = client.get(path, headers=HTML)
    assert response.status_code == status, (path, response.status_code, response.text[:600])
    assert response.headers["content-type"].startswith("text/html"), path
    return response


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def listed(body: str) -> list[str]:
    return [text_of(found) for found in re.findall(
        r'<h3 class="tribe-events-calendar-list__event-title"><a [^>]*>(.*?)</a></h3>', body, re.S)]


def month_titles(body: str) -> list[str]:
    return sorted({text_of(found) for found in re.findall(
        r'<span class="tribe-events-calendar-month__calendar-event-title">(.*?)</span>', body, re.S)})


def heading(body: str) -> str:
    found = re.findall(r"<h1\b[^>]*>(.*?)</h1>", body, re.S)
    assert len(found) == 1, found
    return text_of(found[0])


def view_data(body: str) -> dict[str, Any]:
    found = re.search(r'<script data-js="tribe-events-view-data" type="application/json">(.*?)</script>', body, re.S)
    assert found, body[:500]
    return json.loads(found.group(1))


def ics_events(client, path: str) -> list[str]:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("text/calendar"), path
    return [str(event["SUMMARY"]) for event in icalendar.Calendar.from_ical(response.content).walk("VEVENT")]


def view_links(body: str) -> dict[str, str]:
    nav = re.search(r'<nav class="tribe-events-c-view-selector"[^>]*>(.*?)</nav>', body, re.S)
    assert nav
    return {text_of(label): html.unescape(href) for href, label in re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', nav.group(1))}


def nav_link(body: str, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]*)" rel="{rel}"', body)
    return html.unescape(found.group(1)) if found else None


def relative(url: str) -> str:
    assert url.startswith(HOME), url
    return url[len(HOME):] or "/"


def select_options(body: str, name: str) -> list[tuple[str, str]] | None:
    """(value, label) of the events bar's select ``name``, or None when the bar has none."""
    found = re.search(rf'<select [^>]*name="{name}"[^>]*>(.*?)</select>', body, re.S)
    if found is None:
        return None
    return [(html.unescape(value), text_of(label)) for value, label in re.findall(r'<option value="([^"]*)"[^>]*>(.*?)</option>', found.group(1))]


def selected(body: str, name: str) -> str:
    found = re.search(rf'<select [^>]*name="{name}"[^>]*>(.*?)</select>', body, re.S)
    assert found
    chosen = re.findall(r'<option value="([^"]*)" selected>', found.group(1))
    return html.unescape(chosen[0]) if chosen else ""


def bar_form(body: str) -> tuple[str, dict[str, str]]:
    """The events bar form's action and what it sends as shown (a browser without JavaScript)."""
    form = re.search(r'<form class="tribe-events-c-events-bar[^"]*" method="get" action="([^"]*)"[^>]*>(.*?)</form>', body, re.S)
    assert form
    fields: dict[str, str] = {}
    for tag in re.findall(r"<input\b[^>]*>", form.group(2)):
        attrs = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', tag))
        fields[attrs["name"]] = html.unescape(attrs.get("value", ""))
    for name in ("tribe_events_cat", "tribe_venue"):
        if select_options(form.group(2), name) is not None:
            fields[name] = selected(form.group(2), name)
    return html.unescape(form.group(1)), fields


def submit(client, body: str, **changes: str):
    action, fields = bar_form(body)
    fields.update(changes)
    return visit(client, relative(action) + "?" + urlencode(fields))


def stamp(month: int, day: int, time: str = "00:00:00") -> str:
    return f"{YEAR}-{month:02d}-{day:02d} {time}"


def settings(client, admin) -> dict[str, Any]:
    return client.get("/cms/v2/settings", user=admin).json


def update_settings(client, admin, **values: Any) -> dict[str, Any]:
    response = client.post("/cms/v2/settings", user=admin, json=values)
    assert response.status_code == 200, response.json
    return response.json


class Workspace:
    """The administrator's workspace: logged in through the form, forms posted with their nonce."""

    def __init__(self, client, account) -> None:
        self.http = client.http
        answer = self.http.simulate_post("/wp-login.php", body=urlencode({"log": account.login, "pwd": account.password}),
                                         headers=FORM)
        assert answer.status_code in (302, 303), answer.text[:300]
        self.cookie = {"Cookie": answer.headers["set-cookie"].split(";", 1)[0]}

    def get(self, path: str):
        return self.http.simulate_get(path, headers=self.cookie)

    def reading_form(self) -> dict[str, str]:
        page = self.get(READING)
        assert page.status_code == 200, page.text[:300]
        form = page.text[page.text.index('id="options-reading"'):]
        form = form[:form.index("</form>")]
        fields: dict[str, str] = {}
        for tag in re.findall(r"<input\b[^>]*>", form):
            attrs = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', tag))
            if attrs.get("type") == "radio" and " checked" not in tag:
                continue
            fields[attrs["name"]] = html.unescape(attrs.get("value", ""))
        for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', form, re.S):
            chosen = re.findall(r'<option value="([^"]*)" selected>', body)
            fields[name] = chosen[0] if chosen else "0"
        return fields

    def save_reading(self, **changes: str):
        fields = {**self.reading_form(), **changes}
        return self.http.simulate_post(READING, body=urlencode(fields), headers={**self.cookie, **FORM})


def error_beside(body: str, field: str) -> str:
    start = body.index(f'id="{field}-error"')
    return text_of(body[body.index(">", start) + 1:body.index("</p>", start)])


# -- the fixtures ---------------------------------------------------------------------------------


@pytest.fixture()
def many(client, admin) -> list[str]:
    """35 upcoming events, one a day from February 1st two years ahead, at noon."""
    titles = []
    first = dt.date(YEAR, 2, 1)
    for n in range(35):
        day = first + dt.timedelta(days=n)
        title = f"Daily Talk {n + 1:02d}"
        make_event(client, admin, title, start_date=f"{day} 12:00:00", end_date=f"{day} 13:00:00")
        titles.append(title)
    return titles


@pytest.fixture()
def filtered(client, admin) -> dict[str, Any]:
    """Four upcoming events in March, at two venues and in two categories (one neither), and a
    past event at a third venue in a third category (so neither is a choice)."""
    harbour = make_venue(client, admin, "Harbour Hall", city="Hamburg")
    barn = make_venue(client, admin, "Mill Barn", city="Lübeck")
    depot = make_venue(client, admin, "Old Depot", city="Kiel")
    events = {
        "Harbour Jazz": make_event(client, admin, "Harbour Jazz", start_date=stamp(3, 10, "19:00:00"),
                                   end_date=stamp(3, 10, "21:00:00"), categories=["Jazz Club"], venue=harbour["id"]),
        "Barn Folk": make_event(client, admin, "Barn Folk", start_date=stamp(3, 10, "20:00:00"),
                                end_date=stamp(3, 10, "22:00:00"), categories=["Folk"], venue=barn["id"]),
        "Harbour Folk": make_event(client, admin, "Harbour Folk", start_date=stamp(3, 12, "18:00:00"),
                                   end_date=stamp(3, 12, "20:00:00"), categories=["Folk"], venue=harbour["id"]),
        "Open Day": make_event(client, admin, "Open Day", start_date=stamp(3, 12, "10:00:00"), end_date=stamp(3, 12, "16:00:00")),
        "Past Retro": make_event(client, admin, "Past Retro", start_hours=-72, categories=["Retro"], venue=depot["id"]),
    }
    return {"events": events, "harbour": harbour, "barn": barn, "depot": depot}


# -- 1. the iCalendar feed's size -----------------------------------------------------------------


def test_the_feed_holds_thirty_events_as_the_references(client, many):
    feed = ics_events(client, "/events/ical/")
    assert feed == many[:30]
    assert ics_events(client, "/events/list/?ical=1") == many[:30]
    assert len(listed(visit(client, "/events/list/").text)) == 10  # the page itself keeps posts_per_page
    # The list export of page 2 is the feed's second page (events 31 to 35), as the reference's.
    assert ics_events(client, "/events/list/page/2/?ical=1") == many[30:]
    # The month export: the first 30 events covering the month's grid; a day's: its own.
    assert ics_events(client, f"/events/month/{YEAR}-02/?ical=1") == many[:30]
    assert ics_events(client, f"/events/day/{YEAR}-02-03/?ical=1") == [many[2]]


def test_the_feed_size_is_the_setting_and_a_bad_value_falls_back_to_thirty(app, client, many):
    set_option(app, FEED_OPTION, 12)
    assert ics_events(client, "/events/ical/") == many[:12]
    assert ics_events(client, f"/events/month/{YEAR}-02/?ical=1") == many[:12]
    set_option(app, FEED_OPTION, 50)
    assert ics_events(client, "/events/ical/") == many
    for bad in ("many", 0, -3, 100_000, "", None):
        set_option(app, FEED_OPTION, bad)
        assert len(ics_events(client, "/events/ical/")) == 30, bad


def test_the_reading_screen_sets_the_feed_size_within_bounds(client, admin, many):
    workspace = Workspace(client, admin)
    assert workspace.reading_form()[FEED_OPTION] == "30"
    page = workspace.get(READING).text
    assert f'<label for="{FEED_OPTION}">Events in the iCalendar feed</label>' in page
    answer = workspace.save_reading(**{FEED_OPTION: "7"})
    assert answer.status_code == 303, answer.text[:500]
    assert workspace.reading_form()[FEED_OPTION] == "7"
    assert ics_events(client, "/events/ical/") == many[:7]
    for bad in ("0", "-1", "1001", "lots", "2.5"):
        refused = workspace.save_reading(**{FEED_OPTION: bad})
        assert refused.status_code == 400, bad
        assert error_beside(refused.text, FEED_OPTION) == "Enter a whole number from 1 to 1000.", bad
    assert workspace.reading_form()[FEED_OPTION] == "7"
    assert workspace.save_reading(**{FEED_OPTION: "30"}).status_code == 303
    assert len(ics_events(client, "/events/ical/")) == 30
    # The other Reading settings still save beside it.
    assert workspace.save_reading(posts_per_page="4").status_code == 303
    assert settings(client, admin)["posts_per_page"] == 4
    assert len(listed(visit(client, "/events/list/").text)) == 4


# -- 2. the front page ----------------------------------------------------------------------------


def test_the_front_page_shows_the_latest_posts_a_page_or_the_events(client, admin, filtered):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Harbour News", "status": "publish"}).json
    page = client.post("/cms/v2/pages", user=admin, json={"title": "Welcome Aboard", "status": "publish"}).json
    latest = visit(client, "/").text
    assert "Harbour News" in latest and "tribe-events-view" not in latest

    update_settings(client, admin, show_on_front="page", page_on_front=page["id"])
    assert heading(visit(client, "/").text) == "Welcome Aboard"

    found = update_settings(client, admin, show_on_front="page", page_on_front=-10)
    assert (found["show_on_front"], found["page_on_front"]) == ("page", -10)  # as the reference stores it
    assert client.get("/").json["page_on_front"] == -10
    front = visit(client, "/")
    body = front.text
    assert 'class="tribe-common tribe-events tribe-events-view tribe-events-view--list"' in body
    assert heading(body) == "Upcoming Events"
    assert listed(body) == ["Harbour Jazz", "Barn Folk", "Open Day", "Harbour Folk"]
    assert "<title>Upcoming Events &ndash; " in body
    assert front.headers["x-tec-api-root"] == HOME + "/wp-json/cal/events/v1/"
    assert '<meta name="tec-api-version" content="v1">' in body
    assert f'<a href="{HOME}/events/" aria-current="page">Events</a>' in body
    assert view_data(body)["url"] == HOME
    # /events/ still works, and the view links are the calendar's own (the reference rewrites only
    # the main events page's own address, /events/, to the home).
    assert listed(visit(client, "/events/").text) == listed(body)
    assert view_links(body) == {"List": f"{HOME}/events/list/", "Month": f"{HOME}/events/month/", "Day": f"{HOME}/events/day/"}
    assert ics_events(client, "/?ical=1") == ["Harbour Jazz", "Barn Folk", "Open Day", "Harbour Folk"]
    assert 'href="http://example.test/?ical=1"' in body
    # Other addresses at the root are still what they were: a post, a search, a page.
    assert heading(visit(client, f"/?p={post['id']}").text) == "Harbour News"
    assert "Search results" in heading(visit(client, "/?s=harbour").text)
    assert heading(visit(client, f"/?page_id={page['id']}").text) == "Welcome Aboard"
    # The root's pages are the default view's.
    update_settings(client, admin, posts_per_page=2)
    paged = visit(client, "/page/2/").text
    assert listed(paged) == ["Open Day", "Harbour Folk"]
    assert listed(visit(client, "/?paged=2").text) == ["Open Day", "Harbour Folk"]

    update_settings(client, admin, show_on_front="posts")
    assert "tribe-events-view" not in visit(client, "/").text


def test_the_front_calendar_follows_the_default_view(app, client, admin, filtered):
    update_settings(client, admin, show_on_front="page", page_on_front=-10)
    set_option(app, "viewOption", "month")
    body = visit(client, f"/?tribe-bar-date={YEAR}-03").text
    assert "tribe-events-view--month" in body and "Events for March" in heading(body)
    assert month_titles(body) == ["Barn Folk", "Harbour Folk", "Harbour Jazz", "Open Day"]


def test_the_views_route_renders_the_front_page_view(client, admin, filtered):
    refused = client.get(VIEWS, params={"url": HOME + "/"})
    assert refused.status_code == 400 and refused.json["code"] == "rest_invalid_param"
    update_settings(client, admin, show_on_front="page", page_on_front=-10)
    answer = client.get(VIEWS, params={"url": HOME + "/"})
    assert answer.status_code == 200, answer.text[:300]
    assert "tribe-events-view--list" in answer.text
    assert listed(answer.text) == ["Harbour Jazz", "Barn Folk", "Open Day", "Harbour Folk"]
    assert view_data(answer.text)["url"] == HOME
    venue = filtered["harbour"]["id"]
    narrowed = client.get(VIEWS, params={"url": f"{HOME}/?tribe_venue={venue}"})
    assert listed(narrowed.text) == ["Harbour Jazz", "Harbour Folk"]


def test_the_reading_screen_offers_the_main_events_page(client, admin, filtered):
    page = client.post("/cms/v2/pages", user=admin, json={"title": "Welcome Aboard", "status": "publish"}).json
    workspace = Workspace(client, admin)
    shown = workspace.get(READING).text
    homepage = re.search(r'<select name="page_on_front"[^>]*>(.*?)</select>', shown, re.S).group(1)
    assert '<option value="-10">Main Events Page</option>' in homepage
    posts_page = re.search(r'<select name="page_for_posts"[^>]*>(.*?)</select>', shown, re.S).group(1)
    assert "Main Events Page" not in posts_page
    assert workspace.save_reading(show_on_front="page", page_on_front="-10").status_code == 303
    assert (settings(client, admin)["show_on_front"], settings(client, admin)["page_on_front"]) == ("page", -10)
    assert '<option value="-10" selected>Main Events Page</option>' in workspace.get(READING).text
    assert heading(visit(client, "/").text) == "Upcoming Events"
    # A posts page beside it: still refused when it names no page.
    refused = workspace.save_reading(show_on_front="page", page_on_front="-10", page_for_posts="-10")
    assert refused.status_code == 400 and error_beside(refused.text, "page_for_posts") == "Choose a published page."
    assert workspace.save_reading(show_on_front="page", page_on_front=str(page["id"])).status_code == 303
    assert heading(visit(client, "/").text) == "Welcome Aboard"
    assert workspace.save_reading(show_on_front="posts").status_code == 303
    assert "tribe-events-view" not in visit(client, "/").text


# -- 4. the category and venue filters ------------------------------------------------------------


def test_the_bar_offers_the_categories_and_venues_of_upcoming_events(client, filtered):
    body = visit(client, "/events/list/").text
    assert select_options(body, "tribe_events_cat") == [("", "All categories"), ("folk", "Folk"), ("jazz-club", "Jazz Club")]
    harbour, barn = filtered["harbour"]["id"], filtered["barn"]["id"]
    assert select_options(body, "tribe_venue") == [("", "All venues"), (str(harbour), "Harbour Hall"), (str(barn), "Mill Barn")]
    assert '<label for="tribe-events-bar-venue-' in body and '<label for="tribe-events-bar-category-' in body


def test_a_site_without_categories_or_venues_has_no_selects(client, admin):
    make_event(client, admin, "Plain Talk", start_date=stamp(3, 10, "19:00:00"), end_date=stamp(3, 10, "20:00:00"))
    body = visit(client, "/events/list/").text
    assert select_options(body, "tribe_events_cat") is None and select_options(body, "tribe_venue") is None
    assert "tribe-events-c-events-bar--filters" not in body


def test_the_filters_narrow_each_view(client, filtered):
    harbour = filtered["harbour"]["id"]
    assert listed(visit(client, f"/events/list/?tribe_venue={harbour}").text) == ["Harbour Jazz", "Harbour Folk"]
    assert listed(visit(client, "/events/list/?tribe_events_cat=folk").text) == ["Barn Folk", "Harbour Folk"]
    both = visit(client, f"/events/list/?tribe_events_cat=folk&tribe_venue={harbour}").text
    assert listed(both) == ["Harbour Folk"]
    assert heading(both) == "Upcoming Events \u203a Folk \u203a Harbour Hall"
    month = visit(client, f"/events/month/{YEAR}-03/?tribe_venue={harbour}").text
    assert month_titles(month) == ["Harbour Folk", "Harbour Jazz"]
    assert month_titles(visit(client, f"/events/category/folk/month/{YEAR}-03/").text) == ["Barn Folk", "Harbour Folk"]
    day = visit(client, f"/events/day/{YEAR}-03-10/?tribe_venue={filtered['barn']['id']}").text
    assert listed(day) == ["Barn Folk"]
    assert listed(visit(client, f"/events/day/{YEAR}-03-12/?tribe_events_cat=jazz-club").text) == []
    assert ics_events(client, f"/events/list/?tribe_venue={harbour}&ical=1") == ["Harbour Jazz", "Harbour Folk"]


def test_links_keep_the_filters(client, admin, filtered):
    harbour = filtered["harbour"]["id"]
    update_settings(client, admin, posts_per_page=1)
    body = visit(client, f"/events/list/?tribe_events_cat=folk&tribe_venue={harbour}&tribe-bar-search=folk").text
    links = view_links(body)
    assert links["Month"] == f"{HOME}/events/category/folk/month/?tribe-bar-search=folk&tribe_venue={harbour}"
    assert links["Day"] == f"{HOME}/events/category/folk/day/?tribe-bar-search=folk&tribe_venue={harbour}"
    assert selected(body, "tribe_events_cat") == "folk" and selected(body, "tribe_venue") == str(harbour)
    # Pagination keeps them (one event a page: Barn Folk is at another venue, so page 1 is the last).
    everything = visit(client, f"/events/list/?tribe_venue={harbour}").text
    assert listed(everything) == ["Harbour Jazz"]
    following = nav_link(everything, "next")
    assert following == f"{HOME}/events/list/page/2/?tribe_venue={harbour}"
    second = visit(client, relative(following)).text
    assert listed(second) == ["Harbour Folk"] and nav_link(second, "next") is None
    assert nav_link(second, "prev") == f"{HOME}/events/list/?tribe_venue={harbour}"
    assert view_links(second)["Month"] == f"{HOME}/events/month/?tribe_venue={harbour}"
    march = visit(client, f"/events/month/{YEAR}-03/?tribe_venue={harbour}").text
    assert nav_link(march, "next") == f"{HOME}/events/month/{YEAR}-04/?tribe_venue={harbour}"
    data = view_data(march)
    assert data["url"] == f"{HOME}/events/month/{YEAR}-03?tribe_venue={harbour}"
    assert parse_qs(urlsplit(data["public_views"]["list"]["view_url"]).query) == {"tribe_venue": [str(harbour)]}


def test_the_bar_form_submits_the_filters_without_javascript(client, filtered):
    harbour = filtered["harbour"]["id"]
    start = visit(client, "/events/list/").text
    action, fields = bar_form(start)
    assert action == f"{HOME}/events/list/"
    assert fields == {"tribe-bar-search": "", "tribe-bar-date": "", "tribe_events_cat": "", "tribe_venue": ""}
    chosen = submit(client, start, tribe_events_cat="folk", tribe_venue=str(harbour)).text
    assert listed(chosen) == ["Harbour Folk"]
    # Choosing "All categories" again on a category view leaves the category (the form's address
    # does not carry it when the select does).
    category_view = visit(client, "/events/category/folk/list/").text
    action, fields = bar_form(category_view)
    assert action == f"{HOME}/events/list/" and fields["tribe_events_cat"] == "folk"
    assert listed(submit(client, category_view, tribe_events_cat="").text) == ["Harbour Jazz", "Barn Folk", "Open Day", "Harbour Folk"]
    # A month view's form keeps it a month view, with the filters.
    month = visit(client, f"/events/month/{YEAR}-03/").text
    assert month_titles(submit(client, month, tribe_venue=str(filtered["barn"]["id"])).text) == ["Barn Folk"]
    # A category with past events only is offered while it is chosen, so the form keeps it.
    retro = visit(client, "/events/category/retro/list/?eventDisplay=past").text
    assert ("retro", "Retro") in select_options(retro, "tribe_events_cat")
    assert selected(retro, "tribe_events_cat") == "retro"


def test_the_views_route_honours_the_filters(client, filtered):
    harbour = filtered["harbour"]["id"]
    answer = client.get(VIEWS, params={"url": f"{HOME}/events/list/?tribe_venue={harbour}"})
    assert answer.status_code == 200 and listed(answer.text) == ["Harbour Jazz", "Harbour Folk"]
    overridden = client.get(VIEWS, params={"url": f"{HOME}/events/list/", "view_data[tribe_venue]": str(filtered["barn"]["id"]),
                                           "view_data[tribe_events_cat]": "folk"})
    assert listed(overridden.text) == ["Barn Folk"]
    month = client.get(VIEWS, params={"url": f"{HOME}/events/month/{YEAR}-03/?tribe_events_cat=jazz-club"})
    assert month_titles(month.text) == ["Harbour Jazz"]
    bad = client.get(VIEWS, params={"url": f"{HOME}/events/list/?tribe_venue=banana"})
    assert bad.status_code == 400 and bad.json["code"] == "rest_invalid_param" and bad.json["data"]["params"] == {
        "url": "No venue is numbered banana."}
    missing = client.get(VIEWS, params={"url": f"{HOME}/events/list/", "view_data[tribe_venue]": "99999"})
    assert missing.status_code == 400 and missing.json["data"]["params"] == {"view_data": "No venue is numbered 99999."}


@pytest.mark.parametrize(("query", "statuses"), [
    *((query, (404,)) for query in ("tribe_venue=banana", "tribe_venue=0", "tribe_venue=-4", "tribe_venue=99999",
                                    "tribe_venue=99999999999999999999", "tribe_venue=1e3", "tribe_venue=%00",
                                    "tribe_events_cat=no-such-category", "tribe_events_cat=" + "x" * 300)),
    # PHP's array forms are other names to the views (as the reference's query vars): ignored.
    *((query, (200,)) for query in ("tribe_venue[]=1", "tribe_venue[a]=1", "tribe_events_cat[]=folk")),
])
def test_bad_filter_values_are_answered_with_a_page(client, filtered, query, statuses):
    for path in ("/events/list/", f"/events/month/{YEAR}-03/", f"/events/day/{YEAR}-03-10/"):
        response = client.get(f"{path}?{query}", headers=HTML)
        assert response.status_code in statuses, (path, query, response.status_code)
        assert response.headers["content-type"].startswith("text/html")
        assert "<h1" in response.text


def test_a_filter_naming_a_non_venue_or_a_hidden_venue_is_a_404(client, admin, filtered):
    event = filtered["events"]["Harbour Jazz"]["id"]
    visit(client, f"/events/list/?tribe_venue={event}", status=404)
    draft = make_venue(client, admin, "Secret Cellar", status="draft")
    visit(client, f"/events/list/?tribe_venue={draft['id']}", status=404)


# -- through a real server ------------------------------------------------------------------------


@pytest.mark.e2e
def test_feed_front_page_and_filters_through_a_real_server(live_server):
    server = live_server
    server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
    password = server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
    with httpx.Client(base_url=server.url, auth=("admin", password), timeout=20) as rest:
        venue = rest.post("/cal/events/v1/venues", json={"venue": "Harbour Hall"}).json()
        for n in range(32):
            day = dt.date(YEAR, 2, 1) + dt.timedelta(days=n)
            body: dict[str, Any] = {"title": f"Talk {n + 1:02d}", "start_date": f"{day} 12:00:00", "end_date": f"{day} 13:00:00"}
            if n % 2 == 0:
                body["venue"] = venue["id"]
                body["categories"] = ["Even"]
            assert rest.post("/cal/events/v1/events", json=body).status_code == 201
        feed = httpx.get(server.url + "/events/ical/")
        assert feed.status_code == 200 and feed.headers["content-type"].startswith("text/calendar")
        assert len(icalendar.Calendar.from_ical(feed.content).walk("VEVENT")) == 30
        assert rest.post("/cms/v2/settings", json={"show_on_front": "page", "page_on_front": -10}).json()["page_on_front"] == -10
        front = httpx.get(server.url + "/", headers=HTML)
        assert front.status_code == 200 and heading(front.text) == "Upcoming Events"
        assert select_options(front.text, "tribe_venue") == [("", "All venues"), (str(venue["id"]), "Harbour Hall")]
        narrowed = httpx.get(server.url + f"/events/list/?tribe_venue={venue['id']}&tribe_events_cat=even", headers=HTML)
        assert narrowed.status_code == 200
        assert listed(narrowed.text)[:3] == ["Talk 01", "Talk 03", "Talk 05"]
        bad = httpx.get(server.url + "/events/list/?tribe_venue=banana", headers=HTML)
        assert bad.status_code == 404 and bad.headers["content-type"].startswith("text/html")


def test_the_choices_follow_new_events_and_a_tag_view_keeps_its_tag(client, admin, filtered):
    assert [label for _, label in select_options(visit(client, "/events/list/").text, "tribe_venue")] == [
        "All venues", "Harbour Hall", "Mill Barn"]
    depot = filtered["depot"]["id"]
    make_event(client, admin, "Depot Rave", start_date=stamp(3, 14, "22:00:00"), end_date=stamp(3, 15, "03:00:00"),
               categories=["Retro"], tags=["late"], venue=depot)
    body = visit(client, "/events/list/").text
    assert [label for _, label in select_options(body, "tribe_venue")] == ["All venues", "Harbour Hall", "Mill Barn", "Old Depot"]
    assert ("retro", "Retro") in select_options(body, "tribe_events_cat")
    # A tag view's form keeps the tag, and a category chosen there keeps it in the links.
    tagged = visit(client, "/events/tag/late/").text
    action, _ = bar_form(tagged)
    assert action == f"{HOME}/events/tag/late/list/"
    both = submit(client, tagged, tribe_events_cat="retro").text
    assert listed(both) == ["Depot Rave"]
    assert view_links(both)["Month"] == f"{HOME}/events/category/retro/month/?tag=late"
