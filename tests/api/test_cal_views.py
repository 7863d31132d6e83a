"""``cal/views/v2/html`` (calendar-api.md 7, decision 3): every URL form, the parameters and their
aliases, the answer's shape (text/html, or JSON ``{"html"}`` when ``u`` is used), the one read
rule, and bad input answered 400 in the reference's error shape."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from cal_support import make_event, set_option

from calpress.auth import sessions
from calpress.auth.users import get_user

VIEWS = "/cal/views/v2/html"
HOME = "http://example.test"


def day_of(hours: float) -> dt.date:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours)).date()


def titles(body: str) -> list[str]:
    """The event titles a rendered view links to, in order (list and day views' h3, month cells)."""
    found = re.findall(r'class="tribe-events-calendar-list__event-title"><a href="[^"]+" rel="bookmark">([^<]+)</a>', body)
    found += re.findall(r'tribe-events-calendar-month__calendar-event-title">([^<]+)<', body)
    return found


def view_data(body: str) -> dict:
    matched = re.search(r'<script data-js="tribe-events-view-data" type="application/json">(.*?)</script>', body, re.S)
    assert matched, body[:500]
    return json.loads(matched.group(1))


def get(client, url: str, **params):
    return client.get(VIEWS, params={"url": url, **params})


@pytest.fixture()
def calendar(client, admin):
    """Three events: one tomorrow (Music, tag free), one in ten days, one yesterday (past)."""
    soon = make_event(client, admin, "Soon Concert", start_hours=24, categories=["Music"], tags=["free"])
    later = make_event(client, admin, "Later Lecture", start_hours=240)
    past = make_event(client, admin, "Past Picnic", start_hours=-30)
    return {"soon": soon, "later": later, "past": past}


def test_the_list_view_as_html_with_the_container_data_and_nonce(client, calendar):
    response = get(client, HOME + "/events/list/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    body = response.text
    assert body.startswith('<div class="tribe-common tribe-events tribe-events-view tribe-events-view--list"')
    assert body.count('data-js="tribe-events-view"') == 1
    assert titles(body) == ["Soon Concert", "Later Lecture"]
    data = view_data(body)
    assert data["slug"] == "list" and data["url"] == HOME + "/events/list"
    assert data["events"] == [calendar["soon"]["id"], calendar["later"]["id"]]
    assert data["rest_url"].endswith("/cal/views/v2/html")
    nonces = json.loads(re.search(r'tribe-events-view-nonce-data" type="application/json">(.*?)</script>', body).group(1))
    assert set(nonces) == {"tvn1", "tvn2"} and nonces["tvn1"] and nonces["tvn2"] == ""


def test_u_answers_json_as_the_reference(client, calendar):
    response = client.get(VIEWS, params={"u": HOME + "/events/list/"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert titles(response.json["html"]) == ["Soon Concert", "Later Lecture"]
    posted = client.post(VIEWS, body=f"u={HOME}/events/month/&view=month", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert posted.status_code == 200 and "tribe-events-view--month" in posted.json["html"]


def test_post_with_a_form_body_renders_the_view(client, calendar):
    response = client.post(VIEWS, body=f"url={HOME}/events/list/", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 200 and titles(response.text) == ["Soon Concert", "Later Lecture"]


@pytest.mark.parametrize("form", ["/events/month/", "/events/month/{month}/", "/?post_type=cal_events&eventDisplay=month&eventDate={month}"])
def test_month_forms(client, calendar, form):
    soon_day = day_of(24)
    url = HOME + form.format(month=f"{soon_day:%Y-%m}")
    body = get(client, url).text
    assert "tribe-events-view--month" in body
    cell = re.search(rf'<td[^>]*>(?:(?!</td>).)*datetime="{soon_day.isoformat()}"(?:(?!</td>).)*</td>', body, re.S)
    assert cell and "Soon Concert" in cell.group(0)


@pytest.mark.parametrize("form", ["/events/{day}/", "/events/day/{day}/", "/events/list/?eventDisplay=day&eventDate={day}"])
def test_day_forms(client, calendar, form):
    day = day_of(24)
    body = get(client, HOME + form.format(day=day.isoformat())).text
    assert "tribe-events-view--day" in body and titles(body) == ["Soon Concert"]


def test_filters_from_path_query_and_view_data(client, calendar):
    assert titles(get(client, HOME + "/events/category/music/").text) == ["Soon Concert"]
    assert titles(get(client, HOME + "/events/tag/free/").text) == ["Soon Concert"]
    assert titles(get(client, HOME + "/events/list/?tribe_events_cat=music").text) == ["Soon Concert"]
    assert titles(get(client, HOME + "/events/list/?tag=free").text) == ["Soon Concert"]
    assert titles(get(client, HOME + "/events/list/?tribe-bar-search=Lecture").text) == ["Later Lecture"]
    # view_data entries override what the URL says
    overridden = get(client, HOME + "/events/list/?tribe-bar-search=Lecture", **{"view_data[tribe-bar-search]": "Concert"})
    assert titles(overridden.text) == ["Soon Concert"]
    # five days ahead: after the concert (which may run past midnight) and before the lecture
    by_date = get(client, HOME + "/events/list/", **{"view_data[tribe-bar-date]": day_of(120).isoformat()})
    assert titles(by_date.text) == ["Later Lecture"]
    assert titles(get(client, HOME + "/events/list/?eventDisplay=past").text) == ["Past Picnic"]


def test_the_view_parameter_and_its_fallback(client, calendar):
    assert "tribe-events-view--month" in get(client, HOME + "/events/list/", view="month").text
    assert "tribe-events-view--list" in get(client, HOME + "/events/month/", view="photo").text  # unknown: the default


def test_paging(client, admin, app):
    set_option(app, "posts_per_page", 2)
    for n in range(5):
        make_event(client, admin, f"Paged {n}", start_hours=24 + n)
    first, second = get(client, HOME + "/events/list/"), get(client, HOME + "/events/list/page/2/")
    assert titles(first.text) == ["Paged 0", "Paged 1"] and titles(second.text) == ["Paged 2", "Paged 3"]
    assert titles(get(client, HOME + "/events/list/?paged=3").text) == ["Paged 4"]
    assert view_data(first.text)["next_url"] == HOME + "/events/list/page/2/"
    assert view_data(get(client, HOME + "/events/list/page/3/").text)["next_url"] == ""
    past_end = get(client, HOME + "/events/list/page/9/")
    assert past_end.status_code == 400 and past_end.json["code"] == "rest_invalid_param"


def test_latest_past_events_when_nothing_is_upcoming(client, admin):
    make_event(client, admin, "Old One", start_hours=-100)
    make_event(client, admin, "Old Two", start_hours=-50)
    body = get(client, HOME + "/events/list/").text
    assert "Latest Past Events" in body and titles(body) == ["Old One", "Old Two"]


def test_visibility_follows_the_one_read_rule(client, admin, accounts, calendar):
    make_event(client, admin, "Private Party", start_hours=30, status="private")
    make_event(client, admin, "Draft Dance", start_hours=31, status="draft")
    make_event(client, admin, "Hidden Hike", start_hours=32, hide_from_listings=True)
    visitor = titles(get(client, HOME + "/events/list/").text)
    assert "Private Party" not in visitor and "Draft Dance" not in visitor and "Hidden Hike" not in visitor
    editor = titles(client.get(VIEWS, params={"url": HOME + "/events/list/"}, user=accounts["editor"]).text)
    assert "Private Party" in editor and "Draft Dance" not in editor and "Hidden Hike" not in editor
    subscriber = titles(client.get(VIEWS, params={"url": HOME + "/events/list/"}, user=accounts["subscriber"]).text)
    assert "Private Party" not in subscriber


def test_a_cookie_counts_only_with_a_valid_view_nonce(app, client, admin, accounts):
    make_event(client, admin, "Private Party", start_hours=30, status="private")
    with app.site.read() as conn:
        user = get_user(conn, accounts["editor"].id)
    secret = app.settings.secret_key
    cookie, _ = sessions.make_login_cookie(secret, user.id, user.password_hash)
    token = sessions.parse_login_cookie(cookie)[2]
    headers = {"Cookie": f"{sessions.LOGIN_COOKIE}={cookie}"}
    good = sessions.create_nonce(secret, "_view_rest", user.id, token)
    shown = client.http.simulate_get(VIEWS, params={"url": HOME + "/events/list/", "tvn1": good}, headers=headers)
    assert "Private Party" in titles(shown.text)
    without = client.http.simulate_get(VIEWS, params={"url": HOME + "/events/list/"}, headers=headers)
    assert without.status_code == 200 and "Private Party" not in titles(without.text)
    forged = client.http.simulate_get(VIEWS, params={"url": HOME + "/events/list/", "tvn1": "0123456789"}, headers=headers)
    assert forged.status_code == 200 and "Private Party" not in titles(forged.text)


def test_the_reflector_echoes_the_context(client):
    response = get(client, HOME + "/events/list/", view="reflector", **{"view_data[one]": "two", "view_data[twentythree]": "89"})
    assert response.status_code == 200
    context = json.loads(response.text)
    assert context["eventDisplay"] == "reflector" and context["url"] == HOME + "/events/list"
    assert context["posts_per_page"] == "10" and context["is_main_query"] is True
    assert context["view_data"] == {"one": "two", "twentythree": "89"}


def test_the_route_is_listed_with_its_arguments(client):
    index = client.get("/cal/views/v2").json
    route = index["routes"]["/cal/views/v2/html"]
    assert route["methods"] == ["GET", "POST"]
    assert {"url", "u", "view", "view_data", "_wpnonce", "tvn1", "tvn2", "action"} <= set(route["endpoints"][0]["args"])
    assert "/cal/views/v2/html" in client.get("/").json["routes"]


@pytest.mark.parametrize(
    ("params", "code", "param"),
    [
        ({}, "rest_missing_callback_param", None),
        ({"url": "https://elsewhere.test/events/"}, "rest_invalid_param", "url"),
        ({"url": HOME + "/events/2026-02-31/"}, "rest_invalid_param", "url"),
        ({"url": HOME + "/events/category/no-such-category/"}, "rest_invalid_param", "url"),
        ({"url": HOME + "/not-a-calendar/"}, "rest_invalid_param", "url"),
        ({"url": HOME + "/events/list/?tribe-bar-search=" + "x" * 10_000}, "rest_invalid_param", "url"),
        ({"url": HOME + "/events/list/", "view[]": "month"}, "rest_invalid_param", "view"),
        ({"url": HOME + "/events/list/", "view_data[tribe-bar-search][]": "a"}, "rest_invalid_param", "view_data"),
        ({"url": HOME + "/events/list/", "view_data[tribe-bar-date]": "2026-13-45"}, "rest_invalid_param", "view_data"),
        ({"url[]": HOME + "/events/list/"}, "rest_invalid_param", "url"),
    ],
)
def test_bad_input_is_a_clear_400(client, params, code, param):
    response = client.get(VIEWS, params=params)
    assert response.status_code == 400, response.text[:300]
    assert response.json["code"] == code
    assert response.json["data"]["status"] == 400
    if param is None:
        assert response.json["data"]["params"] == ["url"]
    else:
        assert param in response.json["data"]["params"]


def test_a_month_far_outside_the_data_is_an_empty_grid(client, calendar):
    body = get(client, HOME + "/events/month/9999-12/").text
    assert "December 9999" in body and titles(body) == []
    assert view_data(body)["next_url"] == ""
