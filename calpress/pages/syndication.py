"""The site's RSS 2.0 and Atom feeds, as the reference's feed templates write them
(feed-rss2.php, feed-atom.php, feed-rss2-comments.php, feed-atom-comments.php), and the feed
links of every page's head (feed_links, feed_links_extra).

* ``/feed/`` (``/feed/rss2/``, ``/?feed=rss2``), ``/feed/atom/``: the latest posts;
* ``/comments/feed/`` (``/?feed=comments-rss2``), ``/comments/feed/atom/``: the latest approved
  comments on published items without a password;
* ``<post address>feed/`` (``/?p=ID&feed=rss2``): an item's comments (a password-protected item's
  comments say they are protected, as the reference's);
* ``/category/<slug>/feed/``, ``/tag/<slug>/feed/``, ``/author/<name>/feed/``, ``/?s=x&feed=rss2``:
  the latest posts of a term, an author, a search;
* ``/events/feed/`` (``/?post_type=cal_events&feed=rss2``; The Events Calendar's): the upcoming
  events, soonest first, each dated by its start (TEC's event_date_to_pubDate), not by its
  publication.

Each holds ``posts_per_rss`` entries (10), with the full text unless ``rss_use_excerpt``; a
protected item shows neither its text nor its enclosures. Enclosures come from the ``enclosure``
meta (URL, length and type, one per line), as the reference's rss_enclosure: it adds none for
featured images. Unknown terms, authors and items answer the 404 page.

Differences, on purpose: the ``rdf`` and ``rss`` types are served as RSS 2.0; a protected
item's content is the "no excerpt" sentence rather than a password form; the site's comments
feed leaves out comments on protected items (the reference lists them, saying they are
protected); the events feed dates an event by its start in its own zone (TEC reads the start's
wall time in the site's zone); the generator is calpress.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from .. import __version__
from ..auth.users import get_user
from ..calendar import events as cal
from ..calendar.upcoming import upcoming_events
from ..compat.formatting import safe_url, strip_all_tags
from ..content import feeds, permissions, public, rendering
from ..content import items as item_service
from ..content.comments import Comment
from ..content.comments import render as render_comment
from ..content.items import Context, Item
from . import sitemaps
from .answer import Answer
from .xmltext import atom_date, attr, cdata, http_date, rfc822, text, utc

if TYPE_CHECKING:
    from .requester import Requester
    from .site import PublicSite

CONTENT_TYPES = {"rss2": "application/rss+xml; charset=UTF-8", "atom": "application/atom+xml; charset=UTF-8"}
LINK_TYPES = {"rss2": "application/rss+xml", "atom": "application/atom+xml"}
PROTECTED_EXCERPT = "There is no excerpt because this is a protected post."
PROTECTED_COMMENTS = "Protected Comments: Please enter your password to view comments."
GENERATOR = f"calpress/{__version__}"  # as the WXR export names itself (the reference: https://wordpress.org/?v=<version>)
EVENTS_PATH = "/events/"
_SINGLE_PARAGRAPH = re.compile(r"\s*<p>(.*)</p>\s*", re.S)
_MIME = re.compile(r"[\w.+-]+/[\w.+-]+")


def answer(site_pages: PublicSite, who: Requester, path: str, query: dict[str, Any]) -> Answer | None:
    """The feed, sitemap or robots.txt ``path?query`` names, or None when it names none of them
    (the public site goes on to its other pages)."""
    found = sitemaps.answer(site_pages, who, path, query)
    if found is not None:
        return found
    address = feeds.feed_address(path, query)
    if address is None:
        return None
    if address.path == "/" and address.query.get("post_type") == cal.EVENT_TYPE:  # /?post_type=cal_events&feed=rss2
        address = replace(address, path=EVENTS_PATH)
    if address.path == EVENTS_PATH or address.path.startswith(EVENTS_PATH):
        if address.path != EVENTS_PATH or address.comments or not address.format:
            return None  # the calendar's own addresses (and its 404s)
        return events_feed(site_pages, who, address)
    if not address.format:
        return site_pages.not_found(who)
    ctx = who.ctx
    with site_pages.site.read() as conn:
        target = public.resolve(conn, ctx, address.path, address.query)
    if target is None:
        return site_pages.not_found(who) if address.certain else None
    feed = _Feed(site_pages, who, address.format, path, query)
    if target.kind == "item" and not _is_posts_page(ctx, target.item_id):
        return feed.item_comments(target.item_id)
    if address.comments:
        return feed.site_comments() if target.kind == "front" else site_pages.not_found(who)
    return feed.posts(target)


def _is_posts_page(ctx: Context, item_id: int) -> bool:
    """Whether the item is the page that lists the latest posts (``page_for_posts`` beside a
    static front page): its feed is the posts feed, as the reference's."""
    options = ctx.options
    return options.get("show_on_front") == "page" and str(options.get("page_for_posts") or 0) == str(item_id)


