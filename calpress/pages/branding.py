"""A site's own look on the public pages: its logo, its icon and its extra CSS.

* the logo (the ``site_logo`` option, an image attachment, as WordPress's custom logo) is shown
  in the header beside the site title, :data:`LOGO_HEIGHT` pixels high, its ``srcset`` from its
  generated sizes so a phone or a sharp screen takes the file it needs (get_custom_logo writes
  ``<a class="custom-logo-link" rel="home"><img class="custom-logo">``; its alt text is the
  site title when the image has none, as since WordPress 5.5);
* the icon (``site_icon``) gives the favicon and touch icons WordPress's wp_site_icon writes:
  ``<link rel="icon" sizes="32x32">``, ``192x192``, ``apple-touch-icon`` (180) and
  ``msapplication-TileImage`` (270), from the square copies :mod:`calpress.media.icons` cuts;
  without one, the empty ``data:`` icon that stops browsers asking for /favicon.ico;
* the extra CSS (the :data:`CSS_OPTION` option, WordPress's Customizer "Additional CSS") in a
  ``<style id="wp-custom-css">`` after the site's stylesheet, as wp_custom_css_cb prints it. The
  pages' Content-Security-Policy already allows inline styles (``style-src 'unsafe-inline'``: post
  content carries style attributes), so it needs no change. Markup is refused when the CSS is
  saved (:func:`check_css`, the reference's "Markup is not allowed in CSS."), and every ``<`` is
  written as the CSS escape ``\\3c `` (:func:`safe_css`), so nothing stored by other means (the
  REST settings, an import) can end the style element.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..content.items import Context
from ..media import attachments
from ..media.icons import icon_url
from .pictures import choose, img_tag

__all__ = ["CSS_OPTION", "LOGO_HEIGHT", "Brand", "brand", "check_css", "safe_css"]

CSS_OPTION = "calpress_custom_css"
CSS_MAX_LENGTH = 100_000
LOGO_HEIGHT = 48  # site.css's .custom-logo height
_MARKUP = re.compile(r"</?\w")


@dataclass
class Brand:
    """What the layout shows of the site's identity: the logo (an ``<img>``, or ""), the icon
    tags of the head ((element, attributes) pairs) and the extra CSS (safe inside ``<style>``)."""

    logo: Markup = Markup("")
    icons: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    css: Markup = Markup("")


def check_css(css: str) -> str | None:
    """Why ``css`` cannot be saved, or None (WP_Customize_Custom_CSS_Setting::validate)."""
    if _MARKUP.search(css):
        return "Markup is not allowed in CSS."
    if len(css) > CSS_MAX_LENGTH:
        return f"The CSS is longer than {CSS_MAX_LENGTH:,} characters."
    return None


def safe_css(css: str) -> Markup:
    """``css`` as the text of a ``<style>`` element: ``<`` escaped the CSS way, so no ``</style>``."""
    return Markup(css.replace("<", "\\3c ").strip())


def _attachment(options: Any, name: str) -> int:
    try:
        return max(int(options.get(name) or 0), 0)
    except (TypeError, ValueError):
        return 0


def brand(site: Any, ctx: Context) -> Brand:
    """The brand of the site for a page (one statement when a logo or an icon is set, else none)."""
    options = ctx.options
    logo_id, icon_id = _attachment(options, "site_logo"), _attachment(options, "site_icon")
    found = Brand(css=safe_css(str(options.get(CSS_OPTION) or "")))
    images: dict[int, Any] = {}
    if logo_id or icon_id:
        with site.read() as conn:
            images = attachments.image_objects(conn, ctx.home, [logo_id, icon_id], storage=getattr(site, "storage", None))
    logo = images.get(logo_id) if logo_id else None
    if logo:
        shown = choose(logo, "full")
        if shown is not None and shown.width and shown.height:
            height = min(LOGO_HEIGHT, shown.height)
            width = max(1, round(shown.width * height / shown.height))
            alt = html.unescape(str(options.get("blogname") or ""))
            found.logo = img_tag(logo, css_class="custom-logo", alt=alt, display=(width, height))
    icon = images.get(icon_id) if icon_id else None
    if icon:
        found.icons = [
            ("link", [("rel", "icon"), ("href", icon_url(icon, 32)), ("sizes", "32x32")]),
            ("link", [("rel", "icon"), ("href", icon_url(icon, 192)), ("sizes", "192x192")]),
            ("link", [("rel", "apple-touch-icon"), ("href", icon_url(icon, 180))]),
            ("meta", [("name", "msapplication-TileImage"), ("content", icon_url(icon, 270))]),
        ]
    else:
        found.icons = [("link", [("rel", "icon"), ("href", "data:,")])]
    return found
