"""``/cms/v2/types``, ``/cms/v2/statuses`` and ``/cms/v2/settings`` (cms-api.md 7.5-7.7).

Types and statuses are read from their registered definitions (``content/types.py``) and sent
as objects keyed by name, as ``/taxonomies`` is. Settings are the registered site settings
(``site_settings.py``): read and written by users with ``manage_options`` only, every write
cleaned as the reference's option writes are, all of a request's writes in one transaction.
"""

from __future__ import annotations

from typing import Any

from ..content.types import ContentType, Status, type_labels, type_supports
from ..rest.controller import ContextFields, context_param, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.schema import endpoint_args_from_schema
from ..site_settings import SETTINGS, Rejected, Setting, clean_option
from .base import Api
from .scope import context_of, scope_of

ALL_CONTEXTS = ["view", "edit", "embed"]


def routes(api: Api) -> list[Route]:
    """Types and statuses (listed in the route index where the reference lists them, after the
    content routes), then settings."""
    return [*_type_routes(api), *_status_routes(api), *_settings_routes(api)]


def _can_edit_some_type(request: RestRequest) -> bool:
    """Whether the requester may edit items of any REST type (the reference's test for the
    edit context of types and statuses, and for reading non-public statuses)."""
    scope = scope_of(request)
    if scope.edits_some_type is None:
        ctx = scope.context
        scope.edits_some_type = any(ctx.can(t.caps["edit_posts"]) for t in ctx.registry.rest_types())
    return scope.edits_some_type


# -- /types ---------------------------------------------------------------------------------------


def _ro(description: str, type_: Any, context: list[str], **extra: Any) -> dict[str, Any]:
    return {"description": description, "type": type_, "context": context, "readonly": True, **extra}


TYPE_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "type",
    "type": "object",
    "properties": {
        "capabilities": _ro("All capabilities used by the post type.", "object", ["edit"]),
        "description": _ro("A human-readable description of the post type.", "string", ["view", "edit"]),
        "hierarchical": _ro("Whether or not the post type should have children.", "boolean", ["view", "edit"]),
        "viewable": _ro("Whether or not the post type can be viewed.", "boolean", ["edit"]),
        "labels": _ro("Human-readable labels for the post type for various contexts.", "object", ["edit"]),
        "name": _ro("The title for the post type.", "string", ALL_CONTEXTS),
        "slug": _ro("An alphanumeric identifier for the post type.", "string", ALL_CONTEXTS),
        "supports": _ro("All features, supported by the post type.", "object", ["edit"]),
        "has_archive": _ro(
            "If the value is a string, the value will be used as the archive slug. If the value is false the post type has "
            "no archive.",
            ["string", "boolean"],
            ["view", "edit"],
        ),
        "taxonomies": _ro("Taxonomies associated with post type.", "array", ["view", "edit"], items={"type": "string"}),
        "rest_base": _ro("REST base route for the post type.", "string", ALL_CONTEXTS),
        "rest_namespace": _ro("REST route's namespace for the post type.", "string", ALL_CONTEXTS),
        "visibility": _ro(
            "The visibility settings for the post type.",
            "object",
            ["edit"],
            properties={
                "show_ui": {"description": "Whether to generate a default UI for managing this post type.", "type": "boolean"},
                "show_in_nav_menus": {
                    "description": "Whether to make the post type available for selection in navigation menus.",
                    "type": "boolean",
                },
            },
        ),
        "icon": _ro("The icon for the post type.", ["string", "null"], ALL_CONTEXTS),
        "template": {
            "type": ["array"],
            "description": "The block template associated with the post type.",
            "readonly": True,
            "context": ALL_CONTEXTS,
        },
        "template_lock": {
            "type": ["string", "boolean"],
            "enum": ["all", "insert", "contentOnly", False],
            "description": "The template_lock associated with the post type, or false if none.",
            "readonly": True,
            "context": ALL_CONTEXTS,
        },
    },
}
_TYPE_FIELDS = ContextFields()


