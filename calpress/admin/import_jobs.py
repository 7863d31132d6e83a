"""Imports started from Tools > Import, run outside the request by a thread of the worker that
took it, with the command line's importers (``calpress import wxr``, ``calpress import ics``,
``calpress import run-due``).

The request stores the job (a row of ``import_jobs``: store/import_jobs.py) and starts the thread;
the page that follows the job (``import.php?job=N``) reads that row, so any worker process can
answer it. The thread reports how far it got at most every :data:`REPORT_SECONDS` and, at the
end, the lines the command line prints (warnings, counts, the closing ``Success:`` or
``Error:``). At most :data:`RUNNING_AT_ONCE` imports run at once in a process; the others wait
their turn (``queued``), saying now and then that they are still waiting.

A job whose row has not moved for :data:`STALE_AFTER` while queued or running belongs to a
process that ended (a restart, a crash): it is shown as stopped (:func:`shown_state`), and what
it imported before stays (running the import again adds only what is missing, as the command
line's do).

An uploaded file reaches the thread as the form parser spooled it: in memory up to 1 MB, in a
temporary file on disk beyond (rest/multipart.py); the WXR reader reads it a slice at a time,
the iCalendar parser takes the whole text (at most ``feed_import.MAX_FEED_BYTES``, as for the
command line).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from ..calendar import feed_import, imports
from ..content.items import Item
from ..store import import_jobs as job_store
from ..store.import_jobs import ImportJob
from ..transfer.reports import Line, Outcome, feed_lines, wxr_lines

__all__ = ["ACTIVE", "KINDS", "STALE_AFTER", "Reporter", "file_name", "is_finished", "result_lines", "shown_state",
           "stage_of", "start_feed", "start_ics", "start_schedule", "start_wxr"]

log = logging.getLogger("calpress.admin.import_jobs")

RUNNING_AT_ONCE = 2  # imports one process runs at the same time; the others wait their turn
REPORT_SECONDS = 0.5  # the least time between two progress reports of a job
HEARTBEAT_SECONDS = 30.0  # a waiting job says it still waits this often
STALE_AFTER = dt.timedelta(minutes=15)
MAX_WARNINGS = 500  # warnings kept in a job's result; the rest are counted
KINDS = {"wxr": "WordPress export file", "ics": "iCalendar file", "feed": "iCalendar feed",
         "schedule": "Scheduled iCalendar feed"}
ACTIVE = ("queued", "running")

_slots = threading.BoundedSemaphore(RUNNING_AT_ONCE)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def shown_state(job: ImportJob, now: dt.datetime | None = None) -> str:
    """The job's state, or ``stopped`` for one whose process ended before it did."""
    if job.state in ACTIVE and (now or _utcnow()) - job.updated_utc > STALE_AFTER:
        return "stopped"
    return job.state


def is_finished(job: ImportJob, now: dt.datetime | None = None) -> bool:
    return shown_state(job, now) not in ACTIVE


# -- the lines the command line prints ------------------------------------------------------------


# -- progress ---------------------------------------------------------------------------------------


class Reporter:
    """A job's progress as the importer reports it, written to its row at most every
    REPORT_SECONDS. A report that cannot be written is logged and the import goes on."""

    def __init__(self, site: Any, job_id: int, total: int = 0) -> None:
        self.site = site
        self.job_id = job_id
        self.done = 0
        self.total = total
        self._last = 0.0

    def bytes_read(self, done: int) -> None:
        """The WXR reader's callback: bytes of the file read so far."""
        self.progress(done, self.total)

    def progress(self, done: int, total: int) -> None:
        """A feed run's callback: events handled of the feed's total."""
        self.done, self.total = max(0, int(done)), max(0, int(total))
        now = time.monotonic()
        if now - self._last >= REPORT_SECONDS:
            self._last = now
            self.write(done=self.done, total=self.total)

    def write(self, **values: Any) -> None:
        try:
            with self.site.write() as conn:
                job_store.update_job(conn, self.job_id, **values)
        except Exception:  # the import matters more than its progress bar
            log.exception("could not write the progress of import job %s", self.job_id)

    def stage(self, text: str, state: str = "running") -> None:
        self.write(state=state, result={"stage": text})


# -- starting and running -------------------------------------------------------------------------


Work = Callable[[Reporter], Outcome]


def _create(site: Any, kind: str, source: str, user_id: int, total: int = 0) -> ImportJob:
    with site.write() as conn:
        return job_store.create_job(conn, kind=kind, source=source, user_id=user_id, total=total)


def _create_owning(site: Any, upload: Any, kind: str, source: str, user_id: int, total: int = 0) -> ImportJob:
    """:func:`_create` for a job that owns ``upload``: the file is closed if the job cannot be made."""
    try:
        return _create(site, kind, source, user_id, total)
    except BaseException:
        upload.close()
        raise


