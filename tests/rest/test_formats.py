"""The REST engine's own formats: IP and colour checks, and dates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from calpress.rest.formats import (
    is_ip,
    is_rest_date,
    parse_rest_date,
    sanitize_hex_color,
)

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
