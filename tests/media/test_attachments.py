"""Image attachments: storage with the reference's sub-sizes and metadata, the calendar's image
objects, the ``image`` argument (ids, stored URLs, downloads), and serving the uploads folder."""

from __future__ import annotations

import contextlib
import http.server
import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

import pytest
import sqlalchemy as sa
from cal_support import EVENTS, VENUES, make_event
from content_support import context, statement_counter
from PIL import Image

from calpress.media import attachments
from calpress.rest.errors import RestError
from calpress.store.tables import posts


def png(width: int = 1200, height: int = 800, color: str = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def store(app, data: bytes, name: str = "photo.png") -> int:
    with app.site.write() as conn:
        return attachments.create_attachment(conn, context(app), None, data, name)


@dataclass
class LoopbackServer:
    """A real HTTP server on loopback and the requests it received, as (method, path)."""

    url: str
    port: int
    requests: list[tuple[str, str]] = field(default_factory=list)
    port_open: bool = False  # whether the app's outbound policy opens this port (to any public address)

    def hits(self, path: str) -> list[str]:
        return [method for method, seen in self.requests if seen == path]

    def __str__(self) -> str:  # f"{server}/image.png"
        return self.url


@contextlib.contextmanager
def serving(answer) -> Iterator[LoopbackServer]:
    """Serve on a free loopback port; ``answer(handler)`` answers every request."""
    found = LoopbackServer("", 0)

    class Handler(http.server.BaseHTTPRequestHandler):
        def _handle(self) -> None:
            found.requests.append((self.command, self.path))
            answer(self)

        do_GET = do_HEAD = _handle  # noqa: N815

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.port = server.server_address[1]
    found.url = f"http://127.0.0.1:{found.port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def image_server() -> Iterator[LoopbackServer]:
    """An image server on loopback, allow-listed for the app (``outbound_allow`` below): an image
    (also under any name in /named/), a text file, a redirect to the address in ``?to=``, and 404s."""
    body = png(400, 300, "blue")

    def answer(handler) -> None:
        path, _, query = handler.path.partition("?")
        if path == "/redirect":
            handler.send_response(302)
            handler.send_header("Location", unquote(query.removeprefix("to=")))
            handler.end_headers()
            return
        if path == "/image.png" or path.startswith("/named/"):
            payload, kind = body, "image/png"
        elif path == "/page.html":
            payload, kind = b"<p>not an image</p>", "text/html"
        else:
            handler.send_response(404)
            handler.end_headers()
            return
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        if handler.command == "GET":
            handler.wfile.write(payload)

    with serving(answer) as server:
        yield server


@pytest.fixture(params=["closed port", "open port"])
def trap(request) -> Iterator[LoopbackServer]:
    """A loopback server the app must never reach: it serves an image to whatever asks, but is not
    allow-listed. Its port is either closed to outbound requests ("closed port": refused before
    any connection) or open (``outbound_ports``: then the loopback address is what is refused)."""
    body = png(50, 50, "black")

    def answer(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    with serving(answer) as server:
        server.port_open = request.param == "open port"
        yield server


@pytest.fixture()
def outbound_allow(request) -> str:
    """Allow-list the image server (and nothing else) for the tests that use it."""
    if "image_server" not in request.fixturenames:
        return ""
    return f"127.0.0.1:{request.getfixturevalue('image_server').port}"


@pytest.fixture()
def outbound_ports(request) -> str:
    ports = "80,443,8080"
    if "trap" in request.fixturenames and request.getfixturevalue("trap").port_open:
        ports += f",{request.getfixturevalue('trap').port}"
    return ports


def test_stored_images_get_the_reference_sizes_and_metadata(app):
    attachment_id = store(app, png(1200, 800))
    with app.site.read() as conn:
        row = conn.execute(sa.select(posts).where(posts.c.id == attachment_id)).one()
    assert row.type == "attachment" and row.status == "inherit" and row.mime_type == "image/png"
    metadata = row.meta[attachments.METADATA_KEY]
    assert metadata["width"] == 1200 and metadata["height"] == 800 and metadata["file"].endswith("/photo.png")
    sizes = metadata["sizes"]
    assert set(sizes) == {"thumbnail", "medium", "medium_large", "large"}  # not 1536 or 2048: the image is smaller
    assert (sizes["thumbnail"]["width"], sizes["thumbnail"]["height"]) == (150, 150)
    assert (sizes["medium"]["width"], sizes["medium"]["height"]) == (300, 200)
    assert (sizes["large"]["width"], sizes["large"]["height"]) == (1024, 683)
    folder = app.settings.uploads_dir / metadata["file"].rsplit("/", 1)[0]
    for size in sizes.values():
        with Image.open(folder / size["file"]) as image:
            assert image.size == (size["width"], size["height"])
        assert size["filesize"] == (folder / size["file"]).stat().st_size
    assert row.guid == "http://example.test/wp-content/uploads/" + metadata["file"]
    second = store(app, png(10, 10))  # same name: a new file, small images get no sizes
    with app.site.read() as conn:
        meta = conn.execute(sa.select(posts.c.meta).where(posts.c.id == second)).scalar_one()
    assert meta[attachments.FILE_KEY].endswith("/photo-1.png") and meta[attachments.METADATA_KEY]["sizes"] == {}


def test_an_attachment_is_an_ordinary_item_of_the_item_service(app):
    from content_support import make_item

    from calpress.content import items
    from calpress.store.changes import Change

    make_item(app, title="Poster")  # takes the slug "poster": attachments share every type's slugs
    recorded: list[Change] = []
    app.site.change_listeners.append(recorded.extend)
    with app.site.write() as conn:
        attachment_id = attachments.create_attachment(conn, context(app), None, png(640, 480), "Poster.png", author=0)
    assert recorded == [Change("item", "create", (attachment_id,))]
    with app.site.read() as conn:
        item = items.get_item(conn, attachment_id)
        image = attachments.image_objects(conn, "http://example.test", [attachment_id])[attachment_id]
    key = item.meta[attachments.FILE_KEY]
    assert (item.type, item.status, item.title, item.slug, item.author) == ("attachment", "inherit", "Poster", "poster-2", 0)
    assert item.mime_type == "image/png" and item.guid == f"http://example.test/wp-content/uploads/{key}"
    assert key.endswith("/poster.png") and item.meta[attachments.METADATA_KEY]["file"] == key
    storage = app.site.storage
    assert storage.size(key) == len(png(640, 480))
    folder = key.rsplit("/", 1)[0]
    for size in item.meta[attachments.METADATA_KEY]["sizes"].values():
        assert storage.size(f"{folder}/{size['file']}") == size["filesize"]
    base = f"http://example.test/wp-content/uploads/{folder}/"
    assert image == {
        "url": base + "poster.png", "id": attachment_id, "extension": "png", "width": 640, "height": 480,
        "filesize": len(png(640, 480)),
        "sizes": {
            "thumbnail": {"width": 150, "height": 150, "mime-type": "image/png", "filesize": image["sizes"]["thumbnail"]["filesize"],
                          "url": base + "poster-150x150.png"},
            "medium": {"width": 300, "height": 225, "mime-type": "image/png", "filesize": image["sizes"]["medium"]["filesize"],
                       "url": base + "poster-300x225.png"},
        },
    }


def test_sub_sizes_never_overwrite_another_upload(app):
    small = png(10, 10, "green")
    first = store(app, small, "photo-150x150.png")
    second = store(app, png(400, 300), "photo.png")  # photo.png would make photo-150x150.png: the next name is taken
    with app.site.read() as conn:
        keys = {row.id: row.meta[attachments.FILE_KEY] for row in conn.execute(sa.select(posts.c.id, posts.c.meta))}
    assert keys[first].endswith("/photo-150x150.png") and keys[second].endswith("/photo-1.png")
    with app.site.storage.open(keys[first]) as stream:
        assert stream.read() == small


def test_attachments_go_to_the_storage_given(app, tmp_path):
    from storage_support import MemoryStorage

    from calpress.media.storage import LocalStorage

    elsewhere = MemoryStorage("https://cdn.example.test/media/")
    with app.site.write() as conn:
        in_memory = attachments.create_attachment(conn, context(app), elsewhere, png(300, 300), "remote.png")
        # A local storage over another folder is a storage like any other.
        other = LocalStorage(tmp_path / "other", "/elsewhere/")
        attachments.create_attachment(conn, context(app), other, png(20, 20), "local.png")
        guid = conn.execute(sa.select(posts.c.guid).where(posts.c.id == in_memory)).scalar_one()
        image = attachments.image_objects(conn, "http://example.test", [in_memory], storage=elsewhere)[in_memory]
    assert sorted(key.rsplit("/", 1)[-1] for key in elsewhere.files) == ["remote-150x150.png", "remote.png"]
    assert guid.startswith("https://cdn.example.test/media/") and guid.endswith("/remote.png")
    assert image["url"] == guid and image["sizes"]["thumbnail"]["url"].startswith("https://cdn.example.test/media/")
    assert [p.name for p in (tmp_path / "other").rglob("*.png")] == ["local.png"]
    assert not app.settings.uploads_dir.exists() or not any(app.settings.uploads_dir.rglob("*.png"))


def test_a_storage_plugged_into_the_site_is_the_one_served(app, client):
    """The seam: an in-memory storage in place of the uploads folder gets the upload's files, and
    the uploads page serves them from it."""
    from storage_support import MemoryStorage

    double = MemoryStorage()
    app.site.storage = double
    data = png(400, 300)
    attachment_id = store(app, data, "seam.png")
    with app.site.read() as conn:
        key = conn.execute(sa.select(posts.c.meta).where(posts.c.id == attachment_id)).scalar_one()[attachments.FILE_KEY]
    assert key in double.files and double.files[key] == data
    assert sorted(name.rsplit("/", 1)[1] for name in double.files) == ["seam-150x150.png", "seam-300x225.png", "seam.png"]
    assert not app.settings.uploads_dir.exists() or not any(p.is_file() for p in app.settings.uploads_dir.rglob("*"))
    got = client.get("/wp-content/uploads/" + key)
    assert got.status_code == 200 and got.content == data and got.headers["content-type"] == "image/png"
    thumbnail = key.replace("seam.png", "seam-150x150.png")
    with Image.open(io.BytesIO(client.get("/wp-content/uploads/" + thumbnail).content)) as image:
        assert image.size == (150, 150)
    assert client.request("HEAD", "/wp-content/uploads/" + key).headers["content-length"] == str(len(data))
    double.delete(key)
    assert client.get("/wp-content/uploads/" + key).status_code == 404


def test_only_images_are_accepted(app):
    with pytest.raises(ValueError):
        store(app, b"plain text, not an image", "notes.png")
    buffer = io.BytesIO()
    Image.new("RGB", (20, 20)).save(buffer, format="TIFF")
    with pytest.raises(ValueError):
        store(app, buffer.getvalue(), "scan.tiff")


def test_image_objects_for_a_page_cost_one_statement(app):
    ids = [store(app, png(400, 300)) for _ in range(5)]
    with app.site.read() as conn, statement_counter(app) as statements:
        found = attachments.image_objects(conn, "http://example.test", [*ids, 999999])
    assert len([s for s in statements if s != "BEGIN"]) == 1
    assert found[999999] is False
    first = found[ids[0]]
    assert list(first) == ["url", "id", "extension", "width", "height", "filesize", "sizes"]
    assert first["extension"] == "png" and first["width"] == 400
    assert set(first["sizes"]["thumbnail"]) == {"width", "height", "mime-type", "filesize", "url"}
    assert first["sizes"]["thumbnail"]["url"].startswith("http://example.test/wp-content/uploads/")


def test_image_argument_by_id(app, admin):
    from calpress.auth import users

    image = store(app, png(200, 200))
    with app.site.write() as conn:
        raw = conn.execute(sa.insert(posts).values(
            type="attachment", status="inherit", slug="scan", title="scan", mime_type="application/octet-stream",
            date_local=sa.func.current_timestamp(), modified_local=sa.func.current_timestamp(),
            modified_utc=sa.func.current_timestamp(), meta={attachments.FILE_KEY: "scan.raw"},
        ).returning(posts.c.id)).scalar_one()
        post = conn.execute(sa.insert(posts).values(
            type="post", status="publish", slug="p", title="p", date_local=sa.func.current_timestamp(),
            modified_local=sa.func.current_timestamp(), modified_utc=sa.func.current_timestamp(),
        ).returning(posts.c.id)).scalar_one()
        user = users.get_user(conn, admin.id)
        ctx = context(app, admin.id)
        assert attachments.resolve_image(conn, ctx, str(image), user) == image
        assert attachments.resolve_image(conn, ctx, "", user) == 0
        for bad in (str(raw), str(post), "23", "foo bar"):
            assert not attachments.check_image_value(conn, ctx, bad, user)
            with pytest.raises(RestError) as caught:
                attachments.resolve_image(conn, ctx, bad, user)
            assert caught.value.status == 400 and caught.value.data["params"] == {"image": "Invalid parameter."}


def test_image_argument_by_url(app, accounts, admin, image_server):
    from calpress.auth import users

    stored = store(app, png(500, 400))
    with app.site.read() as conn:
        url = conn.execute(sa.select(posts.c.guid).where(posts.c.id == stored)).scalar_one()
        admin_user = users.get_user(conn, admin.id)
        contributor = users.get_user(conn, accounts["contributor"].id)
    ctx = context(app, admin.id)
    remote = f"{image_server}/image.png"
    bad = (f"{image_server}/page.html", f"{image_server}/missing.png", "http://127.0.0.1:9/nothing.png")
    downloads: attachments.Downloads = {}
    # Downloads happen before the write transaction (check_image), which then only stores them.
    assert attachments.check_image(app.site, ctx, remote, admin_user, downloads)
    for value in bad:
        assert not attachments.check_image(app.site, ctx, value, admin_user, downloads), value
    # Only users who may upload files can have a remote image fetched.
    contributor_downloads: attachments.Downloads = {}
    assert not attachments.check_image(app.site, ctx, remote, contributor, contributor_downloads)
    assert contributor_downloads == {}
    assert attachments.check_image(app.site, ctx, url, contributor, contributor_downloads)
    with app.site.write() as conn:
        assert attachments.resolve_image(conn, ctx, url, admin_user) == stored
        assert attachments.resolve_image(conn, ctx, url.replace(".png", "-150x150.png"), admin_user) == stored
        downloaded = attachments.resolve_image(conn, ctx, remote, admin_user, downloads=downloads)
        assert downloaded not in (0, stored)
        assert attachments.image_objects(conn, ctx.home, [downloaded])[downloaded]["width"] == 400
        for value in bad:
            assert not attachments.check_image_value(conn, ctx, value, admin_user, downloads), value
            with pytest.raises(RestError):
                attachments.resolve_image(conn, ctx, value, admin_user, downloads=downloads)
        # Nothing is fetched inside the transaction: a URL that was not downloaded is refused.
        with pytest.raises(RestError):
            attachments.resolve_image(conn, ctx, f"{image_server}/image.png?again", admin_user, downloads=downloads)
        assert not attachments.check_image_value(conn, ctx, remote, contributor, downloads)
        assert attachments.check_image_value(conn, ctx, url, contributor)
    assert image_server.hits("/image.png") == ["GET"]
    assert image_server.hits("/image.png?again") == []


def test_uploads_are_served_and_nothing_outside(app, client):
    stored = store(app, png(300, 300))
    with app.site.read() as conn:
        relative = conn.execute(sa.select(posts.c.meta).where(posts.c.id == stored)).scalar_one()[attachments.FILE_KEY]
    response = client.get(f"/wp-content/uploads/{relative}")
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert response.content == (app.settings.uploads_dir / relative).read_bytes()
    (app.settings.uploads_dir.parent / "secret.txt").write_text("nope")
    for path in ("/wp-content/uploads/../secret.txt", "/wp-content/uploads/%2e%2e/secret.txt",
                 "/wp-content/uploads/2020/../../secret.txt", "/wp-content/uploads/missing.png"):
        assert client.get(path).status_code == 404, path


def test_events_take_images_by_id_and_url_through_the_api(app, client, accounts, admin, image_server):
    stored = store(app, png(640, 480))
    by_id = make_event(client, admin, image=str(stored))
    assert by_id["image"]["id"] == stored and by_id["image"]["width"] == 640 and "thumbnail" in by_id["image"]["sizes"]
    by_url = make_event(client, admin, image=by_id["image"]["url"])
    assert by_url["image"]["id"] == stored
    remote = make_event(client, admin, image=f"{image_server}/image.png")
    assert remote["image"]["id"] not in (stored, None) and remote["image"]["url"].endswith(".png")
    typed = client.post(EVENTS, user=admin, json={"title": "T", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00",
                                                   "image": stored})
    assert typed.status_code == 400 and typed.json["data"]["details"]["image"]["code"] == "rest_invalid_type"
    refused = client.post(EVENTS, user=accounts["contributor"], json={
        "title": "T", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", "image": f"{image_server}/image.png"})
    assert refused.status_code == 400 and refused.json["code"] == "rest_invalid_param"
    cleared = client.post(f"{EVENTS}/{by_id['id']}", user=admin, json={"image": ""})
    assert cleared.json["image"] is False
    venue = client.post(VENUES, user=admin, json={"venue": "Pictured", "image": str(stored)})
    assert venue.status_code == 201 and venue.json["image"]["id"] == stored
    inline = make_event(client, admin, venue={"venue": "Inline pictured", "image": by_id["image"]["url"]},
                        organizer=[{"organizer": "Org pictured", "image": f"{image_server}/image.png"}])
    assert inline["venue"]["image"]["id"] == stored and inline["organizer"][0]["image"]["url"].endswith(".png")


@pytest.mark.parametrize("name", ["my%20photo.png", "caf%C3%A9.png", "100%25.png", "a%2Fb.png"])
def test_a_downloaded_image_whose_name_holds_percent_is_served_at_its_url(client, admin, image_server, name):
    """The file name comes from the URL's path, percent-encoded: it is stored under a name whose
    address answers (issue 9, #9), never under the literal %xx text that then answered 404."""
    event = make_event(client, admin, image=f"{image_server}/named/{name}")
    url = event["image"]["url"]
    path = url.split("example.test", 1)[1]
    served = client.http.simulate_get(path)
    assert served.status_code == 200 and served.headers["content-type"] == "image/png", (url, served.status_code)
    file_name = path.rsplit("/", 1)[1]
    assert "/" not in file_name and ".." not in file_name
    for size in event["image"]["sizes"].values():
        assert client.http.simulate_get(size["url"].split("example.test", 1)[1]).status_code == 200


# -- outbound requests: through the guarded client, before the transaction, once --------------------


def _event(image: str | None = None, **fields) -> dict:
    body = {"title": "T", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", **fields}
    if image is not None:
        body["image"] = image
    return body


def _count(app, content_type: str) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == content_type)).scalar_one()


def _assert_invalid_image(response) -> None:
    assert response.status_code == 400, response.json
    assert response.json["code"] == "rest_invalid_param" and response.json["data"]["params"] == {"image": "Invalid parameter."}


def test_an_authors_loopback_image_is_refused_and_never_requested(app, client, accounts, trap):
    author = accounts["author"]  # may upload files, so a remote image would be downloaded
    url = f"{trap}/image.png"
    _assert_invalid_image(client.post(EVENTS, user=author, json=_event(url)))
    _assert_invalid_image(client.post(EVENTS, user=author, json=_event(venue={"venue": "Inline", "image": url})))
    _assert_invalid_image(client.post(EVENTS, user=author, json=_event(organizer=[{"organizer": "Org", "image": url}])))
    _assert_invalid_image(client.post(VENUES, user=author, json={"venue": "Own route", "image": url}))
    assert trap.requests == []
    assert (_count(app, "cal_events"), _count(app, "cal_venue"), _count(app, "cal_organizer"), _count(app, "attachment")) == (0, 0, 0, 0)


def test_a_redirect_to_a_refused_address_is_refused(app, client, admin, image_server, trap):
    redirect = f"{image_server}/redirect?to={quote(f'{trap}/image.png', safe='')}"
    _assert_invalid_image(client.post(EVENTS, user=admin, json=_event(redirect)))
    _assert_invalid_image(client.post(EVENTS, user=admin, json=_event(venue={"venue": "Inline", "image": redirect})))
    assert trap.requests == []
    assert image_server.hits(redirect.removeprefix(image_server.url)) == ["GET", "GET"]  # once per request
    followed = f"{image_server}/redirect?to={quote(f'{image_server}/image.png', safe='')}"
    assert make_event(client, admin, image=followed)["image"]["width"] == 400  # redirects within the allow-list are followed


def test_each_image_is_fetched_once_per_request_and_stored_in_the_write(app, client, admin, image_server):
    url = f"{image_server}/image.png"
    body = make_event(client, admin, image=url, venue={"venue": "Pictured", "image": url},
                      organizer=[{"organizer": "O1", "image": url}, {"organizer": "O2", "image": url}])
    assert image_server.hits("/image.png") == ["GET"]  # one GET for the check and the four stores, no HEAD
    ids = {body["image"]["id"], body["venue"]["image"]["id"], *(o["image"]["id"] for o in body["organizer"])}
    assert len(ids) == 4 and all(i for i in ids)  # each use stores its own attachment, as before
    venue = client.post(VENUES, user=admin, json={"venue": "Own route", "image": url})
    assert venue.status_code == 201 and venue.json["image"]["width"] == 400
    assert image_server.hits("/image.png") == ["GET", "GET"]  # the next request fetches again
    updated = client.post(f"{EVENTS}/{body['id']}", user=admin, json={"image": url})
    assert updated.status_code == 200 and updated.json["image"]["id"] not in ids
    assert image_server.hits("/image.png") == ["GET"] * 3


def test_no_outbound_http_but_through_the_guarded_client():
    """Nothing in calpress sends a request with urllib or httpx itself: calpress.net's client does."""
    import pathlib
    import re

    import calpress

    root = pathlib.Path(calpress.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.parent == root / "net":
            continue
        text = path.read_text()
        if re.search(r"^\s*(import|from)\s+(httpx|httpcore|urllib\.request|urllib3|requests|http\.client)\b", text, re.M):
            offenders.append(str(path.relative_to(root)))
    assert offenders == []


# -- the attachment type: registered, not served in REST yet --------------------------------------


def test_the_attachment_type_is_registered_as_the_reference_does(app):
    from calpress.content.types import type_labels

    attachment = app.site.registry.types["attachment"]
    assert (attachment.rest_base, attachment.default_status, attachment.permalink) == ("media", "inherit", "attachment")
    assert attachment.supports == frozenset({"title", "author", "comments"}) and not attachment.hierarchical
    assert attachment.caps["create_posts"] == "upload_files" and attachment.caps["edit_posts"] == "edit_posts"
    assert not attachment.can_trash and attachment.icon == "dashicons-admin-media"
    assert type_labels(attachment)["singular_name"] == "Media" and type_labels(attachment)["add_new"] == "Add Media File"
    assert list(app.site.registry.types)[:5] == ["post", "page", "attachment", "nav_menu_item", "wp_block"]
    assert attachment.show_in_rest and attachment in app.site.registry.rest_types()


def test_the_attachment_type_is_served_as_media(app, client, accounts, admin):
    """Served in REST since the media controller came (api/cms_media.py): /types lists it, its
    routes answer, and its read rule is the core's (an attachment of a draft is readable by those
    who may read the draft)."""
    from content_support import make_image, make_item

    from calpress.api.cms_users import author_types

    assert client.get("/cms/v2/types").json["attachment"]["rest_base"] == "media"
    assert client.get("/cms/v2/types/attachment", user=admin).json["slug"] == "attachment"
    assert client.get("/cms/v2/media").status_code == 200
    names = author_types(app.site.registry)
    assert names == [t.name for t in app.site.registry.rest_types() if t.name in names]

    draft = make_item(app, title="Draft parent", author=accounts["author"].id, status="draft")
    image = make_image(app, author=accounts["author"].id, parent=draft.id)
    assert client.get(f"/cms/v2/media/{image}").status_code == 401
    assert client.get(f"/cms/v2/media/{image}", user=accounts["author"]).status_code == 200
    # Its featured-media link shows to those who may read it.
    pictured = make_item(app, title="Pictured", author=accounts["author"].id, featured_media=image)
    assert "wp:featuredmedia" not in client.get(f"/cms/v2/posts/{pictured.id}").json["_links"]
    for user in (accounts["author"], accounts["editor"], admin):
        links = client.get(f"/cms/v2/posts/{pictured.id}", user=user).json["_links"]
        assert links["wp:featuredmedia"][0]["href"].endswith(f"/cms/v2/media/{image}"), user
    # Search leaves attachments out, as the reference's post search handler does.
    assert client.get("/cms/v2/search", params={"search": "image"}, user=admin).json == []
    assert client.get("/cms/v2/search", params={"subtype": "attachment"}).status_code == 400
