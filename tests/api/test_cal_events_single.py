"""cal/events/v1 single events, authorisation, the /doc document and deletion: calendar-api.md
10.1 (AuthorizationCest for events, SwaggerDocumentationCest) and 10.3 (SingleEventCest,
SingleEventSlugCest, EventDeletionCest)."""

from __future__ import annotations

import sqlalchemy as sa
from cal_support import EVENTS, make_event, make_organizer, make_venue

from calpress.store.tables import posts

DOC = "/cal/events/v1/doc"
REST = "http://example.test/cal/events/v1"


def published_post(client, admin) -> int:
    return client.post("/cms/v2/posts", user=admin, json={"title": "A post", "status": "publish"}).json["id"]


# -- AuthorizationCest (events) -------------------------------------------------------------------


def test_AuthorizationCest_contributor_cannot_edit_admin_event(client, accounts, admin):
    event = make_event(client, admin)
    assert client.put(f"{EVENTS}/{event['id']}", user=accounts["contributor"], json={"title": "Mine"}).status_code == 403


def test_AuthorizationCest_contributor_cannot_edit_own_published_event(app, client, accounts, admin):
    contributor = accounts["contributor"]
    event = make_event(client, admin, author=str(contributor.id))
    assert event["author"] == str(contributor.id) and event["status"] == "publish"
    assert client.put(f"{EVENTS}/{event['id']}", user=contributor, json={"title": "Changed"}).status_code == 403


def test_AuthorizationCest_contributor_cannot_delete_admin_event(client, accounts, admin):
    event = make_event(client, admin)
    assert client.delete(f"{EVENTS}/{event['id']}", user=accounts["contributor"]).status_code == 403


def test_AuthorizationCest_contributor_cannot_delete_own_published_event(client, accounts, admin):
    contributor = accounts["contributor"]
    event = make_event(client, admin, author=str(contributor.id))
    assert client.delete(f"{EVENTS}/{event['id']}", user=contributor).status_code == 403


def test_AuthorizationCest_contributor_can_edit_own_draft_event(client, accounts):
    contributor = accounts["contributor"]
    event = make_event(client, contributor, status="draft")
    assert event["status"] == "draft"
    response = client.put(f"{EVENTS}/{event['id']}", user=contributor, json={"title": "Changed"})
    assert response.status_code == 200 and response.json["title"] == "Changed"


def test_AuthorizationCest_contributor_can_delete_own_draft_event(client, accounts):
    contributor = accounts["contributor"]
    event = make_event(client, contributor, status="draft")
    response = client.delete(f"{EVENTS}/{event['id']}", user=contributor)
    assert response.status_code == 200 and response.json["status"] == "trash"


def test_AuthorizationCest_editor_can_edit_other_events(client, accounts, admin):
    event = make_event(client, admin)
    assert client.put(f"{EVENTS}/{event['id']}", user=accounts["editor"], json={"title": "Edited"}).status_code == 200


def test_AuthorizationCest_editor_can_delete_other_events(client, accounts, admin):
    event = make_event(client, admin)
    assert client.delete(f"{EVENTS}/{event['id']}", user=accounts["editor"]).status_code == 200


def test_AuthorizationCest_unauthenticated_cannot_edit_event(client, admin):
    event = make_event(client, admin)
    response = client.put(f"{EVENTS}/{event['id']}", json={"title": "Nope"})  # no nonce: anonymous
    assert response.status_code == 401 and response.json["code"] == "rest_forbidden"


def test_AuthorizationCest_unauthenticated_cannot_delete_event(client, admin):
    event = make_event(client, admin)
    assert client.delete(f"{EVENTS}/{event['id']}").status_code == 401


def test_AuthorizationCest_unauthenticated_cannot_edit_draft_event(client, accounts):
    event = make_event(client, accounts["contributor"], status="draft")
    assert client.put(f"{EVENTS}/{event['id']}", json={"title": "Nope"}).status_code == 401


def test_by_slug_writes_check_the_rights_on_the_resolved_event(client, accounts, admin):
    event = make_event(client, admin, "Admin Event")
    contributor = accounts["contributor"]
    assert client.put(f"{EVENTS}/by-slug/admin-event", user=contributor, json={"title": "X"}).status_code == 403
    assert client.delete(f"{EVENTS}/by-slug/admin-event", user=contributor).status_code == 403
    edited = client.patch(f"{EVENTS}/by-slug/admin-event", user=accounts["editor"], json={"title": "Y"})
    assert edited.status_code == 200 and edited.json["id"] == event["id"] and edited.json["title"] == "Y"


