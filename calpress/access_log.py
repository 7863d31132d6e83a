"""The access log and the request id: one JSON line per request, through the logging module.

Each line (logger ``calpress.access``, formatted by logs.JsonFormatter) holds the time in UTC,
the request id, method, path, the query with its secrets replaced by ``[redacted]``, status,
bytes of body sent, duration in milliseconds, the client's address (after trusted proxies,
proxies.py), the user id when the request was authenticated and the route's name (the REST
route's, or the page's from the page table). No header is logged, Authorization least of all.

The setting ``access_log`` says where lines go: ``on`` (the default) with the other logs on
stderr, ``off``, or a file path (a file of its own, reopened when log rotation moves it). Lines
are written at info level, whatever ``log_level`` says; the probes of load balancers
(``/healthz``, ``/readyz``) at debug level, so they appear only with ``log_level=debug``.

With metrics on (metrics.py), each request is counted where its line is written, here, once.

The request id is the ``X-Request-Id`` of the request when a trusted proxy sent it and it is
sane (printable ASCII, at most 200 characters), else 16 random bytes in hex. It goes back in the
``X-Request-Id`` header of every answer and on every log line written while the request runs
(logs.REQUEST_ID).

Who writes the line: under ``calpress serve`` the front (front.py), which knows when the answer
left, counts the bytes of streamed answers and answers some requests itself (408, 429); under
any other WSGI server and in the tests, :class:`RequestLayer`, the outermost layer of
``Calpress.wsgi``, when the front did not take the request.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from logging.handlers import WatchedFileHandler
from typing import Any
from urllib.parse import unquote_plus

from .admission import USER_KEY
from .logs import REQUEST_ID, JsonFormatter
from .proxies import TRUSTED_KEY, TrustedProxies

__all__ = ["FRONT_KEY", "REQUEST_ID_KEY", "ROUTE_KEY", "AccessLog", "RequestLayer", "redact_query", "request_id_header"]

LOGGER_NAME = "calpress.access"
REQUEST_ID_KEY = "calpress.request_id"
"""The request's id, in its environ."""
FRONT_KEY = "calpress.front"
"""Set in an environ by the front of ``calpress serve``: it writes the request's line itself."""
ROUTE_KEY = "calpress.route"
"""The name of what answered, in the environ: a page's name, or a callable giving the REST route's."""
QUIET_ROUTES = frozenset({"healthz", "readyz", "metrics"})
# Query arguments never written: passwords, nonces, keys and tokens of links (the password reset
# key, comment moderation hashes, the workspace's nonces).
SECRET_ARGUMENTS = frozenset({
    "password", "post_password", "pwd", "pass1", "pass2", "_wpnonce", "nonce", "_nonce", "tvn1", "tvn2", "token",
    "key", "moderation-hash", "secret", "auth", "access_token", "refresh_token", "api_key", "rp_key",
})
_SECRET_PARTS = ("pass", "token", "secret", "nonce")
REDACTED = "[redacted]"
_LONGEST_ID = 200
_OFF = ("off", "0", "false", "no")
_ON = ("on", "1", "true", "yes", "stderr", "")

_logger = logging.getLogger(LOGGER_NAME)


def _is_secret(name: str) -> bool:
    if "%" in name or "+" in name:
        name = unquote_plus(name)
    # Each key of a bracketed name counts (``user[password]``).
    for key in name.lower().replace("]", "").split("["):
        key = key.strip()
        if key in SECRET_ARGUMENTS or any(part in key for part in _SECRET_PARTS):
            return True
    return False


def redact_query(query: str) -> str:
    """``query`` with the value of every secret argument (``SECRET_ARGUMENTS``, or a name holding
    pass, token, secret or nonce) replaced by ``[redacted]``. The queries of the last requests are
    remembered as redacted (a listing asked again and again is redacted once)."""
    if not query:
        return ""
    found = _redacted.get(query)
    if found is None:
        found = _redact(query)
        if len(query) <= 256:
            if len(_redacted) >= _REDACTED_KEPT:
                _redacted.clear()
            _redacted[query] = found
    return found


_redacted: dict[str, str] = {}
_REDACTED_KEPT = 1024


