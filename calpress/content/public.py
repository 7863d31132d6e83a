"""Public addresses read back: which content a path and query string of the site name.

``resolve(conn, ctx, path, query)`` is the reverse of ``items.permalink``, ``terms.term_link`` and
the ``/author/{nicename}/`` links: ``/2024/05/06/hello/`` or ``/?p=12`` names an item,
``/category/news/page/2/`` the second page of a term archive, ``/`` the front page, and ``None``
means the address names nothing (the caller answers 404). Whether the requester may see what is
named (its status, its password) is the caller's question, not this module's.

It reads an address in the three steps of the reference's front end:

1. The path is matched against rewrite rules built as WP_Rewrite builds them, in its order: the
   extra permastructs first (taxonomy archives under ``category_base``, ``tag_base`` or the
   taxonomy's rewrite slug, then custom types by their permastruct), then ``page/N`` of the home,
   ``search/…``, ``author/…``, the date archives, then the page rule (``parent/child``) and the
   rules of ``permalink_structure``: the whole structure names an item, and each of its leading
   directories is an archive (``/%category%/`` a category). Pages come before posts when the
   structure starts with %postname%, %category%, %tag% or %author% (the reference's "verbose page
   rules"), and then a path only matches the page rule when such a page exists; otherwise the
   page rule comes last and catches what is left. The first rule that matches decides, as in
   WP::parse_request. Items of the post structure are posts (WP_Query's default type). An empty
   ``permalink_structure`` means plain links only: no rules (but see term and author links below).
2. The public query vars of the query string are laid over what the path gave (the query string
   wins, as in WP::parse_request), and a custom type's query var (``?{type}=slug``) becomes
   ``post_type`` and ``name``.
3. The vars are read as WP_Query::parse_query reads them: a single item (``attachment``,
   ``attachment_id``, ``name``, ``p``, ``pagename``, ``page_id``) before a search, before a term
   archive (``cat``, ``category_name``, ``tag``, ``tag_id``, a taxonomy's query var,
   ``taxonomy`` + ``term``), before an author archive (``author``, ``author_name``), before the home
   page. A single item must also match the date parts and the author the address gives (the
   reference's date and author clauses); the category part of ``/%category%/%postname%/`` is not
   checked (the reference ignores taxonomy vars for a single item).

On purpose, unlike the reference:

* ``p``, ``page_id`` and ``attachment_id`` name an item of any public type (the reference finds
  only a post, a page, an attachment, then redirects the others there: redirect_canonical).
* A ``%author%`` part of a post address may give the author's id, which is what ``permalink``
  writes, as well as the nicename the reference expects.
* Malformed numbers (``?p=abc``, ``?paged=-1``), lists of ids (``?cat=1,2``), a ``post_type`` or a
  taxonomy that is not publicly queryable answer None where the reference would cast, drop the
  var or show the home page. Lists of term slugs (``?tag=a,b``) name their first term.
* No front prefix: taxonomy and author archives are under ``/category/`` and ``/author/`` whatever
  the structure's static start, as ``term_link`` writes them (the reference puts ``/archives/``
  of ``/archives/%post_id%`` before them). And since ``term_link`` and the author links write
  paths under plain links too, those two kinds of path are read then as well (the reference has
  no rules at all without a structure).
* Not resolved (None): date archives, post type archives, feeds, embeds, trackbacks, comment
  pages, attachment pages under their post (``/post/attachment/name/``), and the calendar's own
  views under ``/events/``, which another module answers. Page paths name pages (and items of
  other hierarchical types); a one-segment page path also names an unattached attachment
  (``/poster/``, as ``permalink`` writes it) when no page has it. Embed pages are read by the
  pages module, which strips ``embed/`` first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, unquote_plus

import sqlalchemy as sa

from ..store.tables import INT64_MAX, posts, terms, users
from .items import HIERARCHY_LIMIT, Context, Item, get_item, get_items
from .slugs import sanitize_title, utf8_uri_encode
from .taxonomies import Taxonomy

# The first path segments whose addresses other modules answer (the calendar's views).
OTHER_VIEWS = frozenset({"events"})
MAX_PATH = 16384  # longer paths name nothing (200-character slugs, 64 levels deep fit)
MAX_SEARCH = 1600  # the reference's bound: a longer search is an empty one
MAX_SLUG = 200
_CANDIDATES = 20  # items sharing one slug looked at (drafts may share a published item's slug)

# Query vars the reference answers with something this module does not resolve.
_UNSUPPORTED = ("feed", "tb", "embed", "robots", "favicon", "sitemap", "w")
_DATE_VARS = {"year": "year", "monthnum": "month", "day": "day", "hour": "hour", "minute": "minute", "second": "second"}
# year, month and day are unset when 0 (absint), the time parts are not (the reference's parse_query).
_ZERO_IS_UNSET = frozenset({"year", "monthnum", "day"})

_NUMBER = re.compile(r"[0-9]{1,19}")
_VERBOSE = re.compile(r"^[^%]*%(?:postname|category|tag|author)%")
_TOKEN_SPLIT = re.compile(r"(%[^%/]+%)")
_ANY_TOKEN = re.compile(r"%.+?%")
_DATE_ENDIANS = ("%year%/%monthnum%/%day%", "%day%/%monthnum%/%year%", "%monthnum%/%day%/%year%")
_TIME_TOKENS = frozenset({"%year%", "%monthnum%", "%day%", "%hour%", "%minute%", "%second%"})
_ITEM_TOKENS = frozenset({"%postname%", "%post_id%", "%pagename%"})

# Rewrite tags: the pattern a token matches and the query var it fills (WP_Rewrite's rewritecode).
_TOKENS: dict[str, tuple[str, str]] = {
    "%year%": ("([0-9]{4})", "year"),
    "%monthnum%": ("([0-9]{1,2})", "monthnum"),
    "%day%": ("([0-9]{1,2})", "day"),
    "%hour%": ("([0-9]{1,2})", "hour"),
    "%minute%": ("([0-9]{1,2})", "minute"),
    "%second%": ("([0-9]{1,2})", "second"),
    "%postname%": ("([^/]+)", "name"),
    "%post_id%": ("([0-9]+)", "p"),
    "%author%": ("([^/]+)", "author_name"),
    "%category%": ("(.+?)", "category_name"),
    "%pagename%": ("(.?.+?)", "pagename"),
    "%search%": ("(.+)", "s"),
}
_ROOT_PAGED = re.compile(r"page/?([0-9]{1,})/?$")


@dataclass(frozen=True)
class Target:
    """What an address names. ``kind``: ``item`` (``item_id``), ``term`` (``taxonomy``,
    ``term_id``), ``author`` (``user_id``), ``search`` (``search``, the words as given) or
    ``front`` (the home page: the static front page or the latest posts, as the site shows it).
    ``page``: the archive page (``/page/N/``, ``?paged=N``) or the content page of an item
    (``/slug/N/``, ``?page=N``), 1 when none is given. The ``page_on_front`` and
    ``page_for_posts`` pages are items when named by their id or path; the caller tells them apart
    by the site options (the reference turns them into the home)."""

    kind: str
    item_id: int = 0
    taxonomy: str = ""
    term_id: int = 0
    user_id: int = 0
    search: str = ""
    page: int = 1


class _Invalid(Exception):
    """The address is malformed: it names nothing."""


def resolve(conn: sa.Connection, ctx: Context, path: str, query: Mapping[str, Any]) -> Target | None:
    """What the public address ``path?query`` names, or None (nothing: the caller answers 404).

    ``path`` is the URL path without the site's own path prefix (``/hello/``), percent-encoded or
    not; ``query`` the parsed query string (str values; a list stands for a repeated name, the
    last one counts). At most a few indexed queries; never raises on any input."""
    lookup = _Lookup(conn, ctx)
    try:
        from_path = _path_vars(lookup, path)
        if from_path is None:
            return None
        raw = {**from_path, **_query_vars(query)}
        if any(_text(raw, name) for name in _UNSUPPORTED):
            return None
        return _answer(lookup, _read(ctx, raw))
    except _Invalid:
        return None


# -- the path: rewrite rules ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    """One rewrite rule. ``kind``: ``vars`` (the groups are query vars), ``date`` (a date archive,
    not served here) or ``page`` (a verbose page rule: it only matches an existing page)."""

    pattern: re.Pattern[str]
    names: tuple[str, ...]
    fixed: tuple[tuple[str, str], ...] = ()
    kind: str = "vars"


def _path_vars(lookup: _Lookup, path: Any) -> dict[str, str] | None:
    """The query vars the path gives ({} for the home), or None when no rule matches it."""
    if not isinstance(path, str) or len(path) > MAX_PATH:
        return None
    trimmed = path.strip("/")
    if trimmed in ("", "index.php"):
        return {}
    if trimmed.split("/", 1)[0] in OTHER_VIEWS:
        return None
    for rule in _rules(lookup.ctx):
        found = rule.pattern.match(trimmed)
        if found is None:
            continue
        if rule.kind == "date":
            return None
        values = {name: value for name, value in zip(rule.names, found.groups(), strict=True) if value is not None}
        if rule.kind == "page" and not lookup.page_claims(values.get("pagename", "")):
            continue
        if "s" in values:
            values["s"] = unquote_plus(values["s"], errors="replace")
        return {**dict(rule.fixed), **values}
    return None


def _rules(ctx: Context) -> list[_Rule]:
    """The rewrite rules of the site, in the reference's order (WP_Rewrite::rewrite_rules)."""
    structure = ctx.permalink_structure
    authors = _struct_rules("author/%author%", _TOKENS)
    if not structure:
        # Plain links, but term and author links are written as paths whatever the structure.
        return [*_taxonomy_rules(ctx), *authors]
    rules = [*_taxonomy_rules(ctx), *_type_rules(ctx), _Rule(_ROOT_PAGED, ("paged",))]
    rules += [*_struct_rules("search/%search%", _TOKENS), *authors]
    rules += _struct_rules(_date_structure(structure), _TOKENS, kind="date")
    verbose = _VERBOSE.match(structure) is not None
    pages = _struct_rules("%pagename%", _TOKENS, walk_dirs=False, kind="page" if verbose else "vars")
    # The post structure names posts only (the reference's default post type of a single item).
    items = _struct_rules(structure, _TOKENS, fixed=(("post_type", "post"),))
    return [*rules, *pages, *items] if verbose else [*rules, *items, *pages]


