"""event, venue, organizer, comment, cache and db commands in WP-CLI's forms (issue 15):
in-process through ``calpress.cli.main`` on both databases, and one run of the real
``python -m calpress``. The user commands' tests are in tests/test_cli_users.py."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clifixtures import new_id, ok
from dbfixtures import _fresh_url

from calpress.store import db as store_db
from calpress.store import dump


@pytest.fixture()
def run(cli_admin):
    return cli_admin


def test_events_venues_organizers(run):
    hall = new_id(run("venue", "create", "Hall", "--city=Paris", "--country=France", "--address=1 rue", "--porcelain"))
    org = new_id(run("organizer", "create", "Org", "--email=o@example.test", "--phone=123", "--porcelain"))
    org2 = new_id(run("organizer", "create", "Other org", "--porcelain"))
    out = ok(run("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
                 f"--venue={hall}", f"--organizer={org},{org2}", "--categories=music", "--featured", "--status=publish"))
    gig = int(re.fullmatch(r"Success: Created event (\d+)\.\n", out).group(1))
    talk = new_id(run("event", "create", "--title=Talk", "--start_date=2027-01-05 10:00", "--end_date=2027-01-05 11:00",
                      "--description=About things", "--status=draft", "--porcelain"))

    listed = json.loads(ok(run("event", "list", "--format=json")))  # every event, not the API's two-year window
    assert [row["ID"] for row in listed] == [talk, gig]  # by start date
    assert list(listed[0]) == ["ID", "title", "start_date", "end_date", "status"]
    assert listed[1] == {"ID": gig, "title": "Gig", "start_date": "2031-03-01 20:00:00", "end_date": "2031-03-01 23:00:00",
                         "status": "publish"}
    assert listed[0]["status"] == "draft"  # drafts are listed too
    rows = list(csv.DictReader(io.StringIO(ok(run("event", "list", "--format=csv", "--fields=ID,venue,organizer,featured")))))
    assert rows[1] == {"ID": str(gig), "venue": str(hall), "organizer": json.dumps([org, org2]).replace(" ", ""), "featured": "1"}
    assert rows[0]["venue"] == ""
    # Unknown options are calendar listing filters.
    assert ok(run("event", "list", "--featured=true", "--format=ids")) == f"{gig}\n"
    assert ok(run("event", "list", f"--venue={hall}", "--format=ids")) == f"{gig}\n"
    assert ok(run("event", "list", "--search=Talk", "--format=count")) == "1\n"
    assert ok(run("event", "list", "--start_date=2030-01-01", "--format=ids")) == f"{gig}\n"
    assert ok(run("event", "list", "--categories=music", "--field=title")) == "Gig\n"

    got = json.loads(ok(run("event", "get", str(gig), "--format=json")))
    assert got["categories"] == ["music"] and got["organizer"] == [org, org2] and got["all_day"] is False
    assert ok(run("event", "get", str(talk), "--field=description")) == "<p>About things</p>\n"  # as the API renders it
    assert ok(run("event", "update", str(talk), "--title=Big talk", "--all_day", "--status=publish")) == f"Success: Updated event {talk}.\n"
    assert json.loads(ok(run("event", "get", str(talk), "--format=json", "--fields=title,all_day,status"))) == {
        "title": "Big talk", "all_day": True, "status": "publish"}

    # A REST validation error: exit 1, the API's message, nothing stored.
    code, out, err = run("event", "create", "--title=No dates")
    assert code == 1 and out == "" and err == "Error: Missing parameter(s): start_date, end_date\n"
    code, _, err = run("event", "create", "--title=X", "--start_date=2027-01-01 10:00", "--end_date=2027-01-01 11:00",
                       "--venue=99999")
    assert code == 1 and err.startswith("Error: Invalid parameter(s): venue")
    assert ok(run("event", "list", "--format=count")) == "2\n"

    assert ok(run("event", "delete", str(talk))) == f"Success: Trashed event {talk}.\n"
    assert ok(run("event", "list", "--format=ids")) == f"{gig}\n"
    assert ok(run("event", "list", "--status=trash", "--format=ids")) == f"{talk}\n"
    assert ok(run("event", "delete", str(talk), "--force")) == f"Success: Deleted event {talk}.\n"
    code, _, err = run("event", "get", str(talk))
    assert code == 1 and err == f"Error: Event with ID {talk} does not exist.\n"
    code, _, err = run("event", "delete", str(hall), "--force")
    assert code == 1 and err == f"Error: Could not find the event with ID {hall}.\n"

    # venues and organizers
    assert ok(run("venue", "list")) == f"ID\tvenue\taddress\tcity\tcountry\n{hall}\tHall\t1 rue\tParis\tFrance\n"
    organizers = list(csv.DictReader(io.StringIO(ok(run("organizer", "list", "--format=csv")))))
    assert sorted(row["organizer"] for row in organizers) == ["Org", "Other org"]
    assert next(row for row in organizers if row["organizer"] == "Org") == {"ID": str(org), "organizer": "Org", "phone": "123", "email": "o@example.test", "website": ""}
    assert ok(run("venue", "update", str(hall), "--website=https://hall.example", "--zip=75001")) == f"Success: Updated venue {hall}.\n"
    venue = json.loads(ok(run("venue", "get", str(hall), "--format=json")))
    assert (venue["venue"], venue["website"], venue["zip"], venue["slug"]) == ("Hall", "https://hall.example", "75001", "hall")
    code, out, err = run("venue", "create", "Bad", "--website=not a url")
    assert code == 1 and out == "" and err == "Error: Invalid parameter(s): website (Invalid parameter.)\n"
    assert ok(run("venue", "list", "--format=count")) == "1\n"
    code, _, err = run("organizer", "update", str(org))
    assert code == 1 and err == "Error: Need some fields to update.\n"
    assert ok(run("organizer", "delete", str(org2))) == f"Success: Trashed organizer {org2}.\n"
    assert ok(run("organizer", "list", "--format=ids")) == f"{org}\n"
    assert ok(run("organizer", "delete", str(org2), "--force")) == f"Success: Deleted organizer {org2}.\n"
    assert ok(run("organizer", "list", "--status=trash", "--format=count")) == "0\n"
    code, _, err = run("venue", "get", str(org))
    assert code == 1 and err.startswith("Error: ")


def test_comments(run):
    post = new_id(run("post", "create", "--post_title=Open", "--post_status=publish", "--porcelain"))
    other = new_id(run("post", "create", "--post_title=Other", "--post_status=publish", "--porcelain"))
    first = new_id(run("comment", "create", f"--comment_post_ID={post}", "--comment_content=Hello", "--porcelain"))
    out = ok(run("comment", "create", f"--comment_post_ID={post}", "--comment_content=Held", "--comment_approved=0"))
    second = int(re.fullmatch(r"Success: Created comment (\d+)\.\n", out).group(1))
    third = new_id(run("comment", "create", f"--comment_post_ID={other}", "--comment_content=Elsewhere",
                       "--comment_author=Ann", "--comment_author_email=ann@example.test", "--porcelain"))

    rows = json.loads(ok(run("comment", "list", "--format=json")))  # approved and held, newest first
    assert {row["comment_ID"] for row in rows} == {first, second, third}
    assert list(rows[0]) == ["comment_ID", "comment_post_ID", "comment_date", "comment_approved", "comment_author",
                             "comment_author_email"]
    by_id = {row["comment_ID"]: row for row in rows}
    assert by_id[first]["comment_approved"] == "1" and by_id[second]["comment_approved"] == "0"
    assert by_id[first]["comment_post_ID"] == post and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", by_id[first]["comment_date"])
    assert sorted(map(int, ok(run("comment", "list", f"--post_id={post}", "--format=ids")).split())) == sorted([first, second])
    assert ok(run("comment", "list", "--status=hold", "--format=ids")) == f"{second}\n"
    got = json.loads(ok(run("comment", "get", str(third), "--format=json",
                            "--fields=comment_author,comment_content,comment_post_ID")))
    assert got == {"comment_author": "Ann", "comment_content": "Elsewhere", "comment_post_ID": other}

    assert ok(run("comment", "approve", str(second))) == f"Success: Approved comment {second}.\n"
    assert ok(run("comment", "unapprove", str(first))) == f"Success: Unapproved comment {first}.\n"
    assert ok(run("comment", "spam", str(third))) == f"Success: Marked as spam comment {third}.\n"
    rows = list(csv.DictReader(io.StringIO(ok(run("comment", "list", "--status=any", "--format=csv",
                                                   "--fields=comment_ID,comment_approved")))))
    assert {row["comment_ID"]: row["comment_approved"] for row in rows} == {
        str(first): "0", str(second): "1", str(third): "spam"}
    assert ok(run("comment", "list", "--format=count")) == "2\n"  # spam is not listed by default
    assert ok(run("comment", "trash", str(first), str(second))) == (
        f"Success: Trashed comment {first}.\nSuccess: Trashed comment {second}.\n")
    assert sorted(ok(run("comment", "list", "--status=trash", "--format=ids")).split()) == sorted([str(first), str(second)])
    assert ok(run("comment", "delete", str(first), "--force")) == f"Success: Deleted comment {first}.\n"
    assert ok(run("comment", "delete", str(third))) == f"Success: Trashed comment {third}.\n"
    assert sorted(map(int, ok(run("comment", "list", "--status=any", "--format=ids")).split())) == sorted([second, third])

    code, out, err = run("comment", "approve", "99999")
    assert code == 1 and out == "" and err == "Error: Invalid comment ID.\n"
    code, out, err = run("comment", "create", f"--comment_post_ID={post}", "--comment_content=")
    assert code == 1 and out == "" and err.startswith("Error: ")
    assert ok(run("comment", "list", "--status=any", "--format=count")) == "2\n"  # nothing stored


def test_cache_flush_and_db(run, db_url):
    import sqlalchemy as sa

    from calpress.store import db as store_db

    engine = sa.create_engine(store_db.normalize_url(db_url))
    try:
        def counter() -> int:
            with engine.connect() as conn:
                return conn.execute(sa.text("SELECT value FROM counters WHERE name = 'content'")).scalar()

        def last_change() -> str:
            with engine.connect() as conn:
                return conn.execute(sa.text("SELECT touched FROM changes ORDER BY generation DESC LIMIT 1")).scalar()

        before = counter()
        assert ok(run("cache", "flush")) == "Success: The cache was flushed.\n"
        assert counter() == before + 1  # one step: every worker drops what it cached
        assert json.loads(last_change()) == {"*": 1}
    finally:
        engine.dispose()

    out = ok(run("db", "check"))
    assert out.endswith("Success: Database checked.\n")
    assert f"revision: {store_db.head_revision()} (the newest)" in out
    sized = json.loads(ok(run("db", "size", "--format=json")))
    assert len(sized) == 1 and list(sized[0]) == ["Name", "Size"]
    assert re.fullmatch(r"\d+ (B|KB|MB|GB)", sized[0]["Size"])
    size_bytes = int(ok(run("db", "size", "--size_format=b")))
    assert size_bytes > 10_000
    assert ok(run("db", "size")).startswith("Name\tSize\n")
    if db_url.startswith("sqlite"):
        assert sized[0]["Name"] == "calpress.sqlite3" or sized[0]["Name"].endswith(".sqlite3")


def test_db_check_reports_an_old_revision(run, db_url):
    import sqlalchemy as sa

    from calpress.store import db as store_db

    engine = sa.create_engine(store_db.normalize_url(db_url))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE alembic_version SET version_num = '0001'"))
        code, _, err = run("db", "check")
        assert code == 1
        assert "at revision 0001, the newest is" in err and err.endswith("Error: Database check failed.\n")
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE alembic_version SET version_num = :head"), {"head": store_db.head_revision()})
        engine.dispose()


def test_several_ids_go_on_past_one_that_fails(run):
    """WP-CLI's commands on several objects: each failure is a warning, the others are done, and
    the batch report ends the command with exit code 1."""
    post = new_id(run("post", "create", "--post_title=Open", "--post_status=publish", "--porcelain"))
    first = new_id(run("comment", "create", f"--comment_post_ID={post}", "--comment_content=One", "--porcelain"))
    second = new_id(run("comment", "create", f"--comment_post_ID={post}", "--comment_content=Two", "--porcelain"))
    code, out, err = run("comment", "spam", str(first), "99999", str(second))
    assert code == 1
    assert out == f"Success: Marked as spam comment {first}.\nSuccess: Marked as spam comment {second}.\n"
    assert err == "Warning: Invalid comment ID.\nError: Only marked as spam 2 of 3 comments.\n"
    assert sorted(map(int, ok(run("comment", "list", "--status=spam", "--format=ids")).split())) == sorted([first, second])
    code, out, err = run("comment", "delete", "99998", "99999", "--force")
    assert code == 1 and out == "" and err.endswith("Error: No comments deleted.\n")

    hall = new_id(run("venue", "create", "Hall", "--porcelain"))
    gig = new_id(run("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
                     "--porcelain"))
    talk = new_id(run("event", "create", "--title=Talk", "--start_date=2031-03-02 20:00", "--end_date=2031-03-02 23:00",
                      "--porcelain"))
    code, out, err = run("event", "delete", str(gig), str(hall), str(talk), "--force")
    assert code == 1
    assert out == f"Success: Deleted event {gig}.\nSuccess: Deleted event {talk}.\n"
    assert err == f"Warning: Could not find the event with ID {hall}.\nError: Only deleted 2 of 3 events.\n"
    assert ok(run("event", "list", "--status=any", "--format=count")) == "0\n"
    assert ok(run("venue", "list", "--format=ids")) == f"{hall}\n"  # a venue is no event: left alone
    assert ok(run("venue", "delete", str(hall))) == f"Success: Trashed venue {hall}.\n"  # one id: as before

    new_id(run("user", "create", "ed", "ed@example.test", "--role=editor", "--porcelain"))
    new_id(run("user", "create", "al", "al@example.test", "--role=author", "--porcelain"))
    code, out, err = run("user", "delete", "ed", "nobody", "al")
    assert code == 1 and out.count("Success: Removed user") == 2
    assert err == "Warning: Invalid user ID, email or login: 'nobody'\nError: Only removed 2 of 3 users.\n"
    assert ok(run("user", "list", "--field=user_login")) == "boss\n"


# -- db export / db import --------------------------------------------------------------------------


@pytest.fixture()
def other_db_url(request: pytest.FixtureRequest, db_leg: str, tmp_path: Path) -> Iterator[str]:
    """A fresh, migrated database of the other kind (PostgreSQL for the SQLite leg and the other
    way round); the test is skipped when PostgreSQL cannot be reached."""
    other = "postgresql" if db_leg == "sqlite" else "sqlite"
    if other == "postgresql":
        postgres = request.getfixturevalue("_postgres_leg")
        if isinstance(postgres, str):
            pytest.skip(f"PostgreSQL leg SKIPPED: {postgres}")
    folder = tmp_path / "other"
    folder.mkdir()
    yield from _fresh_url(request, other, folder, migrated=True)


@pytest.fixture()
def same_kind_url(request: pytest.FixtureRequest, db_leg: str, tmp_path: Path) -> Iterator[str]:
    """A second fresh, migrated database of the test's own kind."""
    folder = tmp_path / "same"
    folder.mkdir()
    yield from _fresh_url(request, db_leg, folder, migrated=True)


