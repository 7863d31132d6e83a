"""The public site's navigation: the header's menu and the footer's, as the layout shows them.

The header shows the menu assigned to the theme location ``primary`` (content/menus.py), nested
entries as nested lists; with none assigned it shows what the reference's fallback
(wp_page_menu) does: Home, then the published top-level pages by menu order and title, and here
the calendar too. Either way the last link is "Log in", or "Dashboard" for a logged-in user. The
footer shows the menu assigned to ``footer``, when one is.

The trees are read once per content counter (every write of content or options bumps it) and
site address; a page marks its current link on a copy (``aria-current="page"``).
"""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass
from typing import Any

from ..content import items as item_service
from ..content import menus
from ..content.items import Context, Item

# Trees kept at most (one per site address a request used, per counter value).
_KEPT = 8


@dataclass(frozen=True)
class _Trees:
    primary: list[menus.MenuNode] | None
    footer: list[menus.MenuNode] | None
    pages: list[tuple[str, str, int]]  # fallback: (title, address, page id)


class Navigation:
    """The navigation of one site's pages; ``generation`` reads the content counter."""

    def __init__(self, site: Any, generation: Any) -> None:
        self.site = site
        self.generation = generation
        self._kept: dict[tuple[int, str], _Trees] = {}
        self._lock = threading.Lock()

    def _trees(self, ctx: Context) -> _Trees:
        key = (int(self.generation() or 0), ctx.home)
        found = self._kept.get(key)
        if found is not None:
            return found
        with self.site.read() as conn:
            trees = menus.location_menus(conn, ctx, ("primary", "footer"))
            primary, footer = trees["primary"], trees["footer"]
            pages: list[tuple[str, str, int]] = []
            if primary is None:
                found_pages = menus.top_level_pages(conn)
                pages = [(page.title or f"#{page.id} (no title)", item_service.permalink(ctx, page), page.id) for page in found_pages]
        found = _Trees(primary, footer, pages)
        with self._lock:
            if len(self._kept) >= _KEPT:
                self._kept.clear()
            self._kept[key] = found
        return found

    def model(self, ctx: Context, *, current: str = "", item: Item | None = None, logged_in: bool = False,
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The header's links and the footer's (empty without a footer menu), as dictionaries the
        layout renders: title, url, attr_title, target, rel, classes, current, children."""
        trees = self._trees(ctx)
        home = ctx.home.rstrip("/")
        here = {"home": home + "/", "events": home + "/events/"}.get(current, "")
        current_id = item.id if item is not None else 0

        def shown(node: menus.MenuNode) -> dict[str, Any]:
            is_current = bool(node.url) and (
                (current_id and node.object_id == current_id and node.kind == "post_type") or (here and node.url == here)
            )
            return {
                "title": html.unescape(node.title), "url": node.url, "attr_title": node.attr_title, "target": node.target,
                "rel": node.rel, "classes": " ".join(node.classes), "current": is_current,
                "children": [shown(child) for child in node.children],
            }

        if trees.primary is not None:
            header = [shown(node) for node in trees.primary]
        else:
            header = [shown(menus.MenuNode("Home", home + "/"))]
            header += [shown(menus.MenuNode(title, url, object_id=page_id, kind="post_type")) for title, url, page_id in trees.pages]
            header.append(shown(menus.MenuNode("Events", home + "/events/")))
        account = ("Dashboard", home + "/wp-admin/") if logged_in else ("Log in", home + "/wp-login.php")
        header.append(shown(menus.MenuNode(*account)))
        footer = [shown(node) for node in trees.footer] if trees.footer else []
        return header, footer
