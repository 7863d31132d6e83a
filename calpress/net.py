"""Outbound HTTP: the one guarded client through which every request calpress sends must go.

Fetching a URL that someone typed (an image given by address, a feed to import, a site to check)
lets that person aim the server at what only the server can reach: the cloud metadata service at
169.254.169.254, a database or an admin port on loopback, the office network. So every outbound
request in the code base goes through ``Client`` here, never through httpx, urllib or a socket
directly. The guard:

- only http and https, and only the ports of the policy (the reference's 80, 443 and 8080 unless
  ``CALPRESS_OUTBOUND_PORTS`` says otherwise);
- every address a host name resolves to must be public (``address_kind``): one loopback, private,
  link-local, shared, multicast, reserved or unspecified answer refuses the name;
- the check runs where the socket is opened, and the socket is opened to the address that was
  checked, so a second DNS answer cannot swap it (DNS rebinding). Redirects are followed here, one
  hop at a time, and each hop is checked again;
- one time budget and a cap on the body size, enforced while the body streams in.

``CALPRESS_OUTBOUND_ALLOW`` names hosts, addresses or networks that skip the address check: a
provider on the private network, or a test server on loopback.

Never call it inside a write transaction: a fetch may take the whole time budget, and a write
transaction held that long blocks every other writer (SQLite has one). Fetch first, then open the
transaction.

How it is built: a network backend for httpcore (``_GuardedBackend.connect_tcp``) resolves the
host, judges every answer and connects to the judged IP literal; TLS still gets the host name for
SNI and the certificate check, because httpcore hands ``server_hostname`` to ``start_tls`` from
the request's origin, not from the TCP connect. A small httpx transport wraps the connection pool.
Departures from the first plan: ``Client`` sends through that transport itself instead of through
an ``httpx.Client``, which would keep a cookie jar shared by every caller (and, unless told
``trust_env=False``, read proxies and .netrc from the environment), so nothing here reads the
environment at all; ``timeout`` is one budget for a whole call rather than a limit per socket
operation, so a server dripping a byte at a time cannot hold a request thread for long; bodies are
decompressed here, a slice at a time, so the size cap holds for what is decompressed too; and a
tenth reason, ``bad_response``, covers answers that are not HTTP or do not decompress.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

if TYPE_CHECKING:
    from .config import Settings

__all__ = ["REASONS", "REDIRECT_STATUSES", "Client", "Fetched", "NetPolicy", "OutboundError", "Resolver", "address_kind", "fetch"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
#: ``socket.getaddrinfo``'s shape: ``(host, port, family, type)`` to ``(family, type, proto, canonname, sockaddr)`` rows.
Resolver = Callable[..., Sequence[tuple[Any, ...]]]

#: Every ``OutboundError.reason``.
REASONS = (
    "bad_url",
    "refused_scheme",
    "refused_port",
    "refused_address",
    "unresolvable",
    "unreachable",
    "timeout",
    "too_large",
    "too_many_redirects",
    "bad_response",
)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = MappingProxyType({"http": 80, "https": 443})

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598); not is_private
_PRIVATE: tuple[IPNetwork, ...] = (
    ipaddress.IPv4Network("10.0.0.0/8"),
    ipaddress.IPv4Network("172.16.0.0/12"),
    ipaddress.IPv4Network("192.168.0.0/16"),
    ipaddress.IPv6Network("fc00::/7"),  # unique local
    ipaddress.IPv6Network("fec0::/10"),  # site-local: deprecated, and is_global still says yes
)
# NAT64's well-known prefix carries an IPv4 address in its last 32 bits (RFC 6052). The ipaddress
# module calls the prefix reserved; judge the embedded address instead, so that IPv6-only hosts
# behind DNS64 can still reach public sites, and 64:ff9b::7f00:1 stays loopback.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_HOST_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")


class OutboundError(Exception):
    """An outbound request refused or failed. ``reason`` is one of ``REASONS`` for code to branch
    on; the message is for people (logs, error answers). Callers map it to their own answers."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"OutboundError({self.reason!r}, {self.message!r})"


