"""WordPress's formatting functions, as the reference's PHP runs them.

``sanitize_text_field`` / ``sanitize_textarea_field``, ``esc_html``, ``esc_url_raw``,
``is_email``, ``wp_is_uuid``, the ``%l`` list of ``wp_sprintf``, ``convert_chars``,
``capital_P_dangit``, ``wp_strip_all_tags`` and ``wp_trim_words``. The reference runs
byte-oriented PHP regular expressions; where that matters (ASCII-only character classes, ``$``
also matching before a final newline) the quirks are kept on purpose and called out in comments.
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterable
from typing import Any

from .kses import ALLOWED_PROTOCOLS, kses_bad_protocol
from .php import PHP_TRIM, php_trim, to_php_string

__all__ = [
    "capital_p_dangit",
    "convert_chars",
    "english_list",
    "esc_html",
    "esc_url_raw",
    "is_email",
    "is_safe_url",
    "is_uuid",
    "sanitize_text_field",
    "sanitize_textarea_field",
    "safe_url",
    "strip_all_tags",
    "trim_words",
]

_ALLOWED_PROTOCOLS_SET = frozenset(ALLOWED_PROTOCOLS)


def english_list(items: Iterable[Any]) -> str:
    """Join items the way the reference's ``%l`` placeholder does: "a", "a and b", "a, b, and c"."""
    parts = [item if isinstance(item, str) else (to_php_string(item) or "") for item in items]
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return f"{parts[0]} and {parts[1]}"
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


# --------------------------------------------------------------------------- text fields

_SCRIPT_STYLE = re.compile(r"<(script|style)[^>]*?>.*?</\1>", re.I | re.S)
# A "<" whose tag never closes before the next "<" or the end. `$` deliberately also matches
# before a final newline, as in PCRE without the D modifier.
_LONE_LT = re.compile(r"<[^>]*?((?=<)|>|$)")
_WS_RUN = re.compile(r"[\r\n\t ]+")
_OCTET = re.compile(r"%[a-f0-9]{2}", re.I)
_SPACES = re.compile(r" +")
_ENTITY_AT = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def _esc_html_fragment(text: str) -> str:
    """esc_html() for a fragment: encode & < > " ' without double-encoding existing entities."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "&":
            m = _ENTITY_AT.match(text, i)
            if m:
                out.append(m.group(0))
                i = m.end()
                continue
            out.append("&amp;")
        elif c == "<":
            out.append("&lt;")
        elif c == ">":
            out.append("&gt;")
        elif c == '"':
            out.append("&quot;")
        elif c == "'":
            out.append("&#039;")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def esc_html(text: str) -> str:
    """The reference's esc_html: invalid UTF-8 dropped, ``& < > " '`` encoded, existing entities kept."""
    return _esc_html_fragment(_check_invalid_utf8(text))


def _pre_kses_less_than(text: str) -> str:
    """Encode every "<" that does not start a closed tag (wp_pre_kses_less_than)."""
    return _LONE_LT.sub(lambda m: m.group(0) if ">" in m.group(0) else _esc_html_fragment(m.group(0)), text)


def _strip_tags(text: str) -> str:
    """A close model of PHP's ``strip_tags()`` state machine (no allowed tags).

    States: 0 text, 1 tag, 2 ``<?`` processing instruction, 3 ``<!`` declaration,
    4 ``<!--`` comment. Quotes inside a tag hide ``>``; nested ``<`` inside a tag is counted.
    """
    out: list[str] = []
    state = 0
    depth = 0
    in_q = ""
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        prev = text[i - 1] if i else ""
        if c == "<":
            if in_q:
                pass
            elif i + 1 < n and text[i + 1] in " \t\n\r\x0b\x0c":
                if state == 0:
                    out.append(c)
            elif state == 0:
                state = 1
            elif state == 1:
                depth += 1
        elif c == ">":
            if depth:
                depth -= 1
            elif in_q:
                pass
            elif state == 1:
                state = 0
                in_q = ""
            elif state == 2:
                if prev == "?":
                    state = 0
                    in_q = ""
            elif state == 3:
                state = 0
                in_q = ""
            elif state == 4:
                if i >= 2 and text[i - 1] == "-" and text[i - 2] == "-":
                    state = 0
                    in_q = ""
            else:
                out.append(c)
        elif c in "\"'":
            if state == 4:
                pass
            elif state == 0:
                out.append(c)
            if state and state != 4 and (state == 1 or prev != "\\") and (not in_q or c == in_q):
                in_q = "" if in_q else c
        elif c == "!":
            if state == 1 and prev == "<":
                state = 3
            elif state == 0:
                out.append(c)
        elif c == "-":
            if state == 3 and i >= 2 and text[i - 1] == "-" and text[i - 2] == "!":
                state = 4
            elif state == 0:
                out.append(c)
        elif c == "?":
            if state == 1 and prev == "<":
                state = 2
            elif state == 0:
                out.append(c)
        elif state == 0:
            out.append(c)
        i += 1
    return "".join(out)


def _check_invalid_utf8(text: str) -> str:
    """wp_check_invalid_utf8(): text that cannot be UTF-8 (lone surrogates) becomes ""."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return ""
    return text