def _type_routes(api: Api) -> list[Route]:
    registry = api.site.registry

    def prepare(request: RestRequest, content_type: ContentType) -> dict[str, Any]:
        context = request.get_param("context") or "view"
        shown = _TYPE_FIELDS(TYPE_SCHEMA, context)
        public = content_type.public
        values: dict[str, Any] = {
            "capabilities": lambda: dict(content_type.caps),
            "description": lambda: content_type.description,
            "hierarchical": lambda: content_type.hierarchical,
            "has_archive": lambda: content_type.has_archive,
            "visibility": lambda: {
                "show_in_nav_menus": public if content_type.show_in_nav_menus is None else content_type.show_in_nav_menus,
                "show_ui": public if content_type.show_ui is None else content_type.show_ui,
            },
            "viewable": lambda: content_type.viewable,
            "labels": lambda: type_labels(content_type),
            "name": lambda: content_type.label,
            "slug": lambda: content_type.name,
            "icon": lambda: content_type.icon or None,
            "supports": lambda: type_supports(content_type),
            "taxonomies": lambda: [t.name for t in registry.rest_taxonomies_of(content_type.name)],
            "rest_base": lambda: content_type.rest_base,
            "rest_namespace": lambda: api.registry.wire_name(content_type.rest_namespace),
            "template": lambda: [],
            "template_lock": lambda: False,
        }
        data = {name: value() for name, value in values.items() if name in shown and wants_field(request, name)}
        if wants_field(request, "_links"):
            data["_links"] = {
                "collection": [{"href": request.url_for("cms.types")}],
                "wp:items": [{"href": request.url_for(f"{content_type.rest_namespace}.{content_type.rest_base}")}],
            }
        return data

    def can_edit(request: RestRequest, content_type: ContentType) -> bool:
        return context_of(request).can(content_type.caps["edit_posts"])

    def list_permission(request: RestRequest) -> bool | RestError:
        if request.get_param("context") == "edit" and not _can_edit_some_type(request):
            return forbidden("rest_cannot_view", "Sorry, you are not allowed to edit posts in this post type.", request.user_id)
        return True

    def list_types(request: RestRequest) -> RestResponse:
        if request.method == "HEAD":
            return RestResponse({})
        edit = request.get_param("context") == "edit"
        found = {t.name: prepare(request, t) for t in registry.rest_types() if not (edit and not can_edit(request, t))}
        return RestResponse(found, keyed=True)

    def get_type(request: RestRequest) -> dict[str, Any]:
        name = str(request.get_param("type"))
        content_type = registry.types.get(name)
        if content_type is None or not content_type.show_in_rest:
            # Only the reference's types without REST routes answer "cannot read"; a type
            # registered but not served yet (attachment, until the media routes come) is unknown.
            if name not in registry.non_rest_types:
                raise RestError("rest_type_invalid", "Invalid post type.", status=404)
            raise forbidden("rest_cannot_read_type", "Cannot view post type.", request.user_id)
        if request.get_param("context") == "edit" and not can_edit(request, content_type):
            raise forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.", request.user_id)
        return prepare(request, content_type)

    return [
        Route(
            "cms",
            "/types",
            [Endpoint(("GET",), list_types, list_permission, args={"context": context_param(TYPE_SCHEMA)})],
            name="cms.types",
            schema=lambda: TYPE_SCHEMA,
        ),
        Route(
            "cms",
            r"/types/(?P<type>[\w-]+)",
            [Endpoint(("GET",), get_type, lambda request: True, args={"context": context_param(TYPE_SCHEMA)})],
            name="cms.types.item",
            args={"type": {"description": "An alphanumeric identifier for the post type.", "type": "string"}},
            schema=lambda: TYPE_SCHEMA,
        ),
    ]


# -- /statuses ------------------------------------------------------------------------------------

STATUS_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "status",
    "type": "object",
    "properties": {
        "name": _ro("The title for the status.", "string", ["embed", "view", "edit"]),
        "private": _ro("Whether posts with this status should be private.", "boolean", ["edit"]),
        "protected": _ro("Whether posts with this status should be protected.", "boolean", ["edit"]),
        "public": _ro("Whether posts of this status should be shown in the front end of the site.", "boolean", ["view", "edit"]),
        "queryable": _ro("Whether posts with this status should be publicly-queryable.", "boolean", ["view", "edit"]),
        "show_in_list": _ro("Whether to include posts in the edit listing for their post type.", "boolean", ["edit"]),
        "slug": _ro("An alphanumeric identifier for the status.", "string", ["embed", "view", "edit"]),
        "date_floating": _ro("Whether posts of this status may have floating published dates.", "boolean", ["view", "edit"]),
    },
}
_STATUS_FIELDS = ContextFields()


