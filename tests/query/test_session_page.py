"""The session view's pages (`History.session_page`, `deja/sessionView`): turns in order a page
at a time, the page holding a turn, a fork's inherited turns marked, compacted turns kept and
marked, long texts cut with their full length said. No server: the core and the plain handler."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from deja.lsp.errors import RequestError
from deja.lsp.params import Params
from deja.lsp.session_view import session_view_result
from deja.query import History, UnknownSession
from deja.query.session_page import DIFF_LINES, OUTPUT_CHARS, TEXT_CHARS
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

WS = "/w/proj"
LONG = "a0000000-0000-4000-8000-000000000001"
PARENT = "b0000000-0000-4000-8000-000000000002"
FORK = "c0000000-0000-4000-8000-000000000003"
T0 = time.time() - 3600


@pytest.fixture
def history(tmp_path: Path) -> Any:
    store = tmp_path / "continue"
    (store / "sessions").mkdir(parents=True)
    opened = History(home=tmp_path / "home", root=store)
    yield opened
    opened.close()


def put(history: History, session_id: str, items: list[Any], start: str, minutes: int) -> None:
    doc = session_doc(session_id, items, title=f"title {session_id[:2]}", workspace=WS)
    write_session(history.root, doc, date_created=start, mtime=T0 + minutes * 60)
    history.refresh()


def exchanges(count: int) -> list[Any]:
    items: list[Any] = []
    for n in range(count):
        items += [user(f"question {n}"), assistant(f"answer {n}")]
    return items


def test_pages_follow_each_other_in_turn_order(history: History) -> None:
    put(history, LONG, exchanges(25), "1750262400000", 1)
    first = history.session_page(LONG, offset=None, limit=20, at_turn=None)
    assert (first.offset, first.total_turns) == (0, 50)
    assert [t.turn for t in first.turns] == list(range(20))
    assert first.turns[0].records[0].record.text == "question 0"
    second = history.session_page(LONG, offset=20, limit=20, at_turn=None)
    assert [t.turn for t in second.turns] == list(range(20, 40))
    last = history.session_page(LONG, offset=40, limit=20, at_turn=None)
    assert [t.turn for t in last.turns] == list(range(40, 50))
    assert history.session_page(LONG, offset=50, limit=20, at_turn=None).turns == []


def test_opening_at_a_turn_gives_the_page_holding_it(history: History) -> None:
    put(history, LONG, exchanges(25), "1750262400000", 1)
    page = history.session_page(LONG, offset=None, limit=20, at_turn=33)
    assert 33 in [t.turn for t in page.turns]
    assert page.turns[0].turn < 33, "a few turns before it, not the turn first"
    assert page.offset == page.turns[0].turn
    with pytest.raises(UnknownSession, match="no turn 99"):
        history.session_page(LONG, offset=None, limit=20, at_turn=99)


def test_long_texts_are_cut_and_say_their_full_length(history: History) -> None:
    huge = "x" * (TEXT_CHARS + 5)
    output = "line\n" * (OUTPUT_CHARS // 2)  # past the cap, under the reader's own
    written = "".join(f"row {n}\n" for n in range(DIFF_LINES + 50))
    states = [
        call("Bash", {"command": "make <script>"}, output, call_id="c1"),
        call(
            "Edit",
            {"file_path": "f.py", "old_string": "a\nb\n", "new_string": written},
            "ok",
            call_id="c2",
        ),
    ]
    put(history, LONG, [user(huge), assistant("", states)], "1750262400000", 1)
    turns = history.session_page(LONG, offset=None, limit=20, at_turn=None).turns
    message = turns[0].records[0]
    assert (len(message.record.text), message.text_chars) == (TEXT_CHARS, TEXT_CHARS + 5)
    command, edit = (r for r in turns[1].records if r.record.role in ("command", "edit"))
    assert command.record.args is not None and "<script>" in command.record.args
    assert command.output_chars == len(output) and len(command.record.output or "") == OUTPUT_CHARS
    assert (edit.added, edit.removed) == (DIFF_LINES + 50, 2)
    assert edit.diff_lines == DIFF_LINES + 52
    shown = sum(len((r or "").splitlines()) + len(w.splitlines()) for r, w in edit.record.hunks)
    assert shown == DIFF_LINES


def test_a_forks_copied_turns_are_marked_inherited(history: History) -> None:
    parent = [user("make the parser"), assistant("made it"), user("test it"), assistant("ok")]
    put(history, PARENT, parent, "1750262400000", 1)
    put(history, FORK, [*parent, user("now the lexer"), assistant("done")], "1750266000000", 2)
    page = history.session_page(FORK, offset=None, limit=20, at_turn=None)
    assert page.session.forked_from == PARENT and page.session.forked_from_title == "title b0"
    assert [(t.turn, t.inherited) for t in page.turns] == [
        (0, True),
        (1, True),
        (2, True),
        (3, True),
        (4, False),
        (5, False),
    ]
    assert not any(
        t.inherited for t in history.session_page(PARENT, offset=0, limit=9, at_turn=None).turns
    )


def test_compacted_turns_are_kept_and_marked(history: History) -> None:
    put(history, LONG, exchanges(3), "1750262400000", 1)
    summary = "We asked three questions."
    put(
        history,
        LONG,
        [assistant(summary, conversationSummary=summary), user("more")],
        "1750262400000",
        5,
    )
    turns = history.session_page(LONG, offset=None, limit=40, at_turn=None).turns
    assert [t.compacted for t in turns][:6] == [True] * 6
    assert not turns[-1].compacted
    assert turns[-1].records[-1].record.text == "more"


def test_the_handler_sends_the_wire_shape_and_checks_its_params(history: History) -> None:
    put(history, LONG, exchanges(3), "1750262400000", 1)
    result = session_view_result(
        history, Params("deja/sessionView", {"sessionId": LONG, "limit": 2})
    )
    assert (result["offset"], result["total_turns"], result["at_turn"]) == (0, 6, None)
    assert [t["turn"] for t in result["turns"]] == [0, 1]
    assert result["turns"][0]["records"][0]["text_chars"] == len("question 0")
    assert result["session"]["id"] == LONG
    with pytest.raises(RequestError, match="limit"):
        session_view_result(history, Params("deja/sessionView", {"sessionId": LONG, "limit": 0}))
    with pytest.raises(RequestError, match="sessionId"):
        session_view_result(history, Params("deja/sessionView", {}))
