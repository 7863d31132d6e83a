"""Durability under crashes (issue 9), opt in: ``CALPRESS_DURABILITY=1 scripts/test tests/durability``.

Several server workers on one database, concurrent writers creating posts over real HTTP, kill -9
of one worker and then of the whole server while they write, a restart: every write the server
acknowledged (a 201 with an id) is still there, the listed total equals the rows, and no two
items share a slug. Runs on each database leg. ``CALPRESS_DURABILITY_SECONDS`` sets the length of
each write phase (default 8)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from appfixtures import free_port

pytestmark = pytest.mark.skipif(os.environ.get("CALPRESS_DURABILITY") != "1",
                                reason="opt in: CALPRESS_DURABILITY=1 (kills server processes; about a minute per database)")

SECONDS = float(os.environ.get("CALPRESS_DURABILITY_SECONDS", "8"))
WRITERS = 8


class Server:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.url = f"http://127.0.0.1:{env['CALPRESS_PORT']}"
        self.process: subprocess.Popen | None = None

    def cli(self, *args: str) -> str:
        return subprocess.run([sys.executable, "-m", "calpress", *args], env=self.env, check=True, capture_output=True,
                              text=True, timeout=60).stdout.strip()

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "calpress", "serve", "--workers", "3"], env=self.env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/wp-json/", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("the server did not start:\n" + self.log.read_text())

    def workers(self) -> list[int]:
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout.split()
        return [int(pid) for pid in found]

    def kill_all(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


def _write(server: Server, auth: tuple[str, str], until: float, acknowledged: list[int], lock: threading.Lock, tag: str) -> None:
    with httpx.Client(base_url=server.url, auth=auth, timeout=5) as client:
        n = 0
        while time.monotonic() < until:
            n += 1
            try:
                answer = client.post("/cms/v2/posts", json={"title": f"{tag} {n}", "status": "publish", "content": "x" * 200})
            except httpx.HTTPError:
                continue  # the worker died mid-request: not acknowledged, nothing to check
            if answer.status_code == 201:
                with lock:
                    acknowledged.append(answer.json()["id"])


def _phase(server: Server, auth: tuple[str, str], seconds: float, tag: str, during=None) -> list[int]:
    acknowledged: list[int] = []
    lock = threading.Lock()
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=_write, args=(server, auth, until, acknowledged, lock, f"{tag}-{i}")) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    if during is not None:
        time.sleep(seconds / 2)
        during()
    for thread in threads:
        thread.join()
    return acknowledged


def test_no_acknowledged_write_is_lost_when_workers_and_the_server_are_killed(db_url, tmp_path):
    env = {**os.environ, "CALPRESS_DATA_DIR": str(tmp_path / "site"), "CALPRESS_DATABASE_URL": db_url,
           "CALPRESS_HOST": "127.0.0.1", "CALPRESS_PORT": str(free_port()), "CALPRESS_SITE_URL": "",
           "CALPRESS_ENVIRONMENT": "local"}
    server = Server(env, tmp_path / "server.log")
    server.cli("user", "create", "writer", "writer@example.test", "--role=administrator", "--porcelain")
    auth = ("writer", server.cli("user", "application-password", "create", "writer", "durability", "--porcelain"))
    server.start()
    acknowledged: list[int] = []
    try:
        # One worker killed halfway: the server starts another, the others go on.
        acknowledged += _phase(server, auth, SECONDS, "worker", during=lambda: os.kill(server.workers()[0], signal.SIGKILL))
        # The whole server killed halfway, then started again.
        acknowledged += _phase(server, auth, SECONDS, "server", during=server.kill_all)
        server.start()
        acknowledged += _phase(server, auth, SECONDS / 2, "after")
        assert len(acknowledged) > 50, "too few writes to judge"
        with httpx.Client(base_url=server.url, auth=auth, timeout=30) as client:
            listed = client.get("/cms/v2/posts", params={"per_page": 1, "status": "publish", "context": "edit"})
            total = int(listed.headers["X-WP-Total"])
            ids: set[int] = set()
            slugs: list[str] = []
            page = 1
            while True:
                batch = client.get("/cms/v2/posts", params={"per_page": 100, "page": page, "status": "publish",
                                                            "_fields": "id,slug", "context": "edit"})
                ids.update(item["id"] for item in batch.json())
                slugs += [item["slug"] for item in batch.json()]
                if page >= int(batch.headers["X-WP-TotalPages"]):
                    break
                page += 1
        missing = sorted(set(acknowledged) - ids)
        assert missing == [], f"{len(missing)} acknowledged writes lost"
        assert total == len(ids) >= len(set(acknowledged))
        assert len(slugs) == len(set(slugs)), "duplicate slugs"
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill_all()
