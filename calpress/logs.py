"""Structured logging: one JSON object per line on stderr, quiet (warnings and up) by default."""

from __future__ import annotations

import logging
import sys
import time

import orjson


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
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
