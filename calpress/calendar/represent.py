"""The cal/events/v1 representations of events, venues, organizers and their terms
(calendar-api.md section 2, shapes checked against the recorded answers in
spec/examples/calendar-*.md). Everything is built from what :func:`events.load_items` loaded,
so a page costs no statement per item.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..compat.formatting import safe_url
from ..compat.timezones import timezone_abbr
from ..content import items as item_service
from ..content import rendering
from ..content.items import Context, Item
from ..content.rendering.autop import wpautop
from ..content.rendering.texturize import wptexturize
from . import events as cal
from .fields import GEO, ORGANIZER, URL, VENUE, LinkedKind
from .terms import RouteUrl, embedded_term

# The keys of a venue's schema.org PostalAddress, in the reference's order (fields.py maps them).
_POSTAL_ADDRESS = ("streetAddress", "addressLocality", "addressRegion", "postalCode", "addressCountry")
EMPTY_COST_DETAILS = {"currency_symbol": "", "currency_position": "", "currency_code": "", "values": []}


def _shown_fields(kind: LinkedKind, item: Item) -> dict[str, str]:
    """A venue's or organizer's text and URL fields as shown: a stored URL whose scheme the site
    does not allow (``javascript:``...) shows as "", as the reference's ``esc_url()`` prints it."""
    found = {f.name: str(item.meta.get(f.meta_key) or "") for f in kind.values}
    for f in kind.of_kind(URL):
        found[f.name] = safe_url(found[f.name])
    return found


def _details_of(text: str) -> dict[str, str]:
    """The parts of a ``YYYY-MM-DD HH:MM:SS`` text (four-digit years, as PHP's Y)."""
    return {"year": text[:4], "month": text[5:7], "day": text[8:10], "hour": text[11:13], "minutes": text[14:16],
            "seconds": text[17:19]}


def _dated(data: dict[str, Any], key: str, value: dt.datetime) -> None:
    """``key`` and ``key_details`` of a date, formatted once."""
    text = cal.db_datetime(value)
    data[key] = text
    data[key + "_details"] = _details_of(text)


def _iso(value: dt.datetime, zone: dt.tzinfo) -> str:
    return value.replace(tzinfo=zone).isoformat()


def _html_block(raw: str) -> str:
    """Content or excerpt as the calendar shows it: rendered to HTML, trimmed."""
    return rendering.render_content(raw).strip() if raw else ""


def _excerpt(raw: str) -> str:
    if not raw.strip():
        return ""
    return _excerpt_cached(raw) if len(raw) < 20_000 else _render_excerpt(raw)


def _render_excerpt(raw: str) -> str:
    return wpautop(wptexturize(raw)).strip()


# A pure function of the text (as rendering's own caches): a listing shows the same excerpts again.
_excerpt_cached = functools.lru_cache(maxsize=2048)(_render_excerpt)


def _ld_text(rendered: str) -> str:
    """A description as the reference's JSON-LD carries it: HTML-escaped, newlines as ``\\n``."""
    return html.escape(rendered + "\n" if rendered else "", quote=False).replace("\n", "\\n") if rendered else ""


def obfuscated_email(email: str) -> str:
    """The address with some characters as numeric entities (as the reference's antispambot,
    but the same every time for the same address)."""
    digest = hashlib.blake2b(email.encode(), digest_size=32).digest()
    out = []
    for n, char in enumerate(email):
        if char.isalnum() or char in "@.-":
            out.append(f"&#{ord(char)};" if digest[n % len(digest)] & 1 else char)
        else:
            out.append(char)
    return "".join(out)


