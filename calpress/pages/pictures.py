"""Responsive ``<img>`` elements for the public pages, as WordPress writes them.

The image objects the pages get (:func:`calpress.media.attachments.image_objects`: ``url``,
``width``, ``height`` and the generated ``sizes``, each with its ``url``, ``width`` and
``height``) are enough to follow the reference:

* ``srcset`` (wp_calculate_image_srcset): the full-size file and every generated size of the same
  proportions as the file shown (wp_image_matches_ratio: within a pixel once scaled), none wider
  than 2,048 pixels (max_srcset_image_width) unless it is the one shown, the one shown first, one
  file per width, and no ``srcset`` at all when fewer than two files qualify;
* ``sizes`` (wp_calculate_image_sizes): ``(max-width: Wpx) 100vw, Wpx`` of the width shown, with
  ``auto, `` before it for a lazy image (wp_img_tag_add_auto_sizes, WordPress 6.7);
* ``width``/``height`` always, ``decoding="async"``;
* loading (wp_get_loading_optimization_attributes): the first three content images of a page are
  not lazy (wp_omit_loading_attr_threshold), later ones get ``loading="lazy"``; the first of those
  three whose area is at least 50,000 pixels (wp_min_priority_img_pixels) gets
  ``fetchpriority="high"``. A :class:`Loading` counts one page's images; header images (the logo)
  are neither counted nor lazy, as the reference treats the header template part.

Each place an image is shown is a *slot* naming the generated size it starts from (the size a
theme would ask wp_get_attachment_image for): ``card`` (the list, day, venue and organizer
views, shown about 300 pixels wide by site.css) takes ``medium``, ``featured`` (a single event,
post or page) takes ``large``; missing sizes fall back to the full size.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from markupsafe import Markup

from ..media import attachments
from ..media.images import constrain

__all__ = ["LAZY_THRESHOLD", "MAX_SRCSET_WIDTH", "PRIORITY_PIXELS", "SLOTS", "Loading", "Source", "choose", "content_image_ids", "content_images", "page_images", "img_tag",
           "matches_ratio", "sizes_value", "smallest", "sources", "srcset_value"]

MAX_SRCSET_WIDTH = 2048  # max_srcset_image_width
LAZY_THRESHOLD = 3  # wp_omit_loading_attr_threshold (3 since WordPress 6.3)
PRIORITY_PIXELS = 50_000  # wp_min_priority_img_pixels
# Slot -> the generated size it shows (the full size when the image has none of that name).
SLOTS = {"card": "medium", "featured": "large", "full": "full"}


@dataclass(frozen=True)
class Source:
    """One file of an image: its address and true pixel size."""

    url: str
    width: int
    height: int


def sources(image: Any) -> list[Source]:
    """The generated sizes of an image object, narrowest first, then its full-size file, as the
    reference walks them (the registered sizes' order is by width; PostgreSQL's JSON keeps no
    key order, so the width gives it)."""
    if not isinstance(image, dict) or not image.get("url"):
        return []
    found = sorted((Source(str(size["url"]), int(size["width"]), int(size["height"]))
                    for size in (image.get("sizes") or {}).values()
                    if isinstance(size, dict) and size.get("url") and size.get("width") and size.get("height")),
                   key=lambda source: (source.width, source.height))
    if image.get("width") and image.get("height"):
        found.append(Source(str(image["url"]), int(image["width"]), int(image["height"])))
    return found


def choose(image: Any, size_name: str) -> Source | None:
    """The file of ``size_name`` ("full", or a generated size; the full size when missing)."""
    if not isinstance(image, dict) or not image.get("url"):
        return None
    size = (image.get("sizes") or {}).get(size_name) if size_name != "full" else None
    if isinstance(size, dict) and size.get("url") and size.get("width") and size.get("height"):
        return Source(str(size["url"]), int(size["width"]), int(size["height"]))
    return Source(str(image["url"]), int(image.get("width") or 0), int(image.get("height") or 0))


def smallest(image: Any, width: int) -> Source | None:
    """The smallest file of ``image`` of the full size's proportions at least ``width`` wide
    (the full size when none is)."""
    full = choose(image, "full")
    if full is None or not full.width or not full.height:
        return full
    fitting = [s for s in sources(image) if s.width >= width and matches_ratio(full.width, full.height, s.width, s.height)]
    return min(fitting, key=lambda s: s.width) if fitting else full


def matches_ratio(width: int, height: int, other_width: int, other_height: int) -> bool:
    """wp_image_matches_ratio: the larger scaled down to the smaller's width is within a pixel of it."""
    if width > other_width:
        scaled = constrain(width, height, other_width)
        expected = (other_width, other_height)
    else:
        scaled = constrain(other_width, other_height, width)
        expected = (width, height)
    return abs(scaled[0] - expected[0]) <= 1 and abs(scaled[1] - expected[1]) <= 1


