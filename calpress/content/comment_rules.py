"""The rules a new comment passes, shared by the REST route (``api/cms_comments.py``) and the
public site's comment form (``pages/comment_form.py``), after the reference's
wp_handle_comment_submission, wp_allow_comment, check_comment and wp_check_comment_flood:

* field lengths (the columns' sizes: wp_check_comment_data_max_lengths);
* duplicates (same post, parent, author and text) and flood control (a second comment within
  15 seconds from the same user or e-mail, or for a visitor the same address or e-mail;
  moderators are exempt);
* the status a new comment gets: approved for moderators and the item's author; otherwise held
  when ``comment_moderation`` is on, when the text has ``comment_max_links`` links or more, when a
  ``moderation_keys`` line matches, or when ``comment_previously_approved`` is on and the author
  has no approved comment yet; trashed when a ``disallowed_keys`` line matches.

Each refusal is a :class:`CommentRefused` carrying the reference's code and message; the caller
chooses how to answer it (the REST route and the form answer different statuses for some).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..store.tables import comments
from . import comments as comment_store
from .items import Context, Item, now_utc

# The reference's discussion options and their installed defaults.
DISCUSSION_DEFAULTS: dict[str, Any] = {
    "require_name_email": "1",
    "comment_registration": "",
    "comment_moderation": "",
    "comment_previously_approved": "1",
    "comment_max_links": "2",
    "moderation_keys": "",
    "disallowed_keys": "",
    "thread_comments": "1",
    "thread_comments_depth": "5",
    "page_comments": "",
    "comments_per_page": "50",
    "default_comments_page": "newest",
    "comment_order": "asc",
    "show_comments_cookies_opt_in": "1",
}
# The columns' sizes (the reference's wp_get_comment_fields_max_lengths): (field, code, message).
MAX_LENGTHS: tuple[tuple[str, int, str, str], ...] = (
    ("name", 245, "comment_author_column_length", "<strong>Error:</strong> Your name is too long."),
    ("email", 100, "comment_author_email_column_length", "<strong>Error:</strong> Your email address is too long."),
    ("url", 200, "comment_author_url_column_length", "<strong>Error:</strong> Your URL is too long."),
    ("content", 65525, "comment_content_column_length", "<strong>Error:</strong> Your comment is too long."),
)
FLOOD_SECONDS = 15  # wp_throttle_comment_flood
DUPLICATE_MESSAGE = "Duplicate comment detected; it looks as though you\u2019ve already said that!"
FLOOD_MESSAGE = "You are posting comments too quickly. Slow down."
_LINK = re.compile(r"<a [^>]*href", re.IGNORECASE)


class CommentRefused(Exception):
    """A comment the rules refuse: the reference's error ``code``, ``message`` (HTML, as the
    reference writes it) and the status its comment form answers with."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass
class NewComment:
    """A comment about to be written, its author fields already filled (from the user when one
    writes it). ``author``: the user's id, 0 for a visitor."""

    post_id: int
    content: str
    parent: int = 0
    author: int = 0
    name: str = ""
    email: str = ""
    url: str = ""
    ip: str = ""
    agent: str = ""


def option(options: dict[str, Any], name: str) -> Any:
    """A discussion option, its installed default when the site has none."""
    value = options.get(name)
    return DISCUSSION_DEFAULTS.get(name) if value is None else value


def is_on(options: dict[str, Any], name: str) -> bool:
    """A "1"/"" discussion option's truth (words such as "true" too, as the command line stores them)."""
    value = option(options, name)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def number(options: dict[str, Any], name: str) -> int:
    try:
        return int(str(option(options, name)).strip() or 0)
    except (TypeError, ValueError):
        return int(DISCUSSION_DEFAULTS.get(name) or 0)


def check_lengths(comment: NewComment) -> None:
    """Refuses fields longer than their columns (the form answers these with 200, as the reference)."""
    for name, limit, code, message in MAX_LENGTHS:
        if len(getattr(comment, name)) > limit:
            raise CommentRefused(code, message, 200)


def check_allowed(conn: sa.Connection, ctx: Context, comment: NewComment) -> None:
    """Refuses a duplicate (409) and a comment sent too soon after the last one
    of the same sender (429, :func:`is_flooding`) unless the acting user moderates comments."""
    if comment_store.is_duplicate(conn, comment.post_id, comment.parent, comment.author, comment.email, comment.name,
                                  comment.content):
        raise CommentRefused("comment_duplicate", DUPLICATE_MESSAGE, 409)
    if is_flooding(conn, ctx, comment):
        raise CommentRefused("comment_flood", FLOOD_MESSAGE, 429)


