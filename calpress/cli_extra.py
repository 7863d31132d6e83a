"""Post meta, option patch and media commands in WP-CLI's forms (issue 15):

    calpress post meta list <id> [--format=...] [--fields=...|--field=...]
    calpress post meta get <id> <key> [--format=plaintext|json]
    calpress post meta update <id> <key> <value> [--format=plaintext|json]
    calpress post meta delete <id> <key>
    calpress option patch insert|update <name> <key-path>... <value> [--format=plaintext|json]
    calpress option patch delete <name> <key-path>...
    calpress media list [--format=...] [--fields=...|--field=...]
    calpress media regenerate [<id>...] [--yes]

Post meta is the item's ``posts.meta`` (a JSON object per item). The REST API's ``meta`` field
reads and writes registered keys only (``ContentRegistry.registered_meta``; others are ignored),
while WP-CLI reaches every key, protected (``_``) ones included. So these commands read and write
the stored object directly: one write transaction that locks the item's row, changes the key and
records the item's change (``changes.record("item", "update", id)``), as ``trash_item`` writes its
own meta, so every serving worker's caches follow. A registered key that is not single is stored
as a list, as the REST API stores it. An event's dates, time zone and links are refused
(``EVENT_MIRRORED``): their meta only mirrors the event's ``events`` row and links.

``option patch`` reads the stored option (or its default) in the write transaction, walks the
key path and stores the result with ``option update``'s check (``_checked_option``).

``media list`` goes through ``/cms/v2/media``; ``media regenerate`` cuts every registered size
again from each upload with the code the media route's post-process uses
(``attachments.create_missing_sizes``) and stores the new metadata through the item service.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

import orjson

from .cli import _checked_option, _format_value, input_value
from .cli_content import Fields, add_command, list_items, rest_all, run_with_app, show_list
from .cli_format import add_options
from .cli_site import CliError, _open_site

# -- post meta ------------------------------------------------------------------------------------


def _meta_value(args: argparse.Namespace) -> Any:
    return input_value(args.value, getattr(args, "format", None))


def _read_item(site: Any, item_id: int) -> Any:
    from .content import items

    with site.read() as conn:
        item = items.get_item(conn, item_id)
    if item is None:
        raise CliError(f"Could not find the post with ID {item_id}.")
    return item


# An event's dates, time zone and links live in its ``events`` row and link tables; these keys
# only mirror them (calendar/events.py), so they are changed through ``calpress event update``.
EVENT_MIRRORED = frozenset({"_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC",
                            "_EventTimezone", "_EventAllDay", "_EventVenueID", "_EventOrganizerID"})


def _writable(item: Any, key: str) -> None:
    if item.type == "cal_events" and key in EVENT_MIRRORED:
        raise CliError(f"'{key}' mirrors the event's own fields: change it with `calpress event update {item.id}`.")


def _change_meta(site: Any, item_id: int, change: Callable[[dict[str, Any], Any], bool]) -> bool:
    """Lock the item, let ``change(meta, item)`` edit its meta in place, and store it (recording
    the item's change) when it says it changed something; returns what it said."""
    import sqlalchemy as sa

    from .content import items
    from .store.changes import record as record_change
    from .store.tables import posts

    with site.write() as conn:
        found = items.get_item(conn, item_id)
        current = items.lock_item(conn, item_id, found.type) if found is not None else None
        if current is None:
            raise CliError(f"Could not find the post with ID {item_id}.")
        meta = dict(current.meta)
        changed = change(meta, current)
        if changed:
            conn.execute(sa.update(posts).where(posts.c.id == item_id).values(meta=meta))
            record_change(conn, "item", "update", item_id)
    return changed


def cmd_meta_list(args: argparse.Namespace) -> int:
    _, site = _open_site(args)
    try:
        item = _read_item(site, args.id)
    finally:
        site.close()
    rows = [{"post_id": item.id, "meta_key": key, "meta_value": value} for key, value in item.meta.items()]
    fields = ["post_id", "meta_key", "meta_value"]
    return show_list(args, rows, fields, fields, None)


def cmd_meta_get(args: argparse.Namespace) -> int:
    _, site = _open_site(args)
    try:
        item = _read_item(site, args.id)
    finally:
        site.close()
    if args.key not in item.meta:
        # WP-CLI prints nothing and exits 1; a message says why.
        raise CliError(f"Could not find custom field '{args.key}' on post {args.id}.")
    print(_format_value(item.meta[args.key], args.format))
    return 0


def cmd_meta_update(args: argparse.Namespace) -> int:
    value = _meta_value(args)
    _, site = _open_site(args)
    try:
        registry = site.registry

        def change(meta: dict[str, Any], item: Any) -> bool:
            _writable(item, args.key)
            content_type = registry.types.get(item.type)
            field = registry.registered_meta(content_type).get(args.key) if content_type is not None else None
            stored = [value] if field is not None and not field.single and not isinstance(value, list) else value
            if args.key in meta and meta[args.key] == stored:
                return False
            meta[args.key] = stored
            return True

        changed = _change_meta(site, args.id, change)
    finally:
        site.close()
    if changed:
        print(f"Success: Updated custom field '{args.key}'.")
    else:
        print(f"Success: Value passed for custom field '{args.key}' is unchanged.")
    return 0


def cmd_meta_delete(args: argparse.Namespace) -> int:
    _, site = _open_site(args)
    try:
        def change(meta: dict[str, Any], item: Any) -> bool:
            _writable(item, args.key)
            return meta.pop(args.key, _MISSING) is not _MISSING

        deleted = _change_meta(site, args.id, change)
    finally:
        site.close()
    if not deleted:
        raise CliError(f"Could not delete custom field '{args.key}'.")
    print(f"Success: Deleted custom field '{args.key}'.")
    return 0


_MISSING = object()

# -- option patch ---------------------------------------------------------------------------------


def _step(container: Any, key: str) -> Any:
    """The key of ``container`` a path step names (a list takes an index), or _MISSING."""
    if isinstance(container, dict):
        return key if key in container else _MISSING
    if isinstance(container, list):
        try:
            index = int(key)
        except ValueError:
            return _MISSING
        return index if -len(container) <= index < len(container) else _MISSING
    return _MISSING


def patch_value(current: Any, action: str, path: list[str], value: Any = None) -> Any:
    """``current`` (not changed) with the key at ``path`` inserted, updated or deleted as WP-CLI's
    option patch does: every step but the last must exist; insert refuses an existing key,
    update and delete a missing one. Raises CliError."""
    result = orjson.loads(orjson.dumps(current))  # a deep copy of a JSON value
    parent: Any = result
    for key in path[:-1]:
        found = _step(parent, key)
        if found is _MISSING:
            raise CliError(f'No data exists for key "{key}"')
        parent = parent[found]
    last = path[-1]
    if not isinstance(parent, (dict, list)):
        raise CliError(f'Cannot create key "{last}" on this value: it is no array or object.')
    found = _step(parent, last)
    if action == "insert":
        if found is not _MISSING:
            raise CliError(f'Cannot create key "{last}": it already exists.')
        if isinstance(parent, list):
            if last not in ("", str(len(parent))):
                raise CliError(f'Cannot create key "{last}" on this list: only the next index, {len(parent)}, can be added.')
            parent.append(value)
        else:
            parent[last] = value
    elif found is _MISSING:
        raise CliError(f'No data exists for key "{last}"')
    elif action == "update":
        parent[found] = value
    else:
        del parent[found]
    return result


def cmd_option_patch(args: argparse.Namespace) -> int:
    from .site import OPTION_DEFAULTS

    path = list(args.key_path)
    value: Any = None
    if args.action != "delete":
        if len(path) < 2:
            raise CliError("Please provide a key path and a value.")
        value = input_value(path.pop(), args.format)
    _, site = _open_site(args)
    try:
        with site.write() as conn:
            current = site.stored_option(conn, args.name, _MISSING, for_update=True)
            if current is _MISSING:
                if args.name not in OPTION_DEFAULTS:
                    raise CliError(f"Cannot load option '{args.name}'.")
                current = OPTION_DEFAULTS[args.name]
            if not isinstance(current, (dict, list)):
                raise CliError(f"Cannot patch option '{args.name}': its value is no array or object.")
            patched = patch_value(current, args.action, path, value)
            if patched == current:
                unchanged = True
            else:
                unchanged = False
                site.update_option(conn, args.name, _checked_option(args.name, patched))
    finally:
        site.close()
    if unchanged:
        print(f"Success: Value passed for '{args.name}' option is unchanged.")
    else:
        print(f"Success: Updated '{args.name}' option.")
    return 0


# -- media ----------------------------------------------------------------------------------------

MEDIA_FIELDS: Fields = {
    "ID": lambda m: m["id"],
    "title": lambda m: (m.get("title") or {}).get("raw", "") if isinstance(m.get("title"), dict) else m.get("title", ""),
    "file": lambda m: (m.get("media_details") or {}).get("file", "") if isinstance(m.get("media_details"), dict) else "",
    "source_url": lambda m: m.get("source_url", ""),
    "mime_type": lambda m: m.get("mime_type", ""),
    "date": lambda m: str(m.get("date") or "").replace("T", " "),
    "post_parent": lambda m: m.get("post") or 0,
    "alt_text": lambda m: m.get("alt_text", ""),
}
MEDIA_DEFAULT = ["ID", "title", "file", "mime_type", "date"]


def cmd_media_list(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return list_items(args, MEDIA_FIELDS, rest_all(app, "/cms/v2/media", user, {}), MEDIA_DEFAULT, "ID")

    return run_with_app(args, run)


def _image_ids(site: Any, given: list[int]) -> list[Any]:
    """The image attachments to regenerate: the given ids (each checked), else every one."""
    import sqlalchemy as sa

    from .content import items
    from .store.tables import posts

    with site.read() as conn:
        if not given:
            given = list(conn.execute(sa.select(posts.c.id).where(
                posts.c.type == "attachment", posts.c.mime_type.like("image/%")).order_by(posts.c.id.desc())).scalars())
        found = items.get_items(conn, given)
    chosen = []
    for item_id in given:
        item = found.get(item_id)
        if item is None or item.type != "attachment":
            raise CliError(f"Could not find the attachment with ID {item_id}.")
        chosen.append(item)
    return chosen


def cmd_media_regenerate(args: argparse.Namespace) -> int:
    from .content import items as item_service
    from .content.items import Context, ItemChanges
    from .media import attachments

    if not args.ids and not args.yes:
        raise CliError("This regenerates the sizes of every image: pass --yes to go ahead (no prompt is shown).")
    _, site = _open_site(args)
    try:
        chosen = _image_ids(site, args.ids)
        if not chosen:
            raise CliError("No images found.")
        total, done = len(chosen), 0
        for number, item in enumerate(chosen, 1):
            name = item.title or str(item.meta.get(attachments.FILE_KEY) or item.id)
            label = f'"{name}" (ID {item.id})'
            # Every registered size is "missing": all are cut again from the upload.
            metadata = item.meta.get(attachments.METADATA_KEY)
            emptied = {**item.meta, attachments.METADATA_KEY: {**metadata, "sizes": {}}} if isinstance(metadata, dict) else item.meta
            if not attachments.missing_sizes(emptied, item.mime_type):
                print(f"{number}/{total} No thumbnail regeneration needed for {label}.")
                done += 1
                continue
            regenerated = attachments.create_missing_sizes(site.storage, emptied, item.mime_type)
            if regenerated is None:
                print(f"Warning: Can't find {label}: its upload is missing or unreadable.")
                continue
            ctx = Context.of(site, options=site.load_options())
            with site.write() as conn:
                item_service.update_item(conn, ctx, item, ItemChanges(protected_meta={attachments.METADATA_KEY: regenerated}),
                                         store_revision=False)
            print(f"{number}/{total} Regenerated thumbnails for {label}.")
            done += 1
    finally:
        site.close()
    noun = "image" if total == 1 else "images"
    if done < total:
        raise CliError(f"Only regenerated {done} of {total} {noun}.")
    print(f"Success: Regenerated {done} of {total} {noun}.")
    return 0


# -- the parsers ----------------------------------------------------------------------------------


def register(post_commands: Any, option_commands: Any, media_commands: Any,
             global_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add post meta (to the post command's group, from cli_content.register), option patch,
    media list and media regenerate."""
    command = functools.partial(add_command, global_options=global_options, user=False)

    meta = post_commands.add_parser("meta", help="a post's custom fields (every key, protected ones too)")
    metas = meta.add_subparsers(dest="meta_command", required=True)
    listing = command(metas, "list", "list a post's custom fields")
    listing.add_argument("id", type=int)
    add_options(listing, formats=("table", "json", "csv", "yaml", "count"))
    get = command(metas, "get", "print a custom field's value")
    get.add_argument("id", type=int)
    get.add_argument("key")
    get.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    update = command(metas, "update", "set a custom field")
    update.add_argument("id", type=int)
    update.add_argument("key")
    update.add_argument("value")
    update.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    delete = command(metas, "delete", "delete a custom field")
    delete.add_argument("id", type=int)
    delete.add_argument("key")

    patch = command(option_commands, "patch", "insert, update or delete a key inside an array/object option")
    patch.add_argument("action", choices=("insert", "update", "delete"))
    patch.add_argument("name")
    patch.add_argument("key_path", metavar="key-path", nargs="+", help="the keys to walk (then the value, but for delete)")
    patch.add_argument("--format", choices=("plaintext", "json"), default="plaintext")

    listing = command(media_commands, "list", "list attachments, through the REST API", user=True)
    add_options(listing)
    regenerate = command(media_commands, "regenerate", "cut the image sizes again (every image when no id is given)")
    regenerate.add_argument("ids", metavar="id", type=int, nargs="*")
    regenerate.add_argument("--yes", action="store_true", help="regenerate every image without asking")


HANDLERS: dict[tuple[str, ...], Callable[[argparse.Namespace], int]] = {
    ("post", "meta", "list"): cmd_meta_list,
    ("post", "meta", "get"): cmd_meta_get,
    ("post", "meta", "update"): cmd_meta_update,
    ("post", "meta", "delete"): cmd_meta_delete,
    ("option", "patch"): cmd_option_patch,
    ("media", "list"): cmd_media_list,
    ("media", "regenerate"): cmd_media_regenerate,
}
