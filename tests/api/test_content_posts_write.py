"""POST/PUT/PATCH/DELETE on /cms/v2/posts: the acceptance scenarios 93-134 of cms-api.md 8.2."""

from __future__ import annotations

import datetime as dt

from content_support import count_rows, make_image, make_item, make_term, row, set_option

from calpress.content import items

FUTURE = (dt.datetime.now() + dt.timedelta(days=30)).replace(microsecond=0)


def test_8_2_93_anonymous_and_subscriber_cannot_create(client, app, accounts):
    anonymous = client.post("/cms/v2/posts", json={"title": "Nope"})
    assert anonymous.status_code == 401
    assert anonymous.json == {
        "code": "rest_cannot_create", "message": "Sorry, you are not allowed to create posts as this user.", "data": {"status": 401},
    }
    assert anonymous.headers["Allow"] == "GET"
    subscriber = client.post("/cms/v2/posts", json={"title": "Nope"}, user=accounts["subscriber"])
    assert subscriber.status_code == 403 and subscriber.json["code"] == "rest_cannot_create"
    assert count_rows(app) == 0


def test_8_2_94_author_creates_a_draft(client, app, accounts):
    author = accounts["author"]
    response = client.post("/cms/v2/posts", json={"title": "My draft", "content": "Words"}, user=author)
    assert response.status_code == 201
    body = response.json
    assert response.headers["Location"] == f"http://example.test/cms/v2/posts/{body['id']}"
    assert body["status"] == "draft"
    assert body["author"] == author.id
    assert body["title"] == {"raw": "My draft", "rendered": "My draft"}
    assert "permalink_template" in body and body["password"] == ""  # edit context
    assert body["slug"] == "" and body["generated_slug"] == "my-draft"
    assert body["link"] == f"http://example.test/?p={body['id']}"
    assert body["guid"]["raw"] == f"http://example.test/?p={body['id']}"
    assert response.headers["Allow"] == "GET, POST"


def test_8_2_95_contributor_cannot_publish(client, app, accounts):
    response = client.post("/cms/v2/posts", json={"title": "x", "status": "publish"}, user=accounts["contributor"])
    assert response.status_code == 403
    assert response.json == {
        "code": "rest_cannot_publish", "message": "Sorry, you are not allowed to publish posts in this post type.", "data": {"status": 403},
    }
    assert count_rows(app) == 0


def test_8_2_96_contributor_submits_pending(client, app, accounts):
    response = client.post("/cms/v2/posts", json={"title": "For review", "status": "pending"}, user=accounts["contributor"])
    assert response.status_code == 201
    assert response.json["status"] == "pending"
    assert response.json["slug"] == ""  # no publish rights: the slug waits for publication


def test_8_2_97_contributor_cannot_create_private(client, app, accounts):
    response = client.post("/cms/v2/posts", json={"title": "x", "status": "private"}, user=accounts["contributor"])
    assert response.status_code == 403
    assert response.json["code"] == "rest_cannot_publish"
    assert response.json["message"] == "Sorry, you are not allowed to create private posts in this post type."


def test_8_2_98_publish_with_future_date_is_scheduled(client, app, accounts):
    response = client.post(
        "/cms/v2/posts", json={"title": "Soon", "status": "publish", "date": FUTURE.isoformat()}, user=accounts["author"]
    )
    assert response.status_code == 201
    assert response.json["status"] == "future"
    assert response.json["date"] == FUTURE.strftime("%Y-%m-%dT%H:%M:%S")


def test_8_2_99_future_with_past_date_is_published(client, app, admin):
    response = client.post("/cms/v2/posts", json={"title": "Past", "status": "future", "date": "2016-01-01T12:00:00"}, user=admin)
    assert response.json["status"] == "publish"
    assert response.json["slug"] == "past"


def test_8_2_100_unknown_status(client, app, admin):
    response = client.post("/cms/v2/posts", json={"title": "x", "status": "invalid"}, user=admin)
    assert response.status_code == 400
    assert response.json["code"] == "rest_invalid_param"
    assert response.json["data"]["details"]["status"]["code"] == "rest_not_in_enum"
    assert count_rows(app) == 0


