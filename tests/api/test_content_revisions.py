"""Revisions of content items through cms/v2: the acceptance scenarios 173-187 of cms-api.md 8.4,
the recorded answers of spec/examples/cms-revisions-autosaves.md, the revision DELETE of the
spec's corrections, and bad input that must leave nothing written."""

from __future__ import annotations

import sqlalchemy as sa
from content_support import count_rows, make_item, row

from calpress.store.tables import posts

REVISION_VIEW_KEYS = [
    "author", "date", "date_gmt", "id", "modified", "modified_gmt", "parent", "slug", "guid", "title", "content",
    "excerpt", "meta", "_links",
]


def create(client, user, type_base="posts", **fields):
    body = {"title": "Rec Rev Post", "content": "Version 1", "status": "publish", **fields}
    response = client.post(f"/cms/v2/{type_base}", json=body, user=user)
    assert response.status_code == 201, response.json
    return response.json


def update(client, user, item_id, type_base="posts", **fields):
    response = client.post(f"/cms/v2/{type_base}/{item_id}", json=fields, user=user)
    assert response.status_code == 200, response.json
    return response.json


def revision_ids(app, parent_id):
    with app.site.read() as conn:
        return conn.execute(
            sa.select(posts.c.id).where(posts.c.parent == parent_id, posts.c.type == "revision").order_by(posts.c.id)
        ).scalars().all()


def revised_post(client, user, versions=("Version 2", "Version 3")):
    """A published post updated once per entry of ``versions``: its id and revision ids, oldest first."""
    post = create(client, user)
    for content in versions:
        update(client, user, post["id"], content=content)
    return post["id"], revision_ids(client.app, post["id"])


def history(client, user, item_id, type_base="posts"):
    links = client.get(f"/cms/v2/{type_base}/{item_id}", user=user).json["_links"]
    return links["version-history"][0]["count"], links.get("predecessor-version")


# -- 8.4 acceptance scenarios ----------------------------------------------------------------------


def test_8_4_173_updates_make_revisions_newest_first(client, app, accounts):
    editor = accounts["editor"]
    post_id, (second, third) = revised_post(client, editor)
    response = client.get(f"/cms/v2/posts/{post_id}/revisions", user=editor)
    assert response.status_code == 200
    assert [r["id"] for r in response.json] == [third, second]
    assert [r["content"]["rendered"] for r in response.json] == ["<p>Version 3</p>\n", "<p>Version 2</p>\n"]
    assert response.headers["X-WP-Total"] == "2"
    assert response.headers["X-WP-TotalPages"] == "1"
    assert response.headers["Allow"] == "GET"


def test_8_4_174_revision_fields_and_parent_link(client, app, accounts):
    editor = accounts["editor"]
    post = create(client, editor, title="Rec Rev Post 053109")
    updated = update(client, editor, post["id"], content="Version 2")
    [revision_id] = revision_ids(app, post["id"])
    response = client.get(f"/cms/v2/posts/{post['id']}/revisions/{revision_id}", user=editor)
    assert response.status_code == 200
    body = response.json
    assert list(body) == REVISION_VIEW_KEYS
    assert body["author"] == editor.id
    assert body["id"] == revision_id and body["parent"] == post["id"]
    assert body["slug"] == f"{post['id']}-revision-v1"
    # A revision is dated when its parent was modified.
    assert body["date"] == updated["modified"] and body["date_gmt"] == updated["modified_gmt"]
    assert body["guid"] == {"rendered": f"http://example.test/?p={revision_id}"}
    assert body["title"] == {"rendered": "Rec Rev Post 053109"}
    assert body["content"] == {"rendered": "<p>Version 2</p>\n"}
    assert body["excerpt"] == {"rendered": ""}
    assert body["meta"] == updated["meta"]
    assert body["_links"] == {"parent": [{"href": f"http://example.test/cms/v2/posts/{post['id']}"}]}
    assert response.headers["Allow"] == "GET, DELETE"


