"""A long list of values bound to `IN (…)` a slice at a time: SQLite caps the host parameters
of one statement (999 before 3.32), so each slice is one statement."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

SLICE = 500


def in_slices(values: Sequence[T]) -> Iterator[tuple[str, Sequence[T]]]:
    """(the `?,?,…` for one slice, its values), slice after slice."""
    for start in range(0, len(values), SLICE):
        part = values[start : start + SLICE]
        yield ",".join("?" * len(part)), part
