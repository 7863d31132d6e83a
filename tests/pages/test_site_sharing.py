"""What the public pages tell search engines and link previews (issue 32, item 11): the canonical
link, the meta description, Open Graph and the Twitter card; an event's description starts with
its dates and venue; every value is escaped as an attribute value. One test goes through a real
server."""

from __future__ import annotations

import datetime as dt
from html.parser import HTMLParser

import httpx
import pytest
from cal_support import make_event, make_venue, set_option
from looks_support import links_of, meta_of, photo, upload

HTML = {"Accept": "text/html"}
HOME = "http://example.test"
YEAR = dt.datetime.now(dt.UTC).year + 2


def page(client, path: str, status: int = 200) -> str:
    response = client.get(path[len(HOME):] if path.startswith(HOME) else path, headers=HTML)
    assert response.status_code == status, (path, response.status_code)
    return response.text


def canonical(text: str) -> str | None:
    found = links_of(text, "canonical")
    assert len(found) <= 1
    return found[0]["href"] if found else None


class HeadReader(HTMLParser):
    """The head's meta elements as a browser's parser reads them (a check of the escaping)."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        values = dict(attrs)
        if tag == "meta" and (values.get("property") or values.get("name")):
            self.meta[values.get("property") or values.get("name")] = values.get("content")
        if tag == "script" and values.get("type") != "application/ld+json":
            self.scripts += 1


def test_event_page_shares_dates_venue_and_image(client, admin):
    picture = upload(client, admin, photo(1600, 1200), "stage.jpg")
    venue = make_venue(client, admin, "Town Hall", address="1 Main St", city="Springfield")
    event = make_event(client, admin, "Spring Concert", venue=venue["id"], image=str(picture["id"]),
                       start_date=f"{YEAR}-04-18 19:00:00", end_date=f"{YEAR}-04-18 21:00:00",
                       description="<p>An evening of <strong>choral</strong> music.</p>")
    set_option(client.app, "blogname", "Valley Events")
    text = page(client, event["url"])
    meta = meta_of(text)
    assert canonical(text) == event["url"]
    assert meta["description"].startswith(f"April 18, {YEAR} @ 7:00 pm - 9:00 pm \u2013 Town Hall, 1 Main St, Springfield")
    assert meta["description"].endswith("An evening of choral music.")
    assert meta["og:type"] == "article" and meta["og:title"] == "Spring Concert" and meta["og:url"] == event["url"]
    assert meta["og:description"] == meta["description"] and meta["og:locale"] == "en_US"
    assert meta["og:site_name"] == "Valley Events"
    assert meta["og:image"].endswith("-1024x768.jpg")
    assert (meta["og:image:width"], meta["og:image:height"]) == ("1024", "768")
    assert meta["twitter:card"] == "summary_large_image"


def test_post_without_image_is_a_summary(client, admin):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Minutes", "status": "publish",
                                                           "excerpt": "What the committee decided.",
                                                           "content": "<p>Long text.</p>"}).json
    text = page(client, post["link"])
    meta = meta_of(text)
    assert canonical(text) == post["link"] and meta["og:url"] == post["link"]
    assert meta["description"] == "What the committee decided."
    assert meta["og:type"] == "article" and meta["twitter:card"] == "summary" and "og:image" not in meta


def test_a_protected_post_shares_no_excerpt(client, admin):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Secret", "status": "publish", "password": "pw",
                                                           "content": "<p>The hidden words.</p>"}).json
    set_option(client.app, "blogdescription", "Our village")
    meta = meta_of(page(client, post["link"]))
    assert "hidden" not in meta["description"] and meta["description"] == "Our village"


def test_archives_views_and_errors(client, admin):
    set_option(client.app, "posts_per_page", 1)
    for n in range(2):
        client.post("/cms/v2/posts", user=admin, json={"title": f"Post {n}", "status": "publish"})
    front = page(client, "/")
    assert canonical(front) == HOME + "/" and meta_of(front)["og:type"] == "website"
    assert canonical(page(client, "/page/2/")) == HOME + "/page/2/"
    assert canonical(page(client, "/?s=Post")) is None  # search results have none
    assert canonical(page(client, "/no-such-thing/", 404)) is None
    listed = page(client, "/events/list/")
    assert canonical(listed) == HOME + "/events/list/" and meta_of(listed)["og:url"] == HOME + "/events/list/"
    month = page(client, f"/events/month/{YEAR}-02/")
    assert canonical(month) == f"{HOME}/events/month/{YEAR}-02/"


def test_values_are_escaped(client, admin):
    set_option(client.app, "blogname", 'Tom & "Jerry" <b>')
    title = 'Say "hi" & <script>alert(1)</script>'
    post = client.post("/cms/v2/posts", user=admin, json={"title": title, "status": "publish",
                                                           "excerpt": "a < b & \"c\" > d"}).json
    head = page(client, post["link"]).split("</head>")[0]
    reader = HeadReader()
    reader.feed(head)
    assert reader.scripts == 0 and "alert(1)</script>" not in head  # the title only ever an attribute value
    assert reader.meta["og:site_name"] == 'Tom & "Jerry" <b>'
    # Texturized, and plain text as wp_strip_all_tags makes it (a script's content goes with its tags).
    assert reader.meta["og:title"] == "Say \u201chi\u201d &"
    assert reader.meta["description"] == 'a < b & "c" > d'


@pytest.mark.e2e
def test_sharing_tags_through_a_real_server(live_server):
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
    password = live_server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
    with httpx.Client(base_url=live_server.url, auth=("admin", password), timeout=30) as rest:
        event = rest.post("/cal/events/v1/events", json={"title": "Harvest Fair", "start_date": f"{YEAR}-09-12 10:00:00",
                                                         "end_date": f"{YEAR}-09-12 16:00:00"})
        assert event.status_code == 201, event.text
    url = event.json()["url"]
    text = httpx.get(url, headers=HTML, timeout=20).text
    meta = meta_of(text)
    assert canonical(text) == url == meta["og:url"]
    assert meta["description"].startswith(f"September 12, {YEAR} @ 10:00 am - 4:00 pm")
    assert meta["og:title"] == "Harvest Fair" and meta["twitter:card"] == "summary"
