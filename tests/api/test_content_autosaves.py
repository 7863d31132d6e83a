"""Autosaves of content items through cms/v2: the acceptance scenarios 188-199 of cms-api.md 8.5,
the recorded answers of spec/examples/cms-revisions-autosaves.md, and bad input that must leave
nothing written."""

from __future__ import annotations

import re

import sqlalchemy as sa
from content_support import count_rows, make_item, make_term, row
from test_content_revisions import create, history, revision_ids, update

from calpress.store.tables import posts

AUTOSAVE_EDIT_KEYS = [
    "author", "date", "date_gmt", "id", "modified", "modified_gmt", "parent", "slug", "guid", "title", "content",
    "excerpt", "meta", "preview_link", "_links",
]


def autosave(client, user, item_id, type_base="posts", **fields):
    return client.post(f"/cms/v2/{type_base}/{item_id}/autosaves", json=fields, user=user)


def saved(response):
    assert response.status_code == 200, response.json
    return response.json


# -- 8.5 acceptance scenarios ----------------------------------------------------------------------


def test_8_5_188_author_autosaving_a_draft_updates_it(client, app, accounts):
    author = accounts["author"]
    draft = create(client, author, title="Rec Draft 053109", content="Draft v1", status="draft")
    response = autosave(client, author, draft["id"], content="Draft v2 (autosaved)")
    body = saved(response)
    assert body["id"] == draft["id"] and body["parent"] == 0 and body["slug"] == ""
    # The recorded shape: the draft's floating date is null, and no parent means no links.
    assert body["date"] is None and body["date_gmt"] is None
    assert body["title"] == {"raw": "Rec Draft 053109", "rendered": "Rec Draft 053109"}
    assert body["content"] == {"raw": "Draft v2 (autosaved)", "rendered": "<p>Draft v2 (autosaved)</p>\n"}
    assert body["preview_link"] == f"http://example.test/?p={draft['id']}&preview=true"
    assert "_links" not in body
    assert row(app, draft["id"]).content == "Draft v2 (autosaved)"
    assert row(app, draft["id"]).status == "draft"
    assert count_rows(app, "revision") == 0  # an autosave of one's draft stores no revision
    assert response.headers["Allow"] == "GET, POST"


def test_8_5_189_autosave_of_a_published_post(client, app, accounts):
    post = create(client, accounts["administrator"], title="Rec Rev Post 053109")
    editor = accounts["editor"]
    before = row(app, post["id"])
    body = saved(autosave(client, editor, post["id"], content="Autosaved content"))
    assert list(body) == AUTOSAVE_EDIT_KEYS
    assert body["id"] != post["id"]
    assert body["slug"] == f"{post['id']}-autosave-v1" and body["parent"] == post["id"]
    assert body["author"] == editor.id
    assert body["content"] == {"raw": "Autosaved content", "rendered": "<p>Autosaved content</p>\n"}
    assert body["guid"] == {"rendered": f"http://example.test/?p={body['id']}", "raw": f"http://example.test/?p={body['id']}"}
    assert body["_links"] == {"parent": [{"href": f"http://example.test/cms/v2/posts/{post['id']}"}]}
    assert row(app, post["id"]) == before
    assert client.get(f"/cms/v2/posts/{post['id']}", params={"context": "edit"}, user=editor).json["content"]["raw"] == "Version 1"
    assert row(app, body["id"]).status == "inherit"


def test_8_5_190_same_user_overwrites_their_autosave(client, app, admin):
    post = create(client, admin)
    first = saved(autosave(client, admin, post["id"], content="First try"))
    second = saved(autosave(client, admin, post["id"], content="Second try"))
    assert second["id"] == first["id"]
    assert second["content"]["raw"] == "Second try"
    assert revision_ids(app, post["id"]) == [first["id"]]


def test_8_5_191_one_autosave_per_user(client, app, accounts):
    admin, editor = accounts["administrator"], accounts["editor"]
    post = create(client, admin)
    mine = saved(autosave(client, admin, post["id"], content="Admin's words"))
    theirs = saved(autosave(client, editor, post["id"], content="Editor's words"))
    assert theirs["id"] != mine["id"]
    listed = client.get(f"/cms/v2/posts/{post['id']}/autosaves", user=admin).json
    assert sorted((a["author"], a["id"]) for a in listed) == sorted([(admin.id, mine["id"]), (editor.id, theirs["id"])])


