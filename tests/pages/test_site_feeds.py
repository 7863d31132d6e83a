"""The site's feeds (RSS 2.0 and Atom: posts, comments, a term's, an author's, an item's comments,
the calendar's upcoming events), read with feedparser as a feed reader reads them, their
autodiscovery links in every page's head, and the sitemaps and robots.txt, checked against the
sitemaps protocol's rules (sitemaps.org)."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import feedparser
import pytest
import sqlalchemy as sa
from cal_support import make_event, set_option

from calpress.content import items as item_service
from calpress.content.items import Context
from calpress.content.sitemaps import MAX_URLS
from calpress.pages import sitemaps, xmltext
from calpress.store.tables import posts

HOME = "http://example.test"
HTML = {"Accept": "text/html"}
SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
W3C = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?")


def path_of(url: str) -> str:
    assert url.startswith(HOME + "/"), url
    return url[len(HOME):]


def read_feed(client, address: str, kind: str = "rss2"):
    """GET a feed (as a feed reader: no HTML in Accept); checks its content type and that it parses cleanly."""
    path = path_of(address) if address.startswith("http") else address
    response = client.get(path, headers={"Accept": "application/rss+xml, application/atom+xml"})
    assert response.status_code == 200, (path, response.status_code, response.text[:500])
    wanted = "application/rss+xml" if kind == "rss2" else "application/atom+xml"
    assert response.headers["content-type"] == f"{wanted}; charset=UTF-8"
    assert parsedate_to_datetime(response.headers["last-modified"])
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo, (path, parsed.get("bozo_exception"))
    assert parsed.version == ("rss20" if kind == "rss2" else "atom10"), parsed.version
    return parsed


def titles(parsed) -> list[str]:
    return [entry.title for entry in parsed.entries]


def create(client, user, route: str, **body):
    response = client.post(route, user=user, json=body)
    assert response.status_code == 201, response.json
    return response.json


@pytest.fixture()
def blog(client, admin, accounts):
    """Posts by two authors in a category and a tag (one with an enclosure), a password-protected
    post, a draft, a private post, a page; approved comments and one held for moderation."""
    author = accounts["author"]
    news = create(client, admin, "/cms/v2/categories", name="Town News")
    market = create(client, admin, "/cms/v2/tags", name="market")
    first = create(client, admin, "/cms/v2/posts", title="Harbour opens", status="publish", date="2024-05-01T10:00:00",
                   content="<p>The <b>harbour</b> opens &amp; the boats are back.</p>", excerpt="Boats are back.",
                   categories=[news["id"]], tags=[market["id"]], meta={})
    second = create(client, author, "/cms/v2/posts", title="Market day", status="publish", date="2024-05-02T10:00:00",
                    content="<p>Fresh fish\u000b and bread.</p>", tags=[market["id"]])
    secret = create(client, admin, "/cms/v2/posts", title="Members only", status="publish", password="sesame",
                    date="2024-05-03T10:00:00", content="<p>The secret recipe.</p>", excerpt="Secret excerpt")
    create(client, admin, "/cms/v2/posts", title="Unfinished", status="draft", content="<p>Not yet.</p>")
    create(client, admin, "/cms/v2/posts", title="Board notes", status="private", content="<p>Internal.</p>")
    page = create(client, admin, "/cms/v2/pages", title="About us", status="publish", content="<p>Who we are.</p>")
    approved = create(client, admin, "/cms/v2/comments", post=first["id"], content="Great <em>news</em>!", author_name="Ann",
                      author_email="ann@example.test", status="approved")
    create(client, admin, "/cms/v2/comments", post=first["id"], content="Pending remark", author_name="Bob",
           author_email="bob@example.test", status="hold")
    on_secret = create(client, admin, "/cms/v2/comments", post=secret["id"], content="Secret chatter", author_name="Cy",
                       author_email="cy@example.test", status="approved")
    return {"first": first, "second": second, "secret": secret, "page": page, "news": news, "market": market,
            "author": author, "approved": approved, "on_secret": on_secret}


# -- the posts feeds ------------------------------------------------------------------------------


def test_the_posts_feed_in_rss2_carries_the_references_fields(client, app, admin, blog):
    parsed = read_feed(client, "/feed/")
    assert titles(parsed) == ["Members only", "Market day", "Harbour opens"]  # newest first; no draft, no private post
    channel = parsed.feed
    assert channel.title == "calpress" and channel.link == HOME
    assert channel.language == "en-US" and channel.sy_updateperiod == "hourly" and channel.generator
    assert parsedate_to_datetime(channel.updated) >= parsedate_to_datetime("Thu, 02 May 2024 10:00:00 +0000")
    first = parsed.entries[2]
    assert first.link == blog["first"]["link"]
    assert first.id == f"{HOME}/?p={blog['first']['id']}" and first.guidislink is False
    assert first.published_parsed[:6] == (2024, 5, 1, 10, 0, 0)
    assert first.author == "administrator"
    assert [tag.term for tag in first.tags] == ["Town News", "market"]
    assert first.summary == "Boats are back."
    assert "<b>harbour</b> opens &amp; the boats are back." in first.content[0].value
    assert first.comments == blog["first"]["link"] + "#comments"
    assert first.wfw_commentrss == blog["first"]["link"] + "feed/"
    assert first.slash_comments == "1"  # the approved comment only
    market = parsed.entries[1]
    assert market.author == "author" and "Fresh fish and bread." in market.content[0].value  # the control character is gone


def test_a_protected_post_leaks_neither_its_text_nor_its_excerpt(client, blog):
    for address, kind in (("/feed/", "rss2"), ("/feed/atom/", "atom")):
        response = client.get(address)
        assert "secret recipe" not in response.text and "Secret excerpt" not in response.text
        entry = read_feed(client, address, kind).entries[0]
        assert entry.title == "Members only"
        assert entry.summary == "There is no excerpt because this is a protected post."
        assert entry.content[0].value == "There is no excerpt because this is a protected post."


def test_the_atom_feed(client, blog):
    parsed = read_feed(client, "/feed/atom/", "atom")
    assert titles(parsed) == ["Members only", "Market day", "Harbour opens"]
    assert parsed.feed.id == HOME + "/feed/atom/" and parsed.feed.links[0].href == HOME
    first = parsed.entries[2]
    assert first.link == blog["first"]["link"] and first.id == f"{HOME}/?p={blog['first']['id']}"
    assert first.published_parsed[:6] == (2024, 5, 1, 10, 0, 0) and first.updated_parsed
    assert first.author == "administrator"
    assert [tag.term for tag in first.tags] == ["Town News", "market"]
    assert first.summary == "Boats are back." and "<b>harbour</b>" in first.content[0].value
    replies = [link.href for link in first.links if link.rel == "replies"]
    assert replies == [blog["first"]["link"] + "#comments", blog["first"]["link"] + "feed/atom/"]
    assert first.thr_total == "1"


def test_the_feed_forms_of_an_address(client, blog):
    rss = titles(read_feed(client, "/feed/"))
    assert titles(read_feed(client, "/feed/rss2/")) == rss
    assert titles(read_feed(client, "/?feed=rss2")) == rss
    assert titles(read_feed(client, "/?feed=atom", "atom")) == rss
    assert titles(read_feed(client, "/rss2/")) == rss


def test_posts_per_rss_and_rss_use_excerpt(client, app, blog):
    set_option(app, "posts_per_rss", 2)
    set_option(app, "rss_use_excerpt", 1)
    parsed = read_feed(client, "/feed/")
    assert titles(parsed) == ["Members only", "Market day"]
    assert all("content" not in entry for entry in parsed.entries)
    assert "<content:encoded>" not in client.get("/feed/").text
    assert "content" not in read_feed(client, "/feed/atom/", "atom").entries[0]


def test_older_entries_on_the_next_page_of_a_feed(client, app, blog):
    set_option(app, "posts_per_rss", 2)
    assert titles(read_feed(client, "/page/2/feed/")) == ["Harbour opens"]
    assert titles(read_feed(client, "/?feed=rss2&paged=2")) == ["Harbour opens"]
    assert titles(read_feed(client, "/tag/market/page/2/feed/")) == []


def test_the_posts_pages_feed_is_the_posts_feed(client, app, admin, blog):
    blog_page = create(client, admin, "/cms/v2/pages", title="Blog", status="publish", content="")
    set_option(app, "show_on_front", "page")
    set_option(app, "page_on_front", blog["page"]["id"])
    set_option(app, "page_for_posts", blog_page["id"])
    assert titles(read_feed(client, path_of(blog_page["link"]) + "feed/")) == ["Members only", "Market day", "Harbour opens"]
    assert titles(read_feed(client, "/feed/")) == ["Members only", "Market day", "Harbour opens"]


def test_term_and_author_feeds(client, blog):
    assert titles(read_feed(client, "/category/town-news/feed/")) == ["Harbour opens"]
    assert read_feed(client, "/category/town-news/feed/").feed.title == "Town News \u2013 calpress"
    assert titles(read_feed(client, "/tag/market/feed/atom/", "atom")) == ["Market day", "Harbour opens"]
    assert titles(read_feed(client, f"/?feed=rss2&cat={blog['news']['id']}")) == ["Harbour opens"]
    by_author = read_feed(client, "/author/author/feed/")
    assert titles(by_author) == ["Market day"] and by_author.feed.title == "author \u2013 calpress"
    assert titles(read_feed(client, "/?s=harbour&feed=rss2")) == ["Harbour opens"]


@pytest.mark.parametrize("path", ["/category/nothing-here/feed/", "/tag/nothing/feed/atom/", "/author/nobody/feed/",
                                  "/no-such-post/feed/", "/?feed=nonsense", "/?feed=rss2&cat=99999"])
def test_a_feed_of_nothing_is_a_404(client, blog, path):
    response = client.get(path, headers=HTML)
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")


# -- comments feeds -------------------------------------------------------------------------------


def test_the_site_comments_feed(client, blog):
    for address, kind in (("/comments/feed/", "rss2"), ("/comments/feed/atom/", "atom"), ("/?feed=comments-rss2", "rss2")):
        parsed = read_feed(client, address, kind)
        # Approved comments only, none on a protected post.
        assert titles(parsed) == ["Comment on Harbour opens by Ann"], address
        entry = parsed.entries[0]
        assert entry.link == f"{blog['first']['link']}#comment-{blog['approved']['id']}"
        assert entry.id == f"{HOME}/?p={blog['first']['id']}#comment-{blog['approved']['id']}"
        assert entry.author == "Ann" and "Great <em>news</em>!" in entry.content[0].value
    assert read_feed(client, "/comments/feed/").feed.title == "Comments for calpress"


def test_a_posts_comments_feed(client, blog):
    link = blog["first"]["link"]
    parsed = read_feed(client, link + "feed/")
    assert parsed.feed.title == "Comments on: Harbour opens" and parsed.feed.link == link
    assert titles(parsed) == ["By: Ann"]
    assert titles(read_feed(client, link + "feed/atom/", "atom")) == ["By: Ann"]
    assert titles(read_feed(client, f"/?p={blog['first']['id']}&feed=rss2")) == ["By: Ann"]


def test_a_protected_posts_comments_feed_shows_no_comment_text(client, blog):
    response = client.get(path_of(blog["secret"]["link"]) + "feed/")
    assert "Secret chatter" not in response.text
    entry = read_feed(client, blog["secret"]["link"] + "feed/").entries[0]
    assert entry.title == "By: Cy"
    assert entry.summary == "Protected Comments: Please enter your password to view comments."


def test_a_private_posts_comments_feed_is_a_404_for_visitors(client, admin, blog):
    private = create(client, admin, "/cms/v2/posts", title="Hidden", status="private", content="x")
    assert client.get(path_of(private["link"]) + "feed/").status_code == 404


def test_feeds_follow_writes_at_once(client, admin, blog):
    assert "Late news" not in titles(read_feed(client, "/feed/"))
    create(client, admin, "/cms/v2/posts", title="Late news", status="publish", content="x")
    assert titles(read_feed(client, "/feed/"))[0] == "Late news"


def test_enclosures_come_from_the_enclosure_meta(app, client, blog):
    # As a WXR import keeps the reference's ``enclosure`` meta (unregistered: written to the row).
    with app.site.write() as conn:
        item = item_service.get_item(conn, blog["second"]["id"])
        meta = {**item.meta, "enclosure": "https://cdn.example.test/talk.mp3\n12345\naudio/mpeg\n"}
        conn.execute(sa.update(posts).where(posts.c.id == item.id).values(meta=meta))
    entry = read_feed(client, "/feed/").entries[1]
    assert [(e.href, e.length, e.type) for e in entry.enclosures] == [("https://cdn.example.test/talk.mp3", "12345", "audio/mpeg")]


def test_xml_text_drops_what_xml_forbids_and_splits_cdata_ends():
    assert xmltext.clean("a\x00b\x0bc\ufffed") == "abcd"
    assert xmltext.cdata("x]]>y") == "<![CDATA[x]]]]><![CDATA[>y]]>"
    assert xmltext.text("a & <b>") == "a &amp; &lt;b&gt;"
    assert xmltext.rfc822(dt.datetime(2024, 5, 1, 10, 0)) == "Wed, 01 May 2024 10:00:00 +0000"


# -- the events feed -----------------------------------------------------------------------------


def test_the_events_feed_lists_upcoming_events_soonest_first_dated_by_their_start(client, admin, app):
    set_option(app, "timezone_string", "Europe/Berlin")
    later = make_event(client, admin, "Boat parade", start_hours=72)
    soon = make_event(client, admin, "Fish auction", start_hours=24)
    make_event(client, admin, "Old regatta", start_hours=-72)
    parsed = read_feed(client, "/events/feed/")
    assert titles(parsed) == ["Fish auction", "Boat parade"]
    assert parsed.feed.title == "Events \u2013 calpress"
    first = parsed.entries[0]
    assert first.link == soon["url"]
    start = dt.datetime.fromisoformat(soon["utc_start_date"]).replace(tzinfo=dt.UTC)
    assert parsedate_to_datetime(first.published) == start
    assert parsedate_to_datetime(parsed.entries[1].published) == dt.datetime.fromisoformat(later["utc_start_date"]).replace(tzinfo=dt.UTC)
    assert titles(read_feed(client, "/events/feed/atom/", "atom")) == ["Fish auction", "Boat parade"]
    assert titles(read_feed(client, "/?post_type=cal_events&feed=rss2")) == ["Fish auction", "Boat parade"]


# -- autodiscovery ---------------------------------------------------------------------------------


def alternates(response) -> dict[str, str]:
    """title -> href of the page's RSS alternate links."""
    found = re.findall(r'<link rel="alternate" type="application/rss\+xml" title="([^"]*)" href="([^"]*)">', response.text)
    return {title: href for title, href in found}


