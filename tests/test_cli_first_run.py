"""A first run as a new user makes it (issue 15): the real ``python -m calpress`` in subprocesses,
run from folders of the test's choosing, so that finding the site from the working folder is what
is tested. No CALPRESS_* variable reaches them unless a test sets it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from calpress.cli import common as cli_common
from calpress.cli import site as cli_site
from calpress.config import FOUND_ABOVE, FOUND_HERE, NOT_FOUND
from calpress.store import db as store_db

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def clean_env(**settings: str) -> dict[str, str]:
    """This process's environment without any CALPRESS_ setting, plus ``settings``."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("CALPRESS_")}, **settings}


def calpress(cwd: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "calpress", *args], cwd=cwd, env=clean_env(**settings),
                          capture_output=True, text=True, timeout=120)


def everything_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*"))


def test_without_a_site_commands_stop_with_the_way_out_and_create_nothing(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    done = calpress(elsewhere, "user", "create", "carl", "carl@example.test")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("Error: No calpress site here: ")
    assert f"data folder {elsewhere / 'data'} ({NOT_FOUND})" in done.stderr
    assert f"no database file {elsewhere / 'data' / 'calpress.sqlite3'}" in done.stderr
    for way_out in ("calpress db upgrade", "calpress serve", "--data-dir", "CALPRESS_DATA_DIR"):
        assert way_out in done.stderr

    given = tmp_path / "typo"
    done = calpress(elsewhere, "option", "get", "blogname", CALPRESS_DATA_DIR=str(given))
    assert done.returncode == 1 and f"data folder {given} (from CALPRESS_DATA_DIR)" in done.stderr

    done = calpress(elsewhere, "info", "--format=json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert (info["data_dir"], info["data_dir_found"]) == (str(elsewhere / "data"), NOT_FOUND)
    assert (info["database_revision"], info["users"], info["secret_key"]) == (None, None, "none yet")

    done = calpress(elsewhere, "routes", "--format=json")  # needs no site, and touches none
    assert done.returncode == 0 and json.loads(done.stdout)

    assert everything_under(tmp_path) == [elsewhere]  # no data folder, secret.key or SQLite file


def test_db_upgrade_creates_the_site_and_commands_from_below_find_it(tmp_path, monkeypatch):
    """The reported failure: commands run from another folder wrote into a new database (and a
    new secret.key, so the application password never worked against the served site)."""
    site = tmp_path / "site"
    below = site / "events" / "2027"
    below.mkdir(parents=True)
    data = site / "data"

    done = calpress(site, "db", "upgrade")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Success: Database is at revision {store_db.head_revision()}.\n"
    assert f"Created a new site: data folder {data} ({NOT_FOUND})" in done.stderr
    assert (data / "secret.key").is_file() and (data / "calpress.sqlite3").is_file()

    done = calpress(below, "user", "create", "carl", "carl@example.test", "--role=administrator", "--porcelain")
    assert done.returncode == 0, done.stderr
    password = calpress(below, "user", "application-password", "create", "carl", "tests", "--porcelain").stdout.strip()
    assert not (below / "data").exists() and not (site / "events" / "data").exists()

    # The password works against the site as served from its data folder (its secret.key).
    from appfixtures import RestClient

    from calpress.app import Calpress
    from calpress.config import load_settings

    app = Calpress(load_settings({"data_dir": str(data), "environment": "local"}, environ={}))
    try:
        import base64

        header = {"Authorization": "Basic " + base64.b64encode(f"carl:{password}".encode()).decode()}
        assert RestClient(app).get("/cms/v2/users/me", headers=header).json["slug"] == "carl"
    finally:
        app.site.close()

    # The first-user hint serve prints works as typed, here from a folder outside the site.
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setattr(cli_site.shutil, "which", lambda name: None)
    hint = cli_site.first_user_hint(data, outside)
    assert hint.startswith(f"{shlex.quote(str(Path(sys.executable).parent / 'calpress'))} --data-dir {data} user create admin")
    done = subprocess.run(shlex.split(hint), cwd=outside, env=clean_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert everything_under(outside) == []

    done = calpress(site, "info", "--format=json")
    info = json.loads(done.stdout)
    assert (info["data_dir"], info["data_dir_found"]) == (str(data), FOUND_HERE)
    assert info["database_url"] == f"sqlite:///{data / 'calpress.sqlite3'}"
    assert info["database_revision"] == store_db.head_revision()
    assert (info["users"], info["uploads_dir"], info["secret_key"]) == (2, str(data / "uploads"), str(data / "secret.key"))
    assert info["calpress_version"] and info["python_version"] == ".".join(map(str, sys.version_info[:3]))

    done = calpress(below, "info")
    lines = dict(line.split(":\t", 1) for line in done.stdout.splitlines())
    assert lines["Data folder"] == f"{data} ({FOUND_ABOVE})"
    assert lines["Database revision"] == store_db.head_revision()
    assert lines["Users"] == "2"
    assert not (below / "data").exists()


def test_input_is_checked_as_the_rest_api_checks_it(db_url, engine, tmp_path):
    from calpress.auth import users
    from calpress.store import options

    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    (site / "data" / "secret.key").write_text("first-run-secret\n")  # as calpress serve leaves it
    database = {"CALPRESS_DATABASE_URL": db_url}

    done = calpress(site, "user", "create", "carl", "not-an-email", **database)
    assert (done.returncode, done.stderr) == (1, "Error: Invalid email address.\n")  # the users endpoint's message
    done = calpress(site, "option", "update", "timezone_string", "Mars/Olympus", **database)
    assert done.returncode == 1
    assert done.stderr.startswith("Error: Could not update 'timezone_string' option: The timezone Mars/Olympus is not valid.")
    done = calpress(site, "option", "update", "start_of_week", "monday", **database)
    assert (done.returncode, done.stderr) == (1, "Error: Could not update 'start_of_week' option: start_of_week is not of type integer.\n")
    with store_db.read_connection(engine) as conn:
        assert users.get_user_by(conn, "login", "carl") is None
        assert options.get_option(conn, "timezone_string", None) is None
        assert options.get_option(conn, "start_of_week", None) is None

    done = calpress(site, "option", "update", "timezone_string", "Europe/Paris", **database)
    assert done.returncode == 0, done.stderr
    with store_db.read_connection(engine) as conn:
        assert options.get_option(conn, "timezone_string", None) == "Europe/Paris"


def test_a_database_never_set_up_is_no_site_until_db_upgrade(empty_db_url, db_leg, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    database = {"CALPRESS_DATABASE_URL": empty_db_url, "CALPRESS_SECRET_KEY": "first-run-secret"}

    done = calpress(site, "option", "get", "blogname", **database)
    assert done.returncode == 1
    expected = "no database file" if db_leg == "sqlite" else "was never set up (no calpress tables)"
    assert done.stderr.startswith("Error: No calpress site here: ") and expected in done.stderr
    assert everything_under(site) == []
    engine = store_db.create_engine(empty_db_url)
    try:
        if db_leg == "postgresql":
            assert store_db.current_revision(engine) is None

        done = calpress(site, "db", "upgrade", **database)
        assert done.returncode == 0, done.stderr
        assert store_db.current_revision(engine) == store_db.head_revision()
    finally:
        engine.dispose()


# -- serve ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_serve_names_the_site_and_how_to_create_its_first_user(db_url, tmp_path):
    from appfixtures import serving

    with serving(db_url, tmp_path):
        pass
    log = (tmp_path / "server.log").read_text()
    live = tmp_path / "live"
    assert f"data folder {live} (from CALPRESS_DATA_DIR), database {db_url})" in log
    assert f"No users yet. Create an administrator with:\n  {cli_site.first_user_hint(live, Path.cwd())}\n" in log


def test_the_command_named_is_the_one_that_runs_here(tmp_path, monkeypatch):
    installed = Path(sys.executable).parent / "calpress"
    if not installed.is_file():
        pytest.skip("calpress is not installed next to this Python")
    monkeypatch.setattr(cli_site.shutil, "which", lambda name: str(installed))
    assert cli_site.command_name(tmp_path) == "calpress"
    monkeypatch.setattr(cli_site.shutil, "which", lambda name: str(tmp_path / "other" / "calpress"))  # another installation
    assert cli_site.command_name(tmp_path) == shlex.quote(str(installed))
    assert cli_site.command_name(cli_common.PROJECT) == "scripts/calpress"
    monkeypatch.setattr(cli_site.shutil, "which", lambda name: None)
    assert cli_site.command_name(cli_common.PROJECT) == "scripts/calpress"

    data = tmp_path / "site" / "data"
    data.mkdir(parents=True)
    (data / "secret.key").write_text("key\n")
    assert cli_site.first_user_hint(data, tmp_path / "site") == (
        f"{shlex.quote(str(installed))} user create admin admin@example.org --role=administrator"
    )
    assert f" --data-dir {data} user create " in cli_site.first_user_hint(data, tmp_path)


# -- scripts/serve and scripts/calpress -----------------------------------------------------------

FAKE_PYTHON = """#!/bin/sh
# Stands in for the venv's Python: notes each call (pip) and installs a calpress that reports how it ran.
bin=$(dirname "$0")
echo "$PWD $*" >>"$bin/../pip.log"
printf '#!/bin/sh\\necho "cwd=$PWD data=${CALPRESS_DATA_DIR:-} args=$*"\\n' >"$bin/calpress"
chmod +x "$bin/calpress"
"""


def test_the_scripts_install_only_when_pyproject_changed_and_run_where_called(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(SCRIPTS, project / "scripts")
    (project / "pyproject.toml").write_text("[project]\nname = 'calpress'\n")
    venv_bin = project / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text(FAKE_PYTHON)
    (venv_bin / "python").chmod(0o755)
    pip_log = project / ".venv" / "pip.log"
    caller = tmp_path / "caller"
    caller.mkdir()

    def run(script: str, *args: str, **settings: str) -> str:
        done = subprocess.run(["bash", str(project / "scripts" / script), *args], cwd=caller, env=clean_env(**settings),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def installs() -> int:
        return len(pip_log.read_text().splitlines()) if pip_log.exists() else 0

    assert run("calpress", "info", "--format=json") == f"cwd={caller} data= args=info --format=json\n"
    assert pip_log.read_text() == f"{project} -m pip install -q -e .\n"  # in the project folder
    assert run("calpress", "info") == f"cwd={caller} data= args=info\n"
    assert installs() == 1  # pyproject.toml unchanged: no pip
    assert run("serve", "--port", "9") == f"cwd={caller} data={project / 'data'} args=serve --port 9\n"
    assert run("serve", CALPRESS_DATA_DIR="mine") == f"cwd={caller} data=mine args=serve\n"
    assert installs() == 1

    (project / "pyproject.toml").write_text("[project]\nname = 'calpress'\nversion = '0.2.0'\n")
    run("serve")
    assert installs() == 2
    (venv_bin / "calpress").unlink()
    run("calpress", "info")
    assert installs() == 3
    run("calpress", "info")
    assert installs() == 3
