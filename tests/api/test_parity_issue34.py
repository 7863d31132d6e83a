"""Issue 34, item 1: behaviours that differed from the reference (the WordPress core REST
controllers, The Events Calendar's views route), each asserted with the reference's status,
error code and shape: ``who=authors``, comments (flood control, guest comments written by a
moderator, protected items, refusals, filters, pages past the last), settings (the admin
address, the write refusal), deleting oneself, media listing statuses, the views route's index
entry and refused upload types."""

from __future__ import annotations

import datetime as dt
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cal_support import set_option
from PIL import Image
from test_cms_site import check_error
from test_comments import age_comment

from calpress.auth import users
from calpress.store import db
from calpress.store import options as store_options
from calpress.store.tables import comments, posts
from calpress.store.tables import users as users_table

COMMENTS = "/cms/v2/comments"
MEDIA = "/cms/v2/media"
FLOOD_MESSAGE = "You are posting comments too quickly. Slow down."
REFUSED_TYPE = "Sorry, you are not allowed to upload this file type."


def publish(client, admin, **fields: Any) -> int:
    response = client.post("/cms/v2/posts", user=admin, json={"title": "Talked about", "status": "publish", **fields})
    assert response.status_code == 201, response.json
    return response.json["id"]


def comment_total(app) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(comments)).scalar_one()


def listed_ids(response) -> list[int]:
    assert response.status_code == 200, response.json
    return [c["id"] for c in response.json]


# -- 1. users: who=authors -------------------------------------------------------------------------


def test_who_authors_needs_an_editing_capability_and_lists_contributors_and_up(client, accounts):
    message = "Sorry, you are not allowed to query users by this parameter."
    check_error(client.get("/cms/v2/users", params={"who": "authors"}), 401, "rest_forbidden_who", message)
    check_error(client.get("/cms/v2/users", params={"who": "authors"}, user=accounts["subscriber"]), 403, "rest_forbidden_who",
                message)
    # The reference's user_level != 0: contributors and up, published or not; never a subscriber.
    for role in ("contributor", "administrator"):
        found = client.get("/cms/v2/users", params={"who": "authors", "orderby": "id"}, user=accounts[role])
        assert listed_ids(found) == [accounts[r].id for r in ("administrator", "editor", "author", "contributor")]
        assert found.headers["X-WP-Total"] == "4"


# -- 2a. comments: flood control -------------------------------------------------------------------


def test_a_second_comment_within_15_seconds_is_a_400_flood_but_not_for_moderators(client, app, accounts, admin):
    post_id = publish(client, admin)
    subscriber = accounts["subscriber"]
    first = client.post(COMMENTS, user=subscriber, json={"post": post_id, "content": "One"})
    assert first.status_code == 201
    before = comment_total(app)
    flood = client.post(COMMENTS, user=subscriber, json={"post": post_id, "content": "Two"})
    check_error(flood, 400, "comment_flood", FLOOD_MESSAGE)
    assert comment_total(app) == before
    # Another logged-in user at the same address is another sender (the reference counts users by id).
    assert client.post(COMMENTS, user=accounts["author"], json={"post": post_id, "content": "Mine"}).status_code == 201
    age_comment(app, first.json["id"])
    assert client.post(COMMENTS, user=subscriber, json={"post": post_id, "content": "Two"}).status_code == 201
    for n in range(3):  # moderate_comments: never throttled
        assert client.post(COMMENTS, user=accounts["editor"], json={"post": post_id, "content": f"Editor {n}"}).status_code == 201


def test_visitors_are_throttled_by_address_or_email(client, app, admin):
    set_option(app, "rest_allow_anonymous_comments", True)
    post_id = publish(client, admin)

    def send(name: str, address: str, content: str):
        body = {"post": post_id, "content": content, "author_name": name.title(), "author_email": f"{name}@example.org"}
        return client.post(COMMENTS, json=body, remote_addr=address)

    assert send("ann", "192.0.2.1", "First").status_code == 201
    assert send("bob", "192.0.2.2", "Other sender").status_code == 201
    check_error(send("ann", "192.0.2.3", "Same e-mail"), 400, "comment_flood", FLOOD_MESSAGE)
    check_error(send("cy", "192.0.2.1", "Same address"), 400, "comment_flood", FLOOD_MESSAGE)


# -- 2b. comments: a moderator writing a visitor's comment -----------------------------------------


