"""cal/events/v1 venues: every venue scenario of calendar-api.md 10.4 and the venue lines of 10.1
AuthorizationCest, the recorded answers (spec/examples/calendar-venues-organizers.md and
calendar-errors.md), bad input for every write parameter (nothing written), and the same record
read and edited through /cms/v2/cal_venue."""

from __future__ import annotations

import pytest
from cal_linked_support import (
    VENUE,
    assert_empty,
    by_empty_counts_every_other_status,
    by_empty_drafts_do_not_count,
    by_empty_none_related,
    by_empty_none_without,
    by_empty_status,
    by_event,
    by_event_draft_hidden,
    by_event_draft_shown_to_editors,
    by_event_none_related,
    by_event_not_an_event,
    by_upcoming,
    by_upcoming_depends_on_user,
    by_upcoming_none,
    count_posts,
    delete_anonymous,
    delete_bad_id,
    delete_ok,
    delete_trashed,
    delete_unlinks,
    form,
    have,
    image_url,
    insert_identical_twice,
    linked_ids,
    needs_media,
    search_by_post_field,
    search_counts,
    single_bad_ids,
    single_draft_refused,
    single_draft_shown,
    single_read,
    single_unknown_id,
    single_unknown_slug,
    store_image,
    stored,
    write_bad_post_fields,
    write_empty_name,
    write_post_fields,
)
from cal_linked_support import archive_bad_number as _bad_number
from cal_linked_support import archive_by_status as _by_status
from cal_linked_support import archive_caps_per_page as _caps_per_page
from cal_linked_support import archive_empty as _empty
from cal_linked_support import archive_hides_drafts as _hides_drafts
from cal_linked_support import archive_identity_rest_url as _identity_rest_url
from cal_linked_support import archive_lists_pages as _lists_pages
from cal_linked_support import archive_next_rest_url as _next_rest_url
from cal_linked_support import archive_page_beyond_last as _page_beyond_last
from cal_linked_support import archive_per_page as _per_page
from cal_linked_support import archive_previous_is_root as _previous_is_root
from cal_linked_support import archive_previous_rest_url as _previous_rest_url
from cal_linked_support import archive_shows_drafts_to_editors as _shows_drafts
from cal_linked_support import archive_status_anonymous as _status_anonymous
from cal_linked_support import archive_totals as _totals
from cal_linked_support import archive_unknown_status as _unknown_status
from cal_support import EVENTS, VENUES, make_event

# -- VenueArchiveCest -----------------------------------------------------------------------------


def test_VenueArchiveCest_it_should_return_empty_array_if_there_are_no_venues(client):
    _empty(client, VENUE)


def test_VenueArchiveCest_it_should_return_a_list_of_venues_if_there_are_venues_on_the_site(app, client):
    _lists_pages(app, client, VENUE)


def test_VenueArchiveCest_it_should_allow_defining_the_number_of_posts_per_pages_to_return(app, client):
    _per_page(app, client, VENUE)


def test_VenueArchiveCest_it_should_limit_the_maximum_number_of_posts_per_pages_to_return_to_50_at_most(app, client):
    _caps_per_page(app, client, VENUE)


def test_VenueArchiveCest_it_should_return_the_identity_rest_url_for_the_root_archive_url(app, client):
    _identity_rest_url(app, client, VENUE)


def test_VenueArchiveCest_it_should_return_the_rest_url_to_fetch_next_venues_if_there_are_more_venues_than_requested(
    app, client
):
    _next_rest_url(app, client, VENUE)


def test_VenueArchiveCest_it_should_return_the_rest_url_to_fetch_previous_venues_if_there_are_more_venues_than_requested(
    app, client
):
    _previous_rest_url(app, client, VENUE)


def test_VenueArchiveCest_it_should_return_the_archive_root_rest_url_if_previous_page_is_1(app, client):
    _previous_is_root(app, client, VENUE)


def test_VenueArchiveCest_it_should_return_404_if_trying_to_fetch_non_existing_page(app, client):
    _page_beyond_last(app, client, VENUE)


def test_VenueArchiveCest_it_should_return_error_if_page_is_not_positive_int(client):
    _bad_number(client, VENUE, "page")


def test_VenueArchiveCest_it_should_return_error_if_per_page_is_not_positive_int(client):
    _bad_number(client, VENUE, "per_page")


def test_VenueArchiveCest_it_should_return_totals_in_headers_and_data(app, client):
    _totals(app, client, VENUE)


def test_VenueArchiveCest_it_should_not_show_non_public_venues(app, client):
    _hides_drafts(app, client, VENUE)


def test_VenueArchiveCest_it_should_show_non_public_venues_to_user_with_authorization(app, client, accounts):
    _shows_drafts(app, client, accounts, VENUE)


