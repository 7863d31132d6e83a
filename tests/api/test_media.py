"""``cms/v2/media`` (cms-api.md 2.16 and scenarios 139-160, 172): uploads by raw body and by
multipart form, the reference's errors, what an attachment shows, listings and their filters,
updates, and deletes that take the files with the row. Every refused upload leaves no file and
no row behind.

Every test runs twice per database: with the uploads folder, and with an S3-compatible bucket
(moto on loopback, tests/s3fixtures.py) as the site's storage; files are checked where the
storage keeps them."""

from __future__ import annotations

import hashlib
import io
import secrets

import pytest
from content_support import context
from PIL import Image

from calpress.content import items as item_service
from calpress.media.attachments import METADATA_KEY
from calpress.media.storage import LocalStorage

MEDIA = "/cms/v2/media"


def image_bytes(fmt: str = "JPEG", size: tuple[int, int] = (640, 480), color: str = "teal") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format=fmt)
    return buffer.getvalue()


def raw_upload(client, user, data: bytes, name: str | None, content_type: str | None = "image/jpeg", **headers: str):
    sent = dict(headers)
    if content_type is not None:
        sent["Content-Type"] = content_type
    if name is not None:
        sent["Content-Disposition"] = f"attachment; filename={name}"
    return client.post(MEDIA, user=user, body=data, headers=sent)


def form_upload(client, user, data: bytes, name: str, fields: dict[str, str] | None = None, field: str = "file"):
    boundary = "MediaBoundary7f3a"
    parts = b""
    for key, value in (fields or {}).items():
        parts += f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
    parts += (f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
              f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    parts += f"--{boundary}--\r\n".encode()
    return client.post(MEDIA, user=user, body=parts, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})


@pytest.fixture(params=["local", "s3"])
def storage_kind(request) -> str:
    return request.param


@pytest.fixture()
def settings(settings, storage_kind, request):
    """The app's settings, with a bucket of its own (a fresh prefix) on the S3 leg."""
    if storage_kind == "local":
        return settings
    server = request.getfixturevalue("s3_server")
    return settings.with_overrides(
        s3_bucket="media", s3_endpoint=server.endpoint, s3_access_key=server.access_key,
        s3_secret_key=server.secret_key, s3_prefix=f"t{secrets.token_hex(4)}",
        outbound_allow=f"127.0.0.1:{server.port}",
    )


def stored_files(app) -> list[str]:
    """Every file the site's storage holds (the uploads folder, or the site's part of the bucket)."""
    return sorted(app.site.storage.keys())


def download(app, client, url: str) -> bytes:
    """The file at ``url``: through the site's uploads page for local files (which serves
    them), straight from the bucket for S3 ones (the bucket serves them, not the site)."""
    storage = app.site.storage
    if isinstance(storage, LocalStorage):
        response = client.get(url.replace("http://example.test", ""))
        assert response.status_code == 200, url
        return response.content
    key = storage.key_of(url)
    assert key is not None, url
    with storage.open(key) as stream:
        return stream.read()


def is_stored_address(app, url: str) -> bool:
    return app.site.storage.key_of(url) is not None and url.startswith("http")


def attachment_count(client, admin) -> int:
    return int(client.get(MEDIA, user=admin, params={"status": "inherit,private,trash"}).headers["x-wp-total"])


def test_raw_upload_as_the_reference(app, client, accounts, storage_kind):
    response = raw_upload(client, accounts["author"], image_bytes(), "canola.jpg")
    assert response.status_code == 201, response.json
    body = response.json
    assert response.headers["x-wp-upload-attachment-id"] == str(body["id"])
    assert response.headers["location"].endswith(f"{MEDIA}/{body['id']}")
    assert (body["media_type"], body["mime_type"], body["status"], body["type"]) == ("image", "image/jpeg", "inherit", "attachment")
    assert body["source_url"].endswith("canola.jpg") and body["title"]["raw"] == "canola"
    # Where the file is: the site's uploads address, or the bucket's (the S3 leg).
    assert body["source_url"].startswith("http://example.test/wp-content/uploads/") == (storage_kind == "local")
    assert body["source_url"].startswith("http://127.0.0.1:") == (storage_kind == "s3")
    assert body["guid"]["raw"] == body["source_url"] and body["post"] is None
    details = body["media_details"]
    assert (details["width"], details["height"]) == (640, 480)
    for size in ("thumbnail", "medium", "full"):
        assert is_stored_address(app, details["sizes"][size]["source_url"])
        assert details["sizes"][size]["mime_type"] == "image/jpeg"
    assert (details["sizes"]["thumbnail"]["width"], details["sizes"]["thumbnail"]["height"]) == (150, 150)
    assert "password" not in body and body["missing_image_sizes"] == []
    # the stored files open as what they claim
    thumb = download(app, client, details["sizes"]["thumbnail"]["source_url"])
    assert Image.open(io.BytesIO(thumb)).size == (150, 150)
    assert download(app, client, body["source_url"]) == image_bytes()


