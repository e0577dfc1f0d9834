"""The deep model (all-MiniLM-L6-v2 int8, the semantic extra): it loads with the network cut
off; the long-running doors' background pass reads the most recently active session first, one
process at a time, and keeps its vectors in step with the records; a door then finds a
paraphrase the static model misses, while a one-shot `deja search` never loads it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deja import semantic, settings
from deja.index import IndexBusy
from deja.live_deep import CAUGHT_UP
from deja.live_index import LiveIndex, LiveListener
from deja.query import History, Scope, SearchQuery
from deja.semantic import deep_pass, identity
from deja.settings import SettingError
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.no_network import BLOCK_SOCKETS
from tests.support.paraphrases import (
    BUTTONS,
    REPORTS,
    REPORTS_QUESTION,
    read_deep,
    write_paraphrased,
)
from tests.support.storebuilder import assistant, session_doc, user, write_session

pytestmark = pytest.mark.semantic

_GUARDED_LOAD = (
    BLOCK_SOCKETS
    + """
from deja.semantic import deep_model
model = deep_model.load()
v = model.embed(["The integration suite fails randomly on CI about one run in five.",
                 "tests pass on my laptop but break now and then in the pipeline",
                 "a recipe for pancakes"])
print(json.dumps({"tried": tried, "shape": list(v.shape),
                  "close": float(v[0] @ v[1]), "far": float(v[0] @ v[2])}))
