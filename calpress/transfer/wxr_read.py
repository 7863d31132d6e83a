"""Reading a WordPress export file (WXR, "WordPress eXtended RSS", versions 1.0 to 1.2) as a
stream: the channel's site, its authors and terms, then one item at a time, each handed over as
soon as its closing tag is read, so that a file of any size costs the memory of one item.

The file goes through defusedxml's SAX reader, fed in chunks: entity declarations (the "billion
laughs"), external entities and external DTDs are refused before anything is expanded. What an
item may hold is bounded too (:data:`MAX_ITEM_CHARS`): an item over the bound is still read to its
end, but handed over marked :attr:`Post.too_large` with its text dropped.

Element names are matched by namespace, not prefix: WordPress's ``wp:`` namespace is
``http://wordpress.org/export/1.x/`` and its excerpt namespace that address plus ``excerpt/``.
Names in the file are kept as they are (``tribe_events`` or ``cal_events``): the importer maps
them.
"""

from __future__ import annotations

import re
import xml.sax
import xml.sax.handler
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import defusedxml
import defusedxml.sax

CHUNK_BYTES = 1 << 20
# The text one item (post, meta, comments) may hold: 32 million characters. WordPress's own
# importer reads the whole file into memory; a bigger item is an attack or a broken file.
MAX_ITEM_CHARS = 32 * 1024 * 1024
SUPPORTED_VERSIONS = ("1.0", "1.1", "1.2")

WP_NAMESPACE = re.compile(r"^https?://wordpress\.org/export/\d+\.\d+/$")
EXCERPT_NAMESPACE = re.compile(r"^https?://wordpress\.org/export/\d+\.\d+/excerpt/$")
CONTENT_NAMESPACE = "http://purl.org/rss/1.0/modules/content/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"


class WxrError(Exception):
    """The file cannot be read on (not XML, not a WordPress export, an entity attack, cut
    short); ``line`` is where the reader stopped (0 when unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} (line {self.line})" if self.line else text


@dataclass
class Channel:
    """The exporting site, read before the first author, term or item."""

    title: str = ""
    link: str = ""
    version: str = ""
    base_site_url: str = ""
    base_blog_url: str = ""

    @property
    def source(self) -> str:
        """The address the file names its site by (how re-runs recognise what they made)."""
        return (self.base_blog_url or self.base_site_url or self.link).rstrip("/")


@dataclass
class Author:
    id: int = 0
    login: str = ""
    email: str = ""
    display_name: str = ""
    first_name: str = ""
    last_name: str = ""


@dataclass
class Term:
    """A channel-level term (``wp:category``, ``wp:tag`` or ``wp:term``); ``parent`` is the
    parent's slug, as WordPress writes it."""

    taxonomy: str = ""
    id: int = 0
    slug: str = ""
    name: str = ""
    parent: str = ""
    description: str = ""
    meta: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Comment:
    id: int = 0
    author: str = ""
    author_email: str = ""
    author_url: str = ""
    author_ip: str = ""
    date: str = ""
    date_gmt: str = ""
    content: str = ""
    approved: str = "1"
    type: str = ""
    parent: int = 0
    user_id: int = 0
    meta: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class PostTerm:
    """A term an item is in: ``<category domain="taxonomy" nicename="slug">Name</category>``."""

    taxonomy: str
    slug: str
    name: str


@dataclass
class Post:
    """One ``<item>``; ``line`` is where it starts in the file."""

    line: int = 0
    id: int = 0
    title: str = ""
    link: str = ""
    creator: str = ""
    guid: str = ""
    content: str = ""
    excerpt: str = ""
    date: str = ""
    date_gmt: str = ""
    modified: str = ""
    modified_gmt: str = ""
    comment_status: str = ""
    ping_status: str = ""
    slug: str = ""
    status: str = ""
    parent: int = 0
    menu_order: int = 0
    type: str = ""
    password: str = ""
    sticky: bool = False
    attachment_url: str = ""
    terms: list[PostTerm] = field(default_factory=list)
    meta: list[tuple[str, str]] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    too_large: bool = False

    def meta_values(self, key: str) -> list[str]:
        return [value for name, value in self.meta if name == key]

    def meta_value(self, key: str) -> str | None:
        """The last value of ``key`` (WordPress's get_post_meta(..., true) reads the first; an
        export holds one row per value, and single keys hold one)."""
        found = self.meta_values(key)
        return found[0] if found else None


