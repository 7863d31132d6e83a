"""The term screens of every taxonomy the workspace shows (categories, tags, event categories),
driven by the taxonomy's definition as WordPress's one WP_Terms_List_Table serves them all:

* ``edit-tags.php?taxonomy=X[&post_type=Y]``: the list (name, description, slug, count; row
  actions Edit, Delete and View), search, sorting, pages, bulk delete, and beside it the "Add
  New" form (name, slug, parent for a hierarchical taxonomy, description);
* ``term.php?taxonomy=X&tag_ID=N``: one term's edit form, and its delete link.

Opening either needs the taxonomy's ``manage_terms`` capability (its definition's, mapped as the
API maps it: event categories are the authors', categories and tags the editors'); every change
goes through ``/cms/v2/<rest base>`` as the user, so the API decides who may add, edit or delete
which term, and its errors (a name already used, a slug taken, a parent that does not exist) come
back beside their field with the input kept. Counts are the API's.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

from ..content import permissions
from ..content import terms as term_store
from ..content.taxonomies import DEFAULT_CATEGORY_ID
from .api import Answer
from .content import TYPES
from .shell import AdminRequest, Forbidden, Screen
from .values import number

__all__ = ["SCREENS", "TermScreen", "TermsScreen"]

PER_PAGE = 20
PAGE_MAX = 100  # the REST collections' own limit
HIGHER = "You need a higher level of permission."
MISSING = "You attempted to edit an item that does not exist. Perhaps it was deleted?"
# edit-tag-messages.php, with the taxonomy's names (WordPress's own for categories and tags).
MESSAGES = {1: ("{singular} added.", "success"), 2: ("{singular} deleted.", "success"),
            3: ("{singular} updated.", "success"), 4: ("{singular} not added.", "error"),
            5: ("{singular} not updated.", "error"), 6: ("{plural} deleted.", "success")}
ORDERBY = ("name", "description", "slug", "count")
# The API's error codes that name no parameter -> the field they are about.
CODE_FIELDS = {"term_exists": "name", "empty_term_name": "name", "duplicate_term_slug": "slug",
               "rest_term_invalid": "parent", "rest_taxonomy_not_hierarchical": "parent"}


@dataclass(frozen=True)
class TermRef:
    """A term as the capability mappers need it (its taxonomy and id)."""

    taxonomy: str
    id: int


def _text(value: Any) -> str:
    """A stored name as typed: the API keeps ``&`` as ``&amp;`` (shown once, not twice)."""
    return html.unescape(str(value or ""))


def taxonomy_of(r: AdminRequest, name: str) -> Any:
    """The taxonomy the screen shows, or WordPress's wp_die answers."""
    taxonomy = r.ctx.registry.taxonomies.get(name) if name else None
    if taxonomy is None:
        raise Forbidden("Invalid taxonomy.", 400)
    if not taxonomy.show_ui or not taxonomy.show_in_rest:
        raise Forbidden("Sorry, you are not allowed to edit terms in this taxonomy.", 403)
    if not r.ctx.can(taxonomy.caps.manage_terms):
        raise Forbidden("Sorry, you are not allowed to manage terms in this taxonomy.", 403, HIGHER)
    return taxonomy


def names_of(taxonomy: Any) -> dict[str, str]:
    return {key: _text(value) for key, value in taxonomy.labels.items() if value}


def route(taxonomy: Any, term_id: int | None = None) -> str:
    base = f"/cms/v2/{taxonomy.rest_base}"
    return f"{base}/{term_id}" if term_id else base


def post_type_of(r: AdminRequest, taxonomy: Any) -> str:
    """The content type the screen is reached from (the menu lights it): the one asked for when
    the taxonomy classifies it, else posts, else the taxonomy's first type."""
    given = r.param("post_type")
    if given in taxonomy.object_types:
        return given
    return "post" if "post" in taxonomy.object_types or not taxonomy.object_types else taxonomy.object_types[0]


def list_url(r: AdminRequest, taxonomy: Any, post_type: str, **query: Any) -> str:
    return r.url("edit-tags.php", taxonomy=taxonomy.name, post_type=post_type if post_type != "post" else None, **query)


def all_terms(r: AdminRequest, taxonomy: Any) -> list[dict[str, Any]]:
    """Every term of the taxonomy through the API, page by page."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = r.api.get(route(taxonomy), per_page=PAGE_MAX, page=page, orderby="name", order="asc",
                           _fields="id,name,slug,description,count,parent,link")
        if not answer.ok or not isinstance(answer.data, list):
            break
        found += answer.data
        if page >= answer.total_pages:
            break
        page += 1
    return found


def tree(terms: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Terms as (depth, term), each after its parent, siblings in the order given; terms whose
    parent is not among them at the top."""
    known = {term["id"] for term in terms}
    children: dict[int, list[dict[str, Any]]] = {}
    for term in terms:
        parent = number(term.get("parent"))
        children.setdefault(parent if parent in known else 0, []).append(term)
    out: list[tuple[int, dict[str, Any]]] = []
    seen: set[int] = set()

    def walk(parent: int, depth: int) -> None:
        for term in children.get(parent, []):
            if term["id"] in seen:  # a stored loop: shown once
                continue
            seen.add(term["id"])
            out.append((depth, term))
            walk(term["id"], depth + 1)

    walk(0, 0)
    return out


