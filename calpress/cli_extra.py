"""Post meta, option patch and media commands in WP-CLI's forms (issue 15):

    calpress post meta list <id> [--format=...] [--fields=...|--field=...]
    calpress post meta get <id> <key> [--format=plaintext|json]
    calpress post meta update <id> <key> <value> [--format=plaintext|json]
    calpress post meta delete <id> <key>
    calpress post meta add <id> <key> <value> [--format=plaintext|json]
    calpress post meta patch insert|update|delete <id> <key> <key-path>... [<value>] [--format=plaintext|json]
    calpress post meta pluck <id> <key> <key-path>... [--format=plaintext|json|yaml]
    calpress option patch insert|update <name> <key-path>... <value> [--format=plaintext|json]
    calpress option patch delete <name> <key-path>...
    calpress media list [--format=...] [--fields=...|--field=...]
    calpress media regenerate [<id>...] [--yes] [--only-missing] [--image_size=<name>...]

Post meta is the item's ``posts.meta`` (a JSON object per item). The REST API's ``meta`` field
reads and writes registered keys only (``ContentRegistry.registered_meta``; others are ignored),
while WP-CLI reaches every key, protected (``_``) ones included. So these commands read and write
the stored object directly: one write transaction that locks the item's row, changes the key and
records the item's change (``changes.record("item", "update", id)``), as ``trash_item`` writes its
own meta, so every serving worker's caches follow. A registered key that is not single is stored
as a list, as the REST API stores it. An event's dates, time zone and links are refused
(``EVENT_MIRRORED``): their meta only mirrors the event's ``events`` row and links.

``post meta add`` keeps WordPress's several values of a key as a list (see ``cmd_meta_add``);
``post meta patch`` and ``pluck`` walk a key path inside a value as ``option patch`` does.

``option patch`` reads the stored option (or its default) in the write transaction, walks the
key path and stores the result with ``option update``'s check (``_checked_option``).

``media list`` goes through ``/cms/v2/media``; ``media regenerate`` cuts every registered size
(``--image_size``: the named ones; ``--only-missing``: those whose file is not stored) again from
each upload with the code the media route's post-process uses (``attachments.create_missing_sizes``)
and stores the new metadata through the item service.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Any

import orjson

from .cli import _checked_option, _format_value, input_value
from .cli_content import Fields, add_command, batch_report, list_items, rest_all, run_with_app, show_list
from .cli_format import add_options, render_item, yaml_scalar
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


def _registered(site: Any, item: Any, key: str) -> Any:
    """The registration of ``key`` for the item's type (its ``single``), or None: unregistered."""
    content_type = site.registry.types.get(item.type)
    return site.registry.registered_meta(content_type).get(key) if content_type is not None else None


def _no_field(key: str, item_id: int) -> str:
    # WP-CLI prints nothing and exits 1 for a missing key; a message says why.
    return f"Could not find custom field '{key}' on post {item_id}."


def _same(first: Any, second: Any) -> bool:
    """Whether two JSON values are the same value (Python's == takes 1 for true and 1.0 for 1)."""
    return orjson.dumps(first, option=orjson.OPT_SORT_KEYS) == orjson.dumps(second, option=orjson.OPT_SORT_KEYS)


def _change_meta(site: Any, item_id: int, change: Callable[[dict[str, Any], Any], bool]) -> bool:
    """Lock the item, let ``change(meta, item)`` edit its meta in place, and store it (recording
    the item's change) when it says it changed something; returns what it said."""
    from .content import items

    with site.write() as conn:
        found = items.get_item(conn, item_id)
        current = items.lock_item(conn, item_id, found.type) if found is not None else None
        if current is None:
            raise CliError(f"Could not find the post with ID {item_id}.")
        meta = dict(current.meta)
        changed = change(meta, current)
        if changed:
            # The item service stores it and records the change (None removes a key).
            touched = {key for key in {*meta, *current.meta} if key not in meta or key not in current.meta
                       or not _same(meta[key], current.meta[key])}
            items.merge_meta(conn, item_id, {key: meta.get(key) for key in touched})
    return changed


