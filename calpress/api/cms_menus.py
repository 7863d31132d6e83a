"""The menu routes of ``cms/v2``: ``/menus`` (the ``nav_menu`` taxonomy), ``/menu-items`` (the
``nav_menu_item`` type) and ``/menu-locations``, as the reference's menus, menu items and menu
locations controllers serve them (WordPress 5.9+).

The menus and menu items controllers extend the generic term and content controllers
(cms_terms.py, cms_content.py), which serve them from their definitions; what differs is here:
reading needs a user who can edit something (``rest_cannot_view`` otherwise, even for published
entries), menus carry their ``locations`` and ``auto_add``, entries have their own fields (what
they point at lives in their meta) and are written by the reference's wp_update_nav_menu_item
rules (content/menus.py). Neither menus nor entries go to the trash.
"""

from __future__ import annotations

from typing import Any

from ..compat.formatting import esc_url_raw, sanitize_text_field
from ..content import items as item_service
from ..content import menus as menu_service
from ..content import rendering
from ..content import terms as term_store
from ..content.items import Item, Related
from ..content.taxonomies import REST_NAMESPACE
from ..content.terms import Term
from ..content.types import ContentType
from ..rest import schema as rest_schema
from ..rest.controller import ContextFields, context_param, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .base import Api, term_route
from .cms_content import ContentController
from .cms_terms import TermsController, _args_from_schema, _meta_is_array
from .scope import context_of, scope_of

_EVERY = ["view", "edit", "embed"]


def _read_only_access(request: RestRequest, what: str) -> bool | RestError:
    """The reference's check_has_read_only_access: anyone who may edit theme options, posts, or
    the items of any REST type may read menus and their entries; nobody else (not visitors)."""
    ctx = context_of(request)
    if ctx.can("edit_theme_options") or ctx.can("edit_posts"):
        return True
    if any(ctx.can(content_type.caps["edit_posts"]) for content_type in ctx.registry.rest_types()):
        return True
    return forbidden("rest_cannot_view", f"Sorry, you are not allowed to view {what}.", request.user_id)


def _check_locations(value: Any, request: RestRequest, name: str) -> bool | RestError:
    verdict = rest_schema.validate_value(value, {"type": "array", "items": {"type": "string"}}, name)
    if isinstance(verdict, RestError):
        return verdict
    for location in value if isinstance(value, list) else str(value).replace(",", " ").split():
        if location not in menu_service.LOCATIONS:
            return RestError("rest_invalid_menu_location", "Invalid menu location.", location=location)
    return True


# -- /menus ---------------------------------------------------------------------------------------


