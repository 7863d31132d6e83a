"""Hostile values a writer stores for readers to trip over (issue 29, items 10, 11, 12, 17), on both
databases: ``javascript:`` (``data:``, ``vbscript:``) websites of events, venues and organizers,
refused on every way in and never printed as a link; a user's description filtered as the
reference's ``wp_filter_kses`` filters it, for every reader; the login's ``redirect_to`` kept on
this site however a browser would read it; the views route's HTML under the public pages' policy;
kses's other URI attributes (``cite``, ``longdesc``, ``usemap``)."""

from __future__ import annotations

import datetime as dt
import html
import re
from urllib.parse import quote, urljoin, urlsplit

import pytest
import sqlalchemy as sa
from clifixtures import ok

from calpress.auth.users import get_user
from calpress.calendar import events as cal
from calpress.calendar import imports
from calpress.calendar.input import event_input
from calpress.compat.formatting import is_safe_url, safe_url
from calpress.compat.kses import kses_post, kses_title
from calpress.content import items as item_service
from calpress.store.changes import record as record_change
from calpress.store.tables import posts
from calpress.store.tables import users as users_table

HOME = "http://example.test"
CAL = "/cal/events/v1"
HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}

# Every way of writing a link the site must not print (issue 29, item 10).
HOSTILE_URLS = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "javascript://x/%0Aalert(1)",
    "JAVASCRIPT://example.org/%0Aalert(document.domain)",
    "&#106;avascript:alert(1)",
    "javascript&#58;alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "data://text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "vbscript://x/%0Amsgbox(1)",
]


def when(hours: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M:%S")


def event_body(**fields):
    return {"title": "Hostile", "start_date": when(24), "end_date": when(26), **fields}


def assert_refused(response, param: str) -> None:
    assert response.status_code == 400, (response.status_code, response.text[:300])
    body = response.json
    assert body["code"] == "rest_invalid_param", body
    assert param in body["data"]["params"], body


def count(app, content_type: str) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == content_type)).scalar_one()


def meta_of(app, item_id: int) -> dict:
    with app.site.read() as conn:
        return dict(conn.execute(sa.select(posts.c.meta).where(posts.c.id == item_id)).scalar_one() or {})


def store_meta(app, item_id: int, values: dict) -> None:
    """Write meta straight to the database, as data stored before the input rules (or by hand) is."""
    with app.site.write() as conn:
        item_service.merge_meta(conn, item_id, values)


def path_of(url: str) -> str:
    assert url.startswith(HOME + "/"), url
    return url[len(HOME):]


def no_script_link(text: str) -> None:
    lowered = html.unescape(text).lower()
    for scheme in ("javascript:", "vbscript:", "data:text/html", "javascript://", "data://"):
        assert scheme not in lowered, (scheme, text[:2000])


# -- item 10: the compat rule -----------------------------------------------------------------------


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_a_hostile_url_is_not_safe_and_shows_as_nothing(url):
    assert not is_safe_url(url)
    assert safe_url(url) == ""


@pytest.mark.parametrize("url", ["", "https://example.org/a?b=c&d=e", "http://x.example", "mailto:a@example.org",
                                 "/local/path", "example.org", "https://example.org/?next=javascript:1"])
def test_an_ordinary_url_is_safe_and_shown_as_stored(url):
    assert is_safe_url(url) and safe_url(url) == url


# -- item 10: refused on input, on every way in ----------------------------------------------------


@pytest.mark.parametrize("url", HOSTILE_URLS)
@pytest.mark.parametrize("route,name", [("venues", "venue"), ("organizers", "organizer")])
def test_the_direct_routes_refuse_a_hostile_website(app, client, admin, route, name, url):
    content_type = cal.VENUE_TYPE if name == "venue" else cal.ORGANIZER_TYPE
    assert_refused(client.post(f"{CAL}/{route}", user=admin, json={name: "Hostile", "website": url}), "website")
    assert count(app, content_type) == 0
    made = client.post(f"{CAL}/{route}", user=admin, json={name: "Fine", "website": "https://fine.example/"})
    assert made.status_code == 201 and made.json["website"] == "https://fine.example/"
    assert_refused(client.post(f"{CAL}/{route}/{made.json['id']}", user=admin, json={"website": url}), "website")
    assert client.get(f"{CAL}/{route}/{made.json['id']}").json["website"] == "https://fine.example/"


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_an_event_refuses_a_hostile_website(app, client, admin, url):
    assert_refused(client.post(f"{CAL}/events", user=admin, json=event_body(website=url)), "website")
    assert count(app, cal.EVENT_TYPE) == 0


