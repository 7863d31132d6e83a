"""The database schema as SQLAlchemy Core tables: one ``metadata`` shared by queries and migrations.

Every content item (posts, pages, events, venues, attachments, revisions ...) is a row of
``posts``, so ids never collide across types. Hot, queried attributes are typed columns; rarely
filtered ones go in the JSON ``meta`` column. Datetimes are naive: ``*_utc`` columns hold UTC,
``*_local`` columns the site's wall time that produced them.

The migrations in ``migrations/versions`` are written by hand and must create exactly these
tables; ``tests/store/test_store.py`` compares the migrated database with this metadata.
Constraint and index names come from ``NAMING_CONVENTION`` so that migrations can refer to them.
On SQLite the id columns use AUTOINCREMENT, so ids of deleted rows are never handed out again (as
with MySQL's AUTO_INCREMENT in the reference and PostgreSQL's sequences).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

# Stable, predictable names for every constraint and index (Alembic needs names to drop or
# alter them later, and SQLite/PostgreSQL would otherwise invent different ones).
NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON on SQLite (stored as text), JSONB on PostgreSQL (indexable, compact). Note that JSONB
# does not keep the key order of objects; values compare equal after a round trip.
JSONType = sa.JSON().with_variant(JSONB(), "postgresql")

metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def row_offset(offset: int) -> int:
    """An OFFSET both databases take: a page far beyond the last (``page=99999999999999999999``)
    skips every row instead of overflowing. Negative offsets are the caller's to interpret."""
    return min(max(offset, 0), INT64_MAX)


class Int(sa.types.TypeDecorator):
    """The integer of every id, reference and count column: 64-bit, as the reference's BIGINT ids,
    so that any id a client can send (PHP's integers are 64-bit) is simply an unknown id, never an
    "integer out of range" error. BIGINT on PostgreSQL (migration 0004), INTEGER on SQLite (a
    64-bit integer there, and only ``INTEGER PRIMARY KEY`` is the rowid). A value beyond 64 bits
    (Python has no limit) is bound as the nearest 64-bit one: no stored value reaches either end."""

    impl = sa.BigInteger
    cache_ok = True

    def load_dialect_impl(self, dialect: sa.Dialect) -> sa.types.TypeEngine:
        return dialect.type_descriptor(sa.Integer() if dialect.name == "sqlite" else sa.BigInteger())

    def process_bind_param(self, value: object, dialect: sa.Dialect) -> object:
        return clamp_int64(value)


def clamp_int64(value: object) -> object:
    """An integer beyond 64 bits as the nearest 64-bit one; anything else as it is (``Int``'s
    binding, which store/fast.py's statements call directly)."""
    if type(value) is int and not INT64_MIN <= value <= INT64_MAX:
        return INT64_MAX if value > 0 else INT64_MIN
    return value


EMPTY = sa.text("''")
EMPTY_OBJECT = sa.text("'{}'")
EMPTY_LIST = sa.text("'[]'")
ZERO = sa.text("0")


