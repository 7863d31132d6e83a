"""What the schema fuzzer (test_openapi_fuzz.py) never sent, sent to every place it fits (issue 29),
on both databases:

* **multipart file names** of any script (Cyrillic, CJK, emoji, Latin-1, quotes, backslashes,
  percent escapes), in a form posted to every POST operation of /openapi.json, anonymously and
  as an administrator, and uploaded as media: never a 5xx, always the error shape, and an
  upload that is an image is stored under its name's stem as its title;
* **hostile URLs** (``javascript:``, ``data:``, ``vbscript:`` in every spelling a browser still
  reads as one: case, whitespace and control characters, entities, ``//`` with an encoded line
  break) in every URL-typed field of every write operation the document declares, and in the
  nested ones it does not describe (an event's inline venue and organizers, the calendar's URL
  meta through cms/v2): refused, or stored without the link; never found again in any answer.

``URL_FIELDS`` says how each field gets a body that is valid but for the URL; the test that walks
the document fails on a URL-typed field of a write operation that is not listed there, so a new
one cannot go unfuzzed.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import os
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image

EXAMPLES = int(os.environ.get("CALPRESS_FUZZ_EXAMPLES", "8"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _assert_clean(response: Any, where: str) -> None:
    assert response.status_code < 500, f"{where} -> {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        body = response.json
        assert isinstance(body, dict) and isinstance(body.get("code"), str) and isinstance(body.get("message"), str), where
        assert body.get("data", {}).get("status") == response.status_code, (where, body)


# -- multipart file names -------------------------------------------------------------------------

_NAME_CHARACTERS = st.one_of(
    st.characters(codec="utf-8", exclude_categories=("Cs",)),
    st.sampled_from(list("фотоأهلا写真ñé😀🎉 ;=\\'%&+#") + ['"', "%22", "%0A", "..", "/"]),
)
FILE_NAMES = st.lists(_NAME_CHARACTERS, min_size=1, max_size=24).map("".join).map(lambda stem: stem + ".png")


def _form(name: str, data: bytes, fields: dict[str, str] | None = None) -> tuple[bytes, str]:
    """A multipart body as a browser writes it: the file name as UTF-8 between quotes, with ``"``
    and line breaks percent-encoded (the HTML standard's rule), nothing else changed."""
    boundary = "HostileNames7f3a"
    shown = name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
    parts = b""
    for key, value in (fields or {}).items():
        parts += f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
    parts += (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{shown}"\r\n'
              "Content-Type: image/png\r\n\r\n").encode() + data + b"\r\n"
    parts += f"--{boundary}--\r\n".encode()
    return parts, f"multipart/form-data; boundary={boundary}"


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 120, 200)).save(buffer, "PNG")
    return buffer.getvalue()


def _post_operations(client) -> list[str]:
    """The paths of every POST operation, path parameters filled with an id that may exist."""
    document = client.get("/openapi.json").json
    found = []
    for path, item in document["paths"].items():
        if "post" in item:
            found.append(re.sub(r"\{[^}]+\}", "1", path))
    return found


def test_any_file_name_in_a_form_to_any_operation(app, client, admin):
    operations = _post_operations(client)
    assert len(operations) > 50
    png = _png()

    @SETTINGS
    @given(name=FILE_NAMES)
    def run(name: str) -> None:
        body, content_type = _form(name, png, {"title": "Form"})
        for path in operations:
            for user in (None, admin):
                response = client.post(path, user=user, body=body, headers={"Content-Type": content_type})
                _assert_clean(response, f"POST {path} with file name {name!r}")

    run()


def test_any_file_name_uploads_as_media(client, admin):
    png = _png()

    @SETTINGS
    @given(name=FILE_NAMES)
    def run(name: str) -> None:
        body, content_type = _form(name, png)
        response = client.post("/cms/v2/media", user=admin, body=body, headers={"Content-Type": content_type})
        _assert_clean(response, f"upload of {name!r}")
        assert response.status_code == 201, (name, response.json)
        assert response.json["mime_type"] == "image/png"
        stored = client.get(f"/cms/v2/media/{response.json['id']}", user=admin, params={"context": "edit"})
        assert stored.status_code == 200 and stored.json["source_url"].endswith(".png")

    run()


