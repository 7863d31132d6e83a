"""String formats and sanitisers shared by the schema engine and the controllers.

These reproduce the observable behaviour of the reference CMS's formatting helpers
(``sanitize_text_field``, ``is_email``, ``esc_url_raw``, ``wp_is_uuid``, the REST date
parser, ...). The reference runs byte-oriented PHP regular expressions; where that matters
(ASCII-only character classes, ``$`` also matching before a final newline) the quirks are
kept on purpose and called out in comments.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from ..compat.php import PHP_TRIM, php_trim, to_php_string

__all__ = [
    "ALLOWED_PROTOCOLS",
    "english_list",
    "esc_html",
    "esc_url_raw",
    "is_email",
    "is_hex_color",
    "is_ip",
    "is_rest_date",
    "is_uuid",
    "parse_rest_date",
    "sanitize_hex_color",
    "sanitize_text_field",
    "sanitize_textarea_field",
]

# The reference's default list of URL schemes accepted by esc_url().
ALLOWED_PROTOCOLS: tuple[str, ...] = (
    "http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs", "gopher", "nntp",
    "feed", "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp", "webcal", "urn",
)
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
_COLON_ENTITY_FIX = re.compile(r"(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))", re.I)
_COLON_SPLIT = re.compile(r":|&#0*58;|&#x0*3a;|&colon;", re.I)
_DEC_ENTITY = re.compile(r"&#([0-9]+);")
_HEX_ENTITY = re.compile(r"&#[Xx]([0-9A-Fa-f]+);")
_NULLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_SLASH_ZERO = re.compile(r"\\+0+")
_ANY_WS = re.compile(r"\s")
_NEWLINE_OCTETS = ("%0d", "%0a", "%0D", "%0A")


def _kses_no_null(s: str) -> str:
    return _SLASH_ZERO.sub("", _NULLS.sub("", s))


def _scheme_if_allowed(scheme: str, allowed: frozenset[str]) -> str:
    """wp_kses_bad_protocol_once2: the normalised scheme plus ":" when allowed, else ""."""
    scheme = _DEC_ENTITY.sub(lambda m: chr(int(m.group(1)) % 256), scheme)
    scheme = _HEX_ENTITY.sub(lambda m: chr(int(m.group(1), 16) % 256), scheme)
    scheme = _kses_no_null(_ANY_WS.sub("", scheme)).lower()
    return scheme + ":" if scheme in allowed else ""


def _bad_protocol_once(content: str, allowed: frozenset[str], count: int = 1) -> str:
    content = _COLON_ENTITY_FIX.sub(r"\1;", content)
    parts = _COLON_SPLIT.split(content, maxsplit=1)
    if len(parts) == 2 and "/?" not in parts[0]:
        content = php_trim(parts[1])
        protocol = _scheme_if_allowed(parts[0], allowed)
        if protocol == "feed:":
            if count > 2:
                return ""
            content = _bad_protocol_once(content, allowed, count + 1)
            if content in ("", "0"):  # PHP empty()
                return content
        content = protocol + content
    return content


def _kses_bad_protocol(content: str, allowed: frozenset[str]) -> str:
    """Strip disallowed schemes repeatedly (at most 6 passes); "" when still changing."""
    content = _kses_no_null(content)
    if (content.startswith("https://") and "https" in allowed) or (
        content.startswith("http://") and "http" in allowed
    ):
        return content
    iterations = 0
    while True:
        original = content
        content = _bad_protocol_once(content, allowed)
        iterations += 1
        if original == content or iterations >= 6:
            break
    return "" if original != content else content


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
    good = _kses_bad_protocol(url, allowed)
    if good.lower() != url.lower():
        return ""
    return good


# --------------------------------------------------------------------------- UUID, IP, colours

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


_IPV4 = re.compile(
    r"^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)$",
    re.ASCII,
)


def is_ip(s: Any) -> bool:
    """IPv4 dotted quad (leading zeros allowed, as the reference's regex) or an IPv6 address."""
    if not isinstance(s, str):
        return False
    if _IPV4.match(s):
        return True
    if "%" in s or "/" in s or not s.isascii():
        return False  # zone ids and prefixes are not addresses to the reference
    try:
        ipaddress.IPv6Address(s)
    except ValueError:
        return False
    return True


_HEX_COLOR = re.compile(r"^#([A-Fa-f0-9]{3}){1,2}$")


def is_hex_color(s: Any) -> bool:
    """``#rgb`` or ``#rrggbb`` (rest_parse_hex_color)."""
    return isinstance(s, str) and _HEX_COLOR.match(s) is not None


def sanitize_hex_color(s: Any) -> str | None:
    """``#rgb``/``#rrggbb`` unchanged, "" for "", None for anything else."""
    if s == "":
        return ""
    if isinstance(s, str) and _HEX_COLOR.match(s):
        return s
    return None


# --------------------------------------------------------------------------- dates

_REST_DATE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2})(?::(\d{2}))?)?$",
    re.ASCII,
)


def _date_parts(s: Any) -> tuple[int, ...] | None:
    """The numeric fields of an RFC 3339 date the reference accepts, or None.

    Returns (year, month, day, hour, minute, second, micro, has_tz, offset_seconds). Field
    ranges follow PHP's date parser: month 0-12 and day 0-31 (overflowing into neighbouring
    months), hour 0-24, minute 0-59, second 0-60.
    """
    if not isinstance(s, str):
        return None
    m = _REST_DATE.match(s)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if month > 12 or day > 31 or hour > 24 or minute > 59 or second > 60:
        return None
    frac = m.group(7) or ""
    micro = int((frac + "000000")[:6]) if frac else 0
    has_tz = 0
    offset = 0
    if m.group(8):
        has_tz = 1
    elif m.group(9):
        has_tz = 1
        oh = int(m.group(10))
        om = int(m.group(11) or 0)
        if oh > 24 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (-1 if m.group(9) == "-" else 1)
    return (year, month, day, hour, minute, second, micro, has_tz, offset)


def _build_datetime(parts: tuple[int, ...]) -> datetime | None:
    year, month, day, hour, minute, second, micro, has_tz, offset = parts
    # Normalise month 0 / day 0 / hour 24 / second 60 by overflow, as PHP does.
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    try:
        base = datetime(year, month, 1)
        value = base + timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second, microseconds=micro)
    except (ValueError, OverflowError):
        return None
    if has_tz:
        value = value.replace(tzinfo=timezone(timedelta(seconds=offset)))
    return value


def parse_rest_date(s: Any) -> datetime | None:
    """Parse ``YYYY-MM-DD[Tt ]HH:MM:SS[.frac][Z|±HH[:MM]]``.

    Returns an aware datetime when the string carries a zone, a naive one otherwise (the
    reference then reads it in the site's zone), and None when the string is not such a date
    or falls outside Python's datetime range (years 1-9999).
    """
    parts = _date_parts(s)
    if parts is None:
        return None
    return _build_datetime(parts)


def is_rest_date(s: Any) -> bool:
    """Whether the ``date-time`` format accepts ``s``.

    Compatibility quirk: the reference tests the parsed Unix timestamp for truthiness, so the
    instant 1970-01-01T00:00:00 UTC (timestamp 0, fraction ignored) is rejected. A date without
    zone is read as UTC here (the reference's PHP default zone).
    """
    parts = _date_parts(s)
    if parts is None:
        return False
    value = _build_datetime(parts)
    if value is None:
        return True  # year 0 or past 9999: PHP still yields a non-zero timestamp
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp()) != 0
