"""The choice of storage back end: the one module that knows them all (storage.py the uploads
folder, s3.py the S3-compatible bucket), so that neither back end imports the other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .storage import UPLOADS_PATH, LocalStorage, Storage

if TYPE_CHECKING:
    from ..config import Settings

__all__ = ["build_storage"]


def build_storage(settings: Settings) -> Storage:
    """The storage of these settings (the site holds it as ``site.storage``): the S3-compatible
    bucket of ``CALPRESS_S3_BUCKET`` when set (media/s3.py), else the uploads folder."""
    if settings.s3_bucket:
        from .s3 import S3Storage  # only when configured: most sites never load it

        return S3Storage.from_settings(settings)
    return LocalStorage(settings.uploads_dir, UPLOADS_PATH)
