"""A site moved out and back in: the hand-built WordPress + The Events Calendar export imported
into site A, A exported with ``export_wxr``, that file imported into a new site B. B then holds
the same items as A: every field, term, meta value, event row, venue and organizer link (in
order), comment thread, author and featured image, compared by slug, since ids differ."""

from __future__ import annotations

import io
import re
import secrets
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from appfixtures import allowed, allowed_ports, loopback_server
from test_wxr_import import FILES, OLD_UPLOADS, export_text

from calpress.app import Calpress
from calpress.config import load_settings
from calpress.store.tables import comments, event_links, events, posts, term_links, terms, users
from calpress.transfer.wxr_export import export_wxr
from calpress.transfer.wxr_import import import_wxr

SITE = "http://example.test"


class _Files(BaseHTTPRequestHandler):
    """The old site's poster, and site A's uploads folder once the test names it."""

    uploads: Path | None = None

    def do_GET(self) -> None:  # noqa: N802
        name = self.path.removeprefix("/wp-content/uploads/")
        body: bytes | None = FILES[self.path][0] if self.path in FILES else None
        if body is None and self.uploads is not None and ".." not in name and (self.uploads / name).is_file():
            body = (self.uploads / name).read_bytes()
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def files_server():
    with loopback_server(_Files) as address:
        yield address


@pytest.fixture()
def outbound_allow(files_server: str) -> str:
    return allowed(files_server)


@pytest.fixture()
def outbound_ports(files_server: str) -> str:
    return allowed_ports(files_server)


@pytest.fixture()
def site_b(empty_db_url, tmp_path, files_server):
    settings = load_settings({
        "data_dir": str(tmp_path / "data-b"), "database_url": empty_db_url, "secret_key": secrets.token_hex(16),
        "environment": "local", "site_url": SITE, "outbound_allow": allowed(files_server),
        "outbound_ports": allowed_ports(files_server),
    }, environ={})
    other = Calpress(settings)
    yield other
    other.site.close()


def _administrator(app: Calpress, login: str) -> int:
    from calpress.auth import users as user_store

    with app.site.write() as conn:
        return user_store.create_user(conn, login=login, email=f"{login}@example.test", password="x" * 12,
                                      roles=["administrator"]).id


def picture(app: Calpress) -> dict[str, Any]:
    """Everything an item is, by (type, slug), with every id replaced by what it names."""
    with app.site.read() as conn:
        logins = {row.id: row.login for row in conn.execute(sa.select(users.c.id, users.c.login))}
        rows = conn.execute(sa.select(posts).where(posts.c.type.in_(
            ["post", "page", "attachment", "cal_events", "cal_venue", "cal_organizer"]))).all()
        slugs = {row.id: (row.type, row.slug) for row in rows}
        term_rows = {row.id: row for row in conn.execute(sa.select(terms))}
        item_terms: dict[int, list[tuple[str, str]]] = {}
        for link in conn.execute(sa.select(term_links)):
            term = term_rows[link.term_id]
            item_terms.setdefault(link.object_id, []).append((term.taxonomy, term.slug))
        event_rows = {row.post_id: row for row in conn.execute(sa.select(events))}
        links: dict[int, list[tuple[str, Any]]] = {}
        for link in conn.execute(sa.select(event_links).order_by(event_links.c.kind, event_links.c.position)):
            links.setdefault(link.event_id, []).append((link.kind, slugs.get(link.linked_id)))
        comment_rows = conn.execute(sa.select(comments).order_by(comments.c.id)).all()
    contents = {row.id: row.content for row in comment_rows}
    found: dict[str, Any] = {}
    for row in rows:
        meta = {key: value for key, value in row.meta.items()
                if not key.startswith("_cal_import") and key not in ("_wp_attachment_metadata", "_wp_attached_file")}
        if "_thumbnail_id" in meta:
            meta["_thumbnail_id"] = slugs.get(int(meta["_thumbnail_id"]))
        for key in ("_EventVenueID", "_EventOrganizerID"):
            if key in meta:
                meta[key] = [slugs.get(int(i)) for i in meta[key]]
        event = event_rows.get(row.id)
        found[f"{row.type}:{row.slug}"] = {
            "title": row.title, "content": row.content, "excerpt": row.excerpt, "status": row.status,
            "date": (row.date_local, row.date_utc), "author": logins.get(row.author), "menu_order": row.menu_order,
            "parent": slugs.get(row.parent), "comment_status": row.comment_status, "ping_status": row.ping_status,
            "password": row.password, "mime_type": row.mime_type, "terms": sorted(item_terms.get(row.id, [])),
            "meta": meta, "links": links.get(row.id, []),
            "event": None if event is None else (event.start_local, event.end_local, event.start_utc, event.end_utc,
                                                 event.timezone, event.all_day, event.featured, event.sticky, event.hidden),
            "comments": [(c.author_name, c.author_email, c.author_url, c.author_ip, c.content, c.status, c.type,
                          c.date_local, c.date_utc, contents.get(c.parent), logins.get(c.author),
                          {k: v for k, v in c.meta.items() if k != "_wxr_import_id"})
                         for c in comment_rows if c.post_id == row.id and c.status != "spam"],
        }
    return found