@pytest.mark.parametrize("url", ["javascript://x/%0Aalert(1)", "JavaScript:alert(1)", "data:text/html,<b>x</b>",
                                 "vbscript:msgbox(1)", "&#106;avascript:alert(1)", " javascript:alert(1)"])
def test_an_inline_venue_or_organizer_refuses_a_hostile_website(app, client, admin, url):
    venue = client.post(f"{CAL}/events", user=admin, json=event_body(venue={"venue": "Inline hall", "website": url}))
    assert_refused(venue, "venue")
    organizers = [{"organizer": "Fine org", "website": "https://org.example/"}, {"organizer": "Inline org", "website": url}]
    organizer = client.post(f"{CAL}/events", user=admin, json=event_body(organizer=organizers))
    assert_refused(organizer, "organizer")
    assert (count(app, cal.EVENT_TYPE), count(app, cal.VENUE_TYPE), count(app, cal.ORGANIZER_TYPE)) == (0, 0, 0)
    # A fine inline record is still created.
    fine = client.post(f"{CAL}/events", user=admin, json=event_body(venue={"venue": "Hall", "website": "https://hall.example/"}))
    assert fine.status_code == 201 and fine.json["venue"]["website"] == "https://hall.example/"


@pytest.mark.parametrize("base,key,make", [
    ("cal_events", "_EventURL", lambda c, a: c.post(f"{CAL}/events", user=a, json=event_body())),
    ("cal_venue", "_VenueURL", lambda c, a: c.post(f"{CAL}/venues", user=a, json={"venue": "Hall"})),
    ("cal_organizer", "_OrganizerWebsite", lambda c, a: c.post(f"{CAL}/organizers", user=a, json={"organizer": "Org"})),
])
def test_cms_v2_meta_refuses_a_hostile_website(app, client, admin, base, key, make):
    item = make(client, admin).json
    for url in ("javascript://x/%0Aalert(1)", "data:text/html,x", "vbscript:msgbox(1)"):
        assert_refused(client.post(f"/cms/v2/{base}/{item['id']}", user=admin, json={"meta": {key: url}}), "meta")
    assert meta_of(app, item["id"]).get(key) in (None, "")
    fine = client.post(f"/cms/v2/{base}/{item['id']}", user=admin, json={"meta": {key: "https://fine.example/"}})
    assert fine.status_code == 200, fine.json
    assert meta_of(app, item["id"])[key] == "https://fine.example/"


def test_the_command_line_refuses_a_hostile_website(cli_admin):
    for what in ("venue", "organizer"):
        code, out, err = cli_admin(what, "create", "Hostile", "--website=javascript://x/%0Aalert(1)")
        assert code == 1 and out == "" and "website" in err, (code, out, err)
        assert ok(cli_admin(what, "list", "--format=count")) == "0\n"


def test_an_import_never_stores_a_hostile_website(app, admin):
    """The Aggregator's batches (and every other caller of the calendar's services) go through
    the same write: the hostile links are left out, the rest of the event is imported."""
    bad = "javascript://x/%0Aalert(1)"
    data = imports.event_data({
        "title": "Imported", "start_date": when(24)[:10], "start_hour": "10", "end_date": when(24)[:10], "end_hour": "11",
        "url": bad, "venue": {"venue": "Imported hall", "website": bad}, "organizer": [{"organizer": "Imported org", "website": bad}],
    })
    with app.site.write() as conn:
        ctx = item_service.Context.of(app.site, user=get_user(conn, admin.id), home=HOME)
        saved = cal.save_event(conn, ctx, event_input(conn, ctx, data))
        venue_ids = item_service.int_list(saved.meta.get("_EventVenueID"))
        organizer_ids = item_service.int_list(saved.meta.get("_EventOrganizerID"))
    assert meta_of(app, saved.id).get("_EventURL") == ""
    assert len(venue_ids) == 1 and not meta_of(app, venue_ids[0]).get("_VenueURL")
    assert len(organizer_ids) == 1 and not meta_of(app, organizer_ids[0]).get("_OrganizerWebsite")


# -- item 10: a stored hostile link is never printed -------------------------------------------------


