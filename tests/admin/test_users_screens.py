"""The users' screens (issue 30) through the app in process, on both databases: the users list
(role views and counts, search, pages, row and bulk actions), deleting with the content given to
another user (never oneself), Add New User (a generated password shown once), Edit User, the
Profile (the password change asks the current one and keeps only this browser logged in) and
application passwords; who may do what is the API's answer, every change is read back through
the REST API or the database."""

from __future__ import annotations

import re
from html import unescape
from types import SimpleNamespace

import pytest
from admin_support import Browser, fields_of, location, query_lists
from appfixtures import free_port
from mailfixtures import smtp_server

from calpress.auth import password_reset
from calpress.auth import users as user_store

USERS = "/cms/v2/users"


@pytest.fixture()
def mailbox():
    with smtp_server() as box:
        yield box


@pytest.fixture()
def settings(settings, request):
    """Mail through the test's SMTP server for the tests that ask for ``mailbox``, to a closed
    port for those that ask for ``dead_mail``; else no mail (the default)."""
    if "mailbox" in request.fixturenames:
        return settings.with_overrides(smtp_url=request.getfixturevalue("mailbox").url)
    if "dead_mail" in request.fixturenames:
        return settings.with_overrides(smtp_url=f"smtp://127.0.0.1:{free_port()}?timeout=2")
    return settings


@pytest.fixture()
def dead_mail():
    return True


def user_of(client, admin, user_id: int):
    return client.get(f"{USERS}/{user_id}", user=admin, params={"context": "edit"})


def login_cookie(answer) -> dict[str, str]:
    """The Cookie header that the login cookie ``answer`` sets would send."""
    return {"Cookie": f"calpress_logged_in={answer.cookies['calpress_logged_in'].value}"}


def error_beside(html: str, name: str) -> str:
    """The error shown beside field ``name``, checking the field points at it."""
    field = re.search(rf'<(?:input|select|textarea)[^>]*\bname="{re.escape(name)}"[^>]*>', html)
    assert field, name
    assert 'aria-invalid="true"' in field.group(0), field.group(0)
    assert f"{name}-error" in re.search(r'aria-describedby="([^"]*)"', field.group(0)).group(1)
    found = re.search(rf'<p class="field-error" id="{re.escape(name)}-error">(.*?)</p>', html, re.S)
    assert found, name
    return unescape(found.group(1))


def rows_of(html: str) -> list[str]:
    """The usernames the users list shows, in order."""
    return [unescape(m) for m in re.findall(r'<td class="column-username"[^>]*>\s*<strong>(?:<a [^>]*>)?([^<]+)', html)]


# -- who may open what --------------------------------------------------------------------------


def test_only_those_who_may_list_users_open_the_users_screens(as_role, accounts):
    editor = as_role("editor")
    for path in ("/wp-admin/users.php", "/wp-admin/user-new.php"):
        answer = editor.get(path)
        assert answer.status_code == 403, path
        assert "Sorry, you are not allowed to access this page." in answer.text
    other = editor.get(f"/wp-admin/user-edit.php?user_id={accounts['author'].id}")
    assert other.status_code == 403 and "Sorry, you are not allowed to edit this user." in other.text
    assert editor.get("/wp-admin/user-edit.php?user_id=99999").status_code in (403, 404)
    assert as_role("administrator").get("/wp-admin/user-edit.php?user_id=99999").status_code == 404
    page = as_role("subscriber").get("/wp-admin/profile.php")
    assert page.status_code == 200 and "<h1>Profile</h1>" in page.text
    # The menu: Users for administrators, the top-level Profile for the others.
    assert 'href="/wp-admin/users.php"' in as_role("administrator").get("/wp-admin/").text
    subscriber_menu = as_role("subscriber").get("/wp-admin/").text
    assert 'href="/wp-admin/users.php"' not in subscriber_menu and 'href="/wp-admin/profile.php"' in subscriber_menu


# -- the users list -----------------------------------------------------------------------------


