"""The item schema and the arguments of one ``cms/v2`` content type: the schema follows the type's
features, taxonomies and registered meta (cms-api.md 2.2, 2.11), property for property as the
reference's posts controller builds it; the write arguments are derived from it, and the argument
callbacks it names (statuses, template, meta) live here with it.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..content.slugs import sanitize_title
from ..content.types import POST_FORMATS, ContentType
from ..rest import schema as rest_schema
from ..rest.controller import collection_params
from ..rest.errors import RestError, forbidden
from ..rest.request import RestRequest
from ..rest.schema import endpoint_args_from_schema
from .base import Api
from .scope import context_of, scope_of

API_REL = "https://api.w.org/"


def _accept(value: Any, request: RestRequest, name: str) -> bool:
    return True


def _keep(value: Any, request: RestRequest, name: str) -> Any:
    return value


def _slug(value: Any, request: RestRequest, name: str) -> str:
    return sanitize_title(str(value))


def parse_slug_list(value: Any) -> list[str]:
    """The reference's wp_parse_slug_list: a list or a comma/space separated string, each
    entry sanitised as a slug, duplicates dropped."""
    raw = value if isinstance(value, list) else re.split(r"[,\s]+", str(value))
    return list(dict.fromkeys(sanitize_title(str(entry)) for entry in raw if str(entry).strip()))


def _statuses_schema(allowed: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "array", "items": {"enum": list(allowed), "type": "string"}}


@functools.lru_cache(maxsize=256)
def _known_statuses(allowed: tuple[str, ...], value: str | tuple[str, ...]) -> tuple[str, ...] | None:
    """The statuses a valid listing ``status`` value names (None when it is not valid: its
    error is worked out, with the argument's name, by the caller)."""
    raw = value if isinstance(value, str) else list(value)
    if rest_schema.validate_value(raw, _statuses_schema(allowed), "status") is not None:
        return None
    return tuple(parse_slug_list(raw))


class ContentSchema:
    """The item schema of one content type (``item_schema``, its ``properties``), the write and
    collection arguments derived from it, and the definitions it is built from: the type's REST
    taxonomies, registered meta and statuses. A controller builds one per type, once."""

    def __init__(self, api: Api, content_type: ContentType) -> None:
        self.api = api
        self.registry = api.site.registry
        self.type = content_type
        self.taxonomies = self.registry.rest_taxonomies_of(content_type.name)
        self.meta_fields = self.registry.registered_meta(content_type)
        # what meta shows for a key nothing is stored under (lists and dicts copied per item)
        self.meta_defaults = {name: field_.default for name, field_ in self.meta_fields.items()}
        self.write_statuses = self.registry.write_statuses()
        self.list_statuses = tuple(self.registry.list_statuses())
        self.item_schema = self._item_schema()
        self.properties: dict[str, Any] = self.item_schema["properties"]

    def _item_schema(self) -> dict[str, Any]:
        """The item schema, property for property as the reference's posts controller builds
        it for this type (its order is the order of the write arguments)."""
        t = self.type
        props: dict[str, Any] = {
            "date": {
                "description": "The date the post was published, in the site's timezone.",
                "type": ["string", "null"],
                "format": "date-time",
                "context": ["view", "edit", "embed"],
            },
            "date_gmt": {
                "description": "The date the post was published, as GMT.",
                "type": ["string", "null"],
                "format": "date-time",
                "context": ["view", "edit"],
            },
            "guid": {
                "description": "The globally unique identifier for the post.",
                "type": "object",
                "context": ["view", "edit"],
                "readonly": True,
                "properties": {
                    "raw": {"description": "GUID for the post, as it exists in the database.", "type": "string", "context": ["edit"], "readonly": True},
                    "rendered": {"description": "GUID for the post, transformed for display.", "type": "string", "context": ["view", "edit"], "readonly": True},
                },
            },
            "id": {"description": "Unique identifier for the post.", "type": "integer", "context": ["view", "edit", "embed"], "readonly": True},
            "link": {"description": "URL to the post.", "type": "string", "format": "uri", "context": ["view", "edit", "embed"], "readonly": True},
            "modified": {
                "description": "The date the post was last modified, in the site's timezone.",
                "type": "string",
                "format": "date-time",
                "context": ["view", "edit"],
                "readonly": True,
            },
            "modified_gmt": {
                "description": "The date the post was last modified, as GMT.",
                "type": "string",
                "format": "date-time",
                "context": ["view", "edit"],
                "readonly": True,
            },
            "slug": {
                "description": "An alphanumeric identifier for the post unique to its type.",
                "type": "string",
                "context": ["view", "edit", "embed"],
                "arg_options": {"sanitize": _slug},
            },
            "status": {
                "description": "A named status for the post.",
                "type": "string",
                "enum": list(self.write_statuses),
                "context": ["view", "edit"],
                "arg_options": {"validate": self._check_status},
            },
            "type": {"description": "Type of post.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
            "password": {"description": "A password to protect access to the content and excerpt.", "type": "string", "context": ["edit"]},
        }
        if t.viewable and t.public:
            props["permalink_template"] = {"description": "Permalink template for the post.", "type": "string", "context": ["edit"], "readonly": True}
            props["generated_slug"] = {"description": "Slug automatically generated from the post title.", "type": "string", "context": ["edit"], "readonly": True}
            props["class_list"] = {
                "description": "An array of the class names for the post container element.",
                "type": "array",
                "context": ["view", "edit"],
                "readonly": True,
                "items": {"type": "string"},
            }
        if t.hierarchical:
            props["parent"] = {"description": "The ID for the parent of the post.", "type": "integer", "context": ["view", "edit"]}
        raw_context = ["view", "edit"] if self.type.name == "wp_block" else ["edit"]
        for feature in ("title", "editor", "author", "excerpt", "thumbnail", "comments", "revisions", "page-attributes", "post-formats", "custom-fields"):
            if not t.has_rest_feature(feature):
                continue
            if feature == "title":
                title_props: dict[str, Any] = {
                    "raw": {"description": "Title for the post, as it exists in the database.", "type": "string", "context": raw_context},
                    "rendered": {"description": "HTML title for the post, transformed for display.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
                }
                if self.type.name == "wp_block":
                    del title_props["rendered"]
                props["title"] = {
                    "description": "The title for the post.",
                    "type": "object",
                    "context": ["view", "edit", "embed"],
                    "arg_options": {"validate": _accept, "sanitize": _keep},
                    "properties": title_props,
                }
            elif feature == "editor":
                content_props: dict[str, Any] = {
                    "raw": {"description": "Content for the post, as it exists in the database.", "type": "string", "context": raw_context},
                    "rendered": {"description": "HTML content for the post, transformed for display.", "type": "string", "context": ["view", "edit"], "readonly": True},
                    "block_version": {"description": "Version of the content block format used by the post.", "type": "integer", "context": ["edit"], "readonly": True},
                    "protected": {"description": "Whether the content is protected with a password.", "type": "boolean", "context": ["view", "edit", "embed"], "readonly": True},
                }
                if self.type.name == "wp_block":
                    del content_props["rendered"]
                props["content"] = {
                    "description": "The content for the post.",
                    "type": "object",
                    "context": ["view", "edit"],
                    "arg_options": {"validate": _accept, "sanitize": _keep},
                    "properties": content_props,
                }
            elif feature == "author":
                props["author"] = {"description": "The ID for the author of the post.", "type": "integer", "context": ["view", "edit", "embed"]}
            elif feature == "excerpt":
                props["excerpt"] = {
                    "description": "The excerpt for the post.",
                    "type": "object",
                    "context": ["view", "edit", "embed"],
                    "arg_options": {"validate": _accept, "sanitize": _keep},
                    "properties": {
                        "raw": {"description": "Excerpt for the post, as it exists in the database.", "type": "string", "context": ["edit"]},
                        "rendered": {"description": "HTML excerpt for the post, transformed for display.", "type": "string", "context": ["view", "edit", "embed"], "readonly": True},
                        "protected": {"description": "Whether the excerpt is protected with a password.", "type": "boolean", "context": ["view", "edit", "embed"], "readonly": True},
                    },
                }
            elif feature == "thumbnail":
                props["featured_media"] = {"description": "The ID of the featured media for the post.", "type": "integer", "context": ["view", "edit", "embed"]}
            elif feature == "comments":
                props["comment_status"] = {"description": "Whether or not comments are open on the post.", "type": "string", "enum": ["open", "closed"], "context": ["view", "edit"]}
                props["ping_status"] = {"description": "Whether or not the post can be pinged.", "type": "string", "enum": ["open", "closed"], "context": ["view", "edit"]}
            elif feature == "page-attributes":
                props["menu_order"] = {"description": "The order of the post in relation to other posts.", "type": "integer", "context": ["view", "edit"]}
            elif feature == "post-formats":
                props["format"] = {"description": "The format for the post.", "type": "string", "enum": list(POST_FORMATS), "context": ["view", "edit"]}
            elif feature == "custom-fields":
                props["meta"] = {
                    "description": "Meta fields.",
                    "type": "object",
                    "context": ["view", "edit"],
                    "properties": {name: dict(f.schema) for name, f in self.meta_fields.items()},
                    "arg_options": {"validate": self._check_meta, "sanitize": self._sanitize_meta},
                }
        if t.name == "post":
            props["sticky"] = {"description": "Whether or not the post should be treated as sticky.", "type": "boolean", "context": ["view", "edit"]}
        props["template"] = {
            "description": "The theme file to use to display the post.",
            "type": "string",
            "context": ["view", "edit"],
            "arg_options": {"validate": self._check_template},
        }
        for taxonomy in self.taxonomies:
            props[taxonomy.rest_base] = {
                "description": f"The terms assigned to the post in the {taxonomy.name} taxonomy.",
                "type": "array",
                "items": {"type": "integer"},
                "context": ["view", "edit"],
            }
        return {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "title": t.name,
            "type": "object",
            "properties": props,
            "links": self._schema_links(),
        }

    def _schema_links(self) -> list[dict[str, Any]]:
        """Link descriptions of the actions an edit-context response may advertise."""
        # The href template of the item route (the route itself is registered after the schema).
        href = f"/{self.api.registry.wire_name(self.type.rest_namespace)}/{self.type.rest_base}/{{id}}"
        links: list[dict[str, Any]] = []
        if self.type.name != "attachment":
            links.append({
                "rel": API_REL + "action-publish",
                "title": "The current user can publish this post.",
                "href": href,
                "targetSchema": {"type": "object", "properties": {"status": {"type": "string", "enum": ["publish", "future"]}}},
            })
        links.append({
            "rel": API_REL + "action-unfiltered-html",
            "title": "The current user can post unfiltered HTML markup and JavaScript.",
            "href": href,
            "targetSchema": {"type": "object", "properties": {"content": {"raw": {"type": "string"}}}},
        })
        if self.type.name == "post":
            links.append({
                "rel": API_REL + "action-sticky",
                "title": "The current user can sticky this post.",
                "href": href,
                "targetSchema": {"type": "object", "properties": {"sticky": {"type": "boolean"}}},
            })
        if self.type.supports_feature("author"):
            links.append({
                "rel": API_REL + "action-assign-author",
                "title": "The current user can change the author on this post.",
                "href": href,
                "targetSchema": {"type": "object", "properties": {"author": {"type": "integer"}}},
            })
        for taxonomy in self.taxonomies:
            target = {"type": "object", "properties": {taxonomy.rest_base: {"type": "array", "items": {"type": "integer"}}}}
            links.append({
                "rel": API_REL + "action-assign-" + taxonomy.rest_base,
                "title": f"The current user can assign terms in the {taxonomy.name} taxonomy.",
                "href": href,
                "targetSchema": target,
            })
            links.append({
                "rel": API_REL + "action-create-" + taxonomy.rest_base,
                "title": f"The current user can create terms in the {taxonomy.name} taxonomy.",
                "href": href,
                "targetSchema": target,
            })
        return links

    def item_args(self, method: str) -> dict[str, dict[str, Any]]:
        """The arguments of a write route (``POST`` creates, ``PUT`` updates), from the schema."""
        return endpoint_args_from_schema(self.item_schema, method)

    def collection_args(self) -> dict[str, dict[str, Any]]:
        """The collection arguments, in the reference's order (cms-api.md 2.11)."""
        t = self.type
        params = collection_params(self.item_schema)
        params["context"]["default"] = "view"
        integers = {"type": "integer"}
        params["after"] = {"description": "Limit response to posts published after a given ISO8601 compliant date.", "type": "string", "format": "date-time"}
        params["modified_after"] = {"description": "Limit response to posts modified after a given ISO8601 compliant date.", "type": "string", "format": "date-time"}
        if t.supports_feature("author"):
            params["author"] = {"description": "Limit result set to posts assigned to specific authors.", "type": "array", "items": dict(integers), "default": []}
            params["author_exclude"] = {"description": "Ensure result set excludes posts assigned to specific authors.", "type": "array", "items": dict(integers), "default": []}
        params["before"] = {"description": "Limit response to posts published before a given ISO8601 compliant date.", "type": "string", "format": "date-time"}
        params["modified_before"] = {"description": "Limit response to posts modified before a given ISO8601 compliant date.", "type": "string", "format": "date-time"}
        params["exclude"] = {"description": "Ensure result set excludes specific IDs.", "type": "array", "items": dict(integers), "default": []}
        params["include"] = {"description": "Limit result set to specific IDs.", "type": "array", "items": dict(integers), "default": []}
        page_attributes = t.name == "page" or t.supports_feature("page-attributes")
        if page_attributes:
            params["menu_order"] = {"description": "Limit result set to posts with a specific menu_order value.", "type": "integer"}
        params["search_semantics"] = {"description": "How to interpret the search input.", "type": "string", "enum": ["exact"]}
        params["offset"] = {"description": "Offset the result set by a specific number of items.", "type": "integer"}
        params["order"] = {"description": "Order sort attribute ascending or descending.", "type": "string", "default": "desc", "enum": ["asc", "desc"]}
        orderby = ["author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title"]
        if page_attributes:
            orderby.append("menu_order")
        params["orderby"] = {"description": "Sort collection by post attribute.", "type": "string", "default": "date", "enum": orderby}
        if t.hierarchical or t.name == "attachment":
            params["parent"] = {"description": "Limit result set to items with particular parent IDs.", "type": "array", "items": dict(integers), "default": []}
            params["parent_exclude"] = {"description": "Limit result set to all items except those of a particular parent ID.", "type": "array", "items": dict(integers), "default": []}
        params["search_columns"] = {
            "default": [],
            "description": "Array of column names to be searched.",
            "type": "array",
            "items": {"enum": ["post_title", "post_content", "post_excerpt"], "type": "string"},
        }
        params["slug"] = {"description": "Limit result set to posts with one or more specific slugs.", "type": "array", "items": {"type": "string"}}
        params["status"] = {
            "default": "publish",
            "description": "Limit result set to posts assigned one or more statuses.",
            "type": "array",
            "items": {"enum": list(self.list_statuses), "type": "string"},
            "validate": self._check_statuses,
            "sanitize": self._sanitize_statuses,
        }
        if self.taxonomies:
            params["tax_relation"] = {"description": "Limit result set based on relationship between multiple taxonomies.", "type": "string", "enum": ["AND", "OR"]}
            for taxonomy in self.taxonomies:
                base = taxonomy.rest_base
                params[base] = self._tax_limit_schema(
                    f"Limit result set to items with specific terms assigned in the {base} taxonomy.", taxonomy.hierarchical, True
                )
                params[base + "_exclude"] = self._tax_limit_schema(
                    f"Limit result set to items except those with specific terms assigned in the {base} taxonomy.", taxonomy.hierarchical, False
                )
        if t.name == "post":
            params["sticky"] = {"description": "Limit result set to items that are sticky.", "type": "boolean"}
            params["ignore_sticky"] = {"description": "Whether to ignore sticky posts or not.", "type": "boolean", "default": True}
        if t.supports_feature("post-formats"):
            params["format"] = {
                "description": "Limit result set to items assigned one or more given formats.",
                "type": "array",
                "uniqueItems": True,
                "items": {"enum": list(POST_FORMATS), "type": "string"},
            }
        return params

    @staticmethod
    def _tax_limit_schema(description: str, hierarchical: bool, include: bool) -> dict[str, Any]:
        query_props: dict[str, Any] = {
            "terms": {"description": "Term IDs.", "type": "array", "items": {"type": "integer"}, "default": []},
            "include_children": {
                "description": "Whether to include child terms in the terms limiting the result set.",
                "type": "boolean",
                "default": False,
            },
        }
        if include:
            query_props["operator"] = {
                "description": "Whether items must be assigned all or any of the specified terms.",
                "type": "string",
                "enum": ["AND", "OR"],
                "default": "OR",
            }
        if not hierarchical:
            del query_props["include_children"]
        return {
            "description": description,
            "type": ["object", "array"],
            "oneOf": [
                {"title": "Term ID List", "description": "Match terms with the listed IDs.", "type": "array", "items": {"type": "integer"}},
                {
                    "title": "Term ID Taxonomy Query",
                    "description": "Perform an advanced term query.",
                    "type": "object",
                    "properties": query_props,
                    "additionalProperties": False,
                },
            ],
        }

    # == argument callbacks =======================================================================

    def _check_status(self, value: Any, request: RestRequest, name: str) -> Any:
        """A status in the enum, or the item's current one (which may be outside it, e.g. trash)."""
        item_id = request.get_param("id")
        if item_id:
            current = scope_of(request).item(item_id)
            if current is not None and current.status == value:
                return True
        return rest_schema.validate_value(value, {"type": "string", "enum": list(self.write_statuses)}, name) or True

    def _listing_statuses(self, value: Any, name: str) -> tuple[str, ...] | RestError:
        """The statuses a listing's ``status`` names, or the schema's error. A valid value of
        strings gives the same statuses every time: those come from :func:`_known_statuses`
        (``publish`` is checked on nearly every request)."""
        key = value if isinstance(value, str) else tuple(value) if isinstance(value, list) and all(
            isinstance(entry, str) for entry in value) else None
        found = _known_statuses(self.list_statuses, key) if key is not None else None
        if found is not None:
            return found
        error = rest_schema.validate_value(value, _statuses_schema(self.list_statuses), name)
        return error if error is not None else tuple(parse_slug_list(value))

    def _check_statuses(self, value: Any, request: RestRequest, name: str) -> Any:
        """Listing statuses: other than the default only for users who may edit items of the type
        (``private`` also for readers of private items), then each in the enum; the permission
        first, as the reference's sanitize_post_statuses."""
        statuses = self._listing_statuses(value, name)
        named = parse_slug_list(value) if isinstance(statuses, RestError) else statuses
        caps = self.type.caps
        ctx = context_of(request)
        for status in named:
            if status == "publish":
                continue
            if ctx.can(caps["edit_posts"]) or (status == "private" and ctx.can(caps["read_private_posts"])):
                continue
            return forbidden("rest_forbidden_status", "Status is forbidden.", request.user_id)
        return statuses if isinstance(statuses, RestError) else True

    def _sanitize_statuses(self, value: Any, request: RestRequest, name: str) -> Any:
        statuses = self._listing_statuses(value, name)
        return list(statuses) if isinstance(statuses, tuple) else parse_slug_list(value)

    def _check_template(self, value: Any, request: RestRequest, name: str) -> Any:
        if not isinstance(value, str):
            return rest_schema.validate_value(value, {"type": "string"}, name) or True
        if not value:
            return True
        item_id = request.get_param("id")
        if item_id:
            current = scope_of(request).item(item_id)
            if current is not None and current.template == value:
                return True  # an item may keep a template the theme no longer offers
        if value in self.type.templates:
            return True
        return RestError("rest_invalid_param", f"template is not one of {', '.join(self.type.templates)}.")

    def _check_meta(self, value: Any, request: RestRequest, name: str) -> Any:
        """``meta`` must be an object; each registered key's value must fit its schema (the
        error names the key, as ``meta.key``); unregistered keys are ignored."""
        if not isinstance(value, dict):
            return False
        for key, entry in value.items():
            field_ = self.meta_fields.get(key)
            if field_ is None or entry is None:
                continue
            if not field_.single and entry == []:
                continue
            error = rest_schema.validate_value(entry, field_.schema, f"meta.{key}")
            if error is not None:
                return error
            if field_.check is not None and not field_.check(entry):
                # the registration's own rule (a calendar URL key refuses javascript: links)
                return RestError("rest_invalid_param", f"meta.{key} is invalid.")
        return True

    def _sanitize_meta(self, value: Any, request: RestRequest, name: str) -> Any:
        cleaned: dict[str, Any] = {}
        for key, entry in value.items():
            field_ = self.meta_fields.get(key)
            if field_ is None:
                continue
            cleaned[key] = None if entry is None else rest_schema.sanitize_value(entry, field_.schema, f"meta.{key}")
        return cleaned