# -- SwaggerDocumentationCest ---------------------------------------------------------------------


def test_SwaggerDocumentationCest_it_should_expose_a_swagger_documentation_endpoint(client):
    assert client.get(DOC).status_code == 200


def test_SwaggerDocumentationCest_it_should_return_a_json_array_containing_headers_in_swagger_format(client):
    assert list(client.get(DOC).json) == ["openapi", "info", "components", "servers", "paths"]


def test_SwaggerDocumentationCest_it_should_return_the_correct_information(client):
    info = client.get(DOC).json["info"]
    assert info["version"] == "1.0.0" and info["title"] == "The Events Calendar REST API" and info["description"]


def test_SwaggerDocumentationCest_it_should_return_the_site_url_as_host(client):
    assert client.get(DOC).json["servers"]


def test_SwaggerDocumentationCest_it_should_return_tec_rest_path_as_base_path(client):
    assert client.get(DOC).json["servers"][0]["url"] == f"{REST}/"
    assert client.get("/wp-json" + DOC).json["servers"][0]["url"] == "http://example.test/wp-json/cal/events/v1/"


def test_SwaggerDocumentationCest_it_should_contain_information_about_the_archive_endpoint(client):
    archive = client.get(DOC).json["paths"]["/events"]["get"]
    names = [p["name"] for p in archive["parameters"]]
    assert names[:2] == ["page", "per_page"] and "start_date" in names and "categories" in names
    assert archive["responses"]["200"]["content"]["application/json"]["schema"]["items"] == {"$ref": "#/components/schemas/Event"}


def test_SwaggerDocumentationCest_it_should_contain_information_about_the_single_event_endpoint(client):
    paths = client.get(DOC).json["paths"]
    single = paths["/events/{id}"]
    assert set(single) == {"get", "post", "delete"}
    assert single["get"]["parameters"][0] == {"in": "path", "schema": {"type": "integer"}, "description": "the event post ID",
                                              "required": True, "name": "id"}
    assert "requestBody" in single["post"]
    assert list(paths)[:4] == ["/doc", "/events", "/events/{id}", "/events/by-slug/{slug}"]
    schemas = client.get(DOC).json["components"]["schemas"]
    assert list(schemas) == ["ImageSize", "CostDetails", "Term", "Image", "DateDetails", "Event", "Venue", "Organizer"]


# -- SingleEventCest ------------------------------------------------------------------------------


def test_SingleEventCest_it_should_return_not_found_if_event_id_is_0(client):
    response = client.get(f"{EVENTS}/0")
    assert response.status_code == 404 and response.json["code"] == "rest-event-not-found"


def test_SingleEventCest_it_should_return_not_found_if_hitting_a_non_existing_single_event_endpoint(client):
    response = client.get(f"{EVENTS}/13")
    assert response.status_code == 404
    assert response.json == {"code": "rest-event-not-found", "message": "Event with ID 13 does not exist.", "data": {"status": 404}}


def test_SingleEventCest_it_should_return_bad_request_if_id_is_not_of_an_event(client, admin):
    response = client.get(f"{EVENTS}/{published_post(client, admin)}")
    assert response.status_code == 400 and response.json["code"] == "rest-invalid-event-id"


def test_SingleEventCest_it_should_return_invalid_auth_status_if_event_is_not_accessible(client, admin):
    event = make_event(client, admin, status="draft")
    response = client.get(f"{EVENTS}/{event['id']}")
    assert response.status_code == 403 and response.json["code"] == "event-not-accessible"
    assert client.get(f"{EVENTS}/{event['id']}", user=admin).status_code == 200


def _full_event(app, client, admin):
    from cal_support import set_option

    set_option(app, "timezone_string", "America/New_York")
    venue = make_venue(client, admin, "Venue 01", address="address", city="city", country="country", province="province",
                       state="state", zip="zip", phone="phone", website="http://venue.example", stateprovince="state_province")
    organizer = make_organizer(client, admin, "Organizer 01", phone="phone", website="http://org.example", email="org@example.com")
    return make_event(
        client, admin, "Event 01", description="Event 01 description", excerpt="Event 01 excerpt",
        start_date="2030-01-05 14:23:36", end_date="2030-01-05 16:23:36", cost="23", website="http://tri.be",
        show_map=True, show_map_link=True, venue=venue["id"], organizer=[organizer["id"]],
        categories="category-1,category-2", tags="tag-1,tag-2",
    )