def _struct_rules(
    struct: str,
    tokens: Mapping[str, tuple[str, str]],
    *,
    walk_dirs: bool = True,
    kind: str = "vars",
    fixed: tuple[tuple[str, str], ...] = (),
    item_tokens: frozenset[str] = _ITEM_TOKENS,
) -> list[_Rule]:
    """The rules of one permastruct (WP_Rewrite::generate_rewrite_rules): the whole structure
    and, with ``walk_dirs``, each leading directory of it, longest first. A directory naming an
    item takes a content page (``/N``); an archive directory a ``page/N``."""
    dirs = struct.strip("/").split("/")
    counts = range(len(dirs), 0, -1) if walk_dirs else [len(dirs)]
    rules: list[_Rule] = []
    for count in counts:
        prefix = "/".join(dirs[:count])
        pattern, names = _compile(prefix, tokens)
        if not names:
            continue
        used = set(_ANY_TOKEN.findall(prefix))
        if used & item_tokens or _TIME_TOKENS <= used:
            rules.append(_rule(pattern + r"(?:/([0-9]+))?/?$", (*names, "page"), fixed, kind))
        else:
            rules.append(_rule(pattern + r"/page/?([0-9]{1,})/?$", (*names, "paged"), fixed, kind))
            rules.append(_rule(pattern + r"/?$", names, fixed, kind))
    return rules


