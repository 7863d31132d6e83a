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
