"""The line matcher as it was before the speed work of 2026-12-01 (commit 6dcae77): the oracle
`test_provenance_same.py` compares the current one with, on varied edit histories. Frozen: do
not optimise it; change it only together with a deliberate change of the matching rules."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import partial
from itertools import accumulate, compress, repeat

from deja.query.blame import FileEvent, LineRange
from deja.query.provenance import (
    MOVE_MIN_LINES,
    NEAR_LINES,
    Claim,
    Provenance,
    document_lines,
    is_trivial,
    similar,
)

_SOLID = re.compile(r"[^\W_]|\S.{2,}\S")  # a letter or digit, or over 3 characters once stripped


def solid_lines(keys: Sequence[str]) -> list[bool]:
    return list(map(bool, map(_SOLID.search, keys)))


def vocabulary(hunks: Sequence[Hunk]) -> tuple[frozenset[str], tuple[str, ...]]:
    lines = frozenset(
        line for h in hunks for line, solid in zip(h.lines, h.solid, strict=True) if solid
    )
    pieces = {line.strip() for h in hunks if h.partial for line in h.lines if not is_trivial(line)}
    return lines, tuple(sorted(pieces))


@dataclass(frozen=True, slots=True)
class Hunk:
    event: int
    hunk: int
    lines: tuple[str, ...]  # written lines, trailing spaces dropped
    solid: tuple[bool, ...]  # per line: not trivial, so it may anchor a match
    unique: tuple[int, ...]  # the solid lines standing once in the hunk
    text: str  # the written text, for a partial-line Edit
    partial: bool  # an Edit's: it may stand inside a line
    ends_line: bool  # the written text ran to the end of its last line


def prepare(events: Sequence[FileEvent]) -> list[Hunk]:
    """Every written hunk, oldest event first (`events` come newest first)."""
    hunks: list[Hunk] = []
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.role != "edit":
            continue
        for number, (replaced, written) in enumerate(event.hunks):
            text = written.strip("\n")
            if text.strip():
                lines = tuple(map(str.rstrip, text.split("\n")))
                solid = tuple(solid_lines(lines))
                counts = Counter(compress(lines, solid))
                unique = tuple(
                    n for n in compress(range(len(lines)), solid) if counts[lines[n]] == 1
                )
                ends = written.endswith("\n")
                partial = replaced is not None
                hunks.append(Hunk(index, number, lines, solid, unique, text, partial, ends))
    return hunks


_make = partial(tuple.__new__, Claim)  # a Claim from a tuple, without Python code in between
Taken = dict[int, Claim]  # document line → one hunk's claim on it
STRETCH_LINES = 256  # a run between runs this short is searched by slicing it
MAX_DEPTH = 8  # how deep runs are looked for between runs
# difflib between runs only over stretches this small (indexing the document side is its cost)
FALLBACK_LINES = 200
FALLBACK_PRODUCT = 10_000


def provenance(events: list[FileEvent], document: str) -> Provenance:
    """Every line of `document` and the hunks that claimed it (`events` newest first, as
    `file_history` gives them; `hunks` their `prepare`d form when already at hand)."""
    hunks = prepare(events)
    normalized = document.replace("\r\n", "\n")
    texts = document_lines(normalized)
    keys = tuple(map(str.rstrip, texts))
    claims: list[list[Claim]] = list(map(list, repeat((), len(keys))))  # newest claim first
    exact = bytearray(len(keys))  # lines a newer hunk claimed exactly: no similarity needed
    columns: dict[tuple[int, int], LineRange] = {}
    where = Positions(keys)
    starts: list[int] = []
    for hunk in reversed(hunks):
        if hunk.partial:
            starts = starts or line_starts(texts)
            found = standing_substring(hunk, normalized, starts)
            if found is not None:
                columns[(hunk.event, hunk.hunk)] = found
                end = min(found.end_line + 1, len(claims))
                for k, line in enumerate(range(found.start_line, end)):
                    claims[line].append(Claim(hunk.event, hunk.hunk, k, False))
                exact[found.start_line : end] = b"\x01" * (end - found.start_line)
                continue
        taken = match_lines(hunk, keys, where, exact)  # marks its exact lines in `exact`
        # (each list's append, in C: this runs for every line every hunk claims)
        deque(map(list.append, map(claims.__getitem__, taken), taken.values()), maxlen=0)
    stacks = list(map(tuple, map(reversed, claims)))
    return Provenance(events, hunks, texts, keys, stacks, columns, *vocabulary(hunks))  # type: ignore[arg-type]


def line_starts(texts: list[str]) -> list[int]:
    """The offset in the document where each line starts."""
    return [0, *accumulate(map((1).__add__, map(len, texts)))][: len(texts)]


def standing_substring(hunk: Hunk, document: str, starts: list[int]) -> LineRange | None:
    """Where an Edit's written text stands inside the document, when it stands exactly once."""
    needle = hunk.text
    if len(needle.strip()) < 2 or not any(char.isalnum() for char in needle):
        return None
    first = document.find(needle)
    if first < 0 or document.find(needle, first + 1) >= 0:
        return None
    end = first + len(needle)
    if hunk.ends_line and end < len(document) and document[end] != "\n":
        return None  # its last line goes on: changed since, which the line match tells
    start_line = bisect_right(starts, first) - 1
    start_char = first - starts[start_line]
    pieces = needle.split("\n")
    end_char = len(pieces[-1]) if len(pieces) > 1 else start_char + len(needle)
    return LineRange(start_line, start_char, start_line + len(pieces) - 1, end_char)


