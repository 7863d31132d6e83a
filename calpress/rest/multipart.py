"""multipart/form-data bodies, parsed as they stream in (python-multipart's push parser).

Every route takes them, as the reference takes any form PHP decodes into ``$_POST`` and
``$_FILES``: the fields become body parameters exactly as a form-encoded body's do (PHP's bracket
names make arrays and objects: ``categories[]=3``), and the file parts reach the handler in
``request.files`` by field name (``file`` for a media upload), each an :class:`UploadedFile`
whose bytes are spooled to a temporary file beyond :data:`SPOOL_BYTES`, so a large upload is
never held in memory.

Bounds, each a clear error: the body's size (the transport's limit, 413), the number of parts
(:data:`MAX_PARTS`), the size of a plain field (:data:`MAX_FIELD_BYTES`) and of a part's headers;
a body that is not multipart at all (no boundary, broken framing) answers 400
``rest_invalid_multipart``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO
from urllib.parse import urlencode

from python_multipart import MultipartParser
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import parse_options_header

from .errors import RestError

SPOOL_BYTES = 1024 * 1024  # a file part stays in memory up to this size, then goes to disk
MAX_PARTS = 1000
MAX_FIELD_BYTES = 1024 * 1024


def is_multipart(content_type: str | None) -> bool:
    return bool(content_type) and content_type.split(";", 1)[0].strip().lower() == "multipart/form-data"


def invalid(message: str) -> RestError:
    return RestError("rest_invalid_multipart", message, status=400)


@dataclass
class UploadedFile:
    """One file part: its field name, the file name and type the client gave, its size, and its
    bytes in a (spooled) temporary file, positioned at the start once the body is read."""

    field: str
    filename: str
    content_type: str
    size: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    file: IO[bytes] = field(default_factory=lambda: tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES))

    def read(self, limit: int = -1) -> bytes:
        """The bytes (from the start); ``limit``: at most that many."""
        self.file.seek(0)
        return self.file.read(limit)

    def close(self) -> None:
        self.file.close()


@dataclass
class Form:
    """A parsed body: the plain fields in order, and the files by field name."""

    fields: list[tuple[str, str]] = field(default_factory=list)
    files: dict[str, list[UploadedFile]] = field(default_factory=dict)

    def query_string(self) -> str:
        """The fields as a form-encoded body (for the one PHP-style decoder of form bodies)."""
        return urlencode(self.fields)

    def close(self) -> None:
        for found in self.files.values():
            for upload in found:
                upload.close()


class _Reader:
    """The parser's callbacks: headers per part, then its data to a field buffer or a file."""

    def __init__(self, form: Form) -> None:
        self.form = form
        self.parts = 0
        self.header_name = b""
        self.header_value = b""
        self.headers: dict[str, str] = {}
        self.disposition = b""  # the Content-Disposition header as sent, read in headers_finished
        self.buffer: bytearray | None = None
        self.upload: UploadedFile | None = None
        self.name = ""
        self.ended = False  # the closing boundary was read

    def callbacks(self) -> dict[str, Callable[..., None]]:
        return {
            "on_part_begin": self.part_begin,
            "on_header_field": self.header_field,
            "on_header_value": self.header_value_data,
            "on_header_end": self.header_end,
            "on_headers_finished": self.headers_finished,
            "on_part_data": self.part_data,
            "on_part_end": self.part_end,
            "on_end": self.end,
        }

    def end(self) -> None:
        self.ended = True

    def part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise invalid(f"A form may hold {MAX_PARTS} parts at most.")
        self.headers = {}
        self.disposition = b""
        self.buffer = None
        self.upload = None

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_name += data[start:end]

    def header_value_data(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def header_end(self) -> None:
        name = self.header_name.decode("latin-1").strip().lower()
        self.headers[name] = self.header_value.decode("utf-8", "replace").strip()
        if name == "content-disposition":
            self.disposition = self.header_value.strip()
        self.header_name = b""
        self.header_value = b""

    def headers_finished(self) -> None:
        # Parsed from its bytes: browsers send a file name as UTF-8 between quotes (RFC 7578 4.2),
        # and the parser reads bytes as Latin-1, one character a byte, which it gives back
        # unchanged; a decoded name outside Latin-1 (фото.png) would not go back through it.
        disposition, options = parse_options_header(self.disposition)
        if disposition != b"form-data" or b"name" not in options:
            raise invalid("Every part of a form needs a Content-Disposition: form-data header with a name.")
        self.name = options[b"name"].decode("utf-8", "replace")
        if b"filename" in options:
            filename = options[b"filename"].decode("utf-8", "replace")
            self.upload = UploadedFile(self.name, filename, self.headers.get("content-type", "application/octet-stream"),
                                       headers=dict(self.headers))
        else:
            self.buffer = bytearray()

    def part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if self.upload is not None:
            self.upload.file.write(chunk)
            self.upload.size += len(chunk)
        elif self.buffer is not None:
            if len(self.buffer) + len(chunk) > MAX_FIELD_BYTES:
                raise invalid(f"A form field may hold {MAX_FIELD_BYTES:,} bytes at most.")
            self.buffer.extend(chunk)

    def part_end(self) -> None:
        if self.upload is not None:
            self.upload.file.seek(0)
            self.form.files.setdefault(self.name, []).append(self.upload)
            self.upload = None
        elif self.buffer is not None:
            self.form.fields.append((self.name, self.buffer.decode("utf-8", "replace")))
            self.buffer = None


def read_form(chunks: Iterable[bytes], content_type: str) -> Form:
    """Parse a multipart body as its ``chunks`` arrive (``request.read_chunks``, which bounds
    them). Raises RestError ``rest_invalid_multipart`` for a body that is not one, and lets the
    errors of ``chunks`` through (the limit's 413); files already written are removed on any
    error."""
    _, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary or len(boundary) > 200:
        raise invalid("A multipart/form-data body needs a boundary.")
    form = Form()
    reader = _Reader(form)
    parser = MultipartParser(boundary, reader.callbacks())
    received = 0
    try:
        for part in chunks:
            received += len(part)
            parser.write(part)
        parser.finalize()
        if not reader.ended and received:
            raise invalid("The multipart body ended before its closing boundary.")
    except MultipartParseError as err:
        form.close()
        if reader.upload is not None:
            reader.upload.close()
        raise invalid("The multipart body could not be read.") from err
    except BaseException:
        form.close()
        if reader.upload is not None:
            reader.upload.close()
        raise
    return form
