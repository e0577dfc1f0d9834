"""Session and turn times. Nothing in a session file carries a time: they are laid out from
`dateCreated` and the file's mtime."""

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
    """Turns one second apart from the start, never past the last activity, order kept."""
    return min(started + turn, max(started, last_active))
