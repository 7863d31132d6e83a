"""Compression and ETag benchmark (issue 32, item 10): the cost of the answer layer of
calpress/http_encoding.py on cached answers, against the same app without it, in one run.

    .venv/bin/python bench/encoding.py [--requests 200] [--pairs 60] [--events 300] [--goal-us 5] [--database-url URL] [--json results.json]

In process, not through a server: the layer costs microseconds, which two processes' scheduling
noise on a shared machine would bury. One site is built in a temporary folder (SQLite, or a new
schema of the PostgreSQL database of --database-url, dropped at the end), with 12 published posts
of a few paragraphs each and ``--events`` demo events. For each target, ``--pairs`` pairs of
runs call, back to back and in an order that alternates between pairs, the bare app
(``Calpress.__call__``, the baseline) and the app with the layer (``Calpress.wsgi``)
``--requests`` times each; the answers are checked first (status, and the body decoded back to
the baseline's). Short runs in many pairs keep the two sides of a ratio under the same load on a
busy machine. The table shows each side's fastest run (µs per request) and the layer/bare ratio,
the median over pairs. The goal: the layer adds at most 5 µs to a cached REST list requested
without Accept-Encoding (--goal-us; in process that is a large share of a 22 µs answer, through
a server a fraction of a percent of the request's time, which bench/run.py --before shows). Then the sizes and times of each coding and level on
the site index (``/wp-json/``, about 250 KB), a REST list and a calendar page, which chose the
levels of http_encoding.py.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import brotli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import side_databases  # noqa: E402  (bench/ is a folder of scripts, not a package)

from calpress import http_encoding  # noqa: E402
from calpress.app import Calpress, tune_gc  # noqa: E402
from calpress.config import load_settings  # noqa: E402

LIST = "/wp-json/cms/v2/posts"
# name -> (path, request headers); each is measured on the bare app (its baseline) and the layer.
TARGETS: dict[str, tuple[str, dict[str, str]]] = {
    "REST list, no Accept-Encoding": (LIST, {}),
    "REST list, br": (LIST, {"Accept-Encoding": "br"}),
    "REST list, gzip, deflate, br, zstd": (LIST, {"Accept-Encoding": "gzip, deflate, br, zstd"}),
    "REST list, If-None-Match (304)": (LIST, {"Accept-Encoding": "br", "If-None-Match": "{etag}"}),
    "site index, br": ("/wp-json/", {"Accept-Encoding": "br"}),
    "events list page, br": ("/events/list/", {"Accept-Encoding": "br", "Accept": "text/html"}),
}
GOAL_TARGET = "REST list, no Accept-Encoding"
PARAGRAPH = ("<p>The community garden opens its gates every Saturday morning. Bring gloves, seeds and a friend; "
             "tea and biscuits are on the house, and the tool shed is open until noon.</p>")


def environ(path: str, headers: dict[str, str]) -> dict[str, Any]:
    found = {
        "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "bench.test", "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(),
        "HTTP_HOST": "bench.test", "wsgi.errors": sys.stderr, "wsgi.version": (1, 0), "wsgi.multithread": True,
        "wsgi.multiprocess": False, "wsgi.run_once": False, "SCRIPT_NAME": "",
    }
    for name, value in headers.items():
        found["HTTP_" + name.upper().replace("-", "_")] = value
    return found


def call(app: Callable[..., Any], path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    started: list[Any] = []

    def start_response(status: str, pairs: list[tuple[str, str]], exc_info: Any = None) -> None:
        started[:] = [int(status[:3]), {name.lower(): value for name, value in pairs}]

    body = b"".join(app(environ(path, headers), start_response))
    return started[0], started[1], body


def decoded(headers: dict[str, str], body: bytes) -> bytes:
    coding = headers.get("content-encoding")
    if coding == "br":
        return brotli.decompress(body)
    if coding == "gzip":
        return gzip.decompress(body)
    return body


def rotating_runs(sides: dict[str, tuple[Callable[..., Any], str, dict[str, str]]], requests: int,
                  pairs: int) -> dict[str, list[float]]:
    """µs per request of each side (its app, path and headers), one value per run: every side is
    warmed and checked (200) first, then each round runs every side once, in a rotating order
    reversed every other round, so that drift of the machine falls on every side alike."""
    results: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for name, (app, path, headers) in sides.items():
        status, _, _ = call(app, path, headers)
        if status != 200:
            raise SystemExit(f"{name}: {path} answered {status}")
    for pair in range(pairs):
        order = names[pair % len(names):] + names[: pair % len(names)]
        for name in order if pair % 2 == 0 else order[::-1]:
            app, path, headers = sides[name]
            started = time.perf_counter()
            for _ in range(requests):
                call(app, path, headers)
            results[name].append((time.perf_counter() - started) / requests * 1e6)
    return results


def build_site(folder: str, database_url: str | None, events: int) -> Calpress:
    from calpress.auth import users
    from calpress.calendar.demo import seed_demo

    settings = load_settings({"data_dir": folder, "database_url": database_url or "", "secret_key": "b" * 32,
                              "environment": "local", "site_url": "http://bench.test"}, environ={})
    app = Calpress(settings)
    with app.site.write() as conn:
        admin = users.create_user(conn, login="bench", email="bench@example.test", password="bench-password", roles=["administrator"])
    for number in range(12):
        status, _, data = app.rest.serve_as(admin, "POST", "/cms/v2/posts", base_url="http://bench.test/wp-json", body={
            "title": f"Garden day {number}", "content": PARAGRAPH * 4, "excerpt": "Gates open on Saturday.", "status": "publish",
        })
        if status != 201:
            raise SystemExit(f"could not create a post: {status} {data}")
    seed_demo(app.site, events)
    return app


def measure(app: Calpress, requests: int, pairs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per target: µs per request of the bare app and of the layer, one value per pair of runs
    (``requests`` each, back to back, the order alternating)."""
    bare: dict[str, list[float]] = {name: [] for name in TARGETS}
    layered: dict[str, list[float]] = {name: [] for name in TARGETS}
    etag = call(app.wsgi, LIST, {"Accept-Encoding": "br"})[1]["etag"]
    for name, (path, headers) in TARGETS.items():  # warm both: caches filled, answers checked
        sent = {key: value.replace("{etag}", etag) for key, value in headers.items()}
        plain = call(app, path, sent)
        layer = call(app.wsgi, path, sent)
        expected = 304 if "If-None-Match" in sent else 200
        if plain[0] != 200 or layer[0] != expected or (expected == 200 and decoded(layer[1], layer[2]) != plain[2]):
            raise SystemExit(f"{name}: the answers differ ({plain[0]} bare, {layer[0]} with the layer)")
    for pair in range(pairs):
        for name, (path, headers) in TARGETS.items():
            sent = {key: value.replace("{etag}", etag) for key, value in headers.items()}
            sides = [(bare, app), (layered, app.wsgi)]
            for results, target in sides if pair % 2 == 0 else sides[::-1]:
                started = time.perf_counter()
                for _ in range(requests):
                    call(target, path, sent)
                results[name].append((time.perf_counter() - started) / requests * 1e6)
    return bare, layered


