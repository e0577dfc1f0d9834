"""The live index without a server: it opens in the background, runs a first pass, picks up a
new session file, says when it is ready, and refuses a missing store until it is back."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from deja.cli.common import INDEXING_ELSEWHERE
from deja.continue_store.watch import StoreWatcher
from deja.index import StoreRefusal
from deja.live_index import LiveIndex, LiveListener, ProgressReport
from deja.query import History, SearchQuery
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import session_doc, user, write_session

FIRST, SECOND, THIRD = "live-first-1", "live-second-2", "live-third-3"


class Recorder(LiveListener):
    """Everything the index reports, in order, from its thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, object]] = []

    def _add(self, kind: str, value: object) -> None:
        with self.lock:
            self.events.append((kind, value))

    def of(self, kind: str) -> list[object]:
        with self.lock:
            return [value for seen, value in self.events if seen == kind]

    def log(self, message: str, level: int = logging.INFO) -> None:
        self._add("log", message)

    def tell(self, message: str, level: int = logging.WARNING) -> None:
        self._add("tell", message)

    def first_pass_begin(self) -> bool:
        self._add("begin", None)
        return True

    def first_pass_progress(self, report: ProgressReport) -> None:
        self._add("progress", report.percentage)

    def first_pass_end(self, outcome: str) -> None:
        self._add("end", outcome)

    def index_changed(self, session_ids: list[str]) -> None:
        self._add("changed", session_ids)

    def store_status(self, refusal: StoreRefusal | None) -> None:
        self._add("status", None if refusal is None else refusal.problem)


