"""Per-line provenance (`deja.query.provenance`), pure: no index, no server."""

from __future__ import annotations

import pytest

from deja.query.blame import FileEvent
from deja.query.provenance import LineError, check_line, prepare
from deja.query.provenance_match import provenance
from deja.query.provenance_update import updated

WRITTEN = [f"def step_{n}(value):\n    return value * {n} + offset_{n}\n\n" for n in range(40)]
FILE = "".join(WRITTEN)


def event(session: str, time: float, hunks: list[tuple[str | None, str]]) -> FileEvent:
    tool = "Write" if hunks and hunks[0][0] is None else "Edit"
    return FileEvent(session, f"title {session}", "/w", 1, time, "edit", tool, "done", "/w/f.py",
                     False, "", hunks)  # fmt: skip


def owner(events: list[FileEvent], document: str, line: int) -> tuple[str, bool] | None:
    found = provenance(events, document).owner(line)
    return None if found is None else (events[found.event].session_id, found.changed)


def test_a_write_keeps_its_lines_through_a_human_change_anywhere() -> None:
    events = [event("write", 1, [(None, FILE)])]
    lines = FILE.split("\n")
    lines[49] = "    return value * 16 + offset_16  # tuned by hand"
    document = "\n".join(lines)
    mapping = provenance(events, document)
    assert mapping.owner(49) == (0, 0, 49, True), "changed since, not lost"
    unchanged = [n for n in range(len(lines) - 2) if n != 49]  # the last line is blank
    assert all(mapping.owner(n) == (0, 0, n, False) for n in unchanged)
    (write,) = mapping.at_line(2)
    assert write.session_id == "write"


def test_newer_claims_win_and_older_ones_are_kept_below() -> None:
    old = "def step_3(value):\n    return value * 3 + offset_3"
    new = "def step_3(value):\n    return value * 3 + offset_3 + bias"
    edited = FILE.replace(old, new)
    events = [event("edit", 2, [(old, new)]), event("write", 1, [(None, FILE)])]
    line = edited.split("\n").index("    return value * 3 + offset_3 + bias")
    assert owner(events, edited, line) == ("edit", False)
    assert owner(events, edited, line - 2) == ("write", False)
    mapping = provenance(events, edited)
    # Both wrote the `def` line as it is; the Write's older text of the next line is not asked
    # about (a newer exact claim owns it whatever the older one says).
    assert [e.session_id for e in mapping.at_line(line - 1)] == ["edit", "write"]
    assert [e.session_id for e in mapping.at_line(line)] == ["edit"]


def test_an_edit_of_part_of_a_line_claims_the_line_it_stands_in() -> None:
    events = [event("edit", 2, [("offset_7", "offset_7 * scale")]), event("w", 1, [(None, FILE)])]
    edited = FILE.replace("offset_7\n", "offset_7 * scale\n")
    line = next(n for n, text in enumerate(edited.split("\n")) if "offset_7 * scale" in text)
    mapping = provenance(events, edited)
    assert owner(events, edited, line) == ("edit", False)
    span = mapping.event_ranges(0)[0]
    assert span is not None and (span.start_line, span.end_line) == (line, line)
    assert span.start_char == edited.split("\n")[line].index("offset_7 * scale")


def test_trivial_lines_are_claimed_only_inside_a_matched_run() -> None:
    events = [event("write", 1, [(None, "}\n\n)\n")])]
    assert provenance(events, "x = 1\n}\n\n)\n").stacks == [(), (), (), ()]
    framed = [event("write", 1, [(None, "def f():\n    pass\n}\n")])]
    assert owner(framed, "import os\ndef f():\n    pass\n}\n", 3) == ("write", False)
    assert owner(framed, "import os\n}\n", 1) is None


def test_a_moved_block_keeps_its_author() -> None:
    events = [event("write", 1, [(None, FILE)])]
    lines = FILE.split("\n")
    block = lines[60:72]
    moved = block + lines[:60] + lines[72:]
    mapping = provenance(events, "\n".join(moved))
    assert all(mapping.owner(n) == (0, 0, 60 + n, False) for n in range(12))
    assert mapping.owner(12) == (0, 0, 0, False)


def test_text_nowhere_in_the_document_claims_nothing() -> None:
    events = [event("write", 1, [(None, "## Unreleased\n- parse_config closes its file\n")])]
    mapping = provenance(events, "# Changelog\n\nNothing yet.\n")
    assert mapping.event_ranges(0) == [None] and mapping.at_line(0) == []


def test_reads_and_empty_writes_claim_nothing() -> None:
    read = FileEvent("r", "t", "/w", 1, 1, "read", "Read", "done", "/w/f.py", False, "", [])
    assert prepare([read, event("e", 2, [("x", "")])]) == []


def test_a_new_version_rechecks_only_what_changed() -> None:
    events = [event("edit", 2, [("offset_9", "offset_9 * scale")]), event("w", 1, [(None, FILE)])]
    document = FILE.replace("offset_9\n", "offset_9 * scale\n")
    before = provenance(events, document)
    typed = document.replace("value * 20 +", "value * 21 +")
    after = updated(before, typed)
    assert after.stacks == provenance(events, typed).stacks
    assert after.owner(typed.split("\n").index("    return value * 21 + offset_20")) == (
        1, 0, 61, True)  # fmt: skip
    inserted = updated(before, "# a new first line\n" + document)
    assert inserted.owner(0) is None and inserted.owner(1) == before.owner(0)
    assert inserted.event_ranges(0)[0].start_line == before.event_ranges(0)[0].start_line + 1  # type: ignore[union-attr]
    retyped = updated(after, document)
    assert retyped.stacks == before.stacks, "typing the line back makes it exact again"
    whole = updated(before, "")
    assert whole.stacks == []


@pytest.mark.parametrize("line", [0, -1, 121])
def test_a_line_outside_the_file_is_a_clear_error(line: int) -> None:
    with pytest.raises(LineError, match=f"line {line} is not in f.py: it has 120 lines"):
        check_line(FILE, line, "f.py")


def test_lines_count_from_one() -> None:
    assert check_line(FILE, 1, "f.py") == 0 and check_line(FILE, 120, "f.py") == 119
    with pytest.raises(LineError, match="it is empty"):
        check_line("", 1, "empty.py")
