"""The calendar's domain services without HTTP: the listing service (loose filters to a typed
query and a loaded page), the input service (loose data to a typed input) and the field table of
venues and organizers. The REST handlers are thin over these; HTML views, feeds and importers
call the same functions."""

from __future__ import annotations

import datetime as dt

import pytest
from cal_support import EVENTS, make_event, make_organizer, make_venue
from content_support import context

from calpress.calendar import input as event_input
from calpress.calendar import linked_listing, listing
from calpress.calendar.events import save_event
from calpress.calendar.fields import ORGANIZER, VENUE
from calpress.content.items import Context
from calpress.rest.errors import RestError

NOW = dt.datetime(2026, 3, 15, 14, 30, 5)


def anonymous(app) -> Context:
    return Context.of(app.site, home="http://example.test")


# -- listing --------------------------------------------------------------------------------------


def test_the_default_window_statuses_and_echo(app, accounts):
    with app.site.read() as conn:
        query = listing.event_query(conn, anonymous(app), {}, now=NOW)
        editor = listing.event_query(conn, context(app, accounts["editor"].id), {"per_page": "80"}, now=NOW)
        later = listing.event_query(conn, anonymous(app), {"page": "3"}, now=NOW)
    assert (query.start, query.end) == (dt.datetime(2026, 3, 14), dt.datetime(2028, 3, 15, 23, 59, 59))
    assert query.statuses == ["publish"] and (query.page, query.per_page) == (1, 10)
    assert query.applied == (("page", "1"), ("per_page", "10"), ("start_date", "2026-03-14 00:00:00"),
                             ("end_date", "2028-03-15 23:59:59"), ("status", "publish"))
    assert editor.statuses is None and editor.per_page == 50 and ("status", "any") in editor.applied
    assert query.key() == later.key() and later.applied[0] == ("page", "3")  # one total for every page


def test_leap_day_window_and_date_rounding(app):
    with app.site.read() as conn:
        leap = listing.event_query(conn, anonymous(app), {}, now=dt.datetime(2028, 2, 29, 9))
        rounded = listing.event_query(conn, anonymous(app), {"start_date": "2026-05-01 10:00", "end_date": "2026-05-02 10:00"})
        strict = listing.event_query(conn, anonymous(app), {"start_date": "2026-05-01 10:00", "strict_dates": "yes"}, now=NOW)
        ranged = listing.event_query(conn, anonymous(app), {"starts_after": "2026-05-01 10:00"}, now=NOW)
        included = listing.event_query(conn, anonymous(app), {"include": "5, 7", "start_date": "2026-05-01"}, now=NOW)
    assert leap.end == dt.datetime(2030, 2, 28, 23, 59, 59)
    assert (rounded.start, rounded.end) == (dt.datetime(2026, 5, 1), dt.datetime(2026, 5, 2, 23, 59, 59))
    assert strict.start == dt.datetime(2026, 5, 1, 10) and strict.end == dt.datetime(2028, 3, 15, 23, 59, 59)
    # a range filter drops the default window; include drops every date filter
    assert (ranged.start, ranged.end, ranged.starts_after) == (None, None, dt.datetime(2026, 5, 1, 23, 59, 59))
    assert (included.start, included.end, included.include) == (None, None, [5, 7])
    assert [name for name, _ in included.applied] == ["page", "per_page", "status", "include"]


def test_a_page_of_loaded_events_from_loose_filters(app, client, admin):
    venue = make_venue(client, admin, "Hall")["id"]
    organizer = make_organizer(client, admin, "Org")["id"]
    first = make_event(client, admin, "First", venue=venue, organizer=[organizer], categories="Music,Arts", tags="x")
    make_event(client, admin, "Second", start_hours=48, categories=["Arts"])
    filters = {"categories": {"0": "music"}}  # categories[0]=music, as PHP-style keyed arrays arrive
    with app.site.read() as conn:
        page = listing.event_page(conn, anonymous(app), listing.event_query(conn, anonymous(app), filters))
    assert [item.id for item in page.items] == [first["id"]] and page.total == 1
    loaded = page.loaded
    assert loaded.venues[first["id"]] == [venue] and loaded.organizers[first["id"]] == [organizer]
    assert {loaded.linked[venue].title, loaded.linked[organizer].title} == {"Hall", "Org"}
    assert sorted(t.name for t in loaded.terms[first["id"]]["cal_events_cat"]) == ["Arts", "Music"]
    assert loaded.event_rows[first["id"]].start_local.strftime("%Y-%m-%d %H:%M:%S") == first["start_date"]
    assert ("categories", "music") in page.query.applied
    everything = listing.list_events(app.site, anonymous(app), {"per_page": "1", "page": "2"})
    assert [item.title for item in everything.items] == ["Second"] and everything.total == 2


