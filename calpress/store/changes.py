"""The one call every write of stored content goes through: ``record(conn, kind, action, *ids)``.

Items, terms, comments, users and options record each write here, inside the write's own
transaction. Today a record does two things:

* it bumps the ``content`` counter, by which every worker keys its answer cache and its cached
  listing totals: the bump commits with the write, so a write made by any process is seen by
  all of them at once (reading the counter is one primary-key lookup). Inside ``Site.write()``
  (:func:`one_bump`) a transaction bumps it once, when it ends, however many writes it
  recorded: an import's batch of fifty events is one bump, not a hundred, and PostgreSQL writers
  hold the counter's row lock only from that moment to their commit. A read of the counter
  inside such a transaction settles the bump first (:func:`settle`), so it sees its own writes.
  The bump logs, in the same statement, which records the transaction changed (the ``changes``
  table, migration 0009): every process reads the steps it missed and forgets only what it built
  from those records (store/memo.py);
* it remembers the change on the transaction's connection; ``Site.write()`` hands the changes
  of a committed transaction to the site's listeners (the options cache listens today; webhooks
  will hang here later).

Nothing else bumps the counter, and nothing writes content without recording it: a test greps
for stray counter updates.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

import sqlalchemy as sa

from .fast import FastQuery
from .tables import changes as changes_table
from .tables import counters, terms

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
# Term ids -> how much their counts go up with the transaction's bump (owe_term_count).
_COUNTS_OWED = "calpress_counts_owed"


def record(conn: sa.Connection, kind: Kind, action: str, *ids: int | str) -> None:
    """Record a write of ``kind`` (``create``, ``update``, ``trash``, ``delete``, ``publish``...)
    in the caller's transaction."""
    conn.info.setdefault(_PENDING, []).append(Change(kind, action, tuple(ids)))
    if conn.info.get(_ONE_BUMP):
        conn.info[_OWED] = True
    else:
        _bump(conn, CONTENT_GENERATION)


@contextlib.contextmanager
def one_bump(conn: sa.Connection) -> Iterator[None]:
    """Within the block (a whole write transaction), the writes recorded bump the counter once,
    at the block's end, in the transaction; nothing is bumped when the block raises (the
    transaction rolls back anyway)."""
    conn.info[_ONE_BUMP] = True
    try:
        yield
        settle(conn, last=True)
    finally:
        conn.info.pop(_ONE_BUMP, None)
        conn.info.pop(_OWED, None)
        conn.info.pop(_COUNTS_OWED, None)


def counts_wait_for_bump(conn: sa.Connection) -> bool:
    """Whether a term count may be left to the counter's bump (:func:`owe_term_count`): on
    PostgreSQL inside :func:`one_bump`, outside savepoints."""
    return conn.dialect.name == "postgresql" and bool(conn.info.get(_ONE_BUMP)) and not conn.in_nested_transaction()


def owe_term_count(conn: sa.Connection, term_id: int) -> None:
    """Leave ``term_id``'s count one up to the counter's bump, which raises it in the same
    statement; only where :func:`counts_wait_for_bump` says so. A count's UPDATE locks the term's row until the commit: the default
    category of every new post, counted when the post was linked to it, held each post's
    creation in line behind the previous one's from that moment to its commit; counted with the
    bump, only from there, as the counter's own row does already. A read of the count inside the
    transaction, another change of it, or a savepoint (store/db.py) pays what is owed first
    (:func:`pay_term_counts`)."""
    if not counts_wait_for_bump(conn):
        raise RuntimeError("a term count waits for the bump only where counts_wait_for_bump says so")
    owed: dict[int, int] = conn.info.setdefault(_COUNTS_OWED, {})
    owed[term_id] = owed.get(term_id, 0) + 1
    conn.info[_OWED] = True


def settle(conn: sa.Connection, *, last: bool = False) -> None:
    """Bump the counter now if a write of this transaction still owes it. Inside a savepoint the
    debt stays, as the savepoint may roll the bump back: the transaction's end bumps again.
    ``last``: nothing else runs in the transaction, which on PostgreSQL commits in the bump's
    round trip (FastQuery.rows_and_commit)."""
    if conn.info.get(_OWED):
        _bump(conn, CONTENT_GENERATION, commit=last)
        if not conn.in_nested_transaction():
            conn.info.pop(_OWED, None)


