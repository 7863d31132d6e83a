"""The portable dump (calpress/store/dump.py) on both legs: what it holds and how it writes
values, the round trip into a fresh database, the sequences and caches after an import, and
imports that fail changing nothing. The commands (db export/import) are tested in
tests/test_cli_more.py, across the two kinds of database."""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from dbfixtures import _fresh_url

from calpress.store import db, dump
from calpress.store.tables import (
    application_passwords,
    comments,
    event_links,
    events,
    login_failures,
    options,
    posts,
    term_links,
    terms,
    users,
)

# SQLAlchemy does not reflect migration 0007's indexes on expressions, and says so each time.
pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index:sqlalchemy.exc.SAWarning")

WHEN = dt.datetime(2027, 3, 1, 20, 0, 0, 123456)


@pytest.fixture()
def fresh_url(request: pytest.FixtureRequest, db_leg: str, tmp_path: Path) -> Iterator[str]:
    """A second fresh, migrated database of the test's kind."""
    folder = tmp_path / "fresh"
    folder.mkdir()
    yield from _fresh_url(request, db_leg, folder, migrated=True)


@pytest.fixture()
def fresh(fresh_url: str) -> Iterator[sa.Engine]:
    built = db.create_engine(fresh_url)
    try:
        yield built
    finally:
        built.dispose()


def snapshot(engine: sa.Engine) -> dict[str, dict[tuple[Any, ...], tuple[Any, ...]]]:
    """Every row of every dumped table, by primary key (string keys sort differently on the two
    databases, so rows are compared by key, not by position)."""
    with engine.connect() as conn:
        return {table.name: {tuple(getattr(row, column.name) for column in table.primary_key.columns): tuple(row)
                             for rows in dump.table_rows(conn, table) for row in rows}
                for table in dump.dumped_tables()}


def counter_and_last_change(engine: sa.Engine) -> tuple[int, str | None]:
    with engine.connect() as conn:
        value = conn.execute(sa.text("SELECT value FROM counters WHERE name = 'content'")).scalar()
        touched = conn.execute(sa.text("SELECT touched FROM changes ORDER BY generation DESC LIMIT 1")).scalar()
    return int(value), touched


def fill(engine: sa.Engine) -> dict[str, int]:
    """A small site with awkward values in every dumped table: microseconds, NULLs, JSON null,
    nested JSON, booleans both ways, text with newlines and non-ASCII. The last post is deleted,
    so that its id is above every remaining one. Returns some ids."""
    with db.write_transaction(engine) as conn:
        user = conn.execute(sa.insert(users).values(
            login="ana", email="ana@example.test", nicename="ana", display_name="Ana Ñandú ✓", roles=["editor"],
            extra_caps={"upload_files": False}, meta={"deep": {"list": [1, None, "é", {"x": True}]}},
            registered_utc=WHEN).returning(users.c.id)).scalar_one()
        conn.execute(sa.insert(application_passwords).values(
            uuid="6f1c1b52-0000-4000-8000-000000000001", user_id=user, name="app", password_hash="h", created_utc=WHEN,
            last_used_utc=None, last_ip=None))
        conn.execute(sa.insert(options), [
            {"name": "json_null", "value": None, "autoload": False},
            {"name": "Zeta_case", "value": {"a": [1, 2, {"b": None}], "s": "line\nbreak \"quoted\""}, "autoload": True},
            {"name": "number", "value": 0, "autoload": True},
        ])
        term = conn.execute(sa.insert(terms).values(taxonomy="post_tag", name="Jazz & blues", slug="jazz",
                                                    meta={"color": "blue"}).returning(terms.c.id)).scalar_one()
        ids = []
        for title, date_utc in (("First\nline", WHEN), ("Draft", None), ("Doomed", WHEN)):
            ids.append(conn.execute(sa.insert(posts).values(
                type="cal_events", status="publish", author=user, title=title, content="<p>€ ünïcode</p>", date_local=WHEN,
                date_utc=date_utc, modified_local=WHEN, modified_utc=WHEN, meta={"_EventCost": "10", "n": 1.5},
            ).returning(posts.c.id)).scalar_one())
        first, second, doomed = ids
        conn.execute(sa.insert(events), [
            {"post_id": first, "start_local": WHEN, "end_local": WHEN, "start_utc": WHEN, "end_utc": WHEN,
             "all_day": True, "featured": False, "sticky": True, "hidden": False},
            {"post_id": second, "start_local": WHEN, "end_local": WHEN, "start_utc": WHEN, "end_utc": WHEN,
             "all_day": False, "featured": True, "sticky": False, "hidden": True},
        ])
        conn.execute(sa.insert(event_links).values(event_id=first, kind="venue", linked_id=second, position=0))
        conn.execute(sa.insert(term_links).values(object_id=first, term_id=term, position=2))
        conn.execute(sa.insert(comments).values(post_id=first, author=None, author_name="Ann", date_local=WHEN,
                                                date_utc=WHEN, content="Hi\n", status="hold", meta={"k": [True]}))
        conn.execute(sa.insert(login_failures).values(key="user:ana", count=3, window_start_utc=WHEN))
        conn.execute(sa.delete(posts).where(posts.c.id == doomed))
    return {"user": user, "first": first, "doomed": doomed}


