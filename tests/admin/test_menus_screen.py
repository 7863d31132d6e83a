"""Appearance > Menus (``/wp-admin/nav-menus.php``) through the WSGI app, as an administrator's
browser without script: create, rename and delete a menu; add pages, posts, events, categories
and custom links; move, nest and remove entries; choose locations. Checked against the REST
routes the screen writes through."""

from __future__ import annotations

import re
from typing import Any

from admin_support import Browser, fields_of, location

from calpress.admin.nav_menus import reordered

SCREEN = "/wp-admin/nav-menus.php"


def create(client: Any, user: Any, route: str, **body: Any) -> dict[str, Any]:
    response = client.post(route, user=user, json=body)
    assert response.status_code == 201, response.json
    return response.json


def entries(client: Any, admin: Any, menu_id: int) -> list[tuple[str, int, str]]:
    """(title, menu order, parent's title) of each entry, in menu order."""
    found = client.get("/cms/v2/menu-items", user=admin, params={"menus": menu_id, "context": "edit"}).json
    titles = {e["id"]: e["title"]["rendered"] for e in found}
    return [(e["title"]["rendered"], e["menu_order"], titles.get(e["parent"], "")) for e in found]


def structure(page: str) -> list[str]:
    return re.findall(r'<span class="menu-item-title">(.*?)</span>', page)


def test_only_those_who_edit_theme_options_open_it(client: Any, accounts: dict[str, Any]) -> None:
    for role in ("editor", "author", "subscriber"):
        answer = Browser(client, accounts[role]).get(SCREEN)
        assert answer.status_code == 403 and "Sorry, you are not allowed to edit theme options on this site." in answer.text
    page = Browser(client, accounts["administrator"]).get(SCREEN)
    assert page.status_code == 200
    assert 'href="/wp-admin/nav-menus.php" aria-current="page"' in page.text  # Appearance > Menus in the admin menu
    assert 'id="create-menu"' in page.text  # no menu yet: the create form


