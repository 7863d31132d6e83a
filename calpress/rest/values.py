"""The REST API's value rules, built on PHP's (:mod:`calpress.compat.php`): which values count as
an integer, a boolean, an array or an object to the schema engine and what they sanitise to
(rest_is_integer, rest_is_boolean, rest_is_array / rest_sanitize_array, rest_is_object /
rest_sanitize_object, rest_sanitize_boolean), and how values compare for ``enum`` and
``uniqueItems`` (rest_are_values_equal, rest_validate_array_contains_unique_items).
"""

from __future__ import annotations

import math
from typing import Any

from ..compat.php import is_list_like, is_scalar, parse_list, php_key, str_number

__all__ = [
    "has_unique_items",
    "is_array",
    "is_boolean",
    "is_integer",
    "is_object",
    "php_bool",
    "to_list",
    "to_object",
    "values_equal",
]


def is_integer(value: Any) -> bool:
    """rest_is_integer(): numeric and without fractional part ("5.0" counts; INF too, as in PHP)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isinf(value) or value.is_integer()
    if isinstance(value, str):
        number = str_number(value)
        if number is None:
            return False
        return isinstance(number, int) or math.isinf(number) or number.is_integer()
    return False


def is_boolean(value: Any) -> bool:
    """rest_is_boolean(): true/false, 0/1, and the strings true/false/1/0 in any case."""
    if isinstance(value, bool):
        return True
    if isinstance(value, str):
        return value.lower() in ("false", "true", "0", "1")
    if isinstance(value, int):
        return value in (0, 1)
    return False


def is_array(value: Any) -> bool:
    """rest_is_array(): scalars always qualify (they become a parsed list); else a numeric array."""
    if isinstance(value, (list, tuple)):
        return True
    if is_scalar(value):
        return True
    return is_list_like(value)


def to_list(value: Any) -> list[Any]:
    """rest_sanitize_array(): scalar -> parsed list, array -> its values, anything else -> []."""
    if isinstance(value, list):
        return value
    if isinstance(value, tuple):
        return list(value)
    if is_scalar(value):
        return parse_list(value)
    if isinstance(value, dict):
        return list(value.values())
    return []


def is_object(value: Any) -> bool:
    """rest_is_object(): "" (an empty form field), a dict, or any PHP array (so a list too)."""
    if isinstance(value, (dict, list, tuple)):
        return True
    return isinstance(value, str) and value == ""


def to_object(value: Any) -> dict[Any, Any]:
    """rest_sanitize_object(): dicts as they are, lists keyed by index, anything else -> {}."""
    if isinstance(value, dict):
        return value
    if isinstance(value, (list, tuple)):
        return {str(i): v for i, v in enumerate(value)}
    return {}


def php_bool(value: Any) -> bool:
    """rest_sanitize_boolean(): "false"/"0" (any case) are false, then PHP truthiness."""
    if isinstance(value, str):
        return value.lower() not in ("false", "0", "")
    if isinstance(value, float):
        return value != 0.0
    return bool(value)


def _keyed(value: Any) -> dict[Any, Any]:
    if isinstance(value, dict):
        return {php_key(k): v for k, v in value.items()}
    return dict(enumerate(value))


def values_equal(a: Any, b: Any) -> bool:
    """rest_are_values_equal(): strict equality, except int/float compare by value and arrays
    compare key by key (so object property order does not matter)."""
    a_arr = isinstance(a, (list, tuple, dict))
    b_arr = isinstance(b, (list, tuple, dict))
    if a_arr and b_arr:
        if len(a) != len(b):
            return False
        if isinstance(a, list) and isinstance(b, list):
            return all(values_equal(x, y) for x, y in zip(a, b))
        ka, kb = _keyed(a), _keyed(b)
        for key, item in ka.items():
            if key not in kb or not values_equal(item, kb[key]):
                return False
        return True
    ta, tb = type(a), type(b)
    if (ta is int and tb is float) or (ta is float and tb is int):
        return float(a) == float(b)
    return ta is tb and a == b


def _stable_key(value: Any) -> Any:
    """A hashable key equal for values the reference's serialize(rest_stabilize_value()) equates:
    types matter (1, 1.0, "1" and true differ), object key order does not."""
    if value is None:
        return ("N",)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("i", value)
    if isinstance(value, float):
        return ("d", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, (list, tuple)):
        return ("a", tuple((i, _stable_key(v)) for i, v in enumerate(value)))
    if isinstance(value, dict):
        items = sorted(
            ((php_key(k), _stable_key(v)) for k, v in value.items()),
            key=lambda kv: (isinstance(kv[0], str), kv[0]),
        )
        return ("a", tuple(items))
    return ("o", id(value))


def has_unique_items(items: list[Any]) -> bool:
    seen: set[Any] = set()
    for item in items:
        key = _stable_key(item)
        if key in seen:
            return False
        seen.add(key)
    return True
