"""The calendar's listings: events (``GET /events``, and whatever else lists them: the HTML views,
the .ics feed); venues and organizers are :mod:`.linked_listing`'s, on the rules shared here.

Two steps, each callable alone. Loose filters (a mapping as REST arguments arrive: strings, CSV
strings, lists, PHP-style keyed arrays) and the service context give a typed query, with every rule
of calendar-api.md 3.1 and 3.2 applied: the default window (yesterday 00:00 to two years ahead,
23:59:59), day rounding unless ``strict_dates``, the default statuses (every status but trash and
auto-draft for users who may edit the type, ``publish`` for the others), terms found by slug or
id, the page size and its cap. The query also carries the filters as applied, by their public
names in the reference's order (``applied``: what ``rest_url`` echoes), so callers that link back
to a listing need not know its rules. Then one call runs the query and loads the page: events
with their event rows, links, linked venues and organizers, terms and images, in a fixed number
of statements whatever the page size (the page, the links joined to the linked items, the terms,
the images; the total is cached per query and keyed by the content counter that every write bumps,
:func:`calpress.store.changes.record`).

The filters are assumed checked (the REST layer validates them first: ``status_allowed`` and
``terms_exist`` are its rules); a value this module cannot read raises ValueError.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import sqlalchemy as sa

from ..content import items as item_service
from ..content import permissions
from ..content import terms as term_store
from ..content.items import Context, Item
from ..store import textsearch
from ..store.changes import read_generation
from ..store.fast import Shapes, bind_list, in_binds, padded_size
from ..store.tables import event_links, events, posts, row_offset, term_links
from ..store.totals import TotalsCache
from .definitions import CATEGORY_TAXONOMY, EVENT_TYPE
from .events import EVENT_COLUMNS, EventRow, Loaded, db_datetime, event_row, load_items, parse_moment, site_timezone
from .values import as_list, truthy

# The statuses an editor's "any" covers: every registered status but trash and auto-draft.
ANY_EXCLUDED = ("trash", "auto-draft")
DEFAULT_PER_PAGE = 10  # without a posts_per_page option
MAX_PER_PAGE = 50  # without an events_max_per_page option
# The reference's rest_url echo order of the event filters given as they were (after the window).
_RANGED = ("starts_before", "starts_after", "ends_before", "ends_after")
_TERM_FILTERS = (("categories", CATEGORY_TAXONOMY), ("tags", "post_tag"))
_LINK_FILTERS = (("venue", "venues"), ("organizer", "organizers"))
Applied = tuple[tuple[str, str], ...]


# -- typed queries --------------------------------------------------------------------------------


def total_key(query: Any) -> tuple[Any, ...]:
    """A query's fields but its page, page size and echo, hashable: what its total depends on."""
    return tuple(
        tuple(v) if isinstance(v, list) else v
        for k, v in query.__dict__.items()
        if k not in ("page", "per_page", "applied")
    )


@dataclass
class EventQuery:
    """What an event listing asks for, after defaults (all wall times in the site's zone)."""

    statuses: list[str] | None  # None: "any" (every status but trash and auto-draft)
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE
    start: dt.datetime | None = None  # event start >= start
    end: dt.datetime | None = None  # event end <= end
    starts_before: dt.datetime | None = None
    starts_after: dt.datetime | None = None
    ends_before: dt.datetime | None = None
    ends_after: dt.datetime | None = None
    search: str | None = None
    categories: list[int] | None = None
    tags: list[int] | None = None
    venues: list[int] | None = None
    organizers: list[int] | None = None
    featured: bool | None = None
    include: list[int] | None = None
    parent: int | None = None
    # The calendar views: leave out events hidden from listings; newest first (the past list).
    listed_only: bool = False
    descending: bool = False
    # The filters as applied, by public name, in the reference's order (calendar-api.md 3.1 rest_url).
    applied: Applied = field(default=(), compare=False)

    def key(self) -> tuple[Any, ...]:
        """What the total depends on (not the page, nor the echo)."""
        return total_key(self)


@dataclass
class EventPage:
    """A page of events: the ids of its events in order, what was loaded of them (``loaded``:
    event rows, links, linked items, terms and images of ``loaded.items``; none when the caller
    represents every event already), and the total of the query."""

    query: EventQuery
    loaded: Loaded
    total: int
    ids: list[int]

    @property
    def items(self) -> list[Item]:
        return self.loaded.items


