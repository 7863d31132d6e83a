"""The posts page's sticky posts and the site search, through the WSGI app and a real server:
sticky posts lead the first page of the latest posts (those from later pages fetched and put
first, marked "sticky"), as WP_Query does for the home; the search ``/?s=`` lists every public,
searchable type (posts, pages, events with their dates; not venues or organizers, which TEC
excludes), paginated, protected items only for logged-in users."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

import httpx
import pytest
from cal_support import make_event, make_organizer, make_venue, set_option

HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def page(client, path: str, *, status: int = 200, cookie: str = ""):
    response = client.get(path, headers={**HTML, **({"Cookie": cookie} if cookie else {})})
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    return response


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def entries(text: str) -> list[str]:
    return [text_of(found) for found in re.findall(r'<h2><a href="[^"]*" rel="bookmark">(.*?)</a></h2>', text, re.S)]


def sticky_entries(text: str) -> list[str]:
    return [text_of(found) for found in re.findall(r'<article id="post-\d+" class="sticky"><h2><a [^>]*>(.*?)</a>', text, re.S)]


def make_post(client, admin, title: str, *, day: int, **body) -> dict:
    response = client.post("/cms/v2/posts", user=admin, json={"title": title, "status": "publish", "content": f"<p>{title}.</p>",
                                                              "date": f"2024-03-{day:02d}T10:00:00", **body})
    assert response.status_code == 201, response.json
    return response.json


def login(client, account) -> str:
    response = client.http.simulate_post("/wp-login.php", body=urlencode({"log": account.login, "pwd": account.password}),
                                         headers=FORM)
    assert response.status_code in (302, 303), response.text[:300]
    return response.headers["set-cookie"].split(";", 1)[0]


# -- sticky posts ---------------------------------------------------------------------------------


def test_sticky_posts_lead_the_first_page_of_the_latest_posts(client, admin, app):
    set_option(app, "posts_per_page", 2)
    oldest = make_post(client, admin, "Template: Sticky", day=1, sticky=True)
    middle = make_post(client, admin, "Middle", day=2)
    make_post(client, admin, "Newest", day=3)
    first = page(client, "/").text
    # Not on the first page by date: fetched and put first (the page is one longer).
    assert entries(first) == ["Template: Sticky", "Newest", "Middle"]
    assert sticky_entries(first) == ["Template: Sticky"]
    # Later pages are the plain date order, as the reference's (the sticky post comes again).
    second = page(client, "/page/2/").text
    assert entries(second) == ["Template: Sticky"] and sticky_entries(second) == []
    # A sticky post already on the first page moves to its top.
    assert client.post(f"/cms/v2/posts/{oldest['id']}", user=admin, json={"sticky": False}).status_code == 200
    assert client.post(f"/cms/v2/posts/{middle['id']}", user=admin, json={"sticky": True}).status_code == 200
    assert entries(page(client, "/").text) == ["Middle", "Newest"]


def test_sticky_posts_are_not_put_first_in_other_archives_or_when_unpublished(client, admin, app):
    category = client.post("/cms/v2/categories", user=admin, json={"name": "Newsroom"}).json
    make_post(client, admin, "Old Sticky", day=1, sticky=True, categories=[category["id"]])
    make_post(client, admin, "Fresh", day=5, categories=[category["id"]])
    assert entries(page(client, "/category/newsroom/").text) == ["Fresh", "Old Sticky"]
    assert sticky_entries(page(client, "/category/newsroom/").text) == []
    draft = client.post("/cms/v2/posts", user=admin, json={"title": "Draft Sticky", "status": "draft", "sticky": True}).json
    assert draft["sticky"] is True
    assert "Draft Sticky" not in entries(page(client, "/").text)
    assert entries(page(client, "/").text)[0] == "Old Sticky"


# -- search ---------------------------------------------------------------------------------------


@pytest.fixture()
def market(client, admin) -> dict:
    venue = make_venue(client, admin, "Market Hall")
    organizer = make_organizer(client, admin, "Market Friends")
    events = [make_event(client, admin, f"Farmers Market {n}", start_hours=24 * n, venue=venue["id"]) for n in range(1, 4)]
    post = make_post(client, admin, "Market news", day=4)
    about = client.post("/cms/v2/pages", user=admin, json={"title": "About the market", "status": "publish"}).json
    make_post(client, admin, "Secret market", day=5, password="sesame")
    client.post("/cms/v2/posts", user=admin, json={"title": "Draft market", "status": "draft"})
    return {"venue": venue, "organizer": organizer, "events": events, "post": post, "page": about}


def test_the_search_lists_posts_pages_and_events_but_not_venues_or_organizers(client, admin, market):
    found = entries(page(client, "/?s=market").text)
    assert sorted(found) == sorted(["Farmers Market 1", "Farmers Market 2", "Farmers Market 3", "Market news", "About the market"])
    assert "Market Hall" not in found and "Market Friends" not in found
    # A logged-in user's search also finds protected items (the reference's search clause).
    cookie = login(client, admin)
    assert "Secret market" in entries(page(client, "/?s=market", cookie=cookie).text)


def test_an_event_result_shows_when_it_happens(client, admin, market):
    text = page(client, "/?s=Farmers+Market+2").text
    event = market["events"][1]
    block = re.search(rf'<article id="post-{event["id"]}">.*?</article>', text, re.S).group(0)
    start = event["start_date"]  # "YYYY-MM-DD HH:MM:SS" in the event's zone
    assert f'<time datetime="{start.replace(" ", "T")}">' in block
    assert " @ " in text_of(re.search(r"<time [^>]*>(.*?)</time>", block, re.S).group(1))


def test_the_search_is_paginated(client, admin, app, market):
    set_option(app, "posts_per_page", 2)
    seen: list[str] = []
    path = "/?s=market"
    for _ in range(5):
        text = page(client, path).text
        seen += entries(text)
        found = re.search(r'<a href="([^"]+)" rel="next">', text)
        if not found:
            break
        path = html.unescape(found.group(1)).removeprefix("http://example.test")
    assert len(seen) == 5 and len(set(seen)) == 5
    assert page(client, "/?s=market&paged=2").status_code == 200
    page(client, "/?s=market&paged=9", status=404)


# -- through a real server ------------------------------------------------------------------------


@pytest.mark.e2e
def test_sticky_posts_and_the_search_through_a_real_server(live_server):
    server = live_server
    server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
    password = server.cli("user", "application-password", "create", "admin", "tests", "--porcelain").strip()
    with httpx.Client(base_url=server.url, auth=("admin", password), timeout=20) as rest:
        for title, day, sticky in (("Pinned Notice", 1, True), ("Later News", 2, False)):
            created = rest.post("/cms/v2/posts", json={"title": title, "status": "publish", "date": f"2024-03-0{day}T10:00:00",
                                                       "sticky": sticky})
            assert created.status_code == 201, created.text
        event = rest.post("/cal/events/v1/events", json={"title": "Farmers Market", "start_date": "2030-05-04 09:00:00",
                                                         "end_date": "2030-05-04 13:00:00"})
        assert event.status_code == 201, event.text
    home = httpx.get(server.url + "/", headers=HTML, timeout=20)
    assert entries(home.text)[:2] == ["Pinned Notice", "Later News"] and sticky_entries(home.text) == ["Pinned Notice"]
    search = httpx.get(server.url + "/?s=farmers", headers=HTML, timeout=20)
    assert search.status_code == 200 and entries(search.text) == ["Farmers Market"]
    assert 'datetime="2030-05-04T09:00:00"' in search.text
