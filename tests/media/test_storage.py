"""The storage seam (calpress/media/storage.py): the contract, on the local folder and on an
in-memory double alike, then what only the local folder has (links, atomic writes), and the
site's storage."""

from __future__ import annotations

import os
import threading

import pytest
from storage_support import MemoryStorage

from calpress.app import build_site
from calpress.config import load_settings
from calpress.media.backends import build_storage
from calpress.media.storage import (
    UPLOADS_PATH,
    InvalidKey,
    LocalStorage,
    Storage,
    absolute_url,
    check_key,
    served_url,
)

REFUSED_KEYS = [
    "", "/etc/passwd", "//etc/passwd", "..", "../secret.txt", "2026/../../secret.txt", "2026/..", "./a.png", "2026/./a.png",
    "2026//a.png", "2026/01/", "a\x00.png", "2026\\01\\a.png", "..\\secret.txt",
]


@pytest.fixture(params=["local", "memory"])
def storage(request, tmp_path) -> Storage:
    if request.param == "local":
        return LocalStorage(tmp_path / "uploads")
    return MemoryStorage()


def read(storage: Storage, key: str) -> bytes:
    with storage.open(key) as stream:
        return stream.read()


# -- the contract ---------------------------------------------------------------------------------


def test_put_open_size_url_delete(storage):
    storage.put("2026/01/poster.jpg", b"first")
    assert read(storage, "2026/01/poster.jpg") == b"first"
    assert storage.size("2026/01/poster.jpg") == 5 and storage.exists("2026/01/poster.jpg")
    assert storage.url("2026/01/poster.jpg") == "/wp-content/uploads/2026/01/poster.jpg"
    storage.put("2026/01/poster.jpg", b"second one")  # overwrite is the default
    assert read(storage, "2026/01/poster.jpg") == b"second one" and storage.size("2026/01/poster.jpg") == 10
    with pytest.raises(FileExistsError):
        storage.put("2026/01/poster.jpg", b"third", overwrite=False)
    assert read(storage, "2026/01/poster.jpg") == b"second one"
    storage.delete("2026/01/poster.jpg")
    assert not storage.exists("2026/01/poster.jpg")
    storage.delete("2026/01/poster.jpg")  # deleting what is missing is no error


def test_missing_keys_are_file_not_found(storage):
    storage.put("2026/01/a.png", b"x")
    for key in ("2026/01/b.png", "2026/01", "2026", "2026/01/a.png/more"):
        with pytest.raises(FileNotFoundError):
            storage.open(key)
        with pytest.raises(FileNotFoundError):
            storage.size(key)
        assert not storage.exists(key)


def test_unique_names(storage):
    assert storage.put_unique("2026/01/photo.jpg", b"1") == "2026/01/photo.jpg"
    assert storage.put_unique("2026/01/photo.jpg", b"2") == "2026/01/photo-1.jpg"
    assert storage.put_unique("2026/01/photo.jpg", b"3") == "2026/01/photo-2.jpg"
    assert [read(storage, f"2026/01/{name}") for name in ("photo.jpg", "photo-1.jpg", "photo-2.jpg")] == [b"1", b"2", b"3"]
    assert storage.put_unique("2026/02/photo.jpg", b"4") == "2026/02/photo.jpg"  # per folder
    assert storage.put_unique("notes", b"5") == "notes" and storage.put_unique("notes", b"6") == "notes-1"
    # A candidate is skipped when the keys it needs besides are taken (an image's sub-sizes).
    storage.put("2026/03/photo-150x150.jpg", b"someone else's original")
    chosen = storage.put_unique("2026/03/photo.jpg", b"7", also_free=lambda key: [key.replace(".jpg", "-150x150.jpg")])
    assert chosen == "2026/03/photo-1.jpg" and not storage.exists("2026/03/photo.jpg")


def test_unique_names_under_concurrent_writers(storage):
    chosen: list[str] = []

    def work(n: int) -> None:
        chosen.append(storage.put_unique("2026/01/same.png", f"writer {n}".encode()))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(chosen)) == 8
    assert sorted(read(storage, key) for key in chosen) == sorted(f"writer {n}".encode() for n in range(8))


@pytest.mark.parametrize("key", REFUSED_KEYS)
def test_keys_never_leave_the_storage(storage, key):
    for call in (
        lambda: storage.put(key, b"x"),
        lambda: storage.put_unique(key, b"x"),
        lambda: storage.open(key),
        lambda: storage.size(key),
        lambda: storage.exists(key),
        lambda: storage.delete(key),
        lambda: storage.url(key),
    ):
        with pytest.raises(InvalidKey):
            call()


def test_check_key():
    assert check_key("2026/01/poster.jpg") == "2026/01/poster.jpg"
    assert issubclass(InvalidKey, ValueError)
    for key in REFUSED_KEYS:
        with pytest.raises(InvalidKey):
            check_key(key)


