"""calpress.net: the outbound guard, over real sockets.

A small HTTP server runs in a thread on 127.0.0.1 and is reached through the allow-list; every
other address is judged by the guard. Names are mapped to addresses by an injected resolver, so no
test depends on the machine's DNS (except the few that use its numeric parsing and /etc/hosts).
"""

from __future__ import annotations

import gzip
import http.server
import ipaddress
import json
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from calpress.config import Settings, load_settings
from calpress.net import Client, NetPolicy, OutboundError, address_kind, fetch

# ---- a test server ------------------------------------------------------------------------------

GZIPPED_ZEROS = gzip.compress(bytes(8 * 1024 * 1024))  # 8 MiB of zeros, about 8 KiB on the wire


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse can be observed

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._route()

    def do_HEAD(self) -> None:
        self._route()

    def do_POST(self) -> None:
        self._route()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((self.command, self.path))  # type: ignore[attr-defined]
        if parts.path == "/hello":
            self._answer(200, b"hello", "Text/Plain; charset=utf-8")
        elif parts.path == "/echo":
            echo = {
                "method": self.command,
                "host": self.headers.get("Host"),
                "authorization": self.headers.get("Authorization"),
                "body": body.decode(),
            }
            self._answer(200, json.dumps(echo).encode(), "application/json")
        elif parts.path == "/to":
            self.send_response(int(query.get("code", "302")))
            self.send_header("Location", query["url"])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path.startswith("/chain/"):
            left = int(parts.path.rsplit("/", 1)[1])
            if left == 0:
                self._answer(200, b"end", "text/plain")
            else:
                self.send_response(302)
                self.send_header("Location", f"/chain/{left - 1}")
                self.send_header("Content-Length", "0")
                self.end_headers()
        elif parts.path == "/big":
            self._big(int(query["n"]), declare=query.get("declare") == "1")
        elif parts.path == "/gzip":
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(GZIPPED_ZEROS)))
            self.end_headers()
            self.wfile.write(GZIPPED_ZEROS)
        elif parts.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.close_connection = True
            for _ in range(100):
                try:
                    self.wfile.write(b".")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.05)
        else:
            self._answer(404, b"not here", "text/plain")

    def _answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _big(self, size: int, *, declare: bool) -> None:
        self.send_response(200)
        if declare:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Connection", "close")  # the body ends when the connection does
        self.end_headers()
        self.close_connection = True
        chunk = b"x" * 65536
        sent = 0
        try:
            while sent < size:
                piece = chunk[: size - sent]
                self.wfile.write(piece)
                sent += len(piece)
        except OSError:
            pass


@dataclass
class Server:
    port: int
    seen: list[tuple[str, str]] = field(default_factory=list)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def policy(self, **changes: object) -> NetPolicy:
        """A policy that lets the test server in (and only it) by its address and port."""
        return NetPolicy(**{"allow": (f"127.0.0.1:{self.port}",), "timeout": 2.0, **changes})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield Server(httpd.server_address[1], httpd.seen)  # type: ignore[attr-defined]
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def silent() -> Iterator[socket.socket]:
    """A port that takes connections (the kernel completes them) but never answers."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=8)
    yield listener
    listener.close()


def nobody_connected(listener: socket.socket) -> bool:
    listener.setblocking(False)
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return True
    connection.close()
    return False


class FakeDNS:
    """A resolver with getaddrinfo's signature over a fixed table; it records what it was asked."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.asked: list[str] = []

    def __call__(self, host: str, port: int, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0) -> list[tuple]:
        self.asked.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [_addrinfo(ip, port) for ip in self.table[host]]


def _addrinfo(ip: str, port: int) -> tuple:
    if ":" in ip:
        return (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (ip, port, 0, 0))
    return (socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))


def refusal(client: Client, url: str, **kwargs: object) -> OutboundError:
    with pytest.raises(OutboundError) as caught:
        client.get(url, **kwargs)  # type: ignore[arg-type]
    return caught.value


# ---- what counts as a public address ------------------------------------------------------------

