"""The content item service: one set of rules for every content type, independent of HTTP.

Items (posts, pages, blocks, venues, organizers, events...) are rows of ``posts``. This package
reads them (``get_item``, ``query_items``, ``load_related``), writes them (``create_item``,
``update_item``, ``trash_item``, ``delete_item``) and knows their addresses (``permalink``,
``sample_permalink``), following the reference's wp_insert_post and WP_Query rules:

* dates are stored twice, the site's wall time and UTC; a draft without an explicit date
  "floats" (no UTC date) and takes the current time when published; a ``publish`` item dated in
  the future is stored as ``future``, and a ``future`` item whose time has come is published
  lazily by ``publish_due_items`` (no cron: a guarded UPDATE at most once a second per process);
* slugs are generated from the title on publish, unique per type (and per parent for
  hierarchical types), ``__trashed`` while in the trash and restored on the way out;
* sticky posts live in the ``sticky_posts`` option; the featured image, template, post format
  and registered meta live in the JSON ``meta`` column.

Callers own connections and transactions: readers pass a connection from ``Site.read()``,
writers one from ``Site.write()``. A listing page costs a fixed number of statements whatever
its size: one for the page and its total (a window count), then one grouped statement each
for terms, revision counts, featured media and page paths (``load_related``).

The modules, each building only on those above it:

* ``record``: the ``Item`` record, the service ``Context``, the site's zone and dates, reads of
  single items;
* ``queries``: collections (``ItemQuery``, ``query_items``), search, stickies first;
* ``relations``: what a page of items needs besides its rows (``load_related``, ``page_uris``);
* ``permalinks``: addresses and the slug rules of items;
* ``writes``: creating, updating, trashing and deleting items, sticky posts, scheduled items.

Callers use the names below through this package (``from calpress.content import items``); the
modules are its implementation.
"""

from .permalinks import (
    MAX_SLUG,
    RESERVED_SLUGS,
    SLUGLESS_STATUSES,
    generated_slugs,
    lock_slugs,
    permalink,
    plain_link_forced,
    remember_slug,
    sample_permalink,
    slugs_known,
    taken_slugs,
    unique_item_slug,
)
from .queries import (
    SEARCH_COLUMNS,
    ItemPage,
    ItemQuery,
    TaxFilter,
    author_counts,
    escape_like,
    months,
    query_items,
    query_items_known,
    search_terms,
    status_counts,
    stickies_first,
    used_formats,
)
from .record import (
    DEFAULT_PERMALINK_STRUCTURE,
    DESIRED_SLUG_KEY,
    FORMAT_KEY,
    HIERARCHY_LIMIT,
    TEMPLATE_KEY,
    THUMBNAIL_KEY,
    TRASH_STATUS_KEY,
    TRASH_TIME_KEY,
    Context,
    Item,
    date_gmt,
    get_item,
    get_items,
    input_date,
    int_list,
    lock_item,
    now_utc,
    public_status,
    read_item,
    rest_date,
    site_zone,
    to_local,
    to_utc,
)
from .relations import Related, get_items_with_parents, load_related, page_uris, revision_counts
from .writes import (
    DEFAULT_TRASH_DAYS,
    PUBLISH_CHECK_SECONDS,
    ItemChanges,
    ItemError,
    Prepared,
    check_author,
    check_featured_media,
    check_parent,
    create_item,
    delete_item,
    filter_markup,
    merge_meta,
    prepare_create,
    publish_due_items,
    set_sticky,
    trash_enabled,
    trash_item,
    update_item,
)

__all__ = [
    "author_counts",
    "check_author",
    "check_featured_media",
    "check_parent",
    "Context",
    "create_item",
    "prepare_create",
    "Prepared",
    "date_gmt",
    "DEFAULT_PERMALINK_STRUCTURE",
    "DEFAULT_TRASH_DAYS",
    "delete_item",
    "DESIRED_SLUG_KEY",
    "escape_like",
    "filter_markup",
    "merge_meta",
    "months",
    "FORMAT_KEY",
    "generated_slugs",
    "get_item",
    "get_items",
    "get_items_with_parents",
    "read_item",
    "HIERARCHY_LIMIT",
    "input_date",
    "int_list",
    "Item",
    "ItemChanges",
    "ItemError",
    "ItemPage",
    "ItemQuery",
    "load_related",
    "lock_item",
    "lock_slugs",
    "MAX_SLUG",
    "now_utc",
    "page_uris",
    "permalink",
    "status_counts",
    "plain_link_forced",
    "public_status",
    "PUBLISH_CHECK_SECONDS",
    "publish_due_items",
    "query_items",
    "query_items_known",
    "Related",
    "RESERVED_SLUGS",
    "rest_date",
    "revision_counts",
    "sample_permalink",
    "SEARCH_COLUMNS",
    "search_terms",
    "set_sticky",
    "site_zone",
    "SLUGLESS_STATUSES",
    "stickies_first",
    "remember_slug",
    "slugs_known",
    "taken_slugs",
    "TaxFilter",
    "TEMPLATE_KEY",
    "THUMBNAIL_KEY",
    "to_local",
    "to_utc",
    "trash_enabled",
    "trash_item",
    "TRASH_STATUS_KEY",
    "TRASH_TIME_KEY",
    "unique_item_slug",
    "update_item",
    "used_formats",
]
