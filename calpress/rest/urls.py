"""URLs under a request's REST base, which is the site root, ``/wp-json`` or ``/?rest_route=``."""

from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import quote_plus

# What quote_plus leaves as it is: a value made only of these needs no encoding.
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*\Z", re.ASCII)

# The other values of links repeat (a listing's dates, its search): each is encoded once.
_quoted = functools.lru_cache(maxsize=1024)(quote_plus)


def _encoded(value: Any) -> str:
    """``value`` as urlencode writes it (str() of it, then quote_plus), without the call for the
    plain words and numbers most query values are."""
    if isinstance(value, bytes):
        return quote_plus(value)
    text = value if isinstance(value, str) else str(value)
    if _PLAIN.match(text):
        return text
    return _quoted(text) if len(text) <= 200 else quote_plus(text)


def rest_url(base_url: str, route: str, query: list[tuple[str, str]] | dict[str, Any] | None = None) -> str:
    """A URL for ``route`` under the request's base (handles the ``?rest_route=`` form)."""
    if not query:  # most links: nothing to encode
        return base_url + route
    pairs = query.items() if isinstance(query, dict) else query
    encoded = "&".join(f"{_encoded(key)}={_encoded(value)}" for key, value in pairs)
    separator = "&" if "?rest_route=" in base_url else "?"
    return base_url + route + (separator + encoded if encoded else "")
