"""The terms service that every taxonomy shares: terms stored, queried, linked to content
items and counted.

Taxonomy definitions live in :mod:`calpress.content.taxonomies` and the app's registry. One service
serves them all, with the reference's rules (cms-api.md 7.1, 7.2, 6.7): slugs unique per taxonomy, no two terms of one name at one level, parents of the same
taxonomy and never a cycle, ``count`` as the number of published objects, and a default
category (``Uncategorized``, id 1) that cannot be deleted.

Term links (``term_links``) tie content items to terms; ``get_object_terms`` reads the links of a
whole page of items in one query; `.object_terms` changes links and keeps the counts.
Callers own the transaction: every function takes the connection to work in, and the taxonomy
definition (or the registry, where several taxonomies may be involved) it works for.

Differences from the reference, on purpose: slugs are unique per taxonomy only (the reference
numbers a slug that another taxonomy uses as well, which its database schema needed and ours does
not); descriptions are cleaned with nh3 to the reference's allowed tags (its kses keeps numeric
entities as typed, nh3 writes the characters); ``hide_empty`` on a hierarchical taxonomy is
applied before paging, so ``X-WP-Total`` counts what is listed (the reference filters after
paging and counts the hidden terms too).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import nh3
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect

from ..compat.formatting import sanitize_text_field
from ..rest.errors import RestError
from ..store import textsearch
from ..store.changes import TERM_COUNT, pay_term_counts
from ..store.changes import record as record_change
from ..store.fast import Shapes, bind_list, in_binds, padded_size
from ..store.tables import row_offset, term_links, terms
from . import object_terms
from .slugs import sanitize_title, unique_slug
from .taxonomies import DEFAULT_CATEGORY_ID, DEFAULT_CATEGORY_NAME, Taxonomy

if TYPE_CHECKING:
    from .registry import ContentRegistry

# -- terms ----------------------------------------------------------------------------------------


@dataclass
class Term:
    id: int
    taxonomy: str
    name: str
    slug: str
    description: str = ""
    parent: int = 0
    count: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


class TermError(RestError):
    """A term could not be written; ``code`` and ``data`` are the reference's. Errors the
    reference raises without a status (``empty_term_name``, ``duplicate_term_slug``) answer 500
    there too."""


_COLUMNS = (
    terms.c.id,
    terms.c.taxonomy,
    terms.c.name,
    terms.c.slug,
    terms.c.description,
    terms.c.parent,
    terms.c.count,
    terms.c.meta,
)


def _term(row: Any) -> Term:
    return Term(
        id=row.id,
        taxonomy=row.taxonomy,
        name=row.name,
        slug=row.slug,
        description=row.description,
        parent=row.parent,
        count=row.count,
        meta=dict(row.meta or {}),
    )


def _taxonomy_or_error(registry: ContentRegistry, name: str) -> Taxonomy:
    taxonomy = registry.taxonomies.get(name)
    if taxonomy is None:
        raise TermError("invalid_taxonomy", "Invalid taxonomy.", status=400)
    return taxonomy


def _folded(conn: sa.Connection, column: Any) -> Any:
    """``column`` for case-insensitive ordering, in byte order on both databases (PostgreSQL's
    default collation would otherwise sort punctuation differently from SQLite)."""
    return _folded_for(conn.dialect.name, column)


def _folded_for(dialect: str, column: Any) -> Any:
    lowered = sa.func.lower(column)
    return lowered.collate("C") if dialect == "postgresql" else lowered


def get_term(conn: sa.Connection, term_id: int, taxonomy: str | None = None) -> Term | None:
    """The term ``term_id``, or None (also when it belongs to another taxonomy than ``taxonomy``)."""
    if not term_id or term_id < 0:
        return None
    pay_term_counts(conn)
    stmt = sa.select(*_COLUMNS).where(terms.c.id == term_id)
    if taxonomy is not None:
        stmt = stmt.where(terms.c.taxonomy == taxonomy)
    row = conn.execute(stmt).first()
    return _term(row) if row else None


def shown_with_count(term_id: int) -> list[tuple[str, int]]:
    """The records that what shows a term with its count is built from (store/memo.py): the
    term, and its count, which moves apart from it whenever an item joins or leaves it."""
    return [("term", term_id), (TERM_COUNT, term_id)]


def get_terms(conn: sa.Connection, term_ids: Iterable[int]) -> dict[int, Term]:
    """The terms with these ids, by id (missing ids are absent)."""
    wanted = sorted({int(i) for i in term_ids if i})
    if not wanted:
        return {}
    pay_term_counts(conn)
    rows = _TERMS_BY_ID(padded_size(len(wanted))).rows(conn, bind_list("ids", wanted))
    return {row.id: _term(row) for row in rows}


# get_terms' query per padded number of ids, on the driver: an event's save looks its terms up
# inside the write transaction, where SQLAlchemy's building and execution cost several times the
# query.
_TERMS_BY_ID = Shapes(lambda size: sa.select(*_COLUMNS).where(in_binds(terms.c.id, "ids", size)))


def get_term_by_slug(conn: sa.Connection, taxonomy: str, slug: str) -> Term | None:
    row = conn.execute(sa.select(*_COLUMNS).where(terms.c.taxonomy == taxonomy, terms.c.slug == slug)).first()
    return _term(row) if row else None


def find_term(conn: sa.Connection, taxonomy: str, value: str | int) -> Term | None:
    """A term of ``taxonomy`` given as a slug, an id or a name, tried in that order."""
    text = str(value).strip()
    if not text:
        return None
    found = get_term_by_slug(conn, taxonomy, sanitize_title(text))
    if found is None and text.isdigit():
        found = get_term(conn, int(text), taxonomy)
    if found is None:
        row = conn.execute(
            sa.select(*_COLUMNS)
            .where(terms.c.taxonomy == taxonomy, terms.c.name == clean_term_name(text))
            .order_by(terms.c.id)
            .limit(1)
        ).first()
        found = _term(row) if row else None
    return found


def with_ancestors(conn: sa.Connection, found: Iterable[Term]) -> dict[int, Term]:
    """These terms and all their ancestors, by id (what links and paths of hierarchical terms
    need), in as many queries as the longest chain of missing parents."""
    known: dict[int, Term] = {term.id: term for term in found}
    wanted = {term.parent for term in known.values() if term.parent} - known.keys()
    while wanted:
        loaded = get_terms(conn, wanted)
        known.update(loaded)
        wanted = {term.parent for term in loaded.values() if term.parent} - known.keys()
    return known


def with_descendants(conn: sa.Connection, term_ids: Iterable[int]) -> set[int]:
    """These term ids and the ids of all their descendants, in one query (what a listing
    filtered by a category with ``include_children`` needs)."""
    ids = sorted({int(i) for i in term_ids if i})
    if not ids:
        return set()
    start = sa.select(terms.c.id).where(terms.c.id.in_(ids)).cte("branch", recursive=True)
    below = terms.alias("below")
    branch = start.union(sa.select(below.c.id).join(start, below.c.parent == start.c.id))
    return set(conn.execute(sa.select(branch.c.id)).scalars().all())


def term_link(home_url: str, taxonomy: Taxonomy | None, term: Term, related: Mapping[int, Term] | None = None) -> str:
    """The public URL of ``term`` of ``taxonomy`` (None: a taxonomy no longer registered);
    ``related`` holds its ancestors (see ``with_ancestors``) for the path of a hierarchical
    taxonomy (``/category/parent/child/``)."""
    home = home_url.rstrip("/")
    if taxonomy is None:
        return f"{home}/?taxonomy={term.taxonomy}&term={term.slug}"
    if taxonomy.rewrite_slug:
        path = [term.slug]
        if taxonomy.rewrite_hierarchical and related is not None:
            seen = {term.id}
            parent = related.get(term.parent)
            while parent is not None and parent.id not in seen:
                path.append(parent.slug)
                seen.add(parent.id)
                parent = related.get(parent.parent)
        return f"{home}/{taxonomy.rewrite_slug}/{'/'.join(reversed(path))}/"
    if taxonomy.name == "category":
        return f"{home}/?cat={term.id}"
    if taxonomy.query_var:
        return f"{home}/?{taxonomy.query_var}={term.slug}"
    return f"{home}/?taxonomy={taxonomy.name}&term={term.slug}"


# -- listing --------------------------------------------------------------------------------------


@dataclass
class TermQuery:
    """What ``query_terms`` lists: the filters and order of the reference's term query.

    ``include`` wins over ``exclude`` (the reference ignores ``exclude`` when ``include`` is
    given); ``slugs`` are compared after ``sanitize_title``; ``parent`` 0 means top level;
    ``object_id`` lists the terms linked to one content item; ``taxonomies``, when given, lists
    several taxonomies to match instead of ``taxonomy`` (searches). ``orderby`` is one of ``name``
    (case-insensitive), ``id``, ``slug``, ``count``, ``description``, ``term_group`` (terms have
    no groups: id order), ``parent``, ``include`` (the order of ``include``), ``include_slugs``
    (the order of ``slugs``), ``none``; ``include``/``include_slugs`` without their list sort
    by name, as in the reference.
    """

    taxonomy: str
    include: Sequence[int] = ()
    exclude: Sequence[int] = ()
    slugs: Sequence[str] = ()
    search: str = ""
    parent: int | None = None
    object_id: int | None = None
    hide_empty: bool = False
    orderby: str = "name"
    order: str = "asc"
    limit: int | None = None
    offset: int = 0
    taxonomies: Sequence[str] = ()


def _conditions(conn: sa.Connection, query: TermQuery, taxonomy: Taxonomy) -> tuple[list[Any], list[str]]:
    names = list(dict.fromkeys(query.taxonomies))
    conditions: list[Any] = [terms.c.taxonomy.in_(names) if len(names) > 1 else terms.c.taxonomy == (names or [taxonomy.name])[0]]
    include = [int(i) for i in query.include]
    slugs = [sanitize_title(str(s)) for s in query.slugs]
    if include:
        conditions.append(terms.c.id.in_(include))
    elif query.exclude:
        conditions.append(terms.c.id.notin_([int(i) for i in query.exclude]))
    if slugs:
        conditions.append(terms.c.slug.in_(slugs))
    if query.search:
        conditions.append(textsearch.contains(conn, (terms.c.name, terms.c.slug), query.search))
    if query.parent is not None:
        conditions.append(terms.c.parent == int(query.parent))
    if query.object_id is not None:
        conditions.append(terms.c.id.in_(sa.select(term_links.c.term_id).where(term_links.c.object_id == int(query.object_id))))
    if query.hide_empty:
        if taxonomy.hierarchical:
            # An empty term stays when one of its descendants is used: keep the used terms and
            # every ancestor of theirs.
            used = terms.alias("used")
            keep = sa.select(used.c.id, used.c.parent).where(used.c.taxonomy == taxonomy.name, used.c.count > 0)
            keep_cte = keep.cte("kept", recursive=True)
            up = terms.alias("up")
            keep_cte = keep_cte.union(
                sa.select(up.c.id, up.c.parent).join(keep_cte, up.c.id == keep_cte.c.parent).where(up.c.taxonomy == taxonomy.name)
            )
            conditions.append(terms.c.id.in_(sa.select(keep_cte.c.id)))
        else:
            conditions.append(terms.c.count > 0)
    return conditions, slugs


def _ordering(conn: sa.Connection, query: TermQuery, slugs: list[str]) -> list[Any]:
    descending = str(query.order).lower() == "desc"
    orderby = str(query.orderby or "name").lower()
    include = [int(i) for i in query.include]
    if orderby == "none":
        return [terms.c.id]
    if orderby == "include" and include:
        key: Any = sa.case({term_id: index for index, term_id in enumerate(include)}, value=terms.c.id, else_=len(include))
    elif orderby in ("include_slugs", "slug__in") and slugs:
        key = sa.case({slug: index for index, slug in enumerate(slugs)}, value=terms.c.slug, else_=len(slugs))
    elif orderby in ("id", "term_id", "term_group"):
        key = terms.c.id
    elif orderby == "slug":
        key = terms.c.slug
    elif orderby == "count":
        key = terms.c.count
    elif orderby == "parent":
        key = terms.c.parent
    elif orderby == "description":
        key = _folded(conn, terms.c.description)
    else:
        key = _folded(conn, terms.c.name)
    tie = terms.c.id.desc() if descending else terms.c.id.asc()
    return [key.desc() if descending else key.asc(), tie]


def query_terms(conn: sa.Connection, registry: ContentRegistry, query: TermQuery) -> tuple[list[Term], int]:
    """One page of terms and the number of terms matching without paging (two queries)."""
    taxonomy = _taxonomy_or_error(registry, query.taxonomy)
    pay_term_counts(conn)
    conditions, slugs = _conditions(conn, query, taxonomy)
    total = conn.execute(sa.select(sa.func.count()).select_from(terms).where(*conditions)).scalar_one()
    if query.limit is not None and (query.limit <= 0 or query.offset >= total):
        return [], total
    stmt = sa.select(*_COLUMNS).where(*conditions).order_by(*_ordering(conn, query, slugs))
    if query.limit is not None:
        stmt = stmt.limit(query.limit)
    if query.offset:
        stmt = stmt.offset(row_offset(query.offset))
    return [_term(row) for row in conn.execute(stmt)], total


# -- writing --------------------------------------------------------------------------------------

_ENTITY_START = re.compile(r"&(?!(?:[A-Za-z][A-Za-z0-9]{0,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});)")

# The tags and attributes the reference allows in term descriptions (kses "pre_term_description").
_DESCRIPTION_TAGS = {"a", "abbr", "acronym", "b", "blockquote", "cite", "code", "del", "em", "i", "q", "s", "strike", "strong"}
_DESCRIPTION_ATTRIBUTES = {
    "a": {"href", "title", "rel", "target"},
    "abbr": {"title"},
    "acronym": {"title"},
    "blockquote": {"cite"},
    "del": {"datetime"},
    "q": {"cite"},
}
_PROTOCOLS = {
    "http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs", "gopher", "nntp", "feed",
    "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp", "webcal", "urn",
}


def clean_term_name(name: str) -> str:
    """A term name as the reference stores it: text only (tags and line breaks removed,
    trimmed), with ``&``, ``<`` and ``>`` written as entities (``"A & B"`` -> ``"A &amp; B"``)."""
    text = sanitize_text_field(name)
    text = _ENTITY_START.sub("&amp;", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def clean_term_description(description: str) -> str:
    """A term description with only the reference's allowed inline tags and attributes left."""
    text = str(description or "")
    if not text:
        return ""
    return nh3.clean(
        text,
        tags=_DESCRIPTION_TAGS,
        attributes=_DESCRIPTION_ATTRIBUTES,
        url_schemes=_PROTOCOLS,
        link_rel=None,
        strip_comments=True,
    )


