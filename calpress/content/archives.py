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
from .items import Context, Item, ItemQuery, TaxFilter, query_items

DEFAULT_PER_PAGE = 10
MAX_PAGE = 10_000


@dataclass
class Archive:
    items: list[Item]
    page: int
    has_next: bool


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
    """The blog's latest posts."""
    return _page(conn, ctx, page)


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


def search(conn: sa.Connection, ctx: Context, text: str, *, page: int = 1) -> Archive:
    """Posts and pages matching the words of ``text``, as the reference's front-end search."""
    if not text.strip():
        return Archive([], max(1, page), False)
    return _page(conn, ctx, page, search=text, types=("post", "page"))


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
