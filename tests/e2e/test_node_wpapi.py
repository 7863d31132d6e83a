"""node-wpapi, a real JavaScript client, uploads media to a real server process:
``WPAPI.discover(url)`` then ``.namespace("cms/v2").media().file(path).create({...})``
(tests/js/upload_media.js; scripts/test installs the client with ``npm ci``)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from PIL import Image

JS = Path(__file__).resolve().parent.parent / "js"

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_node_wpapi_uploads_an_image(live_server, tmp_path):
    if shutil.which("node") is None or not (JS / "node_modules" / "wpapi").exists():
        pytest.skip("node or node-wpapi missing (scripts/test runs npm ci in tests/js when npm is installed)")
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
    password = live_server.cli("user", "application-password", "create", "admin", "node", "--porcelain").strip()
    picture = tmp_path / "harbour.jpg"
    buffer = io.BytesIO()
    Image.new("RGB", (800, 600), "navy").save(buffer, format="JPEG")
    picture.write_bytes(buffer.getvalue())
    done = subprocess.run(["node", str(JS / "upload_media.js"), live_server.url, "admin", password, str(picture), "Harbour"],
                          capture_output=True, text=True, timeout=60, cwd=JS)
    assert done.returncode == 0, done.stderr[-2000:]
    created = json.loads(done.stdout)
    assert created["title"]["raw"] == "Harbour" and created["alt_text"] == "Uploaded by node-wpapi"
    assert created["mime_type"] == "image/jpeg" and created["media_details"]["width"] == 800
    stored = httpx.get(created["source_url"])
    assert stored.status_code == 200 and stored.content == picture.read_bytes()
    thumbnail = httpx.get(created["media_details"]["sizes"]["thumbnail"]["source_url"])
    assert Image.open(io.BytesIO(thumbnail.content)).size == (150, 150)


@pytest.mark.parametrize("db_leg", ["sqlite"], indirect=True)
def test_a_raw_upload_larger_than_the_json_limit_through_the_server(live_server):
    """12 MB (over CALPRESS_MAX_BODY, under CALPRESS_MAX_UPLOAD) through calpress serve's front,
    which streams it to the app, which spools it: stored whole."""
    live_server.cli("user", "create", "admin", "admin@example.test", "--role=administrator")
    password = live_server.cli("user", "application-password", "create", "admin", "big", "--porcelain").strip()
    head = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    data = head + bytes(range(256)) * (12 * 4096)
    response = httpx.post(live_server.url + "/wp-json/cms/v2/media", content=data, auth=("admin", password), timeout=60,
                          headers={"Content-Type": "video/mp4", "Content-Disposition": "attachment; filename=clip.mp4"})
    assert response.status_code == 201, response.text[:300]
    assert response.json()["media_details"]["filesize"] == len(data)
    assert httpx.get(response.json()["source_url"], timeout=60).content == data
    refused = httpx.post(live_server.url + "/wp-json/cms/v2/posts", content=b"{" + b" " * (9 * 1024 * 1024) + b"}",
                         auth=("admin", password), headers={"Content-Type": "application/json"}, timeout=60)
    assert refused.status_code == 413
