"""The oEmbed embed frame in headless Chromium against a real server: the ``html`` of an oEmbed
answer, put on a page of another origin, frames the post's embed page (``<link>embed/``) from
the server; the frame's script and the host page's script shake hands with the frame's secret
(the blockquote is hidden, the frame takes its content's height), a click on the title inside
the sandboxed frame takes the host's window to the post; no console error or policy violation
on either side. And a draft's embed page answers 404."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from appfixtures import serving_with_admin

pytestmark = pytest.mark.browser

TITLE = "Autumn Orchestra Season"
BODY = (
    "<p>The orchestra opens its autumn season with three evenings of symphonies, a family matinee "
    "and an open rehearsal in the town hall.</p>"
    "<p>Tickets go on sale next week at the box office and online; members may book from Monday.</p>"
)
EXCERPT_START = "The orchestra opens its autumn season"
# Recorded in every frame before its own scripts run: the policy violations it reports.
WATCH_VIOLATIONS = (
    "window.__violations = [];"
    "document.addEventListener('securitypolicyviolation', e => window.__violations.push("
    "e.violatedDirective + ' ' + e.blockedURI));"
)


@dataclass
class Site:
    url: str
    post_link: str
    draft_link: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """One ``calpress serve`` over a fresh database, with a published post and a draft created
    through the REST API with an administrator's application password."""
    folder = tmp_path_factory.mktemp("embed-frame")
    with serving_with_admin(folder) as (server, rest):
        links = []
        for title, status in ((TITLE, "publish"), ("Unfinished Notes", "draft")):
            response = rest.post("/cms/v2/posts", json={"title": title, "content": BODY, "status": status})
            assert response.status_code == 201, response.text
            assert response.json()["status"] == status
            links.append(response.json()["link"])
        yield Site(server.url, *links)


def test_a_drafts_embed_page_and_oembed_answer_are_404(site: Site) -> None:
    assert site.draft_link.startswith(site.url + "/?p="), site.draft_link
    page = httpx.get(site.draft_link + "&embed=true", timeout=10)
    assert page.status_code == 404, page.text[:300]
    assert "Oops! That embed cannot be found." in page.text
    assert "Unfinished Notes" not in page.text and EXCERPT_START not in page.text
    answer = httpx.get(site.url + "/oembed/1.0/embed", params={"url": site.draft_link}, timeout=10)
    assert answer.status_code == 404
    assert answer.json()["code"] == "oembed_invalid_url"
    # the published post's embed page, for comparison, answers
    assert httpx.get(site.post_link.rstrip("/") + "/embed/", timeout=10).status_code == 200


class HostPages:
    """A tiny web server on another loopback port, addressed as ``localhost``: another origin and
    another site than the calpress server's ``127.0.0.1`` (a made-up public host served through
    Playwright's routing would not do: Chromium's local network access checks forbid a public
    page to frame a loopback address). It serves ``page`` at ``/`` and 404 elsewhere."""

    def __init__(self) -> None:
        self.page = b""
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                found = self.path == "/"
                body = pages.page if found else b"not here"
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.server.server_address[1]}"


@pytest.fixture()
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    thread = threading.Thread(target=pages.server.serve_forever, daemon=True)
    thread.start()
    yield pages
    pages.server.shutdown()
    pages.server.server_close()
    thread.join(5)


def test_the_embed_frame_on_another_origin(site: Site, browser: Any, host_pages: HostPages) -> None:
    answer = httpx.get(site.url + "/oembed/1.0/embed", params={"url": site.post_link}, timeout=10)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["title"] == TITLE and data["type"] == "rich"
    markup = data["html"]
    secret = re.search(r'<iframe [^>]*data-secret="([A-Za-z0-9]{10})"', markup).group(1)
    source = re.search(r'<iframe [^>]*src="([^"]+)"', markup).group(1).replace("&#038;", "&")
    frame_address = site.post_link + "embed/"
    assert source == f"{frame_address}#?secret={secret}"
    initial_height = int(re.search(r'<iframe [^>]*\sheight="(\d+)"', markup).group(1))
    assert initial_height == data["height"] == 338

    host_pages.page = ('<!doctype html><html><head><title>Host</title><link rel="icon" href="data:,"></head>'
                       f"<body><h1>A host page</h1>{markup}</body></html>").encode()
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.set_default_timeout(10000)
    try:
        context.add_init_script(WATCH_VIOLATIONS)
        page = context.new_page()
        problems: list[str] = []
        # Console messages of the (out-of-process) frame come here too, policy violations among them.
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text} ({m.location})")
                if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        frame_answers: list[Any] = []
        page.on("response", lambda r: frame_answers.append(r) if r.url == frame_address else None)

        with page.expect_response(frame_address):
            page.goto(host_pages.url + "/")
        page.wait_for_load_state("load")
        iframe = page.locator("iframe.wp-embedded-content")
        blockquote = page.locator("blockquote.wp-embedded-content")
        assert iframe.count() == 1 and blockquote.count() == 1
        assert iframe.get_attribute("sandbox") == "allow-scripts"

        # The frame shows the embed page, from the server, with the post's title and excerpt.
        frame = iframe.element_handle().content_frame()
        assert frame is not None
        frame.wait_for_load_state("load")
        assert frame.url == f"{frame_address}#?secret={secret}"
        heading = frame.locator("p.wp-embed-heading a")
        assert heading.inner_text().strip() == TITLE
        assert heading.get_attribute("href") == site.post_link
        assert EXCERPT_START in frame.locator(".wp-embed-excerpt").inner_text()
        assert frame.evaluate("document.documentElement.className") == "js"

        # Its answer may be framed by anyone: no X-Frame-Options, no frame-ancestors.
        assert len(frame_answers) == 1 and frame_answers[0].status == 200
        headers = frame_answers[0].all_headers()
        assert "x-frame-options" not in headers, headers
        policy = headers.get("content-security-policy", "")
        assert "frame-ancestors" not in policy and "script-src 'sha256-" in policy, headers

        # The handshake: the frame posts its height with the secret; the host script hides the
        # blockquote and sizes the frame to the content.
        page.wait_for_function("() => document.querySelector('blockquote.wp-embedded-content').style.display === 'none'")
        assert not blockquote.is_visible()
        assert iframe.is_visible()
        content_height = frame.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
        expected = max(200, min(content_height, 1000))
        page.wait_for_function("h => document.querySelector('iframe.wp-embedded-content').height === String(h)", arg=expected)
        assert expected != initial_height, (content_height, initial_height)
        box = iframe.bounding_box()
        assert box is not None and round(box["height"]) == expected
        assert iframe.get_attribute("style") is None
        # A message with another secret, or from another window, changes nothing.
        page.evaluate("() => window.postMessage({message: 'height', value: 700, secret: 'AAAAAAAAAA'}, '*')")
        page.evaluate(f"() => window.postMessage({{message: 'height', value: 700, secret: '{secret}'}}, '*')")
        page.wait_for_timeout(200)
        assert iframe.get_attribute("height") == str(expected)

        # No console error or policy violation, on the host page or in the frame.
        assert page.evaluate("window.__violations") == []
        assert frame.evaluate("window.__violations") == []
        assert problems == [], "\n".join(problems)

        # A click on the title inside the sandboxed frame takes the host's window to the post.
        with page.expect_navigation(url=site.post_link):
            heading.click()
        assert page.url == site.post_link
        assert page.locator("h1.entry-title").inner_text().strip() == TITLE
        assert problems == [], "\n".join(problems)
    finally:
        context.close()
