"""``/cms/v2/users``, ``/cms/v2/users/{id}`` and ``/cms/v2/users/me`` (cms-api.md 6.6, 7.3).

Anonymous requesters and users without ``list_users`` see only users who have published
content; administrators list, create, edit and delete everyone; every user edits their own profile.
"""

from __future__ import annotations

import hashlib
from typing import Any

import sqlalchemy as sa

from ..auth import users as user_store
from ..auth.roles import ROLE_CAPS
from ..auth.users import User, UserError
from ..compat.formatting import sanitize_text_field
from ..rest.controller import collection_params, context_param, fields_for_context, not_logged_in, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.schema import endpoint_args_from_schema
from ..rest.server import pagination_headers, rest_url
from ..store.tables import posts as posts_table
from ..store.tables import users as users_table
from . import Api

NAMESPACE = "cms/v2"
AVATAR_SIZES = (24, 48, 96)
# Content types shown in REST whose published items make their author public.
REST_AUTHOR_TYPES = ("post", "page", "attachment", "wp_block", "cal_events", "cal_venue", "cal_organizer")


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


def collection_args() -> dict[str, dict[str, Any]]:
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
                "items": {"type": "string", "enum": list(REST_AUTHOR_TYPES)},
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


def _has_published(types: tuple[str, ...] | list[str]) -> Any:
    return sa.exists().where(
        posts_table.c.author == users_table.c.id,
        posts_table.c.status == "publish",
        posts_table.c.type.in_(list(types)),
    )


