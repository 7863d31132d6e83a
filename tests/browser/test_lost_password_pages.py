"""Lost password and the public admin bar in Chromium, on a real server that mails through a
local SMTP server: each screen passes the workspace's checks (axe-core, no console error, no
sideways scroll at 390 pixels, screenshots), the strength meter runs under the login pages' CSP,
the reset works without JavaScript, and the admin bar's menus open and log out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from appfixtures import migrated_sqlite, serving
from browser_support import Visit, chromium  # noqa: F401 - chromium is a fixture
from mailfixtures import smtp_server


@pytest.fixture(scope="module")
def mailing_site(tmp_path_factory) -> Iterator[tuple[Any, Any]]:
    folder = tmp_path_factory.mktemp("lostpassword")
    with smtp_server() as box, serving(migrated_sqlite(folder), folder, smtp_url=box.url) as server:
        server.cli("user", "create", "ana", "ana@example.test", "--role=administrator", "--user_pass=old secret")
        server.cli("post", "create", "--post_title=Hello", "--post_status=publish", "--user=ana")
        yield server, box


def mailed_link(box: Any, count: int) -> str:
    return re.search(r"^http://\S+$", box.wait(count)[count - 1].body, re.M).group(0)


def test_lost_password_reset_and_the_admin_bar(chromium, mailing_site):  # noqa: F811 - the fixture
    server, box = mailing_site
    visit = Visit(chromium, server.url)
    try:
        page = visit.page
        visit.goto("/wp-login.php")
        page.click("text=Lost your password?")
        page.wait_for_url(f"{server.url}/wp-login.php?action=lostpassword")
        visit.check("lostpassword")
        page.fill("#user_login", "ana")
        page.click("#wp-submit")
        page.wait_for_url(f"{server.url}/wp-login.php?checkemail=confirm")
        assert "Check your email for the confirmation link" in page.text_content("#login-message")
        visit.check("lostpassword-sent")

        page.goto(mailed_link(box, 1))
        page.wait_for_url(f"{server.url}/wp-login.php?action=rp")
        visit.check("resetpass")
        page.fill("#pass1", "one two three four")
        page.fill("#pass2", "one two three four")
        page.click("#wp-submit")
        assert "Your password has been reset." in page.text_content(".reset-pass")
        visit.login("ana", "one two three four", target="/")
        bar = page.locator("#wpadminbar")
        assert bar.is_visible() and "Howdy, ana" in bar.text_content()
        visit.check("public-admin-bar")
        page.click("#wpadminbar .ab-new summary")
        assert page.locator("#wpadminbar .ab-new a", has_text="Event").is_visible()
        page.click("#wpadminbar .ab-account summary")
        with page.expect_navigation():
            page.click("#wpadminbar .ab-logout")
        assert page.url == f"{server.url}/wp-login.php?loggedout=true"
        page.goto(server.url + "/")
        assert page.locator("#wpadminbar").count() == 0
    finally:
        visit.close()


def test_the_meter_runs_under_the_csp_and_the_form_works_without_javascript(chromium, mailing_site):  # noqa: F811
    server, box = mailing_site
    sent = len(box.messages)
    for javascript in (True, False):
        # No bypass_csp here: a script the policy refused would log a console error.
        context = chromium.new_context(java_script_enabled=javascript)
        errors: list[str] = []
        try:
            page = context.new_page()
            page.on("console", lambda message, found=errors: found.append(message.text) if message.type == "error" else None)
            page.goto(server.url + "/wp-login.php?action=lostpassword")
            page.fill("#user_login", "ana@example.test")
            page.click("#wp-submit")
            page.wait_for_url(f"{server.url}/wp-login.php?checkemail=confirm")
            sent += 1
            page.goto(mailed_link(box, sent))
            meter = page.locator("#pass-strength-result")
            if javascript:
                page.fill("#pass1", "abc")
                assert meter.text_content() == "Strength: Very weak"
                page.fill("#pass1", "Correct-Horse-Battery-9")
                assert meter.text_content() == "Strength: Strong"
                page.fill("#pass2", "Correct")
                assert meter.text_content() == "Strength: Mismatch"
            else:
                assert not meter.is_visible()
                assert "at least twelve characters" in page.text_content("#pass-hint")
            page.fill("#pass1", "Correct-Horse-Battery-9")
            page.fill("#pass2", "Correct-Horse-Battery-9")
            page.click("#wp-submit")
            assert "Your password has been reset." in page.text_content("main")
            assert errors == []
        finally:
            context.close()
