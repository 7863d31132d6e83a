"""WordPress's redirect rules (pluggable.php): ``wp_sanitize_redirect`` and ``wp_validate_redirect``,
which ``wp_safe_redirect`` applies to the ``redirect_to`` of the login form.

A browser reads a ``Location`` more loosely than a URL parser: it ignores tabs and newlines, takes
``\\`` for ``/`` (so ``/\\evil.example/`` is ``//evil.example/``, another host) and assumes a scheme
for ``//host``. The reference's answer is to drop every character outside a small set first
(backslashes, whitespace and control characters among them; non-ASCII characters are
percent-encoded), then to read what is left: ``//host`` is ``http://host``; only ``http`` and
``https`` schemes; a scheme, user, password or port without a host, or a host, user or password
holding ``:/?#@``, is refused; a host other than the site's is refused. A refused location becomes
the fallback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["sanitize_redirect", "validate_redirect"]

# The characters wp_sanitize_redirect keeps (ASCII letters either case, digits, -~+_.?#=&;,/:%!*[]()@).
_REDIRECT_DROP = re.compile(r"[^A-Za-z0-9\-~+_.?#=&;,/:%!*\[\]()@]")
_NEWLINE_OCTETS = ("%0d", "%0a", "%0D", "%0A")
_PHP_TRIM_REDIRECT = " \t\n\r\0\x08\x0b"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_BAD_COMPONENT = re.compile(r"[:/?#@]")


def _encode_non_ascii(text: str) -> str:
    """Non-ASCII characters as percent-encoded UTF-8 (the reference urlencodes multi-byte sequences)."""
    if text.isascii():
        return text
    return "".join(c if c.isascii() else "".join(f"%{b:02X}" for b in c.encode("utf-8", "ignore")) for c in text)


def sanitize_redirect(location: str) -> str:
    """``wp_sanitize_redirect``: spaces encoded, non-ASCII percent-encoded, every other character
    outside the allowed set dropped (``\\``, quotes, ``<>``, tabs, newlines, controls...), and
    encoded CR/LF (``%0d``, ``%0a``) removed until none is left."""
    location = _encode_non_ascii(location.replace(" ", "%20"))
    location = _REDIRECT_DROP.sub("", location)
    while True:  # removal can join "%0" and "a" into a new "%0a"
        before = location
        for octet in _NEWLINE_OCTETS:
            location = location.replace(octet, "")
        if location == before:
            return location


def validate_redirect(location: str, fallback: str, hosts: Iterable[str], base: str = "/") -> str:
    """``wp_validate_redirect``: ``location`` cleaned (:func:`sanitize_redirect`, after trimming
    spaces and controls), or ``fallback`` when it leads off the site: a scheme other than http or
    https, a malformed authority, or a host not among ``hosts`` (the site's own, compared without
    case as browsers do). A relative path is read against ``base``, the folder of the page that
    redirects; an empty location is the fallback."""
    location = sanitize_redirect(location.strip(_PHP_TRIM_REDIRECT))
    if location.startswith("//"):
        location = "http:" + location  # browsers take //host for a host on the current scheme
    if not location:
        return fallback
    cut = location.find("?")
    test = location[:cut] if cut > 0 else location  # the reference parses what comes before "?"
    scheme = _SCHEME.match(test)
    if scheme is not None and scheme.group(1) not in ("http", "https"):  # case-sensitive, as the reference
        return fallback
    try:
        parts = urlsplit(test)
        host, user, password, port = parts.hostname, parts.username, parts.password, parts.port
    except ValueError:  # what PHP's parse_url() refuses too (a bad port, an unclosed IPv6 bracket)
        return fallback
    if not host and parts.path and not parts.path.startswith("/") and scheme is None:
        location = base.rstrip("/") + "/" + location
    if not host and (scheme is not None or user or password or port is not None):
        return fallback  # "http:evil.example", "https:/evil.example": a scheme without a host
    raw_host = parts.netloc.rpartition("@")[2]
    raw_host = raw_host if raw_host.startswith("[") else raw_host.rsplit(":", 1)[0] if port is not None else raw_host
    for component in (user, password, raw_host):
        if component and _BAD_COMPONENT.search(component):
            return fallback
    if host and host.lower() not in {h.lower() for h in hosts if h}:
        return fallback
    return location
