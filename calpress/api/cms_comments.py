"""``/cms/v2/comments`` and ``/cms/v2/comments/{id}`` (cms-api.md 7.4), after the reference's
comments controller: approved comments on readable items for everyone, moderation for users
with ``moderate_comments``, editing for those who may edit the comment's item, and anonymous
comments only when the site allows them (option ``rest_allow_anonymous_comments``, off by
default as in the reference, and never with ``comment_registration``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..auth import users as user_store
from ..content import comment_rules, permissions
from ..content import comments as comment_store
from ..content import items as item_service
from ..content.comments import Comment, CommentQuery
from ..content.items import TRASH_STATUS_KEY, Context, Item
from ..rest.controller import collection_params, context_param, fields_for_context
from ..rest.errors import RestError, forbidden
from ..rest.formats import parse_rest_date
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .base import Api
from .cms_users import AVATAR_SIZES, avatar_urls
from .scope import context_of, scope_of

NAMESPACE = "cms"  # the key of cms/v2 in the namespace table
_ALL = ["view", "edit", "embed"]
_VE = ["view", "edit"]


def _prop(description: str, type_: Any, context: list[str], **extra: Any) -> dict[str, Any]:
    return {"description": description, "type": type_, "context": context, **extra}


ITEM_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "comment",
    "type": "object",
    "properties": {
        "id": _prop("Unique identifier for the comment.", "integer", _ALL, readonly=True),
        "author": _prop("The ID of the user object, if author was a user.", "integer", _ALL),
        "author_email": _prop("Email address for the comment author.", "string", ["edit"], format="email"),
        "author_ip": _prop("IP address for the comment author.", "string", ["edit"], format="ip"),
        "author_name": _prop("Display name for the comment author.", "string", _ALL),
        "author_url": _prop("URL for the comment author.", "string", _ALL, format="uri"),
        "author_user_agent": _prop("User agent for the comment author.", "string", ["edit"]),
        "content": _prop("The content for the comment.", "object", _ALL, properties={
            "raw": _prop("Content for the comment, as it exists in the database.", "string", ["edit"]),
            "rendered": _prop("HTML content for the comment, transformed for display.", "string", _ALL, readonly=True),
        }),
        "date": _prop("The date the comment was published, in the site's timezone.", "string", _ALL, format="date-time"),
        "date_gmt": _prop("The date the comment was published, as GMT.", "string", _VE, format="date-time"),
        "link": _prop("URL to the comment.", "string", _ALL, format="uri", readonly=True),
        "parent": _prop("The ID for the parent of the comment.", "integer", _ALL, default=0),
        "post": _prop("The ID of the associated post object.", "integer", _VE, default=0),
        "status": _prop("State of the comment.", "string", _VE),
        "type": _prop("Type of the comment.", "string", _ALL, readonly=True),
        "author_avatar_urls": _prop("Avatar URLs for the comment author.", "object", _ALL, readonly=True, properties={
            str(size): _prop(f"Avatar URL with image size of {size} pixels.", "string", _ALL, format="uri")
            for size in AVATAR_SIZES
        }),
        "meta": _prop("Meta fields.", "object", _VE, properties={}),
    },
}


def option_on(value: Any) -> bool:
    """An option's truth as the reference reads "1"/"" options (and as `calpress option update`
    stores words)."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _invalid_id() -> RestError:
    raise RestError("rest_comment_invalid_id", "Invalid comment ID.", status=404)


