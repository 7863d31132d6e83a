"""Bringing content in and writing it out:

    calpress import ics <file-or-url> [--user=<id>] [--status=<status>] [--from=<day> --until=<day>] [--remove-missing]
    calpress import list [--format=table|json] | schedule <url> [--every=<seconds>] | run-due
    calpress import wxr <file> [--authors=create|skip] [--skip=attachment]
    calpress export wxr [<file>|-] [--post_type=...] [--names=wordpress|calpress]

The iCalendar imports are calpress.calendar.feed_import's; the WXR ones (WP-CLI's ``wp import``,
``wp export``) are calpress.transfer's. This module reads the options, draws the progress bars
and prints the reports."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ..transfer.reports import feed_lines, wxr_lines
from .common import CliError, add_command, open_site, progress_bar
from .formats import print_report
from .rest_calls import run_with_app


def _import_user(site: Any, given: int | None) -> int:
    from ..auth import users as user_store
    from ..calendar.feed_import import first_administrator

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


def print_run(source: str, run: Any, porcelain: bool) -> int:
    if porcelain:
        print(run.record_id)
        return 0 if run.state != "failed" else 1
    outcome = feed_lines(run, source, kept="kept; --remove-missing trashes them")
    print_report(outcome)
    return 0 if outcome.state == "success" else 1


def cmd_import_ics(args: argparse.Namespace) -> int:
    from ..calendar.feed_import import is_address, run_feed_import

    window = (_day(args.window_start, "--from"), _day(args.window_end, "--until"))
    if (window[0] is None) != (window[1] is None):
        raise CliError("Give both --from and --until, or neither.")
    if not is_address(args.source) and not Path(args.source).is_file():
        raise CliError(f"Unable to import '{args.source}': no such file, and not an http, https or webcal address.")
    _, site = open_site(args)
    try:
        user = _import_user(site, args.user)
        update, finish = progress_bar("importing events", args.quiet or args.porcelain)
        run = run_feed_import(site, args.source, author=user, post_status=args.status,
                              window=window if window[0] is not None else None, remove_missing=args.remove_missing,
                              progress=update)
        finish()
    finally:
        site.close()
    return print_run(args.source, run, args.porcelain)


def cmd_import_list(args: argparse.Namespace) -> int:
    from ..calendar import imports

    _, site = open_site(args)
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
    from ..calendar import imports
    from ..calendar.feed_import import feed_address, is_address
    from ..content.items import Context

    if not is_address(args.source):
        raise CliError("A scheduled import needs an http, https or webcal address.")
    if args.every < 60:
        raise CliError("--every must be at least 60 seconds.")
    _, site = open_site(args)
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
    from ..calendar.feed_import import run_due

    _, site = open_site(args)
    failed = 0
    try:
        def bar_for(schedule: Any) -> Any:
            return progress_bar(f"import {schedule.id}", args.quiet)[0]

        done = run_due(site, progress_for=bar_for)
    finally:
        site.close()
    if not args.quiet:
        print(file=sys.stderr)
    for schedule, run in done:
        failed += print_run(str(schedule.meta.get("_tribe_aggregator_source")), run, False)
    if not done:
        print("Success: No scheduled import is due.")
    return 1 if failed else 0


def _byte_bar(label: str, total: int, quiet: bool) -> tuple[Callable[[int], None], Callable[[], None]]:
    """A progress bar over a file's bytes."""

    update, finish = progress_bar(label, quiet)
    return (lambda done: update(done, total)), finish


def cmd_import_wxr(args: argparse.Namespace) -> int:
    from ..transfer.wxr_import import import_wxr

    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"Unable to import '{args.file}': no such file.")
    skip = {s.strip() for s in (args.skip or "").split(",") if s.strip()}
    if skip - {"attachment"}:
        raise CliError(f"--skip takes 'attachment', not {', '.join(sorted(skip - {'attachment'}))!r}.")

    def run(app: Any, user: Any) -> int:
        update, finish = _byte_bar(f"importing {path.name}", path.stat().st_size, args.quiet)

        def log(line: str) -> None:
            if args.verbose:
                print(f"Warning: {line}", file=sys.stderr)

        with path.open("rb") as stream:
            summary = import_wxr(app.site, stream, user_id=user.id, authors=args.authors,
                                 fetch_attachments="attachment" not in skip, source=str(path.resolve()),
                                 progress=update, log=log)
        finish()
        outcome = wxr_lines(summary, args.file, warnings=not args.verbose)
        print_report(outcome)
        return 0 if outcome.state == "success" else 1

    return run_with_app(args, run)