def test_multipart_upload_with_fields(client, admin):
    response = form_upload(client, admin, image_bytes("PNG", (200, 100)), "chart.png",
                           {"title": "Sales chart", "alt_text": "A chart", "caption": "Q3", "description": "Numbers"})
    assert response.status_code == 201, response.json
    body = response.json
    assert body["title"]["raw"] == "Sales chart" and body["alt_text"] == "A chart"
    assert body["caption"]["raw"] == "Q3" and body["description"]["raw"] == "Numbers"
    assert body["mime_type"] == "image/png" and body["source_url"].endswith("/chart.png")


def test_the_content_decides_the_type(client, admin):
    jpeg_named_png = raw_upload(client, admin, image_bytes("JPEG"), "photo.png", "image/png")
    assert jpeg_named_png.status_code == 201 and jpeg_named_png.json["mime_type"] == "image/jpeg"
    assert jpeg_named_png.json["source_url"].endswith("photo.jpg")
    pdf = raw_upload(client, admin, b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n", "report.pdf", "application/pdf")
    assert pdf.status_code == 201, pdf.json
    assert (pdf.json["media_type"], pdf.json["mime_type"]) == ("file", "application/pdf")
    assert pdf.json["media_details"]["sizes"] == {}
    text = raw_upload(client, admin, b"plain words\n", "notes.txt", "text/plain")
    assert text.status_code == 201 and text.json["media_type"] == "file"


@pytest.mark.parametrize(
    ("data", "name", "content_type", "multipart", "status", "code"),
    [
        (b"<?php system($_GET['c']); ?>", "shell.png", "image/png", False, 400, "rest_upload_sideload_error"),
        (b"<?php system($_GET['c']); ?>", "shell.png", None, True, 400, "rest_upload_unknown_error"),
        (b"<html><script>alert(1)</script></html>", "page.pdf", "application/pdf", False, 400, "rest_upload_sideload_error"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>", "logo.svg", "image/svg+xml", False, 400,
         "rest_upload_sideload_error"),
        (b"MZ\x90\x00" + b"\x00" * 60, "tool.exe", "application/octet-stream", False, 400, "rest_upload_sideload_error"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "truncated.png", "image/png", False, 400, "rest_upload_sideload_error"),
        (b"", "empty.jpg", "image/jpeg", False, 400, "rest_upload_no_data"),
        (None, None, None, False, 400, "rest_upload_no_data"),
    ],
)
def test_refused_uploads_leave_nothing_behind(app, client, admin, data, name, content_type, multipart, status, code):
    before_files, before_rows = stored_files(app), attachment_count(client, admin)
    if multipart:
        response = form_upload(client, admin, data, name)
    elif data is None:
        response = client.post(MEDIA, user=admin, body=b"", headers={"Content-Type": "image/jpeg"})
    else:
        response = raw_upload(client, admin, data, name, content_type)
    assert response.status_code == status, response.json
    assert response.json["code"] == code and response.json["data"]["status"] == status
    assert stored_files(app) == before_files and attachment_count(client, admin) == before_rows


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Content-Type": "image/jpeg"}, 400, "rest_upload_no_content_disposition"),
        ({"Content-Disposition": "attachment; filename=a.jpg"}, 400, "rest_upload_no_content_type"),
        ({"Content-Type": "image/jpeg", "Content-Disposition": "attachment"}, 400, "rest_upload_invalid_disposition"),
        ({"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=a.jpg", "Content-MD5": "0" * 32}, 412,
         "rest_upload_hash_mismatch"),
    ],
)
def test_raw_upload_header_errors(app, client, admin, headers, status, code):
    response = client.post(MEDIA, user=admin, body=image_bytes(), headers=headers)
    assert response.status_code == status and response.json["code"] == code
    assert stored_files(app) == []


