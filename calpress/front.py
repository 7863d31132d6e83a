"""The HTTP front of ``calpress serve``: Granian's RSGI interface in front of the WSGI app.

Under Granian's WSGI interface a request thread reads the body itself and waits, without any
time limit, for a client that sends its headers and then trickles or withholds the body: eight
such connections held every thread and the site stopped answering. Here the event loop takes
the body first, where waiting costs a coroutine and not a thread, and a client that pauses
longer than ``body_timeout`` seconds is answered 408. Only then does a request thread run the
app, with the body in memory.

Bodies larger than the anonymous allowance (``app.ANONYMOUS_BODY``) or chunked past it are not
taken whole up front: the app authenticates from the headers first (app.py) and reads the rest
through ``_StreamedInput``, which waits for each part on the loop with the same time limit.

Answers go back whole when the app returns a list (nearly always), else as a stream read from
the app's iterator one part at a time in a request thread.

A request that can only read stored data (``Calpress.reads_only``: a bodiless GET or HEAD of a
cacheable REST endpoint) runs on the event loop itself when the setting ``inline_reads`` says
so (on, or auto with a database on this machine). Handing a request to a thread and its answer
back costs two wake-ups and a GIL hand-over each way, and the thread and the loop then contend
for the GIL at every database call: an uncached listing answered about 1.5 times as many
requests per second on SQLite without them, and on a PostgreSQL server of the same machine the
event lists of the mixed workload kept their p99 under 50 ms (34-48 ms in four runs, against
49-66 ms in threads), while writes, still in threads, waited longer behind them. Such a request
waits on nothing but a database answering in a fraction of a millisecond, so the loop is held
little longer than the GIL would be anyway. Over the network each statement is a round trip,
which threads overlap with other requests' work: there ``auto`` keeps the threads.

On SQLite the site has one writer at a time (store/writers.py), and a worker's writes run one
at a time too, in threads of their own (the write lane): a POST, PUT, PATCH or DELETE whose
body is parameters (not an upload) and was taken whole. Two writes in two request threads of
one worker only traded the GIL: the one holding the writers' turn waited for the GIL at every
statement while the other ran its Python, and the other worker's writers waited for the turn
meanwhile. With 16 writers creating posts on 2 workers, bench/workload.py measured 6-9% more
creations a second with the lane, the CPU otherwise idle going to work. Uploads (their images
take long) and bodies still arriving keep to the request threads, and a write that waits on the
network (a mail, a remote image) leaves the lane for the rest of its run (lane.py), so that
none of them holds every other write of the worker.

Every request first waits for its client's turn (admission.py): a client whose requests without
credentials have cost much CPU of late runs one request at a time, and one whose requests
typically cost much has its reads run in a thread, so that one stranger's heavy listings cannot
hold the loop or every thread. A read with ``_embed`` or more than 20 items a page runs in a
thread too (``_small``), so that the request that shows a client costly does not hold the loop
either.

A GET the app answered from its answer cache for a requester without credentials (a listing,
an item, a term: ``SHARED_KEY``) is kept here too, whole (status, headers and the bytes sent,
compressed or not, ETag included), keyed by what the answer can depend on: the path, the query,
the scheme and host the forwarding headers give, and the ``Accept`` and ``Accept-Encoding``
headers. The same request without credentials, conditions (``If-None-Match``...), ``Origin`` or
range is answered from that copy while the content counter and the minute are the ones it was
made under (``AnswerCopies``), without the WSGI layers, the engine or the admission's turn: one
read of the counter (on SQLite one ``PRAGMA data_version`` while no connection has committed since
it was last read, content/generation.py), and the access line. A cached event list took about
85 µs a request through the layers, five times the bare baseline's; from a copy, about 35 µs.

The front reads a request's forwarding headers (from trusted proxies only, proxies.py) before
anything else, so that admission counts the client and not the proxy, and writes the request's
access line (access_log.py) once the answer has left: it alone knows the bytes of a streamed
answer and the answers made before the app runs (408, 429).
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .access_log import FRONT_KEY, REQUEST_ID_KEY, ROUTE_KEY, AccessLog
from .admission import USER_KEY, Admission
from .app import ANONYMOUS_BODY, REST_ROUTE_KEY, SHARED_KEY, body_timeout_error, create_app, is_upload, tune_gc
from .config import Settings, is_loopback, load_settings
from .lane import WriteLane
from .logs import REQUEST_ID
from .rest.cache import GenerationCache
from .rest.errors import RestError
from .store.db import is_sqlite

_EMPTY = b""
_BASE_ENVIRON = {
    "GATEWAY_INTERFACE": "CGI/1.1",
    "SCRIPT_NAME": "",
    "SERVER_SOFTWARE": "calpress",
    "wsgi.errors": sys.stderr,
    "wsgi.input_terminated": True,
    "wsgi.multiprocess": True,
    "wsgi.multithread": True,
    "wsgi.run_once": False,
    "wsgi.version": (1, 0),
}


class BodyTimeout(TimeoutError):
    """The client paused longer than allowed while sending a body."""


_PAGE_SIZE = re.compile(r"(?:^|&)per_page=0*(\d{1,9})")


def _small(query: str) -> bool:
    """Whether a read looks small enough for the loop: no ``_embed``, 20 items a page at most.
    A larger one of a client not yet known to be heavy goes to a thread all the same, so that
    the one request that shows a client heavy (admission.py) does not hold the loop."""
    if "_embed" in query:
        return False
    found = _PAGE_SIZE.search(query)
    return found is None or int(found.group(1)) <= 20


_WRITES = frozenset(("POST", "PUT", "PATCH", "DELETE"))


def _in_lane(environ: dict[str, Any]) -> bool:
    """Whether a request runs in the write lane: a write whose body is parameters, taken whole."""
    return (environ["REQUEST_METHOD"] in _WRITES and not is_upload(environ.get("CONTENT_TYPE"))
            and not isinstance(environ["wsgi.input"], _StreamedInput))


def _busy_answer() -> tuple[int, list[tuple[str, str]], bytes]:
    """The answer to a client with too many requests waiting for its turn (admission.py)."""
    error = RestError("rest_too_many_requests", "Too many requests from this address are waiting. Try again shortly.", status=429)
    return 429, [("content-type", "application/json; charset=UTF-8"), ("retry-after", "1")], json.dumps(error.to_dict()).encode()


def _timeout_answer() -> tuple[int, list[tuple[str, str]], bytes]:
    """The app's 408 error, answered before the app runs (the body never came)."""
    error = body_timeout_error()
    body = json.dumps(error.to_dict()).encode()
    return error.status, [("content-type", "application/json; charset=UTF-8"), ("connection", "close")], body