def descendants(terms: list[dict[str, Any]], term_id: int) -> set[int]:
    """The ids under ``term_id`` (its children, theirs...)."""
    below: set[int] = set()
    frontier = {term_id}
    while frontier:
        frontier = {term["id"] for term in terms if number(term.get("parent")) in frontier} - below - {term_id}
        below |= frontier
    return below


def form_errors(answer: Answer, name_field: str) -> dict[str, str]:
    """The API's errors by form field: per parameter, else by the error's code, else for the form."""
    found = dict(answer.field_errors)
    if not found:
        found = {CODE_FIELDS.get(answer.code, ""): answer.message}
    fields = {"name": name_field}
    return {fields.get(key, key): _text(reason) for key, reason in found.items()}


def _notice(r: AdminRequest, names: dict[str, str]) -> None:
    code = number(r.param("message"))
    if code in MESSAGES:
        text, kind = MESSAGES[code]
        r.notice(text.format(singular=names.get("singular_name", "Item"), plural=names.get("name", "Items")),
                 "error" if r.param("error") else kind)
    failed = number(r.param("failed"))
    if failed:
        r.notice(f"{failed} could not be deleted: you may not delete {'it' if failed == 1 else 'them'}, "
                 f"or {'it was' if failed == 1 else 'they were'} already gone.", "error")


# -- the list -----------------------------------------------------------------------------------


