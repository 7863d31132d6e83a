"""Appearance > Menus (``nav-menus.php``), as WordPress's screen of that name, without script:

* the "Edit Menus" tab: choose a menu (or create one), add pages, posts, events, categories and
  custom links to it, move its entries up and down, nest them under the entry above and take them
  out again, remove them, rename the menu, choose its display locations and whether new
  top-level pages join it, delete it;
* the "Manage Locations" tab: which menu each theme location shows.

Opening it needs ``edit_theme_options``. Every change goes through ``/cms/v2/menus`` and
``/cms/v2/menu-items`` as the user (admin/api.py), so the API's rules and errors apply; a
structure change (move, nest) rewrites the menu order and parents of the entries it moved.
"""

from __future__ import annotations

import html
from typing import Any

from ..content import menus
from .shell import AdminRequest, Screen
from .values import number

__all__ = ["SCREENS", "MenusScreen", "reordered"]

FILE = "nav-menus.php"
ENTRIES_MAX = 100  # the menu-items collection's largest page
CHOICES = 30  # the latest items each "Add menu items" box offers
MESSAGES = {
    "created": "Menu created.", "updated": "Menu updated.", "deleted": "The menu has been successfully deleted.",
    "added": "Menu items added.", "moved": "Menu structure changed.", "removed": "Menu item removed.",
    "locations": "Menu locations updated.", "item": "Menu item updated.",
}
OPERATIONS = ("up", "down", "indent", "outdent", "remove")


def _text(value: Any) -> str:
    return html.unescape(str(value or ""))


def _rendered(value: Any) -> str:
    return _text(value.get("rendered") if isinstance(value, dict) else value)


def _listed(value: Any) -> list[Any]:
    """A form field of ``name[]`` inputs as a list (one value, or none, alike)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value.values())
    return [value] if value else []


def _mapping(value: Any) -> dict[str, Any]:
    """A form field of ``name[key]`` inputs as a mapping."""
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


def reordered(entries: list[dict[str, Any]], entry_id: int, operation: str) -> dict[int, tuple[int, int]]:
    """The new (parent, menu order) of every entry after ``operation`` on ``entry_id``: ``up`` and
    ``down`` swap it (with what is nested under it) with its neighbour at its level, ``indent``
    puts it last under the entry above it at its level, ``outdent`` puts it right after its
    parent, at its parent's level. Orders are then 1..n in the order the menu shows."""
    known = {entry["id"] for entry in entries}
    ordered = sorted(entries, key=lambda entry: (number(entry.get("menu_order")), entry["id"]))
    parent_of = {e["id"]: (number(e.get("parent")) if number(e.get("parent")) in known else 0) for e in ordered}
    children: dict[int, list[int]] = {}
    for entry in ordered:
        children.setdefault(parent_of[entry["id"]], []).append(entry["id"])
    if entry_id in known:
        level = children[parent_of[entry_id]]
        at = level.index(entry_id)
        if operation == "up" and at > 0:
            level[at - 1], level[at] = level[at], level[at - 1]
        elif operation == "down" and at < len(level) - 1:
            level[at + 1], level[at] = level[at], level[at + 1]
        elif operation == "indent" and at > 0:
            above = level[at - 1]
            level.pop(at)
            children.setdefault(above, []).append(entry_id)
            parent_of[entry_id] = above
        elif operation == "outdent" and parent_of[entry_id]:
            parent = parent_of[entry_id]
            level.pop(at)
            upper = children[parent_of[parent]]
            upper.insert(upper.index(parent) + 1, entry_id)
            parent_of[entry_id] = parent_of[parent]
    result: dict[int, tuple[int, int]] = {}
    seen: set[int] = set()

    def walk(parent: int) -> None:
        for child in children.get(parent, []):
            if child in seen:
                continue
            seen.add(child)
            result[child] = (parent_of[child], len(result) + 1)
            walk(child)

    walk(0)
    return result


