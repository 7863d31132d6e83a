"""This site as an oEmbed provider (cms-api.md 4.1): which address names an embeddable item, and
the oEmbed data of one.

Follows the reference's url_to_postid, get_oembed_response_data (with its ``rich`` filter) and
get_post_embed_html:

* an address names an item when it is on this site's host (``www.`` aside, as the reference
  compares them) and under its home path, and the public address resolver
  (:mod:`calpress.content.public`) reads it back to an item, or to the static front page;
* an item is embeddable when anyone may see it: a viewable type and a public, queryable status
  (an attachment takes its parent's). Who asks does not matter: drafts, private and scheduled
  items are never embedded, not even for their authors. Password-protected items are, with
  their title marked ``Protected:`` (the reference's get_the_title outside the REST item
  answers); neither their embed page nor their data show their content or picture (as the
  site's own page of a protected item, unlike the reference, which sends the thumbnail);
* the frame is ``maxwidth`` clamped to [200, 600] wide and 9/16 of that (at least 200) high; the
  thumbnail is the featured image (or the image itself) at the smallest sub-size of the same
  shape at least that wide, else the full size, scaled down to the width (wp_get_attachment_image_src
  with ``[width, 0]``).

On purpose, unlike the reference: an embed address never falls back to ``&embed=true`` for a
path that another item already claims (``/parent/embed/``): ``embed`` is a reserved slug here,
so the pretty form cannot clash.
"""

from __future__ import annotations

import math
import secrets
import string
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import sqlalchemy as sa

from ..auth.users import get_user
from ..compat.formatting import esc_html
from ..content import items as item_service
from ..content import public, rendering
from ..content.items import Context, Item
from ..media import attachments
from ..media.images import constrain

DEFAULT_WIDTH = 600  # the reference's oembed_default_width
MIN_WIDTH = 200  # its oembed_min_max_width
MAX_WIDTH = 600
MIN_HEIGHT = 200
SECRET_LENGTH = 10
_SECRET_CHARS = string.ascii_letters + string.digits
_PARENT_DEPTH = 8  # parents followed for an attachment's status

# The script that comes with every embed's HTML: the host page's half of the handshake with the
# embed page (templates/site/embed.html holds the other half). The embed page, sandboxed with
# scripts only, cannot navigate or size its frame; it posts ``height`` and ``link`` messages
# with the frame's secret, and this script, on the host page, sizes the frame (200 to 1000 px),
# hides the blockquote shown until then, and follows a link the visitor clicked inside the frame
# when it stays on the frame's host. On load it tells each frame it is ``ready``.
HOST_SCRIPT = (
    "(function(w,d){'use strict';if(w.calpressEmbeds)return;w.calpressEmbeds=true;"
    "var ok=/^[A-Za-z0-9]{10}$/;"
    "function all(s){return d.querySelectorAll(s);}"
    "w.addEventListener('message',function(e){var m=e.data;"
    "if(!m||typeof m!=='object'||!ok.test(m.secret||'')||typeof m.message!=='string')return;"
    "var f=all('iframe[data-secret=\"'+m.secret+'\"]'),q=all('blockquote[data-secret=\"'+m.secret+'\"]'),i;"
    "for(i=0;i<f.length;i++){var s=f[i];if(e.source!==s.contentWindow)continue;s.removeAttribute('style');"
    "for(var j=0;j<q.length;j++)q[j].style.display='none';"
    "if(m.message==='height'){var h=parseInt(m.value,10);if(!(h>0))continue;s.height=Math.max(200,Math.min(h,1000));}"
    "else if(m.message==='link'){var a=d.createElement('a'),b=d.createElement('a');a.href=s.getAttribute('src');"
    "b.href=String(m.value);if(/^https?:$/.test(b.protocol)&&b.host===a.host&&d.activeElement===s)w.top.location.href=b.href;}}});"
    "function ready(){var f=all('iframe.wp-embedded-content[data-secret]');for(var i=0;i<f.length;i++){"
    "f[i].contentWindow.postMessage({message:'ready',secret:f[i].getAttribute('data-secret')},'*');}}"
    "if(d.readyState==='loading')d.addEventListener('DOMContentLoaded',ready);else ready();"
    "w.addEventListener('load',ready);})(window,document);"
)


# The embed page's half (templates/site/embed.html): it reads the secret from its address
# (``#?secret=...``, which never reaches the server), answers the host's ``ready`` with its
# height, reports its height when it changes, and asks the host to follow a link instead of
# following it itself (the sandbox forbids navigating the top window). Opened on its own, not
# framed, it does nothing and its links work as links.
FRAME_SCRIPT = (
    "(function(w,d){'use strict';var r=d.documentElement;r.className=r.className.replace('no-js','js');"
    "var m=/[#?&]secret=([A-Za-z0-9]{10})(?:&|$)/.exec(w.location.hash),secret=m?m[1]:'';"
    "if(!secret||w.parent===w)return;"
    "function send(k,v){w.parent.postMessage({message:k,value:v,secret:secret},'*');}"
    "function height(){send('height',Math.ceil(r.getBoundingClientRect().height));}"
    "d.addEventListener('click',function(e){var t=e.target;while(t&&t.nodeName!=='A')t=t.parentNode;"
    "if(!t||!t.href)return;e.preventDefault();send('link',t.href);});"
    "w.addEventListener('message',function(e){var x=e.data;"
    "if(e.source===w.parent&&x&&x.secret===secret&&x.message==='ready')height();});"
    "w.addEventListener('load',height);w.addEventListener('resize',height);height();})(window,document);"
)

