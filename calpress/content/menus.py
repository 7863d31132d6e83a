"""Navigation menus, kept as the reference keeps them (wp-includes/nav-menu.php).

A menu is a term of the ``nav_menu`` taxonomy; its entries are items of the ``nav_menu_item``
type linked to that term, ordered by ``menu_order``. What an entry points at lives in the
entry's protected meta: ``_menu_item_type`` (``post_type``, ``taxonomy``, ``post_type_archive``
or ``custom``), ``_menu_item_object`` (the type or taxonomy name, or ``custom``),
``_menu_item_object_id``, ``_menu_item_url`` (custom links only), ``_menu_item_menu_item_parent``
(the entry it nests under), ``_menu_item_target``, ``_menu_item_classes`` and ``_menu_item_xfn``.
The entry's own title, content and excerpt hold its label (empty: the object's title), its
description and its title attribute. Which menu each theme location shows is the
``nav_menu_locations`` option (the reference's theme mod of that name), and the menus that take
new top-level pages are ``nav_menu_options["auto_add"]``.

The REST routes (api/cms_menus.py), the workspace screen, the WXR transfer and the public site's
header all go through this module, so they share one set of rules.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from ..compat.formatting import esc_url_raw, trim_words
from ..rest.errors import RestError
from ..store import options as store_options
from ..store.changes import record as record_change
from ..store.tables import posts, term_links, terms
from . import items as item_service
from . import object_terms
from . import terms as term_store
from .items import Context, Item, ItemChanges, ItemQuery
from .registry import ContentRegistry
from .taxonomies import Taxonomy, TermCaps, define_taxonomy
from .types import ContentType, type_caps, type_labels

MENU_TAXONOMY = "nav_menu"
ITEM_TYPE = "nav_menu_item"
LOCATIONS_OPTION = "nav_menu_locations"
MENU_OPTIONS_OPTION = "nav_menu_options"
# The theme's menu locations (the reference's register_nav_menus): the header's and the footer's.
LOCATIONS: dict[str, str] = {"primary": "Primary menu", "footer": "Footer menu"}
ITEM_KINDS = ("taxonomy", "post_type", "post_type_archive", "custom")
_THEME_CAP = "edit_theme_options"


class MenuError(RestError):
    """A menu or entry could not be written; codes and messages are the reference's."""


# -- definitions ----------------------------------------------------------------------------------


def item_type() -> ContentType:
    """The ``nav_menu_item`` type as the reference registers it: not public, managed with
    ``edit_theme_options``, served under ``menu-items`` by its own controller."""
    theme = {key: _THEME_CAP for key in (
        "edit_posts", "edit_others_posts", "delete_posts", "publish_posts", "read_private_posts", "delete_private_posts",
        "delete_published_posts", "delete_others_posts", "edit_private_posts", "edit_published_posts", "create_posts",
    )}
    return ContentType(
        ITEM_TYPE, "menu-items", "Navigation Menu Items", "Navigation Menu Item", builtin=True,
        supports=frozenset({"title", "editor"}), caps=type_caps("post", "posts", **theme), public=False,
        can_trash=False, revisions_route=False, autosaves_route=False, show_ui=False, show_in_nav_menus=False,
        labels={"name": "Navigation Menu Items", "singular_name": "Navigation Menu Item"},
    )


def menu_taxonomy() -> Taxonomy:
    """The ``nav_menu`` taxonomy as the reference registers it (REST base ``menus``)."""
    return define_taxonomy(
        MENU_TAXONOMY,
        (ITEM_TYPE,),
        labels={"name": "Navigation Menus", "singular_name": "Navigation Menu"},
        public=False,
        show_ui=False,
        show_in_nav_menus=False,
        caps=TermCaps(_THEME_CAP, _THEME_CAP, _THEME_CAP, _THEME_CAP),
        show_in_rest=True,
        rest_base="menus",
        query_var=False,
    )


