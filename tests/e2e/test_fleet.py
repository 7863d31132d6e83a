"""The multi-machine setup of docs/deploy.md ("Several machines"), run on one machine: three
``calpress serve`` nodes (a data folder each, one PostgreSQL schema, one CALPRESS_SECRET_KEY,
uploads in the moto S3 server of tests/s3fixtures.py) behind nginx as the balancer, with
CALPRESS_TRUSTED_PROXIES=127.0.0.1.

Opt-in (it takes a few minutes and starts many processes):

    CALPRESS_FLEET=1 pytest tests/e2e/test_fleet.py -p no:cacheprovider -q -s

Every check runs, under 16 concurrent clients through the balancer, and its outcome is printed;
the test fails at the end when any check failed, naming them all. The nodes' ports are known, so
a check that must read on another node than the one that wrote asks that node directly.
"""

from __future__ import annotations

import datetime as dt
import http.server
import json
import os
import secrets
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from appfixtures import free_port, loopback_server, stop_process

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CLIENTS = 16
LOGIN_PASSWORD = "fleet-login-secret"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(os.environ.get("CALPRESS_FLEET") != "1",
                       reason="opt-in: set CALPRESS_FLEET=1 (CALPRESS_FLEET=1 pytest tests/e2e/test_fleet.py -p no:cacheprovider -q -s)"),
    pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (scripts/test installs Debian's nginx)"),
    pytest.mark.parametrize("db_leg", ["postgresql"], indirect=True),
]


# -- the nodes and the balancer -------------------------------------------------------------------


