"""The content counter's change log (store/changes.py, migration 0009) and the memo that follows
it (store/memo.py)."""

from __future__ import annotations

import json

import sqlalchemy as sa

from calpress.store import changes, db
from calpress.store.changes import Change, record, touched_text
from calpress.store.memo import Memo
from calpress.store.tables import changes as changes_table
from calpress.store.tables import counters


def _log(engine: sa.Engine) -> list[tuple[int, dict]]:
    with db.read_connection(engine) as conn:
        rows = conn.execute(sa.select(changes_table.c.generation, changes_table.c.touched).order_by("generation")).all()
        return [(row.generation, json.loads(row.touched)) for row in rows]


def _counter(engine: sa.Engine) -> int:
    with db.read_connection(engine) as conn:
        return int(conn.execute(sa.select(counters.c.value).where(counters.c.name == "content")).scalar_one())


def test_every_bump_logs_what_its_transaction_changed(engine):
    db.upgrade(engine)
    start = _counter(engine)
    with db.write_transaction(engine) as conn:  # as Site.write() holds one
        with changes.one_bump(conn):
            record(conn, "item", "update", 5)
            record(conn, "term", "count", 3, 4)
            record(conn, "item", "terms", 5)
            record(conn, "term", "update", 4)
        changes.take(conn)
    with db.write_transaction(engine) as conn:
        record(conn, "option", "update", "blogname")  # outside one_bump: bumped at once
        changes.take(conn)
    assert _counter(engine) == start + 2
    assert _log(engine)[-2:] == [
        # Counts are logged apart from the terms themselves.
        (start + 1, {"item": [5], "term_count": [3, 4], "term": [4]}),
        (start + 2, {"option": ["blogname"]}),
    ]
    # A rolled-back write leaves neither a step nor a log row.
    try:
        with db.write_transaction(engine) as conn:
            record(conn, "item", "update", 9)
            raise RuntimeError("abandoned")
    except RuntimeError:
        pass
    assert _counter(engine) == start + 2 and _log(engine)[-1][0] == start + 2


def test_the_log_keeps_its_last_steps(engine, monkeypatch):
    db.upgrade(engine)
    monkeypatch.setattr(changes, "CHANGES_KEPT", 4)
    for n in range(11):
        with db.write_transaction(engine) as conn:
            record(conn, "item", "update", n + 1)
            changes.take(conn)
    log = _log(engine)
    top = _counter(engine)
    assert log[-1][0] == top
    assert [generation for generation, _ in log] == list(range(log[0][0], top + 1))  # no gaps
    assert len(log) <= 2 * 4


def test_touched_says_everything_when_a_change_names_nothing_or_too_much():
    assert json.loads(touched_text([Change("item", "import")])) == {"*": 1}
    many = [Change("item", "update", tuple(range(3000)))]
    assert json.loads(touched_text(many)) == {"*": 1}
    assert json.loads(touched_text([Change("item", "update", (2, 1)), Change("item", "terms", (2,))])) == {"item": [1, 2]}


def _steps(log: dict[int, dict]):
    def steps(since: int, upto: int) -> list[tuple[int, str]]:
        return [(g, json.dumps(log[g])) for g in range(since + 1, upto + 1) if g in log]
    return steps


def test_memo_forgets_only_what_a_step_changed():
    memo = Memo()
    memo.catch_up(1, _steps({}))
    memo.put("event 5", 1, {"id": 5}, [("item", 5), ("item", 50), ("term", 7)])
    memo.put("event 6", 1, {"id": 6}, [("item", 6), ("term", 8)])
    assert memo.get("event 5", 1) == {"id": 5}
    memo.catch_up(3, _steps({2: {"item": [50]}, 3: {"term": [9]}}))
    assert memo.get("event 5", 3) is None  # built from item 50 (its venue, say)
    assert memo.get("event 6", 3) == {"id": 6}
    memo.catch_up(4, _steps({4: {"term": [8]}}))
    assert memo.get("event 6", 4) is None
    # A term's count moving drops only what shows the count.
    memo.put("term 7", 4, {"count": 1}, [("term", 7), ("term_count", 7)])
    memo.put("post 8", 4, {"categories": [7]}, [("item", 8), ("term", 7)])
    memo.catch_up(5, _steps({5: {"term_count": [7]}}))
    assert memo.get("term 7", 5) is None
    assert memo.get("post 8", 5) == {"categories": [7]}