def test_8_4_175_only_editors_of_the_parent_read_revisions(client, app, accounts):
    post_id, _ = revised_post(client, accounts["editor"])
    contributor = client.get(f"/cms/v2/posts/{post_id}/revisions", user=accounts["contributor"])
    assert contributor.status_code == 403
    assert contributor.json == {
        "code": "rest_cannot_read", "message": "Sorry, you are not allowed to view revisions of this post.", "data": {"status": 403},
    }
    anonymous = client.get(f"/cms/v2/posts/{post_id}/revisions")
    assert anonymous.status_code == 401
    assert anonymous.json == {
        "code": "rest_cannot_read", "message": "Sorry, you are not allowed to view revisions of this post.", "data": {"status": 401},
    }


def test_8_4_176_unknown_parent(client, app, admin):
    response = client.get("/cms/v2/posts/999999/revisions", user=admin)
    assert response.status_code == 404
    assert response.json == {"code": "rest_post_invalid_parent", "message": "Invalid post parent ID.", "data": {"status": 404}}
    page = make_item(app, "page", title="A page", author=admin.id)
    wrong_type = client.get(f"/cms/v2/posts/{page.id}/revisions", user=admin)
    assert wrong_type.status_code == 404 and wrong_type.json["code"] == "rest_post_invalid_parent"


def test_8_4_177_unknown_revision(client, app, admin):
    post_id, _ = revised_post(client, admin)
    response = client.get(f"/cms/v2/posts/{post_id}/revisions/999999", user=admin)
    assert response.status_code == 404
    assert response.json == {"code": "rest_post_invalid_id", "message": "Invalid revision ID.", "data": {"status": 404}}
    # An ordinary item's id is no revision id either (recorded).
    other = make_item(app, title="Not a revision", author=admin.id)
    assert client.get(f"/cms/v2/posts/{post_id}/revisions/{other.id}", user=admin).json["code"] == "rest_post_invalid_id"


def test_8_4_178_revision_of_another_parent(client, app, admin):
    first_id, (revision_id, _) = revised_post(client, admin)
    other_id, _ = revised_post(client, admin)
    response = client.get(f"/cms/v2/posts/{other_id}/revisions/{revision_id}", user=admin)
    assert response.status_code == 404
    assert response.json == {
        "code": "rest_revision_parent_id_mismatch",
        "message": f'The revision does not belong to the specified parent with id of "{other_id}"',
        "data": {"status": 404},
    }


def test_8_4_179_paging(client, app, admin):
    post_id, (second, third) = revised_post(client, admin)
    response = client.get(f"/cms/v2/posts/{post_id}/revisions", params={"per_page": 1, "page": 2}, user=admin)
    assert [r["id"] for r in response.json] == [second]
    assert response.headers["X-WP-Total"] == "2" and response.headers["X-WP-TotalPages"] == "2"
    assert f'<http://example.test/cms/v2/posts/{post_id}/revisions?per_page=1&page=1>; rel="prev"' in response.headers["Link"]
    first_page = client.get(f"/cms/v2/posts/{post_id}/revisions", params={"per_page": 1}, user=admin)
    assert [r["id"] for r in first_page.json] == [third]
    assert f'<http://example.test/cms/v2/posts/{post_id}/revisions?per_page=1&page=2>; rel="next"' in first_page.headers["Link"]
    beyond = client.get(f"/cms/v2/posts/{post_id}/revisions", params={"per_page": 1, "page": 99}, user=admin)
    assert beyond.status_code == 400
    assert beyond.json == {
        "code": "rest_revision_invalid_page_number",
        "message": "The page number requested is larger than the number of pages available.",
        "data": {"status": 400},
    }


def test_8_4_180_offset_past_the_end(client, app, admin):
    post_id, revisions = revised_post(client, admin)
    response = client.get(f"/cms/v2/posts/{post_id}/revisions", params={"offset": len(revisions)}, user=admin)
    assert response.status_code == 400
    assert response.json == {
        "code": "rest_revision_invalid_offset_number",
        "message": "The offset number requested is larger than or equal to the number of available revisions.",
        "data": {"status": 400},
    }
    within = client.get(f"/cms/v2/posts/{post_id}/revisions", params={"offset": 1, "per_page": 5}, user=admin)
    assert [r["id"] for r in within.json] == [revisions[0]]


def test_8_4_181_all_revisions_without_per_page(client, app, admin):
    post_id, revisions = revised_post(client, admin, versions=[f"Version {n}" for n in range(2, 14)])
    assert len(revisions) == 12  # more than a default page of 10
    response = client.get(f"/cms/v2/posts/{post_id}/revisions", user=admin)
    assert [r["id"] for r in response.json] == list(reversed(revisions))
    assert response.headers["X-WP-Total"] == "12" and response.headers["X-WP-TotalPages"] == "1"
    assert "rel=\"next\"" not in response.headers["Link"]