def site_rows(url: str) -> dict[str, dict[tuple[Any, ...], tuple[Any, ...]]]:
    """Every row of every table a dump holds, by primary key (the two databases order text keys
    differently, so rows are matched by key)."""
    engine = store_db.create_engine(url)
    try:
        with engine.connect() as conn:
            return {table.name: {tuple(getattr(row, column.name) for column in table.primary_key.columns): tuple(row)
                                 for rows in dump.table_rows(conn, table) for row in rows}
                    for table in dump.dumped_tables()}
    finally:
        engine.dispose()


def make_site(run) -> int:
    """Users, posts with terms and meta, comments, a venue, an organizer and an event with its
    category, an option and an application password; the newest post is then deleted, so that
    the id sequence is past the highest id. Returns that deleted post's id."""
    editor = new_id(run("user", "create", "ed", "ed@example.test", "--role=editor", "--porcelain"))
    ok(run("user", "application-password", "create", "ed", "importer", "--porcelain"))
    jazz = new_id(run("term", "create", "category", "Jazz", "--description=Live", "--porcelain"))
    post = new_id(run("post", "create", "--post_title=Board meeting", "--post_content=Line one\nline two ✓",
                      "--post_status=publish", f"--post_author={editor}", "--porcelain"))
    ok(run("post", "update", str(post), f"--post_excerpt=About {jazz}"))
    ok(run("post", "meta", "update", str(post), "_settings", '{"a": [1, null, {"b": true}]}', "--format=json"))
    ok(run("post", "meta", "add", str(post), "ticket_note", "bring cash"))
    new_id(run("comment", "create", f"--comment_post_ID={post}", "--comment_content=First!", "--porcelain"))
    new_id(run("comment", "create", f"--comment_post_ID={post}", "--comment_content=Held", "--comment_approved=0",
               "--porcelain"))
    hall = new_id(run("venue", "create", "Hall", "--city=Paris", "--country=France", "--porcelain"))
    org = new_id(run("organizer", "create", "Org", "--email=o@example.test", "--porcelain"))
    new_id(run("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
               f"--venue={hall}", f"--organizer={org}", "--categories=music", "--featured", "--all_day=false",
               "--status=publish", "--porcelain"))
    ok(run("option", "update", "my_settings", '{"colors": {"fg": "black"}, "none": null}', "--format=json"))
    doomed = new_id(run("post", "create", "--post_title=Doomed", "--porcelain"))
    ok(run("post", "delete", str(doomed), "--force"))
    return doomed


