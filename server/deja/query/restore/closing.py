"""The closing block under the transcript: the range restored, the last user requests, the
workspaces' commits of that time and where to look deeper."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deja.time_format import iso_time as iso

from ..sessions import SessionSummary
from .git import Commits
from .section import LAST_USER_COUNT, LastUser
from .shaping import indent


@dataclass(slots=True)
class RestoredSession:
    session: SessionSummary
    number: int | None  # its number in the listing, when picked by number
    until: int | None  # the current session: only turns before this one (its last compaction)
    last_users: list[LastUser]
    # The turns shown in full for a topic, each with its best score in the topic's search.
    turn_scores: dict[int, float]
    cached: bool  # the section came from the cache

    @property
    def full_turns(self) -> list[int]:
        return sorted(self.turn_scores)


def closing_block(restored: Sequence[RestoredSession], commits: Sequence[Commits]) -> str:
    """Turn times in the index are laid out from the start, so the range restored is the
    sessions' own: first start to last activity."""
    count = len(restored)
    span = ""
    if restored:
        start = min(r.session.started for r in restored)
        end = max(r.session.last_active for r in restored)
        span = f" · {iso(start)} → {iso(end)}"
    example = next(
        (
            f"deja show {r.session.id[:8]} --turn {r.last_users[-1].turn}"
            for r in reversed(restored)
            if r.last_users
        ),
        "deja show ID --turn N",
    )
    lines = [
        f"## Restored {count} session{'s' if count != 1 else ''}{span}",
        f"Read any turn in full: deja show <id> --turn N (e.g. {example})",
    ]
    users = sorted(
        (user.time, r.session.id[:8], user.turn, user.text)
        for r in restored
        for user in r.last_users
    )[-LAST_USER_COUNT:]
    if users:
        lines.append("Last user messages (oldest first):")
        lines += [f'  [{id8} #{turn}] "{text}"' for _, id8, turn, text in users]
    for found in commits:
        command = (
            f"git log --since={iso(found.since)} --until={iso(found.until)} --stat --no-merges"
        )
        if found.log.strip():
            lines.append(f"Commits in {found.workspace} during that time ({command}):")
            lines += indent(found.log.rstrip("\n"), "  ")
        else:
            lines.append(f"No commits in {found.workspace} during that time ({command}).")
    scope = f"--session {restored[0].session.id[:8]}" if count == 1 else "--all"
    lines.append(
        f'Search deeper (no model call): deja search "words" {scope}'
        " · add --role user|command|edit to narrow"
    )
    return "\n".join(lines) + "\n"
