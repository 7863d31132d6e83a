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

Not measured here: the memory of a 100 MB upload through the server (raw and multipart bodies are
bounded by CALPRESS_MAX_BODY and raw bodies are read whole; see the issue's note).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--width", type=int, default=4000)
    parser.add_argument("--height", type=int, default=3000)
    parser.add_argument("--goal", type=float, default=1.5)
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
    return 0 if ratio <= args.goal else 1


if __name__ == "__main__":
    sys.exit(main())