def _check_full_event(body, event_id):
    assert body["id"] == event_id and body["author"] == "1" and body["status"] == "publish"
    assert body["global_id"] == f"example.test?id={event_id}" and body["global_id_lineage"] == [body["global_id"]]
    assert body["url"] == "http://example.test/event/event-01/"
    assert body["rest_url"].endswith(f"/cal/events/v1/events/{event_id}")
    assert body["title"] == "Event 01"
    assert body["description"] == "<p>Event 01 description</p>" and body["excerpt"] == "<p>Event 01 excerpt</p>"
    assert body["start_date"] == "2030-01-05 14:23:36" and body["end_date"] == "2030-01-05 16:23:36"
    assert body["utc_start_date"] == "2030-01-05 19:23:36" and body["utc_end_date"] == "2030-01-05 21:23:36"
    assert body["start_date_details"] == {"year": "2030", "month": "01", "day": "05", "hour": "14", "minutes": "23", "seconds": "36"}
    assert body["timezone"] == "America/New_York" and body["timezone_abbr"] == "EST"
    assert body["cost"] == "$23"
    assert body["cost_details"] == {"currency_symbol": "", "currency_code": "", "currency_position": "", "values": ["23"]}
    assert body["website"] == "http://tri.be" and body["show_map"] is True and body["show_map_link"] is True
    venue = body["venue"]
    assert venue["venue"] == "Venue 01" and venue["stateprovince"] == "state_province" and venue["zip"] == "zip"
    assert [o["organizer"] for o in body["organizer"]] == ["Organizer 01"]
    assert [t["slug"] for t in body["categories"]] == ["category-1", "category-2"]
    assert [t["slug"] for t in body["tags"]] == ["tag-1", "tag-2"]
    assert all(t["taxonomy"] == "post_tag" and t["urls"]["self"].endswith(f"/tags/{t['id']}") for t in body["tags"])
    assert body["custom_fields"] == []
    assert body["json_ld"]["@type"] == "Event" and body["json_ld"]["startDate"] == "2030-01-05T14:23:36-05:00"


def test_SingleEventCest_it_should_return_event_data_if_event_accessible(app, client, admin):
    event = _full_event(app, client, admin)
    assert "json_ld" not in event  # create answers have no json_ld
    response = client.get(f"{EVENTS}/{event['id']}")
    assert response.status_code == 200
    _check_full_event(response.json, event["id"])
    keys = list(response.json)
    assert keys[:6] == ["id", "global_id", "global_id_lineage", "author", "status", "date"]
    assert keys[-3:] == ["organizer", "custom_fields", "json_ld"]


# -- SingleEventSlugCest --------------------------------------------------------------------------


def test_SingleEventSlugCest_it_should_return_400_if_event_id_is_missing(client):
    assert client.get(f"{EVENTS}/by-slug/").status_code == 404


def test_SingleEventSlugCest_it_should_return_bad_request_if_hitting_a_non_existing_single_event_endpoint(client):
    response = client.get(f"{EVENTS}/by-slug/no-such-event")
    assert response.status_code == 400 and list(response.json["data"]["params"]) == ["slug"]


def test_SingleEventSlugCest_it_should_return_bad_request_if_id_is_not_of_an_event(client, admin):
    published_post(client, admin)
    assert client.get(f"{EVENTS}/by-slug/a-post").status_code == 400


def test_SingleEventSlugCest_it_should_return_bad_request_if_event_is_not_accessible(client, admin):
    make_event(client, admin, "Draft One", status="draft", slug="draft-one")
    assert client.get(f"{EVENTS}/by-slug/draft.one").status_code == 400  # a slug with a dot does not resolve
    response = client.get(f"{EVENTS}/by-slug/draft-one")
    assert response.status_code == 403 and response.json["code"] == "event-not-accessible"


def test_SingleEventSlugCest_it_should_return_event_data_if_event_accessible(app, client, admin):
    event = _full_event(app, client, admin)
    response = client.get(f"{EVENTS}/by-slug/event-01")
    assert response.status_code == 200
    _check_full_event(response.json, event["id"])