def test_VenueArchiveCest_should_allow_getting_venues_by_status(app, client, accounts):
    _by_status(app, client, accounts, VENUE)


def test_VenueArchiveCest_should_return_bad_request_when_trying_to_query_venues_by_non_existing_post_status(
    app, client, accounts
):
    _unknown_status(app, client, accounts, VENUE)


def test_VenueArchiveCest_should_return_400_when_user_tries_to_query_venues_by_status_user_cannot_read(app, client):
    _status_anonymous(app, client, VENUE)


# -- VenueArchiveSearchCest -----------------------------------------------------------------------


def test_VenueArchiveSearchCest_it_should_allow_searching_venues_by_title(app, client):
    search_by_post_field(app, client, VENUE, "title", "Venue")


def test_VenueArchiveSearchCest_it_should_allow_searching_venues_by_description(app, client):
    search_by_post_field(app, client, VENUE, "content", "Content")


def test_VenueArchiveSearchCest_it_should_allow_searching_venues_by_excerpt(app, client):
    search_by_post_field(app, client, VENUE, "excerpt", "Excerpt")


def test_VenueArchiveSearchCest_it_should_allow_searching_venues_by_custom_fields(app, client):
    have(app, VENUE, title="Venue Foo", content="lorem dolor", excerpt="sed nunqua", meta={
        "_VenueAddress": "221b Baker Street", "_VenueCity": "London", "_VenueProvince": "Greater London",
        "_VenueState": "England", "_VenueStateProvince": "England, Greater London", "_VenueZip": "223345",
        "_VenuePhone": "111111"})
    have(app, VENUE, title="Venue Bar", content="dolor sit", excerpt="altera via", meta={
        "_VenueAddress": "10, Piccadilly Circus", "_VenueCity": "London", "_VenueProvince": "Greater London",
        "_VenueState": "England", "_VenueStateProvince": "England, Greater London", "_VenueZip": "223345",
        "_VenuePhone": "22222222"})
    have(app, VENUE, title="Venue Baz", content="sit nunqua", excerpt="Caesar docet", meta={
        "_VenueAddress": "100, Avenue du Temple", "_VenueCity": "Paris", "_VenueProvince": "Ile de France",
        "_VenueState": "France", "_VenueStateProvince": "France, Ile de France", "_VenueZip": "23443",
        "_VenuePhone": "3333333"})
    search_counts(client, VENUE, {"london": 2, "3333333": 1, "temple avenue": 1, "greater london": 2, "france": 1,
                                  "france, ile de": 1, "223345": 2})


# -- VenueByEmptyArchiveCest ----------------------------------------------------------------------


def test_VenueByEmptyArchiveCest_it_should_allow_searching_venues_by_empty_status(app, client, admin):
    by_empty_status(app, client, admin, VENUE)


def test_VenueByEmptyArchiveCest_it_should_return_200_if_no_venues_are_related_to_the_event(app, client, admin):
    by_empty_none_related(app, client, admin, VENUE)


def test_VenueByEmptyArchiveCest_it_should_return_200_if_no_venues_have_no_events(app, client, admin):
    by_empty_none_without(app, client, admin, VENUE)


def test_VenueByEmptyArchiveCest_it_should_mark_venue_as_empty_if_draft_or_pending_events_are_assigned_to_it(
    app, client, admin
):
    by_empty_drafts_do_not_count(app, client, admin, VENUE)


def test_venues_with_private_future_or_trashed_events_are_not_empty(app, client, admin):
    by_empty_counts_every_other_status(app, client, admin, VENUE)


# -- VenueByEventArchiveCest ----------------------------------------------------------------------


def test_VenueByEventArchiveCest_it_should_allow_searching_venues_by_event(app, client, admin):
    by_event(app, client, admin, VENUE)


def test_VenueByEventArchiveCest_it_should_return_bad_request_if_event_is_not_a_valid_event_id(app, client, admin):
    by_event_not_an_event(app, client, admin, VENUE)


def test_VenueByEventArchiveCest_it_should_return_200_if_no_venues_are_related_to_the_event(app, client, admin):
    by_event_none_related(app, client, admin, VENUE, with_others=True)


def test_VenueByEventArchiveCest_it_should_return_404_if_there_are_no_venues_in_db(app, client, admin):
    by_event_none_related(app, client, admin, VENUE, with_others=False)


def test_VenueByEventArchiveCest_it_should_not_return_non_public_venues_related_to_event(app, client, admin):
    by_event_draft_hidden(app, client, admin, VENUE)


def test_VenueByEventArchiveCest_it_should_show_non_public_venues_to_authorized_user(app, client, admin, accounts):
    by_event_draft_shown_to_editors(app, client, admin, accounts, VENUE)


# -- VenueByUpcomingArchiveCest -------------------------------------------------------------------


