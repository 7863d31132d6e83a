"""Content from the command line, in WP-CLI's forms (issue 15):

    calpress post list [--post_type=post] [--<REST listing filter>=<value>...] [--format=...] [--fields=...|--field=...]
    calpress post get <id> [--format=table|json|yaml] [--fields=...|--field=...]
    calpress post create [--post_type=post] [--post_title=...] [--post_content=...] [--post_status=...] ... [--porcelain]
    calpress post update <id> [--post_title=...] ...
    calpress post delete <id>... [--force]
    calpress term list|get|create|update <taxonomy> ... | delete <taxonomy> <id>...
    calpress option list [--search=<pattern>] | add <name> <value> | delete <name>

Posts and terms go through the REST engine in this process (``rest``): the command builds the
request the REST API would receive (``GET /cms/v2/posts?context=edit``, ``POST /cms/v2/posts``
with a JSON body...), run as ``--user`` (default: the first administrator), so that it is checked,
stored and hooked exactly as over HTTP. A REST error answer is ``Error: <its message>``. Fields
have WP-CLI's names (ID, post_title, term_id...), read from the edit context's raw values.
Commands given several ids go on past one that fails (``for_each``), as WP-CLI's do.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import cli_format
from .cli import _checked_option, input_value
from .cli_site import CliError, _locate, _open_site, _require_site

# -- the REST engine, in process ------------------------------------------------------------------


def open_app(args: argparse.Namespace) -> Any:
    """The app (calpress.app.Calpress) of the located site; CliError when there is none."""
    from .app import Calpress

    location, settings = _locate(args)
    _require_site(location, settings)
    return Calpress(settings, upgrade=True)


def acting_user(app: Any, given: str | None) -> Any:
    """The user a command runs as: --user (id, login or email), else the first administrator."""
    from .auth import users

    with app.site.read() as conn:
        if given:
            user = users.find_user(conn, given)
            if user is None:
                raise CliError(f"Invalid user ID, email or login: '{given}'")
            return user
        first = users.first_with_role(conn, "administrator")
        if first is None:
            raise CliError("No administrator to act as: create one (calpress user create <login> <email> "
                           "--role=administrator) or give --user.")
        return users.get_user(conn, first)


def rest(app: Any, method: str, route: str, user: Any, query: dict[str, Any] | None = None,
         body: dict[str, Any] | None = None) -> tuple[int, Any, dict[str, str]]:
    """Run one REST request as ``user`` through the app's engine: (status, decoded body, headers).
    An error answer (4xx, 5xx) raises CliError with its message."""
    origin = app.settings.site_url or "http://localhost"
    status, headers, data = app.rest.serve_as(user, method, route, query=query, body=body,
                                              base_url=origin.rstrip("/") + "/wp-json", via="cli")
    if status >= 400:
        raise CliError(error_message(data, status))
    return status, data, headers


def error_message(data: Any, status: int) -> str:
    """The message of a REST error answer, with the reasons of each invalid parameter."""
    if not isinstance(data, dict) or "message" not in data:
        return f"The request failed (HTTP {status})."
    message = str(data["message"])
    params = (data.get("data") or {}).get("params") if isinstance(data.get("data"), dict) else None
    if isinstance(params, dict):
        reasons = [str(reason) for reason in params.values() if reason]
        if reasons:
            message += " (" + "; ".join(reasons) + ")"
    return message


def rest_all(app: Any, route: str, user: Any, query: dict[str, Any]) -> list[dict[str, Any]]:
    """Every item of a REST listing, a page of 100 at a time (WP-CLI lists everything unless
    asked for a page): one page only when --per_page or --page is given."""
    query = {"context": "edit", **query}
    if "per_page" in query or "page" in query:
        return rest(app, "GET", route, user, query)[1]
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        _, data, headers = rest(app, "GET", route, user, {**query, "per_page": "100", "page": str(page)})
        items.extend(data)
        if page >= int(headers.get("X-WP-TotalPages") or 1):
            return items
        page += 1


def for_each(targets: Sequence[Any], act: Callable[[Any], str], *, noun: str, done: str,
             always_report: bool = False) -> int:
    """Run ``act`` on each target (an id, a login...) and print the line it returns, going on past
    a target that fails, as WP-CLI's commands given several objects do: a ``Warning`` names the
    failure, and the command ends with WP-CLI's batch report (``Error: Only deleted 2 of 3
    posts.``, exit code 1). A single target's failure is the command's error, as before.
    ``always_report``: end with the report even when every target succeeded (``Success: Deleted
    2 of 2 application passwords.``), for the commands whose WP-CLI form prints nothing per target."""
    if len(targets) == 1 and not always_report:
        print(act(targets[0]))
        return 0
    failed = 0
    for target in targets:
        try:
            line = act(target)
        except CliError as err:
            print(f"Warning: {err}", file=sys.stderr)
            failed += 1
            continue
        if line:
            print(line)
    report = batch_report(noun, done, len(targets), len(targets) - failed)
    if failed:
        raise CliError(report)
    if always_report:
        print(f"Success: {report}")
    return 0


def batch_report(noun: str, done: str, total: int, successes: int) -> str:
    """WP-CLI's summary of an operation on several objects (``report_batch_operation_results``),
    without its ``Success:``/``Error:`` prefix: "Deleted 3 of 3 posts.", "Only deleted 2 of 3
    posts.", "No posts deleted." ``done`` is the verb's past tense. The noun is always plural, as
    WP-CLI writes it ("Regenerated 1 of 1 images.")."""
    nouns = noun + "s"
    if successes == total:
        return f"{done[0].upper()}{done[1:]} {successes} of {total} {nouns}."
    if successes:
        return f"Only {done} {successes} of {total} {nouns}."
    return f"No {noun}s {done}."


def run_with_app(args: argparse.Namespace, body: Callable[[Any, Any], int]) -> int:
    app = open_app(args)
    try:
        return body(app, acting_user(app, args.user))
    finally:
        app.site.close()


def extra_options(extra: list[str]) -> dict[str, str]:
    """``--key=value`` and ``--key value`` options no parser knows: query arguments, as WP-CLI
    passes unknown options to its query. A bare ``--flag`` is ``1``."""
    found: dict[str, str] = {}
    index = 0
    while index < len(extra):
        item = extra[index]
        if not item.startswith("--") or len(item) == 2:
            raise CliError(f"Unexpected argument: {item}")
        key, sep, value = item[2:].partition("=")
        if not sep:
            if index + 1 < len(extra) and not extra[index + 1].startswith("--"):
                value = extra[index + 1]
                index += 1
            else:
                value = "1"
        found[key] = value
        index += 1
    return found


def show_list(args: argparse.Namespace, rows: list[dict[str, Any]], default: list[str], available: list[str],
              id_field: str | None) -> int:
    fields = _fields(args, default, available)
    text = cli_format.render_list(rows, args.format, fields, id_field=id_field, single=bool(args.field))
    if text:
        print(text)
    return 0


# WP-CLI's field names and how each is read from a REST item.
Fields = dict[str, Callable[[dict[str, Any]], Any]]


def row_of(fields: Fields, item: dict[str, Any]) -> dict[str, Any]:
    return {name: read(item) for name, read in fields.items()}


def list_items(args: argparse.Namespace, fields: Fields, items: list[dict[str, Any]], default: list[str],
               id_field: str | None) -> int:
    """REST items shown as a list with WP-CLI's field names."""
    return show_list(args, [row_of(fields, item) for item in items], default, list(fields), id_field)


