"""Remembered event representations (store/memo.py, api/cal_events.py): an event built once is
reused by every later listing and single read, under any query, until a record it was built
from changes. Each test fills the memo, writes, then reads under a query never asked before (so
the answer cache misses) and checks the write shows."""

from __future__ import annotations

import itertools

from cal_linked_support import store_image
from cal_support import EVENTS, ORGANIZERS, VENUES, make_event, make_organizer, make_venue, set_option
from content_support import statement_counter

_fresh = itertools.count(1)


def listed(client, **params):
    """The event list under a query no answer was cached for (``miss`` is ignored by the route)."""
    response = client.get(EVENTS, params={"per_page": "50", "miss": str(next(_fresh)), **params})
    assert response.status_code == 200, response.json
    return {event["id"]: event for event in response.json["events"]}


def same_as_built(app, client):
    """The list as remembered equals the list built from the database: the invariant."""
    remembered = listed(client)
    app.site.memo.clear()
    built = listed(client)
    assert remembered == built
    return built


def single(client, event_id):
    response = client.get(f"{EVENTS}/{event_id}", params={"miss": str(next(_fresh))})
    assert response.status_code == 200, response.json
    return response.json


def test_remembered_events_are_reused_and_forgotten_when_they_change(app, client, admin):
    first = make_event(client, admin, "First")
    second = make_event(client, admin, "Second")
    assert set(listed(client)) == {first["id"], second["id"]}
    assert len(app.site.memo) == 2
    before = single(client, first["id"])
    assert len(app.site.memo) == 3  # the single shape is kept apart (it adds json_ld)
    assert "json_ld" in before and "json_ld" not in listed(client)[first["id"]]

    response = client.post(f"{EVENTS}/{first['id']}", user=admin, json={"title": "First, renamed"})
    assert response.status_code == 200, response.json
    shown = listed(client)
    assert shown[first["id"]]["title"] == "First, renamed"
    assert shown[second["id"]]["title"] == "Second"
    assert single(client, first["id"])["title"] == "First, renamed"
    # Only what the write touched was forgotten: the second event stayed remembered.
    assert len(app.site.memo) == 3


def test_a_renamed_or_trashed_venue_or_organizer_shows_in_every_event(app, client, admin):
    venue = make_venue(client, admin, "Hall")
    organizer = make_organizer(client, admin, "Ann")
    event = make_event(client, admin, "Concert", venue=venue["id"], organizer=[organizer["id"]])
    other = make_event(client, admin, "Alone")
    assert listed(client)[event["id"]]["venue"]["venue"] == "Hall"

    assert client.post(f"{VENUES}/{venue['id']}", user=admin, json={"venue": "Great Hall"}).status_code == 200
    assert client.post(f"{ORGANIZERS}/{organizer['id']}", user=admin, json={"organizer": "Anna"}).status_code == 200
    shown = listed(client)
    assert shown[event["id"]]["venue"]["venue"] == "Great Hall"
    assert [o["organizer"] for o in shown[event["id"]]["organizer"]] == ["Anna"]
    assert single(client, event["id"])["venue"]["venue"] == "Great Hall"

    assert client.delete(f"{VENUES}/{venue['id']}", user=admin).status_code == 200  # to the trash
    assert listed(client)[event["id"]]["venue"] == []
    same_as_built(app, client)
    # Back from the trash: the event was built without it, but from it all the same.
    response = client.post(f"/cms/v2/cal_venue/{venue['id']}", user=admin, json={"status": "publish"})
    assert response.status_code == 200, response.json
    shown = same_as_built(app, client)
    assert shown[other["id"]]["venue"] == []


def test_terms_renamed_and_recounted_show_in_every_event(app, client, admin):
    event = make_event(client, admin, "Tagged", categories="Music", tags="jazz")
    [category] = listed(client)[event["id"]]["categories"]
    assert category["name"] == "Music" and category["count"] == 1

    response = client.post(f"/cal/events/v1/categories/{category['id']}", user=admin, json={"name": "Live music"})
    assert response.status_code == 200, response.json
    assert listed(client)[event["id"]]["categories"][0]["name"] == "Live music"

    # Another event joins the category: the first event embeds the category's new count.
    make_event(client, admin, "Also tagged", categories=str(category["id"]))
    assert listed(client)[event["id"]]["categories"][0]["count"] == 2
    [tag] = listed(client)[event["id"]]["tags"]
    make_event(client, admin, "Jazz too", tags=str(tag["id"]))
    assert listed(client)[event["id"]]["tags"][0]["count"] == 2
    same_as_built(app, client)

    # A count that moved costs the term, not the event: the event stays remembered (its links,
    # venues and organizers are not read again), and only its terms are read back.
    single(client, event["id"])
    make_event(client, admin, "One more", categories=str(category["id"]))
    with statement_counter(app) as statements:
        shown = single(client, event["id"])
    assert shown["categories"][0]["count"] == 3
    assert not [s for s in statements if "event_links" in s], statements
    assert [s for s in statements if "FROM terms" in s], statements

    # A deleted term leaves the events it was on, remembered or not.
    response = client.delete(f"/cal/events/v1/tags/{tag['id']}", user=admin, params={"force": "true"})
    assert response.status_code == 200, response.json
    assert listed(client)[event["id"]]["tags"] == []
    same_as_built(app, client)


