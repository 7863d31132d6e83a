"""The REST engine in this process, for the commands that mirror a route: the command builds the
request the REST API would receive (``GET /cms/v2/posts?context=edit``, ``POST /cms/v2/posts``
with a JSON body...), run as ``--user`` (default: the first administrator), so that it is checked,
stored and hooked exactly as over HTTP. A REST error answer is ``Error: <its message>``.
Commands given several ids go on past one that fails (``for_each``), as WP-CLI's do."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .common import CliError, locate, require_site
from .formats import Fields, row_of, show_item


def open_app(args: argparse.Namespace) -> Any:
    """The app (calpress.app.Calpress) of the located site; CliError when there is none."""
    from ..app import Calpress

    location, settings = locate(args)
    require_site(location, settings)
    return Calpress(settings, upgrade=True)


def acting_user(app: Any, given: str | None) -> Any:
    """The user a command runs as: --user (id, login or email), else the first administrator."""
    from ..auth import users

    with app.site.read() as conn:
        if given:
            user = users.find_user(conn, given)
            if user is None:
                raise CliError(f"Invalid user ID, email or login: '{given}'")
            return user
        first = users.first_with_role(conn, "administrator")
        if first is None:
            raise CliError("No administrator to act as: create one (calpress user create <login> <email> "
                           "--role=administrator) or give --user.")
        return users.get_user(conn, first)


def rest(app: Any, method: str, route: str, user: Any, query: dict[str, Any] | None = None,
         body: dict[str, Any] | None = None, *, upload: tuple[bytes, dict[str, str]] | None = None,
         ) -> tuple[int, Any, dict[str, str]]:
    """Run one REST request as ``user`` through the app's engine: (status, decoded body, headers);
    ``body`` goes as JSON, ``upload`` (bytes and their headers) as a file sent raw. An error
    answer (4xx, 5xx) raises CliError with its message."""
    origin = app.settings.site_url or "http://localhost"
    raw, headers = upload or (b"", None)
    status, headers, data = app.rest.serve_as(user, method, route, query=query, body=body, raw=raw, headers=headers,
                                              base_url=origin.rstrip("/") + "/wp-json", via="cli")
    if status >= 400:
        raise CliError(error_message(data, status))
    return status, data, headers


def error_message(data: Any, status: int) -> str:
    """The message of a REST error answer, with the reasons of each invalid parameter."""
    if not isinstance(data, dict) or "message" not in data:
        return f"The request failed (HTTP {status})."
    message = str(data["message"])
    params = (data.get("data") or {}).get("params") if isinstance(data.get("data"), dict) else None
    if isinstance(params, dict):
        reasons = [str(reason) for reason in params.values() if reason]
        if reasons:
            message += " (" + "; ".join(reasons) + ")"
    return message


def rest_all(app: Any, route: str, user: Any, query: dict[str, Any]) -> list[dict[str, Any]]:
    """Every item of a REST listing, a page of 100 at a time (WP-CLI lists everything unless
    asked for a page): one page only when --per_page or --page is given."""
    query = {"context": "edit", **query}
    if "per_page" in query or "page" in query:
        return rest(app, "GET", route, user, query)[1]
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        _, data, headers = rest(app, "GET", route, user, {**query, "per_page": "100", "page": str(page)})
        items.extend(data)
        if page >= int(headers.get("X-WP-TotalPages") or 1):
            return items
        page += 1


def for_each(targets: Sequence[Any], act: Callable[[Any], str], *, noun: str, done: str,
             always_report: bool = False) -> int:
    """Run ``act`` on each target (an id, a login...) and print the line it returns, going on past
    a target that fails, as WP-CLI's commands given several objects do: a ``Warning`` names the
    failure, and the command ends with WP-CLI's batch report (``Error: Only deleted 2 of 3
    posts.``, exit code 1). A single target's failure is the command's error, as before.
    ``always_report``: end with the report even when every target succeeded (``Success: Deleted
    2 of 2 application passwords.``), for the commands whose WP-CLI form prints nothing per target."""
    if len(targets) == 1 and not always_report:
        print(act(targets[0]))
        return 0
    failed = 0
    for target in targets:
        try:
            line = act(target)
        except CliError as err:
            print(f"Warning: {err}", file=sys.stderr)
            failed += 1
            continue
        if line:
            print(line)
    report = batch_report(noun, done, len(targets), len(targets) - failed)
    if failed:
        raise CliError(report)
    if always_report:
        print(f"Success: {report}")
    return 0


def batch_report(noun: str, done: str, total: int, successes: int) -> str:
    """WP-CLI's summary of an operation on several objects (``report_batch_operation_results``),
    without its ``Success:``/``Error:`` prefix: "Deleted 3 of 3 posts.", "Only deleted 2 of 3
    posts.", "No posts deleted." ``done`` is the verb's past tense. The noun is always plural, as
    WP-CLI writes it ("Regenerated 1 of 1 images.")."""
    nouns = noun + "s"
    if successes == total:
        return f"{done[0].upper()}{done[1:]} {successes} of {total} {nouns}."
    if successes:
        return f"Only {done} {successes} of {total} {nouns}."
    return f"No {noun}s {done}."


def run_with_app(args: argparse.Namespace, body: Callable[[Any, Any], int]) -> int:
    app = open_app(args)
    try:
        return body(app, acting_user(app, args.user))
    finally:
        app.site.close()


def extra_options(extra: list[str]) -> dict[str, str]:
    """``--key=value`` and ``--key value`` options no parser knows: query arguments, as WP-CLI
    passes unknown options to its query. A bare ``--flag`` is ``1``."""
    found: dict[str, str] = {}
    index = 0
    while index < len(extra):
        item = extra[index]
        if not item.startswith("--") or len(item) == 2:
            raise CliError(f"Unexpected argument: {item}")
        key, sep, value = item[2:].partition("=")
        if not sep:
            if index + 1 < len(extra) and not extra[index + 1].startswith("--"):
                value = extra[index + 1]
                index += 1
            else:
                value = "1"
        found[key] = value
        index += 1
    return found


def get_item(args: argparse.Namespace, app: Any, user: Any, route: str, fields: Fields,
             query: dict[str, Any] | None = None, *, default: list[str] | None = None) -> int:
    """A ``get`` command: the REST item at ``route`` (edit context unless ``query`` is given),
    shown with WP-CLI's field names (``default``: those shown unless asked for others; all)."""
    _, data, _ = rest(app, "GET", route, user, {"context": "edit"} if query is None else query)
    return show_item(args, row_of(fields, data), default or list(fields))


def update_item(app: Any, user: Any, route: str, body: dict[str, Any], message: str) -> int:
    """An ``update`` command: ``body`` (the REST names of the options given) sent to ``route``,
    then ``message``; WP-CLI's error when no field was given."""
    if not body:
        raise CliError("Need some fields to update.")
    rest(app, "POST", route, user, body=body)
    print(message)
    return 0
