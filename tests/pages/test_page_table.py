"""The page table: what Falcon serves and what the REST fast path hands over are the same rows."""

from __future__ import annotations

import falcon.testing


def test_the_table_decides_which_paths_are_pages(app) -> None:
    table = app.pages
    names = {page.name for page in table}
    assert {"home", "login", "authorize-application", "openapi", "uploads", "calendar-event"} <= names
    assert table.match("/wp-login.php").name == "login"
    assert table.match("/event/my-party").name == "calendar-event"
    assert table.match("/event").name == "calendar-event"
    assert table.match("/wp-content/uploads/2026/01/a.png").name == "uploads"
    assert table.match("/openapi.json").name == "openapi"
    # The site root is a page for browsers only; REST paths are never pages.
    assert table.match("/") is None and table.match("/", prefers_html=True).name == "home"
    for path in ("/cms/v2/posts", "/wp-json/cms/v2/posts", "/cal/events/v1/events", "/eventful", "/cms/v2"):
        assert table.match(path) is None, path
    # Every other path is the public site's (the table's fallback, listed last).
    assert [page.name for page in table][-1] == "site"
    for path in ("/eventful", "/hello/", "/2026/11/24/news/", "/category/news/"):
        assert app.is_site_path(path, {}), path
    for path in ("/cms/v2/posts", "/wp-json/anything", "/cal/nope", "/oembed/1.0/embed", "/batch/v1", "/cms-site-health/v1", "/"):
        assert not app.is_site_path(path, {}), path
    assert app.is_site_path("/", {"p": "5"}) and not app.is_site_path("/", {"p": "5", "rest_route": "/"})


def test_every_page_of_the_table_answers_through_the_wsgi_app(app) -> None:
    client = falcon.testing.TestClient(app.wsgi)
    for page in app.pages:
        path = page.path if not page.prefix else page.path + "/nothing-here"
        headers = {"Accept": "text/html"} if page.html_only else {}
        response = client.simulate_get(path, headers=headers)
        # A page answers (HTML, a redirect to log in, /wp-admin's to /wp-admin/, the OpenAPI
        # document, admin-ajax.php's 400 for a missing action, a 404 page for an unknown item or
        # file, wp-comments-post.php's 405 for anything but POST): never the REST engine's rest_no_route.
        assert response.status_code in (200, 301, 302, 400, 404, 405), (page.name, response.status_code)
        if response.status_code == 404 and response.headers.get("content-type", "").startswith("application/json"):
            assert response.json.get("code") != "rest_no_route", page.name


def test_methods_come_from_the_resources(app) -> None:
    pages = {page.name: page for page in app.pages}
    assert pages["login"].methods == ["GET", "POST"]
    assert pages["uploads"].methods == ["GET", "HEAD"]
    assert pages["calendar-event"].methods == ["*"]