def test_a_matching_md5_and_a_traversal_name(app, client, admin):
    data = image_bytes()
    response = raw_upload(client, admin, data, '"../../../etc/cron.d/evil.jpg"', **{"Content-MD5": hashlib.md5(data).hexdigest()})
    assert response.status_code == 201, response.json
    assert response.json["media_details"]["file"].endswith("/evil.jpg")
    assert all(".." not in path and not path.startswith("/") for path in stored_files(app))


def test_who_may_upload(client, accounts):
    assert raw_upload(client, accounts["contributor"], image_bytes(), "a.jpg").status_code == 403
    assert raw_upload(client, accounts["contributor"], image_bytes(), "a.jpg").json["code"] == "rest_cannot_create"
    assert raw_upload(client, None, image_bytes(), "a.jpg").status_code == 401


def test_parent_rules(client, accounts, admin):
    others = client.post("/cms/v2/posts", user=admin, json={"title": "Admin's", "status": "publish"}).json
    refused = client.post(MEDIA, user=accounts["author"], body=image_bytes(), params={"post": others["id"]},
                          headers={"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=a.jpg"})
    assert refused.status_code == 403 and refused.json["code"] == "rest_cannot_edit"
    first = raw_upload(client, admin, image_bytes(), "first.jpg").json
    wrong = client.post(MEDIA, user=admin, body=image_bytes(), params={"post": first["id"]},
                        headers={"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=b.jpg"})
    assert wrong.status_code == 400 and wrong.json["code"] == "rest_invalid_param"
    attached = client.post(MEDIA, user=admin, body=image_bytes(), params={"post": others["id"]},
                           headers={"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=c.jpg"}).json
    assert attached["post"] == others["id"]
    assert attached["_links"]["wp:attached-to"][0]["id"] == others["id"]
    listed = client.get(MEDIA, params={"parent": others["id"]}).json
    assert [item["id"] for item in listed] == [attached["id"]]
    assert [item["id"] for item in client.get(MEDIA, params={"parent": 0}).json] == [first["id"]]


def test_listing_filters_and_visibility(client, admin):
    png = raw_upload(client, admin, image_bytes("PNG"), "a.png", "image/png").json
    jpg = raw_upload(client, admin, image_bytes("JPEG"), "b.jpg").json
    pdf = raw_upload(client, admin, b"%PDF-1.4\n%%EOF\n", "c.pdf", "application/pdf").json
    draft = client.post("/cms/v2/posts", user=admin, json={"title": "Secret", "status": "draft"}).json
    hidden = client.post(MEDIA, user=admin, body=image_bytes(), params={"post": draft["id"]},
                         headers={"Content-Type": "image/jpeg", "Content-Disposition": "attachment; filename=d.jpg"}).json
    visitor = {item["id"] for item in client.get(MEDIA).json}
    assert visitor == {png["id"], jpg["id"], pdf["id"]}  # the draft's attachment is not readable
    assert client.get(f"{MEDIA}/{hidden['id']}").status_code == 401
    assert {item["id"] for item in client.get(MEDIA, params={"media_type": "image"}).json} == {png["id"], jpg["id"]}
    assert [item["id"] for item in client.get(MEDIA, params={"mime_type": "image/png"}).json] == [png["id"]]
    wrong = client.get(MEDIA, params={"status": "publish"})
    assert wrong.status_code == 400 and wrong.json["code"] == "rest_invalid_param"
    assert client.get(MEDIA, params={"media_type": "spreadsheet"}).status_code == 400
    view = client.get(f"{MEDIA}/{png['id']}").json
    assert "password" not in view and view["alt_text"] == "" and "raw" not in view["caption"]
    embed = client.get(f"{MEDIA}/{png['id']}", params={"context": "embed"}).json
    assert "alt_text" in embed and "source_url" in embed


