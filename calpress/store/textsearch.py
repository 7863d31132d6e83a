"""Substring search: the one place that knows how each database searches text.

Every listing's ``search`` argument means what the reference's ``LIKE '%term%'`` means: the
term occurs in a column, ignoring case. Without help that reads every row, so migration 0005
gives each database an index for substrings and the conditions built here let it be used:

- SQLite: the FTS5 trigram table ``posts_search`` names the posts whose title, excerpt or
  content holds the term (case folded); the condition narrows to those rows and to the posts
  not indexed yet (``posts_search_pending``: new and changed texts are indexed 64 at a time,
  migration 0013), then keeps the LIKE test, so the answer is exactly the LIKE answer. Terms
  under three characters have no trigram and are tested by LIKE alone. SQLite's LIKE ignores
  ASCII case, as its ``lower()`` folds ASCII only: ``LIKE`` here equals ``lower(a) LIKE
  lower(b)`` and costs less.
- PostgreSQL: ``ILIKE``, which the trigram GIN indexes on the same three columns serve.

Where the index is missing (an SQLite without the trigram tokenizer, a PostgreSQL where
pg_trgm could not be installed), the same conditions scan: slower, same answers.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from .tables import posts

# The index objects migration 0005 makes (not declared in tables.py: they exist per database).
FTS_TABLE = "posts_search"
# The posts whose texts the index has yet to take (migration 0013 says when it takes them).
PENDING_TABLE = "posts_search_pending"
FTS_COLUMNS = {"title": posts.c.title, "excerpt": posts.c.excerpt, "content": posts.c.content}
TRIGRAM_INDEXES = tuple(f"ix_posts_{name}_trigram" for name in FTS_COLUMNS)
TRIGRAM = 3  # a term shorter than this has no trigram to look up

_fts_engines: weakref.WeakKeyDictionary[sa.Engine, bool] = weakref.WeakKeyDictionary()


def escape_like(text: str) -> str:
    """``text`` for a LIKE pattern that matches it literally (``\\`` escapes ``%`` and ``_``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like(dialect: str, column: Any, pattern: str) -> Any:
    """``column`` matches the LIKE ``pattern`` (escaped with ``\\``), ignoring case."""
    if dialect == "sqlite":
        return column.like(pattern, escape="\\")
    return column.ilike(pattern, escape="\\")


def contains(conn: sa.Connection, columns: Sequence[Any], term: str, *, whole: bool = False) -> Any:
    """Some column of ``columns`` holds ``term`` ignoring case (``whole``: equals it)."""
    dialect = conn.dialect.name
    pattern = escape_like(term) if whole else f"%{escape_like(term)}%"
    condition = sa.or_(*(like(dialect, column, pattern) for column in columns))
    if whole or dialect != "sqlite" or len(term) < TRIGRAM or not _fts_covers(columns) or not _has_fts(conn):
        return condition
    names = " ".join(name for name, indexed in FTS_COLUMNS.items() if any(column is indexed for column in columns))
    phrase = '"' + term.replace('"', '""') + '"'
    found = sa.select(sa.literal_column("rowid")).select_from(sa.table(FTS_TABLE)).where(
        sa.literal_column(FTS_TABLE).op("MATCH")(f"{{{names}}} : {phrase}")
    )
    pending = sa.select(sa.literal_column("id")).select_from(sa.table(PENDING_TABLE))
    return sa.and_(posts.c.id.in_(sa.union_all(found, pending)), condition)


def index_pending(conn: sa.Connection) -> int:
    """Index now the posts waiting for the full-text index (SQLite; migration 0013), as the 64th
    of them would: how many there were. For checks that compare the index with ``posts`` row by
    row (FTS5's integrity-check), which the posts not indexed yet would fail."""
    if conn.dialect.name != "sqlite" or not _has_fts(conn):
        return 0
    count = conn.exec_driver_sql(f"SELECT count(*) FROM {PENDING_TABLE}").scalar() or 0
    names = ", ".join(FTS_COLUMNS)
    texts = ", ".join(f"p.{name}" for name in FTS_COLUMNS)
    conn.exec_driver_sql(f"INSERT INTO {FTS_TABLE}(rowid, {names}) SELECT p.id, {texts} "
                         f"FROM {PENDING_TABLE} AS f CROSS JOIN posts AS p ON p.id = f.id")
    conn.exec_driver_sql(f"DELETE FROM {PENDING_TABLE}")
    return int(count)


def lacks(conn: sa.Connection, columns: Sequence[Any], term: str, *, whole: bool = False) -> Any:
    """No column of ``columns`` holds ``term`` ignoring case (``whole``: equals it)."""
    pattern = escape_like(term) if whole else f"%{escape_like(term)}%"
    return sa.and_(*(sa.not_(like(conn.dialect.name, column, pattern)) for column in columns))


def _fts_covers(columns: Sequence[Any]) -> bool:
    return bool(columns) and all(any(column is indexed for indexed in FTS_COLUMNS.values()) for column in columns)


def _has_fts(conn: sa.Connection) -> bool:
    """Whether this SQLite database has the trigram table: asked once per engine, on its first
    search (the site upgrades its database before it serves, so the answer holds)."""
    found = _fts_engines.get(conn.engine)
    if found is None:
        found = _fts_engines[conn.engine] = bool(
            conn.exec_driver_sql("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (FTS_TABLE,)).scalar()
        )
    return found
