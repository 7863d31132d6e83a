"""The media screens (issue 30) through the app in process on both databases: the library
(``upload.php``: grid and list, filters by type, month, author and words, paging, row and bulk
"Delete Permanently"), one attachment (``upload.php?item=N``: details saved, the image editor,
read-only for those the API will not let edit), and uploads (``media-new.php``: several files in
one plain form, each refusal with the API's message; the REST route Dropzone posts to, with the
page's cookie and REST nonce). Who may do what is the API's: every change is read back through
the REST API and the stored files."""

from __future__ import annotations

import io
import re
from html import unescape
from urllib.parse import urlsplit

import pytest
from admin_support import Browser, location, query_lists
from PIL import Image

from calpress.admin.assets import installed
from calpress.auth import sessions

MEDIA = "/cms/v2/media"
BOUNDARY = "AdminMediaBoundary41"
PDF = (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
       b"trailer << /Root 1 0 R >>\n%%EOF\n")


def png(size: tuple[int, int] = (64, 48), color: str = "teal") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def multipart(fields: dict[str, str], files: list[tuple[str, bytes, str]], field: str = "async-upload") -> bytes:
    """A multipart/form-data body: the plain fields, then each (file name, bytes, type) under ``field``."""
    body = b""
    for key, value in fields.items():
        body += f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
    for name, data, kind in files:
        body += (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                 f"Content-Type: {kind}\r\n\r\n").encode() + data + b"\r\n"
    return body + f"--{BOUNDARY}--\r\n".encode()


def upload_form(browser: Browser, files: list[tuple[str, bytes, str]], **extra: str):
    """media-new.php's plain form as the browser sends it without JavaScript."""
    fields = browser.form("/wp-admin/media-new.php", "file-form")
    fields.update(extra)
    return browser.http.simulate_post("/wp-admin/media-new.php", body=multipart(fields, files), headers={
        **browser.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})


def rest_upload(client, account, data: bytes, name: str, kind: str = "image/png") -> dict:
    answer = client.post(MEDIA, user=account, body=data, headers={"Content-Type": kind,
                                                                  "Content-Disposition": f'attachment; filename="{name}"'})
    assert answer.status_code == 201, answer.text
    return answer.json


def nonce_for(app, browser: Browser, action: str) -> str:
    """The nonce the browser's own session would get for ``action`` (a form it is not shown)."""
    user, session = app.authenticator.session_user(browser.cookie["Cookie"].split("=", 1)[1])
    return sessions.create_nonce(app.settings.secret_key, action, user.id, session.token)


def media(client, admin, **params) -> list[dict]:
    answer = client.get(MEDIA, user=admin, params={"context": "edit", "per_page": 100, **params})
    assert answer.status_code == 200, answer.text
    return answer.json


# -- who may open what ------------------------------------------------------------------------------


def test_only_users_who_may_upload_open_the_media_screens(as_role):
    for role in ("subscriber", "contributor"):
        browser = as_role(role)
        for path in ("/wp-admin/upload.php", "/wp-admin/media-new.php", "/wp-admin/upload.php?item=1"):
            answer = browser.get(path)
            assert answer.status_code == 403, (role, path)
            assert "Sorry, you are not allowed to upload files." in answer.text
        assert 'href="/wp-admin/upload.php"' not in browser.get("/wp-admin/").text
    author = as_role("author")
    menu = author.get("/wp-admin/").text
    assert 'href="/wp-admin/upload.php"' in menu
    page = author.get("/wp-admin/upload.php")
    assert page.status_code == 200 and "<h1>Media Library</h1>" in page.text
    assert 'href="/wp-admin/media-new.php"' in page.text  # the submenu and "Add Media File"


# -- uploads ----------------------------------------------------------------------------------------


