"""Building blocks shared by every resource controller: the context argument, the collection
paging arguments, and preparing an item for a context. Resource modules compose these; none of
them is copied per resource.
"""

from __future__ import annotations

from typing import Any

from ..compat.formatting import sanitize_text_field
from .errors import RestError
from .request import RestRequest
from .schema import filter_by_context


def contexts_of(item_schema: dict[str, Any]) -> list[str]:
    """The contexts any property of the schema lists, sorted descending as the reference does."""
    found: set[str] = set()
    for prop in item_schema.get("properties", {}).values():
        found.update(prop.get("context", ()))
    return sorted(found, reverse=True)


def context_param(item_schema: dict[str, Any] | None = None, default: str | None = "view") -> dict[str, Any]:
    """The ``context`` argument with the enum built from the item schema's contexts."""
    param: dict[str, Any] = {
        "description": "Scope under which the request is made; determines fields present in response.",
        "type": "string",
        "sanitize": _sanitize_key,
    }
    if item_schema:
        contexts = contexts_of(item_schema)
        if contexts:
            param["enum"] = contexts
    if default is not None:
        param["default"] = default
    return param


def collection_params(item_schema: dict[str, Any] | None = None, *, max_per_page: int = 100) -> dict[str, dict[str, Any]]:
    """context, page, per_page and search, with the reference's schema and limits."""
    return {
        "context": context_param(item_schema),
        "page": {
            "description": "Current page of the collection.",
            "type": "integer",
            "default": 1,
            "minimum": 1,
        },
        "per_page": {
            "description": "Maximum number of items to be returned in result set.",
            "type": "integer",
            "default": 10,
            "minimum": 1,
            "maximum": max_per_page,
        },
        "search": {
            "description": "Limit results to those matching a string.",
            "type": "string",
            "sanitize": lambda value, request, name: sanitize_text_field(str(value)),
        },
    }


def _sanitize_key(value: Any, request: RestRequest, name: str) -> str:
    text = str(value).lower()
    return "".join(ch for ch in text if ch.isascii() and (ch.isalnum() or ch in "_-"))


def fields_for_context(item_schema: dict[str, Any], context: str) -> frozenset[str]:
    """Top-level properties shown in ``context``, so that controllers build only those, as the
    reference's get_fields_for_response lets them. Worked out each call: controllers keep theirs
    in a :class:`ContextFields`."""
    return frozenset(
        name
        for name, prop in item_schema.get("properties", {}).items()
        if context in prop.get("context", ("view", "edit", "embed"))
    )


class ContextFields:
    """:func:`fields_for_context` remembered per context for one owner's item schema (a
    controller's, or a module's constant one); a schema replaced since is worked out anew. Kept by
    its owner, not in a table of the module: such a table kept every app's schemas alive, and
    through their validators the apps (a test run held hundreds of sites)."""

    __slots__ = ("_found", "_schema")

    def __init__(self) -> None:
        self._schema: dict[str, Any] | None = None
        self._found: dict[str, frozenset[str]] = {}

    def __call__(self, item_schema: dict[str, Any], context: str) -> frozenset[str]:
        if item_schema is not self._schema:
            self._schema, self._found = item_schema, {}
        found = self._found.get(context)
        if found is None:
            found = self._found[context] = fields_for_context(item_schema, context)
        return found


def prepare_for_context(data: dict[str, Any], item_schema: dict[str, Any], request: RestRequest) -> dict[str, Any]:
    """Drop the fields the request's context does not show."""
    context = request.get_param("context") or "view"
    return filter_by_context(data, item_schema, context)


def wants_field(request: RestRequest, name: str) -> bool:
    """Whether ``_fields`` (if given) asks for ``name`` or something under it, so controllers can
    skip computing what nobody asked for (the reference's rest_is_field_included)."""
    fields = request.query.get("_fields")
    if fields is None:
        return True
    key = (fields if isinstance(fields, str) else ",".join(map(str, fields)), name)
    found = _WANTED.get(key)
    if found is None:
        names = fields if isinstance(fields, list) else str(fields).split(",")
        found = False
        for entry in names:
            entry = str(entry).strip()
            if entry == name or entry.startswith(name + ".") or name.startswith(entry + "."):
                found = True
                break
        if len(_WANTED) >= 4096:
            _WANTED.clear()
        _WANTED[key] = found
    return found or (name == "_links" and "_embed" in request.query)


# (the _fields value, a field name) -> whether it asks for the field: a list of items asks the
# same question of each item (27 fields x 100 items), and the answer depends on the two texts only.
_WANTED: dict[tuple[str, str], bool] = {}


def not_logged_in() -> RestError:
    return RestError("rest_not_logged_in", "You are not currently logged in.", status=401)
