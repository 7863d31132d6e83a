"""The command line sets what the API sets (issue 34 item 2), through the real entry point
(``cli_process``) on both databases: for each family a command mirroring a route is given every
argument of that route (taken from the route's own schema, so that a field added to the route and
not to a test fails here), then the item is read back. Set-up and read-backs that are not the
point run in process (``cli_admin``, the REST engine); one child per command that is."""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

from clifixtures import new_id as new_id_in_process

from calpress.api.cal_events import event_write_args
from calpress.api.cal_linked import linked_write_args
from calpress.cli.common import progress_bar
from calpress.cli.rest_calls import acting_user, open_app, rest


def _png(path: Path) -> Path:
    from PIL import Image

    Image.new("RGB", (400, 300), "white").save(path, format="PNG")
    return path


def _ok(done: Any) -> str:
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.args, done.stdout, done.stderr)
    return done.stdout


def _refused(done: Any) -> str:
    assert (done.returncode, done.stdout) == (1, "") and "Traceback" not in done.stderr, (done.args, done.stderr)
    return done.stderr


def _rest_get(tmp_path: Path, db_url: str, route: str) -> dict[str, Any]:
    app = open_app(argparse.Namespace(data_dir=str(tmp_path / "data"), database_url=db_url))
    try:
        return rest(app, "GET", route, acting_user(app, None), {"context": "edit"})[1]
    finally:
        app.site.close()


def test_event_create_and_update_take_every_field_of_the_events_route(cli_process, cli_admin, tmp_path):
    image = new_id_in_process(cli_admin("media", "import", str(_png(tmp_path / "poster.png")), "--porcelain"))
    hall = new_id_in_process(cli_admin("venue", "create", "Town Hall", "--porcelain"))
    boss = 1
    given = {
        "author": str(boss), "date": "2026-01-02 03:04:05", "date_utc": "2026-01-02 03:04:05", "title": "Gig",
        "description": "Loud music", "slug": "the-gig", "excerpt": "Short", "status": "publish",
        "timezone": "Europe/Paris", "all_day": "false", "start_date": "2031-03-01 20:00", "end_date": "2031-03-01 23:00",
        "image": str(image), "cost": "20", "website": "https://gig.example", "show_map": "false", "show_map_link": "false",
        "hide_from_listings": "true", "sticky": "true", "featured": "true",
        "categories": "musci",  # misspelt: created, and said so
        "tags": "loud,live", "venue": "town hall",  # matched by name, whatever the case
        "organizer": "New Org",  # no organizer of that name: created, as the route's inline organizers
    }
    assert set(given) == set(event_write_args(creating=True))  # every argument of the route, no more
    done = cli_process("event", "create", *(f"--{name}={value}" for name, value in given.items()),
                       "--currency_symbol=€", "--porcelain")
    gig = int(_ok(done))
    said = done.stderr.splitlines()
    assert f"Matched venue 'town hall' (id {hall})" in said
    assert re.search(r"^Created category 'musci' \(id \d+\)$", done.stderr, re.M)
    assert re.search(r"^Created tag 'loud' \(id \d+\)$", done.stderr, re.M) and "Created tag 'live'" in done.stderr
    organizer = int(re.search(r"^Created organizer 'New Org' \(id (\d+)\)$", done.stderr, re.M).group(1))

    fields = [*(name for name in given if name != "date_utc"), "currency_symbol", "currency_position"]
    got = json.loads(_ok(cli_process("event", "get", str(gig), "--format=json", f"--fields={','.join(fields)}")))
    assert got == {
        "author": boss, "date": "2026-01-02 03:04:05", "title": "Gig", "description": "<p>Loud music</p>",
        "slug": "the-gig", "excerpt": "<p>Short</p>", "status": "publish", "timezone": "Europe/Paris", "all_day": False,
        "start_date": "2031-03-01 20:00:00", "end_date": "2031-03-01 23:00:00", "image": image, "cost": "€20",
        "website": "https://gig.example", "show_map": False, "show_map_link": False, "hide_from_listings": True,
        "sticky": True, "featured": True, "categories": ["musci"], "tags": ["live", "loud"], "venue": hall,
        "organizer": [organizer], "currency_symbol": "€", "currency_position": "prefix",
    }

    # Update: booleans back, lists replaced, the venue unset; names already there are no news.
    done = cli_process("event", "update", str(gig), "--show_map", "--sticky=false", "--tags=loud", "--venue=",
                       "--organizer", str(organizer), "--categories=musci", "--cost=5", "--currency_symbol=$",
                       "--currency_position=postfix")
    assert _ok(done) == f"Success: Updated event {gig}.\n" and "Created" not in done.stderr
    got = json.loads(_ok(cli_process("event", "list", "--format=json", "--fields=id,Show_Map,STICKY,tags,venue,cost")))
    assert got == [{"ID": gig, "show_map": True, "sticky": False, "tags": ["loud"], "venue": None, "cost": "5$"}]

    # Refusals, each with the subcommand's words; nothing stored.
    usage = cli_process("event", "update", str(gig), "--nonsense=1")  # argparse's usage error: exit 2
    assert (usage.returncode, usage.stdout) == (2, "") and usage.stderr.startswith("usage: calpress event update ")
    assert usage.stderr.endswith("calpress event update: error: unrecognized arguments: --nonsense=1\n")
    assert _refused(cli_process("event", "update", str(gig), "--end_date=2031-02-01 10:00")) == (
        "Error: The event's end (2031-02-01 10:00:00) is before its start (2031-03-01 20:00:00).\n")
    bad_date = _refused(cli_process("event", "create", "--title=X", "--start_date=someday", "--end_date=tomorrow"))
    assert bad_date.startswith("Error: --start_date: 'someday' is not a date. Give YYYY-MM-DD HH:MM:SS, ")
    assert "a Unix timestamp" in bad_date and "strtotime" in bad_date
    assert json.loads(_ok(cli_process("event", "list", "--format=json", "--fields=id,end_date"))) == [
        {"ID": gig, "end_date": "2031-03-01 23:00:00"}]


