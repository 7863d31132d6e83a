"""The site health tests: each looks at something real about this site and returns a
:class:`CheckResult` in the reference's shape (cms-api.md 5). What each one checks, and why it
stands for the reference's test, is said in the package's docstring and in each function's.

Never call a check inside a write transaction: several send requests that may take their whole
time budget.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import html
import re
import time
from base64 import b64encode
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson
import sqlalchemy as sa

from .. import net
from ..auth.authenticate import parse_basic
from ..compat.php import number_format
from ..store import db as store_db

GOOD, RECOMMENDED, CRITICAL = "good", "recommended", "critical"
SECURITY, PERFORMANCE = "Security", "Performance"

#: What ``dotorg_communication`` asks (the reference's address).
DOTORG_URL = "https://api.wordpress.org"
#: The time budget in seconds of one loopback request (the reference allows 10).
LOOPBACK_TIMEOUT = 5.0
LOOPBACK_MAX_BYTES = 4 * 1024 * 1024
#: A median home page answer faster than this, in milliseconds, is good (the reference's 600).
GOOD_RESPONSE_TIME_MS = 600
#: The credentials the authorization header check expects (the reference's admin screen sends them).
EXPECTED_CREDENTIALS = ("user", "pwd")
#: Answers of the REST engine that prove it read Basic credentials (auth/authenticate.py).
_BASIC_AUTH_ANSWERS = frozenset(
    {"invalid_username", "invalid_email", "incorrect_password", "application_passwords_disabled", "too_many_retries"}
)


@dataclass(frozen=True)
class CheckResult:
    """One check's answer. ``to_dict`` gives the reference's wire shape; ``fix`` is one plain
    sentence a person can act on when the status is not good (``calpress doctor`` prints it; the
    REST routes keep the reference's shape without it)."""

    test: str
    label: str
    status: str
    badge: str
    description: str
    actions: str = ""
    color: str = "blue"
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        values = {
            "label": self.label,
            "status": self.status,
            "badge": {"label": self.badge, "color": self.color},
            "description": self.description,
            "actions": self.actions,
            "test": self.test,
        }
        return {key: values[key] for key in _WIRE_ORDER.get(self.test, _DEFAULT_ORDER)}


_DEFAULT_ORDER = ("label", "status", "badge", "description", "actions", "test")
# The reference builds the page cache answer in another order; keep it, as clients see it.
_WIRE_ORDER = {"page_cache": ("badge", "description", "test", "status", "label", "actions")}


def _p(text: str) -> str:
    return f"<p>{text}</p>"


def _code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def _external_link(url: str, text: str, *, rel: str = "") -> str:
    """A paragraph with a link opening in a new tab, marked up as the reference's."""
    rel_attr = f' rel="{rel}"' if rel else ""
    return (
        f'<p><a href="{html.escape(url)}" target="_blank"{rel_attr}>{text}<span class="screen-reader-text"> (opens in a new tab)</span>'
        '<span aria-hidden="true" class="dashicons dashicons-external"></span></a></p>'
    )


# -- background updates: the database and its migrations ------------------------------------------


def _first_line(error: BaseException) -> str:
    """A short, safe text of an error (a driver's first line, without SQLAlchemy's footer)."""
    cause = getattr(error, "orig", None) or error
    text = str(cause).strip().splitlines()
    return text[0] if text else type(cause).__name__


def background_updates(engine: sa.Engine) -> CheckResult:
    """Whether the database answers and is at the newest migration of this code.

    calpress updates itself by migrating its schema at every start (``calpress db upgrade`` does
    it by hand). A database it cannot reach, one never migrated, or one behind the newest
    migration (an upgrade that failed or was skipped) is critical; one at a migration this code
    does not know (a newer calpress migrated it) may not work properly: recommended.
    """
    rows: list[tuple[str, str]] = []  # (pass | fail | warning, text)
    fix = ""
    head = store_db.head_revision()
    try:
        current = store_db.current_revision(engine)
    except sa.exc.SQLAlchemyError as error:
        rows.append(("fail", f"The database could not be reached: {html.escape(_first_line(error))}."))
        fix = ("Start the database server, or correct CALPRESS_DATABASE_URL (--database-url) so that it names a "
               "database this machine can reach.")
    else:
        rows.append(("pass", "The database answers."))
        if current == head:
            rows.append(("pass", f"The database schema is at the newest migration, {_code(head)}."))
        elif current is None:
            rows.append(("fail", "The database was never migrated: run <code>calpress db upgrade</code>."))
            fix = "Run `calpress db upgrade` against this database (starting `calpress serve` does it too)."
        elif store_db.is_known_revision(current):
            rows.append((
                "fail",
                f"The database schema is at migration {_code(current)}, behind the newest, {_code(head)}: run "
                "<code>calpress db upgrade</code> (calpress also migrates when it starts).",
            ))
            fix = f"Run `calpress db upgrade` to bring the database from migration {current} to {head} (restarting `calpress serve` does it too)."
        else:
            rows.append((
                "warning",
                f"The database schema is at migration {_code(current)}, which this version of calpress does not know: "
                "a newer version migrated it.",
            ))
            fix = "Upgrade calpress on this machine to the version that migrated the database."
    severities = {severity for severity, _ in rows}
    if "fail" in severities:
        status, label = CRITICAL, "Background updates are not working as expected"
    elif "warning" in severities:
        status, label = RECOMMENDED, "Background updates may not be working properly"
    else:
        status, label = GOOD, "Background updates are working"
    description = _p(
        "calpress updates its database by itself: every start applies the migrations the running code needs, so "
        "that the code and its tables always match."
    )
    if status != GOOD:
        reader_text = {"pass": "Passed", "fail": "Error", "warning": "Warning"}
        items = "".join(
            f'<li><span class="dashicons {severity}"><span class="screen-reader-text">{reader_text[severity]}</span></span> {text}</li>'
            for severity, text in rows
        )
        description += f"<ul>{items}</ul>"
    return CheckResult("background_updates", label, status, SECURITY, description, fix=fix)


# -- loopback requests ----------------------------------------------------------------------------


def _loopback_client(url: str, *, resolver: net.Resolver | None, timeout: float) -> net.Client:
    """A client that may reach the host and port of ``url`` and nothing else: the site's own
    address may well be on loopback or a private network, which the site's outbound policy
    refuses, and a redirect must not lead the request anywhere else. Raises OutboundError for an
    address that names no host."""
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise net.OutboundError("bad_url", f"{url!r} is not an http or https address")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise net.OutboundError("bad_url", f"{url!r} has no valid port") from error
    entry = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        policy = net.NetPolicy(allowed_ports=(), allow=(entry,), timeout=timeout, max_bytes=LOOPBACK_MAX_BYTES, max_redirects=2)
    except ValueError as error:
        raise net.OutboundError("bad_url", f"{url!r} names no usable host") from error
    return net.Client(policy, resolver=resolver)


def _loopback(url: str, *, headers: Mapping[str, str] | None = None, resolver: net.Resolver | None = None,
              timeout: float = LOOPBACK_TIMEOUT, times: int = 1) -> list[tuple[net.Fetched, float]]:
    """GET ``url`` ``times`` times over one connection; each answer with its time in milliseconds."""
    answers = []
    with _loopback_client(url, resolver=resolver, timeout=timeout) as client:
        for _ in range(times):
            started = time.perf_counter()
            fetched = client.get(url, headers=headers)
            answers.append((fetched, (time.perf_counter() - started) * 1000))
    return answers


def _no_site_address() -> net.OutboundError:
    return net.OutboundError(
        "bad_url", "the site has no address (set CALPRESS_SITE_URL or the siteurl option)"
    )


def loopback_requests(site_url: str, *, resolver: net.Resolver | None = None, timeout: float = LOOPBACK_TIMEOUT) -> CheckResult:
    """GET the site's own address from the server. Good on a 200; recommended on another status
    (something answered, but maybe not this site); critical when nothing answers in time.

    ``resolver`` replaces DNS (tests). The site address comes from the ``siteurl`` option, the
    configured site URL, or else the address the current request came in on.
    """
    description = _p(
        "A loopback request is one the site sends to its own address. When it fails, the address the site gives "
        "out in every link, feed and discovery header does not lead back to this server."
    )
    url = site_url.rstrip("/") + "/"
    try:
        if not site_url:
            raise _no_site_address()
        fetched, _ = _loopback(url, headers={"Accept": "text/html", "Cache-Control": "no-cache"}, resolver=resolver, timeout=timeout)[0]
    except net.OutboundError as error:
        status = CRITICAL
        message = (
            "The loopback request to your site failed, so whatever relies on the site reaching its own address "
            f"does not work.<br>Error: {html.escape(error.message)} ({html.escape(error.reason)})"
        )
        fix = (f"Check that `calpress serve` is running and that {url} leads to it (DNS, proxy, firewall), or correct "
               "CALPRESS_SITE_URL or the siteurl option.")
    else:
        if fetched.status == 200:
            return CheckResult("loopback_requests", "Your site can perform loopback requests", GOOD, PERFORMANCE, description)
        status = RECOMMENDED
        message = (
            f"The loopback request to {html.escape(url)} answered with the HTTP status {fetched.status} instead of 200: "
            "something answers on the site's address, but it may not be this site."
        )
        fix = f"Check that {url} leads to this calpress server and not to another site or a proxy's error page."
    return CheckResult(
        "loopback_requests", "Your site could not complete a loopback request", status, PERFORMANCE, description + _p(message),
        fix=fix,
    )


# -- HTTPS ----------------------------------------------------------------------------------------

HTTPS_HELP_URL = "https://developer.wordpress.org/advanced-administration/security/https/"


def https_status(site_url: str, home_url: str, *, over_https: bool = False) -> CheckResult:
    """Whether the site address and the home address both use https. ``over_https``: the
    request asking came in over HTTPS (the addresses then lag behind what the server supports)."""
    actions = _external_link(HTTPS_HELP_URL, "Learn more about why you should use HTTPS")
    site_https = site_url.startswith("https://")
    home_https = home_url.startswith("https://")
    if site_https and home_https:
        description = _p(
            "An HTTPS connection is a more secure way of browsing the web: it protects the logins, application "
            "passwords and nonces sent to this site, and clients and search engines prefer it."
        )
        return CheckResult("https_status", "Your website is using an active HTTPS connection", GOOD, SECURITY, description, actions)
    if site_https:
        addresses = f"home address ({_code(home_url)}) is"
    else:
        addresses = f"site address ({_code(site_url or '(not set)')}) and home address ({_code(home_url or '(not set)')}) are"
    lead = "You are accessing this website using HTTPS, but your" if over_https else "Your"
    description = _p(f"{lead} {addresses} not set up to use HTTPS.")
    description += _p(
        "Once your web server or proxy serves the site over HTTPS, set <code>CALPRESS_SITE_URL</code> (or the "
        "<code>siteurl</code> and <code>home</code> options) to the https:// address. Talk to your web host about "
        "supporting HTTPS for your website."
    )
    fix = ("Serve the site over HTTPS (a reverse proxy with a certificate) and set CALPRESS_SITE_URL (or the siteurl and "
           "home options) to its https:// address.")
    return CheckResult("https_status", "Your website does not use HTTPS", RECOMMENDED, SECURITY, description, actions, fix=fix)


# -- outbound requests ----------------------------------------------------------------------------


def dotorg_communication(client: net.Client, url: str | None = None) -> CheckResult:
    """HEAD ``url`` (api.wordpress.org) through ``client``, the site's guarded client: any HTTP
    answer is good, a refusal of the outbound policy or a failure is critical."""
    url = url or DOTORG_URL
    description = _p(
        "calpress sends requests to other servers for oEmbed previews, images given by address and files kept in "
        "an S3-compatible bucket, all through its guarded client under the outbound policy "
        "(<code>CALPRESS_OUTBOUND_PORTS</code>, <code>CALPRESS_OUTBOUND_ALLOW</code>). This check asks WordPress.org "
        "through the site's own client."
    )
    try:
        client.head(url)
    except net.OutboundError as error:
        host = urlsplit(url).hostname or url
        description += _p(
            '<span class="error"><span class="screen-reader-text">Error</span></span> '
            f"Your site is unable to reach WordPress.org at {html.escape(host)}, and returned the error: "
            f"{html.escape(error.message)}."
        )
        actions = _external_link("https://wordpress.org/support/forums/", "Get help resolving this issue.")
        fix = ("Allow outbound HTTPS from this server (firewall, CALPRESS_OUTBOUND_PORTS) if the site needs oEmbed previews, "
               "image downloads or S3 storage.")
        return CheckResult("dotorg_communication", "Could not reach WordPress.org", CRITICAL, SECURITY, description, actions, fix=fix)
    return CheckResult("dotorg_communication", "Can communicate with WordPress.org", GOOD, SECURITY, description)


# -- the Authorization header ---------------------------------------------------------------------

AUTHORIZATION_HELP_URL = "https://developer.wordpress.org/rest-api/frequently-asked-questions/#why-is-authentication-not-working"
_AUTHORIZATION_DESCRIPTION = _p(
    "The Authorization header is used by third-party applications you have approved for this site. Without this "
    "header, those apps cannot connect to your site."
)


_PASS_AUTHORIZATION = "Configure the web server or proxy in front of calpress to pass the Authorization header on to it."


def _authorization_problem(label: str, detail: str = "", fix: str = _PASS_AUTHORIZATION) -> CheckResult:
    description = _AUTHORIZATION_DESCRIPTION + (_p(detail) if detail else "") + _p(
        "If you are still seeing this warning after having tried the actions below, you may need to contact your "
        "hosting provider for further assistance."
    )
    actions = _external_link(AUTHORIZATION_HELP_URL, "Learn how to configure the Authorization header.")
    return CheckResult("authorization_header", label, RECOMMENDED, SECURITY, description, actions, fix=fix)


def authorization_header(header: str | None) -> CheckResult:
    """Judge the Authorization header that reached the app, as the reference does: good only for
    Basic ``user:pwd`` (what its admin screen sends); missing when no Basic credentials arrived,
    invalid for any others (real credentials too)."""
    credentials = parse_basic(header) if header else None
    if credentials is None:
        return _authorization_problem("The authorization header is missing")
    if credentials != EXPECTED_CREDENTIALS:
        return _authorization_problem("The authorization header is invalid")
    return CheckResult(
        "authorization_header", "The Authorization header is working as expected", GOOD, SECURITY, _AUTHORIZATION_DESCRIPTION
    )


def authorization_header_loopback(site_url: str, *, app_passwords_in_use: bool, login_throttle_on: bool = False,
                                  resolver: net.Resolver | None = None, timeout: float = LOOPBACK_TIMEOUT) -> CheckResult:
    """The same check from the server's side: send Basic ``user:pwd`` to the site's own address
    and see whether the app read them. It reads Basic credentials once an application password
    exists; it then refuses these with a 401 naming the unknown user, which proves they arrived,
    while an answer as to a visitor means they were lost on the way.

    It cannot tell before any application password exists (nothing reads the header then), nor
    when the login throttle is on: that refusal would count as a failed login of the server's
    own address, and a few runs could lock that address out (everyone, behind a proxy on the
    same host). It then says it could not check, and why."""
    reason = fix = ""
    if not app_passwords_in_use:
        reason = (
            "No application password exists yet, so the site does not read Basic credentials and this check cannot "
            "tell whether they arrive. Create one and run the check again."
        )
        fix = "If clients will use application passwords, create one (`calpress user application-password create`) and run the check again."
    elif login_throttle_on:
        reason = (
            "The login throttle (<code>CALPRESS_LOGIN_MAX_FAILURES</code>) is on: the credentials this check sends "
            "would count as a failed login of the server's own address, so it was not sent."
        )
        fix = "Check by hand: send a request signed with a real application password to the site's address and see it accepted."
    if reason:
        description = _AUTHORIZATION_DESCRIPTION + _p(reason)
        return CheckResult("authorization_header", "The authorization header could not be checked", RECOMMENDED, SECURITY, description,
                           fix=fix)
    token = b64encode(":".join(EXPECTED_CREDENTIALS).encode()).decode()
    try:
        if not site_url:
            raise _no_site_address()
        fetched, _ = _loopback(
            site_url.rstrip("/") + "/wp-json/cms-site-health/v1",
            headers={"Authorization": f"Basic {token}", "Accept": "application/json"},
            resolver=resolver,
            timeout=timeout,
        )[0]
    except net.OutboundError as error:
        return _authorization_problem(
            "The authorization header could not be checked",
            f"The request to your site's address failed: {html.escape(error.message)}.",
            fix="Make the loopback request work first: this check sends its request to the same address.",
        )
    if fetched.status in (401, 429) and _json_code(fetched) in _BASIC_AUTH_ANSWERS:
        return CheckResult(
            "authorization_header", "The Authorization header is working as expected", GOOD, SECURITY, _AUTHORIZATION_DESCRIPTION
        )
    return _authorization_problem(
        "The authorization header is missing",
        f"Basic credentials sent to your site's address did not reach calpress (it answered with the HTTP status {fetched.status}).",
    )


def _json_code(fetched: net.Fetched) -> str:
    try:
        body = orjson.loads(fetched.content)
    except orjson.JSONDecodeError:
        return ""
    return str(body.get("code", "")) if isinstance(body, dict) else ""


# -- page cache -----------------------------------------------------------------------------------


def _is_hit(value: str) -> bool:
    return re.search(r"(^| |,)HIT(,| |$)", value, re.IGNORECASE) is not None


def _expires_later(value: str) -> bool:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when > dt.datetime.now(dt.UTC)


def _positive_number(value: str) -> bool:
    try:
        return float(value) > 0
    except ValueError:
        return False


#: The response headers that reveal a page cache, each with the test of its value (None: being
#: there is enough), in the reference's order and with its rules.
CACHE_HEADERS: dict[str, Callable[[str], bool] | None] = {
    "cache-control": lambda value: re.search(r"max-age=[1-9]", value) is not None,
    "expires": _expires_later,
    "age": _positive_number,
    "last-modified": None,
    "etag": None,
    "via": None,
    "x-cache-enabled": lambda value: value.lower() == "true",
    "x-cache-disabled": lambda value: value.lower() != "on",
    "cf-cache-status": _is_hit,
    "x-cache": _is_hit,
    "x-litespeed-cache": _is_hit,
    "x-srcache-store-status": lambda value: value.lower() == "store",
    "x-srcache-fetch-status": _is_hit,
    "x-cache-status": _is_hit,
    "x-proxy-cache": _is_hit,
    "x-varnish": lambda value: re.match(r"\d+ \d+", value) is not None,
}
PAGE_CACHE_HELP_URL = "https://developer.wordpress.org/advanced-administration/performance/optimization/#caching"


def cache_headers_of(headers: Mapping[str, str]) -> list[str]:
    """The names of ``CACHE_HEADERS`` that ``headers`` (case-insensitive) carry with a telling value."""
    found = []
    lowered = {name.lower(): value for name, value in headers.items()}
    for name, test in CACHE_HEADERS.items():
        value = lowered.get(name)
        if value and (test is None or test(value)):
            found.append(name)
    return found


def _icon(name: str) -> str:
    return f'<span class="dashicons dashicons-{name}" aria-hidden="true"></span> '


def judge_page_cache(timings_ms: Iterable[float], headers_seen: Iterable[str], *, cache_present: bool) -> CheckResult:
    """The page cache verdict from the answers' times, the cache headers they carried and
    whether the site keeps a page cache of its own (the reference's page cache plugin)."""
    timings = sorted(timings_ms, reverse=True)
    median = timings[len(timings) // 2] if timings else 0.0
    headers = list(dict.fromkeys(headers_seen))
    detected = bool(headers) or cache_present
    if median and median < GOOD_RESPONSE_TIME_MS:
        status = GOOD if detected else RECOMMENDED
    else:
        status = CRITICAL
    if status == GOOD:
        label = "Page cache is detected and the server response time is good"
    elif status == RECOMMENDED:
        label = "Page cache is not detected but the server response time is OK"
    elif detected:
        label = "Page cache is detected but the server response time is still slow"
    else:
        label = "Page cache is not detected and the server response time is slow"
    threshold = number_format(GOOD_RESPONSE_TIME_MS)
    items = []
    if not median:
        items.append(_icon("dismiss") + "Server response time could not be determined. Verify that loopback requests are working.")
    elif median < GOOD_RESPONSE_TIME_MS:
        items.append(
            _icon("yes-alt") + f"Median server response time was {number_format(median)} milliseconds. This is less than "
            f"the recommended {threshold} milliseconds threshold."
        )
    else:
        items.append(
            _icon("warning") + f"Median server response time was {number_format(median)} milliseconds. It should be less "
            f"than the recommended {threshold} milliseconds threshold."
        )
    if headers:
        count = len(headers)
        noun = "There was 1 client caching response header detected:" if count == 1 else f"There were {count} client caching response headers detected:"
        items.append(_icon("yes-alt") + noun + " <code>" + "</code>, <code>".join(headers) + "</code>.")
    elif median:
        items.append(_icon("warning") + "No client caching response headers were detected.")
    if cache_present:
        items.append(_icon("yes-alt") + "calpress keeps its own page cache: public pages are served from memory until the content changes.")
    elif not headers:
        items.append(_icon("warning") + "A page cache plugin was not detected.")
    description = _page_cache_intro() + "<ul><li>" + "</li><li>".join(items) + "</li></ul>"
    fix = ""
    if status == CRITICAL:
        fix = ("Make the home page answer faster: look at the database's latency and the machine's load, or add workers "
               "(CALPRESS_WORKERS).")
    elif status == RECOMMENDED:
        fix = "Put a page cache in front of the site (a caching proxy) or send cache headers from it."
    return CheckResult("page_cache", label, status, PERFORMANCE, description, _page_cache_actions(), fix=fix)


def _page_cache_intro() -> str:
    return (
        _p("Page cache enhances the speed and performance of your site by saving and serving static pages instead of "
           "calling for a page every time a user visits.")
        + _p("Page cache is detected by looking for a page cache of the site itself as well as making three requests to "
             "the homepage and looking for one or more of the following HTTP client caching response headers:")
        + "<code>" + "</code>, <code>".join(CACHE_HEADERS) + ".</code>"
    )


def _page_cache_actions() -> str:
    return _external_link(PAGE_CACHE_HELP_URL, "Learn more about page cache", rel="noreferrer")


def page_cache(home_url: str, *, cache_present: bool = True, resolver: net.Resolver | None = None,
               timeout: float = LOOPBACK_TIMEOUT) -> CheckResult:
    """Three timed GETs of the home page (as a browser asks for it), judged by
    :func:`judge_page_cache`. ``cache_present``: calpress always keeps its public pages in its
    own page cache (pages/site.py). A failed request or another status than 200 means the
    presence of a page cache cannot be told: recommended."""
    url = home_url.rstrip("/") + "/"
    try:
        if not home_url:
            raise _no_site_address()
        answers = _loopback(url, headers={"Accept": "text/html"}, resolver=resolver, timeout=timeout, times=3)
        failed = next((fetched for fetched, _ in answers if fetched.status != 200), None)
        if failed is not None:
            raise net.OutboundError(f"http_{failed.status}", f"the home page answered with the HTTP status {failed.status}")
    except net.OutboundError as error:
        message = (
            "Unable to detect page cache due to possible loopback request problem. Please verify that the loopback "
            f"request test is passing. Error: {html.escape(error.message)} (Code: {html.escape(error.reason)})"
        )
        return CheckResult(
            "page_cache", "Unable to detect the presence of page cache", RECOMMENDED, PERFORMANCE,
            _p(message) + _page_cache_intro(), _page_cache_actions(),
            fix="Make the loopback request work first: this check asks the home page at the same address.",
        )
    headers = [name for fetched, _ in answers for name in cache_headers_of(fetched.headers)]
    return judge_page_cache([ms for _, ms in answers], headers, cache_present=cache_present)