# -- locations and options ------------------------------------------------------------------------


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def menu_locations(options: dict[str, Any]) -> dict[str, int]:
    """Location -> assigned menu id (0: none), as get_nav_menu_locations reads the theme mod."""
    stored = options.get(LOCATIONS_OPTION)
    if not isinstance(stored, dict):
        return {}
    return {str(name): _int(menu_id) for name, menu_id in stored.items()}


def locations_of(options: dict[str, Any], menu_id: int) -> list[str]:
    """The locations showing ``menu_id``, in the order they were assigned."""
    return [name for name, assigned in menu_locations(options).items() if assigned == menu_id and menu_id]


def set_menu_locations(conn: sa.Connection, ctx: Context, menu_id: int, locations: Iterable[str]) -> None:
    """Make ``locations`` (registered ones) the locations of ``menu_id``: it leaves the others
    (the reference's handle_locations)."""
    current = menu_locations({LOCATIONS_OPTION: store_options.get_option(conn, LOCATIONS_OPTION, {}, for_update=True)})
    kept = {name: assigned for name, assigned in current.items() if assigned != menu_id}
    for name in locations:
        if name not in LOCATIONS:
            raise MenuError("rest_invalid_menu_location", "Invalid menu location.", status=400, location=name)
        kept[name] = menu_id
    ctx.set_option(conn, LOCATIONS_OPTION, kept)


def auto_add_menus(options: dict[str, Any]) -> list[int]:
    stored = options.get(MENU_OPTIONS_OPTION)
    found = stored.get("auto_add") if isinstance(stored, dict) else None
    return [_int(menu_id) for menu_id in found] if isinstance(found, list) else []


def set_auto_add(conn: sa.Connection, ctx: Context, menu_id: int, enabled: bool) -> None:
    """Add ``menu_id`` to, or remove it from, ``nav_menu_options["auto_add"]``."""
    stored = store_options.get_option(conn, MENU_OPTIONS_OPTION, {}, for_update=True)
    stored = dict(stored) if isinstance(stored, dict) else {}
    ids = auto_add_menus({MENU_OPTIONS_OPTION: stored})
    if enabled and menu_id not in ids:
        ids.append(menu_id)
    elif not enabled and menu_id in ids:
        ids.remove(menu_id)
    else:
        return
    ctx.set_option(conn, MENU_OPTIONS_OPTION, {**stored, "auto_add": ids})


# -- menus ----------------------------------------------------------------------------------------


def list_menus(conn: sa.Connection) -> list[term_store.Term]:
    """Every menu, by name (the reference's wp_get_nav_menus)."""
    rows = conn.execute(sa.select(terms.c.id).where(terms.c.taxonomy == MENU_TAXONOMY)).scalars().all()
    found = term_store.get_terms(conn, rows)
    return sorted(found.values(), key=lambda term: (term.name.lower(), term.id))


def get_menu(conn: sa.Connection, menu_id: Any) -> term_store.Term | None:
    menu_id = _int(menu_id)
    return term_store.get_term(conn, menu_id, MENU_TAXONOMY) if menu_id > 0 else None


def _menu_named(conn: sa.Connection, name: str) -> term_store.Term | None:
    row = conn.execute(
        sa.select(terms.c.id).where(terms.c.taxonomy == MENU_TAXONOMY, sa.func.lower(terms.c.name) == name.lower())
        .order_by(terms.c.id).limit(1)
    ).first()
    return term_store.get_term(conn, row.id) if row else None


def _name_conflict(conn: sa.Connection, name: str, menu_id: int) -> None:
    existing = _menu_named(conn, term_store.clean_term_name(name))
    if existing is not None and existing.id != menu_id:
        shown = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#039;")
        raise MenuError(
            "menu_exists", f"The menu name <strong>{shown}</strong> conflicts with another menu name. Please try another.",
            status=400, term_id=existing.id,
        )


