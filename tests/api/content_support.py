"""Helpers shared by the content tests: items written straight through the item service (so
that tests can set dates, authors and statuses the REST API would refuse), terms, and a counter
of the SQL statements a request runs."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from calpress.auth import users as user_store
from calpress.content import items, terms
from calpress.store.tables import posts


def context(app: Any, user_id: int | None = None) -> items.Context:
    """A service context acting as ``user_id`` (default: nobody; the service then skips the
    capability-dependent rules such as kses, so content is stored as given)."""
    site = app.site
    with site.read() as conn:
        user = user_store.get_user(conn, user_id) if user_id else None
    options = site.load_options()
    return items.Context.of(site, options=options, home="http://example.test", user=user or _Unfiltered())


class _Unfiltered:
    """A stand-in user for fixtures: may do anything (content is stored unfiltered)."""

    id = 0

    def can(self, capability: str, *args: Any) -> bool:
        return True

    def __bool__(self) -> bool:
        return True


def make_item(
    app: Any,
    type_: str = "post",
    *,
    title: str = "A post",
    content: str = "Body",
    excerpt: str = "",
    status: str = "publish",
    author: int | None = None,
    date: dt.datetime | None = None,
    slug: str | None = None,
    password: str | None = None,
    parent: int | None = None,
    menu_order: int | None = None,
    meta: dict[str, Any] | None = None,
    terms: dict[str, list[int]] | None = None,
    sticky: bool | None = None,
    format: str | None = None,
    featured_media: int | None = None,
) -> items.Item:
    """Create an item through the service; ``date`` is the site's wall time."""
    ctx = context(app)
    changes = items.ItemChanges(
        title=title,
        content=content,
        excerpt=excerpt,
        status=status,
        author=author,
        slug=slug,
        password=password,
        parent=parent,
        menu_order=menu_order,
        meta=meta,
        terms=terms or {},
        sticky=sticky,
        format=format,
        featured_media=featured_media,
    )
    if date is not None:
        changes.date = (date, items.to_utc(date, ctx.zone))
    with app.site.write() as conn:
        return items.create_item(conn, ctx, ctx.registry.types[type_], changes)


def make_image(app: Any, *, status: str = "inherit", author: int | None = None, parent: int = 0) -> int:
    """An image attachment row (media has a controller of its own; tests only need the row)."""
    now = dt.datetime(2026, 1, 1, 12, 0)
    with app.site.write() as conn:
        return conn.execute(
            sa.insert(posts)
            .values(
                type="attachment", status=status, author=author, parent=parent, slug=f"image-{now.timestamp()}",
                title="image", content="", excerpt="", mime_type="image/jpeg",
                date_local=now, date_utc=now, modified_local=now, modified_utc=now,
            )
            .returning(posts.c.id)
        ).scalar_one()


def make_revision(app: Any, parent: int) -> int:
    now = dt.datetime(2026, 1, 1, 12, 0)
    with app.site.write() as conn:
        return conn.execute(
            sa.insert(posts)
            .values(
                type="revision", status="inherit", parent=parent, slug=f"{parent}-revision-v1", title="r",
                content="", excerpt="", date_local=now, date_utc=now, modified_local=now, modified_utc=now,
            )
            .returning(posts.c.id)
        ).scalar_one()


def make_term(app: Any, taxonomy: str, name: str, parent: int | None = None) -> int:
    with app.site.write() as conn:
        return terms.create_term(conn, app.site.registry.taxonomies[taxonomy], name, parent=parent).id


def row(app: Any, item_id: int) -> Any:
    with app.site.read() as conn:
        return conn.execute(sa.select(posts).where(posts.c.id == item_id)).first()


def count_rows(app: Any, type_: str = "post") -> int:
    with app.site.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == type_)).scalar_one()


def set_option(app: Any, name: str, value: Any) -> None:
    with app.site.write() as conn:
        app.site.update_option(conn, name, value)


@contextlib.contextmanager
def statement_counter(app: Any) -> Iterator[list[str]]:
    """Every SQL statement the app's site runs while the block is open (see :func:`engine_statements`)."""
    with engine_statements(app.site.engine) as statements:
        yield statements


@contextlib.contextmanager
def engine_statements(engine: sa.Engine) -> Iterator[list[str]]:
    """Every SQL statement run while the block is open: SQLAlchemy's on ``engine``, seen by a
    ``before_cursor_execute`` listener, and the compiled ones run straight on a driver connection
    (``FastQuery``: ``Site.query``, the listings' shaped statements), whatever their engine."""
    from calpress.store.fast import FastQuery

    statements: list[str] = []

    def on_execute(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        statements.append(statement)

    original = FastQuery.run

    def counted_run(fast_query: Any, *args: Any, **kwargs: Any) -> Any:
        statements.append(str(fast_query.statement))
        return original(fast_query, *args, **kwargs)

    sa.event.listen(engine, "before_cursor_execute", on_execute)
    FastQuery.run = counted_run  # type: ignore[method-assign]
    try:
        yield statements
    finally:
        sa.event.remove(engine, "before_cursor_execute", on_execute)
        FastQuery.run = original  # type: ignore[method-assign]
