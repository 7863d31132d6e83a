"""Listings of items (calpress/content/items/queries.py): pages and totals, search terms."""

from __future__ import annotations

import datetime as dt

from item_support import create

from calpress.content import items


def test_query_pages_and_totals(site):
    made = [create(site, title=f"P{n}", date=(dt.datetime(2024, 1, n + 1), dt.datetime(2024, 1, n + 1))).id for n in range(5)]
    with site.read() as conn:
        first = items.query_items(conn, items.ItemQuery(type="post", per_page=2))
        assert [i.id for i in first.items] == [made[4], made[3]] and first.total == 5
        past = items.query_items(conn, items.ItemQuery(type="post", per_page=2, page=9))
        assert past.items == [] and past.total == 5
        offset = items.query_items(conn, items.ItemQuery(type="post", per_page=2, offset=3))
        assert [i.id for i in offset.items] == [made[1], made[0]] and offset.total == 5
        assert items.query_items(conn, items.ItemQuery(type="post"), count_only=True).total == 5
        assert items.query_items(conn, items.ItemQuery(type="post", include=[0])).total == 0


def test_search_terms():
    assert items.search_terms("apple pie") == (["apple", "pie"], 2)
    assert items.search_terms('"exact phrase" word') == (["exact phrase", "word"], 2)
    assert items.search_terms("the a of") == (["the a of"], 3)
    assert items.search_terms("-tart apple") == (["-tart", "apple"], 2)
