"""What `deja restore …` asks for: the selection grammar and the numbers it picks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deja.errors import DejaError
from deja.one_line import one_line


class RestoreError(DejaError):
    """The request cannot be answered (bad selection, out of range); one line for the user."""


@dataclass(frozen=True, slots=True)
class Selection:
    """What `deja restore …` asked for. `ranges` are inclusive; neither ranges nor `last` means
    the default (the current session when it lost context)."""

    ranges: tuple[tuple[int, int], ...] = ()
    last: bool = False
    topic: str | None = None

    @property
    def is_default(self) -> bool:
        return not self.ranges and not self.last


_NUMBER = re.compile(r"\d+")
_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)")


def parse_selection(text: str) -> Selection:
    """`1,3`, `1-4`, `last`, `` (default), each optionally followed by `: topic`."""
    picked, colon, topic_text = text.partition(":")
    topic = one_line(topic_text) if colon else None
    if colon and not topic:
        raise RestoreError("nothing after ':': give a topic (deja restore 1,3 : flaky test)")
    picked = picked.strip()
    if not picked:
        return Selection(topic=topic)
    if picked.lower() == "last":
        return Selection(last=True, topic=topic)
    ranges: list[tuple[int, int]] = []
    for part in picked.split(","):
        part = part.strip()
        single = _NUMBER.fullmatch(part)
        pair = _RANGE.fullmatch(part)
        if single:
            ranges.append((int(part), int(part)))
        elif pair:
            low, high = int(pair.group(1)), int(pair.group(2))
            if low > high:
                raise RestoreError(f"range {part!r} runs backwards: write {high}-{low}")
            ranges.append((low, high))
        elif re.fullmatch(r"\d+\s*-|-\s*\d+", part):
            raise RestoreError(f"range {part!r} needs both ends (like 1-4)")
        else:
            shown = part or picked
            raise RestoreError(
                f"cannot read {shown!r}: give session numbers (1,3), a range (1-4) or last"
            )
    return Selection(tuple(ranges), topic=topic)


def _earlier(highest: int) -> str:
    return (
        "1 earlier session (#1)" if highest == 1 else f"{highest} earlier sessions (#1-#{highest})"
    )


def expand(ranges: Sequence[tuple[int, int]], highest: int, *, has_zero: bool) -> list[int]:
    """The numbers picked, in order given, each once; checked before expanding (so `1-99999999`
    fails fast instead of building a list)."""
    for low, high in ranges:
        for number in (low, high):
            if number == 0 and not has_zero:
                raise RestoreError(
                    "no session #0: the current session lost no context to compaction"
                )
            if number > highest:
                raise RestoreError(
                    f"no session #{number}: this project has "
                    + (_earlier(highest) if highest else "none")
                    + "; run deja restore to list them"
                )
    seen: dict[int, None] = {}
    for low, high in ranges:
        seen.update(dict.fromkeys(range(low, high + 1)))
    return list(seen)
