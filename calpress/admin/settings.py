"""The settings screens (administrators): Settings > General, Reading and Discussion at
WordPress's addresses, and the calendar's settings (The Events Calendar's Events > Settings,
``edit.php?post_type=cal_events&page=cal-events-calendar``, served by :class:`CalendarSettings`).

Each form posts back with a nonce; what changed is checked as the reference checks it, then the
options ``/cms/v2/settings`` serves are written through that route (its own validation and
cleaning; its errors come back beside their field) and the others through :func:`write_options`.
A save ends with a redirect to ``?settings-updated=true``, which shows "Settings saved."
Only options that change: a form saved unchanged pins nothing (the site address stays the
address each request comes in on until one is typed).

Offered are only options something in calpress reads: the front page and the calendar's list
read ``posts_per_page``; views read ``viewOption``, ``tribe_events_timezones_show_zone``, the
date formats and separators; costs read the ``cal_currency_*`` options; listings are capped by
``events_max_per_page``; the reference's route names follow ``calpress_compat_aliases``.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from ..api.naming import OPTION as COMPAT_OPTION
from ..auth.roles import ROLE_NAMES
from ..calendar.listing import MAX_PER_PAGE
from ..calendar.views import DEFAULT_VIEW
from ..calendar.views import VIEWS as VIEW_SLUGS
from ..compat.phpdate import format_php
from ..content.items import site_zone
from ..content.slugs import strip_tags
from ..site_settings import Rejected, clean_option, zone_names
from . import branding, reading_calendar
from .shell import AdminRequest, Forbidden, Screen
from .values import number

__all__ = ["CAL_SETTINGS_PAGE", "SCREENS", "CalendarSettings", "write_options"]

SETTINGS_ROUTE = "/cms/v2/settings"
SAVED = "Settings saved."
NOT_SAVED = "The settings were not saved. Correct the fields marked below."
NOT_ALLOWED = "Sorry, you are not allowed to manage options for this site."
CUSTOM = "\\c\\u\\s\\t\\o\\m"  # the value of WordPress's "Custom:" format radio
DATE_FORMATS = ("F j, Y", "Y-m-d", "m/d/Y", "d/m/Y", "d.m.Y")
TIME_FORMATS = ("g:i a", "g:i A", "H:i")
WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
CONTINENTS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific")
# WordPress's manual offsets (wp_timezone_choice), in hours.
OFFSETS = (-12, -11.5, -11, -10.5, -10, -9.5, -9, -8.5, -8, -7.5, -7, -6.5, -6, -5.5, -5, -4.5, -4, -3.5, -3, -2.5,
           -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 5.75, 6, 6.5, 7, 7.5, 8, 8.5, 8.75, 9,
           9.5, 10, 10.5, 11, 11.5, 12, 12.75, 13, 13.75, 14)
BAD_ZONE = "The timezone you have entered is not valid. Please select a valid timezone."
POSITIVE = "Enter a whole number of at least 1."

# The REST settings' names -> the form fields that show them (errors appear beside these).
FORM_NAMES = {"title": "blogname", "description": "blogdescription", "url": "siteurl", "email": "admin_email",
              "timezone": "timezone_string"}

# The calendar's settings page: its address in the reference, and the file name it is
# registered under (not a real file: edit.php dispatches ``page=cal-events-calendar`` to it).
CAL_SETTINGS_PAGE = "cal-events-calendar"
CAL_SETTINGS_FILE = "cal-settings"
VIEWS = {slug: slug.title() for slug in VIEW_SLUGS}  # as the views' selector labels them
# What the calendar shows when these options are not stored (pages/cards.py, calendar/events.py).
CAL_DEFAULTS = {"dateWithoutYearFormat": "F j", "dateTimeSeparator": " @ ", "timeRangeSeparator": " - ",
                "cal_currency_symbol": "$", "cal_currency_code": "USD", "events_max_per_page": MAX_PER_PAGE,
                "viewOption": DEFAULT_VIEW}


# -- storing ------------------------------------------------------------------------------------


def write_options(r: AdminRequest, values: dict[str, Any]) -> None:
    """Store options the REST settings route does not serve (None deletes one, so its default
    shows again), in one transaction. Not through REST because no route serves them; the
    reference's own settings screens write options directly too (options.php's update_option).
    Callers have checked ``manage_options``, the form's nonce and every value."""
    if not values:
        return
    with r.site.write() as conn:
        for name, value in values.items():
            if value is None:
                r.site.delete_option(conn, name)
            else:
                r.site.update_option(conn, name, value)