def test_8_5_192_unchanged_autosave_returns_the_existing_one(client, app, admin):
    post = create(client, admin, content="Stored words")
    earlier = saved(autosave(client, admin, post["id"], content="Unsaved words"))
    again = saved(autosave(client, admin, post["id"], content="  Stored words \n"))  # equal after whitespace
    assert again["id"] == earlier["id"]
    assert again["content"]["raw"] == "Unsaved words" and again["modified"] == earlier["modified"]
    assert revision_ids(app, post["id"]) == [earlier["id"]]


def test_8_5_193_preview_link(client, app, accounts):
    post = create(client, accounts["administrator"], title="Rec Rev Post 053109")
    editor = accounts["editor"]
    body = saved(autosave(client, editor, post["id"], content="Preview me"))
    match = re.fullmatch(
        rf"http://example\.test/rec-rev-post-053109/\?preview_id={post['id']}&preview_nonce=([0-9a-f]{{10}})&preview=true",
        body["preview_link"],
    )
    assert match is not None, body["preview_link"]
    # Only the edit context shows it.
    viewed = client.get(f"/cms/v2/posts/{post['id']}/autosaves", user=editor).json[0]
    assert "preview_link" not in viewed
    edited = client.get(f"/cms/v2/posts/{post['id']}/autosaves", params={"context": "edit"}, user=editor).json[0]
    assert edited["preview_link"] == body["preview_link"]


def test_8_5_194_autosave_list_holds_autosaves_only(client, app, accounts):
    editor = accounts["editor"]
    post = create(client, editor)
    update(client, editor, post["id"], content="Version 2")  # an ordinary revision
    autosaved = saved(autosave(client, editor, post["id"], content="Autosaved content"))
    response = client.get(f"/cms/v2/posts/{post['id']}/autosaves", user=editor)
    assert response.status_code == 200
    assert [a["id"] for a in response.json] == [autosaved["id"]]
    assert response.json[0]["slug"] == f"{post['id']}-autosave-v1"
    assert "X-WP-Total" not in response.headers
    assert len(revision_ids(app, post["id"])) == 2


def test_8_5_195_get_one_autosave(client, app, accounts):
    admin, editor = accounts["administrator"], accounts["editor"]
    post = create(client, admin)
    none_yet = client.get(f"/cms/v2/posts/{post['id']}/autosaves/1", user=admin)
    assert none_yet.status_code == 404
    assert none_yet.json == {
        "code": "rest_post_no_autosave", "message": "There is no autosave revision for this post.", "data": {"status": 404},
    }
    mine = saved(autosave(client, admin, post["id"], content="Older"))
    response = client.get(f"/cms/v2/posts/{post['id']}/autosaves/{mine['id']}", user=admin)
    assert response.status_code == 200
    assert response.json["id"] == mine["id"] and response.json["content"] == {"rendered": "<p>Older</p>\n"}
    assert response.headers["Allow"] == "GET"
    # The latest autosave of the item, by anyone, whatever id the address names (as the reference).
    theirs = saved(autosave(client, editor, post["id"], content="Newer"))
    for named in (mine["id"], 999999):
        latest = client.get(f"/cms/v2/posts/{post['id']}/autosaves/{named}", user=admin).json
        assert latest["id"] == max(mine["id"], theirs["id"])


def test_8_5_196_who_may_autosave(client, app, accounts):
    post = create(client, accounts["editor"])
    contributor = autosave(client, accounts["contributor"], post["id"], content="Mine now")
    assert contributor.status_code == 403
    assert contributor.json == {"code": "rest_cannot_edit", "message": "Sorry, you are not allowed to edit this post.", "data": {"status": 403}}
    anonymous = autosave(client, None, post["id"], content="Mine now")
    assert anonymous.status_code == 401 and anonymous.json["code"] == "rest_cannot_edit"
    subscriber = autosave(client, accounts["subscriber"], post["id"], content="x")  # recorded
    assert subscriber.status_code == 403 and "Allow" not in subscriber.headers
    assert count_rows(app, "revision") == 0


def test_8_5_197_subscriber_cannot_list_autosaves(client, app, accounts):
    post = create(client, accounts["editor"])
    response = client.get(f"/cms/v2/posts/{post['id']}/autosaves", user=accounts["subscriber"])
    assert response.status_code == 403
    assert response.json == {
        "code": "rest_cannot_read", "message": "Sorry, you are not allowed to view autosaves of this post.", "data": {"status": 403},
    }
    one = client.get(f"/cms/v2/posts/{post['id']}/autosaves/1", user=accounts["subscriber"])
    assert one.status_code == 403
    assert one.json["message"] == "Sorry, you are not allowed to view revisions of this post."


