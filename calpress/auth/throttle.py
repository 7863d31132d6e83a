"""The password-guessing throttle: failed logins counted per user name and per client address,
and attempts refused while either count is full.

The reference has no such throttle, so it is off unless ``CALPRESS_LOGIN_MAX_FAILURES`` is above
0; while it is off nothing here touches the database. When on, the counts live in the
``login_failures`` table, shared by every worker process:

- A key (``user:<login or e-mail as sent, lower-cased>``, ``addr:<client address>``) is locked
  while it holds ``login_max_failures`` failures or more in a window that started less than
  ``login_lockout`` seconds ago. A failure after its window ended starts a new window of one.
- A locked attempt is refused before any password is checked (a right guess fails too) and is
  not counted: the counts cannot grow during a lockout.
- A success clears the user's count only; clearing the address's too would let a guesser reset
  it by logging into an account of their own between guesses.

Each failure is one ``INSERT ... ON CONFLICT DO UPDATE`` per key, so failures that workers record
at the same moment are all counted on both databases. Rows of windows long over are deleted
now and then (``PURGE_EVERY``) so the table stays small.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from ..rest.errors import RestError
from ..store.tables import login_failures

MAX_KEY_LENGTH = 200  # the key column's length; longer keys are stored as a hash
PURGE_EVERY = 60.0  # seconds (per process) between two deletions of rows whose window is long over

_upserts: dict[str, Any] = {}


def utcnow() -> dt.datetime:
    """The current time, naive UTC as the tables hold it. Tests replace it to move time on."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _key(kind: str, value: str) -> str:
    key = f"{kind}:{value}"
    if len(key) <= MAX_KEY_LENGTH:
        return key
    return f"{kind}#sha256:{hashlib.sha256(value.encode('utf-8', 'surrogatepass')).hexdigest()}"


def user_key(login: str) -> str:
    """The key of a user name or e-mail address as sent (unknown ones count too)."""
    return _key("user", login.strip().lower())


def address_key(remote_addr: str) -> str:
    return _key("addr", remote_addr.strip().lower())


def retry_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return f"Too many failed login attempts. Please try again in {minutes} minute{'s' if minutes != 1 else ''}."


def too_many_retries(seconds: int) -> RestError:
    return RestError("too_many_retries", retry_message(seconds), status=429)


# -- on a connection ------------------------------------------------------------------------------


def lockout_left(
    conn: sa.Connection, keys: Iterable[str], *, max_failures: int, lockout: int, now: dt.datetime
) -> tuple[int, frozenset[str]]:
    """(seconds until none of ``keys`` is locked, rounded up; 0 when none is) and the keys that
    have a row, in one query."""
    rows = conn.execute(
        sa.select(login_failures.c.key, login_failures.c.count, login_failures.c.window_start_utc).where(
            login_failures.c.key.in_(list(keys))
        )
    ).all()
    left = 0.0
    for row in rows:
        remaining = (row.window_start_utc + dt.timedelta(seconds=lockout) - now).total_seconds()
        if row.count >= max_failures and remaining > 0:
            left = max(left, remaining)
    return math.ceil(left), frozenset(row.key for row in rows)


def _upsert(dialect_name: str) -> Any:
    """One failure of ``:key`` at ``:now``: a new row, a new window when the row's ended at or
    before ``:cutoff``, else one more in the current window. Built once per dialect."""
    stmt = _upserts.get(dialect_name)
    if stmt is None:
        insert = sqlite.insert if dialect_name == "sqlite" else postgresql.insert
        base = insert(login_failures).values(
            key=sa.bindparam("key"), count=1, window_start_utc=sa.bindparam("now", type_=sa.DateTime())
        )
        expired = login_failures.c.window_start_utc <= sa.bindparam("cutoff", type_=sa.DateTime())
        # Both SET expressions read the row as it was before this statement.
        stmt = _upserts[dialect_name] = base.on_conflict_do_update(
            index_elements=[login_failures.c.key],
            set_={
                "count": sa.case((expired, 1), else_=login_failures.c.count + 1),
                "window_start_utc": sa.case((expired, base.excluded.window_start_utc), else_=login_failures.c.window_start_utc),
            },
        )
    return stmt


