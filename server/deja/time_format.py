"""Every form of a moment Deja shows: ISO times, days, minutes, "3 days ago", the `--since`
bound a search names. One module, so the doors cannot drift apart on what a date looks like."""

from __future__ import annotations

import time
from datetime import UTC, datetime, tzinfo


def iso_time(timestamp: float) -> str:
    """`2026-11-13T09:30:00Z`: UTC, to the second."""
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def day(timestamp: float) -> str:
    """`2026-11-13` (UTC)."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")


def minute(timestamp: float, tz: tzinfo | None = UTC) -> str:
    """`2026-11-13 09:30` in `tz` (UTC unless given; None: the local time zone)."""
    return datetime.fromtimestamp(timestamp, tz).strftime("%Y-%m-%d %H:%M")


def minute_utc(timestamp: float) -> str:
    """`2026-11-13 09:30 UTC`."""
    return f"{minute(timestamp)} UTC"


def since_bound(timestamp: float) -> str:
    """A `--since` bound as a search names it: the day when it is a midnight, else the minute."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    midnight = moment == moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return day(timestamp) if midnight else minute_utc(timestamp)


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


def ago_and_iso(timestamp: float, now: float | None = None) -> str:
    """`3 days ago (2026-11-13T09:30:00Z)`."""
    return f"{ago(timestamp, now)} ({iso_time(timestamp)})"
