"""The embed page (``<permalink>embed/``, ``?embed=true``): what an oEmbed answer's frame shows.
Small and self-contained (no site header or footer, inline style, one inline script allowed by
its hash), framable by any site, for published items only; and the oEmbed discovery tags of the
public pages that point to it."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from cal_support import make_event, make_venue, set_option
from content_support import context, make_item
from PIL import Image

from calpress.content import items

HOME = "http://example.test"
HTML = {"Accept": "text/html"}


def visit(client, path: str, status: int = 200):
    response = client.get(path, headers=HTML)
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("text/html")
    return response


def frame_path(client, url: str) -> str:
    """The path and query of the frame an oEmbed answer for ``url`` shows (secret dropped)."""
    markup = client.get("/oembed/1.0/embed", params={"url": url}).json["html"]
    source = re.search(r'<iframe [^>]*src="([^"]+)"', markup).group(1).replace("&#038;", "&")
    assert "#?secret=" in source
    parts = urlsplit(source)
    assert f"{parts.scheme}://{parts.netloc}" == HOME
    return parts.path + (f"?{parts.query}" if parts.query else "")


def test_embed_page_of_a_post(app, client):
    item = make_item(app, title="Hello world!", slug="hello-world", content="<p>Words worth embedding.</p>")
    path = frame_path(client, f"{HOME}/hello-world/")
    assert path == "/hello-world/embed/"
    response = visit(client, path)
    page = response.text
    assert '<p class="wp-embed-heading"><a href="http://example.test/hello-world/" target="_top">Hello world!</a></p>' in page
    assert "Words worth embedding." in page
    assert '<link rel="canonical" href="http://example.test/hello-world/">' in page
    assert 'content="noindex, follow"' in page
    # small and self-contained: no site header, footer, stylesheet or other script
    assert "site-header" not in page and "site-footer" not in page and 'rel="stylesheet"' not in page
    assert page.count("<script") == 1 and "<script src" not in page
    # framable by other sites, and its one script allowed by its hash
    assert "x-frame-options" not in response.headers
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors" not in policy and "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";")[0]
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    assert "postMessage" in script and "secret" in script
    # without the trailing slash, and the ?p= form
    assert "Hello world!" in visit(client, "/hello-world/embed").text
    assert "Hello world!" in visit(client, f"/?p={item.id}&embed=true").text


def test_drafts_private_and_unknown_addresses(app, client, admin):
    draft = make_item(app, title="Draft", slug="draft", status="draft")
    private = make_item(app, title="Private", slug="private", status="private")
    for path in (f"/?p={draft.id}&embed=true", f"/?p={private.id}&embed=true", "/no-such-post/embed/", "/embed/"):
        page = visit(client, path, 404).text
        assert "embed cannot be found" in page and "site-header" not in page
    # not even for whoever may read them
    login = client.http.simulate_post("/wp-login.php", body=f"log={admin.login}&pwd={admin.password}",
                                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    cookie = login.headers["set-cookie"].split(";", 1)[0]
    response = client.get(f"/?p={private.id}&embed=true", headers={**HTML, "Cookie": cookie})
    assert response.status_code == 404
    assert client.get(f"/?p={private.id}", headers={**HTML, "Cookie": cookie}).status_code == 200


def test_protected_post(app, client):
    make_item(app, title="Secret", slug="secret", content="<p>Hidden words</p>", password="pw")
    page = visit(client, "/secret/embed/").text
    assert "Protected: Secret" in page and "Hidden words" not in page
    assert "There is no excerpt because this is a protected post." in page


def test_plain_permalinks_and_front_page(app, client):
    page = make_item(app, "page", title="Welcome", slug="welcome", content="<p>Front words</p>")
    set_option(app, "show_on_front", "page")
    set_option(app, "page_on_front", page.id)
    assert frame_path(client, f"{HOME}/") == "/embed/"
    assert "Front words" in visit(client, "/embed/").text
    other = make_item(app, "page", title="About", slug="about", content="<p>About words</p>")
    set_option(app, "permalink_structure", "")
    path = frame_path(client, f"{HOME}/?page_id={other.id}")
    assert parse_qs(urlsplit(path).query) == {"page_id": [str(other.id)], "embed": ["true"]}
    assert "About words" in visit(client, path).text
    # the front page's address is the home's: its embed page is the home's with ?embed=true
    assert frame_path(client, f"{HOME}/") == "/?embed=true"
    assert "Front words" in visit(client, "/?embed=true").text


def test_event_and_venue(client, admin):
    venue = make_venue(client, admin, "The Hall")
    event = make_event(client, admin, "Concert", venue=venue["id"], description="<p>Loud music</p>")
    page = visit(client, frame_path(client, event["url"])).text
    assert "Concert" in page and "Loud music" in page
    meta = re.search(r'<p class="wp-embed-meta">(.*?)</p>', page, re.S).group(1)
    assert "The Hall" in meta and "@" in meta  # the schedule, then the venue
    assert "The Hall" in visit(client, frame_path(client, venue["url"])).text


def test_featured_image(app, client, admin):
    buffer = io.BytesIO()
    Image.new("RGB", (800, 400), "teal").save(buffer, format="JPEG")
    image = client.post("/cms/v2/media", user=admin, body=buffer.getvalue(),
                        headers={"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=wide.jpg"}).json
    make_item(app, title="Wide", slug="wide", featured_media=image["id"])
    page = visit(client, "/wide/embed/").text
    found = re.search(r'<div class="wp-embed-featured-image (\w+)"><a [^>]*><img src="([^"]+)" width="(\d+)" height="(\d+)"', page)
    assert found is not None, page
    assert found.group(1) == "rectangular" and (found.group(3), found.group(4)) == ("600", "300")
    assert found.group(2) == image["media_details"]["sizes"]["medium_large"]["source_url"]


def test_discovery_links(app, client):
    make_item(app, title="Hello world!", slug="hello-world")
    page = visit(client, "/hello-world/").text
    links = re.findall(r'<link rel="alternate" type="([^"]+\+oembed)" title="([^"]+)" href="([^"]+)">', page)
    assert [(kind, title) for kind, title, _ in links] == [("application/json+oembed", "oEmbed (JSON)"),
                                                           ("text/xml+oembed", "oEmbed (XML)")]
    json_href = links[0][2].replace("&amp;", "&")
    assert json_href == f"{HOME}/wp-json/oembed/1.0/embed?url=http%3A%2F%2Fexample.test%2Fhello-world%2F"
    assert links[1][2].replace("&amp;", "&") == json_href + "&format=xml"
    found = client.get(json_href.replace(HOME, ""))
    assert found.status_code == 200 and found.json["title"] == "Hello world!"
    # archives have none
    assert "+oembed" not in visit(client, "/category/uncategorized/").text


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_cached_page_is_not_stale(app, client):
    item = make_item(app, title="Soon gone", slug="soon-gone")
    assert "Soon gone" in visit(client, "/soon-gone/embed/").text
    with app.site.write() as conn:
        items.trash_item(conn, context(app), items.get_item(conn, item.id))
    visit(client, "/soon-gone/embed/", 404)