def test_VenueByUpcomingArchiveCest_it_should_allow_searching_venues_by_upcoming_events(app, client, admin):
    by_upcoming(app, client, admin, VENUE)


def test_VenueByUpcomingArchiveCest_it_should_return_200_if_no_venues_have_upcoming_events(app, client, admin):
    by_upcoming_none(app, client, admin, VENUE)


def test_VenueByUpcomingArchiveCest_it_should_mark_a_venue_as_with_upcoming_events_depending_on_the_user_auth(
    app, client, admin, accounts
):
    by_upcoming_depends_on_user(app, client, admin, accounts, VENUE, ("private", "private"))


def test_VenueByUpcomingArchiveCest_it_should_exclude_draft_and_pending_events_from_marking_a_venue_with_upcoming_events(
    app, client, admin, accounts
):
    by_upcoming_depends_on_user(app, client, admin, accounts, VENUE, ("draft", "pending"))


# -- VenueSingleCest ------------------------------------------------------------------------------


@needs_media
def test_VenueSingleCest_it_should_allow_getting_a_venue_by_its_post_id(app, client):
    single_read(app, client, VENUE, store_image(app), by_slug=False)


def test_VenueSingleCest_it_should_return_404_if_trying_to_get_venue_by_bad_post_id(client):
    single_bad_ids(client, VENUE)


def test_VenueSingleCest_it_should_return_bad_request_if_trying_to_get_venue_by_non_existing_venue_post_id(app, client):
    single_unknown_id(app, client, VENUE)


def test_VenueSingleCest_it_should_return_403_when_trying_to_get_venue_that_is_not_public(app, client, accounts):
    single_draft_refused(app, client, accounts, VENUE, by_slug=False)


def test_VenueSingleCest_it_should_return_the_venue_if_user_can_read_venue_that_is_not_public(app, client, accounts):
    single_draft_shown(app, client, accounts, VENUE, by_slug=False)


# -- VenueSingleSlugCest --------------------------------------------------------------------------


@needs_media
def test_VenueSingleSlugCest_it_should_allow_getting_a_venue_by_its_post_id(app, client):
    single_read(app, client, VENUE, store_image(app), by_slug=True)


def test_VenueSingleSlugCest_it_should_return_bad_request_if_trying_to_get_venue_by_non_existing_venue_post_id(client):
    single_unknown_slug(client, VENUE)


def test_VenueSingleSlugCest_it_should_return_403_when_trying_to_get_venue_that_is_not_public(app, client, accounts):
    single_draft_refused(app, client, accounts, VENUE, by_slug=True)


def test_VenueSingleSlugCest_it_should_return_the_venue_if_user_can_read_venue_that_is_not_public(app, client, accounts):
    single_draft_shown(app, client, accounts, VENUE, by_slug=True)


# -- VenueInsertionCest ---------------------------------------------------------------------------

META = {
    "address": "Venue address", "city": "Venue city", "country": "Venue country", "province": "Venue province",
    "state": "Venue state", "zip": "Venue zip", "phone": "Venue phone", "stateprovince": "Venue stateprovince",
    "website": "http://venue.com",
}


def test_VenueInsertionCest_it_should_return_401_if_user_cannot_insert_venues(app, client, accounts):
    before = count_posts(app)
    response = client.post(VENUES, **form({"venue": "A venue"}))
    assert response.status_code == 401 and response.json["code"] == "rest_forbidden"
    refused = client.post(VENUES, user=accounts["subscriber"], json={"venue": "Rec Nope"})
    assert refused.status_code == 403
    assert refused.json == {"code": "rest_forbidden", "message": "Sorry, you are not allowed to do that.", "data": {"status": 403}}
    assert refused.headers["Allow"] == "GET"
    assert count_posts(app) == before


def test_VenueInsertionCest_it_should_allow_inserting_a_venue(app, client, admin):
    response = client.post(VENUES, user=admin, **form({"venue": "A venue"}))
    assert response.status_code == 201
    assert response.json["venue"] == "A venue" and response.json["id"] > 0
    row = stored(app, response.json["id"])
    assert row.type == "cal_venue" and row.title == "A venue" and row.status == "publish"


def test_VenueInsertionCest_it_should_allow_inserting_post_fields_along_with_the_venue(app, client, admin, make_account):
    write_post_fields(app, client, admin, make_account, VENUE, VENUES, 201)


def test_VenueInsertionCest_it_should_return_400_if_venue_is_empty(app, client, admin):
    write_empty_name(app, client, admin, VENUE, VENUES)


def test_VenueInsertionCest_it_should_return_400_if_passing_bad_post_field_values(app, client, admin):
    write_bad_post_fields(app, client, admin, VENUE, VENUES)


