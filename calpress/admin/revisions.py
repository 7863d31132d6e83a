"""The revisions screen, at WordPress's ``revision.php``: two stored states of an item side by side,
and "Restore This Revision".

* ``revision.php?revision=N`` compares revision N with the one just before it (nothing before the
  oldest: everything reads as added, as WordPress's first step does);
* ``revision.php?from=A&to=B`` (``revision=`` may come too) compares any two states of one item,
  chosen in a plain GET form that lists every revision with its author and date, the autosaves
  and the current state marked;
* a POST with ``action=restore`` and the nonce ``restore-post_<id>`` restores a revision the way
  WordPress's wp_restore_post_revision does, by updating the item with the revision's title,
  content and excerpt through ``/cms/v2/<rest base>/<id>`` as the user (so the update stores a new
  revision), then sends the user to the item's editor with ``message=5&revision=<id>``.

Everything is read through the REST engine as the user (``/cms/v2/<rest base>/<id>/revisions``):
who may see an item's revisions is the API's answer (edit rights on the item). The comparison is
WordPress's wp_text_diff in shape (whitespace normalised, a row per line, changed lines paired by
likeness and marked word by word with ``<del>``/``<ins>``), written here over :mod:`difflib`.

The item editor links here and announces a restore with writing.py's :func:`.writing.revisions_link`
and :func:`.writing.restored_notice`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import html
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..content import items as item_service
from ..content.revisions import REVISION_TYPE, normalize_whitespace
from .content import TYPES, author_names, labels, route_of
from .shell import NOT_ALLOWED, AdminRequest, Forbidden, Screen
from .values import number, text_of
from .writing import RESTORED

__all__ = ["DiffRow", "RevisionScreen", "SCREENS", "text_diff"]

INVALID = "Invalid revision."
DISABLED = "Revisions are not enabled for this item."
FIELDS = (("title", "Title"), ("content", "Content"), ("excerpt", "Excerpt"))  # _wp_post_revision_fields
LIST_FIELDS = "id,author,modified,modified_gmt,slug,title.raw,content.raw,excerpt.raw"


# -- the comparison (wp_text_diff's shape) -------------------------------------------------------


@dataclass(frozen=True)
class DiffRow:
    """One row of a two-column comparison: ``kind`` is ``context`` (the line on both sides),
    ``changed`` (the old line left, the new right, changed words marked), ``deleted`` (left only)
    or ``added`` (right only). The cells are HTML, escaped, with ``<del>``/``<ins>`` marks; None
    is an empty cell."""

    kind: str
    left: Markup | None
    right: Markup | None


_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
PAIRING_LIMIT = 2500  # lines² of one changed block past which lines are paired in order
WORDS_LIMIT = 3000  # tokens of a line pair past which the whole lines are marked
LIKENESS = 0.4  # how alike two lines must be (shared words) to be shown as one line changed


def text_diff(left: str, right: str) -> list[DiffRow] | None:
    """``left`` against ``right`` line by line (both whitespace-normalised, as WordPress's
    wp_text_diff does), or None when they are the same.

    The lines both share at the start and the end are set aside before difflib compares the
    rest, with its default junk heuristic (a line repeated all over a long text, such as a block
    comment, anchors no match), so that the work stays bounded however the text repeats itself."""
    old, new = normalize_whitespace(left), normalize_whitespace(right)
    if old == new:
        return None
    old_lines, new_lines = old.split("\n") if old else [], new.split("\n") if new else []
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(old_lines), len(new_lines)) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    old_middle, new_middle = old_lines[head:len(old_lines) - tail], new_lines[head:len(new_lines) - tail]
    rows = [DiffRow("context", _plain(line), _plain(line)) for line in old_lines[:head]]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_middle, new_middle).get_opcodes():
        if tag == "equal":
            rows += [DiffRow("context", _plain(line), _plain(line)) for line in old_middle[i1:i2]]
            continue
        for old_line, new_line in _pair(old_middle[i1:i2], new_middle[j1:j2]):
            if old_line is None:
                rows.append(DiffRow("added", None, _marked(new_line or "", "ins")))
            elif new_line is None:
                rows.append(DiffRow("deleted", _marked(old_line, "del"), None))
            else:
                rows.append(DiffRow("changed", *_words(old_line, new_line)))
    rows += [DiffRow("context", _plain(line), _plain(line)) for line in old_lines[len(old_lines) - tail:]]
    return rows


def plain_rows(text: str) -> list[DiffRow]:
    """An unchanged text as context rows (the title is shown even when it did not change)."""
    normal = normalize_whitespace(text)
    return [DiffRow("context", _plain(line), _plain(line)) for line in (normal.split("\n") if normal else [])]


def _plain(text: str) -> Markup:
    return Markup(html.escape(text, quote=False))


def _marked(text: str, tag: str) -> Markup:
    return Markup(f"<{tag}>{html.escape(text, quote=False)}</{tag}>")


def _bag(line: str) -> Counter[str]:
    """A line's words (its first 200 tokens), for telling how alike two lines are."""
    return Counter(token for token in _TOKENS.findall(line[:2000])[:200] if not token.isspace())


