"""The public site: a page behind every public address the API hands out.

* ``/events/...`` (and ``/?post_type=cal_events&eventDisplay=...``): the calendar views, rendered
  by :mod:`.views` around the same container the ``cal/views/v2/html`` route answers with;
  ``?ical=1`` on any of them, and ``/events/ical/``, the .ics of what the view lists (:mod:`.feeds`).
* every content item's ``link`` (the resolver of :mod:`calpress.content.public` reads the address
  back): events (date and time in the event's zone, venue with address and map link, organizers,
  cost, terms, description, image, previous and next event, add-to-calendar links, JSON-LD; its
  ``?ical=1`` export), venues and organizers with their upcoming events, posts, pages and
  attachments; category, tag and author archives, the front page and search results;
* feeds (RSS and Atom of posts, comments, terms, authors and upcoming events), the sitemaps and
  ``/robots.txt`` (:mod:`.syndication`, :mod:`.sitemaps`), and their links in every page's head;
* the embed page of every item anyone may see (``<link>embed/``, or ``&embed=true`` when the
  link has a query): what the frame of an oEmbed answer shows (:mod:`calpress.embed`), small,
  self-contained and framable by any site.

Who sees what is the one read rule (:mod:`calpress.content.permissions`): visitors see what is
published; a logged-in user (the login cookie, as the reference's front end) also what they may
read. Drafts and unknown addresses answer a 404 page; password-protected items ask for the
password (a POST to the item's address sets a signed cookie, as the reference's postpass form).

Every page carries the REST discovery link (header and tag), the calendar's discovery headers
and tags (:func:`.discovery.discovery_headers`, calendar-api.md 9.1), and the oEmbed discovery
links once an oEmbed route exists. Answers are cached per address, requester and minute, keyed
by the content counter every write bumps, as the REST answer cache is.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import html
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import falcon

from ..auth.authenticate import view_nonces
from ..calendar import events as cal
from ..calendar import views as cal_views
from ..calendar.bar_filters import VENUE_VAR
from ..calendar.represent import Builder
from ..compat.formatting import safe_url, strip_all_tags
from ..content import archives, permissions, public, rendering
from ..content import items as item_service
from ..content.items import Context, Item
from ..embed import local as embeds
from ..media import attachments
from ..rest.cache import GenerationCache
from ..rest.request import parse_query
from ..rest.urls import rest_url
from ..site_settings import events_on_front
from . import branding, comment_form, discovery, feeds, pictures, sharing, sitemaps, syndication, theme
from .adminbar import admin_bar
from .answer import Answer
from .cards import Cards, EventCard, date_text, person_of, place_of, time_text
from .navigation import Navigation
from .pictures import Loading
from .requester import POSTPASS_COOKIE, Requester
from .views import PAGE_POLICY, Addresses, ical_address, render_view, script_json, term_url

if TYPE_CHECKING:
    from ..app import Calpress

STATIC_PATH = "/wp-content/calpress"
_STATIC = Path(__file__).resolve().parent.parent / "static"
# The query arguments that make the site root a page rather than the site description.
PUBLIC_QUERY_VARS = frozenset({
    "p", "page_id", "attachment_id", "cat", "tag", "author", "author_name", "s", "name", "pagename", "category_name",
    "post_type", "paged", "eventDisplay", "eventDate", "tribe_events_cat", "tribe-bar-date", "tribe-bar-search", "ical",
    "cal_events", "cal_venue", "cal_organizer", "cal_events_cat", "preview", "embed", "feed", VENUE_VAR,
})
CALENDAR_ROOT_VARS = frozenset({"eventDisplay", "eventDate", "tribe_events_cat", "tribe-bar-date", "tribe-bar-search", VENUE_VAR})
FRONT_OTHER_VARS = PUBLIC_QUERY_VARS - CALENDAR_ROOT_VARS - {"paged", "ical"}  # the root as something else
LINKED_UPCOMING = 10
PAGE_CACHE_BYTES = 32 * 1024 * 1024
# An embed page's address: the item's own with ``embed/`` after it (or ``?embed=...``).
_EMBED_PATH = re.compile(r"(.*/)embed/?")
EMBED_EXCERPT_WORDS = 35  # the reference's wp_embed_excerpt_length
# Embed pages are framed by other sites (no frame-ancestors, no X-Frame-Options) and run one
# inline script, allowed by its hash.
EMBED_POLICY = (
    "default-src 'none'; img-src 'self' https: http: data:; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{base64.b64encode(hashlib.sha256(embeds.FRAME_SCRIPT.encode()).digest()).decode()}'; "
    "base-uri 'none'; form-action 'none'"
)


def asset_version(name: str) -> str:
    return hashlib.blake2b((_STATIC / name).read_bytes(), digest_size=6).hexdigest()


class StaticAssets:
    """The site's stylesheet and script, cached for a year (their addresses carry a version)."""

    FILES = {"site.css": "text/css; charset=UTF-8", "views.js": "text/javascript; charset=UTF-8"}

    def __init__(self) -> None:
        self.bodies = {name: (_STATIC / name).read_bytes() for name in self.FILES}

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        name = req.path[len(STATIC_PATH) + 1:]
        if name not in self.bodies:
            raise falcon.HTTPNotFound()
        resp.content_type = self.FILES[name]
        resp.data = self.bodies[name]
        resp.set_header("Cache-Control", "public, max-age=31536000, immutable")

    on_head = on_get


