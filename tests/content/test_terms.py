"""calpress.content.terms: the terms service every taxonomy shares, on both databases."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from content_support import engine_statements

from calpress.app import build_registry
from calpress.content import object_terms
from calpress.content import terms as tx
from calpress.content.terms import Term, TermError, TermQuery
from calpress.store import db
from calpress.store.tables import posts, term_links, terms

NOW = dt.datetime(2026, 1, 1, 12, 0)
REGISTRY = build_registry()
TAX = REGISTRY.taxonomies


def add_post(conn: sa.Connection, type_: str = "post", status: str = "publish", author: int | None = None) -> int:
    values = {
        "type": type_, "status": status, "author": author, "slug": "", "title": "t",
        "date_local": NOW, "date_utc": NOW, "modified_local": NOW, "modified_utc": NOW,
    }
    return conn.execute(sa.insert(posts).values(**values).returning(posts.c.id)).scalar_one()


@pytest.fixture()
def conn(engine: sa.Engine) -> Iterator[sa.Connection]:
    """One write transaction for the whole test, committed at the end."""
    with db.write_transaction(engine) as connection:
        yield connection


def error_of(call: Any) -> TermError:
    with pytest.raises(TermError) as caught:
        call()
    return caught.value


def names(found: list[Term]) -> list[str]:
    return [term.name for term in found]


def test_term_links(conn: sa.Connection) -> None:
    home = "http://example.test"
    parent = tx.create_term(conn, TAX["category"], "Music")
    child = tx.create_term(conn, TAX["category"], "Jazz", parent=parent.id)
    grandchild = tx.create_term(conn, TAX["category"], "Bebop", parent=child.id)
    related = tx.with_ancestors(conn, [grandchild])
    assert set(related) == {parent.id, child.id, grandchild.id}
    assert tx.term_link(home, TAX["category"], grandchild, related) == "http://example.test/category/music/jazz/bebop/"
    assert tx.term_link(home + "/", TAX["category"], child) == "http://example.test/category/jazz/"
    assert tx.term_link(home, TAX["post_tag"], Term(3, "post_tag", "T", "t")) == "http://example.test/tag/t/"
    assert tx.term_link(home, TAX["cal_events_cat"], Term(3, "cal_events_cat", "E", "e")) == "http://example.test/events/category/e/"
    assert tx.term_link(home, TAX["wp_pattern_category"], Term(3, "wp_pattern_category", "P", "p")) == "http://example.test/?taxonomy=wp_pattern_category&term=p"


# -- the default category -------------------------------------------------------------------------


def test_default_category_is_created_first_with_id_1(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        tag = tx.create_term(conn, TAX["post_tag"], "First tag")
    with db.write_transaction(engine) as conn:
        assert tx.ensure_default_category(conn) == 1
        default = tx.get_term(conn, 1, "category")
        other = tx.create_term(conn, TAX["category"], "Second")
    assert default is not None and (default.name, default.slug, default.parent) == ("Uncategorized", "uncategorized", 0)
    assert tag.id == 2 and other.id == 3  # the id sequence moved past the default category
    assert tx.default_category_known(engine)


def test_a_rolled_back_first_write_leaves_no_default_behind(engine: sa.Engine) -> None:
    with pytest.raises(RuntimeError):
        with db.write_transaction(engine) as conn:
            tx.create_term(conn, TAX["post_tag"], "Gone")
            raise RuntimeError
    assert not tx.default_category_known(engine)
    with db.write_transaction(engine) as conn:
        tag = tx.create_term(conn, TAX["post_tag"], "Kept")
    with db.read_connection(engine) as conn:
        assert tx.get_term(conn, 1, "category") is not None
    assert tag.id > 1


def test_default_category_cannot_be_deleted(conn: sa.Connection) -> None:
    tx.ensure_default_category(conn)
    default = tx.get_term(conn, 1)
    assert default is not None
    err = error_of(lambda: tx.delete_term(conn, REGISTRY, default))
    assert (err.code, err.status) == ("rest_cannot_delete", 500)
    assert tx.ensure_default_category(conn) == 1


# -- creating -------------------------------------------------------------------------------------


def test_create_term_slugs_names_and_descriptions(conn: sa.Connection) -> None:
    term = tx.create_term(conn, TAX["post_tag"], "  Café & <b>Crème</b> ", description='Hi <script>x()</script><a href="javascript:1" rel="x">a</a> <em>e</em>')
    assert (term.name, term.slug) == ("Café &amp; Crème", "cafe-creme")
    assert term.description == 'Hi <a rel="x">a</a> <em>e</em>'
    assert (term.count, term.parent, term.taxonomy) == (0, 0, "post_tag")
    assert tx.get_term(conn, term.id) == term
    # Another name with the same slug gets a numbered slug.
    assert tx.create_term(conn, TAX["post_tag"], "Cafe Creme!").slug == "cafe-creme-2"
    # An explicit slug is sanitised and made unique too.
    assert tx.create_term(conn, TAX["post_tag"], "Other", slug="Café Crème").slug == "cafe-creme-3"
    # The same slug in another taxonomy is fine.
    assert tx.create_term(conn, TAX["category"], "Café Crème").slug == "cafe-creme"
    # Nothing left for a slug: the id is the slug.
    bang = tx.create_term(conn, TAX["post_tag"], "!!!")
    assert bang.slug == str(bang.id) == tx.get_term(conn, bang.id).slug  # type: ignore[union-attr]
    assert tx.create_term(conn, TAX["post_tag"], "Zero", slug="0").slug == "zero"  # PHP's empty("0")


def test_create_term_errors(conn: sa.Connection) -> None:
    tag = tx.create_term(conn, TAX["post_tag"], "News")
    err = error_of(lambda: tx.create_term(conn, TAX["post_tag"], "news"))
    assert (err.code, err.status, err.data) == ("term_exists", 400, {"status": 400, "term_id": tag.id})
    assert err.message == "A term with the name provided already exists in this taxonomy."
    err = error_of(lambda: tx.create_term(conn, TAX["post_tag"], "NEWS", slug="news"))
    assert err.code == "term_exists"
    # An explicit, free slug allows the name again.
    assert tx.create_term(conn, TAX["post_tag"], "News", slug="news-two").slug == "news-two"
    err = error_of(lambda: tx.create_term(conn, TAX["post_tag"], "  <b></b> "))
    assert (err.code, err.message, err.data, err.status) == ("empty_term_name", "A name is required for this term.", None, 500)
    err = error_of(lambda: tx.create_term(conn, TAX["post_tag"], "X", parent=0))
    assert (err.code, err.status) == ("rest_taxonomy_not_hierarchical", 400)
    assert err.message == "Cannot set parent term, taxonomy is not hierarchical."
    err = error_of(lambda: tx.create_term(conn, TAX["category"], "X", parent=tag.id))  # a tag is no category
    assert (err.code, err.message, err.status) == ("rest_term_invalid", "Parent term does not exist.", 400)
    # A taxonomy is handed over as its definition; where the service takes a name, an unknown one is refused.
    err = error_of(lambda: tx.query_terms(conn, REGISTRY, TermQuery(taxonomy="nope")))
    assert err.code == "invalid_taxonomy"


def test_create_hierarchical_names_per_level(conn: sa.Connection) -> None:
    music = tx.create_term(conn, TAX["category"], "Music")
    jazz = tx.create_term(conn, TAX["category"], "Jazz", parent=music.id)
    err = error_of(lambda: tx.create_term(conn, TAX["category"], "Jazz", parent=music.id))
    assert (err.code, err.data["term_id"]) == ("term_exists", jazz.id)
    assert err.message == "A term with the name provided already exists with this parent."
    # The same name at another level is allowed; its slug takes the parent's slug first.
    top_jazz = tx.create_term(conn, TAX["category"], "Jazz")
    assert top_jazz.slug == "jazz-2"
    other = tx.create_term(conn, TAX["category"], "Other")
    nested = tx.create_term(conn, TAX["category"], "Jazz", parent=other.id)
    assert nested.slug == "jazz-other"
    assert tx.create_term(conn, TAX["category"], "Top", parent=0).parent == 0


# -- updating -------------------------------------------------------------------------------------


def test_update_term(conn: sa.Connection) -> None:
    term = tx.create_term(conn, TAX["category"], "Old name", description="d")
    renamed = tx.update_term(conn, TAX[term.taxonomy], term, name="New <i>name</i>")
    assert (renamed.name, renamed.slug, renamed.description) == ("New name", "old-name", "d")  # slug kept
    regenerated = tx.update_term(conn, TAX[renamed.taxonomy], renamed, slug="")
    assert regenerated.slug == "new-name"
    described = tx.update_term(conn, TAX[regenerated.taxonomy], regenerated, description="<strong>x</strong><p>y</p>")
    assert described.description == "<strong>x</strong>y"
    assert tx.get_term(conn, term.id) == described
    other = tx.create_term(conn, TAX["category"], "Other")
    err = error_of(lambda: tx.update_term(conn, TAX[described.taxonomy], described, slug="other"))
    assert (err.code, err.status, err.data) == ("duplicate_term_slug", 500, None)
    assert err.message == "The slug &#8220;other&#8221; is already in use by another term."
    # With a new parent the slug is made unique instead.
    moved = tx.update_term(conn, TAX[described.taxonomy], described, slug="other", parent=other.id)
    assert (moved.slug, moved.parent) == ("other-other", other.id)
    err = error_of(lambda: tx.update_term(conn, TAX[moved.taxonomy], moved, name=" "))
    assert err.code == "empty_term_name"
    err = error_of(lambda: tx.update_term(conn, TAX[moved.taxonomy], moved, parent=999999))
    assert err.code == "rest_term_invalid"
    tag = tx.create_term(conn, TAX["post_tag"], "T")
    err = error_of(lambda: tx.update_term(conn, TAX[tag.taxonomy], tag, parent=0))
    assert err.code == "rest_taxonomy_not_hierarchical"


def test_update_never_makes_a_cycle(conn: sa.Connection) -> None:
    top = tx.create_term(conn, TAX["category"], "Top")
    middle = tx.create_term(conn, TAX["category"], "Middle", parent=top.id)
    bottom = tx.create_term(conn, TAX["category"], "Bottom", parent=middle.id)
    assert tx.update_term(conn, TAX[top.taxonomy], top, parent=top.id).parent == 0  # its own parent
    assert tx.update_term(conn, TAX[top.taxonomy], top, parent=bottom.id).parent == 0  # its own grandchild
    assert tx.update_term(conn, TAX[bottom.taxonomy], bottom, parent=top.id).parent == top.id
    assert tx.update_term(conn, TAX[bottom.taxonomy], bottom, parent=0).parent == 0


# -- deleting -------------------------------------------------------------------------------------


def test_delete_term_moves_children_and_refiles_content(conn: sa.Connection) -> None:
    tx.ensure_default_category(conn)
    top = tx.create_term(conn, TAX["category"], "Top")
    middle = tx.create_term(conn, TAX["category"], "Middle", parent=top.id)
    child = tx.create_term(conn, TAX["category"], "Child", parent=middle.id)
    other = tx.create_term(conn, TAX["category"], "Other")
    only_middle, two_categories = add_post(conn), add_post(conn)
    object_terms.set_object_terms(conn, TAX["category"], only_middle, [middle.id])
    object_terms.set_object_terms(conn, TAX["category"], two_categories, [middle.id, other.id])
    tx.delete_term(conn, REGISTRY, middle)
    assert tx.get_term(conn, middle.id) is None
    assert tx.get_term(conn, child.id).parent == top.id  # type: ignore[union-attr]
    linked = tx.get_object_terms(conn, [only_middle, two_categories], ["category"])
    assert [t.id for t in linked[only_middle]["category"]] == [1]  # left with none: the default
    assert [t.id for t in linked[two_categories]["category"]] == [other.id]
    assert tx.get_term(conn, 1).count == 1  # type: ignore[union-attr]
    tag = tx.create_term(conn, TAX["post_tag"], "Tag")
    object_terms.set_object_terms(conn, TAX["post_tag"], only_middle, [tag.id])
    tx.delete_term(conn, REGISTRY, tag)
    assert tx.get_object_terms(conn, [only_middle], ["post_tag"])[only_middle]["post_tag"] == []


# -- links and counts -----------------------------------------------------------------------------


def test_set_object_terms_and_counts(conn: sa.Connection) -> None:
    red, blue = tx.create_term(conn, TAX["post_tag"], "Red"), tx.create_term(conn, TAX["post_tag"], "Blue")
    category = tx.create_term(conn, TAX["category"], "Cat")
    published, draft = add_post(conn), add_post(conn, status="draft")
    event, page = add_post(conn, type_="cal_events"), add_post(conn, type_="page")
    assert object_terms.set_object_terms(conn, TAX["post_tag"], published, [red.id, blue.id, red.id, category.id, 999999]) == [red.id, blue.id]
    object_terms.set_object_terms(conn, TAX["post_tag"], draft, [red.id])
    object_terms.set_object_terms(conn, TAX["post_tag"], event, [red.id])  # tags classify events too
    object_terms.set_object_terms(conn, TAX["post_tag"], page, [red.id])  # pages are not a tag type: not counted
    assert tx.get_term(conn, red.id).count == 2  # type: ignore[union-attr]
    assert tx.get_term(conn, blue.id).count == 1  # type: ignore[union-attr]
    assert object_terms.set_object_terms(conn, TAX["post_tag"], published, [blue.id]) == [blue.id]  # replaces the set
    assert tx.get_term(conn, red.id).count == 1  # type: ignore[union-attr]
    conn.execute(sa.update(posts).where(posts.c.id == draft).values(status="publish"))
    object_terms.recount_objects(conn, REGISTRY, [draft])
    assert tx.get_term(conn, red.id).count == 2  # type: ignore[union-attr]
    assert object_terms.set_object_terms(conn, TAX["post_tag"], published, []) == []
    assert tx.get_term(conn, blue.id).count == 0  # type: ignore[union-attr]
    positions = conn.execute(sa.select(term_links.c.term_id, term_links.c.position).where(term_links.c.object_id == event)).all()
    assert [tuple(p) for p in positions] == [(red.id, 0)]
    object_terms.remove_object_terms(conn, REGISTRY, [draft, event])
    assert tx.get_term(conn, red.id).count == 0  # type: ignore[union-attr]
    assert tx.get_object_terms(conn, [draft], ["post_tag"]) == {draft: {"post_tag": []}}


def test_get_object_terms_reads_a_page_in_one_query(engine: sa.Engine) -> None:
    with db.write_transaction(engine) as conn:
        zeta, alpha = tx.create_term(conn, TAX["post_tag"], "zeta"), tx.create_term(conn, TAX["post_tag"], "Alpha")
        news = tx.create_term(conn, TAX["category"], "News")
        items = [add_post(conn) for _ in range(5)]
        for item in items[:3]:
            object_terms.set_object_terms(conn, TAX["post_tag"], item, [zeta.id, alpha.id])
            object_terms.set_object_terms(conn, TAX["category"], item, [news.id])
    with db.read_connection(engine) as conn, engine_statements(engine) as statements:
        found = tx.get_object_terms(conn, items, ["category", "post_tag"])
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
    assert sorted(found) == sorted(items)
    assert [t.name for t in found[items[0]]["post_tag"]] == ["Alpha", "zeta"]  # by name, ignoring case
    assert [t.id for t in found[items[0]]["category"]] == [news.id]
    assert found[items[4]] == {"category": [], "post_tag": []}
    with db.read_connection(engine) as conn:
        assert tx.get_object_terms(conn, [], ["category"]) == {}


# -- listing --------------------------------------------------------------------------------------


@pytest.fixture()
def filled(conn: sa.Connection) -> dict[str, Term]:
    made = {
        name: tx.create_term(conn, TAX["post_tag"], name, description=description)
        for name, description in (("b", "z"), ("A", "y"), ("C", "x"), ("Foo", ""), ("Bar", "foo fighters"))
    }
    made["foo-bar"] = tx.create_term(conn, TAX["post_tag"], "Baz", slug="foo-bar")
    item = add_post(conn)
    object_terms.set_object_terms(conn, TAX["post_tag"], item, [made["C"].id, made["A"].id])
    other = add_post(conn)
    object_terms.set_object_terms(conn, TAX["post_tag"], other, [made["C"].id])
    made["_item"] = Term(item, "", "", "")
    return made


def listed(conn: sa.Connection, **kwargs: Any) -> tuple[list[str], int]:
    found, total = tx.query_terms(conn, REGISTRY, TermQuery(taxonomy="post_tag", **kwargs))
    return names(found), total


def test_query_terms_filters(conn: sa.Connection, filled: dict[str, Term]) -> None:
    assert listed(conn) == (["A", "b", "Bar", "Baz", "C", "Foo"], 6)
    assert listed(conn, search="foo") == (["Baz", "Foo"], 2)  # name or slug, not description
    assert listed(conn, search="%") == ([], 0)
    ids = {name: term.id for name, term in filled.items()}
    assert listed(conn, include=[ids["C"], ids["A"]]) == (["A", "C"], 2)
    assert listed(conn, include=[ids["C"]], exclude=[ids["C"]]) == (["C"], 1)  # include wins
    assert listed(conn, exclude=[ids["C"], ids["A"]])[1] == 4
    assert listed(conn, slugs=["Foo Bar", "c"]) == (["Baz", "C"], 2)  # slugs are sanitised
    assert listed(conn, object_id=filled["_item"].id) == (["A", "C"], 2)
    assert listed(conn, hide_empty=True) == (["A", "C"], 2)
    assert listed(conn, parent=0)[1] == 6
    assert listed(conn, limit=2, offset=1) == (["b", "Bar"], 6)
    assert listed(conn, limit=2, offset=10) == ([], 6)


def test_query_terms_order(conn: sa.Connection, filled: dict[str, Term]) -> None:
    ids = {name: term.id for name, term in filled.items()}
    assert listed(conn, orderby="id")[0] == ["b", "A", "C", "Foo", "Bar", "Baz"]
    assert listed(conn, orderby="id", order="desc")[0] == ["Baz", "Bar", "Foo", "C", "A", "b"]
    assert listed(conn, orderby="name", order="desc")[0] == ["Foo", "C", "Baz", "Bar", "b", "A"]
    assert listed(conn, orderby="slug")[0] == ["A", "b", "Bar", "C", "Foo", "Baz"]
    assert listed(conn, orderby="count", order="desc")[0][:2] == ["C", "A"]
    assert listed(conn, orderby="description")[0] == ["Foo", "Baz", "Bar", "C", "A", "b"]
    assert listed(conn, orderby="include", include=[ids["C"], ids["b"], ids["A"]])[0] == ["C", "b", "A"]
    assert listed(conn, orderby="include")[0] == listed(conn)[0]  # no include list: by name
    assert listed(conn, orderby="include_slugs", slugs=["foo", "a", "c"])[0] == ["Foo", "A", "C"]
    assert listed(conn, orderby="term_group")[0] == listed(conn, orderby="id")[0]


def test_query_terms_hide_empty_keeps_parents_of_used_terms(conn: sa.Connection) -> None:
    tx.ensure_default_category(conn)
    top = tx.create_term(conn, TAX["category"], "Top")
    middle = tx.create_term(conn, TAX["category"], "Middle", parent=top.id)
    used = tx.create_term(conn, TAX["category"], "Used", parent=middle.id)
    tx.create_term(conn, TAX["category"], "Unused", parent=top.id)
    tx.create_term(conn, TAX["category"], "Lonely")
    object_terms.set_object_terms(conn, TAX["category"], add_post(conn), [used.id])
    found, total = tx.query_terms(conn, REGISTRY, TermQuery(taxonomy="category", hide_empty=True))
    assert (names(found), total) == (["Middle", "Top", "Used"], 3)
    found, total = tx.query_terms(conn, REGISTRY, TermQuery(taxonomy="category", hide_empty=True, parent=top.id))
    assert (names(found), total) == (["Middle"], 1)
    found, total = tx.query_terms(conn, REGISTRY, TermQuery(taxonomy="category", parent=top.id))
    assert (names(found), total) == (["Middle", "Unused"], 2)


def test_with_descendants(conn: sa.Connection) -> None:
    top = tx.create_term(conn, TAX["category"], "Top")
    middle = tx.create_term(conn, TAX["category"], "Middle", parent=top.id)
    bottom = tx.create_term(conn, TAX["category"], "Bottom", parent=middle.id)
    other = tx.create_term(conn, TAX["category"], "Other")
    assert tx.with_descendants(conn, [top.id]) == {top.id, middle.id, bottom.id}
    assert tx.with_descendants(conn, [middle.id, other.id]) == {middle.id, bottom.id, other.id}
    assert tx.with_descendants(conn, [999999]) == set()
    assert tx.with_descendants(conn, []) == set()


def test_find_term(conn: sa.Connection) -> None:
    term = tx.create_term(conn, TAX["cal_events_cat"], "Open Air & Fun")
    assert tx.find_term(conn, "cal_events_cat", "open-air-fun") == term
    assert tx.find_term(conn, "cal_events_cat", str(term.id)) == term
    assert tx.find_term(conn, "cal_events_cat", term.id) == term
    assert tx.find_term(conn, "cal_events_cat", "Open Air & Fun") == term
    assert tx.find_term(conn, "post_tag", "open-air-fun") is None
    assert tx.find_term(conn, "cal_events_cat", " ") is None


def test_terms_table_keeps_one_slug_per_taxonomy(conn: sa.Connection) -> None:
    tx.create_term(conn, TAX["post_tag"], "Same")
    count = conn.execute(sa.select(sa.func.count()).select_from(terms).where(terms.c.slug == "same")).scalar_one()
    assert count == 1
