"""Workspace screens: settings (being built; see admin/__init__.py)."""

from __future__ import annotations

from .shell import Screen

SCREENS: list[Screen] = []