def test_the_list_shows_role_views_with_counts_search_and_post_counts(as_role, client, accounts, admin, make_account):
    make_account("second-editor", "editor")
    created = client.post("/cms/v2/posts", user=accounts["author"], json={"title": "Mine", "status": "publish"})
    assert created.status_code == 201
    client.post("/cms/v2/posts", user=accounts["author"], json={"title": "Draft", "status": "draft"})
    browser = as_role("administrator")
    page = browser.get("/wp-admin/users.php").text
    views = dict(re.findall(r'<a href="/wp-admin/users.php(?:\?role=\w+)?"[^>]*>(\w+) <span class="count">\((\d+)\)</span>', page))
    assert views == {"All": "6", "Administrator": "1", "Editor": "2", "Author": "1", "Contributor": "1", "Subscriber": "1"}
    assert set(rows_of(page)) == {"administrator", "editor", "second-editor", "author", "contributor", "subscriber"}
    author_row = re.search(rf'<tr id="user-{accounts["author"].id}">(.*?)</tr>', page, re.S).group(1)
    assert re.search(r'data-colname="Posts">1<', author_row)  # published only, not the draft
    assert "mailto:author@example.test" in author_row and ">Author<" in author_row

    editors = browser.get("/wp-admin/users.php?role=editor").text
    assert sorted(rows_of(editors)) == ["editor", "second-editor"]
    assert 'aria-current="page">Editor <span class="count">(2)</span>' in editors
    found = browser.get("/wp-admin/users.php?s=contrib").text
    assert rows_of(found) == ["contributor"] and "Search results for: <strong>contrib</strong>" in found
    assert "No users found." in browser.get("/wp-admin/users.php?s=nobody-at-all").text
    by_email = rows_of(browser.get("/wp-admin/users.php?orderby=email&order=desc").text)
    assert by_email == sorted(by_email, key=lambda login: f"{login}@example.test", reverse=True)


def test_the_list_pages_twenty_users_at_a_time(as_role, make_account):
    for n in range(17):
        make_account(f"member{n:02d}")
    browser = as_role("administrator")
    first = browser.get("/wp-admin/users.php").text
    second = browser.get("/wp-admin/users.php?paged=2").text
    assert len(rows_of(first)) == 20 and len(rows_of(second)) == 2
    assert not set(rows_of(first)) & set(rows_of(second))
    assert "Page 1 of 2" in first and 'rel="next"' in first
    assert query_lists(location(browser.get("/wp-admin/users.php?paged=9")))["paged"] == ["2"]


def test_row_actions_never_offer_to_delete_oneself(as_role, accounts):
    page = as_role("administrator").get("/wp-admin/users.php").text
    own = re.search(rf'<tr id="user-{accounts["administrator"].id}">(.*?)</tr>', page, re.S).group(1)
    other = re.search(rf'<tr id="user-{accounts["editor"].id}">(.*?)</tr>', page, re.S).group(1)
    assert "action=delete" not in own and 'href="/wp-admin/profile.php"' in own
    assert "action=delete" in other and f'href="/wp-admin/user-edit.php?user_id={accounts["editor"].id}"' in other


# -- deleting -----------------------------------------------------------------------------------


def test_deleting_a_user_gives_their_content_to_another(as_role, client, admin, accounts):
    author, editor = accounts["author"], accounts["editor"]
    post = client.post("/cms/v2/posts", user=author, json={"title": "Kept", "status": "publish"}).json
    browser = as_role("administrator")
    page = browser.get("/wp-admin/users.php").text
    link = unescape(re.search(rf'href="(/wp-admin/users.php\?action=delete&amp;user={author.id}&amp;_wpnonce=\w+)"', page).group(1))
    confirm = browser.get(link)
    assert confirm.status_code == 200 and "<h1>Delete Users</h1>" in confirm.text
    assert "You have specified this user for deletion:" in confirm.text and f"ID #{author.id}: author" in confirm.text
    assert "What should be done with content owned by this user?" in confirm.text
    fields = fields_of(confirm.text, "updateusers")
    assert fields["users[]"] == [str(author.id)] and "delete_option" not in fields  # nothing chosen for the user

    unanswered = browser.post("/wp-admin/users.php", fields)
    again = browser.get(location(unanswered))
    assert "Please select an option." in again.text
    assert user_of(client, admin, author.id).status_code == 200

    done = browser.post("/wp-admin/users.php", {**fields, "delete_option": "reassign", "reassign_user": str(editor.id)})
    target = location(done)
    assert query_lists(target)["update"] == ["del"] and query_lists(target)["delete_count"] == ["1"]
    assert "User deleted." in browser.get(target).text
    assert user_of(client, admin, author.id).status_code == 404
    assert client.get(f"/cms/v2/posts/{post['id']}", user=admin).json["author"] == editor.id