# -- entries --------------------------------------------------------------------------------------


@dataclass
class Entry:
    """One entry of a feed, in the terms both formats use."""

    title: str
    link: str
    guid: str
    published: dt.datetime
    updated: dt.datetime
    author: str
    author_url: str = ""
    categories: list[str] = field(default_factory=list)
    summary: str = ""  # HTML
    content: str = ""  # HTML; "" with rss_use_excerpt
    comments: int | None = None  # the comment count, None when the entry offers no comments
    comments_url: str = ""
    comments_feed: dict[str, str] = field(default_factory=dict)  # format -> address
    enclosures: list[tuple[str, int, str]] = field(default_factory=list)
    reply_to: tuple[str, str] | None = None  # (guid, link) of what a comment answers


@dataclass
class Channel:
    title: str
    self_url: str
    link: str
    description: str
    updated: dt.datetime
    language: str
    home: str


def item_guid(ctx: Context, item: Item) -> str:
    """The item's GUID: the reference's ``?p=ID`` form; a GUID imported from another site (a
    query address) is kept, so that feed readers do not see a moved site's posts as new."""
    if item.guid and "?" in item.guid:
        return item.guid
    return f"{ctx.home.rstrip('/')}/?p={item.id}"


def plain_title(item: Item) -> str:
    """A title as feeds show it (the_title_rss: no tags, entities decoded)."""
    return html.unescape(strip_all_tags(rendering.render_title(item.title))).strip()


def comments_feed_url(ctx: Context, item: Item, kind: str = "rss2") -> str:
    """An item's comments feed (get_post_comments_feed_link): ``<address>feed/`` under pretty
    permalinks, ``/?p=ID&feed=rss2`` otherwise."""
    link = item_service.permalink(ctx, item)
    home = ctx.home.rstrip("/")
    if ctx.permalink_structure and "?" not in link and link.rstrip("/") != home:
        return link.rstrip("/") + "/feed/" + ("" if kind == "rss2" else f"{kind}/")
    key = "page_id" if item.type == "page" else "p"
    return f"{home}/?{urlencode({'feed': kind, key: item.id})}"


def _excerpt(item: Item) -> str:
    rendered = rendering.render_excerpt(item.excerpt, item.content).strip()
    single = _SINGLE_PARAGRAPH.fullmatch(rendered)
    return single.group(1).strip() if single and "<p>" not in single.group(1) else rendered


def _enclosures(item: Item) -> list[tuple[str, int, str]]:
    """The ``enclosure`` meta's files: URL, then a length and a type in either order."""
    values = item.meta.get("enclosure")
    found = []
    for value in values if isinstance(values, list) else [values]:
        if not isinstance(value, str) or not value.strip():
            continue
        lines = value.split("\n")
        url = safe_url(lines[0].strip())
        length, kind = 0, ""
        for part in (line.strip() for line in lines[1:3]):
            if part.isdigit():
                length = int(part)
            elif _MIME.fullmatch(part):
                kind = part
        if url:
            found.append((url, length, kind))
    return found


