"""Format helpers: the reference's text sanitising, e-mail/UUID/IP/colour checks, URL cleaning and dates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from calpress.rest.formats import (
    english_list,
    esc_url_raw,
    is_email,
    is_ip,
    is_rest_date,
    is_uuid,
    parse_rest_date,
    sanitize_hex_color,
    sanitize_text_field,
    sanitize_textarea_field,
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


# --------------------------------------------------------------------------- is_ip


@pytest.mark.parametrize(
    "value",
    [
        "127.0.0.1",
        "255.255.255.255",
        "0.0.0.0",
        "010.001.0.1",  # the reference's regex allows leading zeros
        "::1",
        "::",
        "2001:db8::ff00:42:8329",
        "2001:0db8:0000:0000:0000:ff00:0042:8329",
        "::ffff:192.0.2.128",
        "FE80::1",
    ],
)
def test_is_ip_accepts(value: str) -> None:
    assert is_ip(value) is True


@pytest.mark.parametrize(
    "value",
    ["256.0.0.1", "1.2.3", "1.2.3.4.5", "a.b.c.d", "1.2.3.4 ", "2001:db8::g", "1::2::3", "fe80::1%eth0", "", None, 1234],
)
def test_is_ip_rejects(value: object) -> None:
    assert is_ip(value) is False


# --------------------------------------------------------------------------- hex colours


def test_sanitize_hex_color() -> None:
    assert sanitize_hex_color("#fff") == "#fff"
    assert sanitize_hex_color("#A1B2C3") == "#A1B2C3"
    assert sanitize_hex_color("") == ""
    assert sanitize_hex_color("fff") is None
    assert sanitize_hex_color("#ffff") is None
    assert sanitize_hex_color("#ggg") is None
    assert sanitize_hex_color(None) is None


# --------------------------------------------------------------------------- dates


def test_parse_rest_date_with_and_without_zone() -> None:
    assert parse_rest_date("2021-03-04T05:06:07") == datetime(2021, 3, 4, 5, 6, 7)
    assert parse_rest_date("2021-03-04 05:06:07Z") == datetime(2021, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert parse_rest_date("2021-03-04t05:06:07+02:00") == datetime(
        2021, 3, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=2))
    )
    assert parse_rest_date("2021-03-04T05:06:07-05") == datetime(
        2021, 3, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=-5))
    )
    assert parse_rest_date("2021-03-04T05:06:07.123456Z") == datetime(
        2021, 3, 4, 5, 6, 7, 123456, tzinfo=UTC
    )


def test_parse_rest_date_overflows_like_the_reference() -> None:
    assert parse_rest_date("2021-02-30T00:00:00") == datetime(2021, 3, 2)
    assert parse_rest_date("2021-12-31T24:00:00") == datetime(2022, 1, 1)


@pytest.mark.parametrize(
    "value",
    [
        "2021-03-04",
        "2021-03-04T05:06",
        "2021-3-4T05:06:07",
        "2021-03-04T05:06:07z",  # only an upper-case Z
        "2021-03-04T05:06:07+0200",
        "2021-03-04X05:06:07",
        "2021-13-04T05:06:07",
        "2021-03-32T05:06:07",
        "2021-03-04T25:06:07",
        "2021-03-04T05:60:07",
        "not a date",
        "",
        None,
        20210304,
    ],
)
def test_parse_rest_date_rejects(value: object) -> None:
    assert parse_rest_date(value) is None
    assert is_rest_date(value) is False


def test_is_rest_date_rejects_the_epoch_itself() -> None:
    # The reference tests the Unix timestamp for truthiness: timestamp 0 reads as "invalid".
    assert is_rest_date("1970-01-01T00:00:00Z") is False
    assert is_rest_date("1970-01-01T00:00:00") is False
    assert is_rest_date("1970-01-01T01:00:00+01:00") is False
    assert is_rest_date("1970-01-01T00:00:01Z") is True
    assert is_rest_date("2024-02-29T12:00:00") is True


# --------------------------------------------------------------------------- misc


def test_english_list() -> None:
    assert english_list([]) == ""
    assert english_list(["a"]) == "a"
    assert english_list(["a", "b"]) == "a and b"
    assert english_list(["a", "b", "c"]) == "a, b, and c"
    assert english_list(["view", "embed", "edit", "x"]) == "view, embed, edit, and x"
    assert english_list([1, True, 2.5]) == "1, 1, and 2.5"


