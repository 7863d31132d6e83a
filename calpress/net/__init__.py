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

How it is built (``transport.py``, imported on a client's first request: httpx and TLS take
about 75 ms and 10 MB to load, which a worker that never fetches anything should not pay): a
network backend for httpcore (``GuardedBackend.connect_tcp``) resolves the
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

import ipaddress
import re
import socket
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from ..config import Settings
    from .transport import GuardedTransport

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


@dataclass
class Fetched:
    """An answer: the final ``url`` after redirects, and ``redirects``, the URLs redirected to in
    order (the last one is ``url``). ``content`` is the body, decompressed, empty for HEAD;
    ``content_type`` the media type in lower case without parameters ("" when not sent)."""

    url: str
    status: int
    headers: Mapping[str, str]  # httpx.Headers: case-insensitive, repeated names joined
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
        self._resolver = resolver or socket.getaddrinfo
        self._transport: GuardedTransport | None = None
        self._lock = threading.Lock()

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
        content: bytes | Iterable[bytes] | None = None,
        max_bytes: int | None = None,
        sink: BinaryIO | None = None,
    ) -> Fetched:
        """Send ``method`` to ``url``, following redirects, and read the whole answer.

        ``content`` may be an iterable of byte strings, sent as it is read (give its length in a
        Content-Length header, or it goes chunked); such a body is not sent again on a 307/308
        redirect, which becomes ``OutboundError("bad_response")``. With ``sink``, a successful
        (2xx) answer's body is written there as it arrives, within the same size cap, and
        ``content`` of the result is empty."""
        transport = self._transport or self._open()
        from .transport import send

        return send(transport, self.policy, method, url, headers, content, max_bytes, sink)

    def _open(self) -> GuardedTransport:
        with self._lock:
            if self._transport is None:
                from .transport import GuardedTransport

                self._transport = GuardedTransport(self.policy, self._resolver)
            return self._transport

    def close(self) -> None:
        """Close pooled connections."""
        if self._transport is not None:
            self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


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
