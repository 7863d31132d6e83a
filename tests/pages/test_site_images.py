"""Responsive images on the public pages (issue 32, item 9), as WordPress writes them: a
4,000 x 3,000 photograph uploaded through the REST media route shows on the event page, the list
and day views, a venue's page and a post's page with a ``srcset`` of its generated files of the
same proportions (each a real file of the width it claims), ``sizes``, ``width``/``height``,
``decoding="async"``, the first images of a page eager (the first large one with
``fetchpriority="high"``) and the later ones lazy. One test goes through a real server."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from cal_support import make_event, make_venue
from looks_support import candidates, images, photo, pixel_size, upload

HTML = {"Accept": "text/html"}
HOME = "http://example.test"
YEAR = dt.datetime.now(dt.UTC).year + 2


@pytest.fixture()
def big_photo(client, admin) -> dict:
    data = photo(4000, 3000)
    media = upload(client, admin, data)
    media["original_bytes"] = len(data)
    return media


def page(client, url: str) -> str:
    response = client.get(url[len(HOME):] if url.startswith(HOME) else url, headers=HTML)
    assert response.status_code == 200, (url, response.status_code)
    return response.text


def fetch(client, url: str) -> bytes:
    assert url.startswith(HOME + "/wp-content/uploads/"), url
    response = client.get(url[len(HOME):])
    assert response.status_code == 200, url
    return response.content


def check_srcset(client, img: dict, original_bytes: int) -> list[tuple[str, int]]:
    """Every candidate is a real file as wide as it says, of the photo's 4:3 proportions; a
    400-pixel slot finds one far smaller than the upload."""
    found = candidates(img["srcset"])
    assert len(found) >= 2
    sizes = {}
    for url, width in found:
        data = fetch(client, url)
        real = pixel_size(data)
        assert real[0] == width, (url, real, width)
        assert abs(real[0] / real[1] - 4 / 3) < 0.01, (url, real)
        sizes[width] = len(data)
    widths = [w for _, w in found]
    assert len(set(widths)) == len(widths)
    assert max(w for w in widths if w != int(img["width"])) <= 2048  # max_srcset_image_width
    assert "-150x150." not in img["srcset"]  # the square thumbnail has other proportions
    assert 4000 not in widths  # the upload itself is never offered
    slot = min(w for w in widths if w >= 400)
    assert sizes[slot] * 8 < original_bytes, (slot, sizes[slot], original_bytes)
    return found


def test_event_page_image_is_responsive(client, admin, big_photo):
    event = make_event(client, admin, "Photo Walk", image=str(big_photo["id"]), start_date=f"{YEAR}-05-04 10:00:00",
                       end_date=f"{YEAR}-05-04 12:00:00")
    shown = page(client, event["url"])
    [img] = images(shown, "wp-post-image")
    assert img["src"].endswith("-1024x768.jpg")  # the large size, as the_post_thumbnail's
    assert (img["width"], img["height"]) == ("1024", "768")
    assert img["decoding"] == "async"
    assert img["fetchpriority"] == "high" and "loading" not in img  # the first content image
    assert img["sizes"] == "(max-width: 1024px) 100vw, 1024px"
    found = check_srcset(client, img, big_photo["original_bytes"])
    assert found[0][0] == img["src"]  # the file shown comes first, as the reference orders it
    assert [w for _, w in found] == [1024, 300, 768, 1536, 2048]


def test_list_and_day_views_lazy_load_below_the_first_three(client, admin, big_photo):
    for n in range(5):
        make_event(client, admin, f"Market {n}", image=str(big_photo["id"]), start_date=f"{YEAR}-06-10 0{n}:00:00",
                   end_date=f"{YEAR}-06-10 0{n}:30:00")
    for address in (f"/events/list/?tribe-bar-date={YEAR}-06-10", f"/events/{YEAR}-06-10/"):
        cards = images(page(client, address), "tribe-events-calendar-list__event-image")
        assert len(cards) == 5, address
        for n, img in enumerate(cards):
            assert img["src"].endswith("-300x225.jpg") and (img["width"], img["height"]) == ("300", "225")
            assert img["decoding"] == "async"
            if n < 3:
                assert "loading" not in img, (address, n)
                assert img.get("fetchpriority") == ("high" if n == 0 else None), (address, n)
                assert img["sizes"] == "(max-width: 300px) 100vw, 300px"
            else:
                assert img["loading"] == "lazy", (address, n)
                assert img["sizes"] == "auto, (max-width: 300px) 100vw, 300px"
        check_srcset(client, cards[0], big_photo["original_bytes"])


def test_views_route_renders_the_same_images(client, admin, big_photo):
    make_event(client, admin, "Routed", image=str(big_photo["id"]), start_date=f"{YEAR}-07-01 10:00:00",
               end_date=f"{YEAR}-07-01 11:00:00")
    response = client.get("/cal/views/v2/html", query_string=f"url={HOME}/events/list/?tribe-bar-date={YEAR}-07-01")
    assert response.status_code == 200
    [img] = images(response.text, "tribe-events-calendar-list__event-image")
    assert img["srcset"] and img["fetchpriority"] == "high"


def test_venue_page_and_its_events(client, admin, big_photo):
    venue = make_venue(client, admin, "Town Hall", image=str(big_photo["id"]))
    make_event(client, admin, "At the hall", venue=venue["id"], image=str(big_photo["id"]))
    shown = page(client, venue["url"])
    [own] = images(shown, "wp-post-image")
    [card] = images(shown, "tribe-events-calendar-list__event-image")
    assert own["fetchpriority"] == "high" and own["src"].endswith("-1024x768.jpg")
    assert "loading" not in card and "fetchpriority" not in card  # the second image: eager, no priority
    check_srcset(client, card, big_photo["original_bytes"])


def test_post_featured_image(client, admin, big_photo):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "News", "status": "publish", "content": "<p>Hello</p>",
                                                           "featured_media": big_photo["id"]}).json
    [img] = images(page(client, post["link"]), "wp-post-image")
    assert img["sizes"] == "(max-width: 1024px) 100vw, 1024px" and img["fetchpriority"] == "high"
    check_srcset(client, img, big_photo["original_bytes"])


def test_a_small_image_has_no_srcset_but_its_size(client, admin):
    small = upload(client, admin, photo(200, 150), "small.jpg")  # only a square thumbnail is cut
    event = make_event(client, admin, "Small", image=str(small["id"]))
    [img] = images(page(client, event["url"]), "wp-post-image")
    assert "srcset" not in img and "sizes" not in img
    assert (img["width"], img["height"]) == ("200", "150") and img["src"].endswith("/small.jpg")


@pytest.mark.e2e
def test_srcset_through_a_real_server(live_server):
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
    password = live_server.cli("user", "application-password", "create", "admin", "e2e", "--porcelain").strip()
    with httpx.Client(base_url=live_server.url, auth=("admin", password), timeout=60) as rest:
        data = photo(4000, 3000)
        media = rest.post("/cms/v2/media", content=data, headers={"Content-Type": "image/jpeg",
                                                                 "Content-Disposition": "attachment; filename=live.jpg"})
        assert media.status_code == 201, media.text
        event = rest.post("/cal/events/v1/events", json={"title": "Live photo", "start_date": f"{YEAR}-03-03 10:00:00",
                                                         "end_date": f"{YEAR}-03-03 11:00:00", "image": str(media.json()["id"])})
        assert event.status_code == 201, event.text
    shown = httpx.get(event.json()["url"], headers=HTML, timeout=20)
    assert shown.status_code == 200
    [img] = images(shown.text, "wp-post-image")
    found = candidates(img["srcset"])
    for url, width in found:
        got = httpx.get(url, timeout=20)
        assert got.status_code == 200 and pixel_size(got.content)[0] == width
    slot = min((w, url) for url, w in found if w >= 400)
    assert len(httpx.get(slot[1], timeout=20).content) * 8 < len(data)


def test_images_inside_content_get_srcset_as_wp_filter_content_tags(client, admin, big_photo):
    sizes = big_photo["media_details"]["sizes"]
    medium, large = sizes["medium"]["source_url"], sizes["large"]["source_url"]
    wid = big_photo["id"]
    content = (
        f'<p><img class="wp-image-{wid}" src="{medium}" alt="First"></p>'
        f'<p><img class="alignnone size-large wp-image-{wid}" src="{large}" width="1024" height="768" alt="Second"></p>'
        f'<p><img src="https://elsewhere.example/pic.jpg" width="640" height="480" alt="Third"></p>'
        f'<p><img class="wp-image-{wid}" src="{medium}" alt="Fourth"></p>'
        f'<p><img class="wp-image-{wid}" src="{medium}" srcset="{medium} 300w" sizes="300px" loading="eager" alt="Own"></p>'
        f'<p><img class="wp-image-999999" src="https://elsewhere.example/unknown.jpg" alt="Unknown"></p>'
    )
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Gallery", "status": "publish", "content": content}).json
    found = {img["alt"]: img for img in images(page(client, post["link"]))}
    first = found["First"]
    assert (first["width"], first["height"]) == ("300", "225")  # from the file the src names
    assert first["fetchpriority"] == "high" and first["decoding"] == "async" and "loading" not in first
    assert first["sizes"] == "(max-width: 300px) 100vw, 300px"
    assert [w for _, w in candidates(first["srcset"])] == [300, 768, 1024, 1536, 2048]
    check_srcset(client, first, big_photo["original_bytes"])
    second = found["Second"]
    assert second["sizes"] == "(max-width: 1024px) 100vw, 1024px" and "fetchpriority" not in second
    assert candidates(second["srcset"])[0] == (large, 1024)
    third = found["Third"]  # not the site's: only the loading decision (the third image, still eager)
    assert "srcset" not in third and "loading" not in third and third["decoding"] == "async"
    fourth = found["Fourth"]
    assert fourth["loading"] == "lazy" and fourth["sizes"] == "auto, (max-width: 300px) 100vw, 300px"
    own = found["Own"]  # its own srcset, sizes and loading are kept
    assert own["srcset"] == f"{medium} 300w" and own["loading"] == "eager" and own["sizes"] == "300px"
    unknown = found["Unknown"]
    assert "srcset" not in unknown and "width" not in unknown and "loading" not in unknown


def test_a_featured_image_is_counted_before_the_content(client, admin, big_photo):
    medium = big_photo["media_details"]["sizes"]["medium"]["source_url"]
    content = "".join(f'<p><img class="wp-image-{big_photo["id"]}" src="{medium}" alt="c{n}"></p>' for n in range(3))
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Both", "status": "publish", "content": content,
                                                           "featured_media": big_photo["id"]}).json
    shown = images(page(client, post["link"]))
    assert shown[0]["class"] == "wp-post-image" and shown[0]["fetchpriority"] == "high"
    assert ["loading" in img for img in shown[1:]] == [False, False, True]
    assert not any("fetchpriority" in img for img in shown[1:])
