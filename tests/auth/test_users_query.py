"""calpress.auth.users.query_users and has_published: users filtered, sorted and paged in SQL, on
both databases, against hand-written answers and against the Python listing they replaced."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from calpress.auth import users
from calpress.auth.roles import ROLE_CAPS
from calpress.auth.users import User, UserQuery
from calpress.store import db
from calpress.store.tables import posts
from calpress.store.tables import users as users_table

DAY = dt.datetime(2024, 1, 1, 9, 0)
REST_TYPES = ("post", "page", "attachment", "wp_block", "cal_events", "cal_venue", "cal_organizer")

# login, display name, email, url, days after DAY registered, roles, extra_caps
PEOPLE: list[tuple[str, str, str, str, int, list[str], dict[str, Any]]] = [
    ("ann", "Ann", "Ann@Example.test", "https://b.example", 0, ["administrator"], {}),
    ("bob", "bob", "bob@example.test", "", 1, ["editor"], {}),
    ("ann2", "ann", "ann2@example.test", "https://a.example", 0, ["author"], {}),
    ("carl", "Carl_100%", "carl@EXAMPLE.test", "https://b.example", 2, ["contributor"], {"upload_files": True}),
    ("dora", "Dora\\Back", "dora@example.test", "", 2, ["subscriber"], {"edit_posts": True, "read": False}),
    ("eve", "Eve", "eve@example.test", "http://z.example", 3, ["editor", "author"], {"edit_posts": False}),
    ("finn", "Finn", "finn@example.test", "", 4, [], {}),
    ("gus", "Gus", "gus_x@example.test", "", 4, ["shopkeeper"], {"manage_shop": True, "list_users": 1}),
    ("hal", "Zed", "Hal@example.test", "", 1, ["subscriber"], {"editor": True}),
    ("ida", "Ida 50%", "ida@example.test", "https://b.example", 3, ["author"], {"author": False}),
]

# author login, type, status
CONTENT = [
    ("ann", "post", "publish"),
    ("bob", "post", "draft"),
    ("ann2", "page", "publish"),
    ("carl", "cal_events", "publish"),
    ("dora", "nav_menu_item", "publish"),
    ("eve", "post", "private"),
    ("eve", "post", "trash"),
]


def insert_user(conn: sa.Connection, login: str, name: str = "", email: str = "", url: str = "", days: int = 0,
                roles: list[str] | None = None, extra: dict[str, Any] | None = None, nicename: str = "") -> int:
    values = {
        "login": login, "email": email or f"{login}@example.test", "display_name": name or login,
        "nicename": nicename or login, "url": url, "registered_utc": DAY + dt.timedelta(days=days),
        "roles": ["subscriber"] if roles is None else roles, "extra_caps": extra or {},
    }
    return conn.execute(sa.insert(users_table).values(**values).returning(users_table.c.id)).scalar_one()


def add_item(conn: sa.Connection, author: int, type_: str = "post", status: str = "publish") -> None:
    conn.execute(
        sa.insert(posts).values(
            type=type_, status=status, author=author, slug="", title="t",
            date_local=DAY, date_utc=DAY, modified_local=DAY, modified_utc=DAY,
        )
    )


@pytest.fixture()
def people(engine: sa.Engine) -> dict[str, int]:
    """The PEOPLE and their CONTENT; login -> id."""
    with db.write_transaction(engine) as conn:
        ids = {login: insert_user(conn, login, name, email, url, days, roles, extra) for login, name, email, url, days, roles, extra in PEOPLE}
        for login, type_, status in CONTENT:
            add_item(conn, ids[login], type_, status)
    return ids


@pytest.fixture()
def conn(engine: sa.Engine) -> Iterator[sa.Connection]:
    with db.read_connection(engine) as connection:
        yield connection


def run(conn: sa.Connection, **fields: Any) -> tuple[list[str], int]:
    """Logins of the page and the total."""
    found, total = users.query_users(conn, UserQuery(**{"per_page": 100, **fields}), role_caps=ROLE_CAPS)
    return [u.login for u in found], total


def logins(conn: sa.Connection, **fields: Any) -> list[str]:
    found, total = run(conn, **fields)
    assert total == len(found)
    return found


# -- the Python listing that query_users replaced (api/cms_users.py before the move) ------------


def old_sort(found: list[User], query: UserQuery) -> list[User]:
    """``_sort_users`` as it was, reading the query instead of the request parameters."""
    orderby = query.orderby or "name"
    descending = query.order == "desc"
    if orderby == "include" and query.include:
        position = {uid: i for i, uid in enumerate(query.include)}
        return sorted(found, key=lambda u: position.get(u.id, len(position)), reverse=descending)
    if orderby == "include_slugs" and query.slugs:
        position = {slug: i for i, slug in enumerate(query.slugs)}
        return sorted(found, key=lambda u: position.get(u.nicename, len(position)), reverse=descending)
    keys = {
        "id": lambda u: u.id,
        "name": lambda u: (u.display_name.lower(), u.id),
        "registered_date": lambda u: (u.registered_utc, u.id),
        "slug": lambda u: (u.nicename, u.id),
        "email": lambda u: (u.email.lower(), u.id),
        "url": lambda u: (u.url, u.id),
        "include": lambda u: u.id,
        "include_slugs": lambda u: u.id,
    }
    return sorted(found, key=keys.get(orderby, keys["name"]), reverse=descending)


def old_listing(conn: sa.Connection, query: UserQuery) -> tuple[list[int], int]:
    """Every user loaded, then filtered, sorted and sliced in Python, as the handler did."""
    everyone = [users.user_from_row(row) for row in conn.execute(sa.select(users_table))]
    published = set(conn.execute(sa.select(posts.c.author, posts.c.type).where(posts.c.status == "publish")).all())

    def has_published(user: User, types: Any) -> bool:
        return any((user.id, t) in published for t in types)

    def searched(user: User, column: str) -> str:
        return str({"id": user.id, "username": user.login, "slug": user.nicename, "email": user.email, "name": user.display_name}[column])

    found = everyone
    if query.include:
        found = [u for u in found if u.id in query.include]
    if query.exclude:
        found = [u for u in found if u.id not in query.exclude]
    if query.slugs:
        found = [u for u in found if u.nicename in query.slugs]
    if query.published_in is not None:
        found = [u for u in found if has_published(u, query.published_in)]
    if query.authors_only:
        found = [u for u in found if any(u.has_cap(level) for level in users.AUTHOR_LEVELS)]
    if query.search:
        needle = query.search.lower()
        found = [u for u in found if any(needle in searched(u, c).lower() for c in query.search_columns)]
    if query.roles:
        found = [u for u in found if set(query.roles).intersection(u.roles)]
    if query.capabilities:
        found = [u for u in found if any(u.has_cap(cap) for cap in query.capabilities)]
    found = old_sort(found, query)
    start = query.offset if query.offset else (query.page - 1) * query.per_page
    return [u.id for u in found[start : start + query.per_page]], len(found)


# -- filters ----------------------------------------------------------------------------------------


def test_no_filter_lists_everyone_by_name(conn, people):
    assert logins(conn) == ["ann", "ann2", "bob", "carl", "dora", "eve", "finn", "gus", "ida", "hal"]


def test_include_exclude_and_slugs(conn, people):
    ids = people
    assert logins(conn, include=[ids["eve"], ids["bob"], 999999], orderby="id") == ["bob", "eve"]
    assert logins(conn, exclude=[ids["ann"], ids["hal"]], orderby="id") == [
        "bob", "ann2", "carl", "dora", "eve", "finn", "gus", "ida",
    ]
    assert logins(conn, include=[ids["ann"], ids["bob"]], exclude=[ids["bob"]]) == ["ann"]
    assert logins(conn, slugs=["gus", "ann", "nobody"], orderby="id") == ["ann", "gus"]
    assert logins(conn, include=[], exclude=[], slugs=[]) == logins(conn)  # empty lists filter nothing


def test_published_in_counts_published_items_of_those_types_only(conn, people):
    assert logins(conn, published_in=["post"]) == ["ann"]  # bob's draft, eve's private and trashed posts do not count
    assert logins(conn, published_in=["post", "page"]) == ["ann", "ann2"]
    assert logins(conn, published_in=REST_TYPES) == ["ann", "ann2", "carl"]
    assert logins(conn, published_in=["nav_menu_item"]) == ["dora"]
    assert logins(conn, published_in=[]) == []
    assert len(logins(conn, published_in=None)) == len(PEOPLE)


def test_has_published(conn, people):
    assert users.has_published(conn, people["ann"], REST_TYPES) is True
    assert users.has_published(conn, people["ann"], ["page"]) is False
    assert users.has_published(conn, people["ann2"], ["page"]) is True
    assert users.has_published(conn, people["bob"], REST_TYPES) is False  # a draft
    assert users.has_published(conn, people["eve"], REST_TYPES) is False  # private and trash
    assert users.has_published(conn, people["dora"], REST_TYPES) is False
    assert users.has_published(conn, people["dora"], ["nav_menu_item"]) is True
    assert users.has_published(conn, people["ann"], []) is False
    assert users.has_published(conn, 999999, REST_TYPES) is False


def test_authors_are_the_users_of_a_level_above_zero(conn, people):
    # The reference's who=authors (user_level != 0): contributors and up, whatever they published;
    # not dora (a subscriber given edit_posts), finn (no role), gus (an unknown role) nor hal.
    assert logins(conn, authors_only=True, orderby="id") == ["ann", "bob", "ann2", "carl", "eve", "ida"]


def test_roles_match_any_of_the_stored_roles(conn, people):
    assert logins(conn, roles=["editor"], orderby="id") == ["bob", "eve"]
    assert logins(conn, roles=["author"], orderby="id") == ["ann2", "eve", "ida"]
    assert logins(conn, roles=["subscriber", "administrator"], orderby="id") == ["ann", "dora", "hal"]
    assert logins(conn, roles=["shopkeeper"]) == ["gus"]  # not a known role, but stored
    assert logins(conn, roles=["king"]) == []
    assert logins(conn, roles=["editor", "editor"], orderby="id") == ["bob", "eve"]


def test_capabilities_from_roles_and_extra_caps(conn, people):
    # edit_posts: administrator, editor, author, contributor roles; dora's extra grant; eve's extra
    # denial beats her editor and author roles.
    assert logins(conn, capabilities=["edit_posts"], orderby="id") == ["ann", "bob", "ann2", "carl", "dora", "ida"]
    # read: every known role, but dora's denial revokes it; finn (no role) and gus (unknown role) lack it.
    assert logins(conn, capabilities=["read"], orderby="id") == ["ann", "bob", "ann2", "carl", "eve", "hal", "ida"]
    # upload_files: admin, editor, author roles, carl's extra grant; eve's revoke is for edit_posts only.
    assert logins(conn, capabilities=["upload_files"], orderby="id") == ["ann", "bob", "ann2", "carl", "eve", "ida"]
    # a role name is a capability of its holders; hal is granted "editor" by extra_caps, ida's
    # "author" is revoked.
    assert logins(conn, capabilities=["editor"], orderby="id") == ["bob", "eve", "hal"]
    assert logins(conn, capabilities=["author"], orderby="id") == ["ann2", "eve"]
    # only JSON true grants: gus's list_users is 1.
    assert logins(conn, capabilities=["list_users"]) == ["ann"]
    assert logins(conn, capabilities=["manage_shop"]) == ["gus"]
    assert logins(conn, capabilities=["manage_shop", "list_users"], orderby="id") == ["ann", "gus"]
    assert logins(conn, capabilities=["no_such_cap"]) == []


def test_capabilities_agree_with_user_has_cap(conn, people):
    everyone = [users.user_from_row(row) for row in conn.execute(sa.select(users_table))]
    caps = sorted({cap for role_caps in ROLE_CAPS.values() for cap in role_caps} | set(ROLE_CAPS) | {"manage_shop", "list_users", "nope"})
    for cap in caps:
        expected = sorted(u.login for u in everyone if u.has_cap(cap))
        assert sorted(logins(conn, capabilities=[cap])) == expected, cap


def test_capabilities_follow_the_role_table_given(conn, people):
    table = {"subscriber": ["read", "edit_posts"], "editor": ["read"]}
    found, _ = users.query_users(conn, UserQuery(capabilities=["edit_posts"], orderby="id"), role_caps=table)
    # subscribers now edit posts (dora by her grant, hal by his role); editors do not (bob, eve).
    assert [u.login for u in found] == ["dora", "hal"]


def test_search_columns_and_like_metacharacters(conn, people):
    assert logins(conn, search="ann", orderby="id") == ["ann", "ann2"]
    assert logins(conn, search="ANN", search_columns=["name"], orderby="id") == ["ann", "ann2"]
    assert logins(conn, search="%") == ["carl", "ida"]  # a literal percent sign, not "anything"
    assert logins(conn, search="_1") == ["carl"]  # "Carl_100%"; an unescaped _ would match any character
    assert logins(conn, search="_", orderby="id") == ["carl"]  # gus_x is in the email, not searched here
    assert logins(conn, search="_", search_columns=["email"], orderby="id") == ["gus"]
    assert logins(conn, search="\\", orderby="id") == ["dora"]
    assert logins(conn, search="a\\b", orderby="id") == ["dora"]
    assert logins(conn, search="0%") == ["carl", "ida"]
    assert logins(conn, search="example.test") == []  # emails only when asked for
    assert len(logins(conn, search="EXAMPLE.TEST", search_columns=["email"])) == len(PEOPLE)
    assert logins(conn, search="hal", search_columns=["username"]) == ["hal"]
    assert logins(conn, search="hal", search_columns=["name"]) == []
    assert logins(conn, search="ann-", search_columns=["slug"]) == []
    assert logins(conn, search=str(people["ida"]), search_columns=["id"]) == ["ida"]
    with pytest.raises(ValueError):
        run(conn, search="x", search_columns=["password_hash"])


def test_filters_combine(conn, people):
    assert logins(conn, roles=["author", "editor"], capabilities=["edit_posts"], orderby="id") == ["bob", "ann2", "ida"]
    assert logins(conn, published_in=REST_TYPES, search="a", orderby="id") == ["ann", "ann2", "carl"]
    assert logins(conn, published_in=REST_TYPES, exclude=[people["ann"]]) == ["ann2", "carl"]


# -- order --------------------------------------------------------------------------------------------


def test_orders_by_hand(conn, people):
    assert logins(conn, orderby="name", order="desc") == ["hal", "ida", "gus", "finn", "eve", "dora", "carl", "bob", "ann2", "ann"]
    # registered the same day: by id (ann before ann2, bob before hal, carl before dora ...).
    assert logins(conn, orderby="registered_date") == ["ann", "ann2", "bob", "hal", "carl", "dora", "eve", "ida", "finn", "gus"]
    assert logins(conn, orderby="registered_date", order="desc") == ["gus", "finn", "ida", "eve", "dora", "carl", "hal", "bob", "ann2", "ann"]
    # lower-cased, by code point: "ann2@" before "ann@" ("2" < "@"), "Hal@" among the h's.
    assert logins(conn, orderby="email") == ["ann2", "ann", "bob", "carl", "dora", "eve", "finn", "gus", "hal", "ida"]
    # empty urls first (by id), then by code point ("http:" before "https"), ties by id.
    assert logins(conn, orderby="url") == ["bob", "dora", "finn", "gus", "hal", "eve", "ann2", "ann", "carl", "ida"]
    assert logins(conn, orderby="url", order="desc") == ["ida", "carl", "ann", "ann2", "eve", "hal", "gus", "finn", "dora", "bob"]
    assert logins(conn, orderby="slug") == ["ann", "ann2", "bob", "carl", "dora", "eve", "finn", "gus", "hal", "ida"]
    assert logins(conn, orderby="id", order="desc") == [p[0] for p in reversed(PEOPLE)]


def test_include_and_include_slugs_orders(conn, people):
    ids = people
    include = [ids["gus"], ids["ann"], ids["eve"]]
    assert logins(conn, include=include, orderby="include") == ["gus", "ann", "eve"]
    assert logins(conn, include=include, orderby="include", order="desc") == ["eve", "ann", "gus"]
    # a repeated id takes its last position (as the dict of positions did)
    assert logins(conn, include=[ids["eve"], ids["ann"], ids["eve"]], orderby="include") == ["ann", "eve"]
    assert logins(conn, slugs=["ida", "bob", "carl"], orderby="include_slugs") == ["ida", "bob", "carl"]
    assert logins(conn, slugs=["ida", "bob", "carl"], orderby="include_slugs", order="desc") == ["carl", "bob", "ida"]
    # without their list they order by id
    assert logins(conn, orderby="include") == [p[0] for p in PEOPLE]
    assert logins(conn, orderby="include_slugs", order="desc") == [p[0] for p in reversed(PEOPLE)]
    with pytest.raises(ValueError):
        run(conn, orderby="password")


FILTER_SETS: list[dict[str, Any]] = [
    {},
    {"roles": ["author", "editor", "subscriber"]},
    {"capabilities": ["edit_posts", "upload_files"]},
    {"published_in": REST_TYPES},
    {"authors_only": True},
    {"search": "a", "search_columns": ["name", "email"]},
    {"slugs": ["hal", "ann", "eve", "ida", "nobody"]},
    {"include": "ids"},
]


@pytest.mark.parametrize("orderby, order", list(itertools.product(users.USER_ORDERBY, ("asc", "desc"))))
def test_every_order_matches_the_python_sort(conn, people, orderby, order):
    for filters in FILTER_SETS:
        if filters.get("include") == "ids":
            filters = {"include": [people["ida"], people["ann"], people["carl"], people["ann2"], people["finn"]]}
        for page, per_page, offset in ((1, 100, None), (1, 3, None), (2, 3, None), (4, 3, None), (9, 3, None), (1, 4, 5)):
            query = UserQuery(orderby=orderby, order=order, page=page, per_page=per_page, offset=offset, **filters)
            found, total = users.query_users(conn, query, role_caps=ROLE_CAPS)
            assert ([u.id for u in found], total) == old_listing(conn, query), (filters, page, per_page, offset)


def linguistic_collation(engine: sa.Engine, db_leg: str) -> None:
    """PostgreSQL: give the text columns a linguistic collation (ICU's root locale), as a database
    created with e.g. en_US.UTF-8 would have by default, so that only an explicit code-point
    collation in the query gives Python's order. (The test database's C.UTF-8 sorts by code point
    already.)"""
    if db_leg != "postgresql":
        return
    with db.write_transaction(engine) as conn:
        if conn.execute(sa.text("SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'")).scalar_one() == 0:
            pytest.skip("PostgreSQL built without ICU")
        for column, size in (("display_name", 250), ("email", 100), ("nicename", 50), ("url", 100)):
            conn.exec_driver_sql(f'ALTER TABLE users ALTER COLUMN {column} TYPE varchar({size}) COLLATE "und-x-icu"')


def test_names_sort_lowered_as_python_lowers(engine, db_leg):
    linguistic_collation(engine, db_leg)
    names = ["Émile", "ebert", "éa", "Zoë", "zara", "Ωmega", "ωa", "ÉA"]
    with db.write_transaction(engine) as conn:
        for i, name in enumerate(names):
            insert_user(conn, f"u{i}", name, f"{name}@example.test")
    expected = sorted(range(len(names)), key=lambda i: (names[i].lower(), i))
    with db.read_connection(engine) as conn:
        if db_leg == "postgresql" and conn.execute(sa.text("SELECT lower('É')")).scalar_one() != "é":
            pytest.skip("this database's LC_CTYPE lowers ASCII only (see users._lowered)")
        found = [u.login for u in users.query_users(conn, UserQuery(orderby="name"), role_caps=ROLE_CAPS)[0]]
        by_email = [u.login for u in users.query_users(conn, UserQuery(orderby="email", order="desc"), role_caps=ROLE_CAPS)[0]]
    assert found == [f"u{i}" for i in expected]  # ebert, zara, Zoë, éa, ÉA, Émile, ωa, Ωmega
    assert by_email == [f"u{i}" for i in reversed(expected)]


def test_text_keys_sort_by_code_point(engine, db_leg):
    # A linguistic collation puts "b" before "C" and ignores the dash; Python does not.
    linguistic_collation(engine, db_leg)
    slugs = ["b", "C", "-a", "a-b", "ab", "Z", "é"]
    with db.write_transaction(engine) as conn:
        for i, slug in enumerate(slugs):
            insert_user(conn, f"u{i}", nicename=slug, url=f"http://{slug}")
    with db.read_connection(engine) as conn:
        by_slug = [u.nicename for u in users.query_users(conn, UserQuery(orderby="slug"), role_caps=ROLE_CAPS)[0]]
        by_url = [u.url for u in users.query_users(conn, UserQuery(orderby="url", order="desc"), role_caps=ROLE_CAPS)[0]]
    assert by_slug == sorted(slugs) == ["-a", "C", "Z", "a-b", "ab", "b", "é"]
    assert by_url == sorted((f"http://{s}" for s in slugs), reverse=True)


# -- pages --------------------------------------------------------------------------------------------


def test_pages_and_offset_keep_the_full_total(conn, people):
    everyone = logins(conn, orderby="id")
    assert run(conn, orderby="id", per_page=4, page=1) == (everyone[:4], 10)
    assert run(conn, orderby="id", per_page=4, page=3) == (everyone[8:], 10)
    assert run(conn, orderby="id", per_page=4, offset=3) == (everyone[3:7], 10)
    assert run(conn, orderby="id", per_page=4, page=3, offset=1) == (everyone[1:5], 10)  # offset wins
    assert run(conn, orderby="id", per_page=4, offset=9) == (everyone[9:], 10)
    assert run(conn, orderby="id", per_page=4, page=4) == ([], 10)  # past the end
    assert run(conn, orderby="id", per_page=4, offset=10) == ([], 10)
    assert run(conn, roles=["editor"], per_page=1, page=5) == ([], 2)
    assert run(conn, roles=["king"], per_page=4, page=1) == ([], 0)
    assert run(conn, roles=["king"], per_page=4, page=2) == ([], 0)
    assert run(conn, orderby="id", per_page=-1) == (everyone, 10)


def count_statements(engine: sa.Engine, query: UserQuery) -> tuple[list[str], list[User], int]:
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    with db.read_connection(engine) as conn:
        conn.exec_driver_sql("SELECT 1")  # the SQLite leg's BEGIN comes first, outside the count
        sa.event.listen(engine, "before_cursor_execute", record)
        try:
            found, total = users.query_users(conn, query, role_caps=ROLE_CAPS)
        finally:
            sa.event.remove(engine, "before_cursor_execute", record)
    return statements, found, total


def test_a_page_costs_one_statement_whatever_the_number_of_users(engine):
    full = UserQuery(
        search="u", roles=["author", "subscriber"], capabilities=["read"], published_in=None, per_page=100, orderby="name"
    )
    past_end = UserQuery(per_page=10, page=50, orderby="email")
    costs = []
    for count in (5, 120):
        with db.write_transaction(engine) as conn:
            start = conn.execute(sa.select(sa.func.count()).select_from(users_table)).scalar_one()
            for i in range(start, count):
                insert_user(conn, f"u{i:03}", roles=["author" if i % 2 else "subscriber"])
        statements, found, total = count_statements(engine, full)
        assert total == count and len(found) == min(count, 100)
        late, none, late_total = count_statements(engine, past_end)
        assert none == [] and late_total == count
        costs.append((len(statements), len(late)))
    assert costs == [(1, 2), (1, 2)]  # the page with its total; past the end, a count too


# -- finding one user by login or email ----------------------------------------------------------------


@pytest.mark.new_schema
@pytest.mark.parametrize("field", ["login", "email"])
def test_users_are_found_by_lowered_login_or_email_through_an_index(engine, people, field):
    """Every Basic-authenticated request finds its user by ``lower(login)`` or ``lower(email)``
    (auth/app_passwords.py), as sign-ins and password resets do (``get_user_by``): indexed since
    migration 0012, instead of reading every user."""
    from calpress.auth.app_passwords import _USER_WITH_PASSWORD

    wanted = {"login": "ann", "email": "ann@example.test"}[field]
    with db.read_connection(engine) as conn:
        assert users.get_user_by(conn, field, wanted.upper()).login == "ann"
        sql = _USER_WITH_PASSWORD[field]._compile(conn.dialect)[0]
        if conn.dialect.name == "sqlite":
            plan = " ".join(str(row[3]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, ("x", wanted, 1, 0)))
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # ten users are read whole otherwise
            plan = " ".join(row[0] for row in conn.exec_driver_sql(
                "EXPLAIN " + sql, {"digest": "x", "value": wanted, "param_1": 1, "param_2": 0}).all())
    assert f"ix_users_lower_{field}" in plan, plan
