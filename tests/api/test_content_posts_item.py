"""GET /cms/v2/posts/{id}: the acceptance scenarios 70-92 of cms-api.md 8.2 (single items),
checked against the reference's recorded answers (spec/examples/cms-posts.md)."""

from __future__ import annotations

from content_support import make_image, make_item, make_revision, make_term

VIEW_KEYS = [
    "id", "date", "date_gmt", "guid", "modified", "modified_gmt", "slug", "status", "type", "link", "title", "content",
    "excerpt", "author", "featured_media", "comment_status", "ping_status", "sticky", "template", "format", "meta",
    "categories", "tags", "class_list", "_links",
]
EDIT_KEYS = [
    "id", "date", "date_gmt", "guid", "modified", "modified_gmt", "password", "slug", "status", "type", "link", "title",
    "content", "excerpt", "author", "featured_media", "comment_status", "ping_status", "sticky", "template", "format",
    "meta", "categories", "tags", "permalink_template", "generated_slug", "class_list", "_links",
]
LINK_KEYS = ["self", "collection", "about", "author", "replies", "version-history", "wp:attachment", "wp:term", "curies"]


def test_8_2_70_anonymous_reads_a_published_post(client, app, admin):
    post = make_item(app, title="Hello", content="Body text", author=admin.id)
    response = client.get(f"/cms/v2/posts/{post.id}")
    assert response.status_code == 200
    body = response.json
    assert list(body) == VIEW_KEYS
    assert body["title"] == {"rendered": "Hello"}
    assert body["content"] == {"rendered": "<p>Body text</p>\n", "protected": False}
    assert body["guid"] == {"rendered": "http://example.test/hello/"}
    assert body["link"] == "http://example.test/hello/"
    assert body["categories"] == [1] and body["tags"] == []
    assert body["class_list"] == [
        f"post-{post.id}", "post", "type-post", "status-publish", "format-standard", "hentry", "category-uncategorized",
    ]
    assert "password" not in body
    assert response.headers["Allow"] == "GET"
    assert body["_links"]["self"][0]["targetHints"] == {"allow": ["GET"]}


def test_8_2_71_alternate_link_header(client, app, admin):
    post = make_item(app, title="Hello", author=admin.id)
    response = client.get(f"/cms/v2/posts/{post.id}")
    assert '<http://example.test/hello/>; rel="alternate"; type=text/html' in response.headers["Link"]


def test_8_2_72_draft_is_forbidden_to_anonymous_and_subscribers(client, app, accounts):
    draft = make_item(app, title="Draft", status="draft", author=accounts["author"].id)
    anonymous = client.get(f"/cms/v2/posts/{draft.id}")
    assert anonymous.status_code == 401
    assert anonymous.json == {"code": "rest_forbidden", "message": "Sorry, you are not allowed to do that.", "data": {"status": 401}}
    subscriber = client.get(f"/cms/v2/posts/{draft.id}", user=accounts["subscriber"])
    assert subscriber.status_code == 403 and subscriber.json["code"] == "rest_forbidden"


def test_8_2_73_author_reads_own_draft(client, app, accounts):
    draft = make_item(app, title="Draft", status="draft", author=accounts["author"].id)
    response = client.get(f"/cms/v2/posts/{draft.id}", user=accounts["author"])
    assert response.status_code == 200
    assert response.json["link"] == f"http://example.test/?p={draft.id}"
    assert response.json["slug"] == ""


def test_8_2_74_private_post_editor_yes_contributor_no(client, app, accounts):
    private = make_item(app, title="Private", status="private", author=accounts["author"].id)
    editor = client.get(f"/cms/v2/posts/{private.id}", user=accounts["editor"])
    assert editor.status_code == 200
    assert editor.json["title"]["rendered"] == "Private"  # no "Private: " prefix
    assert editor.json["link"] == "http://example.test/private/"
    assert client.get(f"/cms/v2/posts/{private.id}", user=accounts["contributor"]).status_code == 403


def test_8_2_75_a_page_id_is_not_a_post(client, app, admin):
    page = make_item(app, "page", title="Page", author=admin.id)
    response = client.get(f"/cms/v2/posts/{page.id}")
    assert response.status_code == 404
    assert response.json["code"] == "rest_post_invalid_id"


def test_8_2_76_unknown_id(client, app):
    response = client.get("/cms/v2/posts/999999")
    assert response.status_code == 404
    assert response.json == {"code": "rest_post_invalid_id", "message": "Invalid post ID.", "data": {"status": 404}}


def test_8_2_77_contributor_edit_context_on_others_post(client, app, accounts):
    post = make_item(app, title="Theirs", author=accounts["editor"].id)
    response = client.get(f"/cms/v2/posts/{post.id}", params={"context": "edit"}, user=accounts["contributor"])
    assert response.status_code == 403
    assert response.json == {
        "code": "rest_forbidden_context", "message": "Sorry, you are not allowed to edit this post.", "data": {"status": 403},
    }


