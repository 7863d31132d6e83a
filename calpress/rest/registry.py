"""The one registry of routes: namespaces, route patterns, endpoints and their argument schemas.

Dispatch, the route index, OPTIONS answers, the OpenAPI document and the calendar's Swagger
document are all read from here, so none of them can drift from the routes that really answer.
Patterns are written exactly as they appear as keys of the reference's route index.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .naming import Naming
from .urls import rest_url

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
    ``required`` (bool; ``given_as`` lists other names that satisfy it), ``default``, and the callables ``validate`` (value, request, name) ->
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


# A named group of a route pattern, its body allowing one level of nested parentheses.
_GROUP = re.compile(r"\(\?P<(\w+)>((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)")


class Route:
    r"""One route: the key of its namespace, its path under it, its endpoints, its name and its
    item schema. Route-level ``args`` are merged first into every endpoint's, and ``allow_batch``
    into every endpoint.

    ``path`` is the pattern under the namespace, exactly as it appears after the namespace in
    the keys of the reference's route index (``/posts/(?P<id>[\d]+)``; ``""`` for the namespace's
    own index; ``/`` with the namespace key ``""`` for the site root). The registry binds it to
    the namespace's name on the wire (``bind``), which gives ``pattern``, its regex and the
    ``template`` URLs are built from.
    """

    def __init__(
        self,
        namespace: str,
        path: str,
        endpoints: Iterable[Endpoint],
        *,
        name: str = "",
        args: dict[str, dict[str, Any]] | None = None,
        schema: Callable[[], dict[str, Any]] | None = None,
        allow_batch: bool = False,
        show_in_index: bool = True,
    ) -> None:
        self.namespace_key = namespace
        self.path = path
        self.name = name
        self.endpoints = list(endpoints)
        for endpoint in self.endpoints:
            if args:
                endpoint.args = {**args, **endpoint.args}
            if allow_batch:
                endpoint.allow_batch = True
        self.schema = schema
        self.show_in_index = show_in_index
        self._schema_cache: dict[str, Any] | None = None
        # An alias (Registry.add_naming): the naming it answers under and the route it stands for.
        self.naming: Naming | None = None
        self.original: Route = self
        # Set by bind():
        self.namespace = ""
        self.pattern = ""
        self.regex: re.Pattern[str] = re.compile("")
        self.has_params = False
        self.template = ""
        self.params: dict[str, str] = {}

    def bind(self, namespace: str) -> Route:
        """Place the route under the namespace called ``namespace`` on the wire ("" for none)."""
        self.namespace = namespace
        self.pattern = f"/{namespace}{self.path}" if namespace else self.path
        # The reference matches '@^route$@i' with PCRE, where \w and \d are ASCII.
        self.regex = re.compile(f"^{self.pattern}$", re.IGNORECASE | re.ASCII)
        self.has_params = "(?P<" in self.pattern
        self.params = {}

        def placeholder(match: re.Match[str]) -> str:
            self.params[match.group(1)] = match.group(2)
            return "{" + match.group(1) + "}"

        self.template = _GROUP.sub(placeholder, self.pattern)
        return self

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

    def path_with(self, params: dict[str, Any]) -> str:
        """The route's path with its parameters filled in (``/cms/v2/posts/5``)."""
        if not self.params:
            return self.pattern
        return self.template.format_map({key: params[key] for key in self.params})

    def alias(self, naming: Naming, namespace: str) -> Route:
        """This route under ``naming``: the same endpoints and schema, its path's literal
        segments renamed, bound to ``namespace`` (the naming's wire name of its namespace)."""
        path = "/".join(naming.segment(part) if part and "(" not in part else part for part in self.path.split("/"))
        twin = Route(self.namespace_key, path, self.endpoints, name=self.name, schema=self.schema,
                     show_in_index=self.show_in_index)
        twin.naming = naming
        twin.original = self
        return twin.bind(namespace)

    def __repr__(self) -> str:
        return f"Route({self.name or self.pattern!r})"


def public_schema(schema: Any) -> Any:
    """A copy of a schema without what only the server uses (``arg_options``, callables)."""
    if isinstance(schema, dict):
        return {key: public_schema(value) for key, value in schema.items() if key != "arg_options" and not callable(value)}
    if isinstance(schema, list):
        return [public_schema(item) for item in schema]
    return schema


