"""What the index holds and how big it and Continue's store are (`deja stats`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .rows import named


@dataclass(slots=True)
class Stats:
    sessions: int
    deleted_sessions: int
    records: int
    compacted_records: int
    index_bytes: int
    store_bytes: int
    last_pass: float | None
    index_path: str
    store_path: str


def index_stats(db: sqlite3.Connection, index_path: Path, root: Path) -> Stats:
    """Counts from the index `db` at `index_path`; sizes of its files and of the store at `root`."""
    row = (
        named(db)
        .execute("SELECT count(*) AS sessions, coalesce(sum(deleted), 0) AS deleted FROM sessions")
        .fetchone()
    )
    records = (
        named(db)
        .execute(
            "SELECT count(*) AS records, coalesce(sum(compacted), 0) AS compacted FROM records"
        )
        .fetchone()
    )
    last = db.execute("SELECT value FROM meta WHERE key = 'last_pass'").fetchone()
    home = index_path.parent
    index_bytes = sum(p.stat().st_size for p in home.glob("index.sqlite3*") if p.is_file())
    from deja.continue_store.listing import scan_session_files  # only `deja stats` lists

    files, _ = scan_session_files(root)
    store_bytes = sum(file.size for file in files or ())
    return Stats(
        sessions=int(row["sessions"]),
        deleted_sessions=int(row["deleted"]),
        records=int(records["records"]),
        compacted_records=int(records["compacted"]),
        index_bytes=index_bytes,
        store_bytes=store_bytes,
        last_pass=float(last[0]) if last else None,
        index_path=str(index_path),
        store_path=str(root),
    )


@dataclass(frozen=True, slots=True)
class IndexHealth:
    """What `deja doctor` says of the index file beyond `Stats`."""

    schema: int  # the schema version the file holds
    excluded: int  # session files the exclude list keeps out
    fault: str | None  # SQLite's check of every page (when asked for): None when sound


def index_health(db: sqlite3.Connection, *, check_pages: bool) -> IndexHealth:
    from deja.index.faults import check_whole
    from deja.index.schema import schema_version

    excluded = db.execute("SELECT count(*) FROM excluded").fetchone()[0]
    fault = check_whole(db) if check_pages else None
    return IndexHealth(schema_version(db), int(excluded), fault)