def _rule(pattern: str, names: tuple[str, ...], fixed: tuple[tuple[str, str], ...], kind: str) -> _Rule:
    return _Rule(re.compile(pattern), names, fixed, kind)


def _compile(struct: str, tokens: Mapping[str, tuple[str, str]]) -> tuple[str, tuple[str, ...]]:
    """The regular expression of a structure and the query vars of its groups; unknown tokens
    are literal text."""
    pattern: list[str] = []
    names: list[str] = []
    for part in _TOKEN_SPLIT.split(struct):
        if part in tokens:
            group, name = tokens[part]
            pattern.append(group)
            names.append(name)
        else:
            pattern.append(re.escape(part))
    return "".join(pattern), tuple(names)


def _taxonomy_rules(ctx: Context) -> list[_Rule]:
    """Term archives: ``{base}/{slug}`` (``{base}/{parent}/{child}`` when the rewrite is
    hierarchical) for each publicly queryable taxonomy with a rewrite slug."""
    rules: list[_Rule] = []
    for taxonomy in ctx.registry.taxonomies.values():
        if not taxonomy.rewrite_slug or not taxonomy.publicly_queryable:
            continue
        token = f"%{taxonomy.name}%"
        group = "(.+?)" if taxonomy.rewrite_hierarchical else "([^/]+)"
        var, fixed = (taxonomy.query_var, ()) if taxonomy.query_var else ("term", (("taxonomy", taxonomy.name),))
        rules += _struct_rules(f"{_taxonomy_base(ctx, taxonomy)}/{token}", {token: (group, var)}, fixed=fixed)
    return rules


