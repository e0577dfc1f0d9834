"""What restore reads from the index: a few queries per session, never one per record, and
rows mapped by column name. No file is read."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from deja.index.forks import own_records

from ..rows import named
from ..scope import Scope
from ..sessions import NEWEST_FIRST, SUMMARY_COLUMNS, SessionSummary, summary_from_row
from .section import Entry
from .selection import RestoreError

_TEXT_ROLES = ("user", "assistant", "summary")
_NO_CUT = 1 << 62


@dataclass(frozen=True, slots=True)
class SessionState:
    """A session's row and what changes whenever the index rewrites any of its records."""

    session: SessionSummary
    mtime_ns: int
    base_turn: int
    last_summary: int | None
    record_count: int
    last_record: int
    parent_turn: int | None = None  # a fork: the parent's turn its copy starts at

    @property
    def boundary(self) -> int | None:
        """The turn of its last compaction: its last summary item, or where the file's turns
        start when compaction left no summary."""
        turns = [self.last_summary] if self.last_summary is not None else []
        if self.session.kept_turns:
            turns.append(self.base_turn)
        return max(turns) if turns else None


_STATE_SQL = (
    f"SELECT {SUMMARY_COLUMNS}, mtime_ns, base_turn,"
    " (SELECT max(turn) FROM items WHERE session_id = s.id AND is_summary = 1) AS last_summary,"
    " (SELECT count(*) FROM records WHERE session_id = s.id) AS record_count,"
    " (SELECT coalesce(max(id), 0) FROM records WHERE session_id = s.id) AS last_record,"
    " (SELECT parent_turn FROM forks WHERE session_id = s.id) AS parent_turn"
    " FROM sessions s WHERE id = ?"
)


def load_state(db: sqlite3.Connection, session_id: str) -> SessionState:
    row = named(db).execute(_STATE_SQL, (session_id,)).fetchone()
    if row is None:
        raise RestoreError(f"no session {session_id!r} in the index")
    return SessionState(
        session=summary_from_row(row),
        mtime_ns=int(row["mtime_ns"]),
        base_turn=int(row["base_turn"]),
        last_summary=None if row["last_summary"] is None else int(row["last_summary"]),
        record_count=int(row["record_count"]),
        last_record=int(row["last_record"]),
        parent_turn=None if row["parent_turn"] is None else int(row["parent_turn"]),
    )


def load_entries(
    db: sqlite3.Connection, session_id: str, until: int | None, *, inherited: bool = False
) -> list[Entry]:
    """One query: every record before `until`, text read only where a preview needs it (tool
    output and written text stay in the index). A fork's own records, or with `inherited` its
    copy of its parent's."""
    roles = ",".join(f"'{role}'" for role in _TEXT_ROLES)
    whose = f"NOT {own_records('r')}" if inherited else own_records("r")
    rows = named(db).execute(
        "SELECT r.id AS id, r.turn AS turn, r.role AS role, r.time AS time,"
        f" CASE WHEN r.role IN ({roles})"
        " THEN (SELECT body FROM records_fts WHERE rowid = r.id) END AS text,"
        " r.tool AS tool, r.status AS status, r.path AS path, r.exit_code AS exit_code,"
        " r.args AS args, r.compacted AS compacted"
        " FROM records r WHERE r.session_id = ? AND r.turn < ? AND r.role != 'reasoning'"
        f" AND {whose} ORDER BY r.turn, r.id",
        (session_id, _NO_CUT if until is None else until),
    )
    return [
        Entry(
            id=row["id"],
            turn=row["turn"],
            role=row["role"],
            time=row["time"],
            text=row["text"] or "",
            tool=row["tool"],
            status=row["status"],
            path=row["path"],
            exit_code=row["exit_code"],
            args=row["args"],
            compacted=bool(row["compacted"]),
        )
        for row in rows
    ]


def load_outputs(db: sqlite3.Connection, session_id: str, turns: Sequence[int]) -> dict[int, str]:
    if not turns:
        return {}
    rows = named(db).execute(
        "SELECT id, unpack(output) AS output FROM records WHERE session_id = ?"
        f" AND output IS NOT NULL AND turn IN ({','.join('?' * len(turns))})",
        [session_id, *turns],
    )
    return {int(row["id"]): str(row["output"]) for row in rows}


def has_records_before(db: sqlite3.Connection, session_id: str, turn: int) -> bool:
    before = db.execute(
        "SELECT 1 FROM records WHERE session_id = ? AND turn < ? LIMIT 1", (session_id, turn)
    ).fetchone()
    return before is not None


def next_session_start(db: sqlite3.Connection, session: SessionSummary) -> float | None:
    """When the next session in the same workspace started, if one did."""
    row = db.execute(
        "SELECT min(started) FROM sessions WHERE workspace = ? AND started > ? AND id != ?",
        (session.workspace, session.started, session.id),
    ).fetchone()
    return None if row[0] is None else float(row[0])


def _listable_where(scope: Scope, exclude: str | None) -> tuple[str, list[object]]:
    # Sessions with no genuine user message have nothing to restore.
    scope_sql, params = scope.sql("workspace")
    where = ["first_user != ''", *([scope_sql] if scope_sql else [])]
    if exclude is not None:
        where.append("id != ?")
        params.append(exclude)
    return " AND ".join(where), params


def listable(
    db: sqlite3.Connection, scope: Scope, exclude: str | None, limit: int, offset: int
) -> list[SessionSummary]:
    """The numbered sessions, newest first: #1 is at offset 0."""
    where, params = _listable_where(scope, exclude)
    rows = (
        named(db)
        .execute(
            f"SELECT {SUMMARY_COLUMNS} FROM sessions WHERE {where}"
            f" ORDER BY {NEWEST_FIRST} LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        .fetchall()
    )
    return [summary_from_row(row) for row in rows]


def count_listable(db: sqlite3.Connection, scope: Scope, exclude: str | None) -> int:
    where, params = _listable_where(scope, exclude)
    return int(db.execute(f"SELECT count(*) FROM sessions WHERE {where}", params).fetchone()[0])