class MenusController(TermsController):
    """``/cms/v2/menus``: the term routes of ``nav_menu`` with the menu's locations and auto-add."""

    def _item_schema(self) -> dict[str, Any]:
        schema = super()._item_schema()
        properties = {k: v for k, v in schema["properties"].items() if k not in ("count", "link", "taxonomy")}
        properties["locations"] = {
            "description": "The locations assigned to the menu.",
            "type": "array",
            "items": {"type": "string"},
            "context": ["view", "edit"],
            "arg_options": {"validate": _check_locations},
        }
        properties["auto_add"] = {
            "description": "Whether to automatically add top level pages to this menu.",
            "context": ["view", "edit"],
            "type": "boolean",
        }
        return {**schema, "properties": properties}

    def prepare(self, request: RestRequest, term: Term, related: dict[int, Term]) -> dict[str, Any]:
        data = super().prepare(request, term, related)
        links = data.pop("_links", None)
        shown = self.fields(self.schema, request.get_param("context") or "view")
        options = scope_of(request).options
        if "locations" in shown:
            data["locations"] = menu_service.locations_of(options, term.id)
        if "auto_add" in shown:
            data["auto_add"] = term.id in menu_service.auto_add_menus(options)
        if links is not None:
            located = menu_service.locations_of(options, term.id)
            if located:
                links["wp:menu-location"] = [
                    {"embeddable": True, "href": request.url_for("cms.menu-locations.item", location=name)} for name in located
                ]
            data["_links"] = links
        return data

    def list_permission(self, request: RestRequest) -> bool | RestError:
        allowed = super().list_permission(request)
        return allowed if allowed is not True else _read_only_access(request, "menus")

    def get_permission(self, request: RestRequest) -> bool | RestError:
        allowed = super().get_permission(request)
        return allowed if allowed is not True else _read_only_access(request, "menus")

    def _after_write(self, request: RestRequest, conn: Any, menu: Term) -> None:
        ctx = context_of(request)
        locations = request.params.get("locations")
        if locations is not None:
            menu_service.set_menu_locations(conn, ctx, menu.id, [str(name) for name in locations])
        auto_add = request.params.get("auto_add")
        if auto_add is not None:
            menu_service.set_auto_add(conn, ctx, menu.id, bool(auto_add))

    def create_term(self, request: RestRequest) -> RestResponse:
        params = request.params
        if request.has_param("parent"):
            raise RestError("rest_taxonomy_not_hierarchical", "Cannot set parent term, taxonomy is not hierarchical.", status=400)
        try:
            with self.site.write() as conn:
                menu = menu_service.create_menu(
                    conn, context_of(request), str(params.get("name") or ""), slug=str(params.get("slug") or ""),
                    description=str(params.get("description") or ""),
                )
                self._after_write(request, conn, menu)
        except RestError as err:
            # The reference's menus controller gives every failed creation a 400.
            raise (err if err.data and isinstance(err.data, dict) and "status" in err.data else err.with_status(400)) from None
        scope_of(request).reload_options()
        params["context"] = "view"
        location = request.url_for(term_route(self.taxonomy, item=True), id=menu.id)
        return RestResponse(self._prepared(request, menu), 201, {"Location": location})

    def update_term(self, request: RestRequest) -> dict[str, Any]:
        menu = self._target(request)
        params = request.params
        if request.has_param("parent"):
            raise RestError("rest_taxonomy_not_hierarchical", "Cannot set parent term, taxonomy is not hierarchical.", status=400)
        try:
            with self.site.write() as conn:
                if any(params.get(name) is not None for name in ("name", "slug", "description")):
                    menu = menu_service.update_menu(
                        conn, context_of(request), menu,
                        name=None if params.get("name") is None else str(params["name"]),
                        slug=None if params.get("slug") is None else str(params["slug"]),
                        description=None if params.get("description") is None else str(params["description"]),
                    )
                self._after_write(request, conn, menu)
        except RestError as err:
            # An empty name or a slug in use: the reference passes wp_update_term's error on without
            # a status (a 500); it is the request's fault, so it is answered 400 here.
            raise (err if err.data and isinstance(err.data, dict) and "status" in err.data else err.with_status(400)) from None
        scope = scope_of(request)
        scope.terms[(self.taxonomy.name, menu.id)] = menu
        scope.reload_options()
        params["context"] = "view"
        return self._prepared(request, menu)

    trash_noun = "Menus"

    def remove(self, conn: Any, request: RestRequest, term: Term) -> None:
        """A menu goes with its entries and its locations (an option: reloaded for the answer)."""
        menu_service.delete_menu(conn, context_of(request), term)
        scope_of(request).reload_options()


# -- /menu-items ----------------------------------------------------------------------------------


