"""PHP's ``strtotime()`` scanner (:mod:`.strtotime`): one action per PHP token class, the token
patterns, and :func:`scan`, which tokenises a string as PHP's re2c scanner does (longest token
wins, the earlier class on a tie) and collects what its tokens say."""

from __future__ import annotations

import re

from .strtotime_reader import (
    DAY_NAMES,
    FIRST_DAY_OF,
    LAST_DAY_OF,
    MICRO,
    MONTHS,
    SPECIAL_BUSINESS_DAYS,
    SPECIAL_LAST_WEEKDAY_OF_MONTH,
    SPECIAL_NTH_WEEKDAY_OF_MONTH,
    UNITS,
    ParseError,
    Reader,
    State,
    day_of_week,
)
from .timezones import Zone

__all__ = ["scan"]


def _process_year(value: int | None, length: int) -> int | None:
    """Two-digit years: 00-69 are 20xx, 70-99 are 19xx (only when fewer than four digits)."""
    if value is None or length >= 4 or value >= 100:
        return value
    return value + (2000 if value < 70 else 1900)


# --------------------------------------------------------------------------------------------
# Token actions (one per PHP token class)
# --------------------------------------------------------------------------------------------


def _a_yesterday(st: State, tok: str) -> None:
    st.reset_time()
    st.rel_d = -1


def _a_now(st: State, tok: str) -> None:
    pass


def _a_noon(st: State, tok: str) -> None:
    st.reset_time()
    st.set_time()
    st.h = 12


def _a_today(st: State, tok: str) -> None:  # also "midnight"
    st.reset_time()


def _a_tomorrow(st: State, tok: str) -> None:
    st.reset_time()
    st.rel_d = 1


def _a_timestamp(st: State, tok: str) -> None:
    st.have_date = False
    st.y = st.m = st.d = 0
    st.reset_time()
    if not st.set_zone_slot():
        return  # PHP gives up on the rest of a timestamp that follows a zone
    reader = Reader(tok)
    seconds = reader.signed_nr(24)
    micro = 0
    if reader.ch() == ".":
        before = reader.pos
        micro = reader.signed_nr(6)
        micro = micro * 10 ** (7 - (reader.pos - before))
        if tok[1] == "-":
            micro = -micro
        st.rel_us = micro
    st.y, st.m, st.d = 1970, 1, 1
    st.h = st.i = st.s = st.us = 0
    st.rel_s += seconds
    st.zone = Zone("offset", 0)


def _a_first_last_day_of(st: State, tok: str) -> None:
    # PHP keeps the time of day here ("first day of next month" at 17:42 stays 17:42).
    st.first_last_day_of = LAST_DAY_OF if tok[0] in "lL" else FIRST_DAY_OF


def _a_back_front_of(st: State, tok: str) -> None:
    st.reset_time()
    st.set_time()
    reader = Reader(tok)
    hour = reader.nr(2) or 0
    if tok[0] in "bB":
        st.h, st.i = hour, 15
    else:
        st.h, st.i = hour - 1, 45
    if reader.ch() != "\0":
        reader.eat_spaces()
        st.h += reader.meridian(st.h)


def _a_weekday_of(st: State, tok: str) -> None:
    st.have_special_relative = True
    reader = Reader(tok)
    amount, behavior = reader.relative_text()
    reader.eat_spaces()
    if amount > 0:
        st.special_type = SPECIAL_NTH_WEEKDAY_OF_MONTH
        st.set_relative(reader, amount, 1, keep_time=False)
    else:
        st.special_type = SPECIAL_LAST_WEEKDAY_OF_MONTH
        st.set_relative(reader, amount, behavior, keep_time=False)


def _a_time12(st: State, tok: str) -> None:
    st.set_time()
    reader = Reader(tok)
    st.h = reader.nr(2)
    if reader.ch() in ":.":
        st.i = reader.nr(2)
        if reader.ch() in ":.":
            st.s = reader.nr(2)
    reader.eat_spaces()
    st.h += reader.meridian(st.h)


def _a_mssqltime(st: State, tok: str) -> None:
    st.set_time()
    reader = Reader(tok)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    if reader.ch() in ":.":
        st.s = reader.nr(2)
        if reader.ch() in ":.":
            st.us = reader.fraction()
    reader.eat_spaces()
    st.h += reader.meridian(st.h)


