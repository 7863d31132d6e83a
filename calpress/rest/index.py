"""The route index: route descriptions for ``GET /``, ``GET /{namespace}`` and OPTIONS answers.

Built from the registry only, and cached per REST base URL (the index depends on nothing else).
"""

from __future__ import annotations

from typing import Any

import orjson

from .registry import Registry, Route
from .schema import PUBLIC_ARG_KEYS
from .urls import rest_url

_PUBLIC = frozenset(PUBLIC_ARG_KEYS)


def public_arg(arg: dict[str, Any]) -> dict[str, Any]:
    """An argument as the index shows it: the schema keywords in their declared order, then required."""
    shown = {key: value for key, value in arg.items() if key in _PUBLIC}
    shown["required"] = arg.get("required") is True
    return shown


def route_description(route: Route, base_url: str) -> dict[str, Any]:
    """One entry of the index's ``routes`` (also the body of an OPTIONS answer)."""
    endpoints: list[dict[str, Any]] = []
    methods: list[str] = []
    for endpoint in route.endpoints:
        if not endpoint.show_in_index:
            continue
        methods.extend(endpoint.methods)
        entry: dict[str, Any] = {"methods": list(endpoint.methods)}
        if endpoint.allow_batch:
            entry["allow_batch"] = {"v1": True}
        args = {name: public_arg(arg) for name, arg in endpoint.args.items()}
        entry["args"] = args if args else []
        endpoints.append(entry)
    data: dict[str, Any] = {"namespace": route.namespace, "methods": methods, "endpoints": endpoints}
    if not route.has_params:
        data["_links"] = {"self": [{"href": rest_url(base_url, route.pattern)}]}
    return data


class RouteIndex:
    """Route descriptions per base URL, computed once per base and then shared; also kept
    serialised, so that ``GET /`` does not re-encode hundreds of routes on every request."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._cache: dict[tuple[str, str | None, bool], dict[str, Any]] = {}
        self._encoded: dict[tuple[str, str | None, bool], orjson.Fragment] = {}

    def routes_fragment(self, base_url: str, namespace: str | None = None, *, aliases: bool = False) -> orjson.Fragment:
        """The same routes as pre-encoded JSON, to embed in an answer as they are."""
        key = (base_url, namespace, aliases)
        found = self._encoded.get(key)
        if found is None:
            found = orjson.Fragment(orjson.dumps(self.routes(base_url, namespace, aliases=aliases)))
            if len(self._encoded) > 64:
                self._encoded.clear()
            self._encoded[key] = found
        return found

    def routes(self, base_url: str, namespace: str | None = None, *, aliases: bool = False) -> dict[str, Any]:
        """The routes of ``namespace`` (every route when None; with the other namings' routes
        after them when ``aliases``), described in their own names."""
        key = (base_url, namespace, aliases)
        cached = self._cache.get(key)
        if cached is None:
            if namespace is not None:
                selected = self.registry.routes_of(namespace)
            else:
                selected = [*self.registry, *(self.registry.aliases.values() if aliases else ())]
            cached = {
                route.pattern: _described(route, base_url)
                for route in selected
                if route.show_in_index and any(e.show_in_index for e in route.endpoints)
            }
            if len(self._cache) > 64:  # bases come from Host headers: keep the cache bounded
                self._cache.clear()
            self._cache[key] = cached
        return cached


def _described(route: Route, base_url: str) -> dict[str, Any]:
    data = route_description(route, base_url)
    return route.naming.outbound(data) if route.naming is not None else data
