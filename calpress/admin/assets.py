"""The workspace's files under ``/wp-admin/assets/``: its own stylesheet and script
(``calpress/static/admin/``), and the browser libraries npm installs from
``calpress/admin/vendor/package.json`` and its lock file (``npm ci`` by scripts/serve and
scripts/test, into the ignored ``node_modules``): flatpickr (date-time pickers), Tom Select
(searchable selects that can add an entry), Dropzone (drag-and-drop uploads with progress) and
the block editor (Gutenberg's browser build from ``@automattic/isolated-block-editor``, on React
18's).
Only the files named in :data:`VENDOR_FILES` are served, gzip-compressed for clients that take
it, cached a year (their addresses carry the installed version). Every form works without them:
a page includes a library only when it is installed (:func:`installed`).
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import falcon

from ..http_encoding import accepts

__all__ = ["ASSETS_PATH", "BLOCK_EDITOR_SCRIPTS", "BLOCK_EDITOR_STYLES", "VENDOR_FILES", "AdminAssets", "asset_url", "block_editor_installed", "installed"]

ASSETS_PATH = "/wp-admin/assets"
_OWN = Path(__file__).resolve().parent.parent / "static" / "admin"
_VENDOR = Path(__file__).resolve().parent / "vendor" / "node_modules"

# Served name -> (package, path inside it).
VENDOR_FILES: dict[str, tuple[str, str]] = {
    "flatpickr.js": ("flatpickr", "dist/flatpickr.min.js"),
    "flatpickr.css": ("flatpickr", "dist/flatpickr.min.css"),
    "tom-select.js": ("tom-select", "dist/js/tom-select.complete.min.js"),
    "tom-select.css": ("tom-select", "dist/css/tom-select.default.min.css"),
    "dropzone.js": ("dropzone", "dist/dropzone-min.js"),
    "dropzone.css": ("dropzone", "dist/dropzone.css"),
    # The block editor: React 18's browser build, then Gutenberg's (editor screens only).
    "react.js": ("react", "umd/react.production.min.js"),
    "react-dom.js": ("react-dom", "umd/react-dom.production.min.js"),
    "block-editor.js": ("@automattic/isolated-block-editor", "build-browser/isolated-block-editor.js"),
    "block-editor-core.css": ("@automattic/isolated-block-editor", "build-browser/core.css"),
    "block-editor.css": ("@automattic/isolated-block-editor", "build-browser/isolated-block-editor.css"),
}
# What an editor screen loads, in order, when every file is installed.
BLOCK_EDITOR_SCRIPTS = ("react.js", "react-dom.js", "block-editor.js")
BLOCK_EDITOR_STYLES = ("block-editor-core.css", "block-editor.css")
_TYPES = {".js": "text/javascript; charset=UTF-8", ".css": "text/css; charset=UTF-8"}


@functools.cache
def _version(package: str) -> str | None:
    try:
        return str(json.loads((_VENDOR / package / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def block_editor_installed() -> bool:
    """Whether every file of the block editor is installed."""
    return all(installed(name) for name in (*BLOCK_EDITOR_SCRIPTS, *BLOCK_EDITOR_STYLES))


def installed(name: str) -> bool:
    """Whether the library file ``name`` is installed (npm ci has run)."""
    package, path = VENDOR_FILES[name]
    return _version(package) is not None and (_VENDOR / package / path).is_file()


def asset_url(name: str) -> str:
    """The address of an own file or a library file, with a version to bust caches."""
    if name in VENDOR_FILES:
        return f"{ASSETS_PATH}/vendor/{name}?ver={_version(VENDOR_FILES[name][0])}"
    stamp = int((_OWN / name).stat().st_mtime) if (_OWN / name).is_file() else 0
    return f"{ASSETS_PATH}/{name}?ver={stamp}"


@functools.lru_cache(maxsize=32)
def _load(path: Path) -> tuple[bytes, bytes]:
    data = path.read_bytes()
    return data, gzip.compress(data, 9, mtime=0)


class AdminAssets:
    """The Falcon resource of ``/wp-admin/assets/...`` (no login needed: nothing here is private)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        name = req.path[len(ASSETS_PATH) + 1:]
        if name.startswith("vendor/"):
            found = VENDOR_FILES.get(name[len("vendor/"):])
            path = _VENDOR / found[0] / found[1] if found else None
        else:
            path = _OWN / name if "/" not in name and name[:1] not in (".", "") else None
        if path is None or not path.is_file() or path.suffix not in _TYPES:
            raise falcon.HTTPNotFound()
        plain, packed = _load(path)
        resp.content_type = _TYPES[path.suffix]
        resp.set_header("Cache-Control", "public, max-age=31536000, immutable")
        resp.set_header("Vary", "Accept-Encoding")
        resp.set_header("X-Content-Type-Options", "nosniff")
        if accepts(req.get_header("Accept-Encoding"), "gzip"):  # by its q-value: "gzip;q=0" refuses it
            resp.set_header("Content-Encoding", "gzip")
            resp.data = packed
        else:
            resp.data = plain

    on_head = on_get
