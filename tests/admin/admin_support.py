"""The workspace's screens through the app in process, logged in with the login form's cookie (the
Browser, fields_of and the as_role fixture, which tests/admin/conftest.py loads)."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def location(answer: Any) -> str:
    """Where a change sent the browser (post/redirect/get)."""
    assert answer.status_code in (302, 303), (answer.status_code, answer.text[:800])
    return answer.headers["location"]


def query_of(url: str) -> dict[str, str]:
    """An address's query, the last value of each name."""
    return {key: values[-1] for key, values in parse_qs(urlsplit(url).query).items()}


def query_lists(url: str) -> dict[str, list[str]]:
    """An address's query, every value of each name."""
    return parse_qs(urlsplit(url).query)


class Browser:
    """A logged-in user's requests to the workspace: pages as text, forms posted with their nonce."""

    def __init__(self, client: Any, account: Any) -> None:
        self.http = client.http
        answer = self.http.simulate_post("/wp-login.php", body=urlencode({"log": account.login, "pwd": account.password}),
                                         headers=FORM)
        assert answer.status_code in (302, 303), answer.text[:300]
        self.cookie = {"Cookie": answer.headers["set-cookie"].split(";", 1)[0]}
        self.account = account

    def get(self, path: str, **kwargs: Any):
        return self.http.simulate_get(path, headers=self.cookie, **kwargs)

    def post(self, path: str, fields: dict[str, Any] | list[tuple[str, Any]]):
        return self.http.simulate_post(path, body=urlencode(fields, doseq=True), headers={**self.cookie, **FORM})

    def form(self, path: str, form_id: str | None = None) -> dict[str, Any]:
        """The fields a form of the page at ``path`` sends as shown (inputs' values, checked
        boxes, selected options), to change and post."""
        page = self.get(path)
        assert page.status_code == 200, page.text[:500]
        return fields_of(page.text, form_id)


def fields_of(html: str, form_id: str | None = None) -> dict[str, Any]:
    if form_id:
        start = html.index(f'id="{form_id}"')
        html = html[start:html.index("</form>", start)]
    found: dict[str, Any] = {}
    for tag in re.findall(r"<input\b[^>]*>", html):
        attrs = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', tag))
        name = attrs.get("name")
        if not name or attrs.get("type") in ("submit", "button"):
            continue
        if attrs.get("type") in ("checkbox", "radio") and " checked" not in tag:
            continue
        value = unescape(attrs.get("value", ""))
        if name.endswith("[]"):
            found.setdefault(name, []).append(value)
        else:
            found[name] = value
    for name, body in re.findall(r'<textarea[^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', html, re.S):
        found[name] = unescape(body)
    for attrs, body in re.findall(r"<select\b([^>]*)>(.*?)</select>", html, re.S):
        name = re.search(r'name="([^"]+)"', attrs)
        if not name:
            continue
        chosen = [unescape(v) for v in re.findall(r'<option value="([^"]*)"[^>]*\bselected', body)]
        if " multiple" in attrs:
            found[name.group(1)] = chosen
        elif chosen:
            found[name.group(1)] = chosen[0]
        else:
            first = re.search(r'<option value="([^"]*)"', body)
            found[name.group(1)] = unescape(first.group(1)) if first else ""
    return found


@pytest.fixture()
def as_role(client, accounts):
    """``as_role("editor")``: a Browser logged in as that role's account."""
    return lambda role: Browser(client, accounts[role])
