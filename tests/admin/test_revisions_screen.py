"""The revisions screen (``revision.php``) through the app in process on both databases: two states of
an item side by side with the changed words of the title, content and excerpt marked; any two chosen
in the plain GET form; "Restore This Revision" through the REST API with a nonce; who may see and
restore what exactly as the API decides; no id, however odd, answered with a 5xx. Every change is
read back through the REST API."""

from __future__ import annotations

import re
from html import unescape

import falcon
import falcon.testing
from admin_support import fields_of, location, query_of
from cal_support import make_event

from calpress.admin.revisions import RevisionScreen, text_diff
from calpress.admin.shell import AdminRequest
from calpress.admin.writing import restored_notice, revisions_link

SCREEN = "/wp-admin/revision.php"
EXPIRED = "The link you followed has expired."
NOT_ALLOWED = "Sorry, you are not allowed to access this page."
INVALID = "Invalid revision."


def make_post(client, user, route: str = "/cms/v2/posts", **fields) -> dict:
    answer = client.post(route, user=user, json={"status": "publish", **fields})
    assert answer.status_code == 201, answer.json
    return answer.json


def update(client, user, item: dict, route: str = "/cms/v2/posts", **fields) -> None:
    answer = client.post(f"{route}/{item['id']}", user=user, json=fields)
    assert answer.status_code == 200, answer.json


def revision_ids(client, user, item: dict, route: str = "/cms/v2/posts") -> list[int]:
    """The item's revisions through the API, oldest first."""
    answer = client.get(f"{route}/{item['id']}/revisions", user=user, params={"_fields": "id"})
    assert answer.status_code == 200, answer.json
    return [found["id"] for found in reversed(answer.json)]


def edited_twice(client, user) -> tuple[dict, list[int]]:
    """A post updated twice: its first revision holds the first update, its second the current state."""
    post = make_post(client, user, title="Spring concert", content="Doors open at six.\nBring a chair.",
                     excerpt="An evening of music.")
    update(client, user, post, title="Spring concert in the park", content="Doors open at seven.\nBring a chair.",
           excerpt="An evening of songs.")
    update(client, user, post, title="Summer concert in the park",
           content="Doors open at seven.\nBring a blanket.\nFree entry.", excerpt="A night of songs.")
    ids = revision_ids(client, user, post)
    assert len(ids) == 2
    return post, ids


def section(html: str, name: str) -> str:
    start = html.index(f'id="diff-{name}"')
    return html[start:html.index("</section>", start)]


def marks(html: str, tag: str) -> list[str]:
    return [unescape(found) for found in re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)]