def _taxonomy_base(ctx: Context, taxonomy: Taxonomy) -> str:
    """The path before a taxonomy's terms: the ``category_base`` / ``tag_base`` option when set."""
    option = {"category": "category_base", "post_tag": "tag_base"}.get(taxonomy.name)
    value = str(ctx.options.get(option) or "") if option else ""
    base = "/".join(part for part in value.split("/") if part)
    return base or str(taxonomy.rewrite_slug)


def _type_rules(ctx: Context) -> list[_Rule]:
    """Items of custom types by their permastruct (``venue/%{type}%``)."""
    rules: list[_Rule] = []
    for content_type in ctx.registry.types.values():
        if content_type.builtin or not content_type.permastruct or not content_type.viewable:
            continue
        token = f"%{content_type.name}%"
        group = "(.+?)" if content_type.hierarchical else "([^/]+)"
        rules += _struct_rules(
            content_type.permastruct, {token: (group, content_type.name)}, item_tokens=frozenset({token})
        )
    return rules


def _date_structure(structure: str) -> str:
    """Where the date archives are (WP_Rewrite::get_date_permastruct): after the structure's static
    start, under ``date/`` when the post id would clash with a year."""
    start = structure.find("%")
    front = structure[:start] if start >= 0 else ""
    if "%post_id%" in _ANY_TOKEN.findall(structure)[:3]:
        front += "date/"
    endian = next((e for e in _DATE_ENDIANS if e in structure), _DATE_ENDIANS[0])
    return front + endian


# -- the query vars -------------------------------------------------------------------------------


def _query_vars(query: Any) -> dict[str, Any]:
    if not isinstance(query, Mapping):
        return {}
    return {key: value for key, value in query.items() if isinstance(key, str)}


def _text(raw: Mapping[str, Any], name: str, *, strip: bool = True) -> str:
    """A var as text, "" when absent; a list stands for a repeated name (the last counts);
    anything else that is not text or a number is malformed."""
    value = raw.get(name)
    if value is None:
        return ""
    if isinstance(value, (list, tuple)) and value:
        value = value[-1]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _Invalid
    text = str(value).replace("\x00", "")
    return text.strip() if strip else text


def _number(text: str) -> int:
    if not _NUMBER.fullmatch(text) or int(text) > INT64_MAX:
        raise _Invalid
    return int(text)


def _number_var(raw: Mapping[str, Any], name: str) -> int:
    """A numeric var: 0 when absent or empty; malformed (not a plain number) raises ``_Invalid``."""
    text = _text(raw, name)
    return _number(text) if text else 0


@dataclass
class _TermAsk:
    taxonomy: str
    term_id: int = 0
    slug: str = ""


