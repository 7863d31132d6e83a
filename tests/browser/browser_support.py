"""What the browser tests share: Chromium (Debian's, driven by Playwright; one per worker, see
SharedChromium) and its flags, where screenshots go, and for the workspace's tests one real server
per module with a user per role, a browser context per test, logging in through the form, and the
check every screen passes: axe-core (the npm package, tests/js) reports no serious or critical
violation, the page has no console error, it does not scroll sideways at 390 pixels, and it is
captured at 1280 and 390 pixels wide (test-output/screenshots/admin-<name>-<width>.png)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-output" / "screenshots"
AXE = REPO / "tests" / "js" / "node_modules" / "axe-core" / "axe.min.js"
WIDE, NARROW = 1280, 390
PASSWORD = "login-secret"
ROLES = ("editor", "author", "contributor", "subscriber")
BLOCK_EDITOR = ".editor-main .editor"  # where editor.js mounts Gutenberg after the content textarea


def type_in_block_editor(page: Any, *paragraphs: str) -> None:
    """Write ``paragraphs`` at the end of the block editor's content, as a user types them."""
    page.wait_for_selector(f"{BLOCK_EDITOR} .block-editor-block-list__layout")
    appender = page.query_selector(f"{BLOCK_EDITOR} .block-editor-default-block-appender__content")
    if appender is not None:
        appender.click()
    else:
        page.click(f"{BLOCK_EDITOR} .block-editor-block-list__layout > :last-child")
        page.keyboard.press("End")
        page.keyboard.press("Enter")
    for index, text in enumerate(paragraphs):
        if index:
            page.keyboard.press("Enter")
        page.keyboard.type(text)


class SharedChromium:
    """One Chromium for the browser tests a worker runs in a row, each test opening contexts of
    its own: launching Playwright's driver and Chromium took one to two seconds per module.

    It must not outlive them: while Playwright's sync API runs, its event loop counts as running
    in this thread, and any later test's ``asyncio.run()`` would fail. So it is closed before the
    first test outside tests/browser (a pytest plugin once launched), and at the end of the run."""

    def __init__(self) -> None:
        self.playwright: Any = None
        self.browser: Any = None

    def launch(self, config: pytest.Config) -> Any:
        if self.browser is None:
            playwright_api = pytest.importorskip("playwright.sync_api")
            if not config.pluginmanager.is_registered(self):
                config.pluginmanager.register(self, "calpress-shared-chromium")
            self.playwright = playwright_api.sync_playwright().start()
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        return self.browser

    def close(self) -> None:
        if self.playwright is not None:
            try:
                self.browser.close()
            finally:
                self.playwright.stop()
                self.playwright = self.browser = None

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if Path(item.path).parent != BROWSER_TESTS:
            self.close()

    def pytest_sessionfinish(self) -> None:
        self.close()


BROWSER_TESTS = Path(__file__).resolve().parent
SHARED_CHROMIUM = SharedChromium()


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Any:
    """The shared Chromium (SharedChromium): a test opens its own contexts and closes them."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (scripts/test installs Debian's chromium)")
    return SHARED_CHROMIUM.launch(request.config)


@pytest.fixture(scope="module")
def chromium(browser: Any) -> Any:
    """The shared Chromium, for the tests that run axe-core."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (scripts/test runs npm ci in tests/js)")
    return browser


@pytest.fixture(scope="module")
def workspace_site(tmp_path_factory) -> Iterator[tuple[Any, Any]]:
    """A real server with the administrator ``admin`` (its REST client yielded too) and one user
    per other role, each logging in with the same password."""
    from appfixtures import serving_with_admin

    with serving_with_admin(tmp_path_factory.mktemp("workspace")) as (server, rest):
        for role in ROLES:  # through the API: a command line process each would cost a second and more
            made = rest.post("/cms/v2/users", json={"username": role, "email": f"{role}@example.test",
                                                    "password": PASSWORD, "roles": [role]})
            assert made.status_code == 201, made.text
        yield server, rest


class Visit:
    """One browser context (its own cookies) on the workspace's server."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": WIDE, "height": 900}, bypass_csp=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15000)
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _console(self, message: Any) -> None:
        # A form sent back with its errors answers 400 (the workspace's choice, where WordPress
        # answers 200): Chromium logs that status; it is the page working, not failing.
        if message.type == "error" and "responded with a status of 400" not in message.text:
            self.errors.append(message.text)

    def goto(self, path: str) -> Any:
        return self.page.goto(self.base + path)

    def login(self, login: str, password: str = PASSWORD, target: str = "/wp-admin/") -> None:
        from urllib.parse import quote

        self.goto(f"/wp-login.php?redirect_to={quote(target, safe='')}")
        self.page.fill("#user_login", login)
        self.page.fill("#user_pass", password)
        self.page.click("#wp-submit")
        self.page.wait_for_url(f"{self.base}{target}*")

    def axe(self, context: Any = None) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations in ``context`` (axe's context: the whole
        page by default, or ``{"include": [...], "exclude": [...]}``)."""
        page = self.page
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.add_script_tag(path=str(AXE))
        return page.evaluate("""async (context) => {
            const result = await axe.run(context || document, {resultTypes: ["violations"]});
            return result.violations.filter(v => ["serious", "critical"].includes(v.impact))
                .map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}));
        }""", context)

    def check(self, name: str) -> None:
        """The checks every screen passes, then its pictures at both widths. The block editor's
        own widgets are Gutenberg's, checked apart (test_block_editor.py reports what axe says of
        them): the rest of an editor screen passes like any other."""
        page = self.page
        found = self.axe({"exclude": [[BLOCK_EDITOR]]} if page.query_selector(BLOCK_EDITOR) else None)
        assert found == [], f"{name}: axe-core found {json.dumps(found, indent=1)}"
        assert self.errors == [], f"{name}: console errors {self.errors}"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"admin-{name}-{WIDE}.png"), full_page=True)
        page.set_viewport_size({"width": NARROW, "height": 900})
        try:
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, f"{name}: scrolls sideways by {overflow}px at {NARROW} pixels"
            page.screenshot(path=str(SCREENSHOTS / f"admin-{name}-{NARROW}.png"), full_page=True)
        finally:
            page.set_viewport_size({"width": WIDE, "height": 900})

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def visit(chromium, workspace_site) -> Iterator[Any]:
    """``visit()``: a new browser context on the workspace's server (several per test for roles)."""
    server, _ = workspace_site
    opened: list[Visit] = []

    def make() -> Visit:
        opened.append(Visit(chromium, server.url))
        return opened[-1]

    yield make
    for one in opened:
        one.close()