def address_kind(ip: IPAddress) -> str | None:
    """Why ``ip`` may not be reached: "unspecified", "loopback", "link-local", "multicast",
    "shared", "private", "reserved" or "special-purpose" (documentation, benchmarking and the other
    non-global ranges); None for a public address. IPv4 addresses carried inside IPv6 ones
    (mapped, NAT64, 6to4, Teredo) are judged too."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return address_kind(ip.ipv4_mapped)
        if ip in _NAT64:
            return address_kind(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        # 6to4 and Teredo relays deliver to the embedded IPv4 address: refuse what it would refuse.
        embedded = [ip.sixtofour] if ip.sixtofour is not None else list(ip.teredo or ())
        for inner in embedded:
            kind = address_kind(inner)
            if kind is not None:
                return kind
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip in _SHARED:
        return "shared"
    if any(ip in network for network in _PRIVATE):
        return "private"
    if ip.is_reserved:
        return "reserved"
    if not ip.is_global:
        return "special-purpose"
    return None


@dataclass(frozen=True)
class _AllowEntry:
    """One allow-list entry: a host name or a network, and the one port it is limited to, if any."""

    host: str | None
    network: IPNetwork | None
    port: int | None

    def covers(self, host: str, ip: IPAddress) -> bool:
        if self.network is not None:
            mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
            return (mapped or ip) in self.network
        return host.lower().rstrip(".") == self.host


def _parse_port(text: str, what: str) -> int:
    text = text.strip()
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{what}: {text!r} is not a port number")
    return int(text)


def _parse_allow_entry(text: str) -> _AllowEntry:
    """``127.0.0.1:8765``, ``10.0.0.0/8``, ``[::1]:9000``, ``fd00::/8``, ``feeds.internal:8443`` ..."""
    text = text.strip()
    host, port = text, None
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(f"outbound allow-list: {text!r} is not [address]:port")
        port = rest[1:] or None
    elif text.count(":") == 1:  # more than one colon is a bare IPv6 address or network
        host, port = text.split(":")
    port_number = None if port is None else _parse_port(port, "outbound allow-list")
    try:
        return _AllowEntry(None, ipaddress.ip_network(host.strip(), strict=False), port_number)
    except ValueError:
        pass
    name = host.strip().lower()
    if not _HOST_NAME.fullmatch(name):
        raise ValueError(f"outbound allow-list: {text!r} is not a host name, address or network")
    return _AllowEntry(name.rstrip("."), None, port_number)


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclass(frozen=True)
class NetPolicy:
    """What outbound requests may reach, and how long and how much they may take.

    ``allow`` entries skip the address check; an entry with a port (``127.0.0.1:8765``) applies to
    that port alone and also lets it past ``allowed_ports``. ``timeout`` is the budget in seconds
    for a whole call, redirects and body included: each hop's socket waits get what is left of it,
    and the body is checked between chunks, so a call ends within twice ``timeout`` at worst.
    Raises ValueError for an entry it cannot read.
    """

    allowed_ports: tuple[int, ...] = (80, 443, 8080)
    allow: tuple[str, ...] = ()
    timeout: float = 10.0
    max_bytes: int = 20 * 1024 * 1024
    max_redirects: int = 5
    user_agent: str = "calpress"
    _entries: tuple[_AllowEntry, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Accept any sequence but keep tuples, so the policy stays hashable and cannot change.
        ports = tuple(_parse_port(str(port), "outbound ports") for port in self.allowed_ports)
        object.__setattr__(self, "allowed_ports", ports)
        object.__setattr__(self, "allow", tuple(self.allow))
        object.__setattr__(self, "_entries", tuple(_parse_allow_entry(entry) for entry in self.allow))

    @classmethod
    def from_settings(cls, settings: Settings) -> NetPolicy:
        """The policy of ``CALPRESS_OUTBOUND_PORTS`` and ``CALPRESS_OUTBOUND_ALLOW``."""
        ports = tuple(_parse_port(port, "CALPRESS_OUTBOUND_PORTS") for port in _split(settings.outbound_ports))
        return cls(allowed_ports=ports, allow=_split(settings.outbound_allow))

    def _may_use_port(self, port: int) -> bool:
        """Whether some address could be reached on ``port``: a check that needs no DNS."""
        return port in self.allowed_ports or any(entry.port == port for entry in self._entries)

    def _refusal(self, host: str, ip: IPAddress, port: int) -> OutboundError | None:
        """Why ``host`` may not be reached at ``ip``:``port``, or None when it may."""
        covering = [entry for entry in self._entries if entry.covers(host, ip)]
        if any(entry.port == port for entry in covering):
            return None
        if port not in self.allowed_ports:
            return OutboundError("refused_port", f"port {port} is not open to outbound requests")
        if any(entry.port is None for entry in covering):
            return None
        kind = address_kind(ip)
        if kind is None:
            return None
        where = host if _is_literal(host) else f"{host} resolves to {ip}, which"
        return OutboundError("refused_address", f"{where} is a {kind} address")


class _GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, with the address check where the socket is opened."""

    def __init__(self, policy: NetPolicy, resolver: Resolver) -> None:
        self._policy = policy
        self._resolver = resolver

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        addresses = self._resolve(host, port)
        # Judge every answer before connecting to any: a name with one private answer is refused
        # even when a public one comes first, or the outcome would depend on answer order.
        for ip in addresses:
            refusal = self._policy._refusal(host, ip, port)
            if refusal is not None:
                raise refusal
        deadline = None if timeout is None else time.monotonic() + timeout
        failure: Exception | None = None
        for ip in addresses:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            try:
                # An IP literal: create_connection has nothing left to look up, so the socket goes
                # to exactly the address judged above.
                return super().connect_tcp(str(ip), port, remaining, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as err:
                failure = err
        assert failure is not None
        raise failure

    def _resolve(self, host: str, port: int) -> list[IPAddress]:
        if _is_literal(host):
            return [ipaddress.ip_address(host)]
        try:
            answers = self._resolver(host, port, 0, socket.SOCK_STREAM)
        except (OSError, UnicodeError) as err:
            raise OutboundError("unresolvable", f"{host} could not be resolved ({err})") from err
        addresses: list[IPAddress] = []
        for family, _type, _proto, _name, sockaddr in answers:
            if family in (socket.AF_INET, socket.AF_INET6):
                ip = ipaddress.ip_address(sockaddr[0])
                if ip not in addresses:
                    addresses.append(ip)
        if not addresses:
            raise OutboundError("unresolvable", f"{host} has no internet address")
        return addresses


@contextlib.contextmanager
def _translated(url: httpx.URL) -> Iterator[None]:
    """httpcore's failures as OutboundError values."""
    try:
        yield
    except httpcore.TimeoutException as err:
        raise OutboundError("timeout", f"{url} did not answer in time") from err
    except httpcore.NetworkError as err:
        raise OutboundError("unreachable", f"{url} could not be reached ({err or type(err).__name__})") from err
    except httpcore.UnsupportedProtocol as err:
        raise OutboundError("refused_scheme", f"{url} does not use http or https") from err
    except httpcore.ProtocolError as err:
        raise OutboundError("bad_response", f"{url} did not answer in HTTP ({err or type(err).__name__})") from err


class _ResponseBody(httpx.SyncByteStream):
    def __init__(self, stream: Any, url: httpx.URL) -> None:
        self._stream = stream
        self._url = url

    def __iter__(self) -> Iterator[bytes]:
        with _translated(self._url):
            yield from self._stream

    def close(self) -> None:
        self._stream.close()


class _GuardedTransport(httpx.BaseTransport):
    """An httpx transport over a connection pool whose sockets all go through ``_GuardedBackend``."""

    def __init__(self, policy: NetPolicy, resolver: Resolver) -> None:
        self._pool = httpcore.ConnectionPool(
            network_backend=_GuardedBackend(policy, resolver),
            max_connections=20,
            max_keepalive_connections=10,
            keepalive_expiry=5.0,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            # Only the timeouts: an ``sni_hostname`` extension would change the TLS name.
            extensions={"timeout": request.extensions["timeout"]},
        )
        with _translated(url):
            core_response = self._pool.handle_request(core_request)
        return httpx.Response(
            core_response.status,
            headers=core_response.headers,
            stream=_ResponseBody(core_response.stream, url),
            extensions=core_response.extensions,
            request=request,
        )

    def close(self) -> None:
        self._pool.close()


@dataclass
class Fetched:
    """An answer: the final ``url`` after redirects, and ``redirects``, the URLs redirected to in
    order (the last one is ``url``). ``content`` is the body, decompressed, empty for HEAD;
    ``content_type`` the media type in lower case without parameters ("" when not sent)."""

    url: str
    status: int
    headers: httpx.Headers
    content: bytes
    content_type: str
    redirects: list[str]


class Client:
    """Sends outbound requests under a ``NetPolicy``. Build one per app and share it (it is
    thread-safe and pools connections); ``close()`` it at shutdown.

    ``resolver`` replaces ``socket.getaddrinfo`` (tests map names to the addresses they need).
    Statuses are not errors: a 404 comes back as a ``Fetched``. Anything refused or failed raises
    ``OutboundError``.
    """

    def __init__(self, policy: NetPolicy | None = None, *, resolver: Resolver | None = None) -> None:
        self.policy = policy or NetPolicy()
        self._transport = _GuardedTransport(self.policy, resolver or socket.getaddrinfo)

    def get(self, url: str, *, headers: Mapping[str, str] | None = None, max_bytes: int | None = None) -> Fetched:
        """GET ``url``; ``max_bytes`` lowers or raises the policy's size cap for this call."""
        return self.request("GET", url, headers=headers, max_bytes=max_bytes)

    def head(self, url: str, *, headers: Mapping[str, str] | None = None) -> Fetched:
        """HEAD ``url``: status, headers and final URL, no body."""
        return self.request("HEAD", url, headers=headers)

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        max_bytes: int | None = None,
    ) -> Fetched:
        """Send ``method`` to ``url``, following redirects, and read the whole answer."""
        deadline = time.monotonic() + self.policy.timeout
        limit = self.policy.max_bytes if max_bytes is None else max_bytes
        method = method.upper()
        sent = httpx.Headers({"User-Agent": self.policy.user_agent, "Accept": "*/*", "Accept-Encoding": "gzip, deflate"})
        sent.update(headers or {})
        current = self._checked(url)
        redirects: list[str] = []
        while True:
            response = self._send(method, current, sent, content, deadline)
            location = response.headers.get("location") if response.status_code in REDIRECT_STATUSES else None
            if location is None:
                try:
                    body = b"" if method == "HEAD" else _read_body(response, limit, deadline)
                finally:
                    response.close()
                media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                return Fetched(str(current), response.status_code, response.headers, body, media_type, redirects)
            # The body of a redirect is never read; closing drops the connection instead.
            response.close()
            if len(redirects) >= self.policy.max_redirects:
                raise OutboundError("too_many_redirects", f"{url} redirected more than {self.policy.max_redirects} times")
            target = self._checked(location, base=current)
            method, content, sent = _redirected(method, response.status_code, content, sent, current, target)
            redirects.append(str(target))
            current = target

    def close(self) -> None:
        """Close pooled connections."""
        self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _checked(self, url: str, *, base: httpx.URL | None = None) -> httpx.URL:
        """``url`` (resolved against ``base``) parsed, with its scheme and port checked. The
        address is checked later, when the connection is opened."""
        try:
            parsed = httpx.URL(url) if base is None else base.join(url)
        except (httpx.InvalidURL, TypeError, ValueError) as err:
            raise OutboundError("bad_url", f"{url!r} is not a URL ({err})") from err
        if not parsed.scheme:
            raise OutboundError("bad_url", f"{url!r} is not an absolute URL")
        if parsed.scheme not in _DEFAULT_PORTS:
            raise OutboundError("refused_scheme", f"{parsed.scheme}: URLs are not fetched, only http and https")
        if not parsed.host:
            raise OutboundError("bad_url", f"{url!r} names no host")
        port = parsed.port or _DEFAULT_PORTS[parsed.scheme]
        # Refused before any DNS lookup; the backend checks the port again against the allow-list
        # entries that match the resolved address.
        if not self.policy._may_use_port(port):
            raise OutboundError("refused_port", f"port {port} is not open to outbound requests")
        return parsed

    def _send(self, method: str, url: httpx.URL, headers: httpx.Headers, content: bytes | None, deadline: float) -> httpx.Response:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise OutboundError("timeout", f"{url} did not answer in time")
        timeouts = {"connect": remaining, "read": remaining, "write": remaining, "pool": remaining}
        request = httpx.Request(method, url, headers=headers, content=content, extensions={"timeout": timeouts})
        return self._transport.handle_request(request)


