"""post meta, option patch and media list/regenerate in WP-CLI's forms (issue 15): in-process
through ``calpress.cli.main`` on both databases, and one run of the real ``python -m calpress``."""

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


def counter(db_url: str) -> int:
    import sqlalchemy as sa

    from calpress.store import db as store_db

    engine = sa.create_engine(store_db.normalize_url(db_url))
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT value FROM counters WHERE name = 'content'")).scalar()
    finally:
        engine.dispose()


def rest_meta(tmp_path, db_url: str, post_id: int) -> dict:
    """The ``meta`` field of the post's REST answer (GET /cms/v2/posts/<id>, edit context)."""
    import argparse

    from calpress.cli_content import acting_user, open_app, rest

    app = open_app(argparse.Namespace(data_dir=str(tmp_path / "data"), database_url=db_url))
    try:
        _, data, _ = rest(app, "GET", f"/cms/v2/posts/{post_id}", acting_user(app, None), {"context": "edit"})
    finally:
        app.site.close()
    return data["meta"]


def test_post_meta(run, db_url, tmp_path):
    post = new_id(run("post", "create", "--post_title=Meta", "--post_status=publish", "--porcelain"))
    assert ok(run("post", "meta", "list", str(post), "--format=count")) == "0\n"

    before = counter(db_url)
    assert ok(run("post", "meta", "update", str(post), "color", "blue")) == "Success: Updated custom field 'color'.\n"
    assert counter(db_url) > before  # logged as a change of the item: caches follow
    assert ok(run("post", "meta", "update", str(post), "color", "blue")) == (
        "Success: Value passed for custom field 'color' is unchanged.\n")
    assert ok(run("post", "meta", "get", str(post), "color")) == "blue\n"
    assert ok(run("post", "meta", "update", str(post), "_secret", '{"a": [1, 2]}', "--format=json")) == (
        "Success: Updated custom field '_secret'.\n")
    assert json.loads(ok(run("post", "meta", "get", str(post), "_secret", "--format=json"))) == {"a": [1, 2]}
    assert ok(run("post", "meta", "get", str(post), "color", "--format=json")) == '"blue"\n'

    rows = json.loads(ok(run("post", "meta", "list", str(post), "--format=json")))
    assert sorted((row["post_id"], row["meta_key"], row["meta_value"]) for row in rows) == [
        (post, "_secret", {"a": [1, 2]}), (post, "color", "blue")]
    table = list(csv.DictReader(io.StringIO(ok(run("post", "meta", "list", str(post), "--format=csv")))))
    assert {row["meta_key"]: row["meta_value"] for row in table} == {"color": "blue", "_secret": '{"a":[1,2]}'}
    assert ok(run("post", "meta", "list", str(post), "--field=meta_key")).split() == [row["meta_key"] for row in rows]

    # A registered key shows in the REST answer's meta; unregistered ones stay out of it.
    assert ok(run("post", "meta", "update", str(post), "footnotes", "[]")) == "Success: Updated custom field 'footnotes'.\n"
    shown = rest_meta(tmp_path, db_url, post)
    assert shown["footnotes"] == "[]" and "color" not in shown and "_secret" not in shown
    got = json.loads(ok(run("post", "get", str(post), "--format=json", "--fields=post_title,post_status")))
    assert got == {"post_title": "Meta", "post_status": "publish"}

    assert ok(run("post", "meta", "delete", str(post), "color")) == "Success: Deleted custom field 'color'.\n"
    code, out, err = run("post", "meta", "get", str(post), "color")
    assert code == 1 and out == "" and err.startswith("Error: ")
    code, out, err = run("post", "meta", "delete", str(post), "color")
    assert code == 1 and err == "Error: Could not delete custom field 'color'.\n"
    assert ok(run("post", "meta", "list", str(post), "--field=meta_key")) == "_secret\nfootnotes\n"
    assert ok(run("post", "meta", "delete", str(post), "footnotes")) == "Success: Deleted custom field 'footnotes'.\n"
    assert rest_meta(tmp_path, db_url, post)["footnotes"] == ""  # the registered default again
    # An event's dates are its own row's: their meta mirror is not written here.
    event = new_id(run("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
                       "--porcelain"))
    assert ok(run("post", "meta", "get", str(event), "_EventStartDate")) == "2031-03-01 20:00:00\n"
    code, _, err = run("post", "meta", "update", str(event), "_EventStartDate", "2032-01-01 10:00:00")
    assert code == 1 and err.startswith("Error: '_EventStartDate' mirrors the event's own fields")
    assert ok(run("post", "meta", "update", str(event), "ticket_note", "bring cash"))
    assert ok(run("post", "meta", "get", str(event), "ticket_note")) == "bring cash\n"
    assert ok(run("event", "get", str(event), "--field=start_date")) == "2031-03-01 20:00:00\n"
    code, _, err = run("post", "meta", "update", "99999", "k", "v")
    assert code == 1 and err == "Error: Could not find the post with ID 99999.\n"
    code, _, err = run("post", "meta", "update", str(post), "k", "{nope", "--format=json")
    assert code == 1 and err.startswith("Error: Invalid JSON")


