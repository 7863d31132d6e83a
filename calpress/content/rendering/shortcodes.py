"""Shortcodes, by name only: ``strip_shortcodes`` and ``shortcode_unautop`` as the reference runs
them for its core shortcodes. Nothing is expanded (``do_shortcode`` has nothing to run here)."""

from __future__ import annotations

import re

from .autop import HTML_SPLIT_RE

__all__ = ["SHORTCODE_TAGS", "found_shortcodes", "shortcode_unautop", "strip_shortcodes"]

#: Shortcodes the reference registers in core. They are never expanded here (``do_shortcode`` has
#: nothing to run), but their names still matter to the text filters: wptexturize leaves a
#: shortcode tag alone, shortcode_unautop unwraps one standing alone in a paragraph, and a generated
#: excerpt drops them.
SHORTCODE_TAGS: tuple[str, ...] = ("wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed")

_SHORTCODE_NAME_RE = re.compile(r"\[/?([^<>&/\[\]\x00-\x20=]+)")
_SHORTCODE_OPEN_NAME_RE = re.compile(r"\[([^<>&/\[\]\x00-\x20=]+)")


def found_shortcodes(text: str, pattern: re.Pattern[str] = _SHORTCODE_NAME_RE) -> tuple[str, ...]:
    """Registered shortcode names that appear after a ``[`` in the text (registration order)."""
    if "[" not in text:
        return ()
    names = set(pattern.findall(text))
    return tuple(t for t in SHORTCODE_TAGS if t in names)


def _shortcode_regex(tagnames: tuple[str, ...]) -> str:
    """``get_shortcode_regex``: groups 1 "[" escape, 2 name, 3 attributes, 4 self-closing "/",
    5 enclosed content, 6 "]" escape."""
    names = "|".join(re.escape(t) for t in tagnames)
    return (
        r"\[(\[?)(" + names + r")(?![\w-])([^\]/]*(?:/(?!\])[^\]/]*)*?)"
        r"(?:(/)\]|\](?:([^\[]*+(?:\[(?!/\2\])[^\[]*+)*+)\[/\2\])?)(\]?)"
    )


_SHORTCODE_RE_CACHE: dict[tuple[str, ...], re.Pattern[str]] = {}


def _strip_shortcode_tag(m: re.Match[str]) -> str:
    if m.group(1) == "[" and m.group(6) == "]":  # [[tag]] is an escaped, literal [tag]
        return m.group(0)[1:-1]
    return m.group(1) + m.group(6)


def strip_shortcodes(text: str) -> str:
    """Remove registered shortcodes (with their enclosed content); ``[[tag]]`` becomes ``[tag]``."""
    tags = found_shortcodes(text, _SHORTCODE_OPEN_NAME_RE)
    if not tags:
        return text
    pattern = _SHORTCODE_RE_CACHE.get(tags)
    if pattern is None:
        pattern = _SHORTCODE_RE_CACHE.setdefault(tags, re.compile(_shortcode_regex(tags), re.A))
    if "<" in text:
        # Brackets inside tags and comments are protected (encoded) while stripping...
        parts = HTML_SPLIT_RE.split(text)
        for i in range(1, len(parts), 2):
            if "[" in parts[i] or "]" in parts[i]:
                parts[i] = parts[i].replace("[", "&#91;").replace("]", "&#93;")
        text = "".join(parts)
    text = pattern.sub(_strip_shortcode_tag, text)
    # ...and decoded afterwards, together with any &#91;/&#93; the author wrote (as the reference).
    return text.replace("&#91;", "[").replace("&#93;", "]")


_UNAUTOP_RE = re.compile(
    r"<p>(?:" + r"[\r\n\t ]|\xa0|&nbsp;" + r")*+"
    r"(\[(" + "|".join(re.escape(t) for t in SHORTCODE_TAGS) + r")(?![\w-])[^\]/]*(?:/(?!\])[^\]/]*)*?"
    r"(?:/\]|\](?:[^\[]*+(?:\[(?!/\2\])[^\[]*+)*+\[/\2\])?))"
    r"(?:" + r"[\r\n\t ]|\xa0|&nbsp;" + r")*+</p>",
    re.A,
)


def shortcode_unautop(text: str) -> str:
    """Unwrap a registered shortcode that stands alone in a ``<p>``."""
    if "[" not in text:
        return text
    return _UNAUTOP_RE.sub(r"\1", text)
