"""Image work with Pillow: recognising an uploaded image, and the reference's sub-sizes of it.

Everything here works on bytes and Pillow images, never on files: where the results are kept is
the storage's business (:mod:`calpress.media.storage`).

What the reference does at upload (wp-admin/includes/image.php, wp_create_image_subsizes), as
followed here:

* ``wp_read_image_metadata``: :func:`read_image_meta` (EXIF of JPEG files, and their IPTC).
* a JPEG or WebP larger than ``big_image_size_threshold`` (2560) on a side is scaled to fit
  2560x2560 and saved as ``name-scaled.ext``, turned upright on the way when its EXIF says so
  (PNG is never scaled); else a JPEG with an EXIF Orientation other than 1 is turned upright and
  saved as ``name-rotated.jpg``. The original file stays, named by ``original_image``.
* sub-sizes are cut from the original turned upright (not from the scaled copy: "for best
  quality"), named after the original, by image_resize_dimensions' rules (:func:`fit`).
* Imagick's output: JPEG quality 82 (WebP 86), EXIF stripped from resized images but the colour
  profile kept (Imagick's strip_meta keeps ICC profiles).
"""

from __future__ import annotations

import io
import math
import warnings
from datetime import UTC, datetime, timedelta
from typing import Any

from PIL import Image, IptcImagePlugin, UnidentifiedImageError

from .. import lane
from ..compat.kses import kses_post
from ..compat.php import php_str

__all__ = [
    "BIG_IMAGE_THRESHOLD", "IMAGE_FORMATS", "MAX_PIXELS", "SIZES", "constrain", "crop_box", "exif_orientation", "fit",
    "encode", "prepare", "read_image", "read_image_meta", "render_size", "resized", "scaled_size", "upright",
]

# Pillow format -> (mime type, file extension): the image types the reference accepts.
IMAGE_FORMATS = {"JPEG": ("image/jpeg", "jpg"), "PNG": ("image/png", "png"), "GIF": ("image/gif", "gif"),
                 "WEBP": ("image/webp", "webp")}
# The types an upload of which gets sub-sizes (create_attachment); others are stored as files.
RESIZED_TYPES = frozenset(mime for mime, _ in IMAGE_FORMATS.values())
# The reference's default sizes: name, width, height, crop (0 means "any").
SIZES = (("thumbnail", 150, 150, True), ("medium", 300, 300, False), ("medium_large", 768, 0, False),
         ("large", 1024, 1024, False), ("1536x1536", 1536, 1536, False), ("2048x2048", 2048, 2048, False))
# The reference's big_image_size_threshold: larger images get a "-scaled" copy as their full size.
BIG_IMAGE_THRESHOLD = 2560
# Decompression bombs: an image declaring more pixels than this is refused before it is decoded
# (100 megapixels: 10000x10000; a 24-megapixel camera's 6000x4000 is far below).
MAX_PIXELS = 100_000_000
Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # Pillow's own guard, at the same limit (it raises above twice it)
# WP_Image_Editor's default output quality (wp_editor_set_quality): 82, WebP 86.
QUALITY = {"JPEG": 82, "WEBP": 86}

_ORIENTATION = 0x0112
_EXIF_IFD = 0x8769
# EXIF Orientation -> the Pillow transpose that makes the image upright.
_UPRIGHT = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
            5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
            8: Image.Transpose.ROTATE_90}


def read_image(data: bytes) -> tuple[Image.Image, str]:
    """The decoded image and its Pillow format; raises ValueError for anything but an image of
    an accepted type, and for an image declaring more than :data:`MAX_PIXELS` pixels (checked
    before anything is decoded). Decoding and resizing take long: a write doing it leaves the
    write lane (lane.py), so the worker's other writes go on meanwhile."""
    lane.leave()
    try:
        # Pillow warns of an image over its limit, and refuses one over twice it: both refused
        # here, as the size check below refuses it (the caller answers 400).
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            probe = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
        raise ValueError("image too large") from err
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        raise ValueError("not an image") from err
    if probe.width * probe.height > MAX_PIXELS:
        raise ValueError(f"image too large: {probe.width}x{probe.height} is over {MAX_PIXELS} pixels")
    try:
        probe.verify()
        image = Image.open(io.BytesIO(data))
        image.load()
    except Image.DecompressionBombError as err:
        raise ValueError("image too large") from err
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        raise ValueError("not an image") from err
    if image.format not in IMAGE_FORMATS:
        raise ValueError(f"unsupported image type {image.format}")
    return image, image.format


