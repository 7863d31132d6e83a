"""A share of each worker per client (calpress/admission.py, used by calpress/front.py): what a
stranger's requests cost is counted per address, a heavy client runs one request at a time in a
request thread, and everybody else's light requests are not held up behind it."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from types import SimpleNamespace

import falcon.testing
import pytest

from calpress.admission import USER_KEY, Admission
from calpress.config import load_settings
from calpress.front import Front


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def admitted(admission: Admission, address: str):
    return asyncio.run(admission.enter(address))


def test_usage_is_counted_for_strangers_only_and_halves_every_half_life():
    clock = Clock()
    admission = Admission(half_life=2.0, heavy_usage=0.25, clock=clock)
    ticket = admitted(admission, "10.0.0.1")
    assert ticket.inline
    admission.leave(ticket, 0.3, counted=True)
    assert admission.usage("10.0.0.1") == pytest.approx(0.3)
    assert admission.is_heavy("10.0.0.1")
    clock.now += 2.0
    assert admission.usage("10.0.0.1") == pytest.approx(0.15)
    assert not admission.is_heavy("10.0.0.1")
    # An authenticated request costs its client nothing.
    ticket = admitted(admission, "10.0.0.2")
    admission.leave(ticket, 5.0, counted=False)
    assert admission.usage("10.0.0.2") == 0 and not admission.is_heavy("10.0.0.2")
    assert admission.usage("10.9.9.9") == 0  # never seen


def test_a_client_whose_requests_typically_cost_much_reads_off_the_loop():
    """Many cheap requests make a client heavy, not costly: its reads still run on the loop (one
    at a time); requests that typically cost over 20 ms send its reads to a thread."""
    clock = Clock()
    admission = Admission(heavy_usage=0.25, costly_request=0.02, clock=clock)
    for _ in range(200):
        ticket = admitted(admission, "10.0.0.1")
        assert ticket.inline
        admission.leave(ticket, 0.003, counted=True)
        clock.now += 0.001
    assert admission.is_heavy("10.0.0.1")
    assert admitted(admission, "10.0.0.1").inline
    first = admitted(admission, "10.0.0.2")
    admission.leave(first, 0.4, counted=True)
    assert not admitted(admission, "10.0.0.2").inline
    # A costly client that turns cheap again reads on the loop again, and credentials cost nothing.
    for _ in range(30):
        ticket = admitted(admission, "10.0.0.3")
        admission.leave(ticket, 0.5 if _ == 0 else 0.001, counted=True)
        clock.now += 10
    assert admitted(admission, "10.0.0.3").inline
    ticket = admitted(admission, "10.0.0.4")
    admission.leave(ticket, 3.0, counted=False)
    assert admitted(admission, "10.0.0.4").inline


def test_a_heavy_client_runs_one_request_at_a_time_and_the_rest_wait_their_turn():
    clock = Clock()
    admission = Admission(heavy_usage=0.25, max_waiting=3, clock=clock)

    async def scenario() -> list[str]:
        first = await admission.enter("10.0.0.1")
        admission.leave(first, 1.0, counted=True)  # now heavy
        order: list[str] = []
        running = await admission.enter("10.0.0.1")
        assert not running.inline
        waiting = [asyncio.create_task(admission.enter("10.0.0.1")) for _ in range(3)]
        await asyncio.sleep(0)
        assert not any(task.done() for task in waiting)
        # A fourth waiting request is one too many: refused at once.
        assert await admission.enter("10.0.0.1") is None
        # Another client is not held up.
        other = await admission.enter("10.0.0.2")
        assert other.inline
        order.append("other in")
        for task in waiting:
            admission.leave(running, 0.5, counted=True)
            running = await task
            assert not running.inline
            order.append("next in")
            assert sum(task.done() for task in waiting) == waiting.index(task) + 1  # one at a time
        admission.leave(running, 0.5, counted=True)
        assert admission.clients["10.0.0.1"].running == 0
        return order

    assert asyncio.run(scenario()) == ["other in", "next in", "next in", "next in"]


def test_a_client_that_becomes_light_again_lets_its_waiting_requests_in():
    clock = Clock()
    admission = Admission(half_life=1.0, heavy_usage=0.25, clock=clock)

    async def scenario() -> None:
        ticket = await admission.enter("10.0.0.1")
        admission.leave(ticket, 0.4, counted=True)
        running = await admission.enter("10.0.0.1")
        waiting = [asyncio.create_task(admission.enter("10.0.0.1")) for _ in range(2)]
        await asyncio.sleep(0)
        clock.now += 10  # long quiet: the usage has decayed
        admission.leave(running, 0.0, counted=True)
        await asyncio.sleep(0)
        assert all(task.done() for task in waiting)
        assert admission.clients["10.0.0.1"].running == 2

    asyncio.run(scenario())


def test_a_waiting_request_that_goes_away_leaves_no_count_behind():
    clock = Clock()
    admission = Admission(heavy_usage=0.25, clock=clock)

    async def scenario() -> None:
        ticket = await admission.enter("10.0.0.1")
        admission.leave(ticket, 1.0, counted=True)
        running = await admission.enter("10.0.0.1")
        gone = asyncio.create_task(admission.enter("10.0.0.1"))
        after = asyncio.create_task(admission.enter("10.0.0.1"))
        await asyncio.sleep(0)
        gone.cancel()  # the client hung up while waiting
        await asyncio.sleep(0)
        admission.leave(running, 0.1, counted=True)
        next_one = await after
        assert admission.clients["10.0.0.1"].running == 1
        admission.leave(next_one, 0.1, counted=True)
        assert admission.clients["10.0.0.1"].running == 0 and not admission.clients["10.0.0.1"].waiting

    asyncio.run(scenario())


def test_idle_clients_are_forgotten():
    clock = Clock()
    admission = Admission(half_life=1.0, clock=clock)

    async def scenario() -> None:
        for number in range(5000):
            ticket = await admission.enter(f"10.1.{number // 256}.{number % 256}")
            admission.leave(ticket, 0.001, counted=True)
            clock.now += 0.01

    asyncio.run(scenario())
    assert len(admission.clients) < 5000 - 3000


# -- through the front ----------------------------------------------------------------------------


class _Proto:
    def __init__(self) -> None:
        self.answers: list[tuple[int, list, bytes]] = []

    def response_bytes(self, status, headers, body):
        self.answers.append((status, headers, body))

    def __aiter__(self):
        return self._parts()

    async def _parts(self):
        return
        yield


def _scope(path: str, client: str) -> SimpleNamespace:
    return SimpleNamespace(proto="http", method="GET", path=path, query_string="", server="127.0.0.1:8080",
                           client=f"{client}:40000", http_version="1.1", scheme="http", headers={})


def test_one_clients_heavy_reads_leave_the_loop_to_everybody_else(tmp_path):
    """Four heavy reads of one stranger at once and a light read of somebody else: the heavy ones
    run one at a time in a request thread, and the light one is answered (on the loop) while the
    first of them still runs. Before, every read ran on the loop, one after another, and the light
    one waited for the heavy ones ahead of it."""
    log: list[tuple[str, str, str]] = []
    lock = threading.Lock()

    def app(environ, start_response):
        path, thread = environ["PATH_INFO"], threading.current_thread().name
        with lock:
            log.append(("start", path, thread))
        if path.startswith("/heavy"):
            spent = time.thread_time()
            while time.thread_time() - spent < 0.3:  # 0.3 s of CPU
                pass
        with lock:
            log.append(("end", path, thread))
        environ[USER_KEY] = 0
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    settings = load_settings(environ={"CALPRESS_DATA_DIR": str(tmp_path)})
    front = Front(app, settings, lambda environ: True)
    loop_thread = threading.current_thread().name

    async def scenario() -> None:
        # The stranger has been heavy of late: one heavy read showed it.
        await front.__rsgi__(_scope("/heavy/0", "10.0.0.2"), _Proto())
        log.clear()
        heavy = [asyncio.create_task(front.__rsgi__(_scope(f"/heavy/{n}", "10.0.0.2"), _Proto())) for n in range(1, 5)]
        await asyncio.sleep(0.05)
        await front.__rsgi__(_scope("/light", "10.0.0.3"), _Proto())
        await asyncio.gather(*heavy)

    try:
        asyncio.run(scenario())
    finally:
        front.pool.shutdown()
    ends = [path for kind, path, _ in log if kind == "end"]
    assert ends[0] == "/light", log
    running = 0
    for kind, path, thread in log:
        if path.startswith("/heavy"):
            running += 1 if kind == "start" else -1
            assert running <= 1, log  # one at a time
            assert thread.startswith("calpress-request"), log
        else:
            assert thread == loop_thread
    assert sum(1 for kind, path, _ in log if kind == "end" and path.startswith("/heavy")) == 4


def test_the_app_says_whom_it_served(app, accounts):
    """The front counts only what requests without credentials cost: the app leaves the user id
    in the environ, for REST answers and for pages."""
    def call(path: str, headers: dict[str, str] | None = None) -> dict:
        environ = falcon.testing.create_environ(path=path, headers=headers, remote_addr="10.0.0.9")
        app.wsgi(environ, lambda status, headers, exc_info=None: None)
        return environ

    assert call("/wp-json/cms/v2/posts")[USER_KEY] == 0
    editor = accounts["editor"]
    basic = "Basic " + base64.b64encode(f"{editor.login}:{editor.app_password}".encode()).decode()
    assert call("/wp-json/cms/v2/posts", {"Authorization": basic})[USER_KEY] == editor.id
    assert call("/events/")[USER_KEY] == 0
