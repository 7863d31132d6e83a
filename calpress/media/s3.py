"""An S3-compatible bucket as the site's file storage (``CALPRESS_S3_BUCKET`` and friends).

Every request goes through ``calpress.net.Client`` (the guarded outbound client), never boto3 or
httpx directly: an endpoint on loopback or the private network must be allow-listed in
``CALPRESS_OUTBOUND_ALLOW`` (and its port, when not 80/443/8080, too), as for any outbound request.
Requests are signed here with AWS Signature Version 4 (path-style addressing,
``{endpoint}/{bucket}/{key}``), which AWS, MinIO, Ceph, R2, moto and the others all accept.

How it meets the ``Storage`` contract (media/storage.py):

* keys are checked with ``check_key`` before any request; the object name is
  ``{prefix}/{key}`` when ``CALPRESS_S3_PREFIX`` is set;
* ``put(..., overwrite=False)`` is atomic: a conditional PutObject with ``If-None-Match: *``,
  answered 412 (or 409 for a concurrent conditional write) when the name is taken, which becomes
  FileExistsError. AWS S3 honours it since August 2024, as do moto 5, MinIO and R2; a server that
  ignores the header would silently overwrite, so check yours before relying on unique names;
* a single PutObject stores the whole object or nothing; ``put_file`` sends a seekable stream
  in slices (its SHA-256 computed in a first pass), so a large upload never sits in memory;
* ``open`` downloads into a temporary file (in memory up to 8 MB, on disk beyond), refusing
  objects larger than ``max_object_bytes`` (256 MB unless told) with ``OutboundError("too_large")``;
* ``key_of`` reads a key back from its address; ``keys`` lists them (ListObjectsV2);
* ``size``/``exists`` use HEAD; 404 is FileNotFoundError. Note that AWS answers 403, not 404, for
  a missing object when the keys lack ``s3:ListBucket``: grant it, or missing files surface as
  ``S3Error`` instead of FileNotFoundError;
* any other status (403 for wrong keys, 5xx...) raises :class:`S3Error`, never a silent success.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import mimetypes
import re
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import quote, unquote, urlsplit
from xml.etree import ElementTree

from .. import net
from ..net.policy import DEFAULT_PORTS
from .storage import Storage, check_key

if TYPE_CHECKING:
    from ..config import Settings

__all__ = ["S3Error", "S3Storage", "sign_v4"]

_EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
#: Largest object ``open`` downloads, unless the storage is told otherwise.
MAX_OBJECT_BYTES = 256 * 1024 * 1024
# Objects are read and sent in slices of this size, and downloads stay in memory up to this.
_SLICE = 1024 * 1024
_SPOOL_IN_MEMORY = 8 * 1024 * 1024
#: Seconds one S3 call may take in all (the outbound policy's budget; uploads of a few MB to a
#: distant bucket need more than the 10 s of page fetches).
TIMEOUT = 60.0
#: Seconds ``write_problem`` keeps its verdict (readiness probes come every few seconds).
READY_TTL = 15.0


class S3Error(OSError):
    """The bucket answered something the storage cannot take as success, missing or taken: a
    refused signature (wrong keys: 403 ``SignatureDoesNotMatch``/``InvalidAccessKeyId``), a
    missing bucket, a server error. ``status`` is the HTTP status, ``code`` S3's error code ("" when
    the answer had no body, as for HEAD)."""

    def __init__(self, method: str, name: str, status: int, code: str, message: str) -> None:
        detail = f"{code}: {message}" if code else (message or "no error body")
        super().__init__(f"S3 {method} {name!r} failed with HTTP {status} ({detail})")
        self.status = status
        self.code = code


def _uri_encode(path: str) -> str:
    """A path encoded as SigV4 wants it: every byte but unreserved ones percent-encoded, slashes kept."""
    return "/".join(quote(segment, safe="-_.~") for segment in path.split("/"))


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def sign_v4(
    method: str,
    host: str,
    path: str,
    headers: Mapping[str, str],
    payload_sha256: str,
    *,
    access_key: str,
    secret_key: str,
    region: str,
    now: datetime,
    service: str = "s3",
    query: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The headers of a request signed with AWS Signature Version 4: the given ``headers`` plus
    ``Host``, ``x-amz-date``, ``x-amz-content-sha256`` and ``Authorization``. ``path`` is the
    already encoded path (``_uri_encode``); every header given is signed, and ``query`` (sent as
    :func:`canonical_query` writes it) too."""
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    day = amz_date[:8]
    signed = {name.lower(): " ".join(str(value).split()) for name, value in headers.items()}
    signed.update({"host": host, "x-amz-date": amz_date, "x-amz-content-sha256": payload_sha256})
    names = sorted(signed)
    canonical_headers = "".join(f"{name}:{signed[name]}\n" for name in names)
    signed_headers = ";".join(names)
    canonical_request = "\n".join([method, path, canonical_query(query or {}), canonical_headers, signed_headers, payload_sha256])
    scope = f"{day}/{region}/{service}/aws4_request"
    string_to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret_key}".encode(), day), region), service), "aws4_request")
    signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    result = dict(signed)
    result["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={signed_headers}, Signature={signature}"
    )
    return result


