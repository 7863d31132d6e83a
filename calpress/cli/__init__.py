"""The ``calpress`` command, in WP-CLI's forms so that existing tools can call it. One module per
family of commands, each adding its own to the parser (``register``):

    site.py           serve, info, routes, doctor, seed-demo, cache flush
    db.py             db upgrade|check|size|export|import
    options.py        option get|update|list|add|delete|patch
    posts.py          post list|get|create|update|delete, post meta ..., term ...
    calendar.py       event|venue|organizer list|get|create|update|delete
    comments.py       comment list|get|create|approve|unapprove|spam|unspam|trash|untrash|delete
    users.py          user ..., user application-password ...
    media.py          media import|list|regenerate
    import_export.py  import ics|list|schedule|run-due|wxr, export wxr

What they share: common.py (the error, finding the site, the global options, the parser class),
rest_calls.py (the REST engine in this process, for the commands that mirror a route),
route_options.py (a command's options made from its route's argument schema), formats.py (table,
json, csv, yaml, ids and count output) and patching.py (key paths inside JSON values).

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

from . import calendar, comments, db, import_export, media, options, posts, site, users
from .common import CliError, CommandParser, global_options, settings_epilog

FAMILIES = (site, db, users, media, import_export, options, posts, calendar, comments)


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="calpress",
        description="calpress: the calendar and content REST service.",
        epilog=settings_epilog("Settings (environment variables):"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    global_options(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.register(commands)
    return parser


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
    parser = build_parser()
    # Unknown --options reach the commands that take them (post list's REST filters, as WP-CLI
    # passes them to its query); anywhere else they are an error, as before.
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "accepts_extra", False):
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    try:
        return args.handler(args)
    except CliError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    except ValueError as err:  # invalid settings
        print(f"Error: {err}", file=sys.stderr)
        return 1
