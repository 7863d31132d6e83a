"""The WXR exporter (``calpress.transfer.wxr_export``): a site with posts, pages, a draft, an image,
events with their venue and organizers, comments and terms, written out and read back with the
standard library's XML parser."""

from __future__ import annotations

import base64
import dataclasses
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import pytest
from content_support import context, make_item, make_term, set_option, statement_counter
from PIL import Image

from calpress.auth import app_passwords
from calpress.auth import users as user_store
from calpress.calendar.definitions import EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from calpress.compat.php_serial import unserialize
from calpress.content import comments as comment_store
from calpress.content import items as item_service
from calpress.media.attachments import METADATA_KEY, create_attachment
from calpress.transfer.wxr_export import ExportSummary, export_wxr

WP = "http://wordpress.org/export/1.2/"
NS = {
    "wp": WP,
    "excerpt": "http://wordpress.org/export/1.2/excerpt/",
    "content": "http://purl.org/rss/1.0/modules/content/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "wfw": "http://wellformedweb.org/CommentAPI/",
}
EVENTS = "/cal/events/v1/events"


def image_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (400, 300), "teal").save(buffer, format="PNG")
    return buffer.getvalue()


@dataclass
class Built:
    ids: dict[str, int]
    summary: ExportSummary
    data: bytes
    root: ET.Element

    @property
    def channel(self) -> ET.Element:
        return self.root.find("channel")

    def item(self, key: str) -> ET.Element:
        wanted = str(self.ids[key])
        for item in self.channel.findall("item"):
            if item.findtext("wp:post_id", namespaces=NS) == wanted:
                return item
        raise AssertionError(f"no item {key} ({wanted})")


def field(item: ET.Element, name: str) -> str:
    found = item.find(name, NS)
    assert found is not None, name
    return found.text or ""


def meta(item: ET.Element) -> list[tuple[str, str]]:
    return [(m.findtext("wp:meta_key", namespaces=NS), m.findtext("wp:meta_value", namespaces=NS) or "")
            for m in item.findall("wp:postmeta", NS)]


def meta_values(item: ET.Element, key: str) -> list[str]:
    return [value for found, value in meta(item) if found == key]


def categories(item: ET.Element) -> list[tuple[str, str, str]]:
    return [(c.get("domain"), c.get("nicename"), c.text or "") for c in item.findall("category")]


