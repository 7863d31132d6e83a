"""Compression and conditional requests on every answer (calpress/http_encoding.py, issue 32
item 10): the negotiation of Accept-Encoding, brotli and gzip bodies that decode to the identity
body, Vary, strong ETags and 304s on REST answers, pages and the site's static files, what is
never compressed (images, small answers, ranges, answers already encoded), HEAD, and the same
through a real server read by httpx."""

from __future__ import annotations

import gzip
import io
import time

import brotli
import httpx
import pytest
from content_support import context
from PIL import Image

from calpress.http_encoding import MIN_SIZE, AnswerEncoding, accepted_encoding, accepts, is_compressible, none_match
from calpress.media import attachments

HTML = {"Accept": "text/html"}


def decoded(response) -> bytes:
    coding = response.headers.get("content-encoding")
    if coding == "br":
        return brotli.decompress(response.content)
    if coding == "gzip":
        return gzip.decompress(response.content)
    assert coding is None, coding
    return response.content


def publish_posts(client, admin, count: int = 10) -> list[int]:
    ids = []
    for number in range(count):
        created = client.post("/cms/v2/posts", user=admin, json={
            "title": f"Garden day {number}", "status": "publish",
            "content": "<p>The garden opens every Saturday morning; bring gloves and a friend.</p>" * 3,
        })
        assert created.status_code == 201, created.text
        ids.append(created.json["id"])
    return ids


# -- negotiation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ("identity", None),
        ("deflate", None),
        ("gzip", "gzip"),
        ("x-gzip", "gzip"),
        ("GZIP", "gzip"),
        ("br", "br"),
        ("gzip, deflate, br, zstd", "br"),
        ("gzip;q=1.0, br;q=0.5", "gzip"),
        ("br;q=0.5, gzip;q=0.5", "br"),
        ("br;q=0, gzip", "gzip"),
        ("br;q=0, gzip;q=0", None),
        ("gzip;q=nonsense", None),
        ("*", "br"),
        ("*;q=0.2, br;q=0.1", "gzip"),
        ("*;q=0", None),
        ("gzip, br;q=0", "gzip"),
        (" br ; q=0.8 ,gzip;q=0.9", "gzip"),
    ],
)
def test_accept_encoding_is_negotiated_by_q_value(header, expected):
    assert accepted_encoding(header) == expected


def test_a_small_body_is_compressed_only_when_identity_is_refused():
    assert accepted_encoding("gzip, br", small=True) is None
    assert accepted_encoding("gzip, identity;q=0", small=True) == "gzip"
    assert accepted_encoding("br, *;q=0", small=True) == "br"
    assert accepted_encoding("br, *;q=0, identity", small=True) is None


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("text/html; charset=UTF-8", True), ("text/css", True), ("text/calendar; charset=utf-8", True),
        ("application/json; charset=UTF-8", True), ("application/problem+json", True), ("application/javascript", True),
        ("application/rss+xml; charset=UTF-8", True), ("application/atom+xml", True), ("image/svg+xml", True),
        ("text/xml", True), ("image/png", False), ("image/jpeg", False), ("application/zip", False),
        ("application/pdf", False), ("font/woff2", False), ("text/event-stream", False), ("application/octet-stream", False),
    ],
)
def test_compressible_types(content_type, expected):
    assert is_compressible(content_type) is expected


def test_accepts_a_coding_compressed_ahead_of_time():
    assert accepts("gzip, br", "gzip") and accepts("*", "gzip") and accepts("x-gzip", "gzip")
    assert not accepts(None, "gzip") and not accepts("br", "gzip") and not accepts("gzip;q=0, br", "gzip")
    assert not accepts("*;q=0", "gzip") and accepts("*;q=0, gzip;q=0.1", "gzip")


def test_if_none_match_compares_weakly_and_across_encodings():
    tag = '"abc123"'
    for header in ('"abc123"', 'W/"abc123"', '"abc123-br"', 'W/"abc123-gz"', '"zzz", "abc123-gz"', "*", ' "other" , W/"abc123" '):
        assert none_match(header, tag), header
    for header in ('"abc12"', '"abc1234"', '"other-br"', "abc123x", '"abc123-zz"'):
        assert not none_match(header, tag), header


