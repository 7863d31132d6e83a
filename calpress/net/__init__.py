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

How it is built (``policy.py`` holds the policy, the error and the answer, which both sides use;
``transport.py``, imported on a client's first request: httpx and TLS take
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

import socket
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, BinaryIO

from .policy import REASONS, REDIRECT_STATUSES, Fetched, NetPolicy, OutboundError, Resolver, address_kind

if TYPE_CHECKING:
    from .transport import GuardedTransport

__all__ = ["REASONS", "REDIRECT_STATUSES", "Client", "Fetched", "NetPolicy", "OutboundError", "Resolver", "address_kind", "fetch"]


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
