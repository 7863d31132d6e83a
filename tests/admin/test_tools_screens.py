"""Tools > Import and Tools > Export (admin/tools.py, admin/import_jobs.py, admin/export_stream.py)
through the app in process, on both databases: a WXR file and an .ics file uploaded and imported
in the background, their progress and the command line's summary on ``import.php?job=N``, what
they brought read back through the REST API; a feed imported once, scheduled, listed, run now and
deleted (served from a loopback server); exports of all content and of one type that the command
line imports into a fresh site with nothing lost; who may open what, nonces, junk, and a large
upload that is streamed to disk instead of held in memory."""

from __future__ import annotations

import datetime as dt
import io
import re
import time
import tracemalloc
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html import unescape
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from admin_support import Browser, fields_of, location, query_of
from appfixtures import RestClient, allowed, allowed_ports, loopback_server

from calpress.admin import export_stream, import_jobs, tools
from calpress.app import Calpress
from calpress.cli import main as cli_main
from calpress.config import load_settings
from calpress.store import db as store_db
from calpress.store import import_jobs as job_store
from calpress.store.tables import comments, event_links, events, posts

BOUNDARY = "ToolsBoundary7"
EVENTS = "/cal/events/v1/events"
IMPORTS = "/cal/event-aggregator/v1/imports"


# -- files to import --------------------------------------------------------------------------------


def _meta(key: str, value: str) -> str:
    return f"<wp:postmeta><wp:meta_key><![CDATA[{key}]]></wp:meta_key><wp:meta_value><![CDATA[{value}]]></wp:meta_value></wp:postmeta>"


def _item(post_id: int, post_type: str, title: str, slug: str, body: str = "", extra: str = "") -> str:
    return f"""
	<item>
		<title><![CDATA[{title}]]></title>
		<dc:creator><![CDATA[oldadmin]]></dc:creator>
		<guid isPermaLink="false">http://old.example.org/?p={post_id}</guid>
		<content:encoded><![CDATA[{body}]]></content:encoded>
		<excerpt:encoded><![CDATA[]]></excerpt:encoded>
		<wp:post_id>{post_id}</wp:post_id>
		<wp:post_date><![CDATA[2026-02-01 10:00:00]]></wp:post_date>
		<wp:post_date_gmt><![CDATA[2026-02-01 10:00:00]]></wp:post_date_gmt>
		<wp:comment_status><![CDATA[open]]></wp:comment_status>
		<wp:post_name><![CDATA[{slug}]]></wp:post_name>
		<wp:status><![CDATA[publish]]></wp:status>
		<wp:post_parent>0</wp:post_parent>
		<wp:menu_order>0</wp:menu_order>
		<wp:post_type><![CDATA[{post_type}]]></wp:post_type>
		{extra}
	</item>"""


def wxr(padding: int = 0) -> bytes:
    """A small WordPress + The Events Calendar export: an author, a category, a post with a
    comment, a page, a venue and an event at it (``padding``: bytes of an XML comment added, to
    make a large file)."""
    comment = ("<wp:comment><wp:comment_id>7</wp:comment_id><wp:comment_author><![CDATA[Ann]]></wp:comment_author>"
               "<wp:comment_author_email><![CDATA[ann@example.test]]></wp:comment_author_email>"
               "<wp:comment_date><![CDATA[2026-02-02 10:00:00]]></wp:comment_date>"
               "<wp:comment_date_gmt><![CDATA[2026-02-02 10:00:00]]></wp:comment_date_gmt>"
               "<wp:comment_content><![CDATA[Lovely news.]]></wp:comment_content>"
               "<wp:comment_approved><![CDATA[1]]></wp:comment_approved><wp:comment_parent>0</wp:comment_parent>"
               "</wp:comment>")
    items = [
        _item(10, "post", "Spring news", "spring-news", "The season starts.",
              '<category domain="category" nicename="news"><![CDATA[News]]></category>' + comment),
        _item(11, "page", "About the club", "about-the-club", "We play jazz."),
        _item(12, "tribe_venue", "Blue Note Hall", "blue-note-hall", "", _meta("_VenueCity", "Springfield")),
        _item(13, "tribe_events", "Opening night", "opening-night", "Doors at seven.",
              _meta("_EventStartDate", "2027-04-08 19:00:00") + _meta("_EventEndDate", "2027-04-08 22:00:00")
              + _meta("_EventTimezone", "Europe/Berlin") + _meta("_EventVenueID", "12")),
    ]
    filler = f"<!-- {'x' * padding} -->\n" if padding else ""
    return f"""<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/"
	xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
	<title>Old Jazz Club</title>
	<link>http://old.example.org</link>
	<wp:wxr_version>1.2</wp:wxr_version>
	<wp:base_site_url>http://old.example.org</wp:base_site_url>
	<wp:base_blog_url>http://old.example.org</wp:base_blog_url>
	<wp:author><wp:author_id>1</wp:author_id><wp:author_login><![CDATA[oldadmin]]></wp:author_login><wp:author_email><![CDATA[oldadmin@old.example.org]]></wp:author_email><wp:author_display_name><![CDATA[Old Admin]]></wp:author_display_name></wp:author>
	<wp:category><wp:term_id>3</wp:term_id><wp:category_nicename><![CDATA[news]]></wp:category_nicename><wp:category_parent><![CDATA[]]></wp:category_parent><wp:cat_name><![CDATA[News]]></wp:cat_name></wp:category>
{filler}{"".join(items)}
</channel>
</rss>
""".encode()


