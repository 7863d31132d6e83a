"""Rendering of content fields the way the reference CMS renders them (cms-api.md 2.4, 2.6).

Clients compare ``title.rendered``, ``content.rendered`` and ``excerpt.rendered`` byte for byte with
what the reference produces, so this module reproduces the reference's text filters rather than
"doing something sensible":

* the block grammar (``<!-- wp:name {"json":"attrs"} -->...<!-- /wp:name -->``, void blocks, nested
  inner blocks, freeform HTML between blocks) and the rendering of a parsed block tree
  (:func:`parse_blocks`, :func:`render_blocks`);
* ``wptexturize`` (curly quotes, apostrophes, primes, dashes, ellipsis, trademark, multiplication
  sign), ``wpautop`` (paragraphs and line breaks), ``convert_chars`` and the "WordPress" spelling
  fix;
* the filter chains behind the three rendered fields: :func:`render_title` (``the_title``),
  :func:`render_content` (``the_content``) and :func:`render_excerpt` (``get_the_excerpt`` then
  ``the_excerpt``), including the generated 55-word excerpt;
* :func:`kses_post` / :func:`kses_title`, the HTML filtering applied on save for users without
  ``unfiltered_html``.

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
import html as _html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import nh3

__all__ = [
    "Block",
    "RenderContext",
    "DYNAMIC_BLOCKS",
    "BLOCK_RENDER_FILTERS",
    "parse_blocks",
    "has_blocks",
    "block_version",
    "render_block",
    "render_blocks",
    "excerpt_remove_blocks",
    "wptexturize",
    "wpautop",
    "convert_chars",
    "capital_p_dangit",
    "SHORTCODE_TAGS",
    "strip_shortcodes",
    "shortcode_unautop",
    "strip_all_tags",
    "trim_words",
    "render_title",
    "render_content",
    "render_excerpt",
    "clear_render_cache",
    "kses_post",
    "kses_title",
]

# PHP's trim() default character list (note: no form feed, unlike str.strip()).
_PHP_TRIM = " \t\n\r\0\x0b"


def _php_empty(s: str | None) -> bool:
    """PHP ``empty()`` on a string: ``""`` and ``"0"`` are both empty."""
    return not s or s == "0"


# =================================================================================================
# Block grammar
# =================================================================================================


@dataclass(slots=True)
class Block:
    """One parsed block, shaped like the reference parser's output.

    ``name`` is ``None`` for freeform HTML. ``attrs`` is ``None`` when the delimiter carried JSON
    that does not decode (the reference keeps the block and sets its attributes to null).
    ``inner_content`` interleaves HTML strings with ``None`` markers, one per inner block.
    """

    name: str | None
    attrs: dict[str, Any] | None = field(default_factory=dict)
    inner_blocks: list[Block] = field(default_factory=list)
    inner_html: str = ""
    inner_content: list[str | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The reference's array shape (``blockName``, ``attrs``, ``innerBlocks``, ...)."""
        return {
            "blockName": self.name,
            "attrs": self.attrs,
            "innerBlocks": [b.to_dict() for b in self.inner_blocks],
            "innerHTML": self.inner_html,
            "innerContent": list(self.inner_content),
        }


# The delimiter tokenizer. Same grammar as the reference: an opener and a closer differ only by the
# leading "/", a void block ends in "/-->", the namespace defaults to "core/", names are lower case,
# and the attribute JSON must be followed by whitespace. The attribute part is written so that it
# cannot backtrack catastrophically on unterminated comments (possessive loop).
_BLOCK_TOKEN_RE = re.compile(
    r"<!--\s+(?P<closer>/)?wp:(?P<namespace>[a-z][a-z0-9_-]*/)?(?P<name>[a-z][a-z0-9_-]*)\s+"
    r"(?P<attrs>\{(?:(?:[^}]+|\}+(?=\})|(?!\}\s+/?-->).)*+)?\}\s+)?(?P<void>/)?-->",
    re.S | re.A,
)


def _reject_constant(name: str) -> Any:
    # PHP's json_decode() refuses NaN/Infinity; Python's json would accept them.
    raise ValueError(name)


