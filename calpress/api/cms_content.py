"""The content routes of ``cms/v2``: ``/{base}`` and ``/{base}/{id}`` for every content type.

One controller class serves posts, pages, blocks, venues, organizers and events; each type gets
an instance built from its definition (content/types.py): the item schema follows the type's
features, the collection arguments its taxonomies, the permissions its capabilities
(cms-api.md 2.1-2.12, 2.15, 2.17). The rules of storage (dates, slugs, trash, stickiness) live in
content/items.py; this module turns requests into service calls and items into the reference's
JSON, field for field and in its order.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from ..auth import users as user_store
from ..content import items as item_service
from ..content import permissions, rendering
from ..content import terms as term_store
from ..content.items import Context, Item, ItemChanges, ItemQuery, Related, TaxFilter
from ..content.types import ContentType
from ..rest import schema as rest_schema
from ..rest.controller import context_param, fields_for_context, wants_field
from ..rest.errors import RestError, forbidden
from ..rest.formats import parse_rest_date
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.server import pagination_headers
from . import cms_revisions
from .base import Api
from .cms_content_schema import ContentSchema, parse_slug_list
from .cms_terms import term_route
from .cms_users import author_types
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
    """The routes, permission checks and handlers of one content type, with its schema (``schema``,
    built once per type in cms_content_schema.py) and representation."""

    def __init__(self, api: Api, content_type: ContentType) -> None:
        self.api = api
        self.site = api.site
        self.registry = api.site.registry
        self.type = content_type
        # The route names: "cms.posts" (the collection), "cms.posts.item", "cms.posts.revisions"...
        self.route_name = f"{content_type.rest_namespace}.{content_type.rest_base}"
        self.schema = ContentSchema(api, content_type)
        self.is_blocks = content_type.name == "wp_block"
        self._subfields: dict[tuple[str, str], frozenset[str]] = {}
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

    def update_permission(self, request: RestRequest) -> bool | RestError:
        try:
            item = self.item_of(request)
        except RestError as err:
            return err
        if not self.can_edit(request, item):
            return forbidden("rest_cannot_edit", "Sorry, you are not allowed to edit this post.", request.user_id)
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
        head = request.method == "HEAD"
        item_service.publish_due_items(self.site)
        with self.site.read() as conn:
            found = item_service.query_items(conn, query, count_only=head)
            rows = found.items
            if (
                not head
                and self.type.name == "post"
                and params.get("ignore_sticky") is False
                and not include
                and page <= 1
                and sticky_ids
                and not search
                and not tax_filters
            ):
                rows = item_service.stickies_first(conn, self.type, rows, sticky_ids, exclude)
            total = found.total
            max_pages = math.ceil(total / per_page) if per_page else 0
            if page > max_pages and total > 0:
                raise RestError(
                    "rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.", status=400
                )
            data: list[Any] = []
            if not head and rows:
                scope = scope_of(request)
                for item in rows:
                    scope.remember(item)
                edit = request.get_param("context") == "edit"
                shown = [item for item in rows if (self.can_edit(request, item) if edit else self.can_read(request, item))]
                related = self.related(conn, request, shown)
                data = [self.prepare(request, item, related) for item in shown]
        return RestResponse(data, headers=pagination_headers(request, total, per_page, page))

    def related(self, conn: Any, request: RestRequest, found: list[Item]) -> Related:
        """What the representation of these items needs beyond their rows, loaded per page."""
        if not found:
            return Related()
        context = request.get_param("context") or "view"
        shown = fields_for_context(self.schema.item_schema, context)
        want_links = wants_field(request, "_links") or wants_field(request, "_embedded")
        want_terms = any(wants_field(request, t.rest_base) for t in self.schema.taxonomies) or wants_field(request, "class_list")
        related = item_service.load_related(
            conn,
            self.registry,
            self.type,
            found,
            terms=want_terms,
            revisions=want_links and (self.type.core_like or self.type.supports_feature("revisions")),
            media=want_links or "class_list" in shown,
            uris=wants_field(request, "link") or "permalink_template" in shown,
        )
        if "_embed" in request.query and (authors := [item.author for item in found if item.author]):
            self._preload_authors(conn, request, found, authors)
        if "permalink_template" in shown or "generated_slug" in shown:
            related.generated = item_service.generated_slugs(conn, context_of(request), self.type, found)
        scope = scope_of(request)
        for media in related.media.values():
            scope.remember(media)
        return related

    def _preload_authors(self, conn: Any, request: RestRequest, found: list[Item], author_ids: list[int]) -> None:
        """Load the authors of a page in one query for ``_embed``: the embedded user requests
        share this request's loaded records, where the users controller looks for them (and for
        whether they have published content, which an author of a published item here has)."""
        scope = scope_of(request)
        missing = [i for i in dict.fromkeys(author_ids) if i not in scope.users]
        if not missing:
            return
        loaded = user_store.get_users(conn, missing)
        for author_id in missing:
            scope.users[author_id] = loaded.get(author_id)
        if self.type.name in author_types(self.registry):
            for item in found:
                if item.status == "publish" and item.author in loaded:
                    scope.published[item.author] = True

    def get_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        response = RestResponse({} if request.method == "HEAD" else None)
        ctx = context_of(request)
        with self.site.read() as conn:
            related = self.related(conn, request, [item]) if request.method != "HEAD" else Related()
            if request.method != "HEAD":
                response.data = self.prepare(request, item, related, password=request.get_param("password"))
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
        with self.site.write() as conn:
            item = item_service.create_item(conn, context_of(request), self.type, changes)
        scope_of(request).remember(item)
        request.set_param("context", "edit")
        with self.site.read() as conn:
            data = self.prepare(request, item, self.related(conn, request, [item]))
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
            data = self.prepare(request, updated, self.related(conn, request, [updated]))
        return RestResponse(data)

    def delete_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        force = bool(request.get_param("force"))
        ctx = context_of(request)
        scope = scope_of(request)
        request.set_param("context", "edit")
        if force:
            with self.site.read() as conn:
                previous = self.prepare(request, item, self.related(conn, request, [item]), links=False)
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
            data = self.prepare(request, trashed, self.related(conn, request, [trashed]))
        return RestResponse(data)

    # == representation ===========================================================================

    def _password_open(self, request: RestRequest, item: Item, context_name: str, password: Any) -> bool:
        """Whether the request may see a protected item's content (the reference's
        can_access_password_content): always when the item has no password."""
        return permissions.password_open(context_of(request), item, password, editing=context_name == "edit")

    def _excerpt_length(self, request: RestRequest) -> int:
        value = request.get_param("excerpt_length")
        try:
            return int(value) if value is not None else 55
        except (TypeError, ValueError):
            return 55

    def prepare(
        self, request: RestRequest, item: Item, related: Related, *, links: bool = True, password: Any = None
    ) -> dict[str, Any]:
        """The item as the request's context shows it, fields in the reference's order; only the
        fields that context and ``_fields`` ask for are computed. ``password`` is the one a
        single-item read was given (collections never take one)."""
        context_name = str(request.get_param("context") or "view")
        shown = fields_for_context(self.schema.item_schema, context_name)
        ctx = context_of(request)

        def want(name: str) -> bool:
            return name in shown and wants_field(request, name)

        data: dict[str, Any] = {}
        if want("id"):
            data["id"] = item.id
        if want("date"):
            data["date"] = item_service.rest_date(item.date_local)
        if want("date_gmt"):
            data["date_gmt"] = item_service.rest_date(item_service.date_gmt(item, ctx.zone))
        if want("guid"):
            guid = {"rendered": item.guid.replace("&", "&#038;")}
            if "raw" in self._visible("guid", context_name):
                guid["raw"] = item.guid
            data["guid"] = guid
        if want("modified"):
            data["modified"] = item_service.rest_date(item.modified_local)
        if want("modified_gmt"):
            data["modified_gmt"] = item_service.rest_date(item.modified_utc)
        if want("password"):
            data["password"] = item.password
        if want("slug"):
            data["slug"] = item.slug
        if want("status"):
            data["status"] = item.status
        if want("type"):
            data["type"] = item.type
        uri = related.uris.get(item.id)
        if want("link"):
            data["link"] = item_service.permalink(ctx, item, uri=uri)
        render = rendering.RenderContext(post_id=item.id, post_type=item.type)
        if want("title"):
            sub = self._visible("title", context_name)
            title: dict[str, Any] = {}
            if "raw" in sub:
                title["raw"] = item.title
            if "rendered" in sub and wants_field(request, "title.rendered"):
                title["rendered"] = rendering.render_title(item.title)
            data["title"] = title
        password_open = self._password_open(request, item, context_name, password)
        if want("content"):
            sub = self._visible("content", context_name)
            content: dict[str, Any] = {}
            if "raw" in sub:
                content["raw"] = item.content
            if "rendered" in sub and wants_field(request, "content.rendered"):
                content["rendered"] = rendering.render_content(item.content, protected=not password_open, ctx=render)
            if "protected" in sub:
                content["protected"] = bool(item.password)
            if "block_version" in sub:
                content["block_version"] = rendering.block_version(item.content)
            data["content"] = content
        if want("excerpt"):
            sub = self._visible("excerpt", context_name)
            excerpt: dict[str, Any] = {}
            if "raw" in sub:
                excerpt["raw"] = item.excerpt
            if "rendered" in sub and wants_field(request, "excerpt.rendered"):
                excerpt["rendered"] = rendering.render_excerpt(
                    item.excerpt, item.content, length=self._excerpt_length(request), protected=not password_open, ctx=render
                )
            if "protected" in sub:
                excerpt["protected"] = bool(item.password)
            data["excerpt"] = excerpt
        if want("author"):
            data["author"] = item.author
        if want("featured_media"):
            data["featured_media"] = item.featured_media
        if want("parent"):
            data["parent"] = item.parent
        if want("menu_order"):
            data["menu_order"] = item.menu_order
        if want("comment_status"):
            data["comment_status"] = item.comment_status
        if want("ping_status"):
            data["ping_status"] = item.ping_status
        if want("sticky"):
            data["sticky"] = item.id in ctx.sticky_ids
        if want("template"):
            data["template"] = item.template
        if want("format"):
            data["format"] = item.format
        if want("meta"):
            data["meta"] = self.meta_values(item)
        item_terms = related.terms.get(item.id, {})
        for taxonomy in self.schema.taxonomies:
            if want(taxonomy.rest_base):
                data[taxonomy.rest_base] = [term.id for term in item_terms.get(taxonomy.name, [])]
        if want("permalink_template") or want("generated_slug"):
            template, generated = item_service.sample_permalink(
                ctx, item, uri=uri, generated=related.generated.get(item.id, item.slug)
            )
            if want("permalink_template"):
                data["permalink_template"] = template
            if want("generated_slug"):
                data["generated_slug"] = generated
        if want("class_list"):
            data["class_list"] = self._class_list(request, item, related, context_name)
        if self.is_blocks:
            # The blocks controller lifts the sync status out of meta, in every context.
            meta = data.get("meta")
            data["wp_pattern_sync_status"] = meta.pop("wp_pattern_sync_status", "") if isinstance(meta, dict) else ""
        if links and (wants_field(request, "_links") or wants_field(request, "_embedded")):
            data["_links"] = self.links(request, item, related, context_name)
        return data

    def _visible(self, name: str, context_name: str) -> frozenset[str]:
        """The sub-fields of an object field shown in a context (``title.raw`` only in edit...)."""
        key = (name, context_name)
        found = self._subfields.get(key)
        if found is None:
            props = self.schema.properties[name].get("properties", {})
            found = self._subfields[key] = frozenset(
                sub for sub, prop in props.items() if context_name in prop.get("context", (context_name,))
            )
        return found

    def meta_values(self, item: Item) -> dict[str, Any]:
        """Every registered key: its stored value coerced to its schema, else its default."""
        values = {name: field_.default for name, field_ in self.schema.meta_fields.items()}
        stored = item.meta
        for name in stored.keys() & values.keys():
            field_ = self.schema.meta_fields[name]
            try:
                values[name] = rest_schema.sanitize_value(stored[name], field_.schema, name)
            except RestError:
                pass
        return values

    def _class_list(self, request: RestRequest, item: Item, related: Related, context_name: str) -> list[str]:
        """The reference's get_post_class for the item (no theme: no sticky class)."""
        classes = [f"post-{item.id}", item.type, f"type-{item.type}", f"status-{item.status}"]
        if self.type.supports_feature("post-formats"):
            classes.append(f"format-{item.format}")
        required = bool(item.password) and not (context_name == "edit" and self.can_edit(request, item))
        if required:
            classes.append("post-password-required")
        elif item.password:
            classes.append("post-password-protected")
        if item.featured_media and item.featured_media in related.media and not required:
            classes.append("has-post-thumbnail")
        classes.append("hentry")
        if self.type.supports_feature("post-formats") and item.format != "standard":
            classes.append(f"post_format-post-format-{item.format}")
        item_terms = related.terms.get(item.id, {})
        for taxonomy in self.registry.taxonomies_for_type(item.type):
            if not taxonomy.public:
                continue
            for term in item_terms.get(taxonomy.name, []):
                term_class = _html_class(term.slug) or str(term.id)
                if term_class.isdigit() or not term_class.strip("-"):
                    term_class = str(term.id)
                if taxonomy.name == "post_tag":
                    classes.append(f"tag-{term_class}")
                else:
                    classes.append(_html_class(f"{taxonomy.name}-{term_class}") or f"{taxonomy.name}-{term.id}")
        return classes

    def links(self, request: RestRequest, item: Item, related: Related, context_name: str) -> dict[str, list[dict[str, Any]]]:
        """The item's ``_links`` (cms-api.md 2.3), attributes before ``href`` as the reference
        writes them; action links in edit context."""
        url = request.url_for
        t = self.type
        name = self.route_name
        self_href = url(f"{name}.item", id=item.id)
        links: dict[str, list[dict[str, Any]]] = {
            "self": [{"href": self_href}],
            "collection": [{"href": url(name)}],
            "about": [{"href": url("cms.types.item", type=item.type)}],
        }
        if (t.core_like or t.supports_feature("author")) and item.author:
            links["author"] = [{"embeddable": True, "href": url("cms.users.item", id=item.author)}]
        if t.core_like or t.supports_feature("comments"):
            links["replies"] = [{"embeddable": True, "href": url("cms.comments", [("post", str(item.id))])}]
        if t.core_like or t.supports_feature("revisions"):
            count, latest = related.revisions.get(item.id, (0, 0))
            links["version-history"] = [{"count": count, "href": url(f"{name}.revisions", parent=item.id)}]
            if count > 0:
                links["predecessor-version"] = [{"id": latest, "href": url(f"{name}.revisions.item", parent=item.id, id=latest)}]
        if t.hierarchical and item.parent:
            links["up"] = [{"embeddable": True, "href": url(f"{name}.item", id=item.parent)}]
        media = related.media.get(item.featured_media) if item.featured_media else None
        if media is not None and (
            item_service.public_status(media, related.media) == "publish" or context_of(request).can("read_post", media)
        ):
            # Media routes come with their own controller (not served yet): the address is the reference's.
            links["wp:featuredmedia"] = [{"embeddable": True, "href": request.namespace_url("cms", f"/media/{media.id}")}]
        if item.type not in ("attachment", "nav_menu_item", "revision"):
            links["wp:attachment"] = [{"href": request.namespace_url("cms", "/media", [("parent", str(item.id))])}]
        if self.schema.taxonomies:
            links["wp:term"] = [
                {
                    "taxonomy": taxonomy.name,
                    "embeddable": True,
                    "href": url(term_route(taxonomy), [("post", str(item.id))]),
                }
                for taxonomy in self.schema.taxonomies
            ]
        if context_name == "edit":
            for rel in self._actions(request):
                links[f"wp:{rel}"] = [{"href": self_href}]
        return links

    def _actions(self, request: RestRequest) -> list[str]:
        """The action relations the user has on items of this type (get_available_actions)."""
        actions = scope_of(request).actions
        found = actions.get(self.type.name)
        if found is not None:
            return found
        ctx = context_of(request)
        caps = self.type.caps
        rels: list[str] = []
        if self.type.name != "attachment" and ctx.can(caps["publish_posts"]):
            rels.append("action-publish")
        if ctx.can("unfiltered_html"):
            rels.append("action-unfiltered-html")
        if self.type.name == "post" and ctx.can(caps["edit_others_posts"]) and ctx.can(caps["publish_posts"]):
            rels.append("action-sticky")
        if self.type.supports_feature("author") and ctx.can(caps["edit_others_posts"]):
            rels.append("action-assign-author")
        for taxonomy in self.schema.taxonomies:
            create_cap = taxonomy.caps.edit_terms if taxonomy.hierarchical else taxonomy.caps.assign_terms
            if ctx.can(create_cap):
                rels.append("action-create-" + taxonomy.rest_base)
            if ctx.can(taxonomy.caps.assign_terms):
                rels.append("action-assign-" + taxonomy.rest_base)
        actions[self.type.name] = rels
        return rels

    # == routes ===================================================================================

    def routes(self) -> list[Route]:
        """``/{base}`` and ``/{base}/{id}`` (batch-enabled, as in the reference)."""
        schema = lambda: self.schema.item_schema  # noqa: E731 - the registry takes a schema factory
        collection = Route(
            self.type.rest_namespace,
            f"/{self.type.rest_base}",
            [
                Endpoint(("GET",), self.list_items, self.list_permission, args=self.schema.collection_args(), cache=True),
                Endpoint(("POST",), self.create_item, self.create_permission, args=self.schema.item_args("POST")),
            ],
            name=self.route_name,
            schema=schema,
            allow_batch=True,
        )
        get_args: dict[str, dict[str, Any]] = {"context": context_param(self.schema.item_schema)}
        if "excerpt" in self.schema.properties:
            get_args["excerpt_length"] = {"description": "Override the default excerpt length.", "type": "integer"}
        if "password" in self.schema.properties:
            get_args["password"] = {"description": "The password for the post if it is password protected.", "type": "string"}
        item = Route(
            self.type.rest_namespace,
            rf"/{self.type.rest_base}/(?P<id>[\d]+)",
            [
                Endpoint(("GET",), self.get_item, self.get_permission, args=get_args, cache=True),
                Endpoint(("POST", "PUT", "PATCH"), self.update_item, self.update_permission, args=self.schema.item_args("PUT")),
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
            allow_batch=True,
        )
        return [collection, item]


_HTML_CLASS = re.compile(r"%[a-fA-F0-9][a-fA-F0-9]|[^A-Za-z0-9_-]")


def _html_class(text: str) -> str:
    """The reference's sanitize_html_class: percent octets and anything but letters, digits,
    ``_`` and ``-`` removed."""
    return _HTML_CLASS.sub("", text)


def routes(api: Api) -> list[Route]:
    """The content routes of every content type served in REST, in registration order (media has
    a controller of its own), each followed by its revision and autosave routes."""
    found: list[Route] = []
    for content_type in api.site.registry.rest_types():
        if content_type.name == "attachment":
            continue
        controller = ContentController(api, content_type)
        found.extend(controller.routes())
        found.extend(cms_revisions.routes_for(api, controller))
    return found
