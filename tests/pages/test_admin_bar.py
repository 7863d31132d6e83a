"""The admin bar on public pages (pages/adminbar.py, templates/site/adminbar.html): shown to a
logged-in user only, with the site's name to the dashboard, "New" by capability, "Edit <type>"
on an item the user may edit, the user's menu and a Log Out link whose nonce works; escaped;
no script (the pages' CSP holds); and never served from the page cache to anyone else."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode, urlsplit

import pytest
from cal_support import make_event, make_organizer, make_venue

from calpress.auth import sessions, users
from calpress.pages.views import PAGE_POLICY

HOME = "http://example.test"
HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def login(client, account) -> str:
    response = client.http.simulate_post("/wp-login.php", body=urlencode({"log": account.login, "pwd": account.password}),
                                         headers=FORM)
    assert response.status_code == 302, response.text[:300]
    return response.cookies[sessions.LOGIN_COOKIE].value


def visit(client, url: str, cookie: str | None = None):
    parts = urlsplit(url)
    response = client.http.simulate_get(parts.path, query_string=parts.query, headers=HTML,
                                        cookies={sessions.LOGIN_COOKIE: cookie} if cookie else {})
    assert response.status_code == 200, (url, response.status_code, response.text[:500])
    return response


def bar_of(response) -> str | None:
    found = re.search(r'<nav id="wpadminbar".*?</nav>', response.text, re.S)
    return found.group(0) if found else None


def links(fragment: str) -> dict[str, str]:
    """Label -> href of the bar's links (the "New" menu's and the user's too)."""
    return {html.unescape(re.sub(r"<[^>]+>", "", label)).strip(): html.unescape(href)
            for href, label in re.findall(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>', fragment, re.S)}


def new_menu(fragment: str) -> list[str]:
    found = re.search(r'<li class="ab-new">(.*?)</details>', fragment, re.S)
    return list(links(found.group(1))) if found else []


def publish(client, user, route: str, title: str) -> dict:
    response = client.post(route, user=user, json={"title": title, "status": "publish"})
    assert response.status_code == 201, response.json
    return response.json


@pytest.fixture()
def site(client, accounts):
    admin = accounts["administrator"]
    return {
        "event": make_event(client, admin, "Concert", status="publish"),
        "venue": make_venue(client, admin, "Hall", status="publish"),
        "organizer": make_organizer(client, admin, "Crew", status="publish"),
        "post": publish(client, admin, "/cms/v2/posts", "News"),
        "page": publish(client, admin, "/cms/v2/pages", "About"),
    }


def test_visitors_see_no_bar(client, site):
    for url in (HOME + "/", site["event"]["url"], site["post"]["link"], HOME + "/events/"):
        page = visit(client, url)
        assert bar_of(page) is None and "admin-bar" not in re.search(r"<body[^>]*>", page.text).group(0)
    # A cookie that proves nothing is a visitor's.
    assert bar_of(visit(client, site["post"]["link"], "1|9999999999|token|forged")) is None


def test_an_administrator_gets_everything_and_edit_links(client, accounts, site):
    admin = accounts["administrator"]
    cookie = login(client, admin)
    page = visit(client, HOME + "/", cookie)
    bar = bar_of(page)
    assert bar is not None and 'class="home blog' not in bar
    assert "admin-bar" in re.search(r"<body[^>]*>", page.text).group(0)
    found = links(bar)
    assert found["calpress"] == HOME + "/wp-admin/"
    assert new_menu(bar) == ["Post", "Event", "Venue", "Organizer", "Page", "Media", "User"]
    assert found["Event"] == HOME + "/wp-admin/post-new.php?post_type=cal_events"
    assert found["Post"] == HOME + "/wp-admin/post-new.php"
    assert found["Media"] == HOME + "/wp-admin/media-new.php" and found["User"] == HOME + "/wp-admin/user-new.php"
    assert found["Edit Profile"] == HOME + "/wp-admin/profile.php"
    assert "Howdy, <span class=\"display-name\">administrator</span>" in bar
    assert not any(label.startswith("Edit ") and label != "Edit Profile" for label in found)  # no item here

    for kind, label in (("event", "Edit Event"), ("venue", "Edit Venue"), ("organizer", "Edit Organizer"),
                        ("post", "Edit Post"), ("page", "Edit Page")):
        item = site[kind]
        shown = links(bar_of(visit(client, item.get("url") or item["link"], cookie)))
        assert shown[label] == f"{HOME}/wp-admin/post.php?post={item['id']}&action=edit", kind


def test_the_log_out_link_carries_a_working_nonce(client, accounts, site):
    editor = accounts["editor"]
    cookie = login(client, editor)
    logout = links(bar_of(visit(client, site["post"]["link"], cookie)))["Log Out"]
    parts = urlsplit(logout)
    assert parts.path == "/wp-login.php" and re.fullmatch(r"action=logout&_wpnonce=[0-9a-f]{10}", parts.query)
    forged = client.http.simulate_get("/wp-login.php", query_string="action=logout&_wpnonce=0123456789",
                                      cookies={sessions.LOGIN_COOKIE: cookie})
    assert forged.status_code == 403 and "Do you really want to log out?" in forged.text
    out = client.http.simulate_get(parts.path, query_string=parts.query, cookies={sessions.LOGIN_COOKIE: cookie})
    assert out.status_code == 302 and out.headers["location"] == "/wp-login.php?loggedout=true"
    assert out.cookies[sessions.LOGIN_COOKIE].value == ""


def test_new_and_edit_follow_the_capabilities(client, app, accounts, site):
    subscriber, contributor, author = accounts["subscriber"], accounts["contributor"], accounts["author"]
    bar = bar_of(visit(client, site["post"]["link"], login(client, subscriber)))
    assert new_menu(bar) == [] and "+ New" not in bar
    assert set(links(bar)) == {"calpress", "Edit Profile", "Log Out"}

    contributor_bar = bar_of(visit(client, site["post"]["link"], login(client, contributor)))
    assert "Post" in new_menu(contributor_bar) and not {"Page", "Media", "User"} & set(new_menu(contributor_bar))
    assert "Edit Post" not in links(contributor_bar)  # another's published post

    own = publish(client, author, "/cms/v2/posts", "Mine")
    author_cookie = login(client, author)
    assert "Edit Post" in links(bar_of(visit(client, own["link"], author_cookie)))
    assert "Edit Post" not in links(bar_of(visit(client, site["post"]["link"], author_cookie)))
    assert "Edit Page" not in links(bar_of(visit(client, site["page"]["link"], author_cookie)))
    assert "Media" in new_menu(bar_of(visit(client, own["link"], author_cookie)))
    assert "User" not in new_menu(bar_of(visit(client, own["link"], author_cookie)))


def test_the_bar_is_escaped_and_runs_no_script(client, app, accounts, site):
    editor = accounts["editor"]
    with app.site.write() as conn:
        users.update_user(conn, editor.id, {"display_name": '<img src=x onerror="alert(1)">'})
    page = visit(client, site["event"]["url"], login(client, editor))
    bar = bar_of(page)
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in bar and "<img" not in bar
    assert "<script" not in bar and "onerror=\"" not in bar
    assert page.headers["content-security-policy"] == PAGE_POLICY  # no inline script needed


def test_a_users_page_is_never_served_to_anyone_else(client, accounts, site):
    admin, editor = accounts["administrator"], accounts["editor"]
    url = site["event"]["url"]
    admin_cookie = login(client, admin)
    first = visit(client, url, admin_cookie)
    assert "private" in first.headers["cache-control"] and "no-store" in first.headers["cache-control"]
    admin_logout = links(bar_of(first))["Log Out"]
    # The same address, just after: a visitor, another user, another session of the same user.
    assert bar_of(visit(client, url)) is None
    assert "no-store" not in visit(client, url).headers.get("cache-control", "")
    editor_bar = bar_of(visit(client, url, login(client, editor)))
    assert ">editor</span>" in editor_bar and links(editor_bar)["Log Out"] != admin_logout
    second_session = bar_of(visit(client, url, login(client, admin)))
    assert links(second_session)["Log Out"] != admin_logout  # its own session's nonce
    again = visit(client, url, admin_cookie)
    assert links(bar_of(again))["Log Out"] == admin_logout and again.text == first.text  # the cached page, for its owner
