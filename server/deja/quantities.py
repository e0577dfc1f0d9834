"""Counts and sizes as people read them: `1 session`, `2 sessions`, `3.2 KB`."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 session`, `0 sessions`, `2 sessions`: a count as it is read."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
