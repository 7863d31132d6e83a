"""cal/events/v1 event categories and tags (calendar-api.md 2.4, 3.3, 4.10, 5): the peer tests of
section 10.5, one test each and named after them, then the recorded answers' shapes and the rules
the peer tests leave out (who may write, page sizes, bad input writing nothing)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from cal_support import make_event
from content_support import make_item, set_option

from calpress.calendar.terms import embedded_term
from calpress.content import terms as tx
from calpress.rest.registry import Registry, Route
from calpress.store.tables import term_links, terms

REST = "http://example.test/cal/events/v1"
TAXONOMY = {"categories": "cal_events_cat", "tags": "post_tag"}
CATEGORY_KEYS = ["id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls"]
TAG_KEYS = ["id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls"]
LINK_RELS = ["self", "collection", "about", "wp:post_type", "curies"]


# -- helpers --------------------------------------------------------------------------------------


def qs(params: dict[str, Any]) -> str:
    """A query string as PHP's http_build_query writes it (lists as ``name[0]=..``)."""
    pairs: list[str] = []
    for name, value in params.items():
        if isinstance(value, list):
            pairs.extend(f"{name}%5B{n}%5D={quote(str(v))}" for n, v in enumerate(value))
        else:
            pairs.append(f"{name}={quote(str(value))}")
    return "&".join(pairs)


def get(client: Any, base: str, path: str = "", **params: Any) -> Any:
    return client.get(f"/cal/events/v1/{base}{path}", query_string=qs(params))


def listing(client: Any, base: str, **params: Any) -> Any:
    """A peer-test listing: unused terms shown, ten per page, plus ``params``."""
    return get(client, base, **{"hide_empty": "0", "per_page": 10, **params})


def make_term(app: Any, base: str, name: str, **kwargs: Any) -> tx.Term:
    with app.site.write() as conn:
        return tx.create_term(conn, app.site.registry.taxonomies[TAXONOMY[base]], name, **kwargs)


def term_row(app: Any, term_id: int) -> Any:
    with app.site.read() as conn:
        return conn.execute(sa.select(terms).where(terms.c.id == term_id)).first()


def term_count(app: Any) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(terms)).scalar_one()


def make_cal_event(app: Any, base: str, term_ids: list[int], status: str = "publish") -> int:
    return make_item(app, "cal_events", title="Event", status=status, terms={TAXONOMY[base]: term_ids}).id


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.json
    return response.json


def bad(response: Any, param: str) -> dict[str, Any]:
    assert response.status_code == 400, response.json
    body = response.json
    assert body["code"] == "rest_invalid_param", body
    assert param in body["data"]["params"], body
    return body


def forbidden(response: Any, status: int = 403) -> None:
    assert response.status_code == status, response.json
    assert response.json == {"code": "rest_forbidden", "message": "Sorry, you are not allowed to do that.", "data": {"status": status}}


def totals(response: Any) -> tuple[int, int]:
    body = ok(response)
    assert (response.headers["X-TEC-Total"], response.headers["X-TEC-TotalPages"]) == (str(body["total"]), str(body["total_pages"]))
    return body["total"], body["total_pages"]


# -- shared scenario bodies (the category and tag peer tests are the same tests) --------------------


def archive_empty(client: Any, base: str) -> None:
    response = get(client, base, hide_empty="false")
    assert ok(response) == {"rest_url": f"{REST}/{base}/", "total": 0, "total_pages": 0, base: []}
    assert (response.headers["X-TEC-Total"], response.headers["X-TEC-TotalPages"]) == ("0", "0")


def archive_available(client: Any, app: Any, base: str) -> None:
    made = {make_term(app, base, f"Event Term {n}").id for n in range(1, 6)}
    body = ok(get(client, base, hide_empty="0"))
    assert {term["id"] for term in body[base]} == made
    # Unused terms are hidden unless hide_empty is false.
    assert ok(get(client, base))[base] == []


def archive_pages(client: Any, app: Any, base: str) -> None:
    made = {make_term(app, base, f"Event Term {n}").id for n in range(1, 7)}
    first = {term["id"] for term in ok(get(client, base, hide_empty="0", per_page=3, page=1))[base]}
    second = {term["id"] for term in ok(get(client, base, hide_empty="0", per_page=3, page=2))[base]}
    assert len(first) == len(second) == 3
    assert first | second == made


def archive_links(client: Any, app: Any, base: str) -> None:
    for n in range(1, 10):
        make_term(app, base, f"Event Term {n}")
    pages = [get(client, base, hide_empty="0", per_page=3, page=page) for page in (1, 2, 3)]
    assert [totals(response) for response in pages] == [(9, 3)] * 3
    first, second, third = (response.json for response in pages)
    assert "previous_rest_url" not in first and first["next_rest_url"] == f"{REST}/{base}/?page=2"
    assert second["previous_rest_url"] == f"{REST}/{base}/" and second["next_rest_url"] == f"{REST}/{base}/?page=3"
    assert third["previous_rest_url"] == f"{REST}/{base}/?page=2" and "next_rest_url" not in third
    assert [first["rest_url"], second["rest_url"], third["rest_url"]] == [f"{REST}/{base}/"] * 3


def archive_search(client: Any, app: Any, base: str) -> None:
    for name, slug in (("Foo", "foo"), ("Bar", "bar"), ("Baz", "baz"), ("One", "foo-bar")):
        make_term(app, base, name, slug=slug)
    assert totals(listing(client, base, search="foo")) == (2, 1)
    assert totals(listing(client, base, search="bar")) == (2, 1)
    assert totals(listing(client, base, search="zoot")) == (0, 0)


