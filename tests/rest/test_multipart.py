"""multipart/form-data bodies (rest/multipart.py): fields become parameters as a form-encoded
body's do, files reach ``request.files`` spooled to temporary files, and every malformed or
oversized body is a clear error; through the app, and through a real server process."""

from __future__ import annotations

import io
import shutil
import subprocess

import httpx
import pytest

from calpress.rest import multipart
from calpress.rest.errors import RestError
from calpress.rest.request import RestRequest, read_chunks

BOUNDARY = "XyZ0123456789boundary"
TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def body(*parts: tuple[str, str | bytes, str | None, str | None], boundary: str = BOUNDARY, end: bool = True) -> bytes:
    """Parts as (name, value, filename, content type)."""
    out = b""
    for name, value, filename, content_type in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename is not None else "")
        out += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n".encode()
        if content_type:
            out += f"Content-Type: {content_type}\r\n".encode()
        out += b"\r\n" + (value.encode() if isinstance(value, str) else value) + b"\r\n"
    if end:
        out += f"--{boundary}--\r\n".encode()
    return out


def too_large(limit: int) -> RestError:
    return RestError("rest_request_too_large", "too large", status=413)


def parse(raw: bytes, content_type: str = TYPE, limit: int = 10**9, length: int | None = -1) -> multipart.Form:
    chunks = read_chunks(io.BytesIO(raw), len(raw) if length == -1 else length, limit, too_large)
    return multipart.read_form(chunks, content_type)


def test_fields_and_files():
    payload = bytes(range(256)) * 8000  # 2 MB: spooled to disk
    form = parse(body(("title", "Hello", None, None), ("tags[]", "3", None, None), ("tags[]", "5", None, None),
                      ("meta[color]", "blue", None, None), ("file", payload, "photo.jpg", "image/jpeg"),
                      ("note", "héllo wörld", None, None)))
    request = RestRequest("POST", "/x", headers={"content_type": TYPE})
    request.attach_form(form)
    assert request.body == {"title": "Hello", "tags": ["3", "5"], "meta": {"color": "blue"}, "note": "héllo wörld"}
    upload = request.files["file"][0]
    assert (upload.field, upload.filename, upload.content_type, upload.size) == ("file", "photo.jpg", "image/jpeg", len(payload))
    assert upload.read() == payload
    assert upload.file._rolled  # on disk, not in memory
    form.close()
    assert upload.file.closed


def test_a_chunked_body_without_length():
    form = parse(body(("title", "Chunked", None, None)), length=None)
    assert form.fields == [("title", "Chunked")]


@pytest.mark.parametrize(
    ("raw", "content_type", "message"),
    [
        (body(("title", "x", None, None)), "multipart/form-data", "boundary"),
        (b"not a multipart body at all", TYPE, "multipart"),
        (body(("title", "x", None, None), end=False)[:-10], TYPE, "multipart"),
        (f"--{BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--{BOUNDARY}--\r\n".encode(), TYPE, "name"),
        (body(*[(f"f{n}", "x", None, None) for n in range(multipart.MAX_PARTS + 1)]), TYPE, "parts"),
        (body(("big", "x" * (multipart.MAX_FIELD_BYTES + 1), None, None)), TYPE, "bytes at most"),
    ],
)
def test_broken_bodies_are_a_400(raw, content_type, message):
    with pytest.raises(RestError) as raised:
        parse(raw, content_type)
    assert raised.value.code == "rest_invalid_multipart" and raised.value.status == 400
    assert message in raised.value.message


def test_the_limit_stops_reading():
    stream = io.BytesIO(body(("file", b"x" * 500_000, "a.bin", None)))
    with pytest.raises(RestError) as raised:
        multipart.read_form(read_chunks(stream, None, 100_000, too_large), TYPE)
    assert raised.value.status == 413
    assert stream.tell() < 200_000  # the rest was never read


# -- through the app ------------------------------------------------------------------------------


def test_a_post_created_from_a_multipart_form(client, admin):
    response = client.post("/cms/v2/posts", user=admin, body=body(("title", "Hello", None, None), ("status", "draft", None, None),
                                                                   ("content", "<p>From a form</p>", None, None)),
                           headers={"Content-Type": TYPE})
    assert response.status_code == 201, response.json
    assert response.json["title"]["raw"] == "Hello" and response.json["status"] == "draft"
    assert "From a form" in response.json["content"]["raw"]


def test_a_broken_multipart_body_is_a_400_in_the_error_shape(client, admin):
    response = client.post("/cms/v2/posts", user=admin, body=b"garbage", headers={"Content-Type": TYPE})
    assert response.status_code == 400
    assert response.json == {"code": "rest_invalid_multipart", "message": "The multipart body could not be read.", "data": {"status": 400}}


def test_an_anonymous_large_form_is_refused_before_reading(client):
    response = client.post("/cms/v2/comments", body=body(("content", "x" * (2 * 1024 * 1024), None, None)), headers={"Content-Type": TYPE})
    assert response.status_code == 413


@pytest.mark.e2e
@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_curl_and_httpx_forms_against_a_real_server(live_server):
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
    password = live_server.cli("user", "application-password", "create", "admin", "forms", "--porcelain").strip()
    created = httpx.post(live_server.url + "/wp-json/cms/v2/posts", auth=("admin", password),
                         data={"title": "Via httpx", "status": "draft"}, files={"attachment": ("notes.txt", b"hello", "text/plain")})
    assert created.status_code == 201, created.text
    assert created.json()["title"]["raw"] == "Via httpx"
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    done = subprocess.run(["curl", "-s", "-u", f"admin:{password}", "-F", "title=Hello", "-F", "status=draft",
                           live_server.url + "/cms/v2/posts"], capture_output=True, text=True, timeout=30)
    assert '"raw":"Hello"' in done.stdout and '"status":"draft"' in done.stdout, done.stdout[:300]
