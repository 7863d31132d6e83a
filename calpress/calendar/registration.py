"""The calendar's content definitions put in the app's registry: the event, venue and organizer
types, the import-record statuses, the event category taxonomy, tags on events, the meta keys the
calendar registers for every type, and the trash rule that unlinks a trashed venue or organizer
from its events.

``register(registry)`` adds them after the core's (``calpress.app.build_registry``), as The Events
Calendar registers them at ``init``. It sits above the event service and the field tables it
registers; the names they share are in :mod:`.definitions`.
"""

from __future__ import annotations

from ..content.registry import ContentRegistry
from ..content.taxonomies import TermCaps, define_taxonomy
from ..content.types import ContentType, Status, type_caps
from .definitions import CATEGORY_TAXONOMY, EVENT_META, EVENT_TYPE, NON_REST_TYPES, ORGANIZER_TYPE, VENUE_TYPE
from .events import unlink_trashed
from .fields import meta_registrations


def _calendar_labels(singular: str, plural: str, *, linked: bool) -> dict[str, str]:
    """The labels the calendar gives its types; venues and organizers (``linked``) add the
    lower-case names and have no ``view_items``."""
    labels = {"name": plural, "singular_name": singular}
    if linked:
        labels["singular_name_lowercase"] = singular.lower()
        labels["plural_name_lowercase"] = plural.lower()
    labels.update(
        {
            "add_new": "Add New",
            "add_new_item": f"Add New {singular}",
            "edit_item": f"Edit {singular}",
            "new_item": f"New {singular}",
            "view_item": f"View {singular}",
        }
    )
    if not linked:
        labels["view_items"] = f"View {plural}"
    labels.update(
        {
            "search_items": f"Search {plural}",
            "not_found": f"No {plural.lower()} found",
            "not_found_in_trash": f"No {plural.lower()} found in Trash",
            "item_published": f"{singular} published.",
            "item_published_privately": f"{singular} published privately.",
            "item_reverted_to_draft": f"{singular} reverted to draft.",
            "item_scheduled": f"{singular} scheduled.",
            "item_updated": f"{singular} updated.",
            "item_link": f"{singular} Link",
            "item_link_description": f"A link to a particular {singular}.",
        }
    )
    return labels


_CAL_FEATURES = frozenset({"title", "editor", "excerpt", "thumbnail", "custom-fields", "author", "revisions"})


def register(registry: ContentRegistry) -> None:
    """Register the calendar's statuses, types, taxonomy, meta keys and trash rule."""
    # The import statuses (renamed from tribe-ea-*): public but not publicly queryable, as the
    # calendar registers them (its Aggregator Records::get_status).
    registry.add_status(Status("cal-ea-success", "Imported", public=True, queryable=False))
    registry.add_status(Status("cal-ea-failed", "Failed", public=True, queryable=False))
    registry.add_status(Status("cal-ea-schedule", "Schedule", public=True, queryable=False))
    registry.add_status(Status("cal-ea-pending", "Pending", public=True, queryable=False))
    registry.add_status(Status("cal-ea-draft", "Draft", public=True, queryable=False))
    registry.add_status(Status("cal-ignored", "Ignored", show_in_list=False))

    registry.add_type(
        ContentType(
            VENUE_TYPE, "cal_venue", "Venues", "Venue", supports=_CAL_FEATURES,
            caps=type_caps("cal_venue", "cal_venues"), permastruct="venue/%cal_venue%",
            show_ui=True, show_in_nav_menus=False, exclude_from_search=True,  # as TEC registers them
            labels=_calendar_labels("Venue", "Venues", linked=True),
        )
    )
    registry.add_type(
        ContentType(
            ORGANIZER_TYPE, "cal_organizer", "Organizers", "Organizer", supports=_CAL_FEATURES,
            caps=type_caps("cal_organizer", "cal_organizers"), permastruct="organizer/%cal_organizer%",
            show_ui=True, show_in_nav_menus=False, exclude_from_search=True,  # as TEC registers them
            labels=_calendar_labels("Organizer", "Organizers", linked=True),
        )
    )
    registry.add_type(
        ContentType(
            EVENT_TYPE, "cal_events", "Events", "Event",
            supports=_CAL_FEATURES | frozenset({"comments"}),
            caps=type_caps("cal_event", "cal_events"), permastruct="event/%cal_events%",
            has_archive=True, archive_slug="events", icon="dashicons-calendar", labels=_calendar_labels("Event", "Events", linked=False),
        )
    )
    for name in NON_REST_TYPES:
        registry.add_non_rest_type(name)
    # Import records (calendar/imports.py): items of the service's own, never in REST or on the site.
    registry.add_type(
        ContentType(
            "cal-ea-record", "", "Import records", "Import record", public=False, show_in_rest=False,
            caps=type_caps("post", "posts", create_posts="manage_options"), can_trash=False,
            revisions_route=False, autosaves_route=False, default_status="cal-ea-draft",
        )
    )

    registry.add_taxonomy(define_taxonomy(
        CATEGORY_TAXONOMY,
        (EVENT_TYPE,),
        labels={
            "name": "Event Categories",
            "singular_name": "Event Category",
            "search_items": "Search Event Categories",
            "all_items": "All Event Categories",
            "parent_item": "Parent Event Category",
            "parent_item_colon": "Parent Event Category:",
            "edit_item": "Edit Event Category",
            "update_item": "Update Event Category",
            "add_new_item": "Add New Event Category",
            "new_item_name": "New Event Category Name",
            "item_link": "Event Category Link",
            "item_link_description": "A link to a particular Event category.",
        },
        hierarchical=True,
        # Authors publish events, so they may manage event categories; assigning needs edit rights.
        caps=TermCaps("publish_cal_events", "publish_cal_events", "publish_cal_events", "edit_cal_events"),
        show_in_rest=True,
        rewrite_slug="events/category",
        rewrite_hierarchical=True,
    ))
    # The calendar classifies events with the core's tags too.
    registry.attach_taxonomy("post_tag", EVENT_TYPE)
    for name, registration in {**EVENT_META, **meta_registrations()}.items():
        registry.add_meta(name, registration)
    registry.on_trash(unlink_trashed)
