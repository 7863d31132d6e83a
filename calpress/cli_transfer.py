"""Moving a site over: ``calpress import wxr <file>`` and ``calpress export wxr [<file>]``, in
WP-CLI's forms (``wp import``, ``wp export``). The work is :mod:`calpress.transfer`'s; this
module reads the options, draws the progress bar and prints the summary."""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli_content import add_command, run_with_app
from .cli_format import print_report
from .cli_site import CliError
from .transfer.reports import wxr_lines


def _byte_bar(label: str, total: int, quiet: bool) -> tuple[Callable[[int], None], Callable[[], None]]:
    """A progress bar over a file's bytes."""
    from .cli import _bar

    update, finish = _bar(label, quiet)
    return (lambda done: update(done, total)), finish


def cmd_import_wxr(args: argparse.Namespace) -> int:
    from .transfer.wxr_import import import_wxr

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
    from .transfer.wxr_export import NoSiteAddress, export_wxr, site_address

    post_types = [t.strip() for t in args.post_type.split(",") if t.strip()] if args.post_type else None
    target = args.file or f"calpress.wordpress.{dt.date.today().isoformat()}.000.xml"

    def run(app: Any, user: Any) -> int:
        from .cli import _bar

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
        update, finish = _bar("exporting", args.quiet or target == "-")
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


def register(commands: Any, import_commands: Any, global_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``import wxr`` and ``export wxr`` to calpress's parser."""
    command = functools.partial(add_command, global_options=global_options)
    wxr = command(import_commands, "wxr", "import a WordPress export file (WXR): posts, pages, events, venues, "
                  "organizers, terms, authors, comments and attachments")
    wxr.add_argument("file")
    wxr.add_argument("--authors", choices=("create", "skip"), default="create",
                     help="create: make users for the file's authors not found by login or e-mail (default); "
                          "skip: their items go to --user")
    wxr.add_argument("--skip", default="", help="'attachment': do not fetch attachment files")
    wxr.add_argument("--quiet", action="store_true", help="no progress bar")
    wxr.add_argument("--verbose", action="store_true", help="print each problem as it happens")

    export = commands.add_parser("export", help="write the site out")
    export_commands = export.add_subparsers(dest="export_command", required=True)
    out = command(export_commands, "wxr", "write a WordPress export file (WXR 1.2) that WordPress's importer "
                  "and calpress import wxr read")
    out.add_argument("file", nargs="?", default=None, help="the file to write ('-': standard output; "
                     "default calpress.wordpress.<date>.000.xml)")
    out.add_argument("--post_type", default=None, help="only these types (comma-separated)")
    out.add_argument("--names", choices=("wordpress", "calpress"), default="wordpress",
                     help="wordpress: The Events Calendar's names (tribe_events, ...), for WordPress's importer "
                          "(default); calpress: calpress's (cal_events, ...)")
    out.add_argument("--quiet", action="store_true", help="no progress bar")


HANDLERS = {
    ("import", "wxr"): cmd_import_wxr,
    ("export", "wxr"): cmd_export_wxr,
}
