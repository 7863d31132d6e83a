"""``POST /batch/v1``: several write requests in one (cms-api.md section 3), run by the engine.

How a batch runs, as the reference's ``serve_batch_request_v1``:

1. Each entry's ``path`` is split into route and query string (``/cms/v2/posts/5?force=true``);
   its ``body`` becomes the sub-request's body parameters and its ``headers`` its headers. The
   sub-request acts as the batch's requester: authentication is not run again.
2. A validation pass over every entry: the route must match (``rest_no_route``), its endpoint
   must allow batching (``rest_batch_not_allowed``; the batch route itself does not, so batches
   do not nest), then defaults, required arguments, validation and sanitisation as for any request.
3. With ``validation: require-all-validate`` and any entry refused, nothing runs: the answer is
   ``{"failed": "validation", "responses": [...]}``, null for the entries that passed.
4. Otherwise the entries run in order, each in a scope of its own (``share=False``: nothing one
   sub-request loaded is reused by the next, which sees the effects of the ones before it);
   permission checks run then, so a refusal is never a validation failure. Entries refused in
   the validation pass answer with their error.

Every answer is an envelope ``{"body", "status", "headers"}`` (headers ``[]`` when none, as
PHP's empty array), with the item's links but no ``_embed``; the batch itself answers 207.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .errors import RestError
from .links import run_as
from .request import RestRequest, parse_query
from .response import RestResponse
from .server import INTERNAL_ERROR as INTERNAL
from .server import NO_ROUTE, error_response

if TYPE_CHECKING:
    from .registry import Endpoint
    from .server import RestServer

__all__ = ["BATCH_METHODS", "batch_args", "serve_batch"]

BATCH_METHODS = ["POST", "PUT", "PATCH", "DELETE"]

NOT_ALLOWED = ("rest_batch_not_allowed", "The requested route does not support batch requests.")
PARSE_FAILED = ("parse_path_failed", "Could not parse the path.")


def batch_args(max_requests: int) -> dict[str, dict[str, Any]]:
    """The batch route's arguments, as the reference declares them (its route index shows them)."""
    return {
        "validation": {
            "type": "string",
            "enum": ["require-all-validate", "normal"],
            "default": "normal",
            "required": False,
        },
        "requests": {
            "type": "array",
            "maxItems": max_requests,
            "items": {
                "type": "object",
                "properties": {
                    "method": {"type": "string", "enum": BATCH_METHODS, "default": "POST"},
                    "path": {"type": "string", "required": True},
                    "body": {"type": "object", "properties": [], "additionalProperties": True},
                    "headers": {
                        "type": "object",
                        "properties": [],
                        "additionalProperties": {"type": ["string", "array"], "items": {"type": "string"}},
                    },
                },
            },
            "required": True,
        },
    }


class _Entry:
    """One entry of a batch: its sub-request (None when its path could not be parsed), the
    endpoint it matched and the error that refused it in the validation pass, if any."""

    __slots__ = ("request", "endpoint", "error")

    def __init__(self, request: RestRequest | None, endpoint: Endpoint | None, error: RestError | None) -> None:
        self.request = request
        self.endpoint = endpoint
        self.error = error


def serve_batch(request: RestRequest) -> RestResponse:
    """The handler of ``POST /batch/v1``: its arguments are validated and sanitised already."""
    engine: RestServer = request.engine
    entries = [_validated(engine, request, spec) for spec in request.get_param("requests") or []]
    if request.get_param("validation") == "require-all-validate" and any(e.error is not None for e in entries):
        responses = [None if e.error is None else _envelope(error_response(e.error)) for e in entries]
        return RestResponse({"failed": "validation", "responses": responses}, status=207)
    return RestResponse({"responses": [_run(engine, entry) for entry in entries]}, status=207)


def _sub_request(parent: RestRequest, spec: dict[str, Any]) -> RestRequest | None:
    """The sub-request an entry describes, acting as the batch's requester; None when its path
    cannot be parsed."""
    try:
        parts = urlsplit(str(spec["path"]))
    except ValueError:
        return None
    if parts.scheme or parts.netloc:
        return None
    headers: dict[str, str] = {}
    for name, value in (spec.get("headers") or {}).items():
        headers[str(name)] = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    headers["Content-Type"] = "application/json"
    sub = RestRequest(
        spec.get("method") or "POST",
        parts.path or "/",
        query=parse_query(parts.query),
        headers=headers,
        base_url=parent.base_url,
        remote_addr=parent.remote_addr,
    )
    # The body as decoded JSON values (the batch's own body was JSON or a form already decoded).
    body = spec.get("body")
    sub.json = dict(body) if isinstance(body, dict) else None
    return run_as(sub, parent, share=False)


def _validated(engine: RestServer, parent: RestRequest, spec: dict[str, Any]) -> _Entry:
    """The validation pass of one entry: match, batch opt-in, then the endpoint's arguments."""
    sub = _sub_request(parent, spec)
    if sub is None:
        return _Entry(None, None, RestError(*PARSE_FAILED, status=400))
    endpoint = engine.bind(sub)
    if endpoint is None:
        return _Entry(sub, None, RestError(*NO_ROUTE, status=404))
    if not endpoint.allow_batch:
        return _Entry(sub, endpoint, RestError(*NOT_ALLOWED, status=400))
    try:
        engine.prepare_params(sub, endpoint)
    except RestError as err:
        return _Entry(sub, endpoint, err)
    except Exception:  # a defect in one entry's checks must not lose the others
        engine.log_defect(sub)
        return _Entry(sub, endpoint, INTERNAL)
    return _Entry(sub, endpoint, None)


def _run(engine: RestServer, entry: _Entry) -> dict[str, Any]:
    """The envelope of one entry of a batch that runs: its answer, or its validation error
    with the Allow header of the route it matched (as the reference's post-dispatch adds it)."""
    sub = entry.request
    if entry.error is not None:
        response = error_response(entry.error)
        return _envelope(engine.finish(sub, response) if sub is not None and sub.route_def is not None else response)
    assert sub is not None and entry.endpoint is not None
    try:
        response = engine.execute(sub, entry.endpoint)
    except Exception:  # a defect in one entry must not lose the answers of the others
        engine.log_defect(sub)
        response = error_response(INTERNAL)
    return _envelope(engine.finish(sub, response, embed=False))


def _envelope(response: RestResponse) -> dict[str, Any]:
    return {"body": response.data, "status": response.status, "headers": dict(response.headers) if response.headers else []}
