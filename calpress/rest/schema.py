"""JSON-schema subset used for endpoint arguments and response filtering.

Reproduces the reference CMS's REST schema engine: validation (``validate_value``),
sanitisation/coercion (``sanitize_value``), both together (``parse_request_arg``), response
filtering by context (``filter_by_context``) and endpoint arguments derived from an item schema
(``endpoint_args_from_schema``). Error codes, messages and ``data`` match the reference.

Values come from JSON (dict, list, str, int, float, bool, None) or from query strings, where
bracketed arrays arrive either as lists or as dicts keyed "0", "1", ... The reference runs on
PHP arrays, which do not distinguish the two; PHP's own rules (numeric strings, the casts,
"numeric array", "scalar") come from :mod:`calpress.compat.php`, the REST API's value rules built
on them (rest_is_integer, rest_is_array, rest_sanitize_array, rest_are_values_equal, ...) from
:mod:`.values`, and the ``pattern`` keyword's PCRE from :mod:`calpress.compat.pcre`.

This runs for every argument of every request, so the hot paths avoid copies and compile each
regular expression once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..compat.formatting import (
    english_list,
    esc_url_raw,
    is_email,
    is_uuid,
    sanitize_text_field,
    sanitize_textarea_field,
)
from ..compat.pcre import pattern_matches
from ..compat.php import (
    INT64_MAX,
    INT64_MIN,
    is_numeric,
    is_scalar,
    json_encode,
    num,
    number_format,
    php_d,
    php_float,
    php_int,
    php_str,
    str_number,
)
from .errors import RestError
from .formats import is_hex_color, is_ip, is_rest_date, sanitize_hex_color
from .values import (
    has_unique_items,
    is_array,
    is_boolean,
    is_integer,
    is_object,
    php_bool,
    to_list,
    to_object,
    values_equal,
)

__all__ = [
    "ALLOWED_TYPES",
    "PUBLIC_ARG_KEYS",
    "endpoint_args_from_schema",
    "filter_by_context",
    "parse_request_arg",
    "sanitize_value",
    "validate_value",
]

# The schema keywords the reference accepts (rest_get_allowed_schema_keywords); the route index
# shows exactly these for each argument, plus ``required``.
PUBLIC_ARG_KEYS: tuple[str, ...] = (
    "title", "description", "default", "type", "format", "enum", "items", "properties",
    "additionalProperties", "patternProperties", "minProperties", "maxProperties", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf",
)
_ARG_SCHEMA_KEYS = tuple(k for k in PUBLIC_ARG_KEYS if k not in ("default", "required"))

ALLOWED_TYPES = frozenset(("array", "object", "string", "number", "integer", "boolean", "null"))

# Markers standing in for the reference's validate/sanitize callbacks in generated args.
VALIDATE_MARKER = "rest_validate_request_arg"
SANITIZE_MARKER = "rest_sanitize_request_arg"

# --------------------------------------------------------------------------- messages


def _plural(count: Any, singular: str, plural: str) -> str:
    return singular if count == 1 else plural


def _enum_label(value: Any) -> str:
    return php_str(value) if is_scalar(value) else json_encode(value)


# --------------------------------------------------------------------------- patterns


def _pattern_property_schema(key: Any, schema: dict[str, Any]) -> Any:
    pattern_props = schema.get("patternProperties")
    if pattern_props:
        for pattern, child in pattern_props.items():
            if pattern_matches(pattern, key):
                return child
    return None


# --------------------------------------------------------------------------- anyOf / oneOf


def _with_parent_type(sub: Any, parent: dict[str, Any]) -> Any:
    """A sub-schema inherits the parent's ``type`` when it has none."""
    if isinstance(sub, dict) and sub.get("type") is None and parent.get("type") is not None:
        return {**sub, "type": parent["type"]}
    return sub


