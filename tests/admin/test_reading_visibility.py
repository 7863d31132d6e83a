"""Settings > Reading's "Search engine visibility" box: ticked, the site discourages search
engines (``blog_public`` 0: no sitemaps, robots.txt without its Sitemap line, a noindex meta on
every page); unticked again, all comes back."""

from __future__ import annotations

from admin_support import location

READING = "/wp-admin/options-reading.php"


def test_the_search_engine_visibility_box(as_role, client):
    browser = as_role("administrator")
    shown = browser.get(READING).text
    assert 'id="blog_public" value="0" aria-describedby="blog-public-description">' in shown  # unticked
    assert "Discourage search engines from indexing this site" in shown
    assert client.get("/wp-sitemap.xml").status_code == 200
    fields = browser.form(READING, "options-reading")
    fields["blog_public"] = "0"
    answer = browser.post(READING, fields)
    assert "settings-updated=true" in location(answer)
    assert 'value="0" aria-describedby="blog-public-description" checked>' in browser.get(READING).text
    assert client.get("/wp-sitemap.xml").status_code == 404
    assert "Sitemap:" not in client.get("/robots.txt").text
    assert '<meta name="robots" content="noindex, nofollow">' in client.get("/events/", headers={"Accept": "text/html"}).text
    fields = browser.form(READING, "options-reading")
    assert fields.pop("blog_public") == "0"  # an unticked box sends nothing
    browser.post(READING, fields)
    assert client.get("/wp-sitemap.xml").status_code == 200
    assert "Sitemap: " in client.get("/robots.txt").text
