"""/cms/v2/menus, /cms/v2/menu-items and /cms/v2/menu-locations against the reference's menus,
menu items and menu locations controllers (WordPress 5.9+): fields, rules, errors."""

from __future__ import annotations

from typing import Any

from content_support import make_item

from calpress.content import menus

CURIES = [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]
BASE = "http://example.test/cms/v2"


def check_error(response: Any, status: int, code: str, message: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.json
    body = response.json
    assert body["code"] == code, body
    assert body["data"]["status"] == status
    if message is not None:
        assert body["message"] == message
    return body


def no_hints(data: Any) -> Any:
    """``data`` without the engine's ``targetHints`` on self links (checked by the engine's tests)."""
    if isinstance(data, dict):
        return {k: no_hints(v) for k, v in data.items() if k != "targetHints"}
    if isinstance(data, list):
        return [no_hints(v) for v in data]
    return data


def new_menu(client: Any, admin: Any, **fields: Any) -> dict[str, Any]:
    response = client.post("/cms/v2/menus", json={"name": "Main", **fields}, user=admin)
    assert response.status_code == 201, response.json
    return response.json


# -- menus ----------------------------------------------------------------------------------------


def test_menu_create_read_update_delete(client: Any, app: Any, admin: Any) -> None:
    response = client.post("/cms/v2/menus", json={"name": "Main menu", "description": "Top", "locations": ["primary"],
                                                  "auto_add": True}, user=admin)
    assert response.status_code == 201, response.json
    menu = response.json
    assert response.headers["location"] == f"{BASE}/menus/{menu['id']}"
    assert list(menu) == ["id", "description", "name", "slug", "meta", "locations", "auto_add", "_links"]
    assert menu["name"] == "Main menu" and menu["slug"] == "main-menu" and menu["description"] == "Top"
    assert menu["locations"] == ["primary"] and menu["auto_add"] is True and menu["meta"] == []
    assert menu["_links"]["self"][0]["href"] == f"{BASE}/menus/{menu['id']}"
    assert {**menu["_links"], "self": None} == {
        "self": None,
        "collection": [{"href": f"{BASE}/menus"}],
        "about": [{"href": f"{BASE}/taxonomies/nav_menu"}],
        "wp:post_type": [{"href": f"{BASE}/menu-items?menus={menu['id']}"}],
        "wp:menu-location": [{"embeddable": True, "href": f"{BASE}/menu-locations/primary"}],
        "curies": CURIES,
    }
    options = app.site.load_options()
    assert options[menus.LOCATIONS_OPTION] == {"primary": menu["id"]}
    assert options[menus.MENU_OPTIONS_OPTION] == {"auto_add": [menu["id"]]}

    listed = client.get("/cms/v2/menus", user=admin)
    assert [m["id"] for m in listed.json] == [menu["id"]] and listed.headers["x-wp-total"] == "1"
    embed = client.get(f"/cms/v2/menus/{menu['id']}", params={"context": "embed"}, user=admin).json
    assert list(embed) == ["id", "name", "slug", "_links"]

    # Moving it to the footer leaves the primary location; auto_add off takes it out of the option.
    updated = client.post(f"/cms/v2/menus/{menu['id']}", json={"name": "Renamed", "locations": ["footer"], "auto_add": False},
                          user=admin)
    assert updated.status_code == 200, updated.json
    assert updated.json["name"] == "Renamed" and updated.json["slug"] == "main-menu"
    assert updated.json["locations"] == ["footer"] and updated.json["auto_add"] is False
    assert app.site.load_options()[menus.LOCATIONS_OPTION] == {"footer": menu["id"]}

    item = client.post("/cms/v2/menu-items", json={"title": "Home", "url": "https://example.test/", "menus": menu["id"]},
                       user=admin).json
    check_error(client.delete(f"/cms/v2/menus/{menu['id']}", user=admin), 501, "rest_trash_not_supported",
                "Menus do not support trashing. Set 'force=true' to delete.")
    deleted = client.delete(f"/cms/v2/menus/{menu['id']}", params={"force": "true"}, user=admin)
    assert deleted.status_code == 200
    assert deleted.json["deleted"] is True and deleted.json["previous"]["name"] == "Renamed"
    # Its entries and its place in the locations went with it.
    check_error(client.get(f"/cms/v2/menu-items/{item['id']}", user=admin), 404, "rest_post_invalid_id")
    assert app.site.load_options()[menus.LOCATIONS_OPTION] == {"footer": 0}
    check_error(client.get(f"/cms/v2/menus/{menu['id']}", user=admin), 404, "rest_term_invalid", "Term does not exist.")


def test_auto_add_takes_new_top_level_pages(client: Any, admin: Any) -> None:
    menu = new_menu(client, admin, auto_add=True)
    other = new_menu(client, admin, name="Other")
    first = client.post("/cms/v2/pages", json={"title": "Visit", "status": "publish"}, user=admin).json
    client.post("/cms/v2/pages", json={"title": "Under it", "status": "publish", "parent": first["id"]}, user=admin)
    draft = client.post("/cms/v2/pages", json={"title": "Later", "status": "draft"}, user=admin).json
    listed = client.get("/cms/v2/menu-items", params={"menus": menu["id"]}, user=admin).json
    assert [(i["object_id"], i["type"], i["title"]["rendered"]) for i in listed] == [(first["id"], "post_type", "Visit")]
    # Publishing the draft adds it after; publishing again adds nothing; other menus are left alone.
    client.post(f"/cms/v2/pages/{draft['id']}", json={"status": "publish"}, user=admin)
    client.post(f"/cms/v2/pages/{draft['id']}", json={"title": "Later on"}, user=admin)
    listed = client.get("/cms/v2/menu-items", params={"menus": menu["id"]}, user=admin).json
    assert [i["title"]["rendered"] for i in listed] == ["Visit", "Later on"]
    assert [i["menu_order"] for i in listed] == [0, 2]  # as the reference numbers them
    assert client.get("/cms/v2/menu-items", params={"menus": other["id"]}, user=admin).json == []


def test_menu_errors(client: Any, admin: Any) -> None:
    menu = new_menu(client, admin)
    body = check_error(client.post("/cms/v2/menus", json={"name": "main"}, user=admin), 400, "menu_exists")
    assert body["message"] == "The menu name <strong>main</strong> conflicts with another menu name. Please try another."
    assert body["data"]["term_id"] == menu["id"]
    other = new_menu(client, admin, name="Other")
    check_error(client.post(f"/cms/v2/menus/{other['id']}", json={"name": "Main"}, user=admin), 400, "menu_exists")
    body = check_error(client.post("/cms/v2/menus", json={"name": "X", "locations": ["sidebar"]}, user=admin), 400, "rest_invalid_param")
    assert body["data"]["params"] == {"locations": "Invalid menu location."}
    assert body["data"]["details"]["locations"]["code"] == "rest_invalid_menu_location"
    check_error(client.post("/cms/v2/menus", json={"name": "X", "parent": 1}, user=admin), 400, "rest_taxonomy_not_hierarchical")
    check_error(client.post("/cms/v2/menus", json={}, user=admin), 400, "rest_missing_callback_param")
    check_error(client.post("/cms/v2/menus", json={"name": " "}, user=admin), 400, "empty_term_name")
    check_error(client.post(f"/cms/v2/menus/{other['id']}", json={"name": ""}, user=admin), 400, "empty_term_name")
    check_error(client.post(f"/cms/v2/menus/{other['id']}", json={"slug": menu["slug"]}, user=admin), 400, "duplicate_term_slug")
    check_error(client.post("/cms/v2/menus", json={"name": "X", "auto_add": "maybe"}, user=admin), 400, "rest_invalid_param")


def test_menu_permissions(client: Any, accounts: dict[str, Any], admin: Any) -> None:
    menu = new_menu(client, admin, locations=["primary"])
    # Visitors are refused even a menu shown in a location (the reference's read-only check).
    check_error(client.get("/cms/v2/menus"), 401, "rest_cannot_view", "Sorry, you are not allowed to view menus.")
    check_error(client.get(f"/cms/v2/menus/{menu['id']}"), 401, "rest_cannot_view")
    check_error(client.get("/cms/v2/menus", user=accounts["subscriber"]), 403, "rest_cannot_view")
    # Anyone who may edit posts may read them, but not edit them.
    contributor = accounts["contributor"]
    assert client.get("/cms/v2/menus", user=contributor).status_code == 200
    check_error(client.get("/cms/v2/menus", params={"context": "edit"}, user=contributor), 403, "rest_forbidden_context")
    check_error(client.post("/cms/v2/menus", json={"name": "Mine"}, user=accounts["editor"]), 403, "rest_cannot_create",
                "Sorry, you are not allowed to create terms in this taxonomy.")
    check_error(client.post(f"/cms/v2/menus/{menu['id']}", json={"name": "Mine"}, user=accounts["editor"]), 403, "rest_cannot_update")
    check_error(client.delete(f"/cms/v2/menus/{menu['id']}", params={"force": "true"}, user=accounts["editor"]), 403,
                "rest_cannot_delete")


def test_menus_in_taxonomies_and_types(client: Any) -> None:
    taxonomies = client.get("/cms/v2/taxonomies").json
    assert list(taxonomies)[:3] == ["category", "post_tag", "nav_menu"]
    assert taxonomies["nav_menu"]["rest_base"] == "menus" and taxonomies["nav_menu"]["types"] == ["nav_menu_item"]
    types = client.get("/cms/v2/types").json
    assert list(types)[:4] == ["post", "page", "attachment", "nav_menu_item"]
    assert types["nav_menu_item"]["rest_base"] == "menu-items"
    index = client.get("/").json["routes"]
    for route in ("/cms/v2/menus", "/cms/v2/menus/(?P<id>[\\d]+)", "/cms/v2/menu-items", "/cms/v2/menu-items/(?P<id>[\\d]+)",
                  "/cms/v2/menu-locations", "/cms/v2/menu-locations/(?P<location>[\\w-]+)"):
        assert route in index
    names = list(index)
    assert names.index("/cms/v2/menu-items") == names.index("/cms/v2/media/(?P<id>[\\d]+)/edit") + 1
    assert names.index("/cms/v2/menus") == names.index("/cms/v2/tags/(?P<id>[\\d]+)") + 1
    assert names.index("/cms/v2/menu-locations") > names.index("/cms-site-health/v1")


# -- menu items -----------------------------------------------------------------------------------


ITEM_KEYS = ["id", "title", "status", "url", "attr_title", "description", "type", "type_label", "object", "object_id", "parent",
             "menu_order", "target", "classes", "xfn", "invalid", "meta", "menus", "_links"]


def test_menu_item_custom_link(client: Any, admin: Any) -> None:
    menu = new_menu(client, admin)
    response = client.post("/cms/v2/menu-items", json={
        "title": "Docs", "url": " https://docs.example/", "menus": menu["id"], "classes": "one two", "xfn": ["friend"],
        "target": "_blank", "attr_title": "The docs", "description": "Read them",
    }, user=admin)
    assert response.status_code == 201, response.json
    item = response.json
    assert response.headers["location"] == f"{BASE}/menu-items/{item['id']}"
    assert list(item) == ITEM_KEYS
    assert item["title"] == {"raw": "Docs", "rendered": "Docs"}
    assert item["url"] == "https://docs.example/" and item["type"] == "custom" and item["type_label"] == "Custom Link"
    assert item["object"] == "custom" and item["object_id"] == item["id"]
    assert item["status"] == "publish" and item["menu_order"] == 1 and item["parent"] == 0 and item["menus"] == menu["id"]
    assert item["classes"] == ["one", "two"] and item["xfn"] == ["friend"] and item["target"] == "_blank"
    assert item["attr_title"] == "The docs" and item["description"] == "Read them" and item["invalid"] is False
    links = item["_links"]
    assert no_hints(links["self"]) == [{"href": f"{BASE}/menu-items/{item['id']}"}]
    assert links["about"] == [{"href": f"{BASE}/types/nav_menu_item"}]
    assert links["wp:term"] == [{"taxonomy": "nav_menu", "embeddable": True, "href": f"{BASE}/menus?post={item['id']}"}]
    assert "wp:action-publish" in links and "wp:action-assign-menus" in links

    second = client.post("/cms/v2/menu-items", json={"title": "Sub", "url": "https://x.example/", "menus": menu["id"],
                                                     "parent": item["id"], "menu_order": 2}, user=admin).json
    assert second["parent"] == item["id"] and second["menu_order"] == 2
    view = client.get(f"/cms/v2/menu-items/{item['id']}", user=admin).json
    assert view["title"] == {"rendered": "Docs"}
    listed = client.get("/cms/v2/menu-items", params={"menus": menu["id"]}, user=admin)
    assert [i["id"] for i in listed.json] == [item["id"], second["id"]]
    assert client.get("/cms/v2/menu-items", params={"menus": menu["id"], "order": "desc"}, user=admin).json[0]["id"] == second["id"]

    updated = client.post(f"/cms/v2/menu-items/{item['id']}", json={"title": "Documentation"}, user=admin)
    assert updated.status_code == 200, updated.json
    assert updated.json["title"]["raw"] == "Documentation" and updated.json["url"] == "https://docs.example/"
    assert updated.json["classes"] == ["one", "two"] and updated.json["menus"] == menu["id"]

    check_error(client.delete(f"/cms/v2/menu-items/{item['id']}", user=admin), 501, "rest_trash_not_supported",
                "Menu items do not support trashing. Set 'force=true' to delete.")
    deleted = client.delete(f"/cms/v2/menu-items/{item['id']}", params={"force": "true"}, user=admin)
    assert deleted.json["deleted"] is True and deleted.json["previous"]["title"]["rendered"] == "Documentation"
    check_error(client.get(f"/cms/v2/menu-items/{item['id']}", user=admin), 404, "rest_post_invalid_id", "Invalid post ID.")


def test_menu_item_objects(client: Any, app: Any, admin: Any) -> None:
    menu = new_menu(client, admin)
    page = make_item(app, "page", title="About us")
    category = client.post("/cms/v2/categories", json={"name": "News"}, user=admin).json
    to_page = client.post("/cms/v2/menu-items", json={"type": "post_type", "object_id": page.id, "menus": menu["id"]}, user=admin).json
    assert to_page["object"] == "page" and to_page["type_label"] == "Page" and to_page["title"]["raw"] == ""
    assert to_page["title"]["rendered"] == "About us" and to_page["url"] == "http://example.test/about-us/"
    assert to_page["_links"]["wp:menu-item-object"] == [
        {"post_type": "page", "embeddable": True, "href": f"{BASE}/pages/{page.id}"}
    ]
    # Titles equal to the object's are stored empty, so they follow it.
    same = client.post("/cms/v2/menu-items", json={"type": "post_type", "object_id": page.id, "title": "About us",
                                                   "menus": menu["id"]}, user=admin).json
    assert same["title"]["raw"] == ""
    to_term = client.post("/cms/v2/menu-items", json={"type": "taxonomy", "object_id": category["id"], "menus": menu["id"]},
                          user=admin).json
    assert to_term["object"] == "category" and to_term["type_label"] == "Category"
    assert to_term["title"]["rendered"] == "News" and to_term["url"] == "http://example.test/category/news/"
    archive = client.post("/cms/v2/menu-items", json={"type": "post_type_archive", "object": "cal_events", "menus": menu["id"]},
                          user=admin).json
    assert archive["type_label"] == "Post Type Archive" and archive["url"] == "http://example.test/events/"
    # A trashed page makes its entries invalid; deleting it for good deletes them, as deleting a
    # term deletes its entries.
    client.delete(f"/cms/v2/pages/{page.id}", user=admin)
    trashed = client.get(f"/cms/v2/menu-items/{to_page['id']}", user=admin).json
    assert trashed["invalid"] is True
    client.delete(f"/cms/v2/pages/{page.id}", params={"force": "true"}, user=admin)
    assert client.get(f"/cms/v2/menu-items/{to_page['id']}", user=admin).status_code == 404
    assert client.get(f"/cms/v2/menu-items/{same['id']}", user=admin).status_code == 404
    client.delete(f"/cms/v2/categories/{category['id']}", params={"force": "true"}, user=admin)
    assert client.get(f"/cms/v2/menu-items/{to_term['id']}", user=admin).status_code == 404
    assert client.get(f"/cms/v2/menu-items/{archive['id']}", user=admin).status_code == 200


def test_menu_item_errors(client: Any, admin: Any) -> None:
    body = check_error(client.post("/cms/v2/menu-items", json={"type": "custom"}, user=admin), 400, "rest_title_required",
                       "The title is required when using a custom menu item type.")
    assert [e["code"] for e in body["additional_errors"]] == ["rest_url_required"]
    check_error(client.post("/cms/v2/menu-items", json={"type": "post_type", "object_id": 999999}, user=admin), 400,
                "rest_post_invalid_id", "Invalid post ID.")
    check_error(client.post("/cms/v2/menu-items", json={"type": "taxonomy", "object_id": 999999}, user=admin), 400,
                "rest_term_invalid_id", "Invalid term ID.")
    check_error(client.post("/cms/v2/menu-items", json={"type": "post_type_archive", "object": "nope"}, user=admin), 400,
                "rest_post_invalid_type", "Invalid post type.")
    check_error(client.post("/cms/v2/menu-items", json={"title": "X", "url": "https://x.example/", "menus": 999999}, user=admin),
                400, "invalid_menu_id", "Invalid menu ID.")
    check_error(client.post("/cms/v2/menu-items", json={"title": "X", "url": "https://x.example/", "type": "weird"}, user=admin),
                400, "rest_invalid_param")
    check_error(client.post("/cms/v2/menu-items", json={"title": "X", "url": "https://x.example/", "target": "_top"}, user=admin),
                400, "rest_invalid_param")
    check_error(client.post("/cms/v2/menu-items", json={"title": "X", "url": "https://x.example/", "menu_order": 0}, user=admin),
                400, "rest_invalid_param")
    check_error(client.post("/cms/v2/menu-items", json={"id": 5, "title": "X", "url": "https://x.example/"}, user=admin), 400,
                "rest_post_exists")
    check_error(client.get("/cms/v2/menu-items/999999", user=admin), 404, "rest_post_invalid_id")


def test_menu_item_permissions(client: Any, accounts: dict[str, Any], admin: Any) -> None:
    menu = new_menu(client, admin)
    item = client.post("/cms/v2/menu-items", json={"title": "Home", "url": "https://example.test/", "menus": menu["id"]},
                       user=admin).json
    check_error(client.get("/cms/v2/menu-items"), 401, "rest_cannot_view", "Sorry, you are not allowed to view menu items.")
    check_error(client.get(f"/cms/v2/menu-items/{item['id']}"), 401, "rest_cannot_view")
    check_error(client.get("/cms/v2/menu-items", user=accounts["subscriber"]), 403, "rest_cannot_view")
    assert client.get(f"/cms/v2/menu-items/{item['id']}", user=accounts["author"]).status_code == 200
    editor = accounts["editor"]
    check_error(client.post("/cms/v2/menu-items", json={"title": "X", "url": "https://x.example/"}, user=editor), 403,
                "rest_cannot_create")
    check_error(client.post(f"/cms/v2/menu-items/{item['id']}", json={"title": "X"}, user=editor), 403, "rest_cannot_edit")
    check_error(client.delete(f"/cms/v2/menu-items/{item['id']}", params={"force": "true"}, user=editor), 403, "rest_cannot_delete")


# -- menu locations -------------------------------------------------------------------------------


def test_menu_locations(client: Any, accounts: dict[str, Any], admin: Any) -> None:
    menu = new_menu(client, admin, locations=["footer"])
    listed = client.get("/cms/v2/menu-locations", user=admin)
    assert listed.status_code == 200
    assert no_hints(listed.json) == {
        "primary": {"name": "primary", "description": "Primary menu", "menu": 0, "_links": {
            "self": [{"href": f"{BASE}/menu-locations/primary"}], "collection": [{"href": f"{BASE}/menu-locations"}]}},
        "footer": {"name": "footer", "description": "Footer menu", "menu": menu["id"], "_links": {
            "self": [{"href": f"{BASE}/menu-locations/footer"}], "collection": [{"href": f"{BASE}/menu-locations"}],
            "wp:menu": [{"embeddable": True, "href": f"{BASE}/menus/{menu['id']}"}], "curies": CURIES}},
    }
    assert client.get("/cms/v2/menu-locations/footer", user=admin).json["menu"] == menu["id"]
    check_error(client.get("/cms/v2/menu-locations/sidebar", user=admin), 404, "rest_menu_location_invalid", "Invalid menu location.")
    check_error(client.get("/cms/v2/menu-locations"), 401, "rest_cannot_view", "Sorry, you are not allowed to view menu locations.")
    check_error(client.get("/cms/v2/menu-locations/footer", user=accounts["editor"]), 403, "rest_cannot_view")
