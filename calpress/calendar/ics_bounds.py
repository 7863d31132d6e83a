"""The recurrence rules of an imported iCalendar feed (:mod:`.ics_import`) fitted to its window
before they are expanded, because the engine under the expansion (dateutil) searches a rule that
stops giving instants up to the year 9999, one period at a time, and searches the days a
sub-daily rule's day parts filter out slowly. Each ``RRULE`` is checked with :mod:`.ics_rules`:

* rules that surely never occur (``FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30``, a ``BYSETPOS``
  beyond its set, ``FREQ=DAILY;INTERVAL=7;BYDAY=TU`` from a Monday...) and sub-daily rules
  (``SECONDLY``, ``MINUTELY``, ``HOURLY``) with day parts or ``BYSETPOS`` are dropped, with a
  warning (the ``DTSTART`` occurrence stays, as RFC 5545 counts it);
* a daily or sub-daily rule starting long before the window is moved forward by whole
  periods (same instants; a ``COUNT`` is lowered by the periods skipped when the rule has no
  ``BY`` parts, otherwise a counted rule is not moved);
* a rule with more than ``max_occurrences`` instants in the window is cut with ``UNTIL``
  after the last one kept, one that takes more than 50,000 instants to get through the
  window is cut where it got to (dropped if that is before the window), and all the rules of
  a feed get 2,000,000 instants.

An adversarial rule that passes these checks can still cost a few seconds.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator

from dateutil import rrule as du
from icalendar import Component, vRecur

from . import ics_rules
from .ics_values import readables, set_values

_RULE_STEPS = 50_000  # instants one rule may generate while it is checked against the window
_FEED_STEPS = 2_000_000  # instants all the rules of a feed may generate while checked

_DAY = datetime.timedelta(days=1)
_MIDNIGHT = datetime.time()


class RuleBounds:
    """The rule checks of one feed's parse, over ``[window_start, window_end)`` (naive
    datetimes), with the feed's count of instants left and its :class:`.ics_rules.Budget`."""

    def __init__(
        self,
        window_start: datetime.datetime,
        window_end: datetime.datetime,
        max_occurrences: int,
        budget: ics_rules.Budget,
        warn: Callable[[str], None],
    ) -> None:
        self.window_start = window_start
        self.window_end = window_end
        self.max_occurrences = max_occurrences
        self.budget = budget
        self.warn = warn
        self.steps_left = _FEED_STEPS

    def bound(self, event: Component, label: str) -> None:
        """Drops the rules of ``event`` that never occur and cuts those that would run away (see
        the module); ``label`` names the event in warnings."""
        rules = readables(event, "RRULE")
        if len(rules) == 1:
            self._fast_forward(event, rules[0])
            rules = readables(event, "RRULE")
        start = event["DTSTART"].dt
        kept = []
        for recur in rules:
            try:
                problem = ics_rules.rule_problem(recur, start)
                if problem is None:
                    rule = ics_rules.dateutil_rule(recur, start)
                    bounded = self._walk(rule, recur, start, _duration(event), label)
                    if bounded is not None:
                        kept.append(bounded)
                    continue
            except Exception:
                problem = "it is unreadable"
            self.warn(f"{label} has an RRULE that was ignored: {problem}.")
        set_values(event, "RRULE", kept)

    def _frame(self, start: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
        """The window in the rule's frame (dateutil's: naive or in the start's zone)."""
        zone = start.tzinfo if isinstance(start, datetime.datetime) else None
        return self.window_start.replace(tzinfo=zone), self.window_end.replace(tzinfo=zone)

    def _fast_forward(self, event: Component, recur: vRecur) -> None:
        """Moves the start of a daily-or-finer rule that begins long before the window forward by
        whole periods, when that keeps its instants (no COUNT, or no BY parts to count with)."""
        rank = ics_rules.freq(recur)
        start = event["DTSTART"].dt
        if rank is None or rank > 3 or (rank < 3 and not isinstance(start, datetime.datetime)):
            return
        counts = ics_rules.rule_values(recur, "COUNT")
        if counts and ics_rules.has_rule_parts(recur):
            return
        step = datetime.timedelta(seconds=ics_rules.interval(recur) * ics_rules.FREQ_SECONDS[rank])
        low = self._frame(start)[0] - _duration(event)
        first = start if isinstance(start, datetime.datetime) else datetime.datetime.combine(start, _MIDNIGHT)
        periods = (low - first) // step - 1
        if periods < 1:
            return
        shift = step * periods
        if counts:
            try:
                left = int(counts[0]) - periods
            except (TypeError, ValueError):
                return
            if left <= 0:
                del event["RRULE"]
                return
            parts = {str(key).upper(): value for key, value in recur.items()}
            parts["COUNT"] = [left]
            event["RRULE"] = vRecur(parts)
        event["DTSTART"].dt = start + shift
        end = event.get("DTEND")
        if end is not None:
            end.dt = end.dt + shift

    def _walk(
        self, rule: du.rrule, recur: vRecur, start: datetime.date, duration: datetime.timedelta, label: str
    ) -> vRecur | None:
        """The rule as it may be expanded: itself, cut with an UNTIL, or None (dropped)."""
        low, high = self._frame(start)
        low -= duration
        inside = 0
        last: datetime.datetime | None = None
        steps = min(_RULE_STEPS, self.steps_left)
        iterator: Iterator[datetime.datetime] = iter(rule)
        for index, instant in enumerate(iterator):
            if index % 1024 == 1023:
                self.budget.check()
            self.steps_left -= 1
            if instant >= high:
                return recur
            if index >= steps:
                if last is None:
                    self.warn(f"{label} has an RRULE too dense to reach the window; it was ignored.")
                    return None
                self.warn(f"{label} has an RRULE too dense to expand through the window; it was cut.")
                return ics_rules.with_until(recur, ics_rules.until_value(last, start))
            if instant >= low:
                if inside == self.max_occurrences:
                    self.warn(too_many(label, self.max_occurrences))
                    return ics_rules.with_until(recur, ics_rules.until_value(last, start))  # type: ignore[arg-type]
                inside += 1
                last = instant
        return recur


def too_many(label: str, max_occurrences: int) -> str:
    """The warning for a series cut at ``max_occurrences`` occurrences in the window."""
    return f"{label} has more than {max_occurrences} occurrences in the window; the first {max_occurrences} were kept."


def _duration(event: Component) -> datetime.timedelta:
    start = event["DTSTART"].dt
    end = event.get("DTEND")
    if end is not None and isinstance(end.dt, datetime.datetime) == isinstance(start, datetime.datetime):
        try:
            return max(end.dt - start, datetime.timedelta(0))
        except TypeError:
            pass
    duration = event.get("DURATION")
    if duration is not None:
        return max(duration.dt, datetime.timedelta(0))
    return datetime.timedelta(0) if isinstance(start, datetime.datetime) else _DAY