# -- dimensions -----------------------------------------------------------------------------------


def _near(a: float, b: float) -> bool:
    """wp_fuzzy_number_match: equal within one pixel."""
    return abs(a - b) <= 1


def constrain(width: int, height: int, max_w: int = 0, max_h: int = 0) -> tuple[int, int]:
    """wp_constrain_dimensions: the size of ``width`` x ``height`` scaled down to fit the box
    (0: no limit on that side), rounded as the reference rounds, never upscaled."""
    if not max_w and not max_h:
        return width, height
    w_ratio = h_ratio = 1.0
    by_width = max_w > 0 and width > max_w
    by_height = max_h > 0 and height > max_h
    if by_width:
        w_ratio = max_w / width
    if by_height:
        h_ratio = max_h / height
    small, large = min(w_ratio, h_ratio), max(w_ratio, h_ratio)
    # The larger ratio when it still fits the box (a snugger fit), else the smaller one. A side
    # without a limit (0) never fits a limit, as in the reference's comparison with 0.
    overflows = _php_round(width * large) > max_w or _php_round(height * large) > max_h
    ratio = small if overflows else large
    new_w = max(1, _php_round(width * ratio))
    new_h = max(1, _php_round(height * ratio))
    # One pixel short of the limit through rounding: made the limit.
    if by_width and new_w == max_w - 1:
        new_w = max_w
    if by_height and new_h == max_h - 1:
        new_h = max_h
    return new_w, new_h


def _php_round(value: float) -> int:
    """PHP's round(): halves away from zero (Python's round() rounds them to even)."""
    return int(math.floor(value + 0.5)) if value >= 0 else -int(math.floor(-value + 0.5))


def fit(width: int, height: int, max_w: int, max_h: int, crop: bool) -> tuple[int, int] | None:
    """The reference's image_resize_dimensions: the size of a sub-size, or None when none is made.

    None when the image is smaller than the size (than both sides of it when both are given: a
    thumbnail of a 1000x100 image is 150x100, cut from the middle), or when the result would be
    the image's own size within a pixel."""
    if width <= 0 or height <= 0 or (max_w <= 0 and max_h <= 0):
        return None
    if not max_h:
        if width < max_w:
            return None
    elif not max_w:
        if height < max_h:
            return None
    elif width < max_w and height < max_h:
        return None
    if crop:
        new_w, new_h = min(max_w, width), min(max_h, height)
        if not new_w:
            new_w = _php_round(new_h * width / height)
        if not new_h:
            new_h = _php_round(new_w * height / width)
    else:
        new_w, new_h = constrain(width, height, max_w, max_h)
    if _near(new_w, width) and _near(new_h, height):
        return None
    return new_w, new_h


