"""Media in WP-CLI's forms:

    calpress media import <file>... [--post_id=<id>] [--title=...] [--alt=...] [--caption=...] [--desc=...]
                          [--featured_image] [--user=<user>] [--porcelain] [--<any argument of the media route>=...]
    calpress media list [--format=...] [--fields=...|--field=...]
    calpress media regenerate [<id>...] [--yes] [--only-missing] [--image_size=<name>...]

``media import`` sends each file to the media route, as ``--user``, with WP-CLI's options under the
route's names and any other argument of the route by its own name (``--status``, ``--slug``,
``--author``, ``--date``, ``--meta``...; an attachment's fields are changed afterwards with
``post update <id>``, which takes them the same way); ``media list`` goes through
``/cms/v2/media``; ``media regenerate`` cuts every registered size (``--image_size``: the named
ones; ``--only-missing``: those whose file is not stored) again from each upload with the code the
media route's post-process uses (``attachments.create_missing_sizes``) and stores the new metadata
through the item service."""

from __future__ import annotations

import argparse
import mimetypes
import sys
from pathlib import Path
from typing import Any

from .common import CliError, add_command, open_site
from .formats import Fields, add_options, list_items
from .posts import post_route_of, route_fields
from .rest_calls import batch_report, for_each, rest, rest_all, run_with_app

# media import's options (WP-CLI's names) -> the media route's arguments.
IMPORT_FIELDS = {"title": "title", "alt": "alt_text", "caption": "caption", "desc": "description", "post_id": "post"}


def cmd_media_import(args: argparse.Namespace) -> int:
    """Each file through the media route (``POST /cms/v2/media``, the file sent raw with its name,
    the fields as the route's arguments), as ``--user``: the route's checks of the file's type
    (images, PDFs, documents, audio, video...) and of the fields, before anything is stored."""
    if args.featured_image and args.post_id is None:
        raise CliError("--featured_image needs --post_id: the post whose featured image it becomes.")
    fields = {name: getattr(args, option) for option, name in IMPORT_FIELDS.items() if getattr(args, option) is not None}

    # argparse takes an unknown option whose value holds a space (--date='2026-01-02 03:04:05')
    # for one of the files: it is an option, as WP-CLI reads it.
    files = [name for name in args.files if not name.startswith("--")]
    options = [*args.extra, *(name for name in args.files if name.startswith("--"))]

    def run(app: Any, user: Any) -> int:
        given = {**route_fields(app, "/cms/v2/media", options), **fields}

        def store(name: str) -> str:
            path = Path(name)
            if not path.is_file():
                raise CliError(f"Unable to import file '{name}'. Reason: File doesn't exist.")
            headers = {"Content-Type": mimetypes.guess_type(path.name)[0] or "application/octet-stream",
                       "Content-Disposition": f'attachment; filename="{path.name}"'}
            try:
                _, data, _ = rest(app, "POST", "/cms/v2/media", user, given, upload=(path.read_bytes(), headers))
            except CliError as err:
                raise CliError(f"Unable to import file '{name}'. Reason: {err}") from None
            if args.featured_image:
                rest(app, "POST", post_route_of(app, args.post_id), user, body={"featured_media": data["id"]})
            return str(data["id"]) if args.porcelain else f"Imported file '{name}' as attachment ID {data['id']}."

        # As WP-CLI: a file that cannot be imported is a warning, the others go in, and the end
        # says how many did ("Only imported 2 of 3 items." and exit 1 when some failed).
        return for_each(files, store, noun="item", done="imported", always_report=not args.porcelain)

    return run_with_app(args, run)


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

    from ..content import items
    from ..store.tables import posts

    with site.read() as conn:
        if not given:
            given = list(conn.execute(sa.select(posts.c.id).where(
                posts.c.type == "attachment", posts.c.mime_type.like("image/%")).order_by(posts.c.id.desc())).scalars())
        found = items.get_items(conn, given)
    chosen = [found[item_id] for item_id in given if item_id in found and found[item_id].type == "attachment"]
    return chosen, [item_id for item_id in given if item_id not in found or found[item_id].type != "attachment"]


def _known_sizes(names: list[str] | None) -> list[str] | None:
    """The --image_size names, checked against the registered sizes (None: every size)."""
    from ..media.images import SIZES

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
    from ..media import attachments

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
    from ..media import attachments

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
    from ..content import items as item_service
    from ..content.items import Context, ItemChanges
    from ..media import attachments

    only = _known_sizes(args.image_size)
    if not args.ids and not args.yes:
        raise CliError("This regenerates the sizes of every image: pass --yes to go ahead (no prompt is shown).")
    # WP-CLI's words: 'thumbnails', or '"large", "medium" thumbnails' for --image_size.
    named = ", ".join(f'"{name}"' for name in only) + " " if only else ""
    _, site = open_site(args)
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


def register(commands: Any) -> None:
    """Add media import, list and regenerate."""
    media = commands.add_parser("media", help="media")
    media_commands = media.add_subparsers(dest="media_command", required=True)
    media_import = add_command(media_commands, "import", "store files (images, PDFs, documents...) as attachments, "
                               "through the media route (other --key=value options: the route's arguments)", extra=True)
    media_import.add_argument("files", nargs="+")
    media_import.add_argument("--post_id", type=int, default=None, help="attach them to this post")
    media_import.add_argument("--title", default=None, help="their title (default: the file's name)")
    media_import.add_argument("--alt", default=None, help="their alternative text")
    media_import.add_argument("--caption", default=None, help="their caption")
    media_import.add_argument("--desc", default=None, help="their description")
    media_import.add_argument("--featured_image", action="store_true", help="make it the featured image of --post_id")
    media_import.add_argument("--porcelain", action="store_true", help="print only the new ids")
    media_import.set_defaults(handler=cmd_media_import)
    listing = add_command(media_commands, "list", "list attachments, through the REST API")
    add_options(listing)
    listing.set_defaults(handler=cmd_media_list)
    regenerate = add_command(media_commands, "regenerate", "cut the image sizes again (every image when no id is given)",
                             user=False)
    regenerate.add_argument("ids", metavar="id", type=int, nargs="*")
    regenerate.add_argument("--yes", action="store_true", help="regenerate every image without asking")
    regenerate.add_argument("--only-missing", dest="only_missing", action="store_true",
                            help="cut only the sizes whose file is missing")
    regenerate.add_argument("--image_size", action="append", default=None, metavar="name",
                            help="cut only this size (thumbnail, medium, medium_large, large, 1536x1536, 2048x2048); repeatable")
    regenerate.set_defaults(handler=cmd_media_regenerate)
