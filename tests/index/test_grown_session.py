"""A session whose file grew (Continue appends a turn and rewrites the file) keeps the rows of
the turns it already had, ids and all: only the turns that differ from the index's are written
again. What the index then holds is what reading the file afresh gives."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from deja.query import History, SearchQuery
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

PAST = time.time() - 3600
# What a record holds, but its id and time (a fresh index dates turns by another rule).
CONTENT = (
    "SELECT turn, role, tool, status, path, exit_code, output, args, hunks, body, parts"
    " FROM records WHERE session_id = ? ORDER BY turn, id"
)


def rows(home: Path, session_id: str, query: str = CONTENT) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(home / "index.sqlite3")
    try:
        return db.execute(query, (session_id,)).fetchall()
    finally:
        db.close()


def ids_by_turn(home: Path, session_id: str) -> list[tuple[int, int]]:
    query = "SELECT turn, id FROM records WHERE session_id = ? ORDER BY turn, id"
    return [(int(turn), int(rid)) for turn, rid in rows(home, session_id, query)]


def items(home: Path, session_id: str) -> list[tuple[Any, ...]]:
    query = "SELECT turn, fingerprint, role, is_summary, compacted FROM items WHERE session_id = ?"
    return sorted(rows(home, session_id, query))


def fresh_read(tmp_path: Path, store: Path) -> Path:
    """The store indexed from nothing, in a home of its own."""
    home = tmp_path / "fresh-home"
    fresh = History(home=home, root=store, exclude_path=tmp_path / "exclude")
    fresh.refresh()
    fresh.close()
    return home


def test_a_grown_session_keeps_its_earlier_rows(
    tmp_path: Path, store: Path, history: History
) -> None:
    turns = [user("tune the kestrel cache"), assistant("raised the kestrel limit")]
    write_session(store, session_doc("s", turns), mtime=PAST)
    # Read after "s" (the newest first): the highest ids are its, so ids written again differ.
    write_session(store, session_doc("t", [user("an older session")]), mtime=PAST - 60)
    history.refresh()
    home = tmp_path / "deja-home"
    before = ids_by_turn(home, "s")
    assert before[-1][1] < ids_by_turn(home, "t")[0][1]
    turns += [
        user("now the heron queue"),
        assistant("", [call("Bash", {"command": "make heron"}, "heron built")]),
    ]
    write_session(store, session_doc("s", turns), mtime=PAST + 60)
    report = history.refresh(only={"s"})
    assert report.changed == 1
    after = ids_by_turn(home, "s")
    assert after[: len(before)] == before  # the same rows, not deleted and written again
    assert [turn for turn, _ in after[len(before) :]] == [2, 3]
    assert history.search(SearchQuery("heron")).total == 2
    assert history.search(SearchQuery("kestrel")).total == 2
    fresh = fresh_read(tmp_path, store)
    assert rows(home, "s") == rows(fresh, "s")
    assert items(home, "s") == items(fresh, "s")


def test_a_rewritten_turn_is_written_again_from_there(
    tmp_path: Path, store: Path, history: History
) -> None:
    turns = [user("tune the kestrel cache"), assistant("raised it"), user("and the heron")]
    write_session(store, session_doc("s", turns), mtime=PAST)
    history.refresh()
    home = tmp_path / "deja-home"
    before = ids_by_turn(home, "s")
    turns[1] = assistant("lowered the kestrel limit instead")  # Continue rewrote turn 1
    write_session(store, session_doc("s", turns), mtime=PAST + 60)
    history.refresh()
    after = ids_by_turn(home, "s")
    assert after[0] == before[0]  # turn 0 kept
    assert [turn for turn, _ in after] == [0, 1, 2]
    assert history.search(SearchQuery("raised")).total == 0
    fresh = fresh_read(tmp_path, store)
    assert rows(home, "s") == rows(fresh, "s")
    assert items(home, "s") == items(fresh, "s")


def test_an_output_a_later_item_gives_reaches_the_earlier_call(
    tmp_path: Path, store: Path, history: History
) -> None:
    """The IDE may write a call's output only in a later `role: tool` item: the call's turn has
    the same fingerprint before and after (a read's output is not part of its text), so it is
    read again with what follows it."""
    read = call("read_file", {"filepath": "/w/proj/notes.md"}, None, call_id="r1")
    turns = [user("what do the notes say"), assistant("", [read])]
    write_session(store, session_doc("s", turns), mtime=PAST)
    history.refresh()
    home = tmp_path / "deja-home"
    assert history.search(SearchQuery("ptarmigan")).total == 0
    turns.append(
        {
            "message": {"role": "tool", "content": "ptarmigan migration plan", "toolCallId": "r1"},
            "contextItems": [],
        }
    )
    write_session(store, session_doc("s", turns), mtime=PAST + 60)
    history.refresh(only={"s"})
    fresh = fresh_read(tmp_path, store)
    assert rows(home, "s") == rows(fresh, "s")
    outputs = [row[6] for row in rows(home, "s") if row[1] == "read"]
    assert outputs and outputs == [row[6] for row in rows(fresh, "s") if row[1] == "read"]
    assert outputs[0] is not None


def tool_item(call_id: str, content: str) -> dict[str, Any]:
    return {
        "message": {"role": "tool", "content": content, "toolCallId": call_id},
        "contextItems": [],
    }


def test_a_call_whose_output_item_is_held_is_kept_until_another_item_of_its_id(
    tmp_path: Path, store: Path, history: History
) -> None:
    read = call("read_file", {"filepath": "/w/proj/notes.md"}, None, call_id="r1")
    turns = [user("what do the notes say"), assistant("", [read]), tool_item("r1", "heron plan")]
    write_session(store, session_doc("s", turns), mtime=PAST)
    write_session(store, session_doc("t", [user("an older session")]), mtime=PAST - 60)
    history.refresh()
    home = tmp_path / "deja-home"
    before = ids_by_turn(home, "s")
    turns.append(user("thanks"))
    write_session(store, session_doc("s", turns), mtime=PAST + 60)
    history.refresh(only={"s"})
    assert ids_by_turn(home, "s")[: len(before)] == before  # its output's item is held too
    turns.append(tool_item("r1", "ptarmigan plan"))  # the last item of an id is its output
    write_session(store, session_doc("s", turns), mtime=PAST + 120)
    history.refresh(only={"s"})
    fresh = fresh_read(tmp_path, store)
    assert rows(home, "s") == rows(fresh, "s")
    assert [row[6] for row in rows(home, "s") if row[1] == "read"] != [None]
