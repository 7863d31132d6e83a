"""What the item editor adds for writing in the browser (issue 31), through the app in process on
both databases: the block editor's settings and files on editor screens only, the script policy
that lets it load there alone, the post lock (taken on opening, shown to a second editor, taken
over with a nonce, refusing a save while someone else holds it, lapsing after 150 s), the
editor's heartbeat, the newer-autosave notice, the preview link, and line breaks kept as stored."""

from __future__ import annotations

import json
import re
import time

from admin_support import fields_of, location, query_of

from calpress.admin.assets import block_editor_installed
from calpress.content import edit_locks

BLOCKS = "<!-- wp:paragraph -->\n<p>First words.</p>\n<!-- /wp:paragraph -->"


def _post(client, user, **fields):
    body = {"title": "Open day", "content": BLOCKS, "status": "publish", **fields}
    return client.post("/cms/v2/posts", user=user, json=body).json


def _settings(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="block-editor-settings">(.*?)</script>', page, re.S)
    assert found, "no block editor settings on the page"
    return json.loads(found.group(1))


def test_editor_screens_load_the_block_editor_and_only_they_allow_it_to_compile(as_role, client, accounts):
    assert block_editor_installed(), "scripts/test installs the workspace's npm libraries"
    editor = as_role("editor")
    post = _post(client, accounts["editor"])
    for path in ("/wp-admin/post-new.php", f"/wp-admin/post.php?post={post['id']}&action=edit",
                 "/wp-admin/post-new.php?post_type=page", "/wp-admin/post-new.php?post_type=cal_events",
                 "/wp-admin/post-new.php?post_type=wp_block"):
        page = editor.get(path)
        assert page.status_code == 200, path
        assert "/wp-admin/assets/vendor/block-editor.js?ver=2.26.0" in page.text
        assert page.text.index("vendor/react.js") < page.text.index("vendor/react-dom.js") < page.text.index(
            "vendor/block-editor.js") < page.text.index("assets/editor.js")
        assert "'unsafe-eval'" in page.headers["content-security-policy"]
    settings = _settings(editor.get(f"/wp-admin/post.php?post={post['id']}&action=edit").text)
    assert settings["postId"] == post["id"] and settings["canUpload"] is True
    assert settings["autosave"] == {"route": f"cms/v2/posts/{post['id']}/autosaves", "interval": 60}
    assert settings["lock"]["interval"] == 30 and settings["root"].endswith("/wp-json/")
    for path in ("/wp-admin/", "/wp-admin/edit.php", "/wp-admin/upload.php", "/wp-admin/profile.php"):
        page = editor.get(path)
        assert "block-editor.js" not in page.text and "'unsafe-eval'" not in page.headers["content-security-policy"], path


def test_the_editor_s_files_are_served_compressed_and_cached_for_a_year(client):
    answer = client.http.simulate_get("/wp-admin/assets/vendor/block-editor.js", headers={"Accept-Encoding": "gzip"})
    assert answer.status_code == 200 and answer.headers["content-encoding"] == "gzip"
    assert "immutable" in answer.headers["cache-control"] and "max-age=31536000" in answer.headers["cache-control"]
    assert len(answer.content) < 1_200_000  # 3.6 MB as sent by npm
    for name in ("react.js", "react-dom.js", "block-editor-core.css", "block-editor.css"):
        assert client.http.simulate_get(f"/wp-admin/assets/vendor/{name}").status_code == 200, name
    assert client.http.simulate_get("/wp-admin/assets/editor.js").status_code == 200


def test_a_second_editor_sees_the_lock_takes_over_and_the_first_one_s_save_is_refused(app, as_role, client, accounts):
    post = _post(client, accounts["editor"])
    edit = f"/wp-admin/post.php?post={post['id']}&action=edit"
    first, second = as_role("editor"), as_role("administrator")
    form = fields_of(first.get(edit).text, "post")  # the first editor opens it: the lock is theirs
    with app.site.read() as conn:
        assert edit_locks.holder(conn, post["id"]) == accounts["editor"].id
    page = second.get(edit)
    assert page.status_code == 200 and 'id="post"' not in page.text  # no form to overwrite with
    assert "editor</strong> is currently editing this post. Do you want to take over?" in page.text
    take_over = re.search(r'id="take-over" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
    assert second.get(take_over.replace("_wpnonce=", "_wpnonce=x")).status_code == 403  # a forged link
    assert location(second.get(take_over)).endswith(f"post.php?post={post['id']}&action=edit")
    with app.site.read() as conn:
        assert edit_locks.holder(conn, post["id"]) == accounts["administrator"].id
    # The first editor's page hears it on its next beat...
    beat = first.post(f"/wp-admin/post.php?post={post['id']}", {"action": "refresh-lock", "post_ID": post["id"],
                                                                   "_wpnonce": form["_wpnonce"]})
    assert beat.status_code == 200 and beat.headers["content-type"].startswith("application/json")
    assert beat.json == {"locked": True, "holder": "administrator",
                         "message": "administrator has taken over and is currently editing."}
    # ...and its save is refused, its text kept in the form, the stored post untouched.
    refused = first.post(f"/wp-admin/post.php?post={post['id']}", {**form, "post_title": "Overwritten", "save": "1"})
    assert refused.status_code == 409
    assert "administrator is currently editing this post: your changes were not saved." in refused.text
    assert fields_of(refused.text, "post")["post_title"] == "Overwritten"
    assert client.get(f"/cms/v2/posts/{post['id']}", user=accounts["editor"], params={"context": "edit"}).json[
        "title"]["raw"] == "Open day"
    # The holder's own beat keeps the lock; the holder saves.
    mine = fields_of(second.get(edit).text, "post")
    assert second.post(f"/wp-admin/post.php?post={post['id']}", {"action": "refresh-lock", "post_ID": post["id"],
                                                                    "_wpnonce": mine["_wpnonce"]}).json == {"locked": False}
    assert query_of(location(second.post(f"/wp-admin/post.php?post={post['id']}",
                                         {**mine, "post_title": "Open day, updated", "save": "1"})))["message"] == "1"


def test_a_lock_lapses_after_150_seconds_and_a_beat_needs_the_item_s_nonce(app, as_role, client, accounts):
    post = _post(client, accounts["editor"])
    with app.site.write() as conn:
        edit_locks.take(conn, post["id"], accounts["administrator"].id, now=time.time() - 151)
    editor = as_role("editor")
    page = editor.get(f"/wp-admin/post.php?post={post['id']}&action=edit")
    assert 'id="post"' in page.text and "is currently editing" not in page.text
    with app.site.read() as conn:
        assert edit_locks.holder(conn, post["id"]) == accounts["editor"].id
    other = _post(client, accounts["editor"], title="Another")
    forged = editor.post(f"/wp-admin/post.php?post={post['id']}", {"action": "refresh-lock", "post_ID": post["id"],
                                                                     "_wpnonce": fields_of(page.text, "post")["_wpnonce"]})
    assert forged.status_code == 200
    wrong = editor.post(f"/wp-admin/post.php?post={other['id']}", {"action": "refresh-lock", "post_ID": other["id"],
                                                                     "_wpnonce": fields_of(page.text, "post")["_wpnonce"]})
    assert wrong.status_code == 403  # the nonce of one item does not beat for another


def test_the_lock_moves_no_cache_and_is_never_exported(app, client, accounts):
    post = _post(client, accounts["editor"])
    first = client.get(f"/cms/v2/posts/{post['id']}", user=accounts["editor"], params={"context": "edit"})
    with app.site.write() as conn:
        edit_locks.take(conn, post["id"], accounts["editor"].id)
    again = client.get(f"/cms/v2/posts/{post['id']}", user=accounts["editor"], params={"context": "edit"})
    assert again.json == first.json and "_edit_lock" not in json.dumps(again.json)


def test_a_newer_autosave_is_announced_with_a_link_to_it(as_role, client, accounts):
    post = _post(client, accounts["editor"])
    editor = as_role("editor")
    edit = f"/wp-admin/post.php?post={post['id']}&action=edit"
    assert "There is an autosave" not in editor.get(edit).text
    time.sleep(1.1)  # an autosave later than the post (dates are to the second)
    autosave = client.post(f"/cms/v2/posts/{post['id']}/autosaves", user=accounts["editor"],
                           json={"title": "Open day", "content": BLOCKS.replace("First", "Later")}).json
    page = editor.get(edit).text
    assert "There is an autosave of this post that is more recent than the version below." in page
    assert f'href="/wp-admin/revision.php?revision={autosave["id"]}">View the autosave</a>' in page
    # Someone else's autosave is theirs to restore: not announced to this editor.
    assert "There is an autosave" not in as_role("administrator").get(edit).text


def test_a_draft_has_a_preview_link_only_its_readers_can_open(as_role, client, accounts):
    draft = _post(client, accounts["editor"], status="draft", title="Secret plans")
    page = as_role("editor").get(f"/wp-admin/post.php?post={draft['id']}&action=edit").text
    link = re.search(r'id="post-preview" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert "preview=true" in link
    path = link.split("://", 1)[1].split("/", 1)[1]
    editor = as_role("editor")
    seen = editor.get("/" + path.split("?")[0], query_string=path.split("?", 1)[1])
    assert seen.status_code == 200 and "Secret plans" in seen.text
    anonymous = client.http.simulate_get("/" + path.split("?")[0], query_string=path.split("?", 1)[1])
    assert anonymous.status_code == 404 and "Secret plans" not in anonymous.text


def test_a_form_s_line_breaks_are_stored_as_the_editor_wrote_them(as_role, client, accounts):
    post = _post(client, accounts["editor"])
    editor = as_role("editor")
    form = fields_of(editor.get(f"/wp-admin/post.php?post={post['id']}&action=edit").text, "post")
    sent = BLOCKS.replace("\n", "\r\n")  # what a browser sends for the textarea
    location(editor.post(f"/wp-admin/post.php?post={post['id']}", {**form, "content": sent, "save": "1"}))
    stored = client.get(f"/cms/v2/posts/{post['id']}", user=accounts["editor"], params={"context": "edit"}).json
    assert stored["content"]["raw"] == BLOCKS


def test_a_synced_pattern_is_listed_under_appearance_and_written_like_a_post(as_role, client, accounts):
    editor = as_role("editor")
    listed = editor.get("/wp-admin/edit.php?post_type=wp_block")
    assert listed.status_code == 200 and ">Patterns</a>" in listed.text
    form = editor.form("/wp-admin/post-new.php?post_type=wp_block", "post")
    saved = location(editor.post("/wp-admin/post-new.php?post_type=wp_block",
                                 {**form, "post_title": "Opening hours", "content": BLOCKS, "publish": "1"}))
    pattern = client.get(f"/cms/v2/blocks/{query_of(saved)['post']}", user=accounts["editor"],
                         params={"context": "edit"}).json
    assert pattern["title"]["raw"] == "Opening hours" and pattern["content"]["raw"] == BLOCKS
    assert pattern["status"] == "publish"
    assert as_role("subscriber").get("/wp-admin/edit.php?post_type=wp_block").status_code == 403


def test_the_publish_box_counts_the_revisions_and_links_the_newest(as_role, client, accounts):
    post = _post(client, accounts["editor"])
    editor = as_role("editor")
    edit = f"/wp-admin/post.php?post={post['id']}&action=edit"
    client.post(f"/cms/v2/posts/{post['id']}", user=accounts["editor"], json={"title": "Open day, again"})
    revisions = client.get(f"/cms/v2/posts/{post['id']}/revisions", user=accounts["editor"]).json
    page = editor.get(edit).text
    assert (f'Revisions: <strong>{len(revisions)}</strong> <a href="/wp-admin/revision.php?revision={revisions[0]["id"]}">'
            "Browse</a>") in page
    assert "Revisions:" not in as_role("editor").get("/wp-admin/post-new.php").text


def test_a_new_item_s_form_saves_the_draft_its_first_autosave_made(as_role, client, accounts):
    editor = as_role("editor")
    settings = _settings(editor.get("/wp-admin/post-new.php").text)
    assert settings["autosave"] is None and settings["draft"]["route"] == "cms/v2/posts"
    assert settings["draft"]["editor"] == "/wp-admin/post.php?post={id}&action=edit"
    assert _settings(editor.get("/wp-admin/post-new.php?post_type=cal_events").text)["draft"] is None  # needs its dates
    form = editor.form("/wp-admin/post-new.php", "post")
    draft = client.post("/cms/v2/posts", user=accounts["editor"], json={"title": "Half written", "status": "draft"}).json
    saved = location(editor.post("/wp-admin/post-new.php", {**form, "post_ID": draft["id"], "post_title": "Written",
                                                             "content": BLOCKS, "publish": "1"}))
    assert query_of(saved)["post"] == str(draft["id"])
    stored = client.get(f"/cms/v2/posts/{draft['id']}", user=accounts["editor"], params={"context": "edit"}).json
    assert (stored["title"]["raw"], stored["status"]) == ("Written", "publish")
    assert client.get("/cms/v2/posts", params={"search": "Written"}).json[0]["id"] == draft["id"]
    # Another user's item, or an item of another type, is not this form's to save.
    contributor = as_role("contributor")
    theirs = contributor.form("/wp-admin/post-new.php", "post")
    refused = contributor.post("/wp-admin/post-new.php", {**theirs, "post_ID": draft["id"], "post_title": "Taken"})
    assert refused.status_code in (400, 403)
    page = client.post("/cms/v2/pages", user=accounts["editor"], json={"title": "A page", "status": "draft"}).json
    assert editor.post("/wp-admin/post-new.php", {**form, "post_ID": page["id"], "post_title": "x"}).status_code == 404
    assert client.get(f"/cms/v2/posts/{draft['id']}", user=accounts["editor"], params={"context": "edit"}).json[
        "title"]["raw"] == "Written"
