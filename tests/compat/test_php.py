"""PHP's value rules (``calpress.compat.php``): the string form of a float, and the ``(int)``,
``(float)`` and ``(string)`` casts as the schema engine applies them when it sanitises a value to
``integer``, ``number`` and ``string``."""

from __future__ import annotations

from typing import Any

import pytest

from calpress.compat.php import php_float_str
from calpress.rest.schema import sanitize_value


@pytest.mark.parametrize(
    ("value", "expected"),
    [("5", 5), (" 5 ", 5), ("5.0", 5), (5.9, 5), ("-3", -3), ("+4", 4), (True, 1), ("1e3", 1000), ("12abc", 12), ("abc", 0)],
)
def test_sanitize_integer(value: Any, expected: int) -> None:
    result = sanitize_value(value, {"type": "integer"})
    assert result == expected and type(result) is int


def test_sanitize_integer_clamps_huge_numeric_strings() -> None:
    assert sanitize_value("99999999999999999999", {"type": "integer"}) == 2**63 - 1


@pytest.mark.parametrize(("value", "expected"), [("1.5", 1.5), (2, 2.0), ("1e-2", 0.01), ("abc", 0.0), (True, 1.0)])
def test_sanitize_number(value: Any, expected: float) -> None:
    result = sanitize_value(value, {"type": "number"})
    assert result == expected and type(result) is float


@pytest.mark.parametrize(("value", "expected"), [("a", "a"), (5, "5"), (1.5, "1.5"), (True, "1"), (False, ""), (None, "")])
def test_sanitize_string_casts(value: Any, expected: str) -> None:
    assert sanitize_value(value, {"type": "string"}) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.0, "1"), (0.1, "0.1"), (-2.5, "-2.5"), (1e20, "1.0E+20"), (1.5e-7, "1.5E-7"), (0.1 + 0.2, "0.3"), (123456.0, "123456")],
)
def test_php_float_str(value: float, expected: str) -> None:
    assert php_float_str(value) == expected
