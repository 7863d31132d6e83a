"""The content routes of ``cms/v2``: ``/{base}`` and ``/{base}/{id}`` for every content type.

One controller class serves posts, pages, blocks, venues, organizers and events; each type gets
an instance built from its definition (content/types.py): the item schema follows the type's
features, the collection arguments its taxonomies, the permissions its capabilities
(cms-api.md 2.1-2.12, 2.15, 2.17). The rules of storage (dates, slugs, trash, stickiness) live in
content/items/; the item schema and the arguments in cms_content_schema.py; the reference's JSON
of an item, field for field and in its order, in cms_content_represent.py. This module holds the
routes, the permission checks and the handlers that turn requests into service calls.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from ..content import items as item_service
from ..content import permissions
from ..content import terms as term_store
from ..content.items import Context, Item, ItemChanges, ItemQuery, Related, TaxFilter
from ..content.types import ContentType
from ..rest.controller import context_param
from ..rest.errors import RestError, forbidden
from ..rest.formats import parse_rest_date
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from . import cms_revisions
from .base import Api
from .cms_content_represent import ContentRepresentation
from .cms_content_schema import ContentSchema, parse_slug_list
from .scope import context_of, scope_of


def _php_empty(value: Any) -> bool:
    return value is None or value is False or value == 0 or value in ("", "0") or value == [] or value == {}


def _local_date(value: Any, context: Context) -> Any:
    """A date filter argument as the site's wall time (the reference converts a given zone to
    the site's before comparing with ``post_date``)."""
    parsed = parse_rest_date(value) if isinstance(value, str) else None
    if parsed is None:
        return None
    if parsed.tzinfo is not None:
        return item_service.to_local(parsed.astimezone(dt.UTC).replace(tzinfo=None), context.zone)
    return parsed.replace(microsecond=0)


