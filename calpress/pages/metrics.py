"""``/metrics``: the Prometheus metrics of the site (metrics.py), when ``CALPRESS_METRICS=on``.

Only the addresses of ``CALPRESS_METRICS_ALLOW`` (the client's address after trusted proxies)
read them; anyone else gets what the public site answers for ``/metrics`` (its 404, or a page of
that slug), exactly as when metrics are off, so the path is not advertised. Never cached
(``Cache-Control: no-store``; a row of the page table, out of the page and answer caches), and
left out of the access log at its default level, as the probes are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import falcon

from ..access_log import ROUTE_KEY

if TYPE_CHECKING:
    from ..app import Calpress

METRICS_PATH = "/metrics"


class MetricsPage:
    """The scrape: every worker's values, in the Prometheus text format."""

    def __init__(self, calpress: Calpress, site_pages: Any) -> None:
        self.calpress = calpress
        self.site_pages = site_pages  # the public site, which answers everyone else

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        metrics = self.calpress.metrics
        if metrics is None or not metrics.allows(req.remote_addr):
            req.env[ROUTE_KEY] = "site"  # logged and counted as the site's answer it is
            getattr(self.site_pages, "on_" + req.method.lower(), self.site_pages.on_get)(req, resp)
            return
        body, content_type = metrics.exposition()
        resp.content_type = content_type
        resp.cache_control = ["no-store"]
        resp.data = body  # Falcon sends no body to HEAD

    on_head = on_get
