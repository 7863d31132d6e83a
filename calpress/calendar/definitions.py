"""The calendar's names: its types and taxonomy, the types it keeps out of REST, and the event meta
keys it registers for every type. The names are the reference's with ``tribe`` renamed ``cal``.

Every calendar module may import these; :mod:`.registration` puts them in the app's registry.
"""

from __future__ import annotations

from typing import Any

from ..compat.formatting import is_safe_url

EVENT_TYPE = "cal_events"
VENUE_TYPE = "cal_venue"
ORGANIZER_TYPE = "cal_organizer"
CATEGORY_TAXONOMY = "cal_events_cat"
# Types the calendar registers without REST routes: import records and deleted-event markers.
NON_REST_TYPES = ("cal-ea-record", "deleted_event")


def _event_ids(description: str) -> dict[str, Any]:
    return {"type": "number", "title": "", "description": description, "default": 0}


# The meta the calendar registers with show_in_rest for every content type (the reference's
# items show these keys in ``meta`` whatever their type), in its order: the events' keys, then the
# organizers' and the venues' (their fields are listed in :mod:`.fields`).
EVENT_META: dict[str, dict[str, Any]] = {
    "_EventAllDay": {"type": "boolean"},
    "_EventTimezone": {"type": "string"},
    "_EventStartDate": {"type": "string"},
    "_EventEndDate": {"type": "string"},
    "_EventStartDateUTC": {"type": "string"},
    "_EventEndDateUTC": {"type": "string"},
    "_EventShowMap": {"type": "boolean"},
    "_EventShowMapLink": {"type": "boolean"},
    "_EventURL": {"type": "string", "validate": is_safe_url},  # no javascript: (data:...) link
    "_EventCost": {"type": "string"},
    "_EventCostDescription": {"type": "string"},
    "_EventCurrencySymbol": {"type": "string"},
    "_EventCurrencyCode": {"type": "string"},
    "_EventCurrencyPosition": {"type": "string"},
    "_EventDateTimeSeparator": {"type": "string"},
    "_EventTimeRangeSeparator": {"type": "string"},
    "_EventOrganizerID": {"type": "array", "single": False, "items": _event_ids("Event Organizers")},
    "_EventVenueID": {"type": "array", "single": False, "items": _event_ids("Event Venue")},
}
