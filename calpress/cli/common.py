"""What every command module shares: the command's error (``CliError``), finding the site a command
works on (config.find_site) without creating anything, refusing to work on a site that is not
there and creating one for the commands allowed to, the global options every command takes, the
subcommand helper (``add_command``), values read from the command line and the progress bar."""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..config import NOT_FOUND, SETTINGS, Setting, Settings, SiteLocation, find_site, load_settings, with_stored_secret

# The project folder when running from a checkout (where scripts/calpress lives).
PROJECT = Path(__file__).resolve().parents[2]


class CliError(Exception):
    """A command failed; the message is printed as WP-CLI does (``Error: ...``) with exit code 1."""


def locate(args: argparse.Namespace, **extra: Any) -> tuple[SiteLocation, Settings]:
    """Where the site is and its settings; nothing is created (no folder, key or database)."""
    location = find_site(getattr(args, "data_dir", None))
    overrides = {key: getattr(args, key, None) for key in ("database_url", "site_url")}
    overrides.update(extra, data_dir=str(location.data_dir))
    return location, load_settings(overrides, store_secret=False)


def _build_site(settings: Settings):
    from ..app import build_site

    return build_site(settings)


def open_site(args: argparse.Namespace) -> tuple[Settings, Any]:
    """The settings and the site of a command that works on an existing site: CliError when
    there is none. A database at an older revision is upgraded, as on every start."""
    location, settings = locate(args)
    require_site(location, settings)
    return settings, _build_site(settings)


def make_site(location: SiteLocation, settings: Settings) -> tuple[SiteLocation, Settings, Any]:
    """The site, created when there is none yet (serve, db upgrade, seed-demo): the secret key,
    the data folder and the database, upgraded to the newest revision. Says so when it is new."""
    new = database_revision(settings) is None
    settings = with_stored_secret(settings)
    site = _build_site(settings)
    if new:
        print(f"Created a new site: data folder {where(location)}, database {redact(settings.database_url)}.",
              file=sys.stderr)
        if location.how == NOT_FOUND:
            location = SiteLocation(location.data_dir, "new, in the working folder")
    return location, settings, site


