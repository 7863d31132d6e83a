"""Real JavaScript clients from the npm registry against a real ``calpress serve`` process:
node-wpapi (tests/js/wpapi_run.js) with discovery and with its built-in wp/v2 routes, and
@wordpress/api-fetch (tests/js/api_fetch_run.js) with a login cookie, nonce renewal, method
override and fetch-all paging. scripts/test installs them with ``npm ci`` from
tests/js/package-lock.json; each script prints what the client got back as JSON, asserted here
and checked again against the server."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

JS = Path(__file__).resolve().parent.parent / "js"
LOGIN_PASSWORD = "a long login secret"
STALE_NONCE = "0123456789"  # api_fetch_run.js starts with it

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)]


def needs(package: str) -> pytest.MarkDecorator:
    """Skip (before any server starts) when node or the npm package is not installed."""
    missing = shutil.which("node") is None or not (JS / "node_modules" / package).exists()
    return pytest.mark.skipif(missing, reason=f"node or the npm package {package} missing (scripts/test installs tests/js with npm ci when npm is installed)")


def run_js(script: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(["node", str(JS / script), *args], capture_output=True, text=True, timeout=60, cwd=JS)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def administrator(server: Any) -> tuple[str, httpx.Client]:
    """The site's administrator ``admin`` (login password LOGIN_PASSWORD): a new application
    password of theirs and an httpx client signed with it, on the server's /wp-json/. The password
    is asked for as wp-admin asks for one (login cookie and REST nonce), sparing a second command."""
    server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", f"--user_pass={LOGIN_PASSWORD}")
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        assert browser.post("/wp-login.php", data={"log": "admin", "pwd": LOGIN_PASSWORD}).status_code == 302
        nonce = browser.get("/wp-admin/admin-ajax.php", params={"action": "rest-nonce"}).text
        answer = browser.post("/wp-json/cms/v2/users/me/application-passwords", json={"name": "js clients"}, headers={"X-WP-Nonce": nonce})
        assert answer.status_code == 201, answer.text[:300]
    password = answer.json()["password"]
    return password, httpx.Client(base_url=server.url + "/wp-json", auth=("admin", password), timeout=30)


def create_posts(rest: httpx.Client, count: int) -> list[int]:
    """``count`` published posts, 25 to a POST /batch/v1 (the most one batch takes)."""
    ids: list[int] = []
    for start in range(0, count, 25):
        requests = [{"method": "POST", "path": "/cms/v2/posts", "body": {"title": f"Seeded {n}", "status": "publish"}}
                    for n in range(start, min(count, start + 25))]
        answer = rest.post("/batch/v1", json={"requests": requests})
        assert answer.status_code == 207, answer.text[:300]
        responses = answer.json()["responses"]
        assert {response["status"] for response in responses} == {201}
        ids += [response["body"]["id"] for response in responses]
    return ids


def create_events(rest: httpx.Client, titles: list[str]) -> list[int]:
    """Published events in the calendar's default window (yesterday to two years ahead)."""
    ids = []
    for days, title in enumerate(titles, start=5):
        day = (datetime.now() + timedelta(days=days)).strftime("%Y-%m-%d")
        answer = rest.post("/cal/events/v1/events", json={"title": title, "status": "publish",
                                                           "start_date": f"{day} 20:00:00", "end_date": f"{day} 22:00:00"})
        assert answer.status_code == 201, answer.text[:300]
        ids.append(answer.json()["id"])
    return ids


def jpeg(path: Path, size: tuple[int, int]) -> Path:
    buffer = io.BytesIO()
    Image.new("RGB", size, "teal").save(buffer, format="JPEG")
    path.write_bytes(buffer.getvalue())
    return path


def check_pages(posts: dict[str, Any], seeded: list[int]) -> None:
    """25 posts walked ten at a time through node-wpapi's ``_paging.next``."""
    assert [len(page) for page in posts["pages"]] == [10, 10, 5]
    walked = [post_id for page in posts["pages"] for post_id in page]
    assert sorted(walked) == sorted(seeded)
    assert [(paging["total"], paging["totalPages"]) for paging in posts["paging"]] == [(25, 3)] * 3
    assert [(paging["hasPrev"], paging["hasNext"]) for paging in posts["paging"]] == [(False, True), (True, True), (True, False)]