def test_update_and_delete(app, client, accounts, admin):
    created = raw_upload(client, accounts["author"], image_bytes(), "pic.jpg").json
    updated = client.put(f"{MEDIA}/{created['id']}", user=accounts["editor"],
                         json={"alt_text": "New alt", "caption": {"raw": "Cap"}, "description": "Desc", "title": "Renamed"})
    assert updated.status_code == 200, updated.json
    assert (updated.json["alt_text"], updated.json["caption"]["raw"], updated.json["description"]["raw"]) == ("New alt", "Cap", "Desc")
    assert "<p>Cap</p>" in updated.json["caption"]["rendered"]
    files_before = stored_files(app)
    assert len(files_before) >= 3  # the file and its sub-sizes
    soft = client.delete(f"{MEDIA}/{created['id']}", user=admin)
    assert soft.status_code == 501 and soft.json["code"] == "rest_trash_not_supported"
    assert stored_files(app) == files_before
    gone = client.delete(f"{MEDIA}/{created['id']}", user=admin, params={"force": "true"})
    assert gone.status_code == 200 and gone.json["deleted"] is True and gone.json["previous"]["id"] == created["id"]
    assert stored_files(app) == []
    assert client.get(f"{MEDIA}/{created['id']}", user=admin).status_code == 404


def test_media_is_not_batch_enabled(client):
    route = client.get("/cms/v2").json["routes"]["/cms/v2/media"]
    assert "allow_batch" not in route
    assert client.get("/").json["routes"]["/cms/v2/media/(?P<id>[\\d]+)"]["methods"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]


def test_post_process_makes_the_missing_sizes(app, client, accounts):
    author = accounts["author"]
    created = raw_upload(client, author, image_bytes(size=(1200, 900)), "wide.jpg").json
    assert created["missing_image_sizes"] == []
    # Lose two sizes, as an upload cut short would (the reference's post-process exists for that).
    with app.site.write() as conn:
        item = item_service.get_item(conn, created["id"])
        metadata = dict(item.meta[METADATA_KEY])
        lost = {name: metadata["sizes"].pop(name) for name in ("thumbnail", "large")}
        item_service.update_item(conn, context(app), item, item_service.ItemChanges(protected_meta={METADATA_KEY: metadata}))
    for size in lost.values():
        app.site.storage.delete(created["media_details"]["file"].rsplit("/", 1)[0] + "/" + size["file"])
    missing = client.get(f"{MEDIA}/{created['id']}", user=author, params={"context": "edit"}).json["missing_image_sizes"]
    assert sorted(missing) == ["large", "thumbnail"]
    assert client.post(f"{MEDIA}/{created['id']}/post-process", user=author).json["code"] == "rest_missing_callback_param"
    assert client.post(f"{MEDIA}/{created['id']}/post-process", user=author, json={"action": "x"}).json["code"] == "rest_invalid_param"
    done = client.post(f"{MEDIA}/{created['id']}/post-process", user=author, json={"action": "create-image-subsizes"})
    assert done.status_code == 200, done.json
    assert done.json["missing_image_sizes"] == [] and {"thumbnail", "large"} <= set(done.json["media_details"]["sizes"])
    thumb = download(app, client, done.json["media_details"]["sizes"]["thumbnail"]["source_url"])
    assert Image.open(io.BytesIO(thumb)).size == (150, 150)
    assert client.post(f"{MEDIA}/{created['id']}/post-process", user=accounts["contributor"],
                       json={"action": "create-image-subsizes"}).status_code == 403


# -- edit -----------------------------------------------------------------------------------------