def test_venue_and_organizer_commands_take_every_field_of_their_routes(cli_process, cli_admin, tmp_path, db_url):
    image = new_id_in_process(cli_admin("media", "import", str(_png(tmp_path / "hall.png")), "--porcelain"))
    venue = {"author": "1", "date": "2026-01-02 03:04:05", "date_utc": "2026-01-02 03:04:05", "description": "Big",
             "status": "draft", "show_map": "false", "show_map_link": "false", "address": "1 rue", "city": "Paris",
             "country": "France", "province": "IDF", "state": "", "zip": "75001", "phone": "123",
             "stateprovince": "IDF", "website": "https://hall.example", "image": str(image)}
    assert set(venue) | {"venue"} == set(linked_write_args("cal_venue", creating=True))
    hall = int(_ok(cli_process("venue", "create", "Hall", *(f"--{k}={v}" for k, v in venue.items()), "--porcelain")))
    organizer = {"author": "1", "date": "2026-01-02 03:04:05", "date_utc": "2026-01-02 03:04:05", "description": "Org",
                 "status": "publish", "phone": "456", "website": "https://org.example", "email": "o@example.test",
                 "image": str(image)}
    assert set(organizer) | {"organizer"} == set(linked_write_args("cal_organizer", creating=True))
    org = int(_ok(cli_process("organizer", "create", "Org", *(f"--{k}={v}" for k, v in organizer.items()), "--porcelain")))
    # The flags are stored on every save, true unless given false (as the reference): given again.
    assert _ok(cli_process("venue", "update", str(hall), "--venue=Great hall", "--status=publish", "--show_map=false",
                           "--show_map_link=0")) == f"Success: Updated venue {hall}.\n"

    got = _rest_get(tmp_path, db_url, f"/cal/events/v1/venues/{hall}")
    assert (got["venue"], got["status"], got["date"], got["author"], got["image"]["id"]) == (
        "Great hall", "publish", "2026-01-02 03:04:05", "1", image)
    assert {k: got[k] for k in ("address", "city", "country", "province", "zip", "phone", "website", "show_map",
                                "show_map_link")} == {
        "address": "1 rue", "city": "Paris", "country": "France", "province": "IDF", "zip": "75001", "phone": "123",
        "website": "https://hall.example", "show_map": False, "show_map_link": False}
    got = json.loads(_ok(cli_process("organizer", "get", str(org), "--format=json",
                                     "--fields=organizer,description,status,phone,website,email,author,date,image")))
    assert got == {"organizer": "Org", "description": "<p>Org</p>", "status": "publish", "phone": "456",
                   "website": "https://org.example", "email": "o@example.test", "author": 1,
                   "date": "2026-01-02 03:04:05", "image": image}


