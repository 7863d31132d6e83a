"""Helpers of the responsive image, sharing and branding tests: real photographs made with
Pillow and uploaded through the REST media route, and the attributes of the ``<img>`` and head
elements of a page."""

from __future__ import annotations

import html
import io
import re
from typing import Any

from PIL import Image

MEDIA = "/cms/v2/media"


def photo(width: int = 4000, height: int = 3000, fmt: str = "JPEG") -> bytes:
    """A photograph-like image (noise over a gradient: it compresses as a photo does, so file
    sizes mean something), encoded at a camera's quality."""
    gradient = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 40)
    image = Image.merge("RGB", (gradient, noise, Image.blend(gradient, noise, 0.5)))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **({"quality": 90} if fmt == "JPEG" else {}))
    return buffer.getvalue()


def upload(client: Any, user: Any, data: bytes, name: str = "photo.jpg", mime: str = "image/jpeg") -> dict[str, Any]:
    response = client.post(MEDIA, user=user, body=data,
                           headers={"Content-Type": mime, "Content-Disposition": f"attachment; filename={name}"})
    assert response.status_code == 201, response.text[:500]
    return response.json


def tags(page: str, element: str) -> list[dict[str, str]]:
    """The attributes of every ``<element ...>`` of ``page`` (values unescaped)."""
    found = []
    for attrs in re.findall(rf"<{element}\b([^>]*)>", page):
        found.append({name: html.unescape(value) for name, value in re.findall(r'([\w:-]+)="([^"]*)"', attrs)})
    return found


def images(page: str, css_class: str = "") -> list[dict[str, str]]:
    return [attrs for attrs in tags(page, "img") if css_class in attrs.get("class", "").split() or not css_class]


def candidates(srcset: str) -> list[tuple[str, int]]:
    """``srcset`` as (address, width) pairs."""
    pairs = []
    for part in srcset.split(","):
        url, descriptor = part.strip().rsplit(" ", 1)
        assert descriptor.endswith("w"), srcset
        pairs.append((url, int(descriptor[:-1])))
    return pairs


def meta_of(page: str) -> dict[str, str]:
    """``name``/``property`` -> ``content`` of the head's meta elements."""
    found = {}
    for attrs in tags(page, "meta"):
        key = attrs.get("property") or attrs.get("name")
        if key and "content" in attrs:
            found[key] = attrs["content"]
    return found


def links_of(page: str, rel: str) -> list[dict[str, str]]:
    return [attrs for attrs in tags(page, "link") if attrs.get("rel") == rel]


def pixel_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size
