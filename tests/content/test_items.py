"""The item service (calpress/content/items.py) without HTTP: dates and zones, slugs, the trash,
deletion, scheduled items, addresses, listings, and concurrent writers."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
import sqlalchemy as sa

from calpress.app import build_site
from calpress.config import load_settings
from calpress.content import items, terms
from calpress.store import options as store_options
from calpress.store.tables import posts

HOME = "http://example.test"


class Boss:
    """A user who may do everything (so that no capability rule interferes)."""

    id = 0

    def can(self, capability, *args):
        return True

    def __bool__(self):
        return True


@pytest.fixture()
def site(db_url, tmp_path):
    settings = load_settings(
        {"data_dir": str(tmp_path), "database_url": db_url, "secret_key": "x", "site_url": HOME}, environ={}
    )
    found = build_site(settings, upgrade=False)
    yield found
    found.close()


def ctx(site, **options):
    return items.Context.of(site, options={**site.load_options(), **options}, home=HOME, user=Boss())


def create(site, type_="post", context=None, **changes):
    """Create an item, published unless a status is given."""
    changes.setdefault("status", "publish")
    context = context or ctx(site)
    with site.write() as conn:
        return items.create_item(conn, context, site.registry.types[type_], items.ItemChanges(**changes))


def update(site, item, context=None, **changes):
    context = context or ctx(site)
    with site.write() as conn:
        return items.update_item(conn, context, item, items.ItemChanges(**changes))


def stored(site, item_id):
    with site.read() as conn:
        return items.get_item(conn, item_id)


# -- time -----------------------------------------------------------------------------------------


def test_site_zone_from_options():
    assert items.site_zone({"timezone_string": "Europe/Paris"}).key == "Europe/Paris"
    assert items.site_zone({"timezone_string": "UTC"}) is dt.UTC
    assert items.site_zone({"timezone_string": "", "gmt_offset": "-5"}).utcoffset(None) == dt.timedelta(hours=-5)
    assert items.site_zone({"timezone_string": "", "gmt_offset": "5.5"}).utcoffset(None) == dt.timedelta(hours=5, minutes=30)
    assert items.site_zone({"timezone_string": "Not/AZone", "gmt_offset": "2"}).utcoffset(None) == dt.timedelta(hours=2)


def test_input_dates():
    paris = items.site_zone({"timezone_string": "Europe/Paris"})
    local = dt.datetime(2016, 7, 1, 12, 0)
    assert items.input_date(local, is_utc=False, zone=paris) == (local, dt.datetime(2016, 7, 1, 10, 0))
    zoned = dt.datetime(2016, 7, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=-4)))
    assert items.input_date(zoned, is_utc=False, zone=paris) == (dt.datetime(2016, 7, 1, 18, 0), dt.datetime(2016, 7, 1, 16, 0))
    # date_gmt: the zone given is ignored, the time is UTC.
    assert items.input_date(zoned, is_utc=True, zone=paris) == (dt.datetime(2016, 7, 1, 14, 0), dt.datetime(2016, 7, 1, 12, 0))


def test_floating_draft_and_publication(site):
    draft = create(site, title="Draft", status="draft")
    assert draft.date_utc is None and draft.slug == ""
    assert items.date_gmt(draft, dt.UTC) == draft.date_local
    published = update(site, draft, status="publish")
    assert published.date_utc is not None
    assert published.slug == "draft"
    dated = create(site, title="Dated draft", status="draft", date=(dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1)))
    assert dated.date_utc == dt.datetime(2020, 1, 1)
    assert dated.modified_utc == dt.datetime(2020, 1, 1)
    reset = update(site, dated, reset_date=True)
    assert reset.date_utc is None and reset.date_local > dt.datetime(2020, 1, 1)


def test_future_and_past_dates(site):
    soon = items.now_utc() + dt.timedelta(hours=2)
    scheduled = create(site, title="Soon", status="publish", date=(soon, soon))
    assert scheduled.status == "future" and scheduled.slug == "soon"
    past = create(site, title="Past", status="future", date=(dt.datetime(2016, 1, 1), dt.datetime(2016, 1, 1)))
    assert past.status == "publish"


def test_due_items_are_published_once_per_interval(site):
    soon = items.now_utc() + dt.timedelta(hours=2)
    scheduled = create(site, title="Soon", status="publish", date=(soon, soon))
    assert items.publish_due_items(site) == 0
    with site.write() as conn:
        conn.execute(sa.update(posts).where(posts.c.id == scheduled.id).values(date_utc=items.now_utc() - dt.timedelta(seconds=5)))
    assert items.publish_due_items(site) == 0  # checked less than a second ago
    assert items.publish_due_items(site, force=True) == 1
    assert stored(site, scheduled.id).status == "publish"
    assert items.publish_due_items(site, force=True) == 0


# -- slugs ----------------------------------------------------------------------------------------


def test_slugs_are_unique_per_type(site):
    assert create(site, title="Hello").slug == "hello"
    assert create(site, title="Hello").slug == "hello-2"
    assert create(site, "page", title="Hello").slug == "hello"
    assert create(site, title="Hello", slug="hello-2").slug == "hello-2-2"


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


def test_trash_and_restore(site):
    post = create(site, title="Binned")
    trashed = stored(site, post.id)
    with site.write() as conn:
        trashed = items.trash_item(conn, ctx(site), trashed)
    assert trashed.status == "trash" and trashed.slug == "binned__trashed"
    assert trashed.trashed_from == "publish"
    usurper = create(site, title="Binned")
    assert usurper.slug == "binned"
    restored = update(site, trashed, status="draft")
    assert restored.slug == "binned" and restored.trashed_from is None  # drafts keep theirs as is
    published = update(site, restored, status="publish")
    assert published.slug == "binned-2"


# -- deletion -------------------------------------------------------------------------------------


def test_delete_reparents_children_and_cleans_up(site):
    context = ctx(site)
    with site.write() as conn:
        category = terms.create_term(conn, site.registry.taxonomies["category"], "News").id
    top = create(site, "page", title="Top")
    middle = create(site, "page", title="Middle", parent=top.id)
    leaf = create(site, "page", title="Leaf", parent=middle.id)
    post = create(site, title="Counted", terms={"category": [category]}, sticky=True)
    now = dt.datetime(2026, 1, 1)
    with site.write() as conn:
        revision = conn.execute(
            sa.insert(posts).values(type="revision", status="inherit", parent=post.id, date_local=now, date_utc=now,
                                    modified_local=now, modified_utc=now).returning(posts.c.id)
        ).scalar_one()
        attachment = conn.execute(
            sa.insert(posts).values(type="attachment", status="inherit", parent=middle.id, date_local=now, date_utc=now,
                                    modified_local=now, modified_utc=now).returning(posts.c.id)
        ).scalar_one()
        assert terms.get_term(conn, category).count == 1
    with site.write() as conn:
        items.delete_item(conn, context, stored(site, middle.id))
        items.delete_item(conn, ctx(site), stored(site, post.id))
    assert stored(site, leaf.id).parent == top.id
    assert stored(site, attachment).parent == top.id
    assert stored(site, revision) is None
    with site.read() as conn:
        assert terms.get_term(conn, category).count == 0
        assert store_options.get_option(conn, "sticky_posts") == []


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


def test_page_uris_follow_the_ancestry(site):
    a = create(site, "page", title="A")
    b = create(site, "page", title="B", parent=a.id)
    c = create(site, "page", title="C", parent=b.id)
    with site.read() as conn:
        assert items.page_uris(conn, [a, b, c]) == {a.id: "a", b.id: "a/b", c.id: "a/b/c"}


def test_cycles_are_refused_by_dropping_the_parent(site):
    a = create(site, "page", title="A")
    b = create(site, "page", title="B", parent=a.id)
    assert update(site, stored(site, a.id), parent=b.id).parent == 0
    assert update(site, stored(site, a.id), parent=a.id).parent == 0


# -- listings -------------------------------------------------------------------------------------


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


def test_related_for_a_page_of_items(site):
    with site.write() as conn:
        tag = terms.create_term(conn, site.registry.taxonomies["post_tag"], "T").id
    first = create(site, title="One", terms={"post_tag": [tag]})
    second = create(site, title="Two")
    with site.read() as conn:
        related = items.load_related(conn, site.registry, site.registry.types["post"], [first, second])
    assert [t.id for t in related.terms[first.id]["post_tag"]] == [tag]
    assert related.terms[second.id]["post_tag"] == []
    assert related.revisions == {}


# -- concurrency ----------------------------------------------------------------------------------


def _in_threads(count, work):
    errors = []

    def run(n):
        try:
            work(n)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_concurrent_creates_get_distinct_slugs(site):
    _in_threads(6, lambda n: create(site, title="Same title"))
    with site.read() as conn:
        slugs = conn.execute(sa.select(posts.c.slug).where(posts.c.type == "post")).scalars().all()
    assert sorted(slugs) == sorted(["same-title", *[f"same-title-{n}" for n in range(2, 7)]])


def test_concurrent_sticky_and_meta_updates_are_not_lost(site):
    made = [create(site, title=f"S{n}") for n in range(6)]
    _in_threads(6, lambda n: update(site, made[n], sticky=True))
    with site.read() as conn:
        assert sorted(store_options.get_option(conn, "sticky_posts")) == sorted(p.id for p in made)
    target = made[0]
    keys = ["_VenueCity", "_VenueZip", "_VenuePhone", "_VenueState"]
    _in_threads(len(keys), lambda n: update(site, target, meta={keys[n]: f"v{n}"}))
    meta = stored(site, target.id).meta
    assert {key: meta.get(key) for key in keys} == {key: f"v{n}" for n, key in enumerate(keys)}
