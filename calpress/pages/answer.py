"""A rendered public page or document (status, body, content type, headers), as the site's
resources hand it to Falcon and its page cache keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Answer:
    status: int
    body: bytes
    content_type: str = "text/html; charset=UTF-8"
    headers: dict[str, str] = field(default_factory=dict)
