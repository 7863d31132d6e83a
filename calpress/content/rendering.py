"""Rendering of content fields the way the reference CMS renders them (cms-api.md 2.4, 2.6).

Clients compare ``title.rendered``, ``content.rendered`` and ``excerpt.rendered`` byte for byte with
what the reference produces, so this module reproduces the reference's text filters rather than
"doing something sensible":

* the block grammar (``<!-- wp:name {"json":"attrs"} -->...<!-- /wp:name -->``, void blocks, nested
  inner blocks, freeform HTML between blocks) and the rendering of a parsed block tree
  (:func:`parse_blocks`, :func:`render_blocks`);
* ``wptexturize`` (curly quotes, apostrophes, primes, dashes, ellipsis, trademark, multiplication
  sign) and ``wpautop`` (paragraphs and line breaks);
* the filter chains behind the three rendered fields: :func:`render_title` (``the_title``),
  :func:`render_content` (``the_content``) and :func:`render_excerpt` (``get_the_excerpt`` then
  ``the_excerpt``), including the generated 55-word excerpt.

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
import html as _html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..compat.formatting import capital_p_dangit, convert_chars, trim_words
from ..compat.php import PHP_TRIM, php_empty

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
    "SHORTCODE_TAGS",
    "strip_shortcodes",
    "shortcode_unautop",
    "render_title",
    "render_content",
    "render_excerpt",
    "clear_render_cache",
]

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
        if not php_empty(html):  # quirk: a chunk that is exactly "0" is dropped (PHP empty())
            parent.block.inner_html += html
            parent.block.inner_content.append(html)
        parent.block.inner_content.append(None)
        parent.prev_offset = last_offset if last_offset else token_start + token_length

    def add_block_from_stack(end_offset: int | None = None) -> None:
        top = stack.pop()
        html = doc[top.prev_offset :] if end_offset is None else doc[top.prev_offset : end_offset]
        if not php_empty(html):
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
        elif not piece.strip(PHP_TRIM):
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
    if not text.strip(PHP_TRIM):
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
# Field pipelines (cms-api.md 2.4 and 2.6)
# =================================================================================================


def render_title(raw: str) -> str:
    """``title.rendered``: the ``the_title`` filters (wptexturize, convert_chars, trim, then the
    "WordPress" spelling). No ``Protected:``/``Private:`` prefix, as in the REST API."""
    if not raw:
        return ""
    text = convert_chars(wptexturize(raw)).strip(PHP_TRIM)
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
