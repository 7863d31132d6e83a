"""Calendar events, venues and organizers in WP-CLI's forms (issue 15):

    calpress event list [--<calendar listing filter>=<value>...] | get <id> | create ... | update <id> ... | delete <id>... [--force]
    calpress venue list|get|create|update|delete ...        (/cal/events/v1/venues)
    calpress organizer list|get|create|update|delete ...    (/cal/events/v1/organizers)

They go through the calendar API in this process (its field names: title, start_date, venue...),
as ``--user`` (default: the first administrator). The calendar API only trashes: ``delete
--force`` deletes through /cms/v2/<type's rest base>. Deletes given several ids go on past one
that fails (``for_each``). ``event list`` lists every event unless given --start_date/--end_date
(the API's own window is from yesterday to two years ahead).
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import sys
from typing import Any

from ..calendar.definitions import CATEGORY_TAXONOMY, EVENT_TYPE, ORGANIZER_TYPE, VENUE_TYPE
from .common import CliError, add_command
from .formats import GET_FORMATS, Fields, add_options, list_items
from .posts import posts_route
from .rest_calls import extra_options, for_each, get_item, rest, run_with_app, update_item
from .route_options import add_schema_options, list_value, schema_body

CAL = "/cal/events/v1"
CAL_PAGE = 50  # the calendar API's largest page


def cal_all(app: Any, route: str, key: str, user: Any, query: dict[str, Any]) -> list[dict[str, Any]]:
    """Every item of a calendar listing (``{"<key>": [...], "total_pages": N}``), a page at a time;
    one page only when --per_page or --page is given."""
    if "per_page" in query or "page" in query:
        return rest(app, "GET", route, user, query)[1][key]
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        _, data, _ = rest(app, "GET", route, user, {**query, "per_page": str(CAL_PAGE), "page": str(page)})
        items.extend(data[key])
        if page >= int(data.get("total_pages") or 0):
            return items
        page += 1


def _id_of(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else None


def _ids(values: Any) -> list[int]:
    if isinstance(values, dict):
        values = [values]
    return [value["id"] for value in values or [] if isinstance(value, dict) and "id" in value]


EVENT_FIELDS: Fields = {
    "ID": lambda e: e["id"],
    "title": lambda e: e.get("title", ""),
    "slug": lambda e: e.get("slug", ""),
    "description": lambda e: e.get("description", ""),
    "start_date": lambda e: e.get("start_date", ""),
    "end_date": lambda e: e.get("end_date", ""),
    "all_day": lambda e: bool(e.get("all_day")),
    "timezone": lambda e: e.get("timezone", ""),
    "status": lambda e: e.get("status", ""),
    "featured": lambda e: bool(e.get("featured")),
    "venue": lambda e: _id_of(e.get("venue")),
    "organizer": lambda e: _ids(e.get("organizer")),
    "categories": lambda e: [c.get("slug") for c in e.get("categories") or []],
    "url": lambda e: e.get("url", ""),
    # Shown when asked for (--fields, --field): every other field the events route writes.
    "author": lambda e: int(e.get("author") or 0),
    "date": lambda e: e.get("date", ""),
    "date_utc": lambda e: e.get("date_utc", ""),
    "excerpt": lambda e: e.get("excerpt", ""),
    "image": lambda e: _id_of(e.get("image")),
    "cost": lambda e: e.get("cost", ""),
    "currency_symbol": lambda e: (e.get("cost_details") or {}).get("currency_symbol", ""),
    "currency_position": lambda e: (e.get("cost_details") or {}).get("currency_position", ""),
    "website": lambda e: e.get("website", ""),
    "show_map": lambda e: bool(e.get("show_map")),
    "show_map_link": lambda e: bool(e.get("show_map_link")),
    "hide_from_listings": lambda e: bool(e.get("hide_from_listings")),
    "sticky": lambda e: bool(e.get("sticky")),
    "tags": lambda e: [t.get("slug") for t in e.get("tags") or []],
}
EVENT_DEFAULT = ["ID", "title", "start_date", "end_date", "status"]
EVENT_GET_DEFAULT = list(EVENT_FIELDS)[:list(EVENT_FIELDS).index("url") + 1]
# An event's dates, read as the route reads them (calendar.events.parse_moment, PHP's strtotime).
EVENT_DATES = ("start_date", "end_date", "date", "date_utc")
DATE_FORMATS = ("YYYY-MM-DD HH:MM:SS, YYYY-MM-DD HH:MM, YYYY-MM-DD, a Unix timestamp, or words PHP's strtotime reads "
                "('tomorrow 10am', 'next friday 20:00', '+1 week')")
TERM_OPTIONS = {"categories": (CATEGORY_TAXONOMY, "category"), "tags": ("post_tag", "tag")}


def _event_body(app: Any, user: Any, args: argparse.Namespace, existing: int | None,
                ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The events route's body for the options given, and the names it will create (categories
    and tags, venues and organizers not found by name), checked first where the route would say
    less: a date it cannot read (the formats it takes), an end before the start (which the
    calendar would move to the start without a word)."""
    body = schema_body(args, event_write(), skip=("venue", "organizer"))
    _check_dates(app, user, body, existing)
    _add_currency(args, body)
    new_terms = [(option, name) for option in TERM_OPTIONS for name in _new_term_names(app, option, body.get(option))]
    if args.venue is not None:
        body["venue"] = _linked_value(app, user, "venue", args.venue, many=False)
    if args.organizer is not None:
        body["organizer"] = _linked_value(app, user, "organizer", args.organizer, many=True)
    return body, new_terms


