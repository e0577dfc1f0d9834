"""A pass reading in a worker process (index/reader_pool.py) makes the same index as one reading
in process: the same rows, text and search results, byte for byte."""

from __future__ import annotations

import concurrent.futures
import sqlite3
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from deja.index import reader_pool
from deja.query import History, SearchQuery
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

TABLES = {
    "sessions": "id",
    "items": "session_id, turn",
    "records": "id",
    "record_texts": "id",
    "unreadable": "id",
}


def dump(db: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    return {
        table: db.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        for table, order in TABLES.items()
    }


def store_of(root: Path) -> Path:
    (root / "sessions").mkdir(parents=True)
    for n in range(12):
        turns = [
            user(f"fix the flaky retryBudget test {n}"),
            assistant("", [call("Bash", {"command": f"pytest -k t{n}"}, f"{n} failed")]),
            assistant(f"The retryBudget was off by {n}."),
        ]
        write_session(root, session_doc(f"s{n:02}", turns), mtime=1_700_000_000 + n)
    (root / "sessions" / "broken.json").write_text("{not json")
    return root


def test_worker_pass_gives_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = store_of(tmp_path / "continue")
    serial = History(home=tmp_path / "serial", root=store)
    serial.refresh()
    monkeypatch.setattr(reader_pool, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(reader_pool.os, "cpu_count", lambda: 2)
    pools: list[int] = []
    real = concurrent.futures.ProcessPoolExecutor
    monkeypatch.setattr(
        concurrent.futures,
        "ProcessPoolExecutor",
        lambda workers, **kwargs: pools.append(workers) or real(workers, **kwargs),
    )
    parallel = History(home=tmp_path / "parallel", root=store)
    try:
        report = parallel.refresh()
        assert pools == [2] and report.read == 13 and len(report.errors) == 1
        assert dump(parallel._db) == dump(serial._db)
        for words in ("retryBudget", "flaky 7", "failed"):
            query = SearchQuery(words, limit=50)
            assert parallel.search(query) == serial.search(query)
    finally:
        serial.close()
        parallel.close()


def test_small_passes_and_single_cores_read_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from deja.continue_store import SessionRef

    big = [SessionRef(n, None, None, size=reader_pool.PARALLEL_MIN_BYTES // 2 + 1) for n in "ab"]
    small = [SessionRef("a", None, None, size=1_000)] * 2
    huge_one = [SessionRef("a", None, None, size=reader_pool.PARALLEL_MIN_BYTES * 10)]
    monkeypatch.setattr(reader_pool.os, "cpu_count", lambda: 2)
    assert (reader_pool.workers_for(big), reader_pool.workers_for(small)) == (2, 0)
    assert reader_pool.workers_for(huge_one) == 0  # nothing to overlap its reading with
    monkeypatch.setattr(reader_pool.os, "cpu_count", lambda: 1)
    assert reader_pool.workers_for(big) == 0


class _BrokenPool:
    """A pool whose worker died at once: every future raises what a dead worker's does."""

    def __init__(self, workers: int, **_kwargs: object) -> None:
        pass

    def submit(self, *_args: object) -> Future[object]:
        future: Future[object] = Future()
        future.set_exception(BrokenProcessPool("worker died"))
        return future

    def shutdown(self, **_kwargs: object) -> None:
        pass


def test_a_worker_that_dies_leaves_the_rest_read_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_of(tmp_path / "continue")
    monkeypatch.setattr(reader_pool, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(reader_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _BrokenPool)
    history = History(home=tmp_path / "home", root=store)
    try:
        report = history.refresh()
        assert (report.read, report.changed, len(report.errors)) == (13, 12, 1)
        assert len(history.search(SearchQuery("retryBudget", limit=50)).hits) == 24
    finally:
        history.close()


UNGUARDED = """
import os, sys
from pathlib import Path
sys.path[:0] = [{server!r}]
from deja.index import reader_pool
from deja.query import History
reader_pool.PARALLEL_MIN_BYTES = 0
os.cpu_count = lambda: 2
report = History(home=Path({home!r}), root=Path({store!r})).refresh()
print(report.read, report.changed)
"""


def test_a_script_without_a_main_guard_still_indexes(tmp_path: Path) -> None:
    """`spawn` re-runs the script in each worker; the worker's pass is refused at once (it would
    wait on the parent's writer lock) and the parent reads in process."""
    import subprocess
    import sys

    store = store_of(tmp_path / "continue")
    script = tmp_path / "unguarded.py"
    server = str(Path(reader_pool.__file__).resolve().parents[2])
    script.write_text(UNGUARDED.format(server=server, home=str(tmp_path / "h"), store=str(store)))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "13 12"
    assert "needs `if __name__" in done.stderr
