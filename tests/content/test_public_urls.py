"""Public addresses read back (calpress/content/public.py): what permalinks, term links and author
links name, under each permalink structure, plus the plain query forms; unknown addresses, wrong
dates and garbage name nothing. Runs on both databases."""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from item_support import HOME, create, ctx

from calpress.auth import users as user_store
from calpress.content import items
from calpress.content import terms as term_store
from calpress.content.public import Target, resolve

POSTNAME = "/%postname%/"
DATED = "/%year%/%monthnum%/%day%/%postname%/"
ARCHIVES = "/archives/%post_id%"
PLAIN = ""
STRUCTURES = [POSTNAME, DATED, ARCHIVES, PLAIN]
MAY_6 = (dt.datetime(2024, 5, 6, 7, 8, 9), dt.datetime(2024, 5, 6, 7, 8, 9))


def at(site, context, address, query=None):
    """What ``address`` (a full URL of the site, or a path with its query) names."""
    parts = urlsplit(address.removeprefix(HOME))
    given_query = dict(parse_qsl(parts.query, keep_blank_values=True)) if query is None else query
    with site.read() as conn:
        return resolve(conn, context, parts.path or "/", given_query)


def item(found):
    return Target("item", item_id=found.id)


def uri_of(site, page):
    with site.read() as conn:
        return items.page_uris(conn, [page])[page.id]


def add_term(site, taxonomy, name, parent=None):
    with site.write() as conn:
        return term_store.create_term(conn, site.registry.taxonomies[taxonomy], name, parent=parent)


def term_link(site, taxonomy, term):
    with site.read() as conn:
        related = term_store.with_ancestors(conn, [term])
    return term_store.term_link(HOME, site.registry.taxonomies[taxonomy], term, related)


def add_user(site, login):
    with site.write() as conn:
        return user_store.create_user(conn, login=login, email=f"{login}@example.test", password="pw")


# -- round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("structure", STRUCTURES)
def test_every_type_round_trips(site, structure):
    context = ctx(site, permalink_structure=structure)
    post = create(site, title="Hello", date=MAY_6)
    page = create(site, "page", title="About")
    child = create(site, "page", title="Team", parent=page.id)
    grandchild = create(site, "page", title="Lead", parent=child.id)
    media = create(site, "attachment", title="Photo", status="inherit", mime_type="image/jpeg")
    event = create(site, "cal_events", title="Party")
    venue = create(site, "cal_venue", title="Hall")
    organizer = create(site, "cal_organizer", title="Club")
    for found in (post, page, child, grandchild, media, event, venue, organizer):
        uri = uri_of(site, found) if found.type == "page" else None
        address = items.permalink(context, found, uri=uri)
        assert at(site, context, address) == item(found), address


@pytest.mark.parametrize("structure", STRUCTURES)
def test_content_pages_of_an_item(site, structure):
    context = ctx(site, permalink_structure=structure)
    post = create(site, title="Long read", date=MAY_6)
    page = create(site, "page", title="Manual")
    event = create(site, "cal_events", title="Festival")
    for found in (post, page, event):
        address = items.permalink(context, found)
        paged = address + "&page=3" if structure == PLAIN else address.rstrip("/") + "/3/"
        assert at(site, context, paged) == Target("item", item_id=found.id, page=3), paged


def test_drafts_and_private_items_round_trip_through_their_plain_links(site):
    context = ctx(site)
    draft = create(site, title="Draft", status="draft")
    private = create(site, title="Secret", status="private")
    draft_event = create(site, "cal_events", title="Soon", status="draft")
    for found in (draft, private, draft_event):
        address = items.permalink(context, found)
        assert at(site, context, address) == item(found), address


