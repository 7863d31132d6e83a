"""``GET /`` (the site description) and ``GET /{namespace}`` (namespace indexes), from the registry."""

from __future__ import annotations

from typing import Any

from ..rest.batch import batch_args, serve_batch
from ..rest.errors import RestError
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from .base import Api
from .naming import aliases_on
from .scope import scope_of

HELP_URL = "https://developer.wordpress.org/rest-api/"
AUTHORIZE_PATH = "/wp-admin/authorize-application.php"


def routes(api: Api) -> list[Route]:
    """``/`` and the index of every namespace (``/cms/v2``...), in the namespace table's order."""
    registry = api.registry
    site = api.site

    def site_index(request: RestRequest) -> dict[str, Any]:
        scope = scope_of(request)
        options = scope.options
        site_url = scope.site_url
        authentication: Any = []
        if site.app_passwords_available(site_url):
            authentication = {
                "application-passwords": {"endpoints": {"authorization": site_url + AUTHORIZE_PATH}}
            }
        routes: Any
        aliases = aliases_on(request)  # the reference's names too, listed after calpress's
        if request.get_param("context") == "help":
            routes = _with_schemas(api, api.index.routes(request.base_url, aliases=aliases))
        elif "_fields" in request.query:
            routes = api.index.routes(request.base_url, aliases=aliases)  # _fields may reach into the routes
        else:
            routes = api.index.routes_fragment(request.base_url, aliases=aliases)
        return {
            "name": str(options["blogname"]),
            "description": str(options["blogdescription"]),
            "url": site_url,
            "home": scope.home,
            "gmt_offset": str(options["gmt_offset"]),
            "timezone_string": str(options["timezone_string"]),
            "page_for_posts": int(options["page_for_posts"] or 0),
            "page_on_front": int(options["page_on_front"] or 0),
            "show_on_front": str(options["show_on_front"]),
            "namespaces": [*registry.namespaces, *(registry.alias_namespaces if aliases else ())],
            "authentication": authentication,
            "routes": routes,
            "site_logo": int(options["site_logo"] or 0),
            "site_icon": int(options["site_icon"] or 0),
            "site_icon_url": "",
            "_links": {"help": [{"href": HELP_URL}]},
        }

    def namespace_endpoints(key: str, namespace: str) -> list[Endpoint]:
        def namespace_index(request: RestRequest) -> dict[str, Any]:
            wanted = str(request.get_param("namespace") or namespace)
            if wanted not in registry.namespaces:
                raise RestError("rest_invalid_namespace", "The specified namespace could not be found.", status=404)
            # Under the reference's names (/wp/v2) the routes listed are the aliases.
            listed = request.routes.wire_name(key) if wanted == namespace else wanted
            routes = (
                api.index.routes(request.base_url, listed)
                if "_fields" in request.query
                else api.index.routes_fragment(request.base_url, listed)
            )
            return {
                "namespace": wanted,
                "routes": routes,
                "_links": {"up": [{"href": request.url_for("index")}]},
            }

        return [
            Endpoint(
                ("GET",),
                namespace_index,
                args={"namespace": {"default": namespace}, "context": {"default": "view"}},
            )
        ]

    found = [
        # The index is kept in the answer cache (it reads nothing but options and the request):
        # at about 250 KB, encoding it again and hashing it for its ETag cost far more than the rest.
        Route("", "/", [Endpoint(("GET",), site_index, args={"context": {"default": "view"}}, cache=True)], name="index"),
        # The engine's batch route, listed second as the reference registers it (a route of no
        # namespace; cms-api.md 3).
        Route(
            "",
            "/batch/v1",
            [Endpoint(("POST",), serve_batch, args=batch_args(api.site.settings.batch_max_requests))],
            name="batch.v1",
        ),
    ]
    for key, namespace in registry.namespace_names.items():
        found.append(Route(key, "", namespace_endpoints(key, namespace), name=f"{key}.index"))
    return found


def _with_schemas(api: Api, routes: dict[str, Any]) -> dict[str, Any]:
    """context=help: each route also carries its item schema, as the reference does."""
    result: dict[str, Any] = {}
    for pattern, description in routes.items():
        route = api.registry.routes.get(pattern) or api.registry.aliases[pattern]
        item_schema = route.item_schema()
        result[pattern] = {**description, "schema": item_schema} if item_schema else description
    return result
