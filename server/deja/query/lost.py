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
        if summary.deleted:
            found.append(LostSession(summary, "deleted", int(row["held"])))
        else:
            found.append(LostSession(summary, "compacted", summary.kept_turns))
    return found
