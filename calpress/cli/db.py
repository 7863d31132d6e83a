"""The database: ``db upgrade`` (creates the site when there is none), ``db check`` and ``db size``
(the database itself), ``db export`` and ``db import`` (the portable dump of store/dump.py, JSON
Lines, the same on SQLite and PostgreSQL, which moves a site from one database to the other)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import (
    CliError,
    add_command,
    global_options,
    locate,
    make_site,
    probe_engine,
    progress_bar,
    require_site,
    sqlite_path,
)
from .formats import render_list


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from ..store import db as store_db

    *_, site = make_site(*locate(args))
    try:
        print(f"Success: Database is at revision {store_db.current_revision(site.engine)}.")
    finally:
        site.close()
    return 0


def _database_engine(args: argparse.Namespace) -> tuple[Any, Any]:
    """The settings and a plain engine on the located site's database (nothing migrated)."""
    location, settings = locate(args)
    require_site(location, settings)
    return settings, probe_engine(settings)


def cmd_db_check(args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    from ..store import db as store_db

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
        sqlite_file = sqlite_path(settings.database_url)
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
    from ..health.sizes import size_format  # here: the health package costs every command 0.6 s to import

    rows = [{"Name": name, "Size": size_format(int(size), 0)}]

    print(render_list(rows, args.format, ["Name", "Size"]))
    return 0


def _dump_engine(args: argparse.Namespace) -> tuple[Any, Any]:
    """The settings and the store's engine on the located site's database (nothing migrated):
    the store's, for its SQLite set-up (busy timeout, foreign keys) and its write transactions."""
    from ..store import db as store_db

    location, settings = locate(args)
    require_site(location, settings)
    return settings, store_db.create_engine(settings.database_url)


def _dump_progress(label: str) -> tuple[Any, Any]:
    """A progress callback for a dump (None unless stderr is a terminal) and its finisher."""

    if not sys.stderr.isatty():
        return None, lambda: None
    return progress_bar(label, False)


def _default_dump_name(settings: Any) -> str:
    """WP-CLI's default export name, {database}-{date}-{7 hex}, with the dump's extension."""
    import datetime as dt
    import secrets

    import sqlalchemy as sa

    from ..store.db import normalize_url

    sqlite_file = sqlite_path(settings.database_url)
    name = sqlite_file.stem if sqlite_file is not None else sa.make_url(normalize_url(settings.database_url)).database
    return f"{name or 'calpress'}-{dt.date.today():%Y-%m-%d}-{secrets.token_hex(4)[:7]}.jsonl"


def cmd_db_export(args: argparse.Namespace) -> int:
    """Write the site's portable dump (store/dump.py) to a file, or to stdout with ``-``. A file is
    written beside its final name and renamed once complete, so a failed export never leaves a
    truncated dump (nor destroys an earlier one) under that name."""
    import os
    import tempfile
    from pathlib import Path

    from ..store import dump

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

    from ..store import dump

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


def register(commands: Any) -> None:
    """Add db upgrade, check, size, export and import."""
    db = commands.add_parser("db", help="database commands")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    upgrade = db_commands.add_parser("upgrade", help="apply pending migrations (creates the site when there is none)")
    global_options(upgrade)
    upgrade.set_defaults(handler=cmd_db_upgrade)
    add_command(db_commands, "check", "check the database's integrity and revision", user=False).set_defaults(handler=cmd_db_check)
    size = add_command(db_commands, "size", "the database's size", user=False)
    size.add_argument("--format", choices=("table", "json", "csv", "yaml"), default="table")
    size.add_argument("--size_format", choices=tuple(SIZE_UNITS), default=None, help="print the size alone, in this unit")
    size.set_defaults(handler=cmd_db_size)
    export = add_command(db_commands, "export", "write a portable dump of the site's database (JSON Lines; - for stdout)",
                         user=False)
    export.add_argument("file", nargs="?", default=None,
                        help="where to write it (default: <database>-<date>-<hash>.jsonl in the working folder; - for stdout)")
    export.add_argument("--porcelain", action="store_true", help="print only the file's name")
    export.set_defaults(handler=cmd_db_export)
    load = add_command(db_commands, "import", "replace every row of the site's database with a dump's (- for stdin)", user=False)
    load.add_argument("file", help="a dump written by `calpress db export` at the database's migration revision")
    load.add_argument("--yes", action="store_true", help="replace the rows even when the database holds users or posts")
    load.set_defaults(handler=cmd_db_import)