# -- REST answers --------------------------------------------------------------------------------


def test_rest_list_compressed_with_brotli_and_gzip(client, admin):
    publish_posts(client, admin)
    plain = client.get("/cms/v2/posts")
    assert plain.status_code == 200 and len(plain.content) > MIN_SIZE
    assert "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Origin, Accept-Encoding"  # even uncompressed
    assert plain.headers["content-length"] == str(len(plain.content))
    for header, coding in (("br", "br"), ("gzip", "gzip"), ("gzip, deflate, br, zstd", "br"), ("br;q=0.1, gzip", "gzip")):
        packed = client.get("/cms/v2/posts", headers={"Accept-Encoding": header})
        assert packed.headers["content-encoding"] == coding
        assert packed.headers["content-length"] == str(len(packed.content))
        assert len(packed.content) < len(plain.content) / 3
        assert decoded(packed) == plain.content
        assert packed.headers["vary"] == "Origin, Accept-Encoding"
        assert packed.headers["x-wp-total"] == plain.headers["x-wp-total"]


def test_rest_etag_is_strong_stable_and_changes_with_the_content(client, admin):
    ids = publish_posts(client, admin, 3)
    first = client.get("/cms/v2/posts")
    tag = first.headers["etag"]
    assert tag.startswith('"') and tag.endswith('"') and not tag.startswith("W/")
    assert client.get("/cms/v2/posts").headers["etag"] == tag
    brotli_tag = client.get("/cms/v2/posts", headers={"Accept-Encoding": "br"}).headers["etag"]
    gzip_tag = client.get("/cms/v2/posts", headers={"Accept-Encoding": "gzip"}).headers["etag"]
    # Each representation its own strong tag, all naming the same body.
    assert brotli_tag == tag[:-1] + '-br"' and gzip_tag == tag[:-1] + '-gz"'
    assert client.post(f"/cms/v2/posts/{ids[0]}", user=admin, json={"title": "Renamed"}).status_code == 200
    changed = client.get("/cms/v2/posts")
    assert changed.headers["etag"] != tag and b"Renamed" in changed.content
    # A single item and an error: tagged only when 200.
    assert client.get(f"/cms/v2/posts/{ids[1]}").headers["etag"].startswith('"')
    assert "etag" not in client.get("/cms/v2/posts/999999").headers


