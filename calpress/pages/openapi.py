"""``/openapi.json``: every registered REST route as an OpenAPI 3.1 document (rest/openapi.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import falcon

from ..rest.openapi import openapi_document

if TYPE_CHECKING:
    from ..app import Calpress

REST_PREFIX = "/wp-json"


class OpenApiDocument:
    def __init__(self, calpress: Calpress) -> None:
        self.calpress = calpress

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = openapi_document(self.calpress.api.registry, self.calpress.origin(req) + REST_PREFIX)
