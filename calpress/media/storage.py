"""File storage: the one seam every uploaded file goes through, and its local implementation.

``Storage`` is a small abstract class, shaped like httpx's transport base class
(``httpx/_transports/base.py``): a handful of documented methods and nothing else, so that a second
back end (an S3-compatible bucket, media/s3.py) is one subclass and one line in
:func:`calpress.media.backends.build_storage`.
``LocalStorage`` keeps the files in the uploads folder, as the reference's ``wp-content/uploads``.
"""

from __future__ import annotations

import abc
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote, unquote, urlsplit

__all__ = [
    "UPLOADS_PATH", "InvalidKey", "LocalStorage", "Storage", "absolute_url", "check_key", "served_url",
]

# Where this site serves the files of a storage that has no address of its own (pages/uploads.py),
# the reference's uploads address.
UPLOADS_PATH = "/wp-content/uploads/"
# Unique names are tried up to this many numbers (photo-1.jpg ... photo-9999.jpg), then refused.
_MAX_UNIQUE = 10_000


class InvalidKey(ValueError):
    """A key the storage refuses: empty, absolute, or with ``.``/``..`` or empty parts, a NUL or
    a backslash. Never a "missing file": the key could not name a file of the storage at all."""


def check_key(key: str) -> str:
    """``key`` when it is a relative path that stays inside the storage; raises InvalidKey."""
    if not isinstance(key, str) or not key:
        raise InvalidKey("empty key")
    if "\x00" in key or "\\" in key:
        raise InvalidKey(f"refused character in key {key!r}")
    if key.startswith("/"):
        raise InvalidKey(f"absolute key {key!r}")
    if any(part in ("", ".", "..") for part in key.split("/")):
        raise InvalidKey(f"key {key!r} does not name one file below the storage")
    return key


def absolute_url(url: str, home: str) -> str:
    """A storage address made absolute: a path (``/wp-content/uploads/...``, served by this
    site) is joined to the site's home address; an absolute address is kept."""
    if url.startswith("/") and not url.startswith("//"):
        return home.rstrip("/") + url
    return url


def served_url(key: str, base_url: str = UPLOADS_PATH) -> str:
    """The address of ``key`` under ``base_url`` (a folder's address, ending in ``/``).

    Keys may hold characters a URL cannot carry as they are (the ``%`` of a percent-encoded
    title): the address encodes them, and the uploads page, which reads the decoded path, finds
    the key again. The key is not checked here (``LocalStorage.url`` checks it first)."""
    return base_url + quote(key, safe="/")


def _numbered(key: str, number: int) -> str:
    """``2026/01/photo.jpg`` as ``2026/01/photo-<number>.jpg`` (the reference's unique names)."""
    folder, _, name = key.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem:
        stem, extension = name, ""
    numbered = f"{stem}-{number}" + (f".{extension}" if dot and extension else "")
    return f"{folder}/{numbered}" if folder else numbered


