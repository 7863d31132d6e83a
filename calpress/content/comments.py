"""Comments on content items: storage, queries and the rules the reference applies when a comment
is written (who gets approved at once, duplicates, the post's comment count).

Statuses are stored under their REST names: ``approved``, ``hold``, ``spam``, ``trash``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import nh3
import sqlalchemy as sa

from ..store import textsearch
from ..store.changes import record as record_change
from ..store.tables import comments, posts, row_offset
from .items import Context, now_utc, to_local
from .rendering.autop import wpautop
from .rendering.texturize import wptexturize

STATUSES = ("approved", "hold", "spam", "trash")
# The reference's query-argument names for statuses ("approve" lists approved comments).
QUERY_STATUSES = {"approve": "approved", "approved": "approved", "hold": "hold", "spam": "spam", "trash": "trash",
                  "1": "approved", "0": "hold"}
# What commenters without unfiltered_html may write (the reference's $allowedtags for comments).
ALLOWED_TAGS = {"a", "abbr", "acronym", "b", "blockquote", "cite", "code", "del", "em", "i", "q", "s", "strike", "strong"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "acronym": {"title"}, "blockquote": {"cite"},
                      "del": {"datetime"}, "q": {"cite"}}


@dataclass
class Comment:
    id: int
    post_id: int
    parent: int
    author: int
    author_name: str
    author_email: str
    author_url: str
    author_ip: str
    author_agent: str
    date_local: dt.datetime
    date_utc: dt.datetime
    content: str
    status: str
    type: str
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Any) -> Comment:
        return cls(
            id=row.id, post_id=row.post_id, parent=row.parent or 0, author=row.author or 0, author_name=row.author_name,
            author_email=row.author_email, author_url=row.author_url, author_ip=row.author_ip,
            author_agent=row.author_agent, date_local=row.date_local, date_utc=row.date_utc, content=row.content,
            status=row.status, type=row.type, meta=dict(row.meta or {}),
        )


def render(content: str) -> str:
    """``content.rendered``: the reference's comment_text filters (texturize, paragraphs)."""
    return wpautop(wptexturize(content)) if content else ""


def filter_content(content: str) -> str:
    return nh3.clean(content, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, link_rel=None)


def get_comment(conn: sa.Connection, comment_id: int) -> Comment | None:
    row = conn.execute(sa.select(comments).where(comments.c.id == comment_id)).first()
    return Comment.from_row(row) if row is not None else None


@dataclass
class CommentQuery:
    statuses: list[str] | None = None  # None: any status
    types: list[str] | None = None
    post_ids: list[int] | None = None
    # Only comments on published items without a password (what non-moderators may list).
    public_posts_only: bool = False
    parents: list[int] | None = None
    parent_exclude: list[int] | None = None
    authors: list[int] | None = None
    author_exclude: list[int] | None = None
    author_email: str | None = None
    include: list[int] | None = None
    exclude: list[int] | None = None
    search: str | None = None
    after: dt.datetime | None = None
    before: dt.datetime | None = None
    order: str = "desc"
    orderby: str = "date_gmt"
    page: int = 1
    per_page: int = 10
    offset: int | None = None


def query_comments(conn: sa.Connection, query: CommentQuery) -> tuple[list[Comment], int]:
    where: list[Any] = []
    if query.statuses is not None:
        where.append(comments.c.status.in_(query.statuses))
    if query.types is not None:
        where.append(comments.c.type.in_(query.types))
    if query.post_ids is not None:
        where.append(comments.c.post_id.in_(query.post_ids or [0]))
    if query.public_posts_only:
        public = sa.select(posts.c.id).where(posts.c.id == comments.c.post_id, posts.c.status == "publish", posts.c.password == "")
        where.append(sa.exists(public))
    if query.parents is not None:
        where.append(comments.c.parent.in_(query.parents))
    if query.parent_exclude:
        where.append(comments.c.parent.notin_(query.parent_exclude))
    if query.authors is not None:
        where.append(comments.c.author.in_(query.authors))
    if query.author_exclude:
        where.append(sa.or_(comments.c.author.is_(None), comments.c.author.notin_(query.author_exclude)))
    if query.author_email:
        where.append(comments.c.author_email == query.author_email)
    if query.include:
        where.append(comments.c.id.in_(query.include))
    if query.exclude:
        where.append(comments.c.id.notin_(query.exclude))
    if query.search:
        searched = (comments.c.author_name, comments.c.author_email, comments.c.author_url, comments.c.author_ip, comments.c.content)
        where.append(textsearch.contains(conn, searched, query.search))
    if query.after is not None:
        where.append(comments.c.date_local > query.after)
    if query.before is not None:
        where.append(comments.c.date_local < query.before)
    total = conn.execute(sa.select(sa.func.count()).select_from(comments).where(*where)).scalar_one()
    columns = {"date": comments.c.date_local, "date_gmt": comments.c.date_utc, "id": comments.c.id, "post": comments.c.post_id,
               "parent": comments.c.parent, "type": comments.c.type}
    direction = (lambda c: c.asc()) if query.order == "asc" else (lambda c: c.desc())
    if query.orderby == "include" and query.include:
        order = [sa.case({value: n for n, value in enumerate(query.include)}, value=comments.c.id)]
    else:
        order = [direction(columns.get(query.orderby, comments.c.date_utc)), direction(comments.c.id)]
    # The reference's comment query takes the absolute value of an offset (absint).
    offset = abs(query.offset) if query.offset is not None else (query.page - 1) * query.per_page
    rows = conn.execute(sa.select(comments).where(*where).order_by(*order).limit(query.per_page).offset(row_offset(offset))).all()
    return [Comment.from_row(row) for row in rows], total


