"""SQLite checkpoints out of the writers' way.

In WAL mode every commit appends the pages it changed to the write-ahead log, and by default the
commit that takes the log past 1,000 pages also copies the log back into the database file and
syncs both files: a checkpoint, run inside that writer's transaction end, while every other
writer of the site waits for the lock. A post create appends about 24 pages, so with 16
writers one create in forty paid for a checkpoint (two fsyncs) in the writers' turn.

A site's process instead checkpoints from a thread of its own (``Checkpointer``), woken after
its commits and at most every ``PAUSE`` seconds, in SQLite's PASSIVE mode, which takes no lock
writers or readers wait for: writers keep appending while it copies. The connections of such a
site set ``wal_autocheckpoint`` to ``INLINE_PAGES`` instead of 1,000 (``db.create_engine``'s
``background_checkpoints``), so that a writer still checkpoints in line should the thread fall
that far behind (or a process without one write much).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

# Seconds between two checkpoints of a busy site, and the log's size (pages) past which a commit
# checkpoints in line all the same.
PAUSE = 0.05
INLINE_PAGES = 10_000


class Checkpointer:
    """The checkpointing thread of one SQLite database file in this process, started on the
    first ``nudge`` (after a fork, a worker starts its own)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._pid = 0
        self._closed = False

    def nudge(self) -> None:
        """A transaction committed: checkpoint soon."""
        if self._pid != os.getpid():
            with self._lock:
                if self._pid != os.getpid() and not self._closed:
                    self._wake = threading.Event()
                    threading.Thread(target=self._run, args=(self._wake,), name="calpress-sqlite-checkpoints", daemon=True).start()
                    self._pid = os.getpid()
        self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()

    def _run(self, wake: threading.Event) -> None:
        connection = None
        try:
            while not self._closed:
                wake.wait()
                if self._closed:
                    return
                time.sleep(PAUSE)  # let a burst of commits add to the log first
                wake.clear()
                try:
                    if connection is None:
                        connection = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
                        connection.execute("PRAGMA busy_timeout = 0")
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    if connection is not None:
                        connection.close()
                        connection = None
                    time.sleep(PAUSE)
        finally:
            if connection is not None:
                connection.close()