def _edit_meta(args: argparse.Namespace, change: Callable[[dict[str, Any], Any, Any], bool]) -> bool:
    """``_change_meta`` on the item ``args.id`` of the located site, for a key ``post meta`` may
    write (an event's mirrored fields refused first); ``change(meta, item, registration)`` gets
    the key's registration for the item's type (None: unregistered)."""
    _, site = _open_site(args)

    def checked(meta: dict[str, Any], item: Any) -> bool:
        _writable(item, args.key)
        return change(meta, item, _registered(site, item, args.key))

    try:
        return _change_meta(site, args.id, checked)
    finally:
        site.close()


def _report_update(key: str, changed: bool) -> int:
    if changed:
        print(f"Success: Updated custom field '{key}'.")
    else:
        print(f"Success: Value passed for custom field '{key}' is unchanged.")
    return 0


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
        raise CliError(_no_field(args.key, args.id))
    print(_format_value(item.meta[args.key], args.format))
    return 0


def cmd_meta_update(args: argparse.Namespace) -> int:
    value = _meta_value(args)

    def change(meta: dict[str, Any], item: Any, field: Any) -> bool:
        stored = [value] if field is not None and not field.single and not isinstance(value, list) else value
        if args.key in meta and _same(meta[args.key], stored):
            return False
        meta[args.key] = stored
        return True

    return _report_update(args.key, _edit_meta(args, change))


def cmd_meta_add(args: argparse.Namespace) -> int:
    """WP-CLI's add_post_meta adds a row beside the key's others; here a key holds one value, or a
    list standing for several (what get_post_meta(id, key, false) reads). So: a new key takes the
    value (a one-value list for a registered multi-valued key), a list gets the value appended,
    and a single value becomes the list of both. A key registered as single-valued (the REST API
    reads one value) that exists already is refused: a list would change what it reads."""
    value = _meta_value(args)

    def change(meta: dict[str, Any], item: Any, field: Any) -> bool:
        if args.key not in meta:
            meta[args.key] = [value] if field is not None and not field.single else value
        elif field is not None and field.single:
            raise CliError(f"Failed to add custom field: '{args.key}' is registered with a single value, which "
                           f"it has already; change it with `calpress post meta update`.")
        elif isinstance(meta[args.key], list):
            meta[args.key] = [*meta[args.key], value]
        else:
            meta[args.key] = [meta[args.key], value]
        return True

    _edit_meta(args, change)
    print("Success: Added custom field.")
    return 0


def cmd_meta_patch(args: argparse.Namespace) -> int:
    """Insert, update or delete the key at a path inside a custom field's array or object value,
    as ``option patch`` does inside an option (``patch_value``), in the meta's write transaction."""
    path, value = _patch_arguments(args)

    def change(meta: dict[str, Any], item: Any, field: Any) -> bool:
        if args.key not in meta:
            raise CliError(_no_field(args.key, item.id))
        patched = patch_value(meta[args.key], args.action, path, value)
        if _same(patched, meta[args.key]):
            return False
        meta[args.key] = patched
        return True

    return _report_update(args.key, _edit_meta(args, change))


def cmd_meta_pluck(args: argparse.Namespace) -> int:
    """Print the value at a path inside a custom field's value."""
    _, site = _open_site(args)
    try:
        item = _read_item(site, args.id)
    finally:
        site.close()
    if args.key not in item.meta:
        raise CliError(_no_field(args.key, args.id))
    found = pluck_value(item.meta[args.key], args.key_path)
    print(_yaml_document(found) if args.format == "yaml" else _format_value(found, args.format))
    return 0


def _yaml_document(value: Any) -> str:
    """A value as a YAML document: an object's keys one a line, a list's items one a line, a
    scalar alone (values inside them in JSON flow form, which YAML reads)."""
    if isinstance(value, dict):
        return render_item(value, "yaml", list(value))
    if isinstance(value, list):
        return "---\n" + "\n".join(f"- {yaml_scalar(entry)}" for entry in value) if value else "--- []"
    return f"--- {yaml_scalar(value)}"


def cmd_meta_delete(args: argparse.Namespace) -> int:
    if not _edit_meta(args, lambda meta, item, field: meta.pop(args.key, _MISSING) is not _MISSING):
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


