"""The command line in WP-CLI's forms, run in-process against the test's database."""

from __future__ import annotations

import re

import pytest


@pytest.fixture()
def run(cli):
    return cli


def test_user_create_porcelain_prints_only_the_id(run):
    code, out, _ = run("user", "create", "alice", "alice@example.test", "--role=editor", "--user_pass=pw-123", "--porcelain")
    assert code == 0 and re.fullmatch(r"\d+\n", out)
    code, out, _ = run("user", "create", "bob", "bob@example.test", "--role=author", "--display_name=Bob B")
    assert code == 0
    lines = out.splitlines()
    assert re.fullmatch(r"Success: Created user \d+\.", lines[0])
    assert re.fullmatch(r"Password: \S{24}", lines[1])  # generated and shown once


def test_user_create_errors(run):
    run("user", "create", "alice", "alice@example.test", "--role=editor", "--porcelain")
    code, _, err = run("user", "create", "alice", "other@example.test", "--role=editor")
    assert code == 1 and err.startswith("Error: Sorry, that username already exists!")
    code, _, err = run("user", "create", "carol", "carol@example.test", "--role=king")
    assert code == 1 and "Role doesn't exist: king" in err


def test_application_password_create(run, db_url, tmp_path):
    _, user_id, _ = run("user", "create", "alice", "alice@example.test", "--role=editor", "--porcelain")
    for ident in ("alice", user_id.strip(), "alice@example.test"):
        code, out, _ = run("user", "application-password", "create", ident, "Importer", "--porcelain")
        assert code == 0 and re.fullmatch(r"[A-Za-z0-9]{24}\n", out)
    code, _, err = run("user", "application-password", "create", "nobody", "Importer", "--porcelain")
    assert code == 1 and "Invalid user ID, email or login" in err
    # The password really authenticates.
    from appfixtures import RestClient

    from calpress.app import Calpress
    from calpress.config import load_settings

    settings = load_settings({"data_dir": str(tmp_path / "data"), "database_url": db_url, "secret_key": "cli-test-secret", "environment": "local"}, environ={})
    app = Calpress(settings)
    try:
        import base64

        password = run("user", "application-password", "create", "alice", "Check", "--porcelain")[1].strip()
        header = {"Authorization": "Basic " + base64.b64encode(f"alice:{password}".encode()).decode()}
        assert RestClient(app).get("/cms/v2/users/me", headers=header).json["slug"] == "alice"
    finally:
        app.site.close()


def test_options(run):
    assert run("option", "get", "blogname")[1] == "calpress\n"
    code, out, _ = run("option", "update", "blogname", "Example Calendar")
    assert code == 0 and out == "Success: Updated 'blogname' option.\n"
    assert run("option", "get", "blogname")[1] == "Example Calendar\n"
    run("option", "update", "gmt_offset", "-5")
    assert run("option", "get", "gmt_offset")[1] == "-5\n"
    code, _, err = run("option", "get", "no_such_option")
    assert code == 1 and "Could not get 'no_such_option' option" in err


def test_db_upgrade(run):
    code, out, _ = run("db", "upgrade")
    assert code == 0 and out.startswith("Success: Database is at revision ")


def test_seed_demo_shows_progress_and_creates_events(run):
    code, out, err = run("seed-demo", "--events", "30", "--batch", "10")
    assert code == 0, err
    assert out.strip() == "Success: Created 30 demo events."
    assert "seeding events [" in err and "30/30" in err
    code, out, err = run("seed-demo", "--events", "-1")
    assert code == 1 and "Error:" in err


def test_media_import_stores_images_and_refuses_other_files(cli_admin, tmp_path):
    run = cli_admin  # the upload goes through the media route, as the first administrator
    import io

    from PIL import Image

    image = tmp_path / "poster.png"
    buffer = io.BytesIO()
    Image.new("RGB", (400, 300), "white").save(buffer, format="PNG")
    image.write_bytes(buffer.getvalue())
    code, out, err = run("media", "import", str(image), "--porcelain")
    assert code == 0, err
    assert re.fullmatch(r"\d+\n", out)
    uploads = tmp_path / "data" / "uploads"
    assert any(p.name == "poster-150x150.png" for p in uploads.rglob("*.png"))
    script = tmp_path / "script.png"  # a file the media route refuses, whatever its name says
    script.write_text("<?php echo 1;")
    code, _, err = run("media", "import", str(script))
    assert code == 1 and "Unable to import file" in err and "Sorry, you are not allowed to upload this file type." in err
    code, _, err = run("media", "import", str(tmp_path / "missing.png"))
    assert code == 1 and "File doesn't exist" in err