def test_a_menu_is_built_arranged_and_placed(client: Any, admin: Any) -> None:
    about = create(client, admin, "/cms/v2/pages", title="About us", status="publish")
    news = create(client, admin, "/cms/v2/posts", title="Big news", status="publish")
    category = create(client, admin, "/cms/v2/categories", name="Updates")
    event = create(client, admin, "/cal/events/v1/events", title="Summer fair", start_date="2030-07-01 10:00:00",
                   end_date="2030-07-01 12:00:00")
    browser = Browser(client, admin)

    # Create.
    form = browser.form(SCREEN, "create-menu")
    form["menu-name"] = "Main menu"
    target = location(browser.post(SCREEN, form))
    menu_id = int(re.search(r"menu=(\d+)", target).group(1))
    page = browser.get(target).text
    assert "Menu created." in page and 'value="Main menu"' in page

    # Add a page, a post, an event, a category and a custom link (one box each).
    for box, values in (("add-page", {"page[]": [about["id"]]}), ("add-post", {"post[]": [news["id"]]}),
                        ("add-event", {"event[]": [event["id"]]}), ("add-category", {"category[]": [category["id"]]}),
                        ("add-custom", {"custom-url": "https://elsewhere.example/", "custom-label": "Elsewhere"})):
        fields = {key: value for key, value in fields_of(page, box).items() if not key.endswith("[]")}
        answer = browser.post(SCREEN, {**fields, **values})
        assert "message=added" in location(answer), box
    assert entries(client, admin, menu_id) == [("About us", 1, ""), ("Big news", 2, ""), ("Summer fair", 3, ""),
                                               ("Updates", 4, ""), ("Elsewhere", 5, "")]
    page = browser.get(f"{SCREEN}?menu={menu_id}").text
    assert structure(page) == ["About us", "Big news", "Summer fair", "Updates", "Elsewhere"]
    ids = {e["title"]["rendered"]: e["id"] for e in client.get("/cms/v2/menu-items", user=admin, params={"menus": menu_id}).json}

    def act(operation: str, title: str) -> None:
        fields = fields_of(browser.get(f"{SCREEN}?menu={menu_id}").text, "menu-structure-form")
        answer = browser.post(SCREEN, {**fields, "entry-action": f"{operation}:{ids[title]}"})
        assert "message=" in location(answer), (operation, title, answer.text[:300])

    act("up", "Big news")       # Big news, About us, ...
    act("indent", "About us")   # About us under Big news
    act("indent", "Summer fair")  # Summer fair under Big news too (after About us)
    act("down", "Updates")      # Elsewhere before Updates
    assert entries(client, admin, menu_id) == [("Big news", 1, ""), ("About us", 2, "Big news"), ("Summer fair", 3, "Big news"),
                                               ("Elsewhere", 4, ""), ("Updates", 5, "")]
    act("outdent", "About us")  # right after Big news, at the top level; Summer fair stays under Big news
    assert entries(client, admin, menu_id) == [("Big news", 1, ""), ("Summer fair", 2, "Big news"), ("About us", 3, ""),
                                               ("Elsewhere", 4, ""), ("Updates", 5, "")]
    act("remove", "Big news")   # its child moves up to the top level
    assert entries(client, admin, menu_id) == [("Summer fair", 2, ""), ("About us", 3, ""), ("Elsewhere", 4, ""),
                                               ("Updates", 5, "")]
    page = browser.get(f"{SCREEN}?menu={menu_id}").text
    assert structure(page) == ["Summer fair", "About us", "Elsewhere", "Updates"]

    # An entry's label, and a custom link's address; an empty label of a page's entry follows the page.
    fields = fields_of(page, f"menu-item-form-{ids['Elsewhere']}")
    answer = browser.post(SCREEN, {**fields, "menu-item-title": "Far away", "menu-item-url": "https://far.example/"})
    assert "message=item" in location(answer)
    fields = fields_of(page, f"menu-item-form-{ids['About us']}")
    assert "message=item" in location(browser.post(SCREEN, {**fields, "menu-item-title": "Who we are"}))
    page = browser.get(f"{SCREEN}?menu={menu_id}").text
    assert structure(page) == ["Summer fair", "Who we are", "Far away", "Updates"]
    assert f'id="edit-menu-item-url-{ids["Elsewhere"]}" name="menu-item-url" value="https://far.example/"' in page
    fields = fields_of(page, f"menu-item-form-{ids['About us']}")
    assert "message=item" in location(browser.post(SCREEN, {**fields, "menu-item-title": ""}))
    refused = browser.post(SCREEN, {**fields_of(page, f"menu-item-form-{ids['Elsewhere']}"), "menu-item-title": ""})
    assert refused.status_code == 400 and "The title is required when using a custom menu item type." in refused.text
    page = browser.get(f"{SCREEN}?menu={menu_id}").text
    assert structure(page) == ["Summer fair", "About us", "Far away", "Updates"]

    # Rename, auto-add and the primary location (Save Menu).
    fields = fields_of(page, "update-nav-menu")
    answer = browser.post(SCREEN, {**fields, "menu-name": "Header menu", "auto-add-pages": "1", "menu-locations[primary]": "1",
                                   "action": "update"})
    assert "message=updated" in location(answer)
    menu = client.get(f"/cms/v2/menus/{menu_id}", user=admin).json
    assert (menu["name"], menu["auto_add"], menu["locations"]) == ("Header menu", True, ["primary"])
    public = client.get("/", headers={"Accept": "text/html"}).text
    assert re.search(r'aria-label="Site">\s*<ul>\s*<li><a href="[^"]*">Summer fair</a>', public)

    # A name another menu has is refused beside the form, nothing changed.
    create(client, admin, "/cms/v2/menus", name="Footer links")
    refused = browser.post(SCREEN, {**fields, "menu-name": "Footer links", "action": "update"})
    assert refused.status_code == 400 and "conflicts with another menu name" in refused.text
    assert client.get(f"/cms/v2/menus/{menu_id}", user=admin).json["name"] == "Header menu"

    # Manage Locations: the footer gets the other menu, the primary none.
    others = {m["name"]: m["id"] for m in client.get("/cms/v2/menus", user=admin).json}
    form = browser.form(f"{SCREEN}?action=locations", "menu-locations")
    form.update({"menu-locations[primary]": "0", "menu-locations[footer]": str(others["Footer links"])})
    assert "message=locations" in location(browser.post(SCREEN, form))
    locations = client.get("/cms/v2/menu-locations", user=admin).json
    assert (locations["primary"]["menu"], locations["footer"]["menu"]) == (0, others["Footer links"])
    page = browser.get(f"{SCREEN}?action=locations").text
    assert f'<option value="{others["Footer links"]}" selected>Footer links</option>' in page

    # Delete.
    fields = fields_of(browser.get(f"{SCREEN}?menu={menu_id}").text, "update-nav-menu")
    assert "message=deleted" in location(browser.post(SCREEN, {**fields, "action": "delete"}))
    assert client.get(f"/cms/v2/menus/{menu_id}", user=admin).status_code == 404
    assert client.get("/cms/v2/menu-items", user=admin, params={"menus": menu_id}).json == []


def test_forms_need_their_nonce(client: Any, admin: Any) -> None:
    browser = Browser(client, admin)
    refused = browser.post(SCREEN, {"action": "create", "menu-name": "X", "_wpnonce": "nope"})
    assert refused.status_code == 403 and "The link you followed has expired." in refused.text
    assert client.get("/cms/v2/menus", user=admin).json == []


def test_reordered_moves_whole_branches() -> None:
    entries = [{"id": 1, "menu_order": 1, "parent": 0}, {"id": 2, "menu_order": 2, "parent": 1},
               {"id": 3, "menu_order": 3, "parent": 0}]
    # Moving the first branch down carries its child along.
    assert reordered(entries, 1, "down") == {3: (0, 1), 1: (0, 2), 2: (1, 3)}
    assert reordered(entries, 3, "indent") == {1: (0, 1), 2: (1, 2), 3: (1, 3)}
    assert reordered(entries, 2, "outdent") == {1: (0, 1), 2: (0, 2), 3: (0, 3)}
    assert reordered(entries, 1, "up") == {1: (0, 1), 2: (1, 2), 3: (0, 3)}  # already first: unchanged
