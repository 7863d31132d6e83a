"""The HTTP front (calpress/front.py): which requests run on its event loop and which in a request
thread, and the setting that decides it (``inline_reads``)."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

from calpress.config import load_settings
from calpress.front import Front, runs_reads_inline


def environ(method: str, path: str, query: str = "", **extra: str) -> dict[str, str]:
    return {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, **extra}


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("GET", "/wp-json/cms/v2/posts", "per_page=10&miss=1"),
        ("HEAD", "/wp-json/cms/v2/posts", ""),
        ("GET", "/wp-json/cms/v2/posts/", ""),
        ("GET", "/wp-json/cms/v2/pages/5", "context=view"),
        ("GET", "/wp-json/cms/v2/users/me", ""),
        ("GET", "/wp-json/cal/events/v1/events", "start_date=2027-01-01"),
        ("GET", "/wp-json/cal/events/v1/venues/12", ""),
        # the site index: options and the request only, kept in the answer cache (issue 32)
        ("GET", "/wp-json/", ""),
        # the same routes at the site root (decision 1), as fast as under /wp-json/ (issue 35)
        ("GET", "/cal/events/v1/events", "per_page=10"),
        ("GET", "/cms/v2/posts/", ""),
        ("HEAD", "/cms/v2/pages/5", ""),
    ],
)
def test_bodiless_reads_of_cacheable_endpoints_read_only(app, method, path, query):
    assert app.reads_only(environ(method, path, query)) is True


@pytest.mark.parametrize(
    ("method", "path", "query", "extra"),
    [
        ("POST", "/wp-json/cms/v2/posts", "", {}),
        ("DELETE", "/wp-json/cms/v2/posts/5", "", {}),
        ("OPTIONS", "/wp-json/cms/v2/posts", "", {}),
        # a body, announced or chunked
        ("GET", "/wp-json/cms/v2/posts", "", {"CONTENT_LENGTH": "12"}),
        ("GET", "/wp-json/cms/v2/posts", "", {"HTTP_TRANSFER_ENCODING": "chunked"}),
        # a GET that is a write in disguise
        ("GET", "/wp-json/cms/v2/posts/5", "_method=DELETE", {}),
        ("GET", "/wp-json/cms/v2/posts/5", "", {"HTTP_X_HTTP_METHOD_OVERRIDE": "DELETE"}),
        # routed by the query, not the path
        ("GET", "/", "rest_route=/cms/v2/posts", {}),
        # endpoints that call out, or whose answer is not a function of stored data
        ("GET", "/wp-json/oembed/1.0/proxy", "url=https://example.com/", {}),
        ("GET", "/wp-json/cms-site-health/v1/tests/loopback-requests", "", {}),
        ("GET", "/wp-json/cal/event-aggregator/v1/imports", "", {}),
        # pages and unknown addresses
        ("GET", "/", "", {}),
        ("GET", "/events/", "", {}),
        ("GET", "/wp-json/cms/v2/nothing-here", "", {}),
        # at the site root: a namespace's segment that names no route (a page of the site may take it)
        ("GET", "/cms/v2/nothing-here", "", {}),
    ],
)
def test_everything_else_goes_to_a_request_thread(app, method, path, query, extra):
    assert app.reads_only(environ(method, path, query, **extra)) is False


class _Headers(dict):
    pass


class _Proto:
    """The part of Granian's RSGI protocol object the front uses for whole answers."""

    def __init__(self, body: bytes = b"") -> None:
        self.answers: list[tuple[int, list, bytes]] = []
        self._body = [body] if body else []

    def response_bytes(self, status, headers, body):
        self.answers.append((status, headers, body))

    def __aiter__(self):
        return self._parts()

    async def _parts(self):
        for part in self._body:
            yield part


def _scope(method: str, path: str, **headers: str) -> SimpleNamespace:
    return SimpleNamespace(proto="http", method=method, path=path, query_string="", server="127.0.0.1:8080",
                           client="127.0.0.1:40000", http_version="1.1", scheme="http", headers=_Headers(headers))


def _served_on(front: Front, method: str, path: str, body: bytes = b"", content_type: str | None = None) -> str:
    """The name of the thread the app ran in for one request through the front."""
    proto = _Proto(body)
    headers = {"content-length": str(len(body))} if body else {}
    if content_type is not None:
        headers["content-type"] = content_type
    asyncio.run(front.__rsgi__(_scope(method, path, **headers), proto))
    (status, _, answer), = proto.answers
    assert status == 200
    return answer.decode()


def _recording_app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    environ["wsgi.input"].read()
    return [threading.current_thread().name.encode()]


def test_the_front_runs_reads_on_its_loop_and_everything_else_in_threads(tmp_path):
    settings = load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path)})
    front = Front(_recording_app, settings, lambda environ: environ["REQUEST_METHOD"] == "GET")
    try:
        loop_thread = threading.current_thread().name  # asyncio.run runs its loop here
        assert _served_on(front, "GET", "/wp-json/cms/v2/posts") == loop_thread
        assert _served_on(front, "POST", "/wp-json/cms/v2/posts", b'{"title": "x"}').startswith("calpress-request")
        assert _served_on(front, "DELETE", "/wp-json/cms/v2/posts/1").startswith("calpress-request")
    finally:
        front.pool.shutdown()
    threaded = Front(_recording_app, settings)  # no reads_only: every request in a thread
    try:
        assert _served_on(threaded, "GET", "/wp-json/cms/v2/posts").startswith("calpress-request")
    finally:
        threaded.pool.shutdown()


