"""Image attachments: files in the uploads folder plus an ``attachment`` row in ``posts``.

What the calendar needs today (calendar-api.md 2.5 and the ``image`` argument of 4.1): store an
image with the reference's sub-sizes and metadata, resolve an ``image`` argument (an attachment
id, the URL of a stored image, or a URL to fetch), and build the image objects of a whole page of
items in one query. A remote image is fetched through the site's guarded client (``site.http``,
:mod:`calpress.net`) while the argument is checked, before any transaction, and the write stores
the bytes fetched then (``Downloads``). The ``cms/v2/media`` routes will build on the same functions.

Metadata follows the reference's ``_wp_attachment_metadata`` (width, height, file, filesize,
sizes by name with file, width, height, mime-type, filesize), kept in ``posts.meta``; the file
path relative to the uploads folder is ``_wp_attached_file``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import sqlalchemy as sa
from PIL import Image, UnidentifiedImageError

from .. import net
from ..content.items import Context, now_utc, to_local
from ..content.slugs import sanitize_title
from ..rest.errors import RestError
from ..store.changes import record as record_change
from ..store.tables import posts

METADATA_KEY = "_wp_attachment_metadata"
FILE_KEY = "_wp_attached_file"
UPLOADS_PATH = "/wp-content/uploads/"
# Pillow format -> (mime type, file extension): the image types the reference accepts.
IMAGE_FORMATS = {"JPEG": ("image/jpeg", "jpg"), "PNG": ("image/png", "png"), "GIF": ("image/gif", "gif"),
                 "WEBP": ("image/webp", "webp")}
# The reference's default sizes: name, width, height, crop. A size is made only when the image is
# larger than it (0 means "any").
SIZES = (("thumbnail", 150, 150, True), ("medium", 300, 300, False), ("medium_large", 768, 0, False),
         ("large", 1024, 1024, False), ("1536x1536", 1536, 1536, False), ("2048x2048", 2048, 2048, False))
MAX_DOWNLOAD = 20 * 1024 * 1024


def invalid_image() -> RestError:
    return RestError("rest_invalid_param", "Invalid parameter(s): image", status=400,
                     params={"image": "Invalid parameter."}, details=[])


def uploads_url(home: str) -> str:
    return home.rstrip("/") + UPLOADS_PATH


# -- storing --------------------------------------------------------------------------------------


def _unique_path(folder: Path, stem: str, extension: str) -> Path:
    candidate = folder / f"{stem}.{extension}"
    number = 1
    while candidate.exists():
        candidate = folder / f"{stem}-{number}.{extension}"
        number += 1
    return candidate


def _fit(width: int, height: int, max_w: int, max_h: int, crop: bool) -> tuple[int, int] | None:
    """The reference's image_resize_dimensions: the size of a sub-size, or None when the image
    is not larger than it."""
    if crop:
        if width <= max_w and height <= max_h:
            return None
        return min(width, max_w), min(height, max_h)
    ratios = [r for r in ((max_w / width) if max_w else None, (max_h / height) if max_h else None) if r is not None]
    ratio = min(ratios) if ratios else 1.0
    if ratio >= 1:
        return None
    return max(1, round(width * ratio)), max(1, round(height * ratio))


def _save_size(image: Image.Image, target: Path, fmt: str, size: tuple[int, int], crop: bool) -> None:
    if crop:
        width, height = image.size
        scale = max(size[0] / width, size[1] / height)
        scaled = image.resize((max(size[0], round(width * scale)), max(size[1], round(height * scale))))
        left = (scaled.width - size[0]) // 2
        top = (scaled.height - size[1]) // 2
        result = scaled.crop((left, top, left + size[0], top + size[1]))
    else:
        result = image.resize(size)
    if fmt == "JPEG" and result.mode not in ("RGB", "L"):
        result = result.convert("RGB")
    result.save(target, format=fmt)


def read_image(data: bytes) -> tuple[Image.Image, str]:
    """The decoded image and its Pillow format; raises ValueError for anything but an image of
    an accepted type."""
    try:
        probe = Image.open(io.BytesIO(data))
        probe.verify()
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        raise ValueError("not an image") from err
    if image.format not in IMAGE_FORMATS:
        raise ValueError(f"unsupported image type {image.format}")
    return image, image.format


def create_attachment(
    conn: sa.Connection, ctx: Context, uploads_dir: Path, data: bytes, filename: str, *, author: int = 0, parent: int = 0
) -> int:
    """Store an image and its sub-sizes and insert its attachment row, in the caller's
    transaction (the files of a rolled-back insert are left behind, unreferenced). Returns the
    new attachment id. Raises ValueError when ``data`` is not an accepted image."""
    image, fmt = read_image(data)
    mime, extension = IMAGE_FORMATS[fmt]
    now = now_utc()
    local = to_local(now, ctx.zone)
    folder_rel = f"{local:%Y}/{local:%m}"
    folder = uploads_dir / folder_rel
    folder.mkdir(parents=True, exist_ok=True)
    stem = sanitize_title(Path(filename).stem) or "image"
    target = _unique_path(folder, stem, extension)
    target.write_bytes(data)
    width, height = image.size
    sizes: dict[str, Any] = {}
    for name, max_w, max_h, crop in SIZES:
        size = _fit(width, height, max_w, max_h, crop)
        if size is None:
            continue
        size_path = folder / f"{target.stem}-{size[0]}x{size[1]}.{extension}"
        _save_size(image, size_path, fmt, size, crop)
        sizes[name] = {"file": size_path.name, "width": size[0], "height": size[1], "mime-type": mime,
                       "filesize": size_path.stat().st_size}
    relative = f"{folder_rel}/{target.name}"
    metadata = {"width": width, "height": height, "file": relative, "filesize": len(data), "sizes": sizes,
                "image_meta": {}}
    url = uploads_url(ctx.home) + relative
    attachment_id = conn.execute(
        sa.insert(posts).values(
            type="attachment", status="inherit", author=author or None, parent=parent, slug=sanitize_title(target.stem),
            title=Path(filename).stem, content="", excerpt="", mime_type=mime, guid=url,
            date_local=local, date_utc=now, modified_local=local, modified_utc=now, comment_status="closed",
            ping_status="closed", meta={FILE_KEY: relative, METADATA_KEY: metadata},
        ).returning(posts.c.id)
    ).scalar_one()
    record_change(conn, "item", "create", attachment_id)
    return attachment_id


# -- reading --------------------------------------------------------------------------------------


def _image_object(home: str, row: Any) -> dict[str, Any] | bool:
    """calendar-api.md 2.5: url, id, extension, width, height, filesize, sizes; empty values dropped."""
    meta = row.meta or {}
    relative = str(meta.get(FILE_KEY) or "")
    if not relative:
        return False
    base = uploads_url(home)
    metadata = meta.get(METADATA_KEY) or {}
    folder = relative.rsplit("/", 1)[0] + "/" if "/" in relative else ""
    found: dict[str, Any] = {"url": base + relative, "id": row.id, "extension": relative.rsplit(".", 1)[-1].lower()}
    for key in ("width", "height", "filesize"):
        if metadata.get(key):
            found[key] = metadata[key]
    sizes = {}
    for name, size in (metadata.get("sizes") or {}).items():
        entry = {k: v for k, v in size.items() if k != "file"}
        entry["url"] = base + folder + str(size.get("file", ""))
        sizes[name] = entry
    if sizes:
        found["sizes"] = sizes
    return found


def image_objects(conn: sa.Connection, home: str, ids: Iterable[int]) -> dict[int, Any]:
    """The image objects of these attachment ids, in one query (missing ids map to False)."""
    wanted = sorted({int(i) for i in ids if i})
    if not wanted:
        return {}
    rows = conn.execute(
        sa.select(posts.c.id, posts.c.meta).where(posts.c.id.in_(wanted), posts.c.type == "attachment",
                                                  posts.c.mime_type.like("image/%"))
    ).all()
    found: dict[int, Any] = {i: False for i in wanted}
    for row in rows:
        found[row.id] = _image_object(home, row)
    return found


# -- the ``image`` argument -----------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")
_IMAGE_TYPES = frozenset(mime for mime, _ in IMAGE_FORMATS.values())


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


@dataclass(frozen=True)
class RemoteImage:
    """An image downloaded for an ``image`` argument: ``url`` as given, the body and its type."""

    url: str
    data: bytes
    content_type: str


# What the downloads of one request gave, by URL: the answer, or None when the address was refused
# or the fetch failed. Each URL is fetched at most once per request.
Downloads = dict[str, RemoteImage | None]


def fetch(client: net.Client, url: str) -> RemoteImage | None:
    """GET ``url`` through the site's guarded client: what it answered, or None when the address
    is refused (net.py's policy: loopback, private networks, closed ports...), the request fails,
    or the answer is not a 200 with a body. Never call it inside a write transaction."""
    try:
        answer = client.get(url, max_bytes=MAX_DOWNLOAD)
    except net.OutboundError:
        return None
    if answer.status != 200 or not answer.content:
        return None
    return RemoteImage(url, answer.content, answer.content_type)


def _usable(image: RemoteImage | None) -> bool:
    """Whether a download passes the argument check: an image type, as the answer says."""
    return image is not None and image.content_type in _IMAGE_TYPES


def _is_http_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(c.isspace() for c in value)


def _image_value(conn: sa.Connection, ctx: Context, value: str, user: Any) -> int | str | None:
    """What an ``image`` value stands for: an attachment id (0: no image), the URL of an image
    to download (for users who may upload files), or None when it stands for nothing usable."""
    value = value.strip()
    if value == "":
        return 0
    if _DIGITS.fullmatch(value):
        return int(value) if _image_attachment(conn, int(value)) else None
    if not _is_http_url(value):
        return None
    found = attachment_by_url(conn, ctx.home, value)
    if found is not None:
        return found
    return value if user and user.can("upload_files") else None


def check_image_value(conn: sa.Connection, ctx: Context, value: str, user: Any, downloads: Downloads | None = None) -> bool:
    """Whether ``value`` may be given as ``image``: "", an image attachment id, the http(s) URL
    of a stored image, or (for users who may upload) the URL of an image in ``downloads``. No
    network I/O: :func:`check_image` downloads first."""
    found = _image_value(conn, ctx, value, user)
    if isinstance(found, str):
        return downloads is not None and _usable(downloads.get(found))
    return found is not None


def check_image(site: Any, ctx: Context, value: str, user: Any, downloads: Downloads) -> bool:
    """:func:`check_image_value`, downloading a remote image first through ``site.http`` (once
    per URL: the result is kept in ``downloads`` for the write that stores it). Runs outside any
    transaction, and holds no connection while it fetches."""
    if value.strip() in downloads:  # downloaded for this request already
        return _usable(downloads[value.strip()])
    with site.read() as conn:
        found = _image_value(conn, ctx, value, user)
    if not isinstance(found, str):
        return found is not None
    if found not in downloads:
        downloads[found] = fetch(site.http, found)
    return _usable(downloads[found])


def resolve_image(
    conn: sa.Connection, ctx: Context, value: str, user: Any, uploads_dir: Path | None = None, *,
    downloads: Downloads | None = None,
) -> int:
    """The attachment id an ``image`` argument stands for (0 removes the image), storing a remote
    image from ``downloads`` when needed (no network I/O: it runs in the write transaction; what
    was downloaded is stored if it decodes as an image, whatever type its answer said). Raises the
    reference's 400 when it cannot."""
    found = _image_value(conn, ctx, value, user)
    if found is None:
        raise invalid_image()
    if isinstance(found, int):
        return found
    image = (downloads or {}).get(found)
    if image is None:
        raise invalid_image()
    folder = uploads_dir or Path(ctx.site.settings.uploads_dir)
    name = Path(urlsplit(found).path).name or "image"
    try:
        return create_attachment(conn, ctx, folder, image.data, name, author=getattr(user, "id", 0) or 0)
    except ValueError as err:
        raise invalid_image() from err
