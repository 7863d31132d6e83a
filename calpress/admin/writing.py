"""What the item editor adds for writing in the browser: the block editor's settings, the post
lock, the newer-autosave notice and the preview link.

* The block editor is Gutenberg's browser build (``@automattic/isolated-block-editor``); it takes
  the content textarea when it is installed and the type has an editor, and saves its block
  markup back into the textarea, so the form posts what the API stores. ``editor.js`` (the
  workspace's own) gives it the media route for uploads, autosaves through the autosaves route
  every :data:`AUTOSAVE_INTERVAL` seconds, refreshes the lock and warns before leaving unsaved
  changes. Without JavaScript the textarea is the editor.
* The post lock (content/edit_locks.py): opening an item's editor takes it; another user who
  opens the item is told who is editing and may go back, preview or take over; a save is refused
  while someone else holds the lock, so two editors never overwrite each other silently.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from ..auth import users as user_store
from ..content import edit_locks
from ..content.types import type_labels
from .api import route_of
from .assets import BLOCK_EDITOR_SCRIPTS, BLOCK_EDITOR_STYLES, block_editor_installed
from .values import number, text_of

if TYPE_CHECKING:
    from .shell import AdminRequest

__all__ = ["AUTOSAVE_INTERVAL", "LOCK_REFRESH", "RESTORED", "block_editor", "lock_holder", "newer_autosave",
           "preview_link", "refresh_lock", "restored_notice", "revisions_link", "take_lock"]

AUTOSAVE_INTERVAL = 60  # seconds, the reference's AUTOSAVE_INTERVAL
LOCK_REFRESH = 30  # seconds between two refreshes of a held lock (well inside its 150 s window)
RESTORED = 5  # post.php's message=5: "Post restored to revision from %s." (revision.php's restore)
ALLOWED_UPLOADS = ["image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4", "audio/mpeg", "application/pdf"]


def block_editor(r: AdminRequest, kind: Any, item_id: int | None, shows_content: bool,
                 saves_through_route: bool = True) -> dict[str, Any] | None:
    """The settings ``editor.js`` hands the block editor, with the files to load; None when the
    screen keeps the plain textarea (no editor installed, or the type has no content).
    ``saves_through_route``: the type's cms/v2 route alone saves it (an event also needs its
    dates, so a new event is not made a draft by an autosave)."""
    if not shows_content or not block_editor_installed():
        return None
    api = r.api_settings
    settings: dict[str, Any] = {
        "root": api["root"],
        "nonce": api["nonce"],
        "postId": item_id or 0,
        "postType": kind.name,
        "canUpload": r.can("upload_files"),
        "allowedMimeTypes": ALLOWED_UPLOADS,
        "lock": None,
        "autosave": None,
        "draft": None,
    }
    if item_id:
        settings["lock"] = {"url": r.url("post.php", post=item_id), "interval": LOCK_REFRESH,
                            "nonce": r.nonce(f"update-post_{item_id}")}
        if kind.autosaves_route:
            settings["autosave"] = {"route": f"{route_of(kind, item_id)}/autosaves".lstrip("/"),
                                    "interval": AUTOSAVE_INTERVAL}
    elif kind.autosaves_route and saves_through_route:
        # A new item has nothing to autosave into yet: the first autosave makes it a draft (as
        # WordPress's auto-draft becomes one), and the page goes on as that draft's editor.
        settings["draft"] = {"route": route_of(kind).lstrip("/"), "interval": AUTOSAVE_INTERVAL,
                             "autosaves": route_of(kind).lstrip("/") + "/{id}/autosaves",
                             "editor": r.url("post.php", post="{id}", action="edit").replace("%7Bid%7D", "{id}")}
    return {"settings": settings, "scripts": list(BLOCK_EDITOR_SCRIPTS), "styles": list(BLOCK_EDITOR_STYLES)}


# -- the post lock ------------------------------------------------------------------------------


def lock_holder(r: AdminRequest, item_id: int) -> tuple[int, str] | None:
    """(id, display name) of another user whose lock on the item is fresh, or None."""
    with r.site.read() as conn:
        holder = edit_locks.holder(conn, item_id)
        if holder is None or holder == r.user.id:
            return None
        user = user_store.get_user(conn, holder)
    return holder, (user.display_name or user.login) if user is not None else f"User {holder}"


def take_lock(r: AdminRequest, item_id: int) -> None:
    with r.site.write() as conn:
        edit_locks.take(conn, item_id, r.user.id)


def refresh_lock(r: AdminRequest, item_id: int) -> dict[str, Any]:
    """The editor page's heartbeat: keep the user's lock, unless someone took the item over
    meanwhile (then say who, and leave their lock alone)."""
    with r.site.write() as conn:
        holder = edit_locks.holder(conn, item_id)
        if holder is not None and holder != r.user.id:
            user = user_store.get_user(conn, holder)
            name = (user.display_name or user.login) if user is not None else f"User {holder}"
            return {"locked": True, "holder": name,
                    "message": f"{name} has taken over and is currently editing."}
        edit_locks.take(conn, item_id, r.user.id)
    return {"locked": False}


# -- autosaves and previews ----------------------------------------------------------------------


def newer_autosave(r: AdminRequest, kind: Any, item_id: int, item: dict[str, Any]) -> dict[str, Any] | None:
    """The user's autosave of the item when it is newer than the item and differs from it (the
    reference's "There is an autosave of this post that is more recent than the version below.")."""
    if not kind.autosaves_route:
        return None
    answer = r.api.get(f"{route_of(kind, item_id)}/autosaves", context="edit")
    if not answer.ok or not isinstance(answer.data, list):
        return None
    mine = [a for a in answer.data if isinstance(a, dict) and a.get("author") == r.user.id]
    if not mine:
        return None
    autosave = mine[0]
    if str(autosave.get("modified_gmt") or "") <= str(item.get("modified_gmt") or ""):
        return None
    fields = ("title", "content", "excerpt")
    if all(text_of(autosave.get(f)).strip() == text_of(item.get(f)).strip() for f in fields):
        return None
    return autosave


