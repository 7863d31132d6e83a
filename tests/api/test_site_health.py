"""``/cms-site-health/v1`` and ``calpress doctor``: the checks against real databases, a real
server process and local HTTP servers (never the internet: the outbound checks get a resolver
or an address of their own)."""

from __future__ import annotations

import base64
import http.server
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import sqlalchemy as sa
from appfixtures import free_port

from calpress import health, net
from calpress.auth import sessions
from calpress.auth.users import get_user
from calpress.cli import main
from calpress.health import checks as health_checks
from calpress.health import sizes as health_sizes
from calpress.store import db as store_db

BASE = "/cms-site-health/v1"
TESTS = {
    "background-updates": "background_updates",
    "loopback-requests": "loopback_requests",
    "https-status": "https_status",
    "dotorg-communication": "dotorg_communication",
    "authorization-header": "authorization_header",
    "page-cache": "page_cache",
}
ROUTES = [f"{BASE}/tests/{path}" for path in TESTS] + [f"{BASE}/directory-sizes"]
SIZE_KEYS = ["raw", "wordpress_size", "themes_size", "plugins_size", "uploads_size", "fonts_size", "database_size", "total_size"]
HUMAN_SIZE = re.compile(r"\d{1,3}(,\d{3})*\.\d\d (B|KB|MB|GB|TB)")
FORBIDDEN = {"code": "rest_forbidden", "message": "Sorry, you are not allowed to do that."}


def failing_resolver(*args, **kwargs):
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def resolve_to_loopback(host, port, *args, **kwargs):
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


