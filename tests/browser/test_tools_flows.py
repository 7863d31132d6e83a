"""Tools > Import and Tools > Export in headless Chromium against a real server (admin/tools.py):
an administrator imports a WordPress export file and an .ics file, follows each import to its
summary, and downloads an export; every screen checked with axe-core and captured at 1280 and
390 pixels (browser_support.py). What the imports brought is read back through the REST API.

(Named apart from tests/admin/test_tools_screens.py: two test modules of one name in folders
without ``__init__.py`` cannot both be collected in one run.)"""

from __future__ import annotations

import datetime as dt
import re
import time
import xml.etree.ElementTree as ET

import pytest

pytestmark = pytest.mark.browser

WXR = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/"
	xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
	<title>Old Choir</title>
	<link>http://old-choir.example.org</link>
	<wp:wxr_version>1.2</wp:wxr_version>
	<wp:base_site_url>http://old-choir.example.org</wp:base_site_url>
	<wp:author><wp:author_id>1</wp:author_id><wp:author_login><![CDATA[conductor]]></wp:author_login><wp:author_email><![CDATA[conductor@old-choir.example.org]]></wp:author_email></wp:author>
	<item>
		<title><![CDATA[Rehearsal notes]]></title>
		<dc:creator><![CDATA[conductor]]></dc:creator>
		<content:encoded><![CDATA[Bring the blue folder.]]></content:encoded>
		<wp:post_id>5</wp:post_id>
		<wp:post_date><![CDATA[2026-02-01 10:00:00]]></wp:post_date>
		<wp:post_date_gmt><![CDATA[2026-02-01 10:00:00]]></wp:post_date_gmt>
		<wp:post_name><![CDATA[rehearsal-notes]]></wp:post_name>
		<wp:status><![CDATA[publish]]></wp:status>
		<wp:post_type><![CDATA[post]]></wp:post_type>
	</item>
