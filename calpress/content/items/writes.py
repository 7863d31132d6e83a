"""Writing items, following the reference's wp_insert_post: ``create_item`` and ``update_item``
(dates, statuses, slugs, meta, terms, revisions), the trash and deletion, sticky posts, the checks
of referenced records, and the lazy publication of scheduled items (``publish_due_items``).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from ...auth.users import get_user
from ...compat.kses import kses_post, kses_title
from ...rest.errors import RestError
from ...store import options as store_options
from ...store.changes import record as record_change
from ...store.fast import FastQuery
from ...store.tables import posts
from .. import object_terms
from .. import terms as term_store
from ..slugs import sanitize_title, truncate_slug
from ..taxonomies import DEFAULT_CATEGORY_ID
from ..types import ContentType, default_comment_status
from .permalinks import SLUGLESS_STATUSES, permalink, remember_slug, unique_item_slug
from .record import (
    DESIRED_SLUG_KEY,
    FORMAT_KEY,
    HIERARCHY_LIMIT,
    TEMPLATE_KEY,
    THUMBNAIL_KEY,
    TRASH_STATUS_KEY,
    TRASH_TIME_KEY,
    Context,
    Item,
    get_item,
    int_list,
    lock_item,
    now_utc,
    to_local,
    to_utc,
)
from .relations import page_uris

if TYPE_CHECKING:
    from ..registry import ContentRegistry


# The statuses an attachment may have of its own; any other becomes ``inherit``.
ATTACHMENT_STATUSES = frozenset({"inherit", "private", "trash", "auto-draft"})


class ItemError(RestError):
    """An item could not be written; ``code``, message and status are the reference's."""


# -- writing --------------------------------------------------------------------------------------


@dataclass
class ItemChanges:
    """What a create or an update asks for. Fields left None keep their value (or take the
    default on create). ``date`` is (local, utc); ``reset_date`` makes the date float again.
    ``meta`` holds registered keys (None deletes one); ``terms`` maps taxonomy -> term ids.
    ``unique_draft_slug``: a draft's given slug is made unique as if published (the REST API
    does so, so that the returned slug is the one publishing would keep).

    What attachments need besides: ``mime_type``; ``guid``, the GUID given at creation (an
    attachment's is the address of its file; other items get their permalink, and a GUID never
    changes afterwards); ``protected_meta``, keys of the calling service's own (``_``-prefixed,
    the reference's protected meta, such as ``_wp_attached_file``), stored as given, unlike
    ``meta`` (None deletes one)."""

    title: str | None = None
    content: str | None = None
    excerpt: str | None = None
    status: str | None = None
    slug: str | None = None
    password: str | None = None
    author: int | None = None
    parent: int | None = None
    menu_order: int | None = None
    comment_status: str | None = None
    ping_status: str | None = None
    date: tuple[dt.datetime, dt.datetime] | None = None
    reset_date: bool = False
    featured_media: int | None = None
    template: str | None = None
    format: str | None = None
    sticky: bool | None = None
    meta: dict[str, Any] | None = None
    terms: dict[str, list[int]] = field(default_factory=dict)
    # The ids in ``terms`` were just looked up as terms of their taxonomies: not checked again.
    terms_checked: bool = False
    unique_draft_slug: bool = False
    mime_type: str | None = None
    guid: str | None = None
    protected_meta: dict[str, Any] | None = None


def check_author(conn: sa.Connection, author_id: int) -> None:
    """Raise ``rest_invalid_author`` unless user ``author_id`` exists."""
    if get_user(conn, author_id) is None:
        raise ItemError("rest_invalid_author", "Invalid author ID.", status=400)


def check_parent(conn: sa.Connection, parent_id: int) -> None:
    """Raise ``rest_post_invalid_id`` unless item ``parent_id`` exists."""
    if get_item(conn, parent_id) is None:
        raise ItemError("rest_post_invalid_id", "Invalid post parent ID.", status=400)


def check_featured_media(conn: sa.Connection, media_id: int) -> None:
    """Raise ``rest_invalid_featured_media`` unless ``media_id`` is an image attachment."""
    media = get_item(conn, media_id)
    if media is None or media.type != "attachment" or not media.mime_type.startswith("image/"):
        raise ItemError("rest_invalid_featured_media", "Invalid featured media ID.", status=400)


