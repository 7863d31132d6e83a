"""The benchmark baseline: a bare Falcon JSON endpoint with a path parameter, nothing else."""

from __future__ import annotations

import falcon


class Thing:
    def on_get(self, req: falcon.Request, resp: falcon.Response, thing_id: int) -> None:
        resp.media = {"id": thing_id, "name": "baseline", "ok": True}


def app() -> falcon.App:
    application = falcon.App()
    application.add_route("/things/{thing_id:int}", Thing())
    return application
