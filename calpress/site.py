"""The site: settings, the database, the site options with their defaults, and its addresses.

One ``Site`` per process, handed to every REST request as ``request.site``. Options are read once
per request (one query for all autoloaded options, as the reference's alloptions does).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from .config import Settings
from .store import db as store_db
from .store import options as store_options
from .store.fast import FastQuery
from .store.tables import options as options_table

# Site options and their defaults: the values the reference's installer stores. `calpress option
# get/update` and cms/v2/settings use these. WPLANG is absent on purpose: the reference stores none
# for an English site, so its setting shows the registered default (site_settings.py).
OPTION_DEFAULTS: dict[str, Any] = {
    "blogname": "calpress",
    "blogdescription": "",
    "siteurl": "",
    "home": "",
    "admin_email": "",
    "timezone_string": "UTC",
    "gmt_offset": "0",
    "date_format": "F j, Y",
    "time_format": "g:i a",
    "start_of_week": 1,
    "posts_per_page": 10,
    "show_on_front": "posts",
    "page_on_front": 0,
    "page_for_posts": 0,
    "site_logo": 0,
    "site_icon": 0,
    "default_category": 1,
    "default_post_format": "0",
    "default_comment_status": "open",
    "default_ping_status": "open",
    "use_smilies": True,
    "users_can_register": False,
    "default_role": "subscriber",
    "events_max_per_page": 50,
    "using_application_passwords": False,
}


def request_origin(request: Any) -> str:
    """scheme://host[:port] of the address a request came in on."""
    base = getattr(request, "base_url", "") or ""
    parts = urlsplit(base)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


# Options change rarely; other processes (workers, `calpress option update`) see a change within
# this many seconds. The process that writes an option sees it at once.
OPTIONS_TTL = 2.0


