"""Site health: the checks behind the ``cms-site-health/v1`` routes (cms-api.md 5) and ``calpress doctor``.

Each check looks at something real about this site and returns a :class:`CheckResult` in the
reference's shape (label, status ``good``/``recommended``/``critical``, badge, description and
actions as HTML, test id). The labels are the reference's; the descriptions say what calpress
really checked, since it has no wp-admin, no plugins and no automatic core updates:

- ``background_updates``: calpress's "updates" are its database migrations, applied at every
  start. The database must answer and be at the newest migration of this code.
- ``loopback_requests``: a real request from the server to its own site address, through the
  guarded client with a policy that allow-lists exactly that host and port.
- ``https_status``: whether the site and home addresses are https.
- ``dotorg_communication``: a real HEAD request to api.wordpress.org through the site's own
  guarded client, so under the site's outbound policy (ports, time budget). calpress never
  fetches anything from WordPress.org; the answer stands for "outbound HTTPS works", which the
  oEmbed proxy, image downloads and S3 storage need. The label keeps naming WordPress.org because
  that is the host asked.
- ``authorization_header``: the reference's check of the credentials that reached the app
  (its admin screen sends ``user:pwd``); ``calpress doctor`` has no request of its own and sends
  those credentials to the site's address instead (:func:`authorization_header_loopback`).
- ``page_cache``: three timed requests to the home page, judged by the reference's cache headers
  and threshold. calpress keeps rendered public pages in a page cache of its own
  (pages/site.py ``PublicSite.cache``), which counts as the reference's page cache plugin.

The checks live in :mod:`.checks`; :func:`directory_sizes` (:mod:`.sizes`) measures the folders
and the database as the reference's ``WP_Debug_Data::get_sizes`` does; :func:`run_checks` runs
every check outside any request (``calpress doctor``).

Never call a check inside a write transaction: several send requests that may take their whole
time budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from .checks import (
    CRITICAL,
    GOOD,
    RECOMMENDED,
    CheckResult,
    authorization_header,
    authorization_header_loopback,
    background_updates,
    cache_headers_of,
    dotorg_communication,
    https_status,
    judge_page_cache,
    loopback_requests,
    page_cache,
)
from .sizes import DirectorySize, directory_sizes, size_format, wire_sizes

if TYPE_CHECKING:
    from ..site import Site

__all__ = [
    "CRITICAL",
    "GOOD",
    "RECOMMENDED",
    "CheckResult",
    "DirectorySize",
    "authorization_header",
    "authorization_header_loopback",
    "background_updates",
    "cache_headers_of",
    "directory_sizes",
    "dotorg_communication",
    "https_status",
    "judge_page_cache",
    "loopback_requests",
    "page_cache",
    "run_checks",
    "site_addresses",
    "size_format",
    "wire_sizes",
]


def site_addresses(site: Site) -> tuple[str, str]:
    """The site and home addresses outside any request (``calpress doctor``): from the options,
    or from the settings alone when the database cannot be read (background_updates says why)."""
    try:
        options: dict[str, Any] | None = site.options()
    except sa.exc.SQLAlchemyError:
        options = None
    return site.site_url(options), site.home_url(options)


def run_checks(site: Site) -> list[CheckResult]:
    """Every check, in the route index's order, against the site's configured addresses."""
    site_url, home_url = site_addresses(site)
    try:
        in_use = site.app_passwords_in_use()
    except sa.exc.SQLAlchemyError:
        in_use = False
    return [
        background_updates(site.engine),
        loopback_requests(site_url),
        https_status(site_url, home_url),
        dotorg_communication(site.http),
        authorization_header_loopback(site_url, app_passwords_in_use=in_use, login_throttle_on=site.settings.login_max_failures > 0),
        page_cache(home_url),
    ]