@dataclass
class _Query:
    """The vars as WP_Query reads them."""

    ids: tuple[int, ...] = ()
    slug: str = ""
    pagename: str = ""
    post_type: str = ""
    search: str | None = None
    dates: dict[str, int] = field(default_factory=dict)
    m: str = ""
    page: int = 0
    paged: int = 0
    author: int = 0
    author_name: str = ""
    term: _TermAsk | None = None

    @property
    def singular(self) -> bool:
        return bool(self.ids or self.slug or self.pagename)


def _read(ctx: Context, raw: Mapping[str, Any]) -> _Query:
    query = _Query(
        ids=tuple(n for n in (_number_var(raw, key) for key in ("attachment_id", "p", "page_id")) if n),
        pagename=_text(raw, "pagename").strip("/"),
        page=_number_var(raw, "page"),
        paged=_number_var(raw, "paged"),
        author=_number_var(raw, "author"),
        author_name=_text(raw, "author_name"),
        m=_text(raw, "m"),
        term=_term_ask(ctx, raw),
    )
    if query.m and not _NUMBER.fullmatch(query.m):
        raise _Invalid
    _read_item_name(ctx, raw, query)
    _read_dates(raw, query)
    if "s" in raw:
        search = _text(raw, "s", strip=False).replace("\r", "").replace("\n", "")
        query.search = search if len(search.encode("utf-8", "surrogatepass")) <= MAX_SEARCH else ""
    return query


def _read_item_name(ctx: Context, raw: Mapping[str, Any], query: _Query) -> None:
    """``post_type`` and the slug: a custom type's own var, ``attachment`` or ``name``."""
    query.post_type = _text(raw, "post_type").lower()
    for content_type in ctx.registry.types.values():
        if not content_type.builtin and content_type.viewable and _text(raw, content_type.name):
            query.post_type, query.slug = content_type.name, _text(raw, content_type.name)
            break
    else:
        if _text(raw, "attachment"):
            query.post_type, query.slug = "attachment", _text(raw, "attachment")
        else:
            query.slug = _text(raw, "name")
    if query.post_type and not _public_type(ctx, query.post_type):
        raise _Invalid


def _read_dates(raw: Mapping[str, Any], query: _Query) -> None:
    for name in _DATE_VARS:
        text = _text(raw, name)
        if not text:
            continue
        value = _number(text)
        if value or name not in _ZERO_IS_UNSET:
            query.dates[name] = value


def _term_ask(ctx: Context, raw: Mapping[str, Any]) -> _TermAsk | None:
    """The term an archive address asks for, in the order the reference picks its queried object:
    ``cat``, the taxonomies' query vars (``category_name``, ``tag``...), ``tag_id``, ``taxonomy``
    with ``term``."""
    cat = _number_var(raw, "cat")
    if cat:
        return _TermAsk("category", term_id=cat)
    for taxonomy in ctx.registry.taxonomies.values():
        value = _text(raw, taxonomy.query_var) if taxonomy.query_var else ""
        if value:
            return _TermAsk(taxonomy.name, slug=_first_slug(taxonomy, value))
    tag_id = _number_var(raw, "tag_id")
    if tag_id:
        return _TermAsk("post_tag", term_id=tag_id)
    name, term = _text(raw, "taxonomy"), _text(raw, "term")
    if name and term:
        taxonomy = ctx.registry.taxonomies.get(name)
        if taxonomy is None:
            raise _Invalid
        return _TermAsk(name, slug=_first_slug(taxonomy, term))
    return None


def _first_slug(taxonomy: Taxonomy, value: str) -> str:
    """The first of a list of slugs (``a,b``, ``a+b``; spaces too for tags), the last part of a
    path when the taxonomy's addresses nest (wp_basename)."""
    separators = r"[,+\s]+" if taxonomy.name == "post_tag" else r"[,+]+"
    first = next((part for part in re.split(separators, value) if part.strip()), "")
    if taxonomy.rewrite_hierarchical:
        first = first.rstrip("/").rsplit("/", 1)[-1]
    return first.strip()


def _public_type(ctx: Context, name: str) -> bool:
    content_type = ctx.registry.types.get(name)
    return content_type is not None and content_type.viewable


# -- answering ------------------------------------------------------------------------------------