def take(conn: sa.Connection) -> list[Change]:
    """The changes recorded on ``conn`` since the last ``take`` (and forget them): the pooled
    connection outlives the transaction, so its writer takes them when the transaction ends."""
    return conn.info.pop(_PENDING, [])


def _bump(conn: sa.Connection, name: str, *, commit: bool = False) -> None:
    """Move the counter one step and log what the transaction changed so far, in one statement
    (migration 0009 says how); every CHANGES_KEPT steps, the log's oldest steps go."""
    touched = touched_text(conn.info.get(_PENDING, ()))
    params: dict[str, object] = {"touched": touched}
    statement = _BUMP_POSTGRESQL if conn.dialect.name == "postgresql" else _BUMP_SQLITE
    owed = conn.info.get(_COUNTS_OWED)
    if owed and not conn.in_nested_transaction():  # inside a savepoint they wait for the outer bump
        conn.info.pop(_COUNTS_OWED)
        ids = sorted(owed)
        statement = _COUNT_AND_BUMP_POSTGRESQL
        params.update(ids=ids, steps=[owed[i] for i in ids])
    rows = statement.rows_and_commit(conn, params) if commit else statement.rows(conn, params)
    generation = rows[0][0] if rows else None
    # (Committed on PostgreSQL with ``commit``: what follows runs in a transaction of its own,
    # which the caller's end commits.)
    if generation is None:  # no counter row (a database made without the first migration's)
        conn.execute(sa.insert(counters).values(name=name, value=1))
        conn.execute(sa.insert(changes_table).values(generation=1, touched=touched))
    elif generation % CHANGES_KEPT == 0:
        conn.execute(_PRUNE, {"oldest": generation - CHANGES_KEPT})


# How many steps of the log are kept: a process that missed more forgets everything it built.
CHANGES_KEPT = 1024
# A write's touched records past this many are logged as "everything".
_TOUCHED_MAX = 2000
EVERYTHING = "*"
# The log's name for the changed counts of terms (``record(conn, "term", "count", ...)``).
TERM_COUNT = "term_count"

def pay_term_counts(conn: sa.Connection) -> None:
    """Raise now the term counts this transaction owes (:func:`owe_term_count`): before a count
    is read, counted again or raised otherwise within the transaction."""
    owed = conn.info.pop(_COUNTS_OWED, None)
    if owed:
        ids = sorted(owed)
        conn.execute(_PAY_COUNTS, {"ids": ids, "steps": [owed[i] for i in ids]})


_OWED_STEPS = (f"UPDATE {terms.name} SET count = {terms.name}.count + owed.step "
               "FROM unnest(CAST(:ids AS bigint[]), CAST(:steps AS bigint[])) AS owed(id, step) "
               f"WHERE {terms.name}.id = owed.id")
_PAY_COUNTS = sa.text(_OWED_STEPS)


# The bumps run on the driver (FastQuery), as one of them ends every write transaction.
_BUMP_SQLITE = FastQuery(sa.text(
    "INSERT INTO changes (generation, touched) SELECT value + 1, :touched FROM counters WHERE name = 'content' "
    "RETURNING generation"
).columns(changes_table.c.generation))
_BUMP_POSTGRESQL = FastQuery(sa.text(
    "WITH moved AS (UPDATE counters SET value = value + 1 WHERE name = 'content' RETURNING value) "
    "INSERT INTO changes (generation, touched) SELECT value, :touched FROM moved RETURNING generation"
).columns(changes_table.c.generation))
_PRUNE = sa.delete(changes_table).where(changes_table.c.generation <= sa.bindparam("oldest"))
# _BUMP_POSTGRESQL with the term counts owed raised first (the terms' rows then the counter's, the
# order every transaction locks them in: counts are raised before the bump, never after).
_COUNT_AND_BUMP_POSTGRESQL = FastQuery(sa.text(
    f"WITH counted AS ({_OWED_STEPS} RETURNING 1), "
    "moved AS (UPDATE counters SET value = value + 1 WHERE name = 'content' RETURNING value) "
    "INSERT INTO changes (generation, touched) SELECT value, :touched FROM moved RETURNING generation"
).columns(changes_table.c.generation))


