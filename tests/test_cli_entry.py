"""Every command of the parser through the real entry point: ``python -m calpress`` in a child
process (the ``cli_process`` fixture), on both databases. One test per family runs its commands in
sequence and checks what a script would see: the exit code, the output in the format asked for
(json and csv parsed, ``ids``, ``count``, ``--field``, ``--fields``, ``--porcelain``), that a
change is stored (read back by another command), and one refusal (exit 1, ``Error: ...`` on
stderr, nothing stored). The semantics are tested in process (tests/test_cli*.py); here it is the
entry point: argument parsing, output to a pipe, exit codes, the site found from the environment.

``COVERED`` names the test running each command; ``test_every_command_runs_through_the_entry_point``
fails for a command of the parser that no test runs (``EXPECTED_ELSEWHERE``: the commands added
alongside this file, whose entry-point tests live with their own).

Setting up what a command works on (the administrator commands run as, a post to comment on) is
done in process (``cli_admin``): each child costs about a second, the process's own ``main`` a few
milliseconds. About 115 children run per leg, 1.0 to 1.5 s each on the 2-core development machine
(depending on its load), so the file takes 2 to 3 minutes per leg, nearly all of it the children's
imports: ``time .venv/bin/python -m calpress --help`` takes 0.6 s, a command through the REST
engine 1.0 s on a quiet machine (``pytest tests/test_cli_entry.py -p no:randomly -n 0
--durations=0`` times the tests).
"""

from __future__ import annotations

import argparse
import ast
import csv
import inspect
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import yaml  # PyYAML, which schemathesis (a test dependency) requires
from clifixtures import new_id as new_id_in_process
from clifixtures import ok as ok_in_process
from mailfixtures import smtp_server

from calpress.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent

Done = subprocess.CompletedProcess

# -- what runs each command -----------------------------------------------------------------------

# command path -> the test of this module that runs it through cli_process, or (module, test) for
# one whose run of the real entry point lives elsewhere.
COVERED: dict[str, str | tuple[str, str]] = {
    # This test checks what serve prints (SQLite only); appfixtures.serving starts it as a real
    # process on both databases for the live_server tests (tests/e2e/test_live_server.py).
    "serve": ("tests/test_cli_first_run.py", "test_serve_names_the_site_and_how_to_create_its_first_user"),
    **dict.fromkeys(("db upgrade", "db check", "db size", "info", "doctor", "routes", "cache flush", "seed-demo"),
                    "test_site_and_database_commands"),
    **dict.fromkeys(("user create", "user list", "user get", "user update", "user delete", "user set-role",
                     "user reset-password", "user application-password create", "user application-password list",
                     "user application-password delete"), "test_user_commands"),
    **dict.fromkeys(("option get", "option update", "option list", "option add", "option delete", "option patch"),
                    "test_option_commands"),
    **dict.fromkeys(("post list", "post get", "post create", "post update", "post delete", "post meta list",
                     "post meta get", "post meta update", "post meta delete"), "test_post_and_post_meta_commands"),
    **dict.fromkeys(("term list", "term get", "term create", "term update", "term delete"), "test_term_commands"),
    **dict.fromkeys((f"{what} {verb}" for what in ("event", "venue", "organizer")
                     for verb in ("list", "get", "create", "update", "delete")), "test_event_venue_organizer_commands"),
    **dict.fromkeys(("comment list", "comment get", "comment create", "comment approve", "comment unapprove",
                     "comment spam", "comment unspam", "comment trash", "comment untrash", "comment delete"),
                    "test_comment_commands"),
    **dict.fromkeys(("media import", "media list", "media regenerate"), "test_media_commands"),
    **dict.fromkeys(("import ics", "import list", "import schedule", "import run-due"), "test_feed_import_commands"),
}

# Commands other engineers added alongside this file, whose entry-point tests came with them: the
# test module and test that run each one through cli_process (None: not written yet, and the
# meta-test leaves the command alone until it is named here).
EXPECTED_ELSEWHERE: dict[str, tuple[str, str | None]] = {
    "db export": ("tests/test_cli_more.py", "test_db_export_and_import_through_the_real_entry_point"),
    "db import": ("tests/test_cli_more.py", "test_db_export_and_import_through_the_real_entry_point"),
    "post meta add": ("tests/test_cli_extra.py", "test_post_meta_add_patch_pluck_through_the_real_entry_point"),
    "post meta patch": ("tests/test_cli_extra.py", "test_post_meta_add_patch_pluck_through_the_real_entry_point"),
    "post meta pluck": ("tests/test_cli_extra.py", "test_post_meta_add_patch_pluck_through_the_real_entry_point"),
    "import wxr": ("tests/transfer/test_wxr_import.py", "test_import_wxr_through_the_real_command"),
    "export wxr": ("tests/transfer/test_wxr_import.py", "test_export_wxr_through_the_real_command"),
}


