"""Image attachments: files in the site's storage plus an ``attachment`` item.

What the calendar needs today (calendar-api.md 2.5 and the ``image`` argument of 4.1): store an
image with the reference's sub-sizes and metadata, resolve an ``image`` argument (an attachment
id, the URL of a stored image, or a URL to fetch), and build the image objects of a whole page of
items in one query. A remote image is fetched through the site's guarded client (``site.http``,
:mod:`calpress.net`) while the argument is checked, before any transaction, and the write stores
the bytes fetched then (``Downloads``). The ``cms/v2/media`` routes will build on the same functions.

The files go through the storage seam (:mod:`calpress.media.storage`, ``site.storage``); the
attachment is created by the item service like every other item (its change recorded, its slug
made unique). Metadata follows the reference's ``_wp_attachment_metadata`` (width, height, file,
filesize, sizes by name with file, width, height, mime-type, filesize), kept in ``posts.meta``;
the file's key in the storage (its path relative to the uploads folder) is ``_wp_attached_file``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from .. import net
from ..content import items as item_service
from ..content import rendering
from ..content.items import Context, Item, now_utc, to_local
from ..content.slugs import sanitize_title
from ..rest.errors import RestError
from ..store.fast import Shapes, bind_list, in_binds
from ..store.tables import posts
from .images import (
    IMAGE_FORMATS,
    SIZES,
    encode,
    exif_orientation,
    fit,
    prepare,
    read_image,
    read_image_meta,
    resized,
    scaled_size,
    upright,
)
from .storage import UPLOADS_PATH, InvalidKey, Storage, absolute_url, served_url

METADATA_KEY = "_wp_attachment_metadata"
FILE_KEY = "_wp_attached_file"
MAX_DOWNLOAD = 20 * 1024 * 1024


def invalid_image() -> RestError:
    return RestError("rest_invalid_param", "Invalid parameter(s): image", status=400,
                     params={"image": "Invalid parameter."}, details=[])


def uploads_url(home: str) -> str:
    return home.rstrip("/") + UPLOADS_PATH


# -- storing --------------------------------------------------------------------------------------


def _storage_of(ctx: Context, storage: Storage | None) -> Storage:
    """The storage to write to: the one given, else the site's."""
    if storage is not None:
        return storage
    if ctx.site is None:
        raise TypeError("create_attachment needs a storage, or a context with the site that holds one")
    return ctx.site.storage


