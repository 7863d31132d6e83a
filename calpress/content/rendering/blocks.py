"""Blocks: the reference's block grammar and the rendering of a parsed block tree.

``parse_blocks`` is the reference's default block parser (``<!-- wp:name {"json":"attrs"} -->
...<!-- /wp:name -->``, void blocks, nested inner blocks, freeform HTML between blocks);
``render_block`` / ``render_blocks`` are ``render_block`` / ``do_blocks``, with the registries of
dynamic blocks and per-block filters; ``excerpt_remove_blocks`` and ``excerpt_remove_footnotes``
keep what a generated excerpt may use.
"""

from __future__ import annotations

import html as _html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ...compat.php import php_empty

__all__ = [
    "BLOCK_RENDER_FILTERS",
    "DYNAMIC_BLOCKS",
    "Block",
    "RenderContext",
    "block_version",
    "excerpt_remove_blocks",
    "excerpt_remove_footnotes",
    "has_blocks",
    "parse_blocks",
    "render_block",
    "render_blocks",
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


def excerpt_remove_footnotes(content: str) -> str:
    if "data-fn=" not in content:
        return content
    return _FOOTNOTE_RE.sub("", content)