def exported(engine: sa.Engine, **options: Any) -> bytes:
    out = io.BytesIO()
    dump.export(engine, out, **options)
    return out.getvalue()


def load(engine: sa.Engine, data: bytes, **options: Any) -> dict[str, int]:
    stream = io.BytesIO(data)
    return dump.load(engine, stream, dump.read_header(stream), **options)


def test_every_table_the_migrations_make_is_dumped_or_left_out_for_a_reason(engine):
    found = set(sa.inspect(engine).get_table_names())
    dumped = {table.name for table in dump.dumped_tables()}
    assert dumped <= found
    rest = found - dumped
    # posts_search's shadow tables are posts_search_data, _idx... (SQLite only).
    assert all(name in dump.LEFT_OUT or name.startswith("posts_search_") for name in rest), rest - set(dump.LEFT_OUT)
    assert {"alembic_version", "counters", "changes"} <= rest
    assert {"users", "posts", "terms", "comments", "events", "options"} <= dumped


def test_the_dump_writes_json_lines_with_typed_values(engine):
    ids = fill(engine)
    lines = [json.loads(line) for line in exported(engine).decode().splitlines()]
    header, rows, end = lines[0], lines[1:-1], lines[-1]
    assert header["format"] == "calpress-dump" and header["version"] == 1
    assert header["revision"] == db.head_revision() and header["database"] == engine.dialect.name
    assert header["tables"] == [table.name for table in dump.dumped_tables()]
    assert header["tables"].index("users") < header["tables"].index("posts") < header["tables"].index("events")
    assert header["sequences"]["posts"] == ids["doomed"]  # the deleted post's id was handed out
    assert dt.datetime.fromisoformat(header["date"].replace("Z", "+00:00")).tzinfo is not None
    # Rows come table by table, in the header's order.
    order = [header["tables"].index(row["t"]) for row in rows]
    assert order == sorted(order)
    assert end == {"end": True, "rows": {name: sum(1 for row in rows if row["t"] == name) for name in header["tables"]}}

    event = next(row["r"] for row in rows if row["t"] == "events" and row["r"]["post_id"] == ids["first"])
    assert event["start_local"] == "2027-03-01T20:00:00.123456"  # ISO text
    assert event["all_day"] is True and event["featured"] is False  # booleans, not 0/1
    by_name = {row["r"]["name"]: row["r"] for row in rows if row["t"] == "options"}
    assert by_name["json_null"]["value"] is None and by_name["json_null"]["autoload"] is False
    assert by_name["Zeta_case"]["value"] == {"a": [1, 2, {"b": None}], "s": "line\nbreak \"quoted\""}  # JSON, not text
    draft = next(row["r"] for row in rows if row["t"] == "posts" and row["r"]["title"] == "Draft")
    assert draft["date_utc"] is None and draft["meta"] == {"_EventCost": "10", "n": 1.5}
    assert not any(row["t"] in ("counters", "changes", "alembic_version") for row in rows)


