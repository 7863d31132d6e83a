"""Image edits (the media route's ``/media/{id}/edit``): rotate, flip and crop an attachment's image
as the reference's ``WP_REST_Attachments_Controller::edit_media_item`` does, into the bytes of a
new file. Which attachment the result becomes is the caller's business.

The source is the stored upload (the original beside a ``-scaled`` copy), turned upright from its
EXIF orientation first. Modifiers apply in order: ``rotate`` by ``angle`` degrees clockwise
(multiples of 360 change nothing), ``flip`` horizontally and/or vertically, ``crop`` by ``left``,
``top``, ``width`` and ``height`` in percent of the current size (the whole image changes
nothing). An edit that changes nothing raises :class:`EditError` ``rest_image_not_edited``.

What one edit may cost is bounded before any pixel is touched: at most :data:`MAX_MODIFIERS`
modifiers, and the size of the image after each of them is worked out from the source's header
(a rotation by other than a right angle grows the canvas to hold the turned corners: eight
turns of 45 degrees make a square 256 times as many pixels); an edit whose image would at any
step exceed :data:`EDIT_MAX_PIXELS` is refused (``rest_invalid_param`` naming ``modifiers``).
The reference has neither bound, and answers such a request after minutes with a 500, if at all.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageOps

from .. import lane
from .images import IMAGE_FORMATS, MAX_PIXELS, encode, exif_orientation, read_image, upright

EDITABLE = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
MAX_MODIFIERS = 10
"""Modifiers one edit may hold (the block editor's image editor sends a crop and a rotation)."""
EDIT_MAX_PIXELS = MAX_PIXELS // 2
"""Pixels the image may have after any modifier of an edit (50 million: a 200 MB canvas in RGBA)."""
_EDITED = re.compile(r"-edited(?:-\d+)?$")


class EditError(ValueError):
    def __init__(self, code: str, message: str, status: int = 400, params: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.params = code, message, status, params


def edited_name(file_name: str) -> str:
    """``photo.jpg`` -> ``photo-edited.jpg``; an existing ``-edited``/``-edited-N`` suffix is
    replaced, not repeated (the storage makes the name unique)."""
    stem, dot, extension = file_name.rpartition(".")
    if not dot:
        stem, extension = file_name, ""
    stem = _EDITED.sub("", stem)
    return f"{stem}-edited" + (f".{extension}" if extension else "")


def _number(args: Any, name: str) -> float:
    value = args.get(name) if isinstance(args, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise EditError("rest_invalid_param", f"The {name} of a modifier must be a number.")
    try:
        number = float(value)
    except ValueError:
        raise EditError("rest_invalid_param", f"The {name} of a modifier must be a number.") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise EditError("rest_invalid_param", f"The {name} of a modifier must be a number.")
    return number


def _rotated_size(size: tuple[int, int], args: Any) -> tuple[int, int]:
    """At least the size Pillow's ``rotate(expand=True)`` gives: the box holding the turned
    corners (a pixel more each way for rounding)."""
    angle = _number(args, "angle") % 360
    if angle == 0:
        return size
    if angle in (90, 270):
        return size[1], size[0]
    radians = math.radians(angle)
    cos, sin = abs(math.cos(radians)), abs(math.sin(radians))
    w, h = size
    return math.ceil(w * cos + h * sin) + 1, math.ceil(w * sin + h * cos) + 1


def _cropped_size(size: tuple[int, int], args: Any) -> tuple[int, int]:
    width, height = (_number(args, name) for name in ("width", "height"))
    return max(1, math.ceil(size[0] * min(max(width, 0), 100) / 100)), max(1, math.ceil(size[1] * min(max(height, 0), 100) / 100))


_SIZE_AFTER = {"rotate": _rotated_size, "flip": lambda size, args: size, "crop": _cropped_size}


def check_cost(size: tuple[int, int], modifiers: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """The size of the image after ``modifiers``, from the source's ``size`` (upright); raises
    :class:`EditError` for more than :data:`MAX_MODIFIERS` modifiers or a step over
    :data:`EDIT_MAX_PIXELS`. No pixel is touched."""
    if len(modifiers) > MAX_MODIFIERS:
        raise EditError("rest_invalid_param", f"An edit may hold {MAX_MODIFIERS} modifiers at most.",
                        params={"modifiers": f"modifiers must contain no more than {MAX_MODIFIERS} items."})
    for step, modifier in enumerate(modifiers):
        size = _SIZE_AFTER[modifier["type"]](size, modifier["args"])
        if size[0] * size[1] > EDIT_MAX_PIXELS:
            raise EditError("rest_invalid_param", f"The image would be {size[0]}x{size[1]} pixels after modifier {step}: "
                            f"an edit may make at most {EDIT_MAX_PIXELS:,} pixels.",
                            params={"modifiers": f"modifiers[{step}] would make the image larger than {EDIT_MAX_PIXELS:,} pixels."})
    return size


def _rotate(image: Image.Image, args: Any) -> Image.Image | None:
    angle = _number(args, "angle")
    if angle % 360 == 0:
        return None
    return image.rotate(-angle, expand=True, resample=Image.Resampling.BICUBIC)


def _flip(image: Image.Image, args: Any) -> Image.Image | None:
    flip = args.get("flip") if isinstance(args, dict) else None
    if not isinstance(flip, dict):
        raise EditError("rest_invalid_param", "A flip modifier needs args.flip with horizontal and vertical.")
    result = image
    if flip.get("horizontal") in (True, "true", 1, "1"):
        result = ImageOps.mirror(result)
    if flip.get("vertical") in (True, "true", 1, "1"):
        result = ImageOps.flip(result)
    return None if result is image else result


def _crop(image: Image.Image, args: Any) -> Image.Image | None:
    left, top, width, height = (_number(args, name) for name in ("left", "top", "width", "height"))
    if not (0 <= left < 100 and 0 <= top < 100 and 0 < width <= 100 and 0 < height <= 100):
        raise EditError("rest_image_crop_failed", "The crop lies outside the image.", 400)
    if left + width > 100.0001 or top + height > 100.0001:
        raise EditError("rest_image_crop_failed", "The crop lies outside the image.", 400)
    w, h = image.size
    box = (round(w * left / 100), round(h * top / 100), round(w * (left + width) / 100), round(h * (top + height) / 100))
    box = (box[0], box[1], min(w, max(box[0] + 1, box[2])), min(h, max(box[1] + 1, box[3])))
    if box == (0, 0, w, h):
        return None
    return image.crop(box)


_APPLY = {"rotate": _rotate, "flip": _flip, "crop": _crop}


def modifiers_from(params: dict[str, Any]) -> list[dict[str, Any]]:
    """``modifiers`` when given, else the deprecated ``rotation`` then ``x``/``y``/``width``/``height``
    (a crop only when all four are given), as the reference converts them."""
    given = params.get("modifiers")
    if given is not None:
        if not isinstance(given, list) or not given:
            raise EditError("rest_invalid_param", "modifiers must be a list of at least one modifier.")
        for modifier in given:
            if not isinstance(modifier, dict) or modifier.get("type") not in _APPLY or not isinstance(modifier.get("args"), dict):
                raise EditError("rest_invalid_param", "Each modifier needs a type (rotate, flip or crop) and its args.")
        return list(given)
    found: list[dict[str, Any]] = []
    rotation = params.get("rotation")
    if rotation is not None:
        found.append({"type": "rotate", "args": {"angle": rotation}})
    crop = [params.get(name) for name in ("x", "y", "width", "height")]
    if all(value is not None for value in crop):
        found.append({"type": "crop", "args": dict(zip(("left", "top", "width", "height"), crop, strict=True))})
    return found


def apply_edits(data: bytes, modifiers: Sequence[dict[str, Any]]) -> tuple[bytes, str]:
    """The edited image's bytes and its Pillow format. The cost is checked (:func:`check_cost`)
    from the source's header before the source is decoded. Leaves the write lane (lane.py), as
    images.read_image does."""
    lane.leave()
    try:
        with Image.open(io.BytesIO(data)) as probe:
            size = probe.size
            if exif_orientation(probe) in (5, 6, 7, 8):
                size = size[1], size[0]
    except Exception:  # not an image (or a broken one): read_image below says which
        size = None
    if size is not None:
        check_cost(size, modifiers)
    try:
        image, fmt = read_image(data)
    except ValueError:
        raise EditError("rest_unknown_image_file_type", "Unable to edit this image.", 500) from None
    result = upright(image, exif_orientation(image))
    changed = result is not image
    for modifier in modifiers:
        edited = _APPLY[modifier["type"]](result, modifier["args"])
        if edited is not None:
            result, changed = edited, True
    if not changed:
        raise EditError("rest_image_not_edited", "The image was not edited. Edit the image before applying the changes.")
    if fmt == "JPEG" and result.mode not in ("RGB", "L"):
        result = result.convert("RGB")
    return encode(result, fmt, icc_profile=image.info.get("icc_profile")), fmt


__all__ = ["EDITABLE", "EDIT_MAX_PIXELS", "IMAGE_FORMATS", "MAX_MODIFIERS", "EditError", "apply_edits", "check_cost",
           "edited_name", "modifiers_from"]
