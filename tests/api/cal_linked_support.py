"""Venues and organizers for the cal/events/v1 acceptance tests (calendar-api.md 10.4).

The peer suites of the two types mirror each other, so the scenarios they share are written once
here against a :class:`Kind` and called by the named tests of ``test_cal_venues.py`` and
``test_cal_organizers.py``. Fixture records are written straight through the item service, as the
peer tests' ``haveVenueInDatabase`` / ``haveOrganizerInDatabase`` write rows: every attribute
set, any status, any author.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import io
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import sqlalchemy as sa
from cal_support import ORGANIZERS, VENUES, make_event, set_option, when
from content_support import make_item

from calpress.store.tables import event_links, posts

REST = "http://example.test/cal/events/v1"


@dataclass(frozen=True)
class Kind:
    """One of the two linked types: its wire name (``venue``), content type and collection URL."""

    name: str
    content_type: str
    url: str

    @property
    def key(self) -> str:
        return f"{self.name}s"

    def fixture_meta(self, uid: str) -> dict[str, Any]:
        if self.name == "venue":
            return {
                "_VenueAddress": f"{uid} address", "_VenueCity": f"{uid} city", "_VenueCountry": f"{uid} country",
                "_VenueProvince": f"{uid} province", "_VenueState": f"{uid} state", "_VenueZip": f"{uid} zip",
                "_VenuePhone": f"{uid} phone", "_VenueURL": f"{uid} url", "_VenueStateProvince": f"{uid} state_province",
            }
        return {"_OrganizerPhone": f"{uid} phone", "_OrganizerWebsite": f"{uid} website", "_OrganizerEmail": f"{uid} email"}


VENUE = Kind("venue", "cal_venue", VENUES)
ORGANIZER = Kind("organizer", "cal_organizer", ORGANIZERS)


needs_media = pytest.mark.skipif(importlib.util.find_spec("calpress.media") is None,
                                 reason="needs calpress.media (branch media)")


def store_image(app: Any, width: int = 640, height: int = 480) -> int:
    """An image attachment stored with its sub-sizes, as the peer tests' ``create_upload_object``."""
    from content_support import context
    from PIL import Image

    from calpress.media import attachments

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "green").save(buffer, format="JPEG")
    with app.site.write() as conn:
        return attachments.create_attachment(conn, context(app), None, buffer.getvalue(),
                                             "featured-image.jpg")


def image_url(app: Any, attachment_id: int) -> str:
    return stored(app, attachment_id).guid


def have(app: Any, kind: Kind, *, title: str | None = None, content: str | None = None, excerpt: str | None = None,
         status: str = "publish", author: int | None = None, meta: dict[str, Any] | None = None,
         featured_media: int | None = None) -> int:
    """A venue or organizer row with every attribute set (``haveVenueInDatabase``)."""
    uid = secrets.token_hex(6)
    label = kind.name.capitalize()
    item = make_item(
        app, kind.content_type, title=title if title is not None else f"{label} {uid}",
        content=content if content is not None else f"{label} {uid} description",
        excerpt=excerpt if excerpt is not None else f"{label} {uid} excerpt",
        slug=f"{kind.name}-{uid}", status=status, author=author, meta={**kind.fixture_meta(uid), **(meta or {})},
        featured_media=featured_media,
    )
    return item.id


def have_many(app: Any, kind: Kind, count: int, **fields: Any) -> list[int]:
    return sorted(have(app, kind, **fields) for _ in range(count))


def have_event(client: Any, admin: Any, kind: Kind, linked: int | None = None, *, status: str = "publish",
               start_hours: float = 24) -> int:
    """An event (``haveEventInDatabase``), linked to the venue or organizer ``linked``."""
    fields: dict[str, Any] = {"status": status}
    if linked is not None:
        fields[kind.name] = str(linked)
    return make_event(client, admin, start_hours=start_hours, **fields)["id"]


def form(fields: dict[str, Any]) -> dict[str, Any]:
    """Request arguments for a form-encoded body, as the peer tests send (``sendPOST`` with an array)."""
    return {"body": urlencode(fields, doseq=True), "content_type": "application/x-www-form-urlencoded"}