class MenusScreen(Screen):
    file = FILE
    capability = "edit_theme_options"
    refusal = "Sorry, you are not allowed to edit theme options on this site."

    # -- reading --------------------------------------------------------------------------------

    @staticmethod
    def _menus(r: AdminRequest) -> list[dict[str, Any]]:
        answer = r.api.get("/cms/v2/menus", per_page=100, context="edit")
        found = answer.data if answer.ok and isinstance(answer.data, list) else []
        return sorted(found, key=lambda menu: (_text(menu.get("name")).lower(), menu["id"]))

    @staticmethod
    def _entries(r: AdminRequest, menu_id: int) -> list[dict[str, Any]]:
        answer = r.api.get("/cms/v2/menu-items", menus=menu_id, per_page=ENTRIES_MAX, status="publish,draft", context="edit")
        return answer.data if answer.ok and isinstance(answer.data, list) else []

    @staticmethod
    def _choices(r: AdminRequest, route: str, **query: Any) -> list[tuple[int, str]]:
        answer = r.api.get(route, per_page=CHOICES, _fields="id,title,name", **query)
        rows = answer.data if answer.ok and isinstance(answer.data, list) else []
        return [(row["id"], _rendered(row.get("title") if "title" in row else row.get("name")) or f"#{row['id']} (no title)")
                for row in rows]

    def get(self, r: AdminRequest) -> None:
        message = MESSAGES.get(r.param("message"))
        if message:
            r.notice(message)
        found = self._menus(r)
        if r.param("action") == "locations":
            assigned = menus.menu_locations(r.site.load_options())
            r.render("admin/nav-menus.html", title="Menus", tab="locations", menus=found, locations=menus.LOCATIONS,
                     assigned=assigned, nonce=r.nonce("save-menu-locations"))
            return
        wanted = number(r.param("menu"), -1)
        creating = wanted == 0 or not found
        current = None if creating else next((menu for menu in found if menu["id"] == wanted), found[0])
        context: dict[str, Any] = {"tab": "edit", "menus": found, "current": current, "creating": creating,
                                   "locations": menus.LOCATIONS, "sent": {}, "errors": {}}
        if current is not None:
            entries = self._entries(r, current["id"])
            order = reordered(entries, 0, "")
            by_id = {entry["id"]: entry for entry in entries}
            depth: dict[int, int] = {}
            rows = []
            for entry_id, (parent, _) in sorted(order.items(), key=lambda pair: pair[1][1]):
                depth[entry_id] = depth.get(parent, -1) + 1 if parent else 0
                rows.append((depth[entry_id], by_id[entry_id]))
            context.update(
                rows=rows, text=_text, rendered=_rendered,
                pages=self._choices(r, "/cms/v2/pages", orderby="title", order="asc"),
                posts=self._choices(r, "/cms/v2/posts"),
                events=self._choices(r, "/cms/v2/cal_events") if "cal_events" in r.ctx.registry.types else [],
                categories=self._choices(r, "/cms/v2/categories", orderby="name", order="asc"),
                nonce=r.nonce(f"update-nav_menu-{current['id']}"),
            )
        else:
            context["nonce"] = r.nonce("add-nav-menu")
        r.render("admin/nav-menus.html", title="Menus", **context)

    # -- writing --------------------------------------------------------------------------------

    def post(self, r: AdminRequest) -> None:
        action = r.field("action")
        if action == "locations":
            self._locations(r)
        elif action == "create":
            self._create(r)
        else:
            self._change(r, number(r.field("menu")), action)

    def _fail(self, r: AdminRequest, message: str, menu_id: int = 0) -> None:
        r.notice(message, "error")
        r.req.params["menu"] = str(menu_id) if menu_id else "0"
        self.get(r)
        r.resp.status = "400 Bad Request"

    def _create(self, r: AdminRequest) -> None:
        r.verify("add-nav-menu")
        name = r.field("menu-name").strip()
        if not name:
            self._fail(r, "Please enter a valid menu name.")
            return
        body: dict[str, Any] = {"name": name}
        answer = r.api.post("/cms/v2/menus", body)
        if not answer.ok:
            self._fail(r, _text(answer.message.replace("<strong>", "").replace("</strong>", "")))
            return
        r.redirect(r.url(FILE, menu=answer.data["id"], message="created"))

    def _change(self, r: AdminRequest, menu_id: int, action: str) -> None:
        r.verify(f"update-nav_menu-{menu_id}")
        route = f"/cms/v2/menus/{menu_id}"
        if action == "delete":
            answer = r.api.delete(route, force="true")
            if not answer.ok:
                self._fail(r, answer.message, menu_id)
                return
            r.redirect(r.url(FILE, message="deleted"))
        if action == "add-items":
            self._add_items(r, menu_id)
            return
        if action == "edit-item":
            self._edit_item(r, menu_id, number(r.field("menu-item")))
            return
        operation = r.field("entry-action")
        if operation:
            verb, _, entry = operation.partition(":")
            if verb in OPERATIONS and number(entry):
                self._structure(r, menu_id, number(entry), verb)
                return
        # Save Menu: its name, locations and auto-add.
        chosen = _mapping(r.form.get("menu-locations"))
        locations = [name for name in menus.LOCATIONS if chosen.get(name)]
        body = {"name": r.field("menu-name").strip(), "auto_add": bool(r.field("auto-add-pages")), "locations": locations}
        answer = r.api.post(route, body)
        if not answer.ok:
            self._fail(r, _text(answer.message.replace("<strong>", "").replace("</strong>", "")), menu_id)
            return
        r.redirect(r.url(FILE, menu=menu_id, message="updated"))

    def _add_items(self, r: AdminRequest, menu_id: int) -> None:
        wanted: list[dict[str, Any]] = []
        for field_name, kind in (("page", "post_type"), ("post", "post_type"), ("event", "post_type"), ("category", "taxonomy")):
            for value in _listed(r.form.get(field_name)):
                if number(value):
                    wanted.append({"type": kind, "object_id": number(value)})
        url, label = r.field("custom-url").strip(), r.field("custom-label").strip()
        if url or label:
            wanted.append({"type": "custom", "url": url, "title": label})
        if not wanted:
            self._fail(r, "Choose something to add to the menu.", menu_id)
            return
        last = max((number(entry.get("menu_order")) for entry in self._entries(r, menu_id)), default=0)
        for offset, body in enumerate(wanted, start=1):
            answer = r.api.post("/cms/v2/menu-items", {**body, "menus": menu_id, "menu_order": last + offset, "status": "publish"})
            if not answer.ok:
                self._fail(r, answer.message, menu_id)
                return
        r.redirect(r.url(FILE, menu=menu_id, message="added"))

    def _edit_item(self, r: AdminRequest, menu_id: int, entry_id: int) -> None:
        """An entry's label (empty: the title of what it links), and a custom link's address."""
        if entry_id not in {entry["id"] for entry in self._entries(r, menu_id)}:
            self._fail(r, "You attempted to edit an item that does not exist. Perhaps it was deleted?", menu_id)
            return
        body: dict[str, Any] = {"title": r.field("menu-item-title").strip()}
        if "menu-item-url" in r.form:
            body["url"] = r.field("menu-item-url").strip()
        answer = r.api.post(f"/cms/v2/menu-items/{entry_id}", body)
        if not answer.ok:
            self._fail(r, answer.message, menu_id)
            return
        r.redirect(r.url(FILE, menu=menu_id, message="item"))

    def _structure(self, r: AdminRequest, menu_id: int, entry_id: int, operation: str) -> None:
        entries = self._entries(r, menu_id)
        by_id = {entry["id"]: entry for entry in entries}
        if entry_id not in by_id:
            self._fail(r, "You attempted to edit an item that does not exist. Perhaps it was deleted?", menu_id)
            return
        if operation == "remove":
            # Its children move up to its parent, as WordPress's screen moves them.
            parent = number(by_id[entry_id].get("parent"))
            for entry in entries:
                if number(entry.get("parent")) == entry_id:
                    r.api.post(f"/cms/v2/menu-items/{entry['id']}", {"parent": parent})
            answer = r.api.delete(f"/cms/v2/menu-items/{entry_id}", force="true")
            if not answer.ok:
                self._fail(r, answer.message, menu_id)
                return
            r.redirect(r.url(FILE, menu=menu_id, message="removed"))
        for changed_id, (parent, order) in reordered(entries, entry_id, operation).items():
            entry = by_id[changed_id]
            if number(entry.get("parent")) != parent or number(entry.get("menu_order")) != order:
                answer = r.api.post(f"/cms/v2/menu-items/{changed_id}", {"parent": parent, "menu_order": order})
                if not answer.ok:
                    self._fail(r, answer.message, menu_id)
                    return
        r.redirect(r.url(FILE, menu=menu_id, message="moved"))

    def _locations(self, r: AdminRequest) -> None:
        r.verify("save-menu-locations")
        found = self._menus(r)
        known = {menu["id"] for menu in found}
        chosen = _mapping(r.form.get("menu-locations"))
        wanted = {name: number(chosen.get(name)) for name in menus.LOCATIONS}
        wanted = {name: (menu_id if menu_id in known else 0) for name, menu_id in wanted.items()}
        # Each menu's locations as asked: menus losing one first, then those gaining one.
        changes: list[tuple[int, list[str], bool]] = []
        for menu in found:
            before = list(menu.get("locations") or [])
            kept = [name for name in before if name not in menus.LOCATIONS or wanted.get(name) == menu["id"]]
            after = kept + [name for name, menu_id in wanted.items() if menu_id == menu["id"] and name not in kept]
            if sorted(after) != sorted(before):
                changes.append((menu["id"], after, len(after) < len(before)))
        for menu_id, after, _ in sorted(changes, key=lambda change: not change[2]):
            answer = r.api.post(f"/cms/v2/menus/{menu_id}", {"locations": after})
            if not answer.ok:
                r.notice(answer.message, "error")
                self.get(r)
                return
        r.redirect(r.url(FILE, action="locations", message="locations"))


SCREENS: list[Screen] = [MenusScreen()]
