"""Loose values, as the calendar's callers hand them over: REST arguments (query strings, form
fields, JSON), HTML forms and import feeds all give flags as strings, lists as CSV strings, lists
or PHP-style keyed arrays (``a[0]=x&a[1]=y`` arrives as ``{"0": "x", "1": "y"}``). The listing and
input services read them through these helpers, whoever calls."""

from __future__ import annotations

from typing import Any

_TRUE = frozenset({"1", "true", "yes", "on"})


def truthy(value: Any) -> bool:
    """A flag as PHP's boolean-ish strings read it: ``1``, ``true``, ``yes``, ``on`` (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return str(value).strip().lower() in _TRUE


def as_list(value: Any) -> list[Any]:
    """A CSV string or a list (PHP-style keyed arrays too) as a list of stripped items."""
    if value is None:
        return []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        out: list[Any] = []
        for entry in value:
            out.extend(as_list(entry) if isinstance(entry, str) and "," in entry else [entry])
        return [e.strip() if isinstance(e, str) else e for e in out if not (isinstance(e, str) and not e.strip())]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def linked_entries(value: Any) -> list[Any]:
    """The entries of a venue or organizer value given on an event: ids (CSV strings too),
    objects (``{"id": N}`` or a record to create), or a list of them; a PHP-style list sent as
    form fields is a list."""
    if isinstance(value, dict):
        keys = list(value)
        if keys and all(str(k).isdigit() for k in keys):
            return list(value.values())
        return [value]
    if isinstance(value, list):
        out: list[Any] = []
        for entry in value:
            out.extend(as_list(entry) if isinstance(entry, str) else [entry])
        return out
    return as_list(value)


def is_empty_link(value: Any) -> bool:
    """A venue or organizer value that unlinks: nothing, ``""``, ``0``, an empty list or object."""
    return value in (None, "", 0, "0", [], {})
