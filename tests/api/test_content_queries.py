"""A collection page costs a fixed number of SQL statements, whatever its size."""

from __future__ import annotations

import pytest
from content_support import make_image, make_item, make_revision, make_term, statement_counter

from calpress import site as site_module
from calpress.content.items import writes as item_writes


def queries(statements):
    """The statements that read or write data (SQLite's engine sends its BEGIN as one too)."""
    return [s for s in statements if s.strip().upper() not in ("BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")]


@pytest.fixture()
def quiet_caches(monkeypatch):
    # Keep the per-process options cache and the scheduled-items check from firing inside the
    # measured window: both run at most once per interval, whatever the page size.
    monkeypatch.setattr(site_module, "OPTIONS_TTL", 3600.0)
    monkeypatch.setattr(item_writes, "PUBLISH_CHECK_SECONDS", 3600.0)  # read where publish_due_items lives


def test_listing_statement_count_does_not_grow_with_per_page(client, app, admin, quiet_caches):
    category = make_term(app, "category", "News")
    tag = make_term(app, "post_tag", "Tagged")
    for n in range(110):
        image = make_image(app)
        post = make_item(
            app, title=f"Post {n}", author=admin.id, terms={"category": [category], "post_tag": [tag]}, featured_media=image
        )
        if n % 3 == 0:
            make_revision(app, post.id)
    client.get("/cms/v2/posts")  # warm the options cache and the scheduled-items check
    counts = {}
    for per_page in (1, 10, 100):
        app.site.memo.clear()  # built from the database, not from what earlier pages kept
        with statement_counter(app) as statements:
            response = client.get("/cms/v2/posts", params={"per_page": per_page})
        assert response.status_code == 200
        assert len(response.json) == per_page
        assert response.headers["X-WP-Total"] == "110"
        counts[per_page] = len(queries(statements))
    assert counts[1] == counts[10] == counts[100], counts
    # The content counter (the answer cache's key), the page with its total, terms, revision
    # counts, featured media.
    assert counts[1] == 5, counts
    # Asked again in other words (the answer cache misses), the kept items are not rebuilt:
    # the content counter and the page (its total is kept with the counter).
    with statement_counter(app) as statements:
        again = client.get("/cms/v2/posts", params={"per_page": 100, "order": "desc"})
    assert again.json == response.json
    assert len(queries(statements)) == 2, statements


def test_head_listing_counts_only(client, app, admin, quiet_caches):
    for n in range(5):
        make_item(app, title=f"Post {n}", author=admin.id)
    client.get("/cms/v2/posts")
    app.rest.answers.clear()  # measure the HEAD path itself, not the cached GET answer
    with statement_counter(app) as statements:
        response = client.request("HEAD", "/cms/v2/posts")
    assert response.status_code == 200
    assert response.headers["X-WP-Total"] == "5"
    assert response.content == b""
    # The content counter; the total is the GET's, remembered while the counter is unchanged.
    assert len(queries(statements)) == 1
    make_item(app, title="Post 5", author=admin.id)
    with statement_counter(app) as statements:
        response = client.request("HEAD", "/cms/v2/posts")
    assert response.headers["X-WP-Total"] == "6"
    # The content counter (with the step since, which changed no option: the options stay), the count.
    assert len(queries(statements)) == 2


def test_embedded_authors_cost_one_query_per_page(client, app, accounts, quiet_caches):
    authors = [accounts["author"].id, accounts["editor"].id]
    for n in range(40):
        make_item(app, title=f"Post {n}", author=authors[n % 2])
    client.get("/cms/v2/posts")
    counts = {}
    for per_page in (2, 40):
        with statement_counter(app) as statements:
            response = client.get("/cms/v2/posts", params={"per_page": per_page, "_embed": "author"})
        assert {item["_embedded"]["author"][0]["id"] for item in response.json} == set(authors)
        counts[per_page] = len(queries(statements))
    assert counts[2] == counts[40], counts


def test_media_listing_statement_count_does_not_grow_with_per_page(client, app, admin, quiet_caches):
    """Attachments are read by their parent's rule: the page's parents come in one statement."""
    for n in range(30):
        parent = make_item(app, title=f"Parent {n}", author=admin.id)
        make_image(app, parent=parent.id)
    client.get("/cms/v2/media")
    counts = {}
    for per_page in (1, 10, 30):
        app.rest.answers.clear()
        with statement_counter(app) as statements:
            response = client.get("/cms/v2/media", params={"per_page": per_page})
        assert response.status_code == 200 and len(response.json) == per_page
        assert all(item["post"] for item in response.json)
        counts[per_page] = len(queries(statements))
    assert counts[1] == counts[10] == counts[30], counts
