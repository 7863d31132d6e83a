"""Batch and oEmbed benchmark (issue 12): two performance goals against a real ``calpress serve``
(one worker), each compared with a baseline measured in the same run.

    .venv/bin/python bench/batch_embed.py [--rounds 7] [--duration 4] [--connections 16] [--database-url URL] [--json results.json]

The site gets an administrator with an application password (Basic auth) and 12 published posts,
as bench/run.py seeds it (``seed_site``). Then:

1. Batch against sequential: ``POST /batch/v1`` with 25 entries ``{"method": "POST", "path":
   "/cms/v2/posts", "body": {"title": <unique>, "status": "draft"}}`` against the same 25 ``POST
   /cms/v2/posts`` sent one after another on one kept-alive connection (one ``httpx.Client``,
   used by both and warmed up first, so that neither pays for a connection). Each round times
   both, the batch first in the 1st, 3rd... round and the sequential requests first in the
   others, after one unmeasured warm-up round. Every answer is checked (207 with 25 envelopes of
   status 201; 25 x 201), and then that the 50 drafts exist with their titles (one listing,
   ``include=<ids>``, outside the timings). Goal: batch ms / sequential ms <= 1.0, the median
   over rounds of each round's own ratio. The wall time includes the client's sending and
   reading, not its JSON decoding.
2. oEmbed of a cached item against the bare baseline: ``GET /oembed/1.0/embed?url=<the link of a
   published post>``, the same URL over and over. The route is never in the engine's answer cache
   (every answer carries a fresh secret for its frame); "cached" is the item asked again, whose
   answer is kept by the route itself while the content is unchanged, a new secret put in
   each time (api/oembed.py). Measured with bench/run.py's Python client (threads over keep-alive
   connections, bounded in time and count) for the baseline too, with the same connections and
   duration, in --rounds rounds alternating which goes first. The answers are checked before
   and after the load (200, JSON, ``html`` holding ``data-secret``, a new secret each time).
   Goal: >= 20% of the baseline's requests/s (median of each round's own ratio), no errors.

The batch leg runs first: its writes move the content counter, which would drop the item caches
the oEmbed leg reads. With --database-url (PostgreSQL), the site lives in a new schema of that
database, dropped at the end. The exit code is non-zero when a goal is missed, an answer is
wrong, or the load answered errors. The default run takes about a minute and a half.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # noqa: E402  (bench/ is a folder of scripts, not a package)
    BASELINE,
    Round,
    Side,
    baseline_running,
    figures,
    run_python,
    running,
    seed_site,
    side_databases,
    side_figures,
)

BATCH_SIZE = 25  # the reference's (and calpress's default) most requests one batch may carry
BATCH_GOAL = 1.0  # batch ms / sequential ms must not exceed this
EMBED_GOAL = 0.20  # oEmbed requests/s as a share of the baseline's
EMBED = "GET /oembed/1.0/embed (cached item)"
LABEL = "calpress"
POSTS = "/wp-json/cms/v2/posts"
SECRET = re.compile(r'data-secret="([^"]+)"')


# -- 1. batch against sequential ------------------------------------------------------------------


@dataclass(frozen=True)
class BatchRound:
    batch_ms: float
    sequential_ms: float
    batch_first: bool

    @property
    def ratio(self) -> float:
        return self.batch_ms / self.sequential_ms


def entries(token: str) -> list[dict]:
    return [{"method": "POST", "path": "/cms/v2/posts", "body": {"title": f"{token} {number}", "status": "draft"}}
            for number in range(BATCH_SIZE)]


def timed_batch(client: httpx.Client, token: str) -> tuple[float, dict[int, str]]:
    """One ``POST /batch/v1`` of 25 creations: (ms, {id: title}), the answer checked."""
    requests = entries(token)
    started = time.perf_counter()
    response = client.post("/wp-json/batch/v1", json={"requests": requests})
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 207:
        raise SystemExit(f"POST /batch/v1 answered {response.status_code}: {response.text[:300]}")
    answers = response.json().get("responses") or []
    statuses = [answer.get("status") for answer in answers]
    if len(answers) != BATCH_SIZE or any(status != 201 for status in statuses):
        raise SystemExit(f"POST /batch/v1: {len(answers)} envelopes, statuses {statuses}; wanted {BATCH_SIZE} x 201")
    created = {answer["body"]["id"]: answer["body"]["title"]["raw"] for answer in answers}
    wanted = [entry["body"]["title"] for entry in requests]
    if list(created.values()) != wanted:
        raise SystemExit(f"POST /batch/v1 created {list(created.values())[:3]}..., wanted {wanted[:3]}...")
    return elapsed, created


def timed_sequential(client: httpx.Client, token: str) -> tuple[float, dict[int, str]]:
    """The same 25 creations as 25 ``POST /cms/v2/posts`` one after another: (ms, {id: title})."""
    bodies = [entry["body"] for entry in entries(token)]
    responses = []
    started = time.perf_counter()
    for body in bodies:
        responses.append(client.post(POSTS, json=body))
    elapsed = (time.perf_counter() - started) * 1000
    created = {}
    for body, response in zip(bodies, responses):
        if response.status_code != 201:
            raise SystemExit(f"POST /cms/v2/posts answered {response.status_code}: {response.text[:300]}")
        item = response.json()
        if item["title"]["raw"] != body["title"] or item["status"] != "draft":
            raise SystemExit(f"POST /cms/v2/posts created {item['title']['raw']!r} ({item['status']}), wanted {body['title']!r}")
        created[item["id"]] = item["title"]["raw"]
    return elapsed, created


def check_stored(client: httpx.Client, created: dict[int, str]) -> None:
    """Every post the round created is stored, a draft with its title (one listing by ids)."""
    params = {"include": ",".join(map(str, created)), "status": "draft", "context": "edit", "per_page": 100}
    response = client.get(POSTS, params=params)
    if response.status_code != 200:
        raise SystemExit(f"listing the created posts answered {response.status_code}: {response.text[:300]}")
    stored = {item["id"]: item["title"]["raw"] for item in response.json()}
    if stored != created:
        missing = sorted(set(created) - set(stored))
        raise SystemExit(f"{len(stored)} of the {len(created)} created posts listed (missing ids {missing[:5]}...)")


def batch_leg(base: str, auth: dict[str, str], rounds: int, run_id: str) -> list[BatchRound]:
    """An unmeasured warm-up round, then ``rounds`` rounds of batch and sequential, alternating
    which goes first, on one kept-alive connection."""
    measured = []
    with httpx.Client(base_url=base, headers=auth, timeout=120) as client:
        if client.get("/wp-json/cms/v2/users/me").status_code != 200:
            raise SystemExit("GET /cms/v2/users/me with the application password did not answer 200")
        for number in range(rounds + 1):
            batch_first = number % 2 == 1  # round 0 is the warm-up; the 1st measured round starts with the batch
            times: dict[str, float] = {}
            created: dict[int, str] = {}
            for kind in (("batch", "sequential") if batch_first else ("sequential", "batch")):
                timed = timed_batch if kind == "batch" else timed_sequential
                times[kind], ids = timed(client, f"Batch bench {run_id} round {number} {kind}")
                created.update(ids)
            check_stored(client, created)
            if number:
                measured.append(BatchRound(times["batch"], times["sequential"], batch_first))
    return measured


# -- 2. oEmbed against the baseline ---------------------------------------------------------------


def published_link(base: str) -> str:
    """The link of a published post, as the anonymous listing gives it."""
    response = httpx.get(base + POSTS, params={"per_page": 1})
    items = response.json() if response.status_code == 200 else []
    if not items:
        raise SystemExit(f"no published post listed: {response.status_code} {response.text[:200]}")
    return items[0]["link"]


def check_embed(url: str, link: str) -> list[str]:
    """Two answers of the embed URL, checked (200 JSON, rich, html with data-secret, a fresh secret
    each): their secrets."""
    secrets = []
    for _ in range(2):
        response = httpx.get(url, timeout=30)
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or not kind.startswith("application/json"):
            raise SystemExit(f"{url} answered {response.status_code} ({kind}): {response.text[:300]}")
        data = response.json()
        found = SECRET.search(str(data.get("html") or ""))
        if data.get("type") != "rich" or found is None or html.escape(link) not in data["html"]:
            raise SystemExit(f"{url}: not the embed of {link} with a data-secret: {response.text[:300]}")
        secrets.append(found.group(1))
    if secrets[0] == secrets[1]:
        raise SystemExit(f"{url}: two answers with the same secret {secrets[0]!r} (an answer cache served it?)")
    return secrets


def embed_leg(baseline_url: str, url: str, rounds: int, duration: int, connections: int) -> list[Round]:
    """Rounds of the baseline and the embed URL, the baseline first in the 1st, 3rd... round."""
    measured = []
    for number in range(rounds):
        order = ("baseline", "embed") if number % 2 == 0 else ("embed", "baseline")
        results = {}
        for kind in order:
            results[kind] = (run_python(BASELINE, baseline_url, {}, duration, connections) if kind == "baseline"
                             else run_python(EMBED, url, {}, duration, connections))
        measured.append(Round(results["baseline"], {EMBED: {LABEL: results["embed"]}}))
    return measured


# -- the report -----------------------------------------------------------------------------------


def spread(values: Sequence[float], fmt: str) -> str:
    return f"({min(values):{fmt}}..{max(values):{fmt}})" if len(values) > 1 else ""


def report_batch(measured: Sequence[BatchRound]) -> tuple[dict, bool]:
    batch = [r.batch_ms for r in measured]
    sequential = [r.sequential_ms for r in measured]
    ratios = [r.ratio for r in measured]
    ratio = statistics.median(ratios)
    missed = ratio > BATCH_GOAL
    print(f"\n1. {BATCH_SIZE} post creations (median of {len(measured)} rounds)     {'ms':>8} {'ms/post':>8}  spread (ms)")
    for title, values in ((f"POST /batch/v1, {BATCH_SIZE} entries", batch),
                          (f"{BATCH_SIZE} x POST /cms/v2/posts, one connection", sequential)):
        median = statistics.median(values)
        print(f"   {title:<48} {median:8.1f} {median / BATCH_SIZE:8.2f}  {spread(values, '.1f')}")
    print(f"   {'batch / sequential':<48} {ratio:8.3f} {'':8}  {spread(ratios, '.3f')}  "
          f"goal <= {BATCH_GOAL:.2f} {'MISSED' if missed else 'ok'}")
    summary = {
        "batch_ms": statistics.median(batch), "sequential_ms": statistics.median(sequential), "ratio": ratio,
        "goal": BATCH_GOAL, "met": not missed,
        "rounds": [{**asdict(r), "ratio": r.ratio} for r in measured],
    }
    return summary, missed


def report_embed(measured: Sequence[Round]) -> tuple[dict, bool]:
    baselines = [r.baseline for r in measured]
    base = figures(baselines, baselines)
    embed = side_figures(measured, EMBED, LABEL)
    missed = embed.ratio < EMBED_GOAL or embed.errors > 0
    print(f"\n2. {'oEmbed (median of ' + str(len(measured)) + ' rounds)':<48} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'errors':>6} {'ratio':>7}  spread")
    for name, fig, goal in ((BASELINE, base, None), (EMBED, embed, EMBED_GOAL)):
        verdict = "" if goal is None else f"goal >= {goal:.0%} {'MISSED' if missed else 'ok'}"
        print(f"   {name:<48} {fig.requests_per_second:8.0f} {fig.p50_ms:8.2f} {fig.p99_ms:8.2f} {fig.errors:6} "
              f"{fig.ratio:7.1%}  {spread(fig.ratios, '.1%') if goal else ''}  {verdict}".rstrip())
    summary = {"baseline": asdict(base), "embed": asdict(embed), "goal": EMBED_GOAL, "met": not missed}
    return summary, missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7, help="measured rounds of each leg; medians are reported")
    parser.add_argument("--duration", type=int, default=4, help="seconds per oEmbed/baseline measurement")
    parser.add_argument("--connections", type=int, default=16, help="oEmbed client threads (at most 8 are used)")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL: the site in a new schema of that database")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args()
    if args.rounds < 1 or args.duration < 1:
        parser.error("--rounds and --duration must be at least 1")

    database = "postgresql" if args.database_url else "sqlite"
    print(f"calpress serve, one worker, on {database}; batch: {args.rounds} rounds (+1 warm-up) of {BATCH_SIZE} creations "
          f"each way; oEmbed: python client, {args.duration}s x {args.rounds} rounds, {min(args.connections, 8)} threads",
          flush=True)
    started = time.monotonic()
    with ExitStack() as stack:
        urls = stack.enter_context(side_databases(args.database_url, [LABEL]))
        side = Side(LABEL, stack.enter_context(tempfile.TemporaryDirectory(prefix="calpress-bench-batch-")), urls[LABEL])
        baseline_url = baseline_running(stack)
        base = stack.enter_context(running([side]))[LABEL].base
        run_id = f"{int(time.time())}"
        auth = seed_site(side, base, f"bench{run_id}")

        batch_rounds = batch_leg(base, auth, args.rounds, run_id)

        link = published_link(base)
        embed_url = f"{base}/wp-json/oembed/1.0/embed?url={quote(link, safe='')}"
        check_embed(embed_url, link)
        embed_rounds = embed_leg(baseline_url, embed_url, args.rounds, args.duration, args.connections)
        check_embed(embed_url, link)
    elapsed = time.monotonic() - started

    batch_summary, batch_missed = report_batch(batch_rounds)
    embed_summary, embed_missed = report_embed(embed_rounds)
    print(f"\noEmbed URL: /wp-json/oembed/1.0/embed?url={link}; whole run {elapsed:.0f}s")
    print("goals: " + ("all met" if not (batch_missed or embed_missed) else "MISSED (see the verdicts above)"))
    if args.json:
        Path(args.json).write_text(json.dumps({"database": database, "batch": batch_summary, "oembed": embed_summary,
                                               "seconds": elapsed}, indent=2))
    return 1 if batch_missed or embed_missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
