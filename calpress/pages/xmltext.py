"""Text put into the XML documents of the site (feeds, sitemaps): escaped, in CDATA sections, and
rid of the characters XML 1.0 forbids (a stray control character in a post would otherwise make
the whole feed unreadable to every feed reader)."""

from __future__ import annotations

import datetime as dt
import re

# Everything outside XML 1.0's Char production (tab, LF, CR, and the planes minus surrogates and
# U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(value: object) -> str:
    return _NOT_XML.sub("", "" if value is None else str(value))


def text(value: object) -> str:
    """Character data, escaped."""
    return clean(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attr(value: object) -> str:
    """An attribute value (double quotes), escaped."""
    return text(value).replace('"', "&quot;")


def cdata(value: object) -> str:
    """A CDATA section holding ``value`` (a ``]]>`` inside is split over two sections)."""
    return "<![CDATA[" + clean(value).replace("]]>", "]]]]><![CDATA[>") + "]]>"


def utc(moment: dt.datetime) -> dt.datetime:
    """A stored moment (naive UTC, or aware) as an aware UTC datetime."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def rfc822(moment: dt.datetime) -> str:
    """RSS 2.0's dates, as the reference writes them: ``Sat, 28 Nov 2026 10:52:38 +0000``."""
    return utc(moment).strftime("%a, %d %b %Y %H:%M:%S +0000")


def w3c(moment: dt.datetime) -> str:
    """The sitemaps' dates (W3C datetime in UTC, as the reference's DATE_W3C): ``2026-11-28T10:52:38+00:00``."""
    return utc(moment).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def atom_date(moment: dt.datetime) -> str:
    """Atom's dates, as the reference writes them: ``2026-11-28T10:52:38Z``."""
    return utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(moment: dt.datetime) -> str:
    """A ``Last-Modified`` header's date."""
    return utc(moment).strftime("%a, %d %b %Y %H:%M:%S GMT")