@pytest.fixture()
def stored_hostile(app, client, admin):
    """An event with a venue and an organizer, each with a javascript: website written straight
    to the database (as before the input rules, or by hand)."""
    venue = client.post(f"{CAL}/venues", user=admin, json={"venue": "Trap hall", "address": "1 Quay"}).json
    organizer = client.post(f"{CAL}/organizers", user=admin, json={"organizer": "Trap org", "phone": "123"}).json
    event = client.post(f"{CAL}/events", user=admin, json=event_body(title="Trap event", venue=venue["id"],
                                                                      organizer=[organizer["id"]])).json
    store_meta(app, event["id"], {"_EventURL": "javascript://x/%0Aalert(1)"})
    store_meta(app, venue["id"], {"_VenueURL": "JavaScript:alert(1)"})
    store_meta(app, organizer["id"], {"_OrganizerWebsite": "data:text/html,<script>alert(1)</script>"})
    return {"event": event, "venue": venue, "organizer": organizer}


def test_rest_and_json_ld_never_show_a_stored_hostile_website(client, stored_hostile):
    event = client.get(f"{CAL}/events/{stored_hostile['event']['id']}").json
    assert event["website"] == ""
    assert "website" not in event["venue"] and all("website" not in o for o in event["organizer"])
    ld = event["json_ld"]
    assert ld["location"]["sameAs"] == "" and ld["organizer"]["url"] == "" and ld["organizer"]["sameAs"] == ""
    no_script_link(str(event))
    venue = client.get(f"{CAL}/venues/{stored_hostile['venue']['id']}").json
    organizer = client.get(f"{CAL}/organizers/{stored_hostile['organizer']['id']}").json
    assert "website" not in venue and "website" not in organizer
    assert venue["json_ld"]["sameAs"] == "" and organizer["json_ld"]["sameAs"] == "" and organizer["json_ld"]["url"] == ""
    no_script_link(str(venue) + str(organizer))
    listing = client.get(f"{CAL}/events").json
    no_script_link(str(listing))


def test_public_pages_never_link_a_stored_hostile_website(client, stored_hostile):
    for item in (stored_hostile["event"], stored_hostile["venue"], stored_hostile["organizer"]):
        page = client.get(path_of(item["url"]), headers=HTML)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        no_script_link(page.text)
    event_page = client.get(path_of(stored_hostile["event"]["url"]), headers=HTML).text
    assert "Trap hall" in event_page and "Trap org" in event_page
    assert "View Venue Website" not in event_page and "View Organizer Website" not in event_page


# -- item 11: a user's description -------------------------------------------------------------------

HOSTILE_BIO = ('<script>alert(1)</script><img src=x onerror="alert(2)"><b onmouseover="alert(3)">Bio</b> '
               '<a href="javascript:alert(4)">me</a> <em>kept</em>')


def assert_filtered_bio(text: str) -> None:
    lowered = text.lower()
    for needle in ("<script", "onerror", "onmouseover", "javascript:", "<img"):
        assert needle not in lowered, (needle, text)
    assert "<em>kept</em>" in text and "Bio" in text


def publish_post(client, account) -> dict:
    response = client.post("/cms/v2/posts", user=account, json={"title": "By them", "status": "publish"})
    assert response.status_code == 201, response.json
    return response.json


@pytest.mark.parametrize("role", ["administrator", "author"])
def test_a_description_is_filtered_on_save_for_every_user(client, accounts, role):
    account = accounts[role]
    saved = client.post("/cms/v2/users/me", user=account, json={"description": HOSTILE_BIO})
    assert saved.status_code == 200, saved.json
    assert_filtered_bio(saved.json["description"])
    publish_post(client, account)
    public = client.get(f"/cms/v2/users/{account.id}")
    assert public.status_code == 200
    assert_filtered_bio(public.json["description"])
    assert public.json["description"] == saved.json["description"]
    assert kses_title(saved.json["description"]) == saved.json["description"]


def test_a_description_stored_raw_is_filtered_for_readers(app, client, accounts):
    author = accounts["author"]
    post = publish_post(client, author)
    with app.site.write() as conn:
        conn.execute(sa.update(users_table).where(users_table.c.id == author.id).values(description=HOSTILE_BIO))
        record_change(conn, "user", "update", author.id)
    public = client.get(f"/cms/v2/users/{author.id}")
    assert public.status_code == 200
    assert_filtered_bio(public.json["description"])
    embedded = client.get(f"/cms/v2/posts/{post['id']}", params={"_embed": "author"}).json["_embedded"]["author"][0]
    assert_filtered_bio(embedded["description"])
    listed = client.get("/cms/v2/users").json
    assert_filtered_bio(next(u for u in listed if u["id"] == author.id)["description"])


