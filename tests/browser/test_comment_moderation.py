"""Comment moderation in headless Chromium against a real server: an editor approves a pending
comment, replies to it, marks it as spam, restores it and edits it, each step read back through the
REST API, the list, the reply form and the editor checked with axe-core and captured at 1280 and
390 pixels (browser_support.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LIST = "/wp-admin/edit-comments.php"


def click_and_wait(page, selector: str) -> None:
    """Follow a link or send a form, and wait for the page the change redirects to."""
    with page.expect_navigation():
        page.click(selector)


def test_an_editor_moderates_a_pending_comment(visit, workspace_site):
    _, rest = workspace_site
    post = rest.post("/cms/v2/posts", json={"title": "Picnic in the park", "status": "publish"}).json()["id"]
    held = rest.post("/cms/v2/comments", json={"post": post, "content": "Is the picnic still on?", "status": "hold",
                                               "author_name": "A visitor", "author_email": "visitor@example.test",
                                               "author_url": "https://visitor.example.test/"}).json()["id"]
    editor_id = next(u["id"] for u in rest.get("/cms/v2/users", params={"search": "editor", "context": "edit"}).json()
                     if u["username"] == "editor")

    def status() -> str:
        return rest.get(f"/cms/v2/comments/{held}", params={"context": "edit"}).json()["status"]

    editor = visit()
    editor.login("editor", target=f"{LIST}?comment_status=moderated")
    page = editor.page
    waiting = rest.get("/cms/v2/comments", params={"status": "hold", "per_page": 1}).headers["X-WP-Total"]
    assert page.inner_text("#adminmenu .awaiting-mod .pending-count") == waiting
    assert "Is the picnic still on?" in page.inner_text(f"#comment-{held} .column-comment")
    editor.check("comments-pending")
    # Approve.
    click_and_wait(page, f"#comment-{held} .row-actions .approve a")
    assert "1 comment approved." in page.inner_text(".notice-success")
    assert status() == "approved"
    # Reply, as the editor: an approved comment under the one replied to.
    editor.goto(LIST)
    click_and_wait(page, f"#comment-{held} .row-actions .reply a")
    editor.check("comment-reply")
    page.fill("#replycontent", "Yes: noon, by the bandstand.")
    click_and_wait(page, "#replybtn")
    assert "Reply posted." in page.inner_text(".notice-success")
    replies = rest.get("/cms/v2/comments", params={"parent": held, "context": "edit"}).json()
    assert [(r["content"]["raw"], r["status"], r["author"], r["post"]) for r in replies] == [
        ("Yes: noon, by the bandstand.", "approved", editor_id, post)]
    editor.check("comments-list")
    # Spam, then back from the Spam view with "Not Spam".
    click_and_wait(page, f"#comment-{held} .row-actions .spam a")
    assert "1 comment marked as spam." in page.inner_text(".notice-success")
    assert status() == "spam"
    editor.goto(f"{LIST}?comment_status=spam")
    click_and_wait(page, f"#comment-{held} .row-actions .unspam a")
    assert "1 comment restored from the spam." in page.inner_text(".notice-success")
    assert status() == "approved"
    # The editor: the text and the status changed.
    editor.goto(f"/wp-admin/comment.php?action=editcomment&c={held}")
    editor.check("comment-edit")
    page.fill("#content", "Is the picnic still on? We can bring lemonade.")
    page.check("#comment-status-radio input[value='0']")
    click_and_wait(page, "#save")
    assert "Comment updated." in page.inner_text(".notice-success")
    saved = rest.get(f"/cms/v2/comments/{held}", params={"context": "edit"}).json()
    assert (saved["content"]["raw"], saved["status"]) == ("Is the picnic still on? We can bring lemonade.", "hold")