Record = Channel | Author | Term | Post


def _int(text: str) -> int:
    text = text.strip()
    return int(text) if re.fullmatch(r"-?\d{1,18}", text) else 0


# Where a text element's value goes: (its name in WordPress's namespace, or a tuple for others)
# -> attribute. Elements not named here are read over and their text dropped.
_AUTHOR_FIELDS = {
    "author_id": "id", "author_login": "login", "author_email": "email",
    "author_display_name": "display_name", "author_first_name": "first_name", "author_last_name": "last_name",
}
_TERM_FIELDS = {
    "category": {"term_id": "id", "category_nicename": "slug", "category_parent": "parent",
                 "cat_name": "name", "category_description": "description"},
    "tag": {"term_id": "id", "tag_slug": "slug", "tag_name": "name", "tag_description": "description"},
    "term": {"term_id": "id", "term_taxonomy": "taxonomy", "term_slug": "slug", "term_parent": "parent",
             "term_name": "name", "term_description": "description"},
}
_POST_FIELDS = {
    "post_id": "id", "post_date": "date", "post_date_gmt": "date_gmt", "post_modified": "modified",
    "post_modified_gmt": "modified_gmt", "comment_status": "comment_status", "ping_status": "ping_status",
    "post_name": "slug", "status": "status", "post_parent": "parent", "menu_order": "menu_order",
    "post_type": "type", "post_password": "password", "is_sticky": "sticky", "attachment_url": "attachment_url",
}
_COMMENT_FIELDS = {
    "comment_id": "id", "comment_author": "author", "comment_author_email": "author_email",
    "comment_author_url": "author_url", "comment_author_IP": "author_ip", "comment_date": "date",
    "comment_date_gmt": "date_gmt", "comment_content": "content", "comment_approved": "approved",
    "comment_type": "type", "comment_parent": "parent", "comment_user_id": "user_id",
}
_INT_FIELDS = {"id", "parent", "menu_order", "user_id"}
# What is still read of an item over MAX_ITEM_CHARS, to name it in the summary.
_KEPT_WHEN_TOO_LARGE = {("wp", "post_id"), ("wp", "post_type")}
_META_CONTAINERS = {"postmeta", "commentmeta", "termmeta"}