def _anchored(lines: Sequence[str]) -> bool:
    return any(not is_trivial(line) for line in lines)


Block = tuple[int, int, int]  # written line, document line, length
Keys = Sequence[str]  # lines, trailing spaces dropped (tuples: their slices compare in C)


class Positions:
    """Where the document's non-trivial lines stand: counted in C once; a line standing more
    than once is looked up in a stretch only when a run between runs asks."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self.count = Counter(compress(keys, solid_lines(keys)))
        self.last = dict(zip(keys, range(len(keys)), strict=True))
        self._many: dict[str, list[int]] = {}

    def once_in(self, key: str, b: range, stretch: Keys | None) -> int:
        """Where `key` stands in `b` when it stands there once (`stretch`: `b`'s lines when
        small), else -1."""
        count = self.count.get(key, 0)
        if count == 1:
            line = self.last[key]
            return line if b.start <= line < b.stop else -1
        if count == 0 or len(b) == len(self.keys):
            return -1
        if stretch is not None:
            return b.start + stretch.index(key) if stretch.count(key) == 1 else -1
        found = self._listed().get(key, [])
        low = bisect_left(found, b.start)
        one = low < len(found) and found[low] < b.stop
        return found[low] if one and (low + 1 == len(found) or found[low + 1] >= b.stop) else -1

    def _listed(self) -> dict[str, list[int]]:
        if not self._many:
            count = self.count
            for line, key in enumerate(self.keys):
                if count.get(key, 0) > 1:
                    self._many.setdefault(key, []).append(line)
        return self._many


def _anchors(hunk: Hunk, where: Positions, a: range, b: range) -> list[tuple[int, int]]:
    """Lines standing once in the hunk's `a` and once in the document's `b`, in order on both
    sides (the longest increasing run of their document lines: patience diff)."""
    written = hunk.lines
    if len(a) == len(written):
        candidates: Sequence[int] = hunk.unique
    else:
        once: dict[str, int] = {}
        solid = hunk.solid
        for index in a:
            if solid[index]:
                key = written[index]
                once[key] = -1 if key in once else index
        candidates = [index for index in once.values() if index >= 0]
    if len(b) == len(where.keys):  # the whole document: a count and a position say it all
        count, last = where.count, where.last
        pairs = [(i, last[key]) for i in candidates if count.get(key := written[i]) == 1]
    else:
        stretch = where.keys[b.start : b.stop] if len(b) <= STRETCH_LINES else None
        pairs = [
            (index, line)
            for index in candidates
            if (line := where.once_in(written[index], b, stretch)) >= 0
        ]
    lines = [line for _, line in pairs]
    if lines == sorted(lines):  # the usual case: nothing moved
        return pairs
    return _increasing(pairs)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of `pairs` (in order of their first item) whose second items increase."""
    tails: list[int] = []  # tails[k]: the smallest document line ending an increasing run of k+1
    tail_pair: list[int] = []
    back: list[int] = []
    for number, (_, line) in enumerate(pairs):
        k = bisect_left(tails, line)
        back.append(tail_pair[k - 1] if k else -1)
        if k == len(tails):
            tails.append(line)
            tail_pair.append(number)
        else:
            tails[k], tail_pair[k] = line, number
    chain: list[tuple[int, int]] = []
    number = tail_pair[-1] if tail_pair else -1
    while number >= 0:
        chain.append(pairs[number])
        number = back[number]
    return chain[::-1]


