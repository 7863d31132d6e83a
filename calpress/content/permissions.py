"""Who may read, edit, delete and publish content items, and manage, assign and delete terms:
one set of rules for the REST handlers, the public pages, feeds and embeds alike.

Two layers, as in the reference:

* the meta capabilities (``edit_post``, ``read_post``, ``delete_post``, ``publish_post``,
  ``edit_term``, ``delete_term``, ``assign_term`` and the taxonomy capabilities) are mapped to
  the primitive capabilities they need (the reference's map_meta_cap, cms-api.md 6.7);
  :func:`register_meta_caps` puts the mappers in the app's registry, which resolves them for
  every capability check (``ctx.can(...)``);
* the questions every caller asks: :func:`can_read`, :func:`can_edit`, :func:`can_delete`,
  :func:`can_publish`, :func:`can_create` and :func:`password_open` for items, and the term
  questions below them.

Every function takes the service :class:`~calpress.content.items.Context` of the caller (its
registry and acting user).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .terms import is_default_category

if TYPE_CHECKING:
    from .items import Context, Item
    from .registry import ContentRegistry
    from .taxonomies import Taxonomy
    from .types import ContentType

ItemLoader = Callable[[int], "Item | None"]
# Parents followed at most when an attachment inherits its parent's readability.
_INHERIT_DEPTH = 8


# -- items ----------------------------------------------------------------------------------------


def can_read(ctx: Context, item: Item, load: ItemLoader | None = None, _depth: int = 0) -> bool:
    """Whether the acting user may read ``item`` (the reference's check_read_permission,
    cms-api.md 2.10): published, readable by ``read_post``, of a public status, or inheriting
    from a parent that is readable (``load`` fetches the parent; without it an inheriting item
    counts as published, as an unattached one does)."""
    content_type = ctx.registry.types.get(item.type)
    if content_type is None or not content_type.show_in_rest:
        return False
    if content_type.read_requires_edit and not ctx.can("read_post", item):
        return False  # blocks: read_post maps to edit_posts, whatever the status
    if item.status == "publish" or ctx.can("read_post", item):
        return True
    status = ctx.registry.statuses.get(item.status)
    if status is not None and status.public:
        return True
    if item.status == "inherit":
        if item.parent > 0 and load is not None and _depth < _INHERIT_DEPTH:
            parent = load(item.parent)
            if parent is not None:
                return can_read(ctx, parent, load, _depth + 1)
        return True
    return False


def can_edit(ctx: Context, item: Item) -> bool:
    """``edit_post`` on an item of a type served in REST."""
    content_type = ctx.registry.types.get(item.type)
    return content_type is not None and content_type.show_in_rest and ctx.can("edit_post", item)


def can_delete(ctx: Context, item: Item) -> bool:
    """``delete_post`` on an item of a type served in REST."""
    content_type = ctx.registry.types.get(item.type)
    return content_type is not None and content_type.show_in_rest and ctx.can("delete_post", item)


def can_publish(ctx: Context, target: Item | ContentType) -> bool:
    """``publish_posts`` of the item's type (or of the type given)."""
    content_type = ctx.registry.types.get(target.type) if hasattr(target, "type") else target
    return content_type is not None and ctx.can(content_type.caps["publish_posts"])


def can_create(ctx: Context, content_type: ContentType) -> bool:
    return ctx.can(content_type.caps["create_posts"])


def can_edit_type(ctx: Context, content_type: ContentType) -> bool:
    """``edit_posts`` of the type: what listing other statuses or the edit context needs."""
    return ctx.can(content_type.caps["edit_posts"])


def password_open(ctx: Context, item: Item, password: Any, *, editing: bool = False) -> bool:
    """Whether a protected item's content may be shown (the reference's
    can_access_password_content): always when it has no password; in the edit context to
    whoever may edit it; else with the right ``password``."""
    if not item.password:
        return True
    if editing and can_edit(ctx, item):
        return True
    return password_matches(item, password)


def password_matches(item: Item, password: Any) -> bool:
    """A given password equals the item's (compared in constant time)."""
    return isinstance(password, str) and bool(password) and hmac.compare_digest(item.password.encode(), password.encode())


# -- terms ----------------------------------------------------------------------------------------


def can_manage_terms(ctx: Context, taxonomy: Taxonomy) -> bool:
    """``edit_terms`` of the taxonomy: what the edit context of its terms needs."""
    return ctx.can(taxonomy.caps.edit_terms)


def can_assign_terms(ctx: Context, taxonomy: Taxonomy) -> bool:
    return ctx.can(taxonomy.caps.assign_terms)


def can_create_term(ctx: Context, taxonomy: Taxonomy) -> bool:
    """Creating a term of a hierarchical taxonomy needs ``edit_terms``, of a flat one
    ``assign_terms`` (so contributors may add tags), as in the reference."""
    return ctx.can(taxonomy.caps.edit_terms if taxonomy.hierarchical else taxonomy.caps.assign_terms)


def can_edit_term(ctx: Context, term: Any) -> bool:
    return ctx.can("edit_term", term)


def can_assign_term(ctx: Context, term: Any) -> bool:
    return ctx.can("assign_term", term)