def _combining_error(param: str, err: RestError, schema: Any, index: int) -> RestError:
    title = schema.get("title") if isinstance(schema, dict) else None
    if title is not None:
        message = f"{param} is not a valid {php_str(title)}. Reason: {err.message}"
    else:
        message = f"{param} does not match the expected format. Reason: {err.message}"
    return RestError("rest_no_matching_schema", message, data={"position": index})


def _combined_failure(value: Any, param: str, errors: list[tuple[RestError, Any, int]]) -> RestError:
    """rest_get_combining_operation_error(): pick the most telling failure among the branches."""
    if len(errors) == 1:
        return _combining_error(param, *errors[0])
    # Drop type mismatches of the value itself; mismatches deeper down are informative.
    filtered = [
        e for e in errors
        if e[0].code != "rest_invalid_type"
        or (isinstance(e[0].data, dict) and "param" in e[0].data and e[0].data["param"] != param)
    ]
    if len(filtered) == 1:
        return _combining_error(param, *filtered[0])
    if len(filtered) > 1 and isinstance(filtered[0][1], dict) and filtered[0][1].get("type") == "object":
        best = None
        best_count = 0
        keys = set(to_object(value)) if is_object(value) else set()
        for entry in filtered:
            props = entry[1].get("properties") if isinstance(entry[1], dict) else None
            if props is not None:
                count = sum(1 for k in props if k in keys)
                if count > best_count:
                    best, best_count = entry, count
        if best is not None:
            return _combining_error(param, *best)
    titles = [e[1].get("title") for e in errors if isinstance(e[1], dict) and e[1].get("title") is not None]
    if len(titles) == len(errors):
        return RestError("rest_no_matching_schema", f"{param} is not a valid {english_list(titles)}.")
    return RestError("rest_no_matching_schema", f"{param} does not match any of the expected formats.")


def _find_any_matching(value: Any, schema: dict[str, Any], param: str) -> Any:
    """The first ``anyOf`` branch the value validates against, or a RestError."""
    errors: list[tuple[RestError, Any, int]] = []
    for index, sub in enumerate(schema["anyOf"]):
        sub = _with_parent_type(sub, schema)
        err = _validate(value, sub, param, None)
        if err is None:
            return sub
        errors.append((err, sub, index))
    return _combined_failure(value, param, errors)


def _find_one_matching(value: Any, schema: dict[str, Any], param: str, first: bool = False) -> Any:
    """The single ``oneOf`` branch the value validates against, or a RestError."""
    matches: list[tuple[Any, int]] = []
    errors: list[tuple[RestError, Any, int]] = []
    for index, sub in enumerate(schema["oneOf"]):
        sub = _with_parent_type(sub, schema)
        err = _validate(value, sub, param, None)
        if err is None:
            if first:
                return sub
            matches.append((sub, index))
        else:
            errors.append((err, sub, index))
    if not matches:
        return _combined_failure(value, param, errors)
    if len(matches) > 1:
        positions = [index for _, index in matches]
        titles = [s.get("title") for s, _ in matches if isinstance(s, dict) and s.get("title") is not None]
        if len(titles) == len(matches):
            message = f"{param} matches {english_list(titles)}, but should match only one."
        else:
            message = f"{param} matches more than one of the expected formats."
        return RestError("rest_one_of_multiple_matches", message, data={"positions": positions})
    return matches[0][0]


# --------------------------------------------------------------------------- type selection

_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "array": is_array,
    "object": is_object,
    "integer": is_integer,
    "number": is_numeric,
    "boolean": is_boolean,
    "string": lambda v: isinstance(v, str),
    "null": lambda v: v is None,
}


def _best_type(value: Any, types: list[Any]) -> str:
    """rest_handle_multi_type_schema(): the first listed type the value fits ("" if none).

    The schema's own order decides (the reference iterates the declared list), except that ""
    prefers "string" over array/object. Unknown type names are kept for backward
    compatibility: when nothing fits, the first unknown one is returned (and then accepts).
    """
    if isinstance(value, str) and value == "" and "string" in types:
        return "string"
    for t in types:
        check = _TYPE_CHECKS.get(t) if isinstance(t, str) else None
        if check is not None and check(value):
            return t
    for t in types:
        if not isinstance(t, str) or t not in ALLOWED_TYPES:
            return t if isinstance(t, str) else php_str(t)
    return ""


