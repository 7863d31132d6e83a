"""Imports: records of events brought in from elsewhere, and the one path their events take.

An import record is a content item of type ``cal-ea-record`` (the reference's Event Aggregator
record) whose status says where it stands (calendar-api.md 8.1):

==================  =========================================================================
``cal-ea-pending``  waiting for (more) batches; ``next_batch_hash`` names the next one expected
``cal-ea-success``  finished
``cal-ea-failed``   given up (an error entry, a comment of type ``cal-ea-error``, says why)
``cal-ea-schedule`` a scheduled import: the parent of the records its runs create; never changes
``cal-ea-draft``    prepared, not started
==================  =========================================================================

Its meta (``_tribe_aggregator_*`` keys, as the reference's) holds the import id, the origin
(``ics``, ``ea``...), the source (a URL or a file name), the settings (the status of the events it
creates, how often a schedule runs), the next expected batch hash, the progress, the activity
(ids created, updated and skipped per kind) and, for schedules, when they last ran.

Events reach the site through :func:`apply_batch` only, whether a remote service pushes them
(``POST /cal/event-aggregator/v1/import/{id}/batch``) or calpress reads an iCalendar feed itself
(:mod:`.ics_import` parses, :func:`run_feed` feeds the batches): each event is matched by its
``global_id`` (kept in the event's ``_cal_import_global_id`` meta) and created or updated through
the calendar input service, so re-running an import updates what it created instead of adding
copies. An event a user marked ``cal-ignored`` is skipped.

State changes follow the seed's table: the batch route moves a pending record to success on its
last successful batch (and clears the hash) or keeps it pending with a new hash; the state route
moves a pending record to the status given (success, failed, pending), clearing the hash unless
pending. Everything here runs in the caller's write transaction and does no network I/O; images
given by URL are downloaded by the caller first (:func:`image_urls`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa

from ..auth import users as user_store
from ..compat.php import is_numeric, php_int
from ..content import comments as comment_store
from ..content import items as item_service
from ..content import object_terms
from ..content.items import Context, Item, ItemChanges
from ..content.slugs import sanitize_title
from ..media import attachments
from ..rest.errors import RestError
from ..store.tables import comments, posts
from ..store.tables import events as events_table
from ..store.tables import terms as terms_table
from .definitions import EVENT_TYPE
from .events import save_event
from .input import Resolved, event_input

RECORD_TYPE = "cal-ea-record"
STATUSES = {
    "success": "cal-ea-success",
    "failed": "cal-ea-failed",
    "pending": "cal-ea-pending",
    "schedule": "cal-ea-schedule",
    "draft": "cal-ea-draft",
}
IGNORED_STATUS = "cal-ignored"
ERROR_COMMENT_TYPE = "cal-ea-error"

PREFIX = "_tribe_aggregator_"
IMPORT_ID = PREFIX + "import_id"
NEXT_HASH = PREFIX + "next_batch_hash"
PERCENTAGE = PREFIX + "percentage_complete"
TOTAL = PREFIX + "total_events"
ACTIVITY = PREFIX + "activity"
ORIGIN = PREFIX + "origin"
SOURCE = PREFIX + "source"
POST_STATUS = PREFIX + "post_status"
FREQUENCY = PREFIX + "frequency"  # seconds between the runs of a schedule
LAST_RUN = PREFIX + "last_run"  # ISO UTC instant a schedule last ran
PARENT_SCHEDULE = PREFIX + "schedule"
# On events: what import brought them (their identity across runs) and the record that last did.
GLOBAL_ID_KEY = "_cal_import_global_id"
# A digest of what the source last said of an event: a later batch that says the same leaves the
# event as it is (skipped), so re-running an unchanged feed writes nothing.
SOURCE_DIGEST_KEY = "_cal_import_digest"
RECORD_KEY = "_cal_import_record"

DEFAULT_POST_STATUS = "publish"
ACTIVITY_KINDS = ("cal_events", "cal_venue", "cal_organizer", "category", "images")
ACTIONS = ("created", "updated", "skipped", "scheduled")
INTERVAL_MIN, INTERVAL_MAX = 10, 600
# The events one batch callback may carry (:func:`batch_size`). The reference's site asks the
# Event Aggregator service to deliver ``batch_size`` events a batch, the value of its
# ``event_aggregator_event_batch_size`` filter, 10 unless filtered (the-events-calendar,
# src/Tribe/Aggregator/Record/Batch_Queue.php: the ``deliver/`` request body and
# ``batch_size()``), so the service never sends more. calpress refuses a larger batch instead of
# holding the write lock for it (3,000 events in one call held it for 2.8 s); a site may raise its
# figure (the ``cal_ea_batch_size`` option, as the filter), up to BATCH_SIZE_MAX.
BATCH_SIZE, BATCH_SIZE_MAX = 10, 100


# -- activity -------------------------------------------------------------------------------------


@dataclass
class Activity:
    """Ids per kind and action, as the reference's activity object (``get_items``)."""

    items: dict[str, dict[str, list[int]]] = field(
        default_factory=lambda: {kind: {action: [] for action in ACTIONS} for kind in ACTIVITY_KINDS}
    )
    # Why events were skipped, by global id (not part of the reference's answer).
    problems: dict[str, str] = field(default_factory=dict)
    ok: bool = True

    def add(self, kind: str, action: str, item_id: int) -> None:
        bucket = self.items.setdefault(kind, {a: [] for a in ACTIONS}).setdefault(action, [])
        if item_id not in bucket:
            bucket.append(item_id)

    def merge(self, stored: Any) -> None:
        """Add the ids of a stored activity (earlier batches) to this one's, theirs first."""
        if not isinstance(stored, Mapping):
            return
        for kind, actions in stored.items():
            if not isinstance(actions, Mapping):
                continue
            for action, ids in actions.items():
                if not isinstance(ids, list):
                    continue
                bucket = self.items.setdefault(str(kind), {a: [] for a in ACTIONS}).setdefault(str(action), [])
                bucket[:0] = [i for i in ids if isinstance(i, int) and i not in bucket]


