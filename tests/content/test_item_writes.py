"""Writing items (calpress/content/items/writes.py): dates and scheduled items, the trash,
deletion, hierarchy loops, and concurrent writers."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa
from item_support import create, ctx, held_open, in_threads, stored, update

from calpress.content import items, terms
from calpress.store import options as store_options
from calpress.store.tables import posts

# -- dates ----------------------------------------------------------------------------------------


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


# -- the trash and deletion -----------------------------------------------------------------------


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


# -- hierarchy ------------------------------------------------------------------------------------


def test_cycles_are_refused_by_dropping_the_parent(site):
    a = create(site, "page", title="A")
    b = create(site, "page", title="B", parent=a.id)
    assert update(site, stored(site, a.id), parent=b.id).parent == 0
    assert update(site, stored(site, a.id), parent=a.id).parent == 0


# -- attachments ----------------------------------------------------------------------------------

UPLOADED = "http://example.test/wp-content/uploads/2026/01/poster.png"


def test_attachments_are_created_like_other_items(site):
    from calpress.store.changes import Change

    recorded: list[Change] = []
    site.change_listeners.append(recorded.extend)
    parent = create(site, title="Poster")
    soon = items.now_utc() + dt.timedelta(hours=2)
    attachment = create(  # asked to publish (create's default), in the future: an attachment inherits
        site, "attachment", title="Poster", parent=parent.id, mime_type="image/png", guid=UPLOADED, date=(soon, soon),
        protected_meta={"_wp_attached_file": "2026/01/poster.png"},
    )
    assert (attachment.type, attachment.status, attachment.parent) == ("attachment", "inherit", parent.id)
    assert attachment.mime_type == "image/png" and attachment.guid == UPLOADED
    assert attachment.meta == {"_wp_attached_file": "2026/01/poster.png"}
    # The reference's defaults: comments follow the site option (attachments support them), pings
    # are closed (they do not support trackbacks).
    assert (attachment.comment_status, attachment.ping_status) == ("open", "closed")
    # Attachment slugs are unique among every type's.
    assert attachment.slug == "poster-2"
    assert stored(site, attachment.id) == attachment
    assert Change("item", "create", (attachment.id,)) in recorded
    unattached = create(site, "attachment", title="Photo", mime_type="image/jpeg", guid=UPLOADED)
    assert unattached.slug == "photo" and unattached.status == "inherit"
    assert create(site, "page", title="Photo").slug == "photo-2"  # pages share their namespace with attachments
    assert create(site, "attachment", title="Private", status="private", mime_type="image/png").status == "private"


def test_attachment_updates_keep_the_guid_and_protected_meta_is_the_services(site):
    attachment = create(site, "attachment", title="Poster", mime_type="image/png", guid=UPLOADED,
                        protected_meta={"_wp_attached_file": "2026/01/poster.png", "_wp_attachment_metadata": {"width": 1}})
    renamed = update(site, attachment, title="Renamed", guid="http://elsewhere.test/x.png",
                     protected_meta={"_wp_attachment_metadata": None})
    assert renamed.guid == UPLOADED and renamed.mime_type == "image/png" and renamed.title == "Renamed"
    assert renamed.meta == {"_wp_attached_file": "2026/01/poster.png"}
    # Registered keys go through ``meta`` (validated); ``protected_meta`` takes only the service's own.
    with pytest.raises(ValueError):
        create(site, title="Wrong", protected_meta={"footnotes": "x"})
    # Other items keep their permalink as GUID.
    assert create(site, title="Plain").guid.startswith("http://example.test/")


# -- concurrency ----------------------------------------------------------------------------------


def test_concurrent_sticky_and_meta_updates_are_not_lost(site):
    made = [create(site, title=f"S{n}") for n in range(6)]
    in_threads(6, lambda n: update(site, made[n], sticky=True))
    with site.read() as conn:
        assert sorted(store_options.get_option(conn, "sticky_posts")) == sorted(p.id for p in made)
    target = made[0]
    keys = ["_VenueCity", "_VenueZip", "_VenuePhone", "_VenueState"]
    in_threads(len(keys), lambda n: update(site, target, meta={keys[n]: f"v{n}"}))
    meta = stored(site, target.id).meta
    assert {key: meta.get(key) for key in keys} == {key: f"v{n}" for n, key in enumerate(keys)}


def _default_category_count(site):
    with site.read() as conn:
        return terms.get_term(conn, 1).count


def test_counts_left_to_the_bump_are_right_after_savepoints_and_recounts(site):
    """A new post's default category is counted with the transaction's bump on PostgreSQL
    (store/changes.py owe_term_count): the count is right after the commit, also when a
    savepoint rolled back in between, when the count was read or counted again inside the
    transaction, and when the transaction rolled back."""
    create(site, title="Zero")  # makes the default category
    start = _default_category_count(site)
    with site.write() as conn:
        items.create_item(conn, ctx(site), site.registry.types["post"], items.ItemChanges(title="One", status="publish"))
        with conn.begin_nested() as savepoint:
            items.create_item(conn, ctx(site), site.registry.types["post"], items.ItemChanges(title="Gone", status="publish"))
            savepoint.rollback()
        items.create_item(conn, ctx(site), site.registry.types["post"], items.ItemChanges(title="Two", status="publish"))
        assert terms.get_term(conn, 1).count == start + 2  # read inside: what is owed is raised first
        items.create_item(conn, ctx(site), site.registry.types["post"], items.ItemChanges(title="Three", status="publish"))
        terms.object_terms.recount(conn, site.registry, [1])
    assert _default_category_count(site) == start + 3
    with pytest.raises(RuntimeError), site.write() as conn:
        items.create_item(conn, ctx(site), site.registry.types["post"], items.ItemChanges(title="Four", status="publish"))
        raise RuntimeError("rolled back")
    assert _default_category_count(site) == start + 3


@pytest.mark.parametrize("db_leg", ["postgresql"], indirect=True)
def test_a_new_post_does_not_hold_its_category_until_its_commit(site):
    """On PostgreSQL a transaction that created a post in the default category does not keep
    the next post's creation waiting (the category's count is raised with the bump, at the end)."""
    import threading

    create(site, title="First")  # makes the default category
    done = []
    with held_open(site, title="Held"):
        other = threading.Thread(target=lambda: done.append(create(site, title="Free")))
        other.start()
        other.join(10)
        assert len(done) == 1
    assert _default_category_count(site) == 3


def test_a_write_commits_in_its_bumps_round_trip_and_prunes_the_log_after(site, monkeypatch):
    """On PostgreSQL the content counter's bump, the last statement of a write, carries the
    COMMIT in its round trip (FastQuery.rows_and_commit); what runs after it (pruning the log
    every CHANGES_KEPT steps) is committed by the block's end all the same. SQLite commits as
    before."""
    from calpress.store import changes
    from calpress.store.fast import FastQuery
    from calpress.store.tables import changes as changes_table

    monkeypatch.setattr(changes, "CHANGES_KEPT", 4)
    carried = []
    original = FastQuery.run

    def run(self, *args, **kwargs):
        carried.append(kwargs.get("commit", False))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(FastQuery, "run", run)
    for n in range(10):
        with site.write() as conn:
            store_options.set_option(conn, f"carried_{n}", n)
    assert carried.count(True) == (10 if site.engine.dialect.name == "postgresql" else 0)
    with site.read() as conn:
        values = {n: store_options.get_option(conn, f"carried_{n}") for n in range(10)}
        log = conn.execute(sa.select(changes_table.c.generation).order_by(changes_table.c.generation)).scalars().all()
    assert values == {n: n for n in range(10)}
    assert len(log) <= 8 and log == list(range(log[0], log[-1] + 1))
    with pytest.raises(RuntimeError), site.write() as conn:
        store_options.set_option(conn, "never", 1)
        raise RuntimeError("rolled back before any bump")
    with site.read() as conn:
        assert store_options.get_option(conn, "never") is None
