"""``cal/event-aggregator/v1``: the import callbacks (calendar-api.md 8) and the site's imports.

``POST /import/{import_id}/batch`` and ``/state`` are called by an import service, server to
server: anyone may call them, and what guards them is the validation, as in the reference (the
import id must name a pending record, ``batch_hash`` must be the hash that record expects). Each
argument is checked by the reference's rule in its order; the arguments the reference checks only
with its type (``status`` of ``state``, ``message``, ``message_slug``) are checked after the others
pass, as its sanitising pass does. A batch of more events than the site asks the service for
(10, the reference's ``event_aggregator_event_batch_size``; :func:`calpress.calendar.imports.batch_size`)
is refused after those checks. The effects are :mod:`calpress.calendar.imports`'.

``GET /imports`` lists the import records and ``POST /imports`` schedules an iCalendar import
(``manage_options``: administrators); ``calpress import run-due`` runs the schedules.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..calendar import imports
from ..calendar.feed_import import feed_address
from ..compat.php import is_numeric, php_int
from ..content.items import Item
from ..media import attachments
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .base import Api
from .scope import context_of, scope_of

NAMESPACE = "cal-aggregator"
INTERVAL_OPTION = "cal_ea_batch_interval"  # the reference's event_aggregator_event_batch_interval filter
SIZE_OPTION = "cal_ea_batch_size"  # the reference's event_aggregator_event_batch_size filter (imports.batch_size)
MAX_IMAGES = 50  # images downloaded for one batch at most

def _accept(value: Any, request: RestRequest, name: str) -> bool:
    """No check of the reference's own: the type alone decides, in the sanitising pass."""
    return True


def _valid_import_id(value: Any, request: RestRequest, name: str) -> bool:
    api_site = scope_of(request).site
    with api_site.read() as conn:
        record = imports.record_by_import_id(conn, str(value)) if isinstance(value, str) else None
    scope_of(request).target = record
    return record is not None


def _expected_hash(value: Any, request: RestRequest, name: str) -> bool:
    target = scope_of(request).target
    return imports.hash_matches(target if isinstance(target, Item) else None, value)


def _valid_status_information(value: Any, request: RestRequest, name: str) -> bool:
    if not isinstance(value, dict):
        return False
    data, batch = value.get("data"), value.get("batch")
    if not isinstance(data, dict) or not isinstance(batch, dict):
        return False
    numbers = [data.get("total"), data.get("done"), batch.get("total"), batch.get("done")]
    if not all(is_numeric(n) for n in numbers):
        return False
    return php_int(data["done"]) <= php_int(data["total"]) and php_int(batch["done"]) <= php_int(batch["total"])


def _is_percentage(value: Any, request: RestRequest, name: str) -> bool:
    return is_numeric(value) and 0 <= php_int(value) <= 100


def _is_numeric_arg(value: Any, request: RestRequest, name: str) -> bool:
    return is_numeric(value)


def _feed_address(value: Any, request: RestRequest, name: str) -> bool | RestError:
    parts = urlsplit(feed_address(value)) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        return RestError("rest_invalid_url", f"{name} is not an http, https or webcal address.", status=400)
    return True


def _import_id_arg() -> dict[str, Any]:
    return {"required": True, "type": "string", "validate": _valid_import_id,
            "description": "The import unique ID as provided by Event Aggregator service"}


def _hash_arg() -> dict[str, Any]:
    return {"required": True, "type": "string", "validate": _expected_hash,
            "description": "The hash of the next expected batch, as previously provided by the client"}


def _percentage_arg() -> dict[str, Any]:
    return {"required": True, "type": "integer", "validate": _is_percentage, "description": "The percentage of import completed."}


def batch_args() -> dict[str, dict[str, Any]]:
    return {
        "import_id": _import_id_arg(),
        "batch_hash": _hash_arg(),
        "status": {"required": True, "type": "object", "validate": _valid_status_information,
                   "description": "The current status of the import."},
        "percentage_complete": _percentage_arg(),
        "interval": {"required": False, "type": "integer", "validate": _is_numeric_arg,
                     "description": "The current interval, in seconds, between the end of a batch process and the start of "
                                    "the next; as set on the server."},
    }


