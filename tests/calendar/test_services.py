"""The calendar's domain services without HTTP: the listing service (loose filters to a typed
query and a loaded page). The REST handlers are thin over it; HTML views, feeds and importers
call the same functions."""

from __future__ import annotations

import datetime as dt

from cal_support import make_event, make_organizer, make_venue
from content_support import context

from calpress.calendar import listing
from calpress.calendar.fields import VENUE
from calpress.content.items import Context

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
    query = listing.linked_query(anonymous(app), VENUE.content_type, {"has_events": "no", "search": "hall"}, now=NOW)
    assert query.statuses == ["publish"] and query.has_events is False and query.search == "hall"
    assert query.applied == (("page", "1"), ("per_page", "10"), ("has_events", "no"), ("status", "publish"))
    upcoming = listing.linked_query(context(app, accounts["editor"].id), VENUE.content_type, {"only_with_upcoming": "1"}, now=NOW)
    assert upcoming.upcoming_statuses is None and upcoming.now_local == NOW and upcoming.statuses is None
    page = listing.list_linked(app.site, anonymous(app), VENUE.content_type, {"search": "paris"})
    assert [item.title for item in page.items] == ["Public hall"]
    editors = listing.list_linked(app.site, context(app, accounts["editor"].id), VENUE.content_type, {})
    assert sorted(item.title for item in editors.items) == ["Draft hall", "Public hall"]
    assert not listing.status_allowed(anonymous(app), VENUE.content_type, "draft")
    assert listing.status_allowed(anonymous(app), VENUE.content_type, ["publish"])
    assert listing.status_allowed(context(app, accounts["editor"].id), VENUE.content_type, "draft,any")
