"""What a page tells search engines and the sites its link is shared on: ``<link rel="canonical">``,
``<meta name="description">``, Open Graph (``og:*``) and the Twitter card.

WordPress core writes only the canonical link, and only on single items (rel_canonical with
wp_get_canonical_url: the permalink, with the page number of a paged item); the description and
the sharing tags come from SEO plugins or Jetpack. These follow what those write:

* the canonical address: a single item's permalink (its ``N/`` page past the first), and, beyond
  core, an archive's or a calendar view's own address (the current page), so that a shared view
  link with tracking arguments still names one address; none on search results and error pages;
* the description: an event's dates, then its venue, then its excerpt (what a preview of an
  event link must show first); an item's excerpt; else the site's tagline. Plain text, at most
  :data:`DESCRIPTION_LENGTH` characters, cut at a word;
* ``og:type`` ``article`` for a single item, ``website`` for everything else; ``og:image`` the
  ``large`` size (else the full file) of the featured image, with its true width and height;
  ``twitter:card`` ``summary_large_image`` when there is an image, else ``summary``.

:func:`head_tags` returns (element, attributes) pairs; the layout writes each with the
template's escaping, so any text (a title with quotes or ``<``) stays an attribute value.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from ..compat.formatting import strip_all_tags
from ..content import rendering
from ..content.items import Context, Item
from .pictures import choose

__all__ = ["DESCRIPTION_LENGTH", "Share", "describe", "event_share", "head_tags", "item_share", "og_locale", "paged_url"]

DESCRIPTION_LENGTH = 160
HeadTag = tuple[str, list[tuple[str, str]]]


@dataclass
class Share:
    """What one page shares: its canonical address ("" for none), description (HTML or text),
    Open Graph type, title (the page's when empty) and image object (or None)."""

    url: str = ""
    description: str = ""
    kind: str = "website"
    title: str = ""
    image: Any = None


def plain(fragment: str) -> str:
    """Rendered HTML as one line of plain text."""
    return re.sub(r"\s+", " ", html.unescape(strip_all_tags(fragment or ""))).strip()


def describe(*parts: str, limit: int = DESCRIPTION_LENGTH) -> str:
    """The non-empty ``parts`` (HTML or text) as one plain sentence, cut at a word under ``limit``."""
    text = " \u2013 ".join(p for p in (plain(part) for part in parts) if p)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,.;:\u2013-") + "\u2026"


def paged_url(url: str, page: int) -> str:
    """wp_get_canonical_url of a paged item: its ``N/`` page (``&page=N`` on a plain permalink)."""
    if page < 2:
        return url
    if "?" in url:
        return f"{url}&page={page}"
    return f"{url.rstrip('/')}/{page}/"


def og_locale(options: Any) -> str:
    """The site language as Open Graph writes it (``en_US``)."""
    found = str(options.get("WPLANG") or "").replace("-", "_")
    return found or "en_US"


def head_tags(options: Any, share: Share | None, page_title: str) -> list[HeadTag]:
    """The head's canonical link, description and sharing tags of a page."""
    share = share or Share()
    site_name = html.unescape(str(options.get("blogname") or ""))
    description = describe(share.description) or describe(str(options.get("blogdescription") or ""))
    title = plain(share.title or page_title) or site_name
    tags: list[HeadTag] = []
    if share.url:
        tags.append(("link", [("rel", "canonical"), ("href", share.url)]))
    if description:
        tags.append(("meta", [("name", "description"), ("content", description)]))
    og = [("og:type", "article" if share.kind == "article" else "website"), ("og:title", title)]
    if description:
        og.append(("og:description", description))
    if share.url:
        og.append(("og:url", share.url))
    if site_name:
        og.append(("og:site_name", site_name))
    og.append(("og:locale", og_locale(options)))
    picture = choose(share.image, "large") if share.image else None
    if picture is not None:
        og.append(("og:image", picture.url))
        if picture.width and picture.height:
            og += [("og:image:width", str(picture.width)), ("og:image:height", str(picture.height))]
    tags += [("meta", [("property", name), ("content", value)]) for name, value in og]
    tags.append(("meta", [("name", "twitter:card"), ("content", "summary_large_image" if picture else "summary")]))
    return tags


def event_share(card: Any, content: str, locked: bool) -> Share:
    """An event's page: its dates and venue first, then its excerpt (none when it is locked)."""
    venue = ""
    if card.venue is not None:
        venue = ", ".join(p for p in (plain(card.venue.name), card.venue.address) if p)
    words = "" if locked else (card.excerpt or content)
    return Share(card.url, describe(card.schedule, venue, words), "article", card.title, card.image)


def item_share(ctx: Context, item: Item, url: str, page: int, locked: bool, image: Any) -> Share:
    """A post's, page's or attachment's page: its excerpt, featured image, and page of a paged item."""
    words = "" if locked or item.password else rendering.render_excerpt(item.excerpt, item.content)
    title = rendering.render_title(item.title)
    return Share(paged_url(url, page), words, "article", title, None if locked else image)
