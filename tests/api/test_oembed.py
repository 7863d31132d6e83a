"""``/oembed/1.0`` (cms-api.md 4, scenarios 219-235): this site's items as oEmbed resources (every
public item type, its ``?p=`` and permalink forms, JSON and XML, the frame's size and secret,
thumbnails, what may not be embedded) and the proxy (permission, local addresses, well-known
providers, discovery, the filter for untrusted HTML, the day-long cache).

The proxy never reaches the internet: a small HTTP server on loopback plays every remote site
(a provider's endpoint, pages to discover), and counts what it is asked; the app's outbound
allow-list names it. The well-known provider table is tested by pointing a provider's endpoint
at that server.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import re
import threading
import xml.etree.ElementTree as ElementTree
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from cal_support import make_event, make_organizer, make_venue, set_option
from content_support import make_item
from PIL import Image

from calpress.embed import remote
from calpress.embed.proxy import AnswerCache, cache_key

HOME = "http://example.test"
EMBED = "/oembed/1.0/embed"
PROXY = "/oembed/1.0/proxy"
SECRET = r"[A-Za-z0-9]{10}"


def embed(client, url: str, **params: Any):
    return client.get(EMBED, params={"url": url, **params})


def assert_not_found(response) -> None:
    assert response.status_code == 404, response.text
    assert response.json == {"code": "oembed_invalid_url", "message": "Not Found", "data": {"status": 404}}


@pytest.fixture()
def post(app):
    return make_item(app, title="Hello world!", slug="hello-world", content="<p>Some words to embed.</p>")


# -- the route and its arguments ------------------------------------------------------------------


def test_routes_are_listed_after_the_namespace_and_before_the_calendar(client):
    routes = list(client.get("/").json["routes"])
    assert routes.index("/oembed/1.0") < routes.index("/oembed/1.0/embed") < routes.index("/oembed/1.0/proxy")
    assert routes.index("/oembed/1.0/proxy") < routes.index("/cal/events/v1/events")
    index = client.get("/oembed/1.0").json["routes"]
    args = index["/oembed/1.0/embed"]["endpoints"][0]["args"]
    assert list(args) == ["url", "format", "maxwidth"]
    assert args["url"] == {"description": "The URL of the resource for which to fetch oEmbed data.", "type": "string",
                           "format": "uri", "required": True}
    assert args["maxwidth"] == {"default": 600, "required": False}
    proxy = index["/oembed/1.0/proxy"]["endpoints"][0]["args"]
    assert list(proxy) == ["url", "format", "maxwidth", "maxheight", "discover"]
    assert proxy["format"]["enum"] == ["json", "xml"] and proxy["discover"]["default"] is True


def test_post_is_no_route(client, post):  # 219
    response = client.post(EMBED, params={"url": f"{HOME}/hello-world/"})
    assert response.status_code == 404 and response.json["code"] == "rest_no_route"


def test_missing_url(client):  # 220
    response = client.get(EMBED)
    assert response.status_code == 400
    assert response.json["code"] == "rest_missing_callback_param" and response.json["data"]["params"] == ["url"]


@pytest.mark.parametrize("url", ["http://google.com/", f"{HOME}/no-such-page/", "http://other.test/hello-world/",
                                 f"{HOME}/category/uncategorized/", f"{HOME}/", "not a url"])
def test_unknown_addresses(client, post, url):  # 221
    assert_not_found(embed(client, url))


# -- the data -------------------------------------------------------------------------------------


def test_post_data(app, client, accounts):  # 222, 223, 229
    author = accounts["author"]
    item = make_item(app, title="Hello world!", slug="hello-world", author=author.id)
    set_option(app, "blogname", "Example Calendar")
    link = f"{HOME}/hello-world/"
    response = embed(client, link, maxwidth=400, format="random")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json; charset=UTF-8"
    assert response.headers["allow"] == "GET"
    data = response.json
    assert list(data) == ["version", "provider_name", "provider_url", "author_name", "author_url", "title", "type", "width",
                          "height", "html"]
    assert data["version"] == "1.0" and data["type"] == "rich"
    assert (data["provider_name"], data["provider_url"]) == ("Example Calendar", HOME)
    assert data["author_name"] == "author" and data["author_url"] == f"{HOME}/author/author/"
    assert client.get(f"/cms/v2/users/{author.id}").json["link"] == data["author_url"]
    assert data["title"] == "Hello world!" and (data["width"], data["height"]) == (400, 225)
    markup = data["html"]
    found = re.fullmatch(
        rf'<blockquote class="wp-embedded-content" data-secret="({SECRET})"><a href="{re.escape(link)}">Hello world!</a>'
        rf'</blockquote><iframe sandbox="allow-scripts" security="restricted" src="{re.escape(link)}embed/#\?secret=({SECRET})" '
        r'width="400" height="225" title="&#8220;Hello world!&#8221; &#8212; Example Calendar" '
        rf'data-secret="({SECRET})" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" '
        r'class="wp-embedded-content"></iframe><script>.+</script>', markup, re.S)
    assert found is not None, markup
    assert found.group(1) == found.group(2) == found.group(3)
    # a fresh secret for every answer; the ?p= form names the same item
    again = client.get(EMBED, params={"url": f"{HOME}/?p={item.id}"}).json
    assert again["title"] == "Hello world!" and again["html"] != markup
    assert re.search(r'data-secret="([^"]+)"', again["html"]).group(1) != found.group(1)


@pytest.mark.parametrize(("maxwidth", "size"), [("100", (200, 200)), ("1000", (600, 338)), ("600", (600, 338)),
                                                 ("300", (300, 200)), ("400px", (400, 225)), ("abc", (200, 200))])
def test_frame_size(client, post, maxwidth, size):  # 228
    data = embed(client, f"{HOME}/hello-world/", maxwidth=maxwidth).json
    assert (data["width"], data["height"]) == size
    assert f'width="{size[0]}" height="{size[1]}"' in data["html"]


def test_static_front_page_without_author(app, client):  # 224
    page = make_item(app, "page", title="Welcome", slug="welcome")
    set_option(app, "show_on_front", "page")
    set_option(app, "page_on_front", page.id)
    data = embed(client, f"{HOME}/").json
    assert data["title"] == "Welcome"
    assert (data["author_name"], data["author_url"]) == ("calpress", HOME)
    assert f'src="{HOME}/embed/#?secret=' in data["html"]
    assert embed(client, f"{HOME}/?page_id={page.id}").json["title"] == "Welcome"


def test_xml(app, client, accounts):  # 225
    make_item(app, title="Caf\u00e9 & <friends>", slug="cafe", author=accounts["editor"].id)
    url = f"{HOME}/cafe/"
    response = embed(client, url, format="xml")
    assert response.status_code == 200 and response.headers["content-type"] == "text/xml; charset=UTF-8"
    assert response.text.startswith('<?xml version="1.0"?>\n<oembed><version>1.0</version><provider_name>')
    assert "&#xE9;" in response.text  # non-ASCII as character references, as libxml writes them
    root = ElementTree.fromstring(response.content)
    assert root.tag == "oembed"
    values = {child.tag: child.text or "" for child in root}
    data = embed(client, url).json
    assert list(values) == list(data)
    for key, value in data.items():
        if key == "html":
            assert values[key].startswith('<blockquote class="wp-embedded-content" data-secret=')
        else:  # the entities of the rendered title are read as characters by the XML writer
            assert values[key] == html.unescape(str(value)), key
    assert values["title"] == "Caf\u00e9 & <friends>"
    # HEAD is not rewritten; errors stay JSON
    assert client.request("HEAD", EMBED, params={"url": url, "format": "xml"}).headers["content-type"].startswith("application/json")
    missing = embed(client, f"{HOME}/nothing/", format="xml")
    assert missing.status_code == 404 and missing.json["code"] == "oembed_invalid_url"


@pytest.mark.parametrize("status", ["draft", "pending", "private", "future", "trash"])
def test_unpublished_items_are_not_embedded(app, client, status):  # 226
    later = dt.datetime.now() + dt.timedelta(days=3) if status == "future" else None
    item = make_item(app, title="Hidden", slug="hidden", status=status, date=later)
    assert item.status == status
    assert_not_found(embed(client, f"{HOME}/?p={item.id}"))


def test_unpublished_is_not_embedded_even_for_its_editor(app, client, admin):
    item = make_item(app, title="Hidden", slug="hidden", status="private")
    response = client.get(EMBED, user=admin, params={"url": f"{HOME}/?p={item.id}"})
    assert_not_found(response)


def test_protected_and_non_public_types(app, client):
    protected = make_item(app, title="Secret", slug="secret", password="pw")
    data = embed(client, f"{HOME}/secret/").json
    assert data["title"] == "Protected: Secret"
    assert embed(client, f"{HOME}/?p={protected.id}").json["title"] == "Protected: Secret"
    block = make_item(app, "wp_block", title="Pattern", slug="pattern")
    assert_not_found(embed(client, f"{HOME}/?p={block.id}"))


def test_plain_permalinks_embed_with_a_query(app, client, post):
    set_option(app, "permalink_structure", "")
    data = embed(client, f"{HOME}/?p={post.id}").json
    assert f'<a href="{HOME}/?p={post.id}">' in data["html"]
    assert f'src="{HOME}/?p={post.id}&#038;embed=true#?secret=' in data["html"]
    assert_not_found(embed(client, f"{HOME}/hello-world/"))


def test_calendar_items(app, client, admin):
    event = make_event(client, admin, "Seed Event 01")
    venue = make_venue(client, admin, "The Hall")
    organizer = make_organizer(client, admin, "The Band")
    for found, title in ((event, "Seed Event 01"), (venue, "The Hall"), (organizer, "The Band")):
        url = found["url"]
        data = embed(client, url).json
        assert data["title"] == title and data["author_name"] == "administrator", url
        assert f'src="{url}embed/#?secret=' in data["html"]
        assert embed(client, f"{HOME}/?p={found['id']}").json["title"] == title
    assert event["url"] == f"{HOME}/event/seed-event-01/"


def image_upload(client, user, size: tuple[int, int]) -> dict[str, Any]:
    buffer = io.BytesIO()
    Image.new("RGB", size, "teal").save(buffer, format="JPEG")
    response = client.post("/cms/v2/media", user=user, body=buffer.getvalue(),
                           headers={"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=pic.jpg"})
    assert response.status_code == 201, response.json
    return response.json


def test_thumbnails(app, client, admin):  # 227
    image = image_upload(client, admin, (640, 480))
    sizes = image["media_details"]["sizes"]
    make_item(app, title="Pictured", slug="pictured", featured_media=image["id"])
    data = embed(client, f"{HOME}/pictured/").json
    assert list(data)[-3:] == ["thumbnail_url", "thumbnail_width", "thumbnail_height"]
    # no sub-size of the image's shape is 600 wide: the full image, scaled to the frame
    assert (data["thumbnail_url"], data["thumbnail_width"], data["thumbnail_height"]) == (image["source_url"], 600, 450)
    # 200 wide: the medium size (300x225, the same shape) scaled down
    small = embed(client, f"{HOME}/pictured/", maxwidth=200).json
    assert (small["thumbnail_url"], small["thumbnail_width"], small["thumbnail_height"]) == (sizes["medium"]["source_url"], 200, 150)
    # an image attachment is its own thumbnail; an unattached one's address is /{name}/
    assert image["link"] == f"{HOME}/pic/"
    own = embed(client, image["link"]).json
    assert own["type"] == "rich" and own["thumbnail_url"] == image["source_url"]
    assert f"{image['link']}embed/#?secret=" in own["html"]
    assert embed(client, f"{HOME}/?attachment_id={image['id']}").json["title"] == own["title"]
    # nor for a protected item (its page shows no picture either)
    make_item(app, title="Locked", slug="locked", password="pw", featured_media=image["id"])
    assert "thumbnail_url" not in embed(client, f"{HOME}/locked/").json
    # without a featured image, no thumbnail keys
    assert "thumbnail_url" not in embed(client, f"{HOME}/?p={make_item(app, title='Bare', slug='bare').id}").json


def test_attachment_of_a_draft_is_not_embedded(app, client, admin):
    image = image_upload(client, admin, (300, 200))
    draft = make_item(app, title="Draft", slug="draft", status="draft")
    assert client.post(f"/cms/v2/media/{image['id']}", user=admin, json={"post": draft.id}).status_code == 200
    assert_not_found(embed(client, image["link"]))


# -- the proxy: permission and local addresses ----------------------------------------------------


def test_proxy_permission(client, accounts, post):  # 230
    assert client.get(PROXY).status_code == 400
    anonymous = client.get(PROXY, params={"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"})
    assert anonymous.status_code == 401
    assert anonymous.json == {"code": "rest_forbidden", "message": "Sorry, you are not allowed to make proxied oEmbed requests.",
                              "data": {"status": 401}}
    assert "allow" not in anonymous.headers
    subscriber = client.get(PROXY, user=accounts["subscriber"], params={"url": "https://www.youtube.com/watch?v=x"})
    assert subscriber.status_code == 403 and subscriber.json["code"] == "rest_forbidden"
    contributor = client.get(PROXY, user=accounts["contributor"], params={"url": f"{HOME}/hello-world/"})
    assert contributor.status_code == 200


def test_proxy_invalid_discover(client, accounts):  # 232
    response = client.get(PROXY, user=accounts["editor"], params={"url": "https://example.org/", "discover": "notaboolean"})
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"


# -- the proxy: remote providers, on a loopback server --------------------------------------------


class RemoteSites:
    """A loopback HTTP server playing providers and pages to discover; records every request."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        sites = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                sites.requests.append(self.path)
                if self.path.startswith("/redirect?to="):
                    self.send_response(302)
                    self.send_header("Location", parse_qs(urlsplit(self.path).query)["to"][0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, kind, body = sites.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def page(self, endpoint: str, kind: str = "application/json+oembed") -> bytes:
        return (f'<!doctype html><html><head><title>A page</title><link rel="alternate" type="{kind}" '
                f'href="{self.base}{endpoint}?url=x&amp;format=json"></head><body>Hi</body></html>').encode()

    def answer(self, path: str) -> tuple[int, str, bytes]:
        parts = urlsplit(path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        json = "application/json"
        if parts.path == "/oembed":  # a trusted provider: echoes the sizes it was asked for
            return 200, json, orjson.dumps({
                "version": "1.0", "type": "video", "provider_name": "Local Tube", "title": "Clip",
                "width": int(query.get("maxwidth", 0)), "height": int(query.get("maxheight", 0)),
                "html": '<iframe src="https://player.example/clip"></iframe><script>player()</script>',
            })
        if parts.path == "/discoverable":
            return 200, "text/html", self.page("/untrusted")
        if parts.path == "/untrusted":
            return 200, json, orjson.dumps({
                "version": "1.0", "type": "rich", "title": "Untrusted", "width": 500, "height": 300,
                "html": '<blockquote class="x" onclick="a()"><a href="https://u.example/p" onmouseover="b()">U</a></blockquote>'
                        '<script>steal()</script><iframe src="https://u.example/embed?a=1&amp;b=2" onload="c()" '
                        'width="500" allow="camera">fallback</iframe>',
            })
        if parts.path == "/frameless":
            return 200, "text/html", self.page("/frameless-oembed")
        if parts.path == "/frameless-oembed":
            return 200, json, orjson.dumps({"version": "1.0", "type": "rich", "html": "<div onclick='x()'>no frame</div>"})
        if parts.path == "/xml-page":
            return 200, "text/html", self.page("/xml-only", "text/xml+oembed")
        if parts.path == "/xml-only":
            if query.get("format") == "json":
                return 501, "text/plain", b"Not Implemented"
            return 200, "text/xml", (b'<?xml version="1.0"?><oembed><version>1.0</version><type>link</type>'
                                     b"<title>Linked &amp; more</title></oembed>")
        if parts.path == "/plain":
            return 200, "text/html", b"<html><head><title>No oEmbed</title></head><body>plain</body></html>"
        return 404, "text/plain", b"not here"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def sites():
    found = RemoteSites()
    yield found
    found.close()


@pytest.fixture()
def outbound_allow(sites) -> str:
    return f"127.0.0.1:{sites.port}"


@pytest.fixture()
def remote_sites(sites):
    sites.requests.clear()
    return sites


def proxy_of(app):
    """The app's oEmbed proxy (its provider table and answer cache)."""
    return app.api.registry.by_name["oembed.proxy"].endpoints[0].handler.__self__.proxy


@pytest.fixture()
def tube(app, remote_sites):
    """The table's YouTube entry, its endpoint pointed at the loopback server."""
    youtube = next(p for p in remote.PROVIDERS if p.name == "YouTube")
    proxy_of(app).providers = (remote.Provider("YouTube", youtube.patterns, f"{remote_sites.base}/oembed"),)
    return remote_sites


# The remote side does not depend on the database: one leg is enough.
sqlite_only = pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)


@sqlite_only
def test_well_known_provider_and_cache(client, accounts, tube):  # 233
    params = {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "maxwidth": "456", "maxheight": "789"}
    response = client.get(PROXY, user=accounts["editor"], params=params)
    assert response.status_code == 200, response.json
    data = response.json
    assert (data["width"], data["height"], data["type"], data["provider_name"]) == (456, 789, "video", "Local Tube")
    # a trusted provider's HTML is passed on as it comes (235)
    assert data["html"] == '<iframe src="https://player.example/clip"></iframe><script>player()</script>'
    assert len(tube.requests) == 1
    asked = parse_qs(urlsplit(tube.requests[0]).query)
    assert asked == {"maxwidth": ["456"], "maxheight": ["789"], "url": [params["url"]], "dnt": ["1"], "format": ["json"]}
    # the same request by another user, and with a nonce: from the cache
    assert client.get(PROXY, user=accounts["administrator"], params=params).json == data
    assert client.get(PROXY, user=accounts["author"], params={**params, "_wpnonce": "abc"}).json == data
    assert len(tube.requests) == 1
    # other arguments are another answer; without maxheight the provider gets the reference's 750
    other = client.get(PROXY, user=accounts["editor"], params={"url": params["url"]}).json
    assert (other["width"], other["height"]) == (600, 750) and len(tube.requests) == 2


@sqlite_only
def test_unknown_provider(client, accounts, remote_sites):  # 231
    editor = accounts["editor"]
    assert_not_found(client.get(PROXY, user=editor, params={"url": f"{remote_sites.base}/plain"}))
    assert remote_sites.requests == ["/plain"]
    assert_not_found(client.get(PROXY, user=editor, params={"url": f"{remote_sites.base}/discoverable", "discover": "0"}))
    assert remote_sites.requests == ["/plain"]
    # refused by the outbound guard: a private address is never fetched
    assert_not_found(client.get(PROXY, user=editor, params={"url": "http://10.0.0.1/page"}))


@sqlite_only
def test_discovered_provider_html_is_filtered(client, accounts, remote_sites):  # 235
    response = client.get(PROXY, user=accounts["editor"], params={"url": f"{remote_sites.base}/discoverable"})
    assert response.status_code == 200, response.json
    assert [urlsplit(path).path for path in remote_sites.requests] == ["/discoverable", "/untrusted"]
    markup = response.json["html"]
    found = re.fullmatch(
        rf'<blockquote class="wp-embedded-content" data-secret="({SECRET})"><a href="https://u.example/p">U</a></blockquote>'
        r'<iframe class="wp-embedded-content" sandbox="allow-scripts" security="restricted" '
        r'style="position: absolute; visibility: hidden;" '
        rf'src="https://u.example/embed\?a=1&#038;b=2#\?secret=({SECRET})" data-secret="({SECRET})" width="500"></iframe>', markup)
    assert found is not None, markup
    assert found.group(1) == found.group(2) == found.group(3)
    frameless = client.get(PROXY, user=accounts["editor"], params={"url": f"{remote_sites.base}/frameless"})
    assert frameless.status_code == 200 and frameless.json["html"] is False


@sqlite_only
def test_xml_provider(client, accounts, remote_sites):
    data = client.get(PROXY, user=accounts["editor"], params={"url": f"{remote_sites.base}/xml-page"}).json
    assert data["type"] == "link" and data["title"] == "Linked & more"
    assert data["html"] == f'<a href="{remote_sites.base}/xml-page">Linked &amp; more</a>'
    formats = [parse_qs(urlsplit(path).query).get("format") for path in remote_sites.requests[1:]]
    assert formats == [["json"], ["xml"]]


@sqlite_only
def test_proxy_local_address(app, client, accounts, remote_sites, post):  # 234
    editor = accounts["editor"]
    data = client.get(PROXY, user=editor, params={"url": f"{HOME}/hello-world/", "maxwidth": "300"}).json
    assert data["type"] == "rich" and data["title"] == "Hello world!" and data["width"] == 300
    assert data["provider_url"] == HOME
    draft = make_item(app, title="Draft", slug="draft", status="draft")
    assert_not_found(client.get(PROXY, user=editor, params={"url": f"{HOME}/?p={draft.id}"}))
    assert remote_sites.requests == []


# -- the parts ------------------------------------------------------------------------------------


def test_provider_table():
    assert remote.find_provider("https://www.youtube.com/watch?v=x").endpoint == "https://www.youtube.com/oembed"
    assert remote.find_provider("https://youtu.be/x").name == "YouTube"
    assert remote.find_provider("https://vimeo.com/123").endpoint == "https://vimeo.com/api/oembed.{format}"
    assert remote.find_provider("https://x.com/someone/status/1").name == "X"
    # matched from the start only
    assert remote.find_provider("https://evil.example/?https://vimeo.com/1") is None
    assert remote.with_query("https://p.example/o?url=a&format=xml", {"url": "b c", "format": "json"}) == \
        "https://p.example/o?url=b+c&format=json"


def test_untrusted_filter():
    assert remote.filter_untrusted('<iframe src="/relative"></iframe>') is False
    assert remote.filter_untrusted('<iframe src="javascript:alert(1)"></iframe>') is False
    kept = remote.filter_untrusted('<p>x</p><iframe src="https://a.example/e" title="T" sandbox="allow-same-origin"></iframe>')
    assert isinstance(kept, str) and kept.startswith('<iframe class="wp-embedded-content" sandbox="allow-scripts" security=')
    assert "allow-same-origin" not in kept and "style=" not in kept


def test_cache_expires_and_is_bounded():
    now = [0.0]
    cache = AnswerCache(ttl=86400, max_bytes=200, clock=lambda: now[0])
    cache.put("a", {"html": "x" * 50})
    assert cache.get("a") == {"html": "x" * 50}
    now[0] = 86399.0
    assert cache.get("a") is not None
    now[0] = 86400.0
    assert cache.get("a") is None
    cache.put("b", {"html": "y" * 100})
    cache.put("c", {"html": "z" * 100})  # over the bound: the oldest goes
    assert cache.get("b") is None and cache.get("c") is not None
    assert cache_key({"url": "u", "_wpnonce": "1"}) == cache_key({"url": "u"}) != cache_key({"url": "v"})


@sqlite_only
@pytest.mark.parametrize("url", [
    "http://127.0.0.1/page", "http://10.0.0.1/page", "http://169.254.169.254/latest/meta-data/", "http://[::1]/page",
    "http://metadata.example.test/latest/", "http://lan.example.test/page",
])
def test_the_proxy_never_reaches_private_addresses(app, client, accounts, remote_sites, url):
    """The outbound guard refuses loopback, private, link-local addresses and names that resolve
    to one (the names here are mapped by the client's resolver, as DNS would)."""
    from calpress import net

    answers = {"metadata.example.test": "169.254.169.254", "lan.example.test": "10.0.0.1"}

    def resolver(host, port, *args, **kwargs):
        import socket

        address = answers.get(host, host)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    guarded = net.Client(app.site.http.policy, resolver=resolver)
    proxy_of(app).client = lambda: guarded
    try:
        assert_not_found(client.get(PROXY, user=accounts["editor"], params={"url": url}))
    finally:
        guarded.close()
    assert remote_sites.requests == []


@sqlite_only
def test_the_proxy_does_not_follow_a_redirect_to_a_private_address(client, accounts, remote_sites):
    for target in ("http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:9/", "http://10.0.0.1/"):
        url = f"{remote_sites.base}/redirect?to={target}"
        assert_not_found(client.get(PROXY, user=accounts["editor"], params={"url": url}))
    assert len(remote_sites.requests) == 3 and all(r.startswith("/redirect") for r in remote_sites.requests)


@sqlite_only
def test_a_loopback_provider_is_reached_only_through_the_allow_list(app, client, accounts, remote_sites):
    from calpress import net

    unlisted = net.Client(net.NetPolicy(allowed_ports=(80, 443, remote_sites.port)))
    proxy_of(app).client = lambda: unlisted
    try:
        assert_not_found(client.get(PROXY, user=accounts["editor"], params={"url": f"{remote_sites.base}/discoverable"}))
    finally:
        unlisted.close()
    assert remote_sites.requests == []
    proxy_of(app).client = lambda: app.site.http  # the app's client: the module allow-lists the server
    assert client.get(PROXY, user=accounts["editor"], params={"url": f"{remote_sites.base}/discoverable"}).status_code == 200
    assert remote_sites.requests[0] == "/discoverable"


@pytest.mark.parametrize("maxwidth", ["0", "-1", "wide", ""])
def test_odd_maxwidths_are_read_as_the_reference_does(client, post, maxwidth):
    """absint: 0, -1, text and an empty value are read as 0 (-1 as 1), then clamped to the
    smallest frame (200 wide), never an error."""
    response = embed(client, f"{HOME}/hello-world/", maxwidth=maxwidth)
    assert response.status_code == 200, response.json
    assert (response.json["width"], response.json["height"]) == (200, 200)


def test_kept_answers_get_a_fresh_secret_and_follow_every_write(app, client, admin, post):
    import re

    first, second = (embed(client, f"{HOME}/hello-world/").json for _ in range(2))
    secrets_seen = [re.findall(r'data-secret="([A-Za-z0-9]{10})"', answer["html"]) for answer in (first, second)]
    assert all(len(found) == 2 and found[0] == found[1] for found in secrets_seen)
    assert secrets_seen[0][0] != secrets_seen[1][0]
    assert {k: v for k, v in first.items() if k != "html"} == {k: v for k, v in second.items() if k != "html"}
    assert first["html"].replace(secrets_seen[0][0], "") == second["html"].replace(secrets_seen[1][0], "")
    renamed = client.post(f"/cms/v2/posts/{post.id}", user=admin, json={"title": "Goodbye world"})
    assert renamed.status_code == 200
    assert embed(client, f"{HOME}/hello-world/").json["title"] == "Goodbye world"
    client.post(f"/cms/v2/posts/{post.id}", user=admin, json={"status": "draft"})
    assert_not_found(embed(client, f"{HOME}/hello-world/"))