def quadrants(size: tuple[int, int] = (200, 100)) -> bytes:
    """A PNG whose left half is red and right half blue: rotations, flips and crops show."""
    image = Image.new("RGB", size, "red")
    image.paste(Image.new("RGB", (size[0] // 2, size[1]), "blue"), (size[0] // 2, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def opened(app, client, url: str) -> Image.Image:
    return Image.open(io.BytesIO(download(app, client, url))).convert("RGB")


def test_edit_rotates_into_a_new_attachment(app, client, admin):
    original = raw_upload(client, admin, quadrants(), "rec.png", "image/png", **{}).json
    client.put(f"{MEDIA}/{original['id']}", user=admin, json={"alt_text": "Two colours", "caption": "Cap"})
    response = client.post(f"{MEDIA}/{original['id']}/edit", user=admin,
                           json={"src": original["source_url"], "modifiers": [{"type": "rotate", "args": {"angle": 90}}]})
    assert response.status_code == 201, response.json
    edited = response.json
    assert edited["id"] != original["id"] and response.headers["location"].endswith(f"{MEDIA}/{edited['id']}")
    assert response.headers["x-wp-upload-attachment-id"] == str(edited["id"])
    assert edited["source_url"].endswith("rec-edited.png") and edited["title"]["rendered"] == "rec"
    assert edited["alt_text"] == "Two colours" and edited["post"] is None
    image = opened(app, client, edited["source_url"])
    assert image.size == (100, 200)
    assert image.getpixel((50, 10)) == (255, 0, 0) and image.getpixel((50, 190)) == (0, 0, 255)  # clockwise: left half on top
    assert opened(app, client, original["source_url"]).size == (200, 100)  # the original is unchanged
    with app.site.read() as conn:
        stored = item_service.get_item(conn, edited["id"]).meta[METADATA_KEY]
    assert stored["parent_image"] == {"attachment_id": original["id"], "file": original["media_details"]["file"]}
    again = client.post(f"{MEDIA}/{edited['id']}/edit", user=admin,
                        json={"src": edited["source_url"], "modifiers": [{"type": "flip", "args": {"flip": {"horizontal": True}}}]})
    assert again.status_code == 201 and again.json["source_url"].endswith("rec-edited-1.png")


def test_edit_crops_and_flips(app, client, admin):
    original = raw_upload(client, admin, quadrants(), "pair.png", "image/png").json
    cropped = client.post(f"{MEDIA}/{original['id']}/edit", user=admin, json={
        "src": original["source_url"], "modifiers": [
            {"type": "flip", "args": {"flip": {"horizontal": True, "vertical": False}}},
            {"type": "crop", "args": {"left": 0, "top": 0, "width": 50, "height": 100}},
        ]})
    assert cropped.status_code == 201, cropped.json
    image = opened(app, client, cropped.json["source_url"])
    assert image.size == (100, 100) and image.getpixel((50, 50)) == (0, 0, 255)  # flipped: blue came left
    deprecated = client.post(f"{MEDIA}/{original['id']}/edit", user=admin,
                             json={"src": original["source_url"], "x": 50, "y": 0, "width": 50, "height": 50})
    assert deprecated.status_code == 201 and opened(app, client, deprecated.json["source_url"]).size == (100, 50)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "rest_image_not_edited"),
        ({"modifiers": [{"type": "rotate", "args": {"angle": 0}}]}, 400, "rest_image_not_edited"),
        ({"modifiers": [{"type": "rotate", "args": {"angle": 360}}]}, 400, "rest_image_not_edited"),
        ({"modifiers": [{"type": "crop", "args": {"left": 0, "top": 0, "width": 100, "height": 100}}]}, 400, "rest_image_not_edited"),
        ({"modifiers": [{"type": "crop", "args": {"left": 80, "top": 0, "width": 50, "height": 50}}]}, 400, "rest_image_crop_failed"),
        ({"modifiers": [{"type": "crop", "args": {"left": -5, "top": 0, "width": 50, "height": 50}}]}, 400, "rest_image_crop_failed"),
        ({"modifiers": [{"type": "stretch", "args": {}}]}, 400, "rest_invalid_param"),
        ({"modifiers": []}, 400, "rest_invalid_param"),
        ({"rotation": 360}, 400, "rest_invalid_param"),
        ({"src": "http://example.test/wp-content/uploads/elsewhere.png", "modifiers": [{"type": "rotate", "args": {"angle": 90}}]},
         404, "rest_unknown_attachment"),
    ],
)
def test_edit_errors_leave_nothing_behind(app, client, admin, body, status, code):
    original = raw_upload(client, admin, quadrants(), "err.png", "image/png").json
    before_files, before_rows = stored_files(app), attachment_count(client, admin)
    response = client.post(f"{MEDIA}/{original['id']}/edit", user=admin, json={"src": original["source_url"], **body})
    assert response.status_code == status, response.json
    assert response.json["code"] == code
    assert stored_files(app) == before_files and attachment_count(client, admin) == before_rows


