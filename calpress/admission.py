"""Who runs when, in one worker of ``calpress serve``: a share of the worker per client, so that
one client's heavy requests cannot hold up everybody else's light ones.

Python runs one request at a time per process, and the front (front.py) runs a read on its event
loop, where a request of half a second holds every other request of the worker for that long:
four clients asking for 100 uncacheable posts with ``_embed`` took a light request from 2 ms to
2.3 s. Nothing in a request says beforehand what it will cost, so this counts what each client
(by address) has cost of late, and decides from it:

* **usage**: the CPU time of each request the app served without credentials (``thread_time``
  of the thread that ran it), summed per client and halved every :attr:`Admission.half_life`
  seconds. What authenticated requests cost is not counted: an editor's import or a client
  with an application password is not a stranger to be kept in check.
* **typical cost**: the same requests' cost, averaged (each new one weighs a fifth). A client
  whose requests typically cost over :attr:`Admission.costly_request` (20 ms) has its reads run
  in a request thread, never on the loop (:attr:`Ticket.inline`), so the loop stays free for
  everybody else's; a light request then shares the CPU with it instead of waiting for it.
* a client whose usage is over :attr:`Admission.heavy_usage` (0.25 s: a steady 9% of a core)
  is **heavy**: it runs one request at a time in the worker, its further requests waiting their
  turn on the loop, where waiting costs nothing; beyond :attr:`Admission.max_waiting` waiting it
  is answered 429 at once. A request thread is then always left for somebody else.

A client's first costly read still runs as its reads do until it ends (its cost is known only
then); the front sends a read with ``_embed`` or a page of more than 20 items to a thread
whoever asks, so that first one holds the loop only when it looks small.

Behind a reverse proxy listed in the setting ``trusted_proxies`` the address is the client's own,
as the proxy forwards it (proxies.py, applied by the front before admission). Behind any other
every client has the proxy's address, so all strangers together are one client here: their reads
run one at a time per worker (the loop runs them one at a time anyway; ``bench/workload.py``'s
mixed workload, from one address, answered as many requests per second).
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
    typical: float = 0.0  # the running average cost of its counted requests
    running: int = 0
    waiting: collections.deque[asyncio.Future[None]] = field(default_factory=collections.deque)


@dataclass(frozen=True)
class Ticket:
    """A request let in: its client's address, and whether its client's requests are typically
    cheap enough for a read of it to run on the loop."""

    address: str
    inline: bool


class Admission:
    """The per-client shares of one worker (one event loop)."""

    def __init__(self, *, half_life: float = 2.0, heavy_usage: float = 0.25, costly_request: float = 0.02,
                 max_waiting: int = 32, clock: Callable[[], float] = time.monotonic) -> None:
        self.half_life = half_life
        self.heavy_usage = heavy_usage
        self.costly_request = costly_request
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

    def is_heavy(self, address: str) -> bool:
        return self.usage(address) >= self.heavy_usage

    async def enter(self, address: str) -> Ticket | None:
        """Let a request of ``address`` in, after its turn when its client is heavy; None when
        the client already has :attr:`max_waiting` requests waiting (answer 429)."""
        self._entries += 1
        if self._entries % 4096 == 0:
            self._forget_idle()
        client = self.clients.get(address)
        if client is None:
            client = self.clients[address] = _Client(stamp=self.clock())
        if self._decayed(client, self.clock()) >= self.heavy_usage and (client.running or client.waiting):
            if len(client.waiting) >= self.max_waiting:
                return None
            turn = asyncio.get_running_loop().create_future()
            client.waiting.append(turn)
            try:
                await turn  # _release() hands the turn over with running already counted
            except BaseException:
                if turn.done() and not turn.cancelled():
                    self._release(client)  # given the turn, then cancelled: pass it on
                elif turn in client.waiting:
                    client.waiting.remove(turn)
                raise
        else:
            client.running += 1
        return Ticket(address, client.typical < self.costly_request)

    def leave(self, ticket: Ticket, cost: float, counted: bool) -> None:
        """The request of ``ticket`` ended, having cost ``cost`` CPU seconds (``counted``: it ran
        without credentials)."""
        client = self.clients.get(ticket.address)
        if client is None:
            return
        if counted:
            self._decayed(client, self.clock())
            client.usage += cost
            client.typical += (cost - client.typical) / 5
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
