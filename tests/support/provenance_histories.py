"""Varied edit histories of one file, from a seed: Writes, Edits of whole lines and of part of
a line, and changes by hand between them (lines retyped, similar, deleted, inserted, blocks
moved), over files with repeated and trivial lines. For the matcher's equivalence test."""

from __future__ import annotations

import random

from deja.query.blame import FileEvent

COMMON = ["", "", "}", "    return value", "    pass", "        i += 1", ")", "# ---", "  "]


def fresh_line(rng: random.Random, common: float = 0.3) -> str:
    if rng.random() < common:
        return rng.choice(COMMON)
    n = rng.randrange(10_000)
    return rng.choice(
        [f"def step_{n}(value):", f"    total_{n} = compute({n}, value)", f"    log('{n}')  "]
    )


def by_hand(rng: random.Random, lines: list[str]) -> None:
    """One change nobody recorded."""
    if not lines:
        lines.append(fresh_line(rng))
        return
    at = rng.randrange(len(lines))
    kind = rng.randrange(6)
    if kind == 0:
        lines[at] = lines[at] + " or 0"  # similar: changed since
    elif kind == 1:
        lines[at] = fresh_line(rng)
    elif kind == 2:
        del lines[at : at + rng.randint(1, 4)]
    elif kind == 3:
        lines[at:at] = [fresh_line(rng) for _ in range(rng.randint(1, 4))]
    elif kind == 4:  # a block moved elsewhere
        size = rng.randint(3, 12)
        block = lines[at : at + size]
        del lines[at : at + size]
        where = rng.randrange(len(lines) + 1)
        lines[where:where] = block
    else:
        lines[at] = lines[at][: len(lines[at]) // 2] + "x" + lines[at][len(lines[at]) // 2 :]


def recorded(rng: random.Random, text: str) -> tuple[str, tuple[str | None, str]] | None:
    """A Write or an Edit of `text`: (the text after it, its hunk), or None when the piece
    picked does not stand once."""
    lines = text.split("\n")
    kind = rng.randrange(4)
    if kind == 0 or len(lines) < 3:
        for _ in range(rng.randint(0, 5)):
            by_hand(rng, lines)
        written = "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")
        return written, (None, written)
    at = rng.randrange(len(lines) - 1)
    if kind == 1:  # part of a line
        line = lines[at]
        if len(line.strip()) < 4:
            return None
        cut = rng.randrange(1, len(line))
        old = line[cut - 1 : cut + rng.randint(2, 8)] if rng.random() < 0.5 else line[:cut]
        new = old + rng.choice(["_v2", " + bias", "(x)", ""]) if old else "z"
    else:
        size = rng.randint(1, 8)
        old = "\n".join(lines[at : at + size])
        body = [f"{line}  # edit {rng.randrange(99)}" for line in lines[at : at + size]]
        if rng.random() < 0.4:
            body.insert(rng.randrange(len(body) + 1), fresh_line(rng))
        new = "\n".join(body) + ("\n" if kind == 3 else "")
    if not old.strip() or text.count(old) != 1:
        return None
    return text.replace(old, new), (old, new)


def history(seed: int) -> tuple[list[FileEvent], str]:
    """The events (newest first, as `file_history` gives them) and the file's text now."""
    rng = random.Random(seed)
    size = rng.choice([5, 20, 60, 150, 300, 600])
    common = rng.choice([0.1, 0.3, 0.9])  # how many lines repeat: few, some, most
    lines = [fresh_line(rng, common) for _ in range(size)]
    text = "\n".join(lines)
    events: list[FileEvent] = []
    for number in range(rng.randint(1, 14)):
        made = recorded(rng, text)
        if made is not None:
            text, hunk = made
            tool = "Write" if hunk[0] is None else "Edit"
            role = "edit" if rng.random() < 0.9 else "read"
            events.append(FileEvent(f"s{number}", "t", "/w", number, number, role, tool, "done",
                                    "/w/f.py", False, "", [hunk]))  # fmt: skip
        if rng.random() < 0.5:
            now = text.split("\n")
            for _ in range(rng.randint(1, 4)):
                by_hand(rng, now)
            text = "\n".join(now)
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return events[::-1], text