def item_entry(ctx: Context, item: Item, found: feeds.Entries, *, locked: bool, use_excerpt: bool,
               published: dt.datetime | None = None) -> Entry:
    author = found.authors.get(item.author)
    link = item_service.permalink(ctx, item)
    offers_comments = item.comment_count > 0 or item.comment_status == "open"
    if locked:  # the reference's content is then a password form; a feed reader cannot post it
        summary = content = PROTECTED_EXCERPT
    else:
        summary = _excerpt(item)
        content = "" if use_excerpt else (rendering.render_content(item.content).strip() or summary)
    return Entry(
        title=plain_title(item),
        link=link,
        guid=item_guid(ctx, item),
        published=published or item_service.date_gmt(item, ctx.zone),
        updated=item.modified_utc,
        author=author.display_name if author else "",
        author_url=safe_url(author.url) if author else "",
        categories=[html.unescape(name) for name in found.terms.get(item.id, [])],
        summary=summary,
        content=content if not use_excerpt else "",
        comments=item.comment_count if offers_comments else None,
        comments_url=link + "#comments",
        comments_feed={kind: comments_feed_url(ctx, item, kind) for kind in ("rss2", "atom")},
        enclosures=[] if locked else _enclosures(item),
    )


def comment_entry(ctx: Context, comment: Comment, item: Item, *, single: bool, locked: bool) -> Entry:
    author = comment.author_name or "Anonymous"
    post_title = plain_title(item)
    link = item_service.permalink(ctx, item)
    guid = item_guid(ctx, item)
    text_html = "" if locked else render_comment(comment.content)
    return Entry(
        title=f"By: {author}" if single else f"Comment on {post_title} by {author}",
        link=f"{link}#comment-{comment.id}",
        guid=f"{guid}#comment-{comment.id}",
        published=comment.date_utc,
        updated=comment.date_utc,
        author=author,
        author_url=safe_url(comment.author_url),
        summary=PROTECTED_COMMENTS if locked else html.escape(html.unescape(strip_all_tags(text_html)).strip()),
        content=PROTECTED_COMMENTS if locked else text_html,
        reply_to=(f"{guid}#comment-{comment.parent}", f"{link}#comment-{comment.parent}") if comment.parent else (guid, link),
    )


# -- the feeds ------------------------------------------------------------------------------------


def _site_title(options: dict[str, Any], title: str = "") -> str:
    """The reference's document title of a feed: ``<title> – <site>``, or on the blog's home
    ``<site> – <tagline>``."""
    site = html.unescape(str(options.get("blogname") or ""))
    if title:
        return f"{title} \u2013 {site}" if site else title
    tagline = html.unescape(str(options.get("blogdescription") or ""))
    return f"{site} \u2013 {tagline}" if tagline else site


def language(options: dict[str, Any]) -> str:
    return str(options.get("WPLANG") or "en_US").replace("_", "-") or "en-US"