def record_failure(conn: sa.Connection, keys: Iterable[str], *, lockout: int, now: dt.datetime) -> None:
    """Count one failure for each of ``keys`` (in a fixed order, so that two transactions never
    wait on each other's rows crosswise)."""
    stmt = _upsert(conn.dialect.name)
    cutoff = now - dt.timedelta(seconds=lockout)
    for key in sorted(set(keys)):
        conn.execute(stmt, {"key": key, "now": now, "cutoff": cutoff})


def clear(conn: sa.Connection, keys: Iterable[str]) -> None:
    conn.execute(sa.delete(login_failures).where(login_failures.c.key.in_(list(keys))))


def purge(conn: sa.Connection, *, lockout: int, now: dt.datetime) -> int:
    """Delete the rows whose window ended more than ``lockout`` seconds ago (they lock nothing,
    and the margin keeps this off rows a failure is starting a new window in); returns how many."""
    cutoff = now - dt.timedelta(seconds=2 * lockout)
    return conn.execute(sa.delete(login_failures).where(login_failures.c.window_start_utc < cutoff)).rowcount


# -- for the authenticators -----------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """A login attempt as the throttle saw it before the password was checked."""

    user_key: str = ""
    address_key: str = ""
    retry_after: int = 0  # seconds the attempt must wait (refused) or 0
    user_has_failures: bool = False  # the user key has a row, which a success deletes

    @property
    def counted(self) -> bool:
        return bool(self.user_key)


NOT_COUNTED = Attempt()


class LoginThrottle:
    """The throttle of one site (one per app): ``check`` before the password, then ``failed`` or
    ``succeeded``."""

    def __init__(self, site: Any) -> None:
        self.site = site
        self._next_purge = 0.0
        self.on_failure: Callable[[], None] | None = None

    @property
    def max_failures(self) -> int:
        return self.site.settings.login_max_failures

    @property
    def lockout(self) -> int:
        return self.site.settings.login_lockout

    @property
    def enabled(self) -> bool:
        return self.max_failures > 0

    def check(self, login: str, remote_addr: str) -> Attempt:
        """The attempt to log in as ``login`` from ``remote_addr``; refuse it when its
        ``retry_after`` is not 0. Reads nothing while the throttle is off."""
        if not self.enabled:
            return NOT_COUNTED
        user, address = user_key(login), address_key(remote_addr)
        with self.site.read() as conn:
            left, found = lockout_left(
                conn, (user, address), max_failures=self.max_failures, lockout=self.lockout, now=utcnow()
            )
        return Attempt(user, address, left, user in found)

    def failed(self, attempt: Attempt) -> None:
        """A wrong password or unknown user: one more failure for the user and the address."""
        if self.on_failure is not None:  # metrics.py counts every failure, the throttle on or off
            self.on_failure()
        if not attempt.counted:
            return
        now = utcnow()
        with self.site.write() as conn:
            record_failure(conn, (attempt.user_key, attempt.address_key), lockout=self.lockout, now=now)
        if time.monotonic() >= self._next_purge:
            self._next_purge = time.monotonic() + PURGE_EVERY
            # A transaction of its own: the rows it deletes are not locked while others are held.
            with self.site.write() as conn:
                purge(conn, lockout=self.lockout, now=now)

    def succeeded(self, attempt: Attempt) -> None:
        """The right password: the user's failures are forgotten (the address's are kept). Writes
        only when the user has failures on record."""
        if attempt.counted and attempt.user_has_failures:
            with self.site.write() as conn:
                clear(conn, (attempt.user_key,))