def _answer(lookup: _Lookup, query: _Query) -> Target | None:
    """WP_Query::parse_query's choice: a single item, a search, a term, an author, the home."""
    if query.singular:
        return lookup.single(query)
    number = max(query.paged or query.page, 1)
    if query.search is not None:
        return Target("search", search=query.search, page=number)
    if query.term is not None:
        return lookup.term(query.term, number)
    if query.author or query.author_name:
        return lookup.author(query, number)
    if query.dates or query.m or query.post_type not in ("", "post"):
        return None  # date and post type archives are not resolved here
    return Target("front", page=number)


def _slug_variants(text: str) -> set[str]:
    """The stored slugs ``text`` may stand for: percent-encoded or not, accents kept (the
    reference's query-context sanitize_title) or transliterated (its save context)."""
    decoded = text
    if "%" in text:
        try:
            decoded = unquote(text, errors="strict")
        except UnicodeDecodeError:
            decoded = text
    found = {sanitize_title(decoded), sanitize_title(utf8_uri_encode(decoded))}
    return {slug for slug in found if slug and len(slug) <= MAX_SLUG}


def _parts(path: str) -> list[set[str]] | None:
    """The slug variants of each segment of a page path, or None when one has none."""
    segments = path.strip("/").split("/")
    if len(segments) > HIERARCHY_LIMIT:
        return None
    parts = [_slug_variants(segment) for segment in segments]
    return parts if all(parts) else None