def create_attachment(
    conn: sa.Connection,
    ctx: Context,
    storage: Storage | None,
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
    ValueError when ``data`` is not an accepted image (or declares too many pixels), before
    anything is stored; the files of a failed store are removed.

    As the reference's wp_create_image_subsizes: a big JPEG/WebP gets a ``-scaled`` copy (a
    JPEG turned upright on the way), a JPEG with an EXIF orientation a ``-rotated`` one; that
    copy is the attachment's file and ``original_image`` names the upload, kept beside it.
    Sub-sizes are cut from the upload turned upright and named after it."""
    image, fmt = read_image(data)
    mime, extension = IMAGE_FORMATS[fmt]
    target = _storage_of(ctx, storage)
    local = to_local(now_utc(), ctx.zone)
    stem = sanitize_title(Path(filename).stem) or "image"
    image_meta = read_image_meta(image)
    orientation = exif_orientation(image)
    source = upright(image, orientation)
    width, height = source.size
    scaled = scaled_size(width, height, fmt)
    suffix = "scaled" if scaled else "rotated" if orientation > 1 else ""
    planned = [(name, size, crop) for name, max_w, max_h, crop in SIZES if (size := fit(width, height, max_w, max_h, crop))]

    def size_key(key: str, size: tuple[int, int]) -> str:
        return f"{key.rsplit('.', 1)[0]}-{size[0]}x{size[1]}.{extension}"

    def suffixed(key: str) -> str:
        return f"{key.rsplit('.', 1)[0]}-{suffix}.{extension}"

    def needed(candidate: str) -> list[str]:
        keys = [size_key(candidate, size) for _, size, _ in planned]
        return keys + [suffixed(candidate)] if suffix else keys

    # A name is free when its sub-size (and scaled) files are too: they must not replace another
    # upload's files (the reference's wp_unique_filename checks the same).
    relative = target.put_unique(f"{local:%Y}/{local:%m}/{stem}.{extension}", data, also_free=needed)
    stored = [relative]
    try:
        full = _store_renditions(target, image, fmt, source, relative, suffixed(relative) if suffix else None,
                                     scaled, planned, size_key, stored)
    except BaseException:
        for key in stored:
            target.delete(key)
        raise
    if suffix and orientation > 1:
        image_meta["orientation"] = 1  # the stored file is upright now (as the reference: the integer 1)
    # The reference's _wp_attachment_metadata, in its order.
    metadata = {"width": full["width"], "height": full["height"], "file": full["file"],
                "filesize": full.get("filesize", len(data)), "sizes": full["sizes"], "image_meta": image_meta,
                **({"original_image": full["original_image"]} if "original_image" in full else {})}
    full_key = metadata["file"]
    item = item_service.create_item(
        conn, ctx, ctx.registry.types["attachment"],
        item_service.ItemChanges(
            title=Path(filename).stem, author=author, parent=parent, mime_type=mime,
            # The guid is the upload's own address, as the reference's media_handle_upload.
            guid=absolute_url(target.url(relative), ctx.home),
            protected_meta={FILE_KEY: full_key, METADATA_KEY: metadata},
        ),
    )
    return item.id


def _store_renditions(
    target: Storage, image: Any, fmt: str, source: Any, relative: str, full_key: str | None,
    scaled: tuple[int, int] | None, planned: list[tuple[str, tuple[int, int], bool]], size_key: Any, stored: list[str],
) -> dict[str, Any]:
    """Store the scaled/rotated full size (``full_key``, when there is one) and the sub-sizes of
    an upload kept at ``relative``; ``stored`` gets each key written. The attachment metadata
    but its ``image_meta``."""
    mime = IMAGE_FORMATS[fmt][0]
    icc = image.info.get("icc_profile")
    prepared = prepare(source, fmt)
    metadata: dict[str, Any] = {"width": source.width, "height": source.height, "file": relative}
    if full_key is not None:
        if scaled:
            # Resized: EXIF stripped as Imagick strips a resized image's, the colour profile kept.
            full = encode(resized(prepared, scaled, False), fmt, icc_profile=icc)
            size = scaled
        else:
            # Only turned upright: the EXIF stays, its orientation reset (Imagick's maybe_exif_rotate).
            exif = image.getexif()
            exif[0x0112] = 1
            full = encode(prepared, fmt, icc_profile=icc, exif=exif.tobytes())
            size = source.size
        target.put(full_key, full)
        stored.append(full_key)
        metadata.update(width=size[0], height=size[1], file=full_key, filesize=len(full),
                        original_image=relative.rsplit("/", 1)[-1])
    sizes: dict[str, Any] = {}
    for name, size, crop in planned:
        encoded = encode(resized(prepared, size, crop), fmt, icc_profile=icc)
        key = size_key(relative, size)
        target.put(key, encoded)
        stored.append(key)
        sizes[name] = {"file": key.rsplit("/", 1)[-1], "width": size[0], "height": size[1], "mime-type": mime,
                       "filesize": len(encoded)}
    metadata["sizes"] = sizes
    return metadata


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


_IMAGE_ROWS = Shapes(lambda size: sa.select(posts.c.id, posts.c.meta).where(
    in_binds(posts.c.id, "id", size), posts.c.type == "attachment", posts.c.mime_type.like("image/%")))


def image_objects(conn: sa.Connection, home: str, ids: Iterable[int], *, storage: Storage | None = None) -> dict[int, Any]:
    """The image objects of these attachment ids, in one query (missing ids map to False). File
    addresses are ``storage``'s (None: those of the local uploads folder, served at ``home``)."""
    wanted = sorted({int(i) for i in ids if i})
    if not wanted:
        return {}
    params = bind_list("id", wanted)
    rows = _IMAGE_ROWS(len(params)).rows(conn, params)
    found: dict[int, Any] = {i: False for i in wanted}
    for row in rows:
        found[row.id] = _image_object(home, row, storage)
    return found


# -- the ``image`` argument -----------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")
_IMAGE_TYPES = frozenset(mime for mime, _ in IMAGE_FORMATS.values())


def _image_attachment(conn: sa.Connection, attachment_id: int) -> bool:
    row = conn.execute(
        sa.select(posts.c.type, posts.c.mime_type).where(posts.c.id == attachment_id)
    ).first()
    return row is not None and row.type == "attachment" and row.mime_type.startswith("image/")


def attachment_by_url(conn: sa.Connection, storage: Storage, home: str, url: str) -> int | None:
    """The attachment whose file, or one of its renditions, is stored at ``url``, if any: the
    upload itself, a sub-size (``-300x200``), the "-scaled" or "-rotated" full size of a big or
    turned image, or a sub-size of those. The address is read back to a key by the storage, so
    local and bucket addresses are both recognised."""
    key = storage.key_of(url)
    if key is None:
        return None
    stem, dot, extension = key.rpartition(".")
    if not dot:
        return None
    candidates = [key]
    sized = re.fullmatch(r"(.*)-\d+x\d+", stem)
    if sized:
        stem = sized.group(1)
        candidates.append(f"{stem}.{extension}")
    renamed = re.fullmatch(r"(.*)-(?:scaled|rotated)", stem)
    if renamed:
        candidates.append(f"{renamed.group(1)}.{extension}")
    # An upload is known by its guid: the address of the file as uploaded (media_handle_upload).
    guids = [absolute_url(storage.url(candidate), home) for candidate in candidates]
    row = conn.execute(
        sa.select(posts.c.id).where(posts.c.type == "attachment", posts.c.guid.in_(guids)).order_by(posts.c.id).limit(1)
    ).first()
    return row.id if row is not None else None


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
    is refused (calpress.net's policy: loopback, private networks, closed ports...), the request fails,
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
    found = attachment_by_url(conn, _storage_of(ctx, None), ctx.home, value)
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
    conn: sa.Connection, ctx: Context, value: str, user: Any, storage: Storage | None = None, *,
    downloads: Downloads | None = None,
) -> int:
    """The attachment id an ``image`` argument stands for (0 removes the image), storing a remote
    image from ``downloads`` when needed (no network I/O: it runs in the write transaction; what
    was downloaded is stored if it decodes as an image, whatever type its answer said) in
    ``storage`` (None: the site's). Raises the reference's 400 when it cannot."""
    found = _image_value(conn, ctx, value, user)
    if found is None:
        raise invalid_image()
    if isinstance(found, int):
        return found
    image = (downloads or {}).get(found)
    if image is None:
        raise invalid_image()
    name = Path(urlsplit(found).path).name or "image"
    try:
        return create_attachment(conn, ctx, storage, image.data, name, author=getattr(user, "id", 0) or 0)
    except ValueError as err:
        raise invalid_image() from err


