"""The settings screens (issue 30) through the app in process on both databases: General,
Reading, Discussion and the calendar's settings, for administrators only, with a nonce; saved
with post/redirect/get and "Settings saved."; errors beside their field with the input kept;
every change read back through the REST API or seen in what the site then does."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from admin_support import location
from cal_support import make_event

GENERAL = "/wp-admin/options-general.php"
READING = "/wp-admin/options-reading.php"
DISCUSSION = "/wp-admin/options-discussion.php"
CALENDAR = "/wp-admin/cal-settings"
SAVED = "Settings saved."


def save(browser, path: str, form_id: str, **changes):
    """Post the screen's form as shown, with ``changes``; the answer."""
    fields = browser.form(path, form_id)
    for name, value in changes.items():
        if value is None:
            fields.pop(name, None)  # an unticked box sends nothing
        else:
            fields[name] = value
    return browser.post(path, fields)


def saved(browser, path: str, form_id: str, **changes) -> str:
    """Save and follow the redirect: the page that says "Settings saved."."""
    target = location(save(browser, path, form_id, **changes))
    assert parse_qs(urlsplit(target).query) == {"settings-updated": ["true"]}
    page = browser.get(target)
    assert page.status_code == 200 and SAVED in page.text
    return page.text


def settings(client, admin) -> dict:
    return client.get("/cms/v2/settings", user=admin).json


def error_beside(html: str, field: str) -> str:
    """The error shown under ``field`` (its id is the field's name)."""
    start = html.index(f'id="{field}-error"')
    return html[html.index(">", start) + 1:html.index("</p>", start)]


# -- who may ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [GENERAL, READING, DISCUSSION, CALENDAR])
def test_only_administrators_manage_settings(as_role, path):
    for role in ("editor", "author", "subscriber"):
        answer = as_role(role).get(path)
        assert answer.status_code == 403 and "Sorry, you are not allowed to access this page." in answer.text
    editor = as_role("editor")
    fields = as_role("administrator").form(path, path.rsplit("/", 1)[1].removesuffix(".php"))
    assert editor.post(path, fields).status_code == 403


def test_the_settings_menu_is_the_administrators(as_role):
    menu = as_role("administrator").get(GENERAL).text
    for path in (GENERAL, READING, DISCUSSION):
        assert f'href="{path}"' in menu
    assert 'aria-current="page">General</a>' in menu
    assert 'href="/wp-admin/options-general.php"' not in as_role("editor").get("/wp-admin/").text


def test_a_change_without_the_nonce_changes_nothing(as_role, client, admin):
    browser = as_role("administrator")
    fields = browser.form(GENERAL, "options-general")
    fields["blogname"] = "Forged"
    other = as_role("administrator").form(READING, "options-reading")["_wpnonce"]
    for nonce in ("", "0123456789", other):
        answer = browser.post(GENERAL, {**fields, "_wpnonce": nonce})
        assert answer.status_code == 403 and "The link you followed has expired." in answer.text
    assert settings(client, admin)["title"] == "calpress"


# -- General ------------------------------------------------------------------------------------


def test_the_site_title_and_time_zone_change(as_role, client, admin):
    browser = as_role("administrator")
    page = saved(browser, GENERAL, "options-general", blogname="Valley & Hills <Calendar>",
                 blogdescription="Concerts in the valley", timezone_string="Europe/Paris",
                 date_format="\\c\\u\\s\\t\\o\\m", date_format_custom="j F Y", time_format="H:i", start_of_week="0")
    found = settings(client, admin)
    assert found["title"] == "Valley &amp; Hills &lt;Calendar&gt;"  # stored as the reference stores it
    assert found["description"] == "Concerts in the valley"
    assert found["timezone"] == "Europe/Paris"
    assert (found["date_format"], found["time_format"], found["start_of_week"]) == ("j F Y", "H:i", 0)
    assert client.get("/").json["name"] == "Valley &amp; Hills &lt;Calendar&gt;"
    # Shown once escaped (not twice), in the page's title too; the chosen zone and formats selected.
    assert 'value="Valley &amp; Hills &lt;Calendar&gt;"' in page
    fields = browser.form(GENERAL, "options-general")
    assert fields["blogname"] == "Valley & Hills <Calendar>"
    assert fields["timezone_string"] == "Europe/Paris"
    assert (fields["date_format"], fields["date_format_custom"], fields["time_format"]) == ("\\c\\u\\s\\t\\o\\m", "j F Y", "H:i")
    assert fields["start_of_week"] == "0"
    # Saved again unchanged: nothing moves, and no address gets pinned.
    saved(browser, GENERAL, "options-general")
    again = settings(client, admin)
    assert again == found
    assert browser.form(GENERAL, "options-general")["siteurl"] == ""


