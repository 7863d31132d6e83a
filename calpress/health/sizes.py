"""The directory sizes of the site health report (``/cms-site-health/v1/directory-sizes``), measured
as the reference's ``WP_Debug_Data::get_sizes`` measures its folders, with calpress's folders in
their places (:func:`directory_sizes` says which stands for which)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from ..media.storage import LocalStorage
from ..store import db as store_db

if TYPE_CHECKING:
    from ..site import Site

#: Seconds the directory sizes may take in all (the reference stops near PHP's time limit).
SIZE_BUDGET = 20.0
#: The calpress package: the code that runs, what stands for the reference's install folder.
PACKAGE_DIR = Path(__file__).resolve().parent.parent
#: The public site's look (Jinja2 templates, stylesheet and script): what stands for themes.
THEME_DIRS = (PACKAGE_DIR / "templates", PACKAGE_DIR / "static")


@dataclass(frozen=True)
class DirectorySize:
    """One entry of the directory sizes: ``size`` for people, ``debug`` for logs, ``raw`` in bytes
    (0, and left out of the wire shape, when not measured)."""

    size: str
    debug: str
    raw: int = 0

    @classmethod
    def of(cls, raw: int) -> DirectorySize:
        size = size_format(raw)
        return cls(size, f"{size} ({raw} bytes)", raw)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"size": self.size, "debug": self.debug}
        if self.raw:
            data["raw"] = self.raw
        return data


_MISSING = DirectorySize("The directory does not exist.", "directory not found")
_NOT_ACCESSIBLE = DirectorySize(
    "The size cannot be calculated. The directory is not accessible. Usually caused by invalid permissions.", "not accessible"
)
_TIMED_OUT = DirectorySize(
    "The directory size calculation has timed out. Usually caused by a very large number of sub-directories and files.",
    "timeout while calculating size",
)
_IN_BUCKET = DirectorySize(
    "The size cannot be calculated here: uploaded files are kept in an S3-compatible bucket.", "not available"
)
_NO_DATABASE = DirectorySize("Not available", "not available")
_NO_TOTAL = DirectorySize(
    "Total size is not available. Some errors were encountered when determining the size of your installation.",
    "not available",
)
_UNITS = (("TB", 1024**4), ("GB", 1024**3), ("MB", 1024**2), ("KB", 1024), ("B", 1))


def size_format(size: int, decimals: int = 2) -> str:
    """Bytes for people, as the reference's size_format: ``12.34 MB``, ``0.00 B``, ``1,023.00 B``
    (1024-based units, rounded half away from zero, comma thousands separators)."""
    for unit, magnitude in _UNITS:
        if size >= magnitude or unit == "B":
            quantum = Decimal(1).scaleb(-decimals)
            value = (Decimal(size) / Decimal(magnitude)).quantize(quantum, rounding=ROUND_HALF_UP)
            return f"{value:,.{decimals}f} {unit}"
    raise AssertionError("unreachable")


class _Timeout(Exception):
    pass


def _tree_size(root: Path, skip: frozenset[Path], deadline: float) -> int:
    """Bytes of the files under ``root`` (links not followed), leaving out the folders in
    ``skip``. Raises OSError when a folder cannot be read, _Timeout past ``deadline``."""
    total = 0
    folders = [root]
    while folders:
        if time.monotonic() > deadline:
            raise _Timeout
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if Path(entry.path) not in skip:
                        folders.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
    return total


def _measure(folders: Iterable[Path], skip: frozenset[Path], deadline: float) -> tuple[DirectorySize, int | None]:
    """The entry of ``folders`` together (what exists of them) and the bytes it adds to the
    total (None when it spoils the total)."""
    present = [folder for folder in folders if folder.is_dir()]
    if not present:
        return _MISSING, 0
    try:
        raw = sum(_tree_size(folder, skip, deadline) for folder in present)
    except _Timeout:
        return _TIMED_OUT, None
    except OSError:
        return _NOT_ACCESSIBLE, None
    return DirectorySize.of(raw), raw


def directory_sizes(site: Site, *, budget: float | None = None) -> dict[str, DirectorySize]:
    """The reference's directory sizes for this site, in its order:

    - ``wordpress_size``: the calpress package folder (the code that runs), without the folders
      counted under another entry;
    - ``themes_size``: the templates and static files of the public site, its look;
    - ``plugins_size`` and ``fonts_size``: calpress has neither, so "The directory does not exist.";
    - ``uploads_size``: the uploads folder; with an S3-compatible bucket, "not available" (listing
      a bucket to add up its objects' sizes is no quick check), and the total is then the total
      of what this server keeps;
    - ``database_size``: the site's tables (``store.db.database_size``);
    - ``total_size``: their sum, or "not available" when a folder could not be read or measured
      in time, or the database size is unknown (the REST route then answers 500).

    ``budget``: seconds all the folders may take together (``SIZE_BUDGET`` by default).
    """
    deadline = time.monotonic() + (SIZE_BUDGET if budget is None else budget)
    uploads = site.storage.folder if isinstance(site.storage, LocalStorage) else None
    folders: dict[str, tuple[Path, ...]] = {
        "wordpress_size": (PACKAGE_DIR,),
        "themes_size": THEME_DIRS,
        "plugins_size": (),
        "uploads_size": (uploads,) if uploads is not None else (),
        "fonts_size": (),
    }
    nested = frozenset(folder.resolve() for name, paths in folders.items() if name != "wordpress_size" for folder in paths)
    sizes: dict[str, DirectorySize] = {}
    total: int | None = 0
    for name, paths in folders.items():
        if name == "uploads_size" and uploads is None:
            sizes[name] = _IN_BUCKET
            continue
        entry, added = _measure((path.resolve() for path in paths), nested if name == "wordpress_size" else frozenset(), deadline)
        sizes[name] = entry
        total = None if total is None or added is None else total + added
    try:
        with site.read() as conn:
            database = store_db.database_size(conn)
    except sa.exc.SQLAlchemyError:
        database = 0
    sizes["database_size"] = DirectorySize.of(database) if database > 0 else _NO_DATABASE
    sizes["total_size"] = DirectorySize.of(total + database) if total is not None and database > 0 else _NO_TOTAL
    return sizes


def wire_sizes(sizes: Mapping[str, DirectorySize]) -> dict[str, Any]:
    """The REST answer of the directory sizes: ``raw: 0`` first, as the reference's."""
    return {"raw": 0, **{name: entry.to_dict() for name, entry in sizes.items()}}
