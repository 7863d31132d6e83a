"""``/cms/v2/users/{user_id}/application-passwords`` (cms-api.md 6.4): list, create, read, rename,
delete one or all, and introspect the password that authenticated the request."""

from __future__ import annotations

from typing import Any

from ..auth import app_passwords
from ..auth.users import User
from ..rest.controller import context_param, not_logged_in, prepare_for_context, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.schema import endpoint_args_from_schema
from .base import Api
from .scope import UNSET, context_of, scope_of

NAMESPACE = "cms"  # the key of cms/v2 in the namespace table
BASE = r"/users/(?P<user_id>(?:[\d]+|me))/application-passwords"

ITEM_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "application-password",
    "type": "object",
    "properties": {
        "uuid": {
            "description": "The unique identifier for the application password.",
            "type": "string",
            "format": "uuid",
            "context": ["view", "edit", "embed"],
            "readonly": True,
        },
        "app_id": {
            "description": "A UUID provided by the application to uniquely identify it. It is recommended to use an UUID v5 with the URL or DNS namespace.",
            "type": "string",
            "oneOf": [{"type": "string", "format": "uuid"}, {"type": "string", "enum": [""]}],
            "context": ["view", "edit", "embed"],
        },
        "name": {
            "description": "The name of the application password.",
            "type": "string",
            "required": True,
            "context": ["view", "edit", "embed"],
            "minLength": 1,
            "pattern": r".*\S.*",
        },
        "password": {
            "description": "The generated password. Only available after adding an application.",
            "type": "string",
            "context": ["edit"],
            "readonly": True,
        },
        "created": {
            "description": "The GMT date the application password was created.",
            "type": "string",
            "format": "date-time",
            "context": ["view", "edit"],
            "readonly": True,
        },
        "last_used": {
            "description": "The GMT date the application password was last used.",
            "type": ["string", "null"],
            "format": "date-time",
            "context": ["view", "edit"],
            "readonly": True,
        },
        "last_ip": {
            "description": "The IP address the application password was last used by.",
            "type": ["string", "null"],
            "format": "ip",
            "context": ["view", "edit"],
            "readonly": True,
        },
    },
}


