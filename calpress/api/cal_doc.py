"""``GET /cal/events/v1/doc``: the calendar's OpenAPI 3.0 self-description (calendar-api.md 6).

Paths, operations and parameters are read from the route registry, so the document lists
exactly the routes and arguments that answer; the representation schemas below describe
section 2 of the spec (the venue's and organizer's fields come from their tables,
:mod:`calpress.calendar.fields`).
"""

from __future__ import annotations

from typing import Any

from ..calendar.fields import FLAG, ORGANIZER, URL, VENUE, LinkedKind
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from .base import Api

NAMESPACE = "cal"  # the key of cal/events/v1 in the namespace table
_SCALARS = ("integer", "number", "string", "boolean")


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _props(**fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, spec in fields.items():
        type_, description = spec[0], spec[1]
        entry: dict[str, Any] = {"type": type_, "description": description}
        if len(spec) > 2:
            entry.update(spec[2])
        out[name.replace("__", "-")] = entry
    return out


def _date_field(what: str) -> tuple[str, str, dict[str, Any]]:
    return ("string", f"The {what} in the format Y-m-d H:i:s", {"format": "date-time"})


def _linked_schema(kind: LinkedKind) -> dict[str, Any]:
    """A venue or organizer: its post fields, then the documented fields of its table."""
    what = kind.name
    properties = _props(
        id=("integer", f"The {what} WordPress post ID"),
        author=("integer", f"The {what} author WordPress post ID"),
        date=_date_field(f"{what} creation date"),
        date_utc=_date_field(f"{what} creation date UTC"),
        modified=_date_field(f"{what} last modification date"),
        modified_utc=_date_field(f"{what} last modification date UTC"),
        url=("string", f"The URL to the {what} page", {"format": "uri"}),
        **{what: ("string", f"The {what} name")},
        description=("string", f"The {what} long description"),
        excerpt=("string", f"The {what} short description"),
        slug=("string", f"The {what} slug"),
    )
    for field in kind.documented:
        entry: dict[str, Any] = {"type": "boolean" if field.kind == FLAG else "string", "description": field.schema}
        if field.kind == URL:
            entry["format"] = "uri"
        properties[field.name] = entry
    return {"type": "object", "properties": properties}


SCHEMAS: dict[str, Any] = {
    "ImageSize": {"type": "object", "properties": _props(
        width=("integer", "The image width in pixels in the specified size"),
        height=("integer", "The image height in pixels in the specified size"),
        mime__type=("string", "The image mime-type"),
        url=("string", "The link to the image in the specified size on the site", {"format": "uri"}),
    )},
    "CostDetails": {"type": "object", "properties": _props(
        currency_symbol=("string", "The cost currency symbol"),
        currency_code=("string", "The cost currency code"),
        currency_position=("string", "The position of the currency symbol in the cost string", {"enum": ["prefix", "postfix"]}),
        values=("array", "A sorted array of all the numeric values for the cost", {"items": {"type": "string"}}),
    )},
    "Term": {"type": "object", "properties": _props(
        id=("integer", "The WordPress term ID"),
        name=("string", "The term name"),
        slug=("string", "The term slug"),
        taxonomy=("string", "The taxonomy the term belongs to"),
        description=("string", "The term description"),
        parent=("integer", "The term parent term if any"),
        count=("integer", "The number of posts associated with the term"),
        url=("string", "The URL to the term archive page", {"format": "uri"}),
        urls=("array", "A list of links to the term own, archive and parent REST URL", {"items": {"type": "string"}}),
    )},
    "Image": {"type": "object", "properties": {
        **_props(
            url=("string", "The URL to the full size version of the image", {"format": "uri"}),
            id=("integer", "The image WordPress post ID"),
            extension=("string", "The image file extension"),
            width=("integer", "The image natural width in pixels"),
            height=("integer", "The image natural height in pixels"),
            filesize=("integer", "The image file size in bytes"),
        ),
        "sizes": {"type": "array", "description": "The details about each size available for the image", "items": _ref("ImageSize")},
    }},
    "DateDetails": {"type": "object", "properties": _props(
        year=("integer", "The date year"), month=("integer", "The date month"), day=("integer", "The date day"),
        hour=("integer", "The date hour"), minutes=("integer", "The date minutes"), seconds=("integer", "The date seconds"),
    )},
    "Event": {"type": "object", "properties": {
        **_props(
            id=("integer", "The event WordPress post ID"),
            global_id=("string", "The event ID used to globally identify in Event Aggregator"),
            global_id_lineage=("array", "An Array containing the lineage of where this event comes from",
                               {"items": {"type": "string"}}),
            author=("integer", "The event author WordPress post ID"),
            date=_date_field("event creation date"),
            date_utc=_date_field("event creation date UTC"),
            modified=_date_field("event last modification date"),
            modified_utc=_date_field("event last modification date UTC"),
            status=("string", "The event status"),
            url=("string", "The URL to the event page", {"format": "uri"}),
            rest_url=("string", "The TEC REST API link to fetch this event", {"format": "uri"}),
            title=("string", "The event name"),
            description=("string", "The event long description"),
            excerpt=("string", "The event short description"),
            slug=("string", "The event slug"),
        ),
        "image": {"description": "The event featured image details if set", **_ref("Image")},
        "all_day": {"type": "boolean", "description": "Whether or not this event is an all day Event"},
        "start_date": {"type": "string", "description": "The event start date in the event or site timezone", "format": "date"},
        "start_date_details": {"description": "An array of each component of the event start date", **_ref("DateDetails")},
        "end_date": {"type": "string", "description": "The event end date in the event or site timezone", "format": "date"},
        "end_date_details": {"description": "An array of each component of the event end date", **_ref("DateDetails")},
        "utc_start_date": {"type": "string", "description": "The event start date in the UTC timezone", "format": "date"},
        "utc_start_date_details": {"description": "An array of each component of the event start date in the UTC timezone",
                                   **_ref("DateDetails")},
        "utc_end_date": {"type": "string", "description": "The event end date in the UTC timezone", "format": "date"},
        "utc_end_date_details": {"description": "An array of each component of the event end date in the UTC timezone",
                                 **_ref("DateDetails")},
        "timezone": {"type": "string", "description": "The event timezone string"},
        "timezone_abbr": {"type": "string", "description": "The abbreviated version of the event timezone string"},
        "cost": {"type": "string", "description": "The event cost including the currency symbol"},
        "cost_details": {"description": "The event cost details", **_ref("CostDetails")},
        "website": {"type": "string", "description": "The event website URL", "format": "uri"},
        "show_map": {"type": "boolean", "description": "Whether the map should be shown for the event or not"},
        "show_map_link": {"type": "boolean", "description": "Whether the map link should be shown for the event or not"},
        "hide_from_listings": {"type": "boolean", "description": "Whether an event should be hidden from the calendar view or not"},
        "sticky": {"type": "boolean", "description": "Whether an event is sticky in the calendar view or not"},
        "featured": {"type": "boolean", "description": "Whether the event is featured in the calendar or not"},
        "categories": {"type": "array", "description": "The event categories", "items": _ref("Term")},
        "tags": {"type": "array", "description": "The event tags", "items": _ref("Term")},
        "venue": {"description": "The event venue", **_ref("Venue")},
        "organizer": {"type": "array", "description": "The event organizers", "items": _ref("Organizer")},
    }},
    "Venue": _linked_schema(VENUE),
    "Organizer": _linked_schema(ORGANIZER),
}

_RESOURCE_SCHEMA = {"events": "Event", "venues": "Venue", "organizers": "Organizer", "categories": "Term", "tags": "Term"}


def _responses(resource: str, method: str, single: bool) -> dict[str, Any]:
    schema_name = _RESOURCE_SCHEMA.get(resource)
    if resource == "doc":
        return {"200": {"description": "Returns the documentation for The Events Calendar REST API in Swagger consumable format."}}
    what = resource.rstrip("s") if resource != "categories" else "category"
    body = {"application/json": {"schema": _ref(schema_name)}} if schema_name else {}
    if not single and method == "get":
        return {
            "200": {"description": f"Returns all the {resource} matching the search criteria",
                    "content": {"application/json": {"schema": {"title": resource, "type": "array", "items": _ref(schema_name)}}}},
            "400": {"description": "One or more of the specified query variables has a bad format"},
            "404": {"description": "The requested page was not found."},
        }
    if method == "get":
        return {
            "200": {"description": f"Returns the data of the {what} with the specified post ID", "content": body},
            "400": {"description": f"The {what} post ID is missing."},
            "403": {"description": f"The {what} with the specified ID is not accessible."},
            "404": {"description": f"A {what} with the specified ID does not exist."},
        }
    if method == "delete":
        return {
            "200": {"description": f"Deletes a {what} and returns its data", "content": body},
            "400": {"description": f"The {what} post ID is missing or does not exist."},
            "403": {"description": f"The current user cannot delete the {what} with the specified ID."},
            "410": {"description": f"The {what} with the specified ID has been deleted already."},
            "500": {"description": f"The {what} with the specified ID could not be deleted."},
        }
    created = "201" if not single else "200"
    return {
        created: {"description": f"Returns the data of the {'created' if not single else 'updated'} {what}", "content": body},
        "400": {"description": f"The {what} data is invalid."},
        "403": {"description": f"The user is not authorized to {'create' if not single else 'update'} {what}s"},
    }


def _schema_of(spec: dict[str, Any]) -> dict[str, Any]:
    type_ = spec.get("swagger_type", spec.get("type"))
    if isinstance(type_, str) and type_ in _SCALARS:
        return {"type": type_}
    if type_ == "array":
        return {"type": "array", "items": {"type": "string"}}
    return {"type": "string"}


def _parameters(route: Route, endpoint: Endpoint, location: str) -> list[dict[str, Any]]:
    in_path = set(route.params)
    found = []
    for name, spec in endpoint.args.items():
        entry: dict[str, Any] = {
            "in": "path" if name in in_path else location,
            "schema": _schema_of(spec),
            "description": spec.get("description", ""),
            "required": bool(spec.get("required")) or name in in_path,
            "name": name,
        }
        if spec.get("type") == "array":
            entry["style"] = "form"
            entry["explode"] = False
        found.append(entry)
    return found


def document(api: Api, request: RestRequest) -> dict[str, Any]:
    base = request.url_for(f"{NAMESPACE}.index", slash=True)
    paths: dict[str, Any] = {}
    namespace = api.registry.wire_name(NAMESPACE)
    for route in api.registry.routes_of(namespace):
        if not route.path:
            continue  # the namespace's own index
        key = route.template[len(namespace) + 1 :]
        resource = key.strip("/").split("/")[0]
        single = "{" in key
        operations: dict[str, Any] = {}
        for endpoint in route.endpoints:
            for method in endpoint.methods:
                if method in ("PUT", "PATCH"):
                    continue
                verb = method.lower()
                operation: dict[str, Any] = {}
                if verb == "post":
                    params = _parameters(route, endpoint, "query")
                    path_params = [p for p in params if p["in"] == "path"]
                    if path_params:
                        operation["parameters"] = path_params
                    operation["requestBody"] = {"content": {"application/x-www-form-urlencoded": {"schema": {
                        "type": "object",
                        "properties": {
                            p["name"]: {**p["schema"], "description": p["description"]} for p in params if p["in"] != "path"
                        },
                    }}}}
                else:
                    params = _parameters(route, endpoint, "query")
                    if params:
                        operation["parameters"] = params
                operation["responses"] = _responses(resource, verb, single)
                operations[verb] = operation
        paths[key] = operations
    return {
        "openapi": "3.0.0",
        "info": {
            "version": "1.0.0",
            "title": "The Events Calendar REST API",
            "description": "The Events Calendar REST API allows accessing upcoming events information easily and conveniently.",
        },
        "components": {"schemas": SCHEMAS},
        "servers": [{"url": base}],
        "paths": paths,
    }