# -- which item an address names -----------------------------------------------------------------


def _bare_host(host: str | None) -> str:
    return (host or "").lower().removeprefix("www.")


def is_local(ctx: Context, url: str) -> bool:
    """Whether ``url`` is on this site's host (schemes, ports and a leading ``www.`` aside, as the
    reference's url_to_postid compares hosts)."""
    try:
        parts = urlsplit(url.strip())
        home = urlsplit(ctx.home)
    except ValueError:
        return False
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return False
    return _bare_host(parts.hostname) == _bare_host(home.hostname)


def item_for_url(conn: sa.Connection, ctx: Context, url: str) -> Item | None:
    """The item a public address of this site names (its permalink, its ``?p=`` form, or the home
    address when a static front page is set), or None: another host, a path outside the site,
    an archive, nothing at all. Whether it may be embedded is :func:`is_embeddable`'s question."""
    if not is_local(ctx, url):
        return None
    parts = urlsplit(url.strip())
    path = parts.path or "/"
    home_path = urlsplit(ctx.home).path.rstrip("/")
    if home_path:
        if path != home_path and not path.startswith(home_path + "/"):
            return None
        path = path[len(home_path):] or "/"
    query: Mapping[str, Any] = parse_qs(parts.query, keep_blank_values=True)
    target = public.resolve(conn, ctx, path, query)
    if target is None:
        return None
    if target.kind == "front":
        if ctx.options.get("show_on_front") != "page":
            return None
        item_id = int(ctx.options.get("page_on_front") or 0)
    elif target.kind == "item":
        item_id = target.item_id
    else:
        return None
    return item_service.get_item(conn, item_id) if item_id > 0 else None


# -- whether it may be embedded --------------------------------------------------------------------


def is_embeddable(conn: sa.Connection, ctx: Context, item: Item) -> bool:
    """The reference's is_post_publicly_viewable and is_post_embeddable: a viewable (public)
    type and a status anyone may see; an attachment's status is its parent's."""
    content_type = ctx.registry.types.get(item.type)
    if content_type is None or not content_type.viewable:
        return False
    status_name = item.status
    if item.type == "attachment":
        parents: dict[int, Item] = {}
        current = item
        for _ in range(_PARENT_DEPTH):
            if not current.parent or current.parent == current.id or current.parent in parents:
                break
            parent = item_service.get_item(conn, current.parent)
            if parent is None:
                break
            parents[parent.id] = parent
            current = parent
        status_name = item_service.public_status(item, parents)
    status = ctx.registry.statuses.get(status_name)
    return status is not None and not status.internal and not status.protected and status.publicly_queryable


# -- what is said of it ----------------------------------------------------------------------------


def frame_size(maxwidth: int) -> tuple[int, int]:
    """The embed frame for a requested ``maxwidth``: width clamped to [200, 600], height 9/16 of
    it and at least 200 (600 -> 338, 400 -> 225, 200 -> 200)."""
    width = min(max(MIN_WIDTH, int(maxwidth)), MAX_WIDTH)
    return width, max(math.ceil(width / 16 * 9), MIN_HEIGHT)


def new_secret() -> str:
    """The frame's secret: 10 random letters and digits (wp_generate_password(10, false))."""
    return "".join(secrets.choice(_SECRET_CHARS) for _ in range(SECRET_LENGTH))


def oembed_title(item: Item) -> str:
    """The item's title as embeds show it (rendered HTML; ``Protected:`` before a protected one's)."""
    title = rendering.render_title(item.title)
    return f"Protected: {title}" if item.password else title


def embed_url(ctx: Context, permalink: str) -> str:
    """The embed page of the item at ``permalink``: ``<permalink>embed/`` under pretty permalinks
    (``embed`` without the slash when the structure has none), ``&embed=true`` otherwise."""
    structure = ctx.permalink_structure
    if structure and "?" not in permalink:
        return permalink.rstrip("/") + "/embed" + ("/" if structure.endswith("/") else "")
    return permalink + ("&" if "?" in permalink else "?") + "embed=true"


def _esc_url(url: str) -> str:
    """An address in an HTML attribute, as the reference's esc_url writes it."""
    return esc_html(url).replace("&amp;", "&#038;")


