"""Image attachments: files in the site's storage plus an ``attachment`` item.

What the calendar needs today (calendar-api.md 2.5 and the ``image`` argument of 4.1): store an
image with the reference's sub-sizes and metadata, resolve an ``image`` argument (an attachment
id, the URL of a stored image, or a URL to fetch), and build the image objects of a whole page of
items in one query. The ``cms/v2/media`` routes will build on the same functions.

The files go through the storage seam (:mod:`calpress.media.storage`, ``site.storage``); the
attachment is created by the item service like every other item (its change recorded, its slug
made unique). Metadata follows the reference's ``_wp_attachment_metadata`` (width, height, file,
filesize, sizes by name with file, width, height, mime-type, filesize), kept in ``posts.meta``;
the file's key in the storage (its path relative to the uploads folder) is ``_wp_attached_file``.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import sqlalchemy as sa

from ..content import items as item_service
from ..content.items import Context, now_utc, to_local
from ..content.slugs import sanitize_title
from ..rest.errors import RestError
from ..store.tables import posts
from .images import IMAGE_FORMATS, SIZES, fit, read_image, render_size
from .storage import UPLOADS_PATH, InvalidKey, LocalStorage, Storage, absolute_url, served_url

METADATA_KEY = "_wp_attachment_metadata"
FILE_KEY = "_wp_attached_file"
MAX_DOWNLOAD = 20 * 1024 * 1024
FETCH_TIMEOUT = 10.0


def invalid_image() -> RestError:
    return RestError("rest_invalid_param", "Invalid parameter(s): image", status=400,
                     params={"image": "Invalid parameter."}, details=[])


def uploads_url(home: str) -> str:
    return home.rstrip("/") + UPLOADS_PATH


# -- storing --------------------------------------------------------------------------------------


def _storage_of(ctx: Context, storage: Storage | Path | None) -> Storage:
    """The storage to write to: the one given, else the site's. A folder (callers from before the
    storage seam pass the uploads folder) means the site's storage when it is the site's
    uploads folder, else a local storage over that folder."""
    if isinstance(storage, Storage):
        return storage
    site = ctx.site
    if storage is None or (site is not None and Path(storage) == Path(site.settings.uploads_dir)):
        if site is None:
            raise TypeError("create_attachment needs a storage, or a context with the site that holds one")
        return site.storage
    return LocalStorage(storage, UPLOADS_PATH)


def create_attachment(
    conn: sa.Connection,
    ctx: Context,
    storage: Storage | Path | None,
    data: bytes,
    filename: str,
    *,
    author: int = 0,
    parent: int = 0,
) -> int:
    """Store an image and its sub-sizes in ``storage`` (None: the site's) under ``YYYY/MM/`` of
    the site's current month, and create its attachment item through the item service, in the
    caller's write transaction; no network I/O of its own (the files of a rolled-back
    transaction are left behind, unreferenced). Returns the new attachment id. Raises
    ValueError when ``data`` is not an accepted image."""
    image, fmt = read_image(data)
    mime, extension = IMAGE_FORMATS[fmt]
    target = _storage_of(ctx, storage)
    local = to_local(now_utc(), ctx.zone)
    stem = sanitize_title(Path(filename).stem) or "image"
    width, height = image.size
    planned = [(name, size, crop) for name, max_w, max_h, crop in SIZES if (size := fit(width, height, max_w, max_h, crop))]

    def size_key(key: str, size: tuple[int, int]) -> str:
        return f"{key.rsplit('.', 1)[0]}-{size[0]}x{size[1]}.{extension}"

    # A name is free when its sub-size files are too: they must not replace another upload's
    # files (the reference's wp_unique_filename checks the same).
    relative = target.put_unique(
        f"{local:%Y}/{local:%m}/{stem}.{extension}", data,
        also_free=lambda candidate: [size_key(candidate, size) for _, size, _ in planned],
    )
    sizes: dict[str, Any] = {}
    for name, size, crop in planned:
        encoded = render_size(image, fmt, size, crop)
        key = size_key(relative, size)
        target.put(key, encoded)
        sizes[name] = {"file": key.rsplit("/", 1)[-1], "width": size[0], "height": size[1], "mime-type": mime,
                       "filesize": len(encoded)}
    metadata = {"width": width, "height": height, "file": relative, "filesize": len(data), "sizes": sizes,
                "image_meta": {}}
    item = item_service.create_item(
        conn, ctx, ctx.registry.types["attachment"],
        item_service.ItemChanges(
            title=Path(filename).stem, author=author, parent=parent, mime_type=mime,
            guid=absolute_url(target.url(relative), ctx.home),
            protected_meta={FILE_KEY: relative, METADATA_KEY: metadata},
        ),
    )
    return item.id


# -- reading --------------------------------------------------------------------------------------


def _file_url(storage: Storage | None, home: str, key: str) -> str:
    """The address of a stored file: ``storage``'s, or (None) the uploads folder's served at ``home``."""
    if storage is not None:
        try:
            return absolute_url(storage.url(key), home)
        except InvalidKey:
            pass  # metadata not written here (an import): addressed as the uploads folder would be
    return absolute_url(served_url(key), home)


def _image_object(home: str, row: Any, storage: Storage | None = None) -> dict[str, Any] | bool:
    """calendar-api.md 2.5: url, id, extension, width, height, filesize, sizes; empty values dropped."""
    meta = row.meta or {}
    relative = str(meta.get(FILE_KEY) or "")
    if not relative:
        return False
    metadata = meta.get(METADATA_KEY) or {}
    folder = relative.rsplit("/", 1)[0] + "/" if "/" in relative else ""
    found: dict[str, Any] = {"url": _file_url(storage, home, relative), "id": row.id,
                             "extension": relative.rsplit(".", 1)[-1].lower()}
    for key in ("width", "height", "filesize"):
        if metadata.get(key):
            found[key] = metadata[key]
    sizes = {}
    for name, size in (metadata.get("sizes") or {}).items():
        entry = {k: v for k, v in size.items() if k != "file"}
        entry["url"] = _file_url(storage, home, folder + str(size.get("file", "")))
        sizes[name] = entry
    if sizes:
        found["sizes"] = sizes
    return found


def image_objects(conn: sa.Connection, home: str, ids: Iterable[int], *, storage: Storage | None = None) -> dict[int, Any]:
    """The image objects of these attachment ids, in one query (missing ids map to False). File
    addresses are ``storage``'s (None: those of the local uploads folder, served at ``home``)."""
    wanted = sorted({int(i) for i in ids if i})
    if not wanted:
        return {}
    rows = conn.execute(
        sa.select(posts.c.id, posts.c.meta).where(posts.c.id.in_(wanted), posts.c.type == "attachment",
                                                  posts.c.mime_type.like("image/%"))
    ).all()
    found: dict[int, Any] = {i: False for i in wanted}
    for row in rows:
        found[row.id] = _image_object(home, row, storage)
    return found


