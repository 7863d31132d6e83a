"""Calendar benchmark (issue 3): cal/events/v1 against the bare Falcon baseline, in one run.

    .venv/bin/python bench/cal_events.py [--duration 5] [--rounds 3] [--large 100000] [--database-url URL]
    .venv/bin/python bench/cal_events.py --before REF [--tolerance 0.95] [--json results.json]

Measures, each as a median of alternating rounds against the baseline's requests/s:
- GET /cal/events/v1/events?per_page=10 (venue, organizers, terms embedded) with 1,000 events,
  under /wp-json/ and at the site root (issue 35: 60% of the baseline each);
- GET /cal/events/v1/events/{id} with 1,000 events;
- the same listing with --large events stored (default 100,000), and its rate as a share of the
  1,000-event rate;
- each of those again with the answer cache defeated ("cache defeated"): every request carries
  ``miss=N``, a parameter the routes ignore, with a number never sent before, so the answer
  cache never serves it (the per-query totals, kept while the content counter is unchanged,
  still count once per query shape, and each worker reuses the event representations it built,
  store/memo.py: run with ``CALPRESS_MEMO_SIZE=0`` in the environment to build every event from
  the database);
and reports `seed-demo --events <large>` wall time and peak resident memory, and the resident
memory of the server worker after serving the large listing.

With --before REF, that git revision's code is exported and measured too ("before") next to the
working tree ("after"), each seeded alike (same seed-demo steps, same --seed) into its own data
folder (or PostgreSQL schema); the table adds each target's after/before, the median over rounds
of after req/s / before req/s within the same round (see bench/run.py). Goals are checked on the
after side; the exit code is also non-zero when any after/before is below --tolerance. Seed time
and memory are shown for both sides, for information.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # noqa: E402  (bench/ is a folder of scripts, not a package)
    BASELINE,
    BEFORE,
    TOLERANCE,
    Measure,
    Round,
    Side,
    Table,
    baseline_running,
    code_under_test,
    compared_summary,
    goal_verdict,
    load_generator,
    measure_rounds,
    report_after_before,
    running,
    side_figures,
)

MISS = "miss={n}"  # a parameter the routes ignore, with a value never sent before: the answer cache misses
SMALL_NAME = "GET /cal/events/v1/events?per_page=10 (1k events)"
SMALL_MISS = "GET /cal/events/v1/events?per_page=10 (1k events, cache defeated)"
SMALL_ROOT = "GET /cal/events/v1/events?per_page=10 at the site root (1k events)"
SINGLE_NAME = "GET /cal/events/v1/events/{id} (1k events)"
SINGLE_MISS = "GET /cal/events/v1/events/{id} (1k events, cache defeated)"
TARGETS = {
    SMALL_NAME: 0.60,
    SMALL_ROOT: 0.60,
    SINGLE_NAME: 0.15,
    SMALL_MISS: 0.10,
    SINGLE_MISS: 0.10,
}
LARGE_SHARE = 0.80
SEED_SECONDS = 120
SEED_MB = 300
WORKER_MB = 150


def seed(side: Side, count: int, seed_value: int) -> tuple[float, float]:
    """Run seed-demo with the side's code and data in a child process: (seconds, peak resident MB
    of that child, as wait4 reports it for this child alone)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "calpress", "seed-demo", "--events", str(count), "--seed", str(seed_value), "--quiet"],
        env=side.env(), cwd=side.source, stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"seed-demo --events {count} ({side.label}) exited with {process.returncode}")
    return seconds, usage.ru_maxrss / 1024


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