def count_posts(app: Any) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(posts)).scalar_one()


def stored(app: Any, item_id: int) -> Any:
    with app.site.read() as conn:
        return conn.execute(sa.select(posts).where(posts.c.id == item_id)).one()


def linked_ids(app: Any, event_id: int, kind: Kind) -> list[int]:
    with app.site.read() as conn:
        return list(conn.execute(
            sa.select(event_links.c.linked_id).where(event_links.c.event_id == event_id, event_links.c.kind == kind.name)
        ).scalars())


def listed(response: Any, kind: Kind) -> list[int]:
    assert response.status_code == 200, response.json
    return sorted(item["id"] for item in response.json[kind.key])


def url_has(url: str, path: str, **query: str) -> None:
    """The peer tests' ``see_response_contains_url``: the path, and the listed query values."""
    parts = urlsplit(url)
    assert parts.scheme + "://" + parts.netloc + parts.path == REST + path, url
    found = {name: values[-1] for name, values in parse_qs(parts.query).items()}
    for name, value in query.items():
        assert found.get(name) == value, (url, name)


def assert_empty(response: Any, kind: Kind) -> None:
    assert response.status_code == 200, response.json
    body = response.json
    assert body[kind.key] == [] and body["total"] == 0 and body["total_pages"] == 0
    assert response.headers["X-TEC-Total"] == "0" and response.headers["X-TEC-TotalPages"] == "0"
    assert "next_rest_url" not in body and "previous_rest_url" not in body


def tomorrow_9am() -> dt.datetime:
    today = dt.datetime.now(dt.UTC).replace(hour=9, minute=0, second=0, microsecond=0)
    return today + dt.timedelta(days=1)


# -- *ArchiveCest ---------------------------------------------------------------------------------


NOT_POSITIVE = ("foo", "-1", "0", "foo bar")


def archive_empty(client: Any, kind: Kind) -> None:
    assert_empty(client.get(kind.url), kind)


def archive_lists_pages(app: Any, client: Any, kind: Kind) -> None:
    set_option(app, "posts_per_page", 5)
    created = have_many(app, kind, 10)
    first = client.get(kind.url)
    assert first.status_code == 200
    first_ids = listed(first, kind)
    assert len(first_ids) == 5 and set(first_ids) <= set(created)
    assert first.json["total"] == 10 and first.json["total_pages"] == 2
    assert first.headers["X-TEC-Total"] == "10" and first.headers["X-TEC-TotalPages"] == "2"
    second = client.get(kind.url, params={"page": "2"})
    assert listed(second, kind) == sorted(set(created) - set(first_ids))
    assert second.json["total"] == 10 and second.json["total_pages"] == 2
    assert second.headers["X-TEC-Total"] == "10" and second.headers["X-TEC-TotalPages"] == "2"


def archive_per_page(app: Any, client: Any, kind: Kind) -> None:
    set_option(app, "posts_per_page", 5)
    created = set(have_many(app, kind, 10))
    four = client.get(kind.url, params={"per_page": "4"})
    assert len(listed(four, kind)) == 4 and set(listed(four, kind)) <= created
    assert (four.json["total"], four.json["total_pages"]) == (10, 3)
    assert (four.headers["X-TEC-Total"], four.headers["X-TEC-TotalPages"]) == ("10", "3")
    two = client.get(kind.url, params={"per_page": "2", "page": "2"})
    assert len(listed(two, kind)) == 2 and set(listed(two, kind)) <= created
    assert (two.json["total"], two.json["total_pages"]) == (10, 5)
    assert (two.headers["X-TEC-Total"], two.headers["X-TEC-TotalPages"]) == ("10", "5")


def archive_caps_per_page(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 51)
    set_option(app, "posts_per_page", 5)
    response = client.get(kind.url, params={"per_page": "100"})
    assert len(response.json[kind.key]) == 50
    assert response.json["total"] == 51 and response.json["total_pages"] == 2


