"""``/healthz`` and ``/readyz`` (pages/probes.py, health/readiness.py): through the WSGI app on
both databases, on an S3 bucket (the moto server), and through a real server process. Liveness
answers whatever the database does; readiness fails, naming the part, for a database that cannot
be reached, one behind the current migration and an uploads folder that cannot take a file; both
answer anyone, never from a cache."""

from __future__ import annotations

import base64
import json
import logging

import httpx
import pytest
import sqlalchemy as sa
from appfixtures import free_port, serving

from calpress import net
from calpress.health import readiness
from calpress.media import s3 as s3_module
from calpress.media.s3 import S3Storage
from calpress.store import db as store_db

READY = {"status": "ok", "checks": {"database": "ok", "uploads": "ok"}}


def probe(client, path: str, status: int, **kwargs) -> dict:
    response = client.get(path, **kwargs)
    assert response.status_code == status, response.text
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-type"] == "application/json"
    assert len(response.content) < 100  # tiny: a probe every few seconds costs nothing
    return response.json


def unreachable_engine() -> sa.Engine:
    """An engine of a PostgreSQL server that is not there (a closed loopback port): refused at once."""
    return store_db.create_engine(f"postgresql://calpress@127.0.0.1:{free_port()}/calpress")


def previous_revision() -> str:
    return store_db._script_directory().get_revision(store_db.head_revision()).down_revision


def set_revision(engine: sa.Engine, revision: str) -> None:
    with store_db.write_transaction(engine) as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :v"), {"v": revision})


def test_healthz_answers_without_the_database_and_without_credentials(app, client, monkeypatch):
    assert probe(client, "/healthz", 200) == {"status": "ok"}
    broken = unreachable_engine()
    monkeypatch.setattr(app.site, "engine", broken)
    try:
        # No database touched: the process answers, whatever the database does.
        assert probe(client, "/healthz", 200) == {"status": "ok"}
        # Credentials are not read: wrong ones change nothing (no 401 from the login check).
        wrong = "Basic " + base64.b64encode(b"nobody:wrong").decode()
        assert probe(client, "/healthz", 200, headers={"Authorization": wrong, "Cookie": "wordpress_logged_in_x=bad"}) == {"status": "ok"}
        head = client.request("HEAD", "/healthz")
        assert (head.status_code, head.content, head.headers["cache-control"]) == (200, b"", "no-store")
    finally:
        broken.dispose()


def test_readyz_on_a_healthy_site_and_never_from_a_cache(app, client, monkeypatch, caplog):
    assert probe(client, "/readyz", 200) == READY
    head = client.request("HEAD", "/readyz")
    assert (head.status_code, head.content) == (200, b"")
    wrong = "Basic " + base64.b64encode(b"nobody:wrong").decode()
    assert probe(client, "/readyz", 200, headers={"Authorization": wrong}) == READY
    # The database goes away: the next probe says so (no answer cache kept the 200)...
    broken = unreachable_engine()
    good = app.site.engine
    try:
        with caplog.at_level(logging.WARNING, logger="calpress.probes"):
            monkeypatch.setattr(app.site, "engine", broken)
            for _ in range(3):
                body = probe(client, "/readyz", 503)
                assert body == {"status": "fail", "checks": {"database": "fail", "uploads": "ok"}}
            # ...and comes back: so does readiness (no cached 503 either).
            monkeypatch.setattr(app.site, "engine", good)
            assert probe(client, "/readyz", 200) == READY
    finally:
        broken.dispose()
    # The reason went to the log once, not on every probe; the public answer named only the part.
    messages = [record.getMessage() for record in caplog.records if record.name == "calpress.probes"]
    assert len([m for m in messages if m.startswith("not ready: database: the database could not be reached")]) == 1, messages
    assert messages[-1] == "ready again"
    assert "127.0.0.1" not in json.dumps(body)


def test_readyz_fails_on_a_database_behind_the_current_migration(app, client):
    previous = previous_revision()
    set_revision(app.site.engine, previous)
    assert probe(client, "/readyz", 503) == {"status": "fail", "checks": {"database": "fail", "uploads": "ok"}}
    assert "behind the newest" in readiness.database_problem(app.site.engine)
    # Never migrated at all: not ready either.
    with store_db.write_transaction(app.site.engine) as conn:
        conn.execute(sa.text("DELETE FROM alembic_version"))
    assert probe(client, "/readyz", 503)["checks"]["database"] == "fail"
    # Migrated by a newer calpress (a revision this code does not know): ready, as during a
    # rolling upgrade, when the nodes still on the old code keep serving.
    with store_db.write_transaction(app.site.engine) as conn:
        conn.execute(sa.text("INSERT INTO alembic_version (version_num) VALUES ('9999_from_the_future')"))
    assert probe(client, "/readyz", 200) == READY
    set_revision(app.site.engine, store_db.head_revision())
    assert probe(client, "/readyz", 200) == READY


