"""One page of a session's turns, for a view that renders them as they scroll in (the editor's
session view): a 60 MB session is read a page at a time, never whole.

A fork's turns before its `fork_turn` are its copy of the parent's; unlike `show`, the page keeps
them, marked `inherited`, so the view can fold them under the parent's title. Long texts are cut
here, with their full length said, so a page stays small whatever a session holds."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from .rows import named
from .sessions import (
    TURN_RECORDS_SQL,
    SessionSummary,
    TurnRecord,
    UnknownSession,
    session_summary,
    turn_record,
)

PAGE_TURNS = 40
TEXT_CHARS = 20_000  # a message longer than this is cut: Open as Text has it whole
OUTPUT_CHARS = 4_000
DIFF_LINES = 400


@dataclass(slots=True)
class PageRecord:
    record: TurnRecord
    text_chars: int  # the full length of `record.text` (cut to TEXT_CHARS)
    output_chars: int  # the full length of the output (cut to OUTPUT_CHARS)
    added: int  # lines an edit wrote and replaced, counted over all its hunks
    removed: int
    diff_lines: int  # lines of all hunks; `record.hunks` holds the first DIFF_LINES


@dataclass(slots=True)
class PageTurn:
    turn: int
    time: float
    compacted: bool
    inherited: bool
    records: list[PageRecord] = field(default_factory=list)


@dataclass(slots=True)
class SessionPage:
    session: SessionSummary
    offset: int  # the position of the first turn of `turns` among all the session's turns
    total_turns: int
    turns: list[PageTurn]
    at_turn: int | None


class NoSuchTurn(UnknownSession):
    """The turn asked to open at is not one the session holds."""


def _cut(text: str | None, most: int) -> tuple[str | None, int]:
    if text is None:
        return None, 0
    return (text if len(text) <= most else text[:most]), len(text)


def _cut_hunks(
    hunks: list[tuple[str | None, str]],
) -> tuple[list[tuple[str | None, str]], int, int, int]:
    """The hunks up to DIFF_LINES lines, and the lines added, removed and in all."""
    kept: list[tuple[str | None, str]] = []
    added = removed = shown = 0
    for replaced, written in hunks:
        old, new = (replaced or "").splitlines(), written.splitlines()
        removed, added = removed + len(old), added + len(new)
        room = DIFF_LINES - shown
        if room <= 0:
            continue
        old, new = old[:room], new[: max(room - len(old), 0)]
        shown += len(old) + len(new)
        kept.append(("\n".join(old) if replaced is not None else None, "\n".join(new)))
    return kept, added, removed, added + removed


def page_record(record: TurnRecord) -> PageRecord:
    text, text_chars = _cut(record.text, TEXT_CHARS)
    output, output_chars = _cut(record.output, OUTPUT_CHARS)
    hunks, added, removed, lines = _cut_hunks(record.hunks)
    record.text, record.output, record.hunks = text or "", output, hunks
    return PageRecord(record, text_chars, output_chars, added, removed, lines)


def _turns(db: sqlite3.Connection, session_id: str) -> list[int]:
    rows = db.execute(
        "SELECT DISTINCT turn FROM records WHERE session_id = ? ORDER BY turn", (session_id,)
    )
    return [int(row[0]) for row in rows]


def _start(turns: list[int], offset: int | None, at_turn: int | None, limit: int) -> int:
    if at_turn is None:
        return min(max(offset or 0, 0), len(turns))
    if at_turn not in turns:
        raise NoSuchTurn(f"the session has no turn {at_turn}")
    # A few turns before it, so the turn opened at is not the first thing on the page.
    return max(turns.index(at_turn) - min(3, limit // 4), 0)


def session_page(
    db: sqlite3.Connection,
    session_id: str,
    *,
    offset: int | None = None,
    limit: int = PAGE_TURNS,
    at_turn: int | None = None,
) -> SessionPage:
    """`limit` turns from position `offset`, or the page holding `at_turn`."""
    summary = session_summary(db, session_id)
    turns = _turns(db, session_id)
    start = _start(turns, offset, at_turn, limit)
    shown = turns[start : start + limit]
    page = SessionPage(summary, start, len(turns), [], at_turn)
    if not shown:
        return page
    fork_turn = summary.fork_turn if summary.forked_from else None
    by_turn: dict[int, PageTurn] = {}
    for row in named(db).execute(
        f"{TURN_RECORDS_SQL} WHERE r.session_id = ? AND r.turn BETWEEN ? AND ?"
        " ORDER BY r.turn, r.id",
        (session_id, shown[0], shown[-1]),
    ):
        turn = int(row["turn"])
        if turn not in by_turn:
            inherited = fork_turn is not None and turn < fork_turn
            by_turn[turn] = PageTurn(turn, row["time"], bool(row["compacted"]), inherited)
            page.turns.append(by_turn[turn])
        by_turn[turn].records.append(page_record(turn_record(row)))
    return page
