"""Events, venues, organizers, comments, the cache and the database in WP-CLI's forms (issue 15):

    calpress event list [--<calendar listing filter>=<value>...] | get <id> | create ... | update <id> ... | delete <id>... [--force]
    calpress venue list|get|create|update|delete ...        (/cal/events/v1/venues)
    calpress organizer list|get|create|update|delete ...    (/cal/events/v1/organizers)
    calpress comment list [--status=approve|hold|spam|trash|any] [--post_id=N] | create ...
    calpress comment approve|unapprove|spam|trash|delete <id>... [--force]
    calpress cache flush
    calpress db check | size [--format=table|json] [--size_format=b|kb|mb|gb]
    calpress db export [<file>|-] [--porcelain] | import <file>|- [--yes]

Events, venues and organizers go through the calendar API (its field names: title, start_date,
venue...), comments through /cms/v2, as ``--user`` (default: the first administrator).
The calendar API only trashes: ``delete --force`` deletes through /cms/v2/<type's rest base>.
Deletes and comment actions given several ids go on past one that fails (``for_each``).
``event list`` lists every event unless given --start_date/--end_date (the API's own window
is from yesterday to two years ahead). ``cache flush`` moves the content counter every serving
worker keys its caches by (its change log says "everything"); ``db check`` and ``db size`` look at
the database itself. ``db export`` and ``db import`` write and load the portable dump of
store/dump.py (JSON Lines, the same on SQLite and PostgreSQL), which moves a site from one
database to the other.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Any

from .cli_content import (
    Fields,
    add_command,
    extra_options,
    for_each,
    get_item,
    list_items,
    posts_route,
    rest,
    rest_all,
    run_with_app,
    update_item,
)
from .cli_format import GET_FORMATS, add_options
from .cli_site import CliError, _locate, _open_site, _probe_engine, _require_site, _sqlite_file

# -- the calendar API -----------------------------------------------------------------------------

EVENT_TYPE = "cal_events"
VENUE_TYPE = "cal_venue"
ORGANIZER_TYPE = "cal_organizer"
CAL = "/cal/events/v1"
CAL_PAGE = 50  # the calendar API's largest page


def cal_all(app: Any, route: str, key: str, user: Any, query: dict[str, Any]) -> list[dict[str, Any]]:
    """Every item of a calendar listing (``{"<key>": [...], "total_pages": N}``), a page at a time;
    one page only when --per_page or --page is given."""
    if "per_page" in query or "page" in query:
        return rest(app, "GET", route, user, query)[1][key]
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        _, data, _ = rest(app, "GET", route, user, {**query, "per_page": str(CAL_PAGE), "page": str(page)})
        items.extend(data[key])
        if page >= int(data.get("total_pages") or 0):
            return items
        page += 1


def _id_of(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else None


def _ids(values: Any) -> list[int]:
    if isinstance(values, dict):
        values = [values]
    return [value["id"] for value in values or [] if isinstance(value, dict) and "id" in value]


EVENT_FIELDS: Fields = {
    "ID": lambda e: e["id"],
    "title": lambda e: e.get("title", ""),
    "slug": lambda e: e.get("slug", ""),
    "description": lambda e: e.get("description", ""),
    "start_date": lambda e: e.get("start_date", ""),
    "end_date": lambda e: e.get("end_date", ""),
    "all_day": lambda e: bool(e.get("all_day")),
    "timezone": lambda e: e.get("timezone", ""),
    "status": lambda e: e.get("status", ""),
    "featured": lambda e: bool(e.get("featured")),
    "venue": lambda e: _id_of(e.get("venue")),
    "organizer": lambda e: _ids(e.get("organizer")),
    "categories": lambda e: [c.get("slug") for c in e.get("categories") or []],
    "url": lambda e: e.get("url", ""),
}
EVENT_DEFAULT = ["ID", "title", "start_date", "end_date", "status"]


def _flag(value: str) -> bool:
    """A bare --flag is true; --flag=false|0|no|off is false."""
    return value.strip().lower() not in ("false", "0", "no", "off", "")


def _id_list(value: str, name: str) -> list[int]:
    try:
        return [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise CliError(f"--{name} takes ids separated by commas, not '{value}'.") from None


def _event_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name in ("title", "description", "start_date", "end_date", "status", "timezone"):
        value = getattr(args, name, None)
        if value is not None:
            body[name] = value
    for name in ("all_day", "featured"):
        value = getattr(args, name, None)
        if value is not None:
            body[name] = _flag(value)
    if args.venue is not None:
        venues = _id_list(args.venue, "venue")
        body["venue"] = venues[0] if venues else ""  # empty: no venue
    if args.organizer is not None:
        body["organizer"] = _id_list(args.organizer, "organizer")
    if args.categories is not None:
        body["categories"] = [int(part) if part.strip().isdigit() else part.strip()
                              for part in args.categories.split(",") if part.strip()]
    return body


def cmd_event_list(args: argparse.Namespace) -> int:
    query = extra_options(args.extra)
    # Every event, unless a window is given (the API's default window starts yesterday).
    query.setdefault("start_date", "1970-01-01 00:00:00")
    query.setdefault("end_date", "9999-12-31 23:59:59")

    def run(app: Any, user: Any) -> int:
        return list_items(args, EVENT_FIELDS, cal_all(app, f"{CAL}/events", "events", user, query), EVENT_DEFAULT, "ID")

    return run_with_app(args, run)


def cmd_event_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"{CAL}/events/{args.id}", EVENT_FIELDS, {})

    return run_with_app(args, run)


def cmd_event_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        _, data, _ = rest(app, "POST", f"{CAL}/events", user, body=_event_body(args))
        print(data["id"] if args.porcelain else f"Success: Created event {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_event_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return update_item(app, user, f"{CAL}/events/{args.id}", _event_body(args), f"Success: Updated event {args.id}.")

    return run_with_app(args, run)


def _linked_delete(args: argparse.Namespace, base: str, content_type: str, what: str) -> int:
    """Trash through the calendar API; --force deletes (the calendar API has no force: the
    content type's /cms/v2 route has). The item is read first, so a wrong id says so."""

    def run(app: Any, user: Any) -> int:
        def delete(item_id: int) -> str:
            if not args.force:
                rest(app, "DELETE", f"{CAL}/{base}/{item_id}", user)
                return f"Success: Trashed {what} {item_id}."
            from .content import items

            with app.site.read() as conn:
                item = items.get_item(conn, item_id)
            if item is None or item.type != content_type:
                raise CliError(f"Could not find the {what} with ID {item_id}.")
            rest(app, "DELETE", f"{posts_route(app, content_type)}/{item_id}", user, {"force": "true"})
            return f"Success: Deleted {what} {item_id}."

        return for_each(args.ids, delete, noun=what, done="deleted" if args.force else "trashed")

    return run_with_app(args, run)


def cmd_event_delete(args: argparse.Namespace) -> int:
    return _linked_delete(args, "events", EVENT_TYPE, "event")


# -- venues and organizers ------------------------------------------------------------------------

VENUE_WRITE = ("venue", "description", "status", "address", "city", "country", "province", "state", "zip",
               "phone", "website", "stateprovince", "show_map", "show_map_link")
ORGANIZER_WRITE = ("organizer", "description", "status", "phone", "website", "email")
LINKED = {
    "venue": (VENUE_TYPE, "venues", VENUE_WRITE, ["ID", "venue", "address", "city", "country"]),
    "organizer": (ORGANIZER_TYPE, "organizers", ORGANIZER_WRITE, ["ID", "organizer", "phone", "email", "website"]),
}


def _linked_fields(what: str) -> Fields:
    fields: Fields = {"ID": lambda item: item["id"]}
    for name in ("slug", *LINKED[what][2], "url"):
        fields[name] = lambda item, name=name: item.get(name, "")
    return fields


LINKED_FIELDS = {what: _linked_fields(what) for what in LINKED}


def _linked_body(what: str, args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name) for name in LINKED[what][2] if getattr(args, name, None) is not None}


