"""The XML sitemaps and the virtual ``/robots.txt``, as the reference serves them
(wp-includes/sitemaps: WP_Sitemaps, its renderer and providers; do_robots).

* ``/wp-sitemap.xml``: the index, one ``<sitemap>`` per page of each listed type, taxonomy and
  of the authors, for those that list anything;
* ``/wp-sitemap-posts-<type>-<n>.xml``: published items without a password, by id, with their
  ``lastmod`` (the item's last change); the first page of pages starts with the home page when
  it shows the latest posts (lastmod: the newest post's change);
* ``/wp-sitemap-taxonomies-<taxonomy>-<n>.xml``: the terms with items;
* ``/wp-sitemap-users-<n>.xml``: the author archives of users with a published item.

Listed: the public types but attachments, and venues and organizers (The Events Calendar
registers those public only with its Pro add-on), the public taxonomies but post formats. Pages
hold 2,000 addresses (:data:`calpress.content.sitemaps.MAX_URLS`); a page past the last, an
unknown type and every sitemap while the site discourages search engines (``blog_public`` 0)
are the 404 page. No XSL stylesheet is offered (the reference's is a human-readable view).

``/robots.txt``: the reference's lines, and the sitemap's address while the site is public; a
site that discourages search engines says so in every page's ``<meta name="robots">`` instead
(wp_robots_no_robots), as the reference has since 5.3.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from ..calendar.definitions import ORGANIZER_TYPE, VENUE_TYPE
from ..content import items as item_service
from ..content import sitemaps as store
from ..content.items import Context
from .answer import Answer
from .views import term_url
from .xmltext import text, w3c

if TYPE_CHECKING:
    from .requester import Requester
    from .site import PublicSite

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
CONTENT_TYPE = "application/xml; charset=UTF-8"
INDEX_PATH = "/wp-sitemap.xml"
ROBOTS_PATH = "/robots.txt"
NOT_LISTED_TYPES = frozenset({"attachment", VENUE_TYPE, ORGANIZER_TYPE})
NOT_LISTED_TAXONOMIES = frozenset({"post_format"})
NO_ROBOTS = "noindex, nofollow"
_SUBTYPED = re.compile(r"/wp-sitemap-([a-z]+?)-([a-z\d_-]+?)-(\d+?)\.xml")
_PLAIN = re.compile(r"/wp-sitemap-([a-z]+?)-(\d+?)\.xml")


def is_public(options: dict[str, Any]) -> bool:
    """``blog_public``: whether search engines are welcome (1, the default)."""
    return str(options.get("blog_public", 1)).strip() not in ("0", "", "False", "false")


def robots_meta(options: dict[str, Any]) -> list[tuple[str, str]]:
    """The ``<meta name="robots">`` of every page while the site discourages search engines."""
    return [] if is_public(options) else [("robots", NO_ROBOTS)]


def answer(site_pages: PublicSite, who: Requester, path: str, query: dict[str, Any]) -> Answer | None:
    """robots.txt or a sitemap, or None when ``path`` is neither."""
    if path == ROBOTS_PATH:
        return robots(who)
    if not path.startswith("/wp-sitemap"):
        return None
    if path == INDEX_PATH:
        kind, subtype, page = "index", "", 1
    elif found := _SUBTYPED.fullmatch(path):
        kind, subtype, page = found.group(1), found.group(2), int(found.group(3))
    elif found := _PLAIN.fullmatch(path):
        kind, subtype, page = found.group(1), "", int(found.group(2))
    else:
        return None
    if not is_public(who.ctx.options) or page < 1:
        return site_pages.not_found(who)
    with site_pages.site.read() as conn:
        body = _sitemap(conn, who.ctx, who.origin, kind, subtype, page)
    if body is None:
        return site_pages.not_found(who)
    return Answer(200, body.encode(), content_type=CONTENT_TYPE, headers={"X-Content-Type-Options": "nosniff"})


def robots(who: Requester) -> Answer:
    options = who.ctx.options
    prefix = urlsplit(who.origin).path.rstrip("/")
    lines = f"User-agent: *\nDisallow: {prefix}/wp-admin/\nAllow: {prefix}/wp-admin/admin-ajax.php\n"
    if is_public(options):
        lines += f"\nSitemap: {who.origin.rstrip('/')}{INDEX_PATH}\n"
    return Answer(200, lines.encode(), content_type="text/plain; charset=utf-8", headers={"X-Content-Type-Options": "nosniff"})


def listed_types(ctx: Context) -> list[str]:
    return [t.name for t in ctx.registry.types.values() if t.public and t.name not in NOT_LISTED_TYPES]


def listed_taxonomies(ctx: Context) -> list[str]:
    return [t.name for t in ctx.registry.taxonomies.values()
            if t.public and t.publicly_queryable and t.name not in NOT_LISTED_TAXONOMIES]


def author_types(ctx: Context) -> list[str]:
    """Whose authors the users' sitemap lists (the reference's: public types but attachments and pages)."""
    return [name for name in listed_types(ctx) if name != "page"]


def _sitemap(conn: Any, ctx: Context, home: str, kind: str, subtype: str, page: int) -> str | None:
    home = home.rstrip("/")
    if kind == "index":
        return _index(conn, ctx, home)
    if kind == "posts" and subtype in listed_types(ctx):
        items, uris = store.items_page(conn, ctx, subtype, page)
        entries = [(item_service.permalink(ctx, item, uri=uris.get(item.id)), item.modified_utc) for item in items]
        if subtype == "page" and page == 1 and ctx.options.get("show_on_front", "posts") != "page":
            entries.insert(0, (home + "/", store.latest_modified(conn)))
        return _urlset(entries) if items else None
    if kind == "taxonomies" and subtype in listed_taxonomies(ctx):
        found = store.terms_page(conn, subtype, page)
        return _urlset((term_url(home, term, ctx.options), None) for term in found) if found else None
    if kind == "users" and not subtype:
        users = store.authors_page(conn, author_types(ctx), page)
        return _urlset((f"{home}/author/{quote(user.nicename, safe='%')}/", None) for user in users) if users else None
    return None


def _index(conn: Any, ctx: Context, home: str) -> str:
    addresses = []
    counts = store.item_counts(conn, listed_types(ctx))
    for name in listed_types(ctx):
        addresses += [f"{home}/wp-sitemap-posts-{name}-{n}.xml" for n in range(1, store.pages_of(counts.get(name, 0)) + 1)]
    counts = store.term_counts(conn, listed_taxonomies(ctx))
    for name in listed_taxonomies(ctx):
        addresses += [f"{home}/wp-sitemap-taxonomies-{name}-{n}.xml" for n in range(1, store.pages_of(counts.get(name, 0)) + 1)]
    authors = store.author_count(conn, author_types(ctx))
    addresses += [f"{home}/wp-sitemap-users-{n}.xml" for n in range(1, store.pages_of(authors) + 1)]
    body = "".join(f"<sitemap><loc>{text(address)}</loc></sitemap>" for address in addresses)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NAMESPACE}">{body}</sitemapindex>\n'


def _urlset(entries: Iterable[tuple[str, Any]]) -> str:
    body = []
    for address, modified in entries:
        lastmod = f"<lastmod>{w3c(modified)}</lastmod>" if modified is not None else ""
        body.append(f"<url><loc>{text(address)}</loc>{lastmod}</url>")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NAMESPACE}">{"".join(body)}</urlset>\n'