def test_every_page_links_its_feeds(client, admin, blog):
    home = alternates(client.get("/?paged=1", headers=HTML))
    assert home == {"calpress \u00bb Feed": HOME + "/feed/", "calpress \u00bb Comments Feed": HOME + "/comments/feed/"}
    single = alternates(client.get(path_of(blog["first"]["link"]), headers=HTML))
    assert single["calpress \u00bb Harbour opens Comments Feed"] == blog["first"]["link"] + "feed/"
    category = alternates(client.get("/category/town-news/", headers=HTML))
    assert category["calpress \u00bb Town News Category Feed"] == HOME + "/category/town-news/feed/"
    tag = alternates(client.get("/tag/market/", headers=HTML))
    assert tag["calpress \u00bb market Tag Feed"] == HOME + "/tag/market/feed/"
    author = alternates(client.get("/author/author/", headers=HTML))
    assert author["calpress \u00bb Posts by author Feed"] == HOME + "/author/author/feed/"
    events = alternates(client.get("/events/", headers=HTML))
    assert events["calpress \u00bb Events Feed"] == HOME + "/events/feed/"
    for href in {*home.values(), *single.values(), *category.values(), *tag.values(), *author.values(), *events.values()}:
        read_feed(client, href)  # every advertised feed is one


# -- sitemaps and robots.txt --------------------------------------------------------------------