def test_db_export_and_import_move_a_site_to_the_other_database(run, db_url, other_db_url, tmp_path):
    doomed = make_site(run)
    dump_file = tmp_path / "site.jsonl"
    assert ok(run("db", "export", str(dump_file))) == f"Success: Exported to '{dump_file}'.\n"
    target = ("--database-url", other_db_url)
    # A new site holds no user or post: no --yes needed.
    assert ok(run("db", "import", str(dump_file), *target)) == f"Success: Imported from '{dump_file}'.\n"

    source, copied = site_rows(db_url), site_rows(other_db_url)
    assert copied == source
    assert {name for name, rows in source.items() if rows} >= {
        "users", "application_passwords", "options", "posts", "terms", "term_links", "comments", "events", "event_links"}
    # The site works there as it did here, and new ids come after every id the source handed out.
    listing = ("event", "list", "--format=json", "--fields=ID,title,start_date,venue,organizer,categories,featured")
    assert ok(run(*listing, *target)) == ok(run(*listing))
    assert ok(run("post", "list", "--format=csv", *target)) == ok(run("post", "list", "--format=csv"))
    created = new_id(run("post", "create", "--post_title=After the move", "--porcelain", *target))
    assert created > doomed
    assert created > max(max(key[0] for key in copied["posts"]), max(key[0] for key in copied["users"]))
    assert new_id(run("term", "create", "category", "Later", "--porcelain", *target)) > max(
        key[0] for key in copied["terms"])