def test_the_category_and_author_structures(site):
    jane = add_user(site, "jane")
    post = create(site, title="Hello", author=jane.id)
    by_category = ctx(site, permalink_structure="/%category%/%postname%/")
    assert items.permalink(by_category, post) == f"{HOME}/uncategorized/hello/"
    assert at(site, by_category, "/uncategorized/hello/") == item(post)
    assert at(site, by_category, "/any/path/hello/") == item(post)  # the category part is not checked
    with site.read() as conn:
        uncategorized = term_store.get_term_by_slug(conn, "category", "uncategorized")
    assert at(site, by_category, "/uncategorized/") == Target("term", taxonomy="category", term_id=uncategorized.id)
    by_author = ctx(site, permalink_structure="/%author%/%postname%/")
    assert at(site, by_author, items.permalink(by_author, post)) == item(post)
    assert at(site, by_author, "/jane/hello/") == item(post)  # the reference's nicename
    other = add_user(site, "other")
    assert at(site, by_author, f"/{other.id}/hello/") is None
    assert at(site, by_author, "/other/hello/") is None


# -- pages and posts ------------------------------------------------------------------------------


def test_pages_win_over_posts_of_the_same_slug(site):
    post = create(site, title="Twin", date=MAY_6)
    page = create(site, "page", title="Twin")
    assert (post.slug, page.slug) == ("twin", "twin")
    assert at(site, ctx(site), "/twin/") == item(page)
    assert at(site, ctx(site), "/twin/2/") == Target("item", item_id=page.id, page=2)
    dated = ctx(site, permalink_structure=DATED)
    assert at(site, dated, "/twin/") == item(page)
    assert at(site, dated, "/2024/05/06/twin/") == item(post)
    assert at(site, ctx(site), "/?name=twin") == item(post)
    assert at(site, ctx(site), "/?pagename=twin") == item(page)


def test_a_trashed_page_does_not_hide_a_post(site):
    post = create(site, title="Shared", date=MAY_6)
    page = create(site, "page", title="Other", slug="shared-page")
    with site.write() as conn:
        from calpress.store.tables import posts

        conn.execute(sa.update(posts).where(posts.c.id == page.id).values(status="trash", slug="shared"))
    assert at(site, ctx(site), "/shared/") == item(post)


def test_nested_page_paths(site):
    context = ctx(site)
    parent = create(site, "page", title="Parent")
    child = create(site, "page", title="Child", parent=parent.id)
    other = create(site, "page", title="Other")
    create(site, "page", title="Child", parent=other.id)
    assert at(site, context, "/parent/child/") == item(child)
    assert at(site, context, "/parent/child") == item(child)
    assert at(site, context, "parent/child") == item(child)
    assert at(site, context, "/parent/child/2/") == Target("item", item_id=child.id, page=2)
    assert at(site, context, "/?pagename=parent/child") == item(child)
    assert at(site, context, "/?pagename=parent/child&page=4") == Target("item", item_id=child.id, page=4)
    assert at(site, context, "/child/") is None  # not at the top
    assert at(site, context, "/wrong/child/") is None
    assert at(site, context, "/parent/child/extra/") is None
    assert at(site, context, "/parent//child/") is None


def test_percent_encoded_and_utf8_slugs(site):
    context = ctx(site)
    post = create(site, title="日本語")
    page = create(site, "page", title="Über uns")
    child = create(site, "page", title="Ελλάδα", parent=page.id)
    assert post.slug == "%e6%97%a5%e6%9c%ac%e8%aa%9e"
    assert at(site, context, items.permalink(context, post)) == item(post)
    assert at(site, context, "/日本語/") == item(post)
    assert at(site, context, "/%E6%97%A5%E6%9C%AC%E8%AA%9E/") == item(post)
    assert at(site, context, "/?name=日本語") == item(post)
    address = items.permalink(context, child, uri=uri_of(site, child))
    assert at(site, context, address) == item(child)
    assert at(site, context, "/über-uns/ελλάδα/") == item(child)
    assert at(site, context, "/" + quote("über-uns/ελλάδα") + "/") == item(child)