def get_item(args: argparse.Namespace, app: Any, user: Any, route: str, fields: Fields,
             query: dict[str, Any] | None = None) -> int:
    """A ``get`` command: the REST item at ``route`` (edit context unless ``query`` is given),
    shown with WP-CLI's field names."""
    _, data, _ = rest(app, "GET", route, user, {"context": "edit"} if query is None else query)
    return show_item(args, row_of(fields, data), list(fields))


def update_item(app: Any, user: Any, route: str, body: dict[str, Any], message: str) -> int:
    """An ``update`` command: ``body`` (the REST names of the options given) sent to ``route``,
    then ``message``; WP-CLI's error when no field was given."""
    if not body:
        raise CliError("Need some fields to update.")
    rest(app, "POST", route, user, body=body)
    print(message)
    return 0


def show_item(args: argparse.Namespace, item: dict[str, Any], default: list[str]) -> int:
    fields = _fields(args, default, list(item))
    print(cli_format.render_item(item, args.format, fields, single=bool(args.field)))
    return 0


def _fields(args: argparse.Namespace, default: list[str], available: list[str]) -> list[str]:
    try:
        return cli_format.pick_fields(args.fields, args.field, default, available)
    except cli_format.FormatError as err:
        raise CliError(str(err)) from None


# -- posts ----------------------------------------------------------------------------------------


