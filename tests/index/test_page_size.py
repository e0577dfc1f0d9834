"""A new index file is made with `schema.PAGE_SIZE` pages; one made before with SQLite's 4 KiB
pages keeps them and holds and finds exactly what a new one does (`Index` never rewrites a
file to change its page size)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from deja.index.schema import DB_NAME, PAGE_SIZE, connect, connect_read_only
from deja.query import History, SearchQuery
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

TABLES = {
    "sessions": "id",
    "items": "session_id, turn",
    "records": "id",
    "record_texts": "id",
}


def rows(db: sqlite3.Connection, query: str) -> list[list[object]]:
    """The rows, a record's identifier parts as a sorted list (their order follows the string
    hashing of the process: the same words, so the same searches match)."""
    cursor = db.execute(query)
    names = [column[0] for column in cursor.description]
    return [
        [
            sorted(str(value).split()) if name == "parts" else value
            for name, value in zip(names, row, strict=True)
        ]
        for row in cursor.fetchall()
    ]


def page_size(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("PRAGMA page_size").fetchone()[0])
    finally:
        db.close()


def store_of(root: Path) -> Path:
    (root / "sessions").mkdir(parents=True)
    long_output = "".join(f"test_case_{n} PASSED in {n}ms\n" for n in range(600))
    for n in range(6):
        turns = [
            user(f"why does parseConfig {n} fail"),
            assistant("", [call("Bash", {"command": f"pytest -k case{n}"}, long_output)]),
            assistant(
                "",
                [call("Edit", {"file_path": "/w/a.py", "old_string": "x", "new_string": f"y{n}"})],
            ),
            assistant(f"The retryBudget was off by {n}."),
        ]
        write_session(root, session_doc(f"s{n:02}", turns), mtime=1_700_000_000 + n)
    return root


def old_index(home: Path) -> None:
    """An index file as releases before this page size made it."""
    home.mkdir(mode=0o700)
    db = sqlite3.connect(home / DB_NAME)
    db.executescript("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL;")
    db.close()
    connect(home / DB_NAME).close()


def test_a_new_index_has_the_larger_pages(tmp_path: Path) -> None:
    connect(tmp_path / DB_NAME).close()
    assert PAGE_SIZE != 4096
    assert page_size(tmp_path / DB_NAME) == PAGE_SIZE


def test_an_index_with_4k_pages_keeps_them_and_holds_the_same(tmp_path: Path) -> None:
    store = store_of(tmp_path / "continue")
    old_index(tmp_path / "old")
    assert page_size(tmp_path / "old" / DB_NAME) == 4096
    histories = [History(home=tmp_path / name, root=store) for name in ("old", "new")]
    for history in histories:
        history.refresh()
    assert page_size(tmp_path / "old" / DB_NAME) == 4096
    assert page_size(tmp_path / "new" / DB_NAME) == PAGE_SIZE
    old, new = (connect_read_only(tmp_path / name / DB_NAME) for name in ("old", "new"))
    for table, order in TABLES.items():
        query = f"SELECT * FROM {table} ORDER BY {order}"
        assert rows(old, query) == rows(new, query), table
    for words in ("parse", "retryBudget", "test_case_599", "case3"):
        found = [
            [(h.session_id, h.turn) for h in x.search(SearchQuery(words)).hits] for x in histories
        ]
        assert found[0] == found[1] != []


def test_the_wal_is_checkpointed_after_the_same_bytes_whatever_the_page_size(
    tmp_path: Path,
) -> None:
    old_index(tmp_path / "old")
    for name, size in (("old", 4096), ("new", PAGE_SIZE)):
        db = connect(tmp_path / name / DB_NAME) if name == "old" else connect(tmp_path / DB_NAME)
        try:
            (pages,) = db.execute("PRAGMA wal_autocheckpoint").fetchone()
            assert pages * size == 1000 * 4096, name  # SQLite's default at its default pages
        finally:
            db.close()
