"""The calendar's part of Settings > Reading: the events page as a choice of the homepage (The
Events Calendar's "Main Events Page" in the Homepage list, stored as the virtual page id
``site_settings.EVENTS_FRONT_PAGE``), and how many events the iCalendar feed holds (the reference's
tribe_ical_feed_posts_per_page filter, 30 unless changed; an option here).

The Reading screen (:mod:`.settings`) calls these; they take its request and its change record.
"""

from __future__ import annotations

from typing import Any

from ..calendar.views import ICAL_FEED_DEFAULT, ICAL_FEED_MAX, ICAL_FEED_OPTION
from ..site_settings import EVENTS_FRONT_PAGE
from .shell import AdminRequest
from .values import number

EVENTS_PAGE_LABEL = "Main Events Page"  # the reference's label of the homepage choice
_MISSING = object()


def values(r: AdminRequest) -> dict[str, Any]:
    """The feed's size as the form shows it: the stored option, or the default."""
    with r.site.read() as conn:
        stored = r.site.stored_option(conn, ICAL_FEED_OPTION, _MISSING)
    shown = number(stored, None) if stored is not _MISSING else None
    return {ICAL_FEED_OPTION: shown if shown is not None and 1 <= shown <= ICAL_FEED_MAX else ICAL_FEED_DEFAULT}


def read(r: AdminRequest, change: Any, shown: dict[str, Any]) -> None:
    """The posted feed size into ``change`` (the screen's Change): a whole number from 1 to
    ICAL_FEED_MAX is stored when it differs from what the form showed; anything else is an error
    beside the field, and nothing is stored."""
    text = r.field(ICAL_FEED_OPTION).strip()
    given = number(text, None)
    change.sent[ICAL_FEED_OPTION] = given if given is not None else text
    if given is None or not 1 <= given <= ICAL_FEED_MAX:
        change.errors[ICAL_FEED_OPTION] = f"Enter a whole number from 1 to {ICAL_FEED_MAX}."
        return
    if given != shown.get(ICAL_FEED_OPTION):
        change.options[ICAL_FEED_OPTION] = given


def front_choices() -> list[tuple[int, str]]:
    """The Homepage list's extra choice, after the pages (where the reference appends it)."""
    return [(EVENTS_FRONT_PAGE, EVENTS_PAGE_LABEL)]


def context() -> dict[str, Any]:
    return {"events_front": front_choices(), "ical_feed_option": ICAL_FEED_OPTION, "ical_feed_max": ICAL_FEED_MAX,
            "ical_feed_default": ICAL_FEED_DEFAULT}
