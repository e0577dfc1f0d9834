"""Forks made by the real `cn` 1.5.47 (`cn -p --fork ID`, issue 13): the parent wrote notes.txt,
the fork copied that history and wrote its own file. Deja, indexing after each `cn` run, gives the
copied turns to the parent (blame, search, show) and keeps that when `cn` then compacts the
parent; a fork of the compacted parent begins at its summary; a fork of the fork is the fork's;
a cold index that never saw the parent's old turns leaves the first fork its copy (nothing to
attribute it to)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deja.query import History, SearchQuery
from tests.support.cn_run import CnDirs
from tests.support.cn_store import CnStore
from tests.support.fake_model import (
    FakeModel,
    Reply,
    ToolCall,
    is_compaction_request,
    text_reply,
    tool_reply,
)

pytestmark = pytest.mark.real_cn

LISTING = "seq -f 'listing line %g of the long output' 1 340"
SUMMARY = "Summary: notes.txt was written and a long listing printed."


def write(path: str, content: str, call_id: str) -> Reply:
    return tool_reply(ToolCall("Write", {"filepath": path, "content": content}, id=call_id))


@pytest.fixture
def store(cn_exe: Path, tmp_path: Path) -> Iterator[CnStore]:
    def summarise(body: dict[str, Any]) -> Reply | None:
        return text_reply(SUMMARY) if is_compaction_request(body) else None

    with FakeModel(on_request=summarise) as fake:
        yield CnStore(cn_exe, CnDirs.make(tmp_path), fake)


def writers(history: History, path: str, cwd: Path) -> set[str]:
    return {e.session_id for e in history.file_history(path, cwd=str(cwd)) if e.role == "edit"}


def hits(history: History, text: str) -> list[str]:
    found = history.search(SearchQuery(text, limit=50)).hits
    return [hit.session_id for hit in found]


def test_cn_forks_are_attributed_to_their_parent(store: CnStore, tmp_path: Path) -> None:
    parent = store.run(
        "Write the notes file and print a long listing.",
        (
            write("notes.txt", "first line\nsecond line\n", "call_notes"),
            tool_reply(ToolCall("Bash", {"command": LISTING}, id="call_listing")),
            text_reply("Wrote notes.txt and printed the listing."),
        ),
    )
    history = History(home=tmp_path / "deja", root=store.dirs.root)
    history.refresh()
    fork = store.run(
        "Now add a todo file.",
        (write("todo.txt", "buy milk\n", "call_todo"), text_reply("Added todo.txt.")),
        "--fork",
        parent,
    )
    assert fork != parent and len(store.files()) == 2
    history.refresh()
    forked = history.show(fork).session
    parent_turns = len({r.turn for r in history.show(parent).records})
    assert (forked.forked_from, forked.fork_turn) == (parent, parent_turns)
    # cn titled the fork "Untitled Session": its title is its own first request, not the copy's.
    assert (forked.title, forked.first_user) == ("Now add a todo file.",) * 2
    assert writers(history, "notes.txt", store.dirs.work) == {parent}
    assert writers(history, "todo.txt", store.dirs.work) == {fork}
    assert hits(history, "printed the listing") == [parent]
    assert min(r.turn for r in history.show(fork).records) == parent_turns

    # cn compacts the parent after the fork: `--resume` takes the newest file, so make it so.
    later = time.time() + 5
    os.utime(store.dirs.root / "sessions" / f"{parent}.json", (later, later))
    resumed = store.run(
        "Carry on, please.",
        (text_reply("Continuing from the summary."), text_reply("Nothing else to do.")),
        "--resume",
        context_length=5100,
        max_tokens=100,
    )
    assert resumed == parent
    history.refresh()
    assert history.show(parent).session.kept_turns == parent_turns
    assert (history.show(fork).session.forked_from, history.show(fork).session.fork_turn) == (
        parent,
        parent_turns,
    )
    assert writers(history, "notes.txt", store.dirs.work) == {parent}
    assert hits(history, "printed the listing") == [parent]

    # A fork of the compacted parent: its copy starts at the parent's summary.
    second = store.run(
        "One more file.",
        (write("more.txt", "more\n", "call_more"), text_reply("Added more.txt.")),
        "--fork",
        parent,
    )
    history.refresh()
    child = history.show(second).session
    assert child.forked_from == parent and child.fork_turn is not None and child.fork_turn > 1
    assert hits(history, "Continuing from the summary") == [parent]
    assert writers(history, "more.txt", store.dirs.work) == {second}

    # A fork of the fork: the fork's own turns are the fork's, the parent's the parent's.
    third = store.run(
        "And a third file.",
        (write("third.txt", "three\n", "call_third"), text_reply("Added third.txt.")),
        "--fork",
        fork,
    )
    history.refresh()
    grandchild = history.show(third).session
    assert (grandchild.forked_from, grandchild.fork_turn) == (fork, forked.fork_turn + 3)
    assert writers(history, "notes.txt", store.dirs.work) == {parent}
    assert writers(history, "todo.txt", store.dirs.work) == {fork}
    assert writers(history, "third.txt", store.dirs.work) == {third}
    assert hits(history, "Added todo.txt") == [fork]
    history.close()

    # Cold: Deja never saw the parent's turns from before its compaction.
    cold = History(home=tmp_path / "deja-cold", root=store.dirs.root)
    cold.refresh()
    assert cold.show(fork).session.forked_from is None
    assert writers(cold, "notes.txt", store.dirs.work) == {fork}
    assert cold.show(third).session.forked_from == fork
    assert writers(cold, "todo.txt", store.dirs.work) == {fork}
    assert cold.show(second).session.forked_from == parent
    assert hits(cold, "Continuing from the summary") == [parent]
    cold.close()