def test_routes_lists_every_rest_route_with_its_methods_and_the_pages(run, app):
    import orjson

    code, out, _ = run("routes", "--format", "json")
    assert code == 0
    rows = orjson.loads(out)
    rest = {row["path"]: row for row in rows if row["kind"] == "rest"}
    assert list(rest) == [route.pattern for route in app.api.registry]
    assert rest["/cms/v2/posts"] == {"kind": "rest", "name": "cms.posts", "methods": ["GET", "POST"], "path": "/cms/v2/posts"}
    assert rest[r"/cal/events/v1/events/(?P<id>\d+)"]["methods"] == ["GET", "DELETE", "POST", "PUT", "PATCH"]
    pages = {row["name"]: row for row in rows if row["kind"] == "page"}
    assert pages["login"]["path"] == "/wp-login.php" and pages["uploads"]["path"] == "/wp-content/uploads/..."
    code, out, _ = run("routes")
    assert code == 0
    assert re.search(r"^rest\s+cms\.posts\.item\s+GET, POST, PUT, PATCH, DELETE\s+/cms/v2/posts/\(\?P<id>\[\\d\]\+\)$", out, re.M)


def test_serve_refuses_a_port_another_server_listens_on(db_url, tmp_path):
    """Granian binds with SO_REUSEPORT: without this check a second server started silently and
    took half of the first one's requests (issue 9, #10). Nothing is served or migrated."""
    import os
    import socket
    import subprocess
    import sys

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    env = {**os.environ, "CALPRESS_DATA_DIR": str(tmp_path / "data"), "CALPRESS_DATABASE_URL": db_url,
           "CALPRESS_SECRET_KEY": "cli-test-secret"}
    try:
        # A server that starts anyway would run until the timeout: that is the failure.
        done = subprocess.run([sys.executable, "-m", "calpress", "serve", "--host", "127.0.0.1", "--port", str(port)],
                              env=env, capture_output=True, text=True, timeout=60)
    finally:
        listener.close()
    assert done.returncode == 1, done.stderr
    assert f"Port {port} on 127.0.0.1 is already in use" in done.stderr and "--share-port" in done.stderr
    assert not (tmp_path / "data").exists()  # refused before any site was opened


ICS = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//cli//EN\r\n"
    "BEGIN:VEVENT\r\nUID:one@test\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:Board meeting\r\n"
    "DTSTART;TZID=Europe/Paris:20270310T090000\r\nDTEND;TZID=Europe/Paris:20270310T100000\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:two@test\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:Weekly\r\n"
    "DTSTART:20270301T170000Z\r\nDTEND:20270301T180000Z\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)


def test_import_ics_from_a_file_then_again(run, tmp_path):
    source = tmp_path / "team.ics"
    source.write_text(ICS)
    code, _, err = run("import", "ics", str(source))
    assert code == 1 and "No administrator to import as" in err
    run("user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain")
    code, out, err = run("import", "ics", str(source), "--from", "2027-01-01", "--until", "2028-01-01")
    assert code == 0, err
    assert re.search(r"Success: Imported .*team\.ics \(record \d+\): 4 created, 0 updated, 0 skipped\.", out)
    assert "importing events [" in err  # the progress bar, on stderr
    code, out, _ = run("import", "ics", str(source), "--from", "2027-01-01", "--until", "2028-01-01", "--quiet")
    assert code == 0 and "0 created, 0 updated, 4 skipped" in out  # the feed is unchanged: nothing written
    source.write_text(ICS.replace("SUMMARY:Board meeting", "SUMMARY:Board meeting (moved)"))
    code, out, _ = run("import", "ics", str(source), "--from", "2027-01-01", "--until", "2028-01-01", "--quiet")
    assert code == 0 and "0 created, 1 updated, 3 skipped" in out
    code, out, _ = run("import", "list")
    assert out.splitlines()[0].split() == ["id", "state", "origin", "done", "source"]
    assert [line.split()[1] for line in out.splitlines()[1:]] == ["success", "success", "success"]
    code, out, _ = run("import", "ics", str(tmp_path / "missing.ics"))
    assert code == 1
    code, _, err = run("import", "ics", str(source), "--from", "2027-13-01", "--until", "2028-01-01")
    assert code == 1 and "--from must be a date" in err
    broken = tmp_path / "broken.ics"
    broken.write_text("hello")
    code, _, err = run("import", "ics", str(broken), "--quiet")
    assert code == 1 and "failed: The feed could not be read" in err


def test_import_schedule_and_run_due(run):
    run("user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain")
    code, _, err = run("import", "schedule", "team.ics")
    assert code == 1 and "http, https or webcal" in err
    code, _, err = run("import", "schedule", "https://feeds.example.test/team.ics", "--every", "5")
    assert code == 1 and "at least 60" in err
    code, out, _ = run("import", "schedule", "webcal://127.0.0.1:9/team.ics", "--every", "3600", "--porcelain")
    assert code == 0 and re.fullmatch(r"\d+\n", out)
    # Due at once (never ran); the address is refused by the outbound guard, so the run fails clearly.
    code, out, err = run("import", "run-due", "--quiet")
    assert code == 1 and "failed: The feed could not be read" in err
    code, out, _ = run("import", "run-due", "--quiet")
    assert code == 0 and "No scheduled import is due." in out
    code, out, _ = run("import", "list", "--format", "json")
    import json

    listed = json.loads(out)
    assert [r["state"] for r in listed] == ["failed", "schedule"]
    assert listed[1]["source"] == "https://127.0.0.1:9/team.ics" and listed[1]["last_run"]
