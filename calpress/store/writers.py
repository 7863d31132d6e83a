"""The queue SQLite writers wait in, so that a writer starts the moment the previous one ends.

SQLite lets one transaction write at a time. A writer that finds the lock taken waits in
SQLite's busy handler, which sleeps and retries on a fixed schedule (1, 2, 5, 10, 15, 20, 25,
25, 25, 50, 50, 100 ms...): it does not learn when the lock is freed. Under load the lock is
mostly free while the waiters sleep. Measured with bench/workload.py (16 writers creating posts
on 2 workers), post creations waited up to 0.7 s at the 99th percentile, and the event lists of
the mixed workload queued behind request threads asleep in that handler.

Here, before ``BEGIN IMMEDIATE``, a writer first takes its process's lock (threads of one
process queue on it and wake as soon as it is released), then an ``flock`` on a file beside the
database (``<database>-writers``), which the writers of the other processes of the site poll
every fraction of a millisecond. So at most one writer per process waits on the file and none
sleeps past the release by more than ``_MAX_POLL`` seconds.

Neither lock can make anything fail or wait for ever: a writer that has not got one within the
busy timeout goes on without it, to ``BEGIN IMMEDIATE`` and SQLite's own busy handling, as
before this queue. A process that dies holding the file lock releases it (the kernel closes its
files). The lock file holds no data.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator

# The file lock is polled this often at first, backing off to _MAX_POLL between tries.
_FIRST_POLL = 0.0002
_MAX_POLL = 0.001

_queues: dict[tuple[int, str], WriterQueue] = {}
_queues_lock = threading.Lock()


class WriterQueue:
    """The writers of one SQLite database file in this process."""

    def __init__(self, database: str) -> None:
        self.path = database + "-writers"
        self._local = threading.Lock()
        self._fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    @contextlib.contextmanager
    def turn(self, timeout: float) -> Iterator[None]:
        """Hold the block as this site's only writer (or after ``timeout`` seconds of waiting,
        without the queue)."""
        deadline = time.monotonic() + timeout
        if not self._local.acquire(timeout=timeout):
            yield
            return
        try:
            locked = self._lock_file(deadline)
            try:
                yield
            finally:
                if locked:
                    fcntl.flock(self._file(), fcntl.LOCK_UN)
        finally:
            self._local.release()

    def _lock_file(self, deadline: float) -> bool:
        try:
            fd = self._file()
        except OSError:  # a read-only folder: SQLite will refuse the write anyway
            return False
        pause = _FIRST_POLL
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(pause)
                pause = min(pause * 2, _MAX_POLL)
            except OSError:
                return False


def writer_queue(database: str) -> WriterQueue:
    """The queue of the database file ``database`` in this process (a forked worker gets its
    own: an inherited file description would be one lock shared with the parent)."""
    key = (os.getpid(), os.path.abspath(database))
    found = _queues.get(key)
    if found is None:
        with _queues_lock:
            found = _queues.setdefault(key, WriterQueue(key[1]))
    return found