def _status_routes(api: Api) -> list[Route]:
    statuses = api.site.registry.statuses

    def can_read(request: RestRequest, status: Status) -> bool:
        """Public statuses are for everyone; the other registered, non-internal ones (and trash)
        for whoever may edit items of some type; internal ones for nobody."""
        if status.public:
            return True
        if not status.internal or status.name == "trash":
            return _can_edit_some_type(request)
        return False

    def prepare(request: RestRequest, status: Status) -> dict[str, Any]:
        context = request.get_param("context") or "view"
        shown = _STATUS_FIELDS(STATUS_SCHEMA, context)
        values: dict[str, Any] = {
            "name": status.label,
            "private": status.private,
            "protected": status.protected,
            "public": status.public,
            "queryable": status.publicly_queryable,
            "show_in_list": status.show_in_list,
            "slug": status.name,
            "date_floating": status.date_floating,
        }
        data = {name: value for name, value in values.items() if name in shown and wants_field(request, name)}
        # The reference links every status to the posts collection only.
        archives = request.url_for("cms.posts", None if status.name == "publish" else {"status": status.name})
        data["_links"] = {"archives": [{"href": archives}]}
        return data

    def list_permission(request: RestRequest) -> bool | RestError:
        if request.get_param("context") == "edit" and not _can_edit_some_type(request):
            return forbidden("rest_cannot_view", "Sorry, you are not allowed to manage post statuses.", request.user_id)
        return True

    def list_statuses(request: RestRequest) -> RestResponse:
        listed = [s for s in statuses.values() if not s.internal]
        if "trash" in statuses:
            listed.append(statuses["trash"])
        found = {s.name: prepare(request, s) for s in listed if can_read(request, s)}
        return RestResponse(found, keyed=True)

    def get_permission(request: RestRequest) -> bool | RestError:
        status = statuses.get(str(request.get_param("status")))
        if status is None:
            return RestError("rest_status_invalid", "Invalid status.", status=404)
        if not can_read(request, status):
            return forbidden("rest_cannot_read_status", "Cannot view status.", request.user_id)
        return True

    def get_status(request: RestRequest) -> dict[str, Any]:
        status = statuses.get(str(request.get_param("status")))
        if status is None:
            raise RestError("rest_status_invalid", "Invalid status.", status=404)
        return prepare(request, status)

    return [
        Route(
            "cms",
            "/statuses",
            [Endpoint(("GET",), list_statuses, list_permission, args={"context": context_param(STATUS_SCHEMA)})],
            name="cms.statuses",
            schema=lambda: STATUS_SCHEMA,
        ),
        Route(
            "cms",
            r"/statuses/(?P<status>[\w-]+)",
            [Endpoint(("GET",), get_status, get_permission, args={"context": context_param(STATUS_SCHEMA)})],
            name="cms.statuses.item",
            args={"status": {"description": "An alphanumeric identifier for the status.", "type": "string"}},
            schema=lambda: STATUS_SCHEMA,
        ),
    ]


# -- /settings ------------------------------------------------------------------------------------

SETTINGS_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "settings",
    "type": "object",
    "properties": {setting.name: dict(setting.schema) for setting in SETTINGS},
}
_MISSING = object()


def _settings_routes(api: Api) -> list[Route]:
    site = api.site

    def stored_value(request: RestRequest, setting: Setting, options: dict[str, Any]) -> Any:
        value = options.get(setting.option)
        if setting.option == "siteurl" and not value:
            return scope_of(request).site_url  # no address stored: the one the site answers on
        return value

    def permission(request: RestRequest) -> bool:
        """The reference's one check for reading and writing (get_item_permissions_check): a
        refusal is the server's generic rest_forbidden, 401 anonymous, 403 logged in."""
        return context_of(request).can("manage_options")

    def get_settings(request: RestRequest) -> dict[str, Any]:
        options = scope_of(request).options
        return {setting.name: setting.value_of(stored_value(request, setting, options)) for setting in SETTINGS}

    def update_settings(request: RestRequest) -> dict[str, Any]:
        params = request.params
        sent = [(setting, params[setting.name]) for setting in SETTINGS if setting.name in params]
        if sent:
            with site.write() as conn:
                for setting, value in sent:
                    if value is None:
                        reset(conn, setting)
                        continue
                    try:
                        cleaned = clean_option(setting.option, value)
                    except Rejected:
                        continue  # the reference keeps the stored value
                    site.update_option(conn, setting.option, cleaned)
            scope_of(request).reload_options()
        return get_settings(request)

    def reset(conn: Any, setting: Setting) -> None:
        """``null`` deletes the option, so its default shows again; a stored value the schema
        rejects is not silently dropped (a client echoing back the nulls it read would lose it)."""
        stored = site.stored_option(conn, setting.option, _MISSING, for_update=True)
        if stored is _MISSING:
            return
        if not setting.is_valid(stored):
            raise RestError(
                "rest_invalid_stored_value",
                f"The {setting.name} property has an invalid stored value, and cannot be updated to null.",
                status=500,
            )
        site.delete_option(conn, setting.option)

    return [
        Route(
            "cms",
            "/settings",
            [
                Endpoint(("GET",), get_settings, permission),
                Endpoint(("POST", "PUT", "PATCH"), update_settings, permission, args=endpoint_args_from_schema(SETTINGS_SCHEMA, "PUT")),
            ],
            name="cms.settings",
            schema=lambda: SETTINGS_SCHEMA,
        )
    ]
