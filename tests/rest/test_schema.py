"""Schema engine: the reference's validation codes/messages, coercions, context filtering and endpoint args."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from calpress.rest.errors import RestError
from calpress.rest.schema import (
    PUBLIC_ARG_KEYS,
    endpoint_args_from_schema,
    filter_by_context,
    parse_request_arg,
    sanitize_value,
    validate_value,
)


def fail(value: Any, schema: dict[str, Any], param: str = "x") -> RestError:
    """The validation error for ``value`` (the test fails when the value is accepted)."""
    err = validate_value(value, schema, param)
    assert err is not None, f"{value!r} unexpectedly valid for {schema!r}"
    assert isinstance(err, RestError)
    return err


def ok(value: Any, schema: dict[str, Any], param: str = "x") -> None:
    err = validate_value(value, schema, param)
    assert err is None, f"{value!r} rejected: {err!r}"


def type_error(param: str, type_name: str) -> tuple[str, str, Any]:
    return ("rest_invalid_type", f"{param} is not of type {type_name}.", {"param": param})


def triple(err: RestError) -> tuple[str, str, Any]:
    return (err.code, err.message, err.data)


# --------------------------------------------------------------------------- types


@pytest.mark.parametrize("value", [5, -3, 0, "5", " 5 ", "+7", "-3", "5.0", 5.0, "1e3", 10**20])
def test_integer_accepts(value: Any) -> None:
    ok(value, {"type": "integer"})


@pytest.mark.parametrize("value", ["abc", "1.5", 1.5, True, False, None, [], {}, "", "5 apples", "0x1A"])
def test_integer_rejects(value: Any) -> None:
    assert triple(fail(value, {"type": "integer"}, "page")) == type_error("page", "integer")


@pytest.mark.parametrize("value", [1.5, "1.5", 2, "-0.5", ".5", "1e-3", " 3 "])
def test_number_accepts(value: Any) -> None:
    ok(value, {"type": "number"})


@pytest.mark.parametrize("value", ["abc", True, None, [], "1,5", "."])
def test_number_rejects(value: Any) -> None:
    assert triple(fail(value, {"type": "number"})) == type_error("x", "number")


@pytest.mark.parametrize("value", [True, False, 0, 1, "true", "false", "TRUE", "False", "1", "0"])
def test_boolean_accepts(value: Any) -> None:
    ok(value, {"type": "boolean"})


@pytest.mark.parametrize("value", ["yes", "no", "notaboolean", 2, -1, 1.0, None, "", [], "on"])
def test_boolean_rejects(value: Any) -> None:
    assert triple(fail(value, {"type": "boolean"}, "force")) == type_error("force", "boolean")


@pytest.mark.parametrize("value", ["", "text", "5"])
def test_string_accepts(value: Any) -> None:
    ok(value, {"type": "string"})


@pytest.mark.parametrize("value", [5, 1.5, True, None, [], {}])
def test_string_rejects_non_strings(value: Any) -> None:
    assert triple(fail(value, {"type": "string"}, "title")) == type_error("title", "string")


def test_null_type() -> None:
    ok(None, {"type": "null"})
    assert triple(fail("", {"type": "null"})) == type_error("x", "null")
    assert triple(fail(0, {"type": "null"})) == type_error("x", "null")


@pytest.mark.parametrize(
    "value",
    [[], ["a"], "a,b", "", "single", 5, True, {"0": "a", "1": "b"}, {"1": "b", "0": "a"}, {}],
)
def test_array_accepts_lists_bracket_dicts_and_scalars(value: Any) -> None:
    ok(value, {"type": "array"})


@pytest.mark.parametrize("value", [None, {"a": 1}, {"0": "a", "x": "b"}, {"01": "a"}])
def test_array_rejects_associative_and_null(value: Any) -> None:
    assert triple(fail(value, {"type": "array"}, "tags")) == type_error("tags", "array")


@pytest.mark.parametrize("value", [{}, {"a": 1}, "", [], [1, 2]])
def test_object_accepts(value: Any) -> None:
    ok(value, {"type": "object"})


@pytest.mark.parametrize("value", ["abc", 5, None, True])
def test_object_rejects(value: Any) -> None:
    assert triple(fail(value, {"type": "object"}, "meta")) == type_error("meta", "object")


def test_schema_without_type_accepts_anything() -> None:
    ok({"a": [1]}, {})
    ok("x", {"description": "no type"})


# --------------------------------------------------------------------------- multiple types


def test_multi_type_error_lists_types_with_commas() -> None:
    assert triple(fail(5, {"type": ["string", "null"]}, "x")) == (
        "rest_invalid_type",
        "x is not of type string,null.",
        {"param": "x"},
    )
    assert fail([1], {"type": ["integer", "boolean", "string"]}).message == "x is not of type integer,boolean,string."


def test_multi_type_nullable_string() -> None:
    schema = {"type": ["string", "null"]}
    ok(None, schema)
    ok("a", schema)
    assert sanitize_value(None, schema) is None
    assert sanitize_value("a", schema) == "a"


def test_multi_type_picks_the_first_declared_type_that_fits() -> None:
    assert sanitize_value("5", {"type": ["integer", "string"]}) == 5
    assert sanitize_value("abc", {"type": ["integer", "string"]}) == "abc"
    # Declared order decides: a numeric string is a string first here.
    assert sanitize_value("5", {"type": ["string", "integer"]}) == "5"
    assert sanitize_value("1", {"type": ["boolean", "integer"]}) is True
    assert sanitize_value(5, {"type": ["boolean", "integer"]}) == 5
    assert sanitize_value(True, {"type": ["number", "boolean"]}) is True
    assert sanitize_value("2.5", {"type": ["integer", "number"]}) == 2.5


def test_multi_type_empty_string_prefers_string_over_array_and_object() -> None:
    assert sanitize_value("", {"type": ["array", "string"]}) == ""
    assert sanitize_value("", {"type": ["object", "string"]}) == ""
    assert sanitize_value("", {"type": ["object", "null"]}) == {}
    assert sanitize_value("a,b", {"type": ["array", "string"]}) == ["a", "b"]


def test_multi_type_keyword_checks_use_the_selected_type() -> None:
    schema = {"type": ["integer", "string"], "minimum": 1, "maxLength": 2}
    assert fail(0, schema).code == "rest_out_of_bounds"
    assert fail("abc", schema).code == "rest_too_long"
    ok("ab", schema)


def test_multi_type_format_only_checked_when_string_is_selected() -> None:
    schema = {"type": ["string", "null"], "format": "email"}
    ok(None, schema)
    ok("someone@example.com", schema)
    assert triple(fail("nope", schema)) == ("rest_invalid_email", "Invalid email address.", None)


def test_multi_type_with_an_unknown_type_accepts_for_backward_compatibility() -> None:
    schema = {"type": ["string", "custom"]}
    ok(5, schema)
    assert sanitize_value(5, schema) == 5


def test_sanitize_multi_type_without_a_fitting_type_gives_none() -> None:
    assert sanitize_value([1], {"type": ["integer", "null"]}) is None


# --------------------------------------------------------------------------- enum


def test_enum_messages() -> None:
    schema = {"type": "string", "enum": ["view", "embed", "edit"]}
    ok("edit", schema)
    assert triple(fail("foo", schema, "context")) == (
        "rest_not_in_enum",
        "context is not one of view, embed, and edit.",
        None,
    )
    assert fail("c", {"type": "string", "enum": ["a", "b"]}).message == "x is not one of a and b."
    assert fail("c", {"type": "string", "enum": ["a"]}).message == "x is not a."


def test_enum_compares_the_sanitised_value() -> None:
    schema = {"type": "integer", "enum": [1, 2]}
    ok("2", schema)
    ok(2.0, schema)
    assert fail("3", schema).message == "x is not one of 1 and 2."
    ok("1", {"type": "number", "enum": [1, 2]})  # 1.0 equals 1
    ok("true", {"type": "boolean", "enum": [True]})
    assert fail("false", {"type": "boolean", "enum": [True]}).message == "x is not 1."


def test_enum_equality_is_strict_about_types() -> None:
    assert fail("1", {"type": "string", "enum": [1]}).message == "x is not 1."
    assert fail(1, {"type": "integer", "enum": ["1"]}).message == "x is not 1."
    assert fail(1, {"type": "integer", "enum": [True]}).message == "x is not 1."


def test_enum_labels_for_non_scalar_members() -> None:
    assert fail("b", {"type": ["string", "null"], "enum": ["a", None]}).message == "x is not one of a and null."
    err = fail([2, 1], {"type": "array", "enum": [[1, 2], {"a": "b/c"}]})
    assert err.message == 'x is not one of [1,2] and {"a":"b\\/c"}.'
    assert fail("z", {"type": "string", "enum": ["a", False, 1.5]}).message == "x is not one of a, , and 1.5."


def test_enum_object_members_ignore_key_order() -> None:
    schema = {"type": "object", "enum": [{"a": 1, "b": 2}]}
    ok({"b": 2, "a": 1}, schema)
    assert fail({"a": 1}, schema).code == "rest_not_in_enum"


def test_enum_array_members_respect_order() -> None:
    schema = {"type": "array", "items": {"type": "integer"}, "enum": [[1, 2]]}
    ok("1,2", schema)
    assert fail("2,1", schema).code == "rest_not_in_enum"


def test_empty_enum_is_ignored_and_enum_without_type_still_applies() -> None:
    ok("anything", {"type": "string", "enum": []})
    ok("a", {"enum": ["a", "b"]})
    assert fail("c", {"enum": ["a", "b"]}).message == "x is not one of a and b."


# --------------------------------------------------------------------------- numeric keywords


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"minimum": 1}, 0, "x must be greater than or equal to 1"),
        ({"minimum": 1, "exclusiveMinimum": True}, 1, "x must be greater than 1"),
        ({"maximum": 10}, 11, "x must be less than or equal to 10"),
        ({"maximum": 10, "exclusiveMaximum": True}, 10, "x must be less than 10"),
        ({"minimum": 1, "maximum": 100}, 101, "x must be between 1 (inclusive) and 100 (inclusive)"),
        ({"minimum": 1, "maximum": 100}, 0, "x must be between 1 (inclusive) and 100 (inclusive)"),
        (
            {"minimum": 1, "maximum": 100, "exclusiveMinimum": True},
            1,
            "x must be between 1 (exclusive) and 100 (inclusive)",
        ),
        (
            {"minimum": 1, "maximum": 100, "exclusiveMaximum": True},
            100,
            "x must be between 1 (inclusive) and 100 (exclusive)",
        ),
        (
            {"minimum": 1, "maximum": 100, "exclusiveMinimum": True, "exclusiveMaximum": True},
            100,
            "x must be between 1 (exclusive) and 100 (exclusive)",
        ),
        # Bounds print as integers (the reference formats them with %d).
        ({"minimum": 0.5}, 0.25, "x must be greater than or equal to 0"),
        ({"minimum": -1.5, "maximum": 2.9}, 3, "x must be between -1 (inclusive) and 2 (inclusive)"),
    ],
)
def test_bounds(schema: dict[str, Any], value: Any, message: str) -> None:
    err = fail(value, {"type": "number", **schema})
    assert triple(err) == ("rest_out_of_bounds", message, None)
    assert err.to_dict() == {"code": "rest_out_of_bounds", "message": message, "data": None}


def test_bounds_accept_edges_and_numeric_strings() -> None:
    schema = {"type": "integer", "minimum": 1, "maximum": 100}
    ok(1, schema)
    ok(100, schema)
    ok("50", schema)
    assert fail("0", schema, "per_page").message == "per_page must be between 1 (inclusive) and 100 (inclusive)"
    assert fail("101", schema, "per_page").code == "rest_out_of_bounds"


def test_integer_bounds_are_checked_before_integrality() -> None:
    schema = {"type": "integer", "minimum": 1, "maximum": 10}
    assert fail(11.5, schema).code == "rest_out_of_bounds"
    assert fail(5.5, schema).code == "rest_invalid_type"


def test_multiple_of() -> None:
    assert triple(fail(10, {"type": "integer", "multipleOf": 3})) == (
        "rest_invalid_multiple",
        "x must be a multiple of 3.",
        None,
    )
    ok(9, {"type": "integer", "multipleOf": 3})
    ok("1.5", {"type": "number", "multipleOf": 0.5})
    assert fail(1.25, {"type": "number", "multipleOf": 0.5}).message == "x must be a multiple of 0.5."


# --------------------------------------------------------------------------- string keywords


def test_min_and_max_length_messages() -> None:
    assert triple(fail("a", {"type": "string", "minLength": 2})) == (
        "rest_too_short",
        "x must be at least 2 characters long.",
        None,
    )
    assert fail("", {"type": "string", "minLength": 1}).message == "x must be at least 1 character long."
    assert triple(fail("ab", {"type": "string", "maxLength": 1})) == (
        "rest_too_long",
        "x must be at most 1 character long.",
        None,
    )
    assert fail("a" * 1001, {"type": "string", "maxLength": 1000}).message == "x must be at most 1,000 characters long."


def test_length_counts_characters_not_bytes() -> None:
    ok("été", {"type": "string", "maxLength": 3})
    ok("😀😀", {"type": "string", "maxLength": 2, "minLength": 2})
    assert fail("日本", {"type": "string", "minLength": 3}).code == "rest_too_short"


def test_pattern_is_only_checked_for_strings() -> None:
    ok(123, {"type": "integer", "pattern": "^a$"})


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("fmt", "good", "bad", "error"),
    [
        ("date-time", "2020-01-02T03:04:05", "2020-01-02", ("rest_invalid_date", "Invalid date.", None)),
        ("email", "admin@example.com", "admin@", ("rest_invalid_email", "Invalid email address.", None)),
        ("ip", "192.168.0.1", "999.1.1.1", ("rest_invalid_ip", "field is not a valid IP address.", None)),
        ("ip", "::1", "::g", ("rest_invalid_ip", "field is not a valid IP address.", None)),
        (
            "uuid",
            "123e4567-e89b-12d3-a456-426614174000",
            "123E4567-E89B-12D3-A456-426614174000",
            ("rest_invalid_uuid", "field is not a valid UUID.", None),
        ),
        ("hex-color", "#a1b2c3", "#abcd", ("rest_invalid_hex_color", "Invalid hex color.", None)),
    ],
)
def test_formats(fmt: str, good: str, bad: str, error: tuple[str, str, Any]) -> None:
    schema = {"type": "string", "format": fmt}
    ok(good, schema, "field")
    assert triple(fail(bad, schema, "field")) == error


def test_date_time_format_variants() -> None:
    schema = {"type": "string", "format": "date-time"}
    for good in ("2020-01-02 03:04:05", "2020-01-02t03:04:05.123Z", "2020-01-02T03:04:05+02:00", "2020-01-02T03:04:05-05"):
        ok(good, schema)
    for bad in ("2020-01-02T03:04", "02/01/2020", "2020-01-02T03:04:05+0200", "1970-01-01T00:00:00Z"):
        assert fail(bad, schema).code == "rest_invalid_date"


def test_formats_are_ignored_for_other_types_and_apply_without_type() -> None:
    ok(5, {"type": "integer", "format": "email"})
    ok(["x"], {"type": "array", "format": "uuid"})
    assert fail("nope", {"format": "email"}).code == "rest_invalid_email"


def test_uri_and_text_formats_do_not_validate() -> None:
    ok("not a url at all", {"type": "string", "format": "uri"})
    ok("<b>x</b>", {"type": "string", "format": "text-field"})


# --------------------------------------------------------------------------- arrays


def test_array_items_use_indexed_names() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    assert triple(fail(["a", 5], schema, "tags")) == type_error("tags[1]", "string")
    int_items = {"type": "array", "items": {"type": "integer"}}
    assert triple(fail("1,x", int_items, "tags")) == type_error("tags[1]", "integer")
    assert triple(fail({"0": "1", "1": "x"}, int_items, "tags")) == type_error("tags[1]", "integer")
    ok("1, 2 ,3", int_items)


def test_min_and_max_items() -> None:
    assert triple(fail("", {"type": "array", "minItems": 1})) == (
        "rest_too_few_items",
        "x must contain at least 1 item.",
        None,
    )
    assert fail(["a"], {"type": "array", "minItems": 2}).message == "x must contain at least 2 items."
    assert triple(fail([1, 2, 3], {"type": "array", "maxItems": 2})) == (
        "rest_too_many_items",
        "x must contain at most 2 items.",
        None,
    )
    assert fail([1, 2], {"type": "array", "maxItems": 1}).message == "x must contain at most 1 item."
    ok([1, 2], {"type": "array", "minItems": 2, "maxItems": 2})


def test_unique_items() -> None:
    schema = {"type": "array", "uniqueItems": True}
    assert triple(fail("a,b,a", schema, "tags")) == ("rest_duplicate_items", "tags has duplicate items.", None)
    assert fail([{"a": 1, "b": 2}, {"b": 2, "a": 1}], schema).code == "rest_duplicate_items"
    assert fail([[1, 2], [1, 2]], schema).code == "rest_duplicate_items"
    # Raw values compare with their types: these are all distinct.
    ok([1, "1"], schema)
    ok([1, 1.0], schema)
    ok([True, 1], schema)
    ok([[1, 2], [2, 1]], schema)
    ok([None, ""], schema)
    ok(["a", "a"], {"type": "array", "uniqueItems": False})


def test_unique_items_after_sanitising_raises() -> None:
    schema = {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}
    ok(["1", 1], schema)  # distinct as raw values
    with pytest.raises(RestError) as caught:
        sanitize_value(["1", 1], schema, "ids")
    assert triple(caught.value) == ("rest_duplicate_items", "ids has duplicate items.", None)
    with pytest.raises(RestError):
        parse_request_arg(["1", 1], schema, "ids")


# --------------------------------------------------------------------------- objects


META = {
    "type": "object",
    "properties": {
        "foo": {"type": "string"},
        "n": {"type": "integer"},
        "deep": {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}}},
    },
}


def test_object_property_names_nest_in_brackets() -> None:
    assert triple(fail({"foo": 5}, META, "meta")) == type_error("meta[foo]", "string")
    assert triple(fail({"deep": {"list": [1, "x"]}}, META, "meta")) == type_error("meta[deep][list][1]", "integer")
    ok({"foo": "a", "n": "5", "other": [1]}, META, "meta")


def test_additional_properties_false() -> None:
    schema = {**META, "additionalProperties": False}
    assert triple(fail({"foo": "a", "bar": 1}, schema, "meta")) == (
        "rest_additional_properties_forbidden",
        "bar is not a valid property of Object.",
        None,
    )


def test_additional_properties_schema() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    ok({"a": 1, "b": "2"}, schema)
    assert triple(fail({"a": 1, "b": "x"}, schema, "meta")) == type_error("meta[b]", "integer")


def test_pattern_properties() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x_": {"type": "integer"}},
        "additionalProperties": False,
    }
    ok({"name": "a", "x_count": 3}, schema)
    assert triple(fail({"x_count": "many"}, schema, "meta")) == type_error("meta[x_count]", "integer")
    assert fail({"y": 1}, schema, "meta").code == "rest_additional_properties_forbidden"


def test_required_properties_draft4_list() -> None:
    schema = {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "integer"}}}
    assert triple(fail({"a": 1}, schema, "meta")) == (
        "rest_property_required",
        "b is a required property of meta.",
        None,
    )
    ok({"a": 1, "b": None}, schema)  # present, even if null


def test_required_properties_draft3_flags() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "required": True}, "b": {"type": "string"}}}
    assert triple(fail({"b": "x"}, schema, "meta")) == (
        "rest_property_required",
        "a is a required property of meta.",
        None,
    )
    ok({"a": "x"}, schema)
    assert fail("", schema, "meta").code == "rest_property_required"  # "" is an empty object


def test_required_list_takes_precedence_over_property_flags() -> None:
    schema = {"type": "object", "required": ["b"], "properties": {"a": {"type": "string", "required": True}}}
    ok({"b": 1}, schema)


def test_min_and_max_properties() -> None:
    assert triple(fail({"a": 1}, {"type": "object", "minProperties": 2}, "meta")) == (
        "rest_too_few_properties",
        "meta must contain at least 2 properties.",
        None,
    )
    assert fail({}, {"type": "object", "minProperties": 1}, "meta").message == "meta must contain at least 1 property."
    assert triple(fail({"a": 1, "b": 2}, {"type": "object", "maxProperties": 1}, "meta")) == (
        "rest_too_many_properties",
        "meta must contain at most 1 property.",
        None,
    )
    assert (
        fail({"a": 1, "b": 2, "c": 3}, {"type": "object", "maxProperties": 2}, "meta").message
        == "meta must contain at most 2 properties."
    )


# --------------------------------------------------------------------------- anyOf / oneOf


def test_any_of_single_failure_wraps_the_reason() -> None:
    err = fail("abc", {"anyOf": [{"type": "integer"}]})
    assert triple(err) == (
        "rest_no_matching_schema",
        "x does not match the expected format. Reason: x is not of type integer.",
        {"position": 0},
    )
    titled = fail("abc", {"anyOf": [{"type": "integer", "title": "ID"}]})
    assert titled.message == "x is not a valid ID. Reason: x is not of type integer."


def test_any_of_all_type_mismatches() -> None:
    titled = {"anyOf": [{"type": "integer", "title": "ID"}, {"type": "boolean", "title": "Flag"}]}
    assert triple(fail("abc", titled)) == ("rest_no_matching_schema", "x is not a valid ID and Flag.", None)
    untitled = {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
    assert triple(fail("abc", untitled)) == (
        "rest_no_matching_schema",
        "x does not match any of the expected formats.",
        None,
    )


def test_any_of_reports_the_deeper_failure() -> None:
    schema = {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "string", "title": "Text"},
        ]
    }
    assert triple(fail({"a": "z"}, schema)) == (
        "rest_no_matching_schema",
        "x does not match the expected format. Reason: x[a] is not of type integer.",
        {"position": 0},
    )


def test_any_of_picks_the_object_branch_sharing_most_properties() -> None:
    schema = {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
            {
                "type": "object",
                "title": "CD",
                "properties": {"c": {"type": "string"}, "d": {"type": "string"}},
                "additionalProperties": False,
            },
        ]
    }
    assert triple(fail({"c": 1, "d": "x"}, schema)) == (
        "rest_no_matching_schema",
        "x is not a valid CD. Reason: x[c] is not of type string.",
        {"position": 1},
    )


def test_any_of_branches_inherit_the_parent_type() -> None:
    schema = {"type": "integer", "anyOf": [{"minimum": 10}, {"maximum": 0}]}
    ok(11, schema)
    ok(-1, schema)
    assert fail(5, schema).code == "rest_no_matching_schema"
    assert sanitize_value("11", schema) == 11


def test_one_of() -> None:
    schema = {"oneOf": [{"type": "integer"}, {"type": "boolean"}]}
    ok(5, schema)
    assert sanitize_value("5", schema) == 5
    assert sanitize_value("true", schema) is True
    err = fail("1", schema)  # both an integer and a boolean
    assert triple(err) == (
        "rest_one_of_multiple_matches",
        "x matches more than one of the expected formats.",
        {"positions": [0, 1]},
    )
    titled = {"oneOf": [{"type": "integer", "title": "A"}, {"type": "number", "title": "B"}]}
    assert triple(fail(5, titled)) == (
        "rest_one_of_multiple_matches",
        "x matches A and B, but should match only one.",
        {"positions": [0, 1]},
    )
    assert fail("abc", titled).message == "x is not a valid A and B."


def test_sanitize_with_no_matching_branch_raises() -> None:
    with pytest.raises(RestError) as caught:
        sanitize_value("abc", {"anyOf": [{"type": "integer"}]}, "x")
    assert caught.value.code == "rest_no_matching_schema"


# --------------------------------------------------------------------------- sanitising


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("TRUE", True), ("false", False), ("False", False), ("1", True), ("0", False), (0, False), (1, True), (True, True)],
)
def test_sanitize_boolean(value: Any, expected: bool) -> None:
    assert sanitize_value(value, {"type": "boolean"}) is expected


def test_sanitize_string_formats() -> None:
    assert sanitize_value("javascript:alert(1)", {"type": "string", "format": "uri"}) == ""
    assert sanitize_value("example.com/a b", {"type": "string", "format": "uri"}) == "http://example.com/a%20b"
    assert sanitize_value(" 2020-01-01T00:00:00\n", {"type": "string", "format": "date-time"}) == "2020-01-01T00:00:00"
    assert sanitize_value(" <b>a@b.co</b> ", {"type": "string", "format": "email"}) == "a@b.co"
    assert sanitize_value(" ::1 ", {"type": "string", "format": "ip"}) == "::1"
    assert sanitize_value("x<br>y  z", {"type": "string", "format": "text-field"}) == "xy z"
    assert sanitize_value("a\n\n<i>b</i>", {"type": "string", "format": "textarea-field"}) == "a\n\nb"
    assert sanitize_value("#ABC", {"type": "string", "format": "hex-color"}) == "#ABC"
    assert sanitize_value("#zzz", {"type": "string", "format": "hex-color"}) == ""
    assert sanitize_value("  keep  ", {"type": "string", "format": "unknown-format"}) == "  keep  "
    assert sanitize_value("  keep  ", {"type": "string"}) == "  keep  "


def test_sanitize_null_and_untyped() -> None:
    assert sanitize_value("x", {"type": "null"}) is None
    value = {"a": [1]}
    assert sanitize_value(value, {}) is value
    assert sanitize_value(" <b>x</b> ", {"format": "text-field"}) == "x"


def test_sanitize_arrays() -> None:
    assert sanitize_value("1,2 3,,", {"type": "array", "items": {"type": "integer"}}) == [1, 2, 3]
    assert sanitize_value("a b\tc", {"type": "array"}) == ["a", "b", "c"]
    assert sanitize_value("", {"type": "array"}) == []
    assert sanitize_value(5, {"type": "array"}) == ["5"]
    assert sanitize_value(False, {"type": "array"}) == []
    assert sanitize_value({"1": "b", "0": "a"}, {"type": "array"}) == ["b", "a"]
    assert sanitize_value({"0": "1", "1": "2"}, {"type": "array", "items": {"type": "integer"}}) == [1, 2]
    assert sanitize_value(None, {"type": "array"}) == []
    nested = {"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}}
    assert sanitize_value([["1", "false"], "0,true"], nested) == [[True, False], [False, True]]


def test_sanitize_objects() -> None:
    assert sanitize_value("", {"type": "object"}) == {}
    assert sanitize_value("x", {"type": "object"}) == {}
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "patternProperties": {"^flag_": {"type": "boolean"}},
        "additionalProperties": False,
    }
    raw = {"n": "5", "tags": "a,b", "flag_x": "false", "junk": 1}
    original = copy.deepcopy(raw)
    assert sanitize_value(raw, schema, "meta") == {"n": 5, "tags": ["a", "b"], "flag_x": False}
    assert raw == original  # the input is left alone
    open_schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert sanitize_value({"n": "1", "extra": "kept"}, open_schema) == {"n": 1, "extra": "kept"}
    typed_extra = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert sanitize_value({"a": "1", "b": "2"}, typed_extra) == {"a": 1, "b": 2}


def test_parse_request_arg() -> None:
    assert parse_request_arg("7", {"type": "integer", "minimum": 1}, "page") == 7
    with pytest.raises(RestError) as caught:
        parse_request_arg("0", {"type": "integer", "minimum": 1}, "page")
    assert triple(caught.value) == ("rest_out_of_bounds", "page must be greater than or equal to 1", None)
    with pytest.raises(RestError) as caught:
        parse_request_arg("abc", {"type": "integer"}, "page")
    assert triple(caught.value) == type_error("page", "integer")


# --------------------------------------------------------------------------- context filtering


POST_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "context": ["view", "edit", "embed"]},
        "password": {"type": "string", "context": ["edit"]},
        "title": {
            "type": "object",
            "context": ["view", "edit", "embed"],
            "properties": {
                "raw": {"type": "string", "context": ["edit"]},
                "rendered": {"type": "string", "context": ["view", "edit", "embed"]},
            },
        },
        "tags": {"type": "array", "items": {"type": "integer"}, "context": ["view", "edit"]},
        "meta": {"type": "object", "properties": {"secret": {"type": "string", "context": ["edit"]}}},
    },
}
POST = {
    "id": 1,
    "password": "pw",
    "title": {"raw": "T", "rendered": "<p>T</p>"},
    "tags": [1, 2],
    "meta": {"secret": "s"},
    "_links": {"self": []},
}


def test_filter_by_context_view_embed_edit() -> None:
    original = copy.deepcopy(POST)
    assert filter_by_context(POST, POST_SCHEMA, "view") == {
        "id": 1,
        "title": {"rendered": "<p>T</p>"},
        "tags": [1, 2],
        "meta": {"secret": "s"},  # no context on "meta" itself: not examined further
        "_links": {"self": []},  # not in the schema: kept
    }
    assert filter_by_context(POST, POST_SCHEMA, "embed") == {
        "id": 1,
        "title": {"rendered": "<p>T</p>"},
        "meta": {"secret": "s"},
        "_links": {"self": []},
    }
    assert filter_by_context(POST, POST_SCHEMA, "edit") == POST
    assert POST == original  # never modified in place


def test_filter_by_context_array_items() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "context": ["view", "edit"],
            "properties": {"a": {"type": "integer", "context": ["edit"]}, "b": {"type": "integer", "context": ["view", "edit"]}},
        },
    }
    data = [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert filter_by_context(data, schema, "view") == [{"b": 2}, {"b": 4}]
    assert filter_by_context(data, schema, "embed") == []  # items not visible at all
    assert filter_by_context(data, schema, "edit") == data


def test_filter_by_context_additional_and_pattern_properties() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^pub_": {"type": "string", "context": ["view", "edit"]}},
        "additionalProperties": {"type": "string", "context": ["edit"]},
    }
    data = {"pub_a": "1", "priv": "2"}
    assert filter_by_context(data, schema, "view") == {"pub_a": "1"}
    assert filter_by_context(data, schema, "edit") == data


def test_filter_by_context_infers_object_from_properties_and_passes_scalars() -> None:
    schema = {"properties": {"a": {"context": ["edit"]}, "b": {"context": ["view"]}}}
    assert filter_by_context({"a": 1, "b": 2}, schema, "view") == {"b": 2}
    assert filter_by_context("text", POST_SCHEMA, "view") == "text"
    assert filter_by_context({"a": 1}, {"description": "untyped"}, "view") == {"a": 1}


def test_filter_by_context_any_of_and_one_of() -> None:
    any_of = {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer", "context": ["edit"]}}},
            {"type": "string"},
        ]
    }
    assert filter_by_context({"a": 1}, any_of, "view") == {}
    assert filter_by_context("s", any_of, "view") == "s"
    one_of = {
        "oneOf": [
            {"type": "object", "properties": {"a": {"type": "integer", "context": ["edit"]}}},
            {"type": "object", "properties": {"a": {"type": "integer", "context": ["view"]}}},
        ]
    }
    # Filtering uses the first branch that fits instead of failing on several matches.
    assert filter_by_context({"a": 1}, one_of, "view") == {}


def test_filter_by_context_array_or_object_type() -> None:
    schema = {
        "type": ["array", "object"],
        "items": {"type": "integer", "context": ["edit"]},
        "properties": {"k": {"type": "integer", "context": ["edit"]}, "v": {"type": "integer", "context": ["view"]}},
    }
    assert filter_by_context([1, 2], schema, "view") == []
    assert filter_by_context({"k": 1, "v": 2}, schema, "view") == {"v": 2}


# --------------------------------------------------------------------------- endpoint args


ITEM_SCHEMA = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "thing",
    "type": "object",
    "properties": {
        "id": {"description": "Unique identifier.", "type": "integer", "context": ["view"], "readonly": True},
        "title": {
            "description": "The title.",
            "type": "string",
            "context": ["view", "edit"],
            "default": "Untitled",
            "required": True,
            "minLength": 1,
        },
        "status": {"type": "string", "enum": ["draft", "publish"], "default": None},
        "sticky": {"type": "boolean", "default": False},
        "meta": {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "arg_options": {"required": True, "default": {}, "validate": "custom"},
        },
        "count": {"type": "integer", "readonly": False, "minimum": 0, "maximum": 9},
    },
}


def test_endpoint_args_for_create() -> None:
    args = endpoint_args_from_schema(ITEM_SCHEMA, "POST")
    assert list(args) == ["title", "status", "sticky", "meta", "count"]  # readonly id skipped
    title = args["title"]
    assert title["default"] == "Untitled"
    assert title["required"] is True
    assert {k: title[k] for k in ("description", "type", "minLength")} == {
        "description": "The title.",
        "type": "string",
        "minLength": 1,
    }
    assert "context" not in title
    assert "default" not in args["status"]  # a null default is no default
    assert args["status"]["enum"] == ["draft", "publish"]
    assert args["sticky"]["default"] is False
    assert "required" not in args["sticky"]
    assert args["meta"]["required"] is True and args["meta"]["default"] == {} and args["meta"]["validate"] == "custom"
    assert "readonly" not in args["count"]
    assert (args["count"]["minimum"], args["count"]["maximum"]) == (0, 9)


@pytest.mark.parametrize("method", ["PUT", "PATCH", "POST, PUT, PATCH"])
def test_endpoint_args_for_edit_have_no_defaults_or_required(method: str) -> None:
    args = endpoint_args_from_schema(ITEM_SCHEMA, method)
    assert "default" not in args["title"] and "required" not in args["title"]
    assert "default" not in args["sticky"]
    assert "required" not in args["meta"] and "default" not in args["meta"]
    assert args["meta"]["validate"] == "custom"
    assert args["title"]["minLength"] == 1


def test_endpoint_args_only_carry_schema_keywords_and_markers() -> None:
    args = endpoint_args_from_schema(ITEM_SCHEMA, "POST")
    extra_allowed = {"required", "validate_callback", "sanitize_callback", "validate"}
    for arg in args.values():
        assert set(arg) <= set(PUBLIC_ARG_KEYS) | extra_allowed
        assert isinstance(arg["validate_callback"], str) and isinstance(arg["sanitize_callback"], str)


def test_endpoint_args_empty_schema() -> None:
    assert endpoint_args_from_schema({"type": "object"}, "POST") == {}


def test_endpoint_args_validate_through_the_engine() -> None:
    args = endpoint_args_from_schema(ITEM_SCHEMA, "POST")
    assert validate_value("", args["title"], "title").message == "title must be at least 1 character long."
    assert validate_value("pending", args["status"], "status").message == "status is not one of draft and publish."
    assert sanitize_value("true", args["sticky"], "sticky") is True


def test_public_arg_keys() -> None:
    assert PUBLIC_ARG_KEYS == (
        "title", "description", "default", "type", "format", "enum", "items", "properties",
        "additionalProperties", "patternProperties", "minProperties", "maxProperties", "minimum",
        "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf",
    )
