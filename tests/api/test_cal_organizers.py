"""cal/events/v1 organizers: every organizer scenario of calendar-api.md 10.4 and the organizer
lines of 10.1 AuthorizationCest, the recorded answers (spec/examples/calendar-venues-organizers.md
and calendar-errors.md), bad input for every write parameter (nothing written), and the same record
read and edited through /cms/v2/cal_organizer."""

from __future__ import annotations

import html

import pytest
from cal_linked_support import (
    ORGANIZER,
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
from cal_support import EVENTS, ORGANIZERS, make_event

# -- OrganizerArchiveCest -------------------------------------------------------------------------


def test_OrganizerArchiveCest_it_should_return_empty_array_if_there_are_no_organizers(client):
    _empty(client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_a_list_of_organizers_if_there_are_organizers_on_the_site(app, client):
    _lists_pages(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_allow_defining_the_number_of_posts_per_pages_to_return(app, client):
    _per_page(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_limit_the_maximum_number_of_posts_per_pages_to_return_to_50_at_most(app, client):
    _caps_per_page(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_the_identity_rest_url_for_the_root_archive_url(app, client):
    _identity_rest_url(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_the_rest_url_to_fetch_next_organizers_if_there_are_more_organizers_than_requested(
    app, client
):
    _next_rest_url(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_the_rest_url_to_fetch_previous_organizers_if_there_are_more_organizers_than_requested(
    app, client
):
    _previous_rest_url(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_the_archive_root_rest_url_if_previous_page_is_1(app, client):
    _previous_is_root(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_404_if_trying_to_fetch_non_existing_page(app, client):
    _page_beyond_last(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_return_error_if_page_is_not_positive_int(client):
    _bad_number(client, ORGANIZER, "page")


def test_OrganizerArchiveCest_it_should_return_error_if_per_page_is_not_positive_int(client):
    _bad_number(client, ORGANIZER, "per_page")


def test_OrganizerArchiveCest_it_should_return_totals_in_headers_and_data(app, client):
    _totals(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_not_show_non_public_organizers(app, client):
    _hides_drafts(app, client, ORGANIZER)


def test_OrganizerArchiveCest_it_should_show_non_public_organizers_to_user_with_authorization(app, client, accounts):
    _shows_drafts(app, client, accounts, ORGANIZER)


def test_OrganizerArchiveCest_should_allow_getting_organizers_by_status(app, client, accounts):
    _by_status(app, client, accounts, ORGANIZER)


def test_OrganizerArchiveCest_should_return_bad_request_when_trying_to_query_organizers_by_non_existing_post_status(
    app, client, accounts
):
    _unknown_status(app, client, accounts, ORGANIZER)


def test_OrganizerArchiveCest_should_return_400_when_user_tries_to_query_organizers_by_status_user_cannot_read(app, client):
    _status_anonymous(app, client, ORGANIZER)


# -- OrganizerArchiveSearchCest -------------------------------------------------------------------


def test_OrganizerArchiveSearchCest_it_should_allow_searching_organizers_by_title(app, client):
    search_by_post_field(app, client, ORGANIZER, "title", "Organizer")


def test_OrganizerArchiveSearchCest_it_should_allow_searching_organizers_by_description(app, client):
    search_by_post_field(app, client, ORGANIZER, "content", "Content")


def test_OrganizerArchiveSearchCest_it_should_allow_searching_organizers_by_excerpt(app, client):
    search_by_post_field(app, client, ORGANIZER, "excerpt", "Excerpt")


def test_OrganizerArchiveSearchCest_it_should_allow_searching_organizers_by_custom_fields(app, client):
    have(app, ORGANIZER, title="Organizer Foo", content="lorem dolor", excerpt="sed nunqua", meta={
        "_OrganizerPhone": "111111111", "_OrganizerEmail": "one@common.com", "_OrganizerWebsite": "http://one.com"})
    have(app, ORGANIZER, title="Organizer Bar", content="dolor sit", excerpt="altera via", meta={
        "_OrganizerPhone": "111112222", "_OrganizerEmail": "two@common.com", "_OrganizerWebsite": "http://two.com"})
    have(app, ORGANIZER, title="Organizer Baz", content="sit nunqua", excerpt="Caesar docet", meta={
        "_OrganizerPhone": "222223333", "_OrganizerEmail": "three@three.com", "_OrganizerWebsite": "http://three.com"})
    search_counts(client, ORGANIZER, {"1111": 2, "111111111": 1, "222223333": 1, "three@three.com": 1, "common.com": 2,
                                      "http://one.com": 1, "@common.com": 2})


# -- OrganizerByEmptyArchiveCest ------------------------------------------------------------------


def test_OrganizerByEmptyArchiveCest_it_should_allow_searching_organizers_by_empty_status(app, client, admin):
    by_empty_status(app, client, admin, ORGANIZER)


def test_OrganizerByEmptyArchiveCest_it_should_return_200_if_no_organizers_are_related_to_the_event(app, client, admin):
    by_empty_none_related(app, client, admin, ORGANIZER)


def test_OrganizerByEmptyArchiveCest_it_should_return_200_if_no_organizers_have_no_events(app, client, admin):
    by_empty_none_without(app, client, admin, ORGANIZER)


def test_OrganizerByEmptyArchiveCest_it_should_mark_organizer_as_empty_if_draft_or_pending_events_are_assigned_to_it(
    app, client, admin
):
    by_empty_drafts_do_not_count(app, client, admin, ORGANIZER)


def test_organizers_with_private_future_or_trashed_events_are_not_empty(app, client, admin):
    by_empty_counts_every_other_status(app, client, admin, ORGANIZER)


# -- OrganizerByEventArchiveCest ------------------------------------------------------------------


def test_OrganizerByEventArchiveCest_it_should_allow_searching_organizers_by_event(app, client, admin):
    by_event(app, client, admin, ORGANIZER)


def test_OrganizerByEventArchiveCest_it_should_return_bad_request_if_event_is_not_a_valid_event_id(app, client, admin):
    by_event_not_an_event(app, client, admin, ORGANIZER)


def test_OrganizerByEventArchiveCest_it_should_return_200_if_no_organizers_are_related_to_the_event(app, client, admin):
    by_event_none_related(app, client, admin, ORGANIZER, with_others=True)


def test_OrganizerByEventArchiveCest_it_should_return_200_if_there_are_no_organizers_in_db(app, client, admin):
    by_event_none_related(app, client, admin, ORGANIZER, with_others=False)


def test_OrganizerByEventArchiveCest_it_should_not_return_non_public_organizers_related_to_event(app, client, admin):
    by_event_draft_hidden(app, client, admin, ORGANIZER)


def test_OrganizerByEventArchiveCest_it_should_show_non_public_organizers_to_authorized_user(app, client, admin, accounts):
    by_event_draft_shown_to_editors(app, client, admin, accounts, ORGANIZER)


# -- OrganizerByUpcomingArchiveCest ---------------------------------------------------------------


def test_OrganizerByUpcomingArchiveCest_it_should_allow_searching_organizers_by_upcoming_events(app, client, admin):
    by_upcoming(app, client, admin, ORGANIZER)


def test_OrganizerByUpcomingArchiveCest_it_should_return_200_if_no_organizers_have_upcoming_events(app, client, admin):
    by_upcoming_none(app, client, admin, ORGANIZER)


def test_OrganizerByUpcomingArchiveCest_it_should_mark_a_organizer_as_with_upcoming_events_depending_on_the_user_auth(
    app, client, admin, accounts
):
    by_upcoming_depends_on_user(app, client, admin, accounts, ORGANIZER, ("private", "private"))


def test_OrganizerByUpcomingArchiveCest_it_should_exclude_draft_and_pending_events_from_marking_a_organizer_with_upcoming_events(
    app, client, admin, accounts
):
    by_upcoming_depends_on_user(app, client, admin, accounts, ORGANIZER, ("draft", "pending"))


# -- OrganizerSingleCest --------------------------------------------------------------------------


@needs_media
def test_OrganizerSingleCest_it_should_allow_getting_a_organizer_by_its_post_id(app, client):
    single_read(app, client, ORGANIZER, store_image(app), by_slug=False)


def test_OrganizerSingleCest_it_should_return_404_if_trying_to_get_organizer_by_bad_post_id(client):
    single_bad_ids(client, ORGANIZER)


def test_OrganizerSingleCest_it_should_return_bad_request_if_trying_to_get_organizer_by_non_existing_organizer_post_id(
    app, client
):
    single_unknown_id(app, client, ORGANIZER)


def test_OrganizerSingleCest_it_should_return_401_when_trying_to_get_organizer_that_is_not_public(app, client, accounts):
    single_draft_refused(app, client, accounts, ORGANIZER, by_slug=False)


def test_OrganizerSingleCest_it_should_return_the_organizer_if_user_can_read_organizer_that_is_not_public(
    app, client, accounts
):
    single_draft_shown(app, client, accounts, ORGANIZER, by_slug=False)


# -- OrganizerSingleSlugCest ----------------------------------------------------------------------


@needs_media
def test_OrganizerSingleSlugCest_it_should_allow_getting_a_organizer_by_its_post_id(app, client):
    single_read(app, client, ORGANIZER, store_image(app), by_slug=True)


def test_OrganizerSingleSlugCest_it_should_return_bad_request_if_trying_to_get_organizer_by_non_existing_organizer_post_id(
    client
):
    single_unknown_slug(client, ORGANIZER)


def test_OrganizerSingleSlugCest_it_should_return_401_when_trying_to_get_organizer_that_is_not_public(app, client, accounts):
    single_draft_refused(app, client, accounts, ORGANIZER, by_slug=True)


def test_OrganizerSingleSlugCest_it_should_return_the_organizer_if_user_can_read_organizer_that_is_not_public(
    app, client, accounts
):
    single_draft_shown(app, client, accounts, ORGANIZER, by_slug=True)


# -- OrganizerInsertionCest -----------------------------------------------------------------------

META = {"email": "john@company.com", "phone": "Organizer phone", "website": "http://organizer.com"}


def test_OrganizerInsertionCest_it_should_return_401_if_user_cannot_insert_organizers(app, client, accounts):
    before = count_posts(app)
    response = client.post(ORGANIZERS, **form({"organizer": "A organizer"}))
    assert response.status_code == 401 and response.json["code"] == "rest_forbidden"
    refused = client.post(ORGANIZERS, user=accounts["subscriber"], json={"organizer": "Rec Nope"})
    assert refused.status_code == 403 and refused.json["code"] == "rest_forbidden"
    assert count_posts(app) == before


def test_OrganizerInsertionCest_it_should_allow_inserting_a_organizer(app, client, admin):
    response = client.post(ORGANIZERS, user=admin, **form({"organizer": "A organizer"}))
    assert response.status_code == 201
    assert response.json["organizer"] == "A organizer" and response.json["id"] > 0
    row = stored(app, response.json["id"])
    assert row.type == "cal_organizer" and row.title == "A organizer" and row.status == "publish"


def test_OrganizerInsertionCest_it_should_allow_inserting_post_fields_along_with_the_organizer(
    app, client, admin, make_account
):
    write_post_fields(app, client, admin, make_account, ORGANIZER, ORGANIZERS, 201)


def test_OrganizerInsertionCest_it_should_return_400_if_organizer_is_empty(app, client, admin):
    write_empty_name(app, client, admin, ORGANIZER, ORGANIZERS)


def test_OrganizerInsertionCest_it_should_return_400_if_passing_bad_post_field_values(app, client, admin):
    write_bad_post_fields(app, client, admin, ORGANIZER, ORGANIZERS)


def test_OrganizerInsertionCest_it_should_allow_inserting_optional_meta_along_with_the_organizer(app, client, admin):
    response = client.post(ORGANIZERS, user=admin, **form({"organizer": "A organizer", **META}))
    assert response.status_code == 201
    assert response.json["organizer"] == "A organizer" and {name: response.json[name] for name in META} == META
    meta = stored(app, response.json["id"]).meta
    assert meta["_OrganizerEmail"] == "john@company.com" and meta["_OrganizerWebsite"] == "http://organizer.com"


@needs_media
def test_OrganizerInsertionCest_it_should_allow_inserting_the_image_as_an_attachment_id_along_with_the_organizer(
    app, client, admin
):
    image = store_image(app)
    response = client.post(ORGANIZERS, user=admin, **form({"organizer": "A organizer", "image": str(image)}))
    assert response.status_code == 201 and response.json["image"]["id"] == image


@needs_media
def test_OrganizerInsertionCest_it_should_allow_inserting_th_image_as_a_url_along_with_the_organizer(app, client, admin):
    image = store_image(app)
    response = client.post(ORGANIZERS, user=admin, **form({"organizer": "A organizer", "image": image_url(app, image)}))
    assert response.status_code == 201 and response.json["image"]["id"] == image


def test_OrganizerInsertionCest_it_should_avoid_inserting_a_organizer_with_identical_fields_twice(app, client, admin):
    insert_identical_twice(app, client, admin, ORGANIZER, "An organizer")


def test_OrganizerInsertionCest_it_should_avoid_inserting_duplicates_when_providing_custom_fields_information(
    app, client, admin
):
    full = {"organizer": "A organizer", "phone": "11223344", "email": "doe@anizer.org", "website": "http://anizer.org"}
    first = client.post(ORGANIZERS, user=admin, **form(full))
    assert first.status_code == 201
    before = count_posts(app)
    for fields in (
        full,
        {"organizer": "A organizer", "email": "doe@anizer.org", "website": "http://anizer.org"},
        {"organizer": "A organizer", "phone": "11223344", "website": "http://anizer.org"},
        {"organizer": "A organizer", "website": "http://anizer.org"},
        {"organizer": "a organizer", "email": "DOE@anizer.org"},
    ):
        response = client.post(ORGANIZERS, user=admin, **form(fields))
        assert response.status_code == 201 and response.json["id"] == first.json["id"], fields
    assert count_posts(app) == before
    for other in ({"email": "someone@else.org"}, {"phone": "999"}, {"website": "http://elsewhere.org"}):
        response = client.post(ORGANIZERS, user=admin, json={"organizer": "A organizer", **other})
        assert response.status_code == 201 and response.json["id"] != first.json["id"], other


# -- OrganizerUpdateCest --------------------------------------------------------------------------


def test_OrganizerUpdateCest_it_should_return_401_if_user_cannot_update_organizers(app, client):
    organizer = have(app, ORGANIZER)
    response = client.post(f"{ORGANIZERS}/{organizer}", **form({"organizer": "A organizer"}))
    assert response.status_code == 401 and response.json["code"] == "rest_forbidden"
    assert stored(app, organizer).title != "A organizer"


def test_OrganizerUpdateCest_it_should_allow_updating_a_organizer(app, client, admin):
    organizer = have(app, ORGANIZER)
    for method, name in (("POST", "A organizer"), ("PUT", "Put organizer"), ("PATCH", "Patched organizer")):
        response = client.request(method, f"{ORGANIZERS}/{organizer}", user=admin, **form({"organizer": name}))
        assert response.status_code == 200 and response.json["id"] == organizer and response.json["organizer"] == name
        assert stored(app, organizer).title == name


def test_OrganizerUpdateCest_it_should_allow_updating_post_fields_along_with_the_organizer(app, client, admin, make_account):
    write_post_fields(app, client, admin, make_account, ORGANIZER, f"{ORGANIZERS}/{have(app, ORGANIZER)}", 200)


def test_OrganizerUpdateCest_it_should_return_400_if_organizer_is_empty(app, client, admin):
    organizer = have(app, ORGANIZER)
    write_empty_name(app, client, admin, ORGANIZER, f"{ORGANIZERS}/{organizer}")
    assert stored(app, organizer).title.startswith("Organizer ")


def test_OrganizerUpdateCest_it_should_return_400_if_passing_bad_post_field_values(app, client, admin):
    organizer = have(app, ORGANIZER)
    write_bad_post_fields(app, client, admin, ORGANIZER, f"{ORGANIZERS}/{organizer}")
    assert stored(app, organizer).title.startswith("Organizer ")


def test_OrganizerUpdateCest_it_should_allow_updating_optional_meta_along_with_the_organizer(app, client, admin):
    organizer = have(app, ORGANIZER)
    response = client.post(f"{ORGANIZERS}/{organizer}", user=admin, **form({"organizer": "A organizer", **META}))
    assert response.status_code == 200
    assert response.json["organizer"] == "A organizer" and {name: response.json[name] for name in META} == META


def test_OrganizerUpdateCest_it_should_allow_updating_optional_meta_as_empty_along_with_the_organizer(app, client, admin):
    organizer = have(app, ORGANIZER)
    response = client.post(f"{ORGANIZERS}/{organizer}", user=admin, **form({"organizer": "A organizer",
                                                                             **dict.fromkeys(META, "")}))
    assert response.status_code == 200 and response.json["organizer"] == "A organizer"
    for name in META:
        assert name not in response.json, name
    assert not any(stored(app, organizer).meta.get(key) for key in ("_OrganizerEmail", "_OrganizerPhone", "_OrganizerWebsite"))


def test_OrganizerUpdateCest_it_should_allow_updating_without_optional_meta_along_with_the_organizer(app, client, admin):
    organizer = have(app, ORGANIZER)
    kept = {name: stored(app, organizer).meta[key] for name, key in (("email", "_OrganizerEmail"), ("phone", "_OrganizerPhone"),
                                                                     ("website", "_OrganizerWebsite"))}
    response = client.post(f"{ORGANIZERS}/{organizer}", user=admin, **form({"organizer": "A organizer"}))
    assert response.status_code == 200 and response.json["organizer"] == "A organizer"
    assert {name: response.json[name] for name in kept} == kept


@needs_media
def test_OrganizerUpdateCest_it_should_allow_updating_the_image_as_an_attachment_id_along_with_the_organizer(
    app, client, admin
):
    organizer, image = have(app, ORGANIZER), store_image(app)
    response = client.post(f"{ORGANIZERS}/{organizer}", user=admin, **form({"organizer": "A organizer", "image": str(image)}))
    assert response.status_code == 200 and response.json["image"]["id"] == image
    cleared = client.post(f"{ORGANIZERS}/{organizer}", user=admin, json={"image": ""})
    assert cleared.status_code == 200 and "image" not in cleared.json


@needs_media
def test_OrganizerUpdateCest_it_should_allow_updating_th_image_as_a_url_along_with_the_organizer(app, client, admin):
    organizer, image = have(app, ORGANIZER), store_image(app)
    response = client.post(f"{ORGANIZERS}/{organizer}", user=admin,
                           **form({"organizer": "A organizer", "image": image_url(app, image)}))
    assert response.status_code == 200 and response.json["image"]["id"] == image


def test_OrganizerUpdateCest_it_should_allow_updating_a_organizer_to_match_an_existing_one(app, client, admin):
    first, second = have(app, ORGANIZER, title="Organizer 1"), have(app, ORGANIZER, title="Organizer 2")
    assert client.post(f"{ORGANIZERS}/{second}", user=admin, **form({"organizer": "Organizer 1"})).status_code == 200
    assert stored(app, first).title == "Organizer 1" and stored(app, second).title == "Organizer 1"
    assert stored(app, second).type == "cal_organizer"


# -- OrganizerDeletionCest ------------------------------------------------------------------------


def test_OrganizerDeletionCest_it_should_return_400_if_trying_to_delete_organizer_passing_bad_organizer_id(app, client):
    delete_bad_id(app, client, ORGANIZER)


def test_OrganizerDeletionCest_it_should_return_401_if_user_cannot_delete_organizers(app, client):
    delete_anonymous(app, client, ORGANIZER)


def test_OrganizerDeletionCest_it_should_return_200_when_deleting_organizer(app, client, admin):
    delete_ok(app, client, admin, ORGANIZER)


def test_OrganizerDeletionCest_it_should_return_410_when_re_deleting_a_deleted_organizer(app, client, admin):
    delete_trashed(app, client, admin, ORGANIZER)


def test_OrganizerDeletionCest_it_should_remove_the_organizer_from_related_events_when_deleting_it(app, client, admin):
    delete_unlinks(app, client, admin, ORGANIZER)


# -- AuthorizationCest (organizers) ---------------------------------------------------------------


def test_AuthorizationCest_contributor_cannot_edit_admin_organizer(app, client, accounts, admin):
    organizer = have(app, ORGANIZER, title="Admin Organizer", author=admin.id)
    contributor = accounts["contributor"]
    response = client.put(f"{ORGANIZERS}/{organizer}", user=contributor, **form({"organizer": "Hacked Organizer"}))
    assert response.status_code == 403
    slug = stored(app, organizer).slug
    assert client.put(f"{ORGANIZERS}/by-slug/{slug}", user=contributor, json={"organizer": "Hacked"}).status_code == 403
    assert stored(app, organizer).title == "Admin Organizer"


def test_AuthorizationCest_contributor_cannot_delete_admin_organizer(app, client, accounts, admin):
    organizer = have(app, ORGANIZER, title="Admin Organizer", author=admin.id)
    contributor = accounts["contributor"]
    assert client.delete(f"{ORGANIZERS}/{organizer}", user=contributor, params={"force": "true"}).status_code == 403
    assert client.delete(f"{ORGANIZERS}/by-slug/{stored(app, organizer).slug}", user=contributor).status_code == 403
    assert stored(app, organizer).status == "publish"


def test_contributors_organizers_wait_for_review(client, accounts):
    contributor = accounts["contributor"]
    draft = client.post(ORGANIZERS, user=contributor, json={"organizer": "My organizer"})
    assert draft.status_code == 201 and draft.json["status"] == "draft"
    pending = client.post(ORGANIZERS, user=contributor, json={"organizer": "My other organizer", "status": "publish"})
    assert pending.status_code == 201 and pending.json["status"] == "pending"
    edited = client.put(f"{ORGANIZERS}/{draft.json['id']}", user=contributor, json={"phone": "123"})
    assert edited.status_code == 200 and edited.json["phone"] == "123"


# -- recorded answers -----------------------------------------------------------------------------

POST_KEYS = ["id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url"]
GLOBAL_KEYS = ["global_id", "global_id_lineage"]
RECORDED = {"organizer": "Rec Org 052945", "description": "A recorded organizer", "email": "rec-org@example.org",
            "phone": "+1 555 0199", "website": "https://example.org/org"}


def test_recorded_organizer_list(client, admin):
    client.post(ORGANIZERS, user=admin, json={"organizer": "Conf organizer plain"})
    client.post(ORGANIZERS, user=admin, json={"organizer": "Conf organizer full", "phone": "555-0101",
                                              "website": "http://example.org/org", "email": "org@example.org"})
    response = client.get(ORGANIZERS, params={"per_page": "1"})
    assert response.status_code == 200 and response.headers["Allow"] == "GET"
    assert response.headers["X-TEC-Total"] == "2" and response.headers["X-TEC-TotalPages"] == "2"
    body = response.json
    assert list(body) == ["organizers", "rest_url", "next_rest_url", "total", "total_pages"]
    assert body["rest_url"] == "http://example.test/cal/events/v1/organizers/?page=1&per_page=1&status=publish"
    assert body["next_rest_url"] == "http://example.test/cal/events/v1/organizers/?per_page=1&status=publish&page=2"
    full = body["organizers"][0]
    assert list(full) == [*POST_KEYS, "organizer", "slug", "phone", "website", "email", *GLOBAL_KEYS]
    assert full["url"] == "http://example.test/organizer/conf-organizer-full/"
    plain = client.get(ORGANIZERS, params={"per_page": "1", "page": "2"}).json["organizers"][0]
    assert list(plain) == [*POST_KEYS, "organizer", "slug", *GLOBAL_KEYS]


def test_recorded_organizer_create_get_update_delete(client, admin):
    created = client.post(ORGANIZERS, user=admin, json=RECORDED)
    assert created.status_code == 201 and created.headers["Allow"] == "GET, POST"
    organizer = created.json["id"]
    keys = [*POST_KEYS, "organizer", "description", "slug", "phone", "website", "email"]
    assert list(created.json) == [*keys, *GLOBAL_KEYS]
    assert created.json["description"] == "<p>A recorded organizer</p>" and created.json["slug"] == "rec-org-052945"
    assert created.json["author"] == str(admin.id)

    for path in (f"{ORGANIZERS}/{organizer}", f"{ORGANIZERS}/by-slug/rec-org-052945"):
        single = client.get(path)
        assert single.status_code == 200 and single.headers["Allow"] == "GET"
        assert list(single.json) == [*keys, "json_ld", *GLOBAL_KEYS]
        ld = single.json["json_ld"]
        assert list(ld) == ["@type", "name", "description", "url", "telephone", "email", "sameAs"]
        assert ld["@type"] == "Person" and ld["name"] == "Rec Org 052945"
        assert ld["description"] == "&lt;p&gt;A recorded organizer&lt;/p&gt;\\n"
        assert ld["url"] == ld["sameAs"] == "https://example.org/org" and ld["telephone"] == "+1 555 0199"
        assert html.unescape(ld["email"]) == "rec-org@example.org"

    updated = client.post(f"{ORGANIZERS}/{organizer}", user=admin, json={"phone": "+1 555 0200"})
    assert updated.status_code == 200 and updated.headers["Allow"] == "GET, DELETE, POST, PUT, PATCH"
    assert list(updated.json) == [*keys, *GLOBAL_KEYS]
    assert updated.json == {**created.json, "phone": "+1 555 0200", "modified": updated.json["modified"],
                            "modified_utc": updated.json["modified_utc"]}

    deleted = client.delete(f"{ORGANIZERS}/{organizer}", user=admin)
    assert deleted.status_code == 200
    assert deleted.json["status"] == "trash" and deleted.json["slug"] == "rec-org-052945__trashed"
    assert deleted.json["url"] == f"http://example.test/?post_type=cal_organizer&p={organizer}"


def test_recorded_organizer_errors(app, client, admin):
    before = count_posts(app)
    nameless = client.post(ORGANIZERS, user=admin, json={"email": "x@example.org"})
    assert nameless.status_code == 400
    assert nameless.json == {"code": "rest_missing_callback_param", "message": "Missing parameter(s): organizer",
                             "data": {"status": 400, "params": ["organizer"]}}
    unknown = client.get(f"{ORGANIZERS}/999999")
    assert unknown.status_code == 400
    assert unknown.json == {"code": "rest_invalid_param", "message": "Invalid parameter(s): id",
                            "data": {"status": 400, "params": {"id": "Invalid parameter."}, "details": []}}
    assert count_posts(app) == before


# -- bad input: every write parameter, nothing written --------------------------------------------

BAD_VALUES = [
    ("author", 23), ("author", "foo"), ("author", ""), ("date", "foo"), ("date_utc", "foo"), ("organizer", ""),
    ("organizer", 12), ("description", 12), ("status", "kinda_thinking_about_it"), ("status", 12), ("website", "foo"),
    ("website", 12), ("image", "foo bar"), ("image", "23"), ("phone", 12), ("phone", ["x"]), ("email", 12),
    ("email", ["x"]),
]


@pytest.mark.parametrize("method", ["create", "update"])
def test_bad_values_for_every_write_parameter_write_nothing(app, client, admin, method):
    organizer = have(app, ORGANIZER, title="Untouched", meta={"_OrganizerEmail": "kept@example.org"})
    path = ORGANIZERS if method == "create" else f"{ORGANIZERS}/{organizer}"
    before, row = count_posts(app), stored(app, organizer)
    for name, value in BAD_VALUES:
        response = client.post(path, user=admin, json={"organizer": "A organizer", "email": "changed@example.org", name: value})
        assert response.status_code == 400, (name, value)
        assert response.json["code"] == "rest_invalid_param", (name, value)
        assert response.json["data"]["params"] == {name: "Invalid parameter."}, (name, value)
    assert count_posts(app) == before and stored(app, organizer) == row


# -- the e-mail is an address (issue 29, item 14) --------------------------------------------------

# What WordPress's is_email() refuses, the rule of The Events Calendar's own REST API (its Email
# parameter type): a line break or a control character could end a property of the .ics exports.
BAD_EMAILS = ["not an address", "rec@example.org\r\nX-INJECTED:1", "rec@example.org\n", "rec\x01@example.org",
              "rec@localhost", "@example.org"]


@pytest.mark.parametrize("email", BAD_EMAILS)
def test_an_email_that_is_no_address_is_refused_and_nothing_written(app, client, admin, email):
    organizer = have(app, ORGANIZER, title="Untouched", meta={"_OrganizerEmail": "kept@example.org"})
    before, row = count_posts(app), stored(app, organizer)
    for path in (ORGANIZERS, f"{ORGANIZERS}/{organizer}"):
        response = client.post(path, user=admin, json={"organizer": "Loose", "email": email})
        assert response.status_code == 400, (path, response.json)
        assert response.json["code"] == "rest_invalid_param"
        assert response.json["message"] == "Invalid parameter(s): email"
        assert response.json["data"]["status"] == 400 and response.json["data"]["params"] == {"email": "Invalid parameter."}
    # Inline on an event: the organizer value is refused, no event and no organizer made.
    response = client.post(EVENTS, user=admin, json={"title": "Inline", "start_date": "2030-01-01 10:00:00",
                                                     "end_date": "2030-01-01 11:00:00",
                                                     "organizer": [{"organizer": "Inline Org", "email": email}]})
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param", response.json
    assert response.json["data"]["params"] == {"organizer": "Invalid parameter."}
    # Through /cms/v2 meta.
    response = client.post(f"/cms/v2/cal_organizer/{organizer}", user=admin, json={"meta": {"_OrganizerEmail": email}})
    assert response.status_code == 400 and response.json["code"] == "rest_invalid_param", response.json
    assert count_posts(app) == before and stored(app, organizer) == row


def test_an_address_or_nothing_is_taken_as_the_email(client, admin):
    made = client.post(ORGANIZERS, user=admin, json={"organizer": "Mailed", "email": "first.last+tag@mail.example.org"})
    assert made.status_code == 201 and made.json["email"] == "first.last+tag@mail.example.org"
    cleared = client.post(f"{ORGANIZERS}/{made.json['id']}", user=admin, json={"email": ""})
    assert cleared.status_code == 200 and "email" not in cleared.json  # empty fields are left out


def test_a_stored_bad_email_cannot_break_the_ics_exports(app, client, admin):
    """An e-mail stored before the check (or by another path): the single event's, the list's
    and the month's .ics answer 200, whole, with no ORGANIZER for it and nothing injected."""
    import icalendar

    from calpress.content import items as item_service

    bad = client.post(ORGANIZERS, user=admin, json={"organizer": "Bad Mail", "email": "bad@example.org"}).json
    good = client.post(ORGANIZERS, user=admin, json={"organizer": "Good Mail", "email": "good@example.org"}).json
    with app.site.write() as conn:
        item_service.merge_meta(conn, bad["id"], {"_OrganizerEmail": "bad@example.org\r\nX-INJECTED:1\x07"})
    event = make_event(client, admin, "Broken Mail", organizer=[str(bad["id"])])
    other = make_event(client, admin, "Fine Mail", start_hours=26, organizer=[str(good["id"])])
    month = event["start_date"][:7]
    home = "http://example.test"
    for path in (event["url"].removeprefix(home) + "?ical=1", "/events/ical/", "/events/list/?ical=1",
                 f"/events/month/{month}/?ical=1"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code, response.text[:300])
        assert response.headers["content-type"].startswith("text/calendar")
        assert b"X-INJECTED" not in response.content and b"\x07" not in response.content
        found = {str(e["SUMMARY"]): e for e in icalendar.Calendar.from_ical(response.content).walk("VEVENT")}
        assert "ORGANIZER" not in found["Broken Mail"], path
        if "Fine Mail" in found:
            assert str(found["Fine Mail"]["ORGANIZER"]) == "MAILTO:good@example.org"
    assert other["id"]


# -- the same organizer through /cms/v2/cal_organizer ---------------------------------------------


def test_an_organizer_is_read_and_edited_through_cms_v2(app, client, admin):
    organizer = client.post(ORGANIZERS, user=admin, json=RECORDED).json
    event = make_event(client, admin, organizer=[str(organizer["id"])])
    cms = client.get(f"/cms/v2/cal_organizer/{organizer['id']}", user=admin, params={"context": "edit"})
    assert cms.status_code == 200 and cms.json["type"] == "cal_organizer"
    assert cms.json["title"]["raw"] == "Rec Org 052945"
    meta = cms.json["meta"]
    assert meta["_OrganizerEmail"] == "rec-org@example.org" and meta["_OrganizerPhone"] == "+1 555 0199"
    assert meta["_OrganizerWebsite"] == "https://example.org/org"
    assert client.get(f"{ORGANIZERS}/{organizer['id']}").json["email"] == "rec-org@example.org"  # now cached

    edited = client.post(f"/cms/v2/cal_organizer/{organizer['id']}", user=admin, json={
        "title": "Renamed organizer", "meta": {"_OrganizerEmail": "new@example.org", "_OrganizerPhone": ""}})
    assert edited.status_code == 200, edited.json

    shown = client.get(f"{ORGANIZERS}/{organizer['id']}").json
    assert shown["organizer"] == "Renamed organizer" and shown["email"] == "new@example.org" and "phone" not in shown
    assert shown["website"] == "https://example.org/org"
    embedded = client.get(f"{EVENTS}/{event['id']}").json["organizer"]
    assert [(o["organizer"], o["email"]) for o in embedded] == [("Renamed organizer", "new@example.org")]

    again = client.post(f"{ORGANIZERS}/{organizer['id']}", user=admin, json={"website": "https://other.example"}).json
    assert again["website"] == "https://other.example" and again["email"] == "new@example.org"
    cms_meta = client.get(f"/cms/v2/cal_organizer/{organizer['id']}", user=admin).json["meta"]
    assert cms_meta["_OrganizerWebsite"] == "https://other.example"

    # Trashed through cms/v2, the organizer leaves its events as when trashed through cal/events/v1.
    assert client.delete(f"/cms/v2/cal_organizer/{organizer['id']}", user=admin).status_code == 200
    assert_empty(client.get(ORGANIZERS), ORGANIZER)
    assert linked_ids(app, event["id"], ORGANIZER) == [] and "_EventOrganizerID" not in stored(app, event["id"]).meta
    assert client.get(EVENTS, params={"organizer": str(organizer["id"])}, user=admin).json["events"] == []
