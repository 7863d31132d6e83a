"""Revisions and autosaves of content items: rows of ``posts`` of type ``revision``.

A revision is a copy of an item's title, content and excerpt (and its revisioned meta) with
status ``inherit``, the item as its parent and the slug ``{parent}-revision-v1``; an autosave is
a revision with the slug ``{parent}-autosave-v1``, one per user (cms-api.md 2.13, 2.14). The
rules are the reference's:

* ``save_revision`` (wp_save_post_revision; the registry's update hook, content/definitions.py)
  runs in the transaction of every update of an item whose type supports revisions and that is
  not an auto-draft: it stores a revision when the title, content, excerpt or revisioned meta
  differ from the latest revision that is not an autosave, or when the item has no revision yet.
  Creating an item stores none.
* ``autosave`` (the autosaves controller's create_item): the author of a draft updates the draft
  itself, without a revision; anyone else gets their own autosave, overwritten in place, and
  left alone when the sent fields equal the item's.

Callers own connections and transactions, as with the item service.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from ..store.changes import record as record_change
from ..store.tables import posts
from . import items
from .items import Context, Item, ItemChanges, ItemError, ItemPage, ItemQuery

if TYPE_CHECKING:
    from .registry import ContentRegistry

__all__ = [
    "REVISION_TYPE",
    "autosave",
    "autosave_updates_item",
    "delete_revision",
    "get_autosave",
    "get_revision",
    "is_autosave",
    "list_autosaves",
    "normalize_whitespace",
    "query_revisions",
    "revision_slug",
    "revisioned_meta_keys",
    "revisions_of",
    "save_revision",
]

REVISION_TYPE = "revision"
REVISION_FIELDS = ("title", "content", "excerpt")  # the reference's _wp_post_revision_fields
# Meta keys registered with revisions enabled (the block editor's footnotes).
REVISIONED_META = ("footnotes",)

_NEWLINES = re.compile(r"\n+")
_BLANKS = re.compile(r"[ \t]+")


def normalize_whitespace(text: str | None) -> str:
    """The reference's normalize_whitespace: trimmed, CR as LF, runs of newlines and of blanks
    collapsed, so that an editor's line-ending changes alone do not make a revision."""
    text = (text or "").strip()
    text = text.replace("\r", "\n")
    return _BLANKS.sub(" ", _NEWLINES.sub("\n", text))


def revision_slug(parent_id: int, *, autosave: bool = False) -> str:
    return f"{parent_id}-autosave-v1" if autosave else f"{parent_id}-revision-v1"


def is_autosave(revision: Item) -> bool:
    """The reference's wp_is_post_autosave."""
    return revision.type == REVISION_TYPE and f"{revision.parent}-autosave" in revision.slug


def revisioned_meta_keys(registry: ContentRegistry, content_type_name: str) -> list[str]:
    """Registered meta keys of the type that revisions carry (wp_post_revision_meta_keys)."""
    content_type = registry.types.get(content_type_name)
    if content_type is None:
        return []
    fields = registry.registered_meta(content_type)
    return [key for key in REVISIONED_META if key in fields]


def _revisioned_meta(registry: ContentRegistry, item: Item) -> dict[str, Any]:
    return {key: item.meta[key] for key in revisioned_meta_keys(registry, item.type) if key in item.meta}


# -- reading --------------------------------------------------------------------------------------


def _revisions_of(parent_id: int) -> list[Any]:
    return [posts.c.parent == parent_id, posts.c.type == REVISION_TYPE, posts.c.status == "inherit"]


def get_revision(conn: sa.Connection, revision_id: int) -> Item | None:
    """The revision ``revision_id`` (an autosave is one too), or None."""
    return items.get_item(conn, revision_id, REVISION_TYPE)


def revisions_of(conn: sa.Connection, parent_id: int) -> list[Item]:
    """Every revision of an item, autosaves included, newest first (by date, then id)."""
    stmt = sa.select(posts).where(*_revisions_of(parent_id)).order_by(posts.c.date_local.desc(), posts.c.id.desc())
    return [Item.from_row(row) for row in conn.execute(stmt)]


