"""Dispatch: the reference's request pipeline, from an authenticated request to a serialised answer.

Order (cms-api.md 1.1): authentication, OPTIONS short-circuit, route match, JSON body check,
defaults, required arguments, validation, sanitisation, permission, handler; then the Allow
header, links with target hints, embedding, ``_fields``, ``_envelope``/``_jsonp`` and headers.
The engine knows nothing of posts or events; the app hands it an authenticator at start.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson

from . import encoding
from . import links as link_hints
from . import schema as rest_schema
from .cache import ResponseCache
from .errors import RestError
from .registry import Endpoint, Registry, Route
from .request import RestRequest
from .response import RestResponse, ensure_response
from .scope import Scope
from .urls import rest_url

log = logging.getLogger("calpress.rest")

_LINK_SLOT = 2
NO_ROUTE = ("rest_no_route", "No route was found matching the URL and request method.")
INTERNAL_ERROR = RestError("internal_server_error", "There has been a critical error on this website.", status=500)
NOCACHE_HEADERS = {
    "Expires": "Wed, 11 Jan 1984 05:00:00 GMT",
    "Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private",
}
_JSONP_NAME = re.compile(r"^[\w.]+$", re.ASCII)
_EMBED_CONTEXTS = frozenset({"view", "embed", "edit"})


class Authenticator(Protocol):
    """What the app hands the engine: sets ``request.user`` or returns the auth error."""

    def authenticate(self, request: RestRequest) -> RestError | None: ...

    def response_headers(self, request: RestRequest) -> dict[str, str]: ...


class Anonymous:
    """The requester when nobody is logged in."""

    id = 0
    roles: tuple[str, ...] = ()

    def can(self, capability: str, *args: Any) -> bool:
        return False

    def __bool__(self) -> bool:
        return False


ANONYMOUS = Anonymous()


class NoAuthentication:
    def authenticate(self, request: RestRequest) -> RestError | None:
        request.user = ANONYMOUS
        return None

    def response_headers(self, request: RestRequest) -> dict[str, str]:
        return {}


def error_response(error: RestError) -> RestResponse:
    return RestResponse(error.to_dict(), error.status)


ScopeFactory = Callable[[RestRequest], Scope]


class RestServer:
    """Runs REST requests through the registry. One instance per app, shared by all requests."""

    def __init__(
        self,
        registry: Registry,
        authenticator: Authenticator | None = None,
        generation: Callable[[RestRequest], int] | None = None,
        scope: ScopeFactory = Scope,
        aliases: Callable[[RestRequest], bool] | None = None,
    ) -> None:
        self.registry = registry
        # Whether a request may use the routes of the registry's other namings (the reference's
        # names): off unless the app says so, per request (a setting or a site option).
        self.aliases = aliases
        self.authenticator: Authenticator = authenticator or NoAuthentication()
        # Builds the scope of every request (the app's adds its own state to the engine's).
        self.new_scope = scope
        # The stored data's version number, from the app: when given, GET answers of endpoints
        # flagged ``cache`` are kept (final form, encoded) and reused while it is unchanged.
        self.generation = generation
        self.answers = ResponseCache()
        self._plans: dict[int, _ArgPlan] = {}  # id(endpoint) -> how prepare_params walks its arguments

    # -- the whole HTTP-level pipeline ------------------------------------------------------------

    def serve_as(
        self, user: Any, method: str, route: str, *, query: dict[str, Any] | None = None, body: Any = None,
        raw: bytes = b"", headers: dict[str, str] | None = None, base_url: str = "", via: str = "local",
    ) -> tuple[int, dict[str, str], Any]:
        """A request made in process for ``user`` (the command line's, the workspace's), already
        authenticated by its caller: ``body`` sent as JSON, or ``raw`` bytes with their own
        ``headers`` (an upload). Returns the status, the headers and the decoded answer."""
        sent = {key.lower().replace("-", "_"): value for key, value in (headers or {}).items()}
        if body is not None:
            sent["content_type"] = "application/json"
            try:
                raw = orjson.dumps(body)
            except TypeError:  # what JSON itself allows but orjson does not write (an int past 64 bits)
                import json

                raw = json.dumps(body).encode()
        request = RestRequest(method, route, query={k: v for k, v in (query or {}).items() if v is not None},
                              headers=sent, raw_body=raw, base_url=base_url, remote_addr="127.0.0.1")
        request.user = user
        request.auth = {"method": via, "user_id": getattr(user, "id", 0)}
        status, pairs, answer = self.serve(request, authenticated=True)
        return status, dict(pairs), orjson.loads(answer) if answer else None

    def serve(
        self, request: RestRequest, *, http_method: str | None = None, authenticated: bool = False
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        """Answer one HTTP request: returns status, header pairs and the body bytes.
        ``authenticated``: the transport has run :meth:`authenticate` already (before it read a
        large body) and it passed."""
        if request.scope_factory is None:
            request.scope_factory = self.new_scope
        request.routes = self.registry
        request.engine = self
        http_method = (http_method or request.method).upper()
        query = request.query
        jsonp = query.get("_jsonp")
        if jsonp is not None and (not isinstance(jsonp, str) or not _JSONP_NAME.match(jsonp)):
            body = orjson.dumps({"code": "rest_callback_invalid", "message": "Invalid JSONP callback function."})
            return 400, self._base_headers(request), body

        override_used = False
        method_override = query.get("_method")
        if isinstance(method_override, str) and method_override:
            request.method = method_override.upper()
            override_used = True
        else:
            header_override = request.headers.get("x_http_method_override")
            if header_override:
                request.method = header_override.upper()
                override_used = True

        auth_error = None if authenticated else self.authenticate(request)
        if auth_error is not None:
            request.user = ANONYMOUS
            response = error_response(auth_error)
        else:
            try:
                response = self.respond(request)
            except Exception:  # a defect below: answer in the error shape and log it
                self.log_defect(request)
                response = error_response(INTERNAL_ERROR)
        nocache = bool(request.user_id) or (auth_error is not None and auth_error.code == "rest_cookie_invalid_nonce")
        nocache = nocache or (override_used and 400 <= response.status < 500)
        if auth_error is None:
            response.headers.update(self.authenticator.response_headers(request))
        if nocache or auth_error is not None:
            request.shared_under = None
        return self._finish(request, response, http_method, nocache=nocache)

    def log_defect(self, request: RestRequest) -> None:
        """Log the exception being handled: a defect below the engine, answered as a 500."""
        log.exception("unhandled error in %s %s", request.method, request.route)

    def serve_error(self, request: RestRequest, error: RestError) -> tuple[int, list[tuple[str, str]], bytes]:
        """Answer with ``error`` without running the request (used by the transport)."""
        if request.scope_factory is None:
            request.scope_factory = self.new_scope
        request.routes = self.registry
        request.user = ANONYMOUS
        return self._finish(request, error_response(error), request.method, nocache=False)

    def _base_headers(self, request: RestRequest) -> list[tuple[str, str]]:
        # Keep the discovery Link at index _LINK_SLOT: other Link values are appended to it.
        return [
            ("Content-Type", "application/json; charset=UTF-8"),
            ("X-Robots-Tag", "noindex"),
            ("Link", f'<{rest_url(request.base_url, "/")}>; rel="https://api.w.org/"'),
            ("X-Content-Type-Options", "nosniff"),
            ("Access-Control-Expose-Headers", "X-WP-Total, X-WP-TotalPages, Link"),
            ("Access-Control-Allow-Headers", "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type"),
        ]

    def _finish(
        self, request: RestRequest, response: RestResponse, http_method: str, *, nocache: bool
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        headers = self._base_headers(request)
        query = request.query
        extra: dict[str, str] = dict(response.headers)
        if nocache:
            extra.update(NOCACHE_HEADERS)
            extra.pop("Last-Modified", None)
        origin = request.headers.get("origin")
        if origin:
            extra["Access-Control-Allow-Origin"] = "null" if origin == "null" else _sanitize_origin(origin)
            extra["Access-Control-Allow-Methods"] = "OPTIONS, GET, POST, PUT, PATCH, DELETE"
            extra["Access-Control-Allow-Credentials"] = "true"
            extra["Vary"] = "Origin"
        elif http_method == "GET" and not request.user_id:
            extra["Vary"] = "Origin"

        for name, value in extra.items():
            if name == "Link":
                # One Link line, values joined with ", " as the reference sends them; clients
                # and HTTP libraries that keep only the last of repeated headers see them all.
                headers[_LINK_SLOT] = ("Link", f"{headers[_LINK_SLOT][1]}, {value}")
            else:
                headers.append((name, value))

        data = response.data
        status = response.status
        if response.raw is not None:
            headers[0] = ("Content-Type", response.content_type or "text/html; charset=UTF-8")
            return status, headers, b"" if http_method == "HEAD" else response.raw

        if "_envelope" in query:
            data = {"body": data, "status": status, "headers": _envelope_headers(extra)}
            status = 200

        if http_method == "HEAD" or status == 204 or data is None:
            return status, headers, b""

        option = orjson.OPT_NON_STR_KEYS
        if "_pretty" in query:
            option |= orjson.OPT_INDENT_2
        if response.encoded is not None and data is response.data and option == orjson.OPT_NON_STR_KEYS:
            body = response.encoded  # a cached answer, unchanged: its bytes as they were kept
        else:
            try:
                body = encoding.dumps(data, option)
            except (TypeError, orjson.JSONEncodeError) as err:
                log.error("cannot encode the answer to %s: %s", request.route, err)
                error = RestError("rest_encode_error", str(err), status=500)
                return 500, headers, orjson.dumps(error.to_dict())
        jsonp = query.get("_jsonp")
        if jsonp is not None:
            headers[0] = ("Content-Type", "application/javascript; charset=UTF-8")
            body = b"/**/" + str(jsonp).encode() + b"(" + body + b")"
        return status, headers, body

    def authenticate(self, request: RestRequest) -> RestError | None:
        """Who sends ``request``, from its headers and query (sets ``request.user``): the error
        that refuses it, or None."""
        try:
            return self.authenticator.authenticate(request)
        except RestError as err:
            return err

    # -- dispatch and post-processing -------------------------------------------------------------

    def _cache_key(self, request: RestRequest) -> tuple[Any, int] | None:
        """(key, generation) when the answer to ``request`` may come from or go to the cache:
        GET or HEAD on a ``cache`` endpoint, no reshaping parameter (``_fields``, ``_embed``...).
        Keys hold the current minute, as listings are relative to now."""
        if self.generation is None or request.method not in ("GET", "HEAD"):
            return None
        if any(str(name).startswith("_") for name in request.query):
            return None
        matched = self.registry.match(request.route)
        if matched is None:
            return None
        endpoint = matched[0].endpoint_for(request.method)
        if endpoint is None or not endpoint.cache:
            return None
        # (The minute last: ``respond`` marks shared answers with it.)
        key = (request.base_url, request.route, repr(sorted(request.query.items())), request.user_id, int(time.time() // 60))
        return key, self.generation(request)

    def respond(self, request: RestRequest) -> RestResponse:
        """Dispatch an authenticated request, then apply Allow, links, ``_embed`` and ``_fields``."""
        if request.method == "OPTIONS":
            return self._options(request)
        cached = self._cache_key(request)
        if cached is None:
            return self._respond(request)
        key, generation = cached
        response = self.answers.get(key, generation)
        if response is None:
            request.scope.generation = generation  # handlers may key their own caches by it
            response = self._respond(request)
            if response.status >= 400 or response.raw is not None or not isinstance(response.data, (dict, list)):
                return response
            response = self.answers.put(key, generation, response)
        # The answer cache's answer: the same for anyone sending this request alike (``serve``
        # takes the mark back when the answer is the requester's own: nocache).
        request.shared_under = (generation, key[-1])
        return response

    def _respond(self, request: RestRequest) -> RestResponse:
        return self.finish(request, self.dispatch(request))

    def finish(self, request: RestRequest, response: RestResponse, *, embed: bool = True) -> RestResponse:
        """A handler's answer made whole: the Allow header of the matched route, target hints
        on links, ``_embed`` (unless ``embed`` is false: batch answers never embed) and
        ``_fields``."""
        route = request.route_def
        if route is not None:
            allowed = self.allowed_methods(route, request)
            if allowed:
                response.headers.setdefault("Allow", ", ".join(allowed))
        if response.raw is not None or response.data is None:
            return response
        if isinstance(response.data, (dict, list)) and not _is_error_body(response):
            embed = request.query.get("_embed") if embed else None
            data = response.data
            self._add_target_hints(list(data.values()) if response.keyed and isinstance(data, dict) else data, request)
            if embed is not None:
                data = self._embed(data, request, _embed_rels(embed))
            fields = request.query.get("_fields")
            if fields is not None:
                data = filter_fields(data, fields, keep_embedded=embed is not None)
            response.data = data
        if request.naming is not None and isinstance(response.data, (dict, list)):
            response.data = request.naming.outbound(response.data)  # errors too: their params name fields
        return response

    def dispatch(self, request: RestRequest) -> RestResponse:
        """Match, check and run one request; errors come back as error responses."""
        endpoint = self.bind(request)
        if endpoint is None:
            return error_response(RestError(*NO_ROUTE, status=404))
        try:
            self.prepare_params(request, endpoint)
        except RestError as err:
            return error_response(err)
        return self.execute(request, endpoint)

    def bind(self, request: RestRequest) -> Endpoint | None:
        """The endpoint of the request's route and method, with the route, endpoint and URL
        parameters set on the request; None when no route matches (``rest_no_route``)."""
        matched = self.registry.match(request.route)
        if matched is None:
            return None
        route, url_params = matched
        endpoint = route.endpoint_for(request.method)
        if endpoint is None:
            return None
        if route.naming is not None and not self._alias_ready(request, route):
            return None
        request.route_def = route
        request.endpoint = endpoint
        request.url_params = route.naming.inbound(url_params) if route.naming is not None else url_params
        return endpoint

    def _alias_ready(self, request: RestRequest, route: Route) -> bool:
        """Whether ``request`` may run the alias ``route``; if so, it is set to speak the alias's
        names: URLs built with its routes, parameters read in calpress's names."""
        if self.aliases is None or not self.aliases(request):
            return False
        naming = route.naming
        assert naming is not None
        if request.naming is not naming:
            request.naming = naming
            request.routes = self.registry.view(naming)
            request.query = naming.inbound(request.query)
            request.body = naming.inbound(request.body)
            if isinstance(request.json, dict):
                request.json = naming.inbound(request.json)
            request._merged = None
        return True

    def execute(self, request: RestRequest, endpoint: Endpoint) -> RestResponse:
        """The permission check and the handler of a bound request whose parameters are
        prepared; errors come back as error responses."""
        try:
            allowed = endpoint.permission(request) if endpoint.permission is not None else True
            if isinstance(allowed, RestError):
                raise allowed
            if not allowed:
                raise RestError(
                    "rest_forbidden", "Sorry, you are not allowed to do that.", status=403 if request.user_id else 401
                )
            return ensure_response(endpoint.handler(request))
        except RestError as err:
            return error_response(err)

    def prepare_params(self, request: RestRequest, endpoint: Endpoint) -> None:
        """Install defaults, then check required, validate and sanitise every declared argument.

        An argument checked by its schema alone (no callback) gives the same answer for the same
        value every time: those answers are kept per endpoint (``_ArgPlan``), each for a scalar
        value, and all of a request's together when its parameters come from the query and the
        URL (a listing's defaults and common filters are not walked again on every request).
        Arguments with callbacks are checked on every request."""
        json_error = request.json_error()
        if json_error is not None:
            raise json_error
        plan = self._plans.get(id(endpoint))
        if plan is None or plan.endpoint is not endpoint:
            plan = self._plans[id(endpoint)] = _ArgPlan(endpoint)
        request.defaults.update(plan.defaults)
        missing = [name for name, others in plan.required
                   if request.get_param(name) is None and all(request.get_param(other) is None for other in others)]
        if missing:
            raise RestError(
                "rest_missing_callback_param",
                f"Missing parameter(s): {', '.join(missing)}",
                status=400,
                params=missing,
            )
        params = request.params
        block_key = plan.block_key(request)
        block = plan.blocks.get(block_key) if block_key is not None else None
        if block is not None:
            for name, value in block:
                params[name] = list(value) if type(value) is tuple else value
            self._check_params(request, params, plan, plan.callback_checked, plan.callback_sanitized)
            return
        self._check_params(request, params, plan, plan.checked, plan.sanitized)
        if block_key is not None:
            plan.keep_block(block_key, params)

    def _check_params(
        self, request: RestRequest, params: dict[str, Any], plan: _ArgPlan,
        checked: list[tuple[str, dict[str, Any]]], sanitized: list[tuple[str, dict[str, Any]]],
    ) -> None:
        """Validate, then sanitise, the ``checked`` and ``sanitized`` arguments present in
        ``params`` (in place); a RestError names every invalid one."""
        invalid: dict[str, str] = {}
        details: dict[str, Any] = {}
        kept: dict[str, Any] = {}  # name -> the sanitised value of a schema-only argument
        for name, arg in checked:
            value = params.get(name)
            if value is None:
                continue
            validator = arg.get("validate")
            if validator is None:
                if arg.get("sanitize") is None:
                    # Schema only: checked and sanitised in one go, or taken from what was kept.
                    verdict, kept[name] = plan.schema_outcome(name, arg, value)
                else:
                    verdict = rest_schema.validate_value(value, arg, name)
                if isinstance(verdict, RestError):
                    invalid[name] = verdict.message
                    details[name] = {"code": verdict.code, "message": verdict.message, "data": verdict.data}
                continue
            if isinstance(value, str) and len(value) > arg.get("maxLength", len(value)):
                # A length bound holds even where a custom validator replaces the schema check.
                verdict = rest_schema.validate_value(value, {"type": "string", "maxLength": arg["maxLength"]}, name)
            else:
                verdict = validator(value, request, name)
            if verdict is False:
                invalid[name] = "Invalid parameter."
            elif isinstance(verdict, RestError):
                invalid[name] = verdict.message
                details[name] = {"code": verdict.code, "message": verdict.message, "data": verdict.data}
        if invalid:
            raise RestError(
                "rest_invalid_param",
                f"Invalid parameter(s): {', '.join(invalid)}",
                status=400,
                params=invalid,
                details=details or [],
            )
        for name, arg in sanitized:
            value = params.get(name)
            if value is None:
                continue
            sanitizer = arg.get("sanitize")
            try:
                if name in kept:
                    result = kept[name]
                    if isinstance(result, RestError):
                        raise result
                    params[name] = result
                elif sanitizer is not None:
                    result = sanitizer(value, request, name)
                    if isinstance(result, RestError):
                        raise result
                    params[name] = result
                else:
                    # An argument with a type and no sanitising callback goes through the
                    # reference's rest_parse_request_arg: the schema check (for the first time when
                    # a custom validator ran instead), then the coercion. Schema-derived arguments
                    # carry rest_sanitize_request_arg (the marker), which only coerces.
                    if "validate" in arg and "sanitize_callback" not in arg:
                        verdict = rest_schema.validate_value(value, arg, name)
                        if isinstance(verdict, RestError):
                            raise verdict
                    params[name] = rest_schema.sanitize_value(value, arg, name)
            except RestError as err:
                invalid[name] = err.message
                details[name] = {"code": err.code, "message": err.message, "data": err.data}
        if invalid:
            raise RestError(
                "rest_invalid_param",
                f"Invalid parameter(s): {', '.join(invalid)}",
                status=400,
                params=invalid,
                details=details or [],
            )

    def allowed_methods(self, route: Route, request: RestRequest) -> list[str]:
        """Methods of ``route`` whose permission check passes for this request (the Allow header)."""
        return link_hints.allowed_methods(route, request)

    def _options(self, request: RestRequest) -> RestResponse:
        matched = self.registry.match(request.route)
        if matched is None:
            return RestResponse([])
        route, url_params = matched
        request.route_def = route
        request.url_params = url_params
        from .index import route_description  # the index module imports this one

        if route.naming is not None and not self._alias_ready(request, route):
            return RestResponse([])
        data = route_description(route, request.base_url)
        item_schema = route.item_schema()
        if item_schema is not None:
            data["schema"] = item_schema
        if route.naming is not None:
            data = route.naming.outbound(data)
        response = RestResponse(data)
        allowed = self.allowed_methods(route, request)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response

    # -- internal requests (embeds, target hints, batch) -----------------------------------------

    def request_from_url(self, href: str, parent: RestRequest, method: str = "GET") -> RestRequest | None:
        """A sub-request for a link this server generated, run as the parent's user."""
        return link_hints.sub_request(href, parent, method)

    def _add_target_hints(self, data: Any, request: RestRequest) -> None:
        """Finish the links of an item or list (rest/links.py), so controllers never add the
        curie or target hints themselves."""
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict):
                link_hints.finish_links(item, self.registry, request)

    def _embed(self, data: Any, request: RestRequest, rels: set[str] | None) -> Any:
        if isinstance(data, list):
            return [self._embed(item, request, rels) if isinstance(item, dict) else item for item in data]
        links = data.get("_links")
        if not isinstance(links, dict):
            return data
        embedded: dict[str, list[Any]] = {}
        for rel, entries in links.items():
            if rels is not None and rel not in rels:
                continue
            results: list[Any] = []
            any_embedded = False
            for link in entries:
                if not isinstance(link, dict) or not link.get("embeddable"):
                    results.append({})
                    continue
                result = self._embedded_response(link["href"], request)
                if result is None:
                    results.append({})
                    continue
                results.append(result)
                any_embedded = True
            if any_embedded:
                embedded[rel] = results
        if embedded:
            data = {**data, "_embedded": embedded}
        return data

    def _embedded_response(self, href: str, request: RestRequest) -> Any:
        known = request.scope.embedded
        if href in known:
            return known[href]
        sub = self.request_from_url(href, request)
        result: Any = None
        if sub is not None:
            if sub.query.get("context") not in _EMBED_CONTEXTS:
                sub.query["context"] = "embed"
            matched = self.registry.match(sub.route)
            if matched is not None and "per_page" not in sub.query:
                endpoint = matched[0].endpoint_for("GET")
                per_page = endpoint.args.get("per_page") if endpoint else None
                if per_page and "maximum" in per_page:
                    sub.query["per_page"] = per_page["maximum"]
            response = self.dispatch(sub)
            result = response.data
            if isinstance(result, (dict, list)) and not _is_error_body(response):
                self._add_target_hints(result, sub)
        known[href] = result
        return result


