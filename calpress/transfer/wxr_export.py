"""Writing the site as a WordPress export file (WXR 1.2), as WordPress's ``export_wp()`` writes
it, so that WordPress's own importer (with The Events Calendar active) takes it back.

``export_wxr(site, out)`` writes the channel (the site, the authors of what is exported, every
category, tag and event category), then one ``<item>`` per exported item with its terms, meta and
comments. Items are read in id order, ``batch_size`` at a time with everything they need (terms,
event rows, venue and organizer links, comments, page paths: a fixed number of statements per
batch), and written to ``out`` as they are read: the items are never all in memory (the terms of
the channel are, as export_wp must order them parents first). The items exported are those that
existed when the export began (WordPress takes the same snapshot of ids; here: ids up to the
highest one then); one changed while it runs is written as it is read.

What is written, and how:

- **Types**: posts, pages, attachments, navigation menu entries (their menus are ``nav_menu``
  terms of the channel), events, venues and organizers by default
  (:data:`DEFAULT_TYPES`); any registered type when asked (``post_types``). Import records,
  revisions and the other internal types are left out by default, as WordPress leaves out the
  types it cannot export. Every status but ``auto-draft`` is exported, trash included, as
  WordPress does.
- **Names**: the reference's by default (``names="wordpress"``): ``tribe_events``,
  ``tribe_venue``, ``tribe_organizer``, ``tribe_events_cat``, statuses ``tribe-ea-*``;
  ``names="calpress"`` writes calpress's own (``cal_events`` ...). Meta keys are the same either
  way: calpress stores The Events Calendar's (``_EventStartDate``, ``_VenueCity`` ...).
- **Events**: the event row is the truth. Its meta is written as The Events Calendar stores it
  (``Tribe__Events__API::saveEventMeta``): the dates (local and UTC, ``Y-m-d H:i:s``), the zone
  and its abbreviation at the start, ``_EventDuration`` in seconds (wall time, as
  ``strtotime(end) - strtotime(start)``), ``_EventAllDay`` ``yes`` (absent when not all day),
  ``_EventHideFromUpcoming`` ``yes`` (absent when shown), ``_tribe_featured`` ``1`` (absent
  when not featured), ``_EventShowMap``/``_EventShowMapLink`` ``1`` or empty, one
  ``_EventVenueID`` and one ``_EventOrganizerID`` row per link in link order; a sticky event
  has ``menu_order`` -1.
- **Meta**: every other stored key as it is, arrays and objects PHP-serialized
  (:mod:`calpress.compat.php_serial`), true as ``1`` and false as empty (as WordPress stores
  them), numbers as PHP prints them. A list is one row per value for keys registered as
  multi-valued, one serialized row otherwise (as plugins store arrays, ``_EventRecurrence``
  among them: the values keep their types, and calpress's importer reads the same list back; a
  key an import read from several rows of plain values comes back out as one array). Left out: calpress's
  own bookkeeping (keys starting ``_cal_``: import ids, digests, lineage; ``_wxr_import_id`` on
  comments), ``_edit_lock`` (as WordPress), and ``_post_format``, written as the item's
  ``post_format`` term (``post-format-aside``) as WordPress keeps formats.
- **Comments**: every comment but spam, as WordPress's export; ``comment_approved`` ``1``,
  ``0`` or ``trash``.
- **Addresses**: links, the channel's base address and attachment URLs are absolute, made with
  the ``home`` option, else ``siteurl``, else the site URL setting (:func:`site_address`); a
  site with none of them is refused (:class:`NoSiteAddress`) before anything is written, as a
  file of relative addresses imports without any of its files.

Text goes in CDATA sections as ``wxr_cdata`` writes them (a ``]]>`` inside split across two
sections); characters XML 1.0 forbids (control characters, lone surrogates, U+FFFE/U+FFFF) are
dropped from everything written, where WordPress would write a file no XML reader accepts.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO
from urllib.parse import urlsplit
from xml.sax.saxutils import escape, quoteattr

import sqlalchemy as sa

from .. import __version__
from ..auth import users as user_store
from ..calendar.definitions import CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from ..calendar.events import ROW_META_KEYS, db_datetime, site_timezone
from ..calendar.values import truthy
from ..compat.formatting import esc_url_raw
from ..compat.php_serial import maybe_serialize, serialize
from ..compat.timezones import timezone_abbr
from ..content import items as item_service
from ..content import terms as term_store
from ..content.comments import Comment
from ..content.items import Context, Item
from ..media.attachments import FILE_KEY
from ..media.storage import InvalidKey, absolute_url, served_url
from ..store.tables import comments, event_links, events, posts, terms

__all__ = ["BATCH_SIZE", "DEFAULT_TYPES", "NAMES", "ExportSummary", "NoSiteAddress", "export_wxr", "site_address"]

WXR_VERSION = "1.2"
BATCH_SIZE = 500
# Navigation menu entries too, with their menus, as WordPress's export of all content has them.
DEFAULT_TYPES = ("post", "page", "attachment", "nav_menu_item", EVENT_TYPE, VENUE_TYPE, ORGANIZER_TYPE)
NAMES = ("wordpress", "calpress")

# calpress's names -> The Events Calendar's, for names="wordpress".
_WORDPRESS_TYPES = {EVENT_TYPE: "tribe_events", VENUE_TYPE: "tribe_venue", ORGANIZER_TYPE: "tribe_organizer",
                    "cal-ea-record": "tribe-ea-record"}
_WORDPRESS_TAXONOMIES = {CATEGORY_TAXONOMY: "tribe_events_cat"}
# Statuses and comment types the calendar renamed tribe-* -> cal-* (cal-ea-success, cal-ignored ...).
_RENAMED_PREFIX = ("cal-", "tribe-")

_ZERO_DATE = "0000-00-00 00:00:00"
_FORMAT_KEY = item_service.FORMAT_KEY
# Meta that means nothing to WordPress: calpress's own bookkeeping, and what WordPress skips.
_INTERNAL_PREFIX = "_cal_"
_SKIPPED_POST_META = frozenset({"_edit_lock", _FORMAT_KEY})
_SKIPPED_COMMENT_META = frozenset({"_wxr_import_id"})
# The event meta written from the event row and its links instead of the stored mirror.
_EVENT_ROW_KEYS = ROW_META_KEYS
# The taxonomies written in the channel as wp:category and wp:tag; post formats are terms of
# items only (WordPress lists no built-in taxonomy but these two).
_CHANNEL_SPECIAL = ("category", "post_tag", "post_format")
_COMMENT_APPROVED = {"approved": "1", "hold": "0", "spam": "spam", "trash": "trash"}

# Characters XML 1.0 does not allow anywhere in a document.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

_HEADER = """<?xml version="1.0" encoding="UTF-8" ?>
<!-- This is a WordPress eXtended RSS file generated by calpress as an export of your site. -->
<!-- It contains information about your site's posts, pages, comments, categories, and other content. -->
<!-- You may use this file to transfer that content from one site to another. -->
<!-- This file is not intended to serve as a complete backup of your site. -->

