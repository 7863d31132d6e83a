"""What an import says when it ends, written once for the command line and the workspace: the
warnings, the counts and the closing ``Success:`` or ``Error:`` line of a WordPress export file's
import (:class:`~calpress.transfer.wxr_import.ImportSummary`) and of an iCalendar file's or feed's
(:class:`~calpress.calendar.feed_import.FeedRun`). The command line prints the lines (warnings and
errors on stderr); Tools > Import keeps them with the job and shows them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["WXR_KINDS", "Line", "Outcome", "feed_lines", "wxr_lines"]

# What a WordPress export file's import counts, in the order it is told.
WXR_KINDS = ("user", "term", "post", "page", "attachment", "cal_venue", "cal_organizer", "cal_events", "comment")


@dataclass(frozen=True)
class Line:
    """One line of an import's report; ``kind`` is warning, error, success or info."""

    kind: str
    text: str

    @property
    def to_stderr(self) -> bool:
        return self.kind in ("warning", "error")


@dataclass
class Outcome:
    """How an import ended: ``success`` or ``failed``, its lines, and its import record if any."""

    state: str
    lines: list[Line] = field(default_factory=list)
    record_id: int = 0


def _warnings(texts: list[str], limit: int | None) -> list[Line]:
    shown = texts if limit is None else texts[:limit]
    lines = [Line("warning", f"Warning: {text}") for text in shown]
    if len(texts) > len(shown):
        lines.append(Line("warning", f"Warning: {len(texts) - len(shown)} more warning(s) not shown."))
    return lines


def wxr_lines(summary: Any, name: str, *, warnings: bool = True, limit: int | None = None) -> Outcome:
    """The report of a WordPress export file ``name``'s import (``warnings``: False when they were
    told already, as ``--verbose`` tells them while the import runs)."""
    lines = _warnings(list(summary.problems), limit) if warnings else []
    kinds = [k for k in WXR_KINDS if k in summary.counts] + sorted(set(summary.counts) - set(WXR_KINDS))
    for kind in kinds:
        counts = summary.counts[kind]
        lines.append(Line("info", f"{kind}: {counts['created']} created, {counts['skipped']} skipped, {counts['failed']} failed"))
    if summary.error:
        lines.append(Line("error", f"Error: {summary.error}. What was read before it was imported; the rest was not."))
        return Outcome("failed", lines)
    if summary.failed:
        lines.append(Line("error", f"Error: Imported {name} with {summary.failed} failure(s) (see the warnings above); "
                                   "running it again after a fix adds only what is missing."))
        return Outcome("failed", lines)
    lines.append(Line("success", f"Success: Imported {name}."))
    return Outcome("success", lines)


def feed_lines(run: Any, source: str, *, kept: str = "kept", limit: int | None = None) -> Outcome:
    """The report of an iCalendar file's or feed's import (``kept``: what is said of the events
    the feed no longer has when they were kept)."""
    lines = _warnings(list(run.warnings), limit)
    lines += _warnings([f"event {key} was not imported: {reason}" for key, reason in run.problems.items()], limit)
    if run.vanished:
        verb = "Moved to the trash" if run.removed else f"No longer in the feed ({kept})"
        lines.append(Line("info", f"{verb}: events {', '.join(map(str, run.vanished))}"))
    if run.state == "failed" or run.error:
        lines.append(Line("error", f"Error: Import {run.record_id} of {source} failed: {run.error}"))
        return Outcome("failed", lines, run.record_id)
    # Skipped: unchanged events, and the feed's events that were not imported (see the warnings).
    dropped = run.left_out + len(run.problems)
    note = f" ({dropped} not imported: see the warnings above)" if dropped else ""
    lines.append(Line("success", f"Success: Imported {source} (record {run.record_id}): {len(run.created)} created, "
                                 f"{len(run.updated)} updated, {len(run.skipped) + dropped} skipped{note}."))
    return Outcome("success", lines, run.record_id)
