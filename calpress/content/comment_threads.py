"""The comments an item's page shows, as the reference's comments_template and wp_list_comments
arrange them with the discussion settings: approved comments (and the viewer's own held ones),
threaded up to ``thread_comments_depth`` levels, top-level threads paged by
``comments_per_page`` when ``page_comments`` is on (pages counted from the oldest thread,
``default_comments_page`` naming the one shown first), top-level threads in ``comment_order``
(replies always oldest first).

One statement reads the item's visible comments; the tree and the page are built here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import sqlalchemy as sa

from ..store.tables import comments
from .comment_rules import is_on, number, option
from .comments import Comment
from .items import Context, Item

MAX_SHOWN = 5000  # comments of one item read for its page at most (the oldest first)


@dataclass
class Viewer:
    """Whose held comments are shown besides the approved ones: the logged-in user's, or those
    written with ``email`` (a visitor's commenter cookie or fresh moderation link)."""

    user_id: int = 0
    email: str = ""


@dataclass
class Node:
    comment: Comment
    depth: int  # 1 for a top-level comment
    replies: list[Node] = field(default_factory=list)
    can_reply: bool = False


@dataclass
class Thread:
    """One page of an item's comments. ``page``: its number (0 when comments are not paged),
    ``pages``: how many there are; ``count``: the item's approved comments."""

    nodes: list[Node]
    page: int
    pages: int
    count: int
    threaded: bool
    max_depth: int


@dataclass
class _Tree:
    top: list[Comment]
    children: dict[int, list[Comment]]


def visible_comments(conn: sa.Connection, item: Item, viewer: Viewer) -> list[Comment]:
    """The item's approved comments and the viewer's held ones, oldest first."""
    c = comments.c
    shown = [c.status == "approved"]
    if viewer.user_id:
        shown.append(sa.and_(c.status == "hold", c.author == viewer.user_id))
    elif viewer.email:
        shown.append(sa.and_(c.status == "hold", c.author_email == viewer.email))
    rows = conn.execute(
        sa.select(comments).where(c.post_id == item.id, c.type == "comment", sa.or_(*shown))
        .order_by(c.date_utc, c.id).limit(MAX_SHOWN)
    ).all()
    return [Comment.from_row(row) for row in rows]


def _tree(found: list[Comment], threaded: bool) -> _Tree:
    """Top-level comments and each comment's replies; a reply whose parent is not shown is
    dropped (the reference reads threads down from their top), unless threading is off."""
    if not threaded:
        return _Tree(found, {})
    ids = {comment.id for comment in found}
    children: dict[int, list[Comment]] = {}
    top: list[Comment] = []
    for comment in found:
        if comment.parent and comment.parent in ids:
            children.setdefault(comment.parent, []).append(comment)
        elif not comment.parent:
            top.append(comment)
    return _Tree(top, children)


def _paging(ctx: Context, top_count: int) -> tuple[int, int]:
    """(per page, number of pages); per page 0 when comments are not paged."""
    per_page = number(ctx.options, "comments_per_page") if is_on(ctx.options, "page_comments") else 0
    if per_page <= 0:
        return 0, 1
    return per_page, max(1, math.ceil(top_count / per_page))


def default_page(ctx: Context, pages: int) -> int:
    return 1 if option(ctx.options, "default_comments_page") == "oldest" else pages


def thread(conn: sa.Connection, ctx: Context, item: Item, viewer: Viewer, *, page: int = 0, open_for_replies: bool = True) -> Thread:
    """The comments of ``item``'s page ``page`` (0: the default page) as the viewer sees them."""
    threaded = is_on(ctx.options, "thread_comments")
    max_depth = max(1, number(ctx.options, "thread_comments_depth")) if threaded else 1
    tree = _tree(visible_comments(conn, item, viewer), threaded)
    per_page, pages = _paging(ctx, len(tree.top))
    top = tree.top
    if per_page:
        page = min(page, pages) if page > 0 else default_page(ctx, pages)
        top = top[(page - 1) * per_page: page * per_page]
    else:
        page = 0
    if str(option(ctx.options, "comment_order")).lower() == "desc":
        top = list(reversed(top))

    def grow(comment: Comment, depth: int, into: list[Node]) -> None:
        node = Node(comment, depth, can_reply=threaded and open_for_replies and depth < max_depth)
        into.append(node)
        for reply in tree.children.get(comment.id, []):
            # At the deepest level replies are shown after their parent, at its level (Walker_Comment).
            grow(reply, depth + 1, node.replies) if depth < max_depth else grow(reply, depth, into)

    nodes: list[Node] = []
    for comment in top:
        grow(comment, 1, nodes)
    return Thread(nodes, page, pages, int(item.comment_count or 0), threaded, max_depth)


def page_of(conn: sa.Connection, ctx: Context, item: Item, comment: Comment, viewer: Viewer) -> int:
    """The comment page ``comment`` is on for the viewer (0 when comments are not paged or the
    comment is on the page shown first, whose address has no page number: get_comment_link)."""
    tree = _tree(visible_comments(conn, item, viewer), is_on(ctx.options, "thread_comments"))
    per_page, pages = _paging(ctx, len(tree.top))
    if not per_page:
        return 0
    by_id = {c.id: c for c in tree.top}
    by_id.update({c.id: c for replies in tree.children.values() for c in replies})
    current = by_id.get(comment.id, comment)
    for _ in range(MAX_SHOWN):
        if not current.parent or current.parent not in by_id:
            break
        current = by_id[current.parent]
    index = next((n for n, top in enumerate(tree.top) if top.id == current.id), len(tree.top) - 1)
    found = index // per_page + 1
    return 0 if found == default_page(ctx, pages) else found
