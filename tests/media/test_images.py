"""The reference's image handling at upload (wp_create_image_subsizes, wp_read_image_metadata,
maybe_exif_rotate, the big_image_size_threshold "-scaled" rule, image_resize_dimensions), on
real images made here and reopened with Pillow after create_attachment stored them."""

from __future__ import annotations

import io
import struct
import zlib
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from content_support import context
from PIL import Image, ImageCms, TiffImagePlugin

from calpress.media import attachments, images
from calpress.store.tables import posts

RED, BLUE = (255, 0, 0), (0, 0, 255)


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def store(app, data: bytes, name: str) -> tuple[dict, str]:
    """create_attachment through the site's storage: the attachment's metadata and its file key."""
    with app.site.write() as conn:
        attachment_id = attachments.create_attachment(conn, context(app), None, data, name)
    with app.site.read() as conn:
        meta = conn.execute(sa.select(posts.c.meta).where(posts.c.id == attachment_id)).scalar_one()
    return meta[attachments.METADATA_KEY], meta[attachments.FILE_KEY]


def stored(app, key: str) -> Image.Image:
    with app.site.storage.open(key) as stream:
        image = Image.open(io.BytesIO(stream.read()))
        image.load()
    return image


def folder_of(key: str) -> str:
    return key.rsplit("/", 1)[0]


def close(pixel, color, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], color))


# -- EXIF orientation -----------------------------------------------------------------------------


def sideways_jpeg(orientation: int = 6) -> bytes:
    """400x200 raw pixels, red left half and blue right half, with an EXIF Orientation: 6 means
    "turn 90 degrees clockwise to view", so upright it is 200x400, red on top."""
    image = Image.new("RGB", (400, 200), BLUE)
    image.paste(RED, (0, 0, 200, 200))
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x0110] = "Phone"
    return encoded(image, "JPEG", exif=exif.tobytes(), quality=95)


def test_a_jpeg_with_an_exif_orientation_is_stored_upright_as_name_rotated(app):
    data = sideways_jpeg(6)
    metadata, key = store(app, data, "sideways.jpg")
    folder = folder_of(key)
    assert key == f"{folder}/sideways-rotated.jpg" and metadata["file"] == key
    assert metadata["original_image"] == "sideways.jpg"
    with app.site.storage.open(f"{folder}/sideways.jpg") as stream:
        assert stream.read() == data  # the upload itself is kept
    main = stored(app, key)
    assert main.size == (200, 400) and (metadata["width"], metadata["height"]) == (200, 400)
    assert close(main.getpixel((100, 50)), RED) and close(main.getpixel((100, 350)), BLUE)
    assert main.getexif().get(0x0112) == 1 and main.getexif().get(0x0110) == "Phone"  # EXIF kept, orientation reset
    assert metadata["filesize"] == app.site.storage.size(key)
    # The reference resets the stored orientation to the integer 1 once the file is upright.
    assert metadata["image_meta"]["orientation"] == 1 and metadata["image_meta"]["camera"] == "Phone"
    sizes = metadata["sizes"]
    assert {name: (s["width"], s["height"]) for name, s in sizes.items()} == {
        "thumbnail": (150, 150), "medium": (150, 300)}
    medium = stored(app, f"{folder}/{sizes['medium']['file']}")
    assert sizes["medium"]["file"] == "sideways-150x300.jpg" and medium.size == (150, 300)
    assert close(medium.getpixel((75, 20)), RED) and close(medium.getpixel((75, 280)), BLUE)
    assert 0x0112 not in medium.getexif()  # sub-sizes carry no EXIF


@pytest.mark.parametrize(("orientation", "size", "red_at"), [
    (1, (400, 200), (50, 100)), (3, (400, 200), (350, 100)), (8, (200, 400), (100, 350)), (2, (400, 200), (350, 100)),
])
def test_other_orientations(app, orientation, size, red_at):
    metadata, key = store(app, sideways_jpeg(orientation), "turned.jpg")
    main = stored(app, key)
    assert main.size == size and close(main.getpixel(red_at), RED)
    if orientation == 1:
        assert "original_image" not in metadata and key.endswith("/turned.jpg")
        assert metadata["image_meta"]["orientation"] == "1"
    else:
        assert metadata["original_image"] == "turned.jpg" and key.endswith("/turned-rotated.jpg")