def test_a_moderator_naming_a_visitor_writes_a_held_guest_comment(client, admin):
    """create_item sets the requester as author only when no author name, e-mail or URL is
    given; wp_allow_comment then checks the visitor as any visitor (a first comment: held)."""
    post_id = publish(client, admin)
    guest = {"post": post_id, "author_name": "Gus Guest", "author_email": "gus@example.org"}
    held = client.post(COMMENTS, user=admin, json={**guest, "content": "Written for Gus"})
    assert held.status_code == 201, held.json
    assert (held.json["author"], held.json["author_name"], held.json["author_email"], held.json["status"]) == (
        0, "Gus Guest", "gus@example.org", "hold")
    assert "author" not in held.json["_links"]
    approved = client.post(COMMENTS, user=admin, json={**guest, "content": "Approved at once", "status": "approved"})
    assert (approved.json["author"], approved.json["status"]) == (0, "approved")
    own = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "As myself"})
    assert (own.json["author"], own.json["status"]) == (admin.id, "approved")
    check_error(client.post(COMMENTS, user=admin, json={"post": post_id, "content": "No e-mail", "author_name": "Nameless"}),
                400, "rest_comment_author_data_required", "Creating a comment requires valid author name and email values.")


# -- 2c. comments of a password-protected item -----------------------------------------------------


def test_comments_of_a_protected_item_are_listed_with_its_password(client, admin):
    post_id = publish(client, admin, password="sesame")
    other = publish(client, admin, title="Open")
    said = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Behind the door"}).json
    message = "Sorry, you are not allowed to read the post for this comment."
    check_error(client.get(COMMENTS, params={"post": post_id}), 401, "rest_cannot_read_post", message)
    check_error(client.get(COMMENTS, params={"post": post_id, "password": "wrong"}), 401, "rest_cannot_read_post", message)
    unlocked = client.get(COMMENTS, params={"post": post_id, "password": "sesame"})
    assert listed_ids(unlocked) == [said["id"]] and unlocked.headers["X-WP-Total"] == "1"
    # The password counts for one item only; unnamed, a protected item's comments are not listed.
    check_error(client.get(COMMENTS, params={"post": f"{post_id},{other}", "password": "sesame"}), 401, "rest_cannot_read_post")
    assert listed_ids(client.get(COMMENTS)) == []
    assert listed_ids(client.get(COMMENTS, params={"post": post_id}, user=admin)) == [said["id"]]


# -- 2d. comments: a refused delete ------------------------------------------------------------------


def test_a_refused_delete_is_rest_cannot_delete(client, app, accounts, admin):
    post_id = publish(client, admin)
    said = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Keep me"}).json
    message = "Sorry, you are not allowed to delete this comment."
    check_error(client.delete(f"{COMMENTS}/{said['id']}"), 401, "rest_cannot_delete", message)
    check_error(client.delete(f"{COMMENTS}/{said['id']}", user=accounts["author"], params={"force": "true"}), 403,
                "rest_cannot_delete", message)
    check_error(client.delete(f"{COMMENTS}/999999", user=admin), 404, "rest_comment_invalid_id", "Invalid comment ID.")
    assert client.get(f"{COMMENTS}/{said['id']}").json["status"] == "approved"


# -- 2e. comments: the filters editors may use -------------------------------------------------------


def test_users_who_edit_posts_may_filter_by_author_and_status(client, accounts, admin):
    post_id = publish(client, admin)
    by_admin = client.post(COMMENTS, user=admin, json={"post": post_id, "content": "Admin"}).json
    by_contributor = client.post(COMMENTS, user=accounts["contributor"], json={"post": post_id, "content": "Contributor"}).json
    by_subscriber = client.post(COMMENTS, user=accounts["subscriber"], json={"post": post_id, "content": "Subscriber"}).json
    assert by_contributor["status"] == by_subscriber["status"] == "hold"  # first comments wait
    contributor = accounts["contributor"]
    assert listed_ids(client.get(COMMENTS, params={"author": admin.id}, user=contributor)) == [by_admin["id"]]
    assert listed_ids(client.get(COMMENTS, params={"author_exclude": admin.id}, user=contributor)) == []
    # Held comments: only those the requester may read (its own), as the reference's check_read_permission.
    assert listed_ids(client.get(COMMENTS, params={"status": "hold"}, user=contributor)) == [by_contributor["id"]]
    assert sorted(listed_ids(client.get(COMMENTS, params={"status": "hold"}, user=admin))) == sorted(
        [by_contributor["id"], by_subscriber["id"]])
    check_error(client.get(COMMENTS, params={"author": admin.id}, user=accounts["subscriber"]), 403, "rest_forbidden_param",
                "Query parameter not permitted: author")
    check_error(client.get(COMMENTS, params={"author": admin.id, "status": "hold"}), 401, "rest_forbidden_param",
                "Query parameter not permitted: author, status")


