"""FastQuery (store/fast.py) against SQLAlchemy's own execution of the same statements: the
values it binds and the rows it converts must be the ones SQLAlchemy would bind and return."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from calpress.store.fast import FastQuery, bind_list, in_binds
from calpress.store.tables import INT64_MAX, posts

WHEN = dt.datetime(2031, 4, 5, 6, 7, 8, 123456)

_INSERT = FastQuery(
    sa.insert(posts).values(
        type="fasttest", status=sa.bindparam("status"), author=sa.null(), slug=sa.bindparam("slug"), parent=0,
        content="", excerpt="", password="", comment_status="open", ping_status="open", mime_type="", guid="", comment_count=0,
        title=sa.bindparam("title"), date_local=sa.bindparam("when", type_=posts.c.date_local.type),
        date_utc=sa.bindparam("when_utc", type_=posts.c.date_utc.type),
        modified_local=sa.bindparam("when", type_=posts.c.modified_local.type),
        modified_utc=sa.bindparam("when", type_=posts.c.modified_utc.type),
        menu_order=sa.bindparam("order", type_=posts.c.menu_order.type), meta=sa.bindparam("meta", type_=posts.c.meta.type),
    ).returning(posts.c.id, posts.c.slug, posts.c.date_local, posts.c.date_utc, posts.c.menu_order, posts.c.meta)
)


def _select() -> sa.Select:
    """A title found by id (a bind used twice), a type given as a literal, a LIMIT of the
    statement's own, and the datetime and JSON columns SQLAlchemy converts."""
    return (
        sa.select(posts.c.id, posts.c.title, posts.c.date_local, posts.c.date_utc, posts.c.meta, posts.c.menu_order)
        .where(posts.c.type == "fasttest", sa.or_(posts.c.id == sa.bindparam("id"), posts.c.parent == sa.bindparam("id")))
        .order_by(posts.c.id)
        .limit(5)
    )


def _insert(conn: sa.Connection, slug: str, **values) -> tuple:
    params = {"status": "draft", "slug": slug, "title": f"Title {slug}", "when": WHEN, "when_utc": None, "order": 3,
              "meta": {"k": [1, "two"]}, **values}
    return _INSERT.rows(conn, params)[0]


def test_rows_are_converted_as_sqlalchemy_converts_them(app) -> None:
    site = app.site
    with site.write() as conn:
        first = _insert(conn, "fast-one")
        second = _insert(conn, "fast-two", when_utc=WHEN, order=-7, meta={})
    # RETURNING: the values as stored, converted back.
    assert (first.slug, first.date_local, first.date_utc, first.menu_order, first.meta) == ("fast-one", WHEN, None, 3, {"k": [1, "two"]})
    assert (second.date_utc, second.menu_order, second.meta) == (WHEN, -7, {})
    statement = _select()
    with site.read() as conn:
        for item_id in (first.id, second.id):
            fast = FastQuery(statement).rows(conn, {"id": item_id})
            core = conn.execute(statement, {"id": item_id}).all()
            assert [tuple(row) for row in fast] == [tuple(row) for row in core] and len(fast) == 1
            assert fast[0]._fields == ("id", "title", "date_local", "date_utc", "meta", "menu_order")
            assert fast[0].date_local == WHEN and isinstance(fast[0].meta, dict)
        # raw rows come as the driver gives them; convert() makes one what rows() gives
        query = FastQuery(statement)
        raw = query.rows(conn, {"id": first.id}, raw=True)[0]
        converted = query.rows(conn, {"id": first.id})[0]
        assert type(raw) is not type(converted) and tuple(query.convert(conn.dialect, raw)) == tuple(converted)
        assert type(query.convert(conn.dialect, raw)) is type(converted)


def test_values_are_bound_as_sqlalchemy_binds_them(app) -> None:
    """A datetime bound as the column stores it, an id past 64 bits bound as the largest one (an
    unknown id, not an overflow), IN lists, and a statement's own literals."""
    site = app.site
    with site.write() as conn:
        made = _insert(conn, "fast-bind", when_utc=WHEN)
    by_date = FastQuery(sa.select(posts.c.id).where(posts.c.date_utc == sa.bindparam("when", type_=posts.c.date_utc.type)))
    huge = FastQuery(sa.select(posts.c.id).where(posts.c.id == sa.bindparam("id", type_=posts.c.id.type)))
    listed = FastQuery(sa.select(posts.c.id).where(in_binds(posts.c.id, "ids", 4)).order_by(posts.c.id))
    with site.read() as conn:
        assert [row.id for row in by_date.rows(conn, {"when": WHEN})] == [made.id]
        assert huge.rows(conn, {"id": 2**70}) == [] and huge.rows(conn, {"id": -(2**70)}) == []
        assert [row.id for row in huge.rows(conn, {"id": made.id})] == [made.id]
        assert [row.id for row in listed.rows(conn, bind_list("ids", [made.id, 2**80, made.id]))] == [made.id]
        # A literal default can be given all the same, as SQLAlchemy lets a bind's value be.
        limited = FastQuery(sa.select(posts.c.id).where(posts.c.type == "fasttest").order_by(posts.c.id).limit(sa.bindparam("n", 1)))
        assert len(limited.rows(conn)) == 1
        assert len(limited.rows(conn, {"n": 5})) == len(conn.execute(sa.select(posts.c.id).where(posts.c.type == "fasttest")).all())
    assert INT64_MAX == 2**63 - 1


def test_a_missing_value_fails_before_the_driver(app) -> None:
    with app.site.read() as conn:
        with pytest.raises(KeyError):
            FastQuery(_select()).rows(conn, {})
        with pytest.raises(KeyError):
            FastQuery(_select()).rows(conn)
