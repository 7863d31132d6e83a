"""The content screens: one list table (``edit.php``) and one editor (``post-new.php``,
``post.php``) for every content type the workspace shows, driven by the type's definition and its
REST route, as WordPress's one WP_Posts_List_Table and edit form serve every post type.

A type gets a :class:`TypeAdmin`: its columns beyond the title, its filters, and the panels its
editor shows beyond the common ones (title, content, excerpt, publish box, author, slug, featured
image, terms, discussion, page attributes). The calendar's types add theirs in
``admin/calendar.py``; nothing else is per type. Every read of the list and every change goes
through the REST engine as the user (api.py): a row action, a bulk action or a save the API
refuses shows the API's message, beside the field it names.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..auth import users as user_store
from ..content import items as item_service
from ..content.types import type_labels
from . import writing
from .api import Answer, route_of
from .shell import AdminRequest, Forbidden, Screen
from .values import number, text_of

__all__ = ["Column", "Filter", "Panel", "TypeAdmin", "EditScreen", "NewScreen", "ItemScreen", "TYPES", "register_type"]

STATUS_LABELS = {"publish": "Published", "future": "Scheduled", "draft": "Drafts", "pending": "Pending",
                 "private": "Private", "trash": "Trash"}
STATUS_NAMES = {"publish": "Published", "future": "Scheduled", "draft": "Draft", "pending": "Pending",
                "private": "Private", "trash": "Trash"}
# WordPress's post.php notices (message=N), with the type's singular name.
MESSAGES = {1: "{Singular} updated.", 6: "{Singular} published.", 7: "{Singular} saved.", 8: "{Singular} submitted.",
            9: "{Singular} scheduled.", 10: "{Singular} draft updated."}


@dataclass
class Column:
    """A column of the list table after the title: its key, heading, the REST ``orderby`` that
    sorts by it (None: not sortable), and the cell's HTML from a row."""

    key: str
    label: str
    cell: Callable[[dict[str, Any], AdminRequest], Any]
    orderby: str | None = None


@dataclass
class Filter:
    """A filter above the list: its query name, label, choices [(value, label)] from the request
    (a drop-down; none for a ``date`` field), and the REST query it adds for a chosen value
    (None: the value is not one it takes, and is ignored)."""

    name: str
    label: str
    choices: Callable[[AdminRequest], list[tuple[str, str]]]
    query: Callable[[str], dict[str, Any] | None]
    kind: str = "select"  # or "date"


def month_choices(r: AdminRequest, post_type: str, statuses: list[str] | None = None) -> list[tuple[str, str]]:
    """The months that have items, newest first, as (``YYYYMM``, "November 2026"): a domain
    read, as the reference's months_dropdown queries them (the REST API lists no months)."""
    with r.site.read() as conn:
        found = item_service.months(conn, post_type, statuses=statuses)
    return [(f"{year:04d}{month:02d}", dt.date(year, month, 1).strftime("%B %Y")) for year, month in found]


def month_range(value: str) -> dict[str, str] | None:
    """``m=YYYYMM`` as the REST ``after``/``before`` (both exclusive, the site's wall time), or
    None when it is not a month."""
    if len(value) != 6 or not value.isdigit() or not 1 <= int(value[4:]) <= 12 or not 1000 <= int(value[:4]) < 9999:
        return None
    year, month = int(value[:4]), int(value[4:])
    first = dt.datetime(year, month, 1)
    following = dt.datetime(year + month // 12, month % 12 + 1, 1)
    return {"after": (first - dt.timedelta(seconds=1)).isoformat(), "before": following.isoformat()}


def month_filter(post_type: str) -> Filter:
    """WordPress's "All dates" drop-down of a list table."""
    return Filter("m", "All dates", lambda r: month_choices(r, post_type), month_range)


def term_filter(taxonomy: str, label: str, param: str) -> Filter:
    """A taxonomy's drop-down (``cat`` for posts' categories), as the REST filter ``param``."""
    def choices(r: AdminRequest) -> list[tuple[str, str]]:
        found = r.ctx.registry.taxonomies.get(taxonomy)
        if found is None:
            return []
        answer = r.api.get(f"/cms/v2/{found.rest_base}", per_page=100, orderby="name", _fields="id,name")
        return [(str(t["id"]), t["name"]) for t in (answer.data if answer.ok and isinstance(answer.data, list) else [])]

    return Filter(param if param != "categories" else "cat", label, choices,
                  lambda value: {param: value} if value.isdigit() else None)


@dataclass
class Panel:
    """A box of the editor: its title, template (``admin/panels/<name>.html``), the values it
    shows (from the item being edited, or the form sent back after an error), and what it adds
    to the save from the posted form."""

    name: str
    title: str
    values: Callable[[AdminRequest, dict[str, Any] | None], dict[str, Any]]
    side: bool = False


@dataclass
class TypeAdmin:
    """What the workspace knows of one content type beyond its definition."""

    post_type: str
    columns: list[Column] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)
    panels: list[Panel] = field(default_factory=list)
    default_orderby: str = "date"
    default_order: str = "desc"
    # The editor's save: (request, item id or None, the common fields as the cms/v2 route takes
    # them) -> (the REST answer, the item's id). None: the type's cms/v2 route alone.
    save: Callable[[AdminRequest, int | None, dict[str, Any]], tuple[Answer, int | None]] | None = None
    # Listing through another route: (request, the common query) -> (route, query); rows are
    # then normalised by ``row``.
    listing: Callable[[AdminRequest, dict[str, Any]], tuple[str, dict[str, Any]]] | None = None
    row: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    shows_content: bool = True


