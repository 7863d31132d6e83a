"""Roles and their capabilities, in one place (cms-api.md 6.7).

The lists follow the reference's defaults and their order (the edit-context ``capabilities`` of a
user shows them in this order), plus the calendar's per-type capabilities that The Events Calendar
grants each role for events, venues, organizers and import records.
"""

from __future__ import annotations

from functools import lru_cache

ROLE_NAMES = {
    "administrator": "Administrator",
    "editor": "Editor",
    "author": "Author",
    "contributor": "Contributor",
    "subscriber": "Subscriber",
}

_LEVELS = [f"level_{n}" for n in range(10, -1, -1)]

_SUBSCRIBER = ["read", "level_0"]
_CONTRIBUTOR = ["edit_posts", "read", "level_1", "level_0", "delete_posts"]
_AUTHOR = [
    "upload_files", "edit_posts", "edit_published_posts", "publish_posts", "read",
    "level_2", "level_1", "level_0", "delete_posts", "delete_published_posts",
]
_EDITOR = [
    "moderate_comments", "manage_categories", "manage_links", "upload_files", "unfiltered_html",
    "edit_posts", "edit_others_posts", "edit_published_posts", "publish_posts", "edit_pages", "read",
    *_LEVELS[3:],
    "edit_others_pages", "edit_published_pages", "publish_pages", "delete_pages",
    "delete_others_pages", "delete_published_pages", "delete_posts", "delete_others_posts",
    "delete_published_posts", "delete_private_posts", "edit_private_posts", "read_private_posts",
    "delete_private_pages", "edit_private_pages", "read_private_pages",
]
_ADMINISTRATOR = [
    "switch_themes", "edit_themes", "activate_plugins", "edit_plugins", "edit_users", "edit_files",
    "manage_options", "moderate_comments", "manage_categories", "manage_links", "upload_files",
    "import", "unfiltered_html", "edit_posts", "edit_others_posts", "edit_published_posts",
    "publish_posts", "edit_pages", "read", *_LEVELS,
    "edit_others_pages", "edit_published_pages", "publish_pages", "delete_pages",
    "delete_others_pages", "delete_published_pages", "delete_posts", "delete_others_posts",
    "delete_published_posts", "delete_private_posts", "edit_private_posts", "read_private_posts",
    "delete_private_pages", "edit_private_pages", "read_private_pages", "delete_users",
    "create_users", "unfiltered_upload", "edit_dashboard", "update_plugins", "delete_plugins",
    "install_plugins", "update_themes", "install_themes", "update_core", "list_users",
    "remove_users", "promote_users", "edit_theme_options", "delete_themes", "export",
]

# The calendar's content types and the capability plural each uses.
CALENDAR_CAP_TYPES = ("cal_events", "cal_venues", "cal_organizers", "aggregator-records")

_TYPE_CAPS_FULL = (
    "read_private_{}", "edit_{}", "edit_others_{}", "edit_private_{}", "edit_published_{}",
    "delete_{}", "delete_others_{}", "delete_private_{}", "delete_published_{}", "publish_{}",
)
_TYPE_CAPS_AUTHOR = ("edit_{}", "edit_published_{}", "delete_{}", "delete_published_{}", "publish_{}")
_TYPE_CAPS_CONTRIBUTOR = ("edit_{}", "delete_{}")


def _calendar_caps(templates: tuple[str, ...], types: tuple[str, ...]) -> list[str]:
    return [template.format(plural) for plural in types for template in templates]


_EVENT_TYPES = CALENDAR_CAP_TYPES[:3]

ROLE_CAPS: dict[str, list[str]] = {
    "administrator": _ADMINISTRATOR + _calendar_caps(_TYPE_CAPS_FULL, CALENDAR_CAP_TYPES),
    "editor": _EDITOR + _calendar_caps(_TYPE_CAPS_FULL, CALENDAR_CAP_TYPES),
    "author": _AUTHOR + _calendar_caps(_TYPE_CAPS_AUTHOR, _EVENT_TYPES),
    "contributor": _CONTRIBUTOR + _calendar_caps(_TYPE_CAPS_CONTRIBUTOR, _EVENT_TYPES),
    "subscriber": list(_SUBSCRIBER),
}


def is_role(name: str) -> bool:
    return name in ROLE_CAPS


@lru_cache(maxsize=64)
def capabilities_for(roles: tuple[str, ...], extra: tuple[tuple[str, bool], ...] = ()) -> dict[str, bool]:
    """All capabilities of a user with these roles and extra grants: the reference's allcaps,
    each role's capabilities, then the role names themselves, then the user's own grants."""
    caps: dict[str, bool] = {}
    for role in roles:
        for cap in ROLE_CAPS.get(role, ()):
            caps[cap] = True
    for role in roles:
        if role in ROLE_CAPS:
            caps[role] = True
    for cap, granted in extra:
        caps[cap] = granted
    return caps