class _Feed:
    def __init__(self, site_pages: PublicSite, who: Requester, kind: str, path: str, query: dict[str, Any]) -> None:
        self.site_pages = site_pages
        self.who = who
        self.ctx = who.ctx
        self.kind = kind
        self.self_url = who.origin + quote(path, safe="/%:@!$&'()*+,;=") + (f"?{urlencode(query, doseq=True)}" if query else "")

    def channel(self, title: str, link: str, updated: list[dt.datetime]) -> Channel:
        options = self.ctx.options
        return Channel(
            title=title, self_url=self.self_url, link=link,
            description=html.unescape(strip_all_tags(str(options.get("blogdescription") or ""))),
            updated=max((utc(moment) for moment in updated), default=dt.datetime.now(dt.UTC).replace(microsecond=0)),
            language=language(options), home=self.who.origin,
        )

    def posts(self, target: public.Target) -> Answer:
        ctx = self.ctx
        title = ""
        with self.site_pages.site.read() as conn:
            if target.kind == "term":
                term = feeds.term_of(conn, target.taxonomy, target.term_id)
                if term is None:
                    return self.site_pages.not_found(self.who)
                title = html.unescape(term.name)
                found = feeds.latest_items(conn, ctx, taxonomy=term.taxonomy, term_id=term.id, page=target.page)
            elif target.kind == "author":
                author = public_author(conn, target.user_id)
                if author is None:
                    return self.site_pages.not_found(self.who)
                title = author.display_name
                found = feeds.latest_items(conn, ctx, author=author.id, page=target.page)
            elif target.kind == "search":
                title = f"Search Results for \u201c{target.search[:200]}\u201d"
                found = feeds.latest_items(conn, ctx, search=target.search[:200], page=target.page)
            else:
                found = feeds.latest_items(conn, ctx, page=target.page if target.kind == "front" else 1)
        use_excerpt = feeds.uses_excerpt(ctx.options)
        entries = [item_entry(ctx, item, found, locked=bool(item.password), use_excerpt=use_excerpt) for item in found.items]
        channel = self.channel(_site_title(ctx.options, title), self.who.origin, [item.modified_utc for item in found.items])
        return feed_answer(self.kind, channel, entries, use_excerpt=use_excerpt)

    def site_comments(self) -> Answer:
        with self.site_pages.site.read() as conn:
            found = feeds.latest_comments(conn, self.ctx)
        entries = [comment_entry(self.ctx, comment, found.items[comment.post_id], single=False, locked=False)
                   for comment in found.comments if comment.post_id in found.items]
        channel = self.channel(f"Comments for {_site_title(self.ctx.options)}", self.who.origin,
                               [comment.date_utc for comment in found.comments])
        return feed_answer(self.kind, channel, entries, comments=True)

    def item_comments(self, item_id: int) -> Answer:
        ctx = self.ctx
        with self.site_pages.site.read() as conn:
            item = item_service.get_item(conn, item_id)
            if item is None or item.status == "trash" or not permissions.can_read(ctx, item):
                return self.site_pages.not_found(self.who)
            found = feeds.latest_comments(conn, ctx, item=item)
        locked = bool(item.password) and not permissions.password_open(ctx, item, self.site_pages.password_given(self.who, item))
        entries = [comment_entry(ctx, comment, item, single=True, locked=locked) for comment in found.comments]
        channel = self.channel(f"Comments on: {plain_title(item)}", item_service.permalink(ctx, item),
                               [item.modified_utc, *(comment.date_utc for comment in found.comments)])
        return feed_answer(self.kind, channel, entries, comments=True)


def public_author(conn: Any, user_id: int) -> Any:
    return get_user(conn, user_id) if user_id > 0 else None


def events_feed(site_pages: PublicSite, who: Requester, address: feeds.FeedAddress) -> Answer:
    """The upcoming events, as The Events Calendar's ``/events/feed/``."""
    ctx = who.ctx
    with site_pages.site.read() as conn:
        loaded = upcoming_events(conn, ctx, limit=feeds.per_feed(ctx.options))
        found = feeds.entries_of(conn, ctx, loaded.items)
    use_excerpt = feeds.uses_excerpt(ctx.options)
    entries = []
    for item in loaded.items:
        row = loaded.event_rows.get(item.id)
        start = None
        if row is not None:
            zone, _ = cal.site_timezone(ctx.options, row.timezone or None)
            start = row.start_local.replace(tzinfo=zone).astimezone(dt.UTC)
        entries.append(item_entry(ctx, item, found, locked=bool(item.password), use_excerpt=use_excerpt, published=start))
    feed = _Feed(site_pages, who, address.format, "/events/feed/" + ("" if address.format == "rss2" else "atom/"), {})
    channel = feed.channel(_site_title(ctx.options, "Events"), who.origin, [item.modified_utc for item in loaded.items])
    return feed_answer(address.format, channel, entries, use_excerpt=use_excerpt)


# -- writing --------------------------------------------------------------------------------------


def feed_answer(kind: str, channel: Channel, entries: list[Entry], *, comments: bool = False, use_excerpt: bool = False) -> Answer:
    body = atom(channel, entries, comments=comments, use_excerpt=use_excerpt) if kind == "atom" else \
        rss2(channel, entries, comments=comments, use_excerpt=use_excerpt)
    return Answer(200, body.encode(), content_type=CONTENT_TYPES[kind], headers={
        "Last-Modified": http_date(channel.updated),
        "X-Content-Type-Options": "nosniff",
    })