def test_8_2_101_author_for_someone_else(client, app, accounts):
    other = accounts["contributor"].id
    refused = client.post("/cms/v2/posts", json={"title": "x", "author": other}, user=accounts["author"])
    assert refused.status_code == 403
    assert refused.json == {
        "code": "rest_cannot_edit_others", "message": "Sorry, you are not allowed to create posts as this user.", "data": {"status": 403},
    }
    accepted = client.post("/cms/v2/posts", json={"title": "x", "author": other}, user=accounts["editor"])
    assert accepted.status_code == 201 and accepted.json["author"] == other


def test_8_2_102_unknown_author(client, app, accounts):
    response = client.post("/cms/v2/posts", json={"title": "x", "author": 999999}, user=accounts["editor"])
    assert response.status_code == 400
    assert response.json == {"code": "rest_invalid_author", "message": "Invalid author ID.", "data": {"status": 400}}
    assert count_rows(app) == 0


def test_8_2_103_contributor_cannot_make_sticky(client, app, accounts):
    response = client.post("/cms/v2/posts", json={"title": "x", "sticky": True}, user=accounts["contributor"])
    assert response.status_code == 403
    assert response.json["code"] == "rest_cannot_assign_sticky"
    assert response.json["message"] == "Sorry, you are not allowed to make posts sticky."


def test_8_2_104_sticky_and_password(client, app, accounts):
    response = client.post("/cms/v2/posts", json={"title": "x", "sticky": True, "password": "x"}, user=accounts["editor"])
    assert response.status_code == 400
    assert response.json == {"code": "rest_invalid_field", "message": "A post can not be sticky and have a password.", "data": {"status": 400}}
    assert count_rows(app) == 0


def test_8_2_105_id_on_create(client, app, admin):
    response = client.post("/cms/v2/posts", json={"id": 5, "title": "x"}, user=admin)
    assert response.status_code == 400
    assert response.json == {"code": "rest_post_exists", "message": "Cannot create existing post.", "data": {"status": 400}}


def test_8_2_106_title_as_object_or_string(client, app, admin):
    first = client.post("/cms/v2/posts", json={"title": {"raw": "T"}}, user=admin).json
    assert first["title"]["raw"] == "T"
    second = client.post("/cms/v2/posts", json={"title": "Plain"}, user=admin).json
    assert second["title"]["raw"] == "Plain"


def test_8_2_107_slug_is_sanitised(client, app, admin):
    body = client.post("/cms/v2/posts", json={"title": "x", "slug": "Test Slug!"}, user=admin).json
    assert body["slug"] == "test-slug"


def test_8_2_108_second_post_with_the_same_title(client, app, admin):
    first = client.post("/cms/v2/posts", json={"title": "Hello", "status": "publish"}, user=admin).json
    second = client.post("/cms/v2/posts", json={"title": "Hello", "status": "publish"}, user=admin).json
    assert (first["slug"], second["slug"]) == ("hello", "hello-2")
    assert second["link"] == "http://example.test/hello-2/"


def test_8_2_109_draft_with_a_taken_slug(client, app, admin):
    make_item(app, title="Taken", author=admin.id)
    body = client.post("/cms/v2/posts", json={"title": "x", "status": "draft", "slug": "taken"}, user=admin).json
    assert body["slug"] == "taken-2"


def test_8_2_110_draft_without_slug(client, app, admin):
    body = client.post("/cms/v2/posts", json={"title": "Some Draft"}, user=admin).json
    assert body["slug"] == ""
    assert body["generated_slug"] == "some-draft"


def test_8_2_111_local_date_and_site_zone(client, app, admin):
    set_option(app, "timezone_string", "Europe/Paris")
    body = client.post("/cms/v2/posts", json={"title": "x", "date": "2016-01-01T12:00:00"}, user=admin).json
    assert body["date"] == "2016-01-01T12:00:00"
    assert body["date_gmt"] == "2016-01-01T11:00:00"


def test_8_2_112_gmt_date(client, app, admin):
    set_option(app, "timezone_string", "America/New_York")
    body = client.post("/cms/v2/posts", json={"title": "x", "date_gmt": "2016-01-01T12:00:00Z"}, user=admin).json
    assert body["date_gmt"] == "2016-01-01T12:00:00"
    assert body["date"] == "2016-01-01T07:00:00"


