"""Compression and conditional requests for every answer of the app, as one WSGI layer around it
(``Calpress.wsgi``): the REST answers of both paths, the pages, the site's stylesheet and script,
feeds, calendars and the workspace.

- ``Accept-Encoding`` is negotiated with its q-values (``identity;q=0`` and ``*`` too): brotli is
  preferred, then gzip, for text types, JSON, JavaScript, XML and SVG above
  :data:`MIN_SIZE` bytes; never for an answer that already has a ``Content-Encoding`` (the
  workspace's pre-compressed libraries, admin/assets.py), a range, or a 204/206/304. Every answer
  of a compressible type says ``Vary: Accept-Encoding``, compressed or not, so that a shared cache
  never hands a brotli body to a client that did not ask for one.
- A GET answered 200 gets a strong ``ETag``: a hash of its uncompressed body; a compressed
  representation carries the same tag with ``-br`` or ``-gz`` added (as Apache's mod_deflate
  does), since a strong tag names one sequence of bytes. ``If-None-Match`` is compared weakly, as
  RFC 9110 13.1.2 says for it, and against every representation of the body: a client holding
  the gzip copy gets 304 when the body is unchanged, whatever encoding it asks for now. The 304
  keeps the caching headers (``ETag``, ``Vary``, ``Cache-Control``...) and drops the body's.
- A HEAD answer passes as the app made it, with ``Vary`` added: the REST engine answers HEAD
  without reading the rows of a listing, so there is no body to hash or compress. RFC 9110
  9.3.2 lets a HEAD leave out the fields only made while generating the content (``ETag``, a
  ``Content-Encoding`` and its length).
- Compressed bodies are kept in a bounded cache by (body hash, encoding), and the hash of a body
  by the identity of its bytes while the app hands out the same object (the REST answer cache,
  the page cache and the static files do): a repeated answer costs a dictionary lookup, not a
  hash and a compression (bench/encoding.py measures it).

Streamed answers (files from uploads, the WXR export) pass through untouched unless they are of
a compressible type, 200, and small enough (:data:`STREAM_LIMIT`) to be read whole.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
from collections.abc import Callable, Iterable
from typing import Any

import brotli

__all__ = ["AnswerEncoding", "BodyStore", "accepted_encoding", "accepts", "body_tag", "is_compressible", "none_match"]

BROTLI, GZIP = "br", "gzip"
# Below this a body gains little from compression and its answer fits one packet anyway.
MIN_SIZE = 1024
# Chosen for speed (bench/encoding.py): brotli 4 makes the 250 KB site index 10.5 KB in 0.7 ms
# (5: 9.3 KB in 1.1 ms; 11: 8.2 KB in 85 ms) and a 30 KB REST list 1.2 KB in 0.09 ms; gzip 6 makes
# them 12.4 KB in 1.8 ms and 1.5 KB in 0.09 ms (9 gains 3% for twice the time). A compressed
# answer is kept (BodyStore), so the level is paid once per distinct body.
BROTLI_QUALITY = 4
GZIP_LEVEL = 6
# A streamed answer of a compressible type is read whole and compressed up to this size.
STREAM_LIMIT = 1024 * 1024
# What the ETag of each representation adds to the tag of the body.
_TAG_SUFFIX = {BROTLI: "-br", GZIP: "-gz"}
_SUFFIXES = tuple(_TAG_SUFFIX.values())

_COMPRESSIBLE_TYPES = frozenset({
    "application/json", "application/javascript", "application/x-javascript", "application/ecmascript",
    "application/xml", "application/xhtml+xml", "application/rss+xml", "application/atom+xml",
    "image/svg+xml", "application/manifest+json", "application/ld+json", "application/x-ndjson",
})
_EMPTY: list[bytes] = []


@functools.lru_cache(maxsize=256)
def is_compressible(content_type: str) -> bool:
    """Whether answers of ``content_type`` (parameters allowed) are worth compressing: text,
    JSON, JavaScript, XML and SVG (images, fonts and archives are compressed already). An event
    stream is never held back to be compressed."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media.startswith("text/"):
        return media != "text/event-stream"
    return media in _COMPRESSIBLE_TYPES or media.endswith(("+json", "+xml"))


@functools.lru_cache(maxsize=512)
def _weights(header: str) -> dict[str, float]:
    """The q-value of each coding named in an ``Accept-Encoding`` value (``x-gzip`` read as gzip,
    RFC 9110 8.4.1.3; a q that is no number read as 0, not acceptable)."""
    weights: dict[str, float] = {}
    for part in header.split(","):
        name, _, params = part.partition(";")
        coding = name.strip().lower()
        if not coding:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    weight = 0.0
        weights[GZIP if coding == "x-gzip" else coding] = weight
    return weights


