"""Output of the list and get commands in WP-CLI's forms (its Formatter):

    --format=table|json|csv|yaml|ids|count   (get: table|json|yaml)
    --fields=a,b                             the columns, in this order (default: the command's)
    --field=x                                one field: its values alone, one a line (json: an array)

table prints a bordered table (``+----+``) on a terminal and tab-separated lines with a header
when the output is piped or captured, as WP-CLI does. json is compact (an array; an object for
get), csv comes from the csv module, yaml is written here (flat rows; strings quoted when a YAML
reader would take them for something else), ids are the ids separated by spaces and count the
number of rows. Values that are lists or objects show as JSON in table and csv.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from .common import CliError

LIST_FORMATS = ("table", "json", "csv", "yaml", "ids", "count")
GET_FORMATS = ("table", "json", "yaml")


class FormatError(Exception):
    """A --fields or --format the rows cannot be shown with (``Error: ...``)."""


def add_options(parser: argparse.ArgumentParser, *, formats: Sequence[str] = LIST_FORMATS) -> None:
    parser.add_argument("--format", choices=tuple(formats), default="table")
    parser.add_argument("--fields", default=None, help="comma-separated fields to show")
    parser.add_argument("--field", default=None, help="show this one field only")


def pick_fields(given: str | None, field: str | None, default: Sequence[str], available: Sequence[str]) -> list[str]:
    """The fields to show: --field, else --fields, else the default, matched without regard to
    case as WP-CLI matches them (``--fields=id`` is ``ID``). FormatError for a field the rows do
    not have (WP-CLI: ``Invalid field: x.``)."""
    if field:
        wanted = [field]
    elif given:
        wanted = [name.strip() for name in given.split(",") if name.strip()]
    else:
        wanted = list(default)
    by_case = {name.lower(): name for name in available}
    picked = []
    for name in wanted:
        found = name if name in available else by_case.get(name.lower())
        if found is None:
            raise FormatError(f"Invalid field: {name}.")
        picked.append(found)
    return picked


def cell(value: Any) -> str:
    """A value as text in a table or CSV: JSON for lists and objects, WP-CLI's 1 and '' for booleans."""
    if value is None or value is False:
        return ""
    if value is True:
        return "1"
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)


def render_list(rows: list[dict[str, Any]], fmt: str, fields: Sequence[str], *, id_field: str | None = None,
                single: bool = False, bordered: bool | None = None) -> str:
    """``rows`` in ``fmt`` with ``fields``; ``single`` (--field): the values alone, one a line.
    Returns the text to print (no trailing newline; '' for nothing)."""
    if fmt == "count":
        return str(len(rows))
    if fmt == "ids":
        if id_field is None:
            raise FormatError("The ids format is not available here.")
        return " ".join(str(row[id_field]) for row in rows)
    shown = [{name: row.get(name) for name in fields} for row in rows]
    if single:  # --field: the values alone (json: an array of them, as WP-CLI)
        values = [row[fields[0]] for row in shown]
        return orjson.dumps(values).decode() if fmt == "json" else "\n".join(cell(value) for value in values)
    if fmt == "json":
        return orjson.dumps(shown).decode()
    if fmt == "csv":
        return _csv(shown, fields)
    if fmt == "yaml":
        return "---\n" + "\n".join(_yaml_item(row, "- ") for row in shown) if shown else "--- []"
    return table(fields, [[cell(row[name]) for name in fields] for row in shown], bordered=bordered)


def render_item(item: dict[str, Any], fmt: str, fields: Sequence[str], *, single: bool = False,
                bordered: bool | None = None) -> str:
    """One object (a get command): --field prints its value alone; table shows Field / Value rows."""
    if single:
        value = item.get(fields[0])
        return orjson.dumps(value).decode() if fmt == "json" else cell(value)
    shown = {name: item.get(name) for name in fields}
    if fmt == "json":
        return orjson.dumps(shown).decode()
    if fmt == "yaml":
        return "---\n" + _yaml_item(shown, "")
    return table(["Field", "Value"], [[name, cell(value)] for name, value in shown.items()], bordered=bordered)


def table(header: Sequence[str], rows: list[list[str]], *, bordered: bool | None = None) -> str:
    """WP-CLI's table: bordered on a terminal, tab-separated with a header line when piped."""
    if bordered is None:
        bordered = sys.stdout.isatty()
    if not bordered:
        return "\n".join("\t".join(line) for line in [list(header), *rows])
    widths = [max(len(str(text).replace("\n", " ")) for text in column) for column in zip(header, *rows, strict=True)]
    rule = "+" + "+".join("-" * (width + 2) for width in widths) + "+"

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(str(text).replace("\n", " ").ljust(width) for text, width in zip(values, widths, strict=True)) + " |"

    return "\n".join([rule, line(header), rule, *(line(values) for values in rows), rule])


