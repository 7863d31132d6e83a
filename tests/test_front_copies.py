"""The front's copies of shared answers (front.py, ``AnswerCopies``, issue 35): a GET the app
answered from its answer cache for a requester without credentials is answered again from the
front's copy, byte for byte, until a write moves the content counter or the minute changes; a
request with credentials, a condition, an origin or a range always reaches the app."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

from calpress import front as front_module
from calpress.front import AnswerCopies, Front

POSTS = "/wp-json/cms/v2/posts"


class _Proto:
    def __init__(self) -> None:
        self.answers: list[tuple[int, list[tuple[str, str]], bytes]] = []

    def response_bytes(self, status, headers, body):
        self.answers.append((status, list(headers), body))

    def __aiter__(self):
        return self._parts()

    async def _parts(self):
        return
        yield  # an empty body


class _Counted:
    """The app, counting the requests that reach it."""

    def __init__(self, wsgi) -> None:
        self.wsgi = wsgi
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        return self.wsgi(environ, start_response)


@pytest.fixture()
def clock(monkeypatch):
    """time.time held in the middle of a minute (a test must not cross one unawares); move it
    with ``clock[0] += seconds``."""
    now = [front_module.time.time() // 60 * 60 + 30]
    monkeypatch.setattr(front_module.time, "time", lambda: now[0])
    return now


@pytest.fixture()
def served(app, clock):
    counted = _Counted(app.wsgi)
    front = Front(counted, app.settings, app.reads_only, access_log=app.access_log, copies=AnswerCopies(app.rest.generation))

    def get(path: str = POSTS, query: str = "per_page=5", **headers: str) -> tuple[int, dict[str, str], bytes]:
        scope = SimpleNamespace(proto="http", method="GET", path=path, query_string=query, server="127.0.0.1:8080",
                                client="127.0.0.1:40000", http_version="1.1", scheme="http",
                                headers={name.replace("_", "-").lower(): value for name, value in headers.items()})
        proto = _Proto()
        asyncio.run(front.__rsgi__(scope, proto))
        (status, pairs, body), = proto.answers
        return status, {name.lower(): value for name, value in pairs}, body

    try:
        yield SimpleNamespace(get=get, app=counted)
    finally:
        front.pool.shutdown()


def _publish(client, admin, title: str) -> None:
    assert client.post("/cms/v2/posts", user=admin, json={"title": title, "status": "publish"}).status_code == 201


def test_a_shared_answer_comes_from_its_copy_until_a_write(served, client, admin, caplog):
    _publish(client, admin, "First")
    caplog.set_level(logging.INFO, logger="calpress.access")
    status, headers, body = served.get()
    assert status == 200 and b"First" in body and served.app.calls == 1
    again_status, again_headers, again_body = served.get()
    assert served.app.calls == 1  # answered from the copy
    assert (again_status, again_body) == (status, body)
    assert headers.pop("x-request-id") != again_headers.pop("x-request-id")  # each request its own id
    assert again_headers == headers  # the same X-WP-Total, Link, ETag...
    lines = [record for record in caplog.records if record.name == "calpress.access" and record.getMessage().startswith("GET")]
    assert len(lines) == 2 and lines[0].getMessage() == lines[1].getMessage() == f"GET {POSTS} 200"
    # A write, by any process, moves the counter: the next request reaches the app and sees it.
    _publish(client, admin, "Second")
    status, _, body = served.get()
    assert status == 200 and b"Second" in body and served.app.calls == 2
    served.get()
    assert served.app.calls == 2


@pytest.mark.parametrize("header", [
    {"Cookie": "wordpress_logged_in_x=nobody"},
    {"Origin": "https://elsewhere.example"},
    {"If-None-Match": '"abc"'},
    {"If-Modified-Since": "Sat, 28 Nov 2026 10:00:00 GMT"},
    {"Range": "bytes=0-10"},
    {"X-WP-Nonce": "abc"},
])
def test_a_request_with_credentials_a_condition_or_an_origin_reaches_the_app(served, header):
    served.get()
    served.get()
    assert served.app.calls == 1
    served.get(**header)
    served.get(**header)
    assert served.app.calls == 3


def test_an_authenticated_answer_is_never_copied_nor_served_a_copy(served, admin):
    status, _, body = served.get(query="per_page=5&status=draft", **admin.basic)
    assert status == 200 and served.app.calls == 1
    served.get(query="per_page=5&status=draft", **admin.basic)
    assert served.app.calls == 2
    status, _, _ = served.get(query="per_page=5&status=draft")  # a stranger: refused, by the app
    assert status in (400, 401) and served.app.calls == 3


def test_copies_are_kept_apart_by_query_encoding_and_host(served, client, admin):
    for n in range(3):  # an answer long enough to be compressed
        _publish(client, admin, f"Post {n} " + "words " * 100)
    plain = served.get()
    served.get(query="per_page=4")
    compressed = served.get(Accept_Encoding="gzip")
    served.get(Host="other.example")  # (this site's address is set, so its answer is the same; a site
    assert served.app.calls == 4       # taking its address from the request answers each host its own)
    assert compressed[1].get("content-encoding") == "gzip" and "content-encoding" not in plain[1]
    assert served.get(Accept_Encoding="gzip")[2] == compressed[2] and served.get()[2] == plain[2]
    assert served.get(Host="other.example")[2] == plain[2]
    assert served.app.calls == 4


def test_what_the_app_does_not_cache_is_not_copied(served):
    served.get(query="per_page=5&_fields=id")  # reshaped: outside the answer cache
    served.get(query="per_page=5&_fields=id")
    served.get(path="/wp-json/cms/v2/users/me", query="")  # 401
    served.get(path="/wp-json/cms/v2/users/me", query="")
    assert served.app.calls == 4


def test_a_copy_ends_with_its_minute(served, clock):
    served.get()
    served.get()
    assert served.app.calls == 1
    clock[0] += 60
    served.get()
    assert served.app.calls == 2


def test_the_counter_is_known_unchanged_until_any_connection_commits(app, client, admin):
    """SQLite: after a read of the counter on the thread's own connection, ``unchanged()`` gives
    it for one pragma, until a write commits (here on another connection of the same process; a
    write by another process changes data_version alike). PostgreSQL always reads the counter."""
    generation = app.rest.generation
    first = generation()
    if app.site.engine.dialect.name != "sqlite":
        assert generation.unchanged() is None
        return
    assert generation.unchanged() == first
    _publish(client, admin, "A write")
    assert generation.unchanged() is None
    second = generation()
    assert second > first and generation.unchanged() == second
    # A data_version compares only with one read on the same connection: once the thread's query
    # connection is replaced (after an error), the counter is read again, whatever the numbers.
    from calpress.store.changes import GENERATION_QUERY

    app.site._close_fast_connection("fast")
    assert generation.unchanged() is None
    app.site.query(GENERATION_QUERY)  # a new query connection, on which the counter was not read
    assert app.site.data_version() is not None and generation.unchanged() is None
    assert generation() == second and generation.unchanged() == second
