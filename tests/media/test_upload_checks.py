"""Upload checks (calpress/media/uploads.py): the reference's sanitize_file_name, with its own
unit tests ported as data, and the type of a file by its content, on real files made here."""

from __future__ import annotations

import io
import struct
import wave
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from calpress.media.storage import LocalStorage
from calpress.media.uploads import ALLOWED, FileType, UploadRejected, detect, sanitize_file_name

# -- sanitize_file_name ---------------------------------------------------------------------------

# tests/phpunit/tests/formatting/sanitizeFileName.php of wordpress-develop, as data.
REFERENCE_CASES = [
    ("test.phtml.txt", "test.phtml_.txt"),
    ("àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ", "aaaaaaaeceeeeiiiinoooooouuuuyy"),
    ("unencoded space.png", "unencoded-space.png"),
    ("plus+space.jpg", "plusspace.jpg"),
    ("test%20test%20test%20.png", "test-test-test-.png"),
    ("multi %20 +space.png", "multi-space.png"),
    ("a----t----t", "a-t-t"),
    ("a----t----t----", "a-t-t"),
    ("a          t", "a-t"),
    ("a    \n\n\nt", "a-t"),
    ("a%22b.jpg", "a22b.jpg"),
    ("_.exe", "unnamed-file.exe"),
    ("_.jpg", "unnamed-file.jpg"),
    ("_.no-extension", "no-extension"),
    (b"\xb1myfile.png", "myfile.png"),
    (b"\xb1myfile", "myfile"),
    ("demo bar.png", "demo-bar.png"),
    ("demo\u00a0bar.png", "demo-bar.png"),
]

# The reference's special characters but the path separators, which end the name's path here.
SPECIAL = ["?", "[", "]", "=", "<", ">", ":", ";", ",", "'", '"', "&", "$", "#", "*", "(", ")", "|", "~", "`", "!",
           "{", "}", "%", "+", "\u2019", "\u00ab", "\u00bb", "\u201d", "\u201c", "\x00"]


@pytest.mark.parametrize(("raw", "expected"), REFERENCE_CASES)
def test_reference_cases(raw, expected):
    assert sanitize_file_name(raw) == expected


def test_removes_special_chars():
    assert sanitize_file_name("test" + "".join(SPECIAL) + "test") == "testtest"


@pytest.mark.parametrize(("raw", "expected"), [
    ("shell.php.jpg", "shell.php_.jpg"),
    ("archive.tar.gz", "archive.tar.gz"),           # tar is an allowed type: no underscore
    ("report.v2.pdf", "report.v2.pdf"),             # "v2" is no 2-5 letter extension
    ("x.html.png", "x.html_.png"),
    ("x.svg.jpg", "x.svg_.jpg"),
])
def test_inner_extensions(raw, expected):
    assert sanitize_file_name(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("../../etc/passwd", "passwd"),
    ("..\\..\\x.jpg", "x.jpg"),
    ("/abs/x.jpg", "x.jpg"),
    ("C:\\Users\\me\\photo.JPG", "photo.JPG"),
    ("folder/", "unnamed-file"),
    ("", "unnamed-file"),
    ("...", "unnamed-file"),
    (".htaccess", "htaccess"),
    ("x..jpg", "x.jpg"),
    ("a\x01b\x1f\x7f\x85.jpg", "ab.jpg"),
    ("nul\x00.php.jpg", "nul.php_.jpg"),
    ("tab\there.png", "tab-here.png"),
    ("日本語 写真.jpg", "日本語-写真.jpg"),
    ("Ünïcödé Café.png", "Unicode-Cafe.png"),
    ("\ud800bad.png", "bad.png"),                   # a lone surrogate: not UTF-8
])
def test_paths_controls_unicode(raw, expected):
    assert sanitize_file_name(raw) == expected