def canonical_query(query: Mapping[str, str]) -> str:
    """A query string as SigV4 signs it (and as it is sent): names sorted, every byte but
    unreserved ones percent-encoded."""
    return "&".join(f"{quote(name, safe='-_.~')}={quote(str(value), safe='-_.~')}" for name, value in sorted(query.items()))


def _error_detail(body: bytes) -> tuple[str, str]:
    """S3's ``<Code>`` and ``<Message>`` from an error body (read with a pattern, not an XML parser:
    the body is only reported)."""
    text = body[:4096].decode("utf-8", "replace")
    code = re.search(r"<Code>([^<]*)</Code>", text)
    message = re.search(r"<Message>([^<]*)</Message>", text)
    return (code.group(1) if code else ""), (message.group(1) if message else text.strip()[:200])


class S3Storage(Storage):
    """Files as objects of an S3-compatible bucket, addressed path-style (``{endpoint}/{bucket}/{key}``).

    ``client`` is the outbound client to send through; when not given, one is built from
    ``policy`` (whose allow-list must cover a private or loopback endpoint) and closed by
    ``close()``. ``public_url`` is the address serving the bucket's objects (a CDN, a public bucket
    website): ``url(key)`` is ``public_url/{prefix/}key``, else ``endpoint/bucket/{prefix/}key``.
    """

    def __init__(
        self,
        *,
        bucket: str,
        endpoint: str,
        access_key: str,
        secret_key: str,
        region: str = "us-east-1",
        prefix: str = "",
        public_url: str = "",
        client: net.Client | None = None,
        policy: net.NetPolicy | None = None,
        max_object_bytes: int = MAX_OBJECT_BYTES,
    ) -> None:
        if not bucket:
            raise ValueError("S3 storage: no bucket")
        parts = urlsplit(endpoint)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"S3 storage: endpoint {endpoint!r} is not an http(s) address")
        if parts.path.strip("/") or parts.query or parts.fragment or parts.username:
            raise ValueError(f"S3 storage: endpoint {endpoint!r} must be scheme://host[:port] only")
        self.bucket = bucket
        self.endpoint = f"{parts.scheme}://{parts.netloc}"
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        port = parts.port
        self._host = host if port in (None, DEFAULT_PORTS[parts.scheme]) else f"{host}:{port}"
        self.region = region or "us-east-1"
        self.prefix = prefix.strip("/")
        self.public_url = public_url.rstrip("/")
        self.max_object_bytes = max_object_bytes
        self._access_key = access_key
        self._secret_key = secret_key
        self._own_client = client is None
        self._ready: tuple[float, str | None] | None = None  # (when, write_problem's verdict)
        self.client = client if client is not None else net.Client(policy or net.NetPolicy(timeout=TIMEOUT))

    @classmethod
    def from_settings(cls, settings: Settings) -> S3Storage:
        """The bucket of ``CALPRESS_S3_*``, reached under the site's outbound policy (with a
        longer time budget and a size cap of ``MAX_OBJECT_BYTES``). No endpoint means AWS's own,
        ``https://s3.<region>.amazonaws.com``."""
        base = net.NetPolicy.from_settings(settings)
        region = settings.s3_region or "us-east-1"
        policy = net.NetPolicy(allowed_ports=base.allowed_ports, allow=base.allow, timeout=TIMEOUT,
                               max_bytes=MAX_OBJECT_BYTES)
        return cls(
            bucket=settings.s3_bucket,
            endpoint=settings.s3_endpoint or f"https://s3.{region}.amazonaws.com",
            access_key=settings.s3_access_key,
            secret_key=settings.s3_secret_key,
            region=region,
            prefix=settings.s3_prefix,
            public_url=settings.s3_public_url,
            policy=policy,
        )

    def __repr__(self) -> str:
        return f"S3Storage(endpoint={self.endpoint!r}, bucket={self.bucket!r}, prefix={self.prefix!r})"

    # ---- requests --------------------------------------------------------------------------------

    def _name(self, key: str) -> str:
        check_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _request(
        self,
        method: str,
        name: str | None,
        *,
        body: bytes | Iterable[bytes] | None = None,
        headers: Mapping[str, str] | None = None,
        max_bytes: int | None = None,
        query: Mapping[str, str] | None = None,
        payload_sha256: str | None = None,
        sink: BinaryIO | None = None,
    ) -> net.Fetched:
        """``method`` on the object ``name`` (None: the bucket itself), signed, through the
        client. A body given as an iterable of slices needs its ``payload_sha256`` (and a
        Content-Length header); ``sink`` receives a successful answer's body."""
        path = "/" + _uri_encode(self.bucket) + ("" if name is None else "/" + _uri_encode(name))
        if payload_sha256 is None:
            payload_sha256 = hashlib.sha256(body).hexdigest() if isinstance(body, bytes) else _EMPTY_SHA256
        signed = sign_v4(
            method, self._host, path, headers or {}, payload_sha256,
            access_key=self._access_key, secret_key=self._secret_key, region=self.region,
            now=datetime.now(UTC), query=query,
        )
        # Bodies are stored bytes: no transparent decompression of objects that happen to be gzip.
        signed["accept-encoding"] = "identity"
        url = self.endpoint + path + (f"?{canonical_query(query)}" if query else "")
        return self.client.request(method, url, headers=signed, content=body, max_bytes=max_bytes, sink=sink)

    def _fail(self, method: str, name: str, answer: net.Fetched) -> S3Error:
        code, message = _error_detail(answer.content)
        if not answer.content and answer.status == 403:
            message = "forbidden: check the access key, the secret key and the bucket's permissions"
        return S3Error(method, name, answer.status, code, message)

    def create_bucket(self) -> None:
        """Create the bucket (in ``us-east-1``'s form: no location body); one already ours is fine.
        For tests and first setup; the site itself never creates buckets."""
        body = b""
        if self.region != "us-east-1":
            body = (
                '<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
                f"<LocationConstraint>{self.region}</LocationConstraint></CreateBucketConfiguration>"
            ).encode()
        answer = self._request("PUT", None, body=body)
        if answer.status == 200:
            return
        code, _ = _error_detail(answer.content)
        if answer.status == 409 and code == "BucketAlreadyOwnedByYou":
            return
        raise self._fail("PUT", self.bucket, answer)

    # ---- the Storage contract --------------------------------------------------------------------

    def put(self, key: str, data: bytes, *, overwrite: bool = True) -> None:
        self._put(key, bytes(data), overwrite)

    def _put(
        self, key: str, body: bytes | Iterable[bytes], overwrite: bool, *, content_length: int | None = None,
        payload_sha256: str | None = None,
    ) -> None:
        name = self._name(key)
        headers = {"content-type": mimetypes.guess_type(key)[0] or "application/octet-stream"}
        if content_length is not None:
            headers["content-length"] = str(content_length)
        if not overwrite:
            headers["if-none-match"] = "*"
        answer = self._request("PUT", name, body=body, headers=headers, payload_sha256=payload_sha256)
        if answer.status == 200:
            return
        if not overwrite and answer.status in (409, 412):
            # 412 PreconditionFailed: the name is taken; 409 ConditionalRequestConflict: another
            # conditional write to it is under way (AWS). Either way it is not ours.
            raise FileExistsError(key)
        raise self._fail("PUT", name, answer)

    def put_file(self, key: str, stream: BinaryIO, *, overwrite: bool = True) -> None:
        """``put`` of a stream, sent in slices: a seekable stream (a spooled upload) is read once
        for its length and SHA-256, then again as it is sent, so a large file never sits in
        memory. Other streams are read whole, as the base class does."""
        try:
            start = stream.tell()
            stream.seek(0, io.SEEK_END)
            length = stream.tell() - start
            stream.seek(start)
        except (AttributeError, OSError, ValueError):
            super().put_file(key, stream, overwrite=overwrite)
            return
        digest = hashlib.sha256()
        for piece in iter(lambda: stream.read(_SLICE), b""):
            digest.update(piece)
        stream.seek(start)

        def slices() -> Iterator[bytes]:
            remaining = length
            while remaining > 0:
                piece = stream.read(min(_SLICE, remaining))
                if not piece:
                    raise OSError(f"the stream for {key!r} ended {remaining} bytes early")
                remaining -= len(piece)
                yield piece

        self._put(key, slices(), overwrite, content_length=length, payload_sha256=digest.hexdigest())

    def open(self, key: str) -> BinaryIO:
        """The object, downloaded into a temporary file that stays in memory up to 8 MB and goes
        to disk beyond (never more than ``max_object_bytes``)."""
        name = self._name(key)
        spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115 (the caller closes it)
        try:
            answer = self._request("GET", name, max_bytes=self.max_object_bytes, sink=spool)
        except BaseException:
            spool.close()
            raise
        if answer.status == 200:
            spool.seek(0)
            return spool  # type: ignore[return-value]
        spool.close()
        if answer.status == 404:
            raise FileNotFoundError(key)
        raise self._fail("GET", name, answer)

    def key_of(self, url: str) -> str | None:
        base = self.public_url or f"{self.endpoint}/{_uri_encode(self.bucket)}"
        base += "/" + (_uri_encode(self.prefix) + "/" if self.prefix else "")
        address = url.split("#", 1)[0].split("?", 1)[0]
        if not address.startswith(base):
            return None
        try:
            return check_key(unquote(address[len(base):]))
        except ValueError:
            return None

    def keys(self, prefix: str = "") -> Iterator[str]:
        """The keys under ``prefix``, listed with ListObjectsV2 a thousand at a time."""
        root = f"{self.prefix}/" if self.prefix else ""
        token = ""
        while True:
            query = {"list-type": "2", "prefix": root + prefix}
            if token:
                query["continuation-token"] = token
            answer = self._request("GET", None, query=query)
            if answer.status != 200:
                raise self._fail("GET", self.bucket, answer)
            tree = ElementTree.fromstring(answer.content)
            for node in tree.iter():
                if node.tag.rsplit("}", 1)[-1] == "Key" and node.text and node.text.startswith(root):
                    yield node.text[len(root):]
            truncated = next((n.text for n in tree.iter() if n.tag.rsplit("}", 1)[-1] == "IsTruncated"), "false")
            token = next((n.text or "" for n in tree.iter() if n.tag.rsplit("}", 1)[-1] == "NextContinuationToken"), "")
            if truncated != "true" or not token:
                return

    def delete(self, key: str) -> None:
        name = self._name(key)
        answer = self._request("DELETE", name)
        if answer.status in (200, 204, 404):
            return
        raise self._fail("DELETE", name, answer)

    def url(self, key: str) -> str:
        name = self._name(key)
        base = self.public_url or f"{self.endpoint}/{_uri_encode(self.bucket)}"
        return f"{base}/{_uri_encode(name)}"

    def size(self, key: str) -> int:
        name = self._name(key)
        answer = self._request("HEAD", name)
        if answer.status == 200:
            length = answer.headers.get("content-length", "")
            if not length.isdigit():
                raise S3Error("HEAD", name, answer.status, "", "no Content-Length in the answer")
            return int(length)
        if answer.status == 404:
            raise FileNotFoundError(key)
        raise self._fail("HEAD", name, answer)

    def write_problem(self) -> str | None:
        """A HEAD of the bucket (HeadBucket: reachable, the keys accepted, the bucket there), its
        verdict kept for ``READY_TTL`` seconds so that probes from several balancers cost one
        request now and then. Nothing is written: a trial object would cost a PUT and a DELETE
        per probe (and leave delete markers in a versioned bucket). HeadBucket needs
        ``s3:ListBucket``, which ``size`` and ``exists`` need anyway (see above)."""
        now = time.monotonic()
        kept = self._ready
        if kept is not None and now - kept[0] < READY_TTL:
            return kept[1]
        try:
            answer = self._request("HEAD", None)
        except net.OutboundError as error:
            problem: str | None = f"the S3 endpoint {self.endpoint} could not be reached: {error.message}"
        else:
            if answer.status == 200:
                problem = None
            elif answer.status == 404:
                problem = f"the S3 bucket {self.bucket} does not exist at {self.endpoint}"
            elif answer.status == 403:
                problem = f"the S3 endpoint {self.endpoint} refused the access key for the bucket {self.bucket}"
            else:
                problem = f"the S3 bucket {self.bucket} answered with the HTTP status {answer.status}"
        self._ready = (now, problem)
        return problem

    def write_fix(self) -> str:
        return ("Check CALPRESS_S3_BUCKET, CALPRESS_S3_ENDPOINT and the S3 keys (which need s3:ListBucket on the bucket), "
                "and that the endpoint is reachable and allow-listed in CALPRESS_OUTBOUND_ALLOW when private.")

    def close(self) -> None:
        if self._own_client:
            self.client.close()