def cmd_export_wxr(args: argparse.Namespace) -> int:
    """``export wxr``: refused, with nothing written, when the site has no absolute address (its
    links and attachment URLs would be relative, and an import of the file would fail every
    attachment) or when the file cannot be written where it is asked for."""
    from ..transfer.wxr_export import NoSiteAddress, export_wxr, site_address

    post_types = [t.strip() for t in args.post_type.split(",") if t.strip()] if args.post_type else None
    target = args.file or f"calpress.wordpress.{dt.date.today().isoformat()}.000.xml"

    def run(app: Any, user: Any) -> int:

        try:
            site_address(app.site)
        except NoSiteAddress as err:
            raise CliError(f"{err.reason}: give its public address with --site-url=https://... "
                           "(or CALPRESS_SITE_URL), or set the siteurl and home options.") from None
        path = Path(target)
        if target != "-":
            if path.is_dir():
                raise CliError(f"'{target}' is a folder; give a file name.")
            folder = path.parent
            if not folder.is_dir():
                raise CliError(f"Unable to write '{target}': the folder '{folder}' does not exist.")
        update, finish = progress_bar("exporting", args.quiet or target == "-")
        if target == "-":
            export_wxr(app.site, sys.stdout.buffer, post_types=post_types, names=args.names, progress=update)
            sys.stdout.buffer.flush()
            return 0
        partial = path.with_name(path.name + ".part")  # a failed export leaves no half file
        try:
            with partial.open("wb") as out:
                summary = export_wxr(app.site, out, post_types=post_types, names=args.names, progress=update)
            partial.replace(path)
        except OSError as err:
            partial.unlink(missing_ok=True)
            raise CliError(f"Unable to write '{target}': {err.strerror or err}.") from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        finish()
        print(f"Writing to file {path}")
        print(f"Success: All done with export ({summary.items} items).")
        return 0

    return run_with_app(args, run)


def register(commands: Any) -> None:
    """Add import ics, list, schedule, run-due and wxr, and export wxr."""
    imp = commands.add_parser("import", help="bring events in from iCalendar feeds; list and run imports")
    imp_commands = imp.add_subparsers(dest="import_command", required=True)
    ics = add_command(imp_commands, "ics", "import an iCalendar file or address (http, https, webcal) now", user=False)
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
    ics.set_defaults(handler=cmd_import_ics)
    imports_list = add_command(imp_commands, "list", "list the import records and schedules", user=False)
    imports_list.add_argument("--format", choices=("table", "json"), default="table")
    imports_list.set_defaults(handler=cmd_import_list)
    schedule = add_command(imp_commands, "schedule", "import an iCalendar address now and again (see run-due)", user=False)
    schedule.add_argument("source")
    schedule.add_argument("--every", type=int, default=86400, help="seconds between runs (default a day)")
    schedule.add_argument("--status", choices=("publish", "draft", "pending", "private"), default="publish")
    schedule.add_argument("--user", type=int, default=None)
    schedule.add_argument("--porcelain", action="store_true")
    schedule.set_defaults(handler=cmd_import_schedule)
    due = add_command(imp_commands, "run-due", "run the scheduled imports whose time has come (for cron or a systemd timer)", user=False)
    due.add_argument("--quiet", action="store_true")
    due.set_defaults(handler=cmd_import_run_due)

    wxr = add_command(imp_commands, "wxr", "import a WordPress export file (WXR): posts, pages, events, venues, "
                      "organizers, terms, authors, comments and attachments")
    wxr.add_argument("file")
    wxr.add_argument("--authors", choices=("create", "skip"), default="create",
                     help="create: make users for the file's authors not found by login or e-mail (default); "
                          "skip: their items go to --user")
    wxr.add_argument("--skip", default="", help="'attachment': do not fetch attachment files")
    wxr.add_argument("--quiet", action="store_true", help="no progress bar")
    wxr.add_argument("--verbose", action="store_true", help="print each problem as it happens")
    wxr.set_defaults(handler=cmd_import_wxr)

    export = commands.add_parser("export", help="write the site out")
    export_commands = export.add_subparsers(dest="export_command", required=True)
    out = add_command(export_commands, "wxr", "write a WordPress export file (WXR 1.2) that WordPress's importer "
                      "and calpress import wxr read")
    out.add_argument("file", nargs="?", default=None, help="the file to write ('-': standard output; "
                     "default calpress.wordpress.<date>.000.xml)")
    out.add_argument("--post_type", default=None, help="only these types (comma-separated)")
    out.add_argument("--names", choices=("wordpress", "calpress"), default="wordpress",
                     help="wordpress: The Events Calendar's names (tribe_events, ...), for WordPress's importer "
                          "(default); calpress: calpress's (cal_events, ...)")
    out.add_argument("--quiet", action="store_true", help="no progress bar")
    out.set_defaults(handler=cmd_export_wxr)
