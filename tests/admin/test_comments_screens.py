"""The comment moderation screens (edit-comments.php, comment.php) through the app in process on
both databases: status links counted as WordPress counts them, every row and bulk action (with
its nonce, its notice and its "Undo"), the editor and the reply form, search, one item's
comments, pages; who may do what exactly as the API decides; every change read back through the
REST API; junk in every parameter and field answered without a 5xx."""

from __future__ import annotations

import re
from html import unescape

from admin_support import fields_of, location, query_of

LIST = "/wp-admin/edit-comments.php"
ONE = "/wp-admin/comment.php"
EXPIRED = "The link you followed has expired."
BADGE = '<span class="awaiting-mod"><span class="pending-count">{}</span></span>'


def publish(client, user, title: str, **extra) -> int:
    answer = client.post("/cms/v2/posts", user=user, json={"title": title, "status": "publish", **extra})
    assert answer.status_code == 201, answer.text
    return answer.json["id"]


def comment(client, user, post: int, content: str, status: str | None = None, **extra) -> int:
    body = {"post": post, "content": content, **extra}
    if status:
        body["status"] = status
    answer = client.post("/cms/v2/comments", user=user, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json["id"]


def stored(client, admin, comment_id: int) -> dict | int:
    """The comment as the API has it now (its HTTP status when it is gone)."""
    answer = client.get(f"/cms/v2/comments/{comment_id}", user=admin, params={"context": "edit"})
    return answer.json if answer.status_code == 200 else answer.status_code


def status_of(client, admin, comment_id: int) -> str | int:
    found = stored(client, admin, comment_id)
    return found["status"] if isinstance(found, dict) else found


def counts(html: str) -> dict[str, int]:
    """The status links' counts, by view."""
    return {key: int(n) for key, n in re.findall(
        r'<li class="(\w+)"><a [^>]*>[^<]*<span class="count">\(<span class="[\w-]+">(\d+)</span>', html)}


def row(html: str, comment_id: int) -> str:
    start = html.index(f'<tr id="comment-{comment_id}"')
    return html[start:html.index("</tr>", start)]


def listed(html: str) -> list[int]:
    return [int(found) for found in re.findall(r'<tr id="comment-(\d+)"', html)]


def actions(html: str, comment_id: int) -> dict[str, str]:
    """A row's actions: css class -> address."""
    return {cls: unescape(href) for cls, href in re.findall(r'<span class="(\w+)"><a href="([^"]+)"', row(html, comment_id))}


def notices(html: str) -> list[str]:
    return [unescape(re.sub(r"<[^>]+>", "", text)).strip() for text in re.findall(r'<div class="notice[^"]*"[^>]*>\s*<p>(.*?)</p>', html, re.S)]


def bulk(browser, path: str, action: str, ids: list[int], **extra):
    form = browser.form(path, "comments-form")
    form.update({"action": action, "delete_comments[]": [str(i) for i in ids], **extra})
    return browser.post(LIST, form)


def follow(browser, answer) -> str:
    page = browser.get(location(answer))
    assert page.status_code == 200, page.text[:500]
    return page.text


# -- who may ------------------------------------------------------------------------------------


def test_who_may_open_the_comment_screens(as_role, client, admin):
    post = publish(client, admin, "Open house")
    held = comment(client, admin, post, "Held for review", status="hold")
    subscriber = as_role("subscriber")
    for path in (LIST, f"{ONE}?action=editcomment&c={held}"):
        answer = subscriber.get(path)
        assert answer.status_code == 403 and "Sorry, you are not allowed to edit comments." in answer.text
    assert 'href="/wp-admin/edit-comments.php"' not in subscriber.get("/wp-admin/").text
    for role in ("contributor", "author", "editor", "administrator"):
        assert as_role(role).get(LIST).status_code == 200, role
    anonymous = client.http.simulate_get(LIST)
    assert anonymous.status_code == 302 and anonymous.headers["location"].startswith("/wp-login.php?redirect_to=")
    # The editor lights "Comments" in the menu, and the pending count sits beside it for those who moderate.
    editor_page = as_role("editor").get(f"{ONE}?action=editcomment&c={held}").text
    assert 'aria-current="page">Comments ' + BADGE.format(1) in editor_page
    assert BADGE.format(1) in as_role("administrator").get("/wp-admin/").text
    for role in ("author", "contributor"):
        page = as_role(role).get("/wp-admin/").text
        assert 'href="/wp-admin/edit-comments.php">Comments</a>' in page and "awaiting-mod" not in page


def test_the_menu_count_follows_moderation(as_role, client, admin):
    post = publish(client, admin, "Counted")
    first = comment(client, admin, post, "first held", status="hold")
    comment(client, admin, post, "second held", status="hold")
    comment(client, admin, post, "spam is not counted", status="spam")
    editor = as_role("editor")
    assert BADGE.format(2) in editor.get(LIST).text
    client.post(f"/cms/v2/comments/{first}", user=admin, json={"status": "approved"})
    assert BADGE.format(1) in editor.get(LIST).text
    client.delete(f"/cms/v2/comments/{first + 1}", user=admin)
    assert "awaiting-mod" not in editor.get(LIST).text


# -- the list -----------------------------------------------------------------------------------


def test_status_links_count_each_status_as_wordpress_and_each_view_lists_them(as_role, client, admin, accounts):
    first, second = publish(client, admin, "First"), publish(client, admin, "Second")
    comment(client, admin, first, "approved one")  # an administrator's comment: approved by the API
    comment(client, admin, first, "approved two")
    held = comment(client, admin, first, "held one", status="hold")
    spam = comment(client, admin, second, "buy things", status="spam")
    trashed = comment(client, admin, second, "to the bin")
    assert client.delete(f"/cms/v2/comments/{trashed}", user=admin).status_code == 200
    mine = comment(client, accounts["editor"], second, "the editor's own")
    editor = as_role("editor")
    page = editor.get(LIST).text
    # All is approved and pending (not spam, not trash); Mine the user's approved and pending.
    assert counts(page) == {"all": 4, "mine": 1, "moderated": 1, "approved": 3, "spam": 1, "trash": 1}
    assert 'class="current" aria-current="page">All' in page and "4 items" in page
    expected = {"mine": [mine], "moderated": [held], "spam": [spam], "trash": [trashed]}
    for view, ids in expected.items():
        shown = editor.get(f"{LIST}?comment_status={view}").text
        assert listed(shown) == ids, view
        assert f'aria-current="page">{ {"mine": "Mine", "moderated": "Pending", "spam": "Spam", "trash": "Trash"}[view]}' in shown
    assert len(listed(editor.get(f"{LIST}?comment_status=approved").text)) == 3
    # One item's comments: its counts, its title.
    one = editor.get(f"{LIST}?p={first}").text
    assert counts(one) == {"all": 3, "mine": 0, "moderated": 1, "approved": 2, "spam": 0, "trash": 0}
    assert "<h1>Comments on “First”</h1>" in one and len(listed(one)) == 3
    # The row: author details for moderators, the item's approved and pending counts.
    held_row = row(page, held)
    assert 'href="mailto:administrator@example.test"' in held_row and "127.0.0.1" in held_row
    assert f'href="/wp-admin/post.php?post={first}&amp;action=edit"' in held_row and ">First</a>" in held_row
    assert '<span class="screen-reader-text">2 approved comments</span>' in held_row
    assert '<span class="screen-reader-text">1 pending comment</span>' in held_row
    assert "<p>held one</p>" in held_row and "Pending" in held_row


def test_search_one_item_and_pages(as_role, client, admin):
    post = publish(client, admin, "Busy")
    other = publish(client, admin, "Quiet")
    ids = [comment(client, admin, post, f"comment number {n}") for n in range(5)]
    needle = comment(client, admin, other, "a needle in the haystack")
    editor = as_role("editor")
    found = editor.get(f"{LIST}?s=needle").text
    assert listed(found) == [needle] and "Search results for: <strong>needle</strong>" in found and "1 item" in found
    assert sorted(listed(editor.get(f"{LIST}?p={post}").text)) == sorted(ids)
    # Screen Options: two a page.
    page = editor.get(LIST).text
    form = fields_of(page[page.index('<details class="screen-options">'):])
    assert form["per_page"] == "20" and form["screen_options"] == "1"
    form["per_page"] = "2"
    assert location(editor.post(LIST, form)) == LIST
    first = editor.get(LIST).text
    assert "6 items" in first and "Page 1 of 3" in first and len(listed(first)) == 2
    second = editor.get(f"{LIST}?paged=2").text
    assert len(listed(second)) == 2 and not set(listed(first)) & set(listed(second))
    assert 'href="/wp-admin/edit-comments.php?paged=3" rel="next"' in second
    # Past the last page: the first.
    assert location(editor.get(f"{LIST}?paged=40")) == LIST
    # Oldest first by date, and by item.
    ascending = editor.get(f"{LIST}?orderby=comment_date&order=asc").text
    assert listed(ascending) == ids[:2]


# -- row actions --------------------------------------------------------------------------------


def test_each_row_action_changes_the_comment_and_goes_back_with_a_notice(as_role, client, admin):
    post = publish(client, admin, "Moderated")
    held = comment(client, admin, post, "please approve me", status="hold")
    editor = as_role("editor")
    page = editor.get(f"{LIST}?comment_status=moderated").text
    links = actions(page, held)
    assert list(links) == ["approve", "reply", "quickedit", "edit", "spam", "trash"]
    # Back to the view the user came from (its Referer), an earlier change's notice dropped.
    came_from = "http://example.test/wp-admin/edit-comments.php?comment_status=moderated&paged=1&trashed=4&ids=9"
    answer = editor.http.simulate_get(links["approve"], headers={**editor.cookie, "Referer": came_from})
    target = location(answer)
    assert query_of(target) == {"comment_status": "moderated", "paged": "1", "approved": "1"}
    assert status_of(client, admin, held) == "approved"
    assert "1 comment approved." in notices(follow(editor, answer))

    def act(action: str) -> list[str]:
        links = actions(editor.get(LIST + "?comment_status=" + view).text, held)
        answer = editor.get(links[action])
        assert location(answer).startswith(LIST)  # no Referer: the whole list
        return notices(follow(editor, answer))

    view = "all"
    assert act("unapprove") == ["1 comment unapproved."] and status_of(client, admin, held) == "hold"
    assert act("spam") == ["1 comment marked as spam. Undo"] and status_of(client, admin, held) == "spam"
    view = "spam"
    assert list(actions(editor.get(f"{LIST}?comment_status=spam").text, held)) == ["unspam", "delete"]
    assert act("unspam") == ["1 comment restored from the spam."] and status_of(client, admin, held) == "hold"
    view = "all"
    assert act("trash") == ["1 comment moved to the Trash. Undo"] and status_of(client, admin, held) == "trash"
    view = "trash"
    assert list(actions(editor.get(f"{LIST}?comment_status=trash").text, held)) == ["untrash", "delete"]
    assert act("untrash") == ["1 comment restored from the Trash."] and status_of(client, admin, held) == "hold"
    client.delete(f"/cms/v2/comments/{held}", user=admin)
    assert act("delete") == ["1 comment permanently deleted."] and status_of(client, admin, held) == 404


def test_undo_after_spam_and_trash(as_role, client, admin):
    post = publish(client, admin, "Undone")
    ids = [comment(client, admin, post, f"keep me {n}") for n in range(2)]
    editor = as_role("editor")
    page = follow(editor, bulk(editor, LIST, "spam", ids))
    assert "2 comments marked as spam. Undo" in notices(page)
    undo = unescape(re.search(r'<a href="([^"]+)">Undo</a>', page).group(1))
    assert query_of(undo)["ids"] == f"{ids[0]},{ids[1]}" and query_of(undo)["action"] == "unspam"
    assert "2 comments restored from the spam." in notices(follow(editor, editor.get(undo)))
    assert [status_of(client, admin, i) for i in ids] == ["approved", "approved"]
    page = follow(editor, bulk(editor, LIST, "trash", ids[:1]))
    undo = unescape(re.search(r'<a href="([^"]+)">Undo</a>', page).group(1))
    assert "1 comment restored from the Trash." in notices(follow(editor, editor.get(undo)))
    assert status_of(client, admin, ids[0]) == "approved"
    # Undo's link carries the nonce: another's is refused.
    forged = undo.replace(query_of(undo)["_wpnonce"], "0123456789")
    assert editor.get(forged).status_code == 403


def test_each_bulk_action_changes_the_comments(as_role, client, admin):
    post = publish(client, admin, "In bulk")
    ids = [comment(client, admin, post, f"bulk {n}", status="hold") for n in range(3)]
    editor = as_role("editor")
    steps = [("approve", LIST, "3 comments approved.", "approved"), ("unapprove", LIST, "3 comments unapproved.", "hold"),
             ("spam", LIST, "3 comments marked as spam. Undo", "spam"),
             ("unspam", f"{LIST}?comment_status=spam", "3 comments restored from the spam.", "hold"),
             ("trash", LIST, "3 comments moved to the Trash. Undo", "trash"),
             ("untrash", f"{LIST}?comment_status=trash", "3 comments restored from the Trash.", "hold")]
    for action, path, notice, status in steps:
        answer = bulk(editor, path, action, ids)
        assert notice in notices(follow(editor, answer)), action
        assert [status_of(client, admin, i) for i in ids] == [status] * 3, action
    # The views offer WordPress's bulk actions; the Trash and Spam delete for good.
    bulk(editor, LIST, "trash", ids)
    trash_page = editor.get(f"{LIST}?comment_status=trash").text
    assert '<option value="untrash">Restore</option>' in trash_page and '<option value="trash">' not in trash_page
    assert '<option value="delete">Delete permanently</option>' in trash_page
    answer = bulk(editor, f"{LIST}?comment_status=trash", "delete", ids[:2])
    assert query_of(location(answer))["comment_status"] == "trash"
    assert "2 comments permanently deleted." in notices(follow(editor, answer))
    assert [status_of(client, admin, i) for i in ids] == [404, 404, "trash"]
    # "Empty Trash": every comment of the view.
    form = editor.form(f"{LIST}?comment_status=trash", "comments-form")
    assert 'id="delete_all"' in editor.get(f"{LIST}?comment_status=trash").text
    answer = editor.post(LIST, {**form, "delete_all": "1"})
    assert "1 comment permanently deleted." in notices(follow(editor, answer))
    assert status_of(client, admin, ids[2]) == 404
    # No action, or nothing chosen: back to the list, nothing changed.
    kept = comment(client, admin, post, "untouched", status="hold")
    assert location(bulk(editor, LIST, "-1", [kept])) == LIST
    assert location(bulk(editor, LIST, "approve", [])) == LIST
    assert status_of(client, admin, kept) == "hold"


def test_a_bad_nonce_is_refused_and_changes_nothing(as_role, client, admin, accounts):
    post = publish(client, admin, "Guarded")
    held = comment(client, admin, post, "guard me", status="hold")
    editor = as_role("editor")
    links = actions(editor.get(LIST).text, held)
    forged = links["approve"].replace(query_of(links["approve"])["_wpnonce"], "0123456789")
    answer = editor.get(forged)
    assert answer.status_code == 403 and EXPIRED in answer.text
    # Another user's nonce is not this one's.
    assert as_role("administrator").get(links["trash"]).status_code == 403
    # The approve nonce does not spam.
    assert editor.get(links["spam"].replace(query_of(links["spam"])["_wpnonce"], query_of(links["approve"])["_wpnonce"])).status_code == 403
    form = editor.form(LIST, "comments-form")
    answer = editor.post(LIST, {**form, "_wpnonce": "bad", "action": "approve", "delete_comments[]": [str(held)]})
    assert answer.status_code == 403 and EXPIRED in answer.text
    form = editor.form(f"{ONE}?action=editcomment&c={held}", "post")
    assert editor.post(ONE, {**form, "_wpnonce": "bad", "content": "changed"}).status_code == 403
    form = editor.form(f"{ONE}?action=replytocomment&c={held}", "replyrow")
    assert editor.post(ONE, {**form, "_wpnonce": "bad", "content": "a reply"}).status_code == 403
    assert stored(client, admin, held)["content"]["raw"] == "guard me" and status_of(client, admin, held) == "hold"
    assert len(client.get("/cms/v2/comments", user=admin, params={"status": "any"}).json) == 1


# -- who may change what: the API's answer ---------------------------------------------------------


def test_an_author_moderates_only_the_comments_of_their_own_items(as_role, client, admin, accounts):
    author = accounts["author"]
    own = publish(client, author, "The author's post")
    others = publish(client, admin, "The editor's post")
    on_own = comment(client, admin, own, "on the author's post")
    on_others = comment(client, admin, others, "on someone else's post")
    held = comment(client, admin, own, "held on the author's post", status="hold")
    browser = as_role("author")
    page = browser.get(LIST).text
    # What the API lists them: approved comments; All alone, counted by the API.
    assert sorted(listed(page)) == sorted([on_own, on_others]) and held not in listed(page)
    assert counts(page) == {"all": 2}
    assert list(actions(page, on_own)) == ["unapprove", "reply", "quickedit", "edit", "spam", "trash"]
    assert actions(page, on_others) == {} and f'value="{on_others}"' not in page
    assert "mailto:" not in page  # e-mail addresses are the moderators'
    # The held view: what the API lists them, the held comments they may read (their own item's).
    moderated = browser.get(f"{LIST}?comment_status=moderated")
    assert moderated.status_code == 200 and listed(moderated.text) == [held]
    # Their own item's comment: changed; another's: refused by the API, shown as a notice.
    assert "1 comment unapproved." in notices(follow(browser, browser.get(actions(page, on_own)["unapprove"])))
    assert status_of(client, admin, on_own) == "hold"
    answer = bulk(browser, LIST, "spam", [on_others])
    shown = notices(follow(browser, answer))
    assert f"#{on_others}: Sorry, you are not allowed to edit this comment." in shown
    assert status_of(client, admin, on_others) == "approved"
    editing = browser.get(f"{ONE}?action=editcomment&c={on_others}")
    assert editing.status_code == 403 and "Sorry, you are not allowed to edit this comment." in editing.text
    assert browser.get(f"{ONE}?action=editcomment&c={held}").status_code == 200
    # A contributor sees the list and no action.
    contributor = as_role("contributor").get(LIST).text
    assert 'class="row-actions"' not in contributor and "delete_comments[]" not in contributor


# -- the editor ---------------------------------------------------------------------------------


def test_the_comment_editor_saves_through_the_api(as_role, client, admin):
    post = publish(client, admin, "Edited")
    held = comment(client, admin, post, "first words", status="hold", author_name="Sam", author_email="sam@example.test")
    editor = as_role("editor")
    path = f"{ONE}?action=editcomment&c={held}"
    form = editor.form(path, "post")
    assert (form["newcomment_author"], form["newcomment_author_email"], form["content"], form["comment_status"]) == (
        "Sam", "sam@example.test", "first words", "0")
    form.update({"newcomment_author": "Samantha", "newcomment_author_url": "https://sam.example.test/",
                 "content": "better words", "comment_status": "1"})
    answer = editor.post(ONE, form)
    assert query_of(location(answer)) == {"updated": "1"}
    assert "Comment updated." in notices(follow(editor, answer))
    saved = stored(client, admin, held)
    assert (saved["author_name"], saved["author_url"], saved["content"]["raw"], saved["status"], saved["author_email"]) == (
        "Samantha", "https://sam.example.test/", "better words", "approved", "sam@example.test")
    # Spam from the editor's status choice.
    form = editor.form(path, "post")
    editor.post(ONE, {**form, "comment_status": "spam"})
    assert status_of(client, admin, held) == "spam"
    # The API's errors beside their field, the input kept.
    form = editor.form(path, "post")
    answer = editor.post(ONE, {**form, "newcomment_author_email": "not an address", "content": "kept text"})
    assert answer.status_code == 400
    assert 'id="newcomment_author_email-error">Invalid email address.' in answer.text and "kept text</textarea>" in answer.text
    answer = editor.post(ONE, {**form, "content": "   "})
    assert answer.status_code == 400 and "Invalid comment content." in answer.text
    answer = editor.post(ONE, {**form, "comment_date": "tomorrow"})
    assert answer.status_code == 400 and 'id="comment_date-error"' in answer.text
    assert stored(client, admin, held)["content"]["raw"] == "better words"
    # A new date goes to the API, which stores it.
    answer = editor.post(ONE, {**form, "comment_date": "2020-02-03T04:05"})
    assert "Comment updated." in notices(follow(editor, answer))
    assert stored(client, admin, held)["date"] == "2020-02-03T04:05:00"
    # Back to the list the editor came from.
    came_from = "http://example.test/wp-admin/edit-comments.php?comment_status=spam&s=words&spammed=1"
    page = editor.http.simulate_get(path, headers={**editor.cookie, "Referer": came_from}).text
    assert fields_of(page, "post")["referredby"] == "/wp-admin/edit-comments.php?comment_status=spam&s=words"
    answer = editor.post(ONE, {**fields_of(page, "post"), "content": "final words"})
    assert query_of(location(answer)) == {"comment_status": "spam", "s": "words", "updated": "1"}
    # Never back to another site: the item's comments instead.
    answer = editor.post(ONE, {**fields_of(page, "post"), "referredby": "https://elsewhere.test/wp-admin/edit-comments.php"})
    assert location(answer) == f"{LIST}?p={post}&updated=1"
    # Missing, trashed and foreign addresses.
    missing = editor.get(f"{ONE}?action=editcomment&c=99999")
    assert missing.status_code == 404 and "Invalid comment ID." in missing.text
    client.delete(f"/cms/v2/comments/{held}", user=admin)
    trashed = editor.get(path)
    assert trashed.status_code == 409 and "This comment is in the Trash." in trashed.text
    assert editor.get(f"{ONE}?action=dance&c={held}").status_code == 400


def test_a_reply_is_the_users_approved_comment_under_the_one_replied_to(as_role, client, admin, accounts):
    post = publish(client, admin, "Replied")
    held = comment(client, admin, post, "is anyone there?", status="hold", author_name="Visitor",
                   author_email="visitor@example.test")
    editor = as_role("editor")
    assert actions(editor.get(LIST).text, held)["reply"] == f"{ONE}?action=replytocomment&c={held}"
    page = editor.get(f"{ONE}?action=replytocomment&c={held}").text
    assert "is anyone there?" in page and ">Approve and Reply</button>" in page
    form = fields_of(page, "replyrow")
    answer = editor.post(ONE, {**form, "content": "   ", "approve_parent": "1"})
    assert answer.status_code == 400 and 'id="content-error">Invalid comment content.' in answer.text
    assert status_of(client, admin, held) == "hold"  # an empty reply approves nothing
    answer = editor.post(ONE, {**form, "content": "Yes, we are here.", "approve_parent": "1"})
    assert query_of(location(answer)) == {"replied": "1", "approved": "1"}
    assert notices(follow(editor, answer)) == ["1 comment approved.", "Reply posted."]
    assert status_of(client, admin, held) == "approved"
    replies = client.get("/cms/v2/comments", user=admin, params={"parent": held, "context": "edit"}).json
    assert [(c["content"]["raw"], c["status"], c["author"], c["post"]) for c in replies] == [
        ("Yes, we are here.", "approved", accounts["editor"].id, post)]
    # The reply's row names the comment it answers (read through the API when not on the page).
    reply_row = row(editor.get(f"{LIST}?s=we+are+here").text, replies[0]["id"])
    assert re.search(rf'In reply to <a href="[^"]+#comment-{held}">Visitor</a>\.', reply_row)
    # Closed items take no reply: the action is not offered, the form refuses.
    client.post(f"/cms/v2/posts/{post}", user=admin, json={"comment_status": "closed"})
    assert "reply" not in actions(editor.get(LIST).text, held)
    assert editor.get(f"{ONE}?action=replytocomment&c={held}").status_code == 403


# -- junk ---------------------------------------------------------------------------------------

JUNK = ["", "-1", "abc", "99999999999999999999", "9223372036854775807", "<script>x</script>", "1,2,x", "2031-13-45"]
PARAMS = ["c", "p", "comment_status", "paged", "s", "orderby", "order", "ids", "doaction", "action", "_wpnonce", "error",
          "approved", "spammed", "trashed", "updated", "replied", "user_id"]


def _fine(answer, where: str) -> None:
    assert answer.status_code < 500, f"{where} -> {answer.status_code} {answer.text[:400]}"
    assert "Traceback" not in answer.text, where


def test_junk_in_every_parameter_and_field(as_role, client, admin):
    post = publish(client, admin, "Junk")
    held = comment(client, admin, post, "junk target", status="hold")
    editor = as_role("editor")
    for path in (LIST, ONE, f"{ONE}?action=editcomment&c={held}", f"{ONE}?action=replytocomment&c={held}",
                 f"{LIST}?doaction=undo&action=untrash"):
        for name in PARAMS:
            for value in JUNK:
                answer = editor.http.simulate_get(path.split("?")[0], params={
                    **dict(query_of(path)), name: value}, headers=editor.cookie)
                _fine(answer, f"GET {path} {name}={value!r}")
    for path, form_id in ((LIST, "comments-form"), (f"{ONE}?action=editcomment&c={held}", "post"),
                          (f"{ONE}?action=replytocomment&c={held}", "replyrow")):
        fields = editor.form(path, form_id)
        target = LIST if form_id == "comments-form" else ONE
        for name in [n for n in fields if n != "_wpnonce"] + ["delete_comments[]", "delete_all", "approve_parent"]:
            for value in JUNK:
                _fine(editor.post(target, {**fields, name: [value] if name.endswith("[]") else value}),
                      f"POST {path} {name}={value!r}")
    assert status_of(client, admin, held) in ("hold", "approved", "spam", "trash", 404)
