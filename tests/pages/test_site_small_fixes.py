"""Issue 32, item 13: the public site's footer no longer links the raw REST index; the login
screens carry the site's name, "Lost your password?" and "← Go to <site>"; pages whose slugs are
REST namespace heads (``cms``, ``cal``, ``batch``, ``oembed``) are pages while the REST routes
beside them still answer; redirects say text/html; the 404 page offers a search and the
calendar."""

from __future__ import annotations

import re

import httpx
import pytest

HOME = "http://example.test"
HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
SITE_NAME = "Riverside Garden Club"


def name_the_site(client, admin) -> None:
    assert client.post("/cms/v2/settings", user=admin, json={"title": SITE_NAME}).status_code == 200


def publish_page(client, admin, slug: str, title: str) -> dict:
    created = client.post("/cms/v2/pages", user=admin, json={"title": title, "slug": slug, "status": "publish", "content": f"<p>About {title}.</p>"})
    assert created.status_code == 201, created.text
    assert created.json["slug"] == slug
    return created.json


# -- the footer ------------------------------------------------------------------------------------


def test_the_footer_no_longer_links_the_rest_index(client):
    page = client.get("/events/list/", headers=HTML)
    assert page.status_code == 200
    footer = re.search(r'<footer class="site-footer">.*?</footer>', page.text, re.S).group(0)
    assert "wp-json" not in footer and "REST API" not in footer
    assert f'href="{HOME}/events/"' in footer
    # The discovery link stays in the head, as the reference has it.
    assert f'<link rel="https://api.w.org/" href="{HOME}/wp-json/">' in page.text


# -- the login screens -----------------------------------------------------------------------------


def test_the_login_page_names_the_site_and_links_back(client, admin):
    name_the_site(client, admin)
    page = client.get("/wp-login.php")
    assert page.status_code == 200
    assert re.search(rf'<h1 class="login-site"><a href="{HOME}/">{SITE_NAME}</a></h1>', page.text)
    assert '<a class="wp-login-lost-password" href="/wp-login.php?action=lostpassword">Lost your password?</a>' in page.text
    assert f'<p id="backtoblog"><a href="{HOME}/">&larr; Go to {SITE_NAME}</a></p>' in page.text
    # The lost password screen links back the same way, and the link it offers answers.
    lost = client.get("/wp-login.php", params={"action": "lostpassword"})
    assert lost.status_code == 200 and "Lost Password" in lost.text
    assert f'<a href="{HOME}/">&larr; Go to {SITE_NAME}</a>' in lost.text and f">{SITE_NAME}</a></h1>" in lost.text
    # A failed login shows the same screen with its links.
    failed = client.post("/wp-login.php", body="log=nobody&pwd=wrong", headers=FORM)
    assert failed.status_code == 200 and "Lost your password?" in failed.text and "&larr; Go to" in failed.text


def test_redirects_say_text_html(client, admin):
    visitor = client.get("/wp-admin/")
    assert visitor.status_code == 302 and visitor.headers["location"].startswith("/wp-login.php?redirect_to=")
    assert visitor.headers["content-type"] == "text/html; charset=UTF-8"
    assert client.get("/wp-admin").headers["content-type"] == "text/html; charset=UTF-8"
    login = client.post("/wp-login.php", body=f"log={admin.login}&pwd={admin.password}&redirect_to=%2Fwp-admin%2F", headers=FORM)
    assert login.status_code == 302 and login.headers["location"].endswith("/wp-admin/")
    assert login.headers["content-type"] == "text/html; charset=UTF-8"
    reset = client.get("/wp-login.php", params={"action": "rp", "key": "abc", "login": "nobody"})
    assert reset.status_code == 302 and reset.headers["content-type"] == "text/html; charset=UTF-8"
    # REST answers are untouched.
    assert client.get("/cms/v2/posts").headers["content-type"] == "application/json; charset=UTF-8"


# -- pages named like REST namespaces --------------------------------------------------------------


