"""What the site's XML sitemaps list, as the reference's providers (WP_Sitemaps_Posts,
WP_Sitemaps_Taxonomies, WP_Sitemaps_Users) query it: published items without a password by id,
terms with published items by id, and the users with a published item, in pages of
``MAX_URLS``. Which types and taxonomies are listed is the caller's choice (the public ones)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from ..auth.users import User, user_from_row
from ..store.tables import posts, row_offset, terms, users
from .items import Context, Item, page_uris

MAX_URLS = 2000  # the reference's wp_sitemaps_get_max_urls
_TEXTS = frozenset({"content", "excerpt"})


def _listed(type_names: Sequence[str]) -> list[Any]:
    return [posts.c.type.in_(list(type_names)), posts.c.status == "publish", posts.c.password == ""]


def item_counts(conn: sa.Connection, type_names: Sequence[str]) -> dict[str, int]:
    """How many items of each type a sitemap lists (types without any are absent)."""
    if not type_names:
        return {}
    stmt = sa.select(posts.c.type, sa.func.count()).where(*_listed(type_names)).group_by(posts.c.type)
    return {name: count for name, count in conn.execute(stmt).all()}


def pages_of(count: int) -> int:
    return math.ceil(count / MAX_URLS)


def items_page(conn: sa.Connection, ctx: Context, type_name: str, page: int) -> tuple[list[Item], dict[int, str]]:
    """A page of the type's listed items by id, and the page paths of hierarchical ones."""
    # The texts are not read: a page of 2,000 items needs their addresses and dates only.
    columns = [sa.literal("").label(column.name) if column.name in _TEXTS else column for column in posts.c]
    stmt = sa.select(*columns).where(*_listed([type_name])).order_by(posts.c.id).limit(MAX_URLS) \
        .offset(row_offset((page - 1) * MAX_URLS))
    found = [Item.from_row(row) for row in conn.execute(stmt).all()]
    content_type = ctx.registry.types.get(type_name)
    uris = page_uris(conn, found) if content_type is not None and content_type.hierarchical else {}
    return found, uris


def latest_modified(conn: sa.Connection, type_name: str = "post") -> Any:
    """When the newest listed item of the type last changed (UTC), or None."""
    stmt = sa.select(sa.func.max(posts.c.modified_utc)).where(*_listed([type_name]))
    return conn.execute(stmt).scalar()


def term_counts(conn: sa.Connection, taxonomies: Sequence[str]) -> dict[str, int]:
    """How many terms with items each taxonomy's sitemap lists (hide_empty)."""
    if not taxonomies:
        return {}
    stmt = (sa.select(terms.c.taxonomy, sa.func.count()).where(terms.c.taxonomy.in_(list(taxonomies)), terms.c.count > 0)
            .group_by(terms.c.taxonomy))
    return {name: count for name, count in conn.execute(stmt).all()}


def terms_page(conn: sa.Connection, taxonomy: str, page: int) -> list[Any]:
    """A page of the taxonomy's terms with items, by id (rows with ``id``, ``slug``, ``taxonomy``)."""
    stmt = (sa.select(terms.c.id, terms.c.slug, terms.c.taxonomy, terms.c.name)
            .where(terms.c.taxonomy == taxonomy, terms.c.count > 0)
            .order_by(terms.c.id).limit(MAX_URLS).offset(row_offset((page - 1) * MAX_URLS)))
    return list(conn.execute(stmt).all())


def _authors(type_names: Sequence[str]) -> Any:
    return sa.exists().where(posts.c.author == users.c.id, posts.c.type.in_(list(type_names)), posts.c.status == "publish")


def author_count(conn: sa.Connection, type_names: Sequence[str]) -> int:
    """How many users have a published item of one of ``type_names``."""
    if not type_names:
        return 0
    return int(conn.execute(sa.select(sa.func.count()).select_from(users).where(_authors(type_names))).scalar_one())


def authors_page(conn: sa.Connection, type_names: Sequence[str], page: int) -> list[User]:
    """A page of those users, by login (the reference's user query order)."""
    if not type_names:
        return []
    stmt = (sa.select(users).where(_authors(type_names)).order_by(users.c.login, users.c.id)
            .limit(MAX_URLS).offset(row_offset((page - 1) * MAX_URLS)))
    return [user_from_row(row) for row in conn.execute(stmt).all()]
