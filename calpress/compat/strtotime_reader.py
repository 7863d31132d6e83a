"""The building blocks of PHP's ``strtotime()`` scanner (:mod:`.strtotime`): its word tables
(months, relative words and units), proleptic-Gregorian day arithmetic, the cursor each token
action reads its token with (PHP's ``timelib_get_nr`` and friends), and the parse state the
actions fill in."""

from __future__ import annotations

import math
import re

from .timezones import Zone, parse_zone

__all__ = [
    "DAY_NAMES",
    "FIRST_DAY_OF",
    "LAST_DAY_OF",
    "MICRO",
    "MONTHS",
    "SPECIAL_BUSINESS_DAYS",
    "SPECIAL_LAST_WEEKDAY_OF_MONTH",
    "SPECIAL_NTH_WEEKDAY_OF_MONTH",
    "UNITS",
    "ParseError",
    "Reader",
    "State",
    "civil_from_days",
    "day_of_week",
    "days_from_civil",
]

_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


# fmt: off
MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    # PHP accepts Roman numerals for months ("5 IV 2026"); its lookup ignores case.
    "i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
    "xi": 11, "xii": 12,
}
# fmt: on

DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")

# Relative-text words: value and "behaviour" (0 = strictly after today for weekdays, 1 = today
# counts, as for "this").
# fmt: off
_RELATIVE_TEXT = {
    "first": (1, 0), "next": (1, 0), "second": (2, 0), "third": (3, 0), "fourth": (4, 0),
    "fifth": (5, 0), "sixth": (6, 0), "seventh": (7, 0), "eight": (8, 0), "eighth": (8, 0),
    "ninth": (9, 0), "tenth": (10, 0), "eleventh": (11, 0), "twelfth": (12, 0),
    "last": (-1, 0), "previous": (-1, 0), "this": (0, 1),
}
# fmt: on

# Relative units: word -> (field, multiplier). Fields "us" "s" "i" "h" "d" "m" "y" are added to
# the relative offset; "wd" sets a weekday; "bd" counts business days ("weekdays").
MICRO = "\u00b5"


def _load_units() -> dict[str, tuple[str, int]]:
    units: dict[str, tuple[str, int]] = {}
    for words, field, mult in (
        ("ms msec msecs millisecond milliseconds", "us", 1000),
        (f"{MICRO}s usec usecs {MICRO}sec {MICRO}secs microsecond microseconds", "us", 1),
        ("sec secs second seconds", "s", 1),
        ("min mins minute minutes", "i", 1),
        ("hour hours", "h", 1),
        ("day days", "d", 1),
        ("week weeks", "d", 7),
        ("fortnight fortnights forthnight forthnights", "d", 14),
        ("month months", "m", 1),
        ("year years", "y", 1),
        ("weekday weekdays", "bd", 1),
    ):
        for word in words.split():
            units[word] = (field, mult)
    for number, name in enumerate(DAY_NAMES):
        for word in (name, name + "s", name[:3]):
            units[word] = ("wd", number)
    return units


UNITS = _load_units()

# Special relative kinds (PHP's "special" relative time).
SPECIAL_BUSINESS_DAYS = 1
SPECIAL_NTH_WEEKDAY_OF_MONTH = 2
SPECIAL_LAST_WEEKDAY_OF_MONTH = 3
FIRST_DAY_OF = 1
LAST_DAY_OF = 2


# --------------------------------------------------------------------------------------------
# Calendar arithmetic (proleptic Gregorian, any year; days counted from 1970-01-01)
# --------------------------------------------------------------------------------------------


def days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def day_of_week(y: int, m: int, d: int) -> int:
    """0 = Sunday ... 6 = Saturday, as PHP counts."""
    return (days_from_civil(y, m, d) + 4) % 7


# --------------------------------------------------------------------------------------------
# Token reading helpers (each works on one token's text, which PHP reads as a C string)
# --------------------------------------------------------------------------------------------

