"""The S3-compatible storage (calpress/media/s3.py) against a real S3 server on loopback: moto in
server mode (``s3_server``, tests/s3fixtures.py), with authentication on (so that the
signatures are checked, and a wrong secret is refused as by AWS).

Every request goes through calpress.net's guarded client: the storage's policy allow-lists the
server's address and port, as ``CALPRESS_OUTBOUND_ALLOW=127.0.0.1:<port>`` would.
"""

from __future__ import annotations

import io
import secrets
import tempfile
import tracemalloc
from collections.abc import Iterator

import pytest

pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install -e '.[test]')")

from calpress import net  # noqa: E402
from calpress.config import load_settings  # noqa: E402
from calpress.media.backends import build_storage  # noqa: E402
from calpress.media.s3 import S3Error, S3Storage  # noqa: E402
from calpress.media.storage import InvalidKey, LocalStorage  # noqa: E402


@pytest.fixture()
def storage(s3_server) -> Iterator[S3Storage]:
    """A storage under a prefix of its own, so tests never see each other's files."""
    store = s3_server.storage(prefix=f"t{secrets.token_hex(4)}/")
    yield store
    store.close()


def test_round_trip_of_binary_data(storage):
    for key, data in [
        ("2026/01/empty.bin", b""),
        ("2026/01/bytes.bin", bytes(range(256)) * 4),
        ("2026/01/big.bin", secrets.token_bytes(5 * 1024 * 1024)),
    ]:
        assert not storage.exists(key)
        storage.put(key, data)
        assert storage.exists(key)
        assert storage.size(key) == len(data)
        with storage.open(key) as stream:
            assert stream.read() == data
        storage.delete(key)
        assert not storage.exists(key)
        with pytest.raises(FileNotFoundError):
            storage.size(key)
        with pytest.raises(FileNotFoundError):
            storage.open(key)
    storage.delete("2026/01/never-stored.bin")  # missing: not an error


def test_overwrite(storage):
    storage.put("a.txt", b"one")
    storage.put("a.txt", b"two")
    with storage.open("a.txt") as stream:
        assert stream.read() == b"two"
    with pytest.raises(FileExistsError):
        storage.put("a.txt", b"three", overwrite=False)
    with storage.open("a.txt") as stream:
        assert stream.read() == b"two"
    storage.put("b.txt", b"new", overwrite=False)
    assert storage.size("b.txt") == 3


def test_overwrite_false_is_atomic_under_concurrency(storage):
    """Conditional writes (If-None-Match: *): of writers racing for one name, exactly one wins."""
    from concurrent.futures import ThreadPoolExecutor

    def attempt(number: int) -> bool:
        try:
            storage.put("race.bin", str(number).encode(), overwrite=False)
        except FileExistsError:
            return False
        return True

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(attempt, range(16)))
    assert results.count(True) == 1
    with storage.open("race.bin") as stream:
        assert stream.read() == str(results.index(True)).encode()


def test_put_unique_numbers_taken_names(storage):
    assert storage.put_unique("2026/02/a.jpg", b"1") == "2026/02/a.jpg"
    assert storage.put_unique("2026/02/a.jpg", b"2") == "2026/02/a-1.jpg"
    assert storage.put_unique("2026/02/a.jpg", b"3") == "2026/02/a-2.jpg"
    # A candidate whose companions are taken is skipped too.
    storage.put("2026/02/b-150x150.jpg", b"x")
    key = storage.put_unique("2026/02/b.jpg", b"4", also_free=lambda candidate: [candidate.replace(".jpg", "-150x150.jpg")])
    assert key == "2026/02/b-1.jpg"
    with storage.open("2026/02/a-1.jpg") as stream:
        assert stream.read() == b"2"


@pytest.mark.parametrize("key", ["../x", "/abs", "a\\b", "a\x00b", "", "a//b", "a/./b", "a/"])
def test_invalid_keys_are_refused_before_any_request(key):
    # No server at all: the key is refused before anything is sent.
    store = S3Storage(bucket="media", endpoint="http://127.0.0.1:9", access_key="AKIAX", secret_key="x")
    for call in (store.open, store.size, store.exists, store.delete, store.url, lambda k: store.put(k, b"x"),
                 lambda k: store.put_unique(k, b"x")):
        with pytest.raises(InvalidKey):
            call(key)


def test_spaces_and_utf8_names_round_trip(storage):
    for key in ["2026/03/my photo (1).jpg", "2026/03/été ☃ 日本.png", "2026/03/100%+done&more=yes;~.txt"]:
        data = key.encode() * 3
        storage.put(key, data, overwrite=False)
        assert storage.size(key) == len(data)
        with storage.open(key) as stream:
            assert stream.read() == data
        storage.delete(key)
        assert not storage.exists(key)


