"""A storage double for the seam tests: files in a dict, no disk."""

from __future__ import annotations

import io
import threading
from typing import BinaryIO

from calpress.media.storage import UPLOADS_PATH, Storage, check_key


class MemoryStorage(Storage):
    """The whole ``Storage`` contract over a dict, addressed at ``base_url``."""

    def __init__(self, base_url: str = UPLOADS_PATH) -> None:
        self.files: dict[str, bytes] = {}
        self.base_url = base_url
        self.closed = False
        self._lock = threading.Lock()

    def put(self, key: str, data: bytes, *, overwrite: bool = True) -> None:
        check_key(key)
        with self._lock:
            if not overwrite and key in self.files:
                raise FileExistsError(key)
            self.files[key] = bytes(data)

    def open(self, key: str) -> BinaryIO:
        check_key(key)
        try:
            return io.BytesIO(self.files[key])
        except KeyError:
            raise FileNotFoundError(key) from None

    def delete(self, key: str) -> None:
        check_key(key)
        with self._lock:
            self.files.pop(key, None)

    def url(self, key: str) -> str:
        return self.base_url + check_key(key)

    def size(self, key: str) -> int:
        check_key(key)
        try:
            return len(self.files[key])
        except KeyError:
            raise FileNotFoundError(key) from None

    def close(self) -> None:
        self.closed = True