def _grow(a: Keys, b: Keys, i: int, j: int, most: int) -> int:
    """How many lines `a[i:]` and `b[j:]` share at their start (at most `most`), compared in
    growing slices (C) rather than line by line."""
    n, step = 0, 4
    while n < most:
        k = min(step, most - n)
        if a[i + n : i + n + k] == b[j + n : j + n + k]:
            n, step = n + k, step * 2
        elif k == 1:
            break
        else:
            step = k // 2
    return n


def _grow_back(a: Keys, b: Keys, i: int, j: int, most: int) -> int:
    """How many lines `a[:i]` and `b[:j]` share at their end (at most `most`)."""
    n, step = 0, 4
    while n < most:
        k = min(step, most - n)
        if a[i - n - k : i - n] == b[j - n - k : j - n]:
            n, step = n + k, step * 2
        elif k == 1:
            break
        else:
            step = k // 2
    return n


def match_blocks(
    hunk: Hunk, keys: Keys, where: Positions, a: range, b: range, depth: int = 0
) -> list[Block]:
    """Runs of equal lines, in order on both sides: anchored on lines unique to both, grown
    while the lines around are equal (trivial ones too), and again between the runs."""
    written = hunk.lines
    anchors = _anchors(hunk, where, a, b)
    if not anchors:
        return _fallback(written, keys, a, b)
    blocks: list[Block] = []
    low_a, low_b = a.start, b.start
    for anchor_a, anchor_b in anchors:
        if anchor_a < low_a or anchor_b < low_b:
            continue  # already inside the run grown from the previous anchor
        back = _grow_back(
            written, keys, anchor_a, anchor_b, min(anchor_a - low_a, anchor_b - low_b)
        )
        start_a, start_b = anchor_a - back, anchor_b - back
        size = back + _grow(
            written, keys, anchor_a, anchor_b, min(a.stop - anchor_a, b.stop - anchor_b)
        )
        if depth < MAX_DEPTH and start_a > low_a and start_b > low_b:
            blocks += match_blocks(
                hunk, keys, where, range(low_a, start_a), range(low_b, start_b), depth + 1
            )
        blocks.append((start_a, start_b, size))
        low_a, low_b = start_a + size, start_b + size
    if depth < MAX_DEPTH and low_a < a.stop and low_b < b.stop:
        blocks += match_blocks(
            hunk, keys, where, range(low_a, a.stop), range(low_b, b.stop), depth + 1
        )
    return blocks


def _fallback(written: Sequence[str], keys: Keys, a: range, b: range) -> list[Block]:
    """No line is unique to both sides: difflib, when the stretch is small enough."""
    if not a or not b or len(b) > FALLBACK_LINES or len(a) * len(b) > FALLBACK_PRODUCT:
        return []
    if len(a) == 1:  # (its equal neighbours were grown into the runs around it)
        key = written[a.start]
        stretch = keys[b.start : b.stop]
        return (
            [(a.start, b.start + stretch.index(key), 1)]
            if key in stretch and not is_trivial(key)
            else []
        )
    matcher = SequenceMatcher(None, written[a.start : a.stop], keys[b.start : b.stop], False)
    return [
        (a.start + x, b.start + y, size)
        for x, y, size in matcher.get_matching_blocks()
        if size and _anchored(written[a.start + x : a.start + x + size])
    ]


