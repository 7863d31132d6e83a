"""post, term and option commands in WP-CLI's forms (issue 15): in-process through
``calpress.cli.main`` on both databases, and a few runs of the real ``python -m calpress``."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from clifixtures import ok

from calpress.cli import formats as cli_format


@pytest.fixture()
def run(cli):
    return cli


@pytest.fixture()
def admin_run(cli_admin):
    return cli_admin


def test_post_create_list_get_update_delete(admin_run):
    run = admin_run
    first = int(ok(run("post", "create", "--post_title=Board meeting: March", "--post_content=Agenda", "--porcelain")))
    out = ok(run("post", "create", "--post_title=Second", "--post_status=publish", "--post_name=second"))
    second = int(re.fullmatch(r"Success: Created post (\d+)\.\n", out).group(1))

    listed = json.loads(ok(run("post", "list", "--format=json")))
    assert [row["ID"] for row in listed] == [second, first]  # newest first, drafts included
    assert list(listed[0]) == ["ID", "post_title", "post_name", "post_date", "post_status"]  # WP-CLI's default fields
    assert listed[1]["post_title"] == "Board meeting: March" and listed[1]["post_status"] == "draft"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", listed[1]["post_date"])

    rows = list(csv.reader(io.StringIO(ok(run("post", "list", "--format=csv", "--fields=ID,post_name,post_author")))))
    assert rows[0] == ["ID", "post_name", "post_author"] and rows[1][:2] == [str(second), "second"]
    assert ok(run("post", "list", "--format=ids")) == f"{second} {first}\n"
    assert ok(run("post", "list", "--format=count")) == "2\n"
    assert ok(run("post", "list", "--post_status=publish", "--format=ids")) == f"{second}\n"  # passed to the REST listing
    assert ok(run("post", "list", "--search", "Board", "--format=ids")) == f"{first}\n"
    yaml = ok(run("post", "list", "--format=yaml", "--fields=ID,post_title"))
    assert yaml == f'---\n- ID: {second}\n  post_title: Second\n- ID: {first}\n  post_title: "Board meeting: March"\n'
    table = ok(run("post", "list", "--fields=ID,post_status")).splitlines()
    assert table == ["ID\tpost_status", f"{second}\tpublish", f"{first}\tdraft"]  # piped: tab-separated
    assert ok(run("post", "list", "--field=post_name")) == "second\n\n"
    assert json.loads(ok(run("post", "list", "--field=ID", "--format=json"))) == [second, first]

    assert ok(run("post", "get", str(first), "--field=post_content")) == "Agenda\n"
    item = json.loads(ok(run("post", "get", str(first), "--format=json")))
    assert item["ID"] == first and item["post_type"] == "post" and item["comment_status"] == "open"
    assert ok(run("post", "get", str(first), "--fields=ID,post_title")) == f"Field\tValue\nID\t{first}\npost_title\tBoard meeting: March\n"

    assert ok(run("post", "update", str(first), "--post_status=publish", "--post_title=Renamed")) == f"Success: Updated post {first}.\n"
    assert json.loads(ok(run("post", "get", str(first), "--format=json", "--fields=post_title,post_status"))) == {
        "post_title": "Renamed", "post_status": "publish"}

    assert ok(run("post", "delete", str(first))) == f"Success: Trashed post {first}.\n"
    assert ok(run("post", "list", "--format=ids")) == f"{second}\n"
    assert ok(run("post", "list", "--post_status=trash", "--format=ids")) == f"{first}\n"
    assert ok(run("post", "delete", str(first), "--force")) == f"Success: Deleted post {first}.\n"
    code, _, err = run("post", "get", str(first))
    assert code == 1 and err == f"Error: Could not find the post with ID {first}.\n"


def test_deleting_several_posts_goes_on_past_one_that_fails(admin_run):
    run = admin_run
    first, middle, last = (int(ok(run("post", "create", f"--post_title={title}", "--porcelain")))
                           for title in ("One", "Two", "Three"))
    ok(run("post", "delete", str(middle), "--force"))  # now an id that does not exist

    code, out, err = run("post", "delete", str(first), str(middle), str(last), "--force")
    assert code == 1
    assert out == f"Success: Deleted post {first}.\nSuccess: Deleted post {last}.\n"
    assert err == f"Warning: Could not find the post with ID {middle}.\nError: Only deleted 2 of 3 posts.\n"
    assert ok(run("post", "list", "--format=count")) == "0\n"
    assert ok(run("post", "list", "--post_status=trash", "--format=count")) == "0\n"

    kept = [int(ok(run("post", "create", f"--post_title={title}", "--porcelain"))) for title in ("Four", "Five")]
    assert ok(run("post", "delete", *map(str, kept))) == "".join(f"Success: Trashed post {post}.\n" for post in kept)
    code, out, err = run("post", "delete", "99998", "99999")
    assert code == 1 and out == "" and err.endswith("Warning: Could not find the post with ID 99999.\nError: No posts trashed.\n")
    assert sorted(map(int, ok(run("post", "list", "--post_status=trash", "--format=ids")).split())) == sorted(kept)


def test_rest_validation_and_permissions_apply(admin_run):
    run = admin_run
    code, out, err = run("post", "create", "--post_title=Bad", "--post_status=nonsense")
    assert code == 1 and out == ""
    assert err.startswith("Error: Invalid parameter(s): status (status is not one of publish,")
    assert ok(run("post", "list", "--format=count")) == "0\n"  # nothing stored
    code, _, err = run("post", "list", "--fields=ID,nope")
    assert code == 1 and err == "Error: Invalid field: nope.\n"

    run("user", "create", "sub", "sub@example.test", "--role=subscriber", "--porcelain")
    code, _, err = run("post", "create", "--post_title=Mine", "--user=sub")
    assert code == 1 and err == "Error: Sorry, you are not allowed to create posts as this user.\n"
    code, _, err = run("post", "list", "--user=nobody")
    assert code == 1 and "Invalid user ID, email or login: 'nobody'" in err
    code, _, err = run("post", "list", "--post_type=nope")
    assert code == 1 and "Invalid post type: nope" in err
    with pytest.raises(SystemExit) as stopped:  # only listings take unknown options; argparse's exit, as before
        run("post", "get", "1", "--bogus=1")
    assert stopped.value.code == 2


def test_without_an_administrator_commands_say_so(run):
    code, _, err = run("post", "list")
    assert code == 1 and err.startswith("Error: No administrator to act as")


def test_pages_and_events(admin_run):
    run = admin_run
    page = ok(run("post", "create", "--post_type=page", "--post_title=About", "--post_status=publish", "--menu_order=3", "--porcelain")).strip()
    ok(run("post", "create", "--post_title=A post", "--porcelain"))
    rows = json.loads(ok(run("post", "list", "--post_type=page", "--format=json", "--fields=ID,post_type,menu_order")))
    assert rows == [{"ID": int(page), "post_type": "page", "menu_order": 3}]
    event = ok(run("post", "create", "--post_type=cal_events", "--post_title=Concert", "--post_status=publish", "--porcelain")).strip()
    rows = json.loads(ok(run("post", "list", "--post_type=cal_events", "--format=json", "--fields=ID,post_type,post_title")))
    assert rows == [{"ID": int(event), "post_type": "cal_events", "post_title": "Concert"}]
    assert json.loads(ok(run("post", "get", event, "--format=json", "--fields=post_type")))["post_type"] == "cal_events"
    assert ok(run("post", "list", "--post_type=attachment", "--format=count")) == "0\n"  # media statuses differ


def test_terms(admin_run):
    run = admin_run
    music = ok(run("term", "create", "category", "Music", "--description=Live music", "--porcelain")).strip()
    out = ok(run("term", "create", "category", "Jazz", f"--parent={music}"))
    jazz = re.fullmatch(r"Success: Created category (\d+)\.\n", out).group(1)
    code, _, err = run("term", "create", "category", "Music")
    assert code == 1 and "already exists" in err

    rows = list(csv.DictReader(io.StringIO(ok(run("term", "list", "category", "--format=csv")))))
    assert list(rows[0]) == ["term_id", "term_taxonomy_id", "name", "slug", "description", "parent", "count"]
    by_name = {row["name"]: row for row in rows}
    assert by_name["Jazz"]["parent"] == music and by_name["Music"]["description"] == "Live music"
    assert "Uncategorized" in by_name

    assert ok(run("term", "update", "category", music, "--name=Musique", "--slug=musique")) == "Success: Term updated.\n"
    got = json.loads(ok(run("term", "get", "category", music, "--format=json")))
    assert (got["name"], got["slug"], got["taxonomy"]) == ("Musique", "musique", "category")
    assert ok(run("term", "delete", "category", jazz)) == f"Success: Deleted category {jazz}.\n"
    rock, pop = (ok(run("term", "create", "category", name, "--porcelain")).strip() for name in ("Rock", "Pop"))
    code, out, err = run("term", "delete", "category", rock, jazz, pop)
    assert code == 1 and out == f"Success: Deleted category {rock}.\nSuccess: Deleted category {pop}.\n"
    assert err.startswith("Warning: ") and err.endswith("Error: Only deleted 2 of 3 terms.\n")
    assert jazz not in ok(run("term", "list", "category", "--format=ids")).split()
    ok(run("term", "create", "cal_events_cat", "Concerts"))
    assert ok(run("term", "list", "cal_events_cat", "--field=name")) == "Concerts\n"
    code, _, err = run("term", "list", "nope")
    assert code == 1 and "Taxonomy nope doesn't exist" in err


def test_options_list_add_delete(run):
    assert ok(run("option", "add", "my_option", "hello")) == "Success: Added 'my_option' option.\n"
    code, _, err = run("option", "add", "my_option", "again")
    assert code == 1 and err == "Error: Could not add option 'my_option'. Does it already exist?\n"
    code, _, err = run("option", "add", "blogname", "x")  # has a default: it exists
    assert code == 1 and "Could not add option 'blogname'" in err
    assert json.loads(ok(run("option", "list", "--search=my_*", "--format=json"))) == [
        {"option_name": "my_option", "option_value": "hello"}]
    assert ok(run("option", "list", "--search=blog*")) == "option_name\toption_value\nblogdescription\t\nblogname\tcalpress\n"
    assert ok(run("option", "list", "--search=*_format", "--format=count")) == "3\n"
    code, _, err = run("option", "add", "posts_per_page_x", "3", "--format=json")
    assert code == 0 and ok(run("option", "get", "posts_per_page_x")) == "3\n"
    assert ok(run("option", "delete", "my_option")) == "Success: Deleted 'my_option' option.\n"
    code, _, err = run("option", "delete", "my_option")
    assert code == 1 and err == "Error: Could not delete 'my_option' option. Does it exist?\n"


def test_formats():
    rows = [{"ID": 1, "t": "Hi"}, {"ID": 22, "t": "Longer title"}]
    assert cli_format.render_list(rows, "table", ["ID", "t"], bordered=True).splitlines() == [
        "+----+--------------+", "| ID | t            |", "+----+--------------+",
        "| 1  | Hi           |", "| 22 | Longer title |", "+----+--------------+"]
    for text, expected in [("plain", "plain"), ("", '""'), ("yes", '"yes"'), ("12", '"12"'), ("a: b", '"a: b"'),
                           ("- x", '"- x"'), ("two\nlines", '"two\\nlines"'), ("null", '"null"'), ("été", "été")]:
        assert cli_format.yaml_scalar(text) == expected
    assert cli_format.render_item({"ID": 1, "v": [1, 2]}, "yaml", ["ID", "v"]) == "---\nID: 1\nv: [1, 2]"
    assert cli_format.render_list([], "yaml", ["ID"]) == "--- []"
