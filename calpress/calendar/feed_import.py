"""An iCalendar feed brought into the site: fetched, parsed, and fed through the import callbacks'
own path (:mod:`.imports`), so that a feed's import reads, progresses and ends as a pushed one.

One run (``calpress import ics``, a due schedule of ``calpress import run-due``):

1. the feed is read: a file's bytes, or an address fetched through the site's guarded client
   (outside any transaction; ``webcal://`` is https);
2. :func:`.ics_import.parse_feed` turns it into single events within a window (by default a
   month back to a year ahead), occurrences of a series each remembering their series; what it
   leaves out (broken or repeated components, what a cap or its time budget cut) is counted in
   ``FeedRun.left_out`` and named in the warnings;
3. a pending import record is made (the schedule's child when a schedule runs) and the events go
   in batches through :func:`.imports.receive_batch`, each batch in a transaction of its own: the
   record's progress, activity and state read as for a pushed import, and a failure leaves the
   record failed with the reason as an error entry;
4. every event carries ``global_id`` = ``ics:<source>#<UID[@RECURRENCE-ID]>``: a re-run updates
   the events it made instead of adding copies. Events an earlier run made whose occurrence is in
   the window but no longer in the feed are reported as vanished, and moved to the trash only
   when asked (``remove_missing``) and when the parser left nothing out: an event it could not
   read, or that its budget or a cap cut, would look vanished too (a warning says so).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import net
from ..auth import users as user_store
from ..content import items as item_service
from ..content.items import Context, Item
from ..metrics import count_import
from . import ics_import, imports
from .events import trash
from .input import Resolved

MAX_FEED_BYTES = 20 * 1024 * 1024
BATCH_SIZE = 50
WINDOW_BACK = dt.timedelta(days=31)
WINDOW_AHEAD = dt.timedelta(days=366)


@dataclass
class FeedRun:
    """What a run did: its record, the events created, updated and skipped (ids), the events
    that could not be saved (global id -> reason), how many of the feed's events the parser left
    out (broken, repeated, over a cap or the budget: each named in its warnings), the parser's
    warnings, the vanished events (ids) and those moved to the trash."""

    record_id: int = 0
    state: str = ""
    created: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)
    left_out: int = 0
    warnings: list[str] = field(default_factory=list)
    vanished: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    error: str = ""


def feed_address(source: str) -> str:
    source = source.strip()
    return "https://" + source[len("webcal://"):] if source.lower().startswith("webcal://") else source


def is_address(source: str) -> bool:
    return feed_address(source).lower().startswith(("http://", "https://"))


def source_name(source: str) -> str:
    """How a source is named in records and global ids: the address, or the file's absolute path."""
    return feed_address(source) if is_address(source) else str(Path(source).resolve())


def read_feed(site: Any, source: str) -> bytes:
    """The feed's bytes: a file, or an address fetched through the site's guarded client.
    Raises OSError (a file) or :class:`calpress.net.OutboundError` (an address)."""
    if not is_address(source):
        path = Path(source)
        if path.stat().st_size > MAX_FEED_BYTES:
            raise OSError(f"{source} is larger than {MAX_FEED_BYTES:,} bytes, the most a feed may hold")
        return path.read_bytes()
    answer = site.http.get(feed_address(source), max_bytes=MAX_FEED_BYTES,
                           headers={"Accept": "text/calendar, text/plain;q=0.5, */*;q=0.1"})
    if answer.status != 200:
        raise net.OutboundError("bad_status", f"{source} answered HTTP {answer.status}")
    return answer.content