def _php_empty(text: str | None) -> bool:
    # The reference tests slugs with PHP's empty(), for which "0" is empty too.
    return text is None or text in ("", "0")


def _slug_taken(conn: sa.Connection, taxonomy: str, slug: str, exclude_id: int | None = None) -> bool:
    stmt = sa.select(terms.c.id).where(terms.c.taxonomy == taxonomy, terms.c.slug == slug)
    if exclude_id is not None:
        stmt = stmt.where(terms.c.id != exclude_id)
    return conn.execute(stmt.limit(1)).first() is not None


def unique_term_slug(conn: sa.Connection, taxonomy: Taxonomy, slug: str, parent: int = 0, exclude_id: int | None = None) -> str:
    """``slug`` made unique in its taxonomy: a child first tries its ancestors' slugs appended
    (``jazz-music``), then ``-2``, ``-3``... (the reference's wp_unique_term_slug)."""
    if not _slug_taken(conn, taxonomy.name, slug):
        return slug
    if taxonomy.hierarchical and parent:
        suffix = ""
        ancestor = get_term(conn, parent, taxonomy.name)
        seen: set[int] = set()
        while ancestor is not None and ancestor.id not in seen:
            seen.add(ancestor.id)
            suffix += f"-{ancestor.slug}"
            if not _slug_taken(conn, taxonomy.name, slug + suffix) or not ancestor.parent:
                break
            ancestor = get_term(conn, ancestor.parent, taxonomy.name)
        slug += suffix
    return unique_slug(slug, lambda candidate: _slug_taken(conn, taxonomy.name, candidate, exclude_id))