def test_8_4_182_edit_context_shows_raw_fields(client, app, admin):
    post = create(client, admin, title="Rec Rev Post 053109")
    update(client, admin, post["id"], content="Version 2")
    [revision_id] = revision_ids(app, post["id"])
    body = client.get(f"/cms/v2/posts/{post['id']}/revisions/{revision_id}", params={"context": "edit"}, user=admin).json
    assert body["guid"] == {"rendered": f"http://example.test/?p={revision_id}", "raw": f"http://example.test/?p={revision_id}"}
    assert body["title"] == {"raw": "Rec Rev Post 053109", "rendered": "Rec Rev Post 053109"}
    assert body["content"] == {"raw": "Version 2", "rendered": "<p>Version 2</p>\n"}
    assert body["excerpt"] == {"raw": "", "rendered": ""}
    listed = client.get(f"/cms/v2/posts/{post['id']}/revisions", params={"context": "edit"}, user=admin).json
    assert listed[0]["content"]["raw"] == "Version 2"


def test_8_4_183_delete_needs_force(client, app, accounts):
    editor = accounts["editor"]
    post_id, (revision_id, _) = revised_post(client, editor)
    response = client.delete(f"/cms/v2/posts/{post_id}/revisions/{revision_id}", user=editor)
    assert response.status_code == 501
    assert response.json == {
        "code": "rest_trash_not_supported",
        "message": "Revisions do not support trashing. Set 'force=true' to delete.",
        "data": {"status": 501},
    }
    assert row(app, revision_id) is not None


def test_8_4_184_forced_delete_returns_the_revision(client, app, accounts):
    editor = accounts["editor"]
    post_id, (revision_id, latest) = revised_post(client, editor)
    shown = client.get(f"/cms/v2/posts/{post_id}/revisions/{revision_id}", user=editor).json
    response = client.delete(f"/cms/v2/posts/{post_id}/revisions/{revision_id}", params={"force": "true"}, user=editor)
    assert response.status_code == 200
    assert response.json == {"deleted": True, "previous": {k: v for k, v in shown.items() if k != "_links"}}
    assert row(app, revision_id) is None
    gone = client.get(f"/cms/v2/posts/{post_id}/revisions/{revision_id}", user=editor)
    assert gone.status_code == 404 and gone.json["code"] == "rest_post_invalid_id"
    assert history(client, editor, post_id)[0] == 1


def test_8_4_185_contributor_cannot_delete(client, app, accounts):
    post_id, (revision_id, _) = revised_post(client, accounts["editor"])
    response = client.delete(f"/cms/v2/posts/{post_id}/revisions/{revision_id}", params={"force": "true"}, user=accounts["contributor"])
    assert response.status_code == 403
    assert response.json == {
        "code": "rest_cannot_delete", "message": "Sorry, you are not allowed to delete revisions of this post.", "data": {"status": 403},
    }
    anonymous = client.delete(f"/cms/v2/posts/{post_id}/revisions/{revision_id}", params={"force": "true"})
    assert anonymous.status_code == 401 and anonymous.json["code"] == "rest_cannot_delete"
    assert row(app, revision_id) is not None


def test_8_4_186_saving_without_changes_makes_no_revision(client, app, admin):
    post = create(client, admin)
    update(client, admin, post["id"], content="Version 2")
    count, latest = history(client, admin, post["id"])
    assert count == 1
    update(client, admin, post["id"], content="Version 2")
    update(client, admin, post["id"], content="  Version 2\r\n")  # whitespace alone is no change
    update(client, admin, post["id"], status="publish", comment_status="closed")  # nothing revisioned
    assert history(client, admin, post["id"]) == (count, latest)
    update(client, admin, post["id"], excerpt="Now with an excerpt")
    assert history(client, admin, post["id"])[0] == 2


def test_8_4_187_no_route_to_create_revisions(client, app, admin):
    post_id, revisions = revised_post(client, admin)
    response = client.post(f"/cms/v2/posts/{post_id}/revisions", json={"content": "x"}, user=admin)
    assert response.status_code == 404
    assert response.json["code"] == "rest_no_route"
    assert revision_ids(app, post_id) == revisions


