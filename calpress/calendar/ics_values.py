"""Property values of a parsed iCalendar component, as :mod:`.ics_import` and its helpers read and
rewrite them: icalendar leaves a property absent (None), repeated (a list) or unreadable
(``vBroken``), and these take what can be read and pass over the rest."""

from __future__ import annotations

from typing import Any

from icalendar import Component, vBroken


def readable(component: Component, name: str) -> Any:
    """A property's value, None when absent or unreadable (the first of repeated ones)."""
    value = component.get(name)
    if isinstance(value, list):
        value = value[0] if value else None
    return None if isinstance(value, vBroken) else value


def readables(component: Component, name: str) -> list[Any]:
    """Every readable value of a property that may be repeated."""
    value = component.get(name)
    values = value if isinstance(value, list) else [] if value is None else [value]
    return [item for item in values if not isinstance(item, vBroken)]


def plain(value: Any) -> str:
    """A value as text ("" when absent or unreadable; the first of repeated ones), without NULs."""
    if value is None or isinstance(value, vBroken):
        return ""
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value).replace("\x00", "")


def one_line(value: Any) -> str:
    """:func:`plain` with its blanks collapsed to single spaces."""
    return " ".join(plain(value).split())


def set_values(component: Component, name: str, values: list[Any]) -> None:
    """Replaces a property by these values (removed when there are none)."""
    if name in component:
        del component[name]
    if values:
        component[name] = values if len(values) > 1 else values[0]
