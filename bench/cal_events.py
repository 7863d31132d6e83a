"""Calendar benchmark (issue 3): cal/events/v1 against the bare Falcon baseline, in one run.

    .venv/bin/python bench/cal_events.py [--duration 5] [--rounds 3] [--large 100000] [--database-url URL]

Measures, each as a median of alternating rounds against the baseline's requests/s:
- GET /cal/events/v1/events?per_page=10 (venue, organizers, terms embedded) with 1,000 events;
- GET /cal/events/v1/events/{id} with 1,000 events;
- the same listing with --large events stored (default 100,000), and its rate as a share of the
  1,000-event rate;
and reports `seed-demo --events <large>` wall time and peak resident memory, and the resident
memory of the server worker after serving the large listing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # noqa: E402  (bench/ is a folder of scripts, not a package)
    BASELINE,
    Result,
    free_port,
    run_python,
    run_wrk,
    shutil,
    start_baseline,
    start_calpress,
    wait_ready,
)

TARGETS = {
    "GET /cal/events/v1/events?per_page=10 (1k events)": 0.10,
    "GET /cal/events/v1/events/{id} (1k events)": 0.15,
}
LARGE_SHARE = 0.80
SEED_SECONDS = 120
SEED_MB = 300
WORKER_MB = 150


def seed(data_dir: str, database_url: str | None, count: int) -> tuple[float, float]:
    """Run seed-demo in a child process: (seconds, peak resident MB of that child)."""
    env = {**os.environ, "CALPRESS_DATA_DIR": data_dir}
    if database_url:
        env["CALPRESS_DATABASE_URL"] = database_url
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "calpress", "seed-demo", "--events", str(count), "--quiet"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def tree_rss_mb(pid: int) -> float:
    """The largest resident set among a process and its descendants (the Granian worker)."""
    largest = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        largest = max(largest, int(line.split()[1]) / 1024)
            with open(f"/proc/{current}/task/{current}/children") as children:
                pending.extend(int(c) for c in children.read().split())
        except OSError:
            continue
    return largest


def measure_site(measure, data_dir: str, database_url: str | None, baseline_url: str, names: dict[str, str],
                 rounds: int, duration: int, connections: int) -> tuple[dict[str, list[float]], dict[str, list[Result]], float]:
    port = free_port()
    process, _ = start_calpress(port, data_dir, database_url)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_ready(base + "/wp-json/", process)
        listing = httpx.get(base + "/wp-json/cal/events/v1/events?per_page=10").json()
        if not listing.get("events"):
            raise SystemExit(f"the listing is empty: {str(listing)[:200]}")
        event_id = listing["events"][0]["id"]
        urls = {name: base + path.replace("{id}", str(event_id)) for name, path in names.items()}
        for name, url in urls.items():
            status = httpx.get(url).status_code
            if status != 200:
                raise SystemExit(f"{name} answered {status}")
        ratios: dict[str, list[float]] = {name: [] for name in urls}
        results: dict[str, list[Result]] = {name: [] for name in [BASELINE, *urls]}
        for _ in range(rounds):
            baseline = measure(BASELINE, baseline_url, {}, duration, connections)
            results[BASELINE].append(baseline)
            for name, url in urls.items():
                result = measure(name, url, {}, duration, connections)
                results[name].append(result)
                ratios[name].append(result.requests_per_second / baseline.requests_per_second)
        return ratios, results, tree_rss_mb(process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (small and large runs each reset nothing: "
                                                             "give an empty database)")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    args = parser.parse_args()
    use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk"))
    measure = run_wrk if use_wrk else run_python
    print(f"load generator: {'wrk' if use_wrk else 'python'}; {args.duration}s x {args.rounds} rounds, "
          f"{args.connections} connections, one worker each")
    baseline_port = free_port()
    baseline = start_baseline(baseline_port)
    failed = False
    try:
        baseline_url = f"http://127.0.0.1:{baseline_port}/things/1"
        wait_ready(baseline_url, baseline)
        with tempfile.TemporaryDirectory(prefix="calpress-bench-small-") as small_dir, \
                tempfile.TemporaryDirectory(prefix="calpress-bench-large-") as large_dir:
            small_seconds, _ = seed(small_dir, args.database_url, args.small)
            names = {
                "GET /cal/events/v1/events?per_page=10 (1k events)": "/wp-json/cal/events/v1/events?per_page=10",
                "GET /cal/events/v1/events/{id} (1k events)": "/wp-json/cal/events/v1/events/{id}",
            }
            small_ratios, small_results, _ = measure_site(measure, small_dir, args.database_url, baseline_url, names,
                                                          args.rounds, args.duration, args.connections)
            if args.database_url:
                print("note: with --database-url the large run adds to the same database")
            large_seconds, large_peak = seed(large_dir, args.database_url, args.large - (args.small if args.database_url else 0))
            large_name = f"GET /cal/events/v1/events?per_page=10 ({args.large // 1000}k events)"
            large_ratios, large_results, worker_mb = measure_site(
                measure, large_dir, args.database_url, baseline_url, {large_name: "/wp-json/cal/events/v1/events?per_page=10"},
                args.rounds, args.duration, args.connections,
            )
    finally:
        baseline.terminate()
        baseline.wait(timeout=10)

    print(f"\n{'target (medians)':<52} {'req/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'ratio':>7}  goal")
    base_rps = statistics.median(r.requests_per_second for r in small_results[BASELINE] + large_results[BASELINE])
    print(f"{BASELINE:<52} {base_rps:>9.0f}")
    rates: dict[str, float] = {}
    for ratios, results in ((small_ratios, small_results), (large_ratios, large_results)):
        for name, values in ratios.items():
            ratio = statistics.median(values)
            rps = statistics.median(r.requests_per_second for r in results[name])
            rates[name] = rps
            goal = TARGETS.get(name)
            verdict = "" if goal is None else (f">= {goal:.0%} ok" if ratio >= goal else f">= {goal:.0%} MISSED")
            failed |= goal is not None and ratio < goal
            p50 = statistics.median(r.p50_ms for r in results[name])
            p99 = statistics.median(r.p99_ms for r in results[name])
            print(f"{name:<52} {rps:>9.0f} {p50:>7.2f} {p99:>7.2f} {ratio:>6.1%}  {verdict}")
    small_name = "GET /cal/events/v1/events?per_page=10 (1k events)"
    share = statistics.median(large_ratios[large_name]) / statistics.median(small_ratios[small_name])
    failed |= share < LARGE_SHARE
    print(f"\nlisting with {args.large:,} events vs {args.small:,}: {share:.1%} of the rate "
          f"(goal >= {LARGE_SHARE:.0%}) {'ok' if share >= LARGE_SHARE else 'MISSED'}")
    print(f"seed-demo --events {args.small:,}: {small_seconds:.1f}s")
    seed_ok = large_seconds < SEED_SECONDS and large_peak < SEED_MB
    failed |= not seed_ok
    print(f"seed-demo --events {args.large:,}: {large_seconds:.1f}s (goal < {SEED_SECONDS}s), peak {large_peak:.0f} MB "
          f"(goal < {SEED_MB} MB) {'ok' if seed_ok else 'MISSED'}")
    failed |= worker_mb >= WORKER_MB
    print(f"server worker resident memory after the {args.large:,}-event listing: {worker_mb:.0f} MB "
          f"(goal < {WORKER_MB} MB) {'ok' if worker_mb < WORKER_MB else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
