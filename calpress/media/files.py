"""Attachments of files that are not resized images (PDFs, documents, audio, video, and images the
server cannot resize): the file stored under ``YYYY/MM/`` with a unique name, and its attachment
item with the reference's metadata (``{"filesize": n}``), in the caller's write transaction.

Images the server resizes go through :func:`calpress.media.attachments.create_attachment`. Both
kinds are removed with :func:`stored_keys` (every file an attachment owns: the file, its sub-sizes
and an original kept beside a scaled or rotated copy).
"""

from __future__ import annotations

from typing import Any, BinaryIO

import sqlalchemy as sa

from ..content import items as item_service
from ..content.items import Context, now_utc, to_local
from .attachments import FILE_KEY, METADATA_KEY
from .storage import Storage, absolute_url


def create_file_attachment(
    conn: sa.Connection, ctx: Context, storage: Storage, data: bytes | BinaryIO, file_name: str, mime: str, *, title: str,
    author: int = 0, parent: int = 0,
) -> int:
    """Store ``data`` (bytes, or a stream copied in slices: a spooled upload) as ``file_name``
    (already sanitised) and create its attachment; the new id."""
    local = to_local(now_utc(), ctx.zone)
    key = storage.put_unique(f"{local:%Y}/{local:%m}/{file_name}", data)
    size = len(data) if isinstance(data, bytes) else storage.size(key)
    item = item_service.create_item(
        conn, ctx, ctx.registry.types["attachment"],
        item_service.ItemChanges(
            title=title, author=author, parent=parent, mime_type=mime, guid=absolute_url(storage.url(key), ctx.home),
            protected_meta={FILE_KEY: key, METADATA_KEY: {"filesize": size}},
        ),
    )
    return item.id


def stored_keys(meta: dict[str, Any]) -> list[str]:
    """The storage keys of every file an attachment owns, from its meta."""
    main = str(meta.get(FILE_KEY) or "")
    if not main:
        return []
    folder = main.rsplit("/", 1)[0] + "/" if "/" in main else ""
    keys = [main]
    metadata = meta.get(METADATA_KEY) or {}
    if isinstance(metadata, dict):
        for size in (metadata.get("sizes") or {}).values():
            if isinstance(size, dict) and size.get("file"):
                keys.append(folder + str(size["file"]))
        if metadata.get("original_image"):
            keys.append(folder + str(metadata["original_image"]))
    return list(dict.fromkeys(keys))