def _sanitize_text(value: Any, keep_newlines: bool) -> str:
    if isinstance(value, str):
        text = value
    else:
        converted = to_php_string(value)
        if converted is None:  # arrays and objects sanitise to ""
            return ""
        text = converted
    filtered = _check_invalid_utf8(text)
    if "<" in filtered:
        filtered = _pre_kses_less_than(filtered)
        filtered = php_trim(_strip_tags(_SCRIPT_STYLE.sub("", filtered)))
        # An entity keeps a later newline-collapsing step from forming a working tag.
        filtered = filtered.replace("<\n", "&lt;\n")
    if not keep_newlines:
        filtered = _WS_RUN.sub(" ", filtered)
    filtered = php_trim(filtered)
    # Percent-encoded octets are removed until none is left (removal can form new ones).
    found = False
    while True:
        m = _OCTET.search(filtered)
        if m is None:
            break
        filtered = filtered.replace(m.group(0), "")
        found = True
    if found:
        filtered = php_trim(_SPACES.sub(" ", filtered))
    return filtered


def sanitize_text_field(s: Any) -> str:
    """Strip tags, remove line breaks/tabs/extra whitespace and percent-encoded octets, trim."""
    return _sanitize_text(s, False)


def sanitize_textarea_field(s: Any) -> str:
    """Like :func:`sanitize_text_field` but keeps newlines and inner whitespace."""
    return _sanitize_text(s, True)


# --------------------------------------------------------------------------- e-mail

# The reference's regexes are byte-oriented and ASCII-only; re.ASCII keeps Python's
# case-insensitive matching from accepting look-alikes such as the Kelvin sign.
_EMAIL_LOCAL = re.compile(r"^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$", re.ASCII)
_EMAIL_SUB = re.compile(r"^[a-z0-9-]+$", re.I | re.ASCII)
_DOTS = re.compile(r"\.{2,}")


def is_email(s: Any) -> bool:
    """The reference's (deliberately non-RFC) e-mail check: local part charset, dotted LDH domain."""
    if not isinstance(s, str):
        return False
    if len(s.encode("utf-8", "surrogatepass")) < 6:
        return False
    if s.find("@", 1) == -1:
        return False
    local, domain = s.split("@", 1)
    if not _EMAIL_LOCAL.match(local):
        return False
    if _DOTS.search(domain):
        return False
    if php_trim(domain, PHP_TRIM + ".") != domain:
        return False
    subs = domain.split(".")
    if len(subs) < 2:
        return False
    for sub in subs:
        if php_trim(sub, PHP_TRIM + "-") != sub:
            return False
        if not _EMAIL_SUB.match(sub):
            return False
    return True


# --------------------------------------------------------------------------- URLs

# Everything esc_url() keeps; any other ASCII character is dropped. Bytes 0x80-0xff are kept
# by the byte-oriented reference, i.e. every non-ASCII character survives.
_URL_DROP = re.compile(r"[^a-zA-Z0-9\-~+_.?#=!&;,/:%@$|*'()\[\]\x80-\U0010ffff]")
_PHP_FILE = re.compile(r"^[a-z0-9-]+?\.php", re.I | re.ASCII)
_NEWLINE_OCTETS = ("%0d", "%0a", "%0D", "%0A")


def _url_front(url: str) -> str:
    """scheme://user:pass@host:port as PHP's parse_url would give it back ('' when unparsable)."""
    m = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", url)
    scheme = m.group(1) if m else ""
    rest = url[m.end():] if m else url
    front = f"{scheme}://" if scheme else ("//" if url.startswith("/") else "")
    if rest.startswith("//"):
        authority = re.match(r"//([^/?#]*)", rest)
        front += authority.group(1) if authority else ""
    return front