def test_only_jpeg_orientation_is_acted_on_as_the_reference(app):
    """maybe_exif_rotate reads the orientation of JPEG files only."""
    image = Image.new("RGB", (400, 200), BLUE)
    exif = Image.Exif()
    exif[0x0112] = 6
    metadata, key = store(app, encoded(image, "WEBP", exif=exif.tobytes()), "flat.webp")
    assert key.endswith("/flat.webp") and "original_image" not in metadata and metadata["width"] == 400
    assert metadata["image_meta"]["orientation"] == "0"


# -- the "-scaled" rule ---------------------------------------------------------------------------


def big_jpeg(width: int = 4000, height: int = 3000, **options) -> bytes:
    image = Image.new("RGB", (width, height), BLUE)
    image.paste(RED, (0, 0, width // 2, height))
    return encoded(image, "JPEG", **options)


def test_a_big_image_is_scaled_and_its_original_kept(app):
    data = big_jpeg()
    metadata, key = store(app, data, "Big Photo.jpg")
    folder = folder_of(key)
    assert key == f"{folder}/big-photo-scaled.jpg" and metadata["file"] == key
    assert (metadata["width"], metadata["height"]) == (2560, 1920) and stored(app, key).size == (2560, 1920)
    assert metadata["original_image"] == "big-photo.jpg" and metadata["filesize"] == app.site.storage.size(key)
    assert app.site.storage.size(f"{folder}/big-photo.jpg") == len(data)
    sizes = {name: (s["width"], s["height"], s["file"]) for name, s in metadata["sizes"].items()}
    # Cut from the upload (named after it), as the reference does "for best quality".
    assert sizes == {
        "thumbnail": (150, 150, "big-photo-150x150.jpg"), "medium": (300, 225, "big-photo-300x225.jpg"),
        "medium_large": (768, 576, "big-photo-768x576.jpg"), "large": (1024, 768, "big-photo-1024x768.jpg"),
        "1536x1536": (1536, 1152, "big-photo-1536x1152.jpg"), "2048x2048": (2048, 1536, "big-photo-2048x1536.jpg"),
    }
    for width, height, name in sizes.values():
        image = stored(app, f"{folder}/{name}")
        assert image.size == (width, height) and image.format == "JPEG"
        assert close(image.getpixel((width // 4, height // 2)), RED) and close(image.getpixel((3 * width // 4, height // 2)), BLUE)
    assert set(metadata) == {"width", "height", "file", "filesize", "sizes", "image_meta", "original_image"}


def test_scaling_and_rotating_combine(app):
    exif = Image.Exif()
    exif[0x0112] = 6
    metadata, key = store(app, big_jpeg(3000, 2000, exif=exif.tobytes()), "tall.jpg")
    assert key.endswith("/tall-scaled.jpg") and metadata["original_image"] == "tall.jpg"
    main = stored(app, key)
    assert main.size == (1707, 2560) == (metadata["width"], metadata["height"])
    assert close(main.getpixel((850, 100)), RED) and close(main.getpixel((850, 2400)), BLUE)
    assert 0x0112 not in main.getexif() and metadata["image_meta"]["orientation"] == 1
    assert (metadata["sizes"]["2048x2048"]["width"], metadata["sizes"]["2048x2048"]["height"]) == (1365, 2048)


def test_png_images_are_never_scaled(app):
    metadata, key = store(app, encoded(Image.new("RGB", (2600, 100), RED), "PNG"), "banner.png")
    assert key.endswith("/banner.png") and metadata["width"] == 2600 and "original_image" not in metadata
    assert set(metadata["sizes"]) == {"thumbnail", "medium", "medium_large", "large", "1536x1536", "2048x2048"}


# -- image_meta -----------------------------------------------------------------------------------


def test_image_meta_from_exif(app):
    exif = Image.Exif()
    exif[0x0110] = "Canon EOS 5D"
    exif[0x010E] = "Sunset over the bay"
    exif[0x8298] = b"\xc2\xa9 2023 Jane Doe"  # UTF-8 bytes, kept as UTF-8
    exif[0x013B] = "Jane Doe"
    camera = exif.get_ifd(0x8769)
    camera[0x829D] = TiffImagePlugin.IFDRational(28, 10)   # FNumber
    camera[0x829A] = TiffImagePlugin.IFDRational(1, 250)   # ExposureTime
    camera[0x8827] = 400                                   # ISOSpeedRatings
    camera[0x920A] = TiffImagePlugin.IFDRational(50, 1)    # FocalLength
    camera[0x9003] = "2020:01:01 00:00:00"                 # DateTimeOriginal: not the one read
    camera[0x9004] = "2023:10:15 14:30:00"                 # DateTimeDigitized, as the reference reads
    data = encoded(Image.new("RGB", (64, 48), RED), "JPEG", exif=exif.tobytes())
    metadata, _ = store(app, data, "camera.jpg")
    assert metadata["image_meta"] == {
        "aperture": "2.8", "credit": "Jane Doe", "camera": "Canon EOS 5D", "caption": "Sunset over the bay",
        "created_timestamp": str(int(datetime(2023, 10, 15, 14, 30, tzinfo=UTC).timestamp())),
        "copyright": "\u00a9 2023 Jane Doe", "focal_length": "50", "iso": "400", "shutter_speed": "0.004",
        "title": "Sunset over the bay", "orientation": "0", "keywords": [], "alt": "",
    }


def test_image_meta_defaults_and_iptc():
    blank = Image.open(io.BytesIO(encoded(Image.new("RGB", (8, 8)), "PNG")))
    assert images.read_image_meta(blank) == {
        "aperture": "0", "credit": "", "camera": "", "caption": "", "created_timestamp": "0", "copyright": "",
        "focal_length": "0", "iso": "0", "shutter_speed": "0", "title": "", "orientation": "0", "keywords": [],
        "alt": "",
    }

    def dataset(number: int, value: bytes) -> bytes:
        return b"\x1c\x02" + bytes([number]) + struct.pack(">H", len(value)) + value

    iptc = b"".join([dataset(105, b"Headline"), dataset(120, b"A long caption <script>x</script>"),
                     dataset(80, b"By Line"), dataset(116, b"Copy"), dataset(25, b"one"), dataset(25, b"two"),
                     dataset(55, b"20231015"), dataset(60, b"143000+0200")])
    block = b"Photoshop 3.0\x00" + b"8BIM\x04\x04\x00\x00" + struct.pack(">I", len(iptc)) + iptc
    jpeg = encoded(Image.new("RGB", (8, 8)), "JPEG")
    app13 = b"\xff\xed" + struct.pack(">H", len(block) + 2) + block
    image = Image.open(io.BytesIO(jpeg[:2] + app13 + jpeg[2:]))
    meta = images.read_image_meta(image)
    assert (meta["title"], meta["credit"], meta["copyright"], meta["keywords"]) == ("Headline", "By Line", "Copy", ["one", "two"])
    assert "<script>" not in meta["caption"] and meta["caption"].startswith("A long caption")
    assert meta["created_timestamp"] == str(int(datetime(2023, 10, 15, 12, 30, tzinfo=UTC).timestamp()))


# -- sizes ----------------------------------------------------------------------------------------


def test_image_resize_dimensions_rules():
    fit = images.fit
    assert fit(1000, 100, 150, 150, True) == (150, 100)   # one side larger: cropped to 150 wide
    assert fit(100, 100, 150, 150, True) is None          # smaller on both sides
    assert fit(150, 150, 150, 150, True) is None          # the image's own size
    assert fit(151, 100, 150, 150, True) is None          # within a pixel of it
    assert fit(301, 200, 300, 300, False) is None         # 300x199: within a pixel
    assert fit(1200, 800, 300, 300, False) == (300, 200)
    assert fit(700, 1000, 768, 0, False) is None          # medium_large needs the width
    assert fit(800, 100, 768, 0, False) == (768, 96)
    assert fit(465, 700, 177, 177, False) == (118, 177)   # wp_constrain_dimensions' pixel round-up
    assert images.crop_box(1000, 100, (150, 100)) == (425, 0, 575, 100)
    assert images.crop_box(400, 200, (150, 150)) == (100, 0, 300, 200)


def test_a_thumbnail_of_a_wide_strip_is_cut_from_its_middle(app):
    strip = Image.new("RGB", (1000, 100), BLUE)
    strip.paste(RED, (425, 0, 575, 100))
    metadata, key = store(app, encoded(strip, "PNG"), "strip.png")
    sizes = metadata["sizes"]
    assert (sizes["thumbnail"]["width"], sizes["thumbnail"]["height"]) == (150, 100)
    assert sizes["thumbnail"]["file"] == "strip-150x100.png"
    thumbnail = stored(app, f"{folder_of(key)}/strip-150x100.png").convert("RGB")
    assert thumbnail.size == (150, 100)
    assert all(thumbnail.getpixel((x, y)) == RED for x in (0, 75, 149) for y in (0, 99))
    assert {name: (s["width"], s["height"]) for name, s in sizes.items()} == {
        "thumbnail": (150, 100), "medium": (300, 30), "medium_large": (768, 77)}


# -- output ---------------------------------------------------------------------------------------


def test_png_transparency_is_kept(app):
    rgba = Image.new("RGBA", (400, 300), (0, 0, 0, 0))
    rgba.paste((255, 0, 0, 255), (200, 0, 400, 300))
    metadata, key = store(app, encoded(rgba, "PNG"), "alpha.png")
    medium = stored(app, f"{folder_of(key)}/{metadata['sizes']['medium']['file']}")
    assert medium.format == "PNG" and medium.mode == "RGBA" and medium.size == (300, 225)
    assert medium.getpixel((10, 100))[3] == 0 and medium.getpixel((290, 100)) == (255, 0, 0, 255)
    # A palette PNG with a transparent colour keeps it too.
    paletted = rgba.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE, colors=4)
    black = paletted.getpixel((10, 10))
    metadata, key = store(app, encoded(paletted, "PNG", transparency=black), "palette.png")
    medium = stored(app, f"{folder_of(key)}/{metadata['sizes']['medium']['file']}").convert("RGBA")
    assert medium.getpixel((10, 100))[3] == 0 and medium.getpixel((290, 100)) == (255, 0, 0, 255)


def test_a_gif_stays_a_gif_with_its_transparency(app):
    frame = Image.new("P", (400, 300), 0)
    frame.putpalette([0, 0, 0, 255, 0, 0] + [0, 0, 0] * 254)
    frame.paste(1, (200, 0, 400, 300))
    metadata, key = store(app, encoded(frame, "GIF", transparency=0), "anim.gif")
    assert key.endswith("/anim.gif") and metadata["sizes"]["medium"]["mime-type"] == "image/gif"
    medium = stored(app, f"{folder_of(key)}/anim-300x225.gif")
    assert medium.format == "GIF"
    rgba = medium.convert("RGBA")
    assert rgba.getpixel((10, 100))[3] == 0 and rgba.getpixel((290, 100)) == (255, 0, 0, 255)


def test_sub_sizes_keep_the_colour_profile_drop_exif_and_use_quality_82(app):
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    exif = Image.Exif()
    exif[0x0110] = "Camera"
    data = big_jpeg(800, 600, icc_profile=profile, exif=exif.tobytes(), quality=100)
    metadata, key = store(app, data, "profiled.jpg")
    medium = stored(app, f"{folder_of(key)}/{metadata['sizes']['medium']['file']}")
    assert medium.info.get("icc_profile") == profile and "exif" not in medium.info
    reference = encoded(images.resized(Image.open(io.BytesIO(data)), (300, 225), False), "JPEG", quality=82,
                        icc_profile=profile)
    assert metadata["sizes"]["medium"]["filesize"] == len(reference)


# -- decompression bombs --------------------------------------------------------------------------


def bomb_png(width: int = 30000, height: int = 30000) -> bytes:
    """A real 1x1 PNG whose header claims ``width`` x ``height``, its CRC made right."""
    data = bytearray(encoded(Image.new("L", (1, 1)), "PNG"))
    start = 8 + 8  # signature, then the IHDR chunk's length and type
    data[start:start + 8] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(data[12:start + 13]))
    data[start + 13:start + 17] = struct.pack(">I", crc)
    return bytes(data)


def test_a_decompression_bomb_is_refused_and_nothing_stored(app):
    from storage_support import MemoryStorage

    with pytest.raises(ValueError, match="too large"):
        images.read_image(bomb_png())
    assert struct.unpack(">II", bomb_png()[16:24]) == (30000, 30000)  # the header does claim it
    with pytest.raises(ValueError, match="too large"):
        images.read_image(bomb_png(10001, 10000))  # over the limit, under Pillow's error: no warning either
    double = MemoryStorage()
    app.site.storage = double
    with pytest.raises(ValueError):
        store(app, bomb_png(), "bomb.png")
    assert double.files == {}
    with app.site.read() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(posts).where(posts.c.type == "attachment")).scalar() == 0
    assert images.MAX_PIXELS == 100_000_000 and Image.MAX_IMAGE_PIXELS == images.MAX_PIXELS


def test_files_of_a_failed_store_are_removed(app, monkeypatch):
    from storage_support import MemoryStorage

    double = MemoryStorage()
    app.site.storage = double

    def broken(*args, **kwargs):
        raise OSError("disk full")

    calls = []
    real = attachments.encode

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            broken()
        return real(*args, **kwargs)

    monkeypatch.setattr(attachments, "encode", flaky)
    with pytest.raises(OSError):
        store(app, big_jpeg(1200, 900), "partial.jpg")
    assert double.files == {}
