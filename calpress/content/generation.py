"""The stored content's version number, which the REST engine keys its answer cache by
(``RestServer.generation``; endpoints opt in with ``Endpoint(cache=True)``).

The number is the content counter that every write records itself into
(:mod:`calpress.store.changes`), by any process, so a cached answer is never used after a write,
whichever worker made it. Reading it is one primary-key lookup on the thread's query connection.
"""

from __future__ import annotations

from typing import Any

from ..store.changes import CHANGES_SINCE, GENERATION_QUERY
from .items import publish_due_items


class ContentGeneration:
    """``generation(request)`` for one site: publishes what is due first (that is a write, and
    moves the counter), then reads the counter. When the counter moved since this process last
    looked, the site's options cache is dropped, so that answers cached from now on are built
    with current options, and the site's memo forgets what the writes since changed."""

    def __init__(self, site: Any) -> None:
        self.site = site
        self.seen: int | None = None

    def __call__(self, request: Any = None) -> int:
        publish_due_items(self.site)
        rows = self.site.query(GENERATION_QUERY)
        generation = int(rows[0][0]) if rows else 0
        if generation != self.seen:
            self.seen = generation
            self.site.forget_options()
        self.site.memo.catch_up(generation, self._steps)
        return generation

    def _steps(self, since: int, upto: int) -> list[Any]:
        return self.site.query(CHANGES_SINCE, {"since": since, "upto": upto})
