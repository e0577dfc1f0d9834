"""When each turn of a session was written, from what the index saw (`turn_times`, from an
`Observed` read before the live turns are replaced). Continue writes no per-turn time, so:

- Floor (what Deja never saw happen): the seed rule, turns one second apart from
  `dateCreated`, never past the file's mtime, order kept.
- Seen appearing: a turn the index did not hold at the previous pass (appended, or after a
  compaction) was written after the earlier observation of the file (its mtime then) and no
  later than its new mtime: the turns that appeared are dated inside that window, the last at
  the new mtime, one second apart (closer when the window is shorter), never before the seed,
  never before a turn the index holds. Turns the index held keep the times it gave them. An
  empty window (the mtime went back) leaves the seed, order kept.
- Cold index: the turns from the file's last compaction summary on are its newest stretch,
  counted back from the mtime (their latest bound) when that is later than the seed. A resume
  leaves no mark in the file, so a cold index dates a resumed, never-compacted session by the
  floor alone.
- After a schema upgrade (only compacted turns come over, `size = -1`), what the file held is
  unknown: the cold rule, never before the newest turn held."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from deja.continue_store import Session
from deja.continue_store.times import anchored_time, turn_time, window_times


@dataclass(frozen=True, slots=True)
class Observed:
    """What the index held of a session before this pass read its file again."""

    last_active: float  # the file's mtime when the index last saw it
    turns: frozenset[int]  # the live turns it held
    times: dict[int, float]  # their times (turns with no record have none)
    latest: float | None  # the newest time of any turn it held, compacted included
    # False after a schema upgrade (`size = -1`): only compacted turns came over, so what the
    # file held at the last pass is unknown and nothing can be said to have appeared since.
    known: bool = True


def observed(
    db: sqlite3.Connection,
    session_id: str,
    last_active: float,
    turns: frozenset[int],
    *,
    known: bool,
) -> Observed:
    """Read before the live turns are replaced."""
    times = {
        int(turn): float(time)
        for turn, time in db.execute(
            "SELECT turn, min(time) FROM records WHERE session_id = ? AND compacted = 0"
            " GROUP BY turn",
            (session_id,),
        )
    }
    (latest,) = db.execute(
        "SELECT max(time) FROM records WHERE session_id = ?", (session_id,)
    ).fetchone()
    return Observed(last_active, turns, times, None if latest is None else float(latest), known)


def turn_times(session: Session, base: int, seen: Observed | None) -> dict[int, float]:
    """The time of each of the file's turns (numbered from `base`), in order."""
    turns = [base + item.turn for item in session.items]
    if seen is None or not seen.known:
        return _cold(session, base, None if seen is None else seen.latest)
    times: dict[int, float] = {}
    appeared = [turn for turn in turns if turn not in seen.turns]
    for turn in turns:
        if turn in seen.turns:
            times[turn] = seen.times.get(turn, _seed(session, turn))
    window = window_times(seen.last_active, session.last_active, len(appeared))
    last = seen.latest if seen.latest is not None else session.started
    for k, turn in enumerate(appeared):
        time = _seed(session, turn) if window is None else max(_seed(session, turn), window[k])
        last = times[turn] = max(time, last)
    return times


def _cold(session: Session, base: int, latest: float | None) -> dict[int, float]:
    """Never seen before: the seed rule, and the turns from the last compaction summary on,
    the file's newest stretch, counted back from its mtime; none before the `latest` held."""
    summaries = [item.turn for item in session.items if item.is_summary]
    boundary = base + summaries[-1] if summaries else None
    last_turn = base + session.items[-1].turn if session.items else base
    times: dict[int, float] = {}
    last = session.started if latest is None else latest
    for item in session.items:
        turn = base + item.turn
        time = _seed(session, turn)
        if boundary is not None and turn >= boundary:
            time = max(time, anchored_time(session.last_active, turn, last_turn))
        last = times[turn] = max(time, last)
    return times


def _seed(session: Session, turn: int) -> float:
    return turn_time(session.started, session.last_active, turn)