def create_menu(conn: sa.Connection, ctx: Context, name: str, *, slug: str = "", description: str = "") -> term_store.Term:
    """A new menu (wp_update_nav_menu_object with id 0). Raises ``menu_exists`` when another
    menu has the name, ``empty_term_name`` when it is empty."""
    _name_conflict(conn, name, 0)
    taxonomy = ctx.registry.taxonomies[MENU_TAXONOMY]
    return term_store.create_term(conn, taxonomy, name, slug=slug, description=description)


def update_menu(
    conn: sa.Connection, ctx: Context, menu: term_store.Term, *, name: str | None = None, slug: str | None = None,
    description: str | None = None,
) -> term_store.Term:
    if name is not None:
        _name_conflict(conn, name, menu.id)
    taxonomy = ctx.registry.taxonomies[MENU_TAXONOMY]
    return term_store.update_term(conn, taxonomy, menu, name=name, slug=slug, description=description)


def delete_menu(conn: sa.Connection, ctx: Context, menu: term_store.Term) -> None:
    """Delete a menu, its entries, and its place in any location (wp_delete_nav_menu)."""
    for entry in item_service.get_items(conn, menu_entry_ids(conn, menu.id)).values():
        item_service.delete_item(conn, ctx, entry)
    term_store.delete_term(conn, ctx.registry, menu)
    current = menu_locations({LOCATIONS_OPTION: store_options.get_option(conn, LOCATIONS_OPTION, {}, for_update=True)})
    if menu.id in current.values():
        ctx.set_option(conn, LOCATIONS_OPTION, {name: (0 if assigned == menu.id else assigned) for name, assigned in current.items()})
    if menu.id in auto_add_menus(ctx.options):
        set_auto_add(conn, ctx, menu.id, False)


def menu_entry_ids(conn: sa.Connection, menu_id: int) -> list[int]:
    return list(conn.execute(sa.select(term_links.c.object_id).where(term_links.c.term_id == menu_id)).scalars().all())


def menu_of(conn: sa.Connection, entry_ids: Iterable[int]) -> dict[int, int]:
    """Entry id -> the id of its menu (0 for an orphan)."""
    found = term_store.get_object_terms(conn, entry_ids, [MENU_TAXONOMY])
    return {entry_id: (by_tax[MENU_TAXONOMY][0].id if by_tax[MENU_TAXONOMY] else 0) for entry_id, by_tax in found.items()}


# The entries of some menus, built once: the public site reads them after every write.
_ENTRIES = (
    sa.select(posts, term_links.c.term_id.label("menu_id"))
    .join(term_links, term_links.c.object_id == posts.c.id)
    .where(posts.c.type == ITEM_TYPE, term_links.c.term_id.in_(sa.bindparam("menus", expanding=True)),
           posts.c.status.in_(sa.bindparam("statuses", expanding=True)))
    .order_by(posts.c.menu_order, posts.c.id)
)


def entries_of(conn: sa.Connection, menu_ids: Iterable[int], statuses: Iterable[str] = ("publish",)) -> dict[int, list[Item]]:
    """The entries of each menu in menu order (wp_get_nav_menu_items' query), in one statement."""
    found: dict[int, list[Item]] = {menu_id: [] for menu_id in menu_ids}
    if not found:
        return found
    for row in conn.execute(_ENTRIES, {"menus": list(found), "statuses": list(statuses)}):
        found[row.menu_id].append(Item.from_row(row))
    return found


def menu_entries(conn: sa.Connection, menu_id: int, statuses: Iterable[str] = ("publish",)) -> list[Item]:
    """The entries of a menu in menu order."""
    return entries_of(conn, [menu_id], statuses)[menu_id]


# -- entries --------------------------------------------------------------------------------------


def sanitize_html_class(text: Any) -> str:
    """The reference's sanitize_html_class: percent-encoded octets go, then anything but
    letters, digits, ``_`` and ``-``."""
    stripped = re.sub(r"%[a-fA-F0-9][a-fA-F0-9]", "", str(text))
    return re.sub(r"[^A-Za-z0-9_-]", "", stripped)