def build_site(app: Any, client: Any) -> dict[str, int]:
    """Everything the exporter writes: users, terms, items of every default type, comments."""
    site = app.site
    set_option(app, "blogname", "Tom &amp; Jerry")
    set_option(app, "blogdescription", "Cats <and> mice")
    with site.write() as conn:
        admin = user_store.create_user(conn, login="admin", email="admin@example.test", password="pw-admin-1234",
                                       roles=["administrator"], display_name="The Admin", first_name="Ada", last_name="Min")
        writer = user_store.create_user(conn, login="writer", email="writer@example.test", password="pw-writer-1234",
                                        roles=["author"])
        user_store.create_user(conn, login="idle", email="idle@example.test", password="pw-idle-1234", roles=["author"])
    with site.write() as conn:
        _, raw = app_passwords.create(conn, admin.id, "tests", app.settings.secret_key)
    site.mark_app_passwords_in_use()
    headers = {"Authorization": "Basic " + base64.b64encode(f"admin:{raw}".encode()).decode()}

    news = make_term(app, "category", "News")
    local = make_term(app, "category", "Local", parent=news)
    tag = make_term(app, "post_tag", "Cats & Dogs")
    concerts = make_term(app, "cal_events_cat", "Concerts")
    jazz = make_term(app, "cal_events_cat", "Jazz", parent=concerts)

    ctx = context(app)
    with site.write() as conn:
        image = create_attachment(conn, ctx, None, image_bytes(), "poster.png", author=admin.id)
    post = make_item(app, title="Hello\x01 World", content="before ]]> after <b>bold</b>", excerpt="Short",
                     author=admin.id, terms={"category": [local], "post_tag": [tag]}, sticky=True, format="aside",
                     featured_media=image)
    with site.write() as conn:
        item_service.merge_meta(conn, post.id, {
            "_settings": {"colour": "blue", "sizes": [1, 2], "nested": {"deep": True}},
            "related": ["x", "y"],
            "_cal_import_global_id": "wxr:somewhere#5",
        })
    parent = make_item(app, "page", title="About", author=writer.id, slug="about")
    child = make_item(app, "page", title="Team", author=writer.id, slug="team", parent=parent.id, menu_order=3)
    draft = make_item(app, title="Floating", status="draft", author=writer.id)

    venue = client.post("/cal/events/v1/venues", headers=headers,
                        json={"venue": "Hall", "address": "1 Main St", "city": "Paris", "country": "France", "show_map": "true"})
    assert venue.status_code == 201, venue.json
    first = client.post("/cal/events/v1/organizers", headers=headers, json={"organizer": "First", "email": "first@example.test"})
    second = client.post("/cal/events/v1/organizers", headers=headers, json={"organizer": "Second", "phone": "123"})
    assert first.status_code == 201 and second.status_code == 201
    concert = client.post(EVENTS, headers=headers, json={
        "title": "Concert", "description": "Music", "start_date": "2030-07-04 10:00:00", "end_date": "2030-07-04 12:00:00",
        "timezone": "America/New_York", "venue": venue.json["id"], "organizer": [second.json["id"], first.json["id"]],
        "cost": "$10", "website": "https://music.example.test/", "show_map": True, "show_map_link": False,
        "categories": [jazz], "image": str(image),
    })
    assert concert.status_code == 201, concert.json
    festival = client.post(EVENTS, headers=headers, json={
        "title": "Festival", "start_date": "2030-08-01 00:00:00", "end_date": "2030-08-02 00:00:00", "all_day": True,
        "featured": True, "sticky": True, "hide_from_listings": True,
    })
    assert festival.status_code == 201, festival.json

    with site.write() as conn:
        values = {"post_id": post.id, "author_name": "Reader", "author_email": "reader@example.test",
                  "author_url": "http://reader.example.test/?a=1&b=2", "author_ip": "192.0.2.1",
                  "content": "Nice ]]> post", "status": "approved", "type": "comment", "meta": {"rating": "5", "_wxr_import_id": "9"}}
        top = comment_store.insert_comment(conn, ctx, values)
        reply = comment_store.insert_comment(conn, ctx, {**values, "parent": top.id, "author": admin.id, "author_name": "Ada",
                                                         "content": "Thanks", "status": "hold", "meta": {}})
        spam = comment_store.insert_comment(conn, ctx, {**values, "content": "Buy now", "status": "spam", "meta": {}})
        trashed = comment_store.insert_comment(conn, ctx, {**values, "content": "Gone", "status": "trash", "meta": {}})
    return {
        "admin": admin.id, "writer": writer.id, "news": news, "local": local, "tag": tag, "concerts": concerts, "jazz": jazz,
        "image": image, "post": post.id, "about": parent.id, "team": child.id, "draft": draft.id,
        "venue": venue.json["id"], "first": first.json["id"], "second": second.json["id"],
        "concert": concert.json["id"], "festival": festival.json["id"],
        "comment": top.id, "reply": reply.id, "spam": spam.id, "trashed": trashed.id,
    }


def export(app: Any, **options: Any) -> tuple[ExportSummary, bytes, ET.Element]:
    out = io.BytesIO()
    summary = export_wxr(app.site, out, **options)
    data = out.getvalue()
    return summary, data, ET.fromstring(data)


@pytest.fixture()
def built(app, client) -> Built:
    ids = build_site(app, client)
    summary, data, root = export(app)
    return Built(ids, summary, data, root)


