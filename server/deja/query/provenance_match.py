"""Matching written hunks to a document's lines (`provenance`). Pure; the model and its rules are
in `provenance.py`, a new version of the text in `provenance_update.py`."""

from __future__ import annotations

import gc
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from itertools import accumulate, compress, repeat
from operator import add

from .blame import FileEvent, LineRange
from .provenance import (
    MOVE_MIN_LINES,
    NEAR_LINES,
    Claim,
    Hunk,
    Provenance,
    document_lines,
    is_trivial,
    prepared,
    similar,
)

STRETCH_LINES = 256  # a run between runs this short is searched by slicing it
MAX_DEPTH = 8  # how deep runs are looked for between runs
# difflib between runs only over stretches this small (indexing the document side is its cost)
FALLBACK_LINES = 200
FALLBACK_PRODUCT = 10_000


def provenance(events: list[FileEvent], document: str) -> Provenance:
    """Every line of `document` and the hunks that claimed it (`events` newest first, as
    `file_history` gives them; their hunks `prepared` once per history)."""
    # Tens of thousands of claims and stacks are made, none in a cycle: the cyclic collector
    # would only walk them again and again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _mapped(events, document)
    finally:
        if collecting:
            gc.enable()


def _mapped(events: list[FileEvent], document: str) -> Provenance:
    held, words = prepared(events)
    hunks = list(held)
    normalized = document.replace("\r\n", "\n")
    texts = document_lines(normalized)
    keys = tuple(map(str.rstrip, texts))
    empty: tuple[Claim, ...] = ()
    stacks = [empty] * len(keys)  # oldest claim first: each (older) hunk's goes in front
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
                end = min(found.end_line + 1, len(stacks))
                start = found.start_line
                stacks[start:end] = map(add, hunk.singles, stacks[start:end])
                exact[start:end] = b"\x01" * (end - start)
                continue
        blocks, changed = match_lines(hunk, keys, where, exact)  # marks `exact` for its runs
        singles = hunk.singles
        for a, b, size in blocks:  # (a run's claims in front of its lines' stacks, in C)
            stacks[b : b + size] = map(add, singles[a : a + size], stacks[b : b + size])
        for line, claim in changed.items():
            stacks[line] = (claim, *stacks[line])
    return Provenance(events, hunks, texts, keys, stacks, columns, *words)


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
        # Every line counted (only non-trivial ones are ever looked up: the same counts).
        self.count = Counter(keys)
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


Anchors = tuple[list[int], list[int]]  # written lines, and the document lines they stand at


def _anchors(hunk: Hunk, where: Positions, a: range, b: range) -> Anchors:
    """Lines standing once in the hunk's `a` and once in the document's `b`, in order on both
    sides (the longest increasing run of their document lines: patience diff)."""
    written = hunk.lines
    if len(a) == len(written):
        candidates: Sequence[int] = hunk.unique
        texts: Sequence[str] = hunk.unique_keys
    else:
        once: dict[str, int] = {}
        solid = hunk.solid
        for index in a:
            if solid[index]:
                key = written[index]
                once[key] = -1 if key in once else index
        candidates = [index for index in once.values() if index >= 0]
        texts = [written[index] for index in candidates]
    if len(b) == len(where.keys):  # the whole document: a count and a position say it all (C)
        ones = list(map((1).__eq__, map(where.count.get, texts, repeat(0))))
        firsts = list(compress(candidates, ones))
        seconds = list(map(where.last.__getitem__, compress(texts, ones)))
    else:
        stretch = where.keys[b.start : b.stop] if len(b) <= STRETCH_LINES else None
        firsts, seconds = [], []
        for index, key in zip(candidates, texts, strict=True):
            if (line := where.once_in(key, b, stretch)) >= 0:
                firsts.append(index)
                seconds.append(line)
    if seconds == sorted(seconds):  # the usual case: nothing moved
        return firsts, seconds
    return _increasing(firsts, seconds)


def _increasing(firsts: list[int], seconds: list[int]) -> Anchors:
    """The longest run of pairs (in order of `firsts`) whose `seconds` increase."""
    tails: list[int] = []  # tails[k]: the smallest document line ending an increasing run of k+1
    tail_pair: list[int] = []
    back: list[int] = []
    for number, line in enumerate(seconds):
        k = bisect_left(tails, line)
        back.append(tail_pair[k - 1] if k else -1)
        if k == len(tails):
            tails.append(line)
            tail_pair.append(number)
        else:
            tails[k], tail_pair[k] = line, number
    chain: list[int] = []
    number = tail_pair[-1] if tail_pair else -1
    while number >= 0:
        chain.append(number)
        number = back[number]
    chain.reverse()
    return [firsts[n] for n in chain], [seconds[n] for n in chain]


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
    if len(a) == 1 and len(b) == 1:  # a line changed between two runs: what the rest would say
        return (
            [(a.start, b.start, 1)]
            if hunk.solid[a.start] and written[a.start] == keys[b.start]
            else []
        )
    if len(a) == len(written) and len(b) == len(keys) and hunk.unique and written == keys:
        return [(0, 0, len(keys))]  # the text is the hunk's: one run, as the anchors would grow
    firsts, seconds = _anchors(hunk, where, a, b)
    if not firsts:
        return _fallback(written, keys, a, b)
    blocks: list[Block] = []
    low_a, low_b = a.start, b.start
    k, count = 0, len(firsts)
    while k < count:
        anchor_a, anchor_b = firsts[k], seconds[k]
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
        # the next anchor past the run on both sides (both sides increase)
        k = max(bisect_left(firsts, low_a, k + 1), bisect_left(seconds, low_b, k + 1))
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