def measure_site(measure: Measure, sides: Sequence[Side], baseline_url: str, names: dict[str, str],
                 rounds: int, duration: int, connections: int) -> tuple[list[Round], dict[str, float]]:
    """Serve the sides' data, measure rounds of the baseline and every target on every side: (rounds,
    each side's worker resident MB afterwards)."""
    with running(sides) as servers:
        targets: dict[str, dict[str, tuple[str, dict[str, str]]]] = {}
        for side in sides:
            base = servers[side.label].base
            listing = httpx.get(base + "/wp-json/cal/events/v1/events?per_page=10").json()
            if not listing.get("events"):
                raise SystemExit(f"the listing is empty ({side.label}): {str(listing)[:200]}")
            event_id = listing["events"][0]["id"]
            for name, path in names.items():
                url = base + path.replace("{id}", str(event_id))
                status = httpx.get(url.replace("{n}", "0")).status_code
                if status != 200:
                    raise SystemExit(f"{name} answered {status} ({side.label})")
                targets.setdefault(name, {})[side.label] = (url, {})
        measured = measure_rounds(measure, baseline_url, targets, rounds, duration, connections)
        return measured, {label: tree_rss_mb(server.process.pid) for label, server in servers.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1, help="seed-demo's random seed (the same for every side)")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (small and large runs each reset nothing: "
                                                             "give an empty database; with --before, one new schema per side)")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--before", metavar="REF", default=None,
                        help="also measure this git revision's code and report each target's after/before ratio")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE,
                        help=f"with --before: lowest accepted after/before median (default {TOLERANCE})")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args()
    measure, use_wrk = load_generator(args.client)
    print(f"load generator: {'wrk' if use_wrk else 'python'}; {args.duration}s x {args.rounds} rounds, "
          f"{args.connections} connections, one worker each")
    small_names = {
        SMALL_NAME: "/wp-json/cal/events/v1/events?per_page=10",
        SMALL_ROOT: "/cal/events/v1/events?per_page=10",
        SINGLE_NAME: "/wp-json/cal/events/v1/events/{id}",
        SMALL_MISS: f"/wp-json/cal/events/v1/events?per_page=10&{MISS}",
        SINGLE_MISS: f"/wp-json/cal/events/v1/events/{{id}}?{MISS}",
    }
    large_name = f"GET /cal/events/v1/events?per_page=10 ({args.large // 1000}k events)"
    large_miss = f"GET /cal/events/v1/events?per_page=10 ({args.large // 1000}k events, cache defeated)"
    with ExitStack() as stack:
        baseline_url = baseline_running(stack)
        code = stack.enter_context(code_under_test(args.before, args.database_url))
        small_sides, large_sides = code.sides(stack, "small"), code.sides(stack, "large")
        small_seed = {side.label: seed(side, args.small, args.seed) for side in small_sides}
        small_rounds, _ = measure_site(measure, small_sides, baseline_url, small_names, args.rounds, args.duration, args.connections)
        if args.database_url:
            print("note: with --database-url the large run adds to the same database")
        large_count = args.large - (args.small if args.database_url else 0)
        large_seed = {side.label: seed(side, large_count, args.seed) for side in large_sides}
        large_rounds, worker_mb = measure_site(
            measure, large_sides, baseline_url,
            {large_name: "/wp-json/cal/events/v1/events?per_page=10", large_miss: f"/wp-json/cal/events/v1/events?per_page=10&{MISS}"},
            args.rounds, args.duration, args.connections)

    # Goals are checked on the after side (the only side of a plain run); a --before run shows both.
    compared = code.ref is not None
    labels = [side.label for side in small_sides]
    after_label = labels[-1]
    table = Table(68, 9, 7, errors=False, sides=compared)
    print("\n" + table.heading("target (medians)"))
    base_rps = statistics.median(r.baseline.requests_per_second for r in small_rounds + large_rounds)
    print(f"{BASELINE:<68}{' ' * 7 if compared else ''} {base_rps:>9.0f}")
    failed = False
    slower: list[str] = []
    summary: list[dict] = []
    ratio_of: dict[tuple[str, str], float] = {}  # (target, side label) -> median ratio to the baseline
    for rounds in (small_rounds, large_rounds):
        for name in rounds[0].results:
            goal = TARGETS.get(name)
            if compared:
                before, after, ratios = table.compare(rounds, name, goal, args.tolerance)
                ratio_of[name, BEFORE] = before.ratio
                if statistics.median(ratios) < args.tolerance:
                    slower.append(name)
                summary.append(compared_summary(name, before, after, ratios, code.ref, code.commit))
            else:
                after = side_figures(rounds, name, after_label)
                print(table.row(name, after, verdict=goal_verdict(goal, after.ratio)))
                summary.append({"name": name, **asdict(after)})
            ratio_of[name, after_label] = after.ratio
            failed |= goal is not None and after.ratio < goal

    def each(values: dict[str, float], form: str) -> str:
        return ", ".join(f"{label} {form.format(values[label])}" for label in labels) if compared else form.format(values[after_label])

    shares = {label: ratio_of[large_name, label] / ratio_of[SMALL_NAME, label] for label in labels}
    miss_shares = {label: ratio_of[large_miss, label] / ratio_of[SMALL_MISS, label] for label in labels}
    print()
    for title, values in (("", shares), (", cache defeated", miss_shares)):
        share_ok = values[after_label] >= LARGE_SHARE
        failed |= not share_ok
        print(f"listing with {args.large:,} events vs {args.small:,}{title}: {each(values, '{:.1%}')} of the rate "
              f"(goal >= {LARGE_SHARE:.0%}) {'ok' if share_ok else 'MISSED'}")
    print(f"seed-demo --events {args.small:,}: {each({k: v[0] for k, v in small_seed.items()}, '{:.1f}s')}")
    large_seconds, large_peak = large_seed[after_label]
    seed_ok = large_seconds < SEED_SECONDS and large_peak < SEED_MB
    failed |= not seed_ok
    print(f"seed-demo --events {args.large:,}: {each({k: v[0] for k, v in large_seed.items()}, '{:.1f}s')} (goal < {SEED_SECONDS}s), "
          f"peak {each({k: v[1] for k, v in large_seed.items()}, '{:.0f} MB')} (goal < {SEED_MB} MB) {'ok' if seed_ok else 'MISSED'}")
    worker_ok = worker_mb[after_label] < WORKER_MB
    failed |= not worker_ok
    print(f"server worker resident memory after the {args.large:,}-event listing: {each(worker_mb, '{:.0f} MB')} "
          f"(goal < {WORKER_MB} MB) {'ok' if worker_ok else 'MISSED'}")
    if compared:
        report_after_before(slower, code.ref, args.tolerance)
    if args.json:
        sides = {label: {"large_share": shares[label], "large_share_cache_defeated": miss_shares[label], "seed_small_seconds": small_seed[label][0],
                         "seed_large_seconds": large_seed[label][0], "seed_large_peak_mb": large_seed[label][1],
                         "worker_mb": worker_mb[label]} for label in labels}
        Path(args.json).write_text(json.dumps({"baseline_requests_per_second": base_rps, "targets": summary, "sides": sides}, indent=2))
    return 1 if failed or slower else 0


if __name__ == "__main__":
    raise SystemExit(main())
