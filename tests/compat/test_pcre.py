"""PCRE translation (``calpress.compat.pcre``), exercised through the schema's ``pattern`` keyword:
the reference's delimiters and ``u`` modifier, and the PCRE syntax Python's ``re`` spells
differently or lacks."""

from __future__ import annotations

from typing import Any

import pytest

from calpress.rest.errors import RestError
from calpress.rest.schema import validate_value


def triple(err: RestError) -> tuple[str, str, Any]:
    return (err.code, err.message, err.data)


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("^[a-z]+$", "abc", True),
        ("^[a-z]+$", "abc1", False),
        (r"\d", "a1b", True),  # unanchored search
        ("^#[0-9a-f]{6}$", "#00ff00", True),  # "#" is the reference's delimiter, escaped for it
        (r"(?<year>\d{4})-\k<year>", "2020-2020", True),
        (r"(?<year>\d{4})-\k<year>", "2020-2021", False),
        (r"^abc$", "abc\n", True),  # PCRE "$" matches before a final newline
        (r"^abc\z", "abc\n", False),
        (r"^abc\Z", "abc\n", True),
        ("^(?:a(?i)b|c)$", "aB", True),  # option settings last until the group ends ...
        ("^(?:a(?i)b|c)$", "C", True),  # ... and carry into later alternatives
        ("^(?:a(?i)b|c)$", "AB", False),
        ("(?i)^HELLO$", "hello", True),
        ("^[[:digit:]]+$", "123", True),
        ("^[[:alpha:]_]+$", "ab_c", True),
        ("^[[:digit:]]+$", "12a", False),
        (r"^\x{41}$", "A", True),
        (r"^\w+$", "héllo", True),  # the "u" modifier: Unicode word characters
        (r"^\p{L}+$", "héllo", True),
        (r"^\p{L}+$", "h3llo", False),
        (r"^a\Q.*\E$", "a.*", True),
        (r"^a\Q.*\E$", "abc", False),
        (r"^\h+$", " \t", True),
        ("^[a-z]{2,}+$", "abc", True),  # possessive quantifier
        ("(", "(", False),  # an invalid pattern never matches
        ("a\\#", "a#", False),  # "\#" closes the reference's delimiters early: invalid
    ],
)
def test_pattern(pattern: str, value: str, matches: bool) -> None:
    schema = {"type": "string", "pattern": pattern}
    err = validate_value(value, schema, "slug")
    if matches:
        assert err is None
    else:
        assert err is not None
        assert triple(err) == ("rest_invalid_pattern", f"slug does not match pattern {pattern}.", None)