def _check_parent(conn: sa.Connection, item_id: int, parent: int) -> int:
    """``parent``, or 0 when it would make the item its own ancestor (the reference's
    wp_check_post_hierarchy_for_loops: such a parent is dropped, not refused)."""
    if not parent or not item_id:
        return parent
    if parent == item_id:
        return 0
    start = sa.select(posts.c.id, posts.c.parent, sa.literal_column("0").label("depth")).where(posts.c.id == parent)
    chain = start.cte("parents", recursive=True)
    up = posts.alias("up")
    chain = chain.union_all(
        sa.select(up.c.id, up.c.parent, (chain.c.depth + 1).label("depth"))
        .join(chain, up.c.id == chain.c.parent)
        .where(chain.c.parent != 0, chain.c.depth < HIERARCHY_LIMIT)
    )
    found = conn.execute(sa.select(chain.c.id).where(chain.c.id == item_id).limit(1)).first()
    return 0 if found else parent


def filter_markup(ctx: Context, title: str, content: str, excerpt: str) -> tuple[str, str, str]:
    """Users without ``unfiltered_html`` have their markup filtered on every save, as the
    reference's kses filters do (on the merged fields, so an edit of the title of a post whose
    content was written by an administrator filters that content too)."""
    if ctx.can("unfiltered_html"):
        return title, content, excerpt
    return kses_title(title), kses_post(content), kses_post(excerpt)


def _meta_value(field_: Any, value: Any) -> Any:
    if not field_.single:
        return list(value) if isinstance(value, (list, tuple)) else [value]
    return value


def _apply_meta(meta: dict[str, Any], registry: ContentRegistry, content_type: ContentType, changes: ItemChanges) -> dict[str, Any]:
    meta = dict(meta)
    if changes.featured_media is not None:
        if changes.featured_media:
            meta[THUMBNAIL_KEY] = int(changes.featured_media)
        else:
            meta.pop(THUMBNAIL_KEY, None)
    if changes.template is not None:
        if changes.template:
            meta[TEMPLATE_KEY] = changes.template
        else:
            meta.pop(TEMPLATE_KEY, None)
    if changes.format:
        if changes.format == "standard":
            meta.pop(FORMAT_KEY, None)
        else:
            meta[FORMAT_KEY] = changes.format
    for name, value in (changes.protected_meta or {}).items():
        if not name.startswith("_"):
            raise ValueError(f"{name!r} is no protected meta key: registered keys go through ItemChanges.meta")
        if value is None:
            meta.pop(name, None)
        else:
            meta[name] = value
    if changes.meta:
        fields = registry.registered_meta(content_type)
        for name, value in changes.meta.items():
            field_ = fields.get(name)
            if field_ is None:
                continue  # unregistered keys are ignored
            if value is None or (value == [] and not field_.single):
                meta.pop(name, None)
            else:
                meta[name] = _meta_value(field_, value)
    return meta


# The statements of every save, built once, with the columns a save writes; the row comes back as
# stored (RETURNING), without a second read. Run on the driver (FastQuery): through SQLAlchemy's
# execution the INSERT cost several times its time in the database, inside the write transaction.
_WRITTEN = ("type", "status", "author", "parent", "menu_order", "slug", "title", "content", "excerpt", "password",
            "date_local", "date_utc", "modified_local", "modified_utc", "comment_status", "ping_status", "mime_type", "meta")


def _value_binds(names: tuple[str, ...]) -> dict[str, Any]:
    # "v_": a bind may not take the name of a column the statement writes
    return {name: sa.bindparam(f"v_{name}", type_=posts.c[name].type) for name in names}


def _bound(values: dict[str, Any], **more: Any) -> dict[str, Any]:
    """_INSERT_ROW's and _UPDATE_ROW's parameters for these column values (and ``more`` as named)."""
    return {**{f"v_{name}": value for name, value in values.items()}, **more}


_INSERT_ROW = FastQuery(sa.insert(posts).values(_value_binds((*_WRITTEN, "guid", "comment_count"))).returning(*posts.c))
_UPDATE_ROW = FastQuery(
    sa.update(posts).where(posts.c.id == sa.bindparam("item_id", type_=posts.c.id.type)).values(_value_binds(_WRITTEN)).returning(*posts.c)
)
_UPDATE = sa.update(posts).where(posts.c.id == sa.bindparam("item_id"))