# -- records --------------------------------------------------------------------------------------


def acting_context(conn: sa.Connection, ctx: Context, record: Item) -> Context:
    """The context a record's events are written in: acting as the record's author (who set
    the import up), whoever calls back, as the reference inserts them for the record."""
    user = user_store.get_user(conn, record.author) if record.author else None
    return dataclasses.replace(ctx, user=user)


def new_hash() -> str:
    """A fresh batch hash: 32 hex characters, as the reference's md5 of a unique id."""
    return secrets.token_hex(16)


def new_import_id() -> str:
    return secrets.token_hex(12)


def create_record(
    conn: sa.Connection,
    ctx: Context,
    *,
    origin: str,
    source: str,
    status: str = "pending",
    post_status: str = DEFAULT_POST_STATUS,
    frequency: int | None = None,
    author: int | None = None,
    import_id: str | None = None,
    parent: int = 0,
) -> Item:
    """A new import record (pending with a first batch hash, or a schedule, or a draft)."""
    meta: dict[str, Any] = {
        IMPORT_ID: import_id or new_import_id(),
        ORIGIN: origin,
        SOURCE: source,
        POST_STATUS: post_status,
        PERCENTAGE: 0,
        TOTAL: 0,
    }
    if status == "pending":
        meta[NEXT_HASH] = new_hash()
    if frequency is not None:
        meta[FREQUENCY] = int(frequency)
    if parent:
        meta[PARENT_SCHEDULE] = parent
    title = f"{origin} import: {source}"[:200]
    return item_service.create_item(
        conn, ctx, ctx.registry.types[RECORD_TYPE],
        ItemChanges(title=title, status=STATUSES[status], author=author, parent=parent, protected_meta=meta),
    )


def record_by_import_id(conn: sa.Connection, import_id: str, *, pending_only: bool = True) -> Item | None:
    """The record with this import id (only a pending one, unless told otherwise)."""
    if not isinstance(import_id, str) or not import_id:
        return None
    stmt = sa.select(posts.c.id).where(posts.c.type == RECORD_TYPE, posts.c.meta[IMPORT_ID].as_string() == import_id)
    if pending_only:
        stmt = stmt.where(posts.c.status == STATUSES["pending"])
    row = conn.execute(stmt.order_by(posts.c.id.desc()).limit(1)).first()
    return item_service.get_item(conn, row.id) if row is not None else None