class TermsScreen(Screen):
    """``edit-tags.php``: a taxonomy's terms and the form that adds one."""

    file = "edit-tags.php"

    def required(self, r: AdminRequest) -> str:
        taxonomy_of(r, r.param("taxonomy"))  # refuses by the taxonomy's own capability
        return "read"

    def get(self, r: AdminRequest) -> None:
        taxonomy = taxonomy_of(r, r.param("taxonomy"))
        post_type = post_type_of(r, taxonomy)
        action = r.param("action")
        if action == "delete" and r.param("tag_ID"):
            self._delete_one(r, taxonomy, post_type, number(r.param("tag_ID")))
        if action == "edit" and r.param("tag_ID"):
            r.redirect(r.url("term.php", taxonomy=taxonomy.name, tag_ID=number(r.param("tag_ID")),
                             post_type=post_type if post_type != "post" else None))
        self.show(r, taxonomy, post_type, {}, {})

    def post(self, r: AdminRequest) -> None:
        taxonomy = taxonomy_of(r, r.param("taxonomy"))
        post_type = post_type_of(r, taxonomy)
        if r.field("action") == "add-tag":
            self._add(r, taxonomy, post_type)
            return
        r.verify("bulk-tags")
        action = r.field("action")
        if action in ("", "-1"):
            action = r.field("action2")
        chosen = r.form.get("delete_tags")
        ids = [number(value) for value in (chosen if isinstance(chosen, list) else [chosen] if chosen else []) if number(value)]
        back = {key: r.field(key) or None for key in ("s", "orderby", "order", "paged")}
        if action != "delete" or not ids:
            r.redirect(list_url(r, taxonomy, post_type, **back))
        deleted = sum(1 for term_id in ids if r.api.delete(route(taxonomy, term_id), force="true").ok)
        r.redirect(list_url(r, taxonomy, post_type, message=6 if deleted else None,
                            failed=(len(ids) - deleted) or None, **back))

    def _delete_one(self, r: AdminRequest, taxonomy: Any, post_type: str, term_id: int) -> None:
        r.verify(f"delete-tag_{term_id}")
        answer = r.api.delete(route(taxonomy, term_id), force="true")
        if answer.ok:
            r.redirect(list_url(r, taxonomy, post_type, message=2))
        if answer.status in (401, 403):
            raise Forbidden("Sorry, you are not allowed to delete this item.", 403, HIGHER)
        r.redirect(list_url(r, taxonomy, post_type, failed=1))

    def _add(self, r: AdminRequest, taxonomy: Any, post_type: str) -> None:
        r.verify("add-tag")
        sent = {"name": r.field("tag-name"), "slug": r.field("slug"), "description": r.field("description"),
                "parent": number(r.field("parent"))}
        body: dict[str, Any] = {"name": sent["name"], "slug": sent["slug"], "description": sent["description"]}
        if taxonomy.hierarchical:
            body["parent"] = max(sent["parent"], 0)
        answer = r.api.post(route(taxonomy), body)
        if answer.ok:
            r.redirect(list_url(r, taxonomy, post_type, message=1))
        if answer.status in (401, 403):
            raise Forbidden("Sorry, you are not allowed to create terms in this taxonomy.", 403, HIGHER)
        names = names_of(taxonomy)
        errors = form_errors(answer, "tag-name")
        r.notice(f"{names.get('singular_name', 'Item')} not added. {errors.pop('', '')}".strip(), "error")
        self.show(r, taxonomy, post_type, sent, errors, 400)

    def show(self, r: AdminRequest, taxonomy: Any, post_type: str, sent: dict[str, Any], errors: dict[str, str],
             code: int = 200) -> None:
        r.post_type = post_type
        names = names_of(taxonomy)
        search = r.param("s").strip()
        page = max(1, number(r.param("paged")) or 1)
        orderby = r.param("orderby") if r.param("orderby") in ORDERBY else "name"
        order = "desc" if r.param("order").lower() == "desc" else "asc"
        everything = all_terms(r, taxonomy) if taxonomy.hierarchical else []
        if taxonomy.hierarchical and not search and orderby == "name" and order == "asc":
            # As WordPress: a hierarchy in tree order, each child under its parent, a page of it.
            ordered = tree(everything)
            total = len(ordered)
            rows = ordered[(page - 1) * PER_PAGE:page * PER_PAGE]
        else:
            answer = r.api.get(route(taxonomy), search=search or None, page=page, per_page=PER_PAGE, orderby=orderby,
                               order=order, _fields="id,name,slug,description,count,parent,link")
            if not answer.ok and page > 1:
                r.redirect(list_url(r, taxonomy, post_type, s=search or None, orderby=r.param("orderby") or None,
                                    order=r.param("order") or None))
            if not answer.ok:
                r.notice(_text(answer.message), "error")
            rows = [(0, term) for term in (answer.data if answer.ok and isinstance(answer.data, list) else [])]
            total = answer.total
        pages = max(1, math.ceil(total / PER_PAGE))
        if page > pages and total:
            r.redirect(list_url(r, taxonomy, post_type, s=search or None, orderby=r.param("orderby") or None,
                                order=r.param("order") or None, paged=pages))
        _notice(r, names)
        options = r.site.load_options()
        default_id = number(options.get("default_category")) or DEFAULT_CATEGORY_ID
        refs = {term["id"]: TermRef(taxonomy.name, term["id"]) for _, term in rows}
        r.render(
            "admin/edit-tags.html", code, title=names.get("name", taxonomy.label), taxonomy=taxonomy, names=names,
            post_type=post_type, listed=post_type if post_type != "post" else None, rows=rows, total=total, page=page,
            pages=pages, search=search, orderby=orderby, order=order, sent=sent, errors=errors,
            can_add=permissions.can_create_term(r.ctx, taxonomy),
            can_edit={i: r.ctx.can("edit_term", ref) for i, ref in refs.items()},
            can_delete={i: r.ctx.can("delete_term", ref, default_id) for i, ref in refs.items()},
            parents=tree(everything), count_url=self._count_url(r, taxonomy, post_type), text=_text,
            add_nonce=r.nonce("add-tag"), bulk_nonce=r.nonce("bulk-tags"),
            delete_url=lambda term_id: list_url(r, taxonomy, post_type, action="delete", tag_ID=term_id,
                                                _wpnonce=r.nonce(f"delete-tag_{term_id}")),
            edit_url=lambda term_id: r.url("term.php", taxonomy=taxonomy.name, tag_ID=term_id,
                                           post_type=post_type if post_type != "post" else None),
            sort_url=lambda key: list_url(r, taxonomy, post_type, s=search or None, orderby=key,
                                          order="desc" if orderby == key and order == "asc" else "asc"),
            page_url=lambda number: list_url(r, taxonomy, post_type, s=search or None, orderby=r.param("orderby") or None,
                                             order=r.param("order") or None, paged=number if number > 1 else None),
        )

    @staticmethod
    def _count_url(r: AdminRequest, taxonomy: Any, post_type: str) -> Any:
        """The list of the type's items in a term, where the list table filters by this taxonomy."""
        admin = TYPES.get(post_type)
        if admin is None or not any(found.name == taxonomy.name for found in admin.filters):
            return None
        return lambda term_id: r.url("edit.php", post_type=post_type if post_type != "post" else None,
                                     **{taxonomy.name: term_id})


# -- one term -----------------------------------------------------------------------------------


