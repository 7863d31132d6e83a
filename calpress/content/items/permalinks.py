"""The addresses of items and the slugs they are built from: ``permalink`` (the public address),
``sample_permalink`` (the edit screen's template), and slugs made unique per type as the reference's
wp_unique_post_slug does.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa

from ...store.db import advisory_key, advisory_xact_lock
from ...store.fast import FastQuery, Shapes
from ...store.tables import posts
from ..slugs import sanitize_title, unique_slug
from ..types import ContentType
from .record import Context, Item

SLUGLESS_STATUSES = frozenset({"draft", "pending", "auto-draft"})
# Slugs that would shadow the reference's feed and embed endpoints.
RESERVED_SLUGS = frozenset({"feed", "rdf", "rss", "rss2", "atom", "embed"})
MAX_SLUG = 200


# -- addresses ------------------------------------------------------------------------------------


def plain_link_forced(ctx: Context, item: Item, *, sample: bool = False) -> bool:
    """The reference's wp_force_plain_post_permalink: only viewable (published) items, private
    items the requester may read, and samples of protected ones get pretty links."""
    status = ctx.registry.statuses.get(item.status)
    if status is None or item.type not in ctx.registry.types:
        return True
    if status.public:
        return False
    if status.private and ctx.can("read_post", item):
        return False
    return not (status.protected and sample)


def _fill_structure(ctx: Context, item: Item, structure: str, slug: str) -> str:
    """``structure`` with its tokens replaced by the item's values (only those it holds are worked out)."""
    if "%" not in structure:
        return structure
    for token, value_of in _STRUCTURE_TOKENS.items():
        if token in structure:
            structure = structure.replace(token, value_of(item, slug))
    return structure


# The permalink structure's tokens and their values for an item and its slug. Categories and
# authors in permalinks would need a query per item; calpress sites use the default category's
# slug and the author id instead.
_STRUCTURE_TOKENS: dict[str, Callable[[Item, str], str]] = {
    "%year%": lambda item, slug: f"{item.date_local.year:04d}",
    "%monthnum%": lambda item, slug: f"{item.date_local.month:02d}",
    "%day%": lambda item, slug: f"{item.date_local.day:02d}",
    "%hour%": lambda item, slug: f"{item.date_local.hour:02d}",
    "%minute%": lambda item, slug: f"{item.date_local.minute:02d}",
    "%second%": lambda item, slug: f"{item.date_local.second:02d}",
    "%postname%": lambda item, slug: slug,
    "%post_id%": lambda item, slug: str(item.id),
    "%category%": lambda item, slug: "uncategorized",
    "%author%": lambda item, slug: str(item.author),
}


def _trailing(url_path: str, slashed: bool) -> str:
    return url_path.rstrip("/") + "/" if slashed else url_path.rstrip("/")


def permalink(
    ctx: Context, item: Item, *, uri: str | None = None, leavename: bool = False, sample: bool = False
) -> str:
    """The item's public address (cms-api.md 2.5): ``{home}/{slug}/`` style when published and
    pretty permalinks are on, the ``?p=``/``?page_id=`` form otherwise. ``uri`` is the page path
    of a hierarchical item (``page_uris``); ``leavename`` keeps the ``%postname%`` /
    ``%pagename%`` token (permalink templates)."""
    home = ctx.home.rstrip("/")
    content_type = ctx.registry.types.get(item.type)
    structure = ctx.permalink_structure
    forced_plain = plain_link_forced(ctx, item, sample=sample)
    if item.type == "page":
        if (
            not leavename
            and not sample
            and ctx.options.get("show_on_front") == "page"
            and int(ctx.options.get("page_on_front") or 0) == item.id
        ):
            return home + "/"
        if structure and (not forced_plain or sample):
            path = "%pagename%" if leavename else (uri if uri is not None else item.slug)
            return home + "/" + _trailing(path, structure.endswith("/"))
        return f"{home}/?page_id={item.id}"
    if item.type == "attachment":
        # The reference's get_attachment_link: an unattached file has its page at /{name}/ under
        # pretty permalinks. Kept in the ?attachment_id= form: attached files (the reference puts
        # them under their parent's address) and the names the reference puts under attachment/
        # (a number, a %category% structure), which public.resolve does not read back.
        if structure and not item.parent and not leavename and not sample and item.slug:
            if not item.slug.isdigit() and "%category%" not in structure:
                return home + "/" + _trailing(item.slug, structure.endswith("/"))
        return f"{home}/?attachment_id={item.id}"
    if content_type is not None and not content_type.builtin:
        slug = uri if (content_type.hierarchical and uri is not None) else item.slug
        if structure and content_type.permastruct and (not forced_plain or sample):
            path = content_type.permastruct if leavename else content_type.permastruct.replace(f"%{item.type}%", slug)
            return home + "/" + _trailing(path, structure.endswith("/"))
        if not forced_plain:
            return f"{home}/?{item.type}={slug}"
        return f"{home}/?post_type={item.type}&p={item.id}"
    if structure and not forced_plain:
        path = _fill_structure(ctx, item, structure, "%postname%" if leavename else item.slug)
        return home + "/" + path.lstrip("/")
    return f"{home}/?p={item.id}"


