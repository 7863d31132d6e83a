"""user commands in WP-CLI's forms (calpress/cli/users.py): create, list, get, update, delete,
set-role, reset-password and application passwords, in-process through ``calpress.cli.main`` on
both databases. Their runs of the real ``python -m calpress`` are tests/test_cli_entry.py's
``test_user_commands``."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from clifixtures import new_id, ok

from calpress.store import db as store_db


@pytest.fixture()
def run(cli_admin):
    return cli_admin


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
    assert out == "Success: Deleted 1 of 1 application passwords.\n"
    assert ok(run("user", "application-password", "list", "ed", "--field=name")) == "second app\n"
    code, _, err = run("user", "application-password", "delete", "ed", uuid)
    assert code == 1 and err == (f"Warning: Failed to delete UUID {uuid}: Application password not found.\n"
                                 "Error: No application passwords deleted.\n")

    # delete: the posts go to --reassign, or are deleted with the user
    kept = new_id(run("post", "create", "--post_title=Kept", "--user=ed", "--porcelain"))
    gone = new_id(run("post", "create", "--post_title=Gone", "--user=sub", "--porcelain"))
    assert ok(run("user", "delete", "ed", "--reassign=boss")) == f"Success: Removed user {editor} from http://localhost.\n"
    assert ok(run("post", "get", str(kept), "--field=post_author")) == "1\n"
    ok(run("user", "delete", "sub"))
    code, _, _ = run("post", "get", str(gone))
    assert code == 1
    assert ok(run("user", "list", "--field=user_login")) == "boss\n"


def _stored_user(db_url, login):
    from calpress.auth import users

    engine = store_db.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return users.get_user_by(conn, "login", login)
    finally:
        engine.dispose()


def test_user_reset_password(run, db_url, monkeypatch, caplog):
    """WP-CLI's reset-password: a new random password (the old one and every session end), and
    the reset mail through a real SMTP server, whose link lets the user choose a password."""
    from mailfixtures import smtp_server

    from calpress.auth import password_reset, sessions, users

    ok(run("user", "create", "ed", "ed@example.test", "--role=editor", "--user_pass=old secret"))
    ok(run("user", "create", "sub", "sub@example.test", "--role=subscriber", "--user_pass=sub secret"))
    before = _stored_user(db_url, "ed")
    cookie, _ = sessions.make_login_cookie("cli-test-secret", before.id, before.password_hash)
    with smtp_server() as box:
        monkeypatch.setenv("CALPRESS_SMTP_URL", box.url)
        assert ok(run("user", "reset-password", "ed")) == "Reset password for ed.\nSuccess: Password reset for 1 user.\n"
        (received,) = box.wait(1)
        assert received.rcpt_tos == ["ed@example.test"] and received.message["From"] == "WordPress <wordpress@localhost>"
        assert received.message["Subject"] == "[calpress] Password Reset"
        assert received.body.startswith("An administrator has reset the password for the following account:\n\n"
                                        "Site Name: calpress\n\nUsername: ed\n\n"
                                        "To choose a new password, visit the following address:\n\n")
        key = re.search(r"^http://localhost/wp-login\.php\?action=rp&key=(\w{20})&login=ed$", received.body, re.M).group(1)
        after = _stored_user(db_url, "ed")
        assert not users.check_password(after, "old secret")
        assert sessions.verify_login_cookie("cli-test-secret", cookie, after.password_hash) is None  # logged out
        engine = store_db.create_engine(db_url)
        try:
            with engine.connect() as conn:
                assert password_reset.check(conn, "ed", key, "cli-test-secret")[0].id == after.id
        finally:
            engine.dispose()

        # --show-password, several users, an unknown one (a warning), by id and e-mail address.
        code, out, err = run("user", "reset-password", "ed@example.test", "ghost", str(after.id), "sub", "--show-password")
        assert code == 0 and err == "Warning: Invalid user ID, email or login: 'ghost'\n"
        lines = out.splitlines()
        assert [lines[0], lines[2], lines[4]] == ["Reset password for ed.", "Reset password for sub.",
                                                  "Success: Passwords reset for 2 users."]
        password = lines[1].removeprefix("Password: ")
        assert re.fullmatch(r"\S{24}", password) and users.check_password(_stored_user(db_url, "ed"), password)
        assert len(box.wait(3)) == 3

        # --skip-email --porcelain: the password alone, and no mail.
        out = ok(run("user", "reset-password", "sub", "--skip-email", "--porcelain"))
        assert re.fullmatch(r"\S{24}\n", out) and users.check_password(_stored_user(db_url, "sub"), out.strip())
        assert len(box.messages) == 3

    code, out, err = run("user", "reset-password", "ghost", "nobody@example.test")
    assert (code, out) == (1, "") and err.endswith("Error: No user found to reset password.\n")

    # A server that does not answer: the password is reset, the command fails naming the mail.
    monkeypatch.setenv("CALPRESS_SMTP_URL", "smtp://127.0.0.1:1?timeout=2")
    code, out, err = run("user", "reset-password", "sub")
    assert code == 1 and out == "Reset password for sub.\n"
    assert "Warning: The reset email to sub could not be sent: Could not send mail through smtp://127.0.0.1:1" in err
    assert err.endswith("Error: Password reset for 1 user, but 1 of the emails could not be sent.\n")

    # No mail set up: the link goes to the log, and the command says so.
    monkeypatch.delenv("CALPRESS_SMTP_URL")
    with caplog.at_level("WARNING", logger="calpress.mail"):
        code, out, err = run("user", "reset-password", "sub")
    assert code == 0 and out == "Reset password for sub.\nSuccess: Password reset for 1 user.\n"
    assert "Warning: Mail is not set up on this site (CALPRESS_SMTP_URL), so no email was sent to sub" in err
    assert any(re.search(r"http://localhost/wp-login\.php\?action=rp&key=\w{20}&login=sub", r.getMessage())
               for r in caplog.records)