# -- sub-sizes after the fact (the media route's post-process) ------------------------------------


def upload_key(meta: dict[str, Any]) -> str:
    """The key of the upload the sub-sizes are cut from (the original beside a -scaled copy)."""
    relative = str(meta.get(FILE_KEY) or "")
    metadata = meta.get(METADATA_KEY) or {}
    original = metadata.get("original_image") if isinstance(metadata, dict) else None
    if original and "/" in relative:
        return relative.rsplit("/", 1)[0] + "/" + str(original)
    return str(original or relative)


def missing_sizes(meta: dict[str, Any], mime: str) -> list[str]:
    """The reference's wp_get_missing_image_subsizes: the registered sizes this image is large
    enough for that its metadata does not list."""
    metadata = meta.get(METADATA_KEY) or {}
    if not mime.startswith("image/") or not isinstance(metadata, dict) or not metadata.get("width"):
        return []
    if mime not in {found[0] for found in IMAGE_FORMATS.values()}:
        return []
    width, height = int(metadata["width"]), int(metadata["height"])
    present = set((metadata.get("sizes") or {}).keys())
    return [name for name, max_w, max_h, crop in SIZES if name not in present and fit(width, height, max_w, max_h, crop)]


def create_missing_sizes(storage: Storage, meta: dict[str, Any], mime: str) -> dict[str, Any] | None:
    """Cut the missing sub-sizes from the stored upload (the reference's wp_update_image_subsizes);
    returns the new metadata, or None when nothing was missing or the upload cannot be read."""
    wanted = missing_sizes(meta, mime)
    if not wanted:
        return None
    key = upload_key(meta)
    try:
        with storage.open(key) as stream:
            data = stream.read()
        image, fmt = read_image(data)
    except (FileNotFoundError, InvalidKey, ValueError):
        return None
    source = upright(image, exif_orientation(image))
    prepared = prepare(source, fmt)
    icc = image.info.get("icc_profile")
    metadata = dict(meta.get(METADATA_KEY) or {})
    sizes = dict(metadata.get("sizes") or {})
    stem, extension = key.rsplit(".", 1)
    for name, max_w, max_h, crop in SIZES:
        if name not in wanted:
            continue
        size = fit(source.width, source.height, max_w, max_h, crop)
        if size is None:
            continue
        encoded = encode(resized(prepared, size, crop), fmt, icc_profile=icc)
        size_key = f"{stem}-{size[0]}x{size[1]}.{extension}"
        storage.put(size_key, encoded)
        sizes[name] = {"file": size_key.rsplit("/", 1)[-1], "width": size[0], "height": size[1],
                       "mime-type": IMAGE_FORMATS[fmt][0], "filesize": len(encoded)}
    metadata["sizes"] = {name: sizes[name] for name, *_ in SIZES if name in sizes}
    return metadata


def attachment_html(item: Item, storage: Storage, home: str) -> str:
    """An attachment's rendered description as the reference's prepend_attachment shows it (its
    REST ``description.rendered`` and its page): the medium-size image (or, for another file,
    its name) linked to the file, then the description."""
    meta = item.meta
    key = str(meta.get(FILE_KEY) or "")
    source = absolute_url(storage.url(key), home) if key else item.guid
    metadata = meta.get(METADATA_KEY)
    body = rendering.render_content(item.content) if item.content.strip() else ""
    if item.mime_type.startswith("image/") and isinstance(metadata, dict):
        medium = (metadata.get("sizes") or {}).get("medium")
        folder = key.rsplit("/", 1)[0] + "/" if "/" in key else ""
        src = absolute_url(storage.url(folder + medium["file"]), home) if medium else source
        width = medium["width"] if medium else metadata.get("width")
        height = medium["height"] if medium else metadata.get("height")
        size = "medium" if medium else "full"
        shown = (f'<img loading="lazy" decoding="async" width="{width}" height="{height}" src="{html.escape(src)}" '
                 f'class="attachment-{size} size-{size}" alt="" />')
    else:
        shown = html.escape(Path(key).name or item.title)
    return f"<p class=\"attachment\"><a href='{html.escape(source)}'>{shown}</a></p>\n" + body