def _redact(query: str) -> str:
    parts = query.split("&")
    changed = False
    for index, part in enumerate(parts):
        name, equals, _ = part.partition("=")
        if equals and _is_secret(name):
            parts[index] = f"{name}={REDACTED}"
            changed = True
    return "&".join(parts) if changed else query


def request_id_header(value: str | None) -> str | None:
    """A request id sent by a proxy, when it is sane: printable ASCII, 1 to 200 characters."""
    if not value or len(value) > _LONGEST_ID or not value.isascii() or not value.isprintable():
        return None
    value = value.strip()
    return value or None


def new_request_id() -> str:
    return os.urandom(16).hex()


class AccessLog:
    """The request ids and access lines of one app: its trusted proxies, where lines go, and how
    the name of what answered a request is found (``route_name``, given the environ)."""

    def __init__(self, setting: str = "on", *, log_level: str = "warning", proxies: TrustedProxies | None = None,
                 route_name: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.proxies = proxies if proxies is not None else TrustedProxies()
        self.route_name = route_name or (lambda environ: environ.get(ROUTE_KEY))
        text = str(setting).strip()
        self.enabled = text.lower() not in _OFF
        self.path = None if text.lower() in _ON or not self.enabled else text
        self.logger = _logger
        # The app's Prometheus metrics (metrics.py) when on: told of every request here, where its
        # line is written, so that each request is counted once whoever answered it.
        self.metrics: Any = None
        if self.enabled:
            _setup(self.path, log_level)

    def open(self) -> None:
        """Try the log file now (when there is one), as a server starts: a path it cannot write
        is said once, at error level, and the lines go to stderr with the other logs instead (a
        worker failing at start would be started again without end)."""
        if self.path is None:
            return
        try:
            with open(self.path, "a", encoding="utf-8"):
                pass
        except OSError as err:
            path, self.path = self.path, None
            _setup(None, logging.getLevelName(self.logger.level))
            logging.getLogger("calpress").error("the access log %s cannot be written (%s): access lines go to stderr",
                                                path, err.strerror or err)

    def begin(self, environ: dict[str, Any]) -> str:
        """Read the request's forwarding headers (once) and give it its id (once); the id."""
        self.proxies.apply(environ)
        request_id = environ.get(REQUEST_ID_KEY)
        if request_id is None:
            if environ.get(TRUSTED_KEY):
                request_id = request_id_header(environ.get("HTTP_X_REQUEST_ID"))
            request_id = environ[REQUEST_ID_KEY] = request_id or new_request_id()
        return request_id

    def write(self, environ: dict[str, Any], status: int, sent: int, seconds: float) -> None:
        """The access line of a request answered ``status`` with ``sent`` bytes of body in
        ``seconds`` (and count it in the metrics, when they are on)."""
        if not self.enabled and self.metrics is None:
            return
        try:
            route = self.route_name(environ)
        except Exception:  # the line matters more than its route's name
            route = None
        if self.metrics is not None:
            self.metrics.request(route, environ.get("REQUEST_METHOD", ""), status, seconds)
            if not self.enabled:
                return
        level = logging.DEBUG if route in QUIET_ROUTES else logging.INFO
        if not self.logger.isEnabledFor(level):
            return
        method = environ.get("REQUEST_METHOD", "")
        path = environ.get("PATH_INFO") or "/"
        if not path.isascii():  # WSGI carries the URL's bytes as latin-1
            path = path.encode("latin-1", "replace").decode("utf-8", "replace")
        entry: dict[str, Any] = {"method": method, "path": path}
        query = environ.get("QUERY_STRING")
        if query:
            entry["query"] = redact_query(query)
        entry["status"] = status
        entry["bytes"] = sent
        entry["duration_ms"] = round(seconds * 1000, 3)
        entry["client"] = environ.get("REMOTE_ADDR") or ""
        user = environ.get(USER_KEY)
        if user:
            entry["user_id"] = user
        if route:
            entry["route"] = route
        self.logger.handle(_AccessRecord(level, f"{method} {path} {status}", entry, environ.get(REQUEST_ID_KEY)))


class _AccessRecord(logging.LogRecord):
    """A log record made for one access line: the attributes every handler and formatter may
    read, without the work ``LogRecord.__init__`` does to find the caller's file, thread name and
    process name (a tenth of the cost of a cached answer)."""

    def __init__(self, level: int, message: str, access: dict[str, Any], request_id: str | None) -> None:  # noqa: D107
        created = time.time()
        self.__dict__.update(_RECORD_CONSTANTS)  # formatters read the record's __dict__
        self.name = LOGGER_NAME
        self.msg = message
        self.levelno = level
        self.levelname = _LEVEL_NAMES[level]
        self.created = created
        self.msecs = (created - int(created)) * 1000
        self.relativeCreated = (created - _STARTED) * 1000
        self.thread = threading.get_ident()
        self.process = _PID[0]
        self.access = access
        self.request_id = request_id


_LEVEL_NAMES = {logging.DEBUG: "DEBUG", logging.INFO: "INFO"}
_RECORD_CONSTANTS = {
    "pathname": __file__, "filename": "access_log.py", "module": "access_log", "funcName": "write", "lineno": 0,
    "args": None, "exc_info": None, "exc_text": None, "stack_info": None, "threadName": None, "processName": None,
    "taskName": None,
}
_STARTED = time.time()
_PID = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))

