"""Image work with Pillow: recognising an uploaded image, and the reference's sub-sizes of it.

Everything here works on bytes and Pillow images, never on files: where the results are kept is
the storage's business (:mod:`calpress.media.storage`).
"""

from __future__ import annotations

import io

from PIL import Image, UnidentifiedImageError

__all__ = ["IMAGE_FORMATS", "SIZES", "fit", "read_image", "render_size"]

# Pillow format -> (mime type, file extension): the image types the reference accepts.
IMAGE_FORMATS = {"JPEG": ("image/jpeg", "jpg"), "PNG": ("image/png", "png"), "GIF": ("image/gif", "gif"),
                 "WEBP": ("image/webp", "webp")}
# The reference's default sizes: name, width, height, crop. A size is made only when the image is
# larger than it (0 means "any").
SIZES = (("thumbnail", 150, 150, True), ("medium", 300, 300, False), ("medium_large", 768, 0, False),
         ("large", 1024, 1024, False), ("1536x1536", 1536, 1536, False), ("2048x2048", 2048, 2048, False))


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


def fit(width: int, height: int, max_w: int, max_h: int, crop: bool) -> tuple[int, int] | None:
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


def render_size(image: Image.Image, fmt: str, size: tuple[int, int], crop: bool) -> bytes:
    """The encoded bytes of ``image`` at ``size``: scaled, or (``crop``) scaled to cover it and
    cut from the middle, as the reference crops thumbnails."""
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
    buffer = io.BytesIO()
    result.save(buffer, format=fmt)
    return buffer.getvalue()
