"""The options cache follows the content counter's log (content/generation.py): a write of
content leaves the cached options alone, a write of an option by any process drops them at the
next read of the counter, and steps the log no longer holds drop them too."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from content_support import make_item

from calpress import site as site_module
from calpress.store import db
from calpress.store import options as store_options
from calpress.store.tables import changes as changes_table


@pytest.fixture()
def loads(app, monkeypatch) -> list[int]:
    """Every load of the options from the database, counted (the TTL never expires here)."""
    monkeypatch.setattr(site_module, "OPTIONS_TTL", 3600.0)
    counted: list[int] = []
    original = app.site.load_options

    def counting(conn: Any = None) -> dict[str, Any]:
        counted.append(1)
        return original(conn)

    monkeypatch.setattr(app.site, "load_options", counting)
    return counted


def _read_counter(app) -> int:
    """What a cacheable request does first: read the counter (and catch up with its log)."""
    return app.rest.generation(None)


def _write_option_elsewhere(settings, name: str, value: Any) -> None:
    """An option written by another process: its own engine, so this site hears nothing of it
    but the log."""
    engine = db.create_engine(settings.database_url)
    try:
        with db.write_transaction(engine) as conn:
            store_options.set_option(conn, name, value)
    finally:
        engine.dispose()


def test_content_writes_keep_the_options_and_option_writes_drop_them(app, settings, admin, loads):
    _read_counter(app)
    assert app.site.options()["blogname"] != "Renamed"
    for number in range(3):
        make_item(app, title=f"Post {number}", author=admin.id)  # (its context reads the options itself)
        loads.clear()
        assert _read_counter(app) > 0
        app.site.options()
        assert loads == [], number  # a write of content: the options stay

    _write_option_elsewhere(settings, "blogname", "Renamed")
    assert app.site.options()["blogname"] != "Renamed"  # not yet: the counter was not read
    _read_counter(app)
    assert app.site.options()["blogname"] == "Renamed"
    assert len(loads) == 1


def test_options_are_dropped_when_the_log_lacks_steps(app, settings, admin, loads):
    _read_counter(app)
    app.site.options()
    make_item(app, title="One", author=admin.id)
    make_item(app, title="Two", author=admin.id)
    with db.write_transaction(app.site.engine) as conn:  # as pruning does: the steps are gone
        newest = conn.execute(sa.select(sa.func.max(changes_table.c.generation))).scalar_one()
        conn.execute(sa.delete(changes_table).where(changes_table.c.generation == newest - 1))
    loads.clear()
    _read_counter(app)
    app.site.options()
    assert loads == [1]  # a missed step could have been an option's


def test_a_step_naming_everything_drops_the_options(app, settings, loads):
    from calpress.store import changes

    _read_counter(app)
    app.site.options()
    engine = db.create_engine(settings.database_url)
    try:
        with db.write_transaction(engine) as conn:
            changes.record(conn, "option", "flush")  # a bulk change that names no records
    finally:
        engine.dispose()
    loads.clear()
    _read_counter(app)
    app.site.options()
    assert loads == [1]
