"""The public site's header and footer navigation (issue 32, item 7): the menu assigned to the
``primary`` location in the header (nested entries as nested lists, the current page marked),
the ``footer`` menu in the footer, and without a primary menu the reference's fallback of the
site's top-level pages. Through the WSGI app, and once through a real server."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlencode

import httpx

HOME = "http://example.test"
HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def page(client: Any, path: str = "/", headers: dict[str, str] | None = None) -> str:
    response = client.get(path, headers={**HTML, **(headers or {})})
    assert response.status_code == 200, (path, response.text[:500])
    return response.text


def nav_of(text: str, label: str = "Site") -> str:
    found = re.search(rf'<nav class="[^"]*" aria-label="{label}">(.*?)</nav>', text, re.S)
    return found.group(1) if found else ""


def links(fragment: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", label)).strip() for label in re.findall(r"<a [^>]*>(.*?)</a>", fragment, re.S)]


def current(fragment: str) -> list[str]:
    return [html.unescape(label) for label in re.findall(r'<a [^>]*aria-current="page"[^>]*>(.*?)</a>', fragment, re.S)]


def create(client: Any, user: Any, route: str, **body: Any) -> dict[str, Any]:
    response = client.post(route, user=user, json=body)
    assert response.status_code == 201, response.json
    return response.json


def test_without_a_primary_menu_the_header_lists_the_top_level_pages(client: Any, admin: Any) -> None:
    about = create(client, admin, "/cms/v2/pages", title="About us", status="publish", menu_order=2)
    create(client, admin, "/cms/v2/pages", title="Contact", status="publish", menu_order=1)
    create(client, admin, "/cms/v2/pages", title="Archive", status="publish", menu_order=2)
    create(client, admin, "/cms/v2/pages", title="Team", status="publish", parent=about["id"])
    create(client, admin, "/cms/v2/pages", title="Draft plans", status="draft")
    header = nav_of(page(client))
    # Menu order, then title; children and drafts left out; the calendar and the login last.
    assert links(header) == ["Home", "Contact", "About us", "Archive", "Events", "Log in"]
    assert current(header) == ["Home"]
    assert current(nav_of(page(client, "/about-us/"))) == ["About us"]
    assert current(nav_of(page(client, "/events/"))) == ["Events"]
    assert nav_of(page(client), "Footer") == ""
    login = client.http.simulate_post("/wp-login.php", body=urlencode({"log": admin.login, "pwd": admin.password}), headers=FORM)
    cookie = {"Cookie": login.headers["set-cookie"].split(";", 1)[0]}
    assert links(nav_of(page(client, "/", cookie)))[-1] == "Dashboard"


def test_the_primary_menu_in_the_header_and_the_footer_menu(client: Any, admin: Any) -> None:
    about = create(client, admin, "/cms/v2/pages", title="About us", status="publish")
    hidden = create(client, admin, "/cms/v2/pages", title="Hidden plans", status="draft")
    news = create(client, admin, "/cms/v2/categories", name="News")
    menu = create(client, admin, "/cms/v2/menus", name="Main", locations=["primary"])
    top = create(client, admin, "/cms/v2/menu-items", type="post_type", object_id=about["id"], menus=menu["id"], menu_order=1)
    create(client, admin, "/cms/v2/menu-items", type="taxonomy", object_id=news["id"], menus=menu["id"], menu_order=2,
           parent=top["id"], title="Our news")
    create(client, admin, "/cms/v2/menu-items", type="post_type", object_id=hidden["id"], menus=menu["id"], menu_order=3)
    create(client, admin, "/cms/v2/menu-items", title="Elsewhere", url="https://elsewhere.example/", target="_blank",
           menus=menu["id"], menu_order=4, classes=["highlight"])
    text = page(client, "/about-us/")
    header = nav_of(text)
    assert links(header) == ["About us", "Our news", "Elsewhere", "Log in"]  # the draft's entry is left out
    # The nested entry is a list inside its parent's item; the current page is marked.
    assert re.search(r'<li class=" menu-item-has-children"><a href="http://example.test/about-us/" aria-current="page">About us</a>'
                     r'<ul>\s*<li><a href="http://example.test/category/news/">Our news</a></li>\s*</ul></li>', header), header
    assert '<li class="highlight"><a href="https://elsewhere.example/" target="_blank" rel="noopener">Elsewhere</a></li>' in header
    assert current(nav_of(page(client))) == []
    assert nav_of(text, "Footer") == ""

    footer_menu = create(client, admin, "/cms/v2/menus", name="Small print", locations=["footer"])
    create(client, admin, "/cms/v2/menu-items", title="Imprint", url="https://example.test/imprint/", menus=footer_menu["id"])
    footer = nav_of(page(client), "Footer")
    assert links(footer) == ["Imprint"]
    # Renaming an entry shows at once (pages are cached per content counter).
    entry = client.get("/cms/v2/menu-items", params={"menus": menu["id"]}, user=admin).json[0]
    assert client.post(f"/cms/v2/menu-items/{entry['id']}", json={"title": "Who we are"}, user=admin).status_code == 200
    assert links(nav_of(page(client)))[0] == "Who we are"
    # Taking the menu out of its location brings back the fallback.
    client.post(f"/cms/v2/menus/{menu['id']}", json={"locations": []}, user=admin)
    assert links(nav_of(page(client)))[:2] == ["Home", "About us"]


def test_the_header_menu_through_a_real_server(live_server: Any) -> None:
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
    password = live_server.cli("user", "application-password", "create", "admin", "nav", "--porcelain").strip()
    with httpx.Client(base_url=live_server.url, auth=("admin", password), timeout=20) as rest:
        menu = rest.post("/wp-json/cms/v2/menus", json={"name": "Live", "locations": ["primary"]})
        assert menu.status_code == 201, menu.text
        item = rest.post("/wp-json/cms/v2/menu-items", json={"title": "Calendar", "url": live_server.url + "/events/",
                                                            "menus": menu.json()["id"]})
        assert item.status_code == 201, item.text
        response = httpx.get(live_server.url + "/events/", headers=HTML, timeout=20)
    assert response.status_code == 200
    header = nav_of(response.text)
    assert links(header) == ["Calendar", "Log in"]
    assert current(header) == ["Calendar"]