def test_8_2_113_garbage_date(client, app, admin):
    response = client.post("/cms/v2/posts", json={"title": "x", "date": "garbage"}, user=admin)
    assert response.status_code == 400
    assert response.json["data"]["details"]["date"]["code"] == "rest_invalid_date"
    assert count_rows(app) == 0


def test_8_2_114_null_date_makes_a_draft_float(client, app, admin):
    created = client.post("/cms/v2/posts", json={"title": "x", "date": "2016-01-01T12:00:00"}, user=admin).json
    assert row(app, created["id"]).date_utc is not None
    response = client.put(f"/cms/v2/posts/{created['id']}", json={"date": None}, user=admin)
    assert response.status_code == 200
    stored = row(app, created["id"])
    assert stored.date_utc is None
    assert response.json["date"] != "2016-01-01T12:00:00"
    assert response.json["date_gmt"] is not None


def test_8_2_115_terms_on_create(client, app, admin):
    cat = make_term(app, "category", "C")
    tag = make_term(app, "post_tag", "T")
    body = client.post("/cms/v2/posts", json={"title": "x", "categories": [cat], "tags": [tag]}, user=admin).json
    assert body["categories"] == [cat] and body["tags"] == [tag]


def test_8_2_116_contributor_assigns_a_category(client, app, accounts):
    cat = make_term(app, "category", "C")
    response = client.post("/cms/v2/posts", json={"title": "x", "categories": [cat, 999999]}, user=accounts["contributor"])
    assert response.status_code == 201
    assert response.json["categories"] == [cat]


def test_8_2_117_format(client, app, admin):
    assert client.post("/cms/v2/posts", json={"title": "x", "format": "gallery"}, user=admin).json["format"] == "gallery"
    bogus = client.post("/cms/v2/posts", json={"title": "x", "format": "bogus"}, user=admin)
    assert bogus.status_code == 400 and bogus.json["code"] == "rest_invalid_param"


def test_8_2_118_featured_media(client, app, admin):
    image = make_image(app)
    assert client.post("/cms/v2/posts", json={"title": "x", "featured_media": image}, user=admin).json["featured_media"] == image
    before = count_rows(app)
    invalid = client.post("/cms/v2/posts", json={"title": "x", "featured_media": 999999}, user=admin)
    assert invalid.status_code == 400
    assert invalid.json == {"code": "rest_invalid_featured_media", "message": "Invalid featured media ID.", "data": {"status": 400}}
    assert count_rows(app) == before


def test_8_2_119_unknown_template(client, app, admin):
    response = client.post("/cms/v2/posts", json={"title": "x", "template": "nonexistent.php"}, user=admin)
    assert response.status_code == 400
    assert response.json["code"] == "rest_invalid_param"
    assert response.json["data"]["params"]["template"] == "template is not one of ."


def test_8_2_120_registered_meta_only(client, app, admin):
    body = client.post("/cms/v2/posts", json={"title": "x", "meta": {"footnotes": "v", "unregistered": "x"}}, user=admin).json
    assert body["meta"]["footnotes"] == "v"
    assert "unregistered" not in body["meta"]
    assert "unregistered" not in row(app, body["id"]).meta


def test_8_2_121_comment_and_ping_status(client, app, admin):
    body = client.post("/cms/v2/posts", json={"title": "x", "comment_status": "closed", "ping_status": "closed"}, user=admin).json
    assert (body["comment_status"], body["ping_status"]) == ("closed", "closed")


def test_8_2_122_editor_updates_a_title(client, app, accounts):
    post = make_item(app, title="Old", author=accounts["author"].id, date=dt.datetime(2020, 1, 1))
    response = client.put(f"/cms/v2/posts/{post.id}", json={"title": "New"}, user=accounts["editor"])
    assert response.status_code == 200
    body = response.json
    assert body["title"] == {"raw": "New", "rendered": "New"}
    assert body["modified"] > "2020-01-01T00:00:00"
    assert body["slug"] == "old"  # the slug stays
    assert body["password"] == ""  # edit context