def sitemap(client, address: str):
    """GET a sitemap and check the protocol's rules: XML in the sitemaps namespace, at most 50,000
    addresses and 50 MB, absolute addresses on the site's host (escaped), W3C datetime lastmods."""
    response = client.get(path_of(address) if address.startswith("http") else address)
    assert response.status_code == 200, (address, response.status_code)
    assert response.headers["content-type"] == "application/xml; charset=UTF-8"
    assert len(response.content) <= 50 * 1024 * 1024
    root = ET.fromstring(response.content)
    assert root.tag in (SITEMAP_NS + "urlset", SITEMAP_NS + "sitemapindex")
    child = "url" if root.tag.endswith("urlset") else "sitemap"
    entries = root.findall(SITEMAP_NS + child)
    assert len(entries) <= 50_000 and len(root) == len(entries)
    found = []
    for entry in entries:
        loc = entry.findtext(SITEMAP_NS + "loc")
        assert loc and urlsplit(loc).scheme == "http" and urlsplit(loc).netloc == "example.test", loc
        assert len(loc) < 2048
        lastmod = entry.findtext(SITEMAP_NS + "lastmod")
        assert lastmod is None or W3C.fullmatch(lastmod), lastmod
        found.append((loc, lastmod))
    return root.tag.removeprefix(SITEMAP_NS), found, response.text


