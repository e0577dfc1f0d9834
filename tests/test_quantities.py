"""Counts read as words: "1 session", "1 turn", "1 earlier session", never "1 sessions"."""

from __future__ import annotations

from pathlib import Path

import pytest

from deja.quantities import count
from deja.query.restore import RestoreError, expand
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import assistant, session_doc, user, write_session


def test_count() -> None:
    assert [count(n, "session") for n in (0, 1, 2)] == ["0 sessions", "1 session", "2 sessions"]
    assert count(1, "match", "matches") == "1 match" and count(3, "match", "matches") == "3 matches"


def test_restore_says_one_earlier_session() -> None:
    with pytest.raises(RestoreError, match=r"has 1 earlier session \(#1\);"):
        expand([(2, 2)], 1, has_zero=False)


def test_commands_print_singular_counts(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("s-one", [user("only one")], workspace="/w/one"))
    env = deja_env(store, tmp_path / "home")
    index = run_deja(env, "index")
    assert index.returncode == 0, index.stderr
    assert "1 session in the store" in index.stdout and "0 turns kept" in index.stdout
    assert "1 sessions" not in index.stdout
    listed = run_deja(env, "sessions", "--all")
    assert "1 message" in listed.stdout and "1 messages" not in listed.stdout
    write_session(
        store, session_doc("s-two", [user("a"), assistant("b")], workspace="/w/one"), listed=True
    )
    both = run_deja(env, "sessions", "--all")
    assert "2 messages" in both.stdout


def test_a_page_past_a_single_hit_says_there_is_one() -> None:
    from deja.cli.render import page_note

    assert page_note("hits", 0, 5, 1) == "no hits at offset 5; there is 1"
    assert page_note("hits", 0, 5, 2) == "no hits at offset 5; there are 2"