class _ArgPlan:
    """An endpoint's arguments as ``prepare_params`` walks them, sorted once: the defaults, the
    required names, those it validates (a callback or a type) and those it sanitises (a
    callback or a type). A schema-only argument's outcome for a scalar value is kept (bounded),
    since the schema alone decides it."""

    __slots__ = ("endpoint", "defaults", "required", "checked", "sanitized", "schema_only", "callback_checked",
                 "callback_sanitized", "blocks", "_kept")

    _LIMIT = 512

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        args = endpoint.args
        self.defaults = {name: arg["default"] for name, arg in args.items() if "default" in arg}
        # (name, the other names that may stand for it): a required argument given under another name is given.
        self.required = [(name, tuple(arg.get("given_as", ()))) for name, arg in args.items() if arg.get("required") is True]
        self.checked = [(name, arg) for name, arg in args.items() if arg.get("validate") is not None or "type" in arg]
        self.sanitized = [(name, arg) for name, arg in args.items() if arg.get("sanitize") is not None or "type" in arg]
        # Arguments checked by their schema alone, and the others, walked on every request.
        self.schema_only = frozenset(
            name for name, arg in args.items() if "type" in arg and arg.get("validate") is None and arg.get("sanitize") is None
        )
        self.callback_checked = [(name, arg) for name, arg in self.checked if name not in self.schema_only]
        self.callback_sanitized = [(name, arg) for name, arg in self.sanitized if name not in self.schema_only]
        # (the query's and the URL's schema-only values) -> the sanitised schema-only parameters
        self.blocks: dict[Any, tuple[tuple[str, Any], ...]] = {}
        self._kept: dict[tuple[str, Any], Any] = {}

    def block_key(self, request: RestRequest) -> Any:
        """What decides the schema-only arguments of a request whose parameters all come from
        its query, its URL and the defaults: their values there (the defaults are the plan's).
        None when there is a body or a value that is not a scalar or a list of scalars."""
        if request.json is not None or request.body or request.files:
            return None
        parts: list[Any] = []
        for bag in (request.query, request.url_params):
            for name, value in bag.items():
                if name in self.schema_only:
                    key = _value_key(value)
                    if key is None:
                        return None
                    parts.append((name, key))
            parts.append(None)  # where one bag ends: a name in both is the query's
        return tuple(parts)

    def keep_block(self, key: Any, params: dict[str, Any]) -> None:
        """Keep the sanitised schema-only parameters of a request that passed its checks, when
        each is a scalar or a list of scalars (lists kept as tuples, handed out as new lists)."""
        block = []
        for name in self.schema_only:
            value = params.get(name)
            if value is None:
                continue
            kept = _kept_form(value)
            if kept is None:
                return
            block.append((name, kept))
        if len(self.blocks) >= self._LIMIT:
            self.blocks.clear()
        self.blocks[key] = tuple(block)

    def schema_outcome(self, name: str, arg: dict[str, Any], value: Any) -> tuple[RestError | None, Any]:
        """(the validation error or None, then the sanitised value or its error) for a value of
        an argument without callbacks. Kept for scalars and lists of scalars (an empty list is
        the default of many listing filters); a list comes back as a new list each time."""
        key = _value_key(value)
        if key is not None:
            found = self._kept.get((name, key))
            if found is not None:
                return None, list(found) if type(found) is tuple else found
        verdict = rest_schema.validate_value(value, arg, name)
        if verdict is not None:
            return verdict, None
        try:
            result = rest_schema.sanitize_value(value, arg, name)
        except RestError as err:
            return None, err
        if key is not None and (kept := _kept_form(result)) is not None:
            if len(self._kept) >= self._LIMIT:
                self._kept.clear()
            self._kept[(name, key)] = kept
        return None, result


