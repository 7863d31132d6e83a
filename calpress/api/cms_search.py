"""``/cms/v2/search``: one search across content, terms and post formats (cms-api.md 7.8).

As in the reference, a handler per ``type`` does the searching: ``post`` searches the published
items of the public REST types (not attachments), ``term`` the terms of the public REST
taxonomies, ``post-format`` the post formats in use. Each result is ``{id, title, url, type,
subtype}`` with a link to the object itself (embeddable) and to what describes it. Anyone may
search; only published items are found, so no result needs a permission check.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..content import items as item_service
from ..content import terms as term_store
from ..content.items import Context
from ..content.registry import ContentRegistry
from ..content.rendering import render_title
from ..content.slugs import sanitize_title
from ..content.terms import TermQuery
from ..content.types import POST_FORMATS
from ..rest import schema as rest_schema
from ..rest.controller import collection_params, fields_for_context, wants_field
from ..rest.errors import RestError
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..site import Site
from .base import Api, term_route
from .scope import scope_of

NAMESPACE = "cms"  # the key of cms/v2 in the namespace table
ANY = "any"
_CONTEXTS = ["view", "embed"]

# The reference's get_post_format_strings.
FORMAT_NAMES = {
    "standard": "Standard", "aside": "Aside", "chat": "Chat", "gallery": "Gallery", "link": "Link",
    "image": "Image", "quote": "Quote", "status": "Status", "video": "Video", "audio": "Audio",
}


@dataclass
class Search:
    """One search request, its arguments read and checked."""

    request: RestRequest
    site: Site
    subtypes: list[str]
    text: str
    page: int
    per_page: int
    include: list[int]
    exclude: list[int]

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def wanted(self, subtypes: list[str], default: list[str]) -> list[str]:
        """The subtypes asked for: all of the handler's for ``any``, ``default`` when none of
        those asked for belong to this handler (the reference then searches its defaults)."""
        if ANY in self.subtypes:
            return list(subtypes)
        return list(self.subtypes) or default


class PostHandler:
    """Published items of the public REST types, attachments excepted."""

    type = "post"

    def __init__(self, registry: ContentRegistry) -> None:
        self.registry = registry
        self.subtypes = [t.name for t in registry.rest_types() if t.public and t.name != "attachment"]

    def search(self, search: Search) -> tuple[list[dict[str, Any]], int]:
        # An empty type list makes the reference's query fall back to posts.
        types = search.wanted(self.subtypes, ["post"])
        query = item_service.ItemQuery(
            type=types[0],
            types=types,
            statuses=("publish",),
            page=search.page,
            per_page=search.per_page,
            search=search.text,
            # The reference hides password-protected items from anonymous searches.
            hide_protected=not search.request.user_id,
            include=search.include,
            exclude=search.exclude,
            orderby="relevance" if search.text else "date",
        )
        site, request = search.site, search.request
        with site.read() as conn:
            found = item_service.query_items(conn, query)
            uris = item_service.page_uris(conn, [item for item in found.items if self.registry.types[item.type].hierarchical])
        ctx = scope_of(request).context
        results = []
        for item in found.items:
            content_type = self.registry.types[item.type]
            results.append(
                {
                    "id": item.id,
                    "title": render_title(item.title) if content_type.supports_feature("title") else "",
                    "url": item_service.permalink(ctx, item, uri=uris.get(item.id)),
                    "type": self.type,
                    "subtype": item.type,
                    "_links": {
                        "self": [
                            {"embeddable": True, "href": request.url_for(f"{content_type.rest_namespace}.{content_type.rest_base}.item", id=item.id)}
                        ],
                        "about": [{"href": request.url_for("cms.types.item", type=item.type)}],
                    },
                }
            )
        return results, found.total


class TermHandler:
    """Terms of the public REST taxonomies, by name or slug, in name order."""

    type = "term"

    def __init__(self, registry: ContentRegistry) -> None:
        self.registry = registry
        self.subtypes = [t.name for t in registry.rest_taxonomies() if t.public]

    def search(self, search: Search) -> tuple[list[dict[str, Any]], int]:
        # An empty taxonomy list leaves the reference's term query unrestricted.
        names = search.wanted(self.subtypes, list(self.registry.taxonomies))
        query = TermQuery(
            taxonomy=names[0],
            taxonomies=names,
            search=search.text,
            include=search.include,
            exclude=search.exclude,
            limit=search.per_page,
            offset=search.offset,
        )
        site, request = search.site, search.request
        with site.read() as conn:
            found, total = term_store.query_terms(conn, self.registry, query)
            related = term_store.with_ancestors(conn, found)
        home = scope_of(request).home
        results = []
        for term in found:
            taxonomy = self.registry.taxonomies[term.taxonomy]
            links: dict[str, Any] = {}
            if taxonomy.show_in_rest:
                links["self"] = [{"embeddable": True, "href": request.url_for(term_route(taxonomy, item=True), id=term.id)}]
            links["about"] = [{"href": request.url_for(f"{NAMESPACE}.taxonomies.item", taxonomy=term.taxonomy)}]
            # The reference gives the taxonomy as the type, and no subtype.
            results.append(
                {
                    "id": term.id,
                    "title": term.name,
                    "url": term_store.term_link(home, taxonomy, term, related),
                    "type": term.taxonomy,
                    "_links": links,
                }
            )
        return results, total


class PostFormatHandler:
    """Post formats, by slug or name; only formats some post has (the reference finds those it
    has a term for, and has no term for ``standard``)."""

    type = "post-format"
    subtypes: list[str] = []

    def search(self, search: Search) -> tuple[list[dict[str, Any]], int]:
        site, request = search.site, search.request
        with site.read() as conn:
            used = item_service.used_formats(conn)
        needle = search.text.lower()
        found = [
            slug
            for slug in POST_FORMATS
            if slug in used and (not needle or needle in slug or needle in FORMAT_NAMES[slug].lower())
        ]
        ctx = Context.of(site, home=scope_of(request).home, options=scope_of(request).options)
        home = ctx.home.rstrip("/")
        results = [
            {
                "id": slug,
                "title": FORMAT_NAMES[slug],
                "url": f"{home}/type/{slug}/" if ctx.permalink_structure else f"{home}/?post_format={slug}",
                "type": self.type,
                "_links": {},
            }
            for slug in found[search.offset : search.offset + search.per_page]
        ]
        return results, len(found)


SearchHandlerType = PostHandler | TermHandler | PostFormatHandler


def _parse_slug_list(value: Any) -> list[str]:
    """The reference's wp_parse_slug_list: a list or a comma/space separated string, each entry
    made a slug, duplicates dropped."""
    raw = value if isinstance(value, list) else re.split(r"[,\s]+", str(value))
    return list(dict.fromkeys(sanitize_title(str(entry)) for entry in raw if str(entry).strip()))


def _handlers(registry: ContentRegistry) -> dict[str, SearchHandlerType]:
    return {h.type: h for h in (PostHandler(registry), TermHandler(registry), PostFormatHandler())}


def _search_schema(handlers: dict[str, SearchHandlerType], subtypes: list[str]) -> dict[str, Any]:
    return {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "title": "search-result",
        "type": "object",
        "properties": {
            "id": {"description": "Unique identifier for the object.", "type": ["integer", "string"], "context": _CONTEXTS, "readonly": True},
            "title": {"description": "The title for the object.", "type": "string", "context": _CONTEXTS, "readonly": True},
            "url": {"description": "URL to the object.", "type": "string", "format": "uri", "context": _CONTEXTS, "readonly": True},
            "type": {"description": "Object type.", "type": "string", "enum": list(handlers), "context": _CONTEXTS, "readonly": True},
            "subtype": {"description": "Object subtype.", "type": "string", "enum": subtypes, "context": _CONTEXTS, "readonly": True},
        },
    }


def routes(api: Api) -> list[Route]:
    site = api.site
    handlers = _handlers(site.registry)
    all_subtypes = list(dict.fromkeys(s for handler in handlers.values() for s in handler.subtypes))
    search_schema = _search_schema(handlers, all_subtypes)
    type_arg: dict[str, Any] = {
        "default": "post",
        "description": "Limit results to items of an object type.",
        "type": "string",
        "enum": list(handlers),
    }
    subtype_arg: dict[str, Any] = {
        "default": ANY,
        "description": "Limit results to items of one or more object subtypes.",
        "type": "array",
        "items": {"enum": [*all_subtypes, ANY], "type": "string"},
    }

    # The reference checks type and subtype while sanitising (they have no validate callback),
    # so errors in both are reported together; subtype is read as a slug list first.
    def sanitize_type(value: Any, request: RestRequest, name: str) -> Any:
        return rest_schema.parse_request_arg(value, type_arg, name)

    def sanitize_subtypes(value: Any, request: RestRequest, name: str) -> list[str]:
        subtypes = rest_schema.parse_request_arg(_parse_slug_list(value), subtype_arg, name)
        if ANY in subtypes:
            return [ANY]
        handler = handler_of(request)
        return [s for s in subtypes if s in handler.subtypes]

    def handler_of(request: RestRequest) -> SearchHandlerType:
        wanted = request.get_param("type")
        handler = handlers.get(wanted) if isinstance(wanted, str) else None
        if handler is None:
            raise RestError("rest_search_invalid_type", "Invalid type parameter.", status=400)
        return handler

    def search(request: RestRequest) -> RestResponse:
        handler = handler_of(request)
        params = request.params
        page, per_page = int(params["page"]), int(params["per_page"])
        query = Search(
            request=request,
            site=site,
            subtypes=list(params.get("subtype") if params.get("subtype") is not None else [ANY]),
            text=str(params.get("search") or ""),
            page=page,
            per_page=per_page,
            include=[int(i) for i in params.get("include") or []],
            exclude=[int(i) for i in params.get("exclude") or []],
        )
        results, total = handler.search(query)
        if page > math.ceil(total / per_page) and total > 0:
            raise RestError(
                "rest_search_invalid_page_number",
                "The page number requested is larger than the number of pages available.",
                status=400,
            )
        context = params.get("context") or "view"
        shown = fields_for_context(search_schema, context)
        collection = [{"href": request.url_for("cms.search")}]
        prepared = []
        for result in results:
            data = {key: value for key, value in result.items() if key in shown and wants_field(request, key)}
            if wants_field(request, "_links") or wants_field(request, "_embedded"):
                data["_links"] = {**result["_links"], "collection": collection}
            prepared.append(data)
        return RestResponse(prepared, headers=pagination_headers(request, total, per_page, page))

    args = collection_params(search_schema)
    args["type"] = {**type_arg, "validate": lambda value, request, name: True, "sanitize": sanitize_type}
    args["subtype"] = {**subtype_arg, "validate": lambda value, request, name: True, "sanitize": sanitize_subtypes}
    args["exclude"] = {"description": "Ensure result set excludes specific IDs.", "type": "array", "items": {"type": "integer"}, "default": []}
    args["include"] = {"description": "Limit result set to specific IDs.", "type": "array", "items": {"type": "integer"}, "default": []}
    return [Route(NAMESPACE, "/search", [Endpoint(("GET",), search, args=args)], name="cms.search", schema=lambda: search_schema)]