# -- the rules ------------------------------------------------------------------------------------


def page_size(ctx: Context, wanted: Any = None) -> int:
    """The page size: as asked, else the ``posts_per_page`` option; at most the
    ``events_max_per_page`` option (50)."""
    size = int(wanted) if wanted is not None else int(ctx.options.get("posts_per_page") or DEFAULT_PER_PAGE)
    cap = int(ctx.options.get("events_max_per_page") or MAX_PER_PAGE)
    return max(1, min(size, cap))


def lists_any_status(ctx: Context, content_type: str) -> bool:
    """Whether the acting user sees every status but trash and auto-draft in listings of the
    type (``edit_posts`` on it), rather than ``publish`` only."""
    return permissions.can_edit_type(ctx, ctx.registry.types[content_type])


def status_allowed(ctx: Context, content_type: str, value: Any) -> bool:
    """Whether a ``status`` filter may be asked: users who may edit the type any registered
    status (and ``any``), the others exactly ``publish``."""
    entries = [str(e) for e in as_list(value)]
    if not entries:
        return False
    if not lists_any_status(ctx, content_type):
        return entries == ["publish"]
    return all(entry in ctx.registry.statuses or entry == "any" for entry in entries)


def statuses_of(ctx: Context, content_type: str, given: Any) -> tuple[list[str] | None, str]:
    """The status filter (None: "any") and its echo: as given, else ``any`` for users who may
    edit the type and ``publish`` for the others."""
    if given is not None:
        entries = [str(e) for e in as_list(given)]
        return (None if "any" in entries else entries), ",".join(entries)
    if lists_any_status(ctx, content_type):
        return None, "any"
    return ["publish"], "publish"


# Which term each entry of a ``categories``/``tags`` filter names (its id, 0 for none), per
# database, kept while the content counter is unchanged (every term write moves it). A listing
# filtered by a category looked its term up twice, to check the argument and to build the query,
# each time by slug and then by id: four statements per request before its page.
_term_ids = TotalsCache(limit=4096)
_UNSEEN = object()


class _NotKept(LookupError):
    """A term filter's entry that :func:`term_id` would have to look up, given no connection."""


def known_term_id(engine: sa.Engine | None, taxonomy: str, entry: Any, generation: int | None) -> Any:
    """The id of the term ``entry`` names, kept for ``engine``'s database at ``generation``
    (None: it names none), else _UNSEEN."""
    if generation is None or engine is None:
        return _UNSEEN
    found = _term_ids.known(engine, ("term", taxonomy, str(entry)), generation)
    return _UNSEEN if found is None else (found or None)


def term_id(
    conn: sa.Connection | None, taxonomy: str, entry: Any, generation: int | None = None, engine: sa.Engine | None = None
) -> int | None:
    """The id of the term of ``taxonomy`` that ``entry`` names (by slug, id or name), or None;
    ``generation``: the content counter the request read, under which the answer is kept
    (``engine``: the database's, when there is no ``conn``)."""
    found = known_term_id(engine if conn is None else conn.engine, taxonomy, entry, generation)
    if found is _UNSEEN:
        if conn is None:
            raise _NotKept(entry)
        term = term_store.find_term(conn, taxonomy, entry)
        found = term.id if term is not None else None
        if generation is not None:
            _term_ids.remember(conn, ("term", taxonomy, str(entry)), generation, found or 0)
    return found


def known_terms_exist(engine: sa.Engine, taxonomy: str, value: Any, generation: int | None) -> bool | None:
    """:func:`terms_exist` from what is kept alone: None when an entry was not looked up yet."""
    entries = as_list(value)
    found = [known_term_id(engine, taxonomy, entry, generation) for entry in entries]
    if any(term is _UNSEEN for term in found):
        return None
    return bool(entries) and all(term is not None for term in found)


def terms_exist(conn: sa.Connection, taxonomy: str, value: Any, generation: int | None = None) -> bool:
    """Whether every entry of a ``categories``/``tags`` filter names a term (by slug, id or name)."""
    entries = as_list(value)
    return bool(entries) and all(term_id(conn, taxonomy, entry, generation) is not None for entry in entries)


def local_now(ctx: Context) -> dt.datetime:
    """The site's wall time now, to the second."""
    zone, _ = site_timezone(ctx.options)
    return dt.datetime.now(zone).replace(tzinfo=None, microsecond=0)


