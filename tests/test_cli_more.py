"""event, venue, organizer, comment, user, cache and db commands in WP-CLI's forms (issue 15):
in-process through ``calpress.cli.main`` on both databases, and one run of the real
``python -m calpress``."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from clifixtures import new_id, ok


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
    assert list(rows[0]) == ["comment_ID", "comment_post_ID", "comment_date", "comment_approved"]
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


def test_users(run):
    editor = new_id(run("user", "create", "ed", "ed@example.test", "--role=editor", "--porcelain"))
    new_id(run("user", "create", "sub", "sub@example.test", "--role=contributor", "--porcelain"))

    rows = list(csv.DictReader(io.StringIO(ok(run("user", "list", "--format=csv")))))
    assert list(rows[0]) == ["ID", "user_login", "display_name", "user_email", "user_registered", "roles"]
    assert [(row["user_login"], row["roles"]) for row in rows] == [("boss", "administrator"), ("ed", "editor"), ("sub", "contributor")]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", rows[1]["user_registered"])
    assert ok(run("user", "list", "--role=editor", "--format=ids")) == f"{editor}\n"
    assert ok(run("user", "list", "--field=user_login")) == "boss\ned\nsub\n"

    got = json.loads(ok(run("user", "get", "ed@example.test", "--format=json")))
    assert (got["ID"], got["user_login"], got["roles"]) == (editor, "ed", "editor")
    out = ok(run("user", "update", "ed", "--display_name=Ed Wood", "--first_name=Ed", "--last_name=Wood",
                 "--user_url=https://ed.example"))
    assert out == f"Success: Updated user {editor}.\n"
    got = json.loads(ok(run("user", "get", str(editor), "--format=json",
                            "--fields=display_name,first_name,last_name,user_url")))
    assert got == {"display_name": "Ed Wood", "first_name": "Ed", "last_name": "Wood", "user_url": "https://ed.example"}
    code, out, err = run("user", "update", "ed", "--user_email=not-an-address", "--display_name=Never")
    assert code == 1 and out == "" and err == "Error: Invalid parameter(s): email (Invalid email address.)\n"
    assert ok(run("user", "get", "ed", "--field=display_name")) == "Ed Wood\n"  # nothing stored
    code, _, err = run("user", "get", "nobody")
    assert code == 1 and err == "Error: Invalid user ID, email or login: 'nobody'\n"

    assert ok(run("user", "set-role", "ed", "author")) == f"Success: Added ed ({editor}) to http://localhost as author.\n"
    assert ok(run("user", "get", "ed", "--field=roles")) == "author\n"
    code, _, err = run("user", "set-role", "ed", "emperor")
    assert code == 1 and err.startswith("Error: ")

    # application passwords
    ok(run("user", "application-password", "create", "ed", "first app", "--porcelain"))
    ok(run("user", "application-password", "create", "ed", "second app", "--porcelain"))
    listed = json.loads(ok(run("user", "application-password", "list", "ed", "--format=json")))
    assert sorted(item["name"] for item in listed) == ["first app", "second app"]
    assert list(listed[0]) == ["uuid", "app_id", "name", "created", "last_used", "last_ip"]
    uuid = next(item["uuid"] for item in listed if item["name"] == "first app")
    out = ok(run("user", "application-password", "delete", "ed", uuid))
    assert out == "Success: Deleted 1 of 1 application password.\n"
    assert ok(run("user", "application-password", "list", "ed", "--field=name")) == "second app\n"
    code, _, err = run("user", "application-password", "delete", "ed", uuid)
    assert code == 1 and err.startswith("Error: ")

    # delete: the posts go to --reassign, or are deleted with the user
    kept = new_id(run("post", "create", "--post_title=Kept", "--user=ed", "--porcelain"))
    gone = new_id(run("post", "create", "--post_title=Gone", "--user=sub", "--porcelain"))
    assert ok(run("user", "delete", "ed", "--reassign=boss")) == f"Success: Removed user {editor} from http://localhost.\n"
    assert ok(run("post", "get", str(kept), "--field=post_author")) == "1\n"
    ok(run("user", "delete", "sub"))
    code, _, _ = run("post", "get", str(gone))
    assert code == 1
    assert ok(run("user", "list", "--field=user_login")) == "boss\n"


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


def test_the_real_entry_point(cli_process):
    calpress = cli_process

    done = calpress("user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain")
    assert done.returncode == 0, done.stderr
    done = calpress("event", "create", "--title=From a shell", "--start_date=2028-05-01 09:00",
                    "--end_date=2028-05-01 10:00", "--status=publish", "--porcelain")
    assert done.returncode == 0 and re.fullmatch(r"\d+\n", done.stdout), done.stderr
    event_id = int(done.stdout)
    done = calpress("event", "list", "--format=json", "--fields=ID,title,status")
    assert json.loads(done.stdout) == [{"ID": event_id, "title": "From a shell", "status": "publish"}]
    done = calpress("event", "update", str(event_id), "--status=nonsense")
    assert done.returncode == 1 and done.stderr.startswith("Error: Invalid parameter(s): status")
