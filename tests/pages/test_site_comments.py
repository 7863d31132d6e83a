"""Comments on the public site, through the WSGI app: approved comments under their item,
threaded and paged with the discussion settings; the form and ``/wp-comments-post.php`` with the
same rules as the REST route (required fields, lengths, closed comments, protected items,
registration, duplicates, flood control, moderation); a held comment shown to its author only;
the page cache never leaking one; events only with the calendar's "Show comments" setting; and
one comment through a real server process."""

from __future__ import annotations

import datetime as dt
import html
import itertools
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
import sqlalchemy as sa
from cal_support import make_event, set_option

from calpress.store.tables import comments

HTML = {"Accept": "text/html"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
POST_URL = "/wp-comments-post.php"
AWAITING = "Your comment is awaiting moderation."


# -- helpers --------------------------------------------------------------------------------------


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def page(client, url: str, *, status: int = 200, cookie: str = "", headers: dict[str, str] | None = None):
    response = client.get(path_of(url), headers={**HTML, **({"Cookie": cookie} if cookie else {}), **(headers or {})})
    assert response.status_code == status, (url, response.status_code, response.text[:500])
    return response


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def shown(response) -> list[str]:
    """The texts of the comments a page shows, in document order."""
    return [text_of(found) for found in re.findall(r'<div class="comment-content">(.*?)</div>', response.text, re.S)]


def comment_block(response, comment_id: int) -> str:
    found = re.search(rf'<li id="comment-{comment_id}" .*?</article>', response.text, re.S)
    assert found, response.text[-3000:]
    return found.group(0)


_ADDRESSES = itertools.count(1)


def send(client, fields: dict[str, str], *, cookie: str = "", headers: dict[str, str] | None = None, address: str = ""):
    """POST the comment form; each call from another address unless ``address`` is given (flood
    control counts comments by address)."""
    all_headers = {**FORM, **({"Cookie": cookie} if cookie else {}), **(headers or {})}
    return client.http.simulate_post(POST_URL, body=urlencode(fields), headers=all_headers,
                                     remote_addr=address or f"198.51.100.{next(_ADDRESSES) % 250 + 1}")


def age_comments(app) -> None:
    """Dates every stored comment an hour back (out of flood control's 15 seconds)."""
    with app.site.write() as conn:
        for comment_id, date_utc in conn.execute(sa.select(comments.c.id, comments.c.date_utc)).all():
            conn.execute(sa.update(comments).where(comments.c.id == comment_id).values(date_utc=date_utc - dt.timedelta(hours=1)))


def visitor(post_id: int, text: str, *, name: str = "Vera Visitor", email: str = "vera@example.test", **extra: str) -> dict[str, str]:
    return {"comment_post_ID": str(post_id), "comment": text, "author": name, "email": email, "url": "", **extra}


def login(client, account) -> str:
    response = client.http.simulate_post("/wp-login.php", body=urlencode({"log": account.login, "pwd": account.password}),
                                         headers=FORM)
    assert response.status_code in (302, 303), response.text[:300]
    return response.headers["set-cookie"].split(";", 1)[0]


def cookies_of(response) -> dict[str, str]:
    return {cookie.name: cookie.value for cookie in response.cookies.values()}


def make_post(client, admin, title: str = "Harbour News", **body) -> dict:
    response = client.post("/cms/v2/posts", user=admin, json={"title": title, "status": "publish", "content": "<p>Body.</p>",
                                                              **body})
    assert response.status_code == 201, response.json
    return response.json


def add_comment(client, admin, post_id: int, text: str, **body) -> dict:
    """A comment the administrator writes through the API, approved unless ``status`` says
    otherwise: one written for a visitor (``author_name``) is the visitor's, held as any first
    comment of theirs unless the moderator approves it (the reference's create_item)."""
    response = client.post("/cms/v2/comments", user=admin, json={"post": post_id, "content": text, "status": "approved", **body})
    assert response.status_code == 201, response.json
    return response.json


def stored(client, admin, post_id: int) -> list[dict]:
    response = client.get("/cms/v2/comments", user=admin, query_string=urlencode({"post": post_id, "status": "any",
                                                                                  "per_page": 100, "context": "edit"}))
    assert response.status_code == 200, response.json
    return response.json


# -- 1. what an item's page shows -----------------------------------------------------------------


def test_approved_comments_show_under_their_post_with_author_date_and_text(client, admin):
    post = make_post(client, admin)
    first = add_comment(client, admin, post["id"], "First <em>words</em> -- here", author_name="Ann", author_email="ann@example.test",
                        author_url="https://ann.example/", status="approved")
    add_comment(client, admin, post["id"], "Still held", author_name="Bob", author_email="bob@example.test", status="hold")
    response = page(client, post["link"])
    assert shown(response) == ["First words \u2014 here"]  # the comment text filters (texturize, paragraphs)
    block = comment_block(response, first["id"])
    assert '<a href="https://ann.example/" class="url" rel="external nofollow ugc">Ann</a>' in block
    assert "<p>First <em>words</em> &#8212; here</p>" in block
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d">[A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d [ap]m</time>', block)
    assert f'href="{post["link"]}#comment-{first["id"]}"' in block
    assert "One thought on \u201cHarbour News\u201d" in text_of(response.text)
    assert 'id="commentform"' in response.text and 'action="http://example.test/wp-comments-post.php"' in response.text
    assert f'name="comment_post_ID" value="{post["id"]}"' in response.text
    assert 'id="wp-comment-cookies-consent"' in response.text
    assert "Still held" not in response.text


def test_closed_comments_show_the_approved_ones_and_no_form(client, admin):
    post = make_post(client, admin, comment_status="closed")
    assert 'id="comments"' not in page(client, post["link"]).text  # closed, none approved: no section
    other = make_post(client, admin, "Was Open")
    add_comment(client, admin, other["id"], "Before closing", author_name="Ann", author_email="ann@example.test")
    assert client.post(f"/cms/v2/posts/{other['id']}", user=admin, json={"comment_status": "closed"}).status_code == 200
    response = page(client, other["link"])
    assert shown(response) == ["Before closing"]
    assert "Comments are closed." in response.text and 'id="commentform"' not in response.text
    assert "comment-reply-link" not in response.text


def test_a_protected_post_shows_no_comments_until_its_password_is_given(client, admin):
    post = make_post(client, admin, password="sesame")
    add_comment(client, admin, post["id"], "Secret talk", author_name="Ann", author_email="ann@example.test")
    assert "Secret talk" not in page(client, post["link"]).text
    entered = client.http.simulate_post(path_of(post["link"]), body="post_password=sesame", headers=FORM)
    cookie = entered.headers["set-cookie"].split(";", 1)[0]
    assert shown(page(client, post["link"], cookie=cookie)) == ["Secret talk"]
    refused = send(client, visitor(post["id"], "No password"))
    assert refused.status_code == 403
    accepted = send(client, visitor(post["id"], "With the password"), cookie=cookie)
    assert accepted.status_code == 303, accepted.text


def test_threads_nest_replies_to_the_configured_depth(client, admin, app):
    set_option(app, "thread_comments_depth", "2")
    post = make_post(client, admin)
    top = add_comment(client, admin, post["id"], "Top")
    reply = add_comment(client, admin, post["id"], "Reply", parent=top["id"])
    deeper = add_comment(client, admin, post["id"], "Deeper", parent=reply["id"])
    response = page(client, post["link"])
    assert shown(response) == ["Top", "Reply", "Deeper"]
    # Depth 2 is the deepest: the reply to the reply is shown after it, at its level.
    assert re.search(rf'<li id="comment-{top["id"]}" class="[^"]*depth-1[^"]*">.*?<ol class="children">\s*'
                     rf'<li id="comment-{reply["id"]}" class="[^"]*depth-2[^"]*">.*?</li>\s*'
                     rf'<li id="comment-{deeper["id"]}" class="[^"]*depth-2', response.text, re.S)
    assert "comment-reply-link" in comment_block(response, top["id"])
    assert "comment-reply-link" not in comment_block(response, reply["id"])
    reply_link = re.search(r'class="comment-reply-link" href="([^"]+)"', comment_block(response, top["id"])).group(1)
    assert html.unescape(reply_link) == f"{post['link']}?replytocom={top['id']}#respond"
    form = page(client, html.unescape(reply_link).split("#")[0])
    assert f'name="comment_parent" id="comment_parent" value="{top["id"]}"' in form.text
    assert "Leave a Reply to" in form.text and "Cancel reply" in form.text
    set_option(app, "thread_comments", "")
    flat = page(client, post["link"])
    assert 'class="children"' not in flat.text and "comment-reply-link" not in flat.text
    assert shown(flat) == ["Top", "Reply", "Deeper"]


def test_comment_pages_follow_the_discussion_settings(client, admin, app):
    set_option(app, "page_comments", "1")
    set_option(app, "comments_per_page", "2")
    post = make_post(client, admin)
    for n in range(1, 6):
        add_comment(client, admin, post["id"], f"Number {n}")
    # 'newest': the last page first; pages counted from the oldest thread.
    response = page(client, post["link"])
    assert shown(response) == ["Number 5"]
    older = re.search(r'<div class="nav-previous"><a href="([^"]+)"', response.text).group(1)
    assert older == post["link"] + "comment-page-2/#comments"
    assert shown(page(client, post["link"] + "comment-page-2/")) == ["Number 3", "Number 4"]
    first = page(client, post["link"] + "comment-page-1/")
    assert shown(first) == ["Number 1", "Number 2"] and "nav-previous" not in first.text
    assert shown(page(client, f"/?p={post['id']}&cpage=2")) == ["Number 3", "Number 4"]
    set_option(app, "default_comments_page", "oldest")
    set_option(app, "comment_order", "desc")
    assert shown(page(client, post["link"])) == ["Number 2", "Number 1"]


# -- 2. the form ----------------------------------------------------------------------------------


def test_a_visitors_first_comment_is_held_and_shown_to_its_author_only(client, admin):
    post = make_post(client, admin)
    response = send(client, visitor(post["id"], "Hello from Vera", **{"wp-comment-cookies-consent": "yes"}))
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    comment = stored(client, admin, post["id"])[0]
    assert comment["status"] == "hold" and comment["author_name"] == "Vera Visitor"
    query = parse_qs(urlsplit(location).query)
    assert location.startswith(post["link"] + "?") and location.endswith(f"#comment-{comment['id']}")
    assert query["unapproved"] == [str(comment["id"])] and len(query["moderation-hash"][0]) == 32
    # The author, by the moderation link: the comment, marked.
    mine = page(client, location.split("#")[0])
    assert shown(mine) == ["Hello from Vera"] and AWAITING in comment_block(mine, comment["id"])
    # The author, by the commenter cookies: the comment, and the form filled in.
    jar = cookies_of(response)
    cookie = "; ".join(f"{name}={value}" for name, value in jar.items())
    again = page(client, post["link"], cookie=cookie)
    assert shown(again) == ["Hello from Vera"] and 'value="Vera Visitor"' in again.text
    # Anyone else: nothing; nor with a forged hash or a forged e-mail cookie.
    assert shown(page(client, post["link"])) == []
    forged = post["link"] + f"?unapproved={comment['id']}&moderation-hash={'0' * 32}"
    assert shown(page(client, forged)) == []
    assert shown(page(client, post["link"], cookie="comment_author_email_calpress=vera%40example.test")) == []
    # Approved, it is everybody's (the page cache follows the write).
    assert client.post(f"/cms/v2/comments/{comment['id']}", user=admin, json={"status": "approved"}).status_code == 200
    assert shown(page(client, post["link"])) == ["Hello from Vera"]
    assert AWAITING not in page(client, post["link"]).text


def test_a_previously_approved_commenter_is_approved_at_once_and_lands_on_the_comment(client, admin, app):
    post = make_post(client, admin)
    add_comment(client, admin, post["id"], "Old one", author_name="Vera Visitor", author_email="vera@example.test")
    age_comments(app)
    response = send(client, visitor(post["id"], "New one"))
    assert response.status_code == 303
    newest = max(stored(client, admin, post["id"]), key=lambda c: c["id"])
    assert newest["status"] == "approved"
    assert response.headers["location"] == f"{post['link']}#comment-{newest['id']}"
    assert "set-cookie" not in response.headers  # no consent, no commenter cookies
    assert shown(page(client, post["link"])) == ["Old one", "New one"]


def test_a_reply_through_the_form_is_threaded(client, admin, app):
    post = make_post(client, admin)
    top = add_comment(client, admin, post["id"], "Question?", author_name="Ann", author_email="ann@example.test")
    add_comment(client, admin, post["id"], "Earlier", author_name="Vera Visitor", author_email="vera@example.test")
    age_comments(app)
    response = send(client, visitor(post["id"], "Answer!", comment_parent=str(top["id"])))
    assert response.status_code == 303
    reply = max(stored(client, admin, post["id"]), key=lambda c: c["id"])
    assert reply["parent"] == top["id"] and reply["status"] == "approved"
    text = page(client, post["link"]).text
    assert re.search(rf'<li id="comment-{top["id"]}" .*?<ol class="children">\s*<li id="comment-{reply["id"]}"', text, re.S)
    # A parent of another item is dropped (the reply becomes top-level), as the reference.
    other = make_post(client, admin, "Other")
    age_comments(app)
    assert send(client, visitor(other["id"], "Stray", comment_parent=str(top["id"]))).status_code == 303
    assert max(stored(client, admin, other["id"]), key=lambda c: c["id"])["parent"] == 0


@pytest.mark.parametrize(("fields", "status", "message"), [
    ({"author": "", "email": ""}, 200, "<strong>Error:</strong> Please fill the required fields."),
    ({"email": "not-an-address"}, 200, "<strong>Error:</strong> Please enter a valid email address."),
    ({"comment": "   "}, 200, "<strong>Error:</strong> Please type your comment text."),
    ({"author": "N" * 246}, 200, "<strong>Error:</strong> Your name is too long."),
    ({"url": "https://example.test/" + "u" * 200}, 200, "<strong>Error:</strong> Your URL is too long."),
    ({"comment": "x" * 65526}, 200, "<strong>Error:</strong> Your comment is too long."),
    ({"comment_post_ID": "999999"}, 404, "Nothing was found to comment on."),
    ({"comment_post_ID": "abc"}, 404, "Nothing was found to comment on."),
])
def test_bad_forms_answer_the_references_message_and_store_nothing(client, admin, fields, status, message):
    post = make_post(client, admin)
    response = send(client, {**visitor(post["id"], "Fine text"), **fields})
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"].startswith("text/html")
    assert message in response.text and "Comment Submission Failure" in response.text
    assert stored(client, admin, post["id"]) == []


def test_closed_registration_only_and_draft_items_refuse_comments(client, admin, app, accounts):
    closed = make_post(client, admin, "Closed", comment_status="closed")
    response = send(client, visitor(closed["id"], "Hi"))
    assert response.status_code == 403 and "Sorry, comments are closed for this item." in response.text
    draft = client.post("/cms/v2/posts", user=admin, json={"title": "Draft", "status": "draft"}).json
    assert send(client, visitor(draft["id"], "Hi")).status_code == 404
    post = make_post(client, admin)
    set_option(app, "comment_registration", "1")
    refused = send(client, visitor(post["id"], "Hi"))
    assert refused.status_code == 403 and "Sorry, you must be logged in to comment." in refused.text
    form = page(client, post["link"]).text
    assert "You must be" in form and 'id="commentform"' not in form
    # A logged-in subscriber may; the form names them and takes no name or e-mail.
    cookie = login(client, accounts["subscriber"])
    mine = page(client, post["link"], cookie=cookie).text
    assert "Logged in as subscriber" in mine and 'name="author"' not in mine and "Log out?" in mine
    sent = send(client, {"comment_post_ID": str(post["id"]), "comment": "Member speaking"}, cookie=cookie)
    assert sent.status_code == 303, sent.text
    comment = stored(client, admin, post["id"])[0]
    assert comment["author"] == accounts["subscriber"].id and comment["author_email"] == "subscriber@example.test"
    assert comment["status"] == "hold"
    assert shown(page(client, post["link"], cookie=cookie)) == ["Member speaking"]  # their own held comment
    assert shown(page(client, post["link"])) == []
    assert stored(client, admin, post["id"]) and all(c["status"] == "hold" for c in stored(client, admin, post["id"]))
    assert "set-cookie" not in sent.headers  # no commenter cookies for users


def test_duplicates_and_floods_are_refused_but_moderators_are_not_throttled(client, admin):
    post = make_post(client, admin)
    assert send(client, visitor(post["id"], "Once"), address="192.0.2.1").status_code == 303
    duplicate = send(client, visitor(post["id"], "Once"), address="192.0.2.2")
    assert duplicate.status_code == 409 and "Duplicate comment detected" in duplicate.text
    # The same e-mail from another address, the same address with another e-mail: too soon.
    flood = send(client, visitor(post["id"], "Twice, too soon"), address="192.0.2.3")
    assert flood.status_code == 429 and "You are posting comments too quickly. Slow down." in flood.text
    same_address = send(client, visitor(post["id"], "Me again", name="Otto", email="otto@example.test"), address="192.0.2.1")
    assert same_address.status_code == 429
    # Another address and e-mail is another sender.
    assert send(client, visitor(post["id"], "Someone else", name="Otto", email="otto@example.test")).status_code == 303
    assert len(stored(client, admin, post["id"])) == 2
    # Moderators are not throttled; a REST duplicate of their form comment is refused by the same rule.
    cookie = login(client, admin)
    for n in range(3):
        assert send(client, {"comment_post_ID": str(post["id"]), "comment": f"Moderator {n}"}, cookie=cookie,
                    address="192.0.2.9").status_code == 303
    again = client.post("/cms/v2/comments", user=admin, json={"post": post["id"], "content": "Moderator 0"})
    assert again.status_code == 409 and again.json["code"] == "comment_duplicate"


def test_moderation_keys_links_disallowed_keys_and_the_settings_decide_the_status(client, admin, app):
    post = make_post(client, admin)
    trusted = [("Vera Visitor", f"vera{n}@example.test") for n in range(6)]
    for name, email in trusted:
        add_comment(client, admin, post["id"], f"Trusted {email}", author_name=name, author_email=email)
    age_comments(app)
    set_option(app, "moderation_keys", "casino\n\n")
    set_option(app, "disallowed_keys", "spamword")

    def sent(text: str, n: int) -> None:
        name, email = trusted[n]
        assert send(client, visitor(post["id"], text, name=name, email=email)).status_code == 303

    sent("Plain words", 0)
    sent("Visit my CASINO", 1)
    sent('Two <a href="https://a.example/">a</a> <a href="https://b.example/">b</a>', 2)
    sent("buy spamword now", 3)
    set_option(app, "comment_moderation", "1")
    sent("Held by the setting", 4)
    set_option(app, "comment_moderation", "")
    set_option(app, "comment_previously_approved", "")
    assert send(client, visitor(post["id"], "A newcomer", name="Nia", email="nia@example.test")).status_code == 303
    statuses = {c["content"]["raw"]: c["status"] for c in stored(client, admin, post["id"])}
    assert statuses["Plain words"] == "approved"
    assert statuses["Visit my CASINO"] == "hold"
    assert statuses['Two <a href="https://a.example/">a</a> <a href="https://b.example/">b</a>'] == "hold"
    assert statuses["buy spamword now"] == "trash"
    assert statuses["Held by the setting"] == "hold"
    assert statuses["A newcomer"] == "approved"


def test_the_form_filters_html_and_refuses_other_sites(client, admin, app):
    post = make_post(client, admin)
    add_comment(client, admin, post["id"], "Earlier", author_name="Vera Visitor", author_email="vera@example.test")
    age_comments(app)
    foreign = send(client, visitor(post["id"], "From afar"), headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and len(stored(client, admin, post["id"])) == 1
    sent = send(client, visitor(post["id"], '<script>alert(1)</script><strong>bold</strong> <a href="javascript:x()">x</a>',
                                url="javascript:alert(1)"), headers={"Origin": "http://example.test"})
    assert sent.status_code == 303
    comment = max(stored(client, admin, post["id"]), key=lambda c: c["id"])
    assert "<script" not in comment["content"]["raw"] and "<strong>bold</strong>" in comment["content"]["raw"]
    assert "javascript" not in comment["content"]["raw"] and comment["author_url"] == ""
    assert "alert(1)" not in page(client, post["link"]).text


def test_a_get_of_the_form_target_is_refused_cleanly(client):
    response = client.get(POST_URL, headers=HTML)
    assert response.status_code == 405 and response.headers["allow"] == "POST"
    assert response.headers["content-type"].startswith("text/plain")


# -- 3. events ------------------------------------------------------------------------------------


def test_events_show_comments_only_with_the_calendars_setting(client, admin, app):
    event = make_event(client, admin, "Harbour Jazz", start_hours=48)
    add_comment(client, admin, event["id"], "Great gig")
    assert 'id="comments"' not in page(client, event["url"]).text
    set_option(app, "showComments", "1")
    response = page(client, event["url"])
    assert shown(response) == ["Great gig"]


# -- 4. a real server -----------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_comment_through_a_real_server(live_server):
    server = live_server
    admin_id = server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--porcelain").strip()
    password = server.cli("user", "application-password", "create", "admin", "tests", "--porcelain").strip()
    with httpx.Client(base_url=server.url, auth=("admin", password), timeout=20) as rest:
        post = rest.post("/cms/v2/posts", json={"title": "Live Post", "status": "publish", "content": "Hi"}).json()
        assert post["author"] == int(admin_id)
    with httpx.Client(base_url=server.url, timeout=20, follow_redirects=False) as browser:
        sent = browser.post(POST_URL, data=visitor(post["id"], "Live words", **{"wp-comment-cookies-consent": "yes"}),
                            headers={"Origin": server.url})
        assert sent.status_code == 303, sent.text
        assert "comment_author_email_calpress" in sent.headers.get("set-cookie", "")
        assert "samesite=lax" in sent.headers["set-cookie"].lower()
        held = browser.get(sent.headers["location"].split("#")[0], headers=HTML)
        assert held.status_code == 200 and "Live words" in held.text and AWAITING in held.text
        stranger = httpx.get(post["link"], headers=HTML, timeout=20)
        assert "Live words" not in stranger.text
        empty = browser.post(POST_URL, data=visitor(post["id"], ""))
        assert empty.status_code == 200 and "Please type your comment text." in empty.text


@pytest.mark.parametrize("body", [
    "comment_post_ID={id}&comment=Hi&author=A&email=a%40example.test&comment_parent=-5",
    "comment_post_ID={id}&comment=Hi&author=A&email=a%40example.test&comment_parent=99999999999999999999999",
    "comment_post_ID={id}&comment[]=Hi&author[x]=A&email=a%40example.test",
    "comment_post_ID=1e3&comment=Hi",
    "comment_post_ID={id}&comment=%FF%FE%00&author=%00&email=a%40example.test",
    '{{"comment_post_ID": {id}, "comment": "json"}}',
    "",
])
def test_odd_forms_never_answer_a_500(client, admin, body):
    post = make_post(client, admin)
    response = client.http.simulate_post(POST_URL, body=body.format(id=post["id"]), headers=FORM, remote_addr="192.0.2.77")
    assert response.status_code in (200, 303, 404), (response.status_code, response.text[:300])
    for comment in stored(client, admin, post["id"]):
        assert comment["parent"] == 0 and "\x00" not in comment["content"]["raw"]


def test_the_rest_route_shares_the_length_rule(client, admin):
    post = make_post(client, admin)
    response = client.post("/cms/v2/comments", user=admin, json={"post": post["id"], "content": "x" * 65526})
    assert response.status_code == 400 and response.json["code"] == "comment_content_column_length"
    assert response.json["message"] == "Comment field exceeds maximum length allowed."
    assert stored(client, admin, post["id"]) == []
