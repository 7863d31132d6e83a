"""Pages and the calendar's content types through cms/v2: scenarios 135-138 of cms-api.md 8.2
and the recorded pages (spec/examples/cms-pages-blocks.md)."""

from __future__ import annotations

from content_support import make_item, row

PAGE_EDIT_KEYS = [
    "id", "date", "date_gmt", "guid", "modified", "modified_gmt", "password", "slug", "status", "type", "link", "title",
    "content", "excerpt", "author", "featured_media", "parent", "menu_order", "comment_status", "ping_status", "template",
    "meta", "permalink_template", "generated_slug", "class_list", "_links",
]


def ids(response):
    return [item["id"] for item in response.json]


def test_8_2_135_parent_filter_and_menu_order(client, app, admin):
    parent = make_item(app, "page", title="Parent", author=admin.id).id
    second = make_item(app, "page", title="Second", author=admin.id, parent=parent, menu_order=2).id
    first = make_item(app, "page", title="First", author=admin.id, parent=parent, menu_order=1).id
    make_item(app, "page", title="Elsewhere", author=admin.id)
    children = client.get("/cms/v2/pages", params={"parent": parent, "orderby": "menu_order", "order": "asc"})
    assert ids(children) == [first, second]


def test_8_2_136_unknown_parent(client, app, admin):
    response = client.post("/cms/v2/pages", json={"title": "x", "parent": 999999}, user=admin)
    assert response.status_code == 400
    assert response.json == {"code": "rest_post_invalid_id", "message": "Invalid post parent ID.", "data": {"status": 400}}


def test_8_2_137_page_links_and_schema(client, app, admin):
    parent = client.post("/cms/v2/pages", json={"title": "Rec Page", "status": "publish"}, user=admin).json
    child = client.post(
        "/cms/v2/pages",
        json={"title": "Rec Child Page", "parent": parent["id"], "menu_order": 3, "status": "publish", "comment_status": "closed"},
        user=admin,
    )
    assert child.status_code == 201
    body = child.json
    assert list(body) == PAGE_EDIT_KEYS
    assert body["link"] == "http://example.test/rec-page/rec-child-page/"
    assert body["guid"]["raw"] == "http://example.test/rec-page/rec-child-page/"
    assert body["permalink_template"] == "http://example.test/rec-page/%pagename%/"
    assert body["parent"] == parent["id"] and body["menu_order"] == 3
    assert body["content"] == {"raw": "", "rendered": "", "protected": False, "block_version": 0}
    assert body["class_list"] == [f"post-{body['id']}", "page", "type-page", "status-publish", "hentry"]
    assert body["_links"]["up"] == [{"embeddable": True, "href": f"http://example.test/cms/v2/pages/{parent['id']}"}]
    assert list(body["_links"]) == [
        "self", "collection", "about", "author", "replies", "version-history", "up", "wp:attachment",
        "wp:action-publish", "wp:action-unfiltered-html", "wp:action-assign-author", "curies",
    ]
    assert parent["comment_status"] == "closed" and parent["ping_status"] == "closed"
    assert parent["permalink_template"] == "http://example.test/%pagename%/"
    schema = client.request("OPTIONS", "/cms/v2/pages").json["schema"]["properties"]
    assert "parent" in schema and "menu_order" in schema
    assert not {"sticky", "format", "categories", "tags"} & set(schema)


def test_8_2_138_venue_ids_are_not_posts(client, app, admin):
    venue = make_item(app, "cal_venue", title="Hall", author=admin.id)
    assert client.get(f"/cms/v2/posts/{venue.id}").status_code == 404
    response = client.get(f"/cms/v2/cal_venue/{venue.id}")
    assert response.status_code == 200
    assert response.json["link"] == "http://example.test/venue/hall/"
    assert response.json["type"] == "cal_venue"


def test_deleting_a_parent_page_reparents_its_children(client, app, admin):
    top = make_item(app, "page", title="Top", author=admin.id).id
    middle = make_item(app, "page", title="Middle", author=admin.id, parent=top).id
    leaf = make_item(app, "page", title="Leaf", author=admin.id, parent=middle).id
    assert client.get(f"/cms/v2/pages/{leaf}").json["link"] == "http://example.test/top/middle/leaf/"
    client.delete(f"/cms/v2/pages/{middle}", params={"force": "true"}, user=admin)
    assert row(app, leaf).parent == top
    assert client.get(f"/cms/v2/pages/{leaf}").json["link"] == "http://example.test/top/leaf/"


def test_parent_that_would_make_a_cycle_is_dropped(client, app, admin):
    top = make_item(app, "page", title="Top", author=admin.id).id
    child = make_item(app, "page", title="Child", author=admin.id, parent=top).id
    response = client.put(f"/cms/v2/pages/{top}", json={"parent": child}, user=admin)
    assert response.status_code == 200
    assert response.json["parent"] == 0
    itself = client.put(f"/cms/v2/pages/{top}", json={"parent": top}, user=admin)
    assert itself.json["parent"] == 0


def test_sibling_pages_may_share_a_slug_under_different_parents(client, app, admin):
    one = make_item(app, "page", title="One", author=admin.id).id
    two = make_item(app, "page", title="Two", author=admin.id).id
    a = client.post("/cms/v2/pages", json={"title": "About", "parent": one, "status": "publish"}, user=admin).json
    b = client.post("/cms/v2/pages", json={"title": "About", "parent": two, "status": "publish"}, user=admin).json
    c = client.post("/cms/v2/pages", json={"title": "About", "parent": two, "status": "publish"}, user=admin).json
    assert (a["slug"], b["slug"], c["slug"]) == ("about", "about", "about-2")


def test_draft_page_links_use_page_id(client, app, admin):
    body = client.post("/cms/v2/pages", json={"title": "Draft page"}, user=admin).json
    assert body["link"] == f"http://example.test/?page_id={body['id']}"


def test_contributor_cannot_create_pages(client, app, accounts):
    response = client.post("/cms/v2/pages", json={"title": "x"}, user=accounts["contributor"])
    assert response.status_code == 403 and response.json["code"] == "rest_cannot_create"


def test_calendar_types_serve_generic_fields(client, app, accounts):
    author = accounts["author"]
    for base, prefix in (("cal_venue", "venue"), ("cal_organizer", "organizer"), ("cal_events", "event")):
        created = client.post(f"/cms/v2/{base}", json={"title": f"My {base}", "status": "publish"}, user=author)
        assert created.status_code == 201, created.json
        body = created.json
        assert body["type"] == base
        assert body["link"] == f"http://example.test/{prefix}/my-{base}/"
        assert body["permalink_template"] == f"http://example.test/{prefix}/%pagename%/"
        assert "featured_media" in body and "excerpt" in body and "meta" in body
        assert "sticky" not in body and "format" not in body
    events = client.get("/cms/v2/cal_events").json
    assert "tags" in events[0] and "cal_events_cat" in events[0]
    assert "comment_status" in events[0]
    assert "comment_status" not in client.get("/cms/v2/cal_venue").json[0]


def test_cal_event_draft_link_is_plain(client, app, admin):
    body = client.post("/cms/v2/cal_events", json={"title": "Soon"}, user=admin).json
    assert body["link"] == f"http://example.test/?post_type=cal_events&p={body['id']}"