def test_8_5_198_unknown_item(client, app, admin):
    response = autosave(client, admin, 999999, content="x")
    assert response.status_code == 404
    assert response.json == {"code": "rest_post_invalid_id", "message": "Invalid post ID.", "data": {"status": 404}}
    assert count_rows(app, "revision") == 0


def test_8_5_199_title_and_excerpt_are_autosaved(client, app, admin):
    post = create(client, admin, title="Rec Rev Post 053109")
    saved(autosave(client, admin, post["id"], title="Rec Rev Post 053109 (autosaved)", content="Autosaved content", excerpt="In short"))
    [listed] = client.get(f"/cms/v2/posts/{post['id']}/autosaves", user=admin).json
    assert listed["title"] == {"rendered": "Rec Rev Post 053109 (autosaved)"}
    assert listed["excerpt"] == {"rendered": "<p>In short</p>\n"}
    assert listed["content"] == {"rendered": "<p>Autosaved content</p>\n"}
    assert row(app, post["id"]).title == "Rec Rev Post 053109"


# -- more of the reference's rules ----------------------------------------------------------------


def test_autosave_holds_only_the_fields_sent(client, app, admin):
    # As the reference's create_post_autosave: an autosave is made of the fields sent.
    post = create(client, admin, title="Kept title", excerpt="Kept excerpt")
    body = saved(autosave(client, admin, post["id"], content="Only content"))
    assert (body["title"]["raw"], body["excerpt"]["raw"]) == ("", "")
    # Overwriting keeps the autosave's other fields.
    again = saved(autosave(client, admin, post["id"], title="Now a title"))
    assert (again["title"]["raw"], again["content"]["raw"]) == ("Now a title", "Only content")


def test_identical_first_autosave_is_still_stored(client, app, admin):
    # The reference returns an existing autosave when nothing differs, and stores one otherwise.
    post = create(client, admin, content="Same")
    body = saved(autosave(client, admin, post["id"], content="Same"))
    assert body["slug"] == f"{post['id']}-autosave-v1" and revision_ids(app, post["id"]) == [body["id"]]


def test_autosaves_count_in_the_version_history(client, app, admin):
    post = create(client, admin)
    update(client, admin, post["id"], content="Version 2")
    autosaved = saved(autosave(client, admin, post["id"], content="Autosaved"))
    count, predecessor = history(client, admin, post["id"])
    assert count == 2
    assert predecessor[0]["id"] == autosaved["id"]
    listed = client.get(f"/cms/v2/posts/{post['id']}/revisions", user=admin).json
    assert listed[0]["id"] == autosaved["id"] and len(listed) == 2


def test_overwritten_autosave_is_the_latest_revision(client, app, admin):
    post = create(client, admin)
    first = saved(autosave(client, admin, post["id"], content="Autosaved"))
    update(client, admin, post["id"], content="Version 2")
    later_revision = max(revision_ids(app, post["id"]))
    assert later_revision > first["id"]
    # Overwriting dates the autosave anew, so it becomes the latest although its id is older.
    revision_row = row(app, later_revision)
    older = revision_row.date_local.replace(year=revision_row.date_local.year - 1)
    with app.site.write() as conn:
        conn.execute(sa.update(posts).where(posts.c.id == later_revision).values(date_local=older))
    saved(autosave(client, admin, post["id"], content="Autosaved again"))
    assert history(client, admin, post["id"])[1][0]["id"] == first["id"]


def test_draft_autosave_by_its_author_changes_only_the_item_columns(client, app, accounts):
    author = accounts["author"]
    tag = make_term(app, "post_tag", "Kept")
    draft = create(client, author, status="draft", tags=[tag])
    body = saved(autosave(client, author, draft["id"], content="New words", tags=[], title="New title"))
    assert body["title"]["raw"] == "New title"
    tags = client.get(f"/cms/v2/posts/{draft['id']}", params={"context": "edit"}, user=author).json["tags"]
    assert tags == [tag]


def test_draft_of_someone_else_gets_an_autosave(client, app, accounts):
    draft = create(client, accounts["author"], status="draft", content="Author's words")
    editor = accounts["editor"]
    body = saved(autosave(client, editor, draft["id"], content="Editor's words"))
    assert body["slug"] == f"{draft['id']}-autosave-v1"
    assert row(app, draft["id"]).content == "Author's words"