def sample_permalink(ctx: Context, item: Item, *, generated: str, uri: str | None = None) -> tuple[str, str]:
    """``permalink_template`` and ``generated_slug`` (the reference's get_sample_permalink with
    the title as the name): the address with its name token, and the unique slug the title
    gives (``generated``, from ``generated_slugs``)."""
    status = "publish" if item.status in ("auto-draft", "draft", "pending", "future") else item.status
    content_type = ctx.registry.types[item.type]
    sample = Item(**{**item.__dict__, "status": status, "slug": generated})
    template = permalink(ctx, sample, leavename=True, sample=True)
    if content_type.hierarchical and uri and "/" in uri:
        template = template.replace("%pagename%", f"{uri.rsplit('/', 1)[0]}/%pagename%")
    if not content_type.builtin:
        template = template.replace(f"%{item.type}%", "%pagename%")
    return template, generated


def generated_slugs(conn: sa.Connection, ctx: Context, content_type: ContentType, found: Sequence[Item]) -> dict[int, str]:
    """The slug each item's title would get if it were published now (``generated_slug``),
    for a whole page of items in one query."""
    bases = {item.id: sanitize_title(item.title, str(item.id)) for item in found}
    taken = taken_slugs(conn, content_type, bases.values())
    return {
        item.id: _unique_among(ctx, content_type, bases[item.id], item.id, item.parent, taken, item.slug) for item in found
    }


# -- slugs ----------------------------------------------------------------------------------------


def _slug_is_bad(ctx: Context, content_type: ContentType, slug: str, current_slug: str) -> bool:
    if slug in RESERVED_SLUGS:
        return True
    if content_type.hierarchical:
        # Would look like a paged URL.
        return re.fullmatch(r"(page)?\d+", slug) is not None
    if content_type.name == "post" and slug != current_slug and slug.isdigit() and int(slug):
        # Would look like a date archive: /2024/ or /2024/05/ under the permalink structure.
        parts = [p for p in ctx.permalink_structure.split("/") if p]
        if "%postname%" in parts:
            index = parts.index("%postname%")
            number = int(slug)
            if index == 0:
                return True
            if parts[index - 1] == "%year%" and number < 13:
                return True
            if parts[index - 1] == "%monthnum%" and number < 32:
                return True
    return False


def taken_slugs(conn: sa.Connection, content_type: ContentType, bases: Iterable[str]) -> list[tuple[int, int, str]]:
    """(id, parent, slug) of the items whose slugs a new slug made from ``bases`` could clash
    with: the bases themselves and their ``-N`` variants, within the type's slug namespace
    (hierarchical types share theirs with attachments; attachments with everything)."""
    wanted = sorted({base for base in bases if base})
    if not wanted:
        return []
    known = _known_slugs(conn, content_type)
    if known is not None and all(base in known.found for base in wanted):
        return known.taken(conn, wanted)
    types = _namespace(content_type)
    return list({entry[0]: entry for base in wanted for entry in _read_taken(conn, base, types)}.values())