class _Handler(xml.sax.handler.ContentHandler):
    """Builds records from SAX events and queues each when its element closes."""

    def __init__(self) -> None:
        super().__init__()
        self.ready: list[Record] = []
        self.channel = Channel()
        self.channel_sent = False
        self.stack: list[tuple[str, str]] = []  # (kind, local name): kind "wp", "excerpt", "content", "dc", ""
        self.root_seen = False
        self.locator: xml.sax.xmlreader.Locator | None = None
        self.text: list[str] | None = None  # the text being collected, when it is wanted
        self.item_chars = 0
        self.post: Post | None = None
        self.comment: Comment | None = None
        self.term: Term | None = None
        self.author: Author | None = None
        self.meta_key: str = ""
        self.meta_value: str = ""
        self.post_term: tuple[str, str] | None = None

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:  # noqa: N802 (SAX's name)
        self.locator = locator

    def line(self) -> int:
        return self.locator.getLineNumber() if self.locator is not None else 0

    @staticmethod
    def _kind(uri: str | None) -> str:
        if not uri:
            return ""
        if WP_NAMESPACE.match(uri):
            return "wp"
        if EXCERPT_NAMESPACE.match(uri):
            return "excerpt"
        if uri == CONTENT_NAMESPACE:
            return "content"
        if uri == DC_NAMESPACE:
            return "dc"
        return "other"

    # -- SAX events ------------------------------------------------------------------------------

    def startElementNS(self, name: tuple[str | None, str], qname: str | None, attrs: xml.sax.xmlreader.AttributesNSImpl) -> None:  # noqa: N802
        kind, local = self._kind(name[0]), name[1]
        depth = len(self.stack)
        if depth == 0:
            if kind != "" or local != "rss":
                raise WxrError(f"This is not a WordPress export file: its root element is <{local}>, not <rss>.", self.line())
            self.root_seen = True
        parent = self.stack[-1] if self.stack else ("", "")
        self.stack.append((kind, local))
        if self.post is None and kind == "" and local == "item" and parent == ("", "channel"):
            self._send_channel()
            self.post = Post(line=self.line())
            self.item_chars = 0
            return
        if kind == "wp" and parent == ("", "channel"):
            if local == "author":
                self.author = Author()
            elif local in _TERM_FIELDS:
                self.term = Term(taxonomy={"category": "category", "tag": "post_tag"}.get(local, ""))
                self.item_chars = 0
        if self.post is not None:
            if kind == "wp" and local == "comment" and self.comment is None:
                self.comment = Comment()
            elif kind == "" and local == "category" and parent == ("", "item"):
                self.post_term = (attrs.get((None, "domain"), "") or "", attrs.get((None, "nicename"), "") or "")
        if kind == "wp" and local in _META_CONTAINERS:
            self.meta_key, self.meta_value = "", ""
        self.text = [] if self._wanted(kind, local, parent) else None

    def _wanted(self, kind: str, local: str, parent: tuple[str, str]) -> bool:
        """Whether the text of this element is a value the records keep."""
        if parent == ("", "channel"):
            return kind == "" and local in ("title", "link") or kind == "wp" and local in (
                "wxr_version", "base_site_url", "base_blog_url")
        if parent[0] == "wp" and parent[1] in _META_CONTAINERS:
            return kind == "wp" and local in ("meta_key", "meta_value")
        if self.author is not None:
            return kind == "wp" and local in _AUTHOR_FIELDS
        if self.term is not None:
            return kind == "wp"
        if self.comment is not None:
            return kind == "wp" and local in _COMMENT_FIELDS
        if self.post is not None and parent == ("", "item"):
            return (kind == "wp" and local in _POST_FIELDS or kind == "" and local in ("title", "link", "guid", "category")
                    or kind == "dc" and local == "creator" or kind in ("content", "excerpt") and local == "encoded")
        return False

    def characters(self, content: str) -> None:
        if self.text is None:
            return
        if self.post is not None or self.term is not None:
            self.item_chars += len(content)
            if self.item_chars > MAX_ITEM_CHARS:
                if self.post is not None and self.post.too_large and self.stack[-1] in _KEPT_WHEN_TOO_LARGE:
                    if sum(map(len, self.text)) < 100:
                        self.text.append(content)  # what names the item in the summary
                    return
                if self.post is not None:
                    self._drop_post_text()
                self.text = None
                return
        self.text.append(content)

    def _drop_post_text(self) -> None:
        assert self.post is not None
        if not self.post.too_large:
            kept = Post(line=self.post.line, id=self.post.id, title=self.post.title[:200], type=self.post.type, too_large=True)
            self.post = kept
            self.comment = None

    def endElementNS(self, name: tuple[str | None, str], qname: str | None) -> None:  # noqa: N802
        kind, local = self.stack.pop()
        parent = self.stack[-1] if self.stack else ("", "")
        value = "".join(self.text) if self.text is not None else None
        self.text = None
        if value is not None:
            self._assign(kind, local, parent, value)
        if kind == "wp" and local in _META_CONTAINERS:
            pair = (self.meta_key, self.meta_value)
            if local == "commentmeta" and self.comment is not None:
                self.comment.meta.append(pair)
            elif local == "postmeta" and self.post is not None and not self.post.too_large:
                self.post.meta.append(pair)
            elif local == "termmeta" and self.term is not None:
                self.term.meta.append(pair)
        elif kind == "wp" and local == "comment" and self.comment is not None and self.post is not None:
            if not self.post.too_large:
                self.post.comments.append(self.comment)
            self.comment = None
        elif kind == "" and local == "item" and self.post is not None and parent == ("", "channel"):
            self.ready.append(self.post)
            self.post = None
        elif kind == "wp" and local == "author" and self.author is not None and parent == ("", "channel"):
            self._send_channel()
            self.ready.append(self.author)
            self.author = None
        elif kind == "wp" and local in _TERM_FIELDS and self.term is not None and parent == ("", "channel"):
            self._send_channel()
            if self.item_chars <= MAX_ITEM_CHARS:
                self.ready.append(self.term)
            self.term = None
        elif kind == "" and local == "category" and parent == ("", "item"):
            self.post_term = None
        elif kind == "" and local == "channel":
            self._send_channel()

    def _assign(self, kind: str, local: str, parent: tuple[str, str], value: str) -> None:
        if parent == ("", "channel"):
            target = {"title": "title", "link": "link", "wxr_version": "version",
                      "base_site_url": "base_site_url", "base_blog_url": "base_blog_url"}[local]
            setattr(self.channel, target, value.strip() if target != "title" else value)
        elif parent[0] == "wp" and parent[1] in _META_CONTAINERS:
            if local == "meta_key":
                self.meta_key = value
            else:
                self.meta_value = value
        elif self.author is not None:
            attribute = _AUTHOR_FIELDS[local]
            setattr(self.author, attribute, _int(value) if attribute == "id" else value)
        elif self.term is not None:
            for fields in _TERM_FIELDS.values():
                attribute = fields.get(local)
                if attribute is not None:
                    setattr(self.term, attribute, _int(value) if attribute == "id" else value)
                    break
        elif self.comment is not None:
            attribute = _COMMENT_FIELDS[local]
            setattr(self.comment, attribute, _int(value) if attribute in _INT_FIELDS else value)
        elif self.post is not None and (not self.post.too_large or (kind, local) in _KEPT_WHEN_TOO_LARGE):
            self._assign_post(kind, local, value)

    def _assign_post(self, kind: str, local: str, value: str) -> None:
        post = self.post
        assert post is not None
        if kind == "wp":
            attribute = _POST_FIELDS[local]
            if attribute in _INT_FIELDS:
                setattr(post, attribute, _int(value))
            elif attribute == "sticky":
                post.sticky = value.strip() == "1"
            else:
                setattr(post, attribute, value)
        elif kind == "content":
            post.content = value
        elif kind == "excerpt":
            post.excerpt = value
        elif kind == "dc":
            post.creator = value
        elif local == "category":
            if self.post_term is not None and self.post_term[0]:
                post.terms.append(PostTerm(taxonomy=self.post_term[0], slug=self.post_term[1], name=value))
        else:
            setattr(post, local, value)

    def _send_channel(self) -> None:
        if self.channel_sent:
            return
        if self.channel.version not in SUPPORTED_VERSIONS:
            if not self.channel.version:
                raise WxrError("This does not appear to be a WXR file: it names no WXR version (wp:wxr_version).", self.line())
            raise WxrError(f"This WXR file is of version {self.channel.version!r}; versions "
                           f"{', '.join(SUPPORTED_VERSIONS)} can be read.", self.line())
        self.channel_sent = True
        self.ready.append(self.channel)