def test_page_autosave_links_and_preview(client, app, admin):
    parent = create(client, admin, "pages", title="Parent page")
    child = create(client, admin, "pages", title="Child page", parent=parent["id"])
    body = saved(autosave(client, admin, child["id"], "pages", content="Autosaved child"))
    assert body["_links"] == {"parent": [{"href": f"http://example.test/cms/v2/pages/{child['id']}"}]}
    assert body["preview_link"].startswith(f"http://example.test/parent-page/child-page/?preview_id={child['id']}&")
    # A draft child page updated by its author answers with its own parent page as parent.
    draft = create(client, admin, "pages", title="Draft child", parent=parent["id"], status="draft")
    own = saved(autosave(client, admin, draft["id"], "pages", content="Draft words"))
    assert own["id"] == draft["id"] and own["parent"] == parent["id"]
    assert own["_links"] == {"parent": [{"href": f"http://example.test/cms/v2/pages/{parent['id']}"}]}
    assert own["preview_link"] == f"http://example.test/?page_id={draft['id']}&preview=true"


def test_blocks_and_venues_have_autosaves(client, app, accounts):
    admin, editor = accounts["administrator"], accounts["editor"]
    block = create(client, admin, "blocks", content="<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->")
    body = saved(autosave(client, editor, block["id"], "blocks", content="<!-- wp:paragraph --><p>y</p><!-- /wp:paragraph -->"))
    assert body["slug"] == f"{block['id']}-autosave-v1"
    assert body["preview_link"] == ""  # blocks have no public page
    assert body["_links"] == {"parent": [{"href": f"http://example.test/cms/v2/blocks/{block['id']}"}]}
    venue = create(client, admin, "cal_venue", title="Hall")
    body = saved(autosave(client, editor, venue["id"], "cal_venue", content="Autosaved venue"))
    assert body["preview_link"].startswith(f"http://example.test/venue/hall/?preview_id={venue['id']}&")
    for base in ("cal_organizer", "cal_events"):  # as the recorded route index lists them
        item = create(client, admin, base)
        body = saved(autosave(client, editor, item["id"], base, content="Autosaved"))
        assert body["slug"] == f"{item['id']}-autosave-v1" and body["parent"] == item["id"]


# -- bad input --------------------------------------------------------------------------------------


def test_bad_autosaves_write_nothing(client, app, admin):
    post = create(client, admin)
    page = make_item(app, "page", title="A page", author=admin.id)
    before = (row(app, post["id"]), count_rows(app, "revision"))
    cases = [
        (0, {"content": "x"}, 404, "rest_post_invalid_id", "Invalid item ID."),
        (page.id, {"content": "x"}, 404, "rest_post_invalid_id", "Invalid post ID."),
        (post["id"], {"content": "x", "status": "bogus"}, 400, "rest_invalid_param", None),
        (post["id"], {"content": "x", "author": 999999}, 400, "rest_invalid_author", "Invalid author ID."),
        (post["id"], {"content": "x", "meta": {"_EventAllDay": "not a boolean"}}, 400, "rest_invalid_param", None),
        (post["id"], {"content": "x", "date": "not a date"}, 400, "rest_invalid_param", None),
        (post["id"], {"content": "x", "parent": "abc"}, 400, "rest_invalid_param", None),
    ]
    for item_id, fields, status, code, message in cases:
        response = autosave(client, admin, item_id, **fields)
        assert (response.status_code, response.json["code"]) == (status, code), fields
        if message is not None:
            assert response.json["message"] == message
    assert (row(app, post["id"]), count_rows(app, "revision")) == before


def test_bad_draft_autosave_leaves_the_draft(client, app, accounts):
    author = accounts["author"]
    draft = create(client, author, status="draft", content="Safe")
    response = autosave(client, author, draft["id"], content="Lost", status="publish", date="2020-13-45")
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"
    contributor = accounts["contributor"]
    theirs = create(client, contributor, status="draft", content="Theirs")
    refused = autosave(client, contributor, theirs["id"], content="Published?", status="publish")
    assert refused.status_code == 403 and refused.json["code"] == "rest_cannot_publish"
    assert row(app, draft["id"]).content == "Safe" and row(app, theirs["id"]).content == "Theirs"
    assert row(app, theirs["id"]).status == "draft"


def test_unknown_parents_on_reads(client, app, admin):
    for url in ("/cms/v2/posts/999999/autosaves", "/cms/v2/posts/999999/autosaves/1", "/cms/v2/posts/0/autosaves/1"):
        response = client.get(url, user=admin)
        assert response.status_code == 404
        assert response.json == {"code": "rest_post_invalid_parent", "message": "Invalid post parent ID.", "data": {"status": 404}}
    post = create(client, admin)
    bad_context = client.get(f"/cms/v2/posts/{post['id']}/autosaves", params={"context": "nope"}, user=admin)
    assert bad_context.status_code == 400 and bad_context.json["code"] == "rest_invalid_param"
