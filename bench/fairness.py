"""One anonymous client against everyone else (issue 29, item 9).

    .venv/bin/python bench/fairness.py [--duration 10] [--events 500] [--heavy 4,16] [--before REF]
                                       [--database-url postgresql://postgres@127.0.0.1/test]

A site seeded with ``seed-demo --events N``, 100 published posts (each with two categories and
a tag) and bench/run.py's administrator is served by ``calpress serve`` on 2 workers. Then:

* **alone**: one visitor (from 127.0.0.3) asks light things one after another, a single post
  (its answer cached) and a single event (with a new unknown parameter each time, so built
  from the database), as a reader of the site would;
* **attacked**: the same visitor while one anonymous client (from 127.0.0.2) keeps ``--heavy``
  connections busy with the heaviest anonymous listings there are, each made uncacheable by a
  new unknown ``_`` parameter: 100 posts with ``_embed``, 100 events of cms/v2 with ``_embed``,
  50 events of cal/events/v1 ("heavy"); then with small uncacheable listings as fast as they
  are answered (20 events, 10 posts: "many").

Each line gives the visitor's p50 and p99 per kind, and the attacker's answers per second and
statuses. The baseline is the bare Falcon app of bench/baseline_app.py, asked the same light
requests alone in the same run: ``x base`` is a p50 over the baseline's p50. Goal: the visitor's
p50 stays under 100 ms with the attacker at every connection count; the exit code is non-zero
when it does not.

The two clients bind different loopback addresses (127.0.0.2, 127.0.0.3: all of 127/8 is the
loopback device on Linux), because the server tells clients apart by address. With ``--before
REF`` the same is measured on that git revision too (exported, as bench/run.py does), side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import baseline_running, code_under_test, seed_site, stop  # noqa: E402
from workload import _read_response  # noqa: E402

GOAL_P50_MS = 100.0
VISITOR = "127.0.0.3"
ATTACKER = "127.0.0.2"


async def _ask(host: str, port: int, source: str, paths, stop_at: float, latencies: dict[str, list[float]],
               statuses: dict[int, int], pause: float = 0.0) -> None:
    """One keep-alive connection from ``source`` asking ``next(paths)`` (kind, path) until ``stop_at``."""
    reader = writer = None
    while time.monotonic() < stop_at:
        kind, path = next(paths)
        if writer is None:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        started = time.perf_counter()
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            status, keep = await _read_response(reader)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
            status, keep = 599, False
        latencies.setdefault(kind, []).append(time.perf_counter() - started)
        statuses[status] = statuses.get(status, 0) + 1
        if not keep:
            writer.close()
            reader = writer = None
        if pause:
            await asyncio.sleep(pause)
    if writer is not None:
        writer.close()


def run(base: str, visitor_paths, attacker_paths, connections: int, duration: float):
    parts = urlsplit(base)
    visitor: dict[str, list[float]] = {}
    attacker: dict[str, list[float]] = {}
    visitor_statuses: dict[int, int] = {}
    attacker_statuses: dict[int, int] = {}

    async def main() -> None:
        stop_at = time.monotonic() + duration
        tasks = [_ask(parts.hostname, parts.port, VISITOR, visitor_paths, stop_at, visitor, visitor_statuses, pause=0.02)]
        tasks += [_ask(parts.hostname, parts.port, ATTACKER, attacker_paths, stop_at, attacker, attacker_statuses)
                  for _ in range(connections)]
        await asyncio.gather(*tasks)

    asyncio.run(main())
    return visitor, visitor_statuses, attacker, attacker_statuses


def ms(values: list[float], q: int) -> float:
    if len(values) < 2:
        return (values[0] * 1000) if values else 0.0
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def light_paths(post: int, event: int):
    counter = itertools.count()
    while True:
        yield "post, cached", f"/wp-json/cms/v2/posts/{post}"
        yield "event, uncached", f"/wp-json/cal/events/v1/events/{event}?_v={next(counter)}"


def heavy_paths():
    counter = itertools.count()
    while True:
        n = next(counter)
        yield "heavy", f"/wp-json/cms/v2/posts?per_page=100&_embed&_z={n}"
        yield "heavy", f"/wp-json/cms/v2/cal_events?per_page=100&_embed&_z={n}"
        yield "heavy", f"/wp-json/cal/events/v1/events?per_page=50&_z={n}"


def many_paths():
    """Small uncacheable reads, as fast as they come: many cheap requests rather than few costly ones."""
    counter = itertools.count()
    while True:
        n = next(counter)
        yield "many", f"/wp-json/cal/events/v1/events?per_page=20&_z={n}"
        yield "many", f"/wp-json/cms/v2/posts?per_page=10&_z={n}"


def seed_posts(base: str, auth: dict[str, str], count: int) -> None:
    api = base + "/wp-json/cms/v2"
    categories = [httpx.post(f"{api}/categories", headers=auth, json={"name": f"Topic {n}"}).json()["id"] for n in range(4)]
    tags = [httpx.post(f"{api}/tags", headers=auth, json={"name": f"Tag {n}"}).json()["id"] for n in range(6)]
    rng = random.Random(1)
    with httpx.Client(headers=auth, timeout=30) as client:
        for number in range(count):
            made = client.post(f"{api}/posts", json={
                "title": f"Fairness post {number}", "status": "publish", "excerpt": "A short excerpt.",
                "content": "<!-- wp:paragraph --><p>" + "Words of a post. " * 40 + "</p><!-- /wp:paragraph -->",
                "categories": rng.sample(categories, 2), "tags": [rng.choice(tags)]})
            if made.status_code != 201:
                raise SystemExit(f"could not create a post: {made.status_code} {made.text[:200]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--heavy", default="4,16", help="connection counts of the attacker")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL: measure there instead of SQLite (a new schema)")
    parser.add_argument("--before", default=None, help="a git revision to measure beside the working tree")
    args = parser.parse_args()
    counts = [int(c) for c in args.heavy.split(",")]
    failed = False
    with ExitStack() as stack:
        baseline = baseline_running(stack)
        base_parts = urlsplit(baseline)
        base_root = f"{base_parts.scheme}://{base_parts.netloc}"

        def base_paths():
            while True:
                yield "post, cached", base_parts.path
                yield "event, uncached", base_parts.path

        alone, _, _, _ = run(base_root, base_paths(), iter(()), 0, min(args.duration, 5))
        base_p50 = {kind: ms(values, 50) for kind, values in alone.items()}
        code = stack.enter_context(code_under_test(args.before, args.database_url))
        database = "postgresql" if args.database_url else "sqlite"
        print(f"{args.duration:.0f}s per measurement; {args.events:,} events, 100 posts; 2 workers; {database}")
        print(f"baseline p50: {base_p50['post, cached']:.2f} ms")
        print(f"\n{'code':<10} {'attacker':<16} {'visitor asks':<17} {'p50 ms':>8} {'p99 ms':>8} {'x base':>7}  "
              f"{'attacker req/s':>14}  statuses")
        for side in code.sides(stack, "fairness"):
            side.cli("seed-demo", "--events", str(args.events), "--seed", "1", "--quiet")
            server = side.serve(2)
            stack.callback(stop, server.process)
            auth = seed_site(side, server.base, "bench")
            seed_posts(server.base, auth, 100)
            post = httpx.get(server.base + "/wp-json/cms/v2/posts?per_page=1").json()[0]["id"]
            event = httpx.get(server.base + "/wp-json/cal/events/v1/events?per_page=1").json()["events"][0]["id"]
            for kind, connections in [("", 0), *(("heavy", c) for c in counts), *(("many", c) for c in counts)]:
                attack = heavy_paths() if kind == "heavy" else many_paths()
                visitor, visitor_statuses, attacker, attacker_statuses = run(
                    server.base, light_paths(post, event), attack, connections, args.duration)
                label = "none" if not connections else f"{kind} x {connections}"
                rate = sum(len(v) for v in attacker.values()) / args.duration
                shown = ", ".join(f"{status}: {count}" for status, count in sorted(attacker_statuses.items()))
                for kind, values in visitor.items():
                    p50 = ms(values, 50)
                    bad = connections and p50 > GOAL_P50_MS and side.label != "before"
                    failed |= bool(bad)
                    print(f"{side.label:<10} {label:<16} {kind:<17} {p50:>8.1f} {ms(values, 99):>8.1f} "
                          f"{p50 / base_p50[kind]:>6.1f}x  {rate:>14.1f}  {shown or '-'}{'  MISSED' if bad else ''}")
                if set(visitor_statuses) - {200}:
                    print(f"    visitor statuses: {visitor_statuses}")
                    failed = True
            stop(server.process)
    print("\ngoal: the visitor's p50 under", GOAL_P50_MS, "ms whatever the attacker does:", "missed" if failed else "met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