def test_dates_must_match(site):
    dated = ctx(site, permalink_structure=DATED)
    post = create(site, title="Hello", date=MAY_6)
    assert at(site, dated, "/2024/05/06/hello/") == item(post)
    assert at(site, dated, "/2024/5/6/hello/") == item(post)
    assert at(site, dated, "/2023/05/06/hello/") is None
    assert at(site, dated, "/2024/06/06/hello/") is None
    assert at(site, dated, "/2024/05/07/hello/") is None
    assert at(site, dated, "/2024/05/06/nothing/") is None
    assert at(site, dated, "/2024/05/06/") is None  # a date archive: not resolved here
    assert at(site, dated, "/2024/") is None
    assert at(site, ctx(site), "/2024/") is None
    timed = ctx(site, permalink_structure="/%year%/%hour%-%minute%-%second%/%postname%.html")
    assert items.permalink(timed, post) == f"{HOME}/2024/07-08-09/hello.html"
    assert at(site, timed, items.permalink(timed, post)) == item(post)
    assert at(site, timed, "/2024/07-08-10/hello.html") is None
    assert at(site, ctx(site), f"/?p={post.id}&year=2024&monthnum=5") == item(post)
    assert at(site, ctx(site), f"/?p={post.id}&year=2025") is None
    assert at(site, ctx(site), f"/?p={post.id}&m=202405") == item(post)
    assert at(site, ctx(site), f"/?p={post.id}&m=202406") is None


def test_the_post_structure_names_posts_only(site):
    archives = ctx(site, permalink_structure=ARCHIVES)
    post = create(site, title="Hello")
    page = create(site, "page", title="About")
    assert at(site, archives, f"/archives/{post.id}") == item(post)
    assert at(site, archives, f"/archives/{post.id}/2") == Target("item", item_id=post.id, page=2)
    assert at(site, archives, f"/archives/{page.id}") is None
    assert at(site, archives, "/archives/99999") is None
    assert at(site, archives, "/hello/") is None  # no post rule matches, and no page "hello"


# -- plain forms ----------------------------------------------------------------------------------


def test_plain_query_forms(site):
    context = ctx(site)
    post = create(site, title="Hello")
    page = create(site, "page", title="About")
    media = create(site, "attachment", title="Photo", status="inherit", mime_type="image/jpeg")
    event = create(site, "cal_events", title="Party")
    venue = create(site, "cal_venue", title="Hall")
    organizer = create(site, "cal_organizer", title="Club")
    assert at(site, context, f"/?p={post.id}") == item(post)
    assert at(site, context, f"/?p={page.id}") == item(page)  # any public type
    assert at(site, context, f"/?p={event.id}") == item(event)
    assert at(site, context, f"/?page_id={page.id}") == item(page)
    assert at(site, context, f"/?attachment_id={media.id}") == item(media)
    assert at(site, context, "/?attachment=photo") == item(media)
    assert at(site, context, f"/?post_type=cal_events&p={event.id}") == item(event)
    assert at(site, context, f"/?post_type=cal_venue&p={event.id}") is None
    assert at(site, context, f"/?post_type=page&p={post.id}") is None
    assert at(site, context, "/?cal_events=party") == item(event)
    assert at(site, context, "/?cal_venue=hall") == item(venue)
    assert at(site, context, "/?cal_organizer=club") == item(organizer)
    assert at(site, context, "/?post_type=cal_venue&name=hall") == item(venue)
    assert at(site, context, "/?name=hello") == item(post)
    assert at(site, context, "/?name=party") is None  # name alone names posts
    assert at(site, context, f"/?p={post.id}&name=hello") == item(post)
    assert at(site, context, f"/?p={post.id}&name=other") is None
    assert at(site, context, f"/?p={post.id}&page_id={page.id}") is None
    assert at(site, context, f"/?p={post.id}&page=2") == Target("item", item_id=post.id, page=2)
    assert at(site, context, "/", {"p": [str(page.id), str(post.id)]}) == item(post)  # the last counts
    assert at(site, context, "/", {"p": post.id}) == item(post)