def three_terms(app: Any, base: str) -> list[int]:
    return [make_term(app, base, name).id for name in ("one", "two", "three")]


def archive_exclude(client: Any, app: Any, base: str) -> None:
    one, two, three = three_terms(app, base)
    assert totals(listing(client, base, exclude=one)) == (2, 1)
    assert totals(listing(client, base, exclude=[one, two])) == (1, 1)
    assert ok(listing(client, base, exclude=[one, two, three]))[base] == []
    bad(listing(client, base, exclude=[2389, 1235, 3434]), "exclude")


def archive_include(client: Any, app: Any, base: str) -> None:
    one, two, three = three_terms(app, base)
    assert [term["id"] for term in ok(listing(client, base, include=one))[base]] == [one]
    assert totals(listing(client, base, include=[one, two, three])) == (3, 1)
    bad(listing(client, base, include=[2389, 1235, 3434]), "include")


def archive_order(client: Any, app: Any, base: str) -> None:
    b, a, c = (make_term(app, base, name).id for name in ("b", "A", "C"))

    def ids(**params: Any) -> list[int]:
        return [term["id"] for term in ok(listing(client, base, **params))[base]]

    assert ids(order="desc", orderby="id") == [c, a, b]
    assert ids(order="asc", orderby="id") == [b, a, c]
    assert ids(order="asc", orderby="name") == [a, b, c]


def archive_bad_order(client: Any, app: Any, base: str) -> None:
    for name in ("b", "A", "C"):
        make_term(app, base, name)
    bad(listing(client, base, order="", orderby="id"), "order")
    bad(listing(client, base, order="desc", orderby=""), "orderby")


def four_terms(app: Any, base: str) -> list[int]:
    """b, A (child of b), C, D (child of b) as the peer tests make them; tags have no parents."""
    b = make_term(app, base, "b").id
    parent = b if base == "categories" else None
    return [b, make_term(app, base, "A", parent=parent).id, make_term(app, base, "C").id, make_term(app, base, "D", parent=parent).id]


def archive_by_post(client: Any, app: Any, base: str, param: str) -> None:
    b, _, c, _ = four_terms(app, base)
    event = make_cal_event(app, base, [b, c])
    body = listing(client, base, **{param: event})
    assert totals(body) == (2, 1)
    assert {term["id"] for term in body.json[base]} == {b, c}


def archive_event_wins(client: Any, app: Any, base: str) -> None:
    b, a, c, _ = four_terms(app, base)
    event_one = make_cal_event(app, base, [b, c])
    event_two = make_cal_event(app, base, [a])
    body = listing(client, base, post=event_one, event=event_two)
    assert totals(body) == (1, 1)
    assert [term["id"] for term in body.json[base]] == [a]


def archive_bad_post(client: Any, app: Any, base: str) -> None:
    not_an_event = make_item(app, "post").id
    for param in ("post", "event"):
        for value in ("", 23, "foo", not_an_event):
            bad(listing(client, base, **{param: value}), param)


def archive_slug(client: Any, app: Any, base: str) -> None:
    for name in ("b", "A", "C", "D"):
        make_term(app, base, name, slug=name.lower())
    assert totals(listing(client, base, slug="a")) == (1, 1)
    assert [term["name"] for term in ok(listing(client, base, slug="c"))[base]] == ["C"]
    assert ok(listing(client, base, slug="foo")) == {"rest_url": f"{REST}/{base}/", "total": 0, "total_pages": 0, base: []}


def archive_bad_slug(client: Any, base: str) -> None:
    bad(listing(client, base, slug=""), "slug")


def single_term(client: Any, app: Any, base: str) -> None:
    parent = make_term(app, base, "foo-parent") if base == "categories" else None
    term = make_term(app, base, "foo", description="Term description", slug="foo-bar", parent=parent.id if parent else None)
    make_cal_event(app, base, [term.id])
    make_cal_event(app, base, [term.id])
    response = get(client, base, f"/{term.id}")
    body = ok(response)
    expected: dict[str, Any] = {"id": term.id, "count": 2, "description": "Term description", "name": "foo", "slug": "foo-bar",
                                "taxonomy": TAXONOMY[base]}
    urls = {"self": f"{REST}/{base}/{term.id}", "collection": f"{REST}/{base}"}
    if parent is not None:
        expected["parent"] = parent.id
        expected["url"] = "http://example.test/events/category/foo-parent/foo-bar/"
        urls["up"] = f"{REST}/{base}/{parent.id}"
    else:
        expected["url"] = "http://example.test/tag/foo-bar/"
    assert {key: body[key] for key in expected} == expected
    assert body["meta"] == [] and body["urls"] == urls
    assert list(body) == (CATEGORY_KEYS if parent else TAG_KEYS) + ["_links"]


def single_missing(client: Any, app: Any, base: str) -> None:
    with app.site.write() as conn:
        elsewhere = tx.create_term(conn, app.site.registry.taxonomies["category"], "foo")
    body = bad(get(client, base, f"/{elsewhere.id}"), "id")
    assert body == {"code": "rest_invalid_param", "message": "Invalid parameter(s): id",
                    "data": {"status": 400, "params": {"id": "Invalid parameter."}, "details": []}}
    bad(get(client, base, "/2389"), "id")


def single_not_int(client: Any, base: str) -> None:
    for path in ("/foo", "/foo%20bar"):
        response = get(client, base, path)
        assert response.status_code == 404 and response.json["code"] == "rest_no_route"


