"""Search benchmark (issue 9, defect 6): anonymous searches at 100,000 events, with the
substring index (migration 0005) against a revision without it, in one run.

    .venv/bin/python bench/search.py --before REF [--events 100000] [--words 60] [--rounds 5] [--database-url URL]
    .venv/bin/python bench/search.py [--events 100000] ...   (this tree alone, no ratios)

Each side gets its own data (``seed-demo --events N``, then every description lengthened by
``--words`` words of filler, the same text on both sides, written with plain SQL so that any
revision can be seeded alike) and its own ``calpress serve``. Every round asks each search once
per side, the side order alternating, with the round number in the query so that no answer or
total cache serves it. The table shows each target's median and worst time in ms per side and
after/before (median before ms / median after ms: above 1.0, the working tree is faster). The
goal, checked on the after side: no anonymous search slower than --goal-ms (default 500 ms).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import textwrap
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import AFTER, BEFORE, code_under_test, running  # noqa: E402  (bench/ is a folder of scripts)

TARGETS = {
    "rare word, every type": "/wp-json/cms/v2/search?search=zq{n}harbour",
    "common word, every type": "/wp-json/cms/v2/search?search=music&page={n}",
    "common word, deep page": "/wp-json/cms/v2/search?search=evening&page={deep}",
    "nine words": "/wp-json/cms/v2/search?search=free+music+park+friends+garden+river+tour+stage+x{n}",
    "1,000 characters": "/wp-json/cms/v2/search?search={long}",
    "events: rare word": "/wp-json/cal/events/v1/events?search=zq{n}lantern",
    "events: common word, deep page": "/wp-json/cal/events/v1/events?search=concert&page={deep}",
    "events: two letters (no trigram)": "/wp-json/cal/events/v1/events?search=q{n}",
}

FILLER = (
    "the a of and to in for with on at by from our this your all new local free open friendly evening morning "
    "afternoon weekend community music art food drinks family kids adults beginners experts welcome join us "
    "tickets available door entry limited seats bring friends enjoy learn meet share discover great fun live "
    "band stage garden hall library park museum center studio room floor building street square river lake "
    "season summer winter spring autumn festival workshop class talk tour walk run ride game match concert"
).split()

PAD = textwrap.dedent(
    """
    import random, sys
    import sqlalchemy as sa
    from calpress.config import load_settings
    from calpress.store.db import create_engine
    words, filler = int(sys.argv[1]), sys.argv[2].split()
    engine = create_engine(load_settings().database_url)
    with engine.begin() as conn:
        ids = [row[0] for row in conn.execute(sa.text("SELECT id FROM posts ORDER BY id"))]
    for start in range(0, len(ids), 5000):
        rows = []
        for post_id in ids[start:start + 5000]:
            rng = random.Random(post_id)
            rows.append({"id": post_id, "more": " " + " ".join(rng.choices(filler, k=words))})
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE posts SET content = content || :more WHERE id = :id"), rows)
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execute(sa.text("ANALYZE posts"))
            conn.commit()
    engine.dispose()
    """
)


def seed(side, events: int, words: int) -> float:
    started = time.monotonic()
    side.cli("seed-demo", "--events", str(events), "--quiet")
    if words:
        subprocess.run([sys.executable, "-c", PAD, str(words), " ".join(FILLER)], env=side.env(), cwd=side.source, check=True)
    return time.monotonic() - started


def timed(url: str) -> float:
    started = time.perf_counter()
    response = httpx.get(url, timeout=120)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}: {response.text[:200]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="also serve this git revision and report after/before")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--words", type=int, default=60, help="filler words added to each description")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--goal-ms", type=float, default=500.0)
    parser.add_argument("--database-url", help="PostgreSQL URL (each side in its own schema); default SQLite")
    args = parser.parse_args(argv)

    with code_under_test(args.before, args.database_url) as code, ExitStack() as stack:
        sides = code.sides(stack, "search")
        for side in sides:
            print(f"seeding {side.label}: {args.events:,} events, {args.words} filler words each ... ", end="", flush=True)
            print(f"{seed(side, args.events, args.words):.0f} s", flush=True)
        times: dict[tuple[str, str], list[float]] = {}
        with running(sides) as servers:
            labels = list(servers)
            for n in range(1, args.rounds + 1):
                order = labels if n % 2 else labels[::-1]
                values = {"n": n, "deep": 2000 + n, "long": "x" * 996 + f"{n:04d}"}
                for name, template in TARGETS.items():
                    path = template.format(**values)
                    for label in order:
                        times.setdefault((name, label), []).append(timed(servers[label].base + path))

    print(f"\n{'target (anonymous)':34} {'side':7} {'median ms':>10} {'worst ms':>10}  after/before")
    missed = []
    for name in TARGETS:
        medians = {}
        for label in labels:
            values = times[(name, label)]
            medians[label] = statistics.median(values)
            print(f"{name if label == labels[0] else '':34} {label:7} {medians[label]:10.1f} {max(values):10.1f}", end="")
            if label in (AFTER, "calpress") and max(values) > args.goal_ms:
                missed.append(name)
            if label == labels[-1] and BEFORE in medians and AFTER in medians:
                print(f"  {medians[BEFORE] / medians[AFTER]:.2f}x faster" if medians[AFTER] else "", end="")
            print()
    print(f"\ngoal: every anonymous search under {args.goal_ms:.0f} ms on the {'after' if args.before else 'served'} side: "
          + ("met" if not missed else "MISSED for " + ", ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
