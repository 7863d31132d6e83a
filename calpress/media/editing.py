"""Image edits (the media route's ``/media/{id}/edit``): rotate, flip and crop an attachment's image
as the reference's ``WP_REST_Attachments_Controller::edit_media_item`` does, into the bytes of a
new file. Which attachment the result becomes is the caller's business.

The source is the stored upload (the original beside a ``-scaled`` copy), turned upright from its
EXIF orientation first. Modifiers apply in order: ``rotate`` by ``angle`` degrees clockwise
(multiples of 360 change nothing), ``flip`` horizontally and/or vertically, ``crop`` by ``left``,
``top``, ``width`` and ``height`` in percent of the current size (the whole image changes
nothing). An edit that changes nothing raises :class:`EditError` ``rest_image_not_edited``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageOps

from .images import IMAGE_FORMATS, encode, exif_orientation, read_image, upright

EDITABLE = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_EDITED = re.compile(r"-edited(?:-\d+)?$")


class EditError(ValueError):
    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


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
    """The edited image's bytes and its Pillow format."""
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


__all__ = ["EDITABLE", "IMAGE_FORMATS", "EditError", "apply_edits", "edited_name", "modifiers_from"]
