"""A second set of names for the same routes: the reference's (``wp/v2``, ``tribe/events/v1``,
``tribe_events``...) beside calpress's own, for clients that hard-code them.

A :class:`Naming` says how every name the service shows differs under it:

- ``namespaces``: namespace key -> its wire name here (``cms`` -> ``wp/v2``); the registry
  binds an alias of every route of those namespaces (:meth:`calpress.rest.registry.Registry.add_naming`),
  sharing its endpoints;
- ``names``: calpress's names of types, taxonomies and statuses -> the names here
  (``cal_events`` -> ``tribe_events``), and ``prefixes`` for families of them (``cal-ea-`` ->
  ``tribe-ea-``). A literal path segment of a route named so is renamed too
  (``/cms/v2/cal_events/(?P<id>...)`` -> ``/wp/v2/tribe_events/(?P<id>...)``).

A request that matched an alias route is translated on its way in (the parameters whose values
are names, and parameter names that are names, such as a taxonomy's filter) and its answer on its
way out, by structure, never by searching text: a key that is a name is renamed, and the value
of a key that holds names (``type``, ``taxonomy``, ``status``, ``namespace``...) is renamed when it
is one. Addresses need nothing: handlers build them with ``request.url_for``, which a request of
an alias route answers with the alias's routes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Keys whose string values (or lists of strings) name types, taxonomies, statuses or namespaces.
VALUE_KEYS = frozenset({
    "type", "types", "taxonomy", "taxonomies", "status", "subtype", "post_type", "namespace", "namespaces",
    "rest_namespace", "rest_base", "object_type",
})
# Request parameters whose values are such names.
PARAM_KEYS = frozenset({"type", "subtype", "status", "taxonomy", "post_type", "namespace"})


@dataclass(frozen=True)
class Naming:
    label: str
    namespaces: Mapping[str, str]
    names: Mapping[str, str]
    prefixes: tuple[tuple[str, str], ...] = ()
    _back: dict[str, str] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._back.update({theirs: ours for ours, theirs in self.names.items()})

    # -- single names ------------------------------------------------------------------------------

    def out_name(self, name: str) -> str:
        """A name of calpress's as it is called here (unchanged when it has no other name)."""
        found = self.names.get(name)
        if found is not None:
            return found
        for ours, theirs in self.prefixes:
            if name.startswith(ours):
                return theirs + name[len(ours):]
        return name

    def in_name(self, name: str) -> str:
        """A name as a request here gives it, in calpress's names."""
        found = self._back.get(name)
        if found is not None:
            return found
        for ours, theirs in self.prefixes:
            if name.startswith(theirs):
                return ours + name[len(theirs):]
        return name

    def segment(self, segment: str) -> str:
        """A literal path segment of a route pattern, renamed when it is a name."""
        return self.names.get(segment, segment)

    # -- requests and answers ----------------------------------------------------------------------

    def inbound(self, params: dict[str, Any]) -> dict[str, Any]:
        """Request parameters in calpress's names: names as parameter names (a taxonomy's
        filter), and the values of the parameters that take names. ``_fields`` is read as a list
        of field names."""
        translated: dict[str, Any] = {}
        for key, value in params.items():
            name = self.in_name(key) if isinstance(key, str) else key
            if name in PARAM_KEYS:
                value = self._in_value(value)
            elif name == "_fields" and isinstance(value, str):
                value = ",".join(self._in_field(part) for part in value.split(","))
            translated[name] = value
        return translated

    def _in_field(self, path: str) -> str:
        return ".".join(self.in_name(part) for part in path.split("."))

    def _in_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return ",".join(self.in_name(part) for part in value.split(",")) if "," in value else self.in_name(value)
        if isinstance(value, list):
            return [self._in_value(entry) for entry in value]
        return value

    def outbound(self, data: Any) -> Any:
        """An answer in these names (new containers: an answer may hold shared, kept items)."""
        if isinstance(data, dict):
            out: dict[Any, Any] = {}
            for key, value in data.items():
                name = self.out_name(key) if isinstance(key, str) else key
                if key in VALUE_KEYS or (key == "slug" and "rest_base" in data):
                    out[name] = self._out_value(value)
                else:
                    out[name] = self.outbound(value)
            return out
        if isinstance(data, list):
            return [self.outbound(entry) for entry in data]
        return data

    def _out_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.out_name(value)
        if isinstance(value, list):
            return [self._out_value(entry) if isinstance(entry, str) else self.outbound(entry) for entry in value]
        return self.outbound(value)