# -- when revisions are stored -------------------------------------------------------------------


def test_creating_stores_no_revision(client, app, admin):
    post = create(client, admin)
    assert post["_links"]["version-history"][0]["count"] == 0
    assert "predecessor-version" not in post["_links"]
    assert revision_ids(app, post["id"]) == []


def test_first_update_stores_a_revision_even_without_changes(client, app, admin):
    # cms-pages-blocks.md: a block updated only in its sync status shows one revision after.
    block = create(client, admin, "blocks", title="Rec Block", content="<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->")
    updated = update(client, admin, block["id"], "blocks", wp_pattern_sync_status="unsynced")
    [revision_id] = revision_ids(app, block["id"])
    assert updated["_links"]["version-history"] == [
        {"count": 1, "href": f"http://example.test/cms/v2/blocks/{block['id']}/revisions"}
    ]
    assert updated["_links"]["predecessor-version"] == [
        {"id": revision_id, "href": f"http://example.test/cms/v2/blocks/{block['id']}/revisions/{revision_id}"}
    ]


def test_item_links_name_the_latest_revision(client, app, admin):
    post_id, (_, latest) = revised_post(client, admin)
    count, predecessor = history(client, admin, post_id)
    assert count == 2
    assert predecessor == [{"id": latest, "href": f"http://example.test/cms/v2/posts/{post_id}/revisions/{latest}"}]


def test_drafts_get_revisions_and_the_revision_holds_what_was_saved(client, app, accounts):
    author = accounts["author"]
    draft = create(client, author, status="draft", content="First")
    updated = update(client, author, draft["id"], content="Second <script>alert(1)</script>", title="Renamed")
    [revision_id] = revision_ids(app, draft["id"])
    stored = row(app, revision_id)
    # The author has no unfiltered_html: the revision holds the filtered content the draft holds.
    assert stored.content == updated["content"]["raw"] and "<script>" not in stored.content
    assert (stored.title, stored.status, stored.author) == ("Renamed", "inherit", author.id)


def test_pages_and_venues_have_revisions(client, app, admin):
    for base in ("pages", "cal_venue"):
        item = create(client, admin, base)
        update(client, admin, item["id"], base, content="Version 2")
        listed = client.get(f"/cms/v2/{base}/{item['id']}/revisions", user=admin)
        assert listed.status_code == 200 and len(listed.json) == 1
        assert listed.json[0]["_links"]["parent"] == [{"href": f"http://example.test/cms/v2/{base}/{item['id']}"}]


def test_every_calendar_type_and_blocks_have_revision_routes(client, app, admin):
    # The recorded route index (spec/examples/root.md) lists revisions for blocks, venues,
    # organizers and events too; the seed only leaves the last two "not shown".
    routes = client.get("/").json["routes"]
    for base in ("blocks", "cal_venue", "cal_organizer", "cal_events"):
        assert f"/cms/v2/{base}/(?P<parent>[\\d]+)/revisions" in routes
        item = create(client, admin, base)
        response = client.get(f"/cms/v2/{base}/{item['id']}/revisions", user=admin)
        assert response.status_code == 200 and isinstance(response.json, list)


def test_deleting_the_item_deletes_its_revisions(client, app, admin):
    post_id, revisions = revised_post(client, admin)
    assert client.delete(f"/cms/v2/posts/{post_id}", params={"force": "true"}, user=admin).status_code == 200
    assert all(row(app, revision_id) is None for revision_id in revisions)


def test_collection_filters_and_order(client, app, admin):
    post_id, (second, third) = revised_post(client, admin, versions=("Apples", "Pears"))
    url = f"/cms/v2/posts/{post_id}/revisions"

    def listed(**params):
        response = client.get(url, params=params, user=admin)
        assert response.status_code == 200, response.json
        return [r["id"] for r in response.json]

    assert listed(order="asc") == [second, third]
    assert listed(search="pears") == [third]
    assert listed(exclude=third) == [second]
    assert listed(include=f"{second},{third}", orderby="include") == [second, third]
    assert listed(orderby="id", order="asc") == [second, third]