def run_feed_import(
    site: Any,
    source: str,
    *,
    author: int | None,
    post_status: str = imports.DEFAULT_POST_STATUS,
    window: tuple[dt.date, dt.date] | None = None,
    remove_missing: bool = False,
    schedule: Item | None = None,
    data: bytes | None = None,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[int, int], None] | None = None,
    now: dt.datetime | None = None,
) -> FeedRun:
    """Import the feed at ``source`` (``data`` when the caller read it already); see the module
    docstring. ``progress(done, total)`` is told the events handled so far after each batch."""
    now = now or dt.datetime.now(dt.UTC)
    name = source_name(source)
    ctx = Context.of(site, options=site.load_options())
    run = FeedRun()
    with site.write() as conn:
        record = imports.create_record(conn, ctx, origin="ics", source=name, post_status=post_status, author=author,
                                       parent=schedule.id if schedule is not None else 0)
        if schedule is not None:
            imports.mark_run(conn, ctx, schedule, now)
    run.record_id = record.id
    try:
        raw = data if data is not None else read_feed(site, source)
        local_today = now.astimezone(ctx.zone).date()
        start, end = window or (local_today - WINDOW_BACK, local_today + WINDOW_AHEAD)
        parsed = ics_import.parse_feed(raw, window_start=start, window_end=end,
                                       default_timezone=str(ctx.options.get("timezone_string") or "UTC"))
    except (OSError, net.OutboundError, ics_import.FeedError) as err:
        return _failed(site, ctx, record, run, "feed-unreadable", f"The feed could not be read: {err}")
    del raw  # the feed's text is not needed any more: only its events are kept
    run.warnings = list(parsed.warnings)
    run.left_out = parsed.skipped
    prefix = f"ics:{name}#"
    found = parsed.events
    batches = max(1, math.ceil(len(found) / batch_size))
    resolved: Resolved = {}  # the feed's venues, organizers and categories, each found once per run
    for number in range(batches):
        chunk = [{**event.data, "global_id": prefix + event.source_key}
                 for event in found[number * batch_size:(number + 1) * batch_size]]
        with site.write() as conn:
            current = imports.lock_record(conn, record.id)
            if current is None or current.status != imports.STATUSES["pending"]:
                run.error = "the import record was changed while the import ran"
                break
            result = imports.receive_batch(
                conn, ctx, current, chunk, done=number, total=batches, total_events=len(found),
                percentage=round(100 * (number + 1) / batches), resolved=resolved,
            )
        cal = result.activity.items["cal_events"]
        run.created += cal["created"]
        run.updated += cal["updated"]
        run.skipped += cal["skipped"]
        run.problems.update(result.activity.problems)
        if progress is not None:
            progress(min(len(found), (number + 1) * batch_size), len(found))
    seen = {prefix + event.source_key for event in found}
    del found, parsed
    with site.write() as conn:
        for global_id, item_id, status, starts in imports.imported_events(conn, prefix):
            if global_id in seen or status in ("trash", imports.IGNORED_STATUS) or not start <= starts.date() < end:
                continue
            run.vanished.append(item_id)
        if remove_missing and run.left_out and run.vanished:
            run.warnings.append(f"{len(run.vanished)} event(s) no longer found in the feed were not moved to the trash: "
                                f"{run.left_out} of the feed's events were not imported, and they may be among them.")
        elif remove_missing:
            acting = imports.acting_context(conn, ctx, record)
            for item in item_service.get_items(conn, run.vanished).values():
                trash(conn, acting, item)
                run.removed.append(item.id)
        final = imports.lock_record(conn, record.id)
    run.state = imports.record_state(final) if final is not None else ""
    count_import(site, "ics", len(run.created) + len(run.updated))
    return run


def _failed(site: Any, ctx: Context, record: Item, run: FeedRun, code: str, message: str) -> FeedRun:
    with site.write() as conn:
        current = imports.lock_record(conn, record.id)
        if current is not None:
            imports.receive_state(conn, ctx, current, "failed", message=message, message_slug=code, percentage=0)
    run.error = message
    run.state = "failed"
    return run


def run_due(site: Any, *, now: dt.datetime | None = None,
            progress_for: Callable[[Item], Callable[[int, int], None] | None] | None = None) -> list[tuple[Item, FeedRun]]:
    """Run every scheduled import whose time has come (``calpress import run-due``, for cron or a
    systemd timer), one after the other."""
    now = now or dt.datetime.now(dt.UTC)
    with site.read() as conn:
        due = imports.due_schedules(conn, now)
    done = []
    ctx = Context.of(site, options=site.load_options()) if due else None
    for listed in due:
        # Every machine of a fleet may run run-due at the same moment: a schedule is claimed
        # under its row lock, and one whose last run changed since it was listed ran elsewhere.
        with site.write() as conn:
            schedule = imports.lock_record(conn, listed.id)
            if schedule is None or schedule.meta.get(imports.LAST_RUN) != listed.meta.get(imports.LAST_RUN):
                continue
            schedule = imports.mark_run(conn, ctx, schedule, now)
        meta = schedule.meta
        run = run_feed_import(
            site, str(meta.get(imports.SOURCE) or ""), author=schedule.author or None,
            post_status=str(meta.get(imports.POST_STATUS) or imports.DEFAULT_POST_STATUS), schedule=schedule, now=now,
            progress=progress_for(schedule) if progress_for is not None else None,
        )
        done.append((schedule, run))
    return done


def first_administrator(site: Any) -> int | None:
    """The id of the site's first administrator (who imports act as when no user is named)."""
    with site.read() as conn:
        return user_store.first_with_role(conn, "administrator")
