"""Serving the uploads folder at ``/wp-content/uploads/`` (what attachment URLs point at)."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

import falcon

PREFIX = "/wp-content/uploads"


class UploadsResource:
    """GET/HEAD of a file below the uploads folder; nothing outside it (no ``..``, no links out)."""

    def __init__(self, uploads_dir: Path) -> None:
        self.root = Path(uploads_dir)

    def _file(self, req: falcon.Request) -> Path:
        relative = req.path[len(PREFIX):].lstrip("/")
        if not relative or "\x00" in relative:
            raise falcon.HTTPNotFound()
        root = self.root.resolve()
        target = (root / relative).resolve()
        if root not in target.parents or not target.is_file():
            raise falcon.HTTPNotFound()
        return target

    def on_get(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        target = self._file(req)
        resp.content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        resp.data = target.read_bytes()
        resp.set_header("Cache-Control", "max-age=31536000")

    def on_head(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        target = self._file(req)
        resp.content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        resp.content_length = target.stat().st_size