def cmd_linked_list(args: argparse.Namespace) -> int:
    what = args.linked
    query = extra_options(args.extra)

    def run(app: Any, user: Any) -> int:
        base = LINKED[what][1]
        return list_items(args, LINKED_FIELDS[what], cal_all(app, f"{CAL}/{base}", base, user, query), LINKED[what][3], "ID")

    return run_with_app(args, run)


def cmd_linked_get(args: argparse.Namespace) -> int:
    what = args.linked

    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"{CAL}/{LINKED[what][1]}/{args.id}", LINKED_FIELDS[what], {})

    return run_with_app(args, run)


def cmd_linked_create(args: argparse.Namespace) -> int:
    what = args.linked

    def run(app: Any, user: Any) -> int:
        body = {**_linked_body(what, args), what: args.name}
        _, data, _ = rest(app, "POST", f"{CAL}/{LINKED[what][1]}", user, body=body)
        print(data["id"] if args.porcelain else f"Success: Created {what} {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_linked_update(args: argparse.Namespace) -> int:
    what = args.linked

    def run(app: Any, user: Any) -> int:
        return update_item(app, user, f"{CAL}/{LINKED[what][1]}/{args.id}", _linked_body(what, args),
                           f"Success: Updated {what} {args.id}.")

    return run_with_app(args, run)


def cmd_linked_delete(args: argparse.Namespace) -> int:
    content_type, base, *_ = LINKED[args.linked]
    return _linked_delete(args, base, content_type, args.linked)


# -- comments -------------------------------------------------------------------------------------

# The REST statuses as WordPress stores them in comment_approved.
APPROVED = {"approved": "1", "hold": "0"}

COMMENT_FIELDS: Fields = {
    "comment_ID": lambda c: c["id"],
    "comment_post_ID": lambda c: c.get("post", 0),
    "comment_date": lambda c: str(c.get("date") or "").replace("T", " "),
    "comment_date_gmt": lambda c: str(c.get("date_gmt") or "").replace("T", " "),
    "comment_approved": lambda c: APPROVED.get(c.get("status", ""), c.get("status", "")),
    "comment_author": lambda c: c.get("author_name", ""),
    "comment_author_email": lambda c: c.get("author_email", ""),
    "comment_author_url": lambda c: c.get("author_url", ""),
    "comment_content": lambda c: (c.get("content") or {}).get("raw", "") if isinstance(c.get("content"), dict) else c.get("content", ""),
    "comment_parent": lambda c: c.get("parent", 0),
    "comment_type": lambda c: c.get("type", ""),
    "user_id": lambda c: c.get("author", 0),
    "url": lambda c: c.get("link", ""),
}
COMMENT_DEFAULT = ["comment_ID", "comment_post_ID", "comment_date", "comment_approved", "comment_author",
                   "comment_author_email"]  # WP-CLI's Comment_Command fields
COMMENT_WRITE = {"comment_post_ID": "post", "comment_content": "content", "comment_author": "author_name",
                 "comment_author_email": "author_email", "comment_author_url": "author_url",
                 "comment_parent": "parent", "comment_approved": "status"}


def cmd_comment_list(args: argparse.Namespace) -> int:
    query = extra_options(args.extra)
    if args.post_id is not None:
        query["post"] = args.post_id
    # WP_Comment_Query: no status (or "all") lists approved and held comments; "any" every one.
    status = args.status or "all"
    statuses = ["any"] if status == "any" else ["approve", "hold"] if status == "all" else [status]

    def run(app: Any, user: Any) -> int:
        found: dict[int, dict[str, Any]] = {}
        for one in statuses:
            for item in rest_all(app, "/cms/v2/comments", user, {**query, "status": one}):
                found[item["id"]] = item
        ordered = sorted(found.values(), key=lambda c: (str(c.get("date_gmt") or ""), c["id"]), reverse=True)
        return list_items(args, COMMENT_FIELDS, ordered, COMMENT_DEFAULT, "comment_ID")

    return run_with_app(args, run)


def cmd_comment_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"/cms/v2/comments/{args.id}", COMMENT_FIELDS)

    return run_with_app(args, run)


