"""Remembered content items (api/cms_content_represent.py, store/memo.py): a cms/v2 item built
once for a requester is reused by later listings under any query until a record it was built
from changes. Each test fills the memo, writes through the API, then reads under a query never
asked before (so the answer cache misses) and checks that what is shown equals what the
database builds."""

from __future__ import annotations

import itertools

import falcon.testing
from content_support import make_image, make_item, make_term, set_option

from calpress.app import Calpress
from calpress.content.items import queries

_fresh = itertools.count(1)


def listed(client, path="/cms/v2/posts", user=None, **params):
    """The list under a query no answer was cached for (``miss`` is ignored by the route)."""
    response = client.get(path, user=user, params={"per_page": "50", "miss": str(next(_fresh)), **params})
    assert response.status_code == 200, response.json
    return {item["id"]: item for item in response.json}


def same_as_built(app, client, path="/cms/v2/posts", user=None, **params):
    """The list as remembered equals the list built from the database: the invariant."""
    remembered = listed(client, path, user, **params)
    app.site.memo.clear()
    built = listed(client, path, user, **params)
    assert remembered == built
    return built


def kept(app, type_="post"):
    return [key for key in app.site.memo._entries if key[:2] == ("cms.item", type_)]


def test_items_are_kept_per_requester_and_forgotten_when_they_change(app, client, admin):
    first = make_item(app, title="First", author=admin.id)
    second = make_item(app, title="Second", author=admin.id)
    anonymous = listed(client)
    assert len(kept(app)) == 2
    as_admin = listed(client, user=admin)
    assert len(kept(app)) == 4  # the target hints differ: each requester has their own
    assert anonymous[first.id]["_links"]["self"][0]["targetHints"]["allow"] == ["GET"]
    assert "DELETE" in as_admin[first.id]["_links"]["self"][0]["targetHints"]["allow"]
    assert listed(client) == anonymous

    response = client.post(f"/cms/v2/posts/{first.id}", user=admin, json={"title": "First, renamed"})
    assert response.status_code == 200, response.json
    shown = same_as_built(app, client)
    assert shown[first.id]["title"]["rendered"] == "First, renamed"
    assert shown[second.id]["title"]["rendered"] == "Second"
    # Its revisions are counted in its links (the update stored one).
    assert shown[first.id]["_links"]["version-history"][0]["count"] == 1
    listed(client)
    listed(client, user=admin)
    assert len(kept(app)) == 4
    assert client.post(f"/cms/v2/posts/{second.id}", user=admin, json={"excerpt": "New"}).status_code == 200
    listed(client)
    # Only the second post's entries went; the first post's stayed.
    assert sorted(key[-1] for key in kept(app)) == [first.id, first.id, second.id]


def test_an_autosave_by_another_user_moves_the_revision_links(app, client, admin, accounts):
    editor = accounts["editor"]
    post = make_item(app, title="Drafted", author=admin.id)
    assert listed(client)[post.id]["_links"]["version-history"][0]["count"] == 0
    response = client.post(f"/cms/v2/posts/{post.id}/autosaves", user=editor, json={"title": "Edited by another"})
    assert response.status_code == 200, response.json
    shown = same_as_built(app, client)
    assert shown[post.id]["_links"]["version-history"][0]["count"] == 1
    assert shown[post.id]["_links"]["predecessor-version"][0]["id"] == response.json["id"]
    response = client.post(f"/cms/v2/posts/{post.id}/autosaves", user=editor, json={"title": "Edited again"})
    assert response.status_code == 200, response.json
    same_as_built(app, client)


def test_terms_renamed_assigned_or_deleted_show(app, client, admin):
    news = make_term(app, "category", "News")
    post = make_item(app, title="Filed", author=admin.id, terms={"category": [news]})
    assert "category-news" in listed(client)[post.id]["class_list"]

    assert client.post(f"/cms/v2/categories/{news}", user=admin, json={"slug": "headlines"}).status_code == 200
    shown = same_as_built(app, client)
    assert "category-headlines" in shown[post.id]["class_list"]

    tag = client.post("/cms/v2/tags", user=admin, json={"name": "Fresh"}).json["id"]
    assert client.post(f"/cms/v2/posts/{post.id}", user=admin, json={"tags": [tag]}).status_code == 200
    shown = same_as_built(app, client)
    assert shown[post.id]["tags"] == [tag]

    assert client.delete(f"/cms/v2/tags/{tag}", user=admin, params={"force": "true"}).status_code == 200
    shown = same_as_built(app, client)
    assert shown[post.id]["tags"] == []


def test_featured_image_changes_show(app, client, admin):
    image = make_image(app)
    post = make_item(app, title="Pictured", author=admin.id, featured_media=image)
    shown = listed(client)[post.id]
    assert "has-post-thumbnail" in shown["class_list"]
    assert shown["_links"]["wp:featuredmedia"][0]["href"].endswith(f"/media/{image}")

    response = client.delete(f"/cms/v2/media/{image}", user=admin, params={"force": "true"})
    assert response.status_code == 200, response.json
    shown = same_as_built(app, client)[post.id]
    assert "has-post-thumbnail" not in shown["class_list"]
    assert "wp:featuredmedia" not in shown["_links"]


def test_an_image_attached_to_a_post_made_draft_stops_being_linked(app, client, admin):
    parent = make_item(app, title="Parent", author=admin.id)
    image = make_image(app, parent=parent.id)
    post = make_item(app, title="Pictured", author=admin.id, featured_media=image)
    assert "wp:featuredmedia" in listed(client)[post.id]["_links"]
    # The image inherits its parent's status: a draft's image is not public.
    assert client.post(f"/cms/v2/posts/{parent.id}", user=admin, json={"status": "draft"}).status_code == 200
    shown = same_as_built(app, client)[post.id]
    assert "wp:featuredmedia" not in shown["_links"]
    assert "wp:featuredmedia" in same_as_built(app, client, user=admin)[post.id]["_links"]  # its author may read it


