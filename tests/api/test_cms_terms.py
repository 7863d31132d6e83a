"""/cms/v2/taxonomies and the term routes (categories, tags, wp_pattern_category, cal_events_cat)
against the reference's recorded answers and rules (cms-api.md 7.1, 7.2, 6.7)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa
from content_support import engine_statements

from calpress.content import object_terms
from calpress.content import terms as tx
from calpress.store.tables import posts

TERM_KEYS = ["id", "count", "description", "link", "name", "slug", "taxonomy", "parent", "meta", "_links"]
TAG_KEYS = ["id", "count", "description", "link", "name", "slug", "taxonomy", "meta", "_links"]
EMBED_KEYS = ["id", "link", "name", "slug", "taxonomy", "_links"]
CURIES = [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]
NOW = dt.datetime(2026, 1, 1, 12, 0)
ROLES = ("subscriber", "contributor", "author", "editor", "administrator")


def add_post(app: Any, type_: str = "post", status: str = "publish", author: int | None = None) -> int:
    with app.site.write() as conn:
        return conn.execute(
            sa.insert(posts)
            .values(type=type_, status=status, author=author, slug="", title="t", date_local=NOW, date_utc=NOW, modified_local=NOW, modified_utc=NOW)
            .returning(posts.c.id)
        ).scalar_one()


def make_term(app: Any, taxonomy: str, name: str, **kwargs: Any) -> tx.Term:
    with app.site.write() as conn:
        return tx.create_term(conn, app.site.registry.taxonomies[taxonomy], name, **kwargs)


def link_terms(app: Any, object_id: int, taxonomy: str, term_ids: list[int]) -> None:
    with app.site.write() as conn:
        object_terms.set_object_terms(conn, app.site.registry.taxonomies[taxonomy], object_id, term_ids)


def check_error(response: Any, status: int, code: str, message: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.json
    body = response.json
    assert body["code"] == code, body
    assert body["data"]["status"] == status if isinstance(body["data"], dict) else status == 500
    if message is not None:
        assert body["message"] == message
    return body


# -- taxonomies -----------------------------------------------------------------------------------


def test_taxonomies_collection_anonymous(client: Any) -> None:
    response = client.get("/cms/v2/taxonomies")
    assert response.status_code == 200
    body = response.json
    assert list(body) == ["category", "post_tag", "nav_menu", "wp_pattern_category", "cal_events_cat"]
    assert body["category"] == {
        "name": "Categories",
        "slug": "category",
        "description": "",
        "types": ["post"],
        "hierarchical": True,
        "rest_base": "categories",
        "rest_namespace": "cms/v2",
        "_links": {
            "collection": [{"href": "http://example.test/cms/v2/taxonomies"}],
            "wp:items": [{"href": "http://example.test/cms/v2/categories"}],
            "curies": CURIES,
        },
    }
    assert body["post_tag"]["types"] == ["post", "cal_events"]
    assert body["cal_events_cat"]["name"] == "Event Categories" and body["cal_events_cat"]["rest_base"] == "cal_events_cat"
    assert client.get("/cms/v2/taxonomies", params={"type": "cal_events"}).json.keys() == {"post_tag", "cal_events_cat"}
    assert client.get("/cms/v2/taxonomies", params={"type": "wp_block"}).json.keys() == {"wp_pattern_category"}
    empty = client.get("/cms/v2/taxonomies", params={"type": "nothing"})
    assert empty.status_code == 200 and empty.text == "{}"
    assert client.get("/cms/v2/taxonomies", params={"context": "embed"}).json["post_tag"] == {
        "name": "Tags", "slug": "post_tag", "rest_base": "tags", "rest_namespace": "cms/v2",
        "_links": {
            "collection": [{"href": "http://example.test/cms/v2/taxonomies"}],
            "wp:items": [{"href": "http://example.test/cms/v2/tags"}],
            "curies": CURIES,
        },
    }


def test_taxonomies_edit_context(client: Any, accounts: dict[str, Any]) -> None:
    body = check_error(client.get("/cms/v2/taxonomies", params={"context": "edit"}), 401, "rest_cannot_view")
    assert body["message"] == "Sorry, you are not allowed to manage terms in this taxonomy."
    check_error(client.get("/cms/v2/taxonomies", params={"context": "edit"}, user=accounts["subscriber"]), 403, "rest_cannot_view")
    # Assigning terms of every taxonomy needs edit_posts (event categories: edit_cal_events), so
    # contributors see all four.
    contributor = client.get("/cms/v2/taxonomies", params={"context": "edit"}, user=accounts["contributor"]).json
    assert list(contributor) == ["category", "post_tag", "wp_pattern_category", "cal_events_cat"]
    category = contributor["category"]
    assert list(category) == [
        "name", "slug", "capabilities", "description", "labels", "types", "show_cloud", "hierarchical",
        "rest_base", "rest_namespace", "visibility", "_links",
    ]
    assert category["capabilities"] == {
        "manage_terms": "manage_categories", "edit_terms": "edit_categories",
        "delete_terms": "delete_categories", "assign_terms": "assign_categories",
    }
    assert category["labels"]["name_admin_bar"] == "category" and category["labels"]["parent_item"] == "Parent Category"
    assert category["visibility"] == {
        "public": True, "publicly_queryable": True, "show_admin_column": True,
        "show_in_nav_menus": True, "show_in_quick_edit": True, "show_ui": True,
    }
    assert contributor["wp_pattern_category"]["show_cloud"] is False
    assert contributor["wp_pattern_category"]["visibility"]["public"] is False
    assert contributor["cal_events_cat"]["capabilities"]["edit_terms"] == "publish_cal_events"
    check_error(
        client.get("/cms/v2/taxonomies", params={"context": "edit", "type": "post"}, user=accounts["subscriber"]),
        403,
        "rest_cannot_view",
    )


def test_single_taxonomy(client: Any, accounts: dict[str, Any]) -> None:
    response = client.get("/cms/v2/taxonomies/cal_events_cat")
    assert response.status_code == 200
    assert response.json["slug"] == "cal_events_cat" and response.json["hierarchical"] is True
    assert response.headers["allow"] == "GET"
    check_error(client.get("/cms/v2/taxonomies/nope"), 404, "rest_taxonomy_invalid", "Invalid taxonomy.")
    # Registered but not in REST: the generic refusal.
    check_error(client.get("/cms/v2/taxonomies/post_format"), 401, "rest_forbidden", "Sorry, you are not allowed to do that.")
    check_error(client.get("/cms/v2/taxonomies/post_format", user=accounts["subscriber"]), 403, "rest_forbidden")
    body = check_error(
        client.get("/cms/v2/taxonomies/category", params={"context": "edit"}, user=accounts["subscriber"]),
        403,
        "rest_forbidden_context",
    )
    assert body["message"] == "Sorry, you are not allowed to manage terms in this taxonomy."
    edit = client.get("/cms/v2/taxonomies/cal_events_cat", params={"context": "edit"}, user=accounts["contributor"])
    assert edit.status_code == 200 and edit.json["labels"]["archives"] == "All Event Categories"
    invalid = client.get("/cms/v2/taxonomies/category", params={"context": "bogus"})
    check_error(invalid, 400, "rest_invalid_param")


# -- reading terms --------------------------------------------------------------------------------


def test_fresh_site_lists_uncategorized(client: Any) -> None:
    response = client.get("/cms/v2/categories")
    assert response.status_code == 200
    assert response.headers["x-wp-total"] == "1" and response.headers["x-wp-totalpages"] == "1"
    assert 'rel="next"' not in response.headers["link"] and 'rel="prev"' not in response.headers["link"]
    assert response.headers["allow"] == "GET"
    [item] = response.json
    assert list(item) == TERM_KEYS
    assert item == {
        "id": 1,
        "count": 0,
        "description": "",
        "link": "http://example.test/category/uncategorized/",
        "name": "Uncategorized",
        "slug": "uncategorized",
        "taxonomy": "category",
        "parent": 0,
        "meta": [],
        "_links": {
            "self": [{"href": "http://example.test/cms/v2/categories/1", "targetHints": {"allow": ["GET"]}}],
            "collection": [{"href": "http://example.test/cms/v2/categories"}],
            "about": [{"href": "http://example.test/cms/v2/taxonomies/category"}],
            "wp:post_type": [{"href": "http://example.test/cms/v2/posts?categories=1"}],
            "curies": CURIES,
        },
    }
    assert client.get("/cms/v2/tags").json == []


def test_single_term_and_its_links(client: Any, app: Any, admin: Any) -> None:
    parent = make_term(app, "cal_events_cat", "Outdoor")
    child = make_term(app, "cal_events_cat", "Open Air", description="Under the sky", parent=parent.id)
    response = client.get(f"/cms/v2/cal_events_cat/{child.id}")
    assert response.status_code == 200
    body = response.json
    assert list(body) == TERM_KEYS
    assert body["link"] == "http://example.test/events/category/outdoor/open-air/"
    assert (body["parent"], body["description"], body["taxonomy"]) == (parent.id, "Under the sky", "cal_events_cat")
    assert body["_links"]["up"] == [{"embeddable": True, "href": f"http://example.test/cms/v2/cal_events_cat/{parent.id}"}]
    assert body["_links"]["wp:post_type"] == [{"href": f"http://example.test/cms/v2/cal_events?cal_events_cat={child.id}"}]
    assert body["_links"]["self"][0]["targetHints"]["allow"] == ["GET"]
    admin_view = client.get(f"/cms/v2/cal_events_cat/{child.id}", user=admin).json
    assert admin_view["_links"]["self"][0]["targetHints"]["allow"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    embedded = client.get(f"/cms/v2/cal_events_cat/{child.id}", params={"_embed": "up"}).json["_embedded"]["up"]
    assert [e["id"] for e in embedded] == [parent.id] and list(embedded[0]) == EMBED_KEYS
    tag = make_term(app, "post_tag", "Loud")
    tag_body = client.get(f"/cms/v2/tags/{tag.id}").json
    assert list(tag_body) == TAG_KEYS
    assert tag_body["_links"]["wp:post_type"] == [
        {"href": f"http://example.test/cms/v2/posts?tags={tag.id}"},
        {"href": f"http://example.test/cms/v2/cal_events?tags={tag.id}"},
    ]
    pattern = make_term(app, "wp_pattern_category", "Heroes")
    pattern_body = client.get(f"/cms/v2/wp_pattern_category/{pattern.id}").json
    assert pattern_body["link"] == "http://example.test/?taxonomy=wp_pattern_category&term=heroes"
    assert pattern_body["_links"]["wp:post_type"] == [{"href": f"http://example.test/cms/v2/blocks?wp_pattern_category={pattern.id}"}]
    assert list(client.get(f"/cms/v2/tags/{tag.id}", params={"context": "embed"}).json) == EMBED_KEYS
    assert client.get(f"/cms/v2/tags/{tag.id}", params={"_fields": "id,name"}).json == {"id": tag.id, "name": "Loud"}


def test_single_term_errors(client: Any, app: Any, accounts: dict[str, Any]) -> None:
    tag = make_term(app, "post_tag", "Only a tag")
    for path in ("/cms/v2/categories/999999", f"/cms/v2/categories/{tag.id}", "/cms/v2/categories/0"):
        check_error(client.get(path), 404, "rest_term_invalid", "Term does not exist.")
    check_error(client.get("/cms/v2/categories/abc"), 404, "rest_no_route")
    body = check_error(client.get(f"/cms/v2/tags/{tag.id}", params={"context": "edit"}), 401, "rest_forbidden_context")
    assert body["message"] == "Sorry, you are not allowed to edit this term."
    check_error(client.get(f"/cms/v2/tags/{tag.id}", params={"context": "edit"}, user=accounts["author"]), 403, "rest_forbidden_context")
    edit = client.get(f"/cms/v2/tags/{tag.id}", params={"context": "edit"}, user=accounts["editor"])
    assert edit.status_code == 200 and list(edit.json) == TAG_KEYS


def test_collection_paging(client: Any, app: Any) -> None:
    for name in ("e", "d", "c", "b", "a"):
        make_term(app, "post_tag", name)
    response = client.get("/cms/v2/tags", params={"per_page": 2, "page": 2, "hide_empty": "false"})
    assert [t["name"] for t in response.json] == ["c", "d"]
    assert response.headers["x-wp-total"] == "5" and response.headers["x-wp-totalpages"] == "3"
    links = response.headers["link"]  # the Link headers, joined by the test client
    assert '<http://example.test/cms/v2/tags?per_page=2&hide_empty=false&page=1>; rel="prev"' in links
    assert '<http://example.test/cms/v2/tags?per_page=2&hide_empty=false&page=3>; rel="next"' in links
    last = client.get("/cms/v2/tags", params={"per_page": 2, "page": 3})
    assert [t["name"] for t in last.json] == ["e"]
    assert 'rel="prev"' in last.headers["link"] and 'rel="next"' not in last.headers["link"]
    beyond = client.get("/cms/v2/tags", params={"per_page": 2, "page": 9})
    assert beyond.status_code == 200 and beyond.json == [] and beyond.headers["x-wp-total"] == "5"
    # offset (flat taxonomies only) wins over page, and the page header follows it.
    offset = client.get("/cms/v2/tags", params={"per_page": 2, "offset": 3, "page": 1})
    assert [t["name"] for t in offset.json] == ["d", "e"]
    # Offset 3 of pages of 2 falls on page 3 (the reference's ceil(offset / per_page + 1)).
    assert '<http://example.test/cms/v2/tags?per_page=2&offset=3&page=2>; rel="prev"' in offset.headers["link"]
    assert 'rel="next"' not in offset.headers["link"]
    head = client.request("HEAD", "/cms/v2/tags", params={"per_page": 2})
    assert head.status_code == 200 and head.text == "" and head.headers["x-wp-total"] == "5"
    invalid = (
        ({"per_page": 0}, "per_page"),
        ({"per_page": 101}, "per_page"),
        ({"page": 0}, "page"),
        ({"orderby": "bogus"}, "orderby"),
        ({"order": "up"}, "order"),
        ({"include": "x"}, "include"),
        ({"hide_empty": "maybe"}, "hide_empty"),
        ({"post": "x"}, "post"),
    )
    for params, name in invalid:
        body = check_error(client.get("/cms/v2/tags", params=params), 400, "rest_invalid_param")
        assert name in body["data"]["params"]
    # Categories take no offset (the reference registers it for flat taxonomies only): ignored.
    assert "offset" not in client.get("/cms/v2").json["routes"]["/cms/v2/categories"]["endpoints"][0]["args"]
    assert len(client.get("/cms/v2/categories", params={"offset": 5}).json) == 1


def test_collection_filters_and_order(client: Any, app: Any) -> None:
    top = make_term(app, "category", "Top")
    b = make_term(app, "category", "b", parent=top.id)
    a = make_term(app, "category", "A", description="first")
    c = make_term(app, "category", "C", slug="zz-c")
    item = add_post(app)
    link_terms(app, item, "category", [b.id, c.id])
    link_terms(app, add_post(app), "category", [c.id])

    def names(**params: Any) -> list[str]:
        response = client.get("/cms/v2/categories", params=params)
        assert response.status_code == 200, response.json
        return [t["name"] for t in response.json]

    assert names() == ["A", "b", "C", "Top", "Uncategorized"]
    assert names(order="desc") == ["Uncategorized", "Top", "C", "b", "A"]
    assert names(orderby="id") == ["Uncategorized", "Top", "b", "A", "C"]
    assert names(orderby="slug") == ["A", "b", "Top", "Uncategorized", "C"]
    assert names(orderby="count", order="desc")[:2] == ["C", "b"]
    assert names(orderby="include", include=f"{c.id},{a.id},{top.id}") == ["C", "A", "Top"]
    assert names(orderby="include_slugs", slug="top,zz-c,a") == ["Top", "C", "A"]
    assert names(search="t") == ["Top", "Uncategorized"]
    assert names(search="zz") == ["C"]
    assert names(exclude=f"{a.id},{b.id}") == ["C", "Top", "Uncategorized"]
    assert names(include=str(a.id), exclude=str(a.id)) == ["A"]
    assert names(slug="zz-c") == ["C"] and names(slug="nothing") == []
    assert names(parent=top.id) == ["b"]
    assert names(parent=0) == ["A", "C", "Top", "Uncategorized"]
    assert names(hide_empty="true") == ["b", "C", "Top"]  # Top stays: its child is used
    assert names(post=item) == ["b", "C"]
    assert names(post=item, orderby="id", order="desc") == ["C", "b"]
    counts = {t["name"]: t["count"] for t in client.get("/cms/v2/categories").json}
    assert counts == {"A": 0, "b": 1, "C": 2, "Top": 0, "Uncategorized": 0}
    tag = make_term(app, "post_tag", "Tagged")
    link_terms(app, item, "post_tag", [tag.id])
    assert [t["name"] for t in client.get("/cms/v2/tags", params={"post": item}).json] == ["Tagged"]
    assert [t["name"] for t in client.get("/cms/v2/tags", params={"hide_empty": 1}).json] == ["Tagged"]


def test_collection_post_parameter_permissions(client: Any, app: Any, accounts: dict[str, Any]) -> None:
    author = accounts["author"]
    draft = add_post(app, status="draft", author=author.id)
    block = add_post(app, type_="wp_block", author=author.id)
    page = add_post(app, type_="page")
    body = check_error(client.get("/cms/v2/categories", params={"post": 999999}), 400, "rest_post_invalid_id", "Invalid post ID.")
    assert body["data"] == {"status": 400}
    body = check_error(client.get("/cms/v2/categories", params={"post": draft}), 401, "rest_forbidden_context")
    assert body["message"] == "Sorry, you are not allowed to view terms for this post."
    check_error(client.get("/cms/v2/categories", params={"post": draft}, user=accounts["contributor"]), 403, "rest_forbidden_context")
    assert client.get("/cms/v2/categories", params={"post": draft}, user=author).status_code == 200
    assert client.get("/cms/v2/categories", params={"post": draft}, user=accounts["editor"]).status_code == 200
    # A published page is public, but pages are not in the category taxonomy.
    check_error(client.get("/cms/v2/categories", params={"post": page}), 401, "rest_forbidden_context")
    # Published blocks are not public: reading their pattern categories needs read rights.
    check_error(client.get("/cms/v2/wp_pattern_category", params={"post": block}), 401, "rest_forbidden_context")
    assert client.get("/cms/v2/wp_pattern_category", params={"post": block}, user=author).status_code == 200
    assert client.get("/cms/v2/categories", params={"post": 0}).status_code == 200  # 0: no filter


def test_collection_edit_context(client: Any, accounts: dict[str, Any]) -> None:
    body = check_error(client.get("/cms/v2/categories", params={"context": "edit"}), 401, "rest_forbidden_context")
    assert body["message"] == "Sorry, you are not allowed to edit terms in this taxonomy."
    check_error(client.get("/cms/v2/tags", params={"context": "edit"}, user=accounts["author"]), 403, "rest_forbidden_context")
    assert client.get("/cms/v2/cal_events_cat", params={"context": "edit"}, user=accounts["author"]).status_code == 200
    check_error(client.get("/cms/v2/cal_events_cat", params={"context": "edit"}, user=accounts["contributor"]), 403, "rest_forbidden_context")
    edit = client.get("/cms/v2/categories", params={"context": "edit"}, user=accounts["editor"])
    assert edit.status_code == 200 and list(edit.json[0]) == TERM_KEYS


# -- writing terms --------------------------------------------------------------------------------


def test_create_term(client: Any, admin: Any) -> None:
    response = client.post(
        "/cms/v2/categories",
        json={"name": "News & Views", "description": "Daily <b>news</b><script>x()</script>", "meta": {"unknown": 1}},
        user=admin,
    )
    assert response.status_code == 201
    body = response.json
    assert response.headers["location"] == f"http://example.test/cms/v2/categories/{body['id']}"
    assert list(body) == TERM_KEYS
    assert (body["name"], body["slug"], body["description"], body["count"], body["meta"]) == (
        "News &amp; Views", "news-views", "Daily <b>news</b>", 0, [],
    )
    assert body["_links"]["self"][0]["targetHints"]["allow"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    assert response.headers["allow"] == "GET, POST"
    child = client.post("/cms/v2/categories", json={"name": "Sub", "parent": body["id"], "slug": "My Sub"}, user=admin)
    assert child.status_code == 201
    assert (child.json["parent"], child.json["slug"]) == (body["id"], "my-sub")
    assert child.json["link"] == "http://example.test/category/news-views/my-sub/"
    form = client.post("/cms/v2/tags", body="name=From+a+form", headers={"Content-Type": "application/x-www-form-urlencoded"}, user=admin)
    assert form.status_code == 201 and form.json["slug"] == "from-a-form"


def test_create_term_errors(client: Any, app: Any, admin: Any) -> None:
    existing = make_term(app, "post_tag", "Taken")
    body = check_error(client.post("/cms/v2/tags", json={}, user=admin), 400, "rest_missing_callback_param", "Missing parameter(s): name")
    assert body["data"]["params"] == ["name"]
    body = check_error(client.post("/cms/v2/tags", json={"name": "taken"}, user=admin), 400, "term_exists")
    assert body["message"] == "A term with the name provided already exists in this taxonomy."
    assert body["data"] == {"status": 400, "term_id": existing.id}
    top = client.post("/cms/v2/categories", json={"name": "Top"}, user=admin).json
    body = check_error(client.post("/cms/v2/categories", json={"name": "top"}, user=admin), 400, "term_exists")
    assert body["message"] == "A term with the name provided already exists with this parent."
    assert body["data"]["term_id"] == top["id"]
    body = check_error(client.post("/cms/v2/tags", json={"name": "X", "parent": 1}, user=admin), 400, "rest_taxonomy_not_hierarchical")
    assert body["message"] == "Cannot set parent term, taxonomy is not hierarchical."
    check_error(client.post("/cms/v2/categories", json={"name": "X", "parent": 999999}, user=admin), 400, "rest_term_invalid", "Parent term does not exist.")
    check_error(client.post("/cms/v2/categories", json={"name": "X", "parent": existing.id}, user=admin), 400, "rest_term_invalid")
    body = check_error(client.post("/cms/v2/categories", json={"name": "X", "parent": "abc"}, user=admin), 400, "rest_invalid_param")
    assert body["data"]["details"]["parent"]["code"] == "rest_invalid_type"
    body = check_error(client.post("/cms/v2/tags", json={"name": ["x"]}, user=admin), 400, "rest_invalid_param")
    assert body["data"]["details"]["name"]["code"] == "rest_invalid_type"
    check_error(client.post("/cms/v2/tags", json={"name": "X", "meta": "nope"}, user=admin), 400, "rest_invalid_param")
    # The reference's wp_insert_term error carries no status: it answers 500.
    empty = client.post("/cms/v2/tags", json={"name": "  "}, user=admin)
    assert empty.status_code == 500
    assert empty.json == {"code": "empty_term_name", "message": "A name is required for this term.", "data": None}
    assert [t["name"] for t in client.get("/cms/v2/tags").json] == ["Taken"]


def test_update_term(client: Any, app: Any, admin: Any) -> None:
    term = make_term(app, "category", "Old", description="d")
    other = make_term(app, "category", "Other")
    response = client.post(f"/cms/v2/categories/{term.id}", json={"name": "New", "description": "e"}, user=admin)
    assert response.status_code == 200
    assert (response.json["name"], response.json["slug"], response.json["description"]) == ("New", "old", "e")
    assert list(response.json) == TERM_KEYS  # answered in edit context
    assert client.put(f"/cms/v2/categories/{term.id}", json={"slug": ""}, user=admin).json["slug"] == "new"
    assert client.patch(f"/cms/v2/categories/{term.id}", json={"parent": other.id}, user=admin).json["parent"] == other.id
    # A parent that would make a cycle is dropped, as the reference does.
    assert client.patch(f"/cms/v2/categories/{other.id}", json={"parent": term.id}, user=admin).json["parent"] == 0
    assert client.patch(f"/cms/v2/categories/{term.id}", json={}, user=admin).json["name"] == "New"
    duplicate = client.patch(f"/cms/v2/categories/{term.id}", json={"slug": "other"}, user=admin)
    assert duplicate.status_code == 500 and duplicate.json["code"] == "duplicate_term_slug"
    check_error(client.patch(f"/cms/v2/categories/{term.id}", json={"parent": 999999}, user=admin), 400, "rest_term_invalid")
    tag = make_term(app, "post_tag", "T")
    check_error(client.patch(f"/cms/v2/tags/{tag.id}", json={"parent": 0}, user=admin), 400, "rest_taxonomy_not_hierarchical")
    check_error(client.patch("/cms/v2/tags/999999", json={"name": "x"}, user=admin), 404, "rest_term_invalid")
    assert client.patch(f"/cms/v2/tags/{tag.id}", json={"name": ""}, user=admin).status_code == 500


def test_delete_term(client: Any, app: Any, admin: Any, accounts: dict[str, Any]) -> None:
    parent = make_term(app, "category", "Parent")
    term = make_term(app, "category", "Doomed", parent=parent.id)
    child = make_term(app, "category", "Kid", parent=term.id)
    item = add_post(app)
    link_terms(app, item, "category", [term.id])
    body = check_error(client.delete(f"/cms/v2/categories/{term.id}", user=admin), 501, "rest_trash_not_supported")
    assert body["message"] == "Terms do not support trashing. Set 'force=true' to delete."
    # Permission comes first: a subscriber gets 403 even without force.
    check_error(client.delete(f"/cms/v2/categories/{term.id}", user=accounts["subscriber"]), 403, "rest_cannot_delete")
    response = client.delete(f"/cms/v2/categories/{term.id}", params={"force": "true"}, user=admin)
    assert response.status_code == 200
    assert response.json["deleted"] is True
    previous = response.json["previous"]
    assert list(previous) == TERM_KEYS[:-1]  # view context, no links
    assert (previous["id"], previous["count"], previous["parent"]) == (term.id, 1, parent.id)
    assert previous["link"] == "http://example.test/category/parent/doomed/"
    check_error(client.get(f"/cms/v2/categories/{term.id}"), 404, "rest_term_invalid")
    assert client.get(f"/cms/v2/categories/{child.id}").json["parent"] == parent.id
    assert [t["id"] for t in client.get("/cms/v2/categories", params={"post": item}).json] == [1]
    body = check_error(client.delete("/cms/v2/categories/1", params={"force": "true"}, user=admin), 403, "rest_cannot_delete")
    assert body["message"] == "Sorry, you are not allowed to delete this term."
    check_error(client.delete(f"/cms/v2/categories/{term.id}", params={"force": "true"}, user=admin), 404, "rest_term_invalid")
    check_error(client.delete(f"/cms/v2/categories/{child.id}", params={"force": "maybe"}, user=admin), 400, "rest_invalid_param")


# -- permissions ----------------------------------------------------------------------------------

# Who may create, edit and delete terms of each taxonomy (the reference: hierarchical taxonomies
# create with edit_terms, flat ones with assign_terms; edit/delete use edit_terms/delete_terms).
PERMISSIONS = {
    "categories": {"create": {"editor", "administrator"}, "edit": {"editor", "administrator"}},
    "tags": {"create": {"contributor", "author", "editor", "administrator"}, "edit": {"editor", "administrator"}},
    "wp_pattern_category": {"create": {"contributor", "author", "editor", "administrator"}, "edit": {"editor", "administrator"}},
    "cal_events_cat": {"create": {"author", "editor", "administrator"}, "edit": {"author", "editor", "administrator"}},
}
TAXONOMY_OF = {"categories": "category", "tags": "post_tag", "wp_pattern_category": "wp_pattern_category", "cal_events_cat": "cal_events_cat"}


@pytest.mark.parametrize("base", list(PERMISSIONS))
def test_permission_matrix(client: Any, app: Any, accounts: dict[str, Any], base: str) -> None:
    allowed = PERMISSIONS[base]
    route = f"/cms/v2/{base}"
    body = check_error(client.post(route, json={"name": "anon"}), 401, "rest_cannot_create")
    assert body["message"] == "Sorry, you are not allowed to create terms in this taxonomy."
    target = make_term(app, TAXONOMY_OF[base], "Target")
    body = check_error(client.post(f"{route}/{target.id}", json={"name": "x"}), 401, "rest_cannot_update")
    assert body["message"] == "Sorry, you are not allowed to edit this term."
    check_error(client.delete(f"{route}/{target.id}", params={"force": "true"}), 401, "rest_cannot_delete")
    assert client.get(route).status_code == 200 and client.get(f"{route}/{target.id}").status_code == 200
    for role in ROLES:
        user = accounts[role]
        created = client.post(route, json={"name": f"by {role}"}, user=user)
        if role in allowed["create"]:
            assert created.status_code == 201, (role, created.json)
        else:
            check_error(created, 403, "rest_cannot_create")
        updated = client.post(f"{route}/{target.id}", json={"description": role}, user=user)
        victim = make_term(app, TAXONOMY_OF[base], f"victim of {role}")
        deleted = client.delete(f"{route}/{victim.id}", params={"force": "true"}, user=user)
        if role in allowed["edit"]:
            assert updated.status_code == 200 and deleted.status_code == 200, role
        else:
            check_error(updated, 403, "rest_cannot_update")
            check_error(deleted, 403, "rest_cannot_delete")
        allow = client.get(f"{route}/{target.id}", user=user).headers["allow"]
        assert allow == ("GET, POST, PUT, PATCH, DELETE" if role in allowed["edit"] else "GET"), role


# -- the route table ------------------------------------------------------------------------------


def test_routes_and_batch_flags(client: Any) -> None:
    routes = client.get("/cms/v2").json["routes"]
    for base in ("categories", "tags", "wp_pattern_category", "cal_events_cat"):
        collection = routes[f"/cms/v2/{base}"]
        item = routes[f"/cms/v2/{base}/(?P<id>[\\d]+)"]
        assert collection["methods"] == ["GET", "POST"]
        assert item["methods"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
        assert all(e["allow_batch"] == {"v1": True} for e in collection["endpoints"] + item["endpoints"])
    assert "allow_batch" not in routes["/cms/v2/taxonomies"]["endpoints"][0]
    args = routes["/cms/v2/categories"]["endpoints"][0]["args"]
    assert list(args) == ["context", "page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "slug"]
    assert args["post"] == {"description": "Limit result set to terms assigned to a specific post.", "type": "integer", "default": None, "required": False}
    assert args["orderby"]["enum"] == ["id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"]
    tag_args = routes["/cms/v2/tags"]["endpoints"][0]["args"]
    assert "offset" in tag_args and "parent" not in tag_args
    create = routes["/cms/v2/categories"]["endpoints"][1]["args"]
    assert list(create) == ["description", "name", "slug", "parent", "meta"]
    assert create["name"]["required"] is True
    assert "parent" not in routes["/cms/v2/tags"]["endpoints"][1]["args"]
    options = client.request("OPTIONS", "/cms/v2/tags")
    assert options.json["schema"]["title"] == "tag"
    assert options.json["schema"]["properties"]["taxonomy"]["enum"] == ["post_tag"]
    assert client.request("OPTIONS", "/cms/v2/cal_events_cat").json["schema"]["title"] == "cal_events_cat"


def test_object_terms_for_a_page_of_posts_take_one_query(app: Any) -> None:
    red, blue = make_term(app, "post_tag", "red"), make_term(app, "post_tag", "Blue")
    items = [add_post(app) for _ in range(10)]
    for item in items[::2]:
        link_terms(app, item, "post_tag", [red.id, blue.id])
    with app.site.read() as conn, engine_statements(app.site.engine) as statements:
        found = tx.get_object_terms(conn, items, ["category", "post_tag"])
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
    assert [t.name for t in found[items[0]]["post_tag"]] == ["Blue", "red"]
    assert found[items[1]] == {"category": [], "post_tag": []}