def test_edit_of_a_non_image_and_permissions(client, accounts, admin):
    pdf = raw_upload(client, admin, b"%PDF-1.4\n%%EOF\n", "doc.pdf", "application/pdf").json
    response = client.post(f"{MEDIA}/{pdf['id']}/edit", user=admin,
                           json={"src": pdf["source_url"], "modifiers": [{"type": "rotate", "args": {"angle": 90}}]})
    assert response.status_code == 400 and response.json["code"] == "rest_cannot_edit_file_type"
    image = raw_upload(client, admin, quadrants(), "own.png", "image/png").json
    body = {"src": image["source_url"], "modifiers": [{"type": "rotate", "args": {"angle": 90}}]}
    assert client.post(f"{MEDIA}/{image['id']}/edit", user=accounts["contributor"], json=body).json["code"] == "rest_cannot_edit_image"
    assert client.post(f"{MEDIA}/{image['id']}/edit", user=accounts["author"], json=body).json["code"] == "rest_cannot_edit"


# -- large uploads --------------------------------------------------------------------------------


def mp4_bytes(size: int) -> bytes:
    """An MP4-looking file (its ftyp box, then filler) of ``size`` bytes."""
    head = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    return head + bytes(range(256)) * ((size - len(head)) // 256 + 1)


def test_a_large_raw_upload_is_spooled_and_stored_whole(app, client, admin):
    data = mp4_bytes(3 * 1024 * 1024)[: 3 * 1024 * 1024]
    response = raw_upload(client, admin, data, "clip.mp4", "video/mp4",
                          **{"Content-MD5": hashlib.md5(data).hexdigest()})
    assert response.status_code == 201, response.json
    assert (response.json["media_type"], response.json["mime_type"]) == ("file", "video/mp4")
    assert response.json["media_details"]["filesize"] == len(data)
    assert download(app, client, response.json["source_url"]) == data
    form = form_upload(client, admin, data, "second.mp4")
    assert form.status_code == 201 and form.json["media_details"]["filesize"] == len(data)


def test_the_upload_limit_is_a_clear_413(app, client, admin, monkeypatch):
    monkeypatch.setattr(app, "settings", app.settings.with_overrides(max_upload=2 * 1024 * 1024))
    response = raw_upload(client, admin, mp4_bytes(3 * 1024 * 1024), "big.mp4", "video/mp4")
    assert response.status_code == 413 and response.json["code"] == "rest_request_too_large"
    assert "2,097,152" in response.json["message"]
    assert stored_files(app) == []
    # JSON bodies keep their own, smaller limit
    assert client.post("/cms/v2/posts", user=admin, body=b"{" + b" " * (9 * 1024 * 1024) + b"}",
                       headers={"Content-Type": "application/json"}).status_code == 413


def bomb_png() -> bytes:
    """A small PNG whose header declares 40000 x 40000 pixels (a decompression bomb)."""
    import struct
    import zlib

    data = image_bytes("PNG", (8, 8))
    ihdr = struct.pack(">IIBBBBB", 40000, 40000, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    patched = data[:8] + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk) & 0xFFFFFFFF)
    return patched + data[8 + 4 + 4 + 13 + 4:]


