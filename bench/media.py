"""Media benchmark (issue 11): storing a 12-megapixel JPEG with every sub-size, against Pillow alone
doing the same decoding, resizes and encodes, measured in the same run.

    .venv/bin/python bench/media.py [--rounds 5] [--width 4000 --height 3000] [--goal 1.5]

"calpress" is ``calpress.media.attachments.create_attachment`` on a throwaway SQLite site: it
reads the upload (and its EXIF and IPTC), stores it, cuts the ``-scaled`` copy (over 2560 px) and
the six registered sizes, stores each file and writes the attachment row. "Pillow alone" decodes
the same bytes and produces the same renditions (sizes from the same rule, the same resampling
and JPEG quality 82) into memory, nothing stored. The two alternate for --rounds rounds; the
table shows the median milliseconds of each and their ratio; the exit code is non-zero when the
ratio is above --goal.

Then, with --upload-mb (default 100; 0 skips it), a raw upload of that many megabytes (a video,
stored as it is) through a real ``calpress serve`` with one worker: the worker's peak resident
memory (VmHWM, every process of the server's tree) must stay under --rss-goal MB (default 150):
the body is spooled to a temporary file as it arrives and copied to storage in slices.
"""

from __future__ import annotations

import argparse
import io
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from PIL import Image, ImageOps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calpress.app import build_site  # noqa: E402  (bench/ is a folder of scripts)
from calpress.config import load_settings  # noqa: E402
from calpress.content.items import Context  # noqa: E402
from calpress.media import attachments, images  # noqa: E402


class Anyone:
    """A user who may do everything (the benchmark measures the work, not the rights)."""

    id = 0

    def can(self, *args: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return True


def photo(width: int, height: int) -> bytes:
    """A JPEG with photo-like detail (noise over gradients), so encoders do real work."""
    noise = Image.effect_noise((width, height), 40).convert("RGB")
    gradient = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    buffer = io.BytesIO()
    Image.blend(noise, gradient, 0.6).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def pillow_alone(data: bytes) -> int:
    """The same renditions with Pillow only; the number of bytes produced."""
    image = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
    image.load()
    produced = 0
    width, height = image.size
    renditions = []
    scaled = images.scaled_size(width, height, "JPEG")
    if scaled:
        renditions.append((scaled, False))
    for _, max_w, max_h, crop in images.SIZES:
        size = images.fit(width, height, max_w, max_h, crop)
        if size:
            renditions.append((size, crop))
    for size, crop in renditions:
        if crop:
            result = ImageOps.fit(image, size, Image.Resampling.BICUBIC)
        else:
            result = image.resize(size, Image.Resampling.BICUBIC, reducing_gap=3)
        buffer = io.BytesIO()
        result.save(buffer, format="JPEG", quality=82)
        produced += buffer.tell()
    return produced


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            children = []
        queue.extend(int(child) for child in children)
    return found


def _peak_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def upload_memory(megabytes: int) -> float:
    """The peak resident MB of the server's processes after a raw upload of ``megabytes``."""
    with tempfile.TemporaryDirectory(prefix="calpress-bench-upload-") as folder:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        env = {**os.environ, "CALPRESS_DATA_DIR": folder, "CALPRESS_SECRET_KEY": "bench", "CALPRESS_ENVIRONMENT": "local",
               "CALPRESS_HOST": "127.0.0.1", "CALPRESS_PORT": str(port), "CALPRESS_WORKERS": "1",
               "CALPRESS_MAX_UPLOAD": str((megabytes + 1) * 1024 * 1024)}

        def cli(*args: str) -> str:
            return subprocess.run([sys.executable, "-m", "calpress", *args], env=env, check=True, capture_output=True,
                                  text=True).stdout.strip()

        cli("db", "upgrade")  # a new site: only serve, db upgrade and seed-demo create one
        cli("user", "create", "admin", "admin@example.test", "--role=administrator")
        password = cli("user", "application-password", "create", "admin", "bench", "--porcelain")
        server = subprocess.Popen([sys.executable, "-m", "calpress", "serve"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    httpx.get(base + "/wp-json/", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.2)
            head = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
            total = megabytes * 1024 * 1024

            def body():  # streamed: the client holds a megabyte at a time
                yield head
                sent, block = len(head), os.urandom(1024 * 1024)
                while sent < total:
                    part = block[: total - sent]
                    sent += len(part)
                    yield part

            response = httpx.post(base + "/wp-json/cms/v2/media", content=body(), auth=("admin", password), timeout=300,
                                  headers={"Content-Type": "video/mp4", "Content-Disposition": "attachment; filename=big.mp4",
                                           "Content-Length": str(total)})
            if response.status_code != 201:
                raise SystemExit(f"the upload answered {response.status_code}: {response.text[:300]}")
            stored = response.json()["media_details"]["filesize"]
            if stored != total:
                raise SystemExit(f"stored {stored} bytes of {total}")
            return max(_peak_mb(pid) for pid in _tree(server.pid))
        finally:
            server.terminate()
            server.wait(timeout=20)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--width", type=int, default=4000)
    parser.add_argument("--height", type=int, default=3000)
    parser.add_argument("--goal", type=float, default=1.5)
    parser.add_argument("--upload-mb", type=int, default=100)
    parser.add_argument("--rss-goal", type=float, default=150.0)
    args = parser.parse_args(argv)
    data = photo(args.width, args.height)
    print(f"upload: {args.width}x{args.height} JPEG, {len(data) / 1e6:.1f} MB; {args.rounds} rounds")
    with tempfile.TemporaryDirectory(prefix="calpress-bench-media-") as folder:
        settings = load_settings({"data_dir": folder, "secret_key": "bench"}, environ={})
        site = build_site(settings)
        ctx = Context.of(site, user=Anyone())
        times: dict[str, list[float]] = {"calpress": [], "Pillow alone": []}
        for n in range(args.rounds):
            order = ["calpress", "Pillow alone"] if n % 2 == 0 else ["Pillow alone", "calpress"]
            for side in order:
                started = time.perf_counter()
                if side == "calpress":
                    with site.write() as conn:
                        attachments.create_attachment(conn, ctx, None, data, f"photo-{n}.jpg")
                else:
                    pillow_alone(data)
                times[side].append((time.perf_counter() - started) * 1000)
        site.close()
    medians = {side: statistics.median(values) for side, values in times.items()}
    ratio = medians["calpress"] / medians["Pillow alone"]
    print(f"\n{'side':14} {'median ms':>10} {'min ms':>8} {'max ms':>8}")
    for side, values in times.items():
        print(f"{side:14} {medians[side]:10.0f} {min(values):8.0f} {max(values):8.0f}")
    verdict = "met" if ratio <= args.goal else "MISSED"
    print(f"\ncalpress / Pillow alone: {ratio:.2f}x (goal <= {args.goal}x): {verdict}")
    ok = ratio <= args.goal
    if args.upload_mb:
        peak = upload_memory(args.upload_mb)
        memory_ok = peak < args.rss_goal
        print(f"{args.upload_mb} MB raw upload: peak resident memory of the server's processes {peak:.0f} MB "
              f"(goal < {args.rss_goal:.0f} MB): {'met' if memory_ok else 'MISSED'}")
        ok = ok and memory_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