class CommentsController:
    def __init__(self, api: Api) -> None:
        self.api = api
        self.site = api.site
        # Comments are served on items of the types served in REST (not on attachments until the
        # media routes come).
        self.types = {content_type.name: content_type for content_type in api.site.registry.rest_types()}

    # -- shared ---------------------------------------------------------------------------------

    def ctx(self, request: RestRequest) -> Context:
        return context_of(request)

    @staticmethod
    def can_moderate(request: RestRequest) -> bool:
        return context_of(request).can("moderate_comments")

    def post_readable(self, request: RestRequest, post: Item | None, *, password_applies: bool = True) -> bool:
        """The reference's check_read_post_permission: a protected item needs its password
        unless the user may edit it (the ``password`` parameter counts only when one item or one
        comment is asked for: ``password_applies``); otherwise the item must be readable."""
        if post is None or post.type not in self.types:
            return False
        ctx = context_of(request)
        if post.password and not ctx.can("edit_post", post):
            return password_applies and permissions.password_matches(post, request.get_param("password"))
        return permissions.can_read(ctx, post, scope_of(request).item)

    def can_edit(self, request: RestRequest, comment: Comment, post: Item | None) -> bool:
        ctx = context_of(request)
        if ctx.can("moderate_comments"):
            return True
        return post is not None and ctx.can("edit_post", post)

    def can_read(self, request: RestRequest, comment: Comment, post: Item | None) -> bool:
        if post is not None and not self.post_readable(request, post):
            return False
        if comment.status == "approved":
            return True
        user = request.user
        if not user:
            return False
        return self.can_edit(request, comment, post) or (comment.author and comment.author == request.user_id)

    def _load(self, request: RestRequest) -> tuple[Comment | None, Item | None]:
        with self.site.read() as conn:
            comment = comment_store.get_comment(conn, int(request.url_params["id"]))
            post = item_service.get_item(conn, comment.post_id) if comment is not None else None
        return comment, post

    # -- representation -------------------------------------------------------------------------

    def prepare(self, request: RestRequest, comment: Comment, post: Item | None, children: set[int], context: str) -> dict[str, Any]:
        ctx = self.ctx(request)
        link = item_service.permalink(ctx, post) if post is not None else ctx.home + "/"
        data: dict[str, Any] = {
            "id": comment.id,
            "post": comment.post_id,
            "parent": comment.parent,
            "author": comment.author,
            "author_name": comment.author_name,
            "author_email": comment.author_email,
            "author_url": comment.author_url,
            "author_ip": comment.author_ip,
            "author_user_agent": comment.author_agent,
            "date": item_service.rest_date(comment.date_local),
            "date_gmt": item_service.rest_date(comment.date_utc),
            "content": {"rendered": comment_store.render(comment.content), "raw": comment.content},
            "link": f"{link}#comment-{comment.id}",
            "status": comment.status,
            "type": comment.type,
            "author_avatar_urls": avatar_urls(comment.author_email),
            "meta": [],
        }
        shown = fields_for_context(ITEM_SCHEMA, context)
        data = {key: value for key, value in data.items() if key in shown}
        if "content" in data and context != "edit":
            data["content"] = {"rendered": data["content"]["rendered"]}
        url = request.url_for
        links: dict[str, Any] = {
            "self": [{"href": url("cms.comments.item", id=comment.id)}],
            "collection": [{"href": url("cms.comments")}],
        }
        if comment.author:
            links["author"] = [{"embeddable": True, "href": url("cms.users.item", id=comment.author)}]
        if post is not None and post.type in self.types:
            post_type = self.types[post.type]
            links["up"] = [{"embeddable": True, "post_type": post.type,
                            "href": url(f"{post_type.rest_namespace}.{post_type.rest_base}.item", id=post.id)}]
        if comment.parent:
            links["in-reply-to"] = [{"embeddable": True, "href": url("cms.comments.item", id=comment.parent)}]
        if comment.id in children:
            links["children"] = [{"href": url("cms.comments", [("parent", str(comment.id))])}]
        data["_links"] = links
        return data

    # -- collection -----------------------------------------------------------------------------

    def collection_args(self) -> dict[str, dict[str, Any]]:
        args = collection_params(ITEM_SCHEMA)
        ids = {"type": "array", "items": {"type": "integer"}, "default": []}
        args.update({
            "after": {"description": "Limit response to comments published after a given ISO8601 compliant date.",
                      "type": "string", "format": "date-time"},
            "author": {"description": "Limit result set to comments assigned to specific user IDs.", "type": "array",
                       "items": {"type": "integer"}},
            "author_exclude": {"description": "Ensure result set excludes comments assigned to specific user IDs.", "type": "array",
                               "items": {"type": "integer"}},
            "author_email": {"default": None, "description": "Limit result set to that from a specific author email.",
                             "format": "email", "type": "string"},
            "before": {"description": "Limit response to comments published before a given ISO8601 compliant date.",
                       "type": "string", "format": "date-time"},
            "exclude": {"description": "Ensure result set excludes specific IDs.", **ids},
            "include": {"description": "Limit result set to specific IDs.", **ids},
            "offset": {"description": "Offset the result set by a specific number of items.", "type": "integer"},
            "order": {"description": "Order sort attribute ascending or descending.", "type": "string", "default": "desc",
                      "enum": ["asc", "desc"]},
            "orderby": {"description": "Sort collection by comment attribute.", "type": "string", "default": "date_gmt",
                        "enum": ["date", "date_gmt", "id", "include", "post", "parent", "type"]},
            "parent": {"default": [], "description": "Limit result set to comments of specific parent IDs.", **{
                k: v for k, v in ids.items() if k != "default"}},
            "parent_exclude": {"description": "Ensure result set excludes specific parent IDs.", **ids},
            "post": {"default": [], "description": "Limit result set to comments assigned to specific post IDs.", **{
                k: v for k, v in ids.items() if k != "default"}},
            "status": {"default": "approve", "description": "Limit result set to comments assigned a specific status. "
                       "Requires authorization.", "type": "string"},
            "type": {"default": "comment", "description": "Limit result set to comments assigned a specific type. "
                     "Requires authorization.", "type": "string"},
            "password": {"description": "The password for the post if it is password protected.", "type": "string"},
        })
        return args

    def list_permission(self, request: RestRequest) -> Any:
        post_ids = request.get_param("post") or []
        if post_ids:
            with self.site.read() as conn:
                found = item_service.get_items(conn, [int(i) for i in post_ids])
            for post_id in post_ids:
                post = found.get(int(post_id))
                if post is not None and not self.post_readable(request, post, password_applies=len(post_ids) == 1):
                    return forbidden("rest_cannot_read_post", "Sorry, you are not allowed to read the post for this comment.",
                                     request.user_id)
                if post is None and not self.can_moderate(request):
                    return forbidden("rest_cannot_read", "Sorry, you are not allowed to read this comment.", request.user_id)
        if request.get_param("context") == "edit" and not self.can_moderate(request):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit comments.", request.user_id)
        # As the reference: these filters need edit_posts (not moderation), and the refusal names
        # every one given.
        if not context_of(request).can("edit_posts"):
            defaults = {"status": "approve", "type": "comment"}
            refused = [name for name in ("author", "author_exclude", "author_email", "type", "status")
                       if request.get_param(name) not in (None, "", [], defaults.get(name))]
            if refused:
                return forbidden("rest_forbidden_param", f"Query parameter not permitted: {', '.join(refused)}", request.user_id)
        return True

    def list_items(self, request: RestRequest) -> Any:
        status = str(request.get_param("status") or "approve")
        # As WP_Comment_Query: "all" is the approved and the held ones (not spam, not trash), "any"
        # every status.
        statuses = (None if status == "any" else ["approved", "hold"] if status == "all"
                    else [comment_store.QUERY_STATUSES.get(status, status)])
        comment_type = str(request.get_param("type") or "comment")
        query = CommentQuery(
            statuses=statuses,
            types=[comment_type],
            post_ids=[int(i) for i in request.get_param("post")] or None,
            parents=[int(i) for i in request.get_param("parent")] or None,
            parent_exclude=[int(i) for i in request.get_param("parent_exclude") or []],
            authors=[int(i) for i in request.get_param("author")] if request.get_param("author") else None,
            author_exclude=[int(i) for i in request.get_param("author_exclude") or []],
            author_email=request.get_param("author_email"),
            include=[int(i) for i in request.get_param("include") or []],
            exclude=[int(i) for i in request.get_param("exclude") or []],
            search=request.get_param("search") or None,
            order=str(request.get_param("order") or "desc"),
            orderby=str(request.get_param("orderby") or "date_gmt"),
            page=int(request.get_param("page") or 1),
            per_page=int(request.get_param("per_page") or 10),
            offset=request.get_param("offset"),
        )
        for name in ("after", "before"):
            raw = request.get_param(name)
            if raw:
                parsed = parse_rest_date(raw)
                setattr(query, name, parsed.replace(tzinfo=None) if isinstance(parsed, dt.datetime) else None)
        # The items a request names were each found readable by list_permission (a protected one
        # with its password); without names only public items' comments are listed.
        query.public_posts_only = not self.can_moderate(request) and not query.post_ids
        context = str(request.get_param("context") or "view")
        with self.site.read() as conn:
            found, total = comment_store.query_comments(conn, query)
            post_items = item_service.get_items(conn, {c.post_id for c in found})
            children = comment_store.has_children(conn, [c.id for c in found])
        # As the reference's get_items, each comment the requester may not read is left out of
        # the page (the totals stay the query's), and a page past the last is an empty 200.
        data = [self.prepare(request, c, post_items.get(c.post_id), children, context) for c in found
                if self.can_read(request, c, post_items.get(c.post_id))]
        return RestResponse(data, headers=pagination_headers(request, total, query.per_page, query.page))

    # -- single ---------------------------------------------------------------------------------

    def get_permission(self, request: RestRequest) -> Any:
        comment, post = self._load(request)
        if comment is None:
            raise _invalid_id()
        if request.get_param("context") == "edit" and not self.can_edit(request, comment, post):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit comments.", request.user_id)
        if post is not None and not self.post_readable(request, post):
            return forbidden("rest_cannot_read_post", "Sorry, you are not allowed to read the post for this comment.",
                             request.user_id)
        if not self.can_read(request, comment, post):
            return forbidden("rest_cannot_read", "Sorry, you are not allowed to read this comment.", request.user_id)
        return True

    def get_item(self, request: RestRequest) -> Any:
        comment, post = self._load(request)
        if comment is None:
            raise _invalid_id()
        with self.site.read() as conn:
            children = comment_store.has_children(conn, [comment.id])
        return self.prepare(request, comment, post, children, str(request.get_param("context") or "view"))

    # -- writing --------------------------------------------------------------------------------

    def write_args(self, creating: bool) -> dict[str, dict[str, Any]]:
        props = ITEM_SCHEMA["properties"]
        args: dict[str, dict[str, Any]] = {}
        for name in ("author", "author_email", "author_ip", "author_name", "author_url", "author_user_agent", "content",
                     "date", "date_gmt", "parent", "post", "status"):
            arg = {k: v for k, v in props[name].items() if k in ("description", "type", "format")}
            if name == "content":
                arg = {"description": props[name]["description"], "type": ["object", "string"]}
            if creating and "default" in props[name]:
                arg["default"] = props[name]["default"]
            args[name] = arg
        args["author_ip"]["format"] = "ip"
        return args

    def create_permission(self, request: RestRequest) -> Any:
        user = request.user
        options = scope_of(request).options
        if not user:
            if option_on(options.get("comment_registration")) or not option_on(options.get("rest_allow_anonymous_comments")):
                raise RestError("rest_comment_login_required", "Sorry, you must be logged in to comment.", status=401)
        if request.get_param("author") not in (None, 0, request.user_id) and not self.can_moderate(request):
            return forbidden("rest_comment_invalid_author",
                             "Sorry, you are not allowed to edit 'author' for comments.", request.user_id)
        if request.get_param("author_ip") is not None and not self.can_moderate(request):
            if request.get_param("author_ip") != request.remote_addr:
                return forbidden("rest_comment_invalid_author_ip",
                                 "Sorry, you are not allowed to edit 'author_ip' for comments.", request.user_id)
        if request.get_param("status") is not None and not self.can_moderate(request):
            return forbidden("rest_comment_invalid_status", "Sorry, you are not allowed to edit 'status' for comments.",
                             request.user_id)
        post_id = int(request.get_param("post") or 0)
        if not post_id:
            if self.can_moderate(request):
                # The reference stores a moderator's comment with post 0; here every comment
                # belongs to a stored item (a foreign key), so it is refused, clearly.
                raise RestError("rest_comment_invalid_post_id", "A comment needs a post: give the id of the item it is about.",
                                status=400, params={"post": "A comment needs a post."})
            raise RestError("rest_comment_invalid_post_id",
                             "Sorry, you are not allowed to create this comment without a post.", status=403)
        with self.site.read() as conn:
            post = item_service.get_item(conn, post_id)
        if post is None or post.type not in self.types:
            raise RestError("rest_comment_invalid_post_id", "Sorry, you are not allowed to create this comment without a post.",
                             status=403)
        if post.status == "draft":
            raise RestError("rest_comment_draft_post", "Sorry, you are not allowed to create a comment on this post.", status=403)
        if post.status == "trash":
            raise RestError("rest_comment_trash_post", "Sorry, you are not allowed to create a comment on this post.", status=403)
        if not self.post_readable(request, post):
            return forbidden("rest_cannot_read_post", "Sorry, you are not allowed to read the post for this comment.",
                             request.user_id)
        if post.comment_status != "open":
            raise RestError("rest_comment_closed", "Sorry, comments are closed for this item.", status=403)
        return True

    @staticmethod
    def _content(request: RestRequest) -> str | None:
        value = request.get_param("content")
        if isinstance(value, dict):
            value = value.get("raw")
        return None if value is None else str(value)

    def create_item(self, request: RestRequest) -> Any:
        if request.get_param("type") not in (None, "comment"):
            raise RestError("rest_invalid_comment_type", "Cannot create a comment with that type.", status=400)
        content = self._content(request)
        if not content or not content.strip():
            raise RestError("rest_comment_content_invalid", "Invalid comment content.", status=400)
        ctx = self.ctx(request)
        post_id = int(request.get_param("post") or 0)
        parent = int(request.get_param("parent") or 0)
        author = _author_id(request)
        with self.site.write() as conn:
            author_user = user_store.get_user(conn, author) if author else None
            if author and author_user is None:
                raise RestError("rest_comment_author_invalid", "Invalid comment author ID.", status=400)
            name = request.get_param("author_name") or (author_user.display_name if author_user else "")
            email = request.get_param("author_email") or (author_user.email if author_user else "")
            url = request.get_param("author_url") or (author_user.url if author_user else "")
            if not author and (not name or not email):
                raise RestError("rest_comment_author_data_required",
                                 "Creating a comment requires valid author name and email values.", status=400)
            if parent:
                parent_comment = comment_store.get_comment(conn, parent)
                if parent_comment is None or (post_id and parent_comment.post_id != post_id):
                    raise RestError("rest_comment_invalid_parent", "Invalid comment parent ID.", status=400)
            if not ctx.can("unfiltered_html"):
                content = comment_store.filter_content(content)
            post = item_service.get_item(conn, post_id) if post_id else None
            status = request.get_param("status")
            if status is not None:
                status = comment_store.QUERY_STATUSES.get(str(status), str(status))
                if status not in comment_store.STATUSES:
                    raise RestError("rest_comment_failed_create", "Creating comment failed.", status=500)
            new = comment_rules.NewComment(
                post_id=post_id, parent=parent, author=author, name=name, email=email, url=url, content=content,
                ip=request.get_param("author_ip") or request.remote_addr or "",
                agent=request.get_param("author_user_agent") or request.get_header("user_agent") or "",
            )
            try:
                comment = comment_rules.add_comment(conn, ctx, new, post, author_user, status=status)
            except comment_rules.CommentRefused as refused:
                raise _refusal(refused) from None
            children = comment_store.has_children(conn, [comment.id])
        data = self.prepare(request, comment, post, children, "edit" if self.can_edit(request, comment, post) else "view")
        response = RestResponse(data, status=201)
        response.headers["Location"] = request.url_for("cms.comments.item", id=comment.id)
        return response

    def edit_permission(self, request: RestRequest) -> Any:
        return self._change_permission(request, "rest_cannot_edit", "Sorry, you are not allowed to edit this comment.")

    def delete_permission(self, request: RestRequest) -> Any:
        return self._change_permission(request, "rest_cannot_delete", "Sorry, you are not allowed to delete this comment.")

    def _change_permission(self, request: RestRequest, code: str, message: str) -> Any:
        """Whether the requester may change the comment named (its post's editors and moderators);
        a refusal in the reference's words for the change asked (``code``, ``message``)."""
        comment, post = self._load(request)
        if comment is None:
            raise _invalid_id()
        if not self.can_edit(request, comment, post):
            return forbidden(code, message, request.user_id)
        return True

    def update_item(self, request: RestRequest) -> Any:
        comment, post = self._load(request)
        if comment is None:
            raise _invalid_id()
        changes: dict[str, Any] = {}
        content = self._content(request)
        if content is not None:
            if not content.strip():
                raise RestError("rest_comment_content_invalid", "Invalid comment content.", status=400)
            changes["content"] = content if context_of(request).can("unfiltered_html") else comment_store.filter_content(content)
        for name, column in (("author_name", "author_name"), ("author_email", "author_email"), ("author_url", "author_url"),
                             ("author_ip", "author_ip"), ("author_user_agent", "author_agent")):
            if request.get_param(name) is not None:
                changes[column] = str(request.get_param(name))
        if request.get_param("status") is not None:
            changes.update(_status_change(comment, str(request.get_param("status"))))
        # A new date, as the reference's prepare_item_for_database: ``date`` in the site's zone,
        # ``date_gmt`` in UTC (the latter wins when both are given).
        for name, is_utc in (("date", False), ("date_gmt", True)):
            parsed = parse_rest_date(request.get_param(name)) if isinstance(request.get_param(name), str) else None
            if parsed is not None:
                changes["date_local"], changes["date_utc"] = item_service.input_date(
                    parsed, is_utc=is_utc, zone=context_of(request).zone)
        with self.site.write() as conn:
            if request.get_param("post") is not None:
                target = item_service.get_item(conn, int(request.get_param("post")))
                if target is None:
                    raise RestError("rest_comment_invalid_post_id", "Invalid post ID.", status=403)
                changes["post_id"] = target.id
            if request.get_param("author") is not None:
                author = int(request.get_param("author"))
                if author and user_store.get_user(conn, author) is None:
                    raise RestError("rest_comment_author_invalid", "Invalid comment author ID.", status=400)
                changes["author"] = author or None
            if request.get_param("parent") is not None:
                parent = int(request.get_param("parent"))
                if parent and (parent == comment.id or comment_store.get_comment(conn, parent) is None):
                    raise RestError("rest_comment_invalid_parent", "Invalid comment parent ID.", status=400)
                changes["parent"] = parent
            updated = comment_store.update_comment(conn, comment, changes)
            post = item_service.get_item(conn, updated.post_id)
            children = comment_store.has_children(conn, [updated.id])
        return self.prepare(request, updated, post, children, "edit")

    def delete_item(self, request: RestRequest) -> Any:
        comment, post = self._load(request)
        if comment is None:
            raise _invalid_id()
        force = request.get_param("force") in (True, "true", "1", 1)
        with self.site.write() as conn:
            children = comment_store.has_children(conn, [comment.id])
            previous = self.prepare(request, comment, post, children, "edit")
            if force:
                comment_store.delete_comment(conn, comment)
                return {"deleted": True, "previous": previous}
            if comment.status == "trash":
                raise RestError("rest_already_trashed", "The comment has already been trashed.", status=410)
            trashed = comment_store.update_comment(conn, comment, {"status": "trash", "meta": {
                **comment.meta, TRASH_STATUS_KEY: comment.status}})
        return self.prepare(request, trashed, post, children, "edit")

    # -- routes ---------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        found: list[Route] = []
        found.append(Route(NAMESPACE, "/comments", [
            Endpoint(("GET",), self.list_items, self.list_permission, args=self.collection_args(), cache=True),
            Endpoint(("POST",), self.create_item, self.create_permission, args=self.write_args(True)),
        ], schema=lambda: ITEM_SCHEMA, name="cms.comments"))
        ident = {"id": {"description": "Unique identifier for the comment.", "type": "integer"}}
        found.append(Route(NAMESPACE, "/comments/(?P<id>[\\d]+)", [
            Endpoint(("GET",), self.get_item, self.get_permission, args={
                **ident, "context": context_param(ITEM_SCHEMA),
                "password": {"description": "The password for the parent post of the comment (if the post is password "
                             "protected).", "type": "string"}}, cache=True),
            Endpoint(("POST", "PUT", "PATCH"), self.update_item, self.edit_permission, args={**ident, **self.write_args(False)}),
            Endpoint(("DELETE",), self.delete_item, self.delete_permission, args={
                **ident,
                "force": {"type": "boolean", "default": False, "description": "Whether to bypass Trash and force deletion."},
                "password": {"description": "The password for the parent post of the comment (if the post is password "
                             "protected).", "type": "string"}}),
        ], schema=lambda: ITEM_SCHEMA, name="cms.comments.item"))
        return found


