"""The server-wide scenarios of cms-api.md 8.1 that run through the content routes, and their
entries in the route index (spec/examples/root.md)."""

from __future__ import annotations

from content_support import make_item, make_term

ITEM_ROUTE = "/cms/v2/posts/(?P<id>[\\d]+)"


def test_8_1_3_index_lists_the_posts_collection(client, app):
    routes = client.get("/").json["routes"]
    posts = routes["/cms/v2/posts"]
    assert posts["methods"] == ["GET", "POST"]
    assert posts["endpoints"][0]["methods"] == ["GET"]
    assert posts["endpoints"][0]["args"]["per_page"]["maximum"] == 100
    assert posts["endpoints"][0]["allow_batch"] == {"v1": True}
    assert list(posts["endpoints"][0]["args"]) == [
        "context", "page", "per_page", "search", "after", "modified_after", "author", "author_exclude", "before",
        "modified_before", "exclude", "include", "search_semantics", "offset", "order", "orderby", "search_columns", "slug",
        "status", "tax_relation", "categories", "categories_exclude", "tags", "tags_exclude", "sticky", "ignore_sticky", "format",
    ]


def test_8_1_4_item_route_has_no_self_link(client, app):
    routes = client.get("/").json["routes"]
    assert routes["/cms/v2/posts"]["_links"]["self"][0]["href"] == "http://example.test/cms/v2/posts"
    assert "_links" not in routes[ITEM_ROUTE]


