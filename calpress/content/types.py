"""Content types and statuses as registered definitions, as the reference keeps them.

One generic controller and one item service serve every type from these definitions: which
fields a type has follows its ``supports`` list, its capabilities follow its capability plural,
and its routes follow its REST base (cms-api.md 2.1). The meta capabilities ``edit_post``,
``delete_post``, ``read_post`` and ``publish_post`` are mapped here (cms-api.md 6.7).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..auth import users as user_caps

# -- statuses -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    """A registered status. ``show_in_list`` is the reference's ``show_in_admin_all_list``;
    ``queryable`` (``publicly_queryable``) follows ``public`` unless given."""

    name: str
    label: str
    public: bool = False
    protected: bool = False
    private: bool = False
    internal: bool = False
    show_in_list: bool = True
    date_floating: bool = False
    queryable: bool | None = None

    @property
    def publicly_queryable(self) -> bool:
        return self.public if self.queryable is None else self.queryable


STATUSES: dict[str, Status] = {
    s.name: s
    for s in (
        Status("publish", "Published", public=True),
        Status("future", "Scheduled", protected=True),
        Status("draft", "Draft", protected=True, date_floating=True),
        Status("pending", "Pending", protected=True, date_floating=True),
        Status("private", "Private", private=True),
        Status("trash", "Trash", internal=True, show_in_list=False),
        Status("auto-draft", "auto-draft", internal=True, show_in_list=False, date_floating=True),
        Status("inherit", "inherit", internal=True, show_in_list=False),
        Status("request-pending", "Pending", internal=True, show_in_list=False),
        Status("request-confirmed", "Confirmed", internal=True, show_in_list=False),
        Status("request-failed", "Failed", internal=True, show_in_list=False),
        Status("request-completed", "Completed", internal=True, show_in_list=False),
        # The calendar's import statuses (renamed from tribe-ea-*): the calendar registers them
        # public but not publicly queryable (its Aggregator Records::get_status).
        Status("cal-ea-success", "Imported", public=True, queryable=False),
        Status("cal-ea-failed", "Failed", public=True, queryable=False),
        Status("cal-ea-schedule", "Schedule", public=True, queryable=False),
        Status("cal-ea-pending", "Pending", public=True, queryable=False),
        Status("cal-ea-draft", "Draft", public=True, queryable=False),
        Status("cal-ignored", "Ignored", show_in_list=False),
    )
}

# The seed's write values and listing values (decision 5).
WRITE_STATUSES = (
    "publish", "future", "draft", "pending", "private",
    "cal-ea-success", "cal-ea-failed", "cal-ea-schedule", "cal-ea-pending", "cal-ea-draft", "cal-ignored",
)
LIST_STATUSES = (
    "publish", "future", "draft", "pending", "private", "trash", "auto-draft", "inherit",
    "request-pending", "request-confirmed", "request-failed", "request-completed",
    "cal-ea-success", "cal-ea-failed", "cal-ea-schedule", "cal-ea-pending", "cal-ea-draft", "cal-ignored", "any",
)


# -- types ----------------------------------------------------------------------------------------

CAP_KEYS = (
    "edit_post", "read_post", "delete_post", "edit_posts", "edit_others_posts", "delete_posts",
    "publish_posts", "read_private_posts", "read", "delete_private_posts", "delete_published_posts",
    "delete_others_posts", "edit_private_posts", "edit_published_posts", "create_posts",
)


def type_caps(singular: str, plural: str, **overrides: str) -> dict[str, str]:
    """The reference's get_post_type_capabilities for a capability type, e.g. ("page", "pages")."""
    caps = {
        "edit_post": f"edit_{singular}",
        "read_post": f"read_{singular}",
        "delete_post": f"delete_{singular}",
        "edit_posts": f"edit_{plural}",
        "edit_others_posts": f"edit_others_{plural}",
        "delete_posts": f"delete_{plural}",
        "publish_posts": f"publish_{plural}",
        "read_private_posts": f"read_private_{plural}",
        "read": "read",
        "delete_private_posts": f"delete_private_{plural}",
        "delete_published_posts": f"delete_published_{plural}",
        "delete_others_posts": f"delete_others_{plural}",
        "edit_private_posts": f"edit_private_{plural}",
        "edit_published_posts": f"edit_published_{plural}",
        "create_posts": f"edit_{plural}",
    }
    caps.update(overrides)
    return caps