def options(html: str, select_id: str) -> dict[str, str]:
    """value -> label of a select's options."""
    start = html.index(f'id="{select_id}"')
    body = html[start:html.index("</select>", start)]
    return {value: unescape(label) for value, label in re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', body)}


def admin_request(app, browser, query: str = "") -> AdminRequest:
    """The request a screen gets, for the helpers the item editor calls (as ``browser``'s user)."""
    user, session = app.authenticator.session_user(browser.cookie["Cookie"].split("=", 1)[1])
    assert user is not None
    req = falcon.testing.create_req(path="/wp-admin/post.php", query_string=query)
    return AdminRequest(app, req, falcon.Response(), user, session, RevisionScreen(), "http://example.test")


# -- the comparison -------------------------------------------------------------------------------


def test_a_revision_is_compared_with_the_one_before_it(as_role, client, accounts):
    editor = as_role("editor")
    post, (first, second) = edited_twice(client, accounts["editor"])
    page = editor.get(f"{SCREEN}?revision={second}")
    assert page.status_code == 200, page.text[:500]
    html = page.text
    assert "<h1>Compare Revisions of “Summer concert in the park”</h1>" in html
    assert f'href="/wp-admin/post.php?post={post["id"]}&amp;action=edit"' in html  # back to the editor
    title = section(html, "title")
    assert marks(title, "del") == ["Spring"] and marks(title, "ins") == ["Summer"]
    content = section(html, "content")
    assert marks(content, "del") == ["chair"] and marks(content, "ins") == ["blanket", "Free entry."]
    assert '<td class="diff-context">Doors open at seven.</td>' in content  # the unchanged line, on both sides
    assert content.count('class="diff-deletedline"') == 1 and content.count('class="diff-addedline"') == 2
    excerpt = section(html, "excerpt")
    assert marks(excerpt, "del") == ["An evening"] and marks(excerpt, "ins") == ["A night"]
    # The newest revision is the current one: nothing to restore.
    assert 'id="restore-revision"' not in html
    labels = options(html, "compare-to")
    assert labels[str(second)].endswith("[Current Revision]") and "Revision by editor" in labels[str(second)]
    assert "[Current Revision]" not in labels[str(first)]
    chosen = fields_of(html, "compare-revisions")
    assert (chosen["from"], chosen["to"]) == (str(first), str(second))
    assert "post-type-post" in html


def test_the_first_revision_is_compared_with_nothing_and_may_be_restored(as_role, client, accounts):
    editor = as_role("editor")
    _, (first, _second) = edited_twice(client, accounts["editor"])
    html = editor.get(f"{SCREEN}?revision={first}").text
    assert "Nothing (the first revision)" in html
    assert marks(section(html, "title"), "ins") == ["Spring concert in the park"] and "<del>" not in html
    assert fields_of(html, "compare-revisions")["from"] == ""
    assert 'id="restore-revision"' in html and "Restore This Revision</button>" in html


def test_any_two_revisions_are_compared_through_the_get_form(as_role, client, accounts):
    editor = as_role("editor")
    post, (first, second) = edited_twice(client, accounts["editor"])
    update(client, accounts["editor"], post, title="Autumn concert in the park")
    third = revision_ids(client, accounts["editor"], post)[-1]
    html = editor.get(f"{SCREEN}?from={first}&to={third}").text
    assert marks(section(html, "title"), "del") == ["Spring"] and marks(section(html, "title"), "ins") == ["Autumn"]
    assert marks(section(html, "content"), "ins") == ["blanket", "Free entry."]
    chosen = fields_of(html, "compare-revisions")
    assert (chosen["from"], chosen["to"]) == (str(first), str(third))
    assert set(options(html, "compare-from")) == {"", str(first), str(second), str(third)}
    # Backwards, and with revision= too: the older one on the right, restorable.
    html = editor.get(f"{SCREEN}?revision={second}&from={third}&to={first}").text
    assert marks(section(html, "title"), "del") == ["Autumn"] and marks(section(html, "title"), "ins") == ["Spring"]
    assert fields_of(html, "restore-revision")["revision"] == str(first)
    # to= alone: against the one before it.
    html = editor.get(f"{SCREEN}?to={second}").text
    assert marks(section(html, "title"), "ins") == ["Summer"]
    # The same revision on both sides: every field unchanged.
    html = editor.get(f"{SCREEN}?from={second}&to={second}").text
    assert "<del>" not in html and "<ins>" not in html and 'class="diff-unchanged"' in html


def test_the_diff_pairs_changed_lines_and_marks_words():
    rows = text_diff("one\ntwo three four\nfive", "one\nzero\ntwo three FOUR\nfive")
    assert [row.kind for row in rows] == ["context", "added", "changed", "context"]
    changed = rows[2]
    assert str(changed.left) == "two three <del>four</del>" and str(changed.right) == "two three <ins>FOUR</ins>"
    assert text_diff("same  text\r\n", "same text") is None  # whitespace alone is no change, as in WordPress
    escaped = text_diff("<b>bold</b> & more", "<b>bolder</b> & more")
    assert str(escaped[0].left) == "&lt;b&gt;<del>bold</del>&lt;/b&gt; &amp; more"
    whole = text_diff("a\nb", "")
    assert [(row.kind, str(row.left)) for row in whole] == [("deleted", "<del>a</del>"), ("deleted", "<del>b</del>")]
    phrase = text_diff("the quick brown fox", "the slow red fox")[0]
    assert str(phrase.left) == "the <del>quick brown</del> fox" and str(phrase.right) == "the <ins>slow red</ins> fox"


def test_markup_in_revisions_is_shown_as_text(as_role, client, accounts):
    admin = accounts["administrator"]
    post = make_post(client, admin, title="Plain", content="<p>Hello</p>")
    update(client, admin, post, title="Plain <em>x</em>", content='<p>Hello <script>alert("x")</script></p>')
    update(client, admin, post, content="<p>Hello world</p>")
    html = as_role("editor").get(f"{SCREEN}?revision={revision_ids(client, admin, post)[-1]}").text
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    assert "<h1>Compare Revisions of “Plain &lt;em&gt;x&lt;/em&gt;”</h1>" in html and "<em>x</em>" not in html


# -- restoring ------------------------------------------------------------------------------------


def test_restoring_a_revision_updates_the_item_and_stores_a_revision(app, as_role, client, accounts):
    editor = as_role("editor")
    post, (first, second) = edited_twice(client, accounts["editor"])
    form = fields_of(editor.get(f"{SCREEN}?revision={first}").text, "restore-revision")
    target = location(editor.post(SCREEN, form))
    assert target == f"/wp-admin/post.php?post={post['id']}&action=edit&message=5&revision={first}"
    restored = client.get(f"/cms/v2/posts/{post['id']}", user=accounts["editor"], params={"context": "edit"}).json
    assert (restored["title"]["raw"], restored["content"]["raw"], restored["excerpt"]["raw"]) == \
        ("Spring concert in the park", "Doors open at seven.\nBring a chair.", "An evening of songs.")
    assert restored["status"] == "publish"
    ids = revision_ids(client, accounts["editor"], post)
    assert ids[:2] == [first, second] and len(ids) == 3
    newest = client.get(f"/cms/v2/posts/{post['id']}/revisions/{ids[-1]}", user=accounts["editor"],
                        params={"context": "edit"}).json
    assert newest["title"]["raw"] == "Spring concert in the park"
    # The new revision is the current one now; the one restored is not.
    html = editor.get(f"{SCREEN}?revision={ids[-1]}").text
    assert options(html, "compare-to")[str(ids[-1])].endswith("[Current Revision]")
    assert marks(section(html, "content"), "ins") == ["chair"]  # against the one before it
    same = editor.get(f"{SCREEN}?from={first}&to={ids[-1]}").text  # against the one it came from
    assert "<del>" not in same and "<ins>" not in same
    # The editor's notice (the editor calls restored_notice with the redirect's query).
    notice = restored_notice(admin_request(app, editor, target.split("?", 1)[1]), "post", post["id"])
    assert notice is not None and re.fullmatch(r"Post restored to revision from \w+ \d{1,2}, \d{4} @ \d\d:\d\d:\d\d\.", notice)
    assert restored_notice(admin_request(app, editor, f"post={post['id']}&message=1"), "post", post["id"]) is None
    assert restored_notice(admin_request(app, editor, "message=5&revision=abc"), "post", post["id"]) is None


def test_an_event_revision_is_restored(as_role, client, accounts):
    editor_account = accounts["editor"]
    event = make_event(client, editor_account, "Choir night", description="Songs from the hills.")
    route = "/cms/v2/cal_events"
    update(client, editor_account, event, route, title="Choir night", content="Songs from the valleys.")
    update(client, editor_account, event, route, title="Choir evening", content="Songs from the sea.")
    first, second = revision_ids(client, editor_account, event, route)[-2:]
    editor = as_role("editor")
    html = editor.get(f"{SCREEN}?revision={second}").text
    assert marks(section(html, "content"), "del") == ["valleys"] and marks(section(html, "content"), "ins") == ["sea"]
    assert "post-type-cal_events" in html
    form = fields_of(editor.get(f"{SCREEN}?revision={first}").text, "restore-revision")
    target = location(editor.post(SCREEN, form))
    assert query_of(target) == {"post": str(event["id"]), "action": "edit", "message": "5", "revision": str(first)}
    found = client.get(f"{route}/{event['id']}", user=editor_account, params={"context": "edit"}).json
    assert (found["title"]["raw"], found["content"]["raw"]) == ("Choir night", "Songs from the valleys.")
    assert client.get(f"/cal/events/v1/events/{event['id']}").json["start_date"] == event["start_date"]


def test_restore_needs_its_nonce(as_role, client, accounts):
    editor = as_role("editor")
    post, (first, second) = edited_twice(client, accounts["editor"])
    form = fields_of(editor.get(f"{SCREEN}?revision={first}").text, "restore-revision")
    assert "_wpnonce" not in fields_of(editor.get(f"{SCREEN}?from={second}&to={first}").text, "compare-revisions")
    for nonce in ("", "0123456789", "deadbeef00"):
        answer = editor.post(SCREEN, {**form, "_wpnonce": nonce})
        assert answer.status_code == 403 and EXPIRED in answer.text
    # A nonce for another revision does not restore this one.
    update(client, accounts["editor"], post, title="Winter concert")
    third_form = fields_of(editor.get(f"{SCREEN}?revision={second}").text, "restore-revision")
    answer = editor.post(SCREEN, {**form, "_wpnonce": third_form["_wpnonce"]})
    assert answer.status_code == 403 and EXPIRED in answer.text
    assert editor.post(SCREEN, {**form, "action": "delete"}).status_code == 400
    assert client.get(f"/cms/v2/posts/{post['id']}", params={"context": "edit"}, user=accounts["editor"]).json[
        "title"]["raw"] == "Winter concert"


# -- who may --------------------------------------------------------------------------------------


def test_who_may_see_and_restore_whose_revisions(app, as_role, client, accounts):
    post, (first, _second) = edited_twice(client, accounts["editor"])
    for role in ("subscriber", "contributor", "author"):
        browser = as_role(role)
        answer = browser.get(f"{SCREEN}?revision={first}")
        assert answer.status_code == 403 and NOT_ALLOWED in answer.text and "Spring" not in answer.text, role
        # Their own nonce for the action, on someone else's item: the API refuses the update.
        nonce = admin_request(app, browser).nonce(f"restore-post_{first}")
        answer = browser.post(SCREEN, {"action": "restore", "revision": first, "_wpnonce": nonce})
        assert answer.status_code == 403 and "Spring" not in answer.text, role
    assert client.get(f"/cms/v2/posts/{post['id']}").json["title"]["rendered"] == "Summer concert in the park"
    # An author sees and restores the revisions of their own post.
    author_post, (own_first, _) = edited_twice(client, accounts["author"])
    author = as_role("author")
    assert author.get(f"{SCREEN}?revision={own_first}").status_code == 200
    location(author.post(SCREEN, fields_of(author.get(f"{SCREEN}?revision={own_first}").text, "restore-revision")))
    assert client.get(f"/cms/v2/posts/{author_post['id']}").json["title"]["rendered"] == "Spring concert in the park"
    # A contributor sees the revisions of their own draft.
    draft = make_post(client, accounts["contributor"], title="Draft one", status="draft")
    update(client, accounts["contributor"], draft, title="Draft two")
    only = revision_ids(client, accounts["contributor"], draft)[-1]
    assert as_role("contributor").get(f"{SCREEN}?revision={only}").status_code == 200


# -- the item editor's helpers --------------------------------------------------------------------


def test_revisions_link_counts_and_names_the_newest(app, as_role, client, accounts):
    editor = as_role("editor")
    post, (_first, second) = edited_twice(client, accounts["editor"])
    assert revisions_link(admin_request(app, editor), "post", post["id"]) == (2, f"/wp-admin/revision.php?revision={second}")
    fresh = make_post(client, accounts["editor"], title="Never updated")
    assert revisions_link(admin_request(app, editor), "post", fresh["id"]) is None
    assert revisions_link(admin_request(app, as_role("contributor")), "post", post["id"]) is None
    assert revisions_link(admin_request(app, editor), "nothing", post["id"]) is None
    assert revisions_link(admin_request(app, editor), "page", post["id"]) is None  # not a page


def test_autosaves_and_an_item_newer_than_its_revisions(as_role, client, accounts):
    editor_account, author_account = accounts["editor"], accounts["author"]
    post, (first, second) = edited_twice(client, author_account)
    # Someone else's autosave of a published post: a revision of its own, marked, restorable.
    saved = client.post(f"/cms/v2/posts/{post['id']}/autosaves", user=editor_account,
                        json={"title": "Summer concert in the park", "content": "Doors open at eight.",
                              "excerpt": "A night of songs."})
    assert saved.status_code == 200, saved.json
    editor = as_role("editor")
    html = editor.get(f"{SCREEN}?revision={saved.json['id']}").text
    assert options(html, "compare-to")[str(saved.json["id"])].startswith("Autosave by editor")
    assert options(html, "compare-to")[str(saved.json["id"])].endswith("[Autosave]")
    assert "Restore This Autosave</button>" in html
    assert marks(section(html, "content"), "ins") == ["eight"]
    assert marks(section(html, "content"), "del") == ["seven", "Bring a blanket.", "Free entry."]
    # The author's own draft autosaved: the draft changes without a revision, so the item itself
    # is offered as the current state.
    draft = make_post(client, author_account, title="Draft", content="First words.", status="draft")
    update(client, author_account, draft, content="Second words.")
    only = revision_ids(client, author_account, draft)[-1]
    saved = client.post(f"/cms/v2/posts/{draft['id']}/autosaves", user=author_account, json={"content": "Third words."})
    assert saved.status_code == 200 and saved.json["id"] == draft["id"]
    author = as_role("author")
    html = author.get(f"{SCREEN}?revision={only}").text
    labels = options(html, "compare-to")
    assert labels[str(draft["id"])].endswith("[Current Revision]") and "[Current" not in labels[str(only)]
    assert 'id="restore-revision"' in html  # the stored revision is not the current state
    html = author.get(f"{SCREEN}?from={only}&to={draft['id']}").text
    assert marks(section(html, "content"), "del") == ["Second"] and marks(section(html, "content"), "ins") == ["Third"]
    assert 'id="restore-revision"' not in html


# -- odd requests ---------------------------------------------------------------------------------


def test_ids_that_are_no_revision_of_the_item(as_role, client, accounts):
    editor = as_role("editor")
    post, (first, second) = edited_twice(client, accounts["editor"])
    other, (other_first, _) = edited_twice(client, accounts["editor"])
    for query in ("", "revision=0", "revision=abc", "revision=-3", "revision=99999999999999999999", f"revision={post['id']}",
                  "revision=999999", "revision=1", f"from={first}&to={other_first}", f"revision={first}&from={other_first}",
                  f"from={post['id']}&to={other['id']}", f"to={post['id']}", "from=abc&to=abc"):
        answer = editor.get(f"{SCREEN}?{query}")
        assert answer.status_code == 404 and INVALID in answer.text, (query, answer.status_code, answer.text[:300])
    # The item itself names its current state only when no revision holds it.
    assert editor.get(f"{SCREEN}?from={first}&to={post['id']}").status_code == 404
    assert editor.get(f"{SCREEN}?from={first}&to={second}&revision=abc").status_code == 200


def test_junk_in_every_parameter_and_field_never_fails(as_role, client, accounts):
    post, (first, _second) = edited_twice(client, accounts["editor"])
    browser = as_role("administrator")
    junk = ["", "-1", "0", "abc", "99999999999999999999", "<script>x</script>", str(post["id"]), "1e3", "[]"]
    for name in ("revision", "from", "to", "action", "message"):
        for value in junk:
            answer = browser.http.simulate_get(SCREEN, params={"revision": first, name: value}, headers=browser.cookie)
            assert answer.status_code < 500 and "Traceback" not in answer.text, (name, value, answer.text[:300])
            answer = browser.http.simulate_get(SCREEN, params={name: value}, headers=browser.cookie)
            assert answer.status_code < 500, (name, value)
    form = fields_of(browser.get(f"{SCREEN}?revision={first}").text, "restore-revision")
    for name in form:
        for value in junk:
            answer = browser.post(SCREEN, {**form, name: value})
            assert answer.status_code < 500 and "Traceback" not in answer.text, (name, value, answer.text[:300])
    assert browser.post(SCREEN, {}).status_code in (400, 403)