def _decode_attrs(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class _Frame:
    __slots__ = ("block", "token_start", "token_length", "prev_offset", "leading_html_start")

    def __init__(self, block: Block, token_start: int, token_length: int, prev_offset: int, leading: int | None):
        self.block = block
        self.token_start = token_start
        self.token_length = token_length
        self.prev_offset = prev_offset
        self.leading_html_start = leading


def _freeform(html: str) -> Block:
    return Block(None, {}, [], html, [html])


def parse_blocks(content: str) -> list[Block]:
    """Parse a post's content into blocks, exactly as the reference's default block parser does.

    Like the reference, the parser never fails: a closer without an opener ends the parse and the
    rest of the document becomes freeform HTML; openers left unclosed at the end of the document are
    closed implicitly (the innermost first, each emitted at the top level). A closer closes the
    innermost open block whatever its name.
    """
    if not content:
        return []
    if "wp:" not in content:  # fast path: no delimiter can match
        return [_freeform(content)]

    doc = content
    output: list[Block] = []
    stack: list[_Frame] = []
    offset = 0

    def add_inner_block(block: Block, token_start: int, token_length: int, last_offset: int | None = None) -> None:
        parent = stack[-1]
        parent.block.inner_blocks.append(block)
        html = doc[parent.prev_offset : token_start]
        if not _php_empty(html):  # quirk: a chunk that is exactly "0" is dropped (PHP empty())
            parent.block.inner_html += html
            parent.block.inner_content.append(html)
        parent.block.inner_content.append(None)
        parent.prev_offset = last_offset if last_offset else token_start + token_length

    def add_block_from_stack(end_offset: int | None = None) -> None:
        top = stack.pop()
        html = doc[top.prev_offset :] if end_offset is None else doc[top.prev_offset : end_offset]
        if not _php_empty(html):
            top.block.inner_html += html
            top.block.inner_content.append(html)
        if top.leading_html_start is not None:
            output.append(_freeform(doc[top.leading_html_start : top.token_start]))
        output.append(top.block)

    def add_freeform() -> None:
        if len(doc) - offset:
            output.append(_freeform(doc[offset:]))

    while True:
        m = _BLOCK_TOKEN_RE.search(doc, offset)
        depth = len(stack)
        if m is None:
            if depth == 0:
                add_freeform()
            elif depth == 1:
                add_block_from_stack()
            else:
                while stack:
                    add_block_from_stack()
            return output

        start, end = m.span()
        length = end - start
        leading = offset if start > offset else None
        namespace = m.group("namespace") or "core/"
        name = namespace + m.group("name")
        raw_attrs = m.group("attrs")
        is_closer = m.group("closer") is not None
        is_void = m.group("void") is not None

        if is_void:
            attrs = _decode_attrs(raw_attrs) if raw_attrs is not None else {}
            block = Block(name, attrs, [], "", [])
            if depth == 0:
                if leading is not None:
                    output.append(_freeform(doc[leading:start]))
                output.append(block)
            else:
                add_inner_block(block, start, length)
            offset = end
        elif is_closer:
            if depth == 0:
                # A closer with no opener: the reference gives up and emits the rest as freeform.
                add_freeform()
                return output
            if depth == 1:
                add_block_from_stack(start)
            else:
                top = stack.pop()
                html = doc[top.prev_offset : start]
                # Quirk kept: here the chunk is appended even when empty.
                top.block.inner_html += html
                top.block.inner_content.append(html)
                top.prev_offset = end
                add_inner_block(top.block, top.token_start, top.token_length, end)
            offset = end
        else:
            attrs = _decode_attrs(raw_attrs) if raw_attrs is not None else {}
            stack.append(_Frame(Block(name, attrs, [], "", []), start, length, end, leading))
            offset = end


def has_blocks(content: str | None) -> bool:
    """True when the content holds the literal ``<!-- wp:`` (the reference's test, not a parse)."""
    return bool(content) and "<!-- wp:" in content  # type: ignore[operator]


def block_version(content: str | None) -> int:
    """1 when the content contains blocks, else 0 (``content.block_version`` in edit context)."""
    return 1 if has_blocks(content) else 0


# =================================================================================================
# Block rendering
# =================================================================================================


@dataclass(slots=True)
class RenderContext:
    """What a dynamic block may need while rendering.

    ``content`` is the rendered inner HTML of the block being rendered (the reference passes it to
    a block's render callback as its second argument); the renderer fills it in per call.
    """

    post_id: int | None = None
    post_type: str | None = None
    content: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


#: Server-rendered ("dynamic") blocks: block name -> callback(block, context) returning HTML.
#: Empty by default; a block without a callback renders as its inner HTML, delimiters removed.
DYNAMIC_BLOCKS: dict[str, Callable[[Block, RenderContext], str]] = {}

_FIRST_TAG_RE = re.compile(
    r"<!--.*?(?:-->|\Z)"  # comments are skipped
    r"|<[!?][^>]*>?"  # doctype / processing instructions / bogus comments
    r"|<(/?)([A-Za-z][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>?",
    re.S,
)
_RAW_TEXT_TAGS = frozenset({"script", "style", "textarea", "title", "iframe", "noembed", "noframes", "xmp", "plaintext"})
_ATTR_RE = re.compile(r"([^\s/>\"'=][^\s/>\"'=]*)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]*)))?")
_CLASS_WS_RE = re.compile(r"[ \t\f\r\n]+")


def _escape_attr(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#039;")


def _add_class_to_first_tag(html: str, tag_names: frozenset[str], cls: str) -> str:
    """Add ``cls`` to the first opening tag named in ``tag_names``, as the reference's HTML tag
    processor does: a new ``class`` attribute goes right after the tag name; an existing one keeps
    its classes (duplicates dropped) and gets the new class appended, re-quoted with ``"``."""
    if not html:  # the reference returns falsy content untouched
        return html
    pos = 0
    while True:
        m = _FIRST_TAG_RE.search(html, pos)
        if m is None:
            return html
        pos = m.end()
        name = m.group(2)
        if name is None or m.group(1):
            continue
        lname = name.lower()
        if lname in tag_names:
            break
        if lname in _RAW_TEXT_TAGS:
            close = html.lower().find("</" + lname, pos)
            if close < 0:
                return html
            pos = close
    attrs = m.group(3)
    attrs_start = m.start(3)
    for am in _ATTR_RE.finditer(attrs):
        if am.group(1).lower() != "class":
            continue
        raw = am.group(2) if am.group(2) is not None else am.group(3) if am.group(3) is not None else am.group(4)
        existing = _html.unescape(raw) if raw else ""
        seen: list[str] = []
        out = ""
        modified = False
        at = 0
        for cm in re.finditer(r"[^ \t\f\r\n]+", existing):
            ws = existing[at : cm.start()]
            at = cm.end()
            c = cm.group(0)
            if c in seen:
                modified = True
                continue
            seen.append(c)
            if out:
                out += ws
            out += c
        if cls not in seen:
            modified = True
            out = out + " " + cls if out else cls
        if not modified:
            return html
        a, b = attrs_start + am.start(), attrs_start + am.end()
        return html[:a] + 'class="' + _escape_attr(out) + '"' + html[b:]
    insert_at = m.start(2) + len(name)
    return html[:insert_at] + ' class="' + cls + '"' + html[insert_at:]


_P_TAG = frozenset({"p"})
_H_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _paragraph_class(html: str, block: Block) -> str:
    # Reference 7.0: render_block_core/paragraph adds "wp-block-paragraph" to the first <p>.
    return _add_class_to_first_tag(html, _P_TAG, "wp-block-paragraph")


def _heading_class(html: str, block: Block) -> str:
    # Reference: core/heading's render callback adds "wp-block-heading" to the first <h1>-<h6>.
    return _add_class_to_first_tag(html, _H_TAGS, "wp-block-heading")


#: Per-block-name HTML filters applied after a block is rendered (the reference's
#: ``render_block_{name}`` filters and the core blocks whose server callback only adds a class).
BLOCK_RENDER_FILTERS: dict[str, Callable[[str, Block], str]] = {
    "core/paragraph": _paragraph_class,
    "core/heading": _heading_class,
}

_DEFAULT_CONTEXT = RenderContext()


def render_block(block: Block, ctx: RenderContext | None = None) -> str:
    """Render one parsed block: its inner content with inner blocks rendered in place, then its
    dynamic callback (if registered) and its render filters."""
    ctx = ctx or _DEFAULT_CONTEXT
    if block.inner_blocks:
        parts: list[str] = []
        index = 0
        for chunk in block.inner_content:
            if chunk is None:
                parts.append(render_block(block.inner_blocks[index], ctx))
                index += 1
            else:
                parts.append(chunk)
        html = "".join(parts)
    else:
        ic = block.inner_content
        html = ic[0] if len(ic) == 1 and ic[0] is not None else "".join(c for c in ic if c is not None)
    name = block.name
    if name is not None:
        callback = DYNAMIC_BLOCKS.get(name)
        if callback is not None:
            html = str(callback(block, replace(ctx, content=html)))
        post_filter = BLOCK_RENDER_FILTERS.get(name)
        if post_filter is not None:
            html = post_filter(html, block)
    return html


def render_blocks(content: str, ctx: RenderContext | None = None) -> str:
    """``do_blocks``: parse the content and render every top-level block, delimiters removed."""
    if not content or "wp:" not in content:
        return content
    return "".join(render_block(b, ctx) for b in parse_blocks(content))


# The blocks an excerpt may be generated from, and the wrappers whose children may contribute.
_EXCERPT_INNER_BLOCKS = frozenset(
    {
        None,
        "core/freeform",
        "core/heading",
        "core/html",
        "core/list",
        "core/media-text",
        "core/paragraph",
        "core/preformatted",
        "core/pullquote",
        "core/quote",
        "core/table",
        "core/verse",
    }
)
_EXCERPT_WRAPPER_BLOCKS = frozenset({"core/columns", "core/column", "core/group"})
_EXCERPT_ALLOWED_BLOCKS = _EXCERPT_INNER_BLOCKS | _EXCERPT_WRAPPER_BLOCKS


def _excerpt_inner(block: Block, ctx: RenderContext | None) -> str:
    out = []
    for inner in block.inner_blocks:
        if inner.name not in _EXCERPT_ALLOWED_BLOCKS:
            continue
        out.append(render_block(inner, ctx) if not inner.inner_blocks else _excerpt_inner(inner, ctx))
    return "".join(out)


def excerpt_remove_blocks(content: str, ctx: RenderContext | None = None) -> str:
    """Render only the blocks likely to hold excerpt text (``excerpt_remove_blocks``)."""
    if not has_blocks(content):
        return content
    out: list[str] = []
    for block in parse_blocks(content):
        if block.name not in _EXCERPT_ALLOWED_BLOCKS:
            continue
        if block.inner_blocks:
            if block.name in _EXCERPT_WRAPPER_BLOCKS:
                out.append(_excerpt_inner(block, ctx))
                continue
            # A non-wrapper with disallowed or nested inner blocks is skipped entirely.
            if any(i.name not in _EXCERPT_INNER_BLOCKS or i.inner_blocks for i in block.inner_blocks):
                continue
        out.append(render_block(block, ctx))
    return "".join(out)


_FOOTNOTE_RE = re.compile(r'<sup data-fn="[^"]+" class="[^"]+">\s*<a href="[^"]+" id="[^"]+">\d+</a>\s*</sup>', re.A)


def _excerpt_remove_footnotes(content: str) -> str:
    if "data-fn=" not in content:
        return content
    return _FOOTNOTE_RE.sub("", content)


# =================================================================================================
# Shortcodes (names only: nothing is expanded)
# =================================================================================================

#: Shortcodes the reference registers in core. They are never expanded here (``do_shortcode`` has
#: nothing to run), but their names still matter to the text filters: wptexturize leaves a
#: shortcode tag alone, shortcode_unautop unwraps one standing alone in a paragraph, and a generated
#: excerpt drops them.
SHORTCODE_TAGS: tuple[str, ...] = ("wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed")

_SHORTCODE_NAME_RE = re.compile(r"\[/?([^<>&/\[\]\x00-\x20=]+)")
_SHORTCODE_OPEN_NAME_RE = re.compile(r"\[([^<>&/\[\]\x00-\x20=]+)")


def _found_shortcodes(text: str, pattern: re.Pattern[str] = _SHORTCODE_NAME_RE) -> tuple[str, ...]:
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
    tags = _found_shortcodes(text, _SHORTCODE_OPEN_NAME_RE)
    if not tags:
        return text
    pattern = _SHORTCODE_RE_CACHE.get(tags)
    if pattern is None:
        pattern = _SHORTCODE_RE_CACHE.setdefault(tags, re.compile(_shortcode_regex(tags), re.A))
    if "<" in text:
        # Brackets inside tags and comments are protected (encoded) while stripping...
        parts = _HTML_SPLIT_RE.split(text)
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


# =================================================================================================
# wptexturize
# =================================================================================================

_OPENING_QUOTE = "&#8220;"
_CLOSING_QUOTE = "&#8221;"
_APOS = "&#8217;"
_PRIME = "&#8242;"
_DOUBLE_PRIME = "&#8243;"
_OPENING_SINGLE_QUOTE = "&#8216;"
_CLOSING_SINGLE_QUOTE = "&#8217;"
_EN_DASH = "&#8211;"
_EM_DASH = "&#8212;"

# Placeholders the reference uses between passes; they look like comments so that later passes
# treat them as the reference does (they take part in look-behinds).
_OPEN_Q_FLAG = "<!--oq-->"
_OPEN_SQ_FLAG = "<!--osq-->"
_APOS_FLAG = "<!--apos-->"
_PRIME_FLAG = "<!--wp-prime-or-quote-->"

_NO_TEXTURIZE_TAGS = ("pre", "code", "kbd", "style", "script", "tt")

# Static replacements, applied in this order (str_replace with arrays is sequential).
_STATIC = (("...", "&#8230;"), ("``", _OPENING_QUOTE), ("''", _CLOSING_QUOTE), (" (tm)", " &#8482;"))
_COCKNEY = tuple(
    zip(
        "'tain't,'twere,'twas,'tis,'twill,'til,'bout,'nuff,'round,'cause,'em".split(","),
        (
            "&#8217;tain&#8217;t,&#8217;twere,&#8217;twas,&#8217;tis,&#8217;twill,&#8217;til,"
            "&#8217;bout,&#8217;nuff,&#8217;round,&#8217;cause,&#8217;em"
        ).split(","),
    )
)

# wp_spaces_regexp(): ASCII blanks, the UTF-8 no-break space and its entity.
_SP = r"(?:[\r\n\t ]|\xa0|&nbsp;)"
# "Followed by end of text, closing punctuation, &gt; or a space" (PCRE's \Z also matches before a
# final newline, which the space alternative covers here).
_CLOSER_AHEAD = r"(?=\Z|[.,:;!?)}\-\]]|&gt;|" + _SP + ")"


def _preceded_by(literal: str, *before: str) -> str:
    r"""``literal`` preceded by one of ``before`` (regex fragments; "^" for the start of the text).

    The reference writes ``(?<=\A|[([{"-]|&lt;|...)'``; PCRE accepts look-behind alternatives of
    different lengths, Python does not. Each alternative becomes its own look-behind, placed *after*
    the literal (so it includes it): a pattern that starts with a literal is searched far faster by
    Python's engine than one that starts with a look-behind, and matches the same spans.
    """
    lit = re.escape(literal)
    return lit + "(?:" + "|".join(f"(?<={b}{lit})" for b in before) + ")"


_SPACE_BEFORE = ("^", r"[\r\n\t ]", r"\xa0", "&nbsp;")

_APOS_PATTERNS = (
    # '99' and '99" are ambiguous; assume an abbreviated year at the end of a quotation.
    (re.compile(r"'(\d\d)'" + _CLOSER_AHEAD, re.A), _APOS_FLAG + r"\1" + _CLOSING_SINGLE_QUOTE),
    (re.compile(r"'(\d\d)\"" + _CLOSER_AHEAD, re.A), _APOS_FLAG + r"\1" + _CLOSING_QUOTE),
    # '99 '99s '99's (apostrophe), but never '9 or '99% or '999 or '99.0.
    (re.compile(r"'(?=\d\d(?:\Z|(?![%\d]|[.,]\d)))", re.A), _APOS_FLAG),
    # Quoted numbers like '0.42'.
    (re.compile(_preceded_by("'", *_SPACE_BEFORE) + r"(\d[.,\d]*)'", re.A), _OPEN_SQ_FLAG + r"\1" + _CLOSING_SINGLE_QUOTE),
    # Single quote at start, or preceded by (, {, <, [, ", -, or spaces.
    (re.compile(_preceded_by("'", r"[(\[{\"\-]", "&lt;", *_SPACE_BEFORE), re.A), _OPEN_SQ_FLAG),
    # Apostrophe in a word: no spaces, double apostrophes, or other punctuation around it.
    (
        re.compile(r"'(?<![\r\n\t ]')(?<!\xa0')(?<!&nbsp;')(?!\Z|[.,:;!?\"'(){}\[\]\-]|&[lg]t;|" + _SP + ")", re.A),
        _APOS_FLAG,
    ),
)
_QUOTE_PATTERNS = (
    # Quoted numbers like "42".
    (re.compile(_preceded_by('"', *_SPACE_BEFORE) + r"(\d[.,\d]*)\"", re.A), _OPEN_Q_FLAG + r"\1" + _CLOSING_QUOTE),
    # Double quote at start, or preceded by (, {, <, [, -, or spaces, and not followed by spaces.
    (re.compile(_preceded_by('"', r"[(\[{\-]", "&lt;", *_SPACE_BEFORE) + "(?!" + _SP + ")", re.A), _OPEN_Q_FLAG),
)
_DASH_PATTERNS = (
    (re.compile(r"---"), _EM_DASH),
    (re.compile(_preceded_by("--", *_SPACE_BEFORE) + r"(?=$|" + _SP + ")"), _EM_DASH),
    (re.compile(r"--(?<!xn--)"), _EN_DASH),  # "xn--" is a punycode prefix, left alone
    (re.compile(_preceded_by("-", *_SPACE_BEFORE) + r"(?=$|" + _SP + ")"), _EN_DASH),
)


def _prime_patterns(needle: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    quote = re.compile(re.escape(needle) + _CLOSER_AHEAD, re.A)
    prime = re.compile(re.escape(needle) + r"(?<=\d" + re.escape(needle) + ")", re.A)
    return quote, prime


_SQ_QUOTE_RE, _SQ_PRIME_RE = _prime_patterns("'")
_DQ_QUOTE_RE, _DQ_PRIME_RE = _prime_patterns('"')
_FLAG_AFTER_DIGIT_RE = re.compile(r"(?<=\d)" + re.escape(_PRIME_FLAG), re.A)
_FLAG_NO_DIGIT_RE = re.compile(r"(?<!\d)" + re.escape(_PRIME_FLAG), re.A)


def _texturize_primes(
    haystack: str,
    needle: str,
    prime: str,
    open_quote: str,
    close_quote: str,
    quote_re: re.Pattern[str],
    prime_re: re.Pattern[str],
) -> str:
    """Decide, per quotation, whether a quote after a digit is a prime (9' = nine feet) or the
    closing quote (the reference's "Vulcan logic", reproduced step for step)."""
    sentences = haystack.split(open_quote)
    for key, sentence in enumerate(sentences):
        if needle not in sentence:
            continue
        if key != 0 and sentence.count(close_quote) == 0:
            sentence, count = quote_re.subn(_PRIME_FLAG, sentence)
            if count > 1:
                # Several closing-quote candidates: a flag not after a digit is the closing quote.
                sentence, count2 = _FLAG_NO_DIGIT_RE.subn(close_quote, sentence)
                if count2 == 0:
                    # Otherwise the rightmost flag followed by a period, or else the rightmost flag.
                    pos = sentence.rfind(_PRIME_FLAG + ".")
                    if pos < 0:
                        pos = sentence.rfind(_PRIME_FLAG)
                    sentence = sentence[:pos] + close_quote + sentence[pos + len(_PRIME_FLAG) :]
                sentence = prime_re.sub(prime, sentence)
                sentence = _FLAG_AFTER_DIGIT_RE.sub(prime, sentence)
                sentence = sentence.replace(_PRIME_FLAG, close_quote)
            elif count == 1:
                # A single candidate: it is the closing quote, before primes are considered.
                sentence = sentence.replace(_PRIME_FLAG, close_quote)
                sentence = prime_re.sub(prime, sentence)
            else:
                sentence = prime_re.sub(prime, sentence)
        else:
            sentence = prime_re.sub(prime, sentence)
            sentence = quote_re.sub(close_quote, sentence)
        if needle == '"' and '"' in sentence:
            sentence = sentence.replace('"', close_quote)
        sentences[key] = sentence
    return open_quote.join(sentences)


_TIMES_PROBE_RE = re.compile(r"x(?<=\dx)\d", re.A)
# 9x9 (times), but never 0x9999 (a number starting with 0 needs more than one digit before the x).
_TIMES_RE = re.compile(r"\b(\d(?:(?<=0)[\d.,]+|(?<!0)[\d.,]*))x(\d[\d.,]*)\b", re.A)
# An ampersand that does not already start an entity.
_LONE_AMP_RE = re.compile(r"&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)", re.I | re.A)


def _texturize_text(s: str) -> str:
    for a, b in _STATIC:
        if a in s:
            s = s.replace(a, b)
    if "'" in s:
        for a, b in _COCKNEY:
            if a in s:
                s = s.replace(a, b)
    if "'" in s:
        for pattern, repl in _APOS_PATTERNS:
            s = pattern.sub(repl, s)
        s = _texturize_primes(s, "'", _PRIME, _OPEN_SQ_FLAG, _CLOSING_SINGLE_QUOTE, _SQ_QUOTE_RE, _SQ_PRIME_RE)
        s = s.replace(_APOS_FLAG, _APOS).replace(_OPEN_SQ_FLAG, _OPENING_SINGLE_QUOTE)
    if '"' in s:
        for pattern, repl in _QUOTE_PATTERNS:
            s = pattern.sub(repl, s)
        s = _texturize_primes(s, '"', _DOUBLE_PRIME, _OPEN_Q_FLAG, _CLOSING_QUOTE, _DQ_QUOTE_RE, _DQ_PRIME_RE)
        s = s.replace(_OPEN_Q_FLAG, _OPENING_QUOTE)
    if "-" in s:
        for pattern, repl in _DASH_PATTERNS:
            s = pattern.sub(repl, s)
    if "x" in s and _TIMES_PROBE_RE.search(s):
        s = _TIMES_RE.sub(r"\1&#215;\2", s)
    if "&" in s:
        s = _LONE_AMP_RE.sub("&#038;", s)
    return s


# Splits text into HTML comments, tag-like spans ("<" up to the next ">" or the end) and text.
_TEXTURIZE_SPLIT_RE = re.compile(r"(<(?:(?=!--)!(?:-(?!->)[^\-]*+)*+(?:-->)?|(?!!--)[^>]*>?))")
# Characters wptexturize reacts to; text without any of them comes back unchanged.
_TEXTURIZE_PROBE_RE = re.compile(r"[<.`'\"&\-(]|\dx\d", re.A)


def _pushpop_element(tag: str, stack: list[str]) -> None:
    # The tag name is read the way the reference reads it: up to the first space, or else the whole
    # tag minus its last character. So "<pre>" and "<pre class=x>" disable texturizing, but
    # "<PRE>" or "<pre\n>" do not, and a closer only pops when it matches the innermost opener.
    if len(tag) > 1 and tag[1] != "/":
        opening, name_offset = True, 1
    elif not stack:
        return
    else:
        opening, name_offset = False, 2
    space = tag.find(" ")
    name = tag[name_offset:-1] if space < 0 else tag[name_offset:space]
    if name in _NO_TEXTURIZE_TAGS:
        if opening:
            stack.append(name)
        elif stack[-1] == name:
            stack.pop()


_TEXTURIZE_SPLIT_CACHE: dict[tuple[str, ...], tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _texturize_shortcode_patterns(tags: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    cached = _TEXTURIZE_SPLIT_CACHE.get(tags)
    if cached is None:
        names = "|".join(re.escape(t) for t in tags)
        sc = r"\[[/\[]?(?:" + names + r")(?=[\s\]/])(?:[^\[\]<>]+|<[^\[\]>]*>)*+\]\]?"
        split = re.compile(r"(<(?:(?=!--)!(?:-(?!->)[^\-]*+)*+(?:-->)?|(?!!--)[^>]*>?)|" + sc + ")", re.A)
        cached = _TEXTURIZE_SPLIT_CACHE.setdefault(tags, (split, re.compile(sc, re.A)))
    return cached


def wptexturize(text: str) -> str:
    """Smart quotes, apostrophes, primes, dashes, ellipsis, ™ and × as HTML entities.

    Text inside ``<pre>``, ``<code>``, ``<kbd>``, ``<style>``, ``<script>`` and ``<tt>`` is left
    alone, as are HTML comments; inside other tags only bare ``&`` become ``&#038;``.
    """
    if not text or text == "0" or not _TEXTURIZE_PROBE_RE.search(text):
        return text
    tags = _found_shortcodes(text)
    if tags:
        split_re, shortcode_re = _texturize_shortcode_patterns(tags)
    else:
        split_re, shortcode_re = _TEXTURIZE_SPLIT_RE, None
    pieces = split_re.split(text)
    stack: list[str] = []
    out: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if piece[0] == "<":
            if not piece.startswith("<!--"):
                if "&" in piece:
                    piece = _LONE_AMP_RE.sub("&#038;", piece)
                _pushpop_element(piece, stack)
        elif not piece.strip(_PHP_TRIM):
            pass
        elif piece[0] == "[" and shortcode_re is not None and shortcode_re.fullmatch(piece):
            # A registered shortcode tag is a delimiter: never texturized. (Only the "code"
            # shortcode would disable texturizing of its content, and it is not registered.)
            pass
        elif not stack:
            piece = _texturize_text(piece)
        out.append(piece)
    return "".join(out)


# =================================================================================================
# wpautop
# =================================================================================================

_ALLBLOCKS = (
    r"(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|"
    r"blockquote|address|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|"
    r"nav|figure|figcaption|details|menu|summary)"
)
_A = re.A
_AP_DOUBLE_BR = re.compile(r"<br\s*/?>\s*<br\s*/?>", _A)
_AP_BLOCK_OPEN = re.compile(r"(<" + _ALLBLOCKS + r"[\s/>])", _A)
_AP_BLOCK_CLOSE = re.compile(r"(</" + _ALLBLOCKS + r">)", _A)
_AP_HR = re.compile(r"(<hr\s*?/?>)", _A)
_AP_OPTION_BEFORE = re.compile(r"\s*<option", _A)
_AP_OPTION_AFTER = re.compile(r"</option>\s*", _A)
_AP_OBJECT_OPEN = re.compile(r"(<object[^>]*>)\s*", _A)
_AP_OBJECT_CLOSE = re.compile(r"\s*</object>", _A)
_AP_PARAM_EMBED = re.compile(r"\s*(</?(?:param|embed)[^>]*>)\s*", _A)
_AP_MEDIA_OPEN = re.compile(r"([<\[](?:audio|video)[^>\]]*[>\]])\s*", _A)
_AP_MEDIA_CLOSE = re.compile(r"\s*([<\[]/(?:audio|video)[>\]])", _A)
_AP_SOURCE_TRACK = re.compile(r"\s*(<(?:source|track)[^>]*>)\s*", _A)
_AP_FIGCAPTION_OPEN = re.compile(r"\s*(<figcaption[^>]*>)", _A)
_AP_FIGCAPTION_CLOSE = re.compile(r"</figcaption>\s*", _A)
_AP_MANY_NL = re.compile(r"\n\n+")
_AP_PARA_SPLIT = re.compile(r"\n\s*\n", _A)
_AP_EMPTY_P = re.compile(r"<p>\s*</p>", _A)
_AP_UNCLOSED_P = re.compile(r"<p>([^<]+)</(div|address|form)>")
_AP_P_AROUND_BLOCK = re.compile(r"<p>\s*(</?" + _ALLBLOCKS + r"[^>]*>)\s*</p>", _A)
_AP_P_AROUND_LI = re.compile(r"<p>(<li.+?)</p>")
_AP_P_BLOCKQUOTE = re.compile(r"<p><blockquote([^>]*)>", re.I)
_AP_P_BEFORE_BLOCK = re.compile(r"<p>\s*(</?" + _ALLBLOCKS + r"[^>]*>)", _A)
_AP_P_AFTER_BLOCK = re.compile(r"(</?" + _ALLBLOCKS + r"[^>]*>)\s*</p>", _A)
_AP_PRESERVE = re.compile(r"<(script|style|svg|math).*?</\1>", re.S)
_AP_NL_TO_BR = re.compile(r"(?<!<br />)\s*\n", _A)
_AP_BR_AFTER_BLOCK = re.compile(r"(</?" + _ALLBLOCKS + r"[^>]*>)\s*<br />", _A)
_AP_BR_BEFORE_BLOCK = re.compile(r"<br />(\s*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)", _A)
_AP_FINAL_NL = re.compile(r"\n</p>$")
# wp_html_split(): comments (to "-->" or the end), CDATA sections, and "<" up to the next ">".
_HTML_SPLIT_RE = re.compile(
    r"(<(?:(?=!--)!(?:-(?!->)[^\-]*+)*+(?:-->)?"
    r"|(?=!\[CDATA\[)!\[CDATA\[[^\]]*+(?:\](?!\]>)[^\]]*+)*+(?:\]\]>)?"
    r"|(?!!--|!\[CDATA\[)[^>]*>?))"
)
_ASCII_WS = " \t\n\r\x0b\x0c"


def _replace_newlines_in_tags(text: str) -> str:
    """``wp_replace_in_html_tags(text, {"\\n": " <!-- wpnl --> "})``: protect newlines that sit
    inside tags and comments from being turned into paragraphs."""
    parts = _HTML_SPLIT_RE.split(text)
    changed = False
    for i in range(1, len(parts), 2):
        if "\n" in parts[i]:
            parts[i] = parts[i].replace("\n", " <!-- wpnl --> ")
            changed = True
    return "".join(parts) if changed else text


def _preserve_newlines(m: re.Match[str]) -> str:
    return m.group(0).replace("\n", "<WPPreserveNewline />")


def wpautop(text: str, br: bool = True) -> str:
    """Turn double line breaks into ``<p>...</p>\\n`` paragraphs and (with ``br``) remaining line
    breaks into ``<br />``, leaving block-level markup and ``<pre>`` contents alone."""
    if not text.strip(_PHP_TRIM):
        return ""
    # Fast path: one line of plain text always comes out as a single paragraph.
    if "<" not in text and "\n" not in text and "\r" not in text and text.strip(_ASCII_WS):
        return "<p>" + text + "</p>\n"

    pre_tags: dict[str, str] = {}
    text = text + "\n"  # pad the end, as the reference does

    # <pre> elements are replaced with placeholders and restored at the end, untouched.
    if "<pre" in text:
        parts = text.split("</pre>")
        last = parts.pop()
        rebuilt: list[str] = []
        i = 0
        for part in parts:
            start = part.find("<pre")
            if start < 0:
                # Malformed HTML: the reference keeps the text but loses this "</pre>".
                rebuilt.append(part)
                continue
            name = f"<pre wp-pre-tag-{i}></pre>"
            pre_tags[name] = part[start:] + "</pre>"
            rebuilt.append(part[:start] + name)
            i += 1
        rebuilt.append(last)
        text = "".join(rebuilt)

    text = _AP_DOUBLE_BR.sub("\n\n", text)
    text = _AP_BLOCK_OPEN.sub("\n\n\\1", text)
    text = _AP_BLOCK_CLOSE.sub("\\1\n\n", text)
    text = _AP_HR.sub("\\1\n\n", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _replace_newlines_in_tags(text)

    if "<option" in text:
        text = _AP_OPTION_BEFORE.sub("<option", text)
        text = _AP_OPTION_AFTER.sub("</option>", text)
    if "</object>" in text:
        text = _AP_OBJECT_OPEN.sub("\\1", text)
        text = _AP_OBJECT_CLOSE.sub("</object>", text)
        text = _AP_PARAM_EMBED.sub("\\1", text)
    if "<source" in text or "<track" in text:
        text = _AP_MEDIA_OPEN.sub("\\1", text)
        text = _AP_MEDIA_CLOSE.sub("\\1", text)
        text = _AP_SOURCE_TRACK.sub("\\1", text)
    if "<figcaption" in text:
        text = _AP_FIGCAPTION_OPEN.sub("\\1", text)
        text = _AP_FIGCAPTION_CLOSE.sub("</figcaption>", text)

    text = _AP_MANY_NL.sub("\n\n", text)
    paragraphs = [p for p in _AP_PARA_SPLIT.split(text) if p]
    text = "".join("<p>" + p.strip("\n") + "</p>\n" for p in paragraphs)

    text = _AP_EMPTY_P.sub("", text)
    text = _AP_UNCLOSED_P.sub("<p>\\1</p></\\2>", text)
    text = _AP_P_AROUND_BLOCK.sub("\\1", text)
    text = _AP_P_AROUND_LI.sub("\\1", text)
    text = _AP_P_BLOCKQUOTE.sub("<blockquote\\1><p>", text)
    text = text.replace("</blockquote></p>", "</p></blockquote>")
    text = _AP_P_BEFORE_BLOCK.sub("\\1", text)
    text = _AP_P_AFTER_BLOCK.sub("\\1", text)

    if br:
        text = _AP_PRESERVE.sub(_preserve_newlines, text)
        text = text.replace("<br>", "<br />").replace("<br/>", "<br />")
        text = _AP_NL_TO_BR.sub("<br />\n", text)
        text = text.replace("<WPPreserveNewline />", "\n")

    text = _AP_BR_AFTER_BLOCK.sub("\\1", text)
    text = _AP_BR_BEFORE_BLOCK.sub("\\1", text)
    text = _AP_FINAL_NL.sub("</p>", text)

    for name, original in pre_tags.items():  # sequential, like str_replace with arrays
        text = text.replace(name, original)
    if "<!-- wpnl -->" in text:
        text = text.replace(" <!-- wpnl --> ", "\n").replace("<!-- wpnl -->", "\n")
    return text


# =================================================================================================
# Smaller filters
# =================================================================================================

_CONVERT_CHARS_RE = re.compile(r"&([^#])(?![a-z1-4]{1,8};)", re.I | re.A)


def convert_chars(text: str) -> str:
    """Encode a bare ``&`` as ``&#038;`` (the character after it is consumed, as in the reference,
    so in ``&&amp;`` neither ampersand changes)."""
    if "&" not in text:
        return text
    return _CONVERT_CHARS_RE.sub(r"&#038;\1", text)


_DANGIT_CONTENT = (
    (" Wordpress", " WordPress"),
    ("&#8216;Wordpress", "&#8216;WordPress"),
    (_OPENING_QUOTE + "Wordpress", _OPENING_QUOTE + "WordPress"),
    (">Wordpress", ">WordPress"),
    ("(Wordpress", "(WordPress"),
)


def capital_p_dangit(text: str, *, title: bool = False) -> str:
    """Spell "WordPress" with a capital P: everywhere in titles, only after a space, quote, ``>``
    or ``(`` in content (so URLs and file names keep their spelling)."""
    if "Wordpress" not in text:
        return text
    if title:
        return text.replace("Wordpress", "WordPress")
    for a, b in _DANGIT_CONTENT:
        text = text.replace(a, b)
    return text


_SCRIPT_STYLE_RE = re.compile(r"<(script|style)[^>]*?>.*?</\1>", re.S | re.I)


_SIMPLE_TAG_OR_COMMENT_RE = re.compile(r"<!--(?:-?>|.*?-->)|<(?![\s!?])(?:[^<>\"']|\"[^\"<>]*\"|'[^'<>]*')*>", re.S)
_PHP_SPACE = " \t\n\r\x0b\x0c"


def _php_strip_tags(text: str) -> str:
    """PHP ``strip_tags()``: drop tags, comments and processing instructions. A ``<`` followed by
    whitespace is text; a ``>`` inside quotes, or matching a nested ``<``, does not end a tag; an
    unterminated tag or comment swallows the rest of the text."""
    if "<" not in text:
        return text
    # Common case: well-formed tags and comments only.
    simple = _SIMPLE_TAG_OR_COMMENT_RE.sub("", text)
    if "<" not in simple:
        return simple
    # General case: the reference's state machine (0 text, 1 tag, 2 "<?", 3 "<!", 4 comment).
    out: list[str] = []
    state = depth = 0
    in_q = ""
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if state == 0:
            lt = text.find("<", i)
            if lt < 0:
                out.append(text[i:])
                break
            out.append(text[i:lt])
            i = lt
            if lt + 1 < n and text[lt + 1] in _PHP_SPACE:
                out.append("<")
            else:
                state, depth, in_q = 1, 0, ""
        elif state == 1:
            if c == "<":
                if not in_q:
                    depth += 1
            elif c == ">":
                if depth:
                    depth -= 1
                elif not in_q:
                    state = 0
            elif c in "\"'":
                if not in_q:
                    in_q = c
                elif in_q == c:
                    in_q = ""
            elif c == "!" and text[i - 1] == "<":
                state = 3
            elif c == "?" and text[i - 1] == "<":
                state = 2
        elif state == 3:
            if c == "-" and text[i - 1] == "-" and text[i - 2] == "!":
                state = 4
            elif c == ">":
                if depth:
                    depth -= 1
                else:
                    state = 0
        elif state == 4:
            if c == ">" and text[i - 1] == "-" and text[i - 2] == "-":
                state = depth = 0
        elif c == ">" and text[i - 1] == "?":  # state 2
            state = depth = 0
        i += 1
    return "".join(out)


def strip_all_tags(text: str, remove_breaks: bool = False) -> str:
    """``wp_strip_all_tags``: remove ``<script>``/``<style>`` with their contents, then every tag,
    then trim."""
    if "<" in text:
        text = _SCRIPT_STYLE_RE.sub("", text)
    text = _php_strip_tags(text)
    if remove_breaks:
        text = re.sub(r"[\r\n\t ]+", " ", text)
    return text.strip(_PHP_TRIM)


_WORD_SPLIT_RE = re.compile(r"[\n\r\t ]+")


def trim_words(text: str, num_words: int = 55, more: str = "&hellip;") -> str:
    """``wp_trim_words``: strip tags, keep the first ``num_words`` words (split on ASCII blanks
    only), join them with single spaces and append ``more`` when something was cut."""
    text = strip_all_tags(text)
    words = [w for w in _WORD_SPLIT_RE.split(text) if w]
    if len(words) > num_words:
        return " ".join(words[: max(num_words, 0)]) + more
    return " ".join(words)


# =================================================================================================
# Field pipelines (cms-api.md 2.4 and 2.6)
# =================================================================================================


def render_title(raw: str) -> str:
    """``title.rendered``: the ``the_title`` filters (wptexturize, convert_chars, trim, then the
    "WordPress" spelling). No ``Protected:``/``Private:`` prefix, as in the REST API."""
    if not raw:
        return ""
    text = convert_chars(wptexturize(raw)).strip(_PHP_TRIM)
    return capital_p_dangit(text, title=True)


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
# changing DYNAMIC_BLOCKS, BLOCK_RENDER_FILTERS or SHORTCODE_TAGS at run time.
_render_content_cached = functools.lru_cache(maxsize=512)(lambda raw: _render_content(raw, None))


def clear_render_cache() -> None:
    """Forget cached renderings (after changing a registry of this module)."""
    _render_content_cached.cache_clear()
    _render_excerpt_cached.cache_clear()


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
    text = _excerpt_remove_footnotes(text)
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
    if not text.strip(_PHP_TRIM):
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


# =================================================================================================
# kses
# =================================================================================================

_GLOBAL_ATTRS = frozenset(
    {
        "aria-controls",
        "aria-current",
        "aria-describedby",
        "aria-details",
        "aria-expanded",
        "aria-hidden",
        "aria-label",
        "aria-labelledby",
        "aria-live",
        "class",
        "dir",
        "hidden",
        "id",
        "lang",
        "style",
        "tabindex",
        "title",
        "role",
        "xml:lang",
    }
)
_MATH_ATTRS = ("displaystyle", "mathbackground", "mathcolor", "mathsize", "scriptlevel")
_TABLE_CELL = (
    "abbr",
    "align",
    "axis",
    "bgcolor",
    "char",
    "charoff",
    "colspan",
    "headers",
    "height",
    "nowrap",
    "rowspan",
    "scope",
    "valign",
    "width",
)
_TABLE_SECTION = ("align", "char", "charoff", "valign")
_COLS = ("align", "char", "charoff", "span", "valign", "width")

# The reference's $allowedposttags: tag -> its own attributes (every tag also gets the global
# attributes above and data-*). "a download" must be valueless and <object> only takes a local PDF;
# both special cases are left to the slow path.
_POST_TAG_ATTRS: dict[str, tuple[str, ...]] = {
    "address": (),
    "a": ("href", "name", "rel", "rev", "target", "download"),
    "abbr": (),
    "acronym": (),
    "area": ("alt", "coords", "href", "nohref", "shape", "target"),
    "article": ("align",),
    "aside": ("align",),
    "audio": ("autoplay", "controls", "loop", "muted", "preload", "src"),
    "b": (),
    "bdo": (),
    "big": (),
    "blockquote": ("cite",),
    "br": (),
    "button": (
        "aria-haspopup",
        "command",
        "commandfor",
        "disabled",
        "name",
        "popovertarget",
        "popovertargetaction",
        "type",
        "value",
    ),
    "caption": ("align",),
    "cite": (),
    "code": (),
    "col": _COLS,
    "colgroup": _COLS,
    "data": ("value",),
    "del": ("datetime",),
    "dd": (),
    "dfn": (),
    "details": ("align", "name", "open"),
    "div": ("align", "popover"),
    "dialog": ("autofocus", "closedby", "open", "popover"),
    "dl": (),
    "dt": (),
    "em": (),
    "fieldset": (),
    "figure": ("align",),
    "figcaption": ("align",),
    "font": ("color", "face", "size"),
    "footer": ("align",),
    "h1": ("align",),
    "h2": ("align",),
    "h3": ("align",),
    "h4": ("align",),
    "h5": ("align",),
    "h6": ("align",),
    "header": ("align",),
    "hgroup": ("align",),
    "hr": ("align", "noshade", "size", "width"),
    "i": (),
    "img": ("align", "alt", "border", "height", "hspace", "loading", "longdesc", "src", "usemap", "vspace", "width"),
    "ins": ("cite", "datetime"),
    "kbd": (),
    "label": ("for",),
    "legend": ("align",),
    "li": ("align", "value"),
    "main": ("align",),
    "map": ("name",),
    "mark": (),
    "menu": ("type",),
    "meter": ("high", "low", "max", "min", "optimum", "value"),
    "nav": ("align",),
    "object": ("data", "type"),
    "p": ("align",),
    "pre": ("width",),
    "progress": ("max", "value"),
    "q": ("cite",),
    "rb": (),
    "rp": (),
    "rt": (),
    "rtc": (),
    "ruby": (),
    "s": (),
    "samp": (),
    "search": (),
    "span": ("align",),
    "section": ("align",),
    "small": (),
    "strike": (),
    "strong": (),
    "sub": (),
    "summary": ("align",),
    "sup": (),
    "table": ("align", "bgcolor", "border", "cellpadding", "cellspacing", "rules", "summary", "width"),
    "tbody": _TABLE_SECTION,
    "td": _TABLE_CELL,
    "textarea": ("cols", "disabled", "name", "readonly", "rows"),
    "tfoot": _TABLE_SECTION,
    "th": _TABLE_CELL,
    "thead": _TABLE_SECTION,
    "time": ("datetime",),
    "title": (),
    "tr": ("align", "bgcolor", "char", "charoff", "valign"),
    "track": ("default", "kind", "label", "src", "srclang"),
    "tt": (),
    "u": (),
    "ul": ("popover", "type"),
    "ol": ("reversed", "start", "type"),
    "var": (),
    "video": ("autoplay", "controls", "height", "loop", "muted", "playsinline", "poster", "preload", "src", "width"),
    "wbr": (),
    # MathML
    "math": _MATH_ATTRS + ("display",),
    "mtext": _MATH_ATTRS,
    "mi": _MATH_ATTRS + ("mathvariant",),
    "mn": _MATH_ATTRS,
    "mo": _MATH_ATTRS
    + (
        "fence",
        "form",
        "largeop",
        "lspace",
        "maxsize",
        "minsize",
        "movablelimits",
        "rspace",
        "separator",
        "stretchy",
        "symmetric",
    ),
    "mspace": _MATH_ATTRS + ("depth", "height", "width"),
    "ms": _MATH_ATTRS,
    "mrow": _MATH_ATTRS,
    "mfrac": _MATH_ATTRS + ("linethickness",),
    "msqrt": _MATH_ATTRS,
    "mroot": _MATH_ATTRS,
    "mstyle": _MATH_ATTRS,
    "merror": _MATH_ATTRS,
    "mpadded": _MATH_ATTRS + ("depth", "height", "lspace", "voffset", "width"),
    "mphantom": _MATH_ATTRS,
    "msub": _MATH_ATTRS,
    "msup": _MATH_ATTRS,
    "msubsup": _MATH_ATTRS,
    "munder": _MATH_ATTRS + ("accent", "accentunder"),
    "mover": _MATH_ATTRS + ("accent", "accentunder"),
    "munderover": _MATH_ATTRS + ("accent", "accentunder"),
    "mmultiscripts": _MATH_ATTRS,
    "mprescripts": _MATH_ATTRS,
    "mtable": _MATH_ATTRS
    + (
        "align",
        "columnalign",
        "columnlines",
        "columnspacing",
        "frame",
        "framespacing",
        "rowalign",
        "rowlines",
        "rowspacing",
        "width",
    ),
    "mtr": _MATH_ATTRS + ("columnalign", "rowalign"),
    "mtd": _MATH_ATTRS + ("columnalign", "columnspan", "rowalign", "rowspan"),
    "semantics": _MATH_ATTRS,
    "annotation": _MATH_ATTRS + ("encoding",),
    "menclose": _MATH_ATTRS + ("notation",),
}
_POST_ALLOWED: dict[str, frozenset[str]] = {t: frozenset(a) | _GLOBAL_ATTRS for t, a in _POST_TAG_ATTRS.items()}

# The reference's $allowedtags (titles, wp_filter_kses): no global attributes here.
_TITLE_ALLOWED: dict[str, frozenset[str]] = {
    "a": frozenset({"href", "title"}),
    "abbr": frozenset({"title"}),
    "acronym": frozenset({"title"}),
    "b": frozenset(),
    "blockquote": frozenset({"cite"}),
    "cite": frozenset(),
    "code": frozenset(),
    "del": frozenset({"datetime"}),
    "em": frozenset(),
    "i": frozenset(),
    "q": frozenset({"cite"}),
    "s": frozenset(),
    "strike": frozenset(),
    "strong": frozenset(),
}

_ALLOWED_PROTOCOLS = frozenset(
    "http https ftp ftps mailto news irc irc6 ircs gopher nntp feed telnet mms rtsp sms svn tel fax xmpp webcal urn".split()
)
_URI_ATTRS = frozenset(
    "action archive background cite classid codebase data formaction href icon longdesc manifest poster profile src usemap xmlns".split()
)
# Named entities kses leaves alone (HTML 4 set); any other "&name;" gets its "&" encoded.
_ALLOWED_ENTITY_NAMES = frozenset(
    """nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn acute
    micro para middot cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave
    Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash
    Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave
    eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash
    ugrave uacute ucirc uuml yacute thorn yuml quot amp lt gt apos OElig oelig Scaron scaron Yuml circ
    tilde ensp emsp thinsp zwnj zwj lrm rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger
    permil lsaquo rsaquo euro fnof Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu
    Xi Omicron Pi Rho Sigma Tau Upsilon Phi Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta
    iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega thetasym upsih
    piv bull hellip prime Prime oline frasl weierp image real trade alefsym larr uarr rarr darr harr crarr
    lArr uArr rArr dArr hArr forall part exist empty nabla isin notin ni prod sum minus lowast radic prop
    infin ang and or cap cup int sim cong asymp ne equiv le ge sub sup nsub sube supe oplus otimes perp
    sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams sup1 sup2 sup3 frac14 frac12
    frac34 there4""".split()
)
# safecss_filter_attr(): CSS properties an author may use in a style attribute.
_SAFE_CSS = frozenset(
    """background background-color background-image background-position background-repeat background-size
    background-attachment background-blend-mode border border-radius border-width border-color border-style
    border-right border-right-color border-right-style border-right-width border-bottom border-bottom-color
    border-bottom-left-radius border-bottom-right-radius border-bottom-style border-bottom-width border-left
    border-left-color border-left-style border-left-width border-top border-top-color border-top-left-radius
    border-top-right-radius border-top-style border-top-width border-spacing border-collapse caption-side
    columns column-count column-fill column-gap column-rule column-span column-width display color filter
    font font-family font-size font-style font-variant font-weight letter-spacing line-height text-align
    text-decoration text-indent text-transform white-space height min-height max-height width min-width
    max-width margin margin-right margin-bottom margin-left margin-top margin-block-start margin-block-end
    margin-inline-start margin-inline-end padding padding-right padding-bottom padding-left padding-top
    padding-block-start padding-block-end padding-inline-start padding-inline-end flex flex-basis
    flex-direction flex-flow flex-grow flex-shrink flex-wrap gap row-gap grid-template-columns
    grid-auto-columns grid-column-start grid-column-end grid-column grid-column-gap grid-template-rows
    grid-auto-rows grid-row-start grid-row-end grid-row grid-row-gap grid-gap justify-content justify-items
    justify-self align-content align-items align-self clear cursor direction float list-style-type
    object-fit object-position opacity overflow vertical-align writing-mode position top right bottom left
    z-index box-shadow aspect-ratio container-type fill fill-opacity fill-rule stroke stroke-dasharray
    stroke-dashoffset stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width
    color-interpolation color-interpolation-filters paint-order stop-color stop-opacity flood-color
    flood-opacity lighting-color marker marker-end marker-mid marker-start clip-path clip-rule mask mask-type
    cx cy r rx ry x y d alignment-baseline baseline-shift dominant-baseline glyph-orientation-horizontal
    glyph-orientation-vertical text-anchor unicode-bidi word-spacing font-size-adjust font-stretch
    color-rendering image-rendering shape-rendering text-rendering vector-effect transform transform-origin
    pointer-events visibility""".split()
)
_CSS_URL_PROPS = frozenset(
    "background background-image cursor filter list-style list-style-image clip-path fill marker marker-end marker-mid marker-start mask stroke".split()
)
_CSS_GRADIENT_PROPS = frozenset({"background", "background-image"})
_CSS_CUSTOM_PROP_RE = re.compile(r"^--[a-zA-Z0-9\-_]+$")
_CSS_URL_RE = re.compile(r"url\([^)]+\)")
_CSS_URL_PIECES_RE = re.compile(r"^url\(\s*(['\"]?)(.*)(\1)\s*\)$", re.S)
_CSS_GRADIENT_RE = re.compile(r"(?:repeating-)?(?:linear|radial|conic)-gradient\((?:[^()]|\([^()]*\))*\)")
_CSS_FUNCS = (
    r"\b(?:var|calc|min|max|minmax|clamp|repeat|matrix|matrix3d|perspective|rotate|rotate3d|rotateX|rotateY|"
    r"rotateZ|scale|scale3d|scaleX|scaleY|scaleZ|skew|skewX|skewY|translate|translate3d|translateX|translateY|"
    r"translateZ|circle|ellipse|inset|path|polygon|rect|shape|xywh)\("
)
_CSS_FUNC_START_RE = re.compile(_CSS_FUNCS)
_CSS_BAD_RE = re.compile(r"[\\(&=}]|/\*")

_NULLS_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_SLASH_ZERO_RE = re.compile(r"\\+0+")


def _kses_no_null(text: str) -> str:
    if _NULLS_RE.search(text):
        text = _NULLS_RE.sub("", text)
    if "\\" in text:
        text = _SLASH_ZERO_RE.sub("", text)
    return text


def _strip_css_functions(s: str) -> str:
    # The reference removes allowed CSS function calls with a recursive pattern (balanced parens).
    out = []
    pos = 0
    while True:
        m = _CSS_FUNC_START_RE.search(s, pos)
        if m is None:
            out.append(s[pos:])
            return "".join(out)
        depth = 0
        j = m.end() - 1
        while j < len(s):
            if s[j] == "(":
                depth += 1
            elif s[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth != 0:  # unbalanced: the pattern does not match here
            out.append(s[pos : m.end()])
            pos = m.end()
            continue
        out.append(s[pos : m.start()])
        pos = j + 1


def _safecss(css: str) -> str:
    """``safecss_filter_attr``: keep the declarations whose property is allowed and whose value
    holds no ``\\ ( & } =`` or comment once allowed functions, URLs and gradients are set aside;
    the kept declarations are trimmed and joined with ``;``."""
    css = _kses_no_null(css).replace("\n", "").replace("\r", "").replace("\t", "")
    kept: list[str] = []
    for item in css.strip(_PHP_TRIM).split(";"):
        if item == "":
            continue
        item = item.strip(_PHP_TRIM)
        test = item
        found = False
        url_attr = gradient_attr = False
        value = ""
        if ":" not in item:
            found = True
        else:
            prop, value = item.split(":", 1)
            prop = prop.strip(_PHP_TRIM)
            if _CSS_CUSTOM_PROP_RE.match(prop):
                found = True
                v = value.strip(_PHP_TRIM)
                url_attr = v.startswith("url(")
                gradient_attr = "-gradient(" in v
            elif prop in _SAFE_CSS:
                found = True
                url_attr = prop in _CSS_URL_PROPS
                gradient_attr = prop in _CSS_GRADIENT_PROPS
        if found and url_attr:
            for url_match in _CSS_URL_RE.findall(value):
                pieces = _CSS_URL_PIECES_RE.match(url_match)
                url = pieces.group(2).strip(_PHP_TRIM) if pieces else ""
                if _php_empty(url) or _bad_protocol(url) != url:
                    found = False
                    break
                test = test.replace(url_match, "")
        if found and gradient_attr:
            for g in _CSS_GRADIENT_RE.findall(test):
                test = test.replace(g, "")
        if found:
            test = _strip_css_functions(test)
            if not _CSS_BAD_RE.search(test):
                kept.append(item)
    # Joined as the reference concatenates: a separator only once something was kept, so a
    # leading blank declaration vanishes while a blank one further on leaves ";;".
    css = ""
    for item in kept:
        if css:
            css += ";"
        css += item
    return css


_COLON_RE = re.compile(r":|&#0*58;|&#x0*3a;|&colon;", re.I)
_COLON_FIX_RE = re.compile(r"(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))", re.I)


def _bad_protocol_once(value: str, count: int = 1) -> str:
    value = _COLON_FIX_RE.sub(r"\1;", value)
    m = _COLON_RE.search(value)
    if m is None or "/?" in value[: m.start()]:
        return value
    scheme = _html.unescape(value[: m.start()])
    scheme = _kses_no_null(re.sub(r"\s", "", scheme)).lower()
    rest = value[m.end() :].strip(_PHP_TRIM)
    protocol = scheme + ":" if scheme in _ALLOWED_PROTOCOLS else ""
    if protocol == "feed:":
        if count > 2:
            return ""
        rest = _bad_protocol_once(rest, count + 1)
        if _php_empty(rest):
            return rest
    return protocol + rest


def _bad_protocol(value: str) -> str:
    """``wp_kses_bad_protocol``: strip schemes that are not allowed (``javascript:x`` -> ``x``)."""
    value = _kses_no_null(value)
    if value.startswith(("https://", "http://")):
        return value
    for _ in range(6):
        new = _bad_protocol_once(value)
        if new == value:
            return value
        value = new
    return ""


def _valid_unicode(i: int) -> bool:
    return i in (0x9, 0xA, 0xD) or 0x20 <= i <= 0xD7FF or 0xE000 <= i <= 0xFFFD or 0x10000 <= i <= 0x10FFFF


def _named_entity(m: re.Match[str]) -> str:
    name = m.group(1)
    return f"&{name};" if name in _ALLOWED_ENTITY_NAMES else f"&amp;{name};"


def _decimal_entity(m: re.Match[str]) -> str:
    digits = m.group(1)
    if _valid_unicode(int(digits)):
        return "&#" + digits.lstrip("0").rjust(3, "0") + ";"
    return f"&amp;#{digits};"


def _hex_entity(m: re.Match[str]) -> str:
    digits = m.group(1)
    if _valid_unicode(int(digits, 16)):
        return "&#x" + digits.lstrip("0") + ";"
    return f"&amp;#x{digits};"


_ENT_DEC_RE = re.compile(r"&amp;#(0*[1-9][0-9]{0,6});")
_ENT_HEX_RE = re.compile(r"&amp;#[Xx](0*[1-9A-Fa-f][0-9A-Fa-f]{0,5});")
_ENT_NAMED_RE = re.compile(r"&amp;([A-Za-z]{2,8}[0-9]{0,2});")


def _normalize_entities(text: str) -> str:
    """``wp_kses_normalize_entities``: every ``&`` is encoded unless it starts an allowed named
    entity or a valid numeric one (numeric ones are normalised: ``&#0039;`` -> ``&#039;``)."""
    if "&" not in text:
        return text
    text = text.replace("&", "&amp;")
    text = _ENT_DEC_RE.sub(_decimal_entity, text)
    text = _ENT_HEX_RE.sub(_hex_entity, text)
    return _ENT_NAMED_RE.sub(_named_entity, text)


# wp_pre_kses_less_than(): a "<" that never reaches a ">" before the next "<" is text.
_LESS_THAN_RE = re.compile(r"<[^>]*?((?=<)|>|$)", re.S)


def _less_than(m: re.Match[str]) -> str:
    s = m.group(0)
    if s.endswith(">"):
        return s
    return _LONE_AMP_RE.sub("&amp;", s).replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#039;")


_KSES_TOKEN_RE = re.compile(
    r"(<!--.*?(?:-->|$)|</[^a-zA-Z][^>]*>|<![^>]*>)|(<[^>]*(?:>|$)|>)",
    re.S,
)
_KSES_TAG_RE = re.compile(r"^<\s*(/\s*)?([a-zA-Z0-9-]+)([^>]*)>?$", re.S)
_XHTML_SLASH_RE = re.compile(r"\s*/\s*$")
# Attributes as the HTML tokenizer reads them: a name, then an optional value (quoted or not).
_HAIR_RE = re.compile(r"[\s/]*([^\s/>=][^\s/>=]*|=[^\s/>=]*)(\s*=\s*(?:\"([^\"]*)\"?|'([^']*)'?|([^\s>]*)))?")
_DATA_ATTR_RE = re.compile(r"^data(?:-[a-z0-9_]+)+$")
_RECODE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;"})


class _NeedsSanitizer(Exception):
    """Raised by the exact pass when something must be removed: the slow path takes over."""


def _kses_tag(token: str, allowed: dict[str, frozenset[str]], post: bool) -> str:
    m = _KSES_TAG_RE.match(token)
    if m is None:
        raise _NeedsSanitizer
    slash, elem, attrlist = m.group(1), m.group(2), m.group(3)
    elem_low = elem.lower()
    if elem_low not in allowed or elem_low == "object":
        raise _NeedsSanitizer
    if slash is not None:
        # Closers never keep attributes.
        return f"</{elem}>"
    xhtml_slash = " /" if _XHTML_SLASH_RE.search(attrlist) else ""
    allowed_attrs = allowed[elem_low]
    if not allowed_attrs:
        if attrlist.strip(" \t\n\r\x0c/"):
            raise _NeedsSanitizer
        return f"<{elem}{xhtml_slash}>"
    out: list[str] = []
    seen: set[str] = set()
    for am in _HAIR_RE.finditer(attrlist):
        name = am.group(1).lower()
        if name in seen:
            continue  # the first of duplicate attributes wins
        seen.add(name)
        if am.group(2) is None:
            value = None
        else:
            raw = am.group(3) if am.group(3) is not None else am.group(4) if am.group(4) is not None else am.group(5)
            value = _html.unescape(raw) if "&" in raw else raw
        if name not in allowed_attrs and not (post and _DATA_ATTR_RE.match(name)):
            raise _NeedsSanitizer
        if name == "download" and value is not None:
            raise _NeedsSanitizer
        if value is None:
            out.append(name)
            continue
        if name in _URI_ATTRS and _bad_protocol(value) != value:
            raise _NeedsSanitizer
        recoded = value.translate(_RECODE)
        if name == "style":
            recoded = _safecss(recoded)
            if _php_empty(recoded):
                continue
        out.append(f'{name}="{recoded}"')
    attrs = "".join(" " + a for a in out)
    return f"<{elem}{attrs}{xhtml_slash}>"


def _kses_exact(text: str, allowed: dict[str, frozenset[str]], post: bool) -> str:
    """The reference's token pass for markup that needs nothing removed: tags are rebuilt (names
    of attributes lower-cased, values double-quoted and re-encoded, ``<br/>`` -> ``<br />``),
    comments kept, stray ``>`` encoded. Raises :class:`_NeedsSanitizer` otherwise."""

    def token(m: re.Match[str]) -> str:
        special, tag = m.group(1), m.group(2)
        if special is not None:
            if not special.startswith("<!--"):
                raise _NeedsSanitizer
            inner = special.replace("<!--", "").replace("-->", "")
            if "<" in inner or ">" in inner:
                raise _NeedsSanitizer
            if inner == "":
                return ""
            inner = re.sub(r"--+", "-", inner)  # no "--" inside a comment
            if inner.endswith("-"):
                inner = inner[:-1]
            return f"<!--{inner}-->"
        if tag == ">":
            return "&gt;"
        return _kses_tag(tag, allowed, post)

    return _KSES_TOKEN_RE.sub(token, text)


def _nh3_attributes(allowed: dict[str, frozenset[str]]) -> dict[str, set[str]]:
    return {t: set(a) - {"download"} for t, a in allowed.items() if t != "object"}


_NH3_POST = {
    "tags": set(_POST_ALLOWED) - {"object"},
    "attributes": _nh3_attributes(_POST_ALLOWED),
    "generic_attribute_prefixes": {"data-"},
    "url_schemes": set(_ALLOWED_PROTOCOLS),
    "filter_style_properties": set(_SAFE_CSS),
}
_NH3_TITLE = {
    "tags": set(_TITLE_ALLOWED),
    "attributes": _nh3_attributes(_TITLE_ALLOWED),
    "url_schemes": set(_ALLOWED_PROTOCOLS),
}


def _kses(text: str, allowed: dict[str, frozenset[str]], post: bool) -> str:
    if not text:
        return text
    text = _kses_no_null(text)
    if "<" not in text and ">" not in text:
        return _normalize_entities(text)
    if "<" in text:
        text = _LESS_THAN_RE.sub(_less_than, text)
    text = _normalize_entities(text)
    try:
        return _kses_exact(text, allowed, post)
    except _NeedsSanitizer:
        pass
    # Slow path: something must go. nh3 removes disallowed elements (keeping their text, as the
    # reference does, script and style contents included), attributes (event handlers...), and URLs
    # with disallowed schemes; comments (block delimiters) are kept.
    options = _NH3_POST if post else _NH3_TITLE
    return nh3.clean(text, clean_content_tags=set(), strip_comments=False, link_rel=None, **options)


def kses_post(html: str) -> str:
    """``wp_kses_post`` for authors without ``unfiltered_html``: only the reference's allowed post
    tags and attributes survive (no script/style/iframe, no event handlers, no ``javascript:``
    URLs); block delimiter comments are kept.

    Markup that needs nothing removed comes back exactly as the reference's kses would write it;
    markup with something to remove is cleaned by nh3 with the same tables (its serialisation
    differs in details, e.g. ``<br>`` for ``<br />``)."""
    return _kses(html, _POST_ALLOWED, True)


def kses_title(text: str) -> str:
    """``wp_filter_kses`` for titles: the small ``$allowedtags`` list (a, abbr, acronym, b,
    blockquote, cite, code, del, em, i, q, s, strike, strong)."""
    return _kses(text, _TITLE_ALLOWED, False)