@dataclass(frozen=True)
class ContentType:
    """A content type: what the generic controller and service need to know about it."""

    name: str
    rest_base: str
    label: str
    singular: str
    description: str = ""
    hierarchical: bool = False
    supports: frozenset[str] = frozenset()
    taxonomies: tuple[str, ...] = ()
    caps: dict[str, str] = field(default_factory=lambda: type_caps("post", "posts"))
    public: bool = True
    builtin: bool = False
    can_trash: bool = True
    # Whether cms/v2 serves /{base}/{parent}/revisions and /{base}/{id}/autosaves for the type
    # (api/cms_revisions.py); revisions are stored whenever the type supports them.
    revisions_route: bool = True
    autosaves_route: bool = True
    default_status: str = "draft"
    permalink: str = "post"  # post, page or attachment (see items.permalink)
    read_requires_edit: bool = False
    show_in_rest: bool = True
    rest_namespace: str = "cms/v2"
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    icon: str = ""
    # The builtin types' REST fields come from a fixed feature list, not from ``supports``
    # (the reference's posts controller: pages show an excerpt they do not "support").
    rest_features: frozenset[str] | None = None
    # Pretty-permalink pattern of a non-builtin type, e.g. "venue/%cal_venue%".
    permastruct: str = ""
    # Templates the theme offers for this type (``template`` must be one of them, or "").
    templates: tuple[str, ...] = ()
    # Labels the type gives itself; ``type_labels`` completes them as the reference does.
    labels: dict[str, str] = field(default_factory=dict)
    has_archive: bool | str = False
    show_ui: bool | None = None  # None: follows ``public``
    show_in_nav_menus: bool | None = None  # None: follows ``public``
    # Arguments a feature was declared with (``editor`` with notes on posts and pages).
    feature_args: dict[str, Any] = field(default_factory=dict)

    def supports_feature(self, feature: str) -> bool:
        return feature in self.supports

    def has_rest_feature(self, feature: str) -> bool:
        """Whether the REST item schema carries the fields of ``feature`` (cms-api.md 2.1)."""
        return feature in (self.rest_features if self.rest_features is not None else self.supports)

    @property
    def viewable(self) -> bool:
        """The reference's is_post_type_viewable: builtin types when public, others when publicly
        queryable (which follows ``public`` for the types registered here)."""
        return self.public

    @property
    def core_like(self) -> bool:
        """post and page get author, replies and revision links whatever they support."""
        return self.name in ("post", "page")

    @property
    def has_revisions(self) -> bool:
        return "revisions" in self.supports


# The reference's post and page declare ``'editor' => array( 'notes' => true )``.
_EDITOR_WITH_NOTES: dict[str, Any] = {"editor": [{"notes": True}]}
_POST_FEATURES = frozenset(
    {"title", "editor", "author", "thumbnail", "excerpt", "trackbacks", "custom-fields", "comments", "revisions", "post-formats"}
)
_PAGE_FEATURES = frozenset({"title", "editor", "author", "thumbnail", "page-attributes", "custom-fields", "comments", "revisions"})

TYPES: dict[str, ContentType] = {}


def register_type(content_type: ContentType) -> ContentType:
    TYPES[content_type.name] = content_type
    return content_type