def where(location: SiteLocation) -> str:
    return f"{location.data_dir} ({location.how})"


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite database URL (None for another database or an in-memory one)."""
    import sqlalchemy as sa

    from ..store.db import normalize_url

    parsed = sa.make_url(normalize_url(url))
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:") or parsed.database.startswith("file:"):
        return None
    return Path(parsed.database)


def database_revision(settings: Settings) -> str | None:
    """The migration revision of the site's database; None when it has none (no SQLite file,
    no calpress tables). Opens nothing that is not there. CliError when it cannot be reached."""
    import sqlalchemy as sa

    from ..store import db as store_db

    sqlite_file = sqlite_path(settings.database_url)
    if sqlite_file is not None and not sqlite_file.is_file():
        return None
    engine = probe_engine(settings)
    try:
        return store_db.current_revision(engine)
    except sa.exc.DBAPIError as err:
        reason = str(err.orig).strip().splitlines()[0] if err.orig is not None else str(err)
        raise CliError(f"Cannot open the database {redact(settings.database_url)}: {reason}") from None
    finally:
        engine.dispose()


def probe_engine(settings: Settings) -> Any:
    """A plain engine for looking at the database: the store's creates the folder of a SQLite
    file and switches the file to WAL."""
    import sqlalchemy as sa

    from ..store import db as store_db

    url = sa.make_url(store_db.normalize_url(settings.database_url))
    return sa.create_engine(url, connect_args={"connect_timeout": 10} if url.get_backend_name() == "postgresql" else {})


FIX = ("Create a site here with `calpress db upgrade` (or `calpress serve`), or point at an existing one "
       "with --data-dir or CALPRESS_DATA_DIR (and --database-url or CALPRESS_DATABASE_URL for PostgreSQL).")


def require_site(location: SiteLocation, settings: Settings) -> None:
    """CliError unless these settings name a site: a database migrated at least once, and the
    secret key its application passwords are hashed with."""
    database = redact(settings.database_url)
    sqlite_file = sqlite_path(settings.database_url)
    if sqlite_file is not None and not sqlite_file.is_file():
        raise CliError(f"No calpress site here: data folder {where(location)}, no database file {sqlite_file}. {FIX}")
    if database_revision(settings) is None:
        raise CliError(f"No calpress site here: the database {database} was never set up (no calpress tables); "
                       f"data folder {where(location)}. {FIX}")
    if not settings.secret_key:
        raise CliError(f"The site's secret key is missing: no {location.data_dir / 'secret.key'} ({location.how}) and no "
                       f"CALPRESS_SECRET_KEY, for the database {database}. Logins and application passwords depend on it: "
                       "give the data folder `calpress serve` uses with --data-dir or CALPRESS_DATA_DIR, "
                       "or set CALPRESS_SECRET_KEY.")


def redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':')[0]}:***@{host}" if ":" in creds else url
    return url


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
    lines = [title]
    for setting in SETTINGS:
        if setting.name in skip:
            continue
        lines.append(f"  {setting.env} [default: {_shown(setting.default)}]")
        lines += textwrap.wrap(setting.help, width=94, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(lines)


#: The settings that have a flag on every command (global_options).
GLOBAL_FLAGS = ("data_dir", "database_url", "site_url")


class CommandParser(argparse.ArgumentParser):
    """calpress's parsers (subparsers are made of their parent's class). Each names itself as the
    command read: the deepest subcommand's is the one left in the namespace, so that an option no
    parser knows is reported with that command's usage, not calpress's. And a command's options
    may be added when it is read or its help shown (``defer``), not whenever the parser is built:
    those made from a route's arguments import the API, which would cost every command a second."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.set_defaults(command_parser=self)
        self._deferred: list[Callable[[argparse.ArgumentParser], None]] = []

    def defer(self, add: Callable[[argparse.ArgumentParser], None]) -> None:
        self._deferred.append(add)

    def _complete(self) -> None:
        while self._deferred:
            self._deferred.pop(0)(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._complete()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._complete()
        return super().format_usage()

    def format_help(self) -> str:
        self._complete()
        return super().format_help()


def global_options(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's unset flag must not erase the same flag given before it.
    for name in GLOBAL_FLAGS:
        parser.add_argument("--" + name.replace("_", "-"), dest=name, default=argparse.SUPPRESS, help=setting_help(name))


def add_command(group: Any, name: str, help_text: str, *, extra: bool = False, user: bool = True) -> argparse.ArgumentParser:
    """A subcommand of these WP-CLI-form commands: ``--user`` to run as (``user``), unknown
    --options passed to the handler (``extra``: never taken as abbreviations of known ones), and
    calpress's global options."""
    parser = group.add_parser(name, help=help_text, allow_abbrev=not extra)
    if user:
        parser.add_argument("--user", default=None, help="run as this user (id, login or email; default: the first administrator)")
    parser.set_defaults(accepts_extra=extra)
    global_options(parser)
    return parser


def input_value(text: str, fmt: str | None) -> Any:
    """A value given on the command line: as typed, or decoded with ``--format=json``."""
    if fmt != "json":
        return text
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise CliError(f"Invalid JSON: {err}") from None


def progress_bar(label: str, quiet: bool) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress callback (done, total) drawing a bar made on first use, and its finisher. The
    bar's clock starts here, when the work starts: started at the first callback, it divided what
    was already done (a file's bytes, a feed's events) by a few microseconds ("59,758,639,377/s")."""
    from ..calendar.demo import Progress

    started = time.monotonic()
    held: list[Progress] = []

    def update(done: int, total: int) -> None:
        if quiet:
            return
        if not held:
            held.append(Progress(label, total))
            held[0].started = started
        held[0].update(done)

    def finish() -> None:
        if held:
            held[0].finish()

    return update, finish
