"""What the site's RSS and Atom feeds list: feed addresses read back, the latest posts of the
blog, a term or an author (or a search), the latest approved comments of the site or of one item,
and what an entry shows besides its row (author, categories and tags), as the reference's feed
queries give them (WP_Query with ``is_feed``: ``posts_per_rss`` items, newest first, no sticky
posts first).

An address names a feed in the reference's two ways: a path ending in ``feed/`` (or
``feed/<type>/``, or ``<type>/`` for the types other than ``feed``), or a ``feed`` query var. What
remains of the address names what the feed is about, read by :func:`calpress.content.public.resolve`
(``/category/news/feed/`` is the feed of ``/category/news/``); ``/comments/feed/`` is the site's
comments feed. The one read rule decides what is listed (:func:`archives.listed_statuses`), as on
the archive pages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from ..auth.users import User, get_users
from . import comments as comment_store
from . import terms as term_store
from .archives import MAX_PAGE, listed_statuses
from .items import Context, Item, ItemQuery, TaxFilter, get_items, query_items

DEFAULT_PER_RSS = 10  # the reference's posts_per_rss
MAX_PER_RSS = 100
# The feed types the reference's rewrite rules and ``feed`` query var name, as served here: the
# old RDF and RSS 0.92 types are answered with RSS 2.0.
FEED_TYPES = {"feed": "rss2", "rdf": "rss2", "rss": "rss2", "rss2": "rss2", "atom": "atom"}
# ``?feed=comments-rss2`` and friends.
_COMMENT_FEEDS = {"comments-rss2": "rss2", "comments-atom": "atom", "comments-rss": "rss2", "comments-rdf": "rss2"}
# ``<base>/feed/``, ``<base>/feed/<type>/``, and ``<base>/<type>/`` for the other types.
_LONG_FORM = re.compile(r"(?P<base>.*/)feed(?:/(?P<type>feed|rdf|rss|rss2|atom))?/?")
_SHORT_FORM = re.compile(r"(?P<base>.*/)(?P<type>rdf|rss|rss2|atom)/?")
# Comment types a comments feed lists (never editorial notes).
LISTED_COMMENT_TYPES = ["comment", "pingback", "trackback"]


@dataclass(frozen=True)
class FeedAddress:
    """A feed the address asks for: ``format`` (``rss2`` or ``atom``), ``comments`` (a comments
    feed), and the address of what it is about (``path`` and ``query``, the feed parts removed).
    ``certain``: the address can only be a feed (``feed/`` or ``?feed=``): when what it is about
    is unknown it is a 404, not another page."""

    format: str
    comments: bool
    path: str
    query: dict[str, Any]
    certain: bool = True


def feed_address(path: str, query: Mapping[str, Any]) -> FeedAddress | None:
    """The feed ``path?query`` names, or None when it names no feed (an unknown ``?feed=`` type
    is a feed of nothing: format ``""``)."""
    rest = {name: value for name, value in query.items() if name != "feed"}
    if "feed" in query:
        value = query["feed"]
        value = value[-1] if isinstance(value, list) and value else value
        name = str(value or "").strip().lower() if isinstance(value, str | int) else ""
        if name in _COMMENT_FEEDS:
            return FeedAddress(_COMMENT_FEEDS[name], True, path, rest)
        found = _path_feed(path, rest)
        if found is not None:  # /comments/feed/?feed=atom
            return FeedAddress(FEED_TYPES.get(name, ""), found.comments, found.path, rest)
        return FeedAddress(FEED_TYPES.get(name, ""), False, path, rest)
    return _path_feed(path, rest)


def _path_feed(path: str, query: dict[str, Any]) -> FeedAddress | None:
    certain = True
    found = _LONG_FORM.fullmatch(path)
    if found is None:
        found, certain = _SHORT_FORM.fullmatch(path), False
        if found is None:
            return None
    kind = FEED_TYPES[found.group("type") or "feed"]
    base = found.group("base")
    if base == "/comments/":
        return FeedAddress(kind, True, "/", query, certain)
    return FeedAddress(kind, False, base, query, certain)


def per_feed(options: Mapping[str, Any]) -> int:
    """How many entries a feed holds (``posts_per_rss``)."""
    try:
        return max(1, min(int(options.get("posts_per_rss") or DEFAULT_PER_RSS), MAX_PER_RSS))
    except (TypeError, ValueError):
        return DEFAULT_PER_RSS


def uses_excerpt(options: Mapping[str, Any]) -> bool:
    """``rss_use_excerpt``: entries show their summary only, not their full text."""
    value = options.get("rss_use_excerpt")
    return str(value).strip().lower() not in ("", "0", "false", "none")


@dataclass
class Entries:
    """The items of a posts feed and what their entries show besides their rows."""

    items: list[Item]
    authors: dict[int, User] = field(default_factory=dict)
    terms: dict[int, list[str]] = field(default_factory=dict)  # item -> category and tag names


def latest_items(conn: sa.Connection, ctx: Context, *, taxonomy: str = "", term_id: int = 0, author: int = 0,
                 search: str = "", page: int = 1) -> Entries:
    """The newest posts (of a term, an author or a search), ``posts_per_rss`` of them (``page``:
    the older ones after, as the reference's ``/page/2/feed/``)."""
    filters: dict[str, Any] = {}
    if taxonomy and term_id:
        found = ctx.registry.taxonomies.get(taxonomy)
        filters["tax_filters"] = [TaxFilter(taxonomy, [term_id], include_children=bool(getattr(found, "hierarchical", False)))]
    if author:
        filters["authors"] = [author]
    if search:
        filters["search"] = search
        filters["types"] = ("post", "page")
    query = ItemQuery(type="post", statuses=listed_statuses(ctx), per_page=per_feed(ctx.options),
                      page=max(1, min(page, MAX_PAGE)), **filters)
    return entries_of(conn, ctx, query_items(conn, query).items)


def entries_of(conn: sa.Connection, ctx: Context, items: list[Item]) -> Entries:
    """Authors and the category and tag names of ``items`` (one statement each)."""
    found = Entries(items)
    found.authors = get_users(conn, sorted({item.author for item in items if item.author}))
    taxonomies = ("category", "post_tag")
    by_item = term_store.get_object_terms(conn, [item.id for item in items], taxonomies)
    for item in items:
        names: list[str] = []
        for taxonomy in taxonomies:
            names += [term.name for term in by_item.get(item.id, {}).get(taxonomy, [])]
        found.terms[item.id] = list(dict.fromkeys(names))
    return found


@dataclass
class CommentEntries:
    """The comments of a comments feed and the items they are on."""

    comments: list[comment_store.Comment]
    items: dict[int, Item]


def latest_comments(conn: sa.Connection, ctx: Context, *, item: Item | None = None) -> CommentEntries:
    """The newest approved comments, ``posts_per_rss`` of them: on ``item``, or on any published
    item without a password (the site's feed lists no comment of a protected or private item)."""
    query = comment_store.CommentQuery(statuses=["approved"], types=LISTED_COMMENT_TYPES, per_page=per_feed(ctx.options),
                                       orderby="date_gmt", order="desc")
    if item is not None:
        query.post_ids = [item.id]
    else:
        query.public_posts_only = True
    found, _ = comment_store.query_comments(conn, query)
    items = {item.id: item} if item is not None else get_items(conn, sorted({c.post_id for c in found}))
    return CommentEntries(found, items)


def term_of(conn: sa.Connection, taxonomy: str, term_id: int) -> Any:
    """The term a feed is about, or None."""
    term = term_store.get_term(conn, term_id)
    return term if term is not None and term.taxonomy == taxonomy else None
