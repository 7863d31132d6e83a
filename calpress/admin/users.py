"""The users' screens (issue 30), at WordPress's addresses and with its field names and messages:
the users list (``users.php``: role views with counts, search, row and bulk actions, the "Delete
Users" confirmation that gives the content to another user), Add New User (``user-new.php``),
Edit User (``user-edit.php``) and everyone's Profile (``profile.php``: the password change asks
the current password), both with the user's application passwords. Where mail is set up, a new
user may instead get a link to set their password (:func:`password_setup_mailer`).

Every read and change goes through ``cms/v2/users`` and its application-passwords routes as the
logged-in user, so who may do what is the API's answer. Two secrets are shown exactly once and
never leave the server otherwise: a generated password of a new user and a new application
password are written into the answer to the POST that made them (no redirect, nothing stored,
nothing in an address), which the shell never lets a cache keep.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import time
from collections.abc import Callable
from typing import Any

from .. import mail
from ..auth import password_reset, sessions
from ..auth import users as user_store
from ..auth.roles import ROLE_NAMES
from ..auth.throttle import retry_message
from ..content import items as item_service
from ..pages.auth import set_login_cookie
from ..rest.request import parse_query
from .api import Answer
from .shell import AdminRequest, Forbidden, Screen
from .values import ids as id_list
from .values import number

__all__ = ["SCREENS", "EditUserScreen", "NewUserScreen", "ProfileScreen", "UsersScreen"]

PER_PAGE = 20
USERS = "/cms/v2/users"
BULK = "bulk-users"
DELETE = "delete-users"
CREATE = "create-user"
INVALID_ID = "Invalid user ID."
NOT_EDITABLE = "Sorry, you are not allowed to edit this user."
MISMATCH = "Passwords do not match. Please enter the same password in both password fields."
# The types whose published (and private) items the users list counts per user.
COUNTED_TYPES = (("post", "Posts"), ("cal_events", "Events"))
# The API's parameter -> the form field that shows it; error codes that name no parameter -> the field.
FORM_FIELDS = {"username": "user_login", "password": "pass1", "roles": "role", "name": "display_name"}
CODE_FIELDS = {"existing_user_login": "user_login", "user_login_too_long": "user_login",
               "rest_user_invalid_username": "user_login", "existing_user_email": "email",
               "rest_user_invalid_email": "email", "rest_user_invalid_role": "role", "rest_cannot_edit_roles": "role",
               "rest_user_invalid_password": "pass1"}


def role_choices() -> list[tuple[str, str]]:
    """The roles as WordPress's drop-down lists them (wp_dropdown_roles: the least first)."""
    return list(reversed(ROLE_NAMES.items()))


def form_errors(answer: Answer) -> dict[str, str]:
    """An API error as {form field: message}; "" for one that names no field."""
    found = {FORM_FIELDS.get(name, name): reason for name, reason in answer.field_errors.items()}
    if not found:
        found[CODE_FIELDS.get(answer.code, "")] = answer.message
    return found


def password_setup_mailer(r: AdminRequest) -> Callable[[AdminRequest, int], str] | None:
    """Add New User's "send a link to set the password", offered only where mail is set up
    (``CALPRESS_SMTP_URL``, mail.py); else None."""
    return mail_password_setup if mail.is_configured(r.calpress.settings) else None


def mail_password_setup(r: AdminRequest, user_id: int) -> str:
    """Mail a new user a link to set their password (WordPress's wp_new_user_notification:
    "[Site] Login Details") with the lost-password form's key, good for a day and once; "" when
    sent, else why not (mail.py's message, safe to show)."""
    options = r.site.load_options()
    site_url = r.site.site_url(options, r.origin)
    with r.site.write() as conn:
        user = user_store.get_user(conn, user_id)
        if user is None:
            return INVALID_ID
        key = password_reset.issue(conn, user, r.calpress.settings.secret_key)
    link = password_reset.reset_link(site_url, key, user.login)
    site_name = html.unescape(str(options.get("blogname") or ""))
    body = (f"Username: {user.login}\n\nTo set your password, visit the following address:\n\n{link}\n\n"
            f"{site_url.rstrip('/')}/wp-login.php\n")
    try:
        mail.send(r.calpress.settings, user.email, f"[{site_name}] Login Details", body,
                  home=r.site.home_url(options, r.origin))
    except mail.MailError as err:
        return str(err)
    return ""