def basic(login: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def assert_check_shape(body: dict, test: str) -> None:
    """The reference's answer: exactly these keys and types (site-health.md)."""
    assert set(body) == {"label", "status", "badge", "description", "actions", "test"}
    assert body["test"] == test
    assert body["status"] in ("good", "recommended", "critical")
    assert body["badge"] == {"label": body["badge"]["label"], "color": "blue"}
    assert body["badge"]["label"] in ("Security", "Performance")
    assert all(isinstance(body[key], str) and body[key] for key in ("label", "description"))
    assert isinstance(body["actions"], str)
    assert body["description"].startswith("<p>")


# -- a small local HTTP server --------------------------------------------------------------------


@dataclass
class LocalServer:
    url: str
    port: int
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"<!doctype html><title>local</title>"
    seen: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture()
def local_server() -> Iterator[LocalServer]:
    """An HTTP server on a loopback port answering every GET and HEAD with ``status``,
    ``headers`` and ``body``, and keeping the request headers it saw."""
    state = LocalServer("", 0)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.seen.append({name.lower(): value for name, value in self.headers.items()})
            body = state.body
            self.send_response(state.status)
            for name, value in state.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json" if body.startswith(b"{") else "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_HEAD = do_GET

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    state.url = f"http://127.0.0.1:{state.port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def set_site_address(app, url: str) -> None:
    with app.site.write() as conn:
        app.site.update_option(conn, "siteurl", url)
        app.site.update_option(conn, "home", url)
    app.site.forget_options()


@pytest.fixture()
def offline(app):
    """The app with its outbound requests answered by a resolver that knows no name, and its own
    address on a closed loopback port: no check leaves the machine."""
    app.site.http = net.Client(app.site.http.policy, resolver=failing_resolver)
    set_site_address(app, f"http://127.0.0.1:{free_port()}")
    return app


# -- the routes -----------------------------------------------------------------------------------


def test_every_test_answers_an_administrator_in_the_reference_shape(offline, client, admin):
    for path, test in TESTS.items():
        response = client.get(f"{BASE}/tests/{path}", user=admin)
        assert response.status_code == 200, path
        assert_check_shape(response.json, test)
        assert response.headers["allow"] == "GET"
    page_cache = client.get(f"{BASE}/tests/page-cache", user=admin).json
    assert list(page_cache) == ["badge", "description", "test", "status", "label", "actions"]


def test_only_administrators_may_run_the_checks(offline, client, accounts):
    for route in ROUTES:
        for role in ("editor", "author", "subscriber"):
            response = client.get(route, user=accounts[role])
            assert response.status_code == 403, (route, role)
            assert response.json == {**FORBIDDEN, "data": {"status": 403}}
        anonymous = client.get(route)
        assert anonymous.status_code == 401
        assert anonymous.json == {**FORBIDDEN, "data": {"status": 401}}


def test_the_namespace_index_lists_the_routes_in_the_reference_order(client):
    described = client.get(BASE).json["routes"]
    assert list(described) == [
        BASE,
        f"{BASE}/tests/background-updates",
        f"{BASE}/tests/loopback-requests",
        f"{BASE}/tests/https-status",
        f"{BASE}/tests/dotorg-communication",
        f"{BASE}/tests/authorization-header",
        f"{BASE}/directory-sizes",
        f"{BASE}/tests/page-cache",
    ]
    for pattern in ROUTES:
        assert described[pattern]["endpoints"] == [{"methods": ["GET"], "args": []}]  # no arguments, not batch-enabled
    options = client.request("OPTIONS", f"{BASE}/tests/https-status").json
    assert options["schema"]["title"] == "wp-site-health-test"
    assert "schema" not in client.request("OPTIONS", f"{BASE}/directory-sizes").json


def test_https_status_is_recommended_on_the_http_test_site(client, admin):
    body = client.get(f"{BASE}/tests/https-status", user=admin).json
    assert body["status"] == "recommended"
    assert body["label"] == "Your website does not use HTTPS"
    assert "<code>http://example.test</code>" in body["description"]
    assert "Learn more about why you should use HTTPS" in body["actions"]


def test_https_status_reads_both_addresses():
    good = health.https_status("https://a.example", "https://a.example")
    assert (good.status, good.label) == ("good", "Your website is using an active HTTPS connection")
    half = health.https_status("https://a.example", "http://a.example", over_https=True)
    assert half.status == "recommended"
    assert "You are accessing this website using HTTPS, but your home address (<code>http://a.example</code>)" in half.description


def test_background_updates_are_working_on_a_migrated_database(client, admin):
    body = client.get(f"{BASE}/tests/background-updates", user=admin).json
    assert (body["status"], body["label"]) == ("good", "Background updates are working")
    assert body["actions"] == ""


def test_background_updates_fail_when_the_database_is_behind(app, client, admin):
    head = store_db.head_revision()
    previous = store_db._script_directory().get_revision(head).down_revision
    with app.site.write() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :v"), {"v": previous})
    body = client.get(f"{BASE}/tests/background-updates", user=admin).json
    assert (body["status"], body["label"]) == ("critical", "Background updates are not working as expected")
    assert f"at migration <code>{previous}</code>, behind the newest, <code>{head}</code>" in body["description"]
    assert '<span class="dashicons fail"><span class="screen-reader-text">Error</span></span>' in body["description"]
    with app.site.write() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = 'ffff_from_the_future'"))
    body = client.get(f"{BASE}/tests/background-updates", user=admin).json
    assert (body["status"], body["label"]) == ("recommended", "Background updates may not be working properly")


def test_background_updates_on_a_database_never_migrated(empty_db_url):
    engine = store_db.create_engine(empty_db_url)
    try:
        result = health.background_updates(engine)
    finally:
        engine.dispose()
    assert result.status == "critical" and "never migrated" in result.description


def test_background_updates_when_the_database_cannot_be_reached(tmp_path):
    (tmp_path / "site.sqlite3").mkdir()  # a folder where the database file should be
    closed = free_port()
    for url in (f"sqlite:///{tmp_path / 'site.sqlite3'}", f"postgresql://nobody@127.0.0.1:{closed}/calpress"):
        engine = store_db.create_engine(url)
        try:
            result = health.background_updates(engine)
        finally:
            engine.dispose()
        assert (result.status, result.label) == ("critical", "Background updates are not working as expected")
        assert "The database could not be reached: " in result.description, url


def test_the_authorization_header_route_judges_what_arrived(app, client, admin, make_account):
    # Real credentials are not the test's: invalid (as the reference answers them).
    body = client.get(f"{BASE}/tests/authorization-header", user=admin).json
    assert (body["status"], body["label"]) == ("recommended", "The authorization header is invalid")
    assert "Learn how to configure the Authorization header." in body["actions"]
    # user:pwd with application passwords in use: refused before the route, as the reference.
    refused = client.get(f"{BASE}/tests/authorization-header", headers=basic("user", "pwd"))
    assert refused.status_code == 401 and refused.json["code"] == "invalid_username"


def test_the_authorization_header_is_good_with_the_expected_credentials(app, client, make_account):
    # A logged-in administrator (cookie and nonce, no application password on the site yet)
    # whose browser also sends Basic user:pwd: the reference's admin screen.
    account = make_account("boss", "administrator", app_password=False)
    with app.site.read() as conn:
        user = get_user(conn, account.id)
    secret = app.settings.secret_key
    cookie, _ = sessions.make_login_cookie(secret, user.id, user.password_hash)
    nonce = sessions.create_nonce(secret, "wp_rest", user.id, sessions.parse_login_cookie(cookie)[2])
    headers = {"Cookie": f"{sessions.LOGIN_COOKIE}={cookie}", "X-WP-Nonce": nonce}
    good = client.get(f"{BASE}/tests/authorization-header", headers={**headers, **basic("user", "pwd")})
    assert good.status_code == 200
    assert (good.json["status"], good.json["label"]) == ("good", "The Authorization header is working as expected")
    missing = client.get(f"{BASE}/tests/authorization-header", headers=headers).json
    assert (missing["status"], missing["label"]) == ("recommended", "The authorization header is missing")


def test_loopback_and_page_cache_fail_when_the_site_address_is_a_closed_port(app, client, admin):
    set_site_address(app, f"http://127.0.0.1:{free_port()}")
    loopback = client.get(f"{BASE}/tests/loopback-requests", user=admin).json
    assert (loopback["status"], loopback["label"]) == ("critical", "Your site could not complete a loopback request")
    assert "(unreachable)" in loopback["description"]
    cache = client.get(f"{BASE}/tests/page-cache", user=admin).json
    assert (cache["status"], cache["label"]) == ("recommended", "Unable to detect the presence of page cache")


def test_dotorg_communication_through_the_site_client(offline, client, admin):
    body = client.get(f"{BASE}/tests/dotorg-communication", user=admin).json
    assert (body["status"], body["label"]) == ("critical", "Could not reach WordPress.org")
    assert "Your site is unable to reach WordPress.org at api.wordpress.org, and returned the error: api.wordpress.org could not be resolved" in body["description"]
    assert "Get help resolving this issue." in body["actions"]


def test_directory_sizes_shape_and_growth(app, client, admin):
    first = client.get(f"{BASE}/directory-sizes", user=admin)
    assert first.status_code == 200
    sizes = first.json
    assert list(sizes) == SIZE_KEYS and sizes["raw"] == 0
    for name in ("plugins_size", "fonts_size"):
        assert sizes[name] == {"size": "The directory does not exist.", "debug": "directory not found"}
    for name in ("wordpress_size", "themes_size", "database_size", "total_size"):
        entry = sizes[name]
        assert set(entry) == {"size", "debug", "raw"} and isinstance(entry["raw"], int) and entry["raw"] > 0
        assert HUMAN_SIZE.fullmatch(entry["size"]) and entry["debug"] == f"{entry['size']} ({entry['raw']} bytes)"
    parts = ("wordpress_size", "themes_size", "uploads_size", "database_size")
    assert sizes["total_size"]["raw"] == sum(sizes[name].get("raw", 0) for name in parts)
    uploads_before = sizes["uploads_size"].get("raw", 0)

    target = app.settings.uploads_dir / "2026" / "01" / "poster.bin"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"x" * 50_000)
    after = client.get(f"{BASE}/directory-sizes", user=admin).json
    assert after["uploads_size"] == {"size": "48.83 KB", "debug": "48.83 KB (50000 bytes)", "raw": uploads_before + 50_000}
    assert after["total_size"]["raw"] == sum(after[name].get("raw", 0) for name in parts)


def test_uploads_in_a_bucket_are_not_measured(app, client, admin):
    from calpress.media.s3 import S3Storage

    app.site.storage = S3Storage(bucket="media", endpoint="http://127.0.0.1:1", access_key="key", secret_key="secret")
    answer = client.get(f"{BASE}/directory-sizes", user=admin)
    assert answer.status_code == 200
    uploads = answer.json["uploads_size"]
    assert uploads == {"size": "The size cannot be calculated here: uploaded files are kept in an S3-compatible bucket.", "debug": "not available"}
    total = answer.json["total_size"]["raw"]
    assert total == sum(answer.json[name]["raw"] for name in ("wordpress_size", "themes_size", "database_size"))


def test_directory_sizes_answer_500_when_the_total_cannot_be_computed(app, client, admin, monkeypatch):
    monkeypatch.setattr(health_sizes, "SIZE_BUDGET", -1.0)  # every folder times out
    response = client.get(f"{BASE}/directory-sizes", user=admin)
    assert response.status_code == 500
    assert response.json == {"code": "not_available", "message": "Directory sizes could not be returned.", "data": {"status": 500}}
    sizes = health.directory_sizes(app.site, budget=-1.0)
    assert sizes["wordpress_size"].debug == "timeout while calculating size"
    assert sizes["total_size"].debug == "not available"


# -- the checks on their own (no database) --------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "text"),
    [(0, "0.00 B"), (1023, "1,023.00 B"), (1024, "1.00 KB"), (5292032, "5.05 MB"), (70718504, "67.44 MB"),
     (138658923, "132.24 MB"), (14436656, "13.77 MB"), (48211731, "45.98 MB"), (3 * 1024**3, "3.00 GB")],
)
def test_size_format_matches_the_recorded_answers(raw, text):
    assert health.size_format(raw) == text