def test_a_new_featured_image_and_an_option_show(app, client, admin):
    event = make_event(client, admin, "Pictured")
    assert listed(client)[event["id"]]["image"] is False
    image = store_image(app)
    response = client.post(f"/cms/v2/cal_events/{event['id']}", user=admin, json={"featured_media": image})
    assert response.status_code == 200, response.json
    assert listed(client)[event["id"]]["image"]["id"] == image
    same_as_built(app, client)

    priced = make_event(client, admin, "Priced", cost="10")
    assert listed(client)[priced["id"]]["cost"] == "$10"
    set_option(app, "cal_currency_symbol", "€")
    assert listed(client)[priced["id"]]["cost"] == "€10"
    same_as_built(app, client)


def test_password_protected_events_are_never_remembered(app, client, admin):
    event = make_event(client, admin, "Secret", description="Hidden text")
    assert client.post(f"/cms/v2/cal_events/{event['id']}", user=admin, json={"password": "pw"}).status_code == 200
    assert listed(client)[event["id"]]["description"] == ""
    assert len(app.site.memo) == 0
    assert "Hidden text" in listed(client, password="pw")[event["id"]]["description"]
    assert listed(client)[event["id"]]["description"] == ""


def test_category_filters_are_looked_up_once_per_counter_and_follow_renames(app, client, admin):
    """The terms a ``categories`` filter names are kept under the content counter
    (calendar/listing.py _FoundTerms): a repeated filtered listing reads no term, and a renamed
    slug stops matching at once."""
    event = make_event(client, admin, "Filed", categories="Music")
    make_event(client, admin, "Unfiled")
    [category] = listed(client)[event["id"]]["categories"]
    assert set(listed(client, categories="music")) == {event["id"]}
    assert set(listed(client, categories=str(category["id"]))) == {event["id"]}
    with statement_counter(app) as statements:
        assert set(listed(client, categories="music")) == {event["id"]}
        assert set(listed(client, categories=str(category["id"]))) == {event["id"]}
    assert not [s for s in statements if "FROM terms" in s], statements

    response = client.post(f"/cal/events/v1/categories/{category['id']}", user=admin, json={"slug": "tunes"})
    assert response.status_code == 200, response.json
    refused = client.get(EVENTS, params={"categories": "music", "miss": str(next(_fresh))})
    assert refused.status_code == 400 and refused.json["code"] == "rest_invalid_param", refused.json
    assert set(listed(client, categories="tunes")) == {event["id"]}
    assert set(listed(client, categories=str(category["id"]))) == {event["id"]}


def _listing_statements(app, client, monkeypatch):
    """The statements of one listing (the check for scheduled items due made before, apart)."""
    from calpress.content import items as item_service
    from calpress.content.items import writes as item_writes

    monkeypatch.setattr(item_writes, "PUBLISH_CHECK_SECONDS", 600.0)
    item_service.publish_due_items(app.site, force=True)
    with statement_counter(app) as statements:
        shown = listed(client)
    return shown, [s for s in statements if s.strip().upper() not in ("BEGIN", "COMMIT", "ROLLBACK")]


def _page_reads(statements):
    """How each statement reading the page read it: its ids alone, or its rows whole."""
    reads = []
    for statement in statements:
        if "page_id" in statement:
            head = statement.split("FROM", 1)[0]
            reads.append("ids" if "page_id" in head and "," not in head else "whole")
    return reads


def test_a_page_found_whole_reads_its_ids_alone_until_an_event_of_it_changes(app, client, admin, monkeypatch):
    made = [make_event(client, admin, f"E{n}")["id"] for n in range(3)]
    listed(client)  # built and remembered
    shown, statements = _listing_statements(app, client, monkeypatch)
    # Every event was remembered: the page was read whole once more, and nothing it embeds.
    assert set(shown) == set(made)
    assert len(statements) == 2 and _page_reads(statements) == ["whole"], statements
    # Found whole, the page now costs the counter and its ids, which an index holds.
    shown, statements = _listing_statements(app, client, monkeypatch)
    assert set(shown) == set(made)
    assert len(statements) == 2 and _page_reads(statements) == ["ids"], statements

    # An event of the page changed: the page is read whole (its ids first when its total is
    # still known), the changed event built again, and then the ids do again.
    response = client.post(f"{EVENTS}/{made[1]}", user=admin, json={"title": "Renamed"})
    assert response.status_code == 200, response.json
    shown, statements = _listing_statements(app, client, monkeypatch)
    assert shown[made[1]]["title"] == "Renamed" and shown[made[0]]["title"] == "E0"
    assert _page_reads(statements)[-1] == "whole", statements
    shown, statements = _listing_statements(app, client, monkeypatch)
    assert shown[made[1]]["title"] == "Renamed" and _page_reads(statements) == ["ids"], statements
    assert shown == same_as_built(app, client)


def test_a_page_with_a_password_protected_event_is_not_read_twice(app, client, admin, monkeypatch):
    made = [make_event(client, admin, f"E{n}")["id"] for n in range(2)]
    listed(client)
    listed(client)  # found whole: its ids would be read first next time
    response = client.post(f"/cms/v2/cal_events/{made[0]}", user=admin, json={"password": "secret"})
    assert response.status_code == 200, response.json
    reads = []
    for _ in range(4):
        shown, statements = _listing_statements(app, client, monkeypatch)
        assert set(shown) == set(made)
        reads.append(_page_reads(statements))
    # Never remembered, the protected event keeps the page from being whole: the hint is wrong
    # once (the ids read, then the page whole), and from then on the page is read whole at once.
    assert sum(read.count("ids") for read in reads) == 1 and reads[-2:] == [["whole"], ["whole"]], reads
