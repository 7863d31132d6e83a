"""calpress.content.slugs against outputs of the reference's sanitize_title and remove_accents."""

from __future__ import annotations

import pytest

from calpress.content.slugs import remove_accents, sanitize_title, strip_tags, truncate_slug, unique_slug, utf8_uri_encode

# Each pair was produced by the reference (remove_accents, then sanitize_title_with_dashes in
# the "save" context).
REFERENCE_SLUGS = [
    ("Hello World", "hello-world"),
    ("Événements à Paris", "evenements-a-paris"),
    ("Привет мир", "%d0%bf%d1%80%d0%b8%d0%b2%d0%b5%d1%82-%d0%bc%d0%b8%d1%80"),
    ("日本語のタイトル", "%e6%97%a5%e6%9c%ac%e8%aa%9e%e3%81%ae%e3%82%bf%e3%82%a4%e3%83%88%e3%83%ab"),
    ("a&amp;b", "ab"),
    ("Tom & Jerry", "tom-jerry"),
    ("50% off", "50-off"),
    ("100%25 sure", "100%25-sure"),
    ("%C3%A9t%C3%A9", "%c3%a9t%c3%a9"),
    ("<b>bold</b> text", "bold-text"),
    ("a < b > c", "a-b-c"),
    ("x.y/z", "x-y-z"),
    ("  --lead--trail--  ", "lead-trail"),
    ("ÆØÅ æøå", "aeoa-aeoa"),
    ("Straße", "strase"),
    ("İstanbul", "istanbul"),
    ("emoji 😀 test", "emoji-%f0%9f%98%80-test"),
    ("a\u00a0b", "a-b"),
    ("a\u2013b\u2014c", "a-b-c"),
    ("quote \u201chi\u201d", "quote-hi"),
    ("\u00d7 times", "x-times"),
    ("tab\tnew\nline", "tabnewline"),
    ("naïve café", "naive-cafe"),
    ("€100 £5", "e100-5"),
    ("a&#8211;b", "a-b"),
    ("a\u200bb", "ab"),
    ("a\u2003b", "a-b"),
    ("ĸ ſ ɑ", "k-s-a"),
    ("Ǘǘ Ơ", "uu-o"),
    ("<!-- c -->after", "after"),
    ("<unclosed tag", ""),
    ("ΣΑΣ σας", "%cf%83%ce%b1%cf%83-%cf%83%ce%b1%cf%82"),
    ("A_B-C", "a_b-c"),
    ("123", "123"),
    ("---", ""),
]


@pytest.mark.parametrize(("title", "slug"), REFERENCE_SLUGS)
def test_sanitize_title_matches_the_reference(title: str, slug: str) -> None:
    assert sanitize_title(title) == slug


def test_sanitize_title_fallback_and_length() -> None:
    assert sanitize_title("!!!", "fallback") == "fallback"
    assert sanitize_title("", "7") == "7"
    assert sanitize_title("x" * 250) == "x" * 200  # slugs stop at 200 characters
    encoded = sanitize_title("é" * 10 + "日" * 100)
    # Encoding stops at 200 characters, never splitting a character.
    assert encoded.startswith("e" * 10 + "%e6%97%a5")
    assert len(encoded) == 199 and (len(encoded) - 10) % 9 == 0


def test_remove_accents() -> None:
    assert remove_accents("Łódź Ærø") == "Lodz AEro"
    assert remove_accents("plain ascii") == "plain ascii"
    assert remove_accents("Кириллица") == "Кириллица"  # other scripts are left alone
    assert remove_accents("e\u0301") == "e"  # decomposed input is composed first
    assert remove_accents("Schön Straße", "de_DE") == "Schoen Strasse"
    assert remove_accents("Ærø Å", "da_DK") == "Aeroe Aa"
    assert remove_accents("col·lecció", "ca") == "colleccio"
    assert remove_accents("Đorđe", "sr_RS") == "DJordje"


def test_strip_tags_models_php() -> None:
    assert strip_tags("a<b>c</b>d") == "acd"
    assert strip_tags("a < b") == "a < b"
    assert strip_tags("<a href='>'>t</a>") == "t"
    assert strip_tags("x<?php echo 1 ?>y") == "xy"
    assert strip_tags("<<a>>b") == "b"
    assert strip_tags("tail<") == "tail"


def test_utf8_uri_encode() -> None:
    assert utf8_uri_encode("aé日") == "a%c3%a9%e6%97%a5"
    assert utf8_uri_encode("aé日", 7) == "a%c3%a9"
    assert utf8_uri_encode("a b", encode_ascii=True) == "a%20b"


def test_truncate_slug() -> None:
    assert truncate_slug("abc-def", 4) == "abc"
    assert truncate_slug("short") == "short"
    assert truncate_slug("%c3%a9%c3%a9%c3%a9", 13) == "%c3%a9%c3%a9"


def test_unique_slug() -> None:
    taken = {"news", "news-2", "news-3"}
    assert unique_slug("fresh", taken.__contains__) == "fresh"
    assert unique_slug("news", taken.__contains__) == "news-4"
    long = "x" * 200
    result = unique_slug(long, {long}.__contains__, max_length=200)
    assert result == "x" * 198 + "-2" and len(result) == 200