# -- 2f. comments: a page past the last --------------------------------------------------------------


def test_a_comment_page_past_the_last_is_an_empty_200_with_the_true_totals(client, admin):
    post_id = publish(client, admin)
    for n in range(3):
        assert client.post(COMMENTS, user=admin, json={"post": post_id, "content": f"Number {n}"}).status_code == 201
    past = client.get(COMMENTS, params={"post": post_id, "per_page": 2, "page": 5})
    assert past.status_code == 200 and past.json == []
    assert (past.headers["X-WP-Total"], past.headers["X-WP-TotalPages"]) == ("3", "2")
    last = client.get(COMMENTS, params={"post": post_id, "per_page": 2, "page": 2})
    assert len(listed_ids(last)) == 1


# -- 3. settings -------------------------------------------------------------------------------------


def admin_email(app) -> Any:
    with app.site.read() as conn:
        return store_options.get_option(conn, "admin_email", None)


def test_the_first_administrator_gives_the_site_its_admin_email(app, client, make_account):
    make_account("reader", "subscriber")
    assert admin_email(app) is None
    boss = make_account("boss", "administrator")
    assert admin_email(app) == "boss@example.test"
    make_account("second", "administrator")
    assert admin_email(app) == "boss@example.test"  # the first one's stays
    assert client.get("/cms/v2/settings", user=boss).json["email"] == "boss@example.test"


def test_a_user_made_administrator_gives_the_address_when_the_site_has_none(app, make_account):
    reader = make_account("reader", "subscriber")
    with app.site.write() as conn:
        users.update_user(conn, reader.id, {"display_name": "Reader"})
    assert admin_email(app) is None
    with app.site.write() as conn:
        users.update_user(conn, reader.id, {"roles": ["administrator"]})
    assert admin_email(app) == "reader@example.test"


_MISSING = object()


def _after_0010(folder: str, names: list[str]) -> list[str]:
    """The migrations after 0010 (and bytecode), left out of a copy of the migrations."""
    return [name for name in names if name == "__pycache__" or (name[:4].isdigit() and int(name[:4]) > 10)]


@pytest.mark.parametrize(("stored", "expected"), [(_MISSING, "boss@example.test"), ("", "boss@example.test"),
                                                  (None, "boss@example.test"), ("kept@example.test", "kept@example.test")])
def test_the_migration_fills_admin_email_from_the_oldest_administrator(empty_db_url, tmp_path: Path, stored, expected):
    older = tmp_path / "migrations"
    shutil.copytree(Path(db.__file__).parent / "migrations", older, ignore=_after_0010)
    engine = db.create_engine(empty_db_url)
    try:
        db.upgrade(engine, script_location=str(older))
        assert db.current_revision(engine) == "0010"
        with db.write_transaction(engine) as conn:
            for login, roles, email in (("reader", ["subscriber"], "r@example.test"), ("quiet", ["administrator"], ""),
                                        ("boss", ["editor", "administrator"], "boss@example.test"),
                                        ("late", ["administrator"], "late@example.test")):
                conn.execute(sa.insert(users_table).values(login=login, email=email, display_name=login, nicename=login,
                                                           roles=roles, registered_utc=dt.datetime(2025, 1, 2)))
            if stored is not _MISSING:
                store_options.set_option(conn, "admin_email", stored)
        db.upgrade(engine)
        with db.read_connection(engine) as conn:
            assert store_options.get_option(conn, "admin_email") == expected
    finally:
        engine.dispose()


def test_a_settings_write_without_manage_options_is_rest_forbidden(client, accounts):
    message = "Sorry, you are not allowed to do that."
    check_error(client.post("/cms/v2/settings", json={"title": "Taken"}), 401, "rest_forbidden", message)
    for role in ("editor", "subscriber"):
        check_error(client.put("/cms/v2/settings", json={"title": "Taken"}, user=accounts[role]), 403, "rest_forbidden", message)
    assert client.get("/cms/v2/settings", user=accounts["administrator"]).json["title"] == "calpress"


# -- 4. deleting oneself -----------------------------------------------------------------------------


@pytest.mark.parametrize("reassign", ["false", "0", "self", "admin", "999999"])
def test_a_subscriber_deleting_itself_is_refused_before_reassign_is_weighed(client, accounts, reassign):
    subscriber = accounts["subscriber"]
    value = {"self": str(subscriber.id), "admin": str(accounts["administrator"].id)}.get(reassign, reassign)
    refused = client.delete("/cms/v2/users/me", user=subscriber, params={"force": "true", "reassign": value})
    check_error(refused, 403, "rest_user_cannot_delete", "Sorry, you are not allowed to delete this user.")
    assert client.get("/cms/v2/users/me", user=subscriber).status_code == 200


