"""Many sessions per transaction (index/batch.py), no savepoint per session: a session whose
write fails is rolled back alone, the whole sessions before it are committed, as when each
session was its own transaction; the failure is raised."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from deja.index import batch as batch_module
from deja.index import ingest, refresh
from deja.index.batch import CommitBatch
from deja.query import History, SearchQuery
from tests.support.storebuilder import session_doc, user, write_session


class DiskFull(Exception):
    pass


def open_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE IF NOT EXISTS rows (session TEXT, n INTEGER)")
    return db


def session_write(name: str, *, fail: bool = False) -> batch_module.SessionWrite[str]:
    def write(db: sqlite3.Connection) -> str:
        db.executemany("INSERT INTO rows VALUES (?, ?)", [(name, n) for n in range(3)])
        if fail:
            raise DiskFull(name)  # half of this session is written by now
        return name

    return write


def committed(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)  # another connection: sees committed rows only
    try:
        return dict(db.execute("SELECT session, count(*) FROM rows GROUP BY session").fetchall())
    finally:
        db.close()


def test_a_failed_write_rolls_back_that_session_alone(tmp_path: Path) -> None:
    db = open_db(tmp_path / "index.db")
    batch = CommitBatch(db, max_seconds=3600, max_sessions=100)
    assert [batch.write(session_write(name)) for name in ("a", "b")] == ["a", "b"]
    assert committed(tmp_path / "index.db") == {}  # still one open batch
    with pytest.raises(DiskFull):
        batch.write(session_write("c", fail=True))
    assert not db.in_transaction
    assert committed(tmp_path / "index.db") == {"a": 3, "b": 3}
    batch.write(session_write("d"))  # the next batch starts afresh
    batch.commit()
    assert committed(tmp_path / "index.db") == {"a": 3, "b": 3, "d": 3}


def test_a_failure_as_the_batch_opens_commits_nothing(tmp_path: Path) -> None:
    db = open_db(tmp_path / "index.db")
    batch = CommitBatch(db, max_seconds=3600, max_sessions=2)
    batch.write(session_write("a"))
    batch.write(session_write("b"))  # full: committed
    with pytest.raises(DiskFull):
        batch.write(session_write("c", fail=True))
    assert not db.in_transaction and committed(tmp_path / "index.db") == {"a": 3, "b": 3}


def test_a_pass_whose_write_fails_keeps_the_sessions_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "continue"
    for n in range(6):
        write_session(store, session_doc(f"s{n}", [user(f"topic{n} question"), user("more")]))
    real = ingest.ingest_session
    seen: list[str] = []

    def failing(db: sqlite3.Connection, session: object, rows: object) -> int | None:
        kept = real(db, session, rows)  # type: ignore[arg-type]
        seen.append(session.id)  # type: ignore[attr-defined]
        if session.id == "s3":  # type: ignore[attr-defined]
            raise DiskFull("s3")  # after all of its rows went in
        return kept

    monkeypatch.setattr(refresh, "ingest_session", failing)
    history = History(home=tmp_path / "home", root=store)
    try:
        with pytest.raises(DiskFull):
            history.refresh()
        before = seen[: seen.index("s3")]
        assert before, "s3 was not the first session read"
        indexed = {sid for (sid,) in history._db.execute("SELECT id FROM sessions")}
        assert indexed == set(before)
        counts = history._db.execute("SELECT session_id, count(*) FROM records GROUP BY 1")
        assert dict(counts.fetchall()) == dict.fromkeys(before, 2)
        monkeypatch.setattr(refresh, "ingest_session", real)
        assert history.refresh().changed == 6 - len(before)
        assert len(history.search(SearchQuery("question", limit=50)).hits) == 6
    finally:
        history.close()


def test_a_large_pass_puts_sqlite_settings_back(tmp_path: Path) -> None:
    from deja.continue_store import SessionRef
    from deja.index import bulk

    db = open_db(tmp_path / "index.db")

    def settings() -> tuple[int, int]:
        (cache,) = db.execute("PRAGMA cache_size").fetchone()
        (checkpoint,) = db.execute("PRAGMA wal_autocheckpoint").fetchone()
        return cache, checkpoint

    before = settings()
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    big = [SessionRef("a", None, None, size=bulk.LARGE_PASS_BYTES + 1)]
    with pytest.raises(DiskFull), bulk.large_pass(db, big):
        assert settings() == (-bulk.CACHE_KIB, bulk.CHECKPOINT_BYTES // page_size)
        raise DiskFull
    assert settings() == before
    with bulk.large_pass(db, [SessionRef("a", None, None, size=1_000)]):
        assert settings() == before  # a small pass keeps them as they are
