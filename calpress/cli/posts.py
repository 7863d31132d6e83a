"""Posts, pages and their custom fields, and terms, in WP-CLI's forms (issue 15):

    calpress post list [--post_type=post] [--<REST listing filter>=<value>...] [--format=...] [--fields=...|--field=...]
    calpress post get <id> [--format=table|json|yaml] [--fields=...|--field=...]
    calpress post create [--post_type=post] [--post_title=...] [--post_content=...] [--post_status=...] ... [--porcelain]
    calpress post update <id> [--post_title=...] ...
    calpress post delete <id>... [--force]
    calpress post meta list|get|update|delete|add|patch|pluck <id> <key> ...
    calpress term list|get|create|update <taxonomy> ... | delete <taxonomy> <id>...

Posts and terms go through the REST engine in this process (rest_calls.py). Fields have WP-CLI's
names (ID, post_title, term_id...), read from the edit context's raw values.

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
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .common import CliError, add_command, input_value, open_site
from .formats import GET_FORMATS, Fields, add_options, format_value, list_items, render_item, show_list, yaml_scalar
from .patching import MISSING, patch_arguments, patch_value, pluck_value, same_value
from .rest_calls import extra_options, for_each, get_item, rest, rest_all, run_with_app, update_item
from .route_options import wire_value


def _raw(value: Any) -> Any:
    """The raw form of a rendered field ({"raw": ..., "rendered": ...}), or the value itself."""
    if isinstance(value, dict):
        return value.get("raw", value.get("rendered", ""))
    return value


def _wp_date(value: Any) -> str:
    """A REST date (2027-03-10T09:00:00) as WordPress stores it (2027-03-10 09:00:00)."""
    return str(value).replace("T", " ") if value else "0000-00-00 00:00:00"


POST_FIELDS: Fields = {
    "ID": lambda p: p["id"],
    "post_author": lambda p: p.get("author", 0),
    "post_date": lambda p: _wp_date(p.get("date")),
    "post_date_gmt": lambda p: _wp_date(p.get("date_gmt")),
    "post_content": lambda p: _raw(p.get("content", "")),
    "post_title": lambda p: _raw(p.get("title", "")),
    "post_excerpt": lambda p: _raw(p.get("excerpt", "")),
    "post_status": lambda p: p.get("status", ""),
    "comment_status": lambda p: p.get("comment_status", "closed"),
    "ping_status": lambda p: p.get("ping_status", "closed"),
    "post_password": lambda p: p.get("password", ""),
    "post_name": lambda p: p.get("slug", ""),
    "post_modified": lambda p: _wp_date(p.get("modified")),
    "post_modified_gmt": lambda p: _wp_date(p.get("modified_gmt")),
    "post_parent": lambda p: p.get("parent", 0),
    "guid": lambda p: _raw(p.get("guid", "")),
    "menu_order": lambda p: p.get("menu_order", 0),
    "post_type": lambda p: p.get("type", ""),
    "url": lambda p: p.get("link", ""),
}


POST_LIST_DEFAULT = ["ID", "post_title", "post_name", "post_date", "post_status"]


# WP-CLI's names for the fields of post create/update -> the REST argument.
POST_WRITE_ARGS = {
    "post_title": "title",
    "post_content": "content",
    "post_excerpt": "excerpt",
    "post_status": "status",
    "post_name": "slug",
    "post_author": "author",
    "post_date": "date",
    "post_date_gmt": "date_gmt",
    "post_parent": "parent",
    "post_password": "password",
    "comment_status": "comment_status",
    "ping_status": "ping_status",
    "menu_order": "menu_order",
}


# WP_Query's names WP-CLI users pass to post list -> the REST listing's.
POST_QUERY_ARGS = {"post_status": "status", "post_author": "author", "post_parent": "parent", "s": "search",
                   "posts_per_page": "per_page", "paged": "page", "post__in": "include", "post__not_in": "exclude"}


def posts_route(app: Any, post_type: str) -> str:
    """/cms/v2/<rest base> of a content type (post, page, cal_events, cal_venue, cal_organizer...)."""
    content_type = app.site.registry.types.get(post_type)
    if content_type is None or not content_type.show_in_rest:
        known = ", ".join(t.name for t in app.site.registry.rest_types())
        raise CliError(f"Invalid post type: {post_type} (one of {known}).")
    return f"/cms/v2/{content_type.rest_base}"


def post_route_of(app: Any, post_id: int) -> str:
    """The item route of a post of any type: its type is read first (as WP-CLI's get_post)."""
    from ..content import items

    with app.site.read() as conn:
        found = items.get_item(conn, post_id)
    if found is None:
        raise CliError(f"Could not find the post with ID {post_id}.")
    return f"{posts_route(app, found.type)}/{post_id}"


def _post_body(app: Any, args: argparse.Namespace, route: str) -> dict[str, Any]:
    """The route's body: WP-CLI's fields under the REST names, and any other argument of the
    route given as --<argument>=<value> (``route_fields``)."""
    from ..auth import users

    body: dict[str, Any] = route_fields(app, route, args.extra)
    for option, rest_name in POST_WRITE_ARGS.items():
        value = getattr(args, option, None)
        if value is None:
            continue
        if option == "post_author" and not value.isdigit():
            with app.site.read() as conn:
                author = users.find_user(conn, value)
            if author is None:
                raise CliError(f"Invalid user ID, email or login: '{value}'")
            value = author.id
        elif option in ("post_date", "post_date_gmt"):
            value = value.replace(" ", "T")
        elif option in ("post_author", "post_parent", "menu_order") and str(value).lstrip("-").isdigit():
            value = int(value)
        body[rest_name] = value
    return body


def route_fields(app: Any, route: str, extra: list[str]) -> dict[str, Any]:
    """Options no parser knows, as arguments of the route's write endpoint: its own schema in the
    route registry (the type's: featured_media, sticky, format, categories, tags, meta, template...),
    each value in the form the schema declares. An option the route does not take is an error
    naming those it takes."""
    given = extra_options(extra)
    if not given:
        return {}
    matched = app.api.registry.match(route)
    endpoint = matched[0].endpoint_for("POST") if matched else None
    schema = {name: spec for name, spec in (endpoint.args if endpoint else {}).items() if name != "id"}
    unknown = [name for name in given if name not in schema]
    if unknown:
        raise CliError(f"Unknown option {', '.join('--' + name for name in unknown)}: the route {route} takes "
                       f"{', '.join('--' + name for name in schema)}.")
    return {name: wire_value(value, schema[name].get("type")) for name, value in given.items()}


def cmd_post_list(args: argparse.Namespace) -> int:
    query = {POST_QUERY_ARGS.get(key, key): value for key, value in extra_options(args.extra).items()}
    # WP-CLI lists drafts and private posts too (media have statuses of their own).
    query.setdefault("status", "inherit,private" if args.post_type == "attachment" else "any")

    def run(app: Any, user: Any) -> int:
        items = rest_all(app, posts_route(app, args.post_type), user, query)
        return list_items(args, POST_FIELDS, items, POST_LIST_DEFAULT, "ID")

    return run_with_app(args, run)


def cmd_post_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, post_route_of(app, args.id), POST_FIELDS)

    return run_with_app(args, run)


