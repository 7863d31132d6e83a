"""Values as the workspace's screens read them, one way for all: numbers from form fields and
query strings, the text of a REST field that may be ``{"raw", "rendered"}``, lists of ids."""

from __future__ import annotations

from typing import Any

__all__ = ["ids", "number", "text_of"]


LARGEST = 2**63 - 1  # what the database and the JSON the workspace writes can hold


def number(value: Any, default: Any = 0) -> Any:
    """``value`` as an int (spaces around it allowed), else ``default`` (None to tell "not a
    number" from 0); a number no column or option could hold counts as not a number."""
    try:
        found = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return found if -LARGEST <= found <= LARGEST else default


def text_of(value: Any) -> str:
    """A REST field as text: its ``raw`` form when the answer has one, else ``rendered``."""
    if isinstance(value, dict):
        value = value.get("raw", value.get("rendered", ""))
    return "" if value is None else str(value)


def ids(value: Any) -> list[int]:
    """Positive ids from a ``name[]`` form field or a query value (one or many), in order, once each."""
    values = value if isinstance(value, list) else [value] if value not in (None, "") else []
    return list(dict.fromkeys(found for found in (number(v) for v in values) if found > 0))