def embed_html(ctx: Context, item: Item, permalink: str, width: int, height: int, secret: str | None = None) -> str:
    """The blockquote (a link to the item, shown until the frame reports in), the sandboxed frame
    of its embed page, and the host script that sizes the frame (get_post_embed_html)."""
    secret = secret or new_secret()
    title = oembed_title(item)
    site_name = str(ctx.options.get("blogname") or "")
    frame_title = esc_html(f"&#8220;{title}&#8221; &#8212; {site_name}")
    source = _esc_url(f"{embed_url(ctx, permalink)}#?secret={secret}")
    return (
        f'<blockquote class="wp-embedded-content" data-secret="{secret}"><a href="{_esc_url(permalink)}">{title}</a></blockquote>'
        f'<iframe sandbox="allow-scripts" security="restricted" src="{source}" width="{int(width)}" height="{int(height)}" '
        f'title="{frame_title}" data-secret="{secret}" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" '
        f'class="wp-embedded-content"></iframe><script>{HOST_SCRIPT}</script>'
    )


def _same_shape(width: int, height: int, full_width: int, full_height: int) -> bool:
    """wp_image_matches_ratio: the smaller of the two, scaled to the other's width, within a pixel."""
    if width > full_width:
        scaled, expected = constrain(width, height, full_width), (full_width, full_height)
    else:
        scaled, expected = constrain(full_width, full_height, width), (width, height)
    return abs(scaled[0] - expected[0]) <= 1 and abs(scaled[1] - expected[1]) <= 1


def image_rendition(image: Mapping[str, Any], width: int) -> tuple[str, int, int]:
    """(url, width, height) of an image object (``attachments.image_objects``) for a frame
    ``width`` wide: the smallest sub-size of the image's shape at least that wide, else the
    ``thumbnail`` size when wide enough, else the full image; scaled down to ``width``."""
    full_width, full_height = int(image.get("width") or 0), int(image.get("height") or 0)
    sizes: Mapping[str, Any] = image.get("sizes") or {}
    chosen: Mapping[str, Any] | None = None
    best = 0
    for size in sizes.values():
        w, h = int(size.get("width") or 0), int(size.get("height") or 0)
        if w < width or not (full_width and full_height and w and h) or not _same_shape(w, h, full_width, full_height):
            continue
        if chosen is None or w * h <= best:
            chosen, best = size, w * h
    if chosen is None:
        small = sizes.get("thumbnail")
        if small is not None and int(small.get("width") or 0) >= width:
            chosen = small
    if chosen is not None:
        url, w, h = str(chosen.get("url") or ""), int(chosen.get("width") or 0), int(chosen.get("height") or 0)
    else:
        url, w, h = str(image.get("url") or ""), full_width, full_height
    if w and h:
        w, h = constrain(w, h, width, 0)
    return url, w, h


def thumbnail(conn: sa.Connection, ctx: Context, item: Item, width: int) -> tuple[str, int, int] | None:
    """The embed's picture at ``width``: the item's featured image, or the item itself when it is
    an image (a video's own featured image); None when there is none."""
    image_id = item.featured_media
    if item.type == "attachment" and item.mime_type.startswith("image/"):
        image_id = item.id
    if not image_id:
        return None
    storage = getattr(ctx.site, "storage", None)
    found = attachments.image_objects(conn, ctx.home, [image_id], storage=storage).get(image_id)
    if not found:
        return None
    rendition = image_rendition(found, width)
    return rendition if rendition[0] else None


def response_data(
    conn: sa.Connection, ctx: Context, item: Item, maxwidth: int, *, secret: str | None = None
) -> dict[str, Any] | None:
    """The oEmbed data of ``item`` for a frame at most ``maxwidth`` wide, in the reference's key
    order, or None when it may not be embedded (get_oembed_response_data)."""
    if not is_embeddable(conn, ctx, item):
        return None
    width, height = frame_size(maxwidth)
    home = ctx.home.rstrip("/")
    site_name = str(ctx.options.get("blogname") or "")
    data: dict[str, Any] = {
        "version": "1.0",
        "provider_name": site_name,
        "provider_url": home,
        "author_name": site_name,
        "author_url": home,
        "title": oembed_title(item),
        "type": "rich",
    }
    author = get_user(conn, item.author) if item.author else None
    if author is not None:
        # The author archive as the users route's ``link`` gives it.
        data["author_name"] = author.display_name
        data["author_url"] = f"{home}/author/{author.nicename}/"
    permalink = item_service.permalink(ctx, item)
    data["width"] = width
    data["height"] = height
    data["html"] = embed_html(ctx, item, permalink, width, height, secret)
    if item.type == "attachment" and item.mime_type.startswith("video/"):
        data["type"] = "video"
    picture = None if item.password else thumbnail(conn, ctx, item, width)
    if picture is not None:
        data["thumbnail_url"], data["thumbnail_width"], data["thumbnail_height"] = picture
    return data


def data_for_url(conn: sa.Connection, ctx: Context, url: str, maxwidth: int) -> dict[str, Any] | None:
    """The oEmbed data of the item a local address names, or None (unknown, or not embeddable)."""
    item = item_for_url(conn, ctx, url)
    return response_data(conn, ctx, item, maxwidth) if item is not None else None
