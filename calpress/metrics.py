"""Prometheus metrics of a served site (``CALPRESS_METRICS=on``), through ``prometheus_client``.

What is counted: requests by route name, method and status, and their duration by route name
(written where the access line is, access_log.py, so each request is counted once); lookups of
the answer caches (the REST engine's, the public pages', oEmbed's) and of the memo, hit or miss;
the database pool's connections checked out and its size; imports run and events imported by
kind; failed logins. Label values are bounded: route names (never paths), a fixed set of methods.

Several worker processes (``calpress serve --workers N``) each count their own: the library's
multiprocess mode writes every value to a file per process in ``PROMETHEUS_MULTIPROC_DIR``,
which ``calpress serve`` makes afresh for each run (:func:`multiprocess_dir`), and a scrape
answered by any worker sums them. The gauges are ``livesum``: a worker's part goes when it exits
(its own exit hook, or the next scrape once its process is gone, after a kill -9).

Off (the default) nothing here is imported or called: the layers below hold an empty hook
(``observe`` of the caches and the memo, ``on_failure`` of the login throttle) and the access log
one attribute that is None.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .proxies import Network, parse_address, parse_networks

__all__ = ["LATENCY_BUCKETS", "Metrics", "count_import", "multiprocess_dir", "parse_allow"]

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# From 1 ms (a cached answer) to 10 s (an import, a slow client).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Any other method a client invents is counted as "other": labels stay a bounded set.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_LIVE_FILE = re.compile(r"^gauge_live\w*_(\d+)\.db$")


def parse_allow(text: str) -> tuple[Network, ...]:
    """The networks of ``CALPRESS_METRICS_ALLOW`` (addresses and CIDR networks, comma-separated)."""
    try:
        return parse_networks(text)
    except ValueError as err:
        raise ValueError(str(err).replace("CALPRESS_TRUSTED_PROXIES", "CALPRESS_METRICS_ALLOW")) from None


class Metrics:
    """The metric objects of one app and its scrape. In a process of ``calpress serve`` with
    metrics on, values go to the multiprocess folder and a scrape reads every worker's."""

    def __init__(self, allow: str = "127.0.0.1/32,::1") -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.allowed = parse_allow(allow)
        self.folder = os.environ.get(MULTIPROC_ENV) or None
        # Each app its own registry (two apps in one process, as in the tests, never share one).
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.requests = Counter("calpress_http_requests", "HTTP requests answered, by route name, method and status.",
                                ["route", "method", "status"], registry=registry)
        self.latency = Histogram("calpress_http_request_duration_seconds",
                                 "Time from the request's arrival to its answer's end, by route name.",
                                 ["route"], buckets=LATENCY_BUCKETS, registry=registry)
        self.lookups = Counter("calpress_cache_lookups", "Lookups of the answer caches and the memo, hit or miss.",
                               ["cache", "result"], registry=registry)
        self.pool_checked_out = Gauge("calpress_db_pool_checked_out", "Database connections in use.",
                                      multiprocess_mode="livesum", registry=registry)
        self.pool_size = Gauge("calpress_db_pool_size", "Connections the database pools keep (summed over workers).",
                               multiprocess_mode="livesum", registry=registry)
        self.imports = Counter("calpress_imports", "Imports run by the server (not by calpress import commands), by kind (ics, aggregator, wxr).",
                               ["kind"], registry=registry)
        self.imported = Counter("calpress_imported_events", "Events created or updated by imports, by kind.",
                                ["kind"], registry=registry)
        self.login_failures = Counter("calpress_login_failures", "Failed logins (wrong password or unknown user).",
                                      registry=registry)
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._children_lock = threading.Lock()
        if self.folder is not None:
            atexit.register(_mark_dead, self.folder, os.getpid())

    # -- the hooks ---------------------------------------------------------------------------

    def request(self, route: str | None, method: str, status: int, seconds: float) -> None:
        """Count one answered request (called by the access log, once per request)."""
        key = (route or "none", method if method in METHODS else "other", status)
        children = self._children.get(key)
        if children is None:
            with self._children_lock:
                children = self._children[key] = (
                    self.requests.labels(key[0], key[1], str(status)), self.latency.labels(key[0]))
        children[0].inc()
        children[1].observe(seconds)

    def lookup_counter(self, cache: str) -> Any:
        """A hook for a cache's or the memo's ``observe``: called with whether a lookup hit."""
        hit, miss = self.lookups.labels(cache, "hit"), self.lookups.labels(cache, "miss")

        def observe(found: bool) -> None:
            (hit if found else miss).inc()

        return observe

    def watch_pool(self, engine: Any) -> None:
        """Follow the connections ``engine``'s pool hands out (SQLAlchemy pool events)."""
        from sqlalchemy import event

        pool = engine.pool
        size = getattr(pool, "size", None)
        if callable(size):
            self.pool_size.inc(size())
        event.listen(pool, "checkout", lambda *_: self.pool_checked_out.inc())
        event.listen(pool, "checkin", lambda *_: self.pool_checked_out.dec())

    def import_run(self, kind: str, events: int) -> None:
        """An import of ``kind`` ran to its end, saving ``events`` events."""
        self.imported_batch(kind, events, finished=True)

    def imported_batch(self, kind: str, events: int, *, finished: bool) -> None:
        """A part of an import saved ``events`` events; ``finished``: the import ended with it."""
        if finished:
            self.imports.labels(kind).inc()
        if events:
            self.imported.labels(kind).inc(events)

    def login_failed(self) -> None:
        self.login_failures.inc()

    # -- the scrape --------------------------------------------------------------------------

    def allows(self, remote_addr: str | None) -> bool:
        """Whether the client (its address after trusted proxies) may read the metrics."""
        address = parse_address(remote_addr or "")
        return address is not None and any(address in network for network in self.allowed)

    def exposition(self) -> tuple[bytes, str]:
        """The text of every metric (every worker's, summed) and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

        if self.folder is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        from prometheus_client import multiprocess

        _forget_gone_workers(self.folder)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=self.folder)
        return generate_latest(registry), CONTENT_TYPE_LATEST


def count_import(site: Any, kind: str, events: int) -> None:
    """An import of ``kind`` ran in this process and saved ``events`` events: counted when the
    site is served with metrics on (``site.metrics``), else nothing."""
    metrics = getattr(site, "metrics", None)
    if metrics is not None:
        metrics.import_run(kind, events)


def _mark_dead(folder: str, pid: int) -> None:
    from prometheus_client import multiprocess

    with contextlib.suppress(OSError):
        multiprocess.mark_process_dead(pid, folder)


def _forget_gone_workers(folder: str) -> None:
    """Drop the live gauges of worker processes that no longer exist (killed without their exit
    hook); their counters stay, as counters should."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for pid in {int(m.group(1)) for m in map(_LIVE_FILE.match, names) if m}:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            _mark_dead(folder, pid)
        except OSError:
            pass  # alive, another user's


@contextlib.contextmanager
def multiprocess_dir() -> Iterator[str]:
    """The folder the workers of one ``calpress serve`` run write their values to, set as
    ``PROMETHEUS_MULTIPROC_DIR`` for them: the operator's (emptied of an earlier run's files)
    or a new temporary folder, removed when the server stops."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.db"):
            old.unlink(missing_ok=True)
        yield str(folder)
        return
    folder = Path(tempfile.mkdtemp(prefix="calpress-metrics-"))
    os.environ[MULTIPROC_ENV] = str(folder)
    try:
        yield str(folder)
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)