def _read_taken(conn: sa.Connection, base: str, types: list[str]) -> list[tuple[int, int, str]]:
    """(id, parent, slug) of the items of ``types`` (every type when empty) whose slug is ``base``
    or ``base-*``. The slugs are read whatever their type and the type is checked here
    (:func:`_taken_query` says why)."""
    rows = _taken_query(conn.dialect.name).rows(conn, {"slug": base, "low": base + "-", "high": base + "."})
    return [(row.id, row.parent, row.slug) for row in rows if not types or row.type in types]


def _namespace(content_type: ContentType) -> list[str]:
    """The types whose slugs a new slug of ``content_type`` must not repeat (none: every type)."""
    if content_type.name == "attachment":
        return []
    return [content_type.name, "attachment"] if content_type.hierarchical else [content_type.name]


_KNOWN_SLUGS = "calpress_known_slugs"


class _KnownSlugs:
    """The slugs of one type that new slugs made from some bases could clash with, as far as
    they matter: a base that is free is used as it is (wp_unique_post_slug tries ``-2``, ``-3``...
    only once the base is taken), so a base's ``-N`` range is read only once the base is taken."""

    def __init__(self, type_name: str, found: dict[str, list[tuple[int, int, str]]]) -> None:
        self.type_name = type_name
        self.found = found
        self.ranged: set[str] = set()

    def taken(self, conn: sa.Connection, bases: Sequence[str]) -> list[tuple[int, int, str]]:
        for base in bases:
            if base not in self.ranged and any(entry[2] == base for entry in self.found[base]):
                read = _read_taken(conn, base, [self.type_name])
                self.found[base] = list({entry[0]: entry for entry in [*self.found[base], *read]}.values())
                self.ranged.add(base)
        return list({entry[0]: entry for base in bases for entry in self.found[base]}.values())

    def file(self, entry: tuple[int, int, str]) -> None:
        slug = entry[2]
        for base in (slug, *(slug[:i] for i in range(len(slug)) if slug[i] == "-")):
            if base in self.found and (base == slug or base in self.ranged):
                self.found[base].append(entry)


@contextlib.contextmanager
def slugs_known(conn: sa.Connection, content_type: ContentType, bases: Iterable[str]) -> Iterator[None]:
    """Within the block, which of ``bases`` are taken as slugs of ``content_type`` is read once,
    up front (the type's slug lock taken first, so nobody else gives one meanwhile), and the slugs
    saves give are added as they are given (:func:`remember_slug`): a batch of fifty new events
    asks once instead of fifty times (a taken base's ``-N`` range is read when first needed).
    Other bases are read as usual. Only for types whose slugs no other type shares (not
    hierarchical, not attachments)."""
    wanted = sorted({base for base in bases if base})
    if content_type.hierarchical or content_type.name == "attachment" or not wanted:
        yield
        return
    lock_slugs(conn, content_type)
    found: dict[str, list[tuple[int, int, str]]] = {base: [] for base in wanted}
    slug = _slug_bytes(conn.dialect.name)
    for start in range(0, len(wanted), 500):
        # By slug alone, the type checked here (as _taken_query, which says why).
        rows = conn.execute(sa.select(posts.c.id, posts.c.parent, posts.c.slug, posts.c.type)
                            .where(slug.in_(wanted[start:start + 500])))
        for row in rows:
            if row.type == content_type.name:
                found[row.slug].append((row.id, row.parent, row.slug))
    outer = conn.info.get(_KNOWN_SLUGS)
    conn.info[_KNOWN_SLUGS] = _KnownSlugs(content_type.name, found)
    try:
        yield
    finally:
        conn.info[_KNOWN_SLUGS] = outer


def _known_slugs(conn: sa.Connection, content_type: ContentType) -> _KnownSlugs | None:
    found = conn.info.get(_KNOWN_SLUGS)
    return found if found is not None and found.type_name == content_type.name else None