def test_VenueInsertionCest_it_should_allow_inserting_optional_meta_along_with_the_venue(app, client, admin):
    response = client.post(VENUES, user=admin, **form({"venue": "A venue", "show_map": "false", "show_map_link": "false",
                                                       **META}))
    assert response.status_code == 201
    body = response.json
    assert body["venue"] == "A venue" and body["show_map"] is False and body["show_map_link"] is False
    assert {name: body[name] for name in META} == META
    meta = stored(app, body["id"]).meta
    assert meta["_VenueCity"] == "Venue city" and meta["_VenueStateProvince"] == "Venue stateprovince"


@needs_media
def test_VenueInsertionCest_it_should_allow_inserting_the_image_as_an_attachment_id_along_with_the_venue(app, client, admin):
    image = store_image(app)
    response = client.post(VENUES, user=admin, **form({"venue": "A venue", "image": str(image)}))
    assert response.status_code == 201 and response.json["image"]["id"] == image
    assert int(stored(app, response.json["id"]).meta["_thumbnail_id"]) == image


@needs_media
def test_VenueInsertionCest_it_should_allow_inserting_th_image_as_a_url_along_with_the_venue(app, client, admin):
    image = store_image(app)
    response = client.post(VENUES, user=admin, **form({"venue": "A venue", "image": image_url(app, image)}))
    assert response.status_code == 201 and response.json["image"]["id"] == image


def test_VenueInsertionCest_it_should_avoid_inserting_a_venue_with_identical_fields_twice(app, client, admin):
    insert_identical_twice(app, client, admin, VENUE, "A venue")


def test_VenueInsertionCest_it_should_avoid_inserting_duplicates_when_providing_custom_fields_information(app, client, admin):
    full = {"venue": "A venue", "description": "A venue description", "address": "A venue address", "city": "A venue city",
            "country": "A venue country", "province": "A venue province", "state": "A venue state",
            "stateprovince": "A venue stateprovince", "zip": "A venue zip", "phone": "11223344"}
    first = client.post(VENUES, user=admin, **form(full))
    assert first.status_code == 201
    before = count_posts(app)
    for fields in (
        full,
        {"venue": "a venue", "country": "a venue country", "province": "a venue province", "state": "a venue state",
         "phone": "11223344"},
        {"venue": "a venue", "description": "a venue description", "phone": "11223344"},
        {"venue": "a venue", "description": "a venue description", "address": "a venue address", "city": "a venue city",
         "country": "a venue country"},
    ):
        response = client.post(VENUES, user=admin, **form(fields))
        assert response.status_code == 201 and response.json["id"] == first.json["id"], fields
        assert response.json["city"] == "A venue city"  # the stored record is returned as it was
    assert count_posts(app) == before
    other_city = client.post(VENUES, user=admin, **form({"venue": "A venue", "city": "Elsewhere"}))
    assert other_city.status_code == 201 and other_city.json["id"] != first.json["id"]


# -- VenueUpdateCest ------------------------------------------------------------------------------


def test_VenueUpdateCest_it_should_return_401_if_user_cannot_update_venues(app, client):
    venue = have(app, VENUE)
    response = client.post(f"{VENUES}/{venue}", **form({"venue": "A venue"}))
    assert response.status_code == 401 and response.json["code"] == "rest_forbidden"
    assert stored(app, venue).title != "A venue"


def test_VenueUpdateCest_it_should_allow_updating_a_venue(app, client, admin):
    venue = have(app, VENUE)
    for method, name in (("POST", "A venue"), ("PUT", "Put venue"), ("PATCH", "Patched venue")):
        response = client.request(method, f"{VENUES}/{venue}", user=admin, **form({"venue": name}))
        assert response.status_code == 200 and response.json["id"] == venue and response.json["venue"] == name
        assert stored(app, venue).title == name


def test_VenueUpdateCest_it_should_allow_updating_post_fields_along_with_the_venue(app, client, admin, make_account):
    write_post_fields(app, client, admin, make_account, VENUE, f"{VENUES}/{have(app, VENUE)}", 200)


def test_VenueUpdateCest_it_should_return_400_if_venue_is_empty(app, client, admin):
    venue = have(app, VENUE)
    write_empty_name(app, client, admin, VENUE, f"{VENUES}/{venue}")
    assert stored(app, venue).title.startswith("Venue ")


def test_VenueUpdateCest_it_should_return_400_if_passing_bad_post_field_values(app, client, admin):
    venue = have(app, VENUE)
    write_bad_post_fields(app, client, admin, VENUE, f"{VENUES}/{venue}")
    assert stored(app, venue).title.startswith("Venue ")


