"""The site icon's square copies: the favicon and touch icons a browser, a phone's home screen
and Windows' tiles ask for.

WordPress cuts them when an icon is chosen (WP_Site_Icon: the chosen image is cropped square and
its ``additional_sizes`` filter adds the ``site_icon-<n>`` sizes, cut square, to that attachment's
metadata). Here the same sizes are cut from the chosen image's upload, its centre square, by the
image machinery of :mod:`.images`, and listed in the attachment's metadata under the same names,
so the head's links (``<link rel="icon" sizes="32x32">`` and the rest) name real files of those
pixel sizes. :func:`icon_sizes` is called where an icon is chosen (Settings > General); a size a
page finds missing falls back to the nearest square file (:func:`icon_url`).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ..content import items as item_service
from ..content.items import Context, ItemChanges
from .attachments import METADATA_KEY, upload_key
from .images import IMAGE_FORMATS, exif_orientation, read_image, render_size, upright
from .storage import InvalidKey, Storage

__all__ = ["ICON_SIZES", "icon_sizes", "icon_url", "size_name"]

# WP_Site_Icon's sizes but the 512 of the cropped image itself: the head uses these four.
ICON_SIZES = (270, 192, 180, 32)


def size_name(pixels: int) -> str:
    return f"site_icon-{pixels}"


def icon_sizes(conn: sa.Connection, ctx: Context, storage: Storage, attachment_id: int) -> bool:
    """Cut the square icon sizes the image ``attachment_id`` lacks and list them in its metadata
    (in the caller's write transaction). False when it is no readable image; True otherwise,
    also when nothing was missing."""
    item = item_service.get_item(conn, attachment_id)
    if item is None or item.type != "attachment" or not item.mime_type.startswith("image/"):
        return False
    metadata = item.meta.get(METADATA_KEY)
    if not isinstance(metadata, dict):
        return False
    sizes = dict(metadata.get("sizes") or {})
    wanted = [n for n in ICON_SIZES if size_name(n) not in sizes]
    if not wanted:
        return True
    key = upload_key(item.meta)
    try:
        with storage.open(key) as stream:
            image, fmt = read_image(stream.read())
    except (FileNotFoundError, InvalidKey, ValueError):
        return False
    source = upright(image, exif_orientation(image))
    stem, extension = key.rsplit(".", 1)
    for pixels in wanted:
        # A smaller image is enlarged: a 32-pixel favicon of a 20-pixel logo is still wanted.
        encoded = render_size(source, fmt, (pixels, pixels), True)
        name = f"{stem}-{pixels}x{pixels}.{extension}"
        storage.put(name, encoded)
        sizes[size_name(pixels)] = {"file": name.rsplit("/", 1)[-1], "width": pixels, "height": pixels,
                                    "mime-type": IMAGE_FORMATS[fmt][0], "filesize": len(encoded)}
    item_service.update_item(conn, ctx, item, ItemChanges(protected_meta={METADATA_KEY: {**metadata, "sizes": sizes}}))
    return True


def icon_url(image: Any, pixels: int) -> str:
    """The address of the icon's ``pixels``-square file: its own size, else the smallest square
    file at least that large, else the largest square one, else the full image ("" for none)."""
    if not isinstance(image, dict) or not image.get("url"):
        return ""
    sizes = image.get("sizes") or {}
    own = sizes.get(size_name(pixels))
    if isinstance(own, dict) and own.get("url"):
        return str(own["url"])
    squares = sorted((int(s["width"]), str(s["url"])) for s in sizes.values()
                     if isinstance(s, dict) and s.get("url") and s.get("width") and s.get("width") == s.get("height"))
    larger = [url for width, url in squares if width >= pixels]
    if larger:
        return larger[0]
    return squares[-1][1] if squares else str(image["url"])
