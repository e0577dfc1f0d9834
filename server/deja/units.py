"""Times and sizes as people read them; shared by every renderer."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def iso_time(timestamp: float) -> str:
    """`2026-11-13T09:30:00Z`: UTC, to the second."""
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def ago(timestamp: float, now: float | None = None) -> str:
    seconds = max(0.0, (now or time.time()) - timestamp)
    for unit, size in (
        ("year", 31_536_000),
        ("month", 2_592_000),
        ("day", 86_400),
        ("hour", 3_600),
        ("minute", 60),
    ):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count > 1 else ''} ago"
    return "just now"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 session`, `0 sessions`, `2 sessions`: a count as it is read."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
