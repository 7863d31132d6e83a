"""URLs under a request's REST base, which is the site root, ``/wp-json`` or ``/?rest_route=``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode


def rest_url(base_url: str, route: str, query: list[tuple[str, str]] | dict[str, Any] | None = None) -> str:
    """A URL for ``route`` under the request's base (handles the ``?rest_route=`` form)."""
    if not query:  # most links: nothing to encode
        return base_url + route
    pairs = list(query.items()) if isinstance(query, dict) else list(query)
    separator = "&" if "?rest_route=" in base_url else "?"
    return base_url + route + (separator + urlencode(pairs) if pairs else "")
