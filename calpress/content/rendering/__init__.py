"""Rendering of content fields the way the reference CMS renders them (cms-api.md 2.4, 2.6).

Clients compare ``title.rendered``, ``content.rendered`` and ``excerpt.rendered`` byte for byte with
what the reference produces, so this package reproduces the reference's text filters rather than
"doing something sensible". This module holds the entry points: the filter chains behind the three
rendered fields, :func:`render_title` (``the_title``), :func:`render_content` (``the_content``) and
:func:`render_excerpt` (``get_the_excerpt`` then ``the_excerpt``, including the generated 55-word
excerpt), and their cache. The filters they chain are one module each:

* :mod:`.blocks`: the block grammar (``<!-- wp:name {"json":"attrs"} -->...<!-- /wp:name -->``,
  void blocks, nested inner blocks, freeform HTML between blocks) and the rendering of a parsed
  block tree (``parse_blocks``, ``render_blocks``); :class:`RenderContext` and
  :func:`block_version` come from there too;
* :mod:`.shortcodes`: ``strip_shortcodes`` and ``shortcode_unautop`` for the core shortcode names;
* :mod:`.texturize`: ``wptexturize`` (curly quotes, apostrophes, primes, dashes, ellipsis,
  trademark, multiplication sign);
* :mod:`.autop`: ``wpautop`` (paragraphs and line breaks).

``convert_chars``, the "WordPress" spelling fix and ``wp_trim_words`` come from
:mod:`calpress.compat.formatting`; the HTML filtering applied on save (kses) is
:mod:`calpress.compat.kses`.

Every function is pure and thread-safe. Regular expressions are compiled once at import; each
filter has a fast path that returns its input untouched when the text holds none of the characters
the filter reacts to, because rendering runs for every item of every listing page.

Not reproduced (no data to do it with, or out of scope): smilies (``convert_smilies``), image tag
enhancement (``wp_filter_content_tags``: ``loading``/``decoding``/``srcset``), oEmbed auto-embeds,
expansion of shortcodes (core shortcode names are recognised, never run), the layout/style block supports that add ``is-layout-*`` and
``wp-container-*`` classes to group/columns/quote blocks, and ``force_balance_tags`` on a teaser cut
at ``<!--more-->``.
"""

from __future__ import annotations

import functools
import re

from ...compat.formatting import capital_p_dangit, convert_chars, trim_words
from ...compat.php import PHP_TRIM
from .autop import wpautop
from .blocks import (
    DYNAMIC_BLOCKS,
    RenderContext,
    block_version,
    excerpt_remove_blocks,
    excerpt_remove_footnotes,
    has_blocks,
    render_blocks,
)
from .shortcodes import shortcode_unautop, strip_shortcodes
from .texturize import wptexturize

# The entry points callers use as ``rendering.<name>``; RenderContext and block_version are
# defined in .blocks and deliberately re-exported here.
__all__ = [
    "RenderContext",
    "block_version",
    "clear_render_cache",
    "render_content",
    "render_excerpt",
    "render_title",
]


# =================================================================================================
# Field pipelines (cms-api.md 2.4 and 2.6)
# =================================================================================================


def render_title(raw: str) -> str:
    """``title.rendered``: the ``the_title`` filters (wptexturize, convert_chars, trim, then the
    "WordPress" spelling). No ``Protected:``/``Private:`` prefix, as in the REST API."""
    if not raw:
        return ""
    if len(raw) < 2_000:
        return _render_title_cached(raw)
    return _render_title(raw)


def _render_title(raw: str) -> str:
    text = convert_chars(wptexturize(raw)).strip(PHP_TRIM)
    return capital_p_dangit(text, title=True)


# A pure function of the text: listings show the same titles (events, their venues) again and again.
_render_title_cached = functools.lru_cache(maxsize=4096)(_render_title)


def _content_filters(text: str, *, autop: bool) -> str:
    # the_content, priority order: wptexturize (10), [convert_smilies (20): not reproduced],
    # wpautop (10, dropped by do_blocks when the content has blocks), shortcode_unautop (10),
    # capital_P_dangit (11), do_shortcode (11: nothing is expanded here).
    text = wptexturize(text)
    if autop:
        text = wpautop(text)
    text = shortcode_unautop(text)
    return capital_p_dangit(text)


