"""Other sites' oEmbed data (cms-api.md 4.2): a table of well-known providers, discovery of the
others, the request to a provider, and the HTML an answer may put on this site's pages.

Every request goes through the site's guarded client (:mod:`calpress.net`: public addresses only,
its time budget), with a size cap of its own here. As in the reference's WP_oEmbed:

* a URL matching a provider of :data:`PROVIDERS` is asked of that provider's endpoint; any other
  is fetched, when discovery is on, and the ``<link type="application/json+oembed">`` (or XML)
  of its head names the endpoint;
* the endpoint gets ``maxwidth``, ``maxheight``, ``url``, ``dnt=1`` and ``format=json``; a 501
  answer means "no JSON here", and XML is asked for instead;
* the answer's ``html`` is what the reference's data2html makes of it: a photo's image in a link,
  a link's title in a link, a video's or rich item's own HTML;
* HTML from a discovered provider is not trusted (:func:`filter_untrusted`): only a blockquote
  and one frame survive, the frame sandboxed to scripts and given a secret, as the reference's
  wp_filter_oembed_result does; without a frame there is no HTML (``False``). A table
  provider's HTML is passed on as it comes.

Written for calpress, unlike the reference: table patterns are anchored at the start of the URL
(the reference's match anywhere in it, so ``https://example.com/?https://vimeo.com/`` counts as
Vimeo); a frame must have an absolute http(s) address; a discovered endpoint may be relative to
the page; XML answers with a DOCTYPE are refused (no entity expansion); answers over
:data:`MAX_BYTES` are failures.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit
from xml.etree import ElementTree

import nh3
import orjson

from .. import net
from ..compat.formatting import esc_html, esc_url_raw
from .local import new_secret

MAX_BYTES = 1024 * 1024  # a provider's answer, and a page read for discovery
# wp_embed_defaults without a theme's content width: 500 wide, so at most 750 high.
DEFAULT_MAX_HEIGHT = 750
_LINK_TYPES = {"application/json+oembed": "json", "text/xml+oembed": "xml", "application/xml+oembed": "xml"}


@dataclass(frozen=True)
class Provider:
    """A well-known oEmbed provider: the URLs it answers for (regular expressions, matched from the
    start, case-insensitively) and its endpoint (``{format}`` stands for ``json``)."""

    name: str
    patterns: tuple[str, ...]
    endpoint: str
    _compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def matches(self, url: str) -> bool:
        return any(pattern.match(url) for pattern in self._compiled)


# A handful of the providers the reference trusts (its class-wp-oembed.php lists about ninety).
PROVIDERS: tuple[Provider, ...] = (
    Provider(
        "YouTube",
        (r"https?://((m|www)\.)?youtube\.com/(watch|playlist|shorts/|live/)", r"https?://youtu\.be/"),
        "https://www.youtube.com/oembed",
    ),
    Provider("Vimeo", (r"https?://([a-z0-9-]+\.)?vimeo\.com/",), "https://vimeo.com/api/oembed.{format}"),
    Provider("Flickr", (r"https?://(www\.)?flickr\.com/", r"https?://flic\.kr/"), "https://www.flickr.com/services/oembed/"),
    Provider("SoundCloud", (r"https?://(www\.)?soundcloud\.com/",), "https://soundcloud.com/oembed"),
    Provider("Spotify", (r"https?://(open|play)\.spotify\.com/",), "https://open.spotify.com/oembed"),
    Provider("X", (r"https?://(www\.)?(twitter|x)\.com/\w{1,15}/status(es)?/",), "https://publish.twitter.com/oembed"),
    Provider("TED", (r"https?://(www\.|embed\.)?ted\.com/talks/",), "https://www.ted.com/services/v1/oembed.{format}"),
    Provider("Dailymotion", (r"https?://(www\.)?dailymotion\.com/", r"https?://dai\.ly/"), "https://www.dailymotion.com/services/oembed"),
)


def find_provider(url: str, providers: Iterable[Provider] = PROVIDERS) -> Provider | None:
    """The first provider of the table whose patterns match ``url``."""
    return next((provider for provider in providers if provider.matches(url)), None)


def with_query(url: str, args: Mapping[str, Any]) -> str:
    """``url`` with ``args`` set in its query string (replacing the same names), as add_query_arg."""
    parts = urlsplit(url)
    kept = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key not in args]
    query = urlencode([*kept, *((key, str(value)) for key, value in args.items())])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


# -- discovery ------------------------------------------------------------------------------------


class _OEmbedLinks(HTMLParser):
    """The oEmbed endpoints named by ``<link>`` tags: the first JSON one, else the first XML one."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "link":
            return
        values = {name: (value or "") for name, value in attrs}
        kind = _LINK_TYPES.get(values.get("type", "").strip().lower())
        href = values.get("href", "").strip()
        if kind and href:
            self.found.setdefault(kind, href)

    handle_startendtag = handle_starttag


