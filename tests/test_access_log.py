"""The access log and request ids (calpress/access_log.py): one JSON line per request with its
time, id, method, path, redacted query, status, bytes, duration, client, user and route; secrets
never written; an ``X-Request-Id`` on every answer (a trusted proxy's, else generated) and on
every log line of the request; the probes quiet at the default level. In process through the
WSGI app, and once through ``calpress serve``, whose stderr must hold exactly one line per
request."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from typing import Any

import httpx
import pytest
from appfixtures import RestClient, create_account, serving

from calpress import logs
from calpress.access_log import FRONT_KEY, REDACTED, AccessLog, RequestLayer, redact_query, request_id_header
from calpress.app import Calpress
from calpress.config import load_settings

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
FIELDS = {"time", "level", "logger", "message", "request_id", "method", "path", "status", "bytes", "duration_ms", "client"}


def lines_of(path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("logger") == "calpress.access":
                found.append(entry)
    return found


# -- redaction and ids ----------------------------------------------------------------------------


def test_secret_query_arguments_are_redacted():
    assert redact_query("") == ""
    assert redact_query("per_page=5&page=2") == "per_page=5&page=2"
    query = ("password=hunter2&post_password=p&pwd=x&_wpnonce=abc&nonce=1&tvn1=a&tvn2=b&token=t&key=k"
             "&moderation-hash=h&search=garden&user_pass=s&PASSWORD=u&pass%77ord=enc&access_token=z&items[password]=q&flag")
    redacted = redact_query(query)
    assert redacted == "&".join(f"{part.split('=')[0]}={REDACTED}" if "=" in part and not part.startswith("search=") else part
                                for part in query.split("&"))
    for secret in ("hunter2", "=p&", "abc", "enc", "=u&", "=q&"):
        assert secret not in redacted
    assert "search=garden" in redacted and redacted.endswith("&flag")


def test_a_proxys_request_id_is_kept_only_when_sane():
    assert request_id_header("trace-7f3a") == "trace-7f3a"
    assert request_id_header("x" * 200) == "x" * 200
    for insane in (None, "", "   ", "x" * 201, "caf\u00e9", "a\nb", "a\x00b", "tab\there"):
        assert request_id_header(insane) is None, insane


def test_the_setting_is_checked():
    base = {"data_dir": "/tmp/unused", "secret_key": "k"}
    assert load_settings(base, environ={}).access_log == "on"
    for value in ("off", "on", "OFF", "/var/log/calpress/access.log", "./access.log"):
        assert load_settings(base, environ={"CALPRESS_ACCESS_LOG": value}).access_log == value
    with pytest.raises(ValueError, match="CALPRESS_ACCESS_LOG"):
        load_settings(base, environ={"CALPRESS_ACCESS_LOG": "of"})


# -- through the WSGI app ---------------------------------------------------------------------------


@pytest.fixture()
def logged(settings, tmp_path):
    """The test app writing its access lines to a file (tmp_path/access.log), behind 10.0.0.0/8."""
    app = Calpress(settings.with_overrides(access_log=str(tmp_path / "access.log"), trusted_proxies="10.0.0.0/8", site_url=""), upgrade=False)
    yield app, tmp_path / "access.log"
    app.site.close()
    AccessLog("on")  # back to stderr for the tests that follow in this process


def test_one_line_per_request_with_its_fields(logged):
    app, path = logged
    client = RestClient(app)
    admin = create_account(app, "boss", "administrator")
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Logged", "status": "publish", "password": "hunter2"}).json["id"]
    answer = client.http.simulate_get(f"/wp-json/cms/v2/posts/{post}", query_string="password=hunter2&context=view",
                                      headers={"X-Forwarded-For": "203.0.113.70"}, remote_addr="10.0.0.2")
    assert answer.status_code == 200
    page = client.http.simulate_get("/wp-login.php", remote_addr="192.0.2.3")
    missing = client.http.simulate_get("/wp-json/no/such/route", remote_addr="192.0.2.3")
    me = client.get("/cms/v2/users/me", user=admin)
    lines = lines_of(path)
    assert [line["path"] for line in lines] == ["/cms/v2/posts", f"/wp-json/cms/v2/posts/{post}", "/wp-login.php",
                                                "/wp-json/no/such/route", "/cms/v2/users/me"]
    created, read, login, nowhere, mine = lines
    for line, response in zip(lines[1:], (answer, page, missing, me)):
        assert FIELDS <= set(line), line
        assert TIME.fullmatch(line["time"]) and line["level"] == "info"
        assert line["request_id"] == response.headers["x-request-id"] and re.fullmatch(r"[0-9a-f]{32}", line["request_id"])
        assert line["status"] == response.status_code and line["bytes"] == len(response.content)
        assert 0 < line["duration_ms"] < 60_000
    assert (created["method"], created["status"], created["route"], created["user_id"]) == ("POST", 201, "cms.posts", admin.id)
    assert read["client"] == "203.0.113.70" and read["route"] == "cms.posts.item" and "user_id" not in read
    assert read["query"] == f"password={REDACTED}&context=view" and read["message"] == f"GET /wp-json/cms/v2/posts/{post} 200"
    assert (login["route"], login["client"]) == ("login", "192.0.2.3")
    assert (nowhere["status"], nowhere["route"]) == (404, "rest_no_route")
    assert mine["user_id"] == admin.id and mine["route"] == "cms.users.me"
    text = path.read_text()
    assert "hunter2" not in text and admin.app_password not in text and "Basic" not in text and "authorization" not in text.lower()
    # Every request id is new.
    assert len({line["request_id"] for line in lines}) == len(lines)


def test_a_trusted_proxys_request_id_is_kept_and_a_strangers_replaced(logged):
    app, path = logged
    client = RestClient(app)
    kept = client.http.simulate_get("/wp-json/", headers={"X-Request-Id": "edge-42"}, remote_addr="10.0.0.2")
    stranger = client.http.simulate_get("/wp-json/", headers={"X-Request-Id": "edge-43"}, remote_addr="192.0.2.3")
    insane = client.http.simulate_get("/wp-json/", headers={"X-Request-Id": "x" * 201}, remote_addr="10.0.0.2")
    assert kept.headers["x-request-id"] == "edge-42"
    assert stranger.headers["x-request-id"] != "edge-43" and insane.headers["x-request-id"] != "x" * 201
    assert [line["request_id"] for line in lines_of(path)] == [r.headers["x-request-id"] for r in (kept, stranger, insane)]


def test_probes_are_quiet_at_the_default_level(settings, tmp_path):
    for level, expected in (("warning", []), ("debug", ["healthz", "readyz"])):
        target = tmp_path / f"{level}.log"
        app = Calpress(settings.with_overrides(access_log=str(target), log_level=level), upgrade=False)
        try:
            client = RestClient(app)
            for probe in ("/healthz", "/readyz"):
                assert client.get(probe).status_code == 200
                assert client.get(probe).headers["x-request-id"]
        finally:
            app.site.close()
        assert [line["route"] for line in lines_of(target)][::2] == expected
    AccessLog("on")


def test_off_writes_nothing_but_answers_keep_their_id(settings, caplog):
    app = Calpress(settings.with_overrides(access_log="off"), upgrade=False)
    try:
        with caplog.at_level(logging.DEBUG, logger="calpress"):
            answer = RestClient(app).get("/wp-json/")
        assert answer.headers["x-request-id"]
        assert [r for r in caplog.records if r.name == "calpress.access"] == []
    finally:
        app.site.close()
        AccessLog("on")


def test_every_log_line_of_a_request_carries_its_id(app, monkeypatch):
    """A warning logged while a request runs names the request, as its access line does."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    logger = logging.getLogger("calpress")
    logger.addHandler(handler)
    serve = app.rest.serve

    def noisy(request, **kwargs):
        logging.getLogger("calpress.rest.test").warning("something odd in %s", request.route)
        return serve(request, **kwargs)

    monkeypatch.setattr(app.rest, "serve", noisy)
    try:
        answer = RestClient(app).get("/cms/v2/posts")
    finally:
        logger.removeHandler(handler)
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    warning = next(entry for entry in entries if entry["logger"] == "calpress.rest.test")
    access = next(entry for entry in entries if entry["logger"] == "calpress.access")
    assert warning["request_id"] == access["request_id"] == answer.headers["x-request-id"]
    assert warning["message"] == "something odd in /cms/v2/posts"
    # Outside a request, no id.
    logger.addHandler(handler)
    try:
        logging.getLogger("calpress.rest.test").warning("between requests")
    finally:
        logger.removeHandler(handler)
    assert "request_id" not in json.loads(stream.getvalue().splitlines()[-1])