def _raw(value: Any) -> Any:
    """The raw form of a rendered field ({"raw": ..., "rendered": ...}), or the value itself."""
    if isinstance(value, dict):
        return value.get("raw", value.get("rendered", ""))
    return value


def _wp_date(value: Any) -> str:
    """A REST date (2027-03-10T09:00:00) as WordPress stores it (2027-03-10 09:00:00)."""
    return str(value).replace("T", " ") if value else "0000-00-00 00:00:00"


POST_FIELDS: Fields = {
    "ID": lambda p: p["id"],
    "post_author": lambda p: p.get("author", 0),
    "post_date": lambda p: _wp_date(p.get("date")),
    "post_date_gmt": lambda p: _wp_date(p.get("date_gmt")),
    "post_content": lambda p: _raw(p.get("content", "")),
    "post_title": lambda p: _raw(p.get("title", "")),
    "post_excerpt": lambda p: _raw(p.get("excerpt", "")),
    "post_status": lambda p: p.get("status", ""),
    "comment_status": lambda p: p.get("comment_status", "closed"),
    "ping_status": lambda p: p.get("ping_status", "closed"),
    "post_password": lambda p: p.get("password", ""),
    "post_name": lambda p: p.get("slug", ""),
    "post_modified": lambda p: _wp_date(p.get("modified")),
    "post_modified_gmt": lambda p: _wp_date(p.get("modified_gmt")),
    "post_parent": lambda p: p.get("parent", 0),
    "guid": lambda p: _raw(p.get("guid", "")),
    "menu_order": lambda p: p.get("menu_order", 0),
    "post_type": lambda p: p.get("type", ""),
    "url": lambda p: p.get("link", ""),
}
POST_LIST_DEFAULT = ["ID", "post_title", "post_name", "post_date", "post_status"]

# WP-CLI's names for the fields of post create/update -> the REST argument.
POST_WRITE_ARGS = {
    "post_title": "title",
    "post_content": "content",
    "post_excerpt": "excerpt",
    "post_status": "status",
    "post_name": "slug",
    "post_author": "author",
    "post_date": "date",
    "post_date_gmt": "date_gmt",
    "post_parent": "parent",
    "post_password": "password",
    "comment_status": "comment_status",
    "ping_status": "ping_status",
    "menu_order": "menu_order",
}
# WP_Query's names WP-CLI users pass to post list -> the REST listing's.
POST_QUERY_ARGS = {"post_status": "status", "post_author": "author", "post_parent": "parent", "s": "search",
                   "posts_per_page": "per_page", "paged": "page", "post__in": "include", "post__not_in": "exclude"}


