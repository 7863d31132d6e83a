"""The upcoming events of the calendar's RSS feed (``/events/feed/``), as The Events Calendar's
feed query lists them: listed events that end now or later, soonest start first, as many as
``posts_per_rss`` asks (the feed's length, given by the caller)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from ..content.items import Context
from . import listing
from .events import Loaded
from .views import local_now, visible_statuses


def upcoming_events(conn: sa.Connection, ctx: Context, *, limit: int, now: dt.datetime | None = None) -> Loaded:
    """Up to ``limit`` events ending at ``now`` (the site's wall time) or later, loaded."""
    now = now or local_now(ctx)
    query = listing.EventQuery(statuses=visible_statuses(ctx), listed_only=True, ends_after=now)
    try:  # a range on the start index: no event started before now minus the longest one
        query.starts_after = now - listing.longest_event(conn)
    except OverflowError:
        query.starts_after = None
    return listing.window_events(conn, ctx, query, limit=limit)
