"""GET /cms/v2/posts: the acceptance scenarios 39-69 of cms-api.md 8.2 (collections)."""

from __future__ import annotations

import datetime as dt

from content_support import make_item, make_term, set_option


def ids(response):
    return [item["id"] for item in response.json]


def dated_posts(app, author, count, **kwargs):
    """``count`` published posts, one day apart, oldest first."""
    base = dt.datetime(2024, 1, 1, 12, 0)
    return [
        make_item(app, title=f"Post {n}", author=author, date=base + dt.timedelta(days=n), **kwargs).id for n in range(count)
    ]


def test_8_2_39_anonymous_list_shows_published_posts_newest_first(client, app, admin):
    published = dated_posts(app, admin.id, 12)
    make_item(app, title="Draft", status="draft", author=admin.id)
    make_item(app, title="Private", status="private", author=admin.id)
    response = client.get("/cms/v2/posts")
    assert response.status_code == 200
    assert ids(response) == list(reversed(published))[:10]
    assert {item["status"] for item in response.json} == {"publish"}


def test_8_2_40_total_headers(client, app, admin):
    dated_posts(app, admin.id, 23)
    make_item(app, title="Draft", status="draft", author=admin.id)
    response = client.get("/cms/v2/posts")
    assert response.headers["X-WP-Total"] == "23"
    assert response.headers["X-WP-TotalPages"] == "3"


def paging_links(client, **params):
    """The prev/next ``Link`` value of a listing, as the reference's ``_envelope`` reports it
    (one value, relations joined with ", ")."""
    body = client.get("/cms/v2/posts", params={**params, "_envelope": "1"}).json
    return body["headers"].get("Link") if isinstance(body["headers"], dict) else None


def test_8_2_41_middle_page_links_prev_and_next(client, app, admin):
    dated_posts(app, admin.id, 5)
    assert paging_links(client, per_page=2, page=2) == (
        '<http://example.test/cms/v2/posts?per_page=2&_envelope=1&page=1>; rel="prev", '
        '<http://example.test/cms/v2/posts?per_page=2&_envelope=1&page=3>; rel="next"'
    )


def test_8_2_42_last_page_only_prev_first_page_only_next(client, app, admin):
    dated_posts(app, admin.id, 5)
    assert paging_links(client, per_page=2, page=3) == '<http://example.test/cms/v2/posts?per_page=2&_envelope=1&page=2>; rel="prev"'
    assert paging_links(client, per_page=2) == '<http://example.test/cms/v2/posts?per_page=2&_envelope=1&page=2>; rel="next"'


def test_8_2_43_page_past_the_end_is_400(client, app, admin):
    dated_posts(app, admin.id, 3)
    response = client.get("/cms/v2/posts", params={"page": 2})
    assert response.status_code == 400
    assert response.json == {
        "code": "rest_post_invalid_page_number",
        "message": "The page number requested is larger than the number of pages available.",
        "data": {"status": 400},
    }
    empty = client.get("/cms/v2/posts", params={"page": 5, "status": "draft"}, user=admin)
    assert empty.status_code == 200 and empty.json == [] and empty.headers["X-WP-Total"] == "0"


def test_8_2_44_anonymous_draft_status_is_forbidden(client, app):
    response = client.get("/cms/v2/posts", params={"status": "draft"})
    assert response.status_code == 400
    body = response.json
    assert body["code"] == "rest_invalid_param"
    assert body["data"]["params"] == {"status": "Status is forbidden."}
    assert body["data"]["details"]["status"] == {
        "code": "rest_forbidden_status", "message": "Status is forbidden.", "data": {"status": 401},
    }


def test_8_2_45_editor_lists_drafts(client, app, accounts):
    draft = make_item(app, title="Draft", status="draft", author=accounts["author"].id)
    make_item(app, title="Published", author=accounts["author"].id)
    response = client.get("/cms/v2/posts", params={"status": "draft"}, user=accounts["editor"])
    assert response.status_code == 200
    assert ids(response) == [draft.id]