def insert_term(client: Any, app: Any, base: str, editor: Any) -> None:
    fields: dict[str, Any] = {"name": "foo", "description": "Term description", "slug": "foo-bar"}
    parent = make_term(app, base, "foo-parent") if base == "categories" else None
    if parent is not None:
        fields["parent"] = parent.id
    response = client.post(f"/cal/events/v1/{base}", user=editor, json=fields)
    assert response.status_code == 201, response.json
    body = response.json
    new_id = body["id"]
    assert response.headers["Location"] == f"http://example.test/cms/v2/{'cal_events_cat' if parent else 'tags'}/{new_id}"
    expected = {"id": new_id, "count": 0, "description": "Term description", "name": "foo", "slug": "foo-bar",
                "taxonomy": TAXONOMY[base], "meta": []}
    urls = {"self": f"{REST}/{base}/{new_id}", "collection": f"{REST}/{base}"}
    if parent is not None:
        expected["parent"] = parent.id
        urls["up"] = f"{REST}/{base}/{parent.id}"
        assert body["url"] == "http://example.test/events/category/foo-parent/foo-bar/"
    else:
        assert body["url"] == "http://example.test/tag/foo-bar/"
    assert {key: body[key] for key in expected} == expected and body["urls"] == urls
    row = term_row(app, new_id)
    assert (row.taxonomy, row.name, row.slug, row.description, row.parent) == (
        TAXONOMY[base], "foo", "foo-bar", "Term description", parent.id if parent else 0)


def refused_write(client: Any, app: Any, base: str, account: Any, method: str, with_term: bool) -> None:
    term = make_term(app, base, "old-foo") if with_term else None
    before = term_count(app)
    path = f"/cal/events/v1/{base}" + (f"/{term.id}" if term else "")
    fields = {"name": "foo", "description": "Term description", "slug": "foo-bar"}
    response = client.request(method, path, user=account, json=fields if method == "POST" else None)
    forbidden(response)
    assert term_count(app) == before
    if term is not None:
        row = term_row(app, term.id)
        assert (row.name, row.slug) == ("old-foo", "old-foo")


BAD_CATEGORY_FIELDS = [("name", ""), ("description", ""), ("slug", ""), ("parent", ""), ("parent", "2389"), ("parent", "foo")]
BAD_TAG_FIELDS = [("name", ""), ("description", ""), ("slug", "")]


def bad_write_fields(client: Any, app: Any, base: str, editor: Any, updating: bool) -> None:
    term = make_term(app, base, "old-foo") if updating else None
    path = f"/cal/events/v1/{base}" + (f"/{term.id}" if term else "")
    before = term_count(app)
    for name, value in BAD_CATEGORY_FIELDS if base == "categories" else BAD_TAG_FIELDS:
        fields = {"name": "foo", "description": "Term description", "slug": "foo-bar", name: value}
        # Sent as a form, as the peer tests do.
        response = client.post(path, user=editor, body=qs(fields), headers={"Content-Type": "application/x-www-form-urlencoded"})
        bad(response, name)
        assert term_count(app) == before
    if term is not None:
        row = term_row(app, term.id)
        assert (row.name, row.slug, row.description, row.parent) == ("old-foo", "old-foo", "", 0)


def update_term(client: Any, app: Any, base: str, editor: Any) -> None:
    term = make_term(app, base, "old-foo")
    parent = make_term(app, base, "foo-parent") if base == "categories" else None
    fields: dict[str, Any] = {"name": "foo", "description": "Term description", "slug": "foo-bar"}
    if parent is not None:
        fields["parent"] = parent.id
    body = ok(client.post(f"/cal/events/v1/{base}/{term.id}", user=editor, json=fields))
    expected: dict[str, Any] = {"id": term.id, "count": 0, "description": "Term description", "name": "foo", "slug": "foo-bar",
                                "taxonomy": TAXONOMY[base], "meta": []}
    if parent is not None:
        expected["parent"] = parent.id
        assert body["urls"]["up"] == f"{REST}/{base}/{parent.id}"
        assert body["url"] == "http://example.test/events/category/foo-parent/foo-bar/"
    else:
        assert "up" not in body["urls"] and body["url"] == "http://example.test/tag/foo-bar/"
    assert {key: body[key] for key in expected} == expected
    assert list(body) == (CATEGORY_KEYS if parent else TAG_KEYS) + ["_links"]
    row = term_row(app, term.id)
    assert (row.name, row.slug, row.description, row.parent) == ("foo", "foo-bar", "Term description", parent.id if parent else 0)


def delete_term(client: Any, app: Any, base: str, editor: Any) -> None:
    parent = make_term(app, base, "foo-parent") if base == "categories" else None
    term = make_term(app, base, "foo", description="Term description", slug="foo-bar", parent=parent.id if parent else None)
    events = [make_cal_event(app, base, [term.id]) for _ in range(3)]
    response = client.delete(f"/cal/events/v1/{base}/{term.id}", user=editor)
    body = ok(response)
    urls = {"self": f"{REST}/{base}/{term.id}", "collection": f"{REST}/{base}"}
    expected: dict[str, Any] = {"id": term.id, "count": 3, "description": "Term description", "name": "foo", "slug": "foo-bar",
                                "taxonomy": TAXONOMY[base]}
    if parent is not None:
        expected.update(parent=parent.id, meta=[], url="http://example.test/events/category/foo-parent/foo-bar/")
        urls["up"] = f"{REST}/{base}/{parent.id}"
    else:
        expected.update(meta=[], url="http://example.test/tag/foo-bar/")
    assert body == {**expected, "urls": urls}  # as it was, and without _links
    assert term_row(app, term.id) is None
    with app.site.read() as conn:
        assert conn.execute(sa.select(term_links).where(term_links.c.object_id.in_(events))).all() == []
    bad(client.delete(f"/cal/events/v1/{base}/{term.id}", user=editor), "id")  # deletion is permanent