def _check_dates(app: Any, user: Any, body: dict[str, Any], existing: int | None) -> None:
    from ..calendar import events as cal

    options = app.site.load_options()
    given = {name: body[name] for name in ("start_date", "end_date") if name in body}
    stored: dict[str, Any] = {}
    if existing is not None and given and (len(given) == 1 or "all_day" not in body):
        stored = rest(app, "GET", f"{CAL}/events/{existing}", user)[1]  # what the update keeps
    zone, _ = cal.site_timezone(options, body.get("timezone") or stored.get("timezone") or None)
    moments = {}
    for name in EVENT_DATES:
        if name in body:
            moment = cal.parse_moment(body[name], zone)
            if moment is None:
                raise CliError(f"--{name}: '{body[name]}' is not a date. Give {DATE_FORMATS}.")
            moments[name] = moment.replace(tzinfo=None)
    if not given:
        return
    start = moments.get("start_date") or _stored_moment(stored.get("start_date"))
    end = moments.get("end_date") or _stored_moment(stored.get("end_date"))
    if start is None or end is None:
        return
    all_day = body["all_day"] is True if "all_day" in body else bool(stored.get("all_day"))
    if (end.date() < start.date()) if all_day else (end < start):
        raise CliError(f"The event's end ({end:%Y-%m-%d %H:%M:%S}) is before its start ({start:%Y-%m-%d %H:%M:%S}).")


def _stored_moment(text: Any) -> dt.datetime | None:
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S") if isinstance(text, str) and text else None


def _add_currency(args: argparse.Namespace, body: dict[str, Any]) -> None:
    """--currency_symbol and --currency_position put the symbol into --cost, where the route reads
    them from (calendar-api.md 4.5: "20$" is a postfix $, "$20" a prefix one)."""
    if args.currency_symbol is None and args.currency_position is None:
        return
    if "cost" not in body or args.currency_symbol is None:
        raise CliError("--currency_symbol (and --currency_position) go with --cost: the route reads the symbol from the cost.")
    symbol = args.currency_symbol
    body["cost"] = f"{body['cost']}{symbol}" if args.currency_position == "postfix" else f"{symbol}{body['cost']}"


def _new_term_names(app: Any, option: str, value: Any) -> list[str]:
    """The names given to --categories or --tags that name no term yet: the route creates them."""
    from ..content import terms as term_store

    names = [entry for entry in value or [] if isinstance(entry, str)]
    if not names:
        return []
    taxonomy = TERM_OPTIONS[option][0]
    with app.site.read() as conn:
        return [name for name in names if term_store.find_term(conn, taxonomy, name) is None]


def _linked_value(app: Any, user: Any, what: str, given: list[str], *, many: bool) -> Any:
    """--venue or --organizer as the route takes it: ids as they are, a name matched to the
    published record of that name (said on stderr), else a new record of that name, which the
    route creates as its inline venues and organizers (reported once created)."""
    value = list_value(given)
    if value == "":
        return ""  # unlink
    base = LINKED[what][1]
    linked: list[Any] = []
    for entry in value:
        if isinstance(entry, int):
            linked.append(entry)
            continue
        found = [item for item in cal_all(app, f"{CAL}/{base}", base, user, {"search": entry})
                 if html.unescape(str(item.get(what, ""))).strip().lower() == entry.lower()]
        if found:
            print(f"Matched {what} '{entry}' (id {found[0]['id']})", file=sys.stderr)
            linked.append(found[0]["id"])
        else:
            linked.append({what: entry})
    return linked if many else linked[0] if len(linked) == 1 else linked