"""
)


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[History]:
    write_paraphrased(tmp_path / "store")
    history = History(home=tmp_path / "home", root=tmp_path / "store")
    history.refresh()
    yield history
    history.close()


def _deep_count(home: Path) -> int:
    db = sqlite3.connect(home / "index.sqlite3")
    try:
        return int(db.execute("SELECT count(*) FROM record_vectors_deep").fetchone()[0])
    finally:
        db.close()


def test_the_deep_model_loads_with_every_socket_blocked() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _GUARDED_LOAD],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["tried"] == []
    assert report["shape"] == [3, identity.DEEP_DIMENSIONS]
    # Real weights: the paraphrase is close, the unrelated text is not.
    assert report["close"] > report["far"] + 0.2


def test_an_idle_deep_model_is_dropped_and_loads_again_when_asked() -> None:
    from deja.semantic import deep_model

    first = deep_model.load().embed(["a flaky test in the pipeline"])
    assert deep_model.release_if_idle(3600) is False and deep_model.loaded()
    assert deep_model.release_if_idle(0) is True and not deep_model.loaded()
    again = deep_model.load().embed(["a flaky test in the pipeline"])
    assert deep_model.loaded() and float(first[0] @ again[0]) > 0.9999


def test_an_answer_is_read_after_the_question_it_answers() -> None:
    asked = "q" * 300
    assert deep_pass.record_text("assistant", "the fix", asked) == f"{'q' * 250}\nthe fix"
    assert deep_pass.record_text("user", "a question", asked) == "a question"
    assert deep_pass.record_text("assistant", "no question before", "") == "no question before"


def test_the_most_recently_active_session_is_read_first(indexed: History) -> None:
    assert indexed.deep_work() is None and indexed.deep_pending() is None  # never prepared
    indexed.deep_prepare()
    first = indexed.deep_work()
    assert first is not None and first.session_id == BUTTONS
    assert [text for _, _, text in first.records] == [
        "Make the buttons blue.",
        "Make the buttons blue.\nChanged the stylesheet colour.",
    ]
    assert indexed.deep_pending() == 4
    assert read_deep(indexed) == 4
    assert indexed.deep_work() is None and indexed.deep_pending() == 0


def _buttons_again(root: Path, first: str) -> None:
    """Continue writes "Buttons" again, its first request as given, with a turn more."""
    turns = [user(first), assistant("Changed the stylesheet colour."), user("And the links.")]
    write_session(root, session_doc(BUTTONS, turns, title="Buttons"), listed=False)


def test_deep_vectors_follow_their_records(indexed: History, tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "store"
    read_deep(indexed)
    assert _deep_count(home) == 4
    _buttons_again(root, "Make the buttons blue.")
    indexed.refresh()
    # The session grew: the turns it still holds keep their rows and their deep vectors; only
    # the new turn waits for the deep model.
    assert indexed.deep_pending() == 1 and _deep_count(home) == 4
    assert read_deep(indexed) == 1
    _buttons_again(root, "Make the buttons green.")
    indexed.refresh()
    # Its first turn was written again: every record from there is a new row to read.
    assert indexed.deep_pending() == 3 and _deep_count(home) == 2
    assert read_deep(indexed) == 3
    indexed.forget_session(REPORTS)
    assert _deep_count(home) == 3 and indexed.deep_pending() == 0


def test_a_record_read_again_meanwhile_is_not_saved(indexed: History, tmp_path: Path) -> None:
    from deja.semantic import deep_model

    indexed.deep_prepare()
    work = indexed.deep_work()
    assert work is not None and work.session_id == BUTTONS
    write_session(
        tmp_path / "store",
        session_doc(
            BUTTONS,
            [user("Make the buttons green."), assistant("Changed the stylesheet colour.")],
            title="Buttons",
        ),
        listed=False,
    )
    indexed.refresh()
    vectors = deep_model.load().embed([text for _, _, text in work.records])
    assert indexed.save_deep(work, [v.tobytes() for v in vectors]) == 0
    assert _deep_count(tmp_path / "home") == 0


def test_one_process_does_the_deep_work_at_a_time(indexed: History, tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "home" / "index.sqlite3")
    try:
        # Another process took the work a moment ago.
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('deep_vectors_worker', ?)",
            (f"{os.getpid() + 1} {time.time()}",),
        )
        db.commit()
        indexed.deep_prepare()
        work = indexed.deep_work()
        assert work is not None
        assert indexed.take_deep_lease() is False
        with pytest.raises(IndexBusy):
            indexed.save_deep(work, [b"\0" * 4 * identity.DEEP_DIMENSIONS] * len(work.records))
        # It stopped renewing its lease: the work is this process's.
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('deep_vectors_worker', ?)",
            (f"{os.getpid() + 1} {time.time() - deep_pass.LEASE_S - 1}",),
        )
        db.commit()
        assert indexed.take_deep_lease() is True
        indexed.end_deep()
        held = db.execute("SELECT 1 FROM meta WHERE key = 'deep_vectors_worker'").fetchone()
        assert held is None
    finally:
        db.close()


class _Caught(LiveListener):
    def __init__(self) -> None:
        self.done = threading.Event()
        self.logged: list[str] = []

    def log(self, message: str, level: int = 20) -> None:
        self.logged.append(message)

    def meaning_caught_up(self, records: int) -> None:
        self.done.set()


def _hits(history: History, text: str) -> list[tuple[str, bool]]:
    found = history.search(SearchQuery(text, scope=Scope(), limit=5))
    return [(hit.session_id, hit.meaning_only) for hit in found.hits]


def test_a_long_running_door_finds_what_only_the_deep_model_finds(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "store"
    write_paraphrased(root)
    listener = _Caught()
    live = LiveIndex(home, root, listener)
    live.start(watch=False)
    try:
        assert listener.done.wait(120), listener.logged
        assert CAUGHT_UP.format(count="4 records") in listener.logged
        assert live.history is not None
        hits = _hits(live.history, REPORTS_QUESTION)
        assert hits and hits[0] == (REPORTS, True)
    finally:
        live.close()
    # The same question in a process with no door (the CLI): the static model alone, whose
    # cosine to the answer is under its floor.
    assert not semantic.deep_enabled()
    history = History(home, root)
    try:
        assert _hits(history, REPORTS_QUESTION) == []
    finally:
        history.close()


def test_deja_search_never_loads_the_deep_model(indexed: History, tmp_path: Path) -> None:
    read_deep(indexed)
    env = deja_env(tmp_path / "store", tmp_path / "home", PYTHONPROFILEIMPORTTIME="1")
    env.pop("DEJA_SEMANTIC", None)
    ran = run_deja(env, "search", REPORTS_QUESTION, "--all", "--json")
    assert ran.returncode == 0, ran.stderr
    assert json_envelope(ran, "search")["hits"] == []
    assert "onnxruntime" not in ran.stderr and "deep_model" not in ran.stderr
    assert "deja.semantic.model" in ran.stderr  # meaning was asked: by the static model


def test_light_keeps_the_deep_model_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEJA_SEMANTIC", "light")
    assert settings.semantic_search() and not settings.deep_meaning()
    write_paraphrased(tmp_path / "store")
    live = LiveIndex(tmp_path / "home", tmp_path / "store")
    live.start(watch=False)
    try:
        assert live.wait_indexed(60)
        names = {thread.name for thread in threading.enumerate()}
        assert "deja-meaning" not in names
        assert live.history is not None and _hits(live.history, REPORTS_QUESTION) == []
    finally:
        live.close()
    monkeypatch.setenv("DEJA_SEMANTIC", "deep")
    with pytest.raises(SettingError, match="light"):
        settings.deep_meaning()


def test_a_stopped_door_has_left_the_deep_model(tmp_path: Path) -> None:
    """`stop` returns once the deep pass has ended: a process that exits while the runtime
    embeds is aborted by it (`cn` closes its MCP servers at every session's end)."""
    root = tmp_path / "store"
    for n in range(12):
        turns = []
        for t in range(4):
            turns += [
                user(f"Question {t} of session {n}: why does the report job " + "lag " * 40),
                assistant(f"Answer {t}: the job waited on a lock held by the exporter. " * 6),
            ]
        write_session(
            root, session_doc(f"a1b2c3d4-0000-4000-8000-0000000001{n:02d}", turns, title=f"S{n}")
        )
    live = LiveIndex(tmp_path / "home", root)
    live.start(watch=False)
    probe = None
    try:
        assert live.wait_indexed(120)
        probe = History(tmp_path / "home", root, for_reading=True)
        while (pending := probe.deep_pending()) is None or pending == 96:
            time.sleep(0.02)  # until the deep model has saved a part (what the index says)
        live.stop()
        assert "deja-meaning" not in {thread.name for thread in threading.enumerate()}
        assert probe.deep_pending() not in (0, None)  # it stopped part way
    finally:
        if probe is not None:
            probe.close()
        live.close()