def test_urls(s3_server):
    plain = s3_server.storage()
    assert plain.url("2026/01/a b.jpg") == f"{s3_server.endpoint}/media/2026/01/a%20b.jpg"
    prefixed = s3_server.storage(prefix="/site1/")
    assert prefixed.url("x/é.png") == f"{s3_server.endpoint}/media/site1/x/%C3%A9.png"
    cdn = s3_server.storage(public_url="https://cdn.example.test/files/", prefix="site1")
    assert cdn.url("2026/01/a.jpg") == "https://cdn.example.test/files/site1/2026/01/a.jpg"
    # Whether or not the key is stored.
    assert not cdn.exists("2026/01/a.jpg")


def test_a_wrong_secret_is_an_error(s3_server):
    wrong = s3_server.storage(secret_key="not-the-secret")
    with pytest.raises(S3Error) as put_error:
        wrong.put("x.txt", b"x")
    assert put_error.value.status == 403 and put_error.value.code == "SignatureDoesNotMatch"
    assert "SignatureDoesNotMatch" in str(put_error.value)
    for call in (wrong.size, wrong.exists, wrong.open):
        with pytest.raises(S3Error) as error:
            call("x.txt")
        assert error.value.status == 403
    unknown = s3_server.storage(access_key="AKIAUNKNOWN000000000")
    with pytest.raises(S3Error) as error:
        unknown.put("x.txt", b"x")
    assert error.value.code == "InvalidAccessKeyId"


def test_a_missing_bucket_is_an_error(s3_server):
    store = s3_server.storage(bucket="no-such-bucket")
    with pytest.raises(S3Error) as error:
        store.put("x.txt", b"x")
    assert error.value.status == 404 and error.value.code == "NoSuchBucket"


def test_the_outbound_guard_refuses_an_endpoint_not_allowed(s3_server):
    # The default policy: loopback is refused, and the port is not open either.
    for policy in (net.NetPolicy(), net.NetPolicy(allowed_ports=(s3_server.port,))):
        store = s3_server.storage(policy=policy)
        with pytest.raises(net.OutboundError) as error:
            store.put("x.txt", b"x")
        assert error.value.reason in ("refused_address", "refused_port")
        with pytest.raises(net.OutboundError):
            store.size("x.txt")
    with pytest.raises(net.OutboundError) as error:
        s3_server.storage(policy=net.NetPolicy(allowed_ports=(s3_server.port,))).open("x.txt")
    assert error.value.reason == "refused_address"


def test_objects_larger_than_the_cap_are_refused(s3_server, storage):
    storage.put("big.bin", b"x" * 2000)
    small = s3_server.storage(prefix=storage.prefix, max_object_bytes=1000)
    with pytest.raises(net.OutboundError) as error:
        small.open("big.bin")
    assert error.value.reason == "too_large"


def _settings(tmp_path, **environ):
    return load_settings({"data_dir": str(tmp_path), "secret_key": "x"}, environ=environ)


def test_build_storage_chooses_s3_when_a_bucket_is_set(tmp_path, s3_server):
    assert isinstance(build_storage(_settings(tmp_path)), LocalStorage)
    settings = _settings(
        tmp_path,
        CALPRESS_S3_BUCKET="media",
        CALPRESS_S3_ENDPOINT=s3_server.endpoint,
        CALPRESS_S3_ACCESS_KEY=s3_server.access_key,
        CALPRESS_S3_SECRET_KEY=s3_server.secret_key,
        CALPRESS_S3_PREFIX="built",
        CALPRESS_S3_PUBLIC_URL="https://cdn.example.test",
        CALPRESS_OUTBOUND_ALLOW=f"127.0.0.1:{s3_server.port}",
    )
    assert (settings.s3_bucket, settings.s3_region, settings.s3_prefix) == ("media", "us-east-1", "built")
    storage = build_storage(settings)
    try:
        assert isinstance(storage, S3Storage)
        assert storage.url("a.jpg") == "https://cdn.example.test/built/a.jpg"
        storage.put("a.jpg", b"jpeg")
        assert storage.size("a.jpg") == 4
        storage.delete("a.jpg")
    finally:
        storage.close()
    # Without the allow-list, the site's policy refuses the loopback endpoint.
    guarded = build_storage(_settings(tmp_path, CALPRESS_S3_BUCKET="media", CALPRESS_S3_ENDPOINT=s3_server.endpoint,
                                      CALPRESS_OUTBOUND_PORTS=str(s3_server.port)))
    with pytest.raises(net.OutboundError):
        guarded.exists("a.jpg")
    guarded.close()
    aws = build_storage(_settings(tmp_path, CALPRESS_S3_BUCKET="media", CALPRESS_S3_REGION="eu-west-3"))
    assert aws.url("a.jpg") == "https://s3.eu-west-3.amazonaws.com/media/a.jpg"