def rss2(channel: Channel, entries: list[Entry], *, comments: bool = False, use_excerpt: bool = False) -> str:
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"\n'
        '\txmlns:content="http://purl.org/rss/1.0/modules/content/"\n'
        '\txmlns:wfw="http://wellformedweb.org/CommentAPI/"\n'
        '\txmlns:dc="http://purl.org/dc/elements/1.1/"\n'
        '\txmlns:atom="http://www.w3.org/2005/Atom"\n'
        '\txmlns:sy="http://purl.org/rss/1.0/modules/syndication/"\n'
        '\txmlns:slash="http://purl.org/rss/1.0/modules/slash/"\n>\n<channel>\n',
        f"\t<title>{text(channel.title)}</title>\n",
        f'\t<atom:link href="{attr(channel.self_url)}" rel="self" type="application/rss+xml" />\n',
        f"\t<link>{text(channel.link)}</link>\n",
        f"\t<description>{text(channel.description)}</description>\n",
        f"\t<lastBuildDate>{rfc822(channel.updated)}</lastBuildDate>\n",
        f"\t<language>{text(channel.language)}</language>\n",
        "\t<sy:updatePeriod>hourly</sy:updatePeriod>\n\t<sy:updateFrequency>1</sy:updateFrequency>\n",
        f"\t<generator>{text(GENERATOR)}</generator>\n",
    ]
    for entry in entries:
        out.append(f"\t<item>\n\t\t<title>{text(entry.title)}</title>\n\t\t<link>{text(entry.link)}</link>\n")
        if entry.comments is not None:
            out.append(f"\t\t<comments>{text(entry.comments_url)}</comments>\n")
        out.append(f"\t\t<dc:creator>{cdata(entry.author)}</dc:creator>\n\t\t<pubDate>{rfc822(entry.published)}</pubDate>\n")
        out += [f"\t\t<category>{cdata(name)}</category>\n" for name in entry.categories]
        out.append(f'\t\t<guid isPermaLink="false">{text(entry.guid)}</guid>\n')
        out.append(f"\t\t<description>{cdata(entry.summary)}</description>\n")
        if comments or not use_excerpt:
            out.append(f"\t\t<content:encoded>{cdata(entry.content)}</content:encoded>\n")
        if entry.comments is not None:
            out.append(f"\t\t<wfw:commentRss>{text(entry.comments_feed['rss2'])}</wfw:commentRss>\n")
            out.append(f"\t\t<slash:comments>{entry.comments}</slash:comments>\n")
        out += [f'\t\t<enclosure url="{attr(url)}" length="{length}" type="{attr(kind)}" />\n' for url, length, kind in entry.enclosures]
        out.append("\t</item>\n")
    out.append("</channel>\n</rss>\n")
    return "".join(out)


