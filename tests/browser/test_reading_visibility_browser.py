"""Settings > Reading's "Search engine visibility" box in a browser: ticked and saved, the screen
shows it ticked (pictures at both widths, axe-core), and the site's robots.txt and pages follow."""

from __future__ import annotations

import httpx


def test_an_administrator_discourages_search_engines(visit, workspace_site):
    server, _ = workspace_site
    administrator = visit()
    administrator.login("admin", target="/wp-admin/options-reading.php")
    page = administrator.page
    assert not page.is_checked("#blog_public")
    page.check("#blog_public")
    page.click("#submit")
    page.wait_for_selector(".notice-success")
    assert page.is_checked("#blog_public")
    administrator.check("options-reading-discouraged")
    assert "Sitemap:" not in httpx.get(server.url + "/robots.txt").text
    assert httpx.get(server.url + "/wp-sitemap.xml").status_code == 404
    page.uncheck("#blog_public")
    page.click("#submit")
    page.wait_for_selector(".notice-success")
    assert httpx.get(server.url + "/wp-sitemap.xml").status_code == 200
