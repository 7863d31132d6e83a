"""/cms/v2/blocks: the acceptance scenarios 200-205 of cms-api.md 8.6 and the recorded blocks
(spec/examples/cms-pages-blocks.md)."""

from __future__ import annotations

import pytest
from content_support import make_item, row

BLOCK = "<!-- wp:paragraph --><p>Hello!</p><!-- /wp:paragraph -->"
EDIT_KEYS = [
    "id", "date", "date_gmt", "guid", "modified", "modified_gmt", "password", "slug", "status", "type", "link", "title",
    "content", "excerpt", "template", "meta", "wp_pattern_category", "wp_pattern_sync_status", "_links",
]


@pytest.mark.parametrize("role, status", [("editor", 201), ("author", 201), ("contributor", 403), (None, 401)])
def test_8_6_200_who_creates_blocks(client, app, accounts, role, status):
    user = accounts[role] if role else None
    response = client.post("/cms/v2/blocks", json={"title": "My cool block", "content": BLOCK, "status": "publish"}, user=user)
    assert response.status_code == status
    if status != 201:
        assert response.json["code"] == "rest_cannot_create"


@pytest.mark.parametrize("role, status", [("editor", 200), ("author", 200), ("contributor", 200), ("subscriber", 403), (None, 401)])
def test_8_6_201_who_reads_blocks(client, app, accounts, role, status):
    block = make_item(app, "wp_block", title="My cool block", content=BLOCK, author=accounts["editor"].id)
    user = accounts[role] if role else None
    response = client.get(f"/cms/v2/blocks/{block.id}", user=user)
    assert response.status_code == status
    listed = client.get("/cms/v2/blocks", user=user)
    assert listed.headers["X-WP-Total"] == "1"
    assert len(listed.json) == (1 if status == 200 else 0)


@pytest.mark.parametrize("role, status", [("editor", 200), ("author", 200), ("contributor", 403)])
def test_8_6_202_update_and_delete_own_block(client, app, accounts, role, status):
    user = accounts[role]
    block = make_item(app, "wp_block", title="Mine", content=BLOCK, author=user.id)
    updated = client.put(f"/cms/v2/blocks/{block.id}", json={"title": "Renamed"}, user=user)
    assert updated.status_code == status
    deleted = client.delete(f"/cms/v2/blocks/{block.id}", user=user)
    assert deleted.status_code == status
    if status == 403:
        assert updated.json["code"] == "rest_cannot_edit" and deleted.json["code"] == "rest_cannot_delete"
        assert row(app, block.id).title == "Mine"


@pytest.mark.parametrize("role, status", [("editor", 200), ("author", 403), ("contributor", 403), (None, 401)])
def test_8_6_203_update_and_delete_others_block(client, app, accounts, role, status):
    block = make_item(app, "wp_block", title="Theirs", content=BLOCK, author=accounts["administrator"].id)
    user = accounts[role] if role else None
    assert client.put(f"/cms/v2/blocks/{block.id}", json={"title": "x"}, user=user).status_code == status
    assert client.delete(f"/cms/v2/blocks/{block.id}", user=user).status_code == status


def test_8_6_204_block_title_and_content_are_raw_only(client, app, accounts):
    block = make_item(app, "wp_block", title="My cool block", content=BLOCK, author=accounts["editor"].id)
    body = client.get(f"/cms/v2/blocks/{block.id}", user=accounts["author"]).json
    assert body["title"] == {"raw": "My cool block"}
    assert body["content"] == {"raw": BLOCK, "protected": False}
    assert "author" not in body and "featured_media" not in body and "class_list" not in body


def test_8_6_205_sync_status_is_lifted_out_of_meta(client, app, admin):
    created = client.post("/cms/v2/blocks", json={"title": "Pattern", "content": BLOCK, "status": "publish"}, user=admin).json
    assert list(created) == EDIT_KEYS
    assert created["wp_pattern_sync_status"] == ""
    assert "wp_pattern_sync_status" not in created["meta"]
    ignored = client.post(f"/cms/v2/blocks/{created['id']}", json={"wp_pattern_sync_status": "unsynced"}, user=admin).json
    assert ignored["wp_pattern_sync_status"] == ""  # a top-level field the schema does not declare
    body = client.post(f"/cms/v2/blocks/{created['id']}", json={"meta": {"wp_pattern_sync_status": "unsynced"}}, user=admin).json
    assert body["wp_pattern_sync_status"] == "unsynced"
    assert "wp_pattern_sync_status" not in body["meta"]
    view = client.get(f"/cms/v2/blocks/{created['id']}", user=admin).json
    assert view["wp_pattern_sync_status"] == "unsynced"
    bad = client.post(f"/cms/v2/blocks/{created['id']}", json={"meta": {"wp_pattern_sync_status": "sometimes"}}, user=admin)
    assert bad.status_code == 400 and bad.json["code"] == "rest_invalid_param"


def test_recorded_block_shape(client, app, admin):
    body = client.post(
        "/cms/v2/blocks",
        json={"title": "Rec Block", "content": "<!-- wp:paragraph -->\n<p>Reusable text.</p>\n<!-- /wp:paragraph -->", "status": "publish"},
        user=admin,
    ).json
    assert body["type"] == "wp_block"
    assert body["link"] == "http://example.test/rec-block/"
    assert body["excerpt"] == {"raw": "", "rendered": "<p>Reusable text.</p>\n", "protected": False}
    assert body["content"]["block_version"] == 1
    assert body["wp_pattern_category"] == []
    assert list(body["_links"]) == [
        "self", "collection", "about", "version-history", "wp:attachment", "wp:term", "wp:action-publish",
        "wp:action-unfiltered-html", "wp:action-create-wp_pattern_category", "wp:action-assign-wp_pattern_category", "curies",
    ]
    assert body["_links"]["wp:term"] == [
        {"taxonomy": "wp_pattern_category", "embeddable": True, "href": f"http://example.test/cms/v2/wp_pattern_category?post={body['id']}"}
    ]
    response = client.get(f"/cms/v2/blocks/{body['id']}", user=admin)
    assert "alternate" not in response.headers["Link"]  # blocks are not viewable


def test_anonymous_block_read_is_401(client, app, admin):
    block = make_item(app, "wp_block", title="b", content=BLOCK, author=admin.id)
    response = client.get(f"/cms/v2/blocks/{block.id}")
    assert response.status_code == 401
    assert response.json == {"code": "rest_forbidden", "message": "Sorry, you are not allowed to do that.", "data": {"status": 401}}