# -- helpers --------------------------------------------------------------------------------------


def _shown(done: Done) -> str:
    return f"calpress {' '.join(done.args[3:])}: exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"


def ok(done: Done) -> str:
    """The output of a command that must succeed."""
    assert done.returncode == 0 and "Traceback" not in done.stderr, _shown(done)
    return done.stdout


def new_id(done: Done) -> int:
    """The id a ``--porcelain`` create printed, alone on its line."""
    out = ok(done)
    assert re.fullmatch(r"\d+\n", out), _shown(done)
    return int(out)


def refused(done: Done, message: str) -> None:
    """A command refused as WP-CLI refuses: exit 1, nothing on stdout, ``Error: <message>...`` on
    stderr (``message`` is how it starts)."""
    assert (done.returncode, done.stdout) == (1, ""), _shown(done)
    assert done.stderr.startswith(f"Error: {message}") and "Traceback" not in done.stderr, _shown(done)


def as_json(done: Done) -> Any:
    return json.loads(ok(done))


def as_csv(done: Done) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(ok(done))))


def as_yaml(done: Done) -> Any:
    return yaml.safe_load(ok(done))


def ids(done: Done) -> list[int]:
    """``--format=ids``: the ids on one line, separated by spaces."""
    out = ok(done)
    assert re.fullmatch(r"(\d+( \d+)*)?\n?", out), _shown(done)
    return [int(part) for part in out.split()]


def count(done: Done) -> int:
    out = ok(done)
    assert re.fullmatch(r"\d+\n", out), _shown(done)
    return int(out)


def on_terminal(cli_process: Any, cwd: Path, *args: str) -> tuple[int, str]:
    """A command run as typed in a shell, its output on a terminal (a pseudo-terminal), with
    cli_process's environment: (exit code, what it showed)."""
    import pty

    main, secondary = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "calpress", *args], cwd=cwd, env=cli_process.env,
                             stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary)
    os.close(secondary)
    shown = b""
    try:
        while chunk := os.read(main, 65536):
            shown += chunk
    except OSError:  # EIO: the child closed the terminal
        pass
    finally:
        os.close(main)
    return child.wait(timeout=120), shown.decode().replace("\r\n", "\n")  # the terminal's line endings


def png(path: Path, size: tuple[int, int] = (400, 300)) -> Path:
    from PIL import Image

    Image.new("RGB", size, "white").save(path, format="PNG")
    return path


