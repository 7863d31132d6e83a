"""``/wp-admin/`` (``index.php``): the dashboard. At a glance (counts of what the user may edit),
upcoming events, what waits for review (for those who may publish others' work), the user's own
recent drafts, recent comments (held ones too for moderators), and a quick event draft."""

from __future__ import annotations

from typing import Any

from ..compat.formatting import trim_words
from ..content import items as item_service
from .content import TYPES, labels, route_of
from .shell import AdminRequest, Screen
from .values import text_of

QUICK_DRAFT = "quick-event-draft"


class Dashboard(Screen):
    file = "index.php"
    capability = "read"

    def get(self, r: AdminRequest) -> None:
        glance: list[dict[str, Any]] = []
        pending: list[dict[str, Any]] = []
        drafts: list[dict[str, Any]] = []
        types = r.ctx.registry.types
        with r.site.read() as conn:
            for name in ("post", "page", "cal_events", "cal_venue", "cal_organizer"):
                kind = types.get(name)
                if kind is None or name not in TYPES or not r.can(kind.caps["edit_posts"]):
                    continue
                counts = item_service.status_counts(conn, name)
                names = labels(kind)
                glance.append({"label": names.get("name", kind.label), "count": counts.get("publish", 0),
                               "url": r.url("edit.php", post_type=name if name != "post" else None)})
        for name in ("cal_events", "post", "page"):
            kind = types.get(name)
            if kind is None or name not in TYPES or not r.can(kind.caps["edit_posts"]):
                continue
            if r.can(kind.caps["edit_others_posts"]):
                answer = r.api.get(route_of(kind), status="pending", per_page=5, context="edit", _fields="id,title,author,date")
                pending += [_entry(r, kind, row) for row in (answer.data if answer.ok else [])]
            answer = r.api.get(route_of(kind), status="draft", author=r.user.id, per_page=5, context="edit",
                               _fields="id,title,date,modified", orderby="modified")
            drafts += [_entry(r, kind, row) for row in (answer.data if answer.ok else [])]
        upcoming = []
        events = r.api.get("/cal/events/v1/events", per_page=5)
        if events.ok and isinstance(events.data, dict):
            upcoming = [{"title": e.get("title", ""), "start": e.get("start_date", ""), "id": e.get("id"),
                         "url": r.url("post.php", post=e.get("id"), action="edit")} for e in events.data.get("events", [])]
        comments = []
        if r.can("moderate_comments") or r.can("edit_posts"):
            moderator = r.can("moderate_comments")  # held comments, and the edit context, are theirs
            answer = r.api.get("/cms/v2/comments", per_page=5, context="edit" if moderator else "view",
                               status="all" if moderator else "approve", _fields="id,author_name,post,date,status,content")
            comments = [{"author": c.get("author_name") or "Anonymous", "post": c.get("post"), "status": c.get("status"),
                         "excerpt": trim_words(text_of(c.get("content")), 12, "…"),
                         "url": r.url("post.php", post=c.get("post"), action="edit")}
                        for c in (answer.data if answer.ok and isinstance(answer.data, list) else [])]
        event_type = types.get("cal_events")
        can_draft = event_type is not None and r.can(event_type.caps["create_posts"])
        if r.param("drafted"):
            r.notice("Event draft saved.", "success", r.url("post.php", post=r.param("drafted"), action="edit"), "Edit event")
        r.render("admin/dashboard.html", title="Dashboard", glance=glance, pending=pending, drafts=drafts[:5],
                 upcoming=upcoming, comments=comments, can_draft=can_draft, quick_nonce=r.nonce(QUICK_DRAFT), errors={},
                 api_settings=r.api_settings)

    def post(self, r: AdminRequest) -> None:
        """The quick event draft: a title and when, saved as a draft through the calendar API."""
        r.verify(QUICK_DRAFT)
        body = {"title": r.field("title"), "start_date": r.field("start_date").replace("T", " "),
                "end_date": (r.field("end_date") or r.field("start_date")).replace("T", " "), "status": "draft"}
        answer = r.api.post("/cal/events/v1/events", body)
        if answer.ok:
            r.redirect(r.url("index.php", drafted=answer.data.get("id")))
        r.notice(answer.message, "error")
        self.get(r)


def _entry(r: AdminRequest, kind: Any, row: dict[str, Any]) -> dict[str, Any]:
    return {"title": text_of(row.get("title")) or "(no title)", "type": labels(kind).get("singular_name", kind.singular),
            "url": r.url("post.php", post=row["id"], action="edit"), "date": (row.get("modified") or row.get("date") or "")[:10]}