def sanitize_key(text: Any) -> str:
    return re.sub(r"[^a-z0-9_\-]", "", str(text).lower())


def class_list(value: Any) -> list[str]:
    """A list of class names from a list or a space/comma separated string (wp_parse_list)."""
    if isinstance(value, (list, tuple)):
        parts = [str(part) for part in value]
    else:
        parts = re.split(r"[\s,]+", str(value or ""))
    return [sanitize_html_class(part) for part in parts if str(part).strip() != ""]


@dataclass
class EntryFields:
    """What wp_update_nav_menu_item takes (its ``menu-item-*`` arguments)."""

    menu_id: int = 0
    object_id: int = 0
    object: str = ""
    parent: int = 0
    position: int = 0
    type: str = "custom"
    title: str = ""
    url: str = ""
    description: str = ""
    attr_title: str = ""
    target: str = ""
    classes: list[str] = field(default_factory=list)
    xfn: list[str] = field(default_factory=list)
    status: str = "publish"


def fields_of(entry: Item, menu_id: int) -> EntryFields:
    """An entry's stored values as wp_update_nav_menu_item arguments (what a partial update keeps)."""
    meta = entry.meta
    return EntryFields(
        menu_id=menu_id,
        object_id=_int(meta.get("_menu_item_object_id")),
        object=str(meta.get("_menu_item_object") or ""),
        parent=_int(meta.get("_menu_item_menu_item_parent")),
        position=entry.menu_order or 1,
        type=str(meta.get("_menu_item_type") or "custom"),
        title=entry.title,
        url=str(meta.get("_menu_item_url") or ""),
        description=entry.content,
        attr_title=entry.excerpt,
        target=str(meta.get("_menu_item_target") or ""),
        classes=class_list(meta.get("_menu_item_classes") or []),
        xfn=[part for part in str(meta.get("_menu_item_xfn") or "").split(" ") if part],
        status=entry.status,
    )


def _original(conn: sa.Connection, ctx: Context, fields: EntryFields) -> tuple[str, int]:
    """The title and parent of what a non-custom entry points at (for its title sync)."""
    if fields.type == "taxonomy":
        term = term_store.get_term(conn, fields.object_id, fields.object or None)
        return (term.name, term.parent) if term else ("", 0)
    if fields.type == "post_type":
        target = item_service.get_item(conn, fields.object_id)
        return (target.title, target.parent) if target else ("", 0)
    if fields.type == "post_type_archive":
        content_type = ctx.registry.types.get(fields.object)
        return (str(type_labels(content_type).get("archives") or ""), 0) if content_type else ("", 0)
    return "", 0


