"""An OpenAPI 3.1 document of every registered route, generated from the registry.

Path templates come from the route patterns' named groups; query parameters and JSON request
bodies come from each endpoint's argument schema; item schemas become response schemas. Every
operation documents the reference's error body, has a summary made from its path and method
(``List posts``, ``Retrieve an event``) and names the security schemes it accepts.

The argument schemas are WordPress's: draft-4 style, validated leniently (a scalar for an array,
``null`` for "no default"). The document states them in JSON Schema 2020-12, the dialect of
OpenAPI 3.1, so that strict tools (validators, client generators) take them as they are; the
schemas the engine validates requests with are not changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .index import public_arg
from .registry import Registry, Route

_GROUP = re.compile(r"\(\?P<(\w+)>((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)")
_OPENAPI_KEYS = (
    "type", "format", "enum", "items", "properties", "additionalProperties", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
    "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf", "default", "description", "title",
)
_SUBSCHEMA_KEYS = ("items", "additionalProperties", "anyOf", "oneOf")

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
                "params": {"type": ["object", "array"], "items": {}},
                "details": {"type": ["object", "array"], "items": {}},
            },
        },
        "additional_errors": {"type": "array", "items": {"type": "object"}},
    },
}

# (singular, plural) of what a route serves, lower case: "event", "events".
Noun = tuple[str, str]
# Summaries given by route name, then method ("*": every method), for routes whose path says
# too little.
SummaryTable = Mapping[str, Mapping[str, str]]


def path_template(pattern: str) -> tuple[str, dict[str, str]]:
    """``/cms/v2/posts/(?P<id>[\\d]+)`` -> (``/cms/v2/posts/{id}``, {"id": "[\\d]+"})."""
    groups: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        groups[match.group(1)] = match.group(2)
        return "{" + match.group(1) + "}"

    return _GROUP.sub(replace, pattern), groups


# -- schemas --------------------------------------------------------------------------------------


def _clean(schema: Any, *, answer: bool = False) -> Any:
    """A WordPress argument or item schema as JSON Schema 2020-12: only the keys OpenAPI 3.1
    understands (ours, callables and ``context`` dropped), draft-4 forms rewritten, and defaults
    that fit their schema (see ``_fit_default``).

    In an argument, a property's ``"required": true`` is checked (rest_validate_value_from_schema)
    and becomes the object's ``required`` list; in an item schema describing an ``answer`` it
    means "required to create one" (a user's password), which no answer holds, so it is left out."""
    if isinstance(schema, list):
        return [_clean(item, answer=answer) for item in schema]
    if not isinstance(schema, dict):
        return schema
    cleaned: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _OPENAPI_KEYS or callable(value):
            continue
        if key == "properties":
            # The reference writes an empty object's properties as PHP's empty array.
            properties = value if isinstance(value, dict) else {}
            cleaned[key] = {name: _clean(prop, answer=answer) for name, prop in properties.items()}
            # Draft 4's per-property "required": true is a list on the object in 2020-12.
            required = [name for name, prop in properties.items() if isinstance(prop, dict) and prop.get("required") is True]
            if required and not answer:
                cleaned["required"] = required
        elif key == "title" and not value:
            continue
        elif key in _SUBSCHEMA_KEYS:
            cleaned[key] = _clean(value, answer=answer) if not isinstance(value, bool) else value
        else:
            cleaned[key] = value
    _exclusive_bounds(cleaned)
    _split_mixed_enum(cleaned)
    _drop_implied_type(cleaned)
    if "array" in _types(cleaned) and "items" not in cleaned:
        cleaned["items"] = {}
    _fit_default(cleaned)
    return cleaned


def _exclusive_bounds(schema: dict[str, Any]) -> None:
    """Draft 4's ``"minimum": 0, "exclusiveMinimum": true`` (which WordPress keeps) is
    ``"exclusiveMinimum": 0`` in 2020-12, where the keyword holds the bound itself."""
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        flag = schema.get(exclusive)
        if not isinstance(flag, bool):
            continue
        del schema[exclusive]
        if flag and bound in schema:
            schema[exclusive] = schema.pop(bound)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "object")