def test_post_create_takes_every_argument_of_the_type_route(cli_process, cli_admin, tmp_path, db_url):
    image = new_id_in_process(cli_admin("media", "import", str(_png(tmp_path / "cover.png")), "--porcelain"))
    category = new_id_in_process(cli_admin("term", "create", "category", "News", "--porcelain"))
    tag = new_id_in_process(cli_admin("term", "create", "post_tag", "Hot", "--porcelain"))
    app = open_app(argparse.Namespace(data_dir=str(tmp_path / "data"), database_url=db_url))
    try:
        route_args = set(app.api.registry.match("/cms/v2/posts")[0].endpoint_for("POST").args)
    finally:
        app.site.close()
    # WP-CLI's names for the ones it has, the route's for the others; template: no template is
    # registered, so the route refuses every value; password: a sticky post cannot have one (below).
    wp_cli = {"post_title": "Full", "post_content": "Body", "post_excerpt": "Ex", "post_status": "publish",
              "post_name": "full-post", "post_author": "boss", "post_date": "2026-01-02 03:04:05",
              "post_date_gmt": "2026-01-02 03:04:05", "comment_status": "closed", "ping_status": "closed"}
    route = {"featured_media": str(image), "sticky": "true", "format": "aside", "categories": str(category),
             "tags": str(tag), "meta": "{}"}
    named = {"title", "content", "excerpt", "status", "slug", "author", "date", "date_gmt", "comment_status", "ping_status"}
    assert named | set(route) | {"template", "password"} == route_args
    post = int(_ok(cli_process("post", "create", *(f"--{k}={v}" for k, v in {**wp_cli, **route}.items()), "--porcelain")))
    refusal = _refused(cli_process("post", "create", "--post_title=X", "--bogus=1"))
    assert refusal.startswith("Error: Unknown option --bogus: the route /cms/v2/posts takes --date, ") and "--sticky" in refusal
    # Terms too: every argument of the taxonomy's route (meta besides WP-CLI's name, slug, description, parent).
    refusal = _refused(cli_process("term", "create", "category", "Extra", "--colour=red"))
    assert refusal == ("Error: Unknown option --colour: the route /cms/v2/categories takes --description, --name, --slug, "
                       "--parent, --meta.\n")
    got = _rest_get(tmp_path, db_url, f"/cms/v2/posts/{post}")
    assert (got["title"]["raw"], got["content"]["raw"], got["excerpt"]["raw"], got["status"], got["slug"], got["author"]) == (
        "Full", "Body", "Ex", "publish", "full-post", 1)
    assert (got["date"], got["date_gmt"], got["comment_status"], got["ping_status"]) == (
        "2026-01-02T03:04:05", "2026-01-02T03:04:05", "closed", "closed")
    assert (got["featured_media"], got["sticky"], got["format"], got["categories"], got["tags"]) == (
        image, True, "aside", [category], [tag])
    # The route refuses a password on a post that is sticky still: one update, then the other.
    assert _ok(cli_process("post", "update", str(post), "--sticky=false")) == f"Success: Updated post {post}.\n"
    assert _ok(cli_process("post", "update", str(post), "--post_password=secret")) == f"Success: Updated post {post}.\n"
    got = _rest_get(tmp_path, db_url, f"/cms/v2/posts/{post}")
    assert (got["sticky"], got["password"]) == (False, "secret")


