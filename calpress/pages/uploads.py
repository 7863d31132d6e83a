"""Serving stored files at ``/wp-content/uploads/`` (what attachment URLs point at), read through
the site's storage (``site.storage``, :mod:`calpress.media.storage`)."""

from __future__ import annotations

import mimetypes
from typing import TYPE_CHECKING, Any

import falcon

from ..media.storage import UPLOADS_PATH, InvalidKey

if TYPE_CHECKING:
    from ..site import Site

PREFIX = UPLOADS_PATH.rstrip("/")
# Stored names are unique and never rewritten, so a file may be cached for a year.
CACHE_CONTROL = "max-age=31536000"


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
        resp.content_type = mimetypes.guess_type(key.rsplit("/", 1)[-1])[0] or "application/octet-stream"
        resp.content_length = size
        resp.set_header("Cache-Control", CACHE_CONTROL)

    def on_get(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        key = self._key(req)
        storage = self.site.storage
        try:
            stream = storage.open(key)
        except (FileNotFoundError, InvalidKey):
            raise falcon.HTTPNotFound() from None
        try:
            size = storage.size(key)
        except FileNotFoundError:
            stream.close()  # deleted in between
            raise falcon.HTTPNotFound() from None
        self._headers(resp, key, size)
        resp.set_stream(stream, size)  # closed by the server once sent

    def on_head(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        key = self._key(req)
        try:
            size = self.site.storage.size(key)
        except (FileNotFoundError, InvalidKey):
            raise falcon.HTTPNotFound() from None
        self._headers(resp, key, size)