def test_a_utc_offset_is_stored_as_the_gmt_offset(as_role, client, admin):
    browser = as_role("administrator")
    saved(browser, GENERAL, "options-general", timezone_string="UTC+5.5")
    index = client.get("/").json
    assert (index["timezone_string"], index["gmt_offset"]) == ("", "5.5")
    assert settings(client, admin)["timezone"] == ""
    assert browser.form(GENERAL, "options-general")["timezone_string"] == "UTC+5.5"
    assert '<option value="UTC+5.5" selected>UTC+5:30</option>' in browser.get(GENERAL).text
    saved(browser, GENERAL, "options-general", timezone_string="America/New_York")
    assert client.get("/").json["timezone_string"] == "America/New_York"


def test_general_errors_are_shown_beside_their_field_with_the_input_kept(as_role, client, admin):
    browser = as_role("administrator")
    before = settings(client, admin)
    answer = save(browser, GENERAL, "options-general", blogname="Not Saved", admin_email="not-an-email")
    assert answer.status_code == 400
    assert error_beside(answer.text, "admin_email") == "The email address entered did not appear to be a valid email address."
    assert 'aria-invalid="true" aria-describedby="admin-email-description admin_email-error"' in answer.text
    assert 'value="not-an-email"' in answer.text and 'value="Not Saved"' in answer.text
    assert "The settings were not saved." in answer.text
    answer = save(browser, GENERAL, "options-general", blogname="Not Saved", timezone_string="Mars/Olympus",
                  siteurl="ftp://example.test", home="example.test", start_of_week="9", date_format="\\c\\u\\s\\t\\o\\m",
                  date_format_custom="  ", default_role="owner")
    assert answer.status_code == 400
    assert error_beside(answer.text, "timezone_string") == \
        "The timezone you have entered is not valid. Please select a valid timezone."
    assert error_beside(answer.text, "siteurl") == \
        "The site address entered did not appear to be a valid URL (http:// or https://)."
    assert "did not appear to be a valid URL" in error_beside(answer.text, "home")
    assert error_beside(answer.text, "start_of_week") == "Choose a day of the week."
    assert error_beside(answer.text, "date_format") == "Enter a date format."
    assert error_beside(answer.text, "default_role") == "Choose a role."
    assert 'value="ftp://example.test"' in answer.text
    assert settings(client, admin) == before
    assert client.get("/").json["home"] == "http://example.test"


def test_the_addresses_and_the_new_users_role(as_role, client, admin):
    browser = as_role("administrator")
    saved(browser, GENERAL, "options-general", home="https://events.example.test/", default_role="author",
          admin_email="office@example.test")
    assert client.get("/").json["home"] == "https://events.example.test"
    assert settings(client, admin)["email"] == "office@example.test"
    made = client.post("/cms/v2/users", user=admin, json={"username": "newcomer", "email": "new@example.test",
                                                           "password": "pw-newcomer-1"})
    assert made.status_code == 201 and made.json["roles"] == ["author"]
    saved(browser, GENERAL, "options-general", home="")  # empty: the site address again
    assert client.get("/").json["home"] == "http://example.test"


# -- Reading ------------------------------------------------------------------------------------


def test_the_front_page_shows_a_page(as_role, client, admin):
    page = client.post("/cms/v2/pages", user=admin, json={"title": "Welcome to the valley", "status": "publish"}).json
    blog = client.post("/cms/v2/pages", user=admin, json={"title": "News", "status": "publish"}).json
    browser = as_role("administrator")
    shown = browser.get(READING).text
    assert f'<option value="{page["id"]}">Welcome to the valley</option>' in shown
    saved(browser, READING, "options-reading", show_on_front="page", page_on_front=str(page["id"]),
          page_for_posts=str(blog["id"]), posts_per_page="4")
    found = settings(client, admin)
    assert (found["show_on_front"], found["page_on_front"], found["page_for_posts"], found["posts_per_page"]) == \
        ("page", page["id"], blog["id"], 4)
    assert "Welcome to the valley" in client.http.simulate_get("/", params={"paged": "1"}).text  # "/" alone is the API's
    same = save(browser, READING, "options-reading", page_for_posts=str(page["id"]))
    assert "these pages should not be the same!" in browser.get(location(same)).text
    saved(browser, READING, "options-reading", show_on_front="posts")
    assert settings(client, admin)["show_on_front"] == "posts"


def test_reading_errors_beside_their_field(as_role, client, admin):
    browser = as_role("administrator")
    answer = save(browser, READING, "options-reading", posts_per_page="0")
    assert answer.status_code == 400 and error_beside(answer.text, "posts_per_page") == "Enter a whole number of at least 1."
    answer = save(browser, READING, "options-reading", posts_per_page="many")
    assert answer.status_code == 400
    assert error_beside(answer.text, "posts_per_page") == "posts_per_page is not of type integer."  # the REST route's
    assert 'value="many"' in answer.text
    answer = save(browser, READING, "options-reading", show_on_front="page", page_on_front="0")
    assert answer.status_code == 400 and "Choose the page the homepage displays." in answer.text
    assert settings(client, admin)["posts_per_page"] == 10


# -- Discussion ---------------------------------------------------------------------------------


