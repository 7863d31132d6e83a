"""The stored content's version number, which the REST engine keys its answer cache by
(``RestServer.generation``; endpoints opt in with ``Endpoint(cache=True)``).

The number is the content counter that every write records itself into
(:mod:`calpress.store.changes`), by any process, so a cached answer is never used after a write,
whichever worker made it. Reading it is one primary-key lookup on the thread's query connection.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ..store.changes import (
    CHANGES_SINCE,
    EVERYTHING,
    GENERATION_AND_CHANGES,
    GENERATION_AND_CHANGES_VERSIONED,
    GENERATION_QUERY,
    GENERATION_QUERY_VERSIONED,
    touched_kinds,
)
from ..store.db import is_sqlite
from ..store.memo import MAX_STEPS
from .items import publish_due_items


class ContentGeneration:
    """``generation(request)`` for one site: publishes what is due first (that is a write, and
    moves the counter), then reads the counter. When the counter moved since this process last
    looked, the site's memo forgets what the writes since changed, and when one of them changed
    an option (the log's steps say which, store/changes.py), the site's options cache is
    dropped, so that answers cached from now on are built with current options."""

    def __init__(self, site: Any) -> None:
        self.site = site
        self.seen: int | None = None
        self.versioned = is_sqlite(site.engine)
        # Per thread, on SQLite: ((connection serial, data_version), counter) as last read on
        # the thread's own query connection.
        self._read = threading.local()

    def __call__(self, request: Any = None) -> int:
        publish_due_items(self.site)
        memo = self.site.memo
        since = memo.steps_since()
        versioned = self.versioned
        own_connection = not self.site.in_transaction()
        if since is None:
            since = self.seen  # the options' steps, read with the counter when there are any
        if since is None:
            rows = self.site.query(GENERATION_QUERY_VERSIONED if versioned else GENERATION_QUERY)
            steps = self._steps
        else:
            # The steps the memo (or the options) missed come with the counter, in one round trip.
            query = GENERATION_AND_CHANGES_VERSIONED if versioned else GENERATION_AND_CHANGES
            rows = self.site.query(query, {"since": since, "window": MAX_STEPS})
            read = [(row[1], row[2]) for row in rows if row[1] is not None]

            def steps(after: int, upto: int) -> list[Any]:
                if after != since:  # another thread moved the memo meanwhile
                    return self._steps(after, upto)
                return [row for row in read if row[0] <= upto]

        generation = int(rows[0][0]) if rows else 0
        seen = self.seen
        if generation != seen:
            # The options are read again only when a step since names them (or everything), not
            # after every write: a listing read after each write loaded them each time.
            if seen is None or generation < seen or _options_may_differ(steps(seen, generation), generation - seen):
                self.site.forget_options()
            self.seen = generation
        memo.catch_up(generation, steps)
        if versioned and own_connection and rows:
            # read on this thread's query connection (Site.query outside blocks): its serial too
            self._read.last = ((self.site.fast_connection_serial(), rows[0][-1]), generation)
        return generation

    def unchanged(self) -> int | None:
        """On SQLite, the counter as this thread last read it on its own connection when no
        connection has committed since (one ``PRAGMA data_version``, after publishing what is
        due); None when it must be read (``__call__``). For the front's copies (front.py)."""
        last = getattr(self._read, "last", None)
        if last is None:
            return None
        publish_due_items(self.site)
        version = self.site.data_version()
        return last[1] if version is not None and version == last[0] else None

    def _steps(self, since: int, upto: int) -> list[Any]:
        return self.site.query(CHANGES_SINCE, {"since": since, "upto": upto})


def _options_may_differ(steps: Sequence[Any], expected: int) -> bool:
    """Whether the log's ``steps`` (``expected`` of them, in a row) may have changed an option:
    one names options or everything, cannot be read, or some are missing (pruned, or read before
    they committed)."""
    if len(steps) != expected:
        return True
    for _, touched in steps:
        if _OPTION_KIND not in touched and EVERYTHING not in touched:
            continue  # the text names neither, so its kinds cannot be them: no need to decode it
        kinds = touched_kinds(touched)
        if kinds is None or "option" in kinds or EVERYTHING in kinds:
            return True
    return False


_OPTION_KIND = '"option"'

