"""The one call every write of stored content goes through: ``record(conn, kind, action, *ids)``.

Items, terms, comments, users and options record each write here, inside the write's own
transaction. Today a record does two things:

* it bumps the ``content`` counter, by which every worker keys its answer cache and its cached
  listing totals: the bump commits with the write, so a write made by any process is seen by
  all of them at once (reading the counter is one primary-key lookup). Inside ``Site.write()``
  (:func:`one_bump`) a transaction bumps it once, when it ends, however many writes it
  recorded: an import's batch of fifty events is one bump, not a hundred, and PostgreSQL writers
  hold the counter's row lock only from that moment to their commit. A read of the counter
  inside such a transaction settles the bump first (:func:`settle`), so it sees its own writes;
* it remembers the change on the transaction's connection; ``Site.write()`` hands the changes
  of a committed transaction to the site's listeners (the options cache listens today; webhooks
  will hang here later).

Nothing else bumps the counter, and nothing writes content without recording it: a test greps
for stray counter updates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import sqlalchemy as sa

from .fast import FastQuery
from .tables import counters

Kind = Literal["item", "term", "comment", "user", "option"]
KINDS: tuple[Kind, ...] = ("item", "term", "comment", "user", "option")

# The counter every content write bumps (its row is created by the first migration).
CONTENT_GENERATION = "content"
# Where the changes of the connection's current transaction wait for Site.write() to take them.
_PENDING = "calpress_changes"


@dataclass(frozen=True)
class Change:
    """One recorded write: what kind of record, what happened to it, and which ones (ids, or
    names for options)."""

    kind: Kind
    action: str
    ids: tuple[int | str, ...] = ()


# Set on a connection while ``one_bump`` holds its transaction; the other marks a bump owed.
_ONE_BUMP = "calpress_one_bump"
_OWED = "calpress_bump_owed"


def record(conn: sa.Connection, kind: Kind, action: str, *ids: int | str) -> None:
    """Record a write of ``kind`` (``create``, ``update``, ``trash``, ``delete``, ``publish``...)
    in the caller's transaction."""
    if conn.info.get(_ONE_BUMP):
        conn.info[_OWED] = True
    else:
        _bump(conn, CONTENT_GENERATION)
    conn.info.setdefault(_PENDING, []).append(Change(kind, action, tuple(ids)))


@contextlib.contextmanager
def one_bump(conn: sa.Connection) -> Iterator[None]:
    """Within the block (a whole write transaction), the writes recorded bump the counter once,
    at the block's end, in the transaction; nothing is bumped when the block raises (the
    transaction rolls back anyway)."""
    conn.info[_ONE_BUMP] = True
    try:
        yield
        settle(conn)
    finally:
        conn.info.pop(_ONE_BUMP, None)
        conn.info.pop(_OWED, None)


def settle(conn: sa.Connection) -> None:
    """Bump the counter now if a write of this transaction still owes it. Inside a savepoint the
    debt stays, as the savepoint may roll the bump back: the transaction's end bumps again."""
    if conn.info.get(_OWED):
        _bump(conn, CONTENT_GENERATION)
        if not conn.in_nested_transaction():
            conn.info.pop(_OWED, None)


def take(conn: sa.Connection) -> list[Change]:
    """The changes recorded on ``conn`` since the last ``take`` (and forget them): the pooled
    connection outlives the transaction, so its writer takes them when the transaction ends."""
    return conn.info.pop(_PENDING, [])


def _bump(conn: sa.Connection, name: str) -> None:
    changed = conn.execute(sa.update(counters).where(counters.c.name == name).values(value=counters.c.value + 1)).rowcount
    if not changed:
        conn.execute(sa.insert(counters).values(name=name, value=1))


def read_generation(conn: sa.Connection) -> int:
    """The content counter's current value (this transaction's writes counted)."""
    settle(conn)
    value = conn.execute(sa.select(counters.c.value).where(counters.c.name == CONTENT_GENERATION)).scalar()
    return int(value or 0)


# The same read compiled once, for the hot path: ``Site.query(GENERATION_QUERY)`` runs it on the
# thread's own connection (its one row holds the value).
GENERATION_QUERY = FastQuery(sa.select(counters.c.value).where(counters.c.name == CONTENT_GENERATION))