class Storage(abc.ABC):
    """Where uploaded files are kept, by key.

    Usage::

        key = site.storage.put_unique("2026/01/poster.jpg", data)   # "2026/01/poster-1.jpg" if taken
        with site.storage.open(key) as stream:
            body = stream.read()
        site.storage.size(key), site.storage.url(key)              # 48213, "/wp-content/uploads/2026/01/poster-1.jpg"
        site.storage.delete(key)

    The contract, for every implementation:

    * A key is a relative POSIX path such as ``2026/01/poster.jpg``. Keys never leave the
      storage: an empty or absolute key, ``.``/``..`` or empty parts, a NUL or a backslash are
      refused with :class:`InvalidKey` (a ValueError) by every method, before anything is read or
      written (:func:`check_key`).
    * "Missing" is :class:`FileNotFoundError`, from ``open`` and ``size``: nothing is stored
      under the key (a folder is not a file, and a local file reached through a link leading out
      of the storage counts as missing). ``delete`` of a missing key is not an error.
    * ``put`` stores the whole content or nothing (readers never see a partial file);
      ``overwrite=False`` raises FileExistsError when the key is taken, atomically, so two
      processes choosing names concurrently never overwrite each other.
    * ``url`` is the public address of a key, whether or not it is stored: absolute (a bucket,
      a CDN), or a path from the site's home for files this site serves itself (``pages/uploads.py``
      reads them through ``open``); :func:`absolute_url` joins such a path to the home address.

    Subclasses implement ``put``, ``open``, ``delete``, ``url`` and ``size``; ``exists``,
    ``put_unique`` and ``close`` are built on them and may be overridden.
    """

    @abc.abstractmethod
    def put(self, key: str, data: bytes, *, overwrite: bool = True) -> None:
        """Store ``data`` under ``key``. Raises FileExistsError when ``overwrite`` is false and
        the key is taken."""

    @abc.abstractmethod
    def open(self, key: str) -> BinaryIO:
        """The stored file, opened for binary reading; the caller closes it. Raises
        FileNotFoundError when nothing is stored under ``key``."""

    @abc.abstractmethod
    def delete(self, key: str) -> None:
        """Remove the file stored under ``key``, if any."""

    @abc.abstractmethod
    def url(self, key: str) -> str:
        """The public address of ``key``: absolute, or a path from the site's home."""

    @abc.abstractmethod
    def size(self, key: str) -> int:
        """The size in bytes of the file under ``key``. Raises FileNotFoundError when missing."""

    def key_of(self, url: str) -> str | None:
        """The key whose ``url`` is ``url`` (the inverse of ``url``; any query or fragment is
        ignored), or None when the address is not one of this storage's. Whether a file is
        stored under the key is not checked."""
        return None

    def keys(self, prefix: str = "") -> Iterator[str]:
        """The keys of every stored file whose key starts with ``prefix``, in no set order."""
        raise NotImplementedError(f"{type(self).__name__} cannot list its files")

    def put_file(self, key: str, stream: BinaryIO, *, overwrite: bool = True) -> None:
        """Store the content of ``stream`` (read from where it stands to its end) under ``key``,
        as ``put``. This default reads it whole; a storage that can copy a stream in slices
        overrides it (a large upload then never sits in memory)."""
        self.put(key, stream.read(), overwrite=overwrite)

    def exists(self, key: str) -> bool:
        """Whether a file is stored under ``key``."""
        try:
            self.size(key)
        except FileNotFoundError:
            return False
        return True

    def put_unique(self, key: str, data: bytes | BinaryIO, *, also_free: Callable[[str], Iterable[str]] | None = None) -> str:
        """Store ``data`` under ``key`` or, when it is taken, under the first free of
        ``name-1.ext``, ``name-2.ext``... (the reference's wp_unique_filename); returns the key
        used. ``also_free(candidate)`` names further keys a candidate needs free (an image's
        sub-size files, which must not overwrite another upload's)."""
        check_key(key)
        for number in range(_MAX_UNIQUE):
            candidate = key if number == 0 else _numbered(key, number)
            if also_free is not None and any(self.exists(other) for other in also_free(candidate)):
                continue
            try:
                if isinstance(data, bytes):
                    self.put(candidate, data, overwrite=False)
                else:  # a stream (a spooled upload): from its start on every attempt
                    data.seek(0)
                    self.put_file(candidate, data, overwrite=False)
            except FileExistsError:
                continue
            return candidate
        raise FileExistsError(f"no free name for {key!r}")

    def close(self) -> None:  # noqa: B027 (optional: most storages hold nothing)
        """Release what the storage holds (connections); the site calls it on close."""

    def write_problem(self) -> str | None:
        """Why a file could not be stored now, in a sentence for the operator, or None when
        nothing stands in the way. The readiness probe (``/readyz``) and ``calpress doctor`` ask
        it, often: it must be cheap and leave nothing behind. A back end that cannot tell
        answers None."""
        return None

    def write_fix(self) -> str:
        """One sentence telling the operator how to fix what ``write_problem`` reported."""
        return "Check the settings of the file storage."