def _address_without_id(ctx: Context, values: dict[str, Any]) -> str:
    """The address a new item will have, when it does not hold the item's id (a pretty
    permalink): its GUID, written with the row instead of by a second statement. Empty when the
    address names the id (``?p=N``, ``%post_id%``)."""
    draft = Item(id=0, guid="", comment_count=0, **values)
    address = permalink(ctx, draft)
    draft.id = 2**62
    return address if permalink(ctx, draft) == address else ""


@dataclass(frozen=True)
class Prepared:
    """A save worked out before its transaction (:func:`prepare_create`): the row's values (the
    slug not yet made unique) for these ``changes``."""

    changes: ItemChanges
    values: dict[str, Any]
    previous_status: str


def prepare_create(ctx: Context, content_type: ContentType, changes: ItemChanges) -> Prepared:
    """The work of creating an item that needs no database (its markup filtered, its slug made
    from its title, its dates, status and meta worked out), for :func:`create_item` to take
    inside the transaction: on SQLite all of a transaction runs in the site's one writer's
    turn, and this work took about a fifth of a post create's time there. Raises ItemError
    (``empty_content``)."""
    return _work_out(ctx, content_type, changes, None)


def _work_out(ctx: Context, content_type: ContentType, changes: ItemChanges, before: Item | None) -> Prepared:
    """What a save of ``changes`` writes, from them and the item before (None: a new item), up to
    what needs the database: the parent's check (an update's) and the slug's uniqueness. Raises
    ItemError (``empty_content``)."""
    zone = ctx.zone
    now = now_utc()
    creating = before is None

    def pick(value: Any, attribute: str, default: Any) -> Any:
        if value is not None:
            return value
        return getattr(before, attribute) if before is not None else default

    title = pick(changes.title, "title", "")
    content = pick(changes.content, "content", "")
    excerpt = pick(changes.excerpt, "excerpt", "")
    if (
        content_type.name != "attachment"
        and not content
        and not title
        and not excerpt
        and all(content_type.supports_feature(f) for f in ("editor", "title", "excerpt"))
    ):
        raise ItemError("empty_content", "Content, title, and excerpt are empty.", status=400)
    title, content, excerpt = filter_markup(ctx, title, content, excerpt)

    previous_status = before.status if before is not None else "new"
    status = changes.status or (before.status if before is not None else content_type.default_status)
    if content_type.name == "attachment" and status not in ATTACHMENT_STATUSES:
        status = "inherit"  # an attachment takes its parent's status (the reference's wp_insert_post)
    author = pick(changes.author, "author", ctx.user_id)
    parent = int(pick(changes.parent, "parent", 0) or 0)
    menu_order = int(pick(changes.menu_order, "menu_order", 0) or 0)
    password = pick(changes.password, "password", "")
    mime_type = pick(changes.mime_type, "mime_type", "")
    comment_status = changes.comment_status or (
        before.comment_status if before is not None else default_comment_status(content_type, "comment", ctx.options)
    )
    ping_status = changes.ping_status or (
        before.ping_status if before is not None else default_comment_status(content_type, "ping", ctx.options)
    )
    meta = _apply_meta(before.meta if before is not None else {}, ctx.registry, content_type, changes)

    # Slug: given, kept, or (for what is not a draft) made from the title.
    slug = changes.slug if changes.slug is not None else (before.slug if before is not None else "")
    if status == "pending":
        can_publish = ctx.can(content_type.caps["publish_posts"]) if creating else ctx.can("publish_post", before)
        if not can_publish:
            slug = ""  # a contributor's pending item waits for its slug until it is published
    if not slug:
        slug = "" if status in SLUGLESS_STATUSES else sanitize_title(title)
    else:
        slug = sanitize_title(slug)

    # Dates (cms-api.md 2.7).
    if changes.reset_date:
        date_local, date_utc = None, None
    elif changes.date is not None:
        date_local, date_utc = changes.date
    elif before is not None:
        date_local, date_utc = before.date_local, before.date_utc
        if before.status in SLUGLESS_STATUSES and before.date_utc is None:
            date_local, date_utc = to_local(now, zone), None  # a floating draft takes the time of its save
    else:
        date_local, date_utc = None, None
    if date_local is None:
        date_local = to_local(date_utc, zone) if date_utc is not None else to_local(now, zone)
    status_definition = ctx.registry.statuses.get(status)
    if date_utc is None and not (status_definition is not None and status_definition.date_floating):
        date_utc = to_utc(date_local, zone)
    if creating and date_utc is not None:
        modified_local, modified_utc = date_local, date_utc  # a new item was last modified when it is dated
    else:
        modified_local, modified_utc = to_local(now, zone), now
    if content_type.name != "attachment" and date_utc is not None:
        ahead = (date_utc - now).total_seconds()
        if status == "publish" and ahead >= 60:
            status = "future"
        elif status == "future" and ahead < 60:
            status = "publish"
    if status == "private":
        password = ""

    # The trash keeps the slug aside so that other items may take it meanwhile.
    if previous_status == "trash" and status != "trash":
        desired = meta.pop(DESIRED_SLUG_KEY, None)
        if desired:
            slug = str(desired)
        meta.pop(TRASH_STATUS_KEY, None)
        meta.pop(TRASH_TIME_KEY, None)
    if status == "trash" and previous_status not in ("trash", "new"):
        if not slug.endswith("__trashed"):
            meta[DESIRED_SLUG_KEY] = slug
            slug = truncate_slug(slug, 191) + "__trashed"

    values = {
        "type": content_type.name,
        "status": status,
        "author": author or None,
        "parent": parent,
        "menu_order": menu_order,
        "slug": slug,
        "title": title,
        "content": content,
        "excerpt": excerpt,
        "password": password,
        "date_local": date_local,
        "date_utc": date_utc,
        "modified_local": modified_local,
        "modified_utc": modified_utc,
        "comment_status": comment_status,
        "ping_status": ping_status,
        "mime_type": mime_type,
        "meta": meta,
    }
    return Prepared(changes, values, previous_status)


