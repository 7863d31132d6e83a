"""PHP's value rules as the reference applies them to request and stored values.

Numeric strings and ``is_numeric()``, the ``(int)`` / ``(float)`` / ``(string)`` casts,
``trim()``, ``empty()``, the string form of a float, ``number_format()``, ``json_encode()`` and
PHP array keys, plus two WordPress helpers that are pure PHP-array rules (``wp_is_numeric_array``,
``wp_parse_list``). Values come from JSON or query strings (dict, list, str, int, float, bool,
None); PHP arrays, which do not distinguish lists from maps, are modelled by both.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "PHP_TRIM",
    "is_int_key",
    "is_list_like",
    "is_numeric",
    "is_scalar",
    "json_encode",
    "num",
    "number_format",
    "parse_list",
    "php_d",
    "php_empty",
    "php_float",
    "php_float_str",
    "php_int",
    "php_key",
    "php_str",
    "php_trim",
    "str_number",
    "to_php_string",
]

# The characters PHP's trim() strips by default (not Python's Unicode whitespace set; note: no
# form feed, unlike str.strip()).
PHP_TRIM = " \t\n\r\0\x0b"

# PHP 8 numeric strings: optional surrounding whitespace, sign, digits/decimal, exponent.
_NUMERIC = re.compile(
    r"[ \t\n\r\x0b\x0c]*([+-]?(?:[0-9]+(\.[0-9]*)?|(\.)[0-9]+)([eE][+-]?[0-9]+)?)[ \t\n\r\x0b\x0c]*"
)
_NUMERIC_PREFIX = re.compile(r"[ \t\n\r\x0b\x0c]*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_INT_LITERAL = re.compile(r"[+-]?[0-9]+")
# Keys PHP turns into integers when used as array keys ("0", "17", "-3"; not "01", "+1", " 1").
_INT_KEY = re.compile(r"0|-?[1-9][0-9]*")
# wp_parse_list(): split on commas and (ASCII) whitespace.
_LIST_SPLIT = re.compile(r"[ \t\n\r\x0b\x0c,]+")
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def php_trim(s: str, chars: str = PHP_TRIM) -> str:
    """PHP ``trim()``: strip only the given characters (default: space, tab, CR, LF, NUL, VT)."""
    return s.strip(chars)


def php_empty(s: str | None) -> bool:
    """PHP ``empty()`` on a string: ``""`` and ``"0"`` are both empty."""
    return not s or s == "0"


def is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float))  # bool is an int subclass


def str_number(text: str) -> int | float | None:
    """The number a PHP numeric string stands for, or None when it is not numeric."""
    m = _NUMERIC.fullmatch(text)
    if m is None:
        return None
    if m.group(2) is None and m.group(3) is None and m.group(4) is None:  # a plain integer
        return int(m.group(1))
    return float(m.group(1))


def is_numeric(value: Any) -> bool:
    """PHP is_numeric(): ints, floats and numeric strings; never booleans."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, str) and _NUMERIC.fullmatch(value) is not None


def num(value: Any) -> int | float:
    """The number a numeric value stands for (strings as PHP reads them)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    number = str_number(value)
    return 0 if number is None else number


def is_int_key(key: Any) -> bool:
    if isinstance(key, bool):
        return False
    if isinstance(key, int):
        return True
    return isinstance(key, str) and _INT_KEY.fullmatch(key) is not None and INT64_MIN <= int(key) <= INT64_MAX


def php_key(key: Any) -> Any:
    return int(key) if isinstance(key, str) and is_int_key(key) else key


def is_list_like(value: Any) -> bool:
    """wp_is_numeric_array(): a list, or a dict whose keys would all be PHP integer keys."""
    if isinstance(value, (list, tuple)):
        return True
    if isinstance(value, dict):
        return all(is_int_key(k) for k in value)
    return False


def parse_list(value: Any) -> list[str]:
    """wp_parse_list() for a scalar: the string form split on commas/whitespace, empties dropped."""
    text = value if isinstance(value, str) else php_str(value)
    return [part for part in _LIST_SPLIT.split(text) if part]


def php_float_str(value: float) -> str:
    """PHP's string conversion of a float (``precision`` = 14 significant digits).

    ``1.0`` -> "1", ``0.1`` -> "0.1", ``1e20`` -> "1.0E+20", ``1.5e-7`` -> "1.5E-7".
    """
    if value != value:
        return "NAN"
    if value in (float("inf"), float("-inf")):
        return "INF" if value > 0 else "-INF"
    text = f"{value:.14G}"
    if "E" in text:
        mantissa, exponent = text.split("E")
        if "." not in mantissa:
            mantissa += ".0"
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}E{sign}{int(exponent.lstrip('+-'))}"
    if text == "-0":
        return "-0"
    return text


def php_str(value: Any) -> str:
    """``(string) $value``."""
    if isinstance(value, str):
        return value
    if value is None or value is False:
        return ""
    if value is True:
        return "1"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return php_float_str(value)
    if isinstance(value, (list, tuple, dict)):
        return "Array"
    return str(value)


def to_php_string(value: Any) -> str | None:
    """``(string) $value`` for scalars; None for arrays/objects (the callers then give up).

    Unlike :func:`php_str`, which turns an array into "Array" as the cast does, this is for the
    formatting functions, which give up on arrays and objects.
    """
    if isinstance(value, str):
        return value
    if value is None or value is False:
        return ""
    if value is True:
        return "1"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return php_float_str(value)
    return None


def php_int(value: Any) -> int:
    """``(int) $value``: numeric prefixes of strings, truncation of floats, 0 for NaN/INF."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):  # PHP's integers are 64-bit: JSON's larger ones arrive clamped
        return max(INT64_MIN, min(INT64_MAX, value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return 0
        return max(INT64_MIN, min(INT64_MAX, int(value)))
    if isinstance(value, str):
        number = str_number(value)
        if type(number) is int:
            return max(INT64_MIN, min(INT64_MAX, number))
        m = _NUMERIC_PREFIX.match(value)  # a leading-numeric string ("12abc") or a float form
        if m is None:
            return 0
        literal = m.group(1)
        if _INT_LITERAL.fullmatch(literal):
            return max(INT64_MIN, min(INT64_MAX, int(literal)))
        return php_int(float(literal))
    if value is None:
        return 0
    if isinstance(value, (list, tuple, dict)):
        return 1 if value else 0
    return 0


def php_float(value: Any) -> float:
    """``(float) $value``."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        m = _NUMERIC_PREFIX.match(value)
        return float(m.group(1)) if m else 0.0
    if value is None:
        return 0.0
    if isinstance(value, (list, tuple, dict)):
        return 1.0 if value else 0.0
    return 0.0


def php_d(value: Any) -> str:
    """``sprintf('%d', $value)``: the integer part."""
    return str(php_int(value))


def number_format(value: Any) -> str:
    """number_format_i18n($n) in English: rounded half away from zero, comma thousands separators."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    number = php_float(value)
    if math.isnan(number) or math.isinf(number):
        return php_float_str(number)
    rounded = int(math.floor(abs(number) + 0.5))
    return f"{-rounded if number < 0 else rounded:,}"


def json_encode(value: Any) -> str:
    """wp_json_encode() with PHP's default flags (escaped slashes and Unicode)."""
    if isinstance(value, dict) and not value:
        return "[]"  # an empty PHP array
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True).replace("/", "\\/")