def _likeness(old: Counter[str], new: Counter[str]) -> float:
    """The share of words two lines have in common (0 to 1), order aside: cheap enough to ask of
    every pair of lines in a changed block."""
    total = sum(old.values()) + sum(new.values())
    return 2 * sum((old & new).values()) / total if total else 1.0


def _pair(old: list[str], new: list[str]) -> list[tuple[str | None, str | None]]:
    """The lines of a changed block in order, each old line paired with the new line it most
    likely became (a monotone best match), the others alone."""
    if len(old) * len(new) > PAIRING_LIMIT:
        count = min(len(old), len(new))
        return [*zip(old[:count], new[:count], strict=True), *((line, None) for line in old[count:]),
                *((None, line) for line in new[count:])]
    new_bags = [_bag(line) for line in new]
    alike = [[_likeness(bag, other) for other in new_bags] for bag in (_bag(line) for line in old)]
    best = [[0.0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(new) - 1, -1, -1):
            score = max(best[i + 1][j], best[i][j + 1])
            if alike[i][j] >= LIKENESS:
                score = max(score, alike[i][j] + best[i + 1][j + 1])
            best[i][j] = score
    pairs: list[tuple[str | None, str | None]] = []
    i = j = 0
    while i < len(old) and j < len(new):
        if alike[i][j] >= LIKENESS and best[i][j] == alike[i][j] + best[i + 1][j + 1]:
            pairs.append((old[i], new[j]))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            pairs.append((old[i], None))
            i += 1
        else:
            pairs.append((None, new[j]))
            j += 1
    pairs += [(line, None) for line in old[i:]] + [(None, line) for line in new[j:]]
    return pairs


def _words(old: str, new: str) -> tuple[Markup, Markup]:
    """A changed line's two sides with the words that differ marked."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    if len(a) + len(b) > WORDS_LIMIT:
        return _marked(old, "del"), _marked(new, "ins")
    opcodes = _joined(difflib.SequenceMatcher(None, a, b).get_opcodes(), a)
    left: list[str] = []
    right: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        gone, came = html.escape("".join(a[i1:i2]), quote=False), html.escape("".join(b[j1:j2]), quote=False)
        if tag == "equal":
            left.append(gone)
            right.append(came)
            continue
        if gone:
            left.append(f"<del>{gone}</del>")
        if came:
            right.append(f"<ins>{came}</ins>")
    return Markup("".join(left)), Markup("".join(right))


def _joined(opcodes: list[tuple[str, int, int, int, int]], tokens: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Opcodes with a lone space between two changes taken into the change, so that a changed
    phrase reads as one mark rather than a mark per word."""
    out: list[tuple[str, int, int, int, int]] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        between = 0 < index < len(opcodes) - 1 and opcodes[index + 1][0] != "equal" and out and out[-1][0] != "equal"
        if tag == "equal" and between and all(not token.strip() for token in tokens[i1:i2]):
            tag = "replace"
        if tag != "equal" and out and out[-1][0] != "equal":
            _, start_i, _, start_j, _ = out.pop()
            out.append(("replace", start_i, i2, start_j, j2))
        else:
            out.append((tag, i1, i2, j1, j2))
    return out


# -- the states of an item -----------------------------------------------------------------------


@dataclass
class State:
    """One entry of the comparison: a stored revision, or the item as it is now when no stored
    revision holds its current fields (``is_item``)."""

    id: int
    author: int
    modified: str
    modified_gmt: str
    fields: dict[str, str]
    is_autosave: bool = False
    is_current: bool = False
    is_item: bool = False
    author_name: str = ""

    @property
    def when(self) -> str:
        """"Mar 5, 2026 @ 15:04:05": the revisions screen's date with the seconds, as
        wp_post_revision_title names a revision, so that two saved in one minute differ."""
        moment = _moment(self.modified)
        return f"{moment:%b} {moment.day}, {moment.year} @ {moment:%H:%M:%S}" if moment else ""

    @property
    def ago(self) -> str:
        moment = _moment(self.modified_gmt)
        return f"{human_time_diff(moment.replace(tzinfo=dt.UTC))} ago" if moment else ""

    @property
    def marks(self) -> str:
        return " ".join(f"[{mark}]" for mark, shown in (("Current Revision", self.is_current),
                                                        ("Autosave", self.is_autosave)) if shown)

    @property
    def label(self) -> str:
        """How the choices name it: "Revision by Ann, Mar 5, 2026 @ 15:04:05 [Current Revision]"."""
        noun = "Autosave" if self.is_autosave else "Revision"
        by = f"{noun} by {self.author_name}" if self.author_name else noun
        return " ".join(part for part in (f"{by}, {self.when}" if self.when else by, self.marks) if part)


def _moment(value: Any) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def human_time_diff(since: dt.datetime, now: dt.datetime | None = None) -> str:
    """WordPress's human_time_diff: "5 mins", "2 hours", "3 days", "1 week", "4 months", "2 years"."""
    seconds = abs(((now or dt.datetime.now(dt.UTC)) - since).total_seconds())
    for unit, size, limit in (("min", 60, 3600), ("hour", 3600, 86400), ("day", 86400, 7 * 86400),
                              ("week", 7 * 86400, 30 * 86400), ("month", 30 * 86400, 365 * 86400)):
        if seconds < limit:
            count = max(1, round(seconds / size))
            return f"{count} {unit}{'s' if count != 1 else ''}"
    count = max(1, round(seconds / (365 * 86400)))
    return f"{count} year{'s' if count != 1 else ''}"


@dataclass
class History:
    """An item and its states, oldest first, as the user may see them."""

    kind: Any
    item: dict[str, Any]
    states: list[State] = field(default_factory=list)
    fields: tuple[tuple[str, str], ...] = FIELDS

    def find(self, state_id: int) -> State | None:
        return next((state for state in self.states if state.id == state_id), None)

    def before(self, state: State) -> State | None:
        index = self.states.index(state)
        return self.states[index - 1] if index > 0 else None

    @property
    def title(self) -> str:
        return text_of(self.item.get("title")) or "(no title)"


def _revision_fields(data: dict[str, Any], names: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {name: text_of(data.get(name)) for name, _ in names}


def load_history(r: AdminRequest, revision_id: int) -> History:
    """The item revision ``revision_id`` belongs to, with every state of it, through the REST
    engine as the user: 404 "Invalid revision." when it is no revision (or its item is gone), the
    workspace's refusal when the API will not show the item's revisions to the user."""
    with r.site.read() as conn:
        revision = item_service.get_item(conn, revision_id) if revision_id > 0 else None
        parent = item_service.get_item(conn, revision.parent) if revision is not None and revision.parent else None
    if revision is None or revision.type != REVISION_TYPE or parent is None:
        raise Forbidden(INVALID, 404)
    kind = r.ctx.registry.types.get(parent.type)
    if kind is None or parent.type not in TYPES:
        raise Forbidden(INVALID, 404)
    if not (kind.has_revisions and kind.revisions_route and kind.show_in_rest):
        raise Forbidden(DISABLED, 404)
    r.post_type = kind.name
    item = r.api.get(route_of(kind, parent.id), context="edit")
    if item.status in (401, 403):
        raise Forbidden(NOT_ALLOWED)
    if not item.ok or not isinstance(item.data, dict):
        raise Forbidden(INVALID, 404)
    listing = r.api.get(f"{route_of(kind, parent.id)}/revisions", context="edit", _fields=LIST_FIELDS)
    if listing.status in (401, 403):
        raise Forbidden(NOT_ALLOWED)
    if not listing.ok or not isinstance(listing.data, list):
        raise Forbidden(listing.message or INVALID, 404)
    names = tuple((name, label) for name, label in FIELDS
                  if name == "title" or any(name in row for row in listing.data) or name in item.data)
    history = History(kind, item.data, fields=names)
    autosave = f"{parent.id}-autosave"
    for row in reversed(listing.data):  # the API lists the newest first
        history.states.append(State(number(row.get("id")), number(row.get("author")), str(row.get("modified") or ""),
                                    str(row.get("modified_gmt") or ""), _revision_fields(row, names),
                                    is_autosave=autosave in str(row.get("slug") or "")))
    _mark_current(history, parent.id)
    authors = author_names(r, [{"author": state.author} for state in history.states])
    for state in history.states:
        state.author_name = authors.get(state.author, "")
    return history


def _mark_current(history: History, item_id: int) -> None:
    """Mark the newest revision that holds the item's current fields; when none does (the
    author's autosave of a draft updates the draft without a revision), the item itself is
    added as the current state."""
    now = _revision_fields(history.item, history.fields)
    latest = next((state for state in reversed(history.states) if not state.is_autosave), None)
    if latest is not None and all(normalize_whitespace(latest.fields[name]) == normalize_whitespace(now[name])
                                  for name, _ in history.fields):
        latest.is_current = True
        return
    item = history.item
    history.states.append(State(item_id, number(item.get("author")), str(item.get("modified") or ""),
                                str(item.get("modified_gmt") or ""), now, is_current=True, is_item=True))


# -- the screen ----------------------------------------------------------------------------------


@dataclass
class Comparison:
    """Two states and their fields side by side: (name, label, rows or None when unchanged)."""

    old: State | None
    new: State
    fields: list[tuple[str, str, list[DiffRow] | None, str]]


def compare(history: History, old: State | None, new: State) -> Comparison:
    shown = []
    for name, label in history.fields:
        before, after = (old.fields.get(name, "") if old else ""), new.fields.get(name, "")
        rows = text_diff(before, after)
        if rows is None and name == "title":  # WordPress shows the title even when it is the same
            rows = plain_rows(after) or None
        shown.append((name, label, rows, after))
    return Comparison(old, new, shown)


class RevisionScreen(Screen):
    """``revision.php``: compare two states of an item; restore one."""

    file = "revision.php"

    def required(self, r: AdminRequest) -> str:
        return "read"  # who may see an item's revisions is the API's answer (edit rights on the item)

    def get(self, r: AdminRequest) -> None:
        self._show(r, *self._chosen(r))

    def _chosen(self, r: AdminRequest) -> tuple[History, State | None, State]:
        """The item and the two states the query asks for: ``revision=N`` (N and the one before
        it), ``from=A&to=B`` (A and B; B alone: B and the one before it)."""
        revision_id = number(r.param("revision"))
        to_id, from_id = number(r.param("to")), number(r.param("from"))
        anchor = revision_id or to_id or from_id
        if anchor <= 0:
            raise Forbidden(INVALID, 404)
        history = self._history_of(r, anchor, (to_id, from_id))
        new = history.find(to_id or revision_id or from_id)
        if new is None:
            raise Forbidden(INVALID, 404)
        if from_id and (to_id or revision_id):
            old = history.find(from_id)
            if old is None:
                raise Forbidden(INVALID, 404)
        else:
            old = history.before(new)
        return history, old, new

    @staticmethod
    def _history_of(r: AdminRequest, anchor: int, others: tuple[int, ...]) -> History:
        """The history of the item ``anchor`` belongs to; ``anchor`` may be the item itself (its
        current state, offered when no revision holds it) when another id named is a revision."""
        with r.site.read() as conn:
            found = item_service.get_item(conn, anchor) if anchor > 0 else None
        if found is not None and found.type != REVISION_TYPE:
            revision = next((other for other in others if other and other != anchor), 0)
            with r.site.read() as conn:
                other = item_service.get_item(conn, revision) if revision > 0 else None
            if other is None or other.type != REVISION_TYPE or other.parent != found.id:
                raise Forbidden(INVALID, 404)
            anchor = revision
        return load_history(r, anchor)

    def _show(self, r: AdminRequest, history: History, old: State | None, new: State, status: int = 200) -> None:
        kind = history.kind
        editor = r.url("post.php", post=history.item.get("id"), action="edit")
        can_restore = not new.is_current and not new.is_item
        r.render("admin/revision.html", status, title=f"Compare Revisions of “{history.title}”", history=history,
                 comparison=compare(history, old, new), editor=editor, can_restore=can_restore,
                 restore_nonce=r.nonce(f"restore-post_{new.id}") if can_restore else "",
                 names=labels(kind))

    def post(self, r: AdminRequest) -> None:
        """Restore the revision the form names (WordPress's wp_restore_post_revision, through REST)."""
        revision_id = number(r.field("revision") or r.param("revision"))
        if r.field("action") != "restore":
            raise Forbidden("Invalid action.", 400)
        r.verify(f"restore-post_{revision_id}")
        history = load_history(r, revision_id)
        revision = history.find(revision_id)
        if revision is None:
            raise Forbidden(INVALID, 404)
        kind = history.kind
        answer = r.api.post(route_of(kind, history.item["id"]), dict(revision.fields))
        if answer.status in (401, 403):
            raise Forbidden(answer.message or NOT_ALLOWED)
        if not answer.ok:
            r.notice(answer.message, "error")
            self._show(r, history, history.before(revision), revision, answer.status if answer.status < 500 else 400)
            return
        r.redirect(r.url("post.php", post=history.item["id"], action="edit", message=RESTORED, revision=revision_id))


SCREENS: list[Screen] = [RevisionScreen()]


# -- for the item editor -------------------------------------------------------------------------