def recount(conn: sa.Connection, post_id: int) -> None:
    """The post's ``comment_count``: its approved comments."""
    count = conn.execute(
        sa.select(sa.func.count()).select_from(comments).where(comments.c.post_id == post_id, comments.c.status == "approved")
    ).scalar_one()
    conn.execute(sa.update(posts).where(posts.c.id == post_id).values(comment_count=count))


def is_duplicate(conn: sa.Connection, post_id: int, parent: int, author: int, email: str, name: str, content: str) -> bool:
    """The reference's duplicate check: same post, parent, author (user, or name/e-mail) and content."""
    who = comments.c.author == author if author else sa.and_(comments.c.author_name == name, comments.c.author_email == email)
    found = conn.execute(
        sa.select(comments.c.id).where(comments.c.post_id == post_id, comments.c.parent == parent, who,
                                       comments.c.content == content, comments.c.status != "trash").limit(1)
    ).first()
    return found is not None


def previously_approved(conn: sa.Connection, author: int, name: str, email: str) -> bool:
    who = comments.c.author == author if author else sa.and_(comments.c.author_name == name, comments.c.author_email == email)
    return conn.execute(sa.select(comments.c.id).where(who, comments.c.status == "approved").limit(1)).first() is not None


def insert_comment(conn: sa.Connection, ctx: Context, values: dict[str, Any], date_utc: dt.datetime | None = None,
                   date_local: dt.datetime | None = None) -> Comment:
    """Insert a comment dated ``date_utc`` (now when None); its local date is ``date_local`` when
    given (an import keeps the one its file names), else the UTC date in the site's zone."""
    now = date_utc or now_utc()
    comment_id = conn.execute(
        sa.insert(comments).values(**values, date_utc=now, date_local=date_local or to_local(now, ctx.zone))
        .returning(comments.c.id)
    ).scalar_one()
    record_change(conn, "comment", "create", comment_id)
    recount(conn, values["post_id"])
    found = get_comment(conn, comment_id)
    assert found is not None
    return found


def update_comment(conn: sa.Connection, comment: Comment, values: dict[str, Any]) -> Comment:
    record_change(conn, "comment", "update", comment.id)
    if values:
        conn.execute(sa.update(comments).where(comments.c.id == comment.id).values(**values))
    recount(conn, comment.post_id)
    if values.get("post_id") and values["post_id"] != comment.post_id:
        recount(conn, values["post_id"])
    found = get_comment(conn, comment.id)
    assert found is not None
    return found


def delete_comment(conn: sa.Connection, comment: Comment) -> None:
    """Delete for good; replies move up to the deleted comment's parent, as the reference does."""
    record_change(conn, "comment", "delete", comment.id)
    conn.execute(sa.update(comments).where(comments.c.parent == comment.id).values(parent=comment.parent))
    conn.execute(sa.delete(comments).where(comments.c.id == comment.id))
    recount(conn, comment.post_id)


def has_children(conn: sa.Connection, ids: list[int]) -> set[int]:
    if not ids:
        return set()
    return set(conn.execute(sa.select(comments.c.parent).where(comments.c.parent.in_(ids)).distinct()).scalars())


# -- the workspace's counts, one statement each -------------------------------------------------


ONLY_COMMENTS = comments.c.type == "comment"  # what the workspace's list shows (the REST default type)


def pending_count(conn: sa.Connection) -> int:
    """Comments awaiting moderation, site-wide (the menu's count beside "Comments")."""
    statement = sa.select(sa.func.count()).select_from(comments).where(ONLY_COMMENTS,
                                                                            comments.c.status == "hold")
    return int(conn.execute(statement).scalar_one())


def status_counts(conn: sa.Connection, user_id: int, post_id: int = 0) -> dict[str, int]:
    """The status links' counts as WordPress's wp_count_comments gives them (All: approved and
    pending; Mine: the user's approved and pending), of one item's comments when ``post_id``."""
    c = comments.c
    mine = sa.func.sum(sa.case((c.author == user_id, 1), else_=0))
    statement = sa.select(c.status, sa.func.count(), mine).where(ONLY_COMMENTS).group_by(c.status)
    if post_id:
        statement = statement.where(c.post_id == post_id)
    found = {status: (int(count), int(own or 0)) for status, count, own in conn.execute(statement)}
    total = {status: found.get(status, (0, 0))[0] for status in STATUSES}
    return {"all": total["approved"] + total["hold"], "mine": sum(found.get(s, (0, 0))[1] for s in ("approved", "hold")),
            "moderated": total["hold"], "approved": total["approved"], "spam": total["spam"], "trash": total["trash"]}


def pending_by_post(conn: sa.Connection, post_ids: list[int]) -> dict[int, int]:
    if not post_ids:
        return {}
    c = comments.c
    statement = (sa.select(c.post_id, sa.func.count()).where(ONLY_COMMENTS, c.status == "hold", c.post_id.in_(post_ids))
                 .group_by(c.post_id))
    return {int(post_id): int(count) for post_id, count in conn.execute(statement)}