def test_deleting_a_user_with_their_content(as_role, client, admin, accounts):
    contributor = accounts["contributor"]
    draft = client.post("/cms/v2/posts", user=contributor, json={"title": "Gone", "status": "draft"}).json
    browser = as_role("administrator")
    confirm = browser.get(f"/wp-admin/users.php?action=delete&user={contributor.id}&_wpnonce="
                          + fields_of(browser.get("/wp-admin/users.php").text, "users-filter")["_wpnonce"])
    fields = fields_of(confirm.text, "updateusers")
    location(browser.post("/wp-admin/users.php", {**fields, "delete_option": "delete"}))
    assert user_of(client, admin, contributor.id).status_code == 404
    assert client.get(f"/cms/v2/posts/{draft['id']}", user=admin, params={"context": "edit"}).status_code == 404


def test_a_user_without_content_is_deleted_without_the_question(as_role, client, admin, accounts):
    subscriber = accounts["subscriber"]
    browser = as_role("administrator")
    nonce = fields_of(browser.get("/wp-admin/users.php").text, "users-filter")["_wpnonce"]
    confirm = browser.get(f"/wp-admin/users.php?action=delete&user={subscriber.id}&_wpnonce={nonce}").text
    assert "What should be done with content" not in confirm
    fields = fields_of(confirm, "updateusers")
    assert fields["delete_option"] == "delete"
    location(browser.post("/wp-admin/users.php", fields))
    assert user_of(client, admin, subscriber.id).status_code == 404


def test_an_administrator_cannot_delete_themselves(as_role, client, admin, accounts):
    browser = as_role("administrator")
    listed = fields_of(browser.get("/wp-admin/users.php").text, "users-filter")
    bulk = browser.post("/wp-admin/users.php", {"_wpnonce": listed["_wpnonce"], "action": "delete",
                                                "users[]": [str(admin.id), str(accounts["subscriber"].id)]})
    confirm = browser.get(location(bulk))
    assert "You have specified these users for deletion:" in confirm.text
    assert "The current user will not be deleted." in confirm.text
    fields = fields_of(confirm.text, "updateusers")
    assert fields["users[]"] == [str(accounts["subscriber"].id)]
    # Even a form that names them deletes the others only.
    done = browser.post("/wp-admin/users.php", {**fields, "users[]": [str(admin.id), str(accounts["subscriber"].id)]})
    page = browser.get(location(done)).text
    assert "You cannot delete the current user." in page and "User deleted." in page
    assert user_of(client, admin, admin.id).status_code == 200
    assert user_of(client, admin, accounts["subscriber"].id).status_code == 404


def test_bulk_change_of_role_as_the_api_allows(as_role, client, admin, accounts):
    browser = as_role("administrator")
    nonce = fields_of(browser.get("/wp-admin/users.php").text, "users-filter")["_wpnonce"]
    ids = [str(accounts["subscriber"].id), str(accounts["contributor"].id)]
    done = browser.post("/wp-admin/users.php", {"_wpnonce": nonce, "action": "-1", "new_role": "author",
                                                "changeit": "Change", "users[]": ids})
    assert "Changed roles." in browser.get(location(done)).text
    for uid in ids:
        assert user_of(client, admin, int(uid)).json["roles"] == ["author"]
    # An administrator may not give themselves a role that cannot edit users: the others change.
    mixed = browser.post("/wp-admin/users.php", {"_wpnonce": nonce, "new_role": "editor", "changeit": "Change",
                                                 "users[]": [str(admin.id), ids[0]]})
    page = browser.get(location(mixed)).text
    assert "The current user’s role must have user editing capabilities." in page
    assert "Other user roles have been changed." in page
    assert user_of(client, admin, admin.id).json["roles"] == ["administrator"]
    assert user_of(client, admin, int(ids[0])).json["roles"] == ["editor"]


# -- Add New User -------------------------------------------------------------------------------


