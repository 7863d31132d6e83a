"""The nginx recipe of docs/deploy.md, run: docs/deploy/nginx.conf (the file the document shows)
with its example values swapped for a temporary folder, free ports and a certificate made here,
nginx started unprivileged (``nginx -p <dir> -c <conf>``, pid, logs and temporary files in that
folder) in front of a real ``calpress serve``, and checked over HTTPS.

nginx is Debian's package, installed by scripts/test; without it these tests are skipped.
"""

from __future__ import annotations

import datetime as dt
import http.server
import io
import ipaddress
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from appfixtures import free_port, serving, stop_process

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
                       reason="nginx is not installed (scripts/test installs Debian's nginx when it runs as root)"),
]

RECIPE = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# The example values of the recipe, each replaced by the test's own.
EXAMPLE_UPSTREAM = "server 127.0.0.1:8080;"
EXAMPLE_UPLOADS = "/var/lib/calpress/data/uploads/"
EXAMPLE_CERT = "/etc/letsencrypt/live/calendar.example.org/fullchain.pem"
EXAMPLE_KEY = "/etc/letsencrypt/live/calendar.example.org/privkey.pem"
EXAMPLE_LIMIT = "client_max_body_size 100m;"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key, made with ``cryptography``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def render(recipe: str, *, upstream: str, uploads: Path, cert: Path, key: Path, http_port: int, https_port: int,
           limit: str = "100m") -> str:
    """The recipe with the test's values; every example value must be found (the document and
    the test cannot drift apart silently)."""
    swaps = [
        (EXAMPLE_UPSTREAM, f"server {upstream};"),
        (EXAMPLE_UPLOADS, f"{uploads}/"),
        (EXAMPLE_CERT, str(cert)),
        (EXAMPLE_KEY, str(key)),
        (EXAMPLE_LIMIT, f"client_max_body_size {limit};"),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        # IPv6 may be missing on a test machine.
        ("listen [::]:80;", ""),
        ("listen [::]:443 ssl http2;", ""),
    ]
    for example, own in swaps:
        assert example in recipe, f"docs/deploy/nginx.conf no longer holds {example!r}"
        recipe = recipe.replace(example, own)
    return recipe


@dataclass
class Proxy:
    url: str
    http_url: str
    folder: Path


