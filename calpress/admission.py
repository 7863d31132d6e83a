"""Who runs when, in one worker of ``calpress serve``: a share of the worker per client, so that
one client's heavy requests cannot hold up everybody else's light ones.

Python runs one request at a time per process, and the front (front.py) runs a read on its event
loop, where a request of half a second holds every other request of the worker for that long:
four clients asking for 100 uncacheable posts with ``_embed`` took a light request from 2 ms to
2.3 s. Nothing in a request says beforehand what it will cost, so this counts what each client
(by address) has cost of late and orders the next requests by it:

* **usage**: the CPU time of each request the app served without credentials (``thread_time``
  of the thread that ran it), summed per client and halved every :attr:`Admission.half_life`
  seconds. What authenticated requests cost is not counted: an editor's import or a client
  with an application password is not a stranger to be kept in check.
* a client whose usage is under :attr:`Admission.heavy_usage` (0.25 s: a steady 9% of a core)
  is **light**: its requests run at once, reads on the loop where the front runs them.
* a **heavy** client runs one request at a time in the worker, always in a request thread, and
  its further requests wait their turn on the loop, where waiting costs nothing; beyond
  :attr:`Admission.max_waiting` waiting it is answered 429 at once. A light request of
  somebody else then runs beside at most one of its requests, and the loop is free for it.

A client's first heavy request still runs as its reads do until it ends (its cost is known only
then): once per worker and per half-life or so, never twice in a row.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["USER_KEY", "Admission", "Ticket"]

USER_KEY = "calpress.user_id"
"""Where the app leaves, in a request's environ, the id of the user it served (0: nobody)."""


@dataclass
class _Client:
    usage: float = 0.0
    stamp: float = 0.0
    running: int = 0
    waiting: collections.deque[asyncio.Future[None]] = field(default_factory=collections.deque)


@dataclass(frozen=True)
class Ticket:
    """A request let in: its client's address, and whether the client was light when it came in
    (only a light client's reads may run on the loop)."""

    address: str
    light: bool


class Admission:
    """The per-client shares of one worker (one event loop)."""

    def __init__(self, *, half_life: float = 2.0, heavy_usage: float = 0.25, max_waiting: int = 32,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.half_life = half_life
        self.heavy_usage = heavy_usage
        self.max_waiting = max_waiting
        self.clock = clock
        self.clients: dict[str, _Client] = {}
        self._entries = 0

    def usage(self, address: str) -> float:
        """The client's decayed CPU seconds (0 for a client not seen)."""
        client = self.clients.get(address)
        return self._decayed(client, self.clock()) if client else 0.0

    def _decayed(self, client: _Client, now: float) -> float:
        if client.usage and now > client.stamp:
            client.usage *= 0.5 ** ((now - client.stamp) / self.half_life)
            if client.usage < 1e-6:
                client.usage = 0.0
        client.stamp = now
        return client.usage

    def is_light(self, address: str) -> bool:
        return self.usage(address) < self.heavy_usage

    async def enter(self, address: str) -> Ticket | None:
        """Let a request of ``address`` in, after its turn when its client is heavy; None when
        the client already has :attr:`max_waiting` requests waiting (answer 429)."""
        self._entries += 1
        if self._entries % 4096 == 0:
            self._forget_idle()
        client = self.clients.get(address)
        if client is None:
            client = self.clients[address] = _Client(stamp=self.clock())
        if self._decayed(client, self.clock()) < self.heavy_usage:
            client.running += 1
            return Ticket(address, True)
        if client.running or client.waiting:
            if len(client.waiting) >= self.max_waiting:
                return None
            turn = asyncio.get_running_loop().create_future()
            client.waiting.append(turn)
            try:
                await turn  # leave() hands the turn over with running already counted
            except BaseException:
                if turn.done() and not turn.cancelled():
                    self._release(client)  # given the turn, then cancelled: pass it on
                elif turn in client.waiting:
                    client.waiting.remove(turn)
                raise
            return Ticket(address, False)
        client.running += 1
        return Ticket(address, False)

    def leave(self, ticket: Ticket, cost: float, counted: bool) -> None:
        """The request of ``ticket`` ended, having cost ``cost`` CPU seconds (``counted``: it ran
        without credentials)."""
        client = self.clients.get(ticket.address)
        if client is None:
            return
        if counted and cost > 0:
            self._decayed(client, self.clock())
            client.usage += cost
        self._release(client)

    def _release(self, client: _Client) -> None:
        """One request of ``client`` ended: the next waiting one runs in its place (a heavy
        client's turns pass from one to the next; a client that became light again lets all
        its waiting requests in)."""
        client.running -= 1
        light = self._decayed(client, self.clock()) < self.heavy_usage
        while client.waiting and (light or client.running == 0):
            turn = client.waiting.popleft()
            if turn.done():
                continue
            client.running += 1
            turn.set_result(None)

    def _forget_idle(self) -> None:
        now = self.clock()
        for address in [a for a, c in self.clients.items() if not c.running and not c.waiting and not self._decayed(c, now)]:
            del self.clients[address]