def remember_slug(conn: sa.Connection, item: Item) -> None:
    """A save gave ``item`` its slug: inside :func:`slugs_known`, later saves see it taken."""
    found = conn.info.get(_KNOWN_SLUGS)
    if found is not None and found.type_name == item.type and item.slug:
        found.file((item.id, item.parent, item.slug))


def _slug_bytes(dialect: str) -> Any:
    """``posts.slug`` compared byte by byte, as its index ``ix_posts_slug_bytes`` (migration 0007)
    orders it: SQLite compares bytes already; PostgreSQL is told ``COLLATE "C"``."""
    return posts.c.slug if dialect == "sqlite" else posts.c.slug.collate("C")


@functools.cache
def _taken_query(dialect: str) -> FastQuery:
    """``taken_slugs``' query for one base, built once per dialect, run on the driver: through
    SQLAlchemy's execution it took ten times as long as in the database, inside the write
    transaction (on SQLite, the site's one writer's time).

    ``base-*`` is a byte range rather than LIKE, which neither database serves from an index here
    (SQLite's LIKE folds case; PostgreSQL's needs a pattern index): every slug that starts with
    ``base-`` sorts between ``base-`` and ``base.`` ("." follows "-"). One SELECT per condition,
    joined by UNION ALL: under an OR, SQLite would read the whole type instead.

    The conditions name the slug alone, so that the slug index is the only one either database
    can use: with the type among them, PostgreSQL planned from statistics taken while the table
    was small (before its next ANALYZE) read every item of the type through the type's index,
    and checked each slug (bench/workload.py: 2 ms a post create once the site had 5,000 posts,
    against 0.03 ms from the slug index). Rows of other types sharing a base are few and are
    dropped by the caller."""
    slug = _slug_bytes(dialect)
    text = posts.c.slug.type
    conditions = (slug == sa.bindparam("slug", type_=text),
                  sa.and_(slug >= sa.bindparam("low", type_=text), slug < sa.bindparam("high", type_=text)))
    return FastQuery(sa.union_all(*(sa.select(posts.c.id, posts.c.parent, posts.c.slug, posts.c.type).where(condition)
                                    for condition in conditions)))


def _unique_among(
    ctx: Context,
    content_type: ContentType,
    slug: str,
    item_id: int,
    parent: int,
    taken: Sequence[tuple[int, int, str]],
    current_slug: str,
) -> str:
    hierarchical = content_type.hierarchical and content_type.name != "attachment"
    used = {s for (other, other_parent, s) in taken if other != item_id and (not hierarchical or other_parent == parent)}
    return unique_slug(
        slug,
        lambda candidate: candidate in used or _slug_is_bad(ctx, content_type, candidate, current_slug),
        max_length=MAX_SLUG,
    )


def unique_item_slug(
    conn: sa.Connection,
    ctx: Context,
    content_type: ContentType,
    slug: str,
    *,
    item_id: int,
    parent: int,
    status: str,
    current_slug: str = "",
) -> str:
    """``slug`` made unique: per type (among siblings for hierarchical types, which also share
    the namespace of attachments), ``-2``, ``-3``... appended; drafts keep theirs as given (the
    reference's wp_unique_post_slug). One query fetches every slug the suffixes could clash with."""
    if status in SLUGLESS_STATUSES or not slug:
        return slug
    lock_slugs(conn, content_type, slug)
    taken = taken_slugs(conn, content_type, [slug])
    return _unique_among(ctx, content_type, slug, item_id, parent, taken, current_slug)