def _check_parent(conn: sa.Connection, taxonomy: Taxonomy, parent: int | None) -> int | None:
    """The parent id to store (0 for none), or raise the reference's errors."""
    if parent is None:
        return None
    if not taxonomy.hierarchical:
        raise TermError("rest_taxonomy_not_hierarchical", "Cannot set parent term, taxonomy is not hierarchical.", status=400)
    parent = int(parent)
    if parent == 0:
        return 0
    if get_term(conn, parent, taxonomy.name) is None:
        raise TermError("rest_term_invalid", "Parent term does not exist.", status=400)
    return parent


def _empty_name() -> TermError:
    return TermError("empty_term_name", "A name is required for this term.")


def _existing_by_name(conn: sa.Connection, taxonomy: Taxonomy, name: str, slug: str, slug_provided: bool, parent: int) -> None:
    """Raise ``term_exists`` when ``name`` is already used at this level (the reference's rule)."""
    lowered = sa.func.lower(terms.c.name) == sa.func.lower(sa.literal(name))
    candidates = conn.execute(
        sa.select(*_COLUMNS).where(terms.c.taxonomy == taxonomy.name, terms.c.parent == parent, lowered).order_by(terms.c.id)
    ).all()
    # Names compare without ASCII case, as the reference's strtolower comparison.
    name_match = next((_term(row) for row in candidates if _ascii_fold(row.name) == _ascii_fold(name)), None)
    if name_match is None:
        return
    slug_match = get_term_by_slug(conn, taxonomy.name, slug)
    if slug_provided and name_match.slug != slug and slug_match is None:
        return  # a distinct slug was asked for explicitly: the name may repeat
    if not taxonomy.hierarchical:
        raise TermError(
            "term_exists", "A term with the name provided already exists in this taxonomy.", status=400, term_id=name_match.id
        )
    existing: Term | None = None
    same_name = any(row.name == name for row in candidates)
    if (not slug_provided or name_match.slug == slug) and same_name:
        existing = name_match
    elif slug_match is not None and slug_match.parent == parent:
        existing = slug_match
    if existing is not None:
        raise TermError(
            "term_exists", "A term with the name provided already exists with this parent.", status=400, term_id=existing.id
        )


