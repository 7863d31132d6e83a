"""The site settings of ``/cms/v2/settings``: the options the reference registers for the REST
API (its register_initial_settings, plus the site logo and icon the block library adds), each
with its REST name and schema, and how a value is cleaned before it is stored (the reference's
sanitize_option, which runs on every option write).

A setting is read from the site options (``site.OPTION_DEFAULTS`` stand in for the values the
reference's installer stores), falling back to the schema default, then shaped by the schema:
a stored value the schema rejects reads as ``null``, as in the reference.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from dataclasses import dataclass
from typing import Any

from .compat.formatting import esc_html, esc_url_raw, is_email
from .compat.kses import kses_title
from .content.slugs import strip_tags
from .rest import schema as rest_schema


@dataclass(frozen=True)
class Setting:
    """One registered setting: its REST ``name``, the ``option`` it is stored in, its schema."""

    name: str
    option: str
    schema: dict[str, Any]

    def value_of(self, stored: Any) -> Any:
        """The setting as the REST API shows a stored value (None when nothing is stored gives
        the schema default): cast to the schema's type, or None when the schema rejects it."""
        value = self.schema.get("default") if stored is None else stored
        if rest_schema.validate_value(value, self.schema, self.name) is not None:
            return None
        return rest_schema.sanitize_value(value, self.schema, self.name)

    def is_valid(self, stored: Any) -> bool:
        return rest_schema.validate_value(stored, self.schema, self.name) is None


def _setting(
    option: str, type_: str, description: str, *, name: str = "", label: str = "", default: Any = None, **extra: Any
) -> Setting:
    # The reference's schema: type, title (the label), description, default, then what the
    # registration adds (format, enum).
    schema = {"type": type_, "title": label, "description": description, "default": default, **extra}
    return Setting(name or option, option, schema)


# In the reference's registration order (the order of the settings object).
SETTINGS: tuple[Setting, ...] = (
    _setting("blogname", "string", "Site title.", name="title", label="Title"),
    _setting("blogdescription", "string", "Site tagline.", name="description", label="Tagline"),
    _setting("siteurl", "string", "Site URL.", name="url", format="uri"),
    _setting(
        "admin_email", "string", "This address is used for admin purposes, like new user notification.",
        name="email", format="email",
    ),
    _setting("timezone_string", "string", "A city in the same timezone as you.", name="timezone"),
    _setting("date_format", "string", "A date format for all date strings."),
    _setting("time_format", "string", "A time format for all time strings."),
    _setting("start_of_week", "integer", "A day number of the week that the week should start on."),
    _setting("WPLANG", "string", "WordPress locale code.", name="language", default="en_US"),
    _setting("use_smilies", "boolean", "Convert emoticons like :-) and :-P to graphics on display.", default=True),
    _setting("default_category", "integer", "Default post category."),
    _setting("default_post_format", "string", "Default post format."),
    _setting("posts_per_page", "integer", "Blog pages show at most.", label="Maximum posts per page", default=10),
    _setting("show_on_front", "string", "What to show on the front page", label="Show on front"),
    _setting(
        "page_on_front", "integer", "The ID of the page that should be displayed on the front page", label="Page on front"
    ),
    _setting("page_for_posts", "integer", "The ID of the page that should display the latest posts"),
    _setting(
        "default_ping_status", "string",
        "Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.",
        enum=["open", "closed"],
    ),
    _setting(
        "default_comment_status", "string", "Allow people to submit comments on new posts.",
        label="Allow comments on new posts", enum=["open", "closed"],
    ),
    _setting("site_logo", "integer", "Site logo.", label="Logo"),
    _setting("site_icon", "integer", "Site icon.", label="Icon"),
)

# Languages installed besides the built-in en_US (the reference's get_available_languages):
# none, so only "" (en_US) can be chosen.
AVAILABLE_LANGUAGES: tuple[str, ...] = ()

# The calendar's events page as the front page: The Events Calendar stores it as a static front
# page whose page_on_front is this virtual id (its Front_Page_View keeps the value its absint would
# make positive). The REST route shows and takes it as is.
EVENTS_FRONT_PAGE = -10


def events_on_front(options: Any) -> bool:
    """Whether the front page shows the calendar's events page (show_on_front "page" with the
    virtual page id)."""
    if options.get("show_on_front") != "page":
        return False
    try:
        return int(str(options.get("page_on_front") or 0).strip()) == EVENTS_FRONT_PAGE
    except ValueError:
        return False


_ABSINT_OPTIONS = frozenset({"page_on_front", "page_for_posts", "default_category", "start_of_week", "site_icon"})
_URL_START = re.compile(r"http(s?)://(.+)", re.IGNORECASE)


@functools.cache
def zone_names() -> frozenset[str]:
    """Every IANA time zone name this machine knows."""
    return frozenset(zoneinfo.available_timezones())


class Rejected(Exception):
    """A value the option refuses; the reference keeps the stored value (and reports a
    settings error to its admin screens, which the REST API does not show). The message is that
    error, for the command line."""


def clean_option(option: str, value: Any) -> Any:
    """The value the reference's sanitize_option stores for ``option``, or Rejected when it keeps
    the stored one (an address that is no e-mail, an unknown zone or language, a site address
    without http(s)://)."""
    if option == "page_on_front" and int(value) == EVENTS_FRONT_PAGE:
        return EVENTS_FRONT_PAGE
    if option in _ABSINT_OPTIONS:
        return abs(int(value))
    if option == "posts_per_page":
        number = int(value)
        if number == 0:
            return 1
        return abs(number) if number < -1 else number
    if option in ("default_ping_status", "default_comment_status"):
        return "closed" if str(value) in ("0", "") else value
    if option in ("blogname", "blogdescription"):
        return esc_html(str(value))
    if option in ("date_format", "time_format"):
        return kses_title(strip_tags(str(value)))
    if option == "admin_email":
        if not is_email(value):
            raise Rejected("The email address entered did not appear to be a valid email address.")
        return value
    if option == "siteurl":
        if not _URL_START.search(str(value)):
            raise Rejected("The site address entered did not appear to be a valid URL (http:// or https://).")
        return esc_url_raw(str(value))
    if option == "WPLANG":
        if value and value not in AVAILABLE_LANGUAGES:
            raise Rejected(f"The language {value} is not installed.")
        return value
    if option == "timezone_string":
        if value and value not in zone_names():
            raise Rejected(f"The timezone {value} is not valid. Please select a valid timezone (a city such as Europe/Paris).")
        return value
    return value
