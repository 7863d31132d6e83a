"""The revisions screen (``revision.php``) in headless Chromium against a real server: an editor's
post edited twice through the REST API, two revisions compared with the screen's form, the older one
restored, and the REST API showing the older content. Each state of the screen passes axe-core and
is captured at 1280 and 390 pixels (browser_support.py)."""

from __future__ import annotations

import re

import httpx
import pytest
from browser_support import PASSWORD

pytestmark = pytest.mark.browser


def test_an_editor_compares_two_revisions_and_restores_the_older_one(visit, workspace_site):
    server, _ = workspace_site
    secret = server.cli("user", "application-password", "create", "editor", "revisions test", "--porcelain").strip()
    with httpx.Client(base_url=server.url, auth=("editor", secret), timeout=20) as rest:
        post = rest.post("/cms/v2/posts", json={"title": "Harbour walk", "status": "publish",
                                                "content": "Meet at the pier.\nBring boots.", "excerpt": "A short walk."})
        assert post.status_code == 201, post.text
        post_id = post.json()["id"]
        for fields in ({"title": "Harbour walk at dawn", "content": "Meet at the pier.\nBring warm boots.",
                        "excerpt": "A short walk by the sea."},
                       {"title": "Harbour walk at dusk", "content": "Meet at the lighthouse.\nBring warm boots.",
                        "excerpt": "A long walk by the sea."}):
            assert rest.post(f"/cms/v2/posts/{post_id}", json=fields).status_code == 200
        newest, older = [found["id"] for found in rest.get(f"/cms/v2/posts/{post_id}/revisions").json()]

        editor = visit()
        editor.login("editor", PASSWORD, target=f"/wp-admin/revision.php?revision={newest}")
        page = editor.page
        assert page.inner_text("h1") == "Compare Revisions of “Harbour walk at dusk”"
        assert page.inner_text("#diff-title del") == "dawn" and page.inner_text("#diff-title ins") == "dusk"
        assert page.locator("#restore").count() == 0  # the current revision
        editor.check("revision")

        # The older revision on the right, chosen in the form (a plain GET, no script needed).
        page.select_option("#compare-from", str(newest))
        page.select_option("#compare-to", str(older))
        page.click("#compare")
        page.wait_for_url(re.compile(rf"from={newest}&to={older}"))
        assert page.inner_text("#diff-content del") == "lighthouse" and page.inner_text("#diff-content ins") == "pier"
        assert page.inner_text("#diff-excerpt del") == "long" and page.inner_text("#diff-excerpt ins") == "short"
        assert "[Current Revision]" in page.inner_text(".diff-meta-from")
        editor.check("revision-compare")

        page.click("#restore")
        page.wait_for_url(re.compile(rf"/wp-admin/post\.php\?post={post_id}&action=edit&message=5&revision={older}"))
        found = rest.get(f"/cms/v2/posts/{post_id}", params={"context": "edit"}).json()
        assert found["title"]["raw"] == "Harbour walk at dawn"
        assert found["content"]["raw"] == "Meet at the pier.\nBring warm boots."
        assert found["excerpt"]["raw"] == "A short walk by the sea."
        assert len(rest.get(f"/cms/v2/posts/{post_id}/revisions").json()) == 3  # the restore stored one
