"""The term screens (issue 30) through the app in process on both databases: categories, tags and
event categories listed with their counts, searched, sorted and paged; added, edited and deleted
(one by one and in bulk) with a nonce; errors beside their field with the input kept; who may
do what exactly as the API decides; every change read back through the REST API."""

from __future__ import annotations

import re

from admin_support import fields_of, location, query_of
from cal_support import make_event

CATEGORIES = "/wp-admin/edit-tags.php?taxonomy=category"
TAGS = "/wp-admin/edit-tags.php?taxonomy=post_tag"
EVENT_CATEGORIES = "/wp-admin/edit-tags.php?taxonomy=cal_events_cat&post_type=cal_events"
EXPIRED = "The link you followed has expired."


def add(browser, path: str, **fields):
    form = browser.form(path, "addtag")
    form.update(fields)
    return browser.post(path, form)


def added(browser, path: str, **fields) -> str:
    """Add a term through the form; the list it comes back to."""
    target = location(add(browser, path, **fields))
    assert query_of(target).get("message") == "1"
    return browser.get(target).text


def term_named(client, user, base: str, name: str) -> dict:
    found = [t for t in client.get(f"/cms/v2/{base}", user=user, params={"search": name, "context": "edit"}).json
             if t["name"] == name]
    assert len(found) == 1, found
    return found[0]


def error_beside(html: str, field: str) -> str:
    start = html.index(f'id="{field}-error"')
    return html[html.index(">", start) + 1:html.index("</p>", start)]


def row_links(html: str, term_id: int) -> dict[str, str]:
    """The row actions of a term's row: label -> address."""
    row = html[html.index(f'id="tag-{term_id}"'):]
    row = row[:row.index("</tr>")]
    return {label: href.replace("&amp;", "&") for href, label in re.findall(r'<a href="([^"]+)"[^>]*>(Edit|Delete|View)</a>', row)}


# -- who may ------------------------------------------------------------------------------------


def test_who_may_open_the_term_screens(as_role):
    for role in ("subscriber", "contributor", "author"):
        for path in (CATEGORIES, TAGS):
            answer = as_role(role).get(path)
            assert answer.status_code == 403 and "Sorry, you are not allowed to manage terms in this taxonomy." in answer.text
    # The taxonomy's own capability: authors publish events, so they manage event categories.
    author = as_role("author").get(EVENT_CATEGORIES)
    assert author.status_code == 200 and 'id="addtag"' in author.text
    assert as_role("contributor").get(EVENT_CATEGORIES).status_code == 403
    editor = as_role("editor")
    assert editor.get(CATEGORIES).status_code == 200 and editor.get(TAGS).status_code == 200
    invalid = editor.get("/wp-admin/edit-tags.php?taxonomy=nothing")
    assert invalid.status_code == 400 and "Invalid taxonomy." in invalid.text
    assert editor.get("/wp-admin/edit-tags.php?taxonomy=post_format").status_code == 403  # no screen of its own
    assert 'href="/wp-admin/edit-tags.php?taxonomy=category"' in editor.get(CATEGORIES).text  # the menu


def test_an_author_adds_an_event_category_and_sees_its_events(as_role, client, admin, accounts):
    author = as_role("author")
    page = added(author, EVENT_CATEGORIES, **{"tag-name": "Festivals", "description": "Outdoor <b>festivals</b>"})
    assert "Event Category added." in page
    term = term_named(client, admin, "cal_events_cat", "Festivals")
    assert (term["slug"], term["description"], term["parent"]) == ("festivals", "Outdoor <b>festivals</b>", 0)
    make_event(client, admin, "Summer fair", categories=[term["id"]])
    page = author.get(EVENT_CATEGORIES).text
    # The count is the API's, and leads to the events list filtered by the category.
    assert f'<a href="/wp-admin/edit.php?post_type=cal_events&amp;cal_events_cat={term["id"]}">1</a>' in page
    assert "Outdoor festivals" in page and "<b>festivals</b>" not in page  # the description as text
    assert "post-type-cal_events" in page  # the Events menu is the current one


