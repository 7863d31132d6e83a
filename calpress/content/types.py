"""What a content type and a status are: the definitions the registry holds.

One generic controller and one item service serve every content type from these definitions:
which fields a type has follows its ``supports`` list, its capabilities follow its capability
plural, and its routes follow its REST base (cms-api.md 2.1). Nothing is registered here: the
app's :class:`calpress.content.registry.ContentRegistry` holds the definitions, which
:mod:`calpress.content.definitions` (the core's) and each feature package (the calendar's) add.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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
    # The key of its REST namespace (the REST layer's namespace table names it on the wire).
    rest_namespace: str = "cms"
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
    # The path of its archive when ``has_archive`` is True (the reference's rewrite slug):
    # menus link to it.
    archive_slug: str = ""
    show_ui: bool | None = None  # None: follows ``public``
    show_in_nav_menus: bool | None = None  # None: follows ``public``
    exclude_from_search: bool | None = None  # None: follows not ``public`` (the reference's default)
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
    def searchable(self) -> bool:
        """Whether the site's search lists the type's items (public, not excluded from search)."""
        excluded = not self.public if self.exclude_from_search is None else self.exclude_from_search
        return self.public and not excluded

    @property
    def core_like(self) -> bool:
        """post and page get author, replies and revision links whatever they support."""
        return self.name in ("post", "page")

    @property
    def has_revisions(self) -> bool:
        return "revisions" in self.supports


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

_EMPTY_VALUES: dict[str, Any] = {"string": "", "boolean": False, "integer": 0, "number": 0, "array": [], "object": {}}


@dataclass(frozen=True)
class MetaField:
    """A meta key shown in and writable through ``meta`` (cms-api.md 2.17)."""

    name: str
    single: bool
    schema: dict[str, Any]
    # The registration's own rule for a value written through ``meta`` beyond its schema (a
    # ``validate`` callable, value -> bool), as the reference's registrations add one.
    check: Callable[[Any], bool] | None = None

    @property
    def default(self) -> Any:
        """The value shown when nothing is stored: the schema default, or [] for a list."""
        if not self.single:
            return []
        default = self.schema.get("default")
        return list(default) if isinstance(default, list) else dict(default) if isinstance(default, dict) else default


def meta_field(name: str, registration: dict[str, Any]) -> MetaField:
    """The field a ``register_meta``-style registration describes (type, default, schema keys)."""
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
    return MetaField(name, True, schema, registration.get("validate"))
