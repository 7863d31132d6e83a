"""Who may do what on every cms/v2 content route: each route and method, for anonymous
requesters and every role, against the capability table of cms-api.md 6.7 (and 2.15 for
blocks). The target of the item routes is a published item of the administrator's."""

from __future__ import annotations

import pytest
from content_support import make_item

ROLES = (None, "subscriber", "contributor", "author", "editor", "administrator")
EVERYONE = {"subscriber", "contributor", "author", "editor", "administrator"}
WRITERS = {"contributor", "author", "editor", "administrator"}
EDITORS = {"editor", "administrator"}

# base -> (internal type, who may create, who may read others' published items, who may use
# context=edit on the collection, who may edit/delete others' published items)
MATRIX = {
    "posts": ("post", WRITERS, EVERYONE | {None}, WRITERS, EDITORS),
    "pages": ("page", EDITORS, EVERYONE | {None}, EDITORS, EDITORS),
    # Blocks: reading needs edit_posts, creating publish_posts.
    "blocks": ("wp_block", {"author", "editor", "administrator"}, WRITERS, WRITERS, EDITORS),
    "cal_venue": ("cal_venue", WRITERS, EVERYONE | {None}, WRITERS, EDITORS),
    "cal_organizer": ("cal_organizer", WRITERS, EVERYONE | {None}, WRITERS, EDITORS),
    "cal_events": ("cal_events", WRITERS, EVERYONE | {None}, WRITERS, EDITORS),
}


def denied(role):
    return 403 if role else 401


@pytest.mark.parametrize("base", list(MATRIX))
def test_permission_matrix(client, app, accounts, base):
    type_, creators, readers, edit_listers, editors = MATRIX[base]
    admin = accounts["administrator"]
    outcomes = {}
    expected = {}
    for role in ROLES:
        user = accounts[role] if role else None
        target = make_item(app, type_, title=f"Target for {role}", content="Body", author=admin.id).id
        requests = {
            "GET collection": ("GET", f"/cms/v2/{base}", {}, None, 200),
            "GET collection edit": ("GET", f"/cms/v2/{base}", {"context": "edit"}, None, 200 if role in edit_listers else denied(role)),
            "POST collection": ("POST", f"/cms/v2/{base}", {}, {"title": "New", "content": "x"}, 201 if role in creators else denied(role)),
            "GET item": ("GET", f"/cms/v2/{base}/{target}", {}, None, 200 if role in readers else denied(role)),
            "GET item edit": ("GET", f"/cms/v2/{base}/{target}", {"context": "edit"}, None, 200 if role in editors else denied(role)),
            "POST item": ("POST", f"/cms/v2/{base}/{target}", {}, {"title": "Edited"}, 200 if role in editors else denied(role)),
            "PUT item": ("PUT", f"/cms/v2/{base}/{target}", {}, {"title": "Edited"}, 200 if role in editors else denied(role)),
            "PATCH item": ("PATCH", f"/cms/v2/{base}/{target}", {}, {"title": "Edited"}, 200 if role in editors else denied(role)),
            "DELETE item": ("DELETE", f"/cms/v2/{base}/{target}", {}, None, 200 if role in editors else denied(role)),
        }
        for name, (method, path, params, body, status) in requests.items():
            response = client.request(method, path, params=params, json=body, user=user)
            outcomes[(role, name)] = response.status_code
            expected[(role, name)] = status
            if status in (401, 403) and name != "GET item":
                assert response.json["code"] in (
                    "rest_forbidden_context", "rest_cannot_create", "rest_cannot_edit", "rest_cannot_delete", "rest_forbidden",
                ), (role, name, response.json)
    assert outcomes == expected


@pytest.mark.parametrize("role, create, own_edit", [
    ("contributor", 201, 200), ("author", 201, 200), ("editor", 201, 200), ("subscriber", 403, None),
])
def test_own_drafts(client, app, accounts, role, create, own_edit):
    user = accounts[role]
    response = client.post("/cms/v2/posts", json={"title": "Mine"}, user=user)
    assert response.status_code == create
    if own_edit is None:
        return
    post_id = response.json["id"]
    assert client.get(f"/cms/v2/posts/{post_id}", params={"context": "edit"}, user=user).status_code == own_edit
    assert client.put(f"/cms/v2/posts/{post_id}", json={"title": "Still mine"}, user=user).status_code == own_edit
    assert client.delete(f"/cms/v2/posts/{post_id}", user=user).status_code == own_edit


def test_allow_header_follows_permissions(client, app, accounts):
    post = make_item(app, title="Allowed", author=accounts["author"].id)
    expected = {
        None: "GET",
        "subscriber": "GET",
        "contributor": "GET",
        "author": "GET, POST, PUT, PATCH, DELETE",
        "editor": "GET, POST, PUT, PATCH, DELETE",
    }
    for role, allow in expected.items():
        user = accounts[role] if role else None
        response = client.get(f"/cms/v2/posts/{post.id}", user=user)
        assert response.headers["Allow"] == allow, role
        assert response.json["_links"]["self"][0]["targetHints"]["allow"] == allow.split(", ")


REVISION_DENIALS = ("rest_cannot_read", "rest_cannot_edit", "rest_cannot_delete", "rest_cannot_create", "rest_forbidden")


@pytest.mark.parametrize("base", list(MATRIX))
def test_revision_and_autosave_permission_matrix(client, app, accounts, base):
    """The revision and autosave routes of every type follow edit_post / delete_post on the parent:
    for an administrator's published item, only editors and administrators."""
    type_, *_ = MATRIX[base]
    admin = accounts["administrator"]
    outcomes, expected = {}, {}
    for role in ROLES:
        user = accounts[role] if role else None
        target = make_item(app, type_, title=f"Target for {role}", content="Body", author=admin.id).id
        assert client.post(f"/cms/v2/{base}/{target}", json={"title": "Revised"}, user=admin).status_code == 200
        revision = client.get(f"/cms/v2/{base}/{target}/revisions", user=admin).json[0]["id"]
        allowed = role in EDITORS
        requests = {
            "GET revisions": ("GET", f"/cms/v2/{base}/{target}/revisions", {}, None, 200),
            "GET revision": ("GET", f"/cms/v2/{base}/{target}/revisions/{revision}", {}, None, 200),
            "GET autosaves": ("GET", f"/cms/v2/{base}/{target}/autosaves", {}, None, 200),
            "POST autosave": ("POST", f"/cms/v2/{base}/{target}/autosaves", {}, {"title": "Draft edit", "content": "y"}, 200),
            "DELETE revision": ("DELETE", f"/cms/v2/{base}/{target}/revisions/{revision}", {"force": "true"}, None, 200),
        }
        for name, (method, path, params, body, status) in requests.items():
            response = client.request(method, path, params=params, json=body, user=user)
            outcomes[(role, name)] = response.status_code
            expected[(role, name)] = status if allowed else denied(role)
            if not allowed:
                assert response.json["code"] in REVISION_DENIALS, (role, name, response.json)
    assert outcomes == expected
