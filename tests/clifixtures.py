"""Command-line fixtures: ``calpress.cli.main`` run in process against the test's database (both
legs), its exit code and output captured. Loaded from conftest as a pytest plugin."""

from __future__ import annotations

import re
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