def test_a_decompression_bomb_and_a_form_without_a_file_are_clear_400s(app, client, admin):
    before = attachment_count(client, admin)
    bomb = raw_upload(client, admin, bomb_png(), "bomb.png", "image/png")
    assert bomb.status_code == 400, bomb.json
    assert bomb.json["data"]["status"] == 400 and "too large to process" in bomb.json["message"]
    boundary = "NoFileBoundary"
    body = f'--{boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nJust a title\r\n--{boundary}--\r\n'.encode()
    no_file = client.post(MEDIA, user=admin, body=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert no_file.status_code == 400 and no_file.json["code"] == "rest_upload_no_data"
    assert stored_files(app) == [] and attachment_count(client, admin) == before


def test_the_site_may_allow_more_types_but_never_active_content(app, client, admin):
    from cal_support import set_option

    data = b"SURVEY\x00\x01\x02 binary survey records"
    assert raw_upload(client, admin, data, "results.srv", "application/x-survey").status_code == 400
    set_option(app, "upload_extra_types", "srv:application/x-survey, svg:image/svg+xml")
    allowed = raw_upload(client, admin, data, "results.srv", "application/x-survey")
    assert allowed.status_code == 201, allowed.json
    assert allowed.json["mime_type"] == "application/x-survey"
    svg = raw_upload(client, admin, b"<svg xmlns='http://www.w3.org/2000/svg'/>", "logo.svg", "image/svg+xml")
    assert svg.status_code == 400 and svg.json["code"] == "rest_upload_sideload_error"


def test_an_image_given_by_the_address_of_a_stored_file_is_that_attachment(app, client, admin):
    """A venue's ``image`` given as the address of a file the site stores (the scaled full size,
    the original upload, a sub-size) is that attachment, on either storage: nothing is
    downloaded or stored again."""
    big = raw_upload(client, admin, image_bytes(size=(3000, 2000)), "huge.jpg").json
    assert big["source_url"].endswith("/huge-scaled.jpg")
    files = stored_files(app)
    addresses = [big["source_url"], big["source_url"].replace("-scaled", ""),
                 big["media_details"]["sizes"]["thumbnail"]["source_url"], big["source_url"] + "?ver=2"]
    for number, url in enumerate(addresses):
        response = client.post("/cal/events/v1/venues", user=admin, json={"venue": f"Hall {number}", "image": url})
        assert response.status_code == 201, response.json
        assert response.json["image"]["id"] == big["id"], url
    assert attachment_count(client, admin) == 1 and stored_files(app) == files
    unknown = big["source_url"].replace("huge-scaled", "never-uploaded")
    refused = client.post("/cal/events/v1/venues", user=admin, json={"venue": "Hall x", "image": unknown})
    # Not a stored file: fetched as any address would be, and nothing is there to fetch.
    assert refused.status_code == 400 and refused.json["code"] == "rest_invalid_param", refused.json
    assert attachment_count(client, admin) == 1


def test_meta_featured_media_and_exif_orientation(app, client, admin):
    """The reference's fixed attachment schema: ``meta`` and ``featured_media`` on every media
    item, ``exif_orientation`` on images; only audio and video files may have a featured image."""
    photo = raw_upload(client, admin, image_bytes(), "photo.jpg").json
    assert photo["featured_media"] == 0 and isinstance(photo["meta"], dict)
    assert photo["exif_orientation"] == 1
    schema = client.request("OPTIONS", MEDIA).json["schema"]["properties"]
    assert {"meta", "featured_media", "exif_orientation"} <= set(schema)
    assert client.get(f"{MEDIA}/{photo['id']}").json["exif_orientation"] == 1

    files, rows = stored_files(app), attachment_count(client, admin)
    refused = form_upload(client, admin, image_bytes(), "poster.jpg", {"featured_media": str(photo["id"])})
    assert refused.status_code == 400 and refused.json["code"] == "rest_no_featured_media", refused.json
    assert refused.json["message"] == "This site does not support post thumbnails on attachments with MIME type image/jpeg."
    assert stored_files(app) == files and attachment_count(client, admin) == rows
    update = client.post(f"{MEDIA}/{photo['id']}", user=admin, json={"featured_media": 0})
    assert update.status_code == 400 and update.json["code"] == "rest_no_featured_media"

    clip = form_upload(client, admin, mp4_bytes(4096), "clip.mp4", {"featured_media": str(photo["id"])})
    assert clip.status_code == 201, clip.json
    assert clip.json["featured_media"] == photo["id"] and "exif_orientation" not in clip.json
    assert clip.json["_links"]["wp:featuredmedia"][0]["href"].endswith(f"{MEDIA}/{photo['id']}")
    unset = client.post(f"{MEDIA}/{clip.json['id']}", user=admin, json={"featured_media": 0})
    assert unset.status_code == 200 and unset.json["featured_media"] == 0
    wrong = client.post(f"{MEDIA}/{clip.json['id']}", user=admin, json={"featured_media": 999999})
    assert wrong.status_code == 400 and wrong.json["code"] == "rest_invalid_featured_media"


def test_the_link_of_an_unattached_file_is_its_page(app, client, admin):
    """As the reference's get_attachment_link: /{name}/ under pretty permalinks for a file of no
    post, and that address answers the attachment's page; an attached file keeps ?attachment_id=."""
    from cal_support import set_option

    set_option(app, "permalink_structure", "/%postname%/")
    loose = raw_upload(client, admin, image_bytes(), "harbour.jpg").json
    assert loose["link"] == "http://example.test/harbour/"
    page = client.get("/harbour/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert loose["source_url"] in page.text
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Trip", "status": "publish"}).json
    attached = form_upload(client, admin, image_bytes(), "deck.jpg", {"post": str(post["id"])}).json
    assert attached["link"] == f"http://example.test/?attachment_id={attached['id']}"
    assert client.get("/", params={"attachment_id": attached["id"]}).status_code == 200
    # Pages and files share their names (the reference's unique slugs): a page cannot take it.
    page = client.post("/cms/v2/pages", user=admin, json={"title": "Harbour", "slug": "harbour", "status": "publish"}).json
    assert page["slug"] == "harbour-2" and page["link"] == "http://example.test/harbour-2/"
    assert loose["source_url"] in client.get("/harbour/").text
    assert loose["source_url"] not in client.get("/harbour-2/").text
    set_option(app, "permalink_structure", "")
    assert client.get(f"{MEDIA}/{loose['id']}").json["link"] == f"http://example.test/?attachment_id={loose['id']}"


@pytest.mark.parametrize("name", ["фото.png", "写真.png", "😀 party.png", "café.png"])
def test_file_names_outside_latin_1_upload(client, admin, name):
    """Browsers send a form's file name as UTF-8 between quotes; such names were a 500, anonymously too,
    since the body is read before authentication."""
    anonymous = form_upload(client, None, image_bytes("PNG"), name)
    assert anonymous.status_code == 401 and anonymous.json["code"] == "rest_cannot_create"
    response = form_upload(client, admin, image_bytes("PNG"), name)
    assert response.status_code == 201, response.json
    stem = name.rsplit(".", 1)[0]
    assert response.json["title"]["raw"] == stem
    assert response.json["mime_type"] == "image/png"


def square_png(side: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (side, side), (200, 30, 30)).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("modifiers", "needle"),
    [
        # Each 45-degree turn doubles a square's pixels: eight make 256 times as many (a 5 KB PNG took
        # 38 s and 1.7 GB before it was refused after the work).
        ([{"type": "rotate", "args": {"angle": 45}}] * 8, "modifiers[5] would make the image larger"),
        ([{"type": "rotate", "args": {"angle": 45}}] * 3 + [{"type": "crop", "args": {"left": 0, "top": 0, "width": 10, "height": 10}}]
         + [{"type": "rotate", "args": {"angle": 45}}] * 8, "no more than"),
        ([{"type": "flip", "args": {"flip": {"horizontal": True}}}] * 11, "no more than"),
    ],
)
def test_an_edit_whose_cost_is_unbounded_is_refused_before_any_work(app, client, admin, monkeypatch, modifiers, needle):
    from calpress.media import editing

    data = square_png(1000)  # a million pixels in a few KB
    assert len(data) < 10_000
    original = raw_upload(client, admin, data, "square.png", "image/png").json
    before_files, before_rows = stored_files(app), attachment_count(client, admin)
    monkeypatch.setattr(editing.Image.Image, "rotate", lambda *a, **k: pytest.fail("rotated before the cost was checked"))
    response = client.post(f"{MEDIA}/{original['id']}/edit", user=admin, json={"src": original["source_url"], "modifiers": modifiers})
    assert response.status_code == 400, response.json
    assert response.json["code"] == "rest_invalid_param" and needle in response.json["data"]["params"]["modifiers"]
    assert stored_files(app) == before_files and attachment_count(client, admin) == before_rows


def test_an_edit_within_the_bounds_still_turns_by_any_angle(app, client, admin):
    from calpress.media import editing

    original = raw_upload(client, admin, square_png(300), "turn.png", "image/png").json
    modifiers = [{"type": "rotate", "args": {"angle": 45}}] * 3 + [{"type": "flip", "args": {"flip": {"vertical": True}}}]
    response = client.post(f"{MEDIA}/{original['id']}/edit", user=admin, json={"src": original["source_url"], "modifiers": modifiers})
    assert response.status_code == 201, response.json
    width, height = opened(app, client, response.json["source_url"]).size
    assert 300 * 2 ** 1.5 <= width <= 300 * 2 ** 1.5 + 12 and width == height
    assert editing.check_cost((300, 300), modifiers)[0] >= width  # the estimate never undershoots Pillow
