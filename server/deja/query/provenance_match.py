"""Matching written hunks to a document's lines (`provenance`), and carrying a mapping over to a
new version of the text (`updated`). Pure; the model and its rules are in `provenance.py`."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from itertools import accumulate

from .blame import FileEvent, LineRange
from .provenance import (
    INCREMENTAL_LINES,
    MOVE_MIN_LINES,
    NEAR_LINES,
    Claim,
    Hunk,
    Provenance,
    document_lines,
    is_trivial,
    prepare,
    similar,
    solid_lines,
    vocabulary,
)

Taken = dict[int, Claim]  # document line → one hunk's claim on it
MAX_DEPTH = 8  # how deep runs are looked for between runs
# difflib between runs only over stretches this small (indexing the document side is its cost)
FALLBACK_LINES = 200
FALLBACK_PRODUCT = 10_000


def provenance(
    events: list[FileEvent], document: str, hunks: list[Hunk] | None = None
) -> Provenance:
    """Every line of `document` and the hunks that claimed it (`events` newest first, as
    `file_history` gives them; `hunks` their `prepare`d form when already at hand)."""
    hunks = prepare(events) if hunks is None else hunks
    normalized = document.replace("\r\n", "\n")
    texts = document_lines(normalized)
    keys = list(map(str.rstrip, texts))
    claims: list[list[Claim]] = [[] for _ in keys]  # newest first, reversed at the end
    exact = bytearray(len(keys))  # lines a newer hunk claimed exactly: no similarity needed
    columns: dict[tuple[int, int], LineRange] = {}
    where = positions(keys)
    starts = line_starts(texts)
    for hunk in reversed(hunks):
        found = standing_substring(hunk, normalized, starts) if hunk.partial else None
        if found is not None:
            columns[(hunk.event, hunk.hunk)] = found
            for k in range(found.end_line - found.start_line + 1):
                if found.start_line + k < len(claims):
                    claims[found.start_line + k].append(Claim(hunk.event, hunk.hunk, k, False))
                    exact[found.start_line + k] = 1
            continue
        for line, claim in match_lines(hunk, keys, where, exact).items():
            claims[line].append(claim)
            if not claim.changed:
                exact[line] = 1
    stacks = [tuple(c[::-1]) for c in claims]
    return Provenance(events, hunks, texts, keys, stacks, columns, *vocabulary(hunks))


def line_starts(texts: list[str]) -> list[int]:
    """The offset in the document where each line starts."""
    return [0, *accumulate(len(text) + 1 for text in texts)][: len(texts)]


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
Positions = dict[str, list[int]]  # a non-trivial line → where it stands in the document


def positions(keys: list[str]) -> Positions:
    found: Positions = {}
    for line, (key, solid) in enumerate(zip(keys, solid_lines(keys), strict=True)):
        if solid:
            found.setdefault(key, []).append(line)
    return found


def _anchors(hunk: Hunk, where: Positions, a: range, b: range) -> list[tuple[int, int]]:
    """Lines standing once in the hunk's `a` and once in the document's `b`, in order on both
    sides (the longest increasing run of their document lines: patience diff)."""
    once: dict[str, int] = {}
    written, solid = hunk.lines, hunk.solid
    for index in a:
        if solid[index]:
            key = written[index]
            once[key] = -1 if key in once else index
    pairs: list[tuple[int, int]] = []
    for key, index in once.items():
        found = where.get(key)
        if index >= 0 and found:
            low = bisect_left(found, b.start)
            if (
                low < len(found)
                and found[low] < b.stop
                and (low + 1 == len(found) or found[low + 1] >= b.stop)
            ):
                pairs.append((index, found[low]))
    pairs.sort()
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


def match_blocks(
    hunk: Hunk, keys: list[str], where: Positions, a: range, b: range, depth: int = 0
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
        if blocks and anchor_a < blocks[-1][0] + blocks[-1][2]:
            continue  # already inside the run grown from the previous anchor
        start_a, start_b = anchor_a, anchor_b
        while start_a > low_a and start_b > low_b and written[start_a - 1] == keys[start_b - 1]:
            start_a, start_b = start_a - 1, start_b - 1
        end_a, end_b = anchor_a + 1, anchor_b + 1
        while end_a < a.stop and end_b < b.stop and written[end_a] == keys[end_b]:
            end_a, end_b = end_a + 1, end_b + 1
        if depth < MAX_DEPTH and start_a > low_a and start_b > low_b:
            blocks += match_blocks(
                hunk, keys, where, range(low_a, start_a), range(low_b, start_b), depth + 1
            )
        blocks.append((start_a, start_b, end_a - start_a))
        low_a, low_b = end_a, end_b
    if depth < MAX_DEPTH and low_a < a.stop and low_b < b.stop:
        blocks += match_blocks(
            hunk, keys, where, range(low_a, a.stop), range(low_b, b.stop), depth + 1
        )
    return blocks


def _fallback(written: Sequence[str], keys: list[str], a: range, b: range) -> list[Block]:
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


def match_lines(hunk: Hunk, keys: list[str], where: Positions, exact: bytearray) -> Taken:
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
    def __init__(self, hunk: Hunk, keys: list[str], where: Positions, exact: bytearray) -> None:
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
        event, number, taken = self.hunk.event, self.hunk.hunk, self.taken
        for k in range(size):
            taken[b + k] = Claim(event, number, a + k, False)
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


def _common_prefix(a: list[str], b: list[str], most: int) -> int:
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: list[str], b: list[str], most: int) -> int:
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle :] == b[len(b) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low


def recheck(
    stack: tuple[Claim, ...], key: str, hunks: dict[tuple[int, int], Hunk]
) -> tuple[Claim, ...]:
    """A line's old claims against its new text: still exact, changed since, or gone."""
    kept: list[Claim] = []
    for claim in stack:
        hunk = hunks[(claim.event, claim.hunk)]
        piece = hunk.lines[claim.source]
        inside = hunk.partial and not is_trivial(piece) and piece.strip() in key
        if inside and hunk.ends_line and claim.source == len(hunk.lines) - 1:
            inside = key.endswith(piece.strip())
        if key == piece or inside:
            kept.append(claim._replace(changed=False))
        elif similar(piece, key):
            kept.append(claim._replace(changed=True))
    return tuple(kept)