def delete_bad_id(client: Any, app: Any, base: str, subscriber: Any) -> None:
    make_term(app, base, "foo")
    bad(client.delete(f"/cal/events/v1/{base}/23", user=subscriber), "id")


# -- CategoryArchiveCest --------------------------------------------------------------------------


def test_CategoryArchiveCest_should_return_200_if_no_event_category_is_in_db(client: Any) -> None:
    archive_empty(client, "categories")


def test_CategoryArchiveCest_should_return_available_event_categories(client: Any, app: Any) -> None:
    archive_available(client, app, "categories")


def test_CategoryArchiveCest_should_allow_specifying_the_category_archive_page_to_get(client: Any, app: Any) -> None:
    archive_pages(client, app, "categories")


def test_CategoryArchiveCest_should_return_the_page_and_link_data_in_the_response(client: Any, app: Any) -> None:
    archive_links(client, app, "categories")


def test_CategoryArchiveCest_should_allow_searching_event_categories(client: Any, app: Any) -> None:
    archive_search(client, app, "categories")


def test_CategoryArchiveCest_should_allow_excluding_event_categories_by_term_id(client: Any, app: Any) -> None:
    archive_exclude(client, app, "categories")


def test_CategoryArchiveCest_should_allow_including_event_categories_by_term_id(client: Any, app: Any) -> None:
    archive_include(client, app, "categories")


def test_CategoryArchiveCest_should_allow_setting_ordering_the_results(client: Any, app: Any) -> None:
    archive_order(client, app, "categories")


def test_CategoryArchiveCest_should_return_bad_request_if_passing_bad_parameters_for_order_and_orderby_parameters(
    client: Any, app: Any
) -> None:
    archive_bad_order(client, app, "categories")


def test_CategoryArchiveCest_should_allow_filtering_event_categories_by_parent_term_id(client: Any, app: Any) -> None:
    b, a, _, d = four_terms(app, "categories")
    body = listing(client, "categories", parent=b)
    assert totals(body) == (2, 1)
    assert {term["id"] for term in body.json["categories"]} == {a, d}


def test_CategoryArchiveCest_should_return_bad_request_if_passing_bad_parameter_for_parent_term_id(client: Any) -> None:
    bad(listing(client, "categories", parent=2389), "parent")
    bad(listing(client, "categories", parent=""), "parent")


def test_CategoryArchiveCest_should_allow_filtering_event_categories_by_related_post_id(client: Any, app: Any) -> None:
    archive_by_post(client, app, "categories", "post")


def test_CategoryArchiveCest_should_alias_the_post_parameter_to_the_event_parameter_to_filter_categories_by_event(
    client: Any, app: Any
) -> None:
    archive_by_post(client, app, "categories", "event")


def test_CategoryArchiveCest_should_override_post_parameter_when_using_event_parameter(client: Any, app: Any) -> None:
    archive_event_wins(client, app, "categories")


def test_CategoryArchiveCest_should_return_bad_request_if_passing_bad_parameter_for_post_of_event_post_id(
    client: Any, app: Any
) -> None:
    archive_bad_post(client, app, "categories")


def test_CategoryArchiveCest_should_allow_filtering_event_categories_by_slug(client: Any, app: Any) -> None:
    archive_slug(client, app, "categories")


def test_CategoryArchiveCest_should_return_bad_request_when_providing_bad_slug_parameter(client: Any) -> None:
    archive_bad_slug(client, "categories")


# -- TagArchiveCest -------------------------------------------------------------------------------


def test_TagArchiveCest_should_return_200_if_no_event_tag_is_in_db(client: Any) -> None:
    archive_empty(client, "tags")


def test_TagArchiveCest_should_return_available_event_tags(client: Any, app: Any) -> None:
    archive_available(client, app, "tags")


def test_TagArchiveCest_should_allow_specifying_the_tag_archive_page_to_get(client: Any, app: Any) -> None:
    archive_pages(client, app, "tags")


def test_TagArchiveCest_should_return_the_page_and_link_data_in_the_response(client: Any, app: Any) -> None:
    archive_links(client, app, "tags")


def test_TagArchiveCest_should_allow_searching_event_tags(client: Any, app: Any) -> None:
    archive_search(client, app, "tags")


def test_TagArchiveCest_should_allow_excluding_event_tags_by_term_id(client: Any, app: Any) -> None:
    archive_exclude(client, app, "tags")


def test_TagArchiveCest_should_allow_including_event_tags_by_term_id(client: Any, app: Any) -> None:
    archive_include(client, app, "tags")


def test_TagArchiveCest_should_allow_setting_ordering_the_results(client: Any, app: Any) -> None:
    archive_order(client, app, "tags")


def test_TagArchiveCest_should_return_bad_request_if_passing_bad_parameters_for_order_and_orderby_parameters(
    client: Any, app: Any
) -> None:
    archive_bad_order(client, app, "tags")


def test_TagArchiveCest_should_allow_filtering_event_tags_by_related_post_id(client: Any, app: Any) -> None:
    archive_by_post(client, app, "tags", "post")


def test_TagArchiveCest_should_alias_the_post_parameter_to_the_event_parameter_to_filter_tags_by_event(
    client: Any, app: Any
) -> None:
    archive_by_post(client, app, "tags", "event")


def test_TagArchiveCest_should_override_post_parameter_when_using_event_parameter(client: Any, app: Any) -> None:
    archive_event_wins(client, app, "tags")