def state_args() -> dict[str, dict[str, Any]]:
    return {
        "import_id": _import_id_arg(),
        "batch_hash": _hash_arg(),
        "status": {"required": True, "type": "string", "enum": ["success", "failed", "pending"], "validate": _accept,
                   "description": "The new status of the import."},
        "message": {"required": True, "type": "string", "validate": _accept,
                    "description": "The new status message for the user, not localized."},
        "message_slug": {"required": True, "type": "string", "validate": _accept,
                         "description": "The new status message slug, to allow for localized messages."},
        "percentage_complete": _percentage_arg(),
    }


def _stale() -> RestError:
    """The record moved on between the checks and the write (a concurrent batch took its hash)."""
    return RestError("rest_invalid_param", "Invalid parameter(s): batch_hash", status=400,
                     params={"batch_hash": "Invalid parameter."}, details=[])


class AggregatorRoutes:
    def __init__(self, api: Api) -> None:
        self.site = api.site

    def routes(self) -> list[Route]:
        return [
            Route(NAMESPACE, r"/import/(?P<import_id>\w+)/batch", [Endpoint(("POST",), self.batch, args=batch_args())],
                  name="cal-aggregator.batch"),
            Route(NAMESPACE, r"/import/(?P<import_id>\w+)/state", [Endpoint(("POST",), self.state, args=state_args())],
                  name="cal-aggregator.state"),
            Route(NAMESPACE, "/imports", [
                Endpoint(("GET",), self.list_imports, self.manage_permission, args={
                    "status": {"description": "Limit the records to these states.", "type": "array",
                               "items": {"type": "string", "enum": list(imports.STATUSES)}},
                }),
                Endpoint(("POST",), self.schedule_import, self.manage_permission, args={
                    "source": {"description": "The address of the iCalendar feed to import (http, https or webcal).",
                               "type": "string", "format": "uri", "required": True, "validate": _feed_address,
                               "sanitize": lambda value, request, name: feed_address(str(value))},
                    "frequency": {"description": "Seconds between two runs; 0 runs the import once.", "type": "integer",
                                  "minimum": 0, "default": 86400},
                    "post_status": {"description": "The status of the events the import creates.", "type": "string",
                                    "enum": ["publish", "draft", "pending", "private"], "default": "publish"},
                }),
            ], name="cal-aggregator.imports"),
        ]

    # -- the callbacks ------------------------------------------------------------------------

    def _locked_record(self, conn: Any, request: RestRequest) -> Item:
        """The record the checks found, read again under a row lock in the write transaction,
        still pending and still expecting this hash."""
        target = scope_of(request).target
        record = imports.lock_record(conn, target.id) if isinstance(target, Item) else None
        if record is None or record.status != imports.STATUSES["pending"]:
            raise _stale()
        if not imports.hash_matches(record, request.get_param("batch_hash")):
            raise _stale()
        return record

    def batch(self, request: RestRequest) -> dict[str, Any]:
        """One batch of events. A batch larger than the site asks the service for
        (:func:`calpress.calendar.imports.batch_size`: 10 unless the ``cal_ea_batch_size`` option
        says otherwise, as the reference's filter) is refused after the reference's checks,
        before anything is fetched or written: 400 ``rest_invalid_param`` naming ``events``."""
        ctx = context_of(request)
        status = request.get_param("status")
        events = request.get_param("events")
        events = events if isinstance(events, list) else []
        cap = imports.batch_size(ctx.options.get(SIZE_OPTION, imports.BATCH_SIZE))
        if len(events) > cap:
            reason = f"A batch carries at most {cap} events; this one carries {len(events)}."
            raise RestError("rest_invalid_param", "Invalid parameter(s): events", status=400,
                            params={"events": reason}, details=[])
        # Images given by address are fetched before the transaction, through the guarded client.
        downloads: attachments.Downloads = {
            url: attachments.fetch(self.site.http, url) for url in imports.image_urls(events)[:MAX_IMAGES]
        }
        with self.site.write() as conn:
            record = self._locked_record(conn, request)
            result = imports.receive_batch(
                conn, ctx, record, events,
                done=php_int(status["batch"]["done"]), total=php_int(status["batch"]["total"]),
                total_events=php_int(status["data"]["total"]), percentage=request.get_param("percentage_complete"),
                images=downloads,
            )
        saved = result.activity.items.get("cal_events", {})
        if result.finished or saved.get("created") or saved.get("updated"):
            # An import counts once, on its last batch; its events as each batch saves them.
            metrics = self.site.metrics
            if metrics is not None:
                metrics.imported_batch("aggregator", len(saved.get("created", [])) + len(saved.get("updated", [])),
                                       finished=result.finished)
        answer: dict[str, Any] = {
            "status": "success",
            "activity": result.activity.items,
            "interval": imports.batch_interval(ctx.options.get(INTERVAL_OPTION, imports.INTERVAL_MIN)),
        }
        if result.next_hash is not None:
            answer["next_batch_hash"] = result.next_hash
        return answer

    def state(self, request: RestRequest) -> dict[str, Any]:
        ctx = context_of(request)
        with self.site.write() as conn:
            record = self._locked_record(conn, request)
            imports.receive_state(
                conn, ctx, record, str(request.get_param("status")), message=str(request.get_param("message")),
                message_slug=str(request.get_param("message_slug")), percentage=request.get_param("percentage_complete"),
            )
        return {"status": "success"}

    # -- the site's imports ---------------------------------------------------------------------

    def manage_permission(self, request: RestRequest) -> bool | RestError:
        if context_of(request).can("manage_options"):
            return True
        return forbidden("rest_forbidden", "Sorry, you are not allowed to manage imports.", request.user_id)

    def list_imports(self, request: RestRequest) -> RestResponse:
        with self.site.read() as conn:
            found = imports.records(conn, statuses=request.get_param("status") or None)
            shown = [record_data(conn, record) for record in found]
        return RestResponse(shown, headers={"X-WP-Total": str(len(shown)), "X-WP-TotalPages": "1"})

    def schedule_import(self, request: RestRequest) -> RestResponse:
        ctx = context_of(request)
        frequency = int(request.get_param("frequency") or 0)
        with self.site.write() as conn:
            record = imports.create_record(
                conn, ctx, origin="ics", source=str(request.get_param("source")), status="schedule",
                post_status=str(request.get_param("post_status")), frequency=frequency, author=request.user_id,
            )
            shown = record_data(conn, record)
        return RestResponse(shown, 201)


def record_data(conn: Any, record: Item) -> dict[str, Any]:
    """An import record as the imports route shows it."""
    meta = record.meta
    activity = meta.get(imports.ACTIVITY) or {}
    counts = {action: len((activity.get("cal_events") or {}).get(action) or []) for action in ("created", "updated", "skipped")}
    return {
        "id": record.id,
        "import_id": meta.get(imports.IMPORT_ID),
        "origin": meta.get(imports.ORIGIN),
        "source": meta.get(imports.SOURCE),
        "state": imports.record_state(record),
        "status": record.status,
        "post_status": meta.get(imports.POST_STATUS),
        "frequency": meta.get(imports.FREQUENCY),
        "last_run": meta.get(imports.LAST_RUN),
        "schedule": meta.get(imports.PARENT_SCHEDULE) or None,
        "percentage_complete": meta.get(imports.PERCENTAGE, 0),
        "total_events": meta.get(imports.TOTAL, 0),
        "events": counts,
        "errors": [{"code": code, "message": message} for code, message in imports.error_entries(conn, record)],
        "date_gmt": record.date_utc.isoformat(timespec="seconds") if record.date_utc else None,
    }


def routes(api: Api) -> list[Route]:
    return AggregatorRoutes(api).routes()