def test_an_attachment_and_its_sub_sizes_go_to_the_bucket(app, storage):
    from content_support import context
    from PIL import Image

    from calpress.content import items
    from calpress.media import attachments

    buffer = io.BytesIO()
    Image.new("RGB", (640, 480), "red").save(buffer, format="PNG")
    data = buffer.getvalue()
    app.site.storage = storage
    with app.site.write() as conn:
        attachment_id = attachments.create_attachment(conn, context(app), None, data, "Poster.png")
        second = attachments.create_attachment(conn, context(app), None, data, "Poster.png")
    with app.site.read() as conn:
        item = items.get_item(conn, attachment_id)
        other = items.get_item(conn, second)
    key = item.meta[attachments.FILE_KEY]
    assert key.endswith("/poster.png") and other.meta[attachments.FILE_KEY].endswith("/poster-1.png")
    assert item.guid == storage.url(key) and item.guid.startswith(storage.endpoint + "/media/" + storage.prefix + "/")
    with storage.open(key) as stream:
        assert stream.read() == data
    sizes = item.meta[attachments.METADATA_KEY]["sizes"]
    assert sizes
    folder = key.rsplit("/", 1)[0]
    for size in sizes.values():
        assert storage.size(f"{folder}/{size['file']}") == size["filesize"]


def test_large_files_stream_both_ways_without_sitting_in_memory(storage):
    """put_file sends a spooled upload in slices; open downloads into a temporary file that
    goes to disk past 8 MB. Python's allocations stay far below the file's size both ways."""
    size = 24 * 1024 * 1024
    with tempfile.TemporaryFile() as source:
        block = secrets.token_bytes(1024 * 1024)
        for _ in range(size // len(block)):
            source.write(block)
        source.seek(0)
        tracemalloc.start()
        try:
            storage.put_file("2026/04/big.bin", source, overwrite=False)
            _, put_peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            with storage.open("2026/04/big.bin") as stream:
                _, open_peak = tracemalloc.get_traced_memory()
                assert getattr(stream, "_rolled", True)  # on disk, not in memory
                source.seek(0)
                for _ in range(size // len(block)):
                    assert stream.read(len(block)) == source.read(len(block))
                assert stream.read() == b""
        finally:
            tracemalloc.stop()
    assert storage.size("2026/04/big.bin") == size
    assert put_peak < 8 * 1024 * 1024, put_peak
    assert open_peak < 12 * 1024 * 1024, open_peak
    # The conditional write holds for streams too.
    with pytest.raises(FileExistsError):
        storage.put_file("2026/04/big.bin", io.BytesIO(b"other"), overwrite=False)
    assert storage.size("2026/04/big.bin") == size
    # A small object stays in memory.
    storage.put_file("2026/04/small.bin", io.BytesIO(b"tiny"))
    with storage.open("2026/04/small.bin") as stream:
        assert stream.read() == b"tiny"


def test_keys_lists_what_is_stored_under_the_prefix(s3_server, storage):
    for key in ["2026/05/a.jpg", "2026/05/a-150x150.jpg", "2026/06/b é.png", "other.txt"]:
        storage.put(key, b"x")
    assert sorted(storage.keys()) == ["2026/05/a-150x150.jpg", "2026/05/a.jpg", "2026/06/b é.png", "other.txt"]
    assert sorted(storage.keys("2026/05/")) == ["2026/05/a-150x150.jpg", "2026/05/a.jpg"]
    assert list(storage.keys("2027/")) == []
    # Another storage's prefix is not listed.
    neighbour = s3_server.storage(prefix=storage.prefix + "-next")
    neighbour.put("n.txt", b"n")
    assert "n.txt" not in set(storage.keys()) and list(neighbour.keys()) == ["n.txt"]


def test_key_of_reads_an_address_back(s3_server, storage):
    for key in ["2026/01/a b.jpg", "2026/01/été ☃.png", "x/100%+done.txt"]:
        assert storage.key_of(storage.url(key)) == key
        assert storage.key_of(storage.url(key) + "?ver=2#top") == key
    cdn = s3_server.storage(public_url="https://cdn.example.test/files", prefix="site1")
    assert cdn.key_of("https://cdn.example.test/files/site1/2026/01/a.jpg") == "2026/01/a.jpg"
    for foreign in ["https://cdn.example.test/files/site2/a.jpg", "https://elsewhere.test/files/site1/a.jpg",
                    "https://cdn.example.test/files/site1/../x.jpg", "https://cdn.example.test/files/site1/"]:
        assert cdn.key_of(foreign) is None