def test_TagArchiveCest_should_return_bad_request_if_passing_bad_parameter_for_post_of_event_post_id(
    client: Any, app: Any
) -> None:
    archive_bad_post(client, app, "tags")


def test_TagArchiveCest_should_allow_filtering_event_tags_by_slug(client: Any, app: Any) -> None:
    archive_slug(client, app, "tags")


def test_TagArchiveCest_should_return_bad_request_when_providing_bad_slug_parameter(client: Any) -> None:
    archive_bad_slug(client, "tags")


# -- SingleCategoryCest / SingleTagCest ------------------------------------------------------------


def test_SingleCategoryCest_should_allow_getting_a_single_category_term(client: Any, app: Any) -> None:
    single_term(client, app, "categories")


def test_SingleCategoryCest_should_return_bad_request_if_trying_to_get_non_existing_single_category_term(
    client: Any, app: Any
) -> None:
    single_missing(client, app, "categories")


def test_SingleCategoryCest_should_return_404_if_supplying_not_int_values_for_single_category_term(client: Any) -> None:
    single_not_int(client, "categories")


def test_SingleTagCest_should_allow_getting_a_single_tag_term(client: Any, app: Any) -> None:
    single_term(client, app, "tags")


def test_SingleTagCest_should_return_bad_request_if_trying_to_get_non_existing_single_tag_term(client: Any, app: Any) -> None:
    single_missing(client, app, "tags")


def test_SingleTagCest_should_return_404_if_supplying_not_int_values_for_single_tag_term(client: Any) -> None:
    single_not_int(client, "tags")


# -- CategoryInsertionCest / TagInsertionCest ------------------------------------------------------


def test_CategoryInsertionCest_should_allow_inserting_an_event_category(client: Any, app: Any, make_account: Any) -> None:
    insert_term(client, app, "categories", make_account("ed", "editor"))


def test_CategoryInsertionCest_should_return_403_if_user_cannot_insert_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "categories", make_account("sub"), "POST", with_term=False)


def test_CategoryInsertionCest_should_return_403_if_contributor_cannot_insert_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "categories", make_account("con", "contributor"), "POST", with_term=False)


def test_CategoryInsertionCest_should_return_bad_request_if_passing_bad_request_parameters(
    client: Any, app: Any, make_account: Any
) -> None:
    bad_write_fields(client, app, "categories", make_account("ed", "editor"), updating=False)


def test_TagInsertionCest_should_allow_inserting_an_event_tag(client: Any, app: Any, make_account: Any) -> None:
    insert_term(client, app, "tags", make_account("ed", "editor"))


def test_TagInsertionCest_should_return_403_if_user_cannot_insert_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "tags", make_account("sub"), "POST", with_term=False)


def test_TagInsertionCest_should_return_403_if_contributor_cannot_insert_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "tags", make_account("con", "contributor"), "POST", with_term=False)


def test_TagInsertionCest_should_return_bad_request_if_passing_bad_request_parameters(client: Any, app: Any, make_account: Any) -> None:
    bad_write_fields(client, app, "tags", make_account("ed", "editor"), updating=False)


# -- CategoryUpdateCest / TagUpdateCest ------------------------------------------------------------


def test_CategoryUpdateCest_should_allow_updating_an_event_category(client: Any, app: Any, make_account: Any) -> None:
    update_term(client, app, "categories", make_account("ed", "editor"))


def test_CategoryUpdateCest_should_return_403_if_user_cannot_update_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "categories", make_account("sub"), "POST", with_term=True)


def test_CategoryUpdateCest_should_return_403_if_contributor_cannot_update_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "categories", make_account("con", "contributor"), "POST", with_term=True)


def test_CategoryUpdateCest_should_return_bad_request_if_passing_bad_request_parameters(
    client: Any, app: Any, make_account: Any
) -> None:
    bad_write_fields(client, app, "categories", make_account("ed", "editor"), updating=True)


def test_TagUpdateCest_should_allow_updating_an_event_tag(client: Any, app: Any, make_account: Any) -> None:
    update_term(client, app, "tags", make_account("ed", "editor"))


def test_TagUpdateCest_should_return_403_if_user_cannot_update_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "tags", make_account("sub"), "POST", with_term=True)


def test_TagUpdateCest_should_return_403_if_contributor_cannot_update_terms(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "tags", make_account("con", "contributor"), "POST", with_term=True)


def test_TagUpdateCest_should_return_bad_request_if_passing_bad_request_parameters(client: Any, app: Any, make_account: Any) -> None:
    bad_write_fields(client, app, "tags", make_account("ed", "editor"), updating=True)


# -- CategoryDeletionCest / TagDeletionCest --------------------------------------------------------


def test_CategoryDeletionCest_should_allow_deleting_an_event_category(client: Any, app: Any, make_account: Any) -> None:
    delete_term(client, app, "categories", make_account("ed", "editor"))


def test_CategoryDeletionCest_should_return_403_if_user_cannot_delete_event_category(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "categories", make_account("sub"), "DELETE", with_term=True)


def test_CategoryDeletionCest_should_return_403_if_contributor_cannot_delete_event_category(
    client: Any, app: Any, make_account: Any
) -> None:
    refused_write(client, app, "categories", make_account("con", "contributor"), "DELETE", with_term=True)


def test_CategoryDeletionCest_should_return_bad_request_if_term_id_parameter_is_bad(client: Any, app: Any, make_account: Any) -> None:
    delete_bad_id(client, app, "categories", make_account("sub"))


def test_TagDeletionCest_should_allow_deleting_an_event_tag(client: Any, app: Any, make_account: Any) -> None:
    delete_term(client, app, "tags", make_account("ed", "editor"))