def pluck_value(current: Any, path: list[str]) -> Any:
    """The value at ``path`` inside ``current`` (WP-CLI's pluck); CliError at a step that is
    missing or leads into a value that is no array or object."""
    found = current
    for key in path:
        step = _step(found, key)
        if step is _MISSING:
            raise CliError(f'No data exists for key "{key}"')
        found = found[step]
    return found


def _patch_arguments(args: argparse.Namespace) -> tuple[list[str], Any]:
    """A patch command's key path and value (its last word, but for delete)."""
    path = list(args.key_path)
    if args.action == "delete":
        return path, None
    if len(path) < 2:
        raise CliError("Please provide a key path and a value.")
    value = input_value(path.pop(), args.format)
    return path, value


def cmd_option_patch(args: argparse.Namespace) -> int:
    from .site import OPTION_DEFAULTS

    path, value = _patch_arguments(args)
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
            if _same(patched, current):
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


def _image_ids(site: Any, given: list[int]) -> tuple[list[Any], list[int]]:
    """The attachments to regenerate (the given ids, else every image) and the given ids that
    are no attachment."""
    import sqlalchemy as sa

    from .content import items
    from .store.tables import posts

    with site.read() as conn:
        if not given:
            given = list(conn.execute(sa.select(posts.c.id).where(
                posts.c.type == "attachment", posts.c.mime_type.like("image/%")).order_by(posts.c.id.desc())).scalars())
        found = items.get_items(conn, given)
    chosen = [found[item_id] for item_id in given if item_id in found and found[item_id].type == "attachment"]
    return chosen, [item_id for item_id in given if item_id not in found or found[item_id].type != "attachment"]


def _known_sizes(names: list[str] | None) -> list[str] | None:
    """The --image_size names, checked against the registered sizes (None: every size)."""
    from .media.images import SIZES

    if not names:
        return None
    known = [name for name, *_ in SIZES]
    for name in names:
        if name not in known:
            raise CliError(f'Unknown image size "{name}". The image sizes are: {", ".join(known)}.')
    return list(dict.fromkeys(names))


def _sizes_to_cut(storage: Any, item: Any, only: list[str] | None, only_missing: bool) -> list[str]:
    """The registered sizes of an image to cut again: the ones it is large enough for (or those
    of them named by --image_size); with --only-missing, only those whose file is not stored."""
    from .media import attachments

    metadata = item.meta.get(attachments.METADATA_KEY)
    if not isinstance(metadata, dict):
        return []
    fitting = attachments.missing_sizes({**item.meta, attachments.METADATA_KEY: {**metadata, "sizes": {}}}, item.mime_type)
    wanted = [name for name in fitting if only is None or name in only]
    if only_missing:
        listed = metadata.get("sizes") or {}
        key = str(item.meta.get(attachments.FILE_KEY) or "")
        folder = key.rsplit("/", 1)[0] + "/" if "/" in key else ""
        wanted = [name for name in wanted
                  if not isinstance(listed.get(name), dict) or not listed[name].get("file")
                  or not storage.exists(folder + str(listed[name]["file"]))]
    return wanted


def _cut_sizes(storage: Any, item: Any, wanted: list[str]) -> dict[str, Any] | None:
    """Cut the ``wanted`` sizes from the upload with the media route's code
    (``attachments.create_missing_sizes``, which cuts every size the metadata does not list):
    the other sizes the metadata lacks stand in its list meanwhile, and leave it after. Returns
    the new metadata, or None when the upload cannot be read."""
    from .media import attachments

    metadata = item.meta[attachments.METADATA_KEY]
    listed = dict(metadata.get("sizes") or {})
    fitting = attachments.missing_sizes({**item.meta, attachments.METADATA_KEY: {**metadata, "sizes": {}}}, item.mime_type)
    stand_ins = {name: {} for name in fitting if name not in wanted and name not in listed}
    kept = {name: size for name, size in listed.items() if name not in wanted}
    given = {**item.meta, attachments.METADATA_KEY: {**metadata, "sizes": {**kept, **stand_ins}}}
    regenerated = attachments.create_missing_sizes(storage, given, item.mime_type)
    if regenerated is None:
        return None
    regenerated["sizes"] = {name: size for name, size in regenerated["sizes"].items() if name not in stand_ins}
    return regenerated


