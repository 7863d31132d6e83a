"""Taxonomies as definitions: what a taxonomy classifies, whether its terms nest, which
capabilities manage and assign them, and where it answers in REST and on the public site.

A taxonomy (``category``, ``post_tag``, ``cal_events_cat``...) is registered in the app's
:class:`~calpress.content.registry.ContentRegistry`; the terms themselves are stored and queried
by :mod:`calpress.content.terms`, one service for every taxonomy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_CATEGORY_ID = 1
DEFAULT_CATEGORY_NAME = "Uncategorized"
# The key of the REST namespace taxonomies answer in (the REST layer names it on the wire).
REST_NAMESPACE = "cms"

# -- definitions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TermCaps:
    """The capabilities a taxonomy checks; each may be a meta capability the registry maps
    (``assign_categories`` -> ``edit_posts``: content/permissions.py)."""

    manage_terms: str = "manage_categories"
    edit_terms: str = "manage_categories"
    delete_terms: str = "manage_categories"
    assign_terms: str = "edit_posts"

    def as_dict(self) -> dict[str, str]:
        return {
            "manage_terms": self.manage_terms,
            "edit_terms": self.edit_terms,
            "delete_terms": self.delete_terms,
            "assign_terms": self.assign_terms,
        }


@dataclass(frozen=True, eq=False)
class Taxonomy:
    """A registered taxonomy. ``labels`` is the complete label set (see ``taxonomy_labels``).

    ``rewrite_slug`` is the path of its public term pages (``category`` gives
    ``/category/news/``); None means query-string links (``/?taxonomy=x&term=news``).
    """

    name: str
    object_types: tuple[str, ...]
    labels: dict[str, str | None]
    hierarchical: bool = False
    description: str = ""
    caps: TermCaps = TermCaps()
    public: bool = True
    publicly_queryable: bool = True
    show_ui: bool = True
    show_in_nav_menus: bool = True
    show_tagcloud: bool = True
    show_in_quick_edit: bool = True
    show_admin_column: bool = False
    show_in_rest: bool = False
    rest_base: str = ""
    rest_namespace: str = REST_NAMESPACE
    rewrite_slug: str | None = None
    rewrite_hierarchical: bool = False
    query_var: str | None = None

    @property
    def label(self) -> str:
        return str(self.labels.get("name") or self.name)


# The reference's default labels: (non-hierarchical, hierarchical).
_NAME_HELP = "The name is how it appears on your site."
_SLUG_HELP = (
    "The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and "
    "contains only letters, numbers, and hyphens."
)
_PARENT_HELP = "Assign a parent term to create a hierarchy. The term Jazz, for example, would be the parent of Bebop and Big Band."
_DESC_HELP = "The description is not prominent by default; however, some themes may show it."
_DEFAULT_LABELS: dict[str, tuple[str | None, str | None]] = {
    "name": ("Tags", "Categories"),
    "singular_name": ("Tag", "Category"),
    "search_items": ("Search Tags", "Search Categories"),
    "popular_items": ("Popular Tags", None),
    "all_items": ("All Tags", "All Categories"),
    "parent_item": (None, "Parent Category"),
    "parent_item_colon": (None, "Parent Category:"),
    "name_field_description": (_NAME_HELP, _NAME_HELP),
    "slug_field_description": (_SLUG_HELP, _SLUG_HELP),
    "parent_field_description": (None, _PARENT_HELP),
    "desc_field_description": (_DESC_HELP, _DESC_HELP),
    "edit_item": ("Edit Tag", "Edit Category"),
    "view_item": ("View Tag", "View Category"),
    "update_item": ("Update Tag", "Update Category"),
    "add_new_item": ("Add Tag", "Add Category"),
    "new_item_name": ("New Tag Name", "New Category Name"),
    "separate_items_with_commas": ("Separate tags with commas", None),
    "add_or_remove_items": ("Add or remove tags", None),
    "choose_from_most_used": ("Choose from the most used tags", None),
    "not_found": ("No tags found.", "No categories found."),
    "no_terms": ("No tags", "No categories"),
    "filter_by_item": (None, "Filter by category"),
    "items_list_navigation": ("Tags list navigation", "Categories list navigation"),
    "items_list": ("Tags list", "Categories list"),
    "most_used": ("Most Used", "Most Used"),
    "back_to_items": ("&larr; Go to Tags", "&larr; Go to Categories"),
    "item_link": ("Tag Link", "Category Link"),
    "item_link_description": ("A link to a tag.", "A link to a category."),
}


def taxonomy_labels(name: str, hierarchical: bool, given: Mapping[str, str | None] | None = None) -> dict[str, str | None]:
    """The full label set, as the reference completes it: the tag or category defaults, then
    ``menu_name``, overridden by ``given``, then the derived labels a taxonomy did not give
    (``name_admin_bar`` falls back to the taxonomy's own name when it has no singular name)."""
    own: dict[str, str | None] = dict(given or {})
    if own.get("singular_name") is None and own.get("name") is not None:
        own["singular_name"] = own["name"]
    if own.get("name_admin_bar") is None:
        own["name_admin_bar"] = own.get("singular_name") or name
    if own.get("menu_name") is None and own.get("name") is not None:
        own["menu_name"] = own["name"]
    if own.get("all_items") is None and own.get("menu_name") is not None:
        own["all_items"] = own["menu_name"]
    if own.get("archives") is None and own.get("all_items") is not None:
        own["archives"] = own["all_items"]
    labels = {key: pair[1 if hierarchical else 0] for key, pair in _DEFAULT_LABELS.items()}
    labels["menu_name"] = labels["name"]
    labels.update(own)
    return labels


def define_taxonomy(
    name: str,
    object_types: Sequence[str],
    *,
    labels: Mapping[str, str | None] | None = None,
    hierarchical: bool = False,
    public: bool = True,
    publicly_queryable: bool | None = None,
    show_ui: bool | None = None,
    show_in_nav_menus: bool | None = None,
    show_tagcloud: bool | None = None,
    show_in_quick_edit: bool | None = None,
    rest_base: str | None = None,
    query_var: str | None | bool = True,
    **options: Any,
) -> Taxonomy:
    """A taxonomy definition with the defaults the reference's register_taxonomy derives: the
    visibility flags follow ``public`` and ``show_ui``, the REST base and query variable default
    to the name. Register it with ``ContentRegistry.add_taxonomy``."""
    ui = public if show_ui is None else show_ui
    taxonomy = Taxonomy(
        name=name,
        object_types=tuple(object_types),
        labels=taxonomy_labels(name, hierarchical, labels),
        hierarchical=hierarchical,
        public=public,
        publicly_queryable=public if publicly_queryable is None else publicly_queryable,
        show_ui=ui,
        show_in_nav_menus=public if show_in_nav_menus is None else show_in_nav_menus,
        show_tagcloud=ui if show_tagcloud is None else show_tagcloud,
        show_in_quick_edit=ui if show_in_quick_edit is None else show_in_quick_edit,
        rest_base=rest_base or name,
        query_var=name if query_var is True else (query_var or None),
        **options,
    )
    return taxonomy
