"""Shortcodes (``calpress.content.rendering.shortcodes``): core shortcode names are stripped or
unwrapped, never expanded."""

from __future__ import annotations

from calpress.content.rendering.shortcodes import shortcode_unautop, strip_shortcodes


def test_strip_shortcodes():
    assert (
        strip_shortcodes('a [gallery ids="1"] b [caption]c[/caption] d [[video]] e [other] f') == "a  b  d [video] e [other] f"
    )
    assert strip_shortcodes('<a title="[gallery]">x</a>[gallery]') == '<a title="[gallery]">x</a>'


def test_shortcode_unautop():
    assert shortcode_unautop('<p>[gallery ids="1"]</p>\n<p>[unknown]</p>') == '[gallery ids="1"]\n<p>[unknown]</p>'