def test_readyz_fails_when_the_uploads_folder_cannot_take_a_file(app, client, monkeypatch, tmp_path):
    storage = app.site.storage
    # A folder not made yet is fine while it can be made; probing leaves nothing in it.
    assert not storage.folder.exists()
    assert probe(client, "/readyz", 200) == READY
    storage.folder.mkdir(parents=True)
    for _ in range(3):
        assert probe(client, "/readyz", 200) == READY
    assert list(storage.folder.iterdir()) == []
    # The folder's place is taken by a file: nothing can be stored (true for root too).
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    monkeypatch.setattr(storage, "folder", blocker / "uploads")
    assert probe(client, "/readyz", 503) == {"status": "fail", "checks": {"database": "ok", "uploads": "fail"}}
    assert "blocker is not a folder" in readiness.uploads_problem(storage)
    monkeypatch.setattr(storage, "folder", blocker)
    assert probe(client, "/readyz", 503)["checks"]["uploads"] == "fail"
    assert readiness.uploads_problem(storage).endswith("is not a folder")


def test_a_folder_without_write_permission_is_not_ready(tmp_path):
    import os

    from calpress.media.storage import LocalStorage

    if os.geteuid() == 0:
        pytest.skip("root writes whatever the permissions say")
    folder = tmp_path / "uploads"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        assert "is not writable" in LocalStorage(folder).write_problem()
    finally:
        folder.chmod(0o700)


def test_readiness_of_an_s3_bucket(s3_server, monkeypatch):
    monkeypatch.setattr(s3_module, "READY_TTL", 0.0)
    there = s3_server.storage()
    missing = s3_server.storage(bucket="no-such-bucket")
    refused = s3_server.storage(secret_key="wrong")
    port = free_port()
    closed = S3Storage(bucket="media", endpoint=f"http://127.0.0.1:{port}", access_key="a", secret_key="b",
                       policy=net.NetPolicy(allow=(f"127.0.0.1:{port}",), timeout=5.0))
    try:
        assert readiness.uploads_problem(there) is None
        assert "does not exist" in readiness.uploads_problem(missing)
        assert "refused the access key" in readiness.uploads_problem(refused)
        assert "could not be reached" in readiness.uploads_problem(closed)
    finally:
        for storage in (there, missing, refused, closed):
            storage.close()


def test_an_s3_verdict_is_kept_a_few_seconds(s3_server, monkeypatch):
    storage = s3_server.storage()
    sent = []
    real = storage._request

    def counting(method, name, **kwargs):
        sent.append((method, name))
        return real(method, name, **kwargs)

    monkeypatch.setattr(storage, "_request", counting)
    try:
        for _ in range(5):
            assert storage.write_problem() is None
        assert sent == [("HEAD", None)]
        monkeypatch.setattr(s3_module, "READY_TTL", 0.0)
        assert storage.write_problem() is None
        assert len(sent) == 2
    finally:
        storage.close()


def test_readyz_of_a_site_on_s3(app, client, s3_server, monkeypatch):
    monkeypatch.setattr(s3_module, "READY_TTL", 0.0)
    good, bad = s3_server.storage(), s3_server.storage(bucket="not-made")
    try:
        monkeypatch.setattr(app.site, "storage", good)
        assert probe(client, "/readyz", 200) == READY
        monkeypatch.setattr(app.site, "storage", bad)
        assert probe(client, "/readyz", 503) == {"status": "fail", "checks": {"database": "ok", "uploads": "fail"}}
    finally:
        good.close()
        bad.close()


@pytest.mark.e2e
def test_probes_through_real_servers(live_server, db_url, tmp_path):
    for path, body in (("/healthz", {"status": "ok"}), ("/readyz", READY)):
        answer = httpx.get(live_server.url + path, timeout=10)
        assert (answer.status_code, answer.json(), answer.headers["cache-control"]) == (200, body, "no-store")
    # A second server over the same database whose uploads folder cannot be made: alive, not ready.
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    other = tmp_path / "other"
    other.mkdir()
    with serving(db_url, other, uploads_dir=str(blocker / "uploads")) as server:
        alive = httpx.get(server.url + "/healthz", timeout=10)
        assert (alive.status_code, alive.json()) == (200, {"status": "ok"})
        ready = httpx.get(server.url + "/readyz", timeout=10)
        assert ready.status_code == 503
        assert ready.json() == {"status": "fail", "checks": {"database": "ok", "uploads": "fail"}}
        assert ready.headers["cache-control"] == "no-store"
        assert httpx.head(server.url + "/readyz", timeout=10).status_code == 503