def test_TagDeletionCest_should_return_403_if_user_cannot_delete_event_tag(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "tags", make_account("sub"), "DELETE", with_term=True)


def test_TagDeletionCest_should_return_403_if_contributor_cannot_delete_event_tag(client: Any, app: Any, make_account: Any) -> None:
    refused_write(client, app, "tags", make_account("con", "contributor"), "DELETE", with_term=True)


def test_TagDeletionCest_should_return_bad_request_if_term_id_parameter_is_bad(client: Any, app: Any, make_account: Any) -> None:
    delete_bad_id(client, app, "tags", make_account("sub"))


# -- recorded answers -----------------------------------------------------------------------------


def test_recorded_list_shape_keys_and_headers(client: Any, app: Any) -> None:
    used = make_term(app, "categories", "Used")
    make_term(app, "categories", "Unused")
    make_cal_event(app, "categories", [used.id])
    tag = make_term(app, "tags", "five")
    make_cal_event(app, "tags", [tag.id])
    response = get(client, "categories", per_page=2)
    body = ok(response)
    assert list(body) == ["rest_url", "total", "total_pages", "categories"]
    assert (body["total"], body["total_pages"]) == (1, 1)
    assert body["categories"] == [{
        "id": used.id, "count": 1, "description": "", "name": "Used", "slug": "used", "taxonomy": "cal_events_cat",
        "parent": 0, "meta": [], "url": "http://example.test/events/category/used/",
        "urls": {"self": f"{REST}/categories/{used.id}", "collection": f"{REST}/categories"},
    }]
    assert response.headers["Allow"] == "GET"
    assert "X-WP-Total" not in response.headers
    tags = ok(get(client, "tags", per_page=2))
    assert list(tags) == ["rest_url", "total", "total_pages", "tags"]
    assert list(tags["tags"][0]) == TAG_KEYS and tags["tags"][0]["url"] == "http://example.test/tag/five/"


def test_recorded_single_shape_carries_cms_links(client: Any, app: Any, admin: Any) -> None:
    created = client.post("/wp-json/cal/events/v1/categories", user=admin, json={"name": "Rec Cat", "description": "Recorded"})
    assert created.status_code == 201
    assert created.headers["Allow"] == "GET, POST"
    top = created.json
    assert created.headers["Location"] == f"http://example.test/wp-json/cms/v2/cal_events_cat/{top['id']}"
    child = client.post("/wp-json/cal/events/v1/categories", user=admin, json={"name": "Rec SubCat", "parent": top["id"]}).json
    assert list(child) == CATEGORY_KEYS + ["_links"]
    assert child["url"] == "http://example.test/events/category/rec-cat/rec-subcat/"
    links = child["_links"]
    assert list(links) == ["self", "collection", "about", "up", "wp:post_type", "curies"]
    cms = "http://example.test/wp-json/cms/v2"
    assert links["self"] == [{"href": f"{cms}/cal_events_cat/{child['id']}",
                              "targetHints": {"allow": ["GET", "POST", "PUT", "PATCH", "DELETE"]}}]
    assert links["up"] == [{"embeddable": True, "href": f"{cms}/cal_events_cat/{top['id']}"}]
    assert links["wp:post_type"][0] == {"href": f"{cms}/cal_events?cal_events_cat={child['id']}"}
    anonymous = client.get(f"/wp-json/cal/events/v1/categories/{top['id']}")
    assert anonymous.headers["Allow"] == "GET"
    assert list(anonymous.json) == CATEGORY_KEYS + ["_links"]
    assert anonymous.json["_links"]["self"][0]["targetHints"] == {"allow": ["GET"]}
    assert list(anonymous.json["_links"]) == LINK_RELS
    tag = client.post("/wp-json/cal/events/v1/tags", user=admin, json={"name": "rec-tag"})
    assert tag.headers["Location"] == f"http://example.test/wp-json/cms/v2/tags/{tag.json['id']}"
    assert [link["href"] for link in tag.json["_links"]["wp:post_type"]] == [
        f"{cms}/posts?tags={tag.json['id']}", f"{cms}/cal_events?tags={tag.json['id']}"]


def test_term_exists_names_the_existing_term_and_writes_nothing(client: Any, app: Any, admin: Any) -> None:
    music = make_term(app, "categories", "Music")
    before = term_count(app)
    response = client.post("/cal/events/v1/categories", user=admin, json={"name": "Music"})
    assert response.status_code == 400
    assert response.json == {
        "code": "term_exists",
        "message": "A term with the name provided already exists with this parent.",
        "data": {"status": 400, "term_id": music.id},
        "additional_data": [music.id, music.id],
    }
    tag = make_term(app, "tags", "seed")
    response = client.post("/cal/events/v1/tags", user=admin, json={"name": "Seed"})
    assert response.json["message"] == "A term with the name provided already exists in this taxonomy."
    assert response.json["data"] == {"status": 400, "term_id": tag.id}
    assert term_count(app) == before + 1
    # The same name under another parent is another term.
    assert client.post("/cal/events/v1/categories", user=admin, json={"name": "Music", "parent": music.id}).status_code == 201


def test_recorded_create_without_name_and_anonymous_create(client: Any, app: Any) -> None:
    response = client.post("/wp-json/cal/events/v1/categories", json={"description": "x"})
    assert response.status_code == 400
    assert response.json == {"code": "rest_missing_callback_param", "message": "Missing parameter(s): name",
                             "data": {"status": 400, "params": ["name"]}}
    response = client.post("/wp-json/cal/events/v1/categories", json={"name": "Rec Nope"})
    forbidden(response, 401)
    assert response.headers["Allow"] == "GET"
    assert term_count(app) == 0