def crop_box(width: int, height: int, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The part of a ``width`` x ``height`` image a cropped sub-size of ``size`` shows: the
    largest area of the size's proportions, from the centre (image_resize_dimensions' crop)."""
    ratio = max(size[0] / width, size[1] / height)
    crop_w, crop_h = _php_round(size[0] / ratio), _php_round(size[1] / ratio)
    left, top = (width - crop_w) // 2, (height - crop_h) // 2
    return left, top, left + crop_w, top + crop_h


def scaled_size(width: int, height: int, fmt: str) -> tuple[int, int] | None:
    """The size of the "-scaled" copy the reference makes of a big image, or None (PNG images
    are never scaled, #48736)."""
    if fmt == "PNG" or (width <= BIG_IMAGE_THRESHOLD and height <= BIG_IMAGE_THRESHOLD):
        return None
    return fit(width, height, BIG_IMAGE_THRESHOLD, BIG_IMAGE_THRESHOLD, False)


# -- orientation ----------------------------------------------------------------------------------


def exif_orientation(image: Image.Image) -> int:
    """The EXIF Orientation the reference acts on (maybe_exif_rotate: JPEG only), 0 when none."""
    if image.format != "JPEG":
        return 0
    try:
        value = int(image.getexif().get(_ORIENTATION) or 0)
    except (TypeError, ValueError):
        return 0
    return value if 1 <= value <= 8 else 0


def upright(image: Image.Image, orientation: int) -> Image.Image:
    """``image`` turned as its EXIF ``orientation`` says (the same image for 0, 1 or unknown)."""
    method = _UPRIGHT.get(orientation)
    if method is None:
        return image
    turned = image.transpose(method)
    turned.info = dict(image.info)
    return turned


# -- writing --------------------------------------------------------------------------------------


def prepare(image: Image.Image, fmt: str) -> Image.Image:
    """``image`` in a mode that resizes smoothly and saves as ``fmt``: palette images become
    RGB(A), keeping their transparency as alpha."""
    if image.mode == "P" or image.mode == "PA":
        has_alpha = image.mode == "PA" or "transparency" in image.info
        image = image.convert("RGBA" if has_alpha else "RGB")
    elif image.mode == "1":
        image = image.convert("L")
    elif image.mode in ("L", "RGB") and "transparency" in image.info:
        image = image.convert("LA" if image.mode == "L" else "RGBA")
    if fmt == "JPEG" and image.mode not in ("RGB", "L", "CMYK"):
        image = image.convert("RGB")
    return image


def encode(image: Image.Image, fmt: str, *, icc_profile: bytes | None = None, exif: bytes | None = None) -> bytes:
    """``image`` encoded as ``fmt`` as Imagick writes it for the reference: JPEG at quality 82,
    WebP at 86, the colour profile kept; EXIF only when given."""
    options: dict[str, Any] = {}
    if icc_profile and fmt in ("JPEG", "PNG", "WEBP"):
        options["icc_profile"] = icc_profile
    if exif and fmt in ("JPEG", "WEBP", "PNG"):
        options["exif"] = exif
    if fmt in QUALITY:
        options["quality"] = QUALITY[fmt]
    if fmt == "GIF":
        image = _as_gif(image)
        if "transparency" in image.info:
            options["transparency"] = image.info["transparency"]
    elif fmt == "JPEG" and image.mode not in ("RGB", "L", "CMYK"):
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def _as_gif(image: Image.Image) -> Image.Image:
    """A palette image for GIF; fully transparent pixels of an RGBA image become its one
    transparent colour."""
    if image.mode == "P":
        return image
    if image.mode in ("RGBA", "LA"):
        rgba = image.convert("RGBA")
        alpha = rgba.getchannel("A")
        paletted = rgba.convert("RGB").quantize(colors=255, method=Image.Quantize.MEDIANCUT)
        clear = alpha.point(lambda a: 255 if a < 128 else 0)
        if clear.getbbox() is not None:
            paletted.paste(255, mask=clear)
            paletted.info["transparency"] = 255
        return paletted
    return image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)


def resized(image: Image.Image, size: tuple[int, int], crop: bool) -> Image.Image:
    """``image`` at ``size``: scaled, or (``crop``) the centre part of the size's proportions
    scaled to it, as the reference crops thumbnails."""
    box = crop_box(image.width, image.height, size) if crop else None
    if box is not None and (box[2] - box[0], box[3] - box[1]) == size:
        return image.crop(box)
    return image.resize(size, Image.Resampling.BICUBIC, box=box, reducing_gap=3.0)


def render_size(image: Image.Image, fmt: str, size: tuple[int, int], crop: bool) -> bytes:
    """The encoded bytes of ``image`` at ``size`` (see :func:`resized`), as the reference's
    image editor saves a sub-size: EXIF stripped, colour profile kept, transparency kept."""
    source = prepare(image, fmt)
    return encode(resized(source, size, crop), fmt, icc_profile=image.info.get("icc_profile"))