def cmd_post_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        route = posts_route(app, args.post_type)
        _, data, _ = rest(app, "POST", route, user, body=_post_body(app, args, route))
        print(data["id"] if args.porcelain else f"Success: Created post {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_post_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        route = post_route_of(app, args.id)
        return update_item(app, user, route, _post_body(app, args, route), f"Success: Updated post {args.id}.")

    return run_with_app(args, run)


def cmd_post_delete(args: argparse.Namespace) -> int:
    done = "deleted" if args.force else "trashed"

    def run(app: Any, user: Any) -> int:
        def delete(post_id: int) -> str:
            rest(app, "DELETE", post_route_of(app, post_id), user, {"force": "true"} if args.force else {})
            return f"Success: {done.capitalize()} post {post_id}."

        return for_each(args.ids, delete, noun="post", done=done)

    return run_with_app(args, run)


def _meta_value(args: argparse.Namespace) -> Any:
    return input_value(args.value, getattr(args, "format", None))


def _read_item(site: Any, item_id: int) -> Any:
    from ..content import items

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


def _change_meta(site: Any, item_id: int, change: Callable[[dict[str, Any], Any], bool]) -> bool:
    """Lock the item, let ``change(meta, item)`` edit its meta in place, and store it (recording
    the item's change) when it says it changed something; returns what it said."""
    from ..content import items

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
                       or not same_value(meta[key], current.meta[key])}
            items.merge_meta(conn, item_id, {key: meta.get(key) for key in touched})
    return changed


def _edit_meta(args: argparse.Namespace, change: Callable[[dict[str, Any], Any, Any], bool]) -> bool:
    """``_change_meta`` on the item ``args.id`` of the located site, for a key ``post meta`` may
    write (an event's mirrored fields refused first); ``change(meta, item, registration)`` gets
    the key's registration for the item's type (None: unregistered)."""
    _, site = open_site(args)

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
    _, site = open_site(args)
    try:
        item = _read_item(site, args.id)
    finally:
        site.close()
    rows = [{"post_id": item.id, "meta_key": key, "meta_value": value} for key, value in item.meta.items()]
    fields = ["post_id", "meta_key", "meta_value"]
    return show_list(args, rows, fields, fields, None)


