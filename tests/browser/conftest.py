"""The browser tests' shared fixtures: the workspace's (browser_support.py)."""

from browser_support import chromium, visit, workspace_site  # noqa: F401 - fixtures for the workspace's tests
