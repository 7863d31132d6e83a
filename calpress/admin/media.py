"""The media screens (issue 30), at WordPress's addresses:

* ``upload.php``: the library as a grid of thumbnails or a list table (``mode``), filtered by type
  (``attachment-filter``), month (``m=YYYYMM``), author and words (``s``), paged and sortable;
  "Delete Permanently" per row (a link with a nonce) and in bulk;
* ``upload.php?item=N`` (where WordPress's grid opens an item): the file, its facts (address,
  name, type, size, dimensions, uploaded by, on and to), its title, alt text, caption and
  description, the image editor (rotate, flip, crop: the API stores the result as a new
  attachment, the original unchanged) and delete;
* ``media-new.php``: several files in one plain form, each sent to the REST media route (the
  raw-body upload); with JavaScript, Dropzone sends each straight to ``/wp-json/cms/v2/media``
  with the user's REST nonce and shows its progress.

Every change and every read of media goes through ``/cms/v2/media`` as the user (only the names of
authors and of the items files are attached to are read from the domain, as the list table reads
its authors' names). What a screen offers follows
the API's own answer: an item's edit and delete links come from the ``allow`` hints of its self
link (the API runs its permission checks for them), and an item the API will not show in the
edit context is shown read-only.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from markupsafe import Markup

from ..auth import users as user_store
from ..content import items as item_service
from ..content import permissions
from ..media.editing import EDITABLE
from .api import Answer
from .content import TYPES, author_names, month_choices, month_range
from .shell import PER_PAGE_MAX, AdminRequest, Forbidden, Screen
from .values import number, text_of

__all__ = ["SCREENS", "LibraryScreen", "UploadScreen"]

MEDIA = "/cms/v2/media"
NO_UPLOADS = "Sorry, you are not allowed to upload files."
NOT_FOUND = "You attempted to edit an item that does not exist. Perhaps it was deleted?"
MODES = ("grid", "list")
SORTABLE = ("title", "author", "parent", "date")
# attachment-filter "post_mime_type:<kind>" -> label; the kinds are the route's media_type values
# ("Documents" is every application/* file: the route filters one major type at a time).
KINDS = {"image": "Images", "audio": "Audio", "video": "Video", "application": "Documents"}
MESSAGES = {1: "Media file updated.", 2: "Media file permanently deleted.", 3: "Error saving media file."}
# REST field -> the form field that shows it (an error appears beside it).
FORM_NAMES = {"title": "post_title", "alt_text": "_wp_attachment_image_alt", "caption": "excerpt",
              "description": "content"}
ROTATIONS = {"": "", "270": "Rotate 90° left", "90": "Rotate 90° right", "180": "Rotate 180°"}
CROP = ("crop_left", "crop_top", "crop_width", "crop_height")
DELETE_WARNING = ("You are about to permanently delete these items from your site.\nThis action cannot be undone.\n"
                  "'Cancel' to stop, 'OK' to delete.")


# -- small helpers ------------------------------------------------------------------------------


def _plain(value: Any) -> str:
    """A title as text: the rendered HTML without its tags, entities decoded (shown escaped)."""
    if isinstance(value, dict):
        value = value.get("rendered", value.get("raw", ""))
    return Markup(str(value or "")).striptags()


def _allowed(item: dict[str, Any]) -> set[str]:
    """The methods the API allows the user on ``item`` (its self link's target hints)."""
    links = item.get("_links") if isinstance(item.get("_links"), dict) else {}
    for link in links.get("self") or []:
        hints = link.get("targetHints") if isinstance(link, dict) else None
        if isinstance(hints, dict) and isinstance(hints.get("allow"), list):
            return {str(method) for method in hints["allow"]}
    return set()


def _thumbnail(item: dict[str, Any], *sizes: str) -> str:
    """The address of the first of ``sizes`` the image has (else the full file); "" for other files."""
    if item.get("media_type") != "image":
        return ""
    found = (item.get("media_details") or {}).get("sizes") or {}
    for size in (*sizes, "full"):
        if isinstance(found.get(size), dict) and found[size].get("source_url"):
            return str(found[size]["source_url"])
    return str(item.get("source_url") or "")


def size_label(size: Any) -> str:
    """Bytes as the attachment screen shows them: the reference's size_format with no decimals
    ("" for an unknown size). The health package loads on first use, as for ``db size``."""
    amount = number(size, -1)
    if amount < 0:
        return ""
    from ..health.sizes import size_format

    return size_format(amount, 0)


def _extension(item: dict[str, Any]) -> str:
    name = str(item.get("filename") or item.get("source_url") or "")
    return name.rsplit(".", 1)[-1].upper() if "." in name else "FILE"


def _date_label(value: Any) -> str:
    try:
        return dt.datetime.fromisoformat(str(value)).strftime("%Y/%m/%d")
    except ValueError:
        return ""


def _chosen_filter(r: AdminRequest) -> str:
    """``attachment-filter``, or WordPress's older ``post_mime_type=image`` in its terms."""
    chosen = r.param("attachment-filter")
    if not chosen and r.param("post_mime_type"):
        chosen = "post_mime_type:" + r.param("post_mime_type")
    return chosen


# -- the library --------------------------------------------------------------------------------


class LibraryScreen(Screen):
    """``upload.php``: the library, one item (``item=N``), and their changes."""

    file = "upload.php"
    capability = "upload_files"
    refusal = NO_UPLOADS

    def get(self, r: AdminRequest) -> None:
        item_id = number(r.param("item"))
        if item_id and r.param("action") == "delete":
            self._delete_one(r, item_id)
        if item_id:
            show_item(r, item_id)
            return
        self._library(r)

    def post(self, r: AdminRequest) -> None:
        item_id = number(r.field("post_ID") or r.param("item"))
        action = r.field("action")
        if action in ("", "-1"):
            action = r.field("action2")
        if r.take_screen_options("upload_per_page"):
            r.redirect(r.url("upload.php", mode=r.field("mode") or None))
        if action == "editattachment" and item_id:
            r.verify(f"update-post_{item_id}")
            save_item(r, item_id)
        elif action == "image-editor" and item_id:
            r.verify(f"image_editor-{item_id}")
            edit_image(r, item_id)
        else:
            r.verify("bulk-media")
            self._bulk(r, action)

    # -- listing

    def _library(self, r: AdminRequest) -> None:
        stored = (r.user.meta or {}).get("media_library_mode")
        mode = r.param("mode") if r.param("mode") in MODES else stored if stored in MODES else "grid"
        if r.param("mode") in MODES:
            r.remember(media_library_mode=mode)
        page = max(1, number(r.param("paged"), 1))
        per_page = r.per_page("upload_per_page")
        orderby = r.param("orderby") if r.param("orderby") in SORTABLE else "date"
        order = "asc" if r.param("order").lower() == "asc" else "desc"
        state = self._state(r, mode, orderby, order)
        query: dict[str, Any] = {"context": "edit", "page": page, "per_page": per_page, "orderby": orderby, "order": order,
                                 **self._filter_query(r)}
        answer = r.api.get(MEDIA, **query)
        if not answer.ok and answer.code == "rest_post_invalid_page_number" and page > 1:
            r.redirect(r.url("upload.php", **state))
        if not answer.ok:
            r.notice(answer.message, "error")
        rows = [self._row(r, item) for item in (answer.data if answer.ok and isinstance(answer.data, list) else [])]
        self._parents(r, rows)
        self._authors(r, rows)
        self._notices(r)
        total = answer.total
        pages = max(1, answer.total_pages or 1)
        r.render("admin/media.html", title="Media Library", mode=mode, rows=rows, total=total, page=page, pages=pages,
                 per_page=per_page, state=state, orderby=orderby, order=order, kinds=KINDS,
                 months=months(r), search=r.param("s"), chosen_filter=state.get("attachment-filter") or "",
                 chosen_month=state.get("m") or "", uploaded=self._uploaded(r), bulk_nonce=r.nonce("bulk-media"),
                 delete_warning=DELETE_WARNING, link=lambda **changes: r.url("upload.php", **{**state, **changes}),
                 page_url=lambda n: r.url("upload.php", **{**state, "paged": n if n > 1 else None}))

    @staticmethod
    def _state(r: AdminRequest, mode: str, orderby: str, order: str) -> dict[str, Any]:
        """The listing's query (for links that keep it: sorting, paging, the view switch)."""
        return {key: value for key, value in {
            "mode": mode, "attachment-filter": _chosen_filter(r), "m": r.param("m") if month_range(r.param("m")) else "", "s": r.param("s"),
            "author": number(r.param("author")) or "", "orderby": orderby if orderby != "date" else "",
            "order": order if order != "desc" else "",
        }.items() if value}

    @staticmethod
    def _filter_query(r: AdminRequest) -> dict[str, Any]:
        query: dict[str, Any] = {}
        chosen = _chosen_filter(r)
        if chosen.startswith("post_mime_type:"):
            wanted = chosen.split(":", 1)[1]
            if wanted in KINDS:
                query["media_type"] = wanted
            elif "/" in wanted:
                query["mime_type"] = wanted
        elif chosen == "detached":
            query["parent"] = 0
        elif chosen == "mine":
            query["author"] = r.user.id
        if number(r.param("author")) and "author" not in query:
            query["author"] = number(r.param("author"))
        query.update(month_range(r.param("m")) or {})
        if r.param("s"):
            query["search"] = r.param("s")
        return query

    @staticmethod
    def _row(r: AdminRequest, item: dict[str, Any]) -> dict[str, Any]:
        allow = _allowed(item)
        item_id = item["id"]
        return {
            "id": item_id, "title": _plain(item.get("title")) or "(no title)", "filename": item.get("filename") or "",
            "mime_type": item.get("mime_type") or "", "thumb": _thumbnail(item, "thumbnail", "medium"),
            "extension": _extension(item), "author": number(item.get("author")), "author_name": "",
            "parent": number(item.get("post")), "parent_shown": None, "date": _date_label(item.get("date")),
            "link": item.get("link") or "", "url": item.get("source_url") or "",
            "can_edit": "POST" in allow, "can_delete": "DELETE" in allow,
            "delete_url": r.url("upload.php", item=item_id, action="delete", _wpnonce=r.nonce(f"delete-post_{item_id}")),
        }

    @staticmethod
    def _parents(r: AdminRequest, rows: list[dict[str, Any]]) -> None:
        """"Uploaded to": each parent's title, linked to its editor when the user may edit it."""
        ids = {row["parent"] for row in rows if row["parent"]}
        if not ids:
            return
        with r.site.read() as conn:
            found = item_service.get_items(conn, ids)
        for row in rows:
            parent = found.get(row["parent"])
            if parent is None:
                continue
            readable = permissions.can_read(r.ctx, parent)
            row["parent_shown"] = {
                "title": (parent.title or "(no title)") if readable else "(Private post)",
                "url": r.url("post.php", post=parent.id, action="edit")
                if parent.type in TYPES and permissions.can_edit(r.ctx, parent) else "",
            }

    @staticmethod
    def _authors(r: AdminRequest, rows: list[dict[str, Any]]) -> None:
        names = author_names(r, rows)
        for row in rows:
            row["author_name"] = names.get(row["author"], "")

    @staticmethod
    def _notices(r: AdminRequest) -> None:
        deleted = number(r.param("deleted"))
        if deleted:
            r.notice(MESSAGES[2] if deleted == 1 else f"{deleted} media files permanently deleted.")
        message = number(r.param("message"))
        if message in MESSAGES:
            r.notice(MESSAGES[message], "error" if message == 3 else "success")
        for error in r.req.get_param_as_list("error") or []:
            r.notice(str(error), "error")

    @staticmethod
    def _uploaded(r: AdminRequest) -> list[dict[str, Any]]:
        """The files media-new.php just stored (``uploaded=1,2``), for the notice that links them."""
        ids = [number(v) for v in r.param("uploaded").split(",") if number(v)][:PER_PAGE_MAX]
        if not ids:
            return []
        answer = r.api.get(MEDIA, include=",".join(map(str, ids)), orderby="include", per_page=len(ids),
                           _fields="id,title")
        found = answer.data if answer.ok and isinstance(answer.data, list) else []
        return [{"title": _plain(item.get("title")) or "(no title)", "url": r.url("upload.php", item=item["id"])}
                for item in found]

    # -- deleting

    @staticmethod
    def _delete_one(r: AdminRequest, item_id: int) -> None:
        """``upload.php?item=N&action=delete&_wpnonce=...`` (WordPress's ``post.php?action=delete``)."""
        r.verify(f"delete-post_{item_id}")
        answer = r.api.delete(f"{MEDIA}/{item_id}", force="true")
        if answer.ok:
            r.redirect(r.url("upload.php", deleted=1))
        r.redirect(r.url("upload.php", error=answer.message))

    @staticmethod
    def _bulk(r: AdminRequest, action: str) -> None:
        chosen = r.form.get("media")
        ids = [number(v) for v in (chosen if isinstance(chosen, list) else [chosen]) if number(v)]
        back = {key: r.field(key) or None for key in ("mode", "attachment-filter", "m", "s", "orderby", "order")}
        if action != "delete" or not ids:
            r.redirect(r.url("upload.php", **back, error="Choose an action." if action != "delete" else
                             "Select the media files to delete."))
        done, errors = 0, []
        for item_id in ids:
            answer = r.api.delete(f"{MEDIA}/{item_id}", force="true")
            if answer.ok:
                done += 1
            else:
                errors.append(f"#{item_id}: {answer.message}")
        r.redirect(r.url("upload.php", **back, deleted=done or None, error=errors[:5] or None))


def months(r: AdminRequest) -> list[tuple[str, str]]:
    """The months that have media (uploaded or private), newest first."""
    return month_choices(r, "attachment", ["inherit", "private"])


# -- one item -----------------------------------------------------------------------------------


def _load(r: AdminRequest, item_id: int) -> tuple[dict[str, Any], bool]:
    """The attachment in the edit context (True), or read-only in the view context when the API
    will not show that to the user (False); a missing item is WordPress's wp_die."""
    answer = r.api.get(f"{MEDIA}/{item_id}", context="edit")
    editable = answer.ok
    if answer.status in (401, 403):
        answer = r.api.get(f"{MEDIA}/{item_id}")
    if answer.status == 404:
        raise Forbidden(NOT_FOUND, 404)
    if not answer.ok or not isinstance(answer.data, dict):
        raise Forbidden(answer.message, answer.status)
    return answer.data, editable


def _facts(r: AdminRequest, item: dict[str, Any]) -> dict[str, Any]:
    """What the details box shows beside the form."""
    details = item.get("media_details") if isinstance(item.get("media_details"), dict) else {}
    author = number(item.get("author"))
    author_name = ""
    if author:
        with r.site.read() as conn:
            user = user_store.get_user(conn, author)
        author_name = (user.display_name or user.login) if user else ""
    parent_id = number(item.get("post"))
    parent = None
    if parent_id:
        with r.site.read() as conn:
            found = item_service.get_item(conn, parent_id)
        if found is not None:
            readable = permissions.can_read(r.ctx, found)
            parent = {"title": (found.title or "(no title)") if readable else "(Private post)",
                      "url": r.url("post.php", post=found.id, action="edit")
                      if found.type in TYPES and permissions.can_edit(r.ctx, found) else ""}
    original = details.get("parent_image") if isinstance(details.get("parent_image"), dict) else None
    return {
        "date": _date_label(item.get("date")), "author": author_name, "parent": parent,
        "url": item.get("source_url") or "", "filename": item.get("filename") or "",
        "mime_type": item.get("mime_type") or "", "size": size_label(item.get("filesize") or details.get("filesize")),
        "width": details.get("width"), "height": details.get("height"),
        "length": details.get("length_formatted") or "",
        "original": r.url("upload.php", item=original["attachment_id"]) if original and original.get("attachment_id") else "",
        "preview": _thumbnail(item, "large", "medium_large", "medium"),
        "is_image": item.get("media_type") == "image",
        "kind": str(item.get("mime_type") or "").split("/", 1)[0],
    }


def show_item(r: AdminRequest, item_id: int, *, errors: dict[str, str] | None = None, sent: dict[str, str] | None = None,
              edit_errors: dict[str, str] | None = None, edit_sent: dict[str, str] | None = None, status: int = 200) -> None:
    item, editable = _load(r, item_id)
    allow = _allowed(item)
    can_edit = editable and "POST" in allow
    values = sent if sent is not None else {
        "post_title": text_of(item.get("title")), "_wp_attachment_image_alt": str(item.get("alt_text") or ""),
        "excerpt": text_of(item.get("caption")), "content": text_of(item.get("description")),
    }
    message = number(r.param("message"))
    if message in MESSAGES:
        r.notice(MESSAGES[message], "error" if message == 3 else "success")
    if number(r.param("edited")):
        r.notice("The edited image was saved as a new media file; the original is unchanged.", "success",
                 r.url("upload.php", item=number(r.param("edited"))), "View the original")
    facts = _facts(r, item)
    r.render("admin/media-item.html", status, title="Edit Media" if can_edit else "Attachment details", item=item,
             item_id=item_id, facts=facts, values=values, display_title=_plain(item.get("title")), errors=errors or {}, can_edit=can_edit,
             can_delete="DELETE" in allow, can_edit_image=can_edit and item.get("mime_type") in EDITABLE,
             edit_errors=edit_errors or {}, edit_sent=edit_sent or {}, rotations=ROTATIONS,
             nonce=r.nonce(f"update-post_{item_id}"), image_nonce=r.nonce(f"image_editor-{item_id}"),
             delete_url=r.url("upload.php", item=item_id, action="delete", _wpnonce=r.nonce(f"delete-post_{item_id}")),
             delete_warning=DELETE_WARNING)


def save_item(r: AdminRequest, item_id: int) -> None:
    """The details form: title, alt text (images), caption and description, through the API."""
    body: dict[str, Any] = {"title": r.field("post_title"), "caption": r.field("excerpt"), "description": r.field("content")}
    if "_wp_attachment_image_alt" in r.form:
        body["alt_text"] = r.field("_wp_attachment_image_alt")
    answer = r.api.post(f"{MEDIA}/{item_id}", body)
    if answer.ok:
        r.redirect(r.url("upload.php", item=item_id, message=1))
    r.notice(answer.message, "error")
    errors = {FORM_NAMES.get(name, name): reason for name, reason in answer.field_errors.items()}
    sent = {name: r.field(name) for name in FORM_NAMES.values()}
    show_item(r, item_id, errors=errors, sent=sent, status=answer.status if answer.status < 500 else 400)


def _modifiers(r: AdminRequest) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The image editor's form as the edit route's ``modifiers`` (rotate, then flip, then crop),
    or the form's own errors (a crop needs its four numbers)."""
    found: list[dict[str, Any]] = []
    rotation = r.field("rotate")
    if rotation in ROTATIONS and rotation:
        found.append({"type": "rotate", "args": {"angle": int(rotation)}})
    horizontal, vertical = r.field("flip_horizontal") == "1", r.field("flip_vertical") == "1"
    if horizontal or vertical:
        found.append({"type": "flip", "args": {"flip": {"horizontal": horizontal, "vertical": vertical}}})
    crop = {name: r.field(name).strip().replace(",", ".") for name in CROP}
    if any(crop.values()):
        missing = [name for name, value in crop.items() if not value]
        if missing:
            return [], {name: "Give all four crop values, in percent." for name in missing}
        found.append({"type": "crop", "args": {name.removeprefix("crop_"): value for name, value in crop.items()}})
    return found, {}


def _edit_errors(answer: Answer, modifiers: list[dict[str, Any]]) -> dict[str, str]:
    """The edit route's refusal beside what it is about: a crop the image cannot take beside the
    crop fields, anything else above the editor's buttons."""
    if answer.code == "rest_image_crop_failed" or (answer.code == "rest_invalid_param" and modifiers
                                                    and modifiers[-1]["type"] == "crop" and "number" in answer.message):
        return {"crop": answer.message}
    return {"": answer.message}


def edit_image(r: AdminRequest, item_id: int) -> None:
    """Rotate, flip or crop through ``/media/{id}/edit``: the API stores a new attachment."""
    sent = {name: r.field(name) for name in ("rotate", "flip_horizontal", "flip_vertical", *CROP)}
    modifiers, errors = _modifiers(r)
    if errors:
        r.notice("The image was not edited.", "error")
        show_item(r, item_id, edit_errors=errors, edit_sent=sent, status=400)
        return
    item, _ = _load(r, item_id)
    body: dict[str, Any] = {"src": item.get("source_url") or ""}
    if modifiers:
        body["modifiers"] = modifiers
    answer = r.api.post(f"{MEDIA}/{item_id}/edit", body)
    if answer.ok and isinstance(answer.data, dict):
        r.redirect(r.url("upload.php", item=answer.data["id"], edited=item_id))
    r.notice(answer.message, "error")
    show_item(r, item_id, edit_errors=_edit_errors(answer, modifiers), edit_sent=sent,
              status=answer.status if 400 <= answer.status < 500 else 400)


# -- uploads ------------------------------------------------------------------------------------


class UploadScreen(Screen):
    """``media-new.php``: upload several files (each through the REST media route)."""

    file = "media-new.php"
    capability = "upload_files"
    refusal = NO_UPLOADS

    def get(self, r: AdminRequest) -> None:
        self._show(r, {})

    def _show(self, r: AdminRequest, errors: dict[str, str], status: int = 200) -> None:
        limit = r.calpress.settings.max_upload
        r.render("admin/media-new.html", status, title="Upload New Media", errors=errors, nonce=r.nonce("media-form"),
                 post_id=self._post_id(r), max_upload=limit, max_label=size_label(limit), api=r.api_settings,
                 scripts=["dropzone.js"], styles=["dropzone.css"])

    @staticmethod
    def _post_id(r: AdminRequest) -> int:
        """The item the uploads are attached to (``post_id``), if the user may edit it."""
        post_id = number(r.field("post_id") if r.req.method == "POST" else r.param("post_id"))
        if not post_id:
            return 0
        with r.site.read() as conn:
            found = item_service.get_item(conn, post_id)
        return post_id if found is not None and found.type != "attachment" and permissions.can_edit(r.ctx, found) else 0

    def post(self, r: AdminRequest) -> None:
        r.verify("media-form")
        files = [upload for upload in r.files.get("async-upload", []) if upload.filename or upload.size]
        if not files:
            r.notice("Choose one or more files to upload.", "error")
            self._show(r, {"async-upload": "Choose one or more files to upload."}, 400)
            return
        post_id = self._post_id(r)
        uploaded, failed = [], []
        for upload in files:
            answer = self._send(r, upload, post_id)
            if answer.ok and isinstance(answer.data, dict):
                uploaded.append(str(answer.data["id"]))
            else:
                failed.append(f"“{upload.filename or 'unnamed file'}” has failed to upload. {answer.message}")
        r.redirect(r.url("upload.php", uploaded=",".join(uploaded) or None, error=failed or None))

    @staticmethod
    def _send(r: AdminRequest, upload: Any, post_id: int) -> Answer:
        """One file to ``POST /cms/v2/media`` as the raw-body upload. The name goes in the
        Content-Disposition as it came (in process a header is text, so any script works);
        only what would end the quoted value is taken out (the API sanitises the rest)."""
        name = re.sub(r'["\\\r\n]', "", upload.filename or "") or "unnamed-file"
        headers = {"Content-Type": upload.content_type or "application/octet-stream",
                   "Content-Disposition": f'attachment; filename="{name}"'}
        return r.api.call("POST", MEDIA, {"post": post_id} if post_id else None, raw=upload.read(), headers=headers)


SCREENS: list[Screen] = [LibraryScreen(), UploadScreen()]
