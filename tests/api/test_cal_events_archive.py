"""cal/events/v1 event archive and its filters: one test per scenario of calendar-api.md 10.2."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from cal_support import EVENTS, assert_empty_archive, ids, make_event, make_organizer, make_venue, set_option, timestamp


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def path_of(url: str) -> str:
    return urlsplit(url).path.strip("/")


def many(client, user, count, **fields):
    return [make_event(client, user, f"Event {n}", **fields)["id"] for n in range(count)]


def weekly(client, user, count):
    return [make_event(client, user, f"Weekly {n}", start_hours=24 * 7 * n)["id"] for n in range(1, count + 1)]


# -- EventArchiveCest -----------------------------------------------------------------------------


def test_EventArchiveCest_it_should_return_empty_array_if_there_are_no_events(client):
    assert_empty_archive(client.get(EVENTS))


def test_EventArchiveCest_it_should_return_upcoming_events_if_there_are_upcoming_events(app, client, admin):
    set_option(app, "posts_per_page", 10)
    created = many(client, admin, 5)
    response = client.get(EVENTS)
    assert response.status_code == 200 and ids(response) == created


def test_EventArchiveCest_it_should_return_a_number_of_upcoming_events_equal_to_the_posts_per_page_option_by_default(
    app, client, admin
):
    set_option(app, "posts_per_page", 5)
    many(client, admin, 7)
    assert len(client.get(EVENTS).json["events"]) == 5


def test_EventArchiveCest_it_should_allow_defining_the_number_of_posts_per_pages_to_return(app, client, admin):
    set_option(app, "posts_per_page", 5)
    many(client, admin, 7)
    assert len(client.get(EVENTS, params={"per_page": "10"}).json["events"]) == 7


def test_EventArchiveCest_it_should_limit_the_maximum_number_of_posts_per_pages_to_return_to_50_at_most(client, admin):
    many(client, admin, 51)
    response = client.get(EVENTS, params={"per_page": "100"})
    assert len(response.json["events"]) == 50
    assert response.json["total"] == 51 and response.json["total_pages"] == 2


def test_EventArchiveCest_it_should_return_the_identity_rest_url_for_the_root_archive_url(client, admin):
    many(client, admin, 1)
    assert path_of(client.get(EVENTS).json["rest_url"]) == "cal/events/v1/events"
    via_prefix = client.get("/wp-json" + EVENTS).json["rest_url"]
    assert path_of(via_prefix) == "wp-json/cal/events/v1/events"


def test_EventArchiveCest_it_should_return_the_rest_url_to_fetch_next_events_if_there_are_more_events_than_requested(
    app, client, admin
):
    set_option(app, "posts_per_page", 5)
    many(client, admin, 7)
    body = client.get(EVENTS).json
    assert path_of(body["next_rest_url"]) == "cal/events/v1/events"
    assert query_of(body["next_rest_url"])["page"] == ["2"]
    assert "previous_rest_url" not in body
    parts = urlsplit(body["next_rest_url"])
    assert len(client.get(parts.path, query_string=parts.query).json["events"]) == 2


def test_EventArchiveCest_it_should_return_the_rest_url_to_fetch_previous_events_if_there_are_more_events_than_requested(
    app, client, admin
):
    set_option(app, "posts_per_page", 3)
    many(client, admin, 9)
    body = client.get(EVENTS, params={"page": "3"}).json
    assert query_of(body["previous_rest_url"])["page"] == ["2"]
    assert "next_rest_url" not in body


def test_EventArchiveCest_it_should_return_the_archive_root_rest_url_if_previous_page_is_1(app, client, admin):
    set_option(app, "posts_per_page", 3)
    many(client, admin, 6)
    previous = client.get(EVENTS, params={"page": "2"}).json["previous_rest_url"]
    assert path_of(previous) == "cal/events/v1/events"
    assert "page" not in query_of(previous)


def test_EventArchiveCest_it_should_return_404_if_trying_to_fetch_non_existing_page(app, client, admin):
    set_option(app, "posts_per_page", 3)
    many(client, admin, 3)
    response = client.get(EVENTS, params={"page": "2"})
    assert response.status_code == 404
    assert response.json == {"code": "event-archive-page-not-found",
                             "message": "The requested event archive page does not exist", "data": {"status": 404}}


def test_EventArchiveCest_it_should_allow_requesting_events_starting_after_a_date_in_the_future(client, admin):
    created = weekly(client, admin, 10)
    response = client.get(EVENTS, params={"start_date": timestamp(5 * 7 * 24 - 1), "strict_dates": "true"})
    assert ids(response) == created[4:]  # weeks 5..10 start on or after an hour before +5 weeks
    day_rounded = client.get(EVENTS, params={"start_date": timestamp(5 * 7 * 24)})
    assert len(day_rounded.json["events"]) == 6


def test_EventArchiveCest_it_should_allow_requesting_events_ending_after_a_date_in_the_future(client, admin):
    weekly(client, admin, 10)
    response = client.get(EVENTS, params={"end_date": timestamp(5 * 7 * 24 + 2)})
    assert len(response.json["events"]) == 5


def test_EventArchiveCest_it_should_return_error_if_start_date_is_in_bad_format(client):
    response = client.get(EVENTS, params={"start_date": "before my birthday"})
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"
    assert list(response.json["data"]["params"]) == ["start_date"]


def test_EventArchiveCest_it_should_return_error_if_end_date_is_in_bad_format(client):
    response = client.get(EVENTS, params={"end_date": "after my birthday"})
    assert response.status_code == 400 and list(response.json["data"]["params"]) == ["end_date"]


@pytest.mark.parametrize("name", ["page", "per_page"])
def test_EventArchiveCest_it_should_return_error_if_page_is_not_positive_int(client, name):
    for value in ("foo", "-1", "0", "foo bar"):
        response = client.get(EVENTS, params={name: value})
        assert response.status_code == 400, value
        assert response.json["message"] == f"Invalid parameter(s): {name}"


def test_EventArchiveCest_it_should_return_error_if_per_page_is_not_positive_int(client):
    for value in ("foo", "-1", "0", "foo bar", "1.5"):
        assert client.get(EVENTS, params={"per_page": value}).status_code == 400, value


def test_EventArchiveCest_it_should_allow_using_start_date_and_end_date_to_narrow_down_events(client, admin):
    weekly(client, admin, 10)
    response = client.get(EVENTS, params={"start_date": timestamp(10 * 24), "end_date": timestamp(30 * 24)})
    assert len(response.json["events"]) == 3


def test_EventArchiveCest_it_should_allow_searching_the_events(client, admin):
    foo = [make_event(client, admin, f"foo {n}")["id"] for n in range(5)]
    foo_bar = [make_event(client, admin, f"foo bar {n}")["id"] for n in range(5)]
    bar = [make_event(client, admin, f"bar {n}")["id"] for n in range(5)]
    found_foo = set(ids(client.get(EVENTS, params={"search": "foo", "per_page": "50"})))
    found_bar = set(ids(client.get(EVENTS, params={"search": "bar", "per_page": "50"})))
    assert found_foo == set(foo + foo_bar) and found_bar == set(foo_bar + bar)
    assert len(found_foo & found_bar) == 5


def test_EventArchiveCest_it_should_return_totals_in_headers_and_data(app, client, admin):
    set_option(app, "posts_per_page", 5)
    many(client, admin, 10)
    response = client.get(EVENTS)
    assert response.json["total"] == 10 and response.json["total_pages"] == 2
    assert response.headers["X-TEC-Total"] == "10" and response.headers["X-TEC-TotalPages"] == "2"
    assert "X-WP-Total" not in response.headers


def test_EventArchiveCest_should_allow_getting_events_by_status(client, accounts):
    editor = accounts["editor"]
    published = many(client, editor, 3)
    drafts = many(client, editor, 3, status="draft")
    pending = many(client, editor, 3, status="pending")
    assert ids(client.get(EVENTS, params={"status": "publish"}, user=editor)) == published
    assert set(ids(client.get(EVENTS, params={"status": "publish, draft"}, user=editor))) == set(published + drafts)
    everything = client.get(EVENTS, params={"status[]": ["publish", "draft", "pending"]}, user=editor)
    assert ids(everything) == published + drafts + pending


def test_EventArchiveCest_should_return_bad_request_when_trying_to_query_events_by_non_existing_post_status(client, accounts):
    for value in ("foo", "foo, bar", "foo, bar, publish"):
        response = client.get(EVENTS, params={"status": value}, user=accounts["editor"])
        assert response.status_code == 400 and "status" in response.json["data"]["params"], value


def test_EventArchiveCest_should_return_400_when_user_tries_to_query_events_by_status_user_cannot_read(client, admin):
    many(client, admin, 3)
    many(client, admin, 2, status="draft")
    assert len(client.get(EVENTS, params={"status": "publish"}).json["events"]) == 3
    assert client.get(EVENTS, params={"status": "publish, draft"}).status_code == 400


# -- by category, tag, featured -------------------------------------------------------------------


@pytest.mark.parametrize("name, taxonomy_param", [("categories", "categories"), ("tags", "tags")])
def test_EventByCategoryArchiveCest_it_should_return_400_if_hitting_non_existing_category(client, name, taxonomy_param):
    response = client.get(EVENTS, params={f"{name}[]": "cat1"})
    assert response.status_code == 400 and name in response.json["data"]["params"]


def _term_events(client, admin, name):
    first = [make_event(client, admin, f"In 1 {n}", **{name: "term1"})["id"] for n in range(2)]
    second = [make_event(client, admin, f"In 2 {n}", **{name: "term2"})["id"] for n in range(2)]
    make_event(client, admin, "Unrelated", **{name: "empty-one"})
    return first, second


@pytest.mark.parametrize("name", ["categories", "tags"])
def test_EventByCategoryArchiveCest_it_should_return_200_if_hitting_empty_category_archive(client, admin, name):
    event = make_event(client, admin, "Has it", **{name: "emptycat"})
    client.delete(f"{EVENTS}/{event['id']}", user=admin)
    assert_empty_archive(client.get(EVENTS, params={name: "emptycat"}))


@pytest.mark.parametrize("name", ["categories", "tags"])
def test_EventByCategoryArchiveCest_it_should_return_events_for_the_category_if_existing(client, admin, name):
    tagged = many(client, admin, 3, **{name: "cat1"})
    many(client, admin, 3)
    assert ids(client.get(EVENTS, params={name: "cat1"})) == tagged


@pytest.mark.parametrize("name", ["categories", "tags"])
def test_EventByCategoryArchiveCest_it_should_allow_pagination_on_category_archive(client, admin, name):
    tagged = many(client, admin, 4, **{name: "cat1"})
    response = client.get(EVENTS, params={name: "cat1", "per_page": "3", "page": "2"})
    assert ids(response) == tagged[3:]


@pytest.mark.parametrize("name", ["categories", "tags"])
def test_EventByCategoryArchiveCest_should_allow_selecting_events_by_an_array_of_categories(client, admin, name):
    first, second = _term_events(client, admin, name)
    assert ids(client.get(EVENTS, params={f"{name}[]": ["term1", "term2"]})) == first + second


@pytest.mark.parametrize("name", ["categories", "tags"])
def test_EventByCategoryArchiveCest_should_allow_selecting_events_by_a_comma_separated_list_of_categories(client, admin, name):
    first, second = _term_events(client, admin, name)
    one = client.get(f"{EVENTS}/{first[0]}").json[name][0]["id"]
    two = client.get(f"{EVENTS}/{second[0]}").json[name][0]["id"]
    assert ids(client.get(EVENTS, params={name: f"{one},{two}"})) == first + second
    assert ids(client.get(EVENTS, params={name: f"{one}, {two}"})) == first + second


def test_EventByFeaturedStateArchiveCest_it_should_return_200_if_no_event_is_featured(client, admin):
    many(client, admin, 2)
    assert_empty_archive(client.get(EVENTS, params={"featured": "true"}))


def test_EventByFeaturedStateArchiveCest_it_should_return_featured_events_if_filtering_by_featured_events(client, admin):
    featured = many(client, admin, 3, featured=True)
    many(client, admin, 3)
    assert ids(client.get(EVENTS, params={"featured": "true"})) == featured


def test_EventByFeaturedStateArchiveCest_it_should_return_non_featured_events_if_filtering_by_non_filtering_events(client, admin):
    many(client, admin, 3, featured=True)
    plain = many(client, admin, 3)
    assert ids(client.get(EVENTS, params={"featured": "false"})) == plain


def test_EventByFeaturedStateArchiveCest_it_should_not_return_non_published_featured_events(client, admin):
    featured = many(client, admin, 3, featured=True)
    many(client, admin, 3, featured=True, status="draft")
    assert ids(client.get(EVENTS, params={"featured": "1"})) == featured


def test_EventByFeaturedStateArchiveCest_it_should_return_non_published_featured_events_is_user_can_edit_events(client, accounts):
    editor = accounts["editor"]
    featured = many(client, editor, 3, featured=True)
    drafts = many(client, editor, 3, featured=True, status="draft")
    assert ids(client.get(EVENTS, params={"featured": "true"}, user=editor)) == featured + drafts


def test_EventByFeaturedStateArchiveCest_it_should_return_featured_and_non_featured_events_if_the_featured_query_var_is_not_specified(
    client, admin
):
    featured = many(client, admin, 3, featured=True)
    plain = many(client, admin, 3)
    assert ids(client.get(EVENTS)) == featured + plain


# -- by venue and organizer -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["venue", "organizer"])
def test_EventByVenueArchiveCest_it_should_return_bad_request_if_trying_to_get_events_by_non_numeric_venue(client, name):
    response = client.get(EVENTS, params={name: "foo"})
    assert response.status_code == 400 and name in response.json["data"]["params"]


@pytest.mark.parametrize("name", ["venue", "organizer"])
def test_EventByVenueArchiveCest_it_should_return_bad_request_if_trying_to_get_events_by_non_existing_venue_id(client, admin, name):
    event = make_event(client, admin)  # an existing id that is not a venue or organizer is refused too
    for value in ("23", str(event["id"])):
        assert client.get(EVENTS, params={name: value}).status_code == 400


def _linked(client, admin, name, label="L"):
    maker = make_venue if name == "venue" else make_organizer
    return maker(client, admin, f"{name} {label}")["id"]


@pytest.mark.parametrize("name", ["venue", "organizer"])
def test_EventByVenueArchiveCest_it_should_return_200_if_trying_to_get_events_by_venue_not_assigned_to_any_event(client, admin, name):
    linked = _linked(client, admin, name)
    many(client, admin, 2)
    assert_empty_archive(client.get(EVENTS, params={name: str(linked)}))


@pytest.mark.parametrize("name", ["venue", "organizer"])
def test_EventByVenueArchiveCest_it_should_return_events_related_to_the_venue_when_specifying_existing_venue_id(client, admin, name):
    linked = _linked(client, admin, name)
    related = many(client, admin, 3, **{name: linked})
    many(client, admin, 2)
    assert ids(client.get(EVENTS, params={name: str(linked)})) == related


@pytest.mark.parametrize("name", ["venue", "organizer"])
def test_EventByVenueArchiveCest_it_should_not_return_non_public_events_related_to_existing_venue_id(client, admin, name):
    linked = _linked(client, admin, name)
    many(client, admin, 3, status="draft", **{name: linked})
    assert_empty_archive(client.get(EVENTS, params={name: str(linked)}))


@pytest.mark.parametrize("name", ["venue", "organizer"])
def test_EventByVenueArchiveCest_it_should_return_non_public_events_related_to_existing_venue_id_if_user_can_edit_events(
    client, accounts, name
):
    editor = accounts["editor"]
    linked = _linked(client, editor, name)
    drafts = many(client, editor, 3, status="draft", **{name: linked})
    assert ids(client.get(EVENTS, params={name: str(linked)}, user=editor)) == drafts


def test_EventByOrganizerArchiveCest_should_allow_filtering_by_an_array_of_organizers_without_duplicates(client, admin):
    one, two = _linked(client, admin, "organizer", "1"), _linked(client, admin, "organizer", "2")
    only_one = many(client, admin, 3, organizer=[one])
    only_two = many(client, admin, 3, organizer=[two])
    both = many(client, admin, 3, organizer=[one, two])
    found = ids(client.get(EVENTS, params={"organizer[]": [str(one), str(two)]}))
    assert found == only_one + only_two + both


@pytest.mark.parametrize("name", ["venue", "organizer"])
@pytest.mark.parametrize("form", ["array", "csv"])
def test_EventByMultipleVenuesArchiveCest_should_allow_filtering_events_by_several_ids(client, admin, name, form):
    linked = [_linked(client, admin, name, str(n)) for n in range(4)]
    groups = [many(client, admin, 3, **{name: linked[n]}) for n in range(3)]
    for count, expected in ((1, 3), (2, 6), (3, 9), (4, 9)):
        chosen = [str(i) for i in linked[:count]]
        params = {f"{name}[]": chosen} if form == "array" else {name: ",".join(chosen)}
        found = ids(client.get(EVENTS, params=params))
        assert len(found) == expected
        assert found == [i for group in groups[:count] for i in group]


# -- by parent and by id ---------------------------------------------------------------------------


def test_EventByParentArchiveCest_should_return_400_when_trying_to_filter_events_by_bad_parent(client):
    assert client.get(EVENTS, params={"post_parent": "foo-bar"}).status_code == 400


def test_EventByParentArchiveCest_should_return_400_when_trying_to_filter_events_by_non_existing_parent(client):
    assert client.get(EVENTS, params={"post_parent": "23"}).status_code == 400


def test_EventByParentArchiveCest_should_allow_filtering_events_by_parent(app, client, admin):
    from content_support import context

    from calpress.content import items as item_service

    parent = make_event(client, admin, "Parent")
    children = [make_event(client, admin, f"Child {n}") for n in range(2)]
    make_event(client, admin, "Other")
    with app.site.write() as conn:
        for child in children:
            item = item_service.get_item(conn, child["id"])
            item_service.update_item(conn, context(app), item, item_service.ItemChanges(parent=parent["id"]))
    response = client.get(EVENTS, params={"post_parent": str(parent["id"])})
    assert response.json["total"] == 2 and response.json["total_pages"] == 1
    singles = [client.get(f"{EVENTS}/{c['id']}").json for c in children]
    assert response.json["events"] == [{k: v for k, v in single.items() if k != "json_ld"} for single in singles]


def test_EventByPostIDArchiveCest_should_return_400_if_not_all_include_values_are_positive_integers(client):
    assert client.get(EVENTS, params={"include": "foo-bar,23,89"}).status_code == 400
    assert client.get(EVENTS, params={"include[]": ["foo-bar", "23", "89"]}).status_code == 400


def test_EventByPostIDArchiveCest_should_allow_fetching_events_by_post_id(client, admin):
    created = many(client, admin, 4)
    past = make_event(client, admin, "Long ago", start_hours=-24 * 400)["id"]  # include drops the date window
    chosen = [created[0], past, created[2]]
    by_array = client.get(EVENTS, params={"include[]": [str(i) for i in chosen]})
    assert by_array.json["total"] == 3 and sorted(ids(by_array)) == sorted(chosen)
    by_csv = client.get(EVENTS, params={"include": ",".join(str(i) for i in chosen)})
    assert ids(by_csv) == ids(by_array)
    two = client.get(EVENTS, params={"include": f"{created[1]},{created[3]}"})
    assert two.json["total"] == 2


def test_EventArchive_rest_url_echoes_the_applied_arguments(client, admin):
    make_event(client, admin)
    body = client.get(EVENTS, params={"search": "Event", "featured": "false"}).json
    applied = query_of(body["rest_url"])
    assert applied["page"] == ["1"] and applied["per_page"] == ["10"] and applied["status"] == ["publish"]
    assert applied["search"] == ["Event"] and applied["featured"] == ["0"]
    assert applied["start_date"][0].endswith("00:00:00") and applied["end_date"][0].endswith("23:59:59")


def test_EventArchive_drafts_are_listed_with_the_any_status_for_editors(client, accounts):
    editor = accounts["editor"]
    draft = make_event(client, editor, "Draft", status="draft")["id"]
    body = client.get(EVENTS, user=editor).json
    assert ids_of(body) == [draft] and query_of(body["rest_url"])["status"] == ["any"]


def ids_of(body):
    return [event["id"] for event in body["events"]]


def test_geolocation_filters_are_ignored_without_the_extension(client, admin):
    created = many(client, admin, 2)
    for params in ({"geoloc": "true"}, {"geoloc": "0"}, {"geoloc_lat": "45.1", "geoloc_lng": "9.2"}):
        response = client.get(EVENTS, params=params)
        assert response.status_code == 200 and ids(response) == created


@pytest.mark.parametrize(("name", "value", "type_"), [("geoloc", "somewhere", "boolean"), ("geoloc_lat", "north", "number"),
                                                      ("geoloc_lng", "east", "number")])
def test_geolocation_filters_are_still_typed_without_the_extension(client, name, value, type_):
    """Only their effect needs the extension: the reference checks their types (issue 9, #11)."""
    response = client.get(EVENTS, params={name: value})
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param"
    detail = response.json["data"]["details"][name]
    assert detail["code"] == "rest_invalid_type" and response.json["data"]["params"][name] == f"{name} is not of type {type_}."


def test_ticketed_needs_the_ticketing_extension(client):
    response = client.get(EVENTS, params={"ticketed": "true"})
    assert response.status_code == 400
    assert response.json["data"]["details"]["ticketed"]["code"] == "event-tickets-not-active"
    assert client.get(EVENTS, params={"ticketed": "false"}).status_code == 200