def routes(api: Api) -> list[Route]:
    site = api.site

    def owner(request: RestRequest) -> User:
        """The user in the path, checked the reference's way (availability, me, existence)."""
        scope = scope_of(request)
        if scope.target is not UNSET:
            return scope.target
        if not site.app_passwords_available(scope.site_url):
            raise RestError("application_passwords_disabled", "Application passwords are not available.", status=501)
        ident = request.url_params.get("user_id") or request.get_param("user_id")
        if ident == "me":
            if not request.user_id:
                raise not_logged_in()
            user = request.user
        else:
            user = scope.user(ident) if str(ident).isdigit() else None
            if user is None:
                raise RestError("rest_user_invalid_id", "Invalid user ID.", status=404)
        scope.target = user
        return user

    def check(capability: str, code: str, message: str):
        def permission(request: RestRequest) -> bool | RestError:
            try:
                user = owner(request)
            except RestError as err:
                return err
            if not context_of(request).can(capability, user.id):
                return forbidden(code, message, request.user_id)
            return True

        return permission

    def item_url(request: RestRequest, user: User, uuid: str) -> str:
        return request.url_for("cms.app-passwords.item", user_id=user.id, uuid=uuid)

    def prepare(request: RestRequest, user: User, record: app_passwords.AppPassword, new_password: str | None = None, *, links: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "uuid": record.uuid,
            "app_id": record.app_id or "",
            "name": record.name,
            "created": app_passwords.iso(record.created_utc),
            "last_used": app_passwords.iso(record.last_used_utc),
            "last_ip": record.last_ip or None,
        }
        if new_password is not None:
            data["password"] = new_password
        data = prepare_for_context(data, ITEM_SCHEMA, request)
        if links and (wants_field(request, "_links") or wants_field(request, "_embedded")):
            data["_links"] = {"self": [{"href": item_url(request, user, record.uuid)}]}
        return data

    def find(request: RestRequest, user: User) -> app_passwords.AppPassword:
        with site.read() as conn:
            record = app_passwords.get(conn, user.id, str(request.get_param("uuid")))
        if record is None:
            raise RestError("rest_application_password_not_found", "Application password not found.", status=404)
        return record

    def list_items(request: RestRequest) -> list[dict[str, Any]]:
        user = owner(request)
        with site.read() as conn:
            records = app_passwords.list_for_user(conn, user.id)
        return [prepare(request, user, record) for record in records]

    def create_item(request: RestRequest) -> RestResponse:
        user = owner(request)
        app_id = request.get_param("app_id") or ""
        with site.write() as conn:
            record, raw = app_passwords.create(conn, user.id, str(request.get_param("name")), site.settings.secret_key, app_id)
        site.mark_app_passwords_in_use()
        request.params["context"] = "edit"
        data = prepare(request, user, record, app_passwords.chunk_password(raw))
        return RestResponse(data, 201, {"Location": item_url(request, user, record.uuid)})

    def delete_items(request: RestRequest) -> dict[str, Any]:
        user = owner(request)
        with site.write() as conn:
            count = app_passwords.delete_all(conn, user.id)
        return {"deleted": True, "count": count}

    def get_item(request: RestRequest) -> dict[str, Any]:
        user = owner(request)
        return prepare(request, user, find(request, user))

    def update_item(request: RestRequest) -> dict[str, Any]:
        user = owner(request)
        record = find(request, user)
        name = request.get_param("name")
        if name is not None:
            with site.write() as conn:
                record = app_passwords.rename(conn, record, str(name))
        request.params["context"] = "edit"
        return prepare(request, user, record)

    def delete_item(request: RestRequest) -> dict[str, Any]:
        user = owner(request)
        record = find(request, user)
        request.params["context"] = "edit"
        previous = prepare(request, user, record, links=False)
        with site.write() as conn:
            app_passwords.delete(conn, user.id, record.uuid)
        return {"deleted": True, "previous": previous}

    def introspect_permission(request: RestRequest) -> bool | RestError:
        try:
            user = owner(request)
        except RestError as err:
            return err
        if request.user_id != user.id:
            return forbidden(
                "rest_cannot_introspect_app_password_for_non_authenticated_user",
                "The authenticated application password can only be introspected for the current user.",
                request.user_id,
            )
        return True

    def introspect(request: RestRequest) -> dict[str, Any]:
        user = owner(request)
        uuid = request.auth.get("uuid") if request.auth.get("method") == "application_password" else None
        if not uuid:
            raise RestError("rest_no_authenticated_app_password", "Cannot introspect application password.", status=404)
        with site.read() as conn:
            record = app_passwords.get(conn, user.id, uuid)
        if record is None:
            raise RestError("rest_application_password_not_found", "Application password not found.", status=500)
        return prepare(request, user, record)

    view_args = {"context": context_param(ITEM_SCHEMA)}
    found: list[Route] = []
    found.append(Route(
        NAMESPACE,
        BASE,
        [
            Endpoint(
                ("GET",),
                list_items,
                check("list_app_passwords", "rest_cannot_list_application_passwords", "Sorry, you are not allowed to list application passwords for this user."),
                args=view_args,
            ),
            Endpoint(
                ("POST",),
                create_item,
                check("create_app_password", "rest_cannot_create_application_passwords", "Sorry, you are not allowed to create application passwords for this user."),
                args=endpoint_args_from_schema(ITEM_SCHEMA, "POST"),
            ),
            Endpoint(
                ("DELETE",),
                delete_items,
                check("delete_app_passwords", "rest_cannot_delete_application_passwords", "Sorry, you are not allowed to delete application passwords for this user."),
            ),
        ],
        schema=lambda: ITEM_SCHEMA,
        name="cms.app-passwords",
    ))
    found.append(Route(
        NAMESPACE,
        BASE + "/introspect",
        [Endpoint(("GET",), introspect, introspect_permission, args=view_args)],
        schema=lambda: ITEM_SCHEMA,
        name="cms.app-passwords.introspect",
    ))
    found.append(Route(
        NAMESPACE,
        BASE + r"/(?P<uuid>[\w\-]+)",
        [
            Endpoint(
                ("GET",),
                get_item,
                check("read_app_password", "rest_cannot_read_application_password", "Sorry, you are not allowed to read this application password."),
                args=view_args,
            ),
            Endpoint(
                ("POST", "PUT", "PATCH"),
                update_item,
                check("edit_app_password", "rest_cannot_edit_application_password", "Sorry, you are not allowed to edit this application password."),
                args=endpoint_args_from_schema(ITEM_SCHEMA, "PUT"),
            ),
            Endpoint(
                ("DELETE",),
                delete_item,
                check("delete_app_password", "rest_cannot_delete_application_password", "Sorry, you are not allowed to delete this application password."),
            ),
        ],
        schema=lambda: ITEM_SCHEMA,
        name="cms.app-passwords.item",
    ))
    return found