# -- the ``image`` argument -----------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")


def _image_attachment(conn: sa.Connection, attachment_id: int) -> bool:
    row = conn.execute(
        sa.select(posts.c.type, posts.c.mime_type).where(posts.c.id == attachment_id)
    ).first()
    return row is not None and row.type == "attachment" and row.mime_type.startswith("image/")


def attachment_by_url(conn: sa.Connection, home: str, url: str) -> int | None:
    """The attachment stored at ``url`` (its full size or one of its sub-sizes), if any."""
    base = uploads_url(home)
    path = urlsplit(url).path
    marker = path.find(UPLOADS_PATH)
    if not url.startswith(base) and marker < 0:
        return None
    relative = unquote(path[marker + len(UPLOADS_PATH):]) if marker >= 0 else url[len(base):]
    size_match = re.fullmatch(r"(.*)-\d+x\d+(\.\w+)", relative)
    candidates = [relative] + ([size_match.group(1) + size_match.group(2)] if size_match else [])
    for candidate in candidates:
        row = conn.execute(
            sa.select(posts.c.id).where(posts.c.type == "attachment", posts.c.guid == base + candidate).limit(1)
        ).first()
        if row is not None:
            return row.id
    return None


def fetch(url: str, *, method: str = "GET", limit: int = MAX_DOWNLOAD) -> tuple[int, str, bytes]:
    """(status, content type, body up to ``limit`` bytes) of an outbound HTTP request; status 0
    when the address cannot be reached."""
    request = urllib.request.Request(url, method=method, headers={"User-Agent": "calpress"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:  # noqa: S310 (http(s) only, checked)
            body = response.read(limit + 1) if method == "GET" else b""
            if len(body) > limit:
                return 413, "", b""
            return response.status, response.headers.get_content_type(), body
    except urllib.error.HTTPError as err:
        return err.code, "", b""
    except (urllib.error.URLError, OSError, ValueError):
        return 0, "", b""


def _is_http_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(c.isspace() for c in value)


def check_image_value(conn: sa.Connection, ctx: Context, value: str, user: Any) -> bool:
    """Whether ``value`` may be given as ``image``: "", an image attachment id, or an http(s)
    URL of a stored image or (for users who may upload) of an image that answers a HEAD request."""
    value = value.strip()
    if value == "":
        return True
    if _DIGITS.fullmatch(value):
        return _image_attachment(conn, int(value))
    if not _is_http_url(value):
        return False
    if attachment_by_url(conn, ctx.home, value) is not None:
        return True
    if not (user and user.can("upload_files")):
        return False
    status, content_type, _ = fetch(value, method="HEAD")
    return status == 200 and content_type in {mime for mime, _ in IMAGE_FORMATS.values()}


def resolve_image(conn: sa.Connection, ctx: Context, value: str, user: Any, uploads_dir: Path | None = None) -> int:
    """The attachment id an ``image`` argument stands for (0 removes the image), downloading and
    storing a remote image when needed. Raises the reference's 400 when it cannot."""
    value = value.strip()
    if value == "":
        return 0
    if _DIGITS.fullmatch(value):
        if not _image_attachment(conn, int(value)):
            raise invalid_image()
        return int(value)
    if not _is_http_url(value):
        raise invalid_image()
    found = attachment_by_url(conn, ctx.home, value)
    if found is not None:
        return found
    if not (user and user.can("upload_files")):
        raise invalid_image()
    status, _, data = fetch(value)
    if status != 200 or not data:
        raise invalid_image()
    folder = uploads_dir or Path(ctx.site.settings.uploads_dir)
    name = Path(urlsplit(value).path).name or "image"
    try:
        return create_attachment(conn, ctx, folder, data, name, author=getattr(user, "id", 0) or 0)
    except ValueError as err:
        raise invalid_image() from err