_file_handler: logging.Handler | None = None


def _setup(path: str | None, log_level: str) -> None:
    """Point ``calpress.access`` at ``path`` (None: the other logs' handlers, on stderr) at info
    level, or debug when ``log_level`` is debug; each call replaces what the last one set up."""
    global _file_handler
    configured = getattr(logging, str(log_level).upper(), logging.WARNING)
    _logger.setLevel(min(logging.INFO, configured) if isinstance(configured, int) else logging.INFO)
    if _file_handler is not None:
        _logger.removeHandler(_file_handler)
        _file_handler.close()
        _file_handler = None
    if path is None:
        _logger.propagate = True
        return
    # Opened on the first line (or by ``AccessLog.open``): a command-line tool that builds the app
    # and serves no request leaves the file alone.
    _file_handler = _RotatedFile(path, encoding="utf-8", delay=True)
    _file_handler.setFormatter(JsonFormatter())
    _logger.addHandler(_file_handler)
    _logger.propagate = False


class _RotatedFile(WatchedFileHandler):
    """A log file reopened when log rotation has moved it, looked at once a second rather than
    at every line (a stat per request was a tenth of the cost of a cached answer)."""

    _checked = 0.0

    def reopenIfNeeded(self) -> None:  # noqa: N802 (the logging module's name)
        now = time.monotonic()
        if now - self._checked >= 1.0:
            self._checked = now
            super().reopenIfNeeded()


class RequestLayer:
    """The outermost WSGI layer of the app: each request gets its forwarded client, scheme and
    host, its id (in the ``X-Request-Id`` header of the answer and on its log lines), and its
    access line unless the front of ``calpress serve`` writes it."""

    def __init__(self, app: Callable[..., Iterable[bytes]], log: AccessLog) -> None:
        self.app = app
        self.log = log

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        began = time.perf_counter()
        request_id = self.log.begin(environ)
        status: list[str] = []

        def respond(line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            status[:] = [line]
            return start_response(line, [*headers, ("X-Request-Id", request_id)], exc_info)

        token = REQUEST_ID.set(request_id)
        try:
            result = self.app(environ, respond)
        finally:
            REQUEST_ID.reset(token)
        if FRONT_KEY in environ or (not self.log.enabled and self.log.metrics is None):
            return result
        if isinstance(result, list):
            self.log.write(environ, _code(status), sum(map(len, result)), time.perf_counter() - began)
            return result
        return _Logged(result, self.log, environ, status, began)


def _code(status: list[str]) -> int:
    try:
        return int(status[0][:3])
    except (IndexError, ValueError):
        return 0


class _Logged:
    """A streamed answer whose line is written when the server closes it (the body sent)."""

    def __init__(self, result: Iterable[bytes], log: AccessLog, environ: dict[str, Any], status: list[str], began: float) -> None:
        self.result = result
        self.log = log
        self.environ = environ
        self.status = status
        self.began = began
        self.sent = 0

    def __iter__(self) -> Iterator[bytes]:
        for part in self.result:
            self.sent += len(part)
            yield part

    def close(self) -> None:
        try:
            close = getattr(self.result, "close", None)
            if close is not None:
                close()
        finally:
            self.log.write(self.environ, _code(self.status), self.sent, time.perf_counter() - self.began)