def test_the_sitemap_index_and_its_sitemaps(client, admin, blog):
    make_event(client, admin, "Boat parade", start_hours=72, categories=["Water"])
    kind, index, _ = sitemap(client, "/wp-sitemap.xml")
    assert kind == "sitemapindex"
    assert [loc for loc, _ in index] == [f"{HOME}/wp-sitemap-{name}-1.xml" for name in (
        "posts-post", "posts-page", "posts-cal_events", "taxonomies-category", "taxonomies-post_tag",
        "taxonomies-cal_events_cat", "users")]
    kind, posts, _ = sitemap(client, "/wp-sitemap-posts-post-1.xml")
    assert kind == "urlset"
    # Published, without a password, by id; lastmod from the item's change.
    assert [loc for loc, _ in posts] == [blog["first"]["link"], blog["second"]["link"]]
    modified = client.get(f"/cms/v2/posts/{blog['first']['id']}").json["modified_gmt"]
    assert posts[0][1] == modified + "+00:00"
    _, pages, _ = sitemap(client, "/wp-sitemap-posts-page-1.xml")
    assert [loc for loc, _ in pages] == [HOME + "/", blog["page"]["link"]]  # the home page first
    _, events, _ = sitemap(client, "/wp-sitemap-posts-cal_events-1.xml")
    assert [loc for loc, _ in events] == [HOME + "/event/boat-parade/"]
    _, categories, _ = sitemap(client, "/wp-sitemap-taxonomies-category-1.xml")
    # Terms with published items, by id ("Uncategorized" holds "Market day").
    assert [loc for loc, _ in categories] == [HOME + "/category/uncategorized/", HOME + "/category/town-news/"]
    _, event_categories, _ = sitemap(client, "/wp-sitemap-taxonomies-cal_events_cat-1.xml")
    assert [loc for loc, _ in event_categories] == [HOME + "/events/category/water/"]
    _, users, _ = sitemap(client, "/wp-sitemap-users-1.xml")
    assert [loc for loc, _ in users] == [HOME + "/author/administrator/", HOME + "/author/author/"]