def test_a_missing_reassign_is_refused_before_the_permission_as_the_reference_does(client, accounts):
    """The reference's server checks the arguments (required, then sanitised) before the
    permission callback runs, so a request without ``reassign`` is a 400 for anyone."""
    missing = client.delete("/cms/v2/users/me", user=accounts["subscriber"], params={"force": "true"})
    assert check_error(missing, 400, "rest_missing_callback_param", "Missing parameter(s): reassign")["data"]["params"] == [
        "reassign"]


# -- 5. media listing statuses ---------------------------------------------------------------------


def check_forbidden_status(response, status: int) -> None:
    """The reference's answer to a listing status the requester may not ask for: sanitize_post_statuses'
    rest_forbidden_status, wrapped by the request's parameter sanitising in a 400 rest_invalid_param."""
    body = check_error(response, 400, "rest_invalid_param", "Invalid parameter(s): status")
    assert body["data"]["params"] == {"status": "Status is forbidden."}
    assert body["data"]["details"]["status"] == {"code": "rest_forbidden_status", "message": "Status is forbidden.",
                                                 "data": {"status": status}}


@pytest.mark.parametrize("route", ["/cms/v2/media", "/cms/v2/posts"])
def test_a_listing_status_is_refused_for_its_permission_before_its_value(client, accounts, admin, route):
    for status in ("publish", "private", "draft", "no-such-status"):
        if route.endswith("posts") and status == "publish":
            continue  # the posts' default
        check_forbidden_status(client.get(route, params={"status": status}), 401)
        check_forbidden_status(client.get(route, params={"status": status}, user=accounts["subscriber"]), 403)
    invalid = check_error(client.get(route, params={"status": "no-such-status"}, user=admin), 400, "rest_invalid_param")
    assert invalid["data"]["params"]["status"].startswith("status[0] is not one of ")
    default = "inherit" if route.endswith("media") else "publish"
    assert client.get(route, params={"status": default}).status_code == 200
    if route.endswith("media"):
        check_error(client.get(route, params={"status": "publish"}, user=admin), 400, "rest_invalid_param")


# -- 6. the views route's index entry ----------------------------------------------------------------


def test_the_views_route_lists_url_as_required_and_still_takes_u(client):
    index_args = client.get("/cal/views/v2").json["routes"]["/cal/views/v2/html"]["endpoints"][0]["args"]
    options_args = client.request("OPTIONS", "/cal/views/v2/html").json["endpoints"][0]["args"]
    for args in (index_args, options_args):
        assert args["url"]["required"] is True and args["u"]["required"] is False
        assert "given_as" not in args["url"]
    wrapped = client.get("/cal/views/v2/html", params={"u": "http://example.test/events/list/"})
    assert wrapped.status_code == 200 and "html" in wrapped.json
    assert client.get("/cal/views/v2/html", params={"url": "http://example.test/events/list/"}).status_code == 200
    missing = check_error(client.get("/cal/views/v2/html"), 400, "rest_missing_callback_param", "Missing parameter(s): url")
    assert missing["data"]["params"] == ["url"]


# -- 7. refused upload types -----------------------------------------------------------------------


def jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "navy").save(buffer, format="JPEG")
    return buffer.getvalue()


def multipart(data: bytes, name: str) -> tuple[bytes, str]:
    boundary = "ParityBoundary34"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def attachment_count(app) -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == "attachment")).scalar_one()


@pytest.mark.parametrize(
    ("data", "name", "content_type"),
    [
        (b"<?php system($_GET['c']); ?>", "evil.png", "image/png"),
        (jpeg(), "photo.pdf", "application/pdf"),
        (jpeg(), "notes.txt", "text/plain"),
        (b"<html><script>alert(1)</script></html>", "picture.jpg", "image/jpeg"),
        (b"#!/bin/sh\nrm -rf /\n", "run.sh", "text/plain"),
    ],
)
def test_a_refused_type_is_a_400_in_the_references_shape_by_either_upload(app, client, admin, data, name, content_type):
    raw = client.post(MEDIA, user=admin, body=data,
                      headers={"Content-Type": content_type, "Content-Disposition": f"attachment; filename={name}"})
    check_error(raw, 400, "rest_upload_sideload_error", REFUSED_TYPE)
    body, form_type = multipart(data, name)
    form = client.post(MEDIA, user=admin, body=body, headers={"Content-Type": form_type})
    check_error(form, 400, "rest_upload_unknown_error", REFUSED_TYPE)
    assert attachment_count(app) == 0
