"""Walking a key path inside a JSON value, for ``option patch`` and ``post meta patch|pluck``
(WP-CLI's): insert, update or delete the key at the path, or read the value there."""

from __future__ import annotations

import argparse
from typing import Any

import orjson

from .common import CliError, input_value


def same_value(first: Any, second: Any) -> bool:
    """Whether two JSON values are the same value (Python's == takes 1 for true and 1.0 for 1)."""
    return orjson.dumps(first, option=orjson.OPT_SORT_KEYS) == orjson.dumps(second, option=orjson.OPT_SORT_KEYS)


MISSING = object()


def _step(container: Any, key: str) -> Any:
    """The key of ``container`` a path step names (a list takes an index), or MISSING."""
    if isinstance(container, dict):
        return key if key in container else MISSING
    if isinstance(container, list):
        try:
            index = int(key)
        except ValueError:
            return MISSING
        return index if -len(container) <= index < len(container) else MISSING
    return MISSING


def patch_value(current: Any, action: str, path: list[str], value: Any = None) -> Any:
    """``current`` (not changed) with the key at ``path`` inserted, updated or deleted as WP-CLI's
    option patch does: every step but the last must exist; insert refuses an existing key,
    update and delete a missing one. Raises CliError."""
    result = orjson.loads(orjson.dumps(current))  # a deep copy of a JSON value
    parent: Any = result
    for key in path[:-1]:
        found = _step(parent, key)
        if found is MISSING:
            raise CliError(f'No data exists for key "{key}"')
        parent = parent[found]
    last = path[-1]
    if not isinstance(parent, (dict, list)):
        raise CliError(f'Cannot create key "{last}" on this value: it is no array or object.')
    found = _step(parent, last)
    if action == "insert":
        if found is not MISSING:
            raise CliError(f'Cannot create key "{last}": it already exists.')
        if isinstance(parent, list):
            if last not in ("", str(len(parent))):
                raise CliError(f'Cannot create key "{last}" on this list: only the next index, {len(parent)}, can be added.')
            parent.append(value)
        else:
            parent[last] = value
    elif found is MISSING:
        raise CliError(f'No data exists for key "{last}"')
    elif action == "update":
        parent[found] = value
    else:
        del parent[found]
    return result


def pluck_value(current: Any, path: list[str]) -> Any:
    """The value at ``path`` inside ``current`` (WP-CLI's pluck); CliError at a step that is
    missing or leads into a value that is no array or object."""
    found = current
    for key in path:
        step = _step(found, key)
        if step is MISSING:
            raise CliError(f'No data exists for key "{key}"')
        found = found[step]
    return found


def patch_arguments(args: argparse.Namespace) -> tuple[list[str], Any]:
    """A patch command's key path and value (its last word, but for delete)."""
    path = list(args.key_path)
    if args.action == "delete":
        return path, None
    if len(path) < 2:
        raise CliError("Please provide a key path and a value.")
    value = input_value(path.pop(), args.format)
    return path, value
