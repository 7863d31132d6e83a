"""The browser tests' shared fixtures (browser_support.py): one Chromium per worker, the workspace's site."""

from browser_support import browser, chromium, visit, workspace_site  # noqa: F401 - the shared Chromium, the workspace's fixtures
