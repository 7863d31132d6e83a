"""Access log benchmark (issue 33, item 2): the cost of the request layer of
calpress/access_log.py on a cached REST read, in one run.

    .venv/bin/python bench/access_log.py [--requests 200] [--pairs 60] [--events 100] [--database-url URL] [--json results.json]

In process, as bench/encoding.py: one site in a temporary folder, and for each target ``--pairs``
pairs of runs, back to back in an order that alternates between pairs, of the app without the
request layer (``AnswerEncoding(app)``, the baseline: what ``Calpress.wsgi`` was before) and of
the app with it (``Calpress.wsgi``: forwarding headers read, a request id made and returned, one
JSON line written per request), ``--requests`` times each. The access lines go to a file in the
temporary folder (as to a file or a pipe in production; a terminal would measure the terminal).
Three sides with the layer: the log on, the log off (the request id only), and the log on behind
a trusted proxy sending ``X-Forwarded-For``. The table shows each side's fastest run (µs per
request) and its ratio to the baseline, the median over pairs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from encoding import build_site, rotating_runs  # noqa: E402  (bench/ is a folder of scripts, not a package)
from run import side_databases  # noqa: E402

from calpress.access_log import AccessLog, RequestLayer  # noqa: E402
from calpress.app import tune_gc  # noqa: E402
from calpress.http_encoding import AnswerEncoding  # noqa: E402
from calpress.proxies import TrustedProxies  # noqa: E402

TARGET = "/wp-json/cms/v2/posts"
PROXIED = {"X-Forwarded-For": "203.0.113.9, 10.0.0.7", "X-Forwarded-Proto": "https"}


def measure(sides: dict[str, tuple[Any, dict[str, str]]], requests: int, pairs: int) -> dict[str, list[float]]:
    """µs per request of each side on the target, one value per run (encoding.rotating_runs)."""
    return rotating_runs({name: (app, TARGET, headers) for name, (app, headers) in sides.items()}, requests, pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per side in each run")
    parser.add_argument("--pairs", type=int, default=60, help="rounds of runs (one run of every side each)")
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--database-url", help="PostgreSQL URL (a schema of its own, dropped at the end); default SQLite")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)

    with ExitStack() as stack, side_databases(args.database_url, ["access_log"]) as urls:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="calpress-bench-access-log-"))
        app = build_site(folder, urls["access_log"], args.events)
        stack.callback(app.site.close)
        tune_gc()  # as a served worker does (app.wsgi_app)
        bare = AnswerEncoding(app)
        log_file = str(Path(folder) / "access.log")
        logged = RequestLayer(bare, AccessLog(log_file, route_name=app.route_name))
        silent = RequestLayer(bare, AccessLog("off", route_name=app.route_name))
        proxied = RequestLayer(bare, AccessLog(log_file, route_name=app.route_name, proxies=TrustedProxies("127.0.0.1")))
        sides = {
            "without the layer": (bare, {}),
            "layer, log on (file)": (logged, {}),
            "layer, log off": (silent, {}),
            "layer, log on, trusted proxy": (proxied, PROXIED),
        }
        results = measure(sides, args.requests, args.pairs)
        lines = sum(1 for _ in open(log_file))
        AccessLog("on")

    base = results["without the layer"]
    print(f"\ncached REST list {TARGET}, in process ({lines} access lines written)")
    print(f"{'side':32} {'µs':>8} {'ratio':>8}  (fastest run of {args.pairs}; ratio: median over rounds)")
    summary = []
    for name, runs in results.items():
        ratio = statistics.median(after / before for before, after in zip(base, runs))
        print(f"{name:32} {min(runs):8.1f} {ratio:7.3f}x")
        summary.append({"side": name, "us": min(runs), "ratio": ratio})
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