def test_a_new_user_gets_a_generated_password_shown_once(as_role, client, admin, app):
    browser = as_role("administrator")
    form = browser.form("/wp-admin/user-new.php", "createuser")
    assert form["role"] == "subscriber"  # the default_role option
    assert "send_user_notification" not in browser.get("/wp-admin/user-new.php").text  # no mail support yet
    form.update({"user_login": "newcomer", "email": "newcomer@example.test", "first_name": "Nia", "last_name": "Okafor",
                 "url": "https://nia.example", "role": "author"})
    answer = browser.post("/wp-admin/user-new.php", form)
    assert answer.status_code == 200  # the answer to the form itself: no redirect carries the password
    assert "New user created." in answer.text
    password = unescape(re.search(r'id="new-user-password"[^>]*value="([^"]*)"', answer.text).group(1))
    assert len(password) == 24 and "\\" not in password
    assert "no-store" in answer.headers["cache-control"]
    assert password not in str(answer.headers)
    found = client.get(USERS, user=admin, params={"search": "newcomer", "context": "edit"}).json
    assert len(found) == 1
    user = found[0]
    assert (user["username"], user["email"], user["first_name"], user["last_name"], user["roles"]) == \
        ("newcomer", "newcomer@example.test", "Nia", "Okafor", ["author"])
    assert user["url"] == "https://nia.example" and user["name"] == "Nia Okafor"
    with app.site.read() as conn:
        stored = user_store.get_user(conn, user["id"])
    assert stored.password_hash != password and user_store.check_password(stored, password)
    # It works for logging in, and no later page shows it again.
    newcomer = Browser(client, SimpleNamespace(login="newcomer", password=password))
    assert newcomer.get("/wp-admin/profile.php").status_code == 200
    assert password not in browser.get(f"/wp-admin/user-edit.php?user_id={user['id']}").text


def test_a_new_user_with_a_typed_password(as_role, client, admin):
    browser = as_role("administrator")
    form = browser.form("/wp-admin/user-new.php", "createuser")
    form.update({"user_login": "typed", "email": "typed@example.test", "pass1": "a long typed secret",
                 "pass2": "a long typed secret", "role": "editor"})
    target = location(browser.post("/wp-admin/user-new.php", form))
    assert query_lists(target)["update"] == ["add"]
    user_id = int(query_lists(target)["id"][0])
    page = browser.get(target).text
    assert "New user created." in page and f'href="/wp-admin/user-edit.php?user_id={user_id}">Edit user</a>' in page
    assert user_of(client, admin, user_id).json["roles"] == ["editor"]
    assert Browser(client, SimpleNamespace(login="typed", password="a long typed secret")).get("/wp-admin/").status_code == 200


def test_a_new_user_can_get_a_link_to_set_their_password(as_role, client, admin, app, mailbox):
    browser = as_role("administrator")
    form = browser.form("/wp-admin/user-new.php", "createuser")
    assert "send_user_notification" not in form  # offered, not ticked
    form.update({"user_login": "linked", "email": "linked@example.test", "send_user_notification": "1"})
    target = location(browser.post("/wp-admin/user-new.php", form))
    assert query_lists(target)["update"] == ["add"] and query_lists(target)["mailed"] == ["1"]
    page = browser.get(target).text
    assert "New user created." in page and "A link to set their password was sent to the new user." in page
    received = mailbox.wait(1)[0]
    assert received.rcpt_tos == ["linked@example.test"] and str(received.message["Subject"]).endswith("] Login Details")
    assert "Username: linked" in received.body
    found = re.search(r"action=rp&key=(\w+)&login=linked", received.body)
    assert found, received.body
    with app.site.read() as conn:
        user, problem = password_reset.check(conn, "linked", found.group(1), app.settings.secret_key)
    assert problem == "" and user.email == "linked@example.test"


def test_a_mail_that_cannot_leave_shows_the_password_instead(as_role, client, admin, dead_mail):
    browser = as_role("administrator")
    form = browser.form("/wp-admin/user-new.php", "createuser")
    form.update({"user_login": "unmailed", "email": "unmailed@example.test", "send_user_notification": "1"})
    answer = browser.post("/wp-admin/user-new.php", form)
    assert answer.status_code == 200
    assert "The email could not be sent: Could not send mail through smtp://127.0.0.1" in answer.text
    password = unescape(re.search(r'id="new-user-password"[^>]*value="([^"]*)"', answer.text).group(1))
    Browser(client, SimpleNamespace(login="unmailed", password=password))


