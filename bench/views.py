"""Calendar pages benchmark (issue 10): the public views against the bare Falcon baseline, in one run.

    .venv/bin/python bench/views.py [--duration 5] [--rounds 3] [--large 100000] [--database-url URL] [--json results.json]

Two sites are seeded with ``seed-demo`` (``--small`` 1,000 events and ``--large`` 100,000, the same
``--seed``), then on each, 300 events (``--month-events``) are moved by whole days into a target
month 25 months ahead, beyond the spread seed-demo uses (today - 30 days .. today + 700 days), so
that the month holds exactly those 300 on both sites (checked, and printed) whatever the size of
the table. The moved events are the ones linking only the first 50 venues and organizers (as
many as the small site has), spread evenly over the table, so that both months link as many
distinct posts: the two pages show the same amount. The move is plain SQL through the app's
engine in a child process (durations kept; the typed ``events`` row is what the views read),
followed by a bump of the content counter.
Both sites are then served at once (one worker each) and measured in alternating rounds with the
baseline; each figure is the median over rounds, a share of the baseline's requests/s in the
same round:

1. ``GET /events/month/<target>/`` with 300 events in that month, on the 1k site: a repeated URL,
   so the page cache answers (it renders once a minute): goal >= 5% of the baseline;
2. ``GET /events/list/`` (upcoming events, 10 a page), 1k site, cached: goal >= 10%;
3. ``GET /events/list/?n=<counter>``, 1k site: every request a new URL, which the page ignores but
   the page cache keys by, so every request renders the page: goal >= 1%;
4. the cache-defeated list at 100k events stored vs 1k (the median over rounds of the 100k rate /
   the 1k rate within the same round): goal >= 80%, rendering costs what the page shows, not what
   the table holds; the cache-defeated month view (300 events in the window on both sites) is
   measured the same way and reported against the same goal.

Every request goes through the Python client (threads over keep-alive connections, bounded in time
and count; see bench/run.py), the baseline's too, so the shares compare like with like; the
cache-defeated targets hold ``{n}`` in their URL, which the client replaces with a new number for
every request. The exit code is non-zero when a goal is missed or a target answered errors. With --database-url (PostgreSQL), each
site gets its own new schema in that database, dropped at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # noqa: E402  (bench/ is a folder of scripts, not a package)
    BASELINE,
    Figures,
    Round,
    Side,
    baseline_running,
    figures,
    measure_rounds,
    run_python,
    running,
    side_databases,
    side_figures,
)

MONTH_CACHED = "1. month, {events} events, cached"
LIST_CACHED = "2. list, cached"
LIST_FRESH = "3. list, cache defeated"
MONTH_FRESH = "month, cache defeated"
# Shares of the baseline's requests/s (on the small site).
GOALS = {MONTH_CACHED: 0.05, LIST_CACHED: 0.10, LIST_FRESH: 0.01}
# The large site's rate as a share of the small site's, for the cache-defeated views.
LARGE_SHARE = 0.80
MONTHS_AHEAD = 25  # the target month: past seed-demo's last day (today + 700) and its grid's first week

MOVE = textwrap.dedent(
    """
    import datetime as dt, sys
    import sqlalchemy as sa
    from calpress.calendar.definitions import ORGANIZER_TYPE, VENUE_TYPE
    from calpress.config import load_settings
    from calpress.store.db import create_engine
    from calpress.store.tables import counters, event_links, events, posts
    first = dt.datetime.strptime(sys.argv[1], "%Y-%m")
    count, linked = int(sys.argv[2]), int(sys.argv[3])
    after = (first + dt.timedelta(days=32)).replace(day=1)
    days, pad = (after - first).days, dt.timedelta(days=7)
    engine = create_engine(load_settings().database_url)

    def overlapping(conn, start, end):
        query = sa.select(sa.func.count()).select_from(events).where(events.c.start_local < end, events.c.end_local >= start)
        return conn.execute(query).scalar_one()

    with engine.begin() as conn:
        if overlapping(conn, first - pad, after + pad):
            raise SystemExit(f"{sys.argv[1]} (and the week around it) already holds events")
        # Events whose venue and organizers are all among the first ``linked`` of each (as many as
        # the small site has): the month then links as many distinct posts on every site (seed-demo
        # makes count // 20 venues and organizers, so any 300 events of the large site would link
        # about 500 of them, against 100 on the small one, and its page would show more).
        first_ones = [sa.select(posts.c.id).where(posts.c.type == kind).order_by(posts.c.id).limit(linked).scalar_subquery()
                      for kind in (VENUE_TYPE, ORGANIZER_TYPE)]
        outside = sa.select(event_links.c.event_id).where(event_links.c.event_id == events.c.post_id,
                                                          *(event_links.c.linked_id.not_in(ids) for ids in first_ones))
        columns = (events.c.post_id, events.c.start_local, events.c.end_local, events.c.start_utc, events.c.end_utc)
        rows = conn.execute(sa.select(*columns).where(~outside.exists()).order_by(events.c.post_id)).all()
        # Spread evenly over those (as a month's events, created at different times, lie in the table).
        rows = [rows[number * len(rows) // count] for number in range(count)] if len(rows) > count else rows
        if len(rows) < count:  # not enough such events: any others
            taken = [row.post_id for row in rows]
            rows += conn.execute(sa.select(*columns).where(events.c.post_id.not_in(taken)).order_by(events.c.post_id)
                                 .limit(count - len(rows))).all()
        if len(rows) < count:
            raise SystemExit(f"only {len(rows)} events stored, {count} wanted")
        moved = []
        for number, row in enumerate(rows):
            # A whole number of days, the same on the four columns: durations and local/UTC offsets stay.
            shift = dt.timedelta(days=((first + dt.timedelta(days=number % days)).date() - row.start_local.date()).days)
            moved.append({"id_": row.post_id, "sl": row.start_local + shift, "el": row.end_local + shift,
                          "su": row.start_utc + shift, "eu": row.end_utc + shift})
        conn.execute(sa.update(events).where(events.c.post_id == sa.bindparam("id_")).values(
            start_local=sa.bindparam("sl"), end_local=sa.bindparam("el"), start_utc=sa.bindparam("su"),
            end_utc=sa.bindparam("eu")), moved)
        # Raw writes bypass the item service: move the content counter so that every cache drops.
        conn.execute(sa.update(counters).where(counters.c.name == "content").values(value=counters.c.value + 1))
        in_month, in_grid = overlapping(conn, first, after), overlapping(conn, first - pad, after + pad)
        total = conn.execute(sa.select(sa.func.count()).select_from(events)).scalar_one()
        distinct = conn.execute(sa.select(event_links.c.kind, sa.func.count(sa.distinct(event_links.c.linked_id)))
                                .where(event_links.c.event_id.in_([row.post_id for row in rows]))
                                .group_by(event_links.c.kind)).all()
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execute(sa.text("ANALYZE events"))
            conn.commit()
    engine.dispose()
    found = dict(distinct)
    print(in_month, in_grid, total, found.get("venue", 0), found.get("organizer", 0))
    """
)


def target_month(today: dt.date) -> str:
    index = today.year * 12 + today.month - 1 + MONTHS_AHEAD
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def seed(side: Side, count: int, seed_value: int, month: str, month_events: int, linked: int) -> float:
    """seed-demo, then ``month_events`` events moved into ``month`` (preferably ones linking only the
    first ``linked`` venues and organizers); asserts that exactly that many overlap it (and the
    week either side). Returns the seconds it took."""
    started = time.monotonic()
    side.cli("seed-demo", "--events", str(count), "--seed", str(seed_value), "--quiet")
    output = subprocess.run([sys.executable, "-c", MOVE, month, str(month_events), str(linked)], env=side.env(),
                            cwd=side.source, check=True, capture_output=True, text=True).stdout.split()
    in_month, in_grid, total, venues, organizers = (int(value) for value in output)
    if in_month != month_events or in_grid != month_events or total != count:
        raise SystemExit(f"{side.label}: {in_month} events in {month} ({in_grid} with the weeks around), "
                         f"{total} stored; wanted {month_events} of {count}")
    seconds = time.monotonic() - started
    print(f"{side.label} site: {total:,} events stored, {in_month} overlap {month} (none around it), linking "
          f"{venues} venues and {organizers} organizers; seeded in {seconds:.1f}s", flush=True)
    return seconds


def check(label: str, url: str) -> bytes:
    response = httpx.get(url.replace("{n}", "0"), timeout=120)
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code} ({label}) before the benchmark: {response.text[:200]}")
    return response.content


# -- the table ----------------------------------------------------------------------------------


def round_shares(rounds: Sequence[Round], name: str, small: str, large: str) -> list[float]:
    """large req/s / small req/s of one target, round by round (same round, same machine load)."""
    return [r.results[name][large].requests_per_second / r.results[name][small].requests_per_second for r in rounds]


NAME_WIDTH = 52


def heading(rounds: int) -> str:
    return (f"{f'target (median of {rounds} rounds)':<{NAME_WIDTH}} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'errors':>6} {'share':>7} {'of':<9} {'goal':<7} verdict")


def row(name: str, fig: Figures | None, share: float | None, of: str, goal: float | None) -> tuple[str, bool]:
    """One line of the table, and whether it misses its goal (or answered errors)."""
    errors = fig.errors if fig else 0
    missed = (goal is not None and share is not None and share < goal) or errors > 0
    verdict = "" if goal is None and not errors else ("MISSED" if missed else "ok") + (f" ({errors} errors)" if errors else "")
    numbers = (f"{fig.requests_per_second:>8.0f} {fig.p50_ms:>8.2f} {fig.p99_ms:>8.2f} {fig.errors:>6}" if fig
               else f"{'':>8} {'':>8} {'':>8} {'':>6}")
    share_cell = f"{share:>7.1%}" if share is not None else f"{'':>7}"
    goal_cell = f">= {goal:.0%}" if goal is not None else ""
    return (f"{name:<{NAME_WIDTH}} {numbers} {share_cell} {of if share is not None else '':<9} {goal_cell:<7} "
            f"{verdict}").rstrip(), missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of baseline-then-targets; medians are reported")
    parser.add_argument("--connections", type=int, default=16, help="client threads (at most 8 are used)")
    parser.add_argument("--small", type=int, default=1000, help="events on the small site")
    parser.add_argument("--large", type=int, default=100_000, help="events on the large site")
    parser.add_argument("--month-events", type=int, default=300, help="events moved into the target month on each site")
    parser.add_argument("--seed", type=int, default=1, help="seed-demo's random seed (the same for both sites)")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL: each site in a new schema of that database")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args()
    if args.month_events > args.small:
        parser.error("--month-events must not exceed --small")

    month = target_month(dt.datetime.now(dt.UTC).date())
    small_label, large_label = (f"{count // 1000}k" if count % 1000 == 0 else str(count) for count in (args.small, args.large))
    if small_label == large_label:
        parser.error("--small and --large must differ")
    month_cached = MONTH_CACHED.format(events=args.month_events)
    print(f"load generator: python; {args.duration}s x {args.rounds} rounds, {min(args.connections, 8)} client threads, "
          f"one server worker each; target month {month}")
    started = time.monotonic()

    with ExitStack() as stack:
        urls = stack.enter_context(side_databases(args.database_url, [small_label, large_label]))
        small, large = (Side(label, stack.enter_context(tempfile.TemporaryDirectory(prefix=f"calpress-bench-views-{label}-")),
                             urls[label]) for label in (small_label, large_label))
        linked = max(1, min(500, args.small // 20))  # venues (and organizers) seed-demo makes for the small site
        seconds = {side.label: seed(side, count, args.seed, month, args.month_events, linked)
                   for side, count in ((small, args.small), (large, args.large))}
        baseline_url = baseline_running(stack)
        servers = stack.enter_context(running([small, large]))
        paths = {
            month_cached: f"/events/month/{month}/",
            LIST_CACHED: "/events/list/",
            LIST_FRESH: "/events/list/?n={n}",
            MONTH_FRESH: f"/events/month/{month}/?n={{n}}",
        }
        targets: dict[str, dict[str, tuple[str, dict[str, str]]]] = {}
        for name, path in paths.items():
            labels = (small_label,) if name in (month_cached, LIST_CACHED) else (small_label, large_label)
            targets[name] = {label: (servers[label].base + path, {}) for label in labels}
        bodies = {(name, label): check(label, url) for name, by_site in targets.items() for label, (url, _) in by_site.items()}
        for fresh, cached in ((LIST_FRESH, LIST_CACHED), (MONTH_FRESH, month_cached)):
            plain, varied = bodies[cached, small_label], bodies[fresh, small_label]
            if abs(len(plain) - len(varied)) > 0.02 * len(plain):
                print(f"note: {paths[fresh]} renders {len(varied):,} bytes, {paths[cached]} {len(plain):,}")
        rounds = measure_rounds(run_python, baseline_url, targets, args.rounds, args.duration, args.connections)
    elapsed = time.monotonic() - started

    baselines = [r.baseline for r in rounds]
    base = figures(baselines, baselines)
    print("\n" + heading(len(rounds)))
    print(row(BASELINE, base, None, "", None)[0])
    failed = False
    summary: list[dict] = [{"name": BASELINE, **asdict(base)}]
    goals = {month_cached: GOALS[MONTH_CACHED], LIST_CACHED: GOALS[LIST_CACHED], LIST_FRESH: GOALS[LIST_FRESH]}
    for name, goal in goals.items():
        fig = side_figures(rounds, name, small_label)
        line, missed = row(f"{name} ({small_label} stored)", fig, fig.ratio, "baseline", goal)
        print(line)
        failed |= missed
        summary.append({"name": name, "site": small_label, "goal": goal, **asdict(fig)})
    shares: dict[str, float] = {}
    for name, title in ((LIST_FRESH, "4. list, cache defeated"), (MONTH_FRESH, "   month, cache defeated")):
        # The small site's cache-defeated list is target 3, already shown.
        for label in (small_label, large_label) if name == MONTH_FRESH else (large_label,):
            fig = side_figures(rounds, name, label)
            line, missed = row(f"{title} ({label} stored)", fig, fig.ratio, "baseline", None)
            print(line)
            failed |= missed
            summary.append({"name": name, "site": label, **asdict(fig)})
        per_round = round_shares(rounds, name, small_label, large_label)
        shares[name] = statistics.median(per_round)
        spread = f" ({min(per_round):.0%}..{max(per_round):.0%})" if len(per_round) > 1 else ""
        line, missed = row(f"   {title[3:]}: {large_label} vs {small_label}{spread}", None, shares[name],
                           f"{small_label} rate", LARGE_SHARE)
        print(line)
        failed |= missed
        summary.append({"name": f"{name}: {large_label} vs {small_label}", "share": shares[name], "shares": per_round,
                        "goal": LARGE_SHARE})
    print(f"\nseed-demo + move: {', '.join(f'{label} {value:.1f}s' for label, value in seconds.items())}; "
          f"whole run {elapsed:.0f}s")
    print("goals: " + ("all met" if not failed else "MISSED (see the verdicts above)"))
    if args.json:
        Path(args.json).write_text(json.dumps({"month": month, "seed_seconds": seconds, "targets": summary}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
