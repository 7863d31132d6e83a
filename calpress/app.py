"""The WSGI application: a Falcon app whose sink hands every REST path to the engine.

The REST interface answers under ``/wp-json/``, at the site root, and through ``?rest_route=``
(decision 1); HTML pages (home, login, application authorization) are ordinary Falcon routes.
Links use the prefix the request came in on.
"""

from __future__ import annotations

import logging
from typing import Any

import falcon
import orjson

from . import logs
from .api import Api, build_api
from .auth.authenticate import SiteAuthenticator
from .config import Settings, load_settings
from .rest.errors import RestError
from .rest.openapi import openapi_document
from .rest.request import RestRequest, parse_query
from .rest.server import RestServer
from .site import Site
from .store import db as store_db

log = logging.getLogger("calpress.app")

REST_PREFIX = "/wp-json"
MAX_BODY = 64 * 1024 * 1024
TOO_LARGE = RestError("rest_request_too_large", "The request body is larger than this site accepts.", status=413)


class Calpress:
    """The parts of a running site, built once per process."""

    def __init__(self, settings: Settings, *, upgrade: bool = True, engine: Any = None) -> None:
        self.settings = settings
        self.site = Site(settings, engine)
        if upgrade:
            store_db.upgrade(self.site.engine)
        self.api: Api = build_api(self.site)
        self.authenticator = SiteAuthenticator(self.site)
        self.rest = RestServer(self.api.registry, self.authenticator)
        self.wsgi = self._build_falcon()

    def _build_falcon(self) -> falcon.App:
        from .auth import pages

        app = falcon.App(cors_enable=False)
        app.req_options.strip_url_path_trailing_slash = False
        app.req_options.auto_parse_qs_csv = False
        app.resp_options.secure_cookies_by_default = False
        pages.add_routes(app, self)
        app.add_route("/openapi.json", OpenApiResource(self))
        app.add_sink(self.rest_sink, "/")
        app.add_error_handler(Exception, self.handle_error)
        return app

    def handle_error(self, req: falcon.Request, resp: falcon.Response, error: Exception, params: Any) -> None:
        """Errors raised outside the REST engine still leave in the reference's error shape."""
        if isinstance(error, falcon.HTTPError):
            status = error.status_code
            rest_error = RestError("rest_" + error.title.lower().replace(" ", "_"), error.description or error.title, status=status)
        else:
            log.exception("unhandled error for %s %s", req.method, req.path)
            rest_error = RestError("internal_server_error", "There has been a critical error on this website.", status=500)
        resp.status = falcon.code_to_http_status(rest_error.status)
        resp.content_type = "application/json; charset=UTF-8"
        resp.data = orjson.dumps(rest_error.to_dict())

    # -- REST -----------------------------------------------------------------------------------

    def origin(self, req: falcon.Request) -> str:
        """scheme://host[:port] for generated links: the configured site URL, else the request's."""
        return self.settings.site_url or req.prefix

    def rest_sink(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        path = req.path
        query = parse_query(req.query_string)
        origin = self.origin(req)
        if path == REST_PREFIX or path.startswith(REST_PREFIX + "/"):
            route = path[len(REST_PREFIX) :] or "/"
            base_url = origin + REST_PREFIX
        elif "rest_route" in query:
            route = str(query.pop("rest_route") or "/")
            base_url = origin + "/?rest_route="
        elif path == "/" and _prefers_html(req):
            from .auth import pages

            pages.home_page(self, req, resp)
            return
        else:
            route = path
            base_url = origin
        request = self.rest_request(req, route, query, base_url)
        if len(request.raw_body) > MAX_BODY:
            status, headers, body = self.rest.serve_error(request, TOO_LARGE)
        else:
            status, headers, body = self.rest.serve(request, http_method=req.method)
        resp.status = falcon.code_to_http_status(status)
        for name, value in headers:
            resp.append_header(name, value)
        resp.data = body

    def rest_request(self, req: falcon.Request, route: str, query: dict[str, Any], base_url: str) -> RestRequest:
        length = req.content_length or 0
        raw = b""
        if length:
            raw = req.bounded_stream.read(min(length, MAX_BODY + 1))
        # The WSGI environ already holds the headers in the reference's canonical form
        # (HTTP_X_WP_NONCE -> x_wp_nonce); reading it directly skips Falcon's header dict.
        env = req.env
        headers = {key[5:].lower(): value for key, value in env.items() if key.startswith("HTTP_")}
        if env.get("CONTENT_TYPE"):
            headers["content_type"] = env["CONTENT_TYPE"]
        if env.get("CONTENT_LENGTH"):
            headers["content_length"] = env["CONTENT_LENGTH"]
        request = RestRequest(
            req.method,
            route,
            query=query,
            headers=headers,
            raw_body=raw,
            base_url=base_url,
            remote_addr=req.remote_addr or "",
        )
        request.site = self.site
        return request


def _prefers_html(req: falcon.Request) -> bool:
    accept = req.get_header("Accept") or ""
    first = accept.split(",", 1)[0].strip().lower()
    return first.startswith("text/html") or first.startswith("application/xhtml")


class OpenApiResource:
    """``/openapi.json``: every registered route as an OpenAPI 3.1 document."""

    def __init__(self, calpress: Calpress) -> None:
        self.calpress = calpress

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        document = openapi_document(self.calpress.api.registry, self.calpress.origin(req) + REST_PREFIX)
        resp.media = document


def create_app(settings: Settings | None = None, **kwargs: Any) -> Calpress:
    logs.configure((settings or load_settings()).log_level)
    return Calpress(settings or load_settings(), **kwargs)


def wsgi_app() -> falcon.App:
    """Factory for WSGI servers (``granian --interface wsgi --factory calpress.app:wsgi_app``):
    settings come from the CALPRESS_* environment."""
    return create_app().wsgi