def test_addresses():
    assert served_url("2026/01/%e6%97%a5.png") == "/wp-content/uploads/2026/01/%25e6%2597%25a5.png"
    assert LocalStorage("/nowhere", "https://cdn.example.test/m").url("2026/01/a b.png") == "https://cdn.example.test/m/2026/01/a%20b.png"
    assert absolute_url("/wp-content/uploads/a.png", "http://example.test/blog/") == "http://example.test/blog/wp-content/uploads/a.png"
    assert absolute_url("https://cdn.example.test/a.png", "http://example.test") == "https://cdn.example.test/a.png"
    assert absolute_url("//cdn.example.test/a.png", "http://example.test") == "//cdn.example.test/a.png"


# -- the local folder -----------------------------------------------------------------------------


def test_local_files_are_where_the_keys_say(tmp_path):
    storage = LocalStorage(tmp_path / "uploads")
    key = storage.put_unique("2026/01/poster.png", b"data")
    assert (tmp_path / "uploads" / "2026" / "01" / "poster.png").read_bytes() == b"data"
    # Written under a private name and moved into place: nothing else is left in the folder.
    storage.put_unique(key, b"more")
    assert sorted(p.name for p in (tmp_path / "uploads" / "2026" / "01").iterdir()) == ["poster-1.png", "poster.png"]


def test_local_keys_and_addresses_read_back(tmp_path):
    storage = LocalStorage(tmp_path / "uploads")
    assert list(storage.keys()) == []  # no folder yet
    for key in ["2026/01/a.png", "2026/01/a-150x150.png", "2026/02/b é.jpg"]:
        storage.put(key, b"x")
    (tmp_path / "uploads" / "2026" / "01" / ".c.png.1.ab.part").write_bytes(b"half")  # a write under way
    assert sorted(storage.keys()) == ["2026/01/a-150x150.png", "2026/01/a.png", "2026/02/b é.jpg"]
    assert sorted(storage.keys("2026/02/")) == ["2026/02/b é.jpg"]
    for key in ["2026/01/a.png", "2026/02/b é.jpg", "x/100%+done.txt"]:
        assert storage.key_of(storage.url(key)) == key
        assert storage.key_of("http://example.test" + storage.url(key) + "?v=1") == key
    assert storage.key_of("http://example.test/blog/wp-content/uploads/2026/01/a.png") == "2026/01/a.png"
    for foreign in ["http://example.test/files/a.png", "http://example.test/wp-content/uploads/../x",
                    "http://example.test/wp-content/uploads/"]:
        assert storage.key_of(foreign) is None
    cdn = LocalStorage(tmp_path / "uploads", "https://cdn.example.test/m/")
    assert cdn.key_of("https://cdn.example.test/m/2026/01/a.png") == "2026/01/a.png"
    assert cdn.key_of("https://other.test/m/2026/01/a.png") is None
    assert cdn.key_of("https://cdn.example.test/x/m/2026/01/a.png") is None


def test_local_links_out_of_the_folder_count_as_missing(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("nope")
    root = tmp_path / "uploads"
    storage = LocalStorage(root)
    storage.put("2026/01/inside.txt", b"ok")
    os.symlink(outside / "secret.txt", root / "2026" / "01" / "secret.txt")
    os.symlink(outside, root / "elsewhere")
    os.symlink(root / "2026" / "01" / "inside.txt", root / "alias.txt")  # a link that stays inside is followed
    for key in ("2026/01/secret.txt", "elsewhere/secret.txt"):
        with pytest.raises(FileNotFoundError):
            storage.open(key)
        with pytest.raises(FileNotFoundError):
            storage.size(key)
        assert not storage.exists(key)
        storage.delete(key)
    assert (outside / "secret.txt").read_text() == "nope"
    with pytest.raises(FileNotFoundError):
        storage.put("elsewhere/planted.txt", b"x")
    assert not (outside / "planted.txt").exists()
    assert read(storage, "alias.txt") == b"ok"


def test_local_storage_without_its_folder_yet(tmp_path):
    storage = LocalStorage(tmp_path / "not" / "yet")
    assert not storage.exists("a.png")
    storage.put("a.png", b"x")
    assert (tmp_path / "not" / "yet" / "a.png").exists()


# -- the site's storage ---------------------------------------------------------------------------


def test_the_site_holds_the_storage_of_its_settings(db_url, tmp_path):
    settings = load_settings({"data_dir": str(tmp_path), "database_url": db_url, "secret_key": "x"}, environ={})
    built = build_storage(settings)
    assert isinstance(built, LocalStorage) and built.folder == settings.uploads_dir and built.base_url == UPLOADS_PATH
    site = build_site(settings, upgrade=False)
    try:
        assert isinstance(site.storage, LocalStorage) and site.storage.folder == settings.uploads_dir
        double = MemoryStorage()
        site.storage = double
    finally:
        site.close()
    assert double.closed
