"""``calpress doctor`` as an operator and a monitor run it: exit 0 on a healthy fresh install
(no site address, no internet), 1 with a broken piece, each problem with its fix, and
``--format json`` as one document whose exit code follows the worst status. Both databases."""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa
from appfixtures import free_port

from calpress.store import db as store_db

CHECKS = ["background_updates", "uploads", "loopback_requests", "https_status", "authorization_header", "page_cache"]


@pytest.fixture()
def doctor(cli, monkeypatch):
    """``doctor(*args)``: the doctor on the test's site with a clean environment for it; returns
    (exit code, stdout, stderr)."""
    for name in ("CALPRESS_SITE_URL", "CALPRESS_UPLOADS_DIR", "CALPRESS_S3_BUCKET"):
        monkeypatch.delenv(name, raising=False)

    def run(*args: str):
        return cli(*args, "doctor")

    return run


def run_json(cli, *args: str) -> tuple[int, dict]:
    code, out, _ = cli(*args, "doctor", "--format", "json")
    return code, json.loads(out)


def statuses(report: dict) -> dict[str, str]:
    return {check["name"]: check["status"] for check in report["checks"]}


def test_a_fresh_install_is_healthy(doctor, cli):
    code, out, err = doctor()
    assert code == 0, out + err
    rows = dict(re.findall(r"^(\w+)\s+(good|recommended|critical)\s", out, re.MULTILINE))
    assert list(rows) == CHECKS, out
    assert rows["background_updates"] == rows["uploads"] == "good"
    assert "critical" not in rows.values()
    assert "dotorg" not in out and "WordPress.org" not in out  # nothing to do with this service
    # Each problem is followed by its fix; a good check has none.
    fixes = re.findall(r"^\s+fix: (.+)$", out, re.MULTILINE)
    assert len(fixes) == sum(status != "good" for status in rows.values())
    assert any("CALPRESS_SITE_URL" in fix for fix in fixes)

    code, report = run_json(cli)
    assert code == 0
    assert list(report) == ["status", "checks", "directory_sizes"]
    assert report["status"] == "recommended"
    for check in report["checks"]:
        assert list(check) == ["name", "status", "label", "fix"]
        assert check["status"] in ("good", "recommended", "critical")
        assert check["label"]
        # One sentence a person can act on for every problem; nothing for a good check.
        assert (check["fix"] == "") == (check["status"] == "good"), check
        assert check["fix"] == "" or check["fix"].endswith(".")
    assert statuses(report) == {
        "background_updates": "good",
        "uploads": "good",
        "loopback_requests": "recommended",  # no address to request: not applicable, not critical
        "https_status": "recommended",
        "authorization_header": "recommended",
        "page_cache": "recommended",
    }
    assert "database_size" in report["directory_sizes"]


def test_an_uploads_folder_that_cannot_take_files(cli, doctor, monkeypatch, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the uploads folder should be")
    monkeypatch.setenv("CALPRESS_UPLOADS_DIR", str(blocker / "uploads"))
    code, out, _ = doctor()
    assert code == 1
    assert re.search(r"^uploads\s+critical\s+Uploaded files cannot be stored$", out, re.MULTILINE), out
    assert re.search(r"^\s+fix: Make .*blocker/uploads a folder .* CALPRESS_UPLOADS_DIR", out, re.MULTILINE), out
    code, report = run_json(cli)
    assert (code, report["status"], statuses(report)["uploads"]) == (1, "critical", "critical")
    assert statuses(report)["background_updates"] == "good"


def test_a_database_behind_the_current_migration(cli, doctor, engine):
    previous = store_db._script_directory().get_revision(store_db.head_revision()).down_revision
    with store_db.write_transaction(engine) as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :v"), {"v": previous})
    code, report = run_json(cli)
    assert code == 1 and report["status"] == "critical"
    database = next(check for check in report["checks"] if check["name"] == "background_updates")
    assert database["status"] == "critical"
    assert "calpress db upgrade" in database["fix"] and previous in database["fix"]
    assert store_db.current_revision(engine) == previous  # the doctor reports, it does not migrate
    code, out, _ = doctor()
    assert code == 1 and "fix: Run `calpress db upgrade`" in out


def test_a_site_url_that_answers_nothing_is_critical(cli, doctor):
    closed = f"http://127.0.0.1:{free_port()}"
    code, report = run_json(cli, "--site-url", closed)
    assert code == 1
    loopback = next(check for check in report["checks"] if check["name"] == "loopback_requests")
    assert loopback["status"] == "critical"
    assert "calpress serve" in loopback["fix"] and closed in loopback["fix"]


def test_a_database_that_cannot_be_reached(tmp_path, capsys, monkeypatch):
    from calpress.cli import main

    monkeypatch.setenv("CALPRESS_SECRET_KEY", "doctor-test-secret")
    data = ["--data-dir", str(tmp_path / "data"), "--database-url", f"postgresql://calpress@127.0.0.1:{free_port()}/calpress"]
    assert main([*data, "doctor", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "critical"
    assert [(c["name"], c["status"]) for c in report["checks"]] == [("site", "critical")]
    assert "Cannot open the database" in report["checks"][0]["fix"]
    assert main([*data, "doctor"]) == 1
    assert "Error: Cannot open the database" in capsys.readouterr().err