@needs("wpapi")
def test_node_wpapi_with_discovery(live_server):
    """WPAPI.discover(url) on calpress's own names: paging, a post created with the application
    password, the calendar's events; the client's built-in wp/v2 routes find nothing (aliases off)."""
    password, rest = administrator(live_server)
    seeded = create_posts(rest, 25)
    events = create_events(rest, ["Harbour concert", "Night market"])

    report = run_js("wpapi_run.js", "discovered", live_server.url, "admin", password)

    assert report["endpoint"].startswith(live_server.url)
    check_pages(report["posts"], seeded)
    created = report["created"]
    assert created == {"id": created["id"], "title": "Written by node-wpapi", "status": "publish", "type": "post", "author": 1}
    assert report["readBack"] == {"id": created["id"], "title": "Written by node-wpapi"}
    stored = rest.get(f"/cms/v2/posts/{created['id']}", params={"context": "edit"}).json()
    assert stored["title"]["raw"] == "Written by node-wpapi" and stored["content"]["raw"] == "Hello from Node"

    # The calendar pages with X-TEC-Total/X-TEC-TotalPages (The Events Calendar's headers), not
    # X-WP-Total, so node-wpapi gives its listings no `_paging`: the totals are in the body.
    listed = report["events"]
    assert listed["titles"] == ["Harbour concert", "Night market"]
    assert (listed["total"], listed["totalPages"], listed["paging"]) == (2, 1, None)
    one = listed["onePerPage"]
    assert (one["count"], one["total"], one["totalPages"], one["paging"]) == (1, 2, 2, None)
    assert "/cal/events/v1/events" in one["nextRestUrl"] and "page=2" in one["nextRestUrl"]
    assert listed["single"]["id"] in events and listed["single"]["title"] in {"Harbour concert", "Night market"}
    headers = httpx.get(live_server.url + "/wp-json/cal/events/v1/events", params={"per_page": 1}).headers
    assert (headers["X-TEC-Total"], headers["X-TEC-TotalPages"]) == ("2", "2") and "X-WP-Total" not in headers

    # new WPAPI({endpoint}) without discovery calls /wp-json/wp/v2/...: no such route while the
    # reference's names are off.
    assert report["defaultRoutes"] == {"list": {"code": "rest_no_route", "status": 404}, "create": {"code": "rest_no_route", "status": 404}}
    assert rest.get("/cms/v2/posts", params={"search": "Never stored", "status": "any"}).json() == []


@needs("wpapi")
def test_node_wpapi_built_in_routes_with_the_reference_names(live_server_with_aliases, tmp_path):
    """With CALPRESS_COMPAT_ALIASES=1, node-wpapi's built-in routes without discovery: posts with
    paging, create and update, categories, a media upload, and tribe/events/v1 registered by hand
    and found by discovery."""
    server = live_server_with_aliases
    password, rest = administrator(server)
    seeded = create_posts(rest, 25)
    events = create_events(rest, ["Harbour concert", "Night market"])
    assert rest.post("/cms/v2/categories", json={"name": "Music"}).status_code == 201
    picture = jpeg(tmp_path / "harbour.jpg", (640, 480))

    report = run_js("wpapi_run.js", "defaults", server.url, "admin", password, str(picture))

    check_pages(report["posts"], seeded)
    post_id = report["created"]["id"]
    assert report["created"] == {"id": post_id, "status": "draft", "type": "post", "self": f"{server.url}/wp-json/wp/v2/posts/{post_id}"}
    assert report["updated"] == {"id": post_id, "title": "Default routes, updated", "status": "publish"}
    stored = rest.get(f"/cms/v2/posts/{post_id}", params={"context": "edit"}).json()
    assert (stored["title"]["raw"], stored["status"], stored["content"]["raw"]) == ("Default routes, updated", "publish", "Through wp/v2")

    categories = report["categories"]
    assert categories["names"] == ["Music", "Uncategorized"] and categories["taxonomies"] == ["category"]
    assert (categories["paging"]["total"], categories["paging"]["totalPages"]) == (2, 1)

    media = report["media"]
    assert (media["title"], media["altText"], media["mimeType"], media["width"], media["post"]) == (
        "Through wp/v2/media", "A default route", "image/jpeg", 640, post_id)
    assert media["self"] == f"{server.url}/wp-json/wp/v2/media/{media['id']}"
    assert httpx.get(media["sourceUrl"]).content == picture.read_bytes()

    listed = report["events"]
    assert listed["titles"] == ["Harbour concert", "Night market"] and listed["total"] == 2
    assert listed["paging"] is None  # X-TEC-Total, as above
    assert listed["restUrl"].startswith(f"{server.url}/wp-json/tribe/events/v1/events")
    single = listed["single"]
    assert single["id"] in events and single["restUrl"] == f"{server.url}/wp-json/tribe/events/v1/events/{single['id']}"
    assert listed["renamed"] == {"id": single["id"], "title": single["title"] + " (moved)"}
    assert rest.get(f"/cal/events/v1/events/{single['id']}").json()["title"] == single["title"] + " (moved)"
    discovered = report["discovered"]
    assert {"wp/v2", "tribe/events/v1", "cms/v2", "cal/events/v1"} <= set(discovered["namespaces"])
    assert discovered["titles"] == sorted(title + " (moved)" if title == single["title"] else title for title in listed["titles"])


