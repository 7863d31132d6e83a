"""Navigation menus through WXR (issue 32, item 7): exported as WordPress's exporter writes them
(``nav_menu`` terms in the channel, ``nav_menu_item`` items in their menu with their
``_menu_item_*`` meta), and imported as WordPress's importer takes them (what an entry points at
and the entry it nests under mapped to the new ids, entries whose object or parent comes later
in the file resolved at the end)."""

from __future__ import annotations

import io
import re
import secrets
from typing import Any

import pytest

from calpress.app import Calpress
from calpress.auth import users as user_store
from calpress.config import load_settings
from calpress.content import menus
from calpress.content.items import Context
from calpress.transfer.wxr_export import export_wxr
from calpress.transfer.wxr_import import import_wxr

SITE = "http://example.test"


@pytest.fixture()
def site_b(empty_db_url, tmp_path):
    settings = load_settings({
        "data_dir": str(tmp_path / "data-b"), "database_url": empty_db_url, "secret_key": secrets.token_hex(16),
        "environment": "local", "site_url": SITE,
    }, environ={})
    other = Calpress(settings)
    yield other
    other.site.close()


def create(client: Any, user: Any, route: str, **body: Any) -> dict[str, Any]:
    response = client.post(route, user=user, json=body)
    assert response.status_code == 201, response.json
    return response.json


def build_menu(client: Any, admin: Any) -> None:
    about = create(client, admin, "/cms/v2/pages", title="About us", status="publish")
    news = create(client, admin, "/cms/v2/categories", name="News")
    menu = create(client, admin, "/cms/v2/menus", name="Main menu", description="The header's")
    create(client, admin, "/cms/v2/menus", name="Empty one")
    top = create(client, admin, "/cms/v2/menu-items", type="post_type", object_id=about["id"], menus=menu["id"], menu_order=1)
    create(client, admin, "/cms/v2/menu-items", type="taxonomy", object_id=news["id"], menus=menu["id"], menu_order=2,
           parent=top["id"], title="Our news", classes=["news", "hot"])
    create(client, admin, "/cms/v2/menu-items", title="Elsewhere", url="https://elsewhere.example/", target="_blank",
           xfn=["friend"], attr_title="Away", description="Another site", menus=menu["id"], menu_order=3, parent=top["id"])
    create(client, admin, "/cms/v2/menu-items", type="post_type_archive", object="cal_events", menus=menu["id"], menu_order=4)


def picture(app: Calpress) -> dict[str, list[tuple[Any, ...]]]:
    """Every menu by slug: its entries in order as (title shown, type, object, url, parent's
    title, classes, target, xfn, attribute title, description, status)."""
    ctx_site = app.site
    ctx = Context.of(ctx_site, home=SITE)
    found: dict[str, list[tuple[Any, ...]]] = {}
    with ctx_site.read() as conn:
        for menu in menus.list_menus(conn):
            entries = menus.set_up(conn, ctx, menus.menu_entries(conn, menu.id, ("publish", "draft")))
            titles = {e.id: e.title for e in entries}
            found[f"{menu.slug}:{menu.name}:{menu.description}"] = [
                (e.title, e.type, e.object, e.url, titles.get(e.parent, ""), e.classes, e.target, e.xfn, e.attr_title,
                 e.description, e.status, e.invalid)
                for e in entries
            ]
    return found


def test_menus_go_out_and_come_back_in(app: Any, client: Any, admin: Any, site_b: Any) -> None:
    build_menu(client, admin)
    out = io.BytesIO()
    summary = export_wxr(app.site, out)
    assert summary.by_type["nav_menu_item"] == 4
    text = out.getvalue().decode()
    # As WordPress writes them: the menus as channel terms, entries in their menu, meta as rows.
    assert re.search(r"<wp:term>\s*<wp:term_id>\d+</wp:term_id>\s*<wp:term_taxonomy><!\[CDATA\[nav_menu\]\]></wp:term_taxonomy>"
                     r"\s*<wp:term_slug><!\[CDATA\[main-menu\]\]></wp:term_slug>", text)
    assert '<category domain="nav_menu" nicename="main-menu"><![CDATA[Main menu]]></category>' in text
    assert "<wp:meta_key><![CDATA[_menu_item_type]]></wp:meta_key>" in text
    assert '<wp:meta_value><![CDATA[a:2:{i:0;s:4:"news";i:1;s:3:"hot";}]]></wp:meta_value>' in text

    before = picture(app)
    assert before["main-menu:Main menu:The header's"][1][:5] == ("Our news", "taxonomy", "category",
                                                                 "http://example.test/category/news/", "About us")
    with site_b.site.write() as conn:
        importer = user_store.create_user(conn, login="boss", email="boss@example.test", password="x" * 12, roles=["administrator"])
    result = import_wxr(site_b.site, io.BytesIO(out.getvalue()), user_id=importer.id)
    assert result.error == "" and result.failed == 0, result.problems
    assert dict(result.counts["nav_menu_item"]) == {"created": 4}
    assert picture(site_b) == before
    # A second run of the same file makes nothing twice.
    again = import_wxr(site_b.site, io.BytesIO(out.getvalue()), user_id=importer.id)
    assert dict(again.counts["nav_menu_item"]) == {"skipped": 4}
    assert picture(site_b) == before


