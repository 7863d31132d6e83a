"""How long each screen of the workspace (/wp-admin/) takes the server (issue 30).

    .venv/bin/python bench/workspace.py [--events 10000] [--media 1000] [--users 100] [--rounds 30]
                                        [--database-url postgresql://postgres@127.0.0.1/test]

A site seeded with ``seed-demo --events N`` (venues, organizers, categories and tags with it),
``--media`` small PNG uploads and ``--users`` users (a fifth of each role but administrator) is
served by ``calpress serve`` on one worker; an administrator logged in through the login form
asks each screen ``--rounds`` times, one request at a time, after one untimed request. Printed:
the median and the 90th percentile per screen, in milliseconds, beside the bare Falcon app's
(bench/baseline_app.py) in the same run, which is what the loopback HTTP itself costs. Goal: every
screen's median under 30 ms; the exit code is non-zero when one misses it.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import Side, baseline_running, seed_site, side_databases, stop  # noqa: E402

GOAL_MS = 30.0
ROLES = ("editor", "author", "contributor", "subscriber")


def png(n: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (32, 24), ((n * 37) % 256, (n * 91) % 256, (n * 53) % 256)).save(buffer, "PNG")
    return buffer.getvalue()


def seed(side: Side, base: str, auth: dict[str, str], media: int, users: int) -> None:
    with httpx.Client(base_url=base, headers=auth, timeout=60) as rest:
        for n in range(media):
            made = rest.post("/wp-json/cms/v2/media", content=png(n),
                             headers={"Content-Type": "image/png", "Content-Disposition": f'attachment; filename="picture-{n}.png"'})
            if made.status_code != 201:
                raise SystemExit(f"could not upload: {made.status_code} {made.text[:200]}")
        for n in range(users):
            role = ROLES[n % len(ROLES)]
            made = rest.post("/wp-json/cms/v2/users", json={"username": f"{role}{n}", "email": f"{role}{n}@example.test",
                                                            "password": "a long password 1", "roles": [role]})
            if made.status_code != 201:
                raise SystemExit(f"could not create a user: {made.status_code} {made.text[:200]}")


def screens(rest: httpx.Client) -> list[tuple[str, str]]:
    event = rest.get("/wp-json/cal/events/v1/events", params={"per_page": 1}).json()["events"][0]["id"]
    post = rest.get("/wp-json/cms/v2/posts", params={"per_page": 1}).json()[0]["id"]
    media = rest.get("/wp-json/cms/v2/media", params={"per_page": 1}).json()
    found = [
        ("dashboard", "/wp-admin/"),
        ("events list", "/wp-admin/edit.php?post_type=cal_events"),
        ("events list, page 50", "/wp-admin/edit.php?post_type=cal_events&paged=50"),
        ("events list, search", "/wp-admin/edit.php?post_type=cal_events&s=music"),
        ("event editor (new)", "/wp-admin/post-new.php?post_type=cal_events"),
        ("event editor", f"/wp-admin/post.php?post={event}&action=edit"),
        ("venues list", "/wp-admin/edit.php?post_type=cal_venue"),
        ("organizers list", "/wp-admin/edit.php?post_type=cal_organizer"),
        ("posts list", "/wp-admin/edit.php"),
        ("post editor", f"/wp-admin/post.php?post={post}&action=edit"),
        ("pages list", "/wp-admin/edit.php?post_type=page"),
        ("media library", "/wp-admin/upload.php"),
        ("media library, list", "/wp-admin/upload.php?mode=list"),
        ("upload", "/wp-admin/media-new.php"),
        ("categories", "/wp-admin/edit-tags.php?taxonomy=category"),
        ("event categories", "/wp-admin/edit-tags.php?taxonomy=cal_events_cat&post_type=cal_events"),
        ("users", "/wp-admin/users.php"),
        ("add user", "/wp-admin/user-new.php"),
        ("profile", "/wp-admin/profile.php"),
        ("general settings", "/wp-admin/options-general.php"),
        ("reading settings", "/wp-admin/options-reading.php"),
        ("calendar settings", "/wp-admin/edit.php?post_type=cal_events&page=cal-events-calendar"),
    ]
    if media:
        found.append(("attachment", f"/wp-admin/upload.php?item={media[0]['id']}"))
    return found


def timed(client: httpx.Client, path: str, rounds: int) -> tuple[list[float], int]:
    client.get(path)
    spent = []
    status = 0
    for _ in range(rounds):
        started = time.perf_counter()
        answer = client.get(path)
        spent.append((time.perf_counter() - started) * 1000)
        status = answer.status_code
    return spent, status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--media", type=int, default=1000)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    missed = False
    with ExitStack() as stack:
        baseline = baseline_running(stack)
        with httpx.Client() as plain:
            base_ms = statistics.median(timed(plain, baseline, args.rounds)[0])
        urls = stack.enter_context(side_databases(args.database_url, ["workspace"])) if args.database_url else {}
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="calpress-workspace-"))
        side = Side("workspace", folder, urls.get("workspace"))
        started = time.monotonic()
        side.cli("seed-demo", "--events", str(args.events), "--seed", "1", "--quiet")
        server = side.serve(1)
        stack.callback(stop, server.process)
        auth = seed_site(side, server.base, "bench")
        seed(side, server.base, auth, args.media, args.users)
        print(f"seeded {args.events:,} events, {args.media:,} media items and {args.users} users in "
              f"{time.monotonic() - started:.0f} s; {'PostgreSQL' if args.database_url else 'SQLite'}, one worker")
        side.cli("user", "update", "bench", "--user_pass=bench-login-secret")
        with httpx.Client(base_url=server.base, timeout=30) as browser:
            login = browser.post("/wp-login.php", data={"log": "bench", "pwd": "bench-login-secret"})
            if login.status_code not in (302, 303):
                raise SystemExit(f"could not log in: {login.status_code}")
            with httpx.Client(base_url=server.base, headers=auth, timeout=30) as rest:
                shown = screens(rest)
            print(f"\nbaseline (bare Falcon) median: {base_ms:.2f} ms\n")
            print(f"{'screen':<28} {'status':>6} {'median ms':>10} {'p90 ms':>8} {'x base':>8}  goal < {GOAL_MS:.0f} ms")
            for name, path in shown:
                spent, status = timed(browser, path, args.rounds)
                median = statistics.median(spent)
                p90 = statistics.quantiles(spent, n=10)[-1]
                bad = median >= GOAL_MS or status != 200
                missed |= bad
                print(f"{name:<28} {status:>6} {median:>10.1f} {p90:>8.1f} {median / base_ms:>7.1f}x  {'MISSED' if bad else 'ok'}")
    print("\ngoal:", "missed" if missed else "met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