def posts_route(app: Any, post_type: str) -> str:
    """/cms/v2/<rest base> of a content type (post, page, cal_events, cal_venue, cal_organizer...)."""
    content_type = app.site.registry.types.get(post_type)
    if content_type is None or not content_type.show_in_rest:
        known = ", ".join(t.name for t in app.site.registry.rest_types())
        raise CliError(f"Invalid post type: {post_type} (one of {known}).")
    return f"/cms/v2/{content_type.rest_base}"


def _post_route_of(app: Any, post_id: int) -> str:
    """The item route of a post of any type: its type is read first (as WP-CLI's get_post)."""
    from .content import items

    with app.site.read() as conn:
        found = items.get_item(conn, post_id)
    if found is None:
        raise CliError(f"Could not find the post with ID {post_id}.")
    return f"{posts_route(app, found.type)}/{post_id}"


def _post_body(app: Any, args: argparse.Namespace) -> dict[str, Any]:
    from .auth import users

    body: dict[str, Any] = {}
    for option, rest_name in POST_WRITE_ARGS.items():
        value = getattr(args, option, None)
        if value is None:
            continue
        if option == "post_author" and not value.isdigit():
            with app.site.read() as conn:
                author = users.find_user(conn, value)
            if author is None:
                raise CliError(f"Invalid user ID, email or login: '{value}'")
            value = author.id
        elif option in ("post_date", "post_date_gmt"):
            value = value.replace(" ", "T")
        elif option in ("post_author", "post_parent", "menu_order") and str(value).lstrip("-").isdigit():
            value = int(value)
        body[rest_name] = value
    return body


def cmd_post_list(args: argparse.Namespace) -> int:
    query = {POST_QUERY_ARGS.get(key, key): value for key, value in extra_options(args.extra).items()}
    # WP-CLI lists drafts and private posts too (media have statuses of their own).
    query.setdefault("status", "inherit,private" if args.post_type == "attachment" else "any")

    def run(app: Any, user: Any) -> int:
        items = rest_all(app, posts_route(app, args.post_type), user, query)
        return list_items(args, POST_FIELDS, items, POST_LIST_DEFAULT, "ID")

    return run_with_app(args, run)


def cmd_post_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, _post_route_of(app, args.id), POST_FIELDS)

    return run_with_app(args, run)


def cmd_post_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        _, data, _ = rest(app, "POST", posts_route(app, args.post_type), user, body=_post_body(app, args))
        print(data["id"] if args.porcelain else f"Success: Created post {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_post_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return update_item(app, user, _post_route_of(app, args.id), _post_body(app, args), f"Success: Updated post {args.id}.")

    return run_with_app(args, run)


def cmd_post_delete(args: argparse.Namespace) -> int:
    done = "deleted" if args.force else "trashed"

    def run(app: Any, user: Any) -> int:
        def delete(post_id: int) -> str:
            rest(app, "DELETE", _post_route_of(app, post_id), user, {"force": "true"} if args.force else {})
            return f"Success: {done.capitalize()} post {post_id}."

        return for_each(args.ids, delete, noun="post", done=done)

    return run_with_app(args, run)


# -- terms ----------------------------------------------------------------------------------------

TERM_FIELDS: Fields = {
    "term_id": lambda t: t["id"],
    # One row per term and taxonomy here: the term's id is also its term_taxonomy_id.
    "term_taxonomy_id": lambda t: t["id"],
    "name": lambda t: t.get("name", ""),
    "slug": lambda t: t.get("slug", ""),
    "description": lambda t: t.get("description", ""),
    "parent": lambda t: t.get("parent", 0),
    "count": lambda t: t.get("count", 0),
    "taxonomy": lambda t: t.get("taxonomy", ""),
    "url": lambda t: t.get("link", ""),
}
TERM_DEFAULT = ["term_id", "term_taxonomy_id", "name", "slug", "description", "parent", "count"]


def terms_route(app: Any, taxonomy: str) -> str:
    """/cms/v2/<rest base> of a taxonomy (category, post_tag, cal_events_cat...)."""
    found = app.site.registry.taxonomies.get(taxonomy)
    if found is None or not found.show_in_rest:
        known = ", ".join(t.name for t in app.site.registry.rest_taxonomies())
        raise CliError(f"Taxonomy {taxonomy} doesn't exist (one of {known}).")
    return f"/cms/v2/{found.rest_base}"


def _term_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name in ("name", "slug", "description", "parent"):
        value = getattr(args, name, None)
        if value is not None:
            body[name] = int(value) if name == "parent" and value.isdigit() else value
    return body


def cmd_term_list(args: argparse.Namespace) -> int:
    query = extra_options(args.extra)

    def run(app: Any, user: Any) -> int:
        items = rest_all(app, terms_route(app, args.taxonomy), user, query)
        return list_items(args, TERM_FIELDS, items, TERM_DEFAULT, "term_id")

    return run_with_app(args, run)


def cmd_term_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"{terms_route(app, args.taxonomy)}/{args.id}", TERM_FIELDS)

    return run_with_app(args, run)