def test_types_that_are_not_publicly_queryable(site):
    context = ctx(site)
    block = create(site, "wp_block", title="Pattern")
    post = create(site, title="Hello")
    updated = items.ItemChanges(content="changed")
    with site.write() as conn:
        items.update_item(conn, context, post, updated)
        from calpress.store.tables import posts

        revision = conn.execute(sa.select(posts.c.id).where(posts.c.type == "revision")).scalar()
        record = conn.execute(
            sa.insert(posts)
            .values(type="cal-ea-record", status="cal-ea-success", slug="record", title="r",
                    date_local=MAY_6[0], date_utc=MAY_6[1], modified_local=MAY_6[0], modified_utc=MAY_6[1])
            .returning(posts.c.id)
        ).scalar_one()
    assert revision
    for hidden in (block.id, revision, record):
        assert at(site, context, f"/?p={hidden}") is None
        assert at(site, context, f"/?page_id={hidden}") is None
    assert at(site, context, "/?post_type=wp_block&name=pattern") is None
    assert at(site, context, "/?post_type=revision&p=1") is None
    assert at(site, context, "/?taxonomy=wp_pattern_category&term=x") is None


# -- archives -------------------------------------------------------------------------------------


@pytest.mark.parametrize("structure", [POSTNAME, DATED, ARCHIVES])
def test_category_and_tag_archives(site, structure):
    context = ctx(site, permalink_structure=structure)
    music = add_term(site, "category", "Music")
    jazz = add_term(site, "category", "Jazz", parent=music.id)
    bebop = add_term(site, "category", "Bebop", parent=jazz.id)
    tag = add_term(site, "post_tag", "Live")
    for taxonomy, term in (("category", music), ("category", jazz), ("category", bebop), ("post_tag", tag)):
        address = term_link(site, taxonomy, term)
        expected = Target("term", taxonomy=taxonomy, term_id=term.id)
        assert at(site, context, address) == expected, address
        assert at(site, context, address + "page/3/") == Target("term", taxonomy=taxonomy, term_id=term.id, page=3)
        assert at(site, context, address + "?paged=2") == Target("term", taxonomy=taxonomy, term_id=term.id, page=2)
    assert term_link(site, "category", bebop) == f"{HOME}/category/music/jazz/bebop/"
    assert at(site, context, "/category/bebop/") == Target("term", taxonomy="category", term_id=bebop.id)
    assert at(site, context, "/category/nothing/") is None
    assert at(site, context, "/tag/nothing/") is None
    assert at(site, context, "/tag/live/extra/") is None


def test_category_and_tag_query_forms(site):
    context = ctx(site, permalink_structure=PLAIN)
    jazz = add_term(site, "category", "Jazz")
    tag = add_term(site, "post_tag", "Live")
    other_tag = add_term(site, "post_tag", "Studio")
    expected = Target("term", taxonomy="category", term_id=jazz.id)
    assert at(site, context, f"/?cat={jazz.id}") == expected
    assert at(site, context, f"/?cat={jazz.id}&paged=2") == Target("term", taxonomy="category", term_id=jazz.id, page=2)
    assert at(site, context, "/?category_name=jazz") == expected
    assert at(site, context, "/?category_name=music/jazz") == expected
    assert at(site, context, "/?taxonomy=category&term=jazz") == expected
    live = Target("term", taxonomy="post_tag", term_id=tag.id)
    assert at(site, context, "/?tag=live") == live
    assert at(site, context, "/?tag=live,studio") == live
    assert at(site, context, f"/?tag_id={other_tag.id}") == Target("term", taxonomy="post_tag", term_id=other_tag.id)
    assert at(site, context, f"/?cat={tag.id}") is None  # a tag's id
    assert at(site, context, "/?cat=abc") is None
    assert at(site, context, "/?cat=-3") is None
    assert at(site, context, "/?tag=nothing") is None
    assert at(site, context, "/?taxonomy=nothing&term=jazz") is None


