"""/cms/v2/settings, /cms/v2/types and /cms/v2/statuses (cms-api.md 7.5, 7.6, 7.7) against the
reference's controllers: fields per context, permissions by role, the reference's error codes,
and settings writes that persist and show in the site description."""

from __future__ import annotations

from typing import Any

import pytest

from calpress.app import build_registry
from calpress.store import options as store_options

TYPES = build_registry().types  # the types the app registers

CURIES = [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]
SETTING_KEYS = [
    "title", "description", "url", "email", "timezone", "date_format", "time_format", "start_of_week", "language",
    "use_smilies", "default_category", "default_post_format", "posts_per_page", "show_on_front", "page_on_front",
    "page_for_posts", "default_ping_status", "default_comment_status", "site_logo", "site_icon",
]
ROLES = ("subscriber", "contributor", "author", "editor", "administrator")


def check_error(response: Any, status: int, code: str, message: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.json
    body = response.json
    assert body["code"] == code, body
    assert body["data"]["status"] == status
    if message is not None:
        assert body["message"] == message
    return body


def store(app: Any, name: str, value: Any) -> None:
    """An option written straight to the table (as another tool might have left it)."""
    with app.site.write() as conn:
        store_options.set_option(conn, name, value)
    app.site.forget_options()


def stored(app: Any, name: str) -> Any:
    with app.site.read() as conn:
        return store_options.get_option(conn, name, "<missing>")


# -- settings (7.5) -------------------------------------------------------------------------------


def test_7_5_settings_read_by_an_administrator(client, admin):
    response = client.get("/cms/v2/settings", user=admin)
    assert response.status_code == 200
    body = response.json
    assert list(body) == SETTING_KEYS
    assert body == {
        "title": "calpress",
        "description": "",
        "url": "http://example.test",
        "email": "administrator@example.test",  # the first administrator's, stored when it was created
        "timezone": "UTC",
        "date_format": "F j, Y",
        "time_format": "g:i a",
        "start_of_week": 1,
        "language": "en_US",
        "use_smilies": True,
        "default_category": 1,
        "default_post_format": "0",
        "posts_per_page": 10,
        "show_on_front": "posts",
        "page_on_front": 0,
        "page_for_posts": 0,
        "default_ping_status": "open",
        "default_comment_status": "open",
        "site_logo": 0,
        "site_icon": 0,
    }


def test_7_5_settings_need_manage_options(client, accounts):
    check_error(client.get("/cms/v2/settings"), 401, "rest_forbidden", "Sorry, you are not allowed to do that.")
    for role in ("subscriber", "contributor", "author", "editor"):
        check_error(client.get("/cms/v2/settings", user=accounts[role]), 403, "rest_forbidden")
    # Writing needs the same capability, refused with the same generic error (the reference's
    # settings controller has one permission check for both).
    check_error(client.post("/cms/v2/settings", json={"description": "x", "title": "y"}, user=accounts["editor"]), 403,
                "rest_forbidden", "Sorry, you are not allowed to do that.")
    check_error(client.put("/cms/v2/settings", json={"site_icon": 3}), 401, "rest_forbidden")
    check_error(client.patch("/cms/v2/settings", json={"blogname": "x"}, user=accounts["subscriber"]), 403, "rest_forbidden")
    check_error(client.post("/cms/v2/settings", json={"title": None}, user=accounts["author"]), 403, "rest_forbidden")
    check_error(client.post("/cms/v2/settings"), 401, "rest_forbidden")
    assert client.get("/", params={"_fields": "name"}).json == {"name": "calpress"}


def test_7_5_settings_writes_persist_and_show_in_the_site_description(client, app, admin):
    response = client.post(
        "/cms/v2/settings",
        json={"title": "Jazz Calendar", "description": "Gigs in town", "timezone": "Europe/Paris", "posts_per_page": 25},
        user=admin,
    )
    assert response.status_code == 200
    body = response.json
    assert list(body) == SETTING_KEYS  # an update answers with every setting
    assert (body["title"], body["description"], body["timezone"], body["posts_per_page"]) == (
        "Jazz Calendar", "Gigs in town", "Europe/Paris", 25,
    )
    site = client.get("/").json
    assert (site["name"], site["description"], site["timezone_string"]) == ("Jazz Calendar", "Gigs in town", "Europe/Paris")
    assert stored(app, "blogname") == "Jazz Calendar" and stored(app, "posts_per_page") == 25
    # PUT and PATCH write the same way; settings not sent are left alone.
    assert client.put("/cms/v2/settings", json={"show_on_front": "page", "page_on_front": 7}, user=admin).status_code == 200
    patched = client.patch("/cms/v2/settings", json={"use_smilies": False, "site_logo": 12}, user=admin).json
    assert (patched["use_smilies"], patched["site_logo"], patched["title"]) == (False, 12, "Jazz Calendar")
    site = client.get("/").json
    assert (site["show_on_front"], site["page_on_front"], site["site_logo"]) == ("page", 7, 12)
    again = client.get("/cms/v2/settings", user=admin).json
    assert (again["show_on_front"], again["page_on_front"], again["use_smilies"]) == ("page", 7, False)


def test_7_5_settings_form_bodies_and_unknown_keys(client, admin):
    response = client.post(
        "/cms/v2/settings",
        body="start_of_week=0&use_smilies=0&default_comment_status=closed&blogname=ignored",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        user=admin,
    )
    assert response.status_code == 200
    body = response.json
    assert (body["start_of_week"], body["use_smilies"], body["default_comment_status"]) == (0, False, "closed")
    assert body["title"] == "calpress"  # option names are not setting names


def test_7_5_settings_writes_are_cleaned_as_the_reference_cleans_options(client, app, admin):
    body = client.post(
        "/cms/v2/settings",
        json={
            "title": "Rock & <b>Roll</b>",
            "description": "It's \"live\"",
            "date_format": "<em>j</em> F Y",
            "start_of_week": -3,
            "default_category": -4,
            "posts_per_page": 0,
            "email": "events@example.com",
            "url": "https://cal.example.test/",
        },
        user=admin,
    ).json
    assert body["title"] == "Rock &amp; &lt;b&gt;Roll&lt;/b&gt;"
    assert body["description"] == "It&#039;s &quot;live&quot;"
    assert body["date_format"] == "j F Y"
    assert (body["start_of_week"], body["default_category"], body["posts_per_page"]) == (3, 4, 1)
    assert body["email"] == "events@example.com"
    assert body["url"] == "https://cal.example.test/"
    assert client.get("/").json["url"] == "https://cal.example.test"
    assert client.post("/cms/v2/settings", json={"posts_per_page": -7}, user=admin).json["posts_per_page"] == 7
    assert client.post("/cms/v2/settings", json={"posts_per_page": -1}, user=admin).json["posts_per_page"] == -1
    # Values the option refuses leave the stored one in place (the request still succeeds).
    kept = client.post(
        "/cms/v2/settings",
        json={"timezone": "Mars/Olympus_Mons", "language": "de_DE", "url": "ftp://files.example.test"},
        user=admin,
    )
    assert kept.status_code == 200
    assert (kept.json["timezone"], kept.json["language"], kept.json["url"]) == ("UTC", "en_US", "https://cal.example.test/")
    assert stored(app, "timezone_string") == "<missing>" and stored(app, "WPLANG") == "<missing>"
    # An empty zone and the empty language (English) are accepted.
    cleared = client.post("/cms/v2/settings", json={"timezone": "", "language": ""}, user=admin).json
    assert (cleared["timezone"], cleared["language"]) == ("", "")
    assert client.get("/").json["timezone_string"] == ""


@pytest.mark.parametrize(
    ("sent", "param", "message"),
    [
        ({"title": 5}, "title", "title is not of type string."),
        ({"start_of_week": "monday"}, "start_of_week", "start_of_week is not of type integer."),
        ({"use_smilies": "maybe"}, "use_smilies", "use_smilies is not of type boolean."),
        ({"default_ping_status": "sometimes"}, "default_ping_status", "default_ping_status is not one of open and closed."),
        ({"email": "not-an-address"}, "email", "Invalid email address."),
        ({"site_icon": 1.5}, "site_icon", "site_icon is not of type integer."),
        ({"posts_per_page": [10]}, "posts_per_page", "posts_per_page is not of type integer."),
    ],
)
def test_7_5_settings_bad_input_is_refused_before_anything_is_written(client, app, admin, sent, param, message):
    body = check_error(client.post("/cms/v2/settings", json={"title": "Written?", **sent} if param != "title" else sent, user=admin),
                       400, "rest_invalid_param")
    assert body["data"]["params"] == {param: message}
    assert client.get("/cms/v2/settings", user=admin).json["title"] == "calpress"
    assert stored(app, "blogname") == "<missing>"


def test_7_5_settings_bad_input_from_a_subscriber_is_a_validation_error(client, accounts):
    # As in the reference, arguments are checked before permissions.
    check_error(client.post("/cms/v2/settings", json={"start_of_week": "x"}, user=accounts["subscriber"]), 400, "rest_invalid_param")


def test_7_5_settings_null_resets_to_the_default(client, app, admin):
    client.post("/cms/v2/settings", json={"title": "Temporary", "posts_per_page": 30, "language": ""}, user=admin)
    body = client.post("/cms/v2/settings", json={"title": None, "posts_per_page": None, "language": None}, user=admin).json
    assert (body["title"], body["posts_per_page"], body["language"]) == ("calpress", 10, "en_US")
    assert stored(app, "blogname") == "<missing>"
    assert client.get("/").json["name"] == "calpress"
    # Nulling a setting that was never stored changes nothing.
    assert client.post("/cms/v2/settings", json={"site_icon": None}, user=admin).json["site_icon"] == 0


def test_7_5_settings_invalid_stored_values(client, app, admin):
    store(app, "page_on_front", "the front page")
    store(app, "use_smilies", "1")  # lossy values are cast to the setting's type
    body = client.get("/cms/v2/settings", user=admin).json
    assert body["page_on_front"] is None and body["use_smilies"] is True
    # A client echoing back the nulls it read must not wipe a value it could not see; the
    # whole request is refused, nothing else in it is written.
    error = check_error(
        client.post("/cms/v2/settings", json={"title": "Half written?", "page_on_front": None}, user=admin),
        500,
        "rest_invalid_stored_value",
        "The page_on_front property has an invalid stored value, and cannot be updated to null.",
    )
    assert error["data"] == {"status": 500}
    assert stored(app, "page_on_front") == "the front page" and stored(app, "blogname") == "<missing>"
    # A real value replaces it.
    assert client.post("/cms/v2/settings", json={"page_on_front": 9}, user=admin).json["page_on_front"] == 9


def test_7_5_settings_route_schema(client, admin):
    route = client.get("/", params={"context": "help"}).json["routes"]["/cms/v2/settings"]
    assert route["methods"] == ["GET", "POST", "PUT", "PATCH"]
    assert route["endpoints"][0]["args"] == []  # the reference's empty PHP array
    args = route["endpoints"][1]["args"]
    assert list(args) == SETTING_KEYS
    assert args["email"] == {
        "title": "", "description": "This address is used for admin purposes, like new user notification.",
        "type": "string", "format": "email", "required": False,
    }
    assert args["default_comment_status"]["enum"] == ["open", "closed"]
    assert "default" not in args["posts_per_page"]  # update arguments carry no defaults
    schema = route["schema"]
    assert schema["title"] == "settings"
    assert schema["properties"]["title"] == {"type": "string", "title": "Title", "description": "Site title.", "default": None}
    assert schema["properties"]["language"]["default"] == "en_US"
    assert schema["properties"]["url"]["format"] == "uri"


def test_7_5_settings_allow_header(client, accounts):
    assert client.get("/cms/v2/settings", user=accounts["administrator"]).headers["Allow"] == "GET, POST, PUT, PATCH"


# -- types (7.6) ----------------------------------------------------------------------------------

# The types the app serves in REST (attachment is registered, but served only once the media
# routes come).
REST_TYPES = [
    name for name in ("post", "page", "attachment", "nav_menu_item", "wp_block", "cal_venue", "cal_organizer", "cal_events")
    if name in TYPES and TYPES[name].show_in_rest
]
TYPE_VIEW_KEYS = [
    "description", "hierarchical", "has_archive", "name", "slug", "icon", "taxonomies", "rest_base", "rest_namespace",
    "template", "template_lock", "_links",
]
TYPE_EDIT_KEYS = [
    "capabilities", "description", "hierarchical", "has_archive", "visibility", "viewable", "labels", "name", "slug", "icon",
    "supports", "taxonomies", "rest_base", "rest_namespace", "template", "template_lock", "_links",
]


def type_links(base: str) -> dict[str, Any]:
    return {
        "collection": [{"href": "http://example.test/cms/v2/types"}],
        "wp:items": [{"href": f"http://example.test/cms/v2/{base}"}],
        "curies": CURIES,
    }


def test_7_6_types_collection_anonymous(client):
    response = client.get("/cms/v2/types")
    assert response.status_code == 200
    body = response.json
    assert list(body) == REST_TYPES
    assert body["post"] == {
        "description": "",
        "hierarchical": False,
        "has_archive": False,
        "name": "Posts",
        "slug": "post",
        "icon": "dashicons-admin-post",
        "taxonomies": ["category", "post_tag"],
        "rest_base": "posts",
        "rest_namespace": "cms/v2",
        "template": [],
        "template_lock": False,
        "_links": type_links("posts"),
    }
    assert body["page"]["hierarchical"] is True and body["page"]["taxonomies"] == []
    assert body["wp_block"]["icon"] is None and body["wp_block"]["rest_base"] == "blocks"
    assert body["wp_block"]["taxonomies"] == ["wp_pattern_category"]
    assert body["cal_events"]["has_archive"] is True and body["cal_events"]["icon"] == "dashicons-calendar"
    assert body["cal_events"]["taxonomies"] == ["post_tag", "cal_events_cat"]
    assert body["cal_venue"]["name"] == "Venues" and body["cal_venue"]["_links"] == type_links("cal_venue")
    embed = client.get("/cms/v2/types", params={"context": "embed"}).json["page"]
    assert list(embed) == ["name", "slug", "icon", "rest_base", "rest_namespace", "template", "template_lock", "_links"]


def test_7_6_types_edit_context_by_role(client, accounts):
    body = check_error(client.get("/cms/v2/types", params={"context": "edit"}), 401, "rest_cannot_view")
    assert body["message"] == "Sorry, you are not allowed to edit posts in this post type."
    check_error(client.get("/cms/v2/types", params={"context": "edit"}, user=accounts["subscriber"]), 403, "rest_cannot_view")
    # Only the types the requester may edit are listed: contributors cannot edit pages, and menu
    # entries need edit_theme_options (administrators).
    contributor = client.get("/cms/v2/types", params={"context": "edit"}, user=accounts["contributor"]).json
    assert list(contributor) == [name for name in REST_TYPES if name not in ("page", "nav_menu_item")]
    editor = client.get("/cms/v2/types", params={"context": "edit"}, user=accounts["editor"]).json
    assert list(editor) == [name for name in REST_TYPES if name != "nav_menu_item"]
    post = editor["post"]
    assert list(post) == TYPE_EDIT_KEYS
    assert post["capabilities"]["create_posts"] == "edit_posts" and post["capabilities"]["read"] == "read"
    assert list(post["capabilities"])[:4] == ["edit_post", "read_post", "delete_post", "edit_posts"]
    assert post["visibility"] == {"show_in_nav_menus": True, "show_ui": True} and post["viewable"] is True
    assert post["supports"] == {
        "title": True, "editor": [{"notes": True}], "author": True, "thumbnail": True, "excerpt": True, "trackbacks": True,
        "custom-fields": True, "comments": True, "revisions": True, "post-formats": True, "autosave": True,
    }
    labels = post["labels"]
    assert (labels["name"], labels["singular_name"], labels["add_new_item"], labels["menu_name"]) == (
        "Posts", "Post", "Add Post", "Posts",
    )
    assert labels["parent_item_colon"] is None and labels["name_admin_bar"] == "Post"
    assert "template_name" not in labels  # post and page do not name their singular themselves
    assert len(labels) == 35
    page = editor["page"]
    assert page["labels"]["parent_item_colon"] == "Parent Page:" and page["labels"]["archives"] == "Page Archives"
    assert page["capabilities"]["edit_posts"] == "edit_pages"
    block = editor["wp_block"]
    assert block["viewable"] is False and block["visibility"] == {"show_in_nav_menus": False, "show_ui": True}
    assert block["capabilities"]["read"] == "edit_posts" and block["capabilities"]["create_posts"] == "publish_posts"
    assert block["labels"]["edit_item"] == "Edit Block Pattern" and block["labels"]["template_name"] == "Single item: Pattern"
    assert block["labels"]["all_items"] == "All Patterns" and block["labels"]["menu_name"] == "Patterns"
    assert block["supports"]["autosave"] is True and block["supports"]["editor"] is True
    venue = editor["cal_venue"]
    assert venue["visibility"] == {"show_in_nav_menus": False, "show_ui": True}
    assert venue["labels"]["singular_name_lowercase"] == "venue" and venue["labels"]["not_found"] == "No venues found"
    # Venues and organizers name no view_items: the post default shows, as in the reference.
    assert editor["cal_events"]["labels"]["view_items"] == "View Events" and venue["labels"]["view_items"] == "View Posts"
    assert editor["cal_events"]["labels"]["add_new_item"] == "Add New Event"
    assert editor["cal_events"]["capabilities"]["edit_posts"] == "edit_cal_events"


def test_7_6_single_type(client, accounts):
    body = client.get("/cms/v2/types/page").json
    assert body["slug"] == "page" and body["_links"] == type_links("pages")
    assert list(body) == TYPE_VIEW_KEYS
    check_error(client.get("/cms/v2/types/nothing"), 404, "rest_type_invalid", "Invalid post type.")
    check_error(client.get("/cms/v2/types/nothing", user=accounts["administrator"]), 404, "rest_type_invalid")
    # Registered, but not in REST.
    check_error(client.get("/cms/v2/types/revision"), 401, "rest_cannot_read_type", "Cannot view post type.")
    check_error(client.get("/cms/v2/types/revision", user=accounts["administrator"]), 403, "rest_cannot_read_type")
    check_error(client.get("/cms/v2/types/cal-ea-record", user=accounts["editor"]), 403, "rest_cannot_read_type")
    body = check_error(client.get("/cms/v2/types/post", params={"context": "edit"}), 401, "rest_forbidden_context")
    assert body["message"] == "Sorry, you are not allowed to edit posts in this post type."
    check_error(client.get("/cms/v2/types/post", params={"context": "edit"}, user=accounts["subscriber"]), 403, "rest_forbidden_context")
    check_error(client.get("/cms/v2/types/page", params={"context": "edit"}, user=accounts["contributor"]), 403, "rest_forbidden_context")
    assert client.get("/cms/v2/types/page", params={"context": "edit"}, user=accounts["editor"]).json["labels"]["name"] == "Pages"
    assert client.get("/cms/v2/types/post", params={"context": "edit"}, user=accounts["contributor"]).status_code == 200
    bad = check_error(client.get("/cms/v2/types/post", params={"context": "full"}), 400, "rest_invalid_param")
    assert bad["data"]["params"] == {"context": "context is not one of view, embed, and edit."}


# -- statuses (7.7) -------------------------------------------------------------------------------

PUBLIC_STATUSES = ["publish", "cal-ea-success", "cal-ea-failed", "cal-ea-schedule", "cal-ea-pending", "cal-ea-draft"]
EDITOR_STATUSES = [
    "publish", "future", "draft", "pending", "private",
    "cal-ea-success", "cal-ea-failed", "cal-ea-schedule", "cal-ea-pending", "cal-ea-draft", "cal-ignored", "trash",
]


def archives(status: str) -> dict[str, Any]:
    suffix = "" if status == "publish" else f"?status={status}"
    return {"archives": [{"href": f"http://example.test/cms/v2/posts{suffix}"}]}


def test_7_7_statuses_collection_by_role(client, accounts):
    anonymous = client.get("/cms/v2/statuses")
    assert anonymous.status_code == 200
    body = anonymous.json
    assert list(body) == PUBLIC_STATUSES
    assert body["publish"] == {
        "name": "Published", "public": True, "queryable": True, "slug": "publish", "date_floating": False,
        "_links": archives("publish"),
    }
    # The calendar's import statuses are public but not publicly queryable.
    assert body["cal-ea-schedule"] == {
        "name": "Schedule", "public": True, "queryable": False, "slug": "cal-ea-schedule", "date_floating": False,
        "_links": archives("cal-ea-schedule"),
    }
    assert list(client.get("/cms/v2/statuses", user=accounts["subscriber"]).json) == PUBLIC_STATUSES
    for role in ("contributor", "author", "editor", "administrator"):
        assert list(client.get("/cms/v2/statuses", user=accounts[role]).json) == EDITOR_STATUSES, role
    drafts = client.get("/cms/v2/statuses", user=accounts["contributor"]).json["draft"]
    assert drafts == {
        "name": "Draft", "public": False, "queryable": False, "slug": "draft", "date_floating": True, "_links": archives("draft"),
    }


def test_7_7_statuses_edit_and_embed_context(client, accounts):
    body = check_error(client.get("/cms/v2/statuses", params={"context": "edit"}), 401, "rest_cannot_view")
    assert body["message"] == "Sorry, you are not allowed to manage post statuses."
    check_error(client.get("/cms/v2/statuses", params={"context": "edit"}, user=accounts["subscriber"]), 403, "rest_cannot_view")
    edit = client.get("/cms/v2/statuses", params={"context": "edit"}, user=accounts["contributor"]).json
    assert edit["private"] == {
        "name": "Private", "private": True, "protected": False, "public": False, "queryable": False, "show_in_list": True,
        "slug": "private", "date_floating": False, "_links": archives("private"),
    }
    assert edit["trash"]["show_in_list"] is False and edit["cal-ignored"]["show_in_list"] is False
    assert edit["future"]["protected"] is True
    embed = client.get("/cms/v2/statuses", params={"context": "embed"}).json
    assert embed["publish"] == {"name": "Published", "slug": "publish", "_links": archives("publish")}


def test_7_7_single_status(client, accounts):
    assert client.get("/cms/v2/statuses/publish").json["name"] == "Published"
    assert client.get("/cms/v2/statuses/cal-ea-success").json["name"] == "Imported"
    body = check_error(client.get("/cms/v2/statuses/draft"), 401, "rest_cannot_read_status", "Cannot view status.")
    assert body["data"] == {"status": 401}
    check_error(client.get("/cms/v2/statuses/draft", user=accounts["subscriber"]), 403, "rest_cannot_read_status")
    assert client.get("/cms/v2/statuses/draft", user=accounts["contributor"]).json["slug"] == "draft"
    assert client.get("/cms/v2/statuses/trash", user=accounts["editor"]).json["name"] == "Trash"
    check_error(client.get("/cms/v2/statuses/trash"), 401, "rest_cannot_read_status")
    # Internal statuses are shown to nobody; unknown ones do not exist.
    check_error(client.get("/cms/v2/statuses/inherit", user=accounts["administrator"]), 403, "rest_cannot_read_status")
    check_error(client.get("/cms/v2/statuses/auto-draft", user=accounts["administrator"]), 403, "rest_cannot_read_status")
    check_error(client.get("/cms/v2/statuses/nothing"), 404, "rest_status_invalid", "Invalid status.")
    check_error(client.get("/cms/v2/statuses/nothing", user=accounts["administrator"]), 404, "rest_status_invalid")
    # The single route has no edit-context check of its own.
    edit = client.get("/cms/v2/statuses/publish", params={"context": "edit"}).json
    assert edit["show_in_list"] is True and edit["private"] is False
    check_error(client.get("/cms/v2/statuses/publish", params={"context": "nope"}), 400, "rest_invalid_param")


def test_7_7_statuses_in_the_route_index(client):
    routes = client.get("/cms/v2").json["routes"]
    for pattern in ("/cms/v2/types", r"/cms/v2/types/(?P<type>[\w-]+)", "/cms/v2/statuses", r"/cms/v2/statuses/(?P<status>[\w-]+)",
                    "/cms/v2/settings"):
        assert pattern in routes
    assert routes[r"/cms/v2/statuses/(?P<status>[\w-]+)"]["endpoints"][0]["args"]["status"]["type"] == "string"