def test_8_2_46_editor_any_status_lists_every_non_internal_status(client, app, accounts):
    author = accounts["author"].id
    made = {status: make_item(app, title=status, status=status, author=author).id for status in ("publish", "draft", "pending", "private")}
    future = make_item(app, title="future", status="future", author=author, date=dt.datetime.now() + dt.timedelta(days=30))
    trashed = make_item(app, title="trash", author=author)
    client.delete(f"/cms/v2/posts/{trashed.id}", user=accounts["editor"])
    response = client.get("/cms/v2/posts", params={"status": "any", "per_page": 100}, user=accounts["editor"])
    assert sorted(ids(response)) == sorted([*made.values(), future.id])


def test_8_2_47_status_list_publish_and_private(client, app, accounts):
    author = accounts["author"].id
    public = make_item(app, title="p", author=author).id
    private = make_item(app, title="q", status="private", author=author).id
    make_item(app, title="d", status="draft", author=author)
    response = client.get("/cms/v2/posts?status[]=publish&status[]=private", user=accounts["editor"])
    assert response.status_code == 200
    assert sorted(ids(response)) == sorted([public, private])


def test_8_2_48_subscriber_cannot_list_private(client, app, accounts):
    response = client.get("/cms/v2/posts", params={"status": "private"}, user=accounts["subscriber"])
    assert response.status_code == 400
    assert response.json["data"]["details"]["status"]["code"] == "rest_forbidden_status"
    assert response.json["data"]["details"]["status"]["data"] == {"status": 403}


def test_8_2_49_edit_context_needs_edit_rights(client, app, accounts):
    anonymous = client.get("/cms/v2/posts", params={"context": "edit"})
    assert anonymous.status_code == 401
    assert anonymous.json == {
        "code": "rest_forbidden_context",
        "message": "Sorry, you are not allowed to edit posts in this post type.",
        "data": {"status": 401},
    }
    subscriber = client.get("/cms/v2/posts", params={"context": "edit"}, user=accounts["subscriber"])
    assert subscriber.status_code == 403 and subscriber.json["code"] == "rest_forbidden_context"


def test_8_2_50_author_and_author_exclude(client, app, accounts):
    mine = make_item(app, title="a", author=accounts["author"].id).id
    theirs = make_item(app, title="b", author=accounts["editor"].id).id
    assert ids(client.get("/cms/v2/posts", params={"author": accounts["author"].id})) == [mine]
    assert ids(client.get("/cms/v2/posts", params={"author_exclude": accounts["author"].id})) == [theirs]


def test_8_2_51_orderby_include_keeps_the_given_order(client, app, admin):
    first, second, third = dated_posts(app, admin.id, 3)
    response = client.get("/cms/v2/posts", params={"include": f"{first},{third}", "orderby": "include"})
    assert ids(response) == [first, third]
    response = client.get("/cms/v2/posts", params={"include": f"{third},{first},{second}", "orderby": "include"})
    assert ids(response) == [third, first, second]


def test_8_2_52_orderby_include_without_include(client, app):
    response = client.get("/cms/v2/posts", params={"orderby": "include"})
    assert response.status_code == 400
    assert response.json == {
        "code": "rest_orderby_include_missing_include",
        "message": "You need to define an include parameter to order by include.",
        "data": {"status": 400},
    }


def test_8_2_53_orderby_relevance_without_search(client, app):
    response = client.get("/cms/v2/posts", params={"orderby": "relevance"})
    assert response.status_code == 400
    assert response.json["code"] == "rest_no_search_term_defined"
    assert response.json["message"] == "You need to define a search term to order by relevance."


def test_8_2_54_relevance_puts_title_matches_first(client, app, admin):
    base = dt.datetime(2024, 1, 1)
    in_title = make_item(app, title="About foo", content="nothing", author=admin.id, date=base).id
    in_content = make_item(app, title="Other", content="this mentions foo", author=admin.id, date=base + dt.timedelta(days=2)).id
    make_item(app, title="Unrelated", content="bar", author=admin.id)
    response = client.get("/cms/v2/posts", params={"search": "foo", "orderby": "relevance"})
    assert ids(response) == [in_title, in_content]
    by_date = client.get("/cms/v2/posts", params={"search": "foo"})
    assert ids(by_date) == [in_content, in_title]


def test_8_2_55_exclude(client, app, admin):
    first, second = dated_posts(app, admin.id, 2)
    assert ids(client.get("/cms/v2/posts", params={"exclude": first})) == [second]


