"""The Caddy recipe of docs/deploy.md, run: docs/deploy/Caddyfile (the file the document shows)
under a global block that keeps Caddy inside a temporary folder (no admin endpoint, no system
trust store, free ports, its internal CA for the certificate), in front of a real
``calpress serve``, checked over HTTPS.

Caddy is Debian's package (2.6 in bookworm), installed by scripts/test; without it these tests
are skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from appfixtures import free_port, serving, stop_process
from test_nginx_recipe import FORGED, echo_upstream, png

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("caddy") is None,
                       reason="caddy is not installed (scripts/test installs Debian's caddy when it runs as root)"),
]

RECIPE = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "Caddyfile"


def caddy_version() -> tuple[int, int]:
    found = re.search(r"v?(\d+)\.(\d+)", subprocess.run(["caddy", "version"], capture_output=True, text=True).stdout)
    assert found, "caddy version printed no version"
    return int(found.group(1)), int(found.group(2))


@contextmanager
def caddy(folder: Path, upstream: str, uploads: Path, *, limit: str = "100MiB") -> Iterator[str]:
    """Caddy running the recipe in ``folder`` in front of ``upstream``; yields its https address."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    recipe = RECIPE.read_text()
    swaps = [
        ("calendar.example.org {", f"https://127.0.0.1:{port} {{\n\ttls internal"),
        ("/var/lib/calpress/data/uploads", str(uploads)),
        ("reverse_proxy 127.0.0.1:8080", f"reverse_proxy {upstream}"),
        ("max_size 100MiB", f"max_size {limit}"),
    ]
    for example, own in swaps:
        assert example in recipe, f"docs/deploy/Caddyfile no longer holds {example!r}"
        recipe = recipe.replace(example, own)
    (folder / "Caddyfile").write_text(f"""{{
	admin off
	skip_install_trust
	auto_https disable_redirects
	http_port {free_port()}
	https_port {port}
	storage file_system {folder}/storage
}}

{recipe}""")
    env = {**os.environ, "HOME": str(folder), "XDG_DATA_HOME": str(folder / "data"), "XDG_CONFIG_HOME": str(folder / "config")}
    log = open(folder / "caddy.log", "wb")
    process = subprocess.Popen(["caddy", "run", "--config", str(folder / "Caddyfile"), "--adapter", "caddyfile"],
                               env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    # Ready when a TLS handshake succeeds: Caddy listens before its internal CA has issued the
    # site's certificate, and a handshake in between ends in "tlsv1 alert internal error".
    handshake = ssl.create_default_context()
    handshake.check_hostname = False
    handshake.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                handshake.wrap_socket(sock, server_hostname="127.0.0.1").close()
            break
        except OSError:  # ssl.SSLError included
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                log.close()
                raise AssertionError("caddy did not start: " + (folder / "caddy.log").read_text()) from None
            time.sleep(0.05)
    try:
        yield f"https://127.0.0.1:{port}"
    finally:
        stop_process(process)
        log.close()


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_calpress_behind_the_caddy_recipe(db_url, tmp_path):
    limit = 1024 * 1024
    uploads = tmp_path / "live" / "uploads"
    with serving(db_url, tmp_path, max_upload=str(limit)) as server:
        server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
        password = server.cli("user", "application-password", "create", "admin", "proxy", "--porcelain").strip()
        with caddy(tmp_path / "caddy", server.url.removeprefix("http://"), uploads, limit="1MiB") as url, \
                httpx.Client(base_url=url, verify=False, timeout=20) as client:
            direct = httpx.get(server.url + "/", headers={"Accept-Encoding": "identity"})
            index = client.get("/", headers={"Accept-Encoding": "br, gzip"})
            assert index.status_code == 200 and index.headers["content-encoding"] in ("br", "gzip")
            assert index.json()["routes"].keys() == direct.json()["routes"].keys()
            assert client.get("/", headers={"Accept-Encoding": "br, gzip", "If-None-Match": index.headers["etag"]}).status_code == 304
            page = client.get("/events/", headers={"Accept": "text/html"})
            assert page.status_code == 200 and "</html>" in page.text

            image = png()
            made = client.post("/wp-json/cms/v2/media", content=image, auth=("admin", password), headers={
                "Content-Type": "image/png", "Content-Disposition": "attachment; filename=poster.png"})
            assert made.status_code == 201, made.text
            served = client.get("/wp-content/uploads/" + made.json()["media_details"]["file"])
            assert served.status_code == 200 and served.content == image
            # Caddy's file server, not calpress, answered: calpress says "max-age=31536000" only.
            assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert served.headers["server"] == "Caddy"

            big = client.post("/wp-json/cms/v2/media", content=b"\0" * (2 * limit), auth=("admin", password), headers={
                "Content-Type": "image/png", "Content-Disposition": "attachment; filename=big.png"})
            # Caddy 2.6 answers the limit with 502 (caddyserver/caddy#5652, 413 from 2.7 on);
            # either way the body never reached calpress (whose own refusal would be JSON).
            assert big.status_code == (502 if caddy_version() < (2, 7) else 413)
            assert "rest_request_too_large" not in big.text

            (uploads / "2026").mkdir(exist_ok=True)
            (uploads / "2026" / "note.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
            active = client.get("/wp-content/uploads/2026/note.svg")
            assert active.status_code == 200 and active.headers["content-disposition"] == "attachment"
            assert active.headers["content-security-policy"].endswith("sandbox")
            (uploads / "2026" / ".ready-x.part").write_bytes(b"partial")
            assert client.get("/wp-content/uploads/2026/.ready-x.part").status_code == 404


def test_caddy_recipe_sends_the_proxy_headers(tmp_path):
    with echo_upstream() as upstream, caddy(tmp_path / "caddy", upstream, tmp_path / "uploads") as url, \
            httpx.Client(base_url=url, verify=False, timeout=10) as client:
        first = client.get("/events/", headers=FORGED).json()
        second = client.get("/events/").json()
    seen = first["headers"]
    assert seen["x-forwarded-for"] == "127.0.0.1"
    assert seen["x-forwarded-proto"] == "https"
    assert seen["x-forwarded-host"].startswith("127.0.0.1")
    assert "forwarded" not in seen
    assert seen["x-request-id"] not in ("", "mine") and seen["x-request-id"] != second["headers"]["x-request-id"]
    assert first["version"] == "HTTP/1.1"
    assert first["peer_port"] == second["peer_port"]