def _render_content(raw: str, ctx: RenderContext | None) -> str:
    text = render_blocks(raw, ctx)
    return _content_filters(text, autop=not has_blocks(raw))


# Rendering is a pure function of the raw text as long as no dynamic block is registered, so
# listing pages that show the same items again hit this cache. Call clear_render_cache() after
# changing DYNAMIC_BLOCKS, BLOCK_RENDER_FILTERS (.blocks) or SHORTCODE_TAGS (.shortcodes) at run time.
_render_content_cached = functools.lru_cache(maxsize=512)(lambda raw: _render_content(raw, None))


def clear_render_cache() -> None:
    """Forget cached renderings (after changing a registry of this package)."""
    _render_content_cached.cache_clear()
    _render_excerpt_cached.cache_clear()
    _render_title_cached.cache_clear()


def _cacheable(text: str, ctx: RenderContext | None) -> bool:
    # The context only reaches dynamic blocks; with none registered the output depends on the
    # text alone, so it is cached whatever the context.
    return not DYNAMIC_BLOCKS and len(text) < 200_000


def render_content(raw: str, *, protected: bool = False, ctx: RenderContext | None = None) -> str:
    """``content.rendered``: blocks rendered, then texturized; paragraphs added only when the
    content has no blocks. ``""`` for a password-protected item whose password was not given."""
    if protected or not raw:
        return ""
    if _cacheable(raw, ctx):
        return _render_content_cached(raw)
    return _render_content(raw, ctx)


_MORE_RE = re.compile(r"<!--more(.*?)?-->")
_MORE_BLOCK_RE = re.compile(r"<!-- /?wp:more(.*?) -->")


def _teaser(content: str) -> str:
    """What ``get_the_content`` returns outside a single-post view: the first page (before
    ``<!--nextpage-->``), cut at ``<!--more-->`` without a "more" link."""
    if "<!--nextpage-->" in content:
        content = (
            content.replace("\n<!--nextpage-->\n", "<!--nextpage-->")
            .replace("\n<!--nextpage-->", "<!--nextpage-->")
            .replace("<!--nextpage-->\n", "<!--nextpage-->")
            .replace("<!-- wp:nextpage -->", "")
            .replace("<!-- /wp:nextpage -->", "")
        )
        if content.startswith("<!--nextpage-->"):
            content = content[15:]
        content = content.split("<!--nextpage-->", 1)[0]
    if "<!--more" in content:
        m = _MORE_RE.search(content)
        if m:
            if "<!-- wp:more " in content or "<!-- wp:core/more " in content:
                content = _MORE_BLOCK_RE.sub("", content)
            content = content.split(m.group(0), 1)[0]
    return content


def _generated_excerpt(content: str, length: int, ctx: RenderContext | None) -> str:
    # wp_trim_excerpt() with an empty excerpt: the teaser, with only excerpt-worthy blocks rendered
    # and footnote markers removed, through the_content (without do_blocks, so wpautop does run),
    # then cut to `length` words with " [&hellip;]".
    text = strip_shortcodes(_teaser(content))
    text = excerpt_remove_blocks(text, ctx)
    text = excerpt_remove_footnotes(text)
    text = _content_filters(text, autop=True)
    text = text.replace("]]>", "]]&gt;")
    return trim_words(text, length, " [&hellip;]")


def render_excerpt(
    raw_excerpt: str,
    content: str,
    *,
    length: int = 55,
    protected: bool = False,
    ctx: RenderContext | None = None,
) -> str:
    """``excerpt.rendered``: the explicit excerpt, or one generated from the content (first
    ``length`` words plus `` [&hellip;]`` when cut), through the ``the_excerpt`` filters
    (wptexturize, convert_chars, wpautop). ``""`` when protected and the password was not given."""
    if protected:
        return ""
    text = raw_excerpt or ""
    if not text.strip(PHP_TRIM):
        content = content or ""
        if _cacheable(content, ctx):
            return _render_excerpt_cached(content, length)
        text = _generated_excerpt(content, length, ctx)
    return _excerpt_filters(text)


def _excerpt_filters(text: str) -> str:
    # the_excerpt: wptexturize, [convert_smilies], convert_chars, wpautop, shortcode_unautop.
    return shortcode_unautop(wpautop(convert_chars(wptexturize(text))))


_render_excerpt_cached = functools.lru_cache(maxsize=512)(
    lambda content, length: _excerpt_filters(_generated_excerpt(content, length, None))
)
