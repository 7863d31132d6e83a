"""The editors' workspace at WordPress's ``/wp-admin/`` addresses: server-rendered screens that
change the site only through the REST engine, as the logged-in user (DESIGN.md, "The workspace").

* :mod:`.shell`: who may open a screen, the request a screen works with, the page around it;
* :mod:`.api`: REST requests in process as the user;
* :mod:`.menu`: the menu and the admin bar;
* :mod:`.content`: the list table and the editor every content type shares (:mod:`.calendar`
  declares the calendar's columns, filters and panels);
* :mod:`.assets`: the workspace's own stylesheet and script, and the browser libraries npm
  installs (flatpickr, Tom Select...), served under ``/wp-admin/assets/``;
* one module per other family of screens.

``SCREENS`` lists every screen; the page table (pages/__init__.py) routes each file to the one
:class:`.shell.Workspace`, and the menu shows an entry only once its screen is listed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import calendar as _calendar  # noqa: F401 - registers the calendar's types
from . import comments, media, nav_menus, revisions, settings, terms, tools, users
from .assets import ASSETS_PATH, AdminAssets
from .content import (
    EditScreen,
    ItemScreen,
    NewScreen,
    Panel,
    TypeAdmin,
    month_filter,
    register_subpage,
    register_type,
    term_filter,
)
from .dashboard import Dashboard
from .shell import ADMIN, Screen, Workspace

if TYPE_CHECKING:
    from ..app import Calpress

__all__ = ["ADMIN", "ASSETS_PATH", "SCREENS", "AdminAssets", "Panel", "Screen", "TypeAdmin", "Workspace", "build_workspace",
           "register_type"]

register_type(TypeAdmin("post", filters=[month_filter("post"), term_filter("category", "All Categories", "categories")]))
register_type(TypeAdmin("page", default_orderby="title", default_order="asc", filters=[month_filter("page")]))
# Synced patterns (reusable blocks), written in the block editor like posts (Appearance, Patterns).
register_type(TypeAdmin("wp_block", default_orderby="title", default_order="asc"))

# The calendar's settings answer at edit.php?post_type=cal_events&page=cal-events-calendar, as The
# Events Calendar's do, and at their own file name.
register_subpage("cal_events", settings.CAL_SETTINGS_PAGE,
                 next(screen for screen in settings.SCREENS if isinstance(screen, settings.CalendarSettings)))

SCREENS: list[Screen] = [Dashboard(), EditScreen(), NewScreen(), ItemScreen(), *media.SCREENS, *terms.SCREENS,
                         *users.SCREENS, *settings.SCREENS, *revisions.SCREENS, *comments.SCREENS,
                         *tools.SCREENS, *nav_menus.SCREENS]


def build_workspace(calpress: Calpress) -> Workspace:
    return Workspace(calpress, SCREENS)
