"""The admin bar over the public pages for a logged-in user (the reference's admin-bar.php): the
site's name to the dashboard, "New" with what the user may create, "Edit <type>" on an item the
user may edit, and the user's menu (Edit Profile, Log Out with its nonce).

The workspace's pages show the same bar (admin/menu.py). A link appears only with its capability
and once its screen exists (``admin_files``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from urllib.parse import urlencode

from ..auth import sessions
from ..calendar import events as cal
from ..content import permissions
from ..content.items import Context, Item
from ..content.types import type_labels
from .auth import ADMIN_PATH as ADMIN
from .auth import LOGIN_PATH as LOGIN
from .auth import LOGOUT_ACTION

# "New": label, screen, query, and the capability (a content type's create_posts, or a primitive).
NEW_ENTRIES: tuple[tuple[str, str, tuple[tuple[str, str], ...], str], ...] = (
    ("Post", "post-new.php", (), "type:post"),
    ("Event", "post-new.php", (("post_type", cal.EVENT_TYPE),), f"type:{cal.EVENT_TYPE}"),
    ("Venue", "post-new.php", (("post_type", cal.VENUE_TYPE),), f"type:{cal.VENUE_TYPE}"),
    ("Organizer", "post-new.php", (("post_type", cal.ORGANIZER_TYPE),), f"type:{cal.ORGANIZER_TYPE}"),
    ("Page", "post-new.php", (("post_type", "page"),), "type:page"),
    ("Media", "media-new.php", (), "upload_files"),
    ("User", "user-new.php", (), "create_users"),
)


@dataclass
class AdminBar:
    home: str  # the public site
    dashboard: str
    name: str
    logout: str
    profile: str = ""
    new: list[tuple[str, str]] = field(default_factory=list)
    edit: tuple[str, str] | None = None  # (label, url) of the item shown


def _may(ctx: Context, capability: str) -> bool:
    if capability.startswith("type:"):
        found = ctx.registry.types.get(capability[5:])
        return found is not None and ctx.can(found.caps["create_posts"])
    return ctx.can(capability)


def admin_bar(ctx: Context, session: sessions.Session, secret_key: str, origin: str, admin_files: Collection[str],
              item: Item | None = None) -> AdminBar:
    """The bar for ``ctx``'s (logged-in) user in ``session``; ``item``: the single item the page
    shows, for its edit link."""
    user = ctx.user

    def url(file: str, query: tuple[tuple[str, str], ...] = ()) -> str:
        return origin + ADMIN + file + (f"?{urlencode(query)}" if query else "")

    nonce = sessions.create_nonce(secret_key, LOGOUT_ACTION, user.id, session.token)
    bar = AdminBar(
        home=origin + "/",
        dashboard=origin + ADMIN,
        name=user.display_name or user.login,
        logout=f"{origin}{LOGIN}?action=logout&_wpnonce={nonce}",
        profile=url("profile.php") if "profile.php" in admin_files else "",
        new=[(label, url(file, query)) for label, file, query, capability in NEW_ENTRIES
             if file in admin_files and _may(ctx, capability)],
    )
    if item is not None and "post.php" in admin_files and permissions.can_edit(ctx, item):
        content_type = ctx.registry.types.get(item.type)
        label = type_labels(content_type).get("edit_item") if content_type else None
        bar.edit = (label or "Edit", url("post.php", (("post", str(item.id)), ("action", "edit"))))
    return bar