def cmd_comment_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        body: dict[str, Any] = {}
        for option, rest_name in COMMENT_WRITE.items():
            value = getattr(args, option)
            if value is not None:
                body[rest_name] = int(value) if rest_name in ("post", "parent") and value.isdigit() else value
        if body.get("status") in ("1", "0"):
            body["status"] = "approve" if body["status"] == "1" else "hold"
        _, data, _ = rest(app, "POST", "/cms/v2/comments", user, body=body)
        print(data["id"] if args.porcelain else f"Success: Created comment {data['id']}.")
        return 0

    return run_with_app(args, run)


# action -> (REST status to set, or None for DELETE; the message's verb)
COMMENT_ACTIONS = {
    "approve": ("approve", "Approved"),
    "unapprove": ("hold", "Unapproved"),
    "spam": ("spam", "Marked as spam"),
    "unspam": ("unspam", "Unspammed"),  # the status before the spam comes back, as wp_unspam_comment
    "trash": (None, "Trashed"),
    "untrash": ("untrash", "Untrashed"),  # the status before the trash comes back, as wp_untrash_comment
    "delete": (None, "Deleted"),
}


def cmd_comment_action(args: argparse.Namespace) -> int:
    status, verb = COMMENT_ACTIONS[args.comment_command]

    force = args.comment_command == "delete" and args.force
    shown = verb if status is not None else "Deleted" if force else "Trashed"

    def run(app: Any, user: Any) -> int:
        def act(comment_id: int) -> str:
            route = f"/cms/v2/comments/{comment_id}"
            if status is not None:
                rest(app, "POST", route, user, body={"status": status})
            else:
                rest(app, "DELETE", route, user, {"force": "true"} if force else {})
            return f"Success: {shown} comment {comment_id}."

        return for_each(args.ids, act, noun="comment", done=shown.lower())

    return run_with_app(args, run)