def _save(
    conn: sa.Connection,
    ctx: Context,
    content_type: ContentType,
    changes: ItemChanges,
    before: Item | None,
    *,
    store_revision: bool = True,
    prepared: Prepared | None = None,
) -> Item:
    """The reference's wp_insert_post, for a new item (``before`` None) or an existing one; an
    update also stores a revision when something revisioned changed (``store_revision``).
    ``prepared``: :func:`prepare_create`'s work for these changes, done before the transaction."""
    creating = before is None
    if prepared is None or prepared.changes is not changes or not creating:
        prepared = _work_out(ctx, content_type, changes, before)
    values = dict(prepared.values)
    previous_status = prepared.previous_status
    if content_type.hierarchical and before is not None:
        values["parent"] = _check_parent(conn, before.id, values["parent"])
    status, slug, parent = values["status"], values["slug"], values["parent"]

    item_id = before.id if before is not None else 0
    current_slug = before.slug if before is not None else ""
    if slug and (status not in SLUGLESS_STATUSES or (changes.unique_draft_slug and changes.slug)):
        slug = unique_item_slug(
            conn, ctx, content_type, slug, item_id=item_id, parent=parent,
            status="publish" if status in SLUGLESS_STATUSES else status, current_slug=current_slug,
        )

    values["slug"] = slug
    # The row comes back as stored (RETURNING), without a second read.
    if creating:
        guid = changes.guid or ""
        if not guid and not content_type.hierarchical and (slug or status in SLUGLESS_STATUSES):
            guid = _address_without_id(ctx, values)  # else set once the id is known, below
        row = _INSERT_ROW.rows(conn, _bound({**values, "guid": guid, "comment_count": 0}))[0]
    else:
        row = _UPDATE_ROW.rows(conn, _bound(values, item_id=item_id))[0]
    item = Item.from_row(row)
    item_id = item.id
    remember_slug(conn, item)
    action = "create" if creating else ("trash" if status == "trash" and previous_status != "trash" else "update")
    record_change(conn, "item", action, item_id)

    followup: dict[str, Any] = {}
    if not item.slug and item.status not in SLUGLESS_STATUSES:
        # No title to make a slug of: the reference falls back to the id.
        followup["slug"] = unique_item_slug(
            conn, ctx, content_type, sanitize_title(item.title, str(item.id)), item_id=item.id,
            parent=item.parent, status=item.status, current_slug=item.slug,
        )
        item.slug = followup["slug"]
        remember_slug(conn, item)
    if creating and not item.guid:
        # The GUID is the address at creation and never changes (cms-api.md 2.5).
        uri = page_uris(conn, [item]).get(item.id) if content_type.hierarchical else None
        followup["guid"] = item.guid = permalink(ctx, item, uri=uri)
    if followup:
        conn.execute(_UPDATE, {**followup, "item_id": item.id})

    _save_terms(conn, ctx, content_type, item, changes, creating)
    if item.status == "publish" and previous_status != "publish":
        for hook in ctx.registry.publish_hooks:
            hook(conn, ctx, item)
    if not creating and (previous_status == "publish") != (item.status == "publish"):
        object_terms.recount_objects(conn, ctx.registry, [item.id])
    if changes.sticky is not None and content_type.name == "post" and (changes.sticky or not creating):
        set_sticky(conn, ctx, item.id, changes.sticky)  # a new item is in no sticky list to leave
    if not creating and store_revision:
        for hook in ctx.registry.update_hooks:
            hook(conn, ctx, item)
    return item