def test_upload_two_images_and_a_pdf_without_javascript(as_role, client, admin, app):
    author = as_role("author")
    page = author.get("/wp-admin/media-new.php")
    assert 'enctype="multipart/form-data"' in page.text and 'name="async-upload"' in page.text and " multiple" in page.text
    assert '<label for="async-upload">' in page.text
    answer = upload_form(author, [
        ("Café été.png", png(), "image/png"),
        ("harbour.png", png((80, 60), "navy"), "image/png"),
        ("programme.pdf", PDF, "application/pdf"),
        ("shell.png", b"<?php system($_GET['c']); ?>", "image/png"),  # a script renamed .png
    ])
    target = location(answer)
    assert target.startswith("/wp-admin/upload.php?")
    stored = {item["id"]: item for item in media(client, admin)}
    assert len(stored) == 3
    assert sorted(item["mime_type"] for item in stored.values()) == ["application/pdf", "image/png", "image/png"]
    assert {item["author"] for item in stored.values()} == {author.account.id}
    by_title = {item["title"]["raw"]: item for item in stored.values()}
    assert set(by_title) == {"Café été", "harbour", "programme"}
    assert by_title["Café été"]["filename"] == "cafe-ete.png"
    assert by_title["harbour"]["media_details"]["width"] == 80
    assert sorted(int(i) for i in query_lists(target)["uploaded"][0].split(",")) == sorted(stored)
    assert len(list(app.site.storage.keys())) >= 3
    # The library says what was stored (each linked to its details) and what was refused, and why.
    library = author.get(target).text
    assert "3 media files uploaded:" in library
    for item_id, item in stored.items():
        assert f'<a href="/wp-admin/upload.php?item={item_id}">{item["title"]["raw"]}</a>' in library
    assert "“shell.png” has failed to upload. Sorry, you are not allowed to upload this file type." in library


def test_an_empty_upload_form_is_shown_again_with_the_error_beside_the_field(as_role, client, admin):
    author = as_role("author")
    answer = upload_form(author, [("", b"", "application/octet-stream")])
    assert answer.status_code == 400
    assert re.search(r'id="async-upload"[^>]*aria-invalid="true" aria-describedby="async-upload-error"', answer.text)
    assert '<p class="field-error" id="async-upload-error">Choose one or more files to upload.</p>' in answer.text
    assert media(client, admin) == []


