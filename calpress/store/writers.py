"""The queue SQLite writers wait in, so that a writer starts the moment the previous one ends.

SQLite lets one transaction write at a time. A writer that finds the lock taken waits in
SQLite's busy handler, which sleeps and retries on a fixed schedule (1, 2, 5, 10, 15, 20, 25,
25, 25, 50, 50, 100 ms...): it does not learn when the lock is freed. Under load the lock is
mostly free while the waiters sleep. Measured with bench/workload.py (16 writers creating posts
on 2 workers), post creations waited up to 0.7 s at the 99th percentile, and the event lists of
the mixed workload queued behind request threads asleep in that handler.

Here, before ``BEGIN IMMEDIATE``, a writer first takes its process's lock (threads of one
process queue on it and wake as soon as it is released), then an ``flock`` on a file beside the
database (``<database>-writers``). So at most one writer per process waits on the file. When the
file is taken, that writer hands the wait to its process's file waiter, a thread blocked in
``flock`` that the kernel wakes the moment the other process releases the lock, and waits for it
with its deadline. (Polling the file every 0.2 to 1 ms instead, as this queue first did, left the
lock free for half a poll on average at each hand-over: with 16 writers creating posts on 2
workers, bench/workload.py measured 695-714 creations/s polling and 839-882/s woken.)

Neither lock can make anything fail or wait for ever: a writer that has not got one within the
busy timeout goes on without it, to ``BEGIN IMMEDIATE`` and SQLite's own busy handling, as
before this queue. A process that dies holding the file lock releases it (the kernel closes its
files). The lock file holds no data.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import threading
import time
from collections.abc import Iterator

_queues: dict[tuple[int, str], WriterQueue] = {}
_queues_lock = threading.Lock()


class WriterQueue:
    """The writers of one SQLite database file in this process."""

    def __init__(self, database: str) -> None:
        self.path = database + "-writers"
        self._local = threading.Lock()
        self._fd: int | None = None
        self._waiter: _FileWaiter | None = None

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
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError:
            return False
        if self._waiter is None:
            self._waiter = _FileWaiter(fd)
        return self._waiter.wait(deadline)


class _Ticket:
    """One writer's request to the file waiter: ``done`` once the waiter has the lock for it (or
    failed); ``abandoned`` once the writer stopped waiting, in which case the waiter lets go of
    the lock as soon as it gets it. ``lock`` makes the two decisions exclusive."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.acquired = False
        self.abandoned = False


class _FileWaiter:
    """The thread of a process that waits in a blocking ``flock`` for its writers, one ticket
    at a time (the process's lock lets one writer at a time ask). A writer that gives up leaves
    its ticket to be let go: a holder that never releases keeps this thread waiting, never a
    writer past its deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._tickets: queue.SimpleQueue[_Ticket] = queue.SimpleQueue()
        threading.Thread(target=self._run, name="calpress-sqlite-writers", daemon=True).start()

    def wait(self, deadline: float) -> bool:
        """Whether the file lock is this process's by ``deadline`` (time.monotonic())."""
        ticket = _Ticket()
        self._tickets.put(ticket)
        ticket.done.wait(max(0.0, deadline - time.monotonic()))
        with ticket.lock:
            if not ticket.done.is_set():
                ticket.abandoned = True
            return ticket.acquired

    def _run(self) -> None:
        while True:
            ticket = self._tickets.get()
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX)
                got = True
            except OSError:
                got = False
            with ticket.lock:
                if got and ticket.abandoned:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)
                else:
                    ticket.acquired = got
                ticket.done.set()


def writer_queue(database: str) -> WriterQueue:
    """The queue of the database file ``database`` in this process (a forked worker gets its
    own: an inherited file description would be one lock shared with the parent)."""
    key = (os.getpid(), os.path.abspath(database))
    found = _queues.get(key)
    if found is None:
        with _queues_lock:
            found = _queues.setdefault(key, WriterQueue(key[1]))
    return found