def lock_record(conn: sa.Connection, record_id: int) -> Item | None:
    """The record read again under a row lock (PostgreSQL; SQLite's write transaction already
    excludes other writers), so that two batches sent with one hash cannot both go in."""
    row = conn.execute(
        sa.select(posts.c.id).where(posts.c.id == record_id, posts.c.type == RECORD_TYPE).with_for_update()
    ).first()
    return item_service.get_item(conn, row.id) if row is not None else None


def records(conn: sa.Connection, *, statuses: Sequence[str] | None = None, limit: int = 100) -> list[Item]:
    """Import records, newest first (all statuses unless told)."""
    stmt = sa.select(posts.c.id).where(posts.c.type == RECORD_TYPE)
    if statuses:
        stmt = stmt.where(posts.c.status.in_([STATUSES.get(s, s) for s in statuses]))
    ids = [row.id for row in conn.execute(stmt.order_by(posts.c.id.desc()).limit(limit))]
    found = item_service.get_items(conn, ids)
    return [found[i] for i in ids if i in found]


def hash_matches(record: Item | None, given: Any) -> bool:
    """Whether ``given`` is the record's expected batch hash (constant time); never without a
    stored hash (the reference fails closed)."""
    if record is None:
        return False
    expected = record.meta.get(NEXT_HASH)
    if not isinstance(expected, str) or not expected or not isinstance(given, str):
        return False
    return hmac.compare_digest(expected.encode(), given.encode())


def record_state(record: Item) -> str:
    """success, failed, pending, schedule or draft."""
    return next((key for key, name in STATUSES.items() if name == record.status), record.status)


def _update_record(conn: sa.Connection, ctx: Context, record: Item, *, status: str | None = None,
                   meta: Mapping[str, Any] | None = None) -> Item:
    changes = ItemChanges(status=STATUSES[status] if status else None, protected_meta=dict(meta or {}) or None)
    return item_service.update_item(conn, ctx, record, changes)


def set_status(conn: sa.Connection, ctx: Context, record: Item, status: str) -> Item:
    """The record moved to ``status`` (success, failed, pending...). A schedule never changes,
    and an unknown status is refused: the reference's error, whose code is the sentence and
    whose status is none (a 500)."""
    if status not in STATUSES or record.status == STATUSES["schedule"]:
        raise RestError(
            f"Could not update the status of import {record.id} to {status}; current record status is {record.status}", "",
        )
    return _update_record(conn, ctx, record, status=status)


def log_error(conn: sa.Connection, ctx: Context, record: Item, code: str, message: str) -> None:
    """An error entry on the record: a comment of type ``cal-ea-error`` (code as its author)."""
    comment_store.insert_comment(conn, ctx, {
        "post_id": record.id, "author_name": str(code)[:245], "content": str(message), "status": "approved",
        "type": ERROR_COMMENT_TYPE,
    })


def error_entries(conn: sa.Connection, record: Item) -> list[tuple[str, str]]:
    """(code, message) of the record's error entries, oldest first."""
    rows = conn.execute(
        sa.select(comments.c.author_name, comments.c.content)
        .where(comments.c.post_id == record.id, comments.c.type == ERROR_COMMENT_TYPE)
        .order_by(comments.c.id)
    )
    return [(row.author_name, row.content) for row in rows]


# -- events ---------------------------------------------------------------------------------------


def _wall(date_text: Any, hour: Any, minute: Any, meridian: Any) -> str | None:
    """``YYYY-MM-DD HH:MM:SS`` from the Aggregator's split fields (a 12-hour clock when a
    meridian is given), or the date text as given when it already holds a time."""
    if not isinstance(date_text, str) or not date_text.strip():
        return None
    text = date_text.strip()
    if " " in text or "T" in text:
        return text
    try:
        h = int(hour or 0)
        m = int(minute or 0)
    except (TypeError, ValueError):
        h = m = 0
    if isinstance(meridian, str) and meridian.lower() in ("am", "pm"):
        h = h % 12 + (12 if meridian.lower() == "pm" else 0)
    return f"{text} {h:02d}:{m:02d}:00"