def test_loopback_requests_against_a_local_server(local_server):
    good = health.loopback_requests(local_server.url)
    assert (good.status, good.label) == ("good", "Your site can perform loopback requests")
    assert local_server.seen[-1]["cache-control"] == "no-cache"
    local_server.status = 404
    odd = health.loopback_requests(local_server.url)
    assert (odd.status, odd.label) == ("recommended", "Your site could not complete a loopback request")
    assert "HTTP status 404" in odd.description
    unresolved = health.loopback_requests("http://site.invalid:8080", resolver=failing_resolver)
    assert unresolved.status == "critical" and "(unresolvable)" in unresolved.description
    assert health.loopback_requests("").status == "critical"


def test_page_cache_reads_the_reference_headers(local_server):
    local_server.headers = {"Cache-Control": "public, max-age=300", "ETag": '"v1"', "X-Cache": "MISS"}
    result = health.page_cache(local_server.url)
    assert (result.status, result.label) == ("good", "Page cache is detected and the server response time is good")
    assert "There were 2 client caching response headers detected: <code>cache-control</code>, <code>etag</code>." in result.description
    assert len(local_server.seen) == 3 and all(seen["accept"] == "text/html" for seen in local_server.seen)
    local_server.status = 500
    broken = health.page_cache(local_server.url)
    assert (broken.status, broken.label) == ("recommended", "Unable to detect the presence of page cache")
    assert "(Code: http_500)" in broken.description