# -- permissions ----------------------------------------------------------------------------------


def test_authors_may_manage_event_categories_but_not_tags(client: Any, app: Any, make_account: Any) -> None:
    """spec/README.md: event categories take publishing rights on events (authors); tags need
    ``manage_categories`` (editors)."""
    author = make_account("writer", "author")
    created = client.post("/cal/events/v1/categories", user=author, json={"name": "Concerts"})
    assert created.status_code == 201
    term_id = created.json["id"]
    assert ok(client.patch(f"/cal/events/v1/categories/{term_id}", user=author, json={"description": "Live"}))["description"] == "Live"
    assert ok(client.delete(f"/cal/events/v1/categories/{term_id}", user=author))["id"] == term_id
    forbidden(client.post("/cal/events/v1/tags", user=author, json={"name": "live"}))
    tag = make_term(app, "tags", "live")
    forbidden(client.put(f"/cal/events/v1/tags/{tag.id}", user=author, json={"name": "dead"}))
    forbidden(client.delete(f"/cal/events/v1/tags/{tag.id}", user=author))
    assert term_row(app, tag.id).name == "live"


def test_validation_comes_before_permission(client: Any, app: Any, make_account: Any) -> None:
    subscriber = make_account("sub")
    bad(client.post("/cal/events/v1/categories", json={"name": ""}), "name")
    bad(client.post("/cal/events/v1/categories", user=subscriber, json={"name": "x", "parent": 2389}), "parent")
    bad(client.delete("/cal/events/v1/tags/2389"), "id")
    tag = make_term(app, "tags", "kept")
    forbidden(client.delete(f"/cal/events/v1/tags/{tag.id}"), 401)
    forbidden(client.delete(f"/cal/events/v1/tags/{tag.id}", user=subscriber), 403)
    assert term_row(app, tag.id) is not None


# -- listing rules --------------------------------------------------------------------------------


def test_per_page_follows_the_site_options_and_is_clamped(client: Any, app: Any) -> None:
    for n in range(7):
        make_term(app, "tags", f"tag {n}")
    assert len(ok(get(client, "tags", hide_empty="0"))["tags"]) == 7  # posts_per_page: 10
    set_option(app, "posts_per_page", 2)
    body = ok(get(client, "tags", hide_empty="0"))
    assert (len(body["tags"]), body["total_pages"]) == (2, 4)
    set_option(app, "events_max_per_page", 3)
    body = ok(get(client, "tags", hide_empty="0", per_page=100))
    assert (len(body["tags"]), body["total"], body["total_pages"]) == (3, 7, 3)
    for value in (0, -1, "foo", "2.5"):
        bad(get(client, "tags", per_page=value), "per_page")
    for value in (0, "foo"):
        bad(get(client, "tags", page=value), "page")


def test_a_page_beyond_the_last_is_an_empty_page(client: Any, app: Any) -> None:
    make_term(app, "categories", "Only")
    response = get(client, "categories", hide_empty="0", page=5)
    assert ok(response) == {"rest_url": f"{REST}/categories/", "total": 1, "total_pages": 1, "categories": [],
                            "previous_rest_url": f"{REST}/categories/?page=4"}


def test_hide_empty_keeps_the_ancestors_of_used_terms(client: Any, app: Any) -> None:
    parent = make_term(app, "categories", "Parent")
    child = make_term(app, "categories", "Child", parent=parent.id)
    make_term(app, "categories", "Idle")
    draft_only = make_term(app, "categories", "Draft only")
    make_cal_event(app, "categories", [child.id])
    make_cal_event(app, "categories", [draft_only.id], status="draft")
    body = ok(get(client, "categories"))
    assert [(term["name"], term["count"]) for term in body["categories"]] == [("Child", 1), ("Parent", 0)]
    assert body["total"] == 2
    assert ok(get(client, "categories", hide_empty="false"))["total"] == 4
    bad(get(client, "categories", hide_empty="maybe"), "hide_empty")


def test_terms_are_given_by_id_or_slug_and_only_of_the_route_taxonomy(client: Any, app: Any) -> None:
    one, two = make_term(app, "categories", "One"), make_term(app, "categories", "Two")
    child = make_term(app, "categories", "Kid", parent=one.id)
    tag = make_term(app, "tags", "Three")
    assert [term["id"] for term in ok(listing(client, "categories", include="one,two"))["categories"]] == [one.id, two.id]
    assert [term["id"] for term in ok(listing(client, "categories", exclude=f"one, {two.id}"))["categories"]] == [child.id]
    assert [term["id"] for term in ok(listing(client, "categories", parent="one"))["categories"]] == [child.id]
    bad(listing(client, "categories", include=[one.id, tag.id]), "include")
    bad(listing(client, "tags", exclude=one.id), "exclude")
    bad(get(client, "categories", f"/{tag.id}"), "id")
    # Tags have no parent filter: it is not one of their arguments.
    assert ok(listing(client, "tags", parent=2389))["total"] == 1


def test_a_number_names_a_term_id_never_a_slug(client: Any, app: Any) -> None:
    five = make_term(app, "tags", "5")
    assert five.slug == "5" and five.id != 5
    bad(listing(client, "tags", include="5"), "include")
    assert [term["id"] for term in ok(listing(client, "tags", include=five.id))["tags"]] == [five.id]