def test_add_new_user_shows_errors_beside_their_fields_and_keeps_the_input(as_role, client, admin):
    browser = as_role("administrator")
    form = browser.form("/wp-admin/user-new.php", "createuser")
    taken = browser.post("/wp-admin/user-new.php", {**form, "user_login": "editor", "email": "fresh@example.test",
                                                    "first_name": "Keep <me>"})
    assert taken.status_code == 400
    assert error_beside(taken.text, "user_login") == "Sorry, that username already exists!"
    kept = fields_of(taken.text, "createuser")
    assert kept["email"] == "fresh@example.test" and kept["first_name"] == "Keep <me>"
    assert "Keep &lt;me&gt;" in taken.text
    used = browser.post("/wp-admin/user-new.php", {**form, "user_login": "fresh", "email": "editor@example.test"})
    assert error_beside(used.text, "email") == "Sorry, that email address is already used!"
    bad = browser.post("/wp-admin/user-new.php", {**form, "user_login": "fresh", "email": "not-an-address"})
    assert error_beside(bad.text, "email") == "Invalid email address."
    mismatch = browser.post("/wp-admin/user-new.php", {**form, "user_login": "fresh", "email": "fresh@example.test",
                                                       "pass1": "one", "pass2": "two"})
    assert "Passwords do not match." in error_beside(mismatch.text, "pass1")
    empty = browser.post("/wp-admin/user-new.php", {**form, "user_login": "", "email": ""})
    assert error_beside(empty.text, "user_login") == "Please enter a username."
    assert error_beside(empty.text, "email") == "Please enter an email address."
    no_role = browser.post("/wp-admin/user-new.php", {**form, "user_login": "fresh", "email": "fresh@example.test",
                                                      "role": "king"})
    assert error_beside(no_role.text, "role") == "The role king does not exist."
    assert client.get(USERS, user=admin, params={"search": "fresh"}).json == []


def test_the_role_choices_are_the_roles_the_api_gives(as_role):
    page = as_role("administrator").get("/wp-admin/user-new.php").text
    select = re.search(r'<select name="role".*?</select>', page, re.S).group(0)
    assert re.findall(r'<option value="(\w+)"', select) == ["subscriber", "contributor", "author", "editor", "administrator"]


# -- Edit User ----------------------------------------------------------------------------------


def test_an_administrator_edits_another_user(as_role, client, admin, accounts):
    editor = accounts["editor"]
    browser = as_role("administrator")
    path = f"/wp-admin/user-edit.php?user_id={editor.id}"
    page = browser.get(path)
    assert "<h1>Edit User editor</h1>" in page.text and "Usernames cannot be changed." in page.text
    form = fields_of(page.text, "your-profile")
    assert form["role"] == "editor" and form["email"] == "editor@example.test"
    form.update({"first_name": "Eda", "last_name": "Lind", "nickname": "eda", "email": "eda@example.test",
                 "url": "https://eda.example", "description": "Edits <em>things</em>.", "role": "author"})
    target = location(browser.post(path, form))
    assert target == f"{path}&updated=1"
    again = browser.get(target)
    assert "User updated." in again.text and "← Back to Users" in again.text
    user = user_of(client, admin, editor.id).json
    assert (user["first_name"], user["last_name"], user["nickname"], user["email"], user["url"], user["roles"]) == \
        ("Eda", "Lind", "eda", "eda@example.test", "https://eda.example", ["author"])
    assert user["description"] == "Edits <em>things</em>."
    # The new names are display-name choices now.
    choices = re.findall(r"<option value=\"([^\"]*)\"", re.search(r'<select name="display_name".*?</select>', again.text, re.S).group(0))
    assert {"Eda", "Lind", "Eda Lind", "Lind Eda", "eda", "editor"} <= set(choices)
    form = fields_of(again.text, "your-profile")
    location(browser.post(path, {**form, "display_name": "Eda Lind"}))
    assert user_of(client, admin, editor.id).json["name"] == "Eda Lind"