def can_delete_term(ctx: Context, term: Any, default_id: int | None = None) -> bool:
    """``delete_term``; nobody may delete the site's default category."""
    return ctx.can("delete_term", term, default_id)


# -- the meta capability mappers ------------------------------------------------------------------


def register_meta_caps(registry: ContentRegistry) -> None:
    """Put the item and term mappers into ``registry`` (the core definitions call this)."""
    registry.map_meta_cap("edit_post", lambda user, item=None, *_: _map_edit_post(registry, user, item))
    registry.map_meta_cap("delete_post", lambda user, item=None, *_: _map_delete_post(registry, user, item))
    registry.map_meta_cap("read_post", lambda user, item=None, *_: _map_read_post(registry, user, item))
    registry.map_meta_cap("publish_post", lambda user, item=None, *_: _map_publish_post(registry, item))
    for meta, key in (("edit_term", "edit_terms"), ("delete_term", "delete_terms"), ("assign_term", "assign_terms")):
        registry.map_meta_cap(meta, _term_mapper(registry, meta, key))
    for capability in ("edit_categories", "delete_categories", "manage_post_tags", "edit_post_tags", "delete_post_tags"):
        registry.map_meta_cap(capability, _always("manage_categories"))
    registry.map_meta_cap("assign_categories", _always("edit_posts"))
    registry.map_meta_cap("assign_post_tags", _always("edit_posts"))


def _owner(item: Any) -> int:
    return int(getattr(item, "author", 0) or 0)


def _served_type(registry: ContentRegistry, item: Any) -> ContentType | None:
    """The type of ``item`` when it is served in REST, else None. Items of a type registered but
    not served (attachments, until the media routes come) get no meta capability, as items of
    unknown types: like can_read, can_edit and can_delete, the mappers refuse them."""
    content_type = registry.types.get(item.type) if item is not None else None
    return content_type if content_type is not None and content_type.show_in_rest else None


def _caps_and_status(registry: ContentRegistry, item: Any) -> tuple[dict[str, str], str] | None:
    """The item's type capabilities and the status that decides rights (a trashed item is
    judged by the status it had before trashing)."""
    content_type = _served_type(registry, item)
    if content_type is None:
        return None
    status = item.status
    if status == "trash":
        status = getattr(item, "trashed_from", None) or "draft"
    return content_type.caps, status


def _others_caps(caps: dict[str, str], verb: str, status: str) -> list[str]:
    """``edit``/``delete`` on someone else's item: the others' capability, plus the published
    or private one when the item is published, scheduled or private."""
    needed = [caps[f"{verb}_others_posts"]]
    if status in ("publish", "future"):
        needed.append(caps[f"{verb}_published_posts"])
    elif status == "private":
        needed.append(caps[f"{verb}_private_posts"])
    return needed


def _map_edit_post(registry: ContentRegistry, user: Any, item: Any) -> list[str] | None:
    found = _caps_and_status(registry, item)
    if found is None:
        return None
    caps, status = found
    if status == "auto-draft":
        return [caps["edit_posts"]] if _owner(item) in (0, user.id) else [caps["edit_others_posts"]]
    if _owner(item) == user.id:
        return [caps["edit_published_posts"]] if status in ("publish", "future") else [caps["edit_posts"]]
    return _others_caps(caps, "edit", status)


def _map_delete_post(registry: ContentRegistry, user: Any, item: Any) -> list[str] | None:
    found = _caps_and_status(registry, item)
    if found is None:
        return None
    caps, status = found
    if _owner(item) in (0, user.id):
        if status in ("publish", "future"):
            return [caps["delete_published_posts"]]
        if status == "private":
            return [caps["delete_private_posts"]]
        return [caps["delete_posts"]]
    return _others_caps(caps, "delete", status)


def _map_read_post(registry: ContentRegistry, user: Any, item: Any) -> list[str] | None:
    content_type = _served_type(registry, item)
    if content_type is None:
        return None
    caps = content_type.caps
    status = registry.statuses.get(item.status)
    if status is not None and status.public:
        return [caps["read"]]
    if _owner(item) == user.id:
        return [caps["read"]]
    if status is not None and status.private:
        return [caps["read_private_posts"]]
    return _map_edit_post(registry, user, item)


def _map_publish_post(registry: ContentRegistry, item: Any) -> list[str] | None:
    content_type = _served_type(registry, item)
    return [content_type.caps["publish_posts"]] if content_type else None


def _term_mapper(registry: ContentRegistry, meta: str, key: str) -> Callable[..., list[str] | None]:
    def mapper(user: Any, term: Any = None, default_id: int | None = None, *_: Any) -> list[str] | None:
        # The reference checks these against one term: pass the Term (and, for delete_term, the
        # site's default category id when it is not the default 1).
        taxonomy = registry.taxonomies.get(getattr(term, "taxonomy", "")) if term is not None else None
        if taxonomy is None:
            return None
        if meta == "delete_term" and is_default_category(term, default_id):
            return None
        return [getattr(taxonomy.caps, key)]

    return mapper


def _always(*capabilities: str) -> Callable[..., list[str]]:
    return lambda user, *args: list(capabilities)
