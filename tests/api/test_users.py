"""/cms/v2/users, /users/{id} and /users/me against the reference's recorded answers."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from calpress.store.changes import record as record_change
from calpress.store.tables import posts
from calpress.store.tables import users as users_table

VIEW_KEYS = ["id", "name", "url", "description", "link", "slug", "avatar_urls", "meta", "_links"]
EDIT_KEYS = [
    "id", "username", "name", "first_name", "last_name", "email", "url", "description", "link", "locale",
    "nickname", "slug", "roles", "registered_date", "capabilities", "extra_capabilities", "avatar_urls", "meta", "_links",
]


def publish_post(app, author_id):
    now = dt.datetime(2026, 1, 1, 12, 0)
    with app.site.write() as conn:
        conn.execute(
            sa.insert(posts).values(
                type="post", status="publish", author=author_id, slug=f"p{author_id}", title="t", content="", excerpt="",
                date_local=now, date_utc=now, modified_local=now, modified_utc=now,
            )
        )
        record_change(conn, "item", "create")  # as every write of the item service does (cached answers follow it)


def test_me_anonymous_is_401(client):
    response = client.get("/cms/v2/users/me")
    assert response.status_code == 401
    assert response.json == {"code": "rest_not_logged_in", "message": "You are not currently logged in.", "data": {"status": 401}}
    assert response.headers["allow"] == "GET"
    assert response.headers["vary"] == "Origin, Accept-Encoding"


def test_me_view_context(client, admin):
    response = client.get("/cms/v2/users/me", user=admin)
    assert response.status_code == 200
    body = response.json
    assert list(body) == VIEW_KEYS
    assert body["id"] == admin.id
    assert body["link"] == "http://example.test/author/administrator/"
    assert body["meta"] == []
    assert set(body["avatar_urls"]) == {"24", "48", "96"}
    assert body["avatar_urls"]["24"].startswith("https://secure.gravatar.com/avatar/") and body["avatar_urls"]["24"].endswith("?s=24&d=mm&r=g")
    assert body["_links"]["self"][0]["href"] == f"http://example.test/cms/v2/users/{admin.id}"
    assert body["_links"]["self"][0]["targetHints"]["allow"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    assert body["_links"]["collection"] == [{"href": "http://example.test/cms/v2/users"}]
    assert response.headers["allow"] == "GET, POST, PUT, PATCH, DELETE"
    assert response.headers["cache-control"] == "no-cache, must-revalidate, max-age=0, no-store, private"
    assert response.headers["vary"] == "Accept-Encoding"  # no Origin: a logged-in answer is never shared


def test_me_edit_context(client, admin):
    body = client.get("/cms/v2/users/me", params={"context": "edit"}, user=admin).json
    assert list(body) == EDIT_KEYS
    assert body["username"] == "administrator"
    assert body["roles"] == ["administrator"]
    assert body["capabilities"]["manage_options"] is True
    assert body["capabilities"]["edit_cal_events"] is True
    assert body["capabilities"]["administrator"] is True
    assert body["extra_capabilities"] == {"administrator": True}
    assert body["meta"] == {"persisted_preferences": []}
    assert body["locale"] == "en_US"
    assert body["registered_date"].endswith("+00:00")


def test_subscriber_me_allow_header(client, accounts):
    subscriber = accounts["subscriber"]
    response = client.get("/cms/v2/users/me", user=subscriber)
    assert response.status_code == 200
    assert response.headers["allow"] == "GET, POST, PUT, PATCH"
    assert response.json["_links"]["self"][0]["targetHints"]["allow"] == ["GET", "POST", "PUT", "PATCH"]
    caps = client.get("/cms/v2/users/me", params={"context": "edit"}, user=subscriber).json["capabilities"]
    assert caps == {"read": True, "level_0": True, "subscriber": True}


def test_anonymous_list_shows_only_published_authors(client, app, accounts):
    assert client.get("/cms/v2/users").json == []
    publish_post(app, accounts["author"].id)
    response = client.get("/cms/v2/users")
    assert [u["slug"] for u in response.json] == ["author"]
    assert response.headers["x-wp-total"] == "1"
    assert response.headers["x-wp-totalpages"] == "1"


def test_admin_lists_everyone_with_paging(client, accounts, admin):
    response = client.get("/cms/v2/users", params={"per_page": 2, "orderby": "id"}, user=admin)
    assert response.status_code == 200
    assert [u["id"] for u in response.json] == sorted(a.id for a in accounts.values())[:2]
    assert response.headers["x-wp-total"] == "5"
    assert response.headers["x-wp-totalpages"] == "3"
    assert 'rel="next"' in response.headers["link"]
    filtered = client.get("/cms/v2/users", params={"roles": "editor,author"}, user=admin).json
    assert sorted(u["slug"] for u in filtered) == ["author", "editor"]


def test_list_filters_need_list_users(client, accounts):
    subscriber = accounts["subscriber"]
    cases = [
        ({"roles": "editor"}, "rest_user_cannot_view"),
        ({"context": "edit"}, "rest_forbidden_context"),
        ({"orderby": "email"}, "rest_forbidden_orderby"),
    ]
    for params, code in cases:
        response = client.get("/cms/v2/users", params=params, user=subscriber)
        assert response.status_code == 403 and response.json["code"] == code
        response = client.get("/cms/v2/users", params=params)
        assert response.status_code == 401 and response.json["code"] == code


def test_collection_parameter_errors(client):
    response = client.get("/cms/v2/users", params={"per_page": "abc"})
    assert response.status_code == 400
    assert response.json["data"]["details"]["per_page"]["code"] == "rest_invalid_type"
    response = client.get("/cms/v2/users", params={"orderby": "bogus"})
    assert response.status_code == 400
    assert response.json["data"]["params"]["orderby"].startswith("orderby is not one of id, include, name")


def test_create_user(client, admin, app):
    response = client.post(
        "/cms/v2/users",
        json={"username": "newbie", "email": "newbie@example.test", "password": "secret-pw", "roles": ["author"], "name": "New Bie"},
        user=admin,
    )
    assert response.status_code == 201
    body = response.json
    assert body["username"] == "newbie" and body["roles"] == ["author"] and body["name"] == "New Bie"
    assert response.headers["location"] == f"http://example.test/cms/v2/users/{body['id']}"
    assert "password" not in body
    again = client.post("/cms/v2/users", json={"username": "newbie", "email": "other@example.test", "password": "x"}, user=admin)
    assert again.status_code == 400 and again.json["code"] == "existing_user_login"
    same_mail = client.post("/cms/v2/users", json={"username": "other", "email": "newbie@example.test", "password": "x"}, user=admin)
    assert same_mail.status_code == 400 and same_mail.json["code"] == "existing_user_email"


def test_create_user_errors_write_nothing(client, admin, accounts):
    before = client.get("/cms/v2/users", user=admin).headers["x-wp-total"]
    missing = client.post("/cms/v2/users", json={"name": "nobody"}, user=admin)
    assert missing.status_code == 400
    assert missing.json["message"] == "Missing parameter(s): username, email, password"
    assert missing.json["data"]["params"] == ["username", "email", "password"]
    bad_email = client.post("/cms/v2/users", json={"username": "x1", "email": "not-an-email", "password": "p"}, user=admin)
    assert bad_email.status_code == 400 and bad_email.json["data"]["details"]["email"]["code"] == "rest_invalid_email"
    bad_role = client.post("/cms/v2/users", json={"username": "x2", "email": "x2@example.test", "password": "p", "roles": ["king"]}, user=admin)
    assert bad_role.status_code == 400 and bad_role.json["code"] == "rest_user_invalid_role"
    bad_login = client.post("/cms/v2/users", json={"username": "bad<name>", "email": "x3@example.test", "password": "p"}, user=admin)
    assert bad_login.status_code == 400 and bad_login.json["code"] == "rest_invalid_param"
    empty_pw = client.post("/cms/v2/users", json={"username": "x4", "email": "x4@example.test", "password": ""}, user=admin)
    assert empty_pw.status_code == 400
    assert client.get("/cms/v2/users", user=admin).headers["x-wp-total"] == before
    for role in ("editor", "subscriber"):
        response = client.post("/cms/v2/users", json={"username": "z", "email": "z@example.test", "password": "p"}, user=accounts[role])
        assert response.status_code == 403 and response.json["code"] == "rest_cannot_create_user"
    response = client.post("/cms/v2/users", json={"username": "z", "email": "z@example.test", "password": "p"})
    assert response.status_code == 401


def test_get_user_rules(client, accounts, app):
    author = accounts["author"]
    missing = client.get("/cms/v2/users/999999")
    assert missing.status_code == 404 and missing.json == {"code": "rest_user_invalid_id", "message": "Invalid user ID.", "data": {"status": 404}}
    hidden = client.get(f"/cms/v2/users/{author.id}")
    assert hidden.status_code == 401 and hidden.json["code"] == "rest_user_cannot_view"
    publish_post(app, author.id)
    assert client.get(f"/cms/v2/users/{author.id}").status_code == 200
    assert client.get(f"/cms/v2/users/{author.id}", params={"context": "edit"}, user=accounts["editor"]).status_code == 403


def test_update_own_profile_and_others(client, accounts, admin):
    subscriber = accounts["subscriber"]
    response = client.post("/cms/v2/users/me", json={"name": "Sub Scriber", "description": "hi"}, user=subscriber)
    assert response.status_code == 200
    assert response.json["name"] == "Sub Scriber" and response.json["description"] == "hi"
    assert response.json["username"] == "subscriber"  # answered in edit context
    other = client.put(f"/cms/v2/users/{admin.id}", json={"name": "x"}, user=subscriber)
    assert other.status_code == 403 and other.json["code"] == "rest_cannot_edit"
    roles = client.put(f"/cms/v2/users/{subscriber.id}", json={"roles": ["administrator"]}, user=subscriber)
    assert roles.status_code == 403 and roles.json["code"] == "rest_cannot_edit_roles"
    rename = client.put(f"/cms/v2/users/{subscriber.id}", json={"username": "renamed"}, user=admin)
    assert rename.status_code == 400 and rename.json["code"] == "rest_user_invalid_argument"
    promote = client.patch(f"/cms/v2/users/{subscriber.id}", json={"roles": ["editor"]}, user=admin)
    assert promote.status_code == 200 and promote.json["roles"] == ["editor"]
    taken = client.put(f"/cms/v2/users/{subscriber.id}", json={"email": admin.email}, user=admin)
    assert taken.status_code == 400 and taken.json["code"] == "rest_user_invalid_email"


def test_delete_user(client, accounts, admin, app):
    author = accounts["author"]
    publish_post(app, author.id)
    no_force = client.delete(f"/cms/v2/users/{author.id}", params={"reassign": admin.id}, user=admin)
    assert no_force.status_code == 501 and no_force.json["code"] == "rest_trash_not_supported"
    no_reassign = client.delete(f"/cms/v2/users/{author.id}", params={"force": "true"}, user=admin)
    assert no_reassign.status_code == 400 and no_reassign.json["code"] == "rest_missing_callback_param"
    bad = client.delete(f"/cms/v2/users/{author.id}", params={"force": "true", "reassign": author.id}, user=admin)
    assert bad.status_code == 400 and bad.json["code"] == "rest_user_invalid_reassign"
    editor = client.delete(f"/cms/v2/users/{author.id}", params={"force": "true", "reassign": admin.id}, user=accounts["editor"])
    assert editor.status_code == 403 and editor.json["code"] == "rest_user_cannot_delete"
    done = client.delete(f"/cms/v2/users/{author.id}", params={"force": "true", "reassign": admin.id}, user=admin)
    assert done.status_code == 200
    assert done.json["deleted"] is True and done.json["previous"]["id"] == author.id
    assert client.get(f"/cms/v2/users/{author.id}", user=admin).status_code == 404
    with app.site.read() as conn:
        authors = conn.execute(sa.select(posts.c.author)).scalars().all()
    assert authors == [admin.id]


# -- listing many users (filtered, sorted and paged in SQL) ---------------------------------------


def add_users(app, count, start=0, registered=None):
    """``count`` more users (subscribers) straight into the table; ``registered(i)`` dates them."""
    now = dt.datetime(2026, 1, 1, 12, 0)
    with app.site.write() as conn:
        for i in range(start, start + count):
            conn.execute(
                sa.insert(users_table).values(
                    login=f"member{i:03}", email=f"{'Mb' if i % 3 else 'ma'}{i % 7}.{i:03}@example.test",
                    display_name=f"Member {i % 4}", nicename=f"member{i:03}",
                    registered_utc=registered(i) if registered else now, roles=["subscriber"],
                )
            )
        record_change(conn, "user", "create")


def test_admin_pages_through_many_users(client, app, accounts, admin):
    add_users(app, 20)
    everyone = client.get("/cms/v2/users", params={"per_page": 100, "orderby": "id"}, user=admin).json
    ids = [u["id"] for u in everyone]
    assert len(ids) == 25 and ids == sorted(ids)
    response = client.get("/cms/v2/users", params={"per_page": 10, "page": 3, "orderby": "id"}, user=admin)
    assert response.status_code == 200
    assert [u["id"] for u in response.json] == ids[20:]
    assert response.headers["x-wp-total"] == "25"
    assert response.headers["x-wp-totalpages"] == "3"
    assert 'rel="prev"' in response.headers["link"] and "page=2" in response.headers["link"]
    assert 'rel="next"' not in response.headers["link"]
    second = client.get("/cms/v2/users", params={"per_page": 10, "page": 2, "orderby": "id", "order": "desc"}, user=admin)
    assert [u["id"] for u in second.json] == ids[::-1][10:20]
    assert 'rel="prev"' in second.headers["link"] and 'rel="next"' in second.headers["link"]
    offset = client.get("/cms/v2/users", params={"per_page": 10, "offset": 22, "orderby": "id"}, user=admin)
    assert [u["id"] for u in offset.json] == ids[22:]
    assert offset.headers["x-wp-total"] == "25" and 'rel="next"' not in offset.headers["link"]
    head = client.request("HEAD", "/cms/v2/users", params={"per_page": 10, "page": 3}, user=admin)
    assert head.status_code == 200 and head.text == ""
    assert head.headers["x-wp-total"] == "25" and head.headers["x-wp-totalpages"] == "3"
    # Anonymous requesters page through published authors only.
    for account in list(accounts.values())[:3]:
        publish_post(app, account.id)
    public = client.get("/cms/v2/users", params={"per_page": 2, "page": 2})
    assert len(public.json) == 1 and public.headers["x-wp-total"] == "3"


def test_admin_orders_by_email_and_registered_date(client, app, accounts, admin):
    day = dt.datetime(2025, 6, 1, 8, 0)
    add_users(app, 20, registered=lambda i: day + dt.timedelta(days=i % 5))  # ties, broken by id
    listed = client.get("/cms/v2/users", params={"per_page": 100, "context": "edit"}, user=admin).json
    assert len(listed) == 25
    by_email = sorted(listed, key=lambda u: (u["email"].lower(), u["id"]))
    by_date = sorted(listed, key=lambda u: (u["registered_date"], u["id"]))
    for orderby, expected in (("email", by_email), ("registered_date", by_date)):
        for order, ordered in (("asc", expected), ("desc", expected[::-1])):
            params = {"per_page": 10, "orderby": orderby, "order": order}
            pages = [client.get("/cms/v2/users", params={**params, "page": page}, user=admin) for page in (1, 2, 3)]
            assert [u["id"] for page in pages for u in page.json] == [u["id"] for u in ordered], (orderby, order)
            assert {page.headers["x-wp-total"] for page in pages} == {"25"}
    # "Ma..." and "mb..." interleave by their lower-cased form, not upper case first.
    assert [u["email"][:2].lower() for u in by_email] == sorted(u["email"][:2].lower() for u in by_email)


def test_listing_users_costs_the_same_statements_for_5_or_120_users(client, app, admin, accounts):
    from content_support import statement_counter

    params = {"per_page": 100, "context": "edit", "orderby": "email", "search": "m", "roles": "subscriber,administrator"}
    client.get("/cms/v2/users/me", user=admin)  # the once-a-while work (password last used ...) out of the way
    costs = []
    for total, more in ((5, 0), (120, 115)):
        add_users(app, more)
        with statement_counter(app) as statements:
            response = client.get("/cms/v2/users", params=params, user=admin)
        assert response.status_code == 200
        assert response.headers["x-wp-total"] == str(total - 3)  # the editor, author and contributor have no "m"
        assert len(response.json) == min(total - 3, 100)
        costs.append(statements)
    assert costs[0] == costs[1]
    assert sum("count(*) OVER ()" in statement for statement in costs[1]) == 1