def test_the_channel_names_the_site_its_authors_and_every_term(built: Built) -> None:
    assert built.data.startswith(b'<?xml version="1.0" encoding="UTF-8" ?>\n')
    assert b'xmlns:wp="http://wordpress.org/export/1.2/"' in built.data
    assert built.root.tag == "rss" and built.root.get("version") == "2.0"
    channel = built.channel
    assert channel.findtext("title") == "Tom & Jerry"
    assert channel.findtext("description") == "Cats <and> mice"
    assert channel.findtext("link") == "http://example.test"
    assert channel.findtext("language") == "en-US"
    assert channel.findtext("pubDate").endswith(" +0000")
    assert channel.findtext("wp:wxr_version", namespaces=NS) == "1.2"
    assert channel.findtext("wp:base_site_url", namespaces=NS) == "http://example.test"
    assert channel.findtext("wp:base_blog_url", namespaces=NS) == "http://example.test"
    assert channel.findtext("generator").startswith("calpress/")

    authors = {a.findtext("wp:author_login", namespaces=NS): a for a in channel.findall("wp:author", NS)}
    assert set(authors) == {"admin", "writer"}  # "idle" wrote nothing
    admin = authors["admin"]
    assert admin.findtext("wp:author_id", namespaces=NS) == str(built.ids["admin"])
    assert admin.findtext("wp:author_email", namespaces=NS) == "admin@example.test"
    assert admin.findtext("wp:author_display_name", namespaces=NS) == "The Admin"
    assert admin.findtext("wp:author_first_name", namespaces=NS) == "Ada"
    assert admin.findtext("wp:author_last_name", namespaces=NS) == "Min"

    cats = [(c.findtext("wp:term_id", namespaces=NS), c.findtext("wp:category_nicename", namespaces=NS),
             c.findtext("wp:category_parent", namespaces=NS), c.findtext("wp:cat_name", namespaces=NS))
            for c in channel.findall("wp:category", NS)]
    slugs = [c[1] for c in cats]
    assert set(slugs) == {"uncategorized", "news", "local"}
    assert slugs.index("news") < slugs.index("local")
    assert (str(built.ids["local"]), "local", "news", "Local") in cats
    assert (str(built.ids["news"]), "news", "", "News") in cats
    tags = [(t.findtext("wp:tag_slug", namespaces=NS), t.findtext("wp:tag_name", namespaces=NS)) for t in channel.findall("wp:tag", NS)]
    # Names as stored, HTML-escaped as WordPress stores them (its export writes them so too).
    assert tags == [("cats-dogs", "Cats &amp; Dogs")]
    terms = [(t.findtext("wp:term_taxonomy", namespaces=NS), t.findtext("wp:term_slug", namespaces=NS),
              t.findtext("wp:term_parent", namespaces=NS), t.findtext("wp:term_name", namespaces=NS))
             for t in channel.findall("wp:term", NS)]
    assert terms == [("tribe_events_cat", "concerts", "", "Concerts"), ("tribe_events_cat", "jazz", "concerts", "Jazz")]

    assert built.summary.authors == 2
    assert built.summary.by_type == {"post": 2, "page": 2, "attachment": 1, EVENT_TYPE: 2, VENUE_TYPE: 1, ORGANIZER_TYPE: 2}
    assert built.summary.comments == 3  # spam is left out, as WordPress leaves it out
    # Every exported item once, in id order.
    ids = [int(item.findtext("wp:post_id", namespaces=NS)) for item in channel.findall("item")]
    assert ids == sorted(ids) and len(ids) == built.summary.items == 10


