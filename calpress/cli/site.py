"""The site itself: ``serve``, ``info``, ``routes``, ``doctor``, ``seed-demo`` and ``cache flush``,
and the hint that names the command creating a first administrator."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson

from ..config import SETTINGS, Settings, find_site
from .common import (
    GLOBAL_FLAGS,
    PROJECT,
    CliError,
    add_command,
    database_revision,
    global_options,
    locate,
    make_site,
    open_site,
    probe_engine,
    redact,
    require_site,
    setting_help,
    settings_epilog,
    where,
)


def cmd_serve(args: argparse.Namespace) -> int:
    from granian import Granian
    from granian.constants import Interfaces

    location, settings = locate(args, host=args.host, port=args.port, workers=args.workers, threads=args.threads)
    if not args.share_port:
        _check_port_free(settings.host, settings.port)
    location, settings, site = make_site(location, settings)  # migrate once before the workers start
    from ..pages.theme import override_problems

    broken = override_problems(settings.data_dir)
    if broken:  # refused here: a worker failing on it would be respawned without end
        print("calpress: a template override cannot be read; fix or remove it:\n  " + "\n  ".join(broken), file=sys.stderr)
        site.close()
        return 1
    with site.read() as conn:
        from ..auth.users import count_users

        has_users = count_users(conn) > 0
    site.close()
    if not has_users:
        print(f"No users yet. Create an administrator with:\n  {first_user_hint(location.data_dir, Path.cwd())}",
              file=sys.stderr)
    # Workers build their app from the environment: hand them exactly these settings.
    for setting in SETTINGS:
        os.environ[setting.env] = str(getattr(settings, setting.name))
    print(f"calpress serving {settings.site_url or f'http://{settings.host}:{settings.port}'} "
          f"({settings.workers} worker{'s' if settings.workers != 1 else ''}, data folder {where(location)}, "
          f"database {redact(settings.database_url)})",
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
    from ..metrics import multiprocess_dir

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


def command_name(cwd: Path) -> str:
    """How to call this installation's calpress from ``cwd`` as typed in a shell: ``calpress``
    when that is the one on PATH, else scripts/calpress from the project folder, else the full
    path of the command next to this Python (a virtual environment's bin/)."""
    installed = Path(sys.executable).parent / "calpress"
    on_path = shutil.which("calpress")
    if on_path and installed.is_file() and Path(on_path).resolve() == installed.resolve():
        return "calpress"
    if (PROJECT / "scripts" / "calpress").is_file() and cwd.resolve() == PROJECT:
        return "scripts/calpress"
    if installed.is_file():
        return shlex.quote(str(installed))
    return f"{shlex.quote(sys.executable)} -m calpress"


def first_user_hint(data_dir: Path, cwd: Path) -> str:
    """The command creating a first administrator, as it works when typed in ``cwd``: with
    --data-dir unless a command run there finds this site by itself."""
    found = find_site(None, {}, cwd)
    where = "" if found.data_dir == data_dir else f" --data-dir {shlex.quote(str(data_dir))}"
    return f"{command_name(cwd)}{where} user create admin admin@example.org --role=administrator"


def cmd_info(args: argparse.Namespace) -> int:
    """What the site is and how it was found, as ``wp cli info``; creates nothing."""
    import platform

    from .. import __version__

    location, settings = locate(args)
    revision = users = error = None
    try:
        revision = database_revision(settings)
    except CliError as err:
        error = str(err)
    if revision is not None:
        users = _count_users(settings)
    if settings.secret_key and os.environ.get("CALPRESS_SECRET_KEY"):
        secret = "from CALPRESS_SECRET_KEY"
    else:
        secret = str(location.data_dir / "secret.key") if settings.secret_key else "none yet"
    rows = [
        ("data_dir", "Data folder", str(location.data_dir), f"{location.data_dir} ({location.how})"),
        ("data_dir_found", None, location.how, None),
        ("database_url", "Database", redact(settings.database_url), None),
        ("database_revision", "Database revision", revision, revision or error or "none: no site here yet"),
        ("database_error", None, error, None),
        ("users", "Users", users, "-" if users is None else str(users)),
        ("uploads_dir", "Uploads folder", str(settings.uploads_dir), None),
        ("site_url", "Site URL setting", settings.site_url, settings.site_url or "(empty: the siteurl option, else each request's host)"),
        ("secret_key", "Secret key", secret, None),
        ("calpress_version", "calpress version", __version__, None),
        ("python_version", "Python version", platform.python_version(), None),
    ]
    if args.format == "json":
        print(orjson.dumps({key: value for key, _, value, _ in rows}, option=orjson.OPT_INDENT_2).decode())
        return 0
    for _, label, value, shown in rows:
        if label is not None:
            print(f"{label}:\t{value if shown is None else shown}")
    return 0


def _count_users(settings: Settings) -> int | None:
    import sqlalchemy as sa

    from ..auth.users import count_users

    engine = probe_engine(settings)
    try:
        with engine.connect() as conn:
            return count_users(conn)
    except sa.exc.DBAPIError:
        return None
    finally:
        engine.dispose()


def cmd_routes(args: argparse.Namespace) -> int:
    """Every REST route (name, methods, pattern) in route-index order, then the page table."""
    from ..app import Calpress

    # Builds the routes: no site is needed, and none is touched (an in-memory database stands in).
    _, settings = locate(args, database_url="sqlite://")
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


def cmd_doctor(args: argparse.Namespace) -> int:
    """The health checks of this service (calpress/health/ ``run_checks``) against the configured
    site and database, in this process, then the directory sizes. The database is not migrated
    first: the checks report the state it is in. Every problem comes with its fix. Exit code 1
    when a check is critical, else 0 (recommended checks are advice, not failures), so that
    monitoring can run it; ``--format json`` gives the same as one document."""
    from .. import health
    from ..app import build_site

    location, settings = locate(args)
    try:
        require_site(location, settings)
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


def cmd_seed_demo(args: argparse.Namespace) -> int:
    from ..calendar.demo import Progress, seed_demo

    if args.events < 0 or args.batch < 1:
        raise CliError("--events must be 0 or more and --batch 1 or more.")
    *_, site = make_site(*locate(args))
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


def cmd_cache_flush(args: argparse.Namespace) -> int:
    """One write transaction recording a change that names no record: the content counter moves
    and its log step says "everything", so every serving worker drops its answer cache and memo."""
    from ..store import changes

    _, site = open_site(args)
    try:
        with site.write() as conn:
            changes.record(conn, "option", "flush")
    finally:
        site.close()
    print("Success: The cache was flushed.")
    return 0


def register(commands: Any) -> None:
    """Add serve, info, routes, doctor, seed-demo and cache flush."""
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
    global_options(serve)
    serve.set_defaults(handler=cmd_serve)

    info = add_command(commands, "info", "which site the commands work on, and how it was found", user=False)
    info.add_argument("--format", choices=("table", "json"), default="table")
    info.set_defaults(handler=cmd_info)

    seed = add_command(commands, "seed-demo", "create demo events, venues, organizers and terms in bulk", user=False)
    seed.add_argument("--events", type=int, default=1000, help="how many events (default 1000)")
    seed.add_argument("--seed", type=int, default=1, help="random seed, for repeatable data")
    seed.add_argument("--batch", type=int, default=2000, help="events per transaction")
    seed.add_argument("--quiet", action="store_true", help="no progress bar")
    seed.set_defaults(handler=cmd_seed_demo)

    routes = add_command(commands, "routes", "list every REST route with its methods, and the pages", user=False)
    routes.add_argument("--format", choices=("table", "json"), default="table")
    routes.set_defaults(handler=cmd_routes)

    doctor = add_command(commands, "doctor", "check the site, its database and its storage; each problem with its fix (exit 1 when one is critical)", user=False)
    doctor.add_argument("--format", choices=("table", "json"), default="table")
    doctor.set_defaults(handler=cmd_doctor)

    cache = commands.add_parser("cache", help="the site's caches")
    cache_commands = cache.add_subparsers(dest="cache_command", required=True)
    add_command(cache_commands, "flush", "make every serving worker drop its caches", user=False).set_defaults(handler=cmd_cache_flush)