def _invalid_type(param: str, type_name: str) -> RestError:
    return RestError("rest_invalid_type", f"{param} is not of type {type_name}.", param=param)


# --------------------------------------------------------------------------- validation


def _validate_null(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    return None if value is None else _invalid_type(param, "null")


def _validate_boolean(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    return None if is_boolean(value) else _invalid_type(param, "boolean")


def _validate_object(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    if not is_object(value):
        return _invalid_type(param, "object")
    obj = to_object(value)
    required = schema.get("required")
    # An empty ``properties`` may be written ``[]``, as PHP's empty array (the batch route's).
    props = schema.get("properties") or None
    if isinstance(required, (list, tuple)):  # draft-04 style: a list on the object
        for name in required:
            if name not in obj:
                return RestError(
                    "rest_property_required", f"{php_str(name)} is a required property of {param}."
                )
    elif props is not None:  # draft-03 style: ``required: true`` on each property
        for name, prop in props.items():
            if isinstance(prop, dict) and prop.get("required") is True and name not in obj:
                return RestError("rest_property_required", f"{name} is a required property of {param}.")

    additional = schema.get("additionalProperties")
    has_patterns = bool(schema.get("patternProperties"))
    for key, item in obj.items():
        sub = props.get(key) if props else None
        if sub is None and has_patterns:
            sub = _pattern_property_schema(key, schema)
        if sub is None:
            if additional is False:
                return RestError(
                    "rest_additional_properties_forbidden", f"{key} is not a valid property of Object."
                )
            if isinstance(additional, dict):
                sub = additional
            else:
                continue
        if isinstance(sub, dict):
            err = _validate(item, sub, f"{param}[{key}]", None)
            if err is not None:
                return err

    min_props = schema.get("minProperties")
    if min_props is not None and len(obj) < min_props:
        return RestError(
            "rest_too_few_properties",
            f"{param} must contain at least {number_format(min_props)} "
            f"{_plural(min_props, 'property', 'properties')}.",
        )
    max_props = schema.get("maxProperties")
    if max_props is not None and len(obj) > max_props:
        return RestError(
            "rest_too_many_properties",
            f"{param} must contain at most {number_format(max_props)} "
            f"{_plural(max_props, 'property', 'properties')}.",
        )
    return None


def _validate_array(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    if not is_array(value):
        return _invalid_type(param, "array")
    items = to_list(value)
    item_schema = schema.get("items")
    if isinstance(item_schema, dict):
        for index, item in enumerate(items):
            err = _validate(item, item_schema, f"{param}[{index}]", None)
            if err is not None:
                return err
    min_items = schema.get("minItems")
    if min_items is not None and len(items) < min_items:
        return RestError(
            "rest_too_few_items",
            f"{param} must contain at least {number_format(min_items)} {_plural(min_items, 'item', 'items')}.",
        )
    max_items = schema.get("maxItems")
    if max_items is not None and len(items) > max_items:
        return RestError(
            "rest_too_many_items",
            f"{param} must contain at most {number_format(max_items)} {_plural(max_items, 'item', 'items')}.",
        )
    if schema.get("uniqueItems") and not has_unique_items(items):
        return RestError("rest_duplicate_items", f"{param} has duplicate items.")
    return None


def _bound(schema: dict[str, Any], key: str) -> Any:
    bound = schema.get(key)
    if isinstance(bound, str) and is_numeric(bound):
        return num(bound)
    return bound


def _as_number(value: Any) -> int | float | None:
    """The number for an is_numeric() value, None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return str_number(value)
    return None


def _validate_number(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    number = _as_number(value)
    if number is None:
        return _invalid_type(param, type_)
    return _number_keywords(number, schema, param)


def _number_keywords(number: int | float, schema: dict[str, Any], param: str) -> RestError | None:
    """multipleOf and the bounds, in the reference's order."""
    multiple = schema.get("multipleOf")
    if multiple is not None:
        try:
            remainder = math.fmod(number, num(multiple) if is_numeric(multiple) else multiple)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            remainder = math.nan  # PHP's fmod(x, 0) is NAN, which is not 0.0
        if remainder != 0.0:
            return RestError("rest_invalid_multiple", f"{param} must be a multiple of {php_str(multiple)}.")

    minimum = _bound(schema, "minimum")
    maximum = _bound(schema, "maximum")
    if minimum is None and maximum is None:
        return None
    excl_min = bool(schema.get("exclusiveMinimum"))
    excl_max = bool(schema.get("exclusiveMaximum"))
    # The reference formats the bounds with %d: the integer part only.
    if maximum is None:
        if excl_min and number <= minimum:
            return _out_of_bounds(f"{param} must be greater than {php_d(minimum)}")
        if not excl_min and number < minimum:
            return _out_of_bounds(f"{param} must be greater than or equal to {php_d(minimum)}")
    elif minimum is None:
        if excl_max and number >= maximum:
            return _out_of_bounds(f"{param} must be less than {php_d(maximum)}")
        if not excl_max and number > maximum:
            return _out_of_bounds(f"{param} must be less than or equal to {php_d(maximum)}")
    else:
        low_bad = number <= minimum if excl_min else number < minimum
        high_bad = number >= maximum if excl_max else number > maximum
        if low_bad or high_bad:
            return _out_of_bounds(
                f"{param} must be between {php_d(minimum)} ({'exclusive' if excl_min else 'inclusive'}) "
                f"and {php_d(maximum)} ({'exclusive' if excl_max else 'inclusive'})"
            )
    return None


def _out_of_bounds(message: str) -> RestError:
    return RestError("rest_out_of_bounds", message, data=None)


def _validate_integer(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    number = _as_number(value)
    if number is None:
        return _invalid_type(param, "integer")
    if "multipleOf" in schema or "minimum" in schema or "maximum" in schema:
        err = _number_keywords(number, schema, param)  # checked before integrality, as the reference
        if err is not None:
            return err
    if type(number) is int or math.isinf(number) or number.is_integer():
        return None
    return _invalid_type(param, "integer")


def _validate_string(value: Any, schema: dict[str, Any], param: str, type_: str) -> RestError | None:
    if not isinstance(value, str):
        return _invalid_type(param, "string")
    min_length = schema.get("minLength")
    if min_length is not None and len(value) < min_length:
        return RestError(
            "rest_too_short",
            f"{param} must be at least {number_format(min_length)} "
            f"{_plural(min_length, 'character', 'characters')} long.",
        )
    max_length = schema.get("maxLength")
    if max_length is not None and len(value) > max_length:
        return RestError(
            "rest_too_long",
            f"{param} must be at most {number_format(max_length)} "
            f"{_plural(max_length, 'character', 'characters')} long.",
        )
    pattern = schema.get("pattern")
    if pattern is not None and not pattern_matches(php_str(pattern), value):
        return RestError("rest_invalid_pattern", f"{param} does not match pattern {php_str(pattern)}.")
    return None


_VALIDATORS: dict[str, Callable[[Any, dict[str, Any], str, str], RestError | None]] = {
    "null": _validate_null,
    "boolean": _validate_boolean,
    "object": _validate_object,
    "array": _validate_array,
    "number": _validate_number,
    "string": _validate_string,
    "integer": _validate_integer,
}


def _validate_enum(value: Any, schema: dict[str, Any], param: str, type_: Any) -> RestError | None:
    """rest_validate_enum(): compare the *sanitised* value with each member."""
    try:
        sanitized = _sanitize(value, schema, param, type_)
    except RestError as err:
        return err
    enum = schema["enum"]
    for member in enum:
        if values_equal(sanitized, member):
            return None
    labels = [_enum_label(member) for member in enum]
    if len(labels) == 1:
        return RestError("rest_not_in_enum", f"{param} is not {labels[0]}.")
    return RestError("rest_not_in_enum", f"{param} is not one of {english_list(labels)}.")


def _validate_format(value: Any, fmt: Any, param: str) -> RestError | None:
    if fmt == "hex-color":
        if not is_hex_color(value if isinstance(value, str) else php_str(value)):
            return RestError("rest_invalid_hex_color", "Invalid hex color.")
    elif fmt == "date-time":
        if not is_rest_date(value if isinstance(value, str) else php_str(value)):
            return RestError("rest_invalid_date", "Invalid date.")
    elif fmt == "email":
        if not is_email(value if isinstance(value, str) else php_str(value)):
            return RestError("rest_invalid_email", "Invalid email address.")
    elif fmt == "ip":
        if not is_ip(value if isinstance(value, str) else php_str(value)):
            return RestError("rest_invalid_ip", f"{param} is not a valid IP address.")
    elif fmt == "uuid":
        if not is_uuid(value):
            return RestError("rest_invalid_uuid", f"{param} is not a valid UUID.")
    return None


def _validate(value: Any, schema: dict[str, Any], param: str, type_: Any) -> RestError | None:
    if type_ is None:
        type_ = schema.get("type")
    if "anyOf" in schema and schema["anyOf"] is not None:
        match = _find_any_matching(value, schema, param)
        if isinstance(match, RestError):
            return match
        if type_ is None and isinstance(match, dict) and match.get("type") is not None:
            type_ = match["type"]
    if "oneOf" in schema and schema["oneOf"] is not None:
        match = _find_one_matching(value, schema, param)
        if isinstance(match, RestError):
            return match
        if type_ is None and isinstance(match, dict) and match.get("type") is not None:
            type_ = match["type"]

    if isinstance(type_, list):
        best = _best_type(value, type_)
        if not best:
            return RestError(
                "rest_invalid_type",
                f"{param} is not of type {','.join(php_str(t) for t in type_)}.",
                param=param,
            )
        type_ = best

    validator = _VALIDATORS.get(type_) if isinstance(type_, str) else None
    if validator is not None:
        err = validator(value, schema, param, type_)
        if err is not None:
            return err

    if schema.get("enum"):
        err = _validate_enum(value, schema, param, type_)
        if err is not None:
            return err

    # Formats apply to strings only; for backward compatibility also when the type is
    # missing or not one of the built-in types.
    fmt = schema.get("format")
    if fmt is not None and (type_ is None or type_ == "string" or type_ not in ALLOWED_TYPES):
        return _validate_format(value, fmt, param)
    return None


def validate_value(value: Any, schema: dict[str, Any], param: str = "") -> RestError | None:
    """Check ``value`` against ``schema`` (rest_validate_value_from_schema).

    Returns None when valid, else the first failure as a RestError. Nested names use bracket
    notation (``meta[foo]``, ``tags[0]``) in messages.
    """
    return _validate(value, schema, param, None)


# --------------------------------------------------------------------------- sanitisation


def _sanitize_format(value: Any, fmt: Any) -> Any:
    if fmt == "hex-color":
        return sanitize_hex_color(value) or ""
    if fmt in ("date-time", "email", "ip", "uuid", "text-field"):
        # email: sanitize_email() would validate as well, which is not wanted here.
        return sanitize_text_field(value)
    if fmt == "uri":
        return esc_url_raw(value)
    if fmt == "textarea-field":
        return sanitize_textarea_field(value)
    return _NO_FORMAT


_NO_FORMAT = object()


def _sanitize(value: Any, schema: dict[str, Any], param: str, type_: Any) -> Any:
    if type_ is None:
        type_ = schema.get("type")
    if "anyOf" in schema and schema["anyOf"] is not None:
        match = _find_any_matching(value, schema, param)
        if isinstance(match, RestError):
            raise match
        if type_ is None and isinstance(match, dict):
            type_ = match.get("type")
        value = _sanitize(value, match, param, None)
    if "oneOf" in schema and schema["oneOf"] is not None:
        match = _find_one_matching(value, schema, param)
        if isinstance(match, RestError):
            raise match
        if type_ is None and isinstance(match, dict):
            type_ = match.get("type")
        value = _sanitize(value, match, param, None)

    if isinstance(type_, list):
        best = _best_type(value, type_)
        if not best:
            return None  # the reference returns null when no listed type fits
        type_ = best

    if type_ == "string":
        fmt = schema.get("format")
        if fmt is not None:
            result = _sanitize_format(value, fmt)
            if result is not _NO_FORMAT:
                return result
        return value if isinstance(value, str) else php_str(value)
    if type_ == "integer":
        return value if type(value) is int and INT64_MIN <= value <= INT64_MAX else php_int(value)
    if type_ == "boolean":
        return value if type(value) is bool else php_bool(value)
    if type_ == "number":
        return php_float(value)
    if type_ == "array":
        items = to_list(value)
        item_schema = schema.get("items")
        if item_schema:
            items = [_sanitize(item, item_schema, f"{param}[{i}]", None) for i, item in enumerate(items)]
        if schema.get("uniqueItems") and not has_unique_items(items):
            raise RestError("rest_duplicate_items", f"{param} has duplicate items.")
        return items
    if type_ == "object":
        return _sanitize_object(value, schema, param)
    if type_ == "null":
        return None

    fmt = schema.get("format")
    if fmt is not None and (type_ is None or type_ not in ALLOWED_TYPES):
        result = _sanitize_format(value, fmt)
        if result is not _NO_FORMAT:
            return result
    return value


def _sanitize_object(value: Any, schema: dict[str, Any], param: str) -> dict[Any, Any]:
    obj = to_object(value)
    props = schema.get("properties") or {}
    has_patterns = bool(schema.get("patternProperties"))
    additional = schema.get("additionalProperties")
    if not props and not has_patterns and additional is None:
        return obj
    out: dict[Any, Any] = {}
    for key, item in obj.items():
        sub = props.get(key)
        if sub is None and has_patterns:
            sub = _pattern_property_schema(key, schema)
        if sub is not None:
            out[key] = _sanitize(item, sub, f"{param}[{key}]", None) if isinstance(sub, dict) else item
        elif additional is False:
            continue  # unknown properties are dropped
        elif isinstance(additional, dict):
            out[key] = _sanitize(item, additional, f"{param}[{key}]", None)
        else:
            out[key] = item
    return out


def sanitize_value(value: Any, schema: dict[str, Any], param: str = "") -> Any:
    """Coerce ``value`` to the schema's type (rest_sanitize_value_from_schema).

    Raises RestError when the value cannot be sanitised (no matching anyOf/oneOf branch,
    duplicate items under ``uniqueItems``). As in the reference, a value fitting none of a
    list of types sanitises to None rather than failing (validation reports that case).
    """
    return _sanitize(value, schema, param, None)


def parse_request_arg(value: Any, schema: dict[str, Any], param: str) -> Any:
    """Validate, then sanitise (rest_parse_request_arg). Raises the validation RestError."""
    err = _validate(value, schema, param, None)
    if err is not None:
        raise err
    return _sanitize(value, schema, param, None)


# --------------------------------------------------------------------------- context filtering


def filter_by_context(data: Any, schema: dict[str, Any], context: str) -> Any:
    """Drop the fields whose schema ``context`` list lacks ``context`` (rest_filter_response_by_context).

    Recurses through object properties, patternProperties, additionalProperties schemas,
    array items and the first matching anyOf/oneOf branch. Only children whose schema has a
    ``context`` key are examined (or recursed into). The input is never modified: containers
    are copied only where something changes.
    """
    type_ = schema.get("type")
    if schema.get("anyOf") is not None:
        match = _find_any_matching(data, schema, "")
        if not isinstance(match, RestError):
            if type_ is None and isinstance(match, dict):
                type_ = match.get("type")
            data = filter_by_context(data, match, context)
    if schema.get("oneOf") is not None:
        match = _find_one_matching(data, schema, "", first=True)
        if not isinstance(match, RestError):
            if type_ is None and isinstance(match, dict):
                type_ = match.get("type")
            data = filter_by_context(data, match, context)

    if not isinstance(data, (dict, list)):
        return data
    if type_ is None:
        if schema.get("properties") is None:
            return data
        type_ = "object"  # back compat: a schema with properties but no type

    if isinstance(type_, list):
        is_array_type = "array" in type_
        is_object_type = "object" in type_
    else:
        is_array_type = type_ == "array"
        is_object_type = type_ == "object"
    if is_array_type and is_object_type:
        if is_array(data):
            is_object_type = False
        else:
            is_array_type = False

    if is_array_type:
        items = schema.get("items")
        if not isinstance(items, dict) or "context" not in items:
            return data
        if context not in (items.get("context") or ()):
            # All items share one schema: none of them is visible.
            return []
        out_list: Any = None
        entries = enumerate(data) if isinstance(data, list) else list(data.items())
        for key, value in entries:
            if isinstance(value, (dict, list)):
                new = filter_by_context(value, items, context)
                if new is not value:
                    if out_list is None:
                        out_list = list(data) if isinstance(data, list) else dict(data)
                    out_list[key] = new
        return data if out_list is None else out_list

    if not is_object_type:
        return data

    props = schema.get("properties") or {}
    has_patterns = bool(schema.get("patternProperties"))
    additional = schema.get("additionalProperties")
    has_additional = isinstance(additional, dict)
    source = data if isinstance(data, dict) else {str(i): v for i, v in enumerate(data)}
    out: dict[Any, Any] | None = None
    for key, value in source.items():
        check = props.get(key) if props else None
        if check is None and has_patterns:
            check = _pattern_property_schema(key, schema)
        if check is None and has_additional:
            check = additional
        if not isinstance(check, dict) or "context" not in check:
            continue
        if context not in (check.get("context") or ()):
            if out is None:
                out = dict(source)
            del out[key]
        elif isinstance(value, (dict, list)):
            new = filter_by_context(value, check, context)
            if new is not value:
                if out is None:
                    out = dict(source)
                out[key] = new
    if out is None:
        return data
    return out


# --------------------------------------------------------------------------- endpoint args


def endpoint_args_from_schema(schema: dict[str, Any], method: str = "POST") -> dict[str, dict[str, Any]]:
    """Endpoint arguments for the writable properties of an item schema (rest_get_endpoint_args_for_schema).

    ``method`` "POST" is the creatable endpoint: there a property's ``default`` is kept and a
    truthy ``required`` makes the argument required. Any other method (the editable
    "POST, PUT, PATCH" endpoint, "PUT", ...) gets neither. ``readonly`` properties are skipped.
    Each argument carries the schema keywords it declares (``PUBLIC_ARG_KEYS`` minus default)
    and plain-data markers for the reference's validate/sanitize callbacks; a property's
    ``arg_options`` are merged last (without required/default except when creatable).
    """
    properties = schema.get("properties") or {}
    creatable = isinstance(method, str) and method.strip().upper() == "POST"
    args: dict[str, dict[str, Any]] = {}
    for name, prop in properties.items():
        if not isinstance(prop, dict) or prop.get("readonly"):
            continue
        arg: dict[str, Any] = {"validate_callback": VALIDATE_MARKER, "sanitize_callback": SANITIZE_MARKER}
        if creatable and prop.get("default") is not None:
            arg["default"] = prop["default"]
        if creatable and prop.get("required"):
            arg["required"] = True
        for key in _ARG_SCHEMA_KEYS:
            if key in prop and prop[key] is not None:
                arg[key] = prop[key]
        options = prop.get("arg_options")
        if isinstance(options, dict):
            if not creatable:
                options = {k: v for k, v in options.items() if k not in ("required", "default")}
            arg.update(options)
        args[name] = arg
    return args
