"""``/cms/v2/taxonomies`` and the term routes of every REST taxonomy (cms-api.md 7.1, 7.2).

One ``TermsController`` per taxonomy serves ``/cms/v2/<rest base>`` and
``/cms/v2/<rest base>/<id>`` from the taxonomy's definition (``content/taxonomies.py``):
categories, tags, pattern categories and event categories differ only in their definitions.
Anyone may read; writing needs the taxonomy's capabilities, as in the reference: creating a term
of a hierarchical taxonomy needs ``edit_terms``, of a flat one ``assign_terms`` (so contributors
may add tags); editing and deleting need ``edit_term``/``delete_term`` on the term.
"""

from __future__ import annotations

from typing import Any

from ..compat.formatting import sanitize_text_field
from ..content import permissions
from ..content import terms as tax_store
from ..content.slugs import sanitize_title
from ..content.taxonomies import DEFAULT_CATEGORY_ID, REST_NAMESPACE, Taxonomy
from ..content.terms import Term, TermQuery
from ..rest.controller import ContextFields, collection_params, context_param, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.schema import endpoint_args_from_schema
from .base import Api, term_route
from .scope import context_of, scope_of

ALL_CONTEXTS = ["view", "embed", "edit"]
ORDERBY = ["id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"]


def _text(value: Any, request: RestRequest, name: str) -> str:
    return sanitize_text_field(value)


def _slug(value: Any, request: RestRequest, name: str) -> str:
    return sanitize_title(str(value))


def _meta_is_array(value: Any, request: RestRequest, name: str) -> bool:
    # The reference's check_meta_is_array: any PHP array (a JSON object or list) passes.
    return isinstance(value, (dict, list))


def _args_from_schema(schema: dict[str, Any], method: str) -> dict[str, dict[str, Any]]:
    """Endpoint args from an item schema with each property's ``arg_options`` merged in."""
    plain = {
        **schema,
        "properties": {k: {x: y for x, y in v.items() if x != "arg_options"} for k, v in schema["properties"].items()},
    }
    args = endpoint_args_from_schema(plain, method)
    for name, prop in schema["properties"].items():
        if name in args and "arg_options" in prop:
            args[name].update(prop["arg_options"])
    return args


def routes(api: Api) -> list[Route]:
    """The taxonomies routes, then the term routes of every REST taxonomy (menus have a
    controller of their own, ``api.term_controllers``)."""
    found = _taxonomy_routes(api)
    for taxonomy in api.site.registry.rest_taxonomies():
        controller_class = api.term_controllers.get(taxonomy.name, TermsController)
        found.extend(controller_class(api, taxonomy).routes())
    return found


# -- /taxonomies ----------------------------------------------------------------------------------

