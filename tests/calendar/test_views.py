"""The calendar views as data (calpress.calendar.views): every URL form to its state, the state's
overrides and errors, and what the list, month and day views hold, on both databases."""

from __future__ import annotations

import datetime as dt

import pytest
from cal_support import make_event

from calpress.calendar import views
from calpress.calendar.events import EventRow
from calpress.content.items import Context

HOME = "http://example.test"
OPTIONS: dict = {}


def state(url: str, **kwargs):
    return views.view_state(HOME + url, HOME, OPTIONS, **kwargs)


@pytest.mark.parametrize(
    ("url", "view", "date", "extra"),
    [
        ("/events/", "list", None, {}),
        ("/events/list/", "list", None, {}),
        ("/events/list/page/3/", "list", None, {"page": 3}),
        ("/events/month/", "month", None, {}),
        ("/events/month/2026-12/", "month", dt.date(2026, 12, 1), {}),
        ("/events/2026-12-06/", "day", dt.date(2026, 12, 6), {}),
        ("/events/day/2026-12-06/", "day", dt.date(2026, 12, 6), {}),
        ("/events/today/", "day", None, {}),
        ("/events/category/music/", "list", None, {"category": "music"}),
        ("/events/category/parent/child/month/", "month", None, {"category": "child"}),
        ("/events/tag/free/day/2026-12-06/", "day", dt.date(2026, 12, 6), {"tag": "free"}),
        ("/events/featured/", "list", None, {"featured": True}),
        ("/events/list/?eventDisplay=past", "list", None, {"past": True}),
        ("/events/list/?eventDisplay=month&eventDate=2027-01", "month", dt.date(2027, 1, 1), {}),
        ("/?post_type=cal_events&eventDisplay=day&eventDate=2026-12-06", "day", dt.date(2026, 12, 6), {}),
        ("/events/list/?tribe-bar-date=2026-12-06&tribe-bar-search=jazz", "list", dt.date(2026, 12, 6), {"search": "jazz"}),
        ("/events/list/?tribe_events_cat=Music&tag=free&paged=2", "list", None, {"category": "music", "tag": "free", "page": 2}),
        ("/events/ical/", "list", None, {"ical": True}),
        ("/events/month/2026-12/?ical=1", "month", dt.date(2026, 12, 1), {"ical": True}),
    ],
)
def test_every_url_form(url, view, date, extra):
    found = state(url)
    assert (found.view, found.date) == (view, date)
    for name, value in extra.items():
        assert getattr(found, name) == value, name


def test_query_overrides_path_and_view_data_overrides_both():
    assert state("/events/month/2026-12/?eventDisplay=day&eventDate=2026-12-09").date == dt.date(2026, 12, 9)
    found = state("/events/list/?tribe-bar-search=jazz", view_data={"tribe-bar-search": "blues", "tribe-bar-date": "2027-02-03"})
    assert (found.search, found.date) == ("blues", dt.date(2027, 2, 3))
    assert found.values["view_data"] == {"tribe-bar-search": "blues", "tribe-bar-date": "2027-02-03"}
    assert state("/events/list/", view="month").view == "month"
    assert state("/events/list/", view="photo").view == "list"  # unknown: the default
    assert state("/events/month/", view="reflector").view == "list"  # pages list public views only
    assert state("/events/month/", view="reflector", public=False).view == "reflector"
    assert views.view_state(HOME + "/events/", HOME, {"viewOption": "month"}).view == "month"


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/events/2026-02-31/", 404),
        ("/events/month/2026-13/", 404),
        ("/events/nonsense/", 404),
        ("/events/list/page/0/", 404),
        ("/hello/", 404),
        ("/?p=5", 404),
        ("/events/list/?post_type=post", 404),
        ("/events/list/?eventDate=next+blursday", 404),
        ("/events/list/?tribe-bar-search=" + "x" * 1001, 400),
    ],
)
def test_what_names_no_view(url, status):
    with pytest.raises(views.ViewError) as raised:
        state(url)
    assert raised.value.status == status


@pytest.mark.parametrize("url", ["https://elsewhere.test/events/", "ftp://example.test/events/", "http://example.test:8080/events/",
                                 "javascript:alert(1)", "http://example.test/events/\n"])
def test_addresses_of_other_sites_are_refused(url):
    with pytest.raises(views.ViewError) as raised:
        views.view_state(url, HOME, OPTIONS)
    assert raised.value.status == 400


def test_view_urls_keep_the_filters():
    found = state("/events/category/music/month/2026-12/?tribe-bar-search=jazz")
    assert views.view_url(found, view="day", date=dt.date(2026, 12, 6)) == HOME + "/events/category/music/day/2026-12-06/?tribe-bar-search=jazz"
    assert views.view_url(found, view="list", page=2) == HOME + "/events/category/music/list/page/2/?tribe-bar-search=jazz"


def test_an_event_ending_at_midnight_does_not_cover_the_next_day():
    row = EventRow(dt.datetime(2026, 12, 6, 20), dt.datetime(2026, 12, 7), dt.datetime(2026, 12, 6, 20), dt.datetime(2026, 12, 7),
                   "", False, False, False, False)
    assert views.covered_days(row) == (dt.date(2026, 12, 6), dt.date(2026, 12, 6))
    all_day = EventRow(dt.datetime(2026, 12, 6), dt.datetime(2026, 12, 8, 23, 59, 59), dt.datetime(2026, 12, 6),
                       dt.datetime(2026, 12, 8, 23, 59, 59), "", True, False, False, False)
    assert views.covered_days(all_day) == (dt.date(2026, 12, 6), dt.date(2026, 12, 8))