def cmd_term_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        _, data, _ = rest(app, "POST", terms_route(app, args.taxonomy), user, body=_term_body(args))
        print(data["id"] if args.porcelain else f"Success: Created {args.taxonomy} {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_term_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return update_item(app, user, f"{terms_route(app, args.taxonomy)}/{args.id}", _term_body(args), "Success: Term updated.")

    return run_with_app(args, run)


def cmd_term_delete(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        route = terms_route(app, args.taxonomy)

        def delete(term_id: int) -> str:
            # Terms have no trash: the REST API wants force=true.
            rest(app, "DELETE", f"{route}/{term_id}", user, {"force": "true"})
            return f"Success: Deleted {args.taxonomy} {term_id}."

        return for_each(args.ids, delete, noun="term", done="deleted")

    return run_with_app(args, run)


# -- options --------------------------------------------------------------------------------------


def cmd_option_list(args: argparse.Namespace) -> int:
    """The stored options over the defaults (what ``option get`` answers), by name."""
    import sqlalchemy as sa

    from .site import OPTION_DEFAULTS
    from .store.tables import options as options_table

    _, site = _open_site(args)
    try:
        with site.read() as conn:
            stored = dict(conn.execute(sa.select(options_table.c.name, options_table.c.value)).all())
    finally:
        site.close()
    values = {**OPTION_DEFAULTS, **stored}
    names = sorted(values)
    if args.search:
        names = [name for name in names if fnmatch.fnmatchcase(name, args.search)]
    rows = [{"option_name": name, "option_value": values[name]} for name in names]
    return show_list(args, rows, ["option_name", "option_value"], ["option_name", "option_value"], None)


def cmd_option_add(args: argparse.Namespace) -> int:
    from .site import OPTION_DEFAULTS

    value = _checked_option(args.name, input_value(args.value, args.format))
    _, site = _open_site(args)
    missing = object()
    try:
        with site.write() as conn:
            exists = site.stored_option(conn, args.name, missing, for_update=True) is not missing
            if exists or args.name in OPTION_DEFAULTS:
                raise CliError(f"Could not add option '{args.name}'. Does it already exist?")
            site.update_option(conn, args.name, value)
    finally:
        site.close()
    print(f"Success: Added '{args.name}' option.")
    return 0


def cmd_option_delete(args: argparse.Namespace) -> int:
    _, site = _open_site(args)
    try:
        with site.write() as conn:
            deleted = site.delete_option(conn, args.name)
    finally:
        site.close()
    if not deleted:
        raise CliError(f"Could not delete '{args.name}' option. Does it exist?")
    print(f"Success: Deleted '{args.name}' option.")
    return 0


# -- the parsers ----------------------------------------------------------------------------------


def add_command(group: Any, name: str, help_text: str, *, global_options: Callable[[argparse.ArgumentParser], None],
                extra: bool = False, user: bool = True) -> argparse.ArgumentParser:
    """A subcommand of these WP-CLI-form commands: ``--user`` to run as (``user``), unknown
    --options passed to the handler (``extra``: never taken as abbreviations of known ones), and
    calpress's global options."""
    parser = group.add_parser(name, help=help_text, allow_abbrev=not extra)
    if user:
        parser.add_argument("--user", default=None, help="run as this user (id, login or email; default: the first administrator)")
    parser.set_defaults(accepts_extra=extra)
    global_options(parser)
    return parser


def register(commands: Any, option_commands: Any, global_options: Callable[[argparse.ArgumentParser], None]) -> Any:
    """Add post, term and the option list/add/delete subcommands to calpress's parser; returns
    the post command's subcommand group (post meta joins it)."""
    command = functools.partial(add_command, global_options=global_options)

    post = commands.add_parser("post", help="posts, pages and calendar items, through the REST API")
    posts = post.add_subparsers(dest="post_command", required=True)
    listing = command(posts, "list", "list posts (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("--post_type", default="post")
    cli_format.add_options(listing)
    get = command(posts, "get", "show a post")
    get.add_argument("id", type=int)
    cli_format.add_options(get, formats=cli_format.GET_FORMATS)
    create = command(posts, "create", "create a post")
    create.add_argument("--post_type", default="post")
    _post_write_options(create)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    update = command(posts, "update", "update a post")
    update.add_argument("id", type=int)
    _post_write_options(update)
    delete = command(posts, "delete", "move posts to the trash, or delete them with --force (going on past an id that fails)")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")
    delete.add_argument("--force", action="store_true", help="skip the trash")

    term = commands.add_parser("term", help="terms of a taxonomy (category, post_tag, cal_events_cat...), through the REST API")
    terms = term.add_subparsers(dest="term_command", required=True)
    listing = command(terms, "list", "list terms (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("taxonomy")
    cli_format.add_options(listing)
    get = command(terms, "get", "show a term")
    get.add_argument("taxonomy")
    get.add_argument("id", type=int)
    cli_format.add_options(get, formats=cli_format.GET_FORMATS)
    create = command(terms, "create", "create a term")
    create.add_argument("taxonomy")
    create.add_argument("name")
    for name in ("slug", "description", "parent"):
        create.add_argument(f"--{name}", default=None)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    update = command(terms, "update", "update a term")
    update.add_argument("taxonomy")
    update.add_argument("id", type=int)
    for name in ("name", "slug", "description", "parent"):
        update.add_argument(f"--{name}", default=None)
    delete = command(terms, "delete", "delete terms (going on past an id that fails)")
    delete.add_argument("taxonomy")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")

    listing = command(option_commands, "list", "list options", user=False)
    listing.add_argument("--search", default=None, help="names matching this pattern (* and ? wildcards)")
    cli_format.add_options(listing, formats=("table", "json", "csv", "yaml", "count"))
    add = command(option_commands, "add", "add an option that does not exist yet", user=False)
    add.add_argument("name")
    add.add_argument("value")
    add.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    delete = command(option_commands, "delete", "delete an option", user=False)
    delete.add_argument("name")
    return posts


def _post_write_options(parser: argparse.ArgumentParser) -> None:
    for option in POST_WRITE_ARGS:
        parser.add_argument(f"--{option}", default=None)


HANDLERS: dict[tuple[str, ...], Callable[[argparse.Namespace], int]] = {
    ("post", "list"): cmd_post_list,
    ("post", "get"): cmd_post_get,
    ("post", "create"): cmd_post_create,
    ("post", "update"): cmd_post_update,
    ("post", "delete"): cmd_post_delete,
    ("term", "list"): cmd_term_list,
    ("term", "get"): cmd_term_get,
    ("term", "create"): cmd_term_create,
    ("term", "update"): cmd_term_update,
    ("term", "delete"): cmd_term_delete,
    ("option", "list"): cmd_option_list,
    ("option", "add"): cmd_option_add,
    ("option", "delete"): cmd_option_delete,
}