def test_VenueUpdateCest_it_should_allow_updating_optional_meta_along_with_the_venue(app, client, admin):
    venue = have(app, VENUE)
    response = client.post(f"{VENUES}/{venue}", user=admin, **form({"venue": "A venue", "show_map": "false",
                                                                     "show_map_link": "false", **META}))
    assert response.status_code == 200
    body = response.json
    assert body["venue"] == "A venue" and body["show_map"] is False and body["show_map_link"] is False
    assert {name: body[name] for name in META} == META


def test_VenueUpdateCest_it_should_allow_updating_optional_meta_as_empty_along_with_the_venue(app, client, admin):
    venue = have(app, VENUE)
    response = client.post(f"{VENUES}/{venue}", user=admin, **form({
        "venue": "A venue", "show_map": "false", "show_map_link": "false", **dict.fromkeys(META, "")}))
    assert response.status_code == 200
    body = response.json
    assert body["venue"] == "A venue" and body["show_map"] is False and body["show_map_link"] is False
    for name in META:
        assert name not in body, name
    assert not any(stored(app, venue).meta.get(key) for key in ("_VenueCity", "_VenueURL", "_VenueStateProvince"))


@needs_media
def test_VenueUpdateCest_it_should_allow_updating_the_image_as_an_attachment_id_along_with_the_venue(app, client, admin):
    venue, image = have(app, VENUE), store_image(app)
    response = client.post(f"{VENUES}/{venue}", user=admin, **form({"venue": "A venue", "image": str(image)}))
    assert response.status_code == 200 and response.json["image"]["id"] == image
    cleared = client.post(f"{VENUES}/{venue}", user=admin, json={"image": ""})
    assert cleared.status_code == 200 and "image" not in cleared.json and not stored(app, venue).meta.get("_thumbnail_id")


@needs_media
def test_VenueUpdateCest_it_should_allow_updating_th_image_as_a_url_along_with_the_venue(app, client, admin):
    venue, image = have(app, VENUE), store_image(app)
    response = client.post(f"{VENUES}/{venue}", user=admin, **form({"venue": "A venue", "image": image_url(app, image)}))
    assert response.status_code == 200 and response.json["image"]["id"] == image


def test_VenueUpdateCest_it_should_allow_updating_a_venue_to_match_an_existing_one(app, client, admin):
    first, second = have(app, VENUE, title="Venue 1"), have(app, VENUE, title="Venue 2")
    assert client.post(f"{VENUES}/{second}", user=admin, **form({"venue": "Venue 1"})).status_code == 200
    assert stored(app, first).title == "Venue 1" and stored(app, second).title == "Venue 1"
    assert stored(app, second).type == "cal_venue"


# -- VenueDeletionCest ----------------------------------------------------------------------------


def test_VenueDeletionCest_it_should_return_400_if_trying_to_delete_venue_passing_bad_venue_id(app, client):
    delete_bad_id(app, client, VENUE)


def test_VenueDeletionCest_it_should_return_401_if_user_cannot_delete_venues(app, client):
    delete_anonymous(app, client, VENUE)


def test_VenueDeletionCest_it_should_return_200_when_deleting_venue(app, client, admin):
    delete_ok(app, client, admin, VENUE)


def test_VenueDeletionCest_it_should_return_410_when_re_deleting_a_deleted_venue(app, client, admin):
    delete_trashed(app, client, admin, VENUE)


def test_VenueDeletionCest_it_should_remove_the_venue_from_related_events_when_deleting_it(app, client, admin):
    delete_unlinks(app, client, admin, VENUE)


# -- AuthorizationCest (venues) -------------------------------------------------------------------


def test_AuthorizationCest_contributor_cannot_edit_admin_venue(app, client, accounts, admin):
    venue = have(app, VENUE, title="Admin Venue", author=admin.id)
    contributor = accounts["contributor"]
    assert client.put(f"{VENUES}/{venue}", user=contributor, **form({"venue": "Hacked Venue"})).status_code == 403
    slug = stored(app, venue).slug
    assert client.put(f"{VENUES}/by-slug/{slug}", user=contributor, json={"venue": "Hacked Venue"}).status_code == 403
    assert stored(app, venue).title == "Admin Venue"


def test_AuthorizationCest_contributor_cannot_delete_admin_venue(app, client, accounts, admin):
    venue = have(app, VENUE, title="Admin Venue", author=admin.id)
    contributor = accounts["contributor"]
    assert client.delete(f"{VENUES}/{venue}", user=contributor, params={"force": "true"}).status_code == 403
    assert client.delete(f"{VENUES}/by-slug/{stored(app, venue).slug}", user=contributor).status_code == 403
    assert stored(app, venue).status == "publish"


