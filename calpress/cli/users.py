"""User commands in WP-CLI's forms:

    calpress user create <login> <email> --role=<role> [--user_pass=<pw>] [--display_name=<name>] [--porcelain]
    calpress user list [--role=...] | get <user> | update <user> ... | delete <user>... [--reassign=<user>]
    calpress user set-role <user> <role>
    calpress user reset-password <user>... [--skip-email] [--show-password] [--porcelain]
    calpress user application-password create <user> <app-name> [--porcelain] | list <user> | delete <user> <uuid>...

<user> is an id, login or email (WP-CLI's user fetcher). ``create``, ``application-password
create`` and ``reset-password`` write to the site's store themselves (reset-password then sends
the reset mail, mail.py); the others go through /cms/v2 as the other REST commands do (rest_calls.py), as
``--user`` (default: the first administrator). Deletes given several users or uuids go on past
one that fails (``for_each``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import CliError, add_command, global_options, open_site
from .formats import GET_FORMATS, Fields, add_options, list_items, show_list
from .rest_calls import extra_options, for_each, get_item, open_app, rest, rest_all, run_with_app, update_item


def cmd_user_create(args: argparse.Namespace) -> int:
    from ..api.cms_users import ITEM_SCHEMA
    from ..auth import users
    from ..auth.roles import ROLE_CAPS
    from ..rest.errors import RestError
    from ..rest.schema import parse_request_arg

    try:  # the users endpoint's own check of the address (its schema's email format)
        email = parse_request_arg(args.email, ITEM_SCHEMA["properties"]["email"], "email")
    except RestError as err:
        raise CliError(err.message) from None
    _, site = open_site(args)
    role = args.role or str(site.get_option("default_role"))
    if role not in ROLE_CAPS:
        raise CliError(f"Role doesn't exist: {role}")
    generated = args.user_pass is None
    password = args.user_pass if not generated else users.generate_password()
    try:
        with site.write() as conn:
            user = users.create_user(
                conn, login=args.login, email=email, password=password, roles=[role], display_name=args.display_name or ""
            )
    except users.UserError as err:
        raise CliError(err.message) from None
    if args.porcelain:
        print(user.id)
    else:
        print(f"Success: Created user {user.id}.")
        if generated:
            print(f"Password: {password}")
    return 0


def _registered(value: Any) -> str:
    """2026-11-27T11:45:36+00:00 as WordPress stores user_registered (2026-11-27 11:45:36)."""
    return str(value or "")[:19].replace("T", " ")


USER_FIELDS: Fields = {
    "ID": lambda u: u["id"],
    "user_login": lambda u: u.get("username", ""),
    "display_name": lambda u: u.get("name", ""),
    "user_email": lambda u: u.get("email", ""),
    "user_registered": lambda u: _registered(u.get("registered_date")),
    "roles": lambda u: ",".join(u.get("roles") or []),
    "user_nicename": lambda u: u.get("slug", ""),
    "first_name": lambda u: u.get("first_name", ""),
    "last_name": lambda u: u.get("last_name", ""),
    "user_url": lambda u: u.get("url", ""),
    "description": lambda u: u.get("description", ""),
}


USER_DEFAULT = ["ID", "user_login", "display_name", "user_email", "user_registered", "roles"]


USER_WRITE = {"display_name": "name", "user_email": "email", "first_name": "first_name", "last_name": "last_name",
              "user_url": "url", "user_nicename": "slug", "description": "description", "nickname": "nickname",
              "user_pass": "password"}


def find_user_id(app: Any, given: str) -> int:
    """A user's id from an id, login or email (WP-CLI's user fetcher)."""
    from ..auth import users

    with app.site.read() as conn:
        found = users.find_user(conn, given)
    if found is None:
        raise CliError(f"Invalid user ID, email or login: '{given}'")
    return int(found.id)


def _site_address(app: Any) -> str:
    return app.site.site_url(app.site.load_options(), "http://localhost")


def cmd_user_list(args: argparse.Namespace) -> int:
    query: dict[str, Any] = {"orderby": "id", "order": "asc", **extra_options(args.extra)}
    if args.role:
        query["roles"] = args.role

    def run(app: Any, user: Any) -> int:
        return list_items(args, USER_FIELDS, rest_all(app, "/cms/v2/users", user, query), USER_DEFAULT, "ID")

    return run_with_app(args, run)


def cmd_user_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        user_id = find_user_id(app, args.target)
        return get_item(args, app, user, f"/cms/v2/users/{user_id}", USER_FIELDS)

    return run_with_app(args, run)


def cmd_user_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        body = {rest_name: getattr(args, option) for option, rest_name in USER_WRITE.items()
                if getattr(args, option, None) is not None}
        # No field: update_item's error, before the user is looked up.
        user_id = find_user_id(app, args.target) if body else args.target
        return update_item(app, user, f"/cms/v2/users/{user_id}", body, f"Success: Updated user {user_id}.")

    return run_with_app(args, run)


def cmd_user_delete(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        # WP-CLI: without --reassign the user's posts are deleted too (the REST API's reassign=false).
        reassign = str(find_user_id(app, args.reassign)) if args.reassign else "false"
        address = _site_address(app)

        def delete(given: str) -> str:
            user_id = find_user_id(app, given)
            rest(app, "DELETE", f"/cms/v2/users/{user_id}", user, {"force": "true", "reassign": reassign})
            return f"Success: Removed user {user_id} from {address}."

        return for_each(args.targets, delete, noun="user", done="removed")

    return run_with_app(args, run)


def cmd_user_set_role(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        user_id = find_user_id(app, args.target)
        _, data, _ = rest(app, "POST", f"/cms/v2/users/{user_id}", user, {"context": "edit"}, body={"roles": [args.role]})
        print(f"Success: Added {data.get('username', user_id)} ({user_id}) to {_site_address(app)} as {args.role}.")
        return 0

    return run_with_app(args, run)


def cmd_user_reset_password(args: argparse.Namespace) -> int:
    """WP-CLI's ``wp user reset-password``: a new random password for each user (which ends
    their login sessions) and, unless --skip-email, the password reset mail with a link to choose
    their own (mail.py; without SMTP the link goes to the log). An unknown user is a warning."""
    from ..auth import password_reset, users
    from ..mail import MailError
    from ..pages.auth import deliver_reset_link

    app = open_app(args)
    try:
        found: list[Any] = []
        for given in args.targets:
            with app.site.read() as conn:
                user = users.find_user(conn, given)
            if user is None:
                print(f"Warning: Invalid user ID, email or login: '{given}'", file=sys.stderr)
            elif all(other.id != user.id for other in found):
                found.append(user)
        if not found:
            raise CliError("No user found to reset password.")
        origin = _site_address(app)
        unsent = 0
        for user in found:
            with app.site.write() as conn:
                user, password = password_reset.set_random_password(conn, user)
                key = "" if args.skip_email else password_reset.issue(conn, user, app.settings.secret_key)
            if args.porcelain:
                print(password)
            else:
                print(f"Reset password for {user.login}.")
                if args.show_password:
                    print(f"Password: {password}")
            if args.skip_email:
                continue
            try:
                if not deliver_reset_link(app, user, key, origin, by_administrator=True):
                    print(f"Warning: Mail is not set up on this site (CALPRESS_SMTP_URL), so no email was sent to "
                          f"{user.login}: the reset link was written to the log.", file=sys.stderr)
            except MailError as err:
                unsent += 1
                print(f"Warning: The reset email to {user.login} could not be sent: {err}", file=sys.stderr)
        done = "Password reset for 1 user" if len(found) == 1 else f"Passwords reset for {len(found)} users"
        if unsent:
            raise CliError(f"{done}, but {unsent} of the emails could not be sent.")
        if not args.porcelain:
            print(f"Success: {done}.")
        return 0
    finally:
        app.site.close()


def cmd_app_password_create(args: argparse.Namespace) -> int:
    from ..auth import app_passwords, users

    settings, site = open_site(args)
    with site.write() as conn:
        user = users.find_user(conn, args.user)
        if user is None:
            raise CliError(f"Invalid user ID, email or login: '{args.user}'")
        name = args.app_name.strip()
        if not name:
            raise CliError("An application name is required to create an application password.")
        _, raw = app_passwords.create(conn, user.id, name, settings.secret_key, args.app_id or "")
    if args.porcelain:
        print(raw)
    else:
        print("Success: Created application password.")
        print(f"Password: {raw}")
    return 0


APP_PASSWORD_FIELDS = ["uuid", "app_id", "name", "created", "last_used", "last_ip"]


def cmd_app_password_list(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        user_id = find_user_id(app, args.target)
        _, data, _ = rest(app, "GET", f"/cms/v2/users/{user_id}/application-passwords", user, {"context": "edit"})
        rows = [{name: item.get(name) for name in APP_PASSWORD_FIELDS} for item in data]
        return show_list(args, rows, APP_PASSWORD_FIELDS, APP_PASSWORD_FIELDS, "uuid")

    return run_with_app(args, run)


def cmd_app_password_delete(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        user_id = find_user_id(app, args.target)

        def delete(uuid: str) -> str:
            try:
                rest(app, "DELETE", f"/cms/v2/users/{user_id}/application-passwords/{uuid}", user)
            except CliError as err:  # WP-CLI's words for it
                raise CliError(f"Failed to delete UUID {uuid}: {err}") from None
            return ""

        return for_each(args.uuids, delete, noun="application password", done="deleted", always_report=True)

    return run_with_app(args, run)


def register(commands: Any) -> None:
    """Add the user command and its subcommands (application-password's among them)."""
    user = commands.add_parser("user", help="users")
    user_commands = user.add_subparsers(dest="user_command", required=True)
    create = user_commands.add_parser("create", help="create a user")
    create.add_argument("login")
    create.add_argument("email")
    create.add_argument("--role", default=None)
    create.add_argument("--user_pass", default=None)
    create.add_argument("--display_name", default=None)
    create.add_argument("--porcelain", action="store_true")
    global_options(create)
    create.set_defaults(handler=cmd_user_create)

    app_password = user_commands.add_parser("application-password", help="application passwords")
    app_commands = app_password.add_subparsers(dest="app_command", required=True)
    app_create = app_commands.add_parser("create", help="create an application password")
    app_create.add_argument("user", help="user id, login or email")
    app_create.add_argument("app_name")
    app_create.add_argument("--app-id", "--app_id", dest="app_id", default="")
    app_create.add_argument("--porcelain", action="store_true")
    global_options(app_create)
    app_create.set_defaults(handler=cmd_app_password_create)

    listing = add_command(user_commands, "list", "list users (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("--role", default=None)
    add_options(listing)
    listing.set_defaults(handler=cmd_user_list)
    get = add_command(user_commands, "get", "show a user")
    get.add_argument("target", metavar="user", help="user id, login or email")
    add_options(get, formats=GET_FORMATS)
    get.set_defaults(handler=cmd_user_get)
    update = add_command(user_commands, "update", "update a user")
    update.add_argument("target", metavar="user")
    for option in USER_WRITE:
        update.add_argument(f"--{option}", default=None)
    update.set_defaults(handler=cmd_user_update)
    delete = add_command(user_commands, "delete", "delete users (their posts too, unless --reassign)")
    delete.add_argument("targets", metavar="user", nargs="+")
    delete.add_argument("--reassign", default=None, help="give their posts to this user")
    delete.add_argument("--yes", action="store_true", help="accepted as WP-CLI's (which asks otherwise); calpress never asks")
    delete.set_defaults(handler=cmd_user_delete)
    set_role = add_command(user_commands, "set-role", "set a user's role")
    set_role.add_argument("target", metavar="user")
    set_role.add_argument("role")
    set_role.set_defaults(handler=cmd_user_set_role)
    reset = add_command(user_commands, "reset-password",
                        "give users a new random password and email them a link to choose their own", user=False)
    reset.add_argument("targets", metavar="user", nargs="+", help="user ids, logins or emails")
    reset.add_argument("--skip-email", action="store_true", help="don't email the users")
    reset.add_argument("--show-password", action="store_true", help="show the new passwords")
    reset.add_argument("--porcelain", action="store_true", help="print only the new passwords")
    reset.set_defaults(handler=cmd_user_reset_password)
    listing = add_command(app_commands, "list", "list a user's application passwords")
    listing.add_argument("target", metavar="user")
    add_options(listing)
    listing.set_defaults(handler=cmd_app_password_list)
    delete = add_command(app_commands, "delete", "delete application passwords")
    delete.add_argument("target", metavar="user")
    delete.add_argument("uuids", metavar="uuid", nargs="+")
    delete.set_defaults(handler=cmd_app_password_delete)