class ContentController:
    """The routes, permission checks and handlers of one content type. Its ``schema``
    (cms_content_schema.py) and ``representation`` (cms_content_represent.py) are built once,
    with the controller."""

    # Whether /batch/v1 may run the item routes (the reference's posts controller allows it).
    allow_batch = True

    def __init__(self, api: Api, content_type: ContentType) -> None:
        self.api = api
        self.site = api.site
        self.registry = api.site.registry
        self.type = content_type
        # The route names: "cms.posts" (the collection), "cms.posts.item", "cms.posts.revisions"...
        self.route_name = f"{content_type.rest_namespace}.{content_type.rest_base}"
        self.schema = ContentSchema(api, content_type)
        self.representation = ContentRepresentation(self.schema, self.route_name)
        self.collection_arg_names = frozenset(self.schema.collection_args())

    # == request helpers ==========================================================================

    def item_of(self, request: RestRequest) -> Item:
        """The item the route's ``id`` names, or 404 ``rest_post_invalid_id`` (also when it is
        of another type)."""
        found = scope_of(request).item(request.url_params.get("id", request.get_param("id")))
        if found is None or found.type != self.type.name:
            raise RestError("rest_post_invalid_id", "Invalid post ID.", status=404)
        return found

    def can_read(self, request: RestRequest, item: Item) -> bool:
        return permissions.can_read(context_of(request), item, scope_of(request).item)

    def can_edit(self, request: RestRequest, item: Item) -> bool:
        return permissions.can_edit(context_of(request), item)

    # == permissions ==============================================================================

    def list_permission(self, request: RestRequest) -> bool | RestError:
        if request.get_param("context") == "edit" and not permissions.can_edit_type(context_of(request), self.type):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.", request.user_id)
        return True

    def get_permission(self, request: RestRequest) -> bool | RestError:
        try:
            item = self.item_of(request)
        except RestError as err:
            return err
        if request.get_param("context") == "edit" and not self.can_edit(request, item):
            return forbidden("rest_forbidden_context", "Sorry, you are not allowed to edit this post.", request.user_id)
        given = request.query.get("password")
        if given and isinstance(given, str):
            # Only the query string: a wrong password is an error, not an empty answer.
            if not permissions.password_matches(item, given):
                return RestError("rest_post_incorrect_password", "Incorrect post password.", status=403)
        return self.can_read(request, item)

    def _author_and_sticky(self, request: RestRequest, updating: bool) -> RestError | None:
        caps = self.type.caps
        ctx = context_of(request)
        author = request.get_param("author")
        if not _php_empty(author) and author != request.user_id and not ctx.can(caps["edit_others_posts"]):
            verb = "update" if updating else "create"
            return forbidden("rest_cannot_edit_others", f"Sorry, you are not allowed to {verb} posts as this user.", request.user_id)
        if not _php_empty(request.get_param("sticky")) and not ctx.can(caps["edit_others_posts"]) and not ctx.can(caps["publish_posts"]):
            return forbidden("rest_cannot_assign_sticky", "Sorry, you are not allowed to make posts sticky.", request.user_id)
        return None

    def _can_assign_terms(self, request: RestRequest) -> bool:
        wanted: dict[str, list[int]] = {}
        for taxonomy in self.schema.taxonomies:
            value = request.get_param(taxonomy.rest_base)
            if value is not None:
                wanted[taxonomy.name] = item_service.int_list(value)
        ids = [term_id for ids in wanted.values() for term_id in ids if term_id > 0]
        if not ids:
            return True
        with self.site.read() as conn:
            found = term_store.get_terms(conn, ids)
        ctx = context_of(request)
        for taxonomy, term_ids in wanted.items():
            for term_id in term_ids:
                term = found.get(term_id)
                if term is None or term.taxonomy != taxonomy:
                    continue  # unknown terms are skipped later
                if not permissions.can_assign_term(ctx, term):
                    return False
        return True

    def create_permission(self, request: RestRequest) -> bool | RestError:
        if not _php_empty(request.get_param("id")):
            return RestError("rest_post_exists", "Cannot create existing post.", status=400)
        error = self._author_and_sticky(request, updating=False)
        if error is not None:
            return error
        if not permissions.can_create(context_of(request), self.type):
            return forbidden("rest_cannot_create", "Sorry, you are not allowed to create posts as this user.", request.user_id)
        if not self._can_assign_terms(request):
            return forbidden("rest_cannot_assign_term", "Sorry, you are not allowed to assign the provided terms.", request.user_id)
        return True

    def editable_item(self, request: RestRequest) -> Item | RestError:
        """The route's item when the requester may edit it, else the reference's error."""
        try:
            item = self.item_of(request)
        except RestError as err:
            return err
        if not self.can_edit(request, item):
            return forbidden("rest_cannot_edit", "Sorry, you are not allowed to edit this post.", request.user_id)
        return item

    def update_permission(self, request: RestRequest) -> bool | RestError:
        item = self.editable_item(request)
        if isinstance(item, RestError):
            return item
        error = self._author_and_sticky(request, updating=True)
        if error is not None:
            return error
        if not self._can_assign_terms(request):
            return forbidden("rest_cannot_assign_term", "Sorry, you are not allowed to assign the provided terms.", request.user_id)
        return True

    def delete_permission(self, request: RestRequest) -> bool | RestError:
        try:
            item = self.item_of(request)
        except RestError as err:
            return err
        if not permissions.can_delete(context_of(request), item):
            return forbidden("rest_cannot_delete", "Sorry, you are not allowed to delete this post.", request.user_id)
        return True

    # == reading ==================================================================================

    def _statuses(self, request: RestRequest) -> list[str]:
        statuses = parse_slug_list(request.get_param("status") or "publish")
        if "any" in statuses:
            # Every status that is not internal (the reference's "any": not excluded from search).
            return [name for name, status in self.registry.statuses.items() if not status.internal]
        return statuses or ["publish"]

    def _tax_filters(self, request: RestRequest) -> list[TaxFilter]:
        filters: list[TaxFilter] = []
        for taxonomy in self.schema.taxonomies:
            for suffix, excluding in (("", False), ("_exclude", True)):
                value = request.get_param(taxonomy.rest_base + suffix)
                if _php_empty(value):
                    continue
                include_children = False
                operator = "NOT IN" if excluding else "IN"
                if isinstance(value, dict) and not all(str(k).isdigit() for k in value):
                    term_ids = item_service.int_list(value.get("terms") or [])
                    include_children = bool(value.get("include_children")) and taxonomy.hierarchical
                    if not excluding and value.get("operator") == "AND":
                        operator = "AND"
                else:
                    term_ids = item_service.int_list(value)
                if term_ids:
                    filters.append(TaxFilter(taxonomy.name, term_ids, include_children, operator))
        return filters

    def list_items(self, request: RestRequest) -> RestResponse:
        params = request.params
        if params.get("orderby") == "relevance" and _php_empty(params.get("search")):
            raise RestError("rest_no_search_term_defined", "You need to define a search term to order by relevance.", status=400)
        if params.get("orderby") == "include" and _php_empty(params.get("include")):
            raise RestError(
                "rest_orderby_include_missing_include", "You need to define an include parameter to order by include.", status=400
            )
        ctx = context_of(request)
        per_page = int(params.get("per_page") or 10)
        page = int(params.get("page") or 1)
        include = list(params.get("include") or [])
        exclude = list(params.get("exclude") or [])
        sticky_filter = params.get("sticky") if self.type.name == "post" else None
        sticky_ids = ctx.sticky_ids
        if sticky_filter is not None:
            if sticky_filter:
                include = [i for i in sticky_ids if i in include] if include else list(sticky_ids)
                include = include or [0]  # nothing sticky: nothing matches
            elif sticky_ids:
                exclude = [*exclude, *sticky_ids]
        tax_filters = self._tax_filters(request)
        search = str(params.get("search") or "")
        query = ItemQuery(
            type=self.type.name,
            statuses=self._statuses(request),
            page=page,
            per_page=per_page,
            offset=params.get("offset"),
            search=search,
            search_columns=list(params.get("search_columns") or []),
            exact_search=params.get("search_semantics") == "exact",
            hide_protected=not request.user_id,
            after=_local_date(params.get("after"), ctx),
            before=_local_date(params.get("before"), ctx),
            modified_after=_local_date(params.get("modified_after"), ctx),
            modified_before=_local_date(params.get("modified_before"), ctx),
            authors=list(params.get("author") or []) if "author" in self.collection_arg_names else [],
            authors_exclude=list(params.get("author_exclude") or []) if "author" in self.collection_arg_names else [],
            include=include,
            exclude=exclude,
            parents=list(params.get("parent") or []) if "parent" in self.collection_arg_names else [],
            parents_exclude=list(params.get("parent_exclude") or []) if "parent" in self.collection_arg_names else [],
            slugs=parse_slug_list(params["slug"]) if params.get("slug") else [],
            menu_order=params.get("menu_order") if "menu_order" in self.collection_arg_names else None,
            formats=list(params["format"]) if params.get("format") and "format" in self.collection_arg_names else None,
            tax_filters=tax_filters,
            tax_relation="OR" if params.get("tax_relation") == "OR" else "AND",
            order=str(params.get("order") or "desc"),
            orderby=str(params.get("orderby") or "date"),
        )
        query = self.query_for(request, query)
        head = request.method == "HEAD"
        item_service.publish_due_items(self.site)
        sticky_first = (
            self.type.name == "post" and params.get("ignore_sticky") is False and not include and page <= 1
            and bool(sticky_ids) and not search and not tax_filters
        )
        if not head and not sticky_first:
            # A plain listing whose total the worker keeps: its page in one statement, and a
            # pooled connection only for items the worker has not built for this requester yet.
            known = item_service.query_items_known(self.site, query, request.scope.generation)
            if known is not None:
                return self._page_answer(request, None, known.items, known.total, per_page, page)
        with self.site.read() as conn:
            # The content counter the answer cache read (None when it did not): totals are kept by it.
            found = item_service.query_items(conn, query, count_only=head, generation=request.scope.generation)
            rows = found.items
            if not head and sticky_first:
                rows = item_service.stickies_first(conn, self.type, rows, sticky_ids, exclude)
            return self._page_answer(request, conn, rows, found.total, per_page, page)

    def _page_answer(
        self, request: RestRequest, conn: Any, rows: list[Item], total: int, per_page: int, page: int
    ) -> RestResponse:
        """A listing's answer from its page and total: the page number checked, the items the
        requester may see shown (``conn``: the open read connection, or None to open one only
        if some item must be built), the paging headers."""
        max_pages = math.ceil(total / per_page) if per_page else 0
        if page > max_pages and total > 0:
            raise RestError(
                "rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.", status=400
            )
        data: list[Any] = []
        if rows:
            scope = scope_of(request)
            for item in rows:
                scope.remember(item)
            # Items that inherit their status (attachments) are read by their parent's rule:
            # the page's parents in one statement, not one per item.
            parents = {item.parent for item in rows if item.status == "inherit" and item.parent} - {item.id for item in rows}
            if parents:
                with self.site.read() as reader:  # the caller's connection when it holds one
                    for parent in item_service.get_items(reader, parents).values():
                        scope.remember(parent)
            data = self.representation.shown(conn, request, self._readable(request, rows))
        return RestResponse(data, headers=pagination_headers(request, total, per_page, page))

    def _readable(self, request: RestRequest, rows: list[Item]) -> list[Item]:
        """The listed items the requester may see: read, or edit in edit context."""
        if request.get_param("context") == "edit":
            return [item for item in rows if self.can_edit(request, item)]
        return [item for item in rows if self.can_read(request, item)]

    def query_for(self, request: RestRequest, query: ItemQuery) -> ItemQuery:
        """The listing's query, with what a type's controller adds (media: MIME filters)."""
        return query

    def get_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        if request.method != "HEAD" and request.get_param("password") is None:
            # Shown as a listing shows it (and kept with the listings' items, store/memo.py).
            data = self.representation.shown(None, request, [item])[0]
            if not self.type.viewable:
                return RestResponse(data)
            if isinstance(data.get("link"), str):
                response = RestResponse(data)
                response.link_header("alternate", data["link"], type="text/html")
                return response
        return self._get_built(request, item)

    def _get_built(self, request: RestRequest, item: Item) -> RestResponse:
        response = RestResponse({} if request.method == "HEAD" else None)
        ctx = context_of(request)
        with self.site.read() as conn:
            related = self.representation.related(conn, request, [item]) if request.method != "HEAD" else Related()
            if request.method != "HEAD":
                response.data = self.representation.prepare(request, item, related, password=request.get_param("password"))
            elif self.type.hierarchical and item.parent:
                related.uris = item_service.page_uris(conn, [item])
        if self.type.viewable:
            link = item_service.permalink(ctx, item, uri=related.uris.get(item.id))
            response.link_header("alternate", link, type="text/html")
        return response

    # == writing ==================================================================================

    def _sent_null(self, request: RestRequest, name: str) -> bool:
        body = request.json if isinstance(request.json, dict) else {}
        return name in body and body[name] is None

    def _handle_status(self, request: RestRequest, status: str) -> str:
        ctx = context_of(request)
        if status in ("draft", "pending"):
            return status
        if status == "private":
            if not permissions.can_publish(ctx, self.type):
                raise forbidden("rest_cannot_publish", "Sorry, you are not allowed to create private posts in this post type.", request.user_id)
            return status
        if status in ("publish", "future"):
            if not permissions.can_publish(ctx, self.type):
                raise forbidden("rest_cannot_publish", "Sorry, you are not allowed to publish posts in this post type.", request.user_id)
            return status
        return status if status in self.registry.statuses else "draft"

    def changes_from(self, request: RestRequest, item: Item | None) -> ItemChanges:
        """The reference's prepare_item_for_database: the request's fields as service changes,
        with its checks in its order. Reads only: nothing is written before every check passed."""
        params = request.params
        props = self.schema.properties
        ctx = context_of(request)
        changes = ItemChanges(unique_draft_slug=True)
        for name in ("title", "content", "excerpt"):
            if name not in props or params.get(name) is None:
                continue
            value = params[name]
            if isinstance(value, str):
                setattr(changes, name, value)
            elif isinstance(value, dict):
                raw = value.get("raw")
                if name == "title" and _php_empty(raw):
                    continue  # an empty raw title is ignored
                if raw is not None and not isinstance(raw, (dict, list)):
                    setattr(changes, name, str(raw) if not isinstance(raw, bool) else ("1" if raw else ""))
        status = params.get("status")
        if "status" in props and status is not None and (item is None or item.status != status):
            changes.status = self._handle_status(request, str(status))
        if "date" in props and not _php_empty(params.get("date")):
            parsed = parse_rest_date(params["date"])
            if parsed is not None:
                local, utc = item_service.input_date(parsed, is_utc=False, zone=ctx.zone)
                if item is None or item.date_local != local:
                    changes.date = (local, utc)
        elif "date_gmt" in props and not _php_empty(params.get("date_gmt")):
            parsed = parse_rest_date(params["date_gmt"])
            if parsed is not None:
                local, utc = item_service.input_date(parsed, is_utc=True, zone=ctx.zone)
                if item is None or item.date_utc != utc:
                    changes.date = (local, utc)
        if ("date_gmt" in props and self._sent_null(request, "date_gmt")) or ("date" in props and self._sent_null(request, "date")):
            changes.date, changes.reset_date = None, True
        if "slug" in props and params.get("slug") is not None:
            changes.slug = str(params["slug"])
        if "author" in props and not _php_empty(params.get("author")):
            author = int(params["author"])
            if author != request.user_id:
                with self.site.read() as conn:
                    item_service.check_author(conn, author)
            changes.author = author
        sticky_ids = ctx.sticky_ids
        if "password" in props and params.get("password") is not None:
            changes.password = str(params["password"])
            if changes.password != "":
                if "sticky" in props and not _php_empty(params.get("sticky")):
                    raise RestError("rest_invalid_field", "A post can not be sticky and have a password.", status=400)
                if item is not None and item.id in sticky_ids:
                    raise RestError("rest_invalid_field", "A sticky post can not be password protected.", status=400)
        if "sticky" in props and not _php_empty(params.get("sticky")) and item is not None and item.password:
            raise RestError("rest_invalid_field", "A password protected post can not be set to sticky.", status=400)
        if "parent" in props and params.get("parent") is not None:
            parent = int(params["parent"])
            if parent:
                with self.site.read() as conn:
                    item_service.check_parent(conn, parent)
            changes.parent = parent
        if "menu_order" in props and params.get("menu_order") is not None:
            changes.menu_order = int(params["menu_order"])
        for name in ("comment_status", "ping_status"):
            if name in props and not _php_empty(params.get(name)):
                setattr(changes, name, str(params[name]))
        if "featured_media" in props and params.get("featured_media") is not None:
            media_id = int(params["featured_media"])
            if media_id:
                with self.site.read() as conn:
                    item_service.check_featured_media(conn, media_id)
            changes.featured_media = media_id
        if "template" in props and params.get("template") is not None:
            changes.template = str(params["template"])
        if "format" in props and not _php_empty(params.get("format")):
            changes.format = str(params["format"])
        if "sticky" in props:
            if params.get("sticky") is not None:
                changes.sticky = bool(params["sticky"])
            elif item is None:
                changes.sticky = False
        if "meta" in props and isinstance(params.get("meta"), dict):
            changes.meta = dict(params["meta"])
        for taxonomy in self.schema.taxonomies:
            value = params.get(taxonomy.rest_base)
            if value is not None:
                changes.terms[taxonomy.name] = [i for i in item_service.int_list(value) if i > 0]
        return changes

    def create_item(self, request: RestRequest) -> RestResponse:
        if not _php_empty(request.get_param("id")):
            raise RestError("rest_post_exists", "Cannot create existing post.", status=400)
        changes = self.changes_from(request, None)
        request.set_param("context", "edit")
        ctx = context_of(request)
        prepared = item_service.prepare_create(ctx, self.type, changes)  # before the writers' turn
        with self.site.write() as conn:
            item = item_service.create_item(conn, ctx, self.type, changes, prepared=prepared)
            # What the answer needs, read once the write is done (Site.read_after_write); a new
            # item has no revisions, and a slug made from its title now is the one its title
            # would get (generated_slug).
            from_title = changes.slug is None and bool(item.title) and bool(item.slug)
            related = self.site.read_after_write(conn, lambda read: self.representation.related(
                read, request, [item], new=True, generated={item.id: item.slug} if from_title else None))
        scope_of(request).remember(item)
        data = self.representation.prepare(request, item, related())
        location = request.url_for(f"{self.route_name}.item", id=item.id)
        return RestResponse(data, 201, {"Location": location})

    def update_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        changes = self.changes_from(request, item)
        with self.site.write() as conn:
            updated = item_service.update_item(conn, context_of(request), item, changes)
        scope_of(request).remember(updated)
        request.set_param("context", "edit")
        with self.site.read() as conn:
            data = self.representation.prepare(request, updated, self.representation.related(conn, request, [updated]))
        return RestResponse(data)

    def delete_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        force = bool(request.get_param("force"))
        ctx = context_of(request)
        scope = scope_of(request)
        request.set_param("context", "edit")
        if force:
            with self.site.read() as conn:
                previous = self.representation.prepare(request, item, self.representation.related(conn, request, [item]), links=False)
            with self.site.write() as conn:
                item_service.delete_item(conn, ctx, item)
            scope.forget(item.id)
            return RestResponse({"deleted": True, "previous": previous})
        if not item_service.trash_enabled(ctx, self.type):
            raise RestError("rest_trash_not_supported", "The post does not support trashing. Set 'force=true' to delete.", status=501)
        if item.status == "trash":
            raise RestError("rest_already_trashed", "The post has already been deleted.", status=410)
        with self.site.write() as conn:
            trashed = item_service.trash_item(conn, ctx, item)
        scope.remember(trashed)
        with self.site.read() as conn:
            data = self.representation.prepare(request, trashed, self.representation.related(conn, request, [trashed]))
        return RestResponse(data)

    # == routes ===================================================================================

    # The arguments and schema of the routes, from the type's schema; a type whose schema is not
    # the generic one (menu entries, api/cms_menus.py) overrides these, not the routes.

    def route_schema(self) -> dict[str, Any]:
        return self.schema.item_schema

    def collection_args(self) -> dict[str, dict[str, Any]]:
        return self.schema.collection_args()

    def write_args(self, method: str) -> dict[str, dict[str, Any]]:
        return self.schema.item_args(method)

    def read_args(self) -> dict[str, dict[str, Any]]:
        get_args: dict[str, dict[str, Any]] = {"context": context_param(self.schema.item_schema)}
        if "excerpt" in self.schema.properties:
            get_args["excerpt_length"] = {"description": "Override the default excerpt length.", "type": "integer"}
        if "password" in self.schema.properties:
            get_args["password"] = {"description": "The password for the post if it is password protected.", "type": "string"}
        return get_args

    def routes(self) -> list[Route]:
        """``/{base}`` and ``/{base}/{id}`` (batch-enabled, as in the reference)."""
        schema = self.route_schema  # the registry takes a schema factory
        collection = Route(
            self.type.rest_namespace,
            f"/{self.type.rest_base}",
            [
                Endpoint(("GET",), self.list_items, self.list_permission, args=self.collection_args(), cache=True),
                Endpoint(("POST",), self.create_item, self.create_permission, args=self.write_args("POST")),
            ],
            name=self.route_name,
            schema=schema,
            allow_batch=self.allow_batch,
        )
        get_args = self.read_args()
        item = Route(
            self.type.rest_namespace,
            rf"/{self.type.rest_base}/(?P<id>[\d]+)",
            [
                Endpoint(("GET",), self.get_item, self.get_permission, args=get_args, cache=True),
                Endpoint(("POST", "PUT", "PATCH"), self.update_item, self.update_permission, args=self.write_args("PUT")),
                Endpoint(
                    ("DELETE",),
                    self.delete_item,
                    self.delete_permission,
                    args={"force": {"type": "boolean", "default": False, "description": "Whether to bypass Trash and force deletion."}},
                ),
            ],
            args={"id": {"description": "Unique identifier for the post.", "type": "integer"}},
            name=f"{self.route_name}.item",
            schema=schema,
            allow_batch=self.allow_batch,
        )
        return [collection, item]


def routes(api: Api) -> list[Route]:
    """The content routes of every content type served in REST, in registration order (media and
    menu entries have controllers of their own, ``api.content_controllers``), each followed by its
    revision and autosave routes."""
    found: list[Route] = []
    for content_type in api.site.registry.rest_types():
        controller_class = api.content_controllers.get(content_type.name, ContentController)
        controller = controller_class(api, content_type)
        found.extend(controller.routes())
        found.extend(cms_revisions.routes_for(api, controller))
    return found