def accepted_encoding(header: str | None, *, small: bool = False) -> str | None:
    """The coding to send for ``Accept-Encoding: header``: ``"br"``, ``"gzip"`` or None
    (identity). The highest q-value wins, brotli before gzip at equal weight; ``*`` gives its
    weight to the codings it does not name. None without a header (RFC 9110 12.5.3: any coding
    would do, and identity is what every client reads). ``small``: the body is below
    :data:`MIN_SIZE`, so it is compressed only when the client rules the identity coding out
    (``identity;q=0``, or ``*;q=0`` without naming identity). When nothing acceptable is left,
    the answer is identity all the same rather than a 406, as most servers do."""
    if not header:
        return None
    weights = _weights(header)
    star = weights.get("*")
    best: str | None = None
    best_weight = 0.0
    for coding in (BROTLI, GZIP):
        weight = weights.get(coding, star if star is not None else 0.0)
        if weight > best_weight:
            best, best_weight = coding, weight
    if best is None or not small:
        return best
    identity = weights.get("identity", star if star is not None else 1.0)
    return best if identity <= 0.0 else None


def accepts(header: str | None, coding: str) -> bool:
    """Whether ``Accept-Encoding: header`` takes ``coding`` (named with q > 0, or covered by
    ``*``): for answers compressed ahead of time (admin/assets.py)."""
    if not header:
        return False
    weights = _weights(header)
    return weights.get(coding, weights.get("*", 0.0)) > 0.0


def body_tag(digest: str, coding: str | None) -> str:
    """The strong ETag of a body of hash ``digest`` sent with ``coding`` (None: identity)."""
    return f'"{digest}{_TAG_SUFFIX[coding]}"' if coding else f'"{digest}"'


def none_match(header: str, tag: str) -> bool:
    """Whether ``If-None-Match: header`` names the body whose (identity) ETag is ``tag``: ``*``,
    or any listed tag equal to it by the weak comparison (``W/`` ignored), in any of its
    encodings (a ``-br`` or ``-gz`` suffix ignored)."""
    if header.strip() == "*":
        return True
    opaque = tag.strip('"')
    for listed in header.split(","):
        candidate = listed.strip().removeprefix("W/").strip('"')
        if candidate.endswith(_SUFFIXES):
            candidate = candidate[:-3]
        if candidate == opaque:
            return True
    return False


def compress(body: bytes, coding: str) -> bytes:
    """``body`` compressed with ``coding`` at the levels chosen for speed."""
    if coding == BROTLI:
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, GZIP_LEVEL, mtime=0)


class BodyStore:
    """Hashes and compressed copies of bodies, bounded in bytes.

    ``digest`` remembers the hash of a bytes object by its identity (holding it, so the identity
    cannot be reused while remembered): the app hands out the same object for a repeated answer.
    ``compressed`` keeps compressed copies by (hash, coding). Each part starts over when full."""

    def __init__(self, max_bytes: int = 16 * 1024 * 1024, *, max_hashed_bytes: int = 16 * 1024 * 1024) -> None:
        self._lock = threading.Lock()
        self._hashes: dict[int, tuple[bytes, str]] = {}
        self._hashed_bytes = 0
        self.max_hashed_bytes = max_hashed_bytes
        self._copies: dict[tuple[str, str], bytes] = {}
        self._copied_bytes = 0
        self.max_bytes = max_bytes

    def digest(self, body: bytes) -> str:
        """A strong validator of ``body``: the first 128 bits of its SHA-256, in hex. SHA-256
        rather than BLAKE2b: with the SHA extensions of current x86 and ARM processors OpenSSL
        hashes the 250 KB site index in about half BLAKE2b's time (0.14 against 0.27 ms, the
        fastest of ten runs each on the AMD EPYC of the benchmarks)."""
        found = self._hashes.get(id(body))
        if found is not None and found[0] is body:
            return found[1]
        digest = hashlib.sha256(body).hexdigest()[:32]
        size = len(body)
        if size >= MIN_SIZE and size <= self.max_hashed_bytes // 8:  # small ones hash in no time
            with self._lock:
                if self._hashed_bytes + size > self.max_hashed_bytes:
                    self._hashes.clear()
                    self._hashed_bytes = 0
                if id(body) not in self._hashes:
                    self._hashes[id(body)] = (body, digest)
                    self._hashed_bytes += size
        return digest

    def compressed(self, body: bytes, digest: str, coding: str) -> bytes:
        """``body`` (of hash ``digest``) compressed with ``coding``, from the store when it was
        compressed before."""
        key = (digest, coding)
        found = self._copies.get(key)
        if found is not None:
            return found
        packed = compress(body, coding)
        size = len(packed)
        if size <= self.max_bytes // 8:
            with self._lock:
                if self._copied_bytes + size > self.max_bytes:
                    self._copies.clear()
                    self._copied_bytes = 0
                if key not in self._copies:
                    self._copies[key] = packed
                    self._copied_bytes += size
        return packed


def _no_write(data: bytes) -> None:
    raise RuntimeError("the app answered through write(); AnswerEncoding serves returned bodies only")