@pytest.mark.parametrize("path", ["/wp-sitemap-posts-post-2.xml", "/wp-sitemap-posts-post-0.xml", "/wp-sitemap-posts-nope-1.xml",
                                  "/wp-sitemap-posts-attachment-1.xml", "/wp-sitemap-posts-cal_venue-1.xml",
                                  "/wp-sitemap-taxonomies-post_format-1.xml", "/wp-sitemap-users-2.xml", "/wp-sitemap-x.xml"])
def test_a_sitemap_past_the_end_or_of_nothing_is_a_404(client, blog, path):
    assert client.get(path, headers=HTML).status_code == 404


def test_sitemap_addresses_are_escaped_xml():
    body = sitemaps._urlset([(f"{HOME}/?cal_events=a&b=<c>", None)])
    assert "?cal_events=a&amp;b=&lt;c&gt;" in body
    assert ET.fromstring(body).findtext(SITEMAP_NS + "url/" + SITEMAP_NS + "loc") == f"{HOME}/?cal_events=a&b=<c>"


def test_plain_permalinks_in_the_sitemap(app, client, admin):
    post = create(client, admin, "/cms/v2/posts", title="Plain", status="publish", content="x")
    set_option(app, "permalink_structure", "")
    _, found, _ = sitemap(client, "/wp-sitemap-posts-post-1.xml")
    assert [loc for loc, _ in found] == [f"{HOME}/?p={post['id']}"]


