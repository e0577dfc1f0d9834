"""A session too large to parse whole is indexed with its history streamed and its rows spooled
to disk (`rows.SpooledRows`): the index is the same as when it is parsed whole, through a
compaction too, it is searchable, and no spool file is left behind. Sessions over the old 64 MiB
cap are indexed by default (no cap unless one is set). The threshold is forced low here."""

from __future__ import annotations

import gc
import json
import os
import pickle
import sqlite3
from pathlib import Path

import pytest
from bench.big_session import SESSION_ID, make_store

from deja import settings
from deja.continue_store import Record, parse, store
from deja.index import ingest
from deja.index.insert_rows import SpooledRows, record_row
from deja.query import History, SearchQuery

TABLES = {"sessions": "id", "items": "session_id, turn", "records": "id", "record_texts": "id"}


def dump(db: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    tables: dict[str, list[tuple[object, ...]]] = {}
    for table, order in TABLES.items():
        cursor = db.execute(f"SELECT * FROM {table} ORDER BY {order}")
        names = [column[0] for column in cursor.description]
        rows = cursor.fetchall()
        if "parts" in names:  # a set of words: their order follows the splitter's cache
            at = names.index("parts")
            rows = [(*row[:at], sorted(str(row[at]).split()), *row[at + 1 :]) for row in rows]
        tables[table] = rows
    return tables


def compact(root: Path) -> None:
    """Rewrite the session as `cn /compact` does: one summary item, then new turns."""
    path = root / "sessions" / f"{SESSION_ID}.json"
    doc = json.loads(path.read_bytes())
    summary = "Summary: the retry path of the stream buffer was fixed."
    doc["history"] = [
        {
            "message": {"role": "assistant", "content": summary},
            "contextItems": [],
            "conversationSummary": summary,
        },
        {"message": {"role": "user", "content": "continue with zanzibarQuux"}, "contextItems": []},
    ]
    path.write_text(json.dumps(doc, indent=2))
    os.utime(path, ns=(1767232800 * 10**9,) * 2)


def index_twice(root: Path, home: Path) -> list[dict[str, list[tuple[object, ...]]]]:
    """The index after a first pass, and after the session is compacted on disk."""
    history = History(home=home, root=root)
    try:
        dumps = []
        report = history.refresh()
        assert report.changed == 1 and not report.errors
        assert history.search(SearchQuery("AWS_SECRET_ACCESS_KEY")).hits  # the key's name
        assert not history.search(SearchQuery("wJalrXUtnFEMI")).hits  # its value: redacted
        dumps.append(dump(history._db))
        compact(root)
        assert history.refresh().kept > 0
        assert history.search(SearchQuery("zanzibarQuux")).hits
        dumps.append(dump(history._db))
        return dumps
    finally:
        history.close()


def test_streamed_session_indexes_the_same_and_leaves_no_spool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(settings.MAX_SESSION_BYTES_VAR, raising=False)
    for name in ("whole", "streamed"):
        make_store(tmp_path / name, 1_500_000)
    whole = index_twice(tmp_path / "whole", tmp_path / "home-whole")
    size = (tmp_path / "streamed" / "sessions" / f"{SESSION_ID}.json").stat().st_size
    monkeypatch.setattr(store, "STREAM_MIN_BYTES", size // 2)  # the big file alone streams
    monkeypatch.setattr(parse, "_FLUSH_RECORDS", 7)  # many spooled chunks, many inserts
    monkeypatch.setattr(ingest, "_CHUNK", 5)
    streamed = index_twice(tmp_path / "streamed", tmp_path / "home-streamed")
    for before, after in zip(whole, streamed, strict=True):
        assert len(before["records"]) > 50
        # The session's file path differs between the two stores; nothing else may.
        after["sessions"] = [
            row[:7] + before["sessions"][0][7:8] + row[8:] for row in after["sessions"]
        ]
        assert after == before
    gc.collect()
    assert not list((tmp_path / "home-streamed").glob("rows-*"))


def test_spooled_rows_change_owner_when_pickled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader worker pickles its spool to the writer: the file is the writer's to remove."""
    monkeypatch.setenv("DEJA_HOME", str(tmp_path))
    records = [Record(turn, "user", f"ask {turn}", 0.0) for turn in range(3)]
    spool = SpooledRows()
    spool.add(records[:2])
    spool.reset()
    spool.add(records)
    copy = pickle.loads(pickle.dumps(spool))
    assert list(copy) == list(copy) == [record_row(record) for record in records]
    path = Path(str(copy.path))
    assert path.parent == tmp_path and path.stat().st_mode & 0o077 == 0
    del spool
    gc.collect()
    assert path.exists()
    del copy
    gc.collect()
    assert not path.exists()
