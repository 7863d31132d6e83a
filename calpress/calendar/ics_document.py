"""An iCalendar document as text: decoded (UTF-8, UTF-16 with its BOM, else Windows-1252 with a
warning), unfolded, and cut into its VEVENT and VTIMEZONE blocks, each parsed on its own with icalendar:
the VEVENTs by :mod:`.ics_import`, a UID group at a time, the VTIMEZONEs by :mod:`.ics_feed_zones`. A document that
is not iCalendar at all raises :class:`FeedError`; what is broken inside it is dropped with a
warning naming it, so one bad component (even one whose BEGIN and END do not pair up, see
:func:`split`) does not cost the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from icalendar import Calendar, Component

_LINE_BREAK = re.compile(r"\r\n|\n|\r")
_FOLD = re.compile(r"(?:\r\n|\n|\r)[ \t]")
_BEGIN_END = re.compile(r"(BEGIN|END):(.*)", re.IGNORECASE)


class FeedError(ValueError):
    """The document is not iCalendar at all (or cannot be read as text)."""


@dataclass
class Document:
    header: dict[str, str] = field(default_factory=dict)  # X-WR-CALNAME, X-WR-TIMEZONE (first seen)
    timezones: list[list[str]] = field(default_factory=list)  # VTIMEZONE blocks (lines)
    events: list[list[str]] = field(default_factory=list)  # VEVENT blocks, without subcomponents
    skipped: int = 0  # VEVENTs skipped because the nesting around them was broken


def text_of(data: bytes | str, warnings: list[str]) -> str:
    """The document's text, without BOM or NUL characters (a warning when it was not UTF-8)."""
    if isinstance(data, str):
        text = data
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as err:
            raise FeedError("The feed is not readable text.") from err
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
            warnings.append("The feed is not UTF-8; it was read as Windows-1252.")
    return text.lstrip("\ufeff").replace("\x00", "")


def _lines(text: str) -> list[str]:
    """The content lines, unfolded, without blank ones."""
    return [line for line in _LINE_BREAK.split(_FOLD.sub("", text)) if line.strip()]


# Components that stand at the top of a VCALENDAR: a BEGIN of one inside another means that one
# was left open (RFC 5545 nests only alarms in events and to-dos, and zone parts in VTIMEZONE).
_TOP_LEVEL = frozenset({"VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY"})