class Site:
    """Process-wide state: settings and the database engine. Keeps nothing per request."""

    def __init__(self, settings: Settings, engine: sa.Engine | None = None) -> None:
        self.settings = settings
        # Each request thread holds at most a read, a write and its hot-path query connection.
        pool_size = max(5, 3 * settings.threads)
        self.engine = engine if engine is not None else store_db.create_engine(settings.database_url, pool_size=pool_size)
        self._app_passwords_in_use = False
        self._local = threading.local()
        self._options: tuple[float, dict[str, Any]] | None = None
        self._fast_lock = threading.Lock()
        self._fast_connections: list[Any] = []

    # -- database -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def read(self) -> Iterator[sa.Connection]:
        """A connection for reads. Re-entrant per thread: a read inside a read or a write uses the
        connection already held, so a thread never waits on the pool for a second connection
        (which deadlocks a busy pool) and a read inside a write sees that write."""
        current = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with store_db.read_connection(self.engine) as conn:
            self._local.conn = conn
            try:
                yield conn
            finally:
                self._local.conn = None

    @contextlib.contextmanager
    def write(self) -> Iterator[sa.Connection]:
        """A connection inside one write transaction, committed on success, rolled back on error.
        Reads inside the block use it. A write opened inside a read gets its own connection."""
        outer = getattr(self._local, "conn", None)
        with store_db.write_transaction(self.engine) as conn:
            self._local.conn = conn
            try:
                yield conn
            finally:
                self._local.conn = outer

    def query(self, fast_query: FastQuery, params: dict[str, Any] | None = None) -> list[Any]:
        """Run a compiled hot-path query: on the connection this thread holds inside read() or
        write(), else on a connection this thread keeps for such queries (autocommit, so it
        never sits in an open transaction): no pool round trip per statement."""
        current = getattr(self._local, "conn", None)
        if current is not None:
            return fast_query.rows(current, params)
        driver = getattr(self._local, "fast", None)
        if driver is None:
            driver = self._open_fast_connection()
        try:
            return fast_query.run(driver, self.engine.dialect, params)
        except self.engine.dialect.loaded_dbapi.Error:
            self._close_fast_connection()  # a broken connection (server restart): retry once
            return fast_query.run(self._open_fast_connection(), self.engine.dialect, params)

    def _open_fast_connection(self) -> Any:
        pooled = self.engine.pool.connect()  # held by this thread for its lifetime
        driver = pooled.driver_connection
        if not store_db.is_sqlite(self.engine):
            driver.autocommit = True
        self._local.fast_pooled = pooled
        self._local.fast = driver
        with self._fast_lock:
            self._fast_connections.append(pooled)
        return driver

    def _close_fast_connection(self) -> None:
        pooled = getattr(self._local, "fast_pooled", None)
        self._local.fast = None
        self._local.fast_pooled = None
        if pooled is not None:
            with self._fast_lock:
                if pooled in self._fast_connections:
                    self._fast_connections.remove(pooled)
            pooled.invalidate()

    def close(self) -> None:
        """Close every connection of this site (the threads' query connections and the pool)."""
        with self._fast_lock:
            held, self._fast_connections = self._fast_connections, []
        for pooled in held:
            pooled.invalidate()
        self.engine.dispose()

    # -- options --------------------------------------------------------------------------------

    def load_options(self, conn: sa.Connection | None = None) -> dict[str, Any]:
        """Every autoloaded option over the defaults."""
        values = dict(OPTION_DEFAULTS)
        stmt = sa.select(options_table.c.name, options_table.c.value).where(options_table.c.autoload.is_(True))
        if conn is None:
            with self.read() as own:
                rows = own.execute(stmt).all()
        else:
            rows = conn.execute(stmt).all()
        for name, value in rows:
            values[name] = value
        return values

    def options(self, request: Any = None) -> dict[str, Any]:
        """The options: cached per process for OPTIONS_TTL seconds (dropped at once when this
        process writes one), and fixed for the length of a request when a request is given."""
        if request is not None:
            cached = request.cache.get("options")
            if cached is not None:
                return cached
        now = time.monotonic()
        snapshot = self._options
        if snapshot is None or now - snapshot[0] > OPTIONS_TTL:
            snapshot = self._options = (now, self.load_options())
        if request is not None:
            request.cache["options"] = snapshot[1]
        return snapshot[1]

    def get_option(self, name: str, request: Any = None) -> Any:
        return self.options(request).get(name, OPTION_DEFAULTS.get(name))

    def update_option(self, conn: sa.Connection, name: str, value: Any) -> None:
        store_options.set_option(conn, name, value)
        self._options = None

    def delete_option(self, conn: sa.Connection, name: str) -> bool:
        """Delete a stored option (its default shows again); returns whether it was stored."""
        existed = store_options.delete_option(conn, name)
        self._options = None
        return existed

    def forget_options(self) -> None:
        """Drop the cached options: the next read loads them again."""
        self._options = None

    # -- addresses ------------------------------------------------------------------------------

    def site_url(self, request: Any = None) -> str:
        """The site address: the siteurl option, else the configured site URL, else the request's origin."""
        url = self.get_option("siteurl", request) if request is not None else ""
        return str(url or self.settings.site_url or request_origin(request)).rstrip("/")

    def home_url(self, request: Any = None) -> str:
        url = self.get_option("home", request) if request is not None else ""
        return str(url or self.site_url(request)).rstrip("/")

    # -- application passwords ------------------------------------------------------------------

    def app_passwords_available(self, site_url: str) -> bool:
        """Over HTTPS, or in a local/development environment (the reference's rule, with development)."""
        return site_url.startswith("https://") or self.settings.environment in ("local", "development")

    def app_passwords_in_use(self, request: Any = None) -> bool:
        """Whether any application password was ever created; before that Basic auth is not tried.
        Once true it stays true, so a positive answer is kept for the process; until then the
        flag is read from the database itself, not the options cache, so that a password made
        by another process works at once."""
        if not self._app_passwords_in_use:
            with self.read() as conn:
                self._app_passwords_in_use = bool(store_options.get_option(conn, "using_application_passwords", False))
        return self._app_passwords_in_use

    def mark_app_passwords_in_use(self) -> None:
        self._app_passwords_in_use = True
