"""A WXR export sent while it is written: the command line's exporter (transfer/wxr_export.py)
writes into a bounded queue from a thread of its own, and the answer's body reads the queue.

The exporter writes to a file object as it reads the items, a batch at a time, so the file is
never whole in memory; here at most :data:`QUEUED` slices of :data:`SLICE` bytes wait between
the two. When the client stops reading, the exporter waits (its read transaction stays open
meanwhile, as for ``calpress export wxr -`` piped into a slow reader); when the client goes,
the body is closed and the exporter's next write stops it. An export that fails half way ends
the answer with an error, so the server breaks the connection off instead of ending a cut file
as if it were whole.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ..transfer.wxr_export import export_wxr

__all__ = ["ExportFailed", "export_chunks"]

log = logging.getLogger("calpress.admin.export")

SLICE = 64 * 1024
QUEUED = 16
_END = object()


class ExportFailed(RuntimeError):
    """The exporter stopped before the end of the file (its error is in the log)."""


class _Gone(Exception):
    """The reader went away: the exporter stops."""


class _Pipe:
    """The exporter's ``out``: bytes gathered into slices and handed to the reader's queue."""

    def __init__(self) -> None:
        self.slices: queue.Queue[Any] = queue.Queue(maxsize=QUEUED)
        self.gone = threading.Event()
        self._buffer = bytearray()

    def write(self, data: bytes) -> int:
        self._buffer += data
        if len(self._buffer) >= SLICE:
            self.put(bytes(self._buffer))
            self._buffer.clear()
        return len(data)

    def flush(self) -> None:
        if self._buffer:
            self.put(bytes(self._buffer))
            self._buffer.clear()

    def put(self, item: Any) -> None:
        """Hand ``item`` over, waiting while the queue is full, until the reader has gone."""
        while True:
            if self.gone.is_set():
                raise _Gone
            try:
                self.slices.put(item, timeout=0.5)
                return
            except queue.Full:
                continue


def _produce(site: Any, pipe: _Pipe, post_types: Sequence[str], fallback_address: str) -> None:
    try:
        export_wxr(site, pipe, post_types=list(post_types), fallback_address=fallback_address)  # type: ignore[arg-type]
        pipe.flush()
        pipe.put(_END)
    except _Gone:
        return
    except BaseException as error:  # noqa: BLE001 - handed to the reader, which raises it
        log.exception("the export stopped")
        try:
            pipe.put(error)
        except _Gone:
            return


def export_chunks(site: Any, post_types: Sequence[str], fallback_address: str = "") -> Iterator[bytes]:
    """The WXR file of ``post_types`` as it is written (an answer body; nothing starts until it
    is first read), its addresses ``fallback_address`` when the site has none of its own. Raises
    ExportFailed at the point where the exporter failed."""
    pipe = _Pipe()
    thread = threading.Thread(target=_produce, args=(site, pipe, post_types, fallback_address), name="calpress-export",
                              daemon=True)
    thread.start()
    try:
        while True:
            try:
                item = pipe.slices.get(timeout=1.0)
            except queue.Empty:
                if not thread.is_alive() and pipe.slices.empty():
                    raise ExportFailed("the export ended without finishing the file") from None
                continue
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise ExportFailed("the export stopped before the end of the file") from item
            yield item
    finally:
        pipe.gone.set()
        while True:  # let a writer waiting on a full queue see that the reader is gone
            try:
                pipe.slices.get_nowait()
            except queue.Empty:
                break
