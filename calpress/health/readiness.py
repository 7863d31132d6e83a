"""Readiness: whether this process can do its work now, for a load balancer's probe (``/readyz``,
pages/probes.py) and for ``calpress doctor``'s uploads check.

Two parts, each answered with None (ready) or a sentence for the operator:

- ``database``: the database answers and is at the newest migration this code knows. One short
  read of Alembic's version table on a pooled connection, given back at once; nothing is
  written, and a SQLite file that is not there is not created. A database a newer calpress
  migrated (a revision this code does not know) counts as ready, as ``background_updates``
  calls it "recommended": during a rolling upgrade the nodes still on the old code keep serving.
- ``uploads``: the file storage can take a file now (``Storage.write_problem``: a file made and
  removed at once in the uploads folder; a HEAD of the bucket, kept a few seconds, for S3).

The sentences name folders, hosts and driver errors: they go to the log and the doctor, never
into the public probe's answer, which only names the failing part.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from ..store import db as store_db
from .checks import CRITICAL, GOOD, PERFORMANCE, CheckResult, _first_line, _p

if TYPE_CHECKING:
    from ..media.storage import Storage
    from ..site import Site

#: The parts of readiness, in the order the probe lists them.
PARTS = ("database", "uploads")


def _missing_sqlite_file(engine: sa.Engine) -> Path | None:
    """The file of a SQLite database that is not there (connecting would create it empty)."""
    url = engine.url
    if url.get_backend_name() != "sqlite":
        return None
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:") or url.query.get("mode") == "memory":
        return None
    path = Path(database)
    return None if path.is_file() else path


def database_problem(engine: sa.Engine) -> str | None:
    """None when the database answers at the newest migration (or a newer one), else why not."""
    missing = _missing_sqlite_file(engine)
    if missing is not None:
        return f"the database file {missing} does not exist"
    try:
        current = store_db.current_revision(engine)
    except sa.exc.SQLAlchemyError as error:
        return f"the database could not be reached: {_first_line(error)}"
    head = store_db.head_revision()
    if current is None:
        return "the database was never migrated (run `calpress db upgrade`)"
    if current != head and store_db.is_known_revision(current):
        return f"the database is at migration {current}, behind the newest, {head} (run `calpress db upgrade`)"
    return None


def uploads_problem(storage: Storage) -> str | None:
    """None when the file storage can take a file now, else why not."""
    try:
        return storage.write_problem()
    except Exception as error:  # a back end's defect must read as "not ready", not as a 500
        return f"the file storage could not be checked: {error}"


def check_readiness(site: Site) -> dict[str, str | None]:
    """Every part of readiness: its problem, or None when it is ready."""
    return {"database": database_problem(site.engine), "uploads": uploads_problem(site.storage)}


def uploads_check(storage: Storage) -> CheckResult:
    """The doctor's check of the file storage (no reference test has it: WordPress reports its
    uploads folder's writability in the debug data, not as a test)."""
    description = _p(
        "Uploaded images and files are kept in the site's file storage: the uploads folder, or an S3-compatible "
        "bucket when <code>CALPRESS_S3_BUCKET</code> is set."
    )
    problem = uploads_problem(storage)
    if problem is None:
        return CheckResult("uploads", "Uploaded files can be stored", GOOD, PERFORMANCE, description)
    return CheckResult(
        "uploads", "Uploaded files cannot be stored", CRITICAL, PERFORMANCE,
        description + _p(f"The check found that {html.escape(problem)}."), fix=storage.write_fix(),
    )
