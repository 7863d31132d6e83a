"""oEmbed, both ways: this site as a provider of embeds for its public items (:mod:`.local`),
and the proxy through which editors embed other sites' content (:mod:`.remote` fetches from
well-known providers or discovered ones, :mod:`.proxy` caches and dispatches).

No web framework here: ``api/oembed.py`` serves the routes and ``pages/site.py`` the embed page
(``<permalink>embed/``) with these functions.
"""

from __future__ import annotations

from .local import (
    DEFAULT_WIDTH,
    FRAME_SCRIPT,
    embed_html,
    embed_url,
    frame_size,
    is_embeddable,
    item_for_url,
    oembed_title,
    response_data,
    thumbnail,
)
from .proxy import Proxy
from .remote import PROVIDERS, Provider

__all__ = [
    "DEFAULT_WIDTH",
    "FRAME_SCRIPT",
    "PROVIDERS",
    "Provider",
    "Proxy",
    "embed_html",
    "embed_url",
    "frame_size",
    "is_embeddable",
    "item_for_url",
    "oembed_title",
    "response_data",
    "thumbnail",
]