def test_an_upload_without_the_forms_nonce_stores_nothing(as_role, client, admin):
    author = as_role("author")
    fields = author.form("/wp-admin/media-new.php", "file-form")
    for nonce in ("", "0123456789"):
        answer = author.http.simulate_post("/wp-admin/media-new.php", body=multipart(
            {**fields, "_wpnonce": nonce}, [("a.png", png(), "image/png")]),
            headers={**author.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
        assert answer.status_code == 403 and "The link you followed has expired." in answer.text
    assert media(client, admin) == []


def test_uploads_are_attached_to_the_item_named_by_post_id(as_role, client, admin):
    editor = as_role("editor")
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Harbour festival", "status": "publish"}).json
    fields = editor.form(f"/wp-admin/media-new.php?post_id={post['id']}", "file-form")
    assert fields["post_id"] == str(post["id"])
    answer = editor.http.simulate_post("/wp-admin/media-new.php", body=multipart(fields, [("poster.png", png(), "image/png")]),
                                       headers={**editor.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    location(answer)
    (item,) = media(client, admin)
    assert item["post"] == post["id"]
    page = editor.get(f"/wp-admin/upload.php?item={item['id']}").text
    assert f'<a href="/wp-admin/post.php?post={post["id"]}&amp;action=edit">Harbour festival</a>' in page
    listed = editor.get("/wp-admin/upload.php?mode=list").text
    assert "Harbour festival" in listed
    # An item the user may not edit is not a place to attach to: the field comes back empty.
    author = as_role("author")
    assert author.form(f"/wp-admin/media-new.php?post_id={post['id']}", "file-form")["post_id"] == "0"


def test_the_javascript_uploader_posts_to_the_rest_route_with_the_pages_nonce(as_role, client, admin):
    author = as_role("author")
    page = author.get("/wp-admin/media-new.php").text
    rest_url = unescape(re.search(r'data-rest-url="([^"]+)"', page).group(1))
    nonce = re.search(r'data-rest-nonce="([^"]+)"', page).group(1)
    assert rest_url == "http://example.test/wp-json/cms/v2/media"
    assert 'id="drag-drop-area"' in page and 'id="plupload-browse-button"' in page
    if installed("dropzone.js"):
        assert re.search(r'<script src="/wp-admin/assets/vendor/dropzone\.js\?ver=[^"]+" defer>', page)
        assert re.search(r'<link rel="stylesheet" href="/wp-admin/assets/vendor/dropzone\.css', page)
    path = urlsplit(rest_url).path
    body = multipart({}, [("Fête.png", png(), "application/octet-stream")], field="file")
    headers = {**author.cookie, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    refused = author.http.simulate_post(path, body=body, headers=headers)  # the cookie alone is no proof
    assert refused.status_code == 401
    answer = author.http.simulate_post(path, body=body, headers={**headers, "X-WP-Nonce": nonce})
    assert answer.status_code == 201, answer.text
    assert answer.json["title"]["raw"] == "Fête" and answer.json["author"] == author.account.id
    assert [item["id"] for item in media(client, admin)] == [answer.json["id"]]


# -- one item -------------------------------------------------------------------------------------


def test_the_details_form_saves_title_alt_text_caption_and_description(as_role, client, admin):
    author = as_role("author")
    item = rest_upload(client, author.account, png(), "dock.png")
    path = f"/wp-admin/upload.php?item={item['id']}"
    page = author.get(path).text
    assert "<h1>Edit Media</h1>" in page
    for label, field in (("Title", "title"), ("Alternative Text", "attachment_alt"), ("Caption", "attachment_caption"),
                         ("Description", "attachment_content")):
        assert f'<label for="{field}">{label}</label>' in page
    assert f'value="{item["source_url"]}" readonly' in page
    assert "64 by 48 pixels" in page and "image/png" in page and "dock.png" in page
    fields = author.form(path, "post")
    fields.update({"post_title": "The dock at dawn", "_wp_attachment_image_alt": "Boats moored at a wooden dock",
                   "excerpt": "Early light", "content": "Taken from the harbour wall."})
    answer = author.post(path, fields)
    assert location(answer) == f"{path}&message=1"
    assert "Media file updated." in author.get(location(answer)).text
    saved = client.get(f"{MEDIA}/{item['id']}", user=admin, params={"context": "edit"}).json
    assert saved["title"]["raw"] == "The dock at dawn"
    assert saved["alt_text"] == "Boats moored at a wooden dock"
    assert saved["caption"]["raw"] == "Early light"
    assert saved["description"]["raw"] == "Taken from the harbour wall."
    # The form shows what was saved; the preview carries the alt text.
    shown = author.form(path, "post")
    assert shown["_wp_attachment_image_alt"] == "Boats moored at a wooden dock"
    assert 'alt="Boats moored at a wooden dock"' in author.get(path).text


def test_a_pdf_has_no_alt_text_field_and_no_image_editor(as_role, client):
    editor = as_role("editor")
    item = rest_upload(client, editor.account, PDF, "minutes.pdf", "application/pdf")
    page = editor.get(f"/wp-admin/upload.php?item={item['id']}").text
    assert 'name="_wp_attachment_image_alt"' not in page and 'id="image-editor"' not in page
    assert 'name="excerpt"' in page and "application/pdf" in page and "minutes.pdf" in page


def test_rotate_flip_and_crop_make_a_new_attachment(as_role, client, admin, app):
    author = as_role("author")
    item = rest_upload(client, author.account, png((64, 48)), "quay.png")
    client.post(f"{MEDIA}/{item['id']}", user=admin, json={"alt_text": "The quay"})
    path = f"/wp-admin/upload.php?item={item['id']}"
    fields = author.form(path, "image-editor")
    assert fields["rotate"] == ""
    answer = author.post(path, {**fields, "rotate": "90"})
    target = location(answer)
    new_id = int(query_lists(target)["item"][0])
    assert new_id != item["id"] and query_lists(target)["edited"] == [str(item["id"])]
    rotated = client.get(f"{MEDIA}/{new_id}", user=admin, params={"context": "edit"}).json
    assert (rotated["media_details"]["width"], rotated["media_details"]["height"]) == (48, 64)
    assert rotated["alt_text"] == "The quay" and rotated["author"] == author.account.id
    original = client.get(f"{MEDIA}/{item['id']}", user=admin, params={"context": "edit"}).json
    assert (original["media_details"]["width"], original["media_details"]["height"]) == (64, 48)
    page = author.get(target).text
    assert "The edited image was saved as a new media file; the original is unchanged." in page
    assert "48 by 64 pixels" in page
    # Flip and crop: half the width, the whole height.
    answer = author.post(path, {**fields, "flip_horizontal": "1", "crop_left": "50", "crop_top": "0", "crop_width": "50",
                                "crop_height": "100"})
    cropped = client.get(f"{MEDIA}/{int(query_lists(location(answer))['item'][0])}", user=admin, params={"context": "edit"}).json
    assert (cropped["media_details"]["width"], cropped["media_details"]["height"]) == (32, 48)
    key = app.site.storage.key_of(cropped["source_url"])
    with app.site.storage.open(key) as stream, Image.open(stream) as image:
        assert image.size == (32, 48)


def test_image_editor_errors_keep_the_input_and_say_why(as_role, client, admin):
    author = as_role("author")
    item = rest_upload(client, author.account, png(), "mast.png")
    path = f"/wp-admin/upload.php?item={item['id']}"
    fields = author.form(path, "image-editor")
    # Nothing chosen: the API's own message.
    answer = author.post(path, fields)
    assert answer.status_code == 400
    assert "The image was not edited. Edit the image before applying the changes." in answer.text
    # Half a crop: the missing numbers are named.
    answer = author.post(path, {**fields, "crop_left": "10", "crop_top": "10"})
    assert answer.status_code == 400
    assert re.search(r'id="crop_width"[^>]*value=""[^>]*aria-invalid="true" aria-describedby="crop_width-error', answer.text)
    assert 'id="crop_left" name="crop_left" min="0" max="100" step="any" inputmode="decimal" value="10"' in answer.text
    # A crop outside the image: the API refuses it, shown beside the crop fields, input kept.
    answer = author.post(path, {**fields, "rotate": "180", "crop_left": "80", "crop_top": "0", "crop_width": "50",
                                "crop_height": "50"})
    assert answer.status_code == 400
    assert '<p class="field-error" id="crop-error">The crop lies outside the image.</p>' in answer.text
    assert 'value="80"' in answer.text and re.search(r'value="180" checked', answer.text)
    assert len(media(client, admin)) == 1  # nothing stored


def test_an_author_sees_others_media_read_only_and_cannot_change_it(as_role, client, admin, app, make_account):
    owner = as_role("author")
    other = Browser(client, make_account("second_author", "author"))
    item = rest_upload(client, owner.account, png(), "net.png")
    path = f"/wp-admin/upload.php?item={item['id']}"
    page = other.get(path)
    assert page.status_code == 200
    assert "<h1>Attachment details</h1>" in page.text
    assert 'id="post"' not in page.text and 'id="image-editor"' not in page.text and "delete-attachment" not in page.text
    # A forged save with a nonce of the user's own session: the API refuses it, and says so.
    forged = {"_wpnonce": nonce_for(app, other, f"update-post_{item['id']}"), "action": "editattachment",
              "post_ID": str(item["id"]), "post_title": "Taken", "excerpt": "", "content": ""}
    answer = other.post(path, forged)
    assert answer.status_code == 403 and "Sorry, you are not allowed to edit this post." in answer.text
    rotate = {"_wpnonce": nonce_for(app, other, f"image_editor-{item['id']}"), "action": "image-editor",
              "post_ID": str(item["id"]), "rotate": "90"}
    assert other.post(path, rotate).status_code == 403
    delete = other.get(f"{path}&action=delete&_wpnonce={nonce_for(app, other, 'delete-post_' + str(item['id']))}")
    assert "Sorry, you are not allowed to delete this post." in unescape(other.get(location(delete)).text)
    assert [m["title"]["raw"] for m in media(client, admin)] == ["net"]
    # The list offers nothing on another's item; an editor may edit and delete it.
    listed = other.get("/wp-admin/upload.php?mode=list").text
    assert f'id="cb-select-{item["id"]}"' not in listed and "Delete Permanently" not in listed
    editor = as_role("editor")
    listed = editor.get("/wp-admin/upload.php?mode=list").text
    assert f'id="cb-select-{item["id"]}"' in listed and "Delete Permanently" in listed
    fields = editor.form(path, "post")
    assert location(editor.post(path, {**fields, "post_title": "Fishing net"})).endswith("&message=1")
    assert client.get(f"{MEDIA}/{item['id']}", user=admin).json["title"]["rendered"] == "Fishing net"


# -- deleting -------------------------------------------------------------------------------------


def test_delete_permanently_from_the_row_the_item_and_in_bulk(as_role, client, admin, app):
    author = as_role("author")
    first, second, third, fourth = (rest_upload(client, author.account, png(), f"f{n}.png") for n in range(4))
    keys = set(app.site.storage.keys())
    listed = author.get("/wp-admin/upload.php?mode=list").text
    link = unescape(re.search(rf'href="(/wp-admin/upload\.php\?item={first["id"]}&amp;action=delete&amp;_wpnonce=[^"]+)"',
                              listed).group(1))
    assert author.get(link.replace("_wpnonce=", "_wpnonce=x")).status_code == 403  # a wrong nonce deletes nothing
    assert len(media(client, admin)) == 4
    target = location(author.get(link))
    assert target == "/wp-admin/upload.php?deleted=1"
    assert "Media file permanently deleted." in author.get(target).text
    assert client.get(f"{MEDIA}/{first['id']}", user=admin).status_code == 404
    assert not any(key.endswith("/f0.png") for key in app.site.storage.keys())
    # From the item's own screen.
    page = author.get(f"/wp-admin/upload.php?item={second['id']}").text
    link = unescape(re.search(r'id="delete-attachment" href="([^"]+)"', page).group(1))
    assert location(author.get(link)) == "/wp-admin/upload.php?deleted=1"
    # In bulk, from the grid (the form keeps the view).
    fields = author.form("/wp-admin/upload.php?mode=grid", "posts-filter")
    fields.update({"action": "delete", "media[]": [str(third["id"]), str(fourth["id"])]})
    assert author.post("/wp-admin/upload.php", {**fields, "_wpnonce": "nope"}).status_code == 403
    target = location(author.post("/wp-admin/upload.php", fields))
    assert query_lists(target) == {"mode": ["grid"], "deleted": ["2"]}
    assert "2 media files permanently deleted." in author.get(target).text
    assert media(client, admin) == []
    assert not set(app.site.storage.keys()) & keys


# -- the library ----------------------------------------------------------------------------------


def test_the_library_filters_by_type_month_author_and_words(as_role, client, admin):
    editor = as_role("editor")
    author = as_role("author")
    image = rest_upload(client, editor.account, png(), "lighthouse.png")
    pdf = rest_upload(client, author.account, PDF, "tide-tables.pdf", "application/pdf")
    old = rest_upload(client, editor.account, png(), "old-pier.png")
    client.post(f"{MEDIA}/{old['id']}", user=admin, json={"date": "2024-03-05T10:00:00"})

    def shown(query: str) -> set[int]:
        page = editor.get(f"/wp-admin/upload.php?mode=list&{query}")
        assert page.status_code == 200, page.text[:500]
        return {int(i) for i in re.findall(r'<tr id="post-(\d+)"', page.text)}

    assert shown("") == {image["id"], pdf["id"], old["id"]}
    assert shown("attachment-filter=post_mime_type:image") == {image["id"], old["id"]}
    assert shown("attachment-filter=post_mime_type:application") == {pdf["id"]}
    assert shown("post_mime_type=application/pdf") == {pdf["id"]}
    assert shown("attachment-filter=mine") == {image["id"], old["id"]}
    assert shown(f"author={author.account.id}") == {pdf["id"]}
    assert shown("m=202403") == {old["id"]}
    assert shown("s=lighthouse") == {image["id"]}
    assert shown("attachment-filter=detached") == {image["id"], pdf["id"], old["id"]}
    # The month list has the months with media, newest first, and none between them.
    page = editor.get("/wp-admin/upload.php?mode=list&m=202403").text
    months = re.findall(r'<option value="(\d{6})"( selected)?>([^<]+)</option>', page)
    now = image["date"][:7].replace("-", "")
    assert [value for value, _, _ in months] == [now, "202403"]
    assert ("202403", " selected", "March 2024") in months
    # The search and the chosen filters stay in the form, escaped.
    page = editor.get('/wp-admin/upload.php?mode=list&s="><script>x</script>').text
    assert "<script>x</script>" not in page and 'value="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in page


def test_grid_and_list_views_and_the_remembered_choice(as_role, client, admin):
    author = as_role("author")
    item = rest_upload(client, author.account, png(), "buoy.png")
    # An administrator may store markup in a title (unfiltered_html): every screen shows it as text.
    client.post(f"{MEDIA}/{item['id']}", user=admin, json={"title": "<b>Buoy</b> & <script>alert(1)</script>"})
    grid = author.get("/wp-admin/upload.php").text  # grid by default, as WordPress
    assert 'class="attachments"' in grid and 'aria-current="page">Grid view' in grid
    assert f'<a class="attachment-preview" href="/wp-admin/upload.php?item={item["id"]}">' in grid
    thumb = re.search(rf'id="post-{item["id"]}".*?<img src="([^"]+)" alt=""', grid, re.S).group(1)
    assert thumb.endswith(".png")
    assert "<script>alert(1)</script>" not in grid
    assert '<span class="attachment-title">Buoy &amp; alert(1)</span>' in grid
    listed = author.get("/wp-admin/upload.php?mode=list").text
    assert '<table class="wp-list-table widefat striped media">' in listed
    assert "<script>alert(1)</script>" not in listed
    for column in ("File", "Author", "Uploaded to", "Date"):
        assert f">{column}</a></th>" in listed
    assert "(Unattached)" in listed and "Download file" in listed
    again = author.get("/wp-admin/upload.php").text  # the last view chosen is kept
    assert '<table class="wp-list-table' in again
    item_page = author.get(f"/wp-admin/upload.php?item={item['id']}").text
    assert "<script>alert(1)</script>" not in item_page
    assert 'name="post_title" value="&lt;b&gt;Buoy&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt;"' in item_page


def test_paging_sorting_and_items_per_page(as_role, client):
    author = as_role("author")
    ids = [rest_upload(client, author.account, png(), name)["id"] for name in ("alpha.png", "charlie.png", "bravo.png")]
    screen = {"_wpnonce": re.search(r'name="_wpnonce" value="([^"]+)">\s*<input type="hidden" name="screen_options"',
                                    author.get("/wp-admin/upload.php").text).group(1),
              "screen_options": "1", "per_page": "2", "mode": "list"}
    assert location(author.post("/wp-admin/upload.php", screen)) == "/wp-admin/upload.php?mode=list"
    first = author.get("/wp-admin/upload.php?mode=list&orderby=title&order=asc").text
    assert re.findall(r'<tr id="post-(\d+)"', first) == [str(ids[0]), str(ids[2])]
    assert "Page 1 of 2" in first and 'rel="next"' in first
    second = author.get("/wp-admin/upload.php?mode=list&orderby=title&order=asc&paged=2").text
    assert re.findall(r'<tr id="post-(\d+)"', second) == [str(ids[1])]
    assert location(author.get("/wp-admin/upload.php?mode=list&paged=9")) == "/wp-admin/upload.php?mode=list"


def test_a_missing_item_is_wordpress_s_message(as_role):
    answer = as_role("editor").get("/wp-admin/upload.php?item=987654")
    assert answer.status_code == 404
    assert "You attempted to edit an item that does not exist. Perhaps it was deleted?" in answer.text


@pytest.mark.parametrize("path", ["/wp-admin/upload.php", "/wp-admin/upload.php?mode=list", "/wp-admin/media-new.php"])
def test_every_media_field_has_a_visible_label(as_role, client, path):
    author = as_role("author")
    item = rest_upload(client, author.account, png(), "label.png")
    for page in (author.get(path).text, author.get(f"/wp-admin/upload.php?item={item['id']}").text):
        for tag in re.findall(r"<(?:input|select|textarea)\b[^>]*>", page):
            if re.search(r'type="(?:hidden|submit|button)"', tag) or 'name="media[]"' in tag or 'id="cb-select-all"' in tag:
                continue
            if re.search(r'type="(?:radio|checkbox)"', tag):
                continue  # inside their <label>
            field = re.search(r'id="([^"]+)"', tag)
            assert field, tag
            label = re.search(rf'<label for="{re.escape(field.group(1))}"( class="[^"]*")?>', page)
            assert label and "screen-reader-text" not in (label.group(1) or ""), tag