def _ascii_fold(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def create_term(
    conn: sa.Connection,
    taxonomy: Taxonomy,
    name: str,
    *,
    slug: str = "",
    description: str = "",
    parent: int | None = None,
) -> Term:
    """Insert a term (the reference's wp_insert_term). Raises TermError: parent errors (400),
    ``empty_term_name``, ``term_exists`` (400, ``data.term_id`` names the existing term)."""
    ensure_default_category(conn)
    parent_id = _check_parent(conn, taxonomy, parent) or 0
    clean_name = clean_term_name(name)
    if not clean_name.strip():
        raise _empty_name()
    slug_provided = not _php_empty(slug)
    wanted_slug = sanitize_title(slug) if slug_provided else sanitize_title(clean_name)
    _existing_by_name(conn, taxonomy, clean_name, wanted_slug, slug_provided, parent_id)
    final_slug = unique_term_slug(conn, taxonomy, wanted_slug, parent_id) if wanted_slug else ""
    values = {
        "taxonomy": taxonomy.name,
        "name": clean_name,
        "slug": final_slug,
        "description": clean_term_description(description),
        "parent": parent_id,
        "count": 0,
        "meta": {},
    }
    term_id = conn.execute(sa.insert(terms).values(**values).returning(terms.c.id)).scalar_one()
    record_change(conn, "term", "create", term_id)
    if not final_slug:
        # A name with nothing left for a slug (say "!!!") gets its id as slug, as in the reference.
        values["slug"] = str(term_id)
        conn.execute(sa.update(terms).where(terms.c.id == term_id).values(slug=values["slug"]))
    return Term(id=term_id, **values)


def _would_loop(conn: sa.Connection, term_id: int, parent: int, taxonomy: str) -> bool:
    seen: set[int] = set()
    current: int = parent
    while current and current not in seen:
        if current == term_id:
            return True
        seen.add(current)
        row = conn.execute(sa.select(terms.c.parent).where(terms.c.id == current, terms.c.taxonomy == taxonomy)).first()
        current = row.parent if row else 0
    return False


def update_term(
    conn: sa.Connection,
    taxonomy: Taxonomy,
    term: Term,
    *,
    name: str | None = None,
    slug: str | None = None,
    description: str | None = None,
    parent: int | None = None,
) -> Term:
    """Change the given fields of ``term`` (the reference's wp_update_term). A parent that would
    make a cycle (the term itself, or one of its descendants) is stored as 0, as the reference
    does. Raises TermError: parent errors (400), ``empty_term_name``, ``duplicate_term_slug``."""
    new_parent = _check_parent(conn, taxonomy, parent)
    new_name = term.name if name is None else clean_term_name(name)
    if not new_name.strip():
        raise _empty_name()
    if new_parent is None:
        new_parent = term.parent
    elif new_parent and (new_parent == term.id or _would_loop(conn, term.id, new_parent, term.taxonomy)):
        new_parent = 0
    empty_slug = slug is not None and _php_empty(sanitize_title(slug))
    new_slug = term.slug if slug is None else sanitize_title(slug)
    if empty_slug:
        new_slug = sanitize_title(new_name)
    if new_slug and _slug_taken(conn, term.taxonomy, new_slug, exclude_id=term.id):
        if empty_slug or new_parent != term.parent:
            new_slug = unique_term_slug(conn, taxonomy, new_slug, new_parent, exclude_id=term.id)
        else:
            raise TermError("duplicate_term_slug", f"The slug &#8220;{new_slug}&#8221; is already in use by another term.")
    if not new_slug:
        new_slug = str(term.id)
    values = {
        "name": new_name,
        "slug": new_slug,
        "description": term.description if description is None else clean_term_description(description),
        "parent": new_parent,
    }
    # Events embed their terms: cached event answers must see the change.
    record_change(conn, "term", "update", term.id)
    conn.execute(sa.update(terms).where(terms.c.id == term.id).values(**values))
    return Term(id=term.id, taxonomy=term.taxonomy, count=term.count, meta=dict(term.meta), **values)


def delete_term(conn: sa.Connection, registry: ContentRegistry, term: Term, *, default_id: int = DEFAULT_CATEGORY_ID) -> None:
    """Delete ``term``: its children move up to its parent, its links go, the registry's delete
    hooks run (menu entries pointing at it go), and content left without a category gets the
    default category. The default category itself cannot go."""
    definition = _taxonomy_or_error(registry, term.taxonomy)
    if is_default_category(term, default_id):
        raise TermError("rest_cannot_delete", "The term cannot be deleted.", status=500)
    record_change(conn, "term", "delete", term.id)
    if definition.hierarchical:
        conn.execute(
            sa.update(terms).where(terms.c.taxonomy == term.taxonomy, terms.c.parent == term.id).values(parent=term.parent)
        )
    object_ids = conn.execute(sa.select(term_links.c.object_id).where(term_links.c.term_id == term.id)).scalars().all()
    conn.execute(sa.delete(term_links).where(term_links.c.term_id == term.id))
    conn.execute(sa.delete(terms).where(terms.c.id == term.id))
    for hook in registry.delete_hooks:
        hook(conn, registry, "taxonomy", term.id, term.taxonomy)
    if term.taxonomy == "category" and object_ids and get_term(conn, default_id, "category") is not None:
        still_filed = sa.select(term_links.c.object_id).join(terms, terms.c.id == term_links.c.term_id).where(
            terms.c.taxonomy == "category", term_links.c.object_id.in_(object_ids)
        )
        filed = set(conn.execute(still_filed).scalars().all())
        orphans = [object_id for object_id in object_ids if object_id not in filed]
        if orphans:
            conn.execute(sa.insert(term_links), [{"object_id": o, "term_id": default_id, "position": 0} for o in orphans])
            object_terms.recount(conn, registry, [default_id])


# -- the default category -------------------------------------------------------------------------


def is_default_category(term: Any, default_id: int | None) -> bool:
    """Whether ``term`` is the site's default category (``default_category`` option, else id 1)."""
    return getattr(term, "taxonomy", "") == "category" and int(getattr(term, "id", 0)) == (default_id or DEFAULT_CATEGORY_ID)


# Engines whose database is known to hold the default category (it cannot be deleted, so once
# seen it stays). Weak, so that engines of finished tests or reconfigured sites can go.
_DEFAULT_SEEN: weakref.WeakSet[sa.Engine] = weakref.WeakSet()


def default_category_known(engine: sa.Engine) -> bool:
    """Whether ``ensure_default_category`` has already found the default category there."""
    return engine in _DEFAULT_SEEN


def ensure_default_category(conn: sa.Connection, default_id: int = DEFAULT_CATEGORY_ID) -> int | None:
    """The id of the default category, created as ``Uncategorized`` with id ``default_id`` when
    the database has none yet (a fresh site), as the reference's installer does. None when that
    id is held by a term of another taxonomy. Run it before the first term is written, so that
    ``Uncategorized`` gets id 1."""
    engine = conn.engine
    if engine in _DEFAULT_SEEN:
        return default_id
    row = conn.execute(sa.select(terms.c.taxonomy).where(terms.c.id == default_id)).first()
    if row is not None:
        if row.taxonomy != "category":
            return None
        _DEFAULT_SEEN.add(engine)  # committed by someone before us: it stays
        return default_id
    values = {
        "id": default_id,
        "taxonomy": "category",
        "name": DEFAULT_CATEGORY_NAME,
        "slug": "uncategorized",
        "description": "",
        "parent": 0,
        "count": 0,
        "meta": {},
    }
    # Two processes may get here at once: the loser's insert does nothing.
    if conn.dialect.name == "postgresql":
        conn.execute(pg_dialect.insert(terms).values(**values).on_conflict_do_nothing())
        # An id given explicitly does not move the id sequence: move it past the default.
        conn.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('terms', 'id'), GREATEST(:id, "
                "COALESCE(pg_sequence_last_value(pg_get_serial_sequence('terms', 'id')::regclass), 0), "
                "(SELECT COALESCE(MAX(id), 0) FROM terms)))"
            ),
            {"id": default_id},
        )
    else:
        conn.execute(sqlite_dialect.insert(terms).values(**values).on_conflict_do_nothing())
    row = conn.execute(sa.select(terms.c.taxonomy).where(terms.c.id == default_id)).first()
    return default_id if row is not None and row.taxonomy == "category" else None


