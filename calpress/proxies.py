"""Trusted reverse proxies: the client's address, scheme and host from the headers a proxy adds.

Behind nginx or Caddy the direct peer of every request is the proxy, the scheme is the proxy's
(http, when TLS ends there) and the host may be an internal name. A proxy says what it received
in ``Forwarded`` (RFC 7239) or the older ``X-Forwarded-For`` / ``-Proto`` / ``-Host``. Anyone can
send those headers, so they are believed only from the peers listed in the setting
``trusted_proxies`` (addresses and CIDR networks); from anybody else they are ignored.

``Forwarded`` wins when it holds a usable element; otherwise the ``X-Forwarded-*`` headers are
read. Either list is walked from the right: each element was added by the proxy nearer to us,
and names the client that proxy saw. Elements naming a trusted proxy are skipped, and the first
address that is not trusted is the client: an address a client put in the header itself lies
left of it and is never reached. An element that names no usable address (an obfuscated
identifier such as ``_hidden``, ``unknown``, or garbage) ends the walk: the client is then the
last proxy known. The scheme and host come from the same element as the client (in the
``X-Forwarded-*`` form, from the same position when the lists are as long, else the rightmost
value). A scheme other than http or https, or a host that is not a host name or an address with
an optional port, is ignored; garbage never fails a request.

``apply`` rewrites the WSGI environ once, before anything reads it (the front of ``calpress
serve``, or the app's request layer for other servers and the tests): ``REMOTE_ADDR`` (the login
throttle, comment author IPs, admission control, logs), ``wsgi.url_scheme`` (links, Secure
cookies, the HTTPS rule of application passwords) and ``HTTP_HOST`` (links when the site has no
configured address). The peer's own address stays in ``calpress.peer``.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

__all__ = ["APPLIED_KEY", "PEER_KEY", "TRUSTED_KEY", "TrustedProxies", "parse_address", "parse_networks"]

APPLIED_KEY = "calpress.proxies"
"""Set in an environ once ``apply`` ran on it: the headers are read once per request."""
PEER_KEY = "calpress.peer"
"""The direct peer's address, before any forwarded address replaced ``REMOTE_ADDR``."""
TRUSTED_KEY = "calpress.trusted_peer"
"""True in an environ whose direct peer is a trusted proxy (its X-Request-Id is believed too)."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# A host as a proxy may report it: a name or IPv4 address, or a bracketed IPv6 address, and a port.
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")
# One forwarded-pair: token=token or token="quoted string" (RFC 7239 section 4).
_PAIR = re.compile(r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,"\s]*)\s*')
_LONGEST_HEADER = 8192  # a longer forwarding header is not read at all
_CACHE_SIZE = 1024


def parse_networks(text: str) -> tuple[Network, ...]:
    """The networks of a comma-separated list of addresses and CIDR networks (``10.0.0.0/8,
    ::1``); ValueError naming the first entry that is neither."""
    networks = []
    for entry in (part.strip() for part in str(text or "").split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            raise ValueError(f"CALPRESS_TRUSTED_PROXIES: {entry!r} is not an address or a network (10.0.0.0/8, 127.0.0.1, ::1)") from None
    return tuple(networks)


def parse_address(text: str) -> Address | None:
    """The address of a node name as proxies write it (``192.0.2.1``, ``192.0.2.1:4711``,
    ``[2001:db8::1]:4711``, ``2001:db8::1``); None for anything else (``unknown``, ``_hidden``).
    An IPv4-mapped IPv6 address is read as the IPv4 address it maps."""
    text = text.strip()
    if not text or len(text) > 64:
        return None
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or (end + 1 < len(text) and not _is_port(text[end + 1 :])):
            return None
        text = text[1:end]
    elif text.count(":") == 1:  # IPv4 with a port
        text, port = text.split(":")
        if not _is_port(":" + port):
            return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_port(text: str) -> bool:
    return len(text) > 1 and text[0] == ":" and text[1:].isdigit() and len(text) <= 6


def _host(value: str | None) -> str | None:
    if value and len(value) <= 260 and _HOST.fullmatch(value):
        return value
    return None


def _scheme(value: str | None) -> str | None:
    value = (value or "").strip().lower()
    return value if value in ("http", "https") else None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def forwarded_elements(header: str) -> list[dict[str, str]]:
    """The elements of a ``Forwarded`` value, each a dict of its parameters (names lowercased,
    quoted values unquoted); an element that does not parse is an empty dict, so that the walk
    stops at it."""
    elements: list[dict[str, str]] = []
    position, size = 0, len(header)
    current: dict[str, str] = {}
    broken = False
    while position < size:
        found = _PAIR.match(header, position)
        if found is None:  # skip to the next element
            broken = True
            comma = header.find(",", position)
            if comma < 0:
                break
            elements.append({})
            current, broken, position = {}, False, comma + 1
            continue
        name, value = found.group(1).lower(), _unquote(found.group(2))
        if name in current:  # a parameter twice in one element is invalid (RFC 7239 section 4)
            broken = True
        current[name] = value
        position = found.end()
        if position >= size:
            break
        separator = header[position]
        position += 1
        if separator == ",":
            elements.append({} if broken else current)
            current, broken = {}, False
        elif separator != ";":
            broken = True
            comma = header.find(",", position)
            if comma < 0:
                position = size
                break
            elements.append({})
            current, broken, position = {}, False, comma + 1
    if current or broken:
        elements.append({} if broken else current)
    return elements


class TrustedProxies:
    """The proxies of the setting ``trusted_proxies``, and what their headers say of a request."""

    def __init__(self, networks: tuple[Network, ...] | str = ()) -> None:
        self.networks: tuple[Network, ...] = parse_networks(networks) if isinstance(networks, str) else tuple(networks)
        self._verdicts: dict[str, bool] = {}
        self._hops: dict[str, tuple[str | None, bool]] = {}

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: str | Address | None) -> bool:
        """Whether ``address`` (text as in ``REMOTE_ADDR``, or parsed) is one of the proxies."""
        if not self.networks or not address:
            return False
        if not isinstance(address, str):
            return any(address in network for network in self.networks)
        verdict = self._verdicts.get(address)
        if verdict is None:
            parsed = parse_address(address)
            verdict = parsed is not None and any(parsed in network for network in self.networks)
            if len(self._verdicts) >= _CACHE_SIZE:
                self._verdicts.clear()
            self._verdicts[address] = verdict
        return verdict

    def hop(self, text: str) -> tuple[str | None, bool]:
        """A node name of a forwarding header: its address as text (None: no address) and whether
        it is a trusted proxy; remembered, as the same few proxies and clients come back."""
        found = self._hops.get(text)
        if found is None:
            address = parse_address(text)
            found = (None, False) if address is None else (str(address), self.trusts(address))
            if len(self._hops) >= _CACHE_SIZE:
                self._hops.clear()
            self._hops[text] = found
        return found

    def resolve(self, environ: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
        """(client address, scheme, host) that the forwarding headers of ``environ`` give, each
        None when they give nothing usable; the caller has checked that the peer is trusted."""
        forwarded = environ.get("HTTP_FORWARDED")
        if forwarded and len(forwarded) <= _LONGEST_HEADER:
            found = self._from_forwarded(forwarded)
            if found is not None:
                return found
        return self._from_x_forwarded(environ)

    def _from_forwarded(self, header: str) -> tuple[str | None, str | None, str | None] | None:
        elements = forwarded_elements(header)
        if not any(elements):
            return None
        client: str | None = None
        chosen: dict[str, str] = {}
        for element in reversed(elements):
            address, trusted = self.hop(element.get("for", ""))
            if address is None:  # unknown, obfuscated or broken: no further hop can be believed
                chosen = element
                break
            client, chosen = address, element
            if not trusted:
                break
        return client, _scheme(chosen.get("proto")), _host(chosen.get("host"))

    def _from_x_forwarded(self, environ: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
        hops = _values(environ.get("HTTP_X_FORWARDED_FOR"))
        client: str | None = None
        index = -1
        for position in range(len(hops) - 1, -1, -1):
            address, trusted = self.hop(hops[position])
            if address is None:
                break
            client, index = address, position
            if not trusted:
                break
        return client, _scheme(_at(_values(environ.get("HTTP_X_FORWARDED_PROTO")), index, len(hops))), \
            _host(_at(_values(environ.get("HTTP_X_FORWARDED_HOST")), index, len(hops)))

    def apply(self, environ: dict[str, Any]) -> None:
        """Rewrite ``environ`` from its forwarding headers when its peer is a trusted proxy; once
        per request (later calls do nothing)."""
        if APPLIED_KEY in environ:
            return
        environ[APPLIED_KEY] = True
        peer = environ.get("REMOTE_ADDR") or ""
        environ[PEER_KEY] = peer
        if not self.networks or not self.trusts(peer):
            return
        environ[TRUSTED_KEY] = True
        client, scheme, host = self.resolve(environ)
        if client:
            environ["REMOTE_ADDR"] = client
        if scheme:
            environ["wsgi.url_scheme"] = scheme
            environ["HTTPS"] = "on" if scheme == "https" else "off"
        if host:
            environ["HTTP_HOST"] = host


def _values(header: str | None) -> list[str]:
    if not header or len(header) > _LONGEST_HEADER:
        return []
    return [value.strip() for value in header.split(",")]


def _at(values: list[str], index: int, hops: int) -> str | None:
    """The value of a comma-separated ``X-Forwarded-Proto``/``-Host`` for the client's hop: the
    one at its position when the list is as long as ``X-Forwarded-For``, else the rightmost (set
    by the nearest proxy)."""
    if not values:
        return None
    if len(values) == hops and index >= 0:
        return values[index]
    return values[-1]
