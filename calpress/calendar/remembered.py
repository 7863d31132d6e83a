"""Event representations kept between requests: the site's memo (store/memo.py) as the
``cal/events/v1`` answers use it, beside the builder of :mod:`.represent` whose work it keeps.

An event's representation is kept under the addresses it was built for (the site's home and the
events collection's URL) and whether it was shown alone, at the content counter the request read.
Password-protected events are never kept (what they show depends on who asks).

An event is kept with the ids of its terms, not with the terms, which are kept apart: a term's
count moves whenever any event joins or leaves it, and that should not cost every event of the
category its representation. Terms are put back in when the event is shown.

One ``RememberedEvents`` serves one request: for a listing, give :meth:`RememberedEvents.has` to
:func:`calpress.calendar.listing.list_events` (the events it knows need nothing loaded), then ask
:meth:`RememberedEvents.page`; for one event, :meth:`RememberedEvents.one`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..content import terms as term_store
from ..content.items import Context, Item
from ..rest.encoding import Kept
from ..store.memo import Memo
from . import events as cal
from .definitions import CATEGORY_TAXONOMY
from .terms import RouteUrl, embedded_term

__all__ = ["Build", "RememberedEvents"]

# Where an event's representation embeds its terms, and the taxonomy of each.
_TERM_FIELDS = (("categories", CATEGORY_TAXONOMY), ("tags", "post_tag"))

#: Builds an event's representation (``represent.Builder.event``).
Build = Callable[[Item], dict[str, Any]]


class RememberedEvents:
    """The representations of one request's events, remembered in ``memo`` at ``generation``
    (the content counter the request read; None keeps nothing). ``url`` builds the URL of a
    named REST route (the request's ``url_for``: its addresses are part of the key), ``home`` is
    the site's address for the request and ``single`` whether events are shown alone."""

    def __init__(self, memo: Memo, generation: int | None, url: RouteUrl, *, home: str, single: bool) -> None:
        self.memo = memo
        self.generation = generation
        self.url = url
        addresses = (home, url("cal.events"))
        self.prefix = ("cal.event", single, *addresses)
        self.term_prefix = ("cal.term", *addresses)
        self.found: dict[int, tuple[dict[str, Any], dict[str, list[int]]]] = {}
        self.terms: dict[int, dict[str, Any] | None] = {}

    def has(self, item_id: int) -> bool:
        """Whether the representation of event ``item_id`` is remembered (it is then taken for
        this request). A password-protected event never is: none is kept, and an event that
        got its password since it was kept is a change that made the memo forget it."""
        if self.generation is None:
            return False
        found = self.memo.get((*self.prefix, item_id), self.generation)
        if found is not None:
            self.found[item_id] = found
        return found is not None

    def page_whole(self, key: tuple[Any, ...]) -> bool:
        """Whether every event of the listing page ``key`` was remembered the last time it was
        read: its ids are then worth reading first, alone (calendar/listing.py). A hint of the
        memo's (``Memo.hinted``), on no record: a page whose events changed since finds out
        when it reads its ids."""
        return self.generation is not None and self.memo.hinted(("cal.page", *self.prefix, *key))

    def mark_page(self, key: tuple[Any, ...], whole: bool) -> None:
        """Note whether the listing page ``key`` had every event remembered (see :meth:`page_whole`)."""
        self.memo.hint(("cal.page", *self.prefix, *key), whole)

    def page(self, site: Any, ids: Sequence[int], loaded: cal.Loaded, build: Build) -> list[dict[str, Any]]:
        """The representations of a listed page's events (``ids``, in order): remembered, else
        built with ``build`` from what the listing ``loaded`` (and kept)."""
        self._resolve_terms(site)
        items = {item.id: item for item in loaded.items}
        return [self._remembered(item_id) if item_id in self.found else self._shown(items[item_id], loaded, build)
                for item_id in ids]

    def one(self, site: Any, ctx: Context, item: Item, builder_of: Callable[[cal.Loaded], Build]) -> dict[str, Any]:
        """The representation of ``item`` alone: remembered, else built (and kept) from what it
        embeds, read in one snapshot, with the ``Build`` that ``builder_of`` makes of it."""
        if not item.password and self.has(item.id):
            self._resolve_terms(site)
            return self._remembered(item.id)
        with site.read() as conn:
            loaded = cal.load_items(conn, ctx, [item])
        return self._shown(item, loaded, builder_of(loaded))

    def _resolve_terms(self, site: Any) -> None:
        """The terms the remembered events embed: remembered, else read (in one statement) and
        kept. A term no longer there (deleted since) is left out, as a rebuilt event leaves it."""
        wanted = {term_id for _, ids, _ in self.found.values() for listed in ids.values() for term_id in listed}
        missing = []
        for term_id in wanted:
            found = self.memo.get((*self.term_prefix, term_id), self.generation)
            if found is None:
                missing.append(term_id)
            self.terms[term_id] = found
        if not missing:
            return
        with site.read() as conn:
            loaded = term_store.get_terms(conn, missing)
        for term_id in missing:
            term = loaded.get(term_id)
            if term is not None:
                self.terms[term_id] = self._keep_term(term_id, embedded_term(term, self.url))

    def _keep_term(self, term_id: int, shown: dict[str, Any]) -> dict[str, Any]:
        self.memo.put((*self.term_prefix, term_id), self.generation, shown, term_store.shown_with_count(term_id))
        return shown

    def _shown(self, item: Item, loaded: cal.Loaded, build: Build) -> dict[str, Any]:
        """The representation of ``item``: remembered (terms resolved first), else built and kept."""
        if item.id in self.found:
            return self._remembered(item.id)
        data = build(item)
        if not item.password:
            terms = loaded.terms.get(item.id, {})
            term_ids = {key: [term.id for term in terms.get(taxonomy, [])] for key, taxonomy in _TERM_FIELDS}
            entry = (data, term_ids, [None])
            self.memo.put((*self.prefix, item.id), self.generation, entry, loaded.sources(item, terms=False))
            for key, _ in _TERM_FIELDS:
                for term_id, term in zip(term_ids[key], data[key], strict=True):
                    self._keep_term(term_id, term)
        return dict(data)

    def _remembered(self, item_id: int) -> dict[str, Any]:
        """A remembered event with its terms as remembered now: encoded once for the same term
        representations (``Kept``: its JSON is pasted into the answer), a copy the request may
        change at its top level."""
        data, term_ids, encoded = self.found[item_id]
        get = self.terms.get
        terms = tuple([term for term in map(get, term_ids[key]) if term is not None] for key, _ in _TERM_FIELDS)
        last = encoded[0]
        # Equal terms encode alike (the same representations, compared by identity first).
        if last is not None and last[0] == terms:
            return last[1].copy()
        shown = dict(data)  # the kept one stays as built
        for (key, _), listed in zip(_TERM_FIELDS, terms, strict=True):
            shown[key] = listed
        kept = Kept(shown)
        # Shared by the requests that find this entry: they would all store the same thing.
        encoded[0] = (terms, kept)
        return kept.copy()
