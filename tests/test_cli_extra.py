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

    from calpress.cli.rest_calls import acting_user, open_app, rest

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
    assert out == f'1/1 Regenerated thumbnails for "poster" (ID {poster}).\nSuccess: Regenerated 1 of 1 images.\n'
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
    assert code == 1 and out == ""
    assert err == f'Warning: Can\'t find "poster" (ID {poster}): its upload is missing or unreadable.\nError: No images regenerated.\n'
    post = new_id(run("post", "create", "--post_title=Not media", "--porcelain"))
    code, _, err = run("media", "regenerate", str(post))
    assert code == 1 and err == f"Error: Could not find the attachment with ID {post}.\n"


def test_post_meta_add(run):
    post = new_id(run("post", "create", "--post_title=Meta", "--porcelain"))
    # A new key takes the value; a second value makes a list of both; more are appended.
    assert ok(run("post", "meta", "add", str(post), "tag", "red")) == "Success: Added custom field.\n"
    assert ok(run("post", "meta", "get", str(post), "tag")) == "red\n"
    assert ok(run("post", "meta", "add", str(post), "tag", "blue")) == "Success: Added custom field.\n"
    assert json.loads(ok(run("post", "meta", "get", str(post), "tag", "--format=json"))) == ["red", "blue"]
    ok(run("post", "meta", "add", str(post), "tag", '{"shade": "dark"}', "--format=json"))
    assert json.loads(ok(run("post", "meta", "get", str(post), "tag", "--format=json"))) == ["red", "blue", {"shade": "dark"}]
    # A list value is one more value, not several.
    ok(run("post", "meta", "add", str(post), "pair", "[1, 2]", "--format=json"))
    ok(run("post", "meta", "add", str(post), "pair", "[3]", "--format=json"))
    assert json.loads(ok(run("post", "meta", "get", str(post), "pair", "--format=json"))) == [1, 2, [3]]

    # A registered single-valued key that has a value is refused (the REST API reads one value).
    ok(run("post", "meta", "add", str(post), "footnotes", "[]"))
    code, out, err = run("post", "meta", "add", str(post), "footnotes", "[1]")
    assert code == 1 and out == "" and err.startswith("Error: Failed to add custom field: 'footnotes' is registered")
    assert ok(run("post", "meta", "get", str(post), "footnotes")) == "[]\n"
    code, _, err = run("post", "meta", "add", "99999", "tag", "x")
    assert code == 1 and err == "Error: Could not find the post with ID 99999.\n"
    event = new_id(run("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
                       "--porcelain"))
    listed = ok(run("post", "meta", "list", str(event), "--format=json"))
    code, _, err = run("post", "meta", "add", str(event), "_EventStartDate", "2032-01-01 10:00:00")
    assert code == 1 and err.startswith("Error: '_EventStartDate' mirrors the event's own fields")
    assert ok(run("post", "meta", "list", str(event), "--format=json")) == listed


