"""calpress.content.taxonomies: the definitions the app registers (core and calendar) and the
capability mapping of terms."""

from __future__ import annotations

from calpress.app import build_registry
from calpress.auth.users import User
from calpress.content.taxonomies import DEFAULT_CATEGORY_ID
from calpress.content.terms import Term

REGISTRY = build_registry()


# -- registry -------------------------------------------------------------------------------------


def test_registry_definitions() -> None:
    assert [t.name for t in REGISTRY.rest_taxonomies()] == ["category", "post_tag", "nav_menu", "wp_pattern_category", "cal_events_cat"]
    assert [t.name for t in REGISTRY.taxonomies_for_type("post")] == ["category", "post_tag", "post_format"]
    assert [t.name for t in REGISTRY.taxonomies_for_type("cal_events")] == ["post_tag", "cal_events_cat"]
    category = REGISTRY.taxonomies.get("category")
    assert category is not None and category.hierarchical and category.rest_base == "categories"
    assert category.rest_namespace == "cms"  # the namespace key; the REST layer names it cms/v2
    assert category.labels["name_admin_bar"] == "category"  # no singular name given: the taxonomy name
    assert list(category.labels)[-2:] == ["menu_name", "name_admin_bar"]
    tags = REGISTRY.taxonomies.get("post_tag")
    assert tags is not None and not tags.hierarchical and tags.labels["popular_items"] == "Popular Tags"
    events = REGISTRY.taxonomies.get("cal_events_cat")
    assert events is not None and events.rest_base == "cal_events_cat" and events.label == "Event Categories"
    assert events.labels["archives"] == "All Event Categories" and events.labels["parent_item"] == "Parent Event Category"
    assert events.caps.as_dict() == {
        "manage_terms": "publish_cal_events", "edit_terms": "publish_cal_events",
        "delete_terms": "publish_cal_events", "assign_terms": "edit_cal_events",
    }
    patterns = REGISTRY.taxonomies.get("wp_pattern_category")
    assert patterns is not None and not patterns.public and not patterns.show_tagcloud and patterns.query_var is None
    fmt = REGISTRY.taxonomies.get("post_format")
    assert fmt is not None and not fmt.show_in_rest
    assert REGISTRY.taxonomies.get("nope") is None


def test_capability_mapping() -> None:
    def user(role: str) -> User:
        return User(id=7, login=role, email=f"{role}@x", roles=[role])

    can = REGISTRY.user_can

    category = Term(5, "category", "C", "c")
    tag = Term(6, "post_tag", "T", "t")
    event_category = Term(7, "cal_events_cat", "E", "e")
    default = Term(DEFAULT_CATEGORY_ID, "category", "Uncategorized", "uncategorized")
    assert can(user("editor"), "edit_term", category) and not can(user("author"), "edit_term", category)
    assert can(user("contributor"), "assign_term", tag) and not can(user("subscriber"), "assign_term", tag)
    assert can(user("contributor"), "assign_post_tags") and not can(user("contributor"), "edit_post_tags")
    assert can(user("author"), "edit_term", event_category) and not can(user("contributor"), "delete_term", event_category)
    assert can(user("contributor"), "assign_term", event_category)
    assert can(user("editor"), "delete_term", category)
    assert not can(user("administrator"), "delete_term", default)
    assert can(user("administrator"), "delete_term", default, 99)  # another default category is set
    assert not can(user("administrator"), "edit_term", None)