def test_listing_writes_nothing_and_answers_through_rest_route(client: Any, app: Any) -> None:
    for n in range(3):
        make_term(app, "tags", f"t{n}")
    response = client.get("/", query_string="rest_route=/cal/events/v1/tags&hide_empty=0&per_page=1&page=2")
    body = ok(response)
    base = "http://example.test/?rest_route=/cal/events/v1/tags/"
    assert (body["rest_url"], body["previous_rest_url"], body["next_rest_url"]) == (base, base, base + "&page=3")
    assert body["tags"][0]["urls"]["collection"] == "http://example.test/?rest_route=/cal/events/v1/tags"


# -- writing rules --------------------------------------------------------------------------------


def test_tags_refuse_a_parent_and_categories_take_one_by_slug(client: Any, app: Any, admin: Any) -> None:
    tag = make_term(app, "tags", "y")
    before = term_count(app)
    response = client.post("/cal/events/v1/tags", user=admin, json={"name": "x", "parent": 1})
    assert response.status_code == 400 and response.json["code"] == "rest_taxonomy_not_hierarchical"
    response = client.put(f"/cal/events/v1/tags/{tag.id}", user=admin, json={"parent": 0})
    assert response.status_code == 400 and response.json["code"] == "rest_taxonomy_not_hierarchical"
    assert term_count(app) == before and term_row(app, tag.id).parent == 0
    top = make_term(app, "categories", "Top")
    body = client.post("/cal/events/v1/categories", user=admin, json={"name": "Under", "parent": "top"}).json
    assert body["parent"] == top.id


def test_update_methods_and_an_empty_update(client: Any, app: Any, admin: Any) -> None:
    term = make_term(app, "categories", "Start", description="kept")
    assert ok(client.put(f"/cal/events/v1/categories/{term.id}", user=admin, json={"name": "Put"}))["name"] == "Put"
    assert ok(client.patch(f"/cal/events/v1/categories/{term.id}", user=admin, json={"slug": "patched"}))["slug"] == "patched"
    same = ok(client.post(f"/cal/events/v1/categories/{term.id}", user=admin))
    assert (same["name"], same["slug"], same["description"]) == ("Put", "patched", "kept")
    other = make_term(app, "categories", "Other")
    # A slug taken by another term is the reference's unhandled duplicate_term_slug (no status: 500).
    response = client.post(f"/cal/events/v1/categories/{other.id}", user=admin, json={"slug": "patched"})
    assert response.status_code == 500 and response.json["code"] == "duplicate_term_slug"
    assert term_row(app, other.id).slug == "other"


def test_events_embed_their_terms_and_see_term_changes(client: Any, app: Any, admin: Any) -> None:
    category = make_term(app, "categories", "Music")
    tag = make_term(app, "tags", "seed")
    event = make_event(client, admin, "Gig", categories=[category.id], tags=[tag.id])
    shown = ok(client.get(f"/cal/events/v1/events/{event['id']}"))
    assert shown["categories"] == [{
        "name": "Music", "slug": "music", "term_group": 0, "term_taxonomy_id": category.id, "taxonomy": "cal_events_cat",
        "description": "", "parent": 0, "count": 1, "filter": "raw", "id": category.id,
        "urls": {"self": f"{REST}/categories/{category.id}", "collection": f"{REST}/categories"},
    }]
    assert shown["tags"][0]["urls"] == {"self": f"{REST}/tags/{tag.id}", "collection": f"{REST}/tags"}
    ok(client.post(f"/cal/events/v1/categories/{category.id}", user=admin, json={"name": "Jazz"}))
    assert ok(client.get(f"/cal/events/v1/events/{event['id']}"))["categories"][0]["name"] == "Jazz"
    listed = ok(client.get("/cal/events/v1/events"))["events"]
    assert listed[0]["categories"][0]["name"] == "Jazz"
    ok(client.delete(f"/cal/events/v1/categories/{category.id}", user=admin))
    assert ok(client.get(f"/cal/events/v1/events/{event['id']}"))["categories"] == []


def test_embedded_term_of_a_child_links_up() -> None:
    routes = Registry({"cal": "cal/events/v1"})
    routes.add_all([Route("cal", "/categories", [], name="cal.categories"), Route("cal", r"/categories/(?P<id>\d+)", [], name="cal.categories.item")])
    term = tx.Term(id=7, taxonomy="cal_events_cat", name="Kid", slug="kid", description="<b>x</b>", parent=3, count=2)
    assert embedded_term(term, lambda name, **params: routes.url("http://h/wp-json", name, **params)) == {
        "name": "Kid", "slug": "kid", "term_group": 0, "term_taxonomy_id": 7, "taxonomy": "cal_events_cat",
        "description": "<b>x</b>", "parent": 3, "count": 2, "filter": "raw", "id": 7,
        "urls": {
            "self": "http://h/wp-json/cal/events/v1/categories/7",
            "collection": "http://h/wp-json/cal/events/v1/categories",
            "up": "http://h/wp-json/cal/events/v1/categories/3",
        },
    }


def test_the_doc_lists_the_term_routes(client: Any) -> None:
    paths = ok(client.get("/cal/events/v1/doc"))["paths"]
    assert list(paths)[-4:] == ["/categories", "/categories/{id}", "/tags", "/tags/{id}"]
    assert set(paths["/categories/{id}"]) == {"get", "post", "delete"}
    names = [param["name"] for param in paths["/categories"]["get"]["parameters"]]
    assert names == ["page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "event", "slug"]
    assert "parent" not in [param["name"] for param in paths["/tags"]["get"]["parameters"]]


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_routes_are_not_batch_enabled(app: Any) -> None:
    routes = [route for pattern, route in app.api.registry.routes.items() if pattern.startswith("/cal/events/v1/")
              and ("categories" in pattern or "tags" in pattern)]
    assert len(routes) == 4
    assert not any(endpoint.allow_batch for route in routes for endpoint in route.endpoints)
