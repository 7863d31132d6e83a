"""The calendar's venue and organizer listings (``GET /venues``, ``GET /organizers``): a typed
query of the loose filters, with calendar-api.md 3.2's rules, and its page, the linked items
loaded with their images. The rules they share with the event listing (page size, statuses)
are :mod:`.listing`'s."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from ..content.items import Context, Item
from ..store.tables import event_links, events, posts, row_offset
from .definitions import EVENT_TYPE
from .events import Loaded, load_items
from .fields import kind_of
from .listing import (
    DEFAULT_PER_PAGE,
    Applied,
    _status_condition,
    _totals,
    lists_any_status,
    local_now,
    page_size,
    statuses_of,
    total_key,
)
from .values import truthy

_SEARCH_SPLIT = re.compile(r"[^\w-]+", re.UNICODE)


@dataclass
class LinkedQuery:
    """What a venue or organizer listing asks for."""

    content_type: str
    statuses: list[str] | None
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE
    search: str | None = None
    event: int | None = None
    has_events: bool | None = None
    only_with_upcoming: bool = False
    upcoming_statuses: list[str] | None = None
    now_local: dt.datetime | None = None
    # The filters as applied, by public name, in the reference's order (calendar-api.md 3.2 rest_url).
    applied: Applied = field(default=(), compare=False)

    def key(self) -> tuple[Any, ...]:
        """What the total depends on (not the page, nor the echo)."""
        return total_key(self)

@dataclass
class LinkedPage:
    """A page of venues or organizers (with their images) and the total of the query."""

    query: LinkedQuery
    loaded: Loaded
    total: int

    @property
    def items(self) -> list[Item]:
        return self.loaded.items

def linked_query(ctx: Context, content_type: str, filters: Mapping[str, Any], *, now: dt.datetime | None = None) -> LinkedQuery:
    """The typed query of a venue or organizer listing's loose filters (calendar-api.md 3.2).
    ``applied`` echoes ``has_events`` as it was sent; ``search`` and ``only_with_upcoming`` are
    not echoed, as in the reference."""

    def given(name: str) -> Any:
        return filters.get(name)

    page = int(given("page") or 1)
    size = page_size(ctx, given("per_page"))
    statuses, status_echo = statuses_of(ctx, content_type, given("status"))
    query = LinkedQuery(content_type=content_type, statuses=statuses, page=page, per_page=size)
    applied = [("page", str(page)), ("per_page", str(size))]
    if given("search"):
        query.search = str(given("search"))
    if given("event") is not None:
        query.event = int(given("event"))
        applied.append(("event", str(query.event)))
    has_events = given("has_events")
    if has_events is not None:
        query.has_events = truthy(has_events)
        applied.append(("has_events", has_events if isinstance(has_events, str) else "1" if query.has_events else "0"))
    applied.append(("status", status_echo))
    if truthy(given("only_with_upcoming") or False):
        query.only_with_upcoming = True
        query.upcoming_statuses = None if lists_any_status(ctx, EVENT_TYPE) else ["publish"]
        query.now_local = now or local_now(ctx)
    query.applied = tuple(applied)
    return query

def linked_page(conn: sa.Connection, ctx: Context, query: LinkedQuery, generation: int | None = None) -> LinkedPage:
    found, total = query_linked(conn, query, generation)
    return LinkedPage(query, load_items(conn, ctx, found), total)

def list_linked(
    site: Any, ctx: Context, content_type: str, filters: Mapping[str, Any], *, generation: int | None = None
) -> LinkedPage:
    """A venue or organizer listing in one call."""
    query = linked_query(ctx, content_type, filters)
    with site.read() as conn:
        return linked_page(conn, ctx, query, generation)

def linked_search_fragments(text: str) -> list[str]:
    """calendar-api.md 3.2: fragments split on every run of characters that are not letters,
    digits or ``-``."""
    return [part for part in _SEARCH_SPLIT.split(text.replace("_", " ")) if part]

def _linked_search(items: list[Item], content_type: str, text: str) -> list[Item]:
    """calendar-api.md 3.2: the items with a searched field (title, content, excerpt and the
    fields the table marks) that contains every fragment."""
    fragments = [f.lower() for f in linked_search_fragments(text)]
    if not fragments:
        return items
    searched = kind_of(content_type).searched

    def values(item: Item) -> list[str]:
        return [item.title, item.content, item.excerpt, *(str(item.meta.get(f.meta_key) or "") for f in searched)]

    return [item for item in items if any(all(f in value.lower() for f in fragments) for value in values(item))]

def query_linked(conn: sa.Connection, query: LinkedQuery, generation: int | None = None) -> tuple[list[Item], int]:
    """A page of venues or organizers and the total. Newest first (post date, then id)."""
    kind = kind_of(query.content_type).name
    where: list[Any] = [posts.c.type == query.content_type, _status_condition(posts.c.status, query.statuses)]
    if query.event is not None:
        where.append(
            sa.exists(
                sa.select(event_links.c.linked_id).where(
                    event_links.c.linked_id == posts.c.id, event_links.c.kind == kind, event_links.c.event_id == query.event
                )
            )
        )
    event_posts = posts.alias("event_posts")
    if query.has_events is not None:
        with_events = sa.exists(
            sa.select(event_links.c.linked_id)
            .join(event_posts, event_posts.c.id == event_links.c.event_id)
            .where(
                event_links.c.linked_id == posts.c.id,
                event_links.c.kind == kind,
                # calendar-api.md 3.2, as the reference: every event but a draft or pending one
                # counts, a trashed one too (it keeps its venue until deleted for good).
                event_posts.c.status.notin_(("draft", "pending", "auto-draft")),
            )
        )
        where.append(with_events if query.has_events else sa.not_(with_events))
    if query.only_with_upcoming:
        where.append(
            sa.exists(
                sa.select(event_links.c.linked_id)
                .join(event_posts, event_posts.c.id == event_links.c.event_id)
                .join(events, events.c.post_id == event_links.c.event_id)
                .where(
                    event_links.c.linked_id == posts.c.id,
                    event_links.c.kind == kind,
                    _status_condition(event_posts.c.status, query.upcoming_statuses),
                    events.c.start_local >= query.now_local,
                )
            )
        )
    order = [posts.c.date_local.desc(), posts.c.id.desc()]
    if query.search:
        rows = conn.execute(sa.select(posts).where(*where).order_by(*order)).all()
        matched = _linked_search([Item.from_row(row) for row in rows], query.content_type, query.search)
        start = (query.page - 1) * query.per_page
        return matched[start:start + query.per_page], len(matched)
    total = _totals.total(conn, (kind, *query.key()), generation,
                          lambda: conn.execute(sa.select(sa.func.count()).select_from(posts).where(*where)).scalar_one())
    if not total:
        return [], 0
    rows = conn.execute(
        sa.select(posts).where(*where).order_by(*order).limit(query.per_page).offset(row_offset((query.page - 1) * query.per_page))
    ).all()
    return [Item.from_row(row) for row in rows], total
