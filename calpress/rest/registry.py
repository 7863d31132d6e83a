"""The one registry of routes: namespaces, route patterns, endpoints and their argument schemas.

Dispatch, the route index, OPTIONS answers, the OpenAPI document and the calendar's Swagger
document are all read from here, so none of them can drift from the routes that really answer.
Patterns are written exactly as they appear as keys of the reference's route index.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Handler = Callable[[Any], Any]
Permission = Callable[[Any], Any]

_UNSEEN = object()
ALL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
READABLE = ("GET",)
CREATABLE = ("POST",)
EDITABLE = ("POST", "PUT", "PATCH")
DELETABLE = ("DELETE",)


@dataclass
class Endpoint:
    """One method set of a route: its handler, permission check and argument schema.

    ``args`` maps a parameter name to a JSON-schema-like dict; besides the schema keys it may hold
    ``required`` (bool), ``default``, and the callables ``validate`` (value, request, name) ->
    True | False | RestError and ``sanitize`` (value, request, name) -> value | RestError, which
    replace the schema-driven check for that parameter.
    """

    methods: tuple[str, ...]
    handler: Handler
    permission: Permission | None = None
    args: dict[str, dict[str, Any]] = field(default_factory=dict)
    allow_batch: bool = False
    show_in_index: bool = True
    # GET answers may be cached by the engine (see RestServer.generation): only for handlers
    # whose answer depends on nothing but the request, the requester and stored data.
    cache: bool = False

    def __post_init__(self) -> None:
        self.methods = tuple(m.upper() for m in self.methods)


@dataclass
class Route:
    namespace: str
    pattern: str
    endpoints: list[Endpoint]
    schema: Callable[[], dict[str, Any]] | None = None
    show_in_index: bool = True
    regex: re.Pattern[str] = field(init=False)
    has_params: bool = field(init=False)
    _schema_cache: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # The reference matches '@^route$@i' with PCRE, where \w and \d are ASCII.
        self.regex = re.compile(f"^{self.pattern}$", re.IGNORECASE | re.ASCII)
        self.has_params = "(?P<" in self.pattern

    @property
    def methods(self) -> list[str]:
        return [m for endpoint in self.endpoints for m in endpoint.methods]

    def item_schema(self) -> dict[str, Any] | None:
        """The route's public item schema, built once: without ``arg_options`` and callables,
        as the reference's get_public_item_schema."""
        if self.schema is None:
            return None
        if self._schema_cache is None:
            self._schema_cache = public_schema(self.schema())
        return self._schema_cache

    def endpoint_for(self, method: str) -> Endpoint | None:
        """The first endpoint serving ``method``; HEAD falls back to GET as in the reference."""
        for endpoint in self.endpoints:
            if method in endpoint.methods:
                return endpoint
        if method == "HEAD":
            for endpoint in self.endpoints:
                if "GET" in endpoint.methods:
                    return endpoint
        return None


def public_schema(schema: Any) -> Any:
    """A copy of a schema without what only the server uses (``arg_options``, callables)."""
    if isinstance(schema, dict):
        return {key: public_schema(value) for key, value in schema.items() if key != "arg_options" and not callable(value)}
    if isinstance(schema, list):
        return [public_schema(item) for item in schema]
    return schema


class Namespace:
    """A handle for registering the routes of one namespace (``cms/v2``, ``cal/events/v1``...)."""

    def __init__(self, registry: Registry, name: str) -> None:
        self.registry = registry
        self.name = name

    def route(
        self,
        path: str,
        endpoints: Iterable[Endpoint],
        *,
        args: dict[str, dict[str, Any]] | None = None,
        schema: Callable[[], dict[str, Any]] | None = None,
        allow_batch: bool = False,
        show_in_index: bool = True,
    ) -> Route:
        """Register ``/{namespace}{path}``. Route-level ``args`` are merged first into every endpoint."""
        return self.registry.add_route(
            self.name,
            f"/{self.name}{path}",
            endpoints,
            args=args,
            schema=schema,
            allow_batch=allow_batch,
            show_in_index=show_in_index,
        )


class Registry:
    """All routes, in registration order, with a namespace-keyed lookup for dispatch."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.namespaces: list[str] = []
        self._by_namespace: dict[str, list[Route]] = {}
        self._unnamespaced: list[Route] = []
        self._namespace_order: list[str] = []
        self.namespace_index_factory: Callable[[str], list[Endpoint]] | None = None
        self._match_cache: dict[str, Any] = {}

    def namespace(self, name: str) -> Namespace:
        """Declare (once) and return a namespace; its index route ``/{name}`` is registered with it."""
        if name not in self._by_namespace:
            self.namespaces.append(name)
            self._by_namespace[name] = []
            self._namespace_order = sorted(self.namespaces, key=len, reverse=True)
            if self.namespace_index_factory is not None:
                self.add_route(name, f"/{name}", self.namespace_index_factory(name))
        return Namespace(self, name)

    def add_route(
        self,
        namespace: str,
        pattern: str,
        endpoints: Iterable[Endpoint],
        *,
        args: dict[str, dict[str, Any]] | None = None,
        schema: Callable[[], dict[str, Any]] | None = None,
        allow_batch: bool = False,
        show_in_index: bool = True,
    ) -> Route:
        if pattern in self.routes:
            raise ValueError(f"route {pattern} is registered twice")
        endpoint_list = list(endpoints)
        for endpoint in endpoint_list:
            if args:
                endpoint.args = {**args, **endpoint.args}
            if allow_batch:
                endpoint.allow_batch = True
        route = Route(namespace, pattern, endpoint_list, schema=schema, show_in_index=show_in_index)
        self.routes[pattern] = route
        self._match_cache.clear()
        if namespace:
            if namespace not in self._by_namespace:
                self.namespace(namespace)
            self._by_namespace[namespace].append(route)
        else:
            self._unnamespaced.append(route)
        return route

    def candidates(self, path: str) -> Iterator[Route]:
        """Routes that may match ``path``: its namespace's routes (longest namespace first), then
        the routes outside any namespace. The reference narrows by namespace prefix the same way."""
        lowered = path.lower()
        for name in self._namespace_order:
            prefix = f"/{name.lower()}"
            if lowered == prefix or lowered.startswith(prefix + "/"):
                yield from self._by_namespace[name]
        yield from self._unnamespaced

    def match(self, path: str) -> tuple[Route, dict[str, str]] | None:
        """The first route whose pattern matches ``path`` and its URL parameters (a copy: callers
        may change it). Recent answers are remembered, bounded."""
        cached = self._match_cache.get(path, _UNSEEN)
        if cached is _UNSEEN:
            cached = None
            for route in self.candidates(path):
                found = route.regex.match(path)
                if found:
                    cached = (route, {k: v for k, v in found.groupdict().items() if v is not None})
                    break
            if len(self._match_cache) >= 4096:
                self._match_cache.clear()
            self._match_cache[path] = cached
        if cached is None:
            return None
        return cached[0], dict(cached[1])

    def routes_of(self, namespace: str) -> list[Route]:
        return list(self._by_namespace.get(namespace, ()))

    def __iter__(self) -> Iterator[Route]:
        return iter(self.routes.values())
