"""``cal/events/v1`` event categories and tags: ``/categories``, ``/categories/{id}``, ``/tags`` and
``/tags/{id}`` (calendar-api.md sections 1, 2.4 b, 3.3, 4.10 and 5).

As in the reference, these routes put the calendar's argument rules and answer shapes in front of
the generic term machinery: terms are listed with the ``cms/v2`` term query
(:func:`calpress.content.taxonomies.query_terms`), written with the same terms service, linked
with the same public term URLs, and a single term carries the ``_links`` of its ``cms/v2`` route
(built by :class:`calpress.api.cms_terms.TermsController`). Argument validation (400) runs before
the permission check (401/403). Writing needs ``edit_posts`` on events and the taxonomy's own term
capability as registered in ``content/taxonomies.py``: publishing events for categories (so
authors may, contributors may not), ``manage_categories`` for tags (editors).

A ``parent`` sent to a tag route is refused (400 ``rest_taxonomy_not_hierarchical``), as the
reference's generic create and update read any parent sent, declared or not. Deliberate difference
from the reference: ``include``, ``exclude`` and ``parent`` given as slugs are resolved to their
terms (the reference validates slugs but then reads them as id 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..calendar import terms as cal_terms
from ..calendar.definitions import CATEGORY_TAXONOMY, EVENT_TYPE
from ..calendar.values import as_list
from ..content import terms as tax_store
from ..content.taxonomies import Taxonomy
from ..content.terms import Term, TermError, TermQuery
from ..rest.errors import RestError
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .base import Api, term_route
from .cal_args import NAMESPACE, arg, positive_int
from .cms_terms import TermsController
from .scope import context_of, scope_of

# The taxonomies these routes serve and the route base and answer key of each.
ROUTE_BASES = ((CATEGORY_TAXONOMY, "categories"), ("post_tag", "tags"))


def routes(api: Api) -> list[Route]:
    """The category and tag routes of the ``cal/events/v1`` namespace."""
    found: list[Route] = []
    for taxonomy_name, base in ROUTE_BASES:
        taxonomy = api.site.registry.taxonomies.get(taxonomy_name)
        if taxonomy is not None:
            found.extend(TermRoutes(api, taxonomy, base).routes())
    return found


# -- argument checks ------------------------------------------------------------------------------


def _text(value: Any, request: RestRequest, name: str) -> bool:
    """The reference's ``is_string``: a string PHP does not think empty (so ``""`` and ``"0"`` fail)."""
    return isinstance(value, str) and value not in ("", "0")


def _as_sent(value: Any, request: RestRequest, name: str) -> Any:
    """Keep the value as sent (lists, CSV strings and slugs are resolved by the handler)."""
    return value


def _parse_order(value: Any) -> str:
    # The reference's term query: anything but "asc" (any case) sorts descending.
    return "asc" if str(value).lower() == "asc" else "desc"


# -- the routes of one taxonomy -------------------------------------------------------------------