def save_entry(conn: sa.Connection, ctx: Context, fields: EntryFields, entry: Item | None = None) -> Item:
    """Create an entry (``entry`` None) or rewrite one from ``fields``: the reference's
    wp_update_nav_menu_item, including its defaults (new entries go last; a title equal to the
    object's is stored empty, so that it follows the object's; a custom entry points at itself).
    Raises ``invalid_menu_id`` for a menu that does not exist."""
    menu_id = _int(fields.menu_id)
    if menu_id and get_menu(conn, menu_id) is None:
        raise MenuError("invalid_menu_id", "Invalid menu ID.", status=400)
    position = _int(fields.position)
    if not menu_id:
        position = 1
    elif position == 0:
        # After the last: the reference numbers the entries it reads 1..n, so this is n + 1.
        listed = menu_entries(conn, menu_id, ("publish", "draft"))
        position = len(listed) + 1 if listed else 0
    kind = fields.type if fields.type in ITEM_KINDS else sanitize_key(fields.type)
    title, url, description = fields.title, fields.url, fields.description
    original_parent = entry.parent if entry is not None else 0
    if kind == "custom":
        url = url.strip()
    else:
        url = ""
        original_title, original_parent = _original(conn, ctx, fields)
        if title == original_title:
            title = ""
    if entry is None:
        status = "publish" if fields.status == "publish" else "draft"
    else:
        status = "draft" if fields.status == "draft" else "publish"
    parent_entry = _int(fields.parent)
    if entry is not None and parent_entry == entry.id:
        parent_entry = 0
    meta = {
        "_menu_item_type": sanitize_key(kind),
        "_menu_item_menu_item_parent": str(parent_entry),
        "_menu_item_object_id": str(_int(fields.object_id)),
        "_menu_item_object": sanitize_key(fields.object),
        "_menu_item_target": sanitize_key(fields.target),
        "_menu_item_classes": [sanitize_html_class(name) for name in (fields.classes or [""])],
        "_menu_item_xfn": " ".join(sanitize_html_class(name) for name in fields.xfn),
        "_menu_item_url": esc_url_raw(url) if url else "",
        "_menu_item_orphaned": None if menu_id else str(int(time.time())),
    }
    changes = ItemChanges(
        title=title, content=description, excerpt=fields.attr_title, status=status, parent=original_parent,
        menu_order=position, ping_status="closed", protected_meta=meta,
    )
    if menu_id:
        changes.terms = {MENU_TAXONOMY: [menu_id]}
    content_type = ctx.registry.types[ITEM_TYPE]
    if entry is None:
        saved = item_service.create_item(conn, ctx, content_type, changes)
    else:
        saved = item_service.update_item(conn, ctx, entry, changes, store_revision=False)
    if kind == "custom" and (meta["_menu_item_object_id"] != str(saved.id) or meta["_menu_item_object"] != "custom"):
        # A custom link points at itself, which a new entry knows once it has its id.
        own = {"_menu_item_object_id": str(saved.id), "_menu_item_object": "custom"}
        if parent_entry == saved.id:
            own["_menu_item_menu_item_parent"] = "0"
        saved = item_service.update_item(conn, ctx, saved, ItemChanges(protected_meta=own), store_revision=False)
    return saved


def add_published_page(conn: sa.Connection, ctx: Context, page: Item) -> None:
    """A top-level page just published joins, at their end, the menus whose ``auto_add`` is on
    and which do not link it yet (the reference's _wp_auto_add_pages_to_menu); the registry's
    publish hook, so other items and child pages pass."""
    if page.type != "page" or page.parent:
        return
    for menu_id in auto_add_menus(ctx.options):
        if get_menu(conn, menu_id) is None:
            continue
        listed = menu_entries(conn, menu_id, ("publish", "draft"))
        if any(_int(entry.meta.get("_menu_item_object_id")) == page.id for entry in listed):
            continue
        save_entry(conn, ctx, EntryFields(menu_id=menu_id, object_id=page.id, object=page.type, type="post_type"))


def forget_object(conn: sa.Connection, registry: ContentRegistry, kind: str, object_id: int, name: str) -> None:
    """Delete the entries pointing at an item (``kind`` ``post_type``, ``name`` its type) or a
    term (``taxonomy``, ``name`` its taxonomy) deleted for good, as the reference's
    _wp_delete_post_menu_item and _wp_delete_tax_menu_item do; the registry's delete hook. (A
    trashed item's entries stay, shown as invalid and left out of the site's menus.) Entries and
    menus themselves are no one's entries."""
    if name in (ITEM_TYPE, MENU_TAXONOMY):
        return
    rows = conn.execute(sa.select(posts.c.id, posts.c.meta).where(posts.c.type == ITEM_TYPE)).all()
    doomed = [
        row.id for row in rows
        if (meta := row.meta or {}).get("_menu_item_type") == kind and _int(meta.get("_menu_item_object_id")) == object_id
        and (kind != "taxonomy" or meta.get("_menu_item_object") == name)
    ]
    if not doomed:
        return
    menu_ids = list(conn.execute(sa.select(term_links.c.term_id).where(term_links.c.object_id.in_(doomed))).scalars().all())
    for entry_id in doomed:
        record_change(conn, "item", "delete", entry_id)
    conn.execute(sa.delete(term_links).where(term_links.c.object_id.in_(doomed)))
    conn.execute(sa.delete(posts).where(posts.c.id.in_(doomed)))
    if menu_ids:
        object_terms.recount(conn, registry, set(menu_ids))