_SPACE_CHARS = " \t\u00a0\u202f"
_UNIT_DELIMITERS = frozenset("\0 ,\t;:/.-()")
_LETTERS = re.compile(r"[A-Za-z]*", re.ASCII)
_STRTOD = re.compile(r"[0-9]*(?:\.[0-9]*)?", re.ASCII)


class ParseError(Exception):
    """The string is not something PHP would accept (strtotime returns false)."""


class Reader:
    """A cursor over one token; reading past its end yields NUL, as in PHP's token copy."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def ch(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else "\0"

    def number(self, max_length: int) -> tuple[int | None, int]:
        """Skip to the next digits and read at most ``max_length`` of them: (value, length)."""
        text, pos, end = self.text, self.pos, len(self.text)
        while pos < end and not ("0" <= text[pos] <= "9"):
            if text[pos] == "\0":
                self.pos = pos
                return None, 0
            pos += 1
        if pos >= end:
            self.pos = pos
            return None, 0
        start = pos
        while pos < end and "0" <= text[pos] <= "9" and pos - start < max_length:
            pos += 1
        self.pos = pos
        return int(text[start:pos]), pos - start

    def nr(self, max_length: int) -> int | None:
        return self.number(max_length)[0]

    def signed_nr(self, max_length: int) -> int:
        """A number with any run of +/- signs before it (each "-" flips the sign)."""
        while self.ch() not in "+-" and not ("0" <= self.ch() <= "9"):
            if self.ch() == "\0":
                raise ParseError("unexpected data")
            self.pos += 1
        negative = False
        while self.ch() in "+-" and self.ch() != "\0":
            negative ^= self.ch() == "-"
            self.pos += 1
        while not ("0" <= self.ch() <= "9"):
            if self.ch() == "\0":
                raise ParseError("unexpected data")
            self.pos += 1
        start = self.pos
        while "0" <= self.ch() <= "9" and self.pos - start < max_length:
            self.pos += 1
        value = int(self.text[start : self.pos])
        if value > _INT64_MAX:
            raise ParseError("number out of range")
        return -value if negative else value

    def fraction(self) -> int | None:
        """Microseconds from ".123"-style digits; PHP scales and truncates like this."""
        while self.ch() not in ".:" and not ("0" <= self.ch() <= "9"):
            if self.ch() == "\0":
                return None
            self.pos += 1
        begin = self.pos
        while self.ch() in ".:" and self.ch() != "\0" or "0" <= self.ch() <= "9":
            self.pos += 1
        digits = _STRTOD.match(self.text, begin + 1, self.pos).group()
        value = float(digits) if digits not in ("", ".") else 0.0
        return int(value * math.pow(10, 7 - (self.pos - begin)))

    def skip(self, chars: str) -> None:
        while self.ch() != "\0" and self.ch() in chars:
            self.pos += 1

    def eat_spaces(self) -> None:
        self.skip(_SPACE_CHARS)

    def month(self) -> int:
        self.skip(" \t-./")
        word = _LETTERS.match(self.text, self.pos).group()
        self.pos += len(word)
        return MONTHS.get(word.lower(), 0)

    def skip_day_suffix(self) -> None:
        if self.ch().isspace():
            return
        if self.text[self.pos : self.pos + 2].lower() in ("nd", "rd", "st", "th"):
            self.pos += 2

    def meridian(self, hour: int) -> int:
        """Hours to add for am/pm after ``hour`` (12am is midnight, 12pm noon)."""
        while self.ch() not in "AaPp" or self.ch() == "\0":
            if self.pos >= len(self.text):
                return 0
            self.pos += 1
        if self.ch() in "Aa":
            delta = -12 if hour == 12 else 0
        else:
            delta = 12 if hour != 12 else 0
        self.pos += 1
        if self.ch() == ".":
            self.pos += 1
        if self.ch() in "Mm" and self.ch() != "\0":
            self.pos += 1
        if self.ch() == ".":
            self.pos += 1
        return delta

    def relative_text(self) -> tuple[int, int]:
        self.skip(" \t-/")
        word = _LETTERS.match(self.text, self.pos).group()
        self.pos += len(word)
        return _RELATIVE_TEXT.get(word.lower(), (0, 0))

    def unit(self) -> tuple[str, int] | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _UNIT_DELIMITERS:
            self.pos += 1
        return UNITS.get(self.text[start : self.pos].lower())

    def zone(self) -> Zone | None:
        """A zone as PHP reads one: offset, abbreviation or identifier; None if unknown."""
        zone, self.pos = parse_zone(self.text, self.pos)
        return zone


# --------------------------------------------------------------------------------------------
# Parse state
# --------------------------------------------------------------------------------------------


class State:
    """What the tokens of one string said; None means "not given, take it from now"."""

    # fmt: off
    __slots__ = (
        "y", "m", "d", "h", "i", "s", "us",
        "have_time", "have_date", "have_zone", "zone",
        "rel_y", "rel_m", "rel_d", "rel_h", "rel_i", "rel_s", "rel_us",
        "weekday", "weekday_behavior", "have_weekday_relative",
        "special_type", "special_amount", "have_special_relative", "first_last_day_of",
    )
    # fmt: on

    def __init__(self) -> None:
        self.y = self.m = self.d = self.h = self.i = self.s = self.us = None
        self.have_time = 0
        self.have_date = False
        self.have_zone = 0
        self.zone: Zone | None = None
        self.rel_y = self.rel_m = self.rel_d = self.rel_h = self.rel_i = self.rel_s = self.rel_us = 0
        self.weekday = 0
        self.weekday_behavior = 0
        self.have_weekday_relative = False
        self.special_type = 0
        self.special_amount = 0
        self.have_special_relative = False
        self.first_last_day_of = 0

    # PHP's bookkeeping: a second time or date in one string is an error ("Double time
    # specification"); words such as "today" and "tomorrow" reset the time to midnight.
    def set_time(self) -> None:
        if self.have_time:
            raise ParseError("double time specification")
        self.have_time = 1
        self.h = self.i = self.s = self.us = 0

    def reset_time(self) -> None:
        self.have_time = 0
        self.h = self.i = self.s = self.us = 0

    def set_date(self) -> None:
        if self.have_date:
            raise ParseError("double date specification")
        self.have_date = True

    def set_zone_slot(self) -> bool:
        """Claim the one zone a string may name; a second is ignored, a third is an error."""
        if self.have_zone:
            if self.have_zone > 1:
                raise ParseError("double timezone specification")
            self.have_zone += 1
            return False
        self.have_zone += 1
        return True

    def add_relative(self, field: str, amount: int) -> None:
        name = "rel_" + field
        value = getattr(self, name) + amount
        if abs(value) > _INT64_MAX:
            raise ParseError("number out of range")
        setattr(self, name, value)

    def set_relative(self, reader: Reader, amount: int, behavior: int, keep_time: bool) -> None:
        unit = reader.unit()
        if unit is None:
            return
        field, mult = unit
        if field == "wd":
            self.have_weekday_relative = True
            if not keep_time:
                self.reset_time()
            # "next monday" is the first Monday after today; "second monday" a week later.
            self.rel_d += (amount - 1 if amount > 0 else amount) * 7
            self.weekday = mult
            self.weekday_behavior = behavior
        elif field == "bd":
            self.have_special_relative = True
            if not keep_time:
                self.reset_time()
            self.special_type = SPECIAL_BUSINESS_DAYS
            self.special_amount = amount
        else:
            self.add_relative(field, amount * mult)

    def set_zone(self, reader: Reader) -> None:
        zone = reader.zone()
        if zone is None:
            raise ParseError("unknown time zone")
        self.zone = zone