def test_a_post_with_its_fields_terms_and_meta(app, built: Built) -> None:
    post = built.item("post")
    # The control character is dropped; "]]>" survives the CDATA split.
    assert field(post, "title") == "Hello World"
    assert field(post, "content:encoded") == "before ]]> after <b>bold</b>"
    assert b"before ]]]]><![CDATA[> after" in built.data
    assert field(post, "excerpt:encoded") == "Short"
    assert field(post, "description") == ""
    assert field(post, "dc:creator") == "admin"
    assert post.find("guid").get("isPermaLink") == "false"
    assert field(post, "link").startswith("http://example.test/")
    with app.site.read() as conn:
        stored = item_service.get_item(conn, built.ids["post"])
        image = item_service.get_item(conn, built.ids["image"])
    assert field(post, "guid") == stored.guid
    assert field(post, "wp:post_date") == stored.date_local.strftime("%Y-%m-%d %H:%M:%S")
    assert field(post, "wp:post_date_gmt") == stored.date_utc.strftime("%Y-%m-%d %H:%M:%S")
    assert field(post, "wp:post_modified_gmt") == stored.modified_utc.strftime("%Y-%m-%d %H:%M:%S")
    assert field(post, "pubDate") == stored.date_utc.strftime("%a, %d %b %Y %H:%M:%S +0000")
    assert field(post, "wp:comment_status") == "open" and field(post, "wp:ping_status") == "open"
    assert field(post, "wp:post_name") == stored.slug
    assert field(post, "wp:status") == "publish"
    assert field(post, "wp:post_parent") == "0" and field(post, "wp:menu_order") == "0"
    assert field(post, "wp:post_type") == "post"
    assert field(post, "wp:post_password") == ""
    assert field(post, "wp:is_sticky") == "1"
    assert post.find("wp:attachment_url", NS) is None
    assert categories(post) == [("category", "local", "Local"), ("post_tag", "cats-dogs", "Cats &amp; Dogs"),
                                ("post_format", "post-format-aside", "post-format-aside")]

    rows = meta(post)
    keys = [key for key, _ in rows]
    assert "_post_format" not in keys and "_cal_import_global_id" not in keys
    assert meta_values(post, "_thumbnail_id") == [str(built.ids["image"])]
    # An array is one serialized row that reads back as stored; so is an unregistered list.
    [settings] = meta_values(post, "_settings")
    assert unserialize(settings) == {"colour": "blue", "sizes": [1, 2], "nested": {"deep": True}}
    assert [unserialize(text) for text in meta_values(post, "related")] == [["x", "y"]]

    attachment = built.item("image")
    assert field(attachment, "wp:post_type") == "attachment"
    assert field(attachment, "wp:status") == "inherit"
    url = field(attachment, "wp:attachment_url")
    assert url.startswith("http://example.test/wp-content/uploads/") and url.endswith(".png")
    assert url.endswith(image.meta["_wp_attached_file"])
    [metadata] = meta_values(attachment, METADATA_KEY)
    assert unserialize(metadata) == _php_array(image.meta[METADATA_KEY])
    assert meta_values(attachment, "_wp_attached_file") == [image.meta["_wp_attached_file"]]

    page = built.item("team")
    assert field(page, "link") == "http://example.test/about/team/"
    assert field(page, "wp:post_parent") == str(built.ids["about"])
    assert field(page, "wp:menu_order") == "3"
    assert field(page, "dc:creator") == "writer"
    assert field(page, "wp:is_sticky") == "0"

    draft = built.item("draft")
    assert field(draft, "wp:status") == "draft"
    assert field(draft, "wp:post_date_gmt") == "0000-00-00 00:00:00"
    assert field(draft, "link") == f"http://example.test/?p={built.ids['draft']}"


def _php_array(value: Any) -> Any:
    """A stored JSON value as PHP would hand it back: an empty object is an empty array (a list),
    numeric string keys are integers, and 0..n-1 keys make a list."""
    if isinstance(value, list):
        return [_php_array(v) for v in value]
    if isinstance(value, dict):
        entries = {int(k) if str(k).isdigit() else k: _php_array(v) for k, v in value.items()}
        if list(entries) == list(range(len(entries))):
            return list(entries.values())
        return entries
    return value