def updated(old: Provenance, document: str) -> Provenance:
    """The mapping for a new version of the text: the unchanged head and tail keep their claims
    (shifted), the lines between are re-checked against what claimed them; a change of more
    than `INCREMENTAL_LINES` lines is recomputed whole."""
    texts = document_lines(document)
    keys = [text.rstrip() for text in texts]
    most = min(len(keys), len(old.keys))
    head = _common_prefix(old.keys, keys, most)
    tail = _common_suffix(old.keys, keys, most - head)
    old_middle = old.keys[head : len(old.keys) - tail]
    new_middle = keys[head : len(keys) - tail]
    if max(len(old_middle), len(new_middle)) > INCREMENTAL_LINES:
        return provenance(old.events, document, old.hunks)
    hunks = {(h.event, h.hunk): h for h in old.hunks}
    middle: list[tuple[Claim, ...]] = []
    diff = SequenceMatcher(None, old_middle, new_middle, autojunk=False)
    for tag, i1, i2, j1, j2 in diff.get_opcodes():
        if tag == "equal":
            middle += old.stacks[head + i1 : head + i2]
            continue
        for k in range(j2 - j1):
            before = old.stacks[head + i1 + k] if i1 + k < i2 else ()
            text = new_middle[j1 + k]
            after = recheck(before, text, hunks)
            if not after and old.may_claim(text):  # text some hunk wrote: where it goes is a match
                return provenance(old.events, document, old.hunks)
            middle.append(after)
    stacks = old.stacks[:head] + middle + old.stacks[len(old.stacks) - tail :]
    shift, changed_from = len(keys) - len(old.keys), len(old.keys) - tail
    columns: dict[tuple[int, int], LineRange] = {}
    for key, span in old.columns.items():
        if span.end_line < head:
            columns[key] = span
        elif span.start_line >= changed_from:
            columns[key] = LineRange(
                span.start_line + shift, span.start_char, span.end_line + shift, span.end_char
            )
    return replace(old, texts=texts, keys=keys, stacks=stacks, columns=columns)
