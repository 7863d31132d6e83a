"""A branded site in headless Chromium (issue 32, items 9 and 12): a logo in the header, a site
icon, extra CSS that the page's own Content-Security-Policy lets apply, and pages with responsive
images; each captured at 1280 and 390 pixels wide with axe-core clean. Chromium itself shows that
the ``srcset`` works: on a 390-pixel screen it picks a smaller file than on a wide one, far
smaller than the 4,000-pixel upload."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator
from typing import Any

import pytest
from appfixtures import serving_with_admin
from browser_support import NARROW, WIDE, Visit
from PIL import Image

pytestmark = pytest.mark.browser

YEAR = dt.datetime.now(dt.UTC).year + 1
BRAND_CSS = ".site-header { border-bottom: 6px solid rgb(200, 30, 30); }"


def photo(width: int, height: int) -> bytes:
    gradient = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 40)
    buffer = io.BytesIO()
    Image.merge("RGB", (gradient, noise, Image.blend(gradient, noise, 0.5))).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (20, 90, 60)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def branded(tmp_path_factory) -> Iterator[dict[str, Any]]:
    with serving_with_admin(tmp_path_factory.mktemp("branded")) as (server, rest):
        def media(data: bytes, name: str, mime: str) -> int:
            answer = rest.post("/cms/v2/media", content=data, headers={"Content-Type": mime,
                                                                       "Content-Disposition": f"attachment; filename={name}"})
            assert answer.status_code == 201, answer.text
            return answer.json()["id"]

        server.cli("option", "update", "calpress_custom_css", BRAND_CSS)  # before the REST write, which reloads the options
        picture = media(photo(4000, 3000), "market.jpg", "image/jpeg")
        logo = media(png(800, 200), "logo.png", "image/png")
        icon = media(png(512, 512), "icon.png", "image/png")
        assert rest.post("/cms/v2/settings", json={"title": "Valley Market", "site_logo": logo,
                                                   "site_icon": icon}).status_code == 200
        event = rest.post("/cal/events/v1/events", json={
            "title": "Farmers Market", "start_date": f"{YEAR}-05-02 08:00:00", "end_date": f"{YEAR}-05-02 12:00:00",
            "image": str(picture), "description": "<p>Fresh vegetables, bread and flowers.</p>"})
        assert event.status_code == 201, event.text
        yield {"server": server, "event": event.json()["url"], "day": f"/events/{YEAR}-05-02/"}


def current_source(chromium: Any, url: str, width: int, selector: str) -> str:
    """The file Chromium chose for ``selector`` on a fresh ``width``-pixel screen (no cache)."""
    context = chromium.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(f"document.querySelector({selector!r}).complete")
        return page.eval_on_selector(selector, "img => img.currentSrc")
    finally:
        context.close()


def test_branded_pages_look_right_and_pass_axe(chromium, branded):
    base = branded["server"].url
    visit = Visit(chromium, base)
    try:
        for name, path in (("site-branding-home", "/"), ("site-branding-event", branded["event"][len(base):]),
                           ("site-branding-day", branded["day"])):
            visit.goto(path)
            logo = visit.page.eval_on_selector("img.custom-logo", "img => [img.complete, img.naturalWidth, img.clientHeight]")
            assert logo[0] and logo[1] > 0 and logo[2] == 48, (name, logo)
            visit.check(name)
    finally:
        visit.close()


def test_the_extra_css_applies_under_the_pages_policy(chromium, branded):
    context = chromium.new_context(viewport={"width": WIDE, "height": 900})  # the page's CSP enforced
    try:
        page = context.new_page()
        page.goto(branded["server"].url + "/")
        color = page.eval_on_selector(".site-header", "el => getComputedStyle(el).borderBottomColor")
        assert color == "rgb(200, 30, 30)"
        icon = page.eval_on_selector('link[rel="icon"][sizes="32x32"]', "el => el.href")
        assert icon.endswith("-32x32.png") or icon.endswith("-150x150.png")
    finally:
        context.close()


def test_chromium_picks_a_smaller_file_on_a_phone(chromium, branded):
    event = branded["event"]
    wide = current_source(chromium, event, WIDE, "img.wp-post-image")
    narrow = current_source(chromium, event, NARROW, "img.wp-post-image")
    assert wide.endswith("-1024x768.jpg"), wide
    assert narrow.endswith("-768x576.jpg"), narrow  # the smallest file covering 390 pixels
    card = current_source(chromium, branded["server"].url + branded["day"], NARROW,
                          "img.tribe-events-calendar-list__event-image")
    assert card.endswith("-300x225.jpg"), card


def test_the_identity_fields_of_general_settings(chromium, branded):
    visit = Visit(chromium, branded["server"].url)
    try:
        visit.login("admin", target="/wp-admin/options-general.php")
        page = visit.page
        assert page.eval_on_selector("#site_logo", "el => el.selectedOptions[0].textContent").startswith("logo")
        assert page.eval_on_selector("#site_icon", "el => el.selectedOptions[0].textContent").startswith("icon")
        assert page.input_value("#calpress_custom_css") == BRAND_CSS
        visit.check("settings-general-identity")
    finally:
        visit.close()