def test_events_venues_and_organizers_carry_the_calendars_meta(built: Built) -> None:
    concert = built.item("concert")
    assert field(concert, "wp:post_type") == "tribe_events"
    assert field(concert, "content:encoded") == "Music"
    assert categories(concert) == [("tribe_events_cat", "jazz", "Jazz")]
    values = dict(meta(concert))
    assert values["_EventStartDate"] == "2030-07-04 10:00:00"
    assert values["_EventEndDate"] == "2030-07-04 12:00:00"
    assert values["_EventStartDateUTC"] == "2030-07-04 14:00:00"
    assert values["_EventEndDateUTC"] == "2030-07-04 16:00:00"
    assert values["_EventTimezone"] == "America/New_York"
    assert values["_EventTimezoneAbbr"] == "EDT"
    assert values["_EventDuration"] == "7200"
    assert values["_EventShowMap"] == "1" and values["_EventShowMapLink"] == ""
    assert values["_EventCost"] == "$10"
    assert values["_EventCurrencySymbol"] == "$" and values["_EventCurrencyPosition"] == "prefix"
    assert values["_EventURL"] == "https://music.example.test/"
    assert values["_thumbnail_id"] == str(built.ids["image"])
    for absent in ("_EventAllDay", "_tribe_featured", "_EventHideFromUpcoming"):
        assert absent not in values
    assert meta_values(concert, "_EventVenueID") == [str(built.ids["venue"])]
    # One row per organizer, in the order they were linked.
    assert meta_values(concert, "_EventOrganizerID") == [str(built.ids["second"]), str(built.ids["first"])]
    assert field(concert, "wp:menu_order") == "0"

    festival = built.item("festival")
    values = dict(meta(festival))
    assert values["_EventAllDay"] == "yes"
    assert values["_tribe_featured"] == "1"
    assert values["_EventHideFromUpcoming"] == "yes"
    assert values["_EventStartDate"] == "2030-08-01 00:00:00" and values["_EventEndDate"] == "2030-08-02 23:59:59"
    assert values["_EventTimezone"] == "UTC" and values["_EventTimezoneAbbr"] == "UTC"  # the site's zone
    assert values["_EventShowMap"] == "" and values["_EventShowMapLink"] == ""
    assert field(festival, "wp:menu_order") == "-1"  # sticky in month view
    assert meta_values(festival, "_EventVenueID") == [] and meta_values(festival, "_EventOrganizerID") == []

    venue = built.item("venue")
    assert field(venue, "wp:post_type") == "tribe_venue" and field(venue, "title") == "Hall"
    venue_meta = dict(meta(venue))
    assert venue_meta["_VenueAddress"] == "1 Main St"
    assert venue_meta["_VenueCity"] == "Paris"
    assert venue_meta["_VenueCountry"] == "France"
    assert venue_meta["_VenueShowMap"] == "1"
    organizer = built.item("first")
    assert field(organizer, "wp:post_type") == "tribe_organizer"
    assert dict(meta(organizer))["_OrganizerEmail"] == "first@example.test"
    assert dict(meta(built.item("second")))["_OrganizerPhone"] == "123"


def test_comments_are_written_with_their_meta_but_spam_is_not(built: Built) -> None:
    post = built.item("post")
    found = {int(c.findtext("wp:comment_id", namespaces=NS)): c for c in post.findall("wp:comment", NS)}
    assert set(found) == {built.ids["comment"], built.ids["reply"], built.ids["trashed"]}
    top = found[built.ids["comment"]]
    assert top.findtext("wp:comment_author", namespaces=NS) == "Reader"
    assert top.findtext("wp:comment_author_email", namespaces=NS) == "reader@example.test"
    assert top.findtext("wp:comment_author_url", namespaces=NS) == "http://reader.example.test/?a=1&b=2"
    assert top.findtext("wp:comment_author_IP", namespaces=NS) == "192.0.2.1"
    assert top.findtext("wp:comment_content", namespaces=NS) == "Nice ]]> post"
    assert top.findtext("wp:comment_approved", namespaces=NS) == "1"
    assert top.findtext("wp:comment_type", namespaces=NS) == "comment"
    assert top.findtext("wp:comment_parent", namespaces=NS) == "0"
    assert top.findtext("wp:comment_user_id", namespaces=NS) == "0"
    assert len(top.findtext("wp:comment_date_gmt", namespaces=NS)) == 19
    # The importer's own marker is calpress's bookkeeping, not the comment's meta.
    assert [(m.findtext("wp:meta_key", namespaces=NS), m.findtext("wp:meta_value", namespaces=NS))
            for m in top.findall("wp:commentmeta", NS)] == [("rating", "5")]
    reply = found[built.ids["reply"]]
    assert reply.findtext("wp:comment_approved", namespaces=NS) == "0"
    assert reply.findtext("wp:comment_parent", namespaces=NS) == str(built.ids["comment"])
    assert reply.findtext("wp:comment_user_id", namespaces=NS) == str(built.ids["admin"])
    assert found[built.ids["trashed"]].findtext("wp:comment_approved", namespaces=NS) == "trash"


