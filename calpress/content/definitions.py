"""The core's content definitions: the statuses, the post, page, attachment and pattern types, the
category, tag, format and pattern-category taxonomies, the block editor's meta key and the meta
capabilities of items and terms, as the reference registers them at ``init``.

``register(registry)`` puts them into the app's registry (``calpress.app.build_registry``);
feature packages add theirs afterwards (the calendar: :mod:`calpress.calendar.registration`).
"""

from __future__ import annotations

from typing import Any

from . import menus, revisions
from .permissions import register_meta_caps
from .registry import ContentRegistry
from .taxonomies import TermCaps, define_taxonomy
from .types import ContentType, Status, type_caps

# The reference's post and page declare ``'editor' => array( 'notes' => true )``.
_EDITOR_WITH_NOTES: dict[str, Any] = {"editor": [{"notes": True}]}
_POST_FEATURES = frozenset(
    {"title", "editor", "author", "thumbnail", "excerpt", "trackbacks", "custom-fields", "comments", "revisions", "post-formats"}
)
_PAGE_FEATURES = frozenset({"title", "editor", "author", "thumbnail", "page-attributes", "custom-fields", "comments", "revisions"})

# Types the reference registers without REST routes.
NON_REST_TYPES = ("revision", "custom_css", "customize_changeset", "oembed_cache", "user_request")


