"""Listing sessions and reading one back, turn by turn, as the index holds it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from deja.errors import DejaError
from deja.index.forks import own_records

from .rows import named
from .scope import Scope

MIN_ID_PREFIX = 8


class UnknownSession(DejaError, LookupError):
    pass


@dataclass(slots=True)
class SessionSummary:
    id: str
    title: str
    workspace: str
    project: str
    started: float
    last_active: float
    first_user: str
    last_user: str
    message_count: int
    size: int
    lost_context: bool
    kept_turns: int
    deleted: bool
    current: bool = False
    # A fork (`cn --fork`): the parent, its title, and the first turn that is this session's own.
    forked_from: str | None = None
    forked_from_title: str | None = None
    fork_turn: int | None = None


# The columns `summary_from_row` reads (by name: a row may hold more).
SUMMARY_COLUMNS = (
    "id, title, workspace, project, started, last_active, first_user, last_user,"
    " message_count, size, compacted_on_disk, kept_items, deleted,"
    " (SELECT json_array(parent_id, parent_title, fork_turn) FROM fork_of WHERE fork_id = id)"
    " AS fork"
)


def summary_from_row(row: sqlite3.Row) -> SessionSummary:
    """A `SessionSummary` from a row of a `named` cursor that selected `SUMMARY_COLUMNS`."""
    from deja import jsonlib  # here: importing orjson costs `deja search` ~10 ms at start-up

    parent, parent_title, fork_turn = jsonlib.loads(row["fork"]) if row["fork"] else (None,) * 3
    return SessionSummary(
        id=str(row["id"]),
        title=str(row["title"]),
        workspace=str(row["workspace"]),
        project=str(row["project"]),
        started=float(row["started"]),
        last_active=float(row["last_active"]),
        first_user=str(row["first_user"]),
        last_user=str(row["last_user"]),
        message_count=int(row["message_count"]),
        size=max(int(row["size"]), 0),
        lost_context=bool(row["compacted_on_disk"]) or int(row["kept_items"]) > 0,
        kept_turns=int(row["kept_items"]),
        deleted=bool(row["deleted"]),
        forked_from=parent,
        forked_from_title=parent_title,
        fork_turn=fork_turn,
    )


def fork_line(summary: SessionSummary) -> str:
    """ "forked from <title> (<id8>) at turn N", the words every door uses; "" for no fork."""
    if summary.forked_from is None:
        return ""
    title = " ".join((summary.forked_from_title or "").split()) or "(untitled)"
    return f"forked from {title} ({summary.forked_from[:8]}) at turn {summary.fork_turn}"


# Newest first, everywhere sessions are ordered. Last activity is the file's mtime; files copied
# (`cp -r`), restored from a backup or synced can share one: the later start, then the id, decide.
NEWEST_FIRST = "last_active DESC, started DESC, id"


def list_sessions(
    db: sqlite3.Connection, scope: Scope, limit: int = 50, offset: int = 0
) -> list[SessionSummary]:
    """Newest first; the most recently written one in scope is marked current."""
    scope_sql, params = scope.sql("workspace")
    where = f"WHERE {scope_sql}" if scope_sql else ""
    sql = f"SELECT {SUMMARY_COLUMNS} FROM sessions {where} ORDER BY {NEWEST_FIRST} LIMIT ? OFFSET ?"
    rows = named(db).execute(sql, [*params, limit, offset]).fetchall()
    summaries = [summary_from_row(row) for row in rows]
    newest = current_session(db, scope)
    for summary in summaries:
        summary.current = newest is not None and summary.id == newest.id
    return summaries


def current_session(db: sqlite3.Connection, scope: Scope) -> SessionSummary | None:
    """The session being written now: the newest in scope whose file still exists."""
    scope_sql, params = scope.sql("workspace")
    where = f"{scope_sql} AND deleted = 0" if scope_sql else "deleted = 0"
    row = (
        named(db)
        .execute(
            f"SELECT {SUMMARY_COLUMNS} FROM sessions WHERE {where} ORDER BY {NEWEST_FIRST} LIMIT 1",
            params,
        )
        .fetchone()
    )
    if row is None:
        return None
    summary = summary_from_row(row)
    summary.current = True
    return summary


def count_sessions(db: sqlite3.Connection, scope: Scope) -> int:
    """How many sessions `list_sessions` pages through."""
    scope_sql, params = scope.sql("workspace")
    where = f"WHERE {scope_sql}" if scope_sql else ""
    return int(db.execute(f"SELECT count(*) FROM sessions {where}", params).fetchone()[0])


def resolve_session_id(db: sqlite3.Connection, given: str) -> str:
    """A full id, or a unique prefix of at least 8 characters."""
    if db.execute("SELECT 1 FROM sessions WHERE id = ?", (given,)).fetchone():
        return given
    if len(given) < MIN_ID_PREFIX:
        raise UnknownSession(f"no session {given!r} (give the full id or 8+ characters of it)")
    rows = db.execute(
        "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
        (given, given + "\U0010ffff"),
    ).fetchall()
    if not rows:
        raise UnknownSession(f"no session {given!r} in the index")
    if len(rows) > 1:
        raise UnknownSession(f"{given!r} matches more than one session; give more of the id")
    return str(rows[0][0])


def session_ids(db: sqlite3.Connection) -> list[str]:
    """Every session the index holds (deleted ones too)."""
    return [row[0] for row in db.execute("SELECT id FROM sessions")]


def summaries_of(db: sqlite3.Connection, session_ids: Sequence[str]) -> list[SessionSummary]:
    """These sessions, newest first, in one query (the ids travel as one JSON parameter, so
    no count of them meets SQLite's limit on parameters)."""
    from deja import jsonlib

    rows = named(db).execute(
        f"SELECT {SUMMARY_COLUMNS} FROM sessions"
        " WHERE id IN (SELECT value FROM json_each(?))"
        f" ORDER BY {NEWEST_FIRST}",
        (jsonlib.dumps(list(session_ids)).decode(),),
    )
    return [summary_from_row(row) for row in rows]


def forks_of(db: sqlite3.Connection, session_id: str) -> list[SessionSummary]:
    """The sessions forked from this one (`cn --fork`), newest first."""
    ids = [
        row[0]
        for row in db.execute("SELECT session_id FROM forks WHERE parent_id = ?", (session_id,))
    ]
    return summaries_of(db, ids) if ids else []


def session_summary(db: sqlite3.Connection, session_id: str) -> SessionSummary:
    row = (
        named(db)
        .execute(f"SELECT {SUMMARY_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        .fetchone()
    )
    if row is None:
        raise UnknownSession(f"no session {session_id!r} in the index")
    return summary_from_row(row)


@dataclass(slots=True)
class TurnRecord:
    turn: int
    role: str
    time: float
    text: str
    tool: str | None
    status: str | None
    path: str | None
    exit_code: int | None
    output: str | None
    args: str | None
    hunks: list[tuple[str | None, str]]
    compacted: bool


@dataclass(slots=True)
class SessionView:
    session: SessionSummary
    records: list[TurnRecord] = field(default_factory=list)


class InheritedTurn(DejaError):
    """A fork's turn that is a copy of its parent's: shown under the parent."""


def _inherited_turn(db: sqlite3.Connection, summary: SessionSummary, turn: int) -> InheritedTurn:
    row = db.execute("SELECT parent_turn FROM forks WHERE session_id = ?", (summary.id,)).fetchone()
    parent, there = str(summary.forked_from)[:8], int(row[0]) + turn if row else turn
    return InheritedTurn(
        f"turn {turn} of {summary.id[:8]} is a copy of turn {there} of {parent}, the session it"
        f" was {fork_line(summary)}: deja show {parent} --turn {there}"
    )


def show_session(
    db: sqlite3.Connection, session_id: str, turn: int | None = None, *, inherited: bool = False
) -> SessionView:
    """A session's records. A fork's copy of its parent's turns is the parent's: shown there,
    not here, unless `inherited` (a handoff carries the fork's whole history: its turns before
    `fork_turn` are the parent's)."""
    view = SessionView(session_summary(db, session_id))
    fork_turn = view.session.fork_turn
    if turn is not None and fork_turn is not None and 0 <= turn < fork_turn:
        raise _inherited_turn(db, view.session, turn)
    where, params = "r.session_id = ?", [session_id]
    if not inherited:
        where += f" AND {own_records('r')}"
    if turn is not None:
        where += " AND r.turn = ?"
        params.append(turn)  # type: ignore[arg-type]
    for row in named(db).execute(
        f"{TURN_RECORDS_SQL} WHERE {where} ORDER BY r.turn, r.id",
        params,
    ):
        view.records.append(turn_record(row))
    return view


# The rows `turn_record` reads: a session's records with their text (packed columns unpacked).
TURN_RECORDS_SQL = (
    "SELECT r.turn, r.role, r.time, f.body AS text, r.tool, r.status, r.path, r.exit_code,"
    " unpack(r.output) AS output, r.args, unpack(r.hunks) AS hunks, r.compacted FROM records r"
    " JOIN records_fts f ON f.rowid = r.id"
)


def turn_record(row: sqlite3.Row) -> TurnRecord:
    """A record as `show` and the session view give it, from a row of `records` joined with
    its text (`text`)."""
    from deja import jsonlib  # not on `deja search`'s path

    return TurnRecord(
        turn=int(row["turn"]),
        role=row["role"],
        time=row["time"],
        text=row["text"],
        tool=row["tool"],
        status=row["status"],
        path=row["path"],
        exit_code=row["exit_code"],
        output=row["output"],
        args=row["args"],
        hunks=[(h[0], h[1]) for h in jsonlib.loads(row["hunks"])] if row["hunks"] else [],
        compacted=bool(row["compacted"]),
    )