def is_flooding(conn: sa.Connection, ctx: Context, comment: NewComment, now: dt.datetime | None = None) -> bool:
    """wp_check_comment_flood: the same sender wrote a comment less than 15 seconds ago. The
    sender is the acting user (or the e-mail) when someone is logged in, the address (or the
    e-mail) for a visitor; moderators (and administrators) are never throttled."""
    if ctx.can("moderate_comments") or ctx.can("manage_options"):
        return False
    c = comments.c
    senders: list[Any] = []
    if ctx.user_id:
        senders.append(c.author == ctx.user_id)
    elif comment.ip:
        senders.append(c.author_ip == comment.ip)
    if comment.email:
        senders.append(c.author_email == comment.email)
    if not senders:
        return False
    since = (now or now_utc()) - dt.timedelta(seconds=FLOOD_SECONDS)
    found = conn.execute(sa.select(c.id).where(c.date_utc > since, sa.or_(*senders)).limit(1)).first()
    return found is not None


def _key_matches(keys: Any, comment: NewComment) -> bool:
    """Whether a line of ``keys`` (moderation or disallowed words) occurs, case-insensitively, in
    the author's name, e-mail, address, URL, user agent or the text (the reference's check_comment)."""
    fields = (comment.name, comment.email, comment.url, comment.content, comment.ip, comment.agent)
    for line in str(keys or "").splitlines():
        word = line.strip()
        if not word:
            continue
        pattern = re.compile(re.escape(word), re.IGNORECASE)
        if any(pattern.search(text) for text in fields):
            return True
    return False


def passes_moderation(conn: sa.Connection, options: dict[str, Any], comment: NewComment) -> bool:
    """The reference's check_comment: whether a comment may be approved without a moderator."""
    if is_on(options, "comment_moderation"):
        return False
    max_links = number(options, "comment_max_links")
    if max_links and len(_LINK.findall(comment.content)) >= max_links:
        return False
    if _key_matches(option(options, "moderation_keys"), comment):
        return False
    if is_on(options, "comment_previously_approved"):
        if not comment.author and (not comment.name or not comment.email):
            return False
        return comment_store.previously_approved(conn, comment.author, comment.name, comment.email)
    return True


def initial_status(conn: sa.Connection, ctx: Context, comment: NewComment, post: Item | None, author_user: Any) -> str:
    """The status of a new comment (wp_allow_comment): approved for a moderator or the item's own
    author, else by :func:`passes_moderation`; trash when a disallowed key matches."""
    if author_user is not None and (ctx.registry.user_can(author_user, "moderate_comments")
                                    or (post is not None and post.author == author_user.id)):
        return "approved"
    status = "approved" if passes_moderation(conn, ctx.options, comment) else "hold"
    if _key_matches(option(ctx.options, "disallowed_keys"), comment):
        return "trash"
    return status


def valid_parent(conn: sa.Connection, post_id: int, parent: int) -> int:
    """The parent a new comment keeps (wp_new_comment): an approved or held comment of the same
    item, else 0 (top level)."""
    if parent <= 0:
        return 0
    found = comment_store.get_comment(conn, parent)
    if found is None or found.post_id != post_id or found.status not in ("approved", "hold"):
        return 0
    return parent


def add_comment(conn: sa.Connection, ctx: Context, comment: NewComment, post: Item | None, author_user: Any, *,
                status: str | None = None) -> comment_store.Comment:
    """Write ``comment`` (text already filtered) after the checks every writer shares: lengths,
    duplicates, flood control; its status is ``status`` when a moderator chose one, else
    :func:`initial_status`. Raises :class:`CommentRefused`."""
    check_lengths(comment)
    check_allowed(conn, ctx, comment)
    if status is None:
        status = initial_status(conn, ctx, comment, post, author_user)
    return comment_store.insert_comment(conn, ctx, {
        "post_id": comment.post_id, "parent": comment.parent, "author": comment.author or None,
        "author_name": comment.name, "author_email": comment.email, "author_url": comment.url,
        "author_ip": comment.ip[:100], "author_agent": comment.agent[:254], "content": comment.content, "status": status,
        "type": "comment",
    })