TYPES: dict[str, TypeAdmin] = {}
# (post type, page) -> the screen edit.php shows for ``?post_type=X&page=Y`` (register_subpage).
SUBPAGES: dict[tuple[str, str], Screen] = {}


def register_type(admin: TypeAdmin) -> TypeAdmin:
    TYPES[admin.post_type] = admin
    return admin


def register_subpage(post_type: str, page: str, screen: Screen) -> None:
    SUBPAGES[(post_type, page)] = screen


# -- helpers ------------------------------------------------------------------------------------


def content_type(r: AdminRequest, name: str) -> Any:
    found = r.ctx.registry.types.get(name)
    if found is None or name not in TYPES:
        raise Forbidden("Invalid post type.", 400)
    return found


def labels(kind: Any) -> dict[str, str]:
    found = {key: str(value) for key, value in type_labels(kind).items() if value}
    found.setdefault("singular_name", kind.singular)
    return found


def author_names(r: AdminRequest, rows: list[dict[str, Any]]) -> dict[int, str]:
    """The display names of the rows' authors, read at once (a list's author column)."""
    ids = sorted({number(row.get("author")) for row in rows if row.get("author")})
    if not ids:
        return {}
    with r.site.read() as conn:
        found = user_store.get_users(conn, ids)
    return {uid: user.display_name or user.login for uid, user in found.items()}


# -- the list table -----------------------------------------------------------------------------


