"""The backup and restore drill of docs/deploy.md, on a live site: ``calpress db export`` run
while writers keep adding posts, categories and comments through a real server gives dumps
that hold one moment of the database (every row a foreign key points at is in the same dump,
and every write acknowledged before the export began is in it); then the restore, step by step
as the document says, into a new, empty database (the same leg) and a new data folder: the
secret key and the uploads folder copied back, ``db upgrade``, ``db import``, serve. The
restored site has the same items, the old application password works, and the upload is served.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import orjson
import pytest
from appfixtures import serving

from calpress.store.dump import dumped_tables

pytestmark = pytest.mark.e2e

WRITERS = 4


def read_dump(path: Path) -> tuple[dict, dict[str, list[dict]], dict]:
    """Header, rows by table and closing line of a dump file."""
    lines = path.read_bytes().splitlines()
    header, end = orjson.loads(lines[0]), orjson.loads(lines[-1])
    rows: dict[str, list[dict]] = {name: [] for name in header["tables"]}
    for raw in lines[1:-1]:
        line = orjson.loads(raw)
        rows[line["t"]].append(line["r"])
    return header, rows, end


def dangling_references(rows: dict[str, list[dict]]) -> list[str]:
    """Every foreign key value of the dump whose row is not in the dump."""
    problems = []
    for table in dumped_tables():
        for key in table.foreign_keys:
            target = key.column
            present = {row[target.name] for row in rows[target.table.name]}
            for row in rows[table.name]:
                value = row[key.parent.name]
                if value is not None and value not in present:
                    problems.append(f"{table.name}.{key.parent.name}={value} -> {target.table.name}")
    return problems


def cli(env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "calpress", *args], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"calpress {' '.join(args)}: {result.stderr}"
    return result.stdout


def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (32, 32), (10, 120, 200)).save(out, "PNG")
    return out.getvalue()


def test_export_of_a_live_site_is_consistent_and_restores(db_url, empty_db_url, tmp_path):
    with serving(db_url, tmp_path, workers="2") as server:
        server.cli("user", "create", "admin", "admin@example.test", "--role=administrator", "--user_pass=login-secret")
        password = server.cli("user", "application-password", "create", "admin", "drill", "--porcelain").strip()
        # Enough rows that an export takes a while, so that writes land between its tables.
        server.cli("seed-demo", "--events", "600", "--quiet")
        auth = ("admin", password)
        upload = httpx.post(server.url + "/wp-json/cms/v2/media", content=png(), auth=auth, timeout=30, headers={
            "Content-Type": "image/png", "Content-Disposition": "attachment; filename=drill.png"})
        assert upload.status_code == 201, upload.text
        upload_file = upload.json()["media_details"]["file"]

        acknowledged: list[int] = []  # posts whose creation was answered 201
        lock = threading.Lock()
        stop = threading.Event()
        errors: list[str] = []

        def writer(number: int) -> None:
            with httpx.Client(base_url=server.url + "/wp-json", auth=auth, timeout=30) as client:
                round_ = 0
                while not stop.is_set():
                    round_ += 1
                    category = client.post("/cms/v2/categories", json={"name": f"drill {number}-{round_}"})
                    post = client.post("/cms/v2/posts", json={"title": f"drill {number}-{round_}", "status": "publish",
                                                              "categories": [category.json().get("id")]})
                    if category.status_code != 201 or post.status_code != 201:
                        errors.append(f"{category.status_code} {post.status_code} {post.text[:100]}")
                        return
                    with lock:
                        acknowledged.append(post.json()["id"])
                    comment = client.post("/cms/v2/comments", json={"post": post.json()["id"], "content": f"comment {round_}"})
                    if comment.status_code != 201:
                        errors.append(f"comment {comment.status_code} {comment.text[:100]}")
                        return

        threads = [threading.Thread(target=writer, args=(number,)) for number in range(WRITERS)]
        for thread in threads:
            thread.start()
        dumps = []
        try:
            for number in range(3):
                with lock:
                    before = list(acknowledged)
                path = tmp_path / f"live-{number}.jsonl"
                assert "Success: Exported" in server.cli("db", "export", str(path))
                dumps.append((path, before))
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        assert errors == []
        assert len(acknowledged) > 10, "the writers wrote too little for the drill to mean anything"

        for path, before in dumps:
            header, rows, end = read_dump(path)
            assert end["end"] is True and end["rows"] == {name: len(found) for name, found in rows.items()}
            assert dangling_references(rows) == [], path.name
            post_ids = {row["id"] for row in rows["posts"]}
            assert set(before) <= post_ids, "a write acknowledged before the export began is missing"
            # Counts kept on one table agree with the rows of another, read later in the export.
            approved: dict[int, int] = {}
            for comment in rows["comments"]:
                if comment["status"] == "approved":
                    approved[comment["post_id"]] = approved.get(comment["post_id"], 0) + 1
            assert {row["id"]: row["comment_count"] for row in rows["posts"] if row["comment_count"] or row["id"] in approved} \
                == approved, path.name
        # The writes went on while the dumps were made: they differ.
        assert len({len(read_dump(path)[1]["posts"]) for path, _ in dumps}) > 1

        # Restore the last dump: a new data folder with the old secret key and uploads, a new
        # database upgraded by the same calpress, the dump imported, then served.
        dump_path = dumps[-1][0]
        old_data = Path(server.env["CALPRESS_DATA_DIR"])
    restored_folder = tmp_path / "restored"
    new_data = restored_folder / "live"
    new_data.mkdir(parents=True)
    shutil.copy2(old_data / "secret.key", new_data / "secret.key")
    shutil.copytree(old_data / "uploads", new_data / "uploads")
    env = {**os.environ, "CALPRESS_DATA_DIR": str(new_data), "CALPRESS_DATABASE_URL": empty_db_url}
    assert "Success" in cli(env, "db", "upgrade")
    assert "Success: Imported" in cli(env, "db", "import", str(dump_path))
    _, rows, _ = read_dump(dump_path)
    with serving(empty_db_url, restored_folder) as restored:
        with httpx.Client(base_url=restored.url + "/wp-json", auth=("admin", password), timeout=30) as client:
            me = client.get("/cms/v2/users/me")
            assert me.status_code == 200, "the application password does not work with the restored secret key"
            listed = client.get("/cms/v2/posts", params={"per_page": 100, "orderby": "id", "order": "asc"})
            assert listed.status_code == 200
            expected = sorted((row["id"], row["title"]) for row in rows["posts"] if row["type"] == "post")
            assert int(listed.headers["x-wp-total"]) == len(expected)
            assert [(item["id"], item["title"]["rendered"]) for item in listed.json()] == expected[:100]
            events = client.get("/cal/events/v1/events", params={"start_date": "2000-01-01", "per_page": 1})
            assert events.json()["total"] == sum(1 for row in rows["posts"]
                                                 if row["type"] == "cal_events" and row["status"] == "publish")
            comments = client.get("/cms/v2/comments", params={"per_page": 1})
            assert int(comments.headers["x-wp-total"]) == len(rows["comments"])
        served = httpx.get(f"{restored.url}/wp-content/uploads/{upload_file}")
        assert served.status_code == 200 and served.content == (old_data / "uploads" / upload_file).read_bytes()
