"""WordPress's formatting functions (``calpress.compat.formatting``): text-field sanitising,
e-mail and UUID checks, URL cleaning, lists, and the tag, word and character helpers of the
content filters (the ``wp_trim_words`` table is the reference's own unit-test expectations,
wordpress-develop tests/phpunit/tests/formatting/)."""

from __future__ import annotations

import pytest

from calpress.compat.formatting import (
    convert_chars,
    english_list,
    esc_url_raw,
    is_email,
    is_uuid,
    sanitize_text_field,
    sanitize_textarea_field,
    strip_all_tags,
    trim_words,
)

# --------------------------------------------------------------------------- sanitize_text_field


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("hello", "hello"),
        ("  padded  ", "padded"),
        ("a\tb\nc\r\nd", "a b c d"),
        ("many     spaces", "many spaces"),
        ("<b>bold</b> text", "bold text"),
        ('<a href="x">link</a>', "link"),
        ("<script>alert(1)</script>after", "after"),
        ("<style>p{}</style>x", "x"),
        ("1 < 2", "1 &lt; 2"),
        ("a <b c", "a &lt;b c"),
        ("x<", "x&lt;"),
        ("100%25 sure", "100 sure"),
        ("%41%42c", "c"),
        ("%%4141", ""),
        ("a %zz b", "a %zz b"),
        ("<!-- note -->visible", "visible"),
        ('<a title=">">x</a>', "x"),
        ("", ""),
    ],
)
def test_sanitize_text_field(raw: str, expected: str) -> None:
    assert sanitize_text_field(raw) == expected


def test_sanitize_text_field_casts_scalars_and_empties_containers() -> None:
    assert sanitize_text_field(5) == "5"
    assert sanitize_text_field(True) == "1"
    assert sanitize_text_field(False) == ""
    assert sanitize_text_field(None) == ""
    assert sanitize_text_field(1.5) == "1.5"
    assert sanitize_text_field(["a"]) == ""
    assert sanitize_text_field({"a": 1}) == ""


def test_sanitize_text_field_rejects_text_that_is_not_utf8() -> None:
    assert sanitize_text_field("ok\ud800") == ""


def test_sanitize_text_field_keeps_unicode() -> None:
    assert sanitize_text_field("  Ça va\u00a0? ") == "Ça va\u00a0?"


def test_sanitize_textarea_field_keeps_newlines_and_inner_whitespace() -> None:
    assert sanitize_textarea_field("  line one\n\tline  two <i>x</i>\n") == "line one\n\tline  two x"
    assert sanitize_textarea_field("a%0Ab") == "ab"


# --------------------------------------------------------------------------- is_email


@pytest.mark.parametrize(
    "address",
    [
        "user@example.com",
        "first.last+tag@sub.example.co.uk",
        "o'brien@example.org",
        "x{y}|z~@example.com",
        "ab@c.de",
        "user@exa-mple.com",
    ],
)
def test_is_email_accepts(address: str) -> None:
    assert is_email(address) is True


@pytest.mark.parametrize(
    "address",
    [
        "a@b.c",  # shorter than 6 bytes
        "@example.com",  # no "@" after the first character
        "userexample.com",
        "us er@example.com",  # local part character
        "user@example..com",  # consecutive dots
        "user@.example.com",  # leading dot
        "user@example.com.",  # trailing dot
        "user@localhost",  # a single label
        "user@-example.com",  # label starting with a hyphen
        "user@example-.com",
        "user@exam_ple.com",  # label character
        "user@ex\u212aample.com",  # no case-folded look-alikes (Kelvin sign)
        "usér@example.com",
        "",
    ],
)
def test_is_email_rejects(address: str) -> None:
    assert is_email(address) is False


def test_is_email_rejects_non_strings() -> None:
    assert is_email(None) is False
    assert is_email(123456) is False


