"""What a process built from stored records (a representation, say), kept until one of those
records changes, in this process or any other.

Each entry names the records it was built from (``depends``: ``("item", 5)``, ``("term", 3)``;
``("term_count", 3)`` when it shows the term's count, which moves apart from the term).
The content counter (store/changes.py) moves with every write, and its log says which records
each step changed; before a request uses the memo, :meth:`Memo.catch_up` reads the steps it
missed and drops the entries built from those records, and nothing else. A step that names no
records, a kind of record entries do not name (options, users, comments), or a log that no
longer holds every missed step drops everything.

Entries are only taken and given at the counter value the memo has caught up to. A request
that read the counter before another thread caught up further builds its answer without the
memo; an entry built from rows read after the counter moved is dropped when the memo reaches
that step, since the step names the same records. So no entry outlives a write of a record it
was built from.

Besides entries, a caller may set hints (:meth:`Memo.hint`): notes on what its entries covered
last time, which choose how it reads next time and are never taken as data (the event list notes
the pages whose events were all remembered). They go when everything goes.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from .changes import TERM_COUNT, touched_kinds

# The kinds of record an entry may depend on; a step touching any other kind drops everything.
DEPENDABLE = ("item", "term", TERM_COUNT)
# Steps are read in one statement; a gap longer than this drops everything instead.
MAX_STEPS = 512


class Memo:
    """Values built from stored records, kept while those records are unchanged (at most
    ``limit`` of them; 0 keeps none)."""

    # Told of each lookup whether it hit, when set (metrics.py, with metrics on).
    observe: Callable[[bool], None] | None = None

    def __init__(self, limit: int = 2048) -> None:
        self.limit = limit
        self.generation: int | None = None
        self._lock = threading.Lock()
        self._entries: dict[Hashable, Any] = {}
        self._dependents: dict[tuple[str, int | str], set[Hashable]] = {}
        self._hints: dict[Hashable, None] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every entry (the next requests build everything again)."""
        with self._lock:
            self._forget_all()

    def steps_since(self) -> int | None:
        """The counter value after which :meth:`catch_up` will want the log's steps, or None
        when it will want none (nothing is kept that a step could drop), so that the caller can
        read them with the counter."""
        if self.generation is None or not self._entries:
            return None
        return self.generation

    def catch_up(self, generation: int, steps: Callable[[int, int], Sequence[Any]]) -> None:
        """Drop what the steps up to ``generation`` changed. ``steps(since, upto)`` reads the log's
        rows (generation, touched) after ``since`` up to ``upto``."""
        if generation == self.generation:
            return
        with self._lock:
            current = self.generation
            if current is not None and generation <= current:
                return  # a request that read the counter earlier: it goes without the memo
            if current is None or not self._entries:
                self._forget_all()
            elif generation - current > MAX_STEPS:
                self._forget_all()
            else:
                found = steps(current, generation)
                if len(found) != generation - current:  # pruned, or read before it committed
                    self._forget_all()
                else:
                    for _, touched in found:
                        self._apply(touched)
            self.generation = generation

    def get(self, key: Hashable, generation: int | None) -> Any:
        """The entry for ``key`` if the memo is at ``generation``, else None."""
        value = None if generation is None or generation != self.generation else self._entries.get(key)
        if self.observe is not None:
            self.observe(value is not None)
        return value

    def put(self, key: Hashable, generation: int | None, value: Any, depends: Iterable[tuple[str, int | str]]) -> None:
        """Keep ``value``, built from records ``depends`` while the counter was ``generation``
        (nothing is kept when the memo has moved on meanwhile)."""
        if generation is None or self.limit <= 0:
            return
        with self._lock:
            if generation != self.generation:
                return
            if len(self._dependents) >= 4 * self.limit:
                self._forget_all()
            elif len(self._entries) >= self.limit:
                # The oldest quarter goes (entries keep their order of arrival); the index may
                # still name them, which only ever drops a key that is gone already.
                for old in list(itertools.islice(self._entries, max(1, self.limit // 4))):
                    del self._entries[old]
            self._entries[key] = value
            for record in depends:
                self._dependents.setdefault(record, set()).add(key)

    def hinted(self, key: Hashable) -> bool:
        """Whether hint ``key`` is set: a caller's note about what its entries covered (which
        listing pages had every entry), to choose how to read next time. Hints are not
        entries (not counted, nor observed) and are forgotten with everything."""
        return key in self._hints

    def hint(self, key: Hashable, on: bool) -> None:
        """Set or clear hint ``key`` (at most ``limit`` are set; past that they start over)."""
        with self._lock:
            if not on:
                self._hints.pop(key, None)
                return
            if len(self._hints) >= max(self.limit, 1):
                self._hints.clear()
            self._hints[key] = None

    def _apply(self, touched: str) -> None:
        kinds = touched_kinds(touched)
        if kinds is None or any(kind not in DEPENDABLE for kind in kinds):
            self._forget_all()
            return
        for kind, ids in kinds.items():
            for record_id in ids:
                for key in self._dependents.pop((kind, record_id), ()):
                    self._entries.pop(key, None)

    def _forget_all(self) -> None:
        self._entries.clear()
        self._dependents.clear()
        self._hints.clear()
