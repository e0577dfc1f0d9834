"""Forks (issue 13): a session whose history begins with another indexed session's history is a
fork; its copy of the parent's turns is attributed to the parent everywhere (blame, search, show,
restore), its own turns to itself. Stores built with the shared builder, every case of the issue:
either file first, cold and incremental, parent compacted or deleted since, fork of a fork,
parent never seen."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from deja.query import History, SearchQuery, SessionSummary, fork_line
from deja.query.digest import build_digest
from deja.query.sessions import InheritedTurn
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

WS = "/w/proj"
PARENT = "aaaaaaaa-0000-4000-8000-000000000001"
FORK = "bbbbbbbb-0000-4000-8000-000000000002"
GRANDCHILD = "cccccccc-0000-4000-8000-000000000003"
# sessions.json's dateCreated (ms): a fork starts after its parent
STARTS = {PARENT: "1750262400000", FORK: "1750266000000", GRANDCHILD: "1750269600000"}
T0 = time.time() - 3600


def write_call(path: str, content: str, call_id: str) -> dict[str, Any]:
    return call("Write", {"filepath": path, "content": content}, "Wrote the file", "done", call_id)


PARENT_HISTORY = [
    user("create the parser module"),
    assistant("", [write_call("parser.py", "def parse():\n    return 1\n", "w1")]),
    assistant("Created parser.py with a zebra tokenizer."),
]
FORK_OWN = [
    user("now add the lexer"),
    assistant("", [write_call("lexer.py", "def lex():\n    return 2\n", "w2")]),
    assistant("Added lexer.py."),
]
GRANDCHILD_OWN = [
    user("and a printer"),
    assistant("", [write_call("printer.py", "def show():\n    return 3\n", "w3")]),
    assistant("Added printer.py."),
]


def put(store: Path, session_id: str, history: list[Any], *, minutes: int = 0) -> None:
    write_session(
        store,
        session_doc(session_id, history, title=f"title {session_id[:4]}", workspace=WS),
        date_created=STARTS[session_id],
        mtime=T0 + minutes * 60,
    )


def writers(history: History, name: str) -> list[tuple[str, int]]:
    return [(e.session_id, e.turn) for e in history.file_history(name, cwd=WS) if e.role == "edit"]


def hit_sessions(history: History, text: str) -> list[tuple[str, int]]:
    hits = history.search(SearchQuery(text, limit=50)).hits
    return sorted((hit.session_id, hit.turn) for hit in hits)


def assert_fork_of_parent(history: History) -> None:
    fork = history.show(FORK).session
    assert (fork.forked_from, fork.fork_turn) == (PARENT, 3)
    assert fork.first_user == "now add the lexer"  # its own first request
    assert history.show(PARENT).session.forked_from is None
    assert writers(history, "parser.py") == [(PARENT, 1)]
    assert writers(history, "lexer.py") == [(FORK, 4)]
    assert hit_sessions(history, "zebra") == [(PARENT, 2)]
    assert {r.turn for r in history.show(FORK).records} == {3, 4, 5}


def test_parent_first_then_fork_incrementally(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    history.refresh()
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    report = history.refresh()
    assert FORK in report.changed_ids
    assert_fork_of_parent(history)


def test_fork_first_then_parent_incrementally(history: History, store: Path) -> None:
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    # Alone, every turn is the fork's.
    assert writers(history, "parser.py") == [(FORK, 1)]
    assert history.show(FORK).session.forked_from is None
    put(store, PARENT, PARENT_HISTORY)
    report = history.refresh()
    assert set(report.changed_ids) == {PARENT, FORK}  # the fork's attribution changed too
    assert_fork_of_parent(history)


def test_cold_index_either_order(history: History, store: Path) -> None:
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    put(store, PARENT, PARENT_HISTORY)
    history.refresh()
    assert_fork_of_parent(history)


def test_parent_that_goes_on_after_the_fork(history: History, store: Path) -> None:
    put(store, PARENT, [*PARENT_HISTORY, user("parent keeps going"), assistant("ok")], minutes=9)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    assert_fork_of_parent(history)


def test_parent_compacted_after_the_fork(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    summary = "Summary: parser.py was created."
    put(store, PARENT, [assistant(summary, conversationSummary=summary), user("next")], minutes=9)
    history.refresh()
    assert history.show(PARENT).session.kept_turns == 3
    assert_fork_of_parent(history)


def test_parent_deleted_after_the_fork(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    (store / "sessions" / f"{PARENT}.json").unlink()
    history.refresh()
    assert history.show(PARENT).session.deleted
    assert_fork_of_parent(history)


def test_fork_of_a_compacted_parent_starts_at_its_summary(history: History, store: Path) -> None:
    summary = "Summary: parser.py was created."
    compacted = [assistant(summary, conversationSummary=summary), user("next"), assistant("ok")]
    put(store, PARENT, PARENT_HISTORY)
    history.refresh()
    put(store, PARENT, compacted)
    history.refresh()
    put(store, FORK, compacted + FORK_OWN, minutes=5)
    history.refresh()
    fork = history.show(FORK).session
    assert (fork.forked_from, fork.fork_turn) == (PARENT, 3)
    assert writers(history, "parser.py") == [(PARENT, 1)]
    assert writers(history, "lexer.py") == [(FORK, 4)]
    assert hit_sessions(history, "created") == [(PARENT, 2), (PARENT, 3)]


def test_fork_of_a_fork(history: History, store: Path) -> None:
    put(store, GRANDCHILD, PARENT_HISTORY + FORK_OWN + GRANDCHILD_OWN, minutes=9)
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    grandchild = history.show(GRANDCHILD).session
    assert (grandchild.forked_from, grandchild.fork_turn) == (FORK, 6)
    assert writers(history, "parser.py") == [(PARENT, 1)]
    assert writers(history, "lexer.py") == [(FORK, 4)]
    assert writers(history, "printer.py") == [(GRANDCHILD, 7)]
    assert hit_sessions(history, "added") == [(FORK, 5), (GRANDCHILD, 8)]


def test_showing_an_inherited_turn_points_to_the_parent(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    with pytest.raises(InheritedTurn) as raised:
        history.show(FORK, turn=1)
    assert str(raised.value).endswith(f"deja show {PARENT[:8]} --turn 1")
    assert [r.turn for r in history.show(FORK, turn=4).records] == [4]


def test_a_fork_titled_from_its_copy_is_titled_from_its_own_request(
    history: History, store: Path
) -> None:
    """cn resets a fork's title to "Untitled Session": Deja's title from the first request is
    then the fork's own, not its parent's opening (which is the parent's)."""
    put(store, PARENT, PARENT_HISTORY)
    untitled = session_doc(FORK, PARENT_HISTORY + FORK_OWN, title="Untitled Session", workspace=WS)
    write_session(store, untitled, date_created=STARTS[FORK], mtime=T0 + 300)
    history.refresh()
    assert history.show(FORK).session.title == "now add the lexer"
    path = store / "sessions" / f"{FORK}.json"
    path.write_text(path.read_text().replace("Added lexer.py.", "Added lexer.py, tested."))
    history.refresh()  # re-read: the reader titles it from the opening again, the link fixes it
    assert history.show(FORK).session.title == "now add the lexer"
    os.utime(path, (T0 + 900, T0 + 900))  # touched, not changed: the quiet path, title kept
    assert FORK not in history.refresh().changed_ids
    assert history.show(FORK).session.title == "now add the lexer"
    history.forget_session(PARENT)
    assert history.show(FORK).session.title == "create the parser module"


def test_parent_never_seen_inherits_nothing(history: History, store: Path) -> None:
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    assert history.show(FORK).session.forked_from is None
    assert writers(history, "parser.py") == [(FORK, 1)]
    assert hit_sessions(history, "zebra") == [(FORK, 2)]


def test_one_shared_opening_message_is_no_fork(history: History, store: Path) -> None:
    put(store, PARENT, [user("hi"), assistant("parent answer")])
    put(store, FORK, [user("hi"), assistant("another answer")], minutes=5)
    history.refresh()
    assert history.show(FORK).session.forked_from is None
    assert hit_sessions(history, "hi") == [(PARENT, 0), (FORK, 0)]


def test_forgetting_the_parent_gives_the_fork_its_turns(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    history.forget_session(PARENT)
    fork = history.show(FORK).session
    assert (fork.forked_from, fork.first_user) == (None, "create the parser module")
    assert writers(history, "parser.py") == [(FORK, 1)]


def test_restore_shows_inherited_turns_once_under_the_parent(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    put(store, GRANDCHILD, [user("unrelated current work"), assistant("ok")], minutes=20)
    history.refresh()
    # Alone, the fork carries its real history: the parent's turns, once, stamped as the
    # parent's (its id and turn numbers, which `deja show` reads), then its own.
    text = history.restore(session=FORK).text
    assert text.count('User: "create the parser module"') == 1, text
    assert f"[Session:{PARENT[:8]} " in text and '#0] User: "create the parser module"' in text
    assert f"--- inherited: turns #0-#2 of {PARENT[:8]}" in text
    assert text.index("create the parser module") < text.index("now add the lexer")
    assert f"[Session:{FORK[:8]} " in text and '#3] User: "now add the lexer"' in text
    assert f"forked from title aaaa ({PARENT[:8]}) at turn 3" in text
    # With its parent: once, under the parent.
    both = history.restore("1-2", cwd=WS).text
    assert both.count('User: "create the parser module"') == 1, both
    assert "restored above under that session" in both


def test_fork_line_words() -> None:
    summary = SessionSummary(
        FORK, "t", WS, "proj", 0.0, 0.0, "", "", 0, 0, False, 0, False,
        forked_from=PARENT, forked_from_title="Make  the\nparser", fork_turn=3,
    )  # fmt: skip
    assert fork_line(summary) == f"forked from Make the parser ({PARENT[:8]}) at turn 3"


def test_cli_sessions_show_and_json_say_forked_from(tmp_path: Path, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    env = deja_env(store, tmp_path / "home")
    line = f"forked from title aaaa ({PARENT[:8]}) at turn 3"
    listed = run_deja(env, "sessions", "--all")
    assert listed.returncode == 0, listed.stderr
    assert line in listed.stdout
    shown = run_deja(env, "show", FORK)
    assert line in shown.stdout and "create the parser module" not in shown.stdout
    inherited = run_deja(env, "show", FORK, "--turn", "0")
    assert inherited.returncode == 1 and "Traceback" not in inherited.stderr
    assert inherited.stderr.strip().endswith(f"deja show {PARENT[:8]} --turn 0")
    data = json_envelope(run_deja(env, "sessions", "--all", "--json"), "sessions")
    by_id = {s["id"]: s for s in data["sessions"]}
    assert (by_id[FORK]["forked_from"], by_id[FORK]["fork_turn"]) == (PARENT, 3)
    assert by_id[PARENT]["forked_from"] is None and by_id[PARENT]["fork_turn"] is None
    blame = json_envelope(run_deja(env, "blame", "parser.py", "--json"), "blame")
    assert {event["session_id"] for event in blame["events"]} == {PARENT}


def test_an_index_made_before_forks_links_them_on_its_next_pass(
    history: History, store: Path
) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    with history._index.transaction() as db:  # as an index from before this rule was
        db.execute("DELETE FROM forks")
        db.execute("DELETE FROM meta WHERE key = 'forks'")
    assert history.show(FORK).session.forked_from is None
    report = history.refresh()  # no file changed
    assert report.read == 0 and FORK in report.changed_ids
    assert_fork_of_parent(history)


def test_a_long_copy_is_followed_to_its_end(history: History, store: Path) -> None:
    long_history = [item for n in range(700) for item in (user(f"step {n}"), assistant(f"ok {n}"))]
    put(store, PARENT, long_history)
    put(store, FORK, long_history + FORK_OWN, minutes=5)
    history.refresh()
    assert history.show(FORK).session.fork_turn == 1400


def test_a_forks_handoff_carries_the_parents_turns_as_the_parents(
    history: History, store: Path
) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    digest = build_digest(history.show(FORK))
    assert "Ask: now add the lexer" in digest and "create the parser module" not in digest
    assert f"Forked from title aaaa ({PARENT[:8]}) at turn 3" in digest
    assert f"deja show {PARENT}" in digest
    # `deja handoff`: the fork's whole history, the parent's part once and said to be the parent's.
    env = deja_env(store, history.home)
    line = json_envelope(run_deja(env, "handoff", FORK[:8], "--json"), "handoff")["argv"][1]
    assert line.count("create the parser module") == 1
    assert f"Ask (the parent's, in {PARENT[:8]}): create the parser module" in line
    assert "Ask of this fork (turn 3): now add the lexer" in line
    assert "parser.py" in line and "lexer.py" in line  # both parts' changed files


def test_fork_lookups_by_fingerprint_use_the_partial_index(history: History, store: Path) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=1)
    looked_up: list[str] = []
    history._db.set_trace_callback(
        lambda sql: looked_up.append(sql) if "fingerprint =" in sql else None
    )
    history.refresh()
    history._db.set_trace_callback(None)
    assert history.show(FORK).session.forked_from == PARENT
    assert looked_up  # the pass asked items by fingerprint
    for sql in looked_up:  # schema 3 indexes only first items and summaries (`items_opening`)
        plan = " ".join(row[3] for row in history._db.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "INDEX items_opening" in plan, (sql, plan)


def test_forgetting_a_parent_says_its_fork_still_holds_its_turns(
    history: History, store: Path
) -> None:
    put(store, PARENT, PARENT_HISTORY)
    put(store, FORK, PARENT_HISTORY + FORK_OWN, minutes=5)
    history.refresh()
    env = deja_env(store, history.home)
    note = f"note: its fork {FORK[:8]} (title bbbb) still holds a copy of its turns"
    dry = run_deja(env, "forget", "--session", PARENT, "--dry-run")
    assert dry.returncode == 0 and note in dry.stdout, dry.stderr
    done = run_deja(env, "forget", "--session", PARENT)
    assert done.returncode == 0 and note in done.stdout, done.stderr
    assert f"deja forget --session {FORK[:8]} removes them too" in done.stdout
    alone = run_deja(env, "forget", "--session", FORK, "--json")
    assert json_envelope(alone, "forget")["forks"] == []
