"""A session's rows are made before the writer runs its SQL (index/insert_rows.py): whether the view
can make a record's text is decided in Python (`text.made_text`), and must be exactly what the
view's SQL (`text.derived_body`) gives, or the external-content FTS index would drift from it."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from deja.continue_store import Hunk, Record
from deja.index.insert_rows import hunks_json, record_row
from deja.index.searchable_text import derived_body, made_text

# Text that stresses the rule: newlines at the ends (rtrim), empty strings (nullif), JSON
# escapes, a NUL (SQLite's json_extract stops at an escaped one), non-BMP characters.
_pieces = st.sampled_from(["", "\n", "\n\n", "a", "x = 1\n", '"q"\\', "\t\x1b", "\0", "é😀", " "])
texts = st.lists(_pieces, max_size=4).map("".join) | st.text(max_size=12)
maybe = st.none() | texts
hunks = st.lists(st.builds(Hunk, maybe, texts), max_size=6).map(tuple)
ROLES = ["command", "tool", "read", "edit", "user", "assistant"]


def sql_text(db: sqlite3.Connection, record: Record) -> str | None:
    values = {
        "role": record.role,
        "tool": record.tool,
        "args": record.args,
        "output": record.output,
        "path": record.path,
        "hunks": hunks_json(record),
    }
    value = db.execute(f"SELECT {derived_body(':', packed=False)}", values).fetchone()[0]
    assert value is None or isinstance(value, str)
    return value


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(ROLES), maybe, maybe, maybe, maybe, hunks)
def test_made_text_is_what_the_view_makes(
    role: str,
    tool: str | None,
    args: str | None,
    output: str | None,
    path: str | None,
    edit: tuple[Hunk, ...],
) -> None:
    same_as_the_view(role, tool, args, output, path, edit)


@settings(max_examples=400, deadline=None)
@given(texts, texts, texts, hunks)
def test_an_edits_made_text_is_what_the_view_makes(
    tool: str, output: str, path: str, edit: tuple[Hunk, ...]
) -> None:
    same_as_the_view("edit", tool, None, output, path, edit)


def same_as_the_view(
    role: str,
    tool: str | None,
    args: str | None,
    output: str | None,
    path: str | None,
    edit: tuple[Hunk, ...],
) -> None:
    record = Record(0, role, "", 0.0, tool=tool, path=path, output=output, args=args, hunks=edit)  # type: ignore[arg-type]
    db = sqlite3.connect(":memory:")
    try:
        expected = sql_text(db, record)
    finally:
        db.close()
    made = made_text(role, tool, args, output, path, edit)
    sides = [side for hunk in edit for side in (hunk.replaced, hunk.written) if side]
    if role == "edit" and any("\0" in side for side in sides):
        assert made is None  # SQLite cut a side at the NUL: the record keeps its own text
    else:
        assert made == expected


def test_a_row_keeps_its_text_only_where_the_view_cannot_make_it() -> None:
    command = Record(2, "command", "make\nok", 1.0, args="make", output="ok", exit_code=0)
    clipped = Record(3, "command", "make\n[… cut …]", 1.0, args="make", output="ok")
    edit = Record(
        4,
        "edit",
        "Edit a.py\nparseConfig\nx = 2\nok",
        1.0,
        tool="Edit",
        path="a.py",
        output="ok",
        hunks=(Hunk("parseConfig", "x = 2"),),
    )
    message = Record(5, "user", "fix parseConfig", 1.0)
    assert record_row(command) == (
        2,
        "command",
        None,
        None,
        None,
        0,
        "ok",
        "make",
        None,
        None,
        "",
        "make\nok",
    )
    assert record_row(clipped)[9] == "make\n[… cut …]"
    row = record_row(edit)
    assert row[8] == '[["parseConfig","x = 2"]]' and row[9] is None
    assert row[10] == "parse Config" and row[11] == edit.text
    assert record_row(message)[9:] == ("fix parseConfig", "parse Config", "fix parseConfig")