def test_calpress_names_on_request(app, built: Built) -> None:
    _, _, root = export(app, names="calpress")
    channel = root.find("channel")
    types = {item.findtext("wp:post_type", namespaces=NS) for item in channel.findall("item")}
    assert types == {"post", "page", "attachment", EVENT_TYPE, VENUE_TYPE, ORGANIZER_TYPE}
    assert {t.findtext("wp:term_taxonomy", namespaces=NS) for t in channel.findall("wp:term", NS)} == {"cal_events_cat"}
    concert = next(item for item in channel.findall("item")
                   if item.findtext("wp:post_id", namespaces=NS) == str(built.ids["concert"]))
    assert categories(concert) == [("cal_events_cat", "jazz", "Jazz")]
    # The meta keys are the calendar's either way.
    assert dict(meta(concert))["_EventStartDate"] == "2030-07-04 10:00:00"
    with pytest.raises(ValueError):
        export_wxr(app.site, io.BytesIO(), names="drupal")


def test_batches_progress_and_chosen_types(app) -> None:
    created = [make_item(app, title=f"Post {n}").id for n in range(5)]
    make_item(app, "page", title="Only page")
    make_item(app, title="Never saved", status="auto-draft")
    calls: list[tuple[int, int]] = []
    out = io.BytesIO()
    summary = export_wxr(app.site, out, post_types=["post"], batch_size=2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(2, 5), (4, 5), (5, 5)]
    root = ET.fromstring(out.getvalue())
    assert [int(i.findtext("wp:post_id", namespaces=NS)) for i in root.iter("item")] == created
    assert summary.by_type == {"post": 5} and summary.items == 5
    with pytest.raises(ValueError):
        export_wxr(app.site, io.BytesIO(), post_types=["nope"])
    # What a batch costs does not grow with the items in it: a fixed number of statements each.
    with statement_counter(app) as five:
        export_wxr(app.site, io.BytesIO(), batch_size=100)
    for n in range(5):
        make_item(app, title=f"More {n}", terms={"post_tag": [make_term(app, "post_tag", f"Tag {n}")]})
    with statement_counter(app) as ten:
        export_wxr(app.site, io.BytesIO(), batch_size=100)
    assert len(ten) == len(five)
    # An empty site is still a well-formed file.
    empty = io.BytesIO()
    assert export_wxr(app.site, empty, post_types=["cal_venue"]).items == 0
    assert ET.fromstring(empty.getvalue()).find("channel").findall("item") == []


# -- the command: where the file's addresses come from, where it goes (issue 29, item 7) -----------


def _exported_addresses(path) -> tuple[str, list[str], list[str]]:
    """The channel's base address, the items' links and the attachment URLs of an export."""
    channel = ET.parse(path).getroot().find("channel")
    links = [item.findtext("link") for item in channel.findall("item")]
    files = [item.findtext("wp:attachment_url", namespaces=NS) for item in channel.findall("item")
             if item.findtext("wp:post_type", namespaces=NS) == "attachment"]
    return channel.findtext("wp:base_site_url", namespaces=NS), links, files