# -- adding -------------------------------------------------------------------------------------


def test_a_category_is_added_under_a_parent(as_role, client, admin):
    editor = as_role("editor")
    page = added(editor, CATEGORIES, **{"tag-name": "Jazz & Blues", "description": "Live music"})
    assert "Category added." in page
    jazz = term_named(client, admin, "categories", "Jazz &amp; Blues")
    assert (jazz["slug"], jazz["description"]) == ("jazz-blues", "Live music")
    form = editor.form(CATEGORIES, "addtag")
    assert "Jazz &amp; Blues</option>" in editor.get(CATEGORIES).text  # escaped once, as typed
    form.update({"tag-name": "Bebop", "slug": "be-bop", "parent": str(jazz["id"])})
    location(editor.post(CATEGORIES, form))
    bebop = term_named(client, admin, "categories", "Bebop")
    assert (bebop["slug"], bebop["parent"]) == ("be-bop", jazz["id"])
    # Listed as a tree: the child right after its parent, marked with a dash.
    page = editor.get(CATEGORIES).text
    assert page.index(f'id="tag-{jazz["id"]}"') < page.index(f'id="tag-{bebop["id"]}"') < page.index('id="tag-1"')
    assert re.search(r"<strong>— <a class=\"row-title\"[^>]*>Bebop</a>", page)
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Gig", "status": "publish", "categories": [bebop["id"]]})
    assert post.status_code == 201
    page = editor.get(CATEGORIES).text
    row = page[page.index(f'id="tag-{bebop["id"]}"'):]
    assert '<td class="column-count" data-colname="Count">1</td>' in row[:row.index("</tr>")]


def test_a_duplicate_name_is_refused_beside_the_name_with_the_input_kept(as_role, client, admin):
    editor = as_role("editor")
    added(editor, CATEGORIES, **{"tag-name": "Theatre"})
    answer = add(editor, CATEGORIES, **{"tag-name": "Theatre", "description": "Plays & more"})
    assert answer.status_code == 400
    assert error_beside(answer.text, "tag-name") == "A term with the name provided already exists with this parent."
    assert 'aria-invalid="true" aria-describedby="name-description tag-name-error"' in answer.text
    assert "Category not added." in answer.text
    kept = fields_of(answer.text, "addtag")
    assert (kept["tag-name"], kept["description"]) == ("Theatre", "Plays & more")
    answer = add(editor, CATEGORIES, **{"tag-name": "  "})
    assert answer.status_code == 400 and error_beside(answer.text, "tag-name") == "A name is required for this term."
    answer = add(editor, TAGS, **{"tag-name": "Outdoor", "slug": "theatre"})  # another taxonomy: its own slugs
    assert location(answer)
    assert len([t for t in client.get("/cms/v2/categories", params={"search": "Theatre"}).json]) == 1


def test_the_add_form_needs_its_nonce(as_role, client, admin):
    editor = as_role("editor")
    form = editor.form(CATEGORIES, "addtag")
    form["tag-name"] = "Forged"
    for nonce in ("", "0123456789", editor.form(CATEGORIES, "posts-filter")["_wpnonce"]):
        answer = editor.post(CATEGORIES, {**form, "_wpnonce": nonce})
        assert answer.status_code == 403 and EXPIRED in answer.text
    assert client.get("/cms/v2/categories", params={"search": "Forged"}).json == []


def test_tags_have_no_parent_and_escape_what_they_show(as_role, client, admin):
    editor = as_role("editor")
    page = editor.get(TAGS).text
    assert 'name="parent"' not in page and "<h2 id=\"add-term-title\">Add Tag</h2>" in page
    added(editor, TAGS, **{"tag-name": 'Tom & Jerry\'s <3 "q"', "description": "<em>Cartoons</em> <b>old</b>"})
    tag = term_named(client, admin, "tags", "Tom &amp; Jerry's &lt;3 &quot;q&quot;")
    page = editor.get(TAGS).text
    assert "Tom &amp; Jerry&#39;s &lt;3 &#34;q&#34;</a>" in page and "<3" not in page
    assert "Cartoons old" in page and "<em>" not in page
    fields = editor.form(f"/wp-admin/term.php?taxonomy=post_tag&tag_ID={tag['id']}", "edittag")
    assert fields["name"] == 'Tom & Jerry\'s <3 "q"' and fields["description"] == "<em>Cartoons</em> <b>old</b>"