<!-- To import this information into a WordPress site follow these steps: -->
<!-- 1. Log in to that site as an administrator. -->
<!-- 2. Go to Tools: Import in the WordPress admin panel. -->
<!-- 3. Install the "WordPress" importer from the list. -->
<!-- 4. Activate & Run Importer. -->
<!-- 5. Upload this file using the form provided on that page. -->
<!-- 6. You will first be asked to map the authors in this export file to users -->
<!--    on the site. For each author, you may choose to map to an -->
<!--    existing user on the site or to create a new user. -->
<!-- 7. WordPress will then import each of the posts, pages, comments, categories, etc. -->
<!--    contained in this file into your site. -->

"""


@dataclass
class ExportSummary:
    """What an export wrote: the number of items, and per type (calpress's names), comments
    (spam left out), terms in the channel and authors."""

    items: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    comments: int = 0
    terms: int = 0
    authors: int = 0


# -- text -----------------------------------------------------------------------------------------


def xml_clean(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids."""
    return _NOT_XML.sub("", text)


def wxr_cdata(value: str) -> str:
    """WordPress's ``wxr_cdata``: the text in a CDATA section, a ``]]>`` inside split in two."""
    text = xml_clean(value)
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _text(value: Any) -> str:
    """Character data outside CDATA, escaped."""
    return escape(xml_clean(str(value)))


def _attribute(value: str) -> str:
    return quoteattr(xml_clean(value))


def _rss_date(moment: dt.datetime) -> str:
    """``D, d M Y H:i:s +0000`` in English whatever the locale (``mysql2date`` of a UTC time)."""
    return (f"{_DAYS[moment.weekday()]}, {moment.day:02d} {_MONTHS[moment.month - 1]} {moment.year:04d} "
            f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} +0000")


def _meta_text(value: Any) -> str:
    """A scalar meta value as the database holds it (``maybe_serialize``)."""
    return maybe_serialize(value)


def _meta_rows(value: Any, single: bool | None) -> list[str]:
    """The stored rows of one meta key: a key registered multi-valued (``single`` false) holding a
    list is a row per value; any other list or dict (unregistered keys: None) one serialized row."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)) and single is False:
        return [_meta_text(entry) for entry in value if entry is not None]
    if isinstance(value, (list, tuple, dict)):
        return [serialize(value)]
    return [_meta_text(value)]


# -- names ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Names:
    """The type, taxonomy and status names a file is written with."""

    wordpress: bool

    def type(self, name: str) -> str:
        return _WORDPRESS_TYPES.get(name, name) if self.wordpress else name

    def taxonomy(self, name: str) -> str:
        return _WORDPRESS_TAXONOMIES.get(name, name) if self.wordpress else name

    def status(self, name: str) -> str:
        old, new = _RENAMED_PREFIX
        return new + name[len(old):] if self.wordpress and name.startswith(old) else name


# -- the export -----------------------------------------------------------------------------------


class NoSiteAddress(ValueError):
    """The site has no absolute address to write links and attachment URLs with; ``found`` is
    the address it has ("" for none)."""

    def __init__(self, found: str) -> None:
        self.found = found
        shown = f" ({found!r} is not an absolute http or https address)" if found else ""
        self.reason = f"The site has no absolute address to write links and attachment URLs with{shown}"
        super().__init__(f"{self.reason}: set the home or siteurl option, or the site URL setting.")


def site_address(site: Any, options: dict[str, Any] | None = None, *, fallback: str = "") -> str:
    """The absolute address the file's links, GUIDs and attachment URLs are written with: the
    ``home`` option, else ``siteurl``, else the site URL setting (``options``: the site's current
    ones when None), else ``fallback`` (the address a request came in on, as the workspace makes
    its links when no address is set). NoSiteAddress when none of them is an absolute http(s)
    address: a file of relative links cannot be imported (every attachment would fail, every
    featured image go)."""
    home = site.home_url(site.options() if options is None else options)
    if fallback and not _absolute(home):
        home = fallback
    if not _absolute(home):
        raise NoSiteAddress(home)
    return home


def _absolute(address: str) -> bool:
    try:
        parts = urlsplit(address)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:  # an unparsable address (a bad IPv6 host, a port out of range)
        return False


def export_wxr(
    site: Any,
    out: BinaryIO,
    *,
    progress: Callable[[int, int], None] | None = None,
    post_types: Sequence[str] | None = None,
    names: str = "wordpress",
    batch_size: int = BATCH_SIZE,
    fallback_address: str = "",
) -> ExportSummary:
    """Write ``site`` to ``out`` as a WXR 1.2 file (UTF-8 bytes, written as they are made).

    ``post_types``: calpress's type names to export (default :data:`DEFAULT_TYPES`); ValueError
    for a type the site does not know. ``names``: ``"wordpress"`` (The Events Calendar's names,
    for WordPress's importer) or ``"calpress"``. ``progress(done, total)`` is called after each
    batch of ``batch_size`` items. Returns what was written.

    Addresses are absolute, from :func:`site_address` (``fallback_address`` when the site has
    none of its own); without one NoSiteAddress is raised before anything is written.
    """
    if names not in NAMES:
        raise ValueError(f"names must be one of {', '.join(NAMES)}")
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    types = list(dict.fromkeys(post_types if post_types is not None else DEFAULT_TYPES))
    unknown = [name for name in types if name not in site.registry.types]
    if unknown:
        raise ValueError(f"unknown content type: {', '.join(unknown)}")
    options = site.options()
    ctx = Context.of(site, home=site_address(site, options, fallback=fallback_address), options=options)
    with site.read() as conn:
        return _Export(conn, ctx, site, out, types, _Names(names == "wordpress"), progress, batch_size).run()


class _Export:
    def __init__(self, conn: sa.Connection, ctx: Context, site: Any, out: BinaryIO, types: list[str], names: _Names,
                 progress: Callable[[int, int], None] | None, batch_size: int) -> None:
        self.conn = conn
        self.ctx = ctx
        self.storage = getattr(site, "storage", None)
        self.out = out
        self.types = types
        self.names = names
        self.progress = progress
        self.batch_size = batch_size
        self.summary = ExportSummary()
        self.registry = ctx.registry
        self.home = ctx.home.rstrip("/")
        self.sticky = set(ctx.sticky_ids)
        self.logins: dict[int, str] = {}
        # The taxonomies of the exported types (their terms are read with the items).
        self.taxonomies = [t.name for t in self.registry.taxonomies.values()
                           if any(name in t.object_types for name in types) and t.name != "post_format"]
        self.single_meta = {name: {key: field.single for key, field in self.registry.registered_meta(content_type).items()}
                            for name, content_type in self.registry.types.items() if name in types}

    def write(self, text: str) -> None:
        self.out.write(text.encode("utf-8"))

    def _exported(self) -> list[Any]:
        return [posts.c.type.in_(self.types), posts.c.status != "auto-draft"]

    def run(self) -> ExportSummary:
        total, last_id = self.conn.execute(
            sa.select(sa.func.count(), sa.func.max(posts.c.id)).where(*self._exported())
        ).one()
        last_id = last_id or 0
        self._channel(last_id)
        done = 0
        after = 0
        while True:
            rows = self.conn.execute(
                sa.select(posts).where(*self._exported(), posts.c.id > after, posts.c.id <= last_id)
                .order_by(posts.c.id).limit(self.batch_size)
            ).all()
            if not rows:
                break
            batch = [Item.from_row(row) for row in rows]
            self._batch(batch)
            after = batch[-1].id
            done += len(batch)
            if self.progress is not None:
                self.progress(done, max(total, done))
        self.write("</channel>\n</rss>\n")
        return self.summary

    # -- the channel ------------------------------------------------------------------------------

    def _channel(self, last_id: int) -> None:
        options = self.ctx.options
        now = dt.datetime.now(dt.UTC)
        self.write(_HEADER)
        self.write(f'<!-- generator="calpress/{__version__}" created="{now:%Y-%m-%d %H:%M}" -->\n')
        self.write(
            '<rss version="2.0"\n'
            f'\txmlns:excerpt="http://wordpress.org/export/{WXR_VERSION}/excerpt/"\n'
            '\txmlns:content="http://purl.org/rss/1.0/modules/content/"\n'
            '\txmlns:wfw="http://wellformedweb.org/CommentAPI/"\n'
            '\txmlns:dc="http://purl.org/dc/elements/1.1/"\n'
            f'\txmlns:wp="http://wordpress.org/export/{WXR_VERSION}/"\n'
            ">\n\n<channel>\n"
        )
        # The title and tagline are stored HTML-escaped (as WordPress stores them): unescaped here
        # and escaped for XML, so a reader sees the text WordPress's feed would show.
        language = str(options.get("WPLANG") or "en_US").replace("_", "-")
        self.write(
            f"\t<title>{_text(html.unescape(str(options.get('blogname') or '')))}</title>\n"
            f"\t<link>{_text(self.home)}</link>\n"
            f"\t<description>{_text(html.unescape(str(options.get('blogdescription') or '')))}</description>\n"
            f"\t<pubDate>{_rss_date(now)}</pubDate>\n"
            f"\t<language>{_text(language)}</language>\n"
            f"\t<wp:wxr_version>{WXR_VERSION}</wp:wxr_version>\n"
            # A single site's base_site_url is its home address too (wxr_site_url()).
            f"\t<wp:base_site_url>{_text(self.home)}</wp:base_site_url>\n"
            f"\t<wp:base_blog_url>{_text(self.home)}</wp:base_blog_url>\n\n"
        )
        self._authors(last_id)
        self._terms()
        self.write(f"\n\t<generator>{_text(f'calpress/{__version__}')}</generator>\n\n")

    def _authors(self, last_id: int) -> None:
        """The authors of the exported items (wxr_authors_list)."""
        ids = self.conn.execute(
            sa.select(posts.c.author).where(*self._exported(), posts.c.id <= last_id, posts.c.author.is_not(None)).distinct()
        ).scalars().all()
        found = user_store.get_users(self.conn, sorted(ids))
        for user_id in sorted(found):
            user = found[user_id]
            self.logins[user.id] = user.login
            self.write(
                f"\t<wp:author><wp:author_id>{user.id}</wp:author_id>"
                f"<wp:author_login>{wxr_cdata(user.login)}</wp:author_login>"
                f"<wp:author_email>{wxr_cdata(user.email)}</wp:author_email>"
                f"<wp:author_display_name>{wxr_cdata(user.display_name)}</wp:author_display_name>"
                f"<wp:author_first_name>{wxr_cdata(user.first_name)}</wp:author_first_name>"
                f"<wp:author_last_name>{wxr_cdata(user.last_name)}</wp:author_last_name></wp:author>\n"
            )
        self.summary.authors = len(found)

    def _terms(self) -> None:
        """Every category and tag, then the terms of the other taxonomies of the exported types,
        each after its parent (as export_wp orders them)."""
        wanted = ["category", "post_tag", *(name for name in self.taxonomies if name not in _CHANNEL_SPECIAL)]
        rows = self.conn.execute(
            sa.select(terms.c.id, terms.c.taxonomy, terms.c.name, terms.c.slug, terms.c.description, terms.c.parent,
                      terms.c.meta)
            .where(terms.c.taxonomy.in_(wanted))
        ).all()
        by_taxonomy: dict[str, list[Any]] = {}
        for row in rows:
            by_taxonomy.setdefault(row.taxonomy, []).append(row)
        for rows_of in by_taxonomy.values():
            rows_of.sort(key=lambda row: (row.name.lower(), row.id))  # get_terms' default order: by name
        for row in _parents_first(by_taxonomy.get("category", [])):
            self.write(
                "\t<wp:category>\n"
                f"\t\t<wp:term_id>{row.id}</wp:term_id>\n"
                f"\t\t<wp:category_nicename>{wxr_cdata(row.slug)}</wp:category_nicename>\n"
                f"\t\t<wp:category_parent>{wxr_cdata(row.parent_slug)}</wp:category_parent>\n"
                + (f"\t\t<wp:cat_name>{wxr_cdata(row.name)}</wp:cat_name>\n" if row.name else "")
                + (f"\t\t<wp:category_description>{wxr_cdata(row.description)}</wp:category_description>\n"
                   if row.description else "")
                + _term_meta(row.meta)
                + "\t</wp:category>\n"
            )
        for row in by_taxonomy.get("post_tag", []):
            self.write(
                "\t<wp:tag>\n"
                f"\t\t<wp:term_id>{row.id}</wp:term_id>\n"
                f"\t\t<wp:tag_slug>{wxr_cdata(row.slug)}</wp:tag_slug>\n"
                + (f"\t\t<wp:tag_name>{wxr_cdata(row.name)}</wp:tag_name>\n" if row.name else "")
                + (f"\t\t<wp:tag_description>{wxr_cdata(row.description)}</wp:tag_description>\n" if row.description else "")
                + _term_meta(row.meta)
                + "\t</wp:tag>\n"
            )
        others = [row for name in wanted[2:] for row in by_taxonomy.get(name, [])]
        for row in _parents_first(others):
            self.write(
                "\t<wp:term>\n"
                f"\t\t<wp:term_id>{row.id}</wp:term_id>\n"
                f"\t\t<wp:term_taxonomy>{wxr_cdata(self.names.taxonomy(row.taxonomy))}</wp:term_taxonomy>\n"
                f"\t\t<wp:term_slug>{wxr_cdata(row.slug)}</wp:term_slug>\n"
                f"\t\t<wp:term_parent>{wxr_cdata(row.parent_slug)}</wp:term_parent>\n"
                + (f"\t\t<wp:term_name>{wxr_cdata(row.name)}</wp:term_name>\n" if row.name else "")
                + (f"\t\t<wp:term_description>{wxr_cdata(row.description)}</wp:term_description>\n"
                   if row.description else "")
                + _term_meta(row.meta)
                + "\t</wp:term>\n"
            )
        self.summary.terms = len(rows)

    # -- items ------------------------------------------------------------------------------------

    def _batch(self, batch: list[Item]) -> None:
        """One batch of items: what they need, read in one statement each, then their XML."""
        conn = self.conn
        ids = [item.id for item in batch]
        item_terms = term_store.get_object_terms(conn, ids, self.taxonomies) if self.taxonomies else {}
        event_ids = [item.id for item in batch if item.type == EVENT_TYPE]
        rows: dict[int, Any] = {}
        links: dict[int, dict[str, list[int]]] = {}
        if event_ids:
            rows = {row.post_id: row for row in conn.execute(sa.select(events).where(events.c.post_id.in_(event_ids)))}
            for link in conn.execute(
                sa.select(event_links).where(event_links.c.event_id.in_(event_ids))
                .order_by(event_links.c.event_id, event_links.c.kind, event_links.c.position)
            ):
                links.setdefault(link.event_id, {}).setdefault(link.kind, []).append(link.linked_id)
        by_item: dict[int, list[Comment]] = {}
        for row in conn.execute(
            sa.select(comments).where(comments.c.post_id.in_(ids), comments.c.status != "spam")
            .order_by(comments.c.post_id, comments.c.id)
        ):
            by_item.setdefault(row.post_id, []).append(Comment.from_row(row))
        hierarchical = [item for item in batch
                        if (t := self.registry.types.get(item.type)) is not None and t.hierarchical]
        uris = item_service.page_uris(conn, hierarchical) if hierarchical else {}
        parts: list[str] = []
        for item in batch:
            parts.append(self._item(item, item_terms.get(item.id, {}), rows.get(item.id), links.get(item.id, {}),
                                    by_item.get(item.id, []), uris.get(item.id)))
            self.summary.by_type[item.type] += 1
            self.summary.items += 1
        self.write("".join(parts))

    def _item(self, item: Item, found_terms: dict[str, list[Any]], event: Any, links: dict[str, list[int]],
              item_comments: list[Comment], uri: str | None) -> str:
        zone = self.ctx.zone
        menu_order = -1 if event is not None and event.sticky else item.menu_order
        parts = [
            "\t<item>\n",
            f"\t\t<title>{wxr_cdata(item.title)}</title>\n",
            f"\t\t<link>{_text(item_service.permalink(self.ctx, item, uri=uri))}</link>\n",
            f"\t\t<pubDate>{_rss_date(item_service.date_gmt(item, zone))}</pubDate>\n",
            f"\t\t<dc:creator>{wxr_cdata(self.logins.get(item.author, ''))}</dc:creator>\n",
            f'\t\t<guid isPermaLink="false">{_text(item.guid)}</guid>\n',
            "\t\t<description></description>\n",
            f"\t\t<content:encoded>{wxr_cdata(item.content)}</content:encoded>\n",
            f"\t\t<excerpt:encoded>{wxr_cdata(item.excerpt)}</excerpt:encoded>\n",
            f"\t\t<wp:post_id>{item.id}</wp:post_id>\n",
            f"\t\t<wp:post_date>{wxr_cdata(db_datetime(item.date_local))}</wp:post_date>\n",
            f"\t\t<wp:post_date_gmt>{wxr_cdata(db_datetime(item.date_utc) if item.date_utc else _ZERO_DATE)}</wp:post_date_gmt>\n",
            f"\t\t<wp:post_modified>{wxr_cdata(db_datetime(item.modified_local))}</wp:post_modified>\n",
            f"\t\t<wp:post_modified_gmt>{wxr_cdata(db_datetime(item.modified_utc))}</wp:post_modified_gmt>\n",
            f"\t\t<wp:comment_status>{wxr_cdata(item.comment_status)}</wp:comment_status>\n",
            f"\t\t<wp:ping_status>{wxr_cdata(item.ping_status)}</wp:ping_status>\n",
            f"\t\t<wp:post_name>{wxr_cdata(item.slug)}</wp:post_name>\n",
            f"\t\t<wp:status>{wxr_cdata(self.names.status(item.status))}</wp:status>\n",
            f"\t\t<wp:post_parent>{item.parent}</wp:post_parent>\n",
            f"\t\t<wp:menu_order>{menu_order}</wp:menu_order>\n",
            f"\t\t<wp:post_type>{wxr_cdata(self.names.type(item.type))}</wp:post_type>\n",
            f"\t\t<wp:post_password>{wxr_cdata(item.password)}</wp:post_password>\n",
            f"\t\t<wp:is_sticky>{1 if item.id in self.sticky else 0}</wp:is_sticky>\n",
        ]
        if item.type == "attachment":
            parts.append(f"\t\t<wp:attachment_url>{wxr_cdata(self._attachment_url(item))}</wp:attachment_url>\n")
        for taxonomy in self.taxonomies:
            for term in found_terms.get(taxonomy, ()):
                parts.append(f"\t\t<category domain={_attribute(self.names.taxonomy(taxonomy))} "
                             f"nicename={_attribute(term.slug)}>{wxr_cdata(term.name)}</category>\n")
        post_format = str(item.meta.get(_FORMAT_KEY) or "")
        if post_format and post_format != "standard":
            name = f"post-format-{post_format}"
            parts.append(f'\t\t<category domain="post_format" nicename={_attribute(name)}>{wxr_cdata(name)}</category>\n')
        for key, value in self._post_meta(item, event, links):
            parts.append(f"\t\t<wp:postmeta>\n\t\t<wp:meta_key>{wxr_cdata(key)}</wp:meta_key>\n"
                         f"\t\t<wp:meta_value>{wxr_cdata(value)}</wp:meta_value>\n\t\t</wp:postmeta>\n")
        for comment in item_comments:
            parts.append(self._comment(comment))
        parts.append("\t</item>\n")
        return "".join(parts)

    def _attachment_url(self, item: Item) -> str:
        """wp_get_attachment_url: the file's public address (the GUID when no file is recorded)."""
        key = str(item.meta.get(FILE_KEY) or "")
        if not key:
            return item.guid
        url = served_url(key)
        if self.storage is not None:
            try:
                url = self.storage.url(key)
            except InvalidKey:
                pass  # a key this storage would refuse (an import's metadata): the uploads address
        return absolute_url(url, self.home)

    def _post_meta(self, item: Item, event: Any, links: dict[str, list[int]]) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        if event is not None:
            rows.extend(self._event_meta(item, event, links))
        single = self.single_meta.get(item.type, {})
        for key, value in item.meta.items():
            if key.startswith(_INTERNAL_PREFIX) or key in _SKIPPED_POST_META or (event is not None and key in _EVENT_ROW_KEYS):
                continue
            rows.extend((key, text) for text in _meta_rows(value, single.get(key)))
        return rows

    def _event_meta(self, item: Item, event: Any, links: dict[str, list[int]]) -> list[tuple[str, str]]:
        """The event's meta as The Events Calendar stores it, from the event row and its links."""
        zone, zone_name = site_timezone(self.ctx.options, event.timezone or None)
        start, end = event.start_local, event.end_local
        rows = [
            ("_EventStartDate", db_datetime(start)),
            ("_EventEndDate", db_datetime(end)),
            ("_EventStartDateUTC", db_datetime(event.start_utc)),
            ("_EventEndDateUTC", db_datetime(event.end_utc)),
            ("_EventTimezone", zone_name),
            ("_EventTimezoneAbbr", timezone_abbr(zone, start)),
            ("_EventDuration", str(int((end - start).total_seconds()))),
        ]
        if event.all_day:
            rows.append(("_EventAllDay", "yes"))
        if event.hidden:
            rows.append(("_EventHideFromUpcoming", "yes"))
        if event.featured:
            rows.append(("_tribe_featured", "1"))
        # update_metadata( ..., isset( ... ) ): true stored as "1", false as "".
        rows.append(("_EventShowMap", "1" if truthy(item.meta.get("_EventShowMap") or False) else ""))
        rows.append(("_EventShowMapLink", "1" if truthy(item.meta.get("_EventShowMapLink") or False) else ""))
        rows.extend(("_EventVenueID", str(linked)) for linked in links.get("venue", ()))
        rows.extend(("_EventOrganizerID", str(linked)) for linked in links.get("organizer", ()))
        return rows

    def _comment(self, comment: Comment) -> str:
        parts = [
            "\t\t<wp:comment>\n",
            f"\t\t\t<wp:comment_id>{comment.id}</wp:comment_id>\n",
            f"\t\t\t<wp:comment_author>{wxr_cdata(comment.author_name)}</wp:comment_author>\n",
            f"\t\t\t<wp:comment_author_email>{wxr_cdata(comment.author_email)}</wp:comment_author_email>\n",
            f"\t\t\t<wp:comment_author_url>{_text(esc_url_raw(comment.author_url))}</wp:comment_author_url>\n",
            f"\t\t\t<wp:comment_author_IP>{wxr_cdata(comment.author_ip)}</wp:comment_author_IP>\n",
            f"\t\t\t<wp:comment_date>{wxr_cdata(db_datetime(comment.date_local))}</wp:comment_date>\n",
            f"\t\t\t<wp:comment_date_gmt>{wxr_cdata(db_datetime(comment.date_utc))}</wp:comment_date_gmt>\n",
            f"\t\t\t<wp:comment_content>{wxr_cdata(comment.content)}</wp:comment_content>\n",
            f"\t\t\t<wp:comment_approved>{wxr_cdata(_COMMENT_APPROVED.get(comment.status, comment.status))}</wp:comment_approved>\n",
            f"\t\t\t<wp:comment_type>{wxr_cdata(self.names.status(comment.type))}</wp:comment_type>\n",
            f"\t\t\t<wp:comment_parent>{comment.parent}</wp:comment_parent>\n",
            f"\t\t\t<wp:comment_user_id>{comment.author}</wp:comment_user_id>\n",
        ]
        for key, value in comment.meta.items():
            if key.startswith(_INTERNAL_PREFIX) or key in _SKIPPED_COMMENT_META:
                continue
            for text in _meta_rows(value, None):
                parts.append(f"\t\t\t<wp:commentmeta>\n\t\t\t<wp:meta_key>{wxr_cdata(key)}</wp:meta_key>\n"
                             f"\t\t\t<wp:meta_value>{wxr_cdata(text)}</wp:meta_value>\n\t\t\t</wp:commentmeta>\n")
        parts.append("\t\t</wp:comment>\n")
        self.summary.comments += 1
        return "".join(parts)


# -- helpers --------------------------------------------------------------------------------------


@dataclass
class _TermRow:
    id: int
    taxonomy: str
    name: str
    slug: str
    description: str
    parent: int
    meta: dict[str, Any]
    parent_slug: str = ""


def _parents_first(rows: Iterable[Any]) -> list[_TermRow]:
    """Terms in their order, each moved after its parent (export_wp's loop: a term whose parent
    is not placed yet goes to the back of the queue). A parent outside the set (or a cycle)
    cannot be waited for: such terms are placed as they come, with an empty parent slug when
    their parent is not exported."""
    pending = [_TermRow(row.id, row.taxonomy, row.name, row.slug, row.description, row.parent, dict(row.meta or {}))
               for row in rows]
    by_id = {row.id: row for row in pending}
    placed: dict[int, _TermRow] = {}
    stalled = 0
    while pending:
        row = pending.pop(0)
        if not row.parent or row.parent in placed or stalled > len(pending):
            parent = by_id.get(row.parent)
            row.parent_slug = parent.slug if parent is not None and row.parent else ""
            placed[row.id] = row
            stalled = 0
        else:
            pending.append(row)
            stalled += 1
    return list(placed.values())


def _term_meta(meta: dict[str, Any]) -> str:
    parts = []
    for key, value in (meta or {}).items():
        if key.startswith(_INTERNAL_PREFIX):
            continue
        for text in _meta_rows(value, None):
            parts.append(f"\t\t<wp:termmeta>\n\t\t\t<wp:meta_key>{wxr_cdata(key)}</wp:meta_key>\n"
                         f"\t\t\t<wp:meta_value>{wxr_cdata(text)}</wp:meta_value>\n\t\t</wp:termmeta>\n")
    return "".join(parts)

