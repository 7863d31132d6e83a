"""Import benchmark (issue 13): ``calpress import ics`` of a generated feed against ``calpress
seed-demo`` for as many events, in the same run, on each database.

    .venv/bin/python bench/imports.py [--events 5000] [--rounds 3] [--database-url URL] [--sizes 1000,5000,20000]

Each round, on new sites (a fresh SQLite folder, or with --database-url a fresh PostgreSQL schema
per site, dropped at the end):

1. ``calpress seed-demo --events N`` (the bulk path: rows inserted many at a time) is timed;
2. ``calpress import ics feed.ics`` on a site with one administrator: the feed is
   ``calpress.calendar.demo.demo_feed(N)`` (about 30% of its events occurrences of weekly series,
   with EXDATE/RDATE; venues, organizers and categories from small pools), parsed with icalendar,
   expanded with recurring-ical-events and written event by event through the calendar input
   service in batches of 50, as the import callbacks write them;
3. the same import again: the feed unchanged, every event is left alone.

Both are whole command runs (a new Python process each, start-up included), timed from start to
exit. The figure is the import's rate as a share of seed-demo's (the median over rounds of
seed time / import time, each pair from the same round): goal >= 20%. The reference's own
insert path manages about 10-100 events/s on this kind of machine.

Then, once per size of --sizes, the import's peak resident memory (the child's ``ru_maxrss``) on a
new site: memory is "flat" when it grows by less than --rss-per-1000 MB (default 4) per 1,000
events, the parsed feed being the only thing held whole (a feed is at most 20 MB).

The exit code is non-zero when a goal is missed or a command failed. SQLite always runs;
PostgreSQL only with --database-url (for instance ``postgresql://postgres@127.0.0.1/test``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from run import ROOT, side_databases  # noqa: E402  (bench/ is a folder of scripts, not a package)

from calpress.calendar.demo import demo_feed  # noqa: E402

GOAL = 0.20
CALPRESS = [sys.executable, "-m", "calpress"]


def run_command(args: Sequence[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(seconds, peak resident MB, stdout) of one calpress command; raises when it fails."""
    started = time.perf_counter()
    process = subprocess.Popen([*CALPRESS, *args], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    out = process.stdout.read().decode() if process.stdout else ""
    err = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"calpress {' '.join(args)} failed ({process.returncode}): {(err or out).strip()[-800:]}")
    return elapsed, usage.ru_maxrss / 1024, out


def site_env(folder: Path, database_url: str | None) -> dict[str, str]:
    env = dict(os.environ, CALPRESS_DATA_DIR=str(folder), CALPRESS_LOG_LEVEL="warning")
    env.pop("CALPRESS_DATABASE_URL", None)
    if database_url:
        env["CALPRESS_DATABASE_URL"] = database_url
    return env


def new_site(folder: Path, database_url: str | None, *, admin: bool) -> dict[str, str]:
    env = site_env(folder, database_url)
    run_command(["db", "upgrade"], env)
    if admin:
        run_command(["user", "create", "bench", "bench@example.org", "--role=administrator", "--porcelain"], env)
    return env


def measure(database: str, database_url: str | None, feed: Path, events: int, rounds: int, work: Path) -> dict:
    labels = [f"r{n}_{kind}" for n in range(rounds) for kind in ("seed", "import")]
    seeds, imports, again, ratios = [], [], [], []
    with side_databases(database_url, labels) as urls:
        for n in range(rounds):
            seed_env = new_site(work / f"{database}-seed-{n}", urls[f"r{n}_seed"], admin=False)
            seed_time, _, _ = run_command(["seed-demo", "--events", str(events), "--quiet"], seed_env)
            import_env = new_site(work / f"{database}-import-{n}", urls[f"r{n}_import"], admin=True)
            import_time, _, out = run_command(["import", "ics", str(feed), "--quiet"], import_env)
            if f"{events} created" not in out:
                raise SystemExit(f"the import did not create {events} events: {out.strip()}")
            again_time, _, out = run_command(["import", "ics", str(feed), "--quiet"], import_env)
            if f"{events} skipped" not in out:
                raise SystemExit(f"the second import did not leave the {events} events alone: {out.strip()}")
            seeds.append(seed_time)
            imports.append(import_time)
            again.append(again_time)
            ratios.append(seed_time / import_time)
            print(f"  {database} round {n + 1}: seed-demo {seed_time:.2f} s, import {import_time:.2f} s "
                  f"({events / import_time:,.0f} events/s), again {again_time:.2f} s, share {seed_time / import_time:.1%}",
                  flush=True)
    return {"seed": statistics.median(seeds), "import": statistics.median(imports), "again": statistics.median(again),
            "share": statistics.median(ratios)}


def memory(database: str, database_url: str | None, sizes: Sequence[int], work: Path, today: dt.date) -> dict[int, float]:
    peaks = {}
    with side_databases(database_url, [f"m{size}" for size in sizes]) as urls:
        for size in sizes:
            feed = work / f"feed-{size}.ics"
            feed.write_bytes(demo_feed(size, today=today))
            env = new_site(work / f"{database}-memory-{size}", urls[f"m{size}"], admin=True)
            _, peak, _ = run_command(["import", "ics", str(feed), "--quiet"], env)
            peaks[size] = peak
            print(f"  {database} memory: {size:,} events, peak {peak:.0f} MB", flush=True)
    return peaks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=None, help="also run on this PostgreSQL database (a schema per site)")
    parser.add_argument("--sizes", default="1000,5000,20000", help="feed sizes for the memory figure ('' skips it)")
    parser.add_argument("--rss-per-1000", type=float, default=4.0, help="most MB of peak memory per 1,000 more events")
    args = parser.parse_args()
    today = dt.date.today()
    failed = False
    databases: list[tuple[str, str | None]] = [("sqlite", None)]
    if args.database_url:
        databases.append(("postgresql", args.database_url))
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="calpress-bench-imports-") as folder:
        work = Path(folder)
        feed = work / "feed.ics"
        feed.write_bytes(demo_feed(args.events, today=today))
        print(f"feed: {args.events:,} events ({feed.stat().st_size / 1e6:.1f} MB, "
              f"{feed.read_bytes().count(b'RRULE:')} series)", flush=True)
        for database, url in databases:
            figures = measure(database, url, feed, args.events, args.rounds, work)
            peaks = memory(database, url, sizes, work, today) if sizes else {}
            rows.append((database, figures, peaks))
    print()
    print(f"| database | seed-demo {args.events:,} | import {args.events:,} | events/s | share of seed-demo's rate "
          f"(goal >= {GOAL:.0%}) | unchanged re-run | peak memory by feed size |")
    print("|---|---|---|---|---|---|---|")
    for database, figures, peaks in rows:
        verdict = "ok" if figures["share"] >= GOAL else "MISSED"
        failed |= figures["share"] < GOAL
        memory_cell = ", ".join(f"{size:,}: {peak:.0f} MB" for size, peak in peaks.items())
        if len(peaks) >= 2:
            small, large = min(peaks), max(peaks)
            slope = (peaks[large] - peaks[small]) / ((large - small) / 1000)
            flat = slope <= args.rss_per_1000
            failed |= not flat
            memory_cell += f" ({slope:+.1f} MB per 1,000 events: {'flat' if flat else 'NOT FLAT'})"
        print(f"| {database} | {figures['seed']:.2f} s | {figures['import']:.2f} s | {args.events / figures['import']:,.0f} "
              f"| {figures['share']:.1%} {verdict} | {figures['again']:.2f} s | {memory_cell} |")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
