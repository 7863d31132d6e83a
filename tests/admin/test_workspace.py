"""The workspace's shell and its content screens (issue 30), through the app in process on both
databases: who may open what, nonces on every change, post/redirect/get with a notice, errors
beside the field they name with the input kept, the list table (status links, search, filters,
row and bulk actions, items per page) and the editor (posts, pages, events with a new venue and
organizers, venues), every change read back through the REST API."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from admin_support import fields_of, location, query_of

CAL = "/cal/events/v1"


# -- the shell ------------------------------------------------------------------------------------


def test_visitors_are_sent_to_log_in_and_come_back(client, admin):
    answer = client.http.simulate_get("/wp-admin/edit.php", params={"post_type": "cal_events"})
    assert answer.status_code == 302
    assert answer.headers["location"] == "/wp-login.php?redirect_to=%2Fwp-admin%2Fedit.php%3Fpost_type%3Dcal_events&reauth=1"
    login = client.http.simulate_post("/wp-login.php", body=f"log={admin.login}&pwd={admin.password}"
                                      "&redirect_to=%2Fwp-admin%2Fedit.php%3Fpost_type%3Dcal_events",
                                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert login.headers["location"] == "/wp-admin/edit.php?post_type=cal_events"
    assert client.http.simulate_get("/wp-admin").headers["location"] == "/wp-admin/"


def test_a_user_without_the_capability_is_refused(as_role):
    subscriber = as_role("subscriber")
    for path in ("/wp-admin/edit.php", "/wp-admin/post-new.php?post_type=cal_events", "/wp-admin/edit.php?post_type=page"):
        answer = subscriber.get(path)
        assert answer.status_code == 403, path
        assert "Sorry, you are not allowed to access this page." in answer.text
    assert subscriber.get("/wp-admin/").status_code == 200  # the dashboard is everyone's
    contributor = as_role("contributor")
    assert contributor.get("/wp-admin/edit.php?post_type=page").status_code == 403
    assert contributor.get("/wp-admin/edit.php?post_type=cal_events").status_code == 200
    assert contributor.get("/wp-admin/nothing.php").status_code == 404


def test_every_admin_page_is_unframed_uncached_and_under_a_policy(as_role):
    page = as_role("editor").get("/wp-admin/edit.php")
    assert page.headers["x-frame-options"] == "DENY"
    assert "no-store" in page.headers["cache-control"]
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self' 'nonce-" in policy and "object-src 'none'" in policy
    nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
    assert all(f'nonce="{nonce}"' in tag for tag in re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", page.text))


def test_the_menu_follows_capabilities(as_role):
    admin_menu = as_role("administrator").get("/wp-admin/").text
    author_menu = as_role("author").get("/wp-admin/").text
    assert 'href="/wp-admin/edit.php?post_type=page"' in admin_menu
    assert 'href="/wp-admin/edit.php?post_type=page"' not in author_menu
    assert 'href="/wp-admin/edit.php?post_type=cal_events"' in author_menu


def test_a_change_without_the_right_nonce_changes_nothing(as_role, client, admin):
    editor = as_role("editor")
    fields = editor.form("/wp-admin/post-new.php", "post")
    fields.update({"post_title": "Forged", "publish": "1"})
    for nonce in ("", "0123456789", editor.form("/wp-admin/post-new.php?post_type=page", "post")["_wpnonce"]):
        answer = editor.post("/wp-admin/post-new.php", {**fields, "_wpnonce": nonce})
        assert answer.status_code == 403 and "The link you followed has expired." in answer.text
    assert client.get("/cms/v2/posts", user=admin, params={"search": "Forged", "status": "any"}).json == []


# -- posts and pages --------------------------------------------------------------------------------


def test_an_editor_writes_and_publishes_a_post(as_role, client, admin):
    editor = as_role("editor")
    category = client.post("/cms/v2/categories", user=admin, json={"name": "Neighbourhood"}).json["id"]
    fields = editor.form("/wp-admin/post-new.php", "post")
    fields.update({"post_title": "Street fair", "content": "<p>Stalls and music.</p>", "excerpt": "Stalls",
                   "tax_input[category][]": [str(category)], "new_term[post_tag]": "fair, summer", "publish": "1"})
    target = location(editor.post("/wp-admin/post-new.php", fields))
    assert query_of(target)["message"] == "6"
    shown = editor.get(target)
    assert "Post published." in shown.text and 'role="status"' in shown.text
    post = client.get(f"/cms/v2/posts/{query_of(target)['post']}", user=admin, params={"context": "edit"}).json
    assert post["status"] == "publish" and post["title"]["raw"] == "Street fair" and post["excerpt"]["raw"] == "Stalls"
    assert post["categories"] == [category] and post["author"] == editor.account.id
    tags = {t["name"] for t in client.get("/cms/v2/tags", params={"include": ",".join(map(str, post["tags"]))}).json}
    assert tags == {"fair", "summer"}
    # Edited again: "Update" keeps it published.
    again = editor.form(target, "post")
    again.update({"post_title": "Street fair 2027", "save": "1"})
    assert query_of(location(editor.post(target.replace("&action=edit", "").split("&message")[0], again)))["message"] == "1"
    assert client.get(f"/cms/v2/posts/{post['id']}").json["title"]["rendered"] == "Street fair 2027"


def test_an_error_is_shown_beside_its_field_with_the_input_kept(as_role, client, admin):
    editor = as_role("editor")
    fields = editor.form("/wp-admin/post-new.php", "post")
    fields.update({"post_title": "Kept title", "content": "Kept words", "post_date": "not a date", "publish": "1"})
    answer = editor.post("/wp-admin/post-new.php", fields)
    assert answer.status_code == 400
    assert 'aria-invalid="true" aria-describedby="post_date-error"' in answer.text
    assert re.search(r'id="post_date-error">[^<]*date', answer.text)
    shown = fields_of(answer.text, "post")
    assert shown["post_title"] == "Kept title" and shown["content"] == "Kept words" and shown["post_date"] == "not a date"
    assert client.get("/cms/v2/posts", user=admin, params={"search": "Kept title", "status": "any"}).json == []


def test_a_contributor_submits_for_review_and_never_publishes(as_role, client, admin):
    contributor = as_role("contributor")
    page = contributor.get("/wp-admin/post-new.php?post_type=cal_events")
    assert 'id="publish">Submit for Review<' in page.text and 'id="publish">Publish<' not in page.text
    fields = fields_of(page.text, "post")
    fields.update({"post_title": "Choir night", "event_start": "2031-05-01T19:00", "event_end": "2031-05-01T21:00",
                   "publish": "1"})
    target = location(contributor.post("/wp-admin/post-new.php?post_type=cal_events", fields))
    assert query_of(target)["message"] == "8"
    event_id = int(query_of(target)["post"])
    assert client.get(f"{CAL}/events/{event_id}", user=admin).json["status"] == "pending"
    # An editor publishes it from the list table's bulk action.
    editor = as_role("editor")
    listing = editor.get("/wp-admin/edit.php?post_type=cal_events&post_status=pending")
    assert "Choir night" in listing.text
    bulk = fields_of(listing.text, "posts-filter")
    bulk.update({"action": "edit", "_status": "publish", "post[]": [str(event_id)]})
    done = location(editor.post("/wp-admin/edit.php?post_type=cal_events", bulk))
    assert query_of(done)["updated"] == "1"
    assert "1 event updated." in editor.get(done).text
    assert client.get(f"{CAL}/events/{event_id}").json["status"] == "publish"


def test_row_actions_trash_restore_and_delete(as_role, client, admin):
    editor = as_role("editor")
    made = client.post("/cms/v2/pages", user=admin, json={"title": "About us", "status": "publish"}).json
    listing = editor.get("/wp-admin/edit.php?post_type=page")
    trash = re.search(rf'href="(/wp-admin/post\.php\?post={made["id"]}&amp;action=trash&amp;_wpnonce=\w+)"', listing.text)
    assert trash, listing.text[:2000]
    url = trash.group(1).replace("&amp;", "&")
    assert editor.get(url.replace("_wpnonce=", "_wpnonce=0")).status_code == 403  # a changed nonce
    back = location(editor.get(url))
    assert query_of(back)["trashed"] == "1" and "1 page moved to the Trash." in editor.get(back).text
    assert client.get(f"/cms/v2/pages/{made['id']}", user=admin, params={"context": "edit"}).json["status"] == "trash"
    trashed = editor.get("/wp-admin/edit.php?post_type=page&post_status=trash").text
    assert "Trash <span class=\"count\">(1)</span>" in trashed
    restore = re.search(r'href="(/wp-admin/post\.php\?[^"]*action=untrash[^"]*)"', trashed).group(1).replace("&amp;", "&")
    location(editor.get(restore))
    assert client.get(f"/cms/v2/pages/{made['id']}", user=admin, params={"context": "edit"}).json["status"] == "draft"
    location(editor.get(re.search(r'href="(/wp-admin/post\.php\?[^"]*action=trash[^"]*)"',
                                  editor.get("/wp-admin/edit.php?post_type=page").text).group(1).replace("&amp;", "&")))
    delete = re.search(r'href="(/wp-admin/post\.php\?[^"]*action=delete[^"]*)"',
                       editor.get("/wp-admin/edit.php?post_type=page&post_status=trash").text).group(1).replace("&amp;", "&")
    assert query_of(location(editor.get(delete)))["deleted"] == "1"
    assert client.get(f"/cms/v2/pages/{made['id']}", user=admin).status_code == 404


def test_the_list_table_counts_searches_pages_and_keeps_items_per_page(as_role, client, admin):
    editor = as_role("editor")
    for n in range(7):
        client.post("/cms/v2/posts", user=admin, json={"title": f"Notice {n}", "status": "publish" if n % 2 else "draft"})
    listing = editor.get("/wp-admin/edit.php").text
    assert "All <span class=\"count\">(7)</span>" in listing
    assert "Published <span class=\"count\">(3)</span>" in listing and "Drafts <span class=\"count\">(4)</span>" in listing
    drafts = editor.get("/wp-admin/edit.php?post_status=draft").text
    assert drafts.count('class="row-title"') == 4
    assert editor.get("/wp-admin/edit.php?s=Notice+3").text.count('class="row-title"') == 1
    options = fields_of(listing, None)
    assert options["per_page"] == "20"
    nonce = re.search(r'name="_wpnonce" value="(\w+)">\s*<input type="hidden" name="screen_options"', listing).group(1)
    location(editor.post("/wp-admin/edit.php", {"_wpnonce": nonce, "screen_options": "1", "per_page": "3"}))
    first = editor.get("/wp-admin/edit.php").text
    assert first.count('class="row-title"') == 3 and "Page 1 of 3" in first
    assert editor.get("/wp-admin/edit.php?paged=3").text.count('class="row-title"') == 1
    assert as_role("administrator").get("/wp-admin/edit.php").text.count('class="row-title"') == 7  # per user


# -- the calendar --------------------------------------------------------------------------------


def test_an_event_with_a_new_venue_organizers_categories_cost_and_website(as_role, client, admin):
    editor = as_role("editor")
    organizer = client.post(f"{CAL}/organizers", user=admin, json={"organizer": "Friends of the Park"}).json["id"]
    cats = [client.post("/cms/v2/cal_events_cat", user=admin, json={"name": name}).json["id"] for name in ("Music", "Outdoor")]
    fields = editor.form("/wp-admin/post-new.php?post_type=cal_events", "post")
    fields.update({
        "post_title": "Concert in the park", "content": "<p>Bring a blanket.</p>",
        "event_start": "2031-06-12T18:30", "event_end": "2031-06-12T21:00", "event_timezone": "Europe/Berlin",
        "event_venue": "new", "new_venue_venue": "Park bandstand", "new_venue_address": "1 Park Road",
        "new_venue_city": "Springfield", "event_organizers[]": [str(organizer)], "new_organizer_organizer": "City Band",
        "new_organizer_email": "band@example.test",
        "tax_input[cal_events_cat][]": [str(c) for c in cats], "event_cost": "12", "event_currency_symbol": "€",
        "event_currency_position": "postfix", "event_website": "https://park.example.test/concert", "event_featured": "1",
        "publish": "1",
    })
    target = location(editor.post("/wp-admin/post-new.php?post_type=cal_events", fields))
    assert query_of(target)["message"] == "6"
    notice = editor.get(target).text
    assert "Event published." in notice and "View event" in notice
    event = client.get(f"{CAL}/events/{query_of(target)['post']}").json
    assert event["title"] == "Concert in the park" and event["start_date"] == "2031-06-12 18:30:00"
    assert event["timezone"] == "Europe/Berlin" and event["featured"] is True
    assert event["venue"]["venue"] == "Park bandstand" and event["venue"]["city"] == "Springfield"
    assert [o["organizer"] for o in event["organizer"]] == ["Friends of the Park", "City Band"]
    assert sorted(c["id"] for c in event["categories"]) == sorted(cats)
    assert event["cost"] == "12€" and event["website"] == "https://park.example.test/concert"
    # Its time changed from the editor; the venue and organizers stay.
    edit = editor.form(target, "post")
    assert edit["event_venue"] == str(event["venue"]["id"]) and len(edit["event_organizers[]"]) == 2
    edit.update({"event_start": "2031-06-12T19:00", "event_end": "2031-06-12T22:00", "save": "1"})
    location(editor.post(f"/wp-admin/post.php?post={event['id']}", edit))
    moved = client.get(f"{CAL}/events/{event['id']}").json
    assert moved["start_date"] == "2031-06-12 19:00:00" and moved["venue"]["venue"] == "Park bandstand"
    assert len(moved["organizer"]) == 2
    listing = editor.get("/wp-admin/edit.php?post_type=cal_events").text
    assert "Concert in the park" in listing and "2031-06-12 19:00 – 22:00" in listing and "Park bandstand" in listing
    assert "Concert in the park" in editor.get(f"/wp-admin/edit.php?post_type=cal_events&venue={event['venue']['id']}").text
    assert "Concert in the park" not in editor.get(f"/wp-admin/edit.php?post_type=cal_events&organizer={organizer + 1000}").text


def test_an_event_the_api_refuses_shows_why_and_keeps_the_form(as_role, client, admin):
    editor = as_role("editor")
    fields = editor.form("/wp-admin/post-new.php?post_type=cal_events", "post")
    fields.update({"post_title": "Bad link", "event_start": "2031-06-12T18:30", "event_end": "2031-06-12T21:00",
                   "event_website": "javascript:alert(1)", "publish": "1"})
    answer = editor.post("/wp-admin/post-new.php?post_type=cal_events", fields)
    assert answer.status_code == 400
    assert 'id="event_website-error"' in answer.text
    kept = fields_of(answer.text, "post")
    assert kept["post_title"] == "Bad link" and kept["event_start"] == "2031-06-12T18:30"
    assert client.get(f"{CAL}/events", user=admin, params={"search": "Bad link", "status": "draft,publish"}).json["events"] == []


def test_a_venue_editor_and_the_events_using_it(as_role, client, admin):
    editor = as_role("editor")
    fields = editor.form("/wp-admin/post-new.php?post_type=cal_venue", "post")
    fields.update({"post_title": "Town hall", "venue_address": "2 Main St", "venue_city": "Springfield",
                   "venue_website": "https://hall.example.test/", "publish": "1"})
    target = location(editor.post("/wp-admin/post-new.php?post_type=cal_venue", fields))
    venue_id = int(query_of(target)["post"])
    venue = client.get(f"{CAL}/venues/{venue_id}").json
    assert venue["venue"] == "Town hall" and venue["address"] == "2 Main St" and venue["website"] == "https://hall.example.test/"
    client.post(f"{CAL}/events", user=admin, json={"title": "Council meeting", "start_date": "2031-01-01 10:00:00",
                                                   "end_date": "2031-01-01 12:00:00", "venue": venue_id, "status": "publish"})
    shown = editor.get(target).text
    assert "Council meeting" in shown and 'value="2 Main St"' in shown
    assert "Town hall" in editor.get("/wp-admin/edit.php?post_type=cal_venue").text


@pytest.mark.parametrize("role", ["editor", "author", "contributor", "subscriber"])
def test_the_dashboard_shows_what_the_user_may_see(as_role, client, admin, role):
    soon = (dt.datetime.now() + dt.timedelta(days=10)).strftime("%Y-%m-%d")
    client.post(f"{CAL}/events", user=admin, json={"title": "Soon", "start_date": f"{soon} 10:00:00",
                                                   "end_date": f"{soon} 12:00:00", "status": "publish"})
    page = as_role(role).get("/wp-admin/")
    assert page.status_code == 200 and "Soon" in page.text
    assert ("Quick Event Draft" in page.text) == (role != "subscriber")
    assert '"nonce":' in page.text  # wpApiSettings for cookie clients


def test_the_dashboard_lists_recent_comments_held_ones_for_moderators(as_role, client, admin, accounts):
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Talk", "status": "publish"}).json["id"]
    client.post("/cms/v2/comments", user=admin, json={"post": post, "content": "Lovely evening, thanks"})
    held = client.post("/cms/v2/comments", user=admin, json={"post": post, "content": "Waiting for a look", "status": "hold"})
    assert held.status_code == 201, held.json
    editor = as_role("editor").get("/wp-admin/").text
    assert "Lovely evening, thanks" in editor and "Waiting for a look" in editor
    author = as_role("author").get("/wp-admin/").text
    assert "Lovely evening, thanks" in author and "Waiting for a look" not in author


def test_a_quick_event_draft(as_role, client, admin):
    author = as_role("author")
    fields = author.form("/wp-admin/", None)
    answer = author.post("/wp-admin/", {"_wpnonce": fields["_wpnonce"], "title": "Bake sale",
                                        "start_date": "2031-03-03T10:00", "end_date": "2031-03-03T12:00"})
    drafted = query_of(location(answer))["drafted"]
    event = client.get(f"{CAL}/events/{drafted}", user=admin).json
    assert event["status"] == "draft" and event["title"] == "Bake sale" and event["author"] == str(author.account.id)


def test_attachments_and_the_calendar_settings_answer_at_wordpress_addresses(as_role, client, admin, app):
    from test_media import image_bytes, raw_upload

    made = raw_upload(client, admin, image_bytes("PNG"), "poster.png", "image/png").json
    editor = as_role("editor")
    assert location(editor.get(f"/wp-admin/post.php?post={made['id']}&action=edit")) == f"/wp-admin/upload.php?item={made['id']}"
    assert location(editor.get("/wp-admin/edit.php?post_type=attachment")) == "/wp-admin/upload.php"
    assert editor.get("/wp-admin/edit.php?post_type=cal_events&page=cal-events-calendar").status_code == 403  # manage_options
    administrator = as_role("administrator")
    page = administrator.get("/wp-admin/edit.php?post_type=cal_events&page=cal-events-calendar")
    assert page.status_code == 200 and 'aria-current="page">Settings<' in page.text
    fields = fields_of(page.text, None)
    fields["cal_currency_symbol"] = "€"
    done = location(administrator.post("/wp-admin/edit.php?post_type=cal_events&page=cal-events-calendar", fields))
    assert "page=cal-events-calendar" in done and "settings-updated=true" in done
    assert "Settings saved." in administrator.get(done).text
    assert app.site.load_options()["cal_currency_symbol"] == "€"


def test_list_filters_by_month_category_and_event_dates(as_role, client, admin):
    editor = as_role("editor")
    news = client.post("/cms/v2/categories", user=admin, json={"name": "News"}).json["id"]
    client.post("/cms/v2/posts", user=admin, json={"title": "Spring note", "status": "publish", "date": "2031-04-10T10:00:00"})
    client.post("/cms/v2/posts", user=admin, json={"title": "Summer note", "status": "publish", "date": "2031-07-10T10:00:00",
                                                   "categories": [news]})
    listing = editor.get("/wp-admin/edit.php").text
    assert '<option value="203104">April 2031</option>' in listing and '<option value="203107">July 2031</option>' in listing
    april = editor.get("/wp-admin/edit.php?m=203104").text
    assert "Spring note" in april and "Summer note" not in april
    in_news = editor.get(f"/wp-admin/edit.php?cat={news}").text
    assert "Summer note" in in_news and "Spring note" not in in_news
    assert "Spring note" in editor.get("/wp-admin/edit.php?m=nonsense").text  # a value it does not take is ignored
    for title, day in (("Early gig", "2031-05-02"), ("Late gig", "2031-09-20")):
        client.post(f"{CAL}/events", user=admin, json={"title": title, "start_date": f"{day} 20:00:00",
                                                       "end_date": f"{day} 22:00:00", "status": "publish"})
    ranged = editor.get("/wp-admin/edit.php?post_type=cal_events&start_date=2031-05-01&end_date=2031-05-31").text
    assert "Early gig" in ranged and "Late gig" not in ranged
    assert 'value="2031-05-01"' in ranged  # the range stays in its fields