def event_data(event: Mapping[str, Any]) -> dict[str, Any]:
    """An event of a batch (the Aggregator's import format, or the calendar's own field names)
    as the calendar input service's data."""
    data: dict[str, Any] = {}
    for key in ("title", "description", "excerpt", "all_day", "timezone", "cost", "categories", "tags",
                "show_map", "show_map_link", "hide_from_listings", "featured", "sticky"):
        if key in event and event[key] is not None:
            data[key] = event[key]
    data["start_date"] = _wall(event.get("start_date"), event.get("start_hour"), event.get("start_minute"),
                               event.get("start_meridian"))
    data["end_date"] = _wall(event.get("end_date"), event.get("end_hour"), event.get("end_minute"),
                             event.get("end_meridian")) or data["start_date"]
    website = event.get("website", event.get("url"))
    if isinstance(website, str):
        data["website"] = website
    image = event.get("image")
    if isinstance(image, str) and image.strip():
        data["image"] = image.strip()
    venue = event.get("venue")
    if isinstance(venue, Mapping) and str(venue.get("venue") or "").strip():
        data["venue"] = {k: v for k, v in venue.items() if v is not None and k != "id"}
    organizers = event.get("organizer")
    if isinstance(organizers, Mapping):
        organizers = [organizers]
    if isinstance(organizers, list):
        kept = [{k: v for k, v in o.items() if v is not None and k != "id"} for o in organizers
                if isinstance(o, Mapping) and str(o.get("organizer") or "").strip()]
        if kept:
            data["organizer"] = kept
    return data