def test_linked_listing_rules(app, client, admin, accounts):
    make_venue(client, admin, "Public hall", city="Paris")
    client.post("/cal/events/v1/venues", user=admin, json={"venue": "Draft hall", "status": "draft"})
    query = linked_listing.linked_query(anonymous(app), VENUE.content_type, {"has_events": "no", "search": "hall"}, now=NOW)
    assert query.statuses == ["publish"] and query.has_events is False and query.search == "hall"
    assert query.applied == (("page", "1"), ("per_page", "10"), ("has_events", "no"), ("status", "publish"))
    upcoming = linked_listing.linked_query(context(app, accounts["editor"].id), VENUE.content_type, {"only_with_upcoming": "1"}, now=NOW)
    assert upcoming.upcoming_statuses is None and upcoming.now_local == NOW and upcoming.statuses is None
    page = linked_listing.list_linked(app.site, anonymous(app), VENUE.content_type, {"search": "paris"})
    assert [item.title for item in page.items] == ["Public hall"]
    editors = linked_listing.list_linked(app.site, context(app, accounts["editor"].id), VENUE.content_type, {})
    assert sorted(item.title for item in editors.items) == ["Draft hall", "Public hall"]
    assert not listing.status_allowed(anonymous(app), VENUE.content_type, "draft")
    assert listing.status_allowed(anonymous(app), VENUE.content_type, ["publish"])
    assert listing.status_allowed(context(app, accounts["editor"].id), VENUE.content_type, "draft,any")


# -- input ----------------------------------------------------------------------------------------


def test_status_scaling_and_the_post_date(app, accounts):
    contributor, author = context(app, accounts["contributor"].id), context(app, accounts["author"].id)
    assert event_input.scaled_status(contributor, None, None) == "draft"
    assert event_input.scaled_status(contributor, "publish", None) == "pending"
    assert event_input.scaled_status(contributor, "private", None) == "private"
    assert event_input.scaled_status(author, None, None) == "publish"
    assert event_input.post_date(author, {"date_utc": "2021-05-05 05:05:05"}, None)[1] == dt.datetime(2021, 5, 5, 5, 5, 5)
    assert event_input.post_date(author, {"date": "2021-05-05 05:05:05"}, "Europe/Rome")[1] == dt.datetime(2021, 5, 5, 3, 5, 5)
    assert event_input.post_date(author, {}, None) is None


def test_an_event_input_resolves_terms_and_inline_records(app, accounts):
    ctx = context(app, accounts["editor"].id)
    data = {
        "title": "Gig", "start_date": "2030-01-01 20:00", "end_date": "2030-01-01 23:00", "cost": ["0$", "20$"],
        "categories": "Music, music,Live", "tags": "", "featured": "yes",
        "venue": {"venue": "Cellar", "city": "Rome", "country": "Italy", "province": "RM", "show_map": "0"},
        "organizer": [{"organizer": "Crew", "email": "crew@example.org"}, {"organizer": "Crew", "email": "CREW@example.org"}],
    }
    with app.site.write() as conn:
        found = event_input.event_input(conn, ctx, data)
        again = event_input.event_input(conn, ctx, data)
        item = save_event(conn, ctx, found)
    assert found.status == "publish" and found.featured is True and found.cost == ["0$", "20$"]
    assert len(found.categories) == 2 and found.tags == [] and found.categories == again.categories
    # the same venue and organizer again: reused (4.8, 4.9), one organizer for the two equal entries
    assert found.venues == again.venues and len(found.venues) == 1 and len(found.organizers) == 1
    with app.site.read() as conn:
        from calpress.calendar.events import load_items

        loaded = load_items(conn, ctx, [item])
    venue = loaded.linked[found.venues[0]]
    assert venue.meta[VENUE.flags[0].meta_key] is False and venue.meta["_VenueStateProvince"] == "RM"


def test_the_input_service_does_not_download(app, accounts):
    ctx = context(app, accounts["editor"].id)
    remote = "http://images.example.org/photo.png"
    data = {"title": "T", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", "image": remote,
            "venue": {"venue": "V", "image": remote}, "organizer": "0"}
    assert event_input.image_values(data) == [remote]
    with app.site.write() as conn, pytest.raises(RestError) as refused:
        event_input.event_input(conn, ctx, data, images={})
    assert refused.value.data["params"] == {"image": "Invalid parameter."}


def test_linked_values_as_the_validator_reads_them():
    ids = event_input.linked_value_ids
    assert ids(VENUE.content_type, "", many=False) == set()
    assert ids(VENUE.content_type, "3", many=False) == {3}
    assert ids(VENUE.content_type, "3,4", many=False) is None  # one venue only
    assert ids(ORGANIZER.content_type, {"0": "3", "1": {"organizer": "New"}, "2": {"id": 9}}, many=True) == {3}
    assert ids(ORGANIZER.content_type, [{"email": "nameless@example.org"}], many=True) is None


# -- fields ---------------------------------------------------------------------------------------


def test_one_table_gives_the_meta_the_arguments_and_the_doc(app, client):
    registered = [key for key in app.site.registry.registered_meta(app.site.registry.types[VENUE.content_type])
                  if key.startswith(("_Venue", "_Organizer"))]
    assert registered == [f.meta_key for kind in (ORGANIZER, VENUE) for f in kind.meta]
    assert registered[:3] == ["_OrganizerEmail", "_OrganizerPhone", "_OrganizerWebsite"]  # the reference's order
    doc = client.get("/cal/events/v1/doc").json
    for kind in (VENUE, ORGANIZER):
        properties = doc["components"]["schemas"][kind.name.title()]["properties"]
        assert list(properties)[-len(kind.documented):] == [f.name for f in kind.documented]
        create = doc["paths"][f"/{kind.name}s"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
        arguments = list(create["schema"]["properties"])
        assert arguments[6:-1] == [f.name for f in kind.arguments]
    assert [f.name for f in VENUE.arguments][:2] == ["show_map", "show_map_link"]
    assert [f.name for f in VENUE.arguments][-1] == "website"
    assert client.get(EVENTS).status_code == 200