# --------------------------------------------------------------------------- esc_url_raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://example.com/path?a=1&b=2#frag", "https://example.com/path?a=1&b=2#frag"),
        ("example.com", "http://example.com"),
        ("www.example.com/a b", "http://www.example.com/a%20b"),
        ("/relative/path", "/relative/path"),
        ("#anchor", "#anchor"),
        ("?query=1", "?query=1"),
        ("index.php?p=1", "index.php?p=1"),
        ("  http://example.com", "http://example.com"),
        ("http://exa<mple>.com/\"q\"", "http://example.com/q"),
        ("http://example.com/a%0d%0Ab", "http://example.com/ab"),
        ("http://example.com/%0%0dd", "http://example.com/"),
        ("mailto:someone@example.com?body=a%0Ab", "mailto:someone@example.com?body=a%0Ab"),
        ("http://example.com/x[1]", "http://example.com/x%5B1%5D"),
        ("http://[::1]:8080/x[1]", "http://[::1]:8080/x%5B1%5D"),
        ("HTTP://Example.com/", "http://Example.com/"),
        ("tel:+15551234", "tel:+15551234"),
        ("urn:isbn:0451450523", "urn:isbn:0451450523"),
        ("ftp://files.example.com/f", "ftp://files.example.com/f"),
        ("feed:http://example.com/feed", "feed:http://example.com/feed"),
        ("http://example.com/ünï", "http://example.com/ünï"),
        # Without a literal colon the text is taken as a schemeless host name.
        ("javascript&#58;alert(1)", "http://javascript&#58;alert(1)"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_esc_url_raw(raw: str, expected: str) -> None:
    assert esc_url_raw(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "vbscript:msgbox",
        "feed:javascript&#58;alert(1)",
        "feed:javascript:alert(1)",
        "foo:bar",
    ],
)
def test_esc_url_raw_rejects_disallowed_schemes(raw: str) -> None:
    assert esc_url_raw(raw) == ""


def test_esc_url_raw_with_an_explicit_protocol_list() -> None:
    assert esc_url_raw("ftp://example.com", ["http", "https"]) == ""
    assert esc_url_raw("https://example.com", ["https"]) == "https://example.com"


def test_esc_url_raw_non_strings() -> None:
    assert esc_url_raw(None) == ""
    assert esc_url_raw(["http://x"]) == ""


# --------------------------------------------------------------------------- is_uuid


def test_is_uuid_any_version() -> None:
    assert is_uuid("123e4567-e89b-12d3-a456-426614174000") is True
    assert is_uuid("00000000-0000-0000-0000-000000000000") is True


@pytest.mark.parametrize(
    "value",
    [
        "123E4567-E89B-12D3-A456-426614174000",  # upper case is not accepted
        "123e4567e89b12d3a456426614174000",
        "123e4567-e89b-12d3-a456-42661417400",
        "{123e4567-e89b-12d3-a456-426614174000}",
        "g23e4567-e89b-12d3-a456-426614174000",
        "",
        None,
        42,
    ],
)
def test_is_uuid_rejects(value: object) -> None:
    assert is_uuid(value) is False


def test_is_uuid_version_4() -> None:
    assert is_uuid("f47ac10b-58cc-4372-a567-0e02b2c3d479", 4) is True
    assert is_uuid("f47ac10b-58cc-4372-c567-0e02b2c3d479", 4) is False  # variant nibble
    assert is_uuid("123e4567-e89b-12d3-a456-426614174000", 4) is False  # version 1
    assert is_uuid("f47ac10b-58cc-4372-a567-0e02b2c3d479", 5) is False  # only v4 is supported


# --------------------------------------------------------------------------- misc


def test_english_list() -> None:
    assert english_list([]) == ""
    assert english_list(["a"]) == "a"
    assert english_list(["a", "b"]) == "a and b"
    assert english_list(["a", "b", "c"]) == "a, b, and c"
    assert english_list(["view", "embed", "edit", "x"]) == "view, embed, edit, and x"
    assert english_list([1, True, 2.5]) == "1, 1, and 2.5"


# --------------------------------------------------------------------------- strip_all_tags, trim_words, convert_chars

