"""The live index without a server: it opens in the background, runs a first pass, picks up a
new session file, says when it is ready, and refuses a missing store until it is back."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from deja.index import StoreRefusal
from deja.live_index import LiveIndex, LiveListener, ProgressReport
from deja.query import SearchQuery
from tests.storebuilder import session_doc, user, write_session

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
