"""The reference's names as aliases (CALPRESS_COMPAT_ALIASES=1 or the site option
calpress_compat_aliases): every route of a renamed namespace answers under wp/v2,
tribe/events/v1... with the same handlers, and the answer speaks the names the request used:
types, taxonomies, fields, statuses, namespaces and every link."""

from __future__ import annotations

import pytest
from cal_support import make_event, make_venue, set_option

ON = "calpress_compat_aliases"


@pytest.fixture()
def aliases(app):
    set_option(app, ON, True)


def test_off_by_default_and_not_listed(client, admin):
    missing = client.get("/wp/v2/posts", user=admin)
    assert missing.status_code == 404 and missing.json["code"] == "rest_no_route"
    assert client.get("/tribe/events/v1/events").status_code == 404
    index = client.get("/").json
    assert "wp/v2" not in index["namespaces"] and "/wp/v2/posts" not in index["routes"]
    assert client.request("OPTIONS", "/wp/v2/posts").json == []


def test_the_site_option_turns_them_on_and_the_index_lists_them(app, client, admin, aliases):
    index = client.get("/").json
    for namespace in ("wp/v2", "tribe/events/v1", "tribe/views/v2", "tribe/event-aggregator/v1", "wp-site-health/v1"):
        assert namespace in index["namespaces"]
    assert index["namespaces"][:6] == ["oembed/1.0", "cal/event-aggregator/v1", "cal/events/v1", "cal/views/v2",
                                       "cms/v2", "cms-site-health/v1"]
    assert index["routes"]["/wp/v2/tribe_events/(?P<id>[\\d]+)"]["namespace"] == "wp/v2"
    assert "/cms/v2/cal_events" in index["routes"]
    namespace = client.get("/wp/v2").json
    assert namespace["namespace"] == "wp/v2" and "/wp/v2/posts" in namespace["routes"]
    assert not any(pattern.startswith("/cms/") for pattern in namespace["routes"])
    described = namespace["routes"]["/wp/v2/tribe_events"]["endpoints"][0]["args"]
    assert "tribe_events_cat" in described and "cal_events_cat" not in described
    assert client.get("/wp/v2/posts").status_code == 200  # its answer may be kept: turning off still ends it
    set_option(app, ON, False)
    assert client.get("/wp/v2/posts").status_code == 404


def test_posts_under_wp_v2_with_their_links_and_paging(client, admin, aliases):
    created = client.post("/wp/v2/posts", user=admin, json={"title": "Hello", "status": "publish"})
    assert created.status_code == 201
    post = created.json
    assert post["type"] == "post"
    assert post["_links"]["self"][0]["href"] == f"http://example.test/wp/v2/posts/{post['id']}"
    assert post["_links"]["collection"][0]["href"] == "http://example.test/wp/v2/posts"
    assert created.headers["Location"] == f"http://example.test/wp/v2/posts/{post['id']}"
    for n in range(3):
        client.post("/wp/v2/posts", user=admin, json={"title": f"More {n}", "status": "publish"})
    page = client.get("/wp/v2/posts", params={"per_page": 2})
    assert page.headers["X-WP-Total"] == "4" and page.headers["X-WP-TotalPages"] == "2"
    assert 'href="http://example.test/wp/v2/posts?per_page=2&page=2"' in page.headers["Link"].replace("<", 'href="').replace(">", '"')
    # The same item under calpress's names is unchanged.
    neutral = client.get(f"/cms/v2/posts/{post['id']}").json
    assert neutral["_links"]["self"][0]["href"] == f"http://example.test/cms/v2/posts/{post['id']}"