# -- wp_read_image_metadata -----------------------------------------------------------------------


def _fraction(value: Any) -> float | int:
    """wp_exif_frac2dec of an EXIF rational: numerator / denominator, 0 when it is not one."""
    try:
        numerator, denominator = value.numerator, value.denominator
    except AttributeError:
        if isinstance(value, tuple) and len(value) == 2:
            numerator, denominator = value
        elif isinstance(value, (int, float)):
            return value
        else:
            try:
                return float(str(value))
            except ValueError:
                return 0
    if not denominator:
        return 0
    if numerator % denominator == 0:
        return int(numerator // denominator)
    return numerator / denominator


def _text(value: Any) -> str:
    """An EXIF/IPTC text as the reference keeps it: UTF-8 when it is, else read as Latin-1
    (seems_utf8 / utf8_encode)."""
    if isinstance(value, str):
        try:
            raw = value.encode("latin-1")
        except UnicodeEncodeError:
            return value
    elif isinstance(value, bytes):
        raw = value
    else:
        return str(value)
    raw = raw.split(b"\x00", 1)[0] if raw.endswith(b"\x00") else raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _ucs2(value: Any) -> str:
    """A Windows XP tag (XPAuthor, XPComment): UCS-2 little-endian bytes."""
    if isinstance(value, tuple):
        value = bytes(value)
    if isinstance(value, bytes):
        return value.decode("utf-16-le", "replace").rstrip("\x00")
    return str(value or "")


def _user_comment(value: Any) -> str:
    """EXIF UserComment: an 8-byte character code, then the text."""
    if not isinstance(value, bytes):
        return str(value or "")
    code, text = value[:8], value[8:]
    if code.startswith(b"UNICODE"):
        encoding = "utf-16-be" if text[:2] != b"\xff\xfe" and not (len(text) > 1 and text[1] == 0) else "utf-16-le"
        return text.decode(encoding, "replace").rstrip("\x00")
    return _text(text).rstrip("\x00")


def _exif_timestamp(value: Any) -> int | None:
    """wp_exif_date2ts: "Y:m:d H:i:s" as a Unix time (the reference runs in UTC)."""
    try:
        when = datetime.strptime(_text(value).strip()[:19], "%Y:%m:%d %H:%M:%S")
    except ValueError:
        return None
    return int(when.replace(tzinfo=UTC).timestamp())


def _iptc_timestamp(date: bytes, time: bytes) -> int | None:
    """IPTC 2:55 (CCYYMMDD) and 2:60 (HHMMSS with an optional +-HHMM offset) as a Unix time."""
    try:
        day = datetime.strptime(_text(date).strip()[:8], "%Y%m%d")
        clock = _text(time).strip()
        moment = day.replace(hour=int(clock[0:2]), minute=int(clock[2:4]), second=int(clock[4:6] or 0))
    except (ValueError, IndexError):
        return None
    offset = timedelta(0)
    if len(clock) >= 11 and clock[6] in "+-":
        offset = timedelta(hours=int(clock[7:9]), minutes=int(clock[9:11])) * (1 if clock[6] == "+" else -1)
    return int((moment.replace(tzinfo=UTC) - offset).timestamp())


def _iptc(image: Image.Image) -> dict[tuple[int, int], list[bytes]]:
    try:
        found = IptcImagePlugin.getiptcinfo(image) or {}
    except (SyntaxError, ValueError, OSError, IndexError, TypeError):
        return {}
    return {key: value if isinstance(value, list) else [value] for key, value in found.items()}


def read_image_meta(image: Image.Image) -> dict[str, Any]:
    """wp_read_image_metadata: the image's IPTC and EXIF fields the reference keeps, by its
    names and as it stores them (every value a string after wp_kses_post_deep, "0" or "" when
    missing; keywords a list). EXIF and IPTC are read from JPEG files only, as the reference."""
    meta: dict[str, Any] = {"aperture": 0, "credit": "", "camera": "", "caption": "", "created_timestamp": 0,
                            "copyright": "", "focal_length": 0, "iso": 0, "shutter_speed": 0, "title": "",
                            "orientation": 0, "keywords": [], "alt": ""}
    if image.format == "JPEG":
        _read_iptc(_iptc(image), meta)
        _read_exif(image, meta)
    result: dict[str, Any] = {}
    for key, value in meta.items():
        if key == "keywords":
            result[key] = [kses_post(_text(word)) for word in value]
        elif isinstance(value, str):
            result[key] = kses_post(value)
        else:
            result[key] = php_str(value) if value is not None else ""
    return result


def _first(iptc: dict[tuple[int, int], list[bytes]], dataset: int) -> str:
    values = iptc.get((2, dataset)) or []
    return _text(values[0]).strip() if values and values[0] else ""


def _read_iptc(iptc: dict[tuple[int, int], list[bytes]], meta: dict[str, Any]) -> None:
    if not iptc:
        return
    meta["title"] = _first(iptc, 105) or _first(iptc, 5)  # headline, else title
    caption = _first(iptc, 120)
    if caption:
        if not meta["title"] and len(caption.encode("utf-8")) < 80:
            meta["title"] = caption  # a short caption is taken for the title
        meta["caption"] = caption
    meta["credit"] = _first(iptc, 110) or _first(iptc, 80)  # credit, else creator
    if _first(iptc, 55) and _first(iptc, 60):
        created = _iptc_timestamp(iptc[(2, 55)][0], iptc[(2, 60)][0])
        meta["created_timestamp"] = created if created is not None else ""
    meta["copyright"] = _first(iptc, 116)
    if _first(iptc, 25):
        meta["keywords"] = list(iptc[(2, 25)])


def _read_exif(image: Image.Image, meta: dict[str, Any]) -> None:
    try:
        ifd0 = image.getexif()
        tags: dict[int, Any] = dict(ifd0)
        tags.update(ifd0.get_ifd(_EXIF_IFD))
    except Exception:  # noqa: BLE001 - a damaged EXIF block is no EXIF, as exif_read_data failing
        return
    description = _text(tags.get(0x010E) or "")
    comments = _ucs2(tags.get(0x9C9C)).strip()
    if description:
        if not meta["title"] and len(description.encode("utf-8")) < 80:
            meta["title"] = description.strip()  # the title kept in ImageDescription
        user_comment = _user_comment(tags.get(0x9286)).strip()
        if not meta["caption"] and user_comment:
            meta["caption"] = user_comment
        if not meta["caption"]:
            meta["caption"] = description.strip()
    elif not meta["caption"] and comments:
        meta["caption"] = comments
    if not meta["credit"]:
        meta["credit"] = _text(tags.get(0x013B) or "").strip() or _ucs2(tags.get(0x9C9D)).strip()
    if not meta["copyright"] and tags.get(0x8298):
        meta["copyright"] = _text(tags[0x8298]).strip()
    if tags.get(0x829D):
        meta["aperture"] = round(_fraction(tags[0x829D]), 2)
    if tags.get(0x0110):
        meta["camera"] = _text(tags[0x0110]).strip()
    if not meta["created_timestamp"] and tags.get(0x9004):
        created = _exif_timestamp(tags[0x9004])  # DateTimeDigitized, as the reference
        meta["created_timestamp"] = created if created is not None else ""
    if tags.get(0x920A):
        meta["focal_length"] = php_str(_fraction(tags[0x920A]))
    iso = tags.get(0x8827)
    if isinstance(iso, (tuple, list)):
        iso = iso[0] if iso else None
    if iso:
        meta["iso"] = str(iso).strip()
    if tags.get(0x829A):
        meta["shutter_speed"] = php_str(_fraction(tags[0x829A]))
    if tags.get(_ORIENTATION):
        meta["orientation"] = tags[_ORIENTATION]
