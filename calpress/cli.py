"""The ``calpress`` command, in WP-CLI's forms so that existing tools can call it:

    calpress serve [--host H] [--port P] [--workers N]
    calpress db upgrade
    calpress info [--format=table|json]
    calpress option get <name>
    calpress option update <name> <value>
    calpress seed-demo --events N [--seed S] [--batch B]
    calpress media import <file>... [--user=<id>] [--porcelain]
    calpress routes [--format=table|json]
    calpress doctor [--format=table|json]
    calpress import ics <file-or-url> [--user=<id>] [--status=<status>] [--from=<day> --until=<day>] [--remove-missing]
    calpress import list [--format=table|json] | schedule <url> [--every=<seconds>] | run-due
    calpress post list|get|create|update|delete ...   (cli_content.py, through the REST API)
    calpress term list|get|create|update|delete <taxonomy> ...
    calpress option list [--search=<pattern>] | add <name> <value> | delete <name>
    calpress event|venue|organizer|comment ..., cache flush, db check|size|export|import
                                                      (cli_more.py)
    calpress user create|list|get|update|delete|set-role|reset-password ...,
    user application-password create|list|delete ...  (cli_users.py)
    calpress post meta list|get|update|delete, option patch insert|update|delete,
    media list|regenerate                             (cli_extra.py)
    calpress import wxr <file> [--authors=create|skip] [--skip=attachment], export wxr [<file>|-]
                                                      (cli_transfer.py)

Every command works on one site, found as WP-CLI finds WordPress (config.find_site): --data-dir,
else CALPRESS_DATA_DIR, else the first data/ holding a site from the working folder up. Only
serve, db upgrade and seed-demo create a site where there is none; the others stop with an error
naming the folder and database they looked at.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from .cli_format import print_report
from .cli_site import (
    CliError,
    _locate,
    _make_site,
    _open_site,
    _redact,
    _require_site,
    _where,
    cmd_info,
    first_user_hint,
)
from .config import SETTINGS, Setting
from .transfer.reports import feed_lines


def _setting(name: str) -> Setting:
    return next(setting for setting in SETTINGS if setting.name == name)


def _shown(value: Any) -> str:
    return "empty" if value in ("", None) else str(value)


def setting_help(name: str) -> str:
    """The help of the flag of a setting: its text, default and variable, from config.SETTINGS
    (the one place settings are described; argparse %-formats help, hence the doubled %)."""
    setting = _setting(name)
    return f"{setting.help} [default: {_shown(setting.default)}; env: {setting.env}]".replace("%", "%%")


def settings_epilog(title: str, skip: Sequence[str] = ()) -> str:
    """Every setting but ``skip`` with its variable, default and text, for an epilog."""
    import textwrap

    lines = [title]
    for setting in SETTINGS:
        if setting.name in skip:
            continue
        lines.append(f"  {setting.env} [default: {_shown(setting.default)}]")
        lines += textwrap.wrap(setting.help, width=94, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(lines)


#: The settings that have a flag on every command (_global_options).
GLOBAL_FLAGS = ("data_dir", "database_url", "site_url")


def _global_options(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's unset flag must not erase the same flag given before it.
    for name in GLOBAL_FLAGS:
        parser.add_argument("--" + name.replace("_", "-"), dest=name, default=argparse.SUPPRESS, help=setting_help(name))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="calpress",
        description="calpress: the calendar and content REST service.",
        epilog=settings_epilog("Settings (environment variables):"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _global_options(parser)
    commands = parser.add_subparsers(dest="command", required=True)

    # Every flag's help, default and variable come from config.SETTINGS; the settings without a
    # flag follow in the epilog, so that `serve --help` names them all.
    serve_flags = {"host": str, "port": int, "workers": int, "threads": int}
    serve = commands.add_parser(
        "serve", help="serve the site over HTTP (Granian)", description="Serve the site over HTTP (Granian).",
        epilog=settings_epilog("Other settings (environment variables only):", skip=(*serve_flags, *GLOBAL_FLAGS)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for name, kind in serve_flags.items():
        serve.add_argument("--" + name, type=kind, default=None, help=setting_help(name))
    serve.add_argument("--share-port", action="store_true",
                       help="start even when another server listens on the port (the kernel then splits the traffic) "
                            "[default: off; no environment variable: sharing a port is chosen at each start]")
    _global_options(serve)

    db = commands.add_parser("db", help="database commands")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    _global_options(db_commands.add_parser("upgrade", help="apply pending migrations (creates the site when there is none)"))

    info = commands.add_parser("info", help="which site the commands work on, and how it was found")
    info.add_argument("--format", choices=("table", "json"), default="table")
    _global_options(info)

    from . import cli_users  # every user command (imported here: through cli_content it imports this module)

    cli_users.register(commands, _global_options)

    media = commands.add_parser("media", help="media")
    media_commands = media.add_subparsers(dest="media_command", required=True)
    media_import = media_commands.add_parser("import", help="store image files as attachments")
    media_import.add_argument("files", nargs="+")
    media_import.add_argument("--user", type=int, default=0)
    media_import.add_argument("--porcelain", action="store_true", help="print only the new ids")
    _global_options(media_import)

    seed = commands.add_parser("seed-demo", help="create demo events, venues, organizers and terms in bulk")
    seed.add_argument("--events", type=int, default=1000, help="how many events (default 1000)")
    seed.add_argument("--seed", type=int, default=1, help="random seed, for repeatable data")
    seed.add_argument("--batch", type=int, default=2000, help="events per transaction")
    seed.add_argument("--quiet", action="store_true", help="no progress bar")
    _global_options(seed)

    routes = commands.add_parser("routes", help="list every REST route with its methods, and the pages")
    routes.add_argument("--format", choices=("table", "json"), default="table")
    _global_options(routes)

    imp = commands.add_parser("import", help="bring events in from iCalendar feeds; list and run imports")
    imp_commands = imp.add_subparsers(dest="import_command", required=True)
    ics = imp_commands.add_parser("ics", help="import an iCalendar file or address (http, https, webcal) now")
    ics.add_argument("source")
    ics.add_argument("--user", type=int, default=None, help="the user the events are written as (default: the first administrator)")
    ics.add_argument("--status", choices=("publish", "draft", "pending", "private"), default="publish",
                     help="status of the events created")
    ics.add_argument("--from", dest="window_start", default=None, help="first day of occurrences to import (YYYY-MM-DD; default a month ago)")
    ics.add_argument("--until", dest="window_end", default=None, help="day after the last one (YYYY-MM-DD; default in a year)")
    ics.add_argument("--remove-missing", action="store_true",
                     help="move to the trash the events an earlier import of this source made that the feed no longer has")
    ics.add_argument("--quiet", action="store_true", help="no progress bar")
    ics.add_argument("--porcelain", action="store_true", help="print only the import record's id")
    _global_options(ics)
    imports_list = imp_commands.add_parser("list", help="list the import records and schedules")
    imports_list.add_argument("--format", choices=("table", "json"), default="table")
    _global_options(imports_list)
    schedule = imp_commands.add_parser("schedule", help="import an iCalendar address now and again (see run-due)")
    schedule.add_argument("source")
    schedule.add_argument("--every", type=int, default=86400, help="seconds between runs (default a day)")
    schedule.add_argument("--status", choices=("publish", "draft", "pending", "private"), default="publish")
    schedule.add_argument("--user", type=int, default=None)
    schedule.add_argument("--porcelain", action="store_true")
    _global_options(schedule)
    due = imp_commands.add_parser("run-due", help="run the scheduled imports whose time has come (for cron or a systemd timer)")
    due.add_argument("--quiet", action="store_true")
    _global_options(due)

    doctor = commands.add_parser("doctor", help="check the site, its database and its storage; each problem with its fix (exit 1 when one is critical)")
    doctor.add_argument("--format", choices=("table", "json"), default="table")
    _global_options(doctor)

    option = commands.add_parser("option", help="site options")
    option_commands = option.add_subparsers(dest="option_command", required=True)
    get = option_commands.add_parser("get", help="print an option")
    get.add_argument("name")
    get.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    _global_options(get)
    update = option_commands.add_parser("update", help="set an option")
    update.add_argument("name")
    update.add_argument("value")
    update.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    _global_options(update)

    from . import cli_content  # post, term, option list/add/delete (imported here: it imports this module)

    post_commands = cli_content.register(commands, option_commands, _global_options)
    from . import cli_more  # event, venue, organizer, comment, cache, db check/size/export/import

    cli_more.register(commands, db_commands, _global_options)
    from . import cli_extra  # post meta, option patch, media list/regenerate

    cli_extra.register(post_commands, option_commands, media_commands, _global_options)
    from . import cli_transfer  # import wxr, export wxr

    cli_transfer.register(commands, imp_commands, _global_options)
    return parser


def cmd_serve(args: argparse.Namespace) -> int:
    from granian import Granian
    from granian.constants import Interfaces

    location, settings = _locate(args, host=args.host, port=args.port, workers=args.workers, threads=args.threads)
    if not args.share_port:
        _check_port_free(settings.host, settings.port)
    location, settings, site = _make_site(location, settings)  # migrate once before the workers start
    from .pages.theme import override_problems

    broken = override_problems(settings.data_dir)
    if broken:  # refused here: a worker failing on it would be respawned without end
        print("calpress: a template override cannot be read; fix or remove it:\n  " + "\n  ".join(broken), file=sys.stderr)
        site.close()
        return 1
    with site.read() as conn:
        from .auth.users import count_users

        has_users = count_users(conn) > 0
    site.close()
    if not has_users:
        print(f"No users yet. Create an administrator with:\n  {first_user_hint(location.data_dir, Path.cwd())}",
              file=sys.stderr)
    # Workers build their app from the environment: hand them exactly these settings.
    for setting in SETTINGS:
        os.environ[setting.env] = str(getattr(settings, setting.name))
    print(f"calpress serving {settings.site_url or f'http://{settings.host}:{settings.port}'} "
          f"({settings.workers} worker{'s' if settings.workers != 1 else ''}, data folder {_where(location)}, "
          f"database {_redact(settings.database_url)})",
          file=sys.stderr, flush=True)
    server = Granian(
        "calpress.front:rsgi_app",
        address=settings.host,
        port=settings.port,
        # RSGI: the body is read on the event loop, the app runs in request threads (front.py).
        interface=Interfaces.RSGI,
        workers=settings.workers,
        factory=True,
        log_enabled=settings.log_level == "debug",
        respawn_failed_workers=True,
    )
    if settings.metrics != "on":
        server.serve()
        return 0
    from .metrics import multiprocess_dir

    # Each worker writes its metrics to this run's folder; a scrape sums them (metrics.py).
    with multiprocess_dir():
        server.serve()
    return 0


def _check_port_free(host: str, port: int) -> None:
    """Refuse to start on a port another process listens on. Granian's workers bind with
    SO_REUSEPORT, so a second server would otherwise start silently and take half the requests,
    perhaps for another database. A bind without that option fails while anyone listens."""
    import errno
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        raise CliError(f"Cannot serve on {host}:{port}: {err.strerror}.") from err
    probe = socket.socket(family, kind, proto)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # connections in TIME_WAIT are no obstacle
        probe.bind(address)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise CliError(f"Port {port} on {host} is already in use, perhaps by another calpress serve. Stop it, choose "
                           "another --port, or pass --share-port to share the port on purpose.") from err
        raise CliError(f"Cannot serve on {host}:{port}: {err.strerror}.") from err
    finally:
        probe.close()


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from .store import db as store_db

    *_, site = _make_site(*_locate(args))
    try:
        print(f"Success: Database is at revision {store_db.current_revision(site.engine)}.")
    finally:
        site.close()
    return 0


def cmd_media_import(args: argparse.Namespace) -> int:
    from .cli_content import for_each
    from .content.items import Context
    from .media.attachments import create_attachment

    _, site = _open_site(args)

    def store(name: str) -> str:
        path = Path(name)
        if not path.is_file():
            raise CliError(f"Unable to import file '{name}'. Reason: File doesn't exist.")
        ctx = Context.of(site, options=site.load_options())
        try:
            with site.write() as conn:
                new_id = create_attachment(conn, ctx, site.storage, path.read_bytes(), path.name, author=args.user)
        except ValueError as err:
            raise CliError(f"Unable to import file '{name}'. Reason: {err}.") from err
        return str(new_id) if args.porcelain else f"Imported file '{name}' as attachment ID {new_id}."

    try:
        # As WP-CLI: a file that cannot be imported is a warning, the others go in, and the end
        # says how many did ("Only imported 2 of 3 items." and exit 1 when some failed).
        return for_each(args.files, store, noun="item", done="imported", always_report=not args.porcelain)
    finally:
        site.close()


def cmd_seed_demo(args: argparse.Namespace) -> int:
    from .calendar.demo import Progress, seed_demo

    if args.events < 0 or args.batch < 1:
        raise CliError("--events must be 0 or more and --batch 1 or more.")
    *_, site = _make_site(*_locate(args))
    try:
        bar = None if args.quiet else Progress("seeding events", args.events)
        created = seed_demo(site, args.events, seed=args.seed, batch=args.batch,
                            progress=bar.update if bar is not None else None)
        if bar is not None:
            bar.finish()
    finally:
        site.close()
    print(f"Success: Created {created} demo events.")
    return 0


def cmd_option_get(args: argparse.Namespace) -> int:
    from .site import OPTION_DEFAULTS
    from .store import options as store_options

    _, site = _open_site(args)
    with site.read() as conn:
        missing = object()
        value = store_options.get_option(conn, args.name, missing)
    if value is missing:
        if args.name not in OPTION_DEFAULTS:
            raise CliError(f"Could not get '{args.name}' option. Does it exist?")
        value = OPTION_DEFAULTS[args.name]
    print(_format_value(value, args.format))
    return 0


def input_value(text: str, fmt: str | None) -> Any:
    """A value given on the command line: as typed, or decoded with ``--format=json``."""
    if fmt != "json":
        return text
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise CliError(f"Invalid JSON: {err}") from None


def cmd_option_update(args: argparse.Namespace) -> int:
    value = _checked_option(args.name, input_value(args.value, args.format))
    _, site = _open_site(args)
    with site.write() as conn:
        site.update_option(conn, args.name, value)
    print(f"Success: Updated '{args.name}' option.")
    return 0


def _checked_option(name: str, value: Any) -> Any:
    """The value the settings endpoint (cms/v2/settings) would store for this option: its
    argument's schema check and coercion, then the option's cleaning; CliError where the endpoint
    refuses it or keeps the stored value. Options the endpoint does not know pass unchanged."""
    from .api.cms_site import SETTINGS_SCHEMA
    from .rest.errors import RestError
    from .rest.schema import endpoint_args_from_schema, parse_request_arg
    from .site_settings import SETTINGS as SITE_SETTINGS
    from .site_settings import Rejected, clean_option

    setting = next((s for s in SITE_SETTINGS if s.option == name), None)
    if setting is None:
        return value
    arg = endpoint_args_from_schema(SETTINGS_SCHEMA, "PUT")[setting.name]
    try:
        return clean_option(name, parse_request_arg(value, arg, name))
    except (RestError, Rejected) as err:
        message = err.message if isinstance(err, RestError) else str(err)
        raise CliError(f"Could not update '{name}' option: {message}") from None


def cmd_routes(args: argparse.Namespace) -> int:
    """Every REST route (name, methods, pattern) in route-index order, then the page table."""
    from .app import Calpress

    # Builds the routes: no site is needed, and none is touched (an in-memory database stands in).
    _, settings = _locate(args, database_url="sqlite://")
    app = Calpress(settings, upgrade=False)
    try:
        rows = [
            {"kind": "rest", "name": route.name, "methods": route.methods, "path": route.pattern}
            for route in app.api.registry
        ]
        rows += [
            {"kind": "page", "name": page.name, "methods": page.methods, "path": page.path + ("/..." if page.prefix else "")}
            for page in app.pages
        ]
    finally:
        app.site.close()
    if args.format == "json":
        print(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return 0
    name_width = max(len(row["name"]) for row in rows)
    methods_width = max(len(", ".join(row["methods"])) for row in rows)
    for row in rows:
        print(f"{row['kind']:<5} {row['name']:<{name_width}}  {', '.join(row['methods']):<{methods_width}}  {row['path']}")
    return 0


def _import_user(site: Any, given: int | None) -> int:
    from .auth import users as user_store
    from .calendar.feed_import import first_administrator

    if given is not None:
        with site.read() as conn:
            if user_store.get_user(conn, given) is None:
                raise CliError(f"Invalid user ID, email or login: '{given}'")
        return given
    found = first_administrator(site)
    if found is None:
        raise CliError("No administrator to import as: create one (calpress user create ... --role=administrator) or give --user.")
    return found


def _day(text: str | None, name: str) -> Any:
    import datetime as dt

    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CliError(f"{name} must be a date (YYYY-MM-DD), not {text!r}.") from None


def _print_run(source: str, run: Any, porcelain: bool) -> int:
    if porcelain:
        print(run.record_id)
        return 0 if run.state != "failed" else 1
    outcome = feed_lines(run, source, kept="kept; --remove-missing trashes them")
    print_report(outcome)
    return 0 if outcome.state == "success" else 1


def _bar(label: str, quiet: bool) -> tuple[Any, Any]:
    """A progress callback (done, total) drawing a bar made on first use, and its finisher."""
    from .calendar.demo import Progress

    held: list[Progress] = []

    def update(done: int, total: int) -> None:
        if quiet:
            return
        if not held:
            held.append(Progress(label, total))
        held[0].update(done)

    def finish() -> None:
        if held:
            held[0].finish()

    return update, finish


def cmd_import_ics(args: argparse.Namespace) -> int:
    from .calendar.feed_import import is_address, run_feed_import

    window = (_day(args.window_start, "--from"), _day(args.window_end, "--until"))
    if (window[0] is None) != (window[1] is None):
        raise CliError("Give both --from and --until, or neither.")
    if not is_address(args.source) and not Path(args.source).is_file():
        raise CliError(f"Unable to import '{args.source}': no such file, and not an http, https or webcal address.")
    _, site = _open_site(args)
    try:
        user = _import_user(site, args.user)
        update, finish = _bar("importing events", args.quiet or args.porcelain)
        run = run_feed_import(site, args.source, author=user, post_status=args.status,
                              window=window if window[0] is not None else None, remove_missing=args.remove_missing,
                              progress=update)
        finish()
    finally:
        site.close()
    return _print_run(args.source, run, args.porcelain)


def cmd_import_list(args: argparse.Namespace) -> int:
    from .calendar import imports

    _, site = _open_site(args)
    try:
        with site.read() as conn:
            rows = [(r.id, imports.record_state(r), r.meta.get(imports.ORIGIN, ""), r.meta.get(imports.SOURCE, ""),
                     r.meta.get(imports.PERCENTAGE, 0), r.meta.get(imports.FREQUENCY), r.meta.get(imports.LAST_RUN))
                    for r in imports.records(conn, limit=1000)]
    finally:
        site.close()
    if args.format == "json":
        keys = ("id", "state", "origin", "source", "percentage_complete", "frequency", "last_run")
        print(orjson.dumps([dict(zip(keys, row, strict=True)) for row in rows], option=orjson.OPT_INDENT_2).decode())
        return 0
    print(f"{'id':>6}  {'state':<9}  {'origin':<6}  {'done':>4}  source")
    for record_id, state, origin, source, percentage, frequency, last_run in rows:
        extra = f"  (every {frequency}s, last run {last_run or 'never'})" if state == "schedule" else ""
        print(f"{record_id:>6}  {state:<9}  {origin:<6}  {percentage:>3}%  {source}{extra}")
    return 0


def cmd_import_schedule(args: argparse.Namespace) -> int:
    from .calendar import imports
    from .calendar.feed_import import feed_address, is_address
    from .content.items import Context

    if not is_address(args.source):
        raise CliError("A scheduled import needs an http, https or webcal address.")
    if args.every < 60:
        raise CliError("--every must be at least 60 seconds.")
    _, site = _open_site(args)
    try:
        user = _import_user(site, args.user)
        ctx = Context.of(site, options=site.load_options())
        with site.write() as conn:
            record = imports.create_record(conn, ctx, origin="ics", source=feed_address(args.source), status="schedule",
                                           post_status=args.status, frequency=args.every, author=user)
    finally:
        site.close()
    print(record.id if args.porcelain else
          f"Success: Scheduled import {record.id} of {args.source} every {args.every} seconds (run by calpress import run-due).")
    return 0


def cmd_import_run_due(args: argparse.Namespace) -> int:
    from .calendar.feed_import import run_due

    _, site = _open_site(args)
    failed = 0
    try:
        def bar_for(schedule: Any) -> Any:
            return _bar(f"import {schedule.id}", args.quiet)[0]

        done = run_due(site, progress_for=bar_for)
    finally:
        site.close()
    if not args.quiet:
        print(file=sys.stderr)
    for schedule, run in done:
        failed += _print_run(str(schedule.meta.get("_tribe_aggregator_source")), run, False)
    if not done:
        print("Success: No scheduled import is due.")
    return 1 if failed else 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """The health checks of this service (calpress/health/ ``run_checks``) against the configured
    site and database, in this process, then the directory sizes. The database is not migrated
    first: the checks report the state it is in. Every problem comes with its fix. Exit code 1
    when a check is critical, else 0 (recommended checks are advice, not failures), so that
    monitoring can run it; ``--format json`` gives the same as one document."""
    from . import health
    from .app import build_site

    location, settings = _locate(args)
    try:
        _require_site(location, settings)
    except CliError as err:
        if args.format != "json":
            raise
        # Monitoring reads JSON whatever happens: the site that cannot be opened is the one check.
        check = {"name": "site", "status": health.CRITICAL, "label": "The site could not be opened", "fix": str(err)}
        print(orjson.dumps({"status": health.CRITICAL, "checks": [check]}, option=orjson.OPT_INDENT_2).decode())
        return 1
    site = build_site(settings, upgrade=False)
    try:
        results = health.run_checks(site)
        sizes = health.directory_sizes(site)
    finally:
        site.close()
    worst = health.worst_status(results)
    if args.format == "json":
        report = {
            "status": worst,
            "checks": [{"name": r.test, "status": r.status, "label": r.label, "fix": r.fix} for r in results],
            "directory_sizes": health.wire_sizes(sizes),
        }
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        test_width = max(len("check"), *(len(result.test) for result in results))
        print(f"{'check':<{test_width}}  {'status':<11}  label")
        for result in results:
            print(f"{result.test:<{test_width}}  {result.status:<11}  {result.label}")
            if result.status != health.GOOD and result.fix:
                print(f"{'':<{test_width}}  {'':<11}  fix: {result.fix}")
        print()
        name_width = max(len("directory"), *(len(name) for name in sizes))
        print(f"{'directory':<{name_width}}  size")
        for name, entry in sizes.items():
            print(f"{name:<{name_width}}  {entry.debug if entry.raw else entry.size}")
    return 1 if worst == health.CRITICAL else 0


def _format_value(value: Any, fmt: str) -> str:
    if fmt == "json" or isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    if value is True:
        return "1"
    if value is False or value is None:
        return ""
    return str(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code. A reader that goes away early (``calpress routes | head
    -1``) ends the command quietly, as WP-CLI's do: no traceback, exit code 1."""
    try:
        code = _run(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # Python's advice: point stdout at devnull, so that the interpreter's last flush fails no more.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _run(argv: Sequence[str] | None) -> int:
    from . import cli_content, cli_extra, cli_more, cli_transfer, cli_users

    parser = build_parser()
    # Unknown --options reach the commands that take them (post list's REST filters, as WP-CLI
    # passes them to its query); anywhere else they are an error, as before.
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "accepts_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    handlers = {
        ("serve",): cmd_serve,
        ("db", "upgrade"): cmd_db_upgrade,
        ("info",): cmd_info,
        ("option", "get"): cmd_option_get,
        ("option", "update"): cmd_option_update,
        ("seed-demo",): cmd_seed_demo,
        ("media", "import"): cmd_media_import,
        ("routes",): cmd_routes,
        ("doctor",): cmd_doctor,
        ("import", "ics"): cmd_import_ics,
        ("import", "list"): cmd_import_list,
        ("import", "schedule"): cmd_import_schedule,
        ("import", "run-due"): cmd_import_run_due,
        **cli_content.HANDLERS,
        **cli_more.HANDLERS,
        **cli_users.HANDLERS,
        **cli_extra.HANDLERS,
        **cli_transfer.HANDLERS,
    }
    key: tuple[str, ...] = (args.command,)
    for attr in ("db_command", "user_command", "app_command", "option_command", "media_command", "import_command",
                 "post_command", "term_command", "event_command", "venue_command", "organizer_command",
                 "comment_command", "cache_command", "meta_command", "export_command"):
        value = getattr(args, attr, None)
        if value:
            key += (value,)
    try:
        return handlers[key](args)
    except CliError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    except ValueError as err:  # invalid settings
        print(f"Error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
