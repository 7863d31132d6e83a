"""A real Python client from PyPI against a real ``calpress serve`` process: ``wordpress-api``
(derwentx/wp-api-python, the package of that name; pinned in pyproject.toml's test extras). It
joins ``url``, ``api`` ("wp-json") and ``version`` (the namespace, "wp/v2" by default) and signs
requests with HTTP Basic auth, which takes an application password."""

from __future__ import annotations

import httpx
import pytest

wordpress = pytest.importorskip("wordpress", reason="the PyPI package wordpress-api is missing (pip install -e '.[test]' installs it)")

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)]


def client(url: str, password: str, version: str = "wp/v2") -> wordpress.API:
    # Basic auth in the Authorization header (query_string_auth=False: the client would otherwise
    # also add empty consumer_key/consumer_secret query arguments, meant for WooCommerce).
    return wordpress.API(url=url, consumer_key="", consumer_secret="", api="wp-json", version=version, wp_user="admin",
                         wp_pass=password, basic_auth=True, user_auth=True, query_string_auth=False, timeout=30)


def test_wordpress_api_lists_and_writes_posts(live_server_with_aliases):
    server = live_server_with_aliases
    server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
    password = server.cli("user", "application-password", "create", "admin", "python", "--porcelain").strip()
    rest = httpx.Client(base_url=server.url + "/wp-json", auth=("admin", password), timeout=30)
    for n in range(3):
        assert rest.post("/cms/v2/posts", json={"title": f"Seeded {n}", "status": "publish"}).status_code == 201
    wp = client(server.url, password)

    listed = wp.get("posts?per_page=2")
    assert listed.status_code == 200 and listed.url == f"{server.url}/wp-json/wp/v2/posts?per_page=2"
    assert [post["title"]["rendered"] for post in listed.json()] == ["Seeded 2", "Seeded 1"]
    assert (listed.headers["X-WP-Total"], listed.headers["X-WP-TotalPages"]) == ("3", "2")
    assert listed.links["next"]["url"] == f"{server.url}/wp-json/wp/v2/posts?per_page=2&page=2"

    created = wp.post("posts", {"title": "From wordpress-api", "content": "Written in Python", "status": "publish"})
    assert created.status_code == 201
    post = created.json()
    assert (post["title"]["raw"], post["type"], post["author"]) == ("From wordpress-api", "post", 1)
    assert created.headers["Location"] == f"{server.url}/wp-json/wp/v2/posts/{post['id']}"
    updated = wp.put(f"posts/{post['id']}", {"title": "From wordpress-api, renamed"})
    assert updated.status_code == 200 and updated.json()["title"]["raw"] == "From wordpress-api, renamed"
    stored = rest.get(f"/cms/v2/posts/{post['id']}", params={"context": "edit"}).json()
    assert (stored["title"]["raw"], stored["content"]["raw"], stored["status"]) == ("From wordpress-api, renamed", "Written in Python", "publish")

    # The same client on calpress's own namespace, and on the calendar's under its reference name.
    assert [item["id"] for item in client(server.url, password, "cms/v2").get("posts").json()][0] == post["id"]
    assert client(server.url, password, "tribe/events/v1").get("events").json()["events"] == []

    # A refusal surfaces as the client's UserWarning carrying the API's error code.
    with pytest.raises(UserWarning, match="incorrect_password"):
        client(server.url, "not the password").post("posts", {"title": "Refused"})
