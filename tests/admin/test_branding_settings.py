"""The site identity fields of Settings > General (issue 32, item 12): the logo and the icon
chosen from the media library's images, the icon's square copies cut when it is chosen, and the
extra CSS, refused when it holds markup. Seen on the public pages after the save."""

from __future__ import annotations

import io
import re
from urllib.parse import parse_qs, urlsplit

from admin_support import location
from PIL import Image

GENERAL = "/wp-admin/options-general.php"
HTML = {"Accept": "text/html"}


def image_upload(client, admin, size: tuple[int, int], name: str) -> int:
    buffer = io.BytesIO()
    Image.new("RGB", size, "navy").save(buffer, format="PNG")
    response = client.post("/cms/v2/media", user=admin, body=buffer.getvalue(),
                           headers={"Content-Type": "image/png", "Content-Disposition": f"attachment; filename={name}"})
    assert response.status_code == 201, response.text
    return response.json["id"]


def save(browser, **changes):
    fields = browser.form(GENERAL, "options-general")
    fields.update(changes)
    return browser.post(GENERAL, fields)


def test_logo_icon_and_css_are_chosen_and_shown(as_role, client, admin):
    logo = image_upload(client, admin, (800, 200), "logo.png")
    icon = image_upload(client, admin, (600, 400), "icon.png")
    browser = as_role("administrator")
    form = browser.get(GENERAL).text
    assert f'<option value="{logo}">logo (#{logo})</option>' in form and 'id="calpress_custom_css"' in form
    answer = save(browser, site_logo=str(logo), site_icon=str(icon), calpress_custom_css="body { color: #123456; }")
    assert parse_qs(urlsplit(location(answer)).query) == {"settings-updated": ["true"]}
    found = client.get("/cms/v2/settings", user=admin).json
    assert (found["site_logo"], found["site_icon"]) == (logo, icon)
    fields = browser.form(GENERAL, "options-general")
    assert (fields["site_logo"], fields["site_icon"]) == (str(logo), str(icon))
    assert fields["calpress_custom_css"] == "body { color: #123456; }"
    # The icon's square copies were cut when it was chosen, and named in its metadata.
    sizes = client.get(f"/cms/v2/media/{icon}", user=admin).json["media_details"]["sizes"]
    for pixels in (32, 180, 192, 270):
        entry = sizes[f"site_icon-{pixels}"]
        assert (entry["width"], entry["height"]) == (pixels, pixels)
        data = client.get(urlsplit(entry["source_url"]).path).content
        assert Image.open(io.BytesIO(data)).size == (pixels, pixels)
    home = client.get("/", headers=HTML).text
    assert 'class="custom-logo"' in home
    assert re.search(r'<link rel="icon" href="[^"]*-32x32\.png" sizes="32x32">', home)
    assert '<style id="wp-custom-css">body { color: #123456; }</style>' in home


def test_markup_in_css_and_unknown_images_are_refused(as_role, client, admin):
    browser = as_role("administrator")
    answer = save(browser, calpress_custom_css="a{}</style><script>alert(1)</script>", site_logo="987654")
    assert answer.status_code == 400
    assert 'id="calpress_custom_css-error">Markup is not allowed in CSS.' in answer.text
    assert 'id="site_logo-error">Choose an image of the media library.' in answer.text
    assert client.get("/cms/v2/settings", user=admin).json["site_logo"] == 0
    assert "wp-custom-css" not in client.get("/", headers=HTML).text
