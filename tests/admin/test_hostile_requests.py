"""What a user (or someone holding their cookie) can send the workspace that it was not built for:
every screen, asked with junk in every query parameter the screens read, and every form of every
screen sent back with each of its fields replaced by junk (the form's own nonce kept, so the
handler runs), as an administrator (who may open every screen), on both databases. Never a 5xx; always a
page (or a redirect), never a traceback."""

from __future__ import annotations

import re

from admin_support import fields_of

FORM_JUNK = ["", "-1", "abc", "99999999999999999999", "<script>x</script>"]
QUERY_JUNK = ["-1", "abc", "99999999999999999999", "<script>x</script>", "000001", "2031-13-45"]
PARAMS = ["post", "post_type", "post_status", "paged", "orderby", "order", "s", "m", "cat", "venue", "organizer",
          "start_date", "end_date", "author", "action", "taxonomy", "tag_ID", "user_id", "item", "mode", "attachment-filter",
          "role", "message", "page", "drafted", "uploaded", "update", "settings-updated", "error"]


def _screens(app) -> list[str]:
    return sorted(app.admin_files)


def _assert_fine(answer, where: str) -> None:
    assert answer.status_code < 500, f"{where} -> {answer.status_code} {answer.text[:400]}"
    if answer.status_code < 300:
        assert "Traceback" not in answer.text and answer.headers["content-type"].startswith("text/html"), where


def test_junk_in_every_query_parameter_of_every_screen(app, as_role, client, admin):
    client.post("/cms/v2/posts", user=admin, json={"title": "Something", "status": "publish"})
    browser = as_role("administrator")  # who may open every screen, so every handler runs
    for screen in _screens(app):
        for name in PARAMS:
            for value in QUERY_JUNK:
                path = f"/wp-admin/{screen}"
                answer = browser.http.simulate_get(path, params={name: value}, headers=browser.cookie)
                _assert_fine(answer, f"GET {path}?{name}={value!r}")


FORM_PAGES = ["/wp-admin/", "/wp-admin/post-new.php", "/wp-admin/post-new.php?post_type=cal_events",
              "/wp-admin/post-new.php?post_type=cal_venue", "/wp-admin/edit.php", "/wp-admin/edit.php?post_type=cal_events",
              "/wp-admin/upload.php", "/wp-admin/edit-tags.php?taxonomy=category",
              "/wp-admin/edit-tags.php?taxonomy=cal_events_cat&post_type=cal_events", "/wp-admin/users.php",
              "/wp-admin/user-new.php", "/wp-admin/profile.php", "/wp-admin/options-general.php",
              "/wp-admin/options-reading.php", "/wp-admin/options-discussion.php",
              "/wp-admin/edit.php?post_type=cal_events&page=cal-events-calendar"]


def _forms(html: str) -> list[tuple[str, str]]:
    """(form id, action) of each POST form of a page."""
    found = []
    for attrs in re.findall(r"<form\b([^>]*)>", html):
        if 'method="post"' not in attrs:
            continue
        form_id = re.search(r'id="([^"]+)"', attrs)
        action = re.search(r'action="([^"]+)"', attrs)
        if form_id and action:
            found.append((form_id.group(1), action.group(1).replace("&amp;", "&")))
    return found


def test_junk_in_every_field_of_every_form(as_role, client, admin):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Edited", "status": "publish"}).json["id"]
    browser = as_role("administrator")
    pages = [*FORM_PAGES, f"/wp-admin/post.php?post={post}&action=edit"]
    sent = 0
    for page in pages:
        html = browser.get(page).text
        for form_id, action in _forms(html):
            fields = fields_of(html, form_id)
            for name in [n for n in fields if n != "_wpnonce"]:
                for value in FORM_JUNK:
                    answer = browser.post(action, {**fields, name: [value] if name.endswith("[]") else value})
                    sent += 1
                    _assert_fine(answer, f"POST {action} {form_id}: {name}={value!r}")
    assert sent > 500