def _start(site: Any, job: ImportJob, work: Work, cleanup: Callable[[], None] | None = None) -> ImportJob:
    """Run ``work`` in a thread of its own; ``cleanup`` runs when it ends, whatever happens."""
    thread = threading.Thread(target=_run, args=(site, job, work, cleanup), name=f"calpress-import-{job.id}", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # no thread to be had: the job ends at once, and says why
        if cleanup is not None:
            cleanup()
        Reporter(site, job.id).write(state="failed", result=_result(Outcome("failed", [
            Line("error", "Error: The server could not start the import now; try again in a moment.")])))
    return job


def _run(site: Any, job: ImportJob, work: Work, cleanup: Callable[[], None] | None) -> None:
    reporter = Reporter(site, job.id, job.total)
    outcome = Outcome("failed", [Line("error", "Error: The import was stopped before it ended.")])
    try:
        reporter.stage("Waiting for another import to finish.", "queued")
        while not _slots.acquire(timeout=HEARTBEAT_SECONDS):
            reporter.write()  # still waiting, not stopped
        try:
            reporter.stage("Importing.")
            try:
                outcome = work(reporter)
            except Exception:
                log.exception("import job %s (%s %s) stopped", job.id, job.kind, job.source)
                outcome = Outcome("failed", [Line("error", "Error: The import stopped on an unexpected error (the "
                                                           "server's log has the details). What was imported before "
                                                           "it stays; running it again adds only what is missing.")])
        finally:
            _slots.release()
    finally:
        if cleanup is not None:
            cleanup()
    done = max(reporter.done, reporter.total) if outcome.state == "success" else reporter.done
    reporter.write(state=outcome.state, done=done, total=reporter.total, result=_result(outcome))


def _result(outcome: Outcome) -> dict[str, Any]:
    result: dict[str, Any] = {"lines": [{"kind": line.kind, "text": line.text} for line in outcome.lines]}
    if outcome.record_id:
        result["record"] = outcome.record_id
    return result


def result_lines(job: ImportJob) -> list[Line]:
    """The lines a finished job stored."""
    found = job.result.get("lines") if isinstance(job.result, dict) else None
    return [Line(str(entry.get("kind") or "info"), str(entry.get("text") or ""))
            for entry in (found if isinstance(found, list) else []) if isinstance(entry, dict)]


def stage_of(job: ImportJob) -> str:
    stage = job.result.get("stage") if isinstance(job.result, dict) else None
    return str(stage) if stage else ""


# -- the kinds of import ----------------------------------------------------------------------------


def file_name(name: str, default: str) -> str:
    """An uploaded file's name as shown and recorded: its last path part, without control
    characters, at most 200 characters (``default`` when nothing is left)."""
    name = re.split(r"[\\/]", name or "")[-1]
    name = re.sub(r"[\x00-\x1f\x7f]", "", name).strip()[:200]
    return default if name in ("", ".", "..") else name


def start_wxr(site: Any, user_id: int, upload: Any, *, authors: str, fetch_attachments: bool) -> ImportJob:
    """Import an uploaded WordPress export file (``upload``: a rest.multipart.UploadedFile the
    job now owns and closes) as ``calpress import wxr`` does."""
    from ..transfer.wxr_import import import_wxr

    name = file_name(upload.filename, "export.xml")
    job = _create_owning(site, upload, "wxr", name, user_id, upload.size)

    def work(reporter: Reporter) -> Outcome:
        upload.file.seek(0)
        summary = import_wxr(site, upload.file, user_id=user_id, authors=authors, fetch_attachments=fetch_attachments,
                             source=name, progress=reporter.bytes_read)
        return wxr_lines(summary, name, limit=MAX_WARNINGS)

    return _start(site, job, work, upload.close)


def start_ics(site: Any, user_id: int, upload: Any, *, post_status: str) -> ImportJob:
    """Import an uploaded iCalendar file as ``calpress import ics <file>`` does. Its events are
    known by the file's name (``/uploads/<name>`` in their import ids), so uploading a newer copy
    of the same file updates them instead of adding copies."""
    name = file_name(upload.filename, "calendar.ics")
    job = _create_owning(site, upload, "ics", name, user_id)

    def work(reporter: Reporter) -> Outcome:
        data = upload.read(feed_import.MAX_FEED_BYTES + 1)
        upload.close()
        if len(data) > feed_import.MAX_FEED_BYTES:
            return Outcome("failed", [Line("error", f"Error: {name} is larger than {feed_import.MAX_FEED_BYTES:,} bytes, "
                                                    "the most a feed may hold.")])
        run = feed_import.run_feed_import(site, f"/uploads/{name}", author=user_id, post_status=post_status, data=data,
                                          progress=reporter.progress)
        return feed_lines(run, name, limit=MAX_WARNINGS)

    return _start(site, job, work, upload.close)


def start_feed(site: Any, user_id: int, address: str, *, post_status: str) -> ImportJob:
    """Fetch and import a feed once, as ``calpress import ics <address>`` does."""
    source = feed_import.feed_address(address)
    job = _create(site, "feed", source, user_id)

    def work(reporter: Reporter) -> Outcome:
        reporter.stage("Reading the feed.")
        run = feed_import.run_feed_import(site, source, author=user_id, post_status=post_status,
                                          progress=reporter.progress)
        return feed_lines(run, address, limit=MAX_WARNINGS)

    return _start(site, job, work)


def start_schedule(site: Any, user_id: int, schedule: Item) -> ImportJob:
    """Run a scheduled import now, as ``calpress import run-due`` runs a due one (its last run
    moves to now)."""
    source = str(schedule.meta.get(imports.SOURCE) or "")
    job = _create(site, "schedule", source, user_id)

    def work(reporter: Reporter) -> Outcome:
        reporter.stage("Reading the feed.")
        run = feed_import.run_feed_import(
            site, source, author=schedule.author or None,
            post_status=str(schedule.meta.get(imports.POST_STATUS) or imports.DEFAULT_POST_STATUS), schedule=schedule,
            progress=reporter.progress)
        return feed_lines(run, source, limit=MAX_WARNINGS)

    return _start(site, job, work)