def test_category_and_tag_bases(site):
    context = ctx(site, category_base="/topics", tag_base="labels/")
    jazz = add_term(site, "category", "Jazz")
    tag = add_term(site, "post_tag", "Live")
    assert at(site, context, "/topics/jazz/") == Target("term", taxonomy="category", term_id=jazz.id)
    assert at(site, context, "/labels/live/page/2/") == Target("term", taxonomy="post_tag", term_id=tag.id, page=2)
    assert at(site, context, "/category/jazz/") is None
    assert at(site, context, "/tag/live/") is None


def test_event_categories(site):
    context = ctx(site)
    parties = add_term(site, "cal_events_cat", "Parties")
    address = term_link(site, "cal_events_cat", parties)
    assert address == f"{HOME}/events/category/parties/"
    assert at(site, context, address) is None  # the calendar's own view
    expected = Target("term", taxonomy="cal_events_cat", term_id=parties.id)
    assert at(site, context, "/?cal_events_cat=parties") == expected
    assert at(site, context, "/?taxonomy=cal_events_cat&term=parties") == expected
    assert at(site, ctx(site, permalink_structure=PLAIN), "/?cal_events_cat=parties&paged=2") == Target(
        "term", taxonomy="cal_events_cat", term_id=parties.id, page=2
    )
    assert at(site, context, "/?cal_events_cat=nothing") is None


@pytest.mark.parametrize("structure", [POSTNAME, ARCHIVES, PLAIN])
def test_author_archives(site, structure):
    context = ctx(site, permalink_structure=structure)
    jane = add_user(site, "Jane Doe")
    assert jane.nicename == "jane-doe"
    expected = Target("author", user_id=jane.id)
    assert at(site, context, "/author/jane-doe/") == expected
    assert at(site, context, f"/?author={jane.id}") == expected
    assert at(site, context, "/?author_name=jane-doe") == expected
    assert at(site, context, f"/?author={jane.id}&paged=2") == Target("author", user_id=jane.id, page=2)
    assert at(site, context, "/author/nobody/") is None
    assert at(site, context, "/?author=99999") is None
    assert at(site, context, "/?author=1,2") is None
    if structure:
        assert at(site, context, "/author/jane-doe/page/2/") == Target("author", user_id=jane.id, page=2)


def test_search_front_and_paging(site):
    context = ctx(site)
    assert at(site, context, "/") == Target("front")
    assert at(site, context, "") == Target("front")
    assert at(site, context, "/index.php") == Target("front")
    assert at(site, context, "/page/2/") == Target("front", page=2)
    assert at(site, context, "/page/0/") == Target("front")
    assert at(site, context, "/?paged=3") == Target("front", page=3)
    assert at(site, context, "/?utm_source=news&preview=x") == Target("front")
    assert at(site, context, "/?s=hello+world") == Target("search", search="hello world")
    assert at(site, context, "/?s=") == Target("search")
    assert at(site, context, "/?s=jazz&paged=2") == Target("search", search="jazz", page=2)
    assert at(site, context, "/search/hello+world/") == Target("search", search="hello world")
    assert at(site, context, "/search/caf%C3%A9/page/4/") == Target("search", search="café", page=4)
    assert at(site, context, "/?s=" + "x" * 2000) == Target("search")  # the reference's bound
    plain = ctx(site, permalink_structure=PLAIN)
    assert at(site, plain, "/?paged=2") == Target("front", page=2)
    assert at(site, plain, "/page/2/") is None
    assert at(site, plain, "/search/jazz/") is None


def test_the_static_front_page(site):
    page = create(site, "page", title="Welcome")
    context = ctx(site, show_on_front="page", page_on_front=page.id)
    assert items.permalink(context, page) == f"{HOME}/"
    assert at(site, context, items.permalink(context, page)) == Target("front")
    assert at(site, context, f"/?page_id={page.id}") == item(page)


# -- nothing --------------------------------------------------------------------------------------