def test_memo_forgets_everything_on_what_it_cannot_follow():
    for step in ({"option": ["blogname"]}, {"*": 1}, {"user": [1]}, {"comment": [3]}):
        memo = Memo()
        memo.catch_up(1, _steps({}))
        memo.put("event", 1, {}, [("item", 1)])
        memo.catch_up(2, _steps({2: step}))
        assert len(memo) == 0, step
    # A step missing from the log (pruned): everything goes.
    memo = Memo()
    memo.catch_up(1, _steps({}))
    memo.put("event", 1, {}, [("item", 1)])
    memo.catch_up(3, _steps({3: {"item": [2]}}))
    assert len(memo) == 0


def test_memo_keeps_nothing_built_at_another_step():
    memo = Memo()
    memo.catch_up(5, _steps({}))
    memo.put("late", 4, {}, [("item", 1)])  # built by a request that read the counter earlier
    assert len(memo) == 0
    memo.put("now", 5, {"v": 1}, [("item", 1)])
    assert memo.get("now", 4) is None and memo.get("now", None) is None
    memo.catch_up(4, _steps({}))  # an older reader does not move the memo back
    assert memo.generation == 5 and memo.get("now", 5) == {"v": 1}


def test_memo_is_bounded_and_drops_its_oldest_first():
    memo = Memo(limit=8)
    memo.catch_up(1, _steps({}))
    for n in range(20):
        memo.put(n, 1, n, [("item", n)])
        assert len(memo) <= 8
    assert memo.get(19, 1) == 19 and memo.get(18, 1) == 18  # the newest stay
    assert memo.get(0, 1) is None
    # The index of what entries depend on stays bounded too.
    for n in range(20, 200):
        memo.put(n, 1, n, [("item", n), ("term", n)])
    assert len(memo) <= 8 and len(memo._dependents) <= 4 * 8 + 2  # + the last entry's own


def test_a_memo_of_size_zero_keeps_nothing():
    memo = Memo(limit=0)
    memo.catch_up(1, _steps({}))
    memo.put("event", 1, {}, [("item", 1)])
    assert len(memo) == 0 and memo.get("event", 1) is None


def test_the_memo_size_is_a_setting(tmp_path):
    import pytest

    from calpress.config import load_settings

    def settings(**values):
        return load_settings({"data_dir": str(tmp_path), "secret_key": "x", **values}, environ={})

    assert settings().memo_size == 2048
    assert settings(memo_size="0").memo_size == 0
    assert load_settings({"data_dir": str(tmp_path), "secret_key": "x"}, environ={"CALPRESS_MEMO_SIZE": "12"}).memo_size == 12
    with pytest.raises(ValueError, match="CALPRESS_MEMO_SIZE"):
        settings(memo_size="-1")


def test_hints_are_not_entries_and_go_with_everything():
    memo = Memo(limit=4)
    memo.catch_up(1, lambda since, upto: [])
    memo.put("kept", 1, "value", [("item", 5)])
    memo.hint(("page", 1), True)
    assert memo.hinted(("page", 1)) and not memo.hinted(("page", 2))
    assert len(memo) == 1  # a hint is no entry
    memo.hint(("page", 1), False)
    assert not memo.hinted(("page", 1))
    memo.hint(("page", 1), True)
    # A step that names only an item drops what was built from it; hints stay (they are on no record).
    memo.catch_up(2, lambda since, upto: [(2, json.dumps({"item": [5]}))])
    assert memo.get("kept", 2) is None and memo.hinted(("page", 1))
    # Bounded: past ``limit`` hints they start over.
    for number in range(2, 6):
        memo.hint(("page", number), True)
    assert sum(memo.hinted(("page", n)) for n in range(1, 6)) <= 4
    memo.hint(("page", 9), True)
    memo.clear()
    assert not memo.hinted(("page", 9))