def discover(client: net.Client, url: str, *, max_bytes: int = MAX_BYTES) -> str | None:
    """The oEmbed endpoint the page at ``url`` names in its head, or None (WP_oEmbed::discover)."""
    try:
        page = client.get(url, max_bytes=max_bytes, headers={"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"})
    except net.OutboundError:
        return None
    if not 200 <= page.status < 300 or not page.content:
        return None
    text = page.content.decode("utf-8", errors="replace")
    end = text.lower().find("</head>")
    if end > 0:
        text = text[:end]
    if not any(kind in text.lower() for kind in _LINK_TYPES):
        return None
    finder = _OEmbedLinks()
    try:
        finder.feed(text)
        finder.close()
    except AssertionError:  # html.parser gives up on some malformed declarations
        pass
    href = finder.found.get("json") or finder.found.get("xml")
    if not href:
        return None
    endpoint = urljoin(page.url, href)
    return endpoint if urlsplit(endpoint).scheme in ("http", "https") else None


# -- asking a provider ----------------------------------------------------------------------------


def _parse_json(body: bytes) -> dict[str, Any] | None:
    try:
        found = orjson.loads(body.strip())
    except orjson.JSONDecodeError:
        return None
    return found if isinstance(found, dict) else None


def _parse_xml(body: bytes) -> dict[str, Any] | None:
    lowered = body[:4096].lower()
    if b"<!doctype" in lowered or b"<!entity" in body.lower():
        return None
    try:
        root = ElementTree.fromstring(body.strip())
    except ElementTree.ParseError:
        return None
    found = {child.tag: child.text or "" for child in root if isinstance(child.tag, str)}
    return found or None


def fetch(
    client: net.Client, endpoint: str, url: str, *, width: int, height: int, max_bytes: int = MAX_BYTES
) -> dict[str, Any] | None:
    """The provider's data for ``url`` (WP_oEmbed::fetch): JSON, or XML when the provider
    answers 501 to JSON; None when it fails, refuses or answers something else."""
    asked = with_query(endpoint.replace("{format}", "json"), {"maxwidth": int(width), "maxheight": int(height), "url": url, "dnt": 1})
    for kind in ("json", "xml"):
        try:
            answer = client.get(with_query(asked, {"format": kind}), max_bytes=max_bytes)
        except net.OutboundError:
            return None
        if answer.status == 501:
            continue
        if not 200 <= answer.status < 300 or not answer.content:
            return None
        return _parse_json(answer.content) if kind == "json" else _parse_xml(answer.content)
    return None


# -- the HTML of an answer ------------------------------------------------------------------------


def _esc_url(url: Any) -> str:
    return esc_html(esc_url_raw(url, ("http", "https"))).replace("&amp;", "&#038;") if isinstance(url, str) else ""