# -- links between content and terms --------------------------------------------------------------


def get_object_terms(
    conn: sa.Connection, object_ids: Iterable[int], taxonomies: Iterable[str]
) -> dict[int, dict[str, list[Term]]]:
    """The terms of each object, per taxonomy, for a whole page of objects in ONE query.

    Every requested object and taxonomy has an entry (empty lists when unlinked); terms come in
    name order, as the reference lists an item's terms.
    """
    ids = sorted({int(i) for i in object_ids})
    names = list(dict.fromkeys(taxonomies))
    result: dict[int, dict[str, list[Term]]] = {object_id: {name: [] for name in names} for object_id in ids}
    if not ids or not names:
        return result
    params = {**bind_list("object", ids), **bind_list("taxonomy", names)}
    statement = _OBJECT_TERMS(conn.dialect.name, padded_size(len(ids)), padded_size(len(names)))
    for row in statement.rows(conn, params):
        result[row.object_id][row.taxonomy].append(_term(row))
    return result


# The terms of a page of objects, per dialect (the name ordering) and number of ids and taxonomies bound.
_OBJECT_TERMS = Shapes(lambda dialect, objects, taxonomies: (
    sa.select(term_links.c.object_id, *_COLUMNS)
    .join(terms, terms.c.id == term_links.c.term_id)
    .where(in_binds(term_links.c.object_id, "object", objects), in_binds(terms.c.taxonomy, "taxonomy", taxonomies))
    .order_by(term_links.c.object_id, _folded_for(dialect, terms.c.name), terms.c.id)
))