# -- cache and database ---------------------------------------------------------------------------


def cmd_cache_flush(args: argparse.Namespace) -> int:
    """One write transaction recording a change that names no record: the content counter moves
    and its log step says "everything", so every serving worker drops its answer cache and memo."""
    from .store import changes

    _, site = _open_site(args)
    try:
        with site.write() as conn:
            changes.record(conn, "option", "flush")
    finally:
        site.close()
    print("Success: The cache was flushed.")
    return 0


def _database_engine(args: argparse.Namespace) -> tuple[Any, Any]:
    """The settings and a plain engine on the located site's database (nothing migrated)."""
    location, settings = _locate(args)
    _require_site(location, settings)
    return settings, _probe_engine(settings)


def cmd_db_check(args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    from .store import db as store_db

    settings, engine = _database_engine(args)
    problems: list[str] = []
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                found = [str(row[0]) for row in conn.execute(sa.text("PRAGMA integrity_check"))]
                if found != ["ok"]:
                    problems.extend(found)
                else:
                    print("integrity_check: ok")
            else:
                conn.execute(sa.text("SELECT 1")).scalar()
                print("connection: ok")
        revision, newest = store_db.current_revision(engine), store_db.head_revision()
    finally:
        engine.dispose()
    if revision != newest:
        problems.append(f"The database is at revision {revision}, the newest is {newest}: run `calpress db upgrade`.")
    else:
        print(f"revision: {revision} (the newest)")
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        raise CliError("Database check failed.")
    print("Success: Database checked.")
    return 0


SIZE_UNITS = {"b": 0, "kb": 1, "mb": 2, "gb": 3}


def cmd_db_size(args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    settings, engine = _database_engine(args)
    try:
        sqlite_file = _sqlite_file(settings.database_url)
        if sqlite_file is not None:
            name = sqlite_file.name
            size = sum(path.stat().st_size for path in (sqlite_file, sqlite_file.with_name(sqlite_file.name + "-wal"))
                       if path.is_file())
        else:
            with engine.connect() as conn:
                name, size = conn.execute(sa.text("SELECT current_database(), pg_database_size(current_database())")).one()
    finally:
        engine.dispose()
    if args.size_format:  # WP-CLI: the number alone, in that unit
        print(int(size // 1024 ** SIZE_UNITS[args.size_format]))
        return 0
    from .health.sizes import size_format  # here: the health package costs every command 0.6 s to import

    rows = [{"Name": name, "Size": size_format(int(size), 0)}]
    from .cli_format import render_list

    print(render_list(rows, args.format, ["Name", "Size"]))
    return 0


def _dump_engine(args: argparse.Namespace) -> tuple[Any, Any]:
    """The settings and the store's engine on the located site's database (nothing migrated):
    the store's, for its SQLite set-up (busy timeout, foreign keys) and its write transactions."""
    from .store import db as store_db

    location, settings = _locate(args)
    _require_site(location, settings)
    return settings, store_db.create_engine(settings.database_url)


def _dump_progress(label: str) -> tuple[Any, Any]:
    """A progress callback for a dump (None unless stderr is a terminal) and its finisher."""
    from .cli import _bar

    if not sys.stderr.isatty():
        return None, lambda: None
    return _bar(label, False)


def _default_dump_name(settings: Any) -> str:
    """WP-CLI's default export name, {database}-{date}-{7 hex}, with the dump's extension."""
    import datetime as dt
    import secrets

    import sqlalchemy as sa

    from .store.db import normalize_url

    sqlite_file = _sqlite_file(settings.database_url)
    name = sqlite_file.stem if sqlite_file is not None else sa.make_url(normalize_url(settings.database_url)).database
    return f"{name or 'calpress'}-{dt.date.today():%Y-%m-%d}-{secrets.token_hex(4)[:7]}.jsonl"


def cmd_db_export(args: argparse.Namespace) -> int:
    """Write the site's portable dump (store/dump.py) to a file, or to stdout with ``-``. A file is
    written beside its final name and renamed once complete, so a failed export never leaves a
    truncated dump (nor destroys an earlier one) under that name."""
    import os
    import tempfile
    from pathlib import Path

    from .store import dump

    settings, engine = _dump_engine(args)
    target = args.file or _default_dump_name(settings)
    progress, finish = _dump_progress("exporting rows")
    try:
        if target == "-":
            try:
                dump.export(engine, sys.stdout.buffer, progress=progress)
                sys.stdout.buffer.flush()
            except BrokenPipeError:  # `db export - | head`: the reader left
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
                raise CliError("Could not export: the output was closed before the dump's end.") from None
        else:
            path = Path(target)
            temporary = None
            try:
                handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
                with os.fdopen(handle, "wb") as out:
                    dump.export(engine, out, progress=progress)
                os.replace(temporary, path)
            except OSError as err:
                raise CliError(f"Could not write '{target}': {err.strerror or err}.") from None
            finally:
                if temporary is not None and os.path.exists(temporary):
                    os.unlink(temporary)
    except dump.DumpError as err:
        raise CliError(f"Could not export: {err}") from None
    finally:
        finish()
        engine.dispose()
    if target != "-":  # to stdout, the dump is all there is (as WP-CLI's db export -)
        print(target if args.porcelain else f"Success: Exported to '{target}'.")
    return 0


def cmd_db_import(args: argparse.Namespace) -> int:
    """Replace the site's rows with a dump's (store/dump.py), all or nothing. Refused when the
    database is at another migration revision than the dump, and, without --yes, when it holds
    users or posts (WP-CLI's db import overwrites silently; losing a site to a typo is worse)."""
    import contextlib
    import os

    from .store import dump

    source = args.file
    if source != "-" and not (os.path.isfile(source) and os.access(source, os.R_OK)):
        raise CliError(f"Import file missing or not readable: {source}")
    _, engine = _dump_engine(args)
    progress, finish = _dump_progress("importing")
    try:
        with contextlib.ExitStack() as stack:
            stream = sys.stdin.buffer if source == "-" else stack.enter_context(open(source, "rb"))
            header = dump.read_header(stream)
            dump.check_revision(engine, header)
            if not args.yes and dump.holds_content(engine):
                raise CliError("The database already holds users or posts, and an import replaces every row: "
                               "pass --yes to go ahead (export it first to keep a copy).")
            size = os.fstat(stream.fileno()).st_size if source != "-" else None
            dump.load(engine, stream, header, progress=progress, size=size)
    except dump.DumpError as err:
        raise CliError(f"Could not import '{source}': {err}") from None
    finally:
        finish()
        engine.dispose()
    print(f"Success: Imported from '{source}'.")
    return 0


# -- the parsers ----------------------------------------------------------------------------------


def register(commands: Any, db_commands: Any, global_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add event, venue, organizer, comment, cache and the db check/size/export/import subcommands."""

    command = functools.partial(add_command, global_options=global_options)

    # events
    event = commands.add_parser("event", help="calendar events, through the calendar API")
    events = event.add_subparsers(dest="event_command", required=True)
    listing = command(events, "list", "list events (other --key=value options are calendar listing filters)", extra=True)
    add_options(listing)
    get = command(events, "get", "show an event")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    create = command(events, "create", "create an event")
    _event_write_options(create)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    update = command(events, "update", "update an event")
    update.add_argument("id", type=int)
    _event_write_options(update)
    delete = command(events, "delete", "move events to the trash, or delete them with --force (going on past an id that fails)")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")
    delete.add_argument("--force", action="store_true", help="skip the trash")

    # venues and organizers
    for what, (_, base, write, _default) in LINKED.items():
        parser = commands.add_parser(what, help=f"calendar {base}, through the calendar API")
        group = parser.add_subparsers(dest=f"{what}_command", required=True)
        listing = command(group, "list", f"list {base} (other --key=value options are listing filters)", extra=True)
        add_options(listing)
        get = command(group, "get", f"show a {what}")
        get.add_argument("id", type=int)
        add_options(get, formats=GET_FORMATS)
        create = command(group, "create", f"create a {what}")
        create.add_argument("name", help=f"the {what}'s name")
        for name in write[1:]:
            create.add_argument(f"--{name}", default=None)
        create.add_argument("--porcelain", action="store_true", help="print only the new id")
        update = command(group, "update", f"update a {what}")
        update.add_argument("id", type=int)
        for name in write:
            update.add_argument(f"--{name}", default=None)
        delete = command(group, "delete", f"move {base} to the trash, or delete them with --force (going on past an id that fails)")
        delete.add_argument("ids", metavar="id", type=int, nargs="+")
        delete.add_argument("--force", action="store_true", help="skip the trash")
        for sub in (listing, get, create, update, delete):
            sub.set_defaults(linked=what)

    # comments
    comment = commands.add_parser("comment", help="comments, through the REST API")
    comments = comment.add_subparsers(dest="comment_command", required=True)
    listing = command(comments, "list", "list comments (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("--status", choices=("approve", "hold", "spam", "trash", "all", "any"), default=None)
    listing.add_argument("--post_id", type=int, default=None)
    add_options(listing)
    get = command(comments, "get", "show a comment")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    create = command(comments, "create", "create a comment")
    for option in COMMENT_WRITE:
        create.add_argument(f"--{option}", default=None)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    for action in COMMENT_ACTIONS:
        parser = command(comments, action, f"{action} comments" if action != "delete" else "trash comments, or delete them with --force")
        parser.add_argument("ids", type=int, nargs="+")
        if action == "delete":
            parser.add_argument("--force", action="store_true", help="skip the trash")

    # cache and db
    cache = commands.add_parser("cache", help="the site's caches")
    cache_commands = cache.add_subparsers(dest="cache_command", required=True)
    command(cache_commands, "flush", "make every serving worker drop its caches", user=False)
    command(db_commands, "check", "check the database's integrity and revision", user=False)
    size = command(db_commands, "size", "the database's size", user=False)
    size.add_argument("--format", choices=("table", "json", "csv", "yaml"), default="table")
    size.add_argument("--size_format", choices=tuple(SIZE_UNITS), default=None, help="print the size alone, in this unit")
    export = command(db_commands, "export", "write a portable dump of the site's database (JSON Lines; - for stdout)",
                     user=False)
    export.add_argument("file", nargs="?", default=None,
                        help="where to write it (default: <database>-<date>-<hash>.jsonl in the working folder; - for stdout)")
    export.add_argument("--porcelain", action="store_true", help="print only the file's name")
    load = command(db_commands, "import", "replace every row of the site's database with a dump's (- for stdin)", user=False)
    load.add_argument("file", help="a dump written by `calpress db export` at the database's migration revision")
    load.add_argument("--yes", action="store_true", help="replace the rows even when the database holds users or posts")


def _event_write_options(parser: argparse.ArgumentParser) -> None:
    for name in ("title", "description", "start_date", "end_date", "status", "timezone", "venue", "organizer", "categories"):
        parser.add_argument(f"--{name}", default=None)
    for name in ("all_day", "featured"):
        parser.add_argument(f"--{name}", nargs="?", const="true", default=None, help="a flag; =false to unset")


HANDLERS: dict[tuple[str, ...], Callable[[argparse.Namespace], int]] = {
    ("event", "list"): cmd_event_list,
    ("event", "get"): cmd_event_get,
    ("event", "create"): cmd_event_create,
    ("event", "update"): cmd_event_update,
    ("event", "delete"): cmd_event_delete,
    **{(what, verb): handler for what in LINKED for verb, handler in (
        ("list", cmd_linked_list), ("get", cmd_linked_get), ("create", cmd_linked_create),
        ("update", cmd_linked_update), ("delete", cmd_linked_delete))},
    ("comment", "list"): cmd_comment_list,
    ("comment", "get"): cmd_comment_get,
    ("comment", "create"): cmd_comment_create,
    **{("comment", action): cmd_comment_action for action in COMMENT_ACTIONS},
    ("cache", "flush"): cmd_cache_flush,
    ("db", "check"): cmd_db_check,
    ("db", "size"): cmd_db_size,
    ("db", "export"): cmd_db_export,
    ("db", "import"): cmd_db_import,
}