def cmd_meta_get(args: argparse.Namespace) -> int:
    _, site = open_site(args)
    try:
        item = _read_item(site, args.id)
    finally:
        site.close()
    if args.key not in item.meta:
        raise CliError(_no_field(args.key, args.id))
    print(format_value(item.meta[args.key], args.format))
    return 0


def cmd_meta_update(args: argparse.Namespace) -> int:
    value = _meta_value(args)

    def change(meta: dict[str, Any], item: Any, field: Any) -> bool:
        stored = [value] if field is not None and not field.single and not isinstance(value, list) else value
        if args.key in meta and same_value(meta[args.key], stored):
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
    path, value = patch_arguments(args)

    def change(meta: dict[str, Any], item: Any, field: Any) -> bool:
        if args.key not in meta:
            raise CliError(_no_field(args.key, item.id))
        patched = patch_value(meta[args.key], args.action, path, value)
        if same_value(patched, meta[args.key]):
            return False
        meta[args.key] = patched
        return True

    return _report_update(args.key, _edit_meta(args, change))


def cmd_meta_pluck(args: argparse.Namespace) -> int:
    """Print the value at a path inside a custom field's value."""
    _, site = open_site(args)
    try:
        item = _read_item(site, args.id)
    finally:
        site.close()
    if args.key not in item.meta:
        raise CliError(_no_field(args.key, args.id))
    found = pluck_value(item.meta[args.key], args.key_path)
    print(_yaml_document(found) if args.format == "yaml" else format_value(found, args.format))
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
    if not _edit_meta(args, lambda meta, item, field: meta.pop(args.key, MISSING) is not MISSING):
        raise CliError(f"Could not delete custom field '{args.key}'.")
    print(f"Success: Deleted custom field '{args.key}'.")
    return 0


TERM_FIELDS: Fields = {
    "term_id": lambda t: t["id"],
    # One row per term and taxonomy here: the term's id is also its term_taxonomy_id.
    "term_taxonomy_id": lambda t: t["id"],
    "name": lambda t: t.get("name", ""),
    "slug": lambda t: t.get("slug", ""),
    "description": lambda t: t.get("description", ""),
    "parent": lambda t: t.get("parent", 0),
    "count": lambda t: t.get("count", 0),
    "taxonomy": lambda t: t.get("taxonomy", ""),
    "url": lambda t: t.get("link", ""),
}


TERM_DEFAULT = ["term_id", "term_taxonomy_id", "name", "slug", "description", "parent", "count"]


def terms_route(app: Any, taxonomy: str) -> str:
    """/cms/v2/<rest base> of a taxonomy (category, post_tag, cal_events_cat...)."""
    found = app.site.registry.taxonomies.get(taxonomy)
    if found is None or not found.show_in_rest:
        known = ", ".join(t.name for t in app.site.registry.rest_taxonomies())
        raise CliError(f"Taxonomy {taxonomy} doesn't exist (one of {known}).")
    return f"/cms/v2/{found.rest_base}"


def _term_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name in ("name", "slug", "description", "parent"):
        value = getattr(args, name, None)
        if value is not None:
            body[name] = int(value) if name == "parent" and value.isdigit() else value
    return body


def cmd_term_list(args: argparse.Namespace) -> int:
    query = extra_options(args.extra)

    def run(app: Any, user: Any) -> int:
        items = rest_all(app, terms_route(app, args.taxonomy), user, query)
        return list_items(args, TERM_FIELDS, items, TERM_DEFAULT, "term_id")

    return run_with_app(args, run)


def cmd_term_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"{terms_route(app, args.taxonomy)}/{args.id}", TERM_FIELDS)

    return run_with_app(args, run)