# -- editing ------------------------------------------------------------------------------------


def test_a_term_is_edited(as_role, client, admin):
    jazz = client.post("/cms/v2/categories", user=admin, json={"name": "Jazz & Soul"}).json
    swing = client.post("/cms/v2/categories", user=admin, json={"name": "Swing"}).json
    editor = as_role("editor")
    path = row_links(editor.get(CATEGORIES).text, swing["id"])["Edit"]
    assert path == f"/wp-admin/term.php?taxonomy=category&tag_ID={swing['id']}"
    fields = editor.form(path, "edittag")
    assert fields["name"] == "Swing" and fields["parent"] == "-1"
    fields.update({"name": "Swing & Big Band", "slug": "big-band", "description": "Dance <em>orchestras</em>",
                   "parent": str(jazz["id"])})
    target = location(editor.post(path, fields))
    assert query_of(target)["message"] == "3"
    page = editor.get(target).text
    assert "Category updated." in page and "← Go to Categories" in page
    found = client.get(f"/cms/v2/categories/{swing['id']}", user=admin, params={"context": "edit"}).json
    assert (found["name"], found["slug"], found["description"], found["parent"]) == \
        ("Swing &amp; Big Band", "big-band", "Dance <em>orchestras</em>", jazz["id"])
    # Saved again unchanged: the name is not escaped twice.
    location(editor.post(path, editor.form(path, "edittag")))
    assert client.get(f"/cms/v2/categories/{swing['id']}").json["name"] == "Swing &amp; Big Band"
    # A parent the term is above is not offered, and refused beside the field when sent.
    jazz_path = f"/wp-admin/term.php?taxonomy=category&tag_ID={jazz['id']}"
    shown = editor.get(jazz_path).text
    assert f'<option value="{swing["id"]}"' not in shown and f'<option value="{jazz["id"]}"' not in shown
    fields = editor.form(jazz_path, "edittag")
    answer = editor.post(jazz_path, {**fields, "parent": str(swing["id"]), "name": "Jazz only"})
    assert answer.status_code == 400
    assert error_beside(answer.text, "parent") == "A category cannot be placed under itself or under one of its own children."
    assert 'value="Jazz only"' in answer.text and "Category not updated." in answer.text
    assert client.get(f"/cms/v2/categories/{jazz['id']}").json["parent"] == 0


def test_edit_errors_beside_their_field(as_role, client, admin):
    client.post("/cms/v2/tags", user=admin, json={"name": "Rock", "slug": "rock"})
    pop = client.post("/cms/v2/tags", user=admin, json={"name": "Pop"}).json
    editor = as_role("editor")
    path = f"/wp-admin/term.php?taxonomy=post_tag&tag_ID={pop['id']}"
    fields = editor.form(path, "edittag")
    answer = editor.post(path, {**fields, "slug": "rock", "description": "kept"})
    assert answer.status_code == 400
    assert error_beside(answer.text, "slug") == "The slug “rock” is already in use by another term."
    assert fields_of(answer.text, "edittag")["description"] == "kept"
    answer = editor.post(path, {**fields, "name": ""})
    assert answer.status_code == 400 and error_beside(answer.text, "name") == "A name is required for this term."
    assert client.get(f"/cms/v2/tags/{pop['id']}").json["slug"] == "pop"
    forged = editor.post(path, {**fields, "name": "Forged", "_wpnonce": "0123456789"})
    assert forged.status_code == 403 and EXPIRED in forged.text
    assert editor.get("/wp-admin/term.php?taxonomy=post_tag&tag_ID=99999").status_code == 404
    assert as_role("author").get(path).status_code == 403


