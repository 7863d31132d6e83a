"""Bad input on the content routes: every collection argument with a wrong type or value, and
writes the reference refuses or cleans (with a check that nothing was written)."""

from __future__ import annotations

import pytest
from content_support import count_rows, make_item, row

# (route, argument, value, detail code) for the collection arguments of cms-api.md 2.11.
COLLECTION_CASES = [
    ("posts", "context", "banana", "rest_not_in_enum"),
    ("posts", "page", "0", "rest_out_of_bounds"),
    ("posts", "page", "abc", "rest_invalid_type"),
    ("posts", "per_page", "0", "rest_out_of_bounds"),
    ("posts", "per_page", "101", "rest_out_of_bounds"),
    ("posts", "per_page", "abc", "rest_invalid_type"),
    ("posts", "after", "not-a-date", "rest_invalid_date"),
    ("posts", "before", "2024-13-45", "rest_invalid_date"),
    ("posts", "modified_after", "yesterday", "rest_invalid_date"),
    ("posts", "modified_before", "2024/01/01", "rest_invalid_date"),
    ("posts", "author", "abc", "rest_invalid_type"),
    ("posts", "author_exclude", "1,x", "rest_invalid_type"),
    ("posts", "exclude", "1.5", "rest_invalid_type"),
    ("posts", "include", "one", "rest_invalid_type"),
    ("posts", "search_semantics", "fuzzy", "rest_not_in_enum"),
    ("posts", "offset", "abc", "rest_invalid_type"),
    ("posts", "order", "sideways", "rest_not_in_enum"),
    ("posts", "orderby", "bogus", "rest_not_in_enum"),
    ("posts", "orderby", "menu_order", "rest_not_in_enum"),
    ("posts", "search_columns", "post_author", "rest_not_in_enum"),
    ("posts", "status", "bogus", "rest_not_in_enum"),
    ("posts", "tax_relation", "XOR", "rest_not_in_enum"),
    ("posts", "categories", "abc", "rest_no_matching_schema"),
    ("posts", "categories_exclude", "x,y", "rest_no_matching_schema"),
    ("posts", "tags[operator]", "XOR", "rest_no_matching_schema"),
    ("posts", "tags[bogus]", "1", "rest_no_matching_schema"),
    ("posts", "sticky", "yes", "rest_invalid_type"),
    ("posts", "ignore_sticky", "maybe", "rest_invalid_type"),
    ("posts", "format", "bogus", "rest_not_in_enum"),
    ("posts", "format", "aside,aside", "rest_duplicate_items"),
    ("pages", "menu_order", "first", "rest_invalid_type"),
    ("pages", "parent", "abc", "rest_invalid_type"),
    ("pages", "parent_exclude", "1,b", "rest_invalid_type"),
    ("blocks", "per_page", "-1", "rest_out_of_bounds"),
    ("cal_events", "cal_events_cat", "abc", "rest_no_matching_schema"),
]


@pytest.mark.parametrize("base, name, value, code", COLLECTION_CASES)
def test_collection_argument_errors(client, app, admin, base, name, value, code):
    response = client.get(f"/cms/v2/{base}?{name}={value}", user=admin)
    assert response.status_code == 400, response.json
    body = response.json
    arg = name.split("[")[0]
    assert body["code"] == "rest_invalid_param"
    assert body["message"] == f"Invalid parameter(s): {arg}"
    assert list(body["data"]["params"]) == [arg]
    assert body["data"]["details"][arg]["code"] == code


def test_collection_arguments_that_the_type_lacks_are_ignored(client, app, admin):
    make_item(app, title="x", author=admin.id)
    # Posts have no parent or menu_order filter; blocks no author filter.
    assert client.get("/cms/v2/posts", params={"parent": "abc", "menu_order": "x"}).status_code == 200
    assert client.get("/cms/v2/blocks", params={"author": "abc"}, user=admin).status_code == 200


