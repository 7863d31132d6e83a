"""Tools > Import and Tools > Export, at WordPress's addresses (administrators: the ``import`` and
``export`` capabilities, as WordPress's import.php and export.php ask).

* ``import.php``: a WordPress export file (WXR) or an iCalendar file uploaded, or an iCalendar
  feed's address imported once now or on a schedule (every hour, day or week). The import runs in
  the background with the command line's importers (:mod:`.import_jobs`); the form's answer is a
  redirect to ``import.php?job=N``, which shows the job's progress (polling
  ``import.php?job=N&format=json`` with JavaScript, refreshing itself without) and at the end the
  lines the command line prints. Below the forms: the scheduled feeds (source, interval, last and
  next run, last result; "Run now" and "Delete") and the latest imports.
* ``export.php``: WordPress's export screen: all content or one type, downloaded as a WXR file
  (``<site>.WordPress.<date>.xml``) written by the command line's exporter while it is sent
  (:mod:`.export_stream`).

Scheduled feeds are listed and made through ``/cal/event-aggregator/v1/imports`` as the user (the
route asks ``manage_options``); running and deleting one, and the imports themselves, call the
domain as the command line does (no route imports a file). Nothing here runs due schedules:
``calpress import run-due`` does, from cron or a systemd timer.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any
from urllib.parse import urlsplit

import falcon
import orjson

from ..calendar import imports
from ..calendar.feed_import import MAX_FEED_BYTES, feed_address
from ..content import items as item_service
from ..store import import_jobs as job_store
from ..transfer.wxr_export import DEFAULT_TYPES, NoSiteAddress, site_address
from . import import_jobs
from .content import author_names
from .export_stream import export_chunks
from .media import size_label
from .shell import AdminRequest, Forbidden, Screen
from .values import number

__all__ = ["SCREENS", "ExportScreen", "ImportScreen"]

IMPORTS = "/cal/event-aggregator/v1/imports"
NO_IMPORT = "Sorry, you are not allowed to import content into this site."
NO_EXPORT = "Sorry, you are not allowed to export the content of this site."
NO_FEEDS = "Sorry, you are not allowed to manage imports."
NO_JOB = "That import does not exist. Perhaps it was started on another site?"
NO_SCHEDULE = "That scheduled import does not exist. Perhaps it was deleted?"
FILE_FIELD = "import"  # WordPress's upload field (wp_import_upload_form)
# How often a feed is imported: the form's choices, in seconds (None: once, now).
FREQUENCIES: dict[str, tuple[str, int | None]] = {
    "once": ("Once, now", None), "hourly": ("Every hour", 3600), "daily": ("Every day", 86400),
    "weekly": ("Every week", 7 * 86400),
}
# The statuses an import gives the events it creates (the imports route's choices).
POST_STATUSES = {"publish": "Published", "draft": "Draft", "pending": "Pending Review", "private": "Private"}
AUTHORS = {"create": "Create a user for each author of the file not found here (by login or email)",
           "skip": "Give their items to me"}
MESSAGES = {"deleted": "Scheduled import deleted."}
STATES = {"queued": "Waiting", "running": "Running", "success": "Done", "failed": "Failed",
          "stopped": "Stopped (the server restarted while it ran)"}
RECORD_STATES = {"success": "Done", "failed": "Failed", "pending": "Running", "draft": "Not started"}
# export.php's content choices (WordPress's "posts" and "pages", the other types by name). Menu
# entries go with "All content" only, as in the reference, whose screen lists no built-in type
# but posts, pages and media.
EXPORT_CHOICES = {{"post": "posts", "page": "pages"}.get(name, name): name for name in DEFAULT_TYPES
                  if name != "nav_menu_item"}


def _when(value: Any, zone: dt.tzinfo) -> dt.datetime | None:
    """An ISO instant (a schedule's last run) as an aware time, or None."""
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).astimezone(zone)


