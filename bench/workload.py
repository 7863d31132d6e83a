"""Writes and a mixed workload (issue 14), against the bare Falcon baseline in the same run.

    .venv/bin/python bench/workload.py [--duration 10] [--events 1000] [--workers 1,2,4]
                                       [--database-url postgresql://postgres@127.0.0.1/test]
                                       [--only creates|mixed] [--rounds 1]

Two measurements, on SQLite and, with --database-url, on PostgreSQL too (a new schema per site,
dropped at the end), each on a new site seeded with ``seed-demo --events N`` and bench/run.py's
administrator, 12 posts and 12 pages:

* **creates**: 16 connections creating posts as fast as they are answered (unique titles,
  published, an application password's Basic auth on every request), on 2 server workers, then
  events alike (an existing venue and organizer, two categories); reported as creations/s beside
  the baseline's requests/s, with the creates answered 201 that the listing's X-WP-Total does not
  count ("not stored"). Goals (issue 35): posts >= 1,500/s on SQLite and >= 800/s on PostgreSQL,
  events at >= 60% of the post rate, no error, nothing lost. ``--rounds N`` measures N rounds,
  each after a measurement of the baseline, and shows and judges their medians (with each
  round's rate): on a busy machine one 8-second run of the same code varied by about 20%.
* **mixed**: 8 connections, each request drawn at random: 70% event lists with varied filters
  (page size, page, a start date, a category, featured, a search word: some combinations
  repeat, most do not, so the answer cache serves some), 20% single items (an event or a post),
  10% writes (creates and updates of events and posts, half each). Run with 1, 2 and 4 server
  workers (--workers); reported as requests/s, p50 and p99 overall and per kind, and errors.
  Goals: no errors; the event lists' p99 under 50 ms on 2 workers.

The load generator is a small asyncio HTTP/1.1 client in this process (keep-alive connections,
one request at a time each, latencies taken per request and kind), the same one measuring the
baseline, so the ratio compares like with like. It shares the machine with the servers, as wrk
does in the other benchmarks. The exit code is non-zero when a goal is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # noqa: E402  (bench/ is a folder of scripts, not a package)
    Side,
    baseline_running,
    seed_site,
    side_databases,
    stop,
)

CREATE_GOALS = {"sqlite": 1500.0, "postgresql": 800.0}
# An event create (existing venue, organizer, two categories): this share of the post-create rate.
EVENT_CREATE_SHARE = 0.6
LIST_P99_MS = 50.0
WRITERS = 16
MIXED_CONNECTIONS = 8
SEARCH_WORDS = ("music", "film", "talk", "market", "night", "open", "garden")

# One request: (kind, method, path with query, body or None, authenticated).
Request = tuple[str, str, str, bytes | None, bool]


# -- a small HTTP/1.1 client ---------------------------------------------------------------------


@dataclass
class Tally:
    """Latencies (seconds) per kind of request, and errors (status >= 400 or a broken connection)."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)  # the first few failed requests, to show

    def merge(self, other: Tally) -> None:
        """Add another run's tally to this one."""
        for kind, values in other.latencies.items():
            self.latencies.setdefault(kind, []).extend(values)
        for kind, count in other.errors.items():
            self.errors[kind] = self.errors.get(kind, 0) + count
        for status, count in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + count
        self.failed.extend(other.failed[: max(0, 5 - len(self.failed))])


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """Read one response: (status, whether the connection stays open)."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("connection closed")
    status = int(status_line.split(b" ", 2)[1])
    length, chunked, keep = 0, False, True
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip())
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        elif name == b"connection" and value.strip().lower() == b"close":
            keep = False
    if chunked:
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    elif length:
        await reader.readexactly(length)
    return status, keep


async def _connection(host: str, port: int, auth: str, draw: Callable[[], Request], stop_at: float, tally: Tally) -> None:
    reader = writer = None
    while time.monotonic() < stop_at:
        kind, method, path, body, authed = draw()
        if writer is None:
            reader, writer = await asyncio.open_connection(host, port)
        head = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}"]
        if authed:
            head.append(f"Authorization: {auth}")
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        started = time.perf_counter()
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + (body or b""))
            status, keep = await _read_response(reader)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
            status, keep = 599, False
        tally.latencies.setdefault(kind, []).append(time.perf_counter() - started)
        tally.statuses[status] = tally.statuses.get(status, 0) + 1
        if status >= 400:
            tally.errors[kind] = tally.errors.get(kind, 0) + 1
            if len(tally.failed) < 5:
                tally.failed.append(f"{status} {method} {path}")
        if not keep:
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


def load(base: str, draw: Callable[[], Request], connections: int, duration: float, auth: str = "") -> tuple[Tally, float]:
    """Run ``connections`` keep-alive connections against ``base`` for ``duration`` seconds:
    (tally, elapsed seconds)."""
    parts = urlsplit(base)
    tally = Tally()

    async def main() -> float:
        started = time.monotonic()
        stop_at = started + duration
        await asyncio.gather(*(_connection(parts.hostname, parts.port, auth, draw, stop_at, tally) for _ in range(connections)))
        return time.monotonic() - started

    return tally, asyncio.run(main())


def quantile_ms(values: list[float], q: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0] * 1000
    return statistics.quantiles(values, n=100)[q - 1] * 1000


# -- sites --------------------------------------------------------------------------------------


@dataclass
class Site:
    side: Side
    auth: str
    events: list[int]
    posts: list[int]
    categories: list[int]


def discover(base: str) -> tuple[list[int], list[int], list[int]]:
    """Event, post and category ids of a served site."""
    api = base + "/wp-json"
    events = [e["id"] for page in (1, 2) for e in httpx.get(f"{api}/cal/events/v1/events?per_page=50&page={page}").json()["events"]]
    posts = [p["id"] for p in httpx.get(f"{api}/cms/v2/posts?per_page=30").json()]
    categories = [c["id"] for c in httpx.get(f"{api}/cal/events/v1/categories?per_page=50").json().get("categories", [])]
    if not events or not posts or not categories:
        raise SystemExit("the seeded site has no events, posts or categories")
    return events, posts, categories


@contextmanager
def serving(side: Side, workers: int) -> Iterator[str]:
    server = side.serve(workers)
    try:
        yield server.base
    finally:
        stop(server.process)


# -- what is asked --------------------------------------------------------------------------------


def creates() -> Callable[[], Request]:
    counter = iter(range(10**9))

    def draw() -> Request:
        body = json.dumps({"title": f"Bench create {next(counter)} {random.random():.9f}", "status": "publish"}).encode()
        return "create post", "POST", "/wp-json/cms/v2/posts", body, True

    return draw


def event_creates(venue: int, organizer: int, categories: list[int]) -> Callable[[], Request]:
    """Published events with an existing venue, organizer and two categories, a day each."""
    counter = iter(range(10**9))

    def draw() -> Request:
        n = next(counter)
        day = f"2028-{n % 12 + 1:02d}-{n % 28 + 1:02d}"
        body = json.dumps({"title": f"Bench event {n} {random.random():.9f}", "status": "publish",
                           "start_date": f"{day} 10:00:00", "end_date": f"{day} 12:00:00",
                           "venue": venue, "organizer": [organizer], "categories": categories}).encode()
        return "create event", "POST", "/wp-json/cal/events/v1/events", body, True

    return draw


def stored_total(base: str, auth: str, rest_base: str) -> int:
    """How many items of a type are stored, any status (X-WP-Total of its cms/v2 listing)."""
    answer = httpx.get(f"{base}/wp-json/cms/v2/{rest_base}?per_page=1&status=any&context=edit", headers={"Authorization": auth})
    answer.raise_for_status()
    return int(answer.headers["X-WP-Total"])


def linked_for_events(base: str, auth: str, categories: list[int]) -> tuple[int, int]:
    """A venue and an organizer to link bench events to (made once)."""
    headers = {"Authorization": auth}
    venue = httpx.post(f"{base}/wp-json/cal/events/v1/venues", json={"venue": "Bench hall"}, headers=headers)
    organizer = httpx.post(f"{base}/wp-json/cal/events/v1/organizers", json={"organizer": "Bench people"}, headers=headers)
    venue.raise_for_status()
    organizer.raise_for_status()
    if len(categories) < 2:
        raise SystemExit("the seeded site has fewer than two event categories")
    return venue.json()["id"], organizer.json()["id"]


# The cms/v2 listing that counts each kind of create.
REST_BASES = {"posts": "posts", "events": "cal_events"}


def measure_creates(database: str, label: str, base: str, auth: str, draw: Callable[[], Request], baseline_url: str,
                    duration: float, goal: float, goal_text: str, results: list[dict], rounds: int = 1) -> tuple[float, bool]:
    """Run ``draw``'s creates for ``duration`` with WRITERS connections, ``rounds`` times, each
    after a measurement of the baseline, and print their line: (creates/s, the median of the
    rounds; whether it reached ``goal`` with no create failed and none lost)."""
    before = stored_total(base, auth, REST_BASES[label])
    rates: list[float] = []
    ratios: list[float] = []
    baselines: list[float] = []
    answered = 0
    tally = Tally()
    for _ in range(rounds):
        baselines.append(base_rps := baseline_rate(baseline_url, WRITERS, duration))
        round_tally, elapsed = load(base, draw, WRITERS, duration, auth)
        created = round_tally.statuses.get(201, 0)
        answered += created
        rates.append(created / elapsed)
        ratios.append(created / elapsed / base_rps)
        tally.merge(round_tally)
    lost = answered - (stored_total(base, auth, REST_BASES[label]) - before)
    rate = statistics.median(rates)
    ratio = statistics.median(ratios)
    base_rps = statistics.median(baselines)
    ok = rate >= goal and not tally.errors and lost == 0
    for failure in tally.failed:
        print(f"    failed: {failure}")
    latencies = [x for values in tally.latencies.values() for x in values]
    name = f"{database}: {label} created, {WRITERS} writers, 2 workers"
    spread = f"; rounds {', '.join(f'{r:.0f}' for r in rates)}/s" if rounds > 1 else ""
    print(f"{name:<44} {rate:>8.0f} {quantile_ms(latencies, 50):>8.2f} {quantile_ms(latencies, 99):>8.2f} "
          f"{sum(tally.errors.values()):>7}  {ratio:>6.1%}  {goal_text} {'ok' if ok else 'MISSED'}"
          f"  (baseline {base_rps:.0f} req/s; {answered} answered 201, {lost} not stored{spread})")
    results.append({"database": database, "measurement": f"{label} creates", "per_second": rate, "rounds": rates,
                    "errors": tally.errors, "lost": lost, "baseline_requests_per_second": base_rps, "ratio": ratio})
    return rate, ok


def mixed(site: Site, rng: random.Random) -> Callable[[], Request]:
    counter = iter(range(10**9))

    def event_list() -> Request:
        query = [f"per_page={rng.choice((5, 10, 10, 20))}"]
        if rng.random() < 0.5:
            query.append(f"start_date=2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
        narrowed = False
        if rng.random() < 0.25:
            query.append(f"categories={rng.choice(site.categories)}")
            narrowed = True
        if rng.random() < 0.1:
            query.append("featured=true")
            narrowed = True
        if rng.random() < 0.1:
            query.append(f"search={quote(rng.choice(SEARCH_WORDS))}")
            narrowed = True
        # Later pages only of the wide listings: a narrowed one may have a single page, and a
        # page past the last is a 404 (event-archive-page-not-found), which would count as an error.
        query.append(f"page={1 if narrowed else rng.choice((1, 1, 1, 2, 3))}")
        return "event list", "GET", "/wp-json/cal/events/v1/events?" + "&".join(query), None, False

    def single() -> Request:
        if rng.random() < 0.5:
            return "single", "GET", f"/wp-json/cal/events/v1/events/{rng.choice(site.events)}", None, False
        return "single", "GET", f"/wp-json/cms/v2/posts/{rng.choice(site.posts)}", None, False

    def write() -> Request:
        n = next(counter)
        choice = rng.random()
        if choice < 0.25:
            day = rng.randint(1, 28)
            body = {"title": f"Workload event {n}", "start_date": f"2027-03-{day:02d} 10:00:00",
                    "end_date": f"2027-03-{day:02d} 12:00:00", "categories": [rng.choice(site.categories)], "status": "publish"}
            return "write", "POST", "/wp-json/cal/events/v1/events", json.dumps(body).encode(), True
        if choice < 0.5:
            body = {"title": f"Workload post {n}", "content": "<p>New.</p>", "status": "publish"}
            return "write", "POST", "/wp-json/cms/v2/posts", json.dumps(body).encode(), True
        if choice < 0.75:
            body = {"title": f"Renamed event {n}"}
            return "write", "POST", f"/wp-json/cal/events/v1/events/{rng.choice(site.events)}", json.dumps(body).encode(), True
        body = {"title": f"Renamed post {n}"}
        return "write", "POST", f"/wp-json/cms/v2/posts/{rng.choice(site.posts)}", json.dumps(body).encode(), True

    def draw() -> Request:
        roll = rng.random()
        return event_list() if roll < 0.7 else single() if roll < 0.9 else write()

    return draw


# -- the run --------------------------------------------------------------------------------------


def baseline_rate(url: str, connections: int, duration: float) -> float:
    path = urlsplit(url).path
    base = url[: -len(path)]
    tally, elapsed = load(base, lambda: ("baseline", "GET", path, None, False), connections, duration)
    return sum(len(v) for v in tally.latencies.values()) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--workers", default="1,2,4", help="worker counts of the mixed workload")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL: also measure there (a new schema per site)")
    parser.add_argument("--json", default=None)
    parser.add_argument("--only", choices=("all", "creates", "mixed"), default="all", help="one measurement only")
    parser.add_argument("--rounds", type=int, default=1,
                        help="creates: this many rounds of --duration seconds, each after the baseline's; medians shown")
    args = parser.parse_args()
    worker_counts = [int(w) for w in args.workers.split(",")]
    databases = ["sqlite"] + (["postgresql"] if args.database_url else [])
    failed = False
    results: list[dict] = []
    with ExitStack() as stack:
        baseline_url = baseline_running(stack)
        urls = stack.enter_context(side_databases(args.database_url, ["workload"])) if args.database_url else {}
        print(f"{args.duration:.0f}s per measurement; {args.events:,} events seeded; client: asyncio in this process")
        print(f"\n{'measurement':<44} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}  {'ratio':>7}  goal")
        for database in databases:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"calpress-workload-{database}-"))
            side = Side(database, folder, urls.get("workload") if database == "postgresql" else None)
            side.cli("seed-demo", "--events", str(args.events), "--seed", "1", "--quiet")
            with serving(side, 2) as base:
                auth = seed_site(side, base, "bench")["Authorization"]  # an administrator, 12 posts and 12 pages
                events, posts, categories = discover(base)
                site = Site(side, auth, events, posts, categories)
                if args.only in ("all", "creates"):
                    venue, organizer = linked_for_events(base, auth, categories)
                    post_rate, posts_ok = measure_creates(database, "posts", base, auth, creates(), baseline_url, args.duration,
                                                CREATE_GOALS[database], f">= {CREATE_GOALS[database]:.0f}/s", results,
                                                rounds=args.rounds)
                    event_goal = EVENT_CREATE_SHARE * post_rate
                    _, events_ok = measure_creates(database, "events", base, auth, event_creates(venue, organizer, categories[:2]),
                                                 baseline_url, args.duration, event_goal,
                                                 f">= {EVENT_CREATE_SHARE:.0%} of post creates ({event_goal:.0f}/s)", results,
                                                 rounds=args.rounds)
                    failed |= not (posts_ok and events_ok)
            if args.only not in ("all", "mixed"):
                continue
            for workers in worker_counts:
                with serving(side, workers) as base:
                    base_rps = baseline_rate(baseline_url, MIXED_CONNECTIONS, args.duration)
                    tally, elapsed = load(base, mixed(site, random.Random(workers)), MIXED_CONNECTIONS, args.duration, auth)
                everything = [x for values in tally.latencies.values() for x in values]
                rate = len(everything) / elapsed
                errors = sum(tally.errors.values())
                lists = tally.latencies.get("event list", [])
                list_p99 = quantile_ms(lists, 99)
                verdict = "" if errors == 0 else "ERRORS"
                if workers == 2:
                    ok = list_p99 < LIST_P99_MS and errors == 0
                    failed |= not ok
                    verdict = f"event-list p99 < {LIST_P99_MS:.0f} ms {'ok' if ok else 'MISSED'}"
                elif errors:
                    failed = True
                name = f"{database}: mixed, {MIXED_CONNECTIONS} connections, {workers} worker{'s' if workers > 1 else ''}"
                print(f"{name:<44} {rate:>8.0f} {quantile_ms(everything, 50):>8.2f} {quantile_ms(everything, 99):>8.2f} "
                      f"{errors:>7}  {rate / base_rps:>6.1%}  {verdict}")
                for failure in tally.failed:
                    print(f"    failed: {failure}")
                for kind in ("event list", "single", "write"):
                    values = tally.latencies.get(kind, [])
                    print(f"{'    ' + kind:<44} {len(values) / elapsed:>8.0f} {quantile_ms(values, 50):>8.2f} "
                          f"{quantile_ms(values, 99):>8.2f} {tally.errors.get(kind, 0):>7}")
                results.append({"database": database, "measurement": "mixed", "workers": workers, "requests_per_second": rate,
                                "p50_ms": quantile_ms(everything, 50), "p99_ms": quantile_ms(everything, 99),
                                "event_list_p99_ms": list_p99, "errors": tally.errors, "statuses": tally.statuses,
                                "baseline_requests_per_second": base_rps})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
