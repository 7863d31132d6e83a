"""The public site's comments in headless Chromium against a real server: a visitor writes a
comment with the form (held, shown to them marked as awaiting moderation, hidden from others), an
editor replies through a comment's Reply link (threaded under it); the comments section and the
form checked with axe-core and captured at 1280 and 390 pixels (browser_support.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

AWAITING = "Your comment is awaiting moderation."


def send_form(page) -> None:
    with page.expect_navigation():
        page.click("#commentform #submit")


def test_a_visitor_comments_and_an_editor_replies(visit, workspace_site):
    _, rest = workspace_site
    post = rest.post("/cms/v2/posts", json={"title": "Harbour clean-up day", "status": "publish",
                                            "content": "<p>Bring gloves.</p>"}).json()
    # Written from another address, so that the visitor's comment is not a flood from this one;
    # approved by the administrator writing it (a visitor's first comment is otherwise held).
    first = rest.post("/cms/v2/comments", json={"post": post["id"], "content": "Count me in!", "author_name": "Ann",
                                                "author_email": "ann@example.test", "author_url": "https://ann.example.test/",
                                                "author_ip": "192.0.2.10", "status": "approved"})
    assert first.status_code == 201, first.text
    first = first.json()
    path = post["link"].split("//", 1)[1].split("/", 1)[1]

    visitor = visit()
    page = visitor.page
    visitor.goto("/" + path)
    assert page.inner_text(f"#comment-{first['id']} .comment-content") == "Count me in!"
    visitor.check("site-comment-form")
    page.fill("#comment", "Where do we meet?")
    page.fill("#author", "Vera")
    page.fill("#email", "vera@example.test")
    page.check("#wp-comment-cookies-consent")
    send_form(page)
    assert "#comment-" in page.url and "unapproved=" in page.url
    held = page.locator(".comment", has_text="Where do we meet?")
    assert AWAITING in held.inner_text()
    visitor.check("site-comments-held")
    # Another visitor does not see it.
    stranger = visit()
    stranger.goto("/" + path)
    assert "Where do we meet?" not in stranger.page.content()

    editor = visit()
    editor.login("editor", target="/" + path)
    page = editor.page
    with page.expect_navigation():
        page.click(f"#comment-{first['id']} .comment-reply-link")
    assert "Leave a Reply to Ann" in page.inner_text("#reply-title")
    assert "Logged in as editor" in page.inner_text(".logged-in-as")
    editor.check("site-comment-reply-form")
    page.fill("#comment", "By the lighthouse, at nine.")
    send_form(page)
    reply = page.locator(f"#comment-{first['id']} > .children .comment-content")
    assert reply.inner_text() == "By the lighthouse, at nine."
    editor.check("site-comments-thread")
    stored = rest.get("/cms/v2/comments", params={"post": post["id"], "status": "any", "context": "edit"}).json()
    by_text = {c["content"]["raw"]: c for c in stored}
    assert by_text["By the lighthouse, at nine."]["parent"] == first["id"]
    assert by_text["By the lighthouse, at nine."]["status"] == "approved"
    assert by_text["Where do we meet?"]["status"] == "hold"