class EditScreen(Screen):
    """``edit.php?post_type=X``: the list table of a type."""

    file = "edit.php"

    def required(self, r: AdminRequest) -> str:
        if self._page(r) is not None:
            return "read"  # a settings page under the type's menu checks its own capability
        if r.param("post_type") == "attachment":
            return "upload_files"
        kind = content_type(r, r.param("post_type", "post"))
        return kind.caps["edit_posts"]

    @staticmethod
    def _page(r: AdminRequest) -> Screen | None:
        """The screen ``edit.php?post_type=X&page=Y`` shows instead of the list (a type's settings
        page, as WordPress's submenu pages under a type's menu), or None."""
        page = r.param("page")
        return SUBPAGES.get((r.param("post_type", "post"), page)) if page else None

    def get(self, r: AdminRequest) -> None:
        page = self._page(r)
        if page is not None:
            if not r.can(page.required(r)):
                raise Forbidden()
            page.get(r)
            return
        if r.param("post_type") == "attachment":
            r.redirect(r.url("upload.php"))  # the media library lists attachments, as WordPress's does
        kind = content_type(r, r.param("post_type", "post"))
        admin = TYPES[kind.name]
        r.post_type = kind.name
        names = labels(kind)
        status = r.param("post_status")
        page = max(1, number(r.param("paged"), 1))
        per_page = r.per_page(f"edit_{kind.name}_per_page")
        orderby = r.param("orderby") or admin.default_orderby
        order = "asc" if (r.param("order") or admin.default_order).lower() == "asc" else "desc"
        query: dict[str, Any] = {"context": "edit", "page": page, "per_page": per_page, "orderby": orderby, "order": order}
        mine = r.param("author") == str(r.user.id)
        if status in STATUS_LABELS:
            query["status"] = status
        else:
            query["status"] = "publish,future,draft,pending,private"
        if mine:
            query["author"] = r.user.id
        if r.param("s"):
            query["search"] = r.param("s")
        chosen: dict[str, str] = {}
        for found in admin.filters:
            value = r.param(found.name)
            added = found.query(value) if value else None
            if added is not None:
                chosen[found.name] = value
                query.update(added)
        route = route_of(kind)
        if admin.listing is not None:
            route, query = admin.listing(r, query)
        answer = r.api.get(route, **query)
        if not answer.ok and answer.code == "rest_post_invalid_page_number" and page > 1:
            r.redirect(r.url("edit.php", post_type=kind.name if kind.name != "post" else None, post_status=status or None))
        rows = answer.data if answer.ok and isinstance(answer.data, list) else []
        if admin.row is not None and answer.ok:
            rows = [admin.row(row) for row in (answer.data.get("events", []) if isinstance(answer.data, dict) else rows)]
        if not answer.ok:
            r.notice(answer.message, "error")
        authors = author_names(r, rows)
        with r.site.read() as conn:
            counts = item_service.status_counts(conn, kind.name)
            own = sum(item_service.status_counts(conn, kind.name, author=r.user.id).values())
        links = self._status_links(r, kind, counts, own, status, mine)
        total = answer.total
        pages = max(1, math.ceil(total / per_page)) if total else 1
        self._notices(r, names)
        r.render("admin/list.html", title=names.get("name", kind.label), kind=kind, names=names, admin=admin, rows=rows,
                 authors=authors, links=links, status=status, page=page, pages=pages, total=total, per_page=per_page,
                 orderby=orderby, order=order, search=r.param("s"), chosen=chosen,
                 filters=[(f, f.choices(r)) for f in admin.filters], bulk_nonce=r.nonce("bulk-posts"),
                 can_create=r.can(kind.caps["create_posts"]), row_actions=lambda row: self._row_actions(r, kind, row),
                 status_name=STATUS_NAMES,
                 page_url=lambda n: r.url("edit.php", post_type=kind.name if kind.name != "post" else None,
                                          post_status=status or None, s=r.param("s") or None, orderby=orderby, order=order,
                                          paged=n if n > 1 else None, **chosen))

    @staticmethod
    def _status_links(r: AdminRequest, kind: Any, counts: dict[str, int], own: int, current: str, mine: bool) -> list[dict]:
        listed = kind.name if kind.name != "post" else None
        shown = [s for s in ("publish", "future", "draft", "pending", "private") if counts.get(s)]
        every = sum(counts.get(s, 0) for s in ("publish", "future", "draft", "pending", "private"))
        links = [{"label": "All", "count": every, "url": r.url("edit.php", post_type=listed), "current": not current and not mine}]
        if own and own != every:
            links.append({"label": "Mine", "count": own, "url": r.url("edit.php", post_type=listed, author=r.user.id),
                          "current": mine})
        links += [{"label": STATUS_LABELS[s], "count": counts[s], "url": r.url("edit.php", post_type=listed, post_status=s),
                   "current": current == s} for s in shown]
        if counts.get("trash"):
            links.append({"label": "Trash", "count": counts["trash"],
                          "url": r.url("edit.php", post_type=listed, post_status="trash"), "current": current == "trash"})
        return links

    @staticmethod
    def _row_actions(r: AdminRequest, kind: Any, row: dict[str, Any]) -> list[tuple[str, str, str]]:
        """(label, url, css class) per action the user may take on the row."""
        item_id = row["id"]
        found: list[tuple[str, str, str]] = []
        if row.get("status") == "trash":
            found.append(("Restore", r.url("post.php", post=item_id, action="untrash",
                                              _wpnonce=r.nonce(f"untrash-post_{item_id}")), "untrash"))
            found.append(("Delete Permanently", r.url("post.php", post=item_id, action="delete",
                                                         _wpnonce=r.nonce(f"delete-post_{item_id}")), "delete"))
            return found
        found.append(("Edit", r.url("post.php", post=item_id, action="edit"), "edit"))
        found.append(("Trash", r.url("post.php", post=item_id, action="trash", _wpnonce=r.nonce(f"trash-post_{item_id}")),
                      "trash"))
        link = row.get("link") or ""
        if link and row.get("status") in ("publish", "private"):
            found.append(("View", link, "view"))
        elif link and kind.viewable:
            found.append(("Preview", link + ("&" if "?" in link else "?") + "preview=true", "view"))
        return found

    @staticmethod
    def _notices(r: AdminRequest, names: dict[str, str]) -> None:
        for key, singular, plural in (("trashed", "moved to the Trash", "moved to the Trash"),
                                      ("untrashed", "restored from the Trash", "restored from the Trash"),
                                      ("deleted", "permanently deleted", "permanently deleted"),
                                      ("updated", "updated", "updated")):
            count = number(r.param(key))
            if count:
                noun = names.get("singular_name", "item") if count == 1 else names.get("name", "items")
                text = f"{count} {noun.lower()} {singular if count == 1 else plural}."
                r.notice(text)
        for error in r.req.get_param_as_list("error") or []:
            r.notice(str(error), "error")

    def post(self, r: AdminRequest) -> None:
        """Bulk actions (and the screen options' items per page)."""
        page = self._page(r)
        if page is not None and page.post is not None:
            if not r.can(page.required(r)):
                raise Forbidden()
            page.post(r)
            return
        kind = content_type(r, r.param("post_type") or r.field("post_type") or "post")
        listed = kind.name if kind.name != "post" else None
        if r.take_screen_options(f"edit_{kind.name}_per_page"):
            r.redirect(r.url("edit.php", post_type=listed))
        r.verify("bulk-posts")
        action = r.field("action")
        if action in ("", "-1"):
            action = r.field("action2")
        ids = [number(value) for value in (r.form.get("post") or []) if number(value)] if isinstance(r.form.get("post"), list) \
            else [number(r.form.get("post"))] if number(r.form.get("post")) else []
        done, errors = bulk(r, kind, action, ids, r.field("_status"))
        key = {"trash": "trashed", "untrash": "untrashed", "delete": "deleted", "edit": "updated"}.get(action, "updated")
        query: dict[str, Any] = {"post_type": listed, key: done or None, "error": errors[:5] or None,
                                 "post_status": r.field("post_status") or None}
        r.redirect(r.url("edit.php", **query))


