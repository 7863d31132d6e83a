"""The write lane's turn: on SQLite a worker's writes run one at a time (``front.py`` says why),
and a write that waits on the network leaves the lane for the rest of its run.

A write that sends a mail (a password reset, a new user's details) or fetches a remote image or
feed would otherwise hold every other write of its worker for as long as the far side takes
(seconds, up to its time limit; with the default single worker, every write of the site). The
network clients call :func:`leave` before they connect, as do password hashing (argon2) and
image decoding, which take tens of milliseconds and more: from there on the request runs beside
the lane, as any request thread does. It never takes the lane back, so a request holding the
writers' turn (store/writers.py) cannot wait for the lane while the lane's next write waits for
that turn.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_local = threading.local()


class WriteLane:
    """One worker's lane: at most one write holds it at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Run the block in the lane (waiting for it first), unless it leaves the lane."""
        self._lock.acquire()
        _local.lane = self
        try:
            yield
        finally:
            if getattr(_local, "lane", None) is self:
                _local.lane = None
                self._lock.release()


def leave() -> None:
    """Let the lane's next write run: this thread's request waits on something outside the
    process (the network) and goes on beside the lane. Does nothing outside the lane."""
    lane = getattr(_local, "lane", None)
    if lane is not None:
        _local.lane = None
        lane._lock.release()