def _value_key(value: Any) -> Any:
    """A hashable stand-in for a scalar or a list of scalars (types included: 1, True and "1"
    are checked differently), else None."""
    kind = type(value)
    if kind in _SCALARS:
        return kind, value
    if kind is list and all(type(entry) in _SCALARS for entry in value):
        return list, tuple((type(entry), entry) for entry in value)
    return None


def _kept_form(result: Any) -> Any:
    """What is kept of a sanitised value: a scalar as it is, a list of scalars as a tuple (None
    when it cannot be kept)."""
    if type(result) in _SCALARS:
        return result
    if type(result) is list and all(type(entry) in _SCALARS for entry in result):
        return tuple(result)
    return None


_SCALARS = frozenset({str, int, float, bool})


def _is_error_body(response: RestResponse) -> bool:
    return response.status >= 400 and isinstance(response.data, dict) and "code" in response.data


def _embed_rels(value: Any) -> set[str] | None:
    """``_embed`` with no value, 1 or true embeds everything; otherwise a list of relations."""
    if value in ("", "1", "true", True, 1):
        return None
    if isinstance(value, list):
        names = [str(v) for v in value]
    else:
        names = str(value).split(",")
    rels = {name.strip() for name in names if name.strip()}
    return rels or None


def filter_fields(data: Any, fields: Any, *, keep_embedded: bool = False) -> Any:
    """Keep only the requested (possibly dotted) fields of an item or of each item of a list."""
    names = fields if isinstance(fields, list) else str(fields).split(",")
    wanted = [str(name).strip() for name in names if str(name).strip()]
    if not wanted:
        return data
    if keep_embedded and "_embedded" not in wanted:
        wanted.append("_embedded")
    tree: dict[str, Any] = {}
    for name in wanted:
        node = tree
        parts = name.split(".")
        for index, part in enumerate(parts):
            if node.get(part) is True:
                break  # the whole subtree is already wanted
            if index == len(parts) - 1:
                node[part] = True
            else:
                node = node.setdefault(part, {})
    return _apply_field_tree(data, tree)


def _apply_field_tree(data: Any, tree: dict[str, Any]) -> Any:
    if isinstance(data, list):
        return [_apply_field_tree(item, tree) for item in data]
    if not isinstance(data, dict):
        return data
    kept: dict[str, Any] = {}
    for key, sub in tree.items():
        if key not in data:
            continue
        kept[key] = data[key] if sub is True else _apply_field_tree(data[key], sub)
    return kept


def _envelope_headers(headers: dict[str, str]) -> Any:
    return dict(headers) if headers else []


def _sanitize_origin(origin: str) -> str:
    """Echo an Origin the way the reference does after esc_url_raw (unsafe schemes dropped)."""
    parts = urlsplit(origin)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return origin.strip()


__all__ = [
    "ANONYMOUS",
    "Authenticator",
    "RestServer",
    "error_response",
    "filter_fields",
]