def atom(channel: Channel, entries: list[Entry], *, comments: bool = False, use_excerpt: bool = False) -> str:
    home = channel.home.rstrip("/")
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed\n\txmlns="http://www.w3.org/2005/Atom"\n'
        f'\txmlns:thr="http://purl.org/syndication/thread/1.0"\n\txml:lang="{attr(channel.language)}"\n>\n',
        f'\t<title type="text">{text(channel.title)}</title>\n',
        f'\t<subtitle type="text">{text(channel.description)}</subtitle>\n',
        f"\t<updated>{atom_date(channel.updated)}</updated>\n",
        f'\t<link rel="alternate" type="text/html" href="{attr(channel.link)}" />\n',
        f"\t<id>{text(channel.self_url if comments else home + '/feed/atom/')}</id>\n",
        f'\t<link rel="self" type="application/atom+xml" href="{attr(channel.self_url)}" />\n',
        f'\t<generator version="{attr(__version__)}">calpress</generator>\n',
    ]
    for entry in entries:
        out.append(f"\t<entry>\n\t\t<author>\n\t\t\t<name>{text(entry.author)}</name>\n")
        if entry.author_url:
            out.append(f"\t\t\t<uri>{text(entry.author_url)}</uri>\n")
        out.append("\t\t</author>\n")
        out.append(f'\t\t<title type="html">{cdata(entry.title)}</title>\n')
        out.append(f'\t\t<link rel="alternate" type="text/html" href="{attr(entry.link)}" />\n')
        out.append(f"\t\t<id>{text(entry.guid)}</id>\n")
        out.append(f"\t\t<updated>{atom_date(entry.updated)}</updated>\n\t\t<published>{atom_date(entry.published)}</published>\n")
        out += [f'\t\t<category scheme="{attr(home)}" term="{attr(name)}" />\n' for name in entry.categories]
        if comments:
            if entry.reply_to is not None:
                out.append(f'\t\t<thr:in-reply-to ref="{attr(entry.reply_to[0])}" href="{attr(entry.reply_to[1])}" type="text/html" />\n')
            out.append(f'\t\t<content type="html" xml:base="{attr(entry.link)}">{cdata(entry.content)}</content>\n')
        else:
            out.append(f'\t\t<summary type="html">{cdata(entry.summary)}</summary>\n')
            if not use_excerpt:
                out.append(f'\t\t<content type="html" xml:base="{attr(entry.link)}">{cdata(entry.content)}</content>\n')
        out += [f'\t\t<link href="{attr(url)}" rel="enclosure" length="{length}" type="{attr(kind)}" />\n'
                for url, length, kind in entry.enclosures]
        if entry.comments is not None:
            out.append(f'\t\t<link rel="replies" type="text/html" href="{attr(entry.comments_url)}" thr:count="{entry.comments}" />\n')
            out.append(f'\t\t<link rel="replies" type="application/atom+xml" href="{attr(entry.comments_feed["atom"])}" '
                       f'thr:count="{entry.comments}" />\n')
            out.append(f"\t\t<thr:total>{entry.comments}</thr:total>\n")
        out.append("\t</entry>\n")
    out.append("</feed>\n")
    return "".join(out)


# -- links in the head ----------------------------------------------------------------------------


def site_feed_url(ctx: Context, comments: bool = False) -> str:
    home = ctx.home.rstrip("/")
    if ctx.permalink_structure:
        return home + ("/comments/feed/" if comments else "/feed/")
    return f"{home}/?feed={'comments-rss2' if comments else 'rss2'}"


def feed_links(ctx: Context, *, item: Item | None = None, archive: Any = None, archive_url: str = "",
               events: bool = False) -> list[dict[str, str]]:
    """The ``<link rel="alternate">`` feeds of a page's head: the site's posts and comments feeds,
    then the feed of what the page shows (an item's comments when it takes or has comments, a
    category's, a tag's, an author's posts, the calendar's upcoming events)."""
    site = html.unescape(str(ctx.options.get("blogname") or ""))
    rss = LINK_TYPES["rss2"]
    found = [
        {"rel": "alternate", "type": rss, "title": f"{site} \u00bb Feed", "href": site_feed_url(ctx)},
        {"rel": "alternate", "type": rss, "title": f"{site} \u00bb Comments Feed", "href": site_feed_url(ctx, comments=True)},
    ]
    if item is not None and item.status != "trash" and (item.comment_status == "open" or item.comment_count > 0):
        found.append({"rel": "alternate", "type": rss, "title": f"{site} \u00bb {plain_title(item)} Comments Feed",
                      "href": comments_feed_url(ctx, item)})
    elif archive is not None and archive_url:
        taxonomy = getattr(archive, "taxonomy", None)
        if taxonomy == "category":
            label = f"{html.unescape(archive.name)} Category Feed"
        elif taxonomy == "post_tag":
            label = f"{html.unescape(archive.name)} Tag Feed"
        elif taxonomy:
            label = f"{html.unescape(archive.name)} Feed"
        else:
            label = f"Posts by {archive.display_name} Feed"
        href = f"{archive_url}&feed=rss2" if "?" in archive_url else archive_url.rstrip("/") + "/feed/"
        found.append({"rel": "alternate", "type": rss, "title": f"{site} \u00bb {label}", "href": href})
    elif events:
        found.append({"rel": "alternate", "type": rss, "title": f"{site} \u00bb Events Feed",
                      "href": ctx.home.rstrip("/") + EVENTS_PATH + "feed/"})
    return found