@contextmanager
def nginx(folder: Path, upstream: str, uploads: Path, *, limit: str = "100m") -> Iterator[Proxy]:
    """nginx running the recipe in ``folder``, in front of ``upstream``; stopped after."""
    folder.mkdir(parents=True, exist_ok=True)
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / temp).mkdir(exist_ok=True)
    cert, key = self_signed(folder)
    http_port, https_port = free_port(), free_port()
    (folder / "calpress.conf").write_text(render(RECIPE.read_text(), upstream=upstream, uploads=uploads, cert=cert, key=key,
                                                 http_port=http_port, https_port=https_port, limit=limit))
    # The main file an nginx package brings, reduced to what the recipe needs, every path in the
    # folder. As root, nginx would hand its workers to "nobody", who cannot read a test's folder.
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(f"""{user}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {folder}/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/calpress.conf;
}}
""")
    command = [NGINX, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(folder / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen([*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError("nginx did not start: " + (folder / "error.log").read_text()) from None
            time.sleep(0.05)
    try:
        yield Proxy(f"https://127.0.0.1:{https_port}", f"http://127.0.0.1:{http_port}", folder)
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def png(size: int = 64) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (size, size), (200, 30, 60)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_calpress_behind_the_nginx_recipe(db_url, tmp_path):
    """Pages, the REST index and an upload through nginx over HTTPS; the uploaded file then
    served by nginx from the folder, calpress stopped; a body over the limit refused by nginx
    with 413; compressed answers and their ETags passed through intact."""
    limit = 1024 * 1024
    uploads = tmp_path / "live" / "uploads"
    with serving(db_url, tmp_path, max_upload=str(limit)) as server:
        admin = server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
        assert admin
        password = server.cli("user", "application-password", "create", "admin", "proxy", "--porcelain").strip()
        upstream = server.url.removeprefix("http://")
        with nginx(tmp_path / "nginx", upstream, uploads, limit="1m") as proxy:
            with httpx.Client(base_url=proxy.url, verify=False, timeout=20) as client:
                # Plain HTTP is sent to HTTPS.
                moved = httpx.get(proxy.http_url + "/events/", follow_redirects=False)
                assert moved.status_code == 301 and moved.headers["location"].startswith("https://")

                # The site index, compressed by calpress and passed through as it is.
                direct = httpx.get(server.url + "/", headers={"Accept-Encoding": "identity"})
                index = client.get("/", headers={"Accept-Encoding": "br, gzip"})
                assert index.status_code == 200
                assert index.headers["content-encoding"] == "br"
                assert index.headers["vary"].lower().count("accept-encoding") == 1
                assert index.json()["namespaces"] == direct.json()["namespaces"]
                assert index.json()["routes"].keys() == direct.json()["routes"].keys()
                assert int(index.headers["content-length"]) < len(direct.content) / 5
                gzipped = client.get("/", headers={"Accept-Encoding": "gzip"})
                assert gzipped.headers["content-encoding"] == "gzip" and gzipped.json()["routes"] == index.json()["routes"]
                # calpress's ETag goes through, and so does its 304.
                etag = index.headers["etag"]
                assert etag.endswith('-br"')
                again = client.get("/", headers={"Accept-Encoding": "br, gzip", "If-None-Match": etag})
                assert again.status_code == 304

                page = client.get("/events/", headers={"Accept": "text/html"})
                assert page.status_code == 200 and "text/html" in page.headers["content-type"]
                assert "</html>" in page.text
                assert client.get("/healthz").json() == {"status": "ok"}

                # An upload through the proxy, within the limit.
                image = png()
                made = client.post("/wp-json/cms/v2/media", content=image, auth=("admin", password), headers={
                    "Content-Type": "image/png", "Content-Disposition": "attachment; filename=poster.png"})
                assert made.status_code == 201, made.text
                path = "/wp-content/uploads/" + made.json()["media_details"]["file"]
                assert (uploads / made.json()["media_details"]["file"]).read_bytes() == image

                # A body over the limit: nginx answers 413 itself, calpress never sees it.
                big = client.post("/wp-json/cms/v2/media", content=b"\0" * (2 * limit), auth=("admin", password), headers={
                    "Content-Type": "image/png", "Content-Disposition": "attachment; filename=big.png"})
                assert big.status_code == 413
                assert big.headers["server"].startswith("nginx") and "413 Request Entity Too Large" in big.text

                # A file a browser would run is only a sandboxed download, as calpress sends it.
                (uploads / "2026").mkdir(exist_ok=True)
                (uploads / "2026" / "note.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
                active = client.get("/wp-content/uploads/2026/note.svg")
                assert active.status_code == 200 and active.headers["content-disposition"] == "attachment"
                assert active.headers["content-security-policy"].endswith("sandbox")
                assert active.headers["x-content-type-options"] == "nosniff"
                (uploads / "2026" / ".ready-x.part").write_bytes(b"partial")
                assert client.get("/wp-content/uploads/2026/.ready-x.part").status_code == 404

        # calpress stopped: the upload is still served, by nginx from the folder; a page is not.
        stop_process(server.process)
        with nginx(tmp_path / "nginx-again", upstream, uploads, limit="1m") as proxy:
            with httpx.Client(base_url=proxy.url, verify=False, timeout=20) as client:
                served = client.get(path)
                assert served.status_code == 200 and served.content == image
                assert served.headers["content-type"] == "image/png"
                assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
                assert served.headers["x-content-type-options"] == "nosniff"
                assert client.get("/events/").status_code == 502


class _Echo(http.server.BaseHTTPRequestHandler):
    """An upstream that answers each request with the headers it got and the client port of
    its connection (the same port twice: nginx kept the connection open)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        body = json.dumps({"headers": {k.lower(): v for k, v in self.headers.items()},
                           "peer_port": self.client_address[1], "version": self.request_version}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


# What a visitor sends to forge its address and scheme: the recipes must drop or overwrite all of it.
FORGED = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.test",
          "Forwarded": "for=203.0.113.9;proto=http", "X-Request-Id": "mine"}


@contextmanager
def echo_upstream() -> Iterator[str]:
    """An :class:`_Echo` upstream on a free port, as ``host:port``, for a proxy recipe to front."""
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{upstream.server_address[1]}"
    finally:
        upstream.shutdown()
        upstream.server_close()


def test_recipe_sends_the_proxy_headers_and_keeps_the_connection(tmp_path):
    """What calpress gets from the recipe: the visitor's address, https and the host, set by
    nginx whatever the visitor sent (a forged X-Forwarded-For or Forwarded never reaches
    calpress), a request id, and HTTP/1.1 on a kept-alive connection."""
    with echo_upstream() as upstream, nginx(tmp_path / "nginx", upstream, tmp_path / "uploads") as proxy, \
            httpx.Client(base_url=proxy.url, verify=False, timeout=10) as client:
        first = client.get("/events/", headers=FORGED).json()
        second = client.get("/events/").json()
    seen = first["headers"]
    assert seen["x-forwarded-for"] == "127.0.0.1"
    assert seen["x-forwarded-proto"] == "https"
    assert seen["x-forwarded-host"] == "127.0.0.1" and seen["host"] == "127.0.0.1"
    assert "forwarded" not in seen
    assert len(seen["x-request-id"]) == 32 and seen["x-request-id"] != "mine"
    assert seen["x-request-id"] != second["headers"]["x-request-id"]
    assert first["version"] == "HTTP/1.1" and seen.get("connection", "") == ""
    assert first["peer_port"] == second["peer_port"]