def check_api_fetch(report: dict[str, Any], namespace: str, rest: httpx.Client, seeded: list[int]) -> None:
    login = report["login"]
    assert login["status"] == 302 and login["location"].endswith("/wp-admin/") and login["cookies"] == ["calpress_logged_in"]

    # The stale nonce is refused, api-fetch asks nonceEndpoint for a fresh one and retries: once.
    renewal = report["renewal"]
    me = f"/wp-json/{namespace}/users/me"
    assert [(r["method"], r["path"], r["nonce"], r["status"]) for r in renewal["requests"]] == [
        ("GET", me, STALE_NONCE, 403),
        ("GET", "/wp-admin/admin-ajax.php", None, 200),
        ("GET", me, renewal["nonce"], 200),
    ]
    assert renewal["requests"][1]["query"] == {"action": "rest-nonce"}
    assert renewal["nonce"] != STALE_NONCE and len(renewal["nonce"]) == 10
    assert renewal["me"] == {"id": 1, "slug": "admin", "roles": ["administrator"]}
    assert report["nonceEndpointCalls"] == 1

    # PUT and DELETE went out as POST + X-HTTP-Method-Override, and took effect.
    writes = report["writes"]
    post_id = writes["created"]["id"]
    item = f"/wp-json/{namespace}/posts/{post_id}"
    assert [(r["method"], r["path"], r["override"], r["status"]) for r in writes["requests"]] == [
        ("POST", f"/wp-json/{namespace}/posts", None, 201),
        ("POST", item, "PUT", 200),
        ("GET", item, None, 200),
        ("POST", item, "DELETE", 200),
        ("GET", item, None, 404),
    ]
    assert {r["nonce"] for r in writes["requests"]} == {renewal["nonce"]}
    assert writes["created"]["status"] == "draft" and writes["created"]["type"] == "post"
    assert writes["created"]["self"].endswith(item)
    assert writes["updated"] == writes["reread"] == {"title": "From api-fetch, renamed", "status": "publish"}
    assert writes["deleted"] == {"deleted": True, "previousId": post_id}
    assert writes["gone"] == {"code": "rest_post_invalid_id", "status": 404}
    assert rest.get(f"/cms/v2/posts/{post_id}", params={"context": "edit"}).status_code == 404

    # per_page=-1: api-fetch asks for 100 a page and follows Link rel="next" to the end.
    everything = report["fetchAll"]
    assert everything["count"] == everything["unique"] == len(seeded) == 250
    assert everything["types"] == ["post"]
    assert [(r["path"], r["query"].get("per_page"), r["query"].get("page"), r["status"]) for r in everything["requests"]] == [
        (f"/wp-json/{namespace}/posts", "100", None, 200),
        (f"/wp-json/{namespace}/posts", "100", "2", 200),
        (f"/wp-json/{namespace}/posts", "100", "3", 200),
    ]


@needs("@wordpress/api-fetch")
def test_api_fetch_with_a_login_cookie(live_server):
    """@wordpress/api-fetch on calpress's names (/cms/v2/...)."""
    _, rest = administrator(live_server)
    seeded = create_posts(rest, 250)
    report = run_js("api_fetch_run.js", live_server.url, "admin", LOGIN_PASSWORD, "cms/v2")
    check_api_fetch(report, "cms/v2", rest, seeded)


@needs("@wordpress/api-fetch")
def test_api_fetch_on_the_reference_paths(live_server_with_aliases):
    """@wordpress/api-fetch on WordPress's own paths (/wp/v2/...), as the block editor calls them,
    with CALPRESS_COMPAT_ALIASES=1."""
    _, rest = administrator(live_server_with_aliases)
    seeded = create_posts(rest, 250)
    report = run_js("api_fetch_run.js", live_server_with_aliases.url, "admin", LOGIN_PASSWORD, "wp/v2")
    check_api_fetch(report, "wp/v2", rest, seeded)
