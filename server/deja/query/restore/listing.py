"""The numbered listing `deja restore` prints, and which session is taken as current and why."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo

from deja.one_line import one_line
from deja.quantities import count, human_size
from deja.time_format import ago, minute

from ..sessions import SessionSummary

NO_PREVIOUS = "No previous sessions found in this project."
WRITING_S = 300  # a session file written this recently is the one open now


@dataclass(slots=True)
class ListedSession:
    number: int  # 0: the current session, listed only when it lost context
    session: SessionSummary


@dataclass(frozen=True, slots=True)
class CurrentSession:
    """The session taken as the one being worked in (the newest in scope): left out of the
    numbers, or #0 when it lost context. Said, not hidden: run from a plain shell, the newest may
    be the very session the user wants back."""

    session: SessionSummary
    as_zero: bool

    def being_written(self, now: float) -> bool:
        return now - self.session.last_active < WRITING_S

    @property
    def restore_command(self) -> str:
        return f"deja restore --session {self.session.id[:8]}"


def current_lines(
    current: CurrentSession,
    *,
    scope_label: str,
    tz: tzinfo | None = None,
    now: float | None = None,
) -> list[str]:
    """Which session is current and why, and how to restore it anyway."""
    s = current.session
    moment = time.time() if now is None else now
    why = (
        f"written {ago(s.last_active, moment)} (open now)"
        if current.being_written(moment)
        else f"last active {minute(s.last_active, tz)}"
    )
    place = "#0 above" if current.as_zero else "not numbered"
    lines = [
        f'Current session ({place}): "{one_line(s.title)}" ({s.id[:8]}),'
        f" the newest in {scope_label}, {why}"
    ]
    if not current.as_zero:
        lines.append(f"  Not the one you are in? {current.restore_command} restores it")
    return lines


def passed_over(current: CurrentSession, *, scope_label: str) -> str:
    """What `restore last` says when it skipped the current session for the one before it."""
    s = current.session
    return (
        f'last left out the current session "{one_line(s.title)}" ({s.id[:8]}),'
        f" the newest in {scope_label}; {current.restore_command} restores it"
    )


def listing_lines(
    listing: Sequence[ListedSession],
    *,
    scope_label: str,
    total: int,
    tz: tzinfo | None = None,
    current: CurrentSession | None = None,
    now: float | None = None,
) -> list[str]:
    """The numbered table `deja restore` prints (local times unless `tz` is given), and which
    session is current."""
    if not listing:
        return [NO_PREVIOUS]

    def when(timestamp: float) -> str:
        return minute(timestamp, tz)

    numbered = [item for item in listing if item.number > 0]
    shown = f" (#{numbered[0].number}-#{numbered[-1].number} of {total})" if numbered else ""
    lines = [f"Sessions in {scope_label}, newest first{shown}:"]
    for item in listing:
        s = item.session
        note = " · current session, lost context to compaction" if item.number == 0 else ""
        if s.kept_turns and item.number:
            note = f" · {count(s.kept_turns, 'turn')} only in Deja (compacted)"
        lines.append(
            f"#{item.number:<3} {when(s.started)} → {when(s.last_active)}"
            f" · {human_size(s.size)} · {count(s.message_count, 'message')}{note}"
        )
        lines.append(f"     first: {s.first_user}")
        if s.last_user != s.first_user:
            lines.append(f"     last:  {s.last_user}")
    if current is not None:
        lines += current_lines(current, scope_label=scope_label, tz=tz, now=now)
    lines.append("")
    picks = ["deja restore 1,3", "deja restore 1-4"] if numbered else []
    picks.append("deja restore last")
    if any(item.number == 0 for item in listing):
        picks.append("deja restore 0 (what compaction removed)")
    lines.append(f'Restore: {" · ".join(picks)} · add ": topic" to show the matching turns in full')
    if numbered and numbered[-1].number < total:
        lines.append(f"More: deja restore --offset {numbered[-1].number}")
    return lines
