"""A WordPress export file (WXR) brought into the site: ``calpress import wxr <file>``.

Read as a stream (:mod:`.wxr_read`), one record at a time:

- **authors** are matched to users by login, then e-mail; the others are created (``authors=
  "create"``, with the site's default role and no password, as WordPress's importer does) or
  their items go to the acting user (``"skip"``);
- **terms** (categories, tags, the event categories) are matched by taxonomy and slug, else
  created with their parent;
- **items** of the known types (posts, pages, attachments, events, venues, organizers; the
  reference's names ``tribe_events`` and the like or calpress's ``cal_events``) are created in a
  transaction each, with their terms, meta and comments: an item that fails leaves nothing
  behind, and the import goes on. Navigation menu entries join their menu (a ``nav_menu``
  term of the channel) as WordPress's importer adds them (``process_menu_item``): what they
  point at and the entry they nest under are mapped to the new ids, those naming something
  further down the file are retried at the end, drafts and entries of no menu are skipped. Attachments are fetched from their ``attachment_url``
  through the site's guarded client before that transaction opens.

Every item created remembers where it came from (``_cal_import_global_id`` =
``wxr:<the file's site address>#<its id there>``, the index imports share), and every comment
its id there: a second run of the same file skips what the first made, and adds only what is
new (comments included).

Ids in the file (parents, featured images, an event's venue and organizers, a comment's
parent) are mapped to the new ones. A reference to an item further down the file is kept aside
and resolved when the file has been read. Attachment addresses in content are rewritten to the
new files' addresses at the end, as WordPress's importer does.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, BinaryIO
from urllib.parse import unquote, urlsplit

import sqlalchemy as sa

from .. import net
from ..auth import users as user_store
from ..calendar import imports
from ..calendar.definitions import CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from ..calendar.events import ROW_META_KEYS, EventInput, LinkedInput, linked_meta, set_event_links, valid_timezone, write_event
from ..calendar.fields import kind_of
from ..calendar.values import truthy
from ..compat.php_serial import maybe_unserialize
from ..content import comments as comment_store
from ..content import items as item_service
from ..content import menus
from ..content import terms as term_store
from ..content.items import Context, Item, ItemChanges
from ..media import uploads
from ..media.attachments import create_attachment
from ..media.files import create_file_attachment
from ..media.images import RESIZED_TYPES
from ..metrics import count_import
from ..rest.errors import RestError
from ..store.tables import comments as comments_table
from ..store.tables import posts
from ..store.tables import terms as terms_table
from .wxr_read import Author, Channel, Comment, Post, Term, WxrError, read_wxr

# The reference's names (as The Events Calendar exports them) -> calpress's.
TYPE_NAMES = {"tribe_events": EVENT_TYPE, "tribe_venue": VENUE_TYPE, "tribe_organizer": ORGANIZER_TYPE}
TAXONOMY_NAMES = {"tribe_events_cat": CATEGORY_TAXONOMY}
IMPORTED_TYPES = ("post", "page", "attachment", EVENT_TYPE, VENUE_TYPE, ORGANIZER_TYPE)
GLOBAL_ID_KEY = imports.GLOBAL_ID_KEY
COMMENT_ID_KEY = "_wxr_import_id"
MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024

# Meta the importer turns into fields (or drops, as meaning nothing here) instead of storing.
_EVENT_KEYS = ROW_META_KEYS | {"_EventCost", "_EventURL"}
_DROPPED_KEYS = frozenset({"_edit_lock", "_edit_last", "_pingme", "_encloseme", "_thumbnail_id", "_wp_attached_file",
                           "_wp_attachment_metadata", GLOBAL_ID_KEY, "_cal_import_digest"})
_ZERO_DATE = "0000-00-00 00:00:00"
_COMMENT_STATUSES = {"1": "approved", "0": "hold", "spam": "spam", "trash": "trash", "post-trashed": "trash"}


@dataclass
class ImportSummary:
    """What a run did, per kind (``user``, ``term``, ``post``, ``page``, ``attachment``,
    ``cal_events``, ..., ``comment``): created, skipped (there already, or not imported) and
    failed counts; a line per problem; the reader's error when it had to stop."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    error: str = ""
    source: str = ""
    created_ids: list[int] = field(default_factory=list)

    def count(self, kind: str, outcome: str, n: int = 1) -> None:
        self.counts.setdefault(kind, Counter())[outcome] += n

    @property
    def failed(self) -> int:
        return sum(c["failed"] for c in self.counts.values())


