"""Recurrence rules of imported iCalendar feeds (:mod:`.ics_import`): the checks that keep
their expansion bounded (dateutil, under recurring-ical-events, searches a rule that stops giving
instants up to the year 9999), the rewrites that cut or move a rule, and the :class:`Budget` of
processor time one parse may spend (checked by the reader, the expansion and the zone matching)."""

from __future__ import annotations

import datetime
import math
import re
import time
from typing import Any

from dateutil import rrule as du
from icalendar import vRecur

_UTC = datetime.UTC
_MIDNIGHT = datetime.time()

_FREQS = {"SECONDLY": 0, "MINUTELY": 1, "HOURLY": 2, "DAILY": 3, "WEEKLY": 4, "MONTHLY": 5, "YEARLY": 6}
FREQ_SECONDS = {0: 1, 1: 60, 2: 3600, 3: 86400}
_WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_BYDAY = re.compile(r"([+-]?\d{0,2})(MO|TU|WE|TH|FR|SA|SU)", re.IGNORECASE)
_WEEK_SECONDS = 7 * 86400
_DAY_FILTERS = ("BYMONTH", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYDAY")


class BudgetExceeded(BaseException):  # noqa: N818 (a signal, like KeyboardInterrupt, not an error)
    """The parse's budget ran out. A BaseException, so that the safety nets around each
    component (``except Exception``: skip it with a warning) let it through to the reader."""


class Budget:
    """Processor seconds one parse may spend: the time of the thread reading the feed
    (``time.thread_time``, so other requests of a threaded server do not count), checked with
    :meth:`check` at the points where the work may grow (each component, every thousand instants
    of a rule, each VTIMEZONE transition walk and zone match)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = max(0.0, float(seconds))
        self._deadline = time.thread_time() + self.seconds
        self.exceeded = False

    def check(self) -> None:
        if self.exceeded or time.thread_time() > self._deadline:
            self.exceeded = True
            raise BudgetExceeded


def rule_values(recur: vRecur, name: str) -> list[Any]:
    value = recur.get(name)
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def freq(recur: vRecur) -> int | None:
    values = rule_values(recur, "FREQ")
    return _FREQS.get(str(values[0]).upper()) if values else None


def interval(recur: vRecur) -> int:
    values = rule_values(recur, "INTERVAL")
    try:
        return max(1, int(values[0])) if values else 1
    except (TypeError, ValueError):
        return 1


def _weekdays(recur: vRecur) -> list[tuple[int, int]]:
    """(ordinal or 0, weekday 0-6) of each BYDAY entry."""
    found = []
    for value in rule_values(recur, "BYDAY"):
        match = _BYDAY.fullmatch(str(value).strip())
        if match is None:
            raise ValueError(f"bad BYDAY {value!r}")
        number = match.group(1)
        found.append((int(number) if number not in ("", "+", "-") else 0, _WEEKDAYS.index(match.group(2).upper())))
    return found


def _ints(recur: vRecur, name: str) -> tuple[int, ...] | None:
    values = rule_values(recur, name)
    return tuple(int(value) for value in values) if values else None


def _period_size(recur: vRecur, rank: int, weekdays: list[tuple[int, int]]) -> int:
    """At most how many instants one period of the rule holds (before BYSETPOS), counting the
    defaults dateutil takes from DTSTART when no day part is given."""
    plain = len({day for _, day in weekdays})
    month_days = len(rule_values(recur, "BYMONTHDAY"))
    year_days = len(rule_values(recur, "BYYEARDAY"))
    weeks = len(rule_values(recur, "BYWEEKNO"))
    other_days = bool(month_days or year_days or weeks)
    if rank <= 3:
        days = 1
    elif rank == 4:  # seven days in a row hold each weekday, month day and year day once
        days = min(plain or 7, month_days or 7, year_days or 7) if plain or other_days else 1
    elif rank == 5:
        days = min(5 * plain or 31, month_days or 31, year_days or 31) if plain or other_days else 1
    elif plain or other_days:
        days = min(53 * plain or 366, 12 * month_days or 366, year_days or 366, 7 * weeks or 366)
    else:
        days = len(rule_values(recur, "BYMONTH")) or 1
    per_day = 1
    for part, finest in (("BYHOUR", 3), ("BYMINUTE", 2), ("BYSECOND", 1)):
        if rank >= finest:
            per_day *= len(rule_values(recur, part)) or 1
    return days * per_day


def rule_problem(recur: vRecur, start: datetime.date) -> str | None:
    """Why the rule is not expanded, or None. dateutil searches a rule that stops giving
    instants up to the year 9999, one period at a time, and a sub-daily rule's search through
    the days its day parts filter out is slow whatever it finds, so these are left out: a
    sub-daily rule with day parts or BYSETPOS, and rules that surely never occur (sufficient
    conditions only: a BYSETPOS beyond any period's set, weekdays a daily-or-finer step never
    reaches, day parts no day of a 400-year Gregorian cycle passes)."""
    rank = freq(recur)
    if rank is None:
        return "it is unreadable"
    weekdays = _weekdays(recur)
    positions = _ints(recur, "BYSETPOS")
    if rank <= 2 and (positions or any(recur.get(name) for name in _DAY_FILTERS)):
        return "calpress does not expand sub-daily rules with day parts or BYSETPOS"
    never = "it never occurs"
    if positions and all(position == 0 or abs(position) > _period_size(recur, rank, weekdays) for position in positions):
        return never
    if rank == 3 and weekdays:
        step = interval(recur) * 86400
        gcd = math.gcd(step, _WEEK_SECONDS)
        if gcd > 86400:  # a step of whole weeks keeps to the start's weekday
            first = start.weekday()
            reached = {(first + index * step // 86400) % 7 for index in range(_WEEK_SECONDS // gcd)}
            if not reached & {day for _, day in weekdays}:
                return never
    if not any(recur.get(name) for name in _DAY_FILTERS):
        return None
    if rank == 5 and weekdays and all(abs(number) > 5 for number, _ in weekdays):
        return never
    plain = sorted({day for _, day in weekdays}) or list(range(7))
    # The Gregorian calendar repeats every 400 years: a day pattern missing from the 800 years
    # before 9999 is missing for ever (starting there keeps dateutil's search short).
    probe = du.rrule(
        du.YEARLY,
        dtstart=datetime.datetime(9200 + start.year % 400, start.month, start.day),
        count=1,
        bymonth=_ints(recur, "BYMONTH"),
        bymonthday=_ints(recur, "BYMONTHDAY"),
        byyearday=_ints(recur, "BYYEARDAY"),
        byweekno=_ints(recur, "BYWEEKNO"),
        byweekday=plain,
    )
    return never if next(iter(probe), None) is None else None


def has_rule_parts(recur: vRecur) -> bool:
    return any(str(name).upper().startswith("BY") for name in recur)


def dateutil_rule(recur: vRecur, start: datetime.date) -> du.rrule:
    """The rule as dateutil reads it from ``start`` (UNTIL brought to the start's kind)."""
    text = recur.to_ical().decode()
    text = ";".join(part for part in text.split(";") if part and not part.upper().startswith("UNTIL="))
    first = start if isinstance(start, datetime.datetime) else datetime.datetime.combine(start, _MIDNIGHT)
    rule = du.rrulestr(text, dtstart=first)
    if not isinstance(rule, du.rrule):
        raise ValueError("not a single rule")
    untils = rule_values(recur, "UNTIL")
    if untils and not rule_values(recur, "COUNT"):
        until = untils[0]
        if not isinstance(until, datetime.datetime):
            until = datetime.datetime.combine(until, datetime.time(23, 59, 59))
        if first.tzinfo is None:
            until = until.replace(tzinfo=None)
        elif until.tzinfo is None:
            until = until.replace(tzinfo=first.tzinfo)
        rule = rule.replace(until=until)
    return rule


def until_value(instant: datetime.datetime, start: datetime.date) -> datetime.date:
    """An UNTIL keeping ``instant`` (a dateutil instant of a rule starting at ``start``)."""
    if not isinstance(start, datetime.datetime):
        return instant.date()
    if instant.tzinfo is None:
        return instant
    return instant.astimezone(_UTC)


def with_until(recur: vRecur, until: datetime.date) -> vRecur:
    parts = {str(key).upper(): value for key, value in recur.items() if str(key).upper() not in ("COUNT", "UNTIL")}
    parts["UNTIL"] = [until]
    return vRecur(parts)
