"""Substring search with each database's index (calpress/store/textsearch.py, migration 0005):
the index exists, follows every write, is what the search condition uses, and never changes
an answer (the same as "contains, ignoring ASCII case")."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from item_support import create, ctx, update

from calpress.content import items
from calpress.store import textsearch
from calpress.store.tables import posts

COLUMNS = (posts.c.title, posts.c.excerpt, posts.c.content)


def search(site, text, **query):
    with site.read() as conn:
        found = items.query_items(conn, items.ItemQuery(type="post", search=text, statuses=["publish", "draft"], **query))
    return sorted(item.id for item in found.items)


def test_each_database_has_its_substring_index(site, db_leg):
    with site.read() as conn:
        if db_leg == "sqlite":
            names = set(conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'").scalars())
            assert {f"{textsearch.FTS_TABLE}_{event}" for event in ("insert", "update", "delete")} <= names
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {textsearch.FTS_TABLE}").scalar() == 0
        else:
            names = set(
                conn.exec_driver_sql("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()").scalars()
            )
            assert set(textsearch.TRIGRAM_INDEXES) <= names


def test_the_index_follows_creates_updates_and_deletes(site, db_leg):
    first = create(site, title="Harbour lantern parade", content="<p>Boats with lights</p>", excerpt="Once a year")
    second = create(site, title="Quiet evening", content="<p>A lantern-lit garden</p>", status="draft")
    assert search(site, "lantern") == sorted([first.id, second.id])
    assert search(site, "LANTERN parade") == [first.id]
    assert search(site, "once a YEAR") == [first.id]  # the excerpt is searched too

    update(site, first, title="Harbour regatta", content="<p>Sails only</p>")
    assert search(site, "lantern") == [second.id]
    assert search(site, "regatta") == [first.id]

    with site.write() as conn:
        items.delete_item(conn, ctx(site), items.get_item(conn, second.id))
    assert search(site, "lantern") == []
    assert search(site, "garden") == []
    if db_leg == "sqlite":
        _check_index_against_posts(site)


def _check_index_against_posts(site) -> None:
    """The external-content index agrees with posts, row by row, once the posts waiting for it
    are in (FTS5's integrity-check fails on any difference)."""
    with site.write() as conn:
        textsearch.index_pending(conn)
    with site.read() as conn:
        fts = textsearch.FTS_TABLE
        conn.exec_driver_sql(f"INSERT INTO {fts}({fts}, rank) VALUES ('integrity-check', 1)")
        assert conn.exec_driver_sql(f"SELECT count(*) FROM {textsearch.PENDING_TABLE}").scalar() == 0


def test_new_texts_are_indexed_in_batches_and_searched_meanwhile(site, db_leg):
    """SQLite's index takes new and changed texts 64 at a time (migration 0013); until then the
    posts waiting are searched by their LIKE test, so every answer is as if indexed at once."""
    made = [create(site, title=f"Lantern walk {n}", status="draft" if n % 2 else "publish") for n in range(70)]
    ids = sorted(item.id for item in made)
    assert search(site, "lantern walk", per_page=100) == ids
    if db_leg == "sqlite":
        with site.read() as conn:
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {textsearch.PENDING_TABLE}").scalar() == 70 - 64
            fts = textsearch.FTS_TABLE  # counted by a match: a count(*) would count posts (external content)
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH '\"lantern walk\"'").scalar() == 64
    indexed, waiting = made[3], made[67]  # the first 64 were indexed by the 64th create
    update(site, indexed, title="Harbour walk")
    update(site, waiting, title="Garden walk")
    update(site, made[68], title="Lantern walk 68, renamed")  # still waiting, and still a match
    with site.write() as conn:
        items.delete_item(conn, ctx(site), items.get_item(conn, made[5].id))
        items.delete_item(conn, ctx(site), items.get_item(conn, made[69].id))
    expected = sorted(set(ids) - {indexed.id, waiting.id, made[5].id, made[69].id})
    assert search(site, "lantern walk", per_page=100) == expected
    assert search(site, "harbour") == [indexed.id] and search(site, "garden walk") == [waiting.id]
    assert search(site, "renamed") == [made[68].id]
    if db_leg == "sqlite":
        _check_index_against_posts(site)
        assert search(site, "lantern walk", per_page=100) == expected and search(site, "garden walk") == [waiting.id]


@pytest.mark.new_schema
def test_a_search_reads_the_index_not_every_row(site, db_leg):
    create(site, title="Indexed", content="<p>words</p>")
    with site.read() as conn:
        statement = sa.select(posts.c.id).where(textsearch.contains(conn, COLUMNS, "widget"))
        sql = str(statement.compile(conn, compile_kwargs={"literal_binds": True}))
        if db_leg == "sqlite":
            plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))
            assert f"SCAN {textsearch.FTS_TABLE} VIRTUAL TABLE INDEX" in plan
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # a tiny table is scanned otherwise
            plan = " ".join(conn.exec_driver_sql(f"EXPLAIN {sql}").scalars())
            assert all(name in plan for name in textsearch.TRIGRAM_INDEXES), plan
        # A term of two characters has no trigram: the same condition, by LIKE alone.
        short = str(sa.select(posts.c.id).where(textsearch.contains(conn, COLUMNS, "wi")).compile(conn))
        assert textsearch.FTS_TABLE not in short


CORPUS = [
    ("Jazz Night at the Park", "An evening of jazz: 100% live", "<p>Bring a chair_and a friend</p>"),
    ('The "Big" Quiz', "", "<p>Back\\slash and per%cent</p>"),
    ("Open Mic", "Poetry, music & more", "<p>Sign up at the door - JAZZ welcome</p>"),
    ("Market", "Fruit_veg", "<p>aaa aaab abab</p>"),
]
ALPHABET = sorted({ch for row in CORPUS for text in row for ch in text})


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_indexed_condition_answers_as_a_case_blind_substring_test(site_with_corpus, data):
    site, stored = site_with_corpus
    if data.draw(st.booleans()):
        row = data.draw(st.sampled_from(CORPUS))
        text = data.draw(st.sampled_from(row))
        start = data.draw(st.integers(0, max(0, len(text) - 1)))
        term = text[start : start + data.draw(st.integers(1, 12))]
        term = "".join(ch.upper() if data.draw(st.booleans()) else ch for ch in term)
    else:
        term = data.draw(st.text(alphabet=ALPHABET, min_size=1, max_size=6))
    picked = data.draw(st.lists(st.sampled_from(range(3)), min_size=1, max_size=3, unique=True))
    with site.read() as conn:
        columns = [COLUMNS[i] for i in sorted(picked)]
        found = set(conn.execute(sa.select(posts.c.id).where(textsearch.contains(conn, columns, term))).scalars())
        missing = set(conn.execute(sa.select(posts.c.id).where(textsearch.lacks(conn, columns, term))).scalars())
    expected = {item_id for item_id, row in stored.items() if any(term.lower() in row[i].lower() for i in picked)}
    assert found == expected, term
    assert missing == set(stored) - expected, term


@pytest.fixture()
def site_with_corpus(site):
    for title, excerpt, content in CORPUS:
        create(site, title=title, excerpt=excerpt, content=content)
    with site.read() as conn:  # the texts as stored, which the expectation reads
        rows = conn.execute(sa.select(posts.c.id, *COLUMNS)).all()
    return site, {row[0]: tuple(row[1:]) for row in rows}