def test_8_2_56_offset_skips_but_total_stays(client, app, admin):
    posts_ = list(reversed(dated_posts(app, admin.id, 4)))
    response = client.get("/cms/v2/posts", params={"offset": 1})
    assert ids(response) == posts_[1:]
    assert response.headers["X-WP-Total"] == "4"


def test_8_2_57_slug_list(client, app, admin):
    first = make_item(app, title="First", author=admin.id).id
    second = make_item(app, title="Second", author=admin.id).id
    make_item(app, title="Third", author=admin.id)
    assert sorted(ids(client.get("/cms/v2/posts", params={"slug": "first,second"}))) == sorted([first, second])


def test_8_2_58_orderby_include_slugs(client, app, admin):
    a = make_item(app, title="a", author=admin.id).id
    b = make_item(app, title="b", author=admin.id).id
    assert ids(client.get("/cms/v2/posts", params={"slug": "a,b", "orderby": "include_slugs"})) == [a, b]
    assert ids(client.get("/cms/v2/posts", params={"slug": "b,a", "orderby": "include_slugs"})) == [b, a]


def test_8_2_59_order_by_title_ascending(client, app, admin):
    made = {title: make_item(app, title=title, author=admin.id).id for title in ("banana", "Apple", "cherry")}
    response = client.get("/cms/v2/posts", params={"order": "asc", "orderby": "title"})
    assert ids(response) == [made["Apple"], made["banana"], made["cherry"]]


def test_8_2_60_order_by_id_ascending(client, app, admin):
    made = dated_posts(app, admin.id, 3)
    assert ids(client.get("/cms/v2/posts", params={"orderby": "id", "order": "asc"})) == sorted(made)


def test_8_2_61_categories_and_categories_exclude(client, app, admin):
    news = make_term(app, "category", "News")
    filed = make_item(app, title="filed", author=admin.id, terms={"category": [news]}).id
    other = make_item(app, title="other", author=admin.id).id
    assert ids(client.get("/cms/v2/posts", params={"categories": news})) == [filed]
    assert ids(client.get("/cms/v2/posts", params={"categories_exclude": news})) == [other]


def test_8_2_62_tax_relation_and(client, app, admin):
    cat = make_term(app, "category", "C")
    tag_a = make_term(app, "post_tag", "A")
    tag_b = make_term(app, "post_tag", "B")
    both = make_item(app, title="both", author=admin.id, terms={"category": [cat], "post_tag": [tag_a]}).id
    make_item(app, title="tag only", author=admin.id, terms={"post_tag": [tag_b]})
    make_item(app, title="cat only", author=admin.id, terms={"category": [cat]})
    response = client.get("/cms/v2/posts", params={"tags": f"{tag_a},{tag_b}", "tax_relation": "AND", "categories": cat})
    assert ids(response) == [both]
    either = client.get("/cms/v2/posts", params={"tags": f"{tag_a},{tag_b}", "tax_relation": "OR", "categories": cat})
    assert len(either.json) == 3


def test_8_2_63_categories_include_children(client, app, admin):
    parent = make_term(app, "category", "Parent")
    child = make_term(app, "category", "Child", parent=parent)
    in_child = make_item(app, title="child post", author=admin.id, terms={"category": [child]}).id
    in_parent = make_item(app, title="parent post", author=admin.id, terms={"category": [parent]}).id
    plain = client.get(f"/cms/v2/posts?categories[terms]={parent}")
    assert ids(plain) == [in_parent]
    response = client.get(f"/cms/v2/posts?categories[terms]={parent}&categories[include_children]=true")
    assert sorted(ids(response)) == sorted([in_child, in_parent])


def test_8_2_64_tags_operator_and(client, app, admin):
    a = make_term(app, "post_tag", "A")
    b = make_term(app, "post_tag", "B")
    both = make_item(app, title="both", author=admin.id, terms={"post_tag": [a, b]}).id
    make_item(app, title="one", author=admin.id, terms={"post_tag": [a]})
    response = client.get(f"/cms/v2/posts?tags[terms]={a},{b}&tags[operator]=AND")
    assert ids(response) == [both]


def test_8_2_65_sticky_true(client, app, admin):
    make_item(app, title="plain", author=admin.id)
    assert client.get("/cms/v2/posts", params={"sticky": "true"}).json == []
    sticky = make_item(app, title="sticky", author=admin.id, sticky=True).id
    assert ids(client.get("/cms/v2/posts", params={"sticky": "true"})) == [sticky]


