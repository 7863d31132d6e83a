"""Command-line fixtures: ``calpress.cli.main`` run in process against the test's database (both
legs), its exit code and output captured. Loaded from conftest as a pytest plugin."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from calpress.cli import main

Result = tuple[int, str, str]


@pytest.fixture()
def cli(db_url, tmp_path, capsys, monkeypatch) -> Callable[..., Result]:
    """``cli(*args)``: calpress's command line on the test's data folder and database; returns
    (exit code, stdout, stderr)."""
    monkeypatch.setenv("CALPRESS_SECRET_KEY", "cli-test-secret")

    def invoke(*args: str) -> Result:
        code = main(["--data-dir", str(tmp_path / "data"), "--database-url", db_url, *args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


@pytest.fixture()
def cli_admin(cli) -> Callable[..., Result]:
    """:func:`cli` on a site with an administrator (``boss``), whom content commands run as."""
    code, _, err = cli("user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain")
    assert code == 0, err
    return cli


def ok(result: Result) -> str:
    """The output of a command that must succeed."""
    code, out, err = result
    assert code == 0, err
    return out


def new_id(result: Result) -> int:
    """The id a ``--porcelain`` create printed."""
    out = ok(result)
    assert re.fullmatch(r"\d+\n", out), out
    return int(out)


class _Zygote:
    """tests/cli_zygote.py, started on first use in this test process: runs ``python -m calpress``
    commands in children forked from a process that has imported calpress already."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def run(self, argv: list[str], env: dict[str, str], cwd: str, timeout: float) -> subprocess.CompletedProcess[str]:
        if self.process is None or self.process.poll() is not None:
            base = {k: v for k, v in os.environ.items() if not k.startswith("CALPRESS_")}
            self.process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("cli_zygote.py"))], env=base,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"argv": argv, "env": env, "cwd": cwd, "timeout": timeout}) + "\n")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the command-line fork server ended")
        reply = json.loads(line)
        if reply["code"] == -signal.SIGKILL:
            raise subprocess.TimeoutExpired(["python", "-m", "calpress", *argv], timeout)

        def text(value: str) -> str:  # as subprocess's text mode reads a pipe (universal newlines)
            return value.replace("\r\n", "\n").replace("\r", "\n")

        return subprocess.CompletedProcess(["python", "-m", "calpress", *argv], reply["code"], text(reply["stdout"]),
                                           text(reply["stderr"]))

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="session")
def cli_zygote():
    zygote = _Zygote()
    yield zygote
    zygote.close()


@pytest.fixture()
def cli_process(db_url, tmp_path, cli_zygote) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``cli_process(*args)``: ``python -m calpress`` in a child process, on the test's data folder
    and database, with no other CALPRESS_ setting from this process. The child is forked from a
    process that has imported calpress once (tests/cli_zygote.py says what that changes: nothing
    a command sees); ``cli_process.env`` is the environment, for a test that starts the real
    interpreter its own way."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CALPRESS_")},
           "CALPRESS_DATA_DIR": str(tmp_path / "data"), "CALPRESS_DATABASE_URL": db_url,
           "CALPRESS_SECRET_KEY": "cli-test-secret"}

    def run(*args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return cli_zygote.run(list(args), {**env, **(extra_env or {})}, str(tmp_path), 120)

    run.env = env  # type: ignore[attr-defined]  # for a test that starts the command its own way
    return run
