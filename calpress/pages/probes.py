"""``/healthz`` and ``/readyz``: the probes of a load balancer or an orchestrator.

- ``/healthz`` (liveness): the process answers. Nothing else is looked at, no database, so a
  database outage never gets healthy processes restarted.
- ``/readyz`` (readiness): this process can serve now: the database answers at the current
  migration, and the file storage can take a file (health/readiness.py says how each is checked,
  cheaply and without writing to the database). 503 otherwise, naming the failing part.

Both answer anyone (no credentials are read), GET or HEAD, with a tiny JSON body and
``Cache-Control: no-store``; they are rows of the page table, so neither the public page cache
(pages/site.py) nor the REST answer cache ever sees them. The reasons of a failure (folders,
hosts, driver errors) are for the operator: logged when the verdict changes, never sent to the
public. The access log should leave both out at its default level (a probe every few seconds
would drown the requests that matter).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

import falcon
import orjson

from .. import health

if TYPE_CHECKING:
    from ..site import Site

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"

log = logging.getLogger("calpress.probes")

_OK = orjson.dumps({"status": "ok"})


def _answer(resp: falcon.Response, status: int, body: bytes) -> None:
    resp.status = falcon.code_to_http_status(status)
    resp.content_type = "application/json"
    resp.cache_control = ["no-store"]
    resp.data = body


class Liveness:
    """``/healthz``: 200 ``{"status":"ok"}`` while the process answers at all."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _answer(resp, 200, _OK)

    on_head = on_get


class Readiness:
    """``/readyz``: 200 ``{"status":"ok","checks":{...}}`` when every part is ready, else 503
    ``{"status":"fail","checks":{"database":"fail","uploads":"ok"}}``."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self._lock = threading.Lock()
        self._last: dict[str, str | None] | None = None  # the verdict last logged, per process

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        problems = health.check_readiness(self.site)
        ready = not any(problems.values())
        checks = {part: "fail" if problems[part] else "ok" for part in health.PARTS}
        self._log_change(problems)
        _answer(resp, 200 if ready else 503, orjson.dumps({"status": "ok" if ready else "fail", "checks": checks}))

    on_head = on_get

    def _log_change(self, problems: dict[str, str | None]) -> None:
        """Log the reasons once when readiness is lost or its reasons change, and once when it
        comes back: not on every probe."""
        with self._lock:
            if problems == self._last:
                return
            was_ready = self._last is None or not any(self._last.values())
            self._last = dict(problems)
        failing = {part: problem for part, problem in problems.items() if problem}
        if failing:
            log.warning("not ready: %s", "; ".join(f"{part}: {problem}" for part, problem in failing.items()))
        elif not was_ready:
            log.warning("ready again")
