"""The browser tests' shared fixtures: the workspace's (workspace_support.py)."""

from workspace_support import chromium, visit, workspace_site  # noqa: F401 - fixtures for the workspace's tests
