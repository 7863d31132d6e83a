"""Command options generated from a route's argument schema: the ``args`` dicts calpress.api builds
its routes' endpoints from (``event_write_args``, ``linked_write_args``...), so that a command
mirroring a route takes every field the route takes, under the route's names, and cannot drift
from it. The values go to the route as its JSON body would carry them; the route checks them, so
a refusal is the API's own message.

    booleans  --name (true), --name=true|false (also 1|0, yes|no, on|off)
    arrays    --name=a,b or --name=a --name=b (digits become ids; --name= sends "", which clears)
    integers  --name=N
    objects   --name='{"key": "value"}' (JSON)
    others    --name=text, as typed
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

Schema = Mapping[str, Mapping[str, Any]]

TRUE = frozenset({"true", "1", "yes", "on"})
FALSE = frozenset({"false", "0", "no", "off"})

_SHAPES = {
    "boolean": " (true|false; alone: true)",
    "array": " (comma-separated or repeated)",
    "integer": " (a number)",
}


def add_schema_options(parser: argparse.ArgumentParser, schema: Schema, *, skip: Iterable[str] = ()) -> None:
    """An option for each argument of ``schema`` but ``skip``. The options' values stay None when
    not given, so that a command sends only what it was given."""
    left_out = set(skip)
    for name, spec in schema.items():
        if name in left_out:
            continue
        kind = spec.get("type")
        option = "--" + name
        text = (str(spec.get("description") or name) + _SHAPES.get(str(kind), "")).replace("%", "%%")
        if kind == "boolean":
            parser.add_argument(option, dest=name, nargs="?", const="true", default=None, metavar="true|false", help=text)
        elif kind == "array":
            parser.add_argument(option, dest=name, action="append", default=None, metavar="a,b", help=text)
        else:
            parser.add_argument(option, dest=name, default=None, help=text)


def schema_body(args: argparse.Namespace, schema: Schema, *, skip: Iterable[str] = ()) -> dict[str, Any]:
    """The route's body for the options given: each value in the form the schema declares."""
    left_out = set(skip)
    body: dict[str, Any] = {}
    for name, spec in schema.items():
        value = getattr(args, name, None)
        if name in left_out or value is None:
            continue
        body[name] = wire_value(value, spec.get("type"))
    return body


def wire_value(value: Any, kind: Any) -> Any:
    """An option's text as the JSON body carries it: booleans and integers as such when they read
    as one (else the text, for the route to refuse in its words), arrays as lists."""
    if isinstance(kind, list):  # ["string", "null"]...: the first that is not null
        kind = next((one for one in kind if one != "null"), None)
    if kind == "array":
        return list_value(value if isinstance(value, list) else [value])
    if kind == "object":
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    if kind == "boolean":
        word = str(value).strip().lower()
        return True if word in TRUE else False if word in FALSE else value
    if kind == "integer":
        text = str(value).strip()
        return int(text) if text.lstrip("-").isdigit() else value
    return value


def list_value(given: list[str]) -> Any:
    """Repeated and comma-separated entries as one list, digits as ids; only empty entries: ""
    (what the route reads as none)."""
    entries = [part.strip() for value in given for part in str(value).split(",")]
    entries = [entry for entry in entries if entry]
    if not entries:
        return ""
    return [int(entry) if entry.isdigit() else entry for entry in entries]