def until(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the live index never got there"
        time.sleep(0.05)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "continue"
    write_session(root, session_doc(FIRST, [user("the first: zebra")]))
    write_session(root, session_doc(SECOND, [user("the second: giraffe")]))
    return root


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def live(tmp_path: Path, store: Path, recorder: Recorder) -> Iterator[LiveIndex]:
    index = LiveIndex(tmp_path / "home", store, recorder)
    yield index
    index.close()


def found(index: LiveIndex, text: str) -> list[str]:
    assert index.history is not None
    return [hit.session_id for hit in index.history.search(SearchQuery(text)).hits]


def test_opens_and_runs_a_first_pass(live: LiveIndex, recorder: Recorder) -> None:
    assert not live.opened and not live.wait_opened(0)
    live.start(watch=True)
    assert live.wait_opened(20) and live.wait_indexed(20)
    assert live.history is not None and live.open_error is None
    assert found(live, "zebra") == [FIRST]
    assert recorder.of("begin") == [None] and recorder.of("end") == ["2 sessions · 2 indexed"]
    assert recorder.of("progress")[-1] == 100
    (changed,) = recorder.of("changed")
    assert isinstance(changed, list) and sorted(changed) == [FIRST, SECOND]
    assert any(str(line).startswith("index ") for line in recorder.of("log"))
    assert recorder.of("status") == [] and live.refused is None


def test_picks_up_a_new_session_file(live: LiveIndex, store: Path, recorder: Recorder) -> None:
    live.start(watch=True)
    assert live.wait_indexed(20)
    write_session(store, session_doc(THIRD, [user("arrived later: okapi")]))
    until(lambda: [THIRD] in recorder.of("changed"))
    assert found(live, "okapi") == [THIRD]


def test_without_watching_the_door_refreshes(
    live: LiveIndex, store: Path, recorder: Recorder
) -> None:
    live.start(watch=False)
    assert live.wait_indexed(20)
    write_session(store, session_doc(THIRD, [user("arrived later: okapi")]))
    time.sleep(1)  # nothing watches: the new file waits for `refresh`
    assert found(live, "okapi") == []
    assert live.refresh().changed == 1
    assert found(live, "okapi") == [THIRD] and recorder.of("changed")[-1] == [THIRD]


def test_an_index_that_cannot_be_opened_is_ready_with_its_error(
    tmp_path: Path, store: Path, recorder: Recorder
) -> None:
    home = tmp_path / "home"
    home.write_text("a file where the index's folder should be")
    live = LiveIndex(home, store, recorder)
    live.start(watch=True)
    assert live.wait_opened(20) and live.wait_indexed(20)
    assert live.history is None and live.open_error is not None
    (told,) = recorder.of("tell")
    assert str(told).startswith("the index could not be opened: ")
    with pytest.raises(RuntimeError):
        live.refresh()
    live.close()


def test_a_missing_store_is_refused_until_it_is_back(
    live: LiveIndex, store: Path, recorder: Recorder
) -> None:
    aside = store.parent / "aside"
    shutil.move(store / "sessions", aside)
    live.start(watch=True)
    assert live.wait_indexed(20)
    assert recorder.of("end") == ["not applied: Continue's store is missing"]
    assert recorder.of("status") == ["missing"] and live.refused is not None
    shutil.move(aside, store / "sessions")
    # No session file changed: the refused store is retried whole every few ticks.
    until(lambda: recorder.of("status") == ["missing", None])
    assert live.refused is None and found(live, "giraffe") == [SECOND]
    assert any("is back; indexing it" in str(line) for line in recorder.of("log"))


def test_an_unreadable_session_is_retried_then_left(
    live: LiveIndex, store: Path, recorder: Recorder
) -> None:
    write_session(store, "{ half written", "live-broken-4")
    live.start(watch=True)
    assert live.wait_indexed(20)
    until(lambda: any("left until the file changes" in str(x) for x in recorder.of("log")))
    assert found(live, "zebra") == [FIRST]


# Watching by notifications ----------------------------------------------------------------------


def armed_watcher(root: Path) -> StoreWatcher:
    watcher = StoreWatcher(root)
    watcher.start()
    assert watcher.armed.wait(20), watcher.notify_error
    watcher.prime()
    assert watcher.notifying and watcher.poll() == set()
    return watcher


def test_an_idle_watcher_looks_at_no_file(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    for number in range(40):
        write_session(root, session_doc(f"idle-{number}", [user(f"session {number}")]))
    watcher = armed_watcher(root)
    try:
        looked_at = watcher.looked_at
        assert watcher.next_wait() is None  # nothing to do: woken only by a change
        assert watcher.wait(0.6) is False
        assert watcher.poll() == set() and watcher.looked_at == looked_at
        write_session(root, session_doc("idle-7", [user("session 7, rewritten")]))
        changed: set[str] = set()
        while not changed:
            assert watcher.wait(20), "the change was never told"
            changed = watcher.poll()
        assert changed == {"idle-7"}
        assert watcher.looked_at == looked_at + 1  # the changed file alone
    finally:
        watcher.close()


def test_a_watcher_without_notifications_polls_with_back_off(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    write_session(root, session_doc(FIRST, [user("zebra")]))
    watcher = StoreWatcher(root)  # never started: polling
    watcher.prime()
    waits = []
    for _ in range(6):
        assert watcher.poll() == set()
        waits.append(watcher.next_wait())
    assert waits == [0.5, 1.0, 2.0, 2.0, 2.0, 2.0]  # backing off to the lag bound
    write_session(root, session_doc(FIRST, [user("zebra, rewritten")]))
    assert watcher.poll() == set() and watcher.next_wait() == 0.25  # changed: a tick
    assert watcher.poll() == {FIRST}


def test_the_live_index_follows_a_rewritten_session(
    live: LiveIndex, store: Path, recorder: Recorder
) -> None:
    live.start(watch=True)
    assert live.wait_indexed(20)
    write_session(store, session_doc(FIRST, [user("the first: zebra"), user("then: quokka")]))
    until(lambda: [FIRST] in recorder.of("changed"))
    assert found(live, "quokka") == [FIRST]


def test_a_pass_reads_the_most_recent_sessions_first(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    for number in range(30):
        path = write_session(root, session_doc(f"s-{number:02}", [user(f"turn {number}")]))
        stamp = 1_700_000_000_000_000_000 + (number * 7919 % 30) * 10**9
        os.utime(path, ns=(stamp, stamp))
    history = History(tmp_path / "home", root)
    try:
        report = history.refresh()
    finally:
        history.close()
    by_mtime = sorted((p.stat().st_mtime_ns, p.stem) for p in (root / "sessions").glob("s-*.json"))
    assert report.changed_ids == [stem for _, stem in reversed(by_mtime)]


# Sharing the index between processes ------------------------------------------------------------

# A real first index in another process, paused after its first session until told to go on.
PAUSED_PASS = """
import sys
from pathlib import Path
from deja.query import History

history = History(Path(sys.argv[1]), Path(sys.argv[2]))

def progress(done: int, total: int) -> None:
    print(f"indexing {done}/{total}", flush=True)
    sys.stdin.readline()

report = history.refresh(progress=progress)
print(f"indexed {report.changed}", flush=True)
"""


def test_a_search_answers_while_another_process_indexes(tmp_path: Path) -> None:
    store, home = tmp_path / "continue", tmp_path / "home"
    # Old files: none is re-read for being written in the same instant as the pass.
    write_session(store, session_doc(FIRST, [user("indexed before: zebra")]), mtime=1.75e9)
    history = History(home, store)
    history.refresh()
    history.close()
    write_session(store, session_doc(SECOND, [user("later: giraffe")]), mtime=1.76e9)
    write_session(store, session_doc(THIRD, [user("later: okapi")]), mtime=1.76e9)
    env = deja_env(store, home)
    with subprocess.Popen(
        [sys.executable, "-c", PAUSED_PASS, str(home), str(store)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as indexer:
        assert indexer.stdin is not None and indexer.stdout is not None
        try:
            assert indexer.stdout.readline().startswith("indexing 1/2")
            # The other process holds the writer: the search must not wait for it.
            result = run_deja(env, "search", "--all", "zebra", timeout=30)
            assert result.returncode == 0, result.stderr
            assert "zebra" in result.stdout
            assert result.stderr.strip() == f"deja: note: {INDEXING_ELSEWHERE}"
        finally:
            indexer.stdin.close()
        assert indexer.stdout.read().splitlines()[-1] == "indexed 2"
    again = run_deja(env, "search", "--all", "okapi")
    assert "okapi" in again.stdout and again.stderr == ""
