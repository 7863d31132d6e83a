"""The item record and what the other item modules build on: a stored row as an ``Item``, the
``Context`` of a service call, the site's zone and date conversions, and reads of single items.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa

from ...compat.phpdate import mysql_datetime
from ...store import options as store_options
from ...store.fast import FastQuery
from ...store.tables import posts

if TYPE_CHECKING:
    from ..registry import ContentRegistry

# Keys of ``posts.meta`` the service keeps for itself (the reference's post meta names).
THUMBNAIL_KEY = "_thumbnail_id"
TEMPLATE_KEY = "_wp_page_template"
FORMAT_KEY = "_post_format"  # the reference keeps formats as terms of a hidden taxonomy
TRASH_STATUS_KEY = "_wp_trash_meta_status"
TRASH_TIME_KEY = "_wp_trash_meta_time"
DESIRED_SLUG_KEY = "_wp_desired_post_slug"

DEFAULT_PERMALINK_STRUCTURE = "/%postname%/"
HIERARCHY_LIMIT = 64  # ancestors followed at most (guards against corrupt cycles)


# -- the record -----------------------------------------------------------------------------------


@dataclass
class Item:
    """One content item as stored. ``author`` is 0 when the author is gone."""

    id: int
    type: str
    status: str
    author: int
    parent: int
    menu_order: int
    slug: str
    title: str
    content: str
    excerpt: str
    password: str
    date_local: dt.datetime
    date_utc: dt.datetime | None
    modified_local: dt.datetime
    modified_utc: dt.datetime
    comment_status: str
    ping_status: str
    mime_type: str
    guid: str
    comment_count: int
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Any) -> Item:
        return cls(
            id=row.id,
            type=row.type,
            status=row.status,
            author=row.author or 0,
            parent=row.parent or 0,
            menu_order=row.menu_order or 0,
            slug=row.slug,
            title=row.title,
            content=row.content,
            excerpt=row.excerpt,
            password=row.password,
            date_local=row.date_local,
            date_utc=row.date_utc,
            modified_local=row.modified_local,
            modified_utc=row.modified_utc,
            comment_status=row.comment_status,
            ping_status=row.ping_status,
            mime_type=row.mime_type,
            guid=row.guid,
            comment_count=row.comment_count,
            meta=dict(row.meta or {}),
        )

    @property
    def trashed_from(self) -> str | None:
        """The status the item had before it went to the trash (for the capability mapping)."""
        value = self.meta.get(TRASH_STATUS_KEY)
        return str(value) if value else None

    @property
    def featured_media(self) -> int:
        try:
            return int(self.meta.get(THUMBNAIL_KEY) or 0)
        except (TypeError, ValueError):
            return 0

    @property
    def template(self) -> str:
        return str(self.meta.get(TEMPLATE_KEY) or "")

    @property
    def format(self) -> str:
        """The post format, ``standard`` when none is set."""
        return str(self.meta.get(FORMAT_KEY) or "standard")

    @property
    def is_floating(self) -> bool:
        """A draft whose date follows the time it is saved or published (no UTC date stored)."""
        return self.date_utc is None


# -- time -----------------------------------------------------------------------------------------


def site_zone(options: dict[str, Any]) -> dt.tzinfo:
    """The site's time zone: ``timezone_string`` when it names a zone, else the fixed
    ``gmt_offset`` (hours, possibly fractional), as the reference's wp_timezone."""
    name = str(options.get("timezone_string") or "").strip()
    if name and name.upper() != "UTC":
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    elif name:
        return dt.UTC
    try:
        hours = float(options.get("gmt_offset") or 0)
    except (TypeError, ValueError):
        hours = 0.0
    return dt.timezone(dt.timedelta(minutes=round(hours * 60))) if hours else dt.UTC


def now_utc() -> dt.datetime:
    """Now in UTC, naive, to the second (the reference's MySQL datetimes have no fraction)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


def to_utc(local: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """A naive wall time of the site's zone as naive UTC."""
    return local.replace(tzinfo=zone).astimezone(dt.UTC).replace(tzinfo=None)