def test_contributors_venues_wait_for_review(app, client, accounts):
    """Status scaling (4.1, with the events type's publishing right): a contributor's venue is a
    draft, or pending when it asks to be published; a contributor may edit it while unpublished."""
    contributor = accounts["contributor"]
    draft = client.post(VENUES, user=contributor, json={"venue": "My venue"})
    assert draft.status_code == 201 and draft.json["status"] == "draft" and draft.json["author"] == str(contributor.id)
    pending = client.post(VENUES, user=contributor, json={"venue": "My other venue", "status": "publish"})
    assert pending.status_code == 201 and pending.json["status"] == "pending"
    edited = client.put(f"{VENUES}/{draft.json['id']}", user=contributor, json={"city": "Mine"})
    assert edited.status_code == 200 and edited.json["city"] == "Mine"
    assert client.delete(f"{VENUES}/{draft.json['id']}", user=contributor).status_code == 200


def test_updates_by_slug(app, client, admin):
    venue = have(app, VENUE, title="Sluggish")
    slug = stored(app, venue).slug
    response = client.post(f"{VENUES}/by-slug/{slug}", user=admin, json={"venue": "Renamed", "city": "Lyon"})
    assert response.status_code == 200 and response.json["id"] == venue
    assert response.json["venue"] == "Renamed" and response.json["city"] == "Lyon" and response.json["slug"] == slug
    deleted = client.delete(f"{VENUES}/by-slug/{slug}", user=admin)
    assert deleted.status_code == 200 and deleted.json["id"] == venue and deleted.json["status"] == "trash"


# -- recorded answers -----------------------------------------------------------------------------

POST_KEYS = ["id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url"]
TAIL_KEYS = ["show_map", "show_map_link", "global_id", "global_id_lineage"]
RECORDED = {
    "venue": "Rec Venue 052945", "description": "A recorded venue", "address": "1 Main St", "city": "Springfield",
    "country": "United States", "state": "IL", "zip": "62701", "phone": "+1 555 0100",
    "website": "https://example.org/venue", "show_map": "true",
}


def test_recorded_venue_list(app, client, admin):
    for n in range(3):
        make = client.post(VENUES, user=admin, json={"venue": f"Conf venue {n}"})
        assert make.status_code == 201
    response = client.get(VENUES, params={"per_page": "2"})
    assert response.status_code == 200
    assert response.headers["X-TEC-Total"] == "3" and response.headers["X-TEC-TotalPages"] == "2"
    assert response.headers["Allow"] == "GET"
    body = response.json
    assert list(body) == ["venues", "rest_url", "next_rest_url", "total", "total_pages"]
    assert body["rest_url"] == "http://example.test/cal/events/v1/venues/?page=1&per_page=2&status=publish"
    assert body["next_rest_url"] == "http://example.test/cal/events/v1/venues/?per_page=2&status=publish&page=2"
    first = body["venues"][0]
    assert list(first) == [*POST_KEYS, "venue", "slug", *TAIL_KEYS]
    assert first["author"] == str(admin.id) and first["venue"] == "Conf venue 2" and first["slug"] == "conf-venue-2"
    assert first["url"] == "http://example.test/venue/conf-venue-2/"
    assert first["global_id_lineage"] == [first["global_id"]] == [f"example.test?id={first['id']}"]
    second = client.get(VENUES, params={"per_page": "2", "page": "2"}).json
    assert list(second) == ["venues", "rest_url", "previous_rest_url", "total", "total_pages"]
    assert second["previous_rest_url"] == "http://example.test/cal/events/v1/venues/?per_page=2&status=publish"


def test_recorded_venue_create_get_update_delete(app, client, admin):
    created = client.post(VENUES, user=admin, json=RECORDED)
    assert created.status_code == 201 and created.headers["Allow"] == "GET, POST"
    body = created.json
    venue = body["id"]
    fields = ["address", "city", "country", "state", "zip", "phone", "website", "stateprovince"]
    assert list(body) == [*POST_KEYS, "venue", "description", "slug", *fields, *TAIL_KEYS]
    assert body["description"] == "<p>A recorded venue</p>" and body["slug"] == "rec-venue-052945"
    assert body["stateprovince"] == "IL" and body["show_map"] is True and body["show_map_link"] is True
    assert {k: body[k] for k in RECORDED if k not in ("description", "show_map")} == {
        k: v for k, v in RECORDED.items() if k not in ("description", "show_map")}

    for path in (f"{VENUES}/{venue}", f"{VENUES}/by-slug/rec-venue-052945"):
        single = client.get(path)
        assert single.status_code == 200 and single.headers["Allow"] == "GET"
        assert list(single.json) == [*POST_KEYS, "venue", "description", "slug", *fields, "json_ld", *TAIL_KEYS]
        assert single.json["json_ld"] == {
            "@type": "Place", "name": "Rec Venue 052945", "description": "&lt;p&gt;A recorded venue&lt;/p&gt;\\n", "url": "",
            "address": {"@type": "PostalAddress", "streetAddress": "1 Main St", "addressLocality": "Springfield",
                        "addressRegion": "IL", "postalCode": "62701", "addressCountry": "United States"},
            "telephone": "+1 555 0100", "sameAs": "https://example.org/venue",
        }

    updated = client.post(f"{VENUES}/{venue}", user=admin, json={"city": "Shelbyville", "show_map_link": "false"})
    assert updated.status_code == 200 and updated.headers["Allow"] == "GET, DELETE, POST, PUT, PATCH"
    # As the reference: an update that names neither stateprovince nor a state or province clears it.
    assert list(updated.json) == [*POST_KEYS, "venue", "description", "slug", *fields[:-1], *TAIL_KEYS]
    assert updated.json["city"] == "Shelbyville" and updated.json["show_map"] is True
    assert updated.json["show_map_link"] is False and updated.json["state"] == "IL"

    deleted = client.delete(f"{VENUES}/{venue}", user=admin)
    assert deleted.status_code == 200 and deleted.headers["Allow"] == "GET, DELETE, POST, PUT, PATCH"
    assert deleted.json["status"] == "trash" and deleted.json["slug"] == "rec-venue-052945__trashed"
    assert deleted.json["url"] == f"http://example.test/?post_type=cal_venue&p={venue}"