def test_inline_reads_follow_the_setting_and_the_database(tmp_path):
    sqlite = sa.create_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    postgres = sa.create_engine("postgresql+psycopg://nobody@db.example.org:5432/none")  # never connected
    local_postgres = sa.create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    socket_postgres = sa.create_engine("postgresql+psycopg://nobody@/none")

    def setting(value: str | None):
        env = {"CALPRESS_DATA_DIR": str(tmp_path)}
        if value is not None:
            env["CALPRESS_INLINE_READS"] = value
        return load_settings(environ=env)

    assert setting(None).inline_reads == "auto"
    assert runs_reads_inline(setting(None), sqlite) is True
    assert runs_reads_inline(setting("auto"), postgres) is False
    assert runs_reads_inline(setting("auto"), local_postgres) is True
    assert runs_reads_inline(setting("auto"), socket_postgres) is True
    assert runs_reads_inline(setting("ON"), postgres) is True
    assert runs_reads_inline(setting("off"), sqlite) is False
    with pytest.raises(ValueError, match="CALPRESS_INLINE_READS"):
        setting("sometimes")


def test_writes_run_in_the_write_lane_and_uploads_and_reads_do_not(tmp_path):
    settings = load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path)})
    front = Front(_recording_app, settings, write_lane=True)
    try:
        for method in ("POST", "PUT", "PATCH"):
            assert _served_on(front, method, "/wp-json/cms/v2/posts/1", b'{"title": "x"}', "application/json").startswith("calpress-write")
        assert _served_on(front, "POST", "/wp-login.php", b"log=a&pwd=b", "application/x-www-form-urlencoded").startswith("calpress-write")
        assert _served_on(front, "DELETE", "/wp-json/cms/v2/posts/1").startswith("calpress-write")
        # An upload (a file as the body) and a read stay with the request threads.
        assert _served_on(front, "POST", "/wp-json/cms/v2/media", b"\x89PNG....", "image/png").startswith("calpress-request")
        assert _served_on(front, "GET", "/wp-json/cms/v2/posts").startswith("calpress-request")
    finally:
        front.pool.shutdown()
        front.lane.shutdown()
    without = Front(_recording_app, settings)
    try:
        assert without.lane is None
        assert _served_on(without, "POST", "/wp-json/cms/v2/posts", b'{"title": "x"}', "application/json").startswith("calpress-request")
    finally:
        without.pool.shutdown()


def _most_at_once(front: Front, requests: int) -> int:
    """How many of ``requests`` concurrent POSTs through ``front`` ran the app at the same time."""
    running = [0, 0]  # now, most
    guard = threading.Lock()

    def slow_app(environ, start_response):
        with guard:
            running[0] += 1
            running[1] = max(running)
        try:
            threading.Event().wait(0.05)
        finally:
            with guard:
                running[0] -= 1
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"done"]

    front.wsgi = slow_app

    async def all_at_once():
        protos = [_Proto(b'{"n": 1}') for _ in range(requests)]
        scopes = [_scope("POST", "/wp-json/cms/v2/posts", **{"content-length": "8", "content-type": "application/json"})
                  for _ in range(requests)]
        await asyncio.gather(*(front.__rsgi__(scope, proto) for scope, proto in zip(scopes, protos)))
        assert all(proto.answers[0][0] == 200 for proto in protos)

    asyncio.run(all_at_once())
    return running[1]


def test_the_write_lane_runs_one_write_at_a_time(tmp_path):
    settings = load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path), "CALPRESS_THREADS": "4"})
    laned = Front(_recording_app, settings, write_lane=True)
    threaded = Front(_recording_app, settings)
    try:
        assert _most_at_once(laned, 4) == 1
        assert _most_at_once(threaded, 4) > 1  # the request threads alone run them side by side
    finally:
        for front in (laned, threaded):
            front.pool.shutdown()
        laned.lane.shutdown()


def test_served_sites_have_the_write_lane_on_sqlite_only(tmp_path, db_leg, db_url):
    from calpress.front import rsgi_app

    settings = load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path), "CALPRESS_DATABASE_URL": db_url})
    front = rsgi_app(settings)
    try:
        assert (front.lane is not None) is (db_leg == "sqlite")
    finally:
        front.pool.shutdown()
        if front.lane is not None:
            front.lane.shutdown()


def test_a_write_waiting_on_the_network_does_not_hold_the_lane(tmp_path):
    """The first write leaves the lane (as a mail or a fetch does, lane.py) and waits until the
    second write has run; without leaving, the second would wait for the first."""
    from calpress import lane

    settings = load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path)})
    second_ran = threading.Event()

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/first":
            lane.leave()
            body = b"second ran meanwhile" if second_ran.wait(5) else b"waited alone"
        else:
            second_ran.set()
            body = b"second"
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [body]

    front = Front(app, settings, write_lane=True)
    headers = {"content-length": "2", "content-type": "application/json"}

    async def both():
        first, second = _Proto(b"{}"), _Proto(b"{}")
        task = asyncio.ensure_future(front.__rsgi__(_scope("POST", "/first", **headers), first))
        await asyncio.sleep(0.1)
        await front.__rsgi__(_scope("POST", "/second", **headers), second)
        await task
        return [body for _, _, body in first.answers], [body for _, _, body in second.answers]

    try:
        first, second = asyncio.run(both())
    finally:
        front.pool.shutdown()
        front.lane.shutdown()
    assert first == [b"second ran meanwhile"] and second == [b"second"]
