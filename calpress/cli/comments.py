"""Comments in WP-CLI's forms (issue 15), through /cms/v2 as ``--user`` (default: the first
administrator):

    calpress comment list [--status=approve|hold|spam|trash|any] [--post_id=N] | get <id> | create ...
    calpress comment approve|unapprove|spam|unspam|trash|untrash|delete <id>... [--force]

Actions given several ids go on past one that fails (``for_each``)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import add_command
from .formats import GET_FORMATS, Fields, add_options, list_items
from .rest_calls import extra_options, for_each, get_item, rest, rest_all, run_with_app

# The REST statuses as WordPress stores them in comment_approved.
APPROVED = {"approved": "1", "hold": "0"}


COMMENT_FIELDS: Fields = {
    "comment_ID": lambda c: c["id"],
    "comment_post_ID": lambda c: c.get("post", 0),
    "comment_date": lambda c: str(c.get("date") or "").replace("T", " "),
    "comment_date_gmt": lambda c: str(c.get("date_gmt") or "").replace("T", " "),
    "comment_approved": lambda c: APPROVED.get(c.get("status", ""), c.get("status", "")),
    "comment_author": lambda c: c.get("author_name", ""),
    "comment_author_email": lambda c: c.get("author_email", ""),
    "comment_author_url": lambda c: c.get("author_url", ""),
    "comment_content": lambda c: (c.get("content") or {}).get("raw", "") if isinstance(c.get("content"), dict) else c.get("content", ""),
    "comment_parent": lambda c: c.get("parent", 0),
    "comment_type": lambda c: c.get("type", ""),
    "user_id": lambda c: c.get("author", 0),
    "url": lambda c: c.get("link", ""),
}


COMMENT_DEFAULT = ["comment_ID", "comment_post_ID", "comment_date", "comment_approved", "comment_author",
                   "comment_author_email"]  # WP-CLI's Comment_Command fields


COMMENT_WRITE = {"comment_post_ID": "post", "comment_content": "content", "comment_author": "author_name",
                 "comment_author_email": "author_email", "comment_author_url": "author_url",
                 "comment_parent": "parent", "comment_approved": "status"}


def cmd_comment_list(args: argparse.Namespace) -> int:
    query = extra_options(args.extra)
    if args.post_id is not None:
        query["post"] = args.post_id
    # WP_Comment_Query: no status (or "all") lists approved and held comments; "any" every one.
    status = args.status or "all"
    statuses = ["any"] if status == "any" else ["approve", "hold"] if status == "all" else [status]

    def run(app: Any, user: Any) -> int:
        found: dict[int, dict[str, Any]] = {}
        for one in statuses:
            for item in rest_all(app, "/cms/v2/comments", user, {**query, "status": one}):
                found[item["id"]] = item
        ordered = sorted(found.values(), key=lambda c: (str(c.get("date_gmt") or ""), c["id"]), reverse=True)
        return list_items(args, COMMENT_FIELDS, ordered, COMMENT_DEFAULT, "comment_ID")

    return run_with_app(args, run)


def cmd_comment_get(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        return get_item(args, app, user, f"/cms/v2/comments/{args.id}", COMMENT_FIELDS)

    return run_with_app(args, run)


def cmd_comment_create(args: argparse.Namespace) -> int:
    def run(app: Any, user: Any) -> int:
        body: dict[str, Any] = {}
        for option, rest_name in COMMENT_WRITE.items():
            value = getattr(args, option)
            if value is not None:
                body[rest_name] = int(value) if rest_name in ("post", "parent") and value.isdigit() else value
        # WP-CLI inserts the comment as given (wp_insert_comment): approved unless told otherwise,
        # even one written for a visitor, which the REST route would hold as a first comment.
        status = body.get("status", "1")
        body["status"] = {"1": "approve", "0": "hold"}.get(status, status)
        _, data, _ = rest(app, "POST", "/cms/v2/comments", user, body=body)
        print(data["id"] if args.porcelain else f"Success: Created comment {data['id']}.")
        return 0

    return run_with_app(args, run)


# action -> (REST status to set, or None for DELETE; the message's verb)
COMMENT_ACTIONS = {
    "approve": ("approve", "Approved"),
    "unapprove": ("hold", "Unapproved"),
    "spam": ("spam", "Marked as spam"),
    "unspam": ("unspam", "Unspammed"),  # the status before the spam comes back, as wp_unspam_comment
    "trash": (None, "Trashed"),
    "untrash": ("untrash", "Untrashed"),  # the status before the trash comes back, as wp_untrash_comment
    "delete": (None, "Deleted"),
}


def cmd_comment_action(args: argparse.Namespace) -> int:
    status, verb = COMMENT_ACTIONS[args.comment_command]

    force = args.comment_command == "delete" and args.force
    shown = verb if status is not None else "Deleted" if force else "Trashed"

    def run(app: Any, user: Any) -> int:
        def act(comment_id: int) -> str:
            route = f"/cms/v2/comments/{comment_id}"
            if status is not None:
                rest(app, "POST", route, user, body={"status": status})
            else:
                rest(app, "DELETE", route, user, {"force": "true"} if force else {})
            return f"Success: {shown} comment {comment_id}."

        return for_each(args.ids, act, noun="comment", done=shown.lower())

    return run_with_app(args, run)


def register(commands: Any) -> None:
    """Add comment and its subcommands."""
    comment = commands.add_parser("comment", help="comments, through the REST API")
    comments = comment.add_subparsers(dest="comment_command", required=True)
    listing = add_command(comments, "list", "list comments (other --key=value options are REST listing filters)", extra=True)
    listing.add_argument("--status", choices=("approve", "hold", "spam", "trash", "all", "any"), default=None)
    listing.add_argument("--post_id", type=int, default=None)
    add_options(listing)
    listing.set_defaults(handler=cmd_comment_list)
    get = add_command(comments, "get", "show a comment")
    get.add_argument("id", type=int)
    add_options(get, formats=GET_FORMATS)
    get.set_defaults(handler=cmd_comment_get)
    create = add_command(comments, "create", "create a comment")
    for option in COMMENT_WRITE:
        create.add_argument(f"--{option}", default=None)
    create.add_argument("--porcelain", action="store_true", help="print only the new id")
    create.set_defaults(handler=cmd_comment_create)
    for action in COMMENT_ACTIONS:
        parser = add_command(comments, action, f"{action} comments" if action != "delete" else "trash comments, or delete them with --force")
        parser.add_argument("ids", type=int, nargs="+")
        if action == "delete":
            parser.add_argument("--force", action="store_true", help="skip the trash")
        parser.set_defaults(handler=cmd_comment_action)