def _split_mixed_enum(schema: dict[str, Any]) -> None:
    """An enum of several JSON types (``["all", "insert", false]`` under ``["string",
    "boolean"]``) as one enum per type under ``anyOf``: the same values, in a form client
    generators can type."""
    enum = schema.get("enum")
    if not isinstance(enum, list) or "anyOf" in schema:
        return
    by_type: dict[str, list[Any]] = {}
    for value in enum:
        by_type.setdefault(_json_type(value), []).append(value)
    if len(by_type) < 2:
        return
    del schema["enum"]
    schema.pop("type", None)
    schema["anyOf"] = [{"type": name, "enum": values} for name, values in by_type.items()]


def _drop_implied_type(schema: dict[str, Any]) -> None:
    """``"type": ["object", "array"]`` beside a ``oneOf`` whose every branch declares one of
    those types says nothing the branches do not: left out, the schema is the same, and tools
    that split a list of types into branches of their own no longer meet an array branch
    holding an object branch."""
    types = _types(schema)
    if len(types) < 2:
        return
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches and all(
            isinstance(branch, dict) and _types(branch) and set(_types(branch)) <= set(types) for branch in branches
        ):
            del schema["type"]
            return


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return []
    return list(declared) if isinstance(declared, list) else [declared]


def _fit_default(schema: dict[str, Any]) -> None:
    """Make ``default`` valid under its own schema, or leave it out, saying so.

    WordPress coerces where JSON Schema does not: a scalar default of an array argument is read
    as a one-item list (``status=publish`` lists ``["publish"]``), PHP's empty array is also the
    empty object, and ``null`` means "no default". A default that no such reading fits (a meta
    key's unset value outside its enum) is left out and named in the description."""
    if "default" not in schema:
        return
    default = schema["default"]
    body = {key: value for key, value in schema.items() if key != "default"}
    if _fits(body, default):
        return
    types = _types(body)
    candidates: list[Any] = []
    if "array" in types and not isinstance(default, list) and default is not None:
        candidates.append([default])
    if "object" in types and default == []:
        candidates.append({})
    for candidate in candidates:
        if _fits(body, candidate):
            schema["default"] = candidate
            return
    del schema["default"]
    if default is None:
        return  # the reference's null default: none given, which is what leaving it out says
    note = f"Unset, it reads as {json.dumps(default)} (outside this schema, as in WordPress)."
    schema["description"] = f"{schema['description']} {note}" if schema.get("description") else note


_JSON_TYPES: dict[str, Any] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "integer": lambda value: (isinstance(value, int) and not isinstance(value, bool))
    or (isinstance(value, float) and value.is_integer()),
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