@pytest.mark.parametrize(
    ("timings", "headers", "present", "status", "label"),
    [
        ([90, 80, 100], [], True, "good", "Page cache is detected and the server response time is good"),
        ([90, 80, 100], [], False, "recommended", "Page cache is not detected but the server response time is OK"),
        ([900, 700, 800], [], False, "critical", "Page cache is not detected and the server response time is slow"),
        ([900, 700, 800], ["etag"], False, "critical", "Page cache is detected but the server response time is still slow"),
    ],
)
def test_page_cache_verdicts(timings, headers, present, status, label):
    result = health.judge_page_cache(timings, headers, cache_present=present)
    assert (result.status, result.label) == (status, label)
    assert f"Median server response time was {sorted(timings)[1]} milliseconds." in result.description


def test_cache_headers_follow_the_reference_rules():
    assert health.cache_headers_of({"Cache-Control": "no-cache, max-age=0", "Age": "0", "X-Varnish": "123"}) == []
    assert health.cache_headers_of({"cache-control": "max-age=60", "Age": "12", "X-Varnish": "123 456", "Via": "1.1 cdn",
                                    "CF-Cache-Status": "HIT", "Expires": "Thu, 01 Jan 2099 00:00:00 GMT"}) == [
        "cache-control", "expires", "age", "via", "cf-cache-status", "x-varnish"]


def test_dotorg_communication_with_an_injected_resolver(local_server):
    policy = net.NetPolicy(allow=(f"127.0.0.1:{local_server.port}",))
    with net.Client(policy, resolver=resolve_to_loopback) as client:
        good = health.dotorg_communication(client, f"http://api.wordpress.org:{local_server.port}/")
    assert (good.status, good.label) == ("good", "Can communicate with WordPress.org")
    assert good.actions == ""
    with net.Client(net.NetPolicy(allowed_ports=(80,)), resolver=resolve_to_loopback) as client:
        refused = health.dotorg_communication(client)  # https: port 443 is shut by this policy
    assert refused.status == "critical" and "port 443 is not open to outbound requests" in refused.description


def test_authorization_header_judges_the_credentials():
    assert health.authorization_header(None).label == "The authorization header is missing"
    assert health.authorization_header("Bearer abc").label == "The authorization header is missing"
    assert health.authorization_header(basic("admin", "secret")["Authorization"]).label == "The authorization header is invalid"
    good = health.authorization_header(basic("user", "pwd")["Authorization"])
    assert (good.status, good.actions) == ("good", "")
    not_checked = health.authorization_header_loopback("http://127.0.0.1:1", app_passwords_in_use=False)
    assert (not_checked.status, not_checked.label) == ("recommended", "The authorization header could not be checked")
    throttled = health.authorization_header_loopback("http://127.0.0.1:1", app_passwords_in_use=True, login_throttle_on=True)
    assert throttled.label == "The authorization header could not be checked"
    assert "CALPRESS_LOGIN_MAX_FAILURES" in throttled.description


