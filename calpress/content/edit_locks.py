"""Who is editing an item: WordPress's post lock, kept as it keeps it, in the item's
``_edit_lock`` meta (``"<unix time>:<user id>"``).

An editor screen takes the lock when it opens and its page refreshes it while it stays open; a
lock older than :data:`LOCK_WINDOW` seconds has lapsed (the reference's wp_check_post_lock window).
Another user who opens the item is told who holds it and may take it over.

The lock is a note about a screen, not content: writing it neither records a change nor moves the
content counter, so the answer caches stay warm while someone edits (nothing any answer shows
reads ``_edit_lock``; the WXR export leaves it out, as WordPress's does).
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from ..store.tables import posts

__all__ = ["LOCK_KEY", "LOCK_WINDOW", "holder", "release", "take"]

LOCK_KEY = "_edit_lock"
LOCK_WINDOW = 150  # seconds


def _parse(value: Any) -> tuple[int, int] | None:
    """(time, user id) of a stored lock, or None when it is missing or unreadable."""
    if not isinstance(value, str) or ":" not in value:
        return None
    moment, _, user = value.partition(":")
    try:
        return int(moment), int(user)
    except ValueError:
        return None


def holder(conn: sa.Connection, item_id: int, *, now: float | None = None) -> int | None:
    """The id of the user whose lock on ``item_id`` is still fresh, or None."""
    meta = conn.execute(sa.select(posts.c.meta).where(posts.c.id == item_id)).scalar_one_or_none()
    found = _parse((meta or {}).get(LOCK_KEY))
    if found is None or not found[1]:
        return None
    moment, user = found
    return user if (now if now is not None else time.time()) - moment <= LOCK_WINDOW else None


def take(conn: sa.Connection, item_id: int, user_id: int, *, now: float | None = None) -> None:
    """Lock ``item_id`` for ``user_id`` from now (taking it over from whoever held it)."""
    row = conn.execute(sa.select(posts.c.meta).where(posts.c.id == item_id).with_for_update()).one_or_none()
    if row is None:
        return
    meta = dict(row.meta or {})
    meta[LOCK_KEY] = f"{int(now if now is not None else time.time())}:{int(user_id)}"
    conn.execute(sa.update(posts).where(posts.c.id == item_id).values(meta=meta))


def release(conn: sa.Connection, item_id: int, user_id: int) -> None:
    """Drop ``user_id``'s lock on ``item_id`` (someone else's stays)."""
    row = conn.execute(sa.select(posts.c.meta).where(posts.c.id == item_id).with_for_update()).one_or_none()
    if row is None:
        return
    meta = dict(row.meta or {})
    found = _parse(meta.get(LOCK_KEY))
    if found is not None and found[1] == user_id:
        meta.pop(LOCK_KEY)
        conn.execute(sa.update(posts).where(posts.c.id == item_id).values(meta=meta))
