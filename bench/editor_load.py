"""How long the block editor's screens take to load in a browser on a warm cache (issue 31).

    .venv/bin/python bench/editor_load.py [--rounds 10] [--database-url postgresql://postgres@127.0.0.1/test]

A site with one post of many blocks (paragraphs, headings, a list, an image, a quote, a table,
columns) and one event is served by ``calpress serve`` on one worker; headless Chromium (Debian's,
driven by Playwright) logs in and opens each editor once untimed (the browser caches the editor's
files: they are served for a year), then ``--rounds`` times: from the navigation's start until the
page has loaded and the editor shows the item's blocks. Printed: the median and the
slowest load per screen, in milliseconds, beside a plain workspace screen (the posts list, no
editor) loaded the same way in the same run, and their ratio. Goal: every editor screen's median
under 1,500 ms; the exit code is non-zero when one misses it.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import Side, seed_site, side_databases, stop  # noqa: E402

GOAL_MS = 1500.0
BLOCK_EDITOR = ".editor-main .editor .block-editor-block-list__layout"
CONTENT = "\n\n".join([
    "<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">Summer season</h2>\n<!-- /wp:heading -->",
    *[f"<!-- wp:paragraph -->\n<p>Paragraph {n} of the programme, with <strong>bold</strong> words.</p>\n"
      "<!-- /wp:paragraph -->" for n in range(20)],
    "<!-- wp:list -->\n<ul><!-- wp:list-item -->\n<li>Concerts</li>\n<!-- /wp:list-item --></ul>\n<!-- /wp:list -->",
    "<!-- wp:quote -->\n<blockquote class=\"wp-block-quote\"><!-- wp:paragraph -->\n<p>Lovely.</p>\n"
    "<!-- /wp:paragraph --></blockquote>\n<!-- /wp:quote -->",
    "<!-- wp:table -->\n<figure class=\"wp-block-table\"><table><tbody><tr><td>Friday</td><td>Jazz</td></tr></tbody>"
    "</table></figure>\n<!-- /wp:table -->",
    "<!-- wp:columns -->\n<div class=\"wp-block-columns\"><!-- wp:column -->\n<div class=\"wp-block-column\">"
    "<!-- wp:paragraph -->\n<p>Left</p>\n<!-- /wp:paragraph --></div>\n<!-- /wp:column --></div>\n<!-- /wp:columns -->",
])


def load_ms(page, url: str, ready: str) -> float:
    """From the navigation's start until the page has loaded and ``ready`` is shown."""
    page.goto(url, wait_until="load")
    page.wait_for_selector(ready)
    return float(page.evaluate("performance.now()"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Chromium is not installed (scripts/test installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    missed = False
    with ExitStack() as stack:
        urls = stack.enter_context(side_databases(args.database_url, ["editor"])) if args.database_url else {}
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="calpress-editor-"))
        side = Side("editor", folder, urls.get("editor"))
        side.cli("seed-demo", "--events", "50", "--seed", "1", "--quiet")
        server = side.serve(1)
        stack.callback(stop, server.process)
        auth = seed_site(side, server.base, "bench")
        side.cli("user", "update", "bench", "--user_pass=bench-login-secret")
        with httpx.Client(base_url=server.base, headers=auth, timeout=30) as rest:
            post = rest.post("/wp-json/cms/v2/posts", json={"title": "Programme", "content": CONTENT, "status": "publish"}).json()
            event = rest.get("/wp-json/cal/events/v1/events", params={"per_page": 1}).json()["events"][0]["id"]
        screens = [
            ("posts list (no editor)", "/wp-admin/edit.php", "#the-list"),
            ("post editor, 25 blocks", f"/wp-admin/post.php?post={post['id']}&action=edit", f"{BLOCK_EDITOR} .wp-block-table"),
            ("new post", "/wp-admin/post-new.php", f"{BLOCK_EDITOR}"),
            ("event editor", f"/wp-admin/post.php?post={event}&action=edit", f"{BLOCK_EDITOR}"),
        ]
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        stack.callback(browser.close)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.base}/wp-login.php")
        page.fill("#user_login", "bench")
        page.fill("#user_pass", "bench-login-secret")
        page.click("#wp-submit")
        page.wait_for_url("**/wp-admin/**")
        print(f"{'PostgreSQL' if args.database_url else 'SQLite'}, one worker; Chromium {browser.version}; "
              f"{args.rounds} warm loads each\n")
        print(f"{'screen':<26} {'median ms':>10} {'slowest':>8} {'x list':>7}  goal < {GOAL_MS:,.0f} ms")
        base = None
        for name, path, ready in screens:
            load_ms(page, server.base + path, ready)  # warms the browser's cache
            spent = [load_ms(page, server.base + path, ready) for _ in range(args.rounds)]
            median = statistics.median(spent)
            base = base or median
            editor = "editor" in name or "new" in name
            bad = editor and median >= GOAL_MS
            missed = missed or bad
            print(f"{name:<26} {median:>10.0f} {max(spent):>8.0f} {median / base:>7.1f}"
                  f"{'  MISSED' if bad else ''}")
            time.sleep(0.2)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
