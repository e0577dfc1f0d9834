"""The vectors a search scans are a file beside the index that each search memory-maps: it holds
exactly the index's vectors, and a forgotten session's are gone from it at the next search."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from deja.query import History, Scope, SearchQuery
from deja.semantic import nearest
from tests.semantic.test_semantic import CACHE, _store

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
