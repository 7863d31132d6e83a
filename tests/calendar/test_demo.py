"""seed-demo: bulk demo data that the API serves like any other (calendar issue)."""

from __future__ import annotations

import io

import sqlalchemy as sa

from calpress.calendar.demo import Progress, seed_demo
from calpress.content import terms
from calpress.store.tables import event_links, events, posts, term_links


def count(conn, table, *where) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(table).where(*where)).scalar_one()


def test_seed_demo_writes_events_with_links_terms_and_counts(app, client) -> None:
    seen: list[int] = []
    assert seed_demo(app.site, 250, batch=100, progress=seen.append) == 250
    assert seen == [100, 200, 250]
    with app.site.read() as conn:
        assert count(conn, events) == 250
        assert count(conn, posts, posts.c.type == "cal_events", posts.c.status == "publish") == 250
        # every event has one venue and one or two organizers, all existing venue/organizer items
        assert count(conn, event_links, event_links.c.kind == "venue") == 250
        organizer_links = count(conn, event_links, event_links.c.kind == "organizer")
        assert 250 <= organizer_links <= 500
        linked_types = set(conn.execute(
            sa.select(posts.c.type).join(event_links, event_links.c.linked_id == posts.c.id).distinct()
        ).scalars())
        assert linked_types == {"cal_venue", "cal_organizer"}
        # term counts were recomputed from the links
        music = terms.find_term(conn, "cal_events_cat", "Music")
        assert music is not None
        assert music.count == count(conn, term_links, term_links.c.term_id == music.id) > 0
        guids = conn.execute(sa.select(posts.c.guid).where(posts.c.type == "cal_events").limit(3)).scalars().all()
        assert all(g.startswith("http") and "/event/" in g for g in guids)

    listing = client.get("/cal/events/v1/events", params={"per_page": "50", "start_date": "2000-01-01"})
    assert listing.status_code == 200
    assert listing.json["total"] == 250
    first = listing.json["events"][0]
    assert first["venue"]["id"] and first["organizer"] and first["categories"]
    single = client.get(f"/cal/events/v1/events/{first['id']}")
    assert single.status_code == 200 and single.json["title"] == first["title"]


def test_seed_demo_twice_adds_events_and_reuses_linked_records(app) -> None:
    seed_demo(app.site, 40, seed=3)
    with app.site.read() as conn:
        venues = count(conn, posts, posts.c.type == "cal_venue")
    seed_demo(app.site, 40, seed=3)  # same seed: same titles, so slugs must be made unique
    with app.site.read() as conn:
        assert count(conn, events) == 80
        assert count(conn, posts, posts.c.type == "cal_venue") == venues
        slugs = conn.execute(sa.select(posts.c.slug).where(posts.c.type == "cal_events")).scalars().all()
        assert len(slugs) == len(set(slugs)) == 80


def test_progress_bar_prints_a_line_per_tenth_when_not_a_terminal() -> None:
    out = io.StringIO()
    bar = Progress("seeding events", 100, stream=out)
    for done in range(0, 101, 5):
        bar.update(done)
    bar.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 11
    assert lines[-1].startswith("seeding events [" + "#" * 30 + "] 100/100")
