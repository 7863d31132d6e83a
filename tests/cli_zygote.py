"""A fork server for the command-line tests: ``python -m calpress`` without paying for the
interpreter's start and calpress's imports at every command.

Each command of the entry-point tests ran as ``python -m calpress ...`` in a new interpreter:
about a second each, nearly all of it importing calpress and its libraries (the suite ran some
300 of them). This process imports them once, then for each request forks a child that runs
``calpress/__main__.py`` as ``python -m calpress`` runs it (``runpy.run_module`` with
``sys.argv`` set), with the request's environment and working folder, standard input from
/dev/null, standard output and error to files of their own (pipes to the command: not a
terminal), and the exit status the interpreter would give (``SystemExit``, 1 after a
traceback). The child exits through the interpreter's normal shutdown (atexit, the last flush),
as a fresh one does. What a fresh interpreter does before that (reading ``PYTHON*`` variables,
setting up the site) is tested where it matters by the tests that still start the real
``python -m calpress`` (on a terminal, with a reader that goes away, serve).

Protocol: one JSON object per line on standard input, ``{"argv": [...], "env": {...}, "cwd":
"...", "timeout": seconds}``; one JSON object per line on standard output, ``{"code": int,
"stdout": str, "stderr": str}`` (bytes decoded as UTF-8 with surrogate escapes). Started by
``tests/clifixtures.py`` once per test process; ends when its standard input closes.
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import tempfile
import time
import traceback


def _preload() -> None:
    """What every command imports sooner or later, imported once here."""
    import psycopg  # noqa: F401 - the PostgreSQL leg's driver
    import sqlalchemy.dialects.postgresql.psycopg  # noqa: F401
    import sqlalchemy.dialects.sqlite  # noqa: F401

    import calpress.app  # noqa: F401 - the app, its routes and schemas
    import calpress.cli  # noqa: F401 - every command module


def _child(request: dict, out_path: str, err_path: str) -> None:
    """In the forked child: become ``python -m calpress <argv>`` and exit as it would."""
    os.setpgid(0, 0)  # the timeout kills the command and whatever it started
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(os.open(out_path, os.O_WRONLY), 1)
    os.dup2(os.open(err_path, os.O_WRONLY), 2)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it at start
    sys.argv = ["calpress", *request["argv"]]
    code: object = 0
    try:
        runpy.run_module("calpress", run_name="__main__", alter_sys=True)
    except SystemExit as done:
        code = done.code
    except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
        traceback.print_exc()
        code = 1
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    raise SystemExit(code)  # through the interpreter's own shutdown, as a fresh process ends


def _wait(pid: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return -signal.SIGKILL
        time.sleep(0.002)


def _read(path: str) -> str:
    with open(path, "rb") as found:
        return found.read().decode("utf-8", "surrogateescape")


def main() -> None:
    _preload()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    for line in sys.stdin:
        request = json.loads(line)
        out_fd, out_path = tempfile.mkstemp(prefix="calpress-cli-out-")
        err_fd, err_path = tempfile.mkstemp(prefix="calpress-cli-err-")
        os.close(out_fd)
        os.close(err_fd)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request, out_path, err_path)
        try:
            code = _wait(pid, float(request.get("timeout", 120)))
            replies.write(json.dumps({"code": code, "stdout": _read(out_path), "stderr": _read(err_path)}) + "\n")
        finally:
            os.unlink(out_path)
            os.unlink(err_path)


if __name__ == "__main__":
    main()