class MenuItemsController(ContentController):
    """``/cms/v2/menu-items``: the content routes of ``nav_menu_item`` with the reference's menu
    item schema, fields and writing rules."""

    def __init__(self, api: Api, content_type: ContentType) -> None:
        super().__init__(api, content_type)
        self.item_schema = self._item_schema()
        self.fields = ContextFields()
        args = self.schema.collection_args()
        args["menu_order"] = {"description": "Limit result set to posts with a specific menu_order value.", "type": "integer"}
        args["order"] = {"description": "Order sort attribute ascending or descending.", "type": "string", "default": "asc",
                         "enum": ["asc", "desc"]}
        args["orderby"] = {
            "description": "Sort collection by object attribute.", "type": "string", "default": "menu_order",
            "enum": ["author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title",
                     "menu_order"],
        }
        args["per_page"] = {**args["per_page"], "default": 100}
        self.collection = args
        self.collection_arg_names = frozenset(args)

    def _item_schema(self) -> dict[str, Any]:
        statuses = self.registry.write_statuses()
        props: dict[str, Any] = {
            "title": {
                "description": "The title for the object.",
                "type": ["string", "object"],
                "context": list(_EVERY),
                "properties": {
                    "raw": {"description": "Title for the object, as it exists in the database.", "type": "string", "context": ["edit"]},
                    "rendered": {"description": "HTML title for the object, transformed for display.", "type": "string",
                                 "context": list(_EVERY), "readonly": True},
                },
            },
            "id": {"description": "Unique identifier for the object.", "type": "integer", "default": 0, "minimum": 0,
                   "context": list(_EVERY), "readonly": True},
            "type_label": {"description": "The singular label used to describe this type of menu item.", "context": list(_EVERY),
                           "type": "string", "readonly": True},
            "type": {"description": 'The family of objects originally represented, such as "post_type" or "taxonomy".',
                     "type": "string", "enum": list(menu_service.ITEM_KINDS), "context": list(_EVERY), "default": "custom"},
            "status": {"description": "A named status for the object.", "type": "string", "enum": statuses, "default": "publish",
                       "context": list(_EVERY)},
            "parent": {"description": "The ID for the parent of the object.", "type": "integer", "minimum": 0, "default": 0,
                       "context": list(_EVERY)},
            "attr_title": {"description": "Text for the title attribute of the link element for this menu item.", "type": "string",
                           "context": list(_EVERY), "arg_options": {"sanitize": _text}},
            "classes": {"description": "Class names for the link element of this menu item.", "type": "array",
                        "items": {"type": "string"}, "context": list(_EVERY), "arg_options": {"sanitize": _classes}},
            "description": {"description": "The description of this menu item.", "type": "string", "context": list(_EVERY),
                            "arg_options": {"sanitize": _text}},
            "menu_order": {"description": "The DB ID of the nav_menu_item that is this item's menu parent, if any, otherwise 0.",
                           "context": list(_EVERY), "type": "integer", "minimum": 1, "default": 1},
            "object": {"description": 'The type of object originally represented, such as "category", "post", or "attachment".',
                       "context": list(_EVERY), "type": "string", "arg_options": {"sanitize": _key}},
            "object_id": {"description": "The database ID of the original object this menu item represents, for example the ID for "
                                         "posts or the term_id for categories.",
                          "context": list(_EVERY), "type": "integer", "minimum": 0, "default": 0},
            "target": {"description": "The target attribute of the link element for this menu item.", "type": "string",
                       "context": list(_EVERY), "enum": ["_blank", ""]},
            "url": {"description": "The URL to which this menu item points.", "type": "string", "format": "uri",
                    "context": list(_EVERY), "arg_options": {"validate": _check_url}},
            "xfn": {"description": "The XFN relationship expressed in the link of this menu item.", "type": "array",
                    "items": {"type": "string"}, "context": list(_EVERY), "arg_options": {"sanitize": _classes}},
            "invalid": {"description": "Whether the menu item represents an object that no longer exists.", "context": list(_EVERY),
                        "type": "boolean", "readonly": True},
            "menus": {"description": "The terms assigned to the object in the nav_menu taxonomy.", "type": "integer",
                      "context": ["view", "edit"]},
            "meta": {"description": "Meta fields.", "type": "object", "context": ["view", "edit"], "properties": {},
                     "arg_options": {"validate": _meta_is_array}},
        }
        return {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "title": menu_service.ITEM_TYPE,
            "type": "object",
            "properties": props,
        }

    # -- reading --------------------------------------------------------------------------------

    def list_permission(self, request: RestRequest) -> bool | RestError:
        allowed = super().list_permission(request)
        return allowed if allowed is not True else _read_only_access(request, "menu items")

    def get_permission(self, request: RestRequest) -> bool | RestError:
        allowed = super().get_permission(request)
        return allowed if allowed is not True else _read_only_access(request, "menu items")

    def _page_answer(self, request: RestRequest, conn: Any, rows: list[Item], total: int, per_page: int, page: int) -> RestResponse:
        max_pages = -(-total // per_page) if per_page else 0
        if page > max_pages and total > 0:
            raise RestError(
                "rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.", status=400
            )
        data: list[Any] = []
        if rows and request.method != "HEAD":
            for item in rows:
                scope_of(request).remember(item)
            data = self.shown(request, self._readable(request, rows))
        return RestResponse(data, headers=pagination_headers(request, total, per_page, page))

    def get_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        return RestResponse({} if request.method == "HEAD" else self.shown(request, [item])[0])

    def shown(self, request: RestRequest, items: list[Item]) -> list[dict[str, Any]]:
        with self.site.read() as conn:
            entries = menu_service.set_up(conn, context_of(request), items)
        return [self.prepare_entry(request, entry) for entry in entries]

    def prepare_entry(self, request: RestRequest, entry: menu_service.MenuEntry) -> dict[str, Any]:
        """The entry as the request's context shows it, in the reference's field order."""
        context_name = str(request.get_param("context") or "view")
        shown = self.fields(self.item_schema, context_name)

        def want(name: str) -> bool:
            return name in shown and wants_field(request, name)

        values: dict[str, Any] = {
            "id": lambda: entry.id,
            "title": lambda: {
                **({"raw": entry.title_raw} if context_name == "edit" else {}),
                "rendered": rendering.render_title(entry.title),
            },
            "status": lambda: entry.status,
            "url": lambda: entry.url,
            "attr_title": lambda: entry.attr_title,
            "description": lambda: entry.description,
            "type": lambda: entry.type,
            "type_label": lambda: entry.type_label,
            "object": lambda: entry.object,
            "object_id": lambda: abs(entry.object_id),
            "parent": lambda: entry.parent,
            "menu_order": lambda: entry.menu_order,
            "target": lambda: entry.target,
            "classes": lambda: list(entry.classes),
            "xfn": lambda: [menu_service.sanitize_html_class(part) for part in entry.xfn.split(" ")],
            "invalid": lambda: entry.invalid,
            "meta": lambda: [],
            "menus": lambda: entry.menu_id,
        }
        data = {name: value() for name, value in values.items() if want(name)}
        if wants_field(request, "_links") or wants_field(request, "_embedded"):
            data["_links"] = self.entry_links(request, entry, context_name)
        return data

    def entry_links(self, request: RestRequest, entry: menu_service.MenuEntry, context_name: str) -> dict[str, Any]:
        assert entry.item is not None
        links = self.representation.links(request, entry.item, Related(), context_name)
        if entry.object_id and entry.type in ("post_type", "taxonomy") and not entry.invalid:
            href = ""
            if entry.type == "post_type":
                content_type = self.registry.types.get(entry.object)
                if content_type is not None and content_type.show_in_rest:
                    base = "media" if content_type.name == "attachment" else content_type.rest_base
                    href = request.namespace_url(content_type.rest_namespace, f"/{base}/{entry.object_id}")
            else:
                taxonomy = self.registry.taxonomies.get(entry.object)
                if taxonomy is not None and taxonomy.show_in_rest:
                    href = request.url_for(term_route(taxonomy, item=True), id=entry.object_id)
            if href:
                links["wp:menu-item-object"] = [{entry.type: entry.object, "embeddable": True, "href": href}]
        return links

    # -- writing --------------------------------------------------------------------------------

    def fields_from(self, request: RestRequest, entry: Item | None) -> menu_service.EntryFields:
        """The reference's prepare_item_for_database: the stored values (an update), the
        request's over them, then its checks, every failing one reported together."""
        params = request.params
        if entry is not None:
            with self.site.read() as conn:
                menu_id = menu_service.menu_of(conn, [entry.id]).get(entry.id, 0)
            fields = menu_service.fields_of(entry, menu_id)
            fields.position = entry.menu_order or 1
        else:
            fields = menu_service.EntryFields(position=1)
        mapping = {"object_id": "object_id", "object": "object", "parent": "parent", "menu_order": "position", "type": "type",
                   "url": "url", "description": "description", "attr_title": "attr_title", "target": "target",
                   "classes": "classes", "xfn": "xfn", "status": "status"}
        for name, attribute in mapping.items():
            if params.get(name) is not None:
                value = params[name]
                if attribute in ("object_id", "parent", "position"):
                    value = int(value)
                elif attribute in ("classes", "xfn"):
                    value = [str(part) for part in value]
                else:
                    value = str(value)
                setattr(fields, attribute, value)
        if params.get("menus"):
            fields.menu_id = abs(int(params["menus"]))
        title = params.get("title")
        if isinstance(title, str):
            fields.title = title
        elif isinstance(title, dict) and title.get("raw"):
            fields.title = str(title["raw"])
        errors: list[RestError] = []
        with self.site.read() as conn:
            if not fields.object:
                if fields.type == "taxonomy":
                    term = term_store.get_term(conn, abs(fields.object_id))
                    if term is None:
                        errors.append(RestError("rest_term_invalid_id", "Invalid term ID.", status=400))
                    else:
                        fields.object = term.taxonomy
                elif fields.type == "post_type":
                    target = item_service.get_item(conn, abs(fields.object_id))
                    if target is None:
                        errors.append(RestError("rest_post_invalid_id", "Invalid post ID.", status=400))
                    else:
                        fields.object = target.type
        if fields.type == "post_type_archive" and fields.object not in self.registry.types:
            errors.append(RestError("rest_post_invalid_type", "Invalid post type.", status=400))
        if fields.type == "custom":
            if fields.title == "":
                errors.append(RestError("rest_title_required", "The title is required when using a custom menu item type.", status=400))
            if not fields.url:
                errors.append(RestError("rest_url_required", "The url is required when using a custom menu item type.", status=400))
        if errors:
            first = errors[0]
            first.additional.extend(errors[1:])
            raise first
        if fields.status != "publish":
            fields.status = "draft"
        return fields

    def create_item(self, request: RestRequest) -> RestResponse:
        if request.get_param("id"):
            raise RestError("rest_post_exists", "Cannot create existing post.", status=400)
        fields = self.fields_from(request, None)
        with self.site.write() as conn:
            entry = menu_service.save_entry(conn, context_of(request), fields)
        scope_of(request).remember(entry)
        request.set_param("context", "edit")
        location = request.url_for(f"{self.route_name}.item", id=entry.id)
        return RestResponse(self.shown(request, [entry])[0], 201, {"Location": location})

    def update_item(self, request: RestRequest) -> RestResponse:
        entry = self.item_of(request)
        fields = self.fields_from(request, entry)
        with self.site.write() as conn:
            saved = menu_service.save_entry(conn, context_of(request), fields, entry)
        scope_of(request).remember(saved)
        request.set_param("context", "edit")
        return RestResponse(self.shown(request, [saved])[0])

    def delete_item(self, request: RestRequest) -> RestResponse:
        entry = self.item_of(request)
        if not request.get_param("force"):
            raise RestError("rest_trash_not_supported", "Menu items do not support trashing. Set 'force=true' to delete.", status=501)
        previous = self.shown(request, [entry])[0]
        previous.pop("_links", None)
        with self.site.write() as conn:
            item_service.delete_item(conn, context_of(request), entry)
        scope_of(request).forget(entry.id)
        return RestResponse({"deleted": True, "previous": previous})

    # The routes are the generic controller's, with the menu item schema and arguments.

    def route_schema(self) -> dict[str, Any]:
        return self.item_schema

    def collection_args(self) -> dict[str, dict[str, Any]]:
        return self.collection

    def write_args(self, method: str) -> dict[str, dict[str, Any]]:
        return _args_from(self.item_schema, method)

    def read_args(self) -> dict[str, dict[str, Any]]:
        return {"context": context_param(self.item_schema)}


def _text(value: Any, request: RestRequest, name: str) -> str:
    return sanitize_text_field(value)


def _key(value: Any, request: RestRequest, name: str) -> str:
    return menu_service.sanitize_key(value)


def _classes(value: Any, request: RestRequest, name: str) -> list[str]:
    return menu_service.class_list(value)


def _check_url(value: Any, request: RestRequest, name: str) -> bool | RestError:
    if not isinstance(value, str):
        verdict = rest_schema.validate_value(value, {"type": "string"}, name)
        return verdict if isinstance(verdict, RestError) else True
    if value == "" or esc_url_raw(value):
        return True
    return RestError("rest_invalid_url", "Invalid URL.")


def _args_from(schema: dict[str, Any], method: str) -> dict[str, dict[str, Any]]:
    return _args_from_schema(schema, method)


# -- /menu-locations ------------------------------------------------------------------------------

LOCATION_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "menu-location",
    "type": "object",
    "properties": {
        "name": {"description": "The name of the menu location.", "type": "string", "context": ["embed", "view", "edit"], "readonly": True},
        "description": {"description": "The description of the menu location.", "type": "string", "context": ["embed", "view", "edit"],
                        "readonly": True},
        "menu": {"description": "The ID of the assigned menu.", "type": "integer", "context": ["embed", "view", "edit"], "readonly": True},
    },
}
_LOCATION_FIELDS = ContextFields()