def match_lines(hunk: Hunk, keys: Keys, where: Positions, exact: bytearray) -> Taken:
    """One hunk's claims: its lines matched as a sequence, moved blocks, then similar lines
    (not on lines in `exact`: a newer exact claim owns them whatever this one says)."""
    return _HunkMatch(hunk, keys, where, exact).run()


def _unused_runs(used: bytearray) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    start = -1
    for index, flag in enumerate(used):
        if not flag and start < 0:
            start = index
        elif flag and start >= 0:
            runs.append((start, index))
            start = -1
    if start >= 0:
        runs.append((start, len(used)))
    return runs


def _forward(start: int, stop: int) -> range:
    return range(start, min(stop, start + NEAR_LINES))


def _back(stop: int, start: int) -> range:
    return range(stop - 1, max(start, stop - NEAR_LINES) - 1, -1)


class _HunkMatch:
    def __init__(self, hunk: Hunk, keys: Keys, where: Positions, exact: bytearray) -> None:
        self.hunk, self.keys, self.where, self.exact = hunk, keys, where, exact
        self.taken: Taken = {}
        self.used = bytearray(len(hunk.lines))  # written lines already matched

    def run(self) -> Taken:
        hunk = self.hunk
        blocks = match_blocks(
            hunk, self.keys, self.where, range(len(hunk.lines)), range(len(self.keys))
        )
        for block in blocks:
            self._claim(block)
        if blocks:
            self._moved()
            self._changed(blocks)
        return self.taken

    def _claim(self, block: Block) -> None:
        a, b, size = block
        event, number = self.hunk.event, self.hunk.hunk
        made = map(_make, zip(repeat(event), repeat(number), range(a, a + size), repeat(False)))
        self.taken.update(zip(range(b, b + size), made, strict=True))
        self.exact[b : b + size] = b"\x01" * size
        self.used[a : a + size] = b"\x01" * size

    def _moved(self) -> None:
        """What is left of the hunk, matched again over the whole document: a block the user
        moved stands elsewhere."""
        written, everywhere = self.hunk.lines, range(len(self.keys))
        for start, end in _unused_runs(self.used):
            if end - start < MOVE_MIN_LINES:
                continue
            for block in match_blocks(
                self.hunk, self.keys, self.where, range(start, end), everywhere
            ):
                a, b, size = block
                lines = written[a : a + size]
                if size < MOVE_MIN_LINES or sum(not is_trivial(x) for x in lines) < 2:
                    continue
                if not any(b + k in self.taken for k in range(size)):
                    self._claim(block)

    def _changed(self, blocks: list[Block]) -> None:
        """The lines facing each matched block's edges, outward from it: a document line
        similar to the written line across from it is that line, changed since."""
        first_a, first_b, _ = blocks[0]
        self._pair(_back(first_a, 0), _back(first_b, 0))
        for index, (a, b, size) in enumerate(blocks):
            last = index + 1 == len(blocks)
            next_a, next_b = (
                (len(self.hunk.lines), len(self.keys)) if last else blocks[index + 1][:2]
            )
            self._pair(_forward(a + size, next_a), _forward(b + size, next_b))
            if not last:
                self._pair(_back(next_a, a + size), _back(next_b, b + size))

    def _pair(self, sources: range, lines: range) -> None:
        """Each document line against the written lines about as far from the block as it is."""
        if not sources:
            return
        written, keys, used, taken = self.hunk.lines, self.keys, self.used, self.taken
        for k, line in enumerate(lines):
            if line in taken or self.exact[line]:
                continue
            for j in range(max(0, k - 2), min(len(sources), k + 3)):
                source = sources[j]
                if not used[source] and similar(written[source], keys[line]):
                    taken[line] = Claim(self.hunk.event, self.hunk.hunk, source, True)
                    used[source] = 1
                    break
