"""Structured logging: one JSON object per line on stderr, quiet (warnings and up) by default.

Every line written while a request runs carries its ``request_id`` (``REQUEST_ID``, set by the
request layer of access_log.py), so that an error can be found next to the request's access line.
"""

from __future__ import annotations

import contextvars
import logging
import sys
import time
from typing import Any

import orjson

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("calpress_request_id", default=None)
"""The id of the request the current thread or task is serving (None outside a request)."""


_second: list[Any] = [None, ""]  # the last second formatted, and its text: one strftime a second


def utc_time(created: float) -> str:
    """ISO 8601 in UTC with milliseconds (2026-11-28T11:40:33.123Z)."""
    second = int(created)
    last = _second
    if last[0] != second:
        last[1] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        last[0] = second
    return f"{last[1]}.{int((created - second) * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": utc_time(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or REQUEST_ID.get()
        if request_id is not None:
            entry["request_id"] = request_id
        access = getattr(record, "access", None)
        if access is not None:  # an access line (access_log.py): its fields as they are
            entry.update(access)
        else:
            for key in ("method", "route", "status", "duration_ms"):
                value = getattr(record, key, None)
                if value is not None:
                    entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry).decode()


_configured = False


def configure(level: str = "warning") -> None:
    """Send calpress's logs to stderr as JSON lines at ``level`` (once per process)."""
    global _configured
    logger = logging.getLogger("calpress")
    logger.setLevel(getattr(logging, level.upper(), logging.WARNING))
    if _configured:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    logger.propagate = False
    _configured = True
