"""PHP's serialize()/unserialize() and WordPress's maybe_(un)serialize (``calpress.compat.php_serial``):
strings PHP writes, UTF-8 byte lengths, round trips, and inputs that must be refused cheaply."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calpress.compat.php import is_int_key
from calpress.compat.php_serial import (
    NotSerialized,
    is_serialized,
    maybe_serialize,
    maybe_unserialize,
    serialize,
    unserialize,
)

# Pairs as PHP 8 writes them with serialize() (serialize_precision = -1).
PHP_PAIRS: list[tuple[Any, str]] = [
    (None, "N;"),
    (True, "b:1;"),
    (False, "b:0;"),
    (0, "i:0;"),
    (-42, "i:-42;"),
    (2**63 - 1, "i:9223372036854775807;"),
    (1.5, "d:1.5;"),
    (1.0, "d:1;"),
    (0.1, "d:0.1;"),
    (-0.0, "d:-0;"),
    (1e25, "d:1.0E+25;"),
    (0.0001, "d:0.0001;"),
    (1e-5, "d:1.0E-5;"),
    (0.30000000000000004, "d:0.30000000000000004;"),
    (math.inf, "d:INF;"),
    (-math.inf, "d:-INF;"),
    ("", 's:0:"";'),
    ("foo", 's:3:"foo";'),
    ('say "hi"; }', 's:11:"say "hi"; }";'),
    ("café", 's:5:"café";'),
    ("日本", 's:6:"日本";'),
    ("🎉", 's:4:"🎉";'),
    ([], "a:0:{}"),
    (["foo", True], 'a:2:{i:0;s:3:"foo";i:1;b:1;}'),
    ({0: "foo", "k": True}, 'a:2:{i:0;s:3:"foo";s:1:"k";b:1;}'),
    ({"a": {"b": [1, 2]}}, 'a:1:{s:1:"a";a:1:{s:1:"b";a:2:{i:0;i:1;i:1;i:2;}}}'),
    ({5: "x", 9: "y"}, 'a:2:{i:5;s:1:"x";i:9;s:1:"y";}'),
    ({1: "b", 0: "a"}, 'a:2:{i:1;s:1:"b";i:0;s:1:"a";}'),
]


@pytest.mark.parametrize(("value", "text"), PHP_PAIRS)
def test_serialize_writes_what_php_writes(value: Any, text: str) -> None:
    assert serialize(value) == text


@pytest.mark.parametrize(("value", "text"), PHP_PAIRS)
def test_unserialize_reads_what_php_writes(value: Any, text: str) -> None:
    result = unserialize(text)
    assert result == value and type(result) is type(value)
    if isinstance(value, float):
        assert math.copysign(1, result) == math.copysign(1, value)


def test_nan_both_ways() -> None:
    assert serialize(math.nan) == "d:NAN;"
    assert math.isnan(unserialize("d:NAN;"))


def test_arrays_with_0_to_n_keys_in_order_read_as_lists() -> None:
    assert unserialize('a:2:{i:0;s:1:"a";i:1;s:1:"b";}') == ["a", "b"]
    # Numeric string keys are integer keys in PHP: this is the list ["a"].
    assert unserialize('a:1:{s:1:"0";s:1:"a";}') == ["a"]
    # Out of order, or with a gap: a dict, in PHP's order.
    assert list(unserialize('a:2:{i:1;s:1:"b";i:0;s:1:"a";}').items()) == [(1, "b"), (0, "a")]
    assert unserialize('a:1:{i:1;s:1:"b";}') == {1: "b"}
    # "01" and " 1" stay strings, as PHP keeps them.
    assert unserialize('a:2:{s:2:"01";i:1;s:2:" 1";i:2;}') == {"01": 1, " 1": 2}


def test_a_duplicate_key_keeps_its_place_and_takes_the_last_value() -> None:
    assert list(unserialize('a:3:{s:1:"a";i:1;s:1:"b";i:2;s:1:"a";i:3;}').items()) == [("a", 3), ("b", 2)]


def test_serialize_writes_numeric_string_keys_as_php_integers() -> None:
    assert serialize({"5": "x", "05": "y"}) == 'a:2:{i:5;s:1:"x";s:2:"05";s:1:"y";}'
    assert serialize(("a",)) == 'a:1:{i:0;s:1:"a";}'


def test_integers_beyond_64_bits() -> None:
    assert unserialize("i:9223372036854775808;") == float(2**63)
    assert unserialize("i:-9223372036854775808;") == -(2**63)
    assert serialize(2**64) == "d:1.8446744073709552E+19;"
    assert unserialize("i:" + "9" * 5000 + ";") == math.inf  # no quadratic int() on a long digit run


def test_floats_in_every_form_php_reads() -> None:
    for text, value in [("d:.5;", 0.5), ("d:5.;", 5.0), ("d:-1.5e3;", -1500.0), ("d:1E+2;", 100.0), ("d:+2;", 2.0)]:
        assert unserialize(text) == value


def test_unserialize_takes_bytes_too() -> None:
    assert unserialize('s:5:"café";'.encode()) == "café"


def test_serialize_refuses_what_php_arrays_cannot_hold() -> None:
    with pytest.raises(TypeError):
        serialize(object())
    with pytest.raises(TypeError):
        serialize({(1, 2): "x"})


JSON_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(
        # Keys PHP keeps as strings (numeric strings would turn into integer keys), and no empty
        # dict (an empty PHP array reads back as a list).
        st.text().filter(lambda key: not is_int_key(key)),
        children,
        min_size=1,
        max_size=5,
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(JSON_LIKE)
def test_round_trip(value: Any) -> None:
    assert unserialize(serialize(value)) == value


@settings(max_examples=60, deadline=None)
@given(JSON_LIKE)
def test_maybe_serialize_round_trips_through_maybe_unserialize(value: Any) -> None:
    if isinstance(value, (list, dict)):
        assert maybe_unserialize(maybe_serialize(value)) == value
    elif isinstance(value, str):
        # A plain string comes back as itself, whether or not it looks serialized.
        assert maybe_unserialize(maybe_serialize(value)) in (value, value.strip(" \t\n\r\0\x0b"))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60) | st.text(alphabet='aisdbNOrR:;{}"0123456789.-E', max_size=60))
def test_garbage_never_raises_anything_but_not_serialized(data: bytes | str) -> None:
    try:
        unserialize(data)
    except NotSerialized:
        pass


MALFORMED = [
    "",
    "N",
    "i:5",
    "i:;",
    "i:5:",
    "b:2;",
    "b:1",
    "d:abc;",
    "d:+INF;",
    's:3:"foo"',
    's:3:"foo;',
    's:4:"foo";',
    's:2:"foo";',
    's:-1:"";',
    's:1:"é";',  # the declared byte length splits the character
    's:99999999999999999999:"x";',
    "a:1:{}",
    'a:1:{i:0;s:1:"a";',
    'a:2:{i:0;s:1:"a";}',
    'a:0:{i:0;s:1:"a";}',
    "a:999999999:{}",
    "a:999999999:{i:0;i:0;}",
    "a:1:{d:1.5;i:0;}",
    "a:1:{b:1;i:0;}",
    "a:1:{N;i:0;}",
    "a:1:{a:0:{}i:0;}",
    "a:1:{i:99999999999999999999;i:0;}",
    'O:8:"stdClass":0:{}',
    'C:11:"ArrayObject":21:{x:i:0;a:0:{};m:a:0:{}}',
    'E:7:"Foo:Bar";',
    "a:2:{i:0;i:1;i:1;r:2;}",
    "a:2:{i:0;i:1;i:1;R:2;}",
    'S:3:"\\61bc";',
    "x:1;",
    "i:5;i:6;",
    "i:5; ",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_and_unsupported_input_is_refused(text: str) -> None:
    with pytest.raises(NotSerialized):
        unserialize(text)


def test_not_serialized_is_a_value_error() -> None:
    assert issubclass(NotSerialized, ValueError)


def test_depth_is_bounded() -> None:
    assert unserialize("a:1:{i:0;" * 64 + "N;" + "}" * 64) is not None
    with pytest.raises(NotSerialized):
        unserialize("a:1:{i:0;" * 65 + "N;" + "}" * 65)
    with pytest.raises(NotSerialized):
        unserialize("a:1:{i:0;" * 100_000)  # no recursion error, no deep descent
    assert unserialize("a:1:{i:0;" * 3 + "N;" + "}" * 3, max_depth=3) == [[[None]]]
    with pytest.raises(NotSerialized):
        unserialize("a:1:{i:0;" * 3 + "N;" + "}" * 3, max_depth=2)


def test_huge_declared_counts_cost_nothing() -> None:
    started = time.perf_counter()
    for text in ["a:999999999999:{", "a:2147483647:{i:0;N;}", "s:2147483647:\"x\";", "a:1000000:{" + "i:0;N;" * 10]:
        with pytest.raises(NotSerialized):
            unserialize(text)
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("N;", True),
        ("  N;\n", True),
        ("b:1;", True),
        ("i:12;", True),
        ("d:1.5;", True),
        ('s:3:"foo";', True),
        ("a:0:{}", True),
        ('O:8:"stdClass":0:{}', True),
        ("d:NAN;", False),  # WordPress's pattern has no letters but E
        ("i:12", False),
        ("i:12;x", False),
        ('s:3:"foo"', False),
        ("s:3:foo;", False),
        ("hello", False),
        ("", False),
        ("a:b", False),
        ("x:1;", False),
        ("yes", False),
        ("1", False),
    ],
)
def test_is_serialized_follows_wordpress(text: str, expected: bool) -> None:
    assert is_serialized(text) is expected


def test_is_serialized_loose_mode() -> None:
    assert is_serialized('s:3:"foo";trailing', strict=False)
    assert not is_serialized('s:3:"foo";trailing')
    assert is_serialized("i:1;x", strict=False)
    assert not is_serialized("hello; world", strict=False)
    assert not is_serialized(5)


@pytest.mark.parametrize("text", ["", "plain text", "yes", "1", "2024-05-01 10:00:00", "a:b:c", "i:5", 'O:8:"stdClass":0:{}', "a:1:{broken}"])
def test_maybe_unserialize_passes_plain_and_unreadable_text_through(text: str) -> None:
    assert maybe_unserialize(text) == text


def test_maybe_unserialize_reads_serialized_text() -> None:
    assert maybe_unserialize('a:2:{i:0;s:3:"foo";s:1:"k";b:1;}') == {0: "foo", "k": True}
    assert maybe_unserialize(" b:0;\n") is False
    assert maybe_unserialize("N;") is None
    assert maybe_unserialize(7) == 7


def test_maybe_serialize_as_wordpress_stores_values() -> None:
    assert maybe_serialize(["a"]) == 'a:1:{i:0;s:1:"a";}'
    assert maybe_serialize({"k": 1}) == 'a:1:{s:1:"k";i:1;}'
    assert maybe_serialize("plain") == "plain"
    assert maybe_serialize(5) == "5"
    assert maybe_serialize(True) == "1"
    assert maybe_serialize(False) == ""
    assert maybe_serialize(None) == ""
    # A string that already looks serialized is serialized again, so it reads back as the string.
    assert maybe_serialize("i:5;") == 's:4:"i:5;";'
    assert maybe_unserialize(maybe_serialize("i:5;")) == "i:5;"