def bulk(r: AdminRequest, kind: Any, action: str, ids: list[int], status: str = "") -> tuple[int, list[str]]:
    """Apply a bulk or row action to ``ids`` through the REST engine: (how many it did, errors)."""
    done, errors = 0, []
    for item_id in ids:
        route = route_of(kind, item_id)
        if action == "trash":
            answer = r.api.delete(route)
        elif action == "delete":
            answer = r.api.delete(route, force="true")
        elif action == "untrash":
            answer = r.api.post(route, {"status": "draft"})
        elif action == "edit" and status in STATUS_NAMES and status != "trash":
            answer = r.api.post(route, {"status": status})
        else:
            return 0, ["Choose an action."]
        if answer.ok:
            done += 1
        else:
            errors.append(f"#{item_id}: {answer.message}")
    return done, errors


# -- the editor ---------------------------------------------------------------------------------


def _terms_of(r: AdminRequest, kind: Any) -> list[dict[str, Any]]:
    """The taxonomies of ``kind`` the editor shows, each with its terms (hierarchical ones as a
    checklist, in tree order)."""
    shown = []
    for taxonomy in r.ctx.registry.taxonomies.values():
        if kind.name not in taxonomy.object_types or not getattr(taxonomy, "show_in_rest", True) or taxonomy.name in (
                "post_format", "wp_pattern_category"):
            continue
        answer = r.api.get(f"/cms/v2/{taxonomy.rest_base}", per_page=100, orderby="name", context="edit",
                           _fields="id,name,parent")
        terms = answer.data if answer.ok and isinstance(answer.data, list) else []
        shown.append({"name": taxonomy.name, "rest_base": taxonomy.rest_base, "label": taxonomy.label,
                      "hierarchical": taxonomy.hierarchical, "terms": _tree(terms)})
    return shown


