"""PHP's ``serialize()`` and a safe ``unserialize()`` for the values WordPress keeps in meta.

WordPress stores an array meta value as ``serialize($value)`` (``maybe_serialize``) and reads it
back with ``maybe_unserialize``; WXR files carry those strings as they are. This module writes and
reads that format for the values meta can hold: null, booleans, integers, floats, strings and
arrays. A PHP array whose keys are 0..n-1 in order reads as a Python list, any other as a dict
with int and str keys; numeric string keys become ints as PHP's array keys do (``"5"`` -> ``5``).

Reading never builds an object: objects (``O:``, ``C:``), enums (``E:``), references (``r:``,
``R:``), escaped strings (``S:``) and anything else raise :class:`NotSerialized`, as does every
malformed input. The work is bounded by the input: nesting deeper than ``max_depth`` fails, and a
declared length or element count larger than the rest of the text fails before anything is read.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from .php import INT64_MAX, INT64_MIN, PHP_TRIM, php_key, php_str

__all__ = [
    "MAX_DEPTH",
    "NotSerialized",
    "is_serialized",
    "maybe_serialize",
    "maybe_unserialize",
    "serialize",
    "unserialize",
]

# PHP's own limit (unserialize_max_depth) is 4096; meta values nest a few levels at most.
MAX_DEPTH = 64


class NotSerialized(ValueError):
    """The text is not a PHP-serialized value this module reads (malformed, an object, a
    reference, too deep)."""


# ---------------------------------------------------------------------------------------------
# serialize()


def serialize(value: Any) -> str:
    """PHP ``serialize($value)`` for None, bool, int, float, str, list/tuple and dict.

    A list is written as an array with keys 0..n-1; a dict with its keys, numeric string keys as
    PHP stores them (``{"5": x}`` is ``i:5;``). Strings carry their UTF-8 byte length. Integers
    outside PHP's 64-bit range are written as floats (PHP would hold them as floats). Any other
    type raises TypeError.
    """
    parts: list[str] = []
    _write(value, parts, 0)
    return "".join(parts)


def _write(value: Any, parts: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"value nests deeper than {MAX_DEPTH} levels")
    if value is None:
        parts.append("N;")
    elif value is True or value is False:
        parts.append("b:1;" if value else "b:0;")
    elif isinstance(value, int):
        if INT64_MIN <= value <= INT64_MAX:
            parts.append(f"i:{int(value)};")
        else:
            parts.append(f"d:{_float_text(float(value))};")
    elif isinstance(value, float):
        parts.append(f"d:{_float_text(value)};")
    elif isinstance(value, str):
        parts.append(f's:{len(value.encode("utf-8"))}:"{value}";')
    elif isinstance(value, (list, tuple)):
        parts.append(f"a:{len(value)}:{{")
        for index, item in enumerate(value):
            parts.append(f"i:{index};")
            _write(item, parts, depth + 1)
        parts.append("}")
    elif isinstance(value, dict):
        # Keys normalised first: {"1": a, 1: b} is one PHP key, written once (the last value wins).
        entries: dict[int | str, Any] = {}
        for key, item in value.items():
            entries[_array_key(key)] = item
        parts.append(f"a:{len(entries)}:{{")
        for key, item in entries.items():
            parts.append(f"i:{key};" if isinstance(key, int) else f's:{len(key.encode("utf-8"))}:"{key}";')
            _write(item, parts, depth + 1)
        parts.append("}")
    else:
        raise TypeError(f"cannot serialize a {type(value).__name__} as a PHP value")


def _array_key(key: Any) -> int | str:
    """The key PHP's array would hold: ints, numeric strings as ints, bools and None as PHP casts them."""
    if key is True or key is False:
        return int(key)
    if key is None:
        return ""
    if isinstance(key, int):
        return key if INT64_MIN <= key <= INT64_MAX else str(key)
    if isinstance(key, str):
        return php_key(key)
    raise TypeError(f"a PHP array key cannot be a {type(key).__name__}")