def test_8_2_78_admin_edit_context(client, app, admin):
    post = make_item(app, title="Edit me", content="<!-- wp:paragraph -->\n<p>Hi</p>\n<!-- /wp:paragraph -->", author=admin.id)
    response = client.get(f"/cms/v2/posts/{post.id}", params={"context": "edit"}, user=admin)
    body = response.json
    assert list(body) == EDIT_KEYS
    assert body["title"] == {"raw": "Edit me", "rendered": "Edit me"}
    assert list(body["content"]) == ["raw", "rendered", "protected", "block_version"]
    assert body["content"]["block_version"] == 1
    assert body["guid"]["raw"] == "http://example.test/edit-me/"
    assert body["password"] == ""
    assert body["permalink_template"] == "http://example.test/%postname%/"
    assert body["generated_slug"] == "edit-me"
    assert response.headers["Allow"] == "GET, POST, PUT, PATCH, DELETE"
    actions = [rel for rel in body["_links"] if rel.startswith("wp:action-")]
    assert actions == [
        "wp:action-publish", "wp:action-unfiltered-html", "wp:action-sticky", "wp:action-assign-author",
        "wp:action-create-categories", "wp:action-assign-categories", "wp:action-create-tags", "wp:action-assign-tags",
    ]


def test_8_2_79_embed_context(client, app, admin):
    post = make_item(app, title="Embedded", excerpt="Short", author=admin.id)
    body = client.get(f"/cms/v2/posts/{post.id}", params={"context": "embed"}).json
    assert list(body) == ["id", "date", "slug", "type", "link", "title", "excerpt", "author", "featured_media", "_links"]
    assert body["excerpt"] == {"rendered": "<p>Short</p>\n", "protected": False}


def test_8_2_80_protected_post_hides_content_from_anonymous(client, app, admin):
    post = make_item(app, title="Locked", content="Secret", excerpt="Secret excerpt", author=admin.id, password="pw")
    body = client.get(f"/cms/v2/posts/{post.id}").json
    assert body["content"] == {"rendered": "", "protected": True}
    assert body["excerpt"] == {"rendered": "", "protected": True}
    assert body["title"] == {"rendered": "Locked"}  # no "Protected: " prefix
    assert "post-password-required" in body["class_list"]


def test_8_2_81_correct_password_shows_content(client, app, admin):
    post = make_item(app, title="Locked", content="Secret", author=admin.id, password="pw")
    body = client.get(f"/cms/v2/posts/{post.id}", params={"password": "pw"}).json
    assert body["content"] == {"rendered": "<p>Secret</p>\n", "protected": True}


def test_8_2_82_wrong_password_is_403(client, app, admin):
    post = make_item(app, title="Locked", content="Secret", author=admin.id, password="pw")
    response = client.get(f"/cms/v2/posts/{post.id}", params={"password": "nope"})
    assert response.status_code == 403
    assert response.json == {"code": "rest_post_incorrect_password", "message": "Incorrect post password.", "data": {"status": 403}}


def test_8_2_83_editor_sees_protected_content_in_edit_context(client, app, accounts):
    post = make_item(app, title="Locked", content="Secret", author=accounts["author"].id, password="pw")
    editor = accounts["editor"]
    assert client.get(f"/cms/v2/posts/{post.id}", user=editor).json["content"]["rendered"] == ""
    body = client.get(f"/cms/v2/posts/{post.id}", params={"context": "edit"}, user=editor).json
    assert body["content"]["rendered"] == "<p>Secret</p>\n"
    assert body["password"] == "pw"
    assert "post-password-protected" in body["class_list"]


def test_8_2_84_content_rendering(client, app, admin):
    post = make_item(app, title="T", content="Hello", author=admin.id)
    assert client.get(f"/cms/v2/posts/{post.id}").json["content"]["rendered"] == "<p>Hello</p>\n"


def test_8_2_85_generated_excerpt_is_55_words(client, app, admin):
    words = " ".join(f"word{n}" for n in range(1, 101))
    post = make_item(app, title="T", content=words, author=admin.id)
    rendered = client.get(f"/cms/v2/posts/{post.id}").json["excerpt"]["rendered"]
    assert rendered == "<p>" + " ".join(f"word{n}" for n in range(1, 56)) + " [&hellip;]</p>\n"


def test_8_2_86_excerpt_length_parameter(client, app, admin):
    words = " ".join(f"word{n}" for n in range(1, 101))
    post = make_item(app, title="T", content=words, author=admin.id)
    rendered = client.get(f"/cms/v2/posts/{post.id}", params={"excerpt_length": 10}).json["excerpt"]["rendered"]
    assert rendered == "<p>" + " ".join(f"word{n}" for n in range(1, 11)) + " [&hellip;]</p>\n"
    listed = client.get("/cms/v2/posts", params={"excerpt_length": 10}).json[0]["excerpt"]["rendered"]
    assert listed == rendered


def test_8_2_87_title_rendering(client, app, admin):
    post = make_item(app, title='Hello "World"', author=admin.id)
    assert client.get(f"/cms/v2/posts/{post.id}").json["title"]["rendered"] == "Hello &#8220;World&#8221;"