class TermScreen(Screen):
    """``term.php?taxonomy=X&tag_ID=N``: edit one term (name, slug, parent, description)."""

    file = "term.php"

    def required(self, r: AdminRequest) -> str:
        self._taxonomy(r)
        return "read"

    @staticmethod
    def _taxonomy(r: AdminRequest) -> Any:
        name = r.param("taxonomy")
        if not name:  # as WordPress, the term alone names its taxonomy
            with r.site.read() as conn:
                found = term_store.get_term(conn, number(r.param("tag_ID")))
            if found is None:
                raise Forbidden(MISSING, 404)
            name = found.taxonomy
        return taxonomy_of(r, name)

    def _term(self, r: AdminRequest, taxonomy: Any, term_id: int) -> dict[str, Any]:
        answer = r.api.get(route(taxonomy, term_id), context="edit")
        if answer.status == 404 or (answer.ok and not isinstance(answer.data, dict)):
            raise Forbidden(MISSING, 404)
        if not answer.ok:
            raise Forbidden("Sorry, you are not allowed to edit this item.", 403, HIGHER)
        return answer.data

    def get(self, r: AdminRequest) -> None:
        taxonomy = self._taxonomy(r)
        term_id = number(r.param("tag_ID"))
        term = self._term(r, taxonomy, term_id)
        names = names_of(taxonomy)
        _notice(r, names)
        values = {"name": _text(term.get("name")), "slug": _text(term.get("slug")), "description": term.get("description") or "",
                  "parent": number(term.get("parent"))}
        self.show(r, taxonomy, term, values, {})

    def post(self, r: AdminRequest) -> None:
        taxonomy = self._taxonomy(r)
        term_id = number(r.field("tag_ID") or r.param("tag_ID"))
        r.verify(f"update-tag_{term_id}")
        term = self._term(r, taxonomy, term_id)
        sent = {"name": r.field("name"), "slug": r.field("slug"), "description": r.field("description"),
                "parent": number(r.field("parent"))}
        body: dict[str, Any] = {"name": sent["name"], "slug": sent["slug"], "description": sent["description"]}
        errors: dict[str, str] = {}
        if taxonomy.hierarchical:
            body["parent"] = max(sent["parent"], 0)
            # The API would quietly make such a term top-level (the reference's loop check):
            # said here instead, and the form offers no such parent.
            if body["parent"] == term_id or body["parent"] in descendants(all_terms(r, taxonomy), term_id):
                singular = names_of(taxonomy).get("singular_name", "term")
                errors["parent"] = f"A {singular.lower()} cannot be placed under itself or under one of its own children."
        if not errors:
            answer = r.api.post(route(taxonomy, term_id), body)
            if answer.ok:
                post_type = post_type_of(r, taxonomy)
                r.redirect(r.url("term.php", taxonomy=taxonomy.name, tag_ID=term_id, message=3,
                                 post_type=post_type if post_type != "post" else None))
            if answer.status in (401, 403):
                raise Forbidden("Sorry, you are not allowed to edit this item.", 403, HIGHER)
            errors = form_errors(answer, "name")
        singular = names_of(taxonomy).get("singular_name", "Item")
        r.notice(f"{singular} not updated. {errors.pop('', '')}".strip(), "error")
        self.show(r, taxonomy, term, sent, errors, 400)

    def show(self, r: AdminRequest, taxonomy: Any, term: dict[str, Any], values: dict[str, Any], errors: dict[str, str],
             code: int = 200) -> None:
        post_type = post_type_of(r, taxonomy)
        r.post_type = post_type
        names = names_of(taxonomy)
        term_id = term["id"]
        parents: list[tuple[int, dict[str, Any]]] = []
        if taxonomy.hierarchical:
            everything = all_terms(r, taxonomy)
            below = descendants(everything, term_id) | {term_id}
            parents = [(depth, found) for depth, found in tree(everything) if found["id"] not in below]
        options = r.site.load_options()
        default_id = number(options.get("default_category")) or DEFAULT_CATEGORY_ID
        can_delete = r.ctx.can("delete_term", TermRef(taxonomy.name, term_id), default_id)
        r.render(
            "admin/term.html", code, title=names.get("edit_item", "Edit"), taxonomy=taxonomy, names=names, term=term,
            values=values, errors=errors, parents=parents, text=_text, nonce=r.nonce(f"update-tag_{term_id}"),
            action=r.url("term.php", taxonomy=taxonomy.name, tag_ID=term_id, post_type=post_type if post_type != "post" else None),
            back=list_url(r, taxonomy, post_type),
            delete_url=list_url(r, taxonomy, post_type, action="delete", tag_ID=term_id,
                                _wpnonce=r.nonce(f"delete-tag_{term_id}")) if can_delete else "",
            view_url=term.get("link") if taxonomy.public and taxonomy.publicly_queryable else "",
        )


SCREENS: list[Screen] = [TermsScreen(), TermScreen()]