def test_saving_a_user_without_a_role_gives_them_none(as_role, client, admin, app):
    with app.site.write() as conn:
        roleless = user_store.create_user(conn, login="roleless", email="roleless@example.test", password="x-secret", roles=[])
    browser = as_role("administrator")
    path = f"/wp-admin/user-edit.php?user_id={roleless.id}"
    page = browser.get(path).text
    assert '<option value="" selected>— No role for this site —</option>' in page
    location(browser.post(path, {**fields_of(page, "your-profile"), "first_name": "Rolf"}))
    user = user_of(client, admin, roleless.id).json
    assert (user["first_name"], user["roles"]) == ("Rolf", [])


def test_edit_user_shows_the_api_errors_beside_their_fields(as_role, client, admin, accounts):
    author = accounts["author"]
    browser = as_role("administrator")
    path = f"/wp-admin/user-edit.php?user_id={author.id}"
    form = browser.form(path, "your-profile")
    taken = browser.post(path, {**form, "email": "editor@example.test", "first_name": "Aurel"})
    assert taken.status_code == 400
    assert error_beside(taken.text, "email") == "Invalid email address."
    assert fields_of(taken.text, "your-profile")["first_name"] == "Aurel"
    no_nickname = browser.post(path, {**form, "nickname": ""})
    assert error_beside(no_nickname.text, "nickname") == "Please enter a nickname."
    mismatch = browser.post(path, {**form, "pass1": "abc", "pass2": "abd"})
    assert "Passwords do not match." in error_beside(mismatch.text, "pass1")
    user = user_of(client, admin, author.id).json
    assert (user["email"], user["first_name"]) == ("author@example.test", "")


def test_editing_oneself_goes_to_the_profile(as_role, accounts):
    browser = as_role("administrator")
    assert location(browser.get(f"/wp-admin/user-edit.php?user_id={accounts['administrator'].id}")) == "/wp-admin/profile.php"


def test_a_new_password_set_by_an_administrator_ends_the_users_sessions(as_role, client, admin, accounts):
    editor_browser = as_role("editor")
    assert editor_browser.get("/wp-admin/profile.php").status_code == 200
    browser = as_role("administrator")
    path = f"/wp-admin/user-edit.php?user_id={accounts['editor'].id}"
    form = browser.form(path, "your-profile")
    location(browser.post(path, {**form, "pass1": "brand new secret", "pass2": "brand new secret"}))
    assert editor_browser.get("/wp-admin/profile.php").status_code == 302  # logged out
    assert browser.get("/wp-admin/users.php").status_code == 200  # the administrator's own session stays
    Browser(client, SimpleNamespace(login="editor", password="brand new secret"))


# -- Profile ------------------------------------------------------------------------------------


def test_a_subscriber_changes_their_own_names(as_role, client, admin, accounts):
    browser = as_role("subscriber")
    form = browser.form("/wp-admin/profile.php", "your-profile")
    assert "role" not in form  # no role on one's own profile
    form.update({"first_name": "Sam", "last_name": "Ito", "nickname": "sammy", "description": "Hello."})
    target = location(browser.post("/wp-admin/profile.php", form))
    assert target == "/wp-admin/profile.php?updated=1"
    assert "Profile updated." in browser.get(target).text
    user = user_of(client, admin, accounts["subscriber"].id).json
    assert (user["first_name"], user["last_name"], user["nickname"], user["description"], user["roles"]) == \
        ("Sam", "Ito", "sammy", "Hello.", ["subscriber"])


def test_a_subscriber_cannot_give_themselves_a_role(as_role, client, admin, accounts):
    browser = as_role("subscriber")
    form = browser.form("/wp-admin/profile.php", "your-profile")
    location(browser.post("/wp-admin/profile.php", {**form, "role": "administrator"}))
    assert user_of(client, admin, accounts["subscriber"].id).json["roles"] == ["subscriber"]