def test_unknown_and_malformed_addresses(site):
    context = ctx(site)
    post = create(site, title="Hello")
    event = create(site, "cal_events", title="Party")
    nothing = [
        "/nothing/", "/hello/extra/", "/event/nothing/", "/venue/party/", f"/?p={post.id + 1000}",
        "/?p=abc", "/?p=-1", f"/?p={10**30}", "/?p=1.5", "/?page_id=x", "/?paged=two", "/?page=-2",
        "/?name=nothing", "/?pagename=nothing", "/?post_type=nothing&p=1", "/?cal_events=nothing",
        "/events/", "/events", "/events/list/", "/events/month/2024-05/", "/events/category/x/",
        "/hello/feed/", "/?feed=rss2", "/?year=2024", "/?m=2024", "/?post_type=cal_events",
        f"/?p={post.id}&year=abc", "/?m=20x4", f"/page/{10**30}/", "/" + "a" * 10000 + "/",
    ]
    for address in nothing:
        assert at(site, context, address) is None, address
    assert at(site, ctx(site, permalink_structure=PLAIN), "/hello/") is None
    assert at(site, ctx(site, permalink_structure=PLAIN), "/event/party/") is None
    assert at(site, context, f"/?p={event.id}") == item(event)  # the control


def test_a_resolution_costs_a_few_indexed_queries(site):
    context = ctx(site)
    parent = create(site, "page", title="Parent")
    child = create(site, "page", title="Child", parent=parent.id)
    for n in range(30):
        create(site, title=f"Filler {n}")
    statements = []

    def count(*args):
        if args[2].lstrip().upper().startswith("SELECT"):
            statements.append(args[2])

    sa.event.listen(site.engine, "before_cursor_execute", count)
    try:
        assert at(site, context, "/parent/child/") == item(child)
        assert len(statements) <= 2
        statements.clear()
        assert at(site, context, "/filler-7/") is not None
        assert len(statements) <= 2
    finally:
        sa.event.remove(site.engine, "before_cursor_execute", count)


# -- any input ------------------------------------------------------------------------------------

SEGMENT = st.one_of(
    st.sampled_from(["", "page", "2", "0", "-1", "events", "category", "tag", "author", "search", "event",
                     "hello", "2024", "05", "%", "%E6%97%A5", "%ff%fe", "%00", "..", "\x00", "日本語", "99999999999999999999999"]),
    st.text(max_size=12),
)
PATHS = st.lists(SEGMENT, max_size=8).map(lambda parts: "/" + "/".join(parts))
NAMES = st.sampled_from(["p", "page_id", "attachment_id", "name", "pagename", "post_type", "cal_events", "cat",
                         "category_name", "tag", "tag_id", "taxonomy", "term", "author", "author_name", "s", "paged",
                         "page", "year", "monthnum", "day", "m", "attachment", "feed", "x"])
VALUES = st.one_of(
    st.text(max_size=20), st.integers(), st.sampled_from(["1", "-1", "0", "", " ", "page", "a,b", "hello/world"]),
    st.lists(st.text(max_size=5), max_size=3), st.none(), st.dictionaries(st.text(max_size=3), st.text(max_size=3)),
    st.just("x" * 10000),
)
QUERIES = st.dictionaries(st.one_of(NAMES, st.text(max_size=5)), VALUES, max_size=5)


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(path=st.one_of(PATHS, st.text(max_size=40), st.just("/" + "é" * 10000)), query=QUERIES,
       structure=st.sampled_from([*STRUCTURES, "/%category%/%postname%/", "/%author%/%post_id%/", "%", "/%foo%/"]))
@example(path="/hello/", query={"p": "\x00"}, structure=POSTNAME)
@example(path="/\ud800/", query={"name": "\ud800", "s": "\ud800"}, structure=POSTNAME)
@example(path="/2024/13/45/hello/", query={}, structure=DATED)
@example(path="/", query={"p": str(2**63)}, structure=POSTNAME)
def test_any_address_gives_a_target_or_none(site, path, query, structure):
    context = ctx(site, permalink_structure=structure)
    with site.read() as conn:
        found = resolve(conn, context, path, query)
        assert found is None or isinstance(found, Target)
        assert conn.execute(sa.select(1)).scalar() == 1  # the connection is still usable
