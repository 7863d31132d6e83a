"""``wpautop``: double line breaks become paragraphs and the remaining ones ``<br />``, as the
reference adds them; also ``wp_html_split``, which the shortcode filters share."""

from __future__ import annotations

import re

from ...compat.php import PHP_TRIM

__all__ = ["HTML_SPLIT_RE", "wpautop"]

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
HTML_SPLIT_RE = re.compile(
    r"(<(?:(?=!--)!(?:-(?!->)[^\-]*+)*+(?:-->)?"
    r"|(?=!\[CDATA\[)!\[CDATA\[[^\]]*+(?:\](?!\]>)[^\]]*+)*+(?:\]\]>)?"
    r"|(?!!--|!\[CDATA\[)[^>]*>?))"
)
_ASCII_WS = " \t\n\r\x0b\x0c"


def _replace_newlines_in_tags(text: str) -> str:
    """``wp_replace_in_html_tags(text, {"\\n": " <!-- wpnl --> "})``: protect newlines that sit
    inside tags and comments from being turned into paragraphs."""
    parts = HTML_SPLIT_RE.split(text)
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
