"""The REST response a handler returns: data, status and headers (links live inside the data)."""

from __future__ import annotations

from typing import Any


class RestResponse:
    """What a handler returns when plain data is not enough (a status, headers, a raw body).

    ``data`` is JSON-ready Python data; items carry their ``_links`` inside it. ``raw`` is a
    pre-rendered body (HTML, XML) sent as it is with ``content_type``.
    """

    __slots__ = ("data", "status", "headers", "raw", "content_type", "keyed", "encoded")

    def __init__(
        self,
        data: Any = None,
        status: int = 200,
        headers: dict[str, str] | None = None,
        *,
        raw: bytes | None = None,
        content_type: str | None = None,
        keyed: bool = False,
    ) -> None:
        self.data = data
        self.status = status
        self.headers: dict[str, str] = headers or {}
        self.raw = raw
        self.content_type = content_type
        # A collection sent as an object keyed by name (types, taxonomies, statuses): its
        # values are the items whose links the engine finishes.
        self.keyed = keyed
        # The JSON of ``data`` when the answer cache holds it encoded: sent as that very bytes
        # object, so that the layer of http_encoding.py knows its hash and compressed copies
        # by its identity instead of hashing it again for every request.
        self.encoded: bytes | None = None

    def link_header(self, rel: str, href: str, **attrs: str) -> None:
        """Append a ``Link`` header value (several are joined with ", " as the reference does)."""
        value = f'<{href}>; rel="{rel}"'
        for key, attr in attrs.items():
            value += f"; {key}={attr}"
        existing = self.headers.get("Link")
        self.headers["Link"] = f"{existing}, {value}" if existing else value

    def __repr__(self) -> str:
        return f"RestResponse(status={self.status})"


def ensure_response(result: Any) -> RestResponse:
    return result if isinstance(result, RestResponse) else RestResponse(result)
