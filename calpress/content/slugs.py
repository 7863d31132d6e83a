"""Slugs: the reference's title-to-slug rules, shared by terms and content items.

``sanitize_title("Événements à Paris")`` gives ``"evenements-a-paris"``: accented Latin letters
are transliterated, other scripts are kept as lower-case percent-encoded UTF-8 (as the reference
stores them), and everything that is not a letter, digit, ``_`` or ``-`` is dropped.
``unique_slug`` appends ``-2``, ``-3``... until a caller-supplied check says the slug is free.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import unquote_plus

__all__ = ["remove_accents", "sanitize_title", "strip_tags", "truncate_slug", "unique_slug", "utf8_uri_encode"]

# -- accents --------------------------------------------------------------------------------------

# Letters the reference transliterates by dropping their marks: each becomes the first character
# of its canonical decomposition ("é" -> "e", "Ầ" -> "A"). Letters of these blocks that do not
# decompose are listed in _SPECIAL; every other character is left as it is.
_MARKED = (
    # Latin-1 Supplement (the letters; × and ÷ are not).
    "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿ"
    # Latin Extended-A, the whole block.
    + "".join(chr(code) for code in range(0x100, 0x180))
    # Latin Extended-B: Romanian comma-below letters, Vietnamese horn letters.
    + "ȘșȚțƠơƯư"
    # Vietnamese tone marks: grave, hook, tilde, acute, dot below.
    + "ẦầẰằỀềỒồỜờỪừỲỳ"
    + "ẢảẨẩẲẳẺẻỂểỈỉỎỏỔổỞởỦủỬửỶỷ"
    + "ẪẫẴẵẼẽỄễỖỗỠỡỮữỸỹ"
    + "ẤấẮắẾếỐốỚớỨứ"
    + "ẠạẬậẶặẸẹỆệỊịỌọỘộỢợỤụỰựỴỵ"
    # Hanyu Pinyin tone marks on ü and the caron vowels.
    + "ǕǖǗǘǍǎǏǐǑǒǓǔǙǚǛǜ"
)

# Letters (and two currency signs) with no decomposition, and what the reference makes of them.
_SPECIAL = {
    "ª": "a", "º": "o", "Æ": "AE", "æ": "ae", "Ð": "D", "ð": "d", "Þ": "TH", "þ": "th", "ß": "s",
    "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h", "ı": "i", "Ĳ": "IJ", "ĳ": "ij",
    "ĸ": "k", "Ŀ": "L", "ŀ": "l", "Ł": "L", "ł": "l", "ŉ": "n", "Ŋ": "N", "ŋ": "n", "Œ": "OE",
    "œ": "oe", "Ŧ": "T", "ŧ": "t", "ſ": "s", "Ə": "E", "ǝ": "e", "ɑ": "a", "€": "E", "£": "",
}

# Locale-specific spellings (the site locale decides; the default en_US uses none of them).
_LOCALE_SPECIAL = {
    "de": {"Ä": "Ae", "ä": "ae", "Ö": "Oe", "ö": "oe", "Ü": "Ue", "ü": "ue", "ẞ": "SS", "ß": "ss"},
    "da_DK": {"Æ": "Ae", "æ": "ae", "Ø": "Oe", "ø": "oe", "Å": "Aa", "å": "aa"},
    "sr_RS": {"Đ": "DJ", "đ": "dj"},
    "bs_BA": {"Đ": "DJ", "đ": "dj"},
}


@lru_cache(maxsize=8)
def _accent_table(locale: str) -> dict[int, str]:
    table: dict[int, str] = {}
    for char in _MARKED:
        if char in _SPECIAL:
            continue
        base = unicodedata.normalize("NFD", char)[0]
        if base != char:
            table[ord(char)] = base
    table.update({ord(char): ascii_text for char, ascii_text in _SPECIAL.items()})
    extra = _LOCALE_SPECIAL.get("de" if locale.startswith("de") else locale, {})
    table.update({ord(char): ascii_text for char, ascii_text in extra.items()})
    return table


def remove_accents(text: str, locale: str = "") -> str:
    """Transliterate accented Latin letters to ASCII, as the reference's remove_accents.

    Only the letters the reference knows are changed (``"Ł"`` -> ``"L"``, ``"ß"`` -> ``"s"``);
    other scripts pass unchanged. ``locale`` selects the German, Danish, Catalan, Serbian and
    Bosnian spellings (``"de_DE"``: ``"ä"`` -> ``"ae"``).
    """
    if text.isascii():
        return text
    if not _is_valid_utf8(text):
        return text
    text = unicodedata.normalize("NFC", text)
    if locale == "ca":
        text = text.replace("l·l", "ll")
    return text.translate(_accent_table(locale))


def _is_valid_utf8(text: str) -> bool:
    # A Python string is Unicode already; only lone surrogates (from "\ud800" in JSON) cannot be
    # UTF-8, and the reference then skips the Unicode steps.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- percent-encoding -----------------------------------------------------------------------------


def utf8_uri_encode(text: str, length: int = 0, encode_ascii: bool = False) -> str:
    """Percent-encode the non-ASCII characters of ``text`` as lower-case UTF-8 octets.

    ``length`` (when not 0) caps the result, counting an encoded octet as 3 characters and never
    cutting a character in half. ``encode_ascii`` also encodes ASCII as ``rawurlencode`` would.
    """
    if not encode_ascii and text.isascii():
        return text[:length] if length else text  # nothing to encode: a character is one
    out: list[str] = []
    used = 0
    for char in text:
        if char.isascii():
            piece = _rawurlencode(char) if encode_ascii else char
        else:
            piece = "".join(f"%{octet:x}" for octet in char.encode("utf-8", "surrogatepass"))
        if length and used + len(piece) > length:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out)


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def _rawurlencode(char: str) -> str:
    return char if char in _UNRESERVED else f"%{ord(char):02X}"


# -- titles to slugs ------------------------------------------------------------------------------

_OCTET = re.compile(r"%([a-fA-F0-9]{2})")
_MARKED_OCTET = re.compile(r"---([a-fA-F0-9]{2})---")
_ENTITY = re.compile(r"&.+?;")
_NOT_SLUG = re.compile(r"[^%a-z0-9 _-]")
_SPACES = re.compile(r"\s+")
_DASHES = re.compile(r"-+")

# What the reference does with some typographic characters (matched once encoded) on saving.
_TO_DASH = (
    "%c2%a0", "%e2%80%91", "%e2%80%93", "%e2%80%94",  # no-break space, no-break hyphen, en/em dash
    "&nbsp;", "&#8209;", "&#160;", "&ndash;", "&#8211;", "&mdash;", "&#8212;", "/",
)
_DROPPED = (
    "%c2%ad",  # soft hyphen
    "%c2%a1", "%c2%bf",  # inverted ! and ?
    "%c2%ab", "%c2%bb", "%e2%80%b9", "%e2%80%ba",  # angle quotes
    "%e2%80%98", "%e2%80%99", "%e2%80%9c", "%e2%80%9d", "%e2%80%9a", "%e2%80%9b", "%e2%80%9e", "%e2%80%9f",  # curly quotes
    "%e2%80%a2",  # bullet
    "%c2%a9", "%c2%ae", "%c2%b0", "%e2%80%a6", "%e2%84%a2",  # © ® ° … ™
    "%c2%b4", "%cb%8a", "%cc%81", "%cd%81",  # acute accents
    "%cc%80", "%cc%84", "%cc%8c",  # grave accent, macron, caron
    # zero-width and direction marks, byte order mark, object replacement character
    "%e2%80%8b", "%e2%80%8c", "%e2%80%8d", "%e2%80%8e", "%e2%80%8f",
    "%e2%80%aa", "%e2%80%ab", "%e2%80%ac", "%e2%80%ad", "%e2%80%ae", "%ef%bb%bf", "%ef%bf%bc",
)
_WIDE_SPACES = tuple(f"%e2%80%{code}" for code in ("80", "81", "82", "83", "84", "85", "86", "87", "88", "89", "8a", "a8", "a9", "af"))


def strip_tags(text: str) -> str:
    """Remove HTML tags, comments and processing instructions, keeping the text around them.

    A model of PHP's strip_tags state machine: a ``<`` followed by whitespace is text; inside a
    tag quotes hide ``>`` and each nested ``<`` needs its own ``>``; ``<!--`` runs to ``-->`` and
    ``<?`` to ``?>``; a tag left open swallows the rest of the text.
    """
    if "<" not in text:
        return text
    out: list[str] = []
    state = _TEXT
    depth = 0
    quote = ""
    last = len(text) - 1
    for index, char in enumerate(text):
        previous = text[index - 1] if index else ""
        if char == "<":
            if quote:
                continue
            if index < last and text[index + 1] in _PHP_SPACE:
                if state == _TEXT:
                    out.append(char)
            elif state == _TEXT:
                state = _TAG
            elif state == _TAG:
                depth += 1
        elif char == ">":
            if depth:
                depth -= 1
            elif quote:
                continue
            elif state in (_TAG, _DECLARATION) or (state == _INSTRUCTION and previous == "?"):
                state, quote = _TEXT, ""
            elif state == _COMMENT and text[index - 2 : index] == "--":
                state, quote = _TEXT, ""
            elif state == _TEXT:
                out.append(char)
        elif char in "\"'":
            if state == _TEXT:
                out.append(char)
            elif state != _COMMENT and (state == _TAG or previous != "\\") and (not quote or char == quote):
                quote = "" if quote else char
        elif state == _TEXT:
            out.append(char)
        elif char == "!" and state == _TAG and previous == "<":
            state = _DECLARATION
        elif char == "-" and state == _DECLARATION and text[index - 2 : index] == "!-":
            state = _COMMENT
        elif char == "?" and state == _TAG and previous == "<":
            state = _INSTRUCTION
    return "".join(out)


_TEXT, _TAG, _INSTRUCTION, _DECLARATION, _COMMENT = range(5)
_PHP_SPACE = frozenset(" \t\n\r\x0b\x0c")


def sanitize_title(title: str, fallback: str = "", *, locale: str = "") -> str:
    """The slug the reference saves for ``title`` (sanitize_title in its ``save`` context).

    Tags are stripped, accents transliterated, percent-encoded octets kept, the rest lower-cased
    and non-ASCII characters percent-encoded (at most 200 characters of them); entities and
    punctuation are removed; spaces, dots and slashes become dashes, runs of dashes collapse and
    dashes at either end are trimmed. An empty result gives ``fallback``.
    """
    title = str(title)
    slug = _known_slug(title, locale) if len(title) <= 64 else _title_to_slug(remove_accents(title, locale))
    return slug if slug else fallback


@lru_cache(maxsize=4096)
def _known_slug(title: str, locale: str) -> str:
    """Short titles' slugs, kept: listings sanitise the same status and slug names on every
    request (``status=publish``), and the work is pure."""
    return _title_to_slug(remove_accents(title, locale))


def _title_to_slug(title: str) -> str:
    text = strip_tags(title)
    # Keep escaped octets, drop every other percent sign.
    text = _OCTET.sub(r"---\1---", text).replace("%", "")
    text = _MARKED_OCTET.sub(r"%\1", text)
    if _is_valid_utf8(text):
        # "Σ" first: the reference lower-cases without the final-sigma rule of str.lower().
        text = utf8_uri_encode(text.replace("Σ", "σ").lower(), 200)
    text = _ascii_lower(text)
    if "%" in text or "&" in text:  # every sequence below but "/" holds one of them
        for sequence in _TO_DASH:
            text = text.replace(sequence, "-")
        for sequence in _DROPPED:
            text = text.replace(sequence, "")
        for sequence in _WIDE_SPACES:
            text = text.replace(sequence, "-")
        text = text.replace("%c3%97", "x")  # the multiplication sign
        text = _ENTITY.sub("", text)
    else:
        text = text.replace("/", "-")
    text = text.replace(".", "-")
    text = _NOT_SLUG.sub("", text)
    text = _SPACES.sub("-", text)
    return _DASHES.sub("-", text).strip("-")


def _ascii_lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


# -- uniqueness -----------------------------------------------------------------------------------


def truncate_slug(slug: str, length: int = 200) -> str:
    """Shorten ``slug`` to ``length`` characters without splitting an encoded character, then
    drop trailing dashes (the reference's _truncate_post_slug)."""
    if len(slug) > length:
        decoded = _percent_decode(slug)
        slug = slug[:length] if decoded == slug else utf8_uri_encode(decoded, length, encode_ascii=True)
    return slug.rstrip("-")


def _percent_decode(text: str) -> str:
    # PHP's urldecode: "+" is a space too.
    return unquote_plus(text, errors="surrogateescape")


def unique_slug(slug: str, exists: Callable[[str], bool], *, max_length: int | None = None) -> str:
    """``slug``, or ``slug-2``, ``slug-3``... : the first that ``exists`` reports free.

    With ``max_length`` the base is shortened (``truncate_slug``) so that base plus suffix fit,
    as content item slugs must stay within 200 characters.
    """
    if not exists(slug):
        return slug
    suffix = 2
    while True:
        base = slug if max_length is None else truncate_slug(slug, max_length - len(str(suffix)) - 1)
        candidate = f"{base}-{suffix}"
        if not exists(candidate):
            return candidate
        suffix += 1