def srcset_value(image: Any, shown: Source) -> str:
    """The ``srcset`` of ``shown`` (a file of ``image``), "" when fewer than two files qualify."""
    if shown.width < 1 or shown.height < 1:
        return ""
    picked: dict[int, Source] = {}
    matched = False
    for source in sources(image):
        is_shown = source.url == shown.url
        matched = matched or is_shown
        if source.width > MAX_SRCSET_WIDTH and not is_shown:
            continue
        if not matches_ratio(shown.width, shown.height, source.width, source.height):
            continue
        if is_shown:  # first, as the reference puts it (an iOS 8 bug)
            picked = {source.width: source, **{w: s for w, s in picked.items() if w != source.width}}
        else:
            picked[source.width] = source
    if not matched or len(picked) < 2:
        return ""
    return ", ".join(f"{s.url.replace(' ', '%20')} {s.width}w" for s in picked.values())


def sizes_value(width: int, *, lazy: bool = False) -> str:
    found = f"(max-width: {width}px) 100vw, {width}px"
    return "auto, " + found if lazy else found


class Loading:
    """The loading decisions of one page's content images, in the order they are written."""

    def __init__(self, threshold: int = LAZY_THRESHOLD) -> None:
        self.threshold = threshold
        self.count = 0
        self.priority_given = False
        self.reserved: dict[tuple[int, str], dict[str, str]] = {}

    def attributes(self, width: int, height: int) -> dict[str, str]:
        self.count += 1
        if self.count > self.threshold:
            return {"loading": "lazy"}
        if not self.priority_given and width * height >= PRIORITY_PIXELS:
            self.priority_given = True
            return {"fetchpriority": "high"}
        return {}

    def reserve(self, image: Any, slot: str) -> None:
        """Decide now for ``image`` in ``slot``, which the template writes later but before what
        is decided next (a featured image above the content whose images are filtered first)."""
        shown = choose(image, SLOTS.get(slot, slot))
        if shown is not None and shown.width and shown.height:
            self.reserved[(id(image), slot)] = self.attributes(shown.width, shown.height)

    def decide(self, image: Any, slot: str, width: int, height: int) -> dict[str, str]:
        found = self.reserved.pop((id(image), slot), None)
        return found if found is not None else self.attributes(width, height)

    def tag(self, image: Any, slot: str = "card", css_class: str = "", alt: str = "") -> Markup:
        """The ``<img>`` of ``image`` in ``slot`` (see :data:`SLOTS`), counted on this page."""
        return img_tag(image, slot, css_class=css_class, alt=alt, loading=self)