def _report_created(data: dict[str, Any], body: dict[str, Any], new_terms: list[tuple[str, str]]) -> None:
    """Say on stderr what the route created from the names given."""
    for option, name in new_terms:
        term = next((t for t in data.get(option) or [] if html.unescape(str(t.get("name", ""))) == name), None)
        if term is not None:
            print(f"Created {TERM_OPTIONS[option][1]} '{name}' (id {term['id']})", file=sys.stderr)
    for what in ("venue", "organizer"):
        asked = body.get(what)
        new_names = [entry[what] for entry in (asked if isinstance(asked, list) else [asked]) if isinstance(entry, dict)]
        shown = data.get(what)
        records = shown if isinstance(shown, list) else [shown]
        for name in new_names:
            record = next((r for r in records if isinstance(r, dict) and html.unescape(str(r.get(what, ""))) == name), None)
            if record is not None:
                print(f"Created {what} '{name}' (id {record['id']})", file=sys.stderr)


def cmd_event_list(args: argparse.Namespace) -> int:
    query = extra_options(args.extra)
    # Every event, unless a window is given (the API's default window starts yesterday).
    query.setdefault("start_date", "1970-01-01 00:00:00")
    query.setdefault("end_date", "9999-12-31 23:59:59")

    def run(app: Any, user: Any) -> int:
        return list_items(args, EVENT_FIELDS, cal_all(app, f"{CAL}/events", "events", user, query), EVENT_DEFAULT, "ID")

    return run_with_app(args, run)


def cmd_event_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"{CAL}/events/{args.id}", EVENT_FIELDS, {}, default=EVENT_GET_DEFAULT)

    return run_with_app(args, run)


def cmd_event_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        body, new_terms = _event_body(app, user, args, None)
        _, data, _ = rest(app, "POST", f"{CAL}/events", user, body=body)
        _report_created(data, body, new_terms)
        print(data["id"] if args.porcelain else f"Success: Created event {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_event_update(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        body, new_terms = _event_body(app, user, args, args.id)
        if not body:
            raise CliError("Need some fields to update.")
        _, data, _ = rest(app, "POST", f"{CAL}/events/{args.id}", user, body=body)
        _report_created(data, body, new_terms)
        print(f"Success: Updated event {args.id}.")
        return 0

    return run_with_app(args, run)


def _linked_delete(args: argparse.Namespace, base: str, content_type: str, what: str) -> int:
    """Trash through the calendar API; --force deletes (the calendar API has no force: the
    content type's /cms/v2 route has). The item is read first, so a wrong id says so."""

    def run(app: Any, user: Any) -> int:
        def delete(item_id: int) -> str:
            if not args.force:
                rest(app, "DELETE", f"{CAL}/{base}/{item_id}", user)
                return f"Success: Trashed {what} {item_id}."
            from ..content import items

            with app.site.read() as conn:
                item = items.get_item(conn, item_id)
            if item is None or item.type != content_type:
                raise CliError(f"Could not find the {what} with ID {item_id}.")
            rest(app, "DELETE", f"{posts_route(app, content_type)}/{item_id}", user, {"force": "true"})
            return f"Success: Deleted {what} {item_id}."

        return for_each(args.ids, delete, noun=what, done="deleted" if args.force else "trashed")

    return run_with_app(args, run)


def cmd_event_delete(args: argparse.Namespace) -> int:
    return _linked_delete(args, "events", EVENT_TYPE, "event")


# The fields venue and organizer list and get show (get: all of them, unless asked for others).
VENUE_SHOWN = ("venue", "description", "status", "address", "city", "country", "province", "state", "zip",
               "phone", "website", "stateprovince", "show_map", "show_map_link")
ORGANIZER_SHOWN = ("organizer", "description", "status", "phone", "website", "email")
LINKED = {
    "venue": (VENUE_TYPE, "venues", VENUE_SHOWN, ["ID", "venue", "address", "city", "country"]),
    "organizer": (ORGANIZER_TYPE, "organizers", ORGANIZER_SHOWN, ["ID", "organizer", "phone", "email", "website"]),
}


def event_write() -> dict[str, dict[str, Any]]:
    """The events route's own arguments (api/cal_events.py, what its endpoints are registered with).
    Imported when an event command is read: the API costs the other commands a second to import."""
    from ..api.cal_events import event_write_args

    return event_write_args(creating=False)


def linked_write(what: str) -> dict[str, dict[str, Any]]:
    """A venue's or organizer's route's own arguments (api/cal_linked.py), as ``event_write``."""
    from ..api.cal_linked import linked_write_args

    return linked_write_args(LINKED[what][0], creating=False)


def _linked_fields(what: str) -> Fields:
    fields: Fields = {"ID": lambda item: item["id"]}
    for name in ("slug", *LINKED[what][2], "url"):
        fields[name] = lambda item, name=name: item.get(name, "")
    fields.update({
        "author": lambda item: int(item.get("author") or 0),
        "date": lambda item: item.get("date", ""),
        "date_utc": lambda item: item.get("date_utc", ""),
        "image": lambda item: _id_of(item.get("image")),
    })
    return fields


LINKED_FIELDS = {what: _linked_fields(what) for what in LINKED}
LINKED_GET_DEFAULT = {what: ["ID", "slug", *LINKED[what][2], "url"] for what in LINKED}


def cmd_linked_list(args: argparse.Namespace) -> int:
    what = args.linked
    query = extra_options(args.extra)

    def run(app: Any, user: Any) -> int:
        base = LINKED[what][1]
        return list_items(args, LINKED_FIELDS[what], cal_all(app, f"{CAL}/{base}", base, user, query), LINKED[what][3], "ID")

    return run_with_app(args, run)


def cmd_linked_get(args: argparse.Namespace) -> int:
    what = args.linked

    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"{CAL}/{LINKED[what][1]}/{args.id}", LINKED_FIELDS[what], {},
                        default=LINKED_GET_DEFAULT[what])

    return run_with_app(args, run)