# -- entries as shown -----------------------------------------------------------------------------


@dataclass
class MenuEntry:
    """An entry as wp_setup_nav_menu_item decorates it."""

    id: int
    menu_id: int
    status: str
    title_raw: str
    title: str
    url: str
    attr_title: str
    description: str
    type: str
    type_label: str
    object: str
    object_id: int
    parent: int
    menu_order: int
    target: str
    classes: list[str]
    xfn: str
    invalid: bool
    # Whether a visitor may follow it: what it points at is published (custom links always are).
    public: bool = True
    item: Item | None = None


def archive_link(ctx: Context, content_type: ContentType) -> str:
    """The reference's get_post_type_archive_link: the posts page (or home) for posts, the
    archive slug for a type with an archive, else nothing."""
    home = ctx.home.rstrip("/")
    if content_type.name == "post":
        page_for_posts = _int(ctx.options.get("page_for_posts"))
        if ctx.options.get("show_on_front") == "page" and page_for_posts:
            return f"{home}/?page_id={page_for_posts}"
        return home + "/"
    if not content_type.has_archive:
        return ""
    slug = content_type.has_archive if isinstance(content_type.has_archive, str) else (content_type.archive_slug or content_type.name)
    return f"{home}/{slug.strip('/')}/"


def set_up(conn: sa.Connection, ctx: Context, entries: list[Item]) -> list[MenuEntry]:
    """The entries decorated with what they point at, in a fixed number of statements."""
    if not entries:
        return []
    registry = ctx.registry
    post_ids = {_int(e.meta.get("_menu_item_object_id")) for e in entries if e.meta.get("_menu_item_type") == "post_type"}
    term_ids = {_int(e.meta.get("_menu_item_object_id")) for e in entries if e.meta.get("_menu_item_type") == "taxonomy"}
    objects = item_service.get_items(conn, post_ids - {0}) if post_ids else {}
    hierarchical = [o for o in objects.values() if (t := registry.types.get(o.type)) is not None and t.hierarchical]
    uris = item_service.page_uris(conn, hierarchical) if hierarchical else {}
    found_terms = term_store.get_terms(conn, term_ids - {0}) if term_ids else {}
    related = term_store.with_ancestors(conn, found_terms.values()) if found_terms else {}
    menus = menu_of(conn, [e.id for e in entries])
    shown: list[MenuEntry] = []
    for entry in entries:
        meta = entry.meta
        kind = str(meta.get("_menu_item_type") or "custom")
        object_name = str(meta.get("_menu_item_object") or "")
        object_id = _int(meta.get("_menu_item_object_id"))
        invalid, public, url, type_label = False, True, "", ""
        title = entry.title
        if kind == "post_type":
            content_type = registry.types.get(object_name)
            type_label = str(type_labels(content_type).get("singular_name") or "") if content_type else object_name
            invalid = content_type is None
            target = objects.get(object_id)
            if target is not None:
                url = item_service.permalink(ctx, target, uri=uris.get(target.id))
                original = target.title
                invalid = invalid or target.status == "trash"
                public = target.status in ("publish", "inherit")
            else:
                original, invalid, public = "", True, False
            title = title or original or f"#{object_id} (no title)"
        elif kind == "post_type_archive":
            content_type = registry.types.get(object_name)
            type_label = "Post Type Archive"
            if content_type is not None:
                title = title or str(type_labels(content_type).get("archives") or "")
                url = archive_link(ctx, content_type)
            else:
                invalid, public = True, False
        elif kind == "taxonomy":
            taxonomy = registry.taxonomies.get(object_name)
            type_label = str(taxonomy.labels.get("singular_name") or "") if taxonomy else object_name
            invalid = taxonomy is None
            term = found_terms.get(object_id)
            if term is not None and taxonomy is not None:
                url = term_store.term_link(ctx.home, taxonomy, term, related)
                original = term.name
            else:
                original, invalid, public = "", True, False
            title = title or original or f"#{object_id} (no title)"
        else:
            type_label = "Custom Link"
            url = str(meta.get("_menu_item_url") or "")
        classes = meta.get("_menu_item_classes")
        shown.append(MenuEntry(
            id=entry.id, menu_id=menus.get(entry.id, 0), status=entry.status, title_raw=entry.title, title=title, url=url,
            attr_title=entry.excerpt, description=trim_words(entry.content, 200) if entry.content.strip() else "",
            type=kind, type_label=type_label, object=object_name, object_id=object_id,
            parent=_int(meta.get("_menu_item_menu_item_parent")), menu_order=entry.menu_order, target=str(meta.get("_menu_item_target") or ""),
            classes=[str(name) for name in classes] if isinstance(classes, list) else ([str(classes)] if classes else [""]),
            xfn=str(meta.get("_menu_item_xfn") or ""), invalid=invalid, public=public and not invalid, item=entry,
        ))
    return shown


