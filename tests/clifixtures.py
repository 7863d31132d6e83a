"""Command-line fixtures: ``calpress.cli.main`` run in process against the test's database (both
legs), its exit code and output captured. Loaded from conftest as a pytest plugin."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable

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


@pytest.fixture()
def cli_process(db_url, tmp_path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``cli_process(*args)``: the real ``python -m calpress`` in a child process, on the test's
    data folder and database, with no other CALPRESS_ setting from this process."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CALPRESS_")},
           "CALPRESS_DATA_DIR": str(tmp_path / "data"), "CALPRESS_DATABASE_URL": db_url,
           "CALPRESS_SECRET_KEY": "cli-test-secret"}

    def run(*args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "calpress", *args], cwd=tmp_path, env={**env, **(extra_env or {})},
                              capture_output=True, text=True, timeout=120)

    run.env = env  # type: ignore[attr-defined]  # for a test that starts the command its own way
    return run