def test_option_patch(run):
    ok(run("option", "add", "my_settings", '{"colors": {"fg": "black"}, "list": [1, 2]}', "--format=json"))

    def stored() -> object:
        return json.loads(ok(run("option", "get", "my_settings", "--format=json")))

    assert ok(run("option", "patch", "insert", "my_settings", "colors", "bg", "white")) == (
        "Success: Updated 'my_settings' option.\n")
    assert stored() == {"colors": {"fg": "black", "bg": "white"}, "list": [1, 2]}
    assert ok(run("option", "patch", "update", "my_settings", "colors", "fg", '{"r": 0}', "--format=json")) == (
        "Success: Updated 'my_settings' option.\n")
    assert ok(run("option", "patch", "insert", "my_settings", "list", "2", "3", "--format=json"))
    assert ok(run("option", "patch", "update", "my_settings", "list", "0", "10", "--format=json"))
    assert stored() == {"colors": {"fg": {"r": 0}, "bg": "white"}, "list": [10, 2, 3]}
    assert ok(run("option", "patch", "delete", "my_settings", "colors", "bg")) == "Success: Updated 'my_settings' option.\n"
    assert ok(run("option", "patch", "delete", "my_settings", "list", "1"))
    assert stored() == {"colors": {"fg": {"r": 0}}, "list": [10, 3]}

    # insert refuses an existing key, update and delete a missing one: nothing changes
    code, out, err = run("option", "patch", "insert", "my_settings", "colors", "fg", "x")
    assert code == 1 and out == "" and err.startswith("Error: Cannot create key \"fg\"")
    code, _, err = run("option", "patch", "update", "my_settings", "colors", "nope", "x")
    assert code == 1 and err == 'Error: No data exists for key "nope"\n'
    code, _, err = run("option", "patch", "delete", "my_settings", "missing", "deeper")
    assert code == 1 and err == 'Error: No data exists for key "missing"\n'
    code, _, err = run("option", "patch", "update", "nothing_here", "a", "b")
    assert code == 1 and err == "Error: Cannot load option 'nothing_here'.\n"
    code, _, err = run("option", "patch", "update", "blogname", "a", "b")
    assert code == 1 and "no array or object" in err
    assert stored() == {"colors": {"fg": {"r": 0}}, "list": [10, 3]}
    assert ok(run("option", "patch", "update", "my_settings", "list", "0", "10", "--format=json")) == (
        "Success: Value passed for 'my_settings' option is unchanged.\n")


def _png(path, size=(400, 300)) -> None:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())


def test_media_list_and_regenerate(run, tmp_path):
    _png(tmp_path / "poster.png")
    _png(tmp_path / "tiny.png", (40, 30))
    poster = new_id(run("media", "import", str(tmp_path / "poster.png"), "--porcelain"))
    tiny = new_id(run("media", "import", str(tmp_path / "tiny.png"), "--porcelain"))

    rows = json.loads(ok(run("media", "list", "--format=json")))
    assert [row["ID"] for row in rows] == [tiny, poster]
    assert list(rows[0]) == ["ID", "title", "file", "mime_type", "date"]
    by_id = {row["ID"]: row for row in rows}
    assert by_id[poster]["title"] == "poster" and by_id[poster]["mime_type"] == "image/png"
    assert re.fullmatch(r"\d{4}/\d\d/poster\.png", by_id[poster]["file"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", by_id[poster]["date"])
    url = ok(run("media", "list", "--field=source_url")).split()[1]
    assert url.endswith("/wp-content/uploads/" + by_id[poster]["file"])
    assert ok(run("media", "list", "--format=count")) == "2\n"

    uploads = tmp_path / "data" / "uploads"
    thumb = next(uploads.rglob("poster-150x150.png"))
    medium = next(uploads.rglob("poster-300x225.png"))
    thumb.unlink()
    medium.unlink()
    out = ok(run("media", "regenerate", str(poster)))
    assert out == f'1/1 Regenerated thumbnails for "poster" (ID {poster}).\nSuccess: Regenerated 1 of 1 image.\n'
    assert thumb.is_file() and medium.is_file()
    from PIL import Image

    with Image.open(thumb) as image:
        assert image.size == (150, 150)

    # Every image needs --yes (no prompt).
    code, out, err = run("media", "regenerate")
    assert code == 1 and out == "" and "--yes" in err
    thumb.unlink()
    out = ok(run("media", "regenerate", "--yes"))
    assert out == (f'1/2 No thumbnail regeneration needed for "tiny" (ID {tiny}).\n'
                   f'2/2 Regenerated thumbnails for "poster" (ID {poster}).\n'
                   "Success: Regenerated 2 of 2 images.\n")
    assert thumb.is_file()

    # A missing upload: a warning and an error; a post is no attachment.
    original = next(uploads.rglob("poster.png"))
    original.unlink()
    code, out, err = run("media", "regenerate", str(poster))
    assert code == 1 and "Can't find \"poster\"" in out and err == "Error: Only regenerated 0 of 1 image.\n"
    post = new_id(run("post", "create", "--post_title=Not media", "--porcelain"))
    code, _, err = run("media", "regenerate", str(post))
    assert code == 1 and err == f"Error: Could not find the attachment with ID {post}.\n"


def test_the_real_entry_point(cli_process):
    calpress = cli_process

    done = calpress("user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain")
    assert done.returncode == 0, done.stderr
    done = calpress("post", "create", "--post_title=Shell", "--porcelain")
    post = int(done.stdout)
    done = calpress("post", "meta", "update", str(post), "mood", "calm")
    assert done.returncode == 0 and done.stdout == "Success: Updated custom field 'mood'.\n", done.stderr
    done = calpress("post", "meta", "get", str(post), "mood")
    assert done.returncode == 0 and done.stdout == "calm\n"
    done = calpress("post", "meta", "get", str(post), "missing")
    assert done.returncode == 1 and done.stdout == ""
    done = calpress("media", "regenerate")
    assert done.returncode == 1 and "--yes" in done.stderr
