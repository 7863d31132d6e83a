"""Listings of items (calpress/content/items/queries.py): pages and totals, search terms."""

from __future__ import annotations

import datetime as dt

import pytest
from item_support import create, ctx

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


def test_query_totals_follow_writes_and_short_first_pages_count_nothing(site):
    """The total of a compiled listing is remembered while the content counter is unchanged:
    a write (a new post, a post trashed) gives the next page the new total; a first page that
    holds every match is its own total."""
    for n in range(3):
        create(site, title=f"Q{n}", date=(dt.datetime(2024, 2, n + 1), dt.datetime(2024, 2, n + 1)))
    query = items.ItemQuery(type="post", per_page=2)
    with site.read() as conn:
        assert items.query_items(conn, query).total == 3
        assert items.query_items(conn, items.ItemQuery(type="post", per_page=2, page=2)).total == 3
        assert items.query_items(conn, items.ItemQuery(type="post", per_page=10)).total == 3
    newest = create(site, title="Q3", date=(dt.datetime(2024, 3, 1), dt.datetime(2024, 3, 1)))
    with site.read() as conn:
        page = items.query_items(conn, query)
        assert page.total == 4 and page.items[0].id == newest.id
        assert items.query_items(conn, query, count_only=True).total == 4
    with site.write() as conn:
        items.trash_item(conn, ctx(site), newest)
    with site.read() as conn:
        assert items.query_items(conn, items.ItemQuery(type="post", per_page=2, page=2)).total == 3


@pytest.mark.new_schema
def test_listing_by_date_reads_the_index_in_order(site):
    """The default order (date, then id) comes from the index on (type, date_local, id): SQLite
    sorts nothing, PostgreSQL scans the index backwards (migration 0008), so a page costs its
    own rows, not every match."""
    from calpress.content.items.queries import _PLAIN_PAGES

    statement = _PLAIN_PAGES(1, (), "date", True)
    with site.read() as conn:
        name = conn.dialect.name
        sql = statement._compile(conn.dialect)[0]
        values = ["post", "publish", 10, 0]
        if name == "sqlite":
            plan = " ".join(row[3] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, tuple(values)).all())
            assert "ix_posts_type_date_local_id" in plan and "TEMP B-TREE" not in plan, plan
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # a tiny table is scanned otherwise
            plan = " ".join(row[0] for row in conn.exec_driver_sql(
                "EXPLAIN " + sql, dict(zip(("type", "status_0", "limit", "offset"), values))).all())
            assert "ix_posts_type_date_local_id" in plan and "Sort" not in plan, plan
