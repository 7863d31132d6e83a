"""An OpenAPI 3.1 document of every registered route, generated from the registry.

Path templates come from the route patterns' named groups; query parameters and JSON request
bodies come from each endpoint's argument schema; item schemas become response schemas. Every
operation documents the reference's error body.
"""

from __future__ import annotations

import re
from typing import Any

from .index import public_arg
from .registry import Registry, Route

_GROUP = re.compile(r"\(\?P<(\w+)>((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)")
_OPENAPI_KEYS = (
    "type", "format", "enum", "items", "properties", "additionalProperties", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
    "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf", "default", "description", "title",
)

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "data": {
            "type": ["object", "null"],
            "properties": {
                "status": {"type": "integer"},
                "params": {"type": ["object", "array"]},
                "details": {"type": ["object", "array"]},
            },
        },
        "additional_errors": {"type": "array", "items": {"type": "object"}},
    },
}


def path_template(pattern: str) -> tuple[str, dict[str, str]]:
    """``/cms/v2/posts/(?P<id>[\\d]+)`` -> (``/cms/v2/posts/{id}``, {"id": "[\\d]+"})."""
    groups: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        groups[match.group(1)] = match.group(2)
        return "{" + match.group(1) + "}"

    return _GROUP.sub(replace, pattern), groups


def _clean(schema: Any) -> Any:
    """Keep the JSON-schema keys OpenAPI 3.1 understands; drop ours (callables, context...)."""
    if isinstance(schema, list):
        return [_clean(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    cleaned: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _OPENAPI_KEYS or callable(value):
            continue
        if key == "properties" and isinstance(value, dict):
            cleaned[key] = {name: _clean(prop) for name, prop in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf"):
            cleaned[key] = _clean(value) if not isinstance(value, bool) else value
        else:
            cleaned[key] = value
    if cleaned.get("type") == "array" and "items" not in cleaned:
        cleaned["items"] = {}
    return cleaned


def _operation_id(route: Route, method: str) -> str:
    name = re.sub(r"\(\?P<(\w+)>[^/]*?\)+", r"by_\1", route.pattern)
    name = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "index"
    return f"{method.lower()}_{name}"


def openapi_document(registry: Registry, server_url: str) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for route in registry:
        template, groups = path_template(route.pattern)
        item: dict[str, Any] = paths.setdefault(template, {})
        for endpoint in route.endpoints:
            for method in endpoint.methods:
                operation = _operation(route, endpoint.args, method, groups)
                if endpoint.allow_batch:
                    operation["x-allow-batch"] = True
                item[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "calpress REST API",
            "version": "1",
            "description": "Calendar and content-management REST interface (cal/* and cms/* namespaces).",
        },
        "servers": [{"url": server_url}],
        "paths": paths,
        "components": {
            "schemas": {"Error": ERROR_SCHEMA},
            "securitySchemes": {
                "applicationPassword": {"type": "http", "scheme": "basic"},
                "cookieNonce": {"type": "apiKey", "in": "header", "name": "X-WP-Nonce"},
            },
        },
        "security": [{}, {"applicationPassword": []}, {"cookieNonce": []}],
    }


def _operation(route: Route, args: dict[str, dict[str, Any]], method: str, groups: dict[str, str]) -> dict[str, Any]:
    parameters: list[dict[str, Any]] = []
    for name, regex in groups.items():
        schema = _clean(args.get(name, {})) or {}
        schema.pop("default", None)
        schema.setdefault("type", "string")
        if schema.get("type") == "string":
            schema["pattern"] = f"^{regex}$"
        parameters.append({"name": name, "in": "path", "required": True, "schema": schema})
    body_props: dict[str, Any] = {}
    required: list[str] = []
    in_body = method in ("POST", "PUT", "PATCH")
    for name, arg in args.items():
        if name in groups:
            continue
        shown = public_arg(arg)
        schema = _clean(arg)
        description = schema.pop("description", None)
        if in_body:
            if description:
                schema["description"] = description
            body_props[name] = schema
            if shown["required"]:
                required.append(name)
        else:
            param: dict[str, Any] = {"name": name, "in": "query", "required": shown["required"], "schema": schema}
            if description:
                param["description"] = description
            if schema.get("type") in ("array", "object"):
                param["style"] = "deepObject" if schema.get("type") == "object" else "form"
                param["explode"] = schema.get("type") == "object"
            parameters.append(param)
    operation: dict[str, Any] = {"operationId": _operation_id(route, method), "tags": [route.namespace or "root"]}
    if parameters:
        operation["parameters"] = parameters
    if in_body:
        body_schema: dict[str, Any] = {"type": "object", "properties": body_props}
        if required:
            body_schema["required"] = required
        operation["requestBody"] = {
            "required": bool(required),
            "content": {
                "application/json": {"schema": body_schema},
                "application/x-www-form-urlencoded": {"schema": body_schema},
            },
        }
    item_schema = route.item_schema()
    success: dict[str, Any] = {"description": "Success"}
    if item_schema is not None:
        cleaned = _clean({k: v for k, v in item_schema.items() if k in ("type", "properties")})
        is_collection = method == "GET" and "per_page" in args
        success["content"] = {
            "application/json": {"schema": {"type": "array", "items": cleaned} if is_collection else cleaned}
        }
    error = {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    responses: dict[str, Any] = {"200": success}
    if method == "POST":
        responses["201"] = success
    responses["4XX"] = error
    responses["5XX"] = error
    operation["responses"] = responses
    return operation