def cmd_term_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        route = terms_route(app, args.taxonomy)
        _, data, _ = rest(app, "POST", route, user, body={**route_fields(app, route, args.extra), **_term_body(args)})
        print(data["id"] if args.porcelain else f"Success: Created {args.taxonomy} {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_term_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        route = f"{terms_route(app, args.taxonomy)}/{args.id}"
        return update_item(app, user, route, {**route_fields(app, route, args.extra), **_term_body(args)}, "Success: Term updated.")

    return run_with_app(args, run)


def cmd_term_delete(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        route = terms_route(app, args.taxonomy)

        def delete(term_id: int) -> str:
            # Terms have no trash: the REST API wants force=true.
            rest(app, "DELETE", f"{route}/{term_id}", user, {"force": "true"})
            return f"Success: Deleted {args.taxonomy} {term_id}."

        return for_each(args.ids, delete, noun="term", done="deleted")

    return run_with_app(args, run)


def register(commands: Any) -> None:
    """Add post (with post meta) and term."""
    post = commands.add_parser("post", help="posts, pages and calendar items, through the REST API")
    posts = post.add_subparsers(dest="post_command", required=True)
    listing = add_command(posts, "list", "list posts (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("--post_type", default="post")
    add_options(listing)
    listing.set_defaults(handler=cmd_post_list)
    get = add_command(posts, "get", "show a post")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    get.set_defaults(handler=cmd_post_get)
    create = add_command(posts, "create", "create a post (other --<argument>=<value> options: any argument of the "
                                          "type's route, featured_media, sticky, categories, meta...)", extra=True)
    create.add_argument("--post_type", default="post")
    _post_write_options(create)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    create.set_defaults(handler=cmd_post_create)
    update = add_command(posts, "update", "update a post (other --<argument>=<value> options: any argument of the "
                                          "type's route)", extra=True)
    update.add_argument("id", type=int)
    _post_write_options(update)
    update.set_defaults(handler=cmd_post_update)
    delete = add_command(posts, "delete", "move posts to the trash, or delete them with --force (going on past an id that fails)")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")
    delete.add_argument("--force", action="store_true", help="skip the trash")
    delete.set_defaults(handler=cmd_post_delete)
    _register_meta(posts)
    _register_terms(commands)


def _post_write_options(parser: argparse.ArgumentParser) -> None:
    for option in POST_WRITE_ARGS:
        parser.add_argument(f"--{option}", default=None)


def _register_meta(posts: Any) -> None:
    meta = posts.add_parser("meta", help="a post's custom fields (every key, protected ones too)")
    metas = meta.add_subparsers(dest="meta_command", required=True)
    listing = add_command(metas, "list", "list a post's custom fields", user=False)
    listing.add_argument("id", type=int)
    add_options(listing, formats=("table", "json", "csv", "yaml", "count"))
    listing.set_defaults(handler=cmd_meta_list)
    get = add_command(metas, "get", "print a custom field's value", user=False)
    get.add_argument("id", type=int)
    get.add_argument("key")
    get.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    get.set_defaults(handler=cmd_meta_get)
    update = add_command(metas, "update", "set a custom field", user=False)
    update.add_argument("id", type=int)
    update.add_argument("key")
    update.add_argument("value")
    update.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    update.set_defaults(handler=cmd_meta_update)
    delete = add_command(metas, "delete", "delete a custom field", user=False)
    delete.add_argument("id", type=int)
    delete.add_argument("key")
    delete.set_defaults(handler=cmd_meta_delete)
    add = add_command(metas, "add", "add a value to a custom field: a new key takes it, a list gets it appended, "
                                    "a single value becomes the list of both (WordPress's several values of a key)", user=False)
    add.add_argument("id", type=int)
    add.add_argument("key")
    add.add_argument("value")
    add.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    add.set_defaults(handler=cmd_meta_add)
    patch = add_command(metas, "patch", "insert, update or delete a key inside a custom field's array/object value", user=False)
    patch.add_argument("action", choices=("insert", "update", "delete"))
    patch.add_argument("id", type=int)
    patch.add_argument("key")
    patch.add_argument("key_path", metavar="key-path", nargs="+", help="the keys to walk (then the value, but for delete)")
    patch.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    patch.set_defaults(handler=cmd_meta_patch)
    pluck = add_command(metas, "pluck", "print the value at a key path inside a custom field's value", user=False)
    pluck.add_argument("id", type=int)
    pluck.add_argument("key")
    pluck.add_argument("key_path", metavar="key-path", nargs="+", help="the keys to walk")
    pluck.add_argument("--format", choices=("plaintext", "json", "yaml"), default="plaintext")
    pluck.set_defaults(handler=cmd_meta_pluck)


def _register_terms(commands: Any) -> None:
    term = commands.add_parser("term", help="terms of a taxonomy (category, post_tag, cal_events_cat...), through the REST API")
    terms = term.add_subparsers(dest="term_command", required=True)
    listing = add_command(terms, "list", "list terms (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("taxonomy")
    add_options(listing)
    listing.set_defaults(handler=cmd_term_list)
    get = add_command(terms, "get", "show a term")
    get.add_argument("taxonomy")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    get.set_defaults(handler=cmd_term_get)
    create = add_command(terms, "create", "create a term (other --<argument>=<value> options: any argument of the "
                                          "taxonomy's route, meta...)", extra=True)
    create.add_argument("taxonomy")
    create.add_argument("name")
    for name in ("slug", "description", "parent"):
        create.add_argument(f"--{name}", default=None)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    create.set_defaults(handler=cmd_term_create)
    update = add_command(terms, "update", "update a term (other --<argument>=<value> options: any argument of the "
                                          "taxonomy's route)", extra=True)
    update.add_argument("taxonomy")
    update.add_argument("id", type=int)
    for name in ("name", "slug", "description", "parent"):
        update.add_argument(f"--{name}", default=None)
    update.set_defaults(handler=cmd_term_update)
    delete = add_command(terms, "delete", "delete terms (going on past an id that fails)")
    delete.add_argument("taxonomy")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")
    delete.set_defaults(handler=cmd_term_delete)