def test_db_round_trip_on_the_same_kind_of_database_through_stdout_and_stdin(run, db_url, same_kind_url, monkeypatch):
    make_site(run)
    code, out, err = run("db", "export", "-")
    assert code == 0 and err == ""
    header = json.loads(out.splitlines()[0])  # the dump alone on stdout: no Success line
    assert header["format"] == "calpress-dump" and header["revision"] == store_db.head_revision()
    assert json.loads(out.splitlines()[-1])["end"] is True

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(out.encode())))
    assert ok(run("db", "import", "-", "--database-url", same_kind_url)) == "Success: Imported from '-'.\n"
    assert site_rows(same_kind_url) == site_rows(db_url)


def test_db_import_refusals_change_nothing(run, db_url, tmp_path):
    post = new_id(run("post", "create", "--post_title=Keep me", "--post_status=publish", "--porcelain"))
    good = tmp_path / "site.jsonl"
    ok(run("db", "export", str(good)))
    lines = good.read_bytes().splitlines(keepends=True)
    ok(run("post", "update", str(post), "--post_title=Changed since"))
    before = site_rows(db_url)

    def refused(data: bytes | None, *extra: str) -> str:
        path = tmp_path / "broken.jsonl"
        if data is not None:
            path.write_bytes(data)
        code, out, err = run("db", "import", str(path), *extra)
        assert code == 1 and out == "", err
        assert site_rows(db_url) == before
        return err

    # The database holds a site: --yes, or nothing happens.
    err = refused(good.read_bytes())
    assert err.startswith("Error: The database already holds users or posts") and "--yes" in err
    # A line that is not JSON, in the middle of the file: all or nothing.
    middle = next(index for index, line in enumerate(lines) if line.startswith(b'{"t":"posts"'))
    err = refused(b"".join([*lines[:middle], b'{"t": "posts", "r": {"id": \n', *lines[middle + 1:]]), "--yes")
    assert err.startswith(f"Error: Could not import '{tmp_path / 'broken.jsonl'}': Line {middle + 1} is not JSON")
    err = refused(b"".join(lines[:-1]), "--yes")  # no closing line
    assert err.endswith(f"ends after line {len(lines) - 1} without its closing line: the file is truncated.\n")
    err = refused(b"".join([*lines[:middle], lines[middle].replace(b'"t":"posts"', b'"t":"wp_posts"'), *lines[middle + 1:]]),
                  "--yes")
    assert f"Line {middle + 1}: unknown table 'wp_posts'" in err
    header = json.loads(lines[0])
    header["revision"] = "0001"
    err = refused(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]), "--yes")
    assert f"made at migration revision 0001, this database is at revision {store_db.head_revision()}" in err
    (tmp_path / "broken.jsonl").unlink()
    err = refused(None)
    assert err == f"Error: Import file missing or not readable: {tmp_path / 'broken.jsonl'}\n"

    # With --yes, the site is the dump's again, searches included (SQLite's index follows the rows).
    assert ok(run("db", "import", str(good), "--yes")) == f"Success: Imported from '{good}'.\n"
    assert ok(run("post", "get", str(post), "--field=post_title")) == "Keep me\n"
    assert ok(run("post", "list", "--search=Keep", "--format=ids")) == f"{post}\n"
    assert ok(run("post", "list", "--search=Changed", "--format=count")) == "0\n"


