"""/cms/v2/search (cms-api.md 7.8) against the reference's search controller and its post, term
and post-format handlers: result shapes, subtypes, paging, permissions by role, bad input."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from content_support import make_item, make_term, set_option

from calpress.app import build_registry

TYPES = build_registry().types  # the types the app registers

ROLES = ("subscriber", "editor", "administrator")
BASE = "http://example.test"


def day(n: int) -> dt.datetime:
    return dt.datetime(2026, 1, n, 12, 0)


def check_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.json
    body = response.json
    assert body["code"] == code, body
    assert body["data"]["status"] == status
    return body


@pytest.fixture()
def content(app) -> dict[str, int]:
    """Published items of several types (newest last), plus items search must never find."""
    found = {
        "post": make_item(app, "post", title="Jazz night", content="Saxophones and more", date=day(1)).id,
        "page": make_item(app, "page", title="About the club", content="We play jazz every week", date=day(2)).id,
        "venue": make_item(app, "cal_venue", title="Blue Room", content="A jazz cellar", date=day(3)).id,
        "other": make_item(app, "post", title="Opening hours", content="Closed on Mondays", date=day(4)).id,
        "protected": make_item(app, "post", title="Members only jazz", password="secret", date=day(5)).id,
    }
    make_item(app, "post", title="Jazz draft", status="draft", date=day(6))
    make_item(app, "post", title="Jazz private", status="private", date=day(7))
    make_item(app, "wp_block", title="Jazz pattern", date=day(8))  # blocks are not a public type
    return found


def result(item_id: int, title: str, url: str, subtype: str, base: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "title": title,
        "url": url,
        "type": "post",
        "subtype": subtype,
        "_links": {
            "self": [{"embeddable": True, "href": f"{BASE}/cms/v2/{base}/{item_id}", "targetHints": {"allow": ["GET"]}}],
            "about": [{"href": f"{BASE}/cms/v2/types/{subtype}"}],
            "collection": [{"href": f"{BASE}/cms/v2/search"}],
        },
    }


def ids(response: Any) -> list[Any]:
    assert response.status_code == 200, response.json
    return [entry["id"] for entry in response.json]


def test_7_8_search_published_content_of_every_public_type(client, content):
    response = client.get("/cms/v2/search")
    assert response.status_code == 200
    # Newest first; drafts, private items and blocks are left out.
    assert ids(response) == [content["protected"], content["other"], content["venue"], content["page"], content["post"]]
    assert response.headers["X-WP-Total"] == "5" and response.headers["X-WP-TotalPages"] == "1"
    body = response.json
    assert body[4] == result(content["post"], "Jazz night", f"{BASE}/jazz-night/", "post", "posts")
    assert body[3] == result(content["page"], "About the club", f"{BASE}/about-the-club/", "page", "pages")
    assert body[2] == result(content["venue"], "Blue Room", f"{BASE}/venue/blue-room/", "cal_venue", "cal_venue")
    assert body[0]["title"] == "Members only jazz"  # no "Protected:" prefix


def test_7_8_search_text_by_relevance(client, content):
    # Title matches first, then the rest, each newest first; anonymous searches leave out
    # password-protected items.
    assert ids(client.get("/cms/v2/search", params={"search": "jazz"})) == [content["post"], content["venue"], content["page"]]
    assert ids(client.get("/cms/v2/search", params={"search": "mondays"})) == [content["other"]]
    assert ids(client.get("/cms/v2/search", params={"search": "nothing like it"})) == []


@pytest.mark.parametrize("role", ROLES)
def test_7_8_search_is_the_same_for_every_role_but_protected_items(client, accounts, content, role):
    # Only published items are searched, whoever asks; logged-in users also find protected ones.
    found = ids(client.get("/cms/v2/search", params={"search": "jazz"}, user=accounts[role]))
    assert found == [content["protected"], content["post"], content["venue"], content["page"]]
    titles = [entry["title"] for entry in client.get("/cms/v2/search", params={"search": "members"}, user=accounts[role]).json]
    assert titles == ["Members only jazz"]  # no "Protected:" prefix


def test_7_8_search_subtypes(client, content):
    assert ids(client.get("/cms/v2/search", params={"subtype": "page"})) == [content["page"]]
    assert ids(client.get("/cms/v2/search", params={"subtype": "page,cal_venue"})) == [content["venue"], content["page"]]
    assert ids(client.get("/cms/v2/search", params={"subtype[]": ["cal_venue", "page"], "search": "jazz"})) == [
        content["venue"], content["page"],
    ]
    # "any" wins over any other subtype; subtypes are read as slugs.
    assert len(ids(client.get("/cms/v2/search", params={"subtype": "page,any"}))) == 5
    assert ids(client.get("/cms/v2/search", params={"subtype": "PAGE"})) == [content["page"]]
    # Subtypes of another handler are dropped; none left searches posts, as the reference does.
    assert ids(client.get("/cms/v2/search", params={"subtype": "category", "search": "o"})) == [content["other"], content["post"]]


def test_7_8_search_include_exclude(client, content):
    assert ids(client.get("/cms/v2/search", params={"include": f"{content['page']},{content['post']}"})) == [
        content["page"], content["post"],
    ]
    assert ids(client.get("/cms/v2/search", params={"exclude[]": [content["other"], content["venue"], content["protected"]]})) == [
        content["page"], content["post"],
    ]


def test_7_8_search_paging(client, content):
    response = client.get("/cms/v2/search", params={"per_page": 1, "page": 2})
    assert ids(response) == [content["other"]]
    assert response.headers["X-WP-Total"] == "5" and response.headers["X-WP-TotalPages"] == "5"
    assert response.headers["Link"].endswith(
        f'<{BASE}/cms/v2/search?per_page=1&page=1>; rel="prev", <{BASE}/cms/v2/search?per_page=1&page=3>; rel="next"'
    )
    body = check_error(client.get("/cms/v2/search", params={"per_page": 2, "page": 4}), 400, "rest_search_invalid_page_number")
    assert body["message"] == "The page number requested is larger than the number of pages available."
    # No results at all is not an error, whatever the page.
    empty = client.get("/cms/v2/search", params={"search": "zzz", "page": 5})
    assert empty.status_code == 200 and empty.json == []
    assert empty.headers["X-WP-Total"] == "0" and empty.headers["X-WP-TotalPages"] == "0"


def test_7_8_search_contexts_fields_and_embedding(client, content):
    embed = client.get("/cms/v2/search", params={"context": "embed", "subtype": "page"}).json
    assert list(embed[0]) == ["id", "title", "url", "type", "subtype", "_links"]
    assert client.get("/cms/v2/search", params={"_fields": "id,title", "subtype": "page"}).json == [
        {"id": content["page"], "title": "About the club"}
    ]
    embedded = client.get("/cms/v2/search", params={"_embed": "1", "subtype": "post"}).json
    assert embedded[-1]["_embedded"]["self"][0]["id"] == content["post"]
    assert embedded[-1]["_embedded"]["self"][0]["title"] == {"rendered": "Jazz night"}


def test_7_8_search_terms(client, app, content):
    jazz = make_term(app, "category", "Jazz")
    bebop = make_term(app, "category", "Bebop", parent=jazz)
    tag = make_term(app, "post_tag", "jazz-club")
    concerts = make_term(app, "cal_events_cat", "Concerts")
    make_term(app, "wp_pattern_category", "Jazz patterns")  # not a public taxonomy
    response = client.get("/cms/v2/search", params={"type": "term"})
    # Terms of every public REST taxonomy, by name (the default category included).
    assert ids(response) == [bebop, concerts, jazz, tag, 1]
    assert response.headers["X-WP-Total"] == "5"
    by_id = {entry["id"]: entry for entry in response.json}
    assert by_id[bebop] == {
        "id": bebop,
        "title": "Bebop",
        "url": f"{BASE}/category/jazz/bebop/",
        "type": "category",  # the reference gives the taxonomy, and no subtype
        "_links": {
            "self": [{"embeddable": True, "href": f"{BASE}/cms/v2/categories/{bebop}", "targetHints": {"allow": ["GET"]}}],
            "about": [{"href": f"{BASE}/cms/v2/taxonomies/category"}],
            "collection": [{"href": f"{BASE}/cms/v2/search"}],
        },
    }
    assert ids(client.get("/cms/v2/search", params={"type": "term", "search": "jazz"})) == [jazz, tag]
    assert ids(client.get("/cms/v2/search", params={"type": "term", "subtype": "post_tag,cal_events_cat"})) == [concerts, tag]
    assert ids(client.get("/cms/v2/search", params={"type": "term", "exclude": f"1,{jazz}"})) == [bebop, concerts, tag]
    paged = client.get("/cms/v2/search", params={"type": "term", "per_page": 2, "page": 3})
    assert ids(paged) == [1] and paged.headers["X-WP-TotalPages"] == "3"
    embedded = client.get("/cms/v2/search", params={"type": "term", "include": [bebop], "_embed": "self"}).json
    assert embedded[0]["_embedded"]["self"][0]["name"] == "Bebop"


def test_7_8_search_post_formats(client, app):
    assert client.get("/cms/v2/search", params={"type": "post-format"}).json == []
    make_item(app, "post", title="A thought", format="aside")
    make_item(app, "post", title="Listen", format="audio", status="draft")
    response = client.get("/cms/v2/search", params={"type": "post-format"})
    # Only formats in use are found ("standard" never is), in the reference's format order.
    assert response.json == [
        {"id": "aside", "title": "Aside", "url": f"{BASE}/type/aside/", "type": "post-format",
         "_links": {"collection": [{"href": f"{BASE}/cms/v2/search"}]}},
        {"id": "audio", "title": "Audio", "url": f"{BASE}/type/audio/", "type": "post-format",
         "_links": {"collection": [{"href": f"{BASE}/cms/v2/search"}]}},
    ]
    assert ids(client.get("/cms/v2/search", params={"type": "post-format", "search": "ASI"})) == ["aside"]
    set_option(app, "permalink_structure", "")
    assert client.get("/cms/v2/search", params={"type": "post-format", "search": "audio"}).json[0]["url"] == (
        f"{BASE}/?post_format=audio"
    )


@pytest.mark.parametrize(
    ("params", "invalid"),
    [
        ({"type": "page"}, {"type": "type is not one of post, term, and post-format."}),
        (
            {"type": "pages", "subtype": "page"},
            {"type": "type is not one of post, term, and post-format.", "subtype": "Invalid type parameter."},
        ),
        ({"per_page": 0}, {"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}),
        ({"per_page": 101}, {"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}),
        ({"page": "first"}, {"page": "page is not of type integer."}),
        ({"context": "edit"}, {"context": "context is not one of view and embed."}),
        ({"include": "1,x"}, {"include": "include[1] is not of type integer."}),
    ],
)
def test_7_8_search_bad_input(client, params, invalid):
    body = check_error(client.get("/cms/v2/search", params=params), 400, "rest_invalid_param")
    assert set(body["data"]["params"]) == set(invalid)
    for name, message in invalid.items():
        assert body["data"]["params"][name].startswith(message), body


def test_7_8_search_unknown_subtype(client):
    body = check_error(client.get("/cms/v2/search", params={"subtype": "page,nothing"}), 400, "rest_invalid_param")
    subtypes = [t for t in ("post", "page", "cal_venue", "cal_organizer", "cal_events") if t in TYPES]
    expected = ", ".join([*subtypes, "category", "post_tag", "cal_events_cat"]) + ", and any."
    assert body["data"]["params"] == {"subtype": f"subtype[1] is not one of {expected}"}


def test_7_8_search_route_in_the_index(client):
    route = client.get("/cms/v2").json["routes"]["/cms/v2/search"]
    args = route["endpoints"][0]["args"]
    assert list(args) == ["context", "page", "per_page", "search", "type", "subtype", "exclude", "include"]
    assert args["type"]["enum"] == ["post", "term", "post-format"] and args["type"]["default"] == "post"
    assert args["subtype"]["default"] == "any" and args["subtype"]["items"]["enum"][-1] == "any"