def ics(*events: tuple[str, str, dt.date]) -> bytes:
    """An iCalendar file of (uid, summary, day) events, 18:00-20:00 in Paris."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpress tests//tools//EN"]
    for uid, summary, day in events:
        lines += ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20260101T000000Z", f"SUMMARY:{summary}",
                  f"DTSTART;TZID=Europe/Paris:{day:%Y%m%d}T180000", f"DTEND;TZID=Europe/Paris:{day:%Y%m%d}T200000",
                  "END:VEVENT"]
    return "\r\n".join([*lines, "END:VCALENDAR", ""]).encode()


SOON = dt.date.today() + dt.timedelta(days=20)
CALENDAR = ics(("one@tools.test", "Choir practice", SOON), ("two@tools.test", "Open rehearsal", SOON + dt.timedelta(days=7)))


# -- a feed on loopback -----------------------------------------------------------------------------


class _Feed(BaseHTTPRequestHandler):
    body = CALENDAR
    hits = 0

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/calendar")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def feed_server() -> Iterator[str]:
    with loopback_server(_Feed) as address:
        yield address


@pytest.fixture()
def outbound_allow(feed_server: str) -> str:
    return allowed(feed_server)


@pytest.fixture()
def outbound_ports(feed_server: str) -> str:
    return allowed_ports(feed_server)


# -- helpers ----------------------------------------------------------------------------------------


def multipart(fields: dict[str, Any], name: str, data: bytes, kind: str = "application/octet-stream") -> bytes:
    body = b""
    for key, value in fields.items():
        body += f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
    body += (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="import"; filename="{name}"\r\n'
             f"Content-Type: {kind}\r\n\r\n").encode() + data + b"\r\n"
    return body + f"--{BOUNDARY}--\r\n".encode()


def upload(browser: Browser, form_id: str, name: str, data: bytes, **changes: Any):
    """One of import.php's upload forms, sent as the browser sends it."""
    fields = browser.form("/wp-admin/import.php", form_id)
    fields.update(changes)
    return browser.http.simulate_post("/wp-admin/import.php", body=multipart(fields, name, data), headers={
        **browser.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})


def job_of(answer: Any) -> int:
    where = location(answer)
    assert where.startswith("/wp-admin/import.php?job="), where
    return int(query_of(where)["job"])


def finished(browser: Browser, job_id: int, timeout: float = 60) -> dict[str, Any]:
    """The job's status once it has ended (polled as the page's script polls it)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = browser.get("/wp-admin/import.php", params={"job": job_id, "format": "json"})
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("application/json")
        status = answer.json
        if status["finished"]:
            return status
        assert time.monotonic() < deadline, status
        time.sleep(0.05)


def summary_of(browser: Browser, job_id: int) -> tuple[str, list[str]]:
    """The job page's notice and its summary lines."""
    page = browser.get("/wp-admin/import.php", params={"job": job_id})
    assert page.status_code == 200, page.text[:500]
    notice = re.search(r'<div class="notice notice-(\w+)"[^>]*>\s*<p>(.*?)</p>', page.text, re.S)
    lines = [unescape(line) for line in re.findall(r'<li class="import-line [^"]+">(.*?)</li>', page.text, re.S)]
    return (f"{notice.group(1)}: {unescape(notice.group(2)).strip()}" if notice else ""), lines


def listed_events(client: Any, admin: Any) -> dict[str, dict[str, Any]]:
    found = client.get(EVENTS, user=admin, params={"start_date": "2020-01-01", "end_date": "2030-12-31",
                                                   "per_page": 50, "status": "publish,draft"}).json["events"]
    return {event["title"]: event for event in found}


def jobs_count(app: Calpress) -> int:
    with app.site.read() as conn:
        return len(job_store.recent_jobs(conn, limit=1000))