def query_revisions(
    conn: sa.Connection,
    parent_id: int,
    *,
    per_page: int | None = None,
    page: int = 1,
    offset: int | None = None,
    search: str = "",
    include: Sequence[int] = (),
    exclude: Sequence[int] = (),
    order: str = "desc",
    orderby: str = "date",
) -> ItemPage:
    """A page of an item's revisions (autosaves included) and their total. Without
    ``per_page`` every revision is returned and ``offset`` skips nothing, as the reference's
    unpaged WP_Query ignores it. ``orderby`` as for items (``date`` sorts by date, then id)."""
    query = ItemQuery(
        type=REVISION_TYPE,
        statuses=("inherit",),
        parents=[parent_id],
        per_page=per_page if per_page is not None else -1,
        page=page,
        offset=offset if per_page is not None else None,
        search=search,
        include=list(include),
        exclude=list(exclude),
        order=order,
        orderby=orderby,
    )
    return items.query_items(conn, query)


def get_autosave(conn: sa.Connection, parent_id: int, user_id: int | None = None) -> Item | None:
    """The latest autosave of an item, or the one of ``user_id`` (wp_get_post_autosave)."""
    stmt = sa.select(posts).where(*_revisions_of(parent_id), posts.c.slug == revision_slug(parent_id, autosave=True))
    if user_id is not None:
        stmt = stmt.where(posts.c.author == user_id)
    row = conn.execute(stmt.order_by(posts.c.date_local.desc(), posts.c.id.desc()).limit(1)).first()
    return Item.from_row(row) if row else None


def list_autosaves(conn: sa.Connection, parent_id: int) -> list[Item]:
    """Every user's autosave of an item, newest first."""
    marker = f"{parent_id}-autosave"
    return [revision for revision in revisions_of(conn, parent_id) if marker in revision.slug]


# -- writing --------------------------------------------------------------------------------------


def _insert_revision(
    conn: sa.Connection,
    ctx: Context,
    parent: Item,
    fields: Mapping[str, str],
    *,
    autosave: bool,
    meta: Mapping[str, Any],
) -> Item:
    """The reference's _wp_put_post_revision: a new revision row of ``parent`` holding
    ``fields`` as given (callers filter what the user sent). A revision is dated when its
    parent was modified; an autosave (whose data did not come from the stored item) when it is
    made."""
    zone = ctx.zone
    now = items.now_utc()
    date_local, date_utc = (items.to_local(now, zone), now) if autosave else (parent.modified_local, parent.modified_utc)
    values = {
        "type": REVISION_TYPE,
        "status": "inherit",
        "author": ctx.user_id or None,
        "parent": parent.id,
        "menu_order": 0,
        "slug": revision_slug(parent.id, autosave=autosave),
        "title": fields.get("title", ""),
        "content": fields.get("content", ""),
        "excerpt": fields.get("excerpt", ""),
        "password": "",
        "date_local": date_local,
        "date_utc": date_utc,
        "modified_local": items.to_local(now, zone),
        "modified_utc": now,
        "comment_status": "closed",
        "ping_status": "closed",
        "meta": dict(meta),
        "guid": "",
    }
    revision_id = conn.execute(sa.insert(posts).values(**values).returning(posts.c.id)).scalar_one()
    revision = items.get_item(conn, revision_id)
    assert revision is not None
    # The GUID is the revision's own (plain) address, as the reference's wp_insert_post sets it.
    revision.guid = items.permalink(ctx, revision)
    conn.execute(sa.update(posts).where(posts.c.id == revision_id).values(guid=revision.guid))
    # The parent is touched too: its links count its revisions and name the latest.
    record_change(conn, "item", "create", revision_id, parent.id)
    return revision


def _latest_revision(conn: sa.Connection, parent_id: int) -> Item | None:
    """The newest revision of an item that is not an autosave (by date, then id), or None."""
    stmt = (
        sa.select(posts)
        .where(*_revisions_of(parent_id), posts.c.slug.contains(f"{parent_id}-revision", autoescape=True))
        .order_by(posts.c.date_local.desc(), posts.c.id.desc())
        .limit(1)
    )
    row = conn.execute(stmt).first()
    return Item.from_row(row) if row else None


def _has_changed(registry: ContentRegistry, item: Item, latest: Item) -> bool:
    if any(normalize_whitespace(getattr(item, f)) != normalize_whitespace(getattr(latest, f)) for f in REVISION_FIELDS):
        return True
    return any(item.meta.get(key) != latest.meta.get(key) for key in revisioned_meta_keys(registry, item.type))