class _StreamedInput(io.RawIOBase):
    """``wsgi.input`` for a large body: what the loop already took, then the rest, each part
    fetched on the loop and awaited here at most ``timeout`` seconds (then BodyTimeout)."""

    def __init__(self, first: bytes, parts: Any, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self._buffer = bytearray(first)
        self._parts = parts
        self._loop = loop
        self._timeout = timeout
        self._ended = False

    def readable(self) -> bool:
        return True

    def _more(self) -> bool:
        if self._ended:
            return False
        future = asyncio.run_coroutine_threadsafe(_next_part(self._parts, self._timeout), self._loop)
        part = future.result()
        if part is None:
            self._ended = True
            return False
        self._buffer += part
        return True

    def read(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        if size is None or size < 0:
            while self._more():
                pass
            size = len(self._buffer)
        while len(self._buffer) < size and self._more():
            pass
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        return taken

    def readinto(self, target: Any) -> int:
        data = self.read(len(target))
        target[: len(data)] = data
        return len(data)


async def _next_part(parts: Any, timeout: float) -> bytes | None:
    """The next part of a body, None at its end; BodyTimeout after ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            return await anext(parts)
    except StopAsyncIteration:
        return None
    except TimeoutError as error:
        raise BodyTimeout from error


# A request carrying any of these is answered by the app, never from a copy: credentials (the
# answer is the requester's), a condition or a range (the answer depends on it), an origin (CORS
# headers), a body or a method override.
_NOT_COPIED = ("HTTP_AUTHORIZATION", "HTTP_COOKIE", "HTTP_ORIGIN", "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE",
               "HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE", "HTTP_RANGE", "HTTP_IF_RANGE", "HTTP_X_HTTP_METHOD_OVERRIDE",
               "HTTP_X_WP_NONCE", "HTTP_TRANSFER_ENCODING")


class AnswerCopies:
    """Whole answers the app gave from its answer cache to requesters without credentials, by
    request and minute, each used while the content counter is the one it was made under (the
    answer cache's own rule, rest/cache.py, on a ``GenerationCache`` of its own)."""

    def __init__(self, generation: Callable[[], int], max_bytes: int = 16 * 1024 * 1024) -> None:
        """``generation``: reads the content counter; its ``unchanged()``, when it has one, may
        say for less that it is as last read (SQLite's data_version, content/generation.py)."""
        self.generation = generation
        self.unchanged: Callable[[], int | None] = getattr(generation, "unchanged", lambda: None)
        self._copies = GenerationCache(max_bytes)

    @staticmethod
    def key(environ: dict[str, Any]) -> tuple[Any, ...] | None:
        """What an answer to ``environ`` can depend on, the minute last, or None when it is not
        to be copied."""
        if environ["REQUEST_METHOD"] != "GET" or environ.get("CONTENT_LENGTH", "0") not in ("", "0"):
            return None
        for name in _NOT_COPIED:
            if name in environ:
                return None
        return (environ["PATH_INFO"], environ["QUERY_STRING"], environ["wsgi.url_scheme"], environ.get("HTTP_HOST", ""),
                environ["SERVER_NAME"], environ["SERVER_PORT"], environ.get("HTTP_ACCEPT", ""),
                environ.get("HTTP_ACCEPT_ENCODING", ""), int(time.time() // 60))

    def get(self, key: tuple[Any, ...]) -> tuple[int, list[tuple[str, str]], bytes, str | None] | None:
        """The copy for ``key`` when it is still current: (status, headers, body, route name).
        The counter is read only when there is a copy to check."""
        if key not in self._copies:
            return None
        current = self.unchanged()
        return self._copies.get(key, self.generation() if current is None else current)

    def put(self, key: tuple[Any, ...], shared_under: tuple[int, int], status: int, headers: list[tuple[str, str]],
            body: bytes, route: str | None) -> None:
        """Keep an answer made under ``shared_under`` (generation, minute): under the minute the
        app used, which may be later than the request's start."""
        generation, minute = shared_under
        kept = [(name, value) for name, value in headers if name.lower() != "x-request-id"]
        self._copies.put((*key[:-1], minute), generation, (status, kept, body, route), len(body) + 64 * len(kept))


class Front:
    """The RSGI application (``__rsgi__``) that serves a WSGI app from request threads."""

    def __init__(self, wsgi: Any, settings: Settings, reads_only: Callable[[dict[str, Any]], bool] | None = None,
                 access_log: AccessLog | None = None, copies: AnswerCopies | None = None, *, write_lane: bool = False) -> None:
        """``reads_only``: says of a request's environ whether it may run on the loop (None: no
        request does). ``access_log``: the app's (its proxies and its log); None reads no
        forwarding header and writes no line. ``copies``: where shared answers are kept (None:
        none is; used only with an access log and reads on the loop, since reading the counter
        there is a database read). ``write_lane``: writes run one at a time, in threads of
        their own (on SQLite; see the module's text)."""
        self.wsgi = wsgi
        self.settings = settings
        self.reads_only = reads_only
        self.copies = copies if access_log is not None and reads_only is not None else None
        self.pool = ThreadPoolExecutor(max_workers=max(1, settings.threads), thread_name_prefix="calpress-request")
        # The lane's threads: one runs at a time (WriteLane); the others wait for it, or go on
        # beside it once they wait on something slow (lane.leave).
        self.lane: ThreadPoolExecutor | None = None
        if write_lane:
            self.lane = ThreadPoolExecutor(max_workers=max(2, settings.threads), thread_name_prefix="calpress-write")
            self.write_lane = WriteLane()
        self.admission = Admission()
        self.body_timeout = float(settings.body_timeout)
        self.access_log = access_log

    def __rsgi_del__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self.lane is not None:
            self.lane.shutdown(wait=False, cancel_futures=True)

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.proto != "http":
            return  # no WebSocket endpoints
        environ = self._environ(scope)
        if self.access_log is None:
            await self._serve(environ, proto)
            return
        began = time.perf_counter()
        environ[FRONT_KEY] = answer = [0, 0]  # status and bytes sent, filled as the answer leaves
        # Each request runs in a task of its own: the id set here is on every line it logs.
        token = REQUEST_ID.set(self.access_log.begin(environ))
        try:
            key = self.copies.key(environ) if self.copies is not None else None
            if key is None or not self._answer_from_copy(environ, proto, key):
                await self._serve(environ, proto, key)
        finally:
            self.access_log.write(environ, answer[0], answer[1], time.perf_counter() - began)
            REQUEST_ID.reset(token)

    def _answer_from_copy(self, environ: dict[str, Any], proto: Any, key: tuple[Any, ...]) -> bool:
        """Answer from the copy kept for ``key`` when it is current; whether it was."""
        assert self.copies is not None
        try:
            found = self.copies.get(key)
        except Exception:  # the counter could not be read: the app answers, and says why
            return False
        if found is None:
            return False
        status, headers, body, route = found
        environ[ROUTE_KEY] = route
        _sent(environ, status, len(body))
        proto.response_bytes(status, [*headers, ("x-request-id", environ[REQUEST_ID_KEY])], body)
        return True

    def _keep_copy(self, environ: dict[str, Any], key: tuple[Any, ...], status: int, headers: Any, result: Any) -> None:
        """Keep the app's answer when anyone sending this request without credentials gets it."""
        shared_under = environ.get(SHARED_KEY)  # set only by the engine's answer cache
        if shared_under is None or status != 200 or not isinstance(result, bytes) or self.copies is None:
            return
        route = environ.get(ROUTE_KEY)
        if route is None and environ.get(REST_ROUTE_KEY) is not None and self.access_log is not None:
            route = self.access_log.route_name(environ)
        self.copies.put(key, shared_under, status, list(headers), result, route)

    async def _serve(self, environ: dict[str, Any], proto: Any, key: tuple[Any, ...] | None = None) -> None:
        loop = asyncio.get_running_loop()
        try:
            environ["wsgi.input"] = await self._body(environ, proto, loop)
        except BodyTimeout:
            self._send(environ, proto, *_timeout_answer())
            return
        ticket = await self.admission.enter(environ["REMOTE_ADDR"])
        if ticket is None:
            self._send(environ, proto, *_busy_answer())
            return
        cost = 0.0
        try:
            if ticket.inline and self.reads_only is not None and _small(environ["QUERY_STRING"]) and self.reads_only(environ):
                status, headers, result, cost = self._call(environ)
            else:
                if self.lane is not None and _in_lane(environ):
                    status, headers, result, cost = await loop.run_in_executor(self.lane, self._call_in_lane, environ)
                else:
                    status, headers, result, cost = await loop.run_in_executor(self.pool, self._call, environ)
        finally:
            self.admission.leave(ticket, cost, counted=not environ.get(USER_KEY))
        if key is not None:
            self._keep_copy(environ, key, status, headers, result)
        if isinstance(result, bytes):
            _sent(environ, status, len(result))
            proto.response_bytes(status, headers, result)
            return
        await self._stream(proto, loop, status, headers, result, environ)

    def _send(self, environ: dict[str, Any], proto: Any, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        """An answer of the front's own (the app never ran), with the request's id."""
        request_id = environ.get(REQUEST_ID_KEY)
        if request_id is not None:
            headers = [*headers, ("x-request-id", request_id)]
        _sent(environ, status, len(body))
        proto.response_bytes(status, headers, body)

    def _environ(self, scope: Any) -> dict[str, Any]:
        host, _, port = scope.server.rpartition(":")
        client = scope.client.rpartition(":")[0] if ":" in scope.client else scope.client
        environ = dict(_BASE_ENVIRON)
        environ.update(
            {
                "REQUEST_METHOD": scope.method,
                # WSGI strings carry bytes as latin-1; RSGI gives the decoded path.
                "PATH_INFO": scope.path.encode("utf-8", "surrogateescape").decode("latin-1"),
                "QUERY_STRING": scope.query_string,
                "SERVER_NAME": host.strip("[]"),
                "SERVER_PORT": port,
                "SERVER_PROTOCOL": f"HTTP/{scope.http_version}",
                "REMOTE_ADDR": client.strip("[]"),
                "wsgi.url_scheme": scope.scheme,
            }
        )
        for name, value in scope.headers.items():
            if name == "content-type":
                environ["CONTENT_TYPE"] = value
            elif name == "content-length":
                environ["CONTENT_LENGTH"] = value
            else:
                key = "HTTP_" + name.upper().replace("-", "_")
                if key in environ:  # a repeated header: one value, as WSGI servers join them
                    value = f"{environ[key]}{'; ' if key == 'HTTP_COOKIE' else ','}{value}"
                environ[key] = value
        return environ

    async def _body(self, environ: dict[str, Any], proto: Any, loop: asyncio.AbstractEventLoop) -> Any:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        # The app refuses a body over its limit from the length, unread; which limit (JSON and
        # forms, or uploads) is the app's to say, from the content type.
        if (length <= 0 and not chunked) or length > max(self.settings.max_body, self.settings.max_upload):
            return io.BytesIO(_EMPTY)  # nothing to read, or refused from its length unread
        parts = proto.__aiter__()
        taken = bytearray()
        while len(taken) <= ANONYMOUS_BODY:
            part = await _next_part(parts, self.body_timeout)
            if part is None:
                return io.BytesIO(bytes(taken))
            taken += part
            if not chunked and len(taken) >= length:
                # All the length said: the server gives no more, so its end is not awaited
                # (one wake-up of the loop less per write).
                return io.BytesIO(bytes(taken))
        return _StreamedInput(bytes(taken), parts, loop, self.body_timeout)

    def _call(self, environ: dict[str, Any]) -> tuple[int, list[tuple[str, str]], Any, float]:
        """Run the app: the answer, and the CPU seconds this thread spent on it."""
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            started[:] = [int(status.split(" ", 1)[0]), headers]

        began = time.thread_time()
        try:
            result = self.wsgi(environ, start_response)
        except BodyTimeout:
            return (*_timeout_answer(), time.thread_time() - began)
        if isinstance(result, list):
            body = _EMPTY.join(result)
            _close(result)
            return started[0], started[1], body, time.thread_time() - began
        return started[0], started[1], result, time.thread_time() - began

    def _call_in_lane(self, environ: dict[str, Any]) -> tuple[int, list[tuple[str, str]], Any, float]:
        with self.write_lane.held():
            return self._call(environ)

    async def _stream(self, proto: Any, loop: asyncio.AbstractEventLoop, status: int, headers: Any, result: Any,
                      environ: dict[str, Any]) -> None:
        transport = proto.response_stream(status, headers)
        _sent(environ, status, 0)
        parts = iter(result)
        try:
            while True:
                part = await loop.run_in_executor(self.pool, next, parts, None)
                if part is None:
                    break
                if part:
                    await transport.send_bytes(part)
                    _sent(environ, status, len(part))
        finally:
            await loop.run_in_executor(self.pool, _close, result)


def _sent(environ: dict[str, Any], status: int, size: int) -> None:
    """Count an answer's status and body bytes for its access line (when the front keeps one)."""
    answer = environ.get(FRONT_KEY)
    if answer is not None:
        answer[0] = status
        answer[1] += size


def _close(result: Any) -> None:
    close = getattr(result, "close", None)
    if close is not None:
        close()


def rsgi_app(settings: Settings | None = None) -> Front:
    """Factory for ``calpress serve`` (Granian, RSGI interface): settings come from the
    CALPRESS_* environment."""
    settings = settings or load_settings()
    app = create_app(settings)
    front = Front(app.wsgi, settings, app.reads_only if runs_reads_inline(settings, app.site.engine) else None,
                  access_log=app.access_log, copies=AnswerCopies(app.rest.generation) if app.rest.generation else None,
                  write_lane=is_sqlite(app.site.engine))
    tune_gc()
    return front


def runs_reads_inline(settings: Settings, engine: Any) -> bool:
    """Whether read-only requests run on the event loop: ``inline_reads`` on, or auto with a
    database on this machine (SQLite, or PostgreSQL over a Unix socket or a loopback address),
    whose statements take a fraction of a millisecond."""
    if settings.inline_reads == "auto":
        host = engine.url.host
        return is_sqlite(engine) or not host or is_loopback(host)
    return settings.inline_reads == "on"