def _save_terms(
    conn: sa.Connection, ctx: Context, content_type: ContentType, item: Item, changes: ItemChanges, creating: bool
) -> None:
    own = {t.name: t for t in ctx.registry.taxonomies_for_type(content_type.name)}
    if "category" in own and item.status != "auto-draft" and "category" not in changes.terms:
        # Posts always have a category: new ones (and old ones left without) get the default.
        has_category = False
        if not creating:
            found = term_store.get_object_terms(conn, [item.id], ["category"])
            has_category = bool(found.get(item.id, {}).get("category"))
        if not has_category:
            default_id = int(ctx.options.get("default_category") or DEFAULT_CATEGORY_ID)
            term_store.ensure_default_category(conn)
            object_terms.set_object_terms(conn, own["category"], item.id, [default_id], new_object=creating,
                                        counted=object_terms.counts_in(own["category"], item.type, item.status))
    for taxonomy, term_ids in changes.terms.items():
        if taxonomy in own:
            object_terms.set_object_terms(conn, own[taxonomy], item.id, term_ids, new_object=creating,
                                        checked=changes.terms_checked, counted=object_terms.counts_in(own[taxonomy], item.type, item.status))



def create_item(
    conn: sa.Connection, ctx: Context, content_type: ContentType, changes: ItemChanges, *, prepared: Prepared | None = None
) -> Item:
    """Insert an item of ``content_type`` and its terms, meta and stickiness, in the caller's
    transaction. ``prepared``: :func:`prepare_create` for the same changes, called before the
    transaction. Raises ItemError (``empty_content``)."""
    return _save(conn, ctx, content_type, changes, None, prepared=prepared)


def update_item(
    conn: sa.Connection, ctx: Context, item: Item, changes: ItemChanges, *, store_revision: bool = True
) -> Item:
    """Apply ``changes`` to ``item`` (re-read and locked first, so that concurrent updates of
    the same item queue instead of overwriting each other's meta). ``modified`` becomes now. The
    registry's update hooks run (a revision is stored as content/revisions.py decides), unless
    ``store_revision`` is false (an autosave of a draft by its author)."""
    content_type = ctx.registry.types[item.type]
    current = lock_item(conn, item.id, item.type)
    if current is None:
        raise ItemError("rest_post_invalid_id", "Invalid post ID.", status=404)
    return _save(conn, ctx, content_type, changes, current, store_revision=store_revision)


# Days an item stays in the trash; 0 turns the trash off (the reference's EMPTY_TRASH_DAYS).
DEFAULT_TRASH_DAYS = 30


def trash_enabled(ctx: Context, content_type: ContentType) -> bool:
    """Whether items of ``content_type`` go to the trash (else they can only be deleted): the
    type allows it and the ``empty_trash_days`` option is not 0."""
    days = ctx.options.get("empty_trash_days")
    try:
        days = DEFAULT_TRASH_DAYS if days is None else int(days)
    except (TypeError, ValueError):
        days = DEFAULT_TRASH_DAYS
    return content_type.can_trash and days > 0


def trash_item(conn: sa.Connection, ctx: Context, item: Item) -> Item:
    """Move an item to the trash, remembering its status and slug (the reference's wp_trash_post),
    then run the registry's trash hooks in the same transaction, whichever route trashed it (the
    reference's ``trash_{post_type}`` action: the calendar unlinks a trashed venue or organizer
    from its events)."""
    current = lock_item(conn, item.id, item.type)
    if current is None:
        raise ItemError("rest_post_invalid_id", "Invalid post ID.", status=404)
    current.meta[TRASH_STATUS_KEY] = current.status
    current.meta[TRASH_TIME_KEY] = int(time.time())
    conn.execute(sa.update(posts).where(posts.c.id == current.id).values(meta=current.meta))
    trashed = _save(conn, ctx, ctx.registry.types[item.type], ItemChanges(status="trash"), current)
    for hook in ctx.registry.trash_hooks:
        hook(conn, ctx, trashed)
    return trashed


