"""Turn times from what Deja observed (issue 13): the seed rule is the floor; turns that appear
between two passes are dated after the earlier observation of the file and no later than its new
mtime, in order; on a cold index the turns from the last compaction summary on are counted back
from the mtime. Titles: Continue's unless a placeholder, else the first request Deja holds.
Through the index, the CLI and MCP (the sidecar: tests/lsp/test_turn_times.py; the real `cn`:
tests/real_cn/test_turn_times_on_cn.py)."""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from deja.continue_store.times import turn_time, window_times
from deja.query import History, Scope, SearchQuery
from deja.query.since import parse_since
from tests.mcp.test_mcp import mcp_session
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.storebuilder import assistant, session_doc, user, write_session

WEEK = 7 * 86_400
SID = "0a1d0000-1111-4aaa-8bbb-000000000001"
OLD_TURNS = [user("set up the flaky harness for uploads"), assistant("The flaky harness is set up")]
NEW_TURNS = [user("rename the harness to retryrig"), assistant("Renamed it to retryrig")]


def ms(seconds: float) -> str:
    return str(int(seconds * 1000))


def old_session(store: Path, now: float, title: str = "Untitled Session") -> Path:
    """A week-old session: created then, last written a minute later."""
    doc = session_doc(SID, list(OLD_TURNS), title=title, workspace=str(store.parent))
    return write_session(store, doc, date_created=ms(now - WEEK), mtime=now - WEEK + 60)


def rewrite(path: Path, history_items: list[dict[str, Any]], mtime: float) -> None:
    """What Continue does on every save: the whole file rewritten in place."""
    doc = json.loads(path.read_text())
    doc["history"] = history_items
    path.write_text(json.dumps(doc, indent=2))
    os.utime(path, (mtime, mtime))


