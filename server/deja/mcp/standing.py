"""Where each past edit of a file stands in the file as it is on disk now, for
`deja_file_history`: the lines whose provenance is that edit (`deja.query.provenance`)."""

from __future__ import annotations

from pathlib import Path

from deja.query import FileEvent, History

# A file over this is not read (the answer then says nothing about where edits stand).
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_RUNS = 4


def read_current(path: str) -> str | None:
    try:
        file = Path(path)
        if not file.is_file() or file.stat().st_size > MAX_FILE_BYTES:
            return None
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _runs(lines: list[int]) -> str:
    runs: list[list[int]] = []
    for line in lines:
        if runs and runs[-1][1] == line - 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    shown = [f"{a + 1}" if a == b else f"{a + 1}–{b + 1}" for a, b in runs[:MAX_RUNS]]
    more = ", …" if len(runs) > MAX_RUNS else ""
    return ", ".join(shown) + more


def standing(history: History, events: list[FileEvent]) -> dict[int, str]:
    """By `id(event)`, one line per edit of the newest event's file: the lines of the file now
    that it wrote (and how many were changed since), or that none are left. Empty when the file
    cannot be read."""
    if not events:
        return {}
    path = events[0].path
    same = [event for event in events if event.path == path]
    document = read_current(path)
    if document is None:
        return {}
    mapping = history.provenance(same, document)
    owned: dict[int, list[int]] = {}
    changed: dict[int, int] = {}
    for line in range(len(mapping.stacks)):
        claim = mapping.owner(line)
        if claim is not None:
            owned.setdefault(claim.event, []).append(line)
            changed[claim.event] = changed.get(claim.event, 0) + claim.changed
    found: dict[int, str] = {}
    for index, event in enumerate(same):
        if event.role != "edit":
            continue
        if index not in owned:
            found[id(event)] = "now: none of its lines stand in the file"
            continue
        since = f" ({changed[index]} changed since)" if changed[index] else ""
        found[id(event)] = f"now: lines {_runs(owned[index])} of the file{since}"
    return found
