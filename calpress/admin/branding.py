"""The site identity fields of Settings > General: the logo, the icon and the extra CSS.

WordPress sets all three in the Customizer (Site Identity: logo and icon; Additional CSS); there
is no Customizer here, so they sit on the General screen beside the title and tagline they go
with: one place, one save, for what the site looks like by name. The logo and icon are chosen
from the media library's images (a select of their titles; upload them at Media > Add New), and
stored as the ``site_logo`` and ``site_icon`` settings through the REST settings route, as the
Customizer stores them. Choosing an icon cuts its square copies (:func:`calpress.media.icons.icon_sizes`),
as WordPress crops the icon when it is chosen. The CSS is the ``calpress_custom_css`` option,
refused when it holds markup (:func:`calpress.pages.branding.check_css`).
"""

from __future__ import annotations

import html
from typing import Any

from ..media.icons import icon_sizes
from ..pages.branding import CSS_OPTION, check_css
from .shell import AdminRequest
from .values import number

__all__ = ["FIELDS", "context", "read", "values"]

FIELDS = ("site_logo", "site_icon", CSS_OPTION)
NOT_AN_IMAGE = "Choose an image of the media library."


def images(r: AdminRequest) -> list[tuple[int, str]]:
    """The library's images, newest first, as (id, title) choices."""
    answer = r.api.get("/cms/v2/media", media_type="image", per_page=100, context="edit", _fields="id,title")
    rows = answer.data if answer.ok and isinstance(answer.data, list) else []
    return [(row["id"], html.unescape(str((row.get("title") or {}).get("raw") or "")) or f"#{row['id']} (no title)")
            for row in rows]


def values(r: AdminRequest, current: dict[str, Any], options: Any) -> dict[str, Any]:
    """The fields as the form shows them (``current``: the REST settings)."""
    return {"site_logo": int(current.get("site_logo") or 0), "site_icon": int(current.get("site_icon") or 0),
            CSS_OPTION: str(options.get(CSS_OPTION) or "")}


def read(r: AdminRequest, shown: dict[str, Any], change: Any) -> None:
    """Read the fields into ``change`` (a settings screen's Change): the ids for the REST route,
    the CSS as an option, errors beside their fields."""
    known: set[int] | None = None
    for name in ("site_logo", "site_icon"):
        chosen = number(r.field(name), None)
        change.sent[name] = chosen if chosen is not None else r.field(name)
        if chosen == shown[name]:
            continue
        if chosen is None or chosen < 0:
            change.errors[name] = NOT_AN_IMAGE
            continue
        if chosen:
            known = known if known is not None else {image_id for image_id, _ in images(r)}
            if chosen not in known:
                change.errors[name] = NOT_AN_IMAGE
                continue
        change.rest[name] = chosen
    css = r.field(CSS_OPTION).replace("\r\n", "\n")
    change.sent[CSS_OPTION] = css
    fault = check_css(css)
    if fault:
        change.errors[CSS_OPTION] = fault
    elif css.strip() != shown[CSS_OPTION].strip():
        change.options[CSS_OPTION] = css.strip() or None
    icon = change.rest.get("site_icon")
    if icon and not change.errors:
        with r.site.write() as conn:
            icon_sizes(conn, r.ctx, r.site.storage, icon)


def context(r: AdminRequest) -> dict[str, Any]:
    return {"images": images(r), "css_option": CSS_OPTION}
