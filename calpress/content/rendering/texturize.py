"""``wptexturize``: curly quotes, apostrophes, primes, dashes, ellipsis, trademark and
multiplication sign as HTML entities, step for step as the reference texturizes."""

from __future__ import annotations

import re

from ...compat.php import PHP_TRIM
from .shortcodes import found_shortcodes

__all__ = ["wptexturize"]

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
    tags = found_shortcodes(text)
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
