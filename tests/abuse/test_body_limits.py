"""Request bodies: refused from Content-Length before a byte is read, read a slice at a time up to
the limit otherwise, and large bodies read only once the sender's credentials passed (issue 9, #7)."""

from __future__ import annotations

import base64
import io

import orjson

MB = 1024 * 1024


class Tracked(io.BytesIO):
    """A request body stream that remembers how much of it was read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.taken = 0

    def read(self, size: int | None = -1) -> bytes:
        part = super().read(size)
        self.taken += len(part)
        return part


def call(app, body: bytes, *, headers: dict[str, str] | None = None, length: int | None = None, path: str = "/cms/v2/posts"):
    stream = Tracked(body)
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "example.test",
        "SERVER_PORT": "80", "wsgi.url_scheme": "http", "wsgi.input": stream, "HTTP_HOST": "example.test",
        "CONTENT_TYPE": "application/json", "REMOTE_ADDR": "127.0.0.1",
    }
    if length is not None:
        environ["CONTENT_LENGTH"] = str(length)
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    status: list[str] = []
    answer = b"".join(app(environ, lambda line, _headers, _exc=None: status.append(line)))
    return int(status[0].split()[0]), orjson.loads(answer), stream.taken


def post_body(size: int) -> bytes:
    """A JSON post whose content makes the body ``size`` bytes long."""
    head = b'{"title": "Big", "status": "draft", "content": "'
    return head + b"x" * (size - len(head) - 2) + b'"}'


def test_a_body_over_the_limit_is_refused_from_its_length_unread(app, admin):
    body = post_body(9 * MB)
    status, answer, taken = call(app, body, length=len(body), headers=admin.basic)
    assert (status, answer["code"], taken) == (413, "rest_request_too_large", 0)
    assert answer["data"]["status"] == 413


def test_an_anonymous_large_body_is_refused_before_it_is_read(app):
    body = post_body(2 * MB)
    status, answer, taken = call(app, body, length=len(body))
    assert (status, answer["code"], taken) == (413, "rest_request_too_large", 0)
    assert "without credentials" in answer["message"]


def test_a_wrong_password_is_refused_before_a_large_body_is_read(app, admin):
    body = post_body(2 * MB)
    wrong = {"Authorization": "Basic " + base64.b64encode(f"{admin.login}:nope nope nope".encode()).decode()}
    status, answer, taken = call(app, body, length=len(body), headers=wrong)
    assert status == 401 and answer["code"] == "incorrect_password" and taken == 0


def test_an_authenticated_large_body_within_the_limit_is_read_and_stored_once(app, admin):
    body = post_body(2 * MB)
    status, answer, taken = call(app, body, length=len(body), headers=admin.basic)
    assert status == 201 and taken == len(body)
    assert answer["content"]["raw"] == "x" * (len(body) - len(b'{"title": "Big", "status": "draft", "content": "') - 2)


def test_a_chunked_body_is_read_up_to_the_limit_only(app, admin):
    over = post_body(9 * MB)
    status, answer, taken = call(app, over, headers={**admin.basic, "Transfer-Encoding": "chunked"})
    assert status == 413 and answer["code"] == "rest_request_too_large"
    assert taken <= 8 * MB + 64 * 1024  # stopped at the limit, a slice past it at most
    small = orjson.dumps({"title": "Chunked", "status": "draft"})
    status, answer, _ = call(app, small, headers={**admin.basic, "Transfer-Encoding": "chunked"})
    assert status == 201 and answer["title"]["raw"] == "Chunked"


def test_an_anonymous_small_body_still_reaches_its_route(app):
    body = orjson.dumps({"title": "Nope"})
    status, answer, taken = call(app, body, length=len(body))
    assert status == 401 and answer["code"] == "rest_cannot_create" and taken == len(body)


def test_the_limit_is_a_setting(settings, admin):
    from calpress.app import Calpress

    smaller = Calpress(settings.with_overrides(max_body=3 * MB), upgrade=False)
    try:
        body = post_body(4 * MB)
        status, answer, taken = call(smaller, body, length=len(body), headers=admin.basic)
        assert (status, taken) == (413, 0) and "3,145,728 bytes" in answer["message"]
        assert call(smaller, post_body(2 * MB), length=2 * MB, headers=admin.basic)[0] == 201
    finally:
        smaller.site.close()
