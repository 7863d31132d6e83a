"""Appearance > Menus in headless Chromium against a real server (issue 32, item 7): the
administrator builds a menu with the screen's forms (no drag and drop, no script needed), puts it
in the primary location, and the public site's header shows it, the nested entry in a sub-list.
The workspace screen and the header pass axe-core and are captured at 1280 and 390 pixels
(test-output/screenshots/admin-nav-menus-*.png, admin-site-header-menu-*.png)."""

from __future__ import annotations

import re

import pytest
from browser_support import PASSWORD

pytestmark = pytest.mark.browser


def test_a_menu_built_in_the_workspace_is_the_sites_header(visit, workspace_site):
    server, rest = workspace_site
    for title, order in (("About us", 1), ("Contact", 2)):
        made = rest.post("/cms/v2/pages", json={"title": title, "status": "publish", "menu_order": order})
        assert made.status_code == 201, made.text

    admin = visit()
    admin.login("admin", PASSWORD, target="/wp-admin/nav-menus.php")
    page = admin.page
    page.fill("#menu-name", "Main menu")
    page.click("#create-menu-submit")
    page.wait_for_url(re.compile(r"message=created"))

    # Both pages from the Pages box, then a custom link.
    for title in ("About us", "Contact"):
        page.check(f"#add-page label:has-text('{title}') input")
    page.click("#submit-page")
    page.wait_for_url(re.compile(r"message=added"))
    page.fill("#custom-menu-item-url", server.url + "/events/")
    page.fill("#custom-menu-item-name", "Calendar")
    page.click("#submit-custom")
    page.wait_for_url(re.compile(r"message=added"))
    assert page.locator(".menu-structure .menu-item-title").all_inner_texts() == ["About us", "Contact", "Calendar"]

    # Contact under About us, then the menu in the header.
    page.click("button[aria-label='Indent Contact under the item above']")
    page.wait_for_url(re.compile(r"message=moved"))
    assert "menu-item-depth-1" in (page.get_attribute(".menu-structure li:nth-child(2)", "class") or "")
    # The custom link's label, in its entry's Edit details (a form of its own).
    calendar = page.locator(".menu-structure li", has_text="Calendar")
    calendar.locator("summary").click()
    calendar.locator("input[name='menu-item-title']").fill("Events calendar")
    calendar.locator("button:has-text('Save item')").click()
    page.wait_for_url(re.compile(r"message=item"))
    page.check("input[name='menu-locations[primary]']")
    page.click("#save-menu")
    page.wait_for_url(re.compile(r"message=updated"))
    admin.check("nav-menus")

    page.click("a:has-text('Manage Locations')")
    page.wait_for_url(re.compile(r"action=locations"))
    assert page.locator("#locations-primary option[selected]").inner_text() == "Main menu"
    admin.check("nav-menus-locations")

    visitor = visit()
    visitor.goto("/")
    header = visitor.page.locator("nav.site-nav")
    assert header.locator(":scope > ul > li > a").all_inner_texts() == ["About us", "Events calendar", "Log in"]
    assert header.locator("li.menu-item-has-children > ul > li > a").all_inner_texts() == ["Contact"]
    # The sub-list opens when its parent has the keyboard's focus (no script).
    visitor.page.focus("nav.site-nav a:has-text('About us')")
    assert visitor.page.is_visible("nav.site-nav a:has-text('Contact')")
    visitor.check("site-header-menu")
    visitor.goto("/about-us/")
    assert visitor.page.get_attribute("nav.site-nav a:has-text('About us')", "aria-current") == "page"
