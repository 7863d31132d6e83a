"""The site: settings, the database, the content definitions, the site options with their
defaults, its addresses, and the clients of the outside world it holds (outbound HTTP, file storage).

One ``Site`` per process, built by the app (``calpress.app.build_site``) and reached by every REST
request through its scope (``api/scope.py``). Options are read once per request (one query for all autoloaded
options, as the reference's alloptions does).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

from . import net
from .config import Settings
from .media.backends import build_storage
from .media.storage import Storage
from .store import db as store_db
from .store import options as store_options
from .store.changes import Change, one_bump
from .store.changes import settle as settle_changes
from .store.changes import take as take_changes
from .store.checkpoints import Checkpointer
from .store.fast import FastQuery
from .store.memo import Memo
from .store.tables import options as options_table

if TYPE_CHECKING:
    from .content.registry import ContentRegistry

T = TypeVar("T")
ChangeListener = Callable[[list[Change]], None]

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
    "posts_per_rss": 10,
    "rss_use_excerpt": 0,
}


# Options change rarely; other processes (workers, `calpress option update`) see a change within
# this many seconds. The process that writes an option sees it at once.
OPTIONS_TTL = 2.0


class Site:
    """Process-wide state: settings, the database engine and the content registry. Keeps
    nothing per request."""

    def __init__(self, settings: Settings, registry: ContentRegistry, engine: sa.Engine | None = None) -> None:
        self.settings = settings
        self.registry = registry
        # Every outbound request of the site goes through this client (calpress.net); never inside a
        # write transaction.
        self.http = net.Client(net.NetPolicy.from_settings(settings))
        # Every uploaded file is kept through this storage (media/storage.py): the uploads folder
        # unless the settings choose another back end. Replaceable (tests put a double here).
        self.storage: Storage = build_storage(settings)
        # Each request thread holds at most a read, a write and its hot-path query connection.
        pool_size = max(5, 3 * settings.threads)
        self.engine = engine if engine is not None else store_db.create_engine(
            settings.database_url, pool_size=pool_size, background_checkpoints=True)
        # SQLite files: this process's checkpoints, out of the writers' turn (store/checkpoints.py);
        # only for an engine built here, with in-line checkpoints put off.
        database = store_db.sqlite_file(self.engine) if engine is None else None
        self._checkpoints = Checkpointer(database) if database is not None else None
        self._app_passwords_in_use = False
        self._local = threading.local()
        self._options: tuple[float, dict[str, Any]] | None = None
        self._fast_lock = threading.Lock()
        self._fast_serial = 0
        self._fast_connections: list[Any] = []
        # Representations built from stored records, kept until those records change (store/memo.py;
        # caught up with the content counter by content/generation.py).
        self.memo = Memo(limit=settings.memo_size)
        # The app's Prometheus metrics (metrics.py) when they are on; the importers count here.
        self.metrics: Any = None
        # Told about the changes of every committed write transaction (store/changes.py).
        self.change_listeners: list[ChangeListener] = [self._options_changed]

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
        Reads inside the block use it. A write opened inside a read gets its own connection.
        Once committed, the changes the transaction recorded go to ``change_listeners``."""
        outer = getattr(self._local, "conn", None)
        outer_after = getattr(self._local, "after_commit", None)
        recorded: list[Change] = []
        after: list[Callable[[sa.Connection], None]] = []
        with store_db.write_transaction(self.engine, after) as conn:
            take_changes(conn)  # left on this pooled connection by a transaction that rolled back
            self._local.conn = conn
            self._local.after_commit = (conn, after)
            try:
                with one_bump(conn):
                    yield conn
            finally:
                self._local.conn = outer
                self._local.after_commit = outer_after
                recorded = take_changes(conn)
        if self._checkpoints is not None:
            self._checkpoints.nudge()
        if recorded:
            for listener in self.change_listeners:
                listener(recorded)

    def read_after_write(self, conn: sa.Connection, reads: Callable[[sa.Connection], T]) -> Callable[[], T]:
        """Run ``reads`` (what the answer to the write open on ``conn`` shows of it) where they
        hold up no other writer: on SQLite once the write has committed, on the same connection
        but after the writers' turn has passed on, since every other write of the site waits for
        that turn; elsewhere at once, in the write's transaction (a server's row locks hold no
        other writer, and a second transaction would cost round trips). Returns a function giving
        what ``reads`` returned, once the write's block has ended, or raising what they raised:
        the write stands then, and its change listeners have run.

        As the reference's REST controllers read an item back after saving it, the reads may see
        a write committed in between by another request; on SQLite they see this write whole,
        each statement on its own (store/db.write_transaction's ``after_commit``)."""
        box: list[T] = []
        failed: list[Exception] = []
        pending = getattr(self._local, "after_commit", None)
        if pending is not None and pending[0] is conn and store_db.is_sqlite(self.engine):

            def run(read: sa.Connection) -> None:
                outer = getattr(self._local, "conn", None)
                self._local.conn = read  # reads of Site.read and Site.query use it too
                try:
                    box.append(reads(read))
                except Exception as error:  # raised by result(), once the write is done with
                    failed.append(error)
                finally:
                    self._local.conn = outer

            pending[1].append(run)
        else:
            box.append(reads(conn))

        def result() -> T:
            if failed:
                raise failed[0]
            if not box:
                raise RuntimeError("the write has not committed: its reads have not run")
            return box[0]

        return result

    def query(self, fast_query: FastQuery, params: dict[str, Any] | None = None, *, raw: bool = False) -> list[Any]:
        """Run a compiled hot-path query: on the connection this thread holds inside read() or
        write(), else on a connection this thread keeps for such queries (autocommit, so it
        never sits in an open transaction): no pool round trip per statement. ``raw``: rows
        unconverted (``FastQuery.convert`` converts one)."""
        current = getattr(self._local, "conn", None)
        if current is not None:
            settle_changes(current)  # a write of this transaction may owe the counter its bump
            return fast_query.rows(current, params, raw=raw)
        # On PostgreSQL, statements whose plan holds for any values run on a second connection
        # that plans each of them once (plan_cache_mode); the others are planned for their values.
        kind = "fast_generic" if fast_query.generic_plan and not store_db.is_sqlite(self.engine) else "fast"
        driver = getattr(self._local, kind, None)
        if driver is None:
            driver = self._open_fast_connection(kind)
        try:
            return fast_query.run(driver, self.engine.dialect, params, raw=raw)
        except self.engine.dialect.loaded_dbapi.Error:
            self._close_fast_connection(kind)  # a broken connection (server restart): retry once
            return fast_query.run(self._open_fast_connection(kind), self.engine.dialect, params, raw=raw)

    def in_transaction(self) -> bool:
        """Whether this thread is inside a ``read()`` or ``write()`` block (``query`` runs there)."""
        return getattr(self._local, "conn", None) is not None

    def fast_connection_serial(self) -> int | None:
        """Which query connection this thread holds (a number never given twice in this
        process), None when it holds none: values read on one connection, such as SQLite's
        data_version, compare only with values read on the same one."""
        return getattr(self._local, "fast_serial", None) if getattr(self._local, "fast", None) is not None else None

    def data_version(self) -> tuple[int, int] | None:
        """SQLite's ``PRAGMA data_version`` on this thread's query connection (the one ``query``
        uses outside blocks), with that connection's serial (``fast_connection_serial``): the
        number changes whenever another connection, of this process or another, commits. None
        on PostgreSQL, inside a block, before the connection is opened, or on an error."""
        if not store_db.is_sqlite(self.engine) or self.in_transaction():
            return None
        driver = getattr(self._local, "fast", None)
        if driver is None:
            return None  # not opened yet: nothing was read on it to compare with
        try:
            return self.fast_connection_serial() or 0, int(driver.execute("PRAGMA data_version").fetchone()[0])
        except self.engine.dialect.loaded_dbapi.Error:
            self._close_fast_connection("fast")
            return None

    def _open_fast_connection(self, kind: str) -> Any:
        pooled = self.engine.pool.connect()  # held by this thread for its lifetime
        driver = pooled.driver_connection
        if not store_db.is_sqlite(self.engine):
            driver.autocommit = True
            if kind == "fast_generic":
                # psycopg prepares a statement it has run five times; PostgreSQL then plans it
                # anew on every run unless told to keep one generic plan.
                driver.execute("SET plan_cache_mode = force_generic_plan")
        setattr(self._local, kind + "_pooled", pooled)
        setattr(self._local, kind, driver)
        with self._fast_lock:
            self._fast_connections.append(pooled)
            self._fast_serial += 1
            setattr(self._local, kind + "_serial", self._fast_serial)
        return driver

    def _close_fast_connection(self, kind: str) -> None:
        pooled = getattr(self._local, kind + "_pooled", None)
        setattr(self._local, kind, None)
        setattr(self._local, kind + "_pooled", None)
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
        if self._checkpoints is not None:
            self._checkpoints.close()
        self.engine.dispose()
        self.http.close()
        self.storage.close()

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

    def options(self) -> dict[str, Any]:
        """The options: cached per process for OPTIONS_TTL seconds (dropped at once when this
        process writes one). A request takes one snapshot for its whole length (its scope)."""
        now = time.monotonic()
        snapshot = self._options
        if snapshot is None or now - snapshot[0] > OPTIONS_TTL:
            snapshot = self._options = (now, self.load_options())
        return snapshot[1]

    def get_option(self, name: str, options: dict[str, Any] | None = None) -> Any:
        """One option, from ``options`` (a request's snapshot) or the current ones."""
        return (self.options() if options is None else options).get(name, OPTION_DEFAULTS.get(name))

    def stored_option(self, conn: sa.Connection, name: str, default: Any = None, *, for_update: bool = False) -> Any:
        """The option as stored (``default`` when none is), read on ``conn``; ``for_update`` locks
        it until the transaction ends (for read-modify-write)."""
        return store_options.get_option(conn, name, default, for_update=for_update)

    def update_option(self, conn: sa.Connection, name: str, value: Any) -> None:
        store_options.set_option(conn, name, value)

    def delete_option(self, conn: sa.Connection, name: str) -> bool:
        """Delete a stored option (its default shows again); returns whether it was stored."""
        return store_options.delete_option(conn, name)

    def forget_options(self) -> None:
        """Drop the cached options: the next read loads them again."""
        self._options = None

    def _options_changed(self, recorded: list[Change]) -> None:
        # This process sees its own option writes at once; other processes within OPTIONS_TTL
        # (or at once, for answers keyed by the content counter: content/generation.py).
        if any(change.kind == "option" for change in recorded):
            self._options = None

    # -- addresses ------------------------------------------------------------------------------

    def site_url(self, options: dict[str, Any] | None = None, origin: str = "") -> str:
        """The site address: the ``siteurl`` option of ``options`` (a request's snapshot), else
        the configured site URL, else ``origin`` (the address a request came in on)."""
        url = options.get("siteurl") if options is not None else ""
        return str(url or self.settings.site_url or origin).rstrip("/")

    def home_url(self, options: dict[str, Any] | None = None, origin: str = "") -> str:
        """The home address: the ``home`` option of ``options``, else the site address."""
        url = options.get("home") if options is not None else ""
        return str(url or self.site_url(options, origin)).rstrip("/")

    # -- application passwords ------------------------------------------------------------------

    def app_passwords_available(self, site_url: str) -> bool:
        """Over HTTPS, or in a local/development environment (the reference's rule, with development)."""
        return site_url.startswith("https://") or self.settings.environment in ("local", "development")

    def app_passwords_in_use(self) -> bool:
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
