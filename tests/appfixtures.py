"""App fixtures: a real calpress app over the per-test database, an in-process HTTP client, and
users of every role with application passwords. Loaded from conftest as a pytest plugin."""

from __future__ import annotations

import base64
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import falcon.testing
import pytest

from calpress.app import Calpress
from calpress.auth import app_passwords, users
from calpress.config import load_settings

ROLES = ("administrator", "editor", "author", "contributor", "subscriber")


@pytest.fixture(autouse=True, scope="session")
def cheap_login_password_hashing():
    """argon2 at its production cost takes a third of a second per hash; tests create many
    users, so they hash with the cheapest parameters (verification reads them from the hash)."""
    from argon2 import PasswordHasher

    saved = users._hasher
    users._hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    yield
    users._hasher = saved


@dataclass
class Account:
    id: int
    login: str
    email: str
    role: str
    password: str
    app_password: str
    app_password_uuid: str

    @property
    def basic(self) -> dict[str, str]:
        token = base64.b64encode(f"{self.login}:{self.app_password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}


@contextmanager
def loopback_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` served from a thread on a free loopback port: yields ``http://127.0.0.1:<port>``
    (for a module's ``outbound_allow`` override: :func:`allowed` and :func:`allowed_ports`)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def allowed(address: str) -> str:
    """``CALPRESS_OUTBOUND_ALLOW`` for a loopback_server address."""
    return address.removeprefix("http://")


def allowed_ports(address: str) -> str:
    """``CALPRESS_OUTBOUND_PORTS``: the default's and the loopback_server's."""
    return "80,443," + address.rsplit(":", 1)[1]


@pytest.fixture()
def outbound_allow() -> str:
    """``CALPRESS_OUTBOUND_ALLOW`` of the test app: nothing, so its outbound requests are guarded
    as in production (loopback refused). A test module that serves files from loopback overrides
    this fixture to allow-list its server (``127.0.0.1:<port>``)."""
    return ""


@pytest.fixture()
def outbound_ports() -> str:
    """``CALPRESS_OUTBOUND_PORTS`` of the test app: the default's; overridable as ``outbound_allow``."""
    return "80,443,8080"


@pytest.fixture()
def settings(db_url, tmp_path, outbound_allow, outbound_ports):
    return load_settings(
        {
            "data_dir": str(tmp_path / "data"),
            "database_url": db_url,
            "secret_key": secrets.token_hex(16),
            "environment": "local",
            "site_url": "http://example.test",
            "outbound_allow": outbound_allow,
            "outbound_ports": outbound_ports,
        },
        environ={},
    )


@pytest.fixture()
def app(settings):
    calpress = Calpress(settings)
    yield calpress
    calpress.site.close()


class RestClient:
    """Falcon's test client with REST conveniences: ``client.get("/cms/v2/users/me", user=admin)``."""

    def __init__(self, app: Calpress) -> None:
        self.app = app
        self.http = falcon.testing.TestClient(app.wsgi)

    def request(self, method: str, path: str, *, user: Account | None = None, headers: dict[str, str] | None = None, **kwargs: Any):
        all_headers = dict(headers or {})
        if user is not None:
            all_headers.update(user.basic)
        return self.http.simulate_request(method, path, headers=all_headers, **kwargs)

    def get(self, path: str, **kwargs: Any):
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any):
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any):
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any):
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any):
        return self.request("DELETE", path, **kwargs)


@pytest.fixture()
def client(app):
    return RestClient(app)


def create_account(app: Calpress, login: str, role: str, *, app_password: bool = True) -> Account:
    password = "pw-" + secrets.token_hex(8)
    with app.site.write() as conn:
        user = users.create_user(conn, login=login, email=f"{login}@example.test", password=password, roles=[role])
        raw, uuid = "", ""
        if app_password:
            record, raw = app_passwords.create(conn, user.id, f"{login} tests", app.settings.secret_key)
            uuid = record.uuid
    if app_password:
        app.site.mark_app_passwords_in_use()
    return Account(user.id, user.login, user.email, role, password, raw, uuid)


@pytest.fixture()
def make_account(app):
    def make(login: str, role: str = "subscriber", **kwargs: Any) -> Account:
        return create_account(app, login, role, **kwargs)

    return make


@pytest.fixture()
def accounts(app) -> dict[str, Account]:
    """One user per role, each with an application password; keys are the role names."""
    return {role: create_account(app, role, role) for role in ROLES}


@pytest.fixture()
def admin(accounts) -> Account:
    return accounts["administrator"]


# -- a real server process ----------------------------------------------------------------------


@dataclass
class LiveServer:
    url: str
    env: dict[str, str]
    process: Any

    def cli(self, *args: str) -> str:
        """Run ``python -m calpress`` against this server's settings; returns stdout."""
        import subprocess
        import sys

        result = subprocess.run([sys.executable, "-m", "calpress", *args], env=self.env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"calpress {' '.join(args)} failed: {result.stderr}")
        return result.stdout


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serving(db_url: str, folder: Any, **settings: str) -> Iterator[LiveServer]:
    """``calpress serve`` as a real process on a free loopback port, over ``db_url``, with extra
    ``CALPRESS_*`` settings (``body_timeout="2"`` sets CALPRESS_BODY_TIMEOUT); stopped after."""
    import os
    import subprocess
    import sys
    import time

    import httpx

    port = free_port()
    env = {
        **os.environ,
        "CALPRESS_DATA_DIR": str(folder / "live"),
        "CALPRESS_DATABASE_URL": db_url,
        "CALPRESS_HOST": "127.0.0.1",
        "CALPRESS_PORT": str(port),
        "CALPRESS_SITE_URL": "",
        "CALPRESS_ENVIRONMENT": "local",
        **{f"CALPRESS_{name.upper()}": value for name, value in settings.items()},
    }
    log = open(folder / "server.log", "wb")
    # A session of its own: a signal the server sends its process group (Granian stopping its
    # workers) must not reach the test process (a stray KeyboardInterrupt was seen in CI).
    process = subprocess.Popen([sys.executable, "-m", "calpress", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url + "/wp-json/", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log.close()
            raise AssertionError("calpress serve did not start:\n" + (folder / "server.log").read_text())
        time.sleep(0.1)
    try:
        yield LiveServer(url, env, process)
    finally:
        stop_process(process)
        log.close()


def migrated_sqlite(folder: Any) -> str:
    """The URL of a new SQLite database in ``folder``, migrated to the newest revision."""
    from calpress.store import db as store_db

    db_url = f"sqlite:///{folder / 'calpress.sqlite3'}"
    engine = store_db.create_engine(db_url)
    try:
        store_db.upgrade(engine)
    finally:
        engine.dispose()
    return db_url


@contextmanager
def serving_with_admin(folder: Any) -> Iterator[tuple[LiveServer, Any]]:
    """A real ``calpress serve`` over a new SQLite database in ``folder``, with an administrator
    (``admin``) whose application password signs the yielded httpx client's requests."""
    import httpx

    with serving(migrated_sqlite(folder), folder) as server:
        server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
        password = server.cli("user", "application-password", "create", "admin", "tests", "--porcelain").strip()
        with httpx.Client(base_url=server.url, auth=("admin", password), timeout=20) as rest:
            yield server, rest


def stop_process(process: Any) -> None:
    """Stop a server process the tests started: politely, then for good after 10 s."""
    import subprocess

    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture()
def live_server(db_url, tmp_path):
    """``calpress serve`` as a real process on a free loopback port, over the test's database."""
    with serving(db_url, tmp_path) as server:
        yield server


@pytest.fixture()
def live_server_with_aliases(db_url, tmp_path):
    """``live_server`` started with ``CALPRESS_COMPAT_ALIASES=1``: every route answers under the
    reference's names too (``wp/v2``, ``tribe/events/v1``...), for clients that hard-code them."""
    with serving(db_url, tmp_path, compat_aliases="1") as server:
        yield server