def test_rest_if_none_match_answers_304(client, admin):
    publish_posts(client, admin, 3)
    first = client.get("/cms/v2/posts", headers={"Accept-Encoding": "gzip"})
    tag = first.headers["etag"]
    for sent, accept in ((tag, "gzip"), (tag, ""), (tag.replace("-gz", "-br"), "br"), (f'W/{tag}', "br"), (f'"nope", {tag}', "gzip"), ("*", "")):
        again = client.get("/cms/v2/posts", headers={"If-None-Match": sent, "Accept-Encoding": accept})
        assert again.status_code == 304, sent
        assert again.content == b""
        assert "content-type" not in again.headers and "content-encoding" not in again.headers
        assert again.headers["vary"] == "Origin, Accept-Encoding"
        assert again.headers["etag"] == (tag[:-4] + {"gzip": '-gz"', "br": '-br"', "": '"'}[accept])
        assert again.headers["x-wp-total"] == "3"  # the other headers of the answer stay
    assert client.get("/cms/v2/posts", headers={"If-None-Match": '"something-else"'}).status_code == 200
    # Only GET and HEAD are conditional here; a logged-in answer keeps its no-store and gets its 304.
    mine = client.get("/cms/v2/users/me", user=admin)
    again = client.get("/cms/v2/users/me", user=admin, headers={"If-None-Match": mine.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"].endswith("no-store, private")


def test_small_answers_and_errors_are_not_compressed(client):
    missing = client.get("/cms/v2/posts/424242", headers={"Accept-Encoding": "br, gzip"})
    assert missing.status_code == 404 and len(missing.content) < MIN_SIZE
    assert "content-encoding" not in missing.headers and missing.headers["vary"] == "Origin, Accept-Encoding"
    assert missing.json["code"] == "rest_post_invalid_id"
    forced = client.get("/cms/v2/posts/424242", headers={"Accept-Encoding": "gzip, identity;q=0"})
    assert forced.headers["content-encoding"] == "gzip" and gzip.decompress(forced.content) == missing.content


def test_head_passes_as_the_app_answers_it(client, admin):
    # The REST engine answers HEAD without reading a listing's rows: no body to hash or
    # compress, so a HEAD gets Vary and is otherwise the app's own (RFC 9110 9.3.2).
    publish_posts(client, admin, 3)
    for path, headers in (("/cms/v2/posts", {}), ("/wp-json/", {}), ("/", HTML), ("/wp-content/calpress/site.css", {})):
        got = client.get(path, headers={**headers, "Accept-Encoding": "br"})
        head = client.request("HEAD", path, headers={**headers, "Accept-Encoding": "br"})
        assert head.status_code == 200 and head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"]
        assert "Accept-Encoding" in head.headers["vary"] and "content-encoding" not in head.headers
        assert client.request("HEAD", path, headers={**headers, "If-None-Match": got.headers["etag"]}).status_code == 200


def test_the_site_index_arrives_under_30_kb_with_brotli(client):
    plain = client.get("/wp-json/")
    packed = client.get("/wp-json/", headers={"Accept-Encoding": "br"})
    assert len(plain.content) > 200_000
    assert packed.headers["content-encoding"] == "br" and len(packed.content) < 30_000
    assert brotli.decompress(packed.content) == plain.content
    gzipped = client.get("/wp-json/", headers={"Accept-Encoding": "gzip"})
    assert len(gzipped.content) < 30_000 and gzip.decompress(gzipped.content) == plain.content


# -- pages and files ---------------------------------------------------------------------------


def test_pages_are_compressed_tagged_and_answer_304(client, admin, monkeypatch):
    publish_posts(client, admin, 2)
    link = client.get("/cms/v2/posts").json[0]["link"].removeprefix("http://example.test")
    # Pages are kept per minute, and a calendar view carries a new random pointer at each
    # rendering: the clock stands still from here, so that the two renderings compared are one
    # (a run that crossed a minute between them once compared two).
    stopped = time.time()
    monkeypatch.setattr(time, "time", lambda: stopped)
    for path in (link, "/", "/events/list/"):
        page = client.get(path, headers={**HTML, "Accept-Encoding": "br"})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["content-encoding"] == "br" and page.headers["vary"] == "Accept-Encoding"
        identity = client.get(path, headers=HTML)
        assert brotli.decompress(page.content) == identity.content
        assert page.headers["etag"] == identity.headers["etag"][:-1] + '-br"'
        again = client.get(path, headers={**HTML, "If-None-Match": identity.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
    # An error page is compressed too, and never tagged.
    missing = client.get("/no-such-page/", headers={**HTML, "Accept-Encoding": "gzip"})
    assert missing.status_code == 404 and "etag" not in missing.headers
    assert missing.headers["content-encoding"] == "gzip" and b"Page not found" in gzip.decompress(missing.content)


def test_site_stylesheet_is_compressed_and_answers_304(client, app):
    path = "/wp-content/calpress/site.css"
    css = client.get(path, headers={"Accept-Encoding": "br"})
    assert css.status_code == 200 and css.headers["content-encoding"] == "br"
    assert css.headers["cache-control"] == "public, max-age=31536000, immutable"
    plain = client.get(path)
    assert brotli.decompress(css.content) == plain.content
    not_modified = client.get(path, headers={"If-None-Match": css.headers["etag"]})
    assert not_modified.status_code == 304 and not_modified.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert not_modified.headers["etag"] == plain.headers["etag"]


def test_openapi_document_is_compressed(client):
    plain = client.get("/openapi.json")
    packed = client.get("/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and gzip.decompress(packed.content) == plain.content


def test_workspace_files_already_gzipped_are_left_alone(client):
    path = "/wp-admin/assets/admin.css"
    plain = client.get(path)
    gzipped = client.get(path, headers={"Accept-Encoding": "gzip"})
    # admin/assets.py compresses its own files: not compressed twice, its Vary not repeated.
    assert gzipped.headers["content-encoding"] == "gzip" and gzip.decompress(gzipped.content) == plain.content
    assert gzipped.headers["vary"] == "Accept-Encoding"
    for header in ("br", "gzip;q=0, br"):  # the file's own gzip refused: the layer's brotli
        packed = client.get(path, headers={"Accept-Encoding": header})
        assert packed.headers["content-encoding"] == "br" and brotli.decompress(packed.content) == plain.content


def test_images_and_ranges_are_not_compressed(app, client):
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), "purple").save(buffer, format="PNG")
    data = buffer.getvalue()
    with app.site.write() as conn:
        attachment_id = attachments.create_attachment(conn, context(app), None, data, "poster.png")
    with app.site.read() as conn:
        key = attachments.image_objects(conn, "http://example.test", [attachment_id])[attachment_id]["url"].split("/wp-content/uploads/")[1]
    image = client.get("/wp-content/uploads/" + key, headers={"Accept-Encoding": "br, gzip"})
    assert image.status_code == 200 and image.content == data and "content-encoding" not in image.headers
    assert "vary" not in image.headers
    text = ("A plain text file, long enough to be worth compressing. " * 60).encode()
    app.site.storage.put("notes/readme.txt", text)
    whole = client.get("/wp-content/uploads/notes/readme.txt", headers={"Accept-Encoding": "gzip"})
    assert whole.headers["content-encoding"] == "gzip" and gzip.decompress(whole.content) == text
    own_tag = client.get("/wp-content/uploads/notes/readme.txt").headers["etag"]
    assert whole.headers["etag"] == own_tag[:-1] + '-gz"'
    ranged = client.get("/wp-content/uploads/notes/readme.txt", headers={"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
    assert ranged.status_code == 206 and ranged.content == text[:100] and "content-encoding" not in ranged.headers
    assert client.get("/wp-content/uploads/notes/readme.txt", headers={"If-None-Match": whole.headers["etag"]}).status_code == 304


def test_a_streamed_answer_passes_through():
    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/xml")])
        return iter([b"<a>", b"x" * 5000, b"</a>"])  # no length: streamed as it comes

    sent = []
    body = AnswerEncoding(app)({"REQUEST_METHOD": "GET", "HTTP_ACCEPT_ENCODING": "br"}, lambda s, h, e=None: sent.append(h))
    assert b"".join(body) == b"<a>" + b"x" * 5000 + b"</a>"
    assert ("Vary", "Accept-Encoding") in sent[0] and not any(name.lower() == "content-encoding" for name, _ in sent[0])


# -- through a real server --------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_real_client_decodes_brotli_and_gzip(live_server):
    with httpx.Client(base_url=live_server.url) as http:
        plain = http.get("/wp-json/", headers={"Accept-Encoding": "identity"})
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        for coding in ("br", "gzip"):
            packed = http.get("/wp-json/", headers={"Accept-Encoding": coding})
            assert packed.headers["content-encoding"] == coding
            assert int(packed.headers["content-length"]) < 30_000
            assert packed.content == plain.content  # httpx decoded it
            assert packed.json()["namespaces"] == plain.json()["namespaces"]
            head = http.head("/wp-json/", headers={"Accept-Encoding": coding})
            assert head.status_code == 200 and head.content == b"" and "Accept-Encoding" in head.headers["vary"]
            again = http.get("/wp-json/", headers={"Accept-Encoding": coding, "If-None-Match": packed.headers["etag"]})
            assert again.status_code == 304 and again.content == b""
        css = http.get("/wp-content/calpress/site.css", headers={"Accept-Encoding": "br"})
        assert css.headers["content-encoding"] == "br" and b"{" in css.content
        page = http.get("/events/list/", headers={"Accept": "text/html", "Accept-Encoding": "gzip"})
        assert page.headers["content-encoding"] == "gzip" and "</html>" in page.text
