"""Metrics benchmark (issue 33, item 4): what Prometheus metrics (calpress/metrics.py) cost a
request, off and on, in one run.

    .venv/bin/python bench/metrics.py [--requests 200] [--pairs 60] [--events 100] [--database-url URL] [--json results.json]

In process, as bench/access_log.py: one site in a temporary folder served by two apps over the
same database, one with ``metrics=off`` (the default) and one with ``metrics=on``, both through
``Calpress.wsgi`` with the access log off (so that only the metrics are measured; one side adds
the log to show the two together). For each target, ``--pairs`` rounds of runs of every side,
back to back in an order that rotates between rounds, ``--requests`` requests each. The table
shows each side's fastest run (µs per request) and its ratio to the side with metrics off, the
median over rounds.

Off, the code a request meets is attribute checks: the request layer's ``metrics is None``, and
one ``observe is None`` per lookup of the answer cache, the page cache and the memo. There is no
side without them in one process; ``--baseline`` measures the app without the request layer
(``AnswerEncoding(app)``, which holds none of the request layer's checks) for scale.
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
from encoding import build_site, call, rotating_runs  # noqa: E402  (bench/ is a folder of scripts, not a package)
from run import side_databases  # noqa: E402

from calpress.access_log import AccessLog  # noqa: E402
from calpress.app import Calpress, tune_gc  # noqa: E402
from calpress.http_encoding import AnswerEncoding  # noqa: E402

TARGETS = {
    "cached REST list": ("/wp-json/cms/v2/posts", {}),
    "cached public page": ("/", {"Accept": "text/html"}),
}


def measure(sides: dict[str, Any], path: str, headers: dict[str, str], requests: int, pairs: int) -> dict[str, list[float]]:
    """µs per request of each side on ``path``, one value per run (encoding.rotating_runs)."""
    return rotating_runs({name: (app, path, headers) for name, app in sides.items()}, requests, pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per side in each run")
    parser.add_argument("--pairs", type=int, default=60, help="rounds of runs (one run of every side each)")
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--database-url", help="PostgreSQL URL (a schema of its own, dropped at the end); default SQLite")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)

    with ExitStack() as stack, side_databases(args.database_url, ["metrics"]) as urls:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="calpress-bench-metrics-"))
        seeded = build_site(folder, urls["metrics"], args.events)
        seeded.site.close()
        base = seeded.settings.with_overrides(access_log="off")
        off = Calpress(base, upgrade=False)
        on = Calpress(base.with_overrides(metrics="on"), upgrade=False)
        logged = Calpress(base.with_overrides(metrics="on", access_log=str(Path(folder) / "access.log")), upgrade=False)
        for app in (off, on, logged):
            stack.callback(app.site.close)
        tune_gc()  # as a served worker does (app.wsgi_app)
        sides = {
            "metrics off": off.wsgi,
            "metrics on": on.wsgi,
            "metrics on, log on (file)": logged.wsgi,
            "no request layer (scale)": AnswerEncoding(off),
        }
        results = {name: measure(sides, path, headers, args.requests, args.pairs) for name, (path, headers) in TARGETS.items()}
        scrape = call(on.wsgi, "/metrics", {})
        AccessLog("on")

    summary = []
    for target, found in results.items():
        print(f"\n{target} {TARGETS[target][0]}, in process")
        print(f"{'side':30} {'µs':>8} {'ratio':>8}  (fastest run of {args.pairs}; ratio to metrics off: median over rounds)")
        baseline = found["metrics off"]
        for name, runs in found.items():
            ratio = statistics.median(after / before for before, after in zip(baseline, runs))
            print(f"{name:30} {min(runs):8.1f} {ratio:7.3f}x")
            summary.append({"target": target, "side": name, "us": min(runs), "ratio": ratio})
    print(f"\none scrape: {len(scrape[2]):,} bytes")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