def _fits(schema: Any, value: Any) -> bool:
    """Whether ``value`` is valid under ``schema`` in strict JSON Schema, for the keywords this
    document keeps (formats are not checked; a default never holds one that is wrong)."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return True
    types = _types(schema)
    if types and not any(_JSON_TYPES.get(name, lambda _: True)(value) for name in types):
        return False
    if "enum" in schema and not any(value == option and type(value) is type(option) for option in schema["enum"]):
        return False
    for key in ("anyOf", "oneOf"):
        if key in schema and not any(_fits(option, value) for option in schema[key]):
            return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"] or "maximum" in schema and value > schema["maximum"]:
            return False
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return False
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            return False
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", len(value)):
            return False
        try:
            if "pattern" in schema and re.search(schema["pattern"], value) is None:
                return False
        except re.error:  # a PCRE pattern Python does not read: not judged here
            pass
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            return False
        if "items" in schema and not all(_fits(schema["items"], item) for item in value):
            return False
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        if any(name not in value for name in schema.get("required", ())):
            return False
        for name, item in value.items():
            sub = properties.get(name, schema.get("additionalProperties", True))
            if not _fits(sub, item):
                return False
    return True


# -- summaries ------------------------------------------------------------------------------------


def _words(segment: str) -> str:
    return segment.replace("_", " ").replace("-", " ")


def _singular(plural: str) -> str:
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    if plural.endswith(("sses", "uses")):
        return plural[:-2]
    if plural.endswith("s") and not plural.endswith("ss"):
        return plural[:-1]
    return plural


def _a(noun: str) -> str:
    """``an event``, ``a user``: "an" before a vowel sound, as far as spelling tells."""
    vowel = noun[:1] in "aeio" or (noun[:1] == "u" and not noun.startswith(("us", "uni", "uu", "uti")))
    return f"{'an' if vowel else 'a'} {noun}"


_PARAM = re.compile(r"\{\w+\}")
_ITEM_VERBS = {"GET": "Retrieve", "POST": "Update", "PUT": "Update", "PATCH": "Update", "DELETE": "Delete"}


class _Summaries:
    """Operation summaries from the shape of each route's path: a collection (``/posts``) is
    listed and created into, an item (``/posts/{id}``, ``/events/by-slug/{slug}``) retrieved,
    updated and deleted, a nested one (``/posts/{parent}/revisions``) belongs to its parent's
    item, a last segment after an item is an action on it (``/media/{id}/edit``), any other one
    names a single resource (``/settings``). The nouns are the path's words (``venues``) unless
    ``nouns`` names them by the collection's template (``/cms/v2/cal_events``: event, events)."""

    def __init__(self, registry: Registry, nouns: Mapping[str, Noun], overrides: SummaryTable) -> None:
        self.nouns = nouns
        self.overrides = overrides
        self.templates = {_PARAM.sub("{}", route.template) for route in registry}

    def noun(self, prefix: str) -> Noun:
        """The noun of the collection whose template is ``prefix``."""
        if prefix in self.nouns:
            singular, plural = self.nouns[prefix]
        else:
            plural = _words(prefix.rsplit("/", 1)[-1])
            singular = _singular(plural)
        if singular == plural:  # "media": one of them is a media item
            singular = f"{singular} item"
        return singular, plural

    def summary(self, route: Route, method: str, args: Mapping[str, Any], methods: list[str]) -> str:
        given = self.overrides.get(route.name, {})
        if method in given or "*" in given:
            return given.get(method) or given["*"]
        base = f"/{route.namespace}" if route.namespace else ""
        parts = [part for part in route.template[len(base):].split("/") if part]
        if not parts:
            if method != "GET":
                return f"{method.capitalize()} to {route.namespace or 'the site'}"
            return f"Describe the {route.namespace} namespace" if route.namespace else "Describe the site and its routes"

        def prefix(upto: int) -> str:
            return "/".join([base, *parts[: upto + 1]])

        def owner(index: int) -> str:
            """`` of a post`` when the segment at ``index`` follows an item's parameter."""
            if index >= 2 and _PARAM.fullmatch(parts[index - 1]) and not _PARAM.fullmatch(parts[index - 2]):
                return " of " + _a(self.noun(prefix(index - 2))[0])
            return ""

        last = len(parts) - 1
        if _PARAM.fullmatch(parts[last]):
            by_slug = last >= 2 and parts[last - 1] == "by-slug"
            at = last - 2 if by_slug else last - 1
            if at < 0 or _PARAM.fullmatch(parts[at]):
                return f"{_ITEM_VERBS.get(method, method.capitalize())} an item"
            singular = self.noun(prefix(at))[0]
            return f"{_ITEM_VERBS.get(method, method.capitalize())} {_a(singular)}{owner(at)}{' by slug' if by_slug else ''}"
        singular, plural = self.noun(prefix(last))
        has_items = _PARAM.sub("{}", route.template) + "/{}" in self.templates
        if not has_items and last >= 2 and _PARAM.fullmatch(parts[last - 1]) and not _PARAM.fullmatch(parts[last - 2]):
            return f"{parts[last].capitalize()} {_a(self.noun(prefix(last - 2))[0])}"  # an action on an item
        if has_items or (method == "GET" and "per_page" in args) or ("POST" in methods and not {"PUT", "PATCH"} & set(methods)):
            verbs = {"GET": f"List {plural}", "POST": f"Create {_a(singular)}", "DELETE": f"Delete all {plural}"}
            return verbs.get(method, f"{method.capitalize()} {plural}") + owner(last)
        what = _words(parts[last])
        if last >= 1 and not _PARAM.fullmatch(parts[last - 1]) and prefix(last - 1) not in self.templates:
            what = f"{what} {_singular(_words(parts[last - 1]))}"  # /tests/page-cache: the page cache test
        return f"{_ITEM_VERBS.get(method, method.capitalize())} the {what}"