register_type(
    ContentType(
        "post", "posts", "Posts", "Post", builtin=True, supports=_POST_FEATURES, taxonomies=("category", "post_tag"),
        icon="dashicons-admin-post", labels={"name_admin_bar": "Post"}, feature_args=_EDITOR_WITH_NOTES,
        rest_features=frozenset(
            {"title", "editor", "author", "excerpt", "thumbnail", "comments", "revisions", "post-formats", "custom-fields"}
        ),
    )
)
register_type(
    ContentType(
        "page", "pages", "Pages", "Page", builtin=True, hierarchical=True, supports=_PAGE_FEATURES,
        caps=type_caps("page", "pages"), permalink="page", icon="dashicons-admin-page",
        labels={"name_admin_bar": "Page"}, feature_args=_EDITOR_WITH_NOTES,
        rest_features=frozenset(
            {"title", "editor", "author", "excerpt", "thumbnail", "comments", "revisions", "page-attributes", "custom-fields"}
        ),
    )
)
register_type(
    ContentType(
        "wp_block", "blocks", "Patterns", "Pattern", builtin=True,
        supports=frozenset({"title", "excerpt", "editor", "revisions", "custom-fields"}),
        taxonomies=("wp_pattern_category",),
        # Reading blocks needs edit_posts; creating them needs publish_posts (cms-api.md 6.7).
        caps=type_caps("block", "blocks", read="edit_posts", create_posts="publish_posts", edit_posts="edit_posts",
                       edit_others_posts="edit_others_posts", publish_posts="publish_posts",
                       read_private_posts="read_private_posts", delete_posts="delete_posts",
                       delete_private_posts="delete_private_posts", delete_published_posts="delete_published_posts",
                       delete_others_posts="delete_others_posts", edit_private_posts="edit_private_posts",
                       edit_published_posts="edit_published_posts"),
        public=False, read_requires_edit=True, show_ui=True,
        labels={
            "name": "Patterns",
            "singular_name": "Pattern",
            "add_new": "Add Pattern",
            "add_new_item": "Add Pattern",
            "new_item": "New Pattern",
            "edit_item": "Edit Block Pattern",
            "view_item": "View Pattern",
            "view_items": "View Patterns",
            "all_items": "All Patterns",
            "search_items": "Search Patterns",
            "not_found": "No patterns found.",
            "not_found_in_trash": "No patterns found in Trash.",
            "filter_items_list": "Filter patterns list",
            "items_list_navigation": "Patterns list navigation",
            "items_list": "Patterns list",
            "item_published": "Pattern published.",
            "item_published_privately": "Pattern published privately.",
            "item_reverted_to_draft": "Pattern reverted to draft.",
            "item_scheduled": "Pattern scheduled.",
            "item_updated": "Pattern updated.",
        },
        meta={
            # Lifted out of ``meta`` into a top-level field by the blocks controller.
            "wp_pattern_sync_status": {"type": "string", "single": True, "enum": ["partial", "unsynced"]},
        },
    )
)


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
register_type(
    ContentType(
        "cal_venue", "cal_venue", "Venues", "Venue", supports=_CAL_FEATURES,
        caps=type_caps("cal_venue", "cal_venues"), permastruct="venue/%cal_venue%",
        show_ui=True, show_in_nav_menus=False, labels=_calendar_labels("Venue", "Venues", linked=True),
    )
)
register_type(
    ContentType(
        "cal_organizer", "cal_organizer", "Organizers", "Organizer", supports=_CAL_FEATURES,
        caps=type_caps("cal_organizer", "cal_organizers"), permastruct="organizer/%cal_organizer%",
        show_ui=True, show_in_nav_menus=False, labels=_calendar_labels("Organizer", "Organizers", linked=True),
    )
)
register_type(
    ContentType(
        "cal_events", "cal_events", "Events", "Event",
        supports=_CAL_FEATURES | frozenset({"comments"}), taxonomies=("cal_events_cat", "post_tag"),
        caps=type_caps("cal_event", "cal_events"), permastruct="event/%cal_events%",
        has_archive=True, icon="dashicons-calendar", labels=_calendar_labels("Event", "Events", linked=False),
    )
)


def type_by_base(rest_base: str) -> ContentType | None:
    for content_type in TYPES.values():
        if content_type.rest_base == rest_base:
            return content_type
    return None


# The order the reference registers the content routes in (its route index lists them so):
# posts, pages, media (attachment, its own controller), blocks, then the calendar's types.
REST_TYPE_ORDER = ("post", "page", "attachment", "wp_block", "cal_venue", "cal_organizer", "cal_events")

# Types the reference registers without REST routes: /types answers rest_cannot_read_type for
# these rather than rest_type_invalid (the calendar's import records and deleted-event markers
# among them, renamed as the rest).
NON_REST_TYPES = frozenset(
    {"revision", "custom_css", "customize_changeset", "oembed_cache", "user_request", "cal-ea-record", "deleted_event"}
)