def archive_identity_rest_url(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 5)
    set_option(app, "posts_per_page", 5)
    body = client.get(kind.url).json
    url_has(body["rest_url"], f"/{kind.key}/", page="1", per_page="5", status="publish")
    assert "next_rest_url" not in body and "previous_rest_url" not in body


def archive_next_rest_url(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 7)
    set_option(app, "posts_per_page", 5)
    url_has(client.get(kind.url).json["next_rest_url"], f"/{kind.key}/", page="2")


def archive_previous_rest_url(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 9)
    set_option(app, "posts_per_page", 3)
    body = client.get(kind.url, params={"page": "3"}).json
    url_has(body["previous_rest_url"], f"/{kind.key}/", page="2")
    assert "next_rest_url" not in body


def archive_previous_is_root(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 6)
    set_option(app, "posts_per_page", 3)
    previous = client.get(kind.url, params={"page": "2"}).json["previous_rest_url"]
    url_has(previous, f"/{kind.key}/", per_page="3")
    assert "page" not in parse_qs(urlsplit(previous).query)


def archive_page_beyond_last(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 3)
    set_option(app, "posts_per_page", 3)
    response = client.get(kind.url, params={"page": "2"})
    assert response.status_code == 404
    assert response.json == {
        "code": f"{kind.name}-archive-page-not-found",
        "message": f"The requested {kind.name} archive page does not exist",
        "data": {"status": 404},
    }


def archive_bad_number(client: Any, kind: Kind, name: str) -> None:
    for value in NOT_POSITIVE:
        response = client.get(kind.url, params={name: value})
        assert response.status_code == 400, value
        assert response.json["code"] == "rest_invalid_param" and list(response.json["data"]["params"]) == [name]


def archive_totals(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 10)
    set_option(app, "posts_per_page", 5)
    response = client.get(kind.url)
    assert (response.json["total"], response.json["total_pages"]) == (10, 2)
    assert (response.headers["X-TEC-Total"], response.headers["X-TEC-TotalPages"]) == ("10", "2")


def archive_hides_drafts(app: Any, client: Any, kind: Kind) -> None:
    have_many(app, kind, 3, status="draft")
    assert_empty(client.get(kind.url), kind)


def archive_shows_drafts_to_editors(app: Any, client: Any, accounts: Any, kind: Kind) -> None:
    drafts = have_many(app, kind, 3, status="draft")
    have(app, kind, status="trash")
    assert_empty(client.get(kind.url), kind)  # the anonymous answer is cached apart from the editor's
    response = client.get(kind.url, user=accounts["editor"])
    assert listed(response, kind) == drafts
    url_has(response.json["rest_url"], f"/{kind.key}/", status="any")


def archive_by_status(app: Any, client: Any, accounts: Any, kind: Kind) -> None:
    published = have_many(app, kind, 3, status="publish")
    drafts = have_many(app, kind, 3, status="draft")
    pending = have_many(app, kind, 3, status="pending")
    editor = accounts["editor"]
    assert listed(client.get(kind.url, params={"status": "publish"}, user=editor), kind) == published
    both = client.get(kind.url, params={"status": "publish, draft"}, user=editor)
    assert listed(both, kind) == sorted(published + drafts)
    every = client.get(kind.url, query_string="status[]=publish&status[]=draft&status[]=pending", user=editor)
    assert listed(every, kind) == sorted(published + drafts + pending)


def archive_unknown_status(app: Any, client: Any, accounts: Any, kind: Kind) -> None:
    have_many(app, kind, 3)
    for value in ("foo", "foo, bar", "foo, bar, publish"):
        response = client.get(kind.url, params={"status": value}, user=accounts["editor"])
        assert response.status_code == 400, value
        assert response.json["code"] == "rest_invalid_param" and list(response.json["data"]["params"]) == ["status"]


def archive_status_anonymous(app: Any, client: Any, kind: Kind) -> None:
    published = have_many(app, kind, 3)
    have_many(app, kind, 3, status="draft")
    have_many(app, kind, 3, status="pending")
    assert listed(client.get(kind.url, params={"status": "publish"}), kind) == published
    refused = client.get(kind.url, params={"status": "publish, draft"})
    assert refused.status_code == 400 and list(refused.json["data"]["params"]) == ["status"]