@settings(deadline=None, max_examples=200, derandomize=True, database=None)
@given(st.one_of(st.text(), st.binary().map(lambda b: b.decode("utf-8", "surrogateescape"))))
def test_sanitized_names_are_safe(raw):
    name = sanitize_file_name(raw)
    assert name
    assert "/" not in name and "\\" not in name and ".." not in name
    assert not name.startswith(".")
    assert not any(ord(char) < 32 or 0x7F <= ord(char) <= 0x9F for char in name)
    name.encode("utf-8")  # no lone surrogates


# -- files made on the fly -------------------------------------------------------------------------


def image(fmt: str, size: tuple[int, int] = (40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "red").save(buffer, format=fmt)
    return buffer.getvalue()


def docx() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archive.writestr("word/document.xml", "<w:document/>")
    return buffer.getvalue()


def wav() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 800)
    return buffer.getvalue()


def ftyp(brand: bytes, compatible: bytes = b"isom") -> bytes:
    body = brand + b"\x00\x00\x02\x00" + compatible
    return struct.pack(">I", 8 + len(body)) + b"ftyp" + body + b"\x00\x00\x00\x08free"


PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
MP3 = b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x64" + b"\x00" * 400
MP3_FRAME = b"\xff\xfb\x90\x64" + b"\x00" * 400
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504


