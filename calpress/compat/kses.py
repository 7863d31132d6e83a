"""WordPress's kses HTML filter: what authors without ``unfiltered_html`` may write.

Reproduces ``wp_kses_post`` (:func:`kses_post`) and ``wp_filter_kses`` (:func:`kses_title`) with the
reference's tables ($allowedposttags, $allowedtags, the allowed URL protocols and entities),
``safecss_filter_attr``, ``wp_kses_bad_protocol`` and ``wp_kses_normalize_entities``. Markup that
needs nothing removed is rewritten exactly as kses writes it; anything else goes through nh3 with the
same tables.
"""

from __future__ import annotations

import html as _html
import re

import nh3

from .php import PHP_TRIM, php_empty, php_trim

__all__ = [
    "ALLOWED_PROTOCOLS",
    "kses_bad_protocol",
    "kses_post",
    "kses_title",
]

# The reference's default list of URL schemes (wp_allowed_protocols), for kses and esc_url().
ALLOWED_PROTOCOLS: tuple[str, ...] = (
    "http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs", "gopher", "nntp",
    "feed", "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp", "webcal", "urn",
)

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

_ALLOWED_PROTOCOLS = frozenset(ALLOWED_PROTOCOLS)
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
    for item in css.strip(PHP_TRIM).split(";"):
        if item == "":
            continue
        item = item.strip(PHP_TRIM)
        test = item
        found = False
        url_attr = gradient_attr = False
        value = ""
        if ":" not in item:
            found = True
        else:
            prop, value = item.split(":", 1)
            prop = prop.strip(PHP_TRIM)
            if _CSS_CUSTOM_PROP_RE.match(prop):
                found = True
                v = value.strip(PHP_TRIM)
                url_attr = v.startswith("url(")
                gradient_attr = "-gradient(" in v
            elif prop in _SAFE_CSS:
                found = True
                url_attr = prop in _CSS_URL_PROPS
                gradient_attr = prop in _CSS_GRADIENT_PROPS
        if found and url_attr:
            for url_match in _CSS_URL_RE.findall(value):
                pieces = _CSS_URL_PIECES_RE.match(url_match)
                url = pieces.group(2).strip(PHP_TRIM) if pieces else ""
                if php_empty(url) or _bad_protocol(url) != url:
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
    rest = value[m.end() :].strip(PHP_TRIM)
    protocol = scheme + ":" if scheme in _ALLOWED_PROTOCOLS else ""
    if protocol == "feed:":
        if count > 2:
            return ""
        rest = _bad_protocol_once(rest, count + 1)
        if php_empty(rest):
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


# wp_kses_bad_protocol() as esc_url() calls it, with a protocol list. It differs from
# _bad_protocol() above in how the scheme's entities are decoded before the check: this one
# decodes only numeric entities, as wp_kses_decode_entities() does (chr() of the code modulo 256),
# where _bad_protocol() uses html.unescape() (named entities too, full code points). So
# "&#360;ttp://x" is "http://x" here but "//x" there, and "h&Tab;ttp://x" the other way round.
# The two came from the old rest/formats and content/rendering modules; they are kept apart
# because merging them would change the output of one caller for such input.
_DEC_ENTITY = re.compile(r"&#([0-9]+);")
_HEX_ENTITY = re.compile(r"&#[Xx]([0-9A-Fa-f]+);")
_ANY_WS = re.compile(r"\s")


def _scheme_if_allowed(scheme: str, allowed: frozenset[str]) -> str:
    """wp_kses_bad_protocol_once2: the normalised scheme plus ":" when allowed, else ""."""
    scheme = _DEC_ENTITY.sub(lambda m: chr(int(m.group(1)) % 256), scheme)
    scheme = _HEX_ENTITY.sub(lambda m: chr(int(m.group(1), 16) % 256), scheme)
    scheme = _kses_no_null(_ANY_WS.sub("", scheme)).lower()
    return scheme + ":" if scheme in allowed else ""


def _url_bad_protocol_once(content: str, allowed: frozenset[str], count: int = 1) -> str:
    content = _COLON_FIX_RE.sub(r"\1;", content)
    parts = _COLON_RE.split(content, maxsplit=1)
    if len(parts) == 2 and "/?" not in parts[0]:
        content = php_trim(parts[1])
        protocol = _scheme_if_allowed(parts[0], allowed)
        if protocol == "feed:":
            if count > 2:
                return ""
            content = _url_bad_protocol_once(content, allowed, count + 1)
            if content in ("", "0"):  # PHP empty()
                return content
        content = protocol + content
    return content


def kses_bad_protocol(content: str, allowed: frozenset[str]) -> str:
    """``wp_kses_bad_protocol($content, $allowed)`` for esc_url(): strip disallowed schemes
    repeatedly (at most 6 passes); "" when still changing."""
    content = _kses_no_null(content)
    if (content.startswith("https://") and "https" in allowed) or (
        content.startswith("http://") and "http" in allowed
    ):
        return content
    iterations = 0
    while True:
        original = content
        content = _url_bad_protocol_once(content, allowed)
        iterations += 1
        if original == content or iterations >= 6:
            break
    return "" if original != content else content


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


# An ampersand that does not already start an entity (the pattern wptexturize uses as well).
_LONE_AMP_RE = re.compile(r"&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)", re.I | re.A)
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
            if php_empty(recoded):
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


_NH3_CHECKED = frozenset({"href", "src"})  # the URI attributes nh3 checks against url_schemes
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
    return nh3.clean(text, clean_content_tags=set(), strip_comments=False, link_rel=None,
                     attribute_filter=_uri_attribute_filter, **options)


def _uri_attribute_filter(element: str, attribute: str, value: str) -> str | None:
    """The URI attributes of wp_kses_uri_attributes() that nh3 does not check itself (``cite``,
    ``longdesc``, ``usemap``...; it checks ``href`` and ``src`` against ``url_schemes``) lose a
    value with a scheme that is not allowed: the reference strips the scheme
    (wp_kses_bad_protocol); the attribute goes here, as nh3 drops a bad ``href``."""
    if attribute in _URI_ATTRS and attribute not in _NH3_CHECKED and _bad_protocol(value) != value:
        return None
    return value


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
