"""/cms/v2/comments (cms-api.md 7.4): reading, creating, threading, moderation and deletion, by role."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from cal_support import set_option

from calpress.store.tables import comments, posts

COMMENTS = "/cms/v2/comments"


def post(client, admin, **fields) -> int:
    return client.post("/cms/v2/posts", user=admin, json={"title": "Discussed", "status": "publish", **fields}).json["id"]


def count(app, table) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def comment_count(app, post_id) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(posts.c.comment_count).where(posts.c.id == post_id)).scalar_one()


def age_comment(app, comment_id: int) -> None:
    """Dates a stored comment an hour back, out of flood control's 15 seconds, as a client that
    waits before its next comment."""
    hour = dt.timedelta(hours=1)
    with app.site.write() as conn:
        conn.execute(sa.update(comments).where(comments.c.id == comment_id).values(
            date_utc=comments.c.date_utc - hour, date_local=comments.c.date_local - hour))


def test_logged_in_users_comment_and_everyone_reads_approved_comments(client, app, accounts, admin):
    post_id = post(client, admin)
    created = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "First!"})
    assert created.status_code == 201
    body = created.json
    assert body["status"] == "approved" and body["author"] == admin.id and body["post"] == post_id
    assert body["content"] == {"rendered": "<p>First!</p>\n", "raw": "First!"}
    assert created.headers["Location"].endswith(f"/cms/v2/comments/{body['id']}")
    assert body["_links"]["up"][0]["href"].endswith(f"/cms/v2/posts/{post_id}")
    listed = client.get(COMMENTS, params={"post": post_id})
    assert listed.status_code == 200 and [c["id"] for c in listed.json] == [body["id"]]
    assert listed.headers["X-WP-Total"] == "1" and listed.headers["X-WP-TotalPages"] == "1"
    public = listed.json[0]
    assert "author_email" not in public and "author_ip" not in public and public["content"] == {"rendered": "<p>First!</p>\n"}
    assert comment_count(app, post_id) == 1
    replies = client.get(f"/cms/v2/posts/{post_id}").json["_links"]["replies"][0]["href"]
    assert replies.endswith(f"/cms/v2/comments?post={post_id}")


def test_first_comments_of_subscribers_wait_for_moderation(client, app, accounts, admin):
    post_id = post(client, admin)
    subscriber = accounts["subscriber"]
    held = client.post(COMMENTS, user=subscriber, json={"post": post_id, "content": "Hello"}).json
    assert held["status"] == "hold" and comment_count(app, post_id) == 0
    assert client.get(COMMENTS, params={"post": post_id}).json == []
    assert client.get(f"{COMMENTS}/{held['id']}").status_code == 401
    assert client.get(f"{COMMENTS}/{held['id']}", user=subscriber).status_code == 200  # the author may
    assert client.get(COMMENTS, params={"status": "hold"}).status_code == 401
    assert client.get(COMMENTS, params={"status": "hold"}, user=subscriber).status_code == 403
    moderated = client.get(COMMENTS, params={"status": "hold"}, user=accounts["editor"])
    assert [c["id"] for c in moderated.json] == [held["id"]]
    approved = client.post(f"{COMMENTS}/{held['id']}", user=accounts["editor"], json={"status": "approve"})
    assert approved.status_code == 200 and approved.json["status"] == "approved" and comment_count(app, post_id) == 1
    age_comment(app, held["id"])
    again = client.post(COMMENTS, user=subscriber, json={"post": post_id, "content": "Me again"}).json
    assert again["status"] == "approved"  # previously approved commenters are trusted


def test_anonymous_comments_only_when_the_site_allows_them(client, app, admin):
    post_id = post(client, admin)
    body = {"post": post_id, "content": "Anon", "author_name": "Ann", "author_email": "ann@example.org"}
    refused = client.post(COMMENTS, json=body)
    assert refused.status_code == 401 and refused.json["code"] == "rest_comment_login_required"
    set_option(app, "rest_allow_anonymous_comments", True)
    missing = client.post(COMMENTS, json={"post": post_id, "content": "Anon"})
    assert missing.status_code == 400 and missing.json["code"] == "rest_comment_author_data_required"
    created = client.post(COMMENTS, json=body)
    assert created.status_code == 201 and created.json["status"] == "hold" and created.json["author"] == 0
    set_option(app, "comment_registration", True)
    assert client.post(COMMENTS, json={**body, "content": "Other"}).status_code == 401


def test_bad_comments_are_refused_and_nothing_is_written(client, app, accounts, admin):
    open_post = post(client, admin)
    closed = post(client, admin, comment_status="closed")
    draft = client.post("/cms/v2/posts", user=admin, json={"title": "Draft", "status": "draft"}).json["id"]
    user = accounts["author"]
    client.post(COMMENTS, user=user, json={"post": open_post, "content": "Said once"})
    before = count(app, comments)
    cases = [
        ({"post": closed, "content": "x"}, 403, "rest_comment_closed"),
        ({"post": draft, "content": "x"}, 403, "rest_comment_draft_post"),
        ({"post": 999999, "content": "x"}, 403, "rest_comment_invalid_post_id"),
        ({"post": open_post, "content": ""}, 400, "rest_comment_content_invalid"),
        ({"post": open_post, "content": "Said once"}, 409, "comment_duplicate"),
        ({"post": open_post, "content": "x", "status": "approved"}, 403, "rest_comment_invalid_status"),
        ({"post": open_post, "content": "x", "author": admin.id}, 403, "rest_comment_invalid_author"),
        ({"post": open_post, "content": "x", "parent": 999999}, 400, "rest_comment_invalid_parent"),
        ({"post": "abc", "content": "x"}, 400, "rest_invalid_param"),
    ]
    for body, status, code in cases:
        response = client.post(COMMENTS, user=user, json=body)
        assert (response.status_code, response.json["code"]) == (status, code), body
    assert count(app, comments) == before


def test_threads_and_filters(client, app, accounts, admin):
    post_id = post(client, admin)
    other = post(client, admin, title="Other")
    root = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Root"}).json
    reply = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Reply", "parent": root["id"]}).json
    client.post(COMMENTS, user=admin, json={"post": other, "content": "Elsewhere"})
    assert reply["_links"]["in-reply-to"][0]["href"].endswith(f"/comments/{root['id']}")
    root_again = client.get(f"{COMMENTS}/{root['id']}").json
    assert root_again["_links"]["children"][0]["href"].endswith(f"/comments?parent={root['id']}")
    assert [c["id"] for c in client.get(COMMENTS, params={"parent": root["id"]}).json] == [reply["id"]]
    assert [c["id"] for c in client.get(COMMENTS, params={"post": post_id, "order": "asc", "orderby": "id"}).json] == [
        root["id"], reply["id"]]
    assert len(client.get(COMMENTS).json) == 3
    assert [c["id"] for c in client.get(COMMENTS, params={"search": "Elsewhere"}).json] != []
    assert client.get(COMMENTS, params={"per_page": "0"}).status_code == 400
    assert client.get(COMMENTS, params={"orderby": "title"}).status_code == 400


def test_edit_context_and_moderation_rights(client, accounts, admin):
    post_id = post(client, admin)
    created = client.post(COMMENTS, user=accounts["author"], json={"post": post_id, "content": "Mine"}).json
    assert client.get(f"{COMMENTS}/{created['id']}", params={"context": "edit"}, user=accounts["subscriber"]).status_code == 403
    as_editor = client.get(f"{COMMENTS}/{created['id']}", params={"context": "edit"}, user=accounts["editor"])
    assert as_editor.status_code == 200 and as_editor.json["author_email"] == "author@example.test"
    assert client.post(f"{COMMENTS}/{created['id']}", user=accounts["contributor"], json={"content": "Hijack"}).status_code == 403
    edited = client.put(f"{COMMENTS}/{created['id']}", user=accounts["editor"], json={"content": "Edited"})
    assert edited.status_code == 200 and edited.json["content"]["raw"] == "Edited"


def test_an_update_moves_the_date_in_the_site_zone_or_in_utc(client, app, admin):
    set_option(app, "timezone_string", "Europe/Paris")
    post_id = post(client, admin)
    created = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Dated"}).json
    moved = client.post(f"{COMMENTS}/{created['id']}", user=admin, json={"date": "2020-02-03T04:05:00"}).json
    assert (moved["date"], moved["date_gmt"]) == ("2020-02-03T04:05:00", "2020-02-03T03:05:00")
    moved = client.post(f"{COMMENTS}/{created['id']}", user=admin, json={"date_gmt": "2021-07-01T10:00:00"}).json
    assert (moved["date"], moved["date_gmt"]) == ("2021-07-01T12:00:00", "2021-07-01T10:00:00")
    assert client.get(f"{COMMENTS}/{created['id']}").json["date"] == "2021-07-01T12:00:00"


def test_delete_trashes_then_410_and_force_deletes(client, app, accounts, admin):
    post_id = post(client, admin)
    created = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Bye"}).json
    assert client.delete(f"{COMMENTS}/{created['id']}").status_code == 401
    assert client.delete(f"{COMMENTS}/{created['id']}", user=accounts["author"]).status_code == 403
    trashed = client.delete(f"{COMMENTS}/{created['id']}", user=admin)
    assert trashed.status_code == 200 and trashed.json["status"] == "trash" and comment_count(app, post_id) == 0
    again = client.delete(f"{COMMENTS}/{created['id']}", user=admin)
    assert again.status_code == 410 and again.json["code"] == "rest_already_trashed"
    gone = client.delete(f"{COMMENTS}/{created['id']}", user=admin, params={"force": "true"})
    assert gone.status_code == 200 and gone.json["deleted"] is True and gone.json["previous"]["id"] == created["id"]
    missing = client.get(f"{COMMENTS}/{created['id']}")
    assert missing.status_code == 404 and missing.json["code"] == "rest_comment_invalid_id"


def test_script_tags_from_authors_are_removed(client, accounts, admin):
    post_id = post(client, admin)
    body = client.post(COMMENTS, user=accounts["author"], json={
        "post": post_id, "content": "<script>alert(1)</script><strong>ok</strong>"}).json
    assert "<script" not in body["content"]["rendered"] and "<strong>ok</strong>" in body["content"]["rendered"]


def test_status_all_is_approved_and_held_and_any_is_every_status(client, admin):
    """As WP_Comment_Query reads ``status``: ``all`` is the approved and held comments (a
    moderation screen's "All" leaves spam and trash out), ``any`` every status."""
    post_id = post(client, admin)
    ids = {}
    for status in ("approved", "hold", "spam", "trash"):
        created = client.post(COMMENTS, user=admin, json={"post": post_id, "content": status, "status": status}).json
        assert created["status"] == status
        ids[status] = created["id"]

    def listed(status: str) -> list[int]:
        found = client.get(COMMENTS, user=admin, params={"post": post_id, "status": status, "orderby": "id", "order": "asc"})
        return [c["id"] for c in found.json]

    assert listed("all") == [ids["approved"], ids["hold"]]
    assert listed("any") == [ids[s] for s in ("approved", "hold", "spam", "trash")]
    assert listed("spam") == [ids["spam"]]


def test_spam_and_trash_remember_the_status_unspam_and_untrash_give_it_back(client, admin):
    """As the reference's handle_status_param: ``spam`` and ``trash`` keep the status left in
    ``_wp_trash_meta_status``; ``unspam`` and ``untrash`` restore it (held when none was kept)."""
    post_id = post(client, admin)
    approved = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Fine", "status": "approved"}).json
    held = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Wait", "status": "hold"}).json

    def set_status(comment: dict, status: str) -> str:
        answer = client.post(f"{COMMENTS}/{comment['id']}", user=admin, json={"status": status})
        assert answer.status_code == 200, answer.json
        return answer.json["status"]

    assert set_status(approved, "spam") == "spam" and set_status(approved, "unspam") == "approved"
    assert set_status(held, "trash") == "trash" and set_status(held, "untrash") == "hold"
    assert client.delete(f"{COMMENTS}/{approved['id']}", user=admin).json["status"] == "trash"
    assert set_status(approved, "untrash") == "approved"
    assert set_status(approved, "untrash") == "approved"  # not in the trash: nothing to give back
    assert set_status(held, "spam") == "spam" and set_status(held, "trash") == "trash"
    assert set_status(held, "untrash") == "spam"  # what it was when it went to the trash
    bad = client.post(f"{COMMENTS}/{held['id']}", user=admin, json={"status": "lost"})
    assert bad.status_code == 500 and bad.json["code"] == "rest_comment_failed_edit"