# -- hostile URLs -----------------------------------------------------------------------------------

_BAD_SCHEMES = ("javascript", "vbscript", "data")
_PAYLOADS = {"javascript": ":alert(1)", "vbscript": ":msgbox(1)", "data": ":text/html,<script>alert(1)</script>"}


@st.composite
def hostile_urls(draw) -> str:
    """A link with a bad scheme, spelled as a browser would still follow it."""
    scheme = draw(st.sampled_from(_BAD_SCHEMES))
    spelled = "".join(c.upper() if draw(st.booleans()) else c for c in scheme)
    if draw(st.booleans()):  # a tab, line break or NUL inside the scheme: browsers drop them
        at = draw(st.integers(1, len(spelled) - 1))
        spelled = spelled[:at] + draw(st.sampled_from(["\t", "\n", "\r", "\x00", "&Tab;", "&NewLine;"])) + spelled[at:]
    if draw(st.booleans()):  # one letter as a character reference
        at = draw(st.integers(0, len(spelled) - 1))
        if spelled[at].isalpha():
            spelled = spelled[:at] + draw(st.sampled_from([f"&#{ord(spelled[at])};", f"&#x{ord(spelled[at]):x};"])) + spelled[at + 1:]
    colon = draw(st.sampled_from([":", ":", "&#58;", "&colon;"]))  # (%3A is no colon to a browser: a relative path)
    rest = _PAYLOADS[scheme][1:]
    if scheme != "data" and draw(st.booleans()):
        rest = "//example.org/%0A" + rest  # looks like a URL to FILTER_VALIDATE_URL
    lead = draw(st.sampled_from(["", " ", "\t", "\x01", "  \n"]))
    return lead + spelled + colon + rest


def _normalised(text: str) -> str:
    """What a browser would read as the start of a link in ``text``: entities decoded (twice),
    whitespace and control characters dropped, lower case."""
    for _ in range(2):
        text = html.unescape(text)
    return re.sub(r"[\x00-\x20\x7f]", "", text).lower()


# A bad scheme where a browser reads one: at the start of a value (a link field), or at the start of
# a link in HTML (href, src, action...). "http://data:..." is an http link, however odd its host.
_FOUND_BAD = re.compile(r"(?:^|(?:href|src|action|cite|formaction|poster|longdesc|usemap)=[\"']?)(javascript|vbscript|data):(?!image/)")


def _bad_links_in(value: Any) -> list[str]:
    """Every string in a decoded JSON answer that a browser would follow to a bad scheme."""
    if isinstance(value, str):
        seen = _normalised(value)
        return [value] if _FOUND_BAD.search(seen) else []
    if isinstance(value, dict):
        return [bad for item in value.values() for bad in _bad_links_in(item)]
    if isinstance(value, list):
        return [bad for item in value for bad in _bad_links_in(item)]
    return []