def test_post_meta_patch_and_pluck(run, db_url):
    post = new_id(run("post", "create", "--post_title=Meta", "--porcelain"))
    ok(run("post", "meta", "update", str(post), "settings", '{"colors": {"fg": "black"}, "list": [1, 2]}', "--format=json"))

    def stored() -> object:
        return json.loads(ok(run("post", "meta", "get", str(post), "settings", "--format=json")))

    before = counter(db_url)
    assert ok(run("post", "meta", "patch", "insert", str(post), "settings", "colors", "bg", "white")) == (
        "Success: Updated custom field 'settings'.\n")
    assert counter(db_url) > before  # the item's change is recorded: caches follow
    ok(run("post", "meta", "patch", "update", str(post), "settings", "list", "0", "10", "--format=json"))
    ok(run("post", "meta", "patch", "insert", str(post), "settings", "list", "2", "true", "--format=json"))
    assert stored() == {"colors": {"fg": "black", "bg": "white"}, "list": [10, 2, True]}
    assert ok(run("post", "meta", "patch", "delete", str(post), "settings", "colors", "fg")) == (
        "Success: Updated custom field 'settings'.\n")
    assert stored() == {"colors": {"bg": "white"}, "list": [10, 2, True]}
    # 1 is not true: a JSON value is compared as JSON.
    assert ok(run("post", "meta", "patch", "update", str(post), "settings", "list", "2", "true", "--format=json")) == (
        "Success: Value passed for custom field 'settings' is unchanged.\n")
    assert ok(run("post", "meta", "patch", "update", str(post), "settings", "list", "2", "1", "--format=json")) == (
        "Success: Updated custom field 'settings'.\n")

    assert ok(run("post", "meta", "pluck", str(post), "settings", "colors", "bg")) == "white\n"
    assert ok(run("post", "meta", "pluck", str(post), "settings", "list", "0", "--format=json")) == "10\n"
    assert json.loads(ok(run("post", "meta", "pluck", str(post), "settings", "colors", "--format=json"))) == {"bg": "white"}
    assert ok(run("post", "meta", "pluck", str(post), "settings", "colors", "--format=yaml")) == "---\nbg: white\n"
    assert ok(run("post", "meta", "pluck", str(post), "settings", "list", "--format=yaml")) == "---\n- 10\n- 2\n- 1\n"
    assert ok(run("post", "meta", "pluck", str(post), "settings", "colors", "bg", "--format=yaml")) == "--- white\n"

    # Errors: exit 1 and a message; nothing stored.
    for args, message in [
        (("pluck", str(post), "missing", "a"), f"Could not find custom field 'missing' on post {post}."),
        (("pluck", str(post), "settings", "nope"), 'No data exists for key "nope"'),
        (("pluck", str(post), "settings", "colors", "bg", "deeper"), 'No data exists for key "deeper"'),  # into a scalar
        (("patch", "update", str(post), "missing", "a", "x"), f"Could not find custom field 'missing' on post {post}."),
        (("patch", "insert", str(post), "settings", "colors", "bg", "x"), 'Cannot create key "bg": it already exists.'),
        (("patch", "update", str(post), "settings", "nope", "x"), 'No data exists for key "nope"'),
        (("patch", "insert", str(post), "settings", "colors", "bg", "deeper", "x"),  # into a scalar
         'Cannot create key "deeper" on this value: it is no array or object.'),
        (("patch", "update", str(post), "settings", "colors", "bg", "deeper", "more", "x"), 'No data exists for key "deeper"'),
        (("patch", "insert", str(post), "settings", "x"), "Please provide a key path and a value."),
        (("patch", "update", "99999", "settings", "a", "b"), "Could not find the post with ID 99999."),
    ]:
        code, out, err = run("post", "meta", *args)
        assert (code, out, err) == (1, "", f"Error: {message}\n"), args
    ok(run("post", "meta", "update", str(post), "plain", "text"))
    code, _, err = run("post", "meta", "patch", "insert", str(post), "plain", "a", "b")
    assert code == 1 and err == 'Error: Cannot create key "a" on this value: it is no array or object.\n'
    assert stored() == {"colors": {"bg": "white"}, "list": [10, 2, 1]}

    event = new_id(run("event", "create", "--title=Gig", "--start_date=2031-03-01 20:00", "--end_date=2031-03-01 23:00",
                       "--porcelain"))
    code, _, err = run("post", "meta", "patch", "update", str(event), "_EventStartDate", "0", "x")
    assert code == 1 and err.startswith("Error: '_EventStartDate' mirrors the event's own fields")
    assert ok(run("event", "get", str(event), "--field=start_date")) == "2031-03-01 20:00:00\n"