def test_options_and_users_forget_everything(app, client, admin, accounts):
    post = make_item(app, title="Dated", author=admin.id)
    listed(client)
    set_option(app, "permalink_structure", "")
    shown = same_as_built(app, client)
    assert shown[post.id]["link"].endswith(f"/?p={post.id}")
    listed(client)
    response = client.post(f"/cms/v2/users/{accounts['author'].id}", user=admin, json={"name": "Renamed"})
    assert response.status_code == 200, response.json
    listed(client, per_page="1")
    assert len(kept(app)) == 1


def test_what_is_never_kept(app, client, admin):
    locked = make_item(app, title="Locked", author=admin.id, password="secret")
    parent = make_item(app, "page", title="Parent", author=admin.id)
    child = make_item(app, "page", title="Child", author=admin.id, parent=parent.id)
    listed(client, user=admin)
    listed(client, user=admin, context="edit")
    assert kept(app) == []  # the locked post is the only one, and edit context is not kept
    pages = listed(client, "/cms/v2/pages")
    assert [key[-1] for key in kept(app, "page")] == [parent.id]
    assert pages[child.id]["link"].endswith("/parent/child/")
    assert listed(client)[locked.id]["content"]["protected"] is True
    assert kept(app) == []

    # A child page's address reads its ancestors: a renamed parent shows in it.
    assert client.post(f"/cms/v2/pages/{parent.id}", user=admin, json={"slug": "renamed"}).status_code == 200
    pages = same_as_built(app, client, "/cms/v2/pages")
    assert pages[child.id]["link"].endswith("/renamed/child/")


def test_fields_and_embeds_are_kept_apart(app, client, admin):
    post = make_item(app, title="Shaped", author=admin.id)
    full = listed(client)[post.id]
    narrow = listed(client, _fields="id,title")[post.id]
    assert narrow == {"id": post.id, "title": full["title"]}
    embedded = listed(client, _embed="author")[post.id]
    assert embedded["_embedded"]["author"][0]["id"] == admin.id
    assert listed(client)[post.id] == full
    assert same_as_built(app, client, _fields="id,title,_links", _embed="1")[post.id]["_embedded"]["author"][0]["id"] == admin.id


def test_making_a_post_sticky_shows(app, client, admin):
    post = make_item(app, title="Pinned", author=admin.id)
    assert listed(client)[post.id]["sticky"] is False
    assert client.post(f"/cms/v2/posts/{post.id}", user=admin, json={"sticky": True}).status_code == 200
    assert same_as_built(app, client)[post.id]["sticky"] is True


def single(client, path, user=None, **params):
    response = client.get(path, user=user, params={"miss": str(next(_fresh)), **params})
    assert response.status_code == 200, response.json
    return response


def test_a_single_item_is_shown_as_listed_and_follows_writes(app, client, admin):
    post = make_item(app, title="Alone", author=admin.id)
    page = make_item(app, "page", title="Page", author=admin.id)
    listed_post = listed(client)[post.id]
    response = single(client, f"/cms/v2/posts/{post.id}")
    assert response.json == listed_post  # the listing's entry, reused
    assert f'<{listed_post["link"]}>; rel="alternate"; type=text/html' in response.headers["Link"]
    assert len(kept(app)) == 1
    assert single(client, f"/cms/v2/pages/{page.id}").json["link"].endswith("/page/")
    assert len(kept(app, "page")) == 1

    assert client.post(f"/cms/v2/posts/{post.id}", user=admin, json={"slug": "renamed"}).status_code == 200
    response = single(client, f"/cms/v2/posts/{post.id}")
    assert response.json["link"].endswith("/renamed/")
    assert f'<{response.json["link"]}>; rel="alternate"' in response.headers["Link"]
    app.site.memo.clear()
    assert single(client, f"/cms/v2/posts/{post.id}").json == response.json
    # Asked for fields without the link, it is built as before (the Link header needs it).
    narrow = single(client, f"/cms/v2/posts/{post.id}", _fields="id")
    assert narrow.json == {"id": post.id} and "alternate" in narrow.headers["Link"]


def test_kept_rows_follow_writes_from_another_worker(app, client, settings, admin, accounts):
    """Listed items are kept as read from their rows (content/items/queries.py), shared by every
    requester: a requester whose representation is not kept yet builds it from the kept row,
    which must follow a write made by another process."""
    first = make_item(app, title="First", author=admin.id)
    second = make_item(app, title="Second", author=admin.id)
    listed(client)
    listed(client)  # now from the page's rows as kept
    rows = {key[1] for key in app.site.memo._entries if key[0] == queries.ROW_KEY}
    assert rows == {first.id, second.id}
    other = Calpress(settings)  # a second worker on the same database
    try:
        answer = falcon.testing.TestClient(other.wsgi).simulate_post(
            f"/wp-json/cms/v2/posts/{first.id}", headers=admin.basic, json={"title": "First, elsewhere"})
        assert answer.status_code == 200, answer.json
    finally:
        other.site.close()
    # The first listing after the write counts its total again (in a transaction); the next
    # ones read the page alone and take what is kept of its rows. The editor's representations
    # were never built here: they are built from those rows.
    assert listed(client)[first.id]["title"]["rendered"] == "First, elsewhere"
    shown = listed(client, user=accounts["editor"])
    assert shown[first.id]["title"]["rendered"] == "First, elsewhere"
    assert shown[second.id]["title"]["rendered"] == "Second"
    assert same_as_built(app, client, user=accounts["editor"]) == shown