class PublicSite:
    """The public pages (GET, HEAD, and POST for a protected item's password)."""

    def __init__(self, calpress: Calpress) -> None:
        self.calpress = calpress
        self.site = calpress.site
        self.routes = calpress.api.registry
        # Rendered pages, as the REST engine keeps its answers: per key, while the content is unchanged.
        self.cache = GenerationCache(PAGE_CACHE_BYTES)
        # Which optional routes exist is known at start (the oEmbed issue adds its own).
        self.has_views_route = self._has_route("cal-views.html")
        self.has_oembed = self._has_route("oembed.embed")
        self.css_url = f"{STATIC_PATH}/site.css?ver={asset_version('site.css')}"
        self.js_url = f"{STATIC_PATH}/views.js?ver={asset_version('views.js')}"
        self.templates = theme.templates_for(calpress.settings)  # the package's, the data folder's overrides first
        self.navigation = Navigation(self.site, lambda: self.calpress.rest.generation(None) if self.calpress.rest.generation else 0)

    # -- entry points ---------------------------------------------------------------------------

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        who = Requester(self, req)
        generation = self.calpress.rest.generation(None) if self.calpress.rest.generation else 0
        key = (who.origin, req.path, req.query_string, who.user_id, who.session.token if who.session else "",
               who.postpass, comment_form.cache_key(req), int(time.time() // 60))
        answer = self.cache.get(key, generation)
        if answer is None:
            answer = self.answer(req, who)
            if answer.status == 200:
                self.cache.put(key, generation, answer, len(answer.body))
        resp.status = falcon.code_to_http_status(answer.status)
        resp.content_type = answer.content_type
        for name, value in answer.headers.items():
            resp.set_header(name, value)
        if who.user:
            resp.set_header("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
        resp.data = answer.body

    on_head = on_get

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """The password form of a protected item: a signed cookie of the password, then back to
        the page with GET (which shows the content when the password is the item's)."""
        length = req.content_length or 0
        form = parse_query(req.bounded_stream.read(min(length, 64 * 1024)).decode("utf-8", "replace")) if length else {}
        password = form.get("post_password")
        if not isinstance(password, str) or not password or len(password) > 255:
            raise falcon.HTTPBadRequest(title="Bad Request", description="A password is required.")
        resp.set_cookie(POSTPASS_COOKIE, self._postpass_value(password), path="/", max_age=10 * 24 * 3600,
                        http_only=True, same_site="Lax", secure=req.scheme == "https")
        resp.status = falcon.HTTP_303
        resp.content_type = "text/html; charset=UTF-8"
        resp.set_header("Location", req.relative_uri)

    def _postpass_value(self, password: str) -> str:
        return hmac.new(self.calpress.settings.secret_key.encode(), b"postpass|" + password.encode(), "sha256").hexdigest()

    def password_given(self, who: Requester, item: Item) -> str | None:
        """The item's password when the requester's postpass cookie proves they entered it."""
        if item.password and who.postpass and hmac.compare_digest(who.postpass, self._postpass_value(item.password)):
            return item.password
        return None

    # -- dispatch -------------------------------------------------------------------------------

    def answer(self, req: falcon.Request, who: Requester) -> Answer:
        path = req.path
        query = {k: v for k, v in parse_query(req.query_string).items() if isinstance(k, str)}
        try:
            syndicated = syndication.answer(self, who, path, query)  # feeds, sitemaps, robots.txt
            if syndicated is not None:
                return syndicated
            if path == "/events" or path.startswith("/events/") or (path == "/" and self._calendar_root(query, who)):
                return self.calendar(req, who)
            path = comment_form.prepare(who, req, path, query, self.calpress.settings.secret_key)
            embedded = _embed_address(path, query)
            if embedded is not None:
                with self.site.read() as conn:
                    return self.embed_page(who, public.resolve(conn, who.ctx, *embedded))
            ical = False
            if path.rstrip("/").endswith("/ical") and path.startswith(("/event/", "/venue/", "/organizer/")):
                path, ical = path.rstrip("/")[: -len("/ical")] + "/", True
            with self.site.read() as conn:
                target = public.resolve(conn, who.ctx, path, query)
            if target is None:
                return self.not_found(who)
            ical = ical or str(query.get("ical") or "") == "1"
            return self.target(who, target, ical=ical)
        except cal_views.ViewError as err:
            return self.error_page(who, err.status, err.message)

    @staticmethod
    def _calendar_root(query: dict[str, Any], who: Requester) -> bool:
        if query.get("post_type") == cal.EVENT_TYPE or bool(CALENDAR_ROOT_VARS & query.keys()):
            return True
        # The events page as the front page: the root is the calendar unless it asks for something else.
        return events_on_front(who.ctx.options) and not (FRONT_OTHER_VARS & query.keys())

    def target(self, who: Requester, target: public.Target, *, ical: bool) -> Answer:
        if target.kind == "item":
            with self.site.read() as conn:
                item = item_service.get_item(conn, target.item_id)
            if item is None or item.status == "trash" or not permissions.can_read(who.ctx, item):
                return self.not_found(who)
            if item.type == cal.EVENT_TYPE:
                return self.event_page(who, item, ical=ical)
            if item.type in (cal.VENUE_TYPE, cal.ORGANIZER_TYPE):
                return self.linked_page(who, item)
            return self.item_page(who, item, target.page)
        if target.kind == "term":
            return self.term_archive(who, target)
        if target.kind == "author":
            return self.author_archive(who, target)
        if target.kind == "search":
            return self.search_page(who, target)
        return self.front_page(who, target.page)

    # -- shared ---------------------------------------------------------------------------------

    def rest_root(self, who: Requester) -> str:
        return who.origin + discovery.REST_PREFIX + "/"

    def rest_link(self, who: Requester, name: str, query: Any = None, **params: Any) -> str:
        return rest_url(who.origin + discovery.REST_PREFIX, self.routes.path(name, **params), query)

    def events_root(self, who: Requester, query: dict[str, Any]) -> str:
        """The discovery root of a filtered event listing (``.../events/?categories=x``)."""
        return discovery.rest_address(self.routes, who.origin, "cal.events", query, slash=True)

    def addresses(self, who: Requester) -> Addresses:
        return Addresses(
            home=who.origin,
            views_rest_url=self.rest_link(who, "cal-views.html") if self.has_views_route else "",
            term_url=lambda term: self.term_url(who, term),
            rest_url=lambda name, query=None, **params: self.rest_link(who, name, query, **params),
        )

    def _has_route(self, name: str) -> bool:
        try:
            self.routes.path(name)
        except (KeyError, ValueError):
            return False
        return True

    def term_url(self, who: Requester, term: Any) -> str:
        return term_url(who.origin, term, who.ctx.options)

    def nonces(self, who: Requester) -> dict[str, str]:
        return view_nonces(self.calpress.settings.secret_key, who.user_id, who.session.token if who.session else "")

    def page_model(self, who: Requester, title: str, *, root: str | None = None, json_ld: list[Any] | None = None,
                   links: list[dict[str, str]] | None = None, body_class: str = "", current: str = "",
                   noindex: bool = False, item_url: str = "", item: Item | None = None, archive: Any = None,
                   archive_url: str = "", share: sharing.Share | None = None) -> tuple[dict[str, Any], dict[str, str]]:
        """The layout's data and the page's headers (REST and calendar discovery). A logged-in
        requester gets the admin bar (``item``: the single item shown, for its edit link); the
        page cache keys pages by requester and session, so nobody else is served it."""
        options = who.ctx.options
        headers = discovery.discovery_headers(self.site, self.routes, who.origin, root)
        rest_root = self.rest_root(who)
        meta = [("tec-api-version", headers["X-TEC-API-VERSION"]), *sitemaps.robots_meta(options)]
        all_links = [*syndication.feed_links(who.ctx, item=item, archive=archive, archive_url=archive_url,
                                             events=current == "events"), *(links or [])]
        if "X-TEC-API-ROOT" in headers:
            meta.append(("tec-api-origin", headers["X-TEC-API-ORIGIN"]))
            all_links.append({"rel": "alternate", "href": headers["X-TEC-API-ROOT"]})
        if item_url and self.has_oembed:
            for kind, mime in (("json", "application/json+oembed"), ("xml", "text/xml+oembed")):
                href = self.rest_link(who, "oembed.embed", {"url": item_url, **({"format": "xml"} if kind == "xml" else {})})
                all_links.append({"rel": "alternate", "type": mime, "title": f"oEmbed ({kind.upper()})", "href": href})
        link_header = [f'<{rest_root}>; rel="https://api.w.org/"']
        for link in all_links:
            if link.get("type") == "application/json":
                link_header.append(f'<{link["href"]}>; rel="alternate"; type="application/json"')
        headers["Link"] = ", ".join(link_header)
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "strict-origin-when-cross-origin"
        headers["Content-Security-Policy"] = PAGE_POLICY
        home = who.origin
        nav, footer_nav = self.navigation.model(who.ctx, current=current, item=item, logged_in=bool(who.user))
        model = {
            "lang": str(options.get("WPLANG") or "en").replace("_", "-") or "en",
            "title": title,
            "site_name": html.unescape(str(options.get("blogname") or "")),
            "tagline": html.unescape(str(options.get("blogdescription") or "")),
            "home": home,
            "rest_root": rest_root,
            "css_url": self.css_url,
            "js_url": self.js_url,
            "links": all_links,
            "meta": meta,
            "json_ld": json_ld or [],
            "body_class": body_class,
            "nav": nav,
            "footer_nav": footer_nav,
            "user_name": who.user.display_name if who.user else "",
            "noindex": noindex and sitemaps.is_public(options),
            "head": sharing.head_tags(options, share, title),  # canonical, description, Open Graph (sharing.py)
            "brand": branding.brand(self.site, who.ctx),  # logo, icons, extra CSS (branding.py)
            "admin_bar": admin_bar(who.ctx, who.session, self.calpress.settings.secret_key, home, self.calpress.admin_files,
                                   item) if who.user and who.session else None,
        }
        return model, headers

    def render(self, template: str, status: int, model: dict[str, Any], headers: dict[str, str], **context: Any) -> Answer:
        body = self.templates.get_template(template).render(page=model, **{"images": Loading(), **context})
        return Answer(status, body.encode(), headers=headers)

    def not_found(self, who: Requester) -> Answer:
        return self.error_page(who, 404, "Nothing was found at this address. It may have moved, or never existed.")

    def error_page(self, who: Requester, status: int, message: str) -> Answer:
        heading = "Page not found" if status == 404 else "This address cannot be shown"
        model, headers = self.page_model(who, heading, noindex=True)
        return self.render("site/error.html", status, model, headers, heading=heading, message=message, search_form=status == 404)

    def password_form(self, who: Requester, item: Item, url: str) -> str:
        wrong = bool(who.postpass)
        return self.templates.get_template("site/password.html").render(action=url, item_id=item.id, wrong=wrong)

    # -- embeds ---------------------------------------------------------------------------------

    def embed_page(self, who: Requester, target: public.Target | None) -> Answer:
        """The small page an oEmbed frame shows: title, excerpt, picture, the site's name, links
        to the item. Only for items anyone may embed (a 404 embed page otherwise, whoever asks);
        a protected item shows neither excerpt nor picture."""
        ctx = who.ctx
        item_id = 0
        if target is not None and target.kind == "item":
            item_id = target.item_id
        elif target is not None and target.kind == "front" and ctx.options.get("show_on_front") == "page":
            item_id = int(ctx.options.get("page_on_front") or 0)
        with self.site.read() as conn:
            item = item_service.get_item(conn, item_id) if item_id > 0 else None
            if item is None or not embeds.is_embeddable(conn, ctx, item):
                return self._embed_answer(who, 404)
            picture = None if item.password else embeds.thumbnail(conn, ctx, item, embeds.DEFAULT_WIDTH)
        image = None
        if picture is not None:
            source, width, height = picture
            image = {"url": source, "width": width, "height": height,
                     "shape": "rectangular" if height and width / height >= 1.75 else "square"}
        locked = bool(item.password)
        return self._embed_answer(
            who, 200, found=True, title=embeds.oembed_title(item), url=item_service.permalink(ctx, item), image=image,
            locked=locked, detail="" if locked else self._embed_detail(who, item), item_class=f"type-{item.type}",
            excerpt="" if locked else rendering.render_excerpt(item.excerpt, item.content, length=EMBED_EXCERPT_WORDS),
        )

    def _embed_detail(self, who: Requester, item: Item) -> str:
        """An event's dates and venue, under its title."""
        if item.type != cal.EVENT_TYPE:
            return ""
        with self.site.read() as conn:
            loaded = cal.load_items(conn, who.ctx, [item])
        card = Cards(who.ctx, loaded, cal_views.local_now(who.ctx).date(), lambda term: self.term_url(who, term)).event(item)
        venue = f" \u00b7 {html.unescape(strip_all_tags(card.venue.name))}" if card.venue else ""
        return html.unescape(strip_all_tags(card.schedule)) + venue

    def _embed_answer(self, who: Requester, status: int, **context: Any) -> Answer:
        options = who.ctx.options
        body = self.templates.get_template("site/embed.html").render(
            lang=str(options.get("WPLANG") or "en").replace("_", "-") or "en",
            site_name=html.unescape(str(options.get("blogname") or "")), home=who.origin, script=embeds.FRAME_SCRIPT,
            body_class="embed" if status == 200 else "embed error404", **{"found": False, **context},
        )
        headers = {
            "Link": f'<{self.rest_root(who)}>; rel="https://api.w.org/"',
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "strict-origin-when-cross-origin",
            "Content-Security-Policy": EMBED_POLICY,
        }
        return Answer(status, body.encode(), headers=headers)

    # -- the calendar ---------------------------------------------------------------------------

    def calendar(self, req: falcon.Request, who: Requester) -> Answer:
        return self.calendar_at(who, who.origin + req.relative_uri)

    def calendar_at(self, who: Requester, url: str) -> Answer:
        state = cal_views.view_state(url, who.origin, who.ctx.options)
        if state.ical:
            return self.view_feed(who, state)
        rendered = render_view(self.site, who.ctx, state, self.addresses(who), nonces=self.nonces(who), env=self.templates)
        root_query: dict[str, Any] = {}
        if state.category:
            root_query["categories"] = state.category
        if state.tag:
            root_query["tags"] = state.tag
        if state.featured:
            root_query["featured"] = 1
        if state.venue:
            root_query["venue"] = state.venue
        root = self.events_root(who, root_query) if root_query else None
        ics = ical_address(state.url)
        links = [{"rel": "alternate", "type": "text/calendar", "title": "iCalendar", "href": ics}]
        model, headers = self.page_model(who, rendered.title, root=root, links=links, current="events",
                                         body_class=f"calendar calendar-{state.view}",
                                         share=sharing.Share(cal_views.view_url(state, date=state.date, page=state.page)))
        return self.render("site/calendar.html", 200, model, headers, view_html=rendered.html)

    def view_feed(self, who: Requester, state: cal_views.ViewState) -> Answer:
        with self.site.read() as conn:
            loaded = cal_views.feed_events(conn, who.ctx, state)
        body = feeds.ics(who.ctx, loaded, site_name=str(who.ctx.options.get("blogname") or ""))
        return feeds.answer(body, "events")

    # -- events, venues, organizers -------------------------------------------------------------

    def event_page(self, who: Requester, item: Item, *, ical: bool) -> Answer:
        ctx = who.ctx
        with self.site.read() as conn:
            loaded = cal.load_items(conn, ctx, [item])
            neighbours = self._neighbours(conn, ctx, item, loaded)
        password = self.password_given(who, item)
        locked = bool(item.password) and not permissions.password_open(ctx, item, password)
        if ical:
            if locked:
                return self.not_found(who)
            return feeds.answer(feeds.ics(ctx, loaded, site_name=str(ctx.options.get("blogname") or "")), item.slug or str(item.id))
        today = cal_views.local_now(ctx).date()
        cards = Cards(ctx, loaded, today, lambda term: self.term_url(who, term))
        card = cards.event(item)
        url = card.url
        builder = Builder(ctx, lambda name, query=None, **params: self.rest_link(who, name, query, **params), loaded,
                          single=True, password=password)
        json_ld = [] if locked else [script_json([builder.event(item)["json_ld"]])]
        website = safe_url(item.meta.get("_EventURL") or "")  # no javascript: (data:...) href
        content = "" if locked else rendering.render_content(item.content).strip()
        content, images = pictures.page_images(self.site, ctx.home, content, None if locked else card.image)
        links = [
            {"rel": "alternate", "type": "application/json", "href": self.rest_link(who, "cms.cal_events.item", id=item.id)},
            {"rel": "alternate", "type": "text/calendar", "title": "iCalendar", "href": _with_query(url, {"ical": "1"})},
        ]
        model, headers = self.page_model(who, card.title, root=self.rest_link(who, "cal.events.item", id=item.id),
                                         json_ld=json_ld, links=links, current="events", body_class="single-event",
                                         item_url=url, item=item, share=sharing.event_share(card, content, locked))
        return self.render(
            "site/event.html", 200, model, headers, e=card, content=content, locked=locked, images=images,
            password_form=self.password_form(who, item, url) if locked else "",
            start_text=_moment_text(ctx, card.start, card.all_day, today),
            end_text=_moment_text(ctx, card.end, card.all_day, today),
            time_text=_time_range(ctx, card), website=website,
            add_links=feeds.add_to_calendar_links(card, item, _plain(content), str(ctx.options.get("blogname") or ""), who.origin),
            previous=neighbours[0], next=neighbours[1], comments=comment_form.section(self, who, item, url, locked=locked),
        )

    def _neighbours(self, conn: Any, ctx: Context, item: Item, loaded: cal.Loaded) -> tuple[Any, Any]:
        """The events before and after this one (by start), as (title, url) records, or None."""
        row = loaded.event_rows.get(item.id)
        if row is None:
            return None, None
        found = cal_views.adjacent_events(conn, ctx, item.id, row.start_local)
        return tuple(
            None if other is None else _Link(rendering.render_title(other.title).strip(), item_service.permalink(ctx, other))
            for other in found
        )  # type: ignore[return-value]

    def linked_page(self, who: Requester, item: Item) -> Answer:
        ctx = who.ctx
        kind = "venue" if item.type == cal.VENUE_TYPE else "organizer"
        with self.site.read() as conn:
            loaded = cal_views.upcoming_for(conn, ctx, kind, item.id, limit=LINKED_UPCOMING + 1)
            own = cal.load_items(conn, ctx, [item])
        more = len(loaded.items) > LINKED_UPCOMING
        loaded.items = loaded.items[:LINKED_UPCOMING]
        today = cal_views.local_now(ctx).date()
        cards = Cards(ctx, loaded, today, lambda term: self.term_url(who, term))
        password = self.password_given(who, item)
        locked = bool(item.password) and not permissions.password_open(ctx, item, password)
        url = item_service.permalink(ctx, item)
        title = rendering.render_title(item.title).strip()
        builder = Builder(ctx, lambda name, query=None, **params: self.rest_link(who, name, query, **params), own, single=True)
        shown = builder.venue(item) if kind == "venue" else builder.organizer(item)
        ld = dict(shown.get("json_ld") or {})
        if ld:
            ld = {"@context": "http://schema.org", **ld}
        root = self.events_root(who, {kind: item.id})
        rest_name = "cms.cal_venue.item" if kind == "venue" else "cms.cal_organizer.item"
        links = [{"rel": "alternate", "type": "application/json", "href": self.rest_link(who, rest_name, id=item.id)}]
        picture = None if locked else own.images.get(item.featured_media) or None
        model, headers = self.page_model(who, title, root=root, json_ld=[script_json(ld)] if ld and not locked else [],
                                         links=links, current="events", body_class=f"single-{kind}", item_url=url,
                                         item=item, share=sharing.Share(url, "" if locked else item.content, "article", title,
                                                                        picture))
        more_url = f"{who.origin}/events/list/" if more else ""
        content, images = pictures.page_images(self.site, ctx.home, "" if locked else rendering.render_content(item.content).strip(),
                                               picture)
        return self.render(
            "site/linked.html", 200, model, headers, kind=kind, title=title, locked=locked,
            password_form=self.password_form(who, item, url) if locked else "",
            place=place_of(ctx, item) if kind == "venue" and not locked else None,
            person=person_of(ctx, item) if kind == "organizer" and not locked else None,
            content=content, images=images,
            events=[cards.event(e) for e in loaded.items], more_url=more_url, v={"show_zone": False}, image=picture,
        )

    # -- posts, pages, archives -----------------------------------------------------------------

    def item_page(self, who: Requester, item: Item, page: int) -> Answer:
        ctx = who.ctx
        password = self.password_given(who, item)
        locked = bool(item.password) and not permissions.password_open(ctx, item, password)
        url = item_service.permalink(ctx, item)
        with self.site.read() as conn:
            extra = archives.item_extras(conn, ctx, item)
            image = attachments.image_objects(conn, ctx.home, [item.featured_media], storage=getattr(self.site, "storage", None)).get(
                item.featured_media) if item.featured_media else None
        title = rendering.render_title(item.title).strip()
        if locked:
            content = ""
        elif item.type == "attachment":  # the file itself before its description, as the reference
            content = attachments.attachment_html(item, self.site.storage, ctx.home).strip()
        else:
            content = rendering.render_content(item.content).strip()
        content, images = pictures.page_images(self.site, ctx.home, content, None if locked else image or None)
        content_type = ctx.registry.types.get(item.type)
        rest_base = getattr(content_type, "rest_base", "") if content_type else ""
        links = []
        if rest_base and self._has_route(f"cms.{rest_base}.item"):
            links.append({"rel": "alternate", "type": "application/json", "href": self.rest_link(who, f"cms.{rest_base}.item", id=item.id)})
        model, headers = self.page_model(who, title, links=links, body_class=f"single single-{item.type}", item_url=url,
                                         current="home" if extra.is_front else "", item=item,
                                         share=sharing.item_share(ctx, item, url, page, locked, image))
        terms = [(label, [(t.name, self.term_url(who, t)) for t in found]) for label, found in extra.terms if found]
        today = cal_views.local_now(ctx).date()
        return self.render(
            "site/item.html", 200, model, headers, item=item, title=title, content=content, locked=locked,
            password_form=self.password_form(who, item, url) if locked else "",
            show_meta=item.type == "post", date_iso=item.date_local.isoformat(),
            date_text=date_text(ctx, item.date_local, today, with_year=True),
            author={"name": extra.author_name, "url": extra.author_url} if extra.author_name else None,
            terms=terms, image=None if locked else (image or None), item_class=f"type-{item.type}", images=images,
            comments=comment_form.section(self, who, item, url, locked=locked),
        )

    def _archive(self, who: Requester, heading: str, found: archives.Archive, page_url: Any, *, intro: str = "",
                 empty: str = "Nothing has been published here yet.", search: str | None = None, current: str = "",
                 root: str | None = None, archive: Any = None, archive_url: str = "",
                 event_dates: dict[int, tuple[str, str]] | None = None) -> Answer:
        ctx = who.ctx
        if not found.items and found.page > 1:
            return self.not_found(who)
        today = cal_views.local_now(ctx).date()
        entries = []
        for item in found.items:
            protected = bool(item.password)
            when = (event_dates or {}).get(item.id)  # an event shows when it happens
            entries.append({
                "id": item.id,
                "title": rendering.render_title(item.title).strip(),
                "url": item_service.permalink(ctx, item),
                "date_iso": when[0] if when else item.date_local.isoformat(),
                "date_text": when[1] if when else date_text(ctx, item.date_local, today, with_year=True),
                "sticky": item.id in found.sticky,
                "excerpt": "" if protected else rendering.render_excerpt(item.excerpt, item.content).strip(),
                "private": item.status == "private",
            })
        page_title = heading if found.page == 1 else f"{heading} \u2013 Page {found.page}"
        model, headers = self.page_model(who, "" if current == "home" and found.page == 1 else page_title,
                                         current=current, root=root, body_class="archive", archive=archive,
                                         archive_url=archive_url,
                                         share=sharing.Share("" if search is not None else page_url(found.page), intro))
        return self.render(
            "site/archive.html", 200, model, headers, heading=html.escape(heading), intro=intro, entries=entries,
            empty_text=empty, prev_url=page_url(found.page - 1) if found.page > 1 else "",
            next_url=page_url(found.page + 1) if found.has_next else "", search_form=search is not None,
            search=search or "",
        )

    def front_page(self, who: Requester, page: int) -> Answer:
        ctx = who.ctx
        options = ctx.options
        if events_on_front(options):  # /page/N/ of an events front page: the default view's page N
            return self.calendar_at(who, who.origin + "/" + (f"?paged={page}" if page > 1 else ""))
        if options.get("show_on_front") == "page" and int(options.get("page_on_front") or 0):
            with self.site.read() as conn:
                item = item_service.get_item(conn, int(options["page_on_front"]))
            if item is not None and permissions.can_read(ctx, item):
                return self.item_page(who, item, page)
        with self.site.read() as conn:
            found = archives.archive(conn, ctx, page=page)
        name = html.unescape(str(options.get("blogname") or "Home"))
        return self._archive(who, name, found, lambda n: who.origin + "/" if n <= 1 else f"{who.origin}/page/{n}/",
                             current="home", intro=f"<p>{html.escape(html.unescape(str(options.get('blogdescription') or '')))}</p>"
                             if options.get("blogdescription") else "")

    def term_archive(self, who: Requester, target: public.Target) -> Answer:
        with self.site.read() as conn:
            term, found = archives.term_archive(conn, who.ctx, target.taxonomy, target.term_id, page=target.page)
        if term is None:
            return self.not_found(who)
        base = self.term_url(who, term)
        label = "Category" if term.taxonomy == "category" else "Tag" if term.taxonomy == "post_tag" else "Archive"
        root = self.events_root(who, {"tags": term.slug}) if term.taxonomy == "post_tag" else None
        return self._archive(who, f"{label}: {html.unescape(term.name)}", found,
                             lambda n: base if n <= 1 else _with_query(base, {"paged": str(n)}),
                             intro=rendering.render_content(term.description) if term.description else "", root=root,
                             archive=term, archive_url=base)

    def author_archive(self, who: Requester, target: public.Target) -> Answer:
        with self.site.read() as conn:
            author, found = archives.author_archive(conn, who.ctx, target.user_id, page=target.page)
        if author is None:
            return self.not_found(who)
        base = f"{who.origin}/author/{quote(author.nicename, safe='%')}/"
        return self._archive(who, f"Author: {author.display_name}", found,
                             lambda n: base if n <= 1 else f"{base}page/{n}/", archive=author, archive_url=base)

    def search_page(self, who: Requester, target: public.Target) -> Answer:
        text = target.search[: cal_views.SEARCH_MAX_LENGTH]
        with self.site.read() as conn:
            found = archives.search(conn, who.ctx, text, page=target.page)
            events = [item for item in found.items if item.type == cal.EVENT_TYPE]
            loaded = cal.load_items(conn, who.ctx, events) if events else None
        event_dates: dict[int, tuple[str, str]] = {}
        if loaded is not None:
            cards = Cards(who.ctx, loaded, cal_views.local_now(who.ctx).date(), lambda term: self.term_url(who, term))
            for card in (cards.event(item) for item in events):
                event_dates[card.id] = (card.start.isoformat(), _plain(card.schedule))
        return self._archive(who, f"Search results for \u201c{text[:80]}\u201d", found,
                             lambda n: f"{who.origin}/?{urlencode({'s': text, **({'paged': n} if n > 1 else {})})}",
                             empty="Nothing matched your search. Try other words.", search=text, event_dates=event_dates)


@dataclass
class _Link:
    title: str
    url: str


def _embed_address(path: str, query: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The item address (path, query) an embed page's address stands for, or None when it is not
    one: ``/hello/embed/`` is ``/hello/``'s, ``/?p=5&embed=true`` is ``/?p=5``'s."""
    if query.get("embed"):
        return path, {key: value for key, value in query.items() if key != "embed"}
    found = _EMBED_PATH.fullmatch(path)
    return (found.group(1), query) if found else None


def _with_query(url: str, args: dict[str, str]) -> str:
    return url + ("&" if "?" in url else "?") + urlencode(args)


def _moment_text(ctx: Context, moment: dt.datetime, all_day: bool, today: dt.date) -> str:
    day = date_text(ctx, moment, today, with_year=True)
    return day if all_day else f"{day} @ {time_text(ctx, moment)}"


def _time_range(ctx: Context, card: EventCard) -> str:
    if card.start == card.end:
        return time_text(ctx, card.start)
    return f"{time_text(ctx, card.start)} - {time_text(ctx, card.end)}"


def _plain(rendered: str) -> str:
    return html.unescape(strip_all_tags(rendered))