def test_discussion_settings(as_role, client, admin, accounts):
    browser = as_role("administrator")
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Open", "status": "publish",
                                                          "comment_status": "open"}).json
    saved(browser, DISCUSSION, "options-discussion", default_comment_status=None, default_ping_status=None,
          comment_moderation="1")
    found = settings(client, admin)
    assert (found["default_comment_status"], found["default_ping_status"]) == ("closed", "closed")
    fresh = client.post("/cms/v2/posts", user=admin, json={"title": "New", "status": "publish"}).json
    assert (fresh["comment_status"], fresh["ping_status"]) == ("closed", "closed")
    comment = client.post("/cms/v2/comments", user=accounts["subscriber"], json={"post": post["id"], "content": "Hello"})
    assert comment.status_code == 201 and comment.json["status"] == "hold"
    anonymous = {"post": post["id"], "content": "Hi", "author_name": "Ann", "author_email": "ann@example.test"}
    assert client.post("/cms/v2/comments", json=anonymous).status_code == 401
    saved(browser, DISCUSSION, "options-discussion", rest_allow_anonymous_comments="1", comment_moderation=None)
    fields = browser.form(DISCUSSION, "options-discussion")
    assert fields.get("rest_allow_anonymous_comments") == "1" and "comment_moderation" not in fields
    # From another address than the subscriber's comment a moment ago (flood control counts a visitor by address).
    made = client.post("/cms/v2/comments", json=anonymous, remote_addr="192.0.2.7")
    assert made.status_code == 201
    saved(browser, DISCUSSION, "options-discussion", comment_registration="1")
    refused = client.post("/cms/v2/comments", json={**anonymous, "content": "Again"})
    assert refused.status_code == 401 and refused.json["code"] == "rest_comment_login_required"


# -- the calendar -------------------------------------------------------------------------------


def test_the_calendars_views_follow_its_settings(as_role, client, admin):
    for n in range(5):
        make_event(client, admin, f"Concert {n}", start_hours=24 + n * 24, cost="10")
    browser = as_role("administrator")
    page = saved(browser, CALENDAR, "cal-settings", viewOption="month", posts_per_page="2", events_max_per_page="4",
                 tribe_events_timezones_show_zone="1", timeRangeSeparator=" till ", cal_currency_symbol="€",
                 cal_currency_reverse_position="1", cal_currency_code="eur")
    assert "post-type-cal_events" in page  # under the Events menu
    events = client.get("/cal/events/v1/events").json
    assert len(events["events"]) == 2 and events["events"][0]["cost"] == "10€"
    assert len(client.get("/cal/events/v1/events", params={"per_page": 10}).json["events"]) == 4
    assert settings(client, admin)["posts_per_page"] == 2
    assert "calendar-month" in client.http.simulate_get("/events/").text
    listed = client.http.simulate_get("/events/list/").text
    assert "tribe-events-c-zone" in listed and " till " in listed
    fields = browser.form(CALENDAR, "cal-settings")
    assert (fields["viewOption"], fields["cal_currency_code"], fields["cal_currency_symbol"]) == ("month", "EUR", "€")
    assert fields["cal_currency_reverse_position"] == "1" and fields["timeRangeSeparator"] == " till "
    # Back to the defaults: unticked and emptied options are gone.
    saved(browser, CALENDAR, "cal-settings", viewOption="list", tribe_events_timezones_show_zone=None,
          cal_currency_reverse_position=None, cal_currency_symbol="$", timeRangeSeparator="")
    assert client.get("/cal/events/v1/events").json["events"][0]["cost"] == "$10"
    listed = client.http.simulate_get("/events/").text
    assert "calendar-list" in listed and "tribe-events-c-zone" not in listed and " till " not in listed


def test_calendar_errors_beside_their_field(as_role, client, admin):
    browser = as_role("administrator")
    answer = save(browser, CALENDAR, "cal-settings", posts_per_page="60", events_max_per_page="50",
                  cal_currency_code="EURO", dateTimeSeparator="<b>at</b>", viewOption="week")
    assert answer.status_code == 400
    assert error_beside(answer.text, "posts_per_page") == "At most 50, the most events a page may list (below)."
    assert error_beside(answer.text, "cal_currency_code").startswith("Enter a three-letter ISO 4217 code")
    assert error_beside(answer.text, "dateTimeSeparator") == "Plain text only: no tags or line breaks."
    assert error_beside(answer.text, "viewOption") == "Choose a view."
    assert 'value="EURO"' in answer.text and 'value="&lt;b&gt;at&lt;/b&gt;"' in answer.text
    answer = save(browser, CALENDAR, "cal-settings", events_max_per_page="0")
    assert answer.status_code == 400 and error_beside(answer.text, "events_max_per_page") == "Enter a whole number of at least 1."
    assert settings(client, admin)["posts_per_page"] == 10


def test_the_references_names_turn_on_and_off(as_role, client):
    browser = as_role("administrator")
    assert client.get("/wp/v2/types").status_code == 404
    saved(browser, CALENDAR, "cal-settings", calpress_compat_aliases="1")
    assert client.get("/wp/v2/types").status_code == 200
    assert "wp/v2" in client.get("/").json["namespaces"]
    saved(browser, CALENDAR, "cal-settings", calpress_compat_aliases=None)
    assert "wp/v2" not in client.get("/").json["namespaces"]
