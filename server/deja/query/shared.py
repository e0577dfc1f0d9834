"""What a team push reads from the index, as plain rows: every session with what marks its
change (the team side keeps a digest of it) and one session's records in order, each with its
history item's fingerprint. Which sessions are shared, redaction and keys are `deja.team`'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3


@dataclass(frozen=True, slots=True)
class IndexedSession:
    id: str
    title: str
    workspace: str
    project: str
    started: float
    last_active: float
    # What changes when the session does: its file, its message and record counts, its state.
    version: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class IndexedRecord:
    turn: int
    role: str
    time: float
    path: str | None
    exit_code: int | None
    status: str | None
    compacted: bool
    body: str
    fingerprint: str | None  # the history item's (None when the index holds no item for it)


def indexed_sessions(db: sqlite3.Connection) -> list[IndexedSession]:
    """Every session the index holds, by id."""
    rows = db.execute(
        "SELECT s.id, s.title, s.workspace, s.project, s.started, s.last_active, s.size,"
        " s.mtime_ns, s.message_count, s.deleted,"
        " (SELECT count(*) || ':' || coalesce(max(r.id), 0) FROM records r"
        "  WHERE r.session_id = s.id) FROM sessions s ORDER BY s.id"
    ).fetchall()
    return [
        IndexedSession(id_, title, workspace, project, started, last_active, tuple(version))
        for id_, title, workspace, project, started, last_active, *version in rows
    ]


def indexed_records(db: sqlite3.Connection, session_id: str) -> list[IndexedRecord]:
    """A session's records in order (turn, then as indexed)."""
    rows = db.execute(
        "SELECT r.turn, r.role, r.time, r.path, r.exit_code, r.status, r.compacted, f.body,"
        " i.fingerprint FROM records r JOIN records_fts f ON f.rowid = r.id"
        " LEFT JOIN items i ON i.session_id = r.session_id AND i.turn = r.turn"
        " WHERE r.session_id = ? ORDER BY r.turn, r.id",
        (session_id,),
    ).fetchall()
    return [
        IndexedRecord(turn, role, time, path, exit_code, status, bool(compacted), body or "", fp)
        for turn, role, time, path, exit_code, status, compacted, body, fp in rows
    ]
