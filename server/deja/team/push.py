"""`deja team push`: the shared sessions' records into the team database, append-only and
idempotent. Each batch of sessions is one transaction (stage by COPY, merge on the key
(member, session, item fingerprint), drop the session's keys the index no longer holds, then the
session's digest), so an interrupted push leaves whole sessions and the next one finishes the
rest. Sessions no longer shared (forgotten, unshared, excluded) are deleted: the text is gone
from the table, not hidden."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deja.index.exclude import ExcludeList

from .config import TeamConfig
from .connection import Connection, opened, team_errors
from .local import LocalIndex, LocalSession, session_records
from .local import shared_sessions as local_sessions
from .migrations import check_schema

# Bytes of text per transaction: big enough for COPY to pay, small enough that a lost
# connection costs little.
BATCH_BYTES = 2 * 1024 * 1024
BATCH_SESSIONS = 50

_COLUMNS = (
    "session_id, key, project, turn, role, time, path, relpath, exit_code, status, compacted, body"
)
_STAGE = (
    "CREATE TEMP TABLE deja_stage (session_id text, key text, project text, turn integer,"
    " role text, time double precision, path text, relpath text, exit_code integer,"
    " status text, compacted boolean, body text) ON COMMIT DROP"
)
_DROP_STALE = (
    "DELETE FROM deja_records r WHERE r.member = current_user AND r.session_id = ANY(%s)"
    " AND NOT EXISTS (SELECT 1 FROM deja_stage s"
    "  WHERE s.session_id = r.session_id AND s.key = r.key)"
)
_MERGE = (
    f"INSERT INTO deja_records ({_COLUMNS}) SELECT {_COLUMNS} FROM deja_stage"
    " ON CONFLICT (member, session_id, key) DO UPDATE SET project = EXCLUDED.project,"
    " turn = EXCLUDED.turn, role = EXCLUDED.role, time = EXCLUDED.time, path = EXCLUDED.path,"
    " relpath = EXCLUDED.relpath, exit_code = EXCLUDED.exit_code, status = EXCLUDED.status,"
    " compacted = EXCLUDED.compacted, body = EXCLUDED.body"
    " WHERE (deja_records.project, deja_records.turn, deja_records.role, deja_records.time,"
    " deja_records.path, deja_records.exit_code, deja_records.status, deja_records.compacted,"
    " deja_records.body) IS DISTINCT FROM (EXCLUDED.project, EXCLUDED.turn, EXCLUDED.role,"
    " EXCLUDED.time, EXCLUDED.path, EXCLUDED.exit_code, EXCLUDED.status, EXCLUDED.compacted,"
    " EXCLUDED.body)"
)
_SESSION = (
    "INSERT INTO deja_sessions (session_id, display, project, workspace, title, started,"
    " last_active, digest)"
    " VALUES (%s, coalesce(nullif(%s, ''), current_user::text), %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (member, session_id) DO UPDATE SET display = EXCLUDED.display,"
    " project = EXCLUDED.project, workspace = EXCLUDED.workspace, title = EXCLUDED.title,"
    " started = EXCLUDED.started, last_active = EXCLUDED.last_active, digest = EXCLUDED.digest"
)


@dataclass(slots=True)
class PushReport:
    shared: int = 0  # sessions the shared workspaces hold
    sent: int = 0  # sessions sent (new or changed)
    records: int = 0  # their records
    bytes: int = 0  # their text
    erased: int = 0  # sessions deleted from the team database
    unchanged: int = 0


def push(
    local: LocalIndex,
    config: TeamConfig,
    exclude: ExcludeList,
    progress: Callable[[PushReport], None] | None = None,
) -> PushReport:
    sessions = local_sessions(local, config.shared, exclude)
    report = PushReport(shared=len(sessions))
    with opened(config) as db:
        check_schema(db)
        with team_errors("cannot read what the team database holds of yours"):
            remote = dict(
                db.execute(
                    "SELECT session_id, digest FROM deja_sessions WHERE member = current_user"
                ).fetchall()
            )
        keep = {session.id for session in sessions}
        gone = sorted(str(sid) for sid in remote if sid not in keep)
        if gone:
            _erase(db, gone)
            report.erased = len(gone)
        todo = [s for s in sessions if remote.get(s.id) != _stamp(s, config)]
        report.unchanged = len(sessions) - len(todo)
        batch: list[LocalSession] = []
        rows: list[tuple[object, ...]] = []
        size = 0
        for session in todo:
            records = session_records(local, session)
            batch.append(session)
            rows.extend(records)
            size += sum(len(row[-1].encode()) for row in records)
            if size >= BATCH_BYTES or len(batch) >= BATCH_SESSIONS:
                _send(db, config, batch, rows, report, size)
                if progress:
                    progress(report)
                batch, rows, size = [], [], 0
        if batch:
            _send(db, config, batch, rows, report, size)
    return report


def _stamp(session: LocalSession, config: TeamConfig) -> str:
    """What the team database remembers of a sent session: a new display name sends it again."""
    return f"{session.digest}:{config.name}"


def _erase(db: Connection, session_ids: list[str]) -> None:
    with team_errors("cannot erase unshared sessions from the team database"), db.transaction():
        db.execute(
            "DELETE FROM deja_records WHERE member = current_user AND session_id = ANY(%s)",
            (session_ids,),
        )
        db.execute(
            "DELETE FROM deja_sessions WHERE member = current_user AND session_id = ANY(%s)",
            (session_ids,),
        )


def _send(
    db: Connection,
    config: TeamConfig,
    batch: list[LocalSession],
    rows: list[tuple[object, ...]],
    report: PushReport,
    size: int,
) -> None:
    display = config.name
    with team_errors("cannot push to the team database"), db.transaction():
        db.execute(_STAGE)
        with db.cursor().copy(f"COPY deja_stage ({_COLUMNS}) FROM STDIN".encode()) as copy:
            for row in rows:
                copy.write_row(row)
        db.execute(_DROP_STALE, ([s.id for s in batch],))
        db.execute(_MERGE)
        with db.cursor() as cursor:
            cursor.executemany(
                _SESSION,
                [
                    (
                        s.id,
                        display,
                        s.project,
                        s.workspace,
                        s.title,
                        s.started,
                        s.last_active,
                        _stamp(s, config),
                    )
                    for s in batch
                ],
            )
    report.sent += len(batch)
    report.records += len(rows)
    report.bytes += size
