"""``/cms/v2/users``, ``/cms/v2/users/{id}`` and ``/cms/v2/users/me`` (cms-api.md 6.6, 7.3).

Anonymous requesters and users without ``list_users`` see only users who have published
content; administrators list, create, edit and delete everyone; every user edits their own profile.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..auth import users as user_store
from ..auth.roles import ROLE_CAPS
from ..auth.users import User, UserError
from ..compat.formatting import sanitize_text_field
from ..compat.phpdate import mysql_datetime
from ..content.registry import ContentRegistry
from ..rest.controller import collection_params, context_param, fields_for_context, not_logged_in, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.schema import endpoint_args_from_schema
from .base import Api
from .scope import context_of, scope_of

NAMESPACE = "cms"  # the key of cms/v2 in the namespace table
AVATAR_SIZES = (24, 48, 96)


def author_types(registry: ContentRegistry) -> list[str]:
    """The content types served in REST, whose published items make their author public, in
    registration order. Attachments count (the reference's media controller serves them)
    although calpress does not serve their type yet."""
    return [t.name for t in registry.types.values() if t.show_in_rest or t.name == "attachment"]


def _check_username(value: Any, request: RestRequest, name: str) -> Any:
    username = str(value)
    if not username.strip() or user_store.sanitize_user_login(username) != username:
        return RestError(
            "rest_user_invalid_username",
            "This username is invalid because it uses illegal characters. Please enter a valid username.",
            status=400,
        )
    return username


def _check_password(value: Any, request: RestRequest, name: str) -> Any:
    password = str(value)
    if not password:
        return RestError("rest_user_invalid_password", "Passwords cannot be empty.", status=400)
    if "\\" in password:
        return RestError("rest_user_invalid_password", 'Passwords cannot contain the "\\" character.', status=400)
    return password


def _text(value: Any, request: RestRequest, name: str) -> str:
    return sanitize_text_field(str(value))


def _slug(value: Any, request: RestRequest, name: str) -> str:
    return user_store.nicename_from(str(value))


def _avatar_property(size: int) -> dict[str, Any]:
    return {
        "description": f"Avatar URL with image size of {size} pixels.",
        "type": "string",
        "format": "uri",
        "context": ["embed", "view", "edit"],
    }


ITEM_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "user",
    "type": "object",
    "properties": {
        "id": {"description": "Unique identifier for the user.", "type": "integer", "context": ["embed", "view", "edit"], "readonly": True},
        "username": {"description": "Login name for the user.", "type": "string", "context": ["edit"], "required": True, "arg_options": {"sanitize": _check_username}},
        "name": {"description": "Display name for the user.", "type": "string", "context": ["embed", "view", "edit"], "arg_options": {"sanitize": _text}},
        "first_name": {"description": "First name for the user.", "type": "string", "context": ["edit"], "arg_options": {"sanitize": _text}},
        "last_name": {"description": "Last name for the user.", "type": "string", "context": ["edit"], "arg_options": {"sanitize": _text}},
        "email": {"description": "The email address for the user.", "type": "string", "format": "email", "context": ["edit"], "required": True},
        "url": {"description": "URL of the user.", "type": "string", "format": "uri", "context": ["embed", "view", "edit"]},
        "description": {"description": "Description of the user.", "type": "string", "context": ["embed", "view", "edit"]},
        "link": {"description": "Author URL of the user.", "type": "string", "format": "uri", "context": ["embed", "view", "edit"], "readonly": True},
        "locale": {"description": "Locale for the user.", "type": "string", "enum": ["", "en_US"], "context": ["edit"]},
        "nickname": {"description": "The nickname for the user.", "type": "string", "context": ["edit"], "arg_options": {"sanitize": _text}},
        "slug": {"description": "An alphanumeric identifier for the user.", "type": "string", "context": ["embed", "view", "edit"], "arg_options": {"sanitize": _slug}},
        "registered_date": {"description": "Registration date for the user.", "type": "string", "format": "date-time", "context": ["edit"], "readonly": True},
        "roles": {"description": "Roles assigned to the user.", "type": "array", "items": {"type": "string"}, "context": ["edit"]},
        "password": {"description": "Password for the user (never included).", "type": "string", "context": [], "required": True, "arg_options": {"sanitize": _check_password}},
        "capabilities": {"description": "All capabilities assigned to the user.", "type": "object", "context": ["edit"], "readonly": True},
        "extra_capabilities": {"description": "Any extra capabilities assigned to the user.", "type": "object", "context": ["edit"], "readonly": True},
        "avatar_urls": {
            "description": "Avatar URLs for the user.",
            "type": "object",
            "context": ["embed", "view", "edit"],
            "readonly": True,
            "properties": {str(size): _avatar_property(size) for size in AVATAR_SIZES},
        },
        "meta": {
            "description": "Meta fields.",
            "type": "object",
            "context": ["view", "edit"],
            "properties": {
                "persisted_preferences": {
                    "type": "object",
                    "context": ["edit"],
                    "description": "",
                    "default": [],
                    "properties": {"_modified": {"description": "The date and time the preferences were updated.", "type": "string", "format": "date-time", "readonly": False}},
                    "additionalProperties": True,
                }
            },
        },
    },
}


def item_args(method: str) -> dict[str, dict[str, Any]]:
    """Endpoint args from the item schema, with each property's ``arg_options`` merged in."""
    plain = {**ITEM_SCHEMA, "properties": {k: {x: y for x, y in v.items() if x != "arg_options"} for k, v in ITEM_SCHEMA["properties"].items()}}
    args = endpoint_args_from_schema(plain, method)
    for name, prop in ITEM_SCHEMA["properties"].items():
        if name in args and "arg_options" in prop:
            args[name].update(prop["arg_options"])
    return args


def collection_args(registry: ContentRegistry) -> dict[str, dict[str, Any]]:
    params = collection_params(ITEM_SCHEMA)
    params.update(
        {
            "exclude": {"description": "Ensure result set excludes specific IDs.", "type": "array", "items": {"type": "integer"}, "default": []},
            "include": {"description": "Limit result set to specific IDs.", "type": "array", "items": {"type": "integer"}, "default": []},
            "offset": {"description": "Offset the result set by a specific number of items.", "type": "integer"},
            "order": {"description": "Order sort attribute ascending or descending.", "default": "asc", "enum": ["asc", "desc"], "type": "string"},
            "orderby": {
                "description": "Sort collection by user attribute.",
                "default": "name",
                "enum": ["id", "include", "name", "registered_date", "slug", "include_slugs", "email", "url"],
                "type": "string",
            },
            "slug": {"description": "Limit result set to users with one or more specific slugs.", "type": "array", "items": {"type": "string"}},
            "roles": {"description": "Limit result set to users matching at least one specific role provided. Accepts csv list or single role.", "type": "array", "items": {"type": "string"}},
            "capabilities": {"description": "Limit result set to users matching at least one specific capability provided. Accepts csv list or single capability.", "type": "array", "items": {"type": "string"}},
            "who": {"description": "Limit result set to users who are considered authors.", "type": "string", "enum": ["authors"]},
            "has_published_posts": {
                "description": "Limit result set to users who have published posts.",
                "type": ["boolean", "array"],
                "items": {"type": "string", "enum": author_types(registry)},
            },
            "search_columns": {
                "default": [],
                "description": "Array of column names to be searched.",
                "type": "array",
                "items": {"enum": ["email", "name", "id", "username", "slug"], "type": "string"},
            },
        }
    )
    return params


def avatar_urls(email: str) -> dict[str, str]:
    digest = hashlib.sha256(email.strip().lower().encode()).hexdigest()
    return {str(size): f"https://secure.gravatar.com/avatar/{digest}?s={size}&d=mm&r=g" for size in AVATAR_SIZES}


def routes(api: Api) -> list[Route]:
    site = api.site
    published_types = author_types(site.registry)

    def target(request: RestRequest, user_id: Any = None) -> User:
        """The user a request addresses (cached per request), or rest_user_invalid_id."""
        ident = request.get_param("id") if user_id is None else user_id
        found = scope_of(request).user(ident)
        if found is None:
            raise RestError("rest_user_invalid_id", "Invalid user ID.", status=404)
        return found

    def has_published_content(request: RestRequest, user: User) -> bool:
        published = scope_of(request).published
        if user.id not in published:
            with site.read() as conn:
                published[user.id] = user_store.has_published(conn, user.id, published_types)
        return published[user.id]

    def prepare(request: RestRequest, user: User) -> dict[str, Any]:
        """The user as the request's context shows it; only the fields of that context are built."""
        scope = scope_of(request)
        ctx = scope.context
        context = request.get_param("context") or "embed"
        shown = fields_for_context(ITEM_SCHEMA, context)
        values: dict[str, Any] = {
            "id": lambda: user.id,
            "username": lambda: user.login,
            "name": lambda: user.display_name,
            "first_name": lambda: user.first_name,
            "last_name": lambda: user.last_name,
            "email": lambda: user.email,
            "url": lambda: user.url,
            # Filtered on the way out too: a description stored before the filter (or by an
            # import) never reaches a reader with markup kses removes.
            "description": lambda: user_store.user_description(user.description),
            "link": lambda: f"{scope.home}/author/{user.nicename}/",
            "locale": lambda: user.locale or "en_US",
            "nickname": lambda: user.nickname,
            "slug": lambda: user.nicename,
            "roles": lambda: list(user.roles),
            "registered_date": lambda: mysql_datetime(user.registered_utc, "T") + "+00:00" if user.registered_utc else None,
            "capabilities": lambda: dict(user.allcaps),
            "extra_capabilities": lambda: {**{role: True for role in user.roles}, **user.extra_caps},
            "avatar_urls": lambda: avatar_urls(user.email),
            # Registered user meta (persisted_preferences) shows in edit only; view shows the
            # reference's empty PHP array.
            "meta": lambda: {"persisted_preferences": user.meta.get("persisted_preferences") or []} if context == "edit" else [],
        }
        data: dict[str, Any] = {}
        for name, value in values.items():
            if name not in shown:
                continue
            if name == "roles" and not (ctx.can("list_users") or ctx.can("edit_user", user.id)):
                continue
            data[name] = value()
        if wants_field(request, "_links"):
            data["_links"] = {
                "self": [{"href": request.url_for("cms.users.item", id=user.id)}],
                "collection": [{"href": request.url_for("cms.users")}],
            }
        return data

    # -- collection ---------------------------------------------------------------------------

    def list_permission(request: RestRequest) -> bool | RestError:
        ctx = context_of(request)
        can_list = ctx.can("list_users")
        if request.get_param("roles") and not can_list:
            return forbidden("rest_user_cannot_view", "Sorry, you are not allowed to filter users by role.", request.user_id)
        if request.get_param("capabilities") and not can_list:
            return forbidden("rest_user_cannot_view", "Sorry, you are not allowed to filter users by capability.", request.user_id)
        if request.get_param("context") == "edit" and not can_list:
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit users.", request.user_id)
        if request.get_param("orderby") in ("email", "registered_date") and not can_list:
            return forbidden("rest_forbidden_orderby", "Sorry, you are not allowed to order users by this parameter.", request.user_id)
        if request.get_param("who") == "authors" and not (ctx.can("edit_posts") or ctx.can("edit_pages")):
            return forbidden("rest_forbidden_who", "Sorry, you are not allowed to query users by this parameter.", request.user_id)
        return True

    def list_users(request: RestRequest) -> RestResponse:
        params = request.params
        ctx = context_of(request)
        can_list = ctx.can("list_users")
        per_page = int(params["per_page"])
        query = user_store.UserQuery(
            include=params.get("include") or (),
            exclude=params.get("exclude") or (),
            slugs=params.get("slug") or (),
            roles=params.get("roles") or (),
            capabilities=params.get("capabilities") or (),
            orderby=params.get("orderby") or "name",
            order=params.get("order") or "asc",
            page=int(params["page"]),
            per_page=per_page,
        )
        published = params.get("has_published_posts")
        if published:
            query.published_in = published_types if published is True else list(published)
        elif params.get("who") == "authors":
            query.authors_only = True
        elif not can_list:
            query.published_in = published_types
        search = params.get("search")
        if search:
            allowed = ["id", "username", "slug", "name"] + (["email"] if can_list else [])
            query.search = search
            query.search_columns = [c for c in params.get("search_columns") or [] if c in allowed] or allowed
        offset = params.get("offset")
        start = int(offset) if offset else (int(params["page"]) - 1) * per_page
        query.offset = start
        with site.read() as conn:
            page_users, total = user_store.query_users(conn, query, role_caps=ROLE_CAPS)
        known = scope_of(request).users
        for user in page_users:
            # The self links' target hints check each user's permissions through target():
            # they find the user here instead of reading it again, one statement per user.
            known.setdefault(user.id, user)
        items: list[Any] = []
        if request.method != "HEAD":
            for user in page_users:
                if params.get("context") == "edit" and not ctx.can("edit_user", user.id):
                    continue
                items.append(prepare(request, user))
        page = start // per_page + 1
        return RestResponse(items, headers=pagination_headers(request, total, per_page, page))

    def create_permission(request: RestRequest) -> bool | RestError:
        if not context_of(request).can("create_users"):
            return forbidden("rest_cannot_create_user", "Sorry, you are not allowed to create new users.", request.user_id)
        return True

    def check_roles(request: RestRequest, user_id: int | None, roles: list[str]) -> None:
        for role in roles:
            if role not in ROLE_CAPS:
                raise RestError("rest_user_invalid_role", f"The role {role} does not exist.", status=400)
            if user_id == request.user_id and "edit_users" not in ROLE_CAPS[role]:
                raise forbidden("rest_user_invalid_role", "Sorry, you are not allowed to give users that role.", request.user_id)

    def create_user(request: RestRequest) -> RestResponse:
        params = request.params
        if params.get("id"):
            raise RestError("rest_user_exists", "Cannot create existing user.", status=400)
        roles = params.get("roles")
        if roles:
            check_roles(request, None, roles)
        try:
            with site.write() as conn:
                user = user_store.create_user(
                    conn,
                    login=params["username"],
                    email=params["email"],
                    password=params["password"],
                    roles=roles or [str(site.get_option("default_role", scope_of(request).options))],
                    display_name=params.get("name") or "",
                    first_name=params.get("first_name") or "",
                    last_name=params.get("last_name") or "",
                    nickname=params.get("nickname") or "",
                    nicename=params.get("slug") or "",
                    url=params.get("url") or "",
                    description=params.get("description") or "",
                    locale=params.get("locale") or "",
                    meta=_meta_values(params.get("meta")),
                )
        except UserError as err:
            raise RestError(err.code, err.message, status=400) from None
        params["context"] = "edit"
        location = request.url_for("cms.users.item", id=user.id)
        return RestResponse(prepare(request, user), 201, {"Location": location})

    # -- single user ----------------------------------------------------------------------------

    def get_permission(request: RestRequest) -> bool | RestError:
        try:
            user = target(request)
        except RestError as err:
            return err
        ctx = context_of(request)
        if ctx.user_id == user.id:
            return True
        if request.get_param("context") == "edit" and not ctx.can("edit_user", user.id):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit this user.", request.user_id)
        if not ctx.can("edit_user", user.id) and not ctx.can("list_users") and not has_published_content(request, user):
            return forbidden("rest_user_cannot_view", "Sorry, you are not allowed to list users.", request.user_id)
        return True

    def get_user(request: RestRequest) -> dict[str, Any]:
        return prepare(request, target(request))

    def update_permission(request: RestRequest, user_id: Any = None) -> bool | RestError:
        try:
            user = target(request, user_id)
        except RestError as err:
            return err
        if request.get_param("roles"):
            if not context_of(request).can("promote_user", user.id):
                return forbidden("rest_cannot_edit_roles", "Sorry, you are not allowed to edit roles of this user.", request.user_id)
            if sorted(k for k in request.params if request.params[k] is not None and k not in ("context",)) == ["id", "roles"]:
                return True
        if not context_of(request).can("edit_user", user.id):
            return forbidden("rest_cannot_edit", "Sorry, you are not allowed to edit this user.", request.user_id)
        return True

    def update_user(request: RestRequest, user_id: Any = None) -> dict[str, Any]:
        user = target(request, user_id)
        params = request.params
        email = params.get("email")
        if isinstance(email, str):
            with site.read() as conn:
                owner = user_store.get_user_by(conn, "email", email)
            if owner and owner.id != user.id:
                raise RestError("rest_user_invalid_email", "Invalid email address.", status=400)
        if params.get("username") and params["username"] != user.login:
            raise RestError("rest_user_invalid_argument", "Username is not editable.", status=400)
        if params.get("slug") and params["slug"] != user.nicename:
            with site.read() as conn:
                if user_store.get_user_by(conn, "nicename", params["slug"]):
                    raise RestError("rest_user_invalid_slug", "Invalid slug.", status=400)
        roles = params.get("roles")
        if roles:
            check_roles(request, user.id, roles)
        changes: dict[str, Any] = {}
        for param, column in (
            ("email", "email"),
            ("password", "password"),
            ("name", "display_name"),
            ("first_name", "first_name"),
            ("last_name", "last_name"),
            ("nickname", "nickname"),
            ("slug", "nicename"),
            ("description", "description"),
            ("url", "url"),
            ("locale", "locale"),
        ):
            if params.get(param) is not None:
                changes[column] = params[param]
        if roles:
            changes["roles"] = list(dict.fromkeys(roles))
        if params.get("meta") is not None:
            changes["meta"] = {**user.meta, **_meta_values(params["meta"])}
        try:
            with site.write() as conn:
                updated = user_store.update_user(conn, user.id, changes)
        except UserError as err:
            raise RestError(err.code, err.message, status=400) from None
        scope_of(request).users[user.id] = updated
        if request.user_id == updated.id:
            request.user = updated
        params["context"] = "edit"
        return prepare(request, updated)

    def delete_permission(request: RestRequest, user_id: Any = None) -> bool | RestError:
        try:
            user = target(request, user_id)
        except RestError as err:
            return err
        if not context_of(request).can("delete_user", user.id):
            return forbidden("rest_user_cannot_delete", "Sorry, you are not allowed to delete this user.", request.user_id)
        return True

    def delete_user(request: RestRequest, user_id: Any = None) -> dict[str, Any]:
        user = target(request, user_id)
        params = request.params
        reassign_raw = params.get("reassign")
        reassign = None if reassign_raw is False else int(reassign_raw or 0)
        if not params.get("force"):
            raise RestError("rest_trash_not_supported", "Users do not support trashing. Set 'force=true' to delete.", status=501)
        if reassign:
            with site.read() as conn:
                other = user_store.get_user(conn, reassign)
            if reassign == user.id or other is None:
                raise RestError("rest_user_invalid_reassign", "Invalid user ID for reassignment.", status=400)
        params["context"] = "edit"
        previous = prepare(request, user)
        previous.pop("_links", None)
        with site.write() as conn:
            user_store.delete_user(conn, user.id, reassign or None)
        return {"deleted": True, "previous": previous}

    # -- me ---------------------------------------------------------------------------------------

    def get_me(request: RestRequest) -> dict[str, Any]:
        if not request.user_id:
            raise not_logged_in()
        return prepare(request, request.user)

    def me_or_401(check):
        def permission(request: RestRequest) -> bool | RestError:
            if not request.user_id:
                return not_logged_in()
            scope_of(request).users[request.user_id] = request.user
            return check(request, request.user_id)

        return permission

    def on_me(handler):
        def run(request: RestRequest) -> Any:
            return handler(request, request.user_id)

        return run

    delete_args = {
        "force": {"type": "boolean", "default": False, "description": "Required to be true, as users do not support trashing."},
        "reassign": {
            "type": "integer",
            "description": "Reassign the deleted user's posts and links to this user ID.",
            "required": True,
            "validate": _validate_reassign,
            "sanitize": _sanitize_reassign,
        },
    }
    view_args = {"context": context_param(ITEM_SCHEMA)}

    found: list[Route] = []
    found.append(Route(
        NAMESPACE,
        "/users",
        [
            Endpoint(("GET",), list_users, list_permission, args=collection_args(site.registry), cache=True),
            Endpoint(("POST",), create_user, create_permission, args=item_args("POST")),
        ],
        schema=lambda: ITEM_SCHEMA,
        allow_batch=True,
        name="cms.users",
    ))
    found.append(Route(
        NAMESPACE,
        r"/users/(?P<id>[\d]+)",
        [
            Endpoint(("GET",), get_user, get_permission, args=view_args, cache=True),
            Endpoint(("POST", "PUT", "PATCH"), update_user, update_permission, args=item_args("PUT")),
            Endpoint(("DELETE",), delete_user, delete_permission, args=delete_args),
        ],
        args={"id": {"description": "Unique identifier for the user.", "type": "integer"}},
        schema=lambda: ITEM_SCHEMA,
        allow_batch=True,
        name="cms.users.item",
    ))
    found.append(Route(
        NAMESPACE,
        "/users/me",
        [
            Endpoint(("GET",), get_me, lambda request: True, args=view_args, cache=True),
            Endpoint(("POST", "PUT", "PATCH"), on_me(update_user), me_or_401(update_permission), args=item_args("PUT")),
            Endpoint(("DELETE",), on_me(delete_user), me_or_401(delete_permission), args=delete_args),
        ],
        schema=lambda: ITEM_SCHEMA,
        name="cms.users.me",
    ))
    return found


def _validate_reassign(value: Any, request: RestRequest, name: str) -> Any:
    # The reference accepts an id, or false to delete the user's content with them.
    if value is False or (isinstance(value, str) and value.lower() == "false"):
        return True
    if isinstance(value, bool):
        return RestError("rest_invalid_param", "Invalid user parameter(s).", status=400)
    text = str(value).strip()
    if text.lstrip("+-").isdigit():
        return True
    return RestError("rest_user_invalid_reassign", "Invalid user ID for reassignment.", status=400)


def _sanitize_reassign(value: Any, request: RestRequest, name: str) -> Any:
    if value is False or (isinstance(value, str) and value.lower() == "false"):
        return False
    return int(str(value).strip())


def _meta_values(meta: Any) -> dict[str, Any]:
    if not isinstance(meta, dict):
        return {}
    values: dict[str, Any] = {}
    if isinstance(meta.get("persisted_preferences"), dict):
        values["persisted_preferences"] = meta["persisted_preferences"]
    return values