def save_revision(conn: sa.Connection, ctx: Context, item: Item) -> Item | None:
    """Store a revision of ``item`` as it now is, after an update (wp_save_post_revision).

    None when its type keeps no revisions, it is an auto-draft, or nothing revisioned changed
    since the latest revision that is not an autosave. An item without such a revision always
    gets one, so that its first update records the state it was updated to (one indexed
    look-up per update, whatever the number of revisions)."""
    content_type = ctx.registry.types.get(item.type)
    if content_type is None or not content_type.has_revisions or item.status == "auto-draft":
        return None
    latest = _latest_revision(conn, item.id)
    if latest is not None and not _has_changed(ctx.registry, item, latest):
        return None
    fields = {name: getattr(item, name) for name in REVISION_FIELDS}  # as saved, so already filtered
    return _insert_revision(conn, ctx, item, fields, autosave=False, meta=_revisioned_meta(ctx.registry, item))


def autosave_updates_item(item: Item, user_id: int) -> bool:
    """Whether an autosave by ``user_id`` updates the item itself: a draft (or auto-draft) by
    that user. calpress keeps no edit locks, so no other user can hold the item."""
    return item.status in ("draft", "auto-draft") and item.author == user_id and user_id > 0


def autosave(
    conn: sa.Connection, ctx: Context, parent: Item, changes: ItemChanges, meta: Mapping[str, Any] | None = None
) -> Item:
    """Autosave ``changes`` to ``parent`` for the acting user; returns what was saved.

    The author of a draft updates the draft itself, without storing a revision (the reference's
    DOING_AUTOSAVE), and only its own columns: terms, meta, stickiness, featured image, template
    and format are left as they are. Anyone else gets an autosave revision holding the fields
    sent (others empty, as the reference stores them): their existing one is overwritten in
    place, or returned unchanged when the sent fields and revisioned meta equal the item's."""
    current = items.lock_item(conn, parent.id, parent.type)
    if current is None:
        raise ItemError("rest_post_invalid_parent", "Invalid post parent ID.", status=404)
    user_id = ctx.user_id
    if autosave_updates_item(current, user_id):
        own = dataclasses.replace(
            changes, terms={}, meta=None, sticky=None, featured_media=None, template=None, format=None
        )
        return items.update_item(conn, ctx, current, own, store_revision=False)

    sent = {name: value for name in REVISION_FIELDS if (value := getattr(changes, name)) is not None}
    different = any(normalize_whitespace(value) != normalize_whitespace(getattr(current, name)) for name, value in sent.items())
    meta_keys = revisioned_meta_keys(ctx.registry, current.type)
    if meta:
        # The reference compares the stored value (None when there is none) with the one sent ("" when not sent).
        different = different or any(meta.get(key, "") != current.meta.get(key) for key in meta_keys)
    previous = get_autosave(conn, current.id, user_id)
    if previous is not None and not different:
        return previous
    sent_meta = {key: meta[key] for key in meta_keys if meta and meta.get(key) is not None}
    if previous is None:
        title, content, excerpt = items.filter_markup(ctx, *(sent.get(name, "") for name in REVISION_FIELDS))
        fields = {"title": title, "content": content, "excerpt": excerpt}
        return _insert_revision(conn, ctx, current, fields, autosave=True, meta={**_revisioned_meta(ctx.registry, current), **sent_meta})

    title, content, excerpt = items.filter_markup(ctx, *(sent.get(name, getattr(previous, name)) for name in REVISION_FIELDS))
    now = items.now_utc()
    local_now = items.to_local(now, ctx.zone)
    values = {
        "title": title,
        "content": content,
        "excerpt": excerpt,
        "author": user_id or None,
        "date_local": local_now,
        "date_utc": now,
        "modified_local": local_now,
        "modified_utc": now,
        "meta": {**previous.meta, **sent_meta},
    }
    conn.execute(sa.update(posts).where(posts.c.id == previous.id).values(**values))
    record_change(conn, "item", "update", previous.id, previous.parent)  # it may now be the latest
    updated = get_revision(conn, previous.id)
    assert updated is not None
    return updated


def delete_revision(conn: sa.Connection, revision: Item) -> None:
    """Delete a revision for good (revisions have no trash)."""
    conn.execute(sa.delete(posts).where(posts.c.id == revision.id, posts.c.type == REVISION_TYPE))
    record_change(conn, "item", "delete", revision.id, revision.parent)