def _float_text(value: float) -> str:
    """A float as serialize() writes it (``serialize_precision = -1``): the shortest digits that
    read back to the same double, in PHP's ``%H`` layout: ``0.1``, ``1``, ``-0``, ``1.0E+25``,
    ``1.0E-5``, ``INF``, ``NAN``."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INF" if value > 0 else "-INF"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return f"{sign}0"
    exact = Decimal(repr(abs(value))).as_tuple()
    all_digits = "".join(map(str, exact.digits))
    decpt = len(all_digits) + int(exact.exponent)  # value = 0.DIGITS * 10**decpt
    digits = all_digits.rstrip("0") or "0"
    # zend_gcvt in mode 0 (ndigit 17): exponential past 17 integer digits or below 0.0001.
    if decpt > 17 or decpt < -3:
        exponent = decpt - 1
        mantissa = digits[0] + "." + (digits[1:] or "0")
        return f"{sign}{mantissa}E{'-' if exponent < 0 else '+'}{abs(exponent)}"
    if decpt <= 0:
        return f"{sign}0.{'0' * -decpt}{digits}"
    if len(digits) <= decpt:
        return f"{sign}{digits}{'0' * (decpt - len(digits))}"
    return f"{sign}{digits[:decpt]}.{digits[decpt:]}"


# ---------------------------------------------------------------------------------------------
# unserialize()

_NULL = re.compile(rb"N;")
_BOOL = re.compile(rb"b:([01]);")
_INT = re.compile(rb"i:([+-]?)([0-9]+);")
_FLOAT = re.compile(rb"d:([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|NAN|-?INF);")
_STRING = re.compile(rb's:([0-9]+):"')
_ARRAY = re.compile(rb"a:([0-9]+):\{")
# The shortest array element, "i:0;N;": a declared count needs at least this many bytes each.
_MIN_ELEMENT = 6
# A length or count with more digits than this cannot fit in any text this module is handed.
_MAX_COUNT_DIGITS = 12


def unserialize(data: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """PHP ``unserialize($data)`` for null, bool, int, float, string and array values.

    Strings are decoded as UTF-8 (a declared byte length that splits a character fails). The
    whole text must be one value: unlike PHP, which ignores what follows, trailing bytes fail.
    Raises :class:`NotSerialized` for anything malformed, for objects and references, and for
    arrays nested deeper than ``max_depth``.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    reader = _Reader(raw, max_depth)
    value = reader.value(0)
    if reader.pos != len(raw):
        raise NotSerialized(f"unexpected data after the value at byte {reader.pos}")
    return value


class _Reader:
    __slots__ = ("data", "max_depth", "pos")

    def __init__(self, data: bytes, max_depth: int) -> None:
        self.data = data
        self.pos = 0
        self.max_depth = max_depth

    def fail(self, why: str) -> NotSerialized:
        return NotSerialized(f"{why} at byte {self.pos}")

    def value(self, depth: int) -> Any:
        data, pos = self.data, self.pos
        if pos >= len(data):
            raise self.fail("truncated value")
        tag = data[pos : pos + 1]
        if tag == b"N":
            return self._token(_NULL, lambda m: None)
        if tag == b"b":
            return self._token(_BOOL, lambda m: m.group(1) == b"1")
        if tag == b"i":
            return self._token(_INT, _int_value)
        if tag == b"d":
            return self._token(_FLOAT, lambda m: float(m.group(1)))
        if tag == b"s":
            return self._string()
        if tag == b"a":
            return self._array(depth + 1)
        if tag in (b"O", b"C", b"E"):
            raise self.fail("objects are not read")
        if tag in (b"r", b"R"):
            raise self.fail("references are not read")
        raise self.fail(f"unknown type {tag!r}")

    def _token(self, pattern: re.Pattern[bytes], convert: Any) -> Any:
        m = pattern.match(self.data, self.pos)
        if m is None:
            raise self.fail("malformed value")
        self.pos = m.end()
        return convert(m)

    def _count(self, pattern: re.Pattern[bytes], unit: int) -> int:
        """The declared length or count of a string or array, checked against the bytes left."""
        m = pattern.match(self.data, self.pos)
        if m is None or len(m.group(1)) > _MAX_COUNT_DIGITS:
            raise self.fail("malformed length")
        count = int(m.group(1))
        if count * unit > len(self.data) - m.end():
            raise self.fail("declared length exceeds the text")
        self.pos = m.end()
        return count

    def _string(self) -> str:
        length = self._count(_STRING, 1)
        start, end = self.pos, self.pos + length
        if self.data[end : end + 2] != b'";':
            raise self.fail("string length does not match")
        try:
            text = self.data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("string is not UTF-8") from None
        self.pos = end + 2
        return text

    def _array(self, depth: int) -> list[Any] | dict[int | str, Any]:
        if depth > self.max_depth:
            raise self.fail(f"arrays nest deeper than {self.max_depth} levels")
        count = self._count(_ARRAY, _MIN_ELEMENT)
        entries: dict[int | str, Any] = {}
        for _ in range(count):
            if self.data[self.pos : self.pos + 1] not in (b"i", b"s"):
                raise self.fail("array key is neither an integer nor a string")
            key = self.value(depth)
            if isinstance(key, str):
                key = php_key(key)
            elif not isinstance(key, int):  # an i: key beyond 64 bits read as a float
                raise self.fail("array key is out of range")
            entries[key] = self.value(depth)
        if self.data[self.pos : self.pos + 1] != b"}":
            raise self.fail("array does not end where its count says")
        self.pos += 1
        if all(key == index for index, key in enumerate(entries)):
            return list(entries.values())
        return entries