class TermRoutes:
    """``/{base}`` and ``/{base}/{id}`` for one taxonomy (``categories`` or ``tags``)."""

    def __init__(self, api: Api, taxonomy: Taxonomy, base: str) -> None:
        self.api = api
        self.site = api.site
        self.registry = api.site.registry
        self.taxonomy = taxonomy
        self.base = base
        # The cms/v2 controller of the same taxonomy: single terms carry its links.
        self.generic = TermsController(api, taxonomy)

    # -- argument checks that need the database ------------------------------------------------

    def _terms_exist(self, value: Any, request: RestRequest, name: str) -> bool:
        """Every entry of a CSV list or array is a term of this taxonomy (``is_term_of_taxonomy``)."""
        entries = as_list(value)
        if not entries:
            return False
        with self.site.read() as conn:
            return all(cal_terms.find_term(conn, self.taxonomy.name, entry) is not None for entry in entries)

    def _event_exists(self, value: Any, request: RestRequest, name: str) -> bool:
        with self.site.read() as conn:
            return cal_terms.event_exists(conn, value)

    def _term_id(self, value: Any, request: RestRequest, name: str) -> bool:
        """The addressed term exists in this taxonomy (a term of another taxonomy does not)."""
        return self._target(request, value) is not None

    def _target(self, request: RestRequest, value: Any = None) -> Term | None:
        """The term the ``id`` parameter names, looked up once per request."""
        raw = request.get_param("id") if value is None else value
        if not (isinstance(raw, int) or (isinstance(raw, str) and raw.isdigit())):
            return None
        known = scope_of(request).terms
        key = (self.taxonomy.name, int(raw))
        if key not in known:
            with self.site.read() as conn:
                known[key] = tax_store.get_term(conn, int(raw), self.taxonomy.name)
        return known[key]

    # -- argument schemas ----------------------------------------------------------------------

    def archive_args(self) -> dict[str, dict[str, Any]]:
        what = "event categories" if self.taxonomy.hierarchical else "event tags"
        args: dict[str, dict[str, Any]] = {
            "page": arg("The archive page to return", "integer", default=1, validate=positive_int),
            "per_page": arg(f"The number of {what} to return on each page", "integer", validate=positive_int),
            "search": arg("Limit results to those matching a string", "string", validate=_text),
            "exclude": arg("Ensure result set exclude specific IDs", "array", validate=self._terms_exist, sanitize=_as_sent),
            "include": arg("Limit result set to specific IDs", "array", validate=self._terms_exist, sanitize=_as_sent),
            "order": arg("Order sort attribute ascending or descending", "string", validate=_text),
            "orderby": arg("Sort collection by term attribute", "string", validate=_text),
            "hide_empty": arg("Whether to hide terms not assigned to any posts", "boolean", default=True),
        }
        if self.taxonomy.hierarchical:
            args["parent"] = arg("Limit result set to terms assigned to a specific parent", "integer",
                                 validate=self._terms_exist, sanitize=_as_sent)
        args["post"] = arg("Limit result set to terms assigned to a specific post", "integer", validate=self._event_exists)
        args["event"] = arg('Limit result set to terms assigned to a specific event (an alias of the "post" parameter)',
                            "integer", validate=self._event_exists)
        args["slug"] = arg("Limit result set to terms with a specific slug", "string", validate=_text)
        return args

    def id_args(self) -> dict[str, dict[str, Any]]:
        what = "event category" if self.taxonomy.hierarchical else "event tag"
        return {"id": arg(f"the {what} term ID", "integer", required=True, validate=self._term_id)}

    def write_args(self, *, creating: bool) -> dict[str, dict[str, Any]]:
        what = "event category" if self.taxonomy.hierarchical else "event tag"
        args = {
            "name": arg(f"The {what} name", "string", required=creating, validate=_text),
            "description": arg(f"The {what} description", "string", validate=_text),
            "slug": arg(f"The {what} slug", "string", validate=_text),
        }
        if self.taxonomy.hierarchical:
            args["parent"] = arg(f"The {what} parent", "integer", validate=self._terms_exist, sanitize=_as_sent)
        return args

    def routes(self) -> list[Route]:
        return [
            Route(NAMESPACE, f"/{self.base}", [
                Endpoint(("GET",), self.list_terms, args=self.archive_args(), cache=True),
                Endpoint(("POST",), self.create_term, self.can_write("manage_terms"), args=self.write_args(creating=True)),
            ], name=f"{NAMESPACE}.{self.base}"),
            Route(NAMESPACE, f"/{self.base}/(?P<id>\\d+)", [
                Endpoint(("GET",), self.get_term, args=self.id_args(), cache=True),
                Endpoint(("POST", "PUT", "PATCH"), self.update_term, self.can_write("edit_terms"),
                         args={**self.id_args(), **self.write_args(creating=False)}),
                Endpoint(("DELETE",), self.delete_term, self.can_write("delete_terms"), args=self.id_args()),
            ], name=f"{NAMESPACE}.{self.base}.item"),
        ]

    # -- permissions ---------------------------------------------------------------------------

    def can_write(self, term_cap: str) -> Callable[[RestRequest], bool]:
        """``edit_posts`` on events and the taxonomy's ``term_cap`` capability (the reference's
        can_create, which its updates and deletions share)."""
        needed = getattr(self.taxonomy.caps, term_cap)

        def check(request: RestRequest) -> bool:
            ctx = context_of(request)
            return ctx.can(self.registry.types[EVENT_TYPE].caps["edit_posts"]) and ctx.can(needed)

        return check

    # -- representation ------------------------------------------------------------------------

    def represent(self, request: RestRequest, term: Term, related: dict[int, Term]) -> dict[str, Any]:
        """The term as these routes show it (calendar-api.md 2.4 b): the generic term fields with
        ``link`` renamed ``url`` (so it moves to the end), then ``urls``."""
        data: dict[str, Any] = {
            "id": term.id,
            "count": term.count,
            "description": term.description,
            "name": term.name,
            "slug": term.slug,
            "taxonomy": term.taxonomy,
        }
        if self.taxonomy.hierarchical:
            data["parent"] = term.parent
        data["meta"] = []  # no term meta is registered: the reference's empty PHP array
        data["url"] = tax_store.term_link(scope_of(request).home, self.taxonomy, term, related)
        data["urls"] = cal_terms.term_urls(term, request.url_for)
        return data

    def _single(self, request: RestRequest, term: Term, related: dict[int, Term]) -> dict[str, Any]:
        """A single-term answer: the representation plus the ``_links`` of its cms/v2 route,
        which the reference's generic response keeps."""
        data = self.represent(request, term, related)
        data["_links"] = self.generic.links(request, term, related)
        return data

    def _related(self, term: Term) -> dict[int, Term]:
        with self.site.read() as conn:
            return tax_store.with_ancestors(conn, [term])

    # -- collection ----------------------------------------------------------------------------

    def _per_page(self, request: RestRequest) -> int:
        """The page size: asked for, else the ``posts_per_page`` option; never above the
        ``events_max_per_page`` option (values above are clamped, not refused)."""
        options = scope_of(request).options
        given = request.get_param("per_page")
        wanted = int(given) if given is not None else int(options.get("posts_per_page") or 10)
        return max(1, min(wanted, int(options.get("events_max_per_page") or 50)))

    def _resolved_ids(self, conn: Any, value: Any) -> list[int]:
        found = (cal_terms.find_term(conn, self.taxonomy.name, entry) for entry in as_list(value))
        return list(dict.fromkeys(term.id for term in found if term is not None))

    def list_terms(self, request: RestRequest) -> RestResponse:
        params = request.params
        page = int(params.get("page") or 1)
        per_page = self._per_page(request)
        # "event" is an alias of "post" and wins when both are given.
        object_id = params.get("event") if params.get("event") is not None else params.get("post")
        slug = params.get("slug")
        with self.site.read() as conn:
            parent: int | None = None
            if self.taxonomy.hierarchical and params.get("parent") is not None:
                parents = self._resolved_ids(conn, params["parent"])
                parent = parents[0] if parents else 0
            query = TermQuery(
                taxonomy=self.taxonomy.name,
                include=self._resolved_ids(conn, params.get("include")),
                exclude=self._resolved_ids(conn, params.get("exclude")),
                slugs=[str(slug)] if slug is not None else [],
                search=str(params.get("search") or ""),
                parent=parent,
                object_id=int(object_id) if object_id is not None else None,
                hide_empty=bool(params.get("hide_empty")),
                orderby=str(params.get("orderby") or "name"),
                order=_parse_order(params.get("order") or "asc"),
                limit=per_page,
                offset=(page - 1) * per_page,
            )
            found, total = tax_store.query_terms(conn, self.registry, query)
            related = tax_store.with_ancestors(conn, found)
        shown = [self.represent(request, term, related) for term in found]
        return self._envelope(request, shown, total, page, per_page)

    def _envelope(self, request: RestRequest, shown: list[dict[str, Any]], total: int, page: int, per_page: int) -> RestResponse:
        """The reference's term archive answer: ``rest_url`` (the bare collection URL: filters are
        not echoed), the totals, the terms, then the page links."""
        collection = f"{NAMESPACE}.{self.base}"
        total_pages = math.ceil(total / per_page) if total else 0
        data: dict[str, Any] = {
            "rest_url": request.url_for(collection, slash=True),
            "total": total,
            "total_pages": total_pages,
            self.base: shown,
        }
        if page < total_pages:
            data["next_rest_url"] = request.url_for(collection, [("page", str(page + 1))], slash=True)
        if page > 1:
            data["previous_rest_url"] = request.url_for(collection, [("page", str(page - 1))] if page > 2 else None, slash=True)
        headers = {"X-TEC-Total": str(total), "X-TEC-TotalPages": str(total_pages)}
        return RestResponse(data, headers=headers)

    def create_term(self, request: RestRequest) -> Any:
        params = request.params
        try:
            with self.site.write() as conn:
                term = tax_store.create_term(
                    conn,
                    self.taxonomy,
                    str(params.get("name") or ""),
                    slug=str(params.get("slug") or ""),
                    description=str(params.get("description") or ""),
                    parent=self._parent_given(request, conn),
                )
        except TermError as err:
            if err.code == "term_exists" and isinstance(err.data, dict):
                # The reference's create_item adds the id to the error's earlier payloads.
                err.additional_data = [err.data["term_id"], err.data["term_id"]]
            raise
        location = request.url_for(term_route(self.taxonomy, item=True), id=term.id)
        return RestResponse(self._single(request, term, self._related(term)), 201, {"Location": location})

    def _parent_given(self, request: RestRequest, conn: Any) -> int | None:
        """The parent to write: None when none was sent. Any parent sent counts, declared or not,
        as the reference reads it, so a tag refuses one (``rest_taxonomy_not_hierarchical``)."""
        if not request.has_param("parent"):
            return None
        value = request.get_param("parent")
        if not self.taxonomy.hierarchical:
            return 0
        found = self._resolved_ids(conn, value)
        return found[0] if found else 0

    # -- single term -----------------------------------------------------------------------------

    def _existing(self, request: RestRequest) -> Term:
        term = self._target(request)
        if term is None:  # deleted since the argument was checked
            raise RestError("rest_term_invalid", "Term does not exist.", status=404)
        return term

    def get_term(self, request: RestRequest) -> dict[str, Any]:
        term = self._existing(request)
        return self._single(request, term, self._related(term))

    def update_term(self, request: RestRequest) -> dict[str, Any]:
        term = self._existing(request)
        params = request.params
        with self.site.write() as conn:
            parent = self._parent_given(request, conn)
            fields = {name: params.get(name) for name in ("name", "slug", "description")}
            if parent is not None or any(value is not None for value in fields.values()):
                term = tax_store.update_term(
                    conn,
                    self.taxonomy,
                    term,
                    name=None if fields["name"] is None else str(fields["name"]),
                    slug=None if fields["slug"] is None else str(fields["slug"]),
                    description=None if fields["description"] is None else str(fields["description"]),
                    parent=parent,
                )
        return self._single(request, term, self._related(term))

    def delete_term(self, request: RestRequest) -> dict[str, Any]:
        """Delete the term for good (terms have no trash) and answer with it as it was."""
        term = self._existing(request)
        with self.site.write() as conn:
            previous = self.represent(request, term, tax_store.with_ancestors(conn, [term]))
            tax_store.delete_term(conn, self.registry, term)
        scope_of(request).terms.pop((self.taxonomy.name, term.id), None)
        return previous
