"""What a page of items needs besides its rows (calpress/content/items/relations.py): page paths,
terms and revision counts."""

from __future__ import annotations

from item_support import create

from calpress.content import items, terms


def test_page_uris_follow_the_ancestry(site):
    a = create(site, "page", title="A")
    b = create(site, "page", title="B", parent=a.id)
    c = create(site, "page", title="C", parent=b.id)
    with site.read() as conn:
        assert items.page_uris(conn, [a, b, c]) == {a.id: "a", b.id: "a/b", c.id: "a/b/c"}


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
