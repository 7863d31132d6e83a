"""The rows of imports run in the background (the ``import_jobs`` table, migration 0010): made
when an import is asked for, moved on by the thread that runs it, read by whichever worker is
asked how it stands. Call these inside ``read_connection`` / ``write_transaction`` (Site.read()
and Site.write()). A job is not content: its writes record no change, so a progress report
never empties a cache.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from .tables import import_jobs

__all__ = ["ImportJob", "create_job", "get_job", "recent_jobs", "update_job"]

_COLUMNS = ("kind", "source", "user_id", "state", "done", "total", "result")


@dataclass(frozen=True)
class ImportJob:
    """One row: see tables.py for what each column holds."""

    id: int
    kind: str
    source: str
    user_id: int | None
    state: str
    done: int
    total: int
    created_utc: dt.datetime
    updated_utc: dt.datetime
    result: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Any) -> ImportJob:
        return cls(row.id, row.kind, row.source, row.user_id, row.state, int(row.done or 0), int(row.total or 0),
                   row.created_utc, row.updated_utc, dict(row.result or {}))


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def create_job(conn: sa.Connection, *, kind: str, source: str, user_id: int | None, state: str = "queued",
               total: int = 0, now: dt.datetime | None = None) -> ImportJob:
    """A new job row (``now``: naive UTC, default the current time)."""
    moment = now or _now()
    values = {"kind": kind, "source": source, "user_id": user_id, "state": state, "done": 0, "total": total,
              "result": {}, "created_utc": moment, "updated_utc": moment}
    job_id = conn.execute(sa.insert(import_jobs).values(**values).returning(import_jobs.c.id)).scalar_one()
    return ImportJob(job_id, kind, source, user_id, state, 0, total, moment, moment, {})


def update_job(conn: sa.Connection, job_id: int, *, now: dt.datetime | None = None, **values: Any) -> bool:
    """Change a job's ``state``, ``done``, ``total``, ``result`` or ``source`` (and its
    ``updated_utc``, always: a call with nothing else says the job is alive). False when there
    is no such job."""
    unknown = set(values) - set(_COLUMNS)
    if unknown:
        raise ValueError(f"not a job column: {', '.join(sorted(unknown))}")
    stmt = sa.update(import_jobs).where(import_jobs.c.id == job_id).values(updated_utc=now or _now(), **values)
    return bool(conn.execute(stmt).rowcount)


def get_job(conn: sa.Connection, job_id: int) -> ImportJob | None:
    row = conn.execute(sa.select(import_jobs).where(import_jobs.c.id == job_id)).first()
    return ImportJob.from_row(row) if row is not None else None


def recent_jobs(conn: sa.Connection, *, limit: int = 10) -> list[ImportJob]:
    """The newest jobs first."""
    rows = conn.execute(sa.select(import_jobs).order_by(import_jobs.c.id.desc()).limit(limit))
    return [ImportJob.from_row(row) for row in rows]