def test_sitemaps_page_at_2000_addresses(app, client, admin):
    """2,001 published posts (written straight through the domain, one transaction) make two pages."""
    ctx = Context.of(app.site, user=None, home=HOME)
    post_type = app.site.registry.types["post"]
    with app.site.write() as conn:
        for n in range(MAX_URLS + 1):
            item_service.create_item(conn, ctx, post_type, item_service.ItemChanges(
                title=f"Bulk {n}", slug=f"bulk-{n}", status="publish", author=admin.id, content=""))
    _, index, _ = sitemap(client, "/wp-sitemap.xml")
    assert [loc for loc, _ in index if "posts-post" in loc] == [f"{HOME}/wp-sitemap-posts-post-{n}.xml" for n in (1, 2)]
    _, first, _ = sitemap(client, "/wp-sitemap-posts-post-1.xml")
    _, second, _ = sitemap(client, "/wp-sitemap-posts-post-2.xml")
    assert len(first) == MAX_URLS and [loc for loc, _ in second] == [f"{HOME}/bulk-{MAX_URLS}/"]
    assert client.get("/wp-sitemap-posts-post-3.xml").status_code == 404


def test_robots_txt_and_discouraging_search_engines(app, client, admin, blog):
    robots = client.get("/robots.txt")
    assert robots.status_code == 200 and robots.headers["content-type"] == "text/plain; charset=utf-8"
    assert robots.text == ("User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\n"
                           f"Sitemap: {HOME}/wp-sitemap.xml\n")
    page = client.get(path_of(blog["first"]["link"]), headers=HTML)
    assert 'name="robots"' not in page.text
    set_option(app, "blog_public", 0)
    assert client.get("/robots.txt").text == "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n"
    for path in ("/wp-sitemap.xml", "/wp-sitemap-posts-post-1.xml"):
        assert client.get(path).status_code == 404
    for path in (path_of(blog["first"]["link"]), "/events/", "/no-such-page/"):
        shown = client.get(path, headers=HTML).text
        assert shown.count('<meta name="robots"') == 1 and '<meta name="robots" content="noindex, nofollow">' in shown, path
