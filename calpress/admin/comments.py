"""The comment moderation screens, at WordPress's addresses and with its names and messages:

* ``edit-comments.php``: the comments (author with e-mail, URL and IP for moderators, the text,
  "In response to" with the item's counts, the date), status links with counts, search (``s``),
  one item's comments (``p``), row and bulk actions, "Undo", "Empty Spam/Trash", pages;
* ``comment.php``: ``action=editcomment&c=N`` (the editor), ``action=replytocomment`` (the reply
  form WordPress's inline reply is without JavaScript), and the row links (``approvecomment``...,
  with ``approve``... as aliases), each with its nonce, back to the list they came from.

Every read of comments and every change goes through ``/cms/v2/comments`` as the user, so who may
do what is the API's answer (moderators everything; others list what it lists them, approved
comments, and change those on the items they may edit); a refusal comes back as a notice. Only
the counts are read here directly.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import nh3

from ..content import comments as comment_store
from ..content import items as item_service
from .api import Answer
from .content import TYPES
from .shell import ADMIN, AdminRequest, Forbidden, Screen
from .values import ids as id_list
from .values import number

__all__ = ["SCREENS", "CommentScreen", "CommentsScreen"]

COMMENTS = "/cms/v2/comments"
LIST, ONE = "edit-comments.php", "comment.php"
BULK, REPLY = "bulk-comments", "replyto-comment"
PER_PAGE_KEY = "edit_comments_per_page"
NOT_EDITABLE = "Sorry, you are not allowed to edit this comment."
INVALID = "Invalid comment ID."
IN_TRASH = "This comment is in the Trash. Please move it out of the Trash if you want to edit it."
# The status links: (key, label, the REST ``status`` the list asks for).
VIEWS = (("all", "All", "all"), ("mine", "Mine", "all"), ("moderated", "Pending", "hold"),
         ("approved", "Approved", "approve"), ("spam", "Spam", "spam"), ("trash", "Trash", "trash"))
REST_STATUS = {key: status for key, _, status in VIEWS}
# Each action: the REST status it sets (None: a DELETE), the notice's query key, and its notice.
ACTIONS = {"approve": ("approved", "approved", "approved."), "unapprove": ("hold", "unapproved", "unapproved."),
           "spam": ("spam", "spammed", "marked as spam."), "unspam": ("unspam", "unspammed", "restored from the spam."),
           "trash": (None, "trashed", "moved to the Trash."), "untrash": ("untrash", "untrashed", "restored from the Trash."),
           "delete": (None, "deleted", "permanently deleted.")}
UNDO = {"spam": "unspam", "trash": "untrash"}
# WordPress's bulk actions and the views that offer them.
BULK_ACTIONS = (("unapprove", "Unapprove", ("all", "mine", "approved")), ("approve", "Approve", ("all", "mine", "moderated")),
                ("spam", "Mark as spam", ("all", "mine", "moderated", "approved", "trash")), ("untrash", "Restore", ("trash",)),
                ("unspam", "Not spam", ("spam",)), ("delete", "Delete permanently", ("trash", "spam")),
                ("trash", "Move to Trash", ("all", "mine", "moderated", "approved")))
# The row actions (css class: label, accessible name), in WordPress's order.
ROW_ACTIONS = {"approve": ("Approve", "Approve this comment"), "unapprove": ("Unapprove", "Unapprove this comment"),
               "reply": ("Reply", "Reply to this comment"), "quickedit": ("Quick Edit", "Quick edit this comment"),
               "edit": ("Edit", "Edit this comment"), "spam": ("Spam", "Mark this comment as spam"),
               "unspam": ("Not Spam", "Restore this comment from the spam"),
               "trash": ("Trash", "Move this comment to the Trash"), "untrash": ("Restore", "Restore this comment from the Trash"),
               "delete": ("Delete Permanently", "Delete this comment permanently")}
NOTICE_KEYS = {key for _, key, _ in ACTIONS.values()} | {"ids", "error", "updated", "replied"}
ORDERBY = {"comment_date": "date_gmt", "comment_post_ID": "post"}
STATUS_CHOICES = (("1", "approved", "Approved"), ("0", "hold", "Pending"), ("spam", "spam", "Spam"))
DATE_INPUT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")  # a datetime-local field's value
SHOWN_TAGS = comment_store.ALLOWED_TAGS | {"p", "br"}


# -- shared -------------------------------------------------------------------------------------


def route(comment_id: int) -> str:
    return f"{COMMENTS}/{comment_id}"


def apply(r: AdminRequest, action: str, comment_id: int) -> Answer:
    """One row or bulk action on one comment through the API, as the user."""
    if action == "trash":
        return r.api.delete(route(comment_id))
    if action == "delete":
        return r.api.delete(route(comment_id), force="true")
    return r.api.post(route(comment_id), {"status": ACTIONS[action][0]})


def moderate(r: AdminRequest, action: str, comment_ids: list[int]) -> tuple[list[int], list[str]]:
    """``action`` on each comment: (the ids it was done to, the API's refusals)."""
    done, errors = [], []
    for comment_id in comment_ids:
        answer = apply(r, action, comment_id)
        if answer.ok:
            done.append(comment_id)
        else:
            errors.append(f"#{comment_id}: {answer.message}")
    return done, errors


def nonce_action(action: str, comment_id: int) -> str:
    """WordPress's nonce names of the row links."""
    return f"{'approve' if action in ('approve', 'unapprove') else 'delete'}-comment_{comment_id}"


def list_address(r: AdminRequest, candidate: str) -> str | None:
    """``candidate`` when it is this workspace's comments list (a Referer, a form's ``referredby``),
    cleaned of an earlier change's notices (WordPress's remove_query_arg); else None."""
    parts = urlsplit(candidate or "")
    if parts.path != ADMIN + LIST or (parts.netloc and parts.netloc not in (urlsplit(r.origin).netloc, r.req.netloc)):
        return None
    query = [(key, value) for key, value in parse_qsl(parts.query) if key not in NOTICE_KEYS]
    return ADMIN + LIST + ("?" + urlencode(query) if query else "")


def came_from(r: AdminRequest) -> str:
    """The list the user came from (its page, view and search kept), else the whole list."""
    return list_address(r, r.req.get_header("Referer") or "") or r.url(LIST)


def with_query(url: str, **query: Any) -> str:
    args = {key: value for key, value in query.items() if value not in (None, "", [])}
    return url + ("&" if "?" in url else "?") + urlencode(args, doseq=True) if args else url


def shown_html(rendered: str) -> str:
    """A comment's rendered text as the list shows it: only the tags a comment may hold."""
    return nh3.clean(rendered or "", tags=SHOWN_TAGS, attributes=comment_store.ALLOWED_ATTRIBUTES)


def url_label(url: str) -> str:
    """An author's address as the list shows it: without its scheme, at most 50 characters."""
    label = url.split("://", 1)[-1].rstrip("/")
    return label if len(label) <= 50 else label[:49] + "…"


def date_label(value: Any) -> str:
    """``2024/05/01 at 3:04 pm``, as the list's "Submitted on" column."""
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return ""
    return f"{moment:%Y/%m/%d} at {moment.hour % 12 or 12}:{moment:%M} {'am' if moment.hour < 12 else 'pm'}"


def can_reply(item: Any, status: str) -> bool:
    """Whether the API takes a reply: the item open to comments, neither a draft nor trashed."""
    return (item is not None and item.comment_status == "open" and item.status not in ("draft", "trash")
            and status not in ("spam", "trash"))


def post_links(r: AdminRequest, item: Any) -> dict[str, str]:
    """The item's title, and its editor and public address where the user may use them."""
    if item is None:
        return {"title": "(no title)", "edit": "", "view": ""}
    return {"title": html.unescape(item.title or "") or "(no title)",
            "edit": r.url("post.php", post=item.id, action="edit") if item.type in TYPES and r.ctx.can("edit_post", item) else "",
            "view": item_service.permalink(r.ctx, item) if item.status == "publish" else ""}


def load_comment(r: AdminRequest, comment_id: int) -> dict[str, Any]:
    """The comment in the edit context, or WordPress's answers when it is missing or not the
    user's to edit."""
    answer = r.api.get(route(comment_id), context="edit") if comment_id > 0 else Answer(404, {})
    if answer.status == 404 or (answer.ok and not isinstance(answer.data, dict)):
        raise Forbidden(INVALID, 404)
    if not answer.ok:
        raise Forbidden(NOT_EDITABLE if answer.status in (401, 403) else answer.message, answer.status)
    return answer.data


def load_item(r: AdminRequest, post_id: int) -> Any:
    with r.site.read() as conn:
        return item_service.get_item(conn, post_id) if post_id > 0 else None


# -- the list -----------------------------------------------------------------------------------


class CommentsScreen(Screen):
    """``edit-comments.php``: the comments, their status links, row and bulk actions."""

    file = LIST
    capability = "edit_posts"
    refusal = "Sorry, you are not allowed to edit comments."

    @staticmethod
    def _state(r: AdminRequest, source: Any) -> dict[str, Any]:
        """The list's view (status, item, search, order, page) as the query or form gives it."""
        status = source("comment_status")
        orderby = source("orderby") if source("orderby") in ORDERBY else ""
        return {"comment_status": status if status in REST_STATUS else "all",
                "p": max(0, number(source("p"))), "s": source("s").strip(), "orderby": orderby,
                "order": source("order").lower() if orderby and source("order").lower() in ("asc", "desc") else "",
                "paged": max(1, number(source("paged"), 1))}

    @staticmethod
    def _url(r: AdminRequest, state: dict[str, Any], **changes: Any) -> str:
        query = {**state, **changes}
        query["comment_status"] = None if query["comment_status"] == "all" else query["comment_status"]
        query["paged"] = query["paged"] if query["paged"] and query["paged"] > 1 else None
        return r.url(LIST, **{key: value or None for key, value in query.items()})

    def get(self, r: AdminRequest) -> None:
        if r.param("doaction") == "undo":
            self._undo(r)
        state = self._state(r, r.param)
        moderator = r.can("moderate_comments")
        per_page = r.per_page(PER_PAGE_KEY)
        query: dict[str, Any] = {"per_page": per_page, "page": state["paged"], "search": state["s"] or None,
                                 "post": state["p"] or None, "orderby": ORDERBY.get(state["orderby"]),
                                 "order": state["order"] or None}
        if moderator:
            query.update(context="edit", status=REST_STATUS[state["comment_status"]],
                         author=r.user.id if state["comment_status"] == "mine" else None)
        elif state["comment_status"] != "all":
            query["status"] = REST_STATUS[state["comment_status"]]  # the API lists those the user may read
        answer = r.api.get(COMMENTS, **query)
        if answer.ok and answer.total and state["paged"] > math.ceil(answer.total / per_page):
            r.redirect(self._url(r, state, paged=None))  # past the last page (the API answers an empty one)
        if not answer.ok:
            r.notice(answer.message, "error")
        rows = answer.data if answer.ok and isinstance(answer.data, list) else []
        total = answer.total
        with r.site.read() as conn:
            items = item_service.get_items(conn, [number(row.get("post")) for row in rows] + [state["p"]])
            bubbles = comment_store.pending_by_post(conn, sorted({number(row.get("post")) for row in rows})) if moderator else {}
            counts = comment_store.status_counts(conn, r.user.id, state["p"]) if moderator else {}
        self._notices(r)
        parents = self._parents(r, rows, moderator)
        shown = [self._row(r, row, items.get(number(row.get("post"))), parents, bubbles) for row in rows]
        item = items.get(state["p"]) if answer.ok else None  # an item the API lets the user read
        title = f"Comments on “{post_links(r, item)['title']}”" if item is not None else "Comments"
        status = state["comment_status"]
        r.render("admin/comments.html", title=title, state=state, rows=shown, total=total, per_page=per_page,
                 pages=max(1, math.ceil(total / per_page)), views=self._views(r, state, counts, moderator, total),
                 bulk=[(key, label) for key, label, views in BULK_ACTIONS if status in views]
                 if moderator or any(row["can_edit"] for row in shown) else [],
                 can_empty=moderator and status in ("spam", "trash") and counts.get(status, 0) > 0,
                 bulk_nonce=r.nonce(BULK), item=post_links(r, item) if item is not None else None,
                 page_url=lambda n: self._url(r, state, paged=n),
                 sort_url=lambda key: self._url(r, state, orderby=key, paged=None, order="asc" if (
                     state["orderby"] or "comment_date") == key and (state["order"] or "desc") == "desc" else "desc"))

    def _views(self, r: AdminRequest, state: dict[str, Any], counts: dict[str, int], moderator: bool,
               total: int) -> list[dict[str, Any]]:
        """WordPress's status links for moderators; the API lists the others approved comments
        alone, so theirs is All, counted by the API."""
        if not moderator:
            if state["s"] or state["paged"] > 1 or state["comment_status"] != "all":
                found = r.api.get(COMMENTS, per_page=1, post=state["p"] or None, _fields="id")
                total = found.total if found.ok else 0
            counts = {"all": total}
        base = {"p": state["p"], "s": "", "orderby": "", "order": "", "paged": None}
        return [{"key": key, "label": label, "count": counts.get(key, 0), "current": state["comment_status"] == key,
                 "url": self._url(r, {**base, "comment_status": key})} for key, label, _ in VIEWS if moderator or key == "all"]

    @staticmethod
    def _parents(r: AdminRequest, rows: list[dict[str, Any]], moderator: bool) -> dict[int, dict[str, Any]]:
        """The comments the listed ones reply to (their author and address), in one request."""
        known = {row["id"]: row for row in rows}
        wanted = sorted({number(row.get("parent")) for row in rows} - set(known) - {0})
        if wanted:
            answer = r.api.get(COMMENTS, include=",".join(map(str, wanted[:100])), per_page=100,
                               status="any" if moderator else None, _fields="id,author_name,link")
            known.update({found["id"]: found for found in (answer.data if answer.ok and isinstance(answer.data, list) else [])})
        return known

    def _row(self, r: AdminRequest, row: dict[str, Any], item: Any, parents: dict[int, dict[str, Any]],
             bubbles: dict[int, int]) -> dict[str, Any]:
        comment_id, status = row["id"], str(row.get("status") or "approved")
        # What the API's edit permission answers: moderators, and those who may edit the item.
        editable = r.can("moderate_comments") or (item is not None and r.ctx.can("edit_post", item))
        url = str(row.get("author_url") or "")
        parent = parents.get(number(row.get("parent")))
        post_id = number(row.get("post"))
        return {
            "id": comment_id, "status": status, "can_edit": editable, "author": row.get("author_name") or "Anonymous",
            "url": url if url.startswith(("http://", "https://")) else "", "url_label": url_label(url), "email": row.get("author_email") or "",
            "ip": row.get("author_ip") or "", "text": shown_html((row.get("content") or {}).get("rendered", "")),
            "date": date_label(row.get("date")), "link": row.get("link") or "", "parent": parent,
            "post": {**post_links(r, item), "id": post_id, "approved": item.comment_count if item is not None else 0,
                     "pending": bubbles.get(post_id, 0)},
            "actions": self._row_actions(r, comment_id, status, item) if editable else [],
        }

    @staticmethod
    def _row_actions(r: AdminRequest, comment_id: int, status: str, item: Any) -> list[tuple[str, str, str, str]]:
        """(css class, label, address, accessible name) of each action the row offers."""
        if status in ("spam", "trash"):
            keys = ["unspam" if status == "spam" else "untrash", "delete"]
        else:
            keys = ["approve" if status == "hold" else "unapprove", *(["reply"] if can_reply(item, status) else []),
                    "quickedit", "edit", "spam", "trash"]
        edit = r.url(ONE, action="editcomment", c=comment_id)
        pages = {"reply": r.url(ONE, action="replytocomment", c=comment_id), "quickedit": edit + "#content", "edit": edit}
        found = []
        for key in keys:
            label, name = ROW_ACTIONS[key]
            if key == "reply" and status == "hold" and r.can("moderate_comments"):
                label, name = "Approve and Reply", "Approve and reply to this comment"
            url = pages.get(key) or r.url(ONE, c=comment_id, action=f"{key}comment", _wpnonce=r.nonce(nonce_action(key, comment_id)))
            found.append((key, label, url, name))
        return found

    @staticmethod
    def _notices(r: AdminRequest) -> None:
        """What the last change did, in WordPress's words, with "Undo" after spam and trash."""
        for action, (_, key, done) in ACTIONS.items():
            count = number(r.param(key))
            if count <= 0:
                continue
            undo = UNDO.get(action)
            ids = ",".join(map(str, id_list(r.param("ids").split(",")))) if undo else ""
            r.notice(f"{count} comment{'' if count == 1 else 's'} {done}", "success",
                     r.url(LIST, doaction="undo", action=undo, ids=ids, _wpnonce=r.nonce(BULK)) if ids else "",
                     "Undo" if ids else "")
        for key, text, kind in (("updated", "Comment updated.", "success"), ("replied", "Reply posted.", "success")):
            if r.param(key):
                r.notice(text, kind)
        for error in r.req.get_param_as_list("error") or []:
            r.notice(str(error), "error")

    # -- changes -------------------------------------------------------------------------------

    def _undo(self, r: AdminRequest) -> None:
        """"Undo" after spam or trash: the ids of the notice back where they were."""
        r.verify(BULK)
        action = r.param("action")
        if action not in UNDO.values():
            r.redirect(came_from(r))
        done, errors = moderate(r, action, id_list(r.param("ids").split(",")[:100]))
        r.redirect(with_query(came_from(r), **{ACTIONS[action][1]: len(done) or None}, error=errors[:5]))

    def post(self, r: AdminRequest) -> None:
        """Bulk actions, "Empty Spam"/"Empty Trash", and the screen options' items per page."""
        if r.take_screen_options(PER_PAGE_KEY):
            r.redirect(r.url(LIST))
        r.verify(BULK)
        state = self._state(r, r.field)
        if r.field("delete_all") and state["comment_status"] in ("spam", "trash"):
            action, chosen = "delete", self._all_ids(r, state)
        else:
            action = r.field("action") if r.field("action") not in ("", "-1") else r.field("action2")
            chosen = id_list(r.form.get("delete_comments"))
        if action not in ACTIONS or not chosen:
            r.redirect(self._url(r, state))
        done, errors = moderate(r, action, chosen)
        key = ACTIONS[action][1]
        r.redirect(self._url(r, state, **{key: len(done) or None, "ids": ",".join(map(str, done)) if action in UNDO else None,
                                          "error": errors[:5] or None}))

    @staticmethod
    def _all_ids(r: AdminRequest, state: dict[str, Any]) -> list[int]:
        """Every comment of the Spam or Trash view (of the item shown), for emptying it."""
        found: list[int] = []
        for page in range(1, 51):
            answer = r.api.get(COMMENTS, status=state["comment_status"], post=state["p"] or None, per_page=100,
                               page=page, context="edit", _fields="id")
            if not answer.ok or not isinstance(answer.data, list):
                break
            found += [number(row.get("id")) for row in answer.data]
            if page >= answer.total_pages:
                break
        return [comment_id for comment_id in found if comment_id > 0]


# -- one comment --------------------------------------------------------------------------------


class CommentScreen(Screen):
    """``comment.php``: a comment's editor, the reply form, and the row actions' links."""

    file = ONE
    capability = "edit_posts"
    refusal = "Sorry, you are not allowed to edit comments."
    # The row links' actions (WordPress's ``approvecomment``...; ``approve``... as aliases).
    LINKS = {f"{action}comment": action for action in ACTIONS} | {action: action for action in ACTIONS}

    def get(self, r: AdminRequest) -> None:
        action = r.param("action") or "editcomment"
        comment_id = number(r.param("c"))
        if action in self.LINKS:
            self._act(r, self.LINKS[action], comment_id)
        elif action == "editcomment":
            comment = load_comment(r, comment_id)
            if comment.get("status") == "trash":
                raise Forbidden(IN_TRASH, 409, "Edit Comment")
            self._editor(r, comment, self._values(comment), {}, came_from(r))
        elif action == "replytocomment":
            self._reply_form(r, load_comment(r, comment_id), "", {}, came_from(r))
        else:
            raise Forbidden("Unknown action.", 400)

    def post(self, r: AdminRequest) -> None:
        action = r.field("action")
        comment_id = number(r.field("comment_ID"))
        if action == "editedcomment":
            r.verify(f"update-comment_{comment_id}")
            self._save(r, load_comment(r, comment_id))
        elif action == REPLY:
            r.verify(REPLY)
            self._reply(r, load_comment(r, comment_id))
        else:
            raise Forbidden("Unknown action.", 400)

    @staticmethod
    def _act(r: AdminRequest, action: str, comment_id: int) -> None:
        """A row link: the change through the API, then back to the list with its notice."""
        r.verify(nonce_action(action, comment_id))
        answer = apply(r, action, comment_id)
        back = came_from(r)
        if not answer.ok:
            r.redirect(with_query(back, error=answer.message))
        r.redirect(with_query(back, **{ACTIONS[action][1]: 1, "ids": comment_id if action in UNDO else None}))

    # -- the editor ----------------------------------------------------------------------------

    @staticmethod
    def _values(comment: dict[str, Any]) -> dict[str, str]:
        status = {"approved": "1", "hold": "0", "spam": "spam"}.get(str(comment.get("status")), "")
        return {"newcomment_author": comment.get("author_name") or "", "newcomment_author_email": comment.get("author_email") or "",
                "newcomment_author_url": comment.get("author_url") or "",
                "content": (comment.get("content") or {}).get("raw", ""), "comment_status": status,
                "comment_date": str(comment.get("date") or "")[:16]}

    def _editor(self, r: AdminRequest, comment: dict[str, Any], values: dict[str, str], errors: dict[str, str],
                back: str, code: int = 200) -> None:
        comment_id = comment["id"]
        item = load_item(r, number(comment.get("post")))
        parent = None
        if number(comment.get("parent")):
            found = r.api.get(route(number(comment["parent"])), _fields="id,author_name,link")
            parent = found.data if found.ok and isinstance(found.data, dict) else None
        r.render("admin/comment-edit.html", code, title="Edit Comment", comment=comment, values=values, errors=errors,
                 back=back, item=post_links(r, item), parent=parent, choices=STATUS_CHOICES,
                 nonce=r.nonce(f"update-comment_{comment_id}"),
                 trash_url=r.url(ONE, c=comment_id, action="trashcomment", _wpnonce=r.nonce(nonce_action("trash", comment_id))))

    def _save(self, r: AdminRequest, comment: dict[str, Any]) -> None:
        """The editor's form: only what changed goes to the API (a comment imported without an
        e-mail address keeps it empty), and its errors come back beside their field."""
        if comment.get("status") == "trash":
            raise Forbidden(IN_TRASH, 409, "Edit Comment")
        before = self._values(comment)
        sent = {name: r.field(name).strip() if name != "content" else r.field(name) for name in before}
        back = list_address(r, r.field("referredby")) or r.url(LIST, p=number(comment.get("post")) or None)
        names = {"newcomment_author": "author_name", "newcomment_author_email": "author_email",
                 "newcomment_author_url": "author_url", "content": "content"}
        body: dict[str, Any] = {api: sent[field] for field, api in names.items() if sent[field] != before[field]}
        status = dict((value, stored) for value, stored, _ in STATUS_CHOICES).get(sent["comment_status"])
        if status and sent["comment_status"] != before["comment_status"]:
            body["status"] = status
        errors: dict[str, str] = {}
        if sent["comment_date"] and sent["comment_date"] != before["comment_date"]:
            if DATE_INPUT.fullmatch(sent["comment_date"]):
                body["date"] = sent["comment_date"] + ":00"
            else:
                errors["comment_date"] = "Please give the date as YYYY-MM-DD and the time as HH:MM."
        if not errors and body:
            answer = r.api.post(route(comment["id"]), body)
            if answer.ok:
                r.redirect(with_query(back, updated=1))
            fields = {api: field for field, api in names.items()} | {"date": "comment_date", "status": "comment_status"}
            errors = {fields.get(name, ""): reason for name, reason in answer.field_errors.items()} or {"": answer.message}
        elif not errors:
            r.redirect(with_query(back, updated=1))
        r.notice(errors.pop("", "") or "The comment was not updated.", "error")
        self._editor(r, comment, sent, errors, back, 400)

    # -- replies -------------------------------------------------------------------------------

    def _reply_form(self, r: AdminRequest, parent: dict[str, Any], content: str, errors: dict[str, str], back: str,
                    code: int = 200) -> None:
        item = load_item(r, number(parent.get("post")))
        status = str(parent.get("status") or "")
        if not can_reply(item, status):
            raise Forbidden("Sorry, you are not allowed to reply to this comment.", 403)
        if errors.get(""):
            r.notice(errors[""], "error")
        r.render("admin/comment-reply.html", code, title="Reply to Comment", parent=parent, content=content,
                 errors=errors, back=back, item=post_links(r, item), author=parent.get("author_name") or "Anonymous",
                 text=shown_html((parent.get("content") or {}).get("rendered", "")), date=date_label(parent.get("date")),
                 approve_first=status == "hold" and r.can("moderate_comments"), nonce=r.nonce(REPLY))

    def _reply(self, r: AdminRequest, parent: dict[str, Any]) -> None:
        """The reply, as the user: approved by the API (theirs to moderate); a held comment
        replied to with "Approve and Reply" is approved first, as WordPress's inline reply does."""
        back = list_address(r, r.field("referredby")) or r.url(LIST)
        content = r.field("content")
        item = load_item(r, number(parent.get("post")))
        if not can_reply(item, str(parent.get("status") or "")):
            raise Forbidden("Sorry, you are not allowed to reply to this comment.", 403)
        approved = None
        if r.field("approve_parent") and parent.get("status") == "hold" and content.strip():
            answer = apply(r, "approve", parent["id"])
            if not answer.ok:
                self._reply_form(r, parent, content, {"": answer.message}, back, answer.status)
                return
            approved, parent = 1, answer.data
        answer = r.api.post(COMMENTS, {"post": number(parent.get("post")), "parent": parent["id"], "content": content})
        if answer.ok:
            r.redirect(with_query(back, replied=1, approved=approved))
        about_content = answer.code == "rest_comment_content_invalid" or "content" in answer.field_errors
        errors = {"content" if about_content else "": answer.field_errors.get("content") or answer.message}
        self._reply_form(r, parent, content, errors, back, 400)


SCREENS: list[Screen] = [CommentsScreen(), CommentScreen()]