def test_recorded_venue_errors(app, client, admin):
    before = count_posts(app)
    typed = client.post(VENUES, user=admin, json={"venue": "Rec Venue Bool 053001", "show_map": True})
    assert typed.status_code == 400
    assert typed.json == {
        "code": "rest_invalid_param", "message": "Invalid parameter(s): show_map",
        "data": {"status": 400, "params": {"show_map": "show_map is not of type string."},
                 "details": {"show_map": {"code": "rest_invalid_type", "message": "show_map is not of type string.",
                                          "data": {"param": "show_map"}}}},
    }
    nameless = client.post(VENUES, user=admin, json={"city": "Nowhere"})
    assert nameless.status_code == 400
    assert nameless.json == {"code": "rest_missing_callback_param", "message": "Missing parameter(s): venue",
                             "data": {"status": 400, "params": ["venue"]}}
    unknown = client.get(f"{VENUES}/999999")
    assert unknown.status_code == 400 and unknown.headers["Allow"] == "GET"
    assert unknown.json == {"code": "rest_invalid_param", "message": "Invalid parameter(s): id",
                            "data": {"status": 400, "params": {"id": "Invalid parameter."}, "details": []}}
    assert count_posts(app) == before


# -- bad input: every write parameter, nothing written --------------------------------------------

BAD_VALUES = [
    ("author", 23), ("author", "foo"), ("author", ""), ("date", "foo"), ("date_utc", "foo"), ("venue", ""), ("venue", 12),
    ("description", 12), ("status", "kinda_thinking_about_it"), ("status", 12), ("website", "foo"),
    ("website", "http://exa mple.com"), ("image", "foo bar"), ("image", "23"),
    *[(name, value) for name in ("address", "city", "country", "province", "state", "zip", "phone", "stateprovince")
      for value in (12, ["x"])],
]
TYPED = [("show_map", True), ("show_map", 1), ("show_map_link", False), ("show_map_link", ["1"])]


@pytest.mark.parametrize("method", ["create", "update"])
def test_bad_values_for_every_write_parameter_write_nothing(app, client, admin, method):
    venue = have(app, VENUE, title="Untouched", meta={"_VenueCity": "Kept"})
    path = VENUES if method == "create" else f"{VENUES}/{venue}"
    before, row = count_posts(app), stored(app, venue)
    for name, value in BAD_VALUES:
        response = client.post(path, user=admin, json={"venue": "A venue", "city": "Changed", name: value})
        assert response.status_code == 400, (name, value)
        assert response.json["code"] == "rest_invalid_param", (name, value)
        assert response.json["data"]["params"] == {name: "Invalid parameter."}, (name, value)
    for name, value in TYPED:
        response = client.post(path, user=admin, json={"venue": "A venue", name: value})
        assert response.status_code == 400, (name, value)
        assert response.json["data"]["params"] == {name: f"{name} is not of type string."}, (name, value)
        assert response.json["data"]["details"][name]["code"] == "rest_invalid_type"
    assert count_posts(app) == before and stored(app, venue) == row


def test_bad_values_are_checked_before_permissions(app, client, accounts):
    venue = have(app, VENUE)
    assert client.post(f"{VENUES}/{venue}", json={"website": "foo"}).status_code == 400
    assert client.post(f"{VENUES}/{venue}", json={"website": "http://ok.example"}).status_code == 401
    assert client.post(VENUES, user=accounts["subscriber"], json={"venue": "x", "author": "23"}).status_code == 400


