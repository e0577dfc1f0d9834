"""The vectors a search scans are a file beside the index that each search memory-maps: it holds
exactly the index's vectors, and a forgotten session's are gone from it at the next search."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from deja.query import History, Scope, SearchQuery
from deja.semantic import nearest, vectors
from tests.semantic.test_semantic import CACHE, DOCKER, _store
from tests.support.storebuilder import assistant, session_doc, user, write_session

PAST = 1_700_000_000.0

pytestmark = pytest.mark.semantic


def _ids_in_index(home: Path) -> set[int]:
    db = sqlite3.connect(home / "index.sqlite3")
    try:
        return {int(row[0]) for row in db.execute("SELECT record_id FROM record_vectors")}
    finally:
        db.close()


def _ids_in_file(home: Path) -> set[int]:
    files = sorted(home.glob("index.sqlite3.vectors-*.ids.npy"))
    assert len(files) == 1, files
    for path in home.glob("index.sqlite3.vectors-*"):
        assert path.stat().st_mode & 0o077 == 0, path  # as private as the index
    return {int(rid) for rid in np.load(files[0])}


def _by_meaning(history: History) -> list[str]:
    result = history.search(SearchQuery("caching credentials for login", scope=Scope()))
    return [hit.session_id for hit in result.hits if hit.meaning_only]


def test_the_matrix_file_holds_the_index_vectors_and_forgets_with_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _store(tmp_path / "store")
    history = History(home=home, root=tmp_path / "store")
    history.refresh()
    assert _by_meaning(history)[:1] == [CACHE]
    assert _ids_in_file(home) == _ids_in_index(home) and len(_ids_in_index(home)) == 6
    nearest._cache.clear()  # as a new process: the file is mapped, not read from SQLite
    assert _by_meaning(history)[:1] == [CACHE]
    history.forget_session(CACHE)
    assert CACHE not in _by_meaning(history)
    assert _ids_in_file(home) == _ids_in_index(home) and len(_ids_in_index(home)) == 4
    history.close()


def _many(root: Path, count: int = 40) -> None:
    _store(root)
    for n in range(count):
        write_session(
            root,
            session_doc(
                f"filler-{n}",
                [user(f"Rename variable number {n} in module {n}."), assistant("Renamed it.")],
            ),
            mtime=PAST,
        )


def _full_read(history: History, text: str) -> list[tuple[int, float]]:
    """What a search finds reading every vector from the index (no file, no cache)."""
    for path in history.home.glob("index.sqlite3.vectors-*"):
        path.unlink()
    nearest._cache.clear()
    return _nearest(history, text)


def _nearest(history: History, text: str) -> list[tuple[int, float]]:
    db = sqlite3.connect(history.home / "index.sqlite3")
    try:
        return nearest.nearest(db, text, 10)
    finally:
        db.close()


def _generation_of_file(home: Path) -> int:
    (found,) = home.glob("index.sqlite3.vectors-*.f32.npy")
    return int(found.name.split("-")[-1].split(".")[0])


QUESTION = "caching credentials for login"


def _same_ranking(one: list[tuple[int, float]], other: list[tuple[int, float]]) -> bool:
    """The same scores in order, and the same records above the last score (ties at the cut
    may be any of the tied records, as in any search)."""
    if [round(score, 6) for _, score in one] != [round(score, 6) for _, score in other]:
        return False
    last = round(one[-1][1], 6) if one else 0.0
    return {rid for rid, score in one if round(score, 6) > last} == {
        rid for rid, score in other if round(score, 6) > last
    }


def test_a_search_catches_up_from_the_log_and_finds_what_a_full_read_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn written, a session forgotten: the matrix of an earlier generation (the file, as a
    new process maps it; or the one a long-running process holds) is brought up to date from
    what changed, not read again, and ranks exactly as reading every vector does."""
    store = tmp_path / "store"
    _many(store)
    history = History(home=tmp_path / "home", root=store)
    history.refresh()
    assert _by_meaning(history)[:1] == [CACHE]  # the file is written
    written = _generation_of_file(history.home)
    write_session(
        store,
        session_doc(
            DOCKER,
            [user("Login keeps asking for credentials."), assistant("Cached the session login.")],
        ),
    )
    history.refresh()
    history.forget_session("filler-3")

    def no_full_read(*args: object) -> None:
        raise AssertionError("every vector was read again")

    caught_up = []
    with monkeypatch.context() as patch:
        patch.setattr(nearest, "_read", no_full_read)
        caught_up.append(_nearest(history, QUESTION))  # the matrix this process holds
        nearest._cache.clear()
        caught_up.append(_nearest(history, QUESTION))  # the file, as a new process maps it
    assert _generation_of_file(history.home) == written  # not written again
    full = _full_read(history, QUESTION)
    for ranking in caught_up:
        assert {rid for rid, _ in ranking} <= _ids_in_index(history.home)
        assert _same_ranking(ranking, full)
    history.close()


def test_a_matrix_older_than_the_log_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    _many(store)
    history = History(home=tmp_path / "home", root=store)
    history.refresh()
    assert _by_meaning(history)[:1] == [CACHE]
    written = _generation_of_file(history.home)
    monkeypatch.setattr(vectors, "CHANGES_KEPT", 0)  # every write starts the log again
    for n in (1, 2):
        write_session(
            store, session_doc(f"filler-{n}", [user(f"Renamed again {n}."), assistant("Done.")])
        )
        history.refresh()
    nearest._cache.clear()
    assert _same_ranking(_nearest(history, QUESTION), _full_read(history, QUESTION))
    history.refresh()
    _nearest(history, QUESTION)
    assert _generation_of_file(history.home) > written
    history.close()