@dataclass
class Builder:
    """Builds representations for one request: the site context, ``url`` (builds the URL of a
    named REST route: ``url("cal.events.item", id=5)``), and what :func:`events.load_items`
    loaded (the images of the page included)."""

    ctx: Context
    url: RouteUrl
    loaded: cal.Loaded
    single: bool = False
    password: str | None = None
    can_edit: Callable[[Item], bool] | None = None
    # What several events of a page share (a venue, an organizer, a term), built once per page.
    _shared: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict, init=False, repr=False)

    def _once(self, key: tuple[Any, ...], build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A copy of what ``build`` gives, built on the first call for ``key`` (the copy keeps one
        event's answer from reaching into another's)."""
        found = self._shared.get(key)
        if found is None:
            found = self._shared[key] = build()
        return dict(found)

    # -- shared post fields --------------------------------------------------------------------

    def _post_fields(self, item: Item) -> dict[str, Any]:
        zone = self.ctx.zone
        date_utc = item_service.date_gmt(item, zone)
        return {
            "id": item.id,
            "author": str(item.author or 0),
            "status": item.status,
            "date": cal.db_datetime(item.date_local),
            "date_utc": cal.db_datetime(date_utc),
            "modified": cal.db_datetime(item.modified_local),
            "modified_utc": cal.db_datetime(item.modified_utc),
            "url": item_service.permalink(self.ctx, item),
        }

    def _global_ids(self, item: Item) -> dict[str, Any]:
        own = cal.global_id(self.ctx.home, item.id)
        lineage = [own, *[str(x) for x in (item.meta.get(cal.LINEAGE_KEY) or []) if str(x) != own]]
        return {"global_id": own, "global_id_lineage": lineage}

    def image(self, item: Item) -> Any:
        media_id = item.featured_media
        return self.loaded.images.get(media_id, False) if media_id else False

    # -- venue and organizer -------------------------------------------------------------------

    def venue(self, item: Item, *, single: bool | None = None) -> dict[str, Any]:
        single = self.single if single is None else single
        return self._once(("venue", item.id, single), lambda: self._venue(item, single))

    def _venue(self, item: Item, single: bool) -> dict[str, Any]:
        data = self._post_fields(item)
        data["venue"] = rendering.render_title(item.title).strip()
        data["description"] = _html_block(item.content)
        data["excerpt"] = _excerpt(item.excerpt)
        data["slug"] = item.slug
        data["image"] = self.image(item)
        fields = _shown_fields(VENUE, item)
        data.update(fields)
        geo = {f.name: item.meta.get(f.meta_key) for f in VENUE.of_kind(GEO)}
        if all(value not in (None, "") for value in geo.values()):
            data.update(geo)
        if single:
            data["json_ld"] = self._venue_ld(item, fields)
        data = {key: value for key, value in data.items() if value}  # "", 0, False, None, [] and {} left out
        for flag in VENUE.flags:
            data[flag.name] = bool(item.meta.get(flag.meta_key, True))
        data.update(self._global_ids(item))
        return data

    def _venue_ld(self, item: Item, fields: dict[str, str]) -> dict[str, Any]:
        address = {"@type": "PostalAddress"}
        parts = VENUE.address_parts
        for ld_key in _POSTAL_ADDRESS:
            name = parts[ld_key].name
            # the region falls back on the state, as the reference's
            value = fields.get(name) or (fields.get("state") if ld_key == "addressRegion" else "")
            if value:
                address[ld_key] = value
        found: dict[str, Any] = {
            "@type": "Place",
            "name": rendering.render_title(item.title).strip(),
            "description": _ld_text(_excerpt(item.excerpt) or _html_block(item.content)),
        }
        image = self.image(item)
        if image:
            found["image"] = image.get("url", "")
        found.update({"url": "", "address": address, "telephone": fields.get("phone", ""), "sameAs": fields.get("website", "")})
        return found

    def organizer(self, item: Item, *, single: bool | None = None) -> dict[str, Any]:
        single = self.single if single is None else single
        return self._once(("organizer", item.id, single), lambda: self._organizer(item, single))

    def _organizer(self, item: Item, single: bool) -> dict[str, Any]:
        data = self._post_fields(item)
        data["organizer"] = rendering.render_title(item.title).strip()
        data["description"] = _html_block(item.content)
        data["excerpt"] = _excerpt(item.excerpt)
        data["slug"] = item.slug
        data["image"] = self.image(item)
        data.update(_shown_fields(ORGANIZER, item))
        if single:
            ld: dict[str, Any] = {
                "@type": "Person",
                "name": data["organizer"],
                "description": _ld_text(data["excerpt"] or data["description"]),
            }
            if data["image"]:
                ld["image"] = data["image"].get("url", "")
            ld.update({
                "url": data["website"],  # the organizer's own site, unlike a venue's (recorded answers)
                "telephone": data["phone"],
                "email": obfuscated_email(data["email"]) if data["email"] else "",
                "sameAs": data["website"],
            })
            data["json_ld"] = ld
        data.update(self._global_ids(item))
        return {key: value for key, value in data.items() if value}  # "", 0, False, None, [] and {} left out

    # -- terms ---------------------------------------------------------------------------------

    def term(self, term: Any) -> dict[str, Any]:
        """A term as events embed it (calendar-api.md 2.4 a)."""
        return self._once(("term", term.id), lambda: embedded_term(term, self.url))

    # -- event ---------------------------------------------------------------------------------

    def event(self, item: Item) -> dict[str, Any]:
        row = self.loaded.event_rows.get(item.id)
        ctx = self.ctx
        zone, zone_name = cal.site_timezone(ctx.options, row.timezone if row and row.timezone else None)
        if row is None:  # an event item written without calendar data (e.g. through cms/v2)
            start = end = item.date_local
            row = cal.EventRow(start, end, item_service.date_gmt(item, ctx.zone), item_service.date_gmt(item, ctx.zone),
                               zone_name, False, False, False, False)
        permalink = item_service.permalink(ctx, item)
        meta = item.meta
        cost_texts = [str(meta.get("_EventCost") or "")]
        cost, cost_details = cal.format_cost([t for t in cost_texts if t], ctx.options)
        stored_symbol = str(meta.get("_EventCurrencySymbol") or "")
        if stored_symbol:
            cost_details["currency_symbol"] = stored_symbol
            cost_details["currency_position"] = str(meta.get("_EventCurrencyPosition") or cost_details["currency_position"])
        website = meta.get("_EventURL")
        if website is not None:
            website = safe_url(website)  # a stored javascript: (data:...) link is not shown
        data: dict[str, Any] = {"id": item.id, **self._global_ids(item)}
        post = self._post_fields(item)
        del post["id"]
        data.update(post)
        data["rest_url"] = self.url("cal.events.item", id=item.id)
        data["title"] = rendering.render_title(item.title).strip()
        data["description"] = _html_block(item.content)
        data["excerpt"] = _excerpt(item.excerpt)
        data["slug"] = item.slug
        data["image"] = self.image(item)
        data["all_day"] = row.all_day
        _dated(data, "start_date", row.start_local)
        _dated(data, "end_date", row.end_local)
        _dated(data, "utc_start_date", row.start_utc)
        _dated(data, "utc_end_date", row.end_utc)
        data["timezone"] = zone_name
        data["timezone_abbr"] = timezone_abbr(zone, row.start_local)
        data["cost"] = cost
        data["cost_details"] = cost_details
        data["website"] = html.escape(str(website), quote=True) if website is not None else permalink
        data["show_map"] = bool(meta.get("_EventShowMap", True))
        data["show_map_link"] = bool(meta.get("_EventShowMapLink", True))
        data["hide_from_listings"] = row.hidden
        data["sticky"] = row.sticky
        data["featured"] = row.featured
        terms = self.loaded.terms.get(item.id, {})
        data["categories"] = [self.term(t) for t in terms.get("cal_events_cat", [])]
        data["tags"] = [self.term(t) for t in terms.get("post_tag", [])]
        venues = [self.loaded.linked[i] for i in self.loaded.venues.get(item.id, []) if i in self.loaded.linked]
        shown_venues = [self.venue(v) for v in venues]
        data["venue"] = shown_venues[0] if len(shown_venues) == 1 else shown_venues
        organizers = [self.loaded.linked[i] for i in self.loaded.organizers.get(item.id, []) if i in self.loaded.linked]
        data["organizer"] = [self.organizer(o) for o in organizers]
        data["custom_fields"] = []
        if item.password and not self.single and self.password != item.password and not (
            self.can_edit is not None and self.can_edit(item)
        ):
            self._blank_protected(data)
        if self.single:
            data["json_ld"] = self._event_ld(item, data, row, zone)
        return data

    @staticmethod
    def _blank_protected(data: dict[str, Any]) -> None:
        for key in ("description", "excerpt", "cost", "website"):
            data[key] = ""
        data["image"] = False
        for key in ("all_day", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured"):
            data[key] = None
        data["cost_details"] = dict(EMPTY_COST_DETAILS)
        for key in ("categories", "tags", "venue", "organizer", "custom_fields"):
            data[key] = []

    def _event_ld(self, item: Item, data: dict[str, Any], row: cal.EventRow, zone: dt.tzinfo) -> dict[str, Any]:
        ld: dict[str, Any] = {
            "@context": "http://schema.org",
            "@type": "Event",
            "name": data["title"],
            "description": _ld_text(data["excerpt"] or data["description"]),
        }
        if data["image"]:
            ld["image"] = data["image"].get("url", "")
        ld.update({
            "url": data["url"],
            "eventAttendanceMode": "https://schema.org/OfflineEventAttendanceMode",
            "eventStatus": "https://schema.org/EventScheduled",
            "startDate": _iso(row.start_local, zone),
            "endDate": _iso(row.end_local, zone),
        })
        venue = data["venue"]
        if isinstance(venue, dict) and venue.get("json_ld"):
            ld["location"] = venue["json_ld"]
        organizers = [o["json_ld"] for o in data["organizer"] if isinstance(o, dict) and o.get("json_ld")]
        if organizers:
            ld["organizer"] = organizers[0] if len(organizers) == 1 else organizers
        values = data["cost_details"]["values"] if isinstance(data["cost_details"], dict) else []
        if values:
            date_from = item.date_local.replace(hour=0, minute=0, second=0)
            ld["offers"] = {
                "@type": "Offer",
                "price": values[0] if len(values) == 1 else values,
                "priceCurrency": str(self.ctx.options.get("cal_currency_code") or "USD"),
                "url": data["url"],
                "category": "primary",
                "availability": "inStock",
                "validFrom": _iso(date_from, self.ctx.zone),
            }
        ld["performer"] = "Organization"
        return ld