def test_a_user_created_with_a_description_has_it_filtered(client, admin):
    created = client.post("/cms/v2/users", user=admin, json={
        "username": "biographer", "email": "bio@example.test", "password": "secret-pw-123", "description": HOSTILE_BIO})
    assert created.status_code == 201, created.json
    assert_filtered_bio(created.json["description"])


# -- item 12: the redirect after login ----------------------------------------------------------------

HOSTILE_REDIRECTS = [
    "/\\evil.example/",
    "\\\\evil.example",
    "\\/evil.example",
    "/\\/evil.example/",
    "//evil.example",
    " //evil.example",
    "\t//evil.example",
    "\n//evil.example",
    "\r\n//evil.example/",
    "/\t/evil.example",
    "/\n/evil.example",
    "/%09/evil.example",
    "https://evil.example",
    "HTTPS://evil.example/",
    "http:evil.example",
    "https:/evil.example",
    "http://example.test@evil.example/",
    "http://evil.example#@example.test",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "\x00//evil.example",
]


def login_redirect(client, account, target: str) -> str:
    body = f"log={account.login}&pwd={account.password}&redirect_to={quote(target, safe='')}"
    response = client.http.simulate_post("/wp-login.php", body=body, headers=FORM)
    assert response.status_code in (302, 303), response.text[:500]
    return response.headers["location"]


def browser_target(location: str) -> str:
    """Where a browser goes from the login page for this Location: it ignores tabs and newlines
    (and surrounding controls and spaces) and reads ``\\`` as ``/`` in http(s) URLs."""
    cleaned = re.sub(r"[\t\n\r]", "", location).strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11"
                                                        "\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
    return urljoin(HOME + "/wp-login.php", cleaned.replace("\\", "/"))


@pytest.mark.parametrize("target", HOSTILE_REDIRECTS)
def test_the_login_redirect_stays_on_this_site(client, accounts, target):
    location = login_redirect(client, accounts["author"], target)
    landed = urlsplit(browser_target(location))
    assert landed.scheme in ("http", "https") and landed.hostname == "example.test", (target, location)
    assert "\\" not in location and not re.search(r"[\x00-\x20\x7f]", location), location


@pytest.mark.parametrize("target", ["/wp-admin/", "/events/?a=b", "/events/list/?tribe-bar-date=2030-01-01#top",
                                    HOME + "/wp-admin/edit.php"])
def test_a_redirect_on_this_site_is_kept(client, accounts, target):
    location = login_redirect(client, accounts["author"], target)
    assert browser_target(location) == urljoin(HOME + "/wp-login.php", target)


# -- item 17: the views route's policy, kses's other URI attributes -----------------------------------


def test_the_views_route_answers_html_under_the_public_pages_policy(client, admin):
    client.post(f"{CAL}/events", user=admin, json=event_body(title="Listed"))
    page = client.get("/events/list/", headers=HTML)
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy
    view = client.get("/cal/views/v2/html", params={"url": HOME + "/events/list/"})
    assert view.status_code == 200 and view.headers["content-type"].startswith("text/html")
    assert view.headers["content-security-policy"] == policy
    assert view.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("markup,attribute", [
    ('<blockquote cite="javascript:alert(1)">q</blockquote>', "cite"),
    ('<q cite="JavaScript:alert(1)">q</q>', "cite"),
    ('<ins cite="javascript:alert(1)">q</ins>', "cite"),
    ('<img src="/a.png" longdesc="javascript:alert(1)">', "longdesc"),
    ('<img src="/a.png" usemap="javascript:alert(1)">', "usemap"),
    ('<img src="/a.png" longdesc="java&#x09;script:alert(1)">', "longdesc"),
    ('<blockquote cite="vbscript:msgbox(1)">q</blockquote>', "cite"),
])
def test_kses_strips_a_bad_protocol_from_every_uri_attribute(markup, attribute):
    for cleaned in (kses_post(markup), kses_title(markup)):
        lowered = html.unescape(cleaned).lower()
        assert "javascript" not in lowered and "vbscript" not in lowered, cleaned


def test_kses_keeps_good_uri_attributes():
    assert kses_post('<blockquote cite="https://example.org/q">q</blockquote>') == '<blockquote cite="https://example.org/q">q</blockquote>'
    assert kses_post('<img src="/a.png" usemap="#map" longdesc="/d.html">') == '<img src="/a.png" usemap="#map" longdesc="/d.html">'
    assert kses_post('<q cite="https://example.org/">q</q><script>x</script>') == '<q cite="https://example.org/">q</q>x'