# -- site and database ----------------------------------------------------------------------------


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_a_reader_that_stops_early_gets_no_traceback(cli_process, tmp_path):
    # The pipe is closed before the child writes anything: its first write fails, every time.
    child = subprocess.Popen([sys.executable, "-m", "calpress", "option", "get", "blogname"], cwd=tmp_path,
                             env=cli_process.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child.stdout.close()
    errors = child.stderr.read()
    child.wait(timeout=120)
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors


def test_site_and_database_commands(cli_process, cli_admin, db_url, tmp_path):
    from calpress.store import db as store_db

    head = store_db.head_revision()
    assert ok(cli_process("db", "upgrade")) == f"Success: Database is at revision {head}.\n"
    out = ok(cli_process("db", "check"))
    assert f"revision: {head} (the newest)\n" in out and out.endswith("Success: Database checked.\n")

    sized = as_json(cli_process("db", "size", "--format=json"))
    assert len(sized) == 1 and list(sized[0]) == ["Name", "Size"]
    assert re.fullmatch(r"\d+ (B|KB|MB|GB)", sized[0]["Size"])
    import sqlalchemy as sa

    url = sa.make_url(db_url)
    assert sized[0]["Name"] == (Path(url.database).name if url.get_backend_name() == "sqlite" else url.database)

    info = as_json(cli_process("info", "--format=json"))
    assert (info["data_dir"], info["data_dir_found"]) == (str(tmp_path / "data"), "from CALPRESS_DATA_DIR")
    assert (info["database_url"], info["database_revision"], info["users"]) == (db_url, head, 1)
    assert info["secret_key"] == "from CALPRESS_SECRET_KEY"

    routes = as_json(cli_process("routes", "--format=json"))
    rest = {row["name"]: row for row in routes if row["kind"] == "rest"}
    assert rest["cms.posts"] == {"kind": "rest", "name": "cms.posts", "methods": ["GET", "POST"], "path": "/cms/v2/posts"}
    assert any(row["kind"] == "page" and row["path"] == "/wp-login.php" for row in routes)

    # The health checks against this site: exit 1 exactly when one is critical (a site without an
    # address has nothing to request: its loopback check is not applicable, not critical).
    done = cli_process("doctor", "--format=json")
    report = json.loads(done.stdout)
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert statuses["background_updates"] == "good" and statuses["loopback_requests"] == "recommended"
    assert done.returncode == (1 if "critical" in statuses.values() else 0) == 0, _shown(done)
    assert "database_size" in report["directory_sizes"] and "Traceback" not in done.stderr

    engine = sa.create_engine(store_db.normalize_url(db_url))
    try:
        def content_counter() -> int:
            with engine.connect() as conn:
                return conn.execute(sa.text("SELECT value FROM counters WHERE name = 'content'")).scalar()

        before = content_counter()
        assert ok(cli_process("cache", "flush")) == "Success: The cache was flushed.\n"
        assert content_counter() == before + 1
    finally:
        engine.dispose()

    refused(cli_process("seed-demo", "--events", "-1"), "--events must be 0 or more")
    assert ok(cli_process("seed-demo", "--events", "3", "--quiet")) == "Success: Created 3 demo events.\n"
    assert count(cli_process("event", "list", "--format=count")) == 3


# -- users and application passwords --------------------------------------------------------------


def test_user_commands(cli_process, cli_admin):
    boss = 1
    editor = new_id(cli_process("user", "create", "ed", "ed@example.test", "--role=editor", "--porcelain"))
    out = ok(cli_process("user", "create", "sub", "sub@example.test", "--role=subscriber", "--display_name=Sub Scriber"))
    match = re.fullmatch(r"Success: Created user (\d+)\.\nPassword: \S{24}\n", out)
    assert match, out
    subscriber = int(match.group(1))
    refused(cli_process("user", "create", "carl", "not-an-email", "--role=author"), "Invalid email address.")

    rows = as_csv(cli_process("user", "list", "--format=csv"))
    assert list(rows[0]) == ["ID", "user_login", "display_name", "user_email", "user_registered", "roles"]
    assert [(int(row["ID"]), row["user_login"], row["roles"]) for row in rows] == [
        (boss, "boss", "administrator"), (editor, "ed", "editor"), (subscriber, "sub", "subscriber")]  # carl not stored

    got = as_json(cli_process("user", "get", "ed@example.test", "--format=json"))
    assert (got["ID"], got["user_login"], got["display_name"], got["roles"]) == (editor, "ed", "ed", "editor")
    assert ok(cli_process("user", "update", "ed", "--display_name=Ed Wood", "--user_url=https://ed.example")) == (
        f"Success: Updated user {editor}.\n")
    assert ok(cli_process("user", "set-role", str(editor), "author")) == (
        f"Success: Added ed ({editor}) to http://localhost as author.\n")
    assert as_json(cli_process("user", "get", "ed", "--format=json", "--fields=display_name,user_url,roles")) == {
        "display_name": "Ed Wood", "user_url": "https://ed.example", "roles": "author"}

    password = ok(cli_process("user", "application-password", "create", "ed", "Importer", "--porcelain"))
    assert re.fullmatch(r"[A-Za-z0-9]{24}\n", password)
    out = ok(cli_process("user", "application-password", "create", "ed", "Second", "--app-id=abc"))
    assert re.fullmatch(r"Success: Created application password\.\nPassword: [A-Za-z0-9]{24}\n", out)
    listed = as_json(cli_process("user", "application-password", "list", "ed", "--format=json"))
    assert sorted((item["name"], item["app_id"]) for item in listed) == [("Importer", ""), ("Second", "abc")]
    first = next(item["uuid"] for item in listed if item["name"] == "Importer")
    assert ok(cli_process("user", "application-password", "delete", "ed", first)) == (
        "Success: Deleted 1 of 1 application passwords.\n")
    assert ok(cli_process("user", "application-password", "list", "ed", "--field=name")) == "Second\n"

    # reset-password: the new password alone, then the reset mail through a real SMTP server.
    assert re.fullmatch(r"\S{24}\n", ok(cli_process("user", "reset-password", "sub", "--skip-email", "--porcelain")))
    with smtp_server() as box:
        assert ok(cli_process("user", "reset-password", "sub", extra_env={"CALPRESS_SMTP_URL": box.url})) == (
            "Reset password for sub.\nSuccess: Password reset for 1 user.\n")
        assert box.wait(1)[0].rcpt_tos == ["sub@example.test"]
        assert "http://localhost/wp-login.php?action=rp&key=" in box.messages[0].body

    assert ok(cli_process("user", "delete", "sub", "--reassign=boss")) == (
        f"Success: Removed user {subscriber} from http://localhost.\n")
    assert ids(cli_process("user", "list", "--format=ids")) == [boss, editor]


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_user_delete_takes_yes(cli_process, cli_admin):
    editor = new_id_in_process(cli_admin("user", "create", "ed", "ed@example.test", "--role=editor", "--porcelain"))
    assert ok(cli_process("user", "delete", "ed", "--yes")) == f"Success: Removed user {editor} from http://localhost.\n"


# -- options --------------------------------------------------------------------------------------


def test_option_commands(cli_process, tmp_path):
    assert ok(cli_process("option", "get", "blogname")) == "calpress\n"  # the default, before any site setting
    assert ok(cli_process("option", "update", "blogname", "Example Calendar")) == "Success: Updated 'blogname' option.\n"
    done = cli_process("option", "update", "timezone_string", "Mars/Olympus")
    refused(done, "Could not update 'timezone_string' option: The timezone Mars/Olympus is not valid.")

    assert ok(cli_process("option", "add", "my_settings", '{"colors": {"fg": "red"}, "sizes": [1]}', "--format=json")) == (
        "Success: Added 'my_settings' option.\n")
    assert ok(cli_process("option", "patch", "update", "my_settings", "colors", "fg", "blue")) == (
        "Success: Updated 'my_settings' option.\n")

    options = {row["option_name"]: row["option_value"] for row in as_json(cli_process("option", "list", "--format=json"))}
    assert options["blogname"] == "Example Calendar"
    assert options["timezone_string"] != "Mars/Olympus"  # refused: nothing stored
    assert options["my_settings"] == {"colors": {"fg": "blue"}, "sizes": [1]}
    # On a terminal a table has borders (piped, it is tab-separated: see the post commands).
    assert on_terminal(cli_process, tmp_path, "option", "list", "--search=blog*") == (0, (
        "+-----------------+------------------+\n"
        "| option_name     | option_value     |\n"
        "+-----------------+------------------+\n"
        "| blogdescription |                  |\n"
        "| blogname        | Example Calendar |\n"
        "+-----------------+------------------+\n"))
    assert json.loads(ok(cli_process("option", "get", "my_settings", "--format=json"))) == options["my_settings"]

    assert ok(cli_process("option", "delete", "my_settings")) == "Success: Deleted 'my_settings' option.\n"
    refused(cli_process("option", "get", "my_settings"), "Could not get 'my_settings' option. Does it exist?")


# -- posts and post meta --------------------------------------------------------------------------


def test_post_and_post_meta_commands(cli_process, cli_admin):
    first = new_id(cli_process("post", "create", "--post_title=Board meeting: March", "--post_content=Agenda", "--porcelain"))
    out = ok(cli_process("post", "create", "--post_title=Fête d’été ☀", "--post_status=publish", "--post_name=second"))
    match = re.fullmatch(r"Success: Created post (\d+)\.\n", out)
    assert match, out
    second = int(match.group(1))
    refused(cli_process("post", "create", "--post_title=Bad", "--post_status=nonsense"), "Invalid parameter(s): status")

    listed = as_json(cli_process("post", "list", "--format=json"))
    assert [(row["ID"], row["post_title"], row["post_status"]) for row in listed] == [
        (second, "Fête d’été ☀", "publish"), (first, "Board meeting: March", "draft")]  # "Bad" was not stored
    assert list(listed[0]) == ["ID", "post_title", "post_name", "post_date", "post_status"]
    assert as_yaml(cli_process("post", "list", "--format=yaml", "--fields=ID,post_title,post_date")) == [
        {key: row[key] for key in ("ID", "post_title", "post_date")} for row in listed]
    assert ids(cli_process("post", "list", "--post_status=publish", "--format=ids")) == [second]  # a REST filter
    assert ok(cli_process("post", "list", "--fields=ID,post_name")) == f"ID\tpost_name\n{second}\tsecond\n{first}\t\n"  # piped

    got = as_json(cli_process("post", "get", str(first), "--format=json"))
    assert (got["ID"], got["post_content"], got["post_type"], got["post_status"]) == (first, "Agenda", "post", "draft")
    assert ok(cli_process("post", "update", str(first), "--post_title=Renamed", "--post_status=publish")) == (
        f"Success: Updated post {first}.\n")
    assert ok(cli_process("post", "get", str(first), "--fields=post_title,post_status")) == (
        "Field\tValue\npost_title\tRenamed\npost_status\tpublish\n")

    assert ok(cli_process("post", "meta", "update", str(first), "mood", "calm")) == "Success: Updated custom field 'mood'.\n"
    ok(cli_process("post", "meta", "update", str(first), "_tags", '["a", "b"]', "--format=json"))
    meta = as_json(cli_process("post", "meta", "list", str(first), "--format=json"))
    assert {row["meta_key"]: row["meta_value"] for row in meta if row["meta_key"] in ("mood", "_tags")} == {
        "mood": "calm", "_tags": ["a", "b"]}
    assert {row["post_id"] for row in meta} == {first}
    assert json.loads(ok(cli_process("post", "meta", "get", str(first), "_tags", "--format=json"))) == ["a", "b"]
    assert ok(cli_process("post", "meta", "delete", str(first), "mood")) == "Success: Deleted custom field 'mood'.\n"
    refused(cli_process("post", "meta", "get", str(first), "mood"), f"Could not find custom field 'mood' on post {first}.")

    assert ok(cli_process("post", "delete", str(second))) == f"Success: Trashed post {second}.\n"
    assert ok(cli_process("post", "delete", str(first), "--force")) == f"Success: Deleted post {first}.\n"
    assert ids(cli_process("post", "list", "--post_status=trash", "--format=ids")) == [second]
    refused(cli_process("post", "get", str(first)), f"Could not find the post with ID {first}.")


# -- terms ----------------------------------------------------------------------------------------


def test_term_commands(cli_process, cli_admin):
    music = new_id(cli_process("term", "create", "category", "Music", "--description=Live music", "--porcelain"))
    out = ok(cli_process("term", "create", "category", "Jazz", f"--parent={music}"))
    match = re.fullmatch(r"Success: Created category (\d+)\.\n", out)
    assert match, out
    jazz = int(match.group(1))
    refused(cli_process("term", "create", "category", "Music"), "A term with the name provided already exists")

    rows = {row["name"]: row for row in as_csv(cli_process("term", "list", "category", "--format=csv"))}
    assert sorted(rows) == ["Jazz", "Music", "Uncategorized"]
    assert list(rows["Jazz"]) == ["term_id", "term_taxonomy_id", "name", "slug", "description", "parent", "count"]
    assert (rows["Jazz"]["parent"], rows["Music"]["description"]) == (str(music), "Live music")

    assert ok(cli_process("term", "update", "category", str(music), "--name=Musique", "--slug=musique")) == "Success: Term updated.\n"
    got = as_json(cli_process("term", "get", "category", str(music), "--format=json"))
    assert (got["term_id"], got["name"], got["slug"], got["taxonomy"]) == (music, "Musique", "musique", "category")
    assert ok(cli_process("term", "delete", "category", str(jazz))) == f"Success: Deleted category {jazz}.\n"
    assert ok(cli_process("term", "list", "category", "--field=name")) == "Musique\nUncategorized\n"


# -- events, venues, organizers -------------------------------------------------------------------


def test_event_venue_organizer_commands(cli_process, cli_admin):
    hall = new_id(cli_process("venue", "create", "Hall", "--city=Paris", "--country=France", "--porcelain"))
    org = new_id(cli_process("organizer", "create", "Org", "--email=org@example.test", "--porcelain"))
    out = ok(cli_process("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
                         f"--venue={hall}", f"--organizer={org}", "--status=publish"))
    match = re.fullmatch(r"Success: Created event (\d+)\.\n", out)
    assert match, out
    gig = int(match.group(1))
    refused(cli_process("event", "create", "--title=No dates"), "Missing parameter(s): start_date, end_date")

    assert as_json(cli_process("event", "list", "--format=json", "--fields=ID,title,venue,organizer,status")) == [
        {"ID": gig, "title": "Gig", "venue": hall, "organizer": [org], "status": "publish"}]  # "No dates" not stored
    got = as_yaml(cli_process("event", "get", str(gig), "--format=yaml"))
    assert (got["ID"], got["start_date"], got["end_date"], got["all_day"]) == (gig, "2031-03-01 20:00:00", "2031-03-01 23:00:00", False)

    assert ok(cli_process("event", "update", str(gig), "--title=Big gig", "--featured")) == f"Success: Updated event {gig}.\n"
    assert ok(cli_process("venue", "update", str(hall), "--city=Lyon", "--zip=69001")) == f"Success: Updated venue {hall}.\n"
    assert ok(cli_process("organizer", "update", str(org), "--phone=123")) == f"Success: Updated organizer {org}.\n"
    assert as_json(cli_process("event", "get", str(gig), "--format=json", "--fields=title,featured")) == {
        "title": "Big gig", "featured": True}
    assert as_csv(cli_process("venue", "list", "--format=csv", "--fields=ID,venue,city,country,zip")) == [
        {"ID": str(hall), "venue": "Hall", "city": "Lyon", "country": "France", "zip": "69001"}]
    assert as_json(cli_process("venue", "get", str(hall), "--format=json", "--fields=slug,city")) == {"slug": "hall", "city": "Lyon"}
    assert ok(cli_process("organizer", "get", str(org), "--field=phone")) == "123\n"

    assert ok(cli_process("event", "delete", str(gig))) == f"Success: Trashed event {gig}.\n"
    assert ids(cli_process("event", "list", "--status=trash", "--format=ids")) == [gig]
    assert ok(cli_process("venue", "delete", str(hall), "--force")) == f"Success: Deleted venue {hall}.\n"
    assert ok(cli_process("organizer", "delete", str(org))) == f"Success: Trashed organizer {org}.\n"
    assert count(cli_process("venue", "list", "--format=count")) == 0
    assert ids(cli_process("organizer", "list", "--format=ids")) == []


# -- comments -------------------------------------------------------------------------------------


def test_comment_commands(cli_process, cli_admin):
    post = new_id_in_process(cli_admin("post", "create", "--post_title=Open", "--post_status=publish", "--porcelain"))
    first = new_id(cli_process("comment", "create", f"--comment_post_ID={post}", "--comment_content=Hello", "--porcelain"))
    out = ok(cli_process("comment", "create", f"--comment_post_ID={post}", "--comment_content=Held", "--comment_approved=0"))
    match = re.fullmatch(r"Success: Created comment (\d+)\.\n", out)
    assert match, out
    second = int(match.group(1))
    refused(cli_process("comment", "create", "--comment_post_ID=99999", "--comment_content=Lost"),
            "Sorry, you are not allowed to create this comment without a post.")

    rows = as_json(cli_process("comment", "list", "--format=json"))
    assert {row["comment_ID"]: (row["comment_post_ID"], row["comment_approved"]) for row in rows} == {
        first: (post, "1"), second: (post, "0")}  # the refused one was not stored
    got = as_json(cli_process("comment", "get", str(first), "--format=json", "--fields=comment_content,comment_author"))
    assert got == {"comment_content": "Hello", "comment_author": "boss"}

    def statuses() -> dict[int, str]:
        done = cli_process("comment", "list", "--status=any", "--format=csv", "--fields=comment_ID,comment_approved")
        return {int(row["comment_ID"]): row["comment_approved"] for row in as_csv(done)}

    assert ok(cli_process("comment", "approve", str(second))) == f"Success: Approved comment {second}.\n"
    assert ok(cli_process("comment", "unapprove", str(first))) == f"Success: Unapproved comment {first}.\n"
    assert statuses() == {first: "0", second: "1"}
    assert ok(cli_process("comment", "spam", str(first))) == f"Success: Marked as spam comment {first}.\n"
    assert ok(cli_process("comment", "trash", str(second))) == f"Success: Trashed comment {second}.\n"
    assert statuses() == {first: "spam", second: "trash"}
    assert ok(cli_process("comment", "unspam", str(first))) == f"Success: Unspammed comment {first}.\n"
    assert ok(cli_process("comment", "untrash", str(second))) == f"Success: Untrashed comment {second}.\n"
    restored = statuses()
    assert restored == {first: "0", second: "1"}  # each gets back the status it had (wp_unspam/untrash_comment)
    assert ok(cli_process("comment", "delete", str(first), "--force")) == f"Success: Deleted comment {first}.\n"
    assert ok(cli_process("comment", "delete", str(second))) == f"Success: Trashed comment {second}.\n"
    assert statuses() == {second: "trash"}


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_comment_untrash_gives_back_the_status_before_the_trash(cli_process, cli_admin):
    post = new_id_in_process(cli_admin("post", "create", "--post_title=Open", "--post_status=publish", "--porcelain"))
    approved = new_id_in_process(cli_admin("comment", "create", f"--comment_post_ID={post}", "--comment_content=Hi", "--porcelain"))
    ok_in_process(cli_admin("comment", "trash", str(approved)))
    ok(cli_process("comment", "untrash", str(approved)))
    assert ok_in_process(cli_admin("comment", "get", str(approved), "--field=comment_approved")) == "1\n"


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_comment_list_shows_wp_clis_default_fields(cli_process, cli_admin):
    post = new_id_in_process(cli_admin("post", "create", "--post_title=Open", "--post_status=publish", "--porcelain"))
    ok_in_process(cli_admin("comment", "create", f"--comment_post_ID={post}", "--comment_content=Hi"))
    assert ok(cli_process("comment", "list")).splitlines()[0].split("\t") == [
        "comment_ID", "comment_post_ID", "comment_date", "comment_approved", "comment_author", "comment_author_email"]


# -- media ----------------------------------------------------------------------------------------


def test_media_commands(cli_process, cli_admin, tmp_path):
    poster = new_id(cli_process("media", "import", str(png(tmp_path / "poster.png")), "--porcelain"))
    out = ok(cli_process("media", "import", str(png(tmp_path / "tiny.png", (40, 30)))))
    match = re.fullmatch(r"Imported file '.*tiny\.png' as attachment ID (\d+)\.\nSuccess: Imported 1 of 1 items\.\n", out)
    assert match, out
    tiny = int(match.group(1))
    (tmp_path / "script.png").write_text("<?php echo 1;")  # what the media route refuses
    script = cli_process("media", "import", str(tmp_path / "script.png"))  # WP-CLI: a warning, then the batch report
    assert (script.returncode, script.stdout) == (1, "")
    assert script.stderr == (f"Warning: Unable to import file '{tmp_path / 'script.png'}'. Reason: Sorry, you are not allowed "
                             "to upload this file type.\nError: No items imported.\n")

    rows = as_json(cli_process("media", "list", "--format=json", "--fields=ID,title,file,mime_type"))
    assert [(row["ID"], row["title"], row["mime_type"]) for row in rows] == [
        (tiny, "tiny", "image/png"), (poster, "poster", "image/png")]  # the script was not stored
    uploads = tmp_path / "data" / "uploads"
    assert (uploads / rows[1]["file"]).is_file()

    thumbnail = next(uploads.rglob("poster-150x150.png"))
    thumbnail.unlink()
    out = ok(cli_process("media", "regenerate", str(poster)))
    assert re.fullmatch(rf'1/1 Regenerated thumbnails for "poster" \(ID {poster}\)\.\nSuccess: Regenerated 1 of 1 images?\.\n', out)
    assert thumbnail.is_file()
    refused(cli_process("media", "regenerate"), "This regenerates the sizes of every image: pass --yes")


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_media_import_goes_on_past_a_missing_file(cli_process, cli_admin, tmp_path):
    done = cli_process("media", "import", str(png(tmp_path / "a.png")), str(tmp_path / "missing.png"), str(png(tmp_path / "b.png")))
    assert done.returncode == 1
    assert f"Warning: Unable to import file '{tmp_path / 'missing.png'}'. Reason: File doesn't exist." in done.stderr
    assert len(re.findall(r"as attachment ID \d+\.", done.stdout)) == 2
    assert done.stderr.endswith("Error: Only imported 2 of 3 items.\n")


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_media_regenerate_reports_as_wp_cli_does(cli_process, cli_admin, tmp_path):
    poster = new_id_in_process(cli_admin("media", "import", str(png(tmp_path / "poster.png")), "--porcelain"))
    assert ok(cli_process("media", "regenerate", str(poster))).endswith("\nSuccess: Regenerated 1 of 1 images.\n")


# -- feed imports ---------------------------------------------------------------------------------

def ics(*events: tuple[str, str, str, str]) -> str:
    """An iCalendar feed of (uid, summary, start, end) events, times in UTC (20270310T090000Z)."""
    body = "".join(f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:{summary}\r\n"
                   f"DTSTART:{start}\r\nDTEND:{end}\r\nEND:VEVENT\r\n" for uid, summary, start, end in events)
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//entry//EN\r\n{body}END:VCALENDAR\r\n"


class _FeedHandler(BaseHTTPRequestHandler):
    """Serves one feed, ``/club.ics``."""

    feed = ics(("concert@club", "Concert", "20270915T180000Z", "20270915T210000Z")).encode()

    def do_GET(self) -> None:
        found = self.path == "/club.ics"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/calendar; charset=utf-8")
        self.send_header("Content-Length", str(len(self.feed) if found else 0))
        self.end_headers()
        if found:
            self.wfile.write(self.feed)

    def log_message(self, *args: Any) -> None:
        pass


def test_feed_import_commands(cli_process, cli_admin, tmp_path):
    from appfixtures import allowed, allowed_ports, loopback_server

    (tmp_path / "team.ics").write_text(ics(("one@test", "Board meeting", "20270310T090000Z", "20270310T100000Z"),
                                           ("two@test", "Picnic", "20270601T120000Z", "20270601T150000Z")))
    out = ok(cli_process("import", "ics", "team.ics", "--from=2027-01-01", "--until=2028-01-01"))  # relative to the cwd
    match = re.fullmatch(r"Success: Imported team\.ics \(record (\d+)\): 2 created, 0 updated, 0 skipped\.\n", out)
    assert match, out
    record = int(match.group(1))
    again = new_id(cli_process("import", "ics", str(tmp_path / "team.ics"), "--from=2027-01-01", "--until=2028-01-01",
                               "--porcelain"))  # nothing changed: nothing written
    refused(cli_process("import", "ics", "missing.ics"), "Unable to import 'missing.ics': no such file")

    refused(cli_process("import", "schedule", "https://feeds.example.test/club.ics", "--every=5"), "--every must be at least 60")
    with loopback_server(_FeedHandler) as address:
        # The child may reach this server only as told (CALPRESS_OUTBOUND_ALLOW), as a site would be.
        reach = {"CALPRESS_OUTBOUND_ALLOW": allowed(address), "CALPRESS_OUTBOUND_PORTS": allowed_ports(address)}
        schedule = new_id(cli_process("import", "schedule", f"{address}/club.ics", "--every=3600", "--porcelain"))
        out = ok(cli_process("import", "run-due", "--quiet", extra_env=reach))  # never ran: due at once
        assert re.fullmatch(rf"Success: Imported {address}/club\.ics \(record \d+\): 1 created, 0 updated, 0 skipped\.\n", out)
        assert ok(cli_process("import", "run-due", "--quiet", extra_env=reach)) == "Success: No scheduled import is due.\n"

    assert as_json(cli_process("event", "list", "--format=json", "--fields=title,start_date")) == [
        {"title": "Board meeting", "start_date": "2027-03-10 09:00:00"}, {"title": "Picnic", "start_date": "2027-06-01 12:00:00"},
        {"title": "Concert", "start_date": "2027-09-15 18:00:00"}]
    listed = {row["id"]: row for row in as_json(cli_process("import", "list", "--format=json"))}
    assert (listed[record]["state"], listed[again]["state"]) == ("success", "success")
    assert listed[record]["source"] == str(tmp_path / "team.ics") and listed[record]["percentage_complete"] == 100
    assert (listed[schedule]["state"], listed[schedule]["frequency"], listed[schedule]["source"]) == (
        "schedule", 3600, f"{address}/club.ics")
    assert listed[schedule]["last_run"]
    assert sorted(row["state"] for row in listed.values()) == ["schedule", "success", "success", "success"]


# -- the meta-test: every command of the parser runs in one of these tests ------------------------


def leaf_commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[str]:
    """The command paths of the parser's leaves ("post meta get", "db size"), in parser order."""
    groups = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    if not groups:
        return [" ".join(path)]
    found: list[str] = []
    for group in groups:
        seen: set[int] = set()
        for name, sub in group.choices.items():
            if id(sub) not in seen:  # an alias names the same parser again
                seen.add(id(sub))
                found += leaf_commands(sub, (*path, name))
    return found


def cli_process_words(function: Any) -> list[tuple[str, ...]]:
    """The leading literal words of every ``cli_process(...)`` call in a test function's source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "cli_process":
            words: list[str] = []
            for arg in node.args:
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    break
                words.append(arg.value)
            calls.append(tuple(words))
    return calls


def _test_functions_in(path: str) -> set[str]:
    return {node.name for node in ast.parse((ROOT / path).read_text()).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_command_runs_through_the_entry_point():
    commands = leaf_commands(build_parser())
    assert len(commands) == len(set(commands)) and "post meta get" in commands and "user application-password create" in commands

    uncovered = [name for name in commands if name not in COVERED and name not in EXPECTED_ELSEWHERE]
    assert not uncovered, f"commands no test runs through the real entry point: {uncovered} (add them to COVERED)"
    assert not [name for name in COVERED if name not in commands], "COVERED names commands the parser does not have"
    assert not set(COVERED) & set(EXPECTED_ELSEWHERE)

    this_module = sys.modules[__name__]
    problems = []
    for name, where in COVERED.items():
        if isinstance(where, tuple):
            module, test = where
            if test not in _test_functions_in(module):
                problems.append(f"{name}: {module} has no {test}")
            continue
        function = getattr(this_module, where, None)
        if function is None:
            problems.append(f"{name}: no test {where} here")
            continue
        if "cli_process" not in inspect.signature(function).parameters:
            problems.append(f"{name}: {where} does not take cli_process")
        if any(mark.name == "xfail" for mark in getattr(function, "pytestmark", [])):
            problems.append(f"{name}: {where} is expected to fail")
        words = tuple(name.split())
        if not any(call[:len(words)] == words for call in cli_process_words(function)):
            problems.append(f"{name}: {where} has no cli_process({', '.join(map(repr, words))}, ...) call")
    for name, (module, test) in EXPECTED_ELSEWHERE.items():
        if name in commands and test is not None and test not in _test_functions_in(module):
            problems.append(f"{name}: {module} has no {test}")
    assert not problems, "\n".join(problems)
