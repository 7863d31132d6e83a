"""The content definitions of one app: types, statuses, taxonomies, registered meta keys, the
meta capabilities that judge items and terms, and the hooks run when an item is published,
updated, trashed or deleted, or a term deleted (the reference's actions: the item and term services
call up through them to the menus, the revisions and the calendar, which they do not import).

WordPress keeps these in globals that ``register_post_type()`` and friends fill at ``init``.
calpress keeps them in one ``ContentRegistry`` that the app builds at start
(:func:`calpress.app.build_registry`): the core's definitions first
(:mod:`calpress.content.definitions`), then each feature package's own (the calendar's in
:mod:`calpress.calendar.registration`). Nothing registers at import time, so two apps (the tests
build many) never share definitions, and ``content/`` knows nothing of events.

Every service call reaches the registry through its :class:`~calpress.content.items.Context`
(``ctx.registry``) or the site (``site.registry``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .taxonomies import Taxonomy
from .types import ContentType, MetaField, Status, meta_field

# A meta capability mapper: (user, *arguments) -> the capabilities needed, or None to refuse
# outright (the reference's map_meta_cap returning do_not_allow).
MetaCap = Callable[..., "list[str] | None"]
# Called as hook(conn, ctx, item) in the writing transaction, whichever route wrote the item.
ItemHook = Callable[[Any, Any, Any], object]
# Called as hook(conn, registry, kind, object_id, name) in the deleting transaction: ``kind`` is
# "post_type" for an item (``name`` its type) or "taxonomy" for a term (``name`` its taxonomy).
DeleteHook = Callable[[Any, Any, str, int, str], object]

# A mapped capability may name further meta capabilities; this bounds the resolution.
_MAX_CAP_DEPTH = 8


class ContentRegistry:
    """Definitions in registration order (which is the order the route index, ``/types``,
    ``/taxonomies`` and ``/statuses`` list them in)."""

    def __init__(self) -> None:
        self.types: dict[str, ContentType] = {}
        self.statuses: dict[str, Status] = {}
        self.taxonomies: dict[str, Taxonomy] = {}
        self.meta_caps: dict[str, MetaCap] = {}
        self.publish_hooks: list[ItemHook] = []
        self.update_hooks: list[ItemHook] = []
        self.trash_hooks: list[ItemHook] = []
        self.delete_hooks: list[DeleteHook] = []
        # Types registered without REST routes (``/types/{name}`` answers rest_cannot_read_type
        # for these rather than rest_type_invalid).
        self.non_rest_types: set[str] = set()
        # (priority, order, name, registration, object type or None for every type)
        self._meta: list[tuple[int, int, str, dict[str, Any], str | None]] = []
        self._meta_by_type: dict[str, dict[str, MetaField]] = {}

    # -- registering ------------------------------------------------------------------------------

    def add_type(self, content_type: ContentType) -> ContentType:
        self.types[content_type.name] = content_type
        self._meta_by_type.clear()
        return content_type

    def add_non_rest_type(self, name: str) -> None:
        self.non_rest_types.add(name)

    def add_status(self, status: Status) -> Status:
        self.statuses[status.name] = status
        return status

    def add_taxonomy(self, taxonomy: Taxonomy) -> Taxonomy:
        self.taxonomies[taxonomy.name] = taxonomy
        return taxonomy

    def attach_taxonomy(self, taxonomy_name: str, type_name: str) -> None:
        """Let an existing taxonomy classify another type (register_taxonomy_for_object_type)."""
        taxonomy = self.taxonomies[taxonomy_name]
        if type_name not in taxonomy.object_types:
            self.taxonomies[taxonomy_name] = dataclasses.replace(taxonomy, object_types=(*taxonomy.object_types, type_name))

    def add_meta(self, name: str, registration: dict[str, Any], *, object_type: str | None = None, priority: int = 10) -> None:
        """Register a meta key shown in (and writable through) ``meta`` (register_meta with
        show_in_rest): for every type, or for ``object_type`` only. Keys are listed by
        ``priority`` (the reference's ``init`` priority of the registering code), then in
        registration order."""
        self._meta.append((priority, len(self._meta), name, dict(registration), object_type))
        self._meta_by_type.clear()

    def map_meta_cap(self, capability: str, mapper: MetaCap) -> None:
        self.meta_caps[capability] = mapper

    def on_publish(self, hook: ItemHook) -> None:
        """Run ``hook`` when an item, new or not, becomes published (the reference's
        ``transition_post_status`` into publish)."""
        self.publish_hooks.append(hook)

    def on_update(self, hook: ItemHook) -> None:
        """Run ``hook`` at the end of an update that keeps its history (``store_revision``; the
        reference's ``post_updated``)."""
        self.update_hooks.append(hook)

    def on_trash(self, hook: ItemHook) -> None:
        """Run ``hook`` when an item is trashed (the reference's ``trash_{post_type}``)."""
        self.trash_hooks.append(hook)

    def on_delete(self, hook: DeleteHook) -> None:
        """Run ``hook`` when an item or a term is deleted for good (the reference's
        ``deleted_post`` and ``delete_term``)."""
        self.delete_hooks.append(hook)

    # -- reading ----------------------------------------------------------------------------------

    def type_by_base(self, rest_base: str) -> ContentType | None:
        for content_type in self.types.values():
            if content_type.rest_base == rest_base:
                return content_type
        return None

    def rest_types(self) -> list[ContentType]:
        """The content types served in REST, in registration order."""
        return [content_type for content_type in self.types.values() if content_type.show_in_rest]

    def taxonomies_for_type(self, type_name: str) -> list[Taxonomy]:
        """The taxonomies that classify ``type_name`` (the reference's get_object_taxonomies)."""
        return [taxonomy for taxonomy in self.taxonomies.values() if type_name in taxonomy.object_types]

    def rest_taxonomies(self) -> list[Taxonomy]:
        return [taxonomy for taxonomy in self.taxonomies.values() if taxonomy.show_in_rest]

    def rest_taxonomies_of(self, type_name: str) -> list[Taxonomy]:
        """The REST-visible taxonomies of a type, in registration order."""
        return [taxonomy for taxonomy in self.taxonomies_for_type(type_name) if taxonomy.show_in_rest]

    def write_statuses(self) -> list[str]:
        """The statuses an item may be given (every registered status that is not internal)."""
        return [name for name, status in self.statuses.items() if not status.internal]

    def list_statuses(self) -> list[str]:
        """The statuses a listing may ask for: every registered one, and ``any``."""
        return [*self.statuses, "any"]

    def registered_meta(self, content_type: ContentType) -> dict[str, MetaField]:
        """The meta keys of a type in the reference's order (built once per type). Empty for
        types without custom-fields support."""
        found = self._meta_by_type.get(content_type.name)
        if found is None:
            found = {}
            if content_type.has_rest_feature("custom-fields"):
                shared = sorted(entry for entry in self._meta if entry[4] is None)
                own = sorted(entry for entry in self._meta if entry[4] == content_type.name)
                for _, _, name, registration, _ in [*shared, *own]:
                    found[name] = meta_field(name, registration)
            self._meta_by_type[content_type.name] = found
        return found

    # -- capabilities -----------------------------------------------------------------------------

    def user_can(self, user: Any, capability: str, *args: Any, _depth: int = 0) -> bool:
        """Whether ``user`` holds ``capability``: content meta capabilities (``edit_post``,
        ``edit_term``...) are mapped here to the capabilities they need, which may be meta
        capabilities in turn (``assign_categories``); anything else is the user's own answer
        (roles, extra grants and the user-level meta capabilities of :mod:`calpress.auth`)."""
        if not user:
            return False
        mapper = self.meta_caps.get(capability)
        if mapper is None:
            return bool(user.can(capability, *args))
        needed = mapper(user, *args)
        if needed is None or _depth >= _MAX_CAP_DEPTH:
            return False
        return all(cap == "exist" or self.user_can(user, cap, _depth=_depth + 1) for cap in needed)

    def type_can(self, user: Any, content_type: ContentType, key: str) -> bool:
        """A type-level capability (``edit_posts``, ``publish_posts``...) of the type for ``user``."""
        return self.user_can(user, content_type.caps[key])