TAXONOMY_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "taxonomy",
    "type": "object",
    "properties": {
        "capabilities": {"description": "All capabilities used by the taxonomy.", "type": "object", "context": ["edit"], "readonly": True},
        "description": {"description": "A human-readable description of the taxonomy.", "type": "string", "context": ["view", "edit"], "readonly": True},
        "hierarchical": {"description": "Whether or not the taxonomy should have children.", "type": "boolean", "context": ["view", "edit"], "readonly": True},
        "labels": {"description": "Human-readable labels for the taxonomy for various contexts.", "type": "object", "context": ["edit"], "readonly": True},
        "name": {"description": "The title for the taxonomy.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
        "slug": {"description": "An alphanumeric identifier for the taxonomy.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
        "show_cloud": {"description": "Whether or not the term cloud should be displayed.", "type": "boolean", "context": ["edit"], "readonly": True},
        "types": {"description": "Types associated with the taxonomy.", "type": "array", "items": {"type": "string"}, "context": ["view", "edit"], "readonly": True},
        "rest_base": {"description": "REST base route for the taxonomy.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
        "rest_namespace": {"description": "REST namespace route for the taxonomy.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
        "visibility": {
            "description": "The visibility settings for the taxonomy.",
            "type": "object",
            "context": ["edit"],
            "readonly": True,
            "properties": {
                "public": {"description": "Whether a taxonomy is intended for use publicly either via the admin interface or by front-end users.", "type": "boolean"},
                "publicly_queryable": {"description": "Whether the taxonomy is publicly queryable.", "type": "boolean"},
                "show_ui": {"description": "Whether to generate a default UI for managing this taxonomy.", "type": "boolean"},
                "show_admin_column": {"description": "Whether to allow automatic creation of taxonomy columns on associated post-types table.", "type": "boolean"},
                "show_in_nav_menus": {"description": "Whether to make the taxonomy available for selection in navigation menus.", "type": "boolean"},
                "show_in_quick_edit": {"description": "Whether to show the taxonomy in the quick/bulk edit panel.", "type": "boolean"},
            },
        },
    },
}
_TAXONOMY_FIELDS = ContextFields()


def _taxonomy_routes(api: Api) -> list[Route]:
    namespace = REST_NAMESPACE
    registry = api.site.registry

    def candidates(request: RestRequest) -> list[Taxonomy]:
        content_type = request.get_param("type")
        if content_type:
            return registry.taxonomies_for_type(str(content_type))
        return list(registry.taxonomies.values())

    def can_assign(request: RestRequest, taxonomy: Taxonomy) -> bool:
        return permissions.can_assign_terms(context_of(request), taxonomy)

    def prepare(request: RestRequest, taxonomy: Taxonomy) -> dict[str, Any]:
        context = request.get_param("context") or "view"
        shown = _TAXONOMY_FIELDS(TAXONOMY_SCHEMA, context)
        values: dict[str, Any] = {
            "name": lambda: taxonomy.label,
            "slug": lambda: taxonomy.name,
            "capabilities": lambda: taxonomy.caps.as_dict(),
            "description": lambda: taxonomy.description,
            "labels": lambda: dict(taxonomy.labels),
            "types": lambda: list(taxonomy.object_types),
            "show_cloud": lambda: taxonomy.show_tagcloud,
            "hierarchical": lambda: taxonomy.hierarchical,
            "rest_base": lambda: taxonomy.rest_base,
            "rest_namespace": lambda: api.registry.wire_name(taxonomy.rest_namespace),
            "visibility": lambda: {
                "public": taxonomy.public,
                "publicly_queryable": taxonomy.publicly_queryable,
                "show_admin_column": taxonomy.show_admin_column,
                "show_in_nav_menus": taxonomy.show_in_nav_menus,
                "show_in_quick_edit": taxonomy.show_in_quick_edit,
                "show_ui": taxonomy.show_ui,
            },
        }
        data = {name: value() for name, value in values.items() if name in shown}
        if wants_field(request, "_links"):
            data["_links"] = {
                "collection": [{"href": request.url_for(f"{namespace}.taxonomies")}],
                "wp:items": [{"href": request.url_for(term_route(taxonomy))}],
            }
        return data

    def list_permission(request: RestRequest) -> bool | RestError:
        if request.get_param("context") == "edit":
            if any(t.show_in_rest and can_assign(request, t) for t in candidates(request)):
                return True
            return forbidden("rest_cannot_view", "Sorry, you are not allowed to manage terms in this taxonomy.", request.user_id)
        return True

    def list_taxonomies(request: RestRequest) -> RestResponse:
        if request.method == "HEAD":
            return RestResponse({})
        edit = request.get_param("context") == "edit"
        found = {
            taxonomy.name: prepare(request, taxonomy)
            for taxonomy in candidates(request)
            if taxonomy.show_in_rest and not (edit and not can_assign(request, taxonomy))
        }
        return RestResponse(found, keyed=True)

    def get_permission(request: RestRequest) -> bool | RestError:
        taxonomy = registry.taxonomies.get(str(request.get_param("taxonomy")))
        if taxonomy is not None:
            if not taxonomy.show_in_rest:
                return False
            if request.get_param("context") == "edit" and not can_assign(request, taxonomy):
                return forbidden("rest_forbidden_context", "Sorry, you are not allowed to manage terms in this taxonomy.", request.user_id)
        return True

    def get_taxonomy(request: RestRequest) -> dict[str, Any]:
        taxonomy = registry.taxonomies.get(str(request.get_param("taxonomy")))
        if taxonomy is None:
            raise RestError("rest_taxonomy_invalid", "Invalid taxonomy.", status=404)
        return prepare(request, taxonomy)

    return [
        Route(
            namespace,
            "/taxonomies",
            [
                Endpoint(
                    ("GET",),
                    list_taxonomies,
                    list_permission,
                    args={
                        "context": context_param(TAXONOMY_SCHEMA),
                        "type": {"description": "Limit results to taxonomies associated with a specific post type.", "type": "string"},
                    },
                )
            ],
            name=f"{namespace}.taxonomies",
            schema=lambda: TAXONOMY_SCHEMA,
        ),
        Route(
            namespace,
            r"/taxonomies/(?P<taxonomy>[\w-]+)",
            [Endpoint(("GET",), get_taxonomy, get_permission, args={"context": context_param(TAXONOMY_SCHEMA)})],
            args={"taxonomy": {"description": "An alphanumeric identifier for the taxonomy.", "type": "string"}},
            name=f"{namespace}.taxonomies.item",
            schema=lambda: TAXONOMY_SCHEMA,
        ),
    ]


# -- terms ----------------------------------------------------------------------------------------


class TermsController:
    """The term routes of one taxonomy, driven entirely by its definition."""

    def __init__(self, api: Api, taxonomy: Taxonomy) -> None:
        self.api = api
        self.site = api.site
        self.registry = api.site.registry
        self.taxonomy = taxonomy
        self.schema = self._item_schema()
        self.fields = ContextFields()

    # -- schema and arguments ------------------------------------------------------------------

    def _item_schema(self) -> dict[str, Any]:
        taxonomy = self.taxonomy
        properties: dict[str, Any] = {
            "id": {"description": "Unique identifier for the term.", "type": "integer", "context": ALL_CONTEXTS, "readonly": True},
            "count": {"description": "Number of published posts for the term.", "type": "integer", "context": ["view", "edit"], "readonly": True},
            "description": {"description": "HTML description of the term.", "type": "string", "context": ["view", "edit"]},
            "link": {"description": "URL of the term.", "type": "string", "format": "uri", "context": ALL_CONTEXTS, "readonly": True},
            "name": {
                "description": "HTML title for the term.",
                "type": "string",
                "context": ALL_CONTEXTS,
                "arg_options": {"sanitize": _text},
                "required": True,
            },
            "slug": {
                "description": "An alphanumeric identifier for the term unique to its type.",
                "type": "string",
                "context": ALL_CONTEXTS,
                "arg_options": {"sanitize": _slug},
            },
            "taxonomy": {
                "description": "Type attribution for the term.",
                "type": "string",
                "enum": [taxonomy.name],
                "context": ALL_CONTEXTS,
                "readonly": True,
            },
        }
        if taxonomy.hierarchical:
            properties["parent"] = {"description": "The parent term ID.", "type": "integer", "context": ["view", "edit"]}
        properties["meta"] = {
            "description": "Meta fields.",
            "type": "object",
            "context": ["view", "edit"],
            "properties": {},
            "arg_options": {"validate": _meta_is_array},
        }
        return {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "title": "tag" if taxonomy.name == "post_tag" else taxonomy.name,
            "type": "object",
            "properties": properties,
        }

    def collection_args(self) -> dict[str, dict[str, Any]]:
        hierarchical = self.taxonomy.hierarchical
        params = collection_params(self.schema)
        params["exclude"] = {"description": "Ensure result set excludes specific IDs.", "type": "array", "items": {"type": "integer"}, "default": []}
        params["include"] = {"description": "Limit result set to specific IDs.", "type": "array", "items": {"type": "integer"}, "default": []}
        if not hierarchical:
            # The reference offers offset on flat taxonomies only.
            params["offset"] = {"description": "Offset the result set by a specific number of items.", "type": "integer"}
        params["order"] = {"description": "Order sort attribute ascending or descending.", "type": "string", "default": "asc", "enum": ["asc", "desc"]}
        params["orderby"] = {"description": "Sort collection by term attribute.", "type": "string", "default": "name", "enum": list(ORDERBY)}
        params["hide_empty"] = {"description": "Whether to hide terms not assigned to any posts.", "type": "boolean", "default": False}
        if hierarchical:
            params["parent"] = {"description": "Limit result set to terms assigned to a specific parent.", "type": "integer"}
        params["post"] = {"description": "Limit result set to terms assigned to a specific post.", "type": "integer", "default": None}
        params["slug"] = {"description": "Limit result set to terms with one or more specific slugs.", "type": "array", "items": {"type": "string"}}
        return params

    def routes(self) -> list[Route]:
        key = self.taxonomy.rest_namespace
        base = f"/{self.taxonomy.rest_base}"
        collection = Route(
            key,
            base,
            [
                Endpoint(("GET",), self.list_terms, self.list_permission, args=self.collection_args()),
                Endpoint(("POST",), self.create_term, self.create_permission, args=_args_from_schema(self.schema, "POST")),
            ],
            name=term_route(self.taxonomy),
            schema=lambda: self.schema,
            allow_batch=True,
        )
        item = Route(
            key,
            base + r"/(?P<id>[\d]+)",
            [
                Endpoint(("GET",), self.get_term, self.get_permission, args={"context": context_param(self.schema)}),
                Endpoint(("POST", "PUT", "PATCH"), self.update_term, self.update_permission, args=_args_from_schema(self.schema, "PUT")),
                Endpoint(
                    ("DELETE",),
                    self.delete_term,
                    self.delete_permission,
                    args={"force": {"type": "boolean", "default": False, "description": "Required to be true, as terms do not support trashing."}},
                ),
            ],
            args={"id": {"description": "Unique identifier for the term.", "type": "integer"}},
            name=term_route(self.taxonomy, item=True),
            schema=lambda: self.schema,
            allow_batch=True,
        )
        return [collection, item]

    # -- helpers --------------------------------------------------------------------------------

    def _default_id(self, request: RestRequest) -> int:
        try:
            return int(scope_of(request).options.get("default_category") or DEFAULT_CATEGORY_ID)
        except (TypeError, ValueError):
            return DEFAULT_CATEGORY_ID

    def _ensure_default(self, request: RestRequest) -> None:
        """A fresh site has its default category before anyone reads categories."""
        if self.taxonomy.name != "category" or tax_store.default_category_known(self.site.engine):
            return
        with self.site.write() as conn:
            tax_store.ensure_default_category(conn, self._default_id(request))

    def _target(self, request: RestRequest) -> Term:
        """The term the request addresses (cached per request), or 404 rest_term_invalid."""
        try:
            term_id = int(request.get_param("id"))
        except (TypeError, ValueError):
            term_id = 0
        known = scope_of(request).terms
        key = (self.taxonomy.name, term_id)
        if key not in known:
            found = None
            if term_id > 0:
                self._ensure_default(request)
                with self.site.read() as conn:
                    found = tax_store.get_term(conn, term_id, self.taxonomy.name)
            known[key] = found
        found = known[key]
        if found is None:
            raise RestError("rest_term_invalid", "Term does not exist.", status=404)
        return found

    def _can_read_terms_of(self, request: RestRequest, item: Any) -> bool:
        """The reference's check_read_terms_permission_for_post: the item's type uses this
        taxonomy, and the item is published and viewable, or the user may read it."""
        if item.type not in self.taxonomy.object_types:
            return False
        content_type = self.registry.types.get(item.type)
        if item.status == "publish" and content_type is not None and content_type.viewable:
            return True
        return context_of(request).can("read_post", item)

    def prepare(self, request: RestRequest, term: Term, related: dict[int, Term]) -> dict[str, Any]:
        """The term as the request's context shows it; ``related`` holds its ancestors."""
        context = request.get_param("context") or "view"
        shown = self.fields(self.schema, context)
        data: dict[str, Any] = {}
        if "id" in shown:
            data["id"] = term.id
        if "count" in shown:
            data["count"] = term.count
        if "description" in shown:
            data["description"] = term.description
        if "link" in shown:
            data["link"] = tax_store.term_link(scope_of(request).home, self.taxonomy, term, related)
        if "name" in shown:
            data["name"] = term.name
        if "slug" in shown:
            data["slug"] = term.slug
        if "taxonomy" in shown:
            data["taxonomy"] = term.taxonomy
        if "parent" in shown:
            data["parent"] = term.parent
        if "meta" in shown:
            data["meta"] = []  # no term meta is registered: the reference's empty PHP array
        if wants_field(request, "_links"):
            data["_links"] = self.links(request, term, related)
        return data

    def links(self, request: RestRequest, term: Term, related: dict[int, Term]) -> dict[str, Any]:
        taxonomy = self.taxonomy
        url = request.url_for
        links: dict[str, Any] = {
            "self": [{"href": url(term_route(taxonomy, item=True), id=term.id)}],
            "collection": [{"href": url(term_route(taxonomy))}],
            "about": [{"href": url(f"{taxonomy.rest_namespace}.taxonomies.item", taxonomy=taxonomy.name)}],
        }
        if term.parent and term.parent in related:
            links["up"] = [{"embeddable": True, "href": url(term_route(taxonomy, item=True), id=term.parent)}]
        by_type = []
        for type_name in taxonomy.object_types:
            content_type = self.registry.types.get(type_name)
            if content_type is not None and content_type.show_in_rest:
                route = f"{content_type.rest_namespace}.{content_type.rest_base}"
                by_type.append({"href": url(route, {taxonomy.rest_base: term.id})})
        if by_type:
            links["wp:post_type"] = by_type
        return links

    def _prepared(self, request: RestRequest, term: Term) -> dict[str, Any]:
        with self.site.read() as conn:
            related = tax_store.with_ancestors(conn, [term])
        return self.prepare(request, term, related)

    # -- collection ------------------------------------------------------------------------------

    def list_permission(self, request: RestRequest) -> bool | RestError:
        if request.get_param("context") == "edit" and not permissions.can_manage_terms(context_of(request), self.taxonomy):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit terms in this taxonomy.", request.user_id)
        post_id = request.get_param("post")
        if post_id:
            item = scope_of(request).item(post_id)
            if item is None:
                return RestError("rest_post_invalid_id", "Invalid post ID.", status=400)
            if not self._can_read_terms_of(request, item):
                return forbidden("rest_forbidden_context", "Sorry, you are not allowed to view terms for this post.", request.user_id)
        return True

    def list_terms(self, request: RestRequest) -> RestResponse:
        params = request.params
        taxonomy = self.taxonomy
        per_page = int(params["per_page"])
        page = int(params["page"])
        offset_param = params.get("offset") if not taxonomy.hierarchical else None
        offset = max(0, int(offset_param)) if offset_param else (page - 1) * per_page
        parent = params.get("parent") if taxonomy.hierarchical else None
        query = TermQuery(
            taxonomy=taxonomy.name,
            include=params.get("include") or [],
            exclude=params.get("exclude") or [],
            slugs=params.get("slug") or [],
            search=params.get("search") or "",
            parent=int(parent) if parent is not None else None,
            object_id=int(params["post"]) if params.get("post") else None,
            hide_empty=bool(params.get("hide_empty")),
            orderby=params.get("orderby") or "name",
            order=params.get("order") or "asc",
            limit=per_page,
            offset=offset,
        )
        self._ensure_default(request)
        is_head = request.method == "HEAD"
        with self.site.read() as conn:
            found, total = tax_store.query_terms(conn, self.registry, query)
            related = {} if is_head else tax_store.with_ancestors(conn, found)
        items: list[dict[str, Any]] = []
        if not is_head:
            edit = params.get("context") == "edit"
            ctx = context_of(request)
            for term in found:
                if edit and not permissions.can_edit_term(ctx, term):
                    continue
                items.append(self.prepare(request, term, related))
        # The reference's page number for an offset: the page that offset falls in.
        page_number = -(-(offset + per_page) // per_page)
        return RestResponse(items, headers=pagination_headers(request, total, per_page, page_number))

    def create_permission(self, request: RestRequest) -> bool | RestError:
        if not permissions.can_create_term(context_of(request), self.taxonomy):
            return forbidden("rest_cannot_create", "Sorry, you are not allowed to create terms in this taxonomy.", request.user_id)
        return True

    def create_term(self, request: RestRequest) -> RestResponse:
        params = request.params
        # The reference looks at any parent sent, declared or not, so a flat taxonomy refuses it.
        parent = params.get("parent") if request.has_param("parent") else None
        with self.site.write() as conn:
            term = tax_store.create_term(
                conn,
                self.taxonomy,
                str(params.get("name") or ""),
                slug=str(params.get("slug") or ""),
                description=str(params.get("description") or ""),
                parent=_parent_value(parent),
            )
        params["context"] = "edit"
        location = request.url_for(term_route(self.taxonomy, item=True), id=term.id)
        return RestResponse(self._prepared(request, term), 201, {"Location": location})

    # -- single term -----------------------------------------------------------------------------

    def get_permission(self, request: RestRequest) -> bool | RestError:
        try:
            term = self._target(request)
        except RestError as err:
            return err
        if request.get_param("context") == "edit" and not permissions.can_edit_term(context_of(request), term):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit this term.", request.user_id)
        return True

    def get_term(self, request: RestRequest) -> dict[str, Any]:
        return self._prepared(request, self._target(request))

    def update_permission(self, request: RestRequest) -> bool | RestError:
        try:
            term = self._target(request)
        except RestError as err:
            return err
        if not permissions.can_edit_term(context_of(request), term):
            return forbidden("rest_cannot_update", "Sorry, you are not allowed to edit this term.", request.user_id)
        return True

    def update_term(self, request: RestRequest) -> dict[str, Any]:
        term = self._target(request)
        params = request.params
        parent = params.get("parent") if request.has_param("parent") else None
        changes = {
            "name": params.get("name"),
            "slug": params.get("slug"),
            "description": params.get("description"),
            "parent": _parent_value(parent),
        }
        changes = {key: value for key, value in changes.items() if value is not None}
        if changes:
            with self.site.write() as conn:
                term = tax_store.update_term(
                    conn,
                    self.taxonomy,
                    term,
                    name=_text_or_none(changes.get("name")),
                    slug=_text_or_none(changes.get("slug")),
                    description=_text_or_none(changes.get("description")),
                    parent=changes.get("parent"),
                )
            scope_of(request).terms[(self.taxonomy.name, term.id)] = term
        params["context"] = "edit"
        return self._prepared(request, term)

    def delete_permission(self, request: RestRequest) -> bool | RestError:
        try:
            term = self._target(request)
        except RestError as err:
            return err
        if not permissions.can_delete_term(context_of(request), term, self._default_id(request)):
            return forbidden("rest_cannot_delete", "Sorry, you are not allowed to delete this term.", request.user_id)
        return True

    # What the reference's refusal of a trash (no ``force``) names: its controller's kind.
    trash_noun = "Terms"

    def delete_term(self, request: RestRequest) -> dict[str, Any]:
        term = self._target(request)
        if not request.params.get("force"):
            raise RestError("rest_trash_not_supported", f"{self.trash_noun} do not support trashing. Set 'force=true' to delete.",
                            status=501)
        request.params["context"] = "view"
        previous = self._prepared(request, term)
        previous.pop("_links", None)
        with self.site.write() as conn:
            self.remove(conn, request, term)
        scope_of(request).terms.pop((self.taxonomy.name, term.id), None)
        return {"deleted": True, "previous": previous}

    def remove(self, conn: Any, request: RestRequest, term: Term) -> None:
        """Delete ``term`` for good, inside the write transaction of a DELETE."""
        tax_store.delete_term(conn, self.registry, term, default_id=self._default_id(request))


def _parent_value(value: Any) -> int | None:
    """A sent parent as the reference reads it ((int) cast), None when none was sent."""
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