# -- deleting -----------------------------------------------------------------------------------


def test_a_term_is_deleted_with_its_nonce(as_role, client, admin):
    gone = client.post("/cms/v2/categories", user=admin, json={"name": "Gone"}).json
    editor = as_role("editor")
    page = editor.get(CATEGORIES).text
    link = row_links(page, gone["id"])["Delete"]
    assert "Delete" not in row_links(page, 1) and 'id="cb-select-1"' not in page  # the default category stays
    forged = re.sub(r"_wpnonce=[^&]+", "_wpnonce=0123456789", link)
    assert editor.get(forged).status_code == 403
    assert client.get(f"/cms/v2/categories/{gone['id']}").status_code == 200
    target = location(editor.get(link))
    assert query_of(target) == {"taxonomy": "category", "message": "2"}
    assert "Category deleted." in editor.get(target).text
    assert client.get(f"/cms/v2/categories/{gone['id']}").status_code == 404
    # The term's own page offers it too.
    other = client.post("/cms/v2/categories", user=admin, json={"name": "Other"}).json
    page = editor.get(f"/wp-admin/term.php?taxonomy=category&tag_ID={other['id']}").text
    delete = re.search(r'<a class="delete submitdelete" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    location(editor.get(delete))
    assert client.get(f"/cms/v2/categories/{other['id']}").status_code == 404
    assert "submitdelete" not in editor.get("/wp-admin/term.php?taxonomy=category&tag_ID=1").text


def test_tags_are_deleted_in_bulk(as_role, client, admin):
    ids = [client.post("/cms/v2/tags", user=admin, json={"name": f"Bulk {n}"}).json["id"] for n in range(3)]
    editor = as_role("editor")
    fields = editor.form(TAGS, "posts-filter")
    fields.update({"action": "delete", "delete_tags[]": [str(ids[0]), str(ids[1])]})
    target = location(editor.post(TAGS, fields))
    assert query_of(target)["message"] == "6"
    assert "Tags deleted." in editor.get(target).text
    assert [client.get(f"/cms/v2/tags/{i}").status_code for i in ids] == [404, 404, 200]
    fields = editor.form(CATEGORIES, "posts-filter")
    fields.update({"action": "delete", "delete_tags[]": ["1"]})  # forged: the default category
    target = location(editor.post(CATEGORIES, fields))
    assert "1 could not be deleted" in editor.get(target).text
    assert client.get("/cms/v2/categories/1").status_code == 200
    forged = editor.post(TAGS, {**fields, "delete_tags[]": [str(ids[2])], "_wpnonce": ""})
    assert forged.status_code == 403 and client.get(f"/cms/v2/tags/{ids[2]}").status_code == 200


# -- the list -----------------------------------------------------------------------------------


def test_search_sorting_and_pages(as_role, client, admin):
    for n in range(23):
        client.post("/cms/v2/tags", user=admin, json={"name": f"Tag {n:02d}", "description": "Alpha" if n == 7 else ""})
    used = term_named(client, admin, "tags", "Tag 05")
    client.post("/cms/v2/posts", user=admin, json={"title": "Tagged", "status": "publish", "tags": [used["id"]]})
    editor = as_role("editor")
    first = editor.get(TAGS).text
    assert first.count('name="delete_tags[]"') == 20 and "23 items" in first and "Page 1 of 2" in first
    second = editor.get(TAGS + "&paged=2").text
    assert second.count('name="delete_tags[]"') == 3 and "Tag 22" in second
    assert location(editor.get(TAGS + "&paged=9")).endswith("paged=2")
    found = editor.get(TAGS + "&s=Tag+07").text
    assert found.count('name="delete_tags[]"') == 1 and "Search results for: <strong>Tag 07</strong>" in found
    by_count = editor.get(TAGS + "&orderby=count&order=desc").text
    assert re.findall(r'id="tag-(\d+)"', by_count)[0] == str(used["id"])
    assert 'aria-sort="descending"' in by_count
    empty = editor.get(TAGS + "&s=nothing-like-this").text
    assert "No tags found." in empty