def test_the_doctors_authorization_check_looks_for_proof_that_the_app_read_the_header(local_server):
    # A server that answers Basic user:pwd as calpress does once application passwords exist.
    local_server.status = 401
    local_server.body = b'{"code":"invalid_username","message":"Unknown username.","data":{"status":401}}'
    good = health.authorization_header_loopback(local_server.url, app_passwords_in_use=True)
    assert (good.status, good.label) == ("good", "The Authorization header is working as expected")
    assert local_server.seen[-1]["authorization"] == basic("user", "pwd")["Authorization"]
    # Answered as a visitor: the credentials were lost on the way (a proxy dropping the header).
    local_server.status, local_server.body = 200, b'{"namespace":"cms-site-health/v1"}'
    lost = health.authorization_header_loopback(local_server.url, app_passwords_in_use=True)
    assert (lost.status, lost.label) == ("recommended", "The authorization header is missing")


# -- a real server, and calpress doctor -----------------------------------------------------------


def test_checks_through_a_real_server_and_the_doctor(live_server, db_url, tmp_path, capsys, monkeypatch):
    data = ["--data-dir", str(tmp_path / "live"), "--database-url", db_url]
    assert main([*data, "user", "create", "admin", "admin@example.test", "--role=administrator", "--porcelain"]) == 0
    assert main([*data, "user", "application-password", "create", "admin", "health", "--porcelain"]) == 0
    password = capsys.readouterr().out.split()[-1]
    import httpx

    def get(path: str, **kwargs):
        return httpx.get(live_server.url + BASE + path, timeout=30, **kwargs)

    loopback = get("/tests/loopback-requests", auth=("admin", password))
    assert loopback.status_code == 200
    assert (loopback.json()["status"], loopback.json()["label"]) == ("good", "Your site can perform loopback requests")
    cache = get("/tests/page-cache", auth=("admin", password)).json()
    assert cache["status"] in ("good", "critical")  # the site's own page cache; critical only if slow
    assert cache["label"].startswith("Page cache is detected")
    assert get("/tests/authorization-header", auth=("admin", password)).json()["label"] == "The authorization header is invalid"
    assert get("/tests/authorization-header", auth=("user", "pwd")).json()["code"] == "invalid_username"
    assert get("/tests/background-updates").status_code == 401

    # The doctor, in this process, against the server: its requests go to the server itself, and
    # none to WordPress.org (nothing this service needs).
    monkeypatch.setattr(health_checks, "GOOD_RESPONSE_TIME_MS", 60_000)  # a loaded test machine is not the point here
    monkeypatch.setenv("CALPRESS_OUTBOUND_ALLOW", f"127.0.0.1:{live_server.url.rsplit(':', 1)[1]}")
    code = main([*data, "--site-url", live_server.url, "doctor"])
    out = capsys.readouterr().out
    rows = dict(re.findall(r"^(\w+)\s+(good|recommended|critical)\s", out, re.MULTILINE))
    assert rows == {
        "background_updates": "good",
        "uploads": "good",
        "loopback_requests": "good",
        "https_status": "recommended",
        "authorization_header": "good",
        "page_cache": "good",
    }, out
    assert code == 0
    assert re.search(r"^uploads_size\s+The directory does not exist\.$", out, re.MULTILINE)
    assert re.search(r"^total_size\s+\S+ [KMG]?B \(\d+ bytes\)$", out, re.MULTILINE)


def test_the_doctor_exits_1_on_a_critical_check(db_url, engine, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CALPRESS_SECRET_KEY", "doctor-test-secret")
    closed = f"http://127.0.0.1:{free_port()}"
    previous = store_db._script_directory().get_revision(store_db.head_revision()).down_revision
    with store_db.write_transaction(engine) as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :v"), {"v": previous})
    data = ["--data-dir", str(tmp_path / "data"), "--database-url", db_url, "--site-url", closed]
    code = main([*data, "doctor", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert statuses == {
        "background_updates": "critical",  # not migrated first: the doctor reports what it finds
        "uploads": "good",
        "loopback_requests": "critical",
        "https_status": "recommended",
        "authorization_header": "recommended",  # no application password on this site yet
        "page_cache": "recommended",
    }
    assert report["status"] == "critical"
    assert all(check["fix"] for check in report["checks"] if check["status"] != "good")
    assert list(report["directory_sizes"]) == SIZE_KEYS
    assert store_db.current_revision(engine) == previous