# -- the tree a site shows ------------------------------------------------------------------------


@dataclass
class MenuNode:
    """One link of a menu as the public site shows it, with its nested links."""

    title: str
    url: str
    attr_title: str = ""
    target: str = ""
    classes: list[str] = field(default_factory=list)
    rel: str = ""
    object_id: int = 0
    kind: str = "custom"
    children: list[MenuNode] = field(default_factory=list)


def location_menus(conn: sa.Connection, ctx: Context, locations: Iterable[str]) -> dict[str, list[MenuNode] | None]:
    """The tree of the menu assigned to each location, or None where none is (wp_nav_menu's
    has_nav_menu), read together. Entries visitors cannot follow are left out; children of a
    left-out entry rise to the top level, as the reference's walker shows orphans."""
    assigned = menu_locations(ctx.options)
    wanted = {name: assigned.get(name, 0) for name in locations}
    existing = {menu_id for menu_id in set(wanted.values()) - {0} if get_menu(conn, menu_id) is not None}
    by_menu = entries_of(conn, existing)
    entries = set_up(conn, ctx, [entry for found in by_menu.values() for entry in found])
    shown = {entry.id: entry for entry in entries if entry.public}
    trees: dict[str, list[MenuNode] | None] = {}
    for name, menu_id in wanted.items():
        if menu_id not in existing:
            trees[name] = None
            continue
        own = [shown[entry.id] for entry in by_menu[menu_id] if entry.id in shown]
        nodes = {
            e.id: MenuNode(title=e.title, url=e.url, attr_title=e.attr_title, target=e.target,
                           classes=[c for c in e.classes if c], rel=e.xfn,
                           object_id=e.object_id if e.type != "custom" else 0, kind=e.type)
            for e in own
        }
        top: list[MenuNode] = []
        for e in own:
            parent = nodes.get(e.parent) if e.parent != e.id else None
            (parent.children if parent is not None else top).append(nodes[e.id])
        trees[name] = top
    return trees


def top_level_pages(conn: sa.Connection, limit: int = 50) -> list[Item]:
    """Published top-level pages by menu order, then title (the fallback wp_page_menu lists), at
    most ``limit``: a header has room for a few, and a site of thousands of pages reads a bounded page."""
    page = item_service.query_items(conn, ItemQuery(
        type="page", statuses=("publish",), per_page=limit * 4, parents=[0], orderby="menu_order", order="asc",
    ))
    return sorted(page.items, key=lambda item: (item.menu_order, item.title.lower(), item.id))[:limit]