def split(text: str, warnings: list[str]) -> Document:
    """The header values and the VTIMEZONE and VEVENT blocks of every VCALENDAR, following the
    nesting (a VEVENT's own subcomponents left out). What breaks the nesting costs only the
    component it is in, which is skipped with a warning naming it (its UID, else its first line)
    and counted in ``Document.skipped`` when it is a VEVENT, and the reading goes on:

    * a component left open (its END missing before the next top-level BEGIN, a BEGIN:VCALENDAR,
      an END:VCALENDAR or the end of the document);
    * an END naming neither the open component nor one around it (``END:VTODO`` in a VEVENT):
      like icalendar and ical.js, it closes the innermost open component; when that is the
      top-level one, the component is skipped, when it is a subcomponent (an alarm) it is only
      closed;
    * an inner component left open inside an outer one's END is closed with it;
    * an END of nothing open is ignored, and a VEVENT or VTIMEZONE begun after an END:VCALENDAR
      (a stray one in the middle of the document) is read as part of the calendar."""
    lines = _lines(text)
    if not lines or lines[0].strip().upper() != "BEGIN:VCALENDAR":
        raise FeedError("Not an iCalendar document: it does not start with BEGIN:VCALENDAR.")
    document = Document()
    stack: list[str] = []  # the open components, VCALENDAR first; empty between calendars
    block: list[str] = []  # the lines of the open top-level component
    begun = 0  # the line number of its BEGIN
    reopened = False

    def keep() -> None:
        if stack[1] == "VEVENT":
            document.events.append(block)
        elif stack[1] == "VTIMEZONE":
            document.timezones.append(block)

    def drop(why: str) -> None:
        """The open top-level component is skipped: ``why`` ends the warning's sentence."""
        name = stack[1]
        uid = uid_key(block) if name == "VEVENT" else ""
        label = f'A {name} ("{uid}", line {begun})' if uid else f"A {name} (line {begun})"
        warnings.append(f"{label} {why}; it was skipped.")
        if name == "VEVENT":
            document.skipped += 1
        del stack[1:]

    for number, line in enumerate(lines, 1):
        match = _BEGIN_END.fullmatch(line.strip())
        if match is None:
            if len(stack) == 1:
                _header_line(document, line)
            elif len(stack) == 2 or (len(stack) > 2 and stack[1] == "VTIMEZONE"):
                block.append(line)
            continue
        begin, name = match.group(1).upper() == "BEGIN", match.group(2).strip().upper()
        if name == "VCALENDAR":
            if len(stack) > 1:
                drop(f"was left open before line {number}")
            stack, block = (["VCALENDAR"] if begin else []), []
            continue
        if not stack:
            if not begin or name not in ("VEVENT", "VTIMEZONE"):
                continue  # outside any VCALENDAR
            if not reopened:
                warnings.append(f"Line {number} begins a {name} after the calendar's END:VCALENDAR; it was read all the same.")
                reopened = True
            stack = ["VCALENDAR"]
        if begin:
            if len(stack) > 1 and name in _TOP_LEVEL:
                drop(f"was left open before line {number}")
            if len(stack) == 1:
                block, begun = [], number
            if len(stack) == 1 or stack[1] == "VTIMEZONE":
                block.append(line)
            stack.append(name)
        elif len(stack) == 1:
            warnings.append(f"Line {number} ends a {name or 'component'} that was not begun; it was ignored.")
        elif name in stack[1:]:
            while stack[-1] != name:  # inner components left open end with it
                if stack[1] == "VTIMEZONE":
                    block.append(f"END:{stack[-1]}")
                stack.pop()
            if len(stack) == 2 or stack[1] == "VTIMEZONE":
                block.append(line)
            if len(stack) == 2:
                keep()
            stack.pop()
        elif len(stack) == 2:
            drop(f"ends with END:{name} at line {number}")
        else:  # an inner component closed under another name: closed all the same
            warnings.append(f"Line {number} ends a {name} where a {stack[-1]} was open; it was read as the {stack[-1]}'s end.")
            if stack[1] == "VTIMEZONE":
                block.append(f"END:{stack[-1]}")
            stack.pop()
    if len(stack) > 1:
        drop("was left open at the end of the feed")
    return document


def _header_line(document: Document, line: str) -> None:
    key = line.split(":", 1)[0].split(";", 1)[0].strip().upper()
    if key in ("X-WR-CALNAME", "X-WR-TIMEZONE") and key not in document.header:
        value = _header_value(line)
        if value is not None:
            document.header[key] = value


def _header_value(line: str) -> str | None:
    try:
        calendar = Calendar.from_ical(f"BEGIN:VCALENDAR\r\n{line}\r\nEND:VCALENDAR\r\n".encode())
        return " ".join(str(next(iter(calendar.values()), "")).split())
    except Exception:
        return None


_ESCAPED = re.compile(r"\\(.)")


def uid_key(block: list[str]) -> str:
    """The UID a VEVENT's lines give, unescaped and with its blanks collapsed as the parsed value
    would be: VEVENTs of one UID have one key (those of several UIDs may share one, to be told
    apart once parsed). VEVENTs without a UID line share the key "" (parsed together, since the
    UID made up for them comes from their contents)."""
    for line in block:
        name, _, value = line.partition(":")
        if name.split(";", 1)[0].strip().upper() == "UID":
            value = _ESCAPED.sub(lambda m: " " if m.group(1) in "nN" else m.group(1), value)
            return " ".join(value.split())
    return ""


def parse_block(lines: list[str]) -> Component:
    """One VEVENT or VTIMEZONE block parsed on its own (raises when it is unreadable)."""
    text = "\r\n".join(["BEGIN:VCALENDAR", *lines, "END:VCALENDAR", ""])
    (component,) = Calendar.from_ical(text.encode()).subcomponents
    return component