def _redirected(
    method: str, status: int, content: bytes | None, headers: httpx.Headers, source: httpx.URL, target: httpx.URL
) -> tuple[str, bytes | None, httpx.Headers]:
    """Method, body and headers for the next hop, as browsers (and httpx) do it."""
    headers = headers.copy()
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        method, content = "GET", None
        for name in ("Content-Type", "Content-Length", "Transfer-Encoding"):
            headers.pop(name, None)
    # Credentials meant for one origin must not follow a redirect to another.
    if (source.scheme, source.host, source.port) != (target.scheme, target.host, target.port):
        for name in ("Authorization", "Cookie", "Host"):
            headers.pop(name, None)
    return method, content, headers


def _read_body(response: httpx.Response, limit: int, deadline: float) -> bytes:
    """The body, decompressed, refused once it passes ``limit`` bytes or the deadline."""
    url = response.request.url

    def too_large() -> OutboundError:
        return OutboundError("too_large", f"{url} answered with more than {limit} bytes")

    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large()
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding in ("gzip", "x-gzip", "deflate"):
        # | 32: a gzip or a zlib header, detected. HTTP's "deflate" is zlib-wrapped; the rare server
        # sending bare deflate gets bad_response.
        inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)
    elif encoding in ("", "identity"):
        inflater = None
    else:
        raise OutboundError("bad_response", f"{url} answered in an encoding that was not asked for ({encoding})")
    body = bytearray()
    received = 0
    try:
        for chunk in response.iter_raw():
            received += len(chunk)
            if inflater is None:
                body += chunk
            else:
                # Inflate no more than one byte past the cap at a time: a few kilobytes of gzip can
                # stand for gigabytes.
                while True:
                    room = limit + 1 - len(body)
                    out = inflater.decompress(chunk, room)
                    body += out
                    chunk = inflater.unconsumed_tail
                    if len(body) > limit or (not chunk and len(out) < room):
                        break
            if len(body) > limit or received > limit:
                raise too_large()
            if time.monotonic() > deadline:
                raise OutboundError("timeout", f"{url} did not finish answering in time")
    except zlib.error as err:
        raise OutboundError("bad_response", f"{url} sent a body that does not decompress ({err})") from err
    return bytes(body)


def fetch(
    url: str,
    policy: NetPolicy,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    max_bytes: int | None = None,
) -> Fetched:
    """One request through a client of its own, for code with no shared ``Client`` at hand."""
    with Client(policy) as client:
        return client.request(method, url, headers=headers, max_bytes=max_bytes)