def delete_item(conn: sa.Connection, ctx: Context, item: Item) -> None:
    """Delete an item for good (the reference's wp_delete_post with force): its children and
    attachments move up to its parent, its revisions go, its terms are recounted, the registry's
    delete hooks run (menu entries pointing at it go) and it leaves the sticky list."""
    record_change(conn, "item", "delete", item.id)
    content_type = ctx.registry.types.get(item.type)
    if content_type is not None and content_type.hierarchical:
        conn.execute(
            sa.update(posts).where(posts.c.parent == item.id, posts.c.type == item.type).values(parent=item.parent)
        )
    conn.execute(sa.delete(posts).where(posts.c.parent == item.id, posts.c.type == "revision"))
    conn.execute(
        sa.update(posts).where(posts.c.parent == item.id, posts.c.type == "attachment").values(parent=item.parent)
    )
    names = [t.name for t in ctx.registry.taxonomies_for_type(item.type)]
    linked: list[int] = []
    if names:
        found = term_store.get_object_terms(conn, [item.id], names).get(item.id, {})
        linked = [term.id for terms_ in found.values() for term in terms_]
    conn.execute(sa.delete(posts).where(posts.c.id == item.id))  # term links go with it (cascade)
    if linked:
        object_terms.recount(conn, ctx.registry, linked)
    for hook in ctx.registry.delete_hooks:
        hook(conn, ctx.registry, "post_type", item.id, item.type)
    if item.id in ctx.sticky_ids:
        set_sticky(conn, ctx, item.id, False)


# -- sticky posts ---------------------------------------------------------------------------------


def merge_meta(conn: sa.Connection, item_id: int, values: dict[str, Any]) -> None:
    """Store ``values`` in item ``item_id``'s meta as given, whatever their keys (None removes
    one), locking the row first: what an import or the command line's ``post meta`` writes, keys
    no type registers included. Records the change, so caches follow."""
    row = conn.execute(sa.select(posts.c.meta).where(posts.c.id == item_id).with_for_update()).one_or_none()
    if row is None:
        return
    meta = dict(row.meta or {})
    for key, value in values.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    conn.execute(_UPDATE, {"meta": meta, "item_id": item_id})
    record_change(conn, "item", "update", item_id)


def set_sticky(conn: sa.Connection, ctx: Context, item_id: int, sticky: bool) -> None:
    """Add ``item_id`` to, or remove it from, the ``sticky_posts`` option (read locked, so
    that concurrent changes of the list are not lost)."""
    current = int_list(store_options.get_option(conn, "sticky_posts", [], for_update=True))
    if sticky and item_id not in current:
        ctx.set_option(conn, "sticky_posts", [*current, item_id])
    elif not sticky and item_id in current:
        ctx.set_option(conn, "sticky_posts", [i for i in current if i != item_id])


# -- scheduled items ------------------------------------------------------------------------------

# Seconds between two checks for scheduled items whose time has come, per site and process.
PUBLISH_CHECK_SECONDS = 1.0
_next_check: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
_check_lock = threading.Lock()


def publish_due_items(site: Any, *, force: bool = False) -> int:
    """Publish the ``future`` items whose date has passed; returns how many.

    There is no cron: readers call this before listings and reads. It runs at most once per
    ``PUBLISH_CHECK_SECONDS`` per site and process, and costs one indexed SELECT when nothing
    is due; the UPDATE that publishes is one statement guarded by ``status = 'future'``, so
    concurrent workers publish each item once.
    """
    now_clock = time.monotonic()
    with _check_lock:
        if not force and now_clock < _next_check.get(site, 0.0):
            return 0
        # A forced check is a check: the readers that follow within the interval skip theirs.
        _next_check[site] = now_clock + PUBLISH_CHECK_SECONDS
    now = now_utc()
    due = sa.and_(posts.c.type.in_(list(site.registry.types)), posts.c.status == "future", posts.c.date_utc <= now)
    with site.read() as conn:
        ids = conn.execute(sa.select(posts.c.id).where(due)).scalars().all()
    if not ids:
        return 0
    with site.write() as conn:
        published = conn.execute(
            sa.update(posts).where(due, posts.c.id.in_(ids)).values(status="publish").returning(posts.c.id)
        ).scalars().all()
        if published:
            object_terms.recount_objects(conn, site.registry, published)
            record_change(conn, "item", "publish", *published)
    return len(published)