# (address, kind): one or more of every kind the guard refuses, and the IPv6 forms that carry one.
REFUSED = [
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("::1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("fec0::1", "private"),
    ("169.254.169.254", "link-local"),
    ("fe80::1", "link-local"),
    ("100.64.0.1", "shared"),
    ("100.127.255.254", "shared"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("ff02::1", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("::7f00:1", "reserved"),  # IPv4-compatible, deprecated
    ("0.0.0.0", "unspecified"),
    ("::", "unspecified"),
    ("0.1.2.3", "special-purpose"),
    ("192.0.2.10", "special-purpose"),
    ("198.18.0.1", "special-purpose"),
    ("2001:db8::1", "special-purpose"),
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "link-local"),
    ("64:ff9b::7f00:1", "loopback"),  # NAT64
    ("64:ff9b::a9fe:a9fe", "link-local"),
    ("2002:7f00:1::1", "loopback"),  # 6to4
    ("2002:c0a8:101::1", "private"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo, client 127.0.0.1
]
PUBLIC = ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]


@pytest.mark.parametrize(("address", "kind"), REFUSED)
def test_address_kind_names_each_refused_kind(address: str, kind: str) -> None:
    assert address_kind(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize("address", PUBLIC)
def test_address_kind_lets_public_addresses_through(address: str) -> None:
    assert address_kind(ipaddress.ip_address(address)) is None


def _host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


@pytest.mark.parametrize(("address", "kind"), REFUSED)
def test_refuses_an_address_literal(address: str, kind: str) -> None:
    dns = FakeDNS({})
    with Client(NetPolicy(timeout=2.0), resolver=dns) as client:
        err = refusal(client, f"http://{_host(address)}/")
    assert err.reason == "refused_address"
    assert kind in err.message
    assert dns.asked == []  # a literal is judged as written, not looked up


@pytest.mark.parametrize(("address", "kind"), REFUSED)
def test_refuses_a_name_that_resolves_to_one(address: str, kind: str) -> None:
    dns = FakeDNS({"target.example": [address]})
    with Client(NetPolicy(timeout=2.0), resolver=dns) as client:
        err = refusal(client, "http://target.example/")
    assert err.reason == "refused_address"
    assert f"target.example resolves to {ipaddress.ip_address(address)}" in err.message
    assert dns.asked == ["target.example"]


@pytest.mark.parametrize("answers", [["93.184.216.34", "10.0.0.1"], ["10.0.0.1", "93.184.216.34"]])
def test_refuses_a_name_with_one_private_answer_among_public_ones(answers: list[str]) -> None:
    with Client(NetPolicy(timeout=2.0), resolver=FakeDNS({"mixed.example": answers})) as client:
        err = refusal(client, "http://mixed.example/")
    assert err.reason == "refused_address"
    assert "10.0.0.1" in err.message


@pytest.mark.parametrize("url", ["http://127.1/", "http://2130706433/", "http://0x7f000001/", "http://localhost/"])
def test_refuses_loopback_spelt_for_the_system_resolver(url: str) -> None:
    with Client(NetPolicy(timeout=2.0)) as client:
        assert refusal(client, url).reason == "refused_address"


# ---- schemes, ports, URLs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["ftp://example.org/file", "file:///etc/passwd", "gopher://example.org/", "data:text/plain,hello", "javascript:alert(1)"]
)
def test_refuses_schemes_other_than_http_and_https(url: str) -> None:
    dns = FakeDNS({"example.org": ["93.184.216.34"]})
    with Client(resolver=dns) as client:
        assert refusal(client, url).reason == "refused_scheme"
    assert dns.asked == []


@pytest.mark.parametrize("url", ["", "not a url", "/relative/path", "http://", "http://[::1"])
def test_refuses_what_is_not_an_absolute_url(url: str) -> None:
    with Client() as client:
        assert refusal(client, url).reason == "bad_url"


@pytest.mark.parametrize("url", ["http://public.example:22/", "https://public.example:8443/", "http://public.example:6379/"])
def test_refuses_ports_outside_the_policy_before_any_lookup(url: str) -> None:
    dns = FakeDNS({"public.example": ["93.184.216.34"]})
    with Client(resolver=dns) as client:
        assert refusal(client, url).reason == "refused_port"
    assert dns.asked == []


def test_a_configured_port_is_accepted(server: Server) -> None:
    # The allow-list entry has no port here, so only allowed_ports can open the server's port.
    closed = NetPolicy(allow=("127.0.0.1",), timeout=2.0)
    with Client(closed) as client:
        assert refusal(client, server.url("/hello")).reason == "refused_port"
    opened = NetPolicy(allowed_ports=(80, 443, 8080, server.port), allow=("127.0.0.1",), timeout=2.0)
    with Client(opened) as client:
        assert client.get(server.url("/hello")).content == b"hello"


def test_an_allow_list_port_opens_that_address_alone(server: Server) -> None:
    # 127.0.0.1:<port> lets the test server in, but not the same port on a public address.
    dns = FakeDNS({"public.example": ["93.184.216.34"]})
    with Client(server.policy(), resolver=dns) as client:
        err = refusal(client, f"http://public.example:{server.port}/")
    assert err.reason == "refused_port"
    assert dns.asked == ["public.example"]


def test_allow_list_entries_by_name_and_network(server: Server) -> None:
    dns = FakeDNS({"inner.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    ports = (80, 443, 8080, server.port)
    with Client(NetPolicy(allowed_ports=ports, allow=("Inner.Test",), timeout=2.0), resolver=dns) as client:
        assert client.get(server.url("/hello", host="inner.test")).status == 200
        assert refusal(client, server.url("/hello", host="other.test")).reason == "refused_address"
    with Client(NetPolicy(allowed_ports=ports, allow=("127.0.0.0/8",), timeout=2.0), resolver=dns) as client:
        assert client.get(server.url("/hello", host="other.test")).status == 200
    with Client(NetPolicy(allowed_ports=ports, allow=("10.0.0.0/8",), timeout=2.0), resolver=dns) as client:
        assert refusal(client, server.url("/hello", host="other.test")).reason == "refused_address"


# ---- answers ------------------------------------------------------------------------------------


def test_get_reports_status_headers_body_and_media_type(server: Server) -> None:
    with Client(server.policy()) as client:
        hello = client.get(server.url("/hello"))
        missing = client.get(server.url("/missing"))
    assert (hello.status, hello.content, hello.content_type) == (200, b"hello", "text/plain")
    assert hello.headers["content-length"] == "5"
    assert hello.url == server.url("/hello")
    assert hello.redirects == []
    assert (missing.status, missing.content) == (404, b"not here")  # a status is an answer, not an error


def test_head_returns_no_body(server: Server) -> None:
    with Client(server.policy()) as client:
        answer = client.head(server.url("/to?url=/hello"))
    assert (answer.status, answer.content, answer.content_type) == (200, b"", "text/plain")
    assert answer.headers["content-length"] == "5"
    assert answer.url == server.url("/hello")
    assert server.seen[-2:] == [("HEAD", "/to?url=/hello"), ("HEAD", "/hello")]


def test_sends_the_user_agent_and_the_host_it_was_given(server: Server) -> None:
    dns = FakeDNS({"named.test": ["127.0.0.1"]})
    with Client(server.policy(user_agent="calpress-test"), resolver=dns) as client:
        echo = json.loads(client.get(server.url("/echo", host="named.test")).content)
    assert echo["host"] == f"named.test:{server.port}"


def test_ignores_proxies_from_the_environment(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://10.9.9.9:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with Client(server.policy()) as client:
        assert client.get(server.url("/hello")).content == b"hello"


def test_module_fetch_uses_a_client_of_its_own(server: Server) -> None:
    assert fetch(server.url("/hello"), server.policy()).content == b"hello"
    with pytest.raises(OutboundError) as caught:
        fetch("http://10.0.0.1/", server.policy())
    assert caught.value.reason == "refused_address"


# ---- redirects ----------------------------------------------------------------------------------


def test_follows_redirects_within_the_allowed_server(server: Server) -> None:
    with Client(server.policy()) as client:
        answer = client.get(server.url("/to?url=" + quote(server.url("/chain/2"))))
    assert answer.content == b"end"
    assert answer.url == server.url("/chain/0")
    assert answer.redirects == [server.url("/chain/2"), server.url("/chain/1"), server.url("/chain/0")]


def test_refuses_too_many_redirects(server: Server) -> None:
    with Client(server.policy(max_redirects=3)) as client:
        assert client.get(server.url("/chain/3")).content == b"end"
        server.seen.clear()
        assert refusal(client, server.url("/chain/4")).reason == "too_many_redirects"
    assert [path for _, path in server.seen] == ["/chain/4", "/chain/3", "/chain/2", "/chain/1"]


def test_refuses_a_redirect_to_a_private_address(server: Server) -> None:
    started = time.monotonic()
    with Client(server.policy()) as client:
        err = refusal(client, server.url("/to?url=http://10.1.2.3/"))
    # Connecting to 10.1.2.3 would have hung until the 2 s budget ran out: the refusal came first.
    assert err.reason == "refused_address"
    assert time.monotonic() - started < 1.5


def test_refuses_a_redirect_to_loopback_outside_the_allow_list(server: Server, silent: socket.socket) -> None:
    other = silent.getsockname()[1]
    # Its port is allowed, so only the address check stands in the way.
    policy = server.policy(allowed_ports=(80, 443, 8080, other))
    with Client(policy) as client:
        err = refusal(client, server.url(f"/to?url=http://127.0.0.1:{other}/"))
    assert err.reason == "refused_address"
    assert nobody_connected(silent)


def test_refuses_a_redirect_to_a_name_that_resolves_privately(server: Server) -> None:
    dns = FakeDNS({"inner.example": ["192.168.0.7"]})
    with Client(server.policy(), resolver=dns) as client:
        err = refusal(client, server.url("/to?url=http://inner.example/admin"))
    assert err.reason == "refused_address"
    assert dns.asked == ["inner.example"]


@pytest.mark.parametrize(
    ("location", "reason"),
    [("ftp://example.org/", "refused_scheme"), ("http://127.0.0.1:22/", "refused_port"), ("http://[::1", "bad_url")],
)
def test_checks_scheme_and_port_on_every_hop(server: Server, location: str, reason: str) -> None:
    with Client(server.policy()) as client:
        assert refusal(client, server.url("/to?url=" + quote(location))).reason == reason


def test_redirects_rewrite_the_method_as_browsers_do(server: Server) -> None:
    with Client(server.policy()) as client:
        see_other = client.request("POST", server.url("/to?code=303&url=/echo"), content=b"form")
        temporary = client.request("POST", server.url("/to?code=307&url=/echo"), content=b"form")
    assert json.loads(see_other.content) | {"host": None} == {"method": "GET", "host": None, "authorization": None, "body": ""}
    assert json.loads(temporary.content)["method"] == "POST"
    assert json.loads(temporary.content)["body"] == "form"


def test_credentials_do_not_follow_a_redirect_to_another_origin(server: Server) -> None:
    dns = FakeDNS({"other.test": ["127.0.0.1"]})
    headers = {"Authorization": "Bearer secret"}
    with Client(server.policy(), resolver=dns) as client:
        same = client.get(server.url("/to?url=/echo"), headers=headers)
        other = client.get(server.url("/to?url=" + quote(server.url("/echo", host="other.test"))), headers=headers)
    assert json.loads(same.content)["authorization"] == "Bearer secret"
    assert json.loads(other.content)["authorization"] is None
    assert json.loads(other.content)["host"] == f"other.test:{server.port}"


# ---- the checked address is the connected one ---------------------------------------------------


def test_dns_rebinding_cannot_swap_the_checked_address(server: Server) -> None:
    # The first answer is the allowed server, every later one a private address. A guard that
    # checked the URL and let the connection resolve again would fail here (or reach 10.0.0.1).
    answers = iter(["127.0.0.1"] + ["10.0.0.1"] * 10)
    asked: list[str] = []

    def rebinding(host: str, port: int, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0) -> list[tuple]:
        asked.append(host)
        return [_addrinfo(next(answers), port)]

    url = server.url("/echo", host="rebind.test")
    policy = server.policy(allowed_ports=(80, 443, 8080, server.port))  # so the address alone decides
    with Client(policy, resolver=rebinding) as client:
        first = client.get(url)
        second = client.get(url)  # the kept-alive connection: same checked address, no new lookup
    assert (first.status, second.status) == (200, 200)
    assert asked == ["rebind.test"]
    with Client(policy, resolver=rebinding) as client:
        # A new connection looks the name up again, and the new answer is judged.
        assert refusal(client, url).reason == "refused_address"
    assert asked == ["rebind.test", "rebind.test"]


def test_tls_gets_the_host_name_while_the_socket_goes_to_the_checked_address() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    hellos: list[bytes] = []

    def take_hello() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.settimeout(2)
            hellos.append(connection.recv(65536))

    thread = threading.Thread(target=take_hello, daemon=True)
    thread.start()
    dns = FakeDNS({"provider.test": ["127.0.0.1"]})
    with Client(NetPolicy(allow=(f"127.0.0.1:{port}",), timeout=2.0), resolver=dns) as client:
        err = refusal(client, f"https://provider.test:{port}/")
    thread.join(2)
    listener.close()
    assert err.reason == "unreachable"  # the listener hung up after the ClientHello
    assert hellos and hellos[0][:1] == b"\x16"  # a TLS handshake record...
    assert b"provider.test" in hellos[0]  # ...naming the host (SNI), sent to 127.0.0.1


# ---- size and time ------------------------------------------------------------------------------


def test_refuses_a_body_past_the_cap_while_it_streams(server: Server) -> None:
    started = time.monotonic()
    with Client(server.policy()) as client:
        err = refusal(client, server.url("/big?n=200000000"), max_bytes=1024 * 1024)
    assert err.reason == "too_large"
    assert time.monotonic() - started < 1.5  # 200 MB were offered; reading stopped at the cap


def test_refuses_a_declared_length_past_the_cap(server: Server) -> None:
    with Client(server.policy(max_bytes=1000)) as client:
        assert refusal(client, server.url("/big?n=5000&declare=1")).reason == "too_large"


def test_the_cap_is_inclusive(server: Server) -> None:
    with Client(server.policy()) as client:
        assert len(client.get(server.url("/big?n=1000"), max_bytes=1000).content) == 1000
        assert refusal(client, server.url("/big?n=1001"), max_bytes=1000).reason == "too_large"


def test_the_cap_counts_decompressed_bytes(server: Server) -> None:
    with Client(server.policy()) as client:
        assert len(client.get(server.url("/gzip"), max_bytes=16 * 1024 * 1024).content) == 8 * 1024 * 1024
        assert refusal(client, server.url("/gzip"), max_bytes=1024 * 1024).reason == "too_large"


def test_decompression_stops_at_the_cap(server: Server) -> None:
    # 8 KiB of gzip stand for 8 MiB: inflating it all before checking the size would allocate it.
    with Client(server.policy()) as client:
        tracemalloc.start()
        try:
            err = refusal(client, server.url("/gzip"), max_bytes=256 * 1024)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert err.reason == "too_large"
    assert peak < 2 * 1024 * 1024


def test_times_out_on_a_server_that_never_answers(silent: socket.socket) -> None:
    port = silent.getsockname()[1]
    started = time.monotonic()
    with Client(NetPolicy(allow=(f"127.0.0.1:{port}",), timeout=0.3)) as client:
        err = refusal(client, f"http://127.0.0.1:{port}/")
    assert err.reason == "timeout"
    assert time.monotonic() - started < 1.5


def test_the_time_budget_covers_a_body_that_drips(server: Server) -> None:
    # One byte every 50 ms never trips a per-read timeout; the budget for the call stops it.
    started = time.monotonic()
    with Client(server.policy(timeout=0.4)) as client:
        err = refusal(client, server.url("/drip"))
    assert err.reason == "timeout"
    assert time.monotonic() - started < 1.5


def test_reports_a_closed_port_as_unreachable() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with Client(NetPolicy(allow=(f"127.0.0.1:{port}",), timeout=2.0)) as client:
        assert refusal(client, f"http://127.0.0.1:{port}/").reason == "unreachable"


def test_reports_an_unknown_name_as_unresolvable() -> None:
    with Client(resolver=FakeDNS({"empty.example": []})) as client:
        assert refusal(client, "http://nowhere.example/").reason == "unresolvable"
        assert refusal(client, "http://empty.example/").reason == "unresolvable"


# ---- the policy and its settings ----------------------------------------------------------------


def test_policy_defaults_follow_the_reference() -> None:
    policy = NetPolicy()
    assert policy.allowed_ports == (80, 443, 8080)
    assert policy.allow == ()
    assert (policy.timeout, policy.max_bytes, policy.max_redirects, policy.user_agent) == (10.0, 20 * 1024 * 1024, 5, "calpress")
    assert NetPolicy.from_settings(Settings()) == policy


def test_settings_are_read_into_the_policy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = load_settings(
        environ={
            "CALPRESS_DATA_DIR": str(tmp_path),
            "CALPRESS_OUTBOUND_PORTS": "80, 443,8765",
            "CALPRESS_OUTBOUND_ALLOW": "127.0.0.1:8765, 10.0.0.0/8 ,[::1]:9000,fd00::/8,feeds.internal",
        }
    )
    policy = NetPolicy.from_settings(settings)
    assert policy.allowed_ports == (80, 443, 8765)
    assert policy.allow == ("127.0.0.1:8765", "10.0.0.0/8", "[::1]:9000", "fd00::/8", "feeds.internal")
    defaults = NetPolicy.from_settings(load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path)}))
    assert (defaults.allowed_ports, defaults.allow) == ((80, 443, 8080), ())


@pytest.mark.parametrize(
    ("ports", "allow"),
    [("80,http", ""), ("80,70000", ""), ("0", ""), ("80", "10.0.0.0/33"), ("80", "a host"), ("80", "[::1]9000"), ("80", "127.0.0.1:http")],
)
def test_unreadable_settings_are_refused(ports: str, allow: str) -> None:
    with pytest.raises(ValueError):
        NetPolicy.from_settings(Settings(outbound_ports=ports, outbound_allow=allow))