HEADS = ("cms", "cal", "batch", "oembed")


def test_namespace_heads_are_rest_until_a_page_takes_them(client, admin):
    for head in HEADS:
        before = client.get(f"/{head}/")
        assert before.status_code == 404 and before.json["code"] == "rest_no_route", head
    for head in HEADS:
        publish_page(client, admin, head, f"The {head} page")
    for head in HEADS:
        for path, headers in ((f"/{head}/", HTML), (f"/{head}/", {}), (f"/{head}", HTML)):
            page = client.get(path, headers=headers)
            if page.status_code == 301:  # the page's own address has its slash
                assert page.headers["location"].endswith(f"/{head}/")
                continue
            assert page.status_code == 200, (path, page.status_code, page.text[:200])
            assert page.headers["content-type"].startswith("text/html")
            assert f"The {head} page" in page.text
    # The REST routes beside them answer as before, at the root and under /wp-json/.
    for path in ("/cms/v2/posts", "/cms/v2", "/cal/events/v1/events", "/cal/events/v1", "/wp-json/cms/v2/pages"):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/json"), path
    embed = client.get("/oembed/1.0/embed", params={"url": f"{HOME}/cms/"})
    assert embed.status_code == 200 and embed.json["title"] == "The cms page"
    batch = client.post("/batch/v1", json={"requests": [{"method": "POST", "path": "/cms/v2/posts", "body": {"title": "Batched"}}]}, user=admin)
    assert batch.status_code == 207 and batch.json["responses"][0]["status"] == 201
    assert client.get("/wp-json/cms/v2/nothing").json["code"] == "rest_no_route"


def test_an_unknown_route_under_a_head_without_a_page_is_still_rest(client, admin):
    publish_page(client, admin, "cms", "The cms page")
    # No page "cal": its unknown routes are REST's 404, as before.
    for path in ("/cal/nothing", "/cal/events/v1/nothing", "/oembed/"):
        missing = client.get(path, headers=HTML)
        assert missing.status_code == 404 and missing.json["code"] == "rest_no_route", path
    # Under the page's head, an unknown address is the public site's 404 page.
    stray = client.get("/cms/no-such-child/", headers=HTML)
    assert stray.status_code == 404 and stray.headers["content-type"].startswith("text/html")


# -- the 404 page ------------------------------------------------------------------------------------


def test_the_404_page_offers_search_and_the_calendar(client):
    page = client.get("/no-such-thing/", headers=HTML)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    form = re.search(r'<form class="not-found-search" role="search" method="get" action="([^"]+)">(.*?)</form>', page.text, re.S)
    assert form and form.group(1) == f"{HOME}/"
    assert '<label for="s">Search this site</label>' in form.group(2) and 'name="s"' in form.group(2)
    assert f'<a href="{HOME}/events/">Browse the calendar of upcoming events</a>' in page.text
    # The form's address answers with the search.
    assert client.get("/", params={"s": "garden"}, headers=HTML).status_code == 200


# -- through a real server -----------------------------------------------------------------------------


@pytest.mark.e2e
def test_the_small_fixes_through_a_real_server(live_server):
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
    live_server.cli("post", "create", "--post_type=page", "--post_title=The batch page", "--post_name=batch", "--post_status=publish")
    with httpx.Client(base_url=live_server.url, headers=HTML) as http:
        page = http.get("/batch/")
        assert page.status_code == 200 and "The batch page" in page.text and "REST API</a>" not in page.text
        assert http.get("/cal/nothing").json()["code"] == "rest_no_route"
        visitor = http.get("/wp-admin/")
        assert visitor.status_code == 302 and visitor.headers["content-type"] == "text/html; charset=UTF-8"
        login = http.get("/wp-login.php")
        assert "Lost your password?" in login.text and "&larr; Go to" in login.text
        missing = http.get("/no-such-thing/")
        assert missing.status_code == 404 and 'role="search"' in missing.text