def _when(hours: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M:%S")


def _post_id(app) -> int:
    from content_support import make_item

    return make_item(app, title="Commented", status="publish").id


# field (as the walk below names it: "METHOD /path field") -> how to fill it: (path to write to,
# the body around the URL, the route that reads the written item back). ``{url}`` marks the
# hostile value; ``{id}``, the item made for the update routes; ``{post}``, a published post.
CAL = "/cal/events/v1"
_EVENT = {"title": "Hostile", "start_date": "{start}", "end_date": "{end}"}
URL_FIELDS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "/cal/events/v1/events website": (f"{CAL}/events", {**_EVENT, "website": "{url}"}, f"{CAL}/events/{{made}}"),
    "/cal/events/v1/events/{id} website": (f"{CAL}/events/{{event}}", {"website": "{url}"}, f"{CAL}/events/{{event}}"),
    "/cal/events/v1/events/by-slug/{slug} website": (f"{CAL}/events/by-slug/hostile-event", {"website": "{url}"},
                                                     f"{CAL}/events/{{event}}"),
    "/cal/events/v1/venues website": (f"{CAL}/venues", {"venue": "Hall", "website": "{url}"}, f"{CAL}/venues/{{made}}"),
    "/cal/events/v1/venues/{id} website": (f"{CAL}/venues/{{venue}}", {"website": "{url}"}, f"{CAL}/venues/{{venue}}"),
    "/cal/events/v1/venues/by-slug/{slug} website": (f"{CAL}/venues/by-slug/hostile-hall", {"website": "{url}"},
                                                     f"{CAL}/venues/{{venue}}"),
    "/cal/events/v1/organizers website": (f"{CAL}/organizers", {"organizer": "Host", "website": "{url}"},
                                          f"{CAL}/organizers/{{made}}"),
    "/cal/events/v1/organizers/{id} website": (f"{CAL}/organizers/{{organizer}}", {"website": "{url}"},
                                               f"{CAL}/organizers/{{organizer}}"),
    "/cal/events/v1/organizers/by-slug/{slug} website": (f"{CAL}/organizers/by-slug/hostile-host", {"website": "{url}"},
                                                         f"{CAL}/organizers/{{organizer}}"),
    # Not stored: the address of the view to render, and a feed to fetch; an image's own address.
    "/cal/views/v2/html url": ("/cal/views/v2/html", {"url": "{url}"}, None),
    "/cal/event-aggregator/v1/imports source": ("/cal/event-aggregator/v1/imports", {"source": "{url}", "origin": "ics"}, None),
    "/cms/v2/media/{id}/edit src": ("/cms/v2/media/1/edit", {"src": "{url}", "rotation": 90}, None),
    "/cms/v2/settings url": ("/cms/v2/settings", {"url": "{url}"}, "/cms/v2/settings"),
    "/cms/v2/users url": ("/cms/v2/users", {"username": "hostile{n}", "email": "hostile{n}@example.test",
                                            "password": "a long password 1", "url": "{url}"}, "/cms/v2/users/{made}"),
    "/cms/v2/users/{id} url": ("/cms/v2/users/{admin}", {"url": "{url}"}, "/cms/v2/users/{admin}"),
    "/cms/v2/users/me url": ("/cms/v2/users/me", {"url": "{url}"}, "/cms/v2/users/me"),
    "/cms/v2/comments author_url": ("/cms/v2/comments", {"post": "{post}", "content": "Hi {n}", "author_url": "{url}"},
                                    "/cms/v2/comments/{made}"),
    "/cms/v2/comments/{id} author_url": ("/cms/v2/comments/{comment}", {"author_url": "{url}"}, "/cms/v2/comments/{comment}"),
    "/cms/v2/menu-items url": ("/cms/v2/menu-items", {"title": "Link {n}", "type": "custom", "url": "{url}", "menus": "{menu}",
                                                      "status": "publish"}, "/cms/v2/menu-items/{made}"),
    "/cms/v2/menu-items/{id} url": ("/cms/v2/menu-items/{menu_item}", {"url": "{url}"}, "/cms/v2/menu-items/{menu_item}"),
}
# Nested places the document leaves loose (an event's inline venue and organizers) or describes
# through registered meta (cms/v2's view of the calendar's types).
NESTED_URL_FIELDS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "event venue.website": (f"{CAL}/events", {**_EVENT, "venue": {"venue": "Inline hall {n}", "website": "{url}"}},
                            f"{CAL}/events/{{made}}"),
    "event organizer[].website": (f"{CAL}/events", {**_EVENT, "organizer": [{"organizer": "Inline host {n}",
                                                                            "website": "{url}"}]},
                                  f"{CAL}/events/{{made}}"),
    "cms cal_events meta._EventURL": ("/cms/v2/cal_events", {"title": "Meta", "status": "publish",
                                                             "meta": {"_EventURL": "{url}"}}, "/cms/v2/cal_events/{made}"),
    "cms cal_venue meta._VenueURL": ("/cms/v2/cal_venue", {"title": "Meta hall", "status": "publish",
                                                           "meta": {"_VenueURL": "{url}"}}, "/cms/v2/cal_venue/{made}"),
    "cms cal_organizer meta._OrganizerWebsite": ("/cms/v2/cal_organizer", {"title": "Meta host", "status": "publish",
                                                                           "meta": {"_OrganizerWebsite": "{url}"}},
                                                 "/cms/v2/cal_organizer/{made}"),
}


