"""Item addresses and slugs (calpress/content/items/permalinks.py): unique, reserved and numeric
slugs, permalinks, the GUID, sample permalinks, and concurrent writers choosing slugs."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest
import sqlalchemy as sa
from item_support import HOME, create, ctx, held_open, in_threads, update

from calpress.content import items
from calpress.store.tables import posts

# -- slugs ----------------------------------------------------------------------------------------


def test_slugs_are_unique_per_type(site):
    assert create(site, title="Hello").slug == "hello"
    assert create(site, title="Hello").slug == "hello-2"
    assert create(site, "page", title="Hello").slug == "hello"
    assert create(site, title="Hello", slug="hello-2").slug == "hello-2-2"


def test_slugs_of_other_types_with_the_same_base_do_not_count(site):
    """The slugs are read whatever their type (below); those of another type are left out."""
    for _ in range(3):
        create(site, "page", title="Shared")
    assert [create(site, title="Shared").slug for _ in range(2)] == ["shared", "shared-2"]
    assert create(site, "page", title="Shared").slug == "shared-4"


@pytest.mark.new_schema
def test_the_slug_check_reads_the_slug_index_even_with_old_statistics(site):
    """A new slug is checked against ``base`` and ``base-*`` through the slug index alone. With
    the type among its conditions, PostgreSQL planned from statistics taken while the site was
    small (before its next ANALYZE: this machine's server runs no autovacuum) and read every item
    of the type through the type's index: 2 ms a post create once the site had 5,000 posts."""
    from calpress.content.items.permalinks import _taken_query

    first = create(site, title="Seed post")
    with site.read() as conn:
        sql = _taken_query(conn.dialect.name)._compile(conn.dialect)[0]
        if conn.dialect.name == "sqlite":
            plan = " ".join(str(row[3]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, ("a", "a-", "a.")))
            assert plan.count("ix_posts_slug_bytes") == 2, plan
            return
    with site.write() as conn:
        conn.exec_driver_sql("ANALYZE posts")  # statistics of a small site
        columns = [c.name for c in posts.columns if c.name not in ("id", "slug")]
        listed = ", ".join(columns)
        conn.exec_driver_sql(f"INSERT INTO posts ({listed}, slug) SELECT {listed}, slug || '-copy-' || n "
                             f"FROM posts, generate_series(1, 3000) AS n WHERE id = {first.id}")
    with site.read() as conn:
        plan = " ".join(row[0] for row in conn.exec_driver_sql(
            "EXPLAIN " + sql, {"slug": "seed-post", "low": "seed-post-", "high": "seed-post."}).all())
    assert plan.count("ix_posts_slug_bytes") == 2 and "Seq Scan" not in plan, plan


def test_reserved_and_numeric_slugs(site):
    assert create(site, title="Feed").slug == "feed-2"
    assert create(site, title="2024").slug == "2024-2"  # a date archive under /%postname%/
    assert create(site, "page", title="2").slug == "2-2"  # a page number
    assert create(site, "page", title="page3").slug == "page3-2"
    by_year = ctx(site, permalink_structure="/%year%/%postname%/")
    assert create(site, context=by_year, title="45").slug == "45"
    assert create(site, context=by_year, title="12").slug == "12-2"  # would read as a month


def test_hierarchical_slugs_are_unique_among_siblings(site):
    one = create(site, "page", title="One")
    two = create(site, "page", title="Two")
    assert create(site, "page", title="About", parent=one.id).slug == "about"
    assert create(site, "page", title="About", parent=two.id).slug == "about"
    assert create(site, "page", title="About", parent=two.id).slug == "about-2"


def test_drafts_keep_their_slug_unless_asked(site):
    create(site, title="Taken")
    assert create(site, title="x", status="draft", slug="taken").slug == "taken"
    assert create(site, title="x", status="draft", slug="taken", unique_draft_slug=True).slug == "taken-2"


# -- addresses ------------------------------------------------------------------------------------


def test_permalinks(site):
    post = create(site, title="Hello", date=(dt.datetime(2024, 5, 6, 7, 8, 9), dt.datetime(2024, 5, 6, 7, 8, 9)))
    assert items.permalink(ctx(site), post) == f"{HOME}/hello/"
    assert items.permalink(ctx(site, permalink_structure=""), post) == f"{HOME}/?p={post.id}"
    dated = ctx(site, permalink_structure="/%year%/%monthnum%/%day%/%postname%/")
    assert items.permalink(dated, post) == f"{HOME}/2024/05/06/hello/"
    assert items.permalink(ctx(site, permalink_structure="/archives/%post_id%"), post) == f"{HOME}/archives/{post.id}"
    draft = create(site, title="Draft", status="draft")
    assert items.permalink(ctx(site), draft) == f"{HOME}/?p={draft.id}"
    page = create(site, "page", title="Front")
    assert items.permalink(ctx(site, show_on_front="page", page_on_front=page.id), page) == f"{HOME}/"
    venue = create(site, "cal_venue", title="Hall")
    assert items.permalink(ctx(site), venue) == f"{HOME}/venue/hall/"
    assert items.permalink(ctx(site, permalink_structure=""), venue) == f"{HOME}/?cal_venue=hall"
    private = create(site, title="Secret", status="private")
    nobody = items.Context.of(site, options=site.load_options(), home=HOME)
    assert items.permalink(nobody, private) == f"{HOME}/?p={private.id}"
    assert items.permalink(ctx(site), private) == f"{HOME}/secret/"


def test_guid_is_the_address_at_creation(site):
    post = create(site, title="First name")
    renamed = update(site, post, slug="second-name")
    assert renamed.slug == "second-name"
    assert renamed.guid == f"{HOME}/first-name/"


def test_sample_permalink(site):
    parent = create(site, "page", title="Parent")
    child = create(site, "page", title="Child Page", status="draft", parent=parent.id)
    untitled = create(site, title="", content="x", status="draft")
    create(site, "page", title="Child Page", parent=parent.id)
    with site.read() as conn:
        uri = items.page_uris(conn, [child])[child.id]
        generated = items.generated_slugs(conn, ctx(site), site.registry.types["page"], [child])
        assert generated == {child.id: "child-page-2"}
        assert items.sample_permalink(ctx(site), child, uri=uri, generated=generated[child.id]) == (
            f"{HOME}/parent/%pagename%/", "child-page-2",
        )
        # No title: the id, which then reads as a date archive and gets a suffix.
        assert items.generated_slugs(conn, ctx(site), site.registry.types["post"], [untitled]) == {untitled.id: f"{untitled.id}-2"}


# -- concurrency ----------------------------------------------------------------------------------


def test_concurrent_creates_get_distinct_slugs(site):
    in_threads(6, lambda n: create(site, title="Same title"))
    with site.read() as conn:
        slugs = conn.execute(sa.select(posts.c.slug).where(posts.c.type == "post")).scalars().all()
    assert sorted(slugs) == sorted(["same-title", *[f"same-title-{n}" for n in range(2, 7)]])


def test_concurrent_creates_of_titles_whose_slugs_meet_get_distinct_slugs(site):
    """``Same``, ``Same 2`` and ``Same 2 2`` make the bases ``same``, ``same-2`` and ``same-2-2``,
    each of which another's ``-N`` can reach: saved at once, they must still get distinct slugs
    (on PostgreSQL they share one root's lock, same)."""
    titles = ["Same", "Same 2", "Same", "Same 2 2", "Same 2", "Same"]
    in_threads(len(titles), lambda n: create(site, title=titles[n]))
    with site.read() as conn:
        slugs = conn.execute(sa.select(posts.c.slug).where(posts.c.type == "post")).scalars().all()
    assert len(slugs) == len(titles)
    assert len(set(slugs)) == len(titles), slugs
    assert {"same", "same-2", "same-2-2"} <= set(slugs)


@pytest.mark.parametrize("db_leg", ["postgresql"], indirect=True)
def test_a_slug_lock_holds_back_only_the_saves_whose_slugs_could_meet(site):
    """A transaction that gave ``alpha-5`` holds back, until it ends, the saves whose slugs could
    be one it may give or have given (made from ``alpha-5``, ``alpha-5-2`` or ``alpha``), not
    the others (``alpha-6``, ``beta``), which used to wait for it too. Pages, which have no
    default category whose count every new post updates (a row lock of its own)."""
    results: dict[str, str] = {}

    def save(title):
        results[title] = create(site, "page", title=title).slug

    waiting = [threading.Thread(target=save, args=(title,)) for title in ("Alpha 5", "Alpha 5 2", "Alpha")]
    with held_open(site, "page", title="Alpha 5"):
        for title in ("Beta", "Alpha 6"):
            free = threading.Thread(target=save, args=(title,))
            free.start()
            free.join(10)
        # done while the other transaction is still open
        assert results == {"Beta": "beta", "Alpha 6": "alpha-6"}
        for thread in waiting:
            thread.start()
        time.sleep(0.5)
        assert set(results) == {"Beta", "Alpha 6"}  # the others wait for the holder
    for thread in waiting:
        thread.join(10)
    assert results["Alpha"] == "alpha"
    # Whichever of "Alpha 5" and "Alpha 5 2" went first got alpha-5-2; the other then alpha-5-3
    # ("Alpha 5") or alpha-5-2-2 ("Alpha 5 2").
    first, second = ("Alpha 5", "Alpha 5 2") if results["Alpha 5"] == "alpha-5-2" else ("Alpha 5 2", "Alpha 5")
    assert results[first] == "alpha-5-2"
    assert results[second] == ("alpha-5-2-2" if second == "Alpha 5 2" else "alpha-5-3")
    with site.read() as conn:
        slugs = conn.execute(sa.select(posts.c.slug).where(posts.c.type == "page")).scalars().all()
    assert sorted(slugs) == sorted(["alpha-5", *results.values()])