def esc_url_raw(url: Any, protocols: Iterable[str] | None = None) -> str:
    """Clean a URL for storage: drop invalid characters, add ``http://`` when schemeless,
    percent-encode brackets after the authority and return "" for disallowed schemes."""
    if url is None:
        return ""
    if not isinstance(url, str):
        converted = to_php_string(url)
        if converted is None:
            return ""
        url = converted
    if url == "":
        return url
    url = url.lstrip(PHP_TRIM).replace(" ", "%20")
    url = _URL_DROP.sub("", url)
    if url == "":
        return url
    if not url.lower().startswith("mailto:"):
        # Deep replace: removal can join "%0" and "d" into a new "%0d".
        while True:
            before = url
            for octet in _NEWLINE_OCTETS:
                url = url.replace(octet, "")
            if url == before:
                break
    url = url.replace(";//", "://")
    if ":" not in url and url[0] not in "/#?" and not _PHP_FILE.match(url):
        url = "http://" + url
    if "[" in url or "]" in url:
        front = _url_front(url)
        end_dirty = url.replace(front, "") if front else url
        end_clean = end_dirty.replace("[", "%5B").replace("]", "%5D")
        url = url.replace(end_dirty, end_clean) if end_dirty else url
    if url[0] == "/":
        return url
    allowed = _ALLOWED_PROTOCOLS_SET if protocols is None else frozenset(p.lower() for p in protocols)
    good = kses_bad_protocol(url, allowed)
    if good.lower() != url.lower():
        return ""
    return good


# What a browser ignores in a URL before it reads the scheme: ASCII controls and spaces (the URL
# standard strips them around the address and removes tabs and newlines anywhere in it).
_BROWSER_IGNORED = re.compile(r"[\x00-\x20\x7f]")
_LEADING_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


def is_safe_url(url: Any, protocols: Iterable[str] | None = None) -> bool:
    """Whether a stored URL may be printed as a link (``href``, JSON-LD, REST): empty, or a URL
    whose scheme is one of ``wp_allowed_protocols()`` (or ``protocols``) both as the reference's
    ``esc_url()`` reads it (control characters and whitespace dropped, numeric entities in the
    scheme decoded: "" for ``javascript:``, ``data:``, ``vbscript:``...) and as a browser would
    once the value sits in an HTML attribute (character references decoded, tabs, newlines and
    other controls ignored), so ``javascript&#58;x`` and ``java&Tab;script:x`` are refused too."""
    if url is None or url == "":
        return True
    if not isinstance(url, str):
        return False
    if esc_url_raw(url, protocols) == "":
        return False
    allowed = _ALLOWED_PROTOCOLS_SET if protocols is None else frozenset(p.lower() for p in protocols)
    seen = url
    for _ in range(4):  # entities inside entities ("&amp;#58;"), as far as anyone would nest them
        decoded = _html.unescape(seen)
        if decoded == seen:
            break
        seen = decoded
    scheme = _LEADING_SCHEME.match(_BROWSER_IGNORED.sub("", seen))
    return scheme is None or scheme.group(1).lower() in allowed


def safe_url(url: Any) -> str:
    """A stored URL as output shows it: unchanged when :func:`is_safe_url`, else "" (what the
    reference's ``esc_url()`` prints for a disallowed protocol)."""
    if url is None:
        return ""
    text = url if isinstance(url, str) else str(url)
    return text if is_safe_url(text) else ""


# --------------------------------------------------------------------------- UUID

# Lower-case hex only, as the reference; `$` also accepts one trailing newline (PCRE default).
_UUID_ANY = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def is_uuid(s: Any, version: int | str | None = None) -> bool:
    """wp_is_uuid: lower-case 8-4-4-4-12 hex; with ``version`` only 4 is supported (else False)."""
    if not isinstance(s, str):
        return False
    if version is not None:
        try:
            if int(float(version)) != 4:
                return False
        except (TypeError, ValueError):
            return bool(_UUID_ANY.match(s))  # a non-numeric version is ignored, as is_numeric() fails
        return bool(_UUID_V4.match(s))
    return bool(_UUID_ANY.match(s))


# --------------------------------------------------------------------------- tags, words and characters

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
    ("&#8220;Wordpress", "&#8220;WordPress"),
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


# wp_strip_all_tags() has its own model of PHP's strip_tags() (with a fast path for well-formed
# markup), separate from _strip_tags() above, which sanitize_text_field uses. The two disagree on
# some malformed markup (such as "<<?> " or '<!"> '), so they are kept apart: merging them would
# change what one of their callers returns.
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
        text = _SCRIPT_STYLE.sub("", text)
    text = _php_strip_tags(text)
    if remove_breaks:
        text = re.sub(r"[\r\n\t ]+", " ", text)
    return text.strip(PHP_TRIM)


_WORD_SPLIT_RE = re.compile(r"[\n\r\t ]+")


def trim_words(text: str, num_words: int = 55, more: str = "&hellip;") -> str:
    """``wp_trim_words``: strip tags, keep the first ``num_words`` words (split on ASCII blanks
    only), join them with single spaces and append ``more`` when something was cut."""
    text = strip_all_tags(text)
    words = [w for w in _WORD_SPLIT_RE.split(text) if w]
    if len(words) > num_words:
        return " ".join(words[: max(num_words, 0)]) + more
    return " ".join(words)