def test_out_of_range_message_matches_the_reference(client, app):
    body = client.get("/cms/v2/posts", params={"per_page": 500}).json
    assert body["data"]["params"] == {"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}
    assert body["data"]["details"]["per_page"] == {
        "code": "rest_out_of_bounds", "message": "per_page must be between 1 (inclusive) and 100 (inclusive)", "data": None,
    }
    enum = client.get("/cms/v2/posts", params={"orderby": "bogus"}).json
    assert enum["data"]["params"]["orderby"] == (
        "orderby is not one of author, date, id, include, modified, parent, relevance, slug, include_slugs, and title."
    )


# (body, argument, detail code or None for a plain "Invalid parameter.")
WRITE_CASES = [
    ({"title": "x", "date": "garbage"}, "date", "rest_invalid_date"),
    ({"title": "x", "date_gmt": "31/12/2020"}, "date_gmt", "rest_invalid_date"),
    ({"title": "x", "author": "abc"}, "author", "rest_invalid_type"),
    ({"title": "x", "status": "trash"}, "status", "rest_not_in_enum"),
    ({"title": "x", "status": "auto-draft"}, "status", "rest_not_in_enum"),
    ({"title": "x", "comment_status": "maybe"}, "comment_status", "rest_not_in_enum"),
    ({"title": "x", "ping_status": 1}, "ping_status", "rest_invalid_type"),
    ({"title": "x", "sticky": "maybe"}, "sticky", "rest_invalid_type"),
    ({"title": "x", "password": 123}, "password", "rest_invalid_type"),
    ({"title": "x", "template": 5}, "template", "rest_invalid_type"),
    ({"title": "x", "featured_media": "abc"}, "featured_media", "rest_invalid_type"),
    ({"title": "x", "format": "video-ish"}, "format", "rest_not_in_enum"),
    ({"title": "x", "categories": "abc"}, "categories", "rest_invalid_type"),
    ({"title": "x", "tags": [1, "b"]}, "tags", "rest_invalid_type"),
    ({"title": "x", "slug": 12}, "slug", "rest_invalid_type"),
    ({"title": "x", "meta": "not an object"}, "meta", None),
    ({"title": "x", "meta": {"_EventAllDay": "sometimes"}}, "meta", "rest_invalid_type"),
    ({"title": "x", "meta": {"_EventVenueID": ["x"]}}, "meta", "rest_invalid_type"),
]


@pytest.mark.parametrize("body, name, code", WRITE_CASES)
def test_write_argument_errors_write_nothing(client, app, admin, body, name, code):
    post = make_item(app, title="Existing", author=admin.id)
    created = client.post("/cms/v2/posts", json=body, user=admin)
    updated = client.put(f"/cms/v2/posts/{post.id}", json=body, user=admin)
    for response in (created, updated):
        if name == "status" and response is updated:
            continue  # checked below: an update keeps its own current status valid
        assert response.status_code == 400, response.json
        assert response.json["code"] == "rest_invalid_param"
        assert list(response.json["data"]["params"]) == [name]
        if code is None:
            assert response.json["data"]["params"][name] == "Invalid parameter."
        else:
            assert response.json["data"]["details"][name]["code"] == code
    assert count_rows(app) == 1
    assert row(app, post.id).title == "Existing"


def test_meta_error_names_the_key(client, app, admin):
    response = client.post("/cms/v2/posts", json={"title": "x", "meta": {"_EventAllDay": "sometimes"}}, user=admin)
    assert response.json["data"]["params"]["meta"] == "meta._EventAllDay is not of type boolean."


def test_current_status_stays_valid_on_update(client, app, admin):
    post = make_item(app, title="Binned", author=admin.id)
    client.delete(f"/cms/v2/posts/{post.id}", user=admin)
    response = client.put(f"/cms/v2/posts/{post.id}", json={"status": "trash", "title": "Renamed"}, user=admin)
    assert response.status_code == 200
    assert response.json["status"] == "trash"
    refused = client.put(f"/cms/v2/posts/{post.id}", json={"status": "auto-draft"}, user=admin)
    assert refused.status_code == 400


@pytest.mark.parametrize(
    "slug, stored",
    [
        ("a/b c", "a-b-c"),
        ("Café Ünïcode", "cafe-unicode"),
        ("日本語", "%e6%97%a5%e6%9c%ac%e8%aa%9e"),
        ("../../etc/passwd", "etc-passwd"),
        ("Hello%20World", "hello%20world"),
        ("<b>Bold</b> move", "bold-move"),
    ],
)
def test_slugs_with_unicode_and_slashes(client, app, admin, slug, stored):
    body = client.post("/cms/v2/posts", json={"title": "x", "slug": slug, "status": "publish"}, user=admin).json
    assert body["slug"] == stored
    assert row(app, body["id"]).slug == stored
    assert [p["id"] for p in client.get("/cms/v2/posts", params={"slug": stored}).json] == [body["id"]]


def test_unicode_title_makes_an_encoded_slug(client, app, admin):
    body = client.post("/cms/v2/posts", json={"title": "Événements à Paris", "status": "publish"}, user=admin).json
    assert body["slug"] == "evenements-a-paris"
    assert body["title"]["raw"] == "Événements à Paris"


def test_author_content_with_script_tags_is_cleaned(client, app, accounts):
    author = accounts["author"]
    response = client.post(
        "/cms/v2/posts",
        json={
            "title": "Nice <script>steal()</script>title",
            "content": '<p onclick="evil()">Hi</p><script>steal()</script><a href="javascript:evil()">x</a>',
            "excerpt": "<script>x()</script>Short",
            "status": "publish",
        },
        user=author,
    )
    assert response.status_code == 201
    body = response.json
    stored = row(app, body["id"])
    for text in (stored.title, stored.content, stored.excerpt, body["content"]["rendered"]):
        assert "<script" not in text and "onclick" not in text and "javascript:" not in text
    assert "Hi" in stored.content and "Short" in stored.excerpt
    assert "wp:action-unfiltered-html" not in body["_links"]


def test_author_editing_a_post_with_admin_markup_filters_it(client, app, accounts):
    post = make_item(app, title="Admin's", content="<iframe src='https://example.org'></iframe>Text", author=accounts["author"].id)
    client.put(f"/cms/v2/posts/{post.id}", json={"title": "Edited by author"}, user=accounts["author"])
    assert "<iframe" not in row(app, post.id).content


def test_unknown_author_on_update_writes_nothing(client, app, accounts):
    post = make_item(app, title="Keep", author=accounts["author"].id)
    response = client.put(f"/cms/v2/posts/{post.id}", json={"author": 424242, "title": "Changed"}, user=accounts["editor"])
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_author"
    assert row(app, post.id).title == "Keep"


def test_forbidden_status_filters(client, app, accounts):
    for status in ("draft", "pending", "future", "trash", "any", "private"):
        response = client.get("/cms/v2/posts", params={"status": status}, user=accounts["subscriber"])
        assert response.status_code == 400, status
        assert response.json["data"]["details"]["status"]["code"] == "rest_forbidden_status"
    # Publishing rights do not matter, editing rights do: a contributor may list drafts.
    assert client.get("/cms/v2/posts", params={"status": "draft"}, user=accounts["contributor"]).status_code == 200
    assert client.get("/cms/v2/pages", params={"status": "draft"}, user=accounts["contributor"]).status_code == 400


def test_invalid_json_body(client, app, admin):
    response = client.post(
        "/cms/v2/posts", body=b'{"title": "broken', headers={"Content-Type": "application/json"}, user=admin
    )
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_json"
    assert count_rows(app) == 0


def test_non_numeric_id_is_no_route(client, app):
    assert client.get("/cms/v2/posts/abc").json["code"] == "rest_no_route"
    assert client.request("PATCH", "/cms/v2/posts").status_code == 404


def test_terms_from_another_taxonomy_are_skipped(client, app, admin):
    from content_support import make_term

    tag = make_term(app, "post_tag", "A tag")
    body = client.post("/cms/v2/posts", json={"title": "x", "categories": [tag]}, user=admin).json
    assert body["categories"] == []