def test_the_password_change_asks_the_current_password_and_keeps_this_browser_logged_in(as_role, client, accounts):
    account = accounts["author"]
    elsewhere = as_role("author")  # another session of the same user
    browser = as_role("author")
    form = browser.form("/wp-admin/profile.php", "your-profile")
    new = {"pass1": "the new secret", "pass2": "the new secret"}

    missing = browser.post("/wp-admin/profile.php", {**form, **new})
    assert missing.status_code == 400
    assert error_beside(missing.text, "current_password") == "Please enter your current password."
    wrong = browser.post("/wp-admin/profile.php", {**form, **new, "current_password": "not it"})
    assert error_beside(wrong.text, "current_password") == "Your current password is incorrect."
    assert elsewhere.get("/wp-admin/profile.php").status_code == 200  # nothing changed yet

    changed = browser.post("/wp-admin/profile.php", {**form, **new, "current_password": account.password})
    assert location(changed) == "/wp-admin/profile.php?updated=1"
    fresh = login_cookie(changed)
    assert fresh != browser.cookie
    cookie = changed.cookies["calpress_logged_in"]
    assert cookie.http_only and cookie.same_site == "Lax" and cookie.path == "/"
    assert browser.get("/wp-admin/profile.php").status_code == 302  # the old cookie ended with the old password
    browser.cookie = fresh
    page = browser.get("/wp-admin/profile.php?updated=1")
    assert page.status_code == 200 and "Profile updated." in page.text
    assert elsewhere.get("/wp-admin/profile.php").status_code == 302  # the other session ended
    Browser(client, SimpleNamespace(login=account.login, password="the new secret"))
    old = client.http.simulate_post("/wp-login.php", body=f"log={account.login}&pwd={account.password}",
                                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert old.status_code == 200 and "is incorrect" in old.text


# -- application passwords ----------------------------------------------------------------------


def test_application_passwords_on_the_profile(as_role, client, accounts):
    account = accounts["contributor"]
    browser = as_role("contributor")
    page = browser.get("/wp-admin/profile.php").text
    assert "Application Passwords" in page and "contributor tests" in page
    form = fields_of(page, "create-application-password")
    created = browser.post("/wp-admin/profile.php", {**form, "new_application_password_name": "My phone"})
    assert created.status_code == 200
    shown = unescape(re.search(r'id="new-application-password-value"[^>]*value="([^"]*)"', created.text).group(1))
    assert re.fullmatch(r"(\w{4} ){5}\w{4}", shown)  # chunked as WordPress shows it
    assert "Your new password for My phone is:" in created.text
    me = client.get(f"{USERS}/me", headers={"Authorization": _basic(account.login, shown)})
    assert me.status_code == 200 and me.json["id"] == account.id
    listed = browser.get("/wp-admin/profile.php").text
    assert "My phone" in listed and shown not in listed and shown.replace(" ", "") not in listed

    apps = client.get(f"{USERS}/me/application-passwords", user=account).json
    phone = next(a for a in apps if a["name"] == "My phone")
    revoke = fields_of(_form_around(listed, phone["uuid"]))
    assert revoke["action"] == "revoke-application-password"
    after = browser.get(location(browser.post("/wp-admin/profile.php", revoke))).text
    assert "Application password revoked." in after
    assert [a["name"] for a in client.get(f"{USERS}/me/application-passwords", user=account).json] == ["contributor tests"]

    every = fields_of(after, "revoke-all-application-passwords")
    done = browser.get(location(browser.post("/wp-admin/profile.php", every))).text
    assert "All application passwords revoked." in done and "No application passwords." in done
    assert client.get(f"{USERS}/me", user=account).status_code == 401  # the fixture's own password went too


def test_an_application_password_needs_a_name(as_role, client, accounts):
    browser = as_role("author")
    form = browser.form("/wp-admin/profile.php", "create-application-password")
    answer = browser.post("/wp-admin/profile.php", {**form, "new_application_password_name": "  "})
    assert answer.status_code == 400
    assert error_beside(answer.text, "new_application_password_name") == "Please provide a name for the application password."
    assert len(client.get(f"{USERS}/me/application-passwords", user=accounts["author"]).json) == 1


def test_an_administrator_manages_another_users_application_passwords(as_role, client, admin, accounts):
    author = accounts["author"]
    browser = as_role("administrator")
    path = f"/wp-admin/user-edit.php?user_id={author.id}"
    form = browser.form(path, "create-application-password")
    created = browser.post(path, {**form, "new_application_password_name": "Deploy bot"})
    shown = unescape(re.search(r'id="new-application-password-value"[^>]*value="([^"]*)"', created.text).group(1))
    assert client.get(f"{USERS}/me", headers={"Authorization": _basic(author.login, shown)}).json["id"] == author.id
    names = [a["name"] for a in client.get(f"{USERS}/{author.id}/application-passwords", user=admin).json]
    assert sorted(names) == ["Deploy bot", "author tests"]
    every = fields_of(browser.get(path).text, "revoke-all-application-passwords")
    location(browser.post(path, every))
    assert client.get(f"{USERS}/{author.id}/application-passwords", user=admin).json == []


# -- nonces and escaping ------------------------------------------------------------------------


def test_no_change_without_the_forms_nonce(as_role, client, admin, accounts):
    browser = as_role("administrator")
    expired = "The link you followed has expired."
    new = browser.form("/wp-admin/user-new.php", "createuser")
    forged = browser.post("/wp-admin/user-new.php", {**new, "user_login": "forged", "email": "forged@example.test",
                                                     "_wpnonce": "0123456789"})
    assert forged.status_code == 403 and expired in forged.text
    assert client.get(USERS, user=admin, params={"search": "forged"}).json == []
    path = f"/wp-admin/user-edit.php?user_id={accounts['editor'].id}"
    edit = browser.form(path, "your-profile")
    # A nonce for another user's form does not do either.
    other = browser.form(f"/wp-admin/user-edit.php?user_id={accounts['author'].id}", "your-profile")["_wpnonce"]
    assert browser.post(path, {**edit, "first_name": "Forged", "_wpnonce": other}).status_code == 403
    assert user_of(client, admin, accounts["editor"].id).json["first_name"] == ""
    assert browser.get(f"/wp-admin/users.php?action=delete&user={accounts['editor'].id}").status_code == 403
    assert browser.post("/wp-admin/users.php", {"action": "dodelete", "users[]": str(accounts["editor"].id),
                                                "delete_option": "delete"}).status_code == 403
    assert user_of(client, admin, accounts["editor"].id).status_code == 200
    every = browser.form("/wp-admin/profile.php", "revoke-all-application-passwords")
    assert browser.post("/wp-admin/profile.php", {**every, "_wpnonce": ""}).status_code == 403
    assert len(client.get(f"{USERS}/me/application-passwords", user=admin).json) == 1


def test_user_data_is_escaped_everywhere(as_role, client, admin, accounts, app):
    # Stored past the API's own filters (as an import might), so the screens alone must escape it.
    hostile = '<script>alert(1)</script>" autofocus onfocus="alert(2)'
    with app.site.write() as conn:
        user_store.update_user(conn, accounts["editor"].id, {"first_name": hostile, "nickname": hostile, "display_name": hostile})
    browser = as_role("administrator")
    for path in ("/wp-admin/users.php", f"/wp-admin/user-edit.php?user_id={accounts['editor'].id}"):
        page = browser.get(path).text
        assert "<script>alert(1)" not in page and 'autofocus onfocus="alert(2)' not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34; autofocus onfocus=&#34;alert(2)" in page


@pytest.mark.parametrize("path", ["/wp-admin/users.php", "/wp-admin/user-new.php", "/wp-admin/profile.php",
                                  "/wp-admin/user-edit.php?user_id={editor}"])
def test_every_field_has_a_label(as_role, accounts, path):
    page = as_role("administrator").get(path.format(editor=accounts["editor"].id)).text
    labelled = set(re.findall(r'<label[^>]*for="([^"]+)"', page))
    for tag in re.findall(r"<(?:input|select|textarea)\b[^>]*>", page):
        if re.search(r'type="(hidden|submit|button)"', tag):
            continue
        ident = re.search(r'\bid="([^"]+)"', tag)
        assert (ident and ident.group(1) in labelled) or "aria-label=" in tag, tag


def _basic(login: str, password: str) -> str:
    import base64

    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


def _form_around(html: str, uuid: str) -> str:
    """The revoke form of the application password ``uuid``."""
    end = html.index(f'value="{uuid}"')
    start = html.rindex("<form", 0, end)
    return html[start:html.index("</form>", end)]