def test_a_streamed_answer_is_logged_once_when_it_ends(tmp_path):
    """An answer the app streams is logged when the server closes it, with the bytes it sent;
    under the front of ``calpress serve`` the layer leaves the line to the front."""
    closed: list[bool] = []

    class Stream:
        def __iter__(self):
            yield b"abc"
            yield b"defgh"

        def close(self):
            closed.append(True)

    def streaming(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return Stream()

    target = tmp_path / "stream.log"
    layer = RequestLayer(streaming, AccessLog(str(target), route_name=lambda environ: "uploads"))
    try:
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/wp-content/uploads/a.bin", "QUERY_STRING": "", "REMOTE_ADDR": "192.0.2.5"}
        started: list[Any] = []
        body = layer(environ, lambda status, headers, exc_info=None: started.append(dict(headers)))
        assert lines_of(target) == []  # not yet sent
        assert b"".join(body) == b"abcdefgh"
        body.close()
        (line,) = lines_of(target)
        assert (line["bytes"], line["status"], line["route"], line["client"]) == (8, 200, "uploads", "192.0.2.5")
        assert line["request_id"] == started[0]["X-Request-Id"] and closed == [True]
        front = {**environ, FRONT_KEY: [0, 0]}
        assert list(layer(front, lambda *args: None)) == [b"abc", b"defgh"]
        assert len(lines_of(target)) == 1  # the front writes that one
    finally:
        AccessLog("on")


class _Proto:
    """The part of Granian's RSGI protocol object the front uses for whole answers."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, list, bytes]] = []

    def response_bytes(self, status, headers, body):
        self.answers.append((status, headers, body))


def test_the_front_writes_one_line_and_its_threads_log_the_request_id(tmp_path):
    """Under ``calpress serve`` the front reads the forwarding headers before admission, writes
    the line itself (the layer under it does not), and a warning logged in the request thread
    names the request."""
    import asyncio
    from types import SimpleNamespace

    from calpress.front import Front
    from calpress.proxies import TrustedProxies

    seen: list[str] = []

    def app(environ, start_response):
        seen.append(environ["REMOTE_ADDR"])
        logging.getLogger("calpress.test.front").warning("in a thread")
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"hello"]

    target = tmp_path / "front.log"
    access = AccessLog(str(target), proxies=TrustedProxies("127.0.0.1"), route_name=lambda environ: "test")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    logging.getLogger("calpress.test.front").addHandler(handler)
    front = Front(RequestLayer(app, access), load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path)}), access_log=access)
    try:
        proto = _Proto()
        scope = SimpleNamespace(proto="http", method="GET", path="/x", query_string="pwd=secret", server="127.0.0.1:8080",
                                client="127.0.0.1:40000", http_version="1.1", scheme="http",
                                headers={"x-forwarded-for": "203.0.113.90", "x-request-id": "edge-9"})
        asyncio.run(front.__rsgi__(scope, proto))
    finally:
        front.pool.shutdown()
        logging.getLogger("calpress.test.front").removeHandler(handler)
        AccessLog("on")
    ((status, headers, body),) = proto.answers
    assert (status, body) == (200, b"hello") and ("X-Request-Id", "edge-9") in headers
    assert seen == ["203.0.113.90"]
    (line,) = lines_of(target)
    assert (line["request_id"], line["client"], line["bytes"], line["query"], line["route"]) == (
        "edge-9", "203.0.113.90", 5, f"pwd={REDACTED}", "test")
    assert json.loads(stream.getvalue())["request_id"] == "edge-9"


# -- a real server --------------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_real_server_logs_each_request_once_on_stderr(db_url, tmp_path):
    with serving(db_url, tmp_path, trusted_proxies="127.0.0.1") as server:
        ana = int(server.cli("user", "create", "ana", "ana@example.test", "--role=administrator", "--user_pass=ana-secret",
                             "--porcelain").strip())
        password = server.cli("user", "application-password", "create", "ana", "log", "--porcelain").strip()
        answers = {
            "anonymous": httpx.get(server.url + "/wp-json/cms/v2/posts", params={"password": "hunter2", "per_page": "1"}),
            "proxied": httpx.get(server.url + "/wp-json/cms/v2/posts", headers={"X-Request-Id": "edge-trace-1", "X-Forwarded-For": "203.0.113.80"}),
            "me": httpx.get(server.url + "/wp-json/cms/v2/users/me", auth=("ana", password)),
            "page": httpx.get(server.url + "/wp-login.php"),
            "missing": httpx.post(server.url + "/wp-json/no/route", json={"password": "in-a-body"}),
        }
        health = httpx.get(server.url + "/healthz")
        ready = httpx.get(server.url + "/readyz")
        assert health.status_code == 200 and ready.status_code == 200
        assert answers["proxied"].headers["x-request-id"] == "edge-trace-1"
        ids = {name: answer.headers["x-request-id"] for name, answer in answers.items()}
        assert len(set(ids.values())) == len(ids)
        log = tmp_path / "server.log"
        deadline = time.monotonic() + 10
        while not set(ids.values()) <= {line["request_id"] for line in lines_of(log)} and time.monotonic() < deadline:
            time.sleep(0.1)
        lines = lines_of(log)
    by_id = {name: [line for line in lines if line["request_id"] == request_id] for name, request_id in ids.items()}
    assert all(len(found) == 1 for found in by_id.values()), by_id
    line = {name: found[0] for name, found in by_id.items()}
    for name, answer in answers.items():
        assert FIELDS <= set(line[name]) and TIME.fullmatch(line[name]["time"])
        assert line[name]["status"] == answer.status_code and line[name]["bytes"] == int(answer.headers.get("content-length", len(answer.content)))
    assert line["anonymous"]["query"] == f"password={REDACTED}&per_page=1" and line["anonymous"]["client"] == "127.0.0.1"
    assert line["anonymous"]["route"] == "cms.posts"
    assert line["proxied"]["client"] == "203.0.113.80"
    assert line["me"]["user_id"] == ana and line["me"]["route"] == "cms.users.me"
    assert line["page"]["route"] == "login" and line["missing"]["status"] == 404
    paths = [entry["path"] for entry in lines]
    assert "/healthz" not in paths and "/readyz" not in paths
    text = log.read_text()
    assert "hunter2" not in text and password not in text and "in-a-body" not in text and "Basic " not in text
    # Every line of the server's stderr is JSON (the access lines among the other logs).
    assert all(json.loads(row) for row in text.splitlines() if row.startswith("{"))


def test_the_file_is_opened_at_the_first_line_and_an_unwritable_one_falls_back_to_stderr(tmp_path, caplog):
    target = tmp_path / "later.log"
    access = AccessLog(str(target))
    try:
        assert not target.exists()  # a command that builds the app and serves nothing leaves it alone
        access.write({"REQUEST_METHOD": "GET", "PATH_INFO": "/", "REMOTE_ADDR": "192.0.2.1"}, 200, 0, 0.001)
        assert len(lines_of(target)) == 1
        broken = AccessLog(str(tmp_path / "missing" / "access.log"))
        with caplog.at_level(logging.INFO, logger="calpress"):
            broken.open()  # as a server starts (app.create_app)
            broken.write({"REQUEST_METHOD": "GET", "PATH_INFO": "/after", "REMOTE_ADDR": "192.0.2.1"}, 200, 0, 0.001)
        assert any("cannot be written" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
        assert [r.access["path"] for r in caplog.records if r.name == "calpress.access"] == ["/after"]
        assert len(lines_of(target)) == 1
    finally:
        AccessLog("on")