def cmd_linked_create(args: argparse.Namespace) -> int:
    what = args.linked

    def run(app: Any, user: Any) -> int:
        body = {**schema_body(args, linked_write(what), skip=(what,)), what: args.name}
        _, data, _ = rest(app, "POST", f"{CAL}/{LINKED[what][1]}", user, body=body)
        print(data["id"] if args.porcelain else f"Success: Created {what} {data['id']}.")
        return 0

    return run_with_app(args, run)


def cmd_linked_update(args: argparse.Namespace) -> int:
    what = args.linked

    def run(app: Any, user: Any) -> int:
        return update_item(app, user, f"{CAL}/{LINKED[what][1]}/{args.id}", schema_body(args, linked_write(what)),
                           f"Success: Updated {what} {args.id}.")

    return run_with_app(args, run)


def cmd_linked_delete(args: argparse.Namespace) -> int:
    content_type, base, *_ = LINKED[args.linked]
    return _linked_delete(args, base, content_type, args.linked)


def register(commands: Any) -> None:
    """Add event, venue and organizer."""
    event = commands.add_parser("event", help="calendar events, through the calendar API")
    events = event.add_subparsers(dest="event_command", required=True)
    listing = add_command(events, "list", "list events (other --key=value options are calendar listing filters)", extra=True)
    add_options(listing)
    listing.set_defaults(handler=cmd_event_list)
    get = add_command(events, "get", "show an event")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    get.set_defaults(handler=cmd_event_get)
    create = add_command(events, "create", "create an event")
    create.defer(_event_write_options)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    create.set_defaults(handler=cmd_event_create)
    update = add_command(events, "update", "update an event")
    update.add_argument("id", type=int)
    update.defer(_event_write_options)
    update.set_defaults(handler=cmd_event_update)
    delete = add_command(events, "delete", "move events to the trash, or delete them with --force (going on past an id that fails)")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")
    delete.add_argument("--force", action="store_true", help="skip the trash")
    delete.set_defaults(handler=cmd_event_delete)
    for what in LINKED:
        _register_linked(commands, what)


def _register_linked(commands: Any, what: str) -> None:
    base = LINKED[what][1]
    parser = commands.add_parser(what, help=f"calendar {base}, through the calendar API")
    group = parser.add_subparsers(dest=f"{what}_command", required=True)
    listing = add_command(group, "list", f"list {base} (other --key=value options are listing filters)", extra=True)
    add_options(listing)
    listing.set_defaults(handler=cmd_linked_list)
    get = add_command(group, "get", f"show a {what}")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    get.set_defaults(handler=cmd_linked_get)
    create = add_command(group, "create", f"create a {what}")
    create.add_argument("name", help=f"the {what}'s name")
    create.defer(lambda parser: add_schema_options(parser, linked_write(what), skip=(what,)))
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    create.set_defaults(handler=cmd_linked_create)
    update = add_command(group, "update", f"update a {what}")
    update.add_argument("id", type=int)
    update.defer(lambda parser: add_schema_options(parser, linked_write(what)))
    update.set_defaults(handler=cmd_linked_update)
    delete = add_command(group, "delete", f"move {base} to the trash, or delete them with --force (going on past an id that fails)")
    delete.add_argument("ids", metavar="id", type=int, nargs="+")
    delete.add_argument("--force", action="store_true", help="skip the trash")
    delete.set_defaults(handler=cmd_linked_delete)
    for sub in (listing, get, create, update, delete):
        sub.set_defaults(linked=what)


def _event_write_options(parser: argparse.ArgumentParser) -> None:
    """Every argument of the events route (--venue and --organizer also by name), and the cost's
    currency."""
    add_schema_options(parser, event_write())
    parser.add_argument("--currency_symbol", default=None, help="the cost's currency symbol, put into --cost")
    parser.add_argument("--currency_position", choices=("prefix", "postfix"), default=None,
                        help="where the symbol goes in --cost (default prefix)")