# fmt: off
# (test name, arguments, expected) -- wp_trim_words
TRIM_WORDS_CASES = [
    ('test_trims_to_55_by_default', ['Lorem ipsum dolor sit amet, consectetur adipiscing elit. Fusce varius lacinia vehicula. Etiam sapien risus, ultricies ac posuere eu, convallis sit amet augue. Pellentesque urna massa, lacinia vel iaculis eget, bibendum in mauris. Aenean eleifend pulvinar ligula, a convallis eros gravida non. Suspendisse potenti. Pellentesque et odio tortor. In vulputate pellentesque libero, sed dapibus velit mollis viverra. Pellentesque id urna euismod dolor cursus sagittis.'], 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. Fusce varius lacinia vehicula. Etiam sapien risus, ultricies ac posuere eu, convallis sit amet augue. Pellentesque urna massa, lacinia vel iaculis eget, bibendum in mauris. Aenean eleifend pulvinar ligula, a convallis eros gravida non. Suspendisse potenti. Pellentesque et odio tortor. In vulputate pellentesque libero, sed dapibus velit&hellip;'),
    ('test_trims_to_10', ['Lorem ipsum dolor sit amet, consectetur adipiscing elit. Fusce varius lacinia vehicula. Etiam sapien risus, ultricies ac posuere eu, convallis sit amet augue. Pellentesque urna massa, lacinia vel iaculis eget, bibendum in mauris. Aenean eleifend pulvinar ligula, a convallis eros gravida non. Suspendisse potenti. Pellentesque et odio tortor. In vulputate pellentesque libero, sed dapibus velit mollis viverra. Pellentesque id urna euismod dolor cursus sagittis.', 10], 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. Fusce varius&hellip;'),
    ('test_trims_to_5_and_uses_custom_more', ['Lorem ipsum dolor sit amet, consectetur adipiscing elit. Fusce varius lacinia vehicula. Etiam sapien risus, ultricies ac posuere eu, convallis sit amet augue. Pellentesque urna massa, lacinia vel iaculis eget, bibendum in mauris. Aenean eleifend pulvinar ligula, a convallis eros gravida non. Suspendisse potenti. Pellentesque et odio tortor. In vulputate pellentesque libero, sed dapibus velit mollis viverra. Pellentesque id urna euismod dolor cursus sagittis.', 5, '[...] Read on!'], 'Lorem ipsum dolor sit amet,[...] Read on!'),
    ('test_strips_tags_before_trimming', ['This text contains a <a href="http://wordpress.org"> link </a> to WordPress.org!', 5], 'This text contains a link&hellip;'),
    ('test_strips_script_and_style_content', ['This text contains<script>alert(" JavaScript");</script>. It should go.'], 'This text contains. It should go.'),
    ('test_strips_script_and_style_content', ['This text contains<style>#css { width:expression(alert("css")) }</style>. It should go.'], 'This text contains. It should go.'),
    ('test_doesnt_trim_short_text', ['This is some short text.'], 'This is some short text.'),
]
# fmt: on


@pytest.mark.parametrize("name,args,expected", TRIM_WORDS_CASES, ids=[c[0] for c in TRIM_WORDS_CASES])
def test_trim_words_reference_suite(name, args, expected):
    assert trim_words(*args) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("a & b", "a &#038; b"),
        ("&amp; &#38; &copy;", "&amp; &#38; &copy;"),
        ("&&amp;", "&&amp;"),  # the character after "&" is consumed: neither changes
        ("no ampersand", "no ampersand"),
    ],
)
def test_convert_chars(text, expected):
    assert convert_chars(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("a<b>c</b>d", "acd"),
        ("1 < 2 > 3", "1 < 2 > 3"),
        ("x<script>y</script>z<style>s</style>", "xz"),
        ("a<!-- c -->b", "ab"),
        ('<a title=">">t</a>', "t"),
        ("  padded  ", "padded"),
        ("a<", "a"),
    ],
)
def test_strip_all_tags(text, expected):
    assert strip_all_tags(text) == expected