def _shown(moment: dt.datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment is not None else ""


def _interval(seconds: Any) -> str:
    seconds = number(seconds)
    for label, every in FREQUENCIES.values():
        if every == seconds:
            return label
    if seconds <= 0:
        return "Once"
    if seconds % 3600 == 0:
        return f"Every {seconds // 3600} hours"
    if seconds % 60 == 0:
        return f"Every {seconds // 60} minutes"
    return f"Every {seconds} seconds"


def _is_feed_address(address: str) -> bool:
    try:
        parts = urlsplit(feed_address(address))
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a broken address (an unclosed IPv6 bracket)
        return False


# -- import.php ---------------------------------------------------------------------------------


class ImportScreen(Screen):
    """``import.php``: the import forms, the scheduled feeds, one import's progress and result."""

    file = "import.php"
    capability = "import"
    refusal = NO_IMPORT

    def get(self, r: AdminRequest) -> None:
        job_id = number(r.param("job"))
        if r.param("job") and job_id > 0:
            if r.param("format") == "json":
                self._status(r, job_id)
            else:
                self._job(r, job_id)
            return
        for key, text in MESSAGES.items():
            if r.param(key):
                r.notice(text)
        self._show(r)

    def post(self, r: AdminRequest) -> None:
        limit = r.calpress.settings.max_upload
        if (r.req.content_length or 0) > limit:  # refused unread, with a reason (not an empty form's)
            r.notice(f"The file is larger than this site takes ({size_label(limit)} at most).", "error")
            self._show(r, status=413)
            return
        action = r.field("action")
        if action == "wxr":
            self._wxr(r)
        elif action == "ics":
            self._ics(r)
        elif action == "feed":
            self._feed(r)
        elif action in ("run-schedule", "delete-schedule"):
            self._schedule_action(r, action)
        else:
            r.notice("Choose what to import.", "error")
            self._show(r, status=400)

    # -- the page

    def _show(self, r: AdminRequest, *, errors: dict[str, str] | None = None, sent: dict[str, str] | None = None,
              status: int = 200) -> None:
        limit = r.calpress.settings.max_upload
        may_manage = r.can("manage_options")
        schedules = self._schedules(r) if may_manage else []
        r.render("admin/import.html", status, title="Import", errors=errors or {}, sent=sent or {},
                 max_label=size_label(limit), feed_max_label=size_label(min(limit, MAX_FEED_BYTES)),
                 may_manage=may_manage, schedules=schedules, jobs=self._recent(r), frequencies=FREQUENCIES,
                 post_statuses=POST_STATUSES, authors=AUTHORS,
                 nonces={name: r.nonce(f"import-{name}") for name in ("wxr", "ics", "feed")})

    def _schedules(self, r: AdminRequest) -> list[dict[str, Any]]:
        """The scheduled feeds, each with its last run's result (the newest record it made)."""
        answer = r.api.get(IMPORTS, status="schedule")
        if not answer.ok:
            r.notice(answer.message, "error")
            return []
        runs = r.api.get(IMPORTS, status="success,failed,pending")
        latest: dict[int, dict[str, Any]] = {}
        for record in runs.data if runs.ok and isinstance(runs.data, list) else []:
            parent = number(record.get("schedule"))
            if parent and parent not in latest:
                latest[parent] = record
        zone = r.ctx.zone
        now = dt.datetime.now(dt.UTC)
        shown = []
        for record in answer.data if isinstance(answer.data, list) else []:
            schedule_id = number(record.get("id"))
            last = _when(record.get("last_run"), zone) if record.get("last_run") else None
            frequency = number(record.get("frequency"))
            if last is None:
                upcoming = "Due now (never run)"
            elif frequency <= 0:
                upcoming = "Not again"
            else:
                when = last + dt.timedelta(seconds=frequency)
                upcoming = "Due now" if when <= now else _shown(when)
            shown.append({
                "id": schedule_id, "source": str(record.get("source") or ""), "interval": _interval(frequency),
                "last_run": _shown(last) or "Never", "next_run": upcoming,
                "result": self._record_result(latest.get(schedule_id)),
                "run_nonce": r.nonce(f"run-import_{schedule_id}"), "delete_nonce": r.nonce(f"delete-import_{schedule_id}"),
            })
        return shown

    @staticmethod
    def _record_result(record: dict[str, Any] | None) -> str:
        if record is None:
            return "—"
        state = str(record.get("state") or "")
        events = record.get("events") if isinstance(record.get("events"), dict) else {}
        if state == "failed":
            errors = record.get("errors") if isinstance(record.get("errors"), list) else []
            reason = next((str(e.get("message")) for e in errors if isinstance(e, dict) and e.get("message")), "")
            return f"Failed: {reason}" if reason else "Failed"
        if state == "pending":
            return f"Running ({number(record.get('percentage_complete'))}%)"
        return (f"{RECORD_STATES.get(state, state)}: {number(events.get('created'))} created, "
                f"{number(events.get('updated'))} updated, {number(events.get('skipped'))} skipped")

    @staticmethod
    def _recent(r: AdminRequest) -> list[dict[str, Any]]:
        with r.site.read() as conn:
            found = job_store.recent_jobs(conn, limit=10)
        names = author_names(r, [{"author": job.user_id} for job in found])
        zone = r.ctx.zone
        return [{
            "id": job.id, "kind": import_jobs.KINDS.get(job.kind, job.kind), "source": job.source,
            "by": names.get(job.user_id or 0, ""), "state": STATES.get(import_jobs.shown_state(job), job.state),
            "started": _shown(job.created_utc.replace(tzinfo=dt.UTC).astimezone(zone)),
            "url": r.url("import.php", job=job.id),
        } for job in found]

    # -- uploads

    @staticmethod
    def _upload(r: AdminRequest) -> Any:
        """The file sent, taken from the form so that it outlives the request (the import's
        thread closes it), or None when none was chosen."""
        sent = r.files.get(FILE_FIELD, [])
        upload = next((found for found in sent if found.filename or found.size), None)
        if upload is not None:
            sent.remove(upload)
        return upload

    def _refuse(self, r: AdminRequest, form: str, message: str, status: int = 400) -> None:
        r.notice(message, "error")
        sent = {name: r.field(name) for name in ("source", "frequency", "post_status", "authors")}
        sent["fetch_attachments"] = r.field("fetch_attachments")
        self._show(r, errors={form: message}, sent=sent, status=status)

    def _wxr(self, r: AdminRequest) -> None:
        r.verify("import-wxr")
        upload = self._upload(r)
        if upload is None or not upload.size:
            if upload is not None:
                upload.close()
            self._refuse(r, "wxr", "Choose a WordPress export file (.xml) to import; an empty file has nothing to import.")
            return
        authors = r.field("authors") if r.field("authors") in AUTHORS else "create"
        job = import_jobs.start_wxr(r.site, r.user.id, upload, authors=authors,
                                    fetch_attachments=r.field("fetch_attachments") == "1")
        r.redirect(r.url("import.php", job=job.id))

    def _ics(self, r: AdminRequest) -> None:
        r.verify("import-ics")
        upload = self._upload(r)
        if upload is None or not upload.size:
            if upload is not None:
                upload.close()
            self._refuse(r, "ics", "Choose an iCalendar file (.ics) to import; an empty file has nothing to import.")
            return
        if upload.size > MAX_FEED_BYTES:
            upload.close()
            self._refuse(r, "ics", f"An iCalendar file may hold {size_label(MAX_FEED_BYTES)} at most.", 413)
            return
        post_status = r.field("post_status") if r.field("post_status") in POST_STATUSES else imports.DEFAULT_POST_STATUS
        job = import_jobs.start_ics(r.site, r.user.id, upload, post_status=post_status)
        r.redirect(r.url("import.php", job=job.id))

    # -- feeds and schedules

    def _feed(self, r: AdminRequest) -> None:
        r.verify("import-feed")
        if not r.can("manage_options"):
            raise Forbidden(NO_FEEDS)
        address = r.field("source").strip()
        if not _is_feed_address(address):
            self._refuse(r, "feed", "Give the feed's address: http://, https:// or webcal://.")
            return
        post_status = r.field("post_status") if r.field("post_status") in POST_STATUSES else imports.DEFAULT_POST_STATUS
        _, every = FREQUENCIES.get(r.field("frequency"), FREQUENCIES["once"])
        if every is None:
            job = import_jobs.start_feed(r.site, r.user.id, address, post_status=post_status)
            r.redirect(r.url("import.php", job=job.id))
        answer = r.api.post(IMPORTS, {"source": address, "frequency": every, "post_status": post_status})
        if not answer.ok or not isinstance(answer.data, dict):
            self._refuse(r, "feed", answer.field_errors.get("source") or answer.message,
                         answer.status if 400 <= answer.status < 500 else 400)
            return
        # The first run starts now (as the command line's run-due would run a schedule that never ran).
        job = import_jobs.start_schedule(r.site, r.user.id, self._schedule(r, number(answer.data.get("id"))))
        r.redirect(r.url("import.php", job=job.id))

    @staticmethod
    def _schedule(r: AdminRequest, schedule_id: int) -> Any:
        with r.site.read() as conn:
            found = item_service.get_item(conn, schedule_id) if schedule_id > 0 else None
        if found is None or found.type != imports.RECORD_TYPE or found.status != imports.STATUSES["schedule"]:
            raise Forbidden(NO_SCHEDULE, 404)
        return found

    def _schedule_action(self, r: AdminRequest, action: str) -> None:
        schedule_id = number(r.field("schedule"))
        verb = "run" if action == "run-schedule" else "delete"
        r.verify(f"{verb}-import_{schedule_id}")
        if not r.can("manage_options"):
            raise Forbidden(NO_FEEDS)
        schedule = self._schedule(r, schedule_id)
        if verb == "run":
            # A run of the same feed that has not ended yet is followed, not doubled: two runs at
            # once would both look for, and both create, the same events.
            running = self._running(r, str(schedule.meta.get(imports.SOURCE) or ""))
            job = running or import_jobs.start_schedule(r.site, r.user.id, schedule)
            r.redirect(r.url("import.php", job=job.id))
        with r.site.write() as conn:
            current = imports.lock_record(conn, schedule.id)
            if current is not None and current.status == imports.STATUSES["schedule"]:
                item_service.delete_item(conn, r.ctx, current)
        r.redirect(r.url("import.php", deleted=1))

    @staticmethod
    def _running(r: AdminRequest, source: str) -> job_store.ImportJob | None:
        """A feed import of ``source`` that has not ended (among the latest)."""
        with r.site.read() as conn:
            found = job_store.recent_jobs(conn, limit=50)
        return next((job for job in found if job.kind in ("feed", "schedule") and job.source == source
                     and not import_jobs.is_finished(job)), None)

    # -- one import

    @staticmethod
    def _load(r: AdminRequest, job_id: int) -> job_store.ImportJob | None:
        with r.site.read() as conn:
            return job_store.get_job(conn, job_id)

    @staticmethod
    def _progress(job: job_store.ImportJob, state: str) -> dict[str, Any]:
        percent = min(100, job.done * 100 // job.total) if job.total > 0 else None
        if state == "queued":
            message = "Waiting for another import to finish."
        elif state == "running":  # a feed says it is being read until its first events are in
            message = f"Importing. {percent}% done." if percent is not None else import_jobs.stage_of(job) or "Importing."
        else:
            message = STATES.get(state, state) + "."
        return {"id": job.id, "state": state, "finished": state not in import_jobs.ACTIVE, "done": job.done,
                "total": job.total, "percent": percent, "message": message}

    def _status(self, r: AdminRequest, job_id: int) -> None:
        """``import.php?job=N&format=json``: how the job stands, for the page's script."""
        job = self._load(r, job_id)
        resp = r.resp
        resp.content_type = "application/json; charset=UTF-8"
        resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
        resp.set_header("X-Content-Type-Options", "nosniff")
        if job is None:
            resp.status = falcon.HTTP_404
            resp.data = orjson.dumps({"code": "import_not_found", "message": NO_JOB, "data": {"status": 404}})
            return
        resp.data = orjson.dumps(self._progress(job, import_jobs.shown_state(job)))

    def _job(self, r: AdminRequest, job_id: int) -> None:
        job = self._load(r, job_id)
        if job is None:
            raise Forbidden(NO_JOB, 404, "Import")
        state = import_jobs.shown_state(job)
        progress = self._progress(job, state)
        lines = import_jobs.result_lines(job)
        closing = next((line for line in reversed(lines) if line.kind in ("success", "error")), None)
        if state == "stopped":
            r.notice("The import stopped before it ended: the server restarted while it ran. What it imported "
                     "stays; importing the same file or feed again adds only what is missing.", "error")
        elif closing is not None:
            r.notice(closing.text, "success" if closing.kind == "success" else "error")
        record = job.result.get("record") if isinstance(job.result, dict) else None
        r.render("admin/import.html", title="Import", job={
            "id": job.id, "kind": import_jobs.KINDS.get(job.kind, job.kind), "source": job.source,
            "state": state, "state_label": STATES.get(state, state), "progress": progress,
            "lines": [line for line in lines if line is not closing], "record": number(record),
            "status_url": r.url("import.php", job=job.id, format="json"), "url": r.url("import.php", job=job.id),
            "events_url": r.url("edit.php", post_type="cal_events") if job.kind != "wxr" else "",
        })


# -- export.php ---------------------------------------------------------------------------------


def export_file_name(site_name: str, today: dt.date) -> str:
    """WordPress's ``<site>.WordPress.<date>.xml``: the site's name as sanitize_key leaves it
    (lower case letters, digits, ``_`` and ``-``), then the date (UTC)."""
    key = re.sub(r"[^a-z0-9_\-]", "", html.unescape(site_name).lower())
    return f"{key + '.' if key else ''}WordPress.{today.isoformat()}.xml"


class ExportScreen(Screen):
    """``export.php``: choose what to export; ``download=true`` sends the file."""

    file = "export.php"
    capability = "export"
    refusal = NO_EXPORT

    def get(self, r: AdminRequest) -> None:
        if r.param("download"):
            self._download(r)
            return
        self._show(r)

    def _show(self, r: AdminRequest, status: int = 200, chosen: str = "all") -> None:
        registry = r.ctx.registry
        choices = [(value, registry.types[name].label if name in registry.types else name)
                   for value, name in EXPORT_CHOICES.items()]
        r.render("admin/export.html", status, title="Export", choices=choices,
                 chosen=chosen if chosen in EXPORT_CHOICES or chosen == "all" else "all")

    def _download(self, r: AdminRequest) -> None:
        content = r.param("content") or "all"
        if content != "all" and content not in EXPORT_CHOICES:
            r.notice("Choose what to export.", "error")
            self._show(r, 400)
            return
        try:
            site_address(r.site, fallback=r.origin)  # refused before the download starts
        except NoSiteAddress as err:
            r.notice(f"{err.reason}. Set the Site Address (URL) under Settings > General first.", "error")
            self._show(r, 400, content)
            return
        types = list(DEFAULT_TYPES) if content == "all" else [EXPORT_CHOICES[content]]
        resp = r.resp
        resp.status = falcon.HTTP_200
        resp.content_type = "text/xml; charset=UTF-8"
        resp.downloadable_as = export_file_name(str(r.site.load_options().get("blogname") or ""),
                                                dt.datetime.now(dt.UTC).date())
        resp.set_header("Content-Description", "File Transfer")
        resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
        resp.set_header("X-Content-Type-Options", "nosniff")
        resp.set_header("X-Frame-Options", "DENY")
        resp.stream = export_chunks(r.site, types, fallback_address=r.origin)


SCREENS: list[Screen] = [ImportScreen(), ExportScreen()]