def test_trashed_and_password_protected_events_are_refused(app, client, admin):
    trashed = make_event(client, admin, "Gone")
    client.delete(f"{EVENTS}/{trashed['id']}", user=admin)
    response = client.get(f"{EVENTS}/{trashed['id']}")
    assert response.status_code == 403 and response.json["code"] == "event-no-longer-available"
    secret = make_event(client, admin, "Secret")
    with app.site.write() as conn:
        conn.execute(sa.update(posts).where(posts.c.id == secret["id"]).values(password="pw"))
        from calpress.store.changes import record as record_change

        record_change(conn, "item", "update", secret["id"])
    response = client.get(f"{EVENTS}/{secret['id']}")
    assert response.status_code == 403 and response.json["code"] == "event-password-protected"
    assert client.get(f"{EVENTS}/{secret['id']}", params={"password": "pw"}).status_code == 200
    listed = client.get(EVENTS).json["events"]
    blanked = next(e for e in listed if e["id"] == secret["id"])
    assert blanked["description"] == "" and blanked["all_day"] is None and blanked["venue"] == []
    assert blanked["cost_details"] == {"currency_symbol": "", "currency_position": "", "currency_code": "", "values": []}


# -- EventDeletionCest ----------------------------------------------------------------------------


def test_EventDeletionCest_it_should_return_404_if_trying_to_delete_non_existent_event_id(client, admin):
    response = client.delete(f"{EVENTS}/23", user=admin)
    assert response.status_code == 404 and response.json["message"] == "Event with ID 23 does not exist."


def test_EventDeletionCest_it_should_return_401_if_user_cannot_delete_events(client, admin):
    event = make_event(client, admin)
    assert client.delete(f"{EVENTS}/{event['id']}").status_code == 401


def test_EventDeletionCest_it_should_return_200_when_deleting_event(app, client, admin):
    event = make_event(client, admin)
    response = client.delete(f"{EVENTS}/{event['id']}", user=admin, params={"force": "true"})
    assert response.status_code == 200 and response.json["id"] == event["id"] and response.json["status"] == "trash"
    with app.site.read() as conn:  # moved to the trash, never deleted (force is ignored)
        assert conn.execute(sa.select(posts.c.status).where(posts.c.id == event["id"])).scalar_one() == "trash"
    assert client.get(EVENTS).json["total"] == 0


def test_EventDeletionCest_it_should_return_410_when_re_deleting_a_deleted_event(client, admin):
    event = make_event(client, admin)
    client.delete(f"{EVENTS}/{event['id']}", user=admin)
    response = client.delete(f"{EVENTS}/{event['id']}", user=admin)
    assert response.status_code == 410
    assert response.json == {"code": "event-is-in-trash", "message": "The event is already trashed", "data": {"status": 410}}


def test_a_post_id_is_not_an_event_for_writes(client, admin):
    post_id = published_post(client, admin)
    assert client.delete(f"{EVENTS}/{post_id}", user=admin).json["code"] == "rest-invalid-event-id"
    assert client.post(f"{EVENTS}/{post_id}", user=admin, json={"title": "x"}).status_code == 400


def test_namespace_index_lists_the_calendar_routes_in_order(client, admin):
    body = client.get("/cal/events/v1").json
    assert body["namespace"] == "cal/events/v1" and body["_links"]["up"][0]["href"].endswith("/")
    expected = ["", "/doc", "/events", "/events/(?P<id>\\d+)", "/events/by-slug/(?P<slug>[^/]+)"]
    for kind in ("venues", "organizers"):
        expected += [f"/{kind}", f"/{kind}/(?P<id>\\d+)", f"/{kind}/by-slug/(?P<slug>[^/]+)"]
    expected += ["/categories", "/categories/(?P<id>\\d+)", "/tags", "/tags/(?P<id>\\d+)"]
    assert list(body["routes"]) == ["/cal/events/v1" + path for path in expected]
    events = body["routes"]["/cal/events/v1/events"]
    assert events["endpoints"][0]["args"]["page"] == {"description": "The archive page to return", "type": "integer",
                                                      "default": 1, "required": False}
    assert events["endpoints"][1]["args"]["title"]["required"] is True
    assert body["routes"]["/cal/events/v1/events/(?P<id>\\d+)"]["methods"] == ["GET", "DELETE", "POST", "PUT", "PATCH"]
    event = make_event(client, admin)
    assert client.get(f"{EVENTS}/{event['id']}").headers["Allow"] == "GET"
    assert client.get(f"{EVENTS}/{event['id']}", user=admin).headers["Allow"] == "GET, DELETE, POST, PUT, PATCH"

