"""The machinery behind ``calpress.net.Client``: httpcore's connection pool with the address
check where each socket is opened, the redirect loop, the time budget and the body cap. Imported
on a client's first request (see the package docstring); nothing else imports it."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, BinaryIO

import httpcore
import httpx

from .. import lane
from .policy import DEFAULT_PORTS, REDIRECT_STATUSES, Fetched, IPAddress, NetPolicy, OutboundError, Resolver, is_ip_literal


def send(
    transport: GuardedTransport,
    policy: NetPolicy,
    method: str,
    url: str,
    headers: Mapping[str, str] | None,
    content: bytes | Iterable[bytes] | None,
    max_bytes: int | None,
    sink: BinaryIO | None = None,
) -> Fetched:
    """``Client.request``: send ``method`` to ``url`` under ``policy``, following redirects, and
    read the whole answer (into ``sink`` when given)."""
    lane.leave()  # the far side may take its time: the worker's other writes go on meanwhile
    deadline = time.monotonic() + policy.timeout
    limit = policy.max_bytes if max_bytes is None else max_bytes
    method = method.upper()
    sent = httpx.Headers({"User-Agent": policy.user_agent, "Accept": "*/*", "Accept-Encoding": "gzip, deflate"})
    sent.update(headers or {})
    current = _checked(policy, url)
    redirects: list[str] = []
    while True:
        response = _send(transport, method, current, sent, content, deadline)
        location = response.headers.get("location") if response.status_code in REDIRECT_STATUSES else None
        if location is None:
            try:
                body = b"" if method == "HEAD" else _read_body(response, limit, deadline, sink if response.status_code < 300 else None)
            finally:
                response.close()
            media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            return Fetched(str(current), response.status_code, response.headers, body, media_type, redirects)
        # The body of a redirect is never read; closing drops the connection instead.
        response.close()
        if len(redirects) >= policy.max_redirects:
            raise OutboundError("too_many_redirects", f"{url} redirected more than {policy.max_redirects} times")
        target = _checked(policy, location, base=current)
        if content is not None and not isinstance(content, bytes) and response.status_code in (307, 308):
            raise OutboundError("bad_response", f"{url} redirected a streamed request body, which cannot be sent again")
        method, content, sent = _redirected(method, response.status_code, content, sent, current, target)
        redirects.append(str(target))
        current = target


def _checked(policy: NetPolicy, url: str, *, base: httpx.URL | None = None) -> httpx.URL:
    """``url`` (resolved against ``base``) parsed, with its scheme and port checked. The
    address is checked later, when the connection is opened."""
    try:
        parsed = httpx.URL(url) if base is None else base.join(url)
    except (httpx.InvalidURL, TypeError, ValueError) as err:
        raise OutboundError("bad_url", f"{url!r} is not a URL ({err})") from err
    if not parsed.scheme:
        raise OutboundError("bad_url", f"{url!r} is not an absolute URL")
    if parsed.scheme not in DEFAULT_PORTS:
        raise OutboundError("refused_scheme", f"{parsed.scheme}: URLs are not fetched, only http and https")
    if not parsed.host:
        raise OutboundError("bad_url", f"{url!r} names no host")
    port = parsed.port or DEFAULT_PORTS[parsed.scheme]
    # Refused before any DNS lookup; the backend checks the port again against the allow-list
    # entries that match the resolved address.
    if not policy._may_use_port(port):
        raise OutboundError("refused_port", f"port {port} is not open to outbound requests")
    return parsed


def _send(
    transport: GuardedTransport,
    method: str,
    url: httpx.URL,
    headers: httpx.Headers,
    content: bytes | Iterable[bytes] | None,
    deadline: float,
) -> httpx.Response:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise OutboundError("timeout", f"{url} did not answer in time")
    timeouts = {"connect": remaining, "read": remaining, "write": remaining, "pool": remaining}
    request = httpx.Request(method, url, headers=headers, content=content, extensions={"timeout": timeouts})
    return transport.handle_request(request)


class GuardedBackend(httpcore.SyncBackend):
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
        if is_ip_literal(host):
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


class GuardedTransport(httpx.BaseTransport):
    """An httpx transport over a connection pool whose sockets all go through ``GuardedBackend``."""

    def __init__(self, policy: NetPolicy, resolver: Resolver) -> None:
        self._pool = httpcore.ConnectionPool(
            network_backend=GuardedBackend(policy, resolver),
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


def _redirected(
    method: str, status: int, content: Any, headers: httpx.Headers, source: httpx.URL, target: httpx.URL
) -> tuple[str, Any, httpx.Headers]:
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


def _read_body(response: httpx.Response, limit: int, deadline: float, sink: BinaryIO | None = None) -> bytes:
    """The body, decompressed, refused once it passes ``limit`` bytes or the deadline. With a
    ``sink``, the body is written there as it arrives (never held whole) and b"" is returned."""
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
    size = 0  # decompressed bytes so far, kept or written
    received = 0
    try:
        for chunk in response.iter_raw():
            received += len(chunk)
            if inflater is None:
                body += chunk
                size += len(chunk)
            else:
                # Inflate no more than one byte past the cap at a time: a few kilobytes of gzip can
                # stand for gigabytes.
                while True:
                    room = limit + 1 - size
                    out = inflater.decompress(chunk, room)
                    body += out
                    size += len(out)
                    chunk = inflater.unconsumed_tail
                    if size > limit or (not chunk and len(out) < room):
                        break
            if size > limit or received > limit:
                raise too_large()
            if sink is not None:
                sink.write(body)
                body.clear()
            if time.monotonic() > deadline:
                raise OutboundError("timeout", f"{url} did not finish answering in time")
    except zlib.error as err:
        raise OutboundError("bad_response", f"{url} sent a body that does not decompress ({err})") from err
    return bytes(body)
