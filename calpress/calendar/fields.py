"""The fields of venues and organizers, in one table per type.

A venue or organizer is an item whose attributes live in ``posts.meta`` under the reference's
meta keys (so ``cms/v2`` shows the same records). Each row below says everything the code base
knows about one attribute: its name on the wire (write argument and representation key), its meta
key, its kind, the descriptions of its write argument and of its ``/doc`` schema property, and the
rules that read it (duplicate detection, the listing's ``search``, the JSON-LD address). The meta
registration (:mod:`.definitions`), the write arguments (``api/cal_linked.py``), the ``/doc``
schemas (``api/cal_doc.py``), the representations (:mod:`.represent`), the input service
(:mod:`.input`), duplicate detection and the linked search (:mod:`.events`, :mod:`.listing`) all
read these tables.

Rows are in the order of the representation and the ``/doc`` schema. The reference lists the
write arguments and the meta keys in orders of their own; ``arg_rank`` and ``meta_rank`` move a
row to the front (``FIRST``) or the back (``LAST``) of those lists, the others keep table order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..compat.formatting import is_email, is_safe_url
from .definitions import ORGANIZER_TYPE, VENUE_TYPE
from .values import linked_entries

# Kinds of field: free text, a URL (written as empty or a URL, documented as a URI), a flag (a
# boolean, written as any string and read as truthy), a coordinate (stored by geocoding, read-only).
TEXT, URL, FLAG, GEO = "text", "url", "flag", "geo"
# Duplicate detection: equal case-insensitively, or containing every word given (an address).
EXACT, WORDS = "exact", "words"
FIRST, LAST = -1, 1

_US_NAMES = frozenset({"", "us", "usa", "united states", "united states of america"})


def derived_stateprovince(values: dict[str, str]) -> str:
    """A venue's ``stateprovince`` when none is given: the state in the US (or without a
    country), else the province."""
    state = values.get("state") or ""
    if state and (values.get("country") or "").strip().lower() in _US_NAMES:
        return state
    return values.get("province") or ""


def email_or_empty(value: str) -> bool:
    """An organizer e-mail as written: empty (none), or an address WordPress's ``is_email()``
    takes, the rule of The Events Calendar's own REST API (tribe-common's
    ``TEC\\Common\\REST\\TEC\\V1\\Parameter_Types\\Email``): no spaces, no line breaks, no
    control characters, a dotted domain."""
    return value == "" or is_email(value)


@dataclass(frozen=True)
class LinkedField:
    """One attribute of a venue or organizer."""

    name: str
    meta_key: str
    kind: str = TEXT
    description: str = ""  # the write argument's; "" when the field is not written through REST
    schema: str = ""  # the /doc schema property's; "" when not documented
    duplicate: str | None = None  # EXACT or WORDS when duplicate detection compares it
    search: bool = False  # whether the listing's ``search`` looks in it
    ld: str | None = None  # the schema.org PostalAddress key it fills in a venue's JSON-LD
    derive: Callable[[dict[str, str]], str] | None = None  # its value when a write gives it empty or not at all
    check: Callable[[str], bool] | None = None  # the rule a value written must pass (the organizer e-mail's)
    arg_rank: int = 0
    meta_rank: int = 0

    @property
    def meta_type(self) -> str:
        return "boolean" if self.kind == FLAG else "string"

    @property
    def writable(self) -> bool:
        return bool(self.description)


@dataclass(frozen=True)
class LinkedKind:
    """One linked type: its wire name (``venue``: the name argument, the answer's name key, the
    event's argument that links it), its content type and its fields."""

    name: str
    content_type: str
    fields: tuple[LinkedField, ...]

    def __post_init__(self) -> None:
        # of_kind's answers, kept on the (frozen) instance: representations ask on every row.
        object.__setattr__(self, "_kinds", {})

    def of_kind(self, *kinds: str) -> tuple[LinkedField, ...]:
        found = self._kinds.get(kinds)  # type: ignore[attr-defined]
        if found is None:
            found = self._kinds[kinds] = tuple(f for f in self.fields if f.kind in kinds)  # type: ignore[attr-defined]
        return found

    @property
    def values(self) -> tuple[LinkedField, ...]:
        """The text and URL fields: the attributes given and shown as strings."""
        return self.of_kind(TEXT, URL)

    @property
    def arguments(self) -> tuple[LinkedField, ...]:
        """The writable fields in the order of the write arguments."""
        return tuple(sorted((f for f in self.fields if f.writable), key=lambda f: f.arg_rank))

    @property
    def meta(self) -> tuple[LinkedField, ...]:
        """Every field in the order the meta keys are registered."""
        return tuple(sorted(self.fields, key=lambda f: f.meta_rank))

    @property
    def documented(self) -> tuple[LinkedField, ...]:
        return tuple(f for f in self.fields if f.schema)

    @property
    def flags(self) -> tuple[LinkedField, ...]:
        return self.of_kind(FLAG)

    @property
    def address_parts(self) -> dict[str, LinkedField]:
        """The fields of a JSON-LD PostalAddress, by its keys."""
        return {f.ld: f for f in self.fields if f.ld}

    @property
    def duplicates(self) -> dict[str, LinkedField]:
        return {f.name: f for f in self.fields if f.duplicate}

    @property
    def searched(self) -> tuple[LinkedField, ...]:
        return tuple(f for f in self.fields if f.search)


VENUE = LinkedKind("venue", VENUE_TYPE, (
    LinkedField("address", "_VenueAddress", description="The venue address", schema="The venue address",
                duplicate=WORDS, search=True, ld="streetAddress"),
    LinkedField("city", "_VenueCity", description="The venue city", schema="The venue city",
                duplicate=EXACT, search=True, ld="addressLocality"),
    LinkedField("country", "_VenueCountry", description="The venue country", schema="The venue country",
                ld="addressCountry"),
    LinkedField("province", "_VenueProvince", description="The venue province", schema="The venue province",
                duplicate=EXACT, search=True),
    LinkedField("state", "_VenueState", description="The venue state", schema="The venue state",
                duplicate=EXACT, search=True),
    LinkedField("zip", "_VenueZip", description="The venue zip", schema="The venue ZIP code",
                duplicate=EXACT, search=True, ld="postalCode"),
    LinkedField("phone", "_VenuePhone", description="The venue phone", schema="The venue phone number",
                duplicate=EXACT, search=True),
    LinkedField("website", "_VenueURL", URL, "The venue website URL", "The venue website URL", arg_rank=LAST),
    LinkedField("stateprovince", "_VenueStateProvince", description="The venue stateprovince",
                schema="The venue state or province", duplicate=EXACT, search=True, ld="addressRegion",
                derive=derived_stateprovince),
    LinkedField("geo_lat", "_VenueLat", GEO),
    LinkedField("geo_lng", "_VenueLng", GEO),
    LinkedField("show_map", "_VenueShowMap", FLAG, "Whether events linked to the venue should show a map",
                "Whether the map should be shown for the venue or not", arg_rank=FIRST),
    LinkedField("show_map_link", "_VenueShowMapLink", FLAG, "Whether events linked to the venue should show a map link",
                "Whether the map link should be shown for the venue or not", arg_rank=FIRST),
))

ORGANIZER = LinkedKind("organizer", ORGANIZER_TYPE, (
    LinkedField("phone", "_OrganizerPhone", description="The organizer phone number", schema="The organizer phone number",
                duplicate=EXACT, search=True),
    LinkedField("website", "_OrganizerWebsite", URL, "The organizer website", "The organizer website",
                duplicate=EXACT, search=True),
    LinkedField("email", "_OrganizerEmail", description="The organizer e-mail address", schema="The organizer e-mail address",
                duplicate=EXACT, search=True, meta_rank=FIRST, check=email_or_empty),
))

KINDS: dict[str, LinkedKind] = {VENUE.content_type: VENUE, ORGANIZER.content_type: ORGANIZER}


def kind_of(content_type: str) -> LinkedKind:
    return KINDS[content_type]


def meta_registrations() -> dict[str, dict[str, Any]]:
    """The venue and organizer meta keys the calendar registers, organizers first (the
    reference's order). A URL key refuses a link the site does not allow (``javascript:``...)
    when written through ``meta``, a key with a ``check`` (the e-mail) what that refuses."""
    return {f.meta_key: {"type": f.meta_type, **({"validate": is_safe_url} if f.kind == URL else {}),
                         **({"validate": f.check} if f.check is not None else {})}
            for kind in (ORGANIZER, VENUE) for f in kind.meta}


def safe_fields(content_type: str, data: Any) -> bool:
    """Whether every URL field of a venue or organizer given as data (a mapping, on its own
    route or inline on an event) is a link the site allows (:func:`calpress.compat.formatting.is_safe_url`)."""
    if not isinstance(data, dict):
        return True
    return all(is_safe_url(data[f.name]) for f in kind_of(content_type).of_kind(URL)
               if isinstance(data.get(f.name), str))


def safe_links(content_type: str, value: Any) -> bool:
    """:func:`safe_fields` for every new venue or organizer in a value given on an event (ids and
    ``{"id": N}`` objects link existing records and are not looked at)."""
    return all(safe_fields(content_type, entry) for entry in linked_entries(value)
               if isinstance(entry, dict) and "id" not in entry)


def invalid_field(content_type: str, data: Any) -> LinkedField | None:
    """The first field of a venue or organizer given as data (a mapping) whose text value its
    ``check`` refuses (an organizer e-mail that is no address), else None."""
    if not isinstance(data, dict):
        return None
    for f in kind_of(content_type).fields:
        value = data.get(f.name)
        if f.check is not None and isinstance(value, str) and not f.check(value):
            return f
    return None
