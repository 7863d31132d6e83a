"""The REST request: method, route, the reference's parameter bags and the requester.

Parameters are looked up in the reference's order: JSON body, form body, query string, URL groups,
defaults (cms-api.md 1.2). Query strings and form bodies are parsed with PHP's rules, so
``tags[]=1&tags[]=2`` and ``meta[foo]=bar`` arrive as a list and an object.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote_plus, urlsplit

import orjson

from .errors import RestError
from .urls import rest_url

_MISSING = object()


def parse_query(query: str) -> dict[str, Any]:
    """Parse a query string the way PHP's parse_str does (brackets make arrays and objects).

    Invalid UTF-8 becomes U+FFFD rather than failing; a dict whose keys are all integers
    becomes a list (PHP's numeric array).
    """
    result: dict[str, Any] = {}
    if not query:
        return result
    for pair in query.split("&"):
        if not pair:
            continue
        key, sep, value = pair.partition("=")
        key = _unquote(key)
        if not key:
            continue
        _assign(result, key, _unquote(value) if sep else "")
    # The top level stays a mapping even when every name is a number (``?1=a&2=b``): PHP's
    # $_GET is keyed by name; only nested arrays become lists.
    return {name: _listify(value) for name, value in result.items()}


def without_nul(value: Any) -> Any:
    """``value`` (a decoded JSON body) with NUL characters removed from every string and key."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {without_nul(key): without_nul(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_nul(item) for item in value]
    return value


def _unquote(text: str) -> str:
    """A name or value of a query string, decoded, without NUL characters: PostgreSQL text cannot
    hold them and kses strips them from what the reference stores, so ``a%00b`` is ``ab`` on
    both databases. Removed after decoding, so that no encoding (``%%0000``) brings one back."""
    if "%" in text or "+" in text:
        text = unquote_plus(text, errors="replace")
    return text.replace("\x00", "") if "\x00" in text else text


def _assign(target: dict[str, Any], key: str, value: str) -> None:
    bracket = key.find("[")
    if bracket <= 0 or "]" not in key[bracket:]:
        # PHP turns spaces and dots of a top-level name into underscores.
        name = key.replace(" ", "_").replace(".", "_").replace("[", "_")
        target[name] = value
        return
    name = key[:bracket].replace(" ", "_").replace(".", "_")
    parts: list[str] = []
    rest = key[bracket:]
    while rest.startswith("["):
        end = rest.find("]")
        if end < 0:
            break
        parts.append(rest[1:end])
        rest = rest[end + 1 :]
    node: Any = target
    keys = [name, *parts]
    for index, part in enumerate(keys):
        last = index == len(keys) - 1
        if not isinstance(node, dict):
            return
        if part == "":
            part = str(_next_index(node))
        if last:
            node[part] = value
        else:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child


def _next_index(node: dict[str, Any]) -> int:
    numeric = [int(k) for k in node if _is_int_key(k)]
    return max(numeric) + 1 if numeric else 0


def _is_int_key(key: str) -> bool:
    # ASCII digits only: str.isdigit() also accepts superscripts ("¹"), which int() refuses and
    # PHP does not take for a number.
    return key.isascii() and (key.isdigit() or (key.startswith("-") and key[1:].isdigit()))


def _listify(value: Any) -> Any:
    if isinstance(value, dict):
        converted = {k: _listify(v) for k, v in value.items()}
        if converted and all(_is_int_key(k) for k in converted):
            return list(converted.values())
        return converted
    return value


def parse_json_body(raw: bytes) -> Any:
    """Decode a JSON body or raise the reference's ``rest_invalid_json`` error."""
    try:
        decoded = orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    else:
        return without_nul(decoded) if b"\\u0000" in raw else decoded
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        code, message = 5, "Malformed UTF-8 characters, possibly incorrectly encoded"
    else:
        try:
            json.loads(text)
            code, message = 4, "Syntax error"  # orjson is stricter (e.g. lone surrogates)
        except RecursionError:  # orjson stops at 1,024 levels, PHP's json_decode at 512
            code, message = 1, "Maximum stack depth exceeded"
        except json.JSONDecodeError as err:
            if "control character" in err.msg.lower():
                code, message = 3, "Control character error, possibly incorrectly encoded"
            else:
                code, message = 4, "Syntax error"
    raise RestError(
        "rest_invalid_json",
        "Invalid JSON body passed.",
        status=400,
        json_error_code=code,
        json_error_message=message,
    )


def canonical_header(name: str) -> str:
    """The reference's header key: lower case, dashes as underscores."""
    return name.lower().replace("-", "_")


BODY_CHUNK = 64 * 1024


def read_chunks(
    stream: Any, length: int | None, limit: int, too_large: Callable[[int], RestError]
) -> Iterator[bytes]:
    """A request body a slice at a time: ``length`` bytes, or up to the end of a chunked body.
    Raises ``too_large(limit)`` as soon as it passes ``limit`` bytes (the rest is never read)."""
    received = 0
    while length is None or received < length:
        part = stream.read(BODY_CHUNK if length is None else min(BODY_CHUNK, length - received))
        if not part:
            return
        received += len(part)
        if received > limit:
            raise too_large(limit)
        yield part


class RestRequest:
    """One request to the REST engine, from HTTP, from a batch or from an embed."""

    __slots__ = (
        "method",
        "route",
        "headers",
        "query",
        "body",
        "json",
        "url_params",
        "defaults",
        "files",
        "body_file",
        "raw_body",
        "content_type",
        "user",
        "auth",
        "base_url",
        "remote_addr",
        "endpoint",
        "route_def",
        "routes",
        "naming",
        "engine",
        "scope_factory",
        "_scope",
        "_json_error",
        "_merged",
        "shared_under",
        "__weakref__",  # the scope refers back to its request weakly: no cycle for the GC to find
    )

    def __init__(
        self,
        method: str,
        route: str,
        *,
        query: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        raw_body: bytes = b"",
        files: dict[str, Any] | None = None,
        base_url: str = "",
        remote_addr: str = "",
    ) -> None:
        self.method = method.upper()
        self.route = route or "/"
        if "\x00" in self.route:  # as in query strings: PostgreSQL text cannot hold NUL
            self.route = self.route.replace("\x00", "")
        self.headers: dict[str, str] = {canonical_header(k): v for k, v in (headers or {}).items()}
        self.query: dict[str, Any] = query or {}
        self.body: dict[str, Any] = body or {}
        self.json: Any = None
        self.url_params: dict[str, Any] = {}
        self.defaults: dict[str, Any] = {}
        self.files: dict[str, Any] = files or {}
        # A large raw body (a file upload), spooled to a temporary file by the transport instead
        # of ``raw_body``; positioned at its start.
        self.body_file: Any = None
        self.raw_body = raw_body
        self.content_type = self.headers.get("content_type", "")
        self.user: Any = None
        self.auth: dict[str, Any] = {}
        self.base_url = base_url
        self.remote_addr = remote_addr
        # (generation, minute) when the answer is the answer cache's for anyone who sends this
        # request without credentials (RestServer.respond), for the front's copies (front.py).
        self.shared_under: tuple[int, int] | None = None
        self.endpoint: Any = None
        self.route_def: Any = None
        # The route registry the request runs in and the factory of its scope (rest/scope.py),
        # given by the engine before anything runs; the scope itself is made on first use (an
        # answer from the cache needs none) or given by the engine (sub-requests).
        self.scope_factory: Any = None
        self._scope: Any = None
        self.routes: Any = None
        # The naming of the alias route the request matched (rest/naming.py); None for calpress's names.
        self.naming: Any = None
        # The engine (rest/server.py RestServer) running the request, for handlers that run
        # requests of their own (batch).
        self.engine: Any = None
        self._json_error: RestError | None = None
        self._merged: dict[str, Any] | None = None
        self._parse_body()

    @property
    def scope(self) -> Any:
        scope = self._scope
        if scope is None:
            if self.scope_factory is None:
                raise RuntimeError("this request runs outside the engine: it has no scope")
            scope = self._scope = self.scope_factory(self)
        return scope

    @scope.setter
    def scope(self, scope: Any) -> None:
        self._scope = scope

    # -- bodies -------------------------------------------------------------------------------

    def is_json_content_type(self) -> bool:
        media = self.content_type.split(";", 1)[0].strip().lower()
        return media == "application/json" or media.endswith("+json")

    def attach_body(self, raw: bytes) -> None:
        """Give the request its body once the transport has read it (after the headers were
        judged: large bodies are read only for requests that may send them)."""
        self.raw_body = raw
        self._merged = None
        self._parse_body()

    def attach_form(self, form: Any) -> None:
        """Give the request a multipart body (rest/multipart.py): its fields become body
        parameters as a form-encoded body's do, its files ``files`` (lists by field name)."""
        self.raw_body = b""
        self._merged = None
        self.body = parse_query(form.query_string())
        self.files = dict(form.files)

    def _parse_body(self) -> None:
        if not self.raw_body:
            return
        if self.is_json_content_type():
            try:
                decoded = parse_json_body(self.raw_body)
            except RestError as err:
                self._json_error = err
                return
            self.json = decoded if isinstance(decoded, dict) else None
            return
        media = self.content_type.split(";", 1)[0].strip().lower()
        if self.body:
            return  # a form body was already decoded by the transport (multipart)
        if media == "application/x-www-form-urlencoded" or (media == "" and self.method != "GET"):
            self.body = parse_query(self.raw_body.decode("utf-8", errors="replace"))

    def json_error(self) -> RestError | None:
        """The ``rest_invalid_json`` error of an undecodable JSON body, if any."""
        return self._json_error

    # -- parameters ---------------------------------------------------------------------------

    def _bags(self) -> tuple[dict[str, Any], ...]:
        return (self.json or {}, self.body, self.query, self.url_params, self.defaults)

    def get_param(self, name: str, default: Any = None) -> Any:
        """The first non-null value of ``name`` across the bags, in the reference's order."""
        if self._merged is not None:
            value = self._merged.get(name, _MISSING)
            return default if value is _MISSING or value is None else value
        for bag in self._bags():
            value = bag.get(name, _MISSING)
            if value is not _MISSING and value is not None:
                return value
        return default

    def has_param(self, name: str) -> bool:
        return any(bag.get(name) is not None for bag in self._bags())

    def set_param(self, name: str, value: Any) -> None:
        """Set a parameter in the bag that currently provides it (the reference's set_param)."""
        for bag in self._bags():
            if bag.get(name) is not None:
                bag[name] = value
                break
        else:
            self.query[name] = value
        if self._merged is not None:
            self._merged[name] = value

    @property
    def params(self) -> dict[str, Any]:
        """All parameters merged, highest-precedence bag winning (computed once after sanitising)."""
        if self._merged is None:
            merged: dict[str, Any] = {}
            for bag in reversed(self._bags()):
                for key, value in bag.items():
                    if value is not None or key not in merged:
                        merged[key] = value
            self._merged = merged
        return self._merged

    def body_params(self) -> dict[str, Any]:
        """Parameters sent in the body (JSON or form), JSON winning: what an update writes."""
        if self.json:
            return {**self.body, **self.json}
        return dict(self.body)

    def url_for(self, name: str, query: Any = None, *, slash: bool = False, **params: Any) -> str:
        """The URL of the route called ``name`` under this request's REST base, with ``params``
        filled in and ``query`` (pairs or a dict) appended; ``slash`` ends the path with a slash
        (the calendar's archive URLs do)."""
        return rest_url(self.base_url, self.routes.path(name, **params) + ("/" if slash else ""), query)

    def namespace_url(self, key: str, path: str = "", query: Any = None) -> str:
        """A URL under the namespace ``key`` for a route the service does not answer yet."""
        return rest_url(self.base_url, f"/{self.routes.wire_name(key)}{path}", query)

    @property
    def origin(self) -> str:
        """scheme://host[:port] of the address the request came in on (its base URL)."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""

    def get_header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(canonical_header(name), default)

    @property
    def user_id(self) -> int:
        return getattr(self.user, "id", 0) or 0

    def __repr__(self) -> str:
        return f"RestRequest({self.method} {self.route})"