@dataclass
class _Pending:
    """References to items further down the file, resolved at the end: (new id, old ids)."""

    parents: list[tuple[int, int, int]] = field(default_factory=list)  # (new id, its id in the file, parent's)
    images: list[tuple[int, int, int]] = field(default_factory=list)
    links: list[tuple[int, int, list[int], list[int]]] = field(default_factory=list)
    term_parents: list[tuple[int, str, str]] = field(default_factory=list)
    # Menu entries whose object was not imported yet (retried at the end, as WordPress's
    # importer does), and entries whose parent entry comes later: (entry here, its menu here,
    # the parent's id there).
    menu_entries: list[_MenuEntry] = field(default_factory=list)
    menu_parents: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass
class _MenuEntry:
    """What a menu entry of the file needs once the items it names are known."""

    post_id: int
    global_id: str
    label: str
    fields: menus.EntryFields
    old_object_id: int
    old_parent: int


def _date(text: str) -> dt.datetime | None:
    text = (text or "").strip()
    if not text or text.startswith("0000-00-00"):
        return None
    try:
        return dt.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None


def _plain(value: Any) -> str:
    return "" if value is None else str(value)


class WxrImport:
    """One run over one file; see the module docstring. ``user_id`` acts (an administrator:
    markup is kept as written) and owns what no author claims."""

    def __init__(self, site: Any, *, user_id: int, authors: str = "create", fetch_attachments: bool = True,
                 source: str = "", log: Callable[[str], None] | None = None) -> None:
        self.site = site
        self.user_id = user_id
        self.create_authors = authors == "create"
        self.fetch_attachments = fetch_attachments
        self.fallback_source = source
        self.log = log
        options = site.load_options()
        with site.read() as conn:
            user = user_store.get_user(conn, user_id)
        self.ctx = Context.of(site, user=user, options=options)
        self.registry = self.ctx.registry
        self.summary = ImportSummary()
        self.prefix = ""
        self.authors: dict[str, int] = {}  # login -> user id
        self.user_ids: dict[int, int] = {}  # user id in the file -> here
        self.ids: dict[int, int] = {}  # item id in the file -> here
        self.urls: dict[str, str] = {}  # attachment address in the file -> here
        self.pending = _Pending()
        self.term_ids: dict[int, int] = {}  # term id in the file -> here
        # (menu here, menu entry id in the file) -> the entry here: the theme unit test data, for
        # one, has the same entries (ids and all) in two menus.
        self.menu_ids: dict[tuple[int, int], int] = {}

    def _change(self, conn: sa.Connection, item_id: int, changes: ItemChanges) -> None:
        item = item_service.get_item(conn, item_id)
        if item is not None:
            item_service.update_item(conn, self.ctx, item, changes, store_revision=False)

    # -- the run ---------------------------------------------------------------------------------

    def run(self, stream: BinaryIO, *, progress: Callable[[int], None] | None = None) -> ImportSummary:
        try:
            for record in read_wxr(stream, progress=progress):
                if isinstance(record, Channel):
                    self._channel(record)
                elif isinstance(record, Author):
                    self._author(record)
                elif isinstance(record, Term):
                    self._term(record)
                else:
                    self._post(record)
        except WxrError as err:
            self.summary.error = str(err)
        self._retry_menu_entries()
        self._resolve_pending()
        self._rewrite_urls()
        return self.summary

    def _problem(self, text: str) -> None:
        self.summary.problems.append(text)
        if self.log is not None:
            self.log(text)

    def _channel(self, channel: Channel) -> None:
        source = channel.source or self.fallback_source
        self.summary.source = source
        self.prefix = f"wxr:{source}#"

    # -- authors ---------------------------------------------------------------------------------

    def _author(self, author: Author) -> None:
        login = author.login.strip()
        with self.site.write() as conn:
            found = user_store.get_user_by(conn, "login", login) if login else None
            if found is None and author.email:
                found = user_store.get_user_by(conn, "email", author.email)
            if found is not None:
                self.summary.count("user", "skipped")
            elif self.create_authors and login:
                email = author.email.strip()
                if not email:
                    # Every user here has a distinct e-mail; the reserved .invalid domain says this one is made up.
                    email = f"{user_store.nicename_from(login)}@users.invalid"
                    self._problem(f"Author {login!r} has no e-mail in the file; created with {email}.")
                try:
                    with conn.begin_nested():
                        found = user_store.create_user(
                            conn, login=login, email=email, password=secrets.token_urlsafe(24),
                            roles=[str(self.ctx.options.get("default_role") or "subscriber")],
                            display_name=author.display_name, first_name=author.first_name, last_name=author.last_name,
                        )
                    self.summary.count("user", "created")
                except (RestError, sa.exc.IntegrityError, sa.exc.DataError) as err:
                    self.summary.count("user", "failed")
                    reason = err.message if isinstance(err, RestError) else "the login or e-mail is taken or too long"
                    self._problem(f"Author {login!r} could not be created ({reason}); their items go to user {self.user_id}.")
            else:
                self.summary.count("user", "skipped")
        target = found.id if found is not None else self.user_id
        if login:
            self.authors[login] = target
        if author.id:
            self.user_ids[author.id] = target

    # -- terms -----------------------------------------------------------------------------------

    def _taxonomy(self, name: str) -> Any:
        return self.registry.taxonomies.get(TAXONOMY_NAMES.get(name, name))

    def _term(self, term: Term) -> None:
        taxonomy = self._taxonomy(term.taxonomy)
        if taxonomy is None:
            self.summary.count("term", "skipped")
            self._problem(f"Term {term.slug!r}: taxonomy {term.taxonomy!r} is not known here; skipped.")
            return
        try:
            with self.site.write() as conn:
                term_id, created = self._find_or_create_term(conn, taxonomy, term.slug, term.name, term.description,
                                                             term.parent, meta=term.meta)
            if term.id:
                self.term_ids[term.id] = term_id
            self.summary.count("term", "created" if created else "skipped")
        except RestError as err:
            self.summary.count("term", "failed")
            self._problem(f"Term {term.slug!r} ({term.taxonomy}): {err.message}")

    def _find_or_create_term(self, conn: sa.Connection, taxonomy: Any, slug: str, name: str, description: str = "",
                             parent_slug: str = "", meta: Iterable[tuple[str, str]] = ()) -> tuple[int, bool]:
        slug = slug.strip()
        found = term_store.get_term_by_slug(conn, taxonomy.name, slug) if slug else None
        if found is not None:
            return found.id, False
        parent = 0
        if parent_slug and taxonomy.hierarchical:
            above = term_store.get_term_by_slug(conn, taxonomy.name, parent_slug)
            if above is not None:
                parent = above.id
        try:
            with conn.begin_nested():
                created = term_store.create_term(conn, taxonomy, name or slug, slug=slug, description=description,
                                                 parent=parent or None)
        except term_store.TermError as err:
            if err.code == "term_exists" and isinstance(err.data, dict) and err.data.get("term_id"):
                return int(err.data["term_id"]), False  # the same name under another slug (the default category)
            raise
        if parent_slug and taxonomy.hierarchical and not parent:
            self.pending.term_parents.append((created.id, taxonomy.name, parent_slug))
        values = {key: maybe_unserialize(value) for key, value in meta if key}
        if values:
            conn.execute(sa.update(terms_table).where(terms_table.c.id == created.id).values(meta=values))
        return created.id, True

    def _item_terms(self, conn: sa.Connection, post: Post, taxonomies: Iterable[str]) -> dict[str, list[int]]:
        own = set(taxonomies)
        found: dict[str, list[int]] = {}
        for term in post.terms:
            taxonomy = self._taxonomy(term.taxonomy)
            if taxonomy is None or taxonomy.name not in own:
                continue
            term_id, _ = self._find_or_create_term(conn, taxonomy, term.slug, term.name)
            found.setdefault(taxonomy.name, []).append(term_id)
        return found

    # -- items -----------------------------------------------------------------------------------

    def _post(self, post: Post) -> None:
        kind = TYPE_NAMES.get(post.type, post.type)
        label = f"Item {post.id} ({post.type or 'no type'}, line {post.line})"
        if post.too_large:
            self.summary.count(kind or "item", "failed")
            self._problem(f"{label}: it holds more text than an item may; not imported.")
            return
        if kind == menus.ITEM_TYPE and kind in self.registry.types:
            self._menu_entry(post, label)
            return
        if kind not in IMPORTED_TYPES or kind not in self.registry.types:
            self.summary.count(kind or "item", "skipped")
            self._problem(f"{label}: the type {post.type!r} is not imported; skipped.")
            return
        if post.status == "auto-draft":
            self.summary.count(kind, "skipped")
            return
        global_id = self.prefix + str(post.id) if post.id else ""
        existing = self._existing(global_id)
        if existing is not None:
            self.ids[post.id] = existing.id
            if existing.type == "attachment" and post.attachment_url:
                self.urls[post.attachment_url] = existing.guid
            self.summary.count(kind, "skipped")
            self._comments_of_existing(existing, post)
            return
        if kind == "attachment" and not self.fetch_attachments:
            self.summary.count(kind, "skipped")  # asked for (--skip=attachment): no problem to report
            return
        data: bytes | None = None
        if kind == "attachment":
            data = self._download(post, label)
            if data is None:
                self.summary.count(kind, "failed")
                return
        try:
            with self.site.write() as conn:
                item = self._create(conn, kind, post, global_id, data)
                added = self._add_comments(conn, item, post.comments, set())
        except (RestError, ValueError, sa.exc.IntegrityError, sa.exc.DataError) as err:
            # The item's transaction is rolled back whole; a value the database refuses (a field
            # longer than its column) fails this item only.
            self.summary.count(kind, "failed")
            message = err.message if isinstance(err, RestError) else str(err) if isinstance(err, ValueError) else (
                "the database refused a value (" + type(err.orig).__name__ + ")")
            self._problem(f"{label} {post.title[:60]!r}: {message.rstrip('.')}; not imported.")
            return
        if post.id:
            self.ids[post.id] = item.id
        self.summary.created_ids.append(item.id)
        self.summary.count(kind, "created")
        if added:
            self.summary.count("comment", "created", added)

    def _existing(self, global_id: str) -> Item | None:
        if not global_id:
            return None
        with self.site.read() as conn:
            key = imports.global_id_column(conn)
            found = conn.execute(sa.select(posts.c.id).where(key == global_id).order_by(posts.c.id).limit(1)).scalar()
            return item_service.get_item(conn, found) if found is not None else None

    def _download(self, post: Post, label: str) -> bytes | None:
        url = post.attachment_url.strip()
        if not url:
            self._problem(f"{label}: an attachment without attachment_url; not imported.")
            return None
        try:
            answer = self.site.http.get(url, max_bytes=MAX_ATTACHMENT_BYTES)
        except net.OutboundError as err:
            self._problem(f"{label}: the file {url} could not be fetched: {err}; not imported.")
            return None
        if answer.status != 200:
            self._problem(f"{label}: the file {url} answered HTTP {answer.status}; not imported.")
            return None
        return answer.content

    def _author_of(self, post: Post) -> int:
        return self.authors.get(post.creator.strip(), self.user_id)

    def _mapped(self, old_id: int) -> int | None:
        return self.ids.get(old_id) if old_id else None

    def _base_changes(self, post: Post, kind: str) -> ItemChanges:
        local, utc = _date(post.date), _date(post.date_gmt)
        status = post.status if post.status in self.registry.statuses else "draft"
        if kind == "attachment":
            status = "inherit" if status not in ("private", "trash") else status
        changes = ItemChanges(
            title=post.title, content=post.content, excerpt=post.excerpt, status=status, slug=post.slug or None,
            password=post.password or None, author=self._author_of(post), menu_order=post.menu_order,
            comment_status=post.comment_status if post.comment_status in ("open", "closed") else None,
            ping_status=post.ping_status if post.ping_status in ("open", "closed") else None,
            sticky=post.sticky if kind == "post" else None,
        )
        if local is not None or utc is not None:
            changes.date = (local, utc)  # type: ignore[assignment]  # _save fills a missing local time
        if post.guid and kind != "attachment":
            changes.guid = post.guid[:255]
        formats = [t.slug.removeprefix("post-format-") for t in post.terms
                   if t.taxonomy == "post_format" and t.slug.startswith("post-format-")]
        if formats and kind == "post":
            changes.format = formats[0]  # WordPress keeps a post's format as a term of post_format
        return changes

    def _create(self, conn: sa.Connection, kind: str, post: Post, global_id: str, data: bytes | None) -> Item:
        parent = self._mapped(post.parent)
        image_old = _int_text(post.meta_value("_thumbnail_id"))
        image = self._mapped(image_old)
        if kind == EVENT_TYPE:
            item = self._create_event(conn, post, parent, image)
        else:
            changes = self._base_changes(post, kind)
            changes.parent = parent or 0
            changes.featured_media = image
            content_type = self.registry.types[kind]
            if kind in (VENUE_TYPE, ORGANIZER_TYPE):
                changes.meta = linked_meta(kind, self._linked(kind, post))
            else:
                changes.terms = self._item_terms(conn, post, (t.name for t in self.registry.taxonomies_for_type(kind)))
                changes.terms_checked = True
            if kind == "attachment":
                assert data is not None
                new_id = self._store_file(conn, post, data, changes)
                created = item_service.get_item(conn, new_id)
                assert created is not None
                changes.status = None
                item = item_service.update_item(conn, self.ctx, created, changes, store_revision=False)
                self.urls[post.attachment_url] = item.guid
            else:
                item = item_service.create_item(conn, self.ctx, content_type, changes)
        if post.parent and parent is None:
            self.pending.parents.append((item.id, post.id, post.parent))
        if image_old and image is None:
            self.pending.images.append((item.id, post.id, image_old))
        item_service.merge_meta(conn, item.id, {GLOBAL_ID_KEY: global_id or None, **self._kept_meta(post, kind)})
        return item

    def _store_file(self, conn: sa.Connection, post: Post, data: bytes, changes: ItemChanges) -> int:
        """The attachment's file stored as an upload of it would be: checked by type (what the
        media endpoint refuses is refused here), images with their sub-sizes."""
        name = uploads.sanitize_file_name(_file_name(post.attachment_url))
        try:
            found = uploads.detect(data[:8192], name)
        except uploads.UploadRejected as err:
            raise ValueError(f"the file {name} was refused: {err.message}") from None
        author, parent = changes.author or 0, changes.parent or 0
        if found.mime in RESIZED_TYPES:
            return create_attachment(conn, self.ctx, self.site.storage, data, found.proper_name, author=author, parent=parent)
        return create_file_attachment(conn, self.ctx, self.site.storage, data, found.proper_name, found.mime,
                                      title=post.title, author=author, parent=parent)

    def _kept_meta(self, post: Post, kind: str) -> dict[str, Any]:
        """The item's other meta, stored as WordPress held it (serialized values read back)."""
        consumed = set(_DROPPED_KEYS)
        if kind == EVENT_TYPE:
            consumed |= _EVENT_KEYS
        elif kind in (VENUE_TYPE, ORGANIZER_TYPE):
            consumed |= {f.meta_key for f in kind_of(kind).fields}
        rows: dict[str, list[Any]] = {}
        for key, value in post.meta:
            if key and key not in consumed:
                rows.setdefault(key, []).append(maybe_unserialize(value))
        # Several rows of one key: a multi-valued key, kept as the list of its values.
        return {key: values[0] if len(values) == 1 else values for key, values in rows.items()}

    def _linked(self, kind: str, post: Post) -> LinkedInput:
        fields = kind_of(kind)
        values = {f.name: post.meta_value(f.meta_key) or "" for f in fields.values if post.meta_value(f.meta_key) is not None}
        for f in fields.values:
            if f.check is not None and f.name in values and not f.check(values[f.name]):
                # An organizer e-mail that is no address (a line break in it would break every
                # .ics export of its events): left out, as the REST routes refuse it.
                self._problem(f"Item {post.id} ({post.type}, line {post.line}): its {f.name} {values.pop(f.name)!r} "
                              "is not valid; left out.")
        flags = {f.name: truthy(post.meta_value(f.meta_key)) for f in fields.flags if post.meta_value(f.meta_key) is not None}
        return LinkedInput(title=post.title, description=post.content, excerpt=post.excerpt, fields=values, flags=flags)

    def _create_event(self, conn: sa.Connection, post: Post, parent: int | None, image: int | None) -> Item:
        base = self._base_changes(post, EVENT_TYPE)
        start, end = post.meta_value("_EventStartDate"), post.meta_value("_EventEndDate")
        if not start:
            raise ValueError("an event without _EventStartDate")
        zone = post.meta_value("_EventTimezone") or ""
        venues = [i for i in map(_int_text, post.meta_values("_EventVenueID")) if i]
        organizers = [i for i in map(_int_text, post.meta_values("_EventOrganizerID")) if i]
        new_venues = [self.ids[i] for i in venues if i in self.ids]
        new_organizers = [self.ids[i] for i in organizers if i in self.ids]
        cost = post.meta_value("_EventCost")
        data = EventInput(
            title=base.title, description=base.content, excerpt=base.excerpt, slug=base.slug, author=base.author,
            date=base.date, status=base.status, parent=parent or 0, start=start, end=end or start,
            timezone=zone if zone and valid_timezone(zone) else None,
            all_day=truthy(post.meta_value("_EventAllDay") or False),
            image=image, cost=[cost] if cost else None, website=post.meta_value("_EventURL"),
            show_map=truthy(post.meta_value("_EventShowMap") or False),
            show_map_link=truthy(post.meta_value("_EventShowMapLink") or False),
            hide_from_listings=truthy(post.meta_value("_EventHideFromUpcoming") or False),
            sticky=post.menu_order == -1, featured=truthy(post.meta_value("_tribe_featured") or False),
            venues=new_venues, organizers=new_organizers,
            # As the other types keep them (_base_changes): a protected event stays protected, a
            # closed discussion closed.
            password=base.password, comment_status=base.comment_status, ping_status=base.ping_status,
        )
        terms = self._item_terms(conn, post, (CATEGORY_TAXONOMY, "post_tag"))
        data.categories = terms.get(CATEGORY_TAXONOMY, [])
        data.tags = terms.get("post_tag", [])
        item, _ = write_event(conn, self.ctx, data)
        if len(new_venues) < len(venues) or len(new_organizers) < len(organizers):
            self.pending.links.append((item.id, post.id, venues, organizers))
        return item

    # -- comments --------------------------------------------------------------------------------

    def _comments_of_existing(self, item: Item, post: Post) -> None:
        if not post.comments:
            return
        with self.site.write() as conn:
            rows = conn.execute(sa.select(comments_table.c.id, comments_table.c.meta)
                                .where(comments_table.c.post_id == item.id)).all()
            known = {str((row.meta or {}).get(COMMENT_ID_KEY)): row.id for row in rows}
            added = self._add_comments(conn, item, post.comments, known)
        if added:
            self.summary.count("comment", "created", added)
        if len(post.comments) > added:
            self.summary.count("comment", "skipped", len(post.comments) - added)

    def _add_comments(self, conn: sa.Connection, item: Item, found: list[Comment], known: dict[str, int] | set[str]) -> int:
        """Insert the comments not made before (``known``: the file's comment ids already here,
        mapped to their new ids), parents before replies. Returns how many were inserted."""
        ids = dict(known) if isinstance(known, dict) else {}
        waiting = [c for c in found if str(c.id) not in ids]
        added = 0
        while waiting:
            later = [c for c in waiting if c.parent and str(c.parent) not in ids and any(str(o.id) == str(c.parent) for o in waiting)]
            for comment in waiting:
                if comment in later:
                    continue
                status = _COMMENT_STATUSES.get(comment.approved.strip(), "hold")
                local, utc = _date(comment.date), _date(comment.date_gmt)
                when = utc or (item_service.to_utc(local, self.ctx.zone) if local else None)
                values = {
                    "post_id": item.id, "parent": ids.get(str(comment.parent), 0) if comment.parent else 0,
                    "author": self.user_ids.get(comment.user_id) if comment.user_id else None,
                    "author_name": comment.author[:245], "author_email": comment.author_email[:100],
                    "author_url": comment.author_url[:200], "author_ip": comment.author_ip[:100],
                    "content": comment.content,
                    "status": status, "type": comment.type or "comment",
                    "meta": {COMMENT_ID_KEY: str(comment.id),
                             **{k: maybe_unserialize(v) for k, v in comment.meta if k}},
                }
                stored = comment_store.insert_comment(conn, self.ctx, values, when, local if when is not None else None)
                ids[str(comment.id)] = stored.id
                added += 1
            if len(later) == len(waiting):
                break  # a loop of replies: impossible in a real export
            waiting = later
        return added

    # -- menus -----------------------------------------------------------------------------------

    def _menu_entry(self, post: Post, label: str) -> None:
        """A menu entry, as WordPress's importer takes one (process_menu_item): drafts and
        entries of no menu are skipped; what it points at and the entry it nests under are
        mapped to their new ids; an entry whose object comes later waits for the end."""
        kind = menus.ITEM_TYPE
        if post.status == "draft" or post.status == "auto-draft":
            self.summary.count(kind, "skipped")
            return
        slug = next((term.slug for term in post.terms if term.taxonomy == menus.MENU_TAXONOMY), "")
        with self.site.read() as conn:
            menu = term_store.get_term_by_slug(conn, menus.MENU_TAXONOMY, slug) if slug else None
        if menu is None:
            self.summary.count(kind, "skipped")
            self._problem(f"{label}: it is in no menu of the file; skipped." if not slug else
                          f"{label}: its menu {slug!r} is not in the file; skipped.")
            return
        global_id = f"{self.prefix}{post.id}@{menu.slug}" if post.id else ""
        existing = self._existing(global_id)
        if existing is not None:
            self.menu_ids[(menu.id, post.id)] = existing.id
            self.summary.count(kind, "skipped")
            return
        meta: dict[str, Any] = {}
        for key, value in post.meta:
            meta.setdefault(key, maybe_unserialize(value))
        classes = meta.get("_menu_item_classes")
        fields = menus.EntryFields(
            menu_id=menu.id, object=_plain(meta.get("_menu_item_object")), position=post.menu_order,
            type=_plain(meta.get("_menu_item_type")) or "custom", title=post.title, url=_plain(meta.get("_menu_item_url")),
            description=post.content, attr_title=post.excerpt, target=_plain(meta.get("_menu_item_target")),
            classes=[str(c) for c in classes] if isinstance(classes, list) else _plain(classes).split(),
            xfn=_plain(meta.get("_menu_item_xfn")).split(), status=post.status,
        )
        entry = _MenuEntry(post.id, global_id, label, fields, _int_text(meta.get("_menu_item_object_id")),
                           _int_text(meta.get("_menu_item_menu_item_parent")))
        if not self._create_menu_entry(entry):
            self.pending.menu_entries.append(entry)

    def _create_menu_entry(self, entry: _MenuEntry, *, last_try: bool = False) -> bool:
        """Create ``entry`` when its object is here; False when it is not (yet)."""
        kind, fields = menus.ITEM_TYPE, entry.fields
        if fields.type == "taxonomy":
            found = self.term_ids.get(entry.old_object_id)
        elif fields.type == "post_type":
            found = self.ids.get(entry.old_object_id)
        else:
            found = 0  # custom links point at themselves; archives at their type
        if found is None:
            if last_try:
                self.summary.count(kind, "skipped")
                self._problem(f"{entry.label}: it points at {fields.type} {entry.old_object_id}, which was not imported; skipped.")
            return False
        fields.object_id = found
        fields.parent = self.menu_ids.get((fields.menu_id, entry.old_parent), 0)
        try:
            with self.site.write() as conn:
                created = menus.save_entry(conn, self.ctx, fields)
                item_service.merge_meta(conn, created.id, {GLOBAL_ID_KEY: entry.global_id or None})
        except (RestError, ValueError, sa.exc.IntegrityError, sa.exc.DataError) as err:
            self.summary.count(kind, "failed")
            self._problem(f"{entry.label}: {err.message if isinstance(err, RestError) else err}; not imported.")
            return True
        if entry.post_id:
            self.menu_ids[(fields.menu_id, entry.post_id)] = created.id
        if entry.old_parent and not fields.parent:
            self.pending.menu_parents.append((created.id, fields.menu_id, entry.old_parent))
        self.summary.created_ids.append(created.id)
        self.summary.count(kind, "created")
        return True

    def _retry_menu_entries(self) -> None:
        """Entries whose object came later, then the parents of entries whose parent did (the
        WordPress importer's backfill_parents)."""
        waiting, self.pending.menu_entries = self.pending.menu_entries, []
        for entry in waiting:
            self._create_menu_entry(entry, last_try=True)
        orphans, self.pending.menu_parents = self.pending.menu_parents, []
        if not orphans:
            return
        with self.site.write() as conn:
            for entry_id, menu_id, old_parent in orphans:
                parent = self.menu_ids.get((menu_id, old_parent))
                if parent is not None:
                    self._change(conn, entry_id, ItemChanges(protected_meta={"_menu_item_menu_item_parent": str(parent)}))

    # -- the end ---------------------------------------------------------------------------------

    def _resolve_pending(self) -> None:
        pending = self.pending
        if not (pending.parents or pending.images or pending.links or pending.term_parents):
            return
        with self.site.write() as conn:
            for item_id, old_id, old in pending.parents:
                new = self.ids.get(old)
                if new is not None:
                    self._change(conn, item_id, ItemChanges(parent=new))
                else:
                    self._problem(f"Item {old_id} (now {item_id}) names parent {old}, which was not imported; left without.")
            for item_id, old_id, old in pending.images:
                new = self.ids.get(old)
                if new is not None:
                    self._change(conn, item_id, ItemChanges(featured_media=new))
                else:
                    self._problem(f"Item {old_id} (now {item_id}) names featured image {old}, which was not imported; "
                                  "left without.")
            for event_id, old_id, venues, organizers in pending.links:
                set_event_links(conn, event_id, venues=[self.ids[i] for i in venues if i in self.ids],
                                organizers=[self.ids[i] for i in organizers if i in self.ids])
                missing = [i for i in [*venues, *organizers] if i not in self.ids]
                if missing:
                    self._problem(f"Event {old_id} (now {event_id}) names venues or organizers {missing}, "
                                  "which were not imported.")
            for term_id, taxonomy, parent_slug in pending.term_parents:
                above = term_store.get_term_by_slug(conn, taxonomy, parent_slug)
                if above is not None:
                    conn.execute(sa.update(terms_table).where(terms_table.c.id == term_id).values(parent=above.id))
        self.pending = _Pending()

    def _rewrite_urls(self) -> None:
        """Attachment addresses of the old site in the content of the items made, replaced by the
        new files' (longest first, so that a size's address is not cut by its original's)."""
        changed = {old: new for old, new in self.urls.items() if old and new and old != new}
        if not changed or not self.summary.created_ids:
            return
        olds = sorted(changed, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(o) for o in olds))
        ids = self.summary.created_ids
        for start in range(0, len(ids), 200):
            with self.site.write() as conn:
                for item in item_service.get_items(conn, ids[start:start + 200]).values():
                    content = pattern.sub(lambda m: changed[m.group(0)], item.content or "")
                    excerpt = pattern.sub(lambda m: changed[m.group(0)], item.excerpt or "")
                    if content != item.content or excerpt != item.excerpt:
                        self._change(conn, item.id, ItemChanges(content=content, excerpt=excerpt))


def _int_text(value: Any) -> int:
    text = _plain(value).strip()
    return int(text) if text.isdigit() else 0


def _file_name(url: str) -> str:
    name = PurePosixPath(unquote(urlsplit(url).path)).name
    return name or "file"


def import_wxr(site: Any, stream: BinaryIO, *, user_id: int, authors: str = "create", fetch_attachments: bool = True,
               source: str = "", progress: Callable[[int], None] | None = None,
               log: Callable[[str], None] | None = None) -> ImportSummary:
    """Import the WXR file ``stream`` into ``site`` as user ``user_id``; see the module docstring."""
    run = WxrImport(site, user_id=user_id, authors=authors, fetch_attachments=fetch_attachments, source=source, log=log)
    summary = run.run(stream, progress=progress)
    count_import(site, "wxr", summary.counts.get(EVENT_TYPE, {}).get("created", 0))
    return summary