def _csv(rows: list[dict[str, Any]], fields: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(fields)
    for row in rows:
        writer.writerow([cell(row[name]) for name in fields])
    return buffer.getvalue().rstrip("\n")


# -- YAML for flat rows ---------------------------------------------------------------------------

_PLAIN_UNSAFE_START = set("-?:,[]{}#&*!|>'\"%@`~ ")
# YAML 1.1 words a reader turns into booleans, null, numbers, or the value (=) and merge (<<) keys.
_YAML_WORDS = re.compile(r"(?i)^(true|false|yes|no|on|off|y|n|null|~|\.nan|[-+]?\.inf|=|<<)$")
_NUMBER_LIKE = re.compile(r"^[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^0[xob][0-9a-fA-F_]+$|^\d+:\d+")
# YAML 1.1 timestamps (2027-03-10, 2027-03-10 09:00:00, 2027-03-10T09:00:00Z): a reader makes them
# dates, so every post_date, user_registered... would come back as one.
_TIMESTAMP_LIKE = re.compile(r"^\d{4}-\d\d?-\d\d?")
# Characters JSON leaves as they are that a YAML double-quoted scalar may not hold as they are
# (C1 controls, NEL and the Unicode line separators fold into spaces; lone surrogates cannot be written).
_YAML_UNSAFE_CHARS = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def yaml_scalar(value: Any) -> str:
    """A value as a YAML scalar: plain when a reader gives the same string back, else double-quoted
    (a JSON string is a valid YAML double-quoted scalar); lists and objects in JSON flow form."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (dict, list)):
        return _escaped(json.dumps(value, ensure_ascii=False))
    text = str(value)
    if (
        not text
        or text[0] in _PLAIN_UNSAFE_START
        or text != text.strip()
        or ": " in text
        or " #" in text
        or text.endswith(":")
        or any(ch in text for ch in "\n\r\t\\\"")
        or not text.isprintable()
        or _YAML_WORDS.match(text)
        or _NUMBER_LIKE.match(text)
        or _TIMESTAMP_LIKE.match(text)
    ):
        return _double_quoted(text)
    return text


def _double_quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (its JSON string, escaped further by _escaped)."""
    return _escaped(json.dumps(text, ensure_ascii=False))


def _escaped(json_text: str) -> str:
    """JSON text with the characters YAML would not read back as they are, inside its strings,
    escaped as \\uXXXX (valid in JSON and in YAML double-quoted scalars)."""
    return _YAML_UNSAFE_CHARS.sub(lambda found: f"\\u{ord(found.group()):04x}", json_text)


def _yaml_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name) else json.dumps(name)


def _yaml_item(row: dict[str, Any], first: str) -> str:
    """One mapping; ``first`` ('- ') starts it as an item of a sequence."""
    if not row:
        return first + "{}"
    indent = " " * len(first)
    lines = [f"{first if index == 0 else indent}{_yaml_key(name)}: {yaml_scalar(value)}"
             for index, (name, value) in enumerate(row.items())]
    return "\n".join(lines)


def print_report(outcome: Any) -> None:
    """An import's report (transfer/reports.py): warnings and errors on stderr, the rest on stdout."""
    for line in outcome.lines:
        print(line.text, file=sys.stderr if line.to_stderr else sys.stdout)


def format_value(value: Any, fmt: str) -> str:
    """A value as ``option get`` and ``post meta get`` print it: JSON for lists, objects and
    --format=json, WP-CLI's 1 and '' for booleans, else the text."""
    if fmt == "json" or isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    if value is True:
        return "1"
    if value is False or value is None:
        return ""
    return str(value)


# WP-CLI's field names and how each is read from a REST item.
Fields = dict[str, Callable[[dict[str, Any]], Any]]


def row_of(fields: Fields, item: dict[str, Any]) -> dict[str, Any]:
    return {name: read(item) for name, read in fields.items()}


def show_list(args: argparse.Namespace, rows: list[dict[str, Any]], default: list[str], available: list[str],
              id_field: str | None) -> int:
    fields = _fields(args, default, available)
    text = render_list(rows, args.format, fields, id_field=id_field, single=bool(args.field))
    if text:
        print(text)
    return 0


def list_items(args: argparse.Namespace, fields: Fields, items: list[dict[str, Any]], default: list[str],
               id_field: str | None) -> int:
    """REST items shown as a list with WP-CLI's field names."""
    return show_list(args, [row_of(fields, item) for item in items], default, list(fields), id_field)


def show_item(args: argparse.Namespace, item: dict[str, Any], default: list[str]) -> int:
    fields = _fields(args, default, list(item))
    print(render_item(item, args.format, fields, single=bool(args.field)))
    return 0


def _fields(args: argparse.Namespace, default: list[str], available: list[str]) -> list[str]:
    try:
        return pick_fields(args.fields, args.field, default, available)
    except FormatError as err:
        raise CliError(str(err)) from None
