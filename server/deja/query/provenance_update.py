"""Carrying a provenance mapping over to a new version of the text (`updated`): what a keystroke
costs in the sidecar. Pure."""

from __future__ import annotations

from dataclasses import replace
from difflib import SequenceMatcher

from .blame import LineRange
from .provenance import (
    INCREMENTAL_LINES,
    Claim,
    Hunk,
    Provenance,
    document_lines,
    is_trivial,
    similar,
)
from .provenance_match import Keys, provenance


def _common_prefix(a: Keys, b: Keys, most: int) -> int:
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: Keys, b: Keys, most: int) -> int:
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
    keys = tuple(map(str.rstrip, texts))
    most = min(len(keys), len(old.keys))
    head = _common_prefix(old.keys, keys, most)
    tail = _common_suffix(old.keys, keys, most - head)
    old_middle = old.keys[head : len(old.keys) - tail]
    new_middle = keys[head : len(keys) - tail]
    if max(len(old_middle), len(new_middle)) > INCREMENTAL_LINES:
        return provenance(old.events, document)
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
                return provenance(old.events, document)
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