def level_table(app: Calpress) -> list[dict[str, Any]]:
    rows = []
    for label, path, headers in (("site index", "/wp-json/", {}), ("REST list", LIST, {}),
                                 ("events list page", "/events/list/", {"Accept": "text/html"})):
        body = call(app, path, headers)[2]
        options: list[tuple[str, Callable[[bytes], bytes]]] = [
            *((f"br {q}", lambda data, q=q: brotli.compress(data, quality=q)) for q in (1, 3, 4, 5, 6, 11)),
            *((f"gzip {level}", lambda data, level=level: gzip.compress(data, level, mtime=0)) for level in (1, 5, 6, 9)),
        ]
        for coding, compress in options:
            repeats = 3 if coding == "br 11" else 20
            started = time.perf_counter()
            for _ in range(repeats):
                packed = compress(body)
            rows.append({"answer": label, "identity_bytes": len(body), "coding": coding, "bytes": len(packed),
                         "ms": (time.perf_counter() - started) / repeats * 1000})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per target and side in each pair of runs")
    parser.add_argument("--pairs", type=int, default=60, help="pairs of runs (bare, layer) per target")
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--goal-us", type=float, default=5.0, help="most µs per request the layer may add to the goal target")
    parser.add_argument("--database-url", help="PostgreSQL URL (a schema of its own, dropped at the end); default SQLite")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)

    with ExitStack() as stack, side_databases(args.database_url, ["encoding"]) as urls:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="calpress-bench-encoding-"))
        app = build_site(folder, urls["encoding"], args.events)
        stack.callback(app.site.close)
        tune_gc()  # as a served worker does (app.wsgi_app)
        bare, layered = measure(app, args.requests, args.pairs)
        levels = level_table(app)

    print(f"\n{'target':40} {'bare µs':>9} {'layer µs':>9} {'layer/bare':>11}  (fastest run of {args.pairs}; ratio: median over pairs)")
    summary = []
    missed = False
    for name in TARGETS:
        ratio = statistics.median(after / before for before, after in zip(bare[name], layered[name]))
        print(f"{name:40} {min(bare[name]):9.1f} {min(layered[name]):9.1f} {ratio:10.3f}x")
        summary.append({"target": name, "bare_us": min(bare[name]), "layer_us": min(layered[name]), "ratio": ratio})
        if name == GOAL_TARGET and min(layered[name]) - min(bare[name]) > args.goal_us:
            missed = True
    print(f"\n{'answer':18} {'identity':>9} {'coding':8} {'bytes':>8} {'ms':>8}")
    for row in levels:
        print(f"{row['answer']:18} {row['identity_bytes']:9} {row['coding']:8} {row['bytes']:8} {row['ms']:8.2f}")
    print(f"\nchosen: br {http_encoding.BROTLI_QUALITY}, gzip {http_encoding.GZIP_LEVEL}")
    print(f"goal: {GOAL_TARGET}, at most {args.goal_us:.1f} µs added to the bare app: " + ("MISSED" if missed else "met"))
    if args.json:
        Path(args.json).write_text(json.dumps({"targets": summary, "levels": levels}, indent=2))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