def img_tag(image: Any, slot: str = "card", *, css_class: str = "", alt: str = "", loading: Loading | None = None,
            display: tuple[int, int] | None = None) -> Markup:
    """An image object as a responsive ``<img>`` ("" for no image). ``loading``: the page's
    counter (None: a header image, never lazy). ``display``: the width and height to write when
    the image is shown at a fixed size (the logo): ``src`` is then the smallest file of the same
    proportions at least twice that wide (a sharp screen's), ``sizes`` that width."""
    shown = choose(image, SLOTS.get(slot, slot)) if display is None else smallest(image, display[0] * 2)
    if shown is None:
        return Markup("")
    width, height = display or (shown.width, shown.height)
    extra = loading.decide(image, slot, width, height) if loading is not None and width and height else {}
    lazy = extra.get("loading") == "lazy"
    srcset = srcset_value(image, shown)
    attrs: list[tuple[str, str]] = []
    if width and height:
        attrs += [("width", str(width)), ("height", str(height))]
    attrs += [("src", shown.url)]
    if css_class:
        attrs.append(("class", css_class))
    attrs.append(("alt", alt))
    attrs.append(("decoding", "async"))
    attrs += list(extra.items())
    if srcset:
        attrs.append(("srcset", srcset))
        attrs.append(("sizes", sizes_value(width, lazy=lazy) if not display else f"{width}px"))
    return Markup("<img " + " ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in attrs) + ">")


# -- images inside content (wp_filter_content_tags) ------------------------------------------------

_IMG = re.compile(r"<img\s[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_WP_IMAGE = re.compile(r"(?:^|\s)wp-image-(\d+)(?:\s|$)")


def _attributes(tag: str) -> dict[str, str]:
    body = tag[4:-1].rstrip("/")
    return {m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or m.group(4) or "") for m in _ATTRIBUTE.finditer(body)}


def content_image_ids(fragment: str) -> set[int]:
    """The attachment ids of the ``wp-image-<id>`` images of rendered content."""
    found = set()
    for tag in _IMG.findall(fragment):
        match = _WP_IMAGE.search(_attributes(tag).get("class", ""))
        if match:
            found.add(int(match.group(1)))
    return found


def _file_of(image: Any, src: str) -> Source | None:
    """The file of ``image`` that ``src`` names (wp_image_file_matches_image_meta, which compares
    the path under the uploads folder): here the last three segments of the path (``2026/11/x.jpg``),
    so an address of the site's old host or a relative one still matches."""
    wanted = _tail(urlsplit(src.split("?", 1)[0]).path)
    if not wanted:
        return None
    return next((source for source in sources(image) if _tail(urlsplit(source.url).path) == wanted), None)


def _tail(path: str) -> str:
    return "/".join(path.rstrip("/").split("/")[-3:]) if path.strip("/") else ""


def content_images(fragment: str, images: dict[int, Any], loading: Loading) -> str:
    """Rendered content with its images as wp_filter_content_tags leaves them: a ``wp-image-<id>``
    image of a known attachment gets ``width``/``height`` when it has neither, and ``srcset`` and
    ``sizes`` when it has none; every image ``decoding="async"``; those with both dimensions the
    page's loading decision (unless they carry their own ``loading`` or ``fetchpriority``), lazy
    ones ``sizes="auto, ..."``."""

    def filtered(found: re.Match[str]) -> str:
        tag = found.group(0)
        attrs = _attributes(tag)
        added: list[tuple[str, str]] = []
        match = _WP_IMAGE.search(attrs.get("class", ""))
        image = images.get(int(match.group(1))) if match else None
        file = _file_of(image, attrs.get("src", "")) if image else None
        width, height = _number(attrs.get("width")), _number(attrs.get("height"))
        if file is not None and "width" not in attrs and "height" not in attrs:
            width, height = file.width, file.height
            added += [("width", str(width)), ("height", str(height))]
        srcset = ""
        if file is not None and width and height and "srcset" not in attrs and "sizes" not in attrs:
            srcset = srcset_value(image, Source(file.url, width, height))
        if "decoding" not in attrs:
            added.append(("decoding", "async"))
        lazy = attrs.get("loading") == "lazy"
        if width and height and "loading" not in attrs and "fetchpriority" not in attrs:
            decided = loading.attributes(width, height)
            lazy = decided.get("loading") == "lazy"
            added += list(decided.items())
        if srcset:
            added += [("srcset", srcset), ("sizes", sizes_value(width, lazy=lazy))]
        if not added:
            return tag
        written = " ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in added)
        return tag[:4] + " " + written + tag[4:]

    return _IMG.sub(filtered, fragment)


def _number(value: str | None) -> int:
    try:
        return int(str(value or "").strip())
    except ValueError:
        return 0


def page_images(site: Any, home: str, content: str, featured: Any = None) -> tuple[str, Loading]:
    """A single item's page: its rendered ``content`` with the images filtered (one statement
    when it holds ``wp-image-<id>`` images), and the page's :class:`Loading` to render it with,
    the ``featured`` image (shown above the content) decided first."""
    loading = Loading()
    if featured:
        loading.reserve(featured, "featured")
    if "<img" not in content:
        return content, loading
    wanted = content_image_ids(content)
    found: dict[int, Any] = {}
    if wanted:
        with site.read() as conn:
            found = attachments.image_objects(conn, home, wanted, storage=getattr(site, "storage", None))
    return content_images(content, found, loading), loading