# -- *ArchiveSearchCest ---------------------------------------------------------------------------


def search_by_post_field(app: Any, client: Any, kind: Kind, field: str, word: str) -> None:
    for suffix in ("foo", "baz", "bar"):
        have(app, kind, **{field: f"{word} {suffix}"})
    have(app, kind, status="draft", **{field: f"{word} foo"})  # never shown to anonymous callers
    nothing = client.get(kind.url, params={"search": "woo"})
    assert nothing.status_code == 200 and nothing.json[kind.key] == []
    assert len(listed(client.get(kind.url, params={"search": word}), kind)) == 3
    assert len(listed(client.get(kind.url, params={"search": f"{word} foo"}), kind)) == 1
    assert len(listed(client.get(kind.url, params={"search": f"{word.upper()} FOO"}), kind)) == 1


def search_counts(client: Any, kind: Kind, searches: dict[str, int]) -> None:
    assert client.get(kind.url, params={"search": "woo"}).json[kind.key] == []
    assert len(listed(client.get(kind.url, params={"search": kind.name.capitalize()}), kind)) == 3
    for text, expected in searches.items():
        response = client.get(kind.url, params={"search": text})
        assert len(listed(response, kind)) == expected, text
        url_has(response.json["rest_url"], f"/{kind.key}/")
        assert "search=" not in response.json["rest_url"]


# -- *ByEmptyArchiveCest --------------------------------------------------------------------------