# -- the document ---------------------------------------------------------------------------------


def _operation_id(route: Route, method: str) -> str:
    """``get_cms_v2_posts_by_id``: the method and the path, each parameter as ``by_<name>``;
    unique because paths and methods are, and stable while the path is."""
    template = re.sub(r"by-(\w+)/\{\1\}", r"{\1}", path_template(route.pattern)[0])  # /by-slug/{slug}: by_slug
    name = re.sub(r"\{(\w+)\}", r"by_\1", template)
    name = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower() or "index"
    return f"{method.lower()}_{name}"


def openapi_document(
    registry: Registry,
    server_url: str,
    *,
    security_schemes: Mapping[str, dict[str, Any]] | None = None,
    authenticated: list[dict[str, list[str]]] | None = None,
    nouns: Mapping[str, Noun] | None = None,
    summaries: SummaryTable | None = None,
) -> dict[str, Any]:
    """The document of every route in ``registry``, served from ``server_url``.

    ``security_schemes`` are the components' schemes and ``authenticated`` the requirements a
    signed-in caller meets (alternatives, each a scheme or a set of them). Operations whose
    endpoint has a permission check and that write (any method but GET) require one of them;
    the others may also be called anonymously (their permission check may still refuse: 401).
    ``nouns`` and ``summaries`` name what the path's words do not say (see ``_Summaries``)."""
    namer = _Summaries(registry, nouns or {}, summaries or {})
    signed_in = list(authenticated or [])
    paths: dict[str, Any] = {}
    for route in registry:
        template, groups = path_template(route.pattern)
        item: dict[str, Any] = paths.setdefault(template, {})
        for endpoint in route.endpoints:
            for method in endpoint.methods:
                operation = _operation(route, endpoint.args, method, groups)
                operation["summary"] = namer.summary(route, method, endpoint.args, route.methods)
                if signed_in and endpoint.permission is not None and method != "GET":
                    operation["security"] = signed_in
                if endpoint.allow_batch:
                    operation["x-allow-batch"] = True
                item[method.lower()] = _ordered(operation)
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "calpress REST API",
            "version": "1",
            "description": "Calendar and content-management REST interface (cal/* and cms/* namespaces). "
            "Reads may be made anonymously (an item or a route that needs a signed-in user answers 401 or "
            "403); writes behind a permission check need a signed-in user.",
        },
        "servers": [{"url": server_url}],
        "paths": paths,
        "components": {"schemas": {"Error": ERROR_SCHEMA}},
    }
    if security_schemes:
        document["components"]["securitySchemes"] = dict(security_schemes)
        document["security"] = [{}, *signed_in]
    _drop_shared_titles(paths)
    return document


def _drop_shared_titles(node: Any) -> None:
    """Leave out the title of an object or enum schema when WordPress gives the same title to
    different ones (the taxonomy query, with and without ``operator``): client generators name
    a class after each such title, and one name for two classes makes them drop the operation."""
    named: dict[str, dict[str, Any]] = {}
    shared: set[str] = set()
    found: list[dict[str, Any]] = []

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            title = value.get("title")
            if isinstance(title, str) and ("properties" in value or "enum" in value):
                found.append(value)
                if named.setdefault(title, value) != value:
                    shared.add(title)
            for child in value.values():
                visit(child)
        elif isinstance(value, list):
            for child in value:
                visit(child)

    visit(node)
    for schema in found:
        if schema["title"] in shared:
            del schema["title"]


_OPERATION_ORDER = ("summary", "operationId", "tags", "security", "parameters", "requestBody", "responses")


def _ordered(operation: dict[str, Any]) -> dict[str, Any]:
    first = {key: operation[key] for key in _OPERATION_ORDER if key in operation}
    return {**first, **{key: value for key, value in operation.items() if key not in first}}


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
        cleaned = _clean({k: v for k, v in item_schema.items() if k in ("type", "properties")}, answer=True)
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