@pytest.mark.parametrize(("data", "name", "ext", "mime", "kind"), [
    (image("JPEG"), "photo.jpg", "jpg", "image/jpeg", "image"),
    (image("JPEG"), "photo.JPEG", "jpeg", "image/jpeg", "image"),
    (image("PNG"), "photo.png", "png", "image/png", "image"),
    (image("GIF"), "anim.gif", "gif", "image/gif", "image"),
    (image("WEBP"), "photo.webp", "webp", "image/webp", "image"),
    (image("BMP"), "old.bmp", "bmp", "image/bmp", "image"),
    (image("TIFF"), "scan.tiff", "tiff", "image/tiff", "image"),
    (image("ICO", (32, 32)), "favicon.ico", "ico", "image/x-icon", "image"),
    (ftyp(b"avif", b"mif1"), "photo.avif", "avif", "image/avif", "image"),
    (ftyp(b"heic", b"mif1"), "photo.heic", "heic", "image/heic", "image"),
    (PDF, "paper.pdf", "pdf", "application/pdf", "document"),
    (docx(), "letter.docx", "docx", ALLOWED["docx"], "document"),
    (docx(), "sheet.xlsx", "xlsx", ALLOWED["xlsx"], "spreadsheet"),
    (docx(), "slides.odp", "odp", ALLOWED["odp"], "interactive"),
    (docx(), "bundle.zip", "zip", "application/zip", "archive"),
    (OLE2, "old.doc", "doc", "application/msword", "document"),
    (OLE2, "old.xls", "xls", "application/vnd.ms-excel", "spreadsheet"),
    (wav(), "sound.wav", "wav", "audio/wav", "audio"),
    (MP3, "song.mp3", "mp3", "audio/mpeg", "audio"),
    (MP3_FRAME, "song.mp3", "mp3", "audio/mpeg", "audio"),
    (ftyp(b"mp42"), "clip.mp4", "mp4", "video/mp4", "video"),
    (ftyp(b"mp42"), "clip.mov", "mov", "video/quicktime", "video"),     # the reference's .mov leeway
    (ftyp(b"M4A "), "voice.m4a", "m4a", "audio/mpeg", "audio"),
    (ftyp(b"qt  "), "clip.mov", "mov", "video/quicktime", "video"),
    (b"OggS\x00\x02" + b"\x00" * 22 + b"\x01vorbis" + b"\x00" * 40, "tune.ogg", "ogg", "audio/ogg", "audio"),
    (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm" + b"\x00" * 40, "clip.webm", "webm", "video/webm", "video"),
    (b"fLaC\x00\x00\x00\x22" + b"\x00" * 40, "tune.flac", "flac", "audio/flac", "audio"),
    (b"hello, world\nsecond line\n", "notes.txt", "txt", "text/plain", "text"),
    ("name,when\nCafé,2026-11-05\n".encode(), "list.csv", "csv", "text/csv", "text"),
    (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n", "feed.ics", "ics", "text/calendar", "text"),
    (b"{\\rtf1\\ansi hello}", "memo.rtf", "rtf", "application/rtf", "document"),
    (b"\x1f\x8b\x08\x00" + b"\x00" * 20, "backup.gz", "gz", "application/x-gzip", "archive"),
])
def test_detects_allowed_content(data, name, ext, mime, kind):
    assert detect(data, name) == FileType(ext, mime, kind, name)


def test_only_the_head_is_needed():
    data = image("PNG", (400, 300))
    assert detect(data[:64], "p.png").mime == "image/png"


@pytest.mark.parametrize(("data", "name", "proper", "mime"), [
    (image("JPEG"), "photo.png", "photo.jpg", "image/jpeg"),
    (image("PNG"), "my.holiday.jpg", "my.holiday.png", "image/png"),
    (image("GIF"), "a.webp", "a.gif", "image/gif"),
    (image("WEBP"), "a.bmp", "a.webp", "image/webp"),
    (ftyp(b"avif", b"mif1"), "a.heic", "a.avif", "image/avif"),
])
def test_image_of_another_type_gets_its_extension(data, name, proper, mime):
    found = detect(data, name)
    assert (found.proper_name, found.mime, found.ext) == (proper, mime, proper.rsplit(".", 1)[1])


ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56
MZ = b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 56


@pytest.mark.parametrize(("data", "name"), [
    (b"<?php system($_GET['c']); ?>", "x.png"),
    (b"<?php echo 1;", "x.txt"),
    (b"<html><body>hi</body></html>", "x.pdf"),
    (b"<!DOCTYPE html><p>hi", "x.txt"),
    (b"hello <script>alert(1)</script>", "notes.txt"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "x.svg"),
    (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "x.txt"),
    (b"#!/bin/sh\nrm -rf /\n", "run.txt"),
    (ELF, "tool.jpg"),
    (ELF, "tool.zip"),
    (MZ, "setup.exe"),
    (MZ, "setup.pdf"),
    (MZ, "setup.txt"),
    (image("JPEG"), "photo.pdf"),          # an image under a non-image name: refused, as the reference
    (image("JPEG"), "photo"),              # no extension
    (image("JPEG"), "photo.php"),
    (PDF, "paper.txt"),
    (PDF, "paper.docx"),
    (docx(), "letter.pdf"),
    (docx(), "letter.jpg"),
    (MP3, "song.mp4"),                     # audio content, video name: the major type differs
    (wav(), "sound.txt"),
    (b"plain text", "notes.pdf"),
    (b"plain text", "notes.html"),
    (b"plain text", "notes.js"),
    (b"plain text", "notes.svg"),
    (bytes(range(256)) * 4, "random.pdf"),  # no signature where one is known
    (bytes(range(256)) * 4, "random.txt"),
    (b"\x89PNG\r\n\x1a\n", "cut.png"),      # a truncated PNG: the signature without its IHDR
    (b"\x89PNG\r\n\x1a\n\x00\x00", "cut.png"),
    (b"GIF89a", "cut.gif"),
    (b"\xca\xfe\xba\xbe\x00\x00\x00\x34", "Main.class"),
    (b"text with a NUL\x00 inside", "x.txt"),
])
def test_refuses(data, name):
    with pytest.raises(UploadRejected) as refused:
        detect(data, name)
    err = refused.value
    assert (err.code, err.message, err.status) == (
        "rest_upload_sideload_error", "Sorry, you are not allowed to upload this file type.", 400)
    multipart = err.for_multipart()
    assert (multipart.code, multipart.message, multipart.status) == (
        "rest_upload_unknown_error", "Sorry, you are not allowed to upload this file type.", 400)


def test_empty_file_is_no_data():
    with pytest.raises(UploadRejected) as refused:
        detect(b"", "empty.txt")
    assert (refused.value.code, refused.value.message, refused.value.status) == (
        "rest_upload_no_data", "No data supplied.", 400)


def test_allowed_list_is_the_reference_defaults_without_active_content():
    for ext in ("jpg", "jpeg", "jpe", "gif", "png", "webp", "avif", "heic", "bmp", "ico", "tif", "tiff", "mp3", "m4a",
                "wav", "ogg", "mp4", "mov", "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp",
                "rtf", "txt", "csv", "tsv", "ics", "zip", "gz", "key", "numbers", "pages"):
        assert ext in ALLOWED, ext
    for ext in ("svg", "html", "htm", "php", "exe", "js", "swf", "class", "phtml"):
        assert ext not in ALLOWED, ext
    assert ALLOWED["jpg"] == "image/jpeg" and ALLOWED["docx"].startswith("application/vnd.openxmlformats")


def test_extra_types_add_but_never_active_content():
    with pytest.raises(UploadRejected):
        detect(b"# Title\n\ntext\n", "readme.md")
    extra = {"md": "text/markdown", "stl": "model/stl", "glb": "application/octet-stream",
             "svg": "image/svg+xml", "html": "text/html", "php": "text/plain", "pic": "image/svg+xml",
             "page": "text/html", "js": "text/plain"}
    assert detect(b"# Title\n\ntext\n", "readme.md", extra=extra) == FileType("md", "text/markdown", "text", "readme.md")
    assert detect(b"glTF\x02\x00\x00\x00" + bytes(range(200)), "model.glb", extra=extra).mime == "application/octet-stream"
    for data, name in [(b'<svg xmlns="http://www.w3.org/2000/svg"/>', "x.svg"), (b"# hi", "x.svg"),
                       (b"<p>hi</p>", "x.html"), (b"echo 1", "x.php"), (b"plain", "x.pic"), (b"plain", "x.page"),
                       (b"plain", "x.js"), (b"# <script>alert(1)</script>", "x.md")]:
        with pytest.raises(UploadRejected):
            detect(data, name, extra=extra)


def test_binary_without_signature_is_allowed_only_for_unsigned_binary_types():
    data = bytes(range(256)) * 2
    assert detect(data, "voice.ra").mime == "audio/x-realaudio"
    with pytest.raises(UploadRejected):
        detect(data, "voice.mp3")


@settings(deadline=None, max_examples=200, derandomize=True, database=None)
@given(st.binary(max_size=600), st.sampled_from(["x.jpg", "x.png", "x.txt", "x.pdf", "x.mp4", "x.docx", "x.ra", "x",
                                                 "x.svg", "x.mp3", "x.ogg", "x.heic"]))
def test_detect_only_ever_refuses(data, name):
    try:
        found = detect(data, name)
    except UploadRejected:
        return
    assert found.ext in ALLOWED and found.mime == ALLOWED[found.ext]


# -- unique names: the storage's put_unique (the reference's wp_unique_filename) -----------------


def test_unique_names_come_from_the_storage(tmp_path):
    storage = LocalStorage(tmp_path)
    name = detect(image("PNG"), sanitize_file_name("My Photo.png")).proper_name
    assert storage.put_unique(f"2026/11/{name}", b"a") == "2026/11/My-Photo.png"
    assert storage.put_unique(f"2026/11/{name}", b"b") == "2026/11/My-Photo-1.png"
    storage.put("2026/11/photo-150x150.jpg", b"thumbnail of photo.jpg")
    # A new upload named like an existing thumbnail does not replace it.
    assert storage.put_unique("2026/11/photo-150x150.jpg", b"c") == "2026/11/photo-150x150-1.jpg"