def compacted(summary: str, later: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What `cn` leaves after compaction: one summary item, then the turns after it."""
    item = {
        "message": {"role": "assistant", "content": summary},
        "contextItems": [],
        "conversationSummary": summary,
    }
    return [item, *later]


def turn_times(history: History) -> dict[int, float]:
    return {record.turn: record.time for record in history.show(SID).records}


def found(history: History, text: str, since: float) -> list[int]:
    hits = history.search(SearchQuery(text, scope=Scope(), since=since, limit=50)).hits
    return sorted({hit.turn for hit in hits})


def test_window_times_end_at_the_mtime_in_order_inside_the_window() -> None:
    assert window_times(100.0, 200.0, 3) == [198.0, 199.0, 200.0]
    squeezed = window_times(100.0, 101.0, 4)
    assert squeezed is not None and squeezed[-1] == 101.0
    assert all(100.0 < a < b for a, b in itertools.pairwise(squeezed))
    assert window_times(100.0, 100.0, 2) is None and window_times(200.0, 100.0, 1) is None
    # The seed rule is unchanged: one second apart from the start, clamped to the mtime.
    assert [turn_time(10.0, 12.5, turn) for turn in range(4)] == [10.0, 11.0, 12.0, 12.5]


def test_turns_added_to_an_old_session_are_dated_inside_the_window(
    history: History, store: Path
) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    history.refresh()
    before = turn_times(history)
    assert before == {0: now - WEEK, 1: now - WEEK + 1}
    written = now - 5
    rewrite(path, [*OLD_TURNS, *NEW_TURNS], written)
    history.refresh()
    after = turn_times(history)
    assert {turn: after[turn] for turn in before} == before  # what it held keeps its time
    assert now - WEEK + 60 < after[2] < after[3] == pytest.approx(written)
    hour_ago = parse_since("1h")
    assert found(history, "retryrig", hour_ago) == [2, 3]
    assert found(history, "flaky", hour_ago) == []
    assert found(history, "flaky", parse_since("8d")) == [0, 1]

    # A later save: the turns seen at the last pass keep their times, not re-dated to now.
    rewrite(path, [*OLD_TURNS, *NEW_TURNS, user("and document retryrig")], now - 1)
    history.refresh()
    latest = turn_times(history)
    assert {turn: latest[turn] for turn in after} == after
    assert after[3] < latest[4] == pytest.approx(now - 1)


def test_a_mtime_that_went_back_keeps_the_order(history: History, store: Path) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    rewrite(path, list(OLD_TURNS), now - 60)
    history.refresh()
    held = turn_times(history)
    rewrite(path, [*OLD_TURNS, *NEW_TURNS], now - 3600)  # restored from a backup, say
    history.refresh()
    times = turn_times(history)
    assert [times[turn] for turn in range(4)] == sorted(times[turn] for turn in range(4))
    assert times[2] >= max(held.values())


def test_after_a_schema_upgrade_old_turns_are_not_taken_for_new_ones(
    tmp_path: Path, store: Path
) -> None:
    now = float(int(time.time()))
    path = old_session(store, now)
    home = tmp_path / "upgraded-home"
    history = History(home=home, root=store)
    history.refresh()
    history._db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    history.close()
    rewrite(path, [*OLD_TURNS, *NEW_TURNS], now - 5)
    upgraded = History(home=home, root=store)  # only compacted turns come over: none here
    try:
        upgraded.refresh()
        assert turn_times(upgraded) == {turn: now - WEEK + turn for turn in range(4)}
        assert found(upgraded, "flaky", parse_since("1h")) == []
    finally:
        upgraded.close()


def test_cold_index_keeps_the_seed_rule_for_what_it_never_saw(
    history: History, store: Path
) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    rewrite(path, [*OLD_TURNS, *NEW_TURNS], now - 5)
    history.refresh()
    # Nothing tells when these turns were written: one second apart from dateCreated.
    assert turn_times(history) == {turn: now - WEEK + turn for turn in range(4)}
    assert found(history, "retryrig", parse_since("1h")) == []


def test_cold_index_anchors_turns_after_the_last_compaction_to_the_mtime(
    history: History, store: Path
) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    later = [assistant("Picked up the uploads work"), user("continue"), assistant("retryrig")]
    rewrite(path, compacted("Summary: a flaky harness for uploads", later), now - 5)
    history.refresh()
    times = turn_times(history)
    assert [times[turn] for turn in range(4)] == pytest.approx([now - 8, now - 7, now - 6, now - 5])
    assert found(history, "retryrig", parse_since("1h")) == [3]


def test_compaction_seen_by_the_index_dates_the_new_turns_and_keeps_the_title(
    history: History, store: Path, tmp_path: Path
) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    history.refresh()
    held = turn_times(history)
    later = [assistant("Picked up the uploads work"), user("continue"), assistant("retryrig")]
    rewrite(path, compacted("Summary: a flaky harness for uploads", later), now - 5)
    history.refresh()
    times = turn_times(history)
    assert {turn: times[turn] for turn in held} == held  # compacted turns keep their times
    assert now - WEEK + 60 < times[2] < times[5] == pytest.approx(now - 5)
    assert found(history, "retryrig", parse_since("1h")) == [5]
    (summary,) = history.sessions(Scope(), 10, 0)
    assert summary.title == "set up the flaky harness for uploads"

    # A cold index holds only the file: its first request is the post-compaction one.
    cold = History(home=tmp_path / "cold-home", root=store)
    try:
        cold.refresh()
        assert [s.title for s in cold.sessions(Scope(), 10, 0)] == ["continue"]
    finally:
        cold.close()


def test_continues_title_wins_over_the_first_request(history: History, store: Path) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now, title="Uploads harness")
    history.refresh()
    rewrite(path, compacted("Summary", [user("continue")]), now - 5)
    history.refresh()
    assert [s.title for s in history.sessions(Scope(), 10, 0)] == ["Uploads harness"]


def test_a_placeholder_title_does_not_make_every_pass_rewrite_the_session(
    history: History, store: Path
) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    history.refresh()
    rewrite(path, compacted("Summary", [user("continue")]), now - 5)
    assert history.refresh().changed == 1
    os.utime(path, (now - 2, now - 2))  # touched, not changed
    assert history.refresh().changed == 0


def test_cli_since_finds_a_turn_added_now_to_an_old_session(store: Path, tmp_path: Path) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    env = deja_env(store, tmp_path / "cli-home")
    assert run_deja(env, "index").returncode == 0
    rewrite(path, [*OLD_TURNS, *NEW_TURNS], now - 5)
    search = ("search", "--all", "--since", "1h", "--json")
    data = json_envelope(run_deja(env, *search, "retryrig"), "search")
    assert sorted((hit["session_id"], hit["turn"]) for hit in data["hits"]) == [(SID, 2), (SID, 3)]
    assert json_envelope(run_deja(env, *search, "flaky"), "search")["hits"] == []


def test_mcp_since_finds_a_turn_added_now_to_an_old_session(store: Path, tmp_path: Path) -> None:
    now = float(int(time.time()))  # whole seconds: dateCreated is in ms
    path = old_session(store, now)
    with mcp_session(store, tmp_path / "mcp-home", store.parent) as mcp:
        mcp.ready()
        rewrite(path, [*OLD_TURNS, *NEW_TURNS], now - 5)
        text, error = mcp.call("deja_search", {"query": "retryrig", "since": "1h"})
        assert not error and "turn 2 · user" in text and "turn 3 · assistant" in text
        text, error = mcp.call("deja_search", {"query": "flaky", "since": "1h"})
        assert not error and "Nothing found: no past session matches 'flaky' in workspace" in text
        assert "since 1h;" in text
        text, error = mcp.call("deja_search", {"query": "flaky", "since": "8d"})
        assert not error and "turn 0 · user" in text and "turn 1 · assistant" in text
        text, error = mcp.call("deja_search", {"query": "flaky", "since": "yesterday"})
        assert error and "since: 'yesterday' is not a duration" in text
