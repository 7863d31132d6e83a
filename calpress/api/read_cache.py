"""The stored data's version number, which the REST engine keys its answer cache by
(``RestServer.generation``; endpoints opt in with ``Endpoint(cache=True)``).

The content counter is bumped in the transaction of every item, term and option write, by any
process, so a cached answer is never used after a write, whichever worker made it. Reading it
is one primary-key lookup on the thread's query connection.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ..content import items as item_service
from ..store.fast import FastQuery
from ..store.options import CONTENT_GENERATION
from ..store.tables import counters

_GENERATION = FastQuery(sa.select(counters.c.value).where(counters.c.name == sa.bindparam("name")))


class ContentGeneration:
    """``generation(request)`` for one site: publishes what is due first (that is a write, and
    bumps the counter), then reads the counter. When the counter moved since this process last
    looked, the site's options cache is dropped, so that answers cached from now on are built
    with current options."""

    def __init__(self, site: Any) -> None:
        self.site = site
        self.seen: int | None = None

    def __call__(self, request: Any = None) -> int:
        item_service.publish_due_items(self.site)
        rows = self.site.query(_GENERATION, {"name": CONTENT_GENERATION})
        generation = int(rows[0][0]) if rows else 0
        if generation != self.seen:
            self.seen = generation
            self.site.forget_options()
        return generation