def touched_text(recorded: Iterable[Change]) -> str:
    """The log's ``touched`` for these changes: kind -> ids, or everything when a change did not
    name its records (a bulk import) or they are too many to list."""
    kinds: dict[str, set[int | str]] = {}
    for change in recorded:
        if not change.ids:
            return _EVERYTHING_TEXT
        # A term's count is logged apart from the term: what shows a term's id or name does
        # not change when another item joins it.
        kind = TERM_COUNT if change.kind == "term" and change.action == "count" else change.kind
        kinds.setdefault(kind, set()).update(change.ids)
    if sum(len(ids) for ids in kinds.values()) > _TOUCHED_MAX:
        return _EVERYTHING_TEXT
    return _compact({kind: sorted(ids, key=str) for kind, ids in kinds.items()})


def touched_kinds(touched: str) -> dict[str, list[int | str]] | None:
    """What a log step's ``touched`` text names (kind -> ids, ``{EVERYTHING: 1}`` for
    everything): the reading of :func:`touched_text`; None when it cannot be read."""
    try:
        kinds = json.loads(touched)
    except ValueError:
        return None
    return kinds if isinstance(kinds, dict) else None


_EVERYTHING_TEXT = json.dumps({EVERYTHING: 1})
# json.dumps with separators builds an encoder on every call (a third of this function's time).
_compact = json.JSONEncoder(separators=(",", ":")).encode


# The counter's read compiled once, for the hot path: ``Site.query(GENERATION_QUERY)`` runs it on
# the thread's own connection (its one row holds the value).
GENERATION_QUERY = FastQuery(sa.select(counters.c.value).where(counters.c.name == CONTENT_GENERATION))


def read_generation(conn: sa.Connection) -> int:
    """The content counter's current value (this transaction's writes counted)."""
    settle(conn)
    rows = GENERATION_QUERY.rows(conn)
    return int(rows[0][0] or 0) if rows else 0

# The counter and, in the same round trip, the log's steps after ``since`` (at most ``window`` of
# them, the newest): one row per step, in order, each carrying the counter's value; a single row
# whose step columns are NULL when there are none.
GENERATION_AND_CHANGES = FastQuery(
    sa.select(counters.c.value, changes_table.c.generation, changes_table.c.touched)
    .select_from(
        counters.outerjoin(
            changes_table,
            sa.and_(
                changes_table.c.generation > sa.bindparam("since", type_=changes_table.c.generation.type),
                changes_table.c.generation <= counters.c.value,
                changes_table.c.generation > counters.c.value - sa.bindparam("window", type_=changes_table.c.generation.type),
            ),
        )
    )
    .where(counters.c.name == CONTENT_GENERATION)
    .order_by(changes_table.c.generation)
)

# SQLite: the same two reads with the connection's data_version as their last column, a number
# that changes whenever another connection commits (content/generation.py's probe compares it).
_DATA_VERSION = sa.literal_column("(SELECT data_version FROM pragma_data_version())").label("data_version")
GENERATION_QUERY_VERSIONED = FastQuery(sa.select(counters.c.value, _DATA_VERSION).where(counters.c.name == CONTENT_GENERATION))
GENERATION_AND_CHANGES_VERSIONED = FastQuery(GENERATION_AND_CHANGES.statement.add_columns(_DATA_VERSION))

# The log's steps after ``since`` up to ``upto``, in order (store/memo.py reads them).
CHANGES_SINCE = FastQuery(
    sa.select(changes_table.c.generation, changes_table.c.touched)
    .where(changes_table.c.generation > sa.bindparam("since", type_=changes_table.c.generation.type),
           changes_table.c.generation <= sa.bindparam("upto", type_=changes_table.c.generation.type))
    .order_by(changes_table.c.generation)
)