def test_media_import_takes_wp_clis_fields_and_what_the_media_route_accepts(cli_process, cli_admin, tmp_path, db_url):
    post = new_id_in_process(cli_admin("post", "create", "--post_title=Host", "--porcelain"))
    (tmp_path / "guide.pdf").write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
    pdf = int(_ok(cli_process("media", "import", str(tmp_path / "guide.pdf"), f"--post_id={post}", "--porcelain")))
    got = _rest_get(tmp_path, db_url, f"/cms/v2/media/{pdf}")
    assert (got["mime_type"], got["post"], got["title"]["raw"]) == ("application/pdf", post, "guide")
    cover = int(_ok(cli_process("media", "import", str(_png(tmp_path / "cover.png")), f"--post_id={post}", "--title=Cover",
                                "--alt=Alt text", "--caption=A caption", "--desc=A description", "--featured_image",
                                "--porcelain")))
    got = _rest_get(tmp_path, db_url, f"/cms/v2/media/{cover}")
    assert (got["mime_type"], got["post"], got["title"]["raw"], got["alt_text"], got["caption"]["raw"],
            got["description"]["raw"]) == ("image/png", post, "Cover", "Alt text", "A caption", "A description")
    assert _rest_get(tmp_path, db_url, f"/cms/v2/posts/{post}")["featured_media"] == cover
    assert _refused(cli_process("media", "import", str(tmp_path / "cover.png"), "--featured_image")) == (
        "Error: --featured_image needs --post_id: the post whose featured image it becomes.\n")

    # Every other argument of the media route, by its own name (template: none is registered, so
    # the route refuses every value); then changed on the attachment with post update.
    app = open_app(argparse.Namespace(data_dir=str(tmp_path / "data"), database_url=db_url))
    try:
        route_args = set(app.api.registry.match("/cms/v2/media")[0].endpoint_for("POST").args)
    finally:
        app.site.close()
    wp_cli = {"post_id": "post", "title": "title", "alt": "alt_text", "caption": "caption", "desc": "description"}
    route = {"date": "2026-01-02 03:04:05", "date_gmt": "2026-01-02 03:04:05", "slug": "the-poster", "status": "private",
             "author": "1", "comment_status": "closed", "ping_status": "closed", "meta": "{}"}
    # featured_media: the route takes it for audio and video only, and says so for an image.
    assert set(wp_cli.values()) | set(route) | {"template", "featured_media"} == route_args
    assert _refused(cli_process("media", "import", str(tmp_path / "cover.png"), f"--featured_media={cover}")).endswith(
        "Reason: This site does not support post thumbnails on attachments with MIME type image/png.\nError: No items imported.\n")
    poster = int(_ok(cli_process("media", "import", str(_png(tmp_path / "poster.png")),
                                 *(f"--{name}={value}" for name, value in route.items()), "--porcelain")))
    got = _rest_get(tmp_path, db_url, f"/cms/v2/media/{poster}")
    assert (got["date"], got["date_gmt"], got["slug"], got["status"], got["author"], got["comment_status"],
            got["ping_status"]) == ("2026-01-02T03:04:05", "2026-01-02T03:04:05", "the-poster", "private", 1, "closed", "closed")
    assert _ok(cli_process("post", "update", str(poster), "--alt_text=Changed", "--slug=poster-2")) == (
        f"Success: Updated post {poster}.\n")
    got = _rest_get(tmp_path, db_url, f"/cms/v2/media/{poster}")
    assert (got["alt_text"], got["slug"]) == ("Changed", "poster-2")
    refusal = _refused(cli_process("media", "import", str(tmp_path / "poster.png"), "--colour=red"))
    assert refusal.startswith("Error: Unknown option --colour: the route /cms/v2/media takes --date, ") and "--alt_text" in refusal


def test_a_progress_bar_counts_its_rate_from_the_start_of_the_work(capsys):
    update, finish = progress_bar("importing", quiet=False)
    time.sleep(0.2)
    update(1000, 2000)  # the first callback comes late, with much done already
    finish()
    rate = int(re.search(r"([\d,]+)/s", capsys.readouterr().err).group(1).replace(",", ""))
    assert 0 < rate <= 5000  # 1000 in at least 0.2 s; from the first callback it was millions
