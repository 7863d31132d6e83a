"""Series of an imported iCalendar feed (:mod:`.ics_import`): which of the VEVENTs given for one
``UID`` are expanded, and the identity each occurrence keeps across re-imports.

Selection
    A ``UID`` given more than once without ``RECURRENCE-ID``, or an override given more than once
    for one occurrence, keeps the one with the highest ``SEQUENCE`` (the first of equals, as
    ``recurring_ical_events`` picks); the others are skipped with a warning naming the ``UID``.

Identity
    ``source_key`` is the ``UID`` for a single event and ``{UID}@{RECURRENCE-ID}`` for each
    occurrence of a series (an override keeps the key of the occurrence it replaces, and each
    occurrence a ``THISANDFUTURE`` override changed keeps its own: its original start, which
    recurring_ical_events does not give, is its start moved back by the override's shift), the
    ``RECURRENCE-ID`` as a UTC ``YYYYMMDDTHHMMSSZ``, a ``YYYYMMDD`` for all-day series, and a
    ``YYYYMMDDTHHMMSS`` without ``Z`` for floating ones (their instant depends on the importing
    site, their wall time does not). A ``VEVENT`` without ``UID`` gets ``calpress-{hash}`` of
    its start and summary.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable

from icalendar import Component

from .ics_values import one_line

_UTC = datetime.UTC
_MIDNIGHT = datetime.time()


def sequence(component: Component) -> int | None:
    """``SEQUENCE`` (0 when absent), None when it is unreadable."""
    value = component.get("SEQUENCE")
    if value is None:
        return 0
    try:
        return max(0, int(str(value)))
    except ValueError:
        return None


def recurrence_text(value: datetime.date) -> str:
    """A start as a RECURRENCE-ID is written in source keys (see the module)."""
    if not isinstance(value, datetime.datetime):
        return f"{value.year:04d}{value.month:02d}{value.day:02d}"
    if value.tzinfo is None:
        return value.strftime("%Y%m%dT%H%M%S")
    return value.astimezone(_UTC).strftime("%Y%m%dT%H%M%SZ")


def uid_of(event: Component) -> str:
    """The VEVENT's UID with its blanks collapsed, or one made up from its start and summary."""
    uid = one_line(event.get("UID"))
    if uid:
        return uid
    seed = f"{recurrence_text(event['DTSTART'].dt)}|{one_line(event.get('SUMMARY'))}"
    return "calpress-" + hashlib.sha256(seed.encode()).hexdigest()[:24]


def source_key(uid: str, recurrence_id: str | None) -> str:
    return f"{uid}@{recurrence_id}" if recurrence_id else uid


def one_of_each(uid: str, components: list[Component], warn: Callable[[str], None]) -> tuple[list[Component], int]:
    """One VEVENT without RECURRENCE-ID and one per RECURRENCE-ID: of those given more than
    once, the one with the highest SEQUENCE (the first of equals, as recurring_ical_events
    picks), the others skipped with a warning. Also gives how many were skipped."""
    masters: list[Component] = []
    overrides: dict[str, list[Component]] = {}
    for component in components:
        prop = component.get("RECURRENCE-ID")
        if prop is None:
            masters.append(component)
        else:
            overrides.setdefault(recurrence_text(prop.dt), []).append(component)
    groups = [(masters, "times without RECURRENCE-ID")] if masters else []
    groups += [(group, f"times for its occurrence {recurrence_id}") for recurrence_id, group in overrides.items()]
    kept = []
    for group, what in groups:
        kept.append(max(group, key=lambda component: sequence(component) or 0))
        if len(group) > 1:
            warn(
                f'Event "{uid}" is given {len(group)} {what}: the one with the highest SEQUENCE (the first of equals) '
                f"was kept, the {len(group) - 1} other(s) skipped."
            )
    return kept, sum(len(group) - 1 for group, _ in groups)


def shifts(components: list[Component]) -> dict[str, datetime.timedelta]:
    """By RECURRENCE-ID (as :func:`recurrence_text` writes it), how far each override for
    ``RANGE=THISANDFUTURE`` moves its occurrence: recurring_ical_events moves every later one as
    far, giving them all the override's RECURRENCE-ID, so their own is its start moved back."""
    found = {}
    for component in components:
        prop = component.get("RECURRENCE-ID")
        if prop is None or str(prop.params.get("RANGE", "")).upper() != "THISANDFUTURE":
            continue
        start, original = _comparable(component["DTSTART"].dt, prop.dt)
        try:
            found[recurrence_text(prop.dt)] = start - original  # type: ignore[operator]
        except TypeError:
            continue
    return found


def recurrence_id(occurrence: Component, moved: dict[str, datetime.timedelta]) -> str:
    """The RECURRENCE-ID of an occurrence of a series: its original start (see the module), with
    ``moved`` the :func:`shifts` of the series."""
    start = occurrence["DTSTART"].dt
    prop = occurrence.get("RECURRENCE-ID")
    if prop is None:
        return recurrence_text(start)
    original = prop.dt
    shift = moved.get(recurrence_text(original))
    if shift is not None:  # moved by an override for this and future occurrences: moved back
        original = _unshifted(start, original, shift)
    return recurrence_text(original)


def _unshifted(start: datetime.date, recurrence_id: datetime.date, shift: datetime.timedelta) -> datetime.date:
    """The original start of an occurrence that an override for this and future moved by ``shift``
    (in the kind of its RECURRENCE-ID)."""
    value, _ = _comparable(start, recurrence_id)
    original = value - shift
    if not isinstance(recurrence_id, datetime.datetime) and isinstance(original, datetime.datetime):
        return original.date()
    return original


def _comparable(value: datetime.date, other: datetime.date) -> tuple[datetime.date, datetime.date]:
    """Both as datetimes (a date at midnight in the other's zone) when one of them is one."""
    if isinstance(value, datetime.datetime) == isinstance(other, datetime.datetime):
        return value, other
    zone = (value if isinstance(value, datetime.datetime) else other).tzinfo  # type: ignore[union-attr]
    return tuple(  # type: ignore[return-value]
        item if isinstance(item, datetime.datetime) else datetime.datetime.combine(item, _MIDNIGHT, tzinfo=zone)
        for item in (value, other)
    )