# The reference's default labels (WP_Post_Type::get_default_labels): (flat, hierarchical).
_DEFAULT_TYPE_LABELS: dict[str, tuple[str | None, str | None]] = {
    "name": ("Posts", "Pages"),
    "singular_name": ("Post", "Page"),
    "add_new": ("Add", "Add"),
    "add_new_item": ("Add Post", "Add Page"),
    "edit_item": ("Edit Post", "Edit Page"),
    "new_item": ("New Post", "New Page"),
    "view_item": ("View Post", "View Page"),
    "view_items": ("View Posts", "View Pages"),
    "search_items": ("Search Posts", "Search Pages"),
    "not_found": ("No posts found.", "No pages found."),
    "not_found_in_trash": ("No posts found in Trash.", "No pages found in Trash."),
    "parent_item_colon": (None, "Parent Page:"),
    "all_items": ("All Posts", "All Pages"),
    "archives": ("Post Archives", "Page Archives"),
    "attributes": ("Post Attributes", "Page Attributes"),
    "insert_into_item": ("Insert into post", "Insert into page"),
    "uploaded_to_this_item": ("Uploaded to this post", "Uploaded to this page"),
    "featured_image": ("Featured image", "Featured image"),
    "set_featured_image": ("Set featured image", "Set featured image"),
    "remove_featured_image": ("Remove featured image", "Remove featured image"),
    "use_featured_image": ("Use as featured image", "Use as featured image"),
    "filter_items_list": ("Filter posts list", "Filter pages list"),
    "filter_by_date": ("Filter by date", "Filter by date"),
    "items_list_navigation": ("Posts list navigation", "Pages list navigation"),
    "items_list": ("Posts list", "Pages list"),
    "item_published": ("Post published.", "Page published."),
    "item_published_privately": ("Post published privately.", "Page published privately."),
    "item_reverted_to_draft": ("Post reverted to draft.", "Page reverted to draft."),
    "item_trashed": ("Post trashed.", "Page trashed."),
    "item_scheduled": ("Post scheduled.", "Page scheduled."),
    "item_updated": ("Post updated.", "Page updated."),
    "item_link": ("Post Link", "Page Link"),
    "item_link_description": ("A link to a post.", "A link to a page."),
}


def type_labels(content_type: ContentType) -> dict[str, str | None]:
    """The full label set of a type, as the reference's get_post_type_labels completes it: the
    type's own labels with the derived ones (singular name, admin bar, menu, all items,
    archives) over the post or page defaults, then ``template_name`` when the type named its
    singular itself (so post and page, which do not, have none)."""
    own: dict[str, str | None] = dict(content_type.labels)
    if "singular_name" not in own and "name" in own:
        own["singular_name"] = own["name"]
    if "name_admin_bar" not in own:
        own["name_admin_bar"] = own.get("singular_name") or content_type.name
    if "menu_name" not in own and "name" in own:
        own["menu_name"] = own["name"]
    if "all_items" not in own and "menu_name" in own:
        own["all_items"] = own["menu_name"]
    if "archives" not in own and "all_items" in own:
        own["archives"] = own["all_items"]
    index = 1 if content_type.hierarchical else 0
    labels = {key: pair[index] for key, pair in _DEFAULT_TYPE_LABELS.items()}
    labels["menu_name"] = labels["name"]
    labels.update(own)
    if "template_name" not in own and own.get("singular_name") is not None:
        labels["template_name"] = f"Single item: {own['singular_name']}"
    return labels


# The order features are listed in (the reference lists them as each type declared them).
_FEATURE_ORDER = (
    "title", "editor", "author", "thumbnail", "excerpt", "trackbacks", "page-attributes", "custom-fields", "comments",
    "revisions", "post-formats",
)


def type_supports(content_type: ContentType) -> dict[str, Any]:
    """The reference's get_all_post_type_supports: each feature as ``true`` or the arguments it
    was declared with; ``editor`` implies ``autosave``."""
    rank = {feature: index for index, feature in enumerate(_FEATURE_ORDER)}
    features = sorted(content_type.supports, key=lambda f: (rank.get(f, len(rank)), f))
    supports: dict[str, Any] = {f: content_type.feature_args.get(f, True) for f in features}
    if "editor" in supports and "autosave" not in supports:
        supports["autosave"] = True
    return supports


