"""The events bar's category and venue filters (beyond the reference, which sells them as its
Filter Bar add-on): which choices the bar offers, from the site's own data.

A choice is offered when at least one upcoming event the requester may see (listed, not ended)
carries it: the event categories such events are filed under, and the venues they take place at.
One statement each, every candidate checked with an ``EXISTS`` along the link indexes, so the cost
follows the number of categories and venues, not the number of past events; the choices are then
remembered per database, reader and minute while the content counter is unchanged (as the
listings' totals and the longest event are), so a view rendered again costs them nothing.

The views read the chosen category from ``tribe_events_cat`` (the reference's own variable, also
the ``/events/category/<slug>/`` path) and the venue from :data:`VENUE_VAR` (a venue's id), in
:func:`calpress.calendar.views.view_state`.
"""

from __future__ import annotations

import datetime as dt
import html
import threading
from dataclasses import dataclass, field

import sqlalchemy as sa

from ..content import archives
from ..content.items import Context
from ..store.changes import read_generation
from ..store.tables import event_links, events, posts, term_links, terms
from .definitions import CATEGORY_TAXONOMY, EVENT_TYPE, VENUE_TYPE

VENUE_VAR = "tribe_venue"  # the view URL's venue filter: a venue's id
MAX_CHOICES = 200  # choices a select lists at most (by name)
KEPT_LIMIT = 256  # remembered choice sets (per database, reader statuses and minute)


@dataclass
class BarChoices:
    """What the bar's selects offer: (slug, name) of categories, (id, name) of venues."""

    categories: list[tuple[str, str]] = field(default_factory=list)
    venues: list[tuple[int, str]] = field(default_factory=list)


def _upcoming_event(ctx: Context, dialect: str, now: dt.datetime, link: sa.Table, on: sa.ColumnElement[bool],
                    *conditions: sa.ColumnElement[bool]) -> sa.ColumnElement[bool]:
    """Whether there is an upcoming, listed event the requester may see, joined to ``link`` (its
    terms or its venues) ``on`` a condition, meeting ``conditions`` (which tie the link to the
    outer row). A scalar subquery with LIMIT 1 rather than EXISTS: PostgreSQL would turn an
    EXISTS into a semi-join that hashes every upcoming event; this one it runs per candidate,
    along the candidate's links, stopping at the first upcoming event."""
    statuses = list(archives.listed_statuses(ctx, EVENT_TYPE))
    type_column, status_column, end_column = posts.c.type, posts.c.status, events.c.end_local
    if dialect == "sqlite":
        # Without statistics SQLite's planner would start from the posts (type, status) index or
        # the events' end index, reading every upcoming event for each candidate; a unary plus
        # hides those indexes, so it starts from the candidate's links (a few rows each).
        type_column, status_column = sa.literal_column("+posts.type"), sa.literal_column("+posts.status")
        end_column = sa.literal_column("+events.end_local", type_=events.c.end_local.type)
    return (
        sa.select(events.c.post_id)
        .select_from(link.join(events, on).join(posts, posts.c.id == events.c.post_id))
        .where(
            type_column == EVENT_TYPE,
            status_column.in_(statuses) if statuses else sa.false(),
            events.c.hidden.is_(False),
            end_column >= now,
            *conditions,
        )
        .limit(1)
        .scalar_subquery()
        .is_not(None)
    )


_kept: dict[tuple[object, ...], tuple[int, BarChoices]] = {}
_kept_lock = threading.Lock()


def filter_choices(conn: sa.Connection, ctx: Context, now: dt.datetime) -> BarChoices:
    """The categories and venues of the upcoming events ``ctx``'s user may see, by name;
    remembered while the content counter stays and the minute lasts."""
    generation = read_generation(conn)
    key = (conn.engine.url.render_as_string(), archives.listed_statuses(ctx, EVENT_TYPE),
           archives.listed_statuses(ctx, VENUE_TYPE), now.replace(second=0, microsecond=0))
    found = _kept.get(key)
    if found is not None and found[0] == generation:
        return found[1]
    choices = _read_choices(conn, ctx, now)
    with _kept_lock:
        if len(_kept) >= KEPT_LIMIT:
            _kept.clear()
        _kept[key] = (generation, choices)
    return choices


def _read_choices(conn: sa.Connection, ctx: Context, now: dt.datetime) -> BarChoices:
    dialect = conn.dialect.name
    categories = conn.execute(
        sa.select(terms.c.slug, terms.c.name)
        .where(
            terms.c.taxonomy == CATEGORY_TAXONOMY,
            _upcoming_event(ctx, dialect, now, term_links, term_links.c.object_id == events.c.post_id,
                            term_links.c.term_id == terms.c.id),
        )
        .order_by(terms.c.name, terms.c.id)
        .limit(MAX_CHOICES)
    ).all()
    venue_posts = posts.alias("venue_posts")
    venue_statuses = list(archives.listed_statuses(ctx, VENUE_TYPE))
    venues = conn.execute(
        sa.select(venue_posts.c.id, venue_posts.c.title)
        .where(
            venue_posts.c.type == VENUE_TYPE,
            venue_posts.c.status.in_(venue_statuses) if venue_statuses else sa.false(),
            _upcoming_event(ctx, dialect, now, event_links, event_links.c.event_id == events.c.post_id,
                            event_links.c.kind == "venue", event_links.c.linked_id == venue_posts.c.id),
        )
        .order_by(venue_posts.c.title, venue_posts.c.id)
        .limit(MAX_CHOICES)
    ).all()
    return BarChoices(
        categories=[(str(slug), html.unescape(str(name))) for slug, name in categories],
        venues=[(int(venue_id), html.unescape(str(title)) or f"#{venue_id}") for venue_id, title in venues],
    )


def venue_name(conn: sa.Connection, ctx: Context, venue_id: int) -> str | None:
    """The title of a venue the requester may see, or None (no such venue)."""
    statuses = list(archives.listed_statuses(ctx, VENUE_TYPE))
    if not statuses:
        return None
    found = conn.execute(
        sa.select(posts.c.title).where(posts.c.id == venue_id, posts.c.type == VENUE_TYPE, posts.c.status.in_(statuses))
    ).first()
    return None if found is None else html.unescape(str(found[0]))