def test_events_under_both_reference_namespaces_speak_their_names(client, admin, aliases):
    venue = make_venue(client, admin, "Hall")
    category = client.post("/wp/v2/tribe_events_cat", user=admin, json={"name": "Jazz"})
    assert category.status_code == 201 and category.json["taxonomy"] == "tribe_events_cat"
    assert category.json["_links"]["self"][0]["href"].startswith("http://example.test/wp/v2/tribe_events_cat/")
    event = make_event(client, admin, "Night", venue=venue["id"], categories=[category.json["id"]])

    item = client.get(f"/wp/v2/tribe_events/{event['id']}", params={"context": "edit"}, user=admin).json
    assert item["type"] == "tribe_events" and item["tribe_events_cat"] == [category.json["id"]]
    assert "cal_events_cat" not in item
    assert item["_links"]["self"][0]["href"] == f"http://example.test/wp/v2/tribe_events/{event['id']}"
    terms = {link["taxonomy"]: link["href"] for link in item["_links"]["wp:term"]}
    assert terms["tribe_events_cat"] == f"http://example.test/wp/v2/tribe_events_cat?post={event['id']}"
    filtered = client.get("/wp/v2/tribe_events", params={"tribe_events_cat": category.json["id"],
                                                          "_fields": "id,tribe_events_cat,type"}).json
    assert filtered == [{"id": event["id"], "tribe_events_cat": [category.json["id"]], "type": "tribe_events"}]
    bad = client.get("/wp/v2/tribe_events", params={"tribe_events_cat": "x"})
    assert bad.status_code == 400 and list(bad.json["data"]["params"]) == ["tribe_events_cat"]

    listed = client.get("/tribe/events/v1/events").json
    assert listed["rest_url"].startswith("http://example.test/tribe/events/v1/events/")
    [shown] = listed["events"]
    assert shown["categories"][0]["taxonomy"] == "tribe_events_cat"
    assert shown["venue"]["id"] == venue["id"]
    one = client.get(f"/tribe/events/v1/events/{event['id']}").json
    assert one["id"] == event["id"] and one["title"] == "Night"
    assert client.get("/cal/events/v1/events").json["rest_url"].startswith("http://example.test/cal/events/v1/")
    # What the alias answers were built from (kept items, cached answers) is shared: untouched.
    again = client.get(f"/cms/v2/cal_events/{event['id']}", params={"context": "edit"}, user=admin).json
    assert again["type"] == "cal_events" and again["cal_events_cat"] == [category.json["id"]]
    assert client.get("/cal/events/v1/events").json["events"][0]["categories"][0]["taxonomy"] == "cal_events_cat"


def test_types_taxonomies_and_search_name_the_reference_types(client, admin, aliases):
    types = client.get("/wp/v2/types").json
    assert "tribe_events" in types and "cal_events" not in types
    assert (types["tribe_events"]["slug"], types["tribe_events"]["rest_base"], types["tribe_events"]["rest_namespace"]) == (
        "tribe_events", "tribe_events", "wp/v2")
    assert "tribe_events_cat" in types["tribe_events"]["taxonomies"]
    one = client.get("/wp/v2/types/tribe_events")
    assert one.status_code == 200 and one.json["slug"] == "tribe_events"
    taxonomy = client.get("/wp/v2/taxonomies/tribe_events_cat").json
    assert taxonomy["slug"] == "tribe_events_cat" and taxonomy["types"] == ["tribe_events"]
    make_event(client, admin, "Searchable")
    found = client.get("/wp/v2/search", params={"search": "Searchable", "subtype": "tribe_events"}).json
    assert [(r["title"], r["subtype"]) for r in found] == [("Searchable", "tribe_events")]
    assert found[0]["_links"]["self"][0]["href"].startswith("http://example.test/wp/v2/tribe_events/")
    options = client.request("OPTIONS", "/wp/v2/tribe_events").json
    assert options["namespace"] == "wp/v2" and "tribe_events_cat" in options["schema"]["properties"]


def test_the_setting_turns_them_on_for_every_request(app, client, admin):
    from dataclasses import replace

    assert client.get("/wp/v2/posts").status_code == 404
    app.site.settings = replace(app.site.settings, compat_aliases=True)
    assert client.get("/wp/v2/posts").status_code == 200
    assert "wp/v2" in client.get("/").json["namespaces"]


def test_site_health_under_its_reference_namespace(client, admin, aliases):
    answer = client.get("/wp-site-health/v1/tests/https-status", user=admin)
    assert answer.status_code == 200 and answer.json["test"] == "https_status"
    assert client.get("/wp-site-health/v1/tests/https-status").status_code == 401  # the same permission check
    index = client.get("/wp-site-health/v1").json
    assert index["namespace"] == "wp-site-health/v1" and "/wp-site-health/v1/directory-sizes" in index["routes"]