def routes(api: Api) -> list[Route]:
    """``/menu-locations`` and ``/menu-locations/{location}`` (the menus and menu items routes
    come with their taxonomy's and type's, from cms_terms and cms_content)."""
    namespace = REST_NAMESPACE

    def permission(request: RestRequest) -> bool | RestError:
        if not context_of(request).can("edit_theme_options"):
            return forbidden("rest_cannot_view", "Sorry, you are not allowed to view menu locations.", request.user_id)
        return True

    def item_permission(request: RestRequest) -> bool | RestError:
        allowed = permission(request)
        if allowed is True and str(request.get_param("location")) not in menu_service.LOCATIONS:
            return RestError("rest_menu_location_invalid", "Invalid menu location.", status=404)
        return allowed

    def prepare(request: RestRequest, name: str) -> dict[str, Any]:
        shown = _LOCATION_FIELDS(LOCATION_SCHEMA, request.get_param("context") or "view")
        menu_id = menu_service.menu_locations(scope_of(request).options).get(name, 0)
        values = {"name": name, "description": menu_service.LOCATIONS[name], "menu": menu_id}
        data = {key: value for key, value in values.items() if key in shown}
        if wants_field(request, "_links"):
            links: dict[str, Any] = {
                "self": [{"href": request.url_for(f"{namespace}.menu-locations.item", location=name)}],
                "collection": [{"href": request.url_for(f"{namespace}.menu-locations")}],
            }
            if menu_id:
                links["wp:menu"] = [{"embeddable": True, "href": request.url_for(f"{namespace}.menus.item", id=menu_id)}]
            data["_links"] = links
        return data

    def list_locations(request: RestRequest) -> RestResponse:
        return RestResponse({name: prepare(request, name) for name in menu_service.LOCATIONS}, keyed=True)

    def get_location(request: RestRequest) -> dict[str, Any]:
        name = str(request.get_param("location"))
        if name not in menu_service.LOCATIONS:
            raise RestError("rest_menu_location_invalid", "Invalid menu location.", status=404)
        return prepare(request, name)

    context = context_param(LOCATION_SCHEMA)
    return [
        Route(
            namespace, "/menu-locations",
            [Endpoint(("GET",), list_locations, permission, args={"context": dict(context)})],
            name=f"{namespace}.menu-locations", schema=lambda: LOCATION_SCHEMA,
        ),
        Route(
            namespace, r"/menu-locations/(?P<location>[\w-]+)",
            [Endpoint(("GET",), get_location, item_permission, args={"context": dict(context)})],
            args={"location": {"description": "An alphanumeric identifier for the menu location.", "type": "string"}},
            name=f"{namespace}.menu-locations.item", schema=lambda: LOCATION_SCHEMA,
        ),
    ]
