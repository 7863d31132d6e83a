"""Answers' JSON (calpress/rest/encoding.py): a kept representation is encoded once and pasted
into every answer that shows it unchanged; a copy changed by its request encodes as it now is."""

from __future__ import annotations

import enum
from collections import OrderedDict

import orjson
import pytest

from calpress.rest.encoding import Kept, dumps


def kept() -> Kept:
    return Kept({"id": 5, "title": {"rendered": "Hello"}, "tags": [1, 2], 7: "seven", "_links": {"self": [{"href": "x"}]}})


def test_an_unchanged_copy_encodes_as_the_kept_representation():
    representation = kept()
    plain = orjson.dumps(representation.data, option=orjson.OPT_NON_STR_KEYS)
    page = [representation.copy(), representation.copy()]
    assert dumps(page) == b"[" + plain + b"," + plain + b"]"
    assert page[0] == representation.data and page[0] is not representation.data
    assert representation.fragment() is representation.fragment()  # made once


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.__setitem__("title", "changed"),
        lambda d: d.__delitem__("tags"),
        lambda d: d.pop("id"),
        lambda d: d.popitem(),
        lambda d: d.setdefault("new", 1),
        lambda d: d.update(id=6),
        lambda d: d.__ior__({"id": 7}),
        lambda d: d.clear(),
    ],
)
def test_a_copy_changed_at_its_top_level_encodes_as_it_now_is(change):
    representation = kept()
    copy = representation.copy()
    representation.fragment()  # the kept JSON exists already
    change(copy)
    assert orjson.loads(dumps([copy])) == [orjson.loads(orjson.dumps(dict(copy), option=orjson.OPT_NON_STR_KEYS))]
    assert orjson.loads(dumps(representation.copy())) == orjson.loads(orjson.dumps(representation.data, option=orjson.OPT_NON_STR_KEYS))


def test_other_subclasses_encode_as_their_base_types():
    class Color(enum.StrEnum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    class Names(list):
        pass

    data = {"color": Color.RED, "level": Level.HIGH, "names": Names(["a"]), "ordered": OrderedDict(b=1, a=2)}
    assert orjson.loads(dumps(data)) == {"color": "red", "level": 3, "names": ["a"], "ordered": {"b": 1, "a": 2}}
    with pytest.raises(TypeError):
        dumps({"set": {1}})


def test_indented_answers_indent_kept_representations_too():
    representation = kept()
    representation.fragment()
    text = dumps([representation.copy()], orjson.OPT_NON_STR_KEYS | orjson.OPT_INDENT_2)
    assert text == orjson.dumps([representation.data], option=orjson.OPT_NON_STR_KEYS | orjson.OPT_INDENT_2)
    assert b'\n      "rendered": "Hello"' in text
