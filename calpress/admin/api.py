"""The workspace's way to change anything: a REST request run in process as the logged-in user.

Every screen reads and writes through the same engine the API serves (``app.rest.serve``), as the
command line does (``cli.rest_calls.rest``): the same argument checks, permissions, hooks, change log
and answer-cache invalidation, so a screen can never allow what the API refuses, and an error
comes back in the API's shape to be shown beside the field it names. The user is the one the
login cookie proves; the form's own nonce (shell.py) stands in for the REST nonce.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AdminApi", "Answer"]


@dataclass
class Answer:
    """One REST answer: its status, decoded body and headers."""

    status: int
    data: Any
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def code(self) -> str:
        return str(self.data.get("code") or "") if isinstance(self.data, dict) and not self.ok else ""

    @property
    def message(self) -> str:
        if self.ok:
            return ""
        if isinstance(self.data, dict) and self.data.get("message"):
            return str(self.data["message"])
        return f"The request failed (HTTP {self.status})."

    @property
    def field_errors(self) -> dict[str, str]:
        """The reason per parameter of an invalid-parameter error (``data.params``, with
        ``data.details`` messages where they say more), else {}."""
        if self.ok or not isinstance(self.data, dict) or not isinstance(self.data.get("data"), dict):
            return {}
        data = self.data["data"]
        found: dict[str, str] = {}
        params = data.get("params")
        if isinstance(params, dict):
            found.update({str(name): str(reason) for name, reason in params.items()})
        details = data.get("details")
        if isinstance(details, dict):
            for name, detail in details.items():
                if isinstance(detail, dict) and detail.get("message"):
                    found[str(name)] = str(detail["message"])
        return found

    @property
    def total(self) -> int:
        """``X-WP-Total`` (or The Events Calendar's ``X-TEC-Total``) of a listing."""
        return int(self.headers.get("X-WP-Total") or self.headers.get("X-TEC-Total") or 0)

    @property
    def total_pages(self) -> int:
        return int(self.headers.get("X-WP-TotalPages") or self.headers.get("X-TEC-TotalPages") or 0)


class AdminApi:
    """REST requests as ``user`` against ``calpress``'s engine; links in answers use ``origin``."""

    def __init__(self, calpress: Any, user: Any, origin: str) -> None:
        self.calpress = calpress
        self.user = user
        self.origin = origin.rstrip("/")

    def call(self, method: str, route: str, query: dict[str, Any] | None = None, body: dict[str, Any] | None = None,
             *, raw: bytes | None = None, headers: dict[str, str] | None = None) -> Answer:
        """Run one request: ``body`` as JSON, or ``raw`` bytes with their own ``headers`` (an upload)."""
        status, found, data = self.calpress.rest.serve_as(self.user, method, route, query=query, body=body, raw=raw or b"",
                                                          headers=headers, base_url=self.origin + "/wp-json", via="admin")
        return Answer(status, data, found)

    def get(self, route: str, **query: Any) -> Answer:
        return self.call("GET", route, query)

    def post(self, route: str, body: dict[str, Any], **query: Any) -> Answer:
        return self.call("POST", route, query, body)

    def delete(self, route: str, **query: Any) -> Answer:
        return self.call("DELETE", route, query)


def route_of(kind: Any, item_id: int | None = None) -> str:
    """A content type's cms/v2 route, or one item's."""
    base = f"/cms/v2/{kind.rest_base}"
    return f"{base}/{item_id}" if item_id else base
