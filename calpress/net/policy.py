"""What outbound requests may reach (``NetPolicy``, ``address_kind``), the error they fail with and
the answer they bring back: the pieces both ``calpress.net``'s ``Client`` and the lazily loaded
transport use, in a module of their own so that neither imports the other for them."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Settings

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
DEFAULT_PORTS = MappingProxyType({"http": 80, "https": 443})

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


def is_ip_literal(host: str) -> bool:
    """Whether ``host`` is an IP address rather than a name."""
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
        where = host if is_ip_literal(host) else f"{host} resolves to {ip}, which"
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
