"""A site's own look (issue 32, item 12) on the public pages: the logo in the header, sized from
its generated files; the site icon's favicon and touch icons; the extra CSS in the head, never
able to end its style element; and the data folder's template overrides, a broken one of which
neither takes the site down nor lets ``calpress serve`` start. Through the app on both
databases, and through a real server."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

import httpx
import pytest
from cal_support import set_option
from looks_support import candidates, images, links_of, meta_of, pixel_size
from PIL import Image

from calpress.app import Calpress
from calpress.pages.theme import override_problems

HTML = {"Accept": "text/html"}
HOME = "http://example.test"
PACKAGE_LAYOUT = os.path.join(os.path.dirname(__file__), "..", "..", "calpress", "templates", "site", "layout.html")


def png(size: tuple[int, int], color: str = "darkgreen") -> bytes:
    buffer = io.BytesIO()
    image = Image.linear_gradient("L").resize(size).convert("RGB")
    Image.blend(image, Image.new("RGB", size, color), 0.5).save(buffer, format="PNG")
    return buffer.getvalue()


def upload(client, admin, data: bytes, name: str) -> int:
    response = client.post("/cms/v2/media", user=admin, body=data,
                           headers={"Content-Type": "image/png", "Content-Disposition": f"attachment; filename={name}"})
    assert response.status_code == 201, response.text
    return response.json["id"]


def home_page(client) -> str:
    response = client.get("/", headers=HTML)
    assert response.status_code == 200
    return response.text


def fetch(client, url: str) -> bytes:
    response = client.get(url[len(HOME):])
    assert response.status_code == 200, url
    return response.content


def test_logo_in_the_header_from_its_generated_sizes(client, admin):
    logo = upload(client, admin, png((800, 200)), "logo.png")
    assert client.post("/cms/v2/settings", user=admin, json={"site_logo": logo, "title": "Valley Events"}).status_code == 200
    text = home_page(client)
    [img] = images(text, "custom-logo")
    header = text[text.index('<header class="site-header">'):text.index("</header>")]
    assert 'class="custom-logo-link" href="http://example.test/" rel="home"' in header and img["src"] in header
    assert (img["width"], img["height"]) == ("192", "48") and img["alt"] == "Valley Events"
    assert img["src"].endswith("-768x192.png")  # the smallest file twice as wide as shown (sharp screens)
    assert img["sizes"] == "192px" and "loading" not in img and "fetchpriority" not in img
    found = dict((w, url) for url, w in candidates(img["srcset"]))
    assert sorted(found) == [300, 768, 800]  # the square thumbnail is left out
    for width, url in found.items():
        assert pixel_size(fetch(client, url))[0] == width


def test_icon_set_through_the_api_falls_back_to_square_files(client, admin):
    icon = upload(client, admin, png((600, 600)), "icon.png")
    assert client.post("/cms/v2/settings", user=admin, json={"site_icon": icon}).status_code == 200
    text = home_page(client)
    icons = links_of(text, "icon")
    assert [link.get("sizes") for link in icons] == ["32x32", "192x192"]
    assert icons[0]["href"].endswith("-150x150.png")  # the thumbnail: the smallest square file at least 32 wide
    assert icons[1]["href"].endswith("-300x300.png")
    assert links_of(text, "apple-touch-icon")[0]["href"].endswith("-300x300.png")
    assert meta_of(text)["msapplication-TileImage"].endswith("-300x300.png")
    assert 'href="data:,"' not in text


def test_without_icon_or_css_the_head_is_as_before(client):
    text = home_page(client)
    assert links_of(text, "icon") == [{"rel": "icon", "href": "data:,"}]
    assert "wp-custom-css" not in text and "custom-logo" not in text


def test_css_cannot_end_its_style_element(client):
    set_option(client.app, "calpress_custom_css", ".a > .b { color: red }\n</style><script>alert(1)</script>")
    text = home_page(client)
    start = text.index('<style id="wp-custom-css">')
    style = text[start:text.index("</style>", start)]
    assert ".a > .b { color: red }" in style  # CSS, not HTML-escaped
    assert "<script>" not in text and "\\3c /style>\\3c script>" in style


def test_a_template_override_replaces_the_packages(settings):
    folder = settings.data_dir / "templates" / "site"
    folder.mkdir(parents=True)
    layout = open(PACKAGE_LAYOUT, encoding="utf-8").read()
    (folder / "layout.html").write_text(layout.replace("<main ", '<p class="our-banner">Our banner</p>\n<main '))
    (settings.data_dir / "templates" / "admin").mkdir()
    (settings.data_dir / "templates" / "admin" / "layout.html").write_text("not used: only site/ is overridable")
    app = Calpress(settings)
    try:
        import falcon.testing

        http = falcon.testing.TestClient(app.wsgi)
        for path in ("/", "/events/list/", "/no-such-page/"):
            answer = http.simulate_get(path, headers=HTML)
            assert '<p class="our-banner">Our banner</p>' in answer.text, path
        views = http.simulate_get("/cal/views/v2/html", params={"url": HOME + "/events/list/"})
        assert views.status_code == 200
    finally:
        app.site.close()


def test_a_broken_override_is_not_used_and_named(settings, caplog):
    folder = settings.data_dir / "templates" / "site"
    folder.mkdir(parents=True)
    (folder / "layout.html").write_text("<html>\n{% block content %}\n{% if %}\n</html>")
    problems = override_problems(settings.data_dir)
    assert len(problems) == 1 and str(folder / "layout.html") in problems[0] and "line 3" in problems[0]
    with caplog.at_level(logging.ERROR):
        app = Calpress(settings)
    try:
        import falcon.testing

        answer = falcon.testing.TestClient(app.wsgi).simulate_get("/", headers=HTML)
        assert answer.status_code == 200 and '<header class="site-header">' in answer.text  # the package's layout
        assert any("template override not used" in record.getMessage() for record in caplog.records)
    finally:
        app.site.close()


@pytest.mark.e2e
def test_serve_refuses_a_broken_override(tmp_path):
    data = tmp_path / "data"
    (data / "templates" / "site").mkdir(parents=True)
    (data / "templates" / "site" / "item.html").write_text("{% extends 'site/layout.html' %}{% block content %}{% endfor %}")
    env = {**os.environ, "CALPRESS_DATA_DIR": str(data), "CALPRESS_HOST": "127.0.0.1", "CALPRESS_PORT": "0",
           "CALPRESS_ENVIRONMENT": "local", "CALPRESS_DATABASE_URL": f"sqlite:///{data / 'calpress.sqlite3'}"}
    env.pop("CALPRESS_SITE_URL", None)
    done = subprocess.run([sys.executable, "-m", "calpress", "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "template override cannot be read" in done.stderr and "item.html, line 1" in done.stderr


@pytest.mark.e2e
def test_branding_through_a_real_server(db_url, tmp_path):
    from appfixtures import serving

    folder = tmp_path / "live" / "templates" / "site"
    folder.mkdir(parents=True)
    layout = open(PACKAGE_LAYOUT, encoding="utf-8").read()
    (folder / "layout.html").write_text(layout.replace("</footer>", '</footer>\n<p id="overridden">ours</p>'))
    with serving(db_url, tmp_path) as server:
        server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
        password = server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
        # First: another process's option write reaches the server's options within their time
        # to live, its own REST write below at once (and with it every option).
        server.cli("option", "update", "calpress_custom_css", "body { background: #fafaf0; }")
        with httpx.Client(base_url=server.url, auth=("admin", password), timeout=60) as rest:
            media = rest.post("/cms/v2/media", content=png((800, 200)),
                              headers={"Content-Type": "image/png", "Content-Disposition": "attachment; filename=logo.png"})
            assert media.status_code == 201, media.text
            assert rest.post("/cms/v2/settings", json={"site_logo": media.json()["id"]}).status_code == 200
        text = httpx.get(server.url + "/", headers=HTML, timeout=20).text
    assert '<p id="overridden">ours</p>' in text
    [img] = images(text, "custom-logo")
    assert img["src"].endswith("-768x192.png")
    assert '<style id="wp-custom-css">body { background: #fafaf0; }</style>' in text