class Registry:
    """All routes, in registration order, with a namespace-keyed lookup for dispatch and a
    name-keyed one for building URLs.

    ``namespaces`` maps each namespace's key (``cms``) to its name on the wire (``cms/v2``), in
    the order the site description lists them. Routes name their namespace by key, so the wire
    names are data: serving the same routes under another name (the reference's ``wp/v2``) is a
    change of this table, not of the routes.
    """

    def __init__(self, namespaces: Mapping[str, str] | None = None) -> None:
        self.namespace_names: dict[str, str] = dict(namespaces or {})
        self.namespaces: list[str] = list(self.namespace_names.values())
        self.routes: dict[str, Route] = {}
        self.by_name: dict[str, Route] = {}
        self._by_namespace: dict[str, list[Route]] = {name: [] for name in self.namespaces}
        self._unnamespaced: list[Route] = []
        self._namespace_order = sorted(self.namespaces, key=len, reverse=True)
        self._match_cache: dict[str, Any] = {}
        # Other namings (the reference's names) and their routes, kept apart from ``routes``: the
        # OpenAPI document and the route index list calpress's names unless asked.
        self.namings: list[Naming] = []
        self.alias_namespaces: dict[str, Naming] = {}
        self.aliases: dict[str, Route] = {}
        self._alias_by_name: dict[tuple[str, str], Route] = {}

    def wire_name(self, key: str) -> str:
        """The name on the wire of the namespace ``key`` (``cms`` -> ``cms/v2``)."""
        try:
            return self.namespace_names[key]
        except KeyError:
            raise ValueError(f"no namespace with the key {key!r}") from None

    def add(self, route: Route) -> Route:
        route.bind(self.wire_name(route.namespace_key) if route.namespace_key else "")
        if route.pattern in self.routes:
            raise ValueError(f"route {route.pattern} is registered twice")
        if route.name:
            if route.name in self.by_name:
                raise ValueError(f"route name {route.name} is used twice")
            self.by_name[route.name] = route
        self.routes[route.pattern] = route
        self._match_cache.clear()
        if route.namespace:
            self._by_namespace[route.namespace].append(route)
        else:
            self._unnamespaced.append(route)
        return route

    def add_all(self, routes: Iterable[Route]) -> None:
        for route in routes:
            self.add(route)

    def add_naming(self, naming: Naming) -> None:
        """Serve every route of the namespaces ``naming`` renames under its names too (after
        every route is added). Matching finds them; ``view(naming)`` builds URLs with them."""
        self.namings.append(naming)
        for wire in naming.namespaces.values():
            if wire in self.namespace_names.values():
                raise ValueError(f"namespace {wire} is already served")
            self.alias_namespaces[wire] = naming
            self._by_namespace[wire] = []
        for route in list(self.routes.values()):
            wire = naming.namespaces.get(route.namespace_key)
            if wire is None:
                continue
            twin = route.alias(naming, wire)
            self.aliases[twin.pattern] = twin
            self._by_namespace[wire].append(twin)
            if route.name:
                self._alias_by_name[(naming.label, route.name)] = twin
        self._namespace_order = sorted([*self.namespaces, *self.alias_namespaces], key=len, reverse=True)
        self._match_cache.clear()

    def view(self, naming: Naming | None) -> Registry | RegistryView:
        """What a request of a route under ``naming`` builds its URLs with."""
        return self if naming is None else RegistryView(self, naming)

    def path(self, name: str, **params: Any) -> str:
        """The path of the route called ``name`` with ``params`` filled in."""
        return self.by_name[name].path_with(params)

    def url(self, base_url: str, name: str, query: Any = None, **params: Any) -> str:
        """The URL of the route called ``name`` under a request's base URL, with ``params`` filled
        in and ``query`` (pairs or a dict) appended."""
        return rest_url(base_url, self.by_name[name].path_with(params), query)

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

    def alias_named(self, naming: Naming, name: str) -> Route:
        return self._alias_by_name.get((naming.label, name)) or self.by_name[name]

    def __iter__(self) -> Iterator[Route]:
        return iter(self.routes.values())


class RegistryView:
    """The registry as a request of an alias route sees it: URLs of named routes and namespaces
    in the naming's names (a route the naming does not rename keeps its own)."""

    def __init__(self, registry: Registry, naming: Naming) -> None:
        self.registry = registry
        self.naming = naming

    def wire_name(self, key: str) -> str:
        return self.naming.namespaces.get(key) or self.registry.wire_name(key)

    def path(self, name: str, **params: Any) -> str:
        return self.registry.alias_named(self.naming, name).path_with(params)

    def url(self, base_url: str, name: str, query: Any = None, **params: Any) -> str:
        return rest_url(base_url, self.path(name, **params), query)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.registry, name)