class LocalStorage(Storage):
    """Files in a folder of the local disk (the uploads folder), served by this site at
    ``base_url``: a path from the site's home (by default the reference's
    ``/wp-content/uploads/``) or an absolute address of whatever serves the folder."""

    def __init__(self, folder: Path | str, base_url: str = UPLOADS_PATH) -> None:
        self.folder = Path(folder)
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"

    def _path(self, key: str) -> Path:
        """The file of ``key``, after checking that it resolves inside the folder (a link may
        point anywhere; what it reaches outside the folder is not ours to serve or overwrite)."""
        check_key(key)
        root = self.folder.resolve()
        target = (root / key).resolve()
        if root not in target.parents:
            raise FileNotFoundError(key)
        return target

    def put(self, key: str, data: bytes, *, overwrite: bool = True) -> None:
        self._place(key, lambda temporary: temporary.write_bytes(data), overwrite)

    def put_file(self, key: str, stream: BinaryIO, *, overwrite: bool = True) -> None:
        def copy(temporary: Path) -> None:
            with temporary.open("wb") as out:
                shutil.copyfileobj(stream, out, 1024 * 1024)

        self._place(key, copy, overwrite)

    def _place(self, key: str, write: Callable[[Path], Any], overwrite: bool) -> None:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Written under a private name first, then moved into place in one step: readers and
        # other writers see the whole file or none.
        temporary = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part"
        try:
            write(temporary)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        try:
            if overwrite:
                os.replace(temporary, target)
            else:
                os.link(temporary, target)  # FileExistsError when taken, atomically
        finally:
            temporary.unlink(missing_ok=True)

    def open(self, key: str) -> BinaryIO:
        target = self._path(key)
        if not target.is_file():
            raise FileNotFoundError(key)
        return target.open("rb")

    def delete(self, key: str) -> None:
        try:
            target = self._path(key)
        except FileNotFoundError:
            return
        if target.is_file():
            target.unlink(missing_ok=True)

    def url(self, key: str) -> str:
        return served_url(check_key(key), self.base_url)

    def key_of(self, url: str) -> str | None:
        # The folder's address may be a path from the home address (on any host: the site may be
        # reached under several names) or an absolute address; a site in a sub-folder has its
        # uploads path further down the URL's path.
        base = urlsplit(self.base_url)
        parts = urlsplit(url)
        if base.netloc and (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
            return None
        marker = parts.path.find(base.path)
        if marker < 0 or (base.netloc and marker > 0):
            return None
        key = unquote(parts.path[marker + len(base.path):])
        try:
            return check_key(key)
        except InvalidKey:
            return None

    def keys(self, prefix: str = "") -> Iterator[str]:
        root = self.folder.resolve()
        if not root.is_dir():
            return
        for path in root.rglob("*"):
            if path.is_file() and not path.name.endswith(".part"):
                key = path.relative_to(root).as_posix()
                if key.startswith(prefix):
                    yield key

    def size(self, key: str) -> int:
        target = self._path(key)
        if not target.is_file():
            raise FileNotFoundError(key)
        return target.stat().st_size

    def exists(self, key: str) -> bool:
        try:
            return self._path(key).is_file()
        except FileNotFoundError:
            return False

    def write_problem(self) -> str | None:
        """A file made and removed at once in the folder (the truth about permissions, ACLs,
        read-only or full file systems, whoever the process runs as). A folder not made yet is
        fine when it can be made (``put`` makes it): its nearest existing parent must be a
        writable folder. The file is named as a part file, which ``keys`` never lists."""
        folder = self.folder
        existing = folder
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if existing != folder:
            if not existing.is_dir():
                return f"the uploads folder {folder} cannot be made: {existing} is not a folder"
            if not os.access(existing, os.W_OK | os.X_OK):
                return f"the uploads folder {folder} does not exist and cannot be made in {existing}"
            return None
        if not folder.is_dir():
            return f"the uploads folder {folder} is not a folder"
        try:
            handle, name = tempfile.mkstemp(prefix=".ready-", suffix=".part", dir=folder)
            os.close(handle)
            os.unlink(name)
        except OSError as error:
            return f"the uploads folder {folder} is not writable ({error.strerror or error})"
        return None

    def write_fix(self) -> str:
        return (f"Make {self.folder} a folder the user calpress runs as can write to, or point CALPRESS_UPLOADS_DIR "
                "at one.")
