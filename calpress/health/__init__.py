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
and the database as the reference's ``WP_Debug_Data::get_sizes`` does; :mod:`.readiness` answers
the ``/readyz`` probe (database and file storage). :func:`run_checks` runs the checks that mean
something for this service outside any request (``calpress doctor``): not ``dotorg_communication``
(calpress has no reason to reach WordPress.org, and many servers have no outbound internet), and
the uploads check instead, which the reference keeps in its debug data.

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
from .readiness import PARTS, check_readiness, uploads_check
from .sizes import DirectorySize, directory_sizes, size_format, wire_sizes

if TYPE_CHECKING:
    from ..site import Site

__all__ = [
    "CRITICAL",
    "GOOD",
    "PARTS",
    "RECOMMENDED",
    "CheckResult",
    "DirectorySize",
    "authorization_header",
    "authorization_header_loopback",
    "background_updates",
    "cache_headers_of",
    "check_readiness",
    "directory_sizes",
    "dotorg_communication",
    "https_status",
    "judge_page_cache",
    "loopback_requests",
    "page_cache",
    "run_checks",
    "site_addresses",
    "size_format",
    "uploads_check",
    "worst_status",
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
    """The doctor's checks, in the route index's order with the uploads check after the database's,
    against the site's configured addresses. Without an address (no ``siteurl`` option, no
    ``CALPRESS_SITE_URL``) the checks that request the site are not made: a command run has no
    request to take an address from, and nothing is wrong with a site that learns its address
    from each request's Host. They say so as "recommended", each with its fix."""
    site_url, home_url = site_addresses(site)
    try:
        in_use = site.app_passwords_in_use()
    except sa.exc.SQLAlchemyError:
        in_use = False
    checks = [background_updates(site.engine), uploads_check(site.storage)]
    if not site_url:
        checks.append(_not_requested("loopback_requests", "The loopback request was not made: the site has no address"))
    else:
        checks.append(loopback_requests(site_url))
    checks.append(https_status(site_url, home_url))
    if not site_url:
        checks.append(_not_requested("authorization_header", "The authorization header was not checked: the site has no address",
                                     badge="Security"))
    else:
        checks.append(authorization_header_loopback(
            site_url, app_passwords_in_use=in_use, login_throttle_on=site.settings.login_max_failures > 0,
        ))
    if not home_url:
        checks.append(_not_requested("page_cache", "The page cache was not checked: the site has no address"))
    else:
        checks.append(page_cache(home_url))
    return checks


_NO_ADDRESS_FIX = ("Set CALPRESS_SITE_URL (or pass --site-url, or set the siteurl option) to the site's public address "
                   "so that the doctor can request the site there.")


def _not_requested(test: str, label: str, *, badge: str = "Performance") -> CheckResult:
    description = (
        "<p>This check sends requests to the site's own address, and the site has none configured: it takes its "
        "address from each request's Host, which a command run does not have.</p>"
    )
    return CheckResult(test, label, RECOMMENDED, badge, description, fix=_NO_ADDRESS_FIX)


_RANK = {GOOD: 0, RECOMMENDED: 1, CRITICAL: 2}


def worst_status(results: list[CheckResult]) -> str:
    """The worst status among ``results`` (good when there are none)."""
    return max((result.status for result in results), key=_RANK.__getitem__, default=GOOD)
