"""Comments on the public site: the comments section under an item (its threaded, paged comments
and the form, ``templates/site/comments.html``) and ``/wp-comments-post.php``, where the form
posts, after the reference's comments_template, comment_form and wp-comments-post.php.

A comment from the form passes the same rules as one from the REST route
(:mod:`calpress.content.comment_rules`): required fields, lengths, closed comments,
password-protected items, ``comment_registration``, duplicates, flood control and moderation.
Errors answer a small page with the reference's message and status, and store nothing.

A held comment is shown to its author only: to the logged-in user who wrote it, or to the visitor
whose commenter cookie (signed here, so that knowing an address is not enough) names its e-mail,
or, for ten minutes, to whoever follows the link the form redirects to (``unapproved`` and
``moderation-hash``, as the reference). The page cache keys pages by those cookies and by the
query string, so nobody else is served such a page.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlencode

import falcon

from ..auth import sessions
from ..calendar import events as cal
from ..compat.formatting import esc_url_raw, is_email, safe_url, strip_all_tags
from ..compat.phpdate import format_php
from ..content import comment_rules, comment_threads, permissions
from ..content import comments as comment_store
from ..content import items as item_service
from ..content.comment_rules import CommentRefused, NewComment
from ..content.comment_threads import Viewer
from ..content.items import Context, Item
from ..rest.request import parse_query
from .answer import Answer
from .auth import LOGOUT_ACTION
from .requester import Requester

if TYPE_CHECKING:
    from .site import PublicSite

COMMENTS_POST_PATH = "/wp-comments-post.php"
AUTHOR_COOKIE = "comment_author_calpress"
EMAIL_COOKIE = "comment_author_email_calpress"
URL_COOKIE = "comment_author_url_calpress"
COOKIE_LIFETIME = 30_000_000  # the reference's comment_cookie_lifetime
PREVIEW_SECONDS = 600  # how long the moderation link shows a held comment (the reference's 10 minutes)
MAX_FORM_BYTES = 1024 * 1024
_COMMENT_PAGE = re.compile(r"(.*/)comment-page-([0-9]{1,9})/?")


@dataclass
class Commenter:
    """The visitor's commenter cookies: what the form is filled with; ``email`` only when its
    signature holds (it then shows the visitor's held comments)."""

    name: str = ""
    email: str = ""
    url: str = ""


@dataclass
class CommentRequest:
    """What a page request says about comments: the comment page asked for (0: the default),
    the query (reply and moderation links) and the commenter cookies."""

    page: int
    query: dict[str, Any]
    commenter: Commenter


def cache_key(req: falcon.Request) -> tuple[str, str, str]:
    """The commenter cookies, part of the page cache's key (they change what an item page shows)."""
    return (req.cookies.get(AUTHOR_COOKIE) or "", req.cookies.get(EMAIL_COOKIE) or "", req.cookies.get(URL_COOKIE) or "")


def prepare(who: Requester, req: falcon.Request, path: str, query: dict[str, Any], secret: str) -> str:
    """Reads the comment page of an item address (``/hello/comment-page-2/``, ``?cpage=2``) and
    the commenter cookies into ``who.comments``; returns the item's own path."""
    page = 0
    found = _COMMENT_PAGE.fullmatch(path)
    if found:
        path, page = found.group(1), int(found.group(2))
    elif isinstance(query.get("cpage"), str) and query["cpage"].isdigit() and len(query["cpage"]) < 10:
        page = int(query["cpage"])
    who.comments = CommentRequest(page, query, commenter_of(req, secret))
    return path


def _sign(secret: str, email: str) -> str:
    return hmac.new(secret.encode(), b"commenter|" + email.encode(), hashlib.sha256).hexdigest()[:32]


def commenter_of(req: falcon.Request, secret: str) -> Commenter:
    def cookie(name: str) -> str:
        return unquote((req.cookies.get(name) or "").strip('"'), errors="replace")[:300]

    email, _, signature = cookie(EMAIL_COOKIE).rpartition("|")
    verified = email if email and hmac.compare_digest(signature, _sign(secret, email)) else ""
    return Commenter(name=cookie(AUTHOR_COOKIE), email=verified, url=cookie(URL_COOKIE))


def moderation_hash(secret: str, comment: comment_store.Comment) -> str:
    """The reference's moderation-hash: a keyed hash of the comment's id and date."""
    message = f"moderation|{comment.id}|{comment.date_utc.isoformat()}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


def viewer_of(conn: Any, who: Requester, request: CommentRequest, secret: str) -> Viewer:
    """Whose held comments the page shows (wp_get_unapproved_comment_author_email)."""
    if who.user:
        return Viewer(user_id=who.user.id)
    email = request.commenter.email
    unapproved, given = request.query.get("unapproved"), request.query.get("moderation-hash")
    if isinstance(unapproved, str) and unapproved.isdigit() and len(unapproved) < 19 and isinstance(given, str):
        comment = comment_store.get_comment(conn, int(unapproved))
        if comment is not None and hmac.compare_digest(given, moderation_hash(secret, comment)):
            if item_service.now_utc() - comment.date_utc < dt.timedelta(seconds=PREVIEW_SECONDS):
                email = comment.author_email
    return Viewer(email=email)


def shows_comments(ctx: Context, item: Item) -> bool:
    """Whether the item's page has a comments section: its type supports comments; events only
    when the calendar's "Show comments" setting (``showComments``) is on, as the reference."""
    content_type = ctx.registry.types.get(item.type)
    if content_type is None or not content_type.supports_feature("comments"):
        return False
    if item.type == cal.EVENT_TYPE:
        return comment_rules.is_on({"v": ctx.options.get("showComments") or ""}, "v")
    return True


def page_url(item_url: str, page: int) -> str:
    """The address of a comment page (get_comments_pagenum_link): ``comment-page-N/`` after a
    pretty address, ``cpage=N`` in a plain one."""
    if page <= 0:
        return item_url
    if "?" in item_url:
        return f"{item_url}&cpage={page}"
    return f"{item_url.rstrip('/')}/comment-page-{page}/"


def _with_query(url: str, args: dict[str, Any]) -> str:
    return url + ("&" if "?" in url else "?") + urlencode(args)


# -- the section under an item ---------------------------------------------------------------------


def section(public: PublicSite, who: Requester, item: Item, item_url: str, *, locked: bool) -> dict[str, Any] | None:
    """The model of ``templates/site/comments.html`` for ``item``'s page, or None when the page
    has no comments section (a type without comments, comments closed and none approved, or a
    protected item whose password was not given)."""
    ctx = who.ctx
    request: CommentRequest = who.comments or CommentRequest(0, {}, Commenter())
    is_open = item.comment_status == "open"
    if locked or not shows_comments(ctx, item) or (not is_open and not item.comment_count):
        return None
    secret = public.calpress.settings.secret_key
    with public.site.read() as conn:
        viewer = viewer_of(conn, who, request, secret)
        found = comment_threads.thread(conn, ctx, item, viewer, page=request.page, open_for_replies=is_open)
        reply_to = None
        reply = request.query.get("replytocom")
        if is_open and isinstance(reply, str) and reply.isdigit() and len(reply) < 19:
            parent = comment_store.get_comment(conn, int(reply))
            if parent is not None and parent.post_id == item.id and (parent.status == "approved" or _own(parent, viewer)):
                reply_to = {"id": parent.id, "name": parent.author_name or "Anonymous"}
    shown_url = page_url(item_url, request.page)
    date_format = str(ctx.options.get("date_format") or "F j, Y")
    time_format = str(ctx.options.get("time_format") or "g:i a")

    pending_links = bool(request.commenter.name)
    # Every comment shown is on this page; the default page's address has no page number.
    link_base = page_url(item_url, found.page if found.page != comment_threads.default_page(ctx, found.pages) else 0)

    def entry(node: comment_threads.Node, parity: list[int]) -> dict[str, Any]:
        comment = node.comment
        held = comment.status != "approved"
        parity[0] += 1
        classes = ["comment", "even" if parity[0] % 2 else "odd", f"depth-{node.depth}"]
        if node.replies:
            classes.append("parent")
        if comment.author:
            classes.append("byuser")
            if comment.author == item.author:
                classes.append("bypostauthor")
        return {
            "id": comment.id,
            "classes": " ".join(classes),
            "name": comment.author_name or "Anonymous",
            "url": safe_url(comment.author_url) if comment.author_url else "",
            "date_iso": comment.date_local.isoformat(),
            "date_text": f"{format_php(comment.date_local, date_format)} at {format_php(comment.date_local, time_format)}",
            "link": f"{link_base}#comment-{comment.id}",
            "content": comment_store.render(comment.content),
            "held": held,
            # A held comment has no permalink nor Reply link unless the commenter cookies name an
            # author (Walker_Comment's $show_pending_links).
            "linked": not held or pending_links,
            "reply_url": _with_query(shown_url, {"replytocom": comment.id}) + "#respond"
            if node.can_reply and (not held or pending_links) else "",
            "replies": [entry(reply, parity) for reply in node.replies],
        }

    parity = [0]
    entries = [entry(node, parity) for node in found.nodes]
    title = html.unescape(strip_all_tags(item.title or "")).strip()
    count = found.count or len(found.nodes)  # a commenter's own held comments, before any is approved
    nav = {}
    if found.page:
        if found.page > 1:
            nav["older"] = page_url(item_url, found.page - 1) + "#comments"
        if found.page < found.pages:
            nav["newer"] = page_url(item_url, found.page + 1) + "#comments"
    options = ctx.options
    user = who.user
    form: dict[str, Any] = {
        "open": is_open,
        "action": who.origin + COMMENTS_POST_PATH,
        "post_id": item.id,
        "parent": reply_to["id"] if reply_to else 0,
        "reply_to": reply_to,
        "cancel_url": shown_url + "#respond",
        "require": comment_rules.is_on(options, "require_name_email"),
        "opt_in": comment_rules.is_on(options, "show_comments_cookies_opt_in"),
        "login_required": bool(not user and comment_rules.is_on(options, "comment_registration")),
        "login_url": _with_query(who.origin + "/wp-login.php", {"redirect_to": item_url}),
        "commenter": request.commenter,
        "remembered": bool(request.commenter.name or request.commenter.email),
    }
    if user:
        form["user_name"] = user.display_name or user.login
        form["profile_url"] = who.origin + "/wp-admin/profile.php"
        token = who.session.token if who.session else ""
        nonce = sessions.create_nonce(secret, LOGOUT_ACTION, user.id, token)
        form["logout_url"] = _with_query(who.origin + "/wp-login.php", {"action": "logout", "redirect_to": item_url,
                                                                         "_wpnonce": nonce})
    return {
        "count": count,
        "title": (f"One thought on \u201c{title}\u201d" if count == 1 else f"{count} thoughts on \u201c{title}\u201d"),
        "entries": entries,
        "nav": nav,
        "form": form,
        "awaiting_note": "Your comment is awaiting moderation." if (user or request.commenter.email)
        else "Your comment is awaiting moderation. This is a preview; your comment will be visible after it has been approved.",
    }


def _own(comment: comment_store.Comment, viewer: Viewer) -> bool:
    if viewer.user_id:
        return comment.author == viewer.user_id
    return bool(viewer.email) and comment.author_email == viewer.email


# -- /wp-comments-post.php -------------------------------------------------------------------------


class CommentPost:
    """``/wp-comments-post.php``: the comment form's target (POST only, as the reference's)."""

    def __init__(self, public: PublicSite) -> None:
        self.public = public
        self.site = public.site

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Anything but POST: the reference's 405, in plain text."""
        resp.status = falcon.HTTP_405
        resp.content_type = "text/plain; charset=UTF-8"
        resp.set_header("Allow", "POST")
        resp.text = "Method Not Allowed"

    on_head = on_get

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        who = Requester(self.public, req)
        form: dict[str, Any] = {}
        try:
            self.check_origin(req, who)
            form = self.read_form(req)
            location, comment = self.submit(req, who, form)
        except CommentRefused as refused:
            answer = self.refusal(who, refused, form)
            resp.status = falcon.code_to_http_status(answer.status)
            resp.content_type = answer.content_type
            for name, value in answer.headers.items():
                resp.set_header(name, value)
            resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
            resp.data = answer.body
            return
        if not who.user:
            self.remember(req, resp, comment, bool(self.field(form, "wp-comment-cookies-consent")))
        resp.status = falcon.HTTP_303
        resp.content_type = "text/html; charset=UTF-8"
        resp.set_header("Location", location)
        resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")

    @staticmethod
    def field(form: dict[str, Any], name: str) -> str:
        value = form.get(name)
        return value.replace("\x00", "") if isinstance(value, str) else ""  # PostgreSQL text takes no NUL

    def read_form(self, req: falcon.Request) -> dict[str, Any]:
        length = req.content_length or 0
        if length > MAX_FORM_BYTES:
            raise CommentRefused("comment_too_large", "<strong>Error:</strong> Your comment is too long.", 413)
        if not length:
            return {}
        raw = req.bounded_stream.read(length).decode("utf-8", "replace")
        found = parse_query(raw)
        return {key: value for key, value in found.items() if isinstance(key, str)}

    @staticmethod
    def check_origin(req: falcon.Request, who: Requester) -> None:
        """Refuses a form another site's page sent (its browser names that site in Origin); the
        reference's form has no nonce for visitors, and the login cookie is SameSite=Lax."""
        origin = req.get_header("Origin")
        if origin and origin != "null" and origin.rstrip("/") != who.origin.rstrip("/"):
            raise CommentRefused("comment_cross_origin", "<strong>Error:</strong> This form was sent from another site.", 403)

    def submit(self, req: falcon.Request, who: Requester, form: dict[str, Any]) -> tuple[str, comment_store.Comment]:
        """Checks and writes the comment of the form; returns where to send the browser next.
        Raises :class:`CommentRefused` (nothing written)."""
        ctx = who.ctx
        post_id = self.field(form, "comment_post_ID").strip()
        post = None
        if post_id.isdigit() and len(post_id) < 19:
            with self.site.read() as conn:
                post = item_service.get_item(conn, int(post_id))
        if post is None or post.status == "trash" or not permissions.can_read(ctx, post):
            raise CommentRefused("comment_id_not_found", "Nothing was found to comment on.", 404)
        if post.comment_status != "open":
            raise CommentRefused("comment_closed", "Sorry, comments are closed for this item.", 403)
        if post.status not in ("publish", "private"):
            raise CommentRefused("comment_on_draft", "Sorry, comments are not allowed on this item.", 403)
        if post.password and not permissions.password_matches(post, self.public.password_given(who, post)):
            raise CommentRefused("comment_on_password_protected", "Sorry, this item is password protected.", 403)
        user = who.user
        if user:
            name, email, url = user.display_name or user.login, user.email or "", user.url or ""
        else:
            if comment_rules.is_on(ctx.options, "comment_registration"):
                raise CommentRefused("not_logged_in", "Sorry, you must be logged in to comment.", 403)
            name = strip_all_tags(self.field(form, "author")).strip()
            email = self.field(form, "email").strip()
            url = self.field(form, "url").strip()
            if comment_rules.is_on(ctx.options, "require_name_email"):
                if len(email) < 6 or not name:
                    raise CommentRefused("require_name_email", "<strong>Error:</strong> Please fill the required fields.", 200)
                if not is_email(email):
                    raise CommentRefused("require_valid_email", "<strong>Error:</strong> Please enter a valid email address.", 200)
        content = self.field(form, "comment").replace("\r\n", "\n").strip()
        new = NewComment(post_id=post.id, content=content, author=user.id if user else 0, name=name, email=email,
                         url=esc_url_raw(url) if url else "", ip=req.remote_addr or "",
                         agent=(req.get_header("User-Agent") or "")[:254])
        comment_rules.check_lengths(new)
        if not content:
            raise CommentRefused("require_valid_comment", "<strong>Error:</strong> Please type your comment text.", 200)
        # A comment from the form is always filtered to the comment tags (the reference lets
        # users with unfiltered_html skip that only with a nonce the form carries for them).
        new.content = comment_store.filter_content(content)
        parent = self.field(form, "comment_parent").strip()
        with self.site.write() as conn:
            new.parent = comment_rules.valid_parent(conn, post.id, int(parent)) if parent.isdigit() and len(parent) < 19 else 0
            author_user = user if user else None
            comment = comment_rules.add_comment(conn, ctx, new, post, author_user)
            viewer = Viewer(user_id=user.id) if user else Viewer(email=comment.author_email)
            page = comment_threads.page_of(conn, ctx, post, comment, viewer)
        location = page_url(item_service.permalink(ctx, post), page)
        if comment.status == "hold" and comment.author_email:
            location = _with_query(location, {"unapproved": comment.id,
                                              "moderation-hash": moderation_hash(self.public.calpress.settings.secret_key, comment)})
        return f"{location}#comment-{comment.id}", comment

    def remember(self, req: falcon.Request, resp: falcon.Response, comment: comment_store.Comment, consent: bool) -> None:
        """The commenter cookies (wp_set_comment_cookies): set with the visitor's consent (always
        when the site does not ask for it), removed without."""
        secure = req.scheme == "https"
        asked = comment_rules.is_on(self.public.calpress.site.options(), "show_comments_cookies_opt_in")
        if asked and not consent:
            for name in (AUTHOR_COOKIE, EMAIL_COOKIE, URL_COOKIE):
                if name in req.cookies:
                    resp.unset_cookie(name, path="/")
            return
        secret = self.public.calpress.settings.secret_key
        email = comment.author_email
        values = {AUTHOR_COOKIE: comment.author_name, EMAIL_COOKIE: f"{email}|{_sign(secret, email)}" if email else "",
                  URL_COOKIE: comment.author_url}
        for name, value in values.items():
            if not value:
                if name in req.cookies:
                    resp.unset_cookie(name, path="/")
                continue
            resp.set_cookie(name, quote(value, safe="@.:/-_"), path="/", max_age=COOKIE_LIFETIME, http_only=True,
                            same_site="Lax", secure=secure)

    def refusal(self, who: Requester, refused: CommentRefused, form: dict[str, Any]) -> Answer:
        """The reference's wp_die page of a refused comment: its message and a way back."""
        back = who.origin + "/"
        post_id = self.field(form, "comment_post_ID").strip()
        if post_id.isdigit() and len(post_id) < 19 and refused.status != 404:
            with self.site.read() as conn:
                post = item_service.get_item(conn, int(post_id))
            if post is not None and permissions.can_read(who.ctx, post):
                back = item_service.permalink(who.ctx, post) + "#respond"
        model, headers = self.public.page_model(who, "Comment Submission Failure", noindex=True)
        return self.public.render("site/comment_error.html", refused.status, model, headers, message=refused.message,
                                  back=back)
