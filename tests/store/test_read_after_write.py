"""Site.read_after_write: what an answer reads of a write, on SQLite once it has committed and
the writers' turn has passed on, elsewhere inside the write's transaction."""

from __future__ import annotations

import threading

import pytest

from calpress.store import db, options


def _write_from_another_thread(site, name: str) -> threading.Thread:
    def write() -> None:
        with site.write() as conn:
            options.set_option(conn, name, "yes")

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def test_reads_see_the_write_and_hold_up_no_other_writer(app) -> None:
    site = app.site
    sqlite = db.is_sqlite(site.engine)
    seen: dict[str, object] = {}

    def reads(conn) -> str:
        seen["own"] = options.get_option(conn, "after_write")
        seen["same_connection"] = conn is written
        with site.read() as nested:  # reads through the site use the same connection
            seen["nested"] = nested is conn
        if sqlite:
            # Committed, the turn passed on: another writer runs to its end meanwhile.
            other = _write_from_another_thread(site, "beside_the_reads")
            other.join(10)
            seen["other_done"] = not other.is_alive()
            seen["driver_in_transaction"] = conn.connection.driver_connection.in_transaction
        else:
            # Still the write's transaction: another connection does not see it yet.
            with db.read_connection(site.engine) as elsewhere:
                seen["visible_elsewhere"] = options.get_option(elsewhere, "after_write")
        return "answer"

    with site.write() as written:
        options.set_option(written, "after_write", "stored")
        result = site.read_after_write(written, reads)
        if sqlite:
            assert seen == {}  # not yet: the write has not committed
            with pytest.raises(RuntimeError):
                result()
    assert result() == "answer"
    assert seen["own"] == "stored" and seen["same_connection"] and seen["nested"]
    if sqlite:
        assert seen["other_done"] is True
        assert seen["driver_in_transaction"] is False  # committed: each read runs alone
        with db.read_connection(site.engine) as conn:
            assert options.get_option(conn, "beside_the_reads") == "yes"
    else:
        assert seen["visible_elsewhere"] is None


def test_a_write_that_fails_runs_no_reads(app) -> None:
    site = app.site
    ran: list[str] = []
    with pytest.raises(ValueError), site.write() as conn:
        options.set_option(conn, "rolled_back", "yes")
        result = site.read_after_write(conn, lambda read: ran.append("read"))
        if not db.is_sqlite(site.engine):
            ran.clear()  # elsewhere they ran at once, inside the transaction that now rolls back
        raise ValueError("refused")
    assert ran == []
    with site.read() as conn:
        assert options.get_option(conn, "rolled_back") is None
    if db.is_sqlite(site.engine):
        with pytest.raises(RuntimeError):
            result()


def test_reads_outside_a_write_run_at_once(app) -> None:
    with app.site.read() as conn:
        assert app.site.read_after_write(conn, lambda read: read is conn)() is True


def test_after_commit_calls_see_the_write_committed(app) -> None:
    """store/db.write_transaction's ``after_commit`` runs on both databases once the write is
    committed: another connection sees it from there."""
    engine = app.site.engine
    seen: list[object] = []

    def call(conn) -> None:
        with db.read_connection(engine) as elsewhere:
            seen.append(options.get_option(elsewhere, "committed_first"))
        seen.append(options.get_option(conn, "committed_first"))

    with db.write_transaction(engine, [call]) as conn:
        options.set_option(conn, "committed_first", "yes")
    assert seen == ["yes", "yes"]


def test_reads_that_fail_after_the_write_leave_it_standing(app) -> None:
    """On SQLite the write has committed when its reads run: their error comes from the result,
    and the write's change listeners have run. Elsewhere the reads run in the transaction, which
    their error rolls back."""
    site = app.site
    heard: list[object] = []
    site.change_listeners.append(heard.append)

    def reads(conn) -> None:
        raise LookupError("the reads failed")

    if db.is_sqlite(site.engine):
        with site.write() as conn:
            options.set_option(conn, "stands", "yes")
            result = site.read_after_write(conn, reads)
        with pytest.raises(LookupError):
            result()
        assert heard  # the write's changes went to the listeners
        expected = "yes"
    else:
        with pytest.raises(LookupError), site.write() as conn:
            options.set_option(conn, "stands", "yes")
            site.read_after_write(conn, reads)
        expected = None
    with site.read() as conn:
        assert options.get_option(conn, "stands") == expected