class AnswerEncoding:
    """The WSGI layer (see the module's docstring) around ``app``, which must call
    ``start_response`` before it returns its body (Falcon and the REST path do)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], store: BodyStore | None = None) -> None:
        self.app = app
        self.store = store or BodyStore()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD")
        head = method == "HEAD"
        started: list[Any] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
            started.append(status)
            started.append(headers)
            return _no_write

        result = self.app(environ, capture)
        if not started:
            _close(result)
            raise RuntimeError("the app returned its body before it called start_response")
        status, headers = started[-2:]
        code = int(status[:3])
        content_type = encoded = etag = vary = None
        ranged = False
        vary_at = length_at = -1
        for index, (name, value) in enumerate(headers):
            kind = _KINDS.get(name)
            if kind is None:
                kind = _kind_of(name)
            if not kind:
                continue
            if kind == _TYPE:
                content_type = value
            elif kind == _LENGTH:
                length_at = index
            elif kind == _VARY:
                vary, vary_at = value, index
            elif kind == _ETAG:
                etag = value
            elif kind == _ENCODING:
                encoded = value
            else:
                ranged = True
        compressible = content_type is not None and is_compressible(content_type)
        if compressible:
            if vary_at < 0:
                headers.append(("Vary", "Accept-Encoding"))
            else:
                headers[vary_at] = (headers[vary_at][0], _with_accept_encoding(vary))  # type: ignore[arg-type]
        if head:  # the app's own HEAD answer (the REST engine counts rows without reading them)
            start_response(status, headers)
            return result
        may_compress = compressible and not encoded and not ranged and code not in (204, 206, 304) and code >= 200
        tagged = code == 200 and not encoded and not ranged and method == "GET"
        if not isinstance(result, list):
            length = headers[length_at][1] if length_at >= 0 else ""
            small = length.isdigit() and int(length) <= STREAM_LIMIT
            if not ((may_compress or (tagged and etag is None)) and small):
                start_response(status, headers)
                return result
            try:
                whole = b"".join(result)
            finally:
                _close(result)
            result = [whole]
        body = result[0] if len(result) == 1 else b"".join(result)
        if not may_compress and not tagged:
            start_response(status, headers)
            return [body]

        accept = environ.get("HTTP_ACCEPT_ENCODING")
        coding = None
        if may_compress and accept:
            coding = accepted_encoding(accept, small=len(body) < MIN_SIZE) if body else None
        digest = self.store.digest(body) if (tagged and etag is None) or coding else ""
        if tagged:
            if etag is None:
                etag = f'"{digest}"'
                headers.append(("ETag", body_tag(digest, coding) if coding else etag))
            elif coding and etag.endswith('"'):
                headers = [(name, etag[:-1] + _TAG_SUFFIX[coding] + '"' if _KINDS.get(name) == _ETAG else value)
                           for name, value in headers]
            match = environ.get("HTTP_IF_NONE_MATCH")
            if match and none_match(match, etag):
                kept = [(name, value) for name, value in headers if _KINDS.get(name) not in _BODY_KINDS]
                start_response("304 Not Modified", kept)
                return _EMPTY
        if coding:
            body = self.store.compressed(body, digest, coding)
            headers.append(("Content-Encoding", coding))
            if length_at >= 0:
                headers[length_at] = (headers[length_at][0], str(len(body)))
            else:
                headers.append(("Content-Length", str(len(body))))
        elif length_at < 0:
            headers.append(("Content-Length", str(len(body))))
        start_response(status, headers)
        return [body]


# What the layer reads of each header, by its name as the app spells it (filled as names come).
_TYPE, _LENGTH, _VARY, _ETAG, _ENCODING, _RANGE = 1, 2, 3, 4, 5, 6
_KIND_OF_NAME = {"content-type": _TYPE, "content-length": _LENGTH, "vary": _VARY, "etag": _ETAG,
                 "content-encoding": _ENCODING, "content-range": _RANGE}
_KINDS: dict[str, int] = {}
# Headers that describe the body of a 200 and have no place on a 304 (RFC 9110 15.4.5).
_BODY_KINDS = frozenset({_TYPE, _LENGTH, _ENCODING, _RANGE})


@functools.lru_cache(maxsize=64)
def _with_accept_encoding(vary: str) -> str:
    """A ``Vary`` value that names Accept-Encoding (``*`` already covers it)."""
    if vary.strip() == "*" or "accept-encoding" in vary.lower():
        return vary
    return f"{vary}, Accept-Encoding" if vary.strip() else "Accept-Encoding"


def _kind_of(name: str) -> int:
    kind = _KIND_OF_NAME.get(name.lower(), 0)
    if len(_KINDS) < 4096:  # names come from the app, not from clients: a few dozen in all
        _KINDS[name] = kind
    return kind


def _close(result: Any) -> None:
    close = getattr(result, "close", None)
    if close is not None:
        close()