def test_8_2_66_sticky_false_excludes_sticky(client, app, admin):
    plain = make_item(app, title="plain", author=admin.id).id
    make_item(app, title="sticky", author=admin.id, sticky=True)
    assert ids(client.get("/cms/v2/posts", params={"sticky": "false"})) == [plain]


def test_8_2_67_format_filter(client, app, admin):
    aside = make_item(app, title="aside", author=admin.id, format="aside").id
    standard = make_item(app, title="standard", author=admin.id).id
    assert ids(client.get("/cms/v2/posts", params={"format": "aside"})) == [aside]
    assert ids(client.get("/cms/v2/posts", params={"format": "standard"})) == [standard]


def test_8_2_68_date_filters(client, app, admin):
    early = make_item(app, title="early", author=admin.id, date=dt.datetime(2020, 1, 1, 10, 0)).id
    late = make_item(app, title="late", author=admin.id, date=dt.datetime(2022, 1, 1, 10, 0)).id
    assert ids(client.get("/cms/v2/posts", params={"before": "2021-01-01T00:00:00"})) == [early]
    assert ids(client.get("/cms/v2/posts", params={"after": "2021-01-01T00:00:00"})) == [late]
    # Boundaries are exclusive.
    assert ids(client.get("/cms/v2/posts", params={"after": "2022-01-01T10:00:00"})) == []
    # Created with a date, an item's modified date is that date, until it is edited.
    assert ids(client.get("/cms/v2/posts", params={"modified_after": "2021-01-01T00:00:00"})) == [late]
    client.put(f"/cms/v2/posts/{early}", json={"title": "touched"}, user=admin)
    assert ids(client.get("/cms/v2/posts", params={"modified_after": "2023-01-01T00:00:00"})) == [early]
    assert ids(client.get("/cms/v2/posts", params={"modified_before": "2023-01-01T00:00:00"})) == [late]


def test_8_2_69_search_columns_title_only(client, app, admin):
    titled = make_item(app, title="xylophone", content="plain", author=admin.id).id
    make_item(app, title="plain", content="xylophone inside", author=admin.id)
    response = client.get("/cms/v2/posts", params={"search_columns": "post_title", "search": "xylophone"})
    assert ids(response) == [titled]


def test_ignore_sticky_false_puts_sticky_posts_first(client, app, admin):
    base = dt.datetime(2024, 1, 1)
    old_sticky = make_item(app, title="old", author=admin.id, date=base, sticky=True).id
    newer = [make_item(app, title=f"n{n}", author=admin.id, date=base + dt.timedelta(days=n + 1)).id for n in range(3)]
    response = client.get("/cms/v2/posts", params={"ignore_sticky": "false", "per_page": 2})
    assert ids(response) == [old_sticky, newer[2], newer[1]]
    assert ids(client.get("/cms/v2/posts", params={"per_page": 2})) == [newer[2], newer[1]]


def test_search_hides_protected_posts_from_anonymous(client, app, admin):
    make_item(app, title="secret match", author=admin.id, password="pw")
    visible = make_item(app, title="open match", author=admin.id).id
    assert ids(client.get("/cms/v2/posts", params={"search": "match"})) == [visible]
    assert len(client.get("/cms/v2/posts", params={"search": "match"}, user=admin).json) == 2


def test_search_excluding_a_word(client, app, admin):
    keep = make_item(app, title="apple pie", author=admin.id).id
    make_item(app, title="apple tart", author=admin.id)
    assert ids(client.get("/cms/v2/posts", params={"search": "apple -tart"})) == [keep]


def test_menu_order_and_parent_filters_on_pages(client, app, admin):
    parent = make_item(app, "page", title="Parent", author=admin.id).id
    child = make_item(app, "page", title="Child", author=admin.id, parent=parent, menu_order=3).id
    assert ids(client.get("/cms/v2/pages", params={"menu_order": 3})) == [child]
    assert ids(client.get("/cms/v2/pages", params={"parent_exclude": parent})) == [parent]


def test_sticky_option_lists_posts(client, app, admin):
    first = make_item(app, title="one", author=admin.id).id
    set_option(app, "sticky_posts", [first])
    assert client.get(f"/cms/v2/posts/{first}").json["sticky"] is True