def _int_value(m: re.Match[bytes]) -> int | float:
    """An ``i:`` value; one beyond PHP's 64-bit range reads as a float, as PHP reads it."""
    sign, digits = m.group(1).decode("ascii"), m.group(2).decode("ascii")
    if len(digits.lstrip("0")) > 19:
        return float(sign + digits)
    number = int(sign + digits)
    return number if INT64_MIN <= number <= INT64_MAX else float(number)


# ---------------------------------------------------------------------------------------------
# WordPress: is_serialized(), maybe_serialize(), maybe_unserialize()

_SCALAR_SERIAL = re.compile(rb"[bid]:[0-9.E+-]+;")
_SIZED_SERIAL = re.compile(rb"[saOE]:[0-9]+:", re.S)


def is_serialized(data: Any, strict: bool = True) -> bool:
    """WordPress ``is_serialized()``: whether ``data`` looks like a serialized value.

    A quick shape test, not a parse: ``maybe_unserialize`` still has to read it. ``strict``
    requires the text (trimmed) to end as a serialized value ends.
    """
    if not isinstance(data, str):
        return False
    raw = data.strip(PHP_TRIM).encode("utf-8", "surrogatepass")
    if raw == b"N;":
        return True
    if len(raw) < 4 or raw[1:2] != b":":
        return False
    if strict:
        if raw[-1:] not in (b";", b"}"):
            return False
    else:
        semicolon, brace = raw.find(b";"), raw.find(b"}")
        if semicolon < 0 and brace < 0:
            return False
        if 0 <= semicolon < 3 or 0 <= brace < 4:
            return False
    token = raw[:1]
    if token == b"s":
        if strict and raw[-2:-1] != b'"':
            return False
        if not strict and b'"' not in raw:
            return False
    if token in (b"s", b"a", b"O", b"E"):
        return _SIZED_SERIAL.match(raw) is not None
    if token in (b"b", b"i", b"d"):
        m = _SCALAR_SERIAL.match(raw)
        return m is not None and (not strict or m.end() == len(raw))
    return False


def maybe_serialize(value: Any) -> str:
    """WordPress ``maybe_serialize()`` as the stored text: arrays serialized, a string that
    already looks serialized serialized again (WordPress's double serialization, so it reads
    back as the same string), any other scalar as the database stores it (``(string)``)."""
    if isinstance(value, (list, tuple, dict)):
        return serialize(value)
    if isinstance(value, str) and is_serialized(value, strict=False):
        return serialize(value)
    return php_str(value)


def maybe_unserialize(value: Any) -> Any:
    """WordPress ``maybe_unserialize()``: the value of a text that ``is_serialized`` (strict),
    any other text (and any non-string) unchanged.

    Where WordPress's unserialize() would fail or build an object (``false``, or a PHP object),
    this returns the text unchanged: it never builds objects, and keeping the text loses nothing.
    """
    if not is_serialized(value):
        return value
    try:
        return unserialize(value.strip(PHP_TRIM))
    except NotSerialized:
        return value