def _url_fields_of_the_document(client) -> set[str]:
    """``"<path> <field>"`` for every URL-typed field (format uri, or named website, url, link...)
    of a write operation's JSON body, at any depth; the item routes' POST, PUT and PATCH count once."""
    document = client.get("/openapi.json").json
    found: set[str] = set()

    def walk(schema: Any, trail: list[str], path: str) -> None:
        if not isinstance(schema, dict):
            return
        if trail and (schema.get("format") == "uri" or trail[-1] in ("website", "url", "link", "author_url", "src", "source")):
            found.add(f"{path} {'.'.join(trail)}")
        for name, sub in (schema.get("properties") or {}).items():
            walk(sub, [*trail, name], path)
        walk(schema.get("items"), [*trail, "[]"], path)
        for key in ("oneOf", "anyOf", "allOf"):
            for sub in schema.get(key) or []:
                walk(sub, trail, path)

    for path, item in document["paths"].items():
        for method in ("post", "put", "patch"):
            body = (item.get(method) or {}).get("requestBody", {}).get("content", {}).get("application/json", {})
            walk(body.get("schema"), [], path)
    return found


def test_every_url_field_of_the_document_is_fuzzed(client):
    assert _url_fields_of_the_document(client) - set(URL_FIELDS) == set()


def _fill(value: Any, names: dict[str, Any]) -> Any:
    if isinstance(value, str):
        if value == "{url}":
            return names["url"]
        if re.fullmatch(r"\{\w+\}", value) and not isinstance(names.get(value[1:-1]), str):
            return names[value[1:-1]]
        return value.format(**names) if "{" in value else value
    if isinstance(value, dict):
        return {key: _fill(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, names) for item in value]
    return value


@pytest.fixture()
def targets(app, client, admin) -> dict[str, Any]:
    """One of each thing the update routes change, made with an ordinary website."""
    start, end = _when(24), _when(26)
    made = {
        "event": client.post(f"{CAL}/events", user=admin, json={**_EVENT, "title": "Hostile event", "start_date": start,
                                                                "end_date": end, "slug": "hostile-event"}).json["id"],
        "venue": client.post(f"{CAL}/venues", user=admin, json={"venue": "Hostile hall", "slug": "hostile-hall"}).json["id"],
        "organizer": client.post(f"{CAL}/organizers", user=admin, json={"organizer": "Hostile host",
                                                                         "slug": "hostile-host"}).json["id"],
        "post": _post_id(app),
        "admin": admin.id,
        "start": start,
        "end": end,
    }
    made["comment"] = client.post("/cms/v2/comments", user=admin, json={"post": made["post"], "content": "First"}).json["id"]
    made["menu"] = client.post("/cms/v2/menus", user=admin, json={"name": "Hostile menu"}).json["id"]
    made["menu_item"] = client.post("/cms/v2/menu-items", user=admin, json={
        "title": "Home", "type": "custom", "url": "https://example.test/", "menus": made["menu"], "status": "publish"}).json["id"]
    return made


@pytest.mark.parametrize("field", sorted(URL_FIELDS) + sorted(NESTED_URL_FIELDS))
def test_a_hostile_url_in_any_url_field_is_never_served_as_a_link(client, admin, targets, field):
    where, template, read_back = {**URL_FIELDS, **NESTED_URL_FIELDS}[field]
    counter = iter(range(10**6))
    stored = []

    @SETTINGS
    @given(url=hostile_urls())
    @example(url="javascript://x/%0Aalert(1)")  # a URL to PHP's FILTER_VALIDATE_URL, and to the old check
    @example(url="JaVa\tScRiPt:alert(1)")
    @example(url="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==")
    def run(url: str) -> None:
        names = {**targets, "url": url, "n": next(counter)}
        path, body = _fill(where, names), _fill(template, names)
        response = client.post(path, user=admin, json=body)
        _assert_clean(response, f"POST {path} {field}={url!r}")
        answers = [response]
        if response.status_code < 300 and read_back is not None:
            made = response.json.get("id") if isinstance(response.json, dict) else None
            target = _fill(read_back, {**names, "made": made})
            stored.append(url)
            answers += [client.get(target, user=admin, params={"context": "edit"}), client.get(target)]
        for answer in answers:
            if answer.status_code < 300 and answer.text:
                assert _bad_links_in(answer.json) == [], (field, url, answer.json)

    run()
