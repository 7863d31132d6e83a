"""``/openapi.json``: every registered REST route as an OpenAPI 3.1 document (rest/openapi.py).

The engine builds the document from the route registry; this page hands it what the engine does
not know: how callers sign in (auth/), the names of the content types and taxonomies the routes
serve (content/) and the summaries of the few routes whose path says too little.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import falcon

from ..auth.sessions import LOGIN_COOKIE
from ..rest.openapi import Noun, openapi_document
from ..rest.registry import Registry

if TYPE_CHECKING:
    from ..app import Calpress
    from ..content.registry import ContentRegistry

REST_PREFIX = "/wp-json"

# How WordPress clients sign in: an application password over Basic auth, or the login cookie
# together with the REST nonce (a cookie without the nonce counts as anonymous).
SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "applicationPassword": {
        "type": "http",
        "scheme": "basic",
        "description": "The user's login and one of their application passwords.",
    },
    "loginCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": LOGIN_COOKIE,
        "description": "The login cookie /wp-login.php sets; counts only with the REST nonce.",
    },
    "restNonce": {
        "type": "apiKey",
        "in": "header",
        "name": "X-WP-Nonce",
        "description": "The REST nonce of the signed-in session (/wp-admin/ shows it; also accepted as the "
        "_wpnonce parameter).",
    },
}
AUTHENTICATED: list[dict[str, list[str]]] = [{"applicationPassword": []}, {"loginCookie": [], "restNonce": []}]

# Routes whose path says too little for a summary: by route name, then method ("*": every one).
SUMMARIES: dict[str, dict[str, str]] = {
    "batch.v1": {"POST": "Run several write requests in one"},
    "oembed.embed": {"GET": "Retrieve the oEmbed data of a page of this site"},
    "oembed.proxy": {"GET": "Retrieve the oEmbed data of an outside address"},
    "cal.doc": {"GET": "Retrieve the calendar API's OpenAPI document"},
    "cal-views.html": {"*": "Render a calendar view as HTML"},
    "cal-aggregator.batch": {"POST": "Receive a batch of events for an import"},
    "cal-aggregator.state": {"POST": "Update the state of an import"},
    "cms.users.me": {
        "GET": "Retrieve the current user",
        "POST": "Update the current user",
        "PUT": "Update the current user",
        "PATCH": "Update the current user",
        "DELETE": "Delete the current user",
    },
    "cms.app-passwords.introspect": {"GET": "Retrieve the application password in use"},
    "cms.search": {"GET": "Search items, terms and post formats"},
}


def content_nouns(registry: Registry, content: ContentRegistry) -> dict[str, Noun]:
    """The names of the content types' and taxonomies' collections by path template
    (``/cms/v2/cal_events``: event, events), from their labels."""
    nouns: dict[str, Noun] = {}
    for content_type in content.rest_types():
        prefix = f"/{registry.wire_name(content_type.rest_namespace)}/{content_type.rest_base}"
        nouns[prefix] = (content_type.singular.lower(), content_type.label.lower())
    for taxonomy in content.rest_taxonomies():
        prefix = f"/{registry.wire_name(taxonomy.rest_namespace)}/{taxonomy.rest_base}"
        singular = taxonomy.labels.get("singular_name") or taxonomy.name
        nouns[prefix] = (str(singular).lower(), taxonomy.label.lower())
    return nouns


class OpenApiDocument:
    def __init__(self, calpress: Calpress) -> None:
        self.calpress = calpress

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        registry = self.calpress.api.registry
        resp.media = openapi_document(
            registry,
            self.calpress.origin(req) + REST_PREFIX,
            security_schemes=SECURITY_SCHEMES,
            authenticated=AUTHENTICATED,
            nouns=content_nouns(registry, self.calpress.site.registry),
            summaries=SUMMARIES,
        )