# The reference's get_post_format_slugs(), "standard" first (it means "no format").
POST_FORMATS = ("standard", "aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio")


def default_comment_status(content_type: ContentType, kind: str, options: dict[str, Any]) -> str:
    """The reference's get_default_comment_status: ``kind`` is "comment" or "ping". Pages are
    closed; other types follow the site option when they support comments (trackbacks for pings)."""
    feature, option = ("trackbacks", "default_ping_status") if kind == "ping" else ("comments", "default_comment_status")
    if content_type.name == "page" or not content_type.supports_feature(feature):
        return "closed"
    return str(options.get(option) or "open")


# -- registered meta ------------------------------------------------------------------------------

# Meta the calendar registers for every content type, with show_in_rest (the reference's items
# show these keys in ``meta`` whatever their type). Name -> registration.


def _event_ids(description: str) -> dict[str, Any]:
    return {"type": "number", "title": "", "description": description, "default": 0}


SHARED_META: dict[str, dict[str, Any]] = {
    "_EventAllDay": {"type": "boolean"},
    "_EventTimezone": {"type": "string"},
    "_EventStartDate": {"type": "string"},
    "_EventEndDate": {"type": "string"},
    "_EventStartDateUTC": {"type": "string"},
    "_EventEndDateUTC": {"type": "string"},
    "_EventShowMap": {"type": "boolean"},
    "_EventShowMapLink": {"type": "boolean"},
    "_EventURL": {"type": "string"},
    "_EventCost": {"type": "string"},
    "_EventCostDescription": {"type": "string"},
    "_EventCurrencySymbol": {"type": "string"},
    "_EventCurrencyCode": {"type": "string"},
    "_EventCurrencyPosition": {"type": "string"},
    "_EventDateTimeSeparator": {"type": "string"},
    "_EventTimeRangeSeparator": {"type": "string"},
    "_EventOrganizerID": {"type": "array", "single": False, "items": _event_ids("Event Organizers")},
    "_EventVenueID": {"type": "array", "single": False, "items": _event_ids("Event Venue")},
    "_OrganizerEmail": {"type": "string"},
    "_OrganizerPhone": {"type": "string"},
    "_OrganizerWebsite": {"type": "string"},
    "_VenueAddress": {"type": "string"},
    "_VenueCity": {"type": "string"},
    "_VenueCountry": {"type": "string"},
    "_VenueProvince": {"type": "string"},
    "_VenueState": {"type": "string"},
    "_VenueZip": {"type": "string"},
    "_VenuePhone": {"type": "string"},
    "_VenueURL": {"type": "string"},
    "_VenueStateProvince": {"type": "string"},
    "_VenueLat": {"type": "string"},
    "_VenueLng": {"type": "string"},
    "_VenueShowMap": {"type": "boolean"},
    "_VenueShowMapLink": {"type": "boolean"},
    # Registered by the block editor for types with editor, revisions and custom fields.
    "footnotes": {"type": "string"},
}

_EMPTY_VALUES: dict[str, Any] = {"string": "", "boolean": False, "integer": 0, "number": 0, "array": [], "object": {}}


@dataclass(frozen=True)
class MetaField:
    """A meta key shown in and writable through ``meta`` (cms-api.md 2.17)."""

    name: str
    single: bool
    schema: dict[str, Any]

    @property
    def default(self) -> Any:
        """The value shown when nothing is stored: the schema default, or [] for a list."""
        if not self.single:
            return []
        default = self.schema.get("default")
        return list(default) if isinstance(default, list) else dict(default) if isinstance(default, dict) else default


def _meta_field(name: str, registration: dict[str, Any]) -> MetaField:
    single = registration.get("single", True)
    if not single:
        # A list key: its items carry the value schema (the registration's "items").
        return MetaField(name, False, {"type": "array", "items": dict(registration.get("items") or {})})
    type_ = registration.get("type", "string")
    schema: dict[str, Any] = {
        "type": type_,
        "title": registration.get("title", ""),
        "description": registration.get("description", ""),
        "default": registration.get("default", _EMPTY_VALUES.get(type_)),
    }
    for key in ("enum", "items", "properties", "format"):
        if key in registration:
            schema[key] = registration[key]
    return MetaField(name, True, schema)