def test_item_route_entry_matches_the_reference(client, app):
    entry = client.get("/").json["routes"][ITEM_ROUTE]
    assert entry["namespace"] == "cms/v2"
    assert entry["methods"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    get, edit, delete = entry["endpoints"]
    assert get["args"] == {
        "id": {"description": "Unique identifier for the post.", "type": "integer", "required": False},
        "context": {
            "description": "Scope under which the request is made; determines fields present in response.",
            "type": "string",
            "enum": ["view", "embed", "edit"],
            "default": "view",
            "required": False,
        },
        "excerpt_length": {"description": "Override the default excerpt length.", "type": "integer", "required": False},
        "password": {"description": "The password for the post if it is password protected.", "type": "string", "required": False},
    }
    assert list(edit["args"]) == [
        "id", "date", "date_gmt", "slug", "status", "password", "title", "content", "author", "excerpt", "featured_media",
        "comment_status", "ping_status", "format", "meta", "sticky", "template", "categories", "tags",
    ]
    assert edit["args"]["date"] == {
        "description": "The date the post was published, in the site's timezone.",
        "type": ["string", "null"],
        "format": "date-time",
        "required": False,
    }
    assert edit["args"]["status"]["enum"][:5] == ["publish", "future", "draft", "pending", "private"]
    assert edit["args"]["meta"]["properties"]["_EventVenueID"] == {
        "type": "array", "items": {"type": "number", "title": "", "description": "Event Venue", "default": 0},
    }
    assert edit["args"]["title"]["properties"]["raw"] == {
        "description": "Title for the post, as it exists in the database.", "type": "string", "context": ["edit"],
    }
    assert delete["args"] == {
        "id": {"description": "Unique identifier for the post.", "type": "integer", "required": False},
        "force": {"type": "boolean", "default": False, "description": "Whether to bypass Trash and force deletion.", "required": False},
    }
    assert all(endpoint["allow_batch"] == {"v1": True} for endpoint in entry["endpoints"])


def test_content_routes_in_the_reference_order(client, app):
    keys = [key for key in client.get("/").json["routes"] if key.startswith("/cms/v2/") and key.count("/") <= 4]
    bases = list(dict.fromkeys(key.split("/")[3] for key in keys))
    content = [b for b in bases if b in ("posts", "pages", "blocks", "cal_venue", "cal_organizer", "cal_events")]
    assert content == ["posts", "pages", "blocks", "cal_venue", "cal_organizer", "cal_events"]


def test_8_1_9_options_describes_the_route(client, app):
    response = client.request("OPTIONS", "/cms/v2/posts")
    assert response.status_code == 200
    body = response.json
    assert set(body) >= {"namespace", "methods", "endpoints", "schema"}
    schema = body["schema"]
    assert schema["title"] == "post"
    assert list(schema["properties"])[:11] == [
        "date", "date_gmt", "guid", "id", "link", "modified", "modified_gmt", "slug", "status", "type", "password",
    ]
    assert "arg_options" not in schema["properties"]["slug"]
    assert [link["rel"] for link in schema["links"]][:3] == [
        "https://api.w.org/action-publish", "https://api.w.org/action-unfiltered-html", "https://api.w.org/action-sticky",
    ]


def test_8_1_11_head_on_the_collection(client, app, admin):
    make_item(app, title="One", author=admin.id)
    response = client.request("HEAD", "/cms/v2/posts")
    assert response.status_code == 200
    assert response.headers["X-WP-Total"] == "1" and response.headers["X-WP-TotalPages"] == "1"
    assert response.content == b""


def test_8_1_12_envelope(client, app, admin):
    make_item(app, title="One", author=admin.id)
    response = client.get("/cms/v2/posts", params={"_envelope": "", "_fields": "id"})
    assert response.status_code == 200
    body = response.json
    assert body["status"] == 200 and body["body"] == [{"id": 1}]
    assert body["headers"]["X-WP-Total"] == "1" and body["headers"]["X-WP-TotalPages"] == "1"


def test_8_1_13_envelope_around_an_error(client, app):
    response = client.get("/cms/v2/posts/999999", params={"_envelope": "1"})
    assert response.status_code == 200
    assert response.json["body"]["code"] == "rest_post_invalid_id" and response.json["status"] == 404


def test_8_1_14_and_15_fields(client, app, admin):
    post = make_item(app, title="Fielded", author=admin.id)
    listed = client.get("/cms/v2/posts", params={"_fields": "id,title.rendered"}).json
    assert listed == [{"id": post.id, "title": {"rendered": "Fielded"}}]
    single = client.get(f"/cms/v2/posts/{post.id}", params={"_fields": "title,_links"}).json
    assert list(single) == ["title", "_links"]


def test_8_1_16_and_17_embed(client, app, admin):
    news = make_term(app, "category", "News")
    make_item(app, title="Embedded", author=admin.id, terms={"category": [news]})
    body = client.get("/cms/v2/posts", params={"_embed": "1"}).json[0]
    assert body["_embedded"]["author"][0]["name"] == "administrator"
    assert body["_embedded"]["wp:term"][0][0]["id"] == news
    only_author = client.get("/cms/v2/posts", params={"_embed": "author"}).json[0]
    assert list(only_author["_embedded"]) == ["author"]


def test_8_1_18_and_19_method_overrides(client, app, admin):
    post = make_item(app, title="Overridden", author=admin.id)
    trashed = client.post(f"/cms/v2/posts/{post.id}", params={"_method": "DELETE"}, user=admin)
    assert trashed.json["status"] == "trash"
    other = make_item(app, title="Put", author=admin.id)
    put = client.post(f"/cms/v2/posts/{other.id}", json={"title": "Via header"}, headers={"X-HTTP-Method-Override": "PUT"}, user=admin)
    assert put.status_code == 200 and put.json["title"]["raw"] == "Via header"


def test_8_1_20_jsonp(client, app):
    response = client.get("/cms/v2/posts", params={"_jsonp": "cb"})
    assert response.headers["Content-Type"].startswith("application/javascript")
    assert response.text.startswith("/**/cb(")


def test_8_1_24_and_25_allow_and_target_hints(client, app, admin):
    post = make_item(app, title="Allowed", author=admin.id)
    as_admin = client.get(f"/cms/v2/posts/{post.id}", user=admin)
    assert as_admin.headers["Allow"] == "GET, POST, PUT, PATCH, DELETE"
    assert as_admin.json["_links"]["self"][0]["targetHints"]["allow"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    anonymous = client.get(f"/cms/v2/posts/{post.id}")
    assert anonymous.headers["Allow"] == "GET"
    assert anonymous.json["_links"]["self"][0]["targetHints"]["allow"] == ["GET"]


def test_8_1_29_to_37_argument_checks(client, app, admin):
    make_item(app, title="One", author=admin.id)
    assert client.get("/cms/v2/posts", params={"per_page": 101}).json["data"]["details"]["per_page"]["code"] == "rest_out_of_bounds"
    assert client.get("/cms/v2/posts", params={"per_page": 0}).status_code == 400
    assert client.get("/cms/v2/posts", params={"page": 0}).json["data"]["params"]["page"] == "page must be greater than or equal to 1"
    assert client.get("/cms/v2/posts", params={"order": "sideways"}).json["data"]["params"]["order"] == "order is not one of asc and desc."
    assert client.get("/cms/v2/posts", params={"include": "1,2,3"}).status_code == 200
    assert client.get("/cms/v2/posts", params={"sticky": "true"}).status_code == 200
    assert client.get("/cms/v2/posts", params={"sticky": "yes"}).status_code == 400
    assert client.get("/cms/v2/posts", params={"after": "not-a-date"}).json["data"]["details"]["after"]["code"] == "rest_invalid_date"
    # Validation comes before permissions: an invalid argument on a forbidden request is 400.
    assert client.get("/cms/v2/posts", params={"context": "edit", "per_page": 0}).status_code == 400
    assert client.get("/cms/v2/posts", params={"context": "banana"}).status_code == 400


def test_links_follow_the_prefix_the_request_used(client, app, admin):
    post = make_item(app, title="Prefixed", author=admin.id)
    body = client.get(f"/wp-json/cms/v2/posts/{post.id}").json
    assert body["_links"]["self"][0]["href"] == f"http://example.test/wp-json/cms/v2/posts/{post.id}"
    assert body["link"] == "http://example.test/prefixed/"
    created = client.post("/wp-json/cms/v2/posts", json={"title": "New"}, user=admin)
    assert created.headers["Location"] == f"http://example.test/wp-json/cms/v2/posts/{created.json['id']}"
    plain = client.get("/", params={"rest_route": f"/cms/v2/posts/{post.id}"}).json
    assert plain["_links"]["self"][0]["href"] == f"http://example.test/?rest_route=/cms/v2/posts/{post.id}"
