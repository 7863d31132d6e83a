"""Links between content items and terms, and the terms' counts: :func:`set_object_terms` makes
a set of terms an item's terms in one taxonomy, and every change of links brings the counts of
the terms it touches up to date (``count``: the published objects of the taxonomy's types linked
to the term, the reference's _update_post_term_count). Inside :func:`counting_later` the counting
waits for the block's end, once per term. Reading an item's terms is :func:`calpress.content.terms.get_object_terms`.
Callers own the transaction.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa

from ..store.changes import counts_wait_for_bump, owe_term_count, pay_term_counts
from ..store.changes import record as record_change
from ..store.fast import FastQuery, Shapes, bind_list, in_binds, padded_size, rows_insert, rows_params
from ..store.tables import posts, term_links, terms
from .taxonomies import Taxonomy

if TYPE_CHECKING:
    from .registry import ContentRegistry

COUNTED_STATUS = "publish"


def counts_in(taxonomy: Taxonomy, content_type: str, status: str) -> bool:
    """Whether an object of ``content_type`` in ``status`` counts in its terms' counts."""
    return status == COUNTED_STATUS and content_type in taxonomy.object_types


# set_object_terms' statements, built once (SQLAlchemy keys its compiled cache by the statement).
_TERMS_OF_TAXONOMY = sa.select(terms.c.id).where(terms.c.id.in_(sa.bindparam("ids", expanding=True)),
                                                 terms.c.taxonomy == sa.bindparam("taxonomy"))
_OBJECT_TERMS_OF_TAXONOMY = (
    sa.select(term_links.c.term_id)
    .join(terms, terms.c.id == term_links.c.term_id)
    .where(term_links.c.object_id == sa.bindparam("object_id"), terms.c.taxonomy == sa.bindparam("taxonomy"))
)
_UNLINK = sa.delete(term_links).where(term_links.c.object_id == sa.bindparam("object_id"),
                                      term_links.c.term_id.in_(sa.bindparam("ids", expanding=True)))
# Some links of one object in one INSERT, on the driver (a FastQuery per number of rows).
_LINK_ROWS = rows_insert(term_links, term_links.c.term_id)


# Link ``:object_id`` to the term ``:term_id`` if it is a term of ``:taxonomy``, on the driver,
# RETURNING what it linked (a new post's default category).
_LINK_IF_TERM = FastQuery(sa.insert(term_links).from_select(
    ["object_id", "term_id", "position"],
    sa.select(sa.bindparam("object_id", type_=term_links.c.object_id.type), terms.c.id, sa.literal(0, term_links.c.position.type))
    .where(terms.c.id == sa.bindparam("term_id"), terms.c.taxonomy == sa.bindparam("taxonomy")),
).returning(term_links.c.term_id))


def set_object_terms(
    conn: sa.Connection,
    taxonomy: Taxonomy,
    object_id: int,
    term_ids: Iterable[int],
    *,
    new_object: bool = False,
    checked: bool = False,
    counted: bool | None = None,
) -> list[int]:
    """Make ``term_ids`` the object's terms in ``taxonomy`` (replacing the previous set); ids
    that are not terms of that taxonomy are skipped, as the reference does. Recounts every term
    gained or lost (at the end of a :func:`counting_later` block inside one). ``new_object``: the
    object was just inserted, so it has no terms to replace; ``checked``: the ids were just
    looked up as terms of ``taxonomy`` in this transaction; ``counted`` (with ``new_object``):
    whether the new object counts in its terms' counts (:func:`counts_in`), so
    that each count goes up by one instead of being counted again from every link. Returns the
    ids linked, in the order given."""
    record_change(conn, "item", "terms", object_id)
    wanted = list(dict.fromkeys(int(i) for i in term_ids if int(i) > 0))
    if new_object and not checked and len(wanted) == 1:
        # One term for a new object (the default category of a new post): linked only if it is
        # a term of the taxonomy, checked and linked in one statement (and on PostgreSQL counted
        # with the transaction's bump, below).
        inserted = _LINK_IF_TERM.rows(conn, {"object_id": object_id, "term_id": wanted[0], "taxonomy": taxonomy.name})
        linked = wanted if inserted else []
        previous: list[int] = []
    else:
        valid: set[int] = set(wanted) if checked else set()
        if wanted and not checked:
            valid = set(conn.execute(_TERMS_OF_TAXONOMY, {"ids": wanted, "taxonomy": taxonomy.name}).scalars().all())
        linked = [term_id for term_id in wanted if term_id in valid]
        previous = [] if new_object else list(
            conn.execute(_OBJECT_TERMS_OF_TAXONOMY, {"object_id": object_id, "taxonomy": taxonomy.name}).scalars().all()
        )
        if previous:
            conn.execute(_UNLINK, {"object_id": object_id, "ids": list(previous)})
        if linked:
            rows = [{"object_id": object_id, "term_id": term_id, "position": index} for index, term_id in enumerate(linked)]
            _LINK_ROWS(len(linked)).rows(conn, rows_params(rows))
    changed = set(previous) ^ set(linked)
    if not changed or (new_object and counted is False):
        return linked
    pending: dict[str, _Counts] | None = conn.info.get(_COUNT_LATER)
    later = pending.setdefault(taxonomy.name, _Counts(taxonomy)) if pending is not None else None
    if new_object and counted:
        if later is not None:
            later.added.update(changed)
            later.new_objects.add(object_id)
        else:
            ids = sorted(changed)
            if counts_wait_for_bump(conn):  # raised with the bump (PostgreSQL): see owe_term_count
                for term_id in ids:
                    owe_term_count(conn, term_id)
            else:
                _COUNT_ONE_MORE(padded_size(len(ids))).rows(conn, bind_list("terms", ids))
            record_change(conn, "term", "count", *ids)
    elif later is not None:
        later.recount.update(changed)
    else:
        _recount_in(conn, taxonomy, changed)
    return linked