users = sa.Table(
    "users",
    metadata,
    sa.Column("id", Int, primary_key=True, autoincrement=True),
    sa.Column("login", sa.String(60), nullable=False, unique=True),
    sa.Column("email", sa.String(100), nullable=False, unique=True),
    # argon2 encoded hash ("$argon2id$v=19$..."); empty means no login password.
    sa.Column("password_hash", sa.String(255), nullable=False, default="", server_default=EMPTY),
    sa.Column("display_name", sa.String(250), nullable=False, default="", server_default=EMPTY),
    # The user's slug (the reference's user_nicename).
    sa.Column("nicename", sa.String(50), nullable=False, unique=True),
    sa.Column("first_name", sa.String(250), nullable=False, default="", server_default=EMPTY),
    sa.Column("last_name", sa.String(250), nullable=False, default="", server_default=EMPTY),
    sa.Column("nickname", sa.String(250), nullable=False, default="", server_default=EMPTY),
    sa.Column("url", sa.String(100), nullable=False, default="", server_default=EMPTY),
    sa.Column("description", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("locale", sa.String(20), nullable=False, default="", server_default=EMPTY),
    # Role names, e.g. ["editor"]; capabilities come from roles plus extra_caps.
    sa.Column("roles", JSONType, nullable=False, default=list, server_default=EMPTY_LIST),
    # Per-user grants and denials: {"capability": true/false}.
    sa.Column("extra_caps", JSONType, nullable=False, default=dict, server_default=EMPTY_OBJECT),
    sa.Column("meta", JSONType, nullable=False, default=dict, server_default=EMPTY_OBJECT),
    sa.Column("registered_utc", sa.DateTime(), nullable=False),
    sqlite_autoincrement=True,
)

application_passwords = sa.Table(
    "application_passwords",
    metadata,
    sa.Column("uuid", sa.String(36), primary_key=True),
    sa.Column(
        "user_id",
        Int,
        sa.ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("app_id", sa.String(36), nullable=False, default="", server_default=EMPTY),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("password_hash", sa.String(255), nullable=False),
    sa.Column("created_utc", sa.DateTime(), nullable=False),
    sa.Column("last_used_utc", sa.DateTime(), nullable=True),
    sa.Column("last_ip", sa.String(45), nullable=True),
)

options = sa.Table(
    "options",
    metadata,
    # 191: the longest key a utf8mb4 index takes in the reference's MySQL schema.
    sa.Column("name", sa.String(191), primary_key=True),
    # Any JSON value; Python None is stored as JSON null, not SQL NULL.
    sa.Column("value", JSONType, nullable=False),
    sa.Column("autoload", sa.Boolean, nullable=False, default=True, server_default=sa.true()),
)

posts = sa.Table(
    "posts",
    metadata,
    sa.Column("id", Int, primary_key=True, autoincrement=True),
    sa.Column("type", sa.String(20), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("author", Int, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    # 0 means no parent; no foreign key, as revisions and attachments may outlive their parent.
    sa.Column("parent", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("menu_order", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("slug", sa.String(200), nullable=False, default="", server_default=EMPTY),
    sa.Column("title", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("content", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("excerpt", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("password", sa.String(255), nullable=False, default="", server_default=EMPTY),
    sa.Column("date_local", sa.DateTime(), nullable=False),
    # NULL for a draft whose date floats (the reference's zero post_date_gmt).
    sa.Column("date_utc", sa.DateTime(), nullable=True),
    sa.Column("modified_local", sa.DateTime(), nullable=False),
    sa.Column("modified_utc", sa.DateTime(), nullable=False),
    sa.Column("comment_status", sa.String(20), nullable=False, default="open", server_default=sa.text("'open'")),
    sa.Column("ping_status", sa.String(20), nullable=False, default="open", server_default=sa.text("'open'")),
    sa.Column("mime_type", sa.String(100), nullable=False, default="", server_default=EMPTY),
    sa.Column("guid", sa.String(255), nullable=False, default="", server_default=EMPTY),
    sa.Column("comment_count", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("meta", JSONType, nullable=False, default=dict, server_default=EMPTY_OBJECT),
    sa.Index(None, "type", "status", "date_utc"),
    sa.Index(None, "type", "date_local", "id"),  # listings' default order (migration 0008)
    sa.Index(None, "type", "slug"),
    sa.Index(None, "parent", "type"),
    sa.Index(None, "author"),
    sqlite_autoincrement=True,
)
# Indexes of ``posts`` that migrations make but this module cannot declare (an expression, a
# collation of one dialect): migration 0007 says what each serves.
UNDECLARED_INDEXES = frozenset({"ix_posts_slug_bytes", "ix_posts_import_global_id", "ix_posts_type_lower_title"})
# Indexes of ``users`` on ``lower(login)`` and ``lower(email)`` (migration 0012).
UNDECLARED_USERS_INDEXES = frozenset({"ix_users_lower_login", "ix_users_lower_email"})

terms = sa.Table(
    "terms",
    metadata,
    sa.Column("id", Int, primary_key=True, autoincrement=True),
    sa.Column("taxonomy", sa.String(32), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("slug", sa.String(200), nullable=False),
    sa.Column("description", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("parent", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("count", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("meta", JSONType, nullable=False, default=dict, server_default=EMPTY_OBJECT),
    sa.UniqueConstraint("taxonomy", "slug"),
    sa.Index(None, "taxonomy", "parent"),
    sqlite_autoincrement=True,
)

term_links = sa.Table(
    "term_links",
    metadata,
    sa.Column("object_id", Int, sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("term_id", Int, sa.ForeignKey("terms.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", Int, nullable=False, default=0, server_default=ZERO),
    sa.Index(None, "term_id"),
    # On SQLite the key is the row (migration 0014): a link is written once, not twice.
    sqlite_with_rowid=False,
)

# The calendar's typed event columns, one row per cal_events item. Both wall times (in the
# event's own zone) and UTC instants are kept: listings filter and sort on the wall times, as the
# reference does, and conversions are never needed on the hot path.
events = sa.Table(
    "events",
    metadata,
    sa.Column("post_id", Int, sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("start_local", sa.DateTime(), nullable=False),
    sa.Column("end_local", sa.DateTime(), nullable=False),
    sa.Column("start_utc", sa.DateTime(), nullable=False),
    sa.Column("end_utc", sa.DateTime(), nullable=False),
    # An IANA name or a fixed offset such as "UTC+5.5"; "" means the site's zone.
    sa.Column("timezone", sa.String(64), nullable=False, default="", server_default=EMPTY),
    sa.Column("all_day", sa.Boolean, nullable=False, default=False, server_default=sa.false()),
    sa.Column("featured", sa.Boolean, nullable=False, default=False, server_default=sa.false()),
    sa.Column("sticky", sa.Boolean, nullable=False, default=False, server_default=sa.false()),
    sa.Column("hidden", sa.Boolean, nullable=False, default=False, server_default=sa.false()),
    sa.Index(None, "start_local", "post_id"),
    sa.Index(None, "end_local"),
    sa.Index(None, "start_utc"),
    sa.Index(None, "end_utc"),
)

# Venues and organizers linked to an event, in the order they were given.
event_links = sa.Table(
    "event_links",
    metadata,
    sa.Column("event_id", Int, sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True),
    # "venue" or "organizer".
    sa.Column("kind", sa.String(10), primary_key=True),
    sa.Column("linked_id", Int, sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", Int, nullable=False, default=0, server_default=ZERO),
    sa.Index(None, "linked_id", "kind"),
    sqlite_with_rowid=False,  # as term_links
)

# Named counters. ``content`` goes up with every write that can change what a listing holds
# (items, their terms and event data), in the writer's transaction: cached listing totals are
# keyed by it, so every process sees a write at once without scanning anything.
counters = sa.Table(
    "counters",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("value", sa.BigInteger, nullable=False, default=0, server_default=ZERO),
)

# What each step of the content counter changed, so that every process can forget exactly what
# it built from those records (store/memo.py). One row per bump: ``generation`` is the counter's
# new value, ``touched`` a JSON object of kind -> ids ({"item": [5], "term": [3]}, "term_count"
# for terms whose count alone moved; {"*": 1} when a write did not say which). Written by the
# bump itself, in one statement (store/changes.py); only the last CHANGES_KEPT rows are kept.
changes = sa.Table(
    "changes",
    metadata,
    sa.Column("generation", Int, primary_key=True, autoincrement=False),
    sa.Column("touched", sa.Text(), nullable=False),
)

# Comments on content items (the reference's wp_comments). ``status`` holds the REST names:
# approved, hold, spam, trash.
comments = sa.Table(
    "comments",
    metadata,
    sa.Column("id", Int, primary_key=True, autoincrement=True),
    sa.Column("post_id", Int, sa.ForeignKey("posts.id", ondelete="CASCADE"), nullable=False),
    sa.Column("parent", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("author", Int, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("author_name", sa.String(245), nullable=False, default="", server_default=EMPTY),
    sa.Column("author_email", sa.String(100), nullable=False, default="", server_default=EMPTY),
    sa.Column("author_url", sa.String(200), nullable=False, default="", server_default=EMPTY),
    sa.Column("author_ip", sa.String(100), nullable=False, default="", server_default=EMPTY),
    sa.Column("author_agent", sa.String(255), nullable=False, default="", server_default=EMPTY),
    sa.Column("date_local", sa.DateTime(), nullable=False),
    sa.Column("date_utc", sa.DateTime(), nullable=False),
    sa.Column("content", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("type", sa.String(20), nullable=False, default="comment", server_default=sa.text("'comment'")),
    sa.Column("meta", JSONType, nullable=False, default=dict, server_default=EMPTY_OBJECT),
    sa.Index(None, "post_id", "status", "date_utc"),
    sa.Index(None, "parent"),
    sqlite_autoincrement=True,
)

# Failed logins of the password-guessing throttle (auth/throttle.py), per key: ``user:<name as
# sent>`` or ``addr:<client address>`` (at most 200 characters, longer ones hashed). ``count``
# failures since ``window_start_utc``; a failure after the window ended starts a new one.
login_failures = sa.Table(
    "login_failures",
    metadata,
    sa.Column("key", sa.String(200), primary_key=True),
    sa.Column("count", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("window_start_utc", sa.DateTime(), nullable=False),
)

# Imports the workspace runs outside the request (admin/import_jobs.py): what is imported
# (``kind``: wxr, ics, feed, schedule; ``source``: the file's name or the feed's address), by whom,
# where it stands (``state``: queued, running, success, failed), how far it got (``done`` of
# ``total``: bytes of a file, events of a feed) and, once over, what it printed (``result``: the
# command line's lines). Any worker answers a page asking after a job from here; ``updated_utc``
# moves with every report, so a job whose process ended shows as stopped.
import_jobs = sa.Table(
    "import_jobs",
    metadata,
    sa.Column("id", Int, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("source", sa.Text, nullable=False, default="", server_default=EMPTY),
    sa.Column("user_id", Int, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("state", sa.String(20), nullable=False),
    sa.Column("done", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("total", Int, nullable=False, default=0, server_default=ZERO),
    sa.Column("result", JSONType, nullable=False, default=dict, server_default=EMPTY_OBJECT),
    sa.Column("created_utc", sa.DateTime(), nullable=False),
    sa.Column("updated_utc", sa.DateTime(), nullable=False),
    sqlite_autoincrement=True,
)