def _a_time24(st: State, tok: str) -> None:
    st.set_time()
    reader = Reader(tok)
    st.h = reader.nr(2)
    if reader.ch() in ":.":
        st.i = reader.nr(2)
        if reader.ch() in ":.":
            st.s = reader.nr(2)
            if reader.ch() == ".":
                st.us = reader.fraction()
    if reader.ch() != "\0":
        st.set_zone(reader)


def _a_gnunocolon(st: State, tok: str) -> None:
    # Four digits are a time ("2026" is 20:26) unless a time was already given, then a year.
    reader = Reader(tok)
    if st.have_time == 0:
        st.h = reader.nr(2)
        st.i = reader.nr(2)
        st.s = 0
    elif st.have_time == 1:
        st.y = reader.nr(4)
    else:
        raise ParseError("double time specification")
    st.have_time += 1


def _a_iso8601nocolon(st: State, tok: str) -> None:
    st.set_time()
    reader = Reader(tok)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    st.s = reader.nr(2)
    if reader.ch() != "\0":
        st.set_zone(reader)


def _a_american(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    if reader.ch() == "/":
        value, length = reader.number(4)
        st.y = _process_year(value, length)


def _a_iso_date(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.y = reader.signed_nr(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)


def _a_iso_date2(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    value, length = reader.number(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    st.y = _process_year(value, length)


def _a_iso_datex(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.y = reader.signed_nr(19)
    st.m = reader.nr(2)
    st.d = reader.nr(2)


def _a_gnudateshorter(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    value, length = reader.number(4)
    st.m = reader.nr(2)
    st.d = 1
    st.y = _process_year(value, length)


def _a_gnudateshort(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    value, length = reader.number(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    st.y = _process_year(value, length)


def _a_datefull(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.d = reader.nr(2)
    reader.skip_day_suffix()
    st.m = reader.month()
    value, length = reader.number(4)
    st.y = _process_year(value, length)


def _a_pointed4(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.d = reader.nr(2)
    st.m = reader.nr(2)
    st.y = reader.nr(4)


def _a_pointed2(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.d = reader.nr(2)
    st.m = reader.nr(2)
    value, length = reader.number(2)
    st.y = _process_year(value, length)


def _a_datenoday(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.m = reader.month()
    value, length = reader.number(4)
    st.d = 1
    st.y = _process_year(value, length)


def _a_datenodayrev(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    value, length = reader.number(4)
    st.m = reader.month()
    st.d = 1
    st.y = _process_year(value, length)


def _a_datetextual(st: State, tok: str) -> None:  # also "datenoyear": the year stays unset
    st.set_date()
    reader = Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    value, length = reader.number(4)
    st.y = _process_year(value, length)


def _a_datenoyearrev(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.d = reader.nr(2)
    reader.skip_day_suffix()
    st.m = reader.month()


def _a_datenocolon(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.y = reader.nr(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)


def _a_datetime_full(st: State, tok: str) -> None:  # xmlrpc, soap, wddx, exif
    st.set_time()
    st.set_date()
    reader = Reader(tok)
    st.y = reader.nr(4)
    st.m = reader.nr(2)
    st.d = reader.nr(2)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    st.s = reader.nr(2)
    if reader.ch() == ".":
        st.us = reader.fraction()
        if reader.ch() != "\0":
            st.set_zone(reader)


def _a_pgydotd(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    value, length = reader.number(4)
    st.d = reader.nr(3)
    st.m = 1
    st.y = _process_year(value, length)


def _iso_week_start(year: int, week: int, day: int) -> int:
    """Days from January 1st of ``year`` to ISO ``week``/``day`` (1 = Monday, 0/7 = Sunday)."""
    dow = day_of_week(year, 1, 1)
    first = -(dow - 7 if dow > 4 else dow)
    return first + (week - 1) * 7 + day


def _a_isoweekday(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.y = reader.nr(4)
    week = reader.nr(2)
    day = reader.nr(1)
    st.m = st.d = 1
    st.rel_d = _iso_week_start(st.y, week, day)


def _a_isoweek(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.y = reader.nr(4)
    week = reader.nr(2)
    st.m = st.d = 1
    st.rel_d = _iso_week_start(st.y, week, 1)


def _a_pgtextshort(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    value, length = reader.number(4)
    st.y = _process_year(value, length)


def _a_pgtextreverse(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    value, length = reader.number(4)
    st.m = reader.month()
    st.d = reader.nr(2)
    st.y = _process_year(value, length)


def _a_clf(st: State, tok: str) -> None:
    st.set_time()
    st.set_date()
    reader = Reader(tok)
    st.d = reader.nr(2)
    st.m = reader.month()
    st.y = reader.nr(4)
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    st.s = reader.nr(2)
    reader.eat_spaces()
    st.set_zone(reader)


def _a_year4(st: State, tok: str) -> None:
    st.y = int(tok[:4])


def _a_ago(st: State, tok: str) -> None:
    # "ago" negates everything relative said so far, but not microseconds (as PHP).
    st.rel_y, st.rel_m, st.rel_d = -st.rel_y, -st.rel_m, -st.rel_d
    st.rel_h, st.rel_i, st.rel_s = -st.rel_h, -st.rel_i, -st.rel_s
    st.weekday = -st.weekday
    if st.weekday == 0:
        st.weekday = -7
    if st.have_special_relative and st.special_type == SPECIAL_BUSINESS_DAYS:
        st.special_amount = -st.special_amount


def _a_daytext(st: State, tok: str) -> None:
    # A bare day name: that day this week or later (today counts). "weekday" is Monday here.
    st.have_weekday_relative = True
    st.reset_time()
    unit = UNITS[tok.lower()]
    st.weekday = unit[1]
    if st.weekday_behavior != 2:
        st.weekday_behavior = 1


def _a_relativetextweek(st: State, tok: str) -> None:
    # "next week" / "this week" / "last week": PHP moves to the Monday of that week (a weekday
    # named elsewhere in the string wins), keeping the time of day.
    reader = Reader(tok)
    while reader.ch() != "\0":
        start = reader.pos
        amount, behavior = reader.relative_text()
        reader.eat_spaces()
        st.set_relative(reader, amount, behavior, keep_time=False)
        st.weekday_behavior = 2
        if not st.have_weekday_relative:
            st.have_weekday_relative = True
            st.weekday = 1
        if reader.pos == start:
            break


def _a_relativetext(st: State, tok: str) -> None:
    reader = Reader(tok)
    while reader.ch() != "\0":
        start = reader.pos
        amount, behavior = reader.relative_text()
        reader.eat_spaces()
        st.set_relative(reader, amount, behavior, keep_time=False)
        if reader.pos == start:
            break


def _a_month(st: State, tok: str) -> None:
    st.set_date()
    st.m = MONTHS[tok.lower()]


def _a_zone(st: State, tok: str) -> None:
    if not st.set_zone_slot():
        return
    reader = Reader(tok)
    reader.eat_spaces()
    st.set_zone(reader)


def _a_dateshort_time12(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    st.set_time()
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    if reader.ch() in ":.":
        st.s = reader.nr(2)
        if reader.ch() == ".":
            st.us = reader.fraction()
    st.h += reader.meridian(st.h)


def _a_dateshort_time24(st: State, tok: str) -> None:
    st.set_date()
    reader = Reader(tok)
    st.m = reader.month()
    st.d = reader.nr(2)
    st.set_time()
    st.h = reader.nr(2)
    st.i = reader.nr(2)
    if reader.ch() == ":":
        st.s = reader.nr(2)
        if reader.ch() == ".":
            st.us = reader.fraction()
    if reader.ch() != "\0":
        st.set_zone(reader)


def _a_relative(st: State, tok: str) -> None:
    reader = Reader(tok)
    while reader.ch() != "\0":
        start = reader.pos
        amount = reader.signed_nr(24)
        reader.eat_spaces()
        st.set_relative(reader, amount, 1, keep_time=True)
        if reader.pos == start:
            break


# --------------------------------------------------------------------------------------------
# Token patterns. PHP's scanner takes, at each position, the longest match over all token
# classes, the earlier class winning a tie. Each pattern below is written so that Python's
# first match is that class's longest (longer alternatives first); classes with alternatives
# that overlap are split into several patterns and the scanner compares their lengths.
# --------------------------------------------------------------------------------------------


def _alt(words, ignore_case: bool = True) -> str:
    body = "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))
    return f"(?i:{body})" if ignore_case else f"(?:{body})"


_SP = "(?:[ \\t]+|\u00a0+|\u202f+)"
_FRAC = r"\.[0-9]+"
_H24 = r"(?:2[0-4]|[01]?[0-9])"
_H24LZ = r"(?:2[0-4]|[01][0-9])"
_H12 = r"(?:1[0-2]|0?[1-9])"
_MIN = r"[0-5]?[0-9]"
_MINLZ = r"[0-5][0-9]"
_SEC = r"(?:60|[0-5]?[0-9])"
_SECLZ = r"(?:60|[0-5][0-9])"
_MERIDIAN = r"[AaPp]\.?[Mm]\.?[\0\t ]"
_TZCORR = rf"(?:GMT)?[+-](?:{_H24LZ}:{_MINLZ}:{_SECLZ}|{_H24LZ}{_MINLZ}{_SECLZ}|{_H24}(?::?{_MIN})?)"
_TZ_WORD = r"\(?[A-Za-z]{1,6}\)?"
_TZ_ID = r"[A-Z][a-z]+(?:[_/-][A-Za-z]+)+"
_MONTH = r"(?:1[0-2]|0?[0-9])"
_DAY = r"(?:3[01]|[0-2]?[0-9])(?:st|nd|rd|th)?"
_YEAR = r"[0-9]{1,4}"
_Y2 = r"[0-9]{2}"
_Y4 = r"[0-9]{4}"
_DOY = r"(?:36[0-6]|3[0-5][0-9]|[12][0-9][0-9]|0[1-9][0-9]|00[1-9])"
_WOY = r"(?:5[0-3]|[1-4][0-9]|0[1-9])"
_MONTHLZ = r"(?:0[0-9]|1[0-2])"
_DAYLZ = r"(?:0[0-9]|[12][0-9]|3[01])"
_DAY_FULLS = [d + "s" for d in DAY_NAMES]
_DAY_ABBRS = [d[:3] for d in DAY_NAMES]
_DAYTEXT = _alt(_DAY_FULLS + list(DAY_NAMES) + _DAY_ABBRS + ["weekday", "weekdays"])
# fmt: off
_MONTH_NAMES = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
]
# fmt: on
_MONTH_ABBRS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"]
_MONTHABBR = _alt(_MONTH_ABBRS)
_MONTHWORD = _alt(_MONTH_NAMES + _MONTH_ABBRS)
_MONTHTEXT = rf"(?:{_MONTHWORD}|{_alt(['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'], False)})"
# fmt: off
_RELTEXTNUMBER = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eight", "eighth", "ninth",
    "tenth", "eleventh", "twelfth",
]
# fmt: on
_RELTEXTTEXT = ["next", "last", "previous", "this"]
_RELTEXT = _alt(_RELTEXTNUMBER + _RELTEXTTEXT)
# fmt: off
_RELUNIT = (
    "(?:"
    + _alt(
        ["ms", "weeks"]
        + [
            base + plural
            for base in ("msec", "millisecond", "microsecond", "usec", "sec", "second", "min", "minute", "hour",
                         "day", "fortnight", "forthnight", "month", "year")
            for plural in ("", "s")
        ]
        + _DAY_FULLS + list(DAY_NAMES) + _DAY_ABBRS + ["weekday", "weekdays"]
    )
    + f"|{MICRO}secs|{MICRO}sec|{MICRO}s)"
)
# fmt: on
_DATENOYEAR = rf"{_MONTHTEXT}[ .\t-]*{_DAY}(?:[,.stndrh\t ]+|\0)"
_TIMESHORT12 = rf"{_H12}[:.]{_MINLZ}{_SP}?{_MERIDIAN}"
_TIMELONG12 = rf"{_H12}[:.]{_MIN}[:.]{_SECLZ}{_SP}?{_MERIDIAN}"
_TIMESHORT24 = rf"(?i:t)?{_H24}[:.]{_MIN}"
_TIMELONG24 = rf"(?i:t)?{_H24}[:.]{_MIN}[:.]{_SEC}"
_ISO8601NORMTZ = rf"(?i:t)?{_H24}[:.]{_MIN}[:.]{_SECLZ}{_SP}?"

_DIGITS = "0123456789"
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_MONTH_FIRSTS = "jfmasondJFMASOND"
_RELTEXT_FIRSTS = "fstenlpFSTENLP"
_DAYTEXT_FIRSTS = "smtwfSMTWF"

# (first characters, pattern, action); the list order is PHP's rule order (ties go to the
# earlier rule). An action of None skips the token.
_RULES: list[tuple[str, str, object]] = [
    ("yY", r"(?i:yesterday)", _a_yesterday),
    ("nN", r"(?i:now)", _a_now),
    ("nN", r"(?i:noon)", _a_noon),
    ("mMtT", r"(?i:midnight|today)", _a_today),
    ("tT", r"(?i:tomorrow)", _a_tomorrow),
    ("@", r"@-?[0-9]+", _a_timestamp),
    ("@", r"@-?[0-9]+\.[0-9]{0,6}", _a_timestamp),
    ("fFlL", r"(?i:first day of|last day of)", _a_first_last_day_of),
    ("bBfF", rf"(?i:back of |front of ){_H24}(?:{_SP}?{_MERIDIAN})?", _a_back_front_of),
    (_RELTEXT_FIRSTS, rf"{_RELTEXT}{_SP}{_alt(_DAY_FULLS + list(DAY_NAMES) + _DAY_ABBRS)}{_SP}(?i:of)", _a_weekday_of),
    (_DIGITS, rf"{_H12}{_SP}?{_MERIDIAN}", _a_time12),
    (_DIGITS, _TIMESHORT12, _a_time12),
    (_DIGITS, _TIMELONG12, _a_time12),
    (_DIGITS, rf"{_H12}:{_MINLZ}:{_SECLZ}[:.][0-9]+{_MERIDIAN}", _a_mssqltime),
    ("tT", rf"(?i:t){_H24}", _a_time24),
    (_DIGITS + "tT", _TIMESHORT24, _a_time24),
    (_DIGITS + "tT", _TIMELONG24, _a_time24),
    (_DIGITS + "tT", rf"(?i:t)?{_H24}[:.]{_MIN}[:.]{_SEC}{_FRAC}", _a_time24),
    (_DIGITS + "tT", rf"(?i:t)?{_H24LZ}{_MINLZ}", _a_gnunocolon),
    (_DIGITS + "tT", rf"(?i:t)?{_H24LZ}{_MINLZ}{_SECLZ}", _a_iso8601nocolon),
    (_DIGITS, rf"{_MONTH}/{_DAY}/{_YEAR}", _a_american),
    (_DIGITS, rf"{_MONTH}/{_DAY}", _a_american),
    (_DIGITS + "+-", rf"[+-]?{_Y4}-{_MONTHLZ}-{_DAYLZ}", _a_iso_date),
    (_DIGITS, rf"{_Y4}/{_MONTHLZ}/{_DAYLZ}/?", _a_iso_date),
    (_DIGITS, rf"{_Y4}/{_MONTH}/{_DAY}", _a_iso_date),
    (_DIGITS, rf"{_Y2}-{_MONTHLZ}-{_DAYLZ}", _a_iso_date2),
    ("+-", rf"[+-][0-9]{{5,19}}-{_MONTHLZ}-{_DAYLZ}", _a_iso_datex),
    (_DIGITS, rf"{_Y4}-{_MONTH}", _a_gnudateshorter),
    (_DIGITS, rf"{_YEAR}-{_MONTH}-{_DAY}", _a_gnudateshort),
    (_DIGITS, rf"{_DAY}[ \t.-]*{_MONTHTEXT}[ \t.-]*{_YEAR}", _a_datefull),
    (_DIGITS, rf"{_DAY}[.\t-]{_MONTH}[.-]{_Y4}", _a_pointed4),
    (_DIGITS, rf"{_DAY}[.\t]{_MONTH}\.{_Y2}", _a_pointed2),
    (_MONTH_FIRSTS + "IVX", rf"{_MONTHTEXT}[ .\t-]*{_Y4}", _a_datenoday),
    (_DIGITS, rf"{_Y4}[ .\t-]*{_MONTHTEXT}", _a_datenodayrev),
    (_MONTH_FIRSTS + "IVX", rf"{_MONTHTEXT}[ .\t-]*{_DAY}[,.stndrh\t ]+{_YEAR}", _a_datetextual),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR, _a_datetextual),
    (_DIGITS, rf"{_DAY}[ .\t-]*{_MONTHTEXT}", _a_datenoyearrev),
    (_DIGITS, rf"{_Y4}{_MONTHLZ}{_DAYLZ}", _a_datenocolon),
    (_DIGITS, rf"{_Y4}{_MONTHLZ}{_DAYLZ}T{_H24}:{_MINLZ}:{_SECLZ}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}{_MONTHLZ}{_DAYLZ}(?i:t){_H24}{_MINLZ}{_SECLZ}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}-{_MONTHLZ}-{_DAYLZ}T{_H24LZ}:{_MINLZ}:{_SECLZ}{_FRAC}(?:{_TZCORR})?", _a_datetime_full),
    (_DIGITS, rf"{_Y4}-{_MONTH}-{_DAY}T{_H24}:{_MIN}:{_SEC}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}:{_MONTHLZ}:{_DAYLZ} {_H24LZ}:{_MINLZ}:{_SECLZ}", _a_datetime_full),
    (_DIGITS, rf"{_Y4}[.-]?{_DOY}", _a_pgydotd),
    (_DIGITS, rf"{_Y4}-?W{_WOY}-?[0-7]", _a_isoweekday),
    (_DIGITS, rf"{_Y4}-?W{_WOY}", _a_isoweek),
    (_MONTH_FIRSTS, rf"{_MONTHABBR}-{_DAYLZ}-{_YEAR}", _a_pgtextshort),
    (_DIGITS, rf"{_YEAR}-{_MONTHABBR}-{_DAYLZ}", _a_pgtextreverse),
    (_DIGITS, rf"{_DAY}/{_MONTHABBR}/{_Y4}:{_H24LZ}:{_MINLZ}:{_SECLZ}{_SP}{_TZCORR}", _a_clf),
    (_DIGITS, _Y4, _a_year4),
    ("aA", r"(?i:ago)", _a_ago),
    (_DAYTEXT_FIRSTS, _DAYTEXT, _a_daytext),
    (_RELTEXT_FIRSTS, rf"{_alt(_RELTEXTTEXT)}{_SP}(?i:week)", _a_relativetextweek),
    (_RELTEXT_FIRSTS, rf"{_RELTEXT}{_SP}{_RELUNIT}", _a_relativetext),
    (_MONTH_FIRSTS, _MONTHWORD, _a_month),
    ("G+-", _TZCORR, _a_zone),
    ("(" + _ASCII_LETTERS, _TZ_WORD, _a_zone),
    (_ASCII_LETTERS, _TZ_ID, _a_zone),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMESHORT12, _a_dateshort_time12),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMELONG12, _a_dateshort_time12),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMESHORT24, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _TIMELONG24, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _ISO8601NORMTZ + _TZCORR, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _ISO8601NORMTZ + _TZ_WORD, _a_dateshort_time24),
    (_MONTH_FIRSTS + "IVX", _DATENOYEAR + _ISO8601NORMTZ + _TZ_ID, _a_dateshort_time24),
    (_DIGITS + "+- \t", rf"[+-]*[ \t]*[0-9]{{1,13}}{_SP}?(?:{_RELUNIT}|(?i:week))", _a_relative),
    (".,", r"[.,]", None),
    (" \t\u00a0\u202f", _SP, None),
    ("\0\n", r"[\0\n]", None),
]


def _build_index() -> dict[str, tuple[tuple[re.Pattern[str], object], ...]]:
    """Candidate rules by first character; "<digit>#" keys are for runs of four or more digits."""
    index: dict[str, list[tuple[re.Pattern[str], object]]] = {}
    for firsts, pattern, action in _RULES:
        compiled = re.compile(pattern, re.ASCII)
        needs_four_digits = pattern.startswith((_Y4, "[+-]?" + _Y4))
        for ch in dict.fromkeys(firsts):
            keys = [ch]
            if ch in _DIGITS:
                keys = [ch + "#"] if needs_four_digits else [ch, ch + "#"]
            for key in keys:
                index.setdefault(key, []).append((compiled, action))
    return {key: tuple(rules) for key, rules in index.items()}


_INDEX = _build_index()


def scan(text: str) -> State:
    """Tokenise ``text`` (already trimmed) the way PHP's scanner does and collect what it says."""
    st = State()
    buf = text + "\0"
    end = len(text)
    pos = 0
    while pos < end:
        key = buf[pos]
        if "0" <= key <= "9" and buf[pos + 1 : pos + 4].isdigit():
            key += "#"
        rules = _INDEX.get(key)
        if rules is None:
            raise ParseError("unexpected character")
        best_len = 0
        best_action = None
        for pattern, action in rules:
            match = pattern.match(buf, pos)
            if match is not None:
                length = match.end() - pos
                if length > best_len:
                    best_len, best_action = length, action
        if best_len == 0:
            raise ParseError("unexpected character")
        if best_action is not None:
            best_action(st, buf[pos : pos + best_len])
        pos += best_len
    return st