HunkClaims = tuple[list[Block], dict[int, Claim]]  # runs claimed exactly; lines "changed since"


def match_lines(hunk: Hunk, keys: Keys, where: Positions, exact: bytearray) -> HunkClaims:
    """One hunk's claims: its lines matched as a sequence, moved blocks, then similar lines
    (not on lines in `exact`: a newer exact claim owns them whatever this one says)."""
    return _HunkMatch(hunk, keys, where, exact).run()


_UNUSED = re.compile(b"\x00+")


def _forward(start: int, stop: int) -> range:
    return range(start, min(stop, start + NEAR_LINES))


def _back(stop: int, start: int) -> range:
    return range(stop - 1, max(start, stop - NEAR_LINES) - 1, -1)


class _HunkMatch:
    def __init__(self, hunk: Hunk, keys: Keys, where: Positions, exact: bytearray) -> None:
        self.hunk, self.keys, self.where, self.exact = hunk, keys, where, exact
        self.blocks: list[Block] = []
        self.changed: dict[int, Claim] = {}
        self.mine = bytearray(len(keys))  # document lines this hunk claimed exactly
        self.used = bytearray(len(hunk.lines))  # written lines already matched

    def run(self) -> HunkClaims:
        hunk = self.hunk
        blocks = match_blocks(
            hunk, self.keys, self.where, range(len(hunk.lines)), range(len(self.keys))
        )
        for block in blocks:
            self._claim(block)
        if blocks:
            self._moved()
            self._changed(blocks)
        return self.blocks, self.changed

    def _claim(self, block: Block) -> None:
        a, b, size = block
        self.blocks.append(block)
        self.exact[b : b + size] = self.mine[b : b + size] = b"\x01" * size
        self.used[a : a + size] = b"\x01" * size

    def _moved(self) -> None:
        """What is left of the hunk, matched again over the whole document: a block the user
        moved stands elsewhere."""
        written, everywhere = self.hunk.lines, range(len(self.keys))
        for unused in _UNUSED.finditer(self.used):
            start, end = unused.span()
            if end - start < MOVE_MIN_LINES:
                continue
            for block in match_blocks(
                self.hunk, self.keys, self.where, range(start, end), everywhere
            ):
                a, b, size = block
                lines = written[a : a + size]
                if size < MOVE_MIN_LINES or sum(not is_trivial(x) for x in lines) < 2:
                    continue
                if self.mine.find(1, b, b + size) < 0:
                    self._claim(block)

    def _changed(self, blocks: list[Block]) -> None:
        """The lines facing each matched block's edges, outward from it: a document line
        similar to the written line across from it is that line, changed since. (Where every
        facing line is claimed exactly already, as between most runs, nothing is compared.)"""
        exact, near = self.exact, NEAR_LINES
        first_a, first_b, _ = blocks[0]
        if first_a and first_b and exact.find(0, max(0, first_b - near), first_b) >= 0:
            self._pair(_back(first_a, 0), _back(first_b, 0))
        ends = [block[:2] for block in blocks[1:]]
        for index, (a, b, size) in enumerate(blocks):
            last = index == len(ends)
            next_a, next_b = (len(self.hunk.lines), len(self.keys)) if last else ends[index]
            end_a, end_b = a + size, b + size
            if end_a >= next_a or end_b >= next_b:
                continue
            if exact.find(0, end_b, min(next_b, end_b + near)) >= 0:
                self._pair(_forward(end_a, next_a), _forward(end_b, next_b))
            if not last and exact.find(0, max(end_b, next_b - near), next_b) >= 0:
                self._pair(_back(next_a, end_a), _back(next_b, end_b))

    def _pair(self, sources: range, lines: range) -> None:
        """Each document line against the written lines about as far from the block as it is."""
        exact = self.exact
        written, keys, used, changed = self.hunk.lines, self.keys, self.used, self.changed
        for k, line in enumerate(lines):
            if line in changed or exact[line]:
                continue
            for j in range(max(0, k - 2), min(len(sources), k + 3)):
                source = sources[j]
                if not used[source] and similar(written[source], keys[line]):
                    changed[line] = Claim(self.hunk.event, self.hunk.hunk, source, True)
                    used[source] = 1
                    break
