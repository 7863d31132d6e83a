"""Feeds, sitemaps and robots.txt through a real `calpress serve` process: what a feed reader
and a search engine's crawler fetch over HTTP (headers included), after content is written
through the API."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import feedparser
import httpx
import pytest

pytestmark = pytest.mark.e2e

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def test_feeds_sitemaps_and_robots_through_a_real_server(live_server):
    server = live_server
    server.cli("user", "create", "editor1", "editor1@example.test", "--role=administrator", "--user_pass=login-secret")
    password = server.cli("user", "application-password", "create", "editor1", "e2e", "--porcelain").strip()
    auth = ("editor1", password)
    post = httpx.post(server.url + "/cms/v2/posts", auth=auth, json={
        "title": "Ferry timetable & fares", "content": "<p>Boats <em>every</em> hour.</p>", "status": "publish"})
    assert post.status_code == 201, post.text
    event = httpx.post(server.url + "/wp-json/cal/events/v1/events", auth=auth, json={
        "title": "Lantern walk", "start_date": "tomorrow 6pm", "end_date": "tomorrow 8pm"})
    assert event.status_code == 201, event.text

    for path, kind in (("/feed/", "application/rss+xml"), ("/feed/atom/", "application/atom+xml"),
                       ("/events/feed/", "application/rss+xml"), ("/comments/feed/", "application/rss+xml")):
        response = httpx.get(server.url + path, headers={"Accept": "application/rss+xml"})
        assert response.status_code == 200, (path, response.text[:300])
        assert response.headers["content-type"] == f"{kind}; charset=UTF-8"
        assert response.headers["last-modified"].endswith(" GMT")
        parsed = feedparser.parse(response.content)
        assert not parsed.bozo, (path, parsed.get("bozo_exception"))
        if path in ("/feed/", "/feed/atom/"):
            assert [entry.title for entry in parsed.entries] == ["Ferry timetable & fares"]
            assert parsed.entries[0].link == post.json()["link"]
        if path == "/events/feed/":
            assert [entry.title for entry in parsed.entries] == ["Lantern walk"]

    head = httpx.get(server.url + "/", params={"paged": "1"}, headers={"Accept": "text/html"}).text
    assert f'<link rel="alternate" type="application/rss+xml" title="calpress \u00bb Feed" href="{server.url}/feed/">' in head

    robots = httpx.get(server.url + "/robots.txt")
    assert robots.status_code == 200 and robots.headers["content-type"] == "text/plain; charset=utf-8"
    assert robots.text.splitlines()[-1] == f"Sitemap: {server.url}/wp-sitemap.xml"
    index = httpx.get(server.url + "/wp-sitemap.xml")
    assert index.status_code == 200 and index.headers["content-type"] == "application/xml; charset=UTF-8"
    sitemaps = [loc.text for loc in ET.fromstring(index.content).iter(SITEMAP_NS + "loc")]
    assert f"{server.url}/wp-sitemap-posts-post-1.xml" in sitemaps
    assert f"{server.url}/wp-sitemap-posts-cal_events-1.xml" in sitemaps
    posts = httpx.get(server.url + "/wp-sitemap-posts-post-1.xml")
    assert [loc.text for loc in ET.fromstring(posts.content).iter(SITEMAP_NS + "loc")] == [post.json()["link"]]
    assert httpx.get(server.url + "/wp-sitemap-posts-post-2.xml").status_code == 404