def test_8_2_123_author_cannot_edit_others(client, app, accounts):
    post = make_item(app, title="Theirs", author=accounts["editor"].id)
    response = client.put(f"/cms/v2/posts/{post.id}", json={"title": "Mine now"}, user=accounts["author"])
    assert response.status_code == 403
    assert response.json == {"code": "rest_cannot_edit", "message": "Sorry, you are not allowed to edit this post.", "data": {"status": 403}}
    assert row(app, post.id).title == "Theirs"


def test_8_2_124_contributor_cannot_edit_own_published(client, app, accounts):
    post = make_item(app, title="Published", author=accounts["contributor"].id)
    response = client.put(f"/cms/v2/posts/{post.id}", json={"title": "x"}, user=accounts["contributor"])
    assert response.status_code == 403 and response.json["code"] == "rest_cannot_edit"


def test_8_2_125_update_unknown(client, app, admin):
    response = client.put("/cms/v2/posts/999999", json={"title": "x"}, user=admin)
    assert response.status_code == 404 and response.json["code"] == "rest_post_invalid_id"


def test_8_2_126_make_sticky(client, app, accounts):
    post = make_item(app, title="Stick", author=accounts["author"].id)
    response = client.patch(f"/cms/v2/posts/{post.id}", json={"sticky": True}, user=accounts["editor"])
    assert response.json["sticky"] is True
    assert [p["id"] for p in client.get("/cms/v2/posts", params={"sticky": "true"}).json] == [post.id]
    unstuck = client.patch(f"/cms/v2/posts/{post.id}", json={"sticky": False}, user=accounts["editor"])
    assert unstuck.json["sticky"] is False


def test_8_2_127_same_status_skips_the_publish_check(client, app, accounts):
    post = make_item(app, title="Pending", status="pending", author=accounts["contributor"].id)
    response = client.put(f"/cms/v2/posts/{post.id}", json={"status": "pending", "title": "Edited"}, user=accounts["contributor"])
    assert response.status_code == 200
    editor_post = make_item(app, title="Published", author=accounts["editor"].id)
    same = client.put(f"/cms/v2/posts/{editor_post.id}", json={"status": "publish"}, user=accounts["editor"])
    assert same.status_code == 200


def test_8_2_128_password_on_a_sticky_post(client, app, admin):
    post = make_item(app, title="Sticky", author=admin.id, sticky=True)
    response = client.put(f"/cms/v2/posts/{post.id}", json={"password": "x"}, user=admin)
    assert response.status_code == 400
    assert response.json["message"] == "A sticky post can not be password protected."
    assert row(app, post.id).password == ""
    protected = make_item(app, title="Locked", author=admin.id, password="pw")
    response = client.put(f"/cms/v2/posts/{protected.id}", json={"sticky": True}, user=admin)
    assert response.status_code == 400
    assert response.json["message"] == "A password protected post can not be set to sticky."


def test_8_2_129_delete_moves_to_trash(client, app, accounts):
    post = make_item(app, title="Bin me", author=accounts["author"].id)
    response = client.delete(f"/cms/v2/posts/{post.id}", user=accounts["editor"])
    assert response.status_code == 200
    body = response.json
    assert body["status"] == "trash"
    assert body["slug"] == "bin-me__trashed"
    assert body["link"] == f"http://example.test/?p={post.id}"
    assert "password" in body  # edit context


def test_8_2_130_delete_twice(client, app, admin):
    post = make_item(app, title="Twice", author=admin.id)
    client.delete(f"/cms/v2/posts/{post.id}", user=admin)
    response = client.delete(f"/cms/v2/posts/{post.id}", user=admin)
    assert response.status_code == 410
    assert response.json == {"code": "rest_already_trashed", "message": "The post has already been deleted.", "data": {"status": 410}}


def test_8_2_131_force_delete(client, app, admin):
    post = make_item(app, title="Gone", author=admin.id)
    response = client.delete(f"/cms/v2/posts/{post.id}", params={"force": "true"}, user=admin)
    assert response.status_code == 200
    body = response.json
    assert body["deleted"] is True
    assert body["previous"]["id"] == post.id and body["previous"]["status"] == "publish"
    assert "_links" not in body["previous"] and "password" in body["previous"]
    assert client.get(f"/cms/v2/posts/{post.id}", user=admin).status_code == 404


