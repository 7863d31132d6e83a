"""Hypothesis properties of the three parsers every request goes through: the query-string
parser, the argument validator and sanitiser, and the strtotime date parser (issue 9). Any input
gives an answer of the promised shape or the documented refusal, never another exception."""

from __future__ import annotations

import datetime as dt
import string
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from calpress.compat.strtotime import parse_datetime
from calpress.rest.errors import RestError
from calpress.rest.request import parse_json_body, parse_query
from calpress.rest.schema import parse_request_arg

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))

# Text with the characters that matter to the parsers: brackets, separators, escapes, digits of
# other scripts, NUL, surrogates' neighbours.
TRICKY = st.lists(st.sampled_from(list("[]&=%+.;, _-0123456789¹٣aZ\x00\t\n") + ["%00", "%5B", "%5D", "%C2%B9", "%FF"]),
                  max_size=40).map("".join)


@SETTINGS
@given(st.one_of(TRICKY, st.text()))
@example("s=%%0000&%00k=a%00b")  # a NUL hidden behind an escape: removed after decoding
def test_any_query_string_parses_into_a_mapping_of_names(query):
    parsed = parse_query(query)
    assert isinstance(parsed, dict)
    assert all(isinstance(name, str) and "\x00" not in name for name in parsed)

    def no_nul(value):
        if isinstance(value, str):
            return "\x00" not in value
        if isinstance(value, dict):
            return all(no_nul(k) and no_nul(v) for k, v in value.items())
        return all(no_nul(v) for v in value)

    assert all(no_nul(value) for value in parsed.values())


NAME = st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=12)


@SETTINGS
@given(st.dictionaries(NAME, st.text(max_size=30).map(lambda v: v.replace("\x00", ""))))
def test_plain_pairs_round_trip(pairs):
    assert parse_query(urlencode(pairs, quote_via=quote)) == pairs


@SETTINGS
@given(st.lists(NAME, min_size=1, max_size=4), st.text(max_size=10).map(lambda v: v.replace("\x00", "")))
def test_bracket_paths_build_nested_values(path, value):
    key = path[0] + "".join(f"[{part}]" for part in path[1:])
    parsed = parse_query(f"{quote(key, safe='[]')}={quote(value)}")
    node = parsed
    for part in path[:-1]:
        node = node[part]
    assert node[path[-1]] == value


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)
SCHEMAS = st.sampled_from([
    {"type": "integer"}, {"type": "integer", "minimum": 1, "maximum": 100}, {"type": "number"}, {"type": "boolean"},
    {"type": "string"}, {"type": "string", "format": "date-time"}, {"type": "string", "format": "email"},
    {"type": "string", "format": "uri"}, {"type": "string", "enum": ["a", "b"]}, {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "integer"}}, {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"type": ["integer", "string"]}, {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
])
PYTHON_TYPES = {"integer": int, "number": (int, float), "boolean": bool, "string": str, "array": list, "object": dict}


@SETTINGS
@given(JSON | TRICKY, SCHEMAS)
def test_arguments_are_refused_or_sanitised_to_their_type(value, schema):
    try:
        result = parse_request_arg(value, schema, "arg")
    except RestError as err:
        assert err.code in ("rest_invalid_param", "rest_invalid_type", "rest_out_of_bounds", "rest_not_in_enum",
                            "rest_invalid_email", "rest_invalid_date", "rest_invalid_url", "rest_duplicate_items",
                            "rest_additional_properties_forbidden", "rest_no_matching_schema", "rest_one_of_multiple_matches",
                            "rest_too_many_items", "rest_too_few_items", "rest_too_long", "rest_too_short", "rest_invalid_pattern",
                            "rest_property_required", "rest_too_many_properties", "rest_too_few_properties"), err.code
        return
    declared = schema.get("type")
    if isinstance(declared, str):
        assert isinstance(result, PYTHON_TYPES[declared]), (value, schema, result)
    if declared == "integer":
        assert -(2**63) <= result <= 2**63 - 1  # what PHP (and the database) can hold


def _without_nul(value):
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


@SETTINGS
@given(JSON)
def test_json_bodies_decode_to_what_was_sent_less_nul_characters(value):
    import orjson

    assert parse_json_body(orjson.dumps(value)) == _without_nul(value)


@SETTINGS
@given(st.binary(max_size=64) | TRICKY.map(str.encode))
def test_any_body_bytes_decode_or_give_rest_invalid_json(raw):
    try:
        parse_json_body(raw)
    except RestError as err:
        assert err.code == "rest_invalid_json" and err.status == 400


ZONE = ZoneInfo("Europe/Paris")
NOW = dt.datetime(2026, 11, 24, 12, 0, tzinfo=ZONE)
DATES = st.one_of(
    TRICKY, st.text(max_size=40),
    st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)).map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S")),
    st.sampled_from(["now", "tomorrow", "+1 week", "next monday", "@1700000000", "last day of next month", "2026-02-30",
                     "24:00", "9999-12-31 23:59:59 +14:00", "-1 year", "0000-00-00 00:00:00"]),
)


@SETTINGS
@given(DATES)
def test_the_date_parser_answers_a_zoned_datetime_or_none(text):
    parsed = parse_datetime(text, ZONE, NOW)
    assert parsed is None or (isinstance(parsed, dt.datetime) and parsed.tzinfo is not None)