def test_entries_before_what_they_point_at_are_resolved_at_the_end(app: Any, client: Any, admin: Any, site_b: Any) -> None:
    build_menu(client, admin)
    out = io.BytesIO()
    export_wxr(app.site, out)
    text = out.getvalue().decode()
    head, *items = text.split("\t<item>\n")
    tail = items[-1].split("\t</item>\n", 1)[1]
    items[-1] = items[-1].split("\t</item>\n", 1)[0] + "\t</item>\n"
    entries = [i for i in items if "<wp:post_type><![CDATA[nav_menu_item]]>" in i]
    others = [i for i in items if i not in entries]
    # The entries first, children before their parent: their objects and parents come later.
    reordered = head + "".join("\t<item>\n" + i for i in [*reversed(entries), *others]) + tail
    assert len(entries) == 4 and reordered.index("CDATA[nav_menu_item]") < reordered.index("CDATA[page]]></wp:post_type>")
    with site_b.site.write() as conn:
        importer = user_store.create_user(conn, login="boss", email="boss@example.test", password="x" * 12, roles=["administrator"])
    result = import_wxr(site_b.site, io.BytesIO(reordered.encode()), user_id=importer.id)
    assert result.error == "" and result.failed == 0, result.problems
    assert dict(result.counts["nav_menu_item"]) == {"created": 4}
    after = picture(site_b)["main-menu:Main menu:The header's"]
    assert [(e[0], e[4]) for e in after] == [("About us", ""), ("Our news", "About us"), ("Elsewhere", "About us"), ("Events", "")]


def test_entries_of_no_menu_and_drafts_are_skipped(app: Any, admin: Any) -> None:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">\n<channel>\n'
        "<wp:wxr_version>1.2</wp:wxr_version><wp:base_site_url>http://old.example</wp:base_site_url>"
        "<wp:base_blog_url>http://old.example</wp:base_blog_url>\n"
        "<wp:term><wp:term_id>5</wp:term_id><wp:term_taxonomy>nav_menu</wp:term_taxonomy><wp:term_slug>top</wp:term_slug>"
        "<wp:term_name>Top</wp:term_name></wp:term>\n"
        "<wp:term><wp:term_id>6</wp:term_id><wp:term_taxonomy>nav_menu</wp:term_taxonomy><wp:term_slug>bottom</wp:term_slug>"
        "<wp:term_name>Bottom</wp:term_name></wp:term>\n"
        + "".join(
            f"<item><title>{title}</title><wp:post_id>{n}</wp:post_id><wp:post_type>nav_menu_item</wp:post_type>"
            f"<wp:status>{status}</wp:status><wp:menu_order>{n}</wp:menu_order>{category}"
            "<wp:postmeta><wp:meta_key>_menu_item_type</wp:meta_key><wp:meta_value>custom</wp:meta_value></wp:postmeta>"
            "<wp:postmeta><wp:meta_key>_menu_item_url</wp:meta_key><wp:meta_value>https://x.example/</wp:meta_value></wp:postmeta>"
            "</item>\n"
            for n, title, status, category in (
                (1, "Kept", "publish", '<category domain="nav_menu" nicename="top">Top</category>'),
                (2, "Draft", "draft", '<category domain="nav_menu" nicename="top">Top</category>'),
                (3, "Nowhere", "publish", ""),
                (4, "Lost", "publish", '<category domain="nav_menu" nicename="gone">Gone</category>'),
                # The same entry (its id too) in a second menu, as the theme unit test data has them.
                (1, "Kept", "publish", '<category domain="nav_menu" nicename="bottom">Bottom</category>'),
            )
        )
        + "</channel>\n</rss>\n"
    )
    result = import_wxr(app.site, io.BytesIO(text.encode()), user_id=admin.id)
    assert result.error == ""
    assert dict(result.counts["nav_menu_item"]) == {"created": 2, "skipped": 3}
    assert [e[0] for e in picture(app)["top:Top:"]] == ["Kept"]
    assert [e[0] for e in picture(app)["bottom:Bottom:"]] == ["Kept"]
    again = import_wxr(app.site, io.BytesIO(text.encode()), user_id=admin.id)
    assert dict(again.counts["nav_menu_item"]) == {"skipped": 5}