def test_export_then_import_into_a_new_site_gives_the_same_items(app, site_b, files_server):
    boss = _administrator(app, "boss")
    text = export_text(files_server)
    assert OLD_UPLOADS not in text
    first = import_wxr(app.site, io.BytesIO(text.encode()), user_id=boss)
    assert first.error == "" and first.counts["cal_events"]["created"] == 5

    out = io.BytesIO()
    summary = export_wxr(app.site, out)
    assert summary.items == 17  # 3 posts, 2 pages, 2 attachments, 2 venues, 2 organizers, 5 events, 1 menu entry
    exported = out.getvalue().decode()
    assert "<wp:post_type><![CDATA[tribe_events]]></wp:post_type>" in exported
    _Files.uploads = Path(app.settings.uploads_dir)
    moved = exported.replace(f"{SITE}/wp-content/uploads/", f"{files_server}/wp-content/uploads/")

    second = import_wxr(site_b.site, io.BytesIO(moved.encode()), user_id=_administrator(site_b, "boss"))
    assert second.error == "" and second.failed == 0, second.problems
    before, after = picture(app), picture(site_b)

    assert sorted(after) == sorted(before)
    for key in before:
        assert after[key] == before[key], key
    # The spam comment stays behind, as WordPress's export leaves spam out.
    assert sum(len(v["comments"]) for v in after.values()) == 3

    again = io.BytesIO()
    export_wxr(site_b.site, again)
    # B's export names B's ids; with them replaced by A's, the files are the same item for item.
    assert again.getvalue().count(b"<item>") == out.getvalue().count(b"<item>")


# Password, comment and ping status set apart from every default on one item of each type, by its
# id in the fixture: (type, slug) -> (password, comment_status, ping_status).
GUARDED = {
    10: ("post", "hello-old-site", "post-secret", "closed", "open"),
    11: ("page", "about", "page-secret", "open", "open"),
    20: ("attachment", "poster", "file-secret", "closed", "open"),
    30: ("cal_venue", "blue-note-hall", "venue-secret", "closed", "open"),
    31: ("cal_organizer", "jazz-collective", "organizer-secret", "closed", "open"),
    40: ("cal_events", "jazz-night", "event-secret", "closed", "open"),
    44: ("cal_events", "summer-festival", "", "closed", "closed"),
}


def _guarded(text: str) -> str:
    """The fixture with :data:`GUARDED`'s password, comment and ping status on those items."""
    items = text.split("<item>")
    for n, part in enumerate(items):
        found = re.search(r"<wp:post_id>(\d+)</wp:post_id>", part)
        if found is None or int(found.group(1)) not in GUARDED:
            continue
        _, _, password, comment, ping = GUARDED[int(found.group(1))]
        for tag, value in (("post_password", password), ("comment_status", comment), ("ping_status", ping)):
            part, count = re.subn(rf"<wp:{tag}><!\[CDATA\[[^\]]*\]\]></wp:{tag}>",
                                  f"<wp:{tag}><![CDATA[{value}]]></wp:{tag}>", part)
            assert count == 1, (found.group(1), tag)
        items[n] = part
    return "<item>".join(items)


def _guards(app: Calpress) -> dict[tuple[str, str], tuple[str, str, str]]:
    wanted = {(kind, slug) for kind, slug, *_ in GUARDED.values()}
    with app.site.read() as conn:
        rows = conn.execute(sa.select(posts.c.type, posts.c.slug, posts.c.password, posts.c.comment_status,
                                      posts.c.ping_status)).all()
    return {(row.type, row.slug): (row.password, row.comment_status, row.ping_status)
            for row in rows if (row.type, row.slug) in wanted}


def test_password_comment_and_ping_status_survive_a_round_trip_on_every_type(app, client, make_account, site_b,
                                                                           files_server):
    """Import, export, import again: each type keeps the password, comment and ping status it came
    with (events too, which the importer writes through the calendar's event service)."""
    expected = {(kind, slug): (password, comment, ping) for kind, slug, password, comment, ping in GUARDED.values()}
    boss = make_account("boss", "administrator")
    first = import_wxr(app.site, io.BytesIO(_guarded(export_text(files_server)).encode()), user_id=boss.id)
    assert first.error == "" and first.counts["cal_events"]["created"] == 5
    assert _guards(app) == expected

    out = io.BytesIO()
    export_wxr(app.site, out)
    exported = out.getvalue().decode()
    assert "<wp:post_password><![CDATA[event-secret]]></wp:post_password>" in exported
    _Files.uploads = Path(app.settings.uploads_dir)
    moved = exported.replace(f"{SITE}/wp-content/uploads/", f"{files_server}/wp-content/uploads/")
    second = import_wxr(site_b.site, io.BytesIO(moved.encode()), user_id=_administrator(site_b, "boss"))
    assert second.error == "" and second.failed == 0, second.problems
    assert _guards(site_b) == expected

    # As the REST API shows them: the event's password hides its content from visitors.
    shown = client.get("/cms/v2/cal_events", params={"slug": "jazz-night"}).json
    assert [(e["content"]["protected"], e["content"]["rendered"]) for e in shown] == [(True, "")]
    edit = client.get("/cms/v2/cal_events", user=boss, params={"slug": "jazz-night", "context": "edit"}).json
    assert [(e["password"], e["comment_status"], e["ping_status"]) for e in edit] == [("event-secret", "closed", "open")]