# -- with stored events ---------------------------------------------------------------------------


def visitor(app) -> Context:
    return Context.of(app.site, home=HOME)


def month_titles(app, ctx, month: str) -> dict[dt.date, list[str]]:
    with app.site.read() as conn:
        found = views.month_view(conn, ctx, views.view_state(HOME + f"/events/month/{month}/", HOME, ctx.options))
    return {cell.day: [item.title for item in cell.events] for week in found.weeks for cell in week if cell.events}


def test_a_long_event_that_began_weeks_before_covers_every_day_of_the_month(app, client, admin):
    start = dt.datetime(2030, 1, 10, 9)
    client.post("/cal/events/v1/events", user=admin, json={
        "title": "Exhibition", "start_date": f"{start:%Y-%m-%d %H:%M:%S}", "end_date": "2030-03-20 18:00:00"})
    client.post("/cal/events/v1/events", user=admin, json={
        "title": "Talk", "start_date": "2030-02-12 18:00:00", "end_date": "2030-02-12 19:00:00"})
    shown = month_titles(app, visitor(app), "2030-02")
    for day in range(1, 29):
        assert "Exhibition" in shown[dt.date(2030, 2, day)], day
    assert shown[dt.date(2030, 2, 12)] == ["Exhibition", "Talk"]
    # the grid runs Monday to Sunday by default: February 2030 starts on a Friday
    with app.site.read() as conn:
        grid = views.month_view(conn, visitor(app), views.view_state(HOME + "/events/month/2030-02/", HOME, {}))
    assert grid.weeks[0][0].day == dt.date(2030, 1, 28) and all(len(week) == 7 for week in grid.weeks)
    assert grid.previous == dt.date(2030, 1, 1) and grid.next == dt.date(2030, 3, 1)


def test_the_week_starts_on_the_sites_day(app):
    ctx = Context.of(app.site, home=HOME, options={**app.site.load_options(), "start_of_week": 0})
    with app.site.read() as conn:
        grid = views.month_view(conn, ctx, views.view_state(HOME + "/events/month/2030-02/", HOME, ctx.options))
    assert grid.weeks[0][0].day == dt.date(2030, 1, 27) and grid.weeks[0][0].day.weekday() == 6


def test_a_busy_day_lists_three_and_counts_the_rest(app, client, admin):
    for n in range(5):
        client.post("/cal/events/v1/events", user=admin, json={
            "title": f"Slot {n}", "start_date": f"2030-02-12 0{n}:00:00", "end_date": f"2030-02-12 0{n}:30:00"})
    with app.site.read() as conn:
        grid = views.month_view(conn, visitor(app), views.view_state(HOME + "/events/month/2030-02/", HOME, {}))
    cell = next(cell for week in grid.weeks for cell in week if cell.day == dt.date(2030, 2, 12))
    assert [item.title for item in cell.events] == ["Slot 0", "Slot 1", "Slot 2"] and cell.more == 2
    with app.site.read() as conn:
        day = views.day_view(conn, visitor(app), views.view_state(HOME + "/events/day/2030-02-12/", HOME, {}))
    assert [item.title for item in day.loaded.items] == [f"Slot {n}" for n in range(5)]


def test_the_list_starts_now_and_pages_without_counting(app, client, admin):
    make_event(client, admin, "Ongoing", start_hours=-2, length_hours=5)
    make_event(client, admin, "Ended", start_hours=-5, length_hours=1)
    for n in range(3):
        make_event(client, admin, f"Next {n}", start_hours=10 + n)
    ctx = Context.of(app.site, home=HOME, options={**app.site.load_options(), "posts_per_page": 2})
    with app.site.read() as conn:
        first = views.list_view(conn, ctx, views.view_state(HOME + "/events/list/", HOME, ctx.options))
        second = views.list_view(conn, ctx, views.view_state(HOME + "/events/list/page/2/", HOME, ctx.options))
        past = views.list_view(conn, ctx, views.view_state(HOME + "/events/list/?eventDisplay=past", HOME, ctx.options))
    assert [i.title for i in first.loaded.items] == ["Ongoing", "Next 0"] and first.has_next and first.has_previous
    assert [i.title for i in second.loaded.items] == ["Next 1", "Next 2"] and not second.has_next
    assert [i.title for i in past.loaded.items] == ["Ended"]


def test_adjacent_events_order_by_start_then_id(app, client, admin):
    def event(title: str, start: str) -> dict:
        response = client.post("/cal/events/v1/events", user=admin, json={
            "title": title, "start_date": start, "end_date": start.replace(" 1", " 2", 1)})
        assert response.status_code == 201, response.json
        return response.json

    a = event("A", "2030-05-01 10:00:00")
    b = event("B", "2030-05-02 10:00:00")
    c = event("C", "2030-05-02 10:00:00")  # the same start as B: the id decides
    d = event("D", "2030-05-03 10:00:00")
    start = dt.datetime(2030, 5, 2, 10)
    with app.site.read() as conn:
        before, after = views.adjacent_events(conn, visitor(app), b["id"], start)
        before_c, after_c = views.adjacent_events(conn, visitor(app), c["id"], start)
        first = views.adjacent_events(conn, visitor(app), a["id"], dt.datetime(2030, 5, 1, 10))
        last = views.adjacent_events(conn, visitor(app), d["id"], dt.datetime(2030, 5, 3, 10))
    assert (before.id, after.id) == (a["id"], c["id"])
    assert (before_c.id, after_c.id) == (b["id"], d["id"])
    assert first[0] is None and first[1].id == b["id"]
    assert last[0].id == c["id"] and last[1] is None