def test_export_without_a_site_address_is_refused_and_writes_nothing(cli_admin, tmp_path, monkeypatch) -> None:
    """No site URL setting and no siteurl/home option: the file's links and attachment URLs would
    be relative and an import of it would fail every attachment. Refused, naming --site-url."""
    monkeypatch.delenv("CALPRESS_SITE_URL", raising=False)
    poster = tmp_path / "poster.png"
    poster.write_bytes(image_bytes())
    code, _, err = cli_admin("media", "import", str(poster), "--porcelain")
    assert code == 0, err
    code, _, err = cli_admin("post", "create", "--post_title=Exported", "--post_status=publish", "--porcelain")
    assert code == 0, err
    target = tmp_path / "site.xml"
    for where in (str(target), "-"):
        code, out, err = cli_admin("export", "wxr", where, "--quiet")
        assert code == 1 and out == "", (where, out)
        assert err.startswith("Error: ") and "--site-url" in err and err.count("\n") == 1, err
    assert not target.exists() and not list(tmp_path.glob("*.part"))

    # Given on the command line: absolute addresses everywhere.
    code, out, err = cli_admin("--site-url", "https://given.example.org", "export", "wxr", str(target), "--quiet")
    assert code == 0, err
    base, links, files = _exported_addresses(target)
    assert base == "https://given.example.org"
    assert links and all(link.startswith("https://given.example.org/") for link in links), links
    assert len(files) == 1 and files[0].startswith("https://given.example.org/wp-content/uploads/"), files

    # The site's own options, without the setting: home for the links (and the files, as the
    # site serves them), siteurl when home is not set.
    code, _, err = cli_admin("option", "update", "siteurl", "https://cms.example.org")
    assert code == 0, err
    code, _, err = cli_admin("export", "wxr", str(target), "--quiet")
    assert code == 0, err
    base, links, files = _exported_addresses(target)
    assert base == "https://cms.example.org" and files[0].startswith("https://cms.example.org/wp-content/uploads/")
    code, _, err = cli_admin("option", "update", "home", "https://www.example.org/")
    assert code == 0, err
    code, _, err = cli_admin("export", "wxr", str(target), "--quiet")
    assert code == 0, err
    base, links, files = _exported_addresses(target)
    assert base == "https://www.example.org" and all(link.startswith("https://www.example.org/") for link in links)

    # An option that is no absolute address does not count as one.
    code, _, err = cli_admin("option", "update", "home", "/relative")
    assert code == 0, err
    code, _, err = cli_admin("export", "wxr", str(target), "--quiet")
    assert code == 1 and "--site-url" in err and "'/relative'" in err, err


def test_export_into_a_folder_that_does_not_exist_is_an_error_line(cli_admin, tmp_path) -> None:
    target = tmp_path / "no" / "such" / "site.xml"
    code, out, err = cli_admin("--site-url", "https://given.example.org", "export", "wxr", str(target), "--quiet")
    assert code == 1 and out == ""
    assert err == f"Error: Unable to write '{target}': the folder '{target.parent}' does not exist.\n"
    assert not (tmp_path / "no").exists()
    # A folder given as the file: an error line too.
    code, _, err = cli_admin("--site-url", "https://given.example.org", "export", "wxr", str(tmp_path), "--quiet")
    assert code == 1 and err.startswith("Error: ") and "is a folder" in err


def test_export_wxr_without_an_address_raises_before_writing(app, monkeypatch) -> None:
    """The function itself refuses too (a caller other than the command)."""
    from calpress.transfer.wxr_export import NoSiteAddress

    make_item(app, title="Somewhere")
    monkeypatch.setattr(app.site, "settings", dataclasses.replace(app.site.settings, site_url=""))
    out = io.BytesIO()
    with pytest.raises(NoSiteAddress):
        export_wxr(app.site, out)
    assert out.getvalue() == b""
    set_option(app, "home", "https://home.example.org")
    export_wxr(app.site, out)
    assert b"<wp:base_site_url>https://home.example.org</wp:base_site_url>" in out.getvalue()