def cmd_media_regenerate(args: argparse.Namespace) -> int:
    from .content import items as item_service
    from .content.items import Context, ItemChanges
    from .media import attachments

    only = _known_sizes(args.image_size)
    if not args.ids and not args.yes:
        raise CliError("This regenerates the sizes of every image: pass --yes to go ahead (no prompt is shown).")
    # WP-CLI's words: 'thumbnails', or '"large", "medium" thumbnails' for --image_size.
    named = ", ".join(f'"{name}"' for name in only) + " " if only else ""
    _, site = _open_site(args)
    try:
        chosen, unknown = _image_ids(site, args.ids)
        if len(args.ids) == 1 and unknown:
            raise CliError(f"Could not find the attachment with ID {unknown[0]}.")
        for item_id in unknown:
            print(f"Warning: Could not find the attachment with ID {item_id}.", file=sys.stderr)
        if not chosen:
            raise CliError("No images found.")
        total, done = len(chosen), 0
        for number, item in enumerate(chosen, 1):
            name = item.title or str(item.meta.get(attachments.FILE_KEY) or item.id)
            label = f'"{name}" (ID {item.id})'
            wanted = _sizes_to_cut(site.storage, item, only, args.only_missing)
            if not wanted:
                print(f"{number}/{total} No {named}thumbnail regeneration needed for {label}.")
                done += 1
                continue
            regenerated = _cut_sizes(site.storage, item, wanted)
            if regenerated is None:
                print(f"Warning: Can't find {label}: its upload is missing or unreadable.", file=sys.stderr)
                continue
            ctx = Context.of(site, options=site.load_options())
            with site.write() as conn:
                item_service.update_item(conn, ctx, item, ItemChanges(protected_meta={attachments.METADATA_KEY: regenerated}),
                                         store_revision=False)
            plural = "s" if not only or len(only) > 1 else ""
            print(f"{number}/{total} Regenerated {named}thumbnail{plural} for {label}.")
            done += 1
    finally:
        site.close()
    report = batch_report("image", "regenerated", total + len(unknown), done)
    if done < total + len(unknown):
        raise CliError(report)
    print(f"Success: {report}")
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
    add = command(metas, "add", "add a value to a custom field: a new key takes it, a list gets it appended, "
                                "a single value becomes the list of both (WordPress's several values of a key)")
    add.add_argument("id", type=int)
    add.add_argument("key")
    add.add_argument("value")
    add.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    patch = command(metas, "patch", "insert, update or delete a key inside a custom field's array/object value")
    patch.add_argument("action", choices=("insert", "update", "delete"))
    patch.add_argument("id", type=int)
    patch.add_argument("key")
    patch.add_argument("key_path", metavar="key-path", nargs="+", help="the keys to walk (then the value, but for delete)")
    patch.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    pluck = command(metas, "pluck", "print the value at a key path inside a custom field's value")
    pluck.add_argument("id", type=int)
    pluck.add_argument("key")
    pluck.add_argument("key_path", metavar="key-path", nargs="+", help="the keys to walk")
    pluck.add_argument("--format", choices=("plaintext", "json", "yaml"), default="plaintext")

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
    regenerate.add_argument("--only-missing", dest="only_missing", action="store_true",
                            help="cut only the sizes whose file is missing")
    regenerate.add_argument("--image_size", action="append", default=None, metavar="name",
                            help="cut only this size (thumbnail, medium, medium_large, large, 1536x1536, 2048x2048); repeatable")


HANDLERS: dict[tuple[str, ...], Callable[[argparse.Namespace], int]] = {
    ("post", "meta", "list"): cmd_meta_list,
    ("post", "meta", "get"): cmd_meta_get,
    ("post", "meta", "update"): cmd_meta_update,
    ("post", "meta", "delete"): cmd_meta_delete,
    ("post", "meta", "add"): cmd_meta_add,
    ("post", "meta", "patch"): cmd_meta_patch,
    ("post", "meta", "pluck"): cmd_meta_pluck,
    ("option", "patch"): cmd_option_patch,
    ("media", "list"): cmd_media_list,
    ("media", "regenerate"): cmd_media_regenerate,
}
