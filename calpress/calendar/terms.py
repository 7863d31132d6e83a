"""Event categories and tags as the ``cal/events/v1`` namespace shows and finds them
(calendar-api.md 2.4).

Two shapes exist in the reference, both finished by its ``prepare_term_data`` step: (a) the raw
term record events embed (:func:`embedded_term`), and (b) the generic term representation of the
``/categories`` and ``/tags`` routes, built in :mod:`calpress.api.cal_terms`. Both carry the same
``urls`` (:func:`term_urls`). Nothing here queries the database except the look-ups at the end,
so a page of events can embed any number of terms at no further cost.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from ..content import terms as tax_store
from ..content.terms import Term
from ..store.tables import posts
from .definitions import CATEGORY_TAXONOMY, EVENT_TYPE

__all__ = ["TERM_BASES", "embedded_term", "event_exists", "find_term", "term_urls"]

# The route base of each taxonomy under cal/events/v1; anything else is shown as a category,
# as the reference's namespace map falls back to its first entry.
TERM_BASES = {CATEGORY_TAXONOMY: "categories", "post_tag": "tags"}
_DIGITS = re.compile(r"\d+")


# Builds the URL of a named route of the REST layer: url("cal.categories.item", id=5).
RouteUrl = Callable[..., str]


def term_urls(term: Term, url: RouteUrl) -> dict[str, str]:
    """``self``, ``collection`` and, for a child term, ``up``: the term's routes under
    ``cal/events/v1`` (``url`` builds a named route's URL)."""
    route = f"cal.{TERM_BASES.get(term.taxonomy, 'categories')}"
    urls = {"self": url(f"{route}.item", id=term.id), "collection": url(route)}
    if term.parent:
        urls["up"] = url(f"{route}.item", id=term.parent)
    return urls


def embedded_term(term: Term, url: RouteUrl) -> dict[str, Any]:
    """A term as events embed it (shape a): the raw term record plus ``urls``. Terms have no
    groups, and a term's taxonomy entry shares its id, as in a fresh reference install."""
    return {
        "name": term.name,
        "slug": term.slug,
        "term_group": 0,
        "term_taxonomy_id": term.id,
        "taxonomy": term.taxonomy,
        "description": term.description,
        "parent": term.parent,
        "count": term.count,
        "filter": "raw",
        "id": term.id,
        "urls": term_urls(term, url),
    }


# -- look-ups -------------------------------------------------------------------------------------


def find_term(conn: sa.Connection, taxonomy: str, value: Any) -> Term | None:
    """A term of ``taxonomy`` given as the reference's ``term_exists`` takes it: a number is an
    id and nothing else (a tag whose slug is ``"5"`` is not term 5); text is a slug, then a name."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and _DIGITS.fullmatch(value.strip())):
        return tax_store.get_term(conn, int(value), taxonomy)
    return tax_store.find_term(conn, taxonomy, value) if isinstance(value, str) else None


def event_exists(conn: sa.Connection, value: Any) -> bool:
    """Whether ``value`` (an integer or a string of digits) is the id of a calendar event, in
    any status (the reference's ``is_event_id``)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value.strip()):
            return False
        value = int(value)
    if not isinstance(value, int) or value <= 0:
        return False
    row = conn.execute(sa.select(posts.c.type).where(posts.c.id == value)).first()
    return row is not None and row.type == EVENT_TYPE