@dataclass
class Node:
    name: str
    port: int
    env: dict[str, str]
    folder: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.folder / "server.log", "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "calpress", "serve"], env=self.env, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{self.name} did not start:\n" + (self.folder / "server.log").read_text()[-3000:])
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_process(self.process)

    def kill9(self) -> None:
        """The machine dies: every process of the node at once (Granian's workers too)."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def cli(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "calpress", *args], env=self.env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout


@contextmanager
def balancer(folder: Path, nodes: list[Node]) -> Iterator[str]:
    """nginx, unprivileged in ``folder``, balancing over ``nodes`` with the recipe's proxy headers
    (docs/deploy/nginx.conf), plain HTTP (TLS is test_nginx_recipe.py's business)."""
    folder.mkdir(parents=True, exist_ok=True)
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / temp).mkdir(exist_ok=True)
    port = free_port()
    servers = "\n".join(f"        server 127.0.0.1:{node.port} max_fails=1 fail_timeout=2s;" for node in nodes)
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(f"""{user}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream calpress {{
{servers}
        keepalive 16;
    }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 100m;
        gzip off;
        location / {{
            proxy_pass http://calpress;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $host;
            proxy_set_header Forwarded "";
            proxy_set_header X-Request-Id $request_id;
            proxy_connect_timeout 2s;
            proxy_read_timeout 60s;
            proxy_buffer_size 16k;
            proxy_buffers 16 16k;
        }}
    }}
}}
""")
    command = [NGINX, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(folder / "nginx.conf")]
    process = subprocess.Popen([*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            httpx.get(url + "/healthz", timeout=1)
            break
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError("nginx did not start: " + (folder / "error.log").read_text()) from None
            time.sleep(0.05)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


# What each node's timer runs, started ahead: calpress loaded, then ``calpress import run-due`` at
# the instant given (seconds since the epoch), so that the three nodes' runs really meet.
SYNCHRONISED_RUN_DUE = (
    "import sys, time\n"
    "from calpress import cli\n"
    "time.sleep(max(0.0, float(sys.argv[1]) - time.time()))\n"
    "sys.exit(cli.main(['import', 'run-due', '--quiet']))\n"
)


# -- load ------------------------------------------------------------------------------------------


@dataclass
class Load:
    """CLIENTS threads sending ``step`` through the balancer until stopped; every answer's status
    (or exception) is kept with the moment it came."""

    url: str
    step: Callable[[httpx.Client, int], httpx.Response]
    outcomes: list[tuple[float, float, Any]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def _run(self, number: int) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            n = 0
            while not self._stop.is_set():
                began = time.monotonic()
                try:
                    outcome: Any = self.step(client, number * 1_000_000 + n)
                except httpx.HTTPError as err:
                    outcome = err
                self.outcomes.append((began, time.monotonic(), outcome))
                n += 1

    def __enter__(self) -> Load:
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(CLIENTS)]
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def failures(self) -> list[tuple[float, float, Any]]:
        return [o for o in self.outcomes if isinstance(o[2], Exception) or o[2].status_code >= 500]


def read_step(client: httpx.Client, n: int) -> httpx.Response:
    paths = ("/wp-json/cms/v2/posts?per_page=5", "/", "/wp-json/cal/events/v1/events", "/wp-json/cms/v2/posts?per_page=2&page=2")
    return client.get(paths[n % len(paths)])


# -- the test ----------------------------------------------------------------------------------------


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0\xff\0\0")) + chunk(b"IEND", b"")


def ics(days: int) -> bytes:
    start = dt.date.today() + dt.timedelta(days=10)
    events = "".join(
        f"BEGIN:VEVENT\r\nUID:fleet-{n}@example.test\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART:{(start + dt.timedelta(days=n)).strftime('%Y%m%d')}T180000Z\r\n"
        f"DTEND:{(start + dt.timedelta(days=n)).strftime('%Y%m%d')}T200000Z\r\nSUMMARY:Fleet feed event {n}\r\nEND:VEVENT\r\n"
        for n in range(days))
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fleet//EN\r\n{events}END:VCALENDAR\r\n".encode()


class FeedHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = ics(3)
        self.send_response(200)
        self.send_header("Content-Type", "text/calendar")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_fleet(db_leg, db_url, engine, s3_server, tmp_path):
    results: dict[str, str] = {}

    def check(name: str, body: Callable[[], None]) -> None:
        try:
            body()
        except Exception as err:  # noqa: BLE001 - every check runs; the test fails at the end
            results[name] = f"FAILED: {type(err).__name__}: {str(err)[:600]}"
        else:
            results[name] = "passed"
        print(f"\n[fleet] {name}: {results[name]}", flush=True)

    with loopback_server(FeedHandler) as feed_url:
        feed_port = feed_url.rsplit(":", 1)[1].split("/")[0]
        common = {
            **os.environ,
            "CALPRESS_DATABASE_URL": db_url,
            "CALPRESS_SECRET_KEY": secrets.token_hex(32),
            "CALPRESS_HOST": "127.0.0.1",
            "CALPRESS_SITE_URL": "",
            "CALPRESS_ENVIRONMENT": "local",
            "CALPRESS_TRUSTED_PROXIES": "127.0.0.1",
            "CALPRESS_ACCESS_LOG": "off",
            "CALPRESS_S3_BUCKET": "media",
            "CALPRESS_S3_ENDPOINT": s3_server.endpoint,
            "CALPRESS_S3_ACCESS_KEY": s3_server.access_key,
            "CALPRESS_S3_SECRET_KEY": s3_server.secret_key,
            "CALPRESS_S3_PREFIX": f"fleet{secrets.token_hex(4)}",
            "CALPRESS_OUTBOUND_ALLOW": f"127.0.0.1:{s3_server.port},127.0.0.1:{feed_port}",
        }
        nodes = []
        for n in range(3):
            port = free_port()
            folder = tmp_path / f"node{n}"
            folder.mkdir()
            nodes.append(Node(f"node{n}", port, {**common, "CALPRESS_DATA_DIR": str(folder / "data"),
                                                 "CALPRESS_PORT": str(port)}, folder))
        try:
            for node in nodes:
                node.start()
            nodes[0].cli("user", "create", "admin", "admin@example.test", "--role=administrator",
                         f"--user_pass={LOGIN_PASSWORD}")
            password = nodes[0].cli("user", "application-password", "create", "admin", "fleet", "--porcelain").strip()
            auth = ("admin", password)
            _checks(check, nodes, tmp_path, auth, engine, feed_url)
        finally:
            for node in nodes:
                node.stop()

    print("\n[fleet] summary:")
    for name, outcome in results.items():
        print(f"[fleet]   {name}: {outcome}")
    failed = [name for name, outcome in results.items() if outcome != "passed"]
    assert not failed, f"checks failed: {failed}"


def _checks(check: Callable[[str, Callable[[], None]], None], nodes: list[Node], tmp_path: Path, auth: tuple[str, str],
            engine: sa.Engine, feed_url: str) -> None:
    def rest(node: Node) -> httpx.Client:
        return httpx.Client(base_url=node.url + "/wp-json", auth=auth, timeout=30)

    # 5. Scheduled publishing, set up first: WordPress publishes at once a post dated less than a
    # minute ahead, so the post is due a minute from now, when checks 1-4, 6 and 7 are done. From
    # then on a watcher reads the change log (what every write records, store/changes.py): one
    # entry must name the post, whichever node's reader noticed it first.
    due = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=62)
    future_title = f"Fleet future {secrets.token_hex(3)}"
    with rest(nodes[0]) as a:
        future = a.post("/cms/v2/posts", json={"title": future_title, "status": "future",
                                                "date_gmt": due.strftime("%Y-%m-%dT%H:%M:%S")})
    with engine.connect() as conn:
        since = conn.execute(sa.text("SELECT value FROM counters WHERE name = 'content'")).scalar()
    mentions: set[int] = set()
    watching = threading.Event()

    def watch() -> None:
        last = since
        while not watching.is_set():
            with engine.connect() as conn:
                rows = conn.execute(sa.text("SELECT generation, touched FROM changes WHERE generation > :g"),
                                    {"g": last}).all()
            for generation, touched in rows:
                last = max(last, generation)
                if future.status_code == 201 and future.json()["id"] in json.loads(touched).get("item", []):
                    mentions.add(generation)
            time.sleep(0.3)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()

    with balancer(tmp_path / "nginx3", nodes) as lb:
        def background_write(client: httpx.Client, n: int) -> httpx.Response:
            if n % 8 == 0:
                return client.post("/wp-json/cms/v2/posts", json={"title": f"Load {n}", "status": "publish"}, auth=auth)
            return read_step(client, n)

        with Load(lb, background_write) as load:
            # 1. A write through one node is read at once through another.
            def write_then_read() -> None:
                with rest(nodes[0]) as a, rest(nodes[1]) as b, rest(nodes[2]) as c:
                    for i in range(12):
                        writer, reader, lister = [(a, b, c), (b, c, a), (c, a, b)][i % 3]
                        title = f"Fleet write {i} {secrets.token_hex(3)}"
                        listing = lister.get("/cms/v2/posts", params={"search": "Fleet write", "per_page": 100})
                        assert listing.status_code == 200
                        made = writer.post("/cms/v2/posts", json={"title": title, "status": "publish"})
                        assert made.status_code == 201, made.text[:300]
                        post_id = made.json()["id"]
                        read = reader.get(f"/cms/v2/posts/{post_id}")
                        assert read.status_code == 200 and read.json()["title"]["rendered"] == title, read.text[:300]
                        listed = lister.get("/cms/v2/posts", params={"search": "Fleet write", "per_page": 100})
                        assert post_id in [p["id"] for p in listed.json()], f"post {post_id} missing in the listing of another node"
                        page = lister.get(f"/cms/v2/posts/{post_id}")
                        changed = writer.post(f"/cms/v2/posts/{post_id}", json={"title": title + " (changed)"})
                        assert page.status_code == 200 and changed.status_code == 200
                        again = lister.get(f"/cms/v2/posts/{post_id}")
                        assert again.json()["title"]["rendered"] == title + " (changed)", "a stale answer after an update"
            check("write on one node, read at once on the others", write_then_read)

            # 2. A login cookie and a REST nonce made by one node work on the others.
            def cookie_and_nonce() -> None:
                with httpx.Client(timeout=30) as browser:
                    login = browser.post(nodes[0].url + "/wp-login.php", data={"log": "admin", "pwd": LOGIN_PASSWORD})
                    assert login.status_code == 302, login.status_code
                    nonce = browser.get(nodes[1].url + "/wp-admin/admin-ajax.php", params={"action": "rest-nonce"})
                    assert nonce.status_code == 200 and nonce.text, nonce.text[:200]
                    me = browser.get(nodes[2].url + "/wp-json/cms/v2/users/me", headers={"X-WP-Nonce": nonce.text})
                    assert me.status_code == 200 and me.json()["slug"] == "admin", me.text[:300]
                    dashboard = browser.get(nodes[2].url + "/wp-admin/")
                    assert dashboard.status_code == 200, dashboard.status_code
                    through = browser.get(lb + "/wp-json/cms/v2/users/me", headers={"X-WP-Nonce": nonce.text})
                    assert through.status_code == 200, through.text[:300]
            check("login cookie and nonce of one node accepted by the others", cookie_and_nonce)

            # 3. An upload through one node is served by the others.
            def upload() -> None:
                image = png()
                with rest(nodes[1]) as b:
                    made = b.post("/cms/v2/media", content=image, headers={
                        "Content-Type": "image/png", "Content-Disposition": "attachment; filename=fleet.png"})
                assert made.status_code == 201, made.text[:300]
                path = "/wp-content/uploads/" + made.json()["media_details"]["file"]
                for node in (nodes[0], nodes[2]):
                    served = httpx.get(node.url + path, timeout=30)
                    assert served.status_code == 200 and served.content == image, (node.name, served.status_code)
                assert httpx.get(lb + path, timeout=30).content == image
            check("upload through one node served by the others", upload)

            # 4. A scheduled import runs once per schedule, although every node's timer runs
            # ``calpress import run-due``: three processes, one per node, each started ahead and
            # waiting for the same instant (timers firing in the same second), for three schedules.
            def scheduled_import() -> None:
                counts = []
                for wave in range(3):
                    schedule_id = int(nodes[0].cli("import", "schedule", f"{feed_url}/fleet{wave}.ics", "--every=3600",
                                                   "--porcelain").strip())
                    at = time.time() + 4
                    runs = [subprocess.Popen([sys.executable, "-c", SYNCHRONISED_RUN_DUE, str(at)], env=node.env,
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for node in nodes]
                    for run in runs:
                        out, _ = run.communicate(timeout=120)
                        assert run.returncode == 0, out.decode()[-2000:]
                    with engine.connect() as conn:
                        counts.append(conn.execute(sa.text(
                            "SELECT count(*) FROM posts WHERE type = 'cal-ea-record' AND parent = :id"), {"id": schedule_id}).scalar())
                with engine.connect() as conn:
                    events = conn.execute(sa.text("SELECT count(*) FROM posts WHERE title LIKE 'Fleet feed event %'")).scalar()
                # Three feeds (a source each) of three events: nine events, none twice.
                assert (counts, events) == ([1, 1, 1], 9), \
                    f"runs per schedule {counts} (expected one each), {events} events (expected 9)"
            check("scheduled feed import runs once, not once per node", scheduled_import)

        failures = load.failures()
        print(f"\n[fleet] background load during checks 1-4: {len(load.outcomes)} requests, {len(failures)} failed")
        check("no failed request under the checks' load",
              lambda: _no_failures(failures))

        # 6. A rolling restart, one node at a time, fails no request.
        def rolling_restart() -> None:
            with Load(lb, background_write) as load:
                time.sleep(1)
                for node in nodes:
                    node.stop()
                    time.sleep(0.5)
                    node.start()
                    time.sleep(1)
            failures = load.failures()
            print(f"\n[fleet] rolling restart: {len(load.outcomes)} requests, {len(failures)} failed")
            _no_failures(failures)
        check("rolling restart fails no request", rolling_restart)

        # 7. kill -9 of a node: no acknowledged write lost, only its in-flight requests fail.
        def kill_nine() -> None:
            created: list[int] = []
            lock = threading.Lock()

            def write(client: httpx.Client, n: int) -> httpx.Response:
                answer = client.post("/wp-json/cms/v2/posts", json={"title": f"Kill {n}", "status": "publish"}, auth=auth)
                if answer.status_code == 201:
                    with lock:
                        created.append(answer.json()["id"])
                return answer

            with Load(lb, write) as load:
                time.sleep(2)
                killed_at = time.monotonic()
                nodes[1].kill9()
                time.sleep(3)
            failures = load.failures()
            print(f"\n[fleet] kill -9: {len(load.outcomes)} writes, {len(created)} acknowledged, {len(failures)} failed")
            assert len(failures) <= CLIENTS, f"{len(failures)} failures, more than the requests in flight"
            late = [f for f in failures if f[0] > killed_at + 0.1]
            assert not late, f"{len(late)} requests sent after the kill failed: {late[:3]}"
            nodes[1].start()
            with rest(nodes[1]) as b:
                missing = [i for i in created if b.get(f"/cms/v2/posts/{i}").status_code != 200]
            assert not missing, f"acknowledged writes lost: {missing[:10]}"
        check("kill -9 loses no acknowledged write and fails only in-flight requests", kill_nine)

        def scheduled_publishing() -> None:
            assert future.status_code == 201 and future.json()["status"] == "future", future.text[:300]
            post_id = future.json()["id"]
            with Load(lb, read_step):  # the readers of every node look for due items once a second
                time.sleep(max(0.0, (due - dt.datetime.now(dt.UTC)).total_seconds()) + 4)
            time.sleep(1)
            watching.set()
            watcher.join()
            for node in nodes:
                with rest(node) as client:
                    read = client.get(f"/cms/v2/posts/{post_id}")
                    assert read.json()["status"] == "publish", (node.name, read.json()["status"])
                    listed = client.get("/cms/v2/posts", params={"search": future_title})
                    assert [p["id"] for p in listed.json()] == [post_id], (node.name, listed.text[:300])
            assert len(mentions) == 1, f"the post was written {len(mentions)} times after its creation: {sorted(mentions)}"
        check("scheduled publishing happens once", scheduled_publishing)

    # 8. Throughput of reads through the balancer with one, two and three nodes.
    figures = {}
    for count in (1, 2, 3):
        with balancer(tmp_path / f"nginx-{count}", nodes[:count]) as lb:
            with Load(lb, read_step):
                time.sleep(1)
            with Load(lb, read_step) as load:
                time.sleep(6)
            ok = [o for o in load.outcomes if not isinstance(o[2], Exception) and o[2].status_code == 200]
            span = max(o[1] for o in load.outcomes) - min(o[0] for o in load.outcomes)
            figures[count] = len(ok) / span
    print("\n[fleet] throughput of reads through nginx, 16 clients: "
          + ", ".join(f"{count} node(s) {rate:.0f} requests/s" for count, rate in figures.items()), flush=True)


def _no_failures(failures: list[tuple[float, float, Any]]) -> None:
    assert not failures, f"{len(failures)} failed: " + "; ".join(
        repr(f[2]) if isinstance(f[2], Exception) else f"{f[2].status_code} {f[2].request.method} {f[2].request.url.path}"
        for f in failures[:5])