def default_window(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """calendar-api.md 3.1: from yesterday 00:00:00 to two years from now, 23:59:59."""
    start = (now - dt.timedelta(days=1)).replace(hour=0, minute=0, second=0)
    two_years = now.replace(year=now.year + 2) if not (now.month == 2 and now.day == 29) else now + dt.timedelta(days=730)
    return start, two_years.replace(hour=23, minute=59, second=59)


def day_bound(ctx: Context, value: Any, *, end: bool, strict: bool) -> dt.datetime:
    """A date filter as a site wall time: the moment itself with ``strict``, else the start
    (00:00:00) or the end (23:59:59) of its day."""
    zone, _ = site_timezone(ctx.options)
    moment = parse_moment(value, zone)
    if moment is None:
        raise ValueError(f"unreadable date {value!r}")
    wall = moment.replace(tzinfo=None, microsecond=0)
    if strict:
        return wall
    if end:
        return wall.replace(hour=23, minute=59, second=59)
    return wall.replace(hour=0, minute=0, second=0)


def event_query(
    conn: sa.Connection, ctx: Context, filters: Mapping[str, Any], *, now: dt.datetime | None = None,
    generation: int | None = None, engine: sa.Engine | None = None,
) -> EventQuery:
    """The typed query of an event listing's loose filters (None values are absent ones), with
    calendar-api.md 3.1's defaults; ``now`` is the site's wall time (default: now);
    ``generation``: the content counter the request read (term filters' ids are kept under it;
    ``engine``: the database's, when ``conn`` is None and every term filter is kept)."""

    def given(name: str) -> Any:
        return filters.get(name)

    page = int(given("page") or 1)
    size = page_size(ctx, given("per_page"))
    strict = truthy(given("strict_dates") or "false")
    statuses, status_echo = statuses_of(ctx, EVENT_TYPE, given("status"))
    query = EventQuery(statuses=statuses, page=page, per_page=size)
    applied: list[tuple[str, str]] = [("page", str(page)), ("per_page", str(size))]
    include = given("include")
    if include is None:  # include drops every date filter
        start_raw, end_raw = given("start_date"), given("end_date")
        defaults = not any(given(name) is not None for name in _RANGED)
        default_start, default_end = default_window(now or local_now(ctx))
        if start_raw is not None:
            query.start = day_bound(ctx, start_raw, end=False, strict=strict)
        elif defaults:
            query.start = default_start
        if end_raw is not None:
            query.end = day_bound(ctx, end_raw, end=True, strict=strict)
        elif defaults:
            query.end = default_end
        if query.start is not None:
            applied.append(("start_date", db_datetime(query.start)))
        if query.end is not None:
            applied.append(("end_date", db_datetime(query.end)))
    applied.append(("status", status_echo))
    search = given("search")
    if search:
        query.search = str(search)
        applied.append(("search", str(search)))
    for name, taxonomy in _TERM_FILTERS:
        entries = given(name)
        if entries is not None:
            found = [term_id(conn, taxonomy, entry, generation, engine) for entry in as_list(entries)]
            setattr(query, name, [ident for ident in found if ident is not None])
            applied.append((name, ",".join(str(e) for e in as_list(entries))))
    if include is not None:
        query.include = [int(i) for i in as_list(include)]
        applied.append(("include", ",".join(str(i) for i in query.include)))
    parent = given("post_parent")
    if parent is not None:
        query.parent = int(parent)
        applied.append(("post_parent", str(parent)))
    if include is None:
        for name in _RANGED:
            value = given(name)
            if value is not None:
                setattr(query, name, day_bound(ctx, value, end=True, strict=strict))
                applied.append((name, db_datetime(getattr(query, name))))
    for name, attribute in _LINK_FILTERS:
        ids = given(name)
        if ids is not None:
            setattr(query, attribute, [int(i) for i in as_list(ids)])
            applied.append((name, ",".join(str(i) for i in getattr(query, attribute))))
    featured = given("featured")
    if featured is not None:
        query.featured = truthy(featured)
        applied.append(("featured", "1" if query.featured else "0"))
    query.applied = tuple(applied)
    return query


# -- pages ----------------------------------------------------------------------------------------


def event_page(
    conn: sa.Connection, ctx: Context, query: EventQuery, generation: int | None = None,
    represented: Representations | None = None,
    prefetched: tuple[list[Item], dict[int, EventRow], int] | None = None,
) -> EventPage:
    """Run an event query and load its page (see the module docstring for the statements).
    ``generation`` is the content counter when the caller has read it already. What the events
    embed is loaded only for those the caller has no representation of yet (``represented``;
    ``loaded.items`` is the whole page all the same). ``prefetched``: the page and total, read
    already (:func:`list_events`)."""
    found, rows, total = prefetched if prefetched is not None else query_events(conn, query, generation)
    wanted = found if represented is None else [item for item in found if not represented.has(item.id)]
    loaded = load_items(conn, ctx, wanted, event_rows={item.id: rows[item.id] for item in wanted if item.id in rows})
    loaded.items = list(found)
    return EventPage(query, loaded, total, [item.id for item in found])


class Representations(Protocol):
    """What a caller of :func:`list_events` keeps of the events it showed (the REST listing's
    ``RememberedEvents``): whether it has an event's representation, by id, and which pages it
    found whole before (a hint, kept with the representations: wrong, it costs one statement)."""

    def has(self, item_id: int) -> bool: ...

    def page_whole(self, key: tuple[Any, ...]) -> bool: ...

    def mark_page(self, key: tuple[Any, ...], whole: bool) -> None: ...


def list_events(
    site: Any, ctx: Context, filters: Mapping[str, Any], *, generation: int | None = None,
    represented: Representations | None = None,
) -> EventPage:
    """An event listing in one call: scheduled events whose time has come are published first,
    then the filters are read and the page loaded in one read connection. What the events the
    caller ``represented`` already embed is not loaded; when the caller had every event of the
    page the last time (:meth:`Representations.page_whole`), the page's ids are read first, and
    when it still has them all, they are the only thing read (:func:`_kept_query`)."""
    item_service.publish_due_items(site)
    early = _kept_query(site, ctx, filters, generation) if represented is not None else None
    if early is None:
        with site.read() as conn:
            return event_page(conn, ctx, event_query(conn, ctx, filters, generation=generation), generation, represented)
    query, total = early
    if not total:
        return EventPage(query, Loaded(items=[]), 0, [])
    assert represented is not None
    page_key = ("events", *query.key(), query.page, query.per_page)
    dialect, limit, offset = site.engine.dialect.name, query.per_page, (query.page - 1) * query.per_page
    if represented.page_whole(page_key):
        ids = [row[0] for row in site.query(*_plain_page(dialect, query, limit=limit, offset=offset, ids_only=True))]
        if all(represented.has(item_id) for item_id in ids):
            return EventPage(query, Loaded(items=[]), total, ids)
        represented.mark_page(page_key, False)
        with site.read() as conn:  # the page read again, whole and in one snapshot with what it embeds
            return event_page(conn, ctx, query, generation, represented)
    found, rows = _items_and_rows(site.query(*_plain_page(dialect, query, limit=limit, offset=offset)))
    ids = [item.id for item in found]
    if all(represented.has(item_id) for item_id in ids):
        represented.mark_page(page_key, True)
        return EventPage(query, Loaded(items=found), total, ids)
    with site.read() as conn:
        return event_page(conn, ctx, query, generation, represented, prefetched=(found, rows, total))


def _kept_query(site: Any, ctx: Context, filters: Mapping[str, Any], generation: int | None) -> tuple[EventQuery, int] | None:
    """The query and total of a listing whose total this process keeps at ``generation`` (no
    search; term filters only when their terms were looked up at that counter), made without a
    pooled connection: its page is then read in one statement on the thread's own connection
    (``Site.query``), without a transaction, and when the caller represents every event
    already, that statement is the listing's only one. None when the listing does not qualify."""
    if generation is None or filters.get("search"):
        return None
    try:  # the connection is for term filters not looked up at this counter yet
        query = event_query(None, ctx, filters, generation=generation, engine=site.engine)  # type: ignore[arg-type]
    except _NotKept:
        return None
    total = _totals.known(site.engine, ("events", *query.key()), generation)
    return None if total is None else (query, total)


# -- SQL ------------------------------------------------------------------------------------------


def _status_condition(column: Any, statuses: list[str] | None) -> Any:
    if statuses is None:
        return column.notin_(ANY_EXCLUDED)
    return column.in_(statuses) if len(statuses) != 1 else column == statuses[0]


# An event query's conditions have a *shape* (which filters it has, how many ids each list binds)
# and bound values. Statements are built and compiled once per shape (store/fast.Shapes) and run
# with the values; only a search, whose conditions depend on its words, is built each time.
# The date filters: (query field, events column, comparison).
_DATE_FILTERS = (
    ("start", "start_local", ">="), ("end", "end_local", "<="),
    ("starts_before", "start_local", "<="), ("starts_after", "start_local", ">="),
    ("ends_before", "end_local", "<="), ("ends_after", "end_local", ">="),
)
_ID_FILTERS = ("include", "venues", "organizers", "categories", "tags")
Shape = tuple[tuple[Any, ...], ...]


def event_shape(query: EventQuery) -> tuple[Shape, dict[str, Any]]:
    """The shape of ``query``'s conditions (its search left out) and the values they bind."""
    shape: list[tuple[Any, ...]] = []
    params: dict[str, Any] = {}
    if query.statuses is None:
        shape.append(("any",))
    else:
        shape.append(("statuses", padded_size(len(query.statuses)) if query.statuses else 0))
        if query.statuses:
            params.update(bind_list("status", query.statuses))
    for name, _, _ in _DATE_FILTERS:
        value = getattr(query, name)
        if value is not None:
            shape.append((name,))
            params[name] = value
    if query.featured is not None:
        shape.append(("featured", query.featured))
    if query.listed_only:
        shape.append(("listed",))
    if query.parent is not None:
        shape.append(("parent",))
        params["parent"] = query.parent
    for name in _ID_FILTERS:
        ids = getattr(query, name)
        if name in ("categories", "tags"):
            ids = None if ids is None else (ids or [0])  # an empty term list matches nothing
        if ids:
            shape.append((name, padded_size(len(ids))))
            params.update(bind_list(name, ids))
    return tuple(shape), params


def _shape_conditions(dialect: str, shape: Shape, *, paging: bool = False) -> list[Any]:
    """The conditions of an event query of this shape, its values as bind parameters."""
    parts = {part[0]: part[1:] for part in shape}
    type_column, status_column = posts.c.type, posts.c.status
    if paging and dialect == "sqlite" and "include" not in parts:
        # SQLite's planner would start from the posts (type, status) index and sort the whole
        # window; a unary plus hides that index, so the scan runs along events.start_local in
        # the listing's order and stops at the page: constant cost whatever the table's size.
        type_column, status_column = sa.literal_column("+posts.type"), sa.literal_column("+posts.status")
    where: list[Any] = [type_column == EVENT_TYPE]
    if "any" in parts:
        where.append(status_column.notin_([sa.bindparam(f"excluded_{n}", value) for n, value in enumerate(ANY_EXCLUDED)]))
    else:
        (size,) = parts["statuses"]
        if not size:
            where.append(sa.false())
        else:
            binds = [sa.bindparam(f"status_{n}", type_=posts.c.status.type) for n in range(size)]
            where.append(status_column == binds[0] if size == 1 else status_column.in_(binds))
    for name, column, comparison in _DATE_FILTERS:
        if name in parts:
            where.append(events.c[column].op(comparison)(sa.bindparam(name, type_=events.c[column].type)))
    if "featured" in parts:
        where.append(events.c.featured.is_(parts["featured"][0]))
    if "listed" in parts:
        where.append(events.c.hidden.is_(False))
    if "include" in parts:
        where.append(in_binds(posts.c.id, "include", parts["include"][0]))
    if "parent" in parts:
        where.append(posts.c.parent == sa.bindparam("parent", type_=posts.c.parent.type))
    for name, kind in (("venues", "venue"), ("organizers", "organizer")):
        if name in parts:
            where.append(sa.exists(sa.select(event_links.c.event_id).where(
                event_links.c.event_id == events.c.post_id, event_links.c.kind == kind,
                in_binds(event_links.c.linked_id, name, parts[name][0]),
            )))
    for name in ("categories", "tags"):
        if name in parts:
            where.append(sa.exists(sa.select(term_links.c.object_id).where(
                term_links.c.object_id == posts.c.id, in_binds(term_links.c.term_id, name, parts[name][0]),
            )))
    return where


def _event_conditions(conn: sa.Connection, query: EventQuery, *, paging: bool = False) -> tuple[list[Any], dict[str, Any]]:
    """The conditions of ``query`` with its search, and their bound values (the slow path)."""
    shape, params = event_shape(query)
    where = _shape_conditions(conn.dialect.name, shape, paging=paging)
    if query.search:
        where.append(_search_condition(conn, query.search, (posts.c.title, posts.c.content, posts.c.excerpt)))
    return where, params


_EVENTS_JOIN = events.join(posts, posts.c.id == events.c.post_id)


def _order(include: bool, descending: bool) -> list[Any]:
    """Listings go by start, then publication date, then id; with ``include``, by publication
    date then id."""
    order = [posts.c.date_local, posts.c.id] if include else [events.c.start_local, posts.c.date_local, posts.c.id]
    return [column.desc() for column in order] if descending else order


def _count_statement(where: list[Any]) -> sa.Select:
    return sa.select(sa.func.count().label("total")).select_from(_EVENTS_JOIN).where(*where)


def _page_statement(page_where: list[Any], order: list[Any], dialect: str = "") -> sa.Select:
    """The rows (post and event columns) of a page: its ids first, then their whole rows, so that
    a deep page or a search matching most events sorts ids and dates, not every row's content.

    On PostgreSQL the ids are an array both tables are looked up by (``= ANY(ARRAY(...))``), so
    that every plan, a generic one included (``Site.query``), reads the page's rows by their
    keys: joined to the page as a subquery, the events table was read whole and hashed, which
    its statistics call cheap at a thousand rows and are blind to at a hundred thousand."""
    ids = _ids_statement(page_where, order)
    if dialect == "postgresql":
        page_ids = sa.any_(sa.func.array(ids.scalar_subquery()))
        return (
            sa.select(posts, *EVENT_COLUMNS).select_from(_EVENTS_JOIN)
            .where(posts.c.id == page_ids, events.c.post_id == page_ids)
            .order_by(*order)
        )
    page = ids.subquery("page")
    return (
        sa.select(posts, *EVENT_COLUMNS)
        .select_from(_EVENTS_JOIN.join(page, page.c.page_id == posts.c.id))
        .order_by(*order)
    )


def _ids_statement(page_where: list[Any], order: list[Any]) -> sa.Select:
    """The ids of a page, in order."""
    return (
        sa.select(posts.c.id.label("page_id")).select_from(_EVENTS_JOIN).where(*page_where).order_by(*order)
        .limit(sa.bindparam("limit", type_=sa.BigInteger())).offset(sa.bindparam("offset", type_=sa.BigInteger()))
    )


def _any_statement(where: list[Any]) -> sa.Select:
    return sa.select(events.c.post_id).select_from(_EVENTS_JOIN).where(*where).limit(1)


_COUNTS = Shapes(lambda dialect, *shape: _count_statement(_shape_conditions(dialect, shape)))
def _plan_holds(dialect: str, include: bool, descending: bool, *shape: Any) -> bool:
    """Whether a page's plan holds for any values: not with a term filter, which may match a
    handful of events or most of them (planned for its values)."""
    return not any(part[0] in ("categories", "tags") for part in shape)


_PAGES = Shapes(
    lambda dialect, include, descending, *shape: _page_statement(
        _shape_conditions(dialect, shape, paging=True), _order(include, descending), dialect),
    generic_plan=_plan_holds,
)
_PAGE_IDS = Shapes(
    lambda dialect, include, descending, *shape: _ids_statement(
        _shape_conditions(dialect, shape, paging=True), _order(include, descending)),
    generic_plan=_plan_holds,
)
_ANY = Shapes(lambda dialect, *shape: _any_statement(_shape_conditions(dialect, shape)))


def search_words(text: str) -> list[str]:
    """The CMS search's words: quoted phrases kept whole, the rest split on spaces and commas."""
    words, _ = item_service.search_terms(text)
    return words


def _search_condition(conn: sa.Connection, text: str, columns: Sequence[Any]) -> Any:
    """Every word in at least one of ``columns`` (case-insensitive substring), as the CMS search."""
    words = search_words(text) or [text.strip()]
    return sa.and_(*(textsearch.contains(conn, columns, word) for word in words))


_totals = TotalsCache()


def query_events(
    conn: sa.Connection, query: EventQuery, generation: int | None = None
) -> tuple[list[Item], dict[int, EventRow], int]:
    """A page of events (items and their event rows) and the total, in two statements (one when
    the total is cached). Ordered as :func:`_order` says."""
    def count() -> int:
        if query.search:
            where, params = _event_conditions(conn, query)
            return conn.execute(_count_statement(where), params).scalar_one()
        shape, params = event_shape(query)
        return _COUNTS(conn.dialect.name, *shape).rows(conn, params)[0][0]

    total = _totals.total(conn, ("events", *query.key()), generation, count)
    if not total:
        return [], {}, 0
    found, rows = ordered_rows(conn, query, limit=query.per_page, offset=(query.page - 1) * query.per_page)
    return found, rows, total


def ordered_rows(
    conn: sa.Connection, query: EventQuery, *, limit: int, offset: int, by_start: bool = False
) -> tuple[list[Item], dict[int, EventRow]]:
    """``limit`` events of ``query`` from ``offset`` on, in its order (``by_start``: by start
    whatever it includes), with their event rows."""
    include, descending = bool(query.include) and not by_start, query.descending
    if query.search:
        where, params = _event_conditions(conn, query, paging=True)
        statement = _page_statement(where, _order(include, descending), conn.dialect.name)
        rows: Sequence[Any] = conn.execute(statement, {**params, "limit": limit, "offset": row_offset(offset)}).all()
    else:
        compiled, params = _plain_page(conn.dialect.name, query, limit=limit, offset=offset, by_start=by_start)
        rows = compiled.rows(conn, params)
    return _items_and_rows(rows)


def _plain_page(
    dialect: str, query: EventQuery, *, limit: int, offset: int, by_start: bool = False, ids_only: bool = False
) -> tuple[Any, dict[str, Any]]:
    """The compiled page statement of a query without a search (as :func:`ordered_rows` runs
    it; ``ids_only``: the page's ids alone) and its values."""
    shape, params = event_shape(query)
    params["limit"], params["offset"] = limit, row_offset(offset)
    statements = _PAGE_IDS if ids_only else _PAGES
    return statements(dialect, bool(query.include) and not by_start, query.descending, *shape), params


def _items_and_rows(rows: Sequence[Any]) -> tuple[list[Item], dict[int, EventRow]]:
    return [Item.from_row(row) for row in rows], {row.id: event_row(row) for row in rows}


def window_events(conn: sa.Connection, ctx: Context, query: EventQuery, *, limit: int, offset: int = 0) -> Loaded:
    """Up to ``limit`` events of ``query`` from ``offset`` on, in its order, loaded, without a
    total (the views page by asking one more than they show): what a calendar view shows costs
    the rows it shows, whatever the table holds."""
    found, rows = window_rows(conn, query, limit=limit, offset=offset)
    return load_items(conn, ctx, found, event_rows=rows)


def window_rows(conn: sa.Connection, query: EventQuery, *, limit: int, offset: int = 0) -> tuple[list[Item], dict[int, EventRow]]:
    """The items and event rows of :func:`window_events`, without what they link to (by start,
    even with ``include``)."""
    return ordered_rows(conn, query, limit=limit, offset=offset, by_start=True)


def any_event(conn: sa.Connection, query: EventQuery) -> bool:
    """Whether ``query`` matches at least one event (one index probe, no count)."""
    if query.search:
        where, params = _event_conditions(conn, query)
        return conn.execute(_any_statement(where), params).first() is not None
    shape, params = event_shape(query)
    return bool(_ANY(conn.dialect.name, *shape).rows(conn, params))


_longest: dict[str, tuple[int, dt.timedelta]] = {}


def longest_event(conn: sa.Connection, generation: int | None = None) -> dt.timedelta:
    """The longest duration of any stored event (wall time), remembered per database until the
    content counter moves. A window query (the views' "events overlapping these days") adds
    ``start >= window start - longest`` to its ``end >= window start``, which turns it into a
    range scan along the start index: its cost follows the window, not the table."""
    if generation is None:
        generation = read_generation(conn)
    key = conn.engine.url.render_as_string()
    found = _longest.get(key)
    if found is not None and found[0] == generation:
        return found[1]
    if conn.dialect.name == "sqlite":
        days = conn.execute(
            sa.select(sa.func.max(sa.func.julianday(events.c.end_local) - sa.func.julianday(events.c.start_local)))
        ).scalar()
        longest = dt.timedelta(days=float(days or 0))
    else:
        longest = conn.execute(sa.select(sa.func.max(events.c.end_local - events.c.start_local))).scalar() or dt.timedelta()
    longest = max(longest, dt.timedelta()) + dt.timedelta(seconds=1)  # rounding of julianday
    _longest[key] = (generation, longest)
    return longest