def test_8_2_88_no_private_or_protected_title_prefix(client, app, admin):
    private = make_item(app, title="Mine", status="private", author=admin.id)
    protected = make_item(app, title="Locked", author=admin.id, password="x")
    assert client.get(f"/cms/v2/posts/{private.id}", user=admin).json["title"]["rendered"] == "Mine"
    assert client.get(f"/cms/v2/posts/{protected.id}").json["title"]["rendered"] == "Locked"


def test_8_2_89_item_links(client, app, admin):
    post = make_item(app, title="Linked", author=admin.id)
    links = client.get(f"/cms/v2/posts/{post.id}").json["_links"]
    assert list(links) == LINK_KEYS
    base = "http://example.test/cms/v2"
    assert links["author"] == [{"embeddable": True, "href": f"{base}/users/{admin.id}"}]
    assert links["replies"] == [{"embeddable": True, "href": f"{base}/comments?post={post.id}"}]
    assert links["version-history"] == [{"count": 0, "href": f"{base}/posts/{post.id}/revisions"}]
    assert links["wp:attachment"] == [{"href": f"{base}/media?parent={post.id}"}]
    assert links["wp:term"] == [
        {"taxonomy": "category", "embeddable": True, "href": f"{base}/categories?post={post.id}"},
        {"taxonomy": "post_tag", "embeddable": True, "href": f"{base}/tags?post={post.id}"},
    ]
    assert links["curies"] == [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]


def test_8_2_90_revision_links(client, app, admin):
    post = make_item(app, title="Revised", author=admin.id)
    make_revision(app, post.id)
    latest = make_revision(app, post.id)
    links = client.get(f"/cms/v2/posts/{post.id}").json["_links"]
    assert links["version-history"][0]["count"] == 2
    assert links["predecessor-version"] == [
        {"id": latest, "href": f"http://example.test/cms/v2/posts/{post.id}/revisions/{latest}"}
    ]


def test_8_2_91_featured_media(client, app, admin):
    image = make_image(app)
    post = make_item(app, title="Pictured", author=admin.id, featured_media=image)
    body = client.get(f"/cms/v2/posts/{post.id}").json
    assert body["featured_media"] == image
    assert body["_links"]["wp:featuredmedia"] == [{"embeddable": True, "href": f"http://example.test/cms/v2/media/{image}"}]
    assert "has-post-thumbnail" in body["class_list"]


def test_8_2_92_defaults(client, app, admin):
    body = client.get(f"/cms/v2/posts/{make_item(app, title='D', author=admin.id).id}").json
    assert body["format"] == "standard" and body["sticky"] is False and body["template"] == ""


def test_tags_and_categories_listed_with_classes(client, app, admin):
    news = make_term(app, "category", "News")
    tag = make_term(app, "post_tag", "Hot Stuff")
    post = make_item(app, title="Filed", author=admin.id, terms={"category": [news], "post_tag": [tag]}, format="aside")
    body = client.get(f"/cms/v2/posts/{post.id}").json
    assert body["categories"] == [news] and body["tags"] == [tag]
    assert body["format"] == "aside"
    assert body["class_list"][-3:] == ["post_format-post-format-aside", "category-news", "tag-hot-stuff"]


def test_head_on_an_item_sends_headers_only(client, app, admin):
    post = make_item(app, title="Head", author=admin.id)
    response = client.request("HEAD", f"/cms/v2/posts/{post.id}")
    assert response.status_code == 200 and response.content == b""
    assert '<http://example.test/head/>; rel="alternate"; type=text/html' in response.headers["Link"]


def test_embed_author(client, app, admin):
    post = make_item(app, title="Embed", author=admin.id)
    body = client.get(f"/cms/v2/posts/{post.id}", params={"_embed": "author"}).json
    assert body["_embedded"]["author"][0]["id"] == admin.id
    listed = client.get("/cms/v2/posts", params={"_embed": "author"}).json
    assert listed[0]["_embedded"]["author"][0]["name"] == "administrator"


def test_fields_filter(client, app, admin):
    make_item(app, title="Fields", author=admin.id)
    assert client.get("/cms/v2/posts", params={"_fields": "id,title.rendered"}).json == [{"id": 1, "title": {"rendered": "Fields"}}]


def test_scheduled_post_is_published_when_due(client, app, admin):
    import datetime as dt

    from calpress.content import items

    post = make_item(app, title="Later", author=admin.id, date=dt.datetime.now() + dt.timedelta(days=1))
    assert post.status == "future"
    assert client.get(f"/cms/v2/posts/{post.id}").status_code == 401
    ctx = items.Context.of(app.site, options=app.site.load_options(), home="http://example.test")
    with app.site.write() as conn:
        # Move its time into the past, as the clock would.
        import sqlalchemy as sa

        from calpress.store.tables import posts

        conn.execute(sa.update(posts).where(posts.c.id == post.id).values(date_utc=items.now_utc() - dt.timedelta(minutes=1)))
    assert ctx.home
    assert items.publish_due_items(app.site, force=True) == 1
    assert client.get(f"/cms/v2/posts/{post.id}").json["status"] == "publish"
