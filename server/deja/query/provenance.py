"""Per-line provenance of a file's current text, like `git blame` with move detection: which past
edit's written text each line is, and whether it was changed since. Pure.

Each hunk of the file's recorded writes and edits claims the document lines its written lines
match as a sequence (`provenance_match`: anchors on lines unique to both sides, runs grown from
them). A block moved elsewhere is found by matching what is left of the hunk again. A line next
to a matched run that is similar to the written line facing it is claimed as "changed since".
Trivial lines (blank, lone brackets) never anchor a match: they are claimed only inside or at
the edge of a matched run. An Edit's written text that stands once in the document as a
substring claims the line(s) it stands in.

Every line keeps the stack of hunks that claimed it, oldest first; its owner is the newest exact
claim, else the newest "changed since" one (so no similarity is computed for a line a newer hunk
wrote exactly). A new version of the text (a keystroke) re-checks only the lines between the
unchanged head and tail against what claimed them before.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from itertools import chain, compress, repeat
from operator import not_
from typing import NamedTuple

from deja.errors import DejaError

from .blame import FileEvent, LineRange

SIMILAR = 0.6  # the ratio (as difflib's) from which a line is the written one "changed since"
MOVE_MIN_LINES = 3  # a moved block is found when at least this long
NEAR_LINES = 12  # how many lines facing a matched block are compared for similarity
INCREMENTAL_LINES = 64  # a new version changing more lines than this is recomputed whole


class LineError(DejaError):
    """A line number the file does not have."""


class Claim(NamedTuple):
    """A hunk's claim on one line. `source` is the written line it matched (its index in the
    hunk's lines); `changed` when the document's line is only similar to it."""

    event: int
    hunk: int
    source: int
    changed: bool


@dataclass(frozen=True, slots=True)
class Hunk:
    event: int
    hunk: int
    lines: tuple[str, ...]  # written lines, trailing spaces dropped
    solid: tuple[bool, ...]  # per line: not trivial, so it may anchor a match
    unique: tuple[int, ...]  # the solid lines standing once in the hunk
    unique_keys: tuple[str, ...]  # their text
    # Per written line, its exact claim as a 1-tuple: a matched run's claims are a slice of it,
    # put in front of each line's stack in C.
    singles: tuple[tuple[Claim], ...]
    text: str  # the written text, for a partial-line Edit
    partial: bool  # an Edit's: it may stand inside a line
    ends_line: bool  # the written text ran to the end of its last line


_ALNUM = re.compile(r"[^\W_]")


def is_trivial(key: str) -> bool:
    """Blank, or a lone bracket or punctuation: never evidence on its own."""
    return len(key.strip()) <= 3 and not _ALNUM.search(key)


def solid_lines(keys: Sequence[str]) -> list[bool]:
    """`not is_trivial` of each line: over 3 characters once stripped (measured in C), else
    holding a letter or digit (searched for only in the few short lines)."""
    solid = list(map((3).__lt__, map(len, map(str.strip, keys))))
    short = list(compress(range(len(solid)), map(not_, solid)))
    found = map(bool, map(_ALNUM.search, map(keys.__getitem__, short)))
    deque(map(solid.__setitem__, short, found), maxlen=0)
    return solid


Prepared = tuple[tuple[Hunk, ...], tuple[frozenset[str], tuple[str, ...]]]
HistoryKey = tuple[tuple[str, tuple[tuple[str | None, str], ...]], ...]


def prepare(events: Sequence[FileEvent]) -> list[Hunk]:
    """Every written hunk, oldest event first (`events` come newest first)."""
    return list(prepared(events)[0])


def prepared(events: Sequence[FileEvent]) -> Prepared:
    """`prepare`'s hunks and their `vocabulary`, kept for the last few file histories: they
    depend on nothing else, and a history is mapped again for every document version the
    incremental update does not cover (a new document, a new index generation, a paste)."""
    return _prepared(tuple((event.role, tuple(event.hunks)) for event in events))


def forget_prepared() -> None:
    """Drop the histories kept by `prepared` (the bench's first-mapping figure)."""
    _prepared.cache_clear()


@lru_cache(maxsize=8)
def _prepared(history: HistoryKey) -> Prepared:
    hunks: list[Hunk] = []
    for index in range(len(history) - 1, -1, -1):
        role, written_hunks = history[index]
        if role != "edit":
            continue
        for number, (replaced, written) in enumerate(written_hunks):
            text = written.strip("\n")
            if text.strip():
                hunks.append(_hunk(index, number, text, replaced is not None, written))
    return tuple(hunks), vocabulary(hunks)


def _hunk(index: int, number: int, text: str, partial: bool, written: str) -> Hunk:
    lines = tuple(map(str.rstrip, text.split("\n")))
    solid = tuple(solid_lines(lines))
    counts = Counter(compress(lines, solid))
    once = list(map((1).__eq__, map(counts.get, lines, repeat(0))))
    unique = tuple(compress(range(len(lines)), once))
    # (Claims made from tuples in C: NamedTuple's own constructor is Python code)
    fields = zip(repeat(index), repeat(number), range(len(lines)), repeat(False))
    made = map(tuple.__new__, repeat(Claim), fields)
    singles = tuple(zip(made))
    keys = tuple(compress(lines, once))
    ends = written.endswith("\n")
    return Hunk(index, number, lines, solid, unique, keys, singles, text, partial, ends)


def _shared_ends(a: str, b: str) -> int:
    """How many characters `a` and `b` share at their start and end (not overlapping)."""
    most = min(len(a), len(b))
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    head, low, high = low, 0, most - low
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle :] == b[len(b) - middle :]:
            low = middle
        else:
            high = middle - 1
    return head + low