def test_8_2_132_trash_disabled(client, app, admin):
    set_option(app, "empty_trash_days", 0)
    post = make_item(app, title="x", author=admin.id)
    response = client.delete(f"/cms/v2/posts/{post.id}", user=admin)
    assert response.status_code == 501
    assert response.json == {
        "code": "rest_trash_not_supported",
        "message": "The post does not support trashing. Set 'force=true' to delete.",
        "data": {"status": 501},
    }
    assert row(app, post.id).status == "publish"


def test_8_2_133_delete_others_post(client, app, accounts):
    post = make_item(app, title="Theirs", author=accounts["editor"].id)
    author = client.delete(f"/cms/v2/posts/{post.id}", user=accounts["author"])
    assert author.status_code == 403
    assert author.json == {"code": "rest_cannot_delete", "message": "Sorry, you are not allowed to delete this post.", "data": {"status": 403}}
    assert client.delete(f"/cms/v2/posts/{post.id}").status_code == 401
    assert row(app, post.id).status == "publish"


def test_8_2_134_delete_unknown(client, app, admin):
    response = client.delete("/cms/v2/posts/999999", user=admin)
    assert response.status_code == 404 and response.json["code"] == "rest_post_invalid_id"


def test_untrash_restores_the_slug(client, app, admin):
    post = make_item(app, title="Back", author=admin.id)
    client.delete(f"/cms/v2/posts/{post.id}", user=admin)
    body = client.put(f"/cms/v2/posts/{post.id}", json={"status": "publish"}, user=admin).json
    assert body["status"] == "publish" and body["slug"] == "back"
    assert items.TRASH_STATUS_KEY not in row(app, post.id).meta


def test_method_override_delete(client, app, admin):
    post = make_item(app, title="Override", author=admin.id)
    response = client.post(f"/cms/v2/posts/{post.id}", params={"_method": "DELETE"}, user=admin)
    assert response.json["status"] == "trash"


def test_contributor_edits_own_draft_and_content_is_filtered(client, app, accounts):
    contributor = accounts["contributor"]
    created = client.post(
        "/cms/v2/posts",
        json={"title": "<script>x</script>Title", "content": "<p>ok</p><script>alert(1)</script>"},
        user=contributor,
    ).json
    assert "<script" not in created["content"]["raw"]
    assert "<script" not in created["title"]["raw"]
    assert "<p>ok</p>" in created["content"]["raw"]
    editor = client.post("/cms/v2/posts", json={"title": "t", "content": "<script>kept()</script>"}, user=accounts["editor"]).json
    assert editor["content"]["raw"] == "<script>kept()</script>"


def test_sticky_created_by_editor(client, app, accounts):
    body = client.post("/cms/v2/posts", json={"title": "s", "status": "publish", "sticky": True}, user=accounts["editor"]).json
    assert body["sticky"] is True
    with app.site.read() as conn:
        from calpress.store import options

        assert options.get_option(conn, "sticky_posts") == [body["id"]]
    client.delete(f"/cms/v2/posts/{body['id']}", params={"force": "true"}, user=accounts["editor"])
    with app.site.read() as conn:
        assert options.get_option(conn, "sticky_posts") == []


def test_empty_content_is_refused(client, app, admin):
    response = client.post("/cms/v2/posts", json={"status": "draft"}, user=admin)
    assert response.status_code == 400
    assert response.json == {"code": "empty_content", "message": "Content, title, and excerpt are empty.", "data": {"status": 400}}
    assert count_rows(app) == 0


def test_untitled_published_post_gets_its_id_as_slug(client, app, admin):
    body = client.post("/cms/v2/posts", json={"content": "x", "status": "publish"}, user=admin).json
    # A numeric slug would look like a date archive under /%postname%/: it gets a suffix.
    assert body["slug"] == f"{body['id']}-2"


def test_publishing_a_floating_draft_takes_the_current_time(client, app, admin):
    draft = client.post("/cms/v2/posts", json={"title": "Later"}, user=admin).json
    assert row(app, draft["id"]).date_utc is None
    published = client.put(f"/cms/v2/posts/{draft['id']}", json={"status": "publish"}, user=admin).json
    assert published["status"] == "publish" and published["slug"] == "later"
    assert row(app, draft["id"]).date_utc is not None
