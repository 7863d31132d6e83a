"""The workspace's menu and admin bar: WordPress's admin menu, each entry shown to the users who
hold its capability and only once its screen exists (a screen added to ``admin/__init__.py``
appears by itself)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..content import comments as comment_store
from ..pages.adminbar import AdminBar
from ..pages.adminbar import admin_bar as public_admin_bar

if TYPE_CHECKING:
    from .shell import AdminRequest

__all__ = ["Entry", "admin_bar", "menu_for"]


@dataclass(frozen=True)
class Entry:
    """A link of the menu: its label, its screen file and query, and the capability it needs
    (a type's capability is named ``type:<post type>:<key>``, read from the type's definition)."""

    label: str
    file: str
    capability: str
    query: tuple[tuple[str, str], ...] = ()
    children: tuple[Entry, ...] = ()
    icon: str = ""


def _type(post_type: str, key: str = "edit_posts") -> str:
    return f"type:{post_type}:{key}"


MENU: tuple[Entry, ...] = (
    Entry("Dashboard", "index.php", "read", icon="dashboard"),
    Entry("Posts", "edit.php", _type("post"), icon="posts", children=(
        Entry("All Posts", "edit.php", _type("post")),
        Entry("Add New Post", "post-new.php", _type("post", "create_posts")),
        Entry("Categories", "edit-tags.php", "manage_categories", (("taxonomy", "category"),)),
        Entry("Tags", "edit-tags.php", "manage_categories", (("taxonomy", "post_tag"),)),
    )),
    Entry("Events", "edit.php", _type("cal_events"), (("post_type", "cal_events"),), icon="calendar", children=(
        Entry("All Events", "edit.php", _type("cal_events"), (("post_type", "cal_events"),)),
        Entry("Add New Event", "post-new.php", _type("cal_events", "create_posts"), (("post_type", "cal_events"),)),
        Entry("Event Categories", "edit-tags.php", "taxonomy:cal_events_cat",
              (("taxonomy", "cal_events_cat"), ("post_type", "cal_events"))),
        Entry("Tags", "edit-tags.php", "manage_categories", (("taxonomy", "post_tag"), ("post_type", "cal_events"))),
        Entry("Venues", "edit.php", _type("cal_venue"), (("post_type", "cal_venue"),)),
        Entry("Organizers", "edit.php", _type("cal_organizer"), (("post_type", "cal_organizer"),)),
        Entry("Settings", "edit.php", "manage_options", (("post_type", "cal_events"), ("page", "cal-events-calendar"))),
    )),
    Entry("Media", "upload.php", "upload_files", icon="media", children=(
        Entry("Library", "upload.php", "upload_files"),
        Entry("Add New Media File", "media-new.php", "upload_files"),
    )),
    Entry("Pages", "edit.php", _type("page"), (("post_type", "page"),), icon="pages", children=(
        Entry("All Pages", "edit.php", _type("page"), (("post_type", "page"),)),
        Entry("Add New Page", "post-new.php", _type("page", "create_posts"), (("post_type", "page"),)),
    )),
    Entry("Comments", "edit-comments.php", "edit_posts", icon="comments"),
    Entry("Appearance", "edit.php", _type("wp_block"), (("post_type", "wp_block"),), icon="appearance", children=(
        Entry("Patterns", "edit.php", _type("wp_block"), (("post_type", "wp_block"),)),
        Entry("Menus", "nav-menus.php", "edit_theme_options"),
    )),
    Entry("Users", "users.php", "list_users", icon="users", children=(
        Entry("All Users", "users.php", "list_users"),
        Entry("Add New User", "user-new.php", "create_users"),
        Entry("Profile", "profile.php", "read"),
    )),
    Entry("Profile", "profile.php", "read", icon="users"),  # for those who may not list users
    Entry("Tools", "import.php", "import", icon="tools", children=(
        Entry("Import", "import.php", "import"),
        Entry("Export", "export.php", "export"),
    )),
    Entry("Settings", "options-general.php", "manage_options", icon="settings", children=(
        Entry("General", "options-general.php", "manage_options"),
        Entry("Reading", "options-reading.php", "manage_options"),
        Entry("Discussion", "options-discussion.php", "manage_options"),
    )),
)


@dataclass
class Shown:
    label: str
    url: str
    current: bool
    icon: str = ""
    children: list[Shown] = field(default_factory=list)
    count: int = 0  # beside the label, as WordPress's "awaiting-mod" (comments awaiting moderation)


def allowed(r: AdminRequest, capability: str) -> bool:
    if capability.startswith("taxonomy:"):  # the taxonomy's own manage_terms capability
        found = r.ctx.registry.taxonomies.get(capability.split(":", 1)[1])
        return found is not None and r.can(found.caps.manage_terms)
    if capability.startswith("type:"):
        _, post_type, key = capability.split(":", 2)
        found = r.ctx.registry.types.get(post_type)
        return found is not None and r.can(found.caps.get(key) or key)
    return r.can(capability)


# Screens without an entry of their own light the entry of the list they belong to, as WordPress's
# $parent_file does: a user's editor lights All Users, a term's editor its taxonomy's list.
BELONGS = {"user-edit.php": "users.php", "term.php": "edit-tags.php", "comment.php": "edit-comments.php"}


def _matches(r: AdminRequest, entry: Entry) -> bool:
    wanted = dict(entry.query)
    home = BELONGS.get(r.screen.file)
    if home is not None:
        if entry.file != home:
            return False
        return all(r.param(key) == value for key, value in wanted.items() if key != "post_type") and (
            "post_type" not in wanted or r.param("post_type") == wanted["post_type"])
    if entry.file in ("edit.php", "post-new.php"):
        wanted.setdefault("post_type", "post")
    if r.screen.file in ("post.php", "revision.php") and entry.file == "edit.php" and "page" not in wanted:
        return wanted["post_type"] == r.post_type  # an item's editor lights its type's list
    if entry.file != r.screen.file:
        return False
    given = {key: r.param(key) for key in ("post_type", "taxonomy", "page")}
    if entry.file in ("edit.php", "post-new.php", "edit-tags.php"):
        given["post_type"] = given["post_type"] or "post"
    if entry.file == "edit-tags.php":
        wanted.setdefault("post_type", "post")
    return all(given[key] == value for key, value in wanted.items()) and ("page" in wanted or not given["page"])


def menu_for(r: AdminRequest) -> list[Shown]:
    """The menu as ``r``'s user sees it on ``r``'s screen."""
    files = r.calpress.admin_files
    shown: list[Shown] = []
    for entry in MENU:
        if entry.label == "Profile" and allowed(r, "list_users"):
            continue
        if entry.file not in files or not allowed(r, entry.capability):
            continue
        children = [Shown(child.label, r.url(child.file, **dict(child.query)), _matches(r, child))
                    for child in entry.children if child.file in files and allowed(r, child.capability)]
        current = _matches(r, entry) or any(child.current for child in children)
        if children and not any(child.current for child in children) and current:
            children[0].current = True
        shown.append(Shown(entry.label, r.url(entry.file, **dict(entry.query)), current, entry.icon, children,
                           _awaiting_moderation(r) if entry.file == "edit-comments.php" else 0))
    return shown


def _awaiting_moderation(r: AdminRequest) -> int:
    """Comments awaiting moderation, for those who moderate them (one count)."""
    if not r.can("moderate_comments"):
        return 0
    with r.site.read() as conn:
        return comment_store.pending_count(conn)


def admin_bar(r: AdminRequest) -> AdminBar:
    """The bar over every admin page, as over the public pages: the site, "New" by capability,
    the user's menu."""
    return public_admin_bar(r.ctx, r.session, r.calpress.settings.secret_key, r.origin, r.calpress.admin_files)