def to_local(utc: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """A naive UTC time as the site's naive wall time."""
    return utc.replace(tzinfo=dt.UTC).astimezone(zone).replace(tzinfo=None)


def date_gmt(item: Item, zone: dt.tzinfo) -> dt.datetime:
    """The item's UTC date; a floating draft's is derived from its local date (cms-api.md 2.7)."""
    return item.date_utc if item.date_utc is not None else to_utc(item.date_local, zone)


def rest_date(value: dt.datetime | None) -> str | None:
    """``YYYY-MM-DDTHH:MM:SS`` (the reference's mysql_to_rfc3339: no zone, no fraction)."""
    return None if value is None else mysql_datetime(value, "T")


def input_date(value: dt.datetime, *, is_utc: bool, zone: dt.tzinfo) -> tuple[dt.datetime, dt.datetime]:
    """(local, utc) for a parsed ``date`` or ``date_gmt`` argument (rest_get_date_with_gmt).

    A ``date`` without zone is the site's wall time; with a zone it is converted. A
    ``date_gmt`` is UTC whatever zone it names (the reference replaces the offset).
    """
    if is_utc:
        utc = value.replace(tzinfo=None, microsecond=0)
        return to_local(utc, zone), utc
    if value.tzinfo is None:
        local = value.replace(microsecond=0)
        return local, to_utc(local, zone)
    utc = value.astimezone(dt.UTC).replace(tzinfo=None, microsecond=0)
    return to_local(utc, zone), utc


# -- what the service knows of the site and the requester ----------------------------------------


@dataclass
class Context:
    """The site options, home address, acting user and content definitions of a service call.

    Build one with ``Context.of(site, ...)``. ``registry`` defaults to the site's. ``site`` (optional)
    is told about option writes (``set_option``) so its options cache drops them at once;
    without it options are written straight to the table.
    """

    options: dict[str, Any]
    home: str
    user: Any = None
    site: Any = None
    registry: ContentRegistry = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.registry is None:
            if self.site is None:
                raise TypeError("a Context needs the registry, or the site that holds it")
            self.registry = self.site.registry

    @classmethod
    def of(cls, site: Any, *, user: Any = None, home: str | None = None, options: dict[str, Any] | None = None) -> Context:
        """The context of a call on ``site``: its options (current unless given), its home
        address (``home`` when the caller knows the address it was reached at) and the acting
        user (None: nobody). The REST scope, the pages and the command line all build theirs here."""
        return cls(
            options=site.options() if options is None else options,
            home=site.home_url() if home is None else home,
            user=user,
            site=site,
        )

    @cached_property
    def zone(self) -> dt.tzinfo:
        return site_zone(self.options)

    @property
    def permalink_structure(self) -> str:
        value = self.options.get("permalink_structure")
        return DEFAULT_PERMALINK_STRUCTURE if value is None else str(value)

    @property
    def sticky_ids(self) -> list[int]:
        return int_list(self.options.get("sticky_posts"))

    @property
    def user_id(self) -> int:
        return int(getattr(self.user, "id", 0) or 0)

    def can(self, capability: str, *args: Any) -> bool:
        """Whether the acting user holds ``capability`` (meta capabilities mapped by the registry)."""
        return self.registry.user_can(self.user, capability, *args)

    def set_option(self, conn: sa.Connection, name: str, value: Any) -> None:
        if self.site is not None:
            self.site.update_option(conn, name, value)
        else:
            store_options.set_option(conn, name, value)
        self.options = {**self.options, name: value}


def int_list(value: Any) -> list[int]:
    """The integers in a list (or a PHP-style keyed array, or a single value); others skipped."""
    if value is None:
        return []
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, (list, tuple)):
        value = [value]
    found: list[int] = []
    for entry in value:
        try:
            found.append(int(entry))
        except (TypeError, ValueError):
            continue
    return found


# -- reading --------------------------------------------------------------------------------------


def get_item(conn: sa.Connection, item_id: int, content_type: str | None = None) -> Item | None:
    """The item ``item_id`` (of ``content_type`` when given), or None."""
    if item_id <= 0:
        return None
    if content_type is None:
        rows = _ITEM.rows(conn, {"id": item_id})
    else:
        rows = _ITEM_OF_TYPE.rows(conn, {"id": item_id, "type": content_type})
    return Item.from_row(rows[0]) if rows else None


_ITEM = FastQuery(sa.select(posts).where(posts.c.id == sa.bindparam("id", type_=posts.c.id.type)), generic_plan=True)
_ITEM_OF_TYPE = FastQuery(sa.select(posts).where(posts.c.id == sa.bindparam("id", type_=posts.c.id.type),
                                                 posts.c.type == sa.bindparam("type", type_=posts.c.type.type)))


def read_item(site: Any, item_id: int) -> Item | None:
    """The item ``item_id`` read through ``site.query``: inside a read or write block on its
    connection, else in one statement on the thread's own connection, without a transaction
    (a single row needs no snapshot; what a caller reads next opens its own)."""
    if item_id <= 0:
        return None
    rows = site.query(_ITEM, {"id": item_id})
    return Item.from_row(rows[0]) if rows else None


def get_items(conn: sa.Connection, ids: Iterable[int]) -> dict[int, Item]:
    """Items by id, in one query (missing ids are absent)."""
    wanted = sorted({int(i) for i in ids if i and int(i) > 0})
    if not wanted:
        return {}
    return {row.id: Item.from_row(row) for row in conn.execute(sa.select(posts).where(posts.c.id.in_(wanted)))}


def public_status(item: Item, known: dict[int, Item], depth: int = 0) -> str:
    """The status the reference's get_post_status reports: an attachment inherits its
    parent's (an unattached one counts as published); ``known`` holds the parents."""
    if item.type != "attachment":
        return item.status
    if item.status != "inherit":
        return item.status if item.status in ("private", "trash", "auto-draft") else "publish"
    parent = known.get(item.parent) if item.parent and item.parent != item.id else None
    if parent is None or depth > 8:
        return "publish"
    status = public_status(parent, known, depth + 1)
    if status == "trash":
        return parent.trashed_from or "publish"
    return status


def lock_item(conn: sa.Connection, item_id: int, content_type: str) -> Item | None:
    """Read an item inside a write transaction and lock its row until the transaction ends
    (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's single writer needs no row lock), so a
    concurrent update cannot be lost between our read and our write."""
    row = conn.execute(
        sa.select(posts).where(posts.c.id == item_id, posts.c.type == content_type).with_for_update()
    ).first()
    return Item.from_row(row) if row else None

