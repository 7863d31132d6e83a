"""The revision and autosave routes of ``cms/v2`` content types (cms-api.md 2.13, 2.14):

* ``/{base}/{parent}/revisions`` (GET) and ``/{base}/{parent}/revisions/{id}`` (GET, DELETE);
* ``/{base}/{id}/autosaves`` (GET, POST) and ``/{base}/{parent}/autosaves/{id}`` (GET).

``cms_content`` lists them right after the routes of their type (``routes_for``), for
the types whose definition asks for them (``revisions_route``, ``autosaves_route``), so the
route index lists them where the reference does. The rules of storage live in
content/revisions.py; the parent item's controller lends its permission checks, its write
arguments and its field rendering.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from ..auth import sessions
from ..content import items as item_service
from ..content import rendering
from ..content import revisions as revision_service
from ..content.items import Item
from ..rest.controller import collection_params, context_param
from ..rest.errors import RestError, forbidden
from ..rest.paging import pagination_headers
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from ..rest.schema import filter_by_context
from .base import Api
from .scope import context_of, scope_of

if TYPE_CHECKING:
    from .cms_content import ContentController

NAMESPACE = "cms"  # the key of cms/v2 in the namespace table

_EVERY_CONTEXT = ["view", "edit", "embed"]
_READ_CONTEXTS = ["view", "edit"]


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class RevisionShapes:
    """What the revisions and the autosaves of one content type share: finding the parent
    item, the item schema (the reference's ``{type}-revision``) and the representation."""

    def __init__(self, api: Api, parent: ContentController) -> None:
        self.api = api
        self.site = api.site
        self.parent = parent
        self.type = parent.type
        self.schema = self._item_schema()

    def _item_schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {
            "author": {"description": "The ID for the author of the revision.", "type": "integer", "context": list(_EVERY_CONTEXT)},
            "date": {
                "description": "The date the revision was published, in the site's timezone.",
                "type": "string",
                "format": "date-time",
                "context": list(_EVERY_CONTEXT),
            },
            "date_gmt": {
                "description": "The date the revision was published, as GMT.",
                "type": "string",
                "format": "date-time",
                "context": list(_READ_CONTEXTS),
            },
            "guid": {"description": "GUID for the revision, as it exists in the database.", "type": "string", "context": list(_READ_CONTEXTS)},
            "id": {"description": "Unique identifier for the revision.", "type": "integer", "context": list(_EVERY_CONTEXT)},
            "modified": {
                "description": "The date the revision was last modified, in the site's timezone.",
                "type": "string",
                "format": "date-time",
                "context": list(_READ_CONTEXTS),
            },
            "modified_gmt": {
                "description": "The date the revision was last modified, as GMT.",
                "type": "string",
                "format": "date-time",
                "context": list(_READ_CONTEXTS),
            },
            "parent": {"description": "The ID for the parent of the revision.", "type": "integer", "context": list(_EVERY_CONTEXT)},
            "slug": {
                "description": "An alphanumeric identifier for the revision unique to its type.",
                "type": "string",
                "context": list(_EVERY_CONTEXT),
            },
        }
        # The parent's own definitions of these fields replace or follow the base ones.
        for name in ("title", "content", "excerpt", "guid"):
            if name in self.parent.schema.properties:
                props[name] = self.parent.schema.properties[name]
        props["meta"] = self.parent.schema.properties.get("meta") or {
            "description": "Meta fields.",
            "type": "object",
            "context": list(_READ_CONTEXTS),
            "properties": {},
        }
        return {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "title": f"{self.type.name}-revision",
            "type": "object",
            "properties": props,
        }

    # == look-ups ================================================================================

    def _url_param(self, request: RestRequest, name: str) -> Any:
        return request.url_params.get(name, request.get_param(name))

    def parent_item(self, request: RestRequest, name: str = "parent") -> Item:
        """The item the route names (``parent``, or ``id`` on the autosaves collection), or
        404 ``rest_post_invalid_parent`` (also when it is of another type)."""
        found = scope_of(request).item(_int(self._url_param(request, name)))
        if found is None or found.type != self.type.name:
            raise RestError("rest_post_invalid_parent", "Invalid post parent ID.", status=404)
        return found

    def revision_item(self, request: RestRequest) -> Item:
        """The revision the route's ``id`` names, or 404 ``rest_post_invalid_id``."""
        found = scope_of(request).item(_int(self._url_param(request, "id")))
        if found is None or found.type != revision_service.REVISION_TYPE:
            raise RestError("rest_post_invalid_id", "Invalid revision ID.", status=404)
        return found

    def view_error(self, request: RestRequest, parent: Item, what: str) -> RestError | None:
        """``rest_cannot_read`` unless the user may edit the parent item."""
        if self.parent.can_edit(request, parent):
            return None
        return forbidden("rest_cannot_read", f"Sorry, you are not allowed to view {what} of this post.", request.user_id)

    def can_view_revisions(self, request: RestRequest) -> bool | RestError:
        """The permission of reading revisions (and one autosave): edit rights on the parent."""
        try:
            parent = self.parent_item(request)
        except RestError as err:
            return err
        return self.view_error(request, parent, "revisions") or True

    # == representation ==========================================================================

    def parent_href(self, request: RestRequest, parent_id: int) -> str | None:
        """The address of a revision's parent (the reference's rest_get_route_for_post)."""
        found = scope_of(request).item(parent_id)
        content_type = self.site.registry.types.get(found.type) if found is not None else None
        if content_type is None or not content_type.show_in_rest:
            return None
        return request.url_for(f"{content_type.rest_namespace}.{content_type.rest_base}.item", id=parent_id)

    def prepare(self, request: RestRequest, revision: Item, *, links: bool = True, preview: bool = False) -> dict[str, Any]:
        """A revision (or the item an autosave updated) as the request's context shows it, in
        the reference's field order. Content is rendered even when the parent has a password;
        the excerpt is the stored one, never one made from the content."""
        context_name = str(request.get_param("context") or "view")
        props = self.schema["properties"]
        render = rendering.RenderContext(post_id=revision.id, post_type=self.type.name)
        floating = revision.date_utc is None  # a draft's floating date reads as null, as in the reference
        data: dict[str, Any] = {
            "author": revision.author,
            "date": None if floating else item_service.rest_date(revision.date_local),
            "date_gmt": item_service.rest_date(revision.date_utc),
            "id": revision.id,
            "modified": item_service.rest_date(revision.modified_local),
            "modified_gmt": item_service.rest_date(revision.modified_utc),
            "parent": revision.parent,
            "slug": revision.slug,
            "guid": {"rendered": revision.guid.replace("&", "&#038;"), "raw": revision.guid},
        }
        if "title" in props:
            data["title"] = {"raw": revision.title, "rendered": rendering.render_title(revision.title)}
        if "content" in props:
            data["content"] = {"raw": revision.content, "rendered": rendering.render_content(revision.content, ctx=render)}
        if "excerpt" in props:
            data["excerpt"] = {"raw": revision.excerpt, "rendered": rendering.render_excerpt(revision.excerpt, "", ctx=render)}
        data["meta"] = self.parent.representation.meta_values(revision)
        if preview and context_name == "edit":
            data["preview_link"] = self.preview_link(request, revision)
        data = filter_by_context(data, self.schema, context_name)
        if links and revision.parent:
            href = self.parent_href(request, revision.parent)
            if href is not None:
                data["_links"] = {"parent": [{"href": href}]}
        return data

    def preview_link(self, request: RestRequest, saved: Item) -> str:
        """Where the saved state can be previewed (the reference's get_preview_post_link): an
        autosave through its parent's address with ``preview_id`` and a ``preview_nonce`` for
        the user, an updated draft through its own; empty for types without public pages."""
        if not self.type.viewable:
            return ""
        query: list[tuple[str, str]] = []
        target = saved
        if revision_service.is_autosave(saved):
            found = scope_of(request).item(saved.parent)
            if found is None:
                return ""
            target = found
            nonce = sessions.create_nonce(
                self.site.settings.secret_key, f"post_preview_{target.id}", request.user_id, str(request.auth.get("token", ""))
            )
            query = [("preview_id", str(target.id)), ("preview_nonce", nonce)]
        query.append(("preview", "true"))
        uri = None
        if self.type.hierarchical and target.parent:
            with self.site.read() as conn:
                uri = item_service.page_uris(conn, [target]).get(target.id)
        link = item_service.permalink(context_of(request), target, uri=uri)
        return link + ("&" if "?" in link else "?") + urlencode(query)


class RevisionsController:
    """``/{base}/{parent}/revisions`` and ``/{base}/{parent}/revisions/{id}`` of one type."""

    def __init__(self, shapes: RevisionShapes) -> None:
        self.shapes = shapes
        self.site = shapes.site
        self.parent = shapes.parent

    def collection_args(self) -> dict[str, dict[str, Any]]:
        """The reference's revision collection parameters: no ``per_page`` default (every
        revision when absent), ``date`` order meaning date then id."""
        params = collection_params(self.shapes.schema)
        params["context"]["default"] = "view"
        del params["per_page"]["default"]
        integers = {"type": "integer"}
        params["exclude"] = {"description": "Ensure result set excludes specific IDs.", "type": "array", "items": dict(integers), "default": []}
        params["include"] = {"description": "Limit result set to specific IDs.", "type": "array", "items": dict(integers), "default": []}
        params["offset"] = {"description": "Offset the result set by a specific number of items.", "type": "integer"}
        params["order"] = {"description": "Order sort attribute ascending or descending.", "type": "string", "default": "desc", "enum": ["asc", "desc"]}
        params["orderby"] = {
            "description": "Sort collection by object attribute.",
            "type": "string",
            "default": "date",
            "enum": ["date", "id", "include", "relevance", "slug", "include_slugs", "title"],
        }
        return params

    def routes(self) -> list[Route]:
        base = self.shapes.type.rest_base
        schema = lambda: self.shapes.schema  # noqa: E731 - the registry takes a schema factory
        parent_arg = {"parent": {"description": "The ID for the parent of the revision.", "type": "integer"}}
        collection = Route(
            NAMESPACE,
            rf"/{base}/(?P<parent>[\d]+)/revisions",
            [Endpoint(("GET",), self.list_revisions, self.shapes.can_view_revisions, args=self.collection_args(), cache=True)],
            args=parent_arg,
            name=f"{NAMESPACE}.{base}.revisions",
            schema=schema,
        )
        item = Route(
            NAMESPACE,
            rf"/{base}/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)",
            [
                Endpoint(
                    ("GET",),
                    self.get_revision,
                    self.shapes.can_view_revisions,
                    args={"context": context_param(self.shapes.schema)},
                    cache=True,
                ),
                Endpoint(
                    ("DELETE",),
                    self.delete_revision,
                    self.delete_permission,
                    args={
                        "force": {
                            "type": "boolean",
                            "default": False,
                            "description": "Required to be true, as revisions do not support trashing.",
                        }
                    },
                ),
            ],
            args={**parent_arg, "id": {"description": "Unique identifier for the revision.", "type": "integer"}},
            name=f"{NAMESPACE}.{base}.revisions.item",
            schema=schema,
        )
        return [collection, item]

    # == permissions ==============================================================================

    def delete_permission(self, request: RestRequest) -> bool | RestError:
        """Delete rights on the parent, then the revision must exist and be readable. A revision
        is judged by its own parent's delete rights (the reference refuses every revision
        outright, a defect the spec's correction sets aside)."""
        shapes = self.shapes
        try:
            parent = shapes.parent_item(request)
            if not context_of(request).can("delete_post", parent):
                return forbidden("rest_cannot_delete", "Sorry, you are not allowed to delete revisions of this post.", request.user_id)
            revision = shapes.revision_item(request)
        except RestError as err:
            return err
        error = shapes.view_error(request, parent, "revisions")
        if error is not None:
            return error
        owner = parent if revision.parent == parent.id else scope_of(request).item(revision.parent)
        if owner is None or not context_of(request).can("delete_post", owner):
            return forbidden("rest_cannot_delete", "Sorry, you are not allowed to delete this revision.", request.user_id)
        return True

    # == handlers =================================================================================

    def list_revisions(self, request: RestRequest) -> RestResponse:
        parent = self.shapes.parent_item(request)
        params = request.params
        orderby = str(params.get("orderby") or "date")
        if orderby == "relevance" and not params.get("search"):
            raise RestError("rest_no_search_term_defined", "You need to define a search term to order by relevance.", status=400)
        if orderby == "include" and not params.get("include"):
            raise RestError(
                "rest_orderby_include_missing_include", "You need to define an include parameter to order by include.", status=400
            )
        per_page = params.get("per_page")
        per_page = int(per_page) if per_page is not None else None
        page = int(params.get("page") or 1)
        offset = params.get("offset")
        offset = int(offset) if offset is not None else None
        with self.site.read() as conn:
            found = revision_service.query_revisions(
                conn,
                parent.id,
                per_page=per_page,
                page=page,
                offset=abs(offset) if offset is not None else None,
                search=str(params.get("search") or ""),
                include=list(params.get("include") or []),
                exclude=list(params.get("exclude") or []),
                order=str(params.get("order") or "desc"),
                orderby=orderby,
            )
        total = found.total
        max_pages = math.ceil(total / per_page) if per_page else (1 if total > 0 else 0)
        if total > 0:
            if (offset or 0) >= total:
                raise RestError(
                    "rest_revision_invalid_offset_number",
                    "The offset number requested is larger than or equal to the number of available revisions.",
                    status=400,
                )
            if not offset and page > max_pages:
                raise RestError(
                    "rest_revision_invalid_page_number", "The page number requested is larger than the number of pages available.", status=400
                )
        data = [] if request.method == "HEAD" else [self.shapes.prepare(request, revision) for revision in found.items]
        # Without per_page everything is one page.
        headers = pagination_headers(request, total, per_page or max(total, 1), page)
        return RestResponse(data, headers=headers)

    def _matching(self, request: RestRequest) -> Item:
        parent = self.shapes.parent_item(request)
        revision = self.shapes.revision_item(request)
        if revision.parent != parent.id:
            raise RestError(
                "rest_revision_parent_id_mismatch",
                f'The revision does not belong to the specified parent with id of "{parent.id}"',
                status=404,
            )
        return revision

    def get_revision(self, request: RestRequest) -> RestResponse:
        return RestResponse(self.shapes.prepare(request, self._matching(request)))

    def delete_revision(self, request: RestRequest) -> RestResponse:
        # The reference deletes a revision named under any parent; calpress holds DELETE to
        # the same parent check as GET, so that no route deletes another item's revisions.
        revision = self._matching(request)
        if not request.get_param("force"):
            raise RestError("rest_trash_not_supported", "Revisions do not support trashing. Set 'force=true' to delete.", status=501)
        previous = self.shapes.prepare(request, revision, links=False)
        with self.site.write() as conn:
            revision_service.delete_revision(conn, revision)
        scope_of(request).forget(revision.id)
        return RestResponse({"deleted": True, "previous": previous})


class AutosavesController:
    """``/{base}/{id}/autosaves`` and ``/{base}/{parent}/autosaves/{id}`` of one type."""

    def __init__(self, shapes: RevisionShapes) -> None:
        self.shapes = shapes
        self.site = shapes.site
        self.parent = shapes.parent
        self.schema = {**shapes.schema, "properties": {**shapes.schema["properties"]}}
        self.schema["properties"]["preview_link"] = {
            "description": "Preview link for the post.",
            "type": "string",
            "format": "uri",
            "context": ["edit"],
            "readonly": True,
        }

    def routes(self) -> list[Route]:
        base = self.shapes.type.rest_base
        schema = lambda: self.schema  # noqa: E731 - the registry takes a schema factory
        parent_arg = {"parent": {"description": "The ID for the parent of the autosave.", "type": "integer"}}
        collection = Route(
            NAMESPACE,
            rf"/{base}/(?P<id>[\d]+)/autosaves",
            [
                Endpoint(("GET",), self.list_autosaves, self.list_permission, args={"context": context_param(self.schema)}),
                Endpoint(("POST",), self.create_autosave, self.create_permission, args=self.parent.schema.item_args("PUT")),
            ],
            args=parent_arg,
            name=f"{NAMESPACE}.{base}.autosaves",
            schema=schema,
        )
        item = Route(
            NAMESPACE,
            rf"/{base}/(?P<parent>[\d]+)/autosaves/(?P<id>[\d]+)",
            [
                Endpoint(
                    ("GET",), self.get_autosave, self.shapes.can_view_revisions, args={"context": context_param(self.schema)}
                )
            ],
            args={**parent_arg, "id": {"description": "The ID for the autosave.", "type": "integer"}},
            name=f"{NAMESPACE}.{base}.autosaves.item",
            schema=schema,
        )
        return [collection, item]

    # == permissions ==============================================================================

    def list_permission(self, request: RestRequest) -> bool | RestError:
        try:
            parent = self.shapes.parent_item(request, "id")
        except RestError as err:
            return err
        return self.shapes.view_error(request, parent, "autosaves") or True

    def create_permission(self, request: RestRequest) -> bool | RestError:
        """As updating the parent item (the parent's own check, on the route's ``id``)."""
        if str(request.url_params.get("id", request.get_param("id")) or "") in ("", "0"):
            return RestError("rest_post_invalid_id", "Invalid item ID.", status=404)
        return self.parent.update_permission(request)

    # == handlers =================================================================================

    def _prepare(self, request: RestRequest, saved: Item) -> dict[str, Any]:
        return self.shapes.prepare(request, saved, preview=True)

    def list_autosaves(self, request: RestRequest) -> RestResponse:
        parent = self.shapes.parent_item(request, "id")
        with self.site.read() as conn:
            found = revision_service.list_autosaves(conn, parent.id)
        return RestResponse([self._prepare(request, autosave) for autosave in found])

    def create_autosave(self, request: RestRequest) -> RestResponse:
        parent = self.shapes.parent_item(request, "id")
        changes = self.parent.changes_from(request, parent)
        meta = changes.meta
        with self.site.write() as conn:
            saved = revision_service.autosave(conn, context_of(request), parent, changes, meta)
        scope_of(request).remember(saved)
        request.set_param("context", "edit")
        return RestResponse(self._prepare(request, saved))

    def get_autosave(self, request: RestRequest) -> RestResponse:
        """The latest autosave of the parent, by any user, whatever ``id`` says (as the reference)."""
        parent = self.shapes.parent_item(request)
        with self.site.read() as conn:
            found = revision_service.get_autosave(conn, parent.id)
        if found is None:
            raise RestError("rest_post_no_autosave", "There is no autosave revision for this post.", status=404)
        return RestResponse(self._prepare(request, found))


def routes_for(api: Api, controller: ContentController) -> list[Route]:
    """The revision and autosave routes of one content type (listed after its own routes)."""
    content_type = controller.type
    wants_revisions = content_type.revisions_route and content_type.has_revisions
    if not (wants_revisions or content_type.autosaves_route):
        return []
    shapes = RevisionShapes(api, controller)
    found: list[Route] = []
    if wants_revisions:
        found.extend(RevisionsController(shapes).routes())
    if content_type.autosaves_route:
        found.extend(AutosavesController(shapes).routes())
    return found

