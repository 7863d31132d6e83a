"""The checks an uploaded file goes through before it is stored: its name, and its type by content.

Two pure functions, no database and no web framework (the ``cms/v2/media`` route calls them):

* :func:`sanitize_file_name` follows the reference's ``sanitize_file_name``: accents removed
  (``remove_accents``), a name that is not valid UTF-8 reduced to its slug, the no-break space made
  a space, ``%20`` made a dash, the reference's special characters (``? [ ] / \\ = < > : ; , ' "
  & $ # * ( ) | ~ ` ! { } % +``, curly quotes and guillemets, NUL) removed, runs of dots made one,
  runs of spaces/tabs/newlines/dashes made one dash, ``.-_`` trimmed from both ends, a bare known
  extension made ``unnamed-file.<ext>``, and inner extensions of 2-5 letters that are not allowed
  types suffixed with ``_`` (``shell.php.jpg`` -> ``shell.php_.jpg``).
* :func:`detect` follows ``wp_check_filetype_and_ext``: the name's extension must be an allowed
  type (:data:`ALLOWED`, the reference's ``get_allowed_mime_types`` for a user without
  ``unfiltered_html``/``unfiltered_upload``: no ``svg``, ``htm(l)``, ``js``, ``php``, ``exe``,
  ``swf``) and the content must agree with it. An image whose content is another image type than
  its name says keeps the upload, under the right extension (``proper_name``, the reference's
  ``proper_filename``); audio and video only need the major type to agree (the reference forgives
  ``.mov`` for MP4); plain text is accepted for the ``text/*`` types; anything else that
  contradicts its name is refused with the reference's ``Sorry, you are not allowed to upload this
  file type.`` (:class:`UploadRejected`, ``rest_upload_sideload_error``, status 500 as the spec's
  raw-body upload; :meth:`UploadRejected.for_multipart` gives the multipart form's
  ``rest_upload_unknown_error``).

Unique names are not here: ``Storage.put_unique`` (:mod:`calpress.media.storage`) already is the
reference's ``wp_unique_filename`` (``name-1.jpg``, ``name-2.jpg``...; its ``also_free`` keeps an
image's ``-WxH`` sub-size files from taking another upload's names, and ``put(overwrite=False)``
keeps a new ``photo-150x150.jpg`` from replacing an existing thumbnail). Usage::

    name = sanitize_file_name(raw_name)
    file_type = detect(data[:8192], name, extra=site_extra_types)
    key = site.storage.put_unique(f"{year}/{month}/{file_type.proper_name}", data)

Where this differs from the reference, on purpose:

* The reference asks PHP's fileinfo (libmagic) for the content type; this module reads the
  signatures of the allowed types itself. A type it knows a signature for must carry that
  signature (random bytes named ``.pdf`` are refused, which fileinfo's "octet-stream" leeway would
  let through); content with no known signature is accepted, as the reference's leeway, only for
  ``application/``, ``audio/`` or ``video/`` types that have no signature here (``.ra``, an
  ``extra`` type). Images need an intact header (a PNG signature without its IHDR is refused).
* Plain text is refused when it carries markup or code a browser or server could run (``<?php``,
  ``<script``, ``<html``, ``<svg``...) or starts with a ``#!`` shebang: fileinfo calls those
  ``text/x-php``, ``text/html``, ``text/x-shellscript``, which the reference refuses for ``.txt``.
  Binary formats (a JPEG with PHP in its comment) are judged by their signature only, as the
  reference does.
* ``class`` (Java) is left out of :data:`ALLOWED`: its content is refused as executable, as
  fileinfo's ``application/x-java-applet`` makes the reference refuse it too.
* ``extra`` (the site option for more types) can add types but never active content: ``svg``,
  HTML, JavaScript, PHP, executables and the like are ignored there, whatever their extension.
* An empty file is refused as the spec's ``rest_upload_no_data`` (400).
* ``sanitize_file_name`` keeps only the last path part (both ``/`` and ``\\``, as PHP does for
  uploaded file names) before anything else, removes every control character (the reference
  removes NUL only), strips lone surrogates from the extension too, and gives ``unnamed-file``
  for a name that sanitizes to nothing (the reference returns ``""``, which cannot be stored).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from ..content.slugs import remove_accents

__all__ = ["ALLOWED", "MIME_TYPES", "FileType", "UploadRejected", "detect", "sanitize_file_name"]

# The reference's wp_get_mime_types (extensions regex -> MIME type), with the newer avif/heif
# images. Used as the reference uses it: the whole list for the "unnamed-file" rule.
MIME_TYPES: dict[str, str] = {
    "jpg|jpeg|jpe": "image/jpeg", "gif": "image/gif", "png": "image/png", "bmp": "image/bmp",
    "tiff|tif": "image/tiff", "webp": "image/webp", "avif": "image/avif", "ico": "image/x-icon",
    "heic": "image/heic", "heif": "image/heif",
    "asf|asx": "video/x-ms-asf", "wmv": "video/x-ms-wmv", "wmx": "video/x-ms-wmx", "wm": "video/x-ms-wm",
    "avi": "video/avi", "divx": "video/divx", "flv": "video/x-flv", "mov|qt": "video/quicktime",
    "mpeg|mpg|mpe": "video/mpeg", "mp4|m4v": "video/mp4", "ogv": "video/ogg", "webm": "video/webm",
    "mkv": "video/x-matroska", "3gp|3gpp": "video/3gpp", "3g2|3gp2": "video/3gpp2",
    "txt|asc|c|cc|h|srt": "text/plain", "csv": "text/csv", "tsv": "text/tab-separated-values",
    "ics": "text/calendar", "rtx": "text/richtext", "css": "text/css", "htm|html": "text/html",
    "vtt": "text/vtt", "dfxp": "application/ttaf+xml",
    "mp3|m4a|m4b": "audio/mpeg", "aac": "audio/aac", "ra|ram": "audio/x-realaudio", "wav": "audio/wav",
    "ogg|oga": "audio/ogg", "flac": "audio/flac", "mid|midi": "audio/midi", "wma": "audio/x-ms-wma",
    "wax": "audio/x-ms-wax", "mka": "audio/x-matroska",
    "rtf": "application/rtf", "js": "application/javascript", "pdf": "application/pdf",
    "swf": "application/x-shockwave-flash", "class": "application/java", "tar": "application/x-tar",
    "zip": "application/zip", "gz|gzip": "application/x-gzip", "rar": "application/rar",
    "7z": "application/x-7z-compressed", "exe": "application/x-msdownload",
    "psd": "application/octet-stream", "xcf": "application/octet-stream",
    "doc": "application/msword", "pot|pps|ppt": "application/vnd.ms-powerpoint",
    "wri": "application/vnd.ms-write", "xla|xls|xlt|xlw": "application/vnd.ms-excel",
    "mdb": "application/vnd.ms-access", "mpp": "application/vnd.ms-project",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "docm": "application/vnd.ms-word.document.macroEnabled.12",
    "dotx": "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
    "dotm": "application/vnd.ms-word.template.macroEnabled.12",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "xlsm": "application/vnd.ms-excel.sheet.macroEnabled.12",
    "xlsb": "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
    "xltx": "application/vnd.openxmlformats-officedocument.spreadsheetml.template",
    "xltm": "application/vnd.ms-excel.template.macroEnabled.12",
    "xlam": "application/vnd.ms-excel.addin.macroEnabled.12",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "pptm": "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
    "ppsx": "application/vnd.openxmlformats-officedocument.presentationml.slideshow",
    "ppsm": "application/vnd.ms-powerpoint.slideshow.macroEnabled.12",
    "potx": "application/vnd.openxmlformats-officedocument.presentationml.template",
    "potm": "application/vnd.ms-powerpoint.template.macroEnabled.12",
    "ppam": "application/vnd.ms-powerpoint.addin.macroEnabled.12",
    "sldx": "application/vnd.openxmlformats-officedocument.presentationml.slide",
    "sldm": "application/vnd.ms-powerpoint.slide.macroEnabled.12",
    "onetoc|onetoc2|onetmp|onepkg": "application/onenote", "oxps": "application/oxps",
    "xps": "application/vnd.ms-xpsdocument",
    "odt": "application/vnd.oasis.opendocument.text", "odp": "application/vnd.oasis.opendocument.presentation",
    "ods": "application/vnd.oasis.opendocument.spreadsheet", "odg": "application/vnd.oasis.opendocument.graphics",
    "odc": "application/vnd.oasis.opendocument.chart", "odb": "application/vnd.oasis.opendocument.database",
    "odf": "application/vnd.oasis.opendocument.formula",
    "wp|wpd": "application/wordperfect",
    "key": "application/vnd.apple.keynote", "numbers": "application/vnd.apple.numbers",
    "pages": "application/vnd.apple.pages",
}
_ALL_TYPES: dict[str, str] = {ext: mime for group, mime in MIME_TYPES.items() for ext in group.split("|")}

# Extensions whose content can run in a browser or on a server: never allowed, not even by `extra`.
_ACTIVE_EXTS = frozenset({
    "svg", "svgz", "htm", "html", "xhtml", "xht", "shtml", "mht", "mhtml", "xml", "xsl", "xslt", "js", "mjs", "cjs",
    "php", "php3", "php4", "php5", "php7", "php8", "phtml", "pht", "phar", "phps", "inc", "asp", "aspx", "jsp",
    "cgi", "pl", "py", "rb", "sh", "bash", "bat", "cmd", "com", "exe", "dll", "msi", "scr", "jar", "class", "swf",
    "vbs", "ps1", "hta", "htaccess", "so", "elf", "app", "dmg", "apk",
})
_ACTIVE_MIME = re.compile(r"html|javascript|ecmascript|svg|php|x-msdownload|x-sh\b|shellscript|java|flash|xml$", re.I)

# The reference's get_allowed_mime_types without unfiltered_html: swf, exe, htm|html and js removed.
ALLOWED: dict[str, str] = {ext: mime for ext, mime in _ALL_TYPES.items() if ext not in _ACTIVE_EXTS}

# The reference's wp_get_ext_types (wp_ext2type), with the newer image types.
_EXT_TYPES: dict[str, tuple[str, ...]] = {
    "image": ("jpg", "jpeg", "jpe", "gif", "png", "bmp", "tif", "tiff", "ico", "heic", "heif", "webp", "avif"),
    "audio": ("aac", "ac3", "aif", "aiff", "flac", "m3a", "m4a", "m4b", "mka", "mp1", "mp2", "mp3", "ogg", "oga",
              "ram", "wav", "wma"),
    "video": ("3g2", "3gp", "3gpp", "asf", "avi", "divx", "dv", "flv", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg",
              "mpv", "ogm", "ogv", "qt", "rm", "vob", "wmv", "webm"),
    "document": ("doc", "docx", "docm", "dotm", "odt", "pages", "pdf", "xps", "oxps", "rtf", "wp", "wpd", "psd", "xcf"),
    "spreadsheet": ("numbers", "ods", "xls", "xlsx", "xlsm", "xlsb"),
    "interactive": ("swf", "key", "ppt", "pptx", "pptm", "pps", "ppsx", "ppsm", "sldx", "sldm", "odp"),
    "text": ("asc", "csv", "tsv", "txt"),
    "archive": ("bz2", "cab", "dmg", "gz", "rar", "sea", "sit", "sqx", "tar", "tgz", "zip", "7z"),
    "code": ("css", "htm", "html", "php", "js"),
}
_EXT2TYPE = {ext: kind for kind, exts in _EXT_TYPES.items() for ext in exts}
_ARCHIVE_MIMES = frozenset({"application/zip", "application/x-gzip", "application/x-tar", "application/rar",
                            "application/x-7z-compressed"})

# The image extension a content type gets when the name says another image type (the reference's
# getimagesize_mimes_to_exts, plus the newer types).
_IMAGE_EXT = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/bmp": "bmp", "image/tiff": "tif",
              "image/webp": "webp", "image/avif": "avif", "image/heic": "heic", "image/x-icon": "ico"}

REJECTED_MESSAGE = "Sorry, you are not allowed to upload this file type."


class UploadRejected(Exception):
    """An upload refused before it is stored, with the REST error it becomes: the reference's
    code and message, but 400 where the reference answers 500 (a refused type is the client's
    mistake, not the server's)."""

    def __init__(self, code: str = "rest_upload_sideload_error", message: str = REJECTED_MESSAGE,
                 status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def for_multipart(self) -> UploadRejected:
        """The same refusal for a multipart form upload: the spec's ``rest_upload_unknown_error``."""
        if self.code != "rest_upload_sideload_error":
            return self
        return UploadRejected("rest_upload_unknown_error", self.message, self.status)


@dataclass(frozen=True)
class FileType:
    """What :func:`detect` decided: the extension and MIME type the file is stored under, its
    wp_ext2type group, and its name with the extension corrected when the content said so."""

    ext: str
    mime: str
    kind: str
    proper_name: str


# -- names ----------------------------------------------------------------------------------------

_SPECIAL_CHARS = "?[]/\\=<>:;,'\"&$#*()|~`!{}%+\u2019\u00ab\u00bb\u201d\u201c\x00"
_SPECIAL_TABLE = {ord(char): None for char in _SPECIAL_CHARS}
_DOTS = re.compile(r"\.{2,}")
_DASHES = re.compile(r"[\r\n\t -]+")
_INNER_EXT = re.compile(r"[a-zA-Z]{2,5}\d?", re.ASCII)
_SLUG_DROP = re.compile(r"[^%a-z0-9 _-]")


def _has_surrogates(text: str) -> bool:
    return any("\ud800" <= char <= "\udfff" for char in text)


def _slug_of_invalid(stem: str) -> str:
    """The reference's sanitize_title_with_dashes of a name that is not UTF-8: its bytes above
    ASCII are dropped (here: every non-ASCII character), dots and spaces made dashes."""
    text = stem.lower().replace(".", "-")
    text = _SLUG_DROP.sub("", text)
    text = re.sub(r"\s+", "-", text)
    text = re.sub(r"-+", "-", text)
    return text.strip("-")


def _unicode_controls(text: str) -> str:
    # \r \n \t become dashes later, as in the reference; every other control character goes.
    return "".join(char for char in text if char in "\r\n\t" or unicodedata.category(char) != "Cc")


def sanitize_file_name(name: str | bytes) -> str:
    """The reference's sanitize_file_name, on the last path part of ``name`` (see the module's
    notes). Bytes are read as UTF-8; invalid sequences are treated as the reference treats a
    name that is not UTF-8."""
    if isinstance(name, bytes):
        name = name.decode("utf-8", "surrogateescape")
    name = _unicode_controls(re.split(r"[/\\]", name)[-1])
    name = remove_accents(name)
    if _has_surrogates(name):
        stem, dot, ext = name.rpartition(".")
        if not dot:
            stem, ext = name, ""
        ext = "".join(char for char in ext if not "\ud800" <= char <= "\udfff")
        name = _slug_of_invalid(stem) + "." + ext
    name = name.replace("\u00a0", " ")
    name = name.replace("%20", "-")
    name = name.translate(_SPECIAL_TABLE)
    name = _DOTS.sub(".", name)
    name = _DASHES.sub("-", name)
    name = name.strip(".-_")
    if "." not in name and name.lower() in _ALL_TYPES:
        name = "unnamed-file." + name
    if not name:
        return "unnamed-file"
    parts = name.split(".")
    if len(parts) <= 2:
        return name
    out = parts[0]
    for part in parts[1:-1]:
        out += "." + part
        if _INNER_EXT.fullmatch(part) and part.lower() not in ALLOWED:
            out += "_"
    return out + "." + parts[-1]


# -- content --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sniffed:
    """What the content's signature says: an image type (``image``), a media type whose major
    type must agree with the name's (``majors``), or the extensions it may be named with."""

    mime: str
    image: bool = False
    majors: tuple[str, ...] = ()
    exts: frozenset[str] = frozenset()


def _exts(*names: str) -> frozenset[str]:
    return frozenset(names)


_ZIP_EXTS = _exts("zip", "docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xlsb", "xltx", "xltm", "xlam", "pptx", "pptm",
                  "ppsx", "ppsm", "potx", "potm", "ppam", "sldx", "sldm", "odt", "odp", "ods", "odg", "odc", "odb",
                  "odf", "key", "numbers", "pages", "xps", "oxps")
# OLE2 compound files: the old Office formats, and the new ones when encrypted.
_OLE_EXTS = _exts("doc", "dot", "xls", "xla", "xlt", "xlw", "ppt", "pps", "pot", "mpp", "docx", "xlsx", "pptx", "docm",
                  "xlsm", "pptm", "onetoc", "onetoc2", "onetmp", "onepkg")
_HEIC_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}
_EXECUTABLE = (b"MZ", b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe",
               b"\xca\xfe\xba\xbe", b"dex\n", b"\x00asm")
_ACTIVE_TEXT = re.compile(
    rb"<\?(?:php|=|\s)|<%|<script|<html|<!doctype\s+html|<head[\s>]|<body|<svg|<iframe|<object|<embed|<meta[\s>]"
    rb"|<link[\s>]|<base[\s>]|<form[\s>]|<img[\s/]|<style|<xml|<!entity|<xsl|javascript:|vbscript:",
    re.I,
)


def _is_executable(head: bytes) -> bool:
    return head.startswith(_EXECUTABLE) or head.lstrip(b"\xef\xbb\xbf").startswith(b"#!")


def _sniff_image(head: bytes) -> str | None:
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
        return "image/png"
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 13:
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and head[12:16] in (b"VP8 ", b"VP8L", b"VP8X"):
        return "image/webp"
    if head[:2] == b"BM" and len(head) >= 26 and int.from_bytes(head[14:18], "little") in (12, 16, 40, 52, 56, 64, 108, 124):
        return "image/bmp"
    if head[:4] == b"\x00\x00\x01\x00" and len(head) >= 22 and int.from_bytes(head[4:6], "little") > 0:
        return "image/x-icon"
    if head[:4] in (b"II*\x00", b"MM\x00*") and len(head) >= 8:
        return "image/tiff"
    return None


def _sniff_ftyp(head: bytes) -> _Sniffed | None:
    if head[4:8] != b"ftyp" or len(head) < 12:
        return None
    size = int.from_bytes(head[:4], "big")
    brands = {head[8:12]} | {head[i:i + 4] for i in range(16, min(max(size, 16), len(head)) - 3, 4)}
    if head[8:12] in (b"avif", b"avis") or (b"avif" in brands and head[8:12] == b"mif1"):
        return _Sniffed("image/avif", image=True)
    if head[8:12] in _HEIC_BRANDS:
        return _Sniffed("image/heic", image=True)
    if head[8:12] in (b"M4A ", b"M4B ", b"M4P "):
        return _Sniffed("audio/mp4", majors=("audio",))
    if head[8:12] == b"qt  ":
        return _Sniffed("video/quicktime", majors=("video",))
    if head[8:11] in (b"3gp", b"3g2", b"3ge", b"3gg", b"3gs"):
        return _Sniffed("video/3gpp", majors=("video", "audio"))
    return _Sniffed("video/mp4", majors=("video", "audio"))


def _sniff_media(head: bytes) -> _Sniffed | None:
    found = _sniff_ftyp(head)
    if found:
        return found
    if head[4:8] in (b"moov", b"mdat", b"wide", b"free", b"pnot") and len(head) >= 8:
        return _Sniffed("video/quicktime", majors=("video",))
    if head.startswith(b"ID3") and len(head) >= 10:
        return _Sniffed("audio/mpeg", majors=("audio",))
    if len(head) >= 4 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        layer, bitrate = (head[1] >> 1) & 3, head[2] >> 4
        if layer == 0 and head[1] & 0xF6 == 0xF0:
            return _Sniffed("audio/aac", majors=("audio",))
        if layer != 0 and bitrate not in (0, 15) and (head[2] >> 2) & 3 != 3:
            return _Sniffed("audio/mpeg", majors=("audio",))
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return _Sniffed("audio/wav", majors=("audio",))
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return _Sniffed("video/avi", majors=("video",))
    if head.startswith(b"OggS"):
        video = b"\x80theora" in head or b"\x80kate" in head
        return _Sniffed("video/ogg" if video else "audio/ogg", majors=("video",) if video else ("audio", "video"))
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        webm = b"webm" in head[:64]
        return _Sniffed("video/webm" if webm else "video/x-matroska", majors=("video", "audio"))
    if head.startswith(b"fLaC"):
        return _Sniffed("audio/flac", majors=("audio",))
    if head.startswith(b"MThd"):
        return _Sniffed("audio/midi", majors=("audio",))
    if head.startswith(b"FLV\x01"):
        return _Sniffed("video/x-flv", majors=("video",))
    if head.startswith(b"\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
        return _Sniffed("video/x-ms-asf", majors=("video", "audio"))
    if head[:4] in (b"\x00\x00\x01\xba", b"\x00\x00\x01\xb3"):
        return _Sniffed("video/mpeg", majors=("video",))
    return None


def _sniff_other(head: bytes) -> _Sniffed | None:
    if head.startswith(b"%PDF-"):
        return _Sniffed("application/pdf", exts=_exts("pdf"))
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return _Sniffed("application/zip", exts=_ZIP_EXTS)
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return _Sniffed("application/x-ole-storage", exts=_OLE_EXTS)
    if head.startswith(b"{\\rtf"):
        return _Sniffed("text/rtf", exts=_exts("rtf", "txt", "rtx"))
    if head.startswith(b"\x1f\x8b\x08"):
        return _Sniffed("application/x-gzip", exts=_exts("gz", "gzip", "tgz"))
    if head[257:262] == b"ustar":
        return _Sniffed("application/x-tar", exts=_exts("tar"))
    if head.startswith(b"Rar!\x1a\x07"):
        return _Sniffed("application/rar", exts=_exts("rar"))
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return _Sniffed("application/x-7z-compressed", exts=_exts("7z"))
    if head.startswith(b"8BPS"):
        return _Sniffed("image/vnd.adobe.photoshop", exts=_exts("psd"))
    if head.startswith(b"gimp xcf"):
        return _Sniffed("image/x-xcf", exts=_exts("xcf"))
    if head.startswith(b"\xffWPC"):
        return _Sniffed("application/wordperfect", exts=_exts("wp", "wpd"))
    return None


def _sniff(head: bytes) -> _Sniffed | None:
    image = _sniff_image(head)
    if image:
        return _Sniffed(image, image=True)
    return _sniff_media(head) or _sniff_other(head)


# Extensions whose content has a signature above: such a file must carry it.
_SIGNED_EXTS = (
    frozenset(_IMAGE_EXT.values()) | {"jpeg", "jpe", "tiff", "heif"}
    | {"mp4", "m4v", "m4a", "m4b", "mov", "qt", "3gp", "3gpp", "3g2", "3gp2", "mp3", "aac", "wav", "avi", "ogg", "oga",
       "ogv", "webm", "mkv", "mka", "flac", "mid", "midi", "flv", "asf", "asx", "wmv", "wma", "mpeg", "mpg", "mpe"}
    | _ZIP_EXTS | _OLE_EXTS | {"pdf", "rtf", "gz", "gzip", "tar", "rar", "7z", "psd", "xcf", "wp", "wpd"}
)


def _as_text(head: bytes) -> str | None:
    """``head`` as text when it is UTF-8 (a character cut at the end of the head allowed) with no
    NUL or other control character than tab, newlines, form feed and escape."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 3 or err.reason != "unexpected end of data":
            return None
        text = head[:err.start].decode("utf-8")
    if any(unicodedata.category(char) == "Cc" and char not in "\t\n\r\f\x0b\x1b" for char in text):
        return None
    return text


def _allowed_types(extra: Mapping[str, str] | None) -> dict[str, str]:
    allowed = dict(ALLOWED)
    for ext, mime in (extra or {}).items():
        ext = str(ext).lower().lstrip(".")
        if not ext or ext in _ACTIVE_EXTS or _ACTIVE_MIME.search(str(mime)) or "/" not in str(mime):
            continue  # active content is never allowed, whatever the option says
        allowed[ext] = str(mime).lower()
    return allowed


def _kind(ext: str, mime: str) -> str:
    kind = _EXT2TYPE.get(ext)
    if kind:
        return kind
    major = mime.split("/", 1)[0]
    if major in ("image", "audio", "video", "text"):
        return major
    return "archive" if mime in _ARCHIVE_MIMES else "document"


def _refuse() -> UploadRejected:
    return UploadRejected()


def detect(data_head: bytes, file_name: str, *, extra: Mapping[str, str] | None = None) -> FileType:
    """The type ``file_name`` is stored as, decided by the content of ``data_head`` (the file's
    first bytes, at least its first 4 KB; the whole file is fine) and checked against the name.
    Raises :class:`UploadRejected` when the type is not allowed or the content contradicts the
    name. ``extra`` maps further extensions to MIME types the site allows."""
    head = bytes(data_head)
    if not head:
        raise UploadRejected("rest_upload_no_data", "No data supplied.", 400)
    base = re.split(r"[/\\]", str(file_name))[-1]
    stem, dot, name_ext = base.rpartition(".")
    ext = name_ext.lower() if dot and stem else ""
    allowed = _allowed_types(extra)
    name_mime = allowed.get(ext)
    if not name_mime or _is_executable(head):
        raise _refuse()

    sniffed = _sniff(head)
    if sniffed is not None and sniffed.image:
        real_ext = _IMAGE_EXT.get(sniffed.mime, "")
        if not name_mime.startswith("image/") or real_ext not in allowed:
            raise _refuse()
        if name_mime == sniffed.mime or (ext == "heif" and sniffed.mime == "image/heic"):
            return FileType(ext, name_mime, _kind(ext, name_mime), base)
        proper = f"{stem}.{real_ext}"
        return FileType(real_ext, allowed[real_ext], _kind(real_ext, allowed[real_ext]), proper)
    if sniffed is not None and sniffed.majors:
        if name_mime.split("/", 1)[0] not in sniffed.majors:
            raise _refuse()
        return FileType(ext, name_mime, _kind(ext, name_mime), base)
    if sniffed is not None:
        if ext not in sniffed.exts:
            raise _refuse()
        return FileType(ext, name_mime, _kind(ext, name_mime), base)

    text = _as_text(head)
    if text is not None:
        if _ACTIVE_TEXT.search(head) or not name_mime.startswith("text/"):
            raise _refuse()
        return FileType(ext, name_mime, _kind(ext, name_mime), base)
    # Binary content with no known signature: the reference's leeway for non-specific binary
    # content, only for types that have no signature here.
    if ext in _SIGNED_EXTS or name_mime.split("/", 1)[0] not in ("application", "audio", "video"):
        raise _refuse()
    return FileType(ext, name_mime, _kind(ext, name_mime), base)