@dataclass
class Change:
    """What a posted settings form asks: settings for the REST route, other options, errors by
    form field, and the form as sent (shown again after an error)."""

    sent: dict[str, Any]
    rest: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def rest_if_changed(self, name: str, value: Any, current: Any) -> None:
        if value != current:
            self.rest[name] = value

    def option_if_changed(self, name: str, value: Any, shown: Any, stored: dict[str, Any]) -> None:
        """Store ``value`` unless the form showed it; None deletes a stored option."""
        if value == shown or (value is None and name not in stored):
            return
        self.options[name] = value

    def checked(self, option: str, value: Any, form_field: str) -> None:
        """The reference's sanitize_option check of a REST setting's value: an error beside the
        field where it would keep the stored value (the REST route keeps it silently)."""
        try:
            clean_option(option, value)
        except Rejected as refused:
            self.errors[form_field] = str(refused)


def _flag(r: AdminRequest, name: str) -> bool:
    return r.field(name) not in ("", "0")


_MISSING = object()


def _stored(r: AdminRequest, names: tuple[str, ...]) -> dict[str, Any]:
    """The options among ``names`` that are stored (not defaults), read now."""
    with r.site.read() as conn:
        return {name: value for name in names if (value := r.site.stored_option(conn, name, _MISSING)) is not _MISSING}


def _plain(text: str, limit: int = 100) -> str:
    """A short text setting as the calendar prints it: no tags, no line breaks."""
    return re.sub(r"[\r\n\t]+", " ", strip_tags(text))[:limit]


# -- the screens --------------------------------------------------------------------------------


