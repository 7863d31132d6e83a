"""The reference's names as aliases of calpress's (issue 16): ``wp/v2``, ``wp-site-health/v1``,
``tribe/events/v1``, ``tribe/views/v2`` and ``tribe/event-aggregator/v1``; the types
``tribe_events``, ``tribe_venue`` and ``tribe_organizer``, the taxonomy ``tribe_events_cat``, and
the statuses and comment types ``tribe-ea-*`` and ``tribe-ignored``.

The table here is data for the engine's :class:`calpress.rest.naming.Naming`; the registry binds
an alias of every route of the renamed namespaces (``build_api``). They answer when
``CALPRESS_COMPAT_ALIASES=1`` or the site option ``calpress_compat_aliases`` is true
(:func:`aliases_on`), and are listed in the site description only then.
"""

from __future__ import annotations

from typing import Any

from ..calendar.definitions import CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from ..rest.naming import Naming
from ..rest.request import RestRequest
from .scope import scope_of

OPTION = "calpress_compat_aliases"

# Namespace key -> the reference's wire name (the keys of api.NAMESPACES; oembed/1.0 is the same).
REFERENCE_NAMESPACES = {
    "cal-aggregator": "tribe/event-aggregator/v1",
    "cal": "tribe/events/v1",
    "cal-views": "tribe/views/v2",
    "cms": "wp/v2",
    "site-health": "wp-site-health/v1",
}

_TYPES = {EVENT_TYPE: "tribe_events", VENUE_TYPE: "tribe_venue", ORGANIZER_TYPE: "tribe_organizer",
          CATEGORY_TAXONOMY: "tribe_events_cat"}


def reference_naming(namespaces: dict[str, str]) -> Naming:
    """The reference's names, given calpress's namespace table (key -> wire name)."""
    names = dict(_TYPES)
    names.update({namespaces[key]: theirs for key, theirs in REFERENCE_NAMESPACES.items() if key in namespaces})
    names["cal-ignored"] = "tribe-ignored"
    return Naming("reference", REFERENCE_NAMESPACES, names, prefixes=(("cal-ea-", "tribe-ea-"),))


def aliases_on(request: RestRequest) -> bool:
    """Whether ``request`` may use the reference's names: the setting, else the site option."""
    scope = scope_of(request)
    return bool(scope.site.settings.compat_aliases) or _truthy(scope.options.get(OPTION))


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")
