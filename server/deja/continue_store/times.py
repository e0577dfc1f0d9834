"""Session and turn times. Nothing in a session file carries a time: they are laid out from
`dateCreated`, the file's mtime and, in the index, what a pass saw appear (the rule:
`deja.index.turn_times`)."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_date_created(value: object) -> float | None:
    """`"1750262400123"` (epoch ms) or ISO-8601 → epoch seconds; anything else → None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) / 1000.0 if value > 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.isdigit():
        return int(text) / 1000.0
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def turn_time(started: float, last_active: float, turn: int) -> float:
    """The seed rule, the floor of every turn time: turns one second apart from the start,
    never past the last activity, order kept."""
    return min(started + turn, max(started, last_active))


def window_times(after: float, until: float, count: int) -> list[float] | None:
    """Times for `count` turns, in order, written after `after` and no later than `until`:
    the last at `until`, one second apart, closer when the window is shorter than that.
    None when the window is empty (the clock or the mtime went back)."""
    if until <= after or count <= 0:
        return None
    step = min(1.0, (until - after) / count)
    return [until - (count - 1 - k) * step for k in range(count)]


def anchored_time(last_active: float, turn: int, last_turn: int) -> float:
    """A turn of the file's newest stretch, counted back from the mtime (its latest bound)."""
    return last_active - (last_turn - turn)
