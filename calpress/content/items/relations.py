"""What a page of items needs besides its rows: terms, revision counts, featured media and page
paths, loaded for the whole page with one grouped statement each (``load_related``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from ...store.fast import Shapes, bind_list, in_binds
from ...store.tables import posts
from .. import terms as term_store
from ..types import ContentType
from .record import HIERARCHY_LIMIT, Item

if TYPE_CHECKING:
    from ..registry import ContentRegistry


@dataclass
class Related:
    """What preparing a page of items needs beyond their rows, each loaded in one query.

    ``terms``: item id -> taxonomy -> terms; ``revisions``: item id -> (count, latest id);
    ``media``: featured media items (and their parents) by id; ``uris``: item id -> page path
    (hierarchical types); ``generated``: item id -> the slug its title would get.
    """

    terms: dict[int, dict[str, list[Any]]] = field(default_factory=dict)
    revisions: dict[int, tuple[int, int]] = field(default_factory=dict)
    media: dict[int, Item] = field(default_factory=dict)
    uris: dict[int, str] = field(default_factory=dict)
    generated: dict[int, str] = field(default_factory=dict)


def load_related(
    conn: sa.Connection,
    registry: ContentRegistry,
    content_type: ContentType,
    items: Sequence[Item],
    *,
    terms: bool = True,
    revisions: bool = True,
    media: bool = True,
    uris: bool = True,
) -> Related:
    """Terms, revision counts, featured media and page paths for a page of items: one grouped
    query each (only those the type has), so a page of 100 costs what a page of 1 does."""
    related = Related()
    if not items:
        return related
    ids = [item.id for item in items]
    if terms:
        names = [t.name for t in registry.taxonomies_for_type(content_type.name)]
        if names:
            related.terms = term_store.get_object_terms(conn, ids, names)
    if revisions:
        related.revisions = revision_counts(conn, ids)
    if media and content_type.has_rest_feature("thumbnail"):
        related.media = get_items_with_parents(conn, [item.featured_media for item in items if item.featured_media])
    if uris and content_type.hierarchical:
        related.uris = page_uris(conn, items)
    return related


def get_items_with_parents(conn: sa.Connection, ids: Iterable[int]) -> dict[int, Item]:
    """Items by id together with their parents, in one query (what ``public_status`` needs)."""
    wanted = sorted({int(i) for i in ids if i and int(i) > 0})
    if not wanted:
        return {}
    parents = sa.select(posts.c.parent).where(posts.c.id.in_(wanted))
    stmt = sa.select(posts).where(sa.or_(posts.c.id.in_(wanted), posts.c.id.in_(parents)))
    return {row.id: Item.from_row(row) for row in conn.execute(stmt)}


def revision_counts(conn: sa.Connection, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """(number of revisions, id of the latest) per item that has revisions, in one query. The
    latest is the newest by date, then id, as the reference's wp_get_latest_revision_id_and_total_count
    (an autosave overwritten in place keeps its id but is dated anew)."""
    if not ids:
        return {}
    params = bind_list("parent", sorted(set(ids)))
    return {row.parent: (row.total, row.id) for row in _REVISION_COUNTS(len(params)).rows(conn, params)}


def _revision_counts_statement(size: int) -> sa.Select:
    ranked = (
        sa.select(
            posts.c.parent,
            posts.c.id,
            sa.func.count().over(partition_by=posts.c.parent).label("total"),
            sa.func.row_number()
            .over(partition_by=posts.c.parent, order_by=(posts.c.date_local.desc(), posts.c.id.desc()))
            .label("position"),
        )
        .where(posts.c.type == "revision", in_binds(posts.c.parent, "parent", size))
        .subquery()
    )
    return sa.select(ranked.c.parent, ranked.c.total, ranked.c.id).where(ranked.c.position == 1)


# per number of item ids bound (store/fast.padded_size)
_REVISION_COUNTS = Shapes(_revision_counts_statement)


def page_uris(conn: sa.Connection, items: Sequence[Item]) -> dict[int, str]:
    """The path of each item under its ancestors (``parent-slug/child-slug``), the reference's
    get_page_uri, for all items in one recursive query."""
    if not items:
        return {}
    with_parent = [item for item in items if item.parent]
    uris = {item.id: item.slug for item in items}
    if not with_parent:
        return uris
    start = sa.select(
        sa.literal_column("0").label("depth"),
        posts.c.id.label("item"),
        posts.c.parent.label("next_id"),
    ).where(posts.c.id.in_([item.id for item in with_parent]))
    chain = start.cte("ancestry", recursive=True)
    up = posts.alias("up")
    chain = chain.union_all(
        sa.select((chain.c.depth + 1).label("depth"), chain.c.item, up.c.parent)
        .join(up, up.c.id == chain.c.next_id)
        .where(chain.c.next_id != 0, chain.c.depth < HIERARCHY_LIMIT)
    )
    stmt = (
        sa.select(chain.c.item, chain.c.depth, posts.c.slug)
        .join(posts, posts.c.id == chain.c.next_id)
        .where(chain.c.next_id != 0)
        .order_by(chain.c.item, chain.c.depth)
    )
    ancestors: dict[int, list[str]] = {}
    for item_id, _depth, slug in conn.execute(stmt):
        ancestors.setdefault(item_id, []).append(slug)
    for item in with_parent:
        path = [slug for slug in reversed(ancestors.get(item.id, [])) if slug]
        uris[item.id] = "/".join([*path, item.slug])
    return uris
