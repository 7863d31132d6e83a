"""calendar-api.md 10.1 DiscoveryCest: public pages tell clients where the calendar API is."""

from __future__ import annotations

from cal_support import make_event, make_venue, set_option

REST = "http://example.test/wp-json/cal/events/v1"
HTML = {"Accept": "text/html,application/xhtml+xml"}


def test_DiscoveryCest_it_should_return_custom_headers_for_discovery(client):
    for headers in (HTML, {}):  # the home page, and the site description at the same address
        response = client.request("HEAD", "/", headers=headers)
        assert response.status_code == 200
        assert response.headers["X-TEC-API-VERSION"] == "v1"
        assert response.headers["X-TEC-API-ROOT"] == f"{REST}/"
        assert response.headers["X-TEC-API-ORIGIN"] == "http://example.test"


def test_DiscoveryCest_it_should_return_custom_headers_for_discovery_on_single_event_links(client, admin):
    event = make_event(client, admin, "Event 01")
    for path in ("/event/event-01", "/event/event-01/"):
        response = client.request("HEAD", path)
        assert response.status_code == 200
        assert response.headers["X-TEC-API-ROOT"] == f"{REST}/events/{event['id']}"
    page = client.get("/event/event-01/")
    assert f'<link rel="alternate" href="{REST}/events/{event["id"]}">' in page.text
    assert '<meta name="tec-api-version" content="v1">' in page.text


def test_DiscoveryCest_it_should_return_disabled_header_if_tec_rest_api_is_disabled_via_option(app, client):
    set_option(app, "rest-v1-disabled", True)
    response = client.request("HEAD", "/", headers=HTML)
    assert response.headers["X-TEC-API-VERSION"] == "disabled"
    assert "X-TEC-API-ROOT" not in response.headers


def test_DiscoveryCest_it_should_return_a_category_filtered_root_when_hitting_an_event_category_page(client, admin):
    make_event(client, admin, "Categorised", categories="cat1")
    response = client.request("HEAD", "/events/category/cat1/")
    assert response.status_code == 200
    assert response.headers["X-TEC-API-ROOT"] == f"{REST}/events/?categories=cat1"


def test_DiscoveryCest_it_should_return_a_tag_filtered_root_when_hitting_and_event_tag_page(client, admin):
    make_event(client, admin, "Tagged", tags="tag1")
    response = client.request("HEAD", "/tag/tag1/")
    assert response.headers["X-TEC-API-ROOT"] == f"{REST}/events/?tags=tag1"


def test_venue_pages_point_at_the_venue_events_and_unknown_pages_are_404_with_the_root(client, admin):
    venue = make_venue(client, admin, "Hall")
    response = client.request("HEAD", "/venue/hall/")
    assert response.headers["X-TEC-API-ROOT"] == f"{REST}/events/?venue={venue['id']}"
    missing = client.get("/event/no-such-event/")
    assert missing.status_code == 404
    assert missing.headers["X-TEC-API-ROOT"] == f"{REST}/"
    assert missing.headers["content-type"].startswith("text/html")
