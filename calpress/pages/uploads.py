"""Serving stored files at ``/wp-content/uploads/`` (what attachment URLs point at), read through
the site's storage (``site.storage``, :mod:`calpress.media.storage`).

Every answer names its type from the file name and says ``X-Content-Type-Options: nosniff``, with
a year's ``Cache-Control`` (stored names are unique and never rewritten) and an ``ETag`` of the
key and size; ``If-None-Match`` answers 304. ``Range: bytes=...`` (one range; a suffix or an open
end too) answers 206 with ``Content-Range``, 416 when it lies past the end; several ranges get the
whole file, as RFC 9110 allows. Files that a browser would run as a page (HTML, SVG, XML,
JavaScript) are sent as downloads under a sandboxing policy, never as active content of the site.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from typing import TYPE_CHECKING, Any, BinaryIO

import falcon

from ..media.storage import UPLOADS_PATH, InvalidKey

if TYPE_CHECKING:
    from ..site import Site

PREFIX = UPLOADS_PATH.rstrip("/")
# Stored names are unique and never rewritten, so a file may be cached for a year.
CACHE_CONTROL = "max-age=31536000"
# Types a browser runs as a document with scripts: never inline from the uploads folder.
ACTIVE_TYPES = frozenset({
    "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml", "text/javascript",
    "application/javascript", "application/x-javascript", "text/xsl", "application/xslt+xml",
})
SANDBOX = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox"
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


def byte_range(header: str | None, size: int) -> tuple[int, int] | None | bool:
    """The (first, last) byte of a single ``Range: bytes=...`` within ``size``; None to send the
    whole file (no header, several ranges, a unit other than bytes); False when unsatisfiable."""
    if not header or "," in header:
        return None
    matched = _RANGE.fullmatch(header.strip())
    if matched is None:
        return None
    first, last = matched.group(1), matched.group(2)
    if not first and not last:
        return None
    if not first:  # the last N bytes
        length = int(last)
        if length == 0:
            return False
        return max(0, size - length), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if start >= size or (last and int(last) < start):
        return False
    return start, end


class _Slice:
    """A stored file from ``start``, ``length`` bytes at most (a range's body)."""

    def __init__(self, stream: BinaryIO, start: int, length: int) -> None:
        self.stream = stream
        stream.seek(start)
        self.left = length

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        want = self.left if size is None or size < 0 else min(size, self.left)
        data = self.stream.read(want)
        self.left -= len(data)
        return data

    def close(self) -> None:
        self.stream.close()


class UploadsResource:
    """GET/HEAD of a stored file by its key (the path below the prefix). Anything that is no
    stored file answers 404: a missing key, a folder, and every key the storage refuses (``..``,
    absolute paths, NUL, backslashes) or finds leading out of it (links)."""

    def __init__(self, site: Site) -> None:
        # The site, not its storage: the storage is looked up per request, so one set in its
        # place later (a test double) is the one served.
        self.site = site

    def _key(self, req: falcon.Request) -> str:
        rest = req.path[len(PREFIX):]
        if not rest.startswith("/"):
            raise falcon.HTTPNotFound()
        return rest[1:]

    def _headers(self, resp: falcon.Response, key: str, size: int) -> None:
        """The headers of the whole file."""
        content_type = mimetypes.guess_type(key.rsplit("/", 1)[-1])[0] or "application/octet-stream"
        resp.content_type = content_type
        resp.content_length = size
        resp.set_header("Cache-Control", CACHE_CONTROL)
        resp.set_header("X-Content-Type-Options", "nosniff")
        resp.set_header("Accept-Ranges", "bytes")
        if content_type.split(";")[0] in ACTIVE_TYPES:
            resp.set_header("Content-Disposition", "attachment")
            resp.set_header("Content-Security-Policy", SANDBOX)
        resp.set_header("ETag", _etag(key, size))

    def _not_modified(self, req: falcon.Request, resp: falcon.Response, key: str, size: int) -> bool:
        """A 304 (no body, no type) when the client holds this file already."""
        etag = _etag(key, size)
        if not _matches(req.get_header("If-None-Match"), etag):
            return False
        resp.status = falcon.HTTP_304
        resp.set_header("ETag", etag)
        resp.set_header("Cache-Control", CACHE_CONTROL)
        return True

    def _size(self, key: str) -> int:
        try:
            return self.site.storage.size(key)
        except (FileNotFoundError, InvalidKey):
            raise falcon.HTTPNotFound() from None

    def on_get(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        key = self._key(req)
        size = self._size(key)
        if self._not_modified(req, resp, key, size):
            return
        self._headers(resp, key, size)
        wanted = byte_range(req.get_header("Range"), size)
        if wanted is False:
            resp.status = falcon.HTTP_416
            resp.set_header("Content-Range", f"bytes */{size}")
            resp.content_length = 0
            return
        try:
            stream = self.site.storage.open(key)
        except (FileNotFoundError, InvalidKey):  # deleted in between
            raise falcon.HTTPNotFound() from None
        if wanted is None:
            resp.set_stream(stream, size)  # closed by the server once sent
            return
        first, last = wanted
        resp.status = falcon.HTTP_206
        resp.set_header("Content-Range", f"bytes {first}-{last}/{size}")
        resp.set_stream(_Slice(stream, first, last - first + 1), last - first + 1)

    def on_head(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        key = self._key(req)
        size = self._size(key)
        if not self._not_modified(req, resp, key, size):
            self._headers(resp, key, size)


def _etag(key: str, size: int) -> str:
    return '"' + hashlib.blake2b(f"{key}\0{size}".encode(), digest_size=12).hexdigest() + '"'


def _matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    return header.strip() == "*" or etag in [tag.strip().removeprefix("W/") for tag in header.split(",")]
