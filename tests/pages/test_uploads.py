"""The uploads page (calpress/pages/uploads.py): stored files served through the site's storage,
and nothing else."""

from __future__ import annotations

import io
import os

import pytest
from content_support import context
from PIL import Image

from calpress.media import attachments
from calpress.media.storage import InvalidKey, Storage

PREFIX = "/wp-content/uploads/"


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "purple").save(buffer, format="PNG")
    return buffer.getvalue()


def upload(app, data: bytes, name: str = "poster.png") -> str:
    """Store an image as an attachment; its address below the uploads prefix (its key, as a URL
    path encodes it)."""
    with app.site.write() as conn:
        attachment_id = attachments.create_attachment(conn, context(app), None, data, name)
    with app.site.read() as conn:
        return attachments.image_objects(conn, "http://example.test", [attachment_id])[attachment_id]["url"].split(PREFIX)[1]


def test_get_and_head(app, client):
    data = png(200, 100)
    key = upload(app, data)
    got = client.get(PREFIX + key)
    assert got.status_code == 200 and got.content == data
    assert got.headers["content-type"] == "image/png" and got.headers["cache-control"] == "max-age=31536000"
    assert got.headers["content-length"] == str(len(data))
    head = client.request("HEAD", PREFIX + key)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "image/png" and head.headers["content-length"] == str(len(data))
    assert head.headers["cache-control"] == "max-age=31536000"
    app.site.storage.put("notes/readme.weird-extension", b"x")
    assert client.get(PREFIX + "notes/readme.weird-extension").headers["content-type"] == "application/octet-stream"


def test_names_in_other_scripts_are_reachable(app, client):
    # The slug of "日本" keeps the percent-encoded UTF-8 (the reference's sanitize_title), so the
    # key holds "%": its address encodes it, and the page finds the key again.
    data = png(30, 30)
    address = upload(app, data, "日本.png")
    assert address.endswith("/%25e6%2597%25a5%25e6%259c%25ac.png")
    got = client.get(PREFIX + address)
    assert got.status_code == 200 and got.content == data


def test_nothing_but_stored_files(app, client, tmp_path):
    key = upload(app, png(20, 20))
    root = app.settings.uploads_dir
    secret = root.parent / "secret.txt"
    secret.write_text("nope")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "other.txt").write_text("nope")
    os.symlink(secret, root / "linked-secret.txt")
    os.symlink(outside, root / "linked-folder")
    folder = key.rsplit("/", 1)[0]
    paths = [
        "missing.png", f"{folder}/missing.png", folder, folder + "/", "", "../secret.txt", "%2e%2e/secret.txt",
        "..%2fsecret.txt", "%2e%2e%2fsecret.txt", "2020/../../secret.txt", f"{folder}/../../../secret.txt",
        "..%5csecret.txt", "%5c..%5csecret.txt", f"{folder}%5c..%5c..%5c..%5csecret.txt", f"{key}%00",
        f"{key}%00.txt", "%00", "/etc/passwd", "/" + str(secret).lstrip("/"), "linked-secret.txt",
        "linked-folder/other.txt", "./" + key, folder + "//" + key.rsplit("/", 1)[1],
    ]
    for path in paths:
        for method in ("GET", "HEAD"):
            response = client.request(method, PREFIX + path)
            assert response.status_code == 404, (method, path)
            assert b"nope" not in response.content
    assert client.get("/wp-content/uploads").status_code == 404
    assert client.get("/wp-content/uploadsfoo/" + key).status_code == 404
    assert client.get(PREFIX + key).status_code == 200


class RefusingStorage(Storage):
    """A storage whose every read fails as the contract allows: missing or refused."""

    def put(self, key, data, *, overwrite=True):
        raise InvalidKey(key)

    def open(self, key):
        raise FileNotFoundError(key) if key.endswith(".png") else InvalidKey(key)

    def delete(self, key):
        pass

    def url(self, key):
        return "/wp-content/uploads/" + key

    def size(self, key):
        raise FileNotFoundError(key) if key.endswith(".png") else InvalidKey(key)


@pytest.mark.parametrize("path", ["a.png", "a.txt"])
def test_storage_errors_are_404(app, client, path):
    app.site.storage = RefusingStorage()
    assert client.get(PREFIX + path).status_code == 404
    assert client.request("HEAD", PREFIX + path).status_code == 404


# -- caching, ranges and active content -----------------------------------------------------------


def test_etag_and_if_none_match(app, client):
    key = upload(app, png(40, 30))
    first = client.get(PREFIX + key)
    etag = first.headers["etag"]
    assert etag.startswith('"') and first.headers["x-content-type-options"] == "nosniff"
    assert first.headers["accept-ranges"] == "bytes"
    again = client.get(PREFIX + key, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get(PREFIX + key, headers={"If-None-Match": '"other"'}).status_code == 200
    assert client.request("HEAD", PREFIX + key, headers={"If-None-Match": f'W/{etag}'}).status_code == 304
    app.site.storage.put("notes/other.bin", b"y" * 10)
    assert client.get(PREFIX + "notes/other.bin").headers["etag"] != etag


@pytest.mark.parametrize(
    ("header", "status", "content_range", "part"),
    [
        ("bytes=0-9", 206, "bytes 0-9/100", slice(0, 10)),
        ("bytes=90-", 206, "bytes 90-99/100", slice(90, 100)),
        ("bytes=-5", 206, "bytes 95-99/100", slice(95, 100)),
        ("bytes=95-500", 206, "bytes 95-99/100", slice(95, 100)),
        ("bytes=100-", 416, "bytes */100", slice(0, 0)),
        ("bytes=20-10", 416, "bytes */100", slice(0, 0)),
        ("bytes=0-1,5-6", 200, None, slice(0, 100)),
        ("items=0-1", 200, None, slice(0, 100)),
    ],
)
def test_ranges(app, client, header, status, content_range, part):
    data = bytes(range(100))
    app.site.storage.put("media/clip.mp4", data)
    response = client.get(PREFIX + "media/clip.mp4", headers={"Range": header})
    assert response.status_code == status
    assert response.headers.get("content-range") == content_range
    assert response.content == data[part]
    assert response.headers["content-length"] == str(len(data[part]))


@pytest.mark.parametrize("name", ["page.html", "drawing.svg", "feed.xml", "app.js", "page.xhtml"])
def test_active_content_is_a_sandboxed_download(app, client, name):
    app.site.storage.put(f"files/{name}", b"<script>alert(1)</script>")
    response = client.get(PREFIX + f"files/{name}")
    assert response.status_code == 200
    assert response.headers["content-disposition"] == "attachment"
    assert "sandbox" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    image = client.get(PREFIX + upload(app, png(10, 10)))
    assert "content-disposition" not in image.headers