def test_route_index_lists_them_after_their_type(client, app):
    keys = [key for key in client.get("/").json["routes"] if key.startswith("/cms/v2/posts")]
    assert keys == [
        "/cms/v2/posts",
        r"/cms/v2/posts/(?P<id>[\d]+)",
        r"/cms/v2/posts/(?P<parent>[\d]+)/revisions",
        r"/cms/v2/posts/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)",
        r"/cms/v2/posts/(?P<id>[\d]+)/autosaves",
        r"/cms/v2/posts/(?P<parent>[\d]+)/autosaves/(?P<id>[\d]+)",
    ]
    route = client.get("/cms/v2/posts/1/revisions").json  # the route exists, the item does not
    assert route["code"] == "rest_post_invalid_parent"
    described = client.request("OPTIONS", "/cms/v2/posts/1/revisions").json
    assert described["schema"]["title"] == "post-revision"
    args = described["endpoints"][0]["args"]
    assert "default" not in args["per_page"] and args["per_page"]["maximum"] == 100
    assert args["orderby"]["enum"] == ["date", "id", "include", "relevance", "slug", "include_slugs", "title"]
    delete = client.request("OPTIONS", "/cms/v2/posts/1/revisions/2").json["endpoints"][1]
    assert delete["methods"] == ["DELETE"] and delete["args"]["force"]["default"] is False


# -- bad input --------------------------------------------------------------------------------------


def test_bad_collection_arguments(client, app, admin):
    post_id, _ = revised_post(client, admin)
    url = f"/cms/v2/posts/{post_id}/revisions"
    for params, param in (
        ({"per_page": 0}, "per_page"),
        ({"per_page": 101}, "per_page"),
        ({"page": 0}, "page"),
        ({"orderby": "author"}, "orderby"),
        ({"order": "sideways"}, "order"),
        ({"include": "abc"}, "include"),
        ({"offset": "x"}, "offset"),
        ({"context": "nope"}, "context"),
    ):
        response = client.get(url, params=params, user=admin)
        assert response.status_code == 400, params
        assert response.json["code"] == "rest_invalid_param" and param in response.json["data"]["params"]
    relevance = client.get(url, params={"orderby": "relevance"}, user=admin)
    assert relevance.status_code == 400 and relevance.json["code"] == "rest_no_search_term_defined"
    include = client.get(url, params={"orderby": "include"}, user=admin)
    assert include.status_code == 400 and include.json["code"] == "rest_orderby_include_missing_include"


def test_bad_deletes_write_nothing(client, app, admin):
    post_id, (revision_id, _) = revised_post(client, admin)
    other_id, (other_revision, _) = revised_post(client, admin)
    before = count_rows(app, "revision")
    cases = [
        (f"/cms/v2/posts/{post_id}/revisions/{revision_id}", {"force": "maybe"}, 400, "rest_invalid_param"),
        (f"/cms/v2/posts/{post_id}/revisions/{revision_id}", {"force": "false"}, 501, "rest_trash_not_supported"),
        (f"/cms/v2/posts/{post_id}/revisions/{other_revision}", {"force": "true"}, 404, "rest_revision_parent_id_mismatch"),
        (f"/cms/v2/posts/{post_id}/revisions/999999", {"force": "true"}, 404, "rest_post_invalid_id"),
        (f"/cms/v2/posts/{post_id}/revisions/{post_id}", {"force": "true"}, 404, "rest_post_invalid_id"),
        (f"/cms/v2/posts/999999/revisions/{revision_id}", {"force": "true"}, 404, "rest_post_invalid_parent"),
        (f"/cms/v2/pages/{post_id}/revisions/{revision_id}", {"force": "true"}, 404, "rest_post_invalid_parent"),
    ]
    for url, params, status, code in cases:
        response = client.delete(url, params=params, user=admin)
        assert (response.status_code, response.json["code"]) == (status, code), url
    assert count_rows(app, "revision") == before
    assert row(app, post_id) is not None and row(app, other_id) is not None


def test_a_refused_update_stores_no_revision(client, app, admin):
    post_id, revisions = revised_post(client, admin)
    response = client.post(f"/cms/v2/posts/{post_id}", json={"content": "Changed", "author": 999999}, user=admin)
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_author"
    response = client.post(f"/cms/v2/posts/{post_id}", json={"content": "Changed", "status": "bogus"}, user=admin)
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"
    assert revision_ids(app, post_id) == revisions
    assert row(app, post_id).content == "Version 3"