def register(api: Api) -> None:
    site = api.site

    def target(request: RestRequest, user_id: Any = None) -> User:
        """The user a request addresses (cached per request), or rest_user_invalid_id."""
        ident = request.get_param("id") if user_id is None else user_id
        try:
            user_id = int(ident)
        except (TypeError, ValueError):
            user_id = 0
        key = ("user", user_id)
        if key in request.cache:
            found = request.cache[key]
        else:
            found = None
            if user_id > 0:
                with site.read() as conn:
                    found = user_store.get_user(conn, user_id)
            request.cache[key] = found
        if found is None:
            raise RestError("rest_user_invalid_id", "Invalid user ID.", status=404)
        return found

    def has_published_content(request: RestRequest, user: User) -> bool:
        key = ("user_published", user.id)
        if key not in request.cache:
            with site.read() as conn:
                stmt = sa.select(posts_table.c.id).where(
                    posts_table.c.author == user.id,
                    posts_table.c.status == "publish",
                    posts_table.c.type.in_(REST_AUTHOR_TYPES),
                )
                request.cache[key] = conn.execute(stmt.limit(1)).first() is not None
        return request.cache[key]

    def prepare(request: RestRequest, user: User) -> dict[str, Any]:
        """The user as the request's context shows it; only the fields of that context are built."""
        current = request.user
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
            "description": lambda: user.description,
            "link": lambda: f"{site.home_url(request)}/author/{user.nicename}/",
            "locale": lambda: user.locale or "en_US",
            "nickname": lambda: user.nickname,
            "slug": lambda: user.nicename,
            "roles": lambda: list(user.roles),
            "registered_date": lambda: user.registered_utc.strftime("%Y-%m-%dT%H:%M:%S+00:00") if user.registered_utc else None,
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
            if name == "roles" and not (current.can("list_users") or current.can("edit_user", user.id)):
                continue
            data[name] = value()
        if wants_field(request, "_links"):
            data["_links"] = {
                "self": [{"href": rest_url(request.base_url, f"/{NAMESPACE}/users/{user.id}")}],
                "collection": [{"href": rest_url(request.base_url, f"/{NAMESPACE}/users")}],
            }
        return data

    # -- collection ---------------------------------------------------------------------------

    def list_permission(request: RestRequest) -> bool | RestError:
        user = request.user
        can_list = user.can("list_users")
        if request.get_param("roles") and not can_list:
            return forbidden("rest_user_cannot_view", "Sorry, you are not allowed to filter users by role.", request.user_id)
        if request.get_param("capabilities") and not can_list:
            return forbidden("rest_user_cannot_view", "Sorry, you are not allowed to filter users by capability.", request.user_id)
        if request.get_param("context") == "edit" and not can_list:
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit users.", request.user_id)
        if request.get_param("orderby") in ("email", "registered_date") and not can_list:
            return forbidden("rest_forbidden_orderby", "Sorry, you are not allowed to order users by this parameter.", request.user_id)
        if request.get_param("who") == "authors" and not (user.can("edit_posts") or user.can("edit_pages")):
            return forbidden("rest_forbidden_who", "Sorry, you are not allowed to query users by this parameter.", request.user_id)
        return True

    def list_users(request: RestRequest) -> RestResponse:
        params = request.params
        current = request.user
        can_list = current.can("list_users")
        per_page = int(params["per_page"])
        conditions: list[Any] = []
        if params.get("include"):
            conditions.append(users_table.c.id.in_(params["include"]))
        if params.get("exclude"):
            conditions.append(users_table.c.id.notin_(params["exclude"]))
        if params.get("slug"):
            conditions.append(users_table.c.nicename.in_(params["slug"]))
        published = params.get("has_published_posts")
        if published:
            conditions.append(_has_published(REST_AUTHOR_TYPES if published is True else list(published)))
        elif params.get("who") == "authors":
            conditions.append(_has_published(REST_AUTHOR_TYPES) | users_table.c.roles.isnot(None))
        elif not can_list:
            conditions.append(_has_published(REST_AUTHOR_TYPES))
        search = params.get("search")
        if search:
            columns = {"id": users_table.c.id, "username": users_table.c.login, "slug": users_table.c.nicename, "email": users_table.c.email, "name": users_table.c.display_name}
            allowed = ["id", "username", "slug", "name"] + (["email"] if can_list else [])
            chosen = [c for c in params.get("search_columns") or [] if c in allowed] or allowed
            pattern = f"%{_escape_like(search)}%"
            conditions.append(
                sa.or_(*[sa.cast(columns[c], sa.String).ilike(pattern, escape="\\") for c in chosen])
            )
        role_filter = params.get("roles")
        cap_filter = params.get("capabilities")
        stmt = sa.select(users_table).where(*conditions)
        with site.read() as conn:
            rows = conn.execute(stmt).all()
        found = [user_store.user_from_row(row) for row in rows]
        if role_filter:
            wanted = set(role_filter)
            found = [u for u in found if wanted.intersection(u.roles)]
        if cap_filter:
            found = [u for u in found if any(u.has_cap(cap) for cap in cap_filter)]
        found = _sort_users(found, params)
        total = len(found)
        offset = params.get("offset")
        start = int(offset) if offset else (int(params["page"]) - 1) * per_page
        page_users = found[start : start + per_page]
        items: list[Any] = []
        if request.method != "HEAD":
            for user in page_users:
                if params.get("context") == "edit" and not current.can("edit_user", user.id):
                    continue
                items.append(prepare(request, user))
        page = start // per_page + 1
        return RestResponse(items, headers=pagination_headers(request, total, per_page, page))

    def create_permission(request: RestRequest) -> bool | RestError:
        if not request.user.can("create_users"):
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
                    roles=roles or [str(site.get_option("default_role", request))],
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
        location = rest_url(request.base_url, f"/{NAMESPACE}/users/{user.id}")
        return RestResponse(prepare(request, user), 201, {"Location": location})

    # -- single user ----------------------------------------------------------------------------

    def get_permission(request: RestRequest) -> bool | RestError:
        try:
            user = target(request)
        except RestError as err:
            return err
        current = request.user
        if current.id == user.id:
            return True
        if request.get_param("context") == "edit" and not current.can("edit_user", user.id):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit this user.", request.user_id)
        if not current.can("edit_user", user.id) and not current.can("list_users") and not has_published_content(request, user):
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
            if not request.user.can("promote_user", user.id):
                return forbidden("rest_cannot_edit_roles", "Sorry, you are not allowed to edit roles of this user.", request.user_id)
            if sorted(k for k in request.params if request.params[k] is not None and k not in ("context",)) == ["id", "roles"]:
                return True
        if not request.user.can("edit_user", user.id):
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
        request.cache[("user", user.id)] = updated
        if request.user_id == updated.id:
            request.user = updated
        params["context"] = "edit"
        return prepare(request, updated)

    def delete_permission(request: RestRequest, user_id: Any = None) -> bool | RestError:
        try:
            user = target(request, user_id)
        except RestError as err:
            return err
        if not request.user.can("delete_user", user.id):
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
            request.cache[("user", request.user_id)] = request.user
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

    ns = api.registry.namespace(NAMESPACE)
    ns.route(
        "/users",
        [
            Endpoint(("GET",), list_users, list_permission, args=collection_args(), cache=True),
            Endpoint(("POST",), create_user, create_permission, args=item_args("POST")),
        ],
        schema=lambda: ITEM_SCHEMA,
        allow_batch=True,
    )
    ns.route(
        r"/users/(?P<id>[\d]+)",
        [
            Endpoint(("GET",), get_user, get_permission, args=view_args, cache=True),
            Endpoint(("POST", "PUT", "PATCH"), update_user, update_permission, args=item_args("PUT")),
            Endpoint(("DELETE",), delete_user, delete_permission, args=delete_args),
        ],
        args={"id": {"description": "Unique identifier for the user.", "type": "integer"}},
        schema=lambda: ITEM_SCHEMA,
        allow_batch=True,
    )
    ns.route(
        "/users/me",
        [
            Endpoint(("GET",), get_me, lambda request: True, args=view_args, cache=True),
            Endpoint(("POST", "PUT", "PATCH"), on_me(update_user), me_or_401(update_permission), args=item_args("PUT")),
            Endpoint(("DELETE",), on_me(delete_user), me_or_401(delete_permission), args=delete_args),
        ],
        schema=lambda: ITEM_SCHEMA,
    )


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


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _sort_users(found: list[User], params: dict[str, Any]) -> list[User]:
    orderby = params.get("orderby") or "name"
    descending = params.get("order") == "desc"
    if orderby == "include" and params.get("include"):
        position = {uid: i for i, uid in enumerate(params["include"])}
        return sorted(found, key=lambda u: position.get(u.id, len(position)), reverse=descending)
    if orderby == "include_slugs" and params.get("slug"):
        position = {slug: i for i, slug in enumerate(params["slug"])}
        return sorted(found, key=lambda u: position.get(u.nicename, len(position)), reverse=descending)
    keys = {
        "id": lambda u: u.id,
        "name": lambda u: (u.display_name.lower(), u.id),
        "registered_date": lambda u: (u.registered_utc, u.id),
        "slug": lambda u: (u.nicename, u.id),
        "email": lambda u: (u.email.lower(), u.id),
        "url": lambda u: (u.url, u.id),
        "include": lambda u: u.id,
        "include_slugs": lambda u: u.id,
    }
    return sorted(found, key=keys.get(orderby, keys["name"]), reverse=descending)