def register(registry: ContentRegistry) -> None:
    """Register the core's statuses, types, taxonomies, meta keys and meta capabilities."""
    registry.add_status(Status("publish", "Published", public=True))
    registry.add_status(Status("future", "Scheduled", protected=True))
    registry.add_status(Status("draft", "Draft", protected=True, date_floating=True))
    registry.add_status(Status("pending", "Pending", protected=True, date_floating=True))
    registry.add_status(Status("private", "Private", private=True))
    registry.add_status(Status("trash", "Trash", internal=True, show_in_list=False))
    registry.add_status(Status("auto-draft", "auto-draft", internal=True, show_in_list=False, date_floating=True))
    registry.add_status(Status("inherit", "inherit", internal=True, show_in_list=False))
    registry.add_status(Status("request-pending", "Pending", internal=True, show_in_list=False))
    registry.add_status(Status("request-confirmed", "Confirmed", internal=True, show_in_list=False))
    registry.add_status(Status("request-failed", "Failed", internal=True, show_in_list=False))
    registry.add_status(Status("request-completed", "Completed", internal=True, show_in_list=False))

    registry.add_type(
        ContentType(
            "post", "posts", "Posts", "Post", builtin=True, supports=_POST_FEATURES,
            icon="dashicons-admin-post", labels={"name_admin_bar": "Post"}, feature_args=_EDITOR_WITH_NOTES,
            rest_features=frozenset(
                {"title", "editor", "author", "excerpt", "thumbnail", "comments", "revisions", "post-formats", "custom-fields"}
            ),
        )
    )
    registry.add_type(
        ContentType(
            "page", "pages", "Pages", "Page", builtin=True, hierarchical=True, supports=_PAGE_FEATURES,
            caps=type_caps("page", "pages"), permalink="page", icon="dashicons-admin-page",
            labels={"name_admin_bar": "Page"}, feature_args=_EDITOR_WITH_NOTES,
            rest_features=frozenset(
                {"title", "editor", "author", "excerpt", "thumbnail", "comments", "revisions", "page-attributes", "custom-fields"}
            ),
        )
    )
    registry.add_type(
        ContentType(
            "attachment", "media", "Media", "Media", builtin=True, supports=frozenset({"title", "author", "comments"}),
            # The reference's fixed REST schema for attachments: meta and featured_media whatever
            # the type supports (featured_media is writable for audio and video files only).
            rest_features=frozenset({"title", "author", "comments", "revisions", "custom-fields", "thumbnail"}),
            caps=type_caps("post", "posts", create_posts="upload_files"), permalink="attachment",
            icon="dashicons-admin-media", default_status="inherit", show_ui=True, show_in_nav_menus=False,
            # Deleting media bypasses the trash (the reference's MEDIA_TRASH is off), and the
            # media controller serves neither revisions nor autosaves.
            can_trash=False, revisions_route=False, autosaves_route=False,
            labels={
                "name": "Media",
                "name_admin_bar": "Media",
                "add_new": "Add Media File",
                "add_new_item": "Add Media File",
                "edit_item": "Edit Media",
                "view_item": "View Media File",
                "attributes": "Attachment Attributes",
            },
            # Served as ``media`` by its own controller (api/cms_media.py).
        )
    )
    # Menus come where the reference registers them: their entries after media, their taxonomy
    # after tags (the route index lists them in that order).
    registry.add_type(menus.item_type())
    registry.add_type(
        ContentType(
            "wp_block", "blocks", "Patterns", "Pattern", builtin=True,
            supports=frozenset({"title", "excerpt", "editor", "revisions", "custom-fields"}),
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
        )
    )
    # Lifted out of ``meta`` into a top-level field by the blocks controller.
    registry.add_meta("wp_pattern_sync_status", {"type": "string", "single": True, "enum": ["partial", "unsynced"]},
                      object_type="wp_block")
    for name in NON_REST_TYPES:
        registry.add_non_rest_type(name)

    registry.add_taxonomy(define_taxonomy(
        "category",
        ("post",),
        hierarchical=True,
        caps=TermCaps("manage_categories", "edit_categories", "delete_categories", "assign_categories"),
        show_admin_column=True,
        show_in_rest=True,
        rest_base="categories",
        query_var="category_name",
        rewrite_slug="category",
        rewrite_hierarchical=True,
    ))
    registry.add_taxonomy(define_taxonomy(
        "post_tag",
        ("post",),
        caps=TermCaps("manage_post_tags", "edit_post_tags", "delete_post_tags", "assign_post_tags"),
        show_admin_column=True,
        show_in_rest=True,
        rest_base="tags",
        query_var="tag",
        rewrite_slug="tag",
    ))
    registry.add_taxonomy(menus.menu_taxonomy())
    registry.add_taxonomy(define_taxonomy(
        "post_format",
        ("post",),
        labels={"name": "Formats", "singular_name": "Format"},
        show_ui=False,
        show_in_nav_menus=False,
        rewrite_slug="type",
    ))
    registry.add_taxonomy(define_taxonomy(
        "wp_pattern_category",
        ("wp_block",),
        labels={
            "name": "Pattern Categories",
            "singular_name": "Pattern Category",
            "add_new_item": "Add Category",
            "add_or_remove_items": "Add or remove pattern categories",
            "back_to_items": "&larr; Go to Pattern Categories",
            "choose_from_most_used": "Choose from the most used pattern categories",
            "edit_item": "Edit Pattern Category",
            "item_link": "Pattern Category Link",
            "item_link_description": "A link to a pattern category.",
            "items_list": "Pattern Categories list",
            "items_list_navigation": "Pattern Categories list navigation",
            "new_item_name": "New Pattern Category Name",
            "no_terms": "No pattern categories",
            "not_found": "No pattern categories found.",
            "popular_items": "Popular Pattern Categories",
            "search_items": "Search Pattern Categories",
            "separate_items_with_commas": "Separate pattern categories with commas",
            "update_item": "Update Pattern Category",
            "view_item": "View Pattern Category",
        },
        public=False,
        show_ui=True,
        show_in_nav_menus=False,
        show_tagcloud=False,
        show_admin_column=True,
        show_in_rest=True,
        query_var=False,
    ))

    # The block editor registers footnotes for types with editor, revisions and custom fields, at a
    # later init priority than plugins register theirs, so it is listed after them.
    registry.add_meta("footnotes", {"type": "string"}, priority=20)
    register_meta_caps(registry)
    # What the item and term services call up to, as the reference hooks these on its actions.
    registry.on_publish(menus.add_published_page)
    registry.on_update(revisions.save_revision)
    registry.on_delete(menus.forget_object)