# -- who may open what ------------------------------------------------------------------------------


def test_only_administrators_open_the_tools_screens_and_see_them_in_the_menu(as_role):
    admin = as_role("administrator")
    page = admin.get("/wp-admin/import.php")
    assert page.status_code == 200
    assert 'href="/wp-admin/import.php"' in page.text and 'href="/wp-admin/export.php"' in page.text
    assert re.search(r'<li class="menu-top current">\s*<a href="/wp-admin/import.php">Tools</a>', page.text)
    assert admin.get("/wp-admin/export.php").status_code == 200
    for role in ("editor", "author", "contributor", "subscriber"):
        browser = as_role(role)
        assert "/wp-admin/import.php" not in browser.get("/wp-admin/").text
        for path, message in (("/wp-admin/import.php", "Sorry, you are not allowed to import content into this site."),
                              ("/wp-admin/import.php?job=1", "Sorry, you are not allowed to import content into this site."),
                              ("/wp-admin/export.php", "Sorry, you are not allowed to export the content of this site."),
                              ("/wp-admin/export.php?download=true", "Sorry, you are not allowed to export the content of this site.")):
            answer = browser.get(path)
            assert answer.status_code == 403 and message in answer.text, (role, path)
        refused = browser.http.simulate_post("/wp-admin/import.php", body=multipart({"action": "wxr"}, "a.xml", wxr()),
                                             headers={**browser.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
        assert refused.status_code == 403


def test_a_visitor_is_sent_to_log_in(client):
    answer = client.http.simulate_get("/wp-admin/import.php", params={"job": 3})
    assert answer.status_code == 302 and answer.headers["location"].startswith("/wp-login.php?redirect_to=")


# -- importing files --------------------------------------------------------------------------------


def test_a_wxr_file_is_imported_in_the_background_and_the_summary_shown(app, as_role, client, admin):
    browser = as_role("administrator")
    job_id = job_of(upload(browser, "import-wxr", "club.WordPress.2026-03-01.xml", wxr(), fetch_attachments=""))
    status = finished(browser, job_id)
    assert status["state"] == "success" and status["percent"] == 100
    notice, lines = summary_of(browser, job_id)
    assert notice == "success: Success: Imported club.WordPress.2026-03-01.xml."
    assert lines == ["user: 1 created, 0 skipped, 0 failed", "term: 1 created, 0 skipped, 0 failed",
                     "post: 1 created, 0 skipped, 0 failed", "page: 1 created, 0 skipped, 0 failed",
                     "cal_venue: 1 created, 0 skipped, 0 failed", "cal_events: 1 created, 0 skipped, 0 failed",
                     "comment: 1 created, 0 skipped, 0 failed"]
    post = client.get("/cms/v2/posts", user=admin, params={"slug": "spring-news"}).json[0]
    assert post["title"]["rendered"] == "Spring news" and post["status"] == "publish"
    assert client.get("/cms/v2/comments", user=admin, params={"post": post["id"]}).json[0]["author_name"] == "Ann"
    assert client.get("/cms/v2/pages", user=admin, params={"slug": "about-the-club"}).json[0]["id"]
    event = listed_events(client, admin)["Opening night"]
    assert event["start_date"] == "2027-04-08 19:00:00" and event["venue"]["venue"] == "Blue Note Hall"
    # The same file again: everything is there already (the command line's re-run).
    again = job_of(upload(browser, "import-wxr", "club.xml", wxr()))
    assert finished(browser, again)["state"] == "success"
    assert "post: 0 created, 1 skipped, 0 failed" in summary_of(browser, again)[1]
    # The latest imports are listed on import.php, newest first, linked to their pages.
    page = browser.get("/wp-admin/import.php").text
    assert page.index(f"/wp-admin/import.php?job={again}") < page.index(f"/wp-admin/import.php?job={job_id}")
    assert "WordPress export file: <span class=\"import-source\">club.xml</span>" in page


def test_a_broken_wxr_file_ends_with_the_command_lines_error(as_role):
    browser = as_role("administrator")
    job_id = job_of(upload(browser, "import-wxr", "broken.xml", wxr()[:900]))
    assert finished(browser, job_id)["state"] == "failed"
    notice, _ = summary_of(browser, job_id)
    assert notice.startswith("error: Error: ") and "the rest was not" in notice


def test_an_ics_file_is_imported_and_the_summary_shown(as_role, client, admin):
    browser = as_role("administrator")
    job_id = job_of(upload(browser, "import-ics", "choir.ics", CALENDAR, post_status="draft"))
    assert finished(browser, job_id)["state"] == "success"
    notice, lines = summary_of(browser, job_id)
    assert re.fullmatch(r"success: Success: Imported choir\.ics \(record \d+\): 2 created, 0 updated, 0 skipped\.", notice)
    assert lines == []
    events = listed_events(client, admin)
    assert events["Choir practice"]["status"] == "draft" and events["Choir practice"]["timezone"] == "Europe/Paris"
    assert events["Open rehearsal"]["start_date"] == f"{SOON + dt.timedelta(days=7)} 18:00:00"
    # A newer copy of the file updates what the first brought.
    newer = CALENDAR.replace(b"Choir practice", b"Choir practice (moved)")
    again = job_of(upload(browser, "import-ics", "choir.ics", newer, post_status="draft"))
    assert finished(browser, again)["state"] == "success"
    assert "1 updated, 1 skipped" in summary_of(browser, again)[0]
    assert sorted(listed_events(client, admin)) == ["Choir practice (moved)", "Open rehearsal"]


def test_an_unreadable_ics_file_fails_with_the_reason(as_role):
    browser = as_role("administrator")
    job_id = job_of(upload(browser, "import-ics", "page.ics", b"<html>not a calendar</html>"))
    assert finished(browser, job_id)["state"] == "failed"
    notice, _ = summary_of(browser, job_id)
    assert notice.startswith("error: Error: Import ") and "The feed could not be read" in notice


def test_a_form_without_a_file_is_shown_again_with_the_reason(app, as_role):
    browser = as_role("administrator")
    for form_id in ("import-wxr", "import-ics"):
        answer = upload(browser, form_id, "", b"")
        assert answer.status_code == 400
        assert 'aria-invalid="true"' in answer.text and "an empty file has nothing to import" in answer.text
        empty = upload(browser, form_id, "empty.xml", b"")
        assert empty.status_code == 400
    assert jobs_count(app) == 0


# -- feeds and schedules ----------------------------------------------------------------------------


def test_a_feed_is_imported_once(as_role, client, admin, feed_server):
    browser = as_role("administrator")
    fields = browser.form("/wp-admin/import.php", "import-feed")
    answer = browser.post("/wp-admin/import.php", {**fields, "source": feed_server + "/club.ics", "frequency": "once"})
    job_id = job_of(answer)
    assert finished(browser, job_id)["state"] == "success"
    notice, _ = summary_of(browser, job_id)
    assert notice.startswith(f"success: Success: Imported {feed_server}/club.ics (record ") and "2 created" in notice
    assert sorted(listed_events(client, admin)) == ["Choir practice", "Open rehearsal"]
    assert client.get(IMPORTS, user=admin, params={"status": "schedule"}).json == []  # nothing scheduled
    # An address that is not one, and one the site may not fetch.
    bad = browser.post("/wp-admin/import.php", {**fields, "source": "ftp://example.test/x.ics"})
    assert bad.status_code == 400 and "http://, https:// or webcal://" in bad.text
    private = job_of(browser.post("/wp-admin/import.php", {**fields, "source": "webcal://10.0.0.1/x.ics"}))
    assert finished(browser, private)["state"] == "failed"
    assert "10.0.0.1" in summary_of(browser, private)[0]


def test_a_feed_is_scheduled_listed_run_now_and_deleted(app, as_role, client, admin, feed_server):
    browser = as_role("administrator")
    _Feed.hits = 0
    fields = browser.form("/wp-admin/import.php", "import-feed")
    first = job_of(browser.post("/wp-admin/import.php", {**fields, "source": feed_server + "/team.ics",
                                                         "frequency": "daily", "post_status": "publish"}))
    assert finished(browser, first)["state"] == "success" and _Feed.hits == 1  # the first run starts at once
    schedules = client.get(IMPORTS, user=admin, params={"status": "schedule"}).json
    assert len(schedules) == 1 and schedules[0]["frequency"] == 86400 and schedules[0]["last_run"]
    schedule_id = schedules[0]["id"]
    page = browser.get("/wp-admin/import.php").text
    row = re.search(rf'<tr id="schedule-{schedule_id}">(.*?)</tr>', page, re.S).group(1)
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    assert cells[0] == feed_server + "/team.ics" and cells[1] == "Every day"
    last = dt.datetime.strptime(cells[2], "%Y-%m-%d %H:%M")
    assert dt.datetime.strptime(cells[3], "%Y-%m-%d %H:%M") - last == dt.timedelta(days=1)
    assert cells[4] == "Done: 2 created, 0 updated, 0 skipped"
    # Run now: the feed is read again, nothing changed.
    run_form = fields_of(row)
    assert run_form["action"] == "delete-schedule"  # the row's last form; the first is Run now
    run_now = dict(re.findall(r'name="(\w+)" value="([^"]*)"', row.split("</form>")[0]))
    second = job_of(browser.post("/wp-admin/import.php", run_now))
    assert finished(browser, second)["state"] == "success" and _Feed.hits == 2
    assert "0 created, 0 updated, 2 skipped" in summary_of(browser, second)[0]
    page = browser.get("/wp-admin/import.php").text
    assert "Done: 0 created, 0 updated, 2 skipped" in page
    # Run now while a run of the feed has not ended: that run is shown instead of a second one.
    with app.site.write() as conn:
        busy = job_store.create_job(conn, kind="schedule", source=feed_server + "/team.ics", user_id=admin.id,
                                    state="running")
    assert job_of(browser.post("/wp-admin/import.php", run_now)) == busy.id and _Feed.hits == 2
    with app.site.write() as conn:
        job_store.update_job(conn, busy.id, state="success")
    # Deleted: gone from the list; its events stay.
    deleted = browser.post("/wp-admin/import.php", run_form)
    assert location(deleted) == "/wp-admin/import.php?deleted=1"
    page = browser.get(location(deleted)).text
    assert "Scheduled import deleted." in page and "No feed is scheduled." in page
    assert client.get(IMPORTS, user=admin, params={"status": "schedule"}).json == []
    assert len(listed_events(client, admin)) == 2
    # Run now or delete a schedule that is gone: 404.
    assert browser.post("/wp-admin/import.php", run_now).status_code == 404


# -- refusals and junk ------------------------------------------------------------------------------


def test_a_bad_nonce_is_refused_and_nothing_starts(app, as_role, client, admin):
    browser = as_role("administrator")
    schedule = client.post(IMPORTS, user=admin, json={"source": "https://feeds.example.test/a.ics", "frequency": 3600}).json
    for form_id in ("import-wxr", "import-ics"):
        answer = upload(browser, form_id, "x.xml", wxr(), _wpnonce="0123456789")
        assert answer.status_code == 403 and "The link you followed has expired." in answer.text
    fields = browser.form("/wp-admin/import.php", "import-feed")
    assert browser.post("/wp-admin/import.php", {**fields, "source": "https://feeds.example.test/b.ics",
                                                 "_wpnonce": "bad"}).status_code == 403
    for action in ("run-schedule", "delete-schedule"):
        answer = browser.post("/wp-admin/import.php", {"action": action, "schedule": schedule["id"], "_wpnonce": "bad"})
        assert answer.status_code == 403 and "The link you followed has expired." in answer.text
    # Another schedule's nonce does not do for this one.
    page = browser.get("/wp-admin/import.php").text
    nonce = re.search(r'name="_wpnonce" value="([^"]+)">\s*<input type="hidden" name="action" value="delete-schedule">', page).group(1)
    other = client.post(IMPORTS, user=admin, json={"source": "https://feeds.example.test/c.ics", "frequency": 3600}).json
    assert browser.post("/wp-admin/import.php", {"action": "delete-schedule", "schedule": other["id"],
                                                 "_wpnonce": nonce}).status_code == 403
    assert jobs_count(app) == 0
    assert len(client.get(IMPORTS, user=admin, params={"status": "schedule"}).json) == 2


JUNK = ["", "-1", "abc", "99999999999999999999", "<script>x</script>", "../../etc/passwd"]


def test_junk_in_every_parameter_and_field_never_fails(app, as_role):
    browser = as_role("administrator")
    for path in ("/wp-admin/import.php", "/wp-admin/export.php"):
        for name in ("job", "format", "download", "content", "deleted", "action", "schedule"):
            for value in JUNK:
                answer = browser.get(path, params={name: value, **({"job": "1"} if name == "format" else {})})
                assert answer.status_code < 500, (path, name, value, answer.text[:300])
    assert browser.get("/wp-admin/import.php", params={"job": "99999999999999999999", "format": "json"}).status_code < 500
    missing = browser.get("/wp-admin/import.php", params={"job": 424242, "format": "json"})
    assert missing.status_code == 404 and missing.json["code"] == "import_not_found"
    assert browser.get("/wp-admin/import.php", params={"job": 424242}).status_code == 404
    page = browser.get("/wp-admin/import.php").text
    sent = 0
    for form_id in ("import-wxr", "import-ics", "import-feed"):
        fields = fields_of(page, form_id)
        for name in [n for n in fields if n != "_wpnonce"]:
            for value in JUNK:
                answer = browser.post("/wp-admin/import.php", {**fields, name: value})
                sent += 1
                assert answer.status_code < 500, (form_id, name, value, answer.text[:300])
                if answer.status_code in (302, 303):  # a feed import that started: let it end
                    finished(browser, job_of(answer))
    for value in JUNK:
        answer = browser.post("/wp-admin/import.php", {"action": value, "schedule": value, "_wpnonce": value})
        assert answer.status_code < 500
    # A body that is not the multipart it says it is.
    broken = browser.http.simulate_post("/wp-admin/import.php", body=b"--nope\r\n\r\n", headers={
        **browser.cookie, "Content-Type": "multipart/form-data; boundary=nope"})
    assert broken.status_code < 500
    assert sent > 40


def test_a_job_whose_process_ended_is_shown_stopped(app, as_role, admin):
    browser = as_role("administrator")
    long_ago = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(hours=2)
    with app.site.write() as conn:
        job = job_store.create_job(conn, kind="wxr", source="old.xml", user_id=admin.id, state="running", total=100,
                                   now=long_ago)
    status = finished(browser, job.id)
    assert status["state"] == "stopped"
    page = browser.get("/wp-admin/import.php", params={"job": job.id}).text
    assert "The import stopped before it ended" in page


# -- a large upload ---------------------------------------------------------------------------------


def test_a_large_upload_is_streamed_to_disk_not_held_in_memory(app, as_role, client, admin, monkeypatch):
    browser = as_role("administrator")
    data = wxr(padding=12 * 1024 * 1024)
    body = multipart({**browser.form("/wp-admin/import.php", "import-wxr"), "fetch_attachments": ""}, "big.xml", data)
    del data
    taken: list[Any] = []
    start = import_jobs.start_wxr

    def held(site: Any, user_id: int, upload: Any, **kwargs: Any) -> Any:
        taken.append((upload.size, upload.file._rolled))  # the parser's spooled file went to disk
        return start(site, user_id, upload, **kwargs)

    monkeypatch.setattr(import_jobs, "start_wxr", held)
    tracemalloc.start()
    try:
        answer = browser.http.simulate_post("/wp-admin/import.php", body=body, headers={
            **browser.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    job_id = job_of(answer)
    assert taken == [(len(wxr(padding=12 * 1024 * 1024)), True)]
    # The 12 MB body was read a slice at a time: the request (and the import it started) never
    # held more than a few MB.
    assert peak < 6 * 1024 * 1024, peak
    assert finished(browser, job_id)["state"] == "success"
    assert "post: 1 created, 0 skipped, 0 failed" in summary_of(browser, job_id)[1]


def test_an_upload_over_the_limit_is_refused_unread_with_the_reason(app, as_role, monkeypatch):
    import dataclasses

    browser = as_role("administrator")
    body = multipart(browser.form("/wp-admin/import.php", "import-wxr"), "big.xml", wxr(padding=5000))
    monkeypatch.setattr(app, "settings", dataclasses.replace(app.settings, max_upload=4096))
    answer = browser.http.simulate_post("/wp-admin/import.php", body=body, headers={
        **browser.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert answer.status_code == 413 and "The file is larger than this site takes (4 KB at most)." in answer.text
    assert jobs_count(app) == 0


# -- export -----------------------------------------------------------------------------------------


def _content(client: Any, admin: Any) -> None:
    """A post (category, tag, comment), a page, and an event with its venue, organizer and category."""
    category = client.post("/cms/v2/categories", user=admin, json={"name": "Concerts"}).json["id"]
    tag = client.post("/cms/v2/tags", user=admin, json={"name": "jazz"}).json["id"]
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Season opens", "content": "<p>Hello</p>",
                                                          "status": "publish", "categories": [category], "tags": [tag]}).json
    client.post("/cms/v2/comments", user=admin, json={"post": post["id"], "content": "See you there"})
    client.post("/cms/v2/pages", user=admin, json={"title": "Visit us", "content": "Main street", "status": "publish"})
    venue = client.post("/cal/events/v1/venues", user=admin, json={"venue": "Town Hall", "city": "Lyon", "status": "publish"}).json["id"]
    organizer = client.post("/cal/events/v1/organizers", user=admin, json={"organizer": "Jazz Friends", "status": "publish"}).json["id"]
    event_category = client.post("/cms/v2/cal_events_cat", user=admin, json={"name": "Live"}).json["id"]
    answer = client.post(EVENTS, user=admin, json={"title": "Big band night", "start_date": "2027-05-01 20:00:00",
                                                   "end_date": "2027-05-01 23:00:00", "venue": venue, "organizer": [organizer],
                                                   "categories": [event_category], "status": "publish"})
    assert answer.status_code == 201, answer.text


def _download(browser: Browser, content: str) -> Any:
    answer = browser.get("/wp-admin/export.php", params={"download": "true", "content": content})
    assert answer.status_code == 200, answer.text[:500]
    assert answer.headers["content-type"] == "text/xml; charset=UTF-8"
    today = dt.datetime.now(dt.UTC).date().isoformat()
    assert re.fullmatch(rf'attachment; filename="?[a-z0-9_-]*\.?WordPress\.{today}\.xml"?',
                        answer.headers["content-disposition"]), answer.headers["content-disposition"]
    ET.fromstring(answer.content)  # well-formed XML
    return answer


def _items(engine_url: str) -> dict[str, Any]:
    """What a site holds, by slug (ids differ between sites)."""
    engine = store_db.create_engine(engine_url)
    try:
        with engine.connect() as conn:
            items = {(row.type, row.slug): (row.title, row.status, row.content) for row in conn.execute(
                sa.select(posts.c.type, posts.c.slug, posts.c.title, posts.c.status, posts.c.content)
                .where(posts.c.type.in_(["post", "page", "cal_events", "cal_venue", "cal_organizer"])))}
            starts = sorted(str(row.start_local) for row in conn.execute(sa.select(events.c.start_local)))
            links = conn.execute(sa.select(sa.func.count()).select_from(event_links)).scalar_one()
            said = sorted(row.content for row in conn.execute(sa.select(comments.c.content)))
    finally:
        engine.dispose()
    return {"items": items, "starts": starts, "links": links, "comments": said}


def _fresh_cli(tmp_path: Path, url: str, capsys: Any, monkeypatch: Any) -> Any:
    """The command line on a new site at ``url`` with an administrator: ``run(*args)`` gives
    (exit code, stdout, stderr)."""
    monkeypatch.setenv("CALPRESS_SECRET_KEY", "tools-test-secret")
    base = ["--data-dir", str(tmp_path / "fresh-data"), "--database-url", url]
    assert cli_main([*base, "db", "upgrade"]) == 0
    assert cli_main([*base, "user", "create", "boss", "boss@example.test", "--role=administrator", "--porcelain"]) == 0
    capsys.readouterr()

    def run(*args: str) -> tuple[int, str, str]:
        code = cli_main([*base, *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _import_into_fresh_site(tmp_path: Path, url: str, file: Path, capsys: Any, monkeypatch: Any) -> str:
    """``calpress import wxr`` of ``file`` into a new site at ``url``: its output."""
    code, out, err = _fresh_cli(tmp_path, url, capsys, monkeypatch)("import", "wxr", str(file), "--quiet")
    assert code == 0, out + err
    return out


def test_the_summary_is_what_the_command_line_prints(as_role, empty_db_url, tmp_path, capsys, monkeypatch):
    """The same files imported into two new sites, from the workspace and from the command line:
    the job's lines are the command's output, warnings included."""
    browser = as_role("administrator")
    broken_ics = CALENDAR.replace(b"END:VCALENDAR", b"BEGIN:VEVENT\r\nUID:x@tools.test\r\nSUMMARY:No start\r\n"
                                                    b"END:VEVENT\r\nEND:VCALENDAR")
    (tmp_path / "club.xml").write_bytes(wxr())
    (tmp_path / "choir.ics").write_bytes(broken_ics)
    monkeypatch.chdir(tmp_path)
    cli = _fresh_cli(tmp_path, empty_db_url, capsys, monkeypatch)
    for form_id, name, data, command in (("import-wxr", "club.xml", wxr(), ("import", "wxr", "club.xml", "--quiet")),
                                         ("import-ics", "choir.ics", broken_ics, ("import", "ics", "choir.ics", "--quiet"))):
        job_id = job_of(upload(browser, form_id, name, data))
        finished(browser, job_id)
        notice, lines = summary_of(browser, job_id)
        _, out, err = cli(*command)
        printed = [line for line in (err + out).splitlines() if line.strip()]
        shown = [*lines, notice.split(": ", 1)[1]]
        record = re.compile(r"\(record \d+\)")
        assert [record.sub("(record N)", line) for line in shown] == [record.sub("(record N)", line) for line in printed]
    assert any(line.startswith("Warning: ") for line in printed)  # the broken event is named


def test_all_content_exports_as_wxr_that_the_command_line_imports_with_nothing_lost(
        app, as_role, client, admin, db_url, empty_db_url, tmp_path, capsys, monkeypatch):
    _content(client, admin)
    answer = _download(as_role("administrator"), "all")
    text = answer.text
    assert text.count("<item>") == 5 and "<wp:post_type><![CDATA[tribe_events]]></wp:post_type>" in text
    file = tmp_path / "site.xml"
    file.write_bytes(answer.content)
    out = _import_into_fresh_site(tmp_path, empty_db_url, file, capsys, monkeypatch)
    assert "failed" not in out.replace("0 failed", "") and f"Success: Imported {file}." in out
    before, after = _items(db_url), _items(empty_db_url)
    assert after == before
    assert len(before["items"]) == 5 and before["links"] == 2 and before["comments"] == ["See you there"]


def test_one_type_exports_alone_and_imports_with_nothing_lost(
        app, as_role, client, admin, db_url, empty_db_url, tmp_path, capsys, monkeypatch):
    _content(client, admin)
    browser = as_role("administrator")
    page = browser.get("/wp-admin/export.php").text
    choices = re.findall(r'name="content" value="([^"]+)"', page)
    assert choices == ["all", "posts", "pages", "attachment", "cal_events", "cal_venue", "cal_organizer"]
    answer = _download(browser, "pages")
    assert answer.text.count("<item>") == 1 and "Visit us" in answer.text and "Season opens" not in answer.text
    file = tmp_path / "pages.xml"
    file.write_bytes(answer.content)
    out = _import_into_fresh_site(tmp_path, empty_db_url, file, capsys, monkeypatch)
    assert "page: 1 created, 0 skipped, 0 failed" in out
    pages = {key: value for key, value in _items(db_url)["items"].items() if key[0] == "page"}
    assert _items(empty_db_url)["items"] == pages
    venues = _download(browser, "cal_venue")
    assert venues.text.count("<item>") == 1 and "Town Hall" in venues.text


def test_export_refuses_an_unknown_choice_and_answers_head(as_role):
    browser = as_role("administrator")
    answer = browser.get("/wp-admin/export.php", params={"download": "true", "content": "revision"})
    assert answer.status_code == 400 and "Choose what to export." in answer.text
    head = browser.http.simulate_head("/wp-admin/export.php", params={"download": "true"}, headers=browser.cookie)
    assert head.status_code == 200 and head.content == b""


def test_the_export_stops_when_its_reader_goes(app, client, admin, monkeypatch):
    _content(client, admin)
    monkeypatch.setattr(export_stream, "SLICE", 16)
    monkeypatch.setattr(export_stream, "QUEUED", 1)
    body = export_stream.export_chunks(app.site, ["post", "page"])
    first = next(body)
    assert first.startswith(b"<?xml")
    body.close()  # the client went away
    deadline = time.monotonic() + 10
    import threading

    while any(thread.name == "calpress-export" for thread in threading.enumerate()):
        assert time.monotonic() < deadline, "the exporter is still running"
        time.sleep(0.05)
    whole = b"".join(export_stream.export_chunks(app.site, ["post", "page"]))
    assert whole.endswith(b"</rss>\n") and io.BytesIO(whole).read(5) == b"<?xml"


def test_the_export_file_name_is_wordpresss():
    from calpress.admin.tools import export_file_name

    day = dt.date(2027, 1, 2)
    assert export_file_name("Old Jazz Club", day) == "oldjazzclub.WordPress.2027-01-02.xml"
    assert export_file_name("Tom &amp; Jerry's", day) == "tomjerrys.WordPress.2027-01-02.xml"
    assert export_file_name("Мой сайт", day) == "WordPress.2027-01-02.xml"


def test_a_site_without_an_address_exports_with_the_address_of_the_request(app, accounts, db_url, tmp_path):
    settings = load_settings({"data_dir": str(tmp_path / "bare"), "database_url": db_url, "secret_key": "bare-" + "k" * 27,
                              "environment": "local", "site_url": ""}, environ={})
    bare = Calpress(settings, upgrade=False)
    try:
        browser = Browser(RestClient(bare), accounts["administrator"])
        answer = browser.get("/wp-admin/export.php", params={"download": "true"})
        assert answer.status_code == 200, answer.text[:300]
        assert "<wp:base_site_url>http://falconframework.org</wp:base_site_url>" in answer.text
    finally:
        bare.site.close()


def test_a_site_without_an_address_is_told_why_it_cannot_export(as_role, monkeypatch):
    from calpress.transfer.wxr_export import NoSiteAddress

    def no_address(site: Any, options: Any = None, *, fallback: str = "") -> str:
        raise NoSiteAddress("")

    monkeypatch.setattr(tools, "site_address", no_address)
    answer = as_role("administrator").get("/wp-admin/export.php", params={"download": "true", "content": "pages"})
    assert answer.status_code == 400 and answer.headers["content-type"].startswith("text/html")
    assert "The site has no absolute address" in answer.text and "Settings &gt; General" in answer.text
    assert 'value="pages" checked' in answer.text