def _names(users: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {user["id"]: user for user in users if isinstance(user, dict) and "id" in user}


# -- the users list ----------------------------------------------------------------------------------


class UsersScreen(Screen):
    """``users.php``: the users list, and ``users.php?action=delete`` its confirmation."""

    file = "users.php"
    capability = "list_users"

    def get(self, r: AdminRequest) -> None:
        if r.param("action") == "delete":
            self._confirm(r, parse_query(r.req.query_string))
            return
        self._list(r)

    # -- the list ------------------------------------------------------------------------------

    def _state(self, r: AdminRequest) -> dict[str, Any]:
        """The list's view (role, search, page, order) as the query gives it."""
        orderby = r.param("orderby") if r.param("orderby") in ("login", "name", "email") else "login"
        return {"role": r.param("role"), "s": r.param("s").strip(), "paged": max(1, number(r.param("paged")) or 1),
                "orderby": orderby, "order": "desc" if r.param("order").lower() == "desc" else "asc"}

    def _list(self, r: AdminRequest) -> None:
        state = self._state(r)
        query: dict[str, Any] = {"context": "edit", "per_page": PER_PAGE, "page": state["paged"],
                                 "orderby": {"login": "slug", "name": "name", "email": "email"}[state["orderby"]],
                                 "order": state["order"]}
        if state["role"]:
            query["roles"] = state["role"]
        if state["s"]:
            query["search"] = state["s"]
        answer = r.api.get(USERS, **query)
        rows = answer.data if answer.ok and isinstance(answer.data, list) else []
        if not answer.ok:
            r.notice(answer.message, "error")
        total = answer.total
        pages = max(1, math.ceil(total / PER_PAGE))
        if state["paged"] > pages and total:
            r.redirect(r.url("users.php", **{**state, "paged": pages}))
        self._notices(r)
        r.render("admin/users.html", title="Users", rows=rows, views=self._views(r, state["role"]), state=state,
                 total=total, pages=pages, counts=self._counts(r, rows), counted=self._counted_types(r),
                 role_names=ROLE_NAMES, roles=role_choices(), bulk_nonce=r.nonce(BULK),
                 row_actions=lambda row: self._row_actions(r, row),
                 page_url=lambda n: r.url("users.php", **{**state, "paged": n if n > 1 else None}))

    @staticmethod
    def _views(r: AdminRequest, current: str) -> list[dict[str, Any]]:
        """All (n) and each role that has users (n), as WordPress's role links (counted in one
        read, as its count_users does: the screen is list_users', who may see every role)."""
        with r.site.read() as conn:
            total, by_role = user_store.role_counts(conn)
        views = [{"label": "All", "count": total, "url": r.url("users.php"), "current": not current}]
        for role, name in ROLE_NAMES.items():
            count = by_role.get(role, 0)
            if count:
                views.append({"label": name, "count": count, "url": r.url("users.php", role=role), "current": current == role})
        return views

    @staticmethod
    def _counted_types(r: AdminRequest) -> list[tuple[str, str]]:
        return [(name, label) for name, label in COUNTED_TYPES if name in r.ctx.registry.types]

    def _counts(self, r: AdminRequest, rows: list[dict[str, Any]]) -> dict[tuple[int, str], int]:
        """Published and private items per (user, counted type), as count_many_users_posts."""
        with r.site.read() as conn:
            return item_service.author_counts(conn, [name for name, _ in self._counted_types(r)], [row["id"] for row in rows])

    @staticmethod
    def _row_actions(r: AdminRequest, row: dict[str, Any]) -> list[tuple[str, str, str]]:
        """(label, url, css class) per action the user may take on the row (the API refuses the rest)."""
        uid = row["id"]
        found = []
        if r.can("edit_user", uid):
            found.append(("Edit", edit_link(r, uid), "edit"))
        if uid != r.user.id and r.can("delete_user", uid):
            found.append(("Delete", r.url("users.php", action="delete", user=uid, _wpnonce=r.nonce(BULK)), "delete"))
        if row.get("link"):
            found.append(("View", row["link"], "view"))
        return found

    @staticmethod
    def _notices(r: AdminRequest) -> None:
        update = r.param("update")
        count = number(r.param("delete_count"))
        if update in ("del", "err_admin_del") and (update == "del" or count):
            r.notice("User deleted." if count == 1 else f"{count} users deleted.")
        if update == "err_admin_del":
            r.notice("You cannot delete the current user.", "error")
        elif update == "add":
            uid = number(r.param("id"))
            editable = uid and r.can("edit_user", uid)
            r.notice("New user created.", "success", edit_link(r, uid) if editable else "", "Edit user" if editable else "")
        elif update == "promote":
            r.notice("Changed roles.")
        elif update == "err_admin_role":
            r.notice("The current user’s role must have user editing capabilities.", "error")
            r.notice("Other user roles have been changed.")
        if r.param("mailed"):
            r.notice("A link to set their password was sent to the new user.")
        for error in r.req.get_param_as_list("error") or []:
            r.notice(str(error), "error")

    # -- bulk actions --------------------------------------------------------------------------

    def post(self, r: AdminRequest) -> None:
        if r.field("action") == "dodelete":
            self._delete(r)
            return
        r.verify(BULK)
        back = {key: r.field(key) or None for key in ("role", "s", "paged", "orderby", "order")}
        ids = id_list(r.form.get("users"))
        action = r.field("action") if r.field("action") not in ("", "-1") else r.field("action2")
        if not ids:
            r.redirect(r.url("users.php", **back))
        if "changeit" in r.form:
            self._promote(r, ids, r.field("new_role"), back)
        if action == "delete":
            r.redirect(r.url("users.php", action="delete", **{"users[]": ids}, _wpnonce=r.nonce(BULK)))
        r.redirect(r.url("users.php", **back, error="Please select an action."))

    @staticmethod
    def _promote(r: AdminRequest, ids: list[int], role: str, back: dict[str, Any]) -> None:
        """"Change role to…": each user's role through the API (which keeps an administrator
        from giving themselves a role that may not edit users)."""
        if not role:
            r.redirect(r.url("users.php", **back, error="Please select a role."))
        update, errors = "promote", []
        for uid in ids:
            answer = r.api.post(f"{USERS}/{uid}", {"roles": [role]})
            if answer.ok:
                continue
            if uid == r.user.id and answer.code == "rest_user_invalid_role":
                update = "err_admin_role"
            else:
                errors.append(f"#{uid}: {answer.message}")
        r.redirect(r.url("users.php", **back, update=update, error=errors[:5] or None))

    # -- deleting ------------------------------------------------------------------------------

    def _confirm(self, r: AdminRequest, query: dict[str, Any]) -> None:
        """WordPress's "Delete Users": who, and what becomes of their content."""
        r.verify(BULK)
        if not r.can("delete_users"):
            raise Forbidden("Sorry, you are not allowed to delete users.")
        all_ids = id_list(query.get("users")) or id_list(query.get("user"))
        if not all_ids:
            r.redirect(r.url("users.php"))
        found = r.api.get(USERS, include=",".join(map(str, all_ids)), per_page=100, context="edit",
                          _fields="id,username,name")
        known = _names(found.data if found.ok and isinstance(found.data, list) else [])
        shown = [(uid, known[uid]["username"], uid == r.user.id) for uid in all_ids if uid in known]
        targets = [uid for uid, _, current in shown if not current]
        has_content = False
        if targets:
            with r.site.read() as conn:
                types = list(r.ctx.registry.types)
                has_content = item_service.query_items(conn, item_service.ItemQuery(
                    type=types[0], types=types, statuses=tuple(r.ctx.registry.statuses), authors=targets, per_page=1),
                    count_only=True).total > 0
        others = r.api.get(USERS, exclude=",".join(map(str, targets)) or None, per_page=100, context="edit",
                           orderby="name", _fields="id,username,name") if has_content else None
        heirs = [(user["id"], f"{user['name']} ({user['username']})") for user in
                 (others.data if others is not None and others.ok and isinstance(others.data, list) else [])]
        r.render("admin/users-delete.html", title="Delete Users", shown=shown, targets=targets,
                 has_content=has_content, heirs=heirs, error=bool(r.param("error")), nonce=r.nonce(DELETE))

    def _delete(self, r: AdminRequest) -> None:
        r.verify(DELETE)
        ids = id_list(r.form.get("users"))
        if not ids:
            r.redirect(r.url("users.php"))
        option = r.field("delete_option")
        heir = number(r.field("reassign_user"))
        if option not in ("delete", "reassign") or (option == "reassign" and not heir):
            r.redirect(r.url("users.php", action="delete", **{"users[]": ids}, error="true", _wpnonce=r.nonce(BULK)))
        update, done, errors = "del", 0, []
        for uid in ids:
            if uid == r.user.id:  # WordPress never deletes the current user here (the API would)
                update = "err_admin_del"
                continue
            answer = r.api.delete(f"{USERS}/{uid}", force="true", reassign=heir if option == "reassign" else "false")
            if answer.ok:
                done += 1
            else:
                errors.append(f"#{uid}: {answer.message}")
        r.redirect(r.url("users.php", update=update, delete_count=done, error=errors[:5] or None))


def edit_link(r: AdminRequest, uid: int) -> str:
    """get_edit_user_link: one's own is the profile."""
    return r.url("profile.php") if uid == r.user.id else r.url("user-edit.php", user_id=uid)


# -- Add New User --------------------------------------------------------------------------------------


class NewUserScreen(Screen):
    """``user-new.php``: a new user, with a password the administrator types or one generated
    and shown once on the answer to the form."""

    file = "user-new.php"
    capability = "create_users"

    def get(self, r: AdminRequest) -> None:
        default = str(r.site.load_options().get("default_role") or "subscriber")
        self._show(r, {"role": default}, {})

    def _show(self, r: AdminRequest, values: dict[str, Any], errors: dict[str, str], status: int = 200) -> None:
        r.render("admin/user-new.html", status, title="Add New User", values=values, errors=errors, roles=role_choices(),
                 can_mail=password_setup_mailer(r) is not None, nonce=r.nonce(CREATE))

    def post(self, r: AdminRequest) -> None:
        r.verify(CREATE)
        values = {name: r.field(name).strip() for name in ("user_login", "email", "first_name", "last_name", "url", "role")}
        values["send_user_notification"] = bool(r.field("send_user_notification"))
        pass1, pass2 = r.field("pass1").strip(), r.field("pass2").strip()
        errors: dict[str, str] = {}
        if not values["user_login"]:
            errors["user_login"] = "Please enter a username."
        if not values["email"]:
            errors["email"] = "Please enter an email address."
        if (pass1 or pass2) and pass1 != pass2:
            errors["pass1"] = MISMATCH
        send = password_setup_mailer(r) if values["send_user_notification"] else None
        if errors:
            self._show(r, values, errors, 400)
            return
        password = pass1 or user_store.generate_password()
        first, last = values["first_name"], values["last_name"]
        body: dict[str, Any] = {"username": values["user_login"], "email": values["email"], "password": password,
                                "first_name": first, "last_name": last, "url": values["url"],
                                # wp_insert_user's display name: first and last name, else the login
                                "name": f"{first} {last}".strip() or values["user_login"]}
        if values["role"]:
            body["roles"] = [values["role"]]
        answer = r.api.post(USERS, body)
        if not answer.ok:
            self._show(r, values, form_errors(answer), answer.status)
            return
        user_id = answer.data["id"]
        r.notice("New user created.", "success", r.url("user-edit.php", user_id=user_id), "Edit user")
        if send is not None:
            problem = send(r, user_id)
            if not problem:
                r.redirect(r.url("users.php", update="add", id=user_id, mailed=1))
            # The link did not leave: the administrator gets the password to hand over instead.
            r.notice(f"The email could not be sent: {problem}", "error")
        elif pass1:
            r.redirect(r.url("users.php", update="add", id=user_id))
        r.render("admin/user-created.html", 200, title="Add New User", login=answer.data.get("username", ""),
                 password=password, user_id=user_id)


# -- Edit User and Profile ---------------------------------------------------------------------------


def _date(value: Any) -> str:
    """An application password's date as WordPress shows it (``F j, Y``), or an em dash."""
    if not value:
        return "—"
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{moment:%B} {moment.day}, {moment.year}"


def display_names(user: dict[str, Any]) -> list[str]:
    """The "Display name publicly as" choices (user-edit.php's list, the current one first when
    it is none of them)."""
    first, last = (user.get("first_name") or "").strip(), (user.get("last_name") or "").strip()
    choices = [user.get("nickname") or "", user.get("username") or ""]
    choices += [name for name in (first, last) if name]
    if first and last:
        choices += [f"{first} {last}", f"{last} {first}"]
    current = user.get("name") or ""
    if current and current not in choices:
        choices.insert(0, current)
    return list(dict.fromkeys(choice.strip() for choice in choices if choice.strip()))


class _UserForm(Screen):
    """What Edit User and Profile share: the form, its save, and the application passwords."""

    is_profile = False

    def _user_id(self, r: AdminRequest) -> int:
        raise NotImplementedError

    def _route(self, user_id: int) -> str:
        return f"{USERS}/{user_id}"

    def _here(self, r: AdminRequest, user_id: int, **query: Any) -> str:
        return r.url(self.file, **({} if self.is_profile else {"user_id": user_id}), **query)

    def _load(self, r: AdminRequest, user_id: int) -> dict[str, Any]:
        answer = r.api.get(self._route(user_id), context="edit")
        if answer.status == 404:
            raise Forbidden(INVALID_ID, 404)
        if not answer.ok:
            raise Forbidden(NOT_EDITABLE if answer.status in (401, 403) else answer.message, answer.status)
        return answer.data

    def get(self, r: AdminRequest) -> None:
        user_id = self._user_id(r)
        user = self._load(r, user_id)
        if r.param("updated"):
            r.notice("Profile updated." if self.is_profile else "User updated.", "success",
                     "" if self.is_profile or not r.can("list_users") else r.url("users.php"),
                     "" if self.is_profile or not r.can("list_users") else "← Back to Users")
        revoked = r.param("app_passwords")
        if revoked == "revoked":
            r.notice("Application password revoked.")
        elif revoked == "revoked_all":
            r.notice("All application passwords revoked.")
        self._show(r, user_id, user)

    def _show(self, r: AdminRequest, user_id: int, user: dict[str, Any], *, errors: dict[str, str] | None = None,
              sent: dict[str, Any] | None = None, status: int = 200, new_app: dict[str, str] | None = None,
              app_errors: dict[str, str] | None = None, app_name: str = "") -> None:
        values = dict(sent) if sent is not None else {
            key: user.get(key) or "" for key in ("first_name", "last_name", "nickname", "email", "url", "description")}
        values.setdefault("display_name", user.get("name") or "")
        roles = user.get("roles") or []
        values.setdefault("role", roles[0] if roles else "")
        apps = r.api.get(self._app_route(user_id), context="edit")
        title = "Profile" if self.is_profile else f"Edit User {user.get('name') or user.get('username')}"
        r.render("admin/user-edit.html", status, title=title, is_profile=self.is_profile, user=user, user_id=user_id,
                 values=values, errors=errors or {}, display_names=display_names(user),
                 can_promote=not self.is_profile and r.can("promote_user", user_id), roles=role_choices(),
                 action=self._here(r, user_id), nonce=r.nonce(f"update-user_{user_id}"),
                 apps_shown=apps.ok or apps.status == 501, apps_message="" if apps.ok else apps.message,
                 apps=[{**app, "created_label": _date(app.get("created")), "last_used_label": _date(app.get("last_used")),
                        "nonce": r.nonce(f"revoke-application-password_{app.get('uuid')}")}
                       for app in (apps.data if apps.ok and isinstance(apps.data, list) else [])],
                 new_app=new_app, app_errors=app_errors or {}, app_name=app_name,
                 create_nonce=r.nonce(f"create-application-password_{user_id}"),
                 revoke_all_nonce=r.nonce(f"revoke-all-application-passwords_{user_id}"))

    def post(self, r: AdminRequest) -> None:
        user_id = self._user_id(r)
        action = r.field("action")
        if action == "create-application-password":
            self._create_app_password(r, user_id)
        elif action == "revoke-application-password":
            self._revoke_app_password(r, user_id)
        elif action == "revoke-all-application-passwords":
            self._revoke_all(r, user_id)
        else:
            self._update(r, user_id)

    # -- the profile's fields ------------------------------------------------------------------

    def _update(self, r: AdminRequest, user_id: int) -> None:
        r.verify(f"update-user_{user_id}")
        user = self._load(r, user_id)
        sent = {name: r.field(name).strip() for name in ("first_name", "last_name", "nickname", "display_name", "email", "url")}
        sent["description"] = r.field("description").strip()
        sent["role"] = r.field("role")
        pass1, pass2 = r.field("pass1").strip(), r.field("pass2").strip()
        errors: dict[str, str] = {}
        if not sent["nickname"]:
            errors["nickname"] = "Please enter a nickname."
        if not sent["email"]:
            errors["email"] = "Please enter an email address."
        if (pass1 or pass2) and pass1 != pass2:
            errors["pass1"] = MISMATCH
        if pass1 and self.is_profile and "pass1" not in errors:
            problem = self._check_current_password(r, r.field("current_password"))
            if problem:
                errors["current_password"] = problem
        if errors:
            self._show(r, user_id, user, errors=errors, sent=sent, status=400)
            return
        body: dict[str, Any] = {key: sent[key] for key in ("first_name", "last_name", "nickname", "email", "url", "description")}
        if sent["display_name"]:
            body["name"] = sent["display_name"]
        roles = user.get("roles") or []
        # Only a changed role is sent: the form shows one role, and a user may hold several.
        if not self.is_profile and sent["role"] and r.can("promote_user", user_id) and sent["role"] != (roles[0] if roles else ""):
            body["roles"] = [sent["role"]]
        if pass1:
            body["password"] = pass1
        answer = r.api.post(self._route(user_id), body)
        if not answer.ok:
            self._show(r, user_id, user, errors=form_errors(answer), sent=sent, status=answer.status)
            return
        if pass1 and user_id == r.user.id:
            self._keep_logged_in(r)
        r.redirect(self._here(r, user_id, updated=1))

    @staticmethod
    def _check_current_password(r: AdminRequest, given: str) -> str:
        """Why the current password does not let the change through ("" when it does), counted by
        the login throttle so a borrowed session cannot guess it faster than the login form."""
        if not given:
            return "Please enter your current password."
        throttle = r.calpress.authenticator.throttle
        attempt = throttle.check(r.user.login, r.req.remote_addr or "")
        if attempt.retry_after:
            return retry_message(attempt.retry_after)
        if not user_store.check_password(r.user, given):
            throttle.failed(attempt)
            return "Your current password is incorrect."
        throttle.succeeded(attempt)
        return ""

    @staticmethod
    def _keep_logged_in(r: AdminRequest) -> None:
        """After a user changes their own password: the login cookie is signed with a fragment of
        the password's hash, so every session of the user ends, this one too; as WordPress's
        wp_update_user does, this browser gets a fresh cookie for the new password (kept as long
        as the old one was: "remember me" stays), and the user stays logged in here alone."""
        with r.site.read() as conn:
            fresh = user_store.get_user(conn, r.user.id)
        if fresh is None:
            return
        now = time.time()
        set_login_cookie(r.resp, r.site, r.calpress.settings.secret_key, fresh, r.origin,
                         remember=r.session.expiration - now > sessions.SESSION_LIFETIME, now=now)

    # -- application passwords -----------------------------------------------------------------

    def _app_route(self, user_id: int) -> str:
        return f"{self._route(user_id)}/application-passwords"

    def _create_app_password(self, r: AdminRequest, user_id: int) -> None:
        r.verify(f"create-application-password_{user_id}")
        user = self._load(r, user_id)
        name = r.field("new_application_password_name").strip()
        if not name:
            self._show(r, user_id, user, status=400, app_errors={"new_application_password_name":
                                                                 "Please provide a name for the application password."})
            return
        answer = r.api.post(self._app_route(user_id), {"name": name})
        if not answer.ok:
            errors = form_errors(answer)
            message = errors.get("name") or errors.get("") or answer.message
            self._show(r, user_id, user, status=answer.status, app_name=name,
                       app_errors={"new_application_password_name": message})
            return
        self._show(r, user_id, user, new_app={"name": answer.data.get("name", name),
                                                           "password": answer.data.get("password", "")})

    def _revoke_app_password(self, r: AdminRequest, user_id: int) -> None:
        uuid = r.field("uuid")
        r.verify(f"revoke-application-password_{uuid}")
        answer = r.api.delete(f"{self._app_route(user_id)}/{uuid}")
        if answer.ok:
            r.redirect(self._here(r, user_id, app_passwords="revoked"))
        user = self._load(r, user_id)
        r.notice(answer.message, "error")
        self._show(r, user_id, user, status=answer.status)

    def _revoke_all(self, r: AdminRequest, user_id: int) -> None:
        r.verify(f"revoke-all-application-passwords_{user_id}")
        answer = r.api.delete(self._app_route(user_id))
        if answer.ok:
            r.redirect(self._here(r, user_id, app_passwords="revoked_all"))
        user = self._load(r, user_id)
        r.notice(answer.message, "error")
        self._show(r, user_id, user, status=answer.status)


class ProfileScreen(_UserForm):
    """``profile.php``: one's own profile, for every user."""

    file = "profile.php"
    capability = "read"
    is_profile = True

    def _user_id(self, r: AdminRequest) -> int:
        return r.user.id

    def _route(self, user_id: int) -> str:
        return f"{USERS}/me"


class EditUserScreen(_UserForm):
    """``user-edit.php?user_id=N``: another user's profile (one's own is ``profile.php``). Who may
    open it is the API's answer to reading the user in the edit context."""

    file = "user-edit.php"
    capability = "read"

    def _user_id(self, r: AdminRequest) -> int:
        user_id = number(r.param("user_id") or (r.field("user_id") if r.req.method == "POST" else ""))
        if user_id <= 0:
            raise Forbidden(INVALID_ID, 400)
        if user_id == r.user.id:
            r.redirect(r.url("profile.php"))
        return user_id


SCREENS: list[Screen] = [UsersScreen(), NewUserScreen(), EditUserScreen(), ProfileScreen()]