def preview_link(item: dict[str, Any]) -> str:
    """The public address that shows an unpublished item to who may read it (WordPress's
    ``preview=true`` link; the public pages show a draft only to a logged-in user who may read it)."""
    link = str(item.get("link") or "")
    if not link or item.get("status") in ("publish", "private"):
        return link
    return link + ("&" if "?" in link else "?") + "preview=true"


# -- revisions -----------------------------------------------------------------------------------


def revisions_link(r: AdminRequest, post_type: str, item_id: int) -> tuple[int, str] | None:
    """How many revisions of the item the user may see (autosaves included, as WordPress counts
    them) and the address of the newest one's comparison (revision.php); None when the type keeps
    none, the item has none, or the API will not show them to the user."""
    kind = r.ctx.registry.types.get(post_type)
    if kind is None or not (kind.has_revisions and kind.revisions_route and kind.show_in_rest) or item_id <= 0:
        return None
    answer = r.api.get(f"{route_of(kind, item_id)}/revisions", per_page=1, _fields="id")
    if not answer.ok or not isinstance(answer.data, list) or not answer.data:
        return None
    return answer.total, r.url("revision.php", revision=answer.data[0]["id"])


def restored_notice(r: AdminRequest, post_type: str, item_id: int) -> str | None:
    """The editor's notice after a restore (``post.php?...&message=5&revision=N``): "Post
    restored to revision from March 5, 2026 @ 15:04:05." (the type's singular name), or None
    when the query asks for no such notice or names no revision of the item the user may see."""
    revision_id = number(r.param("revision"))
    kind = r.ctx.registry.types.get(post_type)
    if number(r.param("message")) != RESTORED or revision_id <= 0 or kind is None or not kind.revisions_route:
        return None
    answer = r.api.get(f"{route_of(kind, item_id)}/revisions/{revision_id}", context="edit", _fields="modified")
    try:
        moment = dt.datetime.fromisoformat(str(answer.data.get("modified"))) if answer.ok and isinstance(
            answer.data, dict) and answer.data.get("modified") else None
    except ValueError:
        moment = None
    if moment is None:
        return None
    singular = type_labels(kind).get("singular_name") or kind.singular
    # The reference names the revision by wp_post_revision_title's "F j, Y @ H:i:s".
    return f"{singular} restored to revision from {moment:%B} {moment.day}, {moment.year} @ {moment:%H:%M:%S}."
