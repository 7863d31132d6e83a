"""Which site a command works on (config.find_site): finding it without creating anything,
refusing to work on a site that is not there, creating one for the commands allowed to, and
``calpress info``. Shared by every command module (cli.py, cli_content.py, cli_more.py,
cli_extra.py)."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson

from .config import NOT_FOUND, Settings, SiteLocation, find_site, load_settings, with_stored_secret

# The project folder when running from a checkout (where scripts/calpress lives).
PROJECT = Path(__file__).resolve().parent.parent


class CliError(Exception):
    """A command failed; the message is printed as WP-CLI does (``Error: ...``) with exit code 1."""


def _locate(args: argparse.Namespace, **extra: Any) -> tuple[SiteLocation, Settings]:
    """Where the site is and its settings; nothing is created (no folder, key or database)."""
    location = find_site(getattr(args, "data_dir", None))
    overrides = {key: getattr(args, key, None) for key in ("database_url", "site_url")}
    overrides.update(extra, data_dir=str(location.data_dir))
    return location, load_settings(overrides, store_secret=False)


def _site(settings: Settings):
    from .app import build_site

    return build_site(settings)


def _open_site(args: argparse.Namespace) -> tuple[Settings, Any]:
    """The settings and the site of a command that works on an existing site: CliError when
    there is none. A database at an older revision is upgraded, as on every start."""
    location, settings = _locate(args)
    _require_site(location, settings)
    return settings, _site(settings)


def _make_site(location: SiteLocation, settings: Settings) -> tuple[SiteLocation, Settings, Any]:
    """The site, created when there is none yet (serve, db upgrade, seed-demo): the secret key,
    the data folder and the database, upgraded to the newest revision. Says so when it is new."""
    new = _revision(settings) is None
    settings = with_stored_secret(settings)
    site = _site(settings)
    if new:
        print(f"Created a new site: data folder {_where(location)}, database {_redact(settings.database_url)}.",
              file=sys.stderr)
        if location.how == NOT_FOUND:
            location = SiteLocation(location.data_dir, "new, in the working folder")
    return location, settings, site


def _where(location: SiteLocation) -> str:
    return f"{location.data_dir} ({location.how})"


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite database URL (None for another database or an in-memory one)."""
    import sqlalchemy as sa

    from .store.db import normalize_url

    parsed = sa.make_url(normalize_url(url))
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:") or parsed.database.startswith("file:"):
        return None
    return Path(parsed.database)


def _revision(settings: Settings) -> str | None:
    """The migration revision of the site's database; None when it has none (no SQLite file,
    no calpress tables). Opens nothing that is not there. CliError when it cannot be reached."""
    import sqlalchemy as sa

    from .store import db as store_db

    sqlite_file = _sqlite_file(settings.database_url)
    if sqlite_file is not None and not sqlite_file.is_file():
        return None
    engine = _probe_engine(settings)
    try:
        return store_db.current_revision(engine)
    except sa.exc.DBAPIError as err:
        reason = str(err.orig).strip().splitlines()[0] if err.orig is not None else str(err)
        raise CliError(f"Cannot open the database {_redact(settings.database_url)}: {reason}") from None
    finally:
        engine.dispose()


def _probe_engine(settings: Settings) -> Any:
    """A plain engine for looking at the database: the store's creates the folder of a SQLite
    file and switches the file to WAL."""
    import sqlalchemy as sa

    from .store import db as store_db

    url = sa.make_url(store_db.normalize_url(settings.database_url))
    return sa.create_engine(url, connect_args={"connect_timeout": 10} if url.get_backend_name() == "postgresql" else {})


FIX = ("Create a site here with `calpress db upgrade` (or `calpress serve`), or point at an existing one "
       "with --data-dir or CALPRESS_DATA_DIR (and --database-url or CALPRESS_DATABASE_URL for PostgreSQL).")


def _require_site(location: SiteLocation, settings: Settings) -> None:
    """CliError unless these settings name a site: a database migrated at least once, and the
    secret key its application passwords are hashed with."""
    database = _redact(settings.database_url)
    sqlite_file = _sqlite_file(settings.database_url)
    if sqlite_file is not None and not sqlite_file.is_file():
        raise CliError(f"No calpress site here: data folder {_where(location)}, no database file {sqlite_file}. {FIX}")
    if _revision(settings) is None:
        raise CliError(f"No calpress site here: the database {database} was never set up (no calpress tables); "
                       f"data folder {_where(location)}. {FIX}")
    if not settings.secret_key:
        raise CliError(f"The site's secret key is missing: no {location.data_dir / 'secret.key'} ({location.how}) and no "
                       f"CALPRESS_SECRET_KEY, for the database {database}. Logins and application passwords depend on it: "
                       "give the data folder `calpress serve` uses with --data-dir or CALPRESS_DATA_DIR, "
                       "or set CALPRESS_SECRET_KEY.")


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


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':')[0]}:***@{host}" if ":" in creds else url
    return url


def cmd_info(args: argparse.Namespace) -> int:
    """What the site is and how it was found, as ``wp cli info``; creates nothing."""
    import platform

    from . import __version__

    location, settings = _locate(args)
    revision = users = error = None
    try:
        revision = _revision(settings)
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
        ("database_url", "Database", _redact(settings.database_url), None),
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

    from .auth.users import count_users

    engine = _probe_engine(settings)
    try:
        with engine.connect() as conn:
            return count_users(conn)
    except sa.exc.DBAPIError:
        return None
    finally:
        engine.dispose()
