"""What the public site lists and shows around content items: the blog's front page, term,
author and search archives (a page of published posts, private ones too for users who may read
them, as the reference's main query), and the extras of a single item's page (its author and
terms).

The pages call these with the requester's context; the one read rule decides the statuses
(:func:`listed_statuses`). Pages are ``posts_per_page`` long; each archive reads one page and
knows whether another follows without counting the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from ..auth.users import User, get_user
from . import terms as term_store
from .items import Context, Item, ItemQuery, TaxFilter, query_items, stickies_first

DEFAULT_PER_PAGE = 10
MAX_PAGE = 10_000


@dataclass
class Archive:
    items: list[Item]
    page: int
    has_next: bool
    # The sticky posts put first on the page (the home's first page only), marked "sticky".
    sticky: frozenset[int] = frozenset()


@dataclass
class Extras:
    author_name: str = ""
    author_url: str = ""
    terms: list[tuple[str, list[Any]]] = field(default_factory=list)  # (label, terms)
    is_front: bool = False


def listed_statuses(ctx: Context, content_type: str = "post") -> tuple[str, ...]:
    """Published, and private for users who may read the type's private items."""
    found = ctx.registry.types.get(content_type)
    if found is not None and ctx.user and ctx.can(found.caps["read_private_posts"]):
        return ("publish", "private")
    return ("publish",)


def _per_page(ctx: Context) -> int:
    try:
        return max(1, min(int(ctx.options.get("posts_per_page") or DEFAULT_PER_PAGE), 100))
    except (TypeError, ValueError):
        return DEFAULT_PER_PAGE


def _page(conn: sa.Connection, ctx: Context, page: int, **filters: Any) -> Archive:
    page = max(1, min(int(page or 1), MAX_PAGE))
    size = _per_page(ctx)
    query = ItemQuery(type="post", statuses=listed_statuses(ctx), page=page, per_page=size, **filters)
    found = query_items(conn, query)
    return Archive(found.items, page, found.total > page * size)


def archive(conn: sa.Connection, ctx: Context, *, page: int = 1) -> Archive:
    """The blog's latest posts, the sticky ones first on the first page: those on it moved to
    the top, the others fetched and put before the rest, as WP_Query does for the home (the
    page is then longer than ``posts_per_page``; later pages keep them where their date puts
    them, as the reference's do)."""
    found = _page(conn, ctx, page)
    sticky_ids = ctx.sticky_ids
    post_type = ctx.registry.types.get("post")
    if found.page != 1 or not sticky_ids or post_type is None:
        return found
    items = stickies_first(conn, post_type, found.items, sticky_ids, ())
    sticky = frozenset(item.id for item in items if item.id in sticky_ids)
    return Archive(items, found.page, found.has_next, sticky)


def term_archive(conn: sa.Connection, ctx: Context, taxonomy: str, term_id: int, *, page: int = 1) -> tuple[Any, Archive]:
    """The term and the posts filed under it (and under its children, for hierarchical ones)."""
    term = term_store.get_term(conn, term_id)
    if term is None or term.taxonomy != taxonomy:
        return None, Archive([], 1, False)
    found = ctx.registry.taxonomies.get(taxonomy)
    hierarchical = bool(getattr(found, "hierarchical", False))
    return term, _page(conn, ctx, page, tax_filters=[TaxFilter(taxonomy, [term.id], include_children=hierarchical)])


def author_archive(conn: sa.Connection, ctx: Context, user_id: int, *, page: int = 1) -> tuple[User | None, Archive]:
    user = get_user(conn, user_id) if user_id > 0 else None
    if user is None:
        return None, Archive([], 1, False)
    return user, _page(conn, ctx, page, authors=[user.id])


def searched_types(ctx: Context) -> tuple[str, ...]:
    """The types the site's search lists: every public type not excluded from search (posts,
    pages, events; not venues and organizers, which TEC excludes). Attachments are among them
    as in the reference, whose search then finds none: their status is ``inherit``, not
    ``publish``."""
    return tuple(content_type.name for content_type in ctx.registry.types.values() if content_type.searchable)


def search(conn: sa.Connection, ctx: Context, text: str, *, page: int = 1) -> Archive:
    """Items of every searchable type matching the words of ``text``, as the reference's
    front-end search (post type ``any``, ordered by relevance); protected items only for
    logged-in users, as its search clause has it."""
    if not text.strip():
        return Archive([], max(1, page), False)
    return _page(conn, ctx, page, search=text, types=searched_types(ctx), hide_protected=not ctx.user,
                 orderby="relevance")


def item_extras(conn: sa.Connection, ctx: Context, item: Item) -> Extras:
    """The author (posts) and terms of an item's page."""
    extras = Extras()
    content_type = ctx.registry.types.get(item.type)
    if item.type == "post" and item.author:
        user = get_user(conn, item.author)
        if user is not None:
            extras.author_name = user.display_name
            extras.author_url = f"{ctx.home.rstrip('/')}/author/{user.nicename}/"
    if content_type is not None:
        taxonomies = [tax for tax in ctx.registry.taxonomies.values() if item.type in tax.object_types and tax.public]
        if taxonomies:
            found = term_store.get_object_terms(conn, [item.id], [tax.name for tax in taxonomies]).get(item.id, {})
            extras.terms = [(tax.label, found.get(tax.name, [])) for tax in taxonomies]
    extras.is_front = ctx.options.get("show_on_front") == "page" and int(ctx.options.get("page_on_front") or 0) == item.id
    return extras