def image_urls(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The image addresses a batch gives: what the caller downloads before the transaction."""
    found = []
    for event in events:
        image = event.get("image") if isinstance(event, Mapping) else None
        if isinstance(image, str) and image.strip().startswith(("http://", "https://")):
            found.append(image.strip())
    return list(dict.fromkeys(found))


def global_id_column(conn: sa.Connection) -> Any:
    """An item's import global id, spelled as migration 0007's index spells it (the key written
    out, not bound: an expression index serves only the same expression)."""
    if conn.dialect.name == "postgresql":
        return posts.c.meta.op("->>", return_type=sa.String)(sa.literal_column(f"'{GLOBAL_ID_KEY}'"))
    return sa.func.json_extract(posts.c.meta, sa.literal_column(f"'$.\"{GLOBAL_ID_KEY}\"'"), type_=sa.String)


def events_by_global_id(conn: sa.Connection, global_ids: Sequence[str]) -> dict[str, Item]:
    """The events already imported under these global ids (the newest of any duplicates)."""
    wanted = sorted({g for g in global_ids if g})
    if not wanted:
        return {}
    key = global_id_column(conn)
    found: dict[str, int] = {}
    for start in range(0, len(wanted), 500):
        # The type is checked on the rows found, not in the query: its index would compete with
        # the global id's (only events carry one).
        stmt = sa.select(posts.c.id, posts.c.type, key.label("gid")).where(key.in_(wanted[start:start + 500]))
        for row in conn.execute(stmt.order_by(posts.c.id)):
            if row.type == EVENT_TYPE:
                found[row.gid] = row.id
    items = item_service.get_items(conn, list(found.values()))
    return {gid: items[item_id] for gid, item_id in found.items() if item_id in items}


def apply_batch(
    conn: sa.Connection,
    ctx: Context,
    record: Item,
    events: Sequence[Any],
    *,
    images: attachments.Downloads | None = None,
    resolved: Resolved | None = None,
) -> Activity:
    """Create or update a batch's events for ``record`` through the calendar input service,
    matched by ``global_id``. An event that cannot be saved is skipped (its reason kept in the
    activity's problems) and the others still go in. The terms, venues and organizers the events
    name are found once per batch, or once per run when the caller keeps ``resolved`` across
    batches (dropping it if a batch's transaction fails).

    The batch is first written under one savepoint; only when an event is refused is that rolled
    back and the batch written again, each event under a savepoint of its own (two statements per
    event that a batch of good events does not pay)."""
    status = str(record.meta.get(POST_STATUS) or DEFAULT_POST_STATUS)
    given = [e for e in events if isinstance(e, Mapping)]
    existing = events_by_global_id(conn, [str(e.get("global_id") or "") for e in given])
    resolved = {} if resolved is None else resolved
    forget_gone(conn, resolved)
    kept_existing, kept_resolved = dict(existing), dict(resolved)
    event_type = ctx.registry.types[EVENT_TYPE]
    bases = [sanitize_title(str(e.get("title") or "")) for e in given]
    # Each category of the batch counted once, at its end; the slugs its titles may clash with read once.
    with object_terms.counting_later(conn):
        try:
            with item_service.slugs_known(conn, event_type, bases), conn.begin_nested():
                return _apply_events(conn, ctx, record, given, existing, status, images, resolved, isolated=False)
        except _Refused:
            existing.clear()
            existing.update(kept_existing)
            resolved.clear()
            resolved.update(kept_resolved)  # what the rolled-back attempt made is gone
        with item_service.slugs_known(conn, event_type, bases):
            return _apply_events(conn, ctx, record, given, existing, status, images, resolved, isolated=True)


def forget_gone(conn: sa.Connection, resolved: Resolved) -> None:
    """Drop from ``resolved`` (kept across batches, each its own transaction) the terms that are
    gone and the venues and organizers that are gone or trashed since it found them: two reads a
    batch, so that no event links something deleted meanwhile."""

    def alive(table: sa.Table, ids: set[int], *where: Any) -> set[int]:
        return set(conn.execute(sa.select(table.c.id).where(table.c.id.in_(ids), *where)).scalars()) if ids else set()

    terms_alive = alive(terms_table, {found for key, found in resolved.items() if key[0] == "term"})
    posts_alive = alive(posts, {found for key, found in resolved.items() if key[0] != "term"}, posts.c.status != "trash")
    for key, found in list(resolved.items()):
        if found not in (terms_alive if key[0] == "term" else posts_alive):
            del resolved[key]


class _Refused(Exception):
    """An event of a batch written under one savepoint was refused: write it again event by event."""


def _apply_events(
    conn: sa.Connection,
    ctx: Context,
    record: Item,
    given: Sequence[Mapping[str, Any]],
    existing: dict[str, Item],
    status: str,
    images: attachments.Downloads | None,
    resolved: Resolved,
    *,
    isolated: bool,
) -> Activity:
    activity = Activity()
    for event in given:
        global_id = str(event.get("global_id") or "")
        before = existing.get(global_id) if global_id else None
        digest = source_digest(event)
        if before is not None and (before.status in (IGNORED_STATUS, "trash") or before.meta.get(SOURCE_DIGEST_KEY) == digest):
            activity.add("cal_events", "skipped", before.id)
            continue
        data = event_data(event)
        if before is None:
            data["status"] = status
        if not data.get("title") or not data.get("start_date"):
            activity.problems[global_id or f"#{len(activity.problems) + 1}"] = "an event needs a title and a start"
            continue
        if isinstance(data.get("image"), str) and (images is None or data["image"] not in images):
            data.pop("image")  # not downloaded: imported without its picture
        # Copied only for a savepoint of its own: otherwise the whole batch's savepoint rolls back.
        kept: Resolved = dict(resolved) if isolated else {}
        try:
            with conn.begin_nested() if isolated else contextlib.nullcontext():
                found = event_input(conn, ctx, data, before, images=images, resolved=resolved)
                found.protected_meta = {RECORD_KEY: record.id, SOURCE_DIGEST_KEY: digest,
                                        **({GLOBAL_ID_KEY: global_id} if global_id else {})}
                saved = save_event(conn, ctx, found, before)
        except RestError as err:
            if not isolated:
                raise _Refused from err
            activity.problems[global_id or data["title"]] = err.message
            resolved.clear()
            resolved.update(kept)  # what this event's savepoint made is gone
            continue
        if global_id:
            existing[global_id] = saved
        activity.add("cal_events", "updated" if before is not None else "created", saved.id)
    return activity


def source_digest(event: Mapping[str, Any]) -> str:
    """What a batch says of one event, as a digest (keys sorted, values as JSON gives them)."""
    try:
        text = orjson.dumps(event, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
    except TypeError:  # an integer beyond 64 bits (a caller's, not JSON's): its text will do
        text = repr(sorted(event.items(), key=lambda pair: str(pair[0]))).encode()
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def _percentage(value: Any) -> int:
    return max(0, min(100, php_int(value)))


def batch_size(value: Any) -> int:
    """The most events a batch callback may carry: a whole number from 1 up, at most
    :data:`BATCH_SIZE_MAX`; anything else :data:`BATCH_SIZE` (the reference's filtered batch
    size, default 10)."""
    if is_numeric(value) and php_int(value) >= 1:
        return min(BATCH_SIZE_MAX, php_int(value))
    return BATCH_SIZE


def batch_interval(value: Any) -> int:
    """The pause before the next batch the answer asks for: a number above 10, at most 600;
    anything else 10 (the reference's filtered interval)."""
    if is_numeric(value) and php_int(value) > INTERVAL_MIN:
        return min(INTERVAL_MAX, php_int(value))
    return INTERVAL_MIN


@dataclass
class BatchResult:
    record: Item
    activity: Activity
    finished: bool
    next_hash: str | None


def receive_batch(
    conn: sa.Connection,
    ctx: Context,
    record: Item,
    events: Sequence[Any],
    *,
    done: int,
    total: int,
    total_events: int,
    percentage: Any,
    images: attachments.Downloads | None = None,
    resolved: Resolved | None = None,
) -> BatchResult:
    """One batch of a pending record (the batch route's effects, calendar-api.md 8.2): the
    events saved, the progress and activity stored, then the record finished (its hash cleared)
    on its last batch or kept pending under a new hash."""
    meta: dict[str, Any] = {}
    if not record.meta.get(POST_STATUS):
        meta[POST_STATUS] = DEFAULT_POST_STATUS
        record = _update_record(conn, ctx, record, meta=meta)
        meta = {}
    activity = apply_batch(conn, acting_context(conn, ctx, record), record, events, images=images, resolved=resolved)
    is_last = total == done + 1
    finished = is_last and activity.ok
    meta[TOTAL] = total_events
    if activity.ok:
        meta[PERCENTAGE] = _percentage(percentage)
    merged = Activity(items={kind: {a: list(ids) for a, ids in acts.items()} for kind, acts in activity.items.items()})
    merged.merge(record.meta.get(ACTIVITY))
    meta[ACTIVITY] = merged.items
    next_hash = None
    if finished:
        meta[NEXT_HASH] = None
    else:
        next_hash = new_hash()
        meta[NEXT_HASH] = next_hash
    record = _update_record(conn, ctx, record, status="success" if finished else "pending", meta=meta)
    return BatchResult(record, activity, finished, next_hash)


def receive_state(
    conn: sa.Connection, ctx: Context, record: Item, status: str, *, message: str, message_slug: str, percentage: Any,
) -> Item:
    """The state route's effects (calendar-api.md 8.3): the record moved to ``status``, an error
    entry when it failed, the progress stored, the hash cleared unless still pending."""
    record = set_status(conn, ctx, record, status)
    if status == "failed":
        log_error(conn, ctx, record, message_slug, message)
    meta: dict[str, Any] = {PERCENTAGE: _percentage(percentage)}
    if status != "pending":
        meta[NEXT_HASH] = None
    return _update_record(conn, ctx, record, meta=meta)


# -- schedules ------------------------------------------------------------------------------------


def due_schedules(conn: sa.Connection, now: dt.datetime) -> list[Item]:
    """The scheduled imports whose interval has passed since their last run (or that never ran)."""
    due = []
    for record in records(conn, statuses=["schedule"], limit=10_000):
        frequency = int(record.meta.get(FREQUENCY) or 0)
        last = record.meta.get(LAST_RUN)
        try:
            last_run = dt.datetime.fromisoformat(last) if isinstance(last, str) else None
        except ValueError:
            last_run = None
        if last_run is None or (frequency > 0 and last_run + dt.timedelta(seconds=frequency) <= now):
            due.append(record)
    return due


def mark_run(conn: sa.Connection, ctx: Context, schedule: Item, now: dt.datetime) -> Item:
    return item_service.update_item(conn, ctx, schedule, ItemChanges(protected_meta={LAST_RUN: now.isoformat()}))


def imported_events(conn: sa.Connection, prefix: str) -> Iterator[tuple[str, int, str, dt.datetime]]:
    """(global id, id, status, local start) of the events whose global id starts with ``prefix``
    (what one source brought in), read as they come: a feed's thousands of events are not loaded
    as items to find the few that vanished."""
    key = global_id_column(conn)
    stmt = (
        sa.select(key.label("gid"), posts.c.id, posts.c.status, events_table.c.start_local)
        .join(events_table, events_table.c.post_id == posts.c.id)
        .where(posts.c.type == EVENT_TYPE, key.like(_like(prefix) + "%", escape="\\"))
    )
    for row in conn.execute(stmt.execution_options(yield_per=1000)):
        yield row.gid, row.id, row.status, row.start_local


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