_META_CACHE: dict[str, dict[str, MetaField]] = {}


def registered_meta(content_type: ContentType) -> dict[str, MetaField]:
    """The meta keys of a type, in the reference's order: keys registered for every type first,
    then the type's own. Empty for types without custom-fields support."""
    found = _META_CACHE.get(content_type.name)
    if found is None:
        found = {}
        if content_type.has_rest_feature("custom-fields"):
            for name, registration in {**SHARED_META, **content_type.meta}.items():
                found[name] = _meta_field(name, registration)
        _META_CACHE[content_type.name] = found
    return found


# -- meta capabilities for items -------------------------------------------------------------------


class ItemLike:
    """What the capability mapping needs of an item: its type, status, author, prior status."""

    type: str
    status: str
    author: int | None
    trashed_from: str | None


def _owner(item: Any) -> int:
    return int(getattr(item, "author", 0) or 0)


def _caps_and_status(item: Any) -> tuple[dict[str, str], str] | None:
    """The item's type capabilities and the status that decides rights (a trashed item is
    judged by the status it had before trashing)."""
    content_type = TYPES.get(item.type) if item is not None else None
    if content_type is None:
        return None
    status = item.status
    if status == "trash":
        status = getattr(item, "trashed_from", None) or "draft"
    return content_type.caps, status


def _others_caps(caps: dict[str, str], verb: str, status: str) -> list[str]:
    """``edit``/``delete`` on someone else's item: the others' capability, plus the published
    or private one when the item is published, scheduled or private."""
    needed = [caps[f"{verb}_others_posts"]]
    if status in ("publish", "future"):
        needed.append(caps[f"{verb}_published_posts"])
    elif status == "private":
        needed.append(caps[f"{verb}_private_posts"])
    return needed


def _map_edit_post(user: Any, item: Any = None, *_: Any) -> list[str] | None:
    found = _caps_and_status(item)
    if found is None:
        return None
    caps, status = found
    if status == "auto-draft":
        return [caps["edit_posts"]] if _owner(item) in (0, user.id) else [caps["edit_others_posts"]]
    if _owner(item) == user.id:
        return [caps["edit_published_posts"]] if status in ("publish", "future") else [caps["edit_posts"]]
    return _others_caps(caps, "edit", status)


def _map_delete_post(user: Any, item: Any = None, *_: Any) -> list[str] | None:
    found = _caps_and_status(item)
    if found is None:
        return None
    caps, status = found
    if _owner(item) in (0, user.id):
        if status in ("publish", "future"):
            return [caps["delete_published_posts"]]
        if status == "private":
            return [caps["delete_private_posts"]]
        return [caps["delete_posts"]]
    return _others_caps(caps, "delete", status)


def _map_read_post(user: Any, item: Any = None, *_: Any) -> list[str] | None:
    if item is None:
        return None
    content_type = TYPES.get(item.type)
    if content_type is None:
        return None
    caps = content_type.caps
    status = STATUSES.get(item.status)
    if status is not None and status.public:
        return [caps["read"]]
    if _owner(item) == user.id:
        return [caps["read"]]
    if status is not None and status.private:
        return [caps["read_private_posts"]]
    return _map_edit_post(user, item)


def _map_publish_post(user: Any, item: Any = None, *_: Any) -> list[str] | None:
    if item is None:
        return None
    content_type = TYPES.get(item.type)
    return [content_type.caps["publish_posts"]] if content_type else None


user_caps.META_CAPS.update(
    {
        "edit_post": _map_edit_post,
        "delete_post": _map_delete_post,
        "read_post": _map_read_post,
        "publish_post": _map_publish_post,
    }
)


def type_can(user: Any, content_type: ContentType, key: str) -> bool:
    """A type-level capability (``edit_posts``, ``publish_posts``...) of the type for ``user``."""
    if not user:
        return False
    return user.has_cap(content_type.caps[key])
