"""Site options in WP-CLI's forms:

    calpress option get <name> [--format=plaintext|json]
    calpress option update|add <name> <value> [--format=plaintext|json]
    calpress option list [--search=<pattern>] [--format=...] | delete <name>
    calpress option patch insert|update|delete <name> <key-path>... [<value>] [--format=plaintext|json]

A value the settings endpoint (cms/v2/settings) knows is checked and cleaned as that endpoint
does (``_checked_option``). ``option patch`` reads the stored option (or its default) in the
write transaction, walks the key path and stores the result with ``option update``'s check."""

from __future__ import annotations

import argparse
import fnmatch
from typing import Any

from .common import CliError, add_command, input_value, open_site
from .formats import LIST_FORMATS, add_options, format_value, show_list
from .patching import MISSING, patch_arguments, patch_value, same_value


def cmd_option_get(args: argparse.Namespace) -> int:
    from ..site import OPTION_DEFAULTS
    from ..store import options as store_options

    _, site = open_site(args)
    with site.read() as conn:
        missing = object()
        value = store_options.get_option(conn, args.name, missing)
    if value is missing:
        if args.name not in OPTION_DEFAULTS:
            raise CliError(f"Could not get '{args.name}' option. Does it exist?")
        value = OPTION_DEFAULTS[args.name]
    print(format_value(value, args.format))
    return 0


def cmd_option_update(args: argparse.Namespace) -> int:
    value = _checked_option(args.name, input_value(args.value, args.format))
    _, site = open_site(args)
    with site.write() as conn:
        site.update_option(conn, args.name, value)
    print(f"Success: Updated '{args.name}' option.")
    return 0


def _checked_option(name: str, value: Any) -> Any:
    """The value the settings endpoint (cms/v2/settings) would store for this option: its
    argument's schema check and coercion, then the option's cleaning; CliError where the endpoint
    refuses it or keeps the stored value. Options the endpoint does not know pass unchanged."""
    from ..api.cms_site import SETTINGS_SCHEMA
    from ..rest.errors import RestError
    from ..rest.schema import endpoint_args_from_schema, parse_request_arg
    from ..site_settings import SETTINGS as SITE_SETTINGS
    from ..site_settings import Rejected, clean_option

    setting = next((s for s in SITE_SETTINGS if s.option == name), None)
    if setting is None:
        return value
    arg = endpoint_args_from_schema(SETTINGS_SCHEMA, "PUT")[setting.name]
    try:
        return clean_option(name, parse_request_arg(value, arg, name))
    except (RestError, Rejected) as err:
        message = err.message if isinstance(err, RestError) else str(err)
        raise CliError(f"Could not update '{name}' option: {message}") from None


def cmd_option_list(args: argparse.Namespace) -> int:
    """The stored options over the defaults (what ``option get`` answers), by name."""
    import sqlalchemy as sa

    from ..site import OPTION_DEFAULTS
    from ..store.tables import options as options_table

    _, site = open_site(args)
    try:
        with site.read() as conn:
            stored = dict(conn.execute(sa.select(options_table.c.name, options_table.c.value)).all())
    finally:
        site.close()
    values = {**OPTION_DEFAULTS, **stored}
    names = sorted(values)
    if args.search:
        names = [name for name in names if fnmatch.fnmatchcase(name, args.search)]
    rows = [{"option_name": name, "option_value": values[name]} for name in names]
    return show_list(args, rows, ["option_name", "option_value"], ["option_name", "option_value"], None)


def cmd_option_add(args: argparse.Namespace) -> int:
    from ..site import OPTION_DEFAULTS

    value = _checked_option(args.name, input_value(args.value, args.format))
    _, site = open_site(args)
    missing = object()
    try:
        with site.write() as conn:
            exists = site.stored_option(conn, args.name, missing, for_update=True) is not missing
            if exists or args.name in OPTION_DEFAULTS:
                raise CliError(f"Could not add option '{args.name}'. Does it already exist?")
            site.update_option(conn, args.name, value)
    finally:
        site.close()
    print(f"Success: Added '{args.name}' option.")
    return 0


def cmd_option_delete(args: argparse.Namespace) -> int:
    _, site = open_site(args)
    try:
        with site.write() as conn:
            deleted = site.delete_option(conn, args.name)
    finally:
        site.close()
    if not deleted:
        raise CliError(f"Could not delete '{args.name}' option. Does it exist?")
    print(f"Success: Deleted '{args.name}' option.")
    return 0


def cmd_option_patch(args: argparse.Namespace) -> int:
    from ..site import OPTION_DEFAULTS

    path, value = patch_arguments(args)
    _, site = open_site(args)
    try:
        with site.write() as conn:
            current = site.stored_option(conn, args.name, MISSING, for_update=True)
            if current is MISSING:
                if args.name not in OPTION_DEFAULTS:
                    raise CliError(f"Cannot load option '{args.name}'.")
                current = OPTION_DEFAULTS[args.name]
            if not isinstance(current, (dict, list)):
                raise CliError(f"Cannot patch option '{args.name}': its value is no array or object.")
            patched = patch_value(current, args.action, path, value)
            if same_value(patched, current):
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


def register(commands: Any) -> None:
    """Add option get, update, list, add, delete and patch."""
    option = commands.add_parser("option", help="site options")
    option_commands = option.add_subparsers(dest="option_command", required=True)
    get = add_command(option_commands, "get", "print an option", user=False)
    get.add_argument("name")
    get.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    get.set_defaults(handler=cmd_option_get)
    update = add_command(option_commands, "update", "set an option", user=False)
    update.add_argument("name")
    update.add_argument("value")
    update.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    update.set_defaults(handler=cmd_option_update)
    listing = add_command(option_commands, "list", "list options", user=False)
    listing.add_argument("--search", default=None, help="names matching this pattern (* and ? wildcards)")
    add_options(listing, formats=tuple(name for name in LIST_FORMATS if name != "ids"))
    listing.set_defaults(handler=cmd_option_list)
    add = add_command(option_commands, "add", "add an option that does not exist yet", user=False)
    add.add_argument("name")
    add.add_argument("value")
    add.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    add.set_defaults(handler=cmd_option_add)
    delete = add_command(option_commands, "delete", "delete an option", user=False)
    delete.add_argument("name")
    delete.set_defaults(handler=cmd_option_delete)
    patch = add_command(option_commands, "patch", "insert, update or delete a key inside an array/object option", user=False)
    patch.add_argument("action", choices=("insert", "update", "delete"))
    patch.add_argument("name")
    patch.add_argument("key_path", metavar="key-path", nargs="+", help="the keys to walk (then the value, but for delete)")
    patch.add_argument("--format", choices=("plaintext", "json"), default="plaintext")
    patch.set_defaults(handler=cmd_option_patch)