def lock_slugs(conn: sa.Connection, content_type: ContentType, base: str | None = None) -> None:
    """Serialise slug choices across PostgreSQL workers until the transaction ends (two
    concurrent saves would otherwise both find ``hello`` free). SQLite's single writer
    serialises them already.

    ``base`` given: only the choices that could meet the one made from ``base``, so that saves
    of unrelated titles run side by side. A slug made from ``base`` is ``base`` or ``base-N``,
    so the slugs made from two bases can only meet when the bases are equal or one is the other
    with ``-N`` added (``hello`` and ``hello-2``; not ``post-5`` and ``post-6``). A save takes
    its base's lock, and shared the lock of its base without its last ``-N`` and the type's
    lock: ``hello-2`` then waits for ``hello`` and ``hello-2-3``, not for ``hello-3``. ``base``
    None (or one so long that ``-N`` may cut it short): every choice of the type, with the
    type's lock exclusive (a batch reading many slugs at once, slugs_known). Each save takes its
    locks shortest first, in one statement. Measured with bench/workload.py (16 writers creating
    posts on 2 workers), one lock for the whole type held every save of a type in line from its
    slug check to its commit."""
    if conn.dialect.name != "postgresql":
        return
    # The keys name the schema too (advisory_key), or sites (and test runs) sharing a database
    # would wait on, and deadlock with, each other's saves.
    space = f"slug:{content_type.name}"
    type_key = advisory_key(conn, space)
    # Held until the transaction ends, or released at once if the savepoint that took it is rolled
    # back: taken again only when the (sub)transaction that took it is no longer active, so a
    # batch of saves in one transaction asks once. Entries: key -> (taker, exclusive).
    held: dict[Any, tuple[Any, bool]] = conn.info.setdefault(_SLUG_LOCKS, {})

    def holds(key: Any, exclusive: bool) -> bool:
        taker = held.get(key)
        return taker is not None and taker[0].is_active and (taker[1] or not exclusive)

    taker = conn.get_nested_transaction() or conn.get_transaction()
    if holds(type_key, True):
        return
    if not base or len(base) > _KEYED_MAX:
        advisory_xact_lock(conn, type_key)
        held[type_key] = (taker, True)
        return
    wanted: list[tuple[Any, bool]] = [(type_key, False)]
    shorter = _LAST_NUMBER.sub("", base)
    if shorter != base:
        wanted.append((_slug_key(conn, space, shorter), False))
    wanted.append((_slug_key(conn, space, base), True))
    missing = [(key, exclusive) for key, exclusive in wanted if not holds(key, exclusive)]
    if not missing:
        return
    params: dict[str, int] = {}
    for n, (key, _exclusive) in enumerate(missing):
        if key == type_key:
            params[f"k{n}"] = key
        else:
            params[f"k{n}a"], params[f"k{n}b"] = key
    _LOCKS(*((key == type_key, exclusive) for key, exclusive in missing)).rows(conn, params)
    for key, exclusive in missing:
        held[key] = (taker, exclusive)


# A base this long may be cut short to make room for its ``-N`` (unique_slug's max_length): such
# saves take the type's lock.
_KEYED_MAX = 150
_LAST_NUMBER = re.compile(r"-[0-9]+$")


def _locks_statement(*shape: tuple[bool, bool]) -> Any:
    """``SELECT pg_advisory_xact_lock[_shared](...), ...`` for locks of these kinds ((the type's
    one-number key or a slug's two numbers, exclusive), in order), run on the driver."""
    calls = []
    for n, (whole_type, exclusive) in enumerate(shape):
        mode = "" if exclusive else "_shared"
        calls.append(f"pg_advisory_xact_lock{mode}(:k{n})" if whole_type else f"pg_advisory_xact_lock{mode}(:k{n}a, :k{n}b)")
    return sa.text("SELECT " + ", ".join(f"{call} IS NULL AS l{n}" for n, call in enumerate(calls))).columns(
        *(sa.column(f"l{n}", sa.Boolean) for n in range(len(calls))))


_LOCKS = Shapes(_locks_statement)


def _slug_key(conn: sa.Connection, space: str, slug: str) -> tuple[int, int]:
    """The advisory lock key of one slug of a type, in the two-number form (apart from the
    type's one-number key): its 64-bit key as two signed 32-bit numbers."""
    key = advisory_key(conn, f"{space}:{slug}")
    return key >> 32, int.from_bytes((key & 0xFFFFFFFF).to_bytes(4, "big"), "big", signed=True)


_SLUG_LOCKS = "calpress_slug_locks"