def by_empty_status(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    first, second, third = (have(app, kind) for _ in range(3))
    have_event(client, admin, kind, third)
    with_events = client.get(kind.url, params={"has_events": "true"})
    assert listed(with_events, kind) == [third]
    url_has(with_events.json["rest_url"], f"/{kind.key}/", has_events="true")
    assert listed(client.get(kind.url, params={"has_events": "false"}), kind) == sorted([first, second])


def by_empty_none_related(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    for _ in range(3):
        have_event(client, admin, kind)
    have_many(app, kind, 3)
    assert_empty(client.get(kind.url, params={"has_events": "true"}), kind)


def by_empty_none_without(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    for _ in range(3):
        have_event(client, admin, kind, have(app, kind))
    assert_empty(client.get(kind.url, params={"has_events": "false"}), kind)


def by_empty_counts_every_other_status(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    """calendar-api.md 3.2: only draft and pending events leave an item "empty"; private, future
    and trashed events count."""
    by_status = {status: have(app, kind) for status in ("private", "future", "trash", "draft", "pending")}
    for status, linked in by_status.items():
        fields: dict[str, Any] = {kind.name: str(linked), "status": "publish" if status == "trash" else status}
        if status == "future":
            fields["date"] = when(24 * 7)
        event = make_event(client, admin, **fields)
        assert event["status"] == fields["status"]
        if status == "trash":
            assert client.delete(f"/cal/events/v1/events/{event['id']}", user=admin).status_code == 200
    counted = sorted(by_status[s] for s in ("private", "future", "trash"))
    assert listed(client.get(kind.url, params={"has_events": "1"}), kind) == counted
    assert listed(client.get(kind.url, params={"has_events": "no"}), kind) == sorted([by_status["draft"], by_status["pending"]])
    anything = client.get(kind.url, params={"has_events": "maybe"})  # not a flag: read as false, as the reference
    assert anything.status_code == 200 and listed(anything, kind) == sorted([by_status["draft"], by_status["pending"]])


def by_empty_drafts_do_not_count(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    first, second, third, fourth = (have(app, kind) for _ in range(4))
    have_event(client, admin, kind, first, status="draft")
    have_event(client, admin, kind, second, status="pending")
    have_event(client, admin, kind, third)
    assert listed(client.get(kind.url, params={"has_events": "true"}), kind) == [third]
    assert listed(client.get(kind.url, params={"has_events": "false"}), kind) == sorted([first, second, fourth])


# -- *ByEventArchiveCest --------------------------------------------------------------------------


def by_event(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    expected: dict[int, int] = {}
    for _ in range(3):
        linked = have(app, kind)
        for _ in range(3):
            expected[have_event(client, admin, kind, linked)] = linked
    for event_id, linked in expected.items():
        response = client.get(kind.url, params={"event": str(event_id)})
        assert listed(response, kind) == [linked]
        url_has(response.json["rest_url"], f"/{kind.key}/", event=str(event_id))


def by_event_not_an_event(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    not_an_event = have(app, kind)
    for value in ("23", str(not_an_event), "foo"):
        response = client.get(kind.url, params={"event": value})
        assert response.status_code == 400, value
        assert response.json["code"] == "rest_invalid_param" and list(response.json["data"]["params"]) == ["event"]


def by_event_none_related(app: Any, client: Any, admin: Any, kind: Kind, *, with_others: bool) -> None:
    event = have_event(client, admin, kind)
    if with_others:
        have_many(app, kind, 3)
    assert_empty(client.get(kind.url, params={"event": str(event)}), kind)


def by_event_draft_hidden(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    draft = have(app, kind, status="draft")
    event = have_event(client, admin, kind, draft)
    assert_empty(client.get(kind.url, params={"event": str(event)}), kind)


def by_event_draft_shown_to_editors(app: Any, client: Any, admin: Any, accounts: Any, kind: Kind) -> None:
    draft = have(app, kind, status="draft")
    event = have_event(client, admin, kind, draft)
    assert listed(client.get(kind.url, params={"event": str(event)}, user=accounts["editor"]), kind) == [draft]


# -- *ByUpcomingArchiveCest -----------------------------------------------------------------------

MONTH = 30 * 24


def by_upcoming(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    first, second, third, fourth = (have(app, kind) for _ in range(4))
    have_event(client, admin, kind, first, start_hours=MONTH)
    have_event(client, admin, kind, second, start_hours=MONTH)
    have_event(client, admin, kind, third, start_hours=-MONTH)
    assert listed(client.get(kind.url, params={"only_with_upcoming": "true"}), kind) == sorted([first, second])
    everything = client.get(kind.url, params={"only_with_upcoming": "false"})
    assert listed(everything, kind) == sorted([first, second, third, fourth])


def by_upcoming_none(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    for _ in range(3):
        have_event(client, admin, kind, have(app, kind), start_hours=-MONTH)
    have(app, kind)
    assert_empty(client.get(kind.url, params={"only_with_upcoming": "true"}), kind)


def by_upcoming_depends_on_user(app: Any, client: Any, admin: Any, accounts: Any, kind: Kind, statuses: tuple[str, str]) -> None:
    first, second, third, _ = (have(app, kind) for _ in range(4))
    have_event(client, admin, kind, first, start_hours=MONTH)
    have_event(client, admin, kind, second, status=statuses[0], start_hours=MONTH)
    have_event(client, admin, kind, third, status=statuses[1], start_hours=MONTH)
    assert listed(client.get(kind.url, params={"only_with_upcoming": "true"}), kind) == [first]
    editor_view = client.get(kind.url, params={"only_with_upcoming": "true"}, user=accounts["editor"])
    assert listed(editor_view, kind) == sorted([first, second, third])


# -- *SingleCest, *SingleSlugCest -----------------------------------------------------------------


def single_keys(kind: Kind) -> list[str]:
    shared = ["author", "date", "date_utc", "modified", "modified_utc", "status", "url", kind.name, "description",
              "excerpt", "image", "json_ld", "global_id", "global_id_lineage"]
    if kind.name == "venue":
        return [*shared, "show_map", "show_map_link", "address", "city", "country", "province", "state", "zip", "phone",
                "website", "stateprovince"]
    return [*shared, "phone", "website", "email"]


def single_read(app: Any, client: Any, kind: Kind, image: int, *, by_slug: bool) -> None:
    item_id = have(app, kind, featured_media=image)
    response = client.get(_single_path(app, kind, item_id, by_slug))
    assert response.status_code == 200 and response.json["id"] == item_id
    for key in single_keys(kind):
        assert key in response.json, key
    assert response.json["image"]["id"] == image
    assert response.json["json_ld"]["@type"] == ("Place" if kind.name == "venue" else "Person")
    assert response.json["global_id"] == f"example.test?id={item_id}"


def single_bad_ids(client: Any, kind: Kind) -> None:
    for bad in ("foo", "foo%20bar", "foo-bar"):
        response = client.get(f"{kind.url}/{bad}")
        assert response.status_code == 404 and response.json["code"] == "rest_no_route", bad


def single_unknown_id(app: Any, client: Any, kind: Kind) -> None:
    other = VENUE if kind is ORGANIZER else ORGANIZER
    for item_id in (23, have(app, other)):
        response = client.get(f"{kind.url}/{item_id}")
        assert response.status_code == 400
        assert response.json == {"code": "rest_invalid_param", "message": "Invalid parameter(s): id",
                                 "data": {"status": 400, "params": {"id": "Invalid parameter."}, "details": []}}


def single_unknown_slug(client: Any, kind: Kind) -> None:
    response = client.get(f"{kind.url}/by-slug/non-existing-slug")
    assert response.status_code == 400
    assert response.json["code"] == "rest_invalid_param" and list(response.json["data"]["params"]) == ["slug"]


def _single_path(app: Any, kind: Kind, item_id: int, by_slug: bool) -> str:
    return f"{kind.url}/by-slug/{stored(app, item_id).slug}" if by_slug else f"{kind.url}/{item_id}"


def single_draft_refused(app: Any, client: Any, accounts: Any, kind: Kind, *, by_slug: bool) -> None:
    path = _single_path(app, kind, have(app, kind, status="draft"), by_slug)
    refused = client.get(path)
    assert refused.status_code == 403
    assert refused.json == {"code": f"{kind.name}-not-accessible", "message": f"The requested {kind.name} is not accessible",
                            "data": {"status": 403}}
    assert client.get(path, user=accounts["subscriber"]).status_code == 403


def single_draft_shown(app: Any, client: Any, accounts: Any, kind: Kind, *, by_slug: bool) -> None:
    draft = have(app, kind, status="draft")
    shown = client.get(_single_path(app, kind, draft, by_slug), user=accounts["editor"])
    assert shown.status_code == 200 and shown.json["id"] == draft and shown.json["status"] == "draft"


# -- *InsertionCest, *UpdateCest ------------------------------------------------------------------

BAD_POST_FIELDS = (("author", "23"), ("author", "foo"), ("date", "foo"), ("date_utc", "foo"),
                   ("status", "kinda_thinking_about_it"))


def write_post_fields(app: Any, client: Any, admin: Any, make_account: Any, kind: Kind, path: str, status: int) -> None:
    editor = make_account("author-editor", "editor")
    moment = tomorrow_9am()
    stamp = str(int(moment.timestamp()))
    response = client.post(path, user=admin, **form({
        kind.name: f"A {kind.name}", "author": str(editor.id), "date": stamp, "date_utc": stamp,
        "description": f"{kind.name.capitalize()} description", "status": "draft", "timezone": "America/New_York",
    }))
    assert response.status_code == status, response.json
    body = response.json
    assert body[kind.name] == f"A {kind.name}" and body["author"] == str(editor.id)
    assert body["date"] == body["date_utc"] == moment.strftime("%Y-%m-%d %H:%M:%S")
    assert body["description"] == f"<p>{kind.name.capitalize()} description</p>"
    assert body["status"] == "draft" and stored(app, body["id"]).status == "draft"


def write_bad_post_fields(app: Any, client: Any, admin: Any, kind: Kind, path: str) -> None:
    before = count_posts(app)
    for name, value in BAD_POST_FIELDS:
        response = client.post(path, user=admin, **form({kind.name: f"A {kind.name}", name: value}))
        assert response.status_code == 400, (name, value)
        assert response.json["code"] == "rest_invalid_param" and list(response.json["data"]["params"]) == [name]
    assert count_posts(app) == before


def write_empty_name(app: Any, client: Any, admin: Any, kind: Kind, path: str) -> None:
    before = count_posts(app)
    response = client.post(path, user=admin, json={kind.name: ""})
    assert response.status_code == 400
    assert response.json["code"] == "rest_invalid_param" and list(response.json["data"]["params"]) == [kind.name]
    assert count_posts(app) == before


def assert_same_id(client: Any, admin: Any, kind: Kind, first_id: int, variants: list[dict[str, str]]) -> None:
    for fields in variants:
        response = client.post(kind.url, user=admin, **form(fields))
        assert response.status_code == 201, fields
        assert response.json["id"] == first_id, fields


def insert_identical_twice(app: Any, client: Any, admin: Any, kind: Kind, name: str) -> None:
    description = f"{name} description"
    first = client.post(kind.url, user=admin, **form({kind.name: name, "description": description}))
    assert first.status_code == 201
    before = count_posts(app)
    assert_same_id(client, admin, kind, first.json["id"], [
        {kind.name: name, "description": description},
        {kind.name: name},
        {kind.name: name.lower(), "description": description.lower()},
    ])
    assert count_posts(app) == before
    different = client.post(kind.url, user=admin, **form({kind.name: name, "description": "Another description"}))
    assert different.status_code == 201 and different.json["id"] != first.json["id"]


def delete_bad_id(app: Any, client: Any, kind: Kind) -> None:
    other = VENUE if kind is ORGANIZER else ORGANIZER
    for item_id in (23, have(app, other)):
        response = client.delete(f"{kind.url}/{item_id}")
        assert response.status_code == 400 and list(response.json["data"]["params"]) == ["id"], item_id
        updated = client.post(f"{kind.url}/{item_id}", json={kind.name: "Anything"})
        assert updated.status_code == 400 and list(updated.json["data"]["params"]) == ["id"], item_id
    for method in ("POST", "DELETE"):
        response = client.request(method, f"{kind.url}/by-slug/no-such-slug")
        assert response.status_code == 400 and list(response.json["data"]["params"]) == ["slug"], method


def delete_anonymous(app: Any, client: Any, kind: Kind) -> None:
    item_id = have(app, kind)
    response = client.delete(f"{kind.url}/{item_id}")
    assert response.status_code == 401 and response.json["code"] == "rest_forbidden"
    assert stored(app, item_id).status == "publish"


def delete_ok(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    item_id = have(app, kind)
    response = client.delete(f"{kind.url}/{item_id}", user=admin, params={"force": "true"})  # force is ignored
    assert response.status_code == 200 and response.json["id"] == item_id and response.json["status"] == "trash"
    assert "json_ld" not in response.json
    assert stored(app, item_id).status == "trash"


def delete_trashed(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    item_id = have(app, kind, status="trash")
    response = client.delete(f"{kind.url}/{item_id}", user=admin)
    assert response.status_code == 410
    assert response.json == {"code": f"{kind.name}-is-in-trash", "message": f"The {kind.name} is already trashed",
                             "data": {"status": 410}}


def delete_unlinks(app: Any, client: Any, admin: Any, kind: Kind) -> None:
    item_id = have(app, kind)
    kept = have(app, kind)
    value = str(item_id) if kind.name == "venue" else [str(item_id), str(kept)]
    event = make_event(client, admin, **{kind.name: value})["id"]
    meta_key = "_EventVenueID" if kind.name == "venue" else "_EventOrganizerID"
    assert item_id in stored(app, event).meta[meta_key] and item_id in linked_ids(app, event, kind)
    assert client.delete(f"{kind.url}/{item_id}", user=admin).status_code == 200
    assert item_id not in (stored(app, event).meta.get(meta_key) or []) and item_id not in linked_ids(app, event, kind)
    shown = client.get(f"/cal/events/v1/events/{event}").json[kind.name]
    if kind.name == "venue":
        assert shown == []
    else:
        assert [o["id"] for o in shown] == [kept] and linked_ids(app, event, kind) == [kept]
