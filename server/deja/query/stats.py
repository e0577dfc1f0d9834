"""What the index holds and how big it and Continue's store are (`deja stats`), and how far
search by meaning's deep model has read it (`deja stats`, `deja doctor`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from deja import semantic, settings

from .rows import named

INSTALL = "pip install 'deja[semantic]'"
# What is said of the records the deep model has not read: the long-running doors read them,
# a one-shot command never does.
READ_IN_BACKGROUND = "an editor or MCP server reads the rest in the background"


@dataclass(frozen=True, slots=True)
class Meaning:
    """How far search by meaning's deep model has read the index, stated once (`summary`) for
    every door to style. `state`: `words only` (DEJA_SEMANTIC=0), `not installed` (no semantic
    extra), `light` (DEJA_SEMANTIC=light), `deep not installed`, `reading`, `read`. `read` of
    `records` (the records meaning searches) have a deep vector."""

    state: str
    read: int
    records: int
    summary: str

    @property
    def reading(self) -> bool:
        return self.state == "reading"


def meaning_status(db: sqlite3.Connection) -> Meaning:
    if not settings.semantic_search():
        return Meaning("words only", 0, 0, "turned off (DEJA_SEMANTIC=0): search by words only")
    if not semantic.available():
        return Meaning("not installed", 0, 0, f"not installed ({INSTALL})")
    if not settings.deep_meaning():
        return Meaning("light", 0, 0, "deep model turned off (DEJA_SEMANTIC=light)")
    if not semantic.deep_available():
        return Meaning(
            "deep not installed", 0, 0, "deep model not installed (pip install 'deja[deep]')"
        )
    from deja.semantic import deep_pass
    from deja.semantic.vectors import EMBEDDED_ROLES

    marks = ",".join("?" * len(EMBEDDED_ROLES))
    records = int(
        db.execute(
            f"SELECT count(*) FROM records WHERE role IN ({marks})", EMBEDDED_ROLES
        ).fetchone()[0]
    )
    pending = deep_pass.pending(db) if deep_pass.ready(db) else records
    read = records - pending
    if not pending:
        return Meaning("read", read, records, "deep model has read every record")
    summary = f"deep model has read {read:,} of {records:,} records ({READ_IN_BACKGROUND})"
    return Meaning("reading", read, records, summary)


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
    meaning: Meaning


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
        meaning=meaning_status(db),
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