class _Lookup:
    """The database reads of one resolution (page paths are remembered: the verbose page rule
    and the answer ask for the same one)."""

    def __init__(self, conn: sa.Connection, ctx: Context) -> None:
        self.conn = conn
        self.ctx = ctx
        self._paths: dict[tuple[str, str], list[Item]] = {}

    # -- items --

    def _rank(self, item: Item) -> tuple[int, int]:
        """Published items first, then the others, internal statuses (trash...) last; newest first."""
        status = self.ctx.registry.statuses.get(item.status)
        level = 2 if status is None or status.internal else (0 if item.status == "publish" else 1)
        return level, -item.id

    def page_claims(self, path: str) -> bool:
        """Whether a page has this path and a status that lets it claim the address (the
        reference's verbose page rule check: not an internal status)."""
        for item in self.by_path("page", path):
            status = self.ctx.registry.statuses.get(item.status)
            # An attachment's "inherit" is internal but not excluded from search: it claims too.
            if status is not None and (not status.internal or item.status == "inherit"):
                return True
        return False

    def by_path(self, type_name: str, path: str) -> list[Item]:
        """Items of a hierarchical type at ``parent/child`` (the reference's get_page_by_path):
        one query for every item bearing one of the slugs, the ancestry checked here."""
        key = (type_name, path)
        if key not in self._paths:
            self._paths[key] = self._find_path(type_name, path)
        return self._paths[key]

    def _find_path(self, type_name: str, path: str) -> list[Item]:
        parts = _parts(path)
        if parts is None:
            return []
        wanted = sorted(set().union(*parts))
        # Unattached media live at page paths too (the reference's get_page_by_path looks for
        # attachments beside the type asked for, which comes first).
        types = [type_name] if len(parts) > 1 else [type_name, "attachment"]
        stmt = sa.select(posts.c.id, posts.c.parent, posts.c.slug, posts.c.type).where(
            posts.c.type.in_(types), posts.c.slug.in_(wanted)
        )
        rows = {row.id: row for row in self.conn.execute(stmt)}
        hits = [row.id for row in rows.values() if _ancestry_matches(row, rows, parts)]
        found = get_items(self.conn, hits)
        return sorted(found.values(), key=lambda item: (item.type != type_name, *self._rank(item)))

    def by_slug(self, type_name: str, slug: str) -> list[Item]:
        """Items of a type with this slug, the likeliest first."""
        slug = slug.strip("/")
        variants = _slug_variants(slug) if "/" not in slug else set()
        if not variants:
            return []
        stmt = sa.select(posts).where(posts.c.type == type_name, posts.c.slug.in_(sorted(variants))).limit(_CANDIDATES)
        return sorted((Item.from_row(row) for row in self.conn.execute(stmt)), key=self._rank)

    def _by_name(self, query: _Query) -> list[Item]:
        if query.slug:
            type_name = query.post_type or "post"
            content_type = self.ctx.registry.types.get(type_name)
            if content_type is not None and content_type.hierarchical:
                return self.by_path(type_name, query.slug)
            return self.by_slug(type_name, query.slug)
        content_type = self.ctx.registry.types.get(query.post_type)
        type_name = query.post_type if content_type is not None and content_type.hierarchical else "page"
        return self.by_path(type_name, query.pagename)

    def single(self, query: _Query) -> Target | None:
        """The item the vars name: by id, by slug or path, or both (then both must agree)."""
        found: Item | None = None
        if query.ids:
            if len(set(query.ids)) > 1:
                return None
            found = get_item(self.conn, query.ids[0])
            if found is None:
                return None
        if query.slug or query.pagename:
            named = [item for item in self._by_name(query) if self._fits(item, query)]
            if found is not None and found.id not in {item.id for item in named}:
                return None
            found = found or (named[0] if named else None)
        if found is None or not self._fits(found, query):
            return None
        return Target("item", item_id=found.id, page=max(query.page or query.paged, 1))

    def _fits(self, item: Item, query: _Query) -> bool:
        """Whether the item is of a public type (the one asked for) with the date and author asked."""
        if not _public_type(self.ctx, item.type) or (query.post_type and item.type != query.post_type):
            return False
        local = item.date_local
        if any(getattr(local, _DATE_VARS[name]) != value for name, value in query.dates.items()):
            return False
        if query.m and not local.strftime("%Y%m%d%H%M%S").startswith(query.m):
            return False
        if query.author_name:
            return self._is_author(item, query.author_name)
        return not query.author or item.author == query.author

    def _is_author(self, item: Item, name: str) -> bool:
        """The ``%author%`` part of an item's address: its author's nicename, or (what
        ``permalink`` writes) its author's id."""
        if not item.author:
            return False
        return name == str(item.author) or self._user_by_nicename(name) == item.author

    # -- archives --

    def term(self, ask: _TermAsk, number: int) -> Target | None:
        taxonomy = self.ctx.registry.taxonomies.get(ask.taxonomy)
        if taxonomy is None or not taxonomy.publicly_queryable:
            return None
        if ask.term_id:
            condition = terms.c.id == ask.term_id
        else:
            variants = _slug_variants(ask.slug)
            if not variants:
                return None
            condition = terms.c.slug.in_(sorted(variants))
        stmt = sa.select(terms.c.id).where(terms.c.taxonomy == taxonomy.name, condition).order_by(terms.c.id).limit(1)
        term_id = self.conn.execute(stmt).scalar()
        return Target("term", taxonomy=taxonomy.name, term_id=term_id, page=number) if term_id else None

    def author(self, query: _Query, number: int) -> Target | None:
        """An author archive: ``author_name`` (its last path part) wins over ``author``."""
        if query.author_name:
            user_id = self._user_by_nicename(query.author_name.strip("/").rsplit("/", 1)[-1])
        else:
            user_id = self.conn.execute(sa.select(users.c.id).where(users.c.id == query.author)).scalar() or 0
        return Target("author", user_id=user_id, page=number) if user_id else None

    def _user_by_nicename(self, name: str) -> int:
        variants = _slug_variants(name)
        if not variants:
            return 0
        stmt = sa.select(users.c.id).where(users.c.nicename.in_(sorted(variants))).order_by(users.c.id).limit(1)
        return int(self.conn.execute(stmt).scalar() or 0)


def _ancestry_matches(row: Any, rows: Mapping[int, Any], parts: list[set[str]]) -> bool:
    """Whether ``row`` and its ancestors bear the path's slugs, the last part first, up to an
    item without a parent."""
    current = row
    for index in range(len(parts) - 1, -1, -1):
        if current is None or current.slug not in parts[index]:
            return False
        if index == 0:
            return not current.parent
        current = rows.get(current.parent)
    return False
