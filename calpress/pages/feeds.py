"""iCalendar answers and add-to-calendar links: the events a page shows, as :mod:`calpress.calendar.ical`
writes them (``?ical=1`` on the views, the archives and a single event; ``/events/ical/``), and
the links of a single event's "add to calendar" list (Google Calendar's template link, the .ics
export, Outlook 365 and Outlook Live's compose links), as the reference builds them.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any
from urllib.parse import quote, urlencode

from ..calendar import events as cal
from ..calendar.definitions import CATEGORY_TAXONOMY
from ..calendar.ical import IcalEvent, calendar_bytes
from ..content import items as item_service
from ..content import rendering
from ..content.items import Context, Item
from .answer import Answer
from .cards import EventCard, place_of

_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
GOOGLE_DETAILS_MAX = 996  # the reference trims the details of a Google Calendar link


def entries(ctx: Context, loaded: cal.Loaded) -> list[IcalEvent]:
    """The iCalendar entries of loaded events (password-protected ones without their content)."""
    found = []
    for item in loaded.items:
        row = loaded.event_rows.get(item.id)
        if row is None:
            continue
        zone, _ = cal.site_timezone(ctx.options, row.timezone or None)
        protected = bool(item.password)
        venues = [loaded.linked[i] for i in loaded.venues.get(item.id, []) if i in loaded.linked]
        location, geo = "", None
        if venues:
            place = place_of(ctx, venues[0])
            location = ", ".join(part for part in (html.unescape(place.name), place.address) if part)
            lat, lng = venues[0].meta.get("_VenueLat"), venues[0].meta.get("_VenueLng")
            try:
                geo = (float(lat), float(lng)) if lat not in (None, "") and lng not in (None, "") else None
            except (TypeError, ValueError):
                geo = None
        organizers = tuple(
            (loaded.linked[i].title, str(loaded.linked[i].meta.get("_OrganizerEmail") or ""))
            for i in loaded.organizers.get(item.id, []) if i in loaded.linked
        )
        image = loaded.images.get(item.featured_media) if item.featured_media and not protected else None
        categories = tuple(t.name for t in loaded.terms.get(item.id, {}).get(CATEGORY_TAXONOMY, []))
        found.append(IcalEvent(
            id=item.id,
            summary=rendering.render_title(item.title).strip(),
            start=row.start_local,
            end=row.end_local,
            zone=zone,
            all_day=row.all_day,
            url=item_service.permalink(ctx, item),
            description_html="" if protected else rendering.render_content(item.content),
            location=location,
            geo=geo,
            categories=categories,
            organizers=organizers,
            image_url=str(image.get("url") or "") if isinstance(image, dict) else "",
            created_utc=item_service.date_gmt(item, ctx.zone),
            modified_utc=item.modified_utc,
        ))
    return found


def ics(ctx: Context, loaded: cal.Loaded, *, site_name: str) -> bytes:
    return calendar_bytes(entries(ctx, loaded), site_name=html.unescape(site_name), home=ctx.home)


def answer(body: bytes, name: str) -> Answer:
    """A text/calendar answer offered as a file named after what it holds."""
    file_name = (_FILE_NAME.sub("-", name).strip("-") or "events")[:80] + ".ics"
    return Answer(200, body, content_type="text/calendar; charset=UTF-8", headers={
        "Content-Disposition": f'attachment; filename="{file_name}"',
        "X-Content-Type-Options": "nosniff",
    })


def _google_dates(card: EventCard) -> str:
    if card.all_day:
        last = card.end.date() + dt.timedelta(days=1)
        return f"{card.start:%Y%m%d}/{last:%Y%m%d}"
    return f"{card.start:%Y%m%dT%H%M%S}/{card.end:%Y%m%dT%H%M%S}"


def add_to_calendar_links(card: EventCard, item: Item, description: str, site_name: str, home: str) -> list[tuple[str, str]]:
    """Google Calendar (a template link with the event's wall times and zone), iCalendar (this
    event's .ics), Outlook 365 and Outlook Live (compose deep links, times in UTC)."""
    title = html.unescape(re.sub(r"<[^>]+>", "", card.title))
    location = ""
    if card.venue is not None:
        location = ", ".join(part for part in (html.unescape(card.venue.name), card.venue.address) if part)
    details = description.strip()
    if len(details) > GOOGLE_DETAILS_MAX:
        details = details[:GOOGLE_DETAILS_MAX].rstrip() + "…"
    google: dict[str, Any] = {"action": "TEMPLATE", "dates": _google_dates(card), "text": title, "details": details}
    if location:
        google["location"] = location
    google.update({"trp": "false", "ctz": card.zone, "sprop": "website:" + home})
    start = dt.datetime.fromisoformat(card.start_iso).astimezone(dt.UTC)
    end = dt.datetime.fromisoformat(card.end_iso).astimezone(dt.UTC)
    outlook = {
        "path": "/calendar/action/compose",
        "rrv": "addevent",
        "startdt": card.start.date().isoformat() if card.all_day else start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "enddt": (card.end.date() + dt.timedelta(days=1)).isoformat() if card.all_day else end.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "location": location,
        "subject": title,
        "body": details,
    }
    if card.all_day:
        outlook["allday"] = "true"
    ics_url = card.url + ("&" if "?" in card.url else "?") + "ical=1"
    return [
        ("Google Calendar", "https://www.google.com/calendar/event?" + urlencode(google, quote_via=quote)),
        ("iCalendar", ics_url),
        ("Outlook 365", "https://outlook.office.com/owa/?" + urlencode(outlook, quote_via=quote)),
        ("Outlook Live", "https://outlook.live.com/owa/?" + urlencode(outlook, quote_via=quote)),
    ]