def test_media_regenerate_only_missing_and_one_size(run, tmp_path):
    from PIL import Image

    _png(tmp_path / "poster.png", (1200, 900))
    poster = new_id(run("media", "import", str(tmp_path / "poster.png"), "--porcelain"))
    uploads = tmp_path / "data" / "uploads"
    thumb, medium, large = (next(uploads.rglob(name)) for name in
                            ("poster-150x150.png", "poster-300x225.png", "poster-1024x768.png"))
    label = f'"poster" (ID {poster})'

    def stamps() -> dict[str, int]:
        return {path.name: path.stat().st_mtime_ns for path in (thumb, medium, large) if path.exists()}

    # --only-missing: nothing to do while every file is there.
    assert ok(run("media", "regenerate", str(poster), "--only-missing")) == (
        f"1/1 No thumbnail regeneration needed for {label}.\nSuccess: Regenerated 1 of 1 images.\n")
    medium.unlink()
    kept = stamps()
    assert ok(run("media", "regenerate", str(poster), "--only-missing")) == (
        f"1/1 Regenerated thumbnails for {label}.\nSuccess: Regenerated 1 of 1 images.\n")
    assert medium.is_file() and stamps()[thumb.name] == kept[thumb.name] and stamps()[large.name] == kept[large.name]
    with Image.open(medium) as image:
        assert image.size == (300, 225)

    # --image_size: that size alone, even when its file is there; others untouched even when missing.
    thumb.unlink()
    kept = stamps()
    assert ok(run("media", "regenerate", str(poster), "--image_size=medium")) == (
        f'1/1 Regenerated "medium" thumbnail for {label}.\nSuccess: Regenerated 1 of 1 images.\n')
    assert stamps()[medium.name] != kept[medium.name] and not thumb.exists() and stamps()[large.name] == kept[large.name]
    sizes = json.loads(ok(run("post", "meta", "get", str(poster), "_wp_attachment_metadata", "--format=json")))["sizes"]
    assert set(sizes) >= {"thumbnail", "medium", "medium_large", "large"}  # the metadata still lists every size
    assert ok(run("media", "regenerate", str(poster), "--image_size=thumbnail", "--image_size=large", "--only-missing")) == (
        f'1/1 Regenerated "thumbnail", "large" thumbnails for {label}.\nSuccess: Regenerated 1 of 1 images.\n')
    assert thumb.is_file() and stamps()[large.name] == kept[large.name]  # large was there: not cut again
    with Image.open(thumb) as image:
        assert image.size == (150, 150)
    assert ok(run("media", "regenerate", str(poster), "--image_size=2048x2048")) == (  # too small for it
        f'1/1 No "2048x2048" thumbnail regeneration needed for {label}.\nSuccess: Regenerated 1 of 1 images.\n')

    code, out, err = run("media", "regenerate", str(poster), "--image_size=huge")
    assert code == 1 and out == "" and err == (
        'Error: Unknown image size "huge". The image sizes are: thumbnail, medium, medium_large, large, 1536x1536, 2048x2048.\n')
    # Several ids go on past one that is no attachment.
    post = new_id(run("post", "create", "--post_title=Not media", "--porcelain"))
    code, out, err = run("media", "regenerate", str(poster), str(post), "--only-missing")
    assert code == 1 and out == f"1/1 No thumbnail regeneration needed for {label}.\n"
    assert err == f"Warning: Could not find the attachment with ID {post}.\nError: Only regenerated 1 of 2 images.\n"


def test_post_meta_add_patch_pluck_through_the_real_entry_point(cli_process, cli_admin):
    post = new_id(cli_admin("post", "create", "--post_title=Shell", "--porcelain"))  # set up in process
    done = cli_process("post", "meta", "add", str(post), "settings", '{"colors": {"fg": "black"}}', "--format=json")
    assert (done.returncode, done.stdout) == (0, "Success: Added custom field.\n"), done.stderr
    done = cli_process("post", "meta", "patch", "insert", str(post), "settings", "colors", "bg", "white")
    assert (done.returncode, done.stdout) == (0, "Success: Updated custom field 'settings'.\n"), done.stderr
    done = cli_process("post", "meta", "pluck", str(post), "settings", "colors", "--format=json")
    assert done.returncode == 0 and json.loads(done.stdout) == {"fg": "black", "bg": "white"}
    done = cli_process("post", "meta", "pluck", str(post), "settings", "nope")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", 'Error: No data exists for key "nope"\n')