def _numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def data_html(data: Mapping[str, Any], url: str) -> str | bool:
    """The HTML an answer stands for (WP_oEmbed::data2html), or False."""
    kind = data.get("type")
    title = data.get("title")
    if kind == "photo":
        source, width, height = data.get("url"), data.get("width"), data.get("height")
        if not (isinstance(source, str) and source and width and height and _numeric(width) and _numeric(height)):
            return False
        alt = esc_html(title) if isinstance(title, str) else ""
        return (
            f'<a href="{_esc_url(url)}"><img src="{_esc_url(source)}" alt="{alt}" '
            f'width="{esc_html(str(width))}" height="{esc_html(str(height))}" /></a>'
        )
    if kind in ("video", "rich"):
        found = data.get("html")
        return found if isinstance(found, str) and found else False
    if kind == "link":
        return f'<a href="{_esc_url(url)}">{esc_html(title)}</a>' if isinstance(title, str) and title else False
    return False


_FRAME_ATTRIBUTES = {"src", "width", "height", "frameborder", "marginwidth", "marginheight", "scrolling", "title"}
_FRAME_TEXT = re.compile(r"(<iframe\b[^>]*>).*?</iframe>", re.IGNORECASE | re.DOTALL)
_QUOTE_AND_FRAME = re.compile(r"(<blockquote>.*?</blockquote>)?.*(<iframe.*?></iframe>)", re.DOTALL)
_SOURCE = re.compile(r""" src=(['"])(.*?)\1""")


def filter_untrusted(markup: str) -> str | bool:
    """What may be shown of an untrusted provider's HTML (wp_filter_oembed_result): links and
    blockquotes without attributes and the last frame, which must have an http(s) address; the
    frame is sandboxed (scripts only, no same origin, no navigation) and gets a fresh secret,
    shared with the blockquote, for the host script's handshake. False when no frame is left."""
    cleaned = nh3.clean(
        markup,
        tags={"a", "blockquote", "iframe"},
        attributes={"a": {"href"}, "iframe": _FRAME_ATTRIBUTES},
        url_schemes={"http", "https"},
        link_rel=None,
        strip_comments=True,
    )
    cleaned = _FRAME_TEXT.sub(r"\1</iframe>", cleaned)
    found = _QUOTE_AND_FRAME.search(cleaned)
    if found is None or not found.group(2):
        return False
    quote, frame = found.group(1) or "", found.group(2)
    source = _SOURCE.search(frame)
    address = html.unescape(source.group(2)) if source else ""
    if not re.match(r"https?://[^/\s]", address, re.IGNORECASE):
        return False
    secret = new_secret()
    frame = frame.replace(source.group(0), f' src="{_esc_url(address + "#?secret=" + secret)}" data-secret="{secret}"', 1)  # type: ignore[union-attr]
    if quote:
        quote = quote.replace("<blockquote", f'<blockquote class="wp-embedded-content" data-secret="{secret}"', 1)
        frame = frame.replace("<iframe", '<iframe style="position: absolute; visibility: hidden;"', 1)
    frame = frame.replace("<iframe", '<iframe class="wp-embedded-content" sandbox="allow-scripts" security="restricted"', 1)
    return quote + frame


def provider_answer(
    client: net.Client,
    url: str,
    *,
    width: int,
    height: int | None,
    discover_pages: bool,
    providers: Sequence[Provider] = PROVIDERS,
    max_bytes: int = MAX_BYTES,
) -> dict[str, Any] | None:
    """The data of ``url`` from its provider with its ``html`` made safe to show, or None when no
    provider is known (discovery off, or nothing discovered) or the provider fails."""
    provider = find_provider(url, providers)
    endpoint = provider.endpoint if provider is not None else (discover(client, url, max_bytes=max_bytes) if discover_pages else None)
    if endpoint is None:
        return None
    data = fetch(client, endpoint, url, width=width, height=height or DEFAULT_MAX_HEIGHT, max_bytes=max_bytes)
    if data is None:
        return None
    markup = data_html(data, url)
    if provider is None and isinstance(markup, str) and data.get("type") in ("rich", "video"):
        markup = filter_untrusted(markup)
    data["html"] = markup
    return data