def test_db_export_shows_progress_on_a_terminal_only(run, tmp_path, monkeypatch):
    new_id(run("post", "create", "--post_title=One", "--porcelain"))
    code, _, err = run("db", "export", str(tmp_path / "quiet.jsonl"))
    assert code == 0 and err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run("db", "export", str(tmp_path / "shown.jsonl"), "--porcelain")
    assert code == 0 and out == f"{tmp_path / 'shown.jsonl'}\n"
    assert "exporting rows [" in err and err.endswith("\n")


def test_db_export_without_a_name_and_to_a_missing_folder(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = ok(run("db", "export"))
    # WP-CLI's {database}-{date}-{hash}: calpress (the SQLite file) or test (the PostgreSQL database).
    name = re.fullmatch(r"Success: Exported to '((calpress|test)-\d{4}-\d\d-\d\d-[0-9a-f]{7}\.jsonl)'\.\n", out).group(1)
    assert json.loads((tmp_path / name).read_text().splitlines()[0])["format"] == "calpress-dump"
    code, out, err = run("db", "export", str(tmp_path / "no" / "such" / "folder" / "x.jsonl"))
    assert code == 1 and out == "" and err.startswith(f"Error: Could not write '{tmp_path / 'no' / 'such' / 'folder' / 'x.jsonl'}'")
    (tmp_path / "a folder").mkdir()
    code, out, err = run("db", "export", str(tmp_path / "a folder"))
    assert code == 1 and out == "" and err.startswith(f"Error: Could not write '{tmp_path / 'a folder'}'")
    assert [path.name for path in tmp_path.iterdir() if path.name.endswith(".part")] == []


def test_db_export_and_import_through_the_real_entry_point(cli_process, tmp_path):
    calpress = cli_process
    done = calpress("user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain")
    assert done.returncode == 0, done.stderr
    done = calpress("db", "export", "-")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows[0]["format"] == "calpress-dump" and rows[-1]["end"] is True
    assert [row["r"]["login"] for row in rows[1:-1] if row["t"] == "users"] == ["boss"]
    path = tmp_path / "site.jsonl"
    path.write_text(done.stdout)
    done = calpress("db", "import", str(path))
    assert done.returncode == 1 and done.stdout == "" and "--yes" in done.stderr
    done = calpress("db", "import", str(path), "--yes")
    assert done.returncode == 0 and done.stdout == f"Success: Imported from '{path}'.\n", done.stderr