def similar(a: str, b: str) -> bool:
    """`b` is `a` changed: difflib's ratio ≥ `SIMILAR`. Most changes keep a line's start and end,
    which is checked first in C (slices); difflib runs only when that does not decide."""
    a, b = a.strip(), b.strip()
    if is_trivial(a) or is_trivial(b):
        return False
    total = len(a) + len(b)
    if 2 * _shared_ends(a, b) >= SIMILAR * total:
        return True
    if 2 * min(len(a), len(b)) < SIMILAR * total:  # difflib's real_quick_ratio
        return False
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILAR


def _owner(stack: tuple[Claim, ...]) -> Claim:
    for claim in reversed(stack):
        if not claim.changed:
            return claim
    return stack[-1]


def vocabulary(hunks: Sequence[Hunk]) -> tuple[frozenset[str], tuple[str, ...]]:
    """What `Provenance.may_claim` looks for."""
    lines = frozenset(chain.from_iterable(compress(h.lines, h.solid) for h in hunks))
    pieces = {line.strip() for h in hunks if h.partial for line in h.lines if not is_trivial(line)}
    return lines, tuple(sorted(pieces))


def check_line(document: str, line: int, name: str) -> int:
    """A 1-based line number → zero-based, or a `LineError` saying what the file holds."""
    count = len(document_lines(document))
    if line < 1 or line > count:
        held = f"it has {count} line{'s' if count != 1 else ''}" if count else "it is empty"
        raise LineError(f"line {line} is not in {name}: {held} (lines count from 1)")
    return line - 1


def document_lines(document: str) -> list[str]:
    lines = document.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line break ends the last line; it starts none
    return lines


@dataclass
class Provenance:
    """Built by `provenance_match.provenance`; a new text's by `provenance_match.updated`."""

    events: list[FileEvent]
    hunks: list[Hunk]
    texts: list[str]  # the document's lines
    keys: tuple[str, ...]  # the same, trailing spaces dropped
    stacks: list[tuple[Claim, ...]]  # per line, oldest claim first
    # Exact columns of a partial-line Edit's claim, while its lines are unchanged.
    columns: dict[tuple[int, int], LineRange] = field(default_factory=dict)
    # Every written line, and every piece of a partial-line Edit: a new line holding one may be
    # claimed by a hunk that did not claim it before.
    vocabulary: frozenset[str] = frozenset()
    pieces: tuple[str, ...] = ()

    def may_claim(self, key: str) -> bool:
        return key in self.vocabulary or any(piece in key for piece in self.pieces)

    @cached_property
    def owners(self) -> list[Claim | None]:
        """Each line's owner: the newest exact claim, else the newest "changed since" one."""
        return [
            (stack[0] if len(stack) == 1 else _owner(stack)) if stack else None
            for stack in self.stacks
        ]

    def owner(self, line: int) -> Claim | None:
        return self.owners[line] if 0 <= line < len(self.stacks) else None

    def at_line(self, line: int) -> list[FileEvent]:
        """The events that claimed `line`: its owner first, then the others newest first."""
        owner = self.owner(line)
        if owner is None:
            return []
        order = [owner.event, *(c.event for c in reversed(self.stacks[line]))]
        return [self.events[index] for index in dict.fromkeys(order)]

    def run(self, line: int) -> tuple[int, int]:
        """The lines around `line` (first, last) owned by the same hunk."""
        owners = self.owners
        owner = self.owner(line)
        first = last = line
        if owner is None:
            return first, last
        key = owner[:2]
        while first > 0 and (o := owners[first - 1]) is not None and o[:2] == key:
            first -= 1
        while last + 1 < len(owners) and (o := owners[last + 1]) is not None and o[:2] == key:
            last += 1
        return first, last

    def runs(self) -> list[tuple[int, Claim]]:
        """The first line of each run of lines owned by the same event, with its owner."""
        found: list[tuple[int, Claim]] = []
        previous = -1
        for line, owner in enumerate(self.owners):
            if owner is not None and owner.event != previous:
                found.append((line, owner))
            previous = owner.event if owner is not None else -1
        return found

    @cached_property
    def hunk_ranges(self) -> dict[tuple[int, int], LineRange]:
        """Per (event, hunk): from the first to the last line it claimed."""
        spans: dict[tuple[int, int], list[int]] = {}
        for line, stack in enumerate(self.stacks):
            for claim in stack:
                span = spans.setdefault((claim.event, claim.hunk), [line, line])
                span[1] = line
        return {
            key: self.columns.get(key)
            or LineRange(first, 0, last, len(self.texts[last]) if last < len(self.texts) else 0)
            for key, (first, last) in spans.items()
        }

    def event_ranges(self, index: int) -> list[LineRange | None]:
        """Each hunk of `events[index]`: where what it wrote stands now (None: nowhere)."""
        ranges = self.hunk_ranges
        return [ranges.get((index, h)) for h in range(len(self.events[index].hunks))]

    def place(self) -> None:
        """Fill every event's `ranges` from this mapping."""
        for index, event in enumerate(self.events):
            event.ranges = self.event_ranges(index)