</channel>
</rss>
"""


def _ics() -> str:
    day = dt.date.today() + dt.timedelta(days=12)
    return "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpress tests//browser//EN",
                        "BEGIN:VEVENT", "UID:spring-concert@browser.test", "DTSTAMP:20260101T000000Z",
                        "SUMMARY:Spring concert", f"DTSTART;TZID=Europe/Paris:{day:%Y%m%d}T190000",
                        f"DTEND;TZID=Europe/Paris:{day:%Y%m%d}T210000", "END:VEVENT", "END:VCALENDAR", ""])


def test_an_administrator_imports_a_wxr_and_an_ics_file_and_downloads_an_export(visit, workspace_site, tmp_path):
    _, rest = workspace_site
    admin = visit()
    admin.login("admin", target="/wp-admin/import.php")
    page = admin.page
    assert page.inner_text("#adminmenu .current > a") == "Tools"
    admin.check("tools-import")
    # A WordPress export file.
    (tmp_path / "old-choir.xml").write_text(WXR)
    page.set_input_files("#import-wxr-file", str(tmp_path / "old-choir.xml"))
    page.uncheck("input[name=fetch_attachments]")
    page.click("#import-wxr-submit")
    page.wait_for_url(re.compile(r".*/wp-admin/import\.php\?job=\d+$"))
    page.wait_for_selector(".notice-success", timeout=30000)  # the page follows the import, then shows its end
    assert page.inner_text(".notice-success") == "Success: Imported old-choir.xml."
    assert "post: 1 created, 0 skipped, 0 failed" in page.inner_text(".import-summary")
    admin.check("tools-import-done")
    post = rest.get("/cms/v2/posts", params={"slug": "rehearsal-notes"}).json()[0]
    assert post["title"]["rendered"] == "Rehearsal notes"
    # An iCalendar file, its events as drafts.
    page.click("text=Import something else")
    (tmp_path / "spring.ics").write_text(_ics())
    page.set_input_files("#import-ics-file", str(tmp_path / "spring.ics"))
    page.select_option("#import-ics-status", "draft")
    page.click("#import-ics-submit")
    page.wait_for_selector(".notice-success", timeout=30000)
    assert re.fullmatch(r"Success: Imported spring\.ics \(record \d+\): 1 created, 0 updated, 0 skipped\.",
                        page.inner_text(".notice-success"))
    events = rest.get("/cal/events/v1/events", params={"status": "draft", "start_date": "2020-01-01",
                                                       "end_date": "2035-01-01"}).json()["events"]
    assert [event["title"] for event in events] == ["Spring concert"]
    # The latest imports are listed.
    admin.goto("/wp-admin/import.php")
    assert page.locator("#import-jobs tbody tr").count() == 2
    # An export of all content, downloaded.
    admin.goto("/wp-admin/export.php")
    admin.check("tools-export")
    with page.expect_download() as started:
        page.click("#submit")
    download = started.value
    assert re.fullmatch(r"[a-z0-9_-]*\.?WordPress\.\d{4}-\d{2}-\d{2}\.xml", download.suggested_filename)
    saved = tmp_path / "export.xml"
    download.save_as(str(saved))
    channel = ET.parse(saved).getroot().find("channel")
    titles = [item.findtext("title") for item in channel.findall("item")]
    assert "Rehearsal notes" in titles and "Spring concert" in titles


def test_others_are_refused_the_tools(visit):
    editor = visit()
    editor.login("editor")
    assert "Tools" not in editor.page.inner_text("#adminmenu")
    editor.goto("/wp-admin/export.php")
    assert "Sorry, you are not allowed to export the content of this site." in editor.page.inner_text("main")


def _job(server, **values) -> int:
    """A job row in the server's database (as the import's thread writes it), or one changed."""
    from calpress.store import db as store_db
    from calpress.store import import_jobs as job_store

    engine = store_db.create_engine(server.env["CALPRESS_DATABASE_URL"])
    try:
        with store_db.write_transaction(engine) as conn:
            job_id = values.pop("job_id", None)
            if job_id is None:
                job_id = job_store.create_job(conn, kind="wxr", source="slow.xml", user_id=None, state="running",
                                              total=1000).id
            job_store.update_job(conn, job_id, **values)
    finally:
        engine.dispose()
    return job_id


DONE = {"state": "success", "done": 1000, "result": {"lines": [{"kind": "info", "text": "post: 9 created, 0 skipped, 0 failed"},
                                                               {"kind": "success", "text": "Success: Imported slow.xml."}]}}


def test_the_import_page_follows_the_import_until_it_ends(visit, workspace_site, chromium):
    server, _ = workspace_site
    job_id = _job(server, done=250, result={"stage": "Importing."})
    admin = visit()
    admin.login("admin", target=f"/wp-admin/import.php?job={job_id}")
    page = admin.page
    assert page.get_attribute("#import-progress-bar", "value") == "25"
    assert page.inner_text("#import-progress-message") == "Importing. 25% done."
    admin.check("tools-import-running")
    _job(server, job_id=job_id, done=750)
    page.wait_for_function("document.getElementById('import-progress-bar').value === 75")
    assert page.inner_text("#import-progress-message") == "Importing. 75% done."
    _job(server, job_id=job_id, **DONE)
    page.wait_for_selector(".notice-success")  # the script saw the end and showed the finished page
    assert page.inner_text(".notice-success") == "Success: Imported slow.xml."
    assert page.inner_text(".import-summary") == "post: 9 created, 0 skipped, 0 failed"
    # Without JavaScript the page refreshes itself until the import has ended.
    other = _job(server, done=100)
    context = chromium.new_context(java_script_enabled=False)
    try:
        plain = context.new_page()
        plain.goto(f"{server.url}/wp-login.php")
        plain.fill("#user_login", "admin")
        plain.fill("#user_pass", "login-secret")
        plain.click("#wp-submit")
        plain.wait_for_load_state()
        plain.goto(f"{server.url}/wp-admin/import.php?job={other}")
        assert plain.get_attribute("#import-progress-bar", "value") == "10"
        _job(server, job_id=other, **DONE)
        plain.wait_for_selector(".notice-success", timeout=15000)
    finally:
        context.close()


def test_a_large_upload_goes_through_the_real_servers_front(visit, workspace_site):
    """A 6 MB export sent to ``calpress serve``: the front hands the body over a part at a time
    (front.py), the form parser spools the file to disk, and the import runs in the server."""
    _, rest = workspace_site
    admin = visit()
    admin.login("admin", target="/wp-admin/import.php")
    page = admin.page
    nonce = page.get_attribute("#import-wxr input[name=_wpnonce]", "value")
    # Another site's export (the first test imported this one's), padded to 6 MB.
    big = WXR.replace("<channel>", "<channel>\n<!-- " + "x" * (6 * 1024 * 1024) + " -->", 1).replace(
        "rehearsal-notes", "large-rehearsal-notes").replace("old-choir.example.org", "large-choir.example.org")
    answer = page.request.post(admin.base + "/wp-admin/import.php", max_redirects=0, multipart={
        "_wpnonce": nonce, "action": "wxr", "authors": "create",
        "import": {"name": "large.xml", "mimeType": "text/xml", "buffer": big.encode()}})
    assert answer.status == 303, answer.text()[:300]
    status_url = admin.base + answer.headers["location"] + "&format=json"
    deadline = time.monotonic() + 60
    while not (status := page.request.get(status_url).json())["finished"]:
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["state"] == "success" and status["total"] == len(big.encode())
    assert rest.get("/cms/v2/posts", params={"slug": "large-rehearsal-notes"}).json()