def read_wxr(stream: BinaryIO, *, progress: Callable[[int], None] | None = None,
             chunk_bytes: int = CHUNK_BYTES) -> Iterator[Record]:
    """The records of the WXR file ``stream``, in file order: the :class:`Channel` first, then
    authors, terms and :class:`Post` items as each closes. ``progress(bytes_read)`` is told after
    every chunk. Raises :class:`WxrError` when the file cannot be read on; the records handed
    over before that were complete."""
    handler = _Handler()
    parser = defusedxml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, True)
    parser.setContentHandler(handler)
    handler.locator = parser  # the reader is its own locator; feed() never hands one to the handler
    read = 0

    def failed(err: Exception) -> WxrError:
        if isinstance(err, WxrError):
            return err
        if isinstance(err, defusedxml.EntitiesForbidden):
            return WxrError("The file declares XML entities, which an export never does; it was refused "
                            "(an entity expansion attack such as the \"billion laughs\").", handler.line())
        if isinstance(err, (defusedxml.ExternalReferenceForbidden, defusedxml.DTDForbidden)):
            return WxrError("The file refers to an external entity or DTD; it was refused.", handler.line())
        if isinstance(err, xml.sax.SAXParseException):
            return WxrError(f"The file is not well-formed XML: {err.getMessage()}", err.getLineNumber())
        raise err

    try:
        while True:
            data = stream.read(chunk_bytes)
            if not data:
                break
            read += len(data)
            parser.feed(data)
            if handler.ready:
                yield from handler.ready
                handler.ready.clear()
            if progress is not None:
                progress(read)
        if not handler.root_seen:
            raise WxrError("The file is empty." if read == 0 else "This is not a WordPress export file.")
        parser.close()
    except (xml.sax.SAXException, defusedxml.DefusedXmlException, WxrError) as err:
        if isinstance(err, xml.sax.SAXParseException) and err.getMessage() in ("no element found", "unclosed token"):
            raise WxrError("The file ends early: it was cut short (the last item was not read whole).",
                           err.getLineNumber()) from None
        raise failed(err) from None
    yield from handler.ready
    handler.ready.clear()
    if not handler.channel_sent:
        raise WxrError("This is not a WordPress export file: it has no channel.")