def test_a_dump_loads_into_a_fresh_database_as_it_was(engine, fresh):
    ids = fill(engine)
    counts = load(fresh, exported(engine))
    assert counts["posts"] == 2 and counts["users"] == 1
    assert snapshot(fresh) == snapshot(engine)
    # Ids go on after the last one the site handed out (the deleted post's), as on the source.
    with db.write_transaction(fresh) as conn:
        new_post = conn.execute(sa.insert(posts).values(
            type="post", status="draft", date_local=WHEN, modified_local=WHEN, modified_utc=WHEN).returning(posts.c.id)).scalar_one()
        new_user = conn.execute(sa.insert(users).values(
            login="bo", email="bo@example.test", nicename="bo", registered_utc=WHEN).returning(users.c.id)).scalar_one()
    assert new_post == ids["doomed"] + 1
    assert new_user == ids["user"] + 1


def test_an_import_drops_every_workers_caches(engine, fresh):
    fill(engine)
    data = exported(engine)
    before, _ = counter_and_last_change(fresh)
    load(fresh, data)
    after, touched = counter_and_last_change(fresh)
    assert after == before + 1  # one step, in the import's transaction
    assert json.loads(touched) == {"*": 1}  # naming everything: every worker forgets all it cached


def test_rows_are_read_and_inserted_in_batches(engine, fresh):
    fill(engine)
    with engine.connect() as conn:
        assert [len(rows) for rows in dump.table_rows(conn, options, batch=2)] == [2, 1]
    seen: list[tuple[int, int]] = []
    data = exported(engine, batch=2, progress=lambda done, total: seen.append((done, total)))
    total = sum(json.loads(data.decode().splitlines()[-1])["rows"].values())
    assert seen[-1] == (total, total) and len(seen) > len(dump.dumped_tables())
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)

    inserted: list[int] = []

    def count_rows(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO") and "changes" not in statement:
            inserted.append(len(parameters) if executemany else 1)

    sa.event.listen(fresh, "before_cursor_execute", count_rows)
    try:
        progress: list[tuple[int, int]] = []
        load(fresh, data, batch=2, size=len(data), progress=lambda done, size: progress.append((done, size)))
    finally:
        sa.event.remove(fresh, "before_cursor_execute", count_rows)
    assert inserted and max(inserted) <= 2 and sum(inserted) >= total
    assert progress and progress[-1][1] == len(data)
    assert snapshot(fresh) == snapshot(engine)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _first(lines: list[bytes], table: str) -> int:
    """The index of the first row of ``table`` in ``lines``."""
    return next(index for index, line in enumerate(lines) if line.startswith(b'{"t":"%s"' % table.encode()))


def _replace_row(lines: list[bytes], table: str, change: Callable[[dict[str, Any]], Any]) -> tuple[list[bytes], int]:
    index = _first(lines, table)
    row = json.loads(lines[index])
    change(row)
    return [*lines[:index], (json.dumps(row) + "\n").encode(), *lines[index + 1:]], index + 1


def _break_json(lines: list[bytes]) -> tuple[list[bytes], int]:
    index = _first(lines, "posts")
    return [*lines[:index], lines[index][:-10] + b"\n", *lines[index + 1:]], index + 1


def _unknown_table(lines: list[bytes]) -> tuple[list[bytes], int]:
    return _replace_row(lines, "posts", lambda row: row.update(t="wp_posts"))


def _unknown_column(lines: list[bytes]) -> tuple[list[bytes], int]:
    return _replace_row(lines, "users", lambda row: row["r"].update(user_status=0))


def _wrong_type(lines: list[bytes]) -> tuple[list[bytes], int]:
    return _replace_row(lines, "events", lambda row: row["r"].update(all_day=1))


def _bad_datetime(lines: list[bytes]) -> tuple[list[bytes], int]:
    return _replace_row(lines, "comments", lambda row: row["r"].update(date_utc="yesterday"))


def _no_closing_line(lines: list[bytes]) -> tuple[list[bytes], int]:
    return lines[:-1], len(lines) - 1


def _cut_short(lines: list[bytes]) -> tuple[list[bytes], int]:
    index = _first(lines, "terms")
    return [*lines[:index], lines[index][:25]], index + 1


def _out_of_order(lines: list[bytes]) -> tuple[list[bytes], int]:
    index = _first(lines, "options")  # no foreign key: the order alone is wrong
    moved = [*lines[:index], *lines[index + 1:-1], lines[index], lines[-1]]
    return moved, len(moved) - 1


def _duplicate_key(lines: list[bytes]) -> tuple[list[bytes], int]:
    index = _first(lines, "terms")
    return [*lines[:index + 1], lines[index], *lines[index + 1:]], index + 2


def _wrong_count(lines: list[bytes]) -> tuple[list[bytes], int]:
    end = json.loads(lines[-1])
    end["rows"]["posts"] += 1
    return [*lines[:-1], (json.dumps(end) + "\n").encode()], len(lines)


def _after_the_end(lines: list[bytes]) -> tuple[list[bytes], int]:
    return [*lines, lines[1]], len(lines) + 1


BROKEN = {
    "not json": (_break_json, "is not JSON"),
    "unknown table": (_unknown_table, "unknown table 'wp_posts'"),
    "unknown column": (_unknown_column, "users has no column user_status"),
    "wrong type": (_wrong_type, "events.all_day: expected bool, got 1"),
    "bad datetime": (_bad_datetime, "comments.date_utc: 'yesterday' is no ISO date and time"),
    "no closing line": (_no_closing_line, "without its closing line: the file is truncated"),
    "cut short": (_cut_short, "is cut short: the file is truncated"),
    "out of order": (_out_of_order, "a row of options after the rows of term_links"),
    "duplicate key": (_duplicate_key, "the database refused this row of terms"),
    "wrong count": (_wrong_count, "the closing line counts"),
    "after the end": (_after_the_end, "follows the dump's closing line"),
}


@pytest.mark.parametrize("broken", list(BROKEN))
def test_a_broken_dump_changes_nothing(engine, broken):
    """Loaded back into its own database (which then holds a site to lose): the error names the
    line, and every table, the counter and the sequences are as they were."""
    fill(engine)
    corrupt, expected = BROKEN[broken]
    lines, line_number = corrupt(_lines(exported(engine)))
    before, counter = snapshot(engine), counter_and_last_change(engine)
    with engine.connect() as conn:
        sequences = dump._last_ids(conn)
    with pytest.raises(dump.DumpError) as raised:
        load(engine, b"".join(lines))
    assert expected in str(raised.value)
    assert f"line {line_number}" in str(raised.value).lower()
    assert snapshot(engine) == before
    assert counter_and_last_change(engine) == counter
    with engine.connect() as conn:
        assert dump._last_ids(conn) == sequences


def test_a_dump_of_another_revision_is_refused_before_anything_is_read(engine, fresh):
    fill(engine)
    header, *rest = _lines(exported(engine))
    older = json.loads(header)
    older["revision"] = "0008"
    data = (json.dumps(older) + "\n").encode() + b"".join(rest)
    before = snapshot(fresh)
    stream = io.BytesIO(data)
    parsed = dump.read_header(stream)
    with pytest.raises(dump.DumpError) as raised:
        dump.check_revision(fresh, parsed)
    assert f"revision 0008, this database is at revision {db.head_revision()}" in str(raised.value)
    with pytest.raises(dump.DumpError):
        dump.load(fresh, stream, parsed)
    assert snapshot(fresh) == before


@pytest.mark.parametrize(("first_line", "expected"), [
    (b"", "The dump is empty."),
    (b'{"t": "users", "r": {}}\n', "Line 1 is not the header of a calpress dump"),
    (b"-- MySQL dump 10.13\n", "Line 1 is not JSON"),
    (b'{"format": "calpress-dump", "version": 2, "revision": "0009", "tables": []}\n', "format version is 2"),
    (b'{"format": "calpress-dump", "version": 1, "revision": "0009", "tables": ["users", "wp_links"]}\n', "unknown: wp_links"),
])
def test_a_header_that_is_not_ours_is_refused(first_line, expected):
    with pytest.raises(dump.DumpError) as raised:
        dump.read_header(io.BytesIO(first_line))
    assert expected in str(raised.value)


def test_holds_content_is_about_users_and_posts(engine):
    assert not dump.holds_content(engine)  # a new site has options and a category, nothing to lose
    fill(engine)
    assert dump.holds_content(engine)
