"""Collections of items: the filters, order and page of a listing (``ItemQuery``, the reference's
WP_Query arguments) turned into one statement, with search terms, taxonomy conditions and stickies.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ...store import textsearch
from ...store.fast import Shapes, bind_list, in_binds, padded_size
from ...store.tables import posts, row_offset
from ...store.textsearch import escape_like
from ...store.totals import TotalsCache
from ..types import ContentType
from .record import FORMAT_KEY, Item


@dataclass
class TaxFilter:
    """One taxonomy condition of a listing: items with (``IN``), with all of (``AND``) or
    without (``NOT IN``) these terms; ``include_children`` extends the terms to their
    descendants."""

    taxonomy: str
    terms: list[int]
    include_children: bool = False
    operator: str = "IN"


@dataclass
class ItemQuery:
    """The filters, order and page of a collection (the reference's WP_Query arguments).

    Dates are the site's wall time; ``statuses`` must already be resolved (no ``any``);
    ``include`` of ``[0]`` matches nothing. ``offset`` replaces the page offset; ``per_page``
    -1 returns every match (no page, no offset). ``types``, when given, lists several types to
    match instead of ``type`` (searches across types).
    """

    type: str
    statuses: Sequence[str] = ("publish",)
    page: int = 1
    per_page: int = 10
    offset: int | None = None
    search: str = ""
    search_columns: Sequence[str] = ()
    exact_search: bool = False
    hide_protected: bool = False
    after: dt.datetime | None = None
    before: dt.datetime | None = None
    modified_after: dt.datetime | None = None
    modified_before: dt.datetime | None = None
    authors: Sequence[int] = ()
    authors_exclude: Sequence[int] = ()
    include: Sequence[int] = ()
    exclude: Sequence[int] = ()
    parents: Sequence[int] = ()
    parents_exclude: Sequence[int] = ()
    slugs: Sequence[str] = ()
    menu_order: int | None = None
    formats: Sequence[str] | None = None
    tax_filters: Sequence[TaxFilter] = ()
    tax_relation: str = "AND"
    order: str = "desc"
    orderby: str = "date"
    types: Sequence[str] = ()
    # Media listings: exact MIME types, and top-level types ("image" matches image/*).
    mime_types: Sequence[str] = ()
    mime_kinds: Sequence[str] = ()


@dataclass
class ItemPage:
    """One page of a collection and the number of items matching without paging."""

    items: list[Item]
    total: int


SEARCH_COLUMNS = {"post_title": posts.c.title, "post_excerpt": posts.c.excerpt, "post_content": posts.c.content}
# The reference's search stopwords (terms it ignores unless quoted).
_STOPWORDS = frozenset(
    "about an are as at be by com for from how in is it of on or that the this to was what when where who will with www".split()
)
_SEARCH_TERM = re.compile(r'".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+')


def search_terms(text: str) -> tuple[list[str], int]:
    """The terms a search string is split into (quoted phrases kept, one-letter words and
    stopwords dropped; 10 or more terms search the whole string) and the raw term count."""
    matches = [m.group(0) for m in _SEARCH_TERM.finditer(text)]
    if not matches:
        return [text], 0
    kept: list[str] = []
    for raw in matches:
        quoted = raw.startswith('"') and raw.endswith('"') and len(raw) > 1
        term = raw.strip('"').strip() if quoted else raw.strip('" \t\r\n')
        if not term or (len(term) == 1 and re.fullmatch(r"[a-z\-]", term, re.I)):
            continue
        if not quoted and term.lower() in _STOPWORDS:
            continue
        kept.append(term)
    if not kept or len(kept) > 9:
        kept = [text]
    return kept, len(matches)


def _search_condition(conn: sa.Connection, query: ItemQuery) -> tuple[Any, Any]:
    """The WHERE clause and the relevance ORDER BY expression of a search."""
    terms_, count = search_terms(query.search)
    columns = [SEARCH_COLUMNS[c] for c in query.search_columns if c in SEARCH_COLUMNS] or list(SEARCH_COLUMNS.values())
    whole = query.exact_search
    dialect = conn.dialect.name
    clauses: list[Any] = []
    title_matches: list[Any] = []
    for term in terms_:
        if term.startswith("-") and len(term) > 1:
            clauses.append(textsearch.lacks(conn, columns, term[1:], whole=whole))
            continue
        clauses.append(textsearch.contains(conn, columns, term, whole=whole))
        if not whole:
            title_matches.append(textsearch.like(dialect, posts.c.title, f"%{escape_like(term)}%"))
    condition = sa.and_(*clauses)
    # Relevance (the reference's parse_search_order): whole phrase in title, all words in title,
    # any word in title, phrase in excerpt, phrase in content, the rest.
    if count > 1:
        whens: list[tuple[Any, int]] = []
        phrase = None if re.search(r"(?:\s|^)-", query.search) else f"%{escape_like(query.search)}%"
        if phrase:
            whens.append((textsearch.like(dialect, posts.c.title, phrase), 1))
        if title_matches and len(title_matches) < 7:
            whens.append((sa.and_(*title_matches), 2))
            if len(title_matches) > 1:
                whens.append((sa.or_(*title_matches), 3))
        if phrase:
            whens.append((textsearch.like(dialect, posts.c.excerpt, phrase), 4))
            whens.append((textsearch.like(dialect, posts.c.content, phrase), 5))
        relevance = sa.case(*whens, else_=6).asc() if whens else None
    else:
        relevance = sa.case((title_matches[0], 1), else_=0).desc() if title_matches else None
    return condition, relevance


def _term_set(filter_: TaxFilter) -> Any:
    """A SELECT of the term ids a filter means: its terms of its taxonomy, with descendants when
    asked (a recursive query inside the listing statement: no extra round trip)."""
    from ...store.tables import terms as terms_table

    base = sa.select(terms_table.c.id).where(
        terms_table.c.id.in_([int(t) for t in filter_.terms]), terms_table.c.taxonomy == filter_.taxonomy
    )
    if not filter_.include_children:
        return base
    # One statement may hold several such trees: each needs a name of its own.
    tree = base.cte(f"term_tree_{id(filter_)}", recursive=True)
    child = terms_table.alias()
    tree = tree.union(
        sa.select(child.c.id).join(tree, child.c.parent == tree.c.id).where(child.c.taxonomy == filter_.taxonomy)
    )
    return sa.select(tree.c.id)


def _tax_condition(filter_: TaxFilter) -> Any:
    from ...store.tables import term_links

    wanted = _term_set(filter_)
    linked = sa.select(term_links.c.object_id).where(term_links.c.term_id.in_(wanted))
    if filter_.operator == "NOT IN":
        return posts.c.id.notin_(linked)
    if filter_.operator == "AND":
        # Every one of the (expanded) terms: as many links among them as there are terms.
        have = (
            sa.select(sa.func.count())
            .select_from(term_links)
            .where(term_links.c.object_id == posts.c.id, term_links.c.term_id.in_(wanted))
            .scalar_subquery()
        )
        need = sa.select(sa.func.count()).select_from(wanted.subquery()).scalar_subquery()
        return sa.and_(need > 0, have == need)
    return posts.c.id.in_(linked)


def _format_column() -> Any:
    return sa.func.coalesce(posts.c.meta[FORMAT_KEY].as_string(), "")


def used_formats(conn: sa.Connection) -> set[str]:
    """The post formats some post has (in any status), i.e. those the reference would have a
    ``post-format-*`` term for; it keeps formats as terms, created on first use."""
    column = _format_column()
    stmt = sa.select(column).where(posts.c.type == "post", column != "").distinct()
    return {str(value) for (value,) in conn.execute(stmt)}


def _conditions(conn: sa.Connection, query: ItemQuery) -> tuple[list[Any], Any]:
    types = list(dict.fromkeys(query.types))
    conditions: list[Any] = [posts.c.type.in_(types) if len(types) > 1 else posts.c.type == (types or [query.type])[0]]
    statuses = list(dict.fromkeys(query.statuses))
    conditions.append(posts.c.status == statuses[0] if len(statuses) == 1 else posts.c.status.in_(statuses))
    relevance = None
    if query.search:
        condition, relevance = _search_condition(conn, query)
        conditions.append(condition)
        if query.hide_protected:
            # The reference hides password-protected items from anonymous searches.
            conditions.append(posts.c.password == "")
    if query.after is not None:
        conditions.append(posts.c.date_local > query.after)
    if query.before is not None:
        conditions.append(posts.c.date_local < query.before)
    if query.modified_after is not None:
        conditions.append(posts.c.modified_local > query.modified_after)
    if query.modified_before is not None:
        conditions.append(posts.c.modified_local < query.modified_before)
    if query.authors:
        conditions.append(posts.c.author.in_([int(a) for a in query.authors]))
    if query.authors_exclude:
        excluded = [int(a) for a in query.authors_exclude]
        conditions.append(sa.or_(posts.c.author.is_(None), posts.c.author.notin_(excluded)))
    if query.include:
        conditions.append(posts.c.id.in_([int(i) for i in query.include]))
    if query.exclude:
        conditions.append(posts.c.id.notin_([int(i) for i in query.exclude]))
    if query.parents:
        conditions.append(posts.c.parent.in_([int(p) for p in query.parents]))
    if query.parents_exclude:
        conditions.append(posts.c.parent.notin_([int(p) for p in query.parents_exclude]))
    if query.slugs:
        conditions.append(posts.c.slug.in_(list(query.slugs)))
    if query.menu_order is not None:
        conditions.append(posts.c.menu_order == int(query.menu_order))
    if query.mime_types or query.mime_kinds:
        wanted_mime = [posts.c.mime_type.in_(list(query.mime_types))] if query.mime_types else []
        wanted_mime += [posts.c.mime_type.like(f"{kind}/%") for kind in query.mime_kinds]
        conditions.append(sa.or_(*wanted_mime))
    tax = [_tax_condition(f) for f in query.tax_filters if f.terms]
    if tax:
        conditions.append(sa.or_(*tax) if query.tax_relation == "OR" else sa.and_(*tax))
    if query.formats is not None:
        wanted = [f for f in query.formats if f != "standard"]
        options: list[Any] = []
        if "standard" in query.formats:
            options.append(_format_column() == "")
        if wanted:
            options.append(_format_column().in_(wanted))
        conditions.append(sa.or_(*options) if options else sa.false())
    return conditions, relevance


def _ordering(conn: sa.Connection, query: ItemQuery, relevance: Any) -> list[Any]:
    descending = query.order != "asc"

    def direct(column: Any) -> Any:
        return column.desc() if descending else column.asc()

    tie = direct(posts.c.id)
    orderby = query.orderby
    if orderby == "relevance" and relevance is not None:
        return [relevance, posts.c.date_local.desc(), posts.c.id.desc()]
    if orderby == "include" and query.include:
        key = sa.case({int(v): i for i, v in enumerate(query.include)}, value=posts.c.id, else_=len(query.include))
        return [key.asc()]
    if orderby == "include_slugs" and query.slugs:
        key = sa.case({v: i for i, v in enumerate(query.slugs)}, value=posts.c.slug, else_=len(query.slugs))
        return [key.asc(), tie]
    if orderby == "title":
        # The reference's MySQL collation compares titles without case.
        title = sa.func.lower(posts.c.title)
        return [direct(title.collate("C") if conn.dialect.name == "postgresql" else title), tie]
    columns = {
        "author": posts.c.author,
        "date": posts.c.date_local,
        "id": posts.c.id,
        "modified": posts.c.modified_local,
        "parent": posts.c.parent,
        "slug": posts.c.slug,
        "menu_order": posts.c.menu_order,
    }
    column = columns.get(orderby, posts.c.date_local)
    return [tie] if column is posts.c.id else [direct(column), tie]


def stickies_first(
    conn: sa.Connection, content_type: ContentType, rows: list[Item], sticky_ids: list[int], exclude: Sequence[int]
) -> list[Item]:
    """A first page with the sticky items first, those not on the page fetched and put in front
    (the reference's home-page behaviour, ``ignore_sticky=false``)."""
    on_page = [item for item in rows if item.id in sticky_ids]
    rest = [item for item in rows if item.id not in sticky_ids]
    missing = [i for i in sticky_ids if i not in {item.id for item in on_page} and i not in exclude]
    extra: list[Item] = []
    if missing:
        extra = query_items(
            conn, ItemQuery(type=content_type.name, statuses=["publish"], include=missing, per_page=len(missing))
        ).items
    return [*on_page, *extra, *rest]


# The shape of the listings most asked for (a type, its statuses, date bounds, a plain column
# order, paged): their statements are compiled once per shape and run with bound values
# (store/fast.Shapes). Anything else (a search, ids, terms, slugs...) is built each time.
_DATE_BOUNDS = (("after", "date_local", ">"), ("before", "date_local", "<"),
                ("modified_after", "modified_local", ">"), ("modified_before", "modified_local", "<"))
_PLAIN_ORDER = {"author": "author", "date": "date_local", "id": "id", "modified": "modified_local",
                "parent": "parent", "slug": "slug", "menu_order": "menu_order"}
# What a compiled listing reads (the rest only matters with a search or term filters, which it
# never has); every other field of ItemQuery must be at its default.
_SHAPED = {"type", "statuses", "page", "per_page", "offset", "order", "orderby", *(name for name, _, _ in _DATE_BOUNDS),
           "search_columns", "exact_search", "hide_protected", "tax_relation"}
_UNSHAPED = tuple((f.name, f.default) for f in dataclasses.fields(ItemQuery) if f.name not in _SHAPED)


def _plain_shape(query: ItemQuery) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """(shape, bound values) of a query of the compiled kind, else None."""
    for name, default in _UNSHAPED:  # a filter is set when not None (None defaults) or not empty
        value = getattr(query, name)
        if (value is not None) if default is None else bool(value):
            return None
    if query.orderby not in _PLAIN_ORDER or query.per_page < 0 or not query.statuses:
        return None
    statuses = list(dict.fromkeys(query.statuses))
    params: dict[str, Any] = {"type": query.type, **bind_list("status", statuses)}
    bounds = []
    for name, _, _ in _DATE_BOUNDS:
        value = getattr(query, name)
        if value is not None:
            bounds.append(name)
            params[name] = value
    offset = query.offset if query.offset is not None else (max(query.page, 1) - 1) * query.per_page
    params["limit"], params["offset"] = query.per_page, row_offset(offset)
    shape = (padded_size(len(statuses)), tuple(bounds), query.orderby, query.order != "asc")
    return shape, params


def _plain_conditions(statuses: int, bounds: tuple[str, ...]) -> list[Any]:
    conditions = [posts.c.type == sa.bindparam("type", type_=posts.c.type.type), in_binds(posts.c.status, "status", statuses)]
    for name, column, comparison in _DATE_BOUNDS:
        if name in bounds:
            conditions.append(posts.c[column].op(comparison)(sa.bindparam(name, type_=posts.c[column].type)))
    return conditions


def _plain_page(statuses: int, bounds: tuple[str, ...], orderby: str, descending: bool) -> sa.Select:
    """A page in order, nothing counted: by date, the index on ``(type, date_local, id)`` gives
    the rows in order and the statement stops at the page's end (migration 0008)."""
    tie = posts.c.id.desc() if descending else posts.c.id.asc()
    column = posts.c[_PLAIN_ORDER[orderby]]
    ordering = [tie] if column is posts.c.id else [column.desc() if descending else column.asc(), tie]
    return (
        sa.select(posts).where(*_plain_conditions(statuses, bounds)).order_by(*ordering)
        .limit(sa.bindparam("limit", type_=sa.BigInteger())).offset(sa.bindparam("offset", type_=sa.BigInteger()))
    )


_PLAIN_PAGES = Shapes(_plain_page)
# Where an item's id sits in a row of the posts table (the rows of _PLAIN_PAGES).
_ID_AT = list(posts.c.keys()).index("id")
# Memo key of an item as read from its row (store/memo.py): kept until a write changes the item.
ROW_KEY = "cms.row"
_PLAIN_COUNTS = Shapes(lambda statuses, bounds: sa.select(sa.func.count().label("total")).select_from(posts).where(
    *_plain_conditions(statuses, bounds)))
_plain_totals = TotalsCache()


def _totals_key(shape: tuple[Any, ...], params: dict[str, Any]) -> tuple[Any, ...]:
    return ("items", shape[0], shape[1], *sorted((name, value) for name, value in params.items() if name not in ("limit", "offset")))


def _plain_total(conn: sa.Connection, shape: tuple[Any, ...], params: dict[str, Any], generation: int | None) -> int:
    """The number of items the compiled query matches, counted once per query while the content
    counter is unchanged (store/totals.py). ``generation`` is the counter when the caller has
    read it already."""
    return _plain_totals.total(conn, _totals_key(shape, params), generation,
                               lambda: _PLAIN_COUNTS(shape[0], shape[1]).rows(conn, params)[0][0])


def query_items_known(site: Any, query: ItemQuery, generation: int | None) -> ItemPage | None:
    """The page of a plain listing whose total this process keeps at ``generation``, read in one
    statement on the thread's own connection (``Site.query``), without opening a pooled
    connection and a transaction; None when the listing is not plain or its total is not kept."""
    if generation is None:
        return None
    plain = _plain_shape(query)
    if plain is None:
        return None
    shape, params = plain
    total = _plain_totals.known(site.engine, _totals_key(shape, params), generation)
    if total is None:
        return None
    page = _PLAIN_PAGES(*shape)
    return ItemPage(_items_of_rows(site, page, site.query(page, params, raw=True), generation), total)


def _items_of_rows(site: Any, page: Any, rows: list[Any], generation: int) -> list[Item]:
    """The items of a page's unconverted rows: those the site's memo holds as they are, the
    others converted and kept there until a write changes them. Converting rows (dates, meta)
    into items cost more than reading them; kept items are shared by the requests that list
    them, which only ever read them."""
    memo = site.memo
    dialect = site.engine.dialect
    items = []
    for raw in rows:
        key = (ROW_KEY, raw[_ID_AT])
        item = memo.get(key, generation)
        if item is None:
            item = Item.from_row(page.convert(dialect, raw))
            memo.put(key, generation, item, (("item", item.id),))
        items.append(item)
    return items


def query_items(conn: sa.Connection, query: ItemQuery, *, count_only: bool = False, generation: int | None = None) -> ItemPage:
    """One page of items and the total matching. ``count_only`` (HEAD requests) reads the total
    alone. ``generation``: the content counter, when the caller has read it.

    A listing of the compiled kind (no search, no term or id filters) reads its page in order
    and stops at the page's end; the total is counted by a second statement, unless the first
    page holds every match, and remembered per query while the counter is unchanged.

    Any other statement pages the ids first (a window count over the filtered ids, sorted, limited)
    and joins the whole rows of that page alone: sorting 100,000 matches of a search then moves
    ids and sort keys, not every row's content and meta."""
    plain = _plain_shape(query)
    if plain is not None:
        shape, params = plain
        if count_only:
            return ItemPage([], _plain_total(conn, shape, params, generation))
        rows = _PLAIN_PAGES(*shape).rows(conn, params)
        if params["offset"] == 0 and len(rows) < params["limit"]:
            total = len(rows)  # the first page holds every match: nothing to count
            if generation is not None:
                _plain_totals.remember(conn, _totals_key(shape, params), generation, total)
        else:
            total = _plain_total(conn, shape, params, generation)
        return ItemPage([Item.from_row(row) for row in rows], total)
    conditions, relevance = _conditions(conn, query)
    count_stmt = sa.select(sa.func.count()).select_from(posts).where(*conditions)
    if count_only:
        return ItemPage([], conn.execute(count_stmt).scalar_one())
    ordering = _ordering(conn, query, relevance)
    page = sa.select(posts.c.id.label("page_id"), sa.func.count().over().label("_total")).where(*conditions).order_by(*ordering)
    offset = 0
    if query.per_page >= 0:  # -1: every match, unpaged (the reference's posts_per_page -1)
        offset = query.offset if query.offset is not None else (max(query.page, 1) - 1) * query.per_page
        page = page.limit(query.per_page).offset(row_offset(offset))
    paged = page.subquery("page")
    stmt = sa.select(posts, paged.c._total).join(paged, posts.c.id == paged.c.page_id).order_by(*ordering)
    rows = conn.execute(stmt).all()
    if rows:
        return ItemPage([Item.from_row(row) for row in rows], rows[0]._total)
    total = conn.execute(count_stmt).scalar_one() if offset > 0 else 0
    return ItemPage([], total)


def status_counts(conn: sa.Connection, content_type: str, *, author: int | None = None) -> dict[str, int]:
    """Items of ``content_type`` per status (``author``: only theirs), as the reference's
    wp_count_posts gives the workspace's status links; auto-drafts are nobody's to list."""
    statement = (sa.select(posts.c.status, sa.func.count()).where(posts.c.type == content_type, posts.c.status != "auto-draft")
                 .group_by(posts.c.status))
    if author is not None:
        statement = statement.where(posts.c.author == author)
    return {status: int(count) for status, count in conn.execute(statement)}


def months(conn: sa.Connection, content_type: str, *, statuses: Sequence[str] | None = None) -> list[tuple[int, int]]:
    """The (year, month) pairs of the items of ``content_type`` (in ``statuses``, default every
    one but auto-drafts), newest first: the workspace's month filter, as the reference's
    months_dropdown reads them."""
    year, month = sa.extract("year", posts.c.date_local), sa.extract("month", posts.c.date_local)
    statement = sa.select(year, month).where(posts.c.type == content_type).group_by(year, month).order_by(year.desc(), month.desc())
    statement = statement.where(posts.c.status.in_(list(statuses))) if statuses else statement.where(posts.c.status != "auto-draft")
    return [(int(y), int(m)) for y, m in conn.execute(statement)]


def author_counts(conn: sa.Connection, content_types: Sequence[str], authors: Sequence[int],
                  statuses: Sequence[str] = ("publish", "private")) -> dict[tuple[int, str], int]:
    """Items per (author, type) in ``statuses``, in one statement: the users list's post counts,
    as the reference's count_many_users_posts."""
    if not authors or not content_types:
        return {}
    statement = (sa.select(posts.c.author, posts.c.type, sa.func.count())
                 .where(posts.c.author.in_(list(authors)), posts.c.type.in_(list(content_types)), posts.c.status.in_(list(statuses)))
                 .group_by(posts.c.author, posts.c.type))
    return {(int(author), str(kind)): int(count) for author, kind, count in conn.execute(statement)}
