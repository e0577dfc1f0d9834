"""What only Deja still holds: sessions whose file Continue no longer has, and sessions whose
file lost turns to compaction, with how many turns only the index keeps."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

from .rows import named
from .scope import Scope
from .sessions import NEWEST_FIRST, SUMMARY_COLUMNS, SessionSummary, summary_from_row

LostKind = Literal["deleted", "compacted"]


@dataclass(slots=True)
class LostSession:
    session: SessionSummary
    kind: LostKind
    only_deja: int  # history items (turns) Continue's file no longer has
    recovered_as: str | None = None  # the session `deja recover` wrote for it, once indexed


# A session `deja recover` wrote: a copy of the lost one's turns (so the index holds it as a fork
# of it) under its title marked recovered; the newest one still in Continue's store.
RECOVERED_AS_SQL = (
    "SELECT s.id FROM forks k JOIN sessions s ON s.id = k.session_id"
    " WHERE k.parent_id = ? AND s.deleted = 0 AND s.title LIKE '%(recovered)'"
    " ORDER BY s.started DESC, s.id LIMIT 1"
)


def recovered_as(db: sqlite3.Connection, session_id: str) -> str | None:
    row = db.execute(RECOVERED_AS_SQL, (session_id,)).fetchone()
    return None if row is None else str(row[0])


def lost_sessions(db: sqlite3.Connection, scope: Scope) -> list[LostSession]:
    """Newest first: every session in `scope` whose file is gone or was compacted."""
    scope_sql, params = scope.sql("workspace")
    where = "(deleted = 1 OR kept_items > 0)" + (f" AND {scope_sql}" if scope_sql else "")
    rows = named(db).execute(
        f"SELECT {SUMMARY_COLUMNS},"
        " (SELECT count(*) FROM items i WHERE i.session_id = sessions.id) AS held"
        f" FROM sessions WHERE {where} ORDER BY {NEWEST_FIRST}",
        params,
    )
    found = []
    for row in rows:
        summary = summary_from_row(row)
        kind: LostKind = "deleted" if summary.deleted else "compacted"
        held = int(row["held"]) if summary.deleted else summary.kept_turns
        found.append(LostSession(summary, kind, held, recovered_as(db, summary.id)))
    return found