class OptionsScreen(Screen):
    """A settings form: shown with the current values; posted, checked, saved, redirected."""

    capability = "manage_options"
    template = ""
    title = ""
    nonce_action = ""  # WordPress's settings_fields nonce: "<group>-options"

    def address(self, r: AdminRequest, **query: Any) -> str:
        return r.url(self.file, **query)

    def values(self, r: AdminRequest) -> dict[str, Any]:
        raise NotImplementedError

    def read(self, r: AdminRequest, shown: dict[str, Any]) -> Change:
        raise NotImplementedError

    def context(self, r: AdminRequest, values: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _allowed(self, r: AdminRequest) -> None:
        # Also here, not only in the shell: the calendar's page is reached through edit.php,
        # whose own capability is less.
        if not r.can(self.capability):
            raise Forbidden(NOT_ALLOWED)

    def get(self, r: AdminRequest) -> None:
        self._allowed(r)
        if r.param("settings-updated") == "true":
            r.notice(SAVED)
        self.show(r, self.values(r), {})

    def post(self, r: AdminRequest) -> None:
        self._allowed(r)
        r.verify(self.nonce_action)
        change = self.read(r, self.values(r))
        if not change.errors and change.rest:
            answer = r.api.post(SETTINGS_ROUTE, change.rest)
            if not answer.ok:
                change.errors = {FORM_NAMES.get(name, name): reason for name, reason in answer.field_errors.items()} \
                    or {"": answer.message}
        if change.errors:
            r.notice(change.errors.get("") or NOT_SAVED, "error")
            self.show(r, change.sent, change.errors, 400)
            return
        write_options(r, change.options)
        r.redirect(self.address(r, **{"settings-updated": "true"}))

    def show(self, r: AdminRequest, values: dict[str, Any], errors: dict[str, str], code: int = 200) -> None:
        r.render(self.template, code, title=self.title, values=values, errors=errors, action=self.address(r),
                 nonce=r.nonce(self.nonce_action), **self.context(r, values))

    @staticmethod
    def current(r: AdminRequest) -> dict[str, Any]:
        """The settings as the REST route shows them."""
        answer = r.api.get(SETTINGS_ROUTE)
        if not answer.ok or not isinstance(answer.data, dict):
            raise Forbidden(answer.message or NOT_ALLOWED, answer.status if not answer.ok else 500)
        return answer.data


# -- General ------------------------------------------------------------------------------------


def _offset_text(hours: float) -> str:
    number = f"{hours:g}"
    return "UTC" + (number if hours < 0 else "+" + number)


def _offset_label(hours: float) -> str:
    return _offset_text(hours).replace(".25", ":15").replace(".5", ":30").replace(".75", ":45")


@functools.cache
def timezone_groups() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The time zone select as WordPress's wp_timezone_choice: cities by continent, UTC, then
    the manual offsets; each choice (value, label)."""
    groups: dict[str, list[tuple[str, str]]] = {name: [] for name in CONTINENTS}
    for name in zoneinfo.available_timezones():
        head, _, rest = name.partition("/")
        if head in groups and rest:
            groups[head].append((name, rest.replace("_", " ").replace("/", " - ")))
    found = [(head, tuple(sorted(items, key=lambda item: item[1]))) for head, items in groups.items() if items]
    found.append(("UTC", (("UTC", "UTC"),)))
    found.append(("Manual Offsets", tuple((_offset_text(hours), _offset_label(hours)) for hours in OFFSETS)))
    return tuple(found)


def shown_timezone(timezone_string: str, gmt_offset: Any) -> str:
    """The select's value for the stored zone: its name, else the offset (``UTC+5.5``), as
    options-general.php (old ``Etc/GMT`` names fall back to the offset)."""
    if timezone_string and "Etc/GMT" not in timezone_string:
        return timezone_string
    try:
        hours = float(gmt_offset or 0)
    except (TypeError, ValueError):
        hours = 0.0
    return _offset_text(hours if hours else 0)


def _offset_of(value: str) -> str | None:
    """The ``gmt_offset`` a manual offset choice stores ("UTC+5.5" -> "5.5"), None if not one."""
    if not re.fullmatch(r"UTC[+-]\d{1,2}(\.\d{1,2})?", value):
        return None
    number = value[3:].lstrip("+")
    try:
        hours = float(number)
    except ValueError:
        return None
    return f"{hours:g}" if hours in OFFSETS else None


class GeneralSettings(OptionsScreen):
    """``options-general.php``: title, tagline, addresses, administration e-mail, new users' role,
    time zone, date and time formats, the first day of the week."""

    file = "options-general.php"
    template = "admin/options-general.html"
    title = "General Settings"
    nonce_action = "general-options"

    def values(self, r: AdminRequest) -> dict[str, Any]:
        current = self.current(r)
        options = r.site.load_options()
        return {
            "blogname": html.unescape(str(current.get("title") or "")),
            "blogdescription": html.unescape(str(current.get("description") or "")),
            "siteurl": str(options.get("siteurl") or ""), "home": str(options.get("home") or ""),
            "admin_email": str(current.get("email") or ""), "default_role": str(options.get("default_role") or ""),
            "timezone_string": shown_timezone(str(current.get("timezone") or ""), options.get("gmt_offset")),
            "date_format": str(current.get("date_format") or ""), "time_format": str(current.get("time_format") or ""),
            "start_of_week": current.get("start_of_week") if current.get("start_of_week") is not None else 1,
            **branding.values(r, current, options),  # logo, icon, extra CSS (admin/branding.py)
        }

    def read(self, r: AdminRequest, shown: dict[str, Any]) -> Change:
        # Trimmed, as options.php trims every value.
        sent = {name: r.field(name).strip() for name in ("blogname", "blogdescription", "siteurl", "home", "admin_email",
                                                          "default_role", "timezone_string")}
        for name in ("date_format", "time_format"):
            chosen = r.field(name)
            sent[name] = (r.field(f"{name}_custom") if chosen == CUSTOM else chosen).strip()
        week = number(r.field("start_of_week"), None)
        sent["start_of_week"] = week if week is not None else r.field("start_of_week")
        change = Change(sent)
        change.rest_if_changed("title", sent["blogname"], shown["blogname"])
        change.rest_if_changed("description", sent["blogdescription"], shown["blogdescription"])
        if sent["siteurl"] != shown["siteurl"]:
            if sent["siteurl"]:
                change.checked("siteurl", sent["siteurl"], "siteurl")
                change.rest["url"] = sent["siteurl"]
            else:
                change.rest["url"] = None  # none stored: the address each request comes in on
        if sent["home"] != shown["home"]:
            if not sent["home"]:
                change.options["home"] = None  # the site address
            elif not re.match(r"https?://.", sent["home"], re.IGNORECASE):
                change.errors["home"] = "The home address entered did not appear to be a valid URL (http:// or https://)."
            else:
                change.options["home"] = clean_option("siteurl", sent["home"])  # the same cleaning as the site address
        if sent["admin_email"] != shown["admin_email"]:
            change.checked("admin_email", sent["admin_email"], "admin_email")
            change.rest["email"] = sent["admin_email"]
        if sent["default_role"] not in ROLE_NAMES:
            change.errors["default_role"] = "Choose a role."
        elif sent["default_role"] != shown["default_role"]:
            change.options["default_role"] = sent["default_role"]
        self._timezone(sent["timezone_string"], shown["timezone_string"], change)
        for name, label in (("date_format", "date"), ("time_format", "time")):
            if not sent[name].strip():
                change.errors[name] = f"Enter a {label} format."
            change.rest_if_changed(name, sent[name], shown[name])
        if not isinstance(week, int) or not 0 <= week <= 6:
            change.errors["start_of_week"] = "Choose a day of the week."
        change.rest_if_changed("start_of_week", sent["start_of_week"], shown["start_of_week"])
        branding.read(r, shown, change)
        return change

    @staticmethod
    def _timezone(chosen: str, shown: str, change: Change) -> None:
        """A city stores ``timezone_string``; a manual offset stores ``gmt_offset`` and empties
        ``timezone_string`` (options.php's rule)."""
        if chosen == shown:
            return
        offset = _offset_of(chosen)
        if offset is not None:
            change.rest["timezone"] = ""
            change.options["gmt_offset"] = offset
        elif chosen in zone_names():
            change.rest["timezone"] = chosen
        else:
            change.errors["timezone_string"] = BAD_ZONE

    def context(self, r: AdminRequest, values: dict[str, Any]) -> dict[str, Any]:
        options = r.site.load_options()
        now = dt.datetime.now(dt.UTC)
        local = now.astimezone(site_zone(options))
        groups = timezone_groups()
        listed = {value for _, choices in groups for value, _ in choices}
        chosen = values.get("timezone_string") or ""
        if chosen and chosen not in listed:  # a zone stored by other means (an old alias): kept selectable
            groups = (("Current", ((chosen, chosen),)), *groups)
        return {
            "zones": groups, "roles": list(ROLE_NAMES.items()), "weekdays": list(enumerate(WEEKDAYS)),
            "date_formats": [(fmt, format_php(local, fmt)) for fmt in DATE_FORMATS],
            "time_formats": [(fmt, format_php(local, fmt)) for fmt in TIME_FORMATS],
            "custom": CUSTOM, "utc_time": format_php(now, "Y-m-d H:i:s"), "local_time": format_php(local, "Y-m-d H:i:s"),
            "preview": lambda fmt: format_php(local, fmt),
            "request_address": r.origin,
            **branding.context(r),
        }


# -- Reading ------------------------------------------------------------------------------------


class ReadingSettings(OptionsScreen):
    """``options-reading.php``: what the front page shows (the latest posts or a page, and the
    posts page), how many items a page lists (posts, and the calendar's list of events), and
    whether search engines are asked to stay away (``blog_public``)."""

    file = "options-reading.php"
    template = "admin/options-reading.html"
    title = "Reading Settings"
    nonce_action = "reading-options"

    def values(self, r: AdminRequest) -> dict[str, Any]:
        current = self.current(r)
        return {"show_on_front": current.get("show_on_front") or "posts", "page_on_front": current.get("page_on_front") or 0,
                "page_for_posts": current.get("page_for_posts") or 0, "posts_per_page": current.get("posts_per_page") or 10,
                "discourage": str(r.site.load_options().get("blog_public", 1)).strip() == "0",
                **reading_calendar.values(r)}

    @staticmethod
    def pages(r: AdminRequest) -> list[tuple[int, str]]:
        """The published pages, as wp_dropdown_pages lists them."""
        answer = r.api.get("/cms/v2/pages", status="publish", per_page=100, orderby="title", order="asc", context="edit",
                           _fields="id,title")
        rows = answer.data if answer.ok and isinstance(answer.data, list) else []
        return [(row["id"], html.unescape(str((row.get("title") or {}).get("raw") or "")) or f"#{row['id']} (no title)")
                for row in rows]

    def read(self, r: AdminRequest, shown: dict[str, Any]) -> Change:
        sent: dict[str, Any] = {"show_on_front": r.field("show_on_front"), "page_on_front": number(r.field("page_on_front"), None) or 0,
                                "page_for_posts": number(r.field("page_for_posts"), None) or 0}
        per_page = number(r.field("posts_per_page"), None)
        sent["posts_per_page"] = per_page if per_page is not None else r.field("posts_per_page")
        # "Search engine visibility": the box sends blog_public=0, as the reference's; unticked, 1.
        sent["discourage"] = r.field("blog_public") == "0"
        change = Change(sent)
        if sent["discourage"] != shown["discourage"]:
            change.options["blog_public"] = 0 if sent["discourage"] else 1
        if sent["show_on_front"] not in ("posts", "page"):
            change.errors["show_on_front"] = "Choose what the homepage displays."
        known = {page_id for page_id, _ in self.pages(r)}
        for name in ("page_on_front", "page_for_posts"):
            choices = known | {page_id for page_id, _ in reading_calendar.front_choices()} if name == "page_on_front" else known
            if sent[name] and sent[name] not in choices and sent[name] != shown[name]:
                change.errors[name] = "Choose a published page."
        if sent["show_on_front"] == "page" and not sent["page_on_front"] and not sent["page_for_posts"]:
            change.errors["page_on_front"] = "Choose the page the homepage displays."
        for name in ("show_on_front", "page_on_front", "page_for_posts"):
            change.rest_if_changed(name, sent[name], shown[name])
        _per_page(change, "posts_per_page", shown["posts_per_page"])
        reading_calendar.read(r, change, shown)
        return change

    def context(self, r: AdminRequest, values: dict[str, Any]) -> dict[str, Any]:
        pages = self.pages(r)
        same = values.get("show_on_front") == "page" and values.get("page_on_front") and \
            values.get("page_on_front") == values.get("page_for_posts")
        return {"pages": pages, "same_pages": same,
                "calendar_settings": r.url("edit.php", post_type="cal_events", page=CAL_SETTINGS_PAGE),
                **reading_calendar.context()}


def _per_page(change: Change, name: str, shown: Any) -> None:
    """``posts_per_page`` goes to the REST route: a number below 1 is refused here (the form's
    minimum, which the route would turn into 1); what is no number, the route refuses."""
    value = change.sent[name]
    if isinstance(value, int) and value < 1:
        change.errors[name] = POSITIVE
    change.rest_if_changed("posts_per_page", value, shown)


# -- Discussion ---------------------------------------------------------------------------------


DISCUSSION_OPTIONS = ("comment_registration", "comment_moderation", "rest_allow_anonymous_comments")


class DiscussionSettings(OptionsScreen):
    """``options-discussion.php``: whether new posts take comments and link notifications, who may
    comment, and whether comments wait for approval."""

    file = "options-discussion.php"
    template = "admin/options-discussion.html"
    title = "Discussion Settings"
    nonce_action = "discussion-options"

    def values(self, r: AdminRequest) -> dict[str, Any]:
        current = self.current(r)
        options = r.site.load_options()
        return {"default_comment_status": current.get("default_comment_status") == "open",
                "default_ping_status": current.get("default_ping_status") == "open",
                **{name: _on(options.get(name)) for name in DISCUSSION_OPTIONS}}

    def read(self, r: AdminRequest, shown: dict[str, Any]) -> Change:
        # An unticked box sends nothing: off (options.php stores null for a listed option not sent).
        sent = {name: _flag(r, name) for name in ("default_comment_status", "default_ping_status", *DISCUSSION_OPTIONS)}
        change = Change(sent)
        for name in ("default_comment_status", "default_ping_status"):
            if sent[name] != shown[name]:
                change.rest[name] = "open" if sent[name] else "closed"
        for name in DISCUSSION_OPTIONS:
            if sent[name] != shown[name]:
                change.options[name] = sent[name]
        return change


def _on(value: Any) -> bool:
    """An option's truth as calpress reads "1"/"" options and words (api/cms_comments.option_on)."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


# -- the calendar -------------------------------------------------------------------------------


CALENDAR_OPTIONS = ("viewOption", "events_max_per_page", "tribe_events_timezones_show_zone", "dateWithYearFormat",
                    "dateWithoutYearFormat", "dateTimeSeparator", "timeRangeSeparator", "cal_currency_symbol",
                    "cal_currency_code", "cal_currency_reverse_position", COMPAT_OPTION)
TEXT_OPTIONS = ("dateWithYearFormat", "dateWithoutYearFormat", "dateTimeSeparator", "timeRangeSeparator")


class CalendarSettings(OptionsScreen):
    """The calendar's settings (the reference's Events > Settings): the default view, events per
    page and the most a page may list, time zones shown, the calendar's date formats and
    separators, the currency of costs, and the reference's route names."""

    file = CAL_SETTINGS_FILE
    template = "admin/cal-settings.html"
    title = "Calendar Settings"
    nonce_action = "cal-settings-options"

    def address(self, r: AdminRequest, **query: Any) -> str:
        # Where the page was asked for: edit.php?post_type=cal_events&page=... (the reference's
        # address, which the list table's screen hands over), or this screen's own file.
        if r.screen.file == "edit.php":
            return r.url("edit.php", post_type="cal_events", page=CAL_SETTINGS_PAGE, **query)
        return r.url(self.file, **query)

    def get(self, r: AdminRequest) -> None:
        r.post_type = "cal_events"
        super().get(r)

    def post(self, r: AdminRequest) -> None:
        r.post_type = "cal_events"
        super().post(r)

    def values(self, r: AdminRequest) -> dict[str, Any]:
        current = self.current(r)
        stored = _stored(r, CALENDAR_OPTIONS)
        found: dict[str, Any] = {name: stored.get(name, CAL_DEFAULTS.get(name, "")) for name in CALENDAR_OPTIONS}
        found["posts_per_page"] = current.get("posts_per_page") or 10
        found["viewOption"] = found["viewOption"] if found["viewOption"] in VIEWS else CAL_DEFAULTS["viewOption"]
        for name in ("tribe_events_timezones_show_zone", "cal_currency_reverse_position", COMPAT_OPTION):
            found[name] = _on(stored.get(name))
        found["events_max_per_page"] = number(str(found["events_max_per_page"]), None) or CAL_DEFAULTS["events_max_per_page"]
        for name in TEXT_OPTIONS:
            found[name] = str(stored.get(name) or "")
        found["cal_currency_symbol"] = str(found["cal_currency_symbol"])
        found["cal_currency_code"] = str(found["cal_currency_code"] or "")
        return found

    def read(self, r: AdminRequest, shown: dict[str, Any]) -> Change:
        stored = _stored(r, CALENDAR_OPTIONS)
        sent: dict[str, Any] = {"viewOption": r.field("viewOption")}
        for name in ("posts_per_page", "events_max_per_page"):
            given = number(r.field(name), None)
            sent[name] = given if given is not None else r.field(name)
        for name in ("tribe_events_timezones_show_zone", "cal_currency_reverse_position", COMPAT_OPTION):
            sent[name] = _flag(r, name)
        for name in TEXT_OPTIONS:  # separators keep their spaces
            sent[name] = r.field(name).strip() if name.endswith("Format") else r.field(name)
        sent["cal_currency_symbol"] = r.field("cal_currency_symbol").strip()
        sent["cal_currency_code"] = r.field("cal_currency_code").strip().upper()
        change = Change(sent)
        if sent["viewOption"] not in VIEWS:
            change.errors["viewOption"] = "Choose a view."
        else:
            change.option_if_changed("viewOption", sent["viewOption"], shown["viewOption"], stored)
        _per_page(change, "posts_per_page", shown["posts_per_page"])
        most = sent["events_max_per_page"]
        if not isinstance(most, int) or most < 1:
            change.errors["events_max_per_page"] = POSITIVE
        else:
            change.option_if_changed("events_max_per_page", most, shown["events_max_per_page"], stored)
            if isinstance(sent["posts_per_page"], int) and sent["posts_per_page"] > most and "posts_per_page" not in change.errors:
                change.errors["posts_per_page"] = f"At most {most}, the most events a page may list (below)."
        for name in ("tribe_events_timezones_show_zone", "cal_currency_reverse_position"):
            change.option_if_changed(name, sent[name] or None, shown[name] or None, stored)
        if not r.calpress.settings.compat_aliases:  # else the server's setting keeps them on
            change.option_if_changed(COMPAT_OPTION, sent[COMPAT_OPTION] or None, shown[COMPAT_OPTION] or None, stored)
        for name in TEXT_OPTIONS:
            text = _plain(sent[name], 50)
            if text != sent[name]:
                change.errors[name] = "Plain text only: no tags or line breaks."
            change.option_if_changed(name, text or None, shown[name] or None, stored)  # empty: the calendar's default
        symbol = _plain(sent["cal_currency_symbol"], 10)
        if symbol != sent["cal_currency_symbol"]:
            change.errors["cal_currency_symbol"] = "At most 10 characters of plain text."
        change.option_if_changed("cal_currency_symbol", symbol, shown["cal_currency_symbol"], stored)
        code = sent["cal_currency_code"]
        if not re.fullmatch(r"[A-Z]{3}", code):
            change.errors["cal_currency_code"] = "Enter a three-letter ISO 4217 code, such as USD or EUR."
        else:
            change.option_if_changed("cal_currency_code", code, shown["cal_currency_code"], stored)
        return change

    def context(self, r: AdminRequest, values: dict[str, Any]) -> dict[str, Any]:
        options = r.site.load_options()
        return {"views": list(VIEWS.items()), "defaults": CAL_DEFAULTS, "site_date_format": options.get("date_format") or "",
                "compat_forced": bool(r.calpress.settings.compat_aliases),
                "reading": r.url("options-reading.php") if "options-reading.php" in r.calpress.admin_files else ""}


SCREENS: list[Screen] = [GeneralSettings(), ReadingSettings(), DiscussionSettings(), CalendarSettings()]