_COUNT_LATER = "calpress_terms_count_later"
# Each of some terms' counts one up, on the driver (a FastQuery per number of terms, padded).
_COUNT_ONE_MORE = Shapes(lambda size: sa.update(terms).where(in_binds(terms.c.id, "terms", size))
                         .values(count=terms.c.count + 1).returning(terms.c.id))
_COUNT_MORE = sa.update(terms).where(terms.c.id == sa.bindparam("term")).values(count=terms.c.count + sa.bindparam("n"))


@dataclass
class _Counts:
    """What a :func:`counting_later` block owes one taxonomy's counts: terms to count again from
    every link, and terms that gained links of new objects that count (``new_objects``: created
    published, of the taxonomy's types, in the block), which add to their counts what those
    links are. Links rolled back with a savepoint are not there to be added, so the sum is
    right whatever the block rolled back."""

    taxonomy: Taxonomy
    recount: set[int] = field(default_factory=set)
    added: set[int] = field(default_factory=set)
    new_objects: set[int] = field(default_factory=set)

    def settle(self, conn: sa.Connection) -> None:
        pay_term_counts(conn)
        if self.recount:
            _recount_in(conn, self.taxonomy, self.recount)
        added = self.added - self.recount
        if not added:
            return
        # The new counted objects' links that are there (those of objects rolled back are not),
        # read from their side (the links' primary key starts with the object), then one UPDATE
        # per term in one round trip.
        gained = conn.execute(
            sa.select(term_links.c.term_id, sa.func.count().label("n"))
            .where(term_links.c.object_id.in_(sorted(self.new_objects)), term_links.c.term_id.in_(sorted(added)))
            .group_by(term_links.c.term_id)
        ).all()
        if gained:
            conn.execute(_COUNT_MORE, [{"term": row.term_id, "n": row.n} for row in gained])
            record_change(conn, "term", "count", *sorted(row.term_id for row in gained))


@contextlib.contextmanager
def counting_later(conn: sa.Connection) -> Iterator[None]:
    """Within the block, :func:`set_object_terms` leaves its recounts for the block's end, where
    each term touched is counted once: a batch of events in the same categories counts each
    category once instead of once per event. Counts read inside the block may be behind."""
    if _COUNT_LATER in conn.info:
        yield  # an outer block counts
        return
    conn.info[_COUNT_LATER] = {}
    try:
        yield
        pending: dict[str, _Counts] = conn.info.get(_COUNT_LATER) or {}
    finally:
        conn.info.pop(_COUNT_LATER, None)
    for owed in pending.values():
        owed.settle(conn)


def remove_object_terms(conn: sa.Connection, registry: ContentRegistry, object_ids: Iterable[int]) -> None:
    """Unlink these objects from all their terms and recount those terms: call it before an
    item is deleted (the database drops its links by itself, but cannot fix the counts)."""
    ids = sorted({int(i) for i in object_ids})
    if not ids:
        return
    linked = conn.execute(sa.select(term_links.c.term_id).where(term_links.c.object_id.in_(ids)).distinct()).scalars().all()
    conn.execute(sa.delete(term_links).where(term_links.c.object_id.in_(ids)))
    recount(conn, registry, linked)


def recount(conn: sa.Connection, registry: ContentRegistry, term_ids: Iterable[int]) -> None:
    """Set ``count`` of these terms to the number of published objects of their taxonomy's
    types linked to them (the reference's _update_post_term_count)."""
    ids = sorted({int(i) for i in term_ids})
    if not ids:
        return
    by_taxonomy: dict[str, list[int]] = {}
    for term_id, taxonomy in conn.execute(sa.select(terms.c.id, terms.c.taxonomy).where(terms.c.id.in_(ids))):
        by_taxonomy.setdefault(taxonomy, []).append(term_id)
    for name, members in by_taxonomy.items():
        definition = registry.taxonomies.get(name)
        _count(conn, list(definition.object_types) if definition else [], members)


def _recount_in(conn: sa.Connection, taxonomy: Taxonomy, term_ids: Iterable[int]) -> None:
    """``recount`` for terms known to be of ``taxonomy``."""
    ids = sorted({int(i) for i in term_ids})
    if ids:
        _count(conn, list(taxonomy.object_types), ids)


def _count(conn: sa.Connection, types: list[str], term_ids: list[int]) -> None:
    pay_term_counts(conn)
    published = (
        sa.select(sa.func.count())
        .select_from(term_links.join(posts, posts.c.id == term_links.c.object_id))
        .where(term_links.c.term_id == terms.c.id, posts.c.status == COUNTED_STATUS, posts.c.type.in_(types))
        .scalar_subquery()
    )
    conn.execute(sa.update(terms).where(terms.c.id.in_(term_ids)).values(count=published))
    record_change(conn, "term", "count", *term_ids)  # events embed their terms' counts


def recount_objects(conn: sa.Connection, registry: ContentRegistry, object_ids: Iterable[int]) -> None:
    """Recount every term linked to these objects: call it when their status or type changes."""
    ids = sorted({int(i) for i in object_ids})
    if ids:
        linked = conn.execute(sa.select(term_links.c.term_id).where(term_links.c.object_id.in_(ids)).distinct()).scalars().all()
        recount(conn, registry, linked)