def test_show_map_strings_are_read_as_flags(app, client, admin):
    off = client.post(VENUES, user=admin, json={"venue": "Flags", "show_map": "no", "show_map_link": "0"}).json
    assert off["show_map"] is False and off["show_map_link"] is False
    on = client.post(f"{VENUES}/{off['id']}", user=admin, json={"show_map": "yes", "show_map_link": "1"}).json
    assert on["show_map"] is True and on["show_map_link"] is True
    client.post(f"{VENUES}/{off['id']}", user=admin, json={"show_map": "false", "show_map_link": "false"})
    # As the reference saves a venue: an update that leaves a flag out turns it back on.
    again = client.post(f"{VENUES}/{off['id']}", user=admin, json={"show_map_link": "false"}).json
    assert again["show_map"] is True and again["show_map_link"] is False
    assert stored(app, off["id"]).meta["_VenueShowMap"] is True


@pytest.mark.parametrize(("fields", "expected"), [
    ({"state": "IL", "country": ""}, "IL"),
    ({"state": "IL", "country": "United States", "stateprovince": ""}, "IL"),
    ({"state": "IL", "province": "Ontario", "country": "Canada"}, "Ontario"),
    ({"state": "IL", "province": "Ontario", "country": "Canada", "stateprovince": "Given"}, "Given"),
    ({"city": "Nowhere"}, None),
])
def test_stateprovince_is_derived_when_not_given(app, client, admin, fields, expected):
    body = client.post(VENUES, user=admin, json={"venue": "Derived", **fields}).json
    assert body.get("stateprovince") == expected
    assert stored(app, body["id"]).meta.get("_VenueStateProvince") == expected


# -- the same venue through /cms/v2/cal_venue -----------------------------------------------------


def test_a_venue_is_read_and_edited_through_cms_v2(app, client, admin):
    venue = client.post(VENUES, user=admin, json=RECORDED).json
    event = make_event(client, admin, venue=str(venue["id"]))
    cms = client.get(f"/cms/v2/cal_venue/{venue['id']}", user=admin, params={"context": "edit"})
    assert cms.status_code == 200 and cms.json["type"] == "cal_venue"
    assert cms.json["title"]["raw"] == "Rec Venue 052945" and cms.json["slug"] == "rec-venue-052945"
    meta = cms.json["meta"]
    assert meta["_VenueCity"] == "Springfield" and meta["_VenueAddress"] == "1 Main St" and meta["_VenueState"] == "IL"
    assert meta["_VenueURL"] == "https://example.org/venue" and meta["_VenueStateProvince"] == "IL"
    assert meta["_VenueShowMap"] is True
    assert client.get(f"/cms/v2/posts/{venue['id']}").status_code == 404
    assert client.get(f"{VENUES}/{venue['id']}").json["city"] == "Springfield"  # now in the answer cache

    edited = client.post(f"/cms/v2/cal_venue/{venue['id']}", user=admin, json={
        "title": "Renamed venue", "meta": {"_VenueCity": "Shelbyville", "_VenuePhone": "", "_VenueShowMap": False}})
    assert edited.status_code == 200, edited.json
    assert edited.json["meta"]["_VenueCity"] == "Shelbyville"

    shown = client.get(f"{VENUES}/{venue['id']}").json
    assert shown["venue"] == "Renamed venue" and shown["city"] == "Shelbyville" and "phone" not in shown
    assert shown["show_map"] is False and shown["address"] == "1 Main St"
    listed = client.get(VENUES).json["venues"]
    assert [v["city"] for v in listed if v["id"] == venue["id"]] == ["Shelbyville"]
    embedded = client.get(f"{EVENTS}/{event['id']}").json["venue"]
    assert embedded["venue"] == "Renamed venue" and embedded["city"] == "Shelbyville"

    again = client.post(f"{VENUES}/{venue['id']}", user=admin, json={"zip": "99999"}).json
    assert again["zip"] == "99999"
    assert client.get(f"/cms/v2/cal_venue/{venue['id']}", user=admin).json["meta"]["_VenueZip"] == "99999"

    # Trashed through cms/v2, the venue leaves its events as when trashed through cal/events/v1.
    trashed = client.delete(f"/cms/v2/cal_venue/{venue['id']}", user=admin)
    assert trashed.status_code == 200
    assert_empty(client.get(VENUES), VENUE)
    assert client.delete(f"{VENUES}/{venue['id']}", user=admin).status_code == 410
    assert linked_ids(app, event["id"], VENUE) == [] and "_EventVenueID" not in stored(app, event["id"]).meta
    assert client.get(EVENTS, params={"venue": str(venue["id"])}, user=admin).json["events"] == []
    assert client.get(f"{EVENTS}/{event['id']}").json["venue"] == []
