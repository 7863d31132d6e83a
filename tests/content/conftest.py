"""Fixtures of the content tests: a site over the test database (both legs), for the item
service tests."""

from __future__ import annotations

import pytest
from item_support import HOME

from calpress.app import build_site
from calpress.config import load_settings


@pytest.fixture()
def site(db_url, tmp_path):
    settings = load_settings(
        {"data_dir": str(tmp_path), "database_url": db_url, "secret_key": "x", "site_url": HOME}, environ={}
    )
    found = build_site(settings, upgrade=False)
    yield found
    found.close()