def _tree(terms: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Terms as (depth, term), each after its parent."""
    children: dict[int, list[dict[str, Any]]] = {}
    for term in terms:
        children.setdefault(number(term.get("parent")), []).append(term)
    known = {term["id"] for term in terms}
    out: list[tuple[int, dict[str, Any]]] = []

    def walk(parent: int, depth: int) -> None:
        for term in children.get(parent, []):
            out.append((depth, term))
            walk(term["id"], depth + 1)

    walk(0, 0)
    for parent, found in children.items():  # orphans (a parent the user may not see)
        if parent and parent not in known:
            for term in found:
                out.append((0, term))
    return out


def _authors(r: AdminRequest, kind: Any) -> list[tuple[int, str]]:
    if not r.can(kind.caps["edit_others_posts"]):
        return []
    answer = r.api.get("/cms/v2/users", who="authors", per_page=100, context="edit", _fields="id,name")
    return [(user["id"], user["name"]) for user in answer.data] if answer.ok and isinstance(answer.data, list) else []


class NewScreen(Screen):
    """``post-new.php?post_type=X``: an empty editor."""

    file = "post-new.php"

    def required(self, r: AdminRequest) -> str:
        return content_type(r, r.param("post_type", "post")).caps["create_posts"]

    def get(self, r: AdminRequest) -> None:
        kind = content_type(r, r.param("post_type", "post"))
        show_editor(r, kind, None, None, {})

    def post(self, r: AdminRequest) -> None:
        kind = content_type(r, r.field("post_type") or r.param("post_type", "post"))
        r.verify(f"add-{kind.name}")
        # An autosave made the new item a draft meanwhile (editor.js): this form saves that draft,
        # if the user may edit it (the API decides), instead of making a second item.
        draft = number(r.field("post_ID"))
        if draft:
            with r.site.read() as conn:
                found = item_service.get_item(conn, draft)
            if found is None or found.type != kind.name:
                raise Forbidden("You attempted to edit an item that does not exist. Perhaps it was deleted?", 404)
        save_from_form(r, kind, draft or None)


class ItemScreen(Screen):
    """``post.php?post=N&action=edit`` (and trash, untrash, delete with a nonce, as WordPress's
    row links): one item's editor."""

    file = "post.php"

    def _item(self, r: AdminRequest, item_id: int) -> tuple[Any, dict[str, Any]]:
        with r.site.read() as conn:
            found = item_service.get_item(conn, item_id)
        if found is not None and found.type == "attachment":
            r.redirect(r.url("upload.php", item=item_id))  # an attachment's details live in the library
        if found is None or found.type not in TYPES:
            raise Forbidden("You attempted to edit an item that does not exist. Perhaps it was deleted?", 404)
        kind = r.ctx.registry.types[found.type]
        answer = r.api.get(route_of(kind, item_id), context="edit")
        if not answer.ok:
            raise Forbidden(NOT_EDITABLE if answer.status in (401, 403) else answer.message, answer.status)
        r.post_type = kind.name
        return kind, answer.data

    def required(self, r: AdminRequest) -> str:
        return "read"  # the item's own edit permission is the API's (an answer it refuses is a 403)

    def get(self, r: AdminRequest) -> None:
        item_id = number(r.param("post"))
        action = r.param("action", "edit")
        kind, item = self._item(r, item_id)
        if action in ("trash", "untrash", "delete"):
            r.verify(f"{action}-post_{item_id}")
            done, errors = bulk(r, kind, action, [item_id])
            listed = kind.name if kind.name != "post" else None
            key = {"trash": "trashed", "untrash": "untrashed", "delete": "deleted"}[action]
            r.redirect(r.url("edit.php", post_type=listed, **{key: done or None, "error": errors or None}))
        if r.param("get-post-lock") == "1":  # "Take over" on the locked item's page
            r.verify(f"lock-post_{item_id}")
            writing.take_lock(r, item_id)
            r.redirect(r.url("post.php", post=item_id, action="edit"))
        holder = writing.lock_holder(r, item_id)
        if holder is not None:
            show_locked(r, kind, item_id, item, holder[1])
            return
        writing.take_lock(r, item_id)
        restored = writing.restored_notice(r, kind.name, item_id)
        if restored:
            r.notice(restored)
        message = number(r.param("message"))
        if message in MESSAGES:
            singular = labels(kind).get("singular_name", "Item")
            link = item.get("link") if item.get("status") in ("publish", "private") else ""
            r.notice(MESSAGES[message].format(Singular=singular), "success", link or "",
                     f"View {singular.lower()}" if link else "")
        show_editor(r, kind, item_id, item, {})

    def post(self, r: AdminRequest) -> None:
        item_id = number(r.field("post_ID") or r.param("post"))
        kind, item = self._item(r, item_id)
        r.verify(f"update-post_{item_id}")
        if r.field("action") == "refresh-lock":  # the open editor's heartbeat (editor.js)
            r.json(writing.refresh_lock(r, item_id))
            return
        holder = writing.lock_holder(r, item_id)
        if holder is not None:  # someone took the item over: never overwrite their work silently
            r.notice(f"{holder[1]} is currently editing this {labels(kind).get('singular_name', 'item').lower()}: "
                     "your changes were not saved. Copy them, or take over the item and save again.", "error")
            show_editor(r, kind, item_id, item, {}, _sent_back(r, common_fields(r, kind, item_id, item.get("status", ""))),
                        409)
            return
        writing.take_lock(r, item_id)
        save_from_form(r, kind, item_id)


NOT_EDITABLE = "Sorry, you are not allowed to edit this item."


def show_editor(r: AdminRequest, kind: Any, item_id: int | None, item: dict[str, Any] | None,
                errors: dict[str, str], sent: dict[str, Any] | None = None, status: int = 200) -> None:
    admin = TYPES[kind.name]
    r.post_type = kind.name
    names = labels(kind)
    values = _values(item, sent, {t.rest_base: t.name for t in r.ctx.registry.taxonomies.values()})
    can_publish = r.can(kind.caps["publish_posts"])
    current = (item or {}).get("status", "auto-draft")
    title = (names.get("edit_item", f"Edit {kind.singular}") if item_id else names.get("add_new_item", f"Add New {kind.singular}"))
    editor = writing.block_editor(r, kind, item_id, admin_shows_content(kind), saves_through_route=admin.save is None)
    autosave = writing.newer_autosave(r, kind, item_id, item) if item_id and item and sent is None else None
    if autosave is not None:
        r.notice("There is an autosave of this post that is more recent than the version below.", "warning",
                 r.url("revision.php", revision=autosave["id"]), "View the autosave")
    r.render("admin/editor.html", status, title=title, block_editor=editor,
             scripts=editor["scripts"] if editor else [], styles=editor["styles"] if editor else [],
             preview=writing.preview_link(item or {}), revisions=_revisions(r, kind, item_id), kind=kind, names=names, admin=admin, item=item or {}, item_id=item_id,
             values=values, errors=errors, can_publish=can_publish, current=current, status_name=STATUS_NAMES,
             taxonomies=_terms_of(r, kind), authors=_authors(r, kind),
             panels=[(panel, panel.values(r, item if sent is None else None) if sent is None else
                      {**panel.values(r, item), **{k: v for k, v in sent.items()}}) for panel in admin.panels],
             nonce=r.nonce(f"update-post_{item_id}" if item_id else f"add-{kind.name}"),
             images=_recent_images(r), pages=_parents(r, kind, item_id))


def show_locked(r: AdminRequest, kind: Any, item_id: int, item: dict[str, Any], holder: str) -> None:
    """The page another user sees while ``holder`` edits the item: go back, preview or take over."""
    names = labels(kind)
    r.render("admin/post-locked.html", title=names.get("edit_item", f"Edit {kind.singular}"), kind=kind, holder=holder,
             singular=names["singular_name"],
             item=item, back=r.url("edit.php", post_type=kind.name if kind.name != "post" else None),
             preview=writing.preview_link(item), take_over=r.url("post.php", post=item_id, action="edit",
                                                                 **{"get-post-lock": 1},
                                                                 _wpnonce=r.nonce(f"lock-post_{item_id}")))


def _revisions(r: AdminRequest, kind: Any, item_id: int | None) -> tuple[int, str] | None:
    """How many revisions the item has and the address of the newest one's screen, if any."""
    if not item_id or "revision.php" not in r.calpress.admin_files:
        return None
    return writing.revisions_link(r, kind.name, item_id)


def _values(item: dict[str, Any] | None, sent: dict[str, Any] | None, bases: dict[str, str]) -> dict[str, Any]:
    """The common fields as the form shows them: from the form sent back, else the item
    (``bases``: taxonomy REST base -> name)."""
    if sent is not None:
        return sent
    item = item or {}
    date = item.get("date") if item.get("status") == "future" or item.get("date_gmt") else None
    return {
        "title": text_of(item.get("title")), "content": text_of(item.get("content")), "excerpt": text_of(item.get("excerpt")),
        "slug": item.get("slug") or "", "password": item.get("password") or "", "author": item.get("author") or "",
        "featured_media": item.get("featured_media") or 0, "comment_status": item.get("comment_status") or "open",
        "ping_status": item.get("ping_status") or "open", "sticky": bool(item.get("sticky")),
        "parent": item.get("parent") or 0, "menu_order": item.get("menu_order") or 0,
        "visibility": "private" if item.get("status") == "private" else "password" if item.get("password") else "public",
        "date": (date or "")[:16], "pending": item.get("status") == "pending",
        "terms": {bases[key]: item[key] for key in bases if isinstance(item.get(key), list)},
    }


def _recent_images(r: AdminRequest) -> list[tuple[int, str]]:
    if not r.can("upload_files") and not r.can("edit_posts"):
        return []
    answer = r.api.get("/cms/v2/media", media_type="image", per_page=50, context="edit", _fields="id,title")
    return [(m["id"], text_of(m.get("title")) or f"#{m['id']}") for m in answer.data] \
        if answer.ok and isinstance(answer.data, list) else []


def _parents(r: AdminRequest, kind: Any, item_id: int | None) -> list[tuple[int, str]]:
    if not kind.hierarchical:
        return []
    answer = r.api.get(route_of(kind), per_page=100, context="edit", status="publish,future,draft,pending,private",
                       _fields="id,title", orderby="title", order="asc")
    return [(p["id"], text_of(p.get("title")) or f"#{p['id']}") for p in answer.data if p["id"] != item_id] \
        if answer.ok and isinstance(answer.data, list) else []


def common_fields(r: AdminRequest, kind: Any, item_id: int | None, current: str) -> dict[str, Any]:
    """The common fields of the posted form as the cms/v2 route takes them, with the status the
    pressed button means (WordPress's publish box: a contributor's "Submit for Review" is pending)."""
    form = r.form
    body: dict[str, Any] = {"title": r.field("post_title"), "slug": r.field("post_name") or None}
    if admin_shows_content(kind):
        body["content"] = r.field("content")
    if kind.has_rest_feature("excerpt"):
        body["excerpt"] = r.field("excerpt")
    visibility = r.field("visibility", "public")
    body["password"] = r.field("post_password") if visibility == "password" else ""
    can_publish = r.can(kind.caps["publish_posts"])
    if "publish" in form:
        body["status"] = ("private" if visibility == "private" else "publish") if can_publish else "pending"
    elif current in ("publish", "future", "private"):
        body["status"] = "private" if visibility == "private" and can_publish else current if current != "private" else \
            ("publish" if visibility != "private" else "private")
    else:
        body["status"] = "pending" if r.field("post_status") == "pending" else "draft"
    date = r.field("post_date")
    if date:
        body["date"] = date if len(date) > 16 else date + ":00"
    if r.field("post_author") and r.can(kind.caps["edit_others_posts"]):
        body["author"] = number(r.field("post_author"))
    if kind.has_rest_feature("thumbnail") or kind.supports_feature("thumbnail"):
        body["featured_media"] = number(r.field("_thumbnail_id"))
    if kind.has_rest_feature("comments") or kind.supports_feature("comments"):
        body["comment_status"] = "open" if r.field("comment_status") == "open" else "closed"
        body["ping_status"] = "open" if r.field("ping_status") == "open" else "closed"
    if kind.name == "post":
        body["sticky"] = r.field("sticky") == "sticky"
    if kind.hierarchical:
        body["parent"] = number(r.field("parent_id"))
    if kind.has_rest_feature("page-attributes") or kind.supports_feature("page-attributes"):
        body["menu_order"] = number(r.field("menu_order"))
    tax_input = form.get("tax_input") if isinstance(form.get("tax_input"), dict) else {}
    present = form.get("tax_present") if isinstance(form.get("tax_present"), dict) else {}
    for name in present:  # the taxonomies the form showed (an unticked checklist sends nothing)
        taxonomy = r.ctx.registry.taxonomies.get(name)
        if taxonomy is None or kind.name not in taxonomy.object_types:
            continue
        chosen = tax_input.get(name)
        ids = [number(v) for v in (chosen if isinstance(chosen, list) else [chosen] if chosen else []) if number(v)]
        ids += _new_terms(r, taxonomy, r.field(f"new_term[{name}]") or _nested(form, "new_term", name))
        body[taxonomy.rest_base] = list(dict.fromkeys(ids))
    return {key: value for key, value in body.items() if value is not None}


def _nested(form: dict[str, Any], group: str, key: str) -> str:
    found = form.get(group)
    value = found.get(key) if isinstance(found, dict) else None
    return str(value) if isinstance(value, str) else ""


def admin_shows_content(kind: Any) -> bool:
    admin = TYPES.get(kind.name)
    return (admin.shows_content if admin else True) and (kind.has_rest_feature("editor") or kind.supports_feature("editor"))


def _new_terms(r: AdminRequest, taxonomy: Any, names: str) -> list[int]:
    """Terms typed in "Add new" (comma-separated names): each found by name or created."""
    made = []
    for name in [n.strip() for n in names.split(",") if n.strip()]:
        found = r.api.get(f"/cms/v2/{taxonomy.rest_base}", search=name, per_page=100, _fields="id,name")
        match = next((t["id"] for t in (found.data or []) if isinstance(found.data, list) and t["name"].lower() == name.lower()), None)
        if match is None:
            created = r.api.post(f"/cms/v2/{taxonomy.rest_base}", {"name": name})
            match = created.data.get("id") if created.ok else None
        if match:
            made.append(match)
    return made


def save_from_form(r: AdminRequest, kind: Any, item_id: int | None) -> None:
    admin = TYPES[kind.name]
    current = "auto-draft"
    if item_id:
        with r.site.read() as conn:
            found = item_service.get_item(conn, item_id)
        current = found.status if found else current
    body = common_fields(r, kind, item_id, current)
    if admin.save is not None:
        answer, saved_id = admin.save(r, item_id, body)
    else:
        answer = r.api.post(route_of(kind, item_id), body)
        saved_id = answer.data.get("id") if answer.ok else item_id
    if not answer.ok:
        sent = _sent_back(r, body)
        errors = answer.field_errors or {"": answer.message}
        r.notice(answer.message, "error")
        item = r.api.get(route_of(kind, saved_id), context="edit").data if saved_id else None
        show_editor(r, kind, saved_id, item if isinstance(item, dict) else None, _form_names(errors), sent, 400)
        return
    status = answer.data.get("status") if isinstance(answer.data, dict) else ""
    message = {"publish": 6, "future": 9, "pending": 8, "private": 1, "draft": 10}.get(status, 1)
    if item_id and status in ("publish", "private") and current == status:
        message = 1
    r.redirect(r.url("post.php", post=saved_id, action="edit", message=message))


# REST field -> the form field that shows it (errors appear beside it).
FORM_NAMES = {"title": "post_title", "slug": "post_name", "content": "content", "excerpt": "excerpt",
              "password": "post_password", "date": "post_date", "author": "post_author", "featured_media": "_thumbnail_id",
              "parent": "parent_id", "menu_order": "menu_order", "status": "post_status"}


def _form_names(errors: dict[str, str]) -> dict[str, str]:
    return {FORM_NAMES.get(name, name): reason for name, reason in errors.items()}


def _sent_back(r: AdminRequest, body: dict[str, Any]) -> dict[str, Any]:
    """The form as the user sent it, to show again after an error."""
    tax_input = r.form.get("tax_input") if isinstance(r.form.get("tax_input"), dict) else {}
    return {
        "title": r.field("post_title"), "content": r.field("content"), "excerpt": r.field("excerpt"),
        "slug": r.field("post_name"), "password": r.field("post_password"), "author": number(r.field("post_author")) or "",
        "featured_media": number(r.field("_thumbnail_id")), "comment_status": r.field("comment_status") or "closed",
        "ping_status": r.field("ping_status") or "closed", "sticky": r.field("sticky") == "sticky",
        "parent": number(r.field("parent_id")), "menu_order": number(r.field("menu_order")),
        "visibility": r.field("visibility", "public"), "date": r.field("post_date"),
        "pending": r.field("post_status") == "pending",
        "terms": {name: [number(v) for v in (ids if isinstance(ids, list) else [ids])] for name, ids in tax_input.items()},
        **{key: value for key, value in r.form.items() if isinstance(key, str) and key.startswith(("event_", "venue_", "organizer_", "new_venue_", "new_organizer_"))},
    }