def routes(api: Api) -> list[Route]:
    return CommentsController(api).routes()


def _author_id(request: RestRequest) -> int:
    """The user a new comment is by, as the reference's create_item: the ``author`` given, else
    the requester, unless the request names the author (a name, e-mail or URL): then it is a
    visitor's comment (0), even when a logged-in moderator sends it."""
    given = request.get_param("author")
    if given is not None:
        return int(given)
    if any(request.get_param(name) for name in ("author_name", "author_email", "author_url")):
        return 0
    return request.user_id or 0


def _refusal(refused: comment_rules.CommentRefused) -> RestError:
    """The REST answer of a refused comment, as the reference's create_item words it: 409 for a
    duplicate, 400 for a flood and for an overlong field."""
    if refused.code == "comment_duplicate":
        return RestError(refused.code, comment_rules.DUPLICATE_MESSAGE, status=409)
    if refused.code == "comment_flood":
        return RestError(refused.code, refused.message, status=400)
    if refused.code.endswith("_column_length"):
        return RestError(refused.code, "Comment field exceeds maximum length allowed.", status=400)
    return RestError(refused.code, refused.message, status=400)


def _status_change(comment: Any, given: str) -> dict[str, Any]:
    """The columns a ``status`` update changes, as the reference's handle_status_param: moving to
    spam or the trash keeps the status left in ``_wp_trash_meta_status`` (wp_spam_comment,
    wp_trash_comment); ``unspam`` and ``untrash`` give it back (held when none was kept) and
    forget it; the current status changes nothing."""
    if given in ("unspam", "untrash"):
        if comment.status != ("spam" if given == "unspam" else "trash"):
            return {}
        meta = dict(comment.meta)
        kept = str(meta.pop(TRASH_STATUS_KEY, "") or "")
        return {"status": kept if kept in comment_store.STATUSES else "hold", "meta": meta}
    status = comment_store.QUERY_STATUSES.get(given, given)
    if status not in comment_store.STATUSES:
        raise RestError("rest_comment_failed_edit", "Updating comment status failed.", status=500)
    if status == comment.status:
        return {}
    if status in ("spam", "trash"):
        return {"status": status, "meta": {**comment.meta, TRASH_STATUS_KEY: comment.status}}
    return {"status": status}
