"""``/oembed/1.0/embed`` and ``/oembed/1.0/proxy`` (cms-api.md 4): this site's items as oEmbed
resources, and the proxy editors embed other sites through. The rules live in
:mod:`calpress.embed`; this module reads the arguments, checks the proxy's permission and
writes the answer (JSON, or the XML document of ``format=xml``).

The embed route answers anyone and is never kept in the engine's answer cache: every answer
carries a fresh secret for its frame. Its data is kept here instead, per address and width while
the stored content is unchanged, and each answer gets its secret when it is sent.
"""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Mapping
from typing import Any

from ..compat.php import php_int, php_str
from ..content import items as item_service
from ..embed import DEFAULT_WIDTH, Proxy, item_for_url, response_data
from ..embed.local import new_secret
from ..rest.cache import GenerationCache
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .base import Api
from .scope import context_of

ANSWER_CACHE_BYTES = 8 * 1024 * 1024
URL_DESCRIPTION = "The URL of the resource for which to fetch oEmbed data."
XML_CONTENT_TYPE = "text/xml; charset=UTF-8"


def _absint(value: Any, request: RestRequest, name: str) -> int:
    return abs(php_int(value))


def _accept(value: Any, request: RestRequest, name: str) -> bool:
    return True


def _ensure_format(value: Any, request: RestRequest, name: str) -> str:
    """wp_oembed_ensure_format: ``xml``, or else ``json`` (never an error)."""
    return "xml" if value == "xml" else "json"


def _url_arg() -> dict[str, Any]:
    return {"description": URL_DESCRIPTION, "required": True, "type": "string", "format": "uri"}


def embed_args() -> dict[str, dict[str, Any]]:
    # maxwidth has no type, as in the reference: absint alone reads it ("400px" is 400).
    return {
        "url": _url_arg(),
        "format": {"default": "json", "sanitize": _ensure_format},
        "maxwidth": {"default": DEFAULT_WIDTH, "sanitize": _absint},
    }


def proxy_args() -> dict[str, dict[str, Any]]:
    # The sizes declare a type but are only read by absint (the reference's sanitize callback
    # replaces its type check): "abc" is 0, not an error.
    return {
        "url": _url_arg(),
        "format": {"description": "The oEmbed format to use.", "type": "string", "default": "json", "enum": ["json", "xml"]},
        "maxwidth": {"description": "The maximum width of the embed frame in pixels.", "type": "integer",
                     "default": DEFAULT_WIDTH, "validate": _accept, "sanitize": _absint},
        "maxheight": {"description": "The maximum height of the embed frame in pixels.", "type": "integer",
                      "validate": _accept, "sanitize": _absint},
        "discover": {"description": "Whether to perform an oEmbed discovery request for unsanctioned providers.",
                     "type": "boolean", "default": True},
    }


def not_found() -> RestError:
    return RestError("oembed_invalid_url", "Not Found", status=404)


class OEmbedRoutes:
    """The two routes' handlers, over one site and its proxy (``proxy`` holds the provider table
    and the proxy's answer cache)."""

    def __init__(self, api: Api) -> None:
        self.site = api.site
        self.proxy = Proxy(api.site)
        self.answers = GenerationCache(ANSWER_CACHE_BYTES)
        # Stands for the secret in kept answers: letters and digits, as a secret, so that it
        # passes the escaping of the HTML unchanged; random, so that no text can hold it.
        self._slot = secrets.token_hex(5)

    def routes(self) -> list[Route]:
        return [
            Route("oembed", "/embed", [Endpoint(("GET",), self.embed, args=embed_args())], name="oembed.embed"),
            Route(
                "oembed",
                "/proxy",
                [Endpoint(("GET",), self.proxy_item, self.proxy_permission, args=proxy_args())],
                name="oembed.proxy",
            ),
        ]

    def embed(self, request: RestRequest) -> Any:
        ctx = context_of(request)
        url = str(request.get_param("url") or "")
        width = int(request.get_param("maxwidth") or 0)
        # The answer of an item is kept while the stored content is unchanged (the engine's
        # content generation, which also publishes what is due), with a slot where each answer
        # gets its own fresh secret.
        engine = request.engine
        generation = engine.generation(request) if engine is not None and engine.generation is not None else None
        if generation is None:
            item_service.publish_due_items(self.site)
        key = (ctx.home, url, width)
        data = self.answers.get(key, generation) if generation is not None else None
        if data is None:
            with self.site.read() as conn:
                item = item_for_url(conn, ctx, url)
                data = response_data(conn, ctx, item, width, secret=self._slot) if item is not None else None
            if data is None:
                raise not_found()
            if generation is not None:
                self.answers.put(key, generation, data, len(repr(data)))
        secret = new_secret()
        data = {key: value.replace(self._slot, secret) if isinstance(value, str) else value for key, value in data.items()}
        # Only a GET is answered in XML: the reference rewrites the served body, which a HEAD has not.
        if request.get_param("format") == "xml" and request.method == "GET":
            return RestResponse(raw=oembed_xml(data), content_type=XML_CONTENT_TYPE)
        return data

    def proxy_permission(self, request: RestRequest) -> bool | RestError:
        if context_of(request).can("edit_posts"):
            return True
        return forbidden("rest_forbidden", "Sorry, you are not allowed to make proxied oEmbed requests.", request.user_id)

    def proxy_item(self, request: RestRequest) -> Any:
        params = request.params
        maxheight = params.get("maxheight")
        data = self.proxy.answer(
            context_of(request),
            params,
            url=str(params.get("url") or ""),
            maxwidth=int(params.get("maxwidth") or 0),
            maxheight=int(maxheight) if maxheight is not None else None,
            discover=params.get("discover") is not False,
        )
        if data is None:
            raise not_found()
        return data


def routes(api: Api) -> list[Route]:
    return OEmbedRoutes(api).routes()


# -- XML ------------------------------------------------------------------------------------------

_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def _xml_text(value: Any) -> str:
    """A value as the reference's _oembed_create_xml writes it: esc_html'd, then read by libxml,
    which decodes the entities and writes ``& < >`` escaped and every non-ASCII character as a
    character reference (a document declaring no encoding)."""
    if value is None or value is False:
        text = ""
    elif value is True:
        text = "1"
    else:
        text = php_str(value) if not isinstance(value, str) else value
    text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join(c if ord(c) < 128 else f"&#x{ord(c):X};" for c in escaped)


def _xml_elements(data: Mapping[Any, Any] | list[Any], out: list[str]) -> None:
    pairs = data.items() if isinstance(data, Mapping) else enumerate(data)
    for key, value in pairs:
        name = "oembed" if isinstance(key, int) or str(key).isdigit() else str(key)
        if not _NAME.fullmatch(name):
            continue
        if isinstance(value, (Mapping, list)):
            if value:
                out.append(f"<{name}>")
                _xml_elements(value, out)
                out.append(f"</{name}>")
            else:
                out.append(f"<{name}/>")
        else:
            out.append(f"<{name}>{_xml_text(value)}</{name}>")


def oembed_xml(data: Mapping[str, Any]) -> bytes:
    """The oEmbed XML document of ``data`` (keys as elements, lists and objects nested, numeric
    keys named ``oembed``)."""
    out = ['<?xml version="1.0"?>\n<oembed>']
    _xml_elements(data, out)
    out.append("</oembed>\n")
    return "".join(out).encode("ascii")
